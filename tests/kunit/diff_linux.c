// SPDX-License-Identifier: GPL-2.0
/*
 * xqp_diff, the Linux executor: every step through the kernel's own ib_core
 * (verbs.c: ib_alloc_xrcd_user, ib_create_qp_user, ib_open_qp, ib_close_qp,
 * ib_destroy_qp_user, ib_modify_qp, ib_query_qp, ...) on a fresh xqp_refdev.
 *
 * The reference device's test API is reached with symbol_get(), so that this
 * module loads (and its other suites run) when xqp_refdev.ko is not loaded;
 * the differential suite then skips.
 *
 * Linux trusts kernel callers: some calls crash or corrupt when misused
 * (destroying a share-less XRC_TGT real QP leaves a dangling table entry;
 * an out-of-range port in modify is read out of bounds). The scenarios mark
 * such steps "xqp only"; this executor also refuses them itself
 * (DX_RC_NOT_RUN), so that a wrong table cannot hurt the test kernel.
 */
#include <linux/err.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "diff_defs.h"

#if IS_REACHABLE(CONFIG_INFINIBAND)

#include "refdev/refdev.h"

/*
 * Exported by ib_core (verbs.c) but declared only in its private core_priv.h;
 * the same prototype as there.
 */
struct ib_uqp_object;
struct ib_qp *ib_create_qp_user(struct ib_device *dev, struct ib_pd *pd,
				struct ib_qp_init_attr *attr,
				struct ib_udata *udata,
				struct ib_uqp_object *uobj, const char *caller);

/* The numbers of diff_defs.h are Linux's. */
static_assert(DX_QPT_RC == (int)IB_QPT_RC && DX_QPT_UC == (int)IB_QPT_UC &&
	      DX_QPT_UD == (int)IB_QPT_UD && DX_QPT_RAW_PACKET == (int)IB_QPT_RAW_PACKET &&
	      DX_QPT_XRC_INI == (int)IB_QPT_XRC_INI && DX_QPT_XRC_TGT == (int)IB_QPT_XRC_TGT);
static_assert(DX_RESET == (int)IB_QPS_RESET && DX_RTS == (int)IB_QPS_RTS && DX_ERR == (int)IB_QPS_ERR);
static_assert(DX_M_STATE == (int)IB_QP_STATE && DX_M_CUR_STATE == (int)IB_QP_CUR_STATE &&
	      DX_M_EN_SQD == (int)IB_QP_EN_SQD_ASYNC_NOTIFY && DX_M_ACCESS == (int)IB_QP_ACCESS_FLAGS &&
	      DX_M_PKEY == (int)IB_QP_PKEY_INDEX && DX_M_PORT == (int)IB_QP_PORT &&
	      DX_M_QKEY == (int)IB_QP_QKEY && DX_M_AV == (int)IB_QP_AV && DX_M_MTU == (int)IB_QP_PATH_MTU &&
	      DX_M_TIMEOUT == (int)IB_QP_TIMEOUT && DX_M_RETRY == (int)IB_QP_RETRY_CNT &&
	      DX_M_RNR_RETRY == (int)IB_QP_RNR_RETRY && DX_M_RQ_PSN == (int)IB_QP_RQ_PSN &&
	      DX_M_MAX_QP_RD == (int)IB_QP_MAX_QP_RD_ATOMIC && DX_M_ALT_PATH == (int)IB_QP_ALT_PATH &&
	      DX_M_MIN_RNR == (int)IB_QP_MIN_RNR_TIMER && DX_M_SQ_PSN == (int)IB_QP_SQ_PSN &&
	      DX_M_MAX_DEST_RD == (int)IB_QP_MAX_DEST_RD_ATOMIC && DX_M_MIG == (int)IB_QP_PATH_MIG_STATE &&
	      DX_M_CAP == (int)IB_QP_CAP && DX_M_DEST_QPN == (int)IB_QP_DEST_QPN &&
	      DX_M_RATE_LIMIT == (int)IB_QP_RATE_LIMIT);
static_assert(DX_EV_QP_FATAL == (int)IB_EVENT_QP_FATAL && DX_EV_COMM_EST == (int)IB_EVENT_COMM_EST &&
	      DX_EV_PATH_MIG == (int)IB_EVENT_PATH_MIG &&
	      DX_EV_LAST_WQE == (int)IB_EVENT_QP_LAST_WQE_REACHED);
