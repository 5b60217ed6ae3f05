// SPDX-License-Identifier: GPL-2.0
/*
 * The responder on the wire: requests from outside this kernel to a linked
 * device's QPs, taken in the UDP socket's receive context (softirq) under
 * the QP's responder lock, one packet at a time (IBA 9.7.5, as rxe_resp.c).
 *
 * A connected QP takes the PSN it expects; an earlier one is a duplicate
 * (a SEND or WRITE is acknowledged again, a READ executed again from the
 * PSN asked, an atomic's saved result sent again); a later one is NAKed
 * once with a sequence error (RC, XRC) or, on UC, starts a new message
 * from its first packet, the partial one dropped. What the packet asks for
 * is answered after the lock is dropped (no packet leaves with a lock
 * held): an ACK when the requester asked for one, a NAK, an atomic's ACK,
 * and a READ's response packets: SOFT_WIRE_READ_INLINE of them here, the
 * rest from the responder's work item; requests that come meanwhile are
 * dropped and counted (the requester sends them again).
 */
#include "soft_priv.h"

#define SOFT_WIRE_READ_INLINE	16	/* READ response packets sent in softirq */
#define SOFT_WIRE_READ_WORK	64	/* and per work item run */

/* What a packet's processing leaves to send, after the lock. */
struct soft_resp_out {
	xqp_u8 ack;			/* an ACK, NAK or atomic ACK: its opcode */
	xqp_u8 syndrome;
	xqp_u32 psn, msn;
	xqp_u64 orig;
	int read;			/* r->read holds a READ response to send */
	int err_event;			/* >= 0: the QP enters ERR with it */
};

static struct soft_qp *soft_qp_of_resp_work(struct xqp_work *work)
{
	return (struct soft_qp *)((char *)work - __builtin_offsetof(struct soft_qp, rwork));
}

static int soft_qp_state_now(const struct soft_qp *qp)
{
	return __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE);
}

/* The receive completion of r->rwqe. */
static void soft_resp_recv_wc(struct soft_qp *qp, struct soft_cq *cq, int status, int opcode,
			      xqp_u32 byte_len, const struct soft_pkt *p, xqp_u32 src_qp,
			      int flags)
{
	struct xqp_wc wc = {
		.wr_id = qp->wresp->rwqe->wr_id,
		.status = (enum xqp_wc_status)status,
		.opcode = (enum xqp_wc_opcode)opcode,
		.byte_len = status == XQP_WC_SUCCESS ? byte_len : 0,
		.qp_num = qp->qp_num,
		.src_qp = src_qp,
		.wc_flags = flags,
		.port_num = 1,
	};

	if (p->mask & SOFT_OPF_IMMDT) {
		soft_put_be32((xqp_u8 *)&wc.imm_data, p->imm);
		wc.wc_flags |= XQP_WC_WITH_IMM;
	}
	if ((p->mask & SOFT_OPF_IETH) && status == XQP_WC_SUCCESS) {
		wc.invalidate_rkey = p->inv_rkey;
		wc.wc_flags |= XQP_WC_WITH_INVALIDATE;
	}
	soft_cq_post(cq, &wc, p->se);
}

/* ---- UD ------------------------------------------------------------------ */

/* The 40 bytes a UD receive starts with: the IPv6 header, or 20 zeros and the IPv4 one. */
static void soft_resp_grh(const struct soft_rx *rx, xqp_u8 grh[SOFT_GRH_SIZE])
{
	__builtin_memset(grh, 0, SOFT_GRH_SIZE);
	if (rx->ipv6)
		__builtin_memcpy(grh, rx->ip, SOFT_IPV6_BYTES);
	else
		__builtin_memcpy(grh + 20, rx->ip, SOFT_IPV4_BYTES);
}

