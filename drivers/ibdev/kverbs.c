// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel verbs on a linked device's ib_device: what ib_core's MAD layer
 * (the GSI QP), ib_cm, rdma_cm and other kernel clients call, each op on
 * the core's own API (xqp_alloc_pd(), xqp_create_qp_user(), xqp_post_send(),
 * ...) over the same xqp device that /dev/xqp/uverbsN serves. So kernel and
 * user objects share one device, its limits (max_qp, max_cq, ...) and its
 * teardown; docs/design.md "Two faces of one device".
 *
 * With every mandatory op present, ib_core counts the device a kernel
 * verbs provider (ib_device_check_mandatory()) and its clients attach.
 * What this face does not do fails with EOPNOTSUPP: user objects through
 * ib_uverbs (udata), XRC (xqp's own path: /dev/xqp and the provider),
 * memory registration beyond the DMA MR, resizing a CQ. Addresses are kernel virtual
 * addresses: the device has no DMA device, so ib_core maps with
 * ib_uses_virt_dma() and the DMA MR (xqp_get_dma_mr()) covers them.
 */
#include <linux/slab.h>
#include <linux/version.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include <xqp/driver.h>
#include "../rules/qp_attr.h"
#include "ibdev.h"

struct xqp_kpd {
	struct ib_pd ibpd;
	struct xqp_pd *pd;
};

struct xqp_kcq {
	struct ib_cq ibcq;
	struct xqp_cq *cq;
};

struct xqp_kqp {
	struct ib_qp ibqp;
	struct xqp_qp *qp;
};

struct xqp_ksrq {
	struct ib_srq ibsrq;
	struct xqp_srq *srq;
};

struct xqp_kah {
	struct ib_ah ibah;
	struct xqp_ah *ah;
};

struct xqp_kmr {
	struct ib_mr ibmr;
	struct xqp_mr *mr;
};

#define XQP_K(kind, obj) container_of(obj, struct xqp_k##kind, ib##kind)

/* The shapes and values the conversions below pass through unchanged. */
static_assert(sizeof(struct ib_sge) == sizeof(struct xqp_sge) &&
	      offsetof(struct ib_sge, addr) == offsetof(struct xqp_sge, addr) &&
	      offsetof(struct ib_sge, length) == offsetof(struct xqp_sge, length) &&
	      offsetof(struct ib_sge, lkey) == offsetof(struct xqp_sge, lkey));
static_assert((int)IB_QPT_GSI == (int)XQP_QPT_GSI && (int)IB_QPT_RC == (int)XQP_QPT_RC &&
	      (int)IB_QPT_UC == (int)XQP_QPT_UC && (int)IB_QPT_UD == (int)XQP_QPT_UD);
/*
 * The last opcode a kernel caller can name: ATOMIC_WRITE since 6.2; Debian
 * 12's 6.1 ends at the masked atomics (the values are shared with uverbs).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define XQP_KV_LAST_WR IB_WR_ATOMIC_WRITE
static_assert((int)IB_WR_ATOMIC_WRITE == (int)XQP_WR_ATOMIC_WRITE);
#else
#define XQP_KV_LAST_WR IB_WR_MASKED_ATOMIC_FETCH_AND_ADD
#endif
static_assert((int)XQP_KV_LAST_WR <= (int)XQP_WR_ATOMIC_WRITE &&
	      (int)IB_WR_RDMA_READ == (int)XQP_WR_RDMA_READ &&
	      (int)IB_WR_ATOMIC_FETCH_AND_ADD == (int)XQP_WR_ATOMIC_FETCH_AND_ADD);
static_assert((int)IB_WC_GENERAL_ERR == (int)XQP_WC_GENERAL_ERR &&
	      (int)IB_WC_RECV_RDMA_WITH_IMM == (int)XQP_WC_RECV_RDMA_WITH_IMM &&
	      (int)IB_WC_FETCH_ADD == (int)XQP_WC_FETCH_ADD);
static_assert((int)IB_WC_GRH == (int)XQP_WC_GRH && (int)IB_WC_WITH_IMM == (int)XQP_WC_WITH_IMM);
static_assert((int)IB_SEND_FENCE == (int)XQP_SEND_FENCE &&
	      (int)IB_SEND_SIGNALED == (int)XQP_SEND_SIGNALED &&
	      (int)IB_SEND_SOLICITED == (int)XQP_SEND_SOLICITED &&
	      (int)IB_SEND_INLINE == (int)XQP_SEND_INLINE);
static_assert((int)IB_CQ_REPORT_MISSED_EVENTS == (int)XQP_CQ_REPORT_MISSED_EVENTS &&
	      (int)IB_CQ_SOLICITED_MASK == (int)XQP_CQ_SOLICITED_MASK);
static_assert((int)IB_QP_RATE_LIMIT == (int)XQP_QP_RATE_LIMIT &&
	      (int)IB_QP_DEST_QPN == (int)XQP_QP_DEST_QPN &&
	      (int)IB_QP_ATTR_STANDARD_BITS == (int)XQP_QP_ATTR_STANDARD_BITS);
static_assert((int)IB_ACCESS_LOCAL_WRITE == (int)XQP_ACCESS_LOCAL_WRITE &&
	      (int)IB_ACCESS_REMOTE_ATOMIC == (int)XQP_ACCESS_REMOTE_ATOMIC);

#define XQP_KV_SEND_FLAGS (IB_SEND_FENCE | IB_SEND_SIGNALED | IB_SEND_SOLICITED | IB_SEND_INLINE)

static struct xqp_device *kv_xdev(struct ib_device *ibdev)
{
	return to_ibdev(ibdev)->xdev;
}

/* ---- PDs and the DMA MR ------------------------------------------------- */

static int kv_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct xqp_pd *pd;

	if (udata)
		return -EOPNOTSUPP;
	pd = xqp_alloc_pd(kv_xdev(ibpd->device));
	if (IS_ERR(pd))
		return PTR_ERR(pd);
	XQP_K(pd, ibpd)->pd = pd;
	return 0;
}

