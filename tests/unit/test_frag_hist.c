// SPDX-License-Identifier: GPL-2.0
/*
 * test_frag_hist.c - frag's physical occupancy histogram on synthetic pfn
 * lists, and the /proc parsing and sizing it decides how much to take by.
 */
// UNIT-SOURCES: frag/frag_hist.c frag/frag_mem.c
#include <string.h>

#include "ktap.h"
#include "frag/frag.h"

static uint64_t pfns[1 << 20];

/* A fixed shuffle, so that frag_hist_build() gets unsorted input. */
static void shuffle(uint64_t *a, size_t n)
{
	uint64_t x = 88172645463325252ULL;
	size_t i;

	for (i = n - 1; i > 0; i--) {
		size_t j;
		uint64_t t;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		j = x % (i + 1);
		t = a[i];
		a[i] = a[j];
		a[j] = t;
	}
}

static bool test_empty(void)
{
	struct frag_hist h;

	memset(&h, 0xff, sizeof(h));
	return frag_hist_build(pfns, 0, &h) == 0 && h.regions == 0 &&
	       h.pages == 0 && h.max == 0;
}

static bool test_single(void)
{
	struct frag_hist h;

	pfns[0] = 1000;			/* region 1, pfns 512..1023 */
	return frag_hist_build(pfns, 1, &h) == 1 && h.regions == 1 &&
	       frag_hist_region_pfn(pfns[0]) == 512 &&
	       frag_hist_count(pfns[0]) == 1 && h.min == 1 && h.median == 1 &&
	       h.max == 1 && h.buckets[0] == 1;
}

/*
 * Three regions: pfn 0.. with 128 pages, region 5 with 100, region 7 full,
 * shuffled, with some pfns listed twice (counted once).
 */
static bool test_three_regions(void)
{
	struct frag_hist h;
	size_t n = 0, regions, i;

	for (i = 0; i < 128; i++)
		pfns[n++] = i * 4;			/* stride-like */
	for (i = 0; i < 100; i++)
		pfns[n++] = 5 * 512 + i;
	for (i = 0; i < 512; i++)
		pfns[n++] = 7 * 512 + i;
	pfns[n++] = 7 * 512 + 3;			/* duplicates */
	pfns[n++] = 0;
	pfns[n++] = 5 * 512 + 99;
	shuffle(pfns, n);

	regions = frag_hist_build(pfns, n, &h);
	return regions == 3 && h.regions == 3 && h.pages == 740 &&
	       frag_hist_region_pfn(pfns[0]) == 0 && frag_hist_count(pfns[0]) == 128 &&
	       frag_hist_region_pfn(pfns[1]) == 2560 && frag_hist_count(pfns[1]) == 100 &&
	       frag_hist_region_pfn(pfns[2]) == 3584 && frag_hist_count(pfns[2]) == 512 &&
	       h.min == 100 && h.median == 128 && h.max == 512 &&
	       h.mean > 246.6 && h.mean < 246.7 &&
	       h.buckets[3] == 2 && h.buckets[15] == 1 && h.buckets[0] == 0;
}

/* What frag should see after a good run: 128 in (nearly) every region. */
static bool test_fragmented_memory(void)
{
	struct frag_hist h;
	size_t n = 0, r, i;

	for (r = 0; r < 2000; r++)
		for (i = 0; i < 512; i += 4)
			pfns[n++] = (r + 0x100000) * 512 + i;
	pfns[n++] = 0x100000 * 512 - 1;		/* one stray page below */
	shuffle(pfns, n);
	return frag_hist_build(pfns, n, &h) == 2001 && h.pages == 2000 * 128 + 1 &&
	       h.min == 1 && h.p10 == 128 && h.median == 128 && h.p90 == 128 &&
	       h.max == 128 && h.buckets[3] == 2000 && h.buckets[0] == 1;
}

/* Percentiles are nearest-rank; the median of an even count is the lower. */
static bool test_percentiles(void)
{
	struct frag_hist h;
	size_t n = 0, r, i;

	/* Region r holds r + 1 pages: counts 1..10. */
	for (r = 0; r < 10; r++)
		for (i = 0; i <= r; i++)
			pfns[n++] = r * 512 + i;
	shuffle(pfns, n);
	return frag_hist_build(pfns, n, &h) == 10 && h.min == 1 && h.p10 == 1 &&
	       h.median == 5 && h.p90 == 9 && h.max == 10 && h.mean == 5.5;
}

/* PFNs up to bit 54 (pagemap's PFN field) keep their region in the packing. */
static bool test_large_pfns(void)
{
	const uint64_t top = (UINT64_C(1) << 55) - 1;
	struct frag_hist h;

	pfns[0] = top;
	pfns[1] = top - 1;
	pfns[2] = top - 512;
	return frag_hist_build(pfns, 3, &h) == 2 &&
	       frag_hist_region_pfn(pfns[0]) == (top - 512) / 512 * 512 &&
	       frag_hist_count(pfns[0]) == 1 &&
	       frag_hist_region_pfn(pfns[1]) == top / 512 * 512 &&
	       frag_hist_count(pfns[1]) == 2;
}

