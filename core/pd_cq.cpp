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
	return make_tracked<xqp_pd>(dev, dev->ops->alloc_pd, &xqp_device_objects::pds,
				    [dev](xqp_pd *pd) {
					    return dev->ops->alloc_pd(dev->drv, &pd->drv);
				    });
}

/**
 * xqp_dealloc_pd - free a protection domain.
 * Return: 0; -EBUSY while QPs or SRQs use it; the driver's error (PD intact).
 */
extern "C" int xqp_dealloc_pd(struct xqp_pd *pd)
{
	xqp_device *dev = pd->dev;

	return unmake_tracked(pd, [dev](void *drv) {
		return dev->ops->dealloc_pd(dev->drv, drv);
	});
}

/**
 * xqp_create_cq - create a completion queue with at least @cqe entries.
 * Return: the CQ, or ERR_PTR(-EIO / -EOPNOTSUPP / -ENOMEM / driver error).
 */
extern "C" struct xqp_cq *xqp_create_cq(struct xqp_device *dev, int cqe,
					xqp_event_handler_t event_handler,
					void *cq_context)
{
	return make_tracked<xqp_cq>(dev, dev->ops->create_cq, &xqp_device_objects::cqs,
				    [=](xqp_cq *cq) {
					    cq->handler = event_handler;
					    cq->context = cq_context;
					    return dev->ops->create_cq(dev->drv, cqe, &cq->drv);
				    });
}

/**
 * xqp_destroy_cq - destroy a completion queue.
 * Return: 0; -EBUSY while QPs or SRQs use it; the driver's error (CQ intact).
 */
extern "C" int xqp_destroy_cq(struct xqp_cq *cq)
{
	xqp_device *dev = cq->dev;

	return unmake_tracked(cq, [dev](void *drv) {
		return dev->ops->destroy_cq(dev->drv, drv);
	});
}
