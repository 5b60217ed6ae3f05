// SPDX-License-Identifier: GPL-2.0
/*
 * The requester on the wire: a linked device's QP whose peer is outside
 * this kernel sends its WQEs as RoCE v2 packets (docs/wire.md).
 *
 * A connected QP (RC, UC, XRC INI) runs a window: its runner (exec.c, one
 * at a time) sends packets of the WQEs after the ones in flight, up to
 * SOFT_WIRE_WINDOW PSNs ahead of the oldest unacknowledged one and
 * SOFT_WIRE_BURST packets a run, with no lock held while a packet is built
 * and sent. The WQEs stay in the send queue until wire_ack.c completes
 * them; UC's complete when their last packet is out. A UD send is one
 * packet and completes at once.
 *
 * The timer (soft_wire_timer) retransmits from the oldest unacknowledged
 * PSN after the ACK timeout, retry_cnt times, and ends an RNR wait.
 */
#include "soft_priv.h"

#define SOFT_WIRE_WINDOW	128	/* PSNs in flight */
#define SOFT_WIRE_BURST		32	/* packets one run sends */
#define SOFT_WIRE_ACKREQ_EVERY	16	/* AckReq at least this often */
#define SOFT_WIRE_SPORT_BASE	0xc000	/* as rxe: 0xc000 + a hash of the QPN */

/* The BTH's transport prefix of a requester of type @t. */
static xqp_u8 soft_wire_prefix(enum xqp_qp_type t)
{
	switch (t) {
	case XQP_QPT_UC:
		return SOFT_OP_UC;
	case XQP_QPT_XRC_INI:
	case XQP_QPT_XRC_TGT:
		return SOFT_OP_XRC;
	case XQP_QPT_UD:
	case XQP_QPT_GSI:
		return SOFT_OP_UD;
	default:
		return SOFT_OP_RC;
	}
}

/* The path MTU's bytes of a connected QP (its port's, 4096, unset). */
xqp_u32 soft_wire_mtu(struct soft_qp *qp)
{
	unsigned long flags = xqp_spin_lock_irqsave(&qp->lock);
	xqp_u32 mtu = qp->attr.path_mtu;

	xqp_spin_unlock_irqrestore(&qp->lock, flags);
	return mtu >= XQP_MTU_256 && mtu <= XQP_MTU_4096 ? 128U << mtu : 4096;
}

/* Reads @len bytes at @off of @seg[0..n) into @buf. */
static void soft_segs_read(struct soft_seg *seg, xqp_u32 n, xqp_u64 off, xqp_u8 *buf,
			   xqp_u32 len)
{
	struct soft_seg dst = { .mr = NULL, .buf = (char *)buf, .length = len };
	xqp_u32 i;

	for (i = 0; i < n && len; i++) {
		struct soft_seg part = seg[i];
		xqp_u64 got;

		if (off >= part.length) {
			off -= part.length;
			continue;
		}
		part.offset += off;
		if (!part.mr)
			part.buf += off;
		part.length -= (xqp_u32)off;
		off = 0;
		got = soft_segs_copy(&dst, 1, &part, 1, len);
		dst.buf += got;
		dst.length -= (xqp_u32)got;
		len -= (xqp_u32)got;
	}
}

/* A packet built from @pkt, its payload read from @seg at @off: its handle, or NULL. */
static void *soft_wire_build(struct xqp_soft *soft, struct soft_pkt *pkt, struct soft_seg *seg,
			     xqp_u32 nseg, xqp_u64 off)
{
	xqp_u32 hl = soft_op_hdr_len(soft_op_mask(pkt->opcode));
	xqp_u32 pad = (4 - (pkt->payload_len & 3)) & 3;
	xqp_u8 *p;
	void *h;

	h = soft_net_alloc(soft, hl + pkt->payload_len + pad + SOFT_ICRC_BYTES, &p);
	if (!h) {
		SOFT_WIRE_COUNT(soft, tx_dropped);
		return NULL;
	}
	soft_pkt_build(pkt, p);
	if (pkt->payload_len)
		soft_segs_read(seg, nseg, off, p + hl, pkt->payload_len);
	__builtin_memset(p + hl + pkt->payload_len, 0, pad);
	return h;
}

