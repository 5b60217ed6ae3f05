// SPDX-License-Identifier: GPL-2.0
/* Modify and query: through any share they act on the one real QP. */
#include "objects.h"

using namespace xqp;

/* Address vectors name a port the device has (rdma_check_ah_attr()). */
static bool ports_ok(const xqp_device *dev, const xqp_qp_attr *attr, int mask)
{
	auto ok = [dev](u8 port) { return port >= 1 && port <= dev->phys_port_cnt; };

	return (!(mask & XQP_QP_AV) || ok(attr->ah_attr.port_num)) &&
	       (!(mask & XQP_QP_ALT_PATH) || ok(attr->alt_ah_attr.port_num));
}

/**
 * xqp_modify_qp - modify the real QP behind @qp (ib_modify_qp).
 * The core checks the address vectors' ports, as ib_core does; the driver
 * validates the transition with xqp_modify_qp_is_ok().
 * Return: 0, -EINVAL (bad transition or attribute), -EIO, -EOPNOTSUPP or the
 * driver's error.
 */
extern "C" int xqp_modify_qp(struct xqp_qp *qp, struct xqp_qp_attr *attr, int attr_mask)
{
	RealQp *real = real_of(qp);

	if (!real->dev->alive() || !real->drv)
		return -XQP_EIO;
	if (!real->dev->ops->modify_qp)
		return -XQP_EOPNOTSUPP;
	if (attr_mask & ~(XQP_QP_ATTR_STANDARD_BITS | XQP_QP_RATE_LIMIT))
		return -XQP_EOPNOTSUPP;
	if (!ports_ok(real->dev, attr, attr_mask))
		return -XQP_EINVAL;
	return real->dev->ops->modify_qp(real->dev->drv, real->drv, attr, attr_mask);
}

/**
 * xqp_query_qp - read the real QP's attributes (ib_query_qp).
 * @qp: a real QP or a share of one.
 * @attr: the driver's attributes of the real QP (zeroed first).
 * @attr_mask: what the caller wants (drivers may report everything).
 * @init_attr: NULL, or the creation view: type, granted caps, signalling
 *	       type and related objects (the real QP's, whichever share asks,
 *	       as ib_query_qp() asks the driver about qp->real_qp); for a
 *	       share its own event handler and context.
 *
 * Return: 0, -EIO, -EOPNOTSUPP or the driver's error.
 */
extern "C" int xqp_query_qp(struct xqp_qp *qp, struct xqp_qp_attr *attr, int attr_mask,
			    struct xqp_qp_init_attr *init_attr)
{
	RealQp *real = real_of(qp);

	if (!real->dev->alive() || !real->drv)
		return -XQP_EIO;
	if (!real->dev->ops->query_qp)
		return -XQP_EOPNOTSUPP;
	*attr = xqp_qp_attr{};
	int ret = real->dev->ops->query_qp(real->dev->drv, real->drv, attr, attr_mask);
	if (ret || !init_attr)
		return ret;
	*init_attr = xqp_qp_init_attr{};
	init_attr->qp_type = real->type;
	init_attr->sq_sig_type = real->sq_sig_type;
	init_attr->cap = attr->cap;
	init_attr->send_cq = real->send_cq;
	init_attr->recv_cq = real->recv_cq;
	init_attr->srq = real->srq;
	init_attr->xrcd = real->xrcd;
	if (is_share(qp)) {
		init_attr->event_handler = Share::from(qp)->handler;
		init_attr->qp_context = Share::from(qp)->context;
	} else {
		init_attr->event_handler = real->handler;
		init_attr->qp_context = real->context;
	}
	return 0;
}
