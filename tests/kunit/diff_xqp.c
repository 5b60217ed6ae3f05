// SPDX-License-Identifier: GPL-2.0
/*
 * xqp_diff, the xqp executor: every step through xqp's kernel C API
 * (xqp/verbs.h) on a fresh soft device. The mirror of diff_linux.c: the
 * engine's slots (struct dx_slots), the same observations, xqp_ names.
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

struct xq_ctx {
	struct dx_slots sl;		/* first: the engine's slots */
	struct xqp_soft *soft;
	struct xqp_device *dev;
};

/* QP, CQ and SRQ events alike: the context (a dx_evctx) knows the kind. */
static void xq_event(struct xqp_event *ev, void *context)
{
	const void *element = ev->element.qp;	/* a union of the objects' pointers */

	dx_slots_event(context, element, ev->event);
}

static void *xq_setup(struct kunit *test)
{
	struct xq_ctx *xq = kunit_kzalloc(test, sizeof(*xq), GFP_KERNEL);

	if (!xq)
		return NULL;
	dx_slots_init(&xq->sl);
	xq->soft = xqp_soft_create("xqp_diff", NULL);
	if (IS_ERR(xq->soft)) {
		kunit_err(test, "xqp_soft_create: %ld\n", PTR_ERR(xq->soft));
		return NULL;
	}
	xq->dev = xqp_soft_device(xq->soft);
	return xq;
}

/* The handler of a create or open. */
static xqp_event_handler_t xq_handler(const struct dx_step *s)
{
	return (s->flags & DX_F_NO_HANDLER) ? NULL : xq_event;
}

#define XQ_DLID(ah)	((ah).dlid)

/* A CQ whose events, like the reference device's, reach the handler at the raise. */
static struct xqp_cq *xq_create_cq(struct xq_ctx *xq, const struct dx_step *s,
				   struct dx_slots *sl)
{
	struct xqp_cq_init_attr attr = {
		.cqe = 16,
		.event_handler = xq_handler(s),
		.cq_context = dx_slots_evctx(sl, DX_K_CQ, s->c),
		.event_flags = XQP_EVENT_INLINE,
	};

	return xqp_create_cq_attr(xq->dev, &attr);
}

static int xq_create(struct xq_ctx *xq, const struct dx_step *s, struct dx_obs *o)
{
	struct dx_slots *sl = &xq->sl;
	struct dx_cap want = dx_cap_set(s->create.caps);
	struct xqp_qp_init_attr init = {
		.event_handler = xq_handler(s),
		.event_flags = XQP_EVENT_INLINE,	/* as Linux's, at the raise */
		.qp_context = dx_slots_evctx(sl, DX_K_QP, s->q),
		.cap = {
			.max_send_wr = want.send_wr,
			.max_recv_wr = want.recv_wr,
			.max_send_sge = want.send_sge,
			.max_recv_sge = want.recv_sge,
			.max_inline_data = want.inline_data,
		},
		.create_flags = want.create_flags,
		.sq_sig_type = (s->flags & DX_F_SIG_ALL) ? XQP_SIGNAL_ALL_WR : XQP_SIGNAL_REQ_WR,
		.qp_type = s->create.qp_type,
	};
	struct xqp_pd *pd = NULL;
	struct xqp_qp *qp;

	if (s->op == DX_CREATE_TGT) {
		init.xrcd = s->x >= 0 ? sl->xrcd[s->x] : NULL;
	} else {
		pd = sl->pd[s->p];
		init.send_cq = sl->cq[s->c];
		init.recv_cq = sl->cq[s->c];
		init.srq = s->s >= 0 ? sl->srq[s->s] : NULL;
	}

	qp = xqp_create_qp_user(xq->dev, pd, &init, NULL, NULL, "xqp_diff");
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	dx_out_create(o, sl, s, xqp_qp_num(qp), xqp_qp_get_type(qp), xqp_qp_is_share(qp),
		      &init.cap);
	dx_slots_put_qp(sl, s->q, qp, xqp_qp_real(qp), xqp_qp_num(qp));
	return 0;
}

static int xq_destroy(struct xq_ctx *xq, struct xqp_qp *qp, int q)
{
	struct xqp_qp *real = xqp_qp_real(qp);
	bool share = xqp_qp_is_share(qp);
	bool last = share && xqp_qp_share_count(qp) == 1;
	int rc;

	rc = xqp_destroy_qp(qp);
	if (rc)
		return rc;	/* all intact */
	if (share) {
		if (q >= 0)
			xq->sl.qp[q] = NULL;
		if (last)
			dx_slots_forget_real(&xq->sl, real);
	} else {
		dx_slots_forget_real(&xq->sl, qp);
	}
	return 0;
}

