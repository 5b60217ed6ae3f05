// SPDX-License-Identifier: GPL-2.0
/*
 * xqp-fuzz, the manager: generates and mutates programs, runs each in a
 * fresh executor process (exec.c), keeps those that reach new coverage of
 * xqp's modules (cover.c) and reads the kernel log (/dev/kmsg) after every
 * program. It never opens the device itself, so an oops in a command kills
 * an executor, not the manager, which then reports the program.
 *
 *   xqp-fuzz fuzz [--seed S] [--programs N] [--duration SECONDS]
 *                 [--sections FILE] [--corpus DIR] [--procs N] [--hotplug 0|1]
 *                 [--links WEIGHT]
 *   xqp-fuzz replay FILE...
 *
 * --procs N runs N programs at once (default 1; at most FZ_MAX_PROCS), each
 * in its own fresh executor; the kernel log is still read after each one,
 * and a splat blames every program that was running (all are printed).
 * --hotplug 0 leaves FZ_HOTPLUG out of generated and mutated programs;
 * --links sets FZ_LINK's weight among the ops (default 1, most ops have
 * 1 to 9; 0 leaves it out: links need xqp_ibdev.ko, which makes every
 * hotplug an ib_core registration too, and both cost tenths of a second).
 *
 * Output (stdout, one write per line; scripts/fuzz reads it off the console):
 *   FUZZ-NEW HEX            a program that reached new coverage (the corpus)
 *   FUZZ-CRASH KIND HEX     the program after which the kernel log had a
 *                           splat (KIND splat: with --procs, also those
 *                           running meanwhile), that hung (KIND hang) or
 *                           whose executor died of a signal (KIND death:
 *                           a fault of the fuzzer's own, or the kernel
 *                           wrote where it must not; the fuzzing goes on)
 *   FUZZ-SPLAT LINE         the log line that matched
 *   FUZZ-HANG actor A tid T syscall NR fd N -> FILE wchan W
 *                           before a hung program is killed: what each of
 *                           its threads waits in
 *   FUZZ-STATS key=value... progress every 30 s and once at the end
 *   FUZZ-PROF phase|op NAME seconds= calls= mean_us=   where the time went
 *   FUZZ-COV MOD SEC OFFS   the PCs reached, as offsets into each section
 *   FUZZ-REPLAY PASS|FAIL FILE
 * Exit status: 0, 1 on a splat, hang or death, 2 on usage errors.
 * XQP_FUZZ_VERBOSE=1 prints every op and its result (for reproducers).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "fuzz.h"

extern int fz_verbose;

/* The console judge's patterns, extended regexes (scripts/lib/splat.sh,
 * generated into splat_patterns.h by the Makefile). */
static const char *const splat_patterns[] = {
#include "splat_patterns.h"
};
#define N_SPLAT (sizeof(splat_patterns) / sizeof(splat_patterns[0]))
static regex_t splat_re[N_SPLAT];

static int kmsg_fd = -1;
static char splat_line[512];

static void splat_compile(void)
{
	size_t i;

	for (i = 0; i < N_SPLAT; i++) {
		if (regcomp(&splat_re[i], splat_patterns[i], REG_EXTENDED | REG_NOSUB)) {
			fprintf(stderr, "xqp-fuzz: bad splat pattern %s\n", splat_patterns[i]);
			exit(2);
		}
	}
}

/* 1 if the log message @msg is a splat */
static int splat_match(const char *msg)
{
	size_t i;

	for (i = 0; i < N_SPLAT; i++)
		if (!regexec(&splat_re[i], msg, 0, NULL, 0))
			return 1;
	return 0;
}

/* xqp-fuzz splat-match: the lines of stdin that are splats, for
 * tests/splat/run (the same match the /dev/kmsg check makes) */
static int splat_match_stdin(void)
{
	char line[1024];

	splat_compile();
	while (fgets(line, sizeof(line), stdin))
		if (splat_match(line))
			fputs(line, stdout);
	return 0;
}

static void kmsg_open(void)
{
	splat_compile();
	kmsg_fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kmsg_fd >= 0)
		lseek(kmsg_fd, 0, SEEK_END);
	else
		fprintf(stderr, "xqp-fuzz: /dev/kmsg: %s (the console is still scanned)\n",
			strerror(errno));
}

/* 1 if the kernel logged a splat since the last call */
static int kmsg_splat(void)
{
	char rec[2048];
	int found = 0;

	if (kmsg_fd < 0)
		return 0;
	for (;;) {
		ssize_t n = read(kmsg_fd, rec, sizeof(rec) - 1);
		const char *msg;

		if (n < 0) {
			if (errno == EPIPE)	/* overwritten records: go on */
				continue;
			break;
		}
		rec[n] = 0;
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		if (splat_match(msg)) {
			if (!found) {
				snprintf(splat_line, sizeof(splat_line), "%.500s", msg);
				splat_line[strcspn(splat_line, "\n")] = 0;
			}
			found = 1;
		}
	}
	return found;
}