static void soft_resp_ud(struct soft_qp *qp, struct soft_rx *rx)
{
	struct xqp_soft *soft = qp->obj.soft;
	struct soft_wire_resp *r = qp->wresp;
	struct soft_pkt *p = &rx->pkt;
	struct soft_seg hseg, src;
	xqp_u8 grh[SOFT_GRH_SIZE];
	unsigned long flags;
	xqp_u32 qkey;
	int st;

	flags = xqp_spin_lock_irqsave(&qp->lock);
	qkey = qp->attr.qkey;
	xqp_spin_unlock_irqrestore(&qp->lock, flags);
	if (p->qkey != qkey) {
		SOFT_WIRE_COUNT(soft, rx_bad_qkey);
		return;
	}
	if (p->payload_len > SOFT_UD_MTU || !(p->mask & SOFT_OPF_SEND))
		return;
	flags = xqp_spin_lock_irqsave(&r->lock);
	if (!soft_take_recv(qp, qp->srq, r->rwqe))
		goto out;	/* no receive WQE: UD drops */
	st = soft_recv_range_get(soft, qp->pd, r->rwqe->sge, r->rwqe->num_sge, 0,
				 (xqp_u64)p->payload_len + SOFT_GRH_SIZE, r->seg);
	if (st != XQP_WC_SUCCESS) {
		soft_resp_recv_wc(qp, qp->recv_cq, st, XQP_WC_RECV, 0, p, 0, 0);
		goto out;
	}
	soft_resp_grh(rx, grh);
	hseg = (struct soft_seg){ .buf = (char *)grh, .length = SOFT_GRH_SIZE };
	soft_segs_copy(r->seg, r->rwqe->num_sge, &hseg, 1, SOFT_GRH_SIZE);
	soft_segs_skip(r->seg, r->rwqe->num_sge, SOFT_GRH_SIZE);
	src = (struct soft_seg){ .buf = (char *)rx->payload, .length = p->payload_len };
	soft_segs_copy(r->seg, r->rwqe->num_sge, &src, 1, p->payload_len);
	soft_resp_recv_wc(qp, qp->recv_cq, XQP_WC_SUCCESS, XQP_WC_RECV,
			  p->payload_len + SOFT_GRH_SIZE, p, p->src_qp, XQP_WC_GRH);
	soft_segs_put(r->seg, r->rwqe->num_sge);
out:
	xqp_spin_unlock_irqrestore(&r->lock, flags);
}

/* ---- connected QPs: one packet in sequence ----------------------------------- */

/* The outcome of a request taken in sequence. */
enum soft_resp_outcome {
	SOFT_RESP_OK,			/* taken: the PSN moves on */
	SOFT_RESP_RNR,			/* no receive WQE: RNR NAK, PSN stays */
	SOFT_RESP_DROP,			/* dropped quietly (UC's errors) */
	SOFT_RESP_INVALID,		/* NAK invalid request, QP to ERR */
	SOFT_RESP_ACCESS,		/* NAK remote access error, QP to ERR */
	SOFT_RESP_OPERR,		/* NAK remote operational error, QP to ERR */
};

/* What the responder's QP allows, its PD and where receives go for this message. */
struct soft_resp_ctx {
	struct soft_qp *qp;
	struct soft_rx *rx;
	xqp_u32 access;
	xqp_u32 mtu;
	xqp_u32 max_dest_rd;
	xqp_u32 dest_qp;
	xqp_u8 min_rnr_timer;
	void *pd;
	struct soft_srq *srq;		/* where receives come from, or NULL (RQ) */
	struct soft_cq *recv_cq;
};

/* XRC: the SRQ the request names, in the target's domain (kept for the message). */
static int soft_resp_xrc_srq(struct soft_resp_ctx *c)
{
	struct soft_wire_resp *r = c->qp->wresp;
	struct soft_srq *srq;

	if (!(c->rx->pkt.mask & SOFT_OPF_FIRST) && r->srq) {
		srq = r->srq;
	} else {
		srq = soft_srq_get(c->qp->obj.soft, c->rx->pkt.xrc_srqn & SOFT_NUM_MASK);
		if (!srq)
			return 0;
		if (srq->type != XQP_SRQT_XRC || srq->xrcd != c->qp->xrcd) {
			soft_refs_put(&srq->refs);
			return 0;
		}
		if (r->srq)
			soft_refs_put(&r->srq->refs);
		r->srq = srq;
	}
	c->srq = srq;
	c->pd = srq->pd;
	c->recv_cq = srq->cq;
	return 1;
}

static int soft_resp_route(struct soft_resp_ctx *c)
{
	struct soft_qp *qp = c->qp;

	if (qp->type == XQP_QPT_XRC_TGT)
		return soft_resp_xrc_srq(c);
	c->srq = qp->srq;
	c->pd = qp->pd;
	c->recv_cq = qp->srq && qp->srq->type == XQP_SRQT_XRC ? qp->srq->cq : qp->recv_cq;
	return 1;
}

/* Copies the payload to r->seg's receive SGEs at the message's offset. */
static enum soft_resp_outcome soft_resp_send(struct soft_resp_ctx *c)
{
	struct soft_qp *qp = c->qp;
	struct soft_wire_resp *r = qp->wresp;
	struct soft_pkt *p = &c->rx->pkt;
	struct soft_seg src = { .buf = (char *)c->rx->payload, .length = p->payload_len };
	int rc = qp->type != XQP_QPT_UC, st;

