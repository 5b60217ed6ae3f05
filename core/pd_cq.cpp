// SPDX-License-Identifier: GPL-2.0
/* Protection domains and completion queues (control plane only). */
#include "object_life.h"

using namespace xqp;

/**
 * xqp_alloc_pd - allocate a protection domain.
 * Return: the PD, or ERR_PTR(-EIO / -EOPNOTSUPP / -ENOMEM / driver error).
 */
extern "C" struct xqp_pd *xqp_alloc_pd(struct xqp_device *dev)
{
	return make_tracked<xqp_pd>(dev, &xqp_device_ops::alloc_pd,
				    &xqp_device_objects::pds, [dev](xqp_pd *pd) {
					    return dev->ops->alloc_pd(dev->drv, &pd->t.drv);
				    });
}

/**
 * xqp_dealloc_pd - free a protection domain.
 * Return: 0; -EBUSY while QPs or SRQs use it; the driver's error (PD intact).
 */
extern "C" int xqp_dealloc_pd(struct xqp_pd *pd)
{
	xqp_device *dev = pd->t.dev;

	return unmake_tracked(pd, [dev](void *drv) {
		return dev->ops->dealloc_pd(dev->drv, drv);
	});
}

/**
 * xqp_create_cq - create a completion queue with at least @cqe entries.
 * @dev: the device.
 * @cqe: the entries asked for; the driver may grant more (xqp_cq_cqe()).
 * @event_handler: called for the CQ's async events, from a work item of the CQ.
 * @cq_context: passed to @event_handler.
 *
 * Return: the CQ, or ERR_PTR(-EIO / -EOPNOTSUPP / -ENOMEM / driver error).
 */
extern "C" struct xqp_cq *xqp_create_cq(struct xqp_device *dev, int cqe,
					xqp_event_handler_t event_handler,
					void *cq_context)
{
	xqp_cq_init_attr attr = {};

	attr.cqe = cqe;
	attr.event_handler = event_handler;
	attr.cq_context = cq_context;
	return xqp_create_cq_attr(dev, &attr);
}

static xqp_cq *cq_of_comp_work(xqp_work *work)
{
	return reinterpret_cast<xqp_cq *>(reinterpret_cast<char *>(work) -
					  __builtin_offsetof(xqp_cq, comp_work));
}

/* The CQ's work item: the comp_handler calls owed, one per arming that fired. */
static void cq_comp_work(xqp_work *work)
{
	xqp_cq *cq = cq_of_comp_work(work);

	for (u32 n = cq->comp_fires.exchange(0); n; n--)
		cq->comp_handler(cq, cq->context);
}

/**
 * xqp_create_cq_attr - create a CQ with a completion handler (ib_create_cq).
 * @dev: the device.
 * @attr: its size (the driver may grant more: xqp_cq_cqe()), the handler
 *	  called after xqp_req_notify_cq() armed the CQ, the async event
 *	  handler, the context both get, flags (XQP_CQ_COMP_INLINE) and
 *	  event_flags (XQP_EVENT_INLINE).
 *
 * The comp_handler runs from a work item of the CQ (process context, never
 * the context that made the completion: a handler may post, and destroy
 * its QPs, without recursing into or waiting on its own caller), once per
 * arming that fired; with XQP_CQ_COMP_INLINE, where the completion was
 * made. It must not destroy its own CQ. None runs once xqp_destroy_cq()
 * has returned.
 *
 * Return: the CQ, or ERR_PTR(-EINVAL for unknown flags or event_flags; as
 * xqp_create_cq()).
 */
extern "C" struct xqp_cq *xqp_create_cq_attr(struct xqp_device *dev,
					     const struct xqp_cq_init_attr *attr)
{
	int cqe = attr->cqe;

	if (attr->flags & ~XQP_CQ_COMP_INLINE)
		return err_ptr<xqp_cq>(-XQP_EINVAL);
	return make_tracked<xqp_cq>(dev, &xqp_device_ops::create_cq,
				    &xqp_device_objects::cqs, [=](xqp_cq *cq) {
					    cq->comp_handler = attr->comp_handler;
					    cq->poll_wake = attr->poll_wake;
					    cq->handler = attr->event_handler;
					    cq->context = attr->cq_context;
					    cq->comp_inline = attr->flags & XQP_CQ_COMP_INLINE;
					    xqp_work_init(&cq->comp_work, cq_comp_work);
					    int ret = make_event_box(cq, attr->event_flags);
					    if (ret)
						    return ret;
					    cq->cqe = cqe;
					    return dev->ops->create_cq(dev->drv, cqe, &cq->t.drv,
								       &cq->cqe, cq);
				    });
}

/**
 * xqp_cq_comp - an armed CQ got its completion (driver side).
 * @core_cq: the cookie create_cq was given.
 *
 * Has the comp_handler of xqp_create_cq_attr(), if any, called as Linux
 * drivers call ib_cq->comp_handler: from the CQ's work item, or here with
 * XQP_CQ_COMP_INLINE. The driver must not call it for a CQ whose
 * destroy_cq has returned.
 *
 * Context: any.
 */
extern "C" void xqp_cq_comp(struct xqp_cq *core_cq)
{
	if (!core_cq->comp_handler)
		return;
	if (core_cq->comp_inline) {
		core_cq->comp_handler(core_cq, core_cq->context);
		return;
	}
	core_cq->comp_fires.inc();
	xqp_work_queue(&core_cq->comp_work, 0);
}

/**
 * xqp_cq_poll_wake - a completion was queued on a CQ armed with
 * xqp_cq_arm_poll_wake() (driver side).
 * @core_cq: the cookie create_cq was given.
 *
 * Calls the CQ's poll_wake handler here, whatever the CQ's flags: it only
 * wakes a waiter.
 *
 * Context: any.
 */
extern "C" void xqp_cq_poll_wake(struct xqp_cq *core_cq)
{
	if (core_cq->poll_wake)
		core_cq->poll_wake(core_cq, core_cq->context);
}

/**
 * xqp_cq_cqe - the number of entries the driver granted @cq (ib_cq->cqe).
 * @cq: the CQ.
 *
 * At least what xqp_create_cq() asked for; drivers round up (the soft
 * device, like rxe, to 2^k - 1). CREATE_CQ reports it to userspace.
 *
 * Context: any.
 * Return: the granted size.
 */
extern "C" int xqp_cq_cqe(const struct xqp_cq *cq)
{
	return cq->cqe;
}

/**
 * xqp_cq_event - report an async event on a CQ (driver side).
 * @core_cq: the cookie create_cq was given.
 * @type: the event (XQP_EVENT_CQ_ERR).
 *
 * Has the event handler the CQ was created with, if any, called once, with
 * element.cq set to @core_cq, as Linux drivers call ib_cq->event_handler:
 * from the CQ's work item for events, or here with XQP_EVENT_INLINE. The
 * driver must not call it for a CQ whose destroy_cq has returned.
 *
 * Context: any.
 */
extern "C" void xqp_cq_event(struct xqp_cq *core_cq, enum xqp_event_type type)
{
	raise_event(core_cq, type);
}

/**
 * xqp_destroy_cq - destroy a completion queue.
 * Return: 0; -EBUSY while QPs or SRQs use it; the driver's error (CQ intact).
 */
extern "C" int xqp_destroy_cq(struct xqp_cq *cq)
{
	xqp_device *dev = cq->t.dev;

	return unmake_tracked(cq, [dev](void *drv) {
		return dev->ops->destroy_cq(dev->drv, drv);
	});
}
