// SPDX-License-Identifier: GPL-2.0
/* xqp_bench: what opening, closing, creating and destroying shared QPs costs, in time and bytes. */
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/vmstat.h>

#include "run.h"

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

/* ---- bytes_per_share ------------------------------------------------------------ */

void bm_bytes_per_share(struct bk_run *run)
{
	struct bk_series s = { .name = "bytes_per_share", .unit = "B", .n = 1 };
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

void bm_open_close(struct bk_run *run)
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

void bm_create_destroy(struct bk_run *run)
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

void bm_open_close_1m(struct bk_run *run, bool want_walk, bool want_bytes)
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
		pr_info("bench-kernel-info: open_close_1m: %u XRC_TGT QPs without shares in each XRCD, open+close walking them with a stride of %u, %u pairs per round\n",
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
