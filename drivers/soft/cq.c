// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues of the soft device: a ring of struct xqp_wc under the
 * CQ's own spinlock (class XQP_LOCK_SOFT_CQ, never held with another soft
 * lock), armed by req_notify_cq. The completion handler, the poll wake and
 * the CQ_ERR event of an overrun are called after the lock is dropped.
 */
#include "soft_priv.h"

int soft_cq_init(struct soft_cq *cq, int cqe)
{
	cq->ring = xqp_kvzalloc((xqp_size_t)cqe * sizeof(*cq->ring));
	if (!cq->ring)
		return -XQP_ENOMEM;
	cq->cqe = cqe;
	xqp_spin_init(&cq->lock, XQP_LOCK_SOFT_CQ);
	soft_refs_init(&cq->refs);
	return 0;
}

void soft_cq_fini(struct soft_cq *cq)
{
	xqp_kvfree(cq->ring);
	cq->ring = NULL;
}

/**
 * soft_cq_post - queue a completion.
 * @cq: the CQ.
 * @wc: the completion.
 * @solicited: a receive of a message sent with XQP_SEND_SOLICITED.
 *
 * An armed CQ calls its completion handler once (NEXT_COMP: for any
 * completion; SOLICITED: for a solicited or failed one); a CQ armed for
 * a poller's wake wakes it once, for any completion queued. A full CQ
 * loses the completion and reports XQP_EVENT_CQ_ERR, as a CQ overrun does
 * on IB.
 *
 * Context: any (the handler runs in it).
 */
void soft_cq_post(struct soft_cq *cq, const struct xqp_wc *wc, int solicited)
{
	int overrun = 0, fire = 0, wake = 0;
	unsigned long flags;

	flags = xqp_spin_lock_irqsave(&cq->lock);
	if (cq->count == (xqp_u32)cq->cqe) {
		__atomic_add_fetch(&cq->overruns, 1, __ATOMIC_RELAXED);
		overrun = 1;
	} else {
		cq->ring[(cq->head + cq->count) % (xqp_u32)cq->cqe] = *wc;
		cq->count++;
		fire = cq->armed == XQP_CQ_NEXT_COMP ||
		       (cq->armed == XQP_CQ_SOLICITED &&
			(solicited || wc->status != XQP_WC_SUCCESS));
		if (fire)
			cq->armed = 0;
		wake = cq->poll_wake;
		cq->poll_wake = 0;
	}
	xqp_spin_unlock_irqrestore(&cq->lock, flags);
	if (overrun)
		xqp_cq_event(cq->core_cq, XQP_EVENT_CQ_ERR);
	else if (fire)
		xqp_cq_comp(cq->core_cq);
	if (wake)
		xqp_cq_poll_wake(cq->core_cq);
}

int soft_poll_cq(void *drv, void *drv_cq, int num, struct xqp_wc *wc)
{
	struct soft_cq *cq = drv_cq;
	unsigned long flags;
	xqp_u32 n, i;
	int err;

	err = soft_enter_data_path(drv, XQP_SOFT_OP_POLL_CQ);
	if (err)
		return err;	/* nothing taken */
	if (!soft_owns(drv, cq))
		return -XQP_EINVAL;
	flags = xqp_spin_lock_irqsave(&cq->lock);
	n = soft_min((xqp_u32)num, cq->count);
	for (i = 0; i < n; i++)
		wc[i] = cq->ring[(cq->head + i) % (xqp_u32)cq->cqe];
	cq->head = (cq->head + n) % (xqp_u32)cq->cqe;
	cq->count -= n;
	xqp_spin_unlock_irqrestore(&cq->lock, flags);
	return (int)n;
}

int soft_req_notify_cq(void *drv, void *drv_cq, int flags)
{
	struct soft_cq *cq = drv_cq;
	unsigned long irq;
	int missed;

	missed = soft_enter_data_path(drv, XQP_SOFT_OP_REQ_NOTIFY_CQ);
	if (missed)
		return missed;	/* the injected error; not armed */
	if (!soft_owns(drv, cq))
		return -XQP_EINVAL;
	irq = xqp_spin_lock_irqsave(&cq->lock);
	if (flags & XQP_CQ_ARM_POLL_WAKE)
		cq->poll_wake = !cq->count;	/* none if entries wait; req_notify's as it was */
	else if ((flags & XQP_CQ_SOLICITED_MASK) == XQP_CQ_NEXT_COMP)
		cq->armed = XQP_CQ_NEXT_COMP;
	else if (cq->armed != XQP_CQ_NEXT_COMP)
		cq->armed = XQP_CQ_SOLICITED;
	missed = (flags & XQP_CQ_REPORT_MISSED_EVENTS) && cq->count;
	xqp_spin_unlock_irqrestore(&cq->lock, irq);
	return missed;
}

int soft_resize_cq(void *drv, void *drv_cq, int cqe, int *granted)
{
	struct xqp_soft *soft = drv;
	struct soft_cq *cq = drv_cq;
	struct xqp_wc *ring, *old;
	xqp_u32 size, i;
	unsigned long flags;
	int err;

	err = soft_enter_obj(soft, XQP_SOFT_OP_RESIZE_CQ, cq);
	if (err)
		return err;	/* the CQ as it was */
	if (!xqp_rules_cqe_ok(&soft->lim, cqe))
		return -XQP_EINVAL;
	size = xqp_rules_grant_wr((xqp_u32)cqe, soft->lim.max_cqe);
	ring = xqp_kvzalloc((xqp_size_t)size * sizeof(*ring));
	if (!ring)
		return -XQP_ENOMEM;

	flags = xqp_spin_lock_irqsave(&cq->lock);
	if (cq->count > size) {
		err = -XQP_EINVAL;
		old = ring;
	} else {
		for (i = 0; i < cq->count; i++)
			ring[i] = cq->ring[(cq->head + i) % (xqp_u32)cq->cqe];
		old = cq->ring;
		cq->ring = ring;
		cq->head = 0;
		cq->cqe = (int)size;
	}
	xqp_spin_unlock_irqrestore(&cq->lock, flags);
	xqp_kvfree(old);
	if (!err)
		*granted = (int)size;
	return err;
}

/**
 * xqp_soft_cq_overruns - completions a CQ lost because it was full.
 * @soft: the soft device.
 * @core_cq: the core CQ.
 *
 * Return: the count, or 0 for a CQ that is not a live CQ of @soft.
 */
xqp_u64 xqp_soft_cq_overruns(struct xqp_soft *soft, struct xqp_cq *core_cq)
{
	struct soft_cq *cq;
	unsigned long flags;
	xqp_u64 n = 0;

	flags = xqp_spin_lock_irqsave(&soft->lock);
	for (cq = soft->cqs; cq; cq = cq->next) {
		if (cq->core_cq == core_cq) {
			n = __atomic_load_n(&cq->overruns, __ATOMIC_RELAXED);
			break;
		}
	}
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
	return n;
}
