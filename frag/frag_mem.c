// SPDX-License-Identifier: GPL-2.0
/*
 * frag_mem.c - how much frag may take, and the /proc and /sys text it reads
 * to decide and to report.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frag.h"

/*
 * Sum the values of every "key:   N kB" line of text (/proc/meminfo has
 * each key once; /proc/self/smaps has one per mapping).  Returns 0, or -1
 * when no line has the key.
 */
int frag_proc_sum_kb(const char *text, const char *key, uint64_t *kb)
{
	size_t key_len = strlen(key);
	const char *line = text;
	bool found = false;
	uint64_t sum = 0;

	while (line && *line) {
		if (!strncmp(line, key, key_len) && line[key_len] == ':') {
			sum += strtoull(line + key_len + 1, NULL, 10);
			found = true;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
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
	size_t key_len = strlen(key);
	const char *line = text;

	while (line && *line) {
		if (!strncmp(line, key, key_len) && line[key_len] == ' ') {
			*value = strtoull(line + key_len + 1, NULL, 10);
			return 0;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
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
	uint64_t safe, want;

	safe = mem_available_kb > margin_kb ?
		(mem_available_kb - margin_kb) * 1024 : 0;
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
