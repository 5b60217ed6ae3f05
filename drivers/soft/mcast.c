// SPDX-License-Identifier: GPL-2.0
/*
 * UD multicast, as rxe_mcast.c and rxe_recv.c have it: a device's groups,
 * each the UD QPs of the device attached to one multicast GID, and the
 * delivery of a message sent to a group.
 *
 * A group is made by its first attach and freed with its last detach; it
 * holds its QPs as plain pointers under soft->lock, and a QP's destroy
 * takes it out of every group (soft_mcast_qp_gone()) before it waits out
 * the references a delivery holds. Attach and detach are serialised by the
 * device's mcast_mutex, which also keeps a linked device's netdev taking
 * frames to each group's MAC for as long as the group exists.
 *
 * Where a message to a group goes (exec.c, wire_recv.c): to every QP of
 * that group on each device of the subnet the sender reaches without the
 * wire (soft_fabric_mcast_peer(): its own included, the sending QP too
 * when attached, as rxe's loopback does), each taking it with its own
 * Q_Key check and receive WQE; a linked device also sends it on the wire to
 * the group's IP address, and takes the group's packets from there.
 *
 * Limits (rxe's): max_mcast_grp groups, max_mcast_qp_attach QPs a group,
 * max_total_mcast_qp_attach attachments; past one, attach is -ENOMEM.
 */
#include "soft_priv.h"

struct soft_mgrp {
	struct soft_mgrp *next;		/* its bucket's chain */
	xqp_u8 mgid[16];
	xqp_u32 nqp;
	struct soft_qp *qp[XQP_RULES_MAX_MCAST_QP_ATTACH];	/* the first nqp */
};

static struct soft_mgrp **soft_mgrp_bucket(struct xqp_soft *soft, const xqp_u8 mgid[16])
{
	xqp_u32 h = 0;
	int i;

	for (i = 0; i < 16; i++)
		h = h * 31 + mgid[i];
	return &soft->mgrps[h % SOFT_MCAST_BUCKETS];
}

/* The link of the group @mgid in its chain, or of the chain's end. soft->lock held. */
static struct soft_mgrp **soft_mgrp_find(struct xqp_soft *soft, const xqp_u8 mgid[16])
{
	struct soft_mgrp **pg = soft_mgrp_bucket(soft, mgid);

	while (*pg && !soft_gid_equal((*pg)->mgid, mgid))
		pg = &(*pg)->next;
	return pg;
}

static int soft_mgrp_has(const struct soft_mgrp *g, const struct soft_qp *qp)
{
	xqp_u32 i;

	for (i = 0; i < g->nqp; i++)
		if (g->qp[i] == qp)
			return 1;
	return 0;
}

/* Takes @qp out of @g (it is there); 1 if @g is now empty and unlinked (*@pg). */
static int soft_mgrp_remove(struct xqp_soft *soft, struct soft_mgrp **pg, struct soft_qp *qp)
{
	struct soft_mgrp *g = *pg;
	xqp_u32 i;

	for (i = 0; g->qp[i] != qp; i++)
		;
	g->qp[i] = g->qp[--g->nqp];
	qp->mcast_groups--;
	soft->counts.mcast_attach--;
	if (g->nqp)
		return 0;
	*pg = g->next;
	soft->counts.mcast_grp--;
	return 1;
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
 * *@fresh is NULL and *@made 1). soft->lock held.
 */
