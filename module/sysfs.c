// SPDX-License-Identifier: GPL-2.0
/*
 * pcompact sysfs: statistics under /sys/kernel/pcompact, readable without
 * debugfs (which kernel lockdown blocks).
 *
 *   /sys/kernel/pcompact/version, hooks, takeover_active, takeover_saved,
 *                        takeover_conflicts
 *   /sys/kernel/pcompact/node<N>/score, wmark_low, wmark_high, state, running,
 *                        and the counters of struct pcompact_stats
 *
 * One value per file, except hooks (one line per hook) and zone_scores (one
 * line per populated zone: name and unweighted score).  All read-only.
 */
#define pr_fmt(fmt) "pcompact: " fmt

#include <linux/kernel.h>
#include <linux/kobject.h>
#include <linux/mmzone.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "fault.h"
#include "pcompact.h"

static struct kobject *pcompact_kobj;

static struct pcompact_node *pcompact_sysfs_node(struct kobject *kobj)
{
	int nid;

	if (kstrtoint(kobject_name(kobj) + strlen("node"), 10, &nid))
		return NULL;
	return pcompact_node(nid);
}

#define PCOMPACT_NODE_ATTR(file, fmt, expr)					\
static ssize_t file##_show(struct kobject *kobj, struct kobj_attribute *attr,	\
			   char *buf)						\
{										\
	struct pcompact_node *pn = pcompact_sysfs_node(kobj);			\
	struct pcompact_wmarks wmarks;						\
										\
	if (!pn)								\
		return -ENODEV;							\
	pcompact_score_wmarks(&wmarks);						\
	return sysfs_emit(buf, fmt "\n", expr);					\
}										\
static struct kobj_attribute pcompact_attr_##file = {			\
	.attr = { .name = __stringify(file), .mode = 0444 },			\
	.show = file##_show,							\
}

PCOMPACT_NODE_ATTR(score, "%u", READ_ONCE(pn->score));
PCOMPACT_NODE_ATTR(wmark_low, "%u", wmarks.low);
PCOMPACT_NODE_ATTR(wmark_high, "%u", wmarks.high);
PCOMPACT_NODE_ATTR(state, "%s", pcompact_state_name(READ_ONCE(pn->state)));
PCOMPACT_NODE_ATTR(running, "%d", READ_ONCE(pn->task) ? 1 : 0);
PCOMPACT_NODE_ATTR(free_blocks, "%lu", READ_ONCE(pn->free_blocks));
PCOMPACT_NODE_ATTR(reserve, "%lu", READ_ONCE(pn->reserve));
PCOMPACT_NODE_ATTR(compact_ms, "%lld",
		   (long long)atomic64_read(&pn->stats.compact_ns) / NSEC_PER_MSEC);
PCOMPACT_NODE_ATTR(scan_us, "%lld",
		   (long long)atomic64_read(&pn->stats.scan_ns) / NSEC_PER_USEC);
PCOMPACT_NODE_ATTR(direct_stall_us, "%lld",
		   (long long)atomic64_read(&pn->stats.direct_stall_ns) / NSEC_PER_USEC);

/* The node's demand for free blocks, in blocks per second, 3 decimals. */
static ssize_t demand_rate_show(struct kobject *kobj, struct kobj_attribute *attr,
				char *buf)
{
	struct pcompact_node *pn = pcompact_sysfs_node(kobj);
	u64 mbps;

	if (!pn)
		return -ENODEV;
	/* Only the node's thread writes it, whole: a racy read is a fine statistic. */
	mbps = data_race(pn->consumption.rate_mbps);
	return sysfs_emit(buf, "%llu.%03llu\n", mbps / 1000, mbps % 1000);
}

static struct kobj_attribute pcompact_attr_demand_rate = __ATTR_RO(demand_rate);

/* One line per populated zone: its name and unweighted score. */
static ssize_t zone_scores_show(struct kobject *kobj, struct kobj_attribute *attr,
				char *buf)
{
	struct pcompact_node *pn = pcompact_sysfs_node(kobj);
	unsigned int order = READ_ONCE(pcompact_order);
	ssize_t len = 0;
	int zid;

	if (!pn)
		return -ENODEV;
	for (zid = 0; zid < MAX_NR_ZONES; zid++) {
		struct zone *zone = &NODE_DATA(pn->nid)->node_zones[zid];

		if (populated_zone(zone))
			len += sysfs_emit_at(buf, len, "%s %u\n", zone->name,
					     pcompact_score_zone(zone, order));
	}
	return len;
}

