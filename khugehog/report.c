// SPDX-License-Identifier: GPL-2.0
/*
 * report.c - khugehog's results: /proc/khugehog/{summary,samples} and the log
 *
 * summary: one "key value" per line; times in us with one decimal, from
 * integer ns.  samples: CSV, one line per allocation attempt.  Both read
 * the state that module init left behind, which no longer changes, so no
 * locking is needed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/nodemask.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>

#include "khugehog.h"
#include "stats.h"

static struct proc_dir_entry *khh_proc_dir;

/* Base pages obtained over the run (also those freed at once). */
static u64 khh_allocated_pages(void)
{
	return khh.count << khh.order;
}

/* @ns as "<us>.<tenth>" into @buf. */
static const char *khh_us(char *buf, size_t size, u64 ns)
{
	u32 tenth;
	u64 us = div_u64_rem(khh_ns_to_tenths(ns), 10, &tenth);

	snprintf(buf, size, "%llu.%u", us, tenth);
	return buf;
}

static void khh_put_us(struct seq_file *m, const char *key, u64 ns)
{
	char buf[24];

	seq_printf(m, "%s %s\n", key, khh_us(buf, sizeof(buf), ns));
}

/*
 * The free pageblocks at the start: totals, then per node with memory
 * (node ids are not always dense).
 */
static void khh_put_blocks(struct seq_file *m)
{
	unsigned long whole = 0, held = 0, held_pages = 0;
	int nid;

	for_each_node_state(nid, N_MEMORY) {
		whole += khh.start_blocks[nid].whole;
		held += khh.start_blocks[nid].held;
		held_pages += khh.start_blocks[nid].held_pages;
	}
	seq_printf(m, "whole_blocks_start %lu\n", whole);
	seq_printf(m, "held_blocks_start %lu\n", held);
	seq_printf(m, "held_pages_start %lu\n", held_pages);
	seq_printf(m, "count_blocks_ns %llu\n", khh.count_ns);
	for_each_node_state(nid, N_MEMORY) {
		seq_printf(m, "whole_blocks_start_node%d %lu\n", nid,
			   khh.start_blocks[nid].whole);
		seq_printf(m, "held_blocks_start_node%d %lu\n", nid,
			   khh.start_blocks[nid].held);
	}
}

static int khh_summary_show(struct seq_file *m, void *v)
{
	u64 pages = khh_allocated_pages(), gib, share = 0;
	u32 gib_frac, share_frac;
	char key[16];
	int i;

	/* GiB with two decimals (rounded down), share in % with one */
	gib = div_u64_rem(pages * 100 >> (30 - PAGE_SHIFT), 100, &gib_frac);
	if (khh.free_pages_start)
		share = div64_u64(pages * 1000 + khh.free_pages_start / 2,
				  khh.free_pages_start);
	share = div_u64_rem(share, 10, &share_frac);

	seq_printf(m, "mode %s\n", khh.pin ? "pin" : "alloc");
	seq_printf(m, "order %u\n", khh.order);
	seq_printf(m, "gfp %s\n", khh.gfp_name);
	seq_printf(m, "node %d\n", khh.node);
	seq_printf(m, "free_immediately %d\n", khh.free_immediately);
	seq_printf(m, "count %llu\n", khh.count);
	seq_printf(m, "failures %llu\n", khh.failures);
	seq_printf(m, "attempts %zu\n", khh.nr_rec);
	seq_printf(m, "stop_reason %s\n", khh.stop_reason);
	seq_printf(m, "elapsed_ns %llu\n", khh.elapsed_ns);
	seq_printf(m, "free_pages_start %lu\n", khh.free_pages_start);
	seq_printf(m, "free_pages_end %lu\n", khh.free_pages_end);
	seq_printf(m, "allocated_pages %llu\n", pages);
	seq_printf(m, "allocated_gib %llu.%02u\n", gib, gib_frac);
	seq_printf(m, "free_share_pct %llu.%u\n", share, share_frac);
	seq_printf(m, "held_pages %llu\n", khh.held_pages);
	seq_printf(m, "pinned_blocks %llu\n", khh.pinned_blocks);
	seq_printf(m, "margin_pages %lu\n", khh.margin_pages);
	khh_put_blocks(m);
	khh_put_us(m, "min_us", khh.st.min);
	for (i = 0; i < KHH_NR_PCT; i++) {
		snprintf(key, sizeof(key), "p%s_us", khh_pcts[i].name);
		khh_put_us(m, key, khh.st.pct[i]);
	}
	khh_put_us(m, "max_us", khh.st.max);
	khh_put_us(m, "mean_us", khh.st.mean);
	khh_put_us(m, "stddev_us", khh.st.stddev);
	khh_map_summary(m);
	return 0;
}

