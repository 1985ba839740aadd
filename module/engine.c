// SPDX-License-Identifier: GPL-2.0
/*
 * pcompact engine: empties the cheapest pageblocks of a node with exported
 * kernel functions only, so it is safe on kernels built with IBT.
 *
 * The default engine ("contig") moves the in-use pages out of a chosen range
 * with alloc_contig_range() and gives the range back to the buddy allocator
 * as free high-order pages.  It works on runs of whole 4 MB pairs (two
 * pageblocks, order 10) where it can: a free of that order never sits on a
 * per-CPU list, so it reaches the free lists, and the score, at once.  A 2 MB
 * block freed at order 9 may park on the freeing CPU's per-CPU list until
 * the next drain (each alloc_contig_range() call drains them).
 *
 * Emptying a run of adjacent pairs in one call matters twice.  The whole run
 * is isolated while its pages move, so the migration targets cannot land in
 * it and no page moves twice within the run (one block at a time, a page
 * moved out of block A often lands in a hole of block B, the next to go, and
 * moves again).  And the fixed cost of a call (draining every CPU's lists,
 * an expedited RCU grace period) is paid once per run instead of per block.
 * A run is cut to what the target and the free-memory headroom allow.
 *
 * It picks blocks by cost: the number of in-use pages that must move, read
 * from struct page without locks.  A block holding anything it cannot move
 * is never tried, which is what keeps the engine cheap on unmovable
 * fragmentation: it finds nothing to do and the core defers.
 */
#define pr_fmt(fmt) "pcompact: " fmt

#include <linux/freezer.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <linux/kthread.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/page_ref.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/vmstat.h>

#include "compat.h"
#include "pcompact.h"

const char * const pcompact_engine_names[PCOMPACT_NR_ENGINES] = {
	[PCOMPACT_ENGINE_CONTIG] = "contig",
	[PCOMPACT_ENGINE_NODE_SYSFS] = "node-sysfs",
	[PCOMPACT_ENGINE_KALLSYMS] = "kallsyms",
};

/* What a scan of one pageblock found. */
enum pcompact_block_kind {
	PCOMPACT_BLOCK_FREE,		/* already one free block: nothing to gain */
	PCOMPACT_BLOCK_MOVABLE,		/* only free and movable pages */
	PCOMPACT_BLOCK_UNMOVABLE,	/* holds a page the engine must not try */
};

/*
 * A unit of work: a run of @nr_blocks pageblocks emptied in one call.  Runs
 * of pairs start on a pair boundary and are freed as order-10 pages; a
 * single block (whose pair partner cannot be moved) is freed at order 9.
 */
struct pcompact_unit {
	unsigned long pfn;
	unsigned int nr_blocks;
	unsigned int cost;
};

/*
 * The longest run emptied in one call: 64 pairs, 256 MB on x86.  Longer runs
 * mean fewer pages moved twice and fewer all-CPU drains; the target and the
 * free-memory room cut a run down anyway.
 */
#define PCOMPACT_RUN_MAX_PAIRS		64

/*
 * Headroom the engine keeps above the zone's high watermark, in pages, on top
 * of the unit it empties: the old compact_gap(9), so compaction never eats
 * into the reserves reclaim works to keep.
 */
#define PCOMPACT_HEADROOM_PAGES		1024UL

/* The largest unit: two pageblocks, 4 MB on x86, below the buddy maximum. */
#define PCOMPACT_UNIT_MAX_ORDER		(pageblock_order + 1)

/* Pages one pair of pageblocks spans. */
#define PCOMPACT_PAIR_PAGES		(pageblock_nr_pages << 1)

static unsigned long pcompact_migrated_events(void)
{
	unsigned long sum = 0;
	int cpu;

	for_each_online_cpu(cpu)
		sum += per_cpu(vm_event_states, cpu).event[PGMIGRATE_SUCCESS];
	return sum;
}

