// SPDX-License-Identifier: GPL-2.0
/*
 * xqp_soft: QPs: create with granted capabilities (a GSI QP, for the
 * kernel's MAD layer, is number 1 and otherwise UD), state changes validated
 * with the IB spec table (rules/qp_attr.h), attributes kept and queried,
 * destroy that waits out events and remote requesters. Each QP's own lock
 * protects its state and attributes.
 */
#include "soft_priv.h"
#include "rules/qp_attr.h"


int soft_create_qp(void *drv, const struct xqp_drv_qp_create *req,
		   struct xqp_drv_qp_created *out)
{
	struct xqp_soft *soft = drv;
	struct xqp_qp_cap cap = req->cap;
	struct soft_qp *qp;
	xqp_u32 qpn;
	int err;

	err = soft_enter(soft, XQP_SOFT_OP_CREATE_QP);
	if (err)
		return err;
	if ((!XQP_RULES_QP_TYPE_OK(XQP_QPT_, req->qp_type) && req->qp_type != XQP_QPT_GSI) ||
	    req->create_flags)
		return -XQP_EOPNOTSUPP;
	if (req->qp_type == XQP_QPT_GSI && req->port_num != 1)
		return -XQP_EINVAL;
	err = XQP_RULES_GRANT_QP_CAP(&soft->lim, &cap, !!req->srq);
	if (err)
		return err;

	qp = xqp_zalloc(sizeof(*qp), XQP_GFP_KERNEL_ACCOUNT);
	if (!qp)
		return -XQP_ENOMEM;
	qp->obj.soft = soft;
	qp->type = req->qp_type;
	qp->sq_sig_type = req->sq_sig_type;
	qp->core_qp = req->core_qp;
	qp->pd = req->pd;
	qp->send_cq = req->send_cq;
	qp->recv_cq = req->recv_cq;
	qp->srq = req->srq;
	qp->xrcd = req->xrcd;
	soft_refs_init(&qp->refs);
	xqp_spin_init(&qp->lock, XQP_LOCK_SOFT);
	qp->attr.qp_state = XQP_QPS_RESET;
	qp->attr.cur_qp_state = XQP_QPS_RESET;
	qp->state = XQP_QPS_RESET;
	qp->attr.cap = cap;
	qp->attr.port_num = (xqp_u8)req->port_num;
	err = soft_qp_queues_init(qp);
	if (err)
		goto err_free;
	err = soft_wire_qp_init(qp);
	if (err)
		goto err_queues;

	if (qp->type == XQP_QPT_GSI) {
		/* one per port: a second is EBUSY */
		qpn = SOFT_GSI_QPN;
		err = soft_numtab_insert_at(soft, &soft->qpns, &soft->counts.qp,
					    soft->lim.max_qp, qp, qpn);
	} else {
		err = soft_numtab_insert(soft, &soft->qpns, &soft->counts.qp,
					 soft->lim.max_qp, qp, &qpn);
	}
	if (err)
		goto err_wire;
	qp->qp_num = qpn;

	out->drv_qp = qp;
	out->qp_num = qpn;
	out->cap = cap;
	return 0;

err_wire:
	soft_wire_qp_fini(qp);
err_queues:
	soft_qp_queues_fini(qp);
err_free:
	xqp_free(qp);
	return err;
}

/*
 * The checks of modify_qp that do not depend on the QP's state (the shared
 * rules, rules/qp_attr.h). XQP_QP_CAP (resizing) is refused here, not only
 * by the transition table (ib_modify_qp_is_ok() allows it in none): the
 * rings are sized at creation and could not follow.
 */
static int soft_check_qp_attr(struct xqp_soft *soft, const struct xqp_qp_attr *attr,
			      int mask)
{
	if (mask & XQP_QP_CAP)
		return -XQP_EINVAL;
	if (XQP_RULES_QP_ATTR_BAD(XQP_QP_, attr, mask, &soft->lim))
		return -XQP_EINVAL;
	return 0;
}

/* An address vector is kept as given. */
static void soft_keep_ah(struct xqp_ah_attr *dst, const struct xqp_ah_attr *src)
{
	*dst = *src;
}

/* Keeps every attribute in @mask (rules/qp_attr.h). Caller holds qp->lock. */
static void soft_store_qp_attr(struct soft_qp *qp, const struct xqp_qp_attr *attr,
			       int mask)
{
	XQP_RULES_QP_ATTR_KEEP(XQP_QP_, &qp->attr, attr, mask, soft_keep_ah);
}

int soft_modify_qp(void *drv, void *drv_qp, const struct xqp_qp_attr *attr,
		   int mask)
{
	struct xqp_soft *soft = drv;
	struct soft_qp *qp = drv_qp;
	enum xqp_qp_state old, cur, next;
	unsigned long flags;
	int sqd_notify;
	int err;

	err = soft_enter_obj(soft, XQP_SOFT_OP_MODIFY_QP, qp);
	if (err)
		return err;
	err = soft_check_qp_attr(soft, attr, mask);
	if (err)
		return err;

	flags = xqp_spin_lock_irqsave(&qp->lock);
	old = qp->attr.qp_state;
	cur = (mask & XQP_QP_CUR_STATE) ? attr->cur_qp_state : old;
	next = (mask & XQP_QP_STATE) ? attr->qp_state : cur;
	if (!xqp_modify_qp_is_ok(cur, next, qp->type, mask)) {
		err = -XQP_EINVAL;
	} else {
		qp->attr.qp_state = next;
		__atomic_store_n(&qp->state, next, __ATOMIC_RELEASE);
		soft_store_qp_attr(qp, attr, mask);
	}
	sqd_notify = qp->attr.en_sqd_async_notify;
	xqp_spin_unlock_irqrestore(&qp->lock, flags);
	if (!err)
		soft_qp_state_changed(qp, old, next, sqd_notify);
	return err;
}

