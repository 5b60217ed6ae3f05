// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * POST_SEND, written by the provider itself: libibverbs' ibv_cmd_post_send
 * has no room for the XRC remote SRQ number. One wire format for every QP
 * type (docs/uverbs.md "XRC sends"): the header, struct
 * ib_uverbs_post_send, wr_count WQEs of sizeof(struct xqp_uverbs_send_wr)
 * (= ib_uverbs_send_wr + xrc_remote_srq_num + reserved + a window bind's
 * fields), then the SGEs of
 * every WR in order, laid out and chunked by the wire layer (user/wire),
 * which also maps the kernel's bad_wr back to the WR.
 *
 * Inline sends: the SGE addresses are the caller's memory; xqp's kernel
 * copies it during the write(), so nothing is copied here. The ibv_qp_ex
 * builders below copy inline data at wr_set_inline_data*() time instead,
 * because the caller may reuse the buffer before wr_complete().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "xqp.h"
#include "../wire/wire.h"

_Static_assert(sizeof(struct ibv_sge) == sizeof(struct ib_uverbs_sge) &&
	       offsetof(struct ibv_sge, length) == offsetof(struct ib_uverbs_sge, length) &&
	       offsetof(struct ibv_sge, lkey) == offsetof(struct ib_uverbs_sge, lkey),
	       "an ibv_sge is an ib_uverbs_sge");
/* The values the kernel takes are libibverbs' (both are the IBTA's). */
XQP_WIRE_ASSERT_WR_OPCODES(IBV_WR_);
_Static_assert((int)IBV_WR_SEND_WITH_INV == (int)IB_UVERBS_WR_SEND_WITH_INV, "opcodes");
/* The kernel's send flags (enum ib_send_flags, no uapi name): 1, 2, 4, 8. */
_Static_assert(IBV_SEND_FENCE == 1 && IBV_SEND_SIGNALED == 2 && IBV_SEND_SOLICITED == 4 &&
	       IBV_SEND_INLINE == 8, "send flags");

#define XQP_WIRE_SEND_WR struct ibv_send_wr
#include "../wire/send_wqe.h"

/* POST_SEND of a list the wire layer reads through @list (user/wire). */
static int post_send_list(struct xprov_qp *qp, const struct xqp_wire_list *list, const void *first,
			  const void **bad)
{
	return xqp_wire_post(qp->vqp.qp.context->cmd_fd, IB_USER_VERBS_CMD_POST_SEND,
			     qp->vqp.qp.handle, sizeof(struct xqp_uverbs_send_wr), list, first, bad);
}

/* ---- ibv_post_send: the caller's ibv_send_wr list; @arg is the QP ---- */

static const void *wr_next(const void *wr, const void *arg)
{
	(void)arg;
	return ((const struct ibv_send_wr *)wr)->next;
}

static int wr_num_sge(const void *wr, const void *arg)
{
	const struct ibv_send_wr *w = wr;
	const struct xprov_qp *qp = arg;

	if (w->num_sge < 0 || (w->num_sge && !w->sg_list) || (qp->type == IBV_QPT_UD && !w->wr.ud.ah))
		return -1;
	return w->num_sge;
}

/* A BIND_MW's fields, trailing the WQE (uapi/xqp_uverbs.h). */
static void wqe_bind(struct xqp_uverbs_send_wr *k, const struct ibv_mw *mw, uint32_t rkey,
		     const struct ibv_mw_bind_info *info)
{
	k->mw_handle = mw ? mw->handle : 0;
	k->bind_rkey = rkey;
	k->mr_lkey = info->mr ? info->mr->lkey : 0;
	k->bind_access = info->mw_access_flags;
	k->bind_addr = info->addr;
	k->bind_length = info->length;
}

static int wr_lay(void *wqe, struct ib_uverbs_sge *sge, const void *wr, const void *arg)
{
	const struct ibv_send_wr *w = wr;
	const struct xprov_qp *qp = arg;

	xqp_wire_send_wqe(wqe, w, qp->type == IBV_QPT_UD, qp->type == IBV_QPT_XRC_SEND);
	if (w->opcode == IBV_WR_BIND_MW)
		wqe_bind(wqe, w->bind_mw.mw, w->bind_mw.rkey, &w->bind_mw.bind_info);
	if (w->num_sge)
		memcpy(sge, w->sg_list, (size_t)w->num_sge * sizeof(*sge));
	return w->num_sge;
}

