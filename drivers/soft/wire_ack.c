// SPDX-License-Identifier: GPL-2.0
/*
 * The completer on the wire: what a responder outside this kernel answered
 * to a connected requester (RC, XRC INI): ACKs and NAKs (AETH), READ
 * responses and atomic ACKs, taken in the UDP socket's receive context.
 *
 * A response acknowledges every PSN up to its own (IBA 9.7.6): the WQEs
 * it covers complete in order. A READ or atomic completes only by its own
 * response; an ACK past one whose response is missing means the response
 * was lost, and the READ is asked again. A sequence NAK sends again from
 * its PSN; an RNR NAK waits the responder's timer first; both take a retry.
 * Other NAKs fail the WQE they name and move the QP to ERR.
 */
#include "soft_priv.h"

/* @psn is at or after @ref, within half the PSN space. */
static int soft_psn_ge(xqp_u32 psn, xqp_u32 ref)
{
	return !(soft_psn_diff(psn, ref) & 0x800000);
}

/* Whether the head WQE has been sent, in part at least (and is not acknowledged). */
static int soft_head_sent(struct soft_qp *qp)
{
	return qp->sq.count && qp->wreq.una != qp->wreq.max_psn;
}

/*
 * Completes the sent SEND and WRITE WQEs that end at or before @psn, in
 * order; stops at a READ or atomic (rewinding to it when @psn is past its
 * start: its response was lost). Takes and drops sq.lock as it goes.
 * Return: with sq.lock held again (*@flags), 1 if it stopped at a READ or
 * atomic that @psn reaches.
 */
static int soft_ack_upto(struct soft_qp *qp, xqp_u32 psn, unsigned long *flags)
{
	struct soft_wire_req *rq = &qp->wreq;

	while (soft_head_sent(qp)) {
		struct soft_swqe *w = soft_head(qp);
		xqp_u32 last = (w->wire_psn + w->wire_npsn - 1) & SOFT_PSN_MASK;

		if (soft_is_rd_atomic(w->opcode))
			return soft_psn_ge(psn, w->wire_psn);
		if (!soft_psn_ge(psn, last)) {
			if (soft_psn_ge(psn, rq->una)) {
				rq->una = (psn + 1) & SOFT_PSN_MASK;
				soft_wire_progress(qp);
				/* a rewind went back past it: resume at una */
				if (!soft_psn_ge(rq->tx_psn, rq->una))
					soft_wire_rewind(qp, rq->una);
			}
			return 0;
		}
		rq->una = (last + 1) & SOFT_PSN_MASK;
		soft_wire_progress(qp);
		soft_wire_pop(qp, *flags, XQP_WC_SUCCESS);
		*flags = xqp_spin_lock_irqsave(&qp->sq.lock);
	}
	return 0;
}

/* The NAK's status for the requester's completion. */
static int soft_nak_status(xqp_u8 syndrome)
{
	switch (syndrome & 0x1f) {
	case SOFT_NAK_REMOTE_ACCESS:
		return XQP_WC_REM_ACCESS_ERR;
	case SOFT_NAK_REMOTE_OP_ERR:
		return XQP_WC_REM_OP_ERR;
	default:
		return XQP_WC_REM_INV_REQ_ERR;
	}
}

/* Writes a response's @len bytes at @off of the head WQE's local SGEs. */
static void soft_ack_place(struct soft_qp *qp, struct soft_swqe *w, xqp_u64 off,
			   const xqp_u8 *data, xqp_u32 len)
{
	struct soft_seg src = { .mr = NULL, .buf = (char *)data, .length = len };
	xqp_u64 total;
	xqp_u32 i, n = w->num_sge;
	struct soft_seg *seg = qp->wreq.seg;	/* the completer's, under sq.lock */

	if (soft_sges_get(qp->obj.soft, qp->pd, w->sge, n, XQP_ACCESS_LOCAL_WRITE, seg,
			  &total) != XQP_WC_SUCCESS)
		return;
	for (i = 0; i < n && off; i++) {
		xqp_u64 k = off < seg[i].length ? off : seg[i].length;

		seg[i].offset += k;
		seg[i].length -= (xqp_u32)k;
		off -= k;
	}
	soft_segs_copy(seg, n, &src, 1, len);
	soft_segs_put(seg, n);
}

