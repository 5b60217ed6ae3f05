// SPDX-License-Identifier: GPL-2.0
/*
 * Work queues of the soft device: the rings behind a QP's send and receive
 * queues and an SRQ, and posting to them. A ring holds fixed-size WQEs (a
 * send WQE is struct soft_swqe followed by max(max_send_sge SGEs,
 * max_inline_data bytes); a receive WQE is struct soft_rwqe followed by the
 * queue's max_sge SGEs) under the ring's own spinlock (XQP_LOCK_SOFT_WQ,
 * never held with another soft lock). Posting checks and copies each WR in
 * order and stops at the first it refuses, as Linux providers do; what is
 * posted stays posted. exec.c consumes the send queues.
 */
#include "soft_priv.h"

int soft_ring_init(struct soft_ring *r, xqp_u32 slots, xqp_u32 entry_size)
{
	xqp_spin_init(&r->lock, XQP_LOCK_SOFT_WQ);
	r->entry_size = entry_size;
	r->slots = slots;
	r->head = 0;
	r->count = 0;
	r->buf = NULL;
	if (!slots)
		return 0;
	r->buf = xqp_kvzalloc((xqp_size_t)slots * entry_size);
	return r->buf ? 0 : -XQP_ENOMEM;
}

void soft_ring_free(struct soft_ring *r)
{
	xqp_kvfree(r->buf);
	r->buf = NULL;
	r->slots = 0;
}

static xqp_u32 soft_rwqe_size(xqp_u32 max_sge)
{
	return sizeof(struct soft_rwqe) + max_sge * sizeof(struct xqp_sge);
}

/* Bytes of payload after a struct soft_swqe: the SGEs or the inline data. */
static xqp_u32 soft_swqe_payload(const struct xqp_qp_cap *cap)
{
	xqp_u32 sges = (cap->max_send_sge ? cap->max_send_sge : 1) * SOFT_SGE_SIZE;

	return sges > cap->max_inline_data ? sges : cap->max_inline_data;
}

/* The most SGEs a receive WQE of any queue of @soft can hold. */
static int soft_qp_has_sq(const struct soft_qp *qp)
{
	return qp->type != XQP_QPT_XRC_TGT;
}

static int soft_qp_has_rq(const struct soft_qp *qp)
{
	return !qp->srq && qp->type != XQP_QPT_XRC_TGT && qp->type != XQP_QPT_XRC_INI;
}

/**
 * soft_qp_queues_init - the rings and runner scratch a new QP needs.
 * @qp: the QP, with type, srq and granted caps set.
 *
 * Context: may sleep.
 * Return: 0 or -ENOMEM (nothing left allocated).
 */
int soft_qp_queues_init(struct soft_qp *qp)
{
	const struct xqp_qp_cap *cap = &qp->attr.cap;
	xqp_u32 swqe = sizeof(struct soft_swqe) + soft_swqe_payload(cap);
	/* the receive WQEs it takes are other devices', of any of their sizes */
	xqp_u32 rsge = XQP_RULES_MAX_SGE;
	int err;

	err = soft_ring_init(&qp->sq, soft_qp_has_sq(qp) ? cap->max_send_wr : 0, swqe);
	if (err)
		goto err;
	err = soft_ring_init(&qp->rq, soft_qp_has_rq(qp) ? cap->max_recv_wr : 0,
			     soft_rwqe_size(cap->max_recv_sge));
	if (err)
		goto err_sq;
	if (!soft_qp_has_sq(qp))
		return 0;
	err = -XQP_ENOMEM;
	qp->cur = xqp_zalloc(swqe, XQP_GFP_KERNEL_ACCOUNT);
	if (!qp->cur)
		goto err_rq;
	qp->rscratch = xqp_zalloc(soft_rwqe_size(rsge), XQP_GFP_KERNEL_ACCOUNT);
	if (!qp->rscratch)
		goto err_cur;
	qp->lseg = xqp_zalloc((cap->max_send_sge + 1) * sizeof(*qp->lseg), XQP_GFP_KERNEL_ACCOUNT);
	if (!qp->lseg)
		goto err_rscratch;
	qp->rseg = xqp_zalloc((rsge + 1) * sizeof(*qp->rseg), XQP_GFP_KERNEL_ACCOUNT);
	if (!qp->rseg)
		goto err_lseg;
	soft_exec_init(qp);
	return 0;

err_lseg:
	xqp_free(qp->lseg);
err_rscratch:
	xqp_free(qp->rscratch);
err_cur:
	xqp_free(qp->cur);
err_rq:
	soft_ring_free(&qp->rq);
err_sq:
	soft_ring_free(&qp->sq);
err:
	return err;
}

