// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - khugehog: time high-order page allocations until they fail
 *
 * Module init allocates pages of one order back to back (or with a delay)
 * until an allocation fails, a limit is reached or free memory gets down to
 * a safety margin, timing each with ktime, then returns, so insmod ends
 * when the run ends.  The pages are held until rmmod so the memory state
 * can be inspected.  The results are in /proc/khugehog/{summary,samples}
 * (report.c), with map_at_end=1 also in block_map and zone_compaction
 * (map.c), and in the kernel log.
 *
 * Pin mode (pin=1) instead leaves 128 unmovable pages at the end of every
 * 2 MB block it can get, which compaction cannot repair.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/nodemask.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmstat.h>

#include "compat.h"
#include "khugehog.h"
#include "stats.h"

/* Upper limits of the parameters: anything above is refused. */
#define KHH_MAX_DELAY_US	1000000U
#define KHH_MAX_STOP_AFTER	1000000U
/* The only order pin mode works with: 2 MB blocks with 4 KB pages. */
#define KHH_PIN_ORDER		9
/* The record arrays may take at most 1 / this of RAM. */
#define KHH_REC_RAM_SHARE	16

static unsigned int khh_order = 9;
module_param_named(order, khh_order, uint, 0444);
MODULE_PARM_DESC(order, "Allocation order, 0..10 (pages of 4 KB << order; default 9 = 2 MB). Orders up to 3 get __GFP_NORETRY so they can never invoke the OOM killer");

static char *khh_gfp_param = "kernel";
module_param_named(gfp, khh_gfp_param, charp, 0444);
MODULE_PARM_DESC(gfp, "Allocation flags: kernel (GFP_KERNEL), thp (GFP_TRANSHUGE, as a THP fault in a madvised VMA with defrag=madvise) or light (GFP_KERNEL | __GFP_NORETRY); __GFP_NOWARN is always added (default kernel)");

static int khh_node = NUMA_NO_NODE;
module_param_named(node, khh_node, int, 0444);
MODULE_PARM_DESC(node, "Node to allocate from with __GFP_THISNODE, or -1 for any node (default -1)");

static unsigned int khh_delay_us;
module_param_named(delay_us, khh_delay_us, uint, 0444);
MODULE_PARM_DESC(delay_us, "Delay between allocations in microseconds, 0..1000000 (default 0: back to back)");

static unsigned long khh_max;
module_param_named(max, khh_max, ulong, 0444);
MODULE_PARM_DESC(max, "Stop after this many successful allocations, 0 = no limit (default 0)");

static unsigned int khh_stop_after_failures = 1;
module_param_named(stop_after_failures, khh_stop_after_failures, uint, 0444);
MODULE_PARM_DESC(stop_after_failures, "Stop after this many consecutive failed allocations, 1..1000000 (default 1: at the first failure)");

static bool khh_free_immediately;
module_param_named(free_immediately, khh_free_immediately, bool, 0444);
MODULE_PARM_DESC(free_immediately, "Free each page right after timing it instead of holding it until rmmod (default 0)");

static bool khh_pin;
module_param_named(pin, khh_pin, bool, 0444);
MODULE_PARM_DESC(pin, "Pin mode: allocate order-9 GFP_KERNEL blocks, free the first 3/4 of each and hold the last 128 pages until rmmod (default 0)");

static unsigned int khh_keep_free_mb = 64;
module_param_named(keep_free_mb, khh_keep_free_mb, uint, 0444);
MODULE_PARM_DESC(keep_free_mb, "Stop before free memory (the node's with node=N) falls below this many MB plus the zones' (the node's zones') high watermarks, so the rest of the system can still allocate; 0 = no margin, run until allocations fail (default 64)");

static bool khh_map_at_end;
module_param_named(map_at_end, khh_map_at_end, bool, 0444);
MODULE_PARM_DESC(map_at_end, "When the run ends, before anything is freed, record each pageblock's migratetype, compaction skip mark and page counts and each zone's compaction scanner positions: /proc/khugehog/block_map and zone_compaction (default 0)");

struct khh_state khh;

