/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * The PASS/FAIL lines of the provider's guest programs (verbs_smoke.c,
 * mw_check.c): CASE(name, cond, fmt, ...) counts a case and prints
 * "PASS name" or "FAIL name: <fmt ...>"; each program prints
 * "<name>: N passed, N failed" from passed and failed at its end.
 */
#ifndef XQP_PROVIDER_CASES_H
#define XQP_PROVIDER_CASES_H

#include <stdio.h>

static int passed, failed;

#define CASE(name, cond, ...)							\
	do {									\
		if (cond) {							\
			passed++;						\
			printf("PASS %s\n", name);				\
		} else {							\
			failed++;						\
			printf("FAIL %s: ", name);				\
			printf(__VA_ARGS__);					\
			printf("\n");						\
		}								\
	} while (0)

#endif
