/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The pass/fail bookkeeping of the provider's test programs (abi_check.c,
 * test_provider.c): CHECK(cond, fmt, ...) counts a check and reports a
 * failure on stderr as "<check_name>: FAIL: ...". Each program sets
 * check_name and prints "<check_name>: N passed, N failed" at the end.
 */
#ifndef XQP_PROVIDER_CHECK_H
#define XQP_PROVIDER_CHECK_H

#include <stdarg.h>
#include <stdio.h>

static int checks, failures;
static const char *check_name = "check";

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), unused));
static void fail(const char *fmt, ...)
{
	va_list ap;

	failures++;
	fprintf(stderr, "%s: FAIL: ", check_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

#define CHECK(cond, ...)			\
	do {					\
		checks++;			\
		if (!(cond))			\
			fail(__VA_ARGS__);	\
	} while (0)

#endif