static int xq_create_srq(struct xq_ctx *xq, const struct dx_step *s, struct dx_obs *o)
{
	struct dx_slots *sl = &xq->sl;
	struct xqp_srq_init_attr sa = {
		.attr = { .max_wr = 10, .max_sge = 1 },
		.srq_type = s->x == -1 ? XQP_SRQT_BASIC : XQP_SRQT_XRC,
		.event_handler = xq_handler(s),
		.event_flags = XQP_EVENT_INLINE,	/* as Linux's, at the raise */
		.srq_context = dx_slots_evctx(sl, DX_K_SRQ, s->s),
	};
	struct xqp_srq *srq;
	int n = 0;

	if (sa.srq_type == XQP_SRQT_XRC) {
		sa.cq = s->c >= 0 ? sl->cq[s->c] : NULL;
		sa.xrcd = s->x >= 0 ? sl->xrcd[s->x] : NULL;
	}
	srq = xqp_create_srq(sl->pd[s->p], &sa);
	if (IS_ERR(srq))
		return PTR_ERR(srq);
	o->out[n++] = sa.attr.max_wr;
	o->out[n++] = sa.attr.max_sge;
	o->nout = n;
	dx_slots_put_srq(sl, s->s, srq, xqp_srq_num(srq));
	return 0;
}

static int xq_run(void *ctx, const struct dx_step *s, struct dx_obs *o)
{
	struct xq_ctx *xq = ctx;
	struct dx_slots *sl = &xq->sl;
	struct xqp_qp_attr attr;
	struct xqp_qp_init_attr init;
	int rc, n = 0;

	rc = dx_slots_check(sl, s);
	if (rc)
		return rc;
	switch (s->op) {
	case DX_ALLOC_XRCD:
		return dx_keep(sl->xrcd[s->x], xqp_alloc_xrcd(xq->dev));
	case DX_DEALLOC_XRCD:
		return dx_free(sl->xrcd[s->x], xqp_dealloc_xrcd(sl->xrcd[s->x]));
	case DX_ALLOC_PD:
		return dx_keep(sl->pd[s->p], xqp_alloc_pd(xq->dev));
	case DX_DEALLOC_PD:
		return dx_free(sl->pd[s->p], xqp_dealloc_pd(sl->pd[s->p]));
	case DX_CREATE_CQ:
		return dx_keep(sl->cq[s->c], xq_create_cq(xq, s, sl));
	case DX_DESTROY_CQ:
		rc = xqp_destroy_cq(sl->cq[s->c]);
		if (!rc)
			dx_slots_cq_gone(sl, s->c);
		return rc;
	case DX_CREATE_TGT:
	case DX_CREATE_QP:
		return xq_create(xq, s, o);
	case DX_OPEN: {
		struct xqp_qp_open_attr oa = {
			.event_handler = xq_handler(s),
			.event_flags = XQP_EVENT_INLINE,	/* as Linux's, at the raise */
			.qp_context = dx_slots_evctx(sl, DX_K_QP, s->q),
			.qp_num = dx_slots_qpn(sl, s->qpn),
			.qp_type = s->open.qp_type,
		};
		struct xqp_qp *qp = xqp_open_qp(sl->xrcd[s->x], &oa);

		if (IS_ERR(qp))
			return PTR_ERR(qp);
		o->out[n++] = xqp_qp_num(qp) == oa.qp_num;
		o->out[n++] = xqp_qp_get_type(qp);
		o->out[n++] = xqp_qp_is_share(qp);
		o->nout = n;
		dx_slots_put_qp(sl, s->q, qp, xqp_qp_real(qp), xqp_qp_num(qp));
		return 0;
	}
	case DX_CLOSE:
		return dx_free(sl->qp[s->q], xqp_close_qp(sl->qp[s->q]));
	case DX_CLOSE_REAL:
		return xqp_close_qp(sl->real[s->q]);
	case DX_REAP_LEAKED:	/* xqp kept the share: retrying finishes it */
		if (!sl->qp[s->q])
			return DX_RC_DEAD_SLOT;
		fallthrough;
	case DX_DESTROY:
		return xq_destroy(xq, sl->qp[s->q], s->q);
	case DX_DESTROY_REAL:
		return xq_destroy(xq, sl->real[s->q], -1);
	case DX_MODIFY:
		dx_fill_attr(&attr, s, XQ_DLID);
		return xqp_modify_qp(sl->qp[s->q], &attr, s->modify.mask);
	case DX_QUERY:
		rc = xqp_query_qp(sl->qp[s->q], &attr, 0, &init);
		if (!rc)
			dx_out_query(o, &attr, &init, XQ_DLID,
				     xqp_qp_num(sl->qp[s->q]) ==
				     xqp_qp_num(xqp_qp_real(sl->qp[s->q])));
		return rc;
	case DX_RAISE:
		return xqp_soft_raise_qp_event(xq->soft, dx_slots_qpn(sl, s->qpn), s->raise.event);
	case DX_INJECT:
		xqp_soft_inject(xq->soft, s->inject.op == DX_INJ_CREATE_QP ? XQP_SOFT_OP_CREATE_QP :
				XQP_SOFT_OP_DESTROY_QP, s->inject.err, 0);
		return 0;
	case DX_CREATE_SRQ:
		return xq_create_srq(xq, s, o);
	case DX_DESTROY_SRQ:
		rc = xqp_destroy_srq(sl->srq[s->s]);
		if (!rc)
			dx_slots_srq_gone(sl, s->s);
		return rc;
	case DX_RAISE_CQ_EVENT:
		return xqp_soft_raise_cq_event(xq->soft, sl->cq[s->c] ?: sl->cq_gone[s->c],
					       s->raise.event);
	case DX_RAISE_SRQ_EVENT:
		return xqp_soft_raise_srq_event(xq->soft, sl->srqn[s->s], s->raise.event);
	case DX_QPN_CURSOR:
		xqp_soft_set_qpn_cursor(xq->soft, s->cursor.next);
		return 0;
	case DX_SIZES: {
		struct xqp_object_sizes sz;

		xqp_object_sizes(&sz);
		o->out[n++] = sz.share;
		o->nout = n;
		return 0;
	}
	}
	return -EOPNOTSUPP;
}

