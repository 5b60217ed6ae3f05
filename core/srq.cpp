// SPDX-License-Identifier: GPL-2.0
/* Shared receive queues, basic and XRC (an XRC SRQ counts in xrcd->usecnt). */
#include "object_life.h"

using namespace xqp;

/* The objects an SRQ uses; they stay busy while it lives. */
static void srq_uses(xqp_pd *pd, xqp_cq *cq, xqp_xrcd *xrcd, bool get)
{
	Atomic<u32> *counts[] = {&pd->usecnt, cq ? &cq->usecnt : nullptr,
				 xrcd ? &xrcd->usecnt : nullptr};

	for (Atomic<u32> *c : counts)
		if (c)
			get ? c->inc() : c->dec();
}

/**
 * xqp_create_srq - create an SRQ on @pd; an XRC one also names its XRCD and CQ.
 * @attr->attr is rewritten to what the driver granted.
 * Return: the SRQ, or ERR_PTR(-EINVAL for a missing XRCD/CQ or objects of
 * another device, -EIO, -EOPNOTSUPP, -ENOMEM, the driver's error).
 */
extern "C" struct xqp_srq *xqp_create_srq(struct xqp_pd *pd,
					  struct xqp_srq_init_attr *attr)
{
	xqp_device *dev = pd->dev;
	bool xrc = attr->srq_type == XQP_SRQT_XRC;

	if (attr->srq_type != XQP_SRQT_BASIC && !xrc)
		return err_ptr<xqp_srq>(-XQP_EINVAL);
	if (xrc && (!attr->xrcd || !attr->cq || attr->xrcd->dev != dev ||
		    attr->cq->dev != dev))
		return err_ptr<xqp_srq>(-XQP_EINVAL);

	xqp_srq *srq = make_tracked<xqp_srq>(
		dev, dev->ops->create_srq, &xqp_device_objects::srqs, [&](xqp_srq *s) {
			s->pd = pd;
			s->type = attr->srq_type;
			s->cq = xrc ? attr->cq : nullptr;
			s->xrcd = xrc ? attr->xrcd : nullptr;
			s->handler = attr->event_handler;
			s->context = attr->srq_context;
			return dev->ops->create_srq(dev->drv, pd->drv,
						    xrc ? s->xrcd->drv : nullptr,
						    xrc ? s->cq->drv : nullptr, attr,
						    &s->drv, &s->srq_num);
		});
	if (!xqp_is_err(srq))
		srq_uses(pd, srq->cq, srq->xrcd, true);
	return srq;
}

/**
 * xqp_destroy_srq - destroy an SRQ.
 * Return: 0; -EBUSY while QPs use it; the driver's error (SRQ intact).
 */
extern "C" int xqp_destroy_srq(struct xqp_srq *srq)
{
	xqp_device *dev = srq->dev;
	xqp_pd *pd = srq->pd;
	xqp_cq *cq = srq->cq;
	xqp_xrcd *xrcd = srq->xrcd;

	int ret = unmake_tracked(srq, [dev](void *drv) {
		return dev->ops->destroy_srq(dev->drv, drv);
	});
	if (!ret)
		srq_uses(pd, cq, xrcd, false);
	return ret;
}
