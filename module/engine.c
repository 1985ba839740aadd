// SPDX-License-Identifier: GPL-2.0
/*
 * pcompact engine: compacts a node with exported kernel functions only, so
 * it is safe on kernels built with IBT.
 *
 * The default engine ("node-sysfs", at the end of this file) runs the
 * kernel's own compaction of the node and ends it at the round's target.
 * The other ("contig") empties the cheapest pageblocks itself: it moves the
 * in-use pages out of a chosen range with alloc_contig_range() and gives the
 * range back to the buddy allocator as free high-order pages.  It works on
 * runs of whole 4 MB pairs (two pageblocks, order 10) where it can: a free
 * of that order never sits on a per-CPU list, so it reaches the free lists,
 * and the score, at once.  A 2 MB block freed at order 9 may park on the
 * freeing CPU's per-CPU list until the next drain (each
 * alloc_contig_range() call drains them).
 *
 * Emptying a run of adjacent pairs in one call matters twice.  The whole run
 * is isolated while its pages move, so the migration targets cannot land in
 * it and no page moves twice within the run (one block at a time, a page
 * moved out of block A often lands in a hole of block B, the next to go, and
 * moves again).  And the fixed cost of a call (draining every CPU's lists,
 * an expedited RCU grace period) is paid once per run instead of per block.
 * Runs are cut into units of at most run_max_mb, and of a few megabytes when
 * the kernel zeroes every page it hands out (init_on_alloc), because
 * alloc_contig_range() then clears the whole range without a reschedule
 * point; a unit is cut further to what the target and the free-memory
 * headroom allow.
 *
 * The zone is read a window at a time, from where the last round stopped,
 * so the cost of a round follows the blocks it needs, not the size of the
 * node.  Within a window blocks are taken by cost: the number of in-use
 * pages that must move, read from struct page without locks.  A block
 * holding anything it cannot move, or not of the movable pageblock type, is
 * never tried, which keeps the engine cheap on unmovable fragmentation (it
 * finds nothing to do and the core defers) and keeps it from eroding the
 * kernel's grouping of unmovable and reclaimable allocations.
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
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/timekeeping.h>
#include <linux/vmstat.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "fault.h"
#include "pcompact.h"
#include "trace.h"

const char * const pcompact_engine_names[PCOMPACT_NR_ENGINES] = {
	[PCOMPACT_ENGINE_CONTIG] = "contig",
	[PCOMPACT_ENGINE_NODE_SYSFS] = "node-sysfs",
	[PCOMPACT_ENGINE_KALLSYMS] = "kallsyms",
};

/* What a scan of one pageblock found. */
enum pcompact_block_kind {
	PCOMPACT_BLOCK_FREE,		/* already free as a whole: nothing to gain */
	PCOMPACT_BLOCK_MOVABLE,		/* only free and movable pages */
	PCOMPACT_BLOCK_UNMOVABLE,	/* holds a page the engine must not try */
	PCOMPACT_BLOCK_OTHER_TYPE,	/* pageblock type is not MIGRATE_MOVABLE */
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

/* What the scan of a zone needs to know, fixed for one round. */
struct pcompact_scan {
	struct zone *zone;
	bool unevictable_ok;	/* vm.compact_unevictable_allowed */
	unsigned long run_max_pairs;	/* the longest run one call empties */
};

/*
 * The longest run when every allocated page is zeroed (init_on_alloc=1, as
 * Debian boots): alloc_contig_range() clears the whole range before it
 * returns, with no reschedule point, so 16 MB keeps that to a couple of
 * milliseconds where 256 MB would be tens.
 */
#define PCOMPACT_RUN_MAX_PAIRS_ZEROING	4UL

/*
 * Pairs read per window: 1 GB on x86.  Blocks are chosen cheapest first
 * within a window; a round reads further windows only while it still needs
 * blocks.
 */
#define PCOMPACT_WINDOW_PAIRS		256

/* A window yields at most two units per pair (two single blocks). */
#define PCOMPACT_WINDOW_UNITS		(2 * PCOMPACT_WINDOW_PAIRS)

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

#define PCOMPACT_UNEVICTABLE_SYSCTL	"/proc/sys/vm/compact_unevictable_allowed"

/* Whole pairs of pageblocks in @mb MB, at least one. */
static unsigned long pcompact_mb_to_pairs(unsigned int mb)
{
	unsigned long pages = (unsigned long)mb << (20 - PAGE_SHIFT);

	return max(pages / PCOMPACT_PAIR_PAGES, 1UL);
}

/* Whether an allocation stalled in direct compaction within interval_ms. */
static bool pcompact_stalled_lately(void)
{
	u64 window = (u64)READ_ONCE(pcompact_interval_ms) * NSEC_PER_MSEC;
	u64 now = ktime_get_ns();

	return pcompact_hooks_stalled_since(now > window ? now - window : 0);
}

/*
 * The longest run one call empties, in pairs: run_max_mb (longer runs move
 * fewer pages twice and drain every CPU's lists less often; shorter ones
 * give blocks back sooner), capped while the kernel zeroes allocations,
 * and to stall_run_mb while allocations stall in direct compaction: a call
 * keeps its whole range's free memory from them until it returns.
 */
static unsigned long pcompact_run_max_pairs(void)
{
	unsigned long pairs = pcompact_mb_to_pairs(READ_ONCE(pcompact_run_max_mb));
	unsigned int stall_mb = READ_ONCE(pcompact_stall_run_mb);

	if (pcompact_init_on_alloc())
		pairs = min(pairs, PCOMPACT_RUN_MAX_PAIRS_ZEROING);
	if (stall_mb && pcompact_stalled_lately())
		pairs = min(pairs, pcompact_mb_to_pairs(stall_mb));
	return pairs;
}

static unsigned long pcompact_migrated_events(void)
{
	unsigned long sum = 0;
	int cpu;

	for_each_online_cpu(cpu)
		sum += per_cpu(vm_event_states, cpu).event[PGMIGRATE_SUCCESS];
	return sum;
}

/*
 * A running count of the pages a node-sysfs call of @pn's migrates: the
 * node's own count where the hook keeps it (hooks.c), else every migration
 * on the system, the other nodes' rounds and the stalled allocations'
 * included.
 */
static unsigned long pcompact_call_migrated(struct pcompact_node *pn)
{
	if (pcompact_hooks_count_migrations())
		return (unsigned long)atomic64_read(&pn->kernel_migrated);
	return pcompact_migrated_events();
}

/*
 * vm.compact_unevictable_allowed, read through /proc (the variable is static
 * in 6.12).  When it cannot be read, assume 0: leaving mlocked pages alone is
 * the safe side.
 */
static bool pcompact_unevictable_allowed(void)
{
	struct file *file;
	char buf[8] = "";
	loff_t pos = 0;
	ssize_t len;

	file = pcompact_filp_open(PCOMPACT_UNEVICTABLE_SYSCTL, O_RDONLY);
	if (IS_ERR(file)) {
		pr_warn_once("engine: cannot read %s (%ld): leaving unevictable pages alone\n",
			     PCOMPACT_UNEVICTABLE_SYSCTL, PTR_ERR(file));
		return false;
	}
	len = kernel_read(file, buf, sizeof(buf) - 1, &pos);
	filp_close(file, NULL);
	return len > 0 && buf[0] != '0';
}

/*
 * Whether the in-use page (or compound head) @page may be moved: on the LRU
 * or driver-movable (zsmalloc, balloon), and not unevictable while
 * vm.compact_unevictable_allowed is 0 (the kernel's own compaction honours
 * it; alloc_contig_range() does not, so pcompact must).  zram and zswap
 * spread zsmalloc pages over every block they can find: taking them for
 * unmovable left a node fragmented after swapping (test 48).
 */
static bool pcompact_page_movable(const struct pcompact_scan *scan,
				  struct page *page)
{
	struct folio *folio;