/* A READ response or atomic ACK for the head: 1 if it completed the WQE. */
static int soft_ack_data(struct soft_qp *qp, struct soft_rx *rx, xqp_u32 mtu)
{
	struct soft_pkt *p = &rx->pkt;
	struct soft_swqe *w = soft_head(qp);
	xqp_u32 want = (w->wire_psn + w->wire_got) & SOFT_PSN_MASK;
	xqp_u8 orig[8];

	if (p->mask & SOFT_OPF_ATMACK) {
		if (!soft_is_atomic(w->opcode) || p->psn != w->wire_psn)
			return -1;
		__builtin_memcpy(orig, &p->orig, 8);	/* the host's order, as exec.c */
		soft_ack_place(qp, w, 0, orig, 8);
		return 1;
	}
	if (w->opcode != XQP_WR_RDMA_READ || p->psn != want)
		return -1;
	if (p->payload_len > mtu || (!(p->mask & SOFT_OPF_LAST) && p->payload_len != mtu) ||
	    (xqp_u64)w->wire_got * mtu + p->payload_len > w->length)
		return -1;
	soft_ack_place(qp, w, (xqp_u64)w->wire_got * mtu, rx->payload, p->payload_len);
	w->wire_got++;
	qp->wreq.una = (p->psn + 1) & SOFT_PSN_MASK;
	qp->wreq.read_reasked = 0;
	soft_wire_progress(qp);
	return (p->mask & SOFT_OPF_LAST) ? 1 : 0;
}

/*
 * A response that is not the one the head READ or atomic waits for means
 * its own was lost (or comes late); what it brought is dropped. It is
 * asked again at once (from the missing packet), once until a response
 * moves on, when the response is
 * - a READ response past the packet the head READ waits for, while
 *   nothing was sent after it: as rxe's completer, sooner than the timer;
 * - a response to a later request (a READ response or atomic ACK past the
 *   head's PSNs): as rxe's completer does, the responder answers in order,
 *   so the head's answer will not come. With READs in flight behind the
 *   head (ib_read_bw keeps 16), each loss waited out the ACK timeout.
 * Asking again goes back over every request after the head; the rest of
 * their first responses, still coming, are strays until the new ones.
 * Return: 1 if this was such a response (sq.lock dropped), 0 if not.
 */
static int soft_ack_lost(struct soft_qp *qp, const struct soft_pkt *p, unsigned long flags)
{
	struct soft_wire_req *rq = &qp->wreq;
	struct soft_swqe *w = soft_head(qp);
	xqp_u32 into = soft_psn_diff(p->psn, w->wire_psn);
	int later, inside;

	if (!soft_is_rd_atomic(w->opcode) || rq->read_reasked ||
	    !(p->mask & (SOFT_OPF_READ | SOFT_OPF_ATMACK)))
		return 0;
	later = into >= w->wire_npsn;
	inside = !later && w->opcode == XQP_WR_RDMA_READ && (p->mask & SOFT_OPF_READ) &&
		 into > w->wire_got &&
		 rq->max_psn == ((w->wire_psn + w->wire_npsn) & SOFT_PSN_MASK);
	if (!later && !inside)
		return 0;
	rq->read_reasked = 1;
	SOFT_WIRE_COUNT(qp->obj.soft, retransmits);
	if (!soft_wire_take_retry(qp, 0)) {
		soft_wire_pop(qp, flags, XQP_WC_RETRY_EXC_ERR);
		return 1;
	}
	soft_wire_rewind(qp, rq->una);
	xqp_spin_unlock_irqrestore(&qp->sq.lock, flags);
	return 1;
}

