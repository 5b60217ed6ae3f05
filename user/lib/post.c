// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * libxqpverbs: POST_SEND, POST_RECV, POST_SRQ_RECV, MODIFY_SRQ, QUERY_SRQ.
 *
 * A post is one write(): header, the command, wr_count WRs of wqe_size
 * bytes, then every WR's SGEs in order (ib_uverbs_post_send() walks them
 * with one running index). Send WRs are struct xqp_uverbs_send_wr (the XRC
 * remote SRQ number trails struct ib_uverbs_send_wr; Linux skips bytes past
 * its struct). The response is bad_wr: 0 when all were posted, else the
 * 1-based index of the first WR that was not. A list longer than one
 * write can carry (the header counts 16-bit words) goes in several writes;
 * a failure in a later one still names the right WR.
 */
#define _GNU_SOURCE
#include <stdlib.h>

#include "priv.h"
#include "xqp_uverbs_wqe.h"

#define HDR_LEN sizeof(struct ib_uverbs_cmd_hdr)
#define MAX_WRITE ((size_t)0xffff * 4)

_Static_assert(sizeof(struct xqp_uverbs_send_wr) % 8 == 0, "WRs keep the SGEs aligned");
_Static_assert(sizeof(struct ib_uverbs_post_recv) == sizeof(struct ib_uverbs_post_srq_recv) &&
	       offsetof(struct ib_uverbs_post_recv, qp_handle) ==
	       offsetof(struct ib_uverbs_post_srq_recv, srq_handle) &&
	       offsetof(struct ib_uverbs_post_recv, wqe_size) ==
	       offsetof(struct ib_uverbs_post_srq_recv, wqe_size),
	       "POST_RECV and POST_SRQ_RECV share one layout");
/* The opcodes the kernel takes are libxqpverbs' (both are the IBTA's). */
XQP_UVERBS_ASSERT_WR_OPCODES(XQPV_WR_);
_Static_assert(sizeof(struct ib_uverbs_sge) == sizeof(struct xqpv_sge) &&
	       offsetof(struct ib_uverbs_sge, lkey) == offsetof(struct xqpv_sge, lkey),
	       "an SGE is copied as is");

static int sges_ok(const struct xqpv_sge *sg, int num_sge)
{
	return num_sge >= 0 && (!num_sge || sg);
}

/* The request bytes of @n WRs of @wqe bytes with @s SGEs in all. */
static size_t post_len(size_t n, size_t wqe, size_t s)
{
	return HDR_LEN + sizeof(struct ib_uverbs_post_send) + n * wqe +
	       s * sizeof(struct ib_uverbs_sge);
}

XQP_UVERBS_DEFINE_SEND_WQE(send_wr_to_kernel, struct xqpv_send_wr)

int xqpv_post_send(struct xqpv_qp *qp, struct xqpv_send_wr *wr, struct xqpv_send_wr **bad_wr)
{
	const size_t wqe = sizeof(struct xqp_uverbs_send_wr);
	struct xqpv_send_wr *w = wr, *dummy;

	if (!bad_wr)
		bad_wr = &dummy;
	*bad_wr = NULL;
	while (w) {
		struct ib_uverbs_post_send_resp resp;
		struct ib_uverbs_post_send *cmd;
		struct xqpv_send_wr *invalid = NULL, *end = w;
		struct ib_uverbs_sge *sge;
		size_t n = 0, s = 0, len;
		unsigned char *buf;
		int err;

		/* how many WRs this write takes; stop before one we refuse */
		for (; end; end = end->next) {
			if (!sges_ok(end->sg_list, end->num_sge) ||
			    (qp->qp_type == XQPV_QPT_UD && !end->wr.ud.ah)) {
				invalid = end;
				break;
			}
			if (post_len(n + 1, wqe, s + (size_t)end->num_sge) > MAX_WRITE)
				break;
			n++;
			s += (size_t)end->num_sge;
		}
		if (!n) {
			*bad_wr = w;	/* refused, or one WR too large to write */
			return fail(EINVAL);
		}
		len = post_len(n, wqe, s);
		buf = calloc(1, len);
		if (!buf) {
			*bad_wr = w;
			return fail(ENOMEM);
		}
		cmd = (void *)(buf + HDR_LEN);
		memset(&resp, 0, sizeof(resp));
		cmd->response = RESP(&resp);
		cmd->qp_handle = qp->handle;
		cmd->wr_count = (uint32_t)n;
		cmd->sge_count = (uint32_t)s;
		cmd->wqe_size = (uint32_t)wqe;
		sge = (void *)(buf + HDR_LEN + sizeof(*cmd) + n * wqe);
		{
			struct xqpv_send_wr *x = w;

			for (size_t i = 0; i < n; i++, x = x->next) {
				send_wr_to_kernel((void *)(buf + HDR_LEN + sizeof(*cmd) + i * wqe), x,
						  qp->qp_type == XQPV_QPT_UD,
						  qp->qp_type == XQPV_QPT_XRC_SEND);
				memcpy(sge, x->sg_list, (size_t)x->num_sge * sizeof(*sge));
				sge += x->num_sge;
			}
		}
		err = xqpi_write_cmd(qp->context, IB_USER_VERBS_CMD_POST_SEND, buf, len,
				     sizeof(resp));
		free(buf);
		if (err) {
			/* resp.bad_wr: 1-based; 0 = refused before any was posted */
			struct xqpv_send_wr *x = w;

			for (uint32_t i = 1; i < resp.bad_wr && i < n && x->next; i++)
				x = x->next;
			*bad_wr = x;
			return fail(err);
		}
		if (invalid) {
			*bad_wr = invalid;
			return fail(EINVAL);
		}
		w = end;
	}
	return 0;
}

