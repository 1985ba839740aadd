// SPDX-License-Identifier: GPL-2.0
/*
 * frag_args.c - command line parsing for frag.
 *
 * Pure: no allocation, no output, no exit.  Every error comes back as a
 * message in err so that frag can print it and exit before it allocates
 * anything, and so the unit tests can check each bad input.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frag.h"

const char frag_usage[] =
"Usage: frag [--size SIZE | --percent P] [--keep FRACTION]\n"
"            [--pattern stride|chunk|random] [--seed N] [--map FILE] [--verify]\n"
"            [--mlock] [--node N]\n"
"            [--ready-file FILE] [--hold | --hold-seconds N]\n"
"       frag --thp-touch SIZE [--ready-file FILE] [--hold | --hold-seconds N]\n"
"\n"
"Fragment physical memory: allocate (nearly) all available memory as 4K\n"
"anonymous pages (MADV_NOHUGEPAGE), then free (MADV_DONTNEED) all but a kept\n"
"share of the pages of every 2M chunk, so that every 2M physical region keeps\n"
"~128 of its 512 pages mapped and no free 2M block is left.  Then hold the\n"
"memory until signalled.  The mapping gets the MPOL_LOCAL policy, which\n"
"allocates as the default one does but keeps NUMA balancing from moving it.\n"
"\n"
"Fragmenting (the default mode):\n"
"  --size SIZE        allocate SIZE bytes; suffix K, M, G or T (binary), rounded\n"
"                     down to whole 2M chunks, at least 2M.  Capped at the safe\n"
"                     amount below.\n"
"  --percent P        allocate P% (0 < P <= 100) of the safe amount.\n"
"                     Default: the safe amount = MemAvailable - margin, with\n"
"                     margin = max(64M, 3% of MemTotal).  Allocation also stops\n"
"                     early whenever MemAvailable would fall below the margin,\n"
"                     so the OOM killer never fires.\n"
"  --keep FRACTION    share of each 2M chunk's pages kept mapped, 0 < FRACTION\n"
"                     <= 1, as a decimal or a/b; rounded to whole pages, at\n"
"                     least 1 of 512 (default 0.25 = 128 pages)\n"
"  --pattern P        which pages of a 2M chunk are kept:\n"
"                       stride  evenly spaced, every 4th page for 0.25 (default)\n"
"                       chunk   the first pages of the chunk (128 for 0.25)\n"
"                       random  random pages, the same number in every chunk\n"
"                       phys    stride by physical address: the pages at the\n"
"                               same offsets of every 2M physical region\n"
"                               (every 4th PFN for 0.25); needs CAP_SYS_ADMIN\n"
"                               to read PFNs, refused up front without it\n"
"  --node N           fill NUMA node N: the mapping prefers node N\n"
"                     (MPOL_PREFERRED instead of MPOL_LOCAL) and the amount\n"
"                     is the node's MemFree minus its margin (the node's\n"
"                     high watermark + 8M; the early stop watches the\n"
"                     node's MemFree against it); run one frag per node to\n"
"                     give every node the same layout whichever CPU runs it\n"
"  --seed N           seed of --pattern random and of --verify (default 1)\n"
"  --map FILE         write the physical occupancy map as CSV, header\n"
"                     \"region_pfn,mapped_pages\", one row per 2M physical region\n"
"                     holding frag's pages (region_pfn = first PFN, decimal).\n"
"                     Needs CAP_SYS_ADMIN (root) to read PFNs from\n"
"                     /proc/self/pagemap; refused up front without it.  Each\n"
"                     SIGUSR1 writes the map again to FILE.1, FILE.2, ...\n"
"  --verify           fill every kept page with a per-page pattern and check\n"
"                     them all on SIGUSR1 and at exit (\"nothing lost\" while\n"
"                     compaction migrates the pages)\n"
"\n"
"THP touch (a separate mode, like a JVM heap pre-touch):\n"
"  --mlock           mlock the kept pages (mlock2 MLOCK_ONFAULT, so the freed\n"
"                     ones stay free): unevictable memory, which compaction\n"
"                     may move only while vm.compact_unevictable_allowed=1\n"
"  --thp-touch SIZE   do not fragment: mmap SIZE (rounded down to 2M, at least\n"
"                     2M, at most the safe amount) anonymous, MADV_HUGEPAGE,\n"
"                     write every 4K page, print the time taken and the share\n"
"                     backed by huge pages, then exit, or hold when --hold or\n"
"                     --hold-seconds is given.  Combines only with\n"
"                     --ready-file, --hold and --hold-seconds.\n"
"\n"
"Both modes:\n"
"  --ready-file FILE  removed at start; created (holding the ready line) once\n"
"                     the memory is in place\n"
"  --hold             hold until SIGTERM/SIGINT (default when fragmenting)\n"
"  --hold-seconds N   hold N seconds, or until SIGTERM/SIGINT; 0 = exit when\n"
"                     ready\n"
"  -h, --help         print this text and exit\n"
"\n"
"Signals while holding: SIGUSR1 = check the --verify pattern, rescan the map\n"
"and keep holding; SIGTERM, SIGINT = final check, exit.\n"
"\n"
"Output (stdout, flushed, one line each, key=value fields):\n"
"  frag: ready kept_pages=N freed_pages=N chunks=N size_kb=N kept_kb=N ...\n"
"  frag: histogram regions=N pages=N min=N p10=N median=N p90=N max=N mean=X\n"
"  frag: verify ok pages=N ...  |  frag: verify FAILED page=N bad_pages=N ...\n"
"  frag: thp-touch size_kb=N elapsed_us=N user_us=N sys_us=N anon_huge_kb=N\n"
"        thp_share_pct=X ...\n"
"  frag: exit status=N\n"
"\n"
"Exit status: 0 ok, 1 runtime error or verify failure, 2 bad arguments\n"
"(including --map without CAP_SYS_ADMIN).\n";

enum {
	OPT_SIZE, OPT_PERCENT, OPT_KEEP, OPT_PATTERN, OPT_SEED, OPT_HOLD,
	OPT_HOLD_SECONDS, OPT_MAP, OPT_READY_FILE, OPT_VERIFY, OPT_MLOCK, OPT_THP_TOUCH,
	OPT_NODE, OPT_HELP, OPT_COUNT
};

static const struct {
	const char *name;
	bool has_value;
} frag_options[OPT_COUNT] = {
	[OPT_SIZE]		= { "size", true },
	[OPT_PERCENT]		= { "percent", true },
	[OPT_KEEP]		= { "keep", true },
	[OPT_PATTERN]		= { "pattern", true },
	[OPT_SEED]		= { "seed", true },
	[OPT_HOLD]		= { "hold", false },
	[OPT_HOLD_SECONDS]	= { "hold-seconds", true },
	[OPT_MAP]		= { "map", true },
	[OPT_READY_FILE]	= { "ready-file", true },
	[OPT_VERIFY]		= { "verify", false },
	[OPT_MLOCK]		= { "mlock", false },
	[OPT_THP_TOUCH]		= { "thp-touch", true },
	[OPT_NODE]		= { "node", true },
	[OPT_HELP]		= { "help", false },
};

/* Options that only make sense when fragmenting, i.e. not with --thp-touch. */
static const int frag_only_options[] = {
	OPT_SIZE, OPT_PERCENT, OPT_KEEP, OPT_PATTERN, OPT_SEED, OPT_MAP,
	OPT_VERIFY, OPT_MLOCK, OPT_NODE,
};

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * Parse the leading decimal digits of s into *v.  Returns the number of
 * digits (0 if none), or -1 on overflow.
 */
