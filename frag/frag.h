/* SPDX-License-Identifier: GPL-2.0 */
/*
 * frag.h - the pure parts of frag: argument parsing, the kept-page
 * patterns, the verify pattern, the physical occupancy histogram and the
 * /proc text parsers.  Nothing here touches the system, so
 * tests/unit/test_frag*.c can check all of it without running frag.
 */
#ifndef PCOMPACT_FRAG_H
#define PCOMPACT_FRAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif

#define FRAG_PAGE_SIZE		UINT64_C(4096)
#define FRAG_CHUNK_SIZE		(UINT64_C(2) << 20)	/* one PMD / order-9 block */
#define FRAG_CHUNK_PAGES	512U		/* 4 KB pages per 2 MB */
#define FRAG_MASK_WORDS		(FRAG_CHUNK_PAGES / 64)

/* Largest SIZE accepted: beyond any x86-64 user address space anyway. */
#define FRAG_SIZE_MAX		(UINT64_C(1) << 46)	/* 64T */
#define FRAG_HOLD_SECONDS_MAX	1000000000L
#define FRAG_MARGIN_MIN_KB	(UINT64_C(64) << 10)	/* 64 MB */
#define FRAG_MARGIN_PERCENT	3		/* of MemTotal */
#define FRAG_NODE_SLACK_KB	(UINT64_C(8) << 10)	/* --node: 8 MB over high */
#define FRAG_DEFAULT_KEEP	0.25
#define FRAG_DEFAULT_SEED	1
#define FRAG_NODE_MAX		1023	/* MAX_NUMNODES - 1 on Debian (NODES_SHIFT 10) */

enum frag_pattern {
	FRAG_PATTERN_STRIDE,
	FRAG_PATTERN_CHUNK,
	FRAG_PATTERN_RANDOM,
	FRAG_PATTERN_PHYS,	/* stride over physical offsets: frag_phys_mask() */
};

struct frag_opts {
	uint64_t size;		/* bytes, multiple of 2M; 0 = not given */
	double percent;		/* 0 = not given */
	double keep;		/* kept share of each 2M chunk, (0, 1] */
	unsigned int keep_pages;	/* pages kept per 2M chunk, 1..512 */
	enum frag_pattern pattern;
	uint64_t seed;
	long hold_seconds;	/* -1 = hold until SIGTERM/SIGINT */
	const char *map_path;
	const char *ready_path;
	bool verify;
	bool mlock;		/* mlock the kept pages after punching holes */
	uint64_t thp_touch;	/* bytes, multiple of 2M; 0 = off */
	int node;		/* --node: NUMA node to fill; -1 = not given */
	bool help;
};

/* frag_args.c */
extern const char frag_usage[];
int frag_parse_size(const char *s, uint64_t *bytes, char *err, size_t errlen);
int frag_parse_keep(const char *s, double *keep, unsigned int *keep_pages,
		    char *err, size_t errlen);
int frag_parse_args(int argc, char **argv, struct frag_opts *o,
		    char *err, size_t errlen);

/* frag_pattern.c */
const char *frag_pattern_name(enum frag_pattern p);
unsigned int frag_keep_pages(double keep);
void frag_chunk_mask(enum frag_pattern p, unsigned int keep_pages,
		     uint64_t seed, uint64_t chunk,
		     uint64_t mask[FRAG_MASK_WORDS]);
static inline bool frag_mask_test(const uint64_t *mask, unsigned int page)
{
	return mask[page / 64] >> (page % 64) & 1;
}
void frag_phys_mask(const uint64_t pfns[FRAG_CHUNK_PAGES], unsigned int keep_pages,
		    uint64_t mask[FRAG_MASK_WORDS]);
unsigned int frag_mask_weight(const uint64_t mask[FRAG_MASK_WORDS]);
uint64_t frag_verify_word(uint64_t seed, uint64_t page, unsigned int word);
void frag_verify_fill(uint64_t *page_mem, uint64_t seed, uint64_t page);
int frag_verify_check(const uint64_t *page_mem, uint64_t seed, uint64_t page);

/* frag_hist.c */
#define FRAG_HIST_BUCKETS	16	/* of 32 pages: 1-32, 33-64, ... 481-512 */

struct frag_hist {
	size_t regions;		/* 2M physical regions holding >= 1 page */
	uint64_t pages;		/* distinct pfns counted */
	unsigned int min, p10, median, p90, max;
	double mean;
	size_t buckets[FRAG_HIST_BUCKETS];
};

size_t frag_hist_build(uint64_t *pfns, size_t n, struct frag_hist *h);
static inline uint64_t frag_hist_region_pfn(uint64_t entry)
{
	return entry >> 16 << 9;
}
static inline unsigned int frag_hist_count(uint64_t entry)
{
	return entry & 0xffff;
}

/* frag_mem.c */
int frag_proc_sum_kb(const char *text, const char *key, uint64_t *kb);
int frag_vmstat_value(const char *text, const char *key, uint64_t *value);
uint64_t frag_margin_kb(uint64_t mem_total_kb);
uint64_t frag_node_margin_kb(uint64_t node_high_kb);
int frag_zoneinfo_node_high_kb(const char *zoneinfo, int node, uint64_t *kb);
int frag_node_meminfo_kb(const char *text, const char *key, uint64_t *kb);
uint64_t frag_node_target_bytes(const struct frag_opts *o, uint64_t node_free_kb,
				uint64_t node_high_kb, bool *capped);
uint64_t frag_target_bytes(const struct frag_opts *o, uint64_t mem_total_kb,
			   uint64_t mem_available_kb, bool *capped);
const char *frag_sysfs_choice(const char *text, char *buf, size_t len);

#endif /* PCOMPACT_FRAG_H */
