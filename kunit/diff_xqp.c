// SPDX-License-Identifier: GPL-2.0
/*
 * xqp_diff, the xqp executor: every step through xqp's kernel C API
 * (xqp/verbs.h) on a fresh soft device. The mirror of diff_linux.c: same
 * slots, same observations, xqp_ names.
 */
#include <linux/err.h>
#include <linux/slab.h>

#include "diff_defs.h"
#include "soft/soft.h"

/* The numbers of diff_defs.h are xqp's. */
static_assert(DX_QPT_RC == (int)XQP_QPT_RC && DX_QPT_UC == (int)XQP_QPT_UC &&
	      DX_QPT_UD == (int)XQP_QPT_UD && DX_QPT_XRC_INI == (int)XQP_QPT_XRC_INI &&
	      DX_QPT_XRC_TGT == (int)XQP_QPT_XRC_TGT);
static_assert(DX_RESET == (int)XQP_QPS_RESET && DX_RTS == (int)XQP_QPS_RTS && DX_ERR == (int)XQP_QPS_ERR);
static_assert(DX_M_STATE == (int)XQP_QP_STATE && DX_M_CUR_STATE == (int)XQP_QP_CUR_STATE &&
	      DX_M_EN_SQD == (int)XQP_QP_EN_SQD_ASYNC_NOTIFY && DX_M_ACCESS == (int)XQP_QP_ACCESS_FLAGS &&
	      DX_M_PKEY == (int)XQP_QP_PKEY_INDEX && DX_M_PORT == (int)XQP_QP_PORT &&
	      DX_M_QKEY == (int)XQP_QP_QKEY && DX_M_AV == (int)XQP_QP_AV && DX_M_MTU == (int)XQP_QP_PATH_MTU &&
	      DX_M_TIMEOUT == (int)XQP_QP_TIMEOUT && DX_M_RETRY == (int)XQP_QP_RETRY_CNT &&
	      DX_M_RNR_RETRY == (int)XQP_QP_RNR_RETRY && DX_M_RQ_PSN == (int)XQP_QP_RQ_PSN &&
	      DX_M_MAX_QP_RD == (int)XQP_QP_MAX_QP_RD_ATOMIC && DX_M_ALT_PATH == (int)XQP_QP_ALT_PATH &&
	      DX_M_MIN_RNR == (int)XQP_QP_MIN_RNR_TIMER && DX_M_SQ_PSN == (int)XQP_QP_SQ_PSN &&
	      DX_M_MAX_DEST_RD == (int)XQP_QP_MAX_DEST_RD_ATOMIC && DX_M_MIG == (int)XQP_QP_PATH_MIG_STATE &&
	      DX_M_CAP == (int)XQP_QP_CAP && DX_M_DEST_QPN == (int)XQP_QP_DEST_QPN &&
	      DX_M_RATE_LIMIT == (int)XQP_QP_RATE_LIMIT);
static_assert(DX_EV_QP_FATAL == (int)XQP_EVENT_QP_FATAL && DX_EV_COMM_EST == (int)XQP_EVENT_COMM_EST &&
	      DX_EV_PATH_MIG == (int)XQP_EVENT_PATH_MIG &&
	      DX_EV_LAST_WQE == (int)XQP_EVENT_QP_LAST_WQE_REACHED);
static_assert(DX_EV_CQ_ERR == (int)XQP_EVENT_CQ_ERR && DX_EV_SRQ_ERR == (int)XQP_EVENT_SRQ_ERR &&
	      DX_EV_SRQ_LIMIT == (int)XQP_EVENT_SRQ_LIMIT_REACHED);

struct xq_ctx;

struct xq_evctx {
	struct xq_ctx *xq;
	int slot;
};

