// SPDX-License-Identifier: GPL-2.0
/*
 * map.c - khugehog's pageblock map at the run's end (map_at_end=1)
 *
 * A run that stops on a failed allocation stops right after the kernel's
 * compaction of the zone gave up.  What that compaction saw is gone within
 * milliseconds: a compaction in flight gives back the free pages it had
 * isolated, the mechanism under test goes on.  So the map is read here, in
 * the allocating task, before insmod returns and before anything is freed:
 * per pageblock its migratetype and compaction skip mark (the free scanner
 * takes only MIGRATE_MOVABLE blocks as targets; the skip-mark reset of a
 * deferral-ladder restart samples every 8th page of a block for an LRU page
 * or a free buddy head), its page counts, and per zone where the compaction
 * scanners stood.  /proc/khugehog/block_map and zone_compaction show them.
 * Unlocked reads throughout: a report, not a decision.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/nodemask.h>
#include <linux/page-flags.h>
#include <linux/page-isolation.h>
#include <linux/proc_fs.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "compat.h"
#include "khugehog.h"
#include "stats.h"

/* The stride of the skip-mark reset's samples (__reset_isolation_pfn()). */
#define KHH_RESET_STRIDE	BIT(PAGE_ALLOC_COSTLY_ORDER)

/**
 * struct khh_block_row - one pageblock of the map
 * @pfn: the pageblock's first PFN (below its zone's start in a zone's
 *	first block when the zone is not pageblock-aligned)
 * @nid: its node
 * @zone: its zone's index in the node
 * @migratetype: its pageblock migratetype (MIGRATE_ISOLATE while isolated)
 * @skip: compaction's skip mark is set
 * @huge: its first page is in a compound page of pageblock order or more:
 *	the skip-mark reset passes it over (pageblock_skip_persistent())
 * @sampled_lru: pages on an LRU among those the reset samples
 * @sampled_buddy: free buddy heads among those the reset samples
 * @lru_pages: pages on an LRU in the block
 * @buddy_pages: pages of the block within free buddies
 * @loose_pages: pages at refcount 0, neither buddy, compound, slab nor
 *	typed, nor in a page the run holds: free pages off the buddy lists
 *	(on a per-CPU list, or isolated by a compaction in flight), and the
 *	tail pages of other callers' high-order pages allocated without
 *	__GFP_COMP, which are at refcount 0 too: an upper bound
 * @khugehog_pages: pages of the block in the pages the run holds
 */
struct khh_block_row {
	unsigned long pfn;
	s16 nid;
	u8 zone;
	u8 migratetype;
	u8 skip;
	u8 huge;
	u8 sampled_lru;
	u8 sampled_buddy;
	u16 lru_pages;
	u16 buddy_pages;
	u16 loose_pages;
	u16 khugehog_pages;
};

/* A zone's row of zone_compaction. */
struct khh_zone_row {
	s16 nid;
	u8 zone;
	unsigned long start;
	unsigned long end;
	struct khh_zone_compaction c;
};

static struct {
	struct khh_block_row *blocks;
	size_t nr_blocks;
	size_t cap_blocks;
	struct khh_zone_row *zones;
	size_t nr_zones;
	size_t cap_zones;
	u64 *held;
	size_t nr_held;
	u64 dropped;
	u64 ns;
	bool taken;
} khh_map;

static const char *khh_migratetype_name(int mt)
{
	if (mt == MIGRATE_UNMOVABLE)
		return "Unmovable";
	if (mt == MIGRATE_MOVABLE)
		return "Movable";
	if (mt == MIGRATE_RECLAIMABLE)
		return "Reclaimable";
	if (mt == MIGRATE_HIGHATOMIC)
		return "HighAtomic";
	if (is_migrate_cma(mt))
		return "CMA";
	if (is_migrate_isolate(mt))
		return "Isolate";
	return "unknown";
}

/**
 * khh_map_alloc() - size the map for every zone with pages, before the run
 *
 * The run ends when memory runs out, so the map is allocated first, after
 * the records (khh.cap_rec sizes the list of held pages).
 *
 * Return: 0, or -ENOMEM.
 */
int khh_map_alloc(void)
{
	size_t blocks = 0, zones = 0;
	/* Only whole pages held by reference need listing (khh_map_list_held()). */
	size_t held = khh.pin || khh.free_immediately ? 0 : khh.cap_rec;
	struct zone *zone;

	for (zone = khh_next_populated_zone(NULL); zone;
	     zone = khh_next_populated_zone(zone)) {
		blocks += DIV_ROUND_UP(zone->spanned_pages, pageblock_nr_pages) + 1;
		zones++;
	}
	khh_map.blocks = kvcalloc(blocks, sizeof(*khh_map.blocks), GFP_KERNEL);
	khh_map.zones = kvcalloc(zones, sizeof(*khh_map.zones), GFP_KERNEL);
	khh_map.held = kvcalloc(held ?: 1, sizeof(*khh_map.held), GFP_KERNEL);
	if (!khh_map.blocks || !khh_map.zones || !khh_map.held) {
		khh_map_free();
		return -ENOMEM;
	}
	khh_map.cap_blocks = blocks;
	khh_map.cap_zones = zones;
	return 0;
}