static_assert(DX_EV_CQ_ERR == (int)IB_EVENT_CQ_ERR && DX_EV_SRQ_ERR == (int)IB_EVENT_SRQ_ERR &&
	      DX_EV_SRQ_LIMIT == (int)IB_EVENT_SRQ_LIMIT_REACHED);
static_assert(DX_A_ACCESS == (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
			      IB_ACCESS_REMOTE_READ) &&
	      DX_A_ACCESS_BAD == (int)IB_ZERO_BASED && DX_A_MTU == (int)IB_MTU_1024 &&
	      DX_A_MIG == (int)IB_MIG_REARM);

/* The reference device's API, resolved at suite init. */
static struct {
	typeof(&xqp_refdev_create) create;
	typeof(&xqp_refdev_destroy) destroy;
	typeof(&xqp_refdev_ibdev) ibdev;
	typeof(&xqp_refdev_counts) counts;
	typeof(&xqp_refdev_inject) inject;
	typeof(&xqp_refdev_raise_qp_event) raise;
	typeof(&xqp_refdev_find_qp) find_qp;
	typeof(&xqp_refdev_set_qpn_cursor) set_cursor;
	typeof(&xqp_refdev_raise_ibcq_event) raise_cq;
	typeof(&xqp_refdev_raise_ibsrq_event) raise_srq;
} ref_api;

static void dx_linux_put_api(void)
{
	if (ref_api.create)
		symbol_put(xqp_refdev_create);
	if (ref_api.destroy)
		symbol_put(xqp_refdev_destroy);
	if (ref_api.ibdev)
		symbol_put(xqp_refdev_ibdev);
	if (ref_api.counts)
		symbol_put(xqp_refdev_counts);
	if (ref_api.inject)
		symbol_put(xqp_refdev_inject);
	if (ref_api.raise)
		symbol_put(xqp_refdev_raise_qp_event);
	if (ref_api.find_qp)
		symbol_put(xqp_refdev_find_qp);
	if (ref_api.set_cursor)
		symbol_put(xqp_refdev_set_qpn_cursor);
	if (ref_api.raise_cq)
		symbol_put(xqp_refdev_raise_ibcq_event);
	if (ref_api.raise_srq)
		symbol_put(xqp_refdev_raise_ibsrq_event);
	memset(&ref_api, 0, sizeof(ref_api));
}

/* 0, or -ENOENT when xqp_refdev.ko is not loaded. */
int dx_linux_get_api(void)
{
	ref_api.create = symbol_get(xqp_refdev_create);
	ref_api.destroy = symbol_get(xqp_refdev_destroy);
	ref_api.ibdev = symbol_get(xqp_refdev_ibdev);
	ref_api.counts = symbol_get(xqp_refdev_counts);
	ref_api.inject = symbol_get(xqp_refdev_inject);
	ref_api.raise = symbol_get(xqp_refdev_raise_qp_event);
	ref_api.find_qp = symbol_get(xqp_refdev_find_qp);
	ref_api.set_cursor = symbol_get(xqp_refdev_set_qpn_cursor);
	ref_api.raise_cq = symbol_get(xqp_refdev_raise_ibcq_event);
	ref_api.raise_srq = symbol_get(xqp_refdev_raise_ibsrq_event);
	if (!ref_api.create || !ref_api.destroy || !ref_api.ibdev || !ref_api.counts ||
	    !ref_api.inject || !ref_api.raise || !ref_api.find_qp || !ref_api.set_cursor ||
	    !ref_api.raise_cq || !ref_api.raise_srq) {
		dx_linux_put_api();
		return -ENOENT;
	}
	return 0;
}

void dx_linux_release_api(void)
{
	dx_linux_put_api();
}

struct lx_ctx {
	struct dx_slots sl;		/* first: the engine's slots */
	struct xqp_refdev *ref;
	struct ib_device *dev;
};

/* QP, CQ and SRQ events alike: the context (a dx_evctx) knows the kind. */
static void lx_event(struct ib_event *ev, void *context)
{
	const void *element = ev->element.qp;	/* a union of the objects' pointers */

	dx_slots_event(context, element, ev->event);
}

