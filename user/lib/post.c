// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * libxqpverbs: POST_SEND, POST_RECV, POST_SRQ_RECV (laid out and chunked by
 * the wire layer, user/wire), MODIFY_SRQ, QUERY_SRQ.
 */
#define _GNU_SOURCE
#include <stdlib.h>

#include "priv.h"
#include "wire.h"

/* The opcodes the kernel takes are libxqpverbs' (both are the IBTA's). */
XQP_WIRE_ASSERT_WR_OPCODES(XQPV_WR_);
_Static_assert(sizeof(struct ib_uverbs_sge) == sizeof(struct xqpv_sge) &&
	       offsetof(struct ib_uverbs_sge, lkey) == offsetof(struct xqpv_sge, lkey),
	       "an SGE is copied as is");

#define XQP_WIRE_SEND_WR struct xqpv_send_wr
#include "send_wqe.h"

static int sges_ok(const struct xqpv_sge *sg, int num_sge)
{
	return num_sge >= 0 && (!num_sge || sg);
}

/* Returns the SGEs copied. */
static int copy_sges(struct ib_uverbs_sge *sge, const struct xqpv_sge *sg, int num_sge)
{
	if (num_sge)
		memcpy(sge, sg, (size_t)num_sge * sizeof(*sge));
	return num_sge;
}

/* ---- send WRs as the wire layer reads them; @arg is the QP ---- */

static const void *send_next(const void *wr, const void *arg)
{
	(void)arg;
	return ((const struct xqpv_send_wr *)wr)->next;
}

static int send_num_sge(const void *wr, const void *arg)
{
	const struct xqpv_send_wr *w = wr;
	const struct xqpv_qp *qp = arg;

	if (!sges_ok(w->sg_list, w->num_sge) || (qp->qp_type == XQPV_QPT_UD && !w->wr.ud.ah))
		return -1;
	return w->num_sge;
}

static int send_lay(void *wqe, struct ib_uverbs_sge *sge, const void *wr, const void *arg)
{
	const struct xqpv_send_wr *w = wr;
	const struct xqpv_qp *qp = arg;

	xqp_wire_send_wqe(wqe, w, qp->qp_type == XQPV_QPT_UD, qp->qp_type == XQPV_QPT_XRC_SEND);
	return copy_sges(sge, w->sg_list, w->num_sge);
}

int xqpv_post_send(struct xqpv_qp *qp, struct xqpv_send_wr *wr, struct xqpv_send_wr **bad_wr)
{
	const struct xqp_wire_list list = {
		.next = send_next, .num_sge = send_num_sge, .lay = send_lay, .arg = qp,
	};
	const void *bad;
	int err;

	err = xqp_wire_post(qp->context->cmd_fd, IB_USER_VERBS_CMD_POST_SEND, qp->handle,
			    sizeof(struct xqp_uverbs_send_wr), &list, wr, &bad);
	if (bad_wr)
		*bad_wr = (struct xqpv_send_wr *)bad;
	return err ? fail(err) : 0;
}

/* ---- receive WRs ---- */

static const void *recv_next(const void *wr, const void *arg)
{
	(void)arg;
	return ((const struct xqpv_recv_wr *)wr)->next;
}

static int recv_num_sge(const void *wr, const void *arg)
{
	const struct xqpv_recv_wr *w = wr;

	(void)arg;
	return sges_ok(w->sg_list, w->num_sge) ? w->num_sge : -1;
}

static int recv_lay(void *wqe, struct ib_uverbs_sge *sge, const void *wr, const void *arg)
{
	const struct xqpv_recv_wr *w = wr;
	struct ib_uverbs_recv_wr *k = wqe;

	(void)arg;
	k->wr_id = w->wr_id;
	k->num_sge = (uint32_t)w->num_sge;
	return copy_sges(sge, w->sg_list, w->num_sge);
}

/* POST_RECV or POST_SRQ_RECV (@command) of the list @wr on @handle. */
static int post_recv_any(struct xqpv_context *ctx, uint32_t command, uint32_t handle,
			 struct xqpv_recv_wr *wr, struct xqpv_recv_wr **bad_wr)
{
	static const struct xqp_wire_list list = {
		.next = recv_next, .num_sge = recv_num_sge, .lay = recv_lay,
	};
	const void *bad;
	int err;

	err = xqp_wire_post(ctx->cmd_fd, command, handle, sizeof(struct ib_uverbs_recv_wr),
			    &list, wr, &bad);
	if (bad_wr)
		*bad_wr = (struct xqpv_recv_wr *)bad;
	return err ? fail(err) : 0;
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
