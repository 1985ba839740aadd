// SPDX-License-Identifier: GPL-2.0
/*
 * stats.c - sorting, percentiles, mean and standard deviation of latencies
 *
 * Shared by khugehog.ko and the userspace unit test, so it uses nothing but
 * integer arithmetic on the types stats.h provides.  Nothing here can
 * overflow, whatever the u64 inputs: the sum of the samples is never formed
 * (the mean is accumulated as quotient and remainder) and the sum of squared
 * deviations is kept in 192 bits.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "stats.h"

const struct khh_pct khh_pcts[KHH_NR_PCT] = {
	{  500, "5" },  { 1000, "10" }, { 2500, "25" }, { 3000, "30" },
	{ 4000, "40" }, { 5000, "50" }, { 6000, "60" }, { 7500, "75" },
	{ 8000, "80" }, { 9000, "90" }, { 9500, "95" }, { 9900, "99" },
	{ 9990, "99.9" },
};

/* Call @relax every KHH_RELAX_EVERY values of the loop counter @i. */
static void relax_every(khh_relax_fn relax, size_t i)
{
	if (relax && !(i & (KHH_RELAX_EVERY - 1)))
		relax();
}

/* Restore the max-heap property below @root in v[0..n). */
static void sift_down(u64 *v, size_t root, size_t n)
{
	for (;;) {
		size_t child = 2 * root + 1;
		u64 tmp;

		if (child >= n)
			return;
		if (child + 1 < n && v[child + 1] > v[child])
			child++;
		if (v[root] >= v[child])
			return;
		tmp = v[root];
		v[root] = v[child];
		v[child] = tmp;
		root = child;
	}
}

/**
 * khh_sort_u64() - sort an array of u64 in ascending order
 * @v: the array
 * @n: number of elements
 * @relax: called every KHH_RELAX_EVERY sifts, or NULL
 *
 * Heapsort: in place, no recursion, O(n log n) in the worst case; each
 * sift is O(log n), so @relax runs every O(KHH_RELAX_EVERY log n) steps.
 */
void khh_sort_u64(u64 *v, size_t n, khh_relax_fn relax)
{
	size_t i;
	u64 tmp;

	if (n < 2)
		return;
	for (i = n / 2; i-- > 0; ) {
		sift_down(v, i, n);
		relax_every(relax, i);
	}
	for (i = n - 1; i > 0; i--) {
		tmp = v[0];
		v[0] = v[i];
		v[i] = tmp;
		sift_down(v, 0, i);
		relax_every(relax, i);
	}
}

/**
 * khh_percentile() - nearest-rank percentile of sorted samples
 * @sorted: samples in ascending order
 * @n: number of samples
 * @bp: the percentile in basis points (5000 = median, 9990 = 99.9th)
 *
 * Nearest rank: the smallest sample such that at least @bp / 100 percent
 * of the samples are less than or equal to it, i.e. sorted[r - 1] with
 * r = ceil(@bp * @n / 10000), at least 1 and at most @n.
 *
 * Return: the percentile, or 0 when @n is 0.
 */