	if (p->mask & SOFT_OPF_FIRST) {
		if (!r->have_rwqe) {
			if (!soft_take_recv(qp, c->srq, r->rwqe))
				return rc ? SOFT_RESP_RNR : SOFT_RESP_DROP;
			r->have_rwqe = 1;
		}
		r->offset = 0;
		r->msg = SOFT_OPF_SEND;
	}
	/* only what this packet writes is looked at (as rxe) */
	st = soft_recv_range_get(qp->obj.soft, c->pd, r->rwqe->sge, r->rwqe->num_sge, r->offset,
				 p->payload_len, r->seg);
	if (st != XQP_WC_SUCCESS) {
		soft_resp_recv_wc(qp, c->recv_cq, st, XQP_WC_RECV, 0, p, c->dest_qp, 0);
		r->have_rwqe = 0;
		r->msg = 0;
		if (!rc)
			return SOFT_RESP_DROP;
		return st == XQP_WC_LOC_LEN_ERR ? SOFT_RESP_INVALID : SOFT_RESP_OPERR;
	}
	soft_segs_copy(r->seg, r->rwqe->num_sge, &src, 1, p->payload_len);
	soft_segs_put(r->seg, r->rwqe->num_sge);
	r->offset += p->payload_len;
	if (!(p->mask & SOFT_OPF_LAST))
		return SOFT_RESP_OK;
	r->have_rwqe = 0;
	r->msg = 0;
	if ((p->mask & SOFT_OPF_IETH) &&
	    soft_mw_invalidate(qp->obj.soft, c->pd, qp->qp_num, p->inv_rkey)) {
		/* rxe's class J: the receive fails, NAK invalid request */
		soft_resp_recv_wc(qp, c->recv_cq, XQP_WC_REM_INV_REQ_ERR, XQP_WC_RECV, 0, p,
				  c->dest_qp, 0);
		return SOFT_RESP_INVALID;
	}
	soft_resp_recv_wc(qp, c->recv_cq, XQP_WC_SUCCESS, XQP_WC_RECV, r->offset, p,
			  c->dest_qp, 0);
	r->msn++;
	return SOFT_RESP_OK;
}

static enum soft_resp_outcome soft_resp_write(struct soft_resp_ctx *c)
{
	struct soft_qp *qp = c->qp;
	struct soft_wire_resp *r = qp->wresp;
	struct soft_pkt *p = &c->rx->pkt;
	struct soft_seg src = { .buf = (char *)c->rx->payload, .length = p->payload_len };
	int rc = qp->type != XQP_QPT_UC;
	struct soft_seg dst;

	if (p->mask & SOFT_OPF_FIRST) {
		if (!(c->access & XQP_ACCESS_REMOTE_WRITE))
			return rc ? SOFT_RESP_ACCESS : SOFT_RESP_DROP;
		r->va = p->va;
		r->rkey = p->rkey;
		r->dma_len = p->dma_len;
		r->offset = 0;
		r->msg = SOFT_OPF_WRITE;
	}
	if ((xqp_u64)r->offset + p->payload_len > r->dma_len) {
		r->msg = 0;
		return rc ? SOFT_RESP_INVALID : SOFT_RESP_DROP;
	}
	if (p->payload_len) {
		if (soft_rkey_get(qp->obj.soft, c->pd, qp->qp_num, r->rkey, r->va + r->offset, p->payload_len,
				  XQP_ACCESS_REMOTE_WRITE, &dst) != XQP_WC_SUCCESS) {
			r->msg = 0;
			return rc ? SOFT_RESP_ACCESS : SOFT_RESP_DROP;
		}
		soft_segs_copy(&dst, 1, &src, 1, p->payload_len);
		soft_segs_put(&dst, 1);
	}
	r->offset += p->payload_len;
	if (!(p->mask & SOFT_OPF_LAST))
		return SOFT_RESP_OK;
	if (r->offset != r->dma_len) {
		r->msg = 0;
		return rc ? SOFT_RESP_INVALID : SOFT_RESP_DROP;
	}
	if (p->mask & SOFT_OPF_IMMDT) {
		if (!r->have_rwqe && !soft_take_recv(qp, c->srq, r->rwqe))
			return rc ? SOFT_RESP_RNR : SOFT_RESP_DROP;	/* data written: retried */
		soft_resp_recv_wc(qp, c->recv_cq, XQP_WC_SUCCESS, XQP_WC_RECV_RDMA_WITH_IMM,
				  r->dma_len, p, c->dest_qp, 0);
		r->have_rwqe = 0;
	}
	r->msg = 0;
	r->msn++;
	return SOFT_RESP_OK;
}

