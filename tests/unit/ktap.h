/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ktap.h - minimal KTAP producer for the userspace unit tests.
 *
 * Same names and output as the kernel's tools/testing/selftests/kselftest.h
 * (which Debian's header packages do not ship), so the output reads the same
 * to people and tools that know kselftest.
 */
#ifndef PCOMPACT_TESTS_KTAP_H
#define PCOMPACT_TESTS_KTAP_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned int ktap_n, ktap_pass, ktap_fail, ktap_skip;

static inline void ksft_print_header(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("KTAP version 1\n");
}

static inline void ksft_set_plan(unsigned int plan)
{
	printf("1..%u\n", plan);
}

static inline void ksft_print_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("# ");
	vprintf(fmt, ap);
	va_end(ap);
}

static inline void ksft_test_result(int pass, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("%sok %u ", pass ? "" : "not ", ++ktap_n);
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	if (pass)
		ktap_pass++;
	else
		ktap_fail++;
}

static inline void ksft_test_result_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("ok %u ", ++ktap_n);
	vprintf(fmt, ap);
	printf(" # SKIP\n");
	va_end(ap);
	ktap_skip++;
}

/* Prints the totals line and exits 0 only when nothing failed. */
static inline int ksft_finished(void)
{
	printf("# Totals: pass:%u fail:%u xfail:0 xpass:0 skip:%u error:0\n",
	       ktap_pass, ktap_fail, ktap_skip);
	exit(ktap_fail ? 1 : 0);
}

#endif /* PCOMPACT_TESTS_KTAP_H */