void soft_qp_queues_fini(struct soft_qp *qp)
{
	xqp_free(qp->rseg);
	xqp_free(qp->lseg);
	xqp_free(qp->rscratch);
	xqp_free(qp->cur);
	soft_ring_free(&qp->rq);
	soft_ring_free(&qp->sq);
}

int soft_srq_ring_init(struct soft_srq *srq)
{
	return soft_ring_init(&srq->ring, srq->attr.max_wr,
			      soft_rwqe_size(srq->attr.max_sge));
}

/* ---- send ------------------------------------------------------------------ */

/* 0 if a QP of @type executes @opcode; -XQP_EOPNOTSUPP for an IB opcode
 * the device does not execute, -XQP_EINVAL for one invalid on @type (as
 * rxe: READ on UC, RDMA on UD) or no IB opcode at all. */
static int soft_opcode_check(enum xqp_qp_type type, int opcode)
{
	switch (opcode) {
	case XQP_WR_SEND:
	case XQP_WR_SEND_WITH_IMM:
		return 0;
	case XQP_WR_RDMA_WRITE:
	case XQP_WR_RDMA_WRITE_WITH_IMM:
		return !soft_is_ud(type) ? 0 : -XQP_EINVAL;
	case XQP_WR_RDMA_READ:
	case XQP_WR_ATOMIC_CMP_AND_SWP:
	case XQP_WR_ATOMIC_FETCH_AND_ADD:
	case XQP_WR_SEND_WITH_INV:	/* IBA: RC and XRC only */
		return type == XQP_QPT_RC || type == XQP_QPT_XRC_INI ? 0 : -XQP_EINVAL;
	case XQP_WR_BIND_MW:
	case XQP_WR_LOCAL_INV:
		return !soft_is_ud(type) ? 0 : -XQP_EINVAL;
	}
	if (opcode >= XQP_WR_LOCAL_INV && opcode <= XQP_WR_ATOMIC_WRITE)
		return -XQP_EOPNOTSUPP;
	return -XQP_EINVAL;
}

/* Copies the SGEs, or with XQP_SEND_INLINE the data they point at. */
static int soft_swqe_data(const struct xqp_qp_cap *cap, struct soft_swqe *w,
			  const struct xqp_send_wr *wr)
{
	xqp_u64 total = 0;
	int i;

	if (wr->num_sge < 0)
		return -XQP_EINVAL;
	if (soft_is_local_op(wr->opcode)) {	/* no data: SGEs not looked at */
		w->num_sge = 0;
		w->length = 0;
		return 0;
	}
	for (i = 0; i < wr->num_sge; i++)
		total += wr->sg_list[i].length;
	if (total > SOFT_MAX_MSG_SZ)
		return -XQP_EINVAL;
	w->length = (xqp_u32)total;
	if (!(wr->send_flags & XQP_SEND_INLINE)) {
		if ((xqp_u32)wr->num_sge > cap->max_send_sge)
			return -XQP_EINVAL;
		w->num_sge = (xqp_u32)wr->num_sge;
		for (i = 0; i < wr->num_sge; i++)
			w->sge[i] = wr->sg_list[i];
		return 0;
	}
	if (total > cap->max_inline_data || wr->opcode == XQP_WR_RDMA_READ ||
	    soft_is_atomic(wr->opcode))
		return -XQP_EINVAL;
	w->num_sge = 0;
	total = 0;
	for (i = 0; i < wr->num_sge; i++) {
		__builtin_memcpy(w->inline_data + total,
				 (const void *)(xqp_uintptr_t)wr->sg_list[i].addr,
				 wr->sg_list[i].length);
		total += wr->sg_list[i].length;
	}
	return 0;
}