static int kv_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	return xqp_dealloc_pd(XQP_K(pd, ibpd)->pd);
}

static struct ib_mr *kv_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct xqp_kmr *kmr;
	struct xqp_mr *mr;

	kmr = kzalloc(sizeof(*kmr), GFP_KERNEL);
	if (!kmr)
		return ERR_PTR(-ENOMEM);
	mr = xqp_get_dma_mr(XQP_K(pd, ibpd)->pd, access);
	if (IS_ERR(mr)) {
		kfree(kmr);
		return ERR_CAST(mr);
	}
	kmr->mr = mr;
	kmr->ibmr.lkey = xqp_mr_lkey(mr);
	kmr->ibmr.rkey = xqp_mr_rkey(mr);
	return &kmr->ibmr;
}

/* User memory registers through /dev/xqp, never through ib_uverbs. */
static struct ib_mr *kv_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length, u64 iova,
				    int access, struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static int kv_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct xqp_kmr *kmr = container_of(ibmr, struct xqp_kmr, ibmr);
	int err = xqp_dereg_mr(kmr->mr);

	if (!err)
		kfree(kmr);
	return err;
}

/* ---- CQs ------------------------------------------------------------------ */

/* Any context: ib_core's handler for the CQ's poll context. */
static void kv_cq_comp(struct xqp_cq *cq, void *context)
{
	struct ib_cq *ibcq = context;

	if (ibcq->comp_handler)
		ibcq->comp_handler(ibcq, ibcq->cq_context);
}

static void kv_cq_event(struct xqp_event *ev, void *context)
{
	struct ib_cq *ibcq = context;
	struct ib_event ibev = {
		.device = ibcq->device,
		.element.cq = ibcq,
		.event = (enum ib_event_type)ev->event,
	};

	if (ibcq->event_handler)
		ibcq->event_handler(&ibev, ibcq->cq_context);
}

