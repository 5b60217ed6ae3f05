// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * POST_SEND, written by the provider itself: libibverbs' ibv_cmd_post_send
 * has no room for the XRC remote SRQ number. One wire format for every QP
 * type (docs/uverbs.md "XRC sends"): the header, struct
 * ib_uverbs_post_send, wr_count WQEs of sizeof(struct xqp_uverbs_send_wr)
 * (= ib_uverbs_send_wr + xrc_remote_srq_num + reserved), then the SGEs of
 * every WR in order. A list longer than one write() can carry goes out in
 * several. The response's bad_wr is 1-based (0: nothing named).
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
#include "../../uapi/xqp_uverbs_wqe.h"

#define HDR_LEN sizeof(struct ib_uverbs_cmd_hdr)
#define WQE_LEN sizeof(struct xqp_uverbs_send_wr)

_Static_assert(WQE_LEN % 8 == 0, "WQEs keep the SGEs aligned");
_Static_assert(sizeof(struct ibv_sge) == sizeof(struct ib_uverbs_sge) &&
	       offsetof(struct ibv_sge, length) == offsetof(struct ib_uverbs_sge, length) &&
	       offsetof(struct ibv_sge, lkey) == offsetof(struct ib_uverbs_sge, lkey),
	       "an ibv_sge is an ib_uverbs_sge");
/* The values the kernel takes are libibverbs' (both are the IBTA's). */
XQP_UVERBS_ASSERT_WR_OPCODES(IBV_WR_);
_Static_assert((int)IBV_WR_SEND_WITH_INV == (int)IB_UVERBS_WR_SEND_WITH_INV, "opcodes");
/* The kernel's send flags (enum ib_send_flags, no uapi name): 1, 2, 4, 8. */
_Static_assert(IBV_SEND_FENCE == 1 && IBV_SEND_SIGNALED == 2 && IBV_SEND_SOLICITED == 4 &&
	       IBV_SEND_INLINE == 8, "send flags");

static size_t post_len(size_t nwr, size_t nsge)
{
	return XQP_UVERBS_POST_SEND_LEN(nwr, nsge);
}

/*
 * One POST_SEND of @n prepared WQEs and @nsge SGEs in @buf (laid out by
 * the caller after the header and the command). Returns 0 or an errno;
 * *bad is the 1-based index the kernel named (0: none).
 */
static int post_send_write(struct xqp_qp *qp, unsigned char *buf, size_t n, size_t nsge,
			   uint32_t *bad)
{
	struct ib_uverbs_post_send *cmd = (void *)(buf + HDR_LEN);
	struct ib_uverbs_post_send_resp resp;
	int ret;

	memset(&resp, 0, sizeof(resp));
	cmd->response = (uintptr_t)&resp;
	cmd->qp_handle = qp->vqp.qp.handle;
	cmd->wr_count = (uint32_t)n;
	cmd->sge_count = (uint32_t)nsge;
	cmd->wqe_size = (uint32_t)WQE_LEN;
	ret = xqp_write_cmd(qp->vqp.qp.context, IB_USER_VERBS_CMD_POST_SEND, buf,
			    post_len(n, nsge), sizeof(resp));
	*bad = ret ? resp.bad_wr : 0;
	return ret;
}

XQP_UVERBS_DEFINE_SEND_WQE(wr_to_kernel, struct ibv_send_wr)

