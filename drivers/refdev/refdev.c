// SPDX-License-Identifier: GPL-2.0
/*
 * xqp_refdev: the reference device. A fake XRC-capable InfiniBand device
 * registered with the kernel's real ib_core: the scenarios xqp runs against
 * its own core (on the soft device) run against Linux's core on this.
 *
 * It mirrors drivers/soft where a driver has a say, so that every difference
 * a differential test sees comes from the cores, not from the drivers:
 *  - the same limits, capability checks and granted capabilities, and the
 *    same attribute checks: both take them from drivers/rules/ (rxe's
 *    rules: 2^k - 1 WRs, a send WQE holds its SGEs or its inline data);
 *  - QP numbers of 24 bits from 2 up, handed out by a cursor that wraps, so
 *    a freed number comes back late;
 *  - modify_qp checks the attributes like rxe_qp_chk_attr(), validates the
 *    transition with ib_modify_qp_is_ok() (ib_core does not: drivers do) and
 *    keeps what it was given; query_qp reports it;
 *  - one-shot fault injection per op and live-object counts.
 *
 * Test hooks for userspace: each device has write-only debugfs files in
 * /sys/kernel/debug/xqp_refdev/<ibdev name>/; writing "NUM EVENT" (decimal
 * number, decimal enum ib_event_type) raises the event as a driver does:
 *  - raise_qp_event: on the QP numbered NUM (xqp_refdev_raise_qp_event());
 *  - raise_srq_event: on the XRC SRQ numbered NUM (basic SRQs have no
 *    number userspace can learn) (xqp_refdev_raise_srq_event());
 *  - raise_cq_event: on the send CQ of the QP numbered NUM (CQs have no
 *    number userspace can learn; a QP names its CQ)
 *    (xqp_refdev_raise_cq_event()).
 * It is how the acceptance suite makes Linux's uverbs report async events.
 *
 * Ports: one IB port (RDMA_CORE_CAP_PROT_IB, no MAD: max_mad_size 0), active,
 * one GID, 64 P_Keys. No data path: post/poll ops are absent, which also
 * keeps the kernel's ULPs (MAD, CM, IPoIB...) off the device; ib_uverbs
 * still attaches and creates /dev/infiniband/uverbsN.
 *
 * Locking: the QP table's xa_lock (IRQ-safe) covers number allocation,
 * lookup, removal and event delivery (QP events, and CQ events through a
 * QP); the XRC SRQ table's xa_lock the same for SRQ events; each QP's
 * attr_lock its attributes.
 * Counts and injections are atomics.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "refdev.h"
#include "rules/qp_attr.h"

#define REFDEV_GUID_BASE	0x0258515200000000ULL	/* 02:"XQR":... */

/* The soft device's limits: the shared rules' defaults (rules/limits.h). */
static const struct xqp_rules_limits refdev_lim = XQP_RULES_DEFAULT_LIMITS;

enum refdev_kind {
	REFDEV_UCONTEXT,
	REFDEV_PD,
	REFDEV_CQ,
	REFDEV_XRCD,
	REFDEV_SRQ,
	REFDEV_QP,
	REFDEV_KINDS
};

/* How many objects of @kind the device may have at once. */
static u32 refdev_max(enum refdev_kind kind)
{
	switch (kind) {
	case REFDEV_PD:
		return refdev_lim.max_pd;
	case REFDEV_CQ:
		return refdev_lim.max_cq;
	case REFDEV_XRCD:
		return refdev_lim.max_xrcd;
	case REFDEV_SRQ:
		return refdev_lim.max_srq;
	case REFDEV_QP:
		return refdev_lim.max_qp;
	default:
		return U32_MAX;
	}
}

struct refdev_inject {
	atomic_t countdown;		/* fires when it drops to 0 */
	int err;
};

struct xqp_refdev {
	struct ib_device ibdev;		/* first: ib_alloc_device() */
	struct xarray qps;		/* qp_num -> struct refdev_qp */
	u32 qpn_next;			/* allocation cursor, under qps' lock */
	struct ida srqns;		/* XRC SRQ numbers */
	struct xarray srqs;		/* XRC srq_num -> struct refdev_srq */
	struct xarray cqs;		/* every CQ, for xqp_refdev_raise_ibcq_event */
	struct xarray srq_ids;		/* every SRQ, for xqp_refdev_raise_ibsrq_event */
	atomic_t count[REFDEV_KINDS];
	struct refdev_inject inject[XQP_REFDEV_OP_COUNT];
	atomic64_t calls[XQP_REFDEV_OP_COUNT];
	struct dentry *debugfs;		/* xqp_refdev/<name>/, or an error */
};

struct refdev_ucontext {
	struct ib_ucontext ibuc;
};

struct refdev_pd {
	struct ib_pd ibpd;
};

