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

unsigned int pcompact_extfrag(const unsigned long *nr_free,
			      unsigned int nr_orders, unsigned int order);
unsigned int pcompact_weighted_score(unsigned int zone_score,
				     unsigned long zone_present,
				     unsigned long node_present);
unsigned long pcompact_blocks_to_target(const unsigned long *nr_free,
					unsigned int nr_orders, unsigned int order,
					unsigned int low);
int pcompact_wmarks_resolve(unsigned int proactiveness, int wmark_low,
			    int wmark_high, struct pcompact_wmarks *out);

#endif /* PCOMPACT_SCORE_CALC_H */
