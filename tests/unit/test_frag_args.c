// SPDX-License-Identifier: GPL-2.0
/*
 * test_frag_args.c - frag's command line: sizes, fractions, every kind of
 * bad input, conflicting options and the defaults.
 */
// UNIT-SOURCES: frag/frag_args.c frag/frag_pattern.c
#include <string.h>

#include "ktap.h"
#include "frag/frag.h"

#define M (UINT64_C(1) << 20)
#define G (UINT64_C(1) << 30)

/* frag_parse_size(): value, or the words the error must contain. */
static const struct {
	const char *in;
	uint64_t bytes;
	const char *err;
} size_cases[] = {
	{ "0", 0, NULL },
	{ "4096", 4096, NULL },
	{ "4K", 4096, NULL },
	{ "4k", 4096, NULL },
	{ "512M", 512 * M, NULL },
	{ "2G", 2 * G, NULL },
	{ "2g", 2 * G, NULL },
	{ "1T", UINT64_C(1) << 40, NULL },
	{ "64T", UINT64_C(64) << 40, NULL },
	{ "", 0, "empty size" },
	{ "-1", 0, "negative" },
	{ "-2G", 0, "negative" },
	{ "abc", 0, "not a number" },
	{ "G", 0, "not a number" },
	{ "+12", 0, "not a number" },
	{ " 12", 0, "not a number" },
	{ "12 ", 0, "bad suffix" },
	{ "12Q", 0, "bad suffix 'Q'" },
	{ "12KB", 0, "bad suffix 'KB'" },
	{ "12MM", 0, "bad suffix" },
	{ "1.5G", 0, "bad suffix" },
	{ "0x10", 0, "bad suffix" },
	{ "65T", 0, "too large" },
	{ "70368744177665", 0, "too large" },		/* 64T + 1 */
	{ "18446744073709551615", 0, "too large" },	/* UINT64_MAX */
	{ "18446744073709551616", 0, "too large" },	/* overflows */
	{ "99999999999999999999999G", 0, "too large" },
};

/*
 * frag_parse_args(): an argv (space separated, values never hold spaces),
 * and the words the error must contain (NULL: must parse).
 */
static const struct {
	const char *argv;
	const char *err;
} bad_cases[] = {
	{ "--size", "'--size' needs a value" },
	{ "--size=", "empty size" },
	{ "--size -5M", "negative" },
	{ "--size lots", "not a number" },
	{ "--size 5X", "bad suffix" },
	{ "--size 1M", "less than one 2M chunk" },
	{ "--size 0", "less than one 2M chunk" },
	{ "--size 100T", "too large" },
	{ "--size 99999999999999999999999", "too large" },
	{ "--percent 0", "outside (0, 100]" },
	{ "--percent 101", "outside (0, 100]" },
	{ "--percent 100.5", "outside (0, 100]" },
	{ "--percent -5", "negative" },
	{ "--percent abc", "not a number" },
	{ "--percent 5%", "not a number" },
	{ "--percent=", "empty" },
	{ "--keep 0", "outside (0, 1]" },
	{ "--keep 0.0", "outside (0, 1]" },
	{ "--keep 1.01", "outside (0, 1]" },
	{ "--keep 2", "outside (0, 1]" },
	{ "--keep 3/2", "outside (0, 1]" },
	{ "--keep 0/4", "outside (0, 1]" },
	{ "--keep -0.25", "negative" },
	{ "--keep abc", "not a fraction" },
	{ "--keep nan", "not a fraction" },
	{ "--keep inf", "not a fraction" },
	{ "--keep 1e-1", "not a fraction" },
	{ "--keep 0.25.1", "not a fraction" },
	{ "--keep .", "not a fraction" },
	{ "--keep 1/", "not a fraction" },
	{ "--keep /4", "not a fraction" },
	{ "--keep 1/4/2", "not a fraction" },
	{ "--keep 1/0", "divides by zero" },
	{ "--keep=", "empty" },
	{ "--keep 0.0001", "keeps no page" },
	{ "--keep 1/1025", "keeps no page" },
	{ "--pattern zigzag", "unknown (use stride, chunk, random or phys)" },
	{ "--pattern Stride", "unknown" },
	{ "--pattern=", "unknown" },
	{ "--seed -1", "negative" },
	{ "--seed x", "not a number" },
	{ "--seed 12abc", "not a number" },
	{ "--seed 0x", "not a number" },
	{ "--seed 0xfg", "not a number" },
	{ "--seed 18446744073709551616", "too large" },
	{ "--seed 0x10000000000000000", "too large" },
	{ "--seed=", "empty" },
	{ "--hold-seconds -1", "negative" },
	{ "--hold-seconds 1.5", "whole number" },
	{ "--hold-seconds ten", "whole number" },
	{ "--hold-seconds 2000000000", "too large" },
	{ "--hold-seconds 99999999999999999999999", "too large" },
	{ "--hold-seconds=", "empty" },
	{ "--hold=1", "'--hold' takes no value" },
	{ "--verify=yes", "'--verify' takes no value" },
	{ "--map", "needs a value" },
	{ "--map=", "empty file name" },
	{ "--ready-file=", "empty file name" },
	{ "--thp-touch 1M", "less than one 2M chunk" },
	{ "--thp-touch abc", "not a number" },
	{ "--thp-touch -1G", "negative" },
	{ "--size 1G --percent 10", "--size and --percent conflict" },
	{ "--percent 10 --size 1G", "--size and --percent conflict" },
	{ "--hold --hold-seconds 3", "--hold and --hold-seconds conflict" },
	{ "--thp-touch 1G --size 1G", "conflicts with --size" },
	{ "--thp-touch 1G --percent 5", "conflicts with --percent" },
	{ "--thp-touch 1G --keep 0.5", "conflicts with --keep" },
	{ "--thp-touch 1G --pattern chunk", "conflicts with --pattern" },
	{ "--thp-touch 1G --seed 3", "conflicts with --seed" },
	{ "--thp-touch 1G --map m.csv", "conflicts with --map" },
	{ "--verify --thp-touch 1G", "conflicts with --verify" },
	{ "--thp-touch 1G --mlock", "conflicts with --mlock" },
	{ "--mlock=1", "'--mlock' takes no value" },
	{ "--thp-touch 1G --node 0", "conflicts with --node" },
	{ "--node -1", "negative" },
	{ "--node x", "not a node number" },
	{ "--node 1x", "not a node number" },
	{ "--node 1024", "too large (max 1023)" },
	{ "--node 99999999999999999999999", "too large" },
	{ "--node=", "empty" },
	{ "--node 0 --node 1", "given twice" },
	{ "--size 1G --size 2G", "'--size' given twice" },
	{ "--verify --verify", "given twice" },
	{ "--bogus", "unknown option '--bogus'" },
	{ "--siz 1G", "unknown option" },
	{ "--sizes 1G", "unknown option" },
	{ "-x", "unexpected argument '-x'" },
	{ "-size 1G", "unexpected argument" },
	{ "foo", "unexpected argument 'foo'" },
	{ "--", "unexpected argument '--'" },
	{ "--size 4M extra", "unexpected argument 'extra'" },
};