static void *lx_setup(struct kunit *test)
{
	struct lx_ctx *lx;

	if (!ref_api.create)
		return NULL;
	lx = kunit_kzalloc(test, sizeof(*lx), GFP_KERNEL);
	if (!lx)
		return NULL;
	dx_slots_init(&lx->sl);
	lx->ref = ref_api.create();
	if (IS_ERR(lx->ref)) {
		kunit_err(test, "xqp_refdev_create: %ld\n", PTR_ERR(lx->ref));
		return NULL;
	}
	lx->dev = ref_api.ibdev(lx->ref);
	return lx;
}

/* The handler of a create or open. */
static void (*lx_handler(const struct dx_step *s))(struct ib_event *, void *)
{
	return (s->flags & DX_F_NO_HANDLER) ? NULL : lx_event;
}

#define LX_DLID(ah)	((ah).ib.dlid)
#define LX_DLID_OF(ah)	rdma_ah_get_dlid(&(ah))

static int lx_create(struct lx_ctx *lx, const struct dx_step *s, struct dx_obs *o)
{
	struct dx_slots *sl = &lx->sl;
	struct dx_cap want = dx_cap_set(s->create.caps);
	struct ib_qp_init_attr init = {
		.event_handler = lx_handler(s),
		.qp_context = dx_slots_evctx(sl, DX_K_QP, s->q),
		.cap = {
			.max_send_wr = want.send_wr,
			.max_recv_wr = want.recv_wr,
			.max_send_sge = want.send_sge,
			.max_recv_sge = want.recv_sge,
			.max_inline_data = want.inline_data,
		},
		.create_flags = want.create_flags,
		.sq_sig_type = (s->flags & DX_F_SIG_ALL) ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR,
		.qp_type = s->create.qp_type,
	};
	struct ib_qp *qp;

	/*
	 * ib_create_qp_user() is the XRC_TGT path for kernel callers (it owns
	 * the real QP as "caller"); for other types it is uverbs' path and
	 * WARNs without udata. Kernel callers of other types use
	 * ib_create_qp_kernel(), which also takes the PD/CQ/SRQ usecnts
	 * (ib_qp_usecnt_inc), as xqp_create_qp_user() does for every caller.
	 */
	if (s->op == DX_CREATE_TGT) {
		init.xrcd = s->x >= 0 ? sl->xrcd[s->x] : NULL;
		qp = ib_create_qp_user(lx->dev, NULL, &init, NULL, NULL, "xqp_diff");
	} else {
		init.send_cq = sl->cq[s->c];
		init.recv_cq = sl->cq[s->c];
		init.srq = s->s >= 0 ? sl->srq[s->s] : NULL;
		qp = ib_create_qp_kernel(sl->pd[s->p], &init, "xqp_diff");
	}
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	dx_out_create(o, sl, s, qp->qp_num, qp->qp_type, qp->real_qp != qp, &init.cap);
	dx_slots_put_qp(sl, s->q, qp, qp->real_qp, qp->qp_num);
	return 0;
}

static int lx_destroy(struct lx_ctx *lx, struct ib_qp *qp, int q)
{
	struct ib_qp *real = qp->real_qp;
	bool share = real != qp;
	bool last = share && atomic_read(&real->usecnt) == 1;
	int rc;

	if (!share && qp->qp_type == IB_QPT_XRC_TGT && !atomic_read(&qp->usecnt))
		return DX_RC_NOT_RUN;	/* D2: would leave a dangling table entry */
	rc = ib_destroy_qp_user(qp, NULL);
	if (share) {
		/* ib_core frees the share whatever happens to the real QP */
		if (q >= 0)
			lx->sl.qp[q] = NULL;
		if (last)
			dx_slots_forget_real(&lx->sl, real);
	} else if (!rc) {
		dx_slots_forget_real(&lx->sl, qp);
	}
	return rc;
}

