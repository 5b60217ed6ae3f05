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
 * @pd: the protection domain.
 * @attr: what to create; @attr->attr is rewritten to what the driver granted.
 *	  @attr->srq_type is read as the integer the caller stored: any value.
 *
 * Return: the SRQ, or ERR_PTR(-EOPNOTSUPP for an SRQ type other than basic
 * and XRC (Linux leaves those to the driver; no xqp device has them, and
 * rxe answers the same), -EINVAL for a missing XRCD/CQ or objects of another
 * device, -EIO, -EOPNOTSUPP, -ENOMEM, the driver's error).
 */
extern "C" struct xqp_srq *xqp_create_srq(struct xqp_pd *pd,
					  struct xqp_srq_init_attr *attr)
{
	xqp_device *dev = pd->t.dev;
	int type = enum_int(&attr->srq_type);
	bool xrc = type == XQP_SRQT_XRC;

	if (type != XQP_SRQT_BASIC && !xrc)
		return err_ptr<xqp_srq>(-XQP_EOPNOTSUPP);
	if (xrc && (!attr->xrcd || !attr->cq || attr->xrcd->t.dev != dev ||
		    attr->cq->t.dev != dev))
		return err_ptr<xqp_srq>(-XQP_EINVAL);

	xqp_srq *srq = make_tracked<xqp_srq>(
		dev, &xqp_device_ops::create_srq, &xqp_device_objects::srqs, [&](xqp_srq *s) {
			s->pd = pd;
			s->type = xrc ? XQP_SRQT_XRC : XQP_SRQT_BASIC;
			s->cq = xrc ? attr->cq : nullptr;
			s->xrcd = xrc ? attr->xrcd : nullptr;
			s->handler = attr->event_handler;
			s->context = attr->srq_context;
			int ret = make_event_box(s, attr->event_flags);
			if (ret)
				return ret;
			return dev->ops->create_srq(dev->drv, pd->t.drv,
						    xrc ? s->xrcd->t.drv : nullptr,
						    xrc ? s->cq->t.drv : nullptr, attr,
						    &s->t.drv, &s->srq_num, s);
		});
	if (!xqp_is_err(srq))
		srq_uses(pd, srq->cq, srq->xrcd, true);
	return srq;
}

/**
 * xqp_srq_num - the number the driver gave @srq (ib_srq->ext.xrc.srq_num).
 * @srq: the SRQ.
 *
 * For an XRC SRQ, the number XRC senders address; CREATE_XSRQ reports it
 * as srqn. Drivers may number basic SRQs too (the soft device does), or
 * leave them 0; Linux's uverbs reports it for XRC SRQs only.
 *
 * Context: any.
 * Return: the 24-bit SRQ number.
 */
extern "C" xqp_u32 xqp_srq_num(const struct xqp_srq *srq)
{
	return srq->srq_num;
}

/**
 * xqp_srq_event - report an async event on an SRQ (driver side).
 * @core_srq: the cookie create_srq was given.
 * @type: the event (XQP_EVENT_SRQ_ERR, XQP_EVENT_SRQ_LIMIT_REACHED).
 *
 * Has the handler xqp_create_srq() registered (srq_init_attr's
 * event_handler), if any, called once, with element.srq set to @core_srq,
 * as Linux drivers call ib_srq->event_handler: from the SRQ's work item, or
 * here with XQP_EVENT_INLINE. A QP's LAST_WQE_REACHED is a QP event
 * (xqp_qp_event()). The driver must not call it for an SRQ whose
 * destroy_srq has returned.
 *
 * Context: any.
 */
extern "C" void xqp_srq_event(struct xqp_srq *core_srq, enum xqp_event_type type)
{
	raise_event(core_srq, type);
}

/**
 * xqp_destroy_srq - destroy an SRQ.
 * Return: 0; -EBUSY while QPs use it; the driver's error (SRQ intact).
 */
extern "C" int xqp_destroy_srq(struct xqp_srq *srq)
{
	xqp_device *dev = srq->t.dev;
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