/*
 * create_cq's last argument is the uverbs attribute bundle since 6.9, the
 * udata before (Debian 12's 6.1): either is NULL for a kernel caller, the
 * only one this face serves.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 9, 0)
typedef struct uverbs_attr_bundle kv_cq_user;
#else
typedef struct ib_udata kv_cq_user;
#endif

static int kv_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
			kv_cq_user *attrs)
{
	struct xqp_cq_init_attr ca = {
		.cqe = attr->cqe,
		.comp_handler = kv_cq_comp,
		.event_handler = kv_cq_event,
		.cq_context = ibcq,
	};
	struct xqp_cq *cq;

	if (attrs || attr->flags)
		return -EOPNOTSUPP;
	cq = xqp_create_cq_attr(kv_xdev(ibcq->device), &ca);
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	XQP_K(cq, ibcq)->cq = cq;
	ibcq->cqe = xqp_cq_cqe(cq);
	return 0;
}

static int kv_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	return xqp_destroy_cq(XQP_K(cq, ibcq)->cq);
}

/* The ib_wc of @x; its QP is the kernel QP of that number on this device. */
static void kv_wc(struct xqp_ibdev *d, const struct xqp_wc *x, struct ib_wc *wc)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = x->wr_id;
	wc->status = (enum ib_wc_status)x->status;
	wc->opcode = (enum ib_wc_opcode)x->opcode;
	wc->vendor_err = x->vendor_err;
	wc->byte_len = x->byte_len;
	wc->qp = xa_load(&d->kqps, x->qp_num);
	wc->ex.imm_data = (__force __be32)x->imm_data;
	wc->src_qp = x->src_qp;
	wc->slid = x->slid;
	wc->wc_flags = x->wc_flags;
	wc->pkey_index = x->pkey_index;
	wc->sl = x->sl;
	wc->dlid_path_bits = x->dlid_path_bits;
	wc->port_num = x->port_num;
}

#define XQP_KV_POLL_BATCH 8

static int kv_poll_cq(struct ib_cq *ibcq, int num, struct ib_wc *wc)
{
	struct xqp_ibdev *d = to_ibdev(ibcq->device);
	struct xqp_wc x[XQP_KV_POLL_BATCH];
	int done = 0, n, i;

	while (done < num) {
		n = xqp_poll_cq(XQP_K(cq, ibcq)->cq, min(num - done, XQP_KV_POLL_BATCH), x);
		if (n < 0)
			return done ?: n;
		for (i = 0; i < n; i++)
			kv_wc(d, &x[i], &wc[done + i]);
		done += n;
		if (n < XQP_KV_POLL_BATCH)
			break;
	}
	return done;
}

static int kv_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	return xqp_req_notify_cq(XQP_K(cq, ibcq)->cq, flags);
}

/* ---- address handles -------------------------------------------------------- */

static void kv_av_from_ib(struct xqp_ah_attr *a, const struct rdma_ah_attr *r)
{
	memset(a, 0, sizeof(*a));
	a->port_num = rdma_ah_get_port_num(r);
	a->sl = rdma_ah_get_sl(r);
	a->static_rate = rdma_ah_get_static_rate(r);
	if (r->type == RDMA_AH_ATTR_TYPE_IB) {
		a->dlid = rdma_ah_get_dlid(r);
		a->src_path_bits = rdma_ah_get_path_bits(r);
	}
	if (rdma_ah_get_ah_flags(r) & IB_AH_GRH) {
		const struct ib_global_route *g = rdma_ah_read_grh(r);

		a->is_global = 1;
		memcpy(a->dgid, g->dgid.raw, sizeof(a->dgid));
		a->flow_label = g->flow_label;
		a->sgid_index = g->sgid_index;
		a->hop_limit = g->hop_limit;
		a->traffic_class = g->traffic_class;
	}
}

