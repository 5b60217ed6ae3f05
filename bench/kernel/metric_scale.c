// SPDX-License-Identifier: GPL-2.0
/* xqp_bench: open+close on every CPU at once, on distinct QPs or on one. */
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "run.h"

static unsigned int n_scale;
module_param(n_scale, uint, 0444);
MODULE_PARM_DESC(n_scale, "scale_*: pairs per kthread per round (default 50000, quick 500)");

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

void bm_scale(struct bk_run *run, bool same)
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