static void soft_wire_xmit(struct xqp_soft *soft, void *h, const struct soft_route *rt)
{
	if (soft_net_xmit(soft, h, rt))
		SOFT_WIRE_COUNT(soft, tx_dropped);
	else
		SOFT_WIRE_COUNT(soft, tx_packets);
}

int soft_wire_emit(struct xqp_soft *soft, const struct soft_route *rt, struct soft_pkt *pkt,
		   struct soft_seg *seg, xqp_u32 nseg, xqp_u64 off)
{
	void *h = soft_wire_build(soft, pkt, seg, nseg, off);

	if (!h)
		return -XQP_ENOMEM;
	soft_wire_xmit(soft, h, rt);
	return 0;
}

/* The route of a packet to @av from @qp's port. */
int soft_wire_route(struct soft_qp *qp, const struct xqp_ah_attr *av, struct soft_route *rt)
{
	if (!av->is_global)
		return -XQP_EINVAL;	/* RoCE: every address is a GID */
	soft_fabric_sgid(qp->obj.soft, av->sgid_index, rt->sgid);
	__builtin_memcpy(rt->dgid, av->dgid, 16);
	rt->tclass = av->traffic_class;
	rt->hop_limit = av->hop_limit ? av->hop_limit : 64;
	rt->flow_label = av->flow_label;
	/* as rxe: from the QP number, so flows spread over ECMP paths */
	rt->sport = (xqp_u16)(SOFT_WIRE_SPORT_BASE | ((qp->qp_num * 0x9e3779b1U) >> 18));
	return 0;
}

int soft_wire_ud_remote(struct soft_qp *qp, const struct xqp_ah_attr *av)
{
	struct soft_link *link = qp->obj.soft->link;

	return link && link->sock && av->is_global && !soft_fabric_gid_is_local(av->dgid, link->net);
}

/* ---- UD ------------------------------------------------------------------ */

int soft_wire_send_ud(struct soft_qp *qp, struct soft_swqe *w)
{
	struct xqp_soft *soft = qp->obj.soft;
	struct soft_pkt pkt = {
		.opcode = (xqp_u8)(SOFT_OP_UD | (w->opcode == XQP_WR_SEND_WITH_IMM ?
						 SOFT_OP_SEND_ONLY_IMM : SOFT_OP_SEND_ONLY)),
		.se = !!(w->send_flags & XQP_SEND_SOLICITED),
		.pkey = SOFT_DEFAULT_PKEY,
		.dqpn = w->ud_qpn,
		.qkey = w->ud_qkey,
		.src_qp = qp->qp_num,
		.imm = soft_get_be32((const xqp_u8 *)&w->imm_data),
		.payload_len = w->length,
	};
	struct soft_route rt;
	unsigned long flags;
	xqp_u32 nl;
	int st;

	if (soft_wire_route(qp, &w->ud_av, &rt))
		return XQP_WC_SUCCESS;	/* nowhere to go: lost, as on a wire */
	if (w->ud_qkey & SOFT_QKEY_PRIV) {
		flags = xqp_spin_lock_irqsave(&qp->lock);
		pkt.qkey = qp->attr.qkey;
		xqp_spin_unlock_irqrestore(&qp->lock, flags);
	}
	if (w->num_sge) {
		xqp_u64 total;

		nl = w->num_sge;
		st = soft_sges_get(soft, qp->pd, w->sge, nl, 0, qp->lseg, &total);
		if (st != XQP_WC_SUCCESS)
			return st;
	} else {
		qp->lseg[0] = (struct soft_seg){ .buf = w->inline_data, .length = w->length };
		nl = 1;
	}
	soft_wire_emit(soft, &rt, &pkt, qp->lseg, nl, 0);
	soft_segs_put(qp->lseg, w->num_sge ? nl : 0);
	return XQP_WC_SUCCESS;	/* a UD send completes once sent, lost or not */
}

/* ---- connected QPs --------------------------------------------------------- */