/* Checks @wr and writes it into the free slot @w. */
static int soft_swqe_fill(struct soft_qp *qp, struct soft_swqe *w,
			  const struct xqp_send_wr *wr)
{
	int err = soft_opcode_check(qp->type, wr->opcode);

	if (err)
		return err;
	if (wr->send_flags & ~(XQP_SEND_FENCE | XQP_SEND_SIGNALED |
			       XQP_SEND_SOLICITED | XQP_SEND_INLINE))
		return -XQP_EINVAL;
	err = soft_swqe_data(&qp->attr.cap, w, wr);
	if (err)
		return err;
	if (soft_is_atomic(wr->opcode) && (w->num_sge != 1 || w->length < 8))
		return -XQP_EINVAL;
	w->wr_id = wr->wr_id;
	w->opcode = (xqp_u32)wr->opcode;
	w->send_flags = (xqp_u32)wr->send_flags;
	w->imm_data = wr->imm_data;
	w->xrc_srqn = wr->xrc_remote_srq_num;
	w->wire_got = 0;	/* on the wire: no response packet taken yet */
	if (soft_is_atomic(wr->opcode)) {
		w->remote_addr = wr->wr.atomic.remote_addr;
		w->compare_add = wr->wr.atomic.compare_add;
		w->swap = wr->wr.atomic.swap;
		w->rkey = wr->wr.atomic.rkey;
	} else if (wr->opcode == XQP_WR_BIND_MW) {
		return soft_mw_bind_post(qp, w, wr);
	} else if (soft_is_ud(qp->type)) {
		if (!wr->wr.ud.ah || xqp_ah_drv_pd(wr->wr.ud.ah) != qp->pd)
			return -XQP_EINVAL;
		w->ud_av = *xqp_ah_get_attr(wr->wr.ud.ah);
		w->ud_qpn = wr->wr.ud.remote_qpn & SOFT_NUM_MASK;
		w->ud_qkey = wr->wr.ud.remote_qkey;
	} else {
		w->remote_addr = wr->wr.rdma.remote_addr;
		w->rkey = wr->wr.rdma.rkey;
	}
	return 0;
}

int soft_post_send(void *drv, void *drv_qp, const struct xqp_send_wr *wr,
		   const struct xqp_send_wr **bad_wr)
{
	struct soft_qp *qp = drv_qp;
	struct soft_ring *sq = &qp->sq;
	unsigned long flags;
	int state, err;

	err = soft_enter_data_path(drv, XQP_SOFT_OP_POST_SEND);
	if (err) {
		*bad_wr = wr;	/* nothing queued */
		return err;
	}
	if (!soft_owns(drv, qp)) {
		*bad_wr = wr;	/* another device's QP: nothing queued */
		return -XQP_EINVAL;
	}
	state = __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE);
	if (state < XQP_QPS_RTS) {
		*bad_wr = wr;
		return -XQP_EINVAL;
	}
	flags = xqp_spin_lock_irqsave(&sq->lock);
	for (; wr; wr = wr->next) {
		if (sq->count == sq->slots) {
			err = -XQP_ENOMEM;
			break;
		}
		err = soft_swqe_fill(qp, soft_ring_at(sq, sq->head + sq->count), wr);
		if (err)
			break;
		sq->count++;
	}
	xqp_spin_unlock_irqrestore(&sq->lock, flags);
	if (err)
		*bad_wr = wr;
	soft_sq_kick(qp);
	return err;
}

/* ---- receive ----------------------------------------------------------------- */

/* Posts @wr onto @ring of WQEs with @max_sge SGEs. Caller holds ring->lock. */
static int soft_rwqe_post(struct soft_ring *ring, xqp_u32 max_sge,
			  const struct xqp_recv_wr *wr)
{
	struct soft_rwqe *w;
	int i;

	if (wr->num_sge < 0 || (xqp_u32)wr->num_sge > max_sge)
		return -XQP_EINVAL;
	if (ring->count == ring->slots)
		return -XQP_ENOMEM;
	w = soft_ring_at(ring, ring->head + ring->count);
	w->wr_id = wr->wr_id;
	w->num_sge = (xqp_u32)wr->num_sge;
	for (i = 0; i < wr->num_sge; i++)
		w->sge[i] = wr->sg_list[i];
	ring->count++;
	return 0;
}

static int soft_post_ring(struct soft_ring *ring, xqp_u32 max_sge,
			  const struct xqp_recv_wr *wr,
			  const struct xqp_recv_wr **bad_wr)
{
	unsigned long flags;
	int err = 0;

	flags = xqp_spin_lock_irqsave(&ring->lock);
	for (; wr; wr = wr->next) {
		err = soft_rwqe_post(ring, max_sge, wr);
		if (err)
			break;
	}
	xqp_spin_unlock_irqrestore(&ring->lock, flags);
	if (err)
		*bad_wr = wr;
	return err;
}