/* D1 on Linux: the last destroy "succeeded" but the real QP is still there. */
static int lx_reap_leaked(struct lx_ctx *lx, u32 qpn)
{
	struct ib_qp *real = ref_api.find_qp(lx->ref, qpn);
	struct ib_xrcd *xrcd;
	int rc;

	if (!real)
		return -ENOENT;
	xrcd = real->xrcd;
	/* Only a real XRC_TGT QP ib_core has let go of qualifies. */
	if (real->qp_type != IB_QPT_XRC_TGT || real->real_qp != real ||
	    atomic_read(&real->usecnt) || xa_load(&xrcd->tgt_qps, qpn) == real)
		return -EBUSY;
	rc = ib_destroy_qp(real);
	if (rc)
		return rc;
	/*
	 * __ib_destroy_shared_qp() drops xrcd->usecnt only when its own
	 * ib_destroy_qp() succeeds; no API is left to drop it later, so a
	 * caller that finishes the job by hand must drop it by hand.
	 */
	atomic_dec(&xrcd->usecnt);
	return 0;
}

static int lx_create_srq(struct lx_ctx *lx, const struct dx_step *s, struct dx_obs *o)
{
	struct dx_slots *sl = &lx->sl;
	struct ib_srq_init_attr sa = {
		.attr = { .max_wr = 10, .max_sge = 1 },
		.srq_type = s->x == -1 ? IB_SRQT_BASIC : IB_SRQT_XRC,
		.event_handler = lx_handler(s),
		.srq_context = dx_slots_evctx(sl, DX_K_SRQ, s->s),
	};
	struct ib_srq *srq;
	int n = 0;

	if (sa.srq_type == IB_SRQT_XRC) {
		/* D8: ib_core takes ext.cq's usecnt unchecked */
		if (s->c < 0)
			return DX_RC_NOT_RUN;
		sa.ext.cq = sl->cq[s->c];
		sa.ext.xrc.xrcd = s->x >= 0 ? sl->xrcd[s->x] : NULL;
	}
	srq = ib_create_srq_user(sl->pd[s->p], &sa, NULL, NULL);
	if (IS_ERR(srq))
		return PTR_ERR(srq);
	o->out[n++] = sa.attr.max_wr;
	o->out[n++] = sa.attr.max_sge;
	o->nout = n;
	dx_slots_put_srq(sl, s->s, srq, sa.srq_type == IB_SRQT_XRC ? srq->ext.xrc.srq_num : 0);
	return 0;
}

