// SPDX-License-Identifier: GPL-2.0
/*
 * Memory windows of the soft device: types 1 and 2B, with rxe's rules
 * (rxe_mw.c; IBA 10.6.7).
 *
 * A window takes its key from the MRs' table (mr.c): index << 8 plus a key
 * byte, which every bind replaces with the one the bind WR names. A type 1
 * window is usable once bound, may be rebound, and a bind of length 0
 * unbinds it; a type 2 window is bound to the QP that binds it (remote
 * accesses must arrive there), once, until LOCAL_INV or a SEND_WITH_INV
 * frees it. A bound window counts in its MR's num_mw, and that MR is not
 * deregistered meanwhile. Everything here is under soft->lock: binds and
 * invalidations (send queue runners, responders) and the lookups of remote
 * accesses (mr.c) see a window whole.
 *
 * A bind WR names its window by index and serial, taken when it is posted:
 * a window freed meanwhile, whose index a new window took, is not bound by
 * the old WR (MW_BIND_ERR).
 */
#include "soft_priv.h"

/* What a window may give (rxe's RXE_ACCESS_SUPPORTED_MW). */
#define SOFT_MW_ACCESS	(XQP_ACCESS_LOCAL_WRITE | XQP_ACCESS_REMOTE_WRITE | \
			 XQP_ACCESS_REMOTE_READ | XQP_ACCESS_REMOTE_ATOMIC | \
			 XQP_ACCESS_MW_BIND | XQP_ACCESS_ZERO_BASED)

struct soft_mw {
	struct soft_keyed k;
	enum xqp_mw_type type;
	xqp_u32 index;			/* in soft->mrns: key >> 8 */
	xqp_u32 serial;			/* never the same twice on a device */
	void *pd;
	struct soft_mr *mr;		/* bound to: counted in mr->num_mw */
	xqp_u64 addr, length;		/* its range: addr 0 if zero-based, */
	xqp_u64 mr_addr;		/*   whose 0 is the MR's address mr_addr */
	int access;
	xqp_u32 qpn;			/* type 2: the QP it is bound to */
	xqp_u8 dead;			/* being freed: no bind takes it */
};

static struct soft_mw *soft_mw_of(struct soft_keyed *k)
{
	return k && k->is_mw ? (struct soft_mw *)k : (struct soft_mw *)0;
}

int soft_alloc_mw(void *drv, void *drv_pd, enum xqp_mw_type type, void **drv_mw,
		  xqp_u32 *rkey)
{
	struct xqp_soft *soft = drv;
	struct soft_mw *mw;
	unsigned long flags;
	xqp_u32 index;
	int err;

	err = soft_enter_obj(soft, XQP_SOFT_OP_ALLOC_MW, drv_pd);
	if (err)
		return err;
	mw = xqp_zalloc(sizeof(*mw), XQP_GFP_KERNEL_ACCOUNT);
	if (!mw)
		return -XQP_ENOMEM;
	mw->k.obj.soft = soft;
	mw->k.is_mw = 1;
	mw->type = type;
	mw->pd = drv_pd;
	mw->serial = __atomic_add_fetch(&soft->mw_serial, 1, __ATOMIC_RELAXED);
	err = soft_numtab_insert(soft, &soft->mrns, &soft->counts.mw, soft->lim.max_mw,
				 mw, &index);
	if (err) {
		xqp_free(mw);
		return err;
	}
	/* (key 0 until here: no lookup of a key with this index matched it) */
	flags = xqp_spin_lock_irqsave(&soft->lock);
	mw->index = index;
	mw->k.key = soft_key_make(soft, index);
	*rkey = mw->k.key;
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
	*drv_mw = mw;
	return 0;
}

/* Unbinds @mw from its MR (and a type 2 window from its QP). soft->lock. */
static void soft_mw_unbind(struct soft_mw *mw)
{
	if (mw->mr)
		mw->mr->num_mw--;
	mw->mr = (struct soft_mr *)0;
	mw->addr = 0;
	mw->length = 0;
	mw->mr_addr = 0;
	mw->access = 0;
	mw->qpn = 0;
}

int soft_dealloc_mw(void *drv, void *drv_mw)
{
	struct xqp_soft *soft = drv;
	struct soft_mw *mw = drv_mw;
	unsigned long flags;
	int err;

	err = soft_enter_obj(soft, XQP_SOFT_OP_DEALLOC_MW, mw);
	if (err)
		return err;
	/* unbound and dead at once: a bind running meanwhile binds nothing */
	flags = xqp_spin_lock_irqsave(&soft->lock);
	soft_mw_unbind(mw);
	mw->dead = 1;
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
	/* remote accesses hold its MR, not the window: nothing to wait for */
	soft_numtab_delete(soft, &soft->mrns, &soft->counts.mw, mw->index);
	xqp_free(mw);
	return 0;
}

struct soft_mr *soft_mw_target(struct soft_keyed *k, void *pd, xqp_u32 qpn,
			       xqp_u64 *addr, xqp_u32 len, int access)
{
	struct soft_mw *mw = soft_mw_of(k);

	if (!mw || !mw->mr || mw->pd != pd || (mw->access & access) != access ||
	    (mw->type == XQP_MW_TYPE_2 && mw->qpn != qpn))
		return (struct soft_mr *)0;
	if (*addr < mw->addr || len > mw->length || *addr - mw->addr > mw->length - len)
		return (struct soft_mr *)0;
	*addr += mw->mr_addr;
	return mw->mr;
}