struct xq_ctx {
	struct xqp_soft *soft;
	struct xqp_device *dev;
	struct xqp_xrcd *xrcd[DX_NX];
	struct xqp_pd *pd[DX_NP];
	struct xqp_cq *cq[DX_NC];
	struct xqp_srq *srq[DX_NS];
	struct xqp_qp *qp[DX_NQ];	/* what the user holds: handle or QP */
	struct xqp_qp *real[DX_NQ];	/* the real QP behind it, while it lives */
	u32 qpn[DX_NQ];
	u32 qpn_valid;
	struct xq_evctx evctx[DX_NQ];
	struct dx_ev ev[DX_NQ];
	/* CQ and SRQ events; the last CQ/SRQ destroyed in a slot (never followed) */
	struct xq_evctx cq_evctx[DX_NC], srq_evctx[DX_NS];
	struct dx_ev cq_ev[DX_NC], srq_ev[DX_NS];
	struct xqp_cq *cq_gone[DX_NC];
	u32 srqn[DX_NS];		/* xqp_srq_num() of the live or last SRQ */
	u32 srqn_valid;
};

static void xq_event(struct xqp_event *ev, void *context)
{
	struct xq_evctx *ec = context;
	struct xq_ctx *xq = ec->xq;

	dx_ev_record(&xq->ev[ec->slot], xq->qp, ev->element.qp, ev->event);
}

static void xq_cq_event(struct xqp_event *ev, void *context)
{
	struct xq_evctx *ec = context;
	struct xq_ctx *xq = ec->xq;

	dx_ev_record(&xq->cq_ev[ec->slot], xq->cq, ev->element.cq, ev->event);
}

static void xq_srq_event(struct xqp_event *ev, void *context)
{
	struct xq_evctx *ec = context;
	struct xq_ctx *xq = ec->xq;

	dx_ev_record(&xq->srq_ev[ec->slot], xq->srq, ev->element.srq, ev->event);
}

static void *xq_setup(struct kunit *test)
{
	struct xq_ctx *xq = kunit_kzalloc(test, sizeof(*xq), GFP_KERNEL);
	int i;

	if (!xq)
		return NULL;
	xq->soft = xqp_soft_create("xqp_diff", NULL);
	if (IS_ERR(xq->soft)) {
		kunit_err(test, "xqp_soft_create: %ld\n", PTR_ERR(xq->soft));
		return NULL;
	}
	xq->dev = xqp_soft_device(xq->soft);
	for (i = 0; i < DX_NQ; i++) {
		xq->evctx[i].xq = xq;
		xq->evctx[i].slot = i;
		xq->ev[i].elem = -1;
	}
	for (i = 0; i < DX_NC; i++) {
		xq->cq_evctx[i] = (struct xq_evctx){ .xq = xq, .slot = i };
		xq->cq_ev[i].elem = -1;
	}
	for (i = 0; i < DX_NS; i++) {
		xq->srq_evctx[i] = (struct xq_evctx){ .xq = xq, .slot = i };
		xq->srq_ev[i].elem = -1;
	}
	return xq;
}

static u32 xq_resolve_qpn(struct xq_ctx *xq, int src)
{
	if (src >= 0 && src < DX_NQ && (xq->qpn_valid & BIT(src)))
		return xq->qpn[src];
	return dx_literal_qpn(src < 0 ? src : DX_QPN_BOGUS);
}

static bool xq_qpn_reused(struct xq_ctx *xq, int q, u32 qpn)
{
	int i;

	for (i = 0; i < DX_NQ; i++)
		if (i != q && (xq->qpn_valid & BIT(i)) && xq->qpn[i] == qpn)
			return true;
	return false;
}

static void xq_record(struct xq_ctx *xq, int q, struct xqp_qp *qp)
{
	xq->qp[q] = qp;
	xq->real[q] = xqp_qp_real(qp);
	xq->qpn[q] = xqp_qp_num(qp);
	xq->qpn_valid |= BIT(q);
}

static void xq_forget_real(struct xq_ctx *xq, struct xqp_qp *real)
{
	int i;

	for (i = 0; i < DX_NQ; i++) {
		if (xq->real[i] == real)
			xq->real[i] = NULL;
		if (xq->qp[i] == real)
			xq->qp[i] = NULL;
	}
}

