// SPDX-License-Identifier: GPL-2.0
/*
 * test_frag_pattern.c - which pages frag keeps in each 2M chunk, for every
 * pattern, and the --verify page pattern.
 */
// UNIT-SOURCES: frag/frag_pattern.c
#include <string.h>

#include "ktap.h"
#include "frag/frag.h"

static const enum frag_pattern patterns[] = {
	FRAG_PATTERN_STRIDE, FRAG_PATTERN_CHUNK, FRAG_PATTERN_RANDOM,
};
static const unsigned int keeps[] = { 1, 2, 3, 100, 127, 128, 129, 256, 384, 511, 512 };

static bool test_keep_pages(void)
{
	return frag_keep_pages(0.25) == 128 && frag_keep_pages(0.5) == 256 &&
	       frag_keep_pages(0.75) == 384 && frag_keep_pages(1.0) == 512 &&
	       frag_keep_pages(1.0 / 512) == 1 && frag_keep_pages(0.001) == 1 &&
	       frag_keep_pages(0.0009) == 0 && frag_keep_pages(0.0) == 0 &&
	       frag_keep_pages(-1.0) == 0 && frag_keep_pages(0.3) == 154 &&
	       frag_keep_pages(0.999) == 511;
}

/* The heart of the spec: exactly K pages kept in every 2M chunk. */
static bool count_per_chunk(enum frag_pattern p)
{
	uint64_t mask[FRAG_MASK_WORDS];
	unsigned int k, i, n;
	uint64_t c;

	for (k = 0; k < ARRAY_SIZE(keeps); k++) {
		for (c = 0; c < 256; c++) {
			frag_chunk_mask(p, keeps[k], 7, c, mask);
			n = 0;
			for (i = 0; i < FRAG_CHUNK_PAGES; i++)
				n += frag_mask_test(mask, i);
			if (n != keeps[k] || frag_mask_weight(mask) != keeps[k]) {
				ksft_print_msg("%s keep %u chunk %llu: %u kept\n",
					       frag_pattern_name(p), keeps[k],
					       (unsigned long long)c, n);
				return false;
			}
		}
	}
	return true;
}

static bool test_count_stride(void)
{
	return count_per_chunk(FRAG_PATTERN_STRIDE);
}

static bool test_count_chunk(void)
{
	return count_per_chunk(FRAG_PATTERN_CHUNK);
}

static bool test_count_random(void)
{
	return count_per_chunk(FRAG_PATTERN_RANDOM);
}

/* kept(i) must equal want(i) for every page of several chunks. */
static bool mask_is(enum frag_pattern p, unsigned int keep,
		    bool (*want)(unsigned int page, unsigned int keep))
{
	uint64_t mask[FRAG_MASK_WORDS];
	unsigned int i;
	uint64_t c;

	for (c = 0; c < 8; c++) {
		frag_chunk_mask(p, keep, 1, c * 1000, mask);
		for (i = 0; i < FRAG_CHUNK_PAGES; i++) {
			if (frag_mask_test(mask, i) != want(i, keep)) {
				ksft_print_msg("%s keep %u: page %u is %s\n",
					       frag_pattern_name(p), keep, i,
					       frag_mask_test(mask, i) ? "kept" : "freed");
				return false;
			}
		}
	}
	return true;
}

static bool every_4th(unsigned int i, unsigned int k)
{
	(void)k;
	return i % 4 == 0;
}

static bool every_2nd(unsigned int i, unsigned int k)
{
	(void)k;
	return i % 2 == 0;
}

static bool all_but_every_4th(unsigned int i, unsigned int k)
{
	(void)k;
	return i % 4 != 1;
}

static bool three_spread(unsigned int i, unsigned int k)
{
	(void)k;
	return i == 0 || i == 171 || i == 342;
}

static bool only_first(unsigned int i, unsigned int k)
{
	(void)k;
	return i == 0;
}

static bool all(unsigned int i, unsigned int k)
{
	(void)i;
	(void)k;
	return true;
}

static bool first_k(unsigned int i, unsigned int k)
{
	return i < k;
}

static bool test_stride_indexes(void)
{
	return mask_is(FRAG_PATTERN_STRIDE, 128, every_4th) &&
	       mask_is(FRAG_PATTERN_STRIDE, 256, every_2nd) &&
	       mask_is(FRAG_PATTERN_STRIDE, 384, all_but_every_4th) &&
	       mask_is(FRAG_PATTERN_STRIDE, 3, three_spread) &&
	       mask_is(FRAG_PATTERN_STRIDE, 1, only_first) &&
	       mask_is(FRAG_PATTERN_STRIDE, 512, all);
}