/* POST_RECV or POST_SRQ_RECV (@command) of the list @wr on @handle. */
static int post_recv_any(struct xqpv_context *ctx, uint32_t command, uint32_t handle,
			 struct xqpv_recv_wr *wr, struct xqpv_recv_wr **bad_wr)
{
	const size_t wqe = sizeof(struct ib_uverbs_recv_wr);
	struct xqpv_recv_wr *w = wr, *dummy;

	if (!bad_wr)
		bad_wr = &dummy;
	*bad_wr = NULL;
	while (w) {
		struct ib_uverbs_post_recv_resp resp;
		struct ib_uverbs_post_recv *cmd;
		struct xqpv_recv_wr *invalid = NULL, *end = w;
		struct ib_uverbs_recv_wr *k;
		struct ib_uverbs_sge *sge;
		size_t n = 0, s = 0, len;
		unsigned char *buf;
		int err;

		for (; end; end = end->next) {
			if (!sges_ok(end->sg_list, end->num_sge)) {
				invalid = end;
				break;
			}
			if (post_len(n + 1, wqe, s + (size_t)end->num_sge) > MAX_WRITE)
				break;
			n++;
			s += (size_t)end->num_sge;
		}
		if (!n) {
			*bad_wr = w;
			return fail(EINVAL);
		}
		len = post_len(n, wqe, s);
		buf = calloc(1, len);
		if (!buf) {
			*bad_wr = w;
			return fail(ENOMEM);
		}
		cmd = (void *)(buf + HDR_LEN);
		memset(&resp, 0, sizeof(resp));
		cmd->response = RESP(&resp);
		cmd->qp_handle = handle;
		cmd->wr_count = (uint32_t)n;
		cmd->sge_count = (uint32_t)s;
		cmd->wqe_size = (uint32_t)wqe;
		k = (void *)(buf + HDR_LEN + sizeof(*cmd));
		sge = (void *)(k + n);
		{
			struct xqpv_recv_wr *x = w;

			for (size_t i = 0; i < n; i++, x = x->next) {
				k[i].wr_id = x->wr_id;
				k[i].num_sge = (uint32_t)x->num_sge;
				memcpy(sge, x->sg_list, (size_t)x->num_sge * sizeof(*sge));
				sge += x->num_sge;
			}
		}
		err = xqpi_write_cmd(ctx, command, buf, len, sizeof(resp));
		free(buf);
		if (err) {
			struct xqpv_recv_wr *x = w;

			for (uint32_t i = 1; i < resp.bad_wr && i < n && x->next; i++)
				x = x->next;
			*bad_wr = x;
			return fail(err);
		}
		if (invalid) {
			*bad_wr = invalid;
			return fail(EINVAL);
		}
		w = end;
	}
	return 0;
}

int xqpv_post_recv(struct xqpv_qp *qp, struct xqpv_recv_wr *wr, struct xqpv_recv_wr **bad_wr)
{
	return post_recv_any(qp->context, IB_USER_VERBS_CMD_POST_RECV, qp->handle, wr, bad_wr);
}

int xqpv_post_srq_recv(struct xqpv_srq *srq, struct xqpv_recv_wr *wr,
		      struct xqpv_recv_wr **bad_wr)
{
	return post_recv_any(srq->context, IB_USER_VERBS_CMD_POST_SRQ_RECV, srq->handle,
			     wr, bad_wr);
}

/* ---- SRQ attributes ------------------------------------------------------------ */

int xqpv_modify_srq(struct xqpv_srq *srq, struct xqpv_srq_attr *attr, int attr_mask)
{
	struct ib_uverbs_modify_srq cmd;

	memset(&cmd, 0, sizeof(cmd));
	cmd.srq_handle = srq->handle;
	cmd.attr_mask = (uint32_t)attr_mask;
	cmd.max_wr = attr->max_wr;
	cmd.srq_limit = attr->srq_limit;
	return xqpi_exec_cmd(srq->context, IB_USER_VERBS_CMD_MODIFY_SRQ, &cmd, sizeof(cmd), 0);
}

int xqpv_query_srq(struct xqpv_srq *srq, struct xqpv_srq_attr *attr)
{
	struct ib_uverbs_query_srq_resp resp;
	struct ib_uverbs_query_srq cmd;
	int err;

	memset(&cmd, 0, sizeof(cmd));
	cmd.srq_handle = srq->handle;
	err = exec_resp(srq->context, IB_USER_VERBS_CMD_QUERY_SRQ, &cmd, &resp);
	if (err)
		return err;
	attr->max_wr = resp.max_wr;
	attr->max_sge = resp.max_sge;
	attr->srq_limit = resp.srq_limit;
	return 0;
}
