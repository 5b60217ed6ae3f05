// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * xqp-bench-floor: the latency a guest gives any ping-pong, with no device
 * at all. Two threads pinned to two CPUs pass a counter through one cache
 * line, N round trips, each side spinning W microseconds before it passes
 * the counter on (a device's work: with W near a device's latency, the
 * guest's timer ticks and interrupts land in as many round trips as in
 * that device's run). Each round trip is timed with the TSC, as perftest
 * times its iterations, and reported as perftest's latency tests report
 * theirs (half the round trip, microseconds): minimum, typical (the
 * median), average, 99th and 99.9th percentiles, maximum. What the guest
 * and the host's scheduling add to a round trip shows here as it does in
 * any device's tail (docs/benchmarks.md, "Latency tails").
 *
 *   xqp-bench-floor [-n ITERS] [-w USEC] [-a CPU] [-b CPU]
 *                   (defaults 10000, 0, 0, 1)
 *
 * Prints one line:
 *   FLOOR iters=N t_min=.. t_typical=.. t_avg=.. p99=.. p999=.. t_max=..
 *         over_10x=K          (K: round trips above 10 times the typical)
 * and exits 1 if the threads cannot be made or pinned.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <unistd.h>
#include <x86intrin.h>

#include "bench.h"

static _Alignas(64) _Atomic uint64_t token;
static int cpu_b = 1;
static long iters = 10000;
static uint64_t work_cycles;	/* each side's spin before it answers */

/* spins until the TSC has moved on by work_cycles */
static void work(void)
{
	uint64_t end = __rdtsc() + work_cycles;

	while (work_cycles && __rdtsc() < end)
		;
}

/* TSC cycles a microsecond, measured against the clock for 20 ms */
static double cycles_per_us(void)
{
	uint64_t t0 = now_ns(), c0 = __rdtsc(), t;

	while ((t = now_ns()) - t0 < 20000000)
		;
	return 1000.0 * (double)(__rdtsc() - c0) / (double)(t - t0);
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* the far end: answers each odd token with the next even one */
static void *echo(void *arg)
{
	uint64_t want = 1;

	(void)arg;
	if (pin(cpu_b)) {
		fprintf(stderr, "xqp-bench-floor: cannot pin to CPU %d\n", cpu_b);
		exit(1);
	}
	for (long i = 0; i < iters; i++, want += 2) {
		while (atomic_load_explicit(&token, memory_order_acquire) != want)
			;
		work();
		atomic_store_explicit(&token, want + 1, memory_order_release);
	}
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	uint64_t *rtt, sum = 0, next = 1;
	double rate, us, work_us = 0;
	int opt, cpu_a = 0;
	long over = 0;
	pthread_t t;

	while ((opt = getopt(argc, argv, "n:w:a:b:")) != -1) {
		if (opt == 'n')
			iters = strtol(optarg, NULL, 0);
		else if (opt == 'w')
			work_us = strtod(optarg, NULL);
		else if (opt == 'a')
			cpu_a = (int)strtol(optarg, NULL, 0);
		else if (opt == 'b')
			cpu_b = (int)strtol(optarg, NULL, 0);
		else
			goto usage;
	}
	if (iters < 100 || !(work_us >= 0 && work_us <= 1e6) || optind != argc)
		goto usage;
	rate = cycles_per_us();
	work_cycles = (uint64_t)(work_us * rate);
	rtt = calloc((size_t)iters, sizeof(*rtt));
	if (!rtt || pin(cpu_a) || pthread_create(&t, NULL, echo, NULL)) {
		fprintf(stderr, "xqp-bench-floor: cannot set up (CPU %d)\n", cpu_a);
		return 1;
	}
	for (long i = 0; i < iters; i++, next += 2) {
		uint64_t s = __rdtsc();

		work();
		atomic_store_explicit(&token, next, memory_order_release);
		while (atomic_load_explicit(&token, memory_order_acquire) != next + 1)
			;
		rtt[i] = __rdtsc() - s;
		sum += rtt[i];
	}
	pthread_join(t, NULL);
	qsort(rtt, (size_t)iters, sizeof(*rtt), cmp_u64);
	us = 1.0 / (2.0 * rate);	/* half a round trip, in microseconds */
	for (long i = 0; i < iters; i++)
		over += rtt[i] > 10 * rtt[iters / 2];
	printf("FLOOR iters=%ld t_min=%.2f t_typical=%.2f t_avg=%.2f p99=%.2f p999=%.2f"
	       " t_max=%.2f over_10x=%ld\n", iters, rtt[0] * us, rtt[iters / 2] * us,
	       (double)sum / (double)iters * us, rtt[iters * 99 / 100] * us,
	       rtt[iters * 999 / 1000] * us, rtt[iters - 1] * us, over);
	free(rtt);
	return 0;
usage:
	fprintf(stderr, "usage: xqp-bench-floor [-n ITERS (>= 100)] [-w USEC (0 to 10^6)]"
			" [-a CPU] [-b CPU]\n");
	return 2;
}
