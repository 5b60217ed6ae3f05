// SPDX-License-Identifier: GPL-2.0
/* XRC domains: allocation, usecnt, deallocation. */
#include "object_life.h"

using namespace xqp;

/**
 * xqp_alloc_xrcd - allocate an XRC domain with an empty qp_num table.
 * Return: the XRCD, or ERR_PTR(-EIO / -EOPNOTSUPP / -ENOMEM / driver error).
 */
extern "C" struct xqp_xrcd *xqp_alloc_xrcd(struct xqp_device *dev)
{
	return make_tracked<xqp_xrcd>(dev, &xqp_device_ops::alloc_xrcd,
				      &xqp_device_objects::xrcds, [dev](xqp_xrcd *x) {
					      return dev->ops->alloc_xrcd(dev->drv, &x->t.drv);
				      });
}

/**
 * xqp_dealloc_xrcd - free an XRC domain.
 *
 * First asks the driver again to destroy the QPs of the XRCD it refused to
 * destroy when their creation failed (kept meanwhile, not counted in
 * usecnt).
 *
 * Return: 0; -EBUSY while usecnt != 0 (XRC_TGT QPs, XRC SRQs, inode users);
 * the driver's error (XRCD intact).
 */
extern "C" int xqp_dealloc_xrcd(struct xqp_xrcd *xrcd)
{
	xqp_device *dev = xrcd->t.dev;
	int ret = reap_strays(xrcd);

	if (ret)
		return ret;
	return unmake_tracked(xrcd, [dev](void *drv) {
		return dev->ops->dealloc_xrcd(dev->drv, drv);
	});
}

extern "C" xqp_u32 xqp_xrcd_usecnt(const struct xqp_xrcd *xrcd)
{
	return xrcd->usecnt.load();
}

extern "C" void xqp_xrcd_get_user(struct xqp_xrcd *xrcd)
{
	xrcd->usecnt.inc();
}

extern "C" void xqp_xrcd_put_user(struct xqp_xrcd *xrcd)
{
	XQP_WARN_ON(xrcd->usecnt.dec() == (u32)-1);
}
