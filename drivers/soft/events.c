// SPDX-License-Identifier: GPL-2.0
/*
 * xqp_soft: async events raised as hardware would raise them (tests and the
 * data path call these), and the QP number cursor. No soft lock is held
 * while the core's handlers run: the object's refs keep it alive.
 */
#include "soft_priv.h"

/**
 * xqp_soft_raise_qp_event - report an async event on a QP, as hardware would.
 * @soft: the soft device.
 * @qp_num: the QP's number.
 * @type: the event.
 *
 * Calls xqp_qp_event() with the core's cookie for the QP. No soft lock is
 * held meanwhile, but the QP cannot go away: destroy_qp waits for events
 * already on their way, so once it has returned no event for the QP is in
 * flight and none can start.
 *
 * Context: any; xqp_qp_event() runs the handlers in atomic context.
 * Return: 0, or -EINVAL if no QP has that number.
 */
int xqp_soft_raise_qp_event(struct xqp_soft *soft, xqp_u32 qp_num,
			    enum xqp_event_type type)
{
	struct soft_qp *qp = soft_qp_get(soft, qp_num);

	if (!qp)
		return -XQP_EINVAL;
	if (qp->core_qp)
		xqp_qp_event(qp->core_qp, type);
	soft_refs_put(&qp->refs);
	return 0;
}

/**
 * xqp_soft_raise_srq_event - report an async event on an SRQ, as hardware would.
 * @soft: the soft device.
 * @srq_num: the SRQ's number (xqp_srq_num()).
 * @type: the event (XQP_EVENT_SRQ_ERR, XQP_EVENT_SRQ_LIMIT_REACHED).
 *
 * Calls xqp_srq_event() with the core's cookie for the SRQ, under no soft
 * lock; destroy_srq waits for events already on their way, as destroy_qp
 * does, so none is in flight once it has returned.
 *
 * Context: any; xqp_srq_event() runs the handler in atomic context.
 * Return: 0, or -EINVAL if no SRQ has that number.
 */
int xqp_soft_raise_srq_event(struct xqp_soft *soft, xqp_u32 srq_num,
			     enum xqp_event_type type)
{
	struct soft_srq *srq = soft_srq_get(soft, srq_num);

	if (!srq)
		return -XQP_EINVAL;
	if (srq->core_srq)
		xqp_srq_event(srq->core_srq, type);
	soft_refs_put(&srq->refs);
	return 0;
}

/**
 * xqp_soft_raise_cq_event - report an async event on a CQ, as hardware would.
 * @soft: the soft device.
 * @core_cq: the core CQ (soft CQs have no number; this is the test handle).
 * @type: the event (XQP_EVENT_CQ_ERR).
 *
 * Looks @core_cq up among the device's live CQs under the soft lock (the
 * pointer is only compared, never followed, until it is found) and calls
 * xqp_cq_event() under no soft lock; destroy_cq waits for events already on
 * their way, so a stale or destroyed pointer gets -EINVAL, never a call.
 *
 * Context: any; xqp_cq_event() runs the handler in atomic context.
 * Return: 0, or -EINVAL if @core_cq is no live CQ of @soft.
 */
int xqp_soft_raise_cq_event(struct xqp_soft *soft, struct xqp_cq *core_cq,
			    enum xqp_event_type type)
{
	struct soft_cq *cq;
	unsigned long flags;

	flags = xqp_spin_lock_irqsave(&soft->lock);
	for (cq = soft->cqs; cq; cq = cq->next)
		if (core_cq && cq->core_cq == core_cq)
			break;
	if (cq)
		soft_refs_get(&cq->refs);
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
	if (!cq)
		return -XQP_EINVAL;

	xqp_cq_event(cq->core_cq, type);
	soft_refs_put(&cq->refs);
	return 0;
}

/**
 * xqp_soft_set_qpn_cursor - move the QP number allocator, for tests.
 * @soft: the soft device.
 * @next: where the next search for a free QP number starts; numbers below
 *	  2 or above 2^24 - 1 make it start over at 2.
 *
 * Lets a test reach the wrap-around of the 24-bit space without creating
 * 2^24 QPs.
 *
 * Context: any.
 */
void xqp_soft_set_qpn_cursor(struct xqp_soft *soft, xqp_u32 next)
{
	unsigned long flags;

	if (next < soft->qpns.first || next >= SOFT_NUM_SPACE)
		next = soft->qpns.first;
	flags = xqp_spin_lock_irqsave(&soft->lock);
	soft->qpns.cursor = next;
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
}
