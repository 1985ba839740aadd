// SPDX-License-Identifier: GPL-2.0
/*
 * frag_hist.c - the physical occupancy histogram: how many of frag's pages
 * sit in each 2M-aligned physical region (seed 001, figures 1-3).
 */
#include <stdlib.h>
#include <string.h>

#include "frag.h"

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile over counts[c] = number of regions holding c pages. */
static unsigned int percentile(const size_t *counts, size_t regions,
			       unsigned int pct)
{
	size_t rank = (regions * pct + 99) / 100, seen = 0;
	unsigned int c;

	if (rank == 0)
		rank = 1;
	for (c = 0; c <= FRAG_CHUNK_PAGES; c++) {
		seen += counts[c];
		if (seen >= rank)
			return c;
	}
	return FRAG_CHUNK_PAGES;
}

/*
 * Bin the n pfns into 2M regions (pfn >> 9).  Sorts pfns and then reuses
 * the array for the result, so that scanning needs no memory beyond the
 * array frag allocated before it fragmented: entry k (k < the returned
 * region count) becomes region << 16 | mapped pages, ascending by region
 * (see frag_hist_region_pfn() and frag_hist_count()).  The same pfn twice
 * (a page mapped at two addresses) counts once.  The median is the lower
 * median (nearest rank 50%).
 */
size_t frag_hist_build(uint64_t *pfns, size_t n, struct frag_hist *h)
{
	size_t counts[FRAG_CHUNK_PAGES + 1] = { 0 };
	size_t i = 0, out = 0;
	unsigned int c;

	memset(h, 0, sizeof(*h));
	if (n == 0)
		return 0;
	qsort(pfns, n, sizeof(pfns[0]), cmp_u64);

	while (i < n) {
		uint64_t region = pfns[i] >> 9;
		size_t start = i;
		unsigned int mapped = 0;

		for (; i < n && pfns[i] >> 9 == region; i++)
			if (i == start || pfns[i] != pfns[i - 1])
				mapped++;
		/*
		 * Each region before this one took at least one entry, so
		 * out <= start: the write never hits an entry still unread,
		 * and the comparisons above never read a rewritten one.
		 */
		pfns[out++] = region << 16 | mapped;
		counts[mapped]++;
		h->pages += mapped;
	}

	h->regions = out;
	h->mean = (double)h->pages / (double)out;
	for (c = 1; c <= FRAG_CHUNK_PAGES; c++)
		h->buckets[(c - 1) / (FRAG_CHUNK_PAGES / FRAG_HIST_BUCKETS)] +=
			counts[c];
	h->min = percentile(counts, out, 0);
	h->p10 = percentile(counts, out, 10);
	h->median = percentile(counts, out, 50);
	h->p90 = percentile(counts, out, 90);
	h->max = percentile(counts, out, 100);
	return out;
}