static void xq_fill_attr(const struct dx_step *s, struct xqp_qp_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->qp_state = s->arg;
	a->cur_qp_state = s->arg;
	a->pkey_index = 0;
	a->port_num = 1;
	a->qkey = DX_A_QKEY;
	a->qp_access_flags = DX_A_ACCESS;
	a->path_mtu = DX_A_MTU;
	a->dest_qp_num = DX_A_DEST_QPN;
	a->rq_psn = DX_A_RQ_PSN;
	a->sq_psn = DX_A_SQ_PSN;
	a->max_rd_atomic = DX_A_RD_ATOMIC;
	a->max_dest_rd_atomic = DX_A_RD_ATOMIC;
	a->min_rnr_timer = DX_A_MIN_RNR;
	a->timeout = DX_A_TIMEOUT;
	a->retry_cnt = DX_A_RETRY;
	a->rnr_retry = DX_A_RETRY;
	a->path_mig_state = DX_A_MIG;
	a->en_sqd_async_notify = 1;
	a->ah_attr.port_num = 1;
	a->ah_attr.sl = DX_A_SL;
	a->ah_attr.dlid = DX_A_DLID;
	a->alt_ah_attr.port_num = 1;
	a->alt_ah_attr.sl = DX_A_SL;
	a->alt_ah_attr.dlid = DX_A_ALT_DLID;
	a->alt_port_num = 1;
	a->alt_pkey_index = 0;
	a->alt_timeout = DX_A_TIMEOUT;
	a->cap.max_send_wr = 8;
	a->cap.max_recv_wr = 8;
	a->cap.max_send_sge = 1;
	a->cap.max_recv_sge = 1;

	switch (s->var) {
	case DX_V_PORT0:
		a->port_num = 0;
		break;
	case DX_V_PORT2:
		a->port_num = 2;
		break;
	case DX_V_PKEY64:
		a->pkey_index = 64;
		break;
	case DX_V_MTU6:
		a->path_mtu = 6;
		break;
	case DX_V_BIG_PSN:
		a->rq_psn |= DX_A_PSN_HIGH;
		a->sq_psn |= DX_A_PSN_HIGH;
		break;
	case DX_V_AV_PORT2:
		a->ah_attr.port_num = 2;
		break;
	case DX_V_ALT_AV_PORT2:
		a->alt_ah_attr.port_num = 2;
		break;
	case DX_V_ACCESS_BAD:
		a->qp_access_flags |= DX_A_ACCESS_BAD;
		break;
	case DX_V_CUR_RESET:
		a->cur_qp_state = XQP_QPS_RESET;
		break;
	case DX_V_CUR_RTS:
		a->cur_qp_state = XQP_QPS_RTS;
		break;
	case DX_V_CUR_SQD:
		a->cur_qp_state = XQP_QPS_SQD;
		break;
	}
}

static void xq_out_query(struct dx_obs *o, struct xqp_qp *qp, const struct xqp_qp_attr *a,
			 const struct xqp_qp_init_attr *init)
{
	long *v = o->out;
	int n = 0;

	v[n++] = a->qp_state;
	v[n++] = a->cur_qp_state;
	v[n++] = a->port_num;
	v[n++] = a->pkey_index;
	v[n++] = a->qkey;
	v[n++] = a->qp_access_flags;
	v[n++] = a->path_mtu;
	v[n++] = a->dest_qp_num;
	v[n++] = a->rq_psn;
	v[n++] = a->sq_psn;
	v[n++] = a->timeout;
	v[n++] = a->retry_cnt;
	v[n++] = a->rnr_retry;
	v[n++] = a->min_rnr_timer;
	v[n++] = a->max_rd_atomic;
	v[n++] = a->max_dest_rd_atomic;
	v[n++] = a->path_mig_state;
	v[n++] = a->en_sqd_async_notify;
	v[n++] = a->cap.max_send_wr;
	v[n++] = a->cap.max_recv_wr;
	v[n++] = a->cap.max_send_sge;
	v[n++] = a->cap.max_recv_sge;
	v[n++] = a->cap.max_inline_data;
	v[n++] = a->ah_attr.port_num;
	v[n++] = a->ah_attr.dlid;
	v[n++] = a->ah_attr.sl;
	v[n++] = a->alt_port_num;
	v[n++] = a->alt_ah_attr.dlid;
	v[n++] = init->qp_type;
	v[n++] = init->cap.max_send_wr;
	v[n++] = init->sq_sig_type;
	v[n++] = xqp_qp_num(qp) == xqp_qp_num(xqp_qp_real(qp));
	o->nout = n;
}

