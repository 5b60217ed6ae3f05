// SPDX-License-Identifier: GPL-2.0
/*
 * UD multicast: attaching a QP to a group and detaching it, as
 * ib_attach_mcast() and ib_detach_mcast() check them. The groups and the
 * delivery are the driver's (drivers/soft/mcast.c); the core counts a QP's
 * attachments, and a QP with any cannot be destroyed (ib_destroy_qp's
 * usecnt). Unlike ib_core, an attach the device finds done already is not
 * counted again, so a kernel caller that attaches twice and detaches once
 * can destroy its QP (Linux's usecnt stays up for good).
 */
#include "objects.h"

using namespace xqp;

/**
 * xqp_gid_is_multicast - whether @gid is a multicast address: IPv6's
 * ff00::/8, or an IPv4-mapped 224.0.0.0/4 (rdma_is_multicast_addr()).
 * @gid: 16 bytes, network order.
 */
extern "C" int xqp_gid_is_multicast(const xqp_u8 gid[16])
{
	static constexpr u8 mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	if (gid[0] == 0xff)
		return 1;
	return !__builtin_memcmp(gid, mapped, sizeof(mapped)) && (gid[12] & 0xf0) == 0xe0;
}

static bool port_is_ib(xqp_device *dev, u32 port)
{
	xqp_port_attr pa;

	return !xqp_query_port(dev, port, &pa) && pa.link_layer == XQP_LINK_LAYER_INFINIBAND;
}

/*
 * is_valid_mcast_lid(): a RoCE port ignores the LID (RoCE annex A17.5.6);
 * on InfiniBand it is in the multicast range 0xc000..0xfffe. The QP's port
 * once it has one (INIT or later), else every port of the device.
 */
static bool mcast_lid_ok(RealQp *qp, u16 lid)
{
	xqp_device *dev = qp->dev;
	xqp_qp_attr attr{};

	if (!dev->ops->query_qp(dev->drv, qp->drv, &attr, XQP_QP_STATE | XQP_QP_PORT) &&
	    attr.qp_state >= XQP_QPS_INIT && attr.port_num >= 1 &&
	    attr.port_num <= dev->phys_port_cnt) {
		if (!port_is_ib(dev, attr.port_num))
			return true;
	} else {
		for (u32 port = 1; port <= dev->phys_port_cnt; port++)
			if (!port_is_ib(dev, port))
				return true;
	}
	return lid >= 0xc000 && lid != 0xffff;
}

/* The checks both verbs make; the real QP, or an error pointer. */
static RealQp *mcast_qp(xqp_qp *qp, const xqp_u8 gid[16], u16 lid,
			decltype(&xqp_device_ops::attach_mcast) op)
{
	if (is_share(qp))
		return err_ptr<RealQp>(-XQP_EINVAL);	/* XRC_TGT: not UD */
	RealQp *real = RealQp::from(qp);
	xqp_device *dev = real->dev;

	if (!dev->alive() || !real->drv)
		return err_ptr<RealQp>(-XQP_EIO);
	if (!(dev->ops->*op) || !dev->ops->query_qp)
		return err_ptr<RealQp>(-XQP_EOPNOTSUPP);
	if (!xqp_gid_is_multicast(gid) || real->type != XQP_QPT_UD || !mcast_lid_ok(real, lid))
		return err_ptr<RealQp>(-XQP_EINVAL);
	return real;
}

/**
 * xqp_attach_mcast - attach a UD QP to a multicast group (ib_attach_mcast).
 * @qp: the QP.
 * @gid: the group's GID.
 * @lid: its LID (IB ports only).
 *
 * Context: may sleep.
 * Return: 0; -EINVAL, -ENOMEM, -EOPNOTSUPP, -EIO (verbs.h).
 */
extern "C" int xqp_attach_mcast(struct xqp_qp *qp, const xqp_u8 gid[16], xqp_u16 lid)
{
	RealQp *real = mcast_qp(qp, gid, lid, &xqp_device_ops::attach_mcast);

	if (xqp_is_err(real))
		return (int)xqp_ptr_err(real);
	int ret = real->dev->ops->attach_mcast(real->dev->drv, real->drv, gid, lid);
	if (ret > 0)
		return 0;	/* attached already: still one attachment */
	if (!ret)
		real->mcast.inc();
	return ret;
}

/**
 * xqp_detach_mcast - detach a UD QP from a multicast group (ib_detach_mcast).
 * @qp: the QP.
 * @gid: the group's GID.
 * @lid: its LID (IB ports only).
 *
 * Context: may sleep.
 * Return: 0; -EINVAL (also: not attached), -EOPNOTSUPP, -EIO.
 */
extern "C" int xqp_detach_mcast(struct xqp_qp *qp, const xqp_u8 gid[16], xqp_u16 lid)
{
	RealQp *real = mcast_qp(qp, gid, lid, &xqp_device_ops::detach_mcast);

	if (xqp_is_err(real))
		return (int)xqp_ptr_err(real);
	int ret = real->dev->ops->detach_mcast(real->dev->drv, real->drv, gid, lid);
	if (!ret)
		real->mcast.dec();
	return ret;
}