int xprov_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	struct xprov_qp *qp = to_xqp(ibqp);
	const struct xqp_wire_list list = {
		.next = wr_next, .num_sge = wr_num_sge, .lay = wr_lay, .arg = qp,
	};
	const void *bad;
	int ret = post_send_list(qp, &list, wr, &bad);

	if (ret)
		*bad_wr = (struct ibv_send_wr *)bad;
	return ret;
}

/* ---- ibv_qp_ex: work requests built piece by piece ------------------------ */

static bool grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap;
	void *p;

	if (need <= *cap)
		return true;
	ncap = *cap ? *cap : 16;
	while (ncap < need)
		ncap *= 2;
	p = realloc(*arr, ncap * elem);
	if (!p)
		return false;
	*arr = p;
	*cap = ncap;
	return true;
}

static void set_err(struct xprov_qp *qp, int err)
{
	if (!qp->wr_err)
		qp->wr_err = err;
}

/* A new WR of @opcode, if the QP was created for it. */
static struct xprov_pending_wr *new_wr(struct ibv_qp_ex *qpx, uint64_t op_flag,
				     enum ibv_wr_opcode opcode)
{
	struct xprov_qp *qp = qpex_to_xqp(qpx);
	struct xprov_pending_wr *p;

	if (!(qp->send_ops & op_flag)) {
		set_err(qp, EOPNOTSUPP);
		return NULL;
	}
	if (!grow((void **)&qp->wrs, &qp->wr_cap, qp->nwr + 1, sizeof(*qp->wrs))) {
		set_err(qp, ENOMEM);
		return NULL;
	}
	p = &qp->wrs[qp->nwr++];
	memset(p, 0, sizeof(*p));
	p->k.wr.wr_id = qpx->wr_id;
	p->k.wr.opcode = (uint32_t)opcode;
	p->k.wr.send_flags = qpx->wr_flags;
	p->first_sge = (uint32_t)qp->nsge;
	return p;
}

/* The WR the setters apply to: the last one built. */
static struct xprov_pending_wr *cur_wr(struct xprov_qp *qp)
{
	if (!qp->nwr) {
		set_err(qp, EINVAL);
		return NULL;
	}
	return &qp->wrs[qp->nwr - 1];
}

static void b_send(struct ibv_qp_ex *qpx)
{
	new_wr(qpx, IBV_QP_EX_WITH_SEND, IBV_WR_SEND);
}

static void b_send_imm(struct ibv_qp_ex *qpx, __be32 imm)
{
	struct xprov_pending_wr *p = new_wr(qpx, IBV_QP_EX_WITH_SEND_WITH_IMM,
					  IBV_WR_SEND_WITH_IMM);

	if (p)
		p->k.wr.ex.imm_data = imm;
}

static void set_rdma(struct xprov_pending_wr *p, uint32_t rkey, uint64_t addr)
{
	p->k.wr.wr.rdma.remote_addr = addr;
	p->k.wr.wr.rdma.rkey = rkey;
}

static void b_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t addr)
{
	struct xprov_pending_wr *p = new_wr(qpx, IBV_QP_EX_WITH_RDMA_WRITE, IBV_WR_RDMA_WRITE);

	if (p)
		set_rdma(p, rkey, addr);
}

static void b_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t addr, __be32 imm)
{
	struct xprov_pending_wr *p = new_wr(qpx, IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM,
					  IBV_WR_RDMA_WRITE_WITH_IMM);

	if (p) {
		set_rdma(p, rkey, addr);
		p->k.wr.ex.imm_data = imm;
	}
}

static void b_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t addr)
{
	struct xprov_pending_wr *p = new_wr(qpx, IBV_QP_EX_WITH_RDMA_READ, IBV_WR_RDMA_READ);

	if (p)
		set_rdma(p, rkey, addr);
}