static void xq_out_cap(struct dx_obs *o, int *n, const struct xqp_qp_cap *cap)
{
	o->out[(*n)++] = cap->max_send_wr;
	o->out[(*n)++] = cap->max_recv_wr;
	o->out[(*n)++] = cap->max_send_sge;
	o->out[(*n)++] = cap->max_recv_sge;
	o->out[(*n)++] = cap->max_inline_data;
}

static int xq_create(struct xq_ctx *xq, const struct dx_step *s, struct dx_obs *o)
{
	struct dx_cap want = dx_cap_set(s->arg);
	struct xqp_qp_init_attr init = {
		.event_handler = (s->flags & DX_F_NO_HANDLER) ? NULL : xq_event,
		.qp_context = &xq->evctx[s->q],
		.cap = {
			.max_send_wr = want.send_wr,
			.max_recv_wr = want.recv_wr,
			.max_send_sge = want.send_sge,
			.max_recv_sge = want.recv_sge,
			.max_inline_data = want.inline_data,
		},
		.create_flags = want.create_flags,
		.sq_sig_type = (s->flags & DX_F_SIG_ALL) ? XQP_SIGNAL_ALL_WR : XQP_SIGNAL_REQ_WR,
		.qp_type = s->var,
	};
	struct xqp_pd *pd = NULL;
	struct xqp_qp *qp;
	int n = 0;

	if (xq->qp[s->q])
		return DX_RC_DEAD_SLOT;
	if (s->op == DX_CREATE_TGT) {
		if (s->x >= 0) {
			if (!xq->xrcd[s->x])
				return DX_RC_DEAD_SLOT;
			init.xrcd = xq->xrcd[s->x];
		}
	} else {
		if (!xq->pd[s->p] || !xq->cq[s->c] || (s->s >= 0 && !xq->srq[s->s]))
			return DX_RC_DEAD_SLOT;
		pd = xq->pd[s->p];
		init.send_cq = xq->cq[s->c];
		init.recv_cq = xq->cq[s->c];
		init.srq = s->s >= 0 ? xq->srq[s->s] : NULL;
	}

	qp = xqp_create_qp_user(xq->dev, pd, &init, NULL, NULL, "xqp_diff");
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	o->out[n++] = xqp_qp_num(qp) >= 2 && xqp_qp_num(qp) <= 0xffffff;
	o->out[n++] = xq_qpn_reused(xq, s->q, xqp_qp_num(qp));
	o->out[n++] = xqp_qp_get_type(qp);
	o->out[n++] = xqp_qp_is_handle(qp);
	if (s->flags & DX_F_QPN)
		o->out[n++] = xqp_qp_num(qp);
	xq_out_cap(o, &n, &init.cap);
	o->nout = n;
	xq_record(xq, s->q, qp);
	return 0;
}

static int xq_destroy(struct xq_ctx *xq, struct xqp_qp *qp, int q)
{
	struct xqp_qp *real = xqp_qp_real(qp);
	bool handle = xqp_qp_is_handle(qp);
	bool last = handle && xqp_qp_handle_count(qp) == 1;
	int rc;

	rc = xqp_destroy_qp(qp);
	if (rc)
		return rc;	/* all intact */
	if (handle) {
		if (q >= 0)
			xq->qp[q] = NULL;
		if (last)
			xq_forget_real(xq, real);
	} else {
		xq_forget_real(xq, qp);
	}
	return 0;
}