int soft_post_recv(void *drv, void *drv_qp, const struct xqp_recv_wr *wr,
		   const struct xqp_recv_wr **bad_wr)
{
	struct soft_qp *qp = drv_qp;
	int state, err;

	err = soft_enter_data_path(drv, XQP_SOFT_OP_POST_RECV);
	if (err) {
		*bad_wr = wr;	/* nothing queued */
		return err;
	}
	if (!soft_owns(drv, qp)) {
		*bad_wr = wr;	/* another device's QP: nothing queued */
		return -XQP_EINVAL;
	}
	state = __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE);
	if (state == XQP_QPS_RESET || !soft_qp_has_rq(qp)) {
		*bad_wr = wr;
		return -XQP_EINVAL;
	}
	err = soft_post_ring(&qp->rq, qp->attr.cap.max_recv_sge, wr, bad_wr);
	if (__atomic_load_n(&qp->state, __ATOMIC_ACQUIRE) == XQP_QPS_ERR)
		soft_flush_rq(qp);
	return err;
}

int soft_post_srq_recv(void *drv, void *drv_srq, const struct xqp_recv_wr *wr,
		       const struct xqp_recv_wr **bad_wr)
{
	struct soft_srq *srq = drv_srq;
	int err;

	err = soft_enter_data_path(drv, XQP_SOFT_OP_POST_SRQ_RECV);
	if (err) {
		*bad_wr = wr;	/* nothing queued */
		return err;
	}
	if (!soft_owns(drv, srq)) {
		*bad_wr = wr;	/* another device's SRQ: nothing queued */
		return -XQP_EINVAL;
	}
	return soft_post_ring(&srq->ring, srq->attr.max_sge, wr, bad_wr);
}

/**
 * soft_take_recv - take the oldest receive WQE of a QP's RQ or an SRQ.
 * @qp: the receiving QP (its RQ when @srq is NULL).
 * @srq: the SRQ to take from, or NULL.
 * @out: filled with the WQE (room for the queue's max_sge SGEs).
 *
 * Taking an SRQ below its armed limit disarms it and reports
 * XQP_EVENT_SRQ_LIMIT_REACHED.
 *
 * Context: any.
 * Return: 1, or 0 when the queue is empty.
 */
int soft_take_recv(struct soft_qp *qp, struct soft_srq *srq, struct soft_rwqe *out)
{
	struct soft_ring *ring = srq ? &srq->ring : &qp->rq;
	const struct soft_rwqe *w;
	unsigned long flags;
	int limit = 0;

	flags = xqp_spin_lock_irqsave(&ring->lock);
	if (!ring->count) {
		xqp_spin_unlock_irqrestore(&ring->lock, flags);
		return 0;
	}
	w = soft_ring_at(ring, ring->head);
	__builtin_memcpy(out, w, sizeof(*w) + w->num_sge * sizeof(w->sge[0]));
	soft_ring_pop(ring);
	if (srq && srq->attr.srq_limit && ring->count < srq->attr.srq_limit) {
		srq->attr.srq_limit = 0;
		limit = 1;
	}
	xqp_spin_unlock_irqrestore(&ring->lock, flags);
	if (limit && srq->core_srq)
		xqp_srq_event(srq->core_srq, XQP_EVENT_SRQ_LIMIT_REACHED);
	return 1;
}

/* Takes only the wr_id of the oldest receive WQE of @qp's RQ: 1, or 0. */
static int soft_rq_take_id(struct soft_qp *qp, xqp_u64 *wr_id)
{
	struct soft_ring *rq = &qp->rq;
	unsigned long flags;
	int taken = 0;

	flags = xqp_spin_lock_irqsave(&rq->lock);
	if (rq->count) {
		*wr_id = ((struct soft_rwqe *)soft_ring_at(rq, rq->head))->wr_id;
		soft_ring_pop(rq);
		taken = 1;
	}
	xqp_spin_unlock_irqrestore(&rq->lock, flags);
	return taken;
}

/**
 * soft_flush_rq - complete every receive WQE of a QP in ERR with WR_FLUSH_ERR.
 * @qp: the QP (its own RQ; an SRQ's WQEs belong to the SRQ and stay).
 *
 * Context: any.
 */
void soft_flush_rq(struct soft_qp *qp)
{
	struct xqp_wc wc = {
		.status = XQP_WC_WR_FLUSH_ERR,
		.opcode = XQP_WC_RECV,
		.qp_num = qp->qp_num,
		.port_num = 1,
	};

	while (soft_rq_take_id(qp, &wc.wr_id))
		soft_cq_post(qp->recv_cq, &wc, 0);
}

/**
 * soft_qp_reset_queues - empty both queues without completions (to RESET).
 * @qp: the QP.
 *
 * A WQE the runner executes meanwhile is dropped when it finishes
 * (sq_gen changed). A head that waited out a retry or RNR timer is gone
 * with its timer: the delayed run is brought forward (it finds nothing to
 * do), else it would hold back every later kick, which a queued delayed
 * work takes for itself, until the old timer fired.
 *
 * Context: any.
 */