/* Keeps a READ or atomic for its duplicates. */
static struct soft_wire_res *soft_resp_res_new(struct soft_resp_ctx *c)
{
	struct soft_wire_resp *r = c->qp->wresp;
	xqp_u32 n = soft_min(c->max_dest_rd, SOFT_WIRE_MAX_RES);
	struct soft_wire_res *res = &r->res[r->res_next % n];

	r->res_next = (r->res_next + 1) % n;
	*res = (struct soft_wire_res){ .psn = c->rx->pkt.psn };
	return res;
}

/* r->read: @res's response from @psn on (a duplicate asks from inside it). */
static void soft_resp_read_set(struct soft_wire_resp *r, const struct soft_wire_res *res,
			       xqp_u32 psn, xqp_u32 mtu)
{
	xqp_u32 k = (psn - res->psn) & SOFT_PSN_MASK;

	r->read = *res;
	r->read.psn = psn;
	r->read.npsn = res->npsn - k;
	r->read.va = res->va + (xqp_u64)k * mtu;
	r->read.len = res->len > k * mtu ? res->len - k * mtu : 0;
	r->read_next = 0;
}

/*
 * Is a response of @res waiting already? Then a duplicate asking for it
 * again is dropped: a requester that rewinds asks for every READ after
 * the one it lost, again at each retry, and queueing each time streamed
 * the same responses over and over, past its retries.
 */
static int soft_resp_read_waits(const struct soft_wire_resp *r, const struct soft_wire_res *res)
{
	xqp_u32 i;

	for (i = 0; i < r->read_qn; i++)
		if (r->read_q[(r->read_qh + i) % SOFT_WIRE_MAX_RES].slot == res - r->res)
			return 1;
	return 0;
}

/*
 * @res's response from @psn: sent now (o->read), or, while another goes
 * out, after the ones waiting; none past @max waiting (dropped: asked
 * again). A READ asked again from before the response going out means the
 * requester went back (it asks again for everything after it too): what
 * goes out and what waits is dropped, and this one goes out instead.
 */
static void soft_resp_read_start(struct soft_resp_ctx *c, struct soft_resp_out *o,
				 const struct soft_wire_res *res, xqp_u32 psn)
{
	struct soft_wire_resp *r = c->qp->wresp;
	struct soft_wire_rd_wait *q;

	if (!r->busy) {
		soft_resp_read_set(r, res, psn, c->mtu);
		r->busy = 1;
		o->read = 1;
		return;
	}
	if (soft_psn_diff(psn, r->read.psn) & 0x800000) {
		soft_resp_read_set(r, res, psn, c->mtu);	/* the sender takes it */
		__atomic_store_n(&r->read_gen, r->read_gen + 1, __ATOMIC_RELAXED);
		r->read_qn = 0;
		return;
	}
	if (r->read_qn >= soft_min(c->max_dest_rd, SOFT_WIRE_MAX_RES) ||
	    soft_resp_read_waits(r, res)) {
		SOFT_WIRE_COUNT(c->qp->obj.soft, rx_busy);
		return;
	}
	q = &r->read_q[(r->read_qh + r->read_qn) % SOFT_WIRE_MAX_RES];
	q->psn = psn;
	q->slot = (xqp_u8)(res - r->res);
	r->read_qn++;
}

static enum soft_resp_outcome soft_resp_read(struct soft_resp_ctx *c, struct soft_resp_out *o)
{
	struct soft_wire_resp *r = c->qp->wresp;
	struct soft_pkt *p = &c->rx->pkt;
	struct soft_wire_res *res;
	struct soft_seg seg;

	if (!c->max_dest_rd)
		return SOFT_RESP_INVALID;	/* as rxe's check_resource() */
	if (!(c->access & XQP_ACCESS_REMOTE_READ))
		return SOFT_RESP_ACCESS;
	if (p->dma_len) {
		if (soft_rkey_get(c->qp->obj.soft, c->pd, c->qp->qp_num, p->rkey, p->va, p->dma_len,
				  XQP_ACCESS_REMOTE_READ, &seg) != XQP_WC_SUCCESS)
			return SOFT_RESP_ACCESS;
		soft_segs_put(&seg, 1);
	}
	res = soft_resp_res_new(c);
	res->kind = SOFT_OPF_READ;
	res->npsn = p->dma_len ? (p->dma_len + c->mtu - 1) / c->mtu : 1;
	res->va = p->va;
	res->rkey = p->rkey;
	res->len = p->dma_len;
	res->pd = c->pd;
	res->msn = ++r->msn;
	r->epsn = (r->epsn + res->npsn - 1) & SOFT_PSN_MASK;	/* the caller adds one */
	soft_resp_read_start(c, o, res, res->psn);
	return SOFT_RESP_OK;
}

