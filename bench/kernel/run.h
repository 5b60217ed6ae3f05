/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xqp_bench's harness, shared by its files: a run over the two sides
 * (bench_main.c: parameters, the metric filter and counts, the run),
 * results printed one line per metric (results.c), groups of kthreads
 * bound to CPUs (threads.c), and the metrics, each file owning its count
 * parameters: metric_objects.c (bytes_per_share, open_close,
 * create_destroy, open_close_1m, bytes_per_qp), metric_events.c
 * (event_1024, fanout_block), metric_scale.c (scale_distinct, scale_same).
 */
#ifndef XQP_BENCH_RUN_H
#define XQP_BENCH_RUN_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/sched.h>
#include <linux/types.h>
#include <linux/wait.h>

#include "bench.h"

#define BK_SIDES	2
#define BK_MAX_ROUNDS	15
#define BK_MAX_SERIES	5

/* xqp first, then Linux (bench_main.c). */
extern const struct bk_side *const bk_sides[BK_SIDES];

struct bk_run {
	struct bk_dev *dev[BK_SIDES];
	u32 rounds;
	unsigned int passed, failed;
};

/* ---- results (results.c) ---- */

/* One output line: a value per side per round, in thousandths of the unit. */
struct bk_series {
	const char *name;
	const char *unit;
	unsigned int decimals;		/* printed, 0-3 */
	u32 n;				/* rounds recorded */
	s64 v[BK_SIDES][BK_MAX_ROUNDS];
};


void bk_print(const struct bk_series *s);
/* Thousandths of a ns per op; thousandths of ops/s. */
s64 bk_ns_per_op(u64 ns, u64 ops);
s64 bk_ops_per_s(u64 ops, u64 ns);
int bk_rounds(struct bk_run *run, u32 nrounds,
	      int (*fn)(struct bk_run *run, int side, u32 round, void *arg),
	      void *arg);
/* Counts one check for @metric: failed on @err or on anything left behind. */
void bk_verdict(struct bk_run *run, const char *metric, int err);

/* ---- kthreads (threads.c) ---- */

struct bk_group;

struct bk_worker {
	struct bk_group *g;
	struct task_struct *task;
	int (*fn)(struct bk_worker *w);
	const struct bk_side *side;
	struct bk_dev *dev;
	u32 qpn;
	u32 n;
	u32 *lat;			/* samplers */
	u64 t0, t1, count;
	int err;
	struct completion done;
};


struct bk_group {
	wait_queue_head_t wq;
	bool go;
	bool abort;			/* loops that can stop early do */
	bool stop_events;		/* fanout: the sampler is done */
	bool events_started;		/* fanout: the first event was delivered */
	atomic_t arrived;		/* scale: start barrier */
	u32 nt;
	struct bk_worker *w;
};


int bk_group_run(struct bk_group *g, const int *cpus);
int bk_group_err(const struct bk_group *g);
u32 bk_cpus(int *cpus, u32 max);

/* ---- counts (bench_main.c): @param if set, else @full, or @small when quick ---- */

u32 bk_count(unsigned int param, u32 full, u32 small);

/* ---- the metrics ---- */

void bm_bytes_per_share(struct bk_run *run);
void bm_open_close(struct bk_run *run);
void bm_create_destroy(struct bk_run *run);
void bm_open_close_1m(struct bk_run *run, bool want_walk, bool want_bytes);
void bm_event_1024(struct bk_run *run);
void bm_fanout_block(struct bk_run *run);
void bm_scale(struct bk_run *run, bool same);

#endif