/* IBA 10.6.7.2 / rxe_check_bind_mw(): may @w bind @mw to @mr on @qp? */
static int soft_mw_bind_ok(const struct soft_qp *qp, const struct soft_swqe *w,
			   const struct soft_mw *mw, const struct soft_mr *mr)
{
	int access = (int)w->bind_access;

	if (access & ~SOFT_MW_ACCESS)
		return 0;
	if (mw->type == XQP_MW_TYPE_1 && (access & XQP_ACCESS_ZERO_BASED))
		return 0;	/* o10-36.2.2 */
	if (mw->type == XQP_MW_TYPE_2 && (mw->mr || !mr))
		return 0;	/* o10-37.2.30, o10-37.2.40: free, and to an MR */
	if (mw->pd != qp->pd)
		return 0;	/* C10-72 */
	if (!mr)
		return 1;	/* type 1, length 0: an unbind */
	if (mr->pd != qp->pd || !(mr->access & XQP_ACCESS_MW_BIND))
		return 0;	/* C10-73 */
	if ((access & (XQP_ACCESS_REMOTE_WRITE | XQP_ACCESS_REMOTE_ATOMIC)) &&
	    !(mr->access & XQP_ACCESS_LOCAL_WRITE))
		return 0;	/* C10-74 */
	/* C10-75: inside the MR (a zero-based window's offset 0 is remote_addr) */
	return w->remote_addr >= mr->iova && w->bind_len <= mr->length &&
	       w->remote_addr - mr->iova <= mr->length - w->bind_len;
}

int soft_mw_bind_post(struct soft_qp *qp, struct soft_swqe *w, const struct xqp_send_wr *wr)
{
	struct soft_mw *mw = wr->wr.bind.mw ? xqp_mw_drv(wr->wr.bind.mw) : (void *)0;

	if (!mw || mw->k.obj.soft != qp->obj.soft)
		return -XQP_EINVAL;
	w->bind_mw = mw->index;
	w->bind_serial = mw->serial;
	w->bind_lkey = wr->wr.bind.mr_lkey;
	w->bind_access = (xqp_u32)wr->wr.bind.access;
	w->bind_len = wr->wr.bind.length;
	w->remote_addr = wr->wr.bind.addr;
	w->rkey = wr->wr.bind.rkey;
	return 0;
}

static int soft_mw_bind(struct soft_qp *qp, const struct soft_swqe *w)
{
	struct xqp_soft *soft = qp->obj.soft;
	struct soft_mr *mr = (struct soft_mr *)0;
	struct soft_mw *mw;
	unsigned long flags;
	int ok;

	flags = xqp_spin_lock_irqsave(&soft->lock);
	mw = soft_mw_of(soft_numtab_lookup(&soft->mrns, w->bind_mw));
	if (mw && (mw->serial != w->bind_serial || mw->dead))
		mw = (struct soft_mw *)0;	/* freed since the post, or being freed */
	if (w->bind_len)
		mr = soft_mr_find(soft, w->bind_lkey);
	ok = mw && (mr || !w->bind_len) && soft_mw_bind_ok(qp, w, mw, mr);
	if (ok) {
		soft_mw_unbind(mw);
		mw->k.key = (mw->k.key & ~0xffU) | (w->rkey & 0xff);
		if (mr) {
			mr->num_mw++;
			mw->mr = mr;
			mw->access = (int)w->bind_access;
			mw->length = w->bind_len;
			if (w->bind_access & XQP_ACCESS_ZERO_BASED)
				mw->mr_addr = w->remote_addr;
			else
				mw->addr = w->remote_addr;
			if (mw->type == XQP_MW_TYPE_2)
				mw->qpn = qp->qp_num;
		}
	}
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
	return ok ? XQP_WC_SUCCESS : XQP_WC_MW_BIND_ERR;
}

int soft_mw_invalidate(struct xqp_soft *soft, void *pd, xqp_u32 qpn, xqp_u32 rkey)
{
	struct soft_mw *mw;
	unsigned long flags;
	int err = -XQP_EINVAL;

	flags = xqp_spin_lock_irqsave(&soft->lock);
	mw = soft_mw_of(soft_keyed_find(soft, rkey));
	/* o10-37.2.26: type 2 only; bound, of this PD (and QP, remotely) */
	if (mw && mw->type == XQP_MW_TYPE_2 && mw->mr && mw->pd == pd &&
	    (qpn == SOFT_ANY_QPN || mw->qpn == qpn)) {
		soft_mw_unbind(mw);
		err = 0;
	}
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
	return err;
}

int soft_mw_local_op(struct soft_qp *qp, const struct soft_swqe *w)
{
	if (w->opcode == XQP_WR_BIND_MW)
		return soft_mw_bind(qp, w);
	return soft_mw_invalidate(qp->obj.soft, qp->pd, SOFT_ANY_QPN, w->imm_data) ?
	       XQP_WC_LOC_QP_OP_ERR : XQP_WC_SUCCESS;
}