static int parse(const char *line, struct frag_opts *o, char *err, size_t len)
{
	static char buf[256];
	char *argv[32] = { "frag" }, *tok;
	int argc = 1;

	snprintf(buf, sizeof(buf), "%s", line);
	for (tok = strtok(buf, " "); tok && argc < 31; tok = strtok(NULL, " "))
		argv[argc++] = tok;
	argv[argc] = NULL;
	err[0] = '\0';
	return frag_parse_args(argc, argv, o, err, len);
}

static bool parses(const char *line, struct frag_opts *o)
{
	char err[256];

	if (parse(line, o, err, sizeof(err))) {
		ksft_print_msg("'%s' failed: %s\n", line, err);
		return false;
	}
	return true;
}

static bool test_defaults(void)
{
	struct frag_opts o;

	return parses("", &o) && o.size == 0 && o.percent == 0.0 &&
	       o.keep == 0.25 && o.keep_pages == 128 &&
	       o.pattern == FRAG_PATTERN_STRIDE && o.seed == 1 &&
	       o.hold_seconds == -1 && !o.map_path && !o.ready_path &&
	       !o.verify && !o.mlock && o.thp_touch == 0 && !o.help;
}

static bool test_size(void)
{
	struct frag_opts o;

	return parses("--size 512M", &o) && o.size == 512 * M &&
	       parses("--size=1G", &o) && o.size == G &&
	       parses("--size 3M", &o) && o.size == 2 * M &&	/* whole chunks */
	       parses("--size 2097152", &o) && o.size == 2 * M &&
	       parses("--size 64T", &o) && o.size == UINT64_C(64) << 40;
}

static bool test_percent(void)
{
	struct frag_opts o;

	return parses("--percent 50", &o) && o.percent == 50.0 &&
	       parses("--percent=12.5", &o) && o.percent == 12.5 &&
	       parses("--percent 100", &o) && o.percent == 100.0 &&
	       parses("--percent 0.5", &o) && o.percent == 0.5;
}

static bool test_keep(void)
{
	struct frag_opts o;

	return parses("--keep 0.5", &o) && o.keep == 0.5 && o.keep_pages == 256 &&
	       parses("--keep 1/4", &o) && o.keep == 0.25 && o.keep_pages == 128 &&
	       parses("--keep 1", &o) && o.keep_pages == 512 &&
	       parses("--keep 1.0", &o) && o.keep_pages == 512 &&
	       parses("--keep 4/4", &o) && o.keep_pages == 512 &&
	       parses("--keep 1/512", &o) && o.keep_pages == 1 &&
	       parses("--keep 1/1024", &o) && o.keep_pages == 1 &&
	       parses("--keep 0.001", &o) && o.keep_pages == 1 &&
	       parses("--keep .75", &o) && o.keep_pages == 384 &&
	       parses("--keep 0.3", &o) && o.keep_pages == 154;
}

