// SPDX-License-Identifier: GPL-2.0
/*
 * Memory windows (ib_alloc_mw()/ib_dealloc_mw() as uverbs calls them). A
 * window holds its PD; what it is bound to, and its current rkey, are the
 * driver's: binds and invalidations are work requests, executed in the
 * send queue's order (drivers/soft/mw.c).
 */
#include "object_life.h"

using namespace xqp;

/**
 * xqp_alloc_mw - a memory window of @pd.
 * @pd: the protection domain.
 * @type: XQP_MW_TYPE_1 (bound by a bind WR with no QP of its own, may be
 *	  rebound) or XQP_MW_TYPE_2 (type 2B: bound to the QP that binds it,
 *	  freed by invalidation).
 *
 * Context: may sleep.
 * Return: the window, or ERR_PTR(-EINVAL for another type, -EIO,
 * -EOPNOTSUPP for a device without windows, -ENOMEM: no memory, or the
 * device's max_mw windows exist).
 */
extern "C" struct xqp_mw *xqp_alloc_mw(struct xqp_pd *pd, enum xqp_mw_type type)
{
	xqp_device *dev = pd->t.dev;

	return make_tracked<xqp_mw>(dev, &xqp_device_ops::alloc_mw, &xqp_device_objects::mws,
				    [&](xqp_mw *mw) {
					    if (type != XQP_MW_TYPE_1 && type != XQP_MW_TYPE_2)
						    return -XQP_EINVAL;
					    int ret = dev->ops->alloc_mw(dev->drv, pd->t.drv, type,
									 &mw->t.drv, &mw->rkey);
					    if (ret)
						    return ret;
					    mw->pd = pd;
					    mw->type = type;
					    pd->usecnt.inc();
					    return 0;
				    });
}

/**
 * xqp_dealloc_mw - free a window; a bound one is unbound first.
 * @mw: the window.
 *
 * Bind WRs still queued for it fail when they execute (MW_BIND_ERR).
 *
 * Context: may sleep.
 * Return: 0, or the driver's error (the window is then intact).
 */
extern "C" int xqp_dealloc_mw(struct xqp_mw *mw)
{
	xqp_device *dev = mw->t.dev;

	if (mw->t.drv) {
		int ret = dev->ops->dealloc_mw(dev->drv, mw->t.drv);
		if (ret)
			return ret;
	}
	dev->untrack(&mw->t.dev_node);
	mw->pd->usecnt.dec();
	delete mw;
	dev->put();
	return 0;
}

extern "C" xqp_u32 xqp_mw_rkey(const struct xqp_mw *mw)
{
	return mw->rkey;
}

extern "C" enum xqp_mw_type xqp_mw_get_type(const struct xqp_mw *mw)
{
	return mw->type;
}

extern "C" void *xqp_mw_drv(const struct xqp_mw *mw)
{
	return mw->t.drv;
}