/**
 * khh_seq_row() - a CSV file's item at @pos: the header, then one row each
 * @pos:	the seq_file position
 * @rows:	the array of rows
 * @nr:		how many rows it has
 * @size:	the size of one row
 *
 * Return: SEQ_START_TOKEN at 0 (the header), the row @pos - 1, or NULL
 * past the last.
 */
void *khh_seq_row(loff_t pos, void *rows, size_t nr, size_t size)
{
	if (pos == 0)
		return SEQ_START_TOKEN;
	if (pos > nr)
		return NULL;
	return rows + (pos - 1) * size;
}

/**
 * khh_seq_stop() - seq_operations.stop of the CSV files: nothing to release
 * @m:	the seq_file
 * @v:	the last item
 */
void khh_seq_stop(struct seq_file *m, void *v)
{
}

static void *khh_samples_start(struct seq_file *m, loff_t *pos)
{
	return khh_seq_row(*pos, khh.rec, khh.nr_rec, sizeof(*khh.rec));
}

static void *khh_samples_next(struct seq_file *m, void *v, loff_t *pos)
{
	return khh_seq_row(++*pos, khh.rec, khh.nr_rec, sizeof(*khh.rec));
}

static int khh_samples_show(struct seq_file *m, void *v)
{
	const struct khh_record *r = v;
	const char *zone = "-";

	if (v == SEQ_START_TOKEN) {
		seq_puts(m, "index,t_ns,latency_ns,node,zone,success\n");
		return 0;
	}
	if (r->success)
		zone = NODE_DATA(r->node)->node_zones[r->zone].name;
	seq_printf(m, "%td,%llu,%llu,%d,%s,%u\n", r - khh.rec, r->t_ns,
		   r->latency_ns, r->node, zone, r->success);
	return 0;
}

static const struct seq_operations khh_samples_ops = {
	.start = khh_samples_start,
	.next = khh_samples_next,
	.stop = khh_seq_stop,
	.show = khh_samples_show,
};

/**
 * khh_report_init() - create /proc/khugehog/summary and samples, and
 * with map_at_end block_map and zone_compaction
 *
 * Call once the run is over: the files read &khh without locking.
 *
 * Return: 0, or -ENOMEM if procfs entries could not be created.
 */
int khh_report_init(void)
{
	khh_proc_dir = proc_mkdir(KBUILD_MODNAME, NULL);
	if (!khh_proc_dir)
		return -ENOMEM;
	if (!proc_create_single("summary", 0444, khh_proc_dir,
				khh_summary_show) ||
	    !proc_create_seq("samples", 0400, khh_proc_dir, &khh_samples_ops) ||
	    khh_map_proc_init(khh_proc_dir)) {
		proc_remove(khh_proc_dir);
		khh_proc_dir = NULL;
		return -ENOMEM;
	}
	return 0;
}

/**
 * khh_report_exit() - remove /proc/khugehog and everything in it
 *
 * Waits for readers to finish, so &khh may be freed afterwards.
 */
void khh_report_exit(void)
{
	proc_remove(khh_proc_dir);
	khh_proc_dir = NULL;
}

/**
 * khh_report_log() - print the summary of the run in the kernel log
 */
void khh_report_log(void)
{
	u64 pages = khh_allocated_pages();
	char line[400], buf[24];
	size_t len = 0;
	int i;

	pr_info("order %u gfp %s node %d%s%s: count %llu failures %llu attempts %zu stop %s after %llu ms\n",
		khh.order, khh.gfp_name, khh.node, khh.pin ? " pin" : "",
		khh.free_immediately ? " free_immediately" : "", khh.count,
		khh.failures, khh.nr_rec, khh.stop_reason,
		div_u64(khh.elapsed_ns, NSEC_PER_MSEC));
	pr_info("allocated %llu MB of %lu MB free %s at start; holding %llu pages%s\n",
		pages >> (20 - PAGE_SHIFT),
		khh.free_pages_start >> (20 - PAGE_SHIFT),
		khh.node == NUMA_NO_NODE ? "in all" : "on the node", khh.held_pages,
		khh.pin ? " (the last quarter of each pinned block)" : "");
	if (!khh.count)
		return;
	len += scnprintf(line + len, sizeof(line) - len, "latency us: min %s",
			 khh_us(buf, sizeof(buf), khh.st.min));
	for (i = 0; i < KHH_NR_PCT; i++)
		len += scnprintf(line + len, sizeof(line) - len, " p%s %s",
				 khh_pcts[i].name,
				 khh_us(buf, sizeof(buf), khh.st.pct[i]));
	len += scnprintf(line + len, sizeof(line) - len, " max %s",
			 khh_us(buf, sizeof(buf), khh.st.max));
	len += scnprintf(line + len, sizeof(line) - len, " mean %s",
			 khh_us(buf, sizeof(buf), khh.st.mean));
	scnprintf(line + len, sizeof(line) - len, " stddev %s",
		  khh_us(buf, sizeof(buf), khh.st.stddev));
	pr_info("%s\n", line);
}
