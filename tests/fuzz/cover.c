// SPDX-License-Identifier: GPL-2.0
/*
 * Coverage: one KCOV buffer per actor of each proc (programs run at once;
 * /sys/kernel/debug/kcov, KCOV_TRACE_PC),
 * opened and mapped by the manager before any executor exists, so that the
 * buffers outlive the processes that fill them. Each actor enables its own
 * buffer (KCOV is per task; a task's exit disables it again).
 *
 * The manager's mappings (the buffers, the tables below) are MADV_DONTFORK:
 * an executor is forked for every program, and copying and tearing down
 * their page tables at each fork and exit (KCOV's pages are inserted one by
 * one, so fork copies every PTE) took 40 ms of a 230 ms program under TCG.
 *
 * Only PCs inside the text sections of xqp's modules count. The sections and
 * their sizes come from a file the host writes (scripts/fuzz, from objdump
 * of the .ko files: "MODULE SECTION SIZE" per line); their load addresses
 * from /sys/module/MODULE/sections/SECTION. KCOV reports PCs minus the KASLR
 * offset, which is added back (from /proc/kallsyms' _text).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/kcov.h>

#include "fuzz.h"

#define COVER_WORDS	(256 * 1024)
#define KERNEL_TEXT_DEFAULT 0xffffffff81000000ull

struct range {
	uint64_t start, size;
	char module[32], section[48];
};

#define SLOTS (FZ_ACTORS * FZ_MAX_PROCS)
static int kcov_fd[SLOTS], nslots;
static uint64_t *area[SLOTS];
static struct range ranges[64];
static int nranges;
static uint64_t kaslr;

/* the set of PCs seen (open addressing, 0 = empty) */
#define PC_SLOTS (1u << 17)
static uint64_t *pcs;
static long npcs;
/* edges (previous PC, PC), hashed into a bitmap */
#define EDGE_BITS (1u << 22)
static uint8_t *edges;

static int find_range(uint64_t pc)
{
	static int last;	/* PCs come in runs of one section: try its range first */
	int i;

	if (last < nranges && pc - ranges[last].start < ranges[last].size)
		return last;
	for (i = 0; i < nranges; i++)
		if (pc - ranges[i].start < ranges[i].size)
			return last = i;
	return -1;
}

static int read_hex_file(const char *path, uint64_t *v)
{
	char buf[64];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	*v = strtoull(buf, NULL, 16);
	return 0;
}

static void read_kaslr(void)
{
	char line[256];
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a;
		char t, name[128];

		if (sscanf(line, "%llx %c %127s", &a, &t, name) == 3 && !strcmp(name, "_text")) {
			kaslr = a - KERNEL_TEXT_DEFAULT;
			break;
		}
	}
	fclose(f);
}

static int load_sections(const char *file)
{
	char line[256];
	FILE *f = fopen(file, "r");

	if (!f) {
		fprintf(stderr, "xqp-fuzz: %s: %s\n", file, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f) && nranges < 64) {
		struct range *r = &ranges[nranges];
		unsigned long long size;
		char path[160];

		if (sscanf(line, "%31s %47s %llx", r->module, r->section, &size) != 3)
			continue;
		snprintf(path, sizeof(path), "/sys/module/%s/sections/%s", r->module, r->section);
		if (read_hex_file(path, &r->start) || !r->start)
			continue;	/* module not loaded, or section not kept */
		r->size = size;
		nranges++;
	}
	fclose(f);
	return nranges ? 0 : -1;
}

/* zeroed memory of the manager alone (not in any forked process) */
static void *manager_alloc(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	madvise(p, len, MADV_DONTFORK);
	return p;
}