struct refdev_xrcd {
	struct ib_xrcd ibxrcd;
};

struct refdev_cq {
	struct ib_cq ibcq;
	u32 id;				/* in ref->cqs */
};

struct refdev_srq {
	struct ib_srq ibsrq;
	u32 srq_num;			/* XRC SRQs only, else 0 */
	u32 id;				/* in ref->srq_ids */
	struct ib_srq_attr attr;
};

struct refdev_qp {
	struct ib_qp ibqp;
	enum ib_sig_type sq_sig_type;
	bool has_srq;
	spinlock_t attr_lock;		/* attr */
	struct ib_qp_attr attr;
};

static atomic64_t refdev_instances = ATOMIC64_INIT(0);

static inline struct xqp_refdev *to_ref(struct ib_device *ibdev)
{
	return container_of(ibdev, struct xqp_refdev, ibdev);
}

static inline struct refdev_qp *to_qp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct refdev_qp, ibqp);
}

static inline struct refdev_srq *to_srq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct refdev_srq, ibsrq);
}

/* ---- fault injection, counts -------------------------------------------- */

/* Every injectable op starts here; returns the armed error or 0. */
static int refdev_enter(struct xqp_refdev *ref, enum xqp_refdev_op op)
{
	struct refdev_inject *inj = &ref->inject[op];

	atomic64_inc(&ref->calls[op]);
	if (atomic_read_acquire(&inj->countdown) <= 0)
		return 0;
	if (atomic_dec_return(&inj->countdown) != 0)
		return 0;
	return READ_ONCE(inj->err);
}

void xqp_refdev_inject(struct xqp_refdev *ref, enum xqp_refdev_op op, int err,
		       unsigned int after)
{
	struct refdev_inject *inj;

	if (WARN_ON((unsigned int)op >= XQP_REFDEV_OP_COUNT))
		return;
	inj = &ref->inject[op];
	atomic_set_release(&inj->countdown, 0);
	WRITE_ONCE(inj->err, err);
	if (err)
		atomic_set_release(&inj->countdown,
				   after >= INT_MAX ? INT_MAX : (int)after + 1);
}
EXPORT_SYMBOL_GPL(xqp_refdev_inject);

u64 xqp_refdev_op_calls(struct xqp_refdev *ref, enum xqp_refdev_op op)
{
	if (WARN_ON((unsigned int)op >= XQP_REFDEV_OP_COUNT))
		return 0;
	return atomic64_read(&ref->calls[op]);
}
EXPORT_SYMBOL_GPL(xqp_refdev_op_calls);

/* Counts a new object of @kind; -ENOMEM past the device's limit. */
static int refdev_get(struct xqp_refdev *ref, enum refdev_kind kind)
{
	if ((u32)atomic_inc_return(&ref->count[kind]) > refdev_max(kind)) {
		atomic_dec(&ref->count[kind]);
		return -ENOMEM;
	}
	return 0;
}

static void refdev_put(struct xqp_refdev *ref, enum refdev_kind kind)
{
	WARN_ON(atomic_dec_return(&ref->count[kind]) < 0);
}

void xqp_refdev_counts(struct xqp_refdev *ref, struct xqp_refdev_counts *c)
{
	c->ucontext = atomic_read(&ref->count[REFDEV_UCONTEXT]);
	c->pd = atomic_read(&ref->count[REFDEV_PD]);
	c->cq = atomic_read(&ref->count[REFDEV_CQ]);
	c->xrcd = atomic_read(&ref->count[REFDEV_XRCD]);
	c->srq = atomic_read(&ref->count[REFDEV_SRQ]);
	c->qp = atomic_read(&ref->count[REFDEV_QP]);
}
EXPORT_SYMBOL_GPL(xqp_refdev_counts);

/* ---- device and port ---------------------------------------------------- */

static int refdev_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
			       struct ib_udata *udata)
{
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;

	*attr = (struct ib_device_attr) {
		XQP_RULES_DEVICE_ATTRS(&refdev_lim),
		.fw_ver			= 1,
		.sys_image_guid		= ibdev->node_guid,
		.device_cap_flags	= IB_DEVICE_XRC,
		.kernel_cap_flags	= IBK_LOCAL_DMA_LKEY,
		.max_sge_rd		= refdev_lim.max_sge,
		.max_res_rd_atom	= refdev_lim.max_qp_rd_atom * 64,
		.atomic_cap		= IB_ATOMIC_HCA,
		.local_ca_ack_delay	= 15,
	};
	return 0;
}