/* The opcode of the packet of @w that is @first and/or @last of it. */
static xqp_u8 soft_wire_opcode(const struct soft_swqe *w, int first, int last)
{
	int only = first && last;

	switch (w->opcode) {
	case XQP_WR_SEND:
		return only ? SOFT_OP_SEND_ONLY : first ? SOFT_OP_SEND_FIRST :
		       last ? SOFT_OP_SEND_LAST : SOFT_OP_SEND_MIDDLE;
	case XQP_WR_SEND_WITH_IMM:
		return only ? SOFT_OP_SEND_ONLY_IMM : first ? SOFT_OP_SEND_FIRST :
		       last ? SOFT_OP_SEND_LAST_IMM : SOFT_OP_SEND_MIDDLE;
	case XQP_WR_SEND_WITH_INV:
		return only ? SOFT_OP_SEND_ONLY_INV : first ? SOFT_OP_SEND_FIRST :
		       last ? SOFT_OP_SEND_LAST_INV : SOFT_OP_SEND_MIDDLE;
	case XQP_WR_RDMA_WRITE:
		return only ? SOFT_OP_WRITE_ONLY : first ? SOFT_OP_WRITE_FIRST :
		       last ? SOFT_OP_WRITE_LAST : SOFT_OP_WRITE_MIDDLE;
	case XQP_WR_RDMA_WRITE_WITH_IMM:
		return only ? SOFT_OP_WRITE_ONLY_IMM : first ? SOFT_OP_WRITE_FIRST :
		       last ? SOFT_OP_WRITE_LAST_IMM : SOFT_OP_WRITE_MIDDLE;
	case XQP_WR_RDMA_READ:
		return SOFT_OP_READ_REQUEST;
	case XQP_WR_ATOMIC_CMP_AND_SWP:
		return SOFT_OP_COMPARE_SWAP;
	default:
		return SOFT_OP_FETCH_ADD;
	}
}

/* The PSNs @w takes at @mtu bytes a packet (a READ: its response's). */
static xqp_u32 soft_wire_npsn(const struct soft_swqe *w, xqp_u32 mtu)
{
	if (soft_is_atomic(w->opcode) || !w->length)
		return 1;
	return (w->length + mtu - 1) / mtu;
}

/* The next packet to send, chosen under sq.lock. */
struct soft_wire_next {
	struct soft_pkt pkt;
	xqp_u64 off;			/* payload offset in the WQE */
	int uc_done;			/* UC: the WQE's last packet */
};

/*
 * Picks the next packet of the send queue, advances the requester past it
 * and copies its WQE to qp->cur. Caller holds sq.lock. Return: 1, or 0 when
 * nothing may be sent now.
 */