static int parse_digits(const char *s, uint64_t *v)
{
	uint64_t x = 0;
	int n = 0;

	for (; s[n] >= '0' && s[n] <= '9'; n++) {
		unsigned int d = s[n] - '0';

		if (x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
	}
	*v = x;
	return n;
}

/*
 * SIZE: decimal digits and an optional binary suffix K, M, G or T (either
 * case).  Nothing else: no sign, no spaces, no "MB", no fractions, so that
 * a typo is an error rather than a surprising size.
 */
int frag_parse_size(const char *s, uint64_t *bytes, char *err, size_t errlen)
{
	uint64_t v, mult = 1;
	int n;

	if (!*s)
		return fail(err, errlen, "empty size");
	if (*s == '-')
		return fail(err, errlen, "size '%s' is negative", s);
	n = parse_digits(s, &v);
	if (n < 0)
		return fail(err, errlen, "size '%s' is too large (max 64T)", s);
	if (n == 0)
		return fail(err, errlen,
			    "size '%s' is not a number (digits with an optional K, M, G or T)",
			    s);
	switch (s[n]) {
	case '\0':
		break;
	case 'k': case 'K':
		mult = 1ULL << 10;
		break;
	case 'm': case 'M':
		mult = 1ULL << 20;
		break;
	case 'g': case 'G':
		mult = 1ULL << 30;
		break;
	case 't': case 'T':
		mult = 1ULL << 40;
		break;
	default:
		return fail(err, errlen,
			    "size '%s' has a bad suffix '%s' (use K, M, G or T)",
			    s, s + n);
	}
	if (s[n] && s[n + 1])
		return fail(err, errlen,
			    "size '%s' has a bad suffix '%s' (use K, M, G or T)",
			    s, s + n);
	if (v > FRAG_SIZE_MAX / mult)
		return fail(err, errlen, "size '%s' is too large (max 64T)", s);
	*bytes = v * mult;
	return 0;
}

/*
 * A plain non-negative decimal: digits with at most one '.'.  strtod()
 * alone would also take "inf", "nan", hex, exponents and leading spaces.
 */
static int parse_decimal(const char *s, double *v)
{
	bool digit = false, dot = false;
	const char *p;

	for (p = s; *p; p++) {
		if (*p >= '0' && *p <= '9')
			digit = true;
		else if (*p == '.' && !dot)
			dot = true;
		else
			return -1;
	}
	if (!digit)
		return -1;
	*v = strtod(s, NULL);
	return 0;
}

int frag_parse_keep(const char *s, double *keep, unsigned int *keep_pages,
		    char *err, size_t errlen)
{
	const char *slash = strchr(s, '/');
	double v;

	if (!*s)
		return fail(err, errlen, "--keep: empty fraction");
	if (*s == '-')
		return fail(err, errlen,
			    "--keep '%s' is negative (want 0 < FRACTION <= 1)", s);
	if (slash) {
		uint64_t num = 0, den = 0;
		int n = parse_digits(s, &num);
		int d = parse_digits(slash + 1, &den);

		if (n <= 0 || s + n != slash || d <= 0 || slash[1 + d])
			return fail(err, errlen,
				    "--keep '%s' is not a fraction (like 0.25 or 1/4)",
				    s);
		if (den == 0)
			return fail(err, errlen, "--keep '%s' divides by zero", s);
		v = (double)num / (double)den;
	} else if (parse_decimal(s, &v)) {
		return fail(err, errlen,
			    "--keep '%s' is not a fraction (like 0.25 or 1/4)", s);
	}
	if (!(v > 0.0 && v <= 1.0))
		return fail(err, errlen,
			    "--keep '%s' is outside (0, 1]: the kept share of each 2M chunk",
			    s);
	*keep_pages = frag_keep_pages(v);
	if (*keep_pages == 0)
		return fail(err, errlen,
			    "--keep '%s' keeps no page of a 2M chunk (rounds to 0 of 512 pages)",
			    s);
	*keep = v;
	return 0;
}

static int parse_percent(const char *s, double *percent, char *err,
			 size_t errlen)
{
	double v;

	if (!*s)
		return fail(err, errlen, "--percent: empty value");
	if (*s == '-')
		return fail(err, errlen, "--percent '%s' is negative (want 0 < P <= 100)",
			    s);
	if (parse_decimal(s, &v))
		return fail(err, errlen, "--percent '%s' is not a number", s);
	if (!(v > 0.0 && v <= 100.0))
		return fail(err, errlen, "--percent '%s' is outside (0, 100]", s);
	*percent = v;
	return 0;
}

static int parse_seconds(const char *s, long *seconds, char *err, size_t errlen)
{
	uint64_t v;
	int n;

	if (!*s)
		return fail(err, errlen, "--hold-seconds: empty value");
	if (*s == '-')
		return fail(err, errlen, "--hold-seconds '%s' is negative", s);
	n = parse_digits(s, &v);
	if (n == 0 || (n > 0 && s[n]))
		return fail(err, errlen,
			    "--hold-seconds '%s' is not a whole number of seconds", s);
	if (n < 0 || v > FRAG_HOLD_SECONDS_MAX)
		return fail(err, errlen, "--hold-seconds '%s' is too large (max %ld)",
			    s, FRAG_HOLD_SECONDS_MAX);
	*seconds = (long)v;
	return 0;
}

/* Decimal or 0x-prefixed hexadecimal, the full 64-bit range. */
static int parse_seed(const char *s, uint64_t *seed, char *err, size_t errlen)
{
	unsigned long long v;
	char *end;

	if (!*s)
		return fail(err, errlen, "--seed: empty value");
	if (*s == '-')
		return fail(err, errlen, "--seed '%s' is negative", s);
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		if (!s[2] || strspn(s + 2, "0123456789abcdefABCDEF") != strlen(s + 2))
			return fail(err, errlen, "--seed '%s' is not a number", s);
		errno = 0;
		v = strtoull(s + 2, &end, 16);
		if (errno == ERANGE)
			return fail(err, errlen, "--seed '%s' is too large (64 bits)", s);
		*seed = v;
		return 0;
	}
	{
		uint64_t d;
		int n = parse_digits(s, &d);

		if (n < 0)
			return fail(err, errlen, "--seed '%s' is too large (64 bits)", s);
		if (n == 0 || s[n])
			return fail(err, errlen, "--seed '%s' is not a number", s);
		*seed = d;
	}
	return 0;
}