static void kv_av_to_ib(struct ib_device *ibdev, struct rdma_ah_attr *r,
			const struct xqp_ah_attr *a)
{
	memset(r, 0, sizeof(*r));
	r->type = rdma_ah_find_type(ibdev, a->port_num);
	rdma_ah_set_port_num(r, a->port_num);
	rdma_ah_set_sl(r, a->sl);
	rdma_ah_set_static_rate(r, a->static_rate);
	if (r->type == RDMA_AH_ATTR_TYPE_IB) {
		rdma_ah_set_dlid(r, a->dlid);
		rdma_ah_set_path_bits(r, a->src_path_bits);
	}
	if (a->is_global)
		rdma_ah_set_grh(r, (union ib_gid *)a->dgid, a->flow_label, a->sgid_index,
				a->hop_limit, a->traffic_class);
}

/*
 * Every AH of this face is made as for atomic context (XQP_AH_NO_SLEEP):
 * rdma_create_ah() without RDMA_CREATE_AH_SLEEPABLE may come under a
 * spinlock, and ib_cm destroys AHs without RDMA_DESTROY_AH_SLEEPABLE that
 * it made with it, so destroy must never sleep either.
 */
static int kv_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
			struct ib_udata *udata)
{
	struct xqp_ah_attr av;
	struct xqp_ah *ah;

	if (udata)
		return -EOPNOTSUPP;
	kv_av_from_ib(&av, init->ah_attr);
	ah = xqp_create_ah_flags(XQP_K(pd, ibah->pd)->pd, &av, XQP_AH_NO_SLEEP);
	if (IS_ERR(ah))
		return PTR_ERR(ah);
	XQP_K(ah, ibah)->ah = ah;
	return 0;
}

static int kv_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	return xqp_destroy_ah(XQP_K(ah, ibah)->ah);
}

static int kv_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	kv_av_to_ib(ibah->device, attr, xqp_ah_get_attr(XQP_K(ah, ibah)->ah));
	return 0;
}

/* ---- SRQs (basic: XRC SRQs are the user face's) -------------------------- */

static void kv_srq_event(struct xqp_event *ev, void *context)
{
	struct ib_srq *ibsrq = context;
	struct ib_event ibev = {
		.device = ibsrq->device,
		.element.srq = ibsrq,
		.event = (enum ib_event_type)ev->event,
	};

	if (ibsrq->event_handler)
		ibsrq->event_handler(&ibev, ibsrq->srq_context);
}

static void kv_srq_attr_from_ib(struct xqp_srq_attr *x, const struct ib_srq_attr *a)
{
	x->max_wr = a->max_wr;
	x->max_sge = a->max_sge;
	x->srq_limit = a->srq_limit;
}

static void kv_srq_attr_to_ib(struct ib_srq_attr *a, const struct xqp_srq_attr *x)
{
	a->max_wr = x->max_wr;
	a->max_sge = x->max_sge;
	a->srq_limit = x->srq_limit;
}

static int kv_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
			 struct ib_udata *udata)
{
	struct xqp_srq_init_attr xi = {
		.event_handler = kv_srq_event,
		.srq_context = ibsrq,
		.srq_type = XQP_SRQT_BASIC,
	};
	struct xqp_srq *srq;

	if (udata || init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	kv_srq_attr_from_ib(&xi.attr, &init->attr);
	srq = xqp_create_srq(XQP_K(pd, ibsrq->pd)->pd, &xi);
	if (IS_ERR(srq))
		return PTR_ERR(srq);
	XQP_K(srq, ibsrq)->srq = srq;
	kv_srq_attr_to_ib(&init->attr, &xi.attr);
	return 0;
}

static int kv_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	return xqp_destroy_srq(XQP_K(srq, ibsrq)->srq);
}

static int kv_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
			 enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct xqp_srq_attr x;

	if (udata)
		return -EOPNOTSUPP;
	kv_srq_attr_from_ib(&x, attr);
	return xqp_modify_srq(XQP_K(srq, ibsrq)->srq, &x, mask);
}

