// SPDX-License-Identifier: GPL-2.0
/*
 * frag - fragment physical memory the way the "frag" of seed 001 does, so
 * that compaction has work to do, and hold it there.
 *
 * Allocate (nearly) all available memory as 4K anonymous pages, then free
 * all but a kept share of every 2M chunk.  Pages faulted in address order
 * come mostly in physical order too, so the kept pages end up spread over
 * every 2M physical region (~128 of 512 each) and no free 2M block is
 * left, while everything frag holds stays movable: the easiest case for
 * compaction and so a lower bound on its cost.
 *
 * See frag --help (frag_args.c) for the interface and the output lines.
 */
#define _GNU_SOURCE	/* asprintf(), sigtimedwait() */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "frag.h"

#ifndef MPOL_PREFERRED
#define MPOL_PREFERRED		1	/* <linux/mempolicy.h> */
#endif
#ifndef MPOL_LOCAL
#define MPOL_LOCAL		4	/* <linux/mempolicy.h>, Linux 3.8 */
#endif

#define EXIT_RUNTIME		1
#define EXIT_USAGE		2

#define PAGEMAP_PRESENT		(1ULL << 63)
#define PAGEMAP_PFN_MASK	((1ULL << 55) - 1)

/* Touch this many chunks between two looks at MemAvailable: 16M. */
#define ALLOC_STEP_CHUNKS	8
/* Print at most this many bad pages in detail; the summary counts all. */
#define VERIFY_REPORT_MAX	8

struct frag {
	const struct frag_opts *opts;

	uint8_t *base;			/* 2M aligned */
	uint64_t chunks;		/* 2M chunks allocated */
	uint64_t kept_pages, freed_pages;

	int pagemap_fd;
	bool pfns_visible;
	uint64_t *pfns;			/* scan buffer, one per kept page */
	size_t pfns_cap;
	uint64_t *phys_masks;		/* --pattern phys: each chunk's kept pages */

	FILE *map_file;			/* opened up front, written once */
	int ready_fd;			/* FILE.tmp, renamed to FILE when ready */
	char *ready_tmp;
	unsigned int rescans;

	sigset_t signals;		/* blocked; taken with sigtimedwait() */
	bool stop;			/* SIGTERM or SIGINT arrived */
	bool usr1;			/* SIGUSR1 arrived before ready */
	bool verify_failed;		/* sticky: fails the exit status */
};

static char proc_buf[1 << 16];