static int soft_wire_pick(struct soft_qp *qp, xqp_u32 mtu, struct soft_wire_next *nx)
{
	struct soft_wire_req *rq = &qp->wreq;
	struct soft_ring *sq = &qp->sq;
	struct soft_swqe *w;
	xqp_u32 len, max_rd, in_flight;
	unsigned long flags;
	int first, last;

	if (rq->dead || rq->rnr_wait || rq->tx_idx >= sq->count)
		return 0;
	/* a BIND_MW or LOCAL_INV waits until the WQEs before it complete */
	w = soft_ring_at(sq, sq->head + rq->tx_idx);
	if (soft_is_local_op(w->opcode))
		return 0;
	/* (sending again from before una, after a rewind, is not in flight) */
	in_flight = soft_psn_diff(rq->tx_psn, rq->una);
	if (!(in_flight & 0x800000) && in_flight >= SOFT_WIRE_WINDOW)
		return 0;
	first = rq->tx_off == 0;
	if (first) {
		flags = xqp_spin_lock_irqsave(&qp->lock);
		max_rd = qp->attr.max_rd_atomic;
		xqp_spin_unlock_irqrestore(&qp->lock, flags);
		if (soft_is_rd_atomic(w->opcode) && rq->rd_out >= max_rd)
			return 0;	/* no credit (max_rd_atomic 0: never) */
		if ((w->send_flags & XQP_SEND_FENCE) && rq->rd_out)
			return 0;
		/* (a READ part of whose response came keeps its PSNs) */
		if (!w->wire_got) {
			w->wire_psn = rq->tx_psn;
			w->wire_npsn = soft_wire_npsn(w, mtu);
		}
		if (soft_is_rd_atomic(w->opcode))
			rq->rd_out++;
	}
	__builtin_memcpy(qp->cur, w, sq->entry_size);
	nx->off = rq->tx_off;
	nx->pkt = (struct soft_pkt){
		.pkey = SOFT_DEFAULT_PKEY,
		.psn = rq->tx_psn,
		.xrc_srqn = w->xrc_srqn,
		.imm = soft_get_be32((const xqp_u8 *)&w->imm_data),
		.inv_rkey = w->imm_data,
	};
	if (soft_is_rd_atomic(w->opcode)) {
		/* a READ asks for what its response has not brought yet */
		xqp_u32 got = w->wire_got * mtu;

		last = 1;
		nx->pkt.psn = (w->wire_psn + w->wire_got) & SOFT_PSN_MASK;
		rq->tx_psn = (w->wire_psn + w->wire_npsn) & SOFT_PSN_MASK;
		nx->pkt.va = w->remote_addr + got;
		nx->pkt.rkey = w->rkey;
		nx->pkt.dma_len = w->length - got;
		nx->pkt.swap_add = w->opcode == XQP_WR_ATOMIC_CMP_AND_SWP ? w->swap : w->compare_add;
		nx->pkt.compare = w->compare_add;
	} else {
		len = soft_min(mtu, w->length - rq->tx_off);
		last = rq->tx_off + len == w->length;
		nx->pkt.payload_len = len;
		rq->tx_off += len;
		rq->tx_psn = (rq->tx_psn + 1) & SOFT_PSN_MASK;
		if (first) {
			nx->pkt.va = w->remote_addr;
			nx->pkt.rkey = w->rkey;
			nx->pkt.dma_len = w->length;
		}
	}
	if (!(soft_psn_diff(rq->tx_psn, rq->max_psn) & 0x800000))
		rq->max_psn = rq->tx_psn;
	nx->pkt.opcode = (xqp_u8)(soft_wire_prefix(qp->type) | soft_wire_opcode(w, first, last));
	nx->pkt.se = last && !!(w->send_flags & XQP_SEND_SOLICITED);
	if (last) {
		rq->tx_idx++;
		rq->tx_off = 0;
	}
	nx->uc_done = last && qp->type == XQP_QPT_UC;
	nx->pkt.ack_req = last || ++rq->since_ackreq >= SOFT_WIRE_ACKREQ_EVERY;
	if (nx->pkt.ack_req)
		rq->since_ackreq = 0;
	if (qp->type != XQP_QPT_UC && !rq->timer_on) {
		xqp_u8 timeout;

		flags = xqp_spin_lock_irqsave(&qp->lock);
		timeout = qp->attr.timeout;
		xqp_spin_unlock_irqrestore(&qp->lock, flags);
		rq->timer_on = 1;
		rq->una_armed = rq->una;
		xqp_work_queue(&rq->timer, soft_timeout_us(timeout));
	}
	return 1;
}

/*
 * Builds the packet soft_wire_pick() chose, of qp->cur, with its payload:
 * under sq.lock, so no completion hands the memory back to its owner
 * while it is read. Return: the packet, or NULL (no memory; the MR went:
 * lost, and sent again).
 */
static void *soft_wire_build_next(struct soft_qp *qp, struct soft_wire_next *nx)
{
	struct soft_swqe *w = qp->cur;
	xqp_u32 nl = 0;
	xqp_u64 total;
	void *h;

	if (nx->pkt.payload_len) {
		if (!w->num_sge)
			qp->lseg[0] = (struct soft_seg){ .buf = w->inline_data,
							 .length = w->length };
		else if (soft_sges_get(qp->obj.soft, qp->pd, w->sge, w->num_sge, 0,
				       qp->lseg, &total) == XQP_WC_SUCCESS)
			nl = w->num_sge;
		else
			return NULL;
	}
	h = soft_wire_build(qp->obj.soft, &nx->pkt, qp->lseg, w->num_sge ? nl : 1, nx->off);
	soft_segs_put(qp->lseg, nl);
	return h;
}