static void set_atomic(struct xprov_pending_wr *p, uint32_t rkey, uint64_t addr,
		       uint64_t compare_add, uint64_t swap)
{
	p->k.wr.wr.atomic.remote_addr = addr;
	p->k.wr.wr.atomic.compare_add = compare_add;
	p->k.wr.wr.atomic.swap = swap;
	p->k.wr.wr.atomic.rkey = rkey;
}

static void b_cmp_swp(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t addr, uint64_t compare,
		      uint64_t swap)
{
	struct xprov_pending_wr *p = new_wr(qpx, IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP,
					  IBV_WR_ATOMIC_CMP_AND_SWP);

	if (p)
		set_atomic(p, rkey, addr, compare, swap);
}

static void b_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t addr, uint64_t add)
{
	struct xprov_pending_wr *p = new_wr(qpx, IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD,
					  IBV_WR_ATOMIC_FETCH_AND_ADD);

	if (p)
		set_atomic(p, rkey, addr, add, 0);
}

static void b_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw, uint32_t rkey,
		      const struct ibv_mw_bind_info *info)
{
	struct xprov_pending_wr *p = new_wr(qpx, IBV_QP_EX_WITH_BIND_MW, IBV_WR_BIND_MW);

	if (p)
		wqe_bind(&p->k, mw, rkey, info);
}

static void b_local_inv(struct ibv_qp_ex *qpx, uint32_t rkey)
{
	struct xprov_pending_wr *p = new_wr(qpx, IBV_QP_EX_WITH_LOCAL_INV, IBV_WR_LOCAL_INV);

	if (p)
		p->k.wr.ex.invalidate_rkey = rkey;
}

static void b_send_inv(struct ibv_qp_ex *qpx, uint32_t rkey)
{
	struct xprov_pending_wr *p = new_wr(qpx, IBV_QP_EX_WITH_SEND_WITH_INV,
					  IBV_WR_SEND_WITH_INV);

	if (p)
		p->k.wr.ex.invalidate_rkey = rkey;
}

/*
 * ibv_bind_mw() of a type 1 window: a BIND_MW WR on @ibqp's send queue
 * (as rxe's provider), under the window's next rkey, which it gets once
 * the post succeeds.
 */
int xprov_bind_mw(struct ibv_qp *ibqp, struct ibv_mw *mw, struct ibv_mw_bind *mw_bind)
{
	struct ibv_send_wr wr, *bad;
	int ret;

	if (mw->type != IBV_MW_TYPE_1)
		return EINVAL;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = mw_bind->wr_id;
	wr.opcode = IBV_WR_BIND_MW;
	wr.send_flags = (unsigned int)mw_bind->send_flags;
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.bind_info = mw_bind->bind_info;
	ret = xprov_post_send(ibqp, &wr, &bad);
	if (!ret)
		mw->rkey = wr.bind_mw.rkey;
	return ret;
}

static void b_send_tso(struct ibv_qp_ex *qpx, void *hdr, uint16_t hdr_sz, uint16_t mss)
{
	(void)hdr; (void)hdr_sz; (void)mss;
	set_err(qpex_to_xqp(qpx), EOPNOTSUPP);
}

static void b_atomic_write(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t addr,
			   const void *data)
{
	(void)rkey; (void)addr; (void)data;
	set_err(qpex_to_xqp(qpx), EOPNOTSUPP);
}

#ifdef ABI34_HAVE_WR_FLUSH
static void b_flush(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t addr, size_t len,
		    uint8_t type, uint8_t level)
{
	(void)rkey; (void)addr; (void)len; (void)type; (void)level;
	set_err(qpex_to_xqp(qpx), EOPNOTSUPP);
}
#endif

static void b_set_ud_addr(struct ibv_qp_ex *qpx, struct ibv_ah *ah, uint32_t qpn, uint32_t qkey)
{
	struct xprov_qp *qp = qpex_to_xqp(qpx);
	struct xprov_pending_wr *p = cur_wr(qp);

	if (!p)
		return;
	if (qp->type != IBV_QPT_UD || !ah) {
		set_err(qp, EINVAL);
		return;
	}
	p->k.wr.wr.ud.ah = ah->handle;
	p->ud_set = true;
	p->k.wr.wr.ud.remote_qpn = qpn;
	p->k.wr.wr.ud.remote_qkey = qkey;
}