static int kv_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct xqp_srq_attr x;
	int err = xqp_query_srq(XQP_K(srq, ibsrq)->srq, &x);

	if (!err)
		kv_srq_attr_to_ib(attr, &x);
	return err;
}

/* ---- QPs -------------------------------------------------------------------- */

/* Atomic context, as ib_core's QP event handlers are called. */
static void kv_qp_event(struct xqp_event *ev, void *context)
{
	struct ib_qp *ibqp = context;
	struct ib_event ibev = {
		.device = ibqp->device,
		.element.qp = ibqp,
		.event = (enum ib_event_type)ev->event,
	};

	if (ibqp->event_handler)
		ibqp->event_handler(&ibev, ibqp->qp_context);
}

static void kv_cap_from_ib(struct xqp_qp_cap *x, const struct ib_qp_cap *c)
{
	x->max_send_wr = c->max_send_wr;
	x->max_recv_wr = c->max_recv_wr;
	x->max_send_sge = c->max_send_sge;
	x->max_recv_sge = c->max_recv_sge;
	x->max_inline_data = c->max_inline_data;
}

static void kv_cap_to_ib(struct ib_qp_cap *c, const struct xqp_qp_cap *x)
{
	c->max_send_wr = x->max_send_wr;
	c->max_recv_wr = x->max_recv_wr;
	c->max_send_sge = x->max_send_sge;
	c->max_recv_sge = x->max_recv_sge;
	c->max_inline_data = x->max_inline_data;
}

/* GSI, RC, UC and UD, each on its CQs; no flags, no XRC here. */
static int kv_check_qp_init(const struct ib_qp_init_attr *init)
{
	switch (init->qp_type) {
	case IB_QPT_GSI:
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (init->create_flags || init->rwq_ind_tbl)
		return -EOPNOTSUPP;
	if (!init->send_cq || !init->recv_cq)
		return -EINVAL;
	return 0;
}

static int kv_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
			struct ib_udata *udata)
{
	struct xqp_ibdev *d = to_ibdev(ibqp->device);
	struct xqp_qp_init_attr xi = {
		.event_handler = kv_qp_event,
		.qp_context = ibqp,
		.qp_type = (enum xqp_qp_type)init->qp_type,
		.sq_sig_type = init->sq_sig_type == IB_SIGNAL_ALL_WR ? XQP_SIGNAL_ALL_WR :
								       XQP_SIGNAL_REQ_WR,
		.port_num = init->port_num,
	};
	struct xqp_qp *qp;
	int err;

	if (udata)
		return -EOPNOTSUPP;
	err = kv_check_qp_init(init);
	if (err)
		return err;
	xi.send_cq = XQP_K(cq, init->send_cq)->cq;
	xi.recv_cq = XQP_K(cq, init->recv_cq)->cq;
	xi.srq = init->srq ? XQP_K(srq, init->srq)->srq : NULL;
	kv_cap_from_ib(&xi.cap, &init->cap);
	qp = xqp_create_qp_user(d->xdev, XQP_K(pd, ibqp->pd)->pd, &xi, NULL, NULL,
				KBUILD_MODNAME);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	/* completions name their QP by number: kv_wc() */
	err = xa_insert(&d->kqps, xqp_qp_num(qp), ibqp, GFP_KERNEL);
	if (err) {
		WARN_ON(xqp_destroy_qp(qp));
		return err;
	}
	XQP_K(qp, ibqp)->qp = qp;
	ibqp->qp_num = xqp_qp_num(qp);
	kv_cap_to_ib(&init->cap, &xi.cap);
	return 0;
}

/* The attributes @mask names, in xqp's shape (rules/qp_attr.h's rows). */
static void kv_qp_attr_from_ib(struct xqp_qp_attr *x, const struct ib_qp_attr *a, int mask)
{
	memset(x, 0, sizeof(*x));
	x->qp_state = (enum xqp_qp_state)a->qp_state;
	x->cur_qp_state = (enum xqp_qp_state)a->cur_qp_state;
	kv_cap_from_ib(&x->cap, &a->cap);
	XQP_RULES_QP_ATTR_KEEP(IB_QP_, x, a, mask, kv_av_from_ib);
}