/* Is the head a BIND_MW or LOCAL_INV, everything before it done? sq.lock */
static int soft_wire_local_head(struct soft_qp *qp)
{
	return !qp->wreq.dead && !qp->wreq.tx_idx && qp->sq.count &&
	       soft_is_local_op(soft_head(qp)->opcode);
}

/* Completes and drops the head WQE (caller holds sq.lock, drops it). */
void soft_wire_pop(struct soft_qp *qp, unsigned long flags, int status)
{
	struct soft_ring *sq = &qp->sq;
	struct soft_swqe done;
	const struct soft_swqe *w = soft_ring_at(sq, sq->head);

	done = *w;	/* its fixed part: what a completion needs */
	soft_ring_pop(sq);
	if (qp->wreq.tx_idx) {
		qp->wreq.tx_idx--;
	} else {	/* it was being sent again: the next WQE starts at una */
		qp->wreq.tx_off = 0;
		if (soft_psn_diff(qp->wreq.tx_psn, qp->wreq.una) & 0x800000)
			qp->wreq.tx_psn = qp->wreq.una;
	}
	if (soft_is_rd_atomic(done.opcode) && qp->wreq.rd_out)
		qp->wreq.rd_out--;
	xqp_spin_unlock_irqrestore(&sq->lock, flags);
	soft_sq_complete(qp, &done, status, done.length);
}

/* ERR: every WQE completes flushed, what is in flight too. */
static void soft_wire_flush(struct soft_qp *qp)
{
	unsigned long flags;

	for (;;) {
		flags = xqp_spin_lock_irqsave(&qp->sq.lock);
		if (!qp->sq.count) {
			qp->wreq.tx_idx = 0;
			qp->wreq.tx_off = 0;
			qp->wreq.rd_out = 0;
			qp->wreq.una = qp->wreq.tx_psn;
			qp->wreq.max_psn = qp->wreq.tx_psn;
			xqp_spin_unlock_irqrestore(&qp->sq.lock, flags);
			return;
		}
		soft_wire_pop(qp, flags, XQP_WC_WR_FLUSH_ERR);
	}
}

/**
 * soft_wire_sq_run - send what the window allows of a QP on the wire.
 * @qp: a connected QP with on_wire set; its runner (sq_running held).
 * @budget: WQEs the caller would have run (a run sends at most
 *	    SOFT_WIRE_BURST packets whatever it is).
 *
 * Context: the runner's (no lock held).
 * Return: 1 when packets are left to send now (the caller queues a run).
 */
int soft_wire_sq_run(struct soft_qp *qp, int budget)
{
	xqp_u32 mtu = soft_wire_mtu(qp);
	struct soft_wire_next nx;
	struct soft_route rt;
	struct xqp_ah_attr av;
	unsigned long flags;
	xqp_u32 dqpn;
	int n, state;
	void *h;

	(void)budget;
	state = __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE);
	if (state == XQP_QPS_ERR || state == XQP_QPS_SQE) {
		soft_wire_flush(qp);
		return 0;
	}
	flags = xqp_spin_lock_irqsave(&qp->lock);
	av = qp->attr.ah_attr;
	dqpn = qp->attr.dest_qp_num;
	xqp_spin_unlock_irqrestore(&qp->lock, flags);
	if (soft_wire_route(qp, &av, &rt))
		return 0;
	for (n = 0; n < SOFT_WIRE_BURST; n++) {
		state = __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE);
		flags = xqp_spin_lock_irqsave(&qp->sq.lock);
		/* SQD finishes the message it started, starts none */
		if (state < XQP_QPS_RTS || state == XQP_QPS_ERR || state == XQP_QPS_SQE ||
		    (state == XQP_QPS_SQD && !qp->wreq.tx_off)) {
			xqp_spin_unlock_irqrestore(&qp->sq.lock, flags);
			return 0;
		}
		if (soft_wire_local_head(qp)) {	/* executed here, in order, no packet */
			soft_wire_pop(qp, flags, soft_mw_local_op(qp, soft_head(qp)));
			continue;
		}
		if (!soft_wire_pick(qp, mtu, &nx)) {
			xqp_spin_unlock_irqrestore(&qp->sq.lock, flags);
			return 0;
		}
		nx.pkt.dqpn = dqpn;
		h = soft_wire_build_next(qp, &nx);
		xqp_spin_unlock_irqrestore(&qp->sq.lock, flags);
		if (h)
			soft_wire_xmit(qp->obj.soft, h, &rt);
		if (nx.uc_done) {	/* UC: done once sent */
			flags = xqp_spin_lock_irqsave(&qp->sq.lock);
			if (qp->sq.count && qp->wreq.tx_idx)
				soft_wire_pop(qp, flags, XQP_WC_SUCCESS);
			else
				xqp_spin_unlock_irqrestore(&qp->sq.lock, flags);
			flags = xqp_spin_lock_irqsave(&qp->sq.lock);
			qp->wreq.una = qp->wreq.tx_psn;
			qp->wreq.max_psn = qp->wreq.tx_psn;
			xqp_spin_unlock_irqrestore(&qp->sq.lock, flags);
		}
	}
	return 1;
}

