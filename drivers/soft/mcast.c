// SPDX-License-Identifier: GPL-2.0
/*
 * UD multicast, as rxe_mcast.c and rxe_recv.c have it: a device's groups,
 * each the UD QPs of the device attached to one multicast GID, and the
 * delivery of a message sent to a group.
 *
 * The groups are a table sorted by GID (binary search: a lookup is at most
 * 13 comparisons at rxe's 8192 groups, whatever GIDs users choose; no hash
 * chain a user could make long), allocated with the device's first attach
 * and kept until the device goes. A group is made by its first attach and
 * freed with its last detach; it holds its QPs as plain pointers under
 * soft->lock, and a QP's destroy takes it out of every group
 * (soft_mcast_qp_gone(), after which no attach takes it) before it waits
 * out the references a delivery holds. Attach and detach are serialised by
 * the device's mcast_mutex, which also keeps a linked device's netdev
 * taking frames to each group's MAC for as long as the group exists.
 *
 * Where a message to a group goes (exec.c, wire_recv.c): to every QP of
 * that group on each device of the subnet the sender reaches without the
 * wire (soft_fabric_mcast_peer(): its own included, the sending QP too
 * when attached, as rxe's loopback does), each taking it with its own
 * Q_Key check and receive WQE; a linked device also sends it on the wire to
 * the group's IP address. From the wire, a device takes the group's
 * datagrams that its netdev's IP stack lets through to the RoCE socket:
 * those of groups the netdev joined at the IP level (IGMP or MLD: rdma_cm's
 * join does it), as rxe.
 *
 * Limits (rxe's): max_mcast_grp groups, max_mcast_qp_attach QPs a group,
 * max_total_mcast_qp_attach attachments; past one, attach is -ENOMEM.
 */
#include "soft_priv.h"

struct soft_mgrp {
	xqp_u8 mgid[16];
	xqp_u32 nqp;
	struct soft_qp *qp[XQP_RULES_MAX_MCAST_QP_ATTACH];	/* the first nqp */
};

/*
 * The position of @mgid in the sorted table: *@at is where it is, or
 * where it would go. 1 if there. soft->lock held.
 */
