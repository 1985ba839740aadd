/* SPDX-License-Identifier: GPL-2.0 */
/*
 * khugehog.h - state shared by khugehog's allocation loop and its reports
 */
#ifndef KHUGEHOG_KHUGEHOG_H
#define KHUGEHOG_KHUGEHOG_H

#include <linux/numa.h>
#include <linux/types.h>

#include "stats.h"

struct page;
struct proc_dir_entry;
struct seq_file;
struct zone;

/**
 * struct khh_node_blocks - a node's free pageblocks, as khh_count_blocks() saw them
 * @whole: blocks within one free buddy of pageblock order or more
 * @held: blocks whose pages are all free, some of them on per-CPU lists
 * @held_pages: the free pages of the @held blocks that were off the buddy lists
 */
struct khh_node_blocks {
	unsigned long whole;
	unsigned long held;
	unsigned long held_pages;
};

/* khh_record.zone of a failed allocation */
#define KHH_NO_ZONE	0xff

/**
 * struct khh_record - one allocation attempt
 * @t_ns: start of the attempt, in ns since the start of the run
 * @latency_ns: how long the allocator took, in ns
 * @page: what is held until rmmod: the allocated page, or in pin mode the
 *	first of the pinned pages; NULL on failure or once freed
 * @node: node of the page; on failure the requested node (-1: any)
 * @zone: zone index of the page in its node, KHH_NO_ZONE on failure
 * @success: 1 if the allocation succeeded
 */
struct khh_record {
	u64 t_ns;
	u64 latency_ns;
	struct page *page;
	s16 node;
	u8 zone;
	u8 success;
};

/**
 * struct khh_state - one run of khugehog; immutable once module init ends
 * @order: allocation order
 * @gfp_name: name of the gfp mode ("kernel", "thp", "light")
 * @node: node allocated from, -1 for any
 * @pin: pin mode: keep only the last quarter of each block
 * @free_immediately: each page was freed right after it was timed
 * @rec: the attempts, in order
 * @nr_rec: number of attempts made
 * @cap_rec: number of attempts @rec has room for
 * @lat: scratch array of @cap_rec latencies for the statistics
 * @count: successful allocations
 * @failures: failed allocations
 * @pinned_blocks: blocks whose last quarter is pinned (pin mode)
 * @held_pages: base pages held until rmmod
 * @free_pages_start: NR_FREE_PAGES over all zones (@node's with node=N)
 *	when the run started
 * @free_pages_end: NR_FREE_PAGES over the same zones when the run ended
 * @start_blocks: per node id, the free pageblocks when the run started
 * @count_ns: how long counting @start_blocks took, before the run's clock
 * @margin_pages: the run stops when fewer pages than this (plus one block)
 *	are free in those zones; 0 = no margin
 * @elapsed_ns: duration of the run
 * @stop_reason: why the run ended: "failures", "max", "records_full",
 *	"margin" or "signal"
 * @st: statistics of the latencies of the successful allocations
 */
struct khh_state {
	unsigned int order;
	const char *gfp_name;
	int node;
	bool pin;
	bool free_immediately;
	struct khh_record *rec;
	size_t nr_rec;
	size_t cap_rec;
	u64 *lat;
	u64 count;
	u64 failures;
	u64 pinned_blocks;
	u64 held_pages;
	unsigned long free_pages_start;
	unsigned long free_pages_end;
	unsigned long margin_pages;
	struct khh_node_blocks start_blocks[MAX_NUMNODES];
	u64 count_ns;
	u64 elapsed_ns;
	const char *stop_reason;
	struct khh_stats st;
};

extern struct khh_state khh;

u64 khh_count_blocks(struct khh_node_blocks *out);
unsigned long khh_buddy_order(struct page *page, unsigned long pfn);
bool khh_free_off_lists(struct page *page);
struct zone *khh_next_populated_zone(struct zone *zone);
void *khh_seq_row(loff_t pos, void *rows, size_t nr, size_t size);
void khh_seq_stop(struct seq_file *m, void *v);
int khh_report_init(void);
void khh_report_exit(void);
void khh_report_log(void);
int khh_map_alloc(void);
void khh_map_free(void);
void khh_map_take(void);
void khh_map_summary(struct seq_file *m);
int khh_map_proc_init(struct proc_dir_entry *dir);

#endif /* KHUGEHOG_KHUGEHOG_H */