static void b_set_xrc_srqn(struct ibv_qp_ex *qpx, uint32_t srqn)
{
	struct xprov_qp *qp = qpex_to_xqp(qpx);
	struct xprov_pending_wr *p = cur_wr(qp);

	if (!p)
		return;
	if (qp->type != IBV_QPT_XRC_SEND) {
		set_err(qp, EINVAL);
		return;
	}
	p->k.xrc_remote_srq_num = srqn;
}

/* Starts the data of the current WR (once per WR): @nsge SGEs, @inl for
 * the one SGE over inline data, which the SGE limit does not bound. */
static struct xprov_pending_wr *data_wr(struct xprov_qp *qp, size_t nsge, bool inl)
{
	struct xprov_pending_wr *p = cur_wr(qp);

	if (!p)
		return NULL;
	if (p->has_data || (!inl && nsge > qp->max_send_sge) || nsge > UINT32_MAX) {
		set_err(qp, EINVAL);
		return NULL;
	}
	if (!grow((void **)&qp->sges, &qp->sge_cap, qp->nsge + nsge, sizeof(*qp->sges))) {
		set_err(qp, ENOMEM);
		return NULL;
	}
	p->has_data = true;
	p->first_sge = (uint32_t)qp->nsge;
	p->k.wr.num_sge = (uint32_t)nsge;
	return p;
}

static void b_set_sge_list(struct ibv_qp_ex *qpx, size_t num, const struct ibv_sge *list)
{
	struct xprov_qp *qp = qpex_to_xqp(qpx);

	if (num && !list) {
		set_err(qp, EINVAL);
		return;
	}
	if (!data_wr(qp, num, false))
		return;
	if (num)
		memcpy(&qp->sges[qp->nsge], list, num * sizeof(*list));
	qp->nsge += num;
}

static void b_set_sge(struct ibv_qp_ex *qpx, uint32_t lkey, uint64_t addr, uint32_t length)
{
	struct ibv_sge sge = { .addr = addr, .length = length, .lkey = lkey };

	b_set_sge_list(qpx, 1, &sge);
}

static void b_set_inline_data_list(struct ibv_qp_ex *qpx, size_t num,
				   const struct ibv_data_buf *list)
{
	struct xprov_qp *qp = qpex_to_xqp(qpx);
	struct xprov_pending_wr *p;
	size_t i, total = 0;

	if (num && !list) {
		set_err(qp, EINVAL);
		return;
	}
	for (i = 0; i < num; i++) {
		total += list[i].length;
		if (total < list[i].length || list[i].length > UINT32_MAX) {
			set_err(qp, EINVAL);
			return;
		}
	}
	if (total > qp->max_inline) {
		set_err(qp, EINVAL);
		return;
	}
	/* One SGE over a private copy: the caller may reuse its buffers now. */
	p = data_wr(qp, total ? 1 : 0, true);
	if (!p)
		return;
	p->inline_data = true;
	p->k.wr.send_flags |= IBV_SEND_INLINE;
	if (!total)
		return;
	if (!grow((void **)&qp->inl, &qp->inl_cap, qp->inl_len + total, 1)) {
		p->k.wr.num_sge = 0;
		set_err(qp, ENOMEM);
		return;
	}
	qp->sges[qp->nsge].addr = qp->inl_len;	/* an offset until wr_complete() */
	qp->sges[qp->nsge].length = (uint32_t)total;
	qp->sges[qp->nsge].lkey = 0;
	qp->nsge++;
	for (i = 0; i < num; i++) {
		memcpy(qp->inl + qp->inl_len, list[i].addr, list[i].length);
		qp->inl_len += list[i].length;
	}
}

static void b_set_inline_data(struct ibv_qp_ex *qpx, void *addr, size_t length)
{
	struct ibv_data_buf b = { .addr = addr, .length = length };

	b_set_inline_data_list(qpx, 1, &b);
}

static void batch_reset(struct xprov_qp *qp)
{
	qp->nwr = 0;
	qp->nsge = 0;
	qp->inl_len = 0;
	qp->wr_err = 0;
}