	if (pcompact_page_has_movable_ops(page))
		return true;
	if (!PageLRU(page))
		return false;
	folio = page_folio(page);
	return scan->unevictable_ok ||
	       (!folio_test_unevictable(folio) && !folio_test_mlocked(folio));
}

/*
 * The order of the free buddy at @pfn, read without the zone lock; a value
 * that cannot be an order there reads as 0, so a walk steps one page.
 */
static unsigned long pcompact_buddy_order(struct page *page, unsigned long pfn)
{
	/* Racy like the kernel's own unlocked buddy_order() reads. */
	unsigned long order = data_race(page_private(page));

	if (order >= PCOMPACT_NR_ORDERS || !IS_ALIGNED(pfn, 1UL << order))
		return 0;
	return order;
}

/*
 * Classify the pageblock at @start and count the pages that would have to
 * move.  Lockless and racy by design: a wrong guess costs one failed
 * alloc_contig_range() call, which leaves the block as it was.  LRU and
 * driver-movable pages count as movable.
 *
 * *@free_end carries, from one block to the next, the end of a free buddy
 * that began in an earlier block: in a free order-10 buddy only the first
 * page is PageBuddy, and the second block's pages look like 512 unowned
 * pages of refcount 0.
 */
static int pcompact_scan_block(const struct pcompact_scan *scan,
			       unsigned long start, unsigned long *free_end,
			       unsigned int *in_use)
{
	unsigned long end = start + pageblock_nr_pages;
	struct page *first = pfn_to_online_page(start);
	struct page *last = pfn_to_online_page(end - 1);
	unsigned int used = 0;
	unsigned long pfn;

	*in_use = 0;
	/* As the kernel's pageblock_pfn_to_page(): both ends online, in the zone. */
	if (!first || !last || page_zone(first) != scan->zone ||
	    page_zone(last) != scan->zone)
		return PCOMPACT_BLOCK_UNMOVABLE;
	if (*free_end >= end)
		return PCOMPACT_BLOCK_FREE;
	if (pcompact_pageblock_migratetype(start) != MIGRATE_MOVABLE)
		return PCOMPACT_BLOCK_OTHER_TYPE;

	for (pfn = max(start, *free_end); pfn < end;) {
		struct page *page = pfn_to_page(pfn);
		unsigned long order, next;

		if (PageBuddy(page)) {
			order = pcompact_buddy_order(page, pfn);
			next = pfn + (1UL << order);
			if (next >= end && pfn == start) {
				*free_end = next;
				return PCOMPACT_BLOCK_FREE;
			}
			pfn = next;
			continue;
		}
		if (PageCompound(page)) {
			struct page *head = compound_head(page);
			unsigned long head_pfn = page_to_pfn(head);

			order = compound_order(head);
			/* Already a huge page in use, or hugetlb: leave it. */
			if (order >= pageblock_order || PageHuge(head) ||
			    !pcompact_page_movable(scan, head))
				return PCOMPACT_BLOCK_UNMOVABLE;
			next = head_pfn + (1UL << order);
			/* A stale head (the folio changed under us) must not walk back. */
			if (head_pfn > pfn || next <= pfn)
				next = pfn + 1;
			next = min(next, end);
			used += next - pfn;
			pfn = next;
			continue;
		}
		if (pcompact_page_movable(scan, page))
			used++;
		else if (page_count(page))
			return PCOMPACT_BLOCK_UNMOVABLE;
		/* else: on a per-CPU free list or being freed */
		pfn++;
	}
	/* All free, some pages still on per-CPU lists: the next drain merges it. */
	if (!used)
		return PCOMPACT_BLOCK_FREE;
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

/* Count a block the scan will not try. */
static void pcompact_count_skip(struct pcompact_round *round, int kind)
{
	if (kind == PCOMPACT_BLOCK_UNMOVABLE)
		round->skipped_unmovable++;
	else if (kind == PCOMPACT_BLOCK_OTHER_TYPE)
		round->skipped_type++;
}

/*
 * Scan the pair at @pfn.  Returns true when both blocks are movable (a pair
 * with a free block is no work for a run: it is half done or done), with
 * their in-use pages in *cost; otherwise adds the pair's single movable
 * blocks, if any, to @list.
 */
static bool pcompact_scan_pair(const struct pcompact_scan *scan,
			       unsigned long pfn, unsigned int *cost,
			       struct pcompact_unit *list, unsigned long *n,
			       struct pcompact_round *round)
{
	unsigned long free_end = pfn;
	unsigned int used[2];
	int kind[2], i;

	for (i = 0; i < 2; i++)
		kind[i] = pcompact_scan_block(scan, pfn + i * pageblock_nr_pages,
					      &free_end, &used[i]);
	round->scanned_blocks += 2;
	if (kind[0] == PCOMPACT_BLOCK_MOVABLE && kind[1] == PCOMPACT_BLOCK_MOVABLE) {
		*cost = used[0] + used[1];
		return true;
	}
	for (i = 0; i < 2; i++) {
		pcompact_count_skip(round, kind[i]);
		if (kind[i] == PCOMPACT_BLOCK_MOVABLE)
			list[(*n)++] = (struct pcompact_unit){
				pfn + i * pageblock_nr_pages, 1, used[i] };
	}
	return false;
}

/*
 * Why the round must stop before its next call, or PCOMPACT_COMPACTING to go
 * on.  kswapd must be seen for a whole interval before the engine yields to
 * it, so that short reclaim bursts do not starve compaction.  Between pairs of
 * a scan only pcompact_must_stop() applies: reading struct pages takes no
 * lock and competes with nobody.
 */
static bool pcompact_must_stop(struct pcompact_round *round, u64 now)
{
	return kthread_should_stop() || !READ_ONCE(pcompact_enabled) ||
	       (round->deadline_ns && now >= round->deadline_ns);
}

static int pcompact_should_stop(struct pcompact_round *round, struct zone *zone,
				u64 *kswapd_since)
{
	u64 now = ktime_get_ns();

	if (pcompact_must_stop(round, now))
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

/*
 * Collect the units worth emptying in the window of @nr_pairs pairs at @pfn,
 * cheapest per block first: runs of adjacent movable pairs, cut into units of
 * at most one call's length, and single movable blocks.  Returns how many
 * (at most PCOMPACT_WINDOW_UNITS), or -1 when the round must stop.
 */
static long pcompact_collect_window(const struct pcompact_scan *scan,
				    unsigned long pfn, unsigned long nr_pairs,
				    struct pcompact_unit *list,
				    struct pcompact_round *round)
{
	unsigned long end = pfn + nr_pairs * PCOMPACT_PAIR_PAGES;
	struct pcompact_unit run = { 0, 0, 0 };
	unsigned long n = 0;
	u64 start = ktime_get_ns();

	for (; pfn < end; pfn += PCOMPACT_PAIR_PAGES) {
		unsigned int cost;

		if (pcompact_must_stop(round, ktime_get_ns())) {
			round->scan_ns += ktime_get_ns() - start;
			return -1;
		}
		if (!pcompact_scan_pair(scan, pfn, &cost, list, &n, round)) {
			if (run.nr_blocks)
				list[n++] = run;
			run.nr_blocks = 0;
		} else {
			if (run.nr_blocks == 2 * scan->run_max_pairs) {
				list[n++] = run;
				run.nr_blocks = 0;
			}
			if (!run.nr_blocks)
				run = (struct pcompact_unit){ pfn, 0, 0 };
			run.nr_blocks += 2;
			run.cost += cost;
		}
		cond_resched();
	}
	if (run.nr_blocks)
		list[n++] = run;
	sort(list, n, sizeof(*list), pcompact_unit_cmp, NULL);
	round->scan_ns += ktime_get_ns() - start;
	return n;
}

/*
 * Give an emptied unit back as one free block, where the kernel hands the
 * range out referenced (before 7.x; see compat.h): alloc_contig_range() gives
 * every page its own reference, and another CPU may hold a
 * speculative one on any of them (an RCU page-cache lookup, GUP-fast, a
 * compaction scanner that saw the page before it moved).  So the tails'
 * references are frozen, not dropped: page_ref_freeze() takes 1 -> 0 only
 * when ours is the only reference, and a frozen page cannot be taken by a
 * speculative get.  The head is then freed at the unit's order; if the head
 * itself is held, __free_pages() frees the tails and leaves the head to its
 * holder's put.  A tail that cannot be frozen makes the unit go back page by
 * page through __free_page(), as free_contig_range() does, so the holder's
 * put frees that page exactly once.
 */
static void pcompact_free_unit(unsigned long pfn, unsigned int order)
{
	struct page *head = pfn_to_page(pfn);
	unsigned long nr = 1UL << order, i;

	for (i = 1; i < nr; i++)
		if (!page_ref_freeze(head + i, 1))
			break;
	if (i == nr) {
		__free_pages(head, order);
		return;
	}
	while (--i >= 1)
		page_ref_unfreeze(head + i, 1);
	for (i = 0; i < nr; i++)
		__free_page(head + i);
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
 * Give back a range pcompact_contig_take() emptied, as free pages of @order
 * (the range is aligned to it).
 */
static void pcompact_give_range(unsigned long pfn, unsigned long nr_pages,
				unsigned int order)
{
	struct page *held = pcompact_fault_hold(pfn, nr_pages);
	unsigned long chunk;

	for (chunk = pfn; chunk < pfn + nr_pages; chunk += 1UL << order)
		if (PCOMPACT_CONTIG_FROZEN)
			pcompact_contig_give_frozen(chunk, 1UL << order);
		else
			pcompact_free_unit(chunk, order);
	pcompact_fault_release(held);
}

/*
 * The order a lone pageblock goes back at where it should be seen at once:
 * 6.1 and later park a freed page of pageblock order on the freeing CPU's
 * per-CPU list (pcp_allowed_order(), for THP), where neither the score nor
 * another CPU's allocation sees it, while two halves go to the buddy lists
 * and merge there.
 */
#define PCOMPACT_LONE_BLOCK_ORDER	(pageblock_order - 1)

/*
 * Empty @nr_blocks pageblocks at @pfn with one alloc_contig_range() call,
 * traced (pcompact_range) with the @in_use pages it had to move, so that
 * every block the mechanism empties shows in the trace the same way.
 * Returns the call's error.
 */
static int pcompact_take_traced(int nid, unsigned long pfn, unsigned int nr_blocks,
				unsigned int in_use)
{
	u64 start = ktime_get_ns();
	int err = pcompact_contig_take(pfn, pfn + (unsigned long)nr_blocks * pageblock_nr_pages);

	trace_pcompact_range(nid, pfn, nr_blocks, in_use, err, ktime_get_ns() - start);
	return err;
}

/*
 * Empty @nr_blocks blocks at @pfn in one call and free them, pairs as order-10
 * pages, a lone block in halves (PCOMPACT_LONE_BLOCK_ORDER).  Returns 0, or
 * the error of alloc_contig_range(); -EAGAIN when a block is no longer worth
 * trying (turned unmovable, or free) since the plan was made.
 */
static int pcompact_empty_range(const struct pcompact_scan *scan,
				unsigned long pfn, unsigned int nr_blocks,
				struct pcompact_round *round)
{
	unsigned int order = nr_blocks == 1 ? PCOMPACT_LONE_BLOCK_ORDER : pageblock_order + 1;
	unsigned long nr_pages = (unsigned long)nr_blocks * pageblock_nr_pages;
	unsigned long free_end = pfn;
	unsigned int in_use = 0, used, i;
	int err;

	/* What moves is what is in use now, targets of earlier calls included. */
	for (i = 0; i < nr_blocks; i++) {
		if (pcompact_scan_block(scan, pfn + i * pageblock_nr_pages, &free_end,
					&used) != PCOMPACT_BLOCK_MOVABLE)
			return -EAGAIN;
		in_use += used;
	}
	err = pcompact_take_traced(round->nid, pfn, nr_blocks, in_use);
	if (err)
		return err;
	pcompact_give_range(pfn, nr_pages, order);
	round->blocks_freed += nr_blocks;
	/* Ranges are aligned to their own size, so each holds whole blocks of order. */
	round->order_blocks_emptied += nr_pages >> round->order;
	round->pages_migrated += in_use;
	return 0;
}

/*
 * Empty a run pair by pair, with the same target, room and stop checks as
 * the main loop: a run that failed as a whole (one page spoilt it), or one
 * longer than a call may take now (allocations began to stall after the
 * run was collected).
 */
static void pcompact_empty_pairs(const struct pcompact_scan *scan,
				 unsigned long pfn, unsigned int nr_blocks,
				 struct pcompact_round *round, u64 *kswapd_since)
{
	unsigned int pair;
	int stop;

	for (pair = 0; pair < nr_blocks; pair += 2) {
		if (!pcompact_zone_blocks_to_target(scan->zone, round))
			return;
		if (pcompact_headroom_blocks(scan->zone) < 2) {
			round->out_of_room = true;
			return;
		}
		stop = pcompact_should_stop(round, scan->zone, kswapd_since);
		if (stop != PCOMPACT_COMPACTING) {
			round->stop_reason = stop;
			return;
		}
		if (pcompact_empty_range(scan, pfn + pair * pageblock_nr_pages, 2, round))
			round->failed_blocks += 2;
		cond_resched();
	}
}

/*
 * Empty the units of one window, cheapest first.  Returns true when the zone
 * reached its target (or the room ran out) and the round should not read
 * further windows; round->stop_reason says when it must stop altogether.
 */
static bool pcompact_empty_window(const struct pcompact_scan *scan,
				  struct pcompact_unit *units, long n,
				  struct pcompact_round *round, u64 *kswapd_since)
{
	unsigned long max_blocks = 2 * scan->run_max_pairs;
	struct zone *zone = scan->zone;
	long i;

	for (i = 0; i < n; i++) {
		struct pcompact_unit *unit = &units[i];
		unsigned long needed, room, nr_blocks;
		int stop, err;

		needed = pcompact_zone_blocks_to_target(zone, round);
		if (!needed)
			return true;
		stop = pcompact_should_stop(round, zone, kswapd_since);
		if (stop != PCOMPACT_COMPACTING) {
			round->stop_reason = stop;
			return true;
		}
		/* Sorted cheapest first: every later unit costs as much or more. */
		if (round->max_used &&
		    unit->cost > (unsigned long)round->max_used * unit->nr_blocks)
			return false;
		room = pcompact_headroom_blocks(zone);
		if (room < unit->nr_blocks && (unit->nr_blocks == 1 || room < 2)) {
			round->out_of_room = true;
			return true;
		}
		/* Cut a run of pairs to the blocks still needed, the room and the cap. */
		nr_blocks = min3((unsigned long)unit->nr_blocks, ALIGN(needed, 2),
				 room & ~1UL);
		nr_blocks = min(nr_blocks, max_blocks);
		if (unit->nr_blocks == 1)
			nr_blocks = 1;
		if (nr_blocks > 2 * pcompact_run_max_pairs()) {
			pcompact_empty_pairs(scan, unit->pfn, nr_blocks, round, kswapd_since);
		} else {
			err = pcompact_empty_range(scan, unit->pfn, nr_blocks, round);
			if (err && nr_blocks > 2)
				pcompact_empty_pairs(scan, unit->pfn, nr_blocks, round,
						     kswapd_since);
			else if (err)
				round->failed_blocks += nr_blocks;
		}
		if (round->stop_reason != PCOMPACT_IDLE)
			return true;
		/* Keep the sysfs score current while a long round runs. */
		WRITE_ONCE(pcompact_node(round->nid)->score,
			   pcompact_score_node(round->nid, round->order));
		try_to_freeze();
		cond_resched();
	}
	return false;
}

/*
 * One zone: read windows from the node's cursor on, emptying each window's
 * units, until the zone reaches its target, the round must stop, or every
 * window of the zone was read once in this round.
 */
static void pcompact_engine_contig_zone(struct pcompact_round *round,
					struct zone *zone, unsigned long *cursor,
					struct pcompact_unit *units)
{
	unsigned long first = ALIGN(zone->zone_start_pfn, PCOMPACT_PAIR_PAGES);
	unsigned long end = zone_end_pfn(zone);
	struct pcompact_scan scan = {
		.zone = zone,
		.unevictable_ok = round->unevictable_ok,
	};
	unsigned long nr_pairs, read = 0;
	u64 kswapd_since = 0;

	/* A zone with no aligned pair (tiny, or misaligned) has no work. */
	if (first >= end || end - first < PCOMPACT_PAIR_PAGES)
		return;
	nr_pairs = (end - first) / PCOMPACT_PAIR_PAGES;
	if (*cursor >= nr_pairs)
		*cursor = 0;	/* the zone shrank (memory offline) */

	while (read < nr_pairs) {
		unsigned long window = min3((unsigned long)PCOMPACT_WINDOW_PAIRS,
					    nr_pairs - *cursor, nr_pairs - read);
		long n;

		if (!pcompact_zone_blocks_to_target(zone, round))
			return;
		if (pcompact_must_stop(round, ktime_get_ns()))
			return;
		/* No room is not a deferral (pcompact_round_defers()): read no window for it. */
		if (!pcompact_headroom_blocks(zone)) {
			round->out_of_room = true;
			return;
		}
		/*
		 * A fallback round with a quota takes one pair a call: the deadline
		 * is checked only between calls, and one of run_max_mb took 1 s
		 * under TCG (58 on 6.12: a round of 1090 ms for a quota of 50).
		 */
		scan.run_max_pairs = round->route == PCOMPACT_ROUTE_KERNEL_THEN_CONTIG &&
				     round->deadline_ns ?
				     1 : pcompact_run_max_pairs();
		n = pcompact_collect_window(&scan, first + *cursor * PCOMPACT_PAIR_PAGES,
					    window, units, round);
		if (n < 0)
			return;
		/* Stop at a window with units left: the next round starts there. */
		if (pcompact_empty_window(&scan, units, n, round, &kswapd_since))
			return;
		read += window;
		*cursor += window;
		if (*cursor >= nr_pairs)
			*cursor = 0;
	}
	if (pcompact_zone_blocks_to_target(zone, round))
		round->exhausted = true;
}

/*
 * Free memory a node has for compaction, in pageblocks: a call starts with
 * two and is stopped once none is left (pcompact_sysfs_watch_check()).  On
 * a node held near its watermarks reclaim, not compaction, is what it needs.
 */
static unsigned long pcompact_node_headroom_blocks(int nid)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	unsigned long room = 0;
	int zid;

	for (zid = 0; zid < MAX_NR_ZONES; zid++)
		if (populated_zone(&pgdat->node_zones[zid]))
			room += pcompact_headroom_blocks(&pgdat->node_zones[zid]);
	return room;
}

/*
 * What watches an engine=node-sysfs call.  The kernel's full compaction of a
 * node has no target, quota or back-off of its own, so while it runs a work
 * item samples the node every jiffy, from any CPU (the compacting one may be
 * busy), and ends the call with SIGKILL once pcompact's loop would have
 * stopped: compact_zone() ends at its next batch of pages once
 * fatal_signal_pending() (6.1 and 6.12 isolate_migratepages_block(), and
 * compact_node() checks it between zones).
 */
struct pcompact_sysfs_watch {
	struct delayed_work work;
	struct pcompact_round *round;
	struct task_struct *task;
	u64 kswapd_since;
	int stop_reason;	/* PCOMPACT_COMPACTING while the call may go on */
};

/*
 * As pcompact_should_stop(), for the node, with the round's target and its
 * headroom added.  The headroom is checked all along, not only before the
 * call: each page the kernel's compaction migrates takes a free page from the
 * buddy lists and frees its source to the compacting CPU's per-cpu list,
 * which the zone's free count leaves out.  On 6.12, whose lists grow to the
 * low watermark, a call at a node's margin took its free count below min
 * and the OOM killer ran (make bench, 2026-11-25; test 60).
 */
static int pcompact_sysfs_watch_check(struct pcompact_sysfs_watch *watch)
{
	struct pcompact_round *round = watch->round;
	u64 now = ktime_get_ns();

	if (!READ_ONCE(pcompact_enabled) || READ_ONCE(*round->stopping) ||
	    (round->deadline_ns && now >= round->deadline_ns) ||
	    pcompact_node_at_target(pcompact_score_node(round->nid, round->order),
				    round->low))
		return PCOMPACT_IDLE;
	if (!pcompact_node_headroom_blocks(round->nid)) {
		round->out_of_room = true;
		return PCOMPACT_IDLE;
	}
	if (pcompact_kswapd_active(round->nid)) {
		if (!watch->kswapd_since)
			watch->kswapd_since = now;
		else if (now - watch->kswapd_since >=
			 (u64)READ_ONCE(pcompact_interval_ms) * NSEC_PER_MSEC)
			return PCOMPACT_BACKOFF_KSWAPD;
	} else {
		watch->kswapd_since = 0;
	}
	return PCOMPACT_COMPACTING;
}

static void pcompact_sysfs_watch_fn(struct work_struct *work)
{
	struct pcompact_sysfs_watch *watch =
		container_of(to_delayed_work(work), struct pcompact_sysfs_watch, work);
	int stop = pcompact_sysfs_watch_check(watch);

	if (stop == PCOMPACT_COMPACTING) {
		queue_delayed_work(PCOMPACT_UNBOUND_WQ, &watch->work, 1);
		return;
	}
	watch->stop_reason = stop;
	send_sig(SIGKILL, watch->task, 1);
}

/*
 * The kernel's full compaction of one node, through its stable sysfs file,
 * watched as above so that it stops at the round's target, quota or
 * back-off.  SIGKILL is let in only while it runs; stopping the thread
 * (rmmod) sends it too.  Returns false if the call ended by itself and left
 * the node's score and free pageblocks where they were: the node's own
 * measure, as what the call migrated says nothing of blocks freed (and,
 * without the migratepages hook, counts the other nodes' calls too).
 */
static bool pcompact_engine_node_sysfs(struct pcompact_round *round)
{
	struct pcompact_sysfs_watch watch = {
		.round = round,
		.task = current,
		.stop_reason = PCOMPACT_COMPACTING,
	};
	struct pcompact_node *pn = pcompact_node(round->nid);
	char path[64];
	struct file *file;
	unsigned long migrated, free_before, free_after;
	unsigned int score_before;
	bool gained;
	loff_t pos = 0;

	if (pcompact_node_headroom_blocks(round->nid) < 2) {
		round->out_of_room = true;
		return true;
	}
	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/compact",
		 round->nid);
	file = pcompact_filp_open(path, O_WRONLY);
	if (IS_ERR(file)) {
		pr_warn_ratelimited("engine node-sysfs: cannot open %s: %ld\n",
				    path, PTR_ERR(file));
		return true;
	}
	INIT_DELAYED_WORK_ONSTACK(&watch.work, pcompact_sysfs_watch_fn);
	free_before = pcompact_free_blocks_node(round->nid, pageblock_order);
	score_before = pcompact_score_node(round->nid, round->order);
	migrated = pcompact_call_migrated(pn);
	/* Only the kernel's: the watch's and pcompact_stop_thread()'s, not a user's kill. */
	allow_kernel_signal(SIGKILL);
	if (!kthread_should_stop() && !pcompact_fault_idle_node_sysfs()) {
		round->kernel_called = true;
		queue_delayed_work(PCOMPACT_UNBOUND_WQ, &watch.work, 1);
		kernel_write(file, "1", 1, &pos);
		cancel_delayed_work_sync(&watch.work);
	}
	disallow_signal(SIGKILL);
	flush_signals(current);
	destroy_delayed_work_on_stack(&watch.work);
	migrated = pcompact_call_migrated(pn) - migrated;
	round->pages_migrated += migrated;
	round->fed_stalls = READ_ONCE(pcompact_progress_when_stalled) && migrated &&
			    pcompact_stalled_lately();
	/* Net of what was allocated meanwhile: the call has no count of its own. */
	free_after = pcompact_free_blocks_node(round->nid, pageblock_order);
	gained = free_after > free_before;
	if (gained)
		round->blocks_freed += free_after - free_before;
	filp_close(file, NULL);
	if (watch.stop_reason != PCOMPACT_COMPACTING) {
		round->stop_reason = watch.stop_reason;
		return true;
	}
	return gained || pcompact_score_node(round->nid, round->order) < score_before ||
	       kthread_should_stop();
}

/*
 * A call of the kernel's compaction that freed nothing and moved fewer pages
 * than four pageblocks hold found no targets for them (the wall: 0-1248
 * pages before its scanners met near the zone's start, in the traces of
 * README, "The wall boots"); one under a stream that fed it moves tens of
 * thousands and only looks fruitless, net of what the stream took.
 */
#define PCOMPACT_FRUITLESS_PAGES	(4 * pageblock_nr_pages)

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
 * pcompact_engine_backs_off_for_stalls() - whether rounds wait for stalls.
 *
 * With engine=node-sysfs and backoff_when_stalled, no round starts within
 * interval_ms of a direct compaction stall: its call of the kernel's
 * compaction, when its scanners meet, would reset the zone's cached
 * scanner positions that the stalled allocations' compaction works from,
 * without the flag that has kswapd clear the skip marks behind them.
 *
 * Return: true if the node's next round should wait.
 */
bool pcompact_engine_backs_off_for_stalls(void)
{
	return READ_ONCE(pcompact_backoff_when_stalled) &&
	       READ_ONCE(pcompact_engine) == PCOMPACT_ENGINE_NODE_SYSFS &&
	       pcompact_stalled_lately();
}

static void pcompact_engine_drain_first(struct pcompact_round *round);

/**
 * pcompact_engine_run() - one compaction round on a node.
 * @round:	what to do; the counters and stop reason are filled in.
 *
 * Works through the node's zones, highest first, until each is at or below
 * the low threshold, the quota is spent, or a back-off condition holds.
 */
void pcompact_engine_run(struct pcompact_round *round)
{
	struct pcompact_node *pn = pcompact_node(round->nid);
	pg_data_t *pgdat = NODE_DATA(round->nid);
	struct pcompact_unit *units;
	int zid;

	BUILD_BUG_ON(PCOMPACT_UNIT_MAX_ORDER > PCOMPACT_MAX_BUDDY_ORDER);
	round->stop_reason = PCOMPACT_IDLE;
	round->route = PCOMPACT_ROUTE_CONTIG;
	/*
	 * The kernel's free scanner sees only the buddy lists.  Right after a
	 * large free, or after compactions cut short, most free pages of a
	 * node can sit on the per-CPU lists, and the call ends at once having
	 * done nothing (6.12: 8 of 20 first rounds in the bench).
	 * alloc_contig_range() drains those lists, so the contig engine makes
	 * progress where the kernel's compaction cannot.  One contig call and
	 * the kernel's call once more did not do (6.12, 7c57860: the second
	 * call got 1-2 blocks and the node lost its head start), so contig
	 * takes the rest of the round.  It empties only blocks at most half in
	 * use: where only fuller ones are movable (unmovable fragmentation) the
	 * kernel's compaction gets nothing either, and contig emptied 9-12
	 * blocks there at ~460 pages each for 0.75-5.3 s of CPU in 45 s
	 * (b3b444f).  With contig_when_quiet, a round that no stall has
	 * preceded within interval_ms goes to contig, with the same limit, at
	 * once: it moves only the in-use pages of the blocks it empties.  With
	 * contig_when_stalled, one that a stall has preceded does: the kernel's
	 * call, when its scanners meet, resets the zone's cached scanner
	 * positions that the stalled allocations' own compaction works from.
	 * With contig_after_fallback, one that a stall has preceded does on a
	 * node whose last kernel call found nothing to do: another would mark
	 * the zone's pageblocks to be skipped under the stalled allocations'
	 * compaction, having found no targets in them.
	 */
	if (READ_ONCE(pcompact_engine) == PCOMPACT_ENGINE_NODE_SYSFS) {
		bool stalled = pcompact_stalled_lately();

		if (READ_ONCE(pcompact_contig_when_quiet) && !stalled) {
			round->route = PCOMPACT_ROUTE_QUIET_CONTIG;
		} else if (READ_ONCE(pcompact_contig_when_stalled) && stalled) {
			round->route = PCOMPACT_ROUTE_STALLED_CONTIG;
		} else if (READ_ONCE(pcompact_contig_after_fallback) && stalled &&
			   pn->kernel_fruitless) {
			round->route = PCOMPACT_ROUTE_FALLBACK_CONTIG;
		} else {
			unsigned long migrated_before;
			bool progress;

			round->route = PCOMPACT_ROUTE_KERNEL;
			if (READ_ONCE(pcompact_drain_before_call)) {
				pcompact_engine_drain_first(round);
				/*
				 * The drain alone may have got there: the round
				 * keeps its route and calls nothing, and the
				 * node's last kernel call stays the one it knows.
				 */
				if (pcompact_node_at_target(pcompact_score_node(round->nid,
										round->order),
							    round->low))
					return;
			}
			migrated_before = round->pages_migrated;
			progress = pcompact_engine_node_sysfs(round);

			/* A round out of room called nothing: no news of the kernel's. */
			if (!round->out_of_room)
				pn->kernel_fruitless = !progress &&
					round->pages_migrated - migrated_before <
					PCOMPACT_FRUITLESS_PAGES;
			if (progress)
				return;
			round->route = PCOMPACT_ROUTE_KERNEL_THEN_CONTIG;
		}
		round->max_used = pageblock_nr_pages / 2;
	}
	units = kmalloc_array(PCOMPACT_WINDOW_UNITS, sizeof(*units), GFP_KERNEL);
	if (!units)
		return;
	round->unevictable_ok = pcompact_unevictable_allowed();
	for (zid = MAX_NR_ZONES - 1; zid >= 0; zid--) {
		struct zone *zone = &pgdat->node_zones[zid];

		if (!populated_zone(zone) ||
		    !pcompact_weighted_score(pcompact_score_zone(zone, round->order),
					     zone->present_pages,
					     pgdat->node_present_pages))
			continue;
		if (pcompact_score_zone(zone, round->order) <= round->low)
			continue;
		pcompact_engine_contig_zone(round, zone, &pn->scan_cursor[zid], units);
		if (round->stop_reason != PCOMPACT_IDLE)
			break;
	}
	kfree(units);
}

/* What pcompact_block_free_state() found in a pageblock. */
enum pcompact_free_state {
	PCOMPACT_FREE_NOT,	/* something in use, or not a movable block of the zone */
	PCOMPACT_FREE_WHOLE,	/* within one free buddy of at least pageblock order */
	PCOMPACT_FREE_HELD,	/* every page free, some of them on per-CPU lists */
};

/*
 * Whether every page of the pageblock at @start is free, and whether they
 * are one buddy or some sit on per-CPU lists (6.1 and later keep free order-9
 * pages there too), where they count for neither the score nor an
 * allocation on another CPU until the lists are drained.  Lockless and
 * racy as pcompact_scan_block(), with *@free_end carried the same way, but
 * it stops at the first page in use, so a fragmented zone reads little of
 * each block.  A free page, on the buddy or per-CPU lists, is never compound,
 * slab or typed: those at refcount 0 are in use (7.3's slab pages, a free
 * hugetlb page in its pool), and alloc_contig_range() would fail on them
 * or dissolve them.
 */
static int pcompact_block_free_state(struct zone *zone, unsigned long start,
				     unsigned long *free_end)
{
	unsigned long end = start + pageblock_nr_pages;
	struct page *first = pfn_to_online_page(start);
	struct page *last = pfn_to_online_page(end - 1);
	unsigned long pfn, order;

	if (!first || !last || page_zone(first) != zone || page_zone(last) != zone)
		return PCOMPACT_FREE_NOT;
	/* Buddies are aligned to their order: one of a block or more starts at one. */
	if (*free_end >= end)
		return PCOMPACT_FREE_WHOLE;
	for (pfn = start; pfn < end;) {
		struct page *page = pfn_to_page(pfn);

		if (PageBuddy(page)) {
			order = pcompact_buddy_order(page, pfn);
			if (pfn == start && order >= pageblock_order) {
				*free_end = pfn + (1UL << order);
				return PCOMPACT_FREE_WHOLE;
			}
			pfn += 1UL << order;
			continue;
		}
		if (PageCompound(page) || PageSlab(page) || page_has_type(page) ||
		    page_count(page))
			return PCOMPACT_FREE_NOT;
		pfn++;
	}
	if (pcompact_pageblock_migratetype(start) != MIGRATE_MOVABLE)
		return PCOMPACT_FREE_NOT;
	return PCOMPACT_FREE_HELD;
}

/*
 * The first held pageblock of @zone (pcompact_block_free_state()), or with
 * @whole_too the first held or whole movable one, or 0.  A whole block of
 * another migratetype is left alone: the drain through it would give it back
 * movable up to 6.15 (alloc_contig_range()'s migratetype argument).
 */
static unsigned long pcompact_find_free_block(struct zone *zone, bool whole_too)
{
	unsigned long pfn = ALIGN(zone->zone_start_pfn, pageblock_nr_pages);
	unsigned long end = zone_end_pfn(zone), free_end = pfn;

	for (; pfn + pageblock_nr_pages <= end; pfn += pageblock_nr_pages) {
		int state = pcompact_block_free_state(zone, pfn, &free_end);

		if (state == PCOMPACT_FREE_HELD ||
		    (whole_too && state == PCOMPACT_FREE_WHOLE &&
		     pcompact_pageblock_migratetype(pfn) == MIGRATE_MOVABLE))
			return pfn;
		cond_resched();
	}
	return 0;
}

static unsigned long pcompact_find_held_block(struct zone *zone)
{
	return pcompact_find_free_block(zone, false);
}

static unsigned long pcompact_find_free_or_held_block(struct zone *zone)
{
	return pcompact_find_free_block(zone, true);
}

/*
 * Drain @zone's per-CPU lists on every CPU through the free or held block at
 * @pfn: alloc_contig_range() drains them once the block is isolated, and
 * nothing in it moves.  The block goes back with its pair partner as one
 * order-10 page where the partner is free too; alone, in two halves
 * (PCOMPACT_LONE_BLOCK_ORDER), so that neither sits on a per-CPU list.
 * Returns alloc_contig_range()'s error.
 */
static int pcompact_flush_zone(struct zone *zone, unsigned long pfn)
{
	unsigned long pair = ALIGN_DOWN(pfn, PCOMPACT_PAIR_PAGES);
	unsigned long partner = pair == pfn ? pfn + pageblock_nr_pages : pair;
	unsigned long free_end = partner;
	int err;

	if (pcompact_block_free_state(zone, partner, &free_end) != PCOMPACT_FREE_NOT &&
	    pcompact_pageblock_migratetype(partner) == MIGRATE_MOVABLE) {
		err = pcompact_contig_take(pair, pair + PCOMPACT_PAIR_PAGES);
		if (!err) {
			pcompact_give_range(pair, PCOMPACT_PAIR_PAGES, PCOMPACT_UNIT_MAX_ORDER);
			return 0;
		}
	}
	err = pcompact_contig_take(pfn, pfn + pageblock_nr_pages);
	if (!err)
		pcompact_give_range(pfn, pageblock_nr_pages, PCOMPACT_LONE_BLOCK_ORDER);
	return err;
}

/**
 * pcompact_engine_flush_pcp() - merge the pageblocks per-CPU lists hold back.
 * @round:	the round that just ended; pcp_flushes, pcp_flush_blocks
 *		and blocks_freed are added to.  Nothing is done after a round
 *		that backed off or spent its quota, or while pcompact stops.
 *
 * A page the kernel's compaction migrates frees its source to the
 * compacting CPU's per-CPU list, so the last blocks a round empties are
 * free but for pages the score does not see, and nor does an allocation on
 * another CPU.  Nothing drains those lists soon: 6.12 decays them over
 * seconds down to thousands of pages per CPU (about 15 K per node at the
 * streams' start in the 6.12 sweep), and otherwise a direct reclaim does,
 * after a stall.  For each zone with such a block, one alloc_contig_range()
 * call on it (pcompact_flush_zone()) drains the zone's lists on every CPU,
 * and the other such blocks merge as the drain frees their pages.  The gain
 * is the node's free pageblocks after against before, net of whatever else
 * allocated or freed meanwhile.
 */
void pcompact_engine_flush_pcp(struct pcompact_round *round)
{
	pg_data_t *pgdat = NODE_DATA(round->nid);
	unsigned long before, after, flushes = 0;
	int zid;

	/* Not after a back-off or a spent quota: the drain costs every CPU a little. */
	if (round->stop_reason != PCOMPACT_IDLE || READ_ONCE(*round->stopping) ||
	    pcompact_must_stop(round, ktime_get_ns()))
		return;
	before = pcompact_free_blocks_node(round->nid, pageblock_order);
	for (zid = MAX_NR_ZONES - 1; zid >= 0; zid--) {
		struct zone *zone = &pgdat->node_zones[zid];
		unsigned long pfn;

		if (!populated_zone(zone) || pcompact_headroom_blocks(zone) < 2)
			continue;
		pfn = pcompact_find_held_block(zone);
		if (pfn && !pcompact_flush_zone(zone, pfn))
			flushes++;
	}
	if (!flushes)
		return;
	round->pcp_flushes += flushes;
	after = pcompact_free_blocks_node(round->nid, pageblock_order);
	if (after > before) {
		round->pcp_flush_blocks += after - before;
		round->blocks_freed += after - before;
	}
}

/*
 * The first movable pageblock of the zone with at most half its pages in
 * use, with *@in_use set to their number, or 0 when there is none or the
 * round must stop: one the contig engine would empty too.
 */
static unsigned long pcompact_find_cheap_block(const struct pcompact_scan *scan,
					       struct pcompact_round *round,
					       unsigned int *in_use)
{
	struct zone *zone = scan->zone;
	unsigned long pfn = ALIGN(zone->zone_start_pfn, pageblock_nr_pages);
	unsigned long end = zone_end_pfn(zone), free_end = pfn;

	for (; pfn + pageblock_nr_pages <= end; pfn += pageblock_nr_pages) {
		round->scanned_blocks++;
		if (pcompact_scan_block(scan, pfn, &free_end, in_use) == PCOMPACT_BLOCK_MOVABLE &&
		    *in_use <= pageblock_nr_pages / 2)
			return pfn;
		if (pcompact_must_stop(round, ktime_get_ns()))
			return 0;
		cond_resched();
	}
	return 0;
}

/*
 * Empty the pageblock at @pfn, @in_use pages in use, so that its
 * alloc_contig_range() call drains the zone's per-CPU lists, and give it
 * back in two halves (PCOMPACT_LONE_BLOCK_ORDER).  Returns the call's error.
 */
static int pcompact_drain_through_block(struct pcompact_round *round, unsigned long pfn,
					unsigned int in_use)
{
	int err = pcompact_take_traced(round->nid, pfn, 1, in_use);

	if (err)
		return err;
	pcompact_give_range(pfn, pageblock_nr_pages, PCOMPACT_LONE_BLOCK_ORDER);
	round->pages_migrated += in_use;
	return 0;
}

/*
 * Free pages on @zone's per-CPU lists, summed over the online CPUs without
 * their locks: a guess that only decides whether a drain is worth its cost
 * (the drain itself takes the locks), and a CPU going offline has its lists
 * drained by the kernel.
 */
static unsigned long pcompact_zone_pcp_pages(struct zone *zone)
{
	unsigned long pages = 0;
	int cpu;

	for_each_online_cpu(cpu)
		pages += max(READ_ONCE(per_cpu_ptr(zone->per_cpu_pageset, cpu)->count), 0);
	return pages;
}

/*
 * Before a call of the kernel's compaction (drain_before_call): its free
 * scanner takes targets from the buddy lists only, so free pages parked on
 * per-CPU lists (frag's frees, the sources of earlier migrations) count
 * neither as targets nor toward the blocks it empties, and its scanners meet
 * early.  Each zone whose lists hold a pageblock's worth or more, and that
 * has room for two blocks, is drained by one alloc_contig_range() call,
 * which drains every CPU's lists of the zone once its range is isolated: on
 * a free or held movable block, which moves nothing (pcompact_flush_zone()),
 * or where the zone has none (a fragmented node often has not), on the first
 * block at most half in use, which it empties as the contig engine would.
 * Only the blocks the node gained over the calls themselves count, and
 * none in order_blocks_emptied: the kernel's call alone decides whether the
 * round made progress (pcompact_round_defers()).
 */
static void pcompact_engine_drain_first(struct pcompact_round *round)
{
	pg_data_t *pgdat = NODE_DATA(round->nid);
	int unevictable_ok = -1;
	int zid;

	for (zid = MAX_NR_ZONES - 1; zid >= 0; zid--) {
		struct zone *zone = &pgdat->node_zones[zid];
		struct pcompact_scan scan = { .zone = zone, .run_max_pairs = 1 };
		unsigned long pfn, before, after;
		unsigned int in_use = 0;
		u64 start;
		int err;

		if (READ_ONCE(*round->stopping) || pcompact_must_stop(round, ktime_get_ns()))
			return;
		if (!populated_zone(zone) || pcompact_headroom_blocks(zone) < 2 ||
		    pcompact_zone_pcp_pages(zone) < pageblock_nr_pages)
			continue;
		start = ktime_get_ns();
		pfn = pcompact_find_free_or_held_block(zone);
		if (!pfn) {
			/* Read once per round, and only when a block may have to move. */
			if (unevictable_ok < 0)
				unevictable_ok = pcompact_unevictable_allowed();
			scan.unevictable_ok = unevictable_ok;
			pfn = pcompact_find_cheap_block(&scan, round, &in_use);
		}
		round->scan_ns += ktime_get_ns() - start;
		if (!pfn)
			continue;
		before = pcompact_free_blocks_node(round->nid, pageblock_order);
		err = in_use ? pcompact_drain_through_block(round, pfn, in_use) :
			       pcompact_flush_zone(zone, pfn);
		/*
		 * Counted whether or not the block was taken: the call drains
		 * once the block is isolated, and a page another CPU allocated
		 * from its list before the drain reached it fails the call
		 * after that (7.3.4, test 71: a drain traced, none counted).
		 */
		round->call_drains++;
		if (err) {
			round->call_drain_failures++;
			continue;
		}
		after = pcompact_free_blocks_node(round->nid, pageblock_order);
		if (after > before) {
			round->call_drain_blocks += after - before;
			round->blocks_freed += after - before;
		}
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