int fz_cover_init(const char *sections_file, int procs)
{
	int i;

	for (i = 0; i < SLOTS; i++)
		kcov_fd[i] = -1;
	if (access("/sys/kernel/debug/kcov", F_OK))
		return -1;
	if (!sections_file || load_sections(sections_file)) {
		fprintf(stderr, "xqp-fuzz: no xqp text sections found: coverage off\n");
		return -1;
	}
	read_kaslr();
	nslots = FZ_ACTORS * (procs < 1 ? 1 : procs > FZ_MAX_PROCS ? FZ_MAX_PROCS : procs);
	for (i = 0; i < nslots; i++) {
		kcov_fd[i] = open("/sys/kernel/debug/kcov", O_RDWR);
		if (kcov_fd[i] < 0 || ioctl(kcov_fd[i], KCOV_INIT_TRACE, COVER_WORDS))
			goto fail;
		area[i] = mmap(NULL, COVER_WORDS * sizeof(uint64_t), PROT_READ | PROT_WRITE,
			       MAP_SHARED, kcov_fd[i], 0);
		if (area[i] == MAP_FAILED)
			goto fail;
		madvise(area[i], COVER_WORDS * sizeof(uint64_t), MADV_DONTFORK);
	}
	pcs = manager_alloc(PC_SLOTS * sizeof(*pcs));
	edges = manager_alloc(EDGE_BITS / 8);
	if (!pcs || !edges)
		goto fail;
	printf("xqp-fuzz: coverage on: %d text sections, kaslr offset %#llx\n", nranges,
	       (unsigned long long)kaslr);
	return 0;
fail:
	fprintf(stderr, "xqp-fuzz: kcov setup failed: %s: coverage off\n", strerror(errno));
	for (i = 0; i < nslots; i++) {
		if (kcov_fd[i] >= 0)
			close(kcov_fd[i]);
		kcov_fd[i] = -1;
	}
	return -1;
}

int fz_cover_available(void)
{
	return kcov_fd[0] >= 0 && pcs;
}

void fz_cover_enable(int slot)
{
	if (!fz_cover_available() || slot < 0 || slot >= nslots)
		return;
	if (ioctl(kcov_fd[slot], KCOV_ENABLE, KCOV_TRACE_PC))
		fprintf(stderr, "xqp-fuzz: KCOV_ENABLE slot %d: %s\n", slot, strerror(errno));
}

void fz_cover_reset(int proc)
{
	int i;

	if (!fz_cover_available())
		return;
	for (i = proc * FZ_ACTORS; i < (proc + 1) * FZ_ACTORS && i < nslots; i++)
		__atomic_store_n(&area[i][0], 0, __ATOMIC_RELAXED);
}

static int add_pc(uint64_t pc)
{
	uint64_t h = (pc * 0x9e3779b97f4a7c15ull) >> 47;	/* 17 bits */

	for (;;) {
		h &= PC_SLOTS - 1;
		if (pcs[h] == pc)
			return 0;
		if (!pcs[h]) {
			if (npcs >= (long)PC_SLOTS * 3 / 4)
				return 0;
			pcs[h] = pc;
			npcs++;
			return 1;
		}
		h++;
	}
}

int fz_cover_collect(int proc)
{
	int fresh = 0, i;

	if (!fz_cover_available())
		return 0;
	for (i = proc * FZ_ACTORS; i < (proc + 1) * FZ_ACTORS && i < nslots; i++) {
		uint64_t n = __atomic_load_n(&area[i][0], __ATOMIC_RELAXED), k, prev = 0;

		if (n >= COVER_WORDS)
			n = COVER_WORDS - 1;
		for (k = 1; k <= n; k++) {
			uint64_t pc = area[i][k] + kaslr;
			uint32_t e;

			if (find_range(pc) < 0)
				continue;
			fresh += add_pc(pc);
			e = (uint32_t)(((prev * 0xff51afd7ed558ccdull) ^ pc) * 0xc4ceb9fe1a85ec53ull >> 42);
			if (!(edges[e / 8] & (1u << (e % 8)))) {
				edges[e / 8] |= (uint8_t)(1u << (e % 8));
				fresh++;
			}
			prev = pc;
		}
	}
	return fresh;
}

long fz_cover_distinct(void)
{
	return npcs;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* "FUZZ-COV MODULE SECTION off,off,..." (hex offsets into the section) */
void fz_cover_report(void)
{
	uint64_t *sorted;
	long n = 0, k;
	int r;

	if (!fz_cover_available())
		return;
	sorted = malloc((size_t)npcs * sizeof(*sorted) + 1);
	if (!sorted)
		return;
	for (k = 0; k < (long)PC_SLOTS; k++)
		if (pcs[k])
			sorted[n++] = pcs[k];
	qsort(sorted, (size_t)n, sizeof(*sorted), cmp_u64);
	for (r = 0; r < nranges; r++) {
		int in_line = 0;

		for (k = 0; k < n; k++) {
			if (find_range(sorted[k]) != r)
				continue;
			if (!in_line)
				printf("FUZZ-COV %s %s ", ranges[r].module, ranges[r].section);
			printf("%s%llx", in_line ? "," : "",
			       (unsigned long long)(sorted[k] - ranges[r].start));
			if (++in_line == 200) {
				printf("\n");
				in_line = 0;
			}
		}
		if (in_line)
			printf("\n");
	}
	fflush(stdout);
	free(sorted);
}
