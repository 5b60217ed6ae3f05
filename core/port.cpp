// SPDX-License-Identifier: GPL-2.0
/* Ports: attributes, GID and P_Key tables (ib_query_port(), ib_query_gid(),
 * ib_query_pkey()). */
#include "objects.h"

using namespace xqp;

/* 0 if @port is one of the device's ports and the device is still there. */
static int port_usable(xqp_device *dev, xqp_u32 port)
{
	if (!dev->alive())
		return -XQP_EIO;
	if (port < 1 || port > dev->phys_port_cnt)
		return -XQP_EINVAL;
	return 0;
}

/**
 * xqp_query_port - a port's attributes (ib_query_port).
 * @dev: the device.
 * @port: the port number, 1..phys_port_cnt (rdma_is_port_valid()); the
 *	  count is the one query_device reported at registration.
 * @attr: filled by the driver (zeroed first).
 *
 * Context: may sleep.
 * Return: 0, -EIO for a removed device, -EINVAL for a port the device does
 * not have, -EOPNOTSUPP if the driver cannot tell, or the driver's error.
 */
extern "C" int xqp_query_port(struct xqp_device *dev, xqp_u32 port,
			      struct xqp_port_attr *attr)
{
	int ret = port_usable(dev, port);

	if (ret)
		return ret;
	*attr = xqp_port_attr{};
	if (!dev->ops->query_port)
		return -XQP_EOPNOTSUPP;
	return dev->ops->query_port(dev->drv, port, attr);
}

/**
 * xqp_query_gid - one entry of a port's GID table.
 * @dev: the device.
 * @port: the port number, 1..phys_port_cnt.
 * @index: the entry, 0..gid_tbl_len-1 (xqp_query_port()).
 * @gid: filled with the 16 bytes of the GID, network order.
 *
 * Context: may sleep.
 * Return: 0, -EIO for a removed device, -EINVAL for a port or index the
 * device does not have, -EOPNOTSUPP if the driver cannot tell.
 */
extern "C" int xqp_query_gid(struct xqp_device *dev, xqp_u32 port, int index,
			     xqp_u8 gid[16])
{
	int ret = port_usable(dev, port);

	if (ret)
		return ret;
	if (index < 0)
		return -XQP_EINVAL;
	if (!dev->ops->query_gid)
		return -XQP_EOPNOTSUPP;
	return dev->ops->query_gid(dev->drv, port, index, gid);
}

/**
 * xqp_query_pkey - one entry of a port's P_Key table.
 * @dev: the device.
 * @port: the port number, 1..phys_port_cnt.
 * @index: the entry, 0..pkey_tbl_len-1 (xqp_query_port()).
 * @pkey: filled with the P_Key (0 for an empty entry).
 *
 * Context: may sleep.
 * Return: as xqp_query_gid().
 */
extern "C" int xqp_query_pkey(struct xqp_device *dev, xqp_u32 port, xqp_u16 index,
			      xqp_u16 *pkey)
{
	int ret = port_usable(dev, port);

	if (ret)
		return ret;
	if (!dev->ops->query_pkey)
		return -XQP_EOPNOTSUPP;
	return dev->ops->query_pkey(dev->drv, port, index, pkey);
}

/**
 * xqp_device_netdev - the Ethernet link a port is bound to (ib_device_get_netdev()).
 * @dev: the device.
 * @port: the port number, 1..phys_port_cnt.
 *
 * The core never looks behind the pointer: it is the driver's (a struct
 * net_device in the kernel), valid while the device is registered; no
 * reference is taken.
 *
 * Context: any.
 * Return: the link, or NULL for a device on no link (or a bad port).
 */
extern "C" struct net_device *xqp_device_netdev(struct xqp_device *dev, xqp_u32 port)
{
	if (port < 1 || port > dev->phys_port_cnt || !dev->ops->get_netdev)
		return nullptr;
	return dev->ops->get_netdev(dev->drv, port);
}

/**
 * xqp_port_stats - a port's counters, as its driver keeps them.
 * @dev: the device.
 * @port: the port number, 1..phys_port_cnt.
 * @names: the first @max counters' names (static strings), or NULL.
 * @values: their values, or NULL.
 * @max: room in @names and @values.
 *
 * Context: any.
 * Return: how many counters the port has (0 for none), -EIO for a removed
 * device, -EINVAL for a bad port.
 */
extern "C" int xqp_port_stats(struct xqp_device *dev, xqp_u32 port, const char **names,
			      xqp_u64 *values, int max)
{
	int ret = port_usable(dev, port);

	if (ret)
		return ret;
	if (!dev->ops->port_stats)
		return 0;
	return dev->ops->port_stats(dev->drv, port, names, values, max);
}

/**
 * xqp_modify_gid - set or clear one entry of a port's GID table.
 * @dev: the device.
 * @port: the port number, 1..phys_port_cnt.
 * @index: the entry.
 * @entry: the GID (network order), its type and netdev, or NULL to clear
 *	   the entry.
 *
 * For a table kept outside the device (ib_core's RoCE GID management);
 * the clients then hear XQP_EVENT_GID_CHANGE (xqp_device_event()).
 *
 * Context: may sleep; under the RTNL or ib_core's GID table lock is fine.
 * Return: 0, -EIO for a removed device, -EINVAL for a bad port, index or
 * type, -EOPNOTSUPP if the device's table cannot be set.
 */
extern "C" int xqp_modify_gid(struct xqp_device *dev, xqp_u32 port, xqp_u32 index,
			      const struct xqp_gid_entry *entry)
{
	int ret = port_usable(dev, port);

	if (ret)
		return ret;
	if (!dev->ops->modify_gid)
		return -XQP_EOPNOTSUPP;
	if (entry && entry->gid_type > XQP_GID_TYPE_ROCE_V2)
		return -XQP_EINVAL;
	ret = dev->ops->modify_gid(dev->drv, port, index, entry);
	if (!ret)
		xqp_device_event(dev, XQP_EVENT_GID_CHANGE, port);
	return ret;
}

/**
 * xqp_query_gid_entry - one entry of a port's GID table, with its type
 * and netdev (ib_uverbs' QUERY_GID_ENTRY; libibverbs' ibv_query_gid_ex()).
 * @dev: the device.
 * @port: the port number, 1..phys_port_cnt.
 * @index: the entry, 0..gid_tbl_len-1 (xqp_query_port()).
 * @entry: filled in.
 *
 * Context: may sleep.
 * Return: 0, -ENODATA for an empty entry, or as xqp_query_gid().
 */
extern "C" int xqp_query_gid_entry(struct xqp_device *dev, xqp_u32 port, int index,
				   struct xqp_gid_entry *entry)
{
	static constexpr xqp_u8 zero[16] = {};
	int ret = port_usable(dev, port);

	if (ret)
		return ret;
	if (index < 0)
		return -XQP_EINVAL;
	*entry = {};
	if (dev->ops->query_gid_entry)
		return dev->ops->query_gid_entry(dev->drv, port, index, entry);
	if (!dev->ops->query_gid)
		return -XQP_EOPNOTSUPP;
	ret = dev->ops->query_gid(dev->drv, port, index, entry->gid);
	if (!ret && !__builtin_memcmp(entry->gid, zero, sizeof(zero)))
		ret = -XQP_ENODATA;
	return ret;
}
