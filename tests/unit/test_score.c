// SPDX-License-Identifier: GPL-2.0
// UNIT-SOURCES: module/score_calc.c
/*
 * Unit tests of pcompact's score arithmetic (module/score_calc.c).
 */
#include <errno.h>
#include <string.h>

#include "ktap.h"
#include "module/score_calc.h"

#define NR_ORDERS 11

static void test_extfrag(void)
{
	unsigned long nr_free[NR_ORDERS];

	memset(nr_free, 0, sizeof(nr_free));
	ksft_test_result(pcompact_extfrag(nr_free, NR_ORDERS, 9) == 0,
			 "extfrag is 0 when nothing is free");

	/* 512 free order-0 pages, nothing larger: all unusable for order 9. */
	nr_free[0] = 512;
	ksft_test_result(pcompact_extfrag(nr_free, NR_ORDERS, 9) == 100,
			 "extfrag is 100 with only order-0 pages free");

	/* One order-9 block and 512 order-0 pages: half unusable. */
	nr_free[9] = 1;
	ksft_test_result(pcompact_extfrag(nr_free, NR_ORDERS, 9) == 50,
			 "extfrag is 50 with half the free memory in an order-9 block");

	/* An order-10 block counts as two order-9 blocks: 1024 of 1536 usable. */
	nr_free[9] = 0;
	nr_free[10] = 1;
	ksft_test_result(pcompact_extfrag(nr_free, NR_ORDERS, 9) == 33,
			 "extfrag counts order-10 blocks as usable, truncating 33.3 to 33");

	memset(nr_free, 0, sizeof(nr_free));
	nr_free[10] = 7;
	ksft_test_result(pcompact_extfrag(nr_free, NR_ORDERS, 9) == 0,
			 "extfrag is 0 when every free page is in a large block");

	/* Mixed orders below the target all count as unusable. */
	memset(nr_free, 0, sizeof(nr_free));
	nr_free[1] = 10;	/* 20 pages */
	nr_free[3] = 10;	/* 80 pages */
	nr_free[4] = 25;	/* 400 pages */
	ksft_test_result(pcompact_extfrag(nr_free, NR_ORDERS, 4) == 20,
			 "extfrag at order 4: 100 of 500 pages unusable is 20");

	/* Counts as large as a multi-terabyte zone do not overflow. */
	memset(nr_free, 0, sizeof(nr_free));
	nr_free[0] = 1UL << 32;
	nr_free[10] = 1UL << 24;
	/* 2^32 order-0 pages against 2^34 pages in order-10 blocks: 20%. */
	ksft_test_result(pcompact_extfrag(nr_free, NR_ORDERS, 9) == 20,
			 "extfrag without overflow on 16 TiB-class counts");
}

static void test_weighted(void)
{
	ksft_test_result(pcompact_weighted_score(100, 4000, 1000000) == 0,
			 "a tiny zone's score weighs nothing");
	ksft_test_result(pcompact_weighted_score(90, 999999, 1000000) == 89,
			 "the big zone's score carries the node (upstream's +1 rounding)");
	ksft_test_result(pcompact_weighted_score(80, 262144, 262144) == 79,
			 "a one-zone node scores its zone, minus upstream's +1");
	ksft_test_result(pcompact_weighted_score(100, 1UL << 40, 1UL << 40) == 99,
			 "weighting without overflow on huge zones");
}

static void test_node_at_target(void)
{
	ksft_test_result(!pcompact_node_at_target(pcompact_weighted_score(81, 262144, 262144), 80),
			 "at_target: a one-zone node goes on while its zone is at 81 (node 80)");
	ksft_test_result(pcompact_node_at_target(pcompact_weighted_score(80, 262144, 262144), 80),
			 "at_target: and stops with its zone at 80, as the kernel's zone");
	ksft_test_result(pcompact_node_at_target(0, 0) && !pcompact_node_at_target(1, 0),
			 "at_target: a low threshold of 0 is reached at 0");
}

