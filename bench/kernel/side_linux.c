// SPDX-License-Identifier: GPL-2.0
/*
 * xqp_bench, the Linux side: the kernel's own ib_core (verbs.c:
 * ib_create_qp_user, ib_open_qp, ib_close_qp, ib_destroy_qp, ib_alloc_xrcd_user)
 * on a reference device of its own (xqp_refdev_create(), from
 * xqp_refdev.ko's exports), called exactly as the differential KUnit suite
 * calls it (tests/kunit/diff_linux.c).
 */
#include <linux/err.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "refdev/refdev.h"
#include "bench.h"

/*
 * Exported by ib_core (verbs.c) but declared only in its private
 * core_priv.h; the same prototype as there (as tests/kunit/diff_linux.c).
 */
struct ib_uqp_object;
struct ib_qp *ib_create_qp_user(struct ib_device *dev, struct ib_pd *pd,
				struct ib_qp_init_attr *attr,
				struct ib_udata *udata,
				struct ib_uqp_object *uobj, const char *caller);

struct bk_dev {
	struct xqp_refdev *ref;
	struct ib_device *dev;
	struct ib_xrcd *xrcd;
};

static void lb_event(struct ib_event *ev, void *context)
{
	struct bk_hctx *c = context;

	WRITE_ONCE(c->events, READ_ONCE(c->events) + 1);
}

static inline void *bks_open(struct bk_dev *d, u32 qpn, struct bk_hctx *c)
{
	struct ib_qp_open_attr oa = {
		.event_handler = lb_event,
		.qp_context = c,
		.qp_num = qpn,
		.qp_type = IB_QPT_XRC_TGT,
	};

	return ib_open_qp(d->xrcd, &oa);
}

static inline int bks_close(void *h)
{
	return ib_close_qp(h);
}

static inline void *bks_create(struct bk_dev *d, struct bk_hctx *c, u32 *qpn)
{
	struct ib_qp_init_attr init = {
		.event_handler = lb_event,
		.qp_context = c,
		.xrcd = d->xrcd,
		.qp_type = IB_QPT_XRC_TGT,
	};
	struct ib_qp *h = ib_create_qp_user(d->dev, NULL, &init, NULL, NULL,
					    KBUILD_MODNAME);

	if (!IS_ERR(h))
		*qpn = h->qp_num;
	return h;
}

static inline int bks_destroy(void *h)
{
	return ib_destroy_qp(h);
}

static inline int bks_raise(struct bk_dev *d, u32 qpn)
{
	return xqp_refdev_raise_qp_event(d->ref, qpn, IB_EVENT_COMM_EST);
}

#define BKT(name) linux_bkt_##name
#include "bench_side.h"

static struct bk_dev *lb_dev_create(void)
{
	struct bk_dev *d = kzalloc(sizeof(*d), GFP_KERNEL);
	int err;

	if (!d)
		return ERR_PTR(-ENOMEM);
	d->ref = xqp_refdev_create();
	if (IS_ERR(d->ref)) {
		err = PTR_ERR(d->ref);
		goto err_free;
	}
	d->dev = xqp_refdev_ibdev(d->ref);
	d->xrcd = ib_alloc_xrcd_user(d->dev, NULL, NULL);
	if (IS_ERR(d->xrcd)) {
		err = PTR_ERR(d->xrcd);
		goto err_ref;
	}
	return d;

err_ref:
	xqp_refdev_destroy(d->ref);
err_free:
	kfree(d);
	return ERR_PTR(err);
}

static int lb_dev_destroy(struct bk_dev *d)
{
	int err, left;

	err = ib_dealloc_xrcd_user(d->xrcd, NULL);
	if (err)
		pr_err("bench-kernel: linux: ib_dealloc_xrcd_user: %d\n", err);
	/* reports (pr_err) and counts what the driver still holds */
	left = xqp_refdev_destroy(d->ref);
	kfree(d);
	return err ?: left;
}

static u32 lb_live_qps(struct bk_dev *d)
{
	struct xqp_refdev_counts c;

	xqp_refdev_counts(d->ref, &c);
	return c.qp;
}

static u32 lb_xrcd_usecnt(struct bk_dev *d)
{
	return atomic_read(&d->xrcd->usecnt);
}

static int lb_qp_create(struct bk_dev *d, struct bk_hctx *c, void **h, u32 *qpn)
{
	void *qp = bks_create(d, c, qpn);

	if (IS_ERR(qp))
		return PTR_ERR(qp);
	*h = qp;
	return 0;
}

static int lb_h_open(struct bk_dev *d, u32 qpn, struct bk_hctx *c, void **h)
{
	void *qp = bks_open(d, qpn, c);

	if (IS_ERR(qp))
		return PTR_ERR(qp);
	*h = qp;
	return 0;
}

/*
 * __ib_open_qp() allocates a whole struct ib_qp per share, plus a
 * security context (and its LSM blob) where CONFIG_SECURITY_INFINIBAND is
 * set (not on Debian's 6.12, nor on the test kernel).
 */
static size_t lb_h_bytes(void *h)
{
	struct ib_qp *qp = h;
	size_t n = ksize(qp);

	if (qp->qp_sec) {
		n += ksize(qp->qp_sec);
		if (qp->qp_sec->security)
			n += ksize(qp->qp_sec->security);
	}
	return n;
}

static void lb_info(void)
{
	pr_info("bench-kernel-info: linux sizeof: struct ib_qp %zu (one per share), struct ib_xrcd %zu\n",
		sizeof(struct ib_qp), sizeof(struct ib_xrcd));
}

const struct bk_side bk_side_linux = {
	.name = "linux",
	.dev_create = lb_dev_create,
	.dev_destroy = lb_dev_destroy,
	.live_qps = lb_live_qps,
	.xrcd_usecnt = lb_xrcd_usecnt,
	.qp_create = lb_qp_create,
	.qp_destroy = bks_destroy,
	.h_open = lb_h_open,
	.h_close = bks_close,
	.h_bytes = lb_h_bytes,
	.info = lb_info,
	.raise = bks_raise,
	BK_SIDE_LOOPS,
};
