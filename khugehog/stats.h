/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats.h - latency statistics for khugehog (kernel module and userspace tests)
 *
 * Pure integer code: no floating point, no allocation, no kernel services,
 * so the same stats.c builds into khugehog.ko and into tests/unit/test_stats.
 */
#ifndef KHUGEHOG_STATS_H
#define KHUGEHOG_STATS_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/math64.h>
#else
#include <stddef.h>

/* the kernel's definitions on every Linux ABI */
typedef unsigned long long u64;
typedef unsigned int u32;

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}
#endif /* __KERNEL__ */

/**
 * struct khh_pct - one reported percentile
 * @bp: the percentile in basis points (hundredths of a percent): 9990 = 99.9
 * @name: the percentile as printed in key names ("99.9" for p99.9_us)
 */
struct khh_pct {
	u32 bp;
	const char *name;
};

/* The percentiles of the seed tables, plus 99 and 99.9. */
#define KHH_NR_PCT 13
extern const struct khh_pct khh_pcts[KHH_NR_PCT];

/**
 * struct khh_stats - summary of a set of latencies (all values in ns)
 * @n: number of samples
 * @min: smallest sample
 * @max: largest sample
 * @mean: mean, rounded down
 * @mean_rem: remainder of the mean: the exact mean is @mean + @mean_rem / @n
 * @stddev: population standard deviation, rounded down (see khh_stats_compute())
 * @pct: nearest-rank percentiles, in the order of khh_pcts[]
 *
 * All fields are 0 when @n is 0.
 */
struct khh_stats {
	u64 n;
	u64 min;
	u64 max;
	u64 mean;
	u64 mean_rem;
	u64 stddev;
	u64 pct[KHH_NR_PCT];
};

/*
 * The long loops call the caller's relax function (khugehog: cond_resched())
 * at least once every KHH_RELAX_EVERY steps, a step being one heap sift or
 * one sample of a linear pass, so a large sample set never holds the CPU
 * for long.  A power of two.
 */
#define KHH_RELAX_EVERY 1024

/* Called between steps, where the caller may sleep; may be NULL. */
typedef void (*khh_relax_fn)(void);

void khh_sort_u64(u64 *v, size_t n, khh_relax_fn relax);
u64 khh_percentile(const u64 *sorted, size_t n, u32 bp);
void khh_mean(const u64 *v, size_t n, u64 *mean, u64 *rem);
u64 khh_stddev(const u64 *v, size_t n);
u64 khh_isqrt128(u64 hi, u64 lo);
void khh_stats_compute(u64 *v, size_t n, struct khh_stats *st,
		       khh_relax_fn relax);
u64 khh_ns_to_tenths(u64 ns);

#endif /* KHUGEHOG_STATS_H */