static int refdev_query_port(struct ib_device *ibdev, u32 port,
			     struct ib_port_attr *attr)
{
	/* ib_core zeroes *attr first */
	attr->state = IB_PORT_ACTIVE;
	attr->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = IB_MTU_4096;
	attr->gid_tbl_len = XQP_RULES_GID_TBL_LEN;
	attr->pkey_tbl_len = refdev_lim.max_pkeys;
	attr->max_msg_sz = XQP_RULES_MAX_MSG_SZ;
	attr->lid = 1;
	attr->sm_lid = 1;
	attr->max_vl_num = 1;
	attr->active_width = IB_WIDTH_1X;
	attr->active_speed = IB_SPEED_SDR;
	return 0;
}

static int refdev_get_port_immutable(struct ib_device *ibdev, u32 port,
				     struct ib_port_immutable *immutable)
{
	immutable->pkey_tbl_len = refdev_lim.max_pkeys;
	immutable->gid_tbl_len = XQP_RULES_GID_TBL_LEN;
	immutable->core_cap_flags = RDMA_CORE_CAP_PROT_IB;
	/* No MAD support, so no MAD size: ib_core refuses anything else. */
	immutable->max_mad_size = 0;
	return 0;
}

static int refdev_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey)
{
	if (index >= refdev_lim.max_pkeys)
		return -EINVAL;
	*pkey = index == 0 ? 0xffff : 0;
	return 0;
}

static int refdev_query_gid(struct ib_device *ibdev, u32 port, int index,
			    union ib_gid *gid)
{
	if (index < 0 || index >= XQP_RULES_GID_TBL_LEN)
		return -EINVAL;
	gid->global.subnet_prefix = cpu_to_be64(0xfe80000000000000ULL);
	gid->global.interface_id = ibdev->node_guid;
	return 0;
}

static enum rdma_link_layer refdev_get_link_layer(struct ib_device *ibdev, u32 port)
{
	return IB_LINK_LAYER_INFINIBAND;
}

/* ---- ucontext, PD, XRCD, CQ ---------------------------------------------- */

static int refdev_alloc_ucontext(struct ib_ucontext *uctx, struct ib_udata *udata)
{
	return refdev_get(to_ref(uctx->device), REFDEV_UCONTEXT);
}

static void refdev_dealloc_ucontext(struct ib_ucontext *uctx)
{
	refdev_put(to_ref(uctx->device), REFDEV_UCONTEXT);
}

static int refdev_alloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	struct xqp_refdev *ref = to_ref(pd->device);
	int err = refdev_enter(ref, XQP_REFDEV_OP_ALLOC_PD);

	return err ?: refdev_get(ref, REFDEV_PD);
}

static int refdev_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	struct xqp_refdev *ref = to_ref(pd->device);
	int err = refdev_enter(ref, XQP_REFDEV_OP_DEALLOC_PD);

	if (err)
		return err;
	refdev_put(ref, REFDEV_PD);
	return 0;
}

static int refdev_alloc_xrcd(struct ib_xrcd *xrcd, struct ib_udata *udata)
{
	struct xqp_refdev *ref = to_ref(xrcd->device);
	int err = refdev_enter(ref, XQP_REFDEV_OP_ALLOC_XRCD);

	return err ?: refdev_get(ref, REFDEV_XRCD);
}

static int refdev_dealloc_xrcd(struct ib_xrcd *xrcd, struct ib_udata *udata)
{
	struct xqp_refdev *ref = to_ref(xrcd->device);
	int err = refdev_enter(ref, XQP_REFDEV_OP_DEALLOC_XRCD);

	if (err)
		return err;
	refdev_put(ref, REFDEV_XRCD);
	return 0;
}

static int refdev_create_cq(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
			    struct uverbs_attr_bundle *attrs)
{
	struct xqp_refdev *ref = to_ref(cq->device);
	struct refdev_cq *rcq = container_of(cq, struct refdev_cq, ibcq);
	int err = refdev_enter(ref, XQP_REFDEV_OP_CREATE_CQ);

	if (err)
		return err;
	if (attr->flags)
		return -EOPNOTSUPP;
	if (!xqp_rules_cqe_ok(&refdev_lim, attr->cqe))
		return -EINVAL;
	err = refdev_get(ref, REFDEV_CQ);
	if (err)
		return err;
	/* Reachable for xqp_refdev_raise_ibcq_event() until destroyed. */
	err = xa_alloc_irq(&ref->cqs, &rcq->id, rcq, xa_limit_32b, GFP_KERNEL);
	if (err) {
		refdev_put(ref, REFDEV_CQ);
		return err;
	}
	cq->cqe = attr->cqe;
	return 0;
}

static int refdev_destroy_cq(struct ib_cq *cq, struct ib_udata *udata)
{
	struct xqp_refdev *ref = to_ref(cq->device);
	int err = refdev_enter(ref, XQP_REFDEV_OP_DESTROY_CQ);

	if (err)
		return err;
	/* After this no event can reach the CQ (see raise_ibcq_event). */
	xa_erase_irq(&ref->cqs, container_of(cq, struct refdev_cq, ibcq)->id);
	refdev_put(ref, REFDEV_CQ);
	return 0;
}

