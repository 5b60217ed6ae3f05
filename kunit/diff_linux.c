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
 * (destroying a handle-less XRC_TGT real QP leaves a dangling table entry;
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
	      DX_A_ACCESS_BAD == (int)IB_ACCESS_MW_BIND && DX_A_MTU == (int)IB_MTU_1024 &&
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

struct lx_ctx;

struct lx_evctx {
	struct lx_ctx *lx;
	int slot;
};

struct lx_ctx {
	struct xqp_refdev *ref;
	struct ib_device *dev;
	struct ib_xrcd *xrcd[DX_NX];
	struct ib_pd *pd[DX_NP];
	struct ib_cq *cq[DX_NC];
	struct ib_srq *srq[DX_NS];
	struct ib_qp *qp[DX_NQ];	/* what the user holds: handle or QP */
	struct ib_qp *real[DX_NQ];	/* the real QP behind it, while it lives */
	u32 qpn[DX_NQ];
	u32 qpn_valid;			/* bit per slot: qpn[] recorded */
	struct lx_evctx evctx[DX_NQ];
	struct dx_ev ev[DX_NQ];
	/* CQ and SRQ events; the last CQ/SRQ destroyed in a slot (never followed) */
	struct lx_evctx cq_evctx[DX_NC], srq_evctx[DX_NS];
	struct dx_ev cq_ev[DX_NC], srq_ev[DX_NS];
	struct ib_cq *cq_gone[DX_NC];
	struct ib_srq *srq_gone[DX_NS];
};

static void lx_event(struct ib_event *ev, void *context)
{
	struct lx_evctx *ec = context;
	struct lx_ctx *lx = ec->lx;

	dx_ev_record(&lx->ev[ec->slot], lx->qp, ev->element.qp, ev->event);
}

static void lx_cq_event(struct ib_event *ev, void *context)
{
	struct lx_evctx *ec = context;
	struct lx_ctx *lx = ec->lx;

	dx_ev_record(&lx->cq_ev[ec->slot], lx->cq, ev->element.cq, ev->event);
}

static void lx_srq_event(struct ib_event *ev, void *context)
{
	struct lx_evctx *ec = context;
	struct lx_ctx *lx = ec->lx;

	dx_ev_record(&lx->srq_ev[ec->slot], lx->srq, ev->element.srq, ev->event);
}

static void *lx_setup(struct kunit *test)
{
	struct lx_ctx *lx;
	int i;

	if (!ref_api.create)
		return NULL;
	lx = kunit_kzalloc(test, sizeof(*lx), GFP_KERNEL);
	if (!lx)
		return NULL;
	lx->ref = ref_api.create();
	if (IS_ERR(lx->ref)) {
		kunit_err(test, "xqp_refdev_create: %ld\n", PTR_ERR(lx->ref));
		return NULL;
	}
	lx->dev = ref_api.ibdev(lx->ref);
	for (i = 0; i < DX_NQ; i++) {
		lx->evctx[i].lx = lx;
		lx->evctx[i].slot = i;
		lx->ev[i].elem = -1;
	}
	for (i = 0; i < DX_NC; i++) {
		lx->cq_evctx[i] = (struct lx_evctx){ .lx = lx, .slot = i };
		lx->cq_ev[i].elem = -1;
	}
	for (i = 0; i < DX_NS; i++) {
		lx->srq_evctx[i] = (struct lx_evctx){ .lx = lx, .slot = i };
		lx->srq_ev[i].elem = -1;
	}
	return lx;
}

static u32 lx_resolve_qpn(struct lx_ctx *lx, int src)
{
	if (src >= 0 && src < DX_NQ && (lx->qpn_valid & BIT(src)))
		return lx->qpn[src];
	return dx_literal_qpn(src < 0 ? src : DX_QPN_BOGUS);
}

static bool lx_qpn_reused(struct lx_ctx *lx, int q, u32 qpn)
{
	int i;

	for (i = 0; i < DX_NQ; i++)
		if (i != q && (lx->qpn_valid & BIT(i)) && lx->qpn[i] == qpn)
			return true;
	return false;
}

static void lx_record(struct lx_ctx *lx, int q, struct ib_qp *qp)
{
	lx->qp[q] = qp;
	lx->real[q] = qp->real_qp;
	lx->qpn[q] = qp->qp_num;
	lx->qpn_valid |= BIT(q);
}

/* ib_core no longer has @real: forget every pointer to it. */
static void lx_forget_real(struct lx_ctx *lx, struct ib_qp *real)
{
	int i;

	for (i = 0; i < DX_NQ; i++) {
		if (lx->real[i] == real)
			lx->real[i] = NULL;
		if (lx->qp[i] == real)
			lx->qp[i] = NULL;
	}
}

static void lx_fill_attr(const struct dx_step *s, struct ib_qp_attr *a)
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
	a->ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
	a->ah_attr.port_num = 1;
	a->ah_attr.sl = DX_A_SL;
	a->ah_attr.ib.dlid = DX_A_DLID;
	a->alt_ah_attr.type = RDMA_AH_ATTR_TYPE_IB;
	a->alt_ah_attr.port_num = 1;
	a->alt_ah_attr.sl = DX_A_SL;
	a->alt_ah_attr.ib.dlid = DX_A_ALT_DLID;
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
		a->cur_qp_state = IB_QPS_RESET;
		break;
	case DX_V_CUR_RTS:
		a->cur_qp_state = IB_QPS_RTS;
		break;
	case DX_V_CUR_SQD:
		a->cur_qp_state = IB_QPS_SQD;
		break;
	}
}