u64 khh_percentile(const u64 *sorted, size_t n, u32 bp)
{
	u64 q, r, rank;

	if (!n)
		return 0;
	if (bp > 10000)
		bp = 10000;
	/* ceil(bp * n / 10000) without forming bp * n */
	q = div64_u64(n, 10000);
	r = n - q * 10000;
	rank = q * bp + div64_u64(r * bp + 9999, 10000);
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

/* khh_mean() with @relax called every KHH_RELAX_EVERY samples. */
static void mean_relax(const u64 *v, size_t n, u64 *mean, u64 *rem,
		       khh_relax_fn relax)
{
	u64 q = 0, r = 0, vq;
	size_t i;

	for (i = 0; i < n; i++) {
		relax_every(relax, i);
		vq = div64_u64(v[i], n);
		q += vq;
		r += v[i] - vq * n;	/* < 2n: both terms are below n */
		if (r >= n) {
			r -= n;
			q++;
		}
	}
	*mean = q;
	*rem = r;
}

/**
 * khh_mean() - exact mean of samples, as quotient and remainder
 * @v: the samples, in any order
 * @n: number of samples
 * @mean: set to the mean rounded down
 * @rem: set to the remainder: the exact mean is *@mean + *@rem / @n
 *
 * Sums v[i] / n and v[i] % n separately, so no sum can overflow.
 * Both results are 0 when @n is 0.
 */
void khh_mean(const u64 *v, size_t n, u64 *mean, u64 *rem)
{
	mean_relax(v, n, mean, rem, NULL);
}

/* @hi:@lo = @a * @b, from 32-bit halves. */
static void mul_64x64(u64 a, u64 b, u64 *hi, u64 *lo)
{
	u64 a0 = a & 0xffffffff, a1 = a >> 32;
	u64 b0 = b & 0xffffffff, b1 = b >> 32;
	u64 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
	u64 mid = (p00 >> 32) + (p01 & 0xffffffff) + (p10 & 0xffffffff);

	*lo = (mid << 32) | (p00 & 0xffffffff);
	*hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/* w[2]:w[1]:w[0] += @d * @d */
static void add_square(u64 w[3], u64 d)
{
	u64 hi, lo;

	mul_64x64(d, d, &hi, &lo);
	w[0] += lo;
	if (w[0] < lo)
		hi++;		/* hi <= 2^64 - 2 here, so this cannot wrap */
	w[1] += hi;
	if (w[1] < hi)
		w[2]++;
}

/* w[2]:w[1]:w[0] /= @d (bit by bit, most significant first). */
static void div_wide(u64 w[3], u64 d)
{
	u64 rem = 0, q, top;
	int word, bit;

	for (word = 2; word >= 0; word--) {
		q = 0;
		for (bit = 63; bit >= 0; bit--) {
			top = rem >> 63;
			rem = (rem << 1) | ((w[word] >> bit) & 1);
			/* the true value is top * 2^64 + rem < 2 * d */
			if (top || rem >= d) {
				rem -= d;
				q |= 1ULL << bit;
			}
		}
		w[word] = q;
	}
}

/**
 * khh_isqrt128() - integer square root of a 128-bit number
 * @hi: upper 64 bits
 * @lo: lower 64 bits
 *
 * Return: floor(sqrt(@hi * 2^64 + @lo)), which always fits in 64 bits.
 */
u64 khh_isqrt128(u64 hi, u64 lo)
{
	u64 root = 0, c, sq_hi, sq_lo;
	int bit;

	for (bit = 63; bit >= 0; bit--) {
		c = root | (1ULL << bit);
		mul_64x64(c, c, &sq_hi, &sq_lo);
		if (sq_hi < hi || (sq_hi == hi && sq_lo <= lo))
			root = c;
	}
	return root;
}

/* khh_stddev() with @relax called every KHH_RELAX_EVERY samples of each pass. */
static u64 stddev_relax(const u64 *v, size_t n, khh_relax_fn relax)
{
	u64 w[3] = { 0, 0, 0 };
	u64 m, rem;
	size_t i;

	if (!n)
		return 0;
	mean_relax(v, n, &m, &rem, relax);
	for (i = 0; i < n; i++) {
		relax_every(relax, i);
		add_square(w, v[i] >= m ? v[i] - m : m - v[i]);
	}
	div_wide(w, n);
	/* S / n <= max (v[i] - m)^2 < 2^128, so w[2] is 0 here */
	return khh_isqrt128(w[1], w[0]);
}

/**
 * khh_stddev() - population standard deviation of samples
 * @v: the samples, in any order
 * @n: number of samples
 *
 * Computes floor(sqrt(S / n)) with S the sum of (v[i] - m)^2, m the mean
 * rounded down, in 192-bit arithmetic (two passes, so there is no
 * cancellation).  Measuring from m instead of the exact mean adds
 * (fraction of the mean)^2 < 1 to the variance, so the result is the
 * exact floor(sigma) or at most 1 above it.
 *
 * Return: the standard deviation, or 0 when @n is 0.
 */
u64 khh_stddev(const u64 *v, size_t n)
{
	return stddev_relax(v, n, NULL);
}

/**
 * khh_stats_compute() - summarise samples
 * @v: the samples; sorted in place
 * @n: number of samples
 * @st: filled with the summary (all zero when @n is 0)
 * @relax: called every KHH_RELAX_EVERY steps of the sort and of each pass
 *	over the samples, or NULL
 */
void khh_stats_compute(u64 *v, size_t n, struct khh_stats *st,
		       khh_relax_fn relax)
{
	int i;

	*st = (struct khh_stats){ .n = n };
	if (!n)
		return;
	khh_sort_u64(v, n, relax);
	st->min = v[0];
	st->max = v[n - 1];
	mean_relax(v, n, &st->mean, &st->mean_rem, relax);
	st->stddev = stddev_relax(v, n, relax);
	for (i = 0; i < KHH_NR_PCT; i++)
		st->pct[i] = khh_percentile(v, n, khh_pcts[i].bp);
}

/**
 * khh_ns_to_tenths() - nanoseconds to tenths of a microsecond
 * @ns: a time in ns
 *
 * Rounds half up, so 1049 ns is 10 (1.0 us) and 1050 ns is 11 (1.1 us).
 *
 * Return: @ns / 100, rounded to the nearest integer.
 */
u64 khh_ns_to_tenths(u64 ns)
{
	u64 t = div64_u64(ns, 100);

	return t + (ns - t * 100 >= 50);
}
