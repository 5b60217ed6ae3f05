// SPDX-License-Identifier: GPL-2.0
/*
 * xqp_bench.ko: xqp's core against Linux's ib_core, in the same kernel, on
 * software devices of their own (xqp_soft for xqp, xqp_refdev for ib_core).
 *
 * The run happens at load (module parameter run=1, the default) and is over
 * when insmod returns: every object is freed and every kthread joined
 * before the init function returns, so the module holds nothing while it
 * stays loaded; rmmod it afterwards. Parameters:
 *
 *   start      (write-only, in sysfs) writing 1 runs the benchmark again,
 *              with the load's parameters; load with run=0 to only run so.
 *   quick=1    the correctness pass: each metric once (one round) with small
 *              counts, every return value checked, the drivers' live objects
 *              and the XRCD's usecnt checked after each metric; timed values
 *              are printed but mean nothing.
 *   rounds=R   rounds per metric (default 5; quick: 1). Each round runs xqp
 *              and Linux back to back, in alternating order.
 *   only=a,b   run only the metrics whose names contain one of these.
 *   n_open= n_create= n_1m= n_walk= n_scale= n_fanout= n_event= handles=
 *              the counts (see the parameter descriptions).
 *
 * Output (printk, one line per metric):
 *   bench-kernel: <metric> xqp=<v> linux=<v> ratio=<r> range=<lo>-<hi> unit=<u>
 * xqp and linux are the medians over the rounds, ratio the median of the
 * per-round xqp/linux ratios and range their minimum and maximum. Then
 *   bench-kernel: N passed, N failed
 * with one check per metric (and one for the final teardown).
 * Lines "bench-kernel-info:" say what was measured (counts, sizes).
 */
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/vmstat.h>
#include <linux/wait.h>

#include "bench.h"

static bool run = true;
module_param(run, bool, 0444);
MODULE_PARM_DESC(run, "run the benchmark at load (default 1)");
static bool quick;
module_param(quick, bool, 0444);
MODULE_PARM_DESC(quick, "correctness pass: one round, small counts (default 0)");
static unsigned int rounds;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "rounds per metric (default 5, quick 1)");
static char *only;
module_param(only, charp, 0444);
MODULE_PARM_DESC(only, "comma-separated substrings: run only the metrics matching one");
static unsigned int n_open;
module_param(n_open, uint, 0444);
MODULE_PARM_DESC(n_open, "open_close: pairs per round (default 100000, quick 1000)");
static unsigned int n_create;
module_param(n_create, uint, 0444);
MODULE_PARM_DESC(n_create, "create_destroy: pairs per round (default 20000, quick 200)");
static unsigned int n_1m;
module_param(n_1m, uint, 0444);
MODULE_PARM_DESC(n_1m, "open_close_1m: QPs in the XRCD (default 1000000, quick 1000)");
static unsigned int n_walk;
module_param(n_walk, uint, 0444);
MODULE_PARM_DESC(n_walk, "open_close_1m: pairs per round (default 100000, quick 1000)");
static unsigned int n_scale;
module_param(n_scale, uint, 0444);
MODULE_PARM_DESC(n_scale, "scale_*: pairs per kthread per round (default 50000, quick 500)");
static unsigned int n_fanout;
module_param(n_fanout, uint, 0444);
MODULE_PARM_DESC(n_fanout, "fanout_*: timed pairs per round (default 20000, quick 200)");
static unsigned int n_event;
module_param(n_event, uint, 0444);
MODULE_PARM_DESC(n_event, "event_1024: events per round (default 500, quick 10)");
static unsigned int handles;
module_param(handles, uint, 0444);
MODULE_PARM_DESC(handles, "handles the events go to (default 1024)");

#define BK_SIDES	2
#define BK_MAX_ROUNDS	15
#define BK_MAX_SERIES	5

static const struct bk_side *const bk_sides[BK_SIDES] = { &bk_side_xqp, &bk_side_linux };

struct bk_run {
	struct bk_dev *dev[BK_SIDES];
	u32 rounds;
	unsigned int passed, failed;
};

/* ---- results ---------------------------------------------------------------- */

/* One output line: a value per side per round, in thousandths of the unit. */
struct bk_series {
	const char *name;
	const char *unit;
	unsigned int decimals;		/* printed, 0-3 */
	u32 n;				/* rounds recorded */
	s64 v[BK_SIDES][BK_MAX_ROUNDS];
};

static int bk_cmp_s64(const void *a, const void *b)
{
	s64 x = *(const s64 *)a, y = *(const s64 *)b;

	return x < y ? -1 : x > y;
}