static struct kobj_attribute pcompact_attr_zone_scores = __ATTR_RO(zone_scores);

/* The plain counters share one show function; the offset picks the counter. */
struct pcompact_counter_attr {
	struct kobj_attribute kattr;
	size_t offset;
};

static ssize_t pcompact_counter_show(struct kobject *kobj,
				     struct kobj_attribute *kattr, char *buf)
{
	struct pcompact_counter_attr *attr =
		container_of(kattr, struct pcompact_counter_attr, kattr);
	struct pcompact_node *pn = pcompact_sysfs_node(kobj);

	if (!pn)
		return -ENODEV;
	return sysfs_emit(buf, "%lld\n",
			  (long long)atomic64_read((atomic64_t *)((char *)&pn->stats +
								  attr->offset)));
}

#define PCOMPACT_COUNTER_ATTR(counter)						\
static struct pcompact_counter_attr pcompact_attr_##counter = {		\
	.kattr = {								\
		.attr = { .name = __stringify(counter), .mode = 0444 },		\
		.show = pcompact_counter_show,					\
	},									\
	.offset = offsetof(struct pcompact_stats, counter),			\
}

PCOMPACT_COUNTER_ATTR(rounds);
PCOMPACT_COUNTER_ATTR(blocks_freed);
PCOMPACT_COUNTER_ATTR(pages_migrated);
PCOMPACT_COUNTER_ATTR(failed_blocks);
PCOMPACT_COUNTER_ATTR(skipped_unmovable);
PCOMPACT_COUNTER_ATTR(skipped_type);
PCOMPACT_COUNTER_ATTR(scanned_blocks);
PCOMPACT_COUNTER_ATTR(deferrals);
PCOMPACT_COUNTER_ATTR(backoffs_kswapd);
PCOMPACT_COUNTER_ATTR(backoffs_contention);
PCOMPACT_COUNTER_ATTR(backoffs_stall);
PCOMPACT_COUNTER_ATTR(direct_stalls);
PCOMPACT_COUNTER_ATTR(kcompactd_wakes);
PCOMPACT_COUNTER_ATTR(kswapd_wakes);
PCOMPACT_COUNTER_ATTR(stall_wakes);
PCOMPACT_COUNTER_ATTR(reserve_rounds);
PCOMPACT_COUNTER_ATTR(engine_fallbacks);
PCOMPACT_COUNTER_ATTR(quiet_contig_rounds);
PCOMPACT_COUNTER_ATTR(stalled_contig_rounds);
PCOMPACT_COUNTER_ATTR(fallback_contig_rounds);
PCOMPACT_COUNTER_ATTR(fed_stall_rounds);
PCOMPACT_COUNTER_ATTR(headroom_stops);
PCOMPACT_COUNTER_ATTR(pcp_flushes);
PCOMPACT_COUNTER_ATTR(pcp_flush_blocks);
PCOMPACT_COUNTER_ATTR(call_drains);
PCOMPACT_COUNTER_ATTR(call_drain_blocks);
PCOMPACT_COUNTER_ATTR(call_drain_failures);

static struct attribute *pcompact_node_attrs[] = {
	&pcompact_attr_score.attr,
	&pcompact_attr_zone_scores.attr,
	&pcompact_attr_wmark_low.attr,
	&pcompact_attr_wmark_high.attr,
	&pcompact_attr_state.attr,
	&pcompact_attr_running.attr,
	&pcompact_attr_free_blocks.attr,
	&pcompact_attr_reserve.attr,
	&pcompact_attr_demand_rate.attr,
	&pcompact_attr_compact_ms.attr,
	&pcompact_attr_scan_us.attr,
	&pcompact_attr_scanned_blocks.kattr.attr,
	&pcompact_attr_direct_stall_us.attr,
	&pcompact_attr_rounds.kattr.attr,
	&pcompact_attr_blocks_freed.kattr.attr,
	&pcompact_attr_pages_migrated.kattr.attr,
	&pcompact_attr_failed_blocks.kattr.attr,
	&pcompact_attr_skipped_unmovable.kattr.attr,
	&pcompact_attr_skipped_type.kattr.attr,
	&pcompact_attr_deferrals.kattr.attr,
	&pcompact_attr_backoffs_kswapd.kattr.attr,
	&pcompact_attr_backoffs_contention.kattr.attr,
	&pcompact_attr_backoffs_stall.kattr.attr,
	&pcompact_attr_direct_stalls.kattr.attr,
	&pcompact_attr_kcompactd_wakes.kattr.attr,
	&pcompact_attr_kswapd_wakes.kattr.attr,
	&pcompact_attr_stall_wakes.kattr.attr,
	&pcompact_attr_reserve_rounds.kattr.attr,
	&pcompact_attr_engine_fallbacks.kattr.attr,
	&pcompact_attr_quiet_contig_rounds.kattr.attr,
	&pcompact_attr_stalled_contig_rounds.kattr.attr,
	&pcompact_attr_fallback_contig_rounds.kattr.attr,
	&pcompact_attr_fed_stall_rounds.kattr.attr,
	&pcompact_attr_headroom_stops.kattr.attr,
	&pcompact_attr_pcp_flushes.kattr.attr,
	&pcompact_attr_pcp_flush_blocks.kattr.attr,
	&pcompact_attr_call_drains.kattr.attr,
	&pcompact_attr_call_drain_blocks.kattr.attr,
	&pcompact_attr_call_drain_failures.kattr.attr,
	NULL,
};