/* The gfp modes; none may contain __GFP_NOFAIL. */
static const struct {
	const char *name;
	gfp_t gfp;
} khh_gfp_modes[] = {
	{ "kernel", GFP_KERNEL },
	{ "thp", GFP_TRANSHUGE },
	{ "light", GFP_KERNEL | __GFP_NORETRY },
};

static gfp_t khh_gfp;

/* Check the parameters and derive khh_gfp; -EINVAL names the culprit. */
static int __init khh_check_params(void)
{
	unsigned long ram_mb = totalram_pages() >> (20 - PAGE_SHIFT);
	unsigned int i;

	if (khh_order >= KHH_NR_ORDERS) {
		pr_err("order=%u: must be 0..%d\n", khh_order, KHH_NR_ORDERS - 1);
		return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(khh_gfp_modes); i++)
		if (khh_gfp_param && sysfs_streq(khh_gfp_param, khh_gfp_modes[i].name))
			break;
	if (i == ARRAY_SIZE(khh_gfp_modes)) {
		pr_err("gfp=%s: unknown, must be kernel, thp or light\n",
		       khh_gfp_param ?: "");
		return -EINVAL;
	}
	khh.gfp_name = khh_gfp_modes[i].name;
	BUILD_BUG_ON((GFP_KERNEL | GFP_TRANSHUGE) & __GFP_NOFAIL);
	khh_gfp = khh_gfp_modes[i].gfp | __GFP_NOWARN;
	/* Non-costly orders retry forever and may OOM-kill; costly ones never. */
	if (khh_order <= PAGE_ALLOC_COSTLY_ORDER)
		khh_gfp |= __GFP_NORETRY;

	if (khh_node != NUMA_NO_NODE) {
		if (khh_node < 0 || khh_node >= nr_node_ids ||
		    !node_state(khh_node, N_MEMORY)) {
			pr_err("node=%d: not an online node with memory (those are %*pbl), or -1 for any\n",
			       khh_node, nodemask_pr_args(&node_states[N_MEMORY]));
			return -EINVAL;
		}
		khh_gfp |= __GFP_THISNODE;
	}
	if (khh_delay_us > KHH_MAX_DELAY_US) {
		pr_err("delay_us=%u: more than %u (1 s)\n", khh_delay_us,
		       KHH_MAX_DELAY_US);
		return -EINVAL;
	}
	if (!khh_stop_after_failures ||
	    khh_stop_after_failures > KHH_MAX_STOP_AFTER) {
		pr_err("stop_after_failures=%u: must be 1..%u\n",
		       khh_stop_after_failures, KHH_MAX_STOP_AFTER);
		return -EINVAL;
	}
	if (khh_pin) {
		if (khh_order != KHH_PIN_ORDER) {
			pr_err("order=%u: pin mode needs order %d\n", khh_order,
			       KHH_PIN_ORDER);
			return -EINVAL;
		}
		if (strcmp(khh.gfp_name, "kernel")) {
			pr_err("gfp=%s: pin mode needs gfp=kernel (unmovable, splittable pages)\n",
			       khh.gfp_name);
			return -EINVAL;
		}
		if (khh_free_immediately) {
			pr_err("free_immediately=1: pin mode holds pages, it cannot free them at once\n");
			return -EINVAL;
		}
	}
	if (khh_map_at_end && !IS_ENABLED(CONFIG_COMPACTION)) {
		pr_err("map_at_end=1: this kernel has no compaction (CONFIG_COMPACTION) to map\n");
		return -EINVAL;
	}
	if (khh_keep_free_mb >= ram_mb) {
		pr_err("keep_free_mb=%u: not less than the %lu MB of RAM\n",
		       khh_keep_free_mb, ram_mb);
		return -EINVAL;
	}
	khh.order = khh_order;
	khh.node = khh_node;
	khh.pin = khh_pin;
	khh.free_immediately = khh_free_immediately;
	return 0;
}

/*
 * Size the record arrays.  Held pages cannot outnumber RAM, so
 * totalram >> order successes plus the failure budget always fit unless
 * free_immediately recycles the memory; then max (or that bound, if max is
 * 0) limits the run, and a full array ends it ("records_full").
 */
