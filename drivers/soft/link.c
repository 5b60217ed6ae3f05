// SPDX-License-Identifier: GPL-2.0
/*
 * Linked soft devices: a soft device bound to an Ethernet link (a netdev,
 * opaque here) by `rdma link add NAME type xqp netdev DEV`, which
 * drivers/ibdev owns. Such a device is a RoCE device, as rxe is one: link
 * layer Ethernet, no LID (it is reached by GID alone), its port state and
 * active MTU those of the link, its GID table the one ib_core's RoCE GID
 * management builds from the link's addresses (ibdev mirrors every entry
 * here through xqp_modify_gid(), so the fabric can route by GID). Builds on
 * both platforms: the netdev side lives in drivers/ibdev.
 */
#include "soft_priv.h"

/**
 * xqp_soft_create_linked - create a soft device bound to a link.
 * @name: the device name (the link's name in `rdma link`).
 * @netdev: the link (struct net_device *), held by the caller for the
 *	    device's whole life; the driver only hands it back (get_netdev).
 * @up: the link is running with carrier (the port ACTIVE, else DOWN).
 * @mtu: the port's active MTU (enum xqp_mtu) for the link's MTU.
 *
 * Context: may sleep.
 * Return: the soft device, registered (every client has seen it), or as
 * xqp_soft_create().
 */
struct xqp_soft *xqp_soft_create_linked(const char *name, struct net_device *netdev,
					int up, enum xqp_mtu mtu)
{
	struct soft_link *link;
	struct xqp_soft *soft;

	if (!netdev || mtu < XQP_MTU_256 || mtu > XQP_MTU_4096)
		return xqp_err_ptr(-XQP_EINVAL);
	link = xqp_zalloc(sizeof(*link), XQP_GFP_KERNEL);
	if (!link)
		return xqp_err_ptr(-XQP_ENOMEM);
	link->netdev = netdev;
	link->up = !!up;
	link->active_mtu = mtu;
	soft = soft_create(name, NULL, link);
	if (xqp_is_err(soft))
		xqp_free(link);
	return soft;
}

/* Port state and MTU of a linked device, under soft->lock. */
void soft_link_port(const struct soft_link *link, struct xqp_port_attr *attr)
{
	attr->state = link->up ? XQP_PORT_ACTIVE : XQP_PORT_DOWN;
	attr->phys_state = link->up ? XQP_PORT_PHYS_STATE_LINK_UP :
				      XQP_PORT_PHYS_STATE_DISABLED;
	attr->active_mtu = link->active_mtu;
	attr->gid_tbl_len = SOFT_ROCE_GID_TBL_LEN;
	attr->lid = 0;
	attr->sm_lid = 0;
	attr->link_layer = XQP_LINK_LAYER_ETHERNET;
}

/**
 * xqp_soft_link_update - the link's state or MTU changed.
 * @soft: a linked soft device.
 * @up: running with carrier.
 * @mtu: the active MTU for the link's MTU (enum xqp_mtu).
 *
 * Raises XQP_EVENT_PORT_ACTIVE or XQP_EVENT_PORT_ERR to the core's clients
 * when @up changed, as rxe reports its port following its netdev.
 *
 * Context: may sleep (the clients' event hooks, under the device's clients
 * mutex, not the registry lock: ibdev calls this under the RTNL).
 * Return: 0, or -EINVAL (not linked, an MTU out of range).
 */
int xqp_soft_link_update(struct xqp_soft *soft, int up, enum xqp_mtu mtu)
{
	struct soft_link *link = soft->link;
	unsigned long flags;
	int changed;

	if (!link || mtu < XQP_MTU_256 || mtu > XQP_MTU_4096)
		return -XQP_EINVAL;
	flags = xqp_spin_lock_irqsave(&soft->lock);
	changed = link->up != !!up;
	link->up = !!up;
	link->active_mtu = mtu;
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
	if (changed)
		xqp_device_event(soft->dev, up ? XQP_EVENT_PORT_ACTIVE : XQP_EVENT_PORT_ERR, 1);
	return 0;
}

/**
 * soft_modify_gid - the driver op: mirror one entry of the link's GID table.
 * @drv: a soft device.
 * @port: the port (the core has checked it).
 * @index: the entry (below SOFT_ROCE_GID_TBL_LEN, ib_core's table length).
 * @entry: the GID (network order), its type and netdev, or NULL to clear
 *	   the entry.
 *
 * Only setting an entry is a call the inject knob can fail: ib_core ignores
 * del_gid's result, and clearing an entry cannot fail.
 *
 * Context: any.
 * Return: 0, -EOPNOTSUPP (not linked), or -EINVAL (index past the table).
 */
int soft_modify_gid(void *drv, xqp_u32 port, xqp_u32 index, const struct xqp_gid_entry *entry)
{
	struct xqp_soft *soft = drv;
	struct soft_link *link = soft->link;
	struct soft_gid *e;
	unsigned long flags;
	int err;

	(void)port;
	if (entry && (err = soft_enter(soft, XQP_SOFT_OP_MODIFY_GID)))
		return err;
	if (!link)
		return -XQP_EOPNOTSUPP;	/* its one GID is its own */
	if (index >= SOFT_ROCE_GID_TBL_LEN)
		return -XQP_EINVAL;
	e = &link->gids[index];
	flags = xqp_spin_lock_irqsave(&soft->lock);
	if (entry)
		*e = (struct soft_gid){ .entry = *entry, .valid = 1 };
	else
		*e = (struct soft_gid){ .valid = 0 };
	if (entry && index >= link->ngids)
		link->ngids = index + 1;
	while (link->ngids && !link->gids[link->ngids - 1].valid)
		link->ngids--;
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
	return 0;
}

/* Entry @index of the link's table into @gid (zero when empty); soft->lock. */
void soft_link_gid(const struct soft_link *link, int index, xqp_u8 gid[16])
{
	__builtin_memcpy(gid, link->gids[index].entry.gid, 16);
}

/* Entry @index (below the table's length) of @soft's link: 0, or -ENODATA when empty. */
int soft_link_gid_entry(struct xqp_soft *soft, int index, struct xqp_gid_entry *entry)
{
	const struct soft_gid *e = &soft->link->gids[index];
	unsigned long flags;
	int ret = 0;

	flags = xqp_spin_lock_irqsave(&soft->lock);
	if (e->valid)
		*entry = e->entry;
	else
		ret = -XQP_ENODATA;
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
	return ret;
}

/* Whether @gid is one of the link's valid entries. Any context. */
int soft_link_has_gid(struct xqp_soft *soft, const xqp_u8 gid[16])
{
	const struct soft_link *link = soft->link;
	unsigned long flags;
	xqp_u32 i;
	int found = 0;

	flags = xqp_spin_lock_irqsave(&soft->lock);
	for (i = 0; i < link->ngids && !found; i++)
		found = link->gids[i].valid && soft_gid_equal(link->gids[i].entry.gid, gid);
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
	return found;
}

/* The driver op: the link of a linked device, NULL for others. */
struct net_device *soft_get_netdev(void *drv, xqp_u32 port)
{
	struct xqp_soft *soft = drv;

	(void)port;
	return soft->link ? soft->link->netdev : NULL;
}