static enum soft_resp_outcome soft_resp_atomic(struct soft_resp_ctx *c, struct soft_resp_out *o)
{
	struct soft_pkt *p = &c->rx->pkt;
	struct soft_wire_res *res;
	struct soft_seg seg;
	xqp_u64 old = 0;
	int err, cmp;

	if (!c->max_dest_rd || (p->va & 7))
		return SOFT_RESP_INVALID;
	if (!(c->access & XQP_ACCESS_REMOTE_ATOMIC) ||
	    soft_rkey_get(c->qp->obj.soft, c->pd, c->qp->qp_num, p->rkey, p->va, 8, XQP_ACCESS_REMOTE_ATOMIC,
			  &seg) != XQP_WC_SUCCESS)
		return SOFT_RESP_ACCESS;
	cmp = (p->opcode & 0x1f) == SOFT_OP_COMPARE_SWAP;
	err = soft_seg_atomic(&seg, cmp, cmp ? p->compare : p->swap_add, p->swap_add, &old);
	soft_segs_put(&seg, 1);
	if (err)
		return SOFT_RESP_INVALID;
	res = soft_resp_res_new(c);
	res->kind = SOFT_OPF_ATOMIC;
	res->npsn = 1;
	res->orig = old;
	c->qp->wresp->msn++;
	o->ack = SOFT_OP_ATOMIC_ACKNOWLEDGE;
	o->orig = old;
	return SOFT_RESP_OK;
}

/* Is @op (a request's operation) allowed now: inside a message, or between? */
static int soft_resp_in_order(const struct soft_wire_resp *r, xqp_u32 mask)
{
	if (r->msg)	/* a message goes on: its middle or last, nothing else */
		return (mask & r->msg) && !(mask & SOFT_OPF_FIRST);
	return !!(mask & (SOFT_OPF_FIRST | SOFT_OPF_READ | SOFT_OPF_ATOMIC));
}

/* A request in sequence: what it came to. */
static enum soft_resp_outcome soft_resp_take(struct soft_resp_ctx *c, struct soft_resp_out *o)
{
	struct soft_pkt *p = &c->rx->pkt;
	xqp_u32 m = p->mask;
	int rc = c->qp->type != XQP_QPT_UC;

	if (!soft_resp_in_order(c->qp->wresp, m) ||
	    p->payload_len > c->mtu ||
	    ((m & SOFT_OPF_PAYLOAD) && !(m & SOFT_OPF_LAST) && p->payload_len != c->mtu))
		return rc ? SOFT_RESP_INVALID : SOFT_RESP_DROP;
	if (!soft_resp_route(c))
		return rc ? SOFT_RESP_INVALID : SOFT_RESP_DROP;
	if (m & SOFT_OPF_SEND)
		return soft_resp_send(c);
	if (m & SOFT_OPF_WRITE)
		return soft_resp_write(c);
	if (m & SOFT_OPF_READ)
		return soft_resp_read(c, o);
	return soft_resp_atomic(c, o);
}

/* A duplicate request (its PSN behind what is expected). */
static void soft_resp_duplicate(struct soft_resp_ctx *c, struct soft_resp_out *o)
{
	struct soft_wire_resp *r = c->qp->wresp;
	struct soft_pkt *p = &c->rx->pkt;
	xqp_u32 i, k;

	SOFT_WIRE_COUNT(c->qp->obj.soft, rx_duplicate);
	if (p->mask & (SOFT_OPF_SEND | SOFT_OPF_WRITE)) {
		if (p->ack_req) {
			o->ack = SOFT_OP_ACKNOWLEDGE;
			o->psn = (r->epsn - 1) & SOFT_PSN_MASK;
		}
		return;
	}
	for (i = 0; i < SOFT_WIRE_MAX_RES; i++) {
		struct soft_wire_res *res = &r->res[i];

		k = (p->psn - res->psn) & SOFT_PSN_MASK;
		if (!res->kind || k >= res->npsn)
			continue;
		if (res->kind == SOFT_OPF_ATOMIC && (p->mask & SOFT_OPF_ATOMIC)) {
			o->ack = SOFT_OP_ATOMIC_ACKNOWLEDGE;
			o->psn = res->psn;
			o->orig = res->orig;
		} else if (res->kind == SOFT_OPF_READ && (p->mask & SOFT_OPF_READ)) {
			/* again from the PSN asked: a response of its own */
			if (soft_resp_route(c))
				soft_resp_read_start(c, o, res, p->psn);
		}
		return;
	}
}