/*
 * Classify the pageblock at @pfn and count the pages that would have to move.
 * Lockless and racy by design: a wrong guess costs one failed
 * alloc_contig_range() call, which leaves the block as it was.  Only LRU
 * pages count as movable; driver-movable pages (balloon, zsmalloc) are rare
 * enough that treating them as unmovable costs little.
 */
static int pcompact_scan_block(struct zone *zone, unsigned long pfn,
			       unsigned int *in_use)
{
	unsigned long end = pfn + pageblock_nr_pages;
	unsigned int used = 0;

	*in_use = 0;
	while (pfn < end) {
		struct page *page = pfn_to_online_page(pfn);
		unsigned long order;

		if (!page || page_zone(page) != zone || PageReserved(page))
			return PCOMPACT_BLOCK_UNMOVABLE;
		if (PageBuddy(page)) {
			/* Racy like the kernel's own unlocked buddy_order() reads. */
			order = data_race(page_private(page));
			if (order >= PCOMPACT_NR_ORDERS)
				order = 0;
			if (order >= pageblock_order && !used &&
			    pfn == end - pageblock_nr_pages)
				return PCOMPACT_BLOCK_FREE;
			pfn += 1UL << order;
			continue;
		}
		if (PageCompound(page)) {
			struct page *head = compound_head(page);

			order = compound_order(head);
			/* Already a huge page in use, or hugetlb: leave it. */
			if (order >= pageblock_order || PageHuge(head) ||
			    !PageLRU(head))
				return PCOMPACT_BLOCK_UNMOVABLE;
			used += 1U << order;
			pfn = page_to_pfn(head) + (1UL << order);
			continue;
		}
		if (PageLRU(page))
			used++;
		else if (page_count(page))
			return PCOMPACT_BLOCK_UNMOVABLE;
		/* else: on a per-CPU free list or being freed */
		pfn++;
	}
	*in_use = used;
	return PCOMPACT_BLOCK_MOVABLE;
}

static int pcompact_unit_cmp(const void *a, const void *b)
{
	const struct pcompact_unit *ua = a, *ub = b;
	/* Cheapest per block first: cost_a / blocks_a < cost_b / blocks_b. */
	u64 ca = (u64)ua->cost * ub->nr_blocks;
	u64 cb = (u64)ub->cost * ua->nr_blocks;

	if (ca != cb)
		return ca < cb ? -1 : 1;
	return ua->pfn < ub->pfn ? -1 : ua->pfn > ub->pfn;
}

/*
 * Scan the pair at @pfn.  Returns true when both blocks can be moved (and
 * not both are free already), with their in-use pages in *cost; otherwise
 * adds the single movable blocks of the pair, if any, to @list.
 */
static bool pcompact_scan_pair(struct zone *zone, unsigned long pfn,
			       unsigned int *cost, struct pcompact_unit *list,
			       unsigned long *n, struct pcompact_round *round)
{
	unsigned int used[2];
	int kind[2], i;

	for (i = 0; i < 2; i++)
		kind[i] = pcompact_scan_block(zone, pfn + i * pageblock_nr_pages, &used[i]);
	if (kind[0] != PCOMPACT_BLOCK_UNMOVABLE && kind[1] != PCOMPACT_BLOCK_UNMOVABLE) {
		*cost = used[0] + used[1];
		return kind[0] != PCOMPACT_BLOCK_FREE || kind[1] != PCOMPACT_BLOCK_FREE;
	}
	for (i = 0; i < 2; i++) {
		if (kind[i] == PCOMPACT_BLOCK_UNMOVABLE)
			round->skipped_unmovable++;
		else if (kind[i] == PCOMPACT_BLOCK_MOVABLE)
			list[(*n)++] = (struct pcompact_unit){
				pfn + i * pageblock_nr_pages, 1, used[i] };
	}
	return false;
}

/*
 * Collect the units worth emptying in @zone, cheapest per block first: runs
 * of adjacent movable pairs, at most PCOMPACT_RUN_MAX_PAIRS long, and single
 * movable blocks.  Returns how many; *units is a kvmalloc'ed array the
 * caller frees.
 */