static void die(int status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

static void die(int status, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "frag: error: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void note(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "frag: note: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Scripts wait for these lines: each one goes out whole and at once. */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static uint64_t timeval_us(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000 + (uint64_t)tv->tv_usec;
}

/* Read a small /proc or /sys file into proc_buf; NULL if unreadable. */
static const char *read_text(const char *path)
{
	size_t len = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	while (len < sizeof(proc_buf) - 1) {
		n = read(fd, proc_buf + len, sizeof(proc_buf) - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	proc_buf[len] = '\0';
	return proc_buf;
}

static uint64_t meminfo_kb(const char *key)
{
	const char *text = read_text("/proc/meminfo");
	uint64_t kb;

	if (!text || frag_proc_sum_kb(text, key, &kb))
		die(EXIT_RUNTIME, "cannot read %s from /proc/meminfo", key);
	return kb;
}

/* MemFree and MemTotal of a NUMA node, from its sysfs meminfo. */
static void node_meminfo(int node, uint64_t *free_kb, uint64_t *total_kb)
{
	char path[64];
	const char *text;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	text = read_text(path);
	if (!text)
		die(EXIT_RUNTIME, "--node %d: cannot read %s: no such node online?", node,
		    path);
	if (frag_node_meminfo_kb(text, "MemFree", free_kb) ||
	    frag_node_meminfo_kb(text, "MemTotal", total_kb))
		die(EXIT_RUNTIME, "--node %d: no MemFree/MemTotal in %s", node, path);
}

/* The node's high watermark (its zones' summed), kB, from /proc/zoneinfo. */
static uint64_t node_high_wmark_kb(int node)
{
	const char *text = read_text("/proc/zoneinfo");
	uint64_t kb;

	if (!text || frag_zoneinfo_node_high_kb(text, node, &kb))
		die(EXIT_RUNTIME, "--node %d: no zone of the node in /proc/zoneinfo", node);
	return kb;
}

/*
 * What the early stop of allocate() watches: MemAvailable, or with --node
 * the node's MemFree (the other nodes' free memory is not this node's).
 */
static uint64_t watched_free_kb(const struct frag *f)
{
	uint64_t free_kb, total_kb;

	if (f->opts->node < 0)
		return meminfo_kb("MemAvailable");
	node_meminfo(f->opts->node, &free_kb, &total_kb);
	return free_kb;
}

/* Signals ------------------------------------------------------------- */

/*
 * SIGTERM, SIGINT and SIGUSR1 stay blocked and are taken synchronously,
 * so a signal never interrupts a half-written page or report line.
 */
static void block_signals(struct frag *f)
{
	sigemptyset(&f->signals);
	sigaddset(&f->signals, SIGTERM);
	sigaddset(&f->signals, SIGINT);
	sigaddset(&f->signals, SIGUSR1);
	if (sigprocmask(SIG_BLOCK, &f->signals, NULL))
		die(EXIT_RUNTIME, "sigprocmask: %s", strerror(errno));
}

/* Wait up to timeout (NULL: forever) for one; 0 when none came. */
static int take_signal(struct frag *f, const struct timespec *timeout)
{
	int sig;

	do {
		sig = timeout ? sigtimedwait(&f->signals, NULL, timeout) :
				sigwaitinfo(&f->signals, NULL);
	} while (sig < 0 && errno == EINTR);
	return sig < 0 ? 0 : sig;
}

/* Between steps of the long loops: note what arrived, do not wait. */
static bool stop_requested(struct frag *f)
{
	static const struct timespec zero;
	int sig;

	while ((sig = take_signal(f, &zero)) > 0) {
		if (sig == SIGUSR1)
			f->usr1 = true;
		else
			f->stop = true;
	}
	return f->stop;
}

/* Set-up checks, all before the big allocation --------------------------- */

/*
 * Since Linux 4.2 pagemap shows PFN 0 to readers without CAP_SYS_ADMIN
 * (Rowhammer).  Find out on one page of our own.
 */
static bool probe_pfns_visible(int fd)
{
	static volatile uint64_t probe[FRAG_PAGE_SIZE / sizeof(uint64_t)]
		__attribute__((aligned(4096)));
	uint64_t entry;

	if (fd < 0)
		return false;
	probe[0] = 1;
	if (pread(fd, &entry, sizeof(entry),
		  (off_t)((uintptr_t)probe / FRAG_PAGE_SIZE * sizeof(entry))) !=
	    sizeof(entry))
		return false;
	return (entry & PAGEMAP_PRESENT) && (entry & PAGEMAP_PFN_MASK);
}

static void open_outputs(struct frag *f)
{
	const struct frag_opts *o = f->opts;

	f->pagemap_fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	f->pfns_visible = probe_pfns_visible(f->pagemap_fd);
	if (o->pattern == FRAG_PATTERN_PHYS && !f->pfns_visible)
		die(EXIT_USAGE,
		    "refusing --pattern phys: /proc/self/pagemap shows no physical page numbers (PFN 0) because frag lacks CAP_SYS_ADMIN; run frag as root or use another pattern");
	if (o->map_path) {
		if (!f->pfns_visible)
			die(EXIT_USAGE,
			    "refusing --map: /proc/self/pagemap shows no physical page numbers (PFN 0) because frag lacks CAP_SYS_ADMIN; run frag as root or drop --map");
		f->map_file = fopen(o->map_path, "we");
		if (!f->map_file)
			die(EXIT_USAGE, "--map %s: %s", o->map_path, strerror(errno));
	}

	f->ready_fd = -1;
	if (o->ready_path) {
		/* A stale ready file would release a waiting script too early. */
		if (unlink(o->ready_path) && errno != ENOENT)
			die(EXIT_USAGE, "--ready-file %s: cannot remove the old one: %s",
			    o->ready_path, strerror(errno));
		if (asprintf(&f->ready_tmp, "%s.tmp", o->ready_path) < 0)
			die(EXIT_RUNTIME, "out of memory");
		f->ready_fd = open(f->ready_tmp,
				   O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (f->ready_fd < 0)
			die(EXIT_USAGE, "--ready-file %s: cannot create %s: %s",
			    o->ready_path, f->ready_tmp, strerror(errno));
	}
}

static void write_ready(struct frag *f, const char *line)
{
	size_t len = strlen(line);

	say("%s", line);
	if (f->ready_fd < 0)
		return;
	/* Write then rename: whoever sees the file sees all of it. */
	if (write(f->ready_fd, line, len) != (ssize_t)len || close(f->ready_fd) ||
	    rename(f->ready_tmp, f->opts->ready_path))
		die(EXIT_RUNTIME, "--ready-file %s: %s", f->opts->ready_path,
		    strerror(errno));
	f->ready_fd = -1;
}

/* mmap len bytes aligned to 2M, so that chunk k is a 2M-aligned range. */
static uint8_t *map_aligned(uint64_t len)
{
	uint8_t *p, *aligned;
	uintptr_t head;

	p = mmap(NULL, len + FRAG_CHUNK_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	aligned = (uint8_t *)(((uintptr_t)p + FRAG_CHUNK_SIZE - 1) &
			      ~(uintptr_t)(FRAG_CHUNK_SIZE - 1));
	head = (uintptr_t)(aligned - p);
	if (head)
		munmap(p, head);
	munmap(aligned + len, FRAG_CHUNK_SIZE - head);
	return aligned;
}

/* Fragmenting ------------------------------------------------------------- */

/*
 * Fault in the chunks a step at a time.  Before each step check that
 * MemAvailable stays above the margin after it: the target was computed
 * at start, but other processes may have grown since.
 */
static void allocate(struct frag *f, uint64_t target_chunks, uint64_t margin_kb)
{
	const uint64_t step_kb = ALLOC_STEP_CHUNKS * FRAG_CHUNK_SIZE / 1024;
	uint64_t start = now_us(), c, avail_kb = 0, off;

	for (c = 0; c < target_chunks; c++) {
		if (c % ALLOC_STEP_CHUNKS == 0) {
			if (stop_requested(f))
				break;
			avail_kb = watched_free_kb(f);
			if (avail_kb < margin_kb + step_kb) {
				note("stopped allocating at %" PRIu64 " kB of %" PRIu64
				     " kB: %s %" PRIu64 " kB reached the margin %"
				     PRIu64 " kB",
				     c * FRAG_CHUNK_SIZE / 1024,
				     target_chunks * FRAG_CHUNK_SIZE / 1024,
				     f->opts->node < 0 ? "MemAvailable" : "the node's MemFree",
				     avail_kb, margin_kb);
				break;
			}
		}
		/* A write, not a read: a read would map the shared zero page. */
		for (off = 0; off < FRAG_CHUNK_SIZE; off += FRAG_PAGE_SIZE)
			*(volatile uint64_t *)(f->base + c * FRAG_CHUNK_SIZE + off) =
				c * FRAG_CHUNK_PAGES + off / FRAG_PAGE_SIZE + 1;
	}
	f->chunks = c;
	if (c < target_chunks)
		munmap(f->base + c * FRAG_CHUNK_SIZE,
		       (target_chunks - c) * FRAG_CHUNK_SIZE);
	say("frag: allocated size_kb=%" PRIu64 " chunks=%" PRIu64
	    " stopped_early=%d mem_available_kb=%" PRIu64 " elapsed_ms=%" PRIu64 "\n",
	    f->chunks * FRAG_CHUNK_SIZE / 1024, f->chunks, c < target_chunks,
	    meminfo_kb("MemAvailable"), (now_us() - start) / 1000);
}

/* The pages of chunk c that frag keeps. */
static void kept_mask(struct frag *f, uint64_t c, uint64_t mask[FRAG_MASK_WORDS])
{
	if (f->opts->pattern == FRAG_PATTERN_PHYS)
		memcpy(mask, &f->phys_masks[c * FRAG_MASK_WORDS],
		       FRAG_MASK_WORDS * sizeof(mask[0]));
	else
		frag_chunk_mask(f->opts->pattern, f->opts->keep_pages, f->opts->seed, c,
				mask);
}

/* The PFN of every page of chunk c from pagemap (one 4K read), 0 if not present. */
static void read_chunk_pfns(struct frag *f, uint64_t c, uint64_t pfns[FRAG_CHUNK_PAGES])
{
	uint8_t *chunk = f->base + c * FRAG_CHUNK_SIZE;
	unsigned int i;

	if (pread(f->pagemap_fd, pfns, FRAG_CHUNK_PAGES * sizeof(pfns[0]),
		  (off_t)((uintptr_t)chunk / FRAG_PAGE_SIZE * sizeof(pfns[0]))) !=
	    (ssize_t)(FRAG_CHUNK_PAGES * sizeof(pfns[0])))
		die(EXIT_RUNTIME, "reading /proc/self/pagemap: %s", strerror(errno));
	for (i = 0; i < FRAG_CHUNK_PAGES; i++)
		pfns[i] = pfns[i] & PAGEMAP_PRESENT ? pfns[i] & PAGEMAP_PFN_MASK : 0;
}

/*
 * Free the pages the pattern does not keep.  MADV_DONTNEED, not munmap:
 * munmap of every hole would split the mapping into one VMA per hole and
 * run into vm.max_map_count (65530) after ~16k chunks.  Each run of
 * adjacent freed pages takes one call.
 */
static void punch_holes(struct frag *f)
{
	const struct frag_opts *o = f->opts;
	uint64_t mask[FRAG_MASK_WORDS], start = now_us(), c;
	unsigned int i, run;

	f->kept_pages = 0;
	for (c = 0; c < f->chunks; c++) {
		uint8_t *chunk = f->base + c * FRAG_CHUNK_SIZE;

		if (c % 64 == 0 && stop_requested(f))
			return;
		if (o->pattern == FRAG_PATTERN_PHYS) {
			uint64_t pfns[FRAG_CHUNK_PAGES];

			read_chunk_pfns(f, c, pfns);
			frag_phys_mask(pfns, o->keep_pages, &f->phys_masks[c * FRAG_MASK_WORDS]);
		}
		kept_mask(f, c, mask);
		f->kept_pages += frag_mask_weight(mask);
		for (i = 0; i < FRAG_CHUNK_PAGES; i += run) {
			for (run = 0; i + run < FRAG_CHUNK_PAGES &&
				      !frag_mask_test(mask, i + run); run++)
				;
			if (!run) {
				run = 1;
				continue;
			}
			if (madvise(chunk + i * FRAG_PAGE_SIZE, run * FRAG_PAGE_SIZE,
				    MADV_DONTNEED))
				die(EXIT_RUNTIME, "madvise(MADV_DONTNEED): %s",
				    strerror(errno));
		}
	}
	f->freed_pages = f->chunks * FRAG_CHUNK_PAGES - f->kept_pages;
	say("frag: freed pages=%" PRIu64 " mem_available_kb=%" PRIu64
	    " elapsed_ms=%" PRIu64 "\n",
	    f->freed_pages, meminfo_kb("MemAvailable"), (now_us() - start) / 1000);
}

static uint64_t *page_at(struct frag *f, uint64_t c, unsigned int i)
{
	return (uint64_t *)(f->base + c * FRAG_CHUNK_SIZE + i * FRAG_PAGE_SIZE);
}

static void verify_fill(struct frag *f)
{
	uint64_t mask[FRAG_MASK_WORDS], c, start = now_us();
	unsigned int i;

	for (c = 0; c < f->chunks; c++) {
		kept_mask(f, c, mask);
		for (i = 0; i < FRAG_CHUNK_PAGES; i++)
			if (frag_mask_test(mask, i))
				frag_verify_fill(page_at(f, c, i), f->opts->seed,
						 c * FRAG_CHUNK_PAGES + i);
	}
	say("frag: verify filled pages=%" PRIu64 " elapsed_ms=%" PRIu64 "\n",
	    f->kept_pages, (now_us() - start) / 1000);
}

static uint64_t pfn_of(struct frag *f, const void *addr)
{
	uint64_t entry;

	if (!f->pfns_visible ||
	    pread(f->pagemap_fd, &entry, sizeof(entry),
		  (off_t)((uintptr_t)addr / FRAG_PAGE_SIZE * sizeof(entry))) !=
	    sizeof(entry) || !(entry & PAGEMAP_PRESENT))
		return 0;
	return entry & PAGEMAP_PFN_MASK;
}

/* Check every kept page; report the first few bad ones and a summary. */
static void verify_check(struct frag *f, const char *when)
{
	uint64_t mask[FRAG_MASK_WORDS], c, bad = 0, first = 0, start = now_us();
	unsigned int i;

	for (c = 0; c < f->chunks; c++) {
		kept_mask(f, c, mask);
		for (i = 0; i < FRAG_CHUNK_PAGES; i++) {
			uint64_t page = c * FRAG_CHUNK_PAGES + i;
			const uint64_t *mem = page_at(f, c, i);
			int w;

			if (!frag_mask_test(mask, i))
				continue;
			w = frag_verify_check(mem, f->opts->seed, page);
			if (w < 0)
				continue;
			if (!bad++)
				first = page;
			if (bad <= VERIFY_REPORT_MAX)
				say("frag: verify-bad page=%" PRIu64 " addr=%p pfn=%" PRIu64
				    " word=%d expected=0x%016" PRIx64 " got=0x%016" PRIx64 "\n",
				    page, (const void *)mem, pfn_of(f, mem), w,
				    frag_verify_word(f->opts->seed, page, w), mem[w]);
		}
	}
	if (bad) {
		f->verify_failed = true;
		say("frag: verify FAILED page=%" PRIu64 " bad_pages=%" PRIu64
		    " pages=%" PRIu64 " when=%s\n",
		    first, bad, f->kept_pages, when);
	} else {
		say("frag: verify ok pages=%" PRIu64 " when=%s elapsed_ms=%" PRIu64 "\n",
		    f->kept_pages, when, (now_us() - start) / 1000);
	}
}

/* Write the regions frag_hist_build() left in f->pfns as the map CSV. */
static void write_map(struct frag *f, const char *path, size_t regions)
{
	FILE *out = f->map_file;	/* the first map: opened up front */
	size_t k;

	if (!out || f->rescans) {
		out = fopen(path, "we");
		if (!out) {
			note("--map %s: %s", path, strerror(errno));
			return;
		}
	}
	fprintf(out, "region_pfn,mapped_pages\n");
	for (k = 0; k < regions; k++)
		fprintf(out, "%" PRIu64 ",%u\n", frag_hist_region_pfn(f->pfns[k]),
			frag_hist_count(f->pfns[k]));
	if (out == f->map_file)
		f->map_file = NULL;
	if (ferror(out) | fclose(out))
		die(EXIT_RUNTIME, "--map %s: write failed", path);
	say("frag: map file=%s regions=%zu\n", path, regions);
}

/*
 * Read the PFN of every kept page from pagemap, one 2M chunk (one 4K read)
 * at a time, and bin them by 2M physical region.
 */
static void scan_map(struct frag *f, const char *map_path)
{
	uint64_t pfns[FRAG_CHUNK_PAGES], mask[FRAG_MASK_WORDS], c;
	uint64_t missing = 0, stray = 0, start = now_us();
	struct frag_hist h;
	size_t n = 0, regions;
	unsigned int i, b, width = FRAG_CHUNK_PAGES / FRAG_HIST_BUCKETS;
	char line[64 * FRAG_HIST_BUCKETS];
	int len = 0;

	if (!f->pfns_visible) {
		say("frag: histogram unavailable reason=no-pfns (pagemap shows PFNs only with CAP_SYS_ADMIN)\n");
		return;
	}
	for (c = 0; c < f->chunks; c++) {
		read_chunk_pfns(f, c, pfns);
		kept_mask(f, c, mask);
		for (i = 0; i < FRAG_CHUNK_PAGES; i++) {
			/* PFNs are visible here, and PFN 0 is never a user page. */
			bool present = pfns[i];

			if (!frag_mask_test(mask, i)) {
				stray += present;
				continue;
			}
			if (!present || n == f->pfns_cap) {
				missing++;
				continue;
			}
			f->pfns[n++] = pfns[i];
		}
	}

	regions = frag_hist_build(f->pfns, n, &h);
	say("frag: histogram regions=%zu pages=%" PRIu64 " min=%u p10=%u median=%u"
	    " p90=%u max=%u mean=%.1f missing=%" PRIu64 " stray=%" PRIu64
	    " elapsed_ms=%" PRIu64 "\n",
	    h.regions, h.pages, h.min, h.p10, h.median, h.p90, h.max, h.mean,
	    missing, stray, (now_us() - start) / 1000);
	for (b = 0; b < FRAG_HIST_BUCKETS; b++)
		len += snprintf(line + len, sizeof(line) - len, " %u-%u=%zu",
				b * width + 1, (b + 1) * width, h.buckets[b]);
	say("frag: histogram-buckets%s\n", line);

	if (map_path)
		write_map(f, map_path, regions);
}

/*
 * The scan buffer, allocated and faulted before fragmenting, so that
 * scanning later does not itself fill the holes frag just made.
 */
static void reserve_scan_buffer(struct frag *f, uint64_t target_chunks)
{
	unsigned int per_chunk = f->opts->keep_pages;
	size_t bytes;

	if (!f->pfns_visible)
		return;
	if (f->opts->pattern == FRAG_PATTERN_PHYS) {
		/* Its masks too; a chunk that straddles regions can keep more than K. */
		bytes = target_chunks * FRAG_MASK_WORDS * sizeof(uint64_t);
		f->phys_masks = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (f->phys_masks == MAP_FAILED)
			die(EXIT_RUNTIME, "cannot map %zu bytes for the kept-page masks", bytes);
		per_chunk = per_chunk * 2 < FRAG_CHUNK_PAGES ? per_chunk * 2 : FRAG_CHUNK_PAGES;
	}
	f->pfns_cap = target_chunks * per_chunk;
	bytes = f->pfns_cap * sizeof(uint64_t);
	f->pfns = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (f->pfns == MAP_FAILED)
		die(EXIT_RUNTIME, "cannot map %zu bytes for the pagemap scan", bytes);
}

static void rescan(struct frag *f, const char *why)
{
	char *path = NULL;

	if (f->opts->verify)
		verify_check(f, why);
	else
		say("frag: verify off when=%s\n", why);
	if (f->opts->map_path &&
	    asprintf(&path, "%s.%u", f->opts->map_path, ++f->rescans) < 0)
		die(EXIT_RUNTIME, "out of memory");
	scan_map(f, path);
	free(path);
}

/* Holding ----------------------------------------------------------------- */

/*
 * Hold until SIGTERM/SIGINT or the --hold-seconds deadline; on_usr1 runs
 * for each SIGUSR1.  Returns what ended the hold.
 */
static const char *hold(struct frag *f, void (*on_usr1)(struct frag *))
{
	long seconds = f->opts->hold_seconds;
	uint64_t deadline = now_us() + (uint64_t)(seconds < 0 ? 0 : seconds) * 1000000;

	if (f->usr1) {
		f->usr1 = false;
		on_usr1(f);
	}
	while (!f->stop) {
		struct timespec left;
		uint64_t now = now_us();
		int sig;

		if (seconds >= 0) {
			if (now >= deadline)
				return "timeout";
			left.tv_sec = (deadline - now) / 1000000;
			left.tv_nsec = (deadline - now) % 1000000 * 1000;
		}
		sig = take_signal(f, seconds >= 0 ? &left : NULL);
		if (sig == SIGUSR1)
			on_usr1(f);
		else if (sig)
			f->stop = true;
	}
	return "signal";
}

static void fragment_usr1(struct frag *f)
{
	rescan(f, "sigusr1");
}

static int fragment(struct frag *f)
{
	const struct frag_opts *o = f->opts;
	uint64_t total_kb = meminfo_kb("MemTotal");
	uint64_t avail_kb = meminfo_kb("MemAvailable");
	uint64_t margin_kb = frag_margin_kb(total_kb);
	uint64_t target, target_chunks;
	const char *why;
	char ready[512];
	bool capped;

	if (o->node >= 0) {
		uint64_t node_free_kb, node_total_kb, node_high_kb;

		node_meminfo(o->node, &node_free_kb, &node_total_kb);
		node_high_kb = node_high_wmark_kb(o->node);
		target = frag_node_target_bytes(o, node_free_kb, node_high_kb, &capped);
		/* The early stop watches the node's MemFree against this. */
		margin_kb = frag_node_margin_kb(node_high_kb);
		say("frag: node %d free_kb=%" PRIu64 " total_kb=%" PRIu64 " high_kb=%" PRIu64
		    " margin_kb=%" PRIu64 " target_kb=%" PRIu64 "\n", o->node, node_free_kb,
		    node_total_kb, node_high_kb, margin_kb, target / 1024);
	} else {
		target = frag_target_bytes(o, total_kb, avail_kb, &capped);
	}
	if (capped)
		note("--size %" PRIu64 " kB is more than the free memory above the margin; taking %"
		     PRIu64 " kB", o->size / 1024, target / 1024);
	if (!target)
		die(EXIT_RUNTIME,
		    "nothing to allocate: MemAvailable %" PRIu64 " kB leaves less than one 2M chunk above the margin %" PRIu64 " kB",
		    avail_kb, margin_kb);
	target_chunks = target / FRAG_CHUNK_SIZE;
	say("frag: start target_kb=%" PRIu64 " margin_kb=%" PRIu64
	    " mem_total_kb=%" PRIu64 " mem_available_kb=%" PRIu64
	    " pattern=%s keep_pages_per_2m=%u seed=%" PRIu64 " verify=%d pfns=%d\n",
	    target / 1024, margin_kb, total_kb, avail_kb,
	    frag_pattern_name(o->pattern), o->keep_pages, o->seed, o->verify,
	    f->pfns_visible);

	reserve_scan_buffer(f, target_chunks);
	f->base = map_aligned(target);
	if (!f->base)
		die(EXIT_RUNTIME, "mmap of %" PRIu64 " kB: %s", target / 1024,
		    strerror(errno));
	/* 4K pages only: a THP would fill a whole 2M block that frag wants split. */
	if (madvise(f->base, target, MADV_NOHUGEPAGE) && errno != EINVAL)
		die(EXIT_RUNTIME, "madvise(MADV_NOHUGEPAGE): %s", strerror(errno));
	/*
	 * Keep NUMA balancing off the mapping: it skips a VMA with any explicit
	 * policy that lacks MPOL_F_NUMA_BALANCING, and MPOL_LOCAL allocates
	 * just as the default policy does (local node first, then fallback).
	 * Without this, the first pass over the kept pages (--verify) takes
	 * NUMA hinting faults that migrate the remote-node ones to the local
	 * node, packed together: 256 or 512 kept pages per region there, and
	 * whole free 2M blocks on the other node.
	 */
	if (o->node >= 0) {
		/*
		 * --node: prefer the node (the same for NUMA balancing, which
		 * skips it too); a bind would reclaim or OOM on that node
		 * instead of spilling the last pages over.
		 */
		unsigned long mask[(FRAG_NODE_MAX + 1) / (8 * sizeof(unsigned long))] = { 0 };

		mask[o->node / (8 * sizeof(unsigned long))] |=
			1UL << (o->node % (8 * sizeof(unsigned long)));
		if (syscall(SYS_mbind, f->base, target, MPOL_PREFERRED, mask,
			    (unsigned long)FRAG_NODE_MAX + 2, 0U))
			die(EXIT_RUNTIME, "mbind(MPOL_PREFERRED, node %d): %s", o->node,
			    strerror(errno));
	} else if (syscall(SYS_mbind, f->base, target, MPOL_LOCAL, NULL, 0UL, 0U) &&
		   errno != ENOSYS) {
		note("mbind(MPOL_LOCAL): %s; NUMA balancing may move frag's pages",
		     strerror(errno));
	}

	allocate(f, target_chunks, margin_kb);
	if (!f->stop)
		punch_holes(f);
	if (f->stop) {
		if (f->ready_tmp)
			unlink(f->ready_tmp);
		say("frag: interrupted before ready\n");
		say("frag: exit status=0 reason=signal\n");
		return 0;
	}
	if (o->verify)
		verify_fill(f);
	/*
	 * The chunks allocated (an early stop unmaps the rest); MLOCK_ONFAULT
	 * locks what is mapped and does not fault the holes back in.
	 */
	if (o->mlock && mlock2(f->base, f->chunks * FRAG_CHUNK_SIZE, MLOCK_ONFAULT))
		die(EXIT_RUNTIME, "mlock2(MLOCK_ONFAULT): %s", strerror(errno));
	scan_map(f, o->map_path);

	snprintf(ready, sizeof(ready),
		 "frag: ready kept_pages=%" PRIu64 " freed_pages=%" PRIu64
		 " chunks=%" PRIu64 " size_kb=%" PRIu64 " kept_kb=%" PRIu64
		 " pattern=%s keep_pages_per_2m=%u seed=%" PRIu64 " verify=%d mlock=%d node=%d pid=%d\n",
		 f->kept_pages, f->freed_pages, f->chunks,
		 f->chunks * FRAG_CHUNK_SIZE / 1024, f->kept_pages * FRAG_PAGE_SIZE / 1024,
		 frag_pattern_name(o->pattern), o->keep_pages, o->seed, o->verify,
		 o->mlock, o->node, (int)getpid());
	write_ready(f, ready);

	why = hold(f, fragment_usr1);
	if (o->verify)
		verify_check(f, "exit");
	say("frag: exit status=%d reason=%s\n", f->verify_failed ? 1 : 0, why);
	return f->verify_failed ? EXIT_RUNTIME : 0;
}

/* THP touch ---------------------------------------------------------------- */

static uint64_t thp_touch_size;

static uint64_t anon_huge_kb(void)
{
	const char *text = read_text("/proc/self/smaps_rollup");
	uint64_t kb;

	/* smaps_rollup came in 4.14; sum the per-mapping lines otherwise. */
	if (text && !frag_proc_sum_kb(text, "AnonHugePages", &kb))
		return kb;
	text = read_text("/proc/self/smaps");
	if (text && !frag_proc_sum_kb(text, "AnonHugePages", &kb))
		return kb;
	return 0;
}

static void thp_vmstat(uint64_t *alloc, uint64_t *fallback)
{
	const char *text = read_text("/proc/vmstat");

	*alloc = *fallback = 0;
	if (!text)
		return;
	frag_vmstat_value(text, "thp_fault_alloc", alloc);
	frag_vmstat_value(text, "thp_fault_fallback", fallback);
}

static const char *thp_setting(const char *name, char *buf, size_t len)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/kernel/mm/transparent_hugepage/%s", name);
	return frag_sysfs_choice(read_text(path), buf, len);
}

static void thp_usr1(struct frag *f)
{
	uint64_t kb = anon_huge_kb();

	(void)f;
	say("frag: thp-touch-status size_kb=%" PRIu64 " anon_huge_kb=%" PRIu64
	    " thp_share_pct=%.1f\n", thp_touch_size / 1024, kb,
	    100.0 * kb * 1024 / thp_touch_size);
}

static int thp_touch(struct frag *f)
{
	uint64_t size = f->opts->thp_touch, total_kb = meminfo_kb("MemTotal");
	uint64_t avail_kb = meminfo_kb("MemAvailable"), huge_kb;
	uint64_t alloc0, fallback0, alloc1, fallback1, t0, t1, off;
	struct frag_opts sized = { .size = size };
	struct rusage r0, r1;
	char enabled[32], defrag[32], ready[256];
	const char *why;
	uint8_t *p;
	bool capped;

	frag_target_bytes(&sized, total_kb, avail_kb, &capped);
	if (capped)
		die(EXIT_RUNTIME,
		    "--thp-touch %" PRIu64 " kB is more than MemAvailable %" PRIu64
		    " kB minus the margin %" PRIu64 " kB: refusing rather than risk the OOM killer",
		    size / 1024, avail_kb, frag_margin_kb(total_kb));
	thp_touch_size = size;

	p = map_aligned(size);
	if (!p)
		die(EXIT_RUNTIME, "mmap of %" PRIu64 " kB: %s", size / 1024,
		    strerror(errno));
	if (madvise(p, size, MADV_HUGEPAGE))
		note("madvise(MADV_HUGEPAGE): %s (no THP in this kernel?)",
		     strerror(errno));

	thp_vmstat(&alloc0, &fallback0);
	getrusage(RUSAGE_SELF, &r0);
	t0 = now_us();
	/* Write every 4K page, as a JVM's AlwaysPreTouch does. */
	for (off = 0; off < size; off += FRAG_PAGE_SIZE)
		*(volatile uint8_t *)(p + off) = 1;
	t1 = now_us();
	getrusage(RUSAGE_SELF, &r1);
	thp_vmstat(&alloc1, &fallback1);
	huge_kb = anon_huge_kb();

	say("frag: thp-touch size_kb=%" PRIu64 " elapsed_us=%" PRIu64
	    " user_us=%" PRIu64 " sys_us=%" PRIu64 " minflt=%ld anon_huge_kb=%" PRIu64
	    " thp_share_pct=%.1f thp_fault_alloc=%" PRIu64
	    " thp_fault_fallback=%" PRIu64 " thp_enabled=%s thp_defrag=%s\n",
	    size / 1024, t1 - t0,
	    timeval_us(&r1.ru_utime) - timeval_us(&r0.ru_utime),
	    timeval_us(&r1.ru_stime) - timeval_us(&r0.ru_stime),
	    r1.ru_minflt - r0.ru_minflt, huge_kb, 100.0 * huge_kb * 1024 / size,
	    alloc1 - alloc0, fallback1 - fallback0,
	    thp_setting("enabled", enabled, sizeof(enabled)),
	    thp_setting("defrag", defrag, sizeof(defrag)));

	snprintf(ready, sizeof(ready),
		 "frag: ready kept_pages=%" PRIu64 " mode=thp-touch size_kb=%" PRIu64
		 " pid=%d\n", size / FRAG_PAGE_SIZE, size / 1024, (int)getpid());
	write_ready(f, ready);
	why = hold(f, thp_usr1);
	say("frag: exit status=0 reason=%s\n", why);
	return 0;
}

int main(int argc, char **argv)
{
	struct frag_opts opts;
	struct frag f = { .opts = &opts, .pagemap_fd = -1, .ready_fd = -1 };
	char err[256];

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (frag_parse_args(argc, argv, &opts, err, sizeof(err))) {
		fprintf(stderr, "frag: error: %s\nTry 'frag --help'.\n", err);
		return EXIT_USAGE;
	}
	if (opts.help) {
		fputs(frag_usage, stdout);
		return 0;
	}
	if (sysconf(_SC_PAGESIZE) != (long)FRAG_PAGE_SIZE)
		die(EXIT_RUNTIME, "frag assumes 4K pages, this system has %ld",
		    sysconf(_SC_PAGESIZE));

	block_signals(&f);
	open_outputs(&f);
	if (opts.thp_touch)
		return thp_touch(&f);
	return fragment(&f);
}