static void lx_out_query(struct dx_obs *o, struct ib_qp *qp, const struct ib_qp_attr *a,
			 const struct ib_qp_init_attr *init)
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
	v[n++] = rdma_ah_get_dlid(&a->ah_attr);
	v[n++] = a->ah_attr.sl;
	v[n++] = a->alt_port_num;
	v[n++] = rdma_ah_get_dlid(&a->alt_ah_attr);
	v[n++] = init->qp_type;
	v[n++] = init->cap.max_send_wr;
	v[n++] = init->sq_sig_type;
	v[n++] = qp->qp_num == qp->real_qp->qp_num;
	o->nout = n;
}

static void lx_out_cap(struct dx_obs *o, int *n, const struct ib_qp_cap *cap)
{
	o->out[(*n)++] = cap->max_send_wr;
	o->out[(*n)++] = cap->max_recv_wr;
	o->out[(*n)++] = cap->max_send_sge;
	o->out[(*n)++] = cap->max_recv_sge;
	o->out[(*n)++] = cap->max_inline_data;
}

static int lx_create(struct lx_ctx *lx, const struct dx_step *s, struct dx_obs *o)
{
	struct dx_cap want = dx_cap_set(s->arg);
	struct ib_qp_init_attr init = {
		.event_handler = (s->flags & DX_F_NO_HANDLER) ? NULL : lx_event,
		.qp_context = &lx->evctx[s->q],
		.cap = {
			.max_send_wr = want.send_wr,
			.max_recv_wr = want.recv_wr,
			.max_send_sge = want.send_sge,
			.max_recv_sge = want.recv_sge,
			.max_inline_data = want.inline_data,
		},
		.create_flags = want.create_flags,
		.sq_sig_type = (s->flags & DX_F_SIG_ALL) ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR,
	};
	struct ib_pd *pd = NULL;
	struct ib_qp *qp;
	int n = 0;

	if (lx->qp[s->q])
		return DX_RC_DEAD_SLOT;
	init.qp_type = s->var;
	if (s->op == DX_CREATE_TGT) {
		if (s->x >= 0) {
			if (!lx->xrcd[s->x])
				return DX_RC_DEAD_SLOT;
			init.xrcd = lx->xrcd[s->x];
		}
	} else {
		if (!lx->pd[s->p] || !lx->cq[s->c] || (s->s >= 0 && !lx->srq[s->s]))
			return DX_RC_DEAD_SLOT;
		pd = lx->pd[s->p];
		init.send_cq = lx->cq[s->c];
		init.recv_cq = lx->cq[s->c];
		init.srq = s->s >= 0 ? lx->srq[s->s] : NULL;
	}

	/*
	 * ib_create_qp_user() is the XRC_TGT path for kernel callers (it owns
	 * the real QP as "caller"); for other types it is uverbs' path and
	 * WARNs without udata. Kernel callers of other types use
	 * ib_create_qp_kernel(), which also takes the PD/CQ/SRQ usecnts
	 * (ib_qp_usecnt_inc), as xqp_create_qp_user() does for every caller.
	 */
	if (s->op == DX_CREATE_TGT)
		qp = ib_create_qp_user(lx->dev, NULL, &init, NULL, NULL, "xqp_diff");
	else
		qp = ib_create_qp_kernel(pd, &init, "xqp_diff");
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	o->out[n++] = qp->qp_num >= 2 && qp->qp_num <= 0xffffff;
	o->out[n++] = lx_qpn_reused(lx, s->q, qp->qp_num);
	o->out[n++] = qp->qp_type;
	o->out[n++] = qp->real_qp != qp;	/* a handle */
	if (s->flags & DX_F_QPN)
		o->out[n++] = qp->qp_num;
	lx_out_cap(o, &n, &init.cap);
	o->nout = n;
	lx_record(lx, s->q, qp);
	return 0;
}