/* ---- SRQ ------------------------------------------------------------------ */

static int refdev_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
			     struct ib_udata *udata)
{
	struct xqp_refdev *ref = to_ref(ibsrq->device);
	struct refdev_srq *srq = to_srq(ibsrq);
	struct ib_srq_attr *attr = &init->attr;
	int err;

	err = refdev_enter(ref, XQP_REFDEV_OP_CREATE_SRQ);
	if (err)
		return err;
	switch (init->srq_type) {
	case IB_SRQT_BASIC:
		break;
	case IB_SRQT_XRC:
		if (!init->ext.xrc.xrcd || !init->ext.cq)
			return -EINVAL;
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (!xqp_rules_srq_ok(&refdev_lim, attr->max_wr, attr->max_sge))
		return -EINVAL;

	err = refdev_get(ref, REFDEV_SRQ);
	if (err)
		return err;
	if (init->srq_type == IB_SRQT_XRC) {
		err = ida_alloc_range(&ref->srqns, 1, XQP_RULES_NUM_MASK, GFP_KERNEL);
		if (err < 0) {
			refdev_put(ref, REFDEV_SRQ);
			return err;
		}
		srq->srq_num = err;
		ibsrq->ext.xrc.srq_num = err;
	}
	xqp_rules_grant_srq(&refdev_lim, &attr->max_wr, &attr->max_sge);
	srq->attr = *attr;
	if (srq->srq_num) {	/* reachable for raise_srq_event */
		err = xa_err(xa_store_irq(&ref->srqs, srq->srq_num, srq, GFP_KERNEL));
		if (err) {
			ida_free(&ref->srqns, srq->srq_num);
			refdev_put(ref, REFDEV_SRQ);
			return err;
		}
	}
	/* Reachable for xqp_refdev_raise_ibsrq_event() until destroyed. */
	err = xa_alloc_irq(&ref->srq_ids, &srq->id, srq, xa_limit_32b, GFP_KERNEL);
	if (err) {
		if (srq->srq_num) {
			xa_erase_irq(&ref->srqs, srq->srq_num);
			ida_free(&ref->srqns, srq->srq_num);
		}
		refdev_put(ref, REFDEV_SRQ);
		return err;
	}
	return 0;
}

static int refdev_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct xqp_refdev *ref = to_ref(ibsrq->device);
	struct refdev_srq *srq = to_srq(ibsrq);
	int err = refdev_enter(ref, XQP_REFDEV_OP_DESTROY_SRQ);

	if (err)
		return err;
	if (srq->srq_num) {
		/* After this no event can reach the SRQ (see raise_srq_event). */
		xa_erase_irq(&ref->srqs, srq->srq_num);
		ida_free(&ref->srqns, srq->srq_num);
	}
	xa_erase_irq(&ref->srq_ids, srq->id);
	refdev_put(ref, REFDEV_SRQ);
	return 0;
}

/* ---- QP ------------------------------------------------------------------- */

static int refdev_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
			    struct ib_udata *udata)
{
	struct xqp_refdev *ref = to_ref(ibqp->device);
	struct refdev_qp *qp = to_qp(ibqp);
	struct ib_qp_cap cap = init->cap;
	bool has_srq = init->srq != NULL;
	u32 qpn;
	int err;

	err = refdev_enter(ref, XQP_REFDEV_OP_CREATE_QP);
	if (err)
		return err;
	if (!XQP_RULES_QP_TYPE_OK(IB_QPT_, init->qp_type) || init->create_flags)
		return -EOPNOTSUPP;
	/* ib_core takes init->xrcd's usecnt after this returns: it must exist. */
	if (init->qp_type == IB_QPT_XRC_TGT && !init->xrcd)
		return -EINVAL;
	err = XQP_RULES_GRANT_QP_CAP(&refdev_lim, &cap, has_srq);
	if (err)
		return err;

	spin_lock_init(&qp->attr_lock);
	qp->sq_sig_type = init->sq_sig_type;
	qp->has_srq = has_srq;
	qp->attr.qp_state = IB_QPS_RESET;
	qp->attr.cur_qp_state = IB_QPS_RESET;
	qp->attr.cap = cap;
	qp->attr.port_num = init->port_num;

	err = refdev_get(ref, REFDEV_QP);
	if (err)
		return err;
	/* Published last: from here on events can reach the QP. */
	err = xa_alloc_cyclic_irq(&ref->qps, &qpn, qp,
				  XA_LIMIT(XQP_REFDEV_QPN_FIRST, XQP_REFDEV_QPN_LAST),
				  &ref->qpn_next, GFP_KERNEL);
	if (err < 0) {
		refdev_put(ref, REFDEV_QP);
		return err == -EBUSY ? -ENOSPC : err;
	}
	ibqp->qp_num = qpn;
	init->cap = cap;
	return 0;
}