/*
 * While a READ response goes out, a READ request in sequence is taken and
 * waits in the resources (as many as max_dest_rd_atomic allows), and a
 * READ asked again (a duplicate) waits its turn; anything else waits for
 * the requester to send it again.
 */
static int soft_resp_queue_read(const struct soft_resp_ctx *c, xqp_u32 diff)
{
	const struct soft_wire_resp *r = c->qp->wresp;

	if (c->qp->type == XQP_QPT_UC || !(c->rx->pkt.mask & SOFT_OPF_READ))
		return 0;
	if (diff & 0x800000)
		return 1;
	return !diff && !r->msg && r->read_qn < soft_min(c->max_dest_rd, SOFT_WIRE_MAX_RES);
}

/* The packet, under r->lock: what to send back goes to @o. */
static void soft_resp_packet(struct soft_resp_ctx *c, struct soft_resp_out *o)
{
	struct soft_qp *qp = c->qp;
	struct soft_wire_resp *r = qp->wresp;
	struct soft_pkt *p = &c->rx->pkt;
	int rc = qp->type != XQP_QPT_UC;
	xqp_u32 diff = (p->psn - r->epsn) & SOFT_PSN_MASK;
	enum soft_resp_outcome out;

	if (r->busy && !soft_resp_queue_read(c, diff)) {
		/* a NAK at its PSN once the READs are out sends it again */
		if (rc && !(diff & 0x800000))
			r->nak_busy = 1;
		SOFT_WIRE_COUNT(qp->obj.soft, rx_busy);
		return;
	}
	if (diff && !rc) {	/* UC: a first packet starts afresh, others drop */
		r->msg = 0;
		r->drop = !(p->mask & SOFT_OPF_FIRST);
		r->epsn = p->psn;
		if (r->drop) {
			SOFT_WIRE_COUNT(qp->obj.soft, rx_out_of_seq);
			return;
		}
	} else if (diff & 0x800000) {
		soft_resp_duplicate(c, o);
		return;
	} else if (diff) {
		SOFT_WIRE_COUNT(qp->obj.soft, rx_out_of_seq);
		if (!r->nak_sent) {
			r->nak_sent = 1;
			o->ack = SOFT_OP_ACKNOWLEDGE;
			o->syndrome = SOFT_AETH_NAK | SOFT_NAK_PSN_SEQ_ERR;
			o->psn = r->epsn;
		}
		return;
	}
	r->nak_sent = 0;
	if (r->drop) {	/* UC: the rest of a dropped message */
		if (!(p->mask & SOFT_OPF_FIRST)) {
			r->epsn = (r->epsn + 1) & SOFT_PSN_MASK;
			return;
		}
		r->drop = 0;
	}
	out = soft_resp_take(c, o);
	switch (out) {
	case SOFT_RESP_OK:
		r->epsn = (r->epsn + 1) & SOFT_PSN_MASK;
		/* a READ is answered by its response alone (a waiting one's too) */
		if (rc && !o->ack && p->ack_req && !(p->mask & SOFT_OPF_READ))
			o->ack = SOFT_OP_ACKNOWLEDGE;
		o->psn = p->psn;
		return;
	case SOFT_RESP_RNR:
		SOFT_WIRE_COUNT(qp->obj.soft, rnr_naks_sent);
		o->ack = SOFT_OP_ACKNOWLEDGE;
		o->syndrome = (xqp_u8)(SOFT_AETH_RNR_NAK | (c->min_rnr_timer & 0x1f));
		o->psn = p->psn;
		return;
	case SOFT_RESP_DROP:
		r->msg = 0;
		r->drop = !(p->mask & SOFT_OPF_LAST);
		r->epsn = (r->epsn + 1) & SOFT_PSN_MASK;
		return;
	default:
		SOFT_WIRE_COUNT(qp->obj.soft, naks_sent);
		o->ack = SOFT_OP_ACKNOWLEDGE;
		o->syndrome = SOFT_AETH_NAK | (out == SOFT_RESP_ACCESS ? SOFT_NAK_REMOTE_ACCESS :
					       out == SOFT_RESP_OPERR ? SOFT_NAK_REMOTE_OP_ERR :
					       SOFT_NAK_INVALID_REQ);
		o->psn = p->psn;
		o->err_event = out == SOFT_RESP_ACCESS ? XQP_EVENT_QP_ACCESS_ERR :
			       XQP_EVENT_QP_REQ_ERR;
		r->msg = 0;
		return;
	}
}

/* ---- what goes back ---------------------------------------------------------- */