/* ---- retransmission ------------------------------------------------------- */

/*
 * Sends again from @psn (within what was sent): the WQE holding it and the
 * ones after. A READ is asked again for what its response has not brought
 * yet (soft_wire_pick(): a request from the PSN of the first response
 * packet missing, for the rest of the data). Caller holds sq.lock.
 */
void soft_wire_rewind(struct soft_qp *qp, xqp_u32 psn)
{
	struct soft_wire_req *rq = &qp->wreq;
	struct soft_ring *sq = &qp->sq;
	struct soft_swqe *w;
	xqp_u32 i, start, sent, mtu = 0;

	if (!sq->count || rq->una == rq->max_psn)
		return;
	/* the WQEs sent at least once hold [head's first PSN, max_psn), in order */
	start = ((struct soft_swqe *)soft_ring_at(sq, sq->head))->wire_psn;
	sent = soft_psn_diff(rq->max_psn, start);
	rq->rd_out = 0;
	for (i = 0; i < sq->count; i++) {
		w = soft_ring_at(sq, sq->head + i);
		if (soft_psn_diff(w->wire_psn, start) >= sent)
			break;
		if (soft_psn_diff(psn, w->wire_psn) < w->wire_npsn) {
			rq->tx_idx = i;
			if (soft_is_rd_atomic(w->opcode) || psn == w->wire_psn) {
				rq->tx_off = 0;
				rq->tx_psn = w->wire_psn;
			} else {
				if (!mtu)
					mtu = soft_wire_mtu(qp);
				rq->tx_off = soft_psn_diff(psn, w->wire_psn) * mtu;
				rq->tx_psn = psn;
			}
			break;
		}
		if (soft_is_rd_atomic(w->opcode))
			rq->rd_out++;	/* before it: still outstanding */
	}
	rq->since_ackreq = 0;
	rq->went_back = 1;
	rq->back_psn = psn;
}

/* Starts the retry budgets afresh (progress was made). Caller holds sq.lock. */
void soft_wire_progress(struct soft_qp *qp)
{
	qp->wreq.retry_left = -1;
	qp->wreq.rnr_left = -1;
	qp->wreq.went_back = 0;
}

/*
 * Takes one retry of the kind @rnr names: 1 if one was left (or the QP
 * retries for ever), else 0. Caller holds sq.lock.
 */
int soft_wire_take_retry(struct soft_qp *qp, int rnr)
{
	int *left = rnr ? &qp->wreq.rnr_left : &qp->wreq.retry_left;
	unsigned long flags;
	int limit, forever;

	flags = xqp_spin_lock_irqsave(&qp->lock);
	limit = rnr ? qp->attr.rnr_retry : qp->attr.retry_cnt;
	forever = rnr ? qp->attr.rnr_retry == 7 : qp->attr.timeout == 0;
	xqp_spin_unlock_irqrestore(&qp->lock, flags);
	if (forever)
		return 1;
	if (*left < 0)
		*left = limit;
	if (!*left)
		return 0;
	(*left)--;
	return 1;
}

static struct soft_qp *soft_qp_of_timer(struct xqp_work *work)
{
	return (struct soft_qp *)((char *)work - __builtin_offsetof(struct soft_qp, wreq.timer));
}

