// SPDX-License-Identifier: GPL-2.0
/*
 * pcompact score arithmetic: external fragmentation, zone weighting and the
 * low/high thresholds, with no kernel state so userspace can test it.
 */
#ifdef __KERNEL__
#include <linux/errno.h>
#include <linux/math64.h>
#else
#include <errno.h>
#define div64_u64(a, b) ((a) / (b))
#endif

#include "score_calc.h"

/**
 * pcompact_extfrag() - external fragmentation of a zone for an order.
 * @nr_free:	free block counts per buddy order (zone->free_area[o].nr_free).
 * @nr_orders:	number of entries in @nr_free.
 * @order:	the order that matters (9: a 2 MB huge page on x86).
 *
 * The share of free pages that sit in blocks smaller than @order, in percent:
 * (free - free in blocks of at least @order) / free * 100, and 0 when nothing
 * is free.  The kernel's extfrag_for_order() and debugfs unusable_index
 * compute the same figure (the latter in thousandths).
 *
 * Return: the score, 0..100.
 */
unsigned int pcompact_extfrag(const unsigned long *nr_free,
			      unsigned int nr_orders, unsigned int order)
{
	u64 free_pages = 0, suitable_blocks = 0;
	unsigned int o;

	for (o = 0; o < nr_orders; o++) {
		free_pages += (u64)nr_free[o] << o;
		if (o >= order)
			suitable_blocks += (u64)nr_free[o] << (o - order);
	}
	if (!free_pages)
		return 0;
	return (unsigned int)div64_u64((free_pages - (suitable_blocks << order)) * 100,
				       free_pages);
}

/**
 * pcompact_blocks_to_target() - how many blocks of @order a zone must gain
 * to bring its score down to @low.
 * @nr_free:	free block counts per buddy order.
 * @nr_orders:	number of entries in @nr_free.
 * @order:	the order that matters.
 * @low:	the target score, 0..100.
 *
 * Emptying a block turns pages in use into free pages of a large block, but
 * the pages it held move into small free holes elsewhere: the total free
 * count stays the same, and each block moves 2^@order pages from "unusable"
 * to "usable".  So the deficit is the usable share the target asks for
 * minus what is usable now, in blocks, rounded up.
 *
 * Return: the number of blocks, 0 when the zone is already at or below @low.
 */
unsigned long pcompact_blocks_to_target(const unsigned long *nr_free,
					unsigned int nr_orders, unsigned int order,
					unsigned int low)
{
	u64 free_pages = 0, usable = 0, wanted;
	unsigned int o;

	for (o = 0; o < nr_orders; o++) {
		free_pages += (u64)nr_free[o] << o;
		if (o >= order)
			usable += (u64)nr_free[o] << o;
	}
	if (low > 100)
		low = 100;
	/* extfrag <= low  <=>  usable >= free * (100 - low) / 100 */
	wanted = free_pages * (100 - low);
	if (usable * 100 >= wanted)
		return 0;
	return (unsigned long)div64_u64(wanted - usable * 100 + (100ULL << order) - 1,
					100ULL << order);
}

/**
 * pcompact_weighted_score() - a zone's share of its node's score.
 * @zone_score:		the zone's unweighted score, 0..100.
 * @zone_present:	pages present in the zone.
 * @node_present:	pages present in the node.
 *
 * Weighting by size keeps small zones (DMA, DMA32 on a big node) from
 * triggering compaction by themselves: their score tends to 0.  The +1
 * matches upstream's fragmentation_score_zone_weighted().
 *
 * Return: the weighted score, 0..100.
 */
unsigned int pcompact_weighted_score(unsigned int zone_score,
				     unsigned long zone_present,
				     unsigned long node_present)
{
	return (unsigned int)div64_u64((u64)zone_present * zone_score,
				       (u64)node_present + 1);
}