static int soft_resp_back(struct soft_qp *qp, struct soft_route *rt)
{
	struct xqp_ah_attr av;
	unsigned long flags;

	flags = xqp_spin_lock_irqsave(&qp->lock);
	av = qp->attr.ah_attr;
	xqp_spin_unlock_irqrestore(&qp->lock, flags);
	return soft_wire_route(qp, &av, rt);
}

/* Sends the ACK, NAK or atomic ACK @o names. */
static void soft_resp_ack(struct soft_qp *qp, const struct soft_resp_out *o)
{
	struct soft_route rt;
	unsigned long flags;
	struct soft_pkt pkt = {
		.opcode = (xqp_u8)((qp->type == XQP_QPT_XRC_TGT ? SOFT_OP_XRC : SOFT_OP_RC) | o->ack),
		.pkey = SOFT_DEFAULT_PKEY,
		.psn = o->psn,
		.syndrome = o->syndrome ? o->syndrome : SOFT_AETH_ACK | SOFT_AETH_CREDITS_INVALID,
		.msn = o->msn,
		.orig = o->orig,
	};

	if (soft_resp_back(qp, &rt))
		return;
	flags = xqp_spin_lock_irqsave(&qp->lock);
	pkt.dqpn = qp->attr.dest_qp_num;
	xqp_spin_unlock_irqrestore(&qp->lock, flags);
	soft_wire_emit(qp->obj.soft, &rt, &pkt, NULL, 0, 0);
}

/*
 * The READ response in r->read is out: the next READ waiting starts (1), or
 * the responder is free again (0), with a sequence NAK for a request it
 * dropped meanwhile.
 */
static int soft_resp_read_next(struct soft_qp *qp, xqp_u32 gen)
{
	struct soft_wire_resp *r = qp->wresp;
	struct soft_resp_out o = { .ack = SOFT_OP_ACKNOWLEDGE,
				   .syndrome = SOFT_AETH_NAK | SOFT_NAK_PSN_SEQ_ERR };
	xqp_u32 mtu = soft_wire_mtu(qp);
	unsigned long flags;

	flags = xqp_spin_lock_irqsave(&r->lock);
	if (r->read_gen != gen) {	/* replaced meanwhile: that one goes out */
		xqp_spin_unlock_irqrestore(&r->lock, flags);
		return 1;
	}
	while (r->read_qn) {
		struct soft_wire_rd_wait q = r->read_q[r->read_qh];
		const struct soft_wire_res *res = &r->res[q.slot];

		r->read_qh = (r->read_qh + 1) % SOFT_WIRE_MAX_RES;
		r->read_qn--;
		/* (a duplicate's resource may have gone to a newer READ since) */
		if (res->kind != SOFT_OPF_READ ||
		    ((q.psn - res->psn) & SOFT_PSN_MASK) >= res->npsn)
			continue;
		soft_resp_read_set(r, res, q.psn, mtu);
		xqp_spin_unlock_irqrestore(&r->lock, flags);
		return 1;
	}
	r->busy = 0;
	o.ack = r->nak_busy ? o.ack : 0;
	if (o.ack) {
		r->nak_busy = 0;
		r->nak_sent = 1;
		o.psn = r->epsn;
		o.msn = r->msn;
	}
	xqp_spin_unlock_irqrestore(&r->lock, flags);
	if (o.ack)
		soft_resp_ack(qp, &o);
	return 0;
}

/*
 * Sends READ response packets of r->read from r->read_next, at most @max;
 * then moves on to the next READ waiting. Return: 1 if some are left.
 */