static int lx_destroy(struct lx_ctx *lx, struct ib_qp *qp, int q)
{
	struct ib_qp *real = qp->real_qp;
	bool handle = real != qp;
	bool last = handle && atomic_read(&real->usecnt) == 1;
	int rc;

	if (!handle && qp->qp_type == IB_QPT_XRC_TGT && !atomic_read(&qp->usecnt))
		return DX_RC_NOT_RUN;	/* D2: would leave a dangling table entry */
	rc = ib_destroy_qp_user(qp, NULL);
	if (handle) {
		/* ib_core frees the handle whatever happens to the real QP */
		if (q >= 0)
			lx->qp[q] = NULL;
		if (last)
			lx_forget_real(lx, real);
	} else if (!rc) {
		lx_forget_real(lx, qp);
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

static int lx_run(void *ctx, const struct dx_step *s, struct dx_obs *o)
{
	struct lx_ctx *lx = ctx;
	struct ib_qp_attr attr;
	struct ib_qp_init_attr init;
	struct ib_qp *qp;
	int rc, n = 0;

	switch (s->op) {
	case DX_ALLOC_XRCD: {
		struct ib_xrcd *x;

		if (lx->xrcd[s->x])
			return DX_RC_DEAD_SLOT;
		x = ib_alloc_xrcd_user(lx->dev, NULL, NULL);
		if (IS_ERR(x))
			return PTR_ERR(x);
		lx->xrcd[s->x] = x;
		return 0;
	}
	case DX_DEALLOC_XRCD:
		if (!lx->xrcd[s->x])
			return DX_RC_DEAD_SLOT;
		rc = ib_dealloc_xrcd_user(lx->xrcd[s->x], NULL);
		if (!rc)
			lx->xrcd[s->x] = NULL;
		return rc;
	case DX_ALLOC_PD: {
		struct ib_pd *pd;

		if (lx->pd[s->p])
			return DX_RC_DEAD_SLOT;
		pd = ib_alloc_pd(lx->dev, 0);
		if (IS_ERR(pd))
			return PTR_ERR(pd);
		lx->pd[s->p] = pd;
		return 0;
	}
	case DX_DEALLOC_PD:
		if (!lx->pd[s->p])
			return DX_RC_DEAD_SLOT;
		/* Linux frees a PD in use (D3): never asked to here. */
		if (atomic_read(&lx->pd[s->p]->usecnt))
			return DX_RC_NOT_RUN;
		rc = ib_dealloc_pd_user(lx->pd[s->p], NULL);
		if (!rc)
			lx->pd[s->p] = NULL;
		return rc;
	case DX_CREATE_CQ: {
		struct ib_cq_init_attr ca = { .cqe = 16 };
		struct ib_cq *cq;

		if (lx->cq[s->c])
			return DX_RC_DEAD_SLOT;
		cq = ib_create_cq(lx->dev, NULL,
				  (s->flags & DX_F_NO_HANDLER) ? NULL : lx_cq_event,
				  &lx->cq_evctx[s->c], &ca);
		if (IS_ERR(cq))
			return PTR_ERR(cq);
		lx->cq[s->c] = cq;
		return 0;
	}
	case DX_DESTROY_CQ:
		if (!lx->cq[s->c])
			return DX_RC_DEAD_SLOT;
		rc = ib_destroy_cq_user(lx->cq[s->c], NULL);
		if (!rc) {
			lx->cq_gone[s->c] = lx->cq[s->c];
			lx->cq[s->c] = NULL;
		}
		return rc;
	case DX_CREATE_TGT:
	case DX_CREATE_QP:
		return lx_create(lx, s, o);
	case DX_OPEN: {
		struct ib_qp_open_attr oa = {
			.event_handler = (s->flags & DX_F_NO_HANDLER) ? NULL : lx_event,
			.qp_context = &lx->evctx[s->q],
			.qp_num = lx_resolve_qpn(lx, s->qpn),
			.qp_type = s->arg,
		};

		if (lx->qp[s->q] || !lx->xrcd[s->x])
			return DX_RC_DEAD_SLOT;
		qp = ib_open_qp(lx->xrcd[s->x], &oa);
		if (IS_ERR(qp))
			return PTR_ERR(qp);
		o->out[n++] = qp->qp_num == oa.qp_num;
		o->out[n++] = qp->qp_type;
		o->out[n++] = qp->real_qp != qp;
		o->nout = n;
		lx_record(lx, s->q, qp);
		return 0;
	}
	case DX_CLOSE:
		if (!lx->qp[s->q])
			return DX_RC_DEAD_SLOT;
		rc = ib_close_qp(lx->qp[s->q]);
		if (!rc)
			lx->qp[s->q] = NULL;
		return rc;
	case DX_CLOSE_REAL:
		if (!lx->real[s->q])
			return DX_RC_DEAD_SLOT;
		return ib_close_qp(lx->real[s->q]);
	case DX_DESTROY:
		if (!lx->qp[s->q])
			return DX_RC_DEAD_SLOT;
		return lx_destroy(lx, lx->qp[s->q], s->q);
	case DX_DESTROY_REAL:
		if (!lx->real[s->q])
			return DX_RC_DEAD_SLOT;
		return lx_destroy(lx, lx->real[s->q], -1);
	case DX_MODIFY:
		if (!lx->qp[s->q])
			return DX_RC_DEAD_SLOT;
		/* D5: _ib_modify_qp() indexes port_data[] with it unchecked. */
		if ((s->mask & IB_QP_PORT) && s->var == DX_V_PORT2)
			return DX_RC_NOT_RUN;
		lx_fill_attr(s, &attr);
		return ib_modify_qp(lx->qp[s->q], &attr, s->mask);
	case DX_QUERY:
		if (!lx->qp[s->q])
			return DX_RC_DEAD_SLOT;
		memset(&attr, 0, sizeof(attr));
		memset(&init, 0, sizeof(init));
		rc = ib_query_qp(lx->qp[s->q], &attr, s->mask, &init);
		if (!rc)
			lx_out_query(o, lx->qp[s->q], &attr, &init);
		return rc;
	case DX_RAISE:
		return ref_api.raise(lx->ref, lx_resolve_qpn(lx, s->qpn), s->arg);
	case DX_INJECT:
		ref_api.inject(lx->ref, s->arg == DX_INJ_CREATE_QP ? XQP_REFDEV_OP_CREATE_QP :
			       XQP_REFDEV_OP_DESTROY_QP, s->var, 0);
		return 0;
	case DX_CREATE_SRQ: {
		struct ib_srq_init_attr sa = {
			.attr = { .max_wr = 10, .max_sge = 1 },
			.srq_type = s->x == -1 ? IB_SRQT_BASIC : IB_SRQT_XRC,
			.event_handler = (s->flags & DX_F_NO_HANDLER) ? NULL : lx_srq_event,
			.srq_context = &lx->srq_evctx[s->s],
		};
		struct ib_srq *srq;

		if (lx->srq[s->s] || !lx->pd[s->p])
			return DX_RC_DEAD_SLOT;
		if (sa.srq_type == IB_SRQT_XRC) {
			/* D8: ib_core takes ext.cq's usecnt unchecked */
			if (s->c < 0)
				return DX_RC_NOT_RUN;
			if (!lx->cq[s->c] || (s->x >= 0 && !lx->xrcd[s->x]))
				return DX_RC_DEAD_SLOT;
			sa.ext.cq = lx->cq[s->c];
			sa.ext.xrc.xrcd = s->x >= 0 ? lx->xrcd[s->x] : NULL;
		}
		srq = ib_create_srq_user(lx->pd[s->p], &sa, NULL, NULL);
		if (IS_ERR(srq))
			return PTR_ERR(srq);
		o->out[n++] = sa.attr.max_wr;
		o->out[n++] = sa.attr.max_sge;
		o->nout = n;
		lx->srq[s->s] = srq;
		return 0;
	}
	case DX_DESTROY_SRQ:
		if (!lx->srq[s->s])
			return DX_RC_DEAD_SLOT;
		rc = ib_destroy_srq_user(lx->srq[s->s], NULL);
		if (!rc) {
			lx->srq_gone[s->s] = lx->srq[s->s];
			lx->srq[s->s] = NULL;
		}
		return rc;
	case DX_RAISE_CQ_EVENT:
		if (!lx->cq[s->c] && !lx->cq_gone[s->c])
			return DX_RC_DEAD_SLOT;
		return ref_api.raise_cq(lx->ref, lx->cq[s->c] ?: lx->cq_gone[s->c], s->arg);
	case DX_RAISE_SRQ_EVENT:
		if (!lx->srq[s->s] && !lx->srq_gone[s->s])
			return DX_RC_DEAD_SLOT;
		return ref_api.raise_srq(lx->ref, lx->srq[s->s] ?: lx->srq_gone[s->s], s->arg);
	case DX_REAP_LEAKED:
		if (!(lx->qpn_valid & BIT(s->q)))
			return DX_RC_DEAD_SLOT;
		return lx_reap_leaked(lx, lx->qpn[s->q]);
	case DX_QPN_CURSOR:
		ref_api.set_cursor(lx->ref, s->arg);
		return 0;
	case DX_SIZES:
		/* __ib_open_qp() allocates a whole struct ib_qp per handle */
		o->out[n++] = sizeof(struct ib_qp);
		o->nout = n;
		return 0;
	}
	return -EOPNOTSUPP;
}

static void lx_observe(void *ctx, struct dx_obs *o)
{
	struct lx_ctx *lx = ctx;
	struct xqp_refdev_counts c;
	struct ib_qp_attr attr;
	struct ib_qp_init_attr init;
	int i, x, rc;

	for (x = 0; x < DX_NX; x++) {
		if (!lx->xrcd[x])
			continue;
		o->xrcd_live |= BIT(x);
		o->usecnt[x] = atomic_read(&lx->xrcd[x]->usecnt);
	}
	for (i = 0; i < DX_NP; i++)
		if (lx->pd[i])
			o->pd_live |= BIT(i);
	for (i = 0; i < DX_NC; i++)
		if (lx->cq[i])
			o->cq_live |= BIT(i);
	for (i = 0; i < DX_NS; i++)
		if (lx->srq[i])
			o->srq_live |= BIT(i);
	for (i = 0; i < DX_NQ; i++) {
		struct ib_qp *qp = lx->qp[i];

		if (!qp)
			continue;
		o->qp_live |= BIT(i);
		o->handles[i] = atomic_read(&qp->real_qp->usecnt);
		rc = ib_query_qp(qp, &attr, IB_QP_STATE, &init);
		o->state[i] = rc ? rc : attr.qp_state;
	}
	/* Openable: open (no handler) and close right away. */
	for (i = 0; i < DX_NQ; i++) {
		if (!(lx->qpn_valid & BIT(i)))
			continue;
		for (x = 0; x < DX_NX; x++) {
			struct ib_qp_open_attr oa = {
				.qp_num = lx->qpn[i],
				.qp_type = IB_QPT_XRC_TGT,
			};
			struct ib_qp *h;

			if (!lx->xrcd[x])
				continue;
			h = ib_open_qp(lx->xrcd[x], &oa);
			if (IS_ERR(h))
				continue;
			o->open_bits |= BIT(i * DX_NX + x);
			ib_close_qp(h);
		}
	}
	for (i = 0; i < DX_NQ; i++) {
		o->ev[i] = lx->ev[i];
		lx->ev[i] = (struct dx_ev){ .elem = -1 };
	}
	for (i = 0; i < DX_NC; i++) {
		o->cq_ev[i] = lx->cq_ev[i];
		lx->cq_ev[i] = (struct dx_ev){ .elem = -1 };
	}
	for (i = 0; i < DX_NS; i++) {
		o->srq_ev[i] = lx->srq_ev[i];
		lx->srq_ev[i] = (struct dx_ev){ .elem = -1 };
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
	unsigned int left = 0;
	int i, x;

	ref_api.inject(lx->ref, XQP_REFDEV_OP_CREATE_QP, 0, 0);
	ref_api.inject(lx->ref, XQP_REFDEV_OP_DESTROY_QP, 0, 0);

	/* Handles first: the last one of a QP destroys it. */
	for (i = 0; i < DX_NQ; i++)
		if (lx->qp[i] && lx->qp[i]->real_qp != lx->qp[i])
			lx_destroy(lx, lx->qp[i], i);
	/* Handle-less XRC_TGT QPs still published: open one, destroy it. */
	for (i = 0; i < DX_NQ; i++) {
		if (!(lx->qpn_valid & BIT(i)))
			continue;
		for (x = 0; x < DX_NX; x++) {
			struct ib_qp_open_attr oa = {
				.qp_num = lx->qpn[i],
				.qp_type = IB_QPT_XRC_TGT,
			};
			struct ib_qp *h;

			if (!lx->xrcd[x])
				continue;
			h = ib_open_qp(lx->xrcd[x], &oa);
			if (!IS_ERR(h))
				lx_destroy(lx, h, -1);
		}
	}
	/* Real QPs a failed last destroy left behind (D1). */
	for (i = 0; i < DX_NQ; i++)
		if (lx->qpn_valid & BIT(i))
			lx_reap_leaked(lx, lx->qpn[i]);
	for (i = 0; i < DX_NQ; i++)
		if (lx->qp[i] && lx_destroy(lx, lx->qp[i], i))
			left++;
	for (i = 0; i < DX_NS; i++)
		if (lx->srq[i] && ib_destroy_srq_user(lx->srq[i], NULL))
			left++;
	for (i = 0; i < DX_NC; i++)
		if (lx->cq[i] && ib_destroy_cq_user(lx->cq[i], NULL))
			left++;
	for (i = 0; i < DX_NP; i++)
		if (lx->pd[i] && ib_dealloc_pd_user(lx->pd[i], NULL))
			left++;
	for (x = 0; x < DX_NX; x++)
		if (lx->xrcd[x] && ib_dealloc_xrcd_user(lx->xrcd[x], NULL))
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