static int xq_run(void *ctx, const struct dx_step *s, struct dx_obs *o)
{
	struct xq_ctx *xq = ctx;
	struct xqp_qp_attr attr;
	struct xqp_qp_init_attr init;
	struct xqp_qp *qp;
	int rc, n = 0;

	switch (s->op) {
	case DX_ALLOC_XRCD: {
		struct xqp_xrcd *x;

		if (xq->xrcd[s->x])
			return DX_RC_DEAD_SLOT;
		x = xqp_alloc_xrcd(xq->dev);
		if (IS_ERR(x))
			return PTR_ERR(x);
		xq->xrcd[s->x] = x;
		return 0;
	}
	case DX_DEALLOC_XRCD:
		if (!xq->xrcd[s->x])
			return DX_RC_DEAD_SLOT;
		rc = xqp_dealloc_xrcd(xq->xrcd[s->x]);
		if (!rc)
			xq->xrcd[s->x] = NULL;
		return rc;
	case DX_ALLOC_PD: {
		struct xqp_pd *pd;

		if (xq->pd[s->p])
			return DX_RC_DEAD_SLOT;
		pd = xqp_alloc_pd(xq->dev);
		if (IS_ERR(pd))
			return PTR_ERR(pd);
		xq->pd[s->p] = pd;
		return 0;
	}
	case DX_DEALLOC_PD:
		if (!xq->pd[s->p])
			return DX_RC_DEAD_SLOT;
		rc = xqp_dealloc_pd(xq->pd[s->p]);
		if (!rc)
			xq->pd[s->p] = NULL;
		return rc;
	case DX_CREATE_CQ: {
		struct xqp_cq *cq;

		if (xq->cq[s->c])
			return DX_RC_DEAD_SLOT;
		cq = xqp_create_cq(xq->dev, 16,
				   (s->flags & DX_F_NO_HANDLER) ? NULL : xq_cq_event,
				   &xq->cq_evctx[s->c]);
		if (IS_ERR(cq))
			return PTR_ERR(cq);
		xq->cq[s->c] = cq;
		return 0;
	}
	case DX_DESTROY_CQ:
		if (!xq->cq[s->c])
			return DX_RC_DEAD_SLOT;
		rc = xqp_destroy_cq(xq->cq[s->c]);
		if (!rc) {
			xq->cq_gone[s->c] = xq->cq[s->c];
			xq->cq[s->c] = NULL;
		}
		return rc;
	case DX_CREATE_TGT:
	case DX_CREATE_QP:
		return xq_create(xq, s, o);
	case DX_OPEN: {
		struct xqp_qp_open_attr oa = {
			.event_handler = (s->flags & DX_F_NO_HANDLER) ? NULL : xq_event,
			.qp_context = &xq->evctx[s->q],
			.qp_num = xq_resolve_qpn(xq, s->qpn),
			.qp_type = s->arg,
		};

		if (xq->qp[s->q] || !xq->xrcd[s->x])
			return DX_RC_DEAD_SLOT;
		qp = xqp_open_qp(xq->xrcd[s->x], &oa);
		if (IS_ERR(qp))
			return PTR_ERR(qp);
		o->out[n++] = xqp_qp_num(qp) == oa.qp_num;
		o->out[n++] = xqp_qp_get_type(qp);
		o->out[n++] = xqp_qp_is_handle(qp);
		o->nout = n;
		xq_record(xq, s->q, qp);
		return 0;
	}
	case DX_CLOSE:
		if (!xq->qp[s->q])
			return DX_RC_DEAD_SLOT;
		rc = xqp_close_qp(xq->qp[s->q]);
		if (!rc)
			xq->qp[s->q] = NULL;
		return rc;
	case DX_CLOSE_REAL:
		if (!xq->real[s->q])
			return DX_RC_DEAD_SLOT;
		return xqp_close_qp(xq->real[s->q]);
	case DX_DESTROY:
	case DX_REAP_LEAKED:	/* xqp kept the handle: retrying finishes it */
		if (!xq->qp[s->q])
			return DX_RC_DEAD_SLOT;
		return xq_destroy(xq, xq->qp[s->q], s->q);
	case DX_DESTROY_REAL:
		if (!xq->real[s->q])
			return DX_RC_DEAD_SLOT;
		return xq_destroy(xq, xq->real[s->q], -1);
	case DX_MODIFY:
		if (!xq->qp[s->q])
			return DX_RC_DEAD_SLOT;
		xq_fill_attr(s, &attr);
		return xqp_modify_qp(xq->qp[s->q], &attr, s->mask);
	case DX_QUERY:
		if (!xq->qp[s->q])
			return DX_RC_DEAD_SLOT;
		rc = xqp_query_qp(xq->qp[s->q], &attr, s->mask, &init);
		if (!rc)
			xq_out_query(o, xq->qp[s->q], &attr, &init);
		return rc;
	case DX_RAISE:
		return xqp_soft_raise_qp_event(xq->soft, xq_resolve_qpn(xq, s->qpn), s->arg);
	case DX_INJECT:
		xqp_soft_inject(xq->soft, s->arg == DX_INJ_CREATE_QP ? XQP_SOFT_OP_CREATE_QP :
				XQP_SOFT_OP_DESTROY_QP, s->var, 0);
		return 0;
	case DX_CREATE_SRQ: {
		struct xqp_srq_init_attr sa = {
			.attr = { .max_wr = 10, .max_sge = 1 },
			.srq_type = s->x == -1 ? XQP_SRQT_BASIC : XQP_SRQT_XRC,
			.event_handler = (s->flags & DX_F_NO_HANDLER) ? NULL : xq_srq_event,
			.srq_context = &xq->srq_evctx[s->s],
		};
		struct xqp_srq *srq;

		if (xq->srq[s->s] || !xq->pd[s->p])
			return DX_RC_DEAD_SLOT;
		if (sa.srq_type == XQP_SRQT_XRC) {
			if ((s->c >= 0 && !xq->cq[s->c]) || (s->x >= 0 && !xq->xrcd[s->x]))
				return DX_RC_DEAD_SLOT;
			sa.cq = s->c >= 0 ? xq->cq[s->c] : NULL;
			sa.xrcd = s->x >= 0 ? xq->xrcd[s->x] : NULL;
		}
		srq = xqp_create_srq(xq->pd[s->p], &sa);
		if (IS_ERR(srq))
			return PTR_ERR(srq);
		o->out[n++] = sa.attr.max_wr;
		o->out[n++] = sa.attr.max_sge;
		o->nout = n;
		xq->srq[s->s] = srq;
		xq->srqn[s->s] = xqp_srq_num(srq);
		xq->srqn_valid |= BIT(s->s);
		return 0;
	}
	case DX_DESTROY_SRQ:
		if (!xq->srq[s->s])
			return DX_RC_DEAD_SLOT;
		rc = xqp_destroy_srq(xq->srq[s->s]);
		if (!rc)
			xq->srq[s->s] = NULL;
		return rc;
	case DX_RAISE_CQ_EVENT:
		if (!xq->cq[s->c] && !xq->cq_gone[s->c])
			return DX_RC_DEAD_SLOT;
		return xqp_soft_raise_cq_event(xq->soft, xq->cq[s->c] ?: xq->cq_gone[s->c], s->arg);
	case DX_RAISE_SRQ_EVENT:
		if (!(xq->srqn_valid & BIT(s->s)))
			return DX_RC_DEAD_SLOT;
		return xqp_soft_raise_srq_event(xq->soft, xq->srqn[s->s], s->arg);
	case DX_QPN_CURSOR:
		xqp_soft_set_qpn_cursor(xq->soft, s->arg);
		return 0;
	case DX_SIZES: {
		struct xqp_object_sizes sz;

		xqp_object_sizes(&sz);
		o->out[n++] = sz.handle;
		o->nout = n;
		return 0;
	}
	}
	return -EOPNOTSUPP;
}