static int __init khh_alloc_records(void)
{
	u64 bound = totalram_pages() >> khh_order, cap;
	u64 limit = div64_u64((u64)totalram_pages() << PAGE_SHIFT,
			      KHH_REC_RAM_SHARE * (sizeof(*khh.rec) + sizeof(*khh.lat)));

	if (khh_max && (khh_free_immediately || khh_max < bound))
		cap = khh_max;
	else
		cap = bound;
	if (cap > limit || khh_stop_after_failures > limit - cap) {
		pr_err("max=%lu stop_after_failures=%u: the records would take more than 1/%d of RAM\n",
		       khh_max, khh_stop_after_failures, KHH_REC_RAM_SHARE);
		return -EINVAL;
	}
	cap += khh_stop_after_failures;
	khh.rec = kvcalloc(cap, sizeof(*khh.rec), GFP_KERNEL);
	khh.lat = kvcalloc(cap, sizeof(*khh.lat), GFP_KERNEL);
	if (!khh.rec || !khh.lat) {
		kvfree(khh.rec);
		kvfree(khh.lat);
		return -ENOMEM;
	}
	khh.cap_rec = cap;
	return 0;
}

/*
 * Whether @nid is a node the run draws on: every node, or with node=N
 * (__GFP_THISNODE) only N, whose free memory alone the run uses up.
 */
static bool __init khh_run_node(int nid)
{
	return khh.node == NUMA_NO_NODE || nid == khh.node;
}

/* NR_FREE_PAGES of the zones of the nodes the run draws on. */
static unsigned long __init khh_free_pages(void)
{
	unsigned long free = 0;
	int z;

	if (khh.node == NUMA_NO_NODE)
		return global_zone_page_state(NR_FREE_PAGES);
	for (z = 0; z < MAX_NR_ZONES; z++)
		free += zone_page_state(&NODE_DATA(khh.node)->node_zones[z], NR_FREE_PAGES);
	return free;
}

/*
 * Free pages the run leaves alone: keep_free_mb plus the high watermarks of
 * the zones it draws on (all, or node=N's), or none if keep_free_mb is 0.
 * Costly allocations go on down to the min watermark, and if nothing is
 * reclaimable (no page cache, no swap) every other allocation then ends in
 * the OOM killer, which may find nothing to kill and panic.  Stopping above
 * the high watermarks also keeps kswapd asleep.  A node-bound run checks its
 * node's free memory against its node's watermarks: the other nodes' free
 * memory cannot keep the node from running dry.
 */
static unsigned long __init khh_margin(void)
{
	unsigned long wmark = 0;
	struct zone *zone;
	int nid, z;

	if (!khh_keep_free_mb)
		return 0;
	for_each_online_node(nid) {
		if (!khh_run_node(nid))
			continue;
		for (z = 0; z < MAX_NR_ZONES; z++) {
			zone = &NODE_DATA(nid)->node_zones[z];
			if (populated_zone(zone))
				wmark += high_wmark_pages(zone);
		}
	}
	return ((unsigned long)khh_keep_free_mb << (20 - PAGE_SHIFT)) + wmark;
}

/* Pin mode: free the first 3/4 of the block, return the kept last quarter. */
static struct page *__init khh_pin_block(struct page *page)
{
	unsigned int nr = 1U << khh.order, keep = nr / 4, i;

	split_page(page, khh.order);
	for (i = 0; i < nr - keep; i++)
		__free_page(page + i);
	return page + nr - keep;
}

/* Free what @r holds. */
static void khh_release(struct khh_record *r)
{
	unsigned int i;

	if (!r->page)
		return;
	if (khh.pin) {
		for (i = 0; i < (1U << khh.order) / 4; i++)
			__free_page(r->page + i);
	} else {
		__free_pages(r->page, khh.order);
	}
	r->page = NULL;
}

static void khh_release_all(void)
{
	size_t i;

	for (i = 0; i < khh.nr_rec; i++) {
		khh_release(&khh.rec[i]);
		if (!(i % 1024))
			cond_resched();
	}
	khh.held_pages = 0;
}