/*
 * Evenly spread: for any K, every window of 512/K pages... simply: no gap
 * between kept pages (cyclically) longer than ceil(512 / K).
 */
static bool test_stride_even(void)
{
	uint64_t mask[FRAG_MASK_WORDS];
	unsigned int k, i, first = 0, last = 0, gap, max_gap;
	bool seen;

	for (k = 1; k <= FRAG_CHUNK_PAGES; k++) {
		frag_chunk_mask(FRAG_PATTERN_STRIDE, k, 0, 0, mask);
		max_gap = (FRAG_CHUNK_PAGES + k - 1) / k;
		seen = false;
		for (i = 0; i < FRAG_CHUNK_PAGES; i++) {
			if (!frag_mask_test(mask, i))
				continue;
			if (!seen)
				first = i;
			else if (i - last > max_gap)
				return false;
			seen = true;
			last = i;
		}
		gap = first + FRAG_CHUNK_PAGES - last;
		if (!seen || gap > max_gap) {
			ksft_print_msg("stride keep %u: wrap gap %u\n", k, gap);
			return false;
		}
	}
	return true;
}

static bool test_chunk_indexes(void)
{
	return mask_is(FRAG_PATTERN_CHUNK, 128, first_k) &&
	       mask_is(FRAG_PATTERN_CHUNK, 1, first_k) &&
	       mask_is(FRAG_PATTERN_CHUNK, 300, first_k) &&
	       mask_is(FRAG_PATTERN_CHUNK, 512, first_k);
}

static bool test_random_deterministic(void)
{
	uint64_t a[FRAG_MASK_WORDS], b[FRAG_MASK_WORDS];

	frag_chunk_mask(FRAG_PATTERN_RANDOM, 128, 42, 17, a);
	frag_chunk_mask(FRAG_PATTERN_RANDOM, 128, 42, 17, b);
	if (memcmp(a, b, sizeof(a)))
		return false;
	frag_chunk_mask(FRAG_PATTERN_RANDOM, 128, 42, 18, b);	/* next chunk */
	if (!memcmp(a, b, sizeof(a)))
		return false;
	frag_chunk_mask(FRAG_PATTERN_RANDOM, 128, 43, 17, b);	/* other seed */
	if (!memcmp(a, b, sizeof(a)))
		return false;
	frag_chunk_mask(FRAG_PATTERN_STRIDE, 128, 42, 17, b);	/* not a stride */
	return memcmp(a, b, sizeof(a)) != 0;
}

/*
 * Every page position is kept in ~1/4 of the chunks: 2048 chunks give 512
 * expected, sd ~19.6; accept [410, 614] (5 sd).
 */
static bool test_random_uniform(void)
{
	static unsigned int hits[FRAG_CHUNK_PAGES];
	uint64_t mask[FRAG_MASK_WORDS], c;
	unsigned int i;

	for (c = 0; c < 2048; c++) {
		frag_chunk_mask(FRAG_PATTERN_RANDOM, 128, 1, c, mask);
		for (i = 0; i < FRAG_CHUNK_PAGES; i++)
			hits[i] += frag_mask_test(mask, i);
	}
	for (i = 0; i < FRAG_CHUNK_PAGES; i++) {
		if (hits[i] < 410 || hits[i] > 614) {
			ksft_print_msg("random: page %u kept in %u of 2048 chunks\n",
				       i, hits[i]);
			return false;
		}
	}
	return true;
}

/* Out-of-range keep counts are clamped, never overrun the mask. */
static bool test_keep_clamped(void)
{
	uint64_t mask[FRAG_MASK_WORDS + 1];
	unsigned int p;

	for (p = 0; p < ARRAY_SIZE(patterns); p++) {
		mask[FRAG_MASK_WORDS] = 0x5a5a;
		frag_chunk_mask(patterns[p], 1000, 3, 9, mask);
		if (frag_mask_weight(mask) != FRAG_CHUNK_PAGES ||
		    mask[FRAG_MASK_WORDS] != 0x5a5a)
			return false;
		frag_chunk_mask(patterns[p], 0, 3, 9, mask);
		if (frag_mask_weight(mask) != 0)
			return false;
	}
	return true;
}

static uint64_t page_a[FRAG_PAGE_SIZE / 8], page_b[FRAG_PAGE_SIZE / 8];