static void xq_observe(void *ctx, struct dx_obs *o)
{
	struct xq_ctx *xq = ctx;
	struct xqp_soft_counts c;
	struct xqp_qp_attr attr;
	int i, x, rc;

	for (x = 0; x < DX_NX; x++) {
		if (!xq->xrcd[x])
			continue;
		o->xrcd_live |= BIT(x);
		o->usecnt[x] = xqp_xrcd_usecnt(xq->xrcd[x]);
	}
	for (i = 0; i < DX_NP; i++)
		if (xq->pd[i])
			o->pd_live |= BIT(i);
	for (i = 0; i < DX_NC; i++)
		if (xq->cq[i])
			o->cq_live |= BIT(i);
	for (i = 0; i < DX_NS; i++)
		if (xq->srq[i])
			o->srq_live |= BIT(i);
	for (i = 0; i < DX_NQ; i++) {
		struct xqp_qp *qp = xq->qp[i];

		if (!qp)
			continue;
		o->qp_live |= BIT(i);
		o->handles[i] = xqp_qp_handle_count(qp);
		rc = xqp_query_qp(qp, &attr, XQP_QP_STATE, NULL);
		o->state[i] = rc ? rc : attr.qp_state;
	}
	for (i = 0; i < DX_NQ; i++) {
		if (!(xq->qpn_valid & BIT(i)))
			continue;
		for (x = 0; x < DX_NX; x++) {
			struct xqp_qp_open_attr oa = {
				.qp_num = xq->qpn[i],
				.qp_type = XQP_QPT_XRC_TGT,
			};
			struct xqp_qp *h;

			if (!xq->xrcd[x])
				continue;
			h = xqp_open_qp(xq->xrcd[x], &oa);
			if (IS_ERR(h))
				continue;
			o->open_bits |= BIT(i * DX_NX + x);
			xqp_close_qp(h);
		}
	}
	for (i = 0; i < DX_NQ; i++) {
		o->ev[i] = xq->ev[i];
		xq->ev[i] = (struct dx_ev){ .elem = -1 };
	}
	for (i = 0; i < DX_NC; i++) {
		o->cq_ev[i] = xq->cq_ev[i];
		xq->cq_ev[i] = (struct dx_ev){ .elem = -1 };
	}
	for (i = 0; i < DX_NS; i++) {
		o->srq_ev[i] = xq->srq_ev[i];
		xq->srq_ev[i] = (struct dx_ev){ .elem = -1 };
	}
	xqp_soft_counts(xq->soft, &c);
	o->drv[0] = c.pd;
	o->drv[1] = c.cq;
	o->drv[2] = c.xrcd;
	o->drv[3] = c.srq;
	o->drv[4] = c.qp;
}

