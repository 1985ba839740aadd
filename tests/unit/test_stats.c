// SPDX-License-Identifier: GPL-2.0
/*
 * test_stats.c - unit test of khugehog's latency statistics (khugehog/stats.c)
 *
 * Checks the sort, the nearest-rank percentiles, the mean and the standard
 * deviation against hand-computed sets, against an independent reference
 * (qsort and long double) on pseudo-random data, and on values whose sums
 * and sums of squares overflow 64 bits.
 */
// UNIT-SOURCES: khugehog/stats.c

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ktap.h"
#include "khugehog/stats.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Deterministic xorshift64*, so a failure reproduces. */
static u64 rng_state = 0x9e3779b97f4a7c15ULL;

static u64 rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static void shuffle(u64 *v, size_t n)
{
	size_t i, j;
	u64 t;

	for (i = n; i > 1; i--) {
		j = rng() % i;
		t = v[i - 1];
		v[i - 1] = v[j];
		v[j] = t;
	}
}

/* No libm: the test links with nothing but stats.c. */
static long double abs_ld(long double x)
{
	return x < 0 ? -x : x;
}

static long double sqrt_ld(long double x)
{
	long double r = x > 1 ? x : 1;
	int i;

	for (i = 0; i < 200; i++)
		r = (r + x / r) / 2;
	return r;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Index of a percentile in khh_pcts[] by name, -1 if absent. */
static int pct_index(const char *name)
{
	int i;

	for (i = 0; i < KHH_NR_PCT; i++)
		if (!strcmp(khh_pcts[i].name, name))
			return i;
	return -1;
}

/* Compare one field; print it when it differs. */
static int check_field(const char *what, const char *field, u64 got, u64 exp)
{
	if (got == exp)
		return 1;
	ksft_print_msg("%s: %s = %llu, expected %llu\n", what, field, got, exp);
	return 0;
}

/*
 * Compare st against expected values; print what differs.  exp_pct lists
 * the 13 percentiles in khh_pcts[] order.
 */
static int check_stats(const char *what, const struct khh_stats *st, u64 n,
		       u64 min, u64 max, u64 mean, u64 mean_rem, u64 stddev,
		       const u64 *exp_pct)
{
	char name[16];
	int ok = 1, i;

	ok &= check_field(what, "n", st->n, n);
	ok &= check_field(what, "min", st->min, min);
	ok &= check_field(what, "max", st->max, max);
	ok &= check_field(what, "mean", st->mean, mean);
	ok &= check_field(what, "mean_rem", st->mean_rem, mean_rem);
	ok &= check_field(what, "stddev", st->stddev, stddev);
	for (i = 0; i < KHH_NR_PCT; i++) {
		snprintf(name, sizeof(name), "p%s", khh_pcts[i].name);
		ok &= check_field(what, name, st->pct[i], exp_pct[i]);
	}
	return ok;
}

static void test_pct_table(void)
{
	static const u32 bp[] = { 500, 1000, 2500, 3000, 4000, 5000, 6000,
				  7500, 8000, 9000, 9500, 9900, 9990 };
	char buf[16];
	int ok = ARRAY_SIZE(bp) == KHH_NR_PCT, i;

	for (i = 0; ok && i < KHH_NR_PCT; i++) {
		/* the name must be the basis points written as a percentage */
		if (bp[i] % 100)
			snprintf(buf, sizeof(buf), "%u.%u", bp[i] / 100, bp[i] % 100 / 10);
		else
			snprintf(buf, sizeof(buf), "%u", bp[i] / 100);
		if (khh_pcts[i].bp != bp[i] || strcmp(khh_pcts[i].name, buf)) {
			ksft_print_msg("khh_pcts[%d] = { %u, \"%s\" }, expected { %u, \"%s\" }\n",
				       i, khh_pcts[i].bp, khh_pcts[i].name, bp[i], buf);
			ok = 0;
		}
	}
	ksft_test_result(ok, "percentile table is 5 10 25 30 40 50 60 75 80 90 95 99 99.9");
}

/* 1..100 shuffled: percentile p is p itself; mean 50.5; sigma 28.87. */
static void test_one_to_hundred(void)
{
	static const u64 exp[KHH_NR_PCT] = { 5, 10, 25, 30, 40, 50, 60, 75,
					     80, 90, 95, 99, 100 };
	struct khh_stats st;
	u64 v[100];
	int i;

	for (i = 0; i < 100; i++)
		v[i] = i + 1;
	shuffle(v, 100);
	khh_stats_compute(v, 100, &st, NULL);
	ksft_test_result(check_stats("1..100", &st, 100, 1, 100, 50, 50, 28, exp),
			 "1..100: nearest-rank percentiles, mean 50.5, stddev 28");
}

static void test_single(void)
{
	u64 exp[KHH_NR_PCT], v[1] = { 1234567 };
	struct khh_stats st;
	int i;

	for (i = 0; i < KHH_NR_PCT; i++)
		exp[i] = 1234567;
	khh_stats_compute(v, 1, &st, NULL);
	ksft_test_result(check_stats("single", &st, 1, 1234567, 1234567, 1234567, 0, 0, exp),
			 "single value: every statistic is that value, stddev 0");
}

/* {20, 10}: rank ceil(p * 2 / 100) is 1 up to p50 and 2 above. */
static void test_two(void)
{
	static const u64 exp[KHH_NR_PCT] = { 10, 10, 10, 10, 10, 10, 20, 20,
					     20, 20, 20, 20, 20 };
	u64 v[2] = { 20, 10 };
	struct khh_stats st;

	khh_stats_compute(v, 2, &st, NULL);
	ksft_test_result(check_stats("two", &st, 2, 10, 20, 15, 0, 5, exp),
			 "two values: p50 is the lower, p60 the upper, mean 15, stddev 5");
}

static void test_all_equal(void)
{
	u64 exp[KHH_NR_PCT], v[1000];
	struct khh_stats st;
	int i;

	for (i = 0; i < 1000; i++)
		v[i] = 42;
	for (i = 0; i < KHH_NR_PCT; i++)
		exp[i] = 42;
	khh_stats_compute(v, 1000, &st, NULL);
	ksft_test_result(check_stats("all-equal", &st, 1000, 42, 42, 42, 0, 0, exp),
			 "1000 equal values: stddev 0, every percentile equal");
}

static void test_empty(void)
{
	static const u64 exp[KHH_NR_PCT];
	struct khh_stats st;
	u64 v[1] = { 99 };

	memset(&st, 0xff, sizeof(st));
	khh_stats_compute(v, 0, &st, NULL);
	ksft_test_result(check_stats("empty", &st, 0, 0, 0, 0, 0, 0, exp) &&
			 khh_percentile(v, 0, 5000) == 0,
			 "no samples: everything 0");
}

/* Rank boundaries: 99.9 of 1000 is rank 999, of 1001 rank 1000 (ceil). */
static void test_rank_rounding(void)
{
	u64 v[2001];
	int ok = 1, i;

	for (i = 0; i < 2001; i++)
		v[i] = i + 1;
	ok &= khh_percentile(v, 1000, 9990) == 999;
	ok &= khh_percentile(v, 1001, 9990) == 1000;	/* 999.999 -> 1000 */
	ok &= khh_percentile(v, 10, 9990) == 10;
	ok &= khh_percentile(v, 10, 500) == 1;		/* 0.5 -> 1 */
	ok &= khh_percentile(v, 20, 500) == 1;		/* exactly 1 */
	ok &= khh_percentile(v, 21, 500) == 2;		/* 1.05 -> 2 */
	ok &= khh_percentile(v, 2001, 5000) == 1001;	/* 1000.5 -> 1001 */
	ok &= khh_percentile(v, 2000, 5000) == 1000;
	ok &= khh_percentile(v, 7, 0) == 1;		/* rank clamped to 1 */
	ok &= khh_percentile(v, 7, 10000) == 7;
	ok &= khh_percentile(v, 7, 20000) == 7;		/* bp clamped */
	ksft_test_result(ok, "percentile rank is ceil(p * n / 100), clamped to 1..n");
}

/* Sorting: reverse, already sorted, duplicates, random; check against qsort. */
static void test_sort(void)
{
	static u64 v[5003], ref[5003];
	size_t sizes[] = { 0, 1, 2, 3, 7, 64, 1000, 5003 };
	int ok = 1, kind;
	size_t s, i, n;

	for (kind = 0; kind < 4; kind++) {
		for (s = 0; s < ARRAY_SIZE(sizes); s++) {
			n = sizes[s];
			for (i = 0; i < n; i++) {
				if (kind == 0)
					v[i] = n - i;		/* reverse */
				else if (kind == 1)
					v[i] = i;		/* sorted */
				else if (kind == 2)
					v[i] = rng() % 5;	/* duplicates */
				else
					v[i] = rng();
			}
			memcpy(ref, v, n * sizeof(*v));
			qsort(ref, n, sizeof(*ref), cmp_u64);
			khh_sort_u64(v, n, NULL);
			if (memcmp(ref, v, n * sizeof(*v))) {
				ksft_print_msg("sort differs from qsort: kind %d, n %zu\n",
					       kind, n);
				ok = 0;
			}
		}
	}
	ksft_test_result(ok, "heapsort matches qsort on reverse, sorted, duplicates, random");
}

/* Mean whose plain sum overflows u64. */
static void test_mean_overflow(void)
{
	u64 v[4] = { UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX - 1 };
	u64 m, r;
	int ok;

	khh_mean(v, 4, &m, &r);
	/* (4 * (2^64 - 1) - 1) / 4 = 2^64 - 2 remainder 3 */
	ok = m == UINT64_MAX - 1 && r == 3;
	khh_mean(v, 3, &m, &r);
	ok &= m == UINT64_MAX && r == 0;
	ksft_test_result(ok, "mean of values near 2^64 (sum overflows) is exact");
}

/*
 * Standard deviation where the sum of squares overflows 64 bits: realistic
 * (seconds-long latencies) and extreme (0 and 2^64 - 1).
 */
static void test_stddev_overflow(void)
{
	long double ref;
	static u64 v[1000];
	u64 m, r, sd;
	int ok = 1, i;

	/* 1e10 and 3e10 ns alternating: mean 2e10, sigma exactly 1e10 */
	for (i = 0; i < 1000; i++)
		v[i] = i % 2 ? 30000000000ULL : 10000000000ULL;
	sd = khh_stddev(v, 1000);
	if (sd != 10000000000ULL) {
		ksft_print_msg("stddev {1e10, 3e10} x 500 = %llu, expected 1e10\n",
			       sd);
		ok = 0;
	}
	/* {0, 2^64 - 1}: sigma = 2^63 - 0.5 -> 2^63 - 1 */
	v[0] = 0;
	v[1] = UINT64_MAX;
	khh_mean(v, 2, &m, &r);
	sd = khh_stddev(v, 2);
	if (m != (1ULL << 63) - 1 || r != 1 || sd != (1ULL << 63) - 1) {
		ksft_print_msg("{0, 2^64-1}: mean %llu rem %llu stddev %llu\n",
			       m, r,
			       sd);
		ok = 0;
	}
	/* 1000 copies of 2^64 - 1 and one 0: the 192-bit sum is needed */
	for (i = 0; i < 1000; i++)
		v[i] = i ? UINT64_MAX : 0;
	sd = khh_stddev(v, 1000);
	/* sigma = (2^64 - 1) * sqrt(999) / 1000 = 0.0316069... * 2^64 */
	ref = (long double)UINT64_MAX * sqrt_ld(999) / 1000;
	if (abs_ld(sd - ref) > ref / 1e10L) {
		ksft_print_msg("stddev of 999 x (2^64-1) and 0 = %llu\n",
			       sd);
		ok = 0;
	}
	/* {U64_MAX, U64_MAX - 2}: sigma 1 */
	v[0] = UINT64_MAX;
	v[1] = UINT64_MAX - 2;
	ok &= khh_stddev(v, 2) == 1;
	ksft_test_result(ok, "stddev is right where the sum of squares overflows 64 bits");
}

static void test_isqrt(void)
{
	int ok = 1, i;
	u64 k;

	ok &= khh_isqrt128(0, 0) == 0;
	ok &= khh_isqrt128(0, 1) == 1;
	ok &= khh_isqrt128(0, 15) == 3;
	ok &= khh_isqrt128(0, 16) == 4;
	ok &= khh_isqrt128(0, UINT64_MAX) == 0xffffffffULL;
	ok &= khh_isqrt128(1, 0) == 0x100000000ULL;
	ok &= khh_isqrt128(UINT64_MAX, UINT64_MAX) == UINT64_MAX;
	/* (2^64 - 1)^2 = (2^64 - 2) * 2^64 + 1 */
	ok &= khh_isqrt128(UINT64_MAX - 1, 1) == UINT64_MAX;
	ok &= khh_isqrt128(UINT64_MAX - 1, 0) == UINT64_MAX - 1;
	for (i = 0; i < 1000; i++) {
		/* k^2 and k^2 - 1 for random 32-bit k: exact in 64 bits */
		k = (rng() >> 32) | 2;
		ok &= khh_isqrt128(0, k * k) == k;
		ok &= khh_isqrt128(0, k * k - 1) == k - 1;
	}
	ksft_test_result(ok, "128-bit integer square root, including 2^128 - 1");
}

/* Random latency-like data against qsort + long double. */
static void test_random_reference(void)
{
	long double sum = 0, sq = 0, mean, sigma;
	static u64 v[20000], ref[20000];
	size_t n = 20000, i, rank;
	struct khh_stats st;
	int ok = 1, p;

	for (i = 0; i < n; i++) {
		/* bimodal, like the seed: a few us, or about 1 ms */
		v[i] = rng() % 4 ? 1000000 + rng() % 500000 : 2000 + rng() % 5000;
		ref[i] = v[i];
		sum += v[i];
	}
	mean = sum / n;
	for (i = 0; i < n; i++)
		sq += (v[i] - mean) * (v[i] - mean);
	sigma = sqrt_ld(sq / n);
	qsort(ref, n, sizeof(*ref), cmp_u64);
	khh_stats_compute(v, n, &st, NULL);

	if (st.min != ref[0] || st.max != ref[n - 1])
		ok = 0;
	if (abs_ld(st.mean + (long double)st.mean_rem / n - mean) > 1 / 1e6L)
		ok = 0;
	if (abs_ld(st.stddev - sigma) > 1.0L) {
		ksft_print_msg("stddev %llu, reference %.3Lf\n",
			       st.stddev, sigma);
		ok = 0;
	}
	for (p = 0; p < KHH_NR_PCT; p++) {
		/* smallest rank whose share of samples reaches p */
		for (rank = 1; rank * 10000 < (size_t)khh_pcts[p].bp * n; rank++)
			;
		if (st.pct[p] != ref[rank - 1]) {
			ksft_print_msg("p%s = %llu, reference %llu\n", khh_pcts[p].name,
				       st.pct[p],
				       ref[rank - 1]);
			ok = 0;
		}
	}
	ok &= pct_index("99.9") == KHH_NR_PCT - 1;
	ksft_test_result(ok, "20000 random latencies agree with qsort and long double");
}

/*
 * The relax callback (cond_resched() in the module) runs throughout the
 * long loops, at least once per KHH_RELAX_EVERY steps, and changes nothing.
 */
static size_t relax_calls;

static void count_relax(void)
{
	relax_calls++;
}

static void test_relax(void)
{
	static u64 v[100000], w[100000];
	size_t n = 100000, i, sort_calls, min_sort, min_all;
	struct khh_stats st, ref;
	int ok = 1;

	for (i = 0; i < n; i++)
		v[i] = w[i] = rng() % 10000000;
	/* heapsort: n / 2 sifts to build the heap, n - 1 to take it apart */
	min_sort = (n / 2 + n - 1) / KHH_RELAX_EVERY;
	relax_calls = 0;
	khh_sort_u64(v, n, count_relax);
	sort_calls = relax_calls;
	if (sort_calls < min_sort) {
		ksft_print_msg("sort of %zu: %zu relax calls, expected at least %zu\n",
			       n, sort_calls, min_sort);
		ok = 0;
	}
	for (i = 1; i < n; i++)
		ok &= v[i - 1] <= v[i];

	/* the sort, then three passes: the mean, and the mean and squares of stddev */
	memcpy(v, w, sizeof(v));
	min_all = min_sort + 3 * (n / KHH_RELAX_EVERY);
	relax_calls = 0;
	khh_stats_compute(v, n, &st, count_relax);
	if (relax_calls < min_all) {
		ksft_print_msg("statistics of %zu: %zu relax calls, expected at least %zu\n",
			       n, relax_calls, min_all);
		ok = 0;
	}
	khh_stats_compute(w, n, &ref, NULL);
	if (memcmp(&st, &ref, sizeof(st))) {
		ksft_print_msg("statistics differ with and without a relax callback\n");
		ok = 0;
	}
	ksft_test_result(ok, "relax runs every %d steps of the sort and of each pass",
			 KHH_RELAX_EVERY);
}

static void test_tenths(void)
{
	int ok = 1;

	ok &= khh_ns_to_tenths(0) == 0;
	ok &= khh_ns_to_tenths(49) == 0;
	ok &= khh_ns_to_tenths(50) == 1;
	ok &= khh_ns_to_tenths(1049) == 10;
	ok &= khh_ns_to_tenths(1050) == 11;
	ok &= khh_ns_to_tenths(1125000) == 11250;
	ok &= khh_ns_to_tenths(UINT64_MAX) == UINT64_MAX / 100;	/* ...615: rounds down */
	ok &= khh_ns_to_tenths(UINT64_MAX - 15 - 50) == UINT64_MAX / 100;
	ok &= khh_ns_to_tenths(UINT64_MAX - 15 - 51) == UINT64_MAX / 100 - 1;
	ksft_test_result(ok, "ns to tenths of a us rounds half up without overflow");
}

int main(void)
{
	ksft_print_header();
	ksft_set_plan(14);
	test_pct_table();
	test_one_to_hundred();
	test_single();
	test_two();
	test_all_equal();
	test_empty();
	test_rank_rounding();
	test_sort();
	test_mean_overflow();
	test_stddev_overflow();
	test_isqrt();
	test_random_reference();
	test_relax();
	test_tenths();
	return ksft_finished();
}