static int soft_mgrp_add(struct xqp_soft *soft, struct soft_qp *qp, const xqp_u8 mgid[16],
			 struct soft_mgrp **fresh, int *made)
{
	const struct xqp_soft_limits *lim = &soft->lim;
	struct soft_mgrp **pg = soft_mgrp_find(soft, mgid);
	struct soft_mgrp *g = *pg;

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
		g->next = NULL;
		*pg = g;
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

/**
 * soft_attach_mcast - attach a UD QP to the group @gid (driver op).
 * @drv: the device.
 * @drv_qp: the QP.
 * @gid: the group's multicast GID.
 * @lid: ignored (groups are found by GID).
 *
 * Context: may sleep.
 * Return: 0; 1 when attached already; -EINVAL (not UD, not multicast),
 * -ENOMEM (no memory, or past the device's limits), or the link's error
 * taking the group's MAC (nothing changed then).
 */
int soft_attach_mcast(void *drv, void *drv_qp, const xqp_u8 gid[16], xqp_u16 lid)
{
	struct xqp_soft *soft = drv;
	struct soft_qp *qp = drv_qp;
	struct soft_mgrp *fresh, **pg;
	unsigned long flags;
	int err, made = 0;

	(void)lid;
	err = soft_mcast_qp_ok(soft, XQP_SOFT_OP_ATTACH_MCAST, qp, gid);
	if (err)
		return err;
	fresh = xqp_zalloc(sizeof(*fresh), XQP_GFP_KERNEL_ACCOUNT);
	if (!fresh)
		return -XQP_ENOMEM;
	xqp_mutex_lock(&soft->mcast_mutex);
	flags = xqp_spin_lock_irqsave(&soft->lock);
	err = soft_mgrp_add(soft, qp, gid, &fresh, &made);
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
	if (made && soft->link) {
		err = soft_net_mcast(soft, gid, 1);
		if (err) {	/* undo: the group has only @qp */
			flags = xqp_spin_lock_irqsave(&soft->lock);
			pg = soft_mgrp_find(soft, gid);
			fresh = *pg;
			soft_mgrp_remove(soft, pg, qp);
			xqp_spin_unlock_irqrestore(&soft->lock, flags);
		}
	}
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
	struct soft_mgrp **pg, *gone = NULL;
	unsigned long flags;
	int err;

	(void)lid;
	err = soft_mcast_qp_ok(soft, XQP_SOFT_OP_DETACH_MCAST, qp, gid);
	if (err)
		return err;
	xqp_mutex_lock(&soft->mcast_mutex);
	flags = xqp_spin_lock_irqsave(&soft->lock);
	pg = soft_mgrp_find(soft, gid);
	if (!*pg || !soft_mgrp_has(*pg, qp)) {
		err = -XQP_EINVAL;
	} else {
		gone = *pg;
		if (!soft_mgrp_remove(soft, pg, qp))
			gone = NULL;
	}
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
 * No delivery finds it afterwards; those that found it before hold a
 * reference, which its destroy waits out next.
 *
 * Context: may sleep.
 */
void soft_mcast_qp_gone(struct soft_qp *qp)
{
	struct xqp_soft *soft = qp->obj.soft;
	struct soft_mgrp **pg, *g;
	unsigned long flags;
	int b, emptied;

	if (!__atomic_load_n(&qp->mcast_groups, __ATOMIC_RELAXED))
		return;
	xqp_mutex_lock(&soft->mcast_mutex);
	for (b = 0; b < SOFT_MCAST_BUCKETS && qp->mcast_groups; b++) {
		for (;;) {
			flags = xqp_spin_lock_irqsave(&soft->lock);
			pg = &soft->mgrps[b];
			while (*pg && !soft_mgrp_has(*pg, qp))
				pg = &(*pg)->next;
			g = *pg;
			emptied = g && soft_mgrp_remove(soft, pg, qp);
			xqp_spin_unlock_irqrestore(&soft->lock, flags);
			if (!g)
				break;
			if (emptied) {
				if (soft->link)
					soft_net_mcast(soft, g->mgid, 0);
				xqp_free(g);
			}
		}
	}
	xqp_mutex_unlock(&soft->mcast_mutex);
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
	g = *soft_mgrp_find(soft, mgid);
	if (g) {
		for (i = 0; i < g->nqp; i++) {
			soft_refs_get(&g->qp[i]->refs);
			qps[n++] = g->qp[i];
		}
	}
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
	return n;
}