static int parse_node(const char *s, int *node, char *err, size_t errlen)
{
	uint64_t v;
	int n;

	if (!*s)
		return fail(err, errlen, "--node: empty value");
	if (*s == '-')
		return fail(err, errlen, "--node '%s' is negative", s);
	n = parse_digits(s, &v);
	if (n == 0 || (n > 0 && s[n]))
		return fail(err, errlen, "--node '%s' is not a node number", s);
	if (n < 0 || v > FRAG_NODE_MAX)
		return fail(err, errlen, "--node '%s' is too large (max %d)", s,
			    FRAG_NODE_MAX);
	*node = (int)v;
	return 0;
}

static int parse_pattern(const char *s, enum frag_pattern *p, char *err,
			 size_t errlen)
{
	if (!strcmp(s, "stride"))
		*p = FRAG_PATTERN_STRIDE;
	else if (!strcmp(s, "chunk"))
		*p = FRAG_PATTERN_CHUNK;
	else if (!strcmp(s, "random"))
		*p = FRAG_PATTERN_RANDOM;
	else if (!strcmp(s, "phys"))
		*p = FRAG_PATTERN_PHYS;
	else
		return fail(err, errlen,
			    "--pattern '%s' is unknown (use stride, chunk, random or phys)",
			    s);
	return 0;
}

