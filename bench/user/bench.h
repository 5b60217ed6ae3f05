/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/* What the userspace benchmarks (xqp-bench-*) share. */
#ifndef XQP_USER_BENCH_H
#define XQP_USER_BENCH_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* CLOCK_MONOTONIC in nanoseconds; a clock that fails ends the program. */
static inline uint64_t now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts)) {
		perror("clock_gettime(CLOCK_MONOTONIC)");
		exit(1);
	}
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
