// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * CQs: create/destroy through libibverbs' helpers (CREATE_CQ, also for
 * ibv_create_cq_ex: xqp has no EX_CREATE_CQ), POLL_CQ written here
 * (ibv_cmd_poll_cq allocates per call and cannot feed a batch), and the
 * ibv_cq_ex poller over a batch of up to XPROV_CQ_BATCH completions.
 *
 * Both APIs share the batch: completions fetched for start_poll() but not
 * consumed by end_poll() are what the next ibv_poll_cq() returns first.
 * The batch lock is held from a successful start_poll() to end_poll(), as
 * the ibv_cq_ex contract lets a provider do.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "xqp.h"
#include "../wire/wire.h"

/* The kernel's completion values are libibverbs' (IBTA order). */
_Static_assert((int)IBV_WC_SEND == (int)IB_UVERBS_WC_SEND && (int)IBV_WC_RDMA_WRITE == (int)IB_UVERBS_WC_RDMA_WRITE &&
	       (int)IBV_WC_RDMA_READ == (int)IB_UVERBS_WC_RDMA_READ &&
	       (int)IBV_WC_COMP_SWAP == (int)IB_UVERBS_WC_COMP_SWAP &&
	       (int)IBV_WC_FETCH_ADD == (int)IB_UVERBS_WC_FETCH_ADD && IBV_WC_RECV == 128 &&
	       IBV_WC_RECV_RDMA_WITH_IMM == 129, "WC opcodes");

/* Kernel wc_flags (enum ib_wc_flags): GRH 1, WITH_IMM 2, WITH_INVALIDATE 4. */
#define K_WC_GRH		1U
#define K_WC_WITH_IMM		2U
#define K_WC_WITH_INVALIDATE	4U

static unsigned int wc_flags_from_kernel(uint32_t k)
{
	unsigned int f = 0;

	if (k & K_WC_GRH)
		f |= IBV_WC_GRH;
	if (k & K_WC_WITH_IMM)
		f |= IBV_WC_WITH_IMM;
	if (k & K_WC_WITH_INVALIDATE)
		f |= IBV_WC_WITH_INV;
	return f;
}

static void wc_from_kernel(struct ibv_wc *wc, const struct ib_uverbs_wc *k)
{
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = k->wr_id;
	wc->status = (enum ibv_wc_status)k->status;
	wc->opcode = (enum ibv_wc_opcode)k->opcode;
	wc->vendor_err = k->vendor_err;
	wc->byte_len = k->byte_len;
	wc->imm_data = k->ex.imm_data;	/* or invalidate_rkey: one union */
	wc->qp_num = k->qp_num;
	wc->src_qp = k->src_qp;
	wc->wc_flags = wc_flags_from_kernel(k->wc_flags);
	wc->pkey_index = k->pkey_index;
	wc->slid = k->slid;
	wc->sl = k->sl;
	wc->dlid_path_bits = k->dlid_path_bits;
}

/* One POLL_CQ (user/wire) for at most @ne completions into @out. Returns
 * the number polled, or -errno. */
static int poll_kernel(struct xprov_cq *cq, struct ib_uverbs_wc *out, unsigned int ne)
{
	struct {
		struct ib_uverbs_poll_cq_resp head;
		struct ib_uverbs_wc wc[XPROV_CQ_BATCH];
	} resp;
	int n;

	n = xqp_wire_poll_cq(cq->vcq.cq.context->cmd_fd, cq->vcq.cq.handle, &resp.head,
			     ne < XPROV_CQ_BATCH ? ne : XPROV_CQ_BATCH);
	if (n > 0)
		memcpy(out, resp.wc, (size_t)n * sizeof(resp.wc[0]));
	return n;
}

int xprov_poll_cq(struct ibv_cq *ibcq, int ne, struct ibv_wc *wc)
{
	struct xprov_cq *cq = to_xcq(ibcq);
	struct ib_uverbs_wc k[XPROV_CQ_BATCH];
	int got = 0;

	if (ne < 0)
		return -1;
	pthread_mutex_lock(&cq->lock);
	while (got < ne && cq->head < cq->count)	/* left over by the ex poller */
		wc_from_kernel(&wc[got++], &cq->batch[cq->head++]);
	while (got < ne) {
		unsigned int want = (unsigned int)(ne - got);
		int n, i;

		n = poll_kernel(cq, k, want);
		if (n < 0) {
			pthread_mutex_unlock(&cq->lock);
			return got ? got : -1;
		}
		for (i = 0; i < n; i++)
			wc_from_kernel(&wc[got++], &k[i]);
		if ((unsigned int)n < (want < XPROV_CQ_BATCH ? want : XPROV_CQ_BATCH))
			break;	/* the CQ is empty */
	}
	pthread_mutex_unlock(&cq->lock);
	return got;
}

/* ---- ibv_cq_ex ----------------------------------------------------------- */

/* Makes cq->cur the next completion, fetching a batch if needed. */
static int next_entry(struct xprov_cq *cq)
{
	if (cq->head == cq->count) {
		int n = poll_kernel(cq, cq->batch, XPROV_CQ_BATCH);

		cq->head = cq->count = 0;
		if (n < 0)
			return -n;
		if (n == 0)
			return ENOENT;
		cq->count = (unsigned int)n;
	}
	cq->cur = &cq->batch[cq->head++];
	cq->vcq.cq_ex.status = (enum ibv_wc_status)cq->cur->status;
	cq->vcq.cq_ex.wr_id = cq->cur->wr_id;
	return 0;
}