static s64 bk_median(const s64 *v, u32 n)
{
	s64 s[BK_MAX_ROUNDS];

	if (!n)
		return 0;
	memcpy(s, v, n * sizeof(*s));
	sort(s, n, sizeof(*s), bk_cmp_s64, NULL);
	return n & 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* @v (thousandths) as text with @dec decimals, rounded. */
static const char *bk_fmt(char *buf, size_t len, s64 v, unsigned int dec)
{
	static const s64 scale[] = { 1000, 100, 10, 1 };
	s64 div = scale[min(dec, 3U)], q;
	bool neg = v < 0;
	u64 a = neg ? -v : v;

	a = div64_u64(a + div / 2, div);	/* in units of 10^-dec */
	q = 1;
	for (unsigned int i = 0; i < dec; i++)
		q *= 10;
	if (dec)
		snprintf(buf, len, "%s%llu.%0*llu", neg ? "-" : "", div64_u64(a, q), dec,
			 a - div64_u64(a, q) * q);
	else
		snprintf(buf, len, "%s%llu", neg ? "-" : "", a);
	return buf;
}

static void bk_print(const struct bk_series *s)
{
	s64 ratio[BK_MAX_ROUNDS], lo = 0, hi = 0;
	char bx[32], bl[32], br[32], blo[32], bhi[32];
	u32 r, nr = 0;

	for (r = 0; r < s->n; r++) {
		s64 x = s->v[0][r], l = s->v[1][r];

		ratio[nr] = l > 0 ? div64_s64(x * 1000, l) : 0;
		if (!nr || ratio[nr] < lo)
			lo = ratio[nr];
		if (!nr || ratio[nr] > hi)
			hi = ratio[nr];
		nr++;
	}
	pr_info("bench-kernel: %s xqp=%s linux=%s ratio=%s range=%s-%s unit=%s\n",
		s->name, bk_fmt(bx, sizeof(bx), bk_median(s->v[0], s->n), s->decimals),
		bk_fmt(bl, sizeof(bl), bk_median(s->v[1], s->n), s->decimals),
		bk_fmt(br, sizeof(br), bk_median(ratio, nr), 3),
		bk_fmt(blo, sizeof(blo), lo, 3), bk_fmt(bhi, sizeof(bhi), hi, 3), s->unit);
}

/* Thousandths of a ns per op. */
static s64 bk_ns_per_op(u64 ns, u64 ops)
{
	return ops ? (s64)div64_u64(ns * 1000, ops) : 0;
}

/* Thousandths of ops/s. */
static s64 bk_ops_per_s(u64 ops, u64 ns)
{
	return ns ? (s64)div64_u64(ops * NSEC_PER_SEC, ns) * 1000 : 0;
}

/*
 * Runs @fn for each round and side, the sides in alternating order (xqp
 * first in even rounds): what one round measures of the two ran back to
 * back, under the same host load.
 */
static int bk_rounds(struct bk_run *run, u32 nrounds,
		     int (*fn)(struct bk_run *run, int side, u32 round, void *arg),
		     void *arg)
{
	u32 r;
	int k, s, err;

	for (r = 0; r < nrounds; r++) {
		for (k = 0; k < BK_SIDES; k++) {
			s = (r & 1) ? BK_SIDES - 1 - k : k;
			err = fn(run, s, r, arg);
			if (err) {
				pr_err("bench-kernel: %s, round %u: %d\n", bk_sides[s]->name, r, err);
				return err;
			}
		}
	}
	return 0;
}

/* Both drivers hold no QP and both XRCDs no user: what every metric leaves. */
static int bk_clean(struct bk_run *run, const char *metric)
{
	int s, bad = 0;

	for (s = 0; s < BK_SIDES; s++) {
		u32 qps = bk_sides[s]->live_qps(run->dev[s]);
		u32 use = bk_sides[s]->xrcd_usecnt(run->dev[s]);

		if (qps || use) {
			pr_err("bench-kernel: %s: %s left %u driver QPs, XRCD usecnt %u\n",
			       metric, bk_sides[s]->name, qps, use);
			bad = -EBADE;
		}
	}
	return bad;
}

/* ---- kthreads ----------------------------------------------------------------- */

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

static int bk_worker_fn(void *arg)
{
	struct bk_worker *w = arg;
	struct bk_group *g = w->g;

	wait_event_interruptible(g->wq, READ_ONCE(g->go) || kthread_should_stop());
	w->err = -EINTR;
	if (READ_ONCE(g->go) && !kthread_should_stop())
		w->err = w->fn(w);
	complete(&w->done);
	/* stay until joined by kthread_stop() */
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/* Stops and joins the first @n workers (created, maybe never started). */
static void bk_group_stop(struct bk_group *g, u32 n)
{
	while (n--)
		kthread_stop(g->w[n].task);
}

/*
 * Starts @g->nt workers, worker i bound to @cpus[i], waits for all of them
 * to finish, joins them. Return: 0, or the error of creating a thread
 * (nothing is left running then). The workers' own results are in w[].err.
 */
static int bk_group_run(struct bk_group *g, const int *cpus)
{
	u32 i;

	init_waitqueue_head(&g->wq);
	atomic_set(&g->arrived, 0);
	for (i = 0; i < g->nt; i++) {
		struct bk_worker *w = &g->w[i];

		w->g = g;
		init_completion(&w->done);
		w->task = kthread_create(bk_worker_fn, w, "xqp_bench/%u", i);
		if (IS_ERR(w->task)) {
			int err = PTR_ERR(w->task);

			bk_group_stop(g, i);
			return err;
		}
		kthread_bind(w->task, cpus[i]);
	}
	for (i = 0; i < g->nt; i++)
		wake_up_process(g->w[i].task);
	WRITE_ONCE(g->go, true);
	wake_up_all(&g->wq);
	for (i = 0; i < g->nt; i++) {
		/* killable: the hung-task detector leaves such waits alone */
		if (wait_for_completion_killable(&g->w[i].done)) {
			WRITE_ONCE(g->abort, true);
			WRITE_ONCE(g->stop_events, true);
			wait_for_completion(&g->w[i].done);
		}
	}
	bk_group_stop(g, g->nt);
	return 0;
}

static int bk_group_err(const struct bk_group *g)
{
	u32 i;

	for (i = 0; i < g->nt; i++)
		if (g->w[i].err)
			return g->w[i].err;
	return 0;
}

/* The online CPUs, at most @max; returns how many. */
static u32 bk_cpus(int *cpus, u32 max)
{
	u32 n = 0;
	int cpu;

	for_each_online_cpu(cpu) {
		if (n == max)
			break;
		cpus[n++] = cpu;
	}
	return n;
}

/* ---- metric filter, counts ----------------------------------------------------- */

static bool bk_wanted(const char *metric)
{
	const char *p = only;
	char tok[32];

	if (!p || !*p)
		return true;
	while (*p) {
		size_t len = strcspn(p, ",");

		if (len && len < sizeof(tok)) {
			memcpy(tok, p, len);
			tok[len] = '\0';
			if (strstr(metric, tok))
				return true;
		}
		p += len;
		if (*p == ',')
			p++;
	}
	return false;
}

static u32 bk_count(unsigned int param, u32 full, u32 small)
{
	return param ? param : (quick ? small : full);
}

static void bk_verdict(struct bk_run *run, const char *metric, int err)
{
	if (!err)
		err = bk_clean(run, metric);
	if (err) {
		pr_err("bench-kernel: %s FAILED (%d)\n", metric, err);
		run->failed++;
	} else {
		run->passed++;
	}
}

/* ---- bytes_per_handle ------------------------------------------------------------ */

static void bm_bytes_per_handle(struct bk_run *run)
{
	struct bk_series s = { .name = "bytes_per_handle", .unit = "B", .n = 1 };
	struct bk_hctx c = {};
	int side, err = 0, err2;

	for (side = 0; side < BK_SIDES && !err; side++) {
		const struct bk_side *sd = bk_sides[side];
		void *creator, *h;
		u32 qpn;

		err = sd->qp_create(run->dev[side], &c, &creator, &qpn);
		if (err)
			break;
		err = sd->h_open(run->dev[side], qpn, &c, &h);
		if (!err) {
			s.v[side][0] = (s64)sd->h_bytes(h) * 1000;
			err = sd->h_close(h);
		}
		err2 = sd->qp_destroy(creator);
		err = err ?: err2;
	}
	if (!err)
		bk_print(&s);
	bk_verdict(run, s.name, err);
}

/* ---- open_close, create_destroy ------------------------------------------------- */

struct bm_simple {
	struct bk_series s;
	u32 n;
	u32 qpn[BK_SIDES];
};

static int bm_open_close_round(struct bk_run *run, int side, u32 r, void *arg)
{
	struct bm_simple *m = arg;
	u64 ns;
	int err;

	err = bk_sides[side]->loop_open_close(run->dev[side], m->qpn[side], m->n, &ns);
	if (!err)
		m->s.v[side][r] = bk_ns_per_op(ns, m->n);
	return err;
}

static void bm_open_close(struct bk_run *run)
{
	struct bm_simple m = {
		.s = { .name = "open_close", .unit = "ns", .decimals = 1 },
		.n = bk_count(n_open, 100000, 1000),
	};
	void *creator[BK_SIDES] = {};
	struct bk_hctx c = {};
	int side, err = 0, err2;
	u64 ns;

	for (side = 0; side < BK_SIDES && !err; side++)
		err = bk_sides[side]->qp_create(run->dev[side], &c, &creator[side],
						&m.qpn[side]);
	/* warm-up: a tenth, untimed */
	for (side = 0; side < BK_SIDES && !err; side++)
		err = bk_sides[side]->loop_open_close(run->dev[side], m.qpn[side],
						      m.n / 10 + 1, &ns);
	if (!err)
		err = bk_rounds(run, run->rounds, bm_open_close_round, &m);
	for (side = BK_SIDES - 1; side >= 0; side--) {
		if (!creator[side])
			continue;
		err2 = bk_sides[side]->qp_destroy(creator[side]);
		err = err ?: err2;
	}
	if (!err) {
		m.s.n = run->rounds;
		bk_print(&m.s);
	}
	bk_verdict(run, m.s.name, err);
}

static int bm_create_destroy_round(struct bk_run *run, int side, u32 r, void *arg)
{
	struct bm_simple *m = arg;
	u64 ns;
	int err;

	err = bk_sides[side]->loop_create_destroy(run->dev[side], m->n, &ns);
	if (!err)
		m->s.v[side][r] = bk_ns_per_op(ns, m->n);
	return err;
}

static void bm_create_destroy(struct bk_run *run)
{
	struct bm_simple m = {
		.s = { .name = "create_destroy", .unit = "ns", .decimals = 1 },
		.n = bk_count(n_create, 20000, 200),
	};
	int side, err = 0;
	u64 ns;

	for (side = 0; side < BK_SIDES && !err; side++)
		err = bk_sides[side]->loop_create_destroy(run->dev[side], m.n / 10 + 1, &ns);
	if (!err)
		err = bk_rounds(run, run->rounds, bm_create_destroy_round, &m);
	if (!err) {
		m.s.n = run->rounds;
		bk_print(&m.s);
	}
	bk_verdict(run, m.s.name, err);
}

/* ---- a QP with many handles (event_1024, fanout_*) -------------------------------- */

struct bk_fan {
	void *creator;
	u32 qpn;
	u32 nh;				/* handles opened */
	void **h;
	struct bk_hctx *c;		/* c[0]: the creator's; c[1 + i]: h[i]'s */
};

static int bk_fan_open(struct bk_run *run, int side, struct bk_fan *f, u32 nh)
{
	const struct bk_side *sd = bk_sides[side];
	int err;

	f->h = kvcalloc(nh, sizeof(*f->h), GFP_KERNEL);
	f->c = kvcalloc(nh + 1, sizeof(*f->c), GFP_KERNEL);
	if (!f->h || !f->c)
		return -ENOMEM;
	err = sd->qp_create(run->dev[side], &f->c[0], &f->creator, &f->qpn);
	if (err) {
		f->creator = NULL;
		return err;
	}
	for (f->nh = 0; f->nh < nh; f->nh++) {
		err = sd->h_open(run->dev[side], f->qpn, &f->c[1 + f->nh], &f->h[f->nh]);
		if (err)
			return err;
		if (!(f->nh & 255))
			cond_resched();
	}
	return 0;
}

/* Every handle got exactly @events events since opened. */
static int bk_fan_check(const struct bk_fan *f, const char *side, u64 events)
{
	u32 i;

	for (i = 0; i <= f->nh; i++) {
		if (f->c[i].events != events) {
			pr_err("bench-kernel: %s: handle %u got %lu events, %llu raised\n",
			       side, i, f->c[i].events, events);
			return -EBADE;
		}
	}
	return 0;
}

/* Closes the handles (in reverse), destroys the creator's; 0 or the first error. */
static int bk_fan_close(int side, struct bk_fan *f)
{
	const struct bk_side *sd = bk_sides[side];
	int err = 0, e;

	while (f->nh) {
		e = sd->h_close(f->h[--f->nh]);
		err = err ?: e;
	}
	if (f->creator) {
		e = sd->qp_destroy(f->creator);
		err = err ?: e;
		f->creator = NULL;
	}
	kvfree(f->c);
	kvfree(f->h);
	f->c = NULL;
	f->h = NULL;
	return err;
}

/* ---- event_1024 ---------------------------------------------------------------------- */

struct bm_event {
	struct bk_series s;
	struct bk_fan f[BK_SIDES];
	u32 n;
	u64 raised[BK_SIDES];
};

static int bm_event_round(struct bk_run *run, int side, u32 r, void *arg)
{
	struct bm_event *m = arg;
	u64 ns;
	int err;

	err = bk_sides[side]->loop_raise(run->dev[side], m->f[side].qpn, m->n, &ns);
	if (!err) {
		m->raised[side] += m->n;
		m->s.v[side][r] = bk_ns_per_op(ns, m->n);
	}
	return err;
}

static void bm_event_1024(struct bk_run *run)
{
	struct bm_event *m = kzalloc(sizeof(*m), GFP_KERNEL);
	u32 nh = handles ?: 1024;
	int side, err = 0, err2;
	u64 ns;

	if (!m) {
		bk_verdict(run, "event_1024", -ENOMEM);
		return;
	}
	m->s = (struct bk_series){ .name = "event_1024", .unit = "ns", .decimals = 0 };
	m->n = bk_count(n_event, 500, 10);
	for (side = 0; side < BK_SIDES && !err; side++)
		err = bk_fan_open(run, side, &m->f[side], nh);
	for (side = 0; side < BK_SIDES && !err; side++) {
		err = bk_sides[side]->loop_raise(run->dev[side], m->f[side].qpn,
						 m->n / 10 + 1, &ns);
		m->raised[side] += m->n / 10 + 1;
	}
	if (!err)
		err = bk_rounds(run, run->rounds, bm_event_round, m);
	for (side = 0; side < BK_SIDES && !err; side++)
		err = bk_fan_check(&m->f[side], bk_sides[side]->name, m->raised[side]);
	for (side = BK_SIDES - 1; side >= 0; side--) {
		err2 = bk_fan_close(side, &m->f[side]);
		err = err ?: err2;
	}
	if (!err) {
		m->s.n = run->rounds;
		bk_print(&m->s);
		pr_info("bench-kernel-info: event_1024: one event to %u handles + the creator's, %u events per round\n",
			nh, m->n);
	}
	bk_verdict(run, "event_1024", err);
	kfree(m);
}

/* ---- fanout_block ------------------------------------------------------------------- */

enum { BF_IDLE_P50, BF_IDLE_P99, BF_BLOCK_P50, BF_BLOCK_P99, BF_BLOCK_MAX };

struct bm_fanout {
	struct bk_series s[BK_MAX_SERIES];
	struct bk_fan f[BK_SIDES];	/* QP A, with its handles */
	void *b[BK_SIDES];		/* QP B, its creator's handle */
	u32 qpn_b[BK_SIDES];
	u64 raised[BK_SIDES], raise_ns[BK_SIDES];
	u32 n;
	u32 *lat;
	int cpus[2];
};

static int bf_events(struct bk_worker *w)
{
	struct bk_group *g = w->g;
	int err;

	w->t0 = ktime_get_ns();
	while (!READ_ONCE(g->stop_events)) {
		err = w->side->raise(w->dev, w->qpn);
		if (err) {
			WRITE_ONCE(g->abort, true);
			return err;
		}
		w->count++;
		WRITE_ONCE(g->events_started, true);
		cond_resched();
	}
	w->t1 = ktime_get_ns();
	return 0;
}

static int bf_sampler(struct bk_worker *w)
{
	struct bk_group *g = w->g;
	int err;

	/* with an event thread: time only while events are being delivered */
	while (g->nt > 1 && !READ_ONCE(g->events_started) && !READ_ONCE(g->abort))
		cond_resched();
	err = w->side->sample_open_close(w->dev, w->qpn, w->n, w->lat, &g->abort);
	WRITE_ONCE(g->stop_events, true);
	return err;
}

static int bk_cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/* One phase: the sampler on cpus[1], with (@events) or without an event thread on cpus[0]. */
static int bf_phase(struct bk_run *run, struct bm_fanout *m, int side, bool events)
{
	struct bk_worker w[2] = {};
	struct bk_group g = { .w = w, .nt = events ? 2 : 1 };
	int cpus[2] = { m->cpus[1], m->cpus[0] };
	int err;

	w[0] = (struct bk_worker){ .fn = bf_sampler, .side = bk_sides[side],
				   .dev = run->dev[side], .qpn = m->qpn_b[side],
				   .n = m->n, .lat = m->lat };
	w[1] = (struct bk_worker){ .fn = bf_events, .side = bk_sides[side],
				   .dev = run->dev[side], .qpn = m->f[side].qpn };
	err = bk_group_run(&g, cpus);
	if (err)
		return err;
	if (events) {
		m->raised[side] += w[1].count;
		m->raise_ns[side] += w[1].t1 - w[1].t0;
	}
	err = bk_group_err(&g);
	if (err)
		return err;
	sort(m->lat, m->n, sizeof(*m->lat), bk_cmp_u32, NULL);
	return 0;
}

static s64 bf_pct(const u32 *sorted, u32 n, u32 pct)
{
	u32 i = (u32)div_u64((u64)n * pct, 100);

	return (s64)sorted[min(i, n - 1)] * 1000;
}

static int bm_fanout_round(struct bk_run *run, int side, u32 r, void *arg)
{
	struct bm_fanout *m = arg;
	int err;

	err = bf_phase(run, m, side, false);
	if (err)
		return err;
	m->s[BF_IDLE_P50].v[side][r] = bf_pct(m->lat, m->n, 50);
	m->s[BF_IDLE_P99].v[side][r] = bf_pct(m->lat, m->n, 99);
	err = bf_phase(run, m, side, true);
	if (err)
		return err;
	m->s[BF_BLOCK_P50].v[side][r] = bf_pct(m->lat, m->n, 50);
	m->s[BF_BLOCK_P99].v[side][r] = bf_pct(m->lat, m->n, 99);
	m->s[BF_BLOCK_MAX].v[side][r] = (s64)m->lat[m->n - 1] * 1000;
	return 0;
}

static void bm_fanout_block(struct bk_run *run)
{
	static const char *const names[BK_MAX_SERIES] = {
		"fanout_idle_p50", "fanout_idle_p99", "fanout_block_p50",
		"fanout_block_p99", "fanout_block_max",
	};
	struct bm_fanout *m = kzalloc(sizeof(*m), GFP_KERNEL);
	u32 nh = handles ?: 1024;
	struct bk_hctx cb = {};
	int side, i, err = 0, err2;

	if (!m) {
		bk_verdict(run, "fanout_block", -ENOMEM);
		return;
	}
	if (bk_cpus(m->cpus, 2) < 2) {
		pr_info("bench-kernel-info: fanout_block needs two online CPUs: not measured\n");
		kfree(m);
		return;
	}
	for (i = 0; i < BK_MAX_SERIES; i++)
		m->s[i] = (struct bk_series){ .name = names[i], .unit = "ns" };
	m->n = bk_count(n_fanout, 20000, 200);
	m->lat = kvcalloc(m->n, sizeof(*m->lat), GFP_KERNEL);
	if (!m->lat)
		err = -ENOMEM;
	for (side = 0; side < BK_SIDES && !err; side++) {
		err = bk_fan_open(run, side, &m->f[side], nh);
		if (!err)
			err = bk_sides[side]->qp_create(run->dev[side], &cb, &m->b[side],
							&m->qpn_b[side]);
	}
	if (!err)
		err = bk_rounds(run, run->rounds, bm_fanout_round, m);
	for (side = 0; side < BK_SIDES && !err; side++)
		err = bk_fan_check(&m->f[side], bk_sides[side]->name, m->raised[side]);
	for (side = BK_SIDES - 1; side >= 0; side--) {
		if (m->b[side]) {
			err2 = bk_sides[side]->qp_destroy(m->b[side]);
			err = err ?: err2;
		}
		err2 = bk_fan_close(side, &m->f[side]);
		err = err ?: err2;
	}
	if (!err) {
		for (i = 0; i < BK_MAX_SERIES; i++) {
			m->s[i].n = run->rounds;
			bk_print(&m->s[i]);
		}
		pr_info("bench-kernel-info: fanout_block: open+close of QP B timed one by one on CPU %d (%u per phase), events to QP A (%u handles + the creator's) from CPU %d; events delivered during the timing: xqp %llu (%llu/s), linux %llu (%llu/s)\n",
			m->cpus[1], m->n, nh, m->cpus[0],
			m->raised[0], m->raise_ns[0] ? div64_u64(m->raised[0] * NSEC_PER_SEC, m->raise_ns[0]) : 0,
			m->raised[1], m->raise_ns[1] ? div64_u64(m->raised[1] * NSEC_PER_SEC, m->raise_ns[1]) : 0);
	}
	bk_verdict(run, "fanout_block", err);
	kvfree(m->lat);
	kfree(m);
}

/* ---- scale_distinct, scale_same ------------------------------------------------------- */

struct bm_scale {
	struct bk_series s[2];		/* aggregate ops/s; speed-up */
	bool same;
	u32 nt, n;
	int *cpus;
	void **creator[BK_SIDES];
	u32 *qpn[BK_SIDES];
	struct bk_worker *w;
};

static int bs_body(struct bk_worker *w)
{
	struct bk_group *g = w->g;
	u64 ns;
	int err;

	/* start together: every worker has its own CPU */
	atomic_inc(&g->arrived);
	while (atomic_read(&g->arrived) < g->nt && !READ_ONCE(g->abort))
		cpu_relax();
	w->t0 = ktime_get_ns();
	err = w->side->loop_open_close(w->dev, w->qpn, w->n, &ns);
	w->t1 = w->t0 + ns;
	return err;
}

/* @nt workers at once; *ops_s: their aggregate rate (thousandths of ops/s). */
static int bs_run(struct bk_run *run, struct bm_scale *m, int side, u32 nt, s64 *ops_s)
{
	struct bk_group g = { .w = m->w, .nt = nt };
	u64 first = U64_MAX, last = 0;
	u32 i;
	int err;

	memset(m->w, 0, nt * sizeof(*m->w));
	for (i = 0; i < nt; i++)
		m->w[i] = (struct bk_worker){ .fn = bs_body, .side = bk_sides[side],
					      .dev = run->dev[side],
					      .qpn = m->qpn[side][m->same ? 0 : i], .n = m->n };
	err = bk_group_run(&g, m->cpus);
	if (!err)
		err = bk_group_err(&g);
	if (err)
		return err;
	for (i = 0; i < nt; i++) {
		first = min(first, m->w[i].t0);
		last = max(last, m->w[i].t1);
	}
	*ops_s = bk_ops_per_s((u64)nt * m->n, last - first);
	return 0;
}

static int bm_scale_round(struct bk_run *run, int side, u32 r, void *arg)
{
	struct bm_scale *m = arg;
	s64 one, all;
	int err;

	err = bs_run(run, m, side, 1, &one);
	if (!err)
		err = bs_run(run, m, side, m->nt, &all);
	if (err)
		return err;
	m->s[0].v[side][r] = all;
	m->s[1].v[side][r] = one > 0 ? div64_s64(all * 1000, one) : 0;
	return 0;
}

static void bm_scale(struct bk_run *run, bool same)
{
	const char *name = same ? "scale_same" : "scale_distinct";
	struct bm_scale *m = kzalloc(sizeof(*m), GFP_KERNEL);
	u32 ncpu = num_online_cpus(), i, nq;
	struct bk_hctx c = {};
	int side, err = 0, err2;

	if (!m) {
		bk_verdict(run, name, -ENOMEM);
		return;
	}
	m->same = same;
	m->s[0] = (struct bk_series){ .name = name, .unit = "ops/s" };
	m->s[1] = (struct bk_series){ .name = same ? "scale_same_speedup" : "scale_distinct_speedup",
				      .unit = "x", .decimals = 2 };
	m->n = bk_count(n_scale, 50000, 500);
	m->cpus = kcalloc(ncpu, sizeof(*m->cpus), GFP_KERNEL);
	m->w = kcalloc(ncpu, sizeof(*m->w), GFP_KERNEL);
	nq = same ? 1 : ncpu;
	for (side = 0; side < BK_SIDES; side++) {
		m->creator[side] = kcalloc(nq, sizeof(void *), GFP_KERNEL);
		m->qpn[side] = kcalloc(nq, sizeof(u32), GFP_KERNEL);
		if (!m->creator[side] || !m->qpn[side])
			err = -ENOMEM;
	}
	if (!m->cpus || !m->w)
		err = -ENOMEM;
	if (!err)
		m->nt = bk_cpus(m->cpus, ncpu);
	for (side = 0; side < BK_SIDES && !err; side++)
		for (i = 0; i < nq && !err; i++)
			err = bk_sides[side]->qp_create(run->dev[side], &c, &m->creator[side][i],
							&m->qpn[side][i]);
	if (!err)
		err = bk_rounds(run, run->rounds, bm_scale_round, m);
	for (side = BK_SIDES - 1; side >= 0; side--) {
		for (i = nq; m->creator[side] && i-- > 0;) {
			if (!m->creator[side][i])
				continue;
			err2 = bk_sides[side]->qp_destroy(m->creator[side][i]);
			err = err ?: err2;
		}
		kfree(m->qpn[side]);
		kfree(m->creator[side]);
	}
	if (!err) {
		m->s[0].n = m->s[1].n = run->rounds;
		bk_print(&m->s[0]);
		bk_print(&m->s[1]);
		pr_info("bench-kernel-info: %s: %u kthreads (one per online CPU) doing open+close on %s, %u pairs each; speed-up over one kthread\n",
			name, m->nt, same ? "one QP" : "a QP each", m->n);
	}
	bk_verdict(run, name, err);
	kfree(m->w);
	kfree(m->cpus);
	kfree(m);
}

/* ---- open_close_1m, bytes_per_qp ------------------------------------------------------ */

struct bm_many {
	struct bk_series s;
	u32 *qpns[BK_SIDES];
	u32 made[BK_SIDES];
	u32 nq, n;
};

static int bm_many_round(struct bk_run *run, int side, u32 r, void *arg)
{
	struct bm_many *m = arg;
	u64 ns;
	int err;

	err = bk_sides[side]->loop_open_close_walk(run->dev[side], m->qpns[side],
						   m->made[side], m->n, &ns);
	if (!err)
		m->s.v[side][r] = bk_ns_per_op(ns, m->n);
	return err;
}

/* Free memory and slab memory, in pages, with no RCU callback pending. */
static void bm_mem(long *free_pages, long *slab_pages)
{
	rcu_barrier();
	*free_pages = (long)global_zone_page_state(NR_FREE_PAGES);
	*slab_pages = (long)(global_node_page_state_pages(NR_SLAB_RECLAIMABLE_B) +
			     global_node_page_state_pages(NR_SLAB_UNRECLAIMABLE_B));
}

static void bm_open_close_1m(struct bk_run *run, bool want_walk, bool want_bytes)
{
	struct bm_many *m = kzalloc(sizeof(*m), GFP_KERNEL);
	struct bk_series bytes = { .name = "bytes_per_qp", .unit = "B", .n = 1 };
	s64 slab[BK_SIDES] = {}, create_ns[BK_SIDES] = {};
	int side, err = 0, err2;
	u64 ns;

	if (!m) {
		if (want_walk)
			bk_verdict(run, "open_close_1m", -ENOMEM);
		if (want_bytes)
			bk_verdict(run, "bytes_per_qp", -ENOMEM);
		return;
	}
	m->s = (struct bk_series){ .name = "open_close_1m", .unit = "ns", .decimals = 1 };
	m->nq = bk_count(n_1m, 1000000, 1000);
	m->n = bk_count(n_walk, 100000, 1000);
	for (side = 0; side < BK_SIDES && !err; side++) {
		long f0, s0, f1, s1;
		u64 t0;

		m->qpns[side] = kvcalloc(m->nq, sizeof(u32), GFP_KERNEL);
		if (!m->qpns[side]) {
			err = -ENOMEM;
			break;
		}
		bm_mem(&f0, &s0);
		t0 = ktime_get_ns();
		err = bk_sides[side]->populate(run->dev[side], m->qpns[side], m->nq,
					       &m->made[side]);
		create_ns[side] = bk_ns_per_op(ktime_get_ns() - t0, m->nq);
		bm_mem(&f1, &s1);
		/* what the QPs took: all memory, and slab memory alone */
		bytes.v[side][0] = div64_s64((s64)(f0 - f1) * PAGE_SIZE * 1000, m->nq);
		slab[side] = div64_s64((s64)(s1 - s0) * PAGE_SIZE, m->nq);
		if (err)
			pr_err("bench-kernel: %s: populate: %d after %u QPs\n",
			       bk_sides[side]->name, err, m->made[side]);
	}
	for (side = 0; side < BK_SIDES && !err && want_walk; side++)
		err = bk_sides[side]->loop_open_close_walk(run->dev[side], m->qpns[side],
							   m->made[side], m->n / 10 + 1, &ns);
	if (!err && want_walk)
		err = bk_rounds(run, run->rounds, bm_many_round, m);
	for (side = BK_SIDES - 1; side >= 0; side--) {
		if (!m->qpns[side])
			continue;
		err2 = bk_sides[side]->depopulate(run->dev[side], m->qpns[side], m->made[side]);
		err = err ?: err2;
		kvfree(m->qpns[side]);
	}
	if (!err) {
		if (want_walk) {
			m->s.n = run->rounds;
			bk_print(&m->s);
		}
		if (want_bytes)
			bk_print(&bytes);
		pr_info("bench-kernel-info: open_close_1m: %u XRC_TGT QPs without handles in each XRCD, open+close walking them with a stride of %u, %u pairs per round\n",
			m->nq, BK_WALK_STRIDE % m->nq, m->n);
		pr_info("bench-kernel-info: bytes_per_qp: free memory taken per QP (core, driver, tables); slab alone: xqp %lld B, linux %lld B; create+close of each: xqp %lld ns, linux %lld ns\n",
			slab[0], slab[1], div_s64(create_ns[0], 1000), div_s64(create_ns[1], 1000));
	}
	if (want_walk)
		bk_verdict(run, "open_close_1m", err);
	if (want_bytes)
		bk_verdict(run, "bytes_per_qp", err);
	kfree(m);
}

/* ---- the run ------------------------------------------------------------------------------- */

static void bk_run_all(void)
{
	struct bk_run run = {};
	int side, err = 0, left;

	run.rounds = rounds ?: (quick ? 1 : 5);
	if (run.rounds > BK_MAX_ROUNDS)
		run.rounds = BK_MAX_ROUNDS;
	pr_info("bench-kernel-info: %s, %u rounds, %u online CPUs, xqp and linux alternating\n",
		quick ? "quick (correctness) pass" : "full run", run.rounds, num_online_cpus());
	for (side = 0; side < BK_SIDES; side++) {
		run.dev[side] = bk_sides[side]->dev_create();
		if (IS_ERR(run.dev[side])) {
			err = PTR_ERR(run.dev[side]);
			pr_err("bench-kernel: %s: no device: %d\n", bk_sides[side]->name, err);
			run.dev[side] = NULL;
			break;
		}
		bk_sides[side]->info();
	}
	if (!err) {
		if (bk_wanted("bytes_per_handle"))
			bm_bytes_per_handle(&run);
		if (bk_wanted("open_close"))
			bm_open_close(&run);
		if (bk_wanted("create_destroy"))
			bm_create_destroy(&run);
		if (bk_wanted("event_1024"))
			bm_event_1024(&run);
		if (bk_wanted("fanout_block"))
			bm_fanout_block(&run);
		if (bk_wanted("scale_distinct"))
			bm_scale(&run, false);
		if (bk_wanted("scale_same"))
			bm_scale(&run, true);
		if (bk_wanted("open_close_1m") || bk_wanted("bytes_per_qp"))
			bm_open_close_1m(&run, bk_wanted("open_close_1m"),
					 bk_wanted("bytes_per_qp"));
	}
	/* reverse order of creation; a device that could not be made fails here */
	for (side = BK_SIDES - 1; side >= 0; side--) {
		if (!run.dev[side])
			continue;
		left = bk_sides[side]->dev_destroy(run.dev[side]);
		if (left) {
			pr_err("bench-kernel: %s: teardown: %d\n", bk_sides[side]->name, left);
			err = err ?: -EBADE;
		}
	}
	if (err)
		run.failed++;
	else
		run.passed++;	/* the devices: made, and freed with nothing left */
	pr_info("bench-kernel: %u passed, %u failed\n", run.passed, run.failed);
}

/* One run at a time: at load, or each write of 1 to the start parameter. */
static DEFINE_MUTEX(bk_run_mutex);

static void bk_run_locked(void)
{
	mutex_lock(&bk_run_mutex);
	bk_run_all();
	mutex_unlock(&bk_run_mutex);
}

/*
 * Writing 1 to /sys/module/xqp_bench/parameters/start runs the benchmark
 * (the same run, with the load's parameters) and returns when it is over.
 * With run=0 at load, a tracer can be set up on the module's own functions
 * (scripts/bench-profile) before anything is timed.
 */
static int bk_start_set(const char *val, const struct kernel_param *kp)
{
	bool go;
	int err = kstrtobool(val, &go);

	if (err)
		return err;
	if (go)
		bk_run_locked();
	return 0;
}

static const struct kernel_param_ops bk_start_ops = {
	.set = bk_start_set,
};
module_param_cb(start, &bk_start_ops, NULL, 0200);
MODULE_PARM_DESC(start, "write 1: run the benchmark now (after loading with run=0)");

static int __init xqp_bench_init(void)
{
	if (run)
		bk_run_locked();
	return 0;
}

static void __exit xqp_bench_exit(void)
{
	/* nothing: the run freed everything and joined its threads */
}

module_init(xqp_bench_init);
module_exit(xqp_bench_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("xqp against Linux's ib_core, side by side, in the kernel");
