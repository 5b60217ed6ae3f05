// SPDX-License-Identifier: GPL-2.0
/*
 * The subnet every soft device of the module joins: an array of devices
 * indexed by LID - 1, published with RCU. Joining and leaving take the
 * registry lock (they are part of registering a device, never on a verb
 * path); a lookup takes only the RCU read lock and then the destination
 * device's own number table lock, to reference the QP it reaches.
 *
 * Addresses: a device's LID is its slot + 1; its port GID 0 is the
 * link-local prefix fe80::/64 followed by the node GUID (the port GUID).
 * A linked (RoCE) device has no LID and is reached by any GID of its
 * table (link.c), as a RoCE peer is.
 */
#include "soft_priv.h"

static struct xqp_soft *soft_nodes[SOFT_MAX_NODES];	/* RCU; registry lock */

/**
 * soft_fabric_join - give @soft the lowest free LID and make it reachable.
 * @soft: a device not yet on the subnet.
 *
 * Context: may sleep.
 * Return: 0, or -ENOSPC when SOFT_MAX_NODES devices are on the subnet.
 */
int soft_fabric_join(struct xqp_soft *soft)
{
	int i, err = -XQP_ENOSPC;

	xqp_registry_lock();
	for (i = 0; i < SOFT_MAX_NODES; i++) {
		if (!soft_nodes[i]) {
			soft->lid = (xqp_u16)(i + 1);
			__atomic_store_n(&soft_nodes[i], soft, __ATOMIC_RELEASE);
			err = 0;
			break;
		}
	}
	xqp_registry_unlock();
	return err;
}

/**
 * soft_fabric_leave - make @soft unreachable; no lookup finds it on return.
 * @soft: the device (a device not on the subnet is ignored).
 *
 * Context: may sleep (waits for an RCU grace period).
 */
void soft_fabric_leave(struct xqp_soft *soft)
{
	if (!soft->lid)
		return;
	xqp_registry_lock();
	__atomic_store_n(&soft_nodes[soft->lid - 1], NULL, __ATOMIC_RELEASE);
	xqp_registry_unlock();
	xqp_synchronize_rcu();
	soft->lid = 0;
}

/* GID 0 of @soft's port: fe80::/64 + the port GUID, network byte order. */
void soft_fabric_gid(const struct xqp_soft *soft, xqp_u8 gid[16])
{
	int i;

	for (i = 0; i < 16; i++)
		gid[i] = 0;
	gid[0] = 0xfe;
	gid[1] = 0x80;
	for (i = 0; i < 8; i++)
		gid[8 + i] = (xqp_u8)(soft->node_guid >> (56 - 8 * i));
}

/**
 * soft_query_gid - the GID table of the port: one entry, soft_fabric_gid(),
 * or a linked device's table (link.c).
 * @drv: the device.
 * @port: the port (the core has checked it).
 * @index: the entry.
 * @gid: filled.
 *
 * Return: 0, or -EINVAL past the table.
 */
int soft_query_gid(void *drv, xqp_u32 port, int index, xqp_u8 gid[16])
{
	struct xqp_gid_entry e;
	int err = soft_query_gid_entry(drv, port, index, &e);

	if (err == -XQP_ENODATA) {	/* an empty entry reads as the zero GID */
		__builtin_memset(gid, 0, 16);
		return 0;
	}
	if (!err)
		__builtin_memcpy(gid, e.gid, 16);
	return err;
}

/**
 * soft_query_gid_entry - soft_query_gid()'s entry with its type and netdev:
 * an unlinked device's one GID is of type IB, on no netdev; a linked
 * device's entries are as ib_core set them (link.c).
 * @drv: the device.
 * @port: the port (the core has checked it).
 * @index: the entry.
 * @entry: filled.
 *
 * Return: 0, -ENODATA for an empty entry, or -EINVAL past the table.
 */
int soft_query_gid_entry(void *drv, xqp_u32 port, int index, struct xqp_gid_entry *entry)
{
	struct xqp_soft *soft = drv;
	int err;

	(void)port;
	err = soft_enter(drv, XQP_SOFT_OP_QUERY_GID);
	if (err)
		return err;
	if (index < 0 || index >= (soft->link ? SOFT_ROCE_GID_TBL_LEN : SOFT_GID_TBL_LEN))
		return -XQP_EINVAL;
	if (soft->link)
		return soft_link_gid_entry(soft, index, entry);
	*entry = (struct xqp_gid_entry){ .gid_type = XQP_GID_TYPE_IB };
	soft_fabric_gid(soft, entry->gid);
	return 0;
}

/**
 * soft_query_pkey - the P_Key table of the port: the default P_Key 0xffff
 * at index 0, the other max_pkeys - 1 entries empty (0).
 * @drv: the device.
 * @port: the port (the core has checked it).
 * @index: the entry.
 * @pkey: filled.
 *
 * Return: 0, or -EINVAL past the table.
 */
int soft_query_pkey(void *drv, xqp_u32 port, xqp_u16 index, xqp_u16 *pkey)
{
	struct xqp_soft *soft = drv;
	int err;

	(void)port;
	err = soft_enter(soft, XQP_SOFT_OP_QUERY_PKEY);
	if (err)
		return err;
	if (index >= soft->lim.max_pkeys)
		return -XQP_EINVAL;
	*pkey = index == 0 ? 0xffff : 0;
	return 0;
}