/* The attribute checks that do not depend on the state (rules/qp_attr.h). */
static int refdev_check_qp_attr(struct refdev_qp *qp, const struct ib_qp_attr *attr,
				int mask, struct ib_qp_cap *cap)
{
	if (XQP_RULES_QP_ATTR_BAD(IB_QP_, attr, mask, &refdev_lim))
		return -EINVAL;
	if (mask & IB_QP_CAP) {
		*cap = attr->cap;
		return XQP_RULES_GRANT_QP_CAP(&refdev_lim, cap, qp->has_srq);
	}
	return 0;
}

/* An address vector as kept: no reference-counted GID attribute in it. */
static void refdev_keep_ah(struct rdma_ah_attr *dst, const struct rdma_ah_attr *src)
{
	*dst = *src;
	dst->grh.sgid_attr = NULL;
}

/* Keeps every attribute in @mask (rules/qp_attr.h). Caller holds qp->attr_lock. */
static void refdev_store_qp_attr(struct refdev_qp *qp, const struct ib_qp_attr *attr,
				 int mask, const struct ib_qp_cap *cap)
{
	XQP_RULES_QP_ATTR_KEEP(IB_QP_, &qp->attr, attr, mask, refdev_keep_ah);
	if (mask & IB_QP_CAP)
		qp->attr.cap = *cap;
}

static int refdev_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
			    struct ib_udata *udata)
{
	struct xqp_refdev *ref = to_ref(ibqp->device);
	struct refdev_qp *qp = to_qp(ibqp);
	enum ib_qp_state cur, next;
	struct ib_qp_cap cap = {};
	unsigned long flags;
	bool drained;
	int err;

	err = refdev_enter(ref, XQP_REFDEV_OP_MODIFY_QP);
	if (err)
		return err;
	if (mask & ~(IB_QP_ATTR_STANDARD_BITS | IB_QP_RATE_LIMIT))
		return -EOPNOTSUPP;
	err = refdev_check_qp_attr(qp, attr, mask, &cap);
	if (err)
		return err;

	spin_lock_irqsave(&qp->attr_lock, flags);
	cur = (mask & IB_QP_CUR_STATE) ? attr->cur_qp_state : qp->attr.qp_state;
	next = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	if (cur > IB_QPS_ERR || next > IB_QPS_ERR ||
	    !ib_modify_qp_is_ok(cur, next, ibqp->qp_type, mask)) {
		err = -EINVAL;
	} else {
		qp->attr.qp_state = next;
		refdev_store_qp_attr(qp, attr, mask, &cap);
	}
	drained = !err && next == IB_QPS_SQD && cur != IB_QPS_SQD &&
		  qp->attr.en_sqd_async_notify;
	spin_unlock_irqrestore(&qp->attr_lock, flags);
	/*
	 * Nothing is ever in flight on this device: the SQ is drained at once.
	 * rxe (and the soft device) report SQ_DRAINED when asked to.
	 */
	if (drained)
		xqp_refdev_raise_qp_event(ref, ibqp->qp_num, IB_EVENT_SQ_DRAINED);
	return err;
}

static int refdev_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
			   struct ib_qp_init_attr *init)
{
	struct xqp_refdev *ref = to_ref(ibqp->device);
	struct refdev_qp *qp = to_qp(ibqp);
	unsigned long flags;
	int err;

	err = refdev_enter(ref, XQP_REFDEV_OP_QUERY_QP);
	if (err)
		return err;

	/* Like rxe, everything is reported, whatever @mask asks for. */
	spin_lock_irqsave(&qp->attr_lock, flags);
	*attr = qp->attr;
	spin_unlock_irqrestore(&qp->attr_lock, flags);
	attr->cur_qp_state = attr->qp_state;
	attr->xmit_slave = NULL;

	if (init) {
		memset(init, 0, sizeof(*init));
		init->qp_type = ibqp->qp_type;
		init->send_cq = ibqp->send_cq;
		init->recv_cq = ibqp->recv_cq;
		init->srq = ibqp->srq;
		init->xrcd = ibqp->xrcd;
		init->cap = attr->cap;
		init->sq_sig_type = qp->sq_sig_type;
		init->port_num = attr->port_num;
	}
	return 0;
}

static int refdev_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct xqp_refdev *ref = to_ref(ibqp->device);
	int err = refdev_enter(ref, XQP_REFDEV_OP_DESTROY_QP);

	if (err)
		return err;
	/* After this no event can reach the QP (see raise_qp_event). */
	xa_erase_irq(&ref->qps, ibqp->qp_num);
	refdev_put(ref, REFDEV_QP);
	return 0;	/* ib_core frees the memory */
}

