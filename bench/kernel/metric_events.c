// SPDX-License-Identifier: GPL-2.0
/* xqp_bench: one event to many shares, and open+close while events fan out. */
#include <linux/kthread.h>
#include <linux/math64.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/vmalloc.h>

#include "run.h"

static unsigned int n_event;
module_param(n_event, uint, 0444);
MODULE_PARM_DESC(n_event, "event_1024: events per round (default 500, quick 10)");
static unsigned int n_fanout;
module_param(n_fanout, uint, 0444);
MODULE_PARM_DESC(n_fanout, "fanout_*: timed pairs per round (default 20000, quick 200)");
static unsigned int shares;
module_param(shares, uint, 0444);
MODULE_PARM_DESC(shares, "shares the events go to (default 1024)");

/* ---- a QP with many shares (event_1024, fanout_*) -------------------------------- */

struct bk_fan {
	void *creator;
	u32 qpn;
	u32 nh;				/* shares opened */
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

/* Every share got exactly @events events since opened. */
static int bk_fan_check(const struct bk_fan *f, const char *side, u64 events)
{
	u32 i;

	for (i = 0; i <= f->nh; i++) {
		if (f->c[i].events != events) {
			pr_err("bench-kernel: %s: share %u got %lu events, %llu raised\n",
			       side, i, f->c[i].events, events);
			return -EBADE;
		}
	}
	return 0;
}

/* Closes the shares (in reverse), destroys the creator's; 0 or the first error. */
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

void bm_event_1024(struct bk_run *run)
{
	struct bm_event *m = kzalloc(sizeof(*m), GFP_KERNEL);
	u32 nh = shares ?: 1024;
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
		pr_info("bench-kernel-info: event_1024: one event to %u shares + the creator's, %u events per round\n",
			nh, m->n);
	}
	bk_verdict(run, "event_1024", err);
	kfree(m);
}

/* ---- fanout_block ------------------------------------------------------------------- */

enum { BF_IDLE_P50, BF_IDLE_P99, BF_BLOCK_P50, BF_BLOCK_P99, BF_BLOCK_MAX };

struct bm_fanout {
	struct bk_series s[BK_MAX_SERIES];
	struct bk_fan f[BK_SIDES];	/* QP A, with its shares */
	void *b[BK_SIDES];		/* QP B, its creator's share */
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

void bm_fanout_block(struct bk_run *run)
{
	static const char *const names[BK_MAX_SERIES] = {
		"fanout_idle_p50", "fanout_idle_p99", "fanout_block_p50",
		"fanout_block_p99", "fanout_block_max",
	};
	struct bm_fanout *m = kzalloc(sizeof(*m), GFP_KERNEL);
	u32 nh = shares ?: 1024;
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
		pr_info("bench-kernel-info: fanout_block: open+close of QP B timed one by one on CPU %d (%u per phase), events to QP A (%u shares + the creator's) from CPU %d; events delivered during the timing: xqp %llu (%llu/s), linux %llu (%llu/s)\n",
			m->cpus[1], m->n, nh, m->cpus[0],
			m->raised[0], m->raise_ns[0] ? div64_u64(m->raised[0] * NSEC_PER_SEC, m->raise_ns[0]) : 0,
			m->raised[1], m->raise_ns[1] ? div64_u64(m->raised[1] * NSEC_PER_SEC, m->raise_ns[1]) : 0);
	}
	bk_verdict(run, "fanout_block", err);
	kvfree(m->lat);
	kfree(m);
}