int xqp_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	struct xqp_qp *qp = to_xqp(ibqp);
	struct ibv_send_wr *w = wr;
	unsigned char stackbuf[XQP_UVERBS_POST_SEND_LEN(4, 8)] __attribute__((aligned(8)));

	while (w) {
		struct ibv_send_wr *end = w, *invalid = NULL, *x;
		size_t n = 0, s = 0, i;
		struct ib_uverbs_sge *sge;
		unsigned char *buf;
		uint32_t bad;
		int ret;

		/* as many WRs as one write() takes; stop before one we refuse */
		for (; end; end = end->next) {
			if (end->num_sge < 0 || (end->num_sge && !end->sg_list) ||
			    (qp->type == IBV_QPT_UD && !end->wr.ud.ah)) {
				invalid = end;
				break;
			}
			if (post_len(n + 1, s + (size_t)end->num_sge) > XQP_MAX_WRITE)
				break;
			n++;
			s += (size_t)end->num_sge;
		}
		if (!n) {
			*bad_wr = w;
			return invalid ? EINVAL : ENOMEM;	/* ENOMEM: too large for any write */
		}
		if (post_len(n, s) <= sizeof(stackbuf)) {
			buf = stackbuf;
			memset(buf, 0, post_len(n, s));
		} else {
			buf = calloc(1, post_len(n, s));
			if (!buf) {
				*bad_wr = w;
				return ENOMEM;
			}
		}
		sge = (void *)(buf + post_len(n, 0));
		for (i = 0, x = w; i < n; i++, x = x->next) {
			wr_to_kernel((void *)(buf + post_len(i, 0)), x, qp->type == IBV_QPT_UD,
				     qp->type == IBV_QPT_XRC_SEND);
			if (x->num_sge) {
				memcpy(sge, x->sg_list, (size_t)x->num_sge * sizeof(*sge));
				sge += x->num_sge;
			}
		}
		ret = post_send_write(qp, buf, n, s, &bad);
		if (buf != stackbuf)
			free(buf);
		if (ret) {
			for (x = w, i = 1; i < bad && i < n && x->next; i++)
				x = x->next;
			*bad_wr = x;
			return ret;
		}
		if (invalid) {
			*bad_wr = invalid;
			return EINVAL;
		}
		w = end;
	}
	return 0;
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

static void set_err(struct xqp_qp *qp, int err)
{
	if (!qp->wr_err)
		qp->wr_err = err;
}

/* A new WR of @opcode, if the QP was created for it. */
static struct xqp_pending_wr *new_wr(struct ibv_qp_ex *qpx, uint64_t op_flag,
				     enum ibv_wr_opcode opcode)
{
	struct xqp_qp *qp = qpex_to_xqp(qpx);
	struct xqp_pending_wr *p;

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
static struct xqp_pending_wr *cur_wr(struct xqp_qp *qp)
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
	struct xqp_pending_wr *p = new_wr(qpx, IBV_QP_EX_WITH_SEND_WITH_IMM,
					  IBV_WR_SEND_WITH_IMM);

	if (p)
		p->k.wr.ex.imm_data = imm;
}

static void set_rdma(struct xqp_pending_wr *p, uint32_t rkey, uint64_t addr)
{
	p->k.wr.wr.rdma.remote_addr = addr;
	p->k.wr.wr.rdma.rkey = rkey;
}

static void b_rdma_write(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t addr)
{
	struct xqp_pending_wr *p = new_wr(qpx, IBV_QP_EX_WITH_RDMA_WRITE, IBV_WR_RDMA_WRITE);

	if (p)
		set_rdma(p, rkey, addr);
}

static void b_rdma_write_imm(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t addr, __be32 imm)
{
	struct xqp_pending_wr *p = new_wr(qpx, IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM,
					  IBV_WR_RDMA_WRITE_WITH_IMM);

	if (p) {
		set_rdma(p, rkey, addr);
		p->k.wr.ex.imm_data = imm;
	}
}

static void b_rdma_read(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t addr)
{
	struct xqp_pending_wr *p = new_wr(qpx, IBV_QP_EX_WITH_RDMA_READ, IBV_WR_RDMA_READ);

	if (p)
		set_rdma(p, rkey, addr);
}

static void set_atomic(struct xqp_pending_wr *p, uint32_t rkey, uint64_t addr,
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
	struct xqp_pending_wr *p = new_wr(qpx, IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP,
					  IBV_WR_ATOMIC_CMP_AND_SWP);

	if (p)
		set_atomic(p, rkey, addr, compare, swap);
}

static void b_fetch_add(struct ibv_qp_ex *qpx, uint32_t rkey, uint64_t addr, uint64_t add)
{
	struct xqp_pending_wr *p = new_wr(qpx, IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD,
					  IBV_WR_ATOMIC_FETCH_AND_ADD);

	if (p)
		set_atomic(p, rkey, addr, add, 0);
}

