// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * libxqpverbs: completion queues and completion channels. CREATE_CQ names
 * the channel by its fd (the channel's "handle" in uverbs is the fd);
 * events read from the channel carry the CQ's user_handle, which is the
 * library's struct xqpv_cq, as libibverbs does. POLL_CQ answers a header and
 * an array of struct ib_uverbs_wc in one response buffer.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <unistd.h>

#include "priv.h"
#include "wire.h"

/* ---- completion channels --------------------------------------------------- */

struct xqpv_comp_channel *xqpv_create_comp_channel(struct xqpv_context *ctx)
{
	struct ib_uverbs_create_comp_channel_resp resp;
	struct ib_uverbs_create_comp_channel cmd;
	struct xqpv_comp_channel *ch;
	int err;

	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return fail_ptr(ENOMEM);
	memset(&cmd, 0, sizeof(cmd));
	err = exec_resp(ctx, IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL, &cmd, &resp);
	if (err) {
		free(ch);
		return fail_ptr(err);
	}
	ch->context = ctx;
	ch->fd = (int)resp.fd;
	return ch;
}

int xqpv_destroy_comp_channel(struct xqpv_comp_channel *ch)
{
	if (__atomic_load_n(&ch->refcnt, __ATOMIC_ACQUIRE))
		return fail(EBUSY);
	close(ch->fd);
	free(ch);
	return 0;
}

int xqpv_get_cq_event(struct xqpv_comp_channel *ch, struct xqpv_cq **cq, void **cq_context)
{
	struct ib_uverbs_comp_event_desc ev;
	struct xqpv_cq *c;
	ssize_t n;

	n = read(ch->fd, &ev, sizeof(ev));
	if (n < 0)
		return fail(errno);
	if (n != sizeof(ev))
		return fail(EIO);
	c = (struct xqpv_cq *)(uintptr_t)ev.cq_handle;	/* our user_handle */
	*cq = c;
	if (cq_context)
		*cq_context = c->cq_context;
	return 0;
}

void xqpv_ack_cq_events(struct xqpv_cq *cq, unsigned int nevents)
{
	struct event_acks a = { &cq->mutex, &cq->cond, &cq->comp_events_completed };

	acks_add(a, nevents);
}

/* ---- CQs ------------------------------------------------------------------------ */

struct xqpv_cq *xqpv_create_cq(struct xqpv_context *ctx, int cqe, void *cq_context,
			     struct xqpv_comp_channel *channel, int comp_vector)
{
	struct ib_uverbs_create_cq_resp resp;
	struct ib_uverbs_create_cq cmd;
	struct xqpv_cq *cq;
	int err;

	if (channel && channel->context != ctx)
		return fail_ptr(EINVAL);
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return fail_ptr(ENOMEM);
	memset(&cmd, 0, sizeof(cmd));
	cmd.user_handle = RESP(cq);
	cmd.cqe = (uint32_t)cqe;
	cmd.comp_vector = (uint32_t)comp_vector;
	cmd.comp_channel = channel ? channel->fd : -1;
	err = exec_resp(ctx, IB_USER_VERBS_CMD_CREATE_CQ, &cmd, &resp);
	if (err) {
		free(cq);
		return fail_ptr(err);
	}
	cq->context = ctx;
	cq->cq_context = cq_context;
	cq->handle = resp.cq_handle;
	cq->cqe = (int)resp.cqe;
	cq->channel = channel;
	if (channel)
		__atomic_add_fetch(&channel->refcnt, 1, __ATOMIC_ACQ_REL);
	acks_init(cq_acks(cq));
	return cq;
}

int xqpv_destroy_cq(struct xqpv_cq *cq)
{
	struct xqpv_comp_channel *ch = cq->channel;
	int err = xqpi_destroy_acked(cq->context, IB_USER_VERBS_CMD_DESTROY_CQ, cq->handle,
				     cq_acks(cq), &cq->comp_events_completed);

	if (err)
		return err;
	if (ch)
		__atomic_sub_fetch(&ch->refcnt, 1, __ATOMIC_ACQ_REL);
	free(cq);
	return 0;
}

/* ---- polling ---------------------------------------------------------------------- */

static void wc_from_kernel(struct xqpv_wc *w, const struct ib_uverbs_wc *k)
{
	w->wr_id = k->wr_id;
	w->status = (enum xqpv_wc_status)k->status;
	w->opcode = (enum xqpv_wc_opcode)k->opcode;
	w->vendor_err = k->vendor_err;
	w->byte_len = k->byte_len;
	w->imm_data = k->ex.imm_data;
	w->qp_num = k->qp_num;
	w->src_qp = k->src_qp;
	w->wc_flags = k->wc_flags;
	w->pkey_index = k->pkey_index;
	w->slid = k->slid;
	w->sl = k->sl;
	w->dlid_path_bits = k->dlid_path_bits;
	w->port_num = k->port_num;
}

int xqpv_poll_cq(struct xqpv_cq *cq, int num_entries, struct xqpv_wc *wc)
{
	unsigned char small[sizeof(struct ib_uverbs_poll_cq_resp) +
			    16 * sizeof(struct ib_uverbs_wc)] __attribute__((aligned(8)));
	struct ib_uverbs_poll_cq_resp *resp;
	size_t ne, len;
	int n;

	if (num_entries < 0)
		return -fail(EINVAL);
	ne = (size_t)num_entries < XQP_WIRE_POLL_MAX ? (size_t)num_entries : XQP_WIRE_POLL_MAX;
	len = sizeof(*resp) + ne * sizeof(struct ib_uverbs_wc);
	resp = len <= sizeof(small) ? (void *)small : malloc(len);
	if (!resp)
		return -fail(ENOMEM);
	n = xqp_wire_poll_cq(cq->context->cmd_fd, cq->handle, resp, (unsigned int)ne);
	for (int i = 0; i < n; i++)
		wc_from_kernel(&wc[i], &resp->wc[i]);
	if ((void *)resp != (void *)small)
		free(resp);
	return n < 0 ? -fail(-n) : n;
}

int xqpv_req_notify_cq(struct xqpv_cq *cq, int solicited_only)
{
	struct ib_uverbs_req_notify_cq cmd;

	memset(&cmd, 0, sizeof(cmd));
	cmd.cq_handle = cq->handle;
	cmd.solicited_only = !!solicited_only;
	return xqpi_exec_cmd(cq->context, IB_USER_VERBS_CMD_REQ_NOTIFY_CQ, &cmd,
			     sizeof(cmd), 0);
}

int xqpv_resize_cq(struct xqpv_cq *cq, int cqe)
{
	struct ib_uverbs_resize_cq_resp resp;
	struct ib_uverbs_resize_cq cmd;
	int err;

	memset(&cmd, 0, sizeof(cmd));
	cmd.cq_handle = cq->handle;
	cmd.cqe = (uint32_t)cqe;
	err = exec_resp(cq->context, IB_USER_VERBS_CMD_RESIZE_CQ, &cmd, &resp);
	if (err)
		return err;
	cq->cqe = (int)resp.cqe;
	return 0;
}

const char *xqpv_wc_status_str(enum xqpv_wc_status status)
{
	static const char *const names[] = {
		[XQPV_WC_SUCCESS] = "success",
		[XQPV_WC_LOC_LEN_ERR] = "local length error",
		[XQPV_WC_LOC_QP_OP_ERR] = "local QP operation error",
		[XQPV_WC_LOC_EEC_OP_ERR] = "local EE context operation error",
		[XQPV_WC_LOC_PROT_ERR] = "local protection error",
		[XQPV_WC_WR_FLUSH_ERR] = "work request flushed",
		[XQPV_WC_MW_BIND_ERR] = "memory management operation error",
		[XQPV_WC_BAD_RESP_ERR] = "bad response error",
		[XQPV_WC_LOC_ACCESS_ERR] = "local access error",
		[XQPV_WC_REM_INV_REQ_ERR] = "remote invalid request error",
		[XQPV_WC_REM_ACCESS_ERR] = "remote access error",
		[XQPV_WC_REM_OP_ERR] = "remote operation error",
		[XQPV_WC_RETRY_EXC_ERR] = "transport retry counter exceeded",
		[XQPV_WC_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
		[XQPV_WC_LOC_RDD_VIOL_ERR] = "local RDD violation error",
		[XQPV_WC_REM_INV_RD_REQ_ERR] = "remote invalid RD request",
		[XQPV_WC_REM_ABORT_ERR] = "aborted error",
		[XQPV_WC_INV_EECN_ERR] = "invalid EE context number",
		[XQPV_WC_INV_EEC_STATE_ERR] = "invalid EE context state",
		[XQPV_WC_FATAL_ERR] = "fatal error",
		[XQPV_WC_RESP_TIMEOUT_ERR] = "response timeout error",
		[XQPV_WC_GENERAL_ERR] = "general error",
	};

	if ((unsigned int)status < sizeof(names) / sizeof(names[0]) && names[status])
		return names[status];
	return "unknown";
}