static int lx_run(void *ctx, const struct dx_step *s, struct dx_obs *o)
{
	struct lx_ctx *lx = ctx;
	struct dx_slots *sl = &lx->sl;
	struct ib_qp_attr attr;
	struct ib_qp_init_attr init;
	int rc, n = 0;

	rc = dx_slots_check(sl, s);
	if (rc)
		return rc;
	switch (s->op) {
	case DX_ALLOC_XRCD:
		return dx_keep(sl->xrcd[s->x], ib_alloc_xrcd_user(lx->dev, NULL, NULL));
	case DX_DEALLOC_XRCD:
		return dx_free(sl->xrcd[s->x], ib_dealloc_xrcd_user(sl->xrcd[s->x], NULL));
	case DX_ALLOC_PD:
		return dx_keep(sl->pd[s->p], ib_alloc_pd(lx->dev, 0));
	case DX_DEALLOC_PD:
		/* Linux frees a PD in use (D3): never asked to here. */
		if (atomic_read(&((struct ib_pd *)sl->pd[s->p])->usecnt))
			return DX_RC_NOT_RUN;
		return dx_free(sl->pd[s->p], ib_dealloc_pd_user(sl->pd[s->p], NULL));
	case DX_CREATE_CQ: {
		struct ib_cq_init_attr ca = { .cqe = 16 };

		return dx_keep(sl->cq[s->c],
			       ib_create_cq(lx->dev, NULL, lx_handler(s),
					    dx_slots_evctx(sl, DX_K_CQ, s->c), &ca));
	}
	case DX_DESTROY_CQ:
		rc = ib_destroy_cq_user(sl->cq[s->c], NULL);
		if (!rc)
			dx_slots_cq_gone(sl, s->c);
		return rc;
	case DX_CREATE_TGT:
	case DX_CREATE_QP:
		return lx_create(lx, s, o);
	case DX_OPEN: {
		struct ib_qp_open_attr oa = {
			.event_handler = lx_handler(s),
			.qp_context = dx_slots_evctx(sl, DX_K_QP, s->q),
			.qp_num = dx_slots_qpn(sl, s->qpn),
			.qp_type = s->open.qp_type,
		};
		struct ib_qp *qp = ib_open_qp(sl->xrcd[s->x], &oa);

		if (IS_ERR(qp))
			return PTR_ERR(qp);
		o->out[n++] = qp->qp_num == oa.qp_num;
		o->out[n++] = qp->qp_type;
		o->out[n++] = qp->real_qp != qp;
		o->nout = n;
		dx_slots_put_qp(sl, s->q, qp, qp->real_qp, qp->qp_num);
		return 0;
	}
	case DX_CLOSE:
		return dx_free(sl->qp[s->q], ib_close_qp(sl->qp[s->q]));
	case DX_CLOSE_REAL:
		return ib_close_qp(sl->real[s->q]);
	case DX_DESTROY:
		return lx_destroy(lx, sl->qp[s->q], s->q);
	case DX_DESTROY_REAL:
		return lx_destroy(lx, sl->real[s->q], -1);
	case DX_MODIFY:
		/* D5: _ib_modify_qp() indexes port_data[] with it unchecked. */
		if ((s->modify.mask & IB_QP_PORT) && s->modify.variant == DX_V_PORT2)
			return DX_RC_NOT_RUN;
		dx_fill_attr(&attr, s, LX_DLID);
		attr.ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
		attr.alt_ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
		return ib_modify_qp(sl->qp[s->q], &attr, s->modify.mask);
	case DX_QUERY: {
		struct ib_qp *qp = sl->qp[s->q];

		memset(&attr, 0, sizeof(attr));
		memset(&init, 0, sizeof(init));
		rc = ib_query_qp(qp, &attr, 0, &init);
		if (!rc)
			dx_out_query(o, &attr, &init, LX_DLID_OF,
				     qp->qp_num == qp->real_qp->qp_num);
		return rc;
	}
	case DX_RAISE:
		return ref_api.raise(lx->ref, dx_slots_qpn(sl, s->qpn), s->raise.event);
	case DX_INJECT:
		ref_api.inject(lx->ref, s->inject.op == DX_INJ_CREATE_QP ? XQP_REFDEV_OP_CREATE_QP :
			       XQP_REFDEV_OP_DESTROY_QP, s->inject.err, 0);
		return 0;
	case DX_CREATE_SRQ:
		return lx_create_srq(lx, s, o);
	case DX_DESTROY_SRQ:
		rc = ib_destroy_srq_user(sl->srq[s->s], NULL);
		if (!rc)
			dx_slots_srq_gone(sl, s->s);
		return rc;
	case DX_RAISE_CQ_EVENT:
		return ref_api.raise_cq(lx->ref, sl->cq[s->c] ?: sl->cq_gone[s->c],
					s->raise.event);
	case DX_RAISE_SRQ_EVENT:
		return ref_api.raise_srq(lx->ref, sl->srq[s->s] ?: sl->srq_gone[s->s],
					 s->raise.event);
	case DX_REAP_LEAKED:
		if (!(sl->qpn_valid & BIT(s->q)))
			return DX_RC_DEAD_SLOT;
		return lx_reap_leaked(lx, sl->qpn[s->q]);
	case DX_QPN_CURSOR:
		ref_api.set_cursor(lx->ref, s->cursor.next);
		return 0;
	case DX_SIZES:
		/* __ib_open_qp() allocates a whole struct ib_qp per share */
		o->out[n++] = sizeof(struct ib_qp);
		o->nout = n;
		return 0;
	}
	return -EOPNOTSUPP;
}

/* A share of the QP numbered @qpn in XRCD slot @x, or an error pointer. */
static struct ib_qp *lx_open_tgt(struct lx_ctx *lx, int x, u32 qpn)
{
	struct ib_qp_open_attr oa = { .qp_num = qpn, .qp_type = IB_QPT_XRC_TGT };

	return ib_open_qp(lx->sl.xrcd[x], &oa);
}