/* What the QP does not support: the batch fails at wr_complete(). */
static void b_bind_mw(struct ibv_qp_ex *qpx, struct ibv_mw *mw, uint32_t rkey,
		      const struct ibv_mw_bind_info *info)
{
	(void)mw; (void)rkey; (void)info;
	set_err(qpex_to_xqp(qpx), EOPNOTSUPP);
}

static void b_local_inv(struct ibv_qp_ex *qpx, uint32_t rkey)
{
	(void)rkey;
	set_err(qpex_to_xqp(qpx), EOPNOTSUPP);
}

static void b_send_inv(struct ibv_qp_ex *qpx, uint32_t rkey)
{
	(void)rkey;
	set_err(qpex_to_xqp(qpx), EOPNOTSUPP);
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
	struct xqp_qp *qp = qpex_to_xqp(qpx);
	struct xqp_pending_wr *p = cur_wr(qp);

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
	struct xqp_qp *qp = qpex_to_xqp(qpx);
	struct xqp_pending_wr *p = cur_wr(qp);

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
static struct xqp_pending_wr *data_wr(struct xqp_qp *qp, size_t nsge, bool inl)
{
	struct xqp_pending_wr *p = cur_wr(qp);

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
	struct xqp_qp *qp = qpex_to_xqp(qpx);

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
	struct xqp_qp *qp = qpex_to_xqp(qpx);
	struct xqp_pending_wr *p;
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

static void batch_reset(struct xqp_qp *qp)
{
	qp->nwr = 0;
	qp->nsge = 0;
	qp->inl_len = 0;
	qp->wr_err = 0;
}

static void b_start(struct ibv_qp_ex *qpx)
{
	struct xqp_qp *qp = qpex_to_xqp(qpx);

	pthread_mutex_lock(&qp->wr_lock);
	batch_reset(qp);
}

static void b_abort(struct ibv_qp_ex *qpx)
{
	struct xqp_qp *qp = qpex_to_xqp(qpx);

	batch_reset(qp);
	pthread_mutex_unlock(&qp->wr_lock);
}

/*
 * Posts the batch: nothing if any builder call failed (its errno); else
 * POST_SENDs of as many WRs as a write() takes. A kernel error leaves the
 * WRs before the one it named posted, as ibv_post_send() would.
 */
static int b_complete(struct ibv_qp_ex *qpx)
{
	struct xqp_qp *qp = qpex_to_xqp(qpx);
	size_t i = 0;
	int ret = qp->wr_err;

	if (!ret && qp->type == IBV_QPT_UD)
		for (size_t j = 0; j < qp->nwr; j++)
			if (!qp->wrs[j].ud_set)
				ret = EINVAL;	/* no wr_set_ud_addr() */
	while (!ret && i < qp->nwr) {
		size_t n = 0, s = 0, j;
		struct ib_uverbs_sge *sge;
		unsigned char *buf;
		uint32_t bad;

		while (i + n < qp->nwr &&
		       post_len(n + 1, s + qp->wrs[i + n].k.wr.num_sge) <= XQP_MAX_WRITE) {
			s += qp->wrs[i + n].k.wr.num_sge;
			n++;
		}
		if (!n) {
			ret = ENOMEM;
			break;
		}
		buf = calloc(1, post_len(n, s));
		if (!buf) {
			ret = ENOMEM;
			break;
		}
		sge = (void *)(buf + post_len(n, 0));
		for (j = 0; j < n; j++) {
			const struct xqp_pending_wr *p = &qp->wrs[i + j];
			uint32_t k;

			memcpy(buf + post_len(j, 0), &p->k, sizeof(p->k));
			for (k = 0; k < p->k.wr.num_sge; k++) {
				*sge = qp->sges[p->first_sge + k];
				if (p->inline_data)
					sge->addr += (uintptr_t)qp->inl;
				sge++;
			}
		}
		ret = post_send_write(qp, buf, n, s, &bad);
		free(buf);
		i += n;
	}
	batch_reset(qp);
	pthread_mutex_unlock(&qp->wr_lock);
	return ret;
}

void xqp_qp_ex_init(struct xqp_qp *qp)
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

void xqp_qp_ex_free(struct xqp_qp *qp)
{
	free(qp->wrs);
	free(qp->sges);
	free(qp->inl);
	qp->wrs = NULL;
	qp->sges = NULL;
	qp->inl = NULL;
}