/* Entries are rewritten in place: a packed entry must never be re-read. */
static bool test_in_place(void)
{
	struct frag_hist h;
	size_t n = 0, r;

	/* One page per region: every read is right after a write. */
	for (r = 0; r < 1000; r++)
		pfns[n++] = r * 512 + (r % 512);
	pfns[n++] = 999 * 512 + 511;
	return frag_hist_build(pfns, n, &h) == 1000 && h.pages == 1001 &&
	       frag_hist_count(pfns[999]) == 2 && frag_hist_count(pfns[0]) == 1 &&
	       frag_hist_region_pfn(pfns[500]) == 500 * 512;
}

static const char meminfo[] =
	"MemTotal:        2014436 kB\n"
	"MemFree:         1800000 kB\n"
	"MemAvailable:    1750000 kB\n"
	"Buffers:            1000 kB\n"
	"AnonHugePages:     4096 kB\n";

static const char smaps[] =
	"7f0000000000-7f0000200000 rw-p 00000000 00:00 0\n"
	"AnonHugePages:      2048 kB\n"
	"ShmemPmdMapped:        0 kB\n"
	"7f0000400000-7f0000800000 rw-p 00000000 00:00 0\n"
	"AnonHugePages:      4096 kB\n"
	"AnonHugePagesX:      999 kB\n";

static bool test_proc_parse(void)
{
	uint64_t kb = 77;

	return !frag_proc_sum_kb(meminfo, "MemTotal", &kb) && kb == 2014436 &&
	       !frag_proc_sum_kb(meminfo, "MemAvailable", &kb) && kb == 1750000 &&
	       !frag_proc_sum_kb(meminfo, "AnonHugePages", &kb) && kb == 4096 &&
	       frag_proc_sum_kb(meminfo, "Mem", &kb) == -1 &&
	       frag_proc_sum_kb(meminfo, "Cached", &kb) == -1 &&
	       frag_proc_sum_kb("", "MemTotal", &kb) == -1 &&
	       !frag_proc_sum_kb(smaps, "AnonHugePages", &kb) && kb == 6144;
}

static bool test_vmstat_parse(void)
{
	static const char vmstat[] =
		"nr_free_pages 1234\n"
		"thp_fault_alloc_extra 9\n"
		"thp_fault_alloc 42\n"
		"thp_fault_fallback 7";
	uint64_t v = 0;

	return !frag_vmstat_value(vmstat, "thp_fault_alloc", &v) && v == 42 &&
	       !frag_vmstat_value(vmstat, "thp_fault_fallback", &v) && v == 7 &&
	       !frag_vmstat_value(vmstat, "nr_free_pages", &v) && v == 1234 &&
	       frag_vmstat_value(vmstat, "thp_fault", &v) == -1 &&
	       frag_vmstat_value(vmstat, "compact_stall", &v) == -1;
}

static bool test_margin(void)
{
	return frag_margin_kb(2 * 1024 * 1024) == 64 * 1024 &&	/* 2G: 64M */
	       frag_margin_kb(0) == 64 * 1024 &&
	       frag_margin_kb(24 * 1024 * 1024) == 754974 &&	/* 24G: 3% */
	       frag_margin_kb(UINT64_C(1) << 30) == 32212254;	/* 1T */
}

static bool test_target(void)
{
	const uint64_t total = 2 * 1024 * 1024, margin = 64 * 1024;
	struct frag_opts o = { 0 };
	uint64_t t;
	bool capped;

	/* Default: MemAvailable - margin, whole 2M chunks. */
	t = frag_target_bytes(&o, total, 1750000, &capped);
	if (capped || t != (1750000 - margin) * 1024 / (2 << 20) * (2 << 20))
		return false;
	/* --size below the safe amount: taken as is. */
	o.size = 512 << 20;
	if (frag_target_bytes(&o, total, 1750000, &capped) != 512 << 20 || capped)
		return false;
	/* --size above it: capped, and said so. */
	o.size = UINT64_C(4) << 30;
	t = frag_target_bytes(&o, total, 1750000, &capped);
	if (!capped || t != (1750000 - margin) * 1024 / (2 << 20) * (2 << 20))
		return false;
	/* --percent 50: half the safe amount. */
	o.size = 0;
	o.percent = 50;
	t = frag_target_bytes(&o, total, margin + 1024 * 1024, &capped);
	if (capped || t != 512 << 20)
		return false;
	/* Less available than the margin, or less than one chunk above it. */
	o.percent = 0;
	return frag_target_bytes(&o, total, margin - 1, &capped) == 0 &&
	       frag_target_bytes(&o, total, margin + 2047, &capped) == 0 &&
	       frag_target_bytes(&o, total, margin + 2048, &capped) == 2 << 20;
}