static void test_blocks_to_target(void)
{
	unsigned long nr_free[NR_ORDERS];

	memset(nr_free, 0, sizeof(nr_free));
	nr_free[0] = 10240;	/* 20 blocks' worth, all in holes: score 100 */
	ksft_test_result(pcompact_blocks_to_target(nr_free, NR_ORDERS, 9, 80) == 4,
			 "blocks to target: 20%% of 20 blocks is 4");
	ksft_test_result(pcompact_blocks_to_target(nr_free, NR_ORDERS, 9, 81) == 4,
			 "blocks to target rounds up (19%% of 20 blocks is 3.8)");
	ksft_test_result(pcompact_blocks_to_target(nr_free, NR_ORDERS, 9, 100) == 0,
			 "blocks to target is 0 for a target of 100");
	nr_free[9] = 2;		/* now 22 blocks' worth, 2 usable: score 90 */
	ksft_test_result(pcompact_blocks_to_target(nr_free, NR_ORDERS, 9, 80) == 3,
			 "blocks to target counts what is already usable");
	ksft_test_result(pcompact_blocks_to_target(nr_free, NR_ORDERS, 9, 95) == 0,
			 "blocks to target is 0 when the score is already below");
	memset(nr_free, 0, sizeof(nr_free));
	ksft_test_result(pcompact_blocks_to_target(nr_free, NR_ORDERS, 9, 0) == 0,
			 "blocks to target is 0 with nothing free");
	nr_free[0] = 512;
	ksft_test_result(pcompact_blocks_to_target(nr_free, NR_ORDERS, 9, 0) == 1,
			 "blocks to target 0 asks for every free page in blocks");
}

static void test_wmarks(void)
{
	struct pcompact_wmarks w = { 0, 0 };

	ksft_test_result(!pcompact_wmarks_resolve(20, -1, -1, &w) &&
			 w.low == 80 && w.high == 90,
			 "proactiveness 20 gives low 80, high 90");
	ksft_test_result(!pcompact_wmarks_resolve(95, -1, -1, &w) &&
			 w.low == 5 && w.high == 15,
			 "proactiveness 95 gives low 5, high 15");
	ksft_test_result(!pcompact_wmarks_resolve(100, -1, -1, &w) &&
			 w.low == 0 && w.high == 10,
			 "proactiveness 100 gives low 0 (no floor of 5, unlike upstream)");
	ksft_test_result(!pcompact_wmarks_resolve(0, -1, -1, &w) &&
			 w.low == 100 && w.high == 100,
			 "proactiveness 0 gives low = high = 100: never triggers");
	ksft_test_result(!pcompact_wmarks_resolve(5, -1, -1, &w) &&
			 w.low == 95 && w.high == 100,
			 "high is capped at 100");
	ksft_test_result(!pcompact_wmarks_resolve(20, 50, -1, &w) &&
			 w.low == 50 && w.high == 60,
			 "explicit wmark_low moves the derived high with it");
	ksft_test_result(!pcompact_wmarks_resolve(20, 95, -1, &w) &&
			 w.low == 95 && w.high == 100,
			 "explicit wmark_low 95 gives high 100");
	ksft_test_result(!pcompact_wmarks_resolve(20, 40, 60, &w) &&
			 w.low == 40 && w.high == 60,
			 "explicit wmark_low and wmark_high override both");
	ksft_test_result(pcompact_wmarks_resolve(20, -1, 70, &w) == -EINVAL,
			 "wmark_high below the derived low is refused");
	ksft_test_result(pcompact_wmarks_resolve(20, 60, 40, &w) == -EINVAL,
			 "wmark_low above wmark_high is refused");
	ksft_test_result(pcompact_wmarks_resolve(101, -1, -1, &w) == -EINVAL,
			 "proactiveness 101 is refused");
	ksft_test_result(pcompact_wmarks_resolve(20, -2, -1, &w) == -EINVAL &&
			 pcompact_wmarks_resolve(20, -1, 101, &w) == -EINVAL,
			 "thresholds outside -1..100 are refused");
}