int soft_gid_equal(const xqp_u8 *a, const xqp_u8 *b)
{
	int i;

	for (i = 0; i < 16; i++)
		if (a[i] != b[i])
			return 0;
	return 1;
}

/* The device @av names. Caller holds the RCU read lock. */
static struct xqp_soft *soft_fabric_route(const struct xqp_ah_attr *av)
{
	struct xqp_soft *soft;
	xqp_u8 gid[16];
	int i;

	if (!av->is_global) {
		if (av->dlid < 1 || av->dlid > SOFT_MAX_NODES)
			return NULL;
		soft = __atomic_load_n(&soft_nodes[av->dlid - 1], __ATOMIC_ACQUIRE);
		/* a linked device has no LID: reached by GID alone */
		return soft && !soft->link ? soft : NULL;
	}
	for (i = 0; i < SOFT_MAX_NODES; i++) {
		soft = __atomic_load_n(&soft_nodes[i], __ATOMIC_ACQUIRE);
		if (!soft)
			continue;
		if (soft->link) {
			if (soft_link_has_gid(soft, av->dgid))
				return soft;
			continue;
		}
		soft_fabric_gid(soft, gid);
		if (soft_gid_equal(gid, av->dgid))
			return soft;
	}
	return NULL;
}

/**
 * soft_fabric_by_netdev - the linked device on a netdev.
 * @netdev: the netdev a packet came in on.
 *
 * Context: RCU read lock held (the device stays while it is).
 * Return: the device, or NULL.
 */
struct xqp_soft *soft_fabric_by_netdev(const struct net_device *netdev)
{
	struct xqp_soft *soft;
	int i;

	for (i = 0; i < SOFT_MAX_NODES; i++) {
		soft = __atomic_load_n(&soft_nodes[i], __ATOMIC_ACQUIRE);
		if (soft && soft->link && soft->link->netdev == netdev)
			return soft;
	}
	return NULL;
}

/**
 * soft_fabric_gid_is_local - whether a device of this kernel has @gid and
 * is reached without the wire: an unlinked one, or one linked in @net.
 * @gid: the GID.
 * @net: the network namespace of the asking device's link.
 *
 * Context: any.
 */
int soft_fabric_gid_is_local(const xqp_u8 gid[16], const void *net)
{
	struct xqp_ah_attr av = { .is_global = 1 };
	struct xqp_soft *soft;
	int local;

	__builtin_memcpy(av.dgid, gid, 16);
	xqp_rcu_read_lock();
	soft = soft_fabric_route(&av);
	local = soft && (!soft->link || soft->link->net == net);
	xqp_rcu_read_unlock();
	return local;
}

/* Source GID @index of @soft's port (zero past a linked device's entries). */
void soft_fabric_sgid(struct xqp_soft *soft, int index, xqp_u8 gid[16])
{
	unsigned long flags;

	if (!soft->link) {
		soft_fabric_gid(soft, gid);
		return;
	}
	if (index < 0 || index >= SOFT_ROCE_GID_TBL_LEN)
		index = 0;
	flags = xqp_spin_lock_irqsave(&soft->lock);
	soft_link_gid(soft->link, index, gid);
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
}

/**
 * soft_fabric_reaches - whether @av names @soft.
 * @av: an address (a connected QP's path).
 * @soft: the device.
 *
 * Context: any.
 */
int soft_fabric_reaches(const struct xqp_ah_attr *av, struct xqp_soft *soft)
{
	int reaches;

	xqp_rcu_read_lock();
	reaches = soft_fabric_route(av) == soft;
	xqp_rcu_read_unlock();
	return reaches;
}

/**
 * soft_fabric_find_qp - the QP an address vector and QP number reach.
 * @av: the address: DLID, or DGID when is_global.
 * @qp_num: the destination QP number.
 *
 * The QP comes referenced (soft_refs_put(&qp->refs) when done): its
 * destroy, and so its device's removal, wait for the reference.
 *
 * Context: any.
 * Return: the QP, or NULL when no device or no QP answers.
 */
struct soft_qp *soft_fabric_find_qp(const struct xqp_ah_attr *av, xqp_u32 qp_num)
{
	struct xqp_soft *soft;
	struct soft_qp *qp = NULL;

	xqp_rcu_read_lock();
	soft = soft_fabric_route(av);
	if (soft)
		qp = soft_qp_get(soft, qp_num);
	xqp_rcu_read_unlock();
	return qp;
}

/**
 * soft_fabric_node - the device in slot @i of the subnet.
 * @i: 0 .. SOFT_MAX_NODES - 1.
 *
 * Context: RCU read lock held (the device stays while it is).
 * Return: the device, or NULL.
 */
struct xqp_soft *soft_fabric_node(int i)
{
	return __atomic_load_n(&soft_nodes[i], __ATOMIC_ACQUIRE);
}

/**
 * soft_fabric_mcast_peer - whether a multicast sent by @from reaches @to
 * inside this kernel: unlinked devices reach each other (one IB subnet), a
 * linked one the linked devices of its namespace (as its unicast does);
 * the rest is the wire's.
 * @from: the sending device.
 * @to: a device of the subnet, @from included.
 */
int soft_fabric_mcast_peer(const struct xqp_soft *from, const struct xqp_soft *to)
{
	if (!from->link)
		return !to->link;
	return to->link && to->link->net == from->link->net;
}