/**
 * soft_wire_timer - the requester's timer: the ACK timeout or an RNR wait.
 * @work: the QP's wreq.timer.
 *
 * An RNR wait ends: sending resumes. Else, with packets outstanding and no
 * acknowledgement since the timer was armed, retransmits from the oldest
 * (or, past retry_cnt, fails the head with RETRY_EXC_ERR); with progress,
 * arms again.
 *
 * Context: the work queue.
 */
void soft_wire_timer(struct xqp_work *work)
{
	struct soft_qp *qp = soft_qp_of_timer(work);
	struct soft_wire_req *rq = &qp->wreq;
	unsigned long flags;
	xqp_u8 timeout;

	flags = xqp_spin_lock_irqsave(&qp->lock);
	timeout = qp->attr.timeout;
	xqp_spin_unlock_irqrestore(&qp->lock, flags);

	flags = xqp_spin_lock_irqsave(&qp->sq.lock);
	rq->timer_on = 0;
	if (rq->dead) {
		xqp_spin_unlock_irqrestore(&qp->sq.lock, flags);
		return;
	}
	if (rq->rnr_wait) {
		rq->rnr_wait = 0;
	} else if (rq->una != rq->max_psn && qp->sq.count) {
		if (rq->una != rq->una_armed) {
			rq->una_armed = rq->una;
		} else if (!soft_wire_take_retry(qp, 0)) {
			soft_wire_pop(qp, flags, XQP_WC_RETRY_EXC_ERR);	/* the QP errs */
			return;
		} else {
			SOFT_WIRE_COUNT(qp->obj.soft, retransmits);
			rq->read_reasked = 0;
			soft_wire_rewind(qp, rq->una);
		}
		rq->timer_on = 1;
		xqp_work_queue(&rq->timer, soft_timeout_us(timeout));
	}
	xqp_spin_unlock_irqrestore(&qp->sq.lock, flags);
	soft_sq_kick(qp);
}

/* ---- the QP's wire state ------------------------------------------------- */

int soft_wire_qp_init(struct soft_qp *qp)
{
	struct soft_wire_resp *r;

	xqp_work_init(&qp->wreq.timer, soft_wire_timer);
	xqp_work_init(&qp->rwork, soft_wire_resp_work);
	qp->wreq.retry_left = -1;
	qp->wreq.rnr_left = -1;
	if (!qp->obj.soft->link)
		return 0;
	if (qp->cur) {	/* a send queue: responses land in its SGEs */
		qp->wreq.seg = xqp_zalloc((qp->attr.cap.max_send_sge + 1) * sizeof(*qp->wreq.seg),
					  XQP_GFP_KERNEL_ACCOUNT);
		if (!qp->wreq.seg)
			return -XQP_ENOMEM;
	}
	r = xqp_zalloc(sizeof(*r), XQP_GFP_KERNEL_ACCOUNT);
	if (!r)
		goto err_seg;
	r->rwqe = xqp_zalloc(sizeof(*r->rwqe) + XQP_RULES_MAX_SGE * sizeof(struct xqp_sge),
			     XQP_GFP_KERNEL_ACCOUNT);
	r->seg = xqp_zalloc((XQP_RULES_MAX_SGE + 1) * sizeof(*r->seg), XQP_GFP_KERNEL_ACCOUNT);
	if (!r->rwqe || !r->seg)
		goto err_resp;
	xqp_spin_init(&r->lock, XQP_LOCK_SOFT_RESP);
	qp->wresp = r;
	return 0;

err_resp:
	xqp_free(r->seg);
	xqp_free(r->rwqe);
	xqp_free(r);
err_seg:
	xqp_free(qp->wreq.seg);
	qp->wreq.seg = NULL;
	return -XQP_ENOMEM;
}

/*
 * After destroy made @qp unreachable and its references drained: the timer
 * and the responder's work stop and are not queued again (the runner, which
 * soft_sq_stop() stops next, arms no timer on a dead QP).
 */
