// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * xqp-bench-switch: what a ping-pong between two processes costs a guest
 * with no device at all. Two processes pass one byte back and forth
 * through two pipes, N round trips, each blocked in read() until the
 * other writes: when both are pinned to one CPU every round trip is two
 * switches between processes, the least a ping-pong of two processes on
 * one CPU can cost (a poller that sleeps until its completion, and is
 * woken by it, does the same). Placed on two CPUs, a round trip is two
 * wake-ups across CPUs instead. Reported as ibv_*_pingpong reports its
 * iterations: microseconds a round trip, the mean over all of them, with
 * the median beside it (docs/benchmarks.md, "Ping-pong under a CPU hog").
 * With -t, each process writes a byte to each of P pages of its own after
 * each byte it gets (a program's working set, which under TCG costs more
 * to touch right after a switch of address space).
 *
 *   xqp-bench-switch [-n ITERS] [-a CPU] [-b CPU] [-t PAGES]
 *                    (defaults 10000, 0, 0, 0; CPU -1: not pinned)
 *
 * Prints one line:
 *   SWITCH iters=N cpus=A,B pages=P usec_iter=MEAN t_typical=MEDIAN
 * and exits 1 if the processes, the pipes or the pinning fail.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

static unsigned char *pages;	/* -t: the working set, one byte a page */
static long npages;

static void touch(void)
{
	for (long i = 0; i < npages; i++)
		pages[i * 4096]++;
}

static int pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* one byte each way through the pipes; 0, or -1 when a pipe failed */
static int pass(int out, int in)
{
	char c = 'x';

	if (write(out, &c, 1) != 1 || read(in, &c, 1) != 1)
		return -1;
	touch();
	return 0;
}

/* the far end: echoes every byte until the pipe closes */
static int echo(int in, int out)
{
	char c;

	while (read(in, &c, 1) == 1) {
		touch();
		if (write(out, &c, 1) != 1)
			return 1;
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int opt, cpu_a = 0, cpu_b = 0, to_b[2], to_a[2], status;
	long iters = 10000;
	uint64_t *rtt, start;
	pid_t child;

	while ((opt = getopt(argc, argv, "n:a:b:t:")) != -1) {
		if (opt == 'n')
			iters = strtol(optarg, NULL, 0);
		else if (opt == 't')
			npages = strtol(optarg, NULL, 0);
		else if (opt == 'a')
			cpu_a = (int)strtol(optarg, NULL, 0);
		else if (opt == 'b')
			cpu_b = (int)strtol(optarg, NULL, 0);
		else
			goto usage;
	}
	if (iters < 100 || npages < 0 || npages > 65536 || optind != argc)
		goto usage;
	rtt = calloc((size_t)iters, sizeof(*rtt));
	pages = npages ? calloc((size_t)npages, 4096) : NULL;
	if (!rtt || (npages && !pages) || pipe(to_b) || pipe(to_a)) {
		perror("xqp-bench-switch: set up");
		return 1;
	}
	child = fork();
	if (child < 0) {
		perror("xqp-bench-switch: fork");
		return 1;
	}
	if (child == 0) {
		close(to_b[1]);
		close(to_a[0]);
		if (pin(cpu_b)) {
			perror("xqp-bench-switch: pin the far end");
			return 1;
		}
		return echo(to_b[0], to_a[1]);
	}
	close(to_b[0]);
	close(to_a[1]);
	if (pin(cpu_a) || pass(to_b[1], to_a[0])) {	/* both ends are up */
		perror("xqp-bench-switch: pin or first pass");
		return 1;
	}
	start = now_ns();
	for (long i = 0; i < iters; i++) {
		uint64_t s = now_ns();

		if (pass(to_b[1], to_a[0])) {
			perror("xqp-bench-switch: pass");
			return 1;
		}
		rtt[i] = now_ns() - s;
	}
	start = now_ns() - start;
	close(to_b[1]);
	if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "xqp-bench-switch: the far end failed\n");
		return 1;
	}
	qsort(rtt, (size_t)iters, sizeof(*rtt), cmp_u64);
	printf("SWITCH iters=%ld cpus=%d,%d pages=%ld usec_iter=%.2f t_typical=%.2f\n", iters,
	       cpu_a, cpu_b, npages, (double)start / 1000.0 / (double)iters,
	       (double)rtt[iters / 2] / 1000.0);
	free(pages);
	free(rtt);
	return 0;
usage:
	fprintf(stderr, "usage: xqp-bench-switch [-n ITERS (>= 100)] [-a CPU] [-b CPU]"
			" [-t PAGES (0 to 65536)]\n");
	return 2;
}