static struct page *__init khh_alloc_one(void)
{
	if (khh.node == NUMA_NO_NODE)
		return alloc_pages(khh_gfp, khh.order);
	return alloc_pages_node(khh.node, khh_gfp, khh.order);
}

/* Why the loop should stop before the next attempt, or NULL to go on. */
static const char *__init khh_should_stop(void)
{
	if (khh_max && khh.count >= khh_max)
		return "max";
	if (khh.nr_rec >= khh.cap_rec)
		return "records_full";
	if (fatal_signal_pending(current))
		return "signal";
	if (khh.margin_pages &&
	    khh_free_pages() < khh.margin_pages + (1UL << khh.order))
		return "margin";
	return NULL;
}

/* Record the outcome of one attempt; return true when the run must stop. */
static bool __init khh_record(struct page *page, u64 t0, u64 t1, u64 start,
			      unsigned int *consecutive)
{
	struct khh_record *r = &khh.rec[khh.nr_rec++];

	r->t_ns = t0 - start;
	r->latency_ns = t1 - t0;
	if (!page) {
		r->node = khh.node;
		r->zone = KHH_NO_ZONE;
		khh.failures++;
		return ++*consecutive >= khh_stop_after_failures;
	}
	*consecutive = 0;
	r->success = 1;
	r->node = page_to_nid(page);
	r->zone = page_zonenum(page);
	khh.lat[khh.count++] = r->latency_ns;
	if (khh.free_immediately) {
		__free_pages(page, khh.order);
	} else if (khh.pin) {
		r->page = khh_pin_block(page);
		khh.pinned_blocks++;
		khh.held_pages += (1U << khh.order) / 4;
	} else {
		r->page = page;
		khh.held_pages += 1U << khh.order;
	}
	return false;
}

static void __init khh_run(void)
{
	unsigned int consecutive = 0;
	struct page *page;
	u64 start, t0, t1;

	khh.count_ns = khh_count_blocks(khh.start_blocks);
	khh.free_pages_start = khh_free_pages();
	start = ktime_get_ns();
	for (;;) {
		khh.stop_reason = khh_should_stop();
		if (khh.stop_reason)
			break;
		t0 = ktime_get_ns();
		page = khh_alloc_one();
		t1 = ktime_get_ns();
		if (khh_record(page, t0, t1, start, &consecutive)) {
			khh.stop_reason = "failures";
			break;
		}
		if (khh_delay_us)
			fsleep(khh_delay_us);
		cond_resched();
	}
	khh.elapsed_ns = ktime_get_ns() - start;
	khh.free_pages_end = khh_free_pages();
	if (khh_map_at_end)
		khh_map_take();
}

/*
 * Between steps of the statistics: the sort and the passes over up to
 * cap_rec samples (millions with free_immediately) run in module init,
 * where sleeping is allowed, and must not hold the CPU throughout (Debian
 * kernels preempt voluntarily only).
 */
static void khh_relax(void)
{
	cond_resched();
}

static int __init khh_init(void)
{
	int ret;

	ret = khh_check_params();
	if (ret)
		return ret;
	ret = khh_alloc_records();
	if (ret)
		return ret;
	if (khh_map_at_end) {
		ret = khh_map_alloc();
		if (ret)
			goto free_records;
	}
	khh.margin_pages = khh_margin();

	khh_run();
	khh_stats_compute(khh.lat, khh.count, &khh.st, khh_relax);

	ret = khh_report_init();
	if (ret) {
		khh_release_all();
		khh_map_free();
		goto free_records;
	}
	khh_report_log();
	return 0;

free_records:
	kvfree(khh.rec);
	kvfree(khh.lat);
	return ret;
}

static void __exit khh_exit(void)
{
	u64 held = khh.held_pages;

	khh_report_exit();
	khh_release_all();
	khh_map_free();
	kvfree(khh.rec);
	kvfree(khh.lat);
	pr_info("freed %llu pages\n", held);
}

module_init(khh_init);
module_exit(khh_exit);

MODULE_DESCRIPTION("khugehog: times high-order page allocations until they fail, for pcompact");
MODULE_LICENSE("GPL");
