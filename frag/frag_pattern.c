// SPDX-License-Identifier: GPL-2.0
/*
 * frag_pattern.c - which 4K pages of a 2M chunk frag keeps, and the
 * per-page pattern --verify writes into them.
 *
 * Every pattern keeps exactly keep_pages of the 512 pages of every chunk,
 * so the kept share is the same in every 2M chunk whatever the pattern;
 * only where in the chunk the kept pages sit differs.
 */
#include <string.h>

#include "frag.h"

const char *frag_pattern_name(enum frag_pattern p)
{
	switch (p) {
	case FRAG_PATTERN_STRIDE:
		return "stride";
	case FRAG_PATTERN_CHUNK:
		return "chunk";
	case FRAG_PATTERN_RANDOM:
		return "random";
	case FRAG_PATTERN_PHYS:
		return "phys";
	}
	return "?";
}

/* Pages kept per 2M chunk for a kept share: the nearest whole page. */
unsigned int frag_keep_pages(double keep)
{
	double pages;

	if (!(keep > 0.0))
		return 0;
	pages = keep * FRAG_CHUNK_PAGES + 0.5;
	if (pages >= FRAG_CHUNK_PAGES)
		return FRAG_CHUNK_PAGES;
	return (unsigned int)pages;
}

/* splitmix64 (Steele, Lea, Flood 2014): small, fast, good enough here. */
static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t mix64(uint64_t x)
{
	return splitmix64(&x);
}

/* A uniform value in [0, n) without a division (Lemire's multiply-shift). */
static unsigned int bounded(uint64_t *state, unsigned int n)
{
	return (unsigned int)(((unsigned __int128)splitmix64(state) * n) >> 64);
}

static void mask_set(uint64_t *mask, unsigned int page)
{
	mask[page / 64] |= 1ULL << (page % 64);
}

/*
 * Fill mask with the pages of chunk number `chunk` that stay mapped.
 *
 * stride: page i is kept when (i * K) mod 512 < K.  That keeps exactly K
 *   pages spread as evenly as integers allow: i % 4 == 0 for K = 128,
 *   even pages for K = 256, pages 0, 171 and 342 for K = 3.  Faulting pages
 *   in order hands out physical pages mostly in order too, so evenly spaced
 *   virtual pages become evenly spaced physical pages and every 2M physical
 *   region ends up with ~K mapped pages, which is what we want.
 * chunk: the first K pages.  Leaves ~K per physical region only where a
 *   virtual chunk happens to be physically aligned; else 0 and 512 mix.
 * random: K distinct random pages (partial Fisher-Yates), seeded from
 *   (seed, chunk) so any chunk's mask can be recomputed independently.
 */
void frag_chunk_mask(enum frag_pattern p, unsigned int keep_pages,
		     uint64_t seed, uint64_t chunk,
		     uint64_t mask[FRAG_MASK_WORDS])
{
	unsigned int i;

	memset(mask, 0, FRAG_MASK_WORDS * sizeof(mask[0]));
	if (keep_pages > FRAG_CHUNK_PAGES)
		keep_pages = FRAG_CHUNK_PAGES;

	switch (p) {
	case FRAG_PATTERN_STRIDE:
		for (i = 0; i < FRAG_CHUNK_PAGES; i++)
			if (i * keep_pages % FRAG_CHUNK_PAGES < keep_pages)
				mask_set(mask, i);
		break;
	case FRAG_PATTERN_CHUNK:
		for (i = 0; i < keep_pages; i++)
			mask_set(mask, i);
		break;
	case FRAG_PATTERN_RANDOM: {
		uint16_t order[FRAG_CHUNK_PAGES];
		uint64_t state = mix64(seed) ^ mix64(chunk ^ 0x6a09e667f3bcc909ULL);

		for (i = 0; i < FRAG_CHUNK_PAGES; i++)
			order[i] = i;
		for (i = 0; i < keep_pages; i++) {
			unsigned int j = i + bounded(&state, FRAG_CHUNK_PAGES - i);
			uint16_t t = order[i];

			order[i] = order[j];
			order[j] = t;
			mask_set(mask, order[i]);
		}
		break;
	}
	case FRAG_PATTERN_PHYS:
		/* Depends on the PFNs, not the chunk: frag_phys_mask(). */
		break;
	}
}

/*
 * phys: the stride rule over each page's offset in its 2M physical region
 * instead of its place in the virtual chunk, so that wherever the
 * allocator put frag's pages, the kept ones sit at the same physical
 * offsets in every region: every 4th PFN for K = 128.  The kernel's sync
 * free scanner samples a pageblock every stride pages (up to 32) from its
 * start, so at a stride of 4 or more every sample is a kept page: the
 * "wall" the stride pattern gives in some boots only, in every boot.  A
 * page whose PFN is unknown (0) is not kept.  A virtual chunk keeps about
 * K pages, exactly K where its pages fill whole physical regions.
 */
void frag_phys_mask(const uint64_t pfns[FRAG_CHUNK_PAGES], unsigned int keep_pages,
		    uint64_t mask[FRAG_MASK_WORDS])
{
	unsigned int i;

	memset(mask, 0, FRAG_MASK_WORDS * sizeof(mask[0]));
	if (keep_pages > FRAG_CHUNK_PAGES)
		keep_pages = FRAG_CHUNK_PAGES;
	for (i = 0; i < FRAG_CHUNK_PAGES; i++) {
		unsigned int offset = pfns[i] % FRAG_CHUNK_PAGES;

		if (pfns[i] && offset * keep_pages % FRAG_CHUNK_PAGES < keep_pages)
			mask_set(mask, i);
	}
}

unsigned int frag_mask_weight(const uint64_t mask[FRAG_MASK_WORDS])
{
	unsigned int i, n = 0;

	for (i = 0; i < FRAG_MASK_WORDS; i++)
		n += __builtin_popcountll(mask[i]);
	return n;
}

/*
 * The value --verify keeps in 64-bit word `word` of page `page` (the page's
 * index in frag's mapping).  Each page gets its own pseudo-random base, so
 * a page that comes back zeroed, from another page, or shifted is caught.
 */
uint64_t frag_verify_word(uint64_t seed, uint64_t page, unsigned int word)
{
	return mix64(seed ^ mix64(page)) + word * 0xd1342543de82ef95ULL;
}

void frag_verify_fill(uint64_t *page_mem, uint64_t seed, uint64_t page)
{
	uint64_t base = frag_verify_word(seed, page, 0);
	unsigned int w;

	for (w = 0; w < FRAG_PAGE_SIZE / sizeof(uint64_t); w++)
		page_mem[w] = base + w * 0xd1342543de82ef95ULL;
}

/* Returns -1 when the page holds its pattern, else the first bad word. */
int frag_verify_check(const uint64_t *page_mem, uint64_t seed, uint64_t page)
{
	uint64_t base = frag_verify_word(seed, page, 0);
	unsigned int w;

	for (w = 0; w < FRAG_PAGE_SIZE / sizeof(uint64_t); w++)
		if (page_mem[w] != base + w * 0xd1342543de82ef95ULL)
			return (int)w;
	return -1;
}