/* A byte size given to --size or --thp-touch: whole 2M chunks, at least one. */
static int parse_chunks(const char *opt, const char *s, uint64_t *bytes,
			char *err, size_t errlen)
{
	char why[160];
	uint64_t v;

	if (frag_parse_size(s, &v, why, sizeof(why)))
		return fail(err, errlen, "--%s: %s", opt, why);
	if (v < FRAG_CHUNK_SIZE)
		return fail(err, errlen, "--%s '%s' is less than one 2M chunk", opt, s);
	*bytes = v / FRAG_CHUNK_SIZE * FRAG_CHUNK_SIZE;
	return 0;
}

static int apply_option(int id, const char *value, struct frag_opts *o,
			char *err, size_t errlen)
{
	switch (id) {
	case OPT_SIZE:
		return parse_chunks("size", value, &o->size, err, errlen);
	case OPT_PERCENT:
		return parse_percent(value, &o->percent, err, errlen);
	case OPT_KEEP:
		return frag_parse_keep(value, &o->keep, &o->keep_pages, err, errlen);
	case OPT_PATTERN:
		return parse_pattern(value, &o->pattern, err, errlen);
	case OPT_SEED:
		return parse_seed(value, &o->seed, err, errlen);
	case OPT_HOLD:
		o->hold_seconds = -1;
		return 0;
	case OPT_HOLD_SECONDS:
		if (!*value)
			return fail(err, errlen, "--hold-seconds: empty value");
		return parse_seconds(value, &o->hold_seconds, err, errlen);
	case OPT_MAP:
		if (!*value)
			return fail(err, errlen, "--map: empty file name");
		o->map_path = value;
		return 0;
	case OPT_READY_FILE:
		if (!*value)
			return fail(err, errlen, "--ready-file: empty file name");
		o->ready_path = value;
		return 0;
	case OPT_VERIFY:
		o->verify = true;
		return 0;
	case OPT_MLOCK:
		o->mlock = true;
		return 0;
	case OPT_THP_TOUCH:
		return parse_chunks("thp-touch", value, &o->thp_touch, err, errlen);
	case OPT_NODE:
		return parse_node(value, &o->node, err, errlen);
	case OPT_HELP:
		o->help = true;
		return 0;
	}
	return fail(err, errlen, "internal error: option %d", id);
}