static unsigned long pcompact_collect_units(struct zone *zone,
					    struct pcompact_unit **units,
					    struct pcompact_round *round)
{
	unsigned long start = ALIGN(zone->zone_start_pfn, PCOMPACT_PAIR_PAGES);
	unsigned long end = zone_end_pfn(zone);
	unsigned long max_units = (end - start) / pageblock_nr_pages + 1;
	struct pcompact_unit *list, run = { 0, 0, 0 };
	unsigned long n = 0, pfn;

	list = kvmalloc_array(max_units, sizeof(*list), GFP_KERNEL);
	if (!list)
		return 0;
	for (pfn = start; pfn + PCOMPACT_PAIR_PAGES <= end; pfn += PCOMPACT_PAIR_PAGES) {
		unsigned int cost;

		if (!pcompact_scan_pair(zone, pfn, &cost, list, &n, round)) {
			if (run.nr_blocks)
				list[n++] = run;
			run.nr_blocks = 0;
			continue;
		}
		if (run.nr_blocks == 2 * PCOMPACT_RUN_MAX_PAIRS) {
			list[n++] = run;
			run.nr_blocks = 0;
		}
		if (!run.nr_blocks)
			run = (struct pcompact_unit){ pfn, 0, 0 };
		run.nr_blocks += 2;
		run.cost += cost;
		cond_resched();
	}
	if (run.nr_blocks)
		list[n++] = run;
	sort(list, n, sizeof(*list), pcompact_unit_cmp, NULL);
	*units = list;
	return n;
}

/*
 * Give an emptied unit back as one free block.  alloc_contig_range() hands
 * out every page with its own reference; dropping the tails' references and
 * freeing the head at the unit's order frees the range as a single block
 * instead of 512 or 1024 order-0 pages that would sit on per-CPU lists.
 */
static void pcompact_free_unit(unsigned long pfn, unsigned int order)
{
	struct page *head = pfn_to_page(pfn);
	unsigned long i;

	for (i = 1; i < (1UL << order); i++)
		page_ref_dec(head + i);
	__free_pages(head, order);
}

/*
 * How many blocks a call may take from @zone now.  While a range is being
 * emptied its free pages are isolated and its in-use pages take free pages
 * elsewhere, so free memory dips by the size of the range; it must stay
 * PCOMPACT_HEADROOM_PAGES above the high watermark.
 */
static unsigned long pcompact_headroom_blocks(struct zone *zone)
{
	unsigned long free = zone_page_state(zone, NR_FREE_PAGES);
	unsigned long floor = high_wmark_pages(zone) + PCOMPACT_HEADROOM_PAGES;

	return free > floor ? (free - floor) / pageblock_nr_pages : 0;
}

/* Pageblocks @zone must gain to reach the round's target score. */
static unsigned long pcompact_zone_blocks_to_target(struct zone *zone,
						    struct pcompact_round *round)
{
	unsigned long nr_free[PCOMPACT_NR_ORDERS];
	unsigned long blocks;
	unsigned int o;

	for (o = 0; o < PCOMPACT_NR_ORDERS; o++)
		/* Unlocked, as the score. */
		nr_free[o] = data_race(READ_ONCE(zone->free_area[o].nr_free));
	blocks = pcompact_blocks_to_target(nr_free, PCOMPACT_NR_ORDERS, round->order,
					   round->low);
	return DIV_ROUND_UP(blocks << round->order, pageblock_nr_pages);
}

/*
 * Empty @nr_blocks blocks at @pfn in one call and free them.  Returns 0, or
 * the error of alloc_contig_range(); -EAGAIN when a block turned unmovable
 * since the plan was made.
 */
