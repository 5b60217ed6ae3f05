// SPDX-License-Identifier: GPL-2.0
/*
 * xqp_bench, the xqp side: xqp's kernel C API (xqp/verbs.h) on a soft device
 * of its own (xqp_soft_create(), from xqp_soft.ko's exports).
 */
#include <linux/err.h>
#include <linux/slab.h>

#include "soft/soft.h"
#include "xqp/verbs.h"
#include "bench.h"

struct bk_dev {
	struct xqp_soft *soft;
	struct xqp_device *dev;
	struct xqp_xrcd *xrcd;
};

static void xb_event(struct xqp_event *ev, void *context)
{
	struct bk_hctx *c = context;

	WRITE_ONCE(c->events, READ_ONCE(c->events) + 1);
}

static inline void *bks_open(struct bk_dev *d, u32 qpn, struct bk_hctx *c)
{
	struct xqp_qp_open_attr oa = {
		.event_handler = xb_event,
		.qp_context = c,
		.event_flags = XQP_EVENT_INLINE,	/* delivered at the raise, as ib_core's walk */
		.qp_num = qpn,
		.qp_type = XQP_QPT_XRC_TGT,
	};

	return xqp_open_qp(d->xrcd, &oa);
}

static inline int bks_close(void *h)
{
	return xqp_close_qp(h);
}

static inline void *bks_create(struct bk_dev *d, struct bk_hctx *c, u32 *qpn)
{
	struct xqp_qp_init_attr init = {
		.event_handler = xb_event,
		.qp_context = c,
		.event_flags = XQP_EVENT_INLINE,
		.xrcd = d->xrcd,
		.qp_type = XQP_QPT_XRC_TGT,
	};
	struct xqp_qp *h = xqp_create_qp_user(d->dev, NULL, &init, NULL, NULL,
					      KBUILD_MODNAME);

	if (!IS_ERR(h))
		*qpn = xqp_qp_num(h);
	return h;
}

static inline int bks_destroy(void *h)
{
	return xqp_destroy_qp(h);
}

static inline int bks_raise(struct bk_dev *d, u32 qpn)
{
	return xqp_soft_raise_qp_event(d->soft, qpn, XQP_EVENT_COMM_EST);
}

#define BKT(name) xqp_bkt_##name
#include "bench_side.h"

static struct bk_dev *xb_dev_create(void)
{
	struct bk_dev *d = kzalloc(sizeof(*d), GFP_KERNEL);
	int err;

	if (!d)
		return ERR_PTR(-ENOMEM);
	d->soft = xqp_soft_create("xqp_bench", NULL);
	if (IS_ERR(d->soft)) {
		err = PTR_ERR(d->soft);
		goto err_free;
	}
	d->dev = xqp_soft_device(d->soft);
	d->xrcd = xqp_alloc_xrcd(d->dev);
	if (IS_ERR(d->xrcd)) {
		err = PTR_ERR(d->xrcd);
		goto err_soft;
	}
	return d;

err_soft:
	xqp_soft_destroy(d->soft);
err_free:
	kfree(d);
	return ERR_PTR(err);
}

static int xb_dev_destroy(struct bk_dev *d)
{
	struct xqp_soft_counts c;
	int err, left;

	err = xqp_dealloc_xrcd(d->xrcd);
	xqp_soft_counts(d->soft, &c);
	left = c.pd + c.cq + c.xrcd + c.srq + c.qp + c.mr;
	if (err)
		pr_err("bench-kernel: xqp: dealloc_xrcd: %d\n", err);
	if (left)
		pr_err("bench-kernel: xqp: %d driver objects still alive\n", left);
	/* unregistration reclaims whatever is left: nothing leaks either way */
	xqp_soft_destroy(d->soft);
	kfree(d);
	return err ?: left;
}

static u32 xb_live_qps(struct bk_dev *d)
{
	struct xqp_soft_counts c;

	xqp_soft_counts(d->soft, &c);
	return c.qp;
}

static u32 xb_xrcd_usecnt(struct bk_dev *d)
{
	return xqp_xrcd_usecnt(d->xrcd);
}

static int xb_qp_create(struct bk_dev *d, struct bk_hctx *c, void **h, u32 *qpn)
{
	void *qp = bks_create(d, c, qpn);

	if (IS_ERR(qp))
		return PTR_ERR(qp);
	*h = qp;
	return 0;
}

static int xb_h_open(struct bk_dev *d, u32 qpn, struct bk_hctx *c, void **h)
{
	void *qp = bks_open(d, qpn, c);

	if (IS_ERR(qp))
		return PTR_ERR(qp);
	*h = qp;
	return 0;
}

/*
 * A share is one allocation, and the struct xqp_qp pointer is its start
 * (the header is the first member of the core's Share).
 */
static size_t xb_h_bytes(void *h)
{
	return ksize(h);
}

static void xb_info(void)
{
	struct xqp_object_sizes s;

	xqp_object_sizes(&s);
	pr_info("bench-kernel-info: xqp sizeof: share %zu, real QP %zu, XRCD %zu (core objects)\n",
		s.share, s.real_qp, s.xrcd);
}

const struct bk_side bk_side_xqp = {
	.name = "xqp",
	.dev_create = xb_dev_create,
	.dev_destroy = xb_dev_destroy,
	.live_qps = xb_live_qps,
	.xrcd_usecnt = xb_xrcd_usecnt,
	.qp_create = xb_qp_create,
	.qp_destroy = bks_destroy,
	.h_open = xb_h_open,
	.h_close = bks_close,
	.h_bytes = xb_h_bytes,
	.info = xb_info,
	.raise = bks_raise,
	BK_SIDE_LOOPS,
};