static int x_start_poll(struct ibv_cq_ex *cqx, struct ibv_poll_cq_attr *attr)
{
	struct xprov_cq *cq = cqex_to_xcq(cqx);
	int ret;

	if (attr && attr->comp_mask)
		return EINVAL;
	pthread_mutex_lock(&cq->lock);
	ret = next_entry(cq);
	if (ret)
		pthread_mutex_unlock(&cq->lock);	/* no end_poll() follows */
	return ret;
}

static int x_next_poll(struct ibv_cq_ex *cqx)
{
	return next_entry(cqex_to_xcq(cqx));
}

static void x_end_poll(struct ibv_cq_ex *cqx)
{
	struct xprov_cq *cq = cqex_to_xcq(cqx);

	cq->cur = NULL;
	pthread_mutex_unlock(&cq->lock);
}

#define CUR(cqx) (cqex_to_xcq(cqx)->cur)

static enum ibv_wc_opcode x_read_opcode(struct ibv_cq_ex *cqx)
{
	return (enum ibv_wc_opcode)CUR(cqx)->opcode;
}

static uint32_t x_read_vendor_err(struct ibv_cq_ex *cqx)
{
	return CUR(cqx)->vendor_err;
}

static uint32_t x_read_byte_len(struct ibv_cq_ex *cqx)
{
	return CUR(cqx)->byte_len;
}

static __be32 x_read_imm_data(struct ibv_cq_ex *cqx)
{
	return CUR(cqx)->ex.imm_data;
}

static uint32_t x_read_qp_num(struct ibv_cq_ex *cqx)
{
	return CUR(cqx)->qp_num;
}

static uint32_t x_read_src_qp(struct ibv_cq_ex *cqx)
{
	return CUR(cqx)->src_qp;
}

static unsigned int x_read_wc_flags(struct ibv_cq_ex *cqx)
{
	return wc_flags_from_kernel(CUR(cqx)->wc_flags);
}

static uint32_t x_read_slid(struct ibv_cq_ex *cqx)
{
	return CUR(cqx)->slid;
}

static uint8_t x_read_sl(struct ibv_cq_ex *cqx)
{
	return CUR(cqx)->sl;
}

static uint8_t x_read_dlid_path_bits(struct ibv_cq_ex *cqx)
{
	return CUR(cqx)->dlid_path_bits;
}

static struct xprov_cq *cq_new(struct ibv_context *ctx, int cqe, struct ibv_comp_channel *channel,
			     int comp_vector)
{
	struct abi34_cmd_create_cq cmd;
	struct ib_uverbs_create_cq_resp resp;
	struct xprov_cq *cq = calloc(1, sizeof(*cq));
	struct ibv_cq_ex *x;
	int ret;

	if (!cq)
		return NULL;
	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_create_cq(ctx, cqe, channel, comp_vector, &cq->vcq.cq, &cmd, sizeof(cmd),
				&resp, sizeof(resp));
	if (ret) {
		free(cq);
		errno = ret;
		return NULL;
	}
	pthread_mutex_init(&cq->lock, NULL);
	x = &cq->vcq.cq_ex;
	x->start_poll = x_start_poll;
	x->next_poll = x_next_poll;
	x->end_poll = x_end_poll;
	x->read_opcode = x_read_opcode;
	x->read_vendor_err = x_read_vendor_err;
	x->read_byte_len = x_read_byte_len;
	x->read_imm_data = x_read_imm_data;
	x->read_qp_num = x_read_qp_num;
	x->read_src_qp = x_read_src_qp;
	x->read_wc_flags = x_read_wc_flags;
	x->read_slid = x_read_slid;
	x->read_sl = x_read_sl;
	x->read_dlid_path_bits = x_read_dlid_path_bits;
	return cq;
}

struct ibv_cq *xprov_create_cq(struct ibv_context *ctx, int cqe,
			     struct ibv_comp_channel *channel, int comp_vector)
{
	struct xprov_cq *cq = cq_new(ctx, cqe, channel, comp_vector);

	return cq ? &cq->vcq.cq : NULL;
}

struct ibv_cq_ex *xprov_create_cq_ex(struct ibv_context *ctx, struct ibv_cq_init_attr_ex *attr)
{
	struct xprov_cq *cq;

	/* No timestamps, VLANs, flow tags, TM info; no flags, no parent domain. */
	if ((attr->wc_flags & ~XPROV_SUPPORTED_WC_FLAGS) ||
	    (attr->comp_mask & ~(uint32_t)IBV_CQ_INIT_ATTR_MASK_FLAGS) ||
	    ((attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) && attr->flags)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	cq = cq_new(ctx, (int)attr->cqe, attr->channel, (int)attr->comp_vector);
	if (!cq)
		return NULL;
	cq->wc_flags = attr->wc_flags;
	return &cq->vcq.cq_ex;
}

int xprov_destroy_cq(struct ibv_cq *ibcq)
{
	struct xprov_cq *cq = to_xcq(ibcq);
	int ret = ibv_cmd_destroy_cq(ibcq);

	if (ret)
		return ret;
	pthread_mutex_destroy(&cq->lock);
	free(cq);
	return 0;
}