static int kv_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
			struct ib_udata *udata)
{
	struct xqp_qp_attr x;

	if (udata)
		return -EOPNOTSUPP;
	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	kv_qp_attr_from_ib(&x, attr, mask);
	return xqp_modify_qp(XQP_K(qp, ibqp)->qp, &x, mask);
}

/* kv_av_to_ib() as rules/qp_attr.h's keep_ah(dst, src), for @ibqp's device. */
#define KV_AV_TO_IB(dst, src) kv_av_to_ib(ibqp->device, dst, src)

static int kv_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		       struct ib_qp_init_attr *init)
{
	struct xqp_qp_init_attr xi;
	struct xqp_qp_attr x;
	int err;

	err = xqp_query_qp(XQP_K(qp, ibqp)->qp, &x, mask, &xi);
	if (err)
		return err;
	memset(attr, 0, sizeof(*attr));
	attr->qp_state = (enum ib_qp_state)x.qp_state;
	attr->cur_qp_state = (enum ib_qp_state)x.cur_qp_state;
	attr->sq_draining = x.sq_draining;
	XQP_RULES_QP_ATTR_KEEP(XQP_QP_, attr, &x, XQP_QP_ATTR_STANDARD_BITS, KV_AV_TO_IB);
	kv_cap_to_ib(&attr->cap, &xi.cap);
	memset(init, 0, sizeof(*init));
	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->cap = attr->cap;
	init->sq_sig_type = xi.sq_sig_type == XQP_SIGNAL_ALL_WR ? IB_SIGNAL_ALL_WR :
								  IB_SIGNAL_REQ_WR;
	init->port_num = x.port_num;
	return 0;
}

static int kv_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct xqp_ibdev *d = to_ibdev(ibqp->device);
	int err;

	xa_erase(&d->kqps, ibqp->qp_num);
	err = xqp_destroy_qp(XQP_K(qp, ibqp)->qp);
	if (err)	/* the QP stays: so does its number */
		WARN_ON(xa_insert(&d->kqps, ibqp->qp_num, ibqp, GFP_KERNEL));
	return err;
}

/* ib_attach_mcast() and ib_detach_mcast() have checked the QP, GID and LID. */
static int kv_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	return xqp_attach_mcast(XQP_K(qp, ibqp)->qp, gid->raw, lid);
}

static int kv_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	return xqp_detach_mcast(XQP_K(qp, ibqp)->qp, gid->raw, lid);
}

/* ---- posting -------------------------------------------------------------- */

/* @wr in xqp's shape; its SGEs are used in place (the same layout). */
static int kv_send_wr(struct ib_qp *ibqp, const struct ib_send_wr *wr, struct xqp_send_wr *x)
{
	memset(x, 0, sizeof(*x));
	if (wr->opcode > XQP_KV_LAST_WR || (wr->send_flags & ~XQP_KV_SEND_FLAGS))
		return -EOPNOTSUPP;	/* REG_MR and the drivers' own opcodes, IP_CSUM */
	/* no memory windows for kernel clients: nothing to bind or invalidate */
	if (wr->opcode == IB_WR_LOCAL_INV || wr->opcode == IB_WR_SEND_WITH_INV ||
	    wr->opcode == IB_WR_BIND_MW)
		return -EOPNOTSUPP;
	x->wr_id = wr->wr_id;
	x->sg_list = (struct xqp_sge *)wr->sg_list;
	x->num_sge = wr->num_sge;
	x->opcode = (enum xqp_wr_opcode)wr->opcode;
	x->send_flags = wr->send_flags;
	x->imm_data = (__force u32)wr->ex.imm_data;
	if (ibqp->qp_type == IB_QPT_UD || ibqp->qp_type == IB_QPT_GSI) {
		const struct ib_ud_wr *ud = ud_wr(wr);

		if (!ud->ah)
			return -EINVAL;
		x->wr.ud.ah = XQP_K(ah, ud->ah)->ah;
		x->wr.ud.remote_qpn = ud->remote_qpn;
		x->wr.ud.remote_qkey = ud->remote_qkey;
		return 0;
	}
	switch (wr->opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		x->wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
		x->wr.rdma.rkey = rdma_wr(wr)->rkey;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		x->wr.atomic.remote_addr = atomic_wr(wr)->remote_addr;
		x->wr.atomic.compare_add = atomic_wr(wr)->compare_add;
		x->wr.atomic.swap = atomic_wr(wr)->swap;
		x->wr.atomic.rkey = atomic_wr(wr)->rkey;
		break;
	default:
		break;
	}
	return 0;
}