/**
 * pcompact_node_at_target() - whether a node's round has reached its target.
 * @node_score:	the node's score (weighted, as pcompact_weighted_score()).
 * @low:	the low threshold.
 *
 * The kernel's proactive compaction ends each zone once the zone's own score
 * is at or below the low threshold (__compact_finished() from 6.1 to 7.3).
 * The node's score weighs a zone of N pages by N / (N + 1) and truncates, so
 * on a node of one zone it is the zone's minus one: the zone is at or below
 * @low exactly when the node is below it.  On a node of several zones the
 * same test ends near the kernel's stop without waiting for a small zone
 * that cannot get there (engine=node-sysfs compacts them all in one call, so
 * zone by zone is not to be had).
 *
 * Return: true once the node's score is below @low, or is 0.
 */
bool pcompact_node_at_target(unsigned int node_score, unsigned int low)
{
	return node_score < low || !node_score;
}

/**
 * pcompact_wmarks_resolve() - the thresholds in force.
 * @proactiveness:	0..100, as vm.compaction_proactiveness.
 * @wmark_low:		explicit low threshold 0..100, or -1 to derive it.
 * @wmark_high:		explicit high threshold 0..100, or -1 to derive it.
 * @out:		the resolved thresholds.
 *
 * Derived as in seed 000: low = 100 - proactiveness, high = min(low + 10,
 * 100), where low is the explicit one when given.  Unlike upstream 6.1/6.12,
 * low is not floored at 5, so proactiveness 100 really asks for a score of 0.
 *
 * Return: 0, or -EINVAL when an explicit value is out of range or the
 * result has low above high.
 */
int pcompact_wmarks_resolve(unsigned int proactiveness, int wmark_low,
			    int wmark_high, struct pcompact_wmarks *out)
{
	unsigned int low, high;

	if (proactiveness > 100 || wmark_low < -1 || wmark_low > 100 ||
	    wmark_high < -1 || wmark_high > 100)
		return -EINVAL;
	low = wmark_low >= 0 ? (unsigned int)wmark_low : 100 - proactiveness;
	if (wmark_high >= 0)
		high = (unsigned int)wmark_high;
	else
		high = low + 10 < 100 ? low + 10 : 100;
	if (low > high)
		return -EINVAL;
	out->low = low;
	out->high = high;
	return 0;
}

/**
 * pcompact_demand_sample() - account one sample of a node's free blocks.
 * @demand:		the node's demand state.
 * @now_ns:		monotonic time of the sample.
 * @order:		the order the blocks are counted in (the order parameter).
 * @free_blocks:	free blocks of @order, now.
 * @freed:		the engine's running count of blocks it freed, in @order.
 *
 * What was consumed since the last sample is what was free then, plus what
 * the engine freed since, minus what is free now (never below 0: frees by
 * others only hide demand).  The rate is a time-weighted average with
 * constant PCOMPACT_DEMAND_TAU_NS, so it depends little on how often the
 * node is sampled: one second of steady demand brings it to between half
 * and two thirds of that demand's rate, and it decays the same way.
 */
void pcompact_demand_sample(struct pcompact_demand *demand, u64 now_ns,
			    unsigned int order, unsigned long free_blocks,
			    unsigned long freed)
{
	u64 had, consumed, dt;

	/*
	 * Blocks of another order are another unit: the counts of the last
	 * sample and the rate mean nothing in it, so start again.
	 */
	if (demand->last_ns && order != demand->order) {
		demand->last_ns = 0;
		demand->rate_mbps = 0;
	}
	/* Same instant: keep the baseline, the next sample counts it all. */
	if (demand->last_ns && now_ns <= demand->last_ns)
		return;
	if (demand->last_ns) {
		dt = now_ns - demand->last_ns;
		had = (u64)demand->last_free + (freed - demand->last_freed);
		consumed = had > free_blocks ? had - free_blocks : 0;
		if (consumed > PCOMPACT_DEMAND_MAX_BLOCKS)
			consumed = PCOMPACT_DEMAND_MAX_BLOCKS;
		/* rate += (consumed / dt - rate) * dt / (dt + tau), in mbps */
		demand->rate_mbps = div64_u64(demand->rate_mbps * PCOMPACT_DEMAND_TAU_NS +
					      consumed * 1000 * 1000000000ULL,
					      PCOMPACT_DEMAND_TAU_NS + dt);
	}
	demand->last_ns = now_ns;
	demand->last_free = free_blocks;
	demand->last_freed = freed;
	demand->order = order;
}