void soft_wire_qp_stop(struct soft_qp *qp)
{
	unsigned long flags;

	flags = xqp_spin_lock_irqsave(&qp->sq.lock);
	qp->wreq.dead = 1;
	xqp_spin_unlock_irqrestore(&qp->sq.lock, flags);
	xqp_work_cancel_sync(&qp->wreq.timer);
	xqp_work_cancel_sync(&qp->rwork);
}

void soft_wire_qp_fini(struct soft_qp *qp)
{
	struct soft_wire_resp *r = qp->wresp;

	xqp_free(qp->wreq.seg);
	if (!r)
		return;
	if (r->srq)
		soft_refs_put(&r->srq->refs);
	xqp_free(r->seg);
	xqp_free(r->rwqe);
	xqp_free(r);
}

/**
 * soft_wire_connect - a connected QP of a linked device moves on.
 * @qp: the QP.
 * @old_state: its state before.
 * @new_state: RTR or RTS.
 *
 * To RTR: its peer is on the wire when no device of this kernel in the
 * link's namespace has the peer's GID; the responder expects rq_psn. From
 * RTR to RTS: the requester sends from sq_psn.
 *
 * Context: modify_qp.
 */
void soft_wire_connect(struct soft_qp *qp, int old_state, int new_state)
{
	struct soft_link *link = qp->obj.soft->link;
	struct xqp_ah_attr av;
	unsigned long flags;
	xqp_u32 rq_psn, sq_psn;

	if (!link || !qp->wresp || soft_is_ud(qp->type))
		return;
	flags = xqp_spin_lock_irqsave(&qp->lock);
	av = qp->attr.ah_attr;
	rq_psn = qp->attr.rq_psn;
	sq_psn = qp->attr.sq_psn;
	xqp_spin_unlock_irqrestore(&qp->lock, flags);
	if (new_state == XQP_QPS_RTR) {
		flags = xqp_spin_lock_irqsave(&qp->wresp->lock);
		qp->wresp->epsn = rq_psn & SOFT_PSN_MASK;
		xqp_spin_unlock_irqrestore(&qp->wresp->lock, flags);
		__atomic_store_n(&qp->on_wire, (xqp_u8)(link->sock && av.is_global &&
					!soft_fabric_gid_is_local(av.dgid, link->net)),
				 __ATOMIC_RELEASE);
	} else if (old_state == XQP_QPS_RTR) {
		flags = xqp_spin_lock_irqsave(&qp->sq.lock);
		qp->wreq.tx_psn = sq_psn & SOFT_PSN_MASK;
		qp->wreq.una = qp->wreq.tx_psn;
		qp->wreq.max_psn = qp->wreq.tx_psn;
		xqp_spin_unlock_irqrestore(&qp->sq.lock, flags);
	}
}

/* RESET: nothing outstanding, nothing half received. */
void soft_wire_reset(struct soft_qp *qp)
{
	struct soft_wire_resp *r = qp->wresp;
	struct soft_srq *srq = NULL;
	unsigned long flags;

	flags = xqp_spin_lock_irqsave(&qp->sq.lock);
	qp->wreq.tx_idx = 0;
	qp->wreq.tx_off = 0;
	qp->wreq.rd_out = 0;
	qp->wreq.rnr_wait = 0;
	qp->wreq.read_reasked = 0;
	qp->wreq.went_back = 0;
	qp->wreq.since_ackreq = 0;
	qp->wreq.retry_left = -1;
	qp->wreq.rnr_left = -1;
	xqp_spin_unlock_irqrestore(&qp->sq.lock, flags);
	__atomic_store_n(&qp->on_wire, 0, __ATOMIC_RELEASE);
	if (!r)
		return;
	flags = xqp_spin_lock_irqsave(&r->lock);
	r->msg = 0;
	r->drop = 0;
	r->nak_sent = 0;
	r->msn = 0;
	r->offset = 0;
	r->have_rwqe = 0;	/* a taken receive WQE is gone with the RESET */
	srq = r->srq;
	r->srq = NULL;
	__builtin_memset(r->res, 0, sizeof(r->res));
	r->read_qn = 0;
	r->nak_busy = 0;
	xqp_spin_unlock_irqrestore(&r->lock, flags);
	if (srq)
		soft_refs_put(&srq->refs);
}