int xqp_refdev_raise_qp_event(struct xqp_refdev *ref, u32 qp_num,
			      enum ib_event_type type)
{
	struct refdev_qp *qp;
	struct ib_event ev = {};
	unsigned long flags;
	int err = 0;

	xa_lock_irqsave(&ref->qps, flags);
	qp = xa_load(&ref->qps, qp_num);
	if (!qp) {
		err = -EINVAL;
	} else if (qp->ibqp.event_handler) {
		ev.device = &ref->ibdev;
		ev.element.qp = &qp->ibqp;
		ev.event = type;
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
	}
	xa_unlock_irqrestore(&ref->qps, flags);
	return err;
}
EXPORT_SYMBOL_GPL(xqp_refdev_raise_qp_event);

/* Deliver as a driver does: to the handler registered at create, if any. */
static void refdev_deliver_cq_event(struct xqp_refdev *ref, struct ib_cq *cq,
				    enum ib_event_type type)
{
	struct ib_event ev = { .device = &ref->ibdev, .element.cq = cq, .event = type };

	if (cq->event_handler)
		cq->event_handler(&ev, cq->cq_context);
}

static void refdev_deliver_srq_event(struct xqp_refdev *ref, struct ib_srq *srq,
				     enum ib_event_type type)
{
	struct ib_event ev = { .device = &ref->ibdev, .element.srq = srq, .event = type };

	if (srq->event_handler)
		srq->event_handler(&ev, srq->srq_context);
}

int xqp_refdev_raise_srq_event(struct xqp_refdev *ref, u32 srq_num,
			       enum ib_event_type type)
{
	struct refdev_srq *srq;
	unsigned long flags;
	int err = 0;

	xa_lock_irqsave(&ref->srqs, flags);
	srq = xa_load(&ref->srqs, srq_num);
	if (srq)
		refdev_deliver_srq_event(ref, &srq->ibsrq, type);
	else
		err = -EINVAL;
	xa_unlock_irqrestore(&ref->srqs, flags);
	return err;
}
EXPORT_SYMBOL_GPL(xqp_refdev_raise_srq_event);

int xqp_refdev_raise_cq_event(struct xqp_refdev *ref, u32 qp_num,
			      enum ib_event_type type)
{
	struct refdev_qp *qp;
	struct ib_cq *cq;
	unsigned long flags;
	int err = 0;

	/* The QP holds its CQ (usecnt): while the QP is in the table, so is it. */
	xa_lock_irqsave(&ref->qps, flags);
	qp = xa_load(&ref->qps, qp_num);
	cq = qp ? qp->ibqp.send_cq : NULL;
	if (cq)
		refdev_deliver_cq_event(ref, cq, type);
	else
		err = -EINVAL;
	xa_unlock_irqrestore(&ref->qps, flags);
	return err;
}
EXPORT_SYMBOL_GPL(xqp_refdev_raise_cq_event);

int xqp_refdev_raise_ibcq_event(struct xqp_refdev *ref, struct ib_cq *cq,
				enum ib_event_type type)
{
	struct refdev_cq *rcq;
	unsigned long flags, id;
	int err = 0;

	/* @cq is only compared, never followed, until it is found live. */
	xa_lock_irqsave(&ref->cqs, flags);
	xa_for_each(&ref->cqs, id, rcq)
		if (cq && &rcq->ibcq == cq)
			break;
	if (rcq)
		refdev_deliver_cq_event(ref, cq, type);
	else
		err = -EINVAL;
	xa_unlock_irqrestore(&ref->cqs, flags);
	return err;
}
EXPORT_SYMBOL_GPL(xqp_refdev_raise_ibcq_event);

int xqp_refdev_raise_ibsrq_event(struct xqp_refdev *ref, struct ib_srq *srq,
				 enum ib_event_type type)
{
	struct refdev_srq *rsrq;
	unsigned long flags, id;
	int err = 0;

	/* @srq is only compared, never followed, until it is found live. */
	xa_lock_irqsave(&ref->srq_ids, flags);
	xa_for_each(&ref->srq_ids, id, rsrq)
		if (srq && &rsrq->ibsrq == srq)
			break;
	if (rsrq)
		refdev_deliver_srq_event(ref, srq, type);
	else
		err = -EINVAL;
	xa_unlock_irqrestore(&ref->srq_ids, flags);
	return err;
}
EXPORT_SYMBOL_GPL(xqp_refdev_raise_ibsrq_event);

struct ib_qp *xqp_refdev_find_qp(struct xqp_refdev *ref, u32 qp_num)
{
	struct refdev_qp *qp = xa_load(&ref->qps, qp_num);

	return qp ? &qp->ibqp : NULL;
}
EXPORT_SYMBOL_GPL(xqp_refdev_find_qp);