/**
 * pcompact_reserve_blocks() - the free blocks to keep for a node's demand.
 * @demand:	the node's demand state.
 * @reserve_ms:	how long the reserve should last at the current rate.
 *
 * Return: rate x @reserve_ms in blocks, rounded up; 0 when @reserve_ms is
 * 0 or there is no demand.
 */
unsigned long pcompact_reserve_blocks(const struct pcompact_demand *demand,
				      unsigned int reserve_ms)
{
	return (unsigned long)div64_u64(demand->rate_mbps * reserve_ms + 999999, 1000000);
}

/**
 * pcompact_round_fruitless() - whether a round earns a deferral.
 * @score_before:	the node's score when the round started.
 * @score_after:	its score when the round ended.
 * @blocks_emptied:	free blocks of the score's order the round made by its
 *			own count (the contig engine's); 0 for the kernel's
 *			call, whose free count is net of every other free and
 *			allocation on the node, so only its score can tell.
 * @exhausted:		the round read a zone in full and it still fell short
 *			of its target: nothing more there that it may empty.
 * @fed_stalls:		the round's call of the kernel's compaction migrated
 *			pages while allocations stalled in direct compaction
 *			(progress_when_stalled): what it freed, they took.
 *
 * Upstream defers proactive compaction whenever the score did not fall.
 * While allocations take blocks as fast as a round frees them (a stream
 * of huge page allocations) the score does not fall either, yet the round
 * is what those allocations got their blocks from; deferring then leaves
 * the node without compaction for the rest of the stream.  So a round
 * that emptied blocks is not fruitless, whatever the score did.  A round
 * with nothing left to empty is, even if it emptied some on its way.  The
 * kernel's call has no count of blocks emptied; with @fed_stalls, pages it
 * migrated while allocations stalled stand for one.
 *
 * Return: true if the round made no progress.
 */
bool pcompact_round_fruitless(unsigned int score_before, unsigned int score_after,
			      unsigned long blocks_emptied, bool exhausted, bool fed_stalls)
{
	if (exhausted)
		return true;
	return score_after >= score_before && !blocks_emptied && !fed_stalls;
}

/**
 * pcompact_round_defers() - whether a finished round defers the node.
 * @score_before:	as pcompact_round_fruitless().
 * @score_after:	as pcompact_round_fruitless().
 * @blocks_emptied:	as pcompact_round_fruitless().
 * @exhausted:		as pcompact_round_fruitless().
 * @fed_stalls:		as pcompact_round_fruitless().
 * @out_of_room:	the round stopped, or did nothing, because the node's
 *			free memory was within pcompact's headroom.
 * @worked:		the round did work before that: called the kernel's
 *			compaction or tried to empty a block.
 * @room_spared:	the node's count of fruitless rounds in a row spared
 *			for the headroom after they worked; updated.
 *
 * A fruitless round defers, unless the headroom stopped it: it lacked free
 * memory to compact with, not blocks it could empty, and memory comes back
 * as soon as the allocations that took it end or reclaim frees some, so the
 * next sample looks again, as after a back-off from kswapd.  One that found
 * no room before doing anything cost one look at the free counts and is
 * spared every time; one that worked until the headroom stopped it, only
 * PCOMPACT_ROOM_SPARES times in a row, so that a node held at its headroom
 * does not run compaction into it every interval for nothing.  Nothing
 * spares a round with nothing left to empty.
 *
 * Return: true if the node should defer its next round.
 */
bool pcompact_round_defers(unsigned int score_before, unsigned int score_after,
			   unsigned long blocks_emptied, bool exhausted, bool fed_stalls,
			   bool out_of_room, bool worked, unsigned int *room_spared)
{
	if (!pcompact_round_fruitless(score_before, score_after, blocks_emptied, exhausted,
				      fed_stalls)) {
		*room_spared = 0;
		return false;
	}
	if (!exhausted && out_of_room && !worked)
		return false;
	if (!exhausted && out_of_room && *room_spared < PCOMPACT_ROOM_SPARES) {
		(*room_spared)++;
		return false;
	}
	*room_spared = 0;
	return true;
}