int soft_query_qp(void *drv, void *drv_qp, struct xqp_qp_attr *attr,
		  int attr_mask)
{
	struct xqp_soft *soft = drv;
	struct soft_qp *qp = drv_qp;
	unsigned long flags;
	int err;

	(void)attr_mask;	/* like rxe, everything is reported */
	err = soft_enter_obj(soft, XQP_SOFT_OP_QUERY_QP, qp);
	if (err)
		return err;

	flags = xqp_spin_lock_irqsave(&qp->lock);
	*attr = qp->attr;
	xqp_spin_unlock_irqrestore(&qp->lock, flags);
	attr->cur_qp_state = attr->qp_state;
	return 0;
}

int soft_destroy_qp(void *drv, void *drv_qp)
{
	struct xqp_soft *soft = drv;
	struct soft_qp *qp = drv_qp;
	int err;

	err = soft_enter_obj(soft, XQP_SOFT_OP_DESTROY_QP, qp);
	if (err)
		return err;
	/*
	 * Unreachable by number and by multicast group; then wait out events
	 * and deliveries already on their way.
	 */
	soft_numtab_delete(soft, &soft->qpns, &soft->counts.qp, qp->qp_num);
	soft_mcast_qp_gone(qp);
	soft_refs_drain(&qp->refs);
	soft_wire_qp_stop(qp);
	soft_sq_stop(qp);
	soft_wire_qp_fini(qp);
	soft_qp_queues_fini(qp);
	xqp_free(qp);
	return 0;
}

/* Unpolled completions and overruns of @cq (NULL: none). */
static void soft_cq_state(struct soft_cq *cq, xqp_u32 *count, xqp_u64 *overruns)
{
	unsigned long flags;

	if (!cq)
		return;
	flags = xqp_spin_lock_irqsave(&cq->lock);
	*count = cq->count;
	*overruns = cq->overruns;
	xqp_spin_unlock_irqrestore(&cq->lock, flags);
}

/**
 * xqp_soft_qp_state - one QP's transport state, for debugfs.
 * @soft: the soft device.
 * @qp_num: the first QP number to look at.
 * @out: the state of the QP numbered @qp_num, or of the next one above it.
 *
 * Each lock is taken on its own, so the fields are a snapshot of each part,
 * not of the whole.
 *
 * Context: any.
 * Return: 1 with *@out filled, 0 when no QP is numbered @qp_num or above.
 */
int xqp_soft_qp_state(struct xqp_soft *soft, xqp_u32 qp_num,
		      struct xqp_soft_qp_state *out)
{
	struct soft_qp *qp = soft_qp_get_next(soft, &qp_num);
	unsigned long flags;

	if (!qp)
		return 0;
	*out = (struct xqp_soft_qp_state){ .qp_num = qp_num, .type = qp->type };
	flags = xqp_spin_lock_irqsave(&qp->lock);
	out->state = qp->attr.qp_state;
	out->dest_qp_num = qp->attr.dest_qp_num;
	out->sq_psn = qp->attr.sq_psn;
	out->rq_psn = qp->attr.rq_psn;
	xqp_spin_unlock_irqrestore(&qp->lock, flags);

	flags = xqp_spin_lock_irqsave(&qp->sq.lock);
	out->sq_count = qp->sq.count;
	out->sq_running = qp->sq_running;
	out->head_wait = qp->head_wait;
	out->head_started = qp->head_started;
	out->rnr_left = qp->rnr_left;
	out->retry_left = qp->retry_left;
	out->on_wire = qp->on_wire;
	out->tx_psn = qp->wreq.tx_psn;
	out->una = qp->wreq.una;
	out->max_psn = qp->wreq.max_psn;
	out->tx_idx = qp->wreq.tx_idx;
	out->tx_off = qp->wreq.tx_off;
	out->rd_out = qp->wreq.rd_out;
	out->timer_on = qp->wreq.timer_on;
	out->rnr_wait = qp->wreq.rnr_wait;
	xqp_spin_unlock_irqrestore(&qp->sq.lock, flags);
	if (qp->wresp) {
		flags = xqp_spin_lock_irqsave(&qp->wresp->lock);
		out->epsn = qp->wresp->epsn;
		out->resp_msg = qp->wresp->msg;
		out->resp_busy = qp->wresp->busy;
		out->resp_nak_sent = qp->wresp->nak_sent;
		xqp_spin_unlock_irqrestore(&qp->wresp->lock, flags);
	}

	flags = xqp_spin_lock_irqsave(&qp->rq.lock);	/* an empty ring without an RQ */
	out->rq_count = qp->rq.count;
	xqp_spin_unlock_irqrestore(&qp->rq.lock, flags);
	soft_cq_state(qp->send_cq, &out->send_cq_count, &out->send_cq_overruns);
	soft_cq_state(qp->recv_cq, &out->recv_cq_count, &out->recv_cq_overruns);
	soft_refs_put(&qp->refs);
	return 1;
}