static const struct attribute_group pcompact_node_group = {
	.attrs = pcompact_node_attrs,
};

static ssize_t version_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", PCOMPACT_VERSION);
}

static ssize_t hooks_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	return pcompact_hooks_show(buf);
}

#define PCOMPACT_TAKEOVER_ATTR(name, fmt)					\
static ssize_t takeover_##name##_show(struct kobject *kobj,			\
				      struct kobj_attribute *attr, char *buf)	\
{										\
	unsigned long conflicts;						\
	bool active;								\
	int saved;								\
										\
	pcompact_takeover_state(&active, &saved, &conflicts);			\
	return sysfs_emit(buf, fmt "\n", name);					\
}										\
static struct kobj_attribute pcompact_attr_takeover_##name =			\
	__ATTR_RO(takeover_##name)

PCOMPACT_TAKEOVER_ATTR(active, "%d");
PCOMPACT_TAKEOVER_ATTR(saved, "%d");
PCOMPACT_TAKEOVER_ATTR(conflicts, "%lu");

static struct kobj_attribute pcompact_attr_version = __ATTR_RO(version);
static struct kobj_attribute pcompact_attr_hooks = __ATTR_RO(hooks);

static struct attribute *pcompact_top_attrs[] = {
	&pcompact_attr_version.attr,
	&pcompact_attr_hooks.attr,
	&pcompact_attr_takeover_active.attr,
	&pcompact_attr_takeover_saved.attr,
	&pcompact_attr_takeover_conflicts.attr,
	NULL,
};

static const struct attribute_group pcompact_top_group = {
	.attrs = pcompact_top_attrs,
};

/**
 * pcompact_sysfs_exit() - remove /sys/kernel/pcompact and everything in it.
 */
void pcompact_sysfs_exit(void)
{
	int nid;

	for_each_node(nid) {
		struct pcompact_node *pn = pcompact_node(nid);

		if (pn && pn->kobj) {
			kobject_put(pn->kobj);
			pn->kobj = NULL;
		}
	}
	kobject_put(pcompact_kobj);
	pcompact_kobj = NULL;
}

/**
 * pcompact_sysfs_init() - create /sys/kernel/pcompact, with a node<N>
 * directory for every possible node.
 *
 * Return: 0, or a negative errno with nothing left behind.
 */
int pcompact_sysfs_init(void)
{
	char name[16];
	int nid, err;

	pcompact_kobj = kobject_create_and_add("pcompact", kernel_kobj);
	if (!pcompact_kobj)
		return -ENOMEM;
	err = pcompact_fault(PCOMPACT_FAULT_SYSFS) ?:
	      sysfs_create_group(pcompact_kobj, &pcompact_top_group);
	if (err)
		goto err;
	for_each_node(nid) {
		struct pcompact_node *pn = pcompact_node(nid);

		snprintf(name, sizeof(name), "node%d", nid);
		pn->kobj = kobject_create_and_add(name, pcompact_kobj);
		if (!pn->kobj) {
			err = -ENOMEM;
			goto err;
		}
		err = pcompact_fault(PCOMPACT_FAULT_SYSFS) ?:
		      sysfs_create_group(pn->kobj, &pcompact_node_group);
		if (err)
			goto err;
	}
	return 0;
err:
	pr_err("cannot create /sys/kernel/pcompact: %d\n", err);
	pcompact_sysfs_exit();
	return err;
}