static void print_prog(const char *tag, const struct fz_prog *p)
{
	uint8_t buf[FZ_MAX_OPS * sizeof(struct fz_op)];
	size_t len = fz_encode(p, buf, sizeof(buf)), i;
	char *line = malloc(strlen(tag) + 2 * len + 3), *o;

	if (!line)
		return;
	o = line + sprintf(line, "%s ", tag);
	for (i = 0; i < len; i++)
		o += sprintf(o, "%02x", buf[i]);
	*o++ = '\n';
	(void)!write(1, line, (size_t)(o - line));
	free(line);
}

#define now fz_now

#define MAX_CORPUS 8192
static struct fz_prog *corpus;
static int ncorpus;
static long programs, commands, hangs, deaths;

static void stats(const char *when, double t0)
{
	char line[320];
	double s = now() - t0;
	int k = snprintf(line, sizeof(line),
			 "FUZZ-STATS %s seconds=%.0f programs=%ld commands=%ld corpus=%d pcs=%ld hangs=%ld"
			 " deaths=%ld programs_per_s=%.1f commands_per_s=%.0f\n",
			 when, s, programs, commands, ncorpus, fz_cover_distinct(), hangs, deaths,
			 s > 0 ? programs / s : 0.0, s > 0 ? commands / s : 0.0);

	(void)!write(1, line, (size_t)k);
}

/* the program each proc runs now (--procs) */
static struct fz_prog inflight[FZ_MAX_PROCS];
static int busy[FZ_MAX_PROCS], nprocs = 1;

/*
 * After the program of `proc` is done (fz_exec_wait() said `ret`): its
 * coverage, then the kernel log. A splat is blamed on that program and on
 * every other one running meanwhile (each is printed: scripts/fuzz saves
 * them all, the replays tell which). 1 if the fuzzer must stop.
 */
static int finish(int proc, int ret, int *fresh)
{
	double t;
	int splat, i;

	busy[proc] = 0;
	programs++;
	if (ret > 0) {		/* not a kernel splat by itself: saved, counted, fuzzing on */
		deaths++;
		print_prog("FUZZ-CRASH death", &inflight[proc]);
	}
	t = now();
	*fresh = fz_cover_collect(proc);
	fz_prof(FZ_PH_COLLECT, t);
	t = now();
	splat = kmsg_splat();
	fz_prof(FZ_PH_KMSG, t);
	if (splat) {
		print_prog("FUZZ-CRASH splat", &inflight[proc]);
		for (i = 0; i < nprocs; i++)
			if (busy[i])
				print_prog("FUZZ-CRASH splat", &inflight[i]);
		printf("FUZZ-SPLAT %s\n", splat_line);
		fflush(stdout);
		return 1;
	}
	if (ret < 0) {
		hangs++;
		print_prog("FUZZ-CRASH hang", &inflight[proc]);
		fflush(stdout);
		return 1;
	}
	return 0;
}

/* runs p alone, on proc 0; 1 if it must stop the fuzzer (a splat or a hang) */
static int run_one(const struct fz_prog *p, int *fresh)
{
	int ret;

	inflight[0] = *p;
	fz_cover_reset(0);
	ret = fz_exec(p, &commands);
	return finish(0, ret, fresh);
}

static void keep(const struct fz_prog *p)
{
	if (ncorpus < MAX_CORPUS)
		corpus[ncorpus++] = *p;
	else
		corpus[fz_below(MAX_CORPUS)] = *p;
}

/* the kept programs of earlier runs, run first (in any proc) */
static struct fz_prog *seeds;
static int nseeds, next_seed, seeds_done, seeds_kept;