static void lx_observe(void *ctx, struct dx_obs *o)
{
	struct lx_ctx *lx = ctx;
	struct dx_slots *sl = &lx->sl;
	struct xqp_refdev_counts c;
	struct ib_qp_attr attr;
	struct ib_qp_init_attr init;
	int i, x, rc;

	dx_slots_observe(sl, o);
	for (x = 0; x < DX_NX; x++)
		if (sl->xrcd[x])
			o->usecnt[x] = atomic_read(&((struct ib_xrcd *)sl->xrcd[x])->usecnt);
	for (i = 0; i < DX_NQ; i++) {
		struct ib_qp *qp = sl->qp[i];

		if (!qp)
			continue;
		o->shares[i] = atomic_read(&qp->real_qp->usecnt);
		rc = ib_query_qp(qp, &attr, IB_QP_STATE, &init);
		o->state[i] = rc ? rc : attr.qp_state;
	}
	/* Openable: open (no handler) and close right away. */
	for (i = 0; i < DX_NQ; i++) {
		if (!(sl->qpn_valid & BIT(i)))
			continue;
		for (x = 0; x < DX_NX; x++) {
			struct ib_qp *h;

			if (!sl->xrcd[x])
				continue;
			h = lx_open_tgt(lx, x, sl->qpn[i]);
			if (IS_ERR(h))
				continue;
			o->open_bits |= BIT(i * DX_NX + x);
			ib_close_qp(h);
		}
	}
	ref_api.counts(lx->ref, &c);
	o->drv[0] = c.pd;
	o->drv[1] = c.cq;
	o->drv[2] = c.xrcd;
	o->drv[3] = c.srq;
	o->drv[4] = c.qp;
}

static unsigned int lx_teardown(void *ctx, struct kunit *test)
{
	struct lx_ctx *lx = ctx;
	struct dx_slots *sl = &lx->sl;
	unsigned int left = 0;
	int i, x;

	ref_api.inject(lx->ref, XQP_REFDEV_OP_CREATE_QP, 0, 0);
	ref_api.inject(lx->ref, XQP_REFDEV_OP_DESTROY_QP, 0, 0);

	/* Shares first: the last one of a QP destroys it. */
	for (i = 0; i < DX_NQ; i++) {
		struct ib_qp *qp = sl->qp[i];

		if (qp && qp->real_qp != qp)
			lx_destroy(lx, qp, i);
	}
	/* Share-less XRC_TGT QPs still published: open one, destroy it. */
	for (i = 0; i < DX_NQ; i++) {
		if (!(sl->qpn_valid & BIT(i)))
			continue;
		for (x = 0; x < DX_NX; x++) {
			struct ib_qp *h;

			if (!sl->xrcd[x])
				continue;
			h = lx_open_tgt(lx, x, sl->qpn[i]);
			if (!IS_ERR(h))
				lx_destroy(lx, h, -1);
		}
	}
	/* Real QPs a failed last destroy left behind (D1). */
	for (i = 0; i < DX_NQ; i++)
		if (sl->qpn_valid & BIT(i))
			lx_reap_leaked(lx, sl->qpn[i]);
	for (i = 0; i < DX_NQ; i++)
		if (sl->qp[i] && lx_destroy(lx, sl->qp[i], i))
			left++;
	for (i = 0; i < DX_NS; i++)
		if (sl->srq[i] && ib_destroy_srq_user(sl->srq[i], NULL))
			left++;
	for (i = 0; i < DX_NC; i++)
		if (sl->cq[i] && ib_destroy_cq_user(sl->cq[i], NULL))
			left++;
	for (i = 0; i < DX_NP; i++)
		if (sl->pd[i] && ib_dealloc_pd_user(sl->pd[i], NULL))
			left++;
	for (x = 0; x < DX_NX; x++)
		if (sl->xrcd[x] && ib_dealloc_xrcd_user(sl->xrcd[x], NULL))
			left++;
	if (left)
		kunit_err(test, "linux: %u objects could not be destroyed\n", left);
	return left + ref_api.destroy(lx->ref);
}

const struct dx_exec dx_linux_exec = {
	.name = "linux",
	.setup = lx_setup,
	.run = lx_run,
	.observe = lx_observe,
	.teardown = lx_teardown,
};

#else /* !CONFIG_INFINIBAND */

int dx_linux_get_api(void)
{
	return -ENOENT;
}

void dx_linux_release_api(void)
{
}

static void *lx_setup(struct kunit *test)
{
	return NULL;
}

const struct dx_exec dx_linux_exec = {
	.name = "linux",
	.setup = lx_setup,
};

#endif