static int pcompact_empty_range(struct zone *zone, unsigned long pfn,
				unsigned int nr_blocks, struct pcompact_round *round)
{
	unsigned int order = nr_blocks == 1 ? pageblock_order : pageblock_order + 1;
	unsigned long nr_pages = (unsigned long)nr_blocks * pageblock_nr_pages;
	unsigned int in_use = 0, used, i;
	unsigned long chunk;
	int err;

	/* What moves is what is in use now, targets of earlier calls included. */
	for (i = 0; i < nr_blocks; i++) {
		if (pcompact_scan_block(zone, pfn + i * pageblock_nr_pages, &used) ==
		    PCOMPACT_BLOCK_UNMOVABLE)
			return -EAGAIN;
		in_use += used;
	}
	err = alloc_contig_range(pfn, pfn + nr_pages, MIGRATE_MOVABLE, PCOMPACT_CONTIG_GFP);
	if (err)
		return err;
	for (chunk = pfn; chunk < pfn + nr_pages; chunk += 1UL << order)
		pcompact_free_unit(chunk, order);
	round->blocks_freed += nr_blocks;
	round->pages_migrated += in_use;
	return 0;
}

/*
 * Why the round must stop before the next unit, or PCOMPACT_COMPACTING to go
 * on.  kswapd must be seen for a whole interval before the engine yields to
 * it, so that short reclaim bursts do not starve compaction.
 */
static int pcompact_should_stop(struct pcompact_round *round, struct zone *zone,
				u64 *kswapd_since)
{
	u64 now = ktime_get_ns();

	if (kthread_should_stop() || !READ_ONCE(pcompact_enabled))
		return PCOMPACT_IDLE;
	if (round->deadline_ns && now >= round->deadline_ns)
		return PCOMPACT_IDLE;
	if (spin_is_contended(&zone->lock))
		return PCOMPACT_BACKOFF_CONTENTION;
	if (pcompact_kswapd_active(round->nid)) {
		if (!*kswapd_since)
			*kswapd_since = now;
		else if (now - *kswapd_since >=
			 (u64)READ_ONCE(pcompact_interval_ms) * NSEC_PER_MSEC)
			return PCOMPACT_BACKOFF_KSWAPD;
	} else {
		*kswapd_since = 0;
	}
	return PCOMPACT_COMPACTING;
}

static void pcompact_engine_contig_zone(struct pcompact_round *round,
					struct zone *zone)
{
	struct pcompact_unit *units = NULL;
	unsigned long n, i;
	u64 kswapd_since = 0;

	n = pcompact_collect_units(zone, &units, round);
	for (i = 0; i < n; i++) {
		struct pcompact_unit *unit = &units[i];
		unsigned long needed, room;
		unsigned int nr_blocks, pair;
		int stop, err;

		needed = pcompact_zone_blocks_to_target(zone, round);
		if (!needed)
			break;
		stop = pcompact_should_stop(round, zone, &kswapd_since);
		if (stop != PCOMPACT_COMPACTING) {
			round->stop_reason = stop;
			break;
		}
		room = pcompact_headroom_blocks(zone);
		if (room < unit->nr_blocks && (unit->nr_blocks == 1 || room < 2))
			break;
		/* Cut a run of pairs to the blocks still needed and the room. */
		nr_blocks = min3((unsigned long)unit->nr_blocks, ALIGN(needed, 2), room & ~1UL);
		if (unit->nr_blocks == 1)
			nr_blocks = 1;
		err = pcompact_empty_range(zone, unit->pfn, nr_blocks, round);
		if (err && nr_blocks > 2) {
			/* One page spoilt the run: salvage it pair by pair. */
			for (pair = 0; pair < nr_blocks; pair += 2) {
				unsigned long pfn = unit->pfn + pair * pageblock_nr_pages;

				if (pcompact_empty_range(zone, pfn, 2, round))
					round->failed_blocks += 2;
				cond_resched();
			}
		} else if (err) {
			round->failed_blocks += nr_blocks;
		}
		/* Keep the sysfs score current while a long round runs. */
		WRITE_ONCE(pcompact_node(round->nid)->score,
			   pcompact_score_node(round->nid, round->order));
		try_to_freeze();
		cond_resched();
	}
	if (i == n && round->stop_reason == PCOMPACT_IDLE &&
	    pcompact_zone_blocks_to_target(zone, round))
		round->exhausted = true;
	kvfree(units);
}