static bool test_pattern_seed(void)
{
	struct frag_opts o;

	return parses("--pattern chunk", &o) && o.pattern == FRAG_PATTERN_CHUNK &&
	       parses("--pattern stride", &o) && o.pattern == FRAG_PATTERN_STRIDE &&
	       parses("--pattern=random --seed 42", &o) &&
	       o.pattern == FRAG_PATTERN_RANDOM && o.seed == 42 &&
	       parses("--pattern phys", &o) && o.pattern == FRAG_PATTERN_PHYS &&
	       !strcmp(frag_pattern_name(FRAG_PATTERN_PHYS), "phys") &&
	       parses("--seed 0", &o) && o.seed == 0 &&
	       parses("--seed 0xff", &o) && o.seed == 255 &&
	       parses("--seed 0XFFFFFFFFFFFFFFFF", &o) && o.seed == UINT64_MAX &&
	       parses("--seed 18446744073709551615", &o) && o.seed == UINT64_MAX &&
	       !strcmp(frag_pattern_name(FRAG_PATTERN_RANDOM), "random");
}

static bool test_hold_outputs(void)
{
	struct frag_opts o;

	return parses("--hold", &o) && o.hold_seconds == -1 &&
	       parses("--hold-seconds 0", &o) && o.hold_seconds == 0 &&
	       parses("--hold-seconds=600", &o) && o.hold_seconds == 600 &&
	       parses("--hold-seconds 1000000000", &o) &&
	       o.hold_seconds == FRAG_HOLD_SECONDS_MAX &&
	       parses("--map /tmp/m.csv --verify --ready-file /tmp/r", &o) &&
	       !strcmp(o.map_path, "/tmp/m.csv") &&
	       !strcmp(o.ready_path, "/tmp/r") && o.verify &&
	       parses("--mlock", &o) && o.mlock;
}

/* --thp-touch measures and exits by default; --hold makes it hold. */
static bool test_thp_touch(void)
{
	struct frag_opts o;

	return parses("--thp-touch 1G", &o) && o.thp_touch == G &&
	       o.hold_seconds == 0 && o.size == 0 &&
	       parses("--thp-touch 5M --hold", &o) && o.thp_touch == 4 * M &&
	       o.hold_seconds == -1 &&
	       parses("--ready-file r --thp-touch 2M --hold-seconds 7", &o) &&
	       o.hold_seconds == 7 && o.ready_path;
}

static bool test_help(void)
{
	struct frag_opts o;

	return parses("--help", &o) && o.help &&
	       parses("-h", &o) && o.help &&
	       parses("--size 1G --help", &o) && o.help &&
	       parses("--size 1G --percent 5 --help", &o) && o.help &&
	       strstr(frag_usage, "--thp-touch SIZE") &&
	       strstr(frag_usage, "--ready-file FILE") &&
	       strstr(frag_usage, "region_pfn,mapped_pages");
}

static const struct {
	const char *name;
	bool (*fn)(void);
} good_cases[] = {
	{ "defaults", test_defaults },
	{ "size", test_size },
	{ "percent", test_percent },
	{ "keep", test_keep },
	{ "pattern and seed", test_pattern_seed },
	{ "hold and outputs", test_hold_outputs },
	{ "thp-touch", test_thp_touch },
	{ "help", test_help },
};

int main(void)
{
	struct frag_opts o;
	char err[256];
	unsigned int i;

	ksft_print_header();
	ksft_set_plan(ARRAY_SIZE(size_cases) + ARRAY_SIZE(bad_cases) +
		      ARRAY_SIZE(good_cases));

	for (i = 0; i < ARRAY_SIZE(size_cases); i++) {
		uint64_t bytes = UINT64_C(0xdead);
		int ret;

		err[0] = '\0';
		ret = frag_parse_size(size_cases[i].in, &bytes, err, sizeof(err));
		if (size_cases[i].err) {
			ksft_test_result(ret == -1 && strstr(err, size_cases[i].err) &&
					 bytes == 0xdead,
					 "size '%s' rejected: %s", size_cases[i].in, err);
		} else {
			ksft_test_result(ret == 0 && bytes == size_cases[i].bytes,
					 "size '%s' = %llu", size_cases[i].in,
					 (unsigned long long)bytes);
		}
	}

	for (i = 0; i < ARRAY_SIZE(bad_cases); i++) {
		int ret = parse(bad_cases[i].argv, &o, err, sizeof(err));

		ksft_test_result(ret == -1 && strstr(err, bad_cases[i].err),
				 "args '%s' rejected: %s", bad_cases[i].argv, err);
	}

	for (i = 0; i < ARRAY_SIZE(good_cases); i++)
		ksft_test_result(good_cases[i].fn(), "args: %s", good_cases[i].name);

	return ksft_finished();
}