#define MS 1000000ULL

static void test_demand(void)
{
	struct pcompact_demand d;
	unsigned long freed = 0, free_blocks = 10000;
	u64 t = 5000 * MS;
	int i;

	memset(&d, 0, sizeof(d));
	pcompact_demand_sample(&d, t, 9, free_blocks, freed);
	ksft_test_result(d.rate_mbps == 0 && pcompact_reserve_blocks(&d, 5000) == 0,
			 "demand: the first sample has no rate and asks for no reserve");

	/* 50 blocks consumed in one second: half of 50/s after one tau. */
	t += 1000 * MS;
	free_blocks -= 50;
	pcompact_demand_sample(&d, t, 9, free_blocks, freed);
	ksft_test_result(d.rate_mbps == 25000,
			 "demand: 50 blocks in 1 s reads 25 blocks/s after one time constant (%llu mbps)",
			 d.rate_mbps);
	ksft_test_result(pcompact_reserve_blocks(&d, 2000) == 50 &&
			 pcompact_reserve_blocks(&d, 0) == 0 &&
			 pcompact_reserve_blocks(&d, 1) == 1,
			 "demand: the reserve is rate x reserve_ms, rounded up, 0 when off");

	/* Steady 50 blocks/s, sampled every 100 ms, converges to 50/s. */
	for (i = 0; i < 100; i++) {
		t += 100 * MS;
		free_blocks -= 5;
		pcompact_demand_sample(&d, t, 9, free_blocks, freed);
	}
	ksft_test_result(d.rate_mbps > 49000 && d.rate_mbps <= 50000,
			 "demand: steady 50 blocks/s sampled every 100 ms converges to it (%llu mbps)",
			 d.rate_mbps);

	/* The engine's own frees count as supply, not as lower demand. */
	t += 1000 * MS;
	freed += 200;
	free_blocks += 200 - 50;
	pcompact_demand_sample(&d, t, 9, free_blocks, freed);
	ksft_test_result(d.rate_mbps > 49000 && d.rate_mbps <= 50000,
			 "demand: 200 blocks freed by the engine do not mask 50 consumed (%llu mbps)",
			 d.rate_mbps);

	/* No consumption decays the rate; more free blocks never go negative. */
	t += 1000 * MS;
	free_blocks += 500;
	pcompact_demand_sample(&d, t, 9, free_blocks, freed);
	ksft_test_result(d.rate_mbps < 25100 && d.rate_mbps > 24000,
			 "demand: a second without demand halves the rate (%llu mbps)", d.rate_mbps);

	/* A sample at the same instant changes nothing: the next one counts
	 * the 10 blocks consumed since the last. */
	pcompact_demand_sample(&d, t, 9, free_blocks - 10, freed);
	ksft_test_result(d.rate_mbps < 25100 && d.last_free == free_blocks,
			 "demand: a sample at the same instant changes nothing");
	pcompact_demand_sample(&d, t + 1000 * MS, 9, free_blocks - 10, freed);
	ksft_test_result(d.rate_mbps > 12000 + 5000 - 100 && d.rate_mbps < 12600 + 5000,
			 "demand: the next sample counts what was consumed since the last (%llu mbps)",
			 d.rate_mbps);

	/*
	 * order= changed from 9 to 1: the engine's count in the new order is
	 * smaller than the last, which must not wrap into a huge demand.
	 */
	t += 2000 * MS;
	pcompact_demand_sample(&d, t, 1, free_blocks * 256, freed / 256);
	ksft_test_result(d.rate_mbps == 0 && d.order == 1,
			 "demand: a change of order starts the rate again (%llu mbps)", d.rate_mbps);
	t += 1000 * MS;
	pcompact_demand_sample(&d, t, 1, free_blocks * 256 - 512, freed / 256);
	ksft_test_result(d.rate_mbps == 256000,
			 "demand: then counts blocks of the new order (%llu mbps)", d.rate_mbps);

	/* A node consuming more than u64 arithmetic could hold is clamped. */
	memset(&d, 0, sizeof(d));
	pcompact_demand_sample(&d, t, 0, ~0UL, 0);
	pcompact_demand_sample(&d, t + 1, 0, 0, 0);
	ksft_test_result(d.rate_mbps > 0 &&
			 d.rate_mbps <= PCOMPACT_DEMAND_MAX_BLOCKS * 1000 * 1000000000ULL /
					PCOMPACT_DEMAND_TAU_NS,
			 "demand: a consumption beyond the clamp saturates, not wraps (%llu mbps)",
			 d.rate_mbps);
}