/*
 * The kernel's full compaction of one node, through its stable sysfs file:
 * no score target and no back-off inside, but only public interfaces.
 */
static void pcompact_engine_node_sysfs(struct pcompact_round *round)
{
	char path[64];
	struct file *file;
	unsigned long migrated;
	loff_t pos = 0;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/compact",
		 round->nid);
	file = filp_open(path, O_WRONLY, 0);
	if (IS_ERR(file)) {
		pr_warn_ratelimited("engine node-sysfs: cannot open %s: %ld\n",
				    path, PTR_ERR(file));
		return;
	}
	migrated = pcompact_migrated_events();
	kernel_write(file, "1", 1, &pos);
	round->pages_migrated += pcompact_migrated_events() - migrated;
	filp_close(file, NULL);
}

/**
 * pcompact_engine_check() - whether an engine can run on this kernel.
 * @engine:	an enum pcompact_engine_id.
 *
 * Return: 0 if it can, else -EINVAL after logging why not.
 */
int pcompact_engine_check(int engine)
{
	if (engine != PCOMPACT_ENGINE_KALLSYMS)
		return 0;
	if (IS_ENABLED(CONFIG_X86_KERNEL_IBT))
		pr_err("engine: kallsyms calls unexported kernel functions through a pointer; this kernel is built with CONFIG_X86_KERNEL_IBT, where that crashes on IBT hardware (Missing ENDBR). Use engine=contig.\n");
	else
		pr_err("engine: kallsyms is not built into this version of pcompact; use engine=contig\n");
	return -EINVAL;
}

/**
 * pcompact_engine_run() - one compaction round on a node.
 * @round:	what to do; the counters and stop reason are filled in.
 *
 * Works through the node's zones, highest first, until each is at or below
 * the low threshold, the quota is spent, or a back-off condition holds.
 */
void pcompact_engine_run(struct pcompact_round *round)
{
	pg_data_t *pgdat = NODE_DATA(round->nid);
	int zid;

	BUILD_BUG_ON(PCOMPACT_UNIT_MAX_ORDER > PCOMPACT_MAX_BUDDY_ORDER);
	round->stop_reason = PCOMPACT_IDLE;
	if (READ_ONCE(pcompact_engine) == PCOMPACT_ENGINE_NODE_SYSFS) {
		pcompact_engine_node_sysfs(round);
		return;
	}
	for (zid = MAX_NR_ZONES - 1; zid >= 0; zid--) {
		struct zone *zone = &pgdat->node_zones[zid];

		if (!populated_zone(zone) ||
		    !pcompact_weighted_score(pcompact_score_zone(zone, round->order),
					     zone->present_pages,
					     pgdat->node_present_pages))
			continue;
		if (pcompact_score_zone(zone, round->order) <= round->low)
			continue;
		pcompact_engine_contig_zone(round, zone);
		if (round->stop_reason != PCOMPACT_IDLE)
			break;
	}
}

/**
 * pcompact_kswapd_active() - whether kswapd is reclaiming on a node now.
 * @nid:	the node.
 *
 * Either kswapd is in a balancing cycle on one of the node's zones, or it is
 * running, which is upstream's kswapd_is_running() test.
 *
 * Return: true if it is.
 */
bool pcompact_kswapd_active(int nid)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	bool running;
	int zid;

	for (zid = 0; zid < MAX_NR_ZONES; zid++)
		if (test_bit(ZONE_RECLAIM_ACTIVE, &pgdat->node_zones[zid].flags))
			return true;
	pgdat_kswapd_lock(pgdat);
	running = pgdat->kswapd && task_is_running(pgdat->kswapd);
	pgdat_kswapd_unlock(pgdat);
	return running;
}
