// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The userspace wire layer (wire.h). A post is one write(): header, the
 * command, wr_count WQEs of wqe_size bytes, then every WR's SGEs in order
 * (ib_uverbs_post_send() walks them with one running index; send WQEs are
 * struct xqp_uverbs_send_wr, whose XRC remote SRQ number trails struct
 * ib_uverbs_send_wr). The response is bad_wr: 0 when all were posted, else
 * the 1-based index of the first WR that was not.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wire.h"

_Static_assert(sizeof(struct ib_uverbs_post_send) == sizeof(struct ib_uverbs_post_recv) &&
	       sizeof(struct ib_uverbs_post_recv) == sizeof(struct ib_uverbs_post_srq_recv) &&
	       offsetof(struct ib_uverbs_post_send, qp_handle) ==
	       offsetof(struct ib_uverbs_post_recv, qp_handle) &&
	       offsetof(struct ib_uverbs_post_recv, qp_handle) ==
	       offsetof(struct ib_uverbs_post_srq_recv, srq_handle) &&
	       offsetof(struct ib_uverbs_post_send, wr_count) ==
	       offsetof(struct ib_uverbs_post_recv, wr_count) &&
	       offsetof(struct ib_uverbs_post_send, sge_count) ==
	       offsetof(struct ib_uverbs_post_recv, sge_count) &&
	       offsetof(struct ib_uverbs_post_send, wqe_size) ==
	       offsetof(struct ib_uverbs_post_recv, wqe_size) &&
	       offsetof(struct ib_uverbs_post_recv, wqe_size) ==
	       offsetof(struct ib_uverbs_post_srq_recv, wqe_size),
	       "POST_SEND, POST_RECV and POST_SRQ_RECV share one layout");
_Static_assert(sizeof(struct ib_uverbs_post_send_resp) == sizeof(struct ib_uverbs_post_recv_resp) &&
	       sizeof(struct ib_uverbs_post_recv_resp) ==
	       sizeof(struct ib_uverbs_post_srq_recv_resp),
	       "one bad_wr response");
_Static_assert(sizeof(struct xqp_uverbs_send_wr) % 8 == 0 &&
	       sizeof(struct ib_uverbs_recv_wr) % 8 == 0,
	       "WQEs keep the SGEs aligned");

int xqp_wire_write(int fd, uint32_t command, void *buf, size_t len, size_t resp_len)
{
	struct ib_uverbs_cmd_hdr hdr;
	ssize_t n;

	if (len % 4 || resp_len % 4 || len > XQP_WIRE_MAX_WRITE || resp_len > XQP_WIRE_MAX_WRITE)
		return EINVAL;
	hdr.command = command;
	hdr.in_words = (uint16_t)(len / 4);
	hdr.out_words = (uint16_t)(resp_len / 4);
	memcpy(buf, &hdr, sizeof(hdr));
	n = write(fd, buf, len);
	if (n < 0)
		return errno;
	return (size_t)n == len ? 0 : EIO;
}

/* A post of up to 4 send WQEs and 8 SGEs needs no allocation. */
#define STACK_POST	XQP_WIRE_POST_LEN(sizeof(struct xqp_uverbs_send_wr), 4, 8)

/*
 * One write of the @n WRs from @first with @nsge SGEs in all; on failure
 * *bad is the WR the kernel named (the first of them if it named none).
 */
static int post_write(int fd, uint32_t command, uint32_t handle, size_t wqe_size,
		      const struct xqp_wire_list *l, const void *first, size_t n,
		      size_t nsge, const void **bad)
{
	unsigned char stack[STACK_POST] __attribute__((aligned(8)));
	size_t len = XQP_WIRE_POST_LEN(wqe_size, n, nsge), i;
	struct ib_uverbs_post_send_resp resp = { 0 };
	struct ib_uverbs_post_send *cmd;
	struct ib_uverbs_sge *sge;
	unsigned char *buf = len <= sizeof(stack) ? stack : malloc(len);
	const void *w;
	int err;

	if (!buf) {
		*bad = first;
		return ENOMEM;
	}
	memset(buf, 0, len);
	cmd = (void *)(buf + XQP_WIRE_HDR_LEN);
	cmd->response = (uintptr_t)&resp;
	cmd->qp_handle = handle;
	cmd->wr_count = (uint32_t)n;
	cmd->sge_count = (uint32_t)nsge;
	cmd->wqe_size = (uint32_t)wqe_size;
	sge = (void *)(buf + XQP_WIRE_POST_LEN(wqe_size, n, 0));
	for (i = 0, w = first; i < n; i++, w = l->next(w, l->arg)) {
		sge += l->lay(buf + XQP_WIRE_POST_LEN(wqe_size, i, 0), sge, w, l->arg);
	}
	err = xqp_wire_write(fd, command, buf, len, sizeof(resp));
	if (buf != stack)
		free(buf);
	if (err) {
		for (w = first, i = 1; i < resp.bad_wr && i < n; i++)
			w = l->next(w, l->arg);
		*bad = w;
	}
	return err;
}

int xqp_wire_post(int fd, uint32_t command, uint32_t handle, size_t wqe_size,
		  const struct xqp_wire_list *l, const void *first, const void **bad)
{
	const void *w = first;

	*bad = NULL;
	while (w) {
		const void *end, *refused = NULL;
		size_t n = 0, s = 0;
		int err;

		/* as many WRs as one write takes; stop before one refused */
		for (end = w; end; end = l->next(end, l->arg)) {
			int ns = l->num_sge(end, l->arg);

			if (ns < 0) {
				refused = end;
				break;
			}
			if (XQP_WIRE_POST_LEN(wqe_size, n + 1, s + (size_t)ns) > XQP_WIRE_MAX_WRITE)
				break;
			n++;
			s += (size_t)ns;
		}
		if (!n) {
			*bad = w;	/* refused, or too large for any write */
			return EINVAL;
		}
		err = post_write(fd, command, handle, wqe_size, l, w, n, s, bad);
		if (err)
			return err;
		if (refused) {
			*bad = refused;
			return EINVAL;
		}
		w = end;
	}
	return 0;
}

int xqp_wire_poll_cq(int fd, uint32_t cq_handle, struct ib_uverbs_poll_cq_resp *resp,
		     unsigned int ne)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_poll_cq cmd;
	} req;
	int err;

	if (ne > XQP_WIRE_POLL_MAX)
		return -EINVAL;
	memset(&req, 0, sizeof(req));
	req.cmd.response = (uintptr_t)resp;
	req.cmd.cq_handle = cq_handle;
	req.cmd.ne = ne;
	resp->count = 0;
	err = xqp_wire_write(fd, IB_USER_VERBS_CMD_POLL_CQ, &req, sizeof(req),
			     sizeof(*resp) + ne * sizeof(resp->wc[0]));
	if (err)
		return -err;
	if (resp->count > ne)
		return -EIO;
	return (int)resp->count;
}