/**
 * khh_map_free() - free the map; safe to call when none was allocated
 */
void khh_map_free(void)
{
	kvfree(khh_map.blocks);
	kvfree(khh_map.zones);
	kvfree(khh_map.held);
	khh_map.blocks = NULL;
	khh_map.zones = NULL;
	khh_map.held = NULL;
	khh_map.cap_blocks = 0;
	khh_map.cap_zones = 0;
}

static void khh_map_relax(void)
{
	cond_resched();
}

/*
 * The first PFNs of the pages the run holds, sorted.  Pin mode holds
 * split pages, each with its own reference: none to list.
 */
static void khh_map_list_held(void)
{
	size_t i;

	khh_map.nr_held = 0;
	if (khh.pin)
		return;
	for (i = 0; i < khh.nr_rec; i++)
		if (khh.rec[i].page)
			khh_map.held[khh_map.nr_held++] = page_to_pfn(khh.rec[i].page);
	khh_sort_u64(khh_map.held, khh_map.nr_held, khh_map_relax);
}

/* The index of the first held page that ends after @pfn. */
static size_t khh_first_hold_after(unsigned long pfn)
{
	size_t lo = 0, hi = khh_map.nr_held, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (khh_map.held[mid] + (1UL << khh.order) <= pfn)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Whether @pfn is in a page the run holds; *@cursor moves up with @pfn,
 * which must not go down between calls.
 */
static bool khh_in_hold(unsigned long pfn, size_t *cursor)
{
	while (*cursor < khh_map.nr_held &&
	       khh_map.held[*cursor] + (1UL << khh.order) <= pfn)
		(*cursor)++;
	return *cursor < khh_map.nr_held && khh_map.held[*cursor] <= pfn;
}

static bool khh_huge_page(struct page *page)
{
	return PageCompound(page) &&
	       compound_order(compound_head(page)) >= pageblock_order;
}

/*
 * Count the pages of @row's block within [@start, @end) of @zone.
 * *@free_end carries the end of a free buddy begun in an earlier block:
 * only the first page of a free order-10 buddy is PageBuddy.  *@hold is
 * khh_in_hold()'s cursor.
 */
static void khh_map_pages(struct zone *zone, struct khh_block_row *row,
			  unsigned long start, unsigned long end,
			  unsigned long *free_end, size_t *hold)
{
	unsigned long pfn;

	for (pfn = start; pfn < end; pfn++) {
		struct page *page = pfn_to_online_page(pfn);
		bool sampled = !((pfn - start) % KHH_RESET_STRIDE);

		if (!page || page_zone(page) != zone)
			continue;
		if (khh_in_hold(pfn, hold)) {
			row->khugehog_pages++;
			continue;
		}
		if (pfn < *free_end) {
			row->buddy_pages++;
			continue;
		}
		if (PageLRU(page)) {
			row->lru_pages++;
			row->sampled_lru += sampled;
		} else if (PageBuddy(page)) {
			row->sampled_buddy += sampled;
			*free_end = pfn + (1UL << khh_buddy_order(page, pfn));
			row->buddy_pages++;
		} else if (khh_free_off_lists(page)) {
			row->loose_pages++;
		}
	}
}

static void khh_map_zone(struct zone *zone)
{
	unsigned long zone_start = zone->zone_start_pfn, end = zone_end_pfn(zone);
	unsigned long pfn, block, free_end = 0;
	size_t hold = khh_first_hold_after(zone_start);
	struct khh_zone_row *z;

	if (khh_map.nr_zones < khh_map.cap_zones) {
		z = &khh_map.zones[khh_map.nr_zones++];
		z->nid = zone_to_nid(zone);
		z->zone = zone_idx(zone);
		z->start = zone_start;
		z->end = end;
		khh_read_zone_compaction(zone, &z->c);
	}
	/* The blocks /proc/pagetypeinfo counts, the same way. */
	for (pfn = zone_start; pfn < end; pfn += pageblock_nr_pages) {
		struct page *page = pfn_to_online_page(pfn);
		struct khh_block_row *row;
		unsigned long bits;

		if (!page || page_zone(page) != zone)
			continue;
		if (khh_map.nr_blocks >= khh_map.cap_blocks) {
			khh_map.dropped++;
			continue;
		}
		block = pageblock_start_pfn(pfn);
		row = &khh_map.blocks[khh_map.nr_blocks++];
		bits = khh_pageblock_bits(pfn);
		row->pfn = block;
		row->nid = zone_to_nid(zone);
		row->zone = zone_idx(zone);
		row->migratetype = khh_pageblock_migratetype(bits);
		row->skip = khh_pageblock_skip(bits);
		row->huge = khh_huge_page(page);
		khh_map_pages(zone, row, max(block, zone_start),
			      min(block + pageblock_nr_pages, end), &free_end,
			      &hold);
		cond_resched();
	}
}

/**
 * khh_map_take() - read the map of every zone with pages, once
 *
 * Call right after the run's last allocation, before anything is freed.
 */
void khh_map_take(void)
{
	u64 t0 = ktime_get_ns();
	struct zone *zone;

	if (!khh_map.blocks || khh_map.taken)
		return;
	khh_map_list_held();
	for (zone = khh_next_populated_zone(NULL); zone;
	     zone = khh_next_populated_zone(zone))
		khh_map_zone(zone);
	khh_map.taken = true;
	khh_map.ns = ktime_get_ns() - t0;
	if (khh_map.dropped)
		pr_warn("block map: %llu pageblocks beyond the %zu sized for (memory added during the run?)\n",
			khh_map.dropped, khh_map.cap_blocks);
}

/**
 * khh_map_summary() - the map's lines of /proc/khugehog/summary
 * @m:	the summary's seq_file
 */
void khh_map_summary(struct seq_file *m)
{
	if (!khh_map.taken)
		return;
	seq_printf(m, "map_blocks %zu\n", khh_map.nr_blocks);
	seq_printf(m, "map_dropped %llu\n", khh_map.dropped);
	seq_printf(m, "map_ns %llu\n", khh_map.ns);
}

static int khh_zone_compaction_show(struct seq_file *m, void *v)
{
	size_t i;

	seq_puts(m, "node,zone,start_pfn,end_pfn,cached_migrate_async_pfn,cached_migrate_sync_pfn,cached_free_pfn,init_migrate_pfn,init_free_pfn,considered,defer_shift,order_failed,blockskip_flush\n");
	for (i = 0; i < khh_map.nr_zones; i++) {
		const struct khh_zone_row *z = &khh_map.zones[i];

		seq_printf(m, "%d,%s,%lu,%lu,%lu,%lu,%lu,%lu,%lu,%u,%u,%d,%d\n",
			   z->nid, NODE_DATA(z->nid)->node_zones[z->zone].name,
			   z->start, z->end, z->c.cached_migrate[0],
			   z->c.cached_migrate[1], z->c.cached_free,
			   z->c.init_migrate, z->c.init_free, z->c.considered,
			   z->c.defer_shift, z->c.order_failed,
			   z->c.blockskip_flush);
	}
	return 0;
}

static void *khh_block_map_start(struct seq_file *m, loff_t *pos)
{
	return khh_seq_row(*pos, khh_map.blocks, khh_map.nr_blocks,
			   sizeof(*khh_map.blocks));
}

static void *khh_block_map_next(struct seq_file *m, void *v, loff_t *pos)
{
	return khh_seq_row(++*pos, khh_map.blocks, khh_map.nr_blocks,
			   sizeof(*khh_map.blocks));
}

static int khh_block_map_show(struct seq_file *m, void *v)
{
	const struct khh_block_row *r = v;

	if (v == SEQ_START_TOKEN) {
		seq_puts(m, "node,zone,block_pfn,migratetype,skip,huge,sampled_lru,sampled_buddy,lru_pages,buddy_pages,loose_pages,khugehog_pages\n");
		return 0;
	}
	seq_printf(m, "%d,%s,%lu,%s,%u,%u,%u,%u,%u,%u,%u,%u\n", r->nid,
		   NODE_DATA(r->nid)->node_zones[r->zone].name, r->pfn,
		   khh_migratetype_name(r->migratetype), r->skip, r->huge,
		   r->sampled_lru, r->sampled_buddy, r->lru_pages,
		   r->buddy_pages, r->loose_pages, r->khugehog_pages);
	return 0;
}

static const struct seq_operations khh_block_map_ops = {
	.start = khh_block_map_start,
	.next = khh_block_map_next,
	.stop = khh_seq_stop,
	.show = khh_block_map_show,
};

/**
 * khh_map_proc_init() - create block_map and zone_compaction in @dir
 * @dir:	/proc/khugehog
 *
 * Nothing is created when no map was taken.
 *
 * Return: 0, or -ENOMEM.
 */
int khh_map_proc_init(struct proc_dir_entry *dir)
{
	if (!khh_map.taken)
		return 0;
	if (!proc_create_seq("block_map", 0400, dir, &khh_block_map_ops) ||
	    !proc_create_single("zone_compaction", 0400, dir,
				khh_zone_compaction_show))
		return -ENOMEM;
	return 0;
}