static int soft_resp_read_send(struct soft_qp *qp, int max)
{
	struct soft_wire_resp *r = qp->wresp;
	xqp_u32 mtu = soft_wire_mtu(qp);
	struct soft_route rt;
	struct soft_wire_res rd;
	unsigned long flags;
	xqp_u32 k, n, dqpn, gen;

	flags = xqp_spin_lock_irqsave(&r->lock);
	rd = r->read;
	k = r->read_next;
	gen = r->read_gen;
	xqp_spin_unlock_irqrestore(&r->lock, flags);
	if (soft_resp_back(qp, &rt))
		goto done;
	flags = xqp_spin_lock_irqsave(&qp->lock);
	dqpn = qp->attr.dest_qp_num;
	xqp_spin_unlock_irqrestore(&qp->lock, flags);
	/*
	 * Replaced meanwhile (asked again from before it): stop at once, so the
	 * new response follows what is out instead of mixing with it.
	 */
	for (n = 0; k < rd.npsn && (int)n < max &&
		    __atomic_load_n(&r->read_gen, __ATOMIC_RELAXED) == gen; k++, n++) {
		xqp_u32 len = rd.len > k * mtu ? soft_min(mtu, rd.len - k * mtu) : 0;
		int first = k == 0, last = k + 1 == rd.npsn;
		struct soft_pkt pkt = {
			.opcode = (xqp_u8)(SOFT_OP_TRANSPORT(qp->type == XQP_QPT_XRC_TGT ? SOFT_OP_XRC :
							     SOFT_OP_RC) |
					   (first && last ? SOFT_OP_READ_RESPONSE_ONLY :
					    first ? SOFT_OP_READ_RESPONSE_FIRST :
					    last ? SOFT_OP_READ_RESPONSE_LAST :
					    SOFT_OP_READ_RESPONSE_MIDDLE)),
			.pkey = SOFT_DEFAULT_PKEY,
			.dqpn = dqpn,
			.psn = (rd.psn + k) & SOFT_PSN_MASK,
			.syndrome = SOFT_AETH_ACK | SOFT_AETH_CREDITS_INVALID,
			.msn = rd.msn,
			.payload_len = len,
		};
		struct soft_seg seg = { .length = 0 };

		if (len && soft_rkey_get(qp->obj.soft, rd.pd, qp->qp_num, rd.rkey, rd.va + (xqp_u64)k * mtu, len,
					 XQP_ACCESS_REMOTE_READ, &seg) != XQP_WC_SUCCESS)
			break;	/* the MR went: nothing more to send */
		soft_wire_emit(qp->obj.soft, &rt, &pkt, &seg, 1, 0);
		if (len)
			soft_segs_put(&seg, 1);
	}
	if (k < rd.npsn && n == (xqp_u32)max) {
		flags = xqp_spin_lock_irqsave(&r->lock);
		if (r->read_gen == gen)	/* (else replaced: from its start) */
			r->read_next = k;
		xqp_spin_unlock_irqrestore(&r->lock, flags);
		return 1;
	}
done:
	return soft_resp_read_next(qp, gen);
}

/* The responder's work: a READ response too long for the receive context. */
void soft_wire_resp_work(struct xqp_work *work)
{
	struct soft_qp *qp = soft_qp_of_resp_work(work);

	if (soft_resp_read_send(qp, SOFT_WIRE_READ_WORK))
		xqp_work_queue(&qp->rwork, 0);
}

/**
 * soft_wire_respond - a request from the wire for @qp.
 * @qp: the QP the BTH names (referenced), of the request's transport.
 * @rx: the packet.
 *
 * Context: softirq, no lock held.
 */
void soft_wire_respond(struct soft_qp *qp, struct soft_rx *rx)
{
	struct soft_wire_resp *r = qp->wresp;
	struct soft_resp_out o = { .err_event = -1 };
	struct soft_resp_ctx c = { .qp = qp, .rx = rx };
	int state = soft_qp_state_now(qp);
	unsigned long flags;

	if (state < XQP_QPS_RTR || state == XQP_QPS_ERR) {
		SOFT_WIRE_COUNT(qp->obj.soft, rx_bad_state);
		return;
	}
	if (soft_is_ud(qp->type)) {
		soft_resp_ud(qp, rx);
		return;
	}
	flags = xqp_spin_lock_irqsave(&qp->lock);
	c.access = qp->attr.qp_access_flags;
	c.max_dest_rd = qp->attr.max_dest_rd_atomic;
	c.dest_qp = qp->attr.dest_qp_num;
	c.min_rnr_timer = qp->attr.min_rnr_timer;
	c.mtu = qp->attr.path_mtu >= XQP_MTU_256 && qp->attr.path_mtu <= XQP_MTU_4096 ?
		128U << qp->attr.path_mtu : 4096;
	/* a connected QP takes packets from its peer's GID only */
	if (!qp->attr.ah_attr.is_global || !soft_gid_equal(qp->attr.ah_attr.dgid, rx->sgid)) {
		xqp_spin_unlock_irqrestore(&qp->lock, flags);
		SOFT_WIRE_COUNT(qp->obj.soft, rx_bad_addr);
		return;
	}
	xqp_spin_unlock_irqrestore(&qp->lock, flags);

	flags = xqp_spin_lock_irqsave(&r->lock);
	soft_resp_packet(&c, &o);
	o.msn = r->msn;
	xqp_spin_unlock_irqrestore(&r->lock, flags);

	if (o.ack)
		soft_resp_ack(qp, &o);
	if (o.read && soft_resp_read_send(qp, SOFT_WIRE_READ_INLINE))
		xqp_work_queue(&qp->rwork, 0);
	if (o.err_event >= 0)
		soft_qp_to_err(qp, o.err_event);
}