static void b_start(struct ibv_qp_ex *qpx)
{
	struct xprov_qp *qp = qpex_to_xqp(qpx);

	pthread_mutex_lock(&qp->wr_lock);
	batch_reset(qp);
}

static void b_abort(struct ibv_qp_ex *qpx)
{
	struct xprov_qp *qp = qpex_to_xqp(qpx);

	batch_reset(qp);
	pthread_mutex_unlock(&qp->wr_lock);
}

/*
 * Posts the batch: nothing if any builder call failed (its errno); else
 * POST_SENDs of as many WRs as a write() takes. A kernel error leaves the
 * WRs before the one it named posted, as ibv_post_send() would.
 */
/* ---- wr_complete: the batch of pending WRs; @arg is the QP ---- */

static const void *pending_next(const void *wr, const void *arg)
{
	const struct xprov_pending_wr *p = wr;
	const struct xprov_qp *qp = arg;

	return p + 1 < qp->wrs + qp->nwr ? p + 1 : NULL;
}

static int pending_num_sge(const void *wr, const void *arg)
{
	(void)arg;
	return (int)((const struct xprov_pending_wr *)wr)->k.wr.num_sge;
}

/* The WQE as built, its SGEs from the batch's (inline ones point into qp->inl). */
static int pending_lay(void *wqe, struct ib_uverbs_sge *sge, const void *wr, const void *arg)
{
	const struct xprov_pending_wr *p = wr;
	const struct xprov_qp *qp = arg;
	uint32_t k;

	memcpy(wqe, &p->k, sizeof(p->k));
	for (k = 0; k < p->k.wr.num_sge; k++) {
		sge[k] = qp->sges[p->first_sge + k];
		if (p->inline_data)
			sge[k].addr += (uintptr_t)qp->inl;
	}
	return (int)p->k.wr.num_sge;
}

static int b_complete(struct ibv_qp_ex *qpx)
{
	struct xprov_qp *qp = qpex_to_xqp(qpx);
	const struct xqp_wire_list list = {
		.next = pending_next, .num_sge = pending_num_sge, .lay = pending_lay, .arg = qp,
	};
	const void *bad;
	int ret = qp->wr_err;

	if (!ret && qp->type == IBV_QPT_UD)
		for (size_t j = 0; j < qp->nwr; j++)
			if (!qp->wrs[j].ud_set)
				ret = EINVAL;	/* no wr_set_ud_addr() */
	if (!ret && qp->nwr)
		ret = post_send_list(qp, &list, qp->wrs, &bad);
	batch_reset(qp);
	pthread_mutex_unlock(&qp->wr_lock);
	return ret;
}

void xprov_qp_ex_init(struct xprov_qp *qp)
{
	struct ibv_qp_ex *x = &qp->vqp.qp_ex;

	x->wr_atomic_cmp_swp = b_cmp_swp;
	x->wr_atomic_fetch_add = b_fetch_add;
	x->wr_bind_mw = b_bind_mw;
	x->wr_local_inv = b_local_inv;
	x->wr_rdma_read = b_rdma_read;
	x->wr_rdma_write = b_rdma_write;
	x->wr_rdma_write_imm = b_rdma_write_imm;
	x->wr_send = b_send;
	x->wr_send_imm = b_send_imm;
	x->wr_send_inv = b_send_inv;
	x->wr_send_tso = b_send_tso;
	x->wr_set_ud_addr = b_set_ud_addr;
	x->wr_set_xrc_srqn = b_set_xrc_srqn;
	x->wr_set_inline_data = b_set_inline_data;
	x->wr_set_inline_data_list = b_set_inline_data_list;
	x->wr_set_sge = b_set_sge;
	x->wr_set_sge_list = b_set_sge_list;
	x->wr_start = b_start;
	x->wr_complete = b_complete;
	x->wr_abort = b_abort;
	x->wr_atomic_write = b_atomic_write;
#ifdef ABI34_HAVE_WR_FLUSH
	x->wr_flush = b_flush;
#endif
}

void xprov_qp_ex_free(struct xprov_qp *qp)
{
	free(qp->wrs);
	free(qp->sges);
	free(qp->inl);
	qp->wrs = NULL;
	qp->sges = NULL;
	qp->inl = NULL;
}