static unsigned int xq_teardown(void *ctx, struct kunit *test)
{
	struct xq_ctx *xq = ctx;
	struct xqp_soft_counts c;
	unsigned int left = 0;
	int i, x;

	xqp_soft_inject(xq->soft, XQP_SOFT_OP_CREATE_QP, 0, 0);
	xqp_soft_inject(xq->soft, XQP_SOFT_OP_DESTROY_QP, 0, 0);

	for (i = 0; i < DX_NQ; i++)
		if (xq->qp[i] && xqp_qp_is_handle(xq->qp[i]) && xq_destroy(xq, xq->qp[i], i))
			left++;
	for (i = 0; i < DX_NQ; i++) {
		if (!(xq->qpn_valid & BIT(i)))
			continue;
		for (x = 0; x < DX_NX; x++) {
			struct xqp_qp_open_attr oa = {
				.qp_num = xq->qpn[i],
				.qp_type = XQP_QPT_XRC_TGT,
			};
			struct xqp_qp *h;

			if (!xq->xrcd[x])
				continue;
			h = xqp_open_qp(xq->xrcd[x], &oa);
			if (!IS_ERR(h) && xq_destroy(xq, h, -1))
				left++;
		}
	}
	for (i = 0; i < DX_NQ; i++)
		if (xq->qp[i] && xq_destroy(xq, xq->qp[i], i))
			left++;
	for (i = 0; i < DX_NS; i++)
		if (xq->srq[i] && xqp_destroy_srq(xq->srq[i]))
			left++;
	for (i = 0; i < DX_NC; i++)
		if (xq->cq[i] && xqp_destroy_cq(xq->cq[i]))
			left++;
	for (i = 0; i < DX_NP; i++)
		if (xq->pd[i] && xqp_dealloc_pd(xq->pd[i]))
			left++;
	for (x = 0; x < DX_NX; x++)
		if (xq->xrcd[x] && xqp_dealloc_xrcd(xq->xrcd[x]))
			left++;
	if (left)
		kunit_err(test, "xqp: %u objects could not be destroyed\n", left);
	xqp_soft_counts(xq->soft, &c);
	left += c.pd + c.cq + c.xrcd + c.srq + c.qp;
	xqp_soft_destroy(xq->soft);
	return left;
}

const struct dx_exec dx_xqp_exec = {
	.name = "xqp",
	.setup = xq_setup,
	.run = xq_run,
	.observe = xq_observe,
	.teardown = xq_teardown,
};