/* A NAK (any kind) at PSN @psn. Caller holds sq.lock; drops it. */
static void soft_ack_nak(struct soft_qp *qp, const struct soft_pkt *p, unsigned long flags)
{
	struct xqp_soft *soft = qp->obj.soft;
	xqp_u8 kind = SOFT_AETH_KIND(p->syndrome);

	if (kind == SOFT_AETH_RNR_NAK) {
		SOFT_WIRE_COUNT(soft, rnr_naks_taken);
		if (!soft_wire_take_retry(qp, 1)) {
			soft_wire_pop(qp, flags, XQP_WC_RNR_RETRY_EXC_ERR);
			return;
		}
		soft_wire_rewind(qp, p->psn);
		qp->wreq.rnr_wait = 1;
		qp->wreq.timer_on = 1;
		xqp_work_reschedule(&qp->wreq.timer, soft_rnr_delay_us(p->syndrome & 0x1f));
		xqp_spin_unlock_irqrestore(&qp->sq.lock, flags);
		return;
	}
	if ((p->syndrome & 0x1f) == SOFT_NAK_PSN_SEQ_ERR) {
		/*
		 * Sending again from there is what it asks: once. After an RNR
		 * NAK the rest of that message arrives out of sequence too, and
		 * its NAK may come after the RNR wait ended (10 us at
		 * min_rnr_timer 1): sent again from there already, with nothing
		 * acknowledged since, it asks for nothing new (it took a retry
		 * each time, and ran a SEND out of them while its receive came).
		 */
		if (qp->wreq.rnr_wait || qp->wreq.tx_psn == p->psn ||
		    (qp->wreq.went_back && qp->wreq.back_psn == p->psn)) {
			xqp_spin_unlock_irqrestore(&qp->sq.lock, flags);
			return;
		}
		SOFT_WIRE_COUNT(soft, retransmits);
		if (!soft_wire_take_retry(qp, 0)) {
			soft_wire_pop(qp, flags, XQP_WC_RETRY_EXC_ERR);
			return;
		}
		soft_wire_rewind(qp, p->psn);
		xqp_spin_unlock_irqrestore(&qp->sq.lock, flags);
		xqp_work_queue(&qp->work, 0);
		return;
	}
	SOFT_WIRE_COUNT(soft, naks_taken);
	soft_wire_pop(qp, flags, soft_nak_status(p->syndrome));
}

/**
 * soft_wire_ack - a response to @qp's requests arrived.
 * @qp: an RC or XRC INI QP, referenced.
 * @rx: the packet.
 *
 * Context: softirq (the socket's receive), no lock held.
 */
void soft_wire_ack(struct soft_qp *qp, struct soft_rx *rx)
{
	struct soft_pkt *p = &rx->pkt;
	struct soft_wire_req *rq = &qp->wreq;
	xqp_u32 mtu = soft_wire_mtu(qp);
	unsigned long flags;
	int done, read_hit;

	flags = xqp_spin_lock_irqsave(&qp->sq.lock);
	/* only a PSN in flight: [una, max_psn) */
	if (!soft_head_sent(qp) ||
	    soft_psn_diff(p->psn, rq->una) >= soft_psn_diff(rq->max_psn, rq->una)) {
		xqp_spin_unlock_irqrestore(&qp->sq.lock, flags);
		SOFT_WIRE_COUNT(qp->obj.soft, rx_stray_ack);
		return;
	}
	if (p->opcode == (SOFT_OP_TRANSPORT(p->opcode) | SOFT_OP_ACKNOWLEDGE) &&
	    SOFT_AETH_KIND(p->syndrome) != SOFT_AETH_ACK) {
		/* a NAK names the PSN it could not take: what is before it is acknowledged */
		read_hit = soft_ack_upto(qp, (p->psn - 1) & SOFT_PSN_MASK, &flags);
		if (soft_head_sent(qp) && (!read_hit || soft_head(qp)->wire_psn == p->psn))
			soft_ack_nak(qp, p, flags);
		else
			xqp_spin_unlock_irqrestore(&qp->sq.lock, flags);
		goto kick;
	}
	if (!(p->mask & (SOFT_OPF_READ | SOFT_OPF_ATMACK))) {	/* a plain ACK */
		if (soft_ack_upto(qp, p->psn, &flags)) {
			SOFT_WIRE_COUNT(qp->obj.soft, retransmits);
			soft_wire_rewind(qp, soft_head(qp)->wire_psn);
		}
		xqp_spin_unlock_irqrestore(&qp->sq.lock, flags);
		goto kick;
	}
	/* a READ response or atomic ACK also acknowledges what precedes it */
	soft_ack_upto(qp, (p->psn - 1) & SOFT_PSN_MASK, &flags);
	done = soft_head_sent(qp) ? soft_ack_data(qp, rx, mtu) : -1;
	if (done < 0) {		/* out of order: asked again now or by the timer */
		SOFT_WIRE_COUNT(qp->obj.soft, rx_stray_ack);
		if (soft_head_sent(qp) && soft_ack_lost(qp, p, flags))
			goto kick;
		xqp_spin_unlock_irqrestore(&qp->sq.lock, flags);
		return;
	}
	if (done) {
		struct soft_swqe *w = soft_head(qp);

		rq->una = (w->wire_psn + w->wire_npsn) & SOFT_PSN_MASK;
		soft_wire_progress(qp);
		soft_wire_pop(qp, flags, XQP_WC_SUCCESS);
	} else {
		xqp_spin_unlock_irqrestore(&qp->sq.lock, flags);
	}
kick:
	/* the window moved, or a rewind: the runner sends */
	xqp_work_queue(&qp->work, 0);
}