static int load_corpus(const char *dir)
{
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return 0;
	seeds = mmap(NULL, MAX_CORPUS * sizeof(*seeds), PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (seeds == MAP_FAILED) {
		closedir(d);
		return -1;
	}
	madvise(seeds, MAX_CORPUS * sizeof(*seeds), MADV_DONTFORK);
	while ((e = readdir(d)) && nseeds < MAX_CORPUS) {
		char path[512];

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (!fz_load_file(&seeds[nseeds], path))
			nseeds++;
	}
	closedir(d);
	printf("xqp-fuzz: corpus %s: %d programs to run first\n", dir, nseeds);
	return 0;
}

static int fuzz(uint64_t seed, long max_programs, double duration, const char *corpus_dir)
{
	double t0 = now(), last = t0;
	long submitted = 0;
	int fresh, i, ret, stop = 0, seeded[FZ_MAX_PROCS] = { 0 };

	/* not in the processes forked for the programs (see cover.c) */
	corpus = mmap(NULL, MAX_CORPUS * sizeof(*corpus), PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (corpus == MAP_FAILED)
		return 2;
	madvise(corpus, MAX_CORPUS * sizeof(*corpus), MADV_DONTFORK);
	fz_srand(seed);
	if (corpus_dir && load_corpus(corpus_dir))
		return 2;
	/* keep every proc busy; a proc's program is judged as soon as it is done */
	for (;;) {
		double t;

		stop |= (max_programs && submitted >= max_programs) ||
			(duration && now() - t0 >= duration);
		for (i = 0; i < nprocs && !stop; i++) {
			struct fz_prog *p = &inflight[i];

			if (busy[i])
				continue;
			t = now();
			seeded[i] = next_seed < nseeds;
			if (seeded[i]) {
				*p = seeds[next_seed++];
			} else if (!ncorpus || fz_below(8) == 0) {
				fz_generate(p, 8 + (int)fz_below(80));
			} else {
				*p = corpus[fz_below((uint32_t)ncorpus)];
				fz_mutate(p, &corpus[fz_below((uint32_t)ncorpus)]);
			}
			fz_prof(FZ_PH_GENERATE, t);
			fz_cover_reset(i);
			submitted++;
			if (fz_exec_submit(i, p)) {
				programs++;	/* could not start it: counted, not run */
				continue;
			}
			busy[i] = 1;
			if (max_programs && submitted >= max_programs)
				break;
		}
		ret = fz_exec_wait(&i, &commands);
		if (ret == -2)
			break;		/* nothing runs: stopped */
		if (finish(i, ret, &fresh))
			goto crashed;
		if (seeded[i]) {
			/* without coverage, every entry stays a seed */
			if (fresh || !fz_cover_available()) {
				keep(&inflight[i]);
				seeds_kept++;
			}
			if (++seeds_done == nseeds)
				printf("xqp-fuzz: corpus: %d programs run, %d kept\n", nseeds,
				       seeds_kept);
		} else if (fresh) {
			t = now();
			keep(&inflight[i]);
			print_prog("FUZZ-NEW", &inflight[i]);
			fz_prof(FZ_PH_OUTPUT, t);
		}
		if (now() - last >= 30) {
			last = now();
			stats("progress", t0);
		}
	}
	stats("final", t0);
	fz_prof_report();
	fz_cover_report();
	return deaths ? 1 : 0;
crashed:
	stats("final", t0);
	fz_prof_report();
	fz_cover_report();
	return 1;
}

static int replay(int argc, char **argv)
{
	int i, failed = 0, fresh;

	for (i = 0; i < argc; i++) {
		long died = deaths;
		struct fz_prog p;

		if (fz_load_file(&p, argv[i])) {
			printf("FUZZ-REPLAY FAIL %s: unreadable or empty\n", argv[i]);
			failed++;
			continue;
		}
		if (run_one(&p, &fresh)) {
			printf("FUZZ-REPLAY FAIL %s: %s\n", argv[i],
			       splat_line[0] ? splat_line : "hang");
			failed++;
			splat_line[0] = 0;
		} else if (deaths != died) {
			printf("FUZZ-REPLAY FAIL %s: the executor died of a signal\n", argv[i]);
			failed++;
		} else {
			printf("FUZZ-REPLAY PASS %s (%d ops)\n", argv[i], p.n);
		}
		fflush(stdout);
	}
	return failed ? 1 : 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: xqp-fuzz fuzz [--seed S] [--programs N] [--duration SECONDS]"
			" [--sections FILE] [--corpus DIR] [--procs N] [--hotplug 0|1]\n"
			"                [--links WEIGHT]\n"
			"       xqp-fuzz replay [--sections FILE] FILE...\n"
			"       xqp-fuzz splat-match   (stdin's lines that are kernel splats)\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *sections = NULL, *corpus_dir = NULL, *v = getenv("XQP_FUZZ_VERBOSE");
	uint64_t seed = 1;
	long max_programs = 0;
	double duration = 0;
	int i, replaying;

	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "splat-match"))
		return splat_match_stdin();
	replaying = !strcmp(argv[1], "replay");
	if (!replaying && strcmp(argv[1], "fuzz"))
		return usage();
	for (i = 2; i < argc && !strncmp(argv[i], "--", 2); i += 2) {
		if (i + 1 >= argc)
			return usage();
		if (!strcmp(argv[i], "--seed"))
			seed = strtoull(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--programs"))
			max_programs = strtol(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--duration"))
			duration = strtod(argv[i + 1], NULL);
		else if (!strcmp(argv[i], "--sections"))
			sections = argv[i + 1];
		else if (!strcmp(argv[i], "--corpus"))
			corpus_dir = argv[i + 1];
		else if (!strcmp(argv[i], "--procs"))
			nprocs = (int)strtol(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--hotplug"))
			fz_hotplug = (int)strtol(argv[i + 1], NULL, 0);
		else if (!strcmp(argv[i], "--links"))
			fz_links = (int)strtol(argv[i + 1], NULL, 0);
		else
			return usage();
	}
	fz_verbose = v && *v == '1';
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* actors orphaned by a killed executor come back to us to be reaped */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	if (nprocs < 1 || nprocs > FZ_MAX_PROCS || replaying)
		nprocs = nprocs < 1 || replaying ? 1 : FZ_MAX_PROCS;
	if (fz_exec_init(nprocs)) {
		fprintf(stderr, "xqp-fuzz: setup failed\n");
		return 2;
	}
	if (fz_cover_init(sections, nprocs))
		printf("xqp-fuzz: no KCOV: programs run without coverage feedback\n");
	kmsg_open();
	if (replaying)
		return replay(argc - i, argv + i);
	if (i != argc)
		return usage();
	return fuzz(seed, max_programs, duration, corpus_dir);
}