/* A share of the QP numbered @qpn in XRCD slot @x, or an error pointer. */
static struct xqp_qp *xq_open_tgt(struct xq_ctx *xq, int x, u32 qpn)
{
	struct xqp_qp_open_attr oa = { .qp_num = qpn, .qp_type = XQP_QPT_XRC_TGT };

	return xqp_open_qp(xq->sl.xrcd[x], &oa);
}

static void xq_observe(void *ctx, struct dx_obs *o)
{
	struct xq_ctx *xq = ctx;
	struct dx_slots *sl = &xq->sl;
	struct xqp_soft_counts c;
	struct xqp_qp_attr attr;
	int i, x, rc;

	dx_slots_observe(sl, o);
	for (x = 0; x < DX_NX; x++)
		if (sl->xrcd[x])
			o->usecnt[x] = xqp_xrcd_usecnt(sl->xrcd[x]);
	for (i = 0; i < DX_NQ; i++) {
		struct xqp_qp *qp = sl->qp[i];

		if (!qp)
			continue;
		o->shares[i] = xqp_qp_share_count(qp);
		rc = xqp_query_qp(qp, &attr, XQP_QP_STATE, NULL);
		o->state[i] = rc ? rc : attr.qp_state;
	}
	for (i = 0; i < DX_NQ; i++) {
		if (!(sl->qpn_valid & BIT(i)))
			continue;
		for (x = 0; x < DX_NX; x++) {
			struct xqp_qp *h;

			if (!sl->xrcd[x])
				continue;
			h = xq_open_tgt(xq, x, sl->qpn[i]);
			if (IS_ERR(h))
				continue;
			o->open_bits |= BIT(i * DX_NX + x);
			xqp_close_qp(h);
		}
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
	struct dx_slots *sl = &xq->sl;
	struct xqp_soft_counts c;
	unsigned int left = 0;
	int i, x;

	xqp_soft_inject(xq->soft, XQP_SOFT_OP_CREATE_QP, 0, 0);
	xqp_soft_inject(xq->soft, XQP_SOFT_OP_DESTROY_QP, 0, 0);

	for (i = 0; i < DX_NQ; i++)
		if (sl->qp[i] && xqp_qp_is_share(sl->qp[i]) && xq_destroy(xq, sl->qp[i], i))
			left++;
	for (i = 0; i < DX_NQ; i++) {
		if (!(sl->qpn_valid & BIT(i)))
			continue;
		for (x = 0; x < DX_NX; x++) {
			struct xqp_qp *h;

			if (!sl->xrcd[x])
				continue;
			h = xq_open_tgt(xq, x, sl->qpn[i]);
			if (!IS_ERR(h) && xq_destroy(xq, h, -1))
				left++;
		}
	}
	for (i = 0; i < DX_NQ; i++)
		if (sl->qp[i] && xq_destroy(xq, sl->qp[i], i))
			left++;
	for (i = 0; i < DX_NS; i++)
		if (sl->srq[i] && xqp_destroy_srq(sl->srq[i]))
			left++;
	for (i = 0; i < DX_NC; i++)
		if (sl->cq[i] && xqp_destroy_cq(sl->cq[i]))
			left++;
	for (i = 0; i < DX_NP; i++)
		if (sl->pd[i] && xqp_dealloc_pd(sl->pd[i]))
			left++;
	for (x = 0; x < DX_NX; x++)
		if (sl->xrcd[x] && xqp_dealloc_xrcd(sl->xrcd[x]))
			left++;
	if (left)
		kunit_err(test, "xqp: %u objects could not be destroyed\n", left);
	xqp_soft_counts(xq->soft, &c);
	left += c.pd + c.cq + c.xrcd + c.srq + c.qp;
	xqp_soft_destroy(xq->soft);
	return left;
}

struct xqp_soft *dx_xqp_soft(void *ctx)
{
	return ((struct xq_ctx *)ctx)->soft;
}

const struct dx_exec dx_xqp_exec = {
	.name = "xqp",
	.setup = xq_setup,
	.run = xq_run,
	.observe = xq_observe,
	.teardown = xq_teardown,
};