void xqp_refdev_set_qpn_cursor(struct xqp_refdev *ref, u32 next)
{
	unsigned long flags;

	if (next < XQP_REFDEV_QPN_FIRST || next > XQP_REFDEV_QPN_LAST)
		next = XQP_REFDEV_QPN_FIRST;
	xa_lock_irqsave(&ref->qps, flags);
	ref->qpn_next = next;
	xa_unlock_irqrestore(&ref->qps, flags);
}
EXPORT_SYMBOL_GPL(xqp_refdev_set_qpn_cursor);

/* ---- debugfs: the userspace event hook ---------------------------------- */

/* xqp_refdev/ in debugfs (module init/exit), or an error pointer. */
static struct dentry *refdev_debugfs_root;

/* Longest valid input: "16777215 19\n" with some room for blanks. */
#define REFDEV_RAISE_BUF	32

typedef int (*refdev_raise_fn)(struct xqp_refdev *ref, u32 num,
			       enum ib_event_type type);

/*
 * Writing "NUM EVENT" (two decimal numbers separated by blanks, optionally
 * surrounded by blanks and ended by a newline; one command per write())
 * raises EVENT (enum ib_event_type) with @raise on what NUM names (a QP, an
 * XRC SRQ, a QP's send CQ). Errors, as xqp's XQP_UVERBS_IOC_RAISE_*_EVENT:
 * EINVAL for malformed input, a NUM past 24 bits or an event past
 * IB_EVENT_WQ_FATAL; ENOENT when the device has no such object; EFAULT.
 *
 * The debugfs proxy (debugfs_create_file, not _unsafe) keeps this from
 * running once debugfs_remove() of the file has returned, so @ref is live.
 */
static ssize_t refdev_raise(struct file *file, const char __user *ubuf,
			    size_t count, loff_t *ppos, refdev_raise_fn raise)
{
	struct xqp_refdev *ref = file->private_data;
	char buf[REFDEV_RAISE_BUF], *qpn_s, *ev_s;
	unsigned int event;
	u32 qpn;
	int err;

	if (count == 0 || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';

	qpn_s = strim(buf);
	ev_s = strpbrk(qpn_s, " \t");
	if (!ev_s)
		return -EINVAL;
	*ev_s = '\0';
	ev_s = skip_spaces(ev_s + 1);
	if (kstrtou32(qpn_s, 10, &qpn) || kstrtouint(ev_s, 10, &event))
		return -EINVAL;
	if (qpn > XQP_REFDEV_QPN_LAST || event > IB_EVENT_WQ_FATAL)
		return -EINVAL;

	err = raise(ref, qpn, (enum ib_event_type)event);
	if (err)	/* the event is valid: only the object can be missing */
		return err == -EINVAL ? -ENOENT : err;
	*ppos += count;
	return count;
}

#define REFDEV_RAISE_FOPS(kind)						\
static ssize_t refdev_raise_##kind##_write(struct file *file,		\
					   const char __user *ubuf,	\
					   size_t count, loff_t *ppos)	\
{									\
	return refdev_raise(file, ubuf, count, ppos,			\
			    xqp_refdev_raise_##kind##_event);		\
}									\
static const struct file_operations refdev_raise_##kind##_fops = {	\
	.owner = THIS_MODULE,						\
	.open = simple_open,						\
	.write = refdev_raise_##kind##_write,				\
	.llseek = noop_llseek,						\
}
REFDEV_RAISE_FOPS(qp);
REFDEV_RAISE_FOPS(srq);
REFDEV_RAISE_FOPS(cq);

void xqp_refdev_debugfs_init(void)
{
	refdev_debugfs_root = debugfs_create_dir("xqp_refdev", NULL);
}

void xqp_refdev_debugfs_exit(void)
{
	debugfs_remove(refdev_debugfs_root);
	refdev_debugfs_root = NULL;
}

/*
 * The device's directory, named as ib_core registered it. Failures are not
 * fatal (debugfs may be absent): the suite then reports the event cases as
 * xqp only. A later rename of the device (rdma netlink) does not follow.
 */
static void refdev_debugfs_add(struct xqp_refdev *ref)
{
	ref->debugfs = ERR_PTR(-ENOENT);
	if (IS_ERR_OR_NULL(refdev_debugfs_root))
		return;
	ref->debugfs = debugfs_create_dir(dev_name(&ref->ibdev.dev),
					  refdev_debugfs_root);
	debugfs_create_file("raise_qp_event", 0200, ref->debugfs, ref,
			    &refdev_raise_qp_fops);
	debugfs_create_file("raise_srq_event", 0200, ref->debugfs, ref,
			    &refdev_raise_srq_fops);
	debugfs_create_file("raise_cq_event", 0200, ref->debugfs, ref,
			    &refdev_raise_cq_fops);
}

