// SPDX-License-Identifier: GPL-2.0
/*
 * blocks.c - khugehog's count of the free pageblocks a run starts with
 *
 * The buddy lists (/proc/buddyinfo) show the pageblocks that are free as
 * one buddy.  A pageblock can also be free with some of its pages waiting
 * on per-CPU lists: compaction frees each migrated page's source to the
 * compacting CPU's list, and 6.1 and later keep whole order-9 pages there too.
 * Such a block is no stock for an allocation on another CPU until the
 * lists are drained, and then it is one at once; the first direct reclaim
 * of a stream drains every list.  Counting both kinds when the run starts
 * tells a benchmark what the stream met beyond the buddy lists.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/nodemask.h>
#include <linux/page-flags.h>
#include <linux/sched.h>

#include "compat.h"
#include "khugehog.h"

/* What khh_block_state() found in a pageblock. */
enum khh_block_state {
	KHH_BLOCK_USED,		/* a page in use, or not all in the zone */
	KHH_BLOCK_WHOLE,	/* within one free buddy of pageblock order or more */
	KHH_BLOCK_HELD,		/* every page free, some on per-CPU lists */
};

/**
 * khh_buddy_order() - the order of the free buddy at @page
 * @page:	a PageBuddy page
 * @pfn:	its PFN
 *
 * Return: the order, or 0 when the racy read of it is out of range or
 * misaligned: the buddy was just split or merged.
 */
unsigned long khh_buddy_order(struct page *page, unsigned long pfn)
{
	/* Racy like the kernel's own unlocked buddy_order() reads. */
	unsigned long order = data_race(page_private(page));

	if (order >= KHH_NR_ORDERS || !IS_ALIGNED(pfn, 1UL << order))
		return 0;
	return order;
}

/**
 * khh_free_off_lists() - whether a page that is not PageBuddy is free
 * @page:	an online page, not PageBuddy
 *
 * A free page off the buddy lists (on a per-CPU list, or isolated by a
 * compaction) is at refcount 0 and neither compound, slab nor typed (7.3's
 * slab pages and a pooled hugetlb page are at refcount 0 too).  The tail
 * pages of a high-order page allocated without __GFP_COMP pass as well,
 * and 7.x's alloc_contig_frozen_range() leaves the pages it took at
 * refcount 0: an upper bound, unlocked.
 *
 * Return: true when @page looks free.
 */
bool khh_free_off_lists(struct page *page)
{
	return !PageCompound(page) && !PageSlab(page) && !page_has_type(page) &&
	       !page_count(page);
}

/**
 * khh_next_populated_zone() - the zone with pages after @zone
 * @zone:	a zone, or NULL for the first
 *
 * In node and zone order, as for_each_populated_zone(), whose
 * next_zone() is not exported.
 *
 * Return: the zone, or NULL after the last.
 */
struct zone *khh_next_populated_zone(struct zone *zone)
{
	int nid = zone ? zone_to_nid(zone) : first_node(node_states[N_MEMORY]);
	int zid = zone ? zone_idx(zone) + 1 : 0;

	for (; nid < MAX_NUMNODES; nid = next_node(nid, node_states[N_MEMORY]), zid = 0) {
		for (; zid < MAX_NR_ZONES; zid++) {
			zone = &NODE_DATA(nid)->node_zones[zid];
			if (populated_zone(zone))
				return zone;
		}
	}
	return NULL;
}

/*
 * Classify the pageblock at @start of @zone, without locks: a count for a
 * report, not a decision.  *@free_end carries the end of a buddy begun in
 * an earlier block: only the first page of a free order-10 buddy is
 * PageBuddy.  *@loose gets the free pages found off the buddy lists of a
 * held block (khh_free_off_lists()): a range pcompact's engine holds for
 * a moment at refcount 0 (7.x) reads as held.
 */
static int khh_block_state(struct zone *zone, unsigned long start,
			   unsigned long *free_end, unsigned long *loose)
{
	unsigned long end = start + pageblock_nr_pages;
	struct page *first = pfn_to_online_page(start);
	struct page *last = pfn_to_online_page(end - 1);
	unsigned long pfn, order, off_lists = 0;

	if (!first || !last || page_zone(first) != zone || page_zone(last) != zone)
		return KHH_BLOCK_USED;
	if (*free_end >= end)
		return KHH_BLOCK_WHOLE;
	for (pfn = start; pfn < end;) {
		struct page *page = pfn_to_page(pfn);

		if (PageBuddy(page)) {
			order = khh_buddy_order(page, pfn);
			if (pfn == start && order >= pageblock_order) {
				*free_end = pfn + (1UL << order);
				return KHH_BLOCK_WHOLE;
			}
			pfn += 1UL << order;
			continue;
		}
		if (!khh_free_off_lists(page))
			return KHH_BLOCK_USED;
		off_lists++;
		pfn++;
	}
	/* Smaller buddies only: they were merging as we read. */
	if (!off_lists)
		return KHH_BLOCK_USED;
	*loose = off_lists;
	return KHH_BLOCK_HELD;
}

static void khh_count_zone(struct zone *zone, struct khh_node_blocks *nb)
{
	unsigned long pfn = ALIGN(zone->zone_start_pfn, pageblock_nr_pages);
	unsigned long end = zone_end_pfn(zone), free_end = pfn, loose;

	for (; pfn + pageblock_nr_pages <= end; pfn += pageblock_nr_pages) {
		switch (khh_block_state(zone, pfn, &free_end, &loose)) {
		case KHH_BLOCK_WHOLE:
			nb->whole++;
			break;
		case KHH_BLOCK_HELD:
			nb->held++;
			nb->held_pages += loose;
			break;
		}
		cond_resched();
	}
}

/**
 * khh_count_blocks() - count the free pageblocks of every node with memory
 * @out:	per node, indexed by node id; zeroed here first
 *
 * Return: how long the count took, in ns.
 */
u64 khh_count_blocks(struct khh_node_blocks *out)
{
	u64 t0 = ktime_get_ns();
	struct zone *zone;

	memset(out, 0, sizeof(*out) * MAX_NUMNODES);
	for (zone = khh_next_populated_zone(NULL); zone;
	     zone = khh_next_populated_zone(zone))
		khh_count_zone(zone, &out[zone_to_nid(zone)]);
	return ktime_get_ns() - t0;
}