/* One WR at a time: the first that fails is *@bad, the ones before it stay queued. */
static int kv_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			const struct ib_send_wr **bad)
{
	const struct xqp_send_wr *xbad;
	struct xqp_send_wr x;
	int err;

	for (; wr; wr = wr->next) {
		err = kv_send_wr(ibqp, wr, &x);
		if (!err)
			err = xqp_post_send(XQP_K(qp, ibqp)->qp, &x, &xbad);
		if (err) {
			*bad = wr;
			return err;
		}
	}
	return 0;
}

/* Receives to a QP (@srq NULL) or an SRQ, one WR at a time as sends. */
static int kv_post_recvs(struct xqp_qp *qp, struct xqp_srq *srq,
			 const struct ib_recv_wr *wr, const struct ib_recv_wr **bad)
{
	const struct xqp_recv_wr *xbad;
	struct xqp_recv_wr x = {};
	int err;

	for (; wr; wr = wr->next) {
		x.wr_id = wr->wr_id;
		x.sg_list = (struct xqp_sge *)wr->sg_list;
		x.num_sge = wr->num_sge;
		err = srq ? xqp_post_srq_recv(srq, &x, &xbad) : xqp_post_recv(qp, &x, &xbad);
		if (err) {
			*bad = wr;
			return err;
		}
	}
	return 0;
}

static int kv_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad)
{
	return kv_post_recvs(XQP_K(qp, ibqp)->qp, NULL, wr, bad);
}

static int kv_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			    const struct ib_recv_wr **bad)
{
	return kv_post_recvs(NULL, XQP_K(srq, ibsrq)->srq, wr, bad);
}

const struct ib_device_ops xqp_kverbs_ops = {
	.alloc_pd = kv_alloc_pd,
	.dealloc_pd = kv_dealloc_pd,
	.get_dma_mr = kv_get_dma_mr,
	.reg_user_mr = kv_reg_user_mr,
	.dereg_mr = kv_dereg_mr,
	.create_cq = kv_create_cq,
	.destroy_cq = kv_destroy_cq,
	.poll_cq = kv_poll_cq,
	.req_notify_cq = kv_req_notify_cq,
	.create_ah = kv_create_ah,
	.destroy_ah = kv_destroy_ah,
	.query_ah = kv_query_ah,
	.create_srq = kv_create_srq,
	.destroy_srq = kv_destroy_srq,
	.modify_srq = kv_modify_srq,
	.query_srq = kv_query_srq,
	.post_srq_recv = kv_post_srq_recv,
	.create_qp = kv_create_qp,
	.modify_qp = kv_modify_qp,
	.query_qp = kv_query_qp,
	.destroy_qp = kv_destroy_qp,
	.attach_mcast = kv_attach_mcast,
	.detach_mcast = kv_detach_mcast,
	.post_send = kv_post_send,
	.post_recv = kv_post_recv,

	INIT_RDMA_OBJ_SIZE(ib_pd, xqp_kpd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_cq, xqp_kcq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_qp, xqp_kqp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_ah, xqp_kah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_srq, xqp_ksrq, ibsrq),
};