static bool test_verify_roundtrip(void)
{
	frag_verify_fill(page_a, 5, 1234);
	return frag_verify_check(page_a, 5, 1234) == -1 &&
	       page_a[0] == frag_verify_word(5, 1234, 0) &&
	       page_a[511] == frag_verify_word(5, 1234, 511);
}

static bool test_verify_detects(void)
{
	unsigned int w;

	frag_verify_fill(page_a, 5, 1234);
	page_a[300] ^= 1;				/* one flipped bit */
	if (frag_verify_check(page_a, 5, 1234) != 300)
		return false;

	memset(page_b, 0, sizeof(page_b));		/* a zeroed page */
	if (frag_verify_check(page_b, 5, 1234) != 0)
		return false;

	frag_verify_fill(page_a, 5, 1234);		/* another page's data */
	if (frag_verify_check(page_a, 5, 1235) != 0 ||
	    frag_verify_check(page_a, 6, 1234) != 0)
		return false;

	frag_verify_fill(page_a, 5, 1234);		/* shifted by one word */
	memmove(page_b + 1, page_a, sizeof(page_a) - 8);
	page_b[0] = page_a[0];
	if (frag_verify_check(page_b, 5, 1234) != 1)
		return false;

	for (w = 1; w < FRAG_PAGE_SIZE / 8; w++)	/* words all differ */
		if (page_a[w] == page_a[w - 1])
			return false;
	return true;
}

/*
 * phys keeps the pages at physical offsets divisible by 4 (K = 128) in
 * whatever order the allocator handed them out, 2 of 4 for K = 256, none
 * of a page whose PFN is unknown, and every known one for K = 512.
 */
static bool test_phys_offsets(void)
{
	uint64_t pfns[FRAG_CHUNK_PAGES], mask[FRAG_MASK_WORDS];
	unsigned int i;

	for (i = 0; i < FRAG_CHUNK_PAGES; i++)		/* reversed, from two regions */
		pfns[i] = 0x40000 + 1023 - 2 * i;
	frag_phys_mask(pfns, 128, mask);
	for (i = 0; i < FRAG_CHUNK_PAGES; i++)
		if (frag_mask_test(mask, i) != (pfns[i] % 4 == 0))
			return false;
	/* Odd PFNs only: none at an offset divisible by 4. */
	if (frag_mask_weight(mask) != 0)
		return false;
	for (i = 0; i < FRAG_CHUNK_PAGES; i++)		/* a region, scrambled */
		pfns[i] = 0x40000 + (i * 7 % FRAG_CHUNK_PAGES);
	frag_phys_mask(pfns, 128, mask);
	if (frag_mask_weight(mask) != 128)
		return false;
	for (i = 0; i < FRAG_CHUNK_PAGES; i++)
		if (frag_mask_test(mask, i) != (pfns[i] % 4 == 0))
			return false;
	frag_phys_mask(pfns, 256, mask);
	if (frag_mask_weight(mask) != 256 || !frag_mask_test(mask, 0) ||
	    frag_mask_test(mask, 1))			/* pfn 0x40000 and 0x40007 */
		return false;
	pfns[0] = 0;
	frag_phys_mask(pfns, 512, mask);
	return frag_mask_weight(mask) == 511 && !frag_mask_test(mask, 0);
}

static const struct {
	const char *name;
	bool (*fn)(void);
} cases[] = {
	{ "keep fraction to pages per 2M", test_keep_pages },
	{ "stride keeps exactly K pages per 2M chunk", test_count_stride },
	{ "chunk keeps exactly K pages per 2M chunk", test_count_chunk },
	{ "random keeps exactly K pages per 2M chunk", test_count_random },
	{ "stride page indexes (every 4th for 128)", test_stride_indexes },
	{ "stride spreads kept pages evenly for every K", test_stride_even },
	{ "chunk keeps the first K pages", test_chunk_indexes },
	{ "random is deterministic per seed and chunk", test_random_deterministic },
	{ "random keeps every page position ~1/4 of the time", test_random_uniform },
	{ "keep counts clamped to 0..512", test_keep_clamped },
	{ "phys keeps the same physical offsets in every region", test_phys_offsets },
	{ "verify pattern round trip", test_verify_roundtrip },
	{ "verify detects flipped, zeroed, foreign, shifted pages", test_verify_detects },
};

int main(void)
{
	unsigned int i;

	ksft_print_header();
	ksft_set_plan(ARRAY_SIZE(cases));
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		ksft_test_result(cases[i].fn(), "%s", cases[i].name);
	return ksft_finished();
}