/* Returns once no write to the hook is running or can start. */
static void refdev_debugfs_del(struct xqp_refdev *ref)
{
	debugfs_remove(ref->debugfs);	/* ignores error pointers */
	ref->debugfs = NULL;
}

/* ---- the device ----------------------------------------------------------- */

static const struct ib_device_ops refdev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,

	.query_device = refdev_query_device,
	.query_port = refdev_query_port,
	.get_port_immutable = refdev_get_port_immutable,
	.get_link_layer = refdev_get_link_layer,
	.query_pkey = refdev_query_pkey,
	.query_gid = refdev_query_gid,
	.alloc_ucontext = refdev_alloc_ucontext,
	.dealloc_ucontext = refdev_dealloc_ucontext,
	.alloc_pd = refdev_alloc_pd,
	.dealloc_pd = refdev_dealloc_pd,
	.alloc_xrcd = refdev_alloc_xrcd,
	.dealloc_xrcd = refdev_dealloc_xrcd,
	.create_cq = refdev_create_cq,
	.destroy_cq = refdev_destroy_cq,
	.create_srq = refdev_create_srq,
	.destroy_srq = refdev_destroy_srq,
	.create_qp = refdev_create_qp,
	.modify_qp = refdev_modify_qp,
	.query_qp = refdev_query_qp,
	.destroy_qp = refdev_destroy_qp,

	INIT_RDMA_OBJ_SIZE(ib_ucontext, refdev_ucontext, ibuc),
	INIT_RDMA_OBJ_SIZE(ib_pd, refdev_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_xrcd, refdev_xrcd, ibxrcd),
	INIT_RDMA_OBJ_SIZE(ib_cq, refdev_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_srq, refdev_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_qp, refdev_qp, ibqp),
};

struct xqp_refdev *xqp_refdev_create(void)
{
	struct xqp_refdev *ref;
	struct ib_device *ibdev;
	u64 instance;
	int err;

	ref = ib_alloc_device(xqp_refdev, ibdev);
	if (!ref)
		return ERR_PTR(-ENOMEM);
	xa_init_flags(&ref->qps, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
	ref->qpn_next = XQP_REFDEV_QPN_FIRST;
	ida_init(&ref->srqns);
	xa_init_flags(&ref->srqs, XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&ref->cqs, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&ref->srq_ids, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);

	ibdev = &ref->ibdev;
	instance = atomic64_inc_return(&refdev_instances);
	strscpy(ibdev->node_desc, "xqp reference device", sizeof(ibdev->node_desc));
	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->node_guid = cpu_to_be64(REFDEV_GUID_BASE | (instance & 0xffffffffULL));
	ibdev->phys_port_cnt = XQP_RULES_PORT_CNT;
	ibdev->num_comp_vectors = 1;
	ibdev->local_dma_lkey = 0;
	ib_set_device_ops(ibdev, &refdev_ops);

	err = ib_register_device(ibdev, "xqp_ref%d", NULL);
	if (err) {
		ida_destroy(&ref->srqns);
		xa_destroy(&ref->srqs);
		xa_destroy(&ref->qps);
		ib_dealloc_device(ibdev);
		return ERR_PTR(err);
	}
	refdev_debugfs_add(ref);
	return ref;
}
EXPORT_SYMBOL_GPL(xqp_refdev_create);

unsigned int xqp_refdev_destroy(struct xqp_refdev *ref)
{
	struct xqp_refdev_counts c;
	unsigned int left;

	if (IS_ERR_OR_NULL(ref))
		return 0;
	/* The hook first: it must not reach a device being torn down. */
	refdev_debugfs_del(ref);
	/* Waits for ib_uverbs to release what its users still hold. */
	ib_unregister_device(&ref->ibdev);

	xqp_refdev_counts(ref, &c);
	left = c.ucontext + c.pd + c.cq + c.xrcd + c.srq + c.qp;
	if (left)
		pr_err("%s: leaking %u ucontexts, %u PDs, %u CQs, %u XRCDs, %u SRQs, %u QPs\n",
		       dev_name(&ref->ibdev.dev), c.ucontext, c.pd, c.cq, c.xrcd,
		       c.srq, c.qp);
	ida_destroy(&ref->srqns);
	xa_destroy(&ref->srqs);
	xa_destroy(&ref->cqs);
	xa_destroy(&ref->srq_ids);
	xa_destroy(&ref->qps);
	ib_dealloc_device(&ref->ibdev);
	return left;
}
EXPORT_SYMBOL_GPL(xqp_refdev_destroy);

struct ib_device *xqp_refdev_ibdev(struct xqp_refdev *ref)
{
	return &ref->ibdev;
}
EXPORT_SYMBOL_GPL(xqp_refdev_ibdev);