static int soft_mgrp_pos(const struct xqp_soft *soft, const xqp_u8 mgid[16], xqp_u32 *at)
{
	xqp_u32 lo = 0, hi = soft->counts.mcast_grp;

	while (lo < hi) {
		xqp_u32 mid = lo + (hi - lo) / 2;
		int c = __builtin_memcmp(soft->mgrps[mid]->mgid, mgid, 16);

		if (!c) {
			*at = mid;
			return 1;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*at = lo;
	return 0;
}

/* The group @mgid, or NULL. soft->lock held. */
static struct soft_mgrp *soft_mgrp_find(const struct xqp_soft *soft, const xqp_u8 mgid[16])
{
	xqp_u32 at;

	return soft_mgrp_pos(soft, mgid, &at) ? soft->mgrps[at] : NULL;
}

static int soft_mgrp_has(const struct soft_mgrp *g, const struct soft_qp *qp)
{
	xqp_u32 i;

	for (i = 0; i < g->nqp; i++)
		if (g->qp[i] == qp)
			return 1;
	return 0;
}

/* Takes @qp out of group @at (it is there): the group if it is now empty and out of the table. */
static struct soft_mgrp *soft_mgrp_remove(struct xqp_soft *soft, xqp_u32 at, struct soft_qp *qp)
{
	struct soft_mgrp *g = soft->mgrps[at];
	xqp_u32 i;

	for (i = 0; g->qp[i] != qp; i++)
		;
	g->qp[i] = g->qp[--g->nqp];
	qp->mcast_groups--;
	soft->counts.mcast_attach--;
	if (g->nqp)
		return NULL;
	soft->counts.mcast_grp--;
	__builtin_memmove(&soft->mgrps[at], &soft->mgrps[at + 1],
			  (soft->counts.mcast_grp - at) * sizeof(soft->mgrps[0]));
	return g;
}

static int soft_mcast_qp_ok(struct xqp_soft *soft, enum xqp_soft_op op, struct soft_qp *qp,
			    const xqp_u8 gid[16])
{
	int err = soft_enter_obj(soft, op, qp);

	if (err)
		return err;
	return qp->type == XQP_QPT_UD && xqp_gid_is_multicast(gid) ? 0 : -XQP_EINVAL;
}

/*
 * Adds @qp to the group @mgid, made of *@fresh when it has none (then
 * *@fresh is NULL and *@made 1). 1 if it was there already. soft->lock held.
 */
static int soft_mgrp_add(struct xqp_soft *soft, struct soft_qp *qp, const xqp_u8 mgid[16],
			 struct soft_mgrp **fresh, int *made)
{
	const struct xqp_soft_limits *lim = &soft->lim;
	struct soft_mgrp *g;
	xqp_u32 at;

	g = soft_mgrp_pos(soft, mgid, &at) ? soft->mgrps[at] : NULL;
	if (g && soft_mgrp_has(g, qp))
		return 1;	/* attached already: rxe's 0, told apart for the core */
	if (soft->counts.mcast_attach >= lim->max_total_mcast_qp_attach)
		return -XQP_ENOMEM;
	if (!g) {
		if (soft->counts.mcast_grp >= lim->max_mcast_grp || !lim->max_mcast_qp_attach)
			return -XQP_ENOMEM;
		g = *fresh;
		*fresh = NULL;
		__builtin_memcpy(g->mgid, mgid, 16);
		__builtin_memmove(&soft->mgrps[at + 1], &soft->mgrps[at],
				  (soft->counts.mcast_grp - at) * sizeof(soft->mgrps[0]));
		soft->mgrps[at] = g;
		soft->counts.mcast_grp++;
		*made = 1;
	} else if (g->nqp >= lim->max_mcast_qp_attach) {
		return -XQP_ENOMEM;
	}
	g->qp[g->nqp++] = qp;
	qp->mcast_groups++;
	soft->counts.mcast_attach++;
	return 0;
}

/* The group table, made with the first attach. mcast_mutex held. */
static int soft_mgrp_table(struct xqp_soft *soft)
{
	struct soft_mgrp **tab;
	unsigned long flags;

	if (soft->mgrps || !soft->lim.max_mcast_grp)
		return 0;
	tab = xqp_kvzalloc((xqp_size_t)soft->lim.max_mcast_grp * sizeof(*tab));
	if (!tab)
		return -XQP_ENOMEM;
	flags = xqp_spin_lock_irqsave(&soft->lock);
	soft->mgrps = tab;
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
	return 0;
}

/**
 * soft_attach_mcast - attach a UD QP to the group @gid (driver op).
 * @drv: the device.
 * @drv_qp: the QP.
 * @gid: the group's multicast GID.
 * @lid: ignored (groups are found by GID).
 *
 * Context: may sleep.
 * Return: 0; 1 when attached already; -EINVAL (not UD, not multicast, a
 * QP being destroyed), -ENOMEM (no memory, or past the device's limits),
 * or the link's error taking the group's MAC (nothing changed then).
 */
int soft_attach_mcast(void *drv, void *drv_qp, const xqp_u8 gid[16], xqp_u16 lid)
{
	struct xqp_soft *soft = drv;
	struct soft_qp *qp = drv_qp;
	struct soft_mgrp *fresh;
	unsigned long flags;
	int err, made = 0;
	xqp_u32 at;

	(void)lid;
	err = soft_mcast_qp_ok(soft, XQP_SOFT_OP_ATTACH_MCAST, qp, gid);
	if (err)
		return err;
	fresh = xqp_zalloc(sizeof(*fresh), XQP_GFP_KERNEL_ACCOUNT);
	if (!fresh)
		return -XQP_ENOMEM;
	xqp_mutex_lock(&soft->mcast_mutex);
	err = qp->mcast_dead ? -XQP_EINVAL : soft_mgrp_table(soft);
	if (err)
		goto unlock;
	flags = xqp_spin_lock_irqsave(&soft->lock);
	err = soft_mgrp_add(soft, qp, gid, &fresh, &made);
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
	if (made && soft->link) {
		err = soft_net_mcast(soft, gid, 1);
		if (err) {	/* undo: the group has only @qp */
			flags = xqp_spin_lock_irqsave(&soft->lock);
			soft_mgrp_pos(soft, gid, &at);
			fresh = soft_mgrp_remove(soft, at, qp);
			xqp_spin_unlock_irqrestore(&soft->lock, flags);
		}
	}
unlock:
	xqp_mutex_unlock(&soft->mcast_mutex);
	xqp_free(fresh);
	return err;
}

/**
 * soft_detach_mcast - detach a UD QP from the group @gid (driver op).
 * @drv: the device.
 * @drv_qp: the QP.
 * @gid: the group's multicast GID.
 * @lid: ignored.
 *
 * Context: may sleep.
 * Return: 0; -EINVAL (not UD, not multicast, not attached: rxe's answer).
 */
int soft_detach_mcast(void *drv, void *drv_qp, const xqp_u8 gid[16], xqp_u16 lid)
{
	struct xqp_soft *soft = drv;
	struct soft_qp *qp = drv_qp;
	struct soft_mgrp *g, *gone = NULL;
	unsigned long flags;
	xqp_u32 at;
	int err;

	(void)lid;
	err = soft_mcast_qp_ok(soft, XQP_SOFT_OP_DETACH_MCAST, qp, gid);
	if (err)
		return err;
	xqp_mutex_lock(&soft->mcast_mutex);
	flags = xqp_spin_lock_irqsave(&soft->lock);
	g = soft->mgrps && soft_mgrp_pos(soft, gid, &at) ? soft->mgrps[at] : NULL;
	if (!g || !soft_mgrp_has(g, qp))
		err = -XQP_EINVAL;
	else
		gone = soft_mgrp_remove(soft, at, qp);
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
	if (gone && soft->link)
		soft_net_mcast(soft, gone->mgid, 0);
	xqp_mutex_unlock(&soft->mcast_mutex);
	xqp_free(gone);
	return err;
}

/**
 * soft_mcast_qp_gone - take a QP that is being destroyed out of its groups.
 * @qp: the QP, unreachable by number already.
 *
 * No delivery finds it afterwards, and no attach takes it (one racing the
 * destroy is -EINVAL); deliveries that found it before hold a reference,
 * which its destroy waits out next.
 *
 * Context: may sleep.
 */
void soft_mcast_qp_gone(struct soft_qp *qp)
{
	struct xqp_soft *soft = qp->obj.soft;
	struct soft_mgrp *gone;
	unsigned long flags;
	xqp_u32 at;

	if (qp->type != XQP_QPT_UD)
		return;		/* never attached (soft_mcast_qp_ok()) */
	xqp_mutex_lock(&soft->mcast_mutex);
	qp->mcast_dead = 1;
	while (qp->mcast_groups) {
		gone = NULL;
		flags = xqp_spin_lock_irqsave(&soft->lock);
		for (at = 0; at < soft->counts.mcast_grp; at++) {
			if (soft_mgrp_has(soft->mgrps[at], qp)) {
				gone = soft_mgrp_remove(soft, at, qp);
				break;
			}
		}
		xqp_spin_unlock_irqrestore(&soft->lock, flags);
		if (gone && soft->link)
			soft_net_mcast(soft, gone->mgid, 0);
		xqp_free(gone);
	}
	xqp_mutex_unlock(&soft->mcast_mutex);
}

/* Device teardown, once no QP is left: the group table. */
void soft_mcast_fini(struct xqp_soft *soft)
{
	xqp_kvfree(soft->mgrps);
	soft->mgrps = NULL;
}

int soft_mcast_dest(const struct xqp_ah_attr *av, xqp_u32 dqpn)
{
	return dqpn == XQP_MULTICAST_QPN && av->is_global && xqp_gid_is_multicast(av->dgid);
}

xqp_u32 soft_mcast_qps(struct xqp_soft *soft, const xqp_u8 mgid[16], struct soft_qp **qps)
{
	struct soft_mgrp *g;
	unsigned long flags;
	xqp_u32 i, n = 0;

	flags = xqp_spin_lock_irqsave(&soft->lock);
	g = soft->mgrps ? soft_mgrp_find(soft, mgid) : NULL;
	if (g) {
		for (i = 0; i < g->nqp; i++) {
			soft_refs_get(&g->qp[i]->refs);
			qps[n++] = g->qp[i];
		}
	}
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
	return n;
}