static void set_defaults(struct frag_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->keep = FRAG_DEFAULT_KEEP;
	o->keep_pages = frag_keep_pages(FRAG_DEFAULT_KEEP);
	o->pattern = FRAG_PATTERN_STRIDE;
	o->seed = FRAG_DEFAULT_SEED;
	o->hold_seconds = -1;
	o->node = -1;
}

/*
 * Parse argv into *o.  Accepts "--opt VALUE" and "--opt=VALUE".  Returns 0,
 * or -1 with a message in err.  --help wins over everything else that
 * parses, so "frag --size 1G --help" prints the usage.
 */
int frag_parse_args(int argc, char **argv, struct frag_opts *o,
		    char *err, size_t errlen)
{
	bool seen[OPT_COUNT] = { false };
	bool hold_mode_default = true;
	unsigned int i;
	int a;

	set_defaults(o);
	for (a = 1; a < argc; a++) {
		const char *arg = argv[a], *name, *value = NULL, *eq;
		size_t name_len;
		int id;

		if (!strcmp(arg, "-h"))
			arg = "--help";
		else if (strncmp(arg, "--", 2) || !arg[2])
			return fail(err, errlen, "unexpected argument '%s'", arg);
		name = arg + 2;
		eq = strchr(name, '=');
		name_len = eq ? (size_t)(eq - name) : strlen(name);
		for (id = 0; id < OPT_COUNT; id++)
			if (strlen(frag_options[id].name) == name_len &&
			    !strncmp(frag_options[id].name, name, name_len))
				break;
		if (id == OPT_COUNT)
			return fail(err, errlen, "unknown option '%s'", arg);
		if (frag_options[id].has_value) {
			if (eq) {
				value = eq + 1;
			} else {
				if (a + 1 >= argc)
					return fail(err, errlen,
						    "option '--%s' needs a value",
						    frag_options[id].name);
				value = argv[++a];
			}
		} else if (eq) {
			return fail(err, errlen, "option '--%s' takes no value",
				    frag_options[id].name);
		}
		if (seen[id] && id != OPT_HELP)
			return fail(err, errlen, "option '--%s' given twice",
				    frag_options[id].name);
		seen[id] = true;
		if (apply_option(id, value, o, err, errlen))
			return -1;
	}
	if (o->help)
		return 0;

	if (seen[OPT_SIZE] && seen[OPT_PERCENT])
		return fail(err, errlen, "--size and --percent conflict: give one");
	if (seen[OPT_HOLD] && seen[OPT_HOLD_SECONDS])
		return fail(err, errlen, "--hold and --hold-seconds conflict: give one");
	if (seen[OPT_THP_TOUCH]) {
		for (i = 0; i < ARRAY_SIZE(frag_only_options); i++)
			if (seen[frag_only_options[i]])
				return fail(err, errlen,
					    "--thp-touch conflicts with --%s: it does not fragment (run a second frag for that)",
					    frag_options[frag_only_options[i]].name);
		/* A THP touch measures and exits unless asked to hold. */
		hold_mode_default = false;
	}
	if (!seen[OPT_HOLD] && !seen[OPT_HOLD_SECONDS] && !hold_mode_default)
		o->hold_seconds = 0;
	return 0;
}