static bool test_node_meminfo(void)
{
	const char *text = "Node 1 MemTotal:        1572864 kB\n"
			   "Node 1 MemFree:          800000 kB\n"
			   "Node 1 MemUsed:          772864 kB\n";
	uint64_t kb = 0;

	return !frag_node_meminfo_kb(text, "MemFree", &kb) && kb == 800000 &&
	       !frag_node_meminfo_kb(text, "MemTotal", &kb) && kb == 1572864 &&
	       frag_node_meminfo_kb(text, "Mem", &kb) == -1 &&
	       frag_node_meminfo_kb("MemFree: 5 kB\n", "MemFree", &kb) == -1;
}

static bool test_node_margin(void)
{
	return frag_node_margin_kb(0) == 8 * 1024 &&
	       frag_node_margin_kb(49000) == 49000 + 8 * 1024;
}

static bool test_zoneinfo_node_high(void)
{
	const char *text =
		"Node 0, zone      DMA\n  pages free     3840\n        min      4\n"
		"        high     16\n  pagesets\n    cpu: 0\n              high:  0\n"
		"Node 0, zone    DMA32\n        min      3000\n        high     3660\n"
		"              high:  9000\n"
		"Node 1, zone    DMA32\n        high     4000\n";
	uint64_t kb = 0;

	return !frag_zoneinfo_node_high_kb(text, 0, &kb) && kb == (16 + 3660) * 4 &&
	       !frag_zoneinfo_node_high_kb(text, 1, &kb) && kb == 4000 * 4 &&
	       frag_zoneinfo_node_high_kb(text, 2, &kb) == -1;
}

static bool test_node_target(void)
{
	const uint64_t high = 49000, margin = 49000 + 8 * 1024;
	struct frag_opts o = { 0 };
	bool capped;
	uint64_t t;

	/* Default: the node's free memory above its margin, whole chunks. */
	t = frag_node_target_bytes(&o, 800000, high, &capped);
	if (capped || t != (800000 - margin) * 1024 / (2 << 20) * (2 << 20))
		return false;
	/* --size below: as is; above: capped and said so. */
	o.size = UINT64_C(256) << 20;
	if (frag_node_target_bytes(&o, 800000, high, &capped) != o.size || capped)
		return false;
	o.size = UINT64_C(2) << 30;
	t = frag_node_target_bytes(&o, 800000, high, &capped);
	if (!capped || t != (800000 - margin) * 1024 / (2 << 20) * (2 << 20))
		return false;
	/* --percent 50: half of it. */
	o.size = 0;
	o.percent = 50;
	t = frag_node_target_bytes(&o, margin + 1024 * 1024, high, &capped);
	if (capped || t != 512 << 20)
		return false;
	/* Nothing above the margin. */
	o.percent = 0;
	return frag_node_target_bytes(&o, margin, high, &capped) == 0;
}

static bool test_sysfs_choice(void)
{
	char buf[16];

	return !strcmp(frag_sysfs_choice("always [madvise] never\n", buf, sizeof(buf)),
		       "madvise") &&
	       !strcmp(frag_sysfs_choice("[always] defer madvise", buf, sizeof(buf)),
		       "always") &&
	       !strcmp(frag_sysfs_choice("always madvise", buf, sizeof(buf)), "unknown") &&
	       !strcmp(frag_sysfs_choice(NULL, buf, sizeof(buf)), "unknown") &&
	       !strcmp(frag_sysfs_choice("a [defer+madvise-and-more] b", buf, 8),
		       "defer+m");
}

static const struct {
	const char *name;
	bool (*fn)(void);
} cases[] = {
	{ "histogram of no pages", test_empty },
	{ "histogram of one page", test_single },
	{ "histogram of three regions, shuffled, duplicates", test_three_regions },
	{ "histogram of 2000 regions at 128 plus a stray", test_fragmented_memory },
	{ "histogram percentiles are nearest rank", test_percentiles },
	{ "histogram packs the largest pagemap pfns", test_large_pfns },
	{ "histogram rewrites in place safely", test_in_place },
	{ "meminfo and smaps parsing", test_proc_parse },
	{ "vmstat parsing", test_vmstat_parse },
	{ "margin is max(64M, 3% of MemTotal)", test_margin },
	{ "target from MemAvailable, --size, --percent", test_target },
	{ "node meminfo lines", test_node_meminfo },
	{ "--node margin is the node's high watermark + 8M", test_node_margin },
	{ "zoneinfo: a node's summed high watermarks", test_zoneinfo_node_high },
	{ "--node target: the node's free memory above its margin", test_node_target },
	{ "sysfs choice parsing", test_sysfs_choice },
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