void soft_qp_reset_queues(struct soft_qp *qp)
{
	unsigned long flags;
	int waited;

	flags = xqp_spin_lock_irqsave(&qp->sq.lock);
	qp->sq.count = 0;
	qp->sq_gen++;
	waited = qp->head_wait;
	qp->head_wait = 0;
	qp->drain_pending = 0;
	if (!qp->sq_running) {	/* else the runner sees sq_gen and does it */
		qp->head_started = 0;
		qp->rnr_left = -1;
		qp->retry_left = -1;
	}
	xqp_spin_unlock_irqrestore(&qp->sq.lock, flags);
	if (waited)
		xqp_work_expedite(&qp->work);
	flags = xqp_spin_lock_irqsave(&qp->rq.lock);
	qp->rq.count = 0;
	xqp_spin_unlock_irqrestore(&qp->rq.lock, flags);
}

/* ---- SRQ attributes -------------------------------------------------------- */

/*
 * Moves @srq's WQEs into a ring of @slots entries and, with @set_limit,
 * arms @limit with it. Refused (-EINVAL, nothing changed) when the WQEs
 * posted or the limit that would be armed (the new one, else the one
 * armed now) do not fit.
 */
static int soft_srq_resize(struct soft_srq *srq, xqp_u32 slots, int set_limit, xqp_u32 limit)
{
	struct soft_ring *r = &srq->ring;
	char *buf, *old;
	unsigned long flags;
	xqp_u32 i;
	int err = 0;

	buf = xqp_kvzalloc((xqp_size_t)slots * r->entry_size);
	if (!buf)
		return -XQP_ENOMEM;
	flags = xqp_spin_lock_irqsave(&r->lock);
	if (!set_limit)
		limit = srq->attr.srq_limit;
	if (r->count > slots || limit > slots) {
		err = -XQP_EINVAL;
		old = buf;
	} else {
		for (i = 0; i < r->count; i++)
			__builtin_memcpy(buf + (xqp_size_t)i * r->entry_size,
					 soft_ring_at(r, r->head + i), r->entry_size);
		old = r->buf;
		r->buf = buf;
		r->head = 0;
		r->slots = slots;
		srq->attr.max_wr = slots;
		srq->attr.srq_limit = limit;
	}
	xqp_spin_unlock_irqrestore(&r->lock, flags);
	xqp_kvfree(old);
	return err;
}

/*
 * A failed call changes nothing: with both bits, the limit is checked
 * against the new size before the SRQ is resized, and armed with it.
 */
int soft_modify_srq(void *drv, void *drv_srq, struct xqp_srq_attr *attr, int mask)
{
	struct xqp_soft *soft = drv;
	struct soft_srq *srq = drv_srq;
	unsigned long flags;
	int err;

	err = soft_enter_obj(soft, XQP_SOFT_OP_MODIFY_SRQ, srq);
	if (err)
		return err;	/* the SRQ as it was, @attr untouched */
	if (mask & XQP_SRQ_MAX_WR) {
		if (!xqp_rules_srq_ok(&soft->lim, attr->max_wr, 0))
			return -XQP_EINVAL;
		err = soft_srq_resize(srq, xqp_rules_grant_wr(attr->max_wr,
							      soft->lim.max_srq_wr),
				      mask & XQP_SRQ_LIMIT, attr->srq_limit);
		if (err)
			return err;
	} else if (mask & XQP_SRQ_LIMIT) {
		flags = xqp_spin_lock_irqsave(&srq->ring.lock);
		if (attr->srq_limit > srq->attr.max_wr)
			err = -XQP_EINVAL;
		else
			srq->attr.srq_limit = attr->srq_limit;
		xqp_spin_unlock_irqrestore(&srq->ring.lock, flags);
		if (err)
			return err;
	}
	flags = xqp_spin_lock_irqsave(&srq->ring.lock);
	attr->max_wr = srq->attr.max_wr;
	xqp_spin_unlock_irqrestore(&srq->ring.lock, flags);
	return 0;
}

int soft_query_srq(void *drv, void *drv_srq, struct xqp_srq_attr *attr)
{
	struct soft_srq *srq = drv_srq;
	unsigned long flags;
	int err;

	err = soft_enter(drv, XQP_SOFT_OP_QUERY_SRQ);
	if (err)
		return err;
	if (!soft_owns(drv, srq))
		return -XQP_EINVAL;
	flags = xqp_spin_lock_irqsave(&srq->ring.lock);
	*attr = srq->attr;
	xqp_spin_unlock_irqrestore(&srq->ring.lock, flags);
	return 0;
}
