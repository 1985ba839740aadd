// SPDX-License-Identifier: GPL-2.0
/*
 * frag_mem.c - how much frag may take, and the /proc and /sys text it reads
 * to decide and to report.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frag.h"

/* The line after line in a NUL-terminated text, or NULL after the last. */
static const char *next_line(const char *line)
{
	line = strchr(line, '\n');
	return line ? line + 1 : NULL;
}

/*
 * If line starts with key and then sep, the number after them in *value:
 * returns true.  The matching rule of every "key<sep> value" file read here.
 */
static bool key_value(const char *line, const char *key, char sep, uint64_t *value)
{
	size_t key_len = strlen(key);

	if (strncmp(line, key, key_len) || line[key_len] != sep)
		return false;
	*value = strtoull(line + key_len + 1, NULL, 10);
	return true;
}

/*
 * Sum the values of every "key:   N kB" line of text (/proc/meminfo has
 * each key once; /proc/self/smaps has one per mapping).  Returns 0, or -1
 * when no line has the key.
 */
int frag_proc_sum_kb(const char *text, const char *key, uint64_t *kb)
{
	const char *line;
	bool found = false;
	uint64_t sum = 0, value;

	for (line = text; line && *line; line = next_line(line)) {
		if (key_value(line, key, ':', &value)) {
			sum += value;
			found = true;
		}
	}
	if (!found)
		return -1;
	*kb = sum;
	return 0;
}

/*
 * The value of the "key value" line of /proc/vmstat.  Returns 0, or -1
 * when no line has the key (counters differ between kernel versions).
 */
int frag_vmstat_value(const char *text, const char *key, uint64_t *value)
{
	const char *line;

	for (line = text; line && *line; line = next_line(line))
		if (key_value(line, key, ' ', value))
			return 0;
	return -1;
}

/*
 * What frag leaves alone: max(64M, 3% of MemTotal).  64M is room for the
 * kernel's own allocations during the run on a small VM; 3% scales it on
 * big machines, where per-cpu lists and slab growth need more.
 */
uint64_t frag_margin_kb(uint64_t mem_total_kb)
{
	uint64_t pct = mem_total_kb * FRAG_MARGIN_PERCENT / 100;

	return pct > FRAG_MARGIN_MIN_KB ? pct : FRAG_MARGIN_MIN_KB;
}

/*
 * The value of "Node N key:   V kB" in a node's meminfo
 * (/sys/devices/system/node/nodeN/meminfo).  Returns 0, or -1 when no
 * line has the key.
 */
int frag_node_meminfo_kb(const char *text, const char *key, uint64_t *kb)
{
	const char *line;

	for (line = text; line && *line; line = next_line(line)) {
		const char *p = line;

		if (strncmp(p, "Node ", 5))
			continue;
		p += 5;
		while (*p >= '0' && *p <= '9')
			p++;
		while (*p == ' ')
			p++;
		if (key_value(p, key, ':', kb))
			return 0;
	}
	return -1;
}

/*
 * --node: what frag leaves free on the node: its high watermark (the sum
 * of its zones') plus 8 MB.  Below the high watermark the allocator would
 * wake kswapd and, below low, spill the preferred node's pages onto the
 * next node; with the same rule on every node each ends alike, with a
 * small unfragmented remainder (score ~95 on a 1.5 GiB node).
 */
uint64_t frag_node_margin_kb(uint64_t node_high_kb)
{
	return node_high_kb + FRAG_NODE_SLACK_KB;
}

/*
 * The high watermarks of node's zones from /proc/zoneinfo, summed, in kB:
 * the "high N" line (pages) of every "Node N, zone Z" section.  Returns 0,
 * or -1 when the node has no zone.
 */
int frag_zoneinfo_node_high_kb(const char *zoneinfo, int node, uint64_t *kb)
{
	const char *line;
	bool mine = false, found = false;
	uint64_t pages = 0;

	for (line = zoneinfo; line && *line; line = next_line(line)) {
		const char *p = line;
		int n;

		if (sscanf(p, "Node %d, zone", &n) == 1) {
			mine = n == node;
			found |= mine;
		} else if (mine) {
			while (*p == ' ' || *p == '\t')
				p++;
			if (!strncmp(p, "high ", 5))
				pages += strtoull(p + 5, NULL, 10);
		}
	}
	if (!found)
		return -1;
	*kb = pages * (FRAG_PAGE_SIZE / 1024);
	return 0;
}

/*
 * What --size / --percent ask for out of @safe bytes, capped at @safe
 * (*capped says so) and rounded down to whole 2M chunks.
 */
static uint64_t frag_chunks_within(const struct frag_opts *o, uint64_t safe,
				   bool *capped)
{
	uint64_t want;

	if (o->size)
		want = o->size;
	else if (o->percent > 0.0)
		want = (uint64_t)((double)safe * o->percent / 100.0);
	else
		want = safe;
	*capped = want > safe;
	if (want > safe)
		want = safe;
	return want / FRAG_CHUNK_SIZE * FRAG_CHUNK_SIZE;
}

/*
 * --node: bytes to allocate on the node, whole 2M chunks: what the node
 * has free above its margin; --percent is a share of it, --size is capped
 * at it (*capped says so).
 */
uint64_t frag_node_target_bytes(const struct frag_opts *o, uint64_t node_free_kb,
				uint64_t node_high_kb, bool *capped)
{
	uint64_t margin_kb = frag_node_margin_kb(node_high_kb);

	return frag_chunks_within(o, node_free_kb > margin_kb ?
				  (node_free_kb - margin_kb) * 1024 : 0, capped);
}

/*
 * Bytes to allocate, whole 2M chunks.  The safe amount is MemAvailable
 * minus the margin; --percent is a share of it, --size is capped at it
 * (*capped says so).  MemAvailable already excludes the watermark
 * reserves and counts reclaimable page cache, so staying below it cannot
 * drive the kernel to the OOM killer.
 */
uint64_t frag_target_bytes(const struct frag_opts *o, uint64_t mem_total_kb,
			   uint64_t mem_available_kb, bool *capped)
{
	uint64_t margin_kb = frag_margin_kb(mem_total_kb);

	return frag_chunks_within(o, mem_available_kb > margin_kb ?
				  (mem_available_kb - margin_kb) * 1024 : 0, capped);
}

/*
 * The chosen word of a sysfs choice file, "always [madvise] never" ->
 * "madvise"; "unknown" when there is no bracketed word.
 */
const char *frag_sysfs_choice(const char *text, char *buf, size_t len)
{
	const char *open = text ? strchr(text, '[') : NULL;
	const char *close = open ? strchr(open, ']') : NULL;
	size_t n;

	if (!open || !close || len == 0) {
		snprintf(buf, len, "unknown");
		return buf;
	}
	n = (size_t)(close - open - 1);
	if (n >= len)
		n = len - 1;
	memcpy(buf, open + 1, n);
	buf[n] = '\0';
	return buf;
}