static void test_round_fruitless(void)
{
	unsigned int spared_fed = 0;

	ksft_test_result(pcompact_round_fruitless(95, 95, 0, false, false),
			 "round: no fall in score and nothing freed defers");
	ksft_test_result(pcompact_round_fruitless(95, 97, 0, false, false),
			 "round: a rising score with nothing freed defers");
	ksft_test_result(!pcompact_round_fruitless(95, 80, 0, false, false),
			 "round: a falling score does not defer");
	/* A stream took every block the round freed: the score did not fall. */
	ksft_test_result(!pcompact_round_fruitless(99, 99, 120, false, false),
			 "round: blocks freed and consumed at once do not defer");
	ksft_test_result(pcompact_round_fruitless(95, 90, 12, true, false),
			 "round: nothing left to empty defers even after some progress");
	/* The kernel's call migrated pages that stalled allocations took at once. */
	ksft_test_result(!pcompact_round_fruitless(99, 99, 0, false, true),
			 "round: a kernel call that fed stalled allocations does not defer");
	ksft_test_result(pcompact_round_fruitless(99, 99, 0, true, true),
			 "round: nothing left to empty defers even while feeding stalls");
	ksft_test_result(!pcompact_round_defers(99, 99, 0, false, true, false, true, &spared_fed),
			 "round: defers() does not defer a round that fed stalls");
}

static void test_round_defers(void)
{
	unsigned int spared = 0, i;
	bool deferred = false;

	/* No room before any work: spared every time, the count untouched. */
	for (i = 0; i < 20; i++)
		deferred |= pcompact_round_defers(99, 99, 0, false, false, true, false, &spared);
	ksft_test_result(!deferred && !spared,
			 "defers: a round with no room to start is never deferred (spared %u)",
			 spared);
	/* A stream took the node down to its headroom mid-round. */
	for (i = 0; i < PCOMPACT_ROOM_SPARES; i++)
		deferred |= pcompact_round_defers(99, 99, 0, false, false, true, true, &spared);
	ksft_test_result(!deferred && spared == PCOMPACT_ROOM_SPARES,
			 "defers: %u rounds that worked into the headroom are spared",
			 PCOMPACT_ROOM_SPARES);
	ksft_test_result(pcompact_round_defers(99, 99, 0, false, false, true, true, &spared) &&
			 !spared, "defers: the next one defers, and the count starts again");
	pcompact_round_defers(99, 99, 0, false, false, true, true, &spared);
	pcompact_round_defers(99, 90, 0, false, false, true, true, &spared);
	ksft_test_result(!spared, "defers: progress starts the count again");
	ksft_test_result(pcompact_round_defers(95, 95, 0, true, false, true, false, &spared),
			 "defers: nothing left to empty defers, room or not");
	ksft_test_result(pcompact_round_defers(95, 95, 0, false, false, false, true, &spared) &&
			 !pcompact_round_defers(95, 80, 0, false, false, false, true, &spared),
			 "defers: with room, as pcompact_round_fruitless()");
}

int main(void)
{
	ksft_print_header();
	ksft_set_plan(58);
	test_extfrag();
	test_weighted();
	test_node_at_target();
	test_blocks_to_target();
	test_wmarks();
	test_demand();
	test_round_fruitless();
	test_round_defers();
	return ksft_finished();
}
