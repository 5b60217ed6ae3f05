/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The timed loops of one side, one template for both (included once by
 * side_xqp.c and once by side_linux.c). Before including it a side defines
 * these static inline primitives, each a direct call of its own verbs:
 *
 *   void *bks_open(struct bk_dev *d, u32 qpn, struct bk_hctx *c);  ERR_PTR
 *   int bks_close(void *h);
 *   void *bks_create(struct bk_dev *d, struct bk_hctx *c, u32 *qpn); ERR_PTR
 *   int bks_destroy(void *h);
 *   int bks_raise(struct bk_dev *d, u32 qpn);
 *
 * and BKT(name), which names the side's copy of each function (so that
 * the two copies have distinct symbols: a tracer or profiler tells them
 * apart), and gets static functions BKT(*) for its struct bk_side
 * (BK_SIDE_LOOPS).
 * Every loop offers a scheduling point every 256 iterations (the same on
 * both sides) and checks every return value.
 */
#ifndef XQP_BENCH_SIDE_H
#define XQP_BENCH_SIDE_H

#include <linux/err.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>

#include "bench.h"

/* The handler context of shares nobody raises events on. */
static struct bk_hctx bkt_quiet;

#define BKT_YIELD(i)			\
	do {				\
		if (!((i) & 255))	\
			cond_resched();	\
	} while (0)

static inline int BKT(open_close_one)(struct bk_dev *d, u32 qpn)
{
	void *h = bks_open(d, qpn, &bkt_quiet);

	if (IS_ERR(h))
		return PTR_ERR(h);
	return bks_close(h);
}

static int BKT(loop_open_close)(struct bk_dev *d, u32 qpn, u32 n, u64 *ns)
{
	u64 t0 = ktime_get_ns();
	int err;
	u32 i;

	for (i = 0; i < n; i++) {
		err = BKT(open_close_one)(d, qpn);
		if (err)
			return err;
		BKT_YIELD(i);
	}
	*ns = ktime_get_ns() - t0;
	return 0;
}

/*
 * QP i, i + stride, i + 2 * stride, ... modulo @nq: consecutive opens land
 * on QPs far apart in the number space (and in memory), not on one hot path
 * of the lookup structure.
 */
static int BKT(loop_open_close_walk)(struct bk_dev *d, const u32 *qpns, u32 nq,
				    u32 n, u64 *ns)
{
	u32 step = BK_WALK_STRIDE % nq, k = 0, i;
	u64 t0 = ktime_get_ns();
	int err;

	for (i = 0; i < n; i++) {
		err = BKT(open_close_one)(d, qpns[k]);
		if (err)
			return err;
		k += step;
		if (k >= nq)
			k -= nq;
		BKT_YIELD(i);
	}
	*ns = ktime_get_ns() - t0;
	return 0;
}

static int BKT(loop_create_destroy)(struct bk_dev *d, u32 n, u64 *ns)
{
	u64 t0 = ktime_get_ns();
	void *h;
	u32 i, qpn;
	int err;

	for (i = 0; i < n; i++) {
		h = bks_create(d, &bkt_quiet, &qpn);
		if (IS_ERR(h))
			return PTR_ERR(h);
		err = bks_destroy(h);
		if (err)
			return err;
		BKT_YIELD(i);
	}
	*ns = ktime_get_ns() - t0;
	return 0;
}

static int BKT(loop_raise)(struct bk_dev *d, u32 qpn, u32 n, u64 *ns)
{
	u64 t0 = ktime_get_ns();
	int err;
	u32 i;

	for (i = 0; i < n; i++) {
		err = bks_raise(d, qpn);
		if (err)
			return err;
		/* one event is 1024 handler calls: yield after each */
		cond_resched();
	}
	*ns = ktime_get_ns() - t0;
	return 0;
}

static int BKT(sample_open_close)(struct bk_dev *d, u32 qpn, u32 n, u32 *lat,
				 const bool *abort)
{
	u64 t0, dt;
	int err;
	u32 i;

	for (i = 0; i < n; i++) {
		t0 = ktime_get_ns();
		err = BKT(open_close_one)(d, qpn);
		dt = ktime_get_ns() - t0;
		if (err)
			return err;
		lat[i] = dt > U32_MAX ? U32_MAX : (u32)dt;
		if (READ_ONCE(*abort))
			return -EINTR;
		BKT_YIELD(i);
	}
	return 0;
}

static int BKT(populate)(struct bk_dev *d, u32 *qpns, u32 nq, u32 *made)
{
	void *h;
	u32 i;
	int err;

	*made = 0;
	for (i = 0; i < nq; i++) {
		h = bks_create(d, &bkt_quiet, &qpns[i]);
		if (IS_ERR(h))
			return PTR_ERR(h);
		/* the QP stays in its XRCD without a share, openable */
		err = bks_close(h);
		if (err) {
			/* still a share: destroying it destroys the QP */
			bks_destroy(h);
			return err;
		}
		*made = i + 1;
		BKT_YIELD(i);
	}
	return 0;
}

static int BKT(depopulate)(struct bk_dev *d, const u32 *qpns, u32 nq)
{
	int err, first = 0;
	void *h;
	u32 i;

	for (i = 0; i < nq; i++) {
		h = bks_open(d, qpns[i], &bkt_quiet);
		err = IS_ERR(h) ? PTR_ERR(h) : bks_destroy(h);
		if (err && !first)
			first = err;
		BKT_YIELD(i);
	}
	return first;
}

#define BK_SIDE_LOOPS						\
	.loop_open_close = BKT(loop_open_close),			\
	.loop_open_close_walk = BKT(loop_open_close_walk),	\
	.loop_create_destroy = BKT(loop_create_destroy),		\
	.loop_raise = BKT(loop_raise),				\
	.sample_open_close = BKT(sample_open_close),		\
	.populate = BKT(populate),				\
	.depopulate = BKT(depopulate)

#endif /* XQP_BENCH_SIDE_H */
