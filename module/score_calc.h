/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pcompact score arithmetic: pure functions, no kernel state, shared by the
 * module and the userspace unit test (tests/unit/test_score.c).
 */
#ifndef PCOMPACT_SCORE_CALC_H
#define PCOMPACT_SCORE_CALC_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
typedef unsigned long long u64;
#endif

/* The score thresholds in force, and where they came from. */
struct pcompact_wmarks {
	unsigned int low;
	unsigned int high;
};

/**
 * struct pcompact_demand - how fast a node consumes free blocks.
 * @last_ns:		time of the last sample, 0 before the first.
 * @last_free:		free blocks of the order that matters then.
 * @last_freed:		the engine's count of blocks it freed then.
 * @order:		the order those blocks were counted in.
 * @rate_mbps:		consumption in thousandths of a block per second,
 *			averaged over about PCOMPACT_DEMAND_TAU_NS.
 */
struct pcompact_demand {
	u64 last_ns;
	unsigned long last_free;
	unsigned long last_freed;
	unsigned int order;
	u64 rate_mbps;
};

/*
 * The demand rate's time constant: a second, as the sampling interval's
 * default is half of one and bursts of allocations last about that long.
 */
#define PCOMPACT_DEMAND_TAU_NS 1000000000ULL

/*
 * Blocks one sample may count as consumed: enough for any node between two
 * samples, and small enough that the rate's arithmetic stays within u64
 * (consumed x 10^12 plus the previous rate x PCOMPACT_DEMAND_TAU_NS).
 */
#define PCOMPACT_DEMAND_MAX_BLOCKS 4194304ULL	/* 2^22 */

/*
 * Fruitless rounds in a row that may work until the headroom stops them and
 * still be spared a deferral: enough for a stream of huge page allocations
 * (the call's work goes to the stream, so the score need not fall) to be
 * served for a few intervals, few enough that a node held at its headroom
 * does not run compaction into it every interval for nothing.
 */
#define PCOMPACT_ROOM_SPARES 4

void pcompact_demand_sample(struct pcompact_demand *demand, u64 now_ns,
			    unsigned int order, unsigned long free_blocks,
			    unsigned long freed);
unsigned long pcompact_reserve_blocks(const struct pcompact_demand *demand,
				      unsigned int reserve_ms);
unsigned int pcompact_extfrag(const unsigned long *nr_free,
			      unsigned int nr_orders, unsigned int order);
unsigned int pcompact_weighted_score(unsigned int zone_score,
				     unsigned long zone_present,
				     unsigned long node_present);
bool pcompact_node_at_target(unsigned int node_score, unsigned int low);
unsigned long pcompact_blocks_to_target(const unsigned long *nr_free,
					unsigned int nr_orders, unsigned int order,
					unsigned int low);
bool pcompact_round_fruitless(unsigned int score_before, unsigned int score_after,
			      unsigned long blocks_emptied, bool exhausted, bool fed_stalls);
bool pcompact_round_defers(unsigned int score_before, unsigned int score_after,
			   unsigned long blocks_emptied, bool exhausted, bool fed_stalls,
			   bool out_of_room, bool worked, unsigned int *room_spared);
int pcompact_wmarks_resolve(unsigned int proactiveness, int wmark_low,
			    int wmark_high, struct pcompact_wmarks *out);

#endif /* PCOMPACT_SCORE_CALC_H */
