// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/* Helpers of the data-path cases: see traffic.h. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "traffic.h"

const char *second_dev(void)
{
	static char path[256];
	size_t n = strlen(g_dev);

	snprintf(path, sizeof(path), "%s", g_dev);
	if (n && path[n - 1] >= '0' && path[n - 1] < '9')
		path[n - 1]++;
	return path;
}

#define ALL_ACCESS (XQPV_ACCESS_LOCAL_WRITE | XQPV_ACCESS_REMOTE_WRITE | \
		    XQPV_ACCESS_REMOTE_READ | XQPV_ACCESS_REMOTE_ATOMIC)

void ep_open(struct ep *e, const char *path, int cqe)
{
	struct xqpv_port_attr pa;

	memset(e, 0, sizeof(*e));
	e->ctx = xqpv_open_device_path(path);
	if (!e->ctx) {
		acc_fail("open %s: %s", path, errname(errno));
		exit(1);
	}
	e->pd = xqpv_alloc_pd(e->ctx);
	e->cq = e->pd ? xqpv_create_cq(e->ctx, cqe, e, NULL, 0) : NULL;
	e->buf = mmap(NULL, BUF_LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (e->buf == MAP_FAILED)
		e->buf = NULL;
	e->mr = e->cq && e->buf ? xqpv_reg_mr(e->pd, e->buf, BUF_LEN, ALL_ACCESS) : NULL;
	if (!e->mr) {
		acc_fail("endpoint on %s: %s", path, errname(errno));
		exit(1);
	}
	if (xqpv_query_port(e->ctx, 1, &pa)) {
		acc_fail("query_port %s: %s", path, errname(errno));
		exit(1);
	}
	e->lid = pa.lid;
}

void ep_close(struct ep *e)
{
	if (e->qp)
		xqpv_destroy_qp(e->qp);
	for (int i = 0; i < 2; i++)
		if (e->srq[i])
			xqpv_destroy_srq(e->srq[i]);
	if (e->xrcd)
		xqpv_close_xrcd(e->xrcd);
	if (e->mr)
		xqpv_dereg_mr(e->mr);
	if (e->cq)
		xqpv_destroy_cq(e->cq);
	if (e->pd)
		xqpv_dealloc_pd(e->pd);
	if (e->buf)
		munmap(e->buf, BUF_LEN);
	if (e->ctx)
		xqpv_close_device(e->ctx);
	memset(e, 0, sizeof(*e));
}

struct xqpv_qp *ep_qp(struct ep *e, enum xqpv_qp_type type, struct xqpv_srq *srq,
		     uint32_t max_send_wr, uint32_t max_recv_wr)
{
	struct xqpv_qp_init_attr_ex a = {
		.qp_type = type, .comp_mask = XQPV_QP_INIT_ATTR_PD, .pd = e->pd,
		.send_cq = e->cq, .recv_cq = e->cq, .srq = srq,
		.cap = { .max_send_wr = max_send_wr, .max_recv_wr = srq ? 0 : max_recv_wr,
			 .max_send_sge = 2, .max_recv_sge = srq ? 0 : 2,
			 .max_inline_data = 64 },
	};

	if (type == XQPV_QPT_XRC_SEND)
		a.cap.max_recv_wr = a.cap.max_recv_sge = 0;
	return xqpv_create_qp_ex(e->ctx, &a);
}

struct conn conn_defaults(void)
{
	struct conn c = {
		.rnr_retry = 7, .retry_cnt = 1, .min_rnr_timer = 1, .timeout = 10,
		.access = XQPV_ACCESS_REMOTE_WRITE | XQPV_ACCESS_REMOTE_READ |
			  XQPV_ACCESS_REMOTE_ATOMIC,
	};

	return c;
}

int qp_to_state(struct xqpv_qp *qp, enum xqpv_qp_state s)
{
	struct xqpv_qp_attr a = { .qp_state = s };

	return xqpv_modify_qp(qp, &a, XQPV_QP_STATE);
}

int qp_connect(struct xqpv_qp *qp, uint16_t dlid, uint32_t dqpn, const struct conn *cp,
	       int rts)
{
	struct conn c = cp ? *cp : conn_defaults();
	enum xqpv_qp_type t = qp->qp_type;
	struct xqpv_qp_attr a;
	int mask, err;

	memset(&a, 0, sizeof(a));
	a.qp_state = XQPV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = 1;
	a.qp_access_flags = c.access;
	err = xqpv_modify_qp(qp, &a, XQPV_QP_STATE | XQPV_QP_PKEY_INDEX | XQPV_QP_PORT |
			    XQPV_QP_ACCESS_FLAGS);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = XQPV_QPS_RTR;
	a.path_mtu = XQPV_MTU_1024;
	a.dest_qp_num = dqpn;
	a.rq_psn = 0;
	a.ah_attr.dlid = dlid;
	a.ah_attr.port_num = 1;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = c.min_rnr_timer;
	mask = XQPV_QP_STATE | XQPV_QP_AV | XQPV_QP_PATH_MTU | XQPV_QP_DEST_QPN | XQPV_QP_RQ_PSN;
	if (t == XQPV_QPT_RC || t == XQPV_QPT_XRC_RECV)
		mask |= XQPV_QP_MAX_DEST_RD_ATOMIC | XQPV_QP_MIN_RNR_TIMER;
	err = xqpv_modify_qp(qp, &a, mask);
	if (err || !rts)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = XQPV_QPS_RTS;
	a.sq_psn = 0;
	a.timeout = c.timeout;
	a.retry_cnt = c.retry_cnt;
	a.rnr_retry = c.rnr_retry;
	a.max_rd_atomic = 4;
	mask = XQPV_QP_STATE | XQPV_QP_SQ_PSN;
	if (t == XQPV_QPT_RC || t == XQPV_QPT_XRC_SEND)
		mask |= XQPV_QP_TIMEOUT | XQPV_QP_RETRY_CNT | XQPV_QP_RNR_RETRY |
			XQPV_QP_MAX_QP_RD_ATOMIC;
	return xqpv_modify_qp(qp, &a, mask);
}

int qp_ud_up(struct xqpv_qp *qp, uint32_t qkey)
{
	struct xqpv_qp_attr a;
	int err;

	memset(&a, 0, sizeof(a));
	a.qp_state = XQPV_QPS_INIT;
	a.port_num = 1;
	a.qkey = qkey;
	err = xqpv_modify_qp(qp, &a, XQPV_QP_STATE | XQPV_QP_PKEY_INDEX | XQPV_QP_PORT |
			    XQPV_QP_QKEY);
	if (!err)
		err = qp_to_state(qp, XQPV_QPS_RTR);
	if (!err) {
		memset(&a, 0, sizeof(a));
		a.qp_state = XQPV_QPS_RTS;
		err = xqpv_modify_qp(qp, &a, XQPV_QP_STATE | XQPV_QP_SQ_PSN);
	}
	return err;
}

void connect_pair(struct ep *a, struct ep *b, const struct conn *c)
{
	int err = qp_connect(a->qp, b->lid, b->qp->qp_num, c, 1);

	if (!err)
		err = qp_connect(b->qp, a->lid, a->qp->qp_num, c, 1);
	if (err) {
		acc_fail("connect: %s", errname(err));
		exit(1);
	}
}

void xrc_setup(struct ep *t, struct ep *i, uint32_t srq_wr, const struct conn *c)
{
	int err;

	t->xrcd = open_xrcd_path(t->ctx, NULL, 0, &err);
	t->qp = t->xrcd ? create_tgt(t->ctx, t->xrcd) : NULL;
	for (int k = 0; k < 2 && t->qp; k++) {
		struct xqpv_srq_init_attr_ex a = {
			.attr = { .max_wr = srq_wr, .max_sge = 2 },
			.comp_mask = XQPV_SRQ_INIT_ATTR_TYPE | XQPV_SRQ_INIT_ATTR_PD |
				     XQPV_SRQ_INIT_ATTR_XRCD | XQPV_SRQ_INIT_ATTR_CQ,
			.srq_type = XQPV_SRQT_XRC, .pd = t->pd, .xrcd = t->xrcd, .cq = t->cq,
		};

		t->srq[k] = xqpv_create_srq_ex(t->ctx, &a);
	}
	i->qp = t->srq[1] ? ep_qp(i, XQPV_QPT_XRC_SEND, NULL, 16, 0) : NULL;
	if (!i->qp) {
		acc_fail("xrc setup: %s", errname(errno));
		exit(1);
	}
	err = qp_connect(t->qp, i->lid, i->qp->qp_num, c, 0);
	if (!err)
		err = qp_connect(i->qp, t->lid, t->qp->qp_num, c, 1);
	if (err) {
		acc_fail("xrc connect: %s", errname(err));
		exit(1);
	}
}

long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

int poll_n(struct xqpv_cq *cq, struct xqpv_wc *wc, int n, int ms)
{
	long end = now_ms() + ms;
	int got = 0;

	while (got < n) {
		int r = xqpv_poll_cq(cq, n - got, wc + got);

		if (r < 0) {
			acc_fail("poll_cq: %s", errname(-r));
			return got;
		}
		got += r;
		if (got >= n || now_ms() > end)
			break;
		if (!r)
			usleep(1000);
	}
	return got;
}

int poll_one(struct xqpv_cq *cq, struct xqpv_wc *wc, int ms, const char *what)
{
	memset(wc, 0, sizeof(*wc));
	if (poll_n(cq, wc, 1, ms) != 1) {
		acc_fail("%s: no completion within %d ms", what, ms);
		memset(wc, 0, sizeof(*wc));
		wc->status = (enum xqpv_wc_status)-1;
		return 0;
	}
	return 1;
}

int post_recv1(struct xqpv_qp *qp, uint64_t wr_id, void *addr, uint32_t len, uint32_t lkey)
{
	struct xqpv_sge sge = { (uintptr_t)addr, len, lkey };
	struct xqpv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 }, *bad;

	return xqpv_post_recv(qp, &wr, &bad);
}

int post_srq1(struct xqpv_srq *srq, uint64_t wr_id, void *addr, uint32_t len, uint32_t lkey)
{
	struct xqpv_sge sge = { (uintptr_t)addr, len, lkey };
	struct xqpv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 }, *bad;

	return xqpv_post_srq_recv(srq, &wr, &bad);
}

int post_send1(struct xqpv_qp *qp, struct xqpv_send_wr *wr)
{
	struct xqpv_send_wr *bad;

	wr->next = NULL;
	return xqpv_post_send(qp, wr, &bad);
}

void fill(void *p, size_t n, unsigned int seed)
{
	unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		c[i] = (unsigned char)(seed * 31 + i * 7 + (i >> 8));
}

int check_fill(const void *p, size_t n, unsigned int seed)
{
	const unsigned char *c = p;

	for (size_t i = 0; i < n; i++)
		if (c[i] != (unsigned char)(seed * 31 + i * 7 + (i >> 8)))
			return 0;
	return 1;
}

static const char *status_name(enum xqpv_wc_status s)
{
	static char buf[16];

	switch (s) {
	case XQPV_WC_SUCCESS: return "SUCCESS";
	case XQPV_WC_LOC_LEN_ERR: return "LOC_LEN_ERR";
	case XQPV_WC_LOC_PROT_ERR: return "LOC_PROT_ERR";
	case XQPV_WC_WR_FLUSH_ERR: return "WR_FLUSH_ERR";
	case XQPV_WC_REM_INV_REQ_ERR: return "REM_INV_REQ_ERR";
	case XQPV_WC_REM_ACCESS_ERR: return "REM_ACCESS_ERR";
	case XQPV_WC_REM_OP_ERR: return "REM_OP_ERR";
	case XQPV_WC_RETRY_EXC_ERR: return "RETRY_EXC_ERR";
	case XQPV_WC_RNR_RETRY_EXC_ERR: return "RNR_RETRY_EXC_ERR";
	default:
		snprintf(buf, sizeof(buf), "S%d", (int)s);
		return buf;
	}
}

void wc_tokens(const char *name, const struct xqpv_wc *wc)
{
	char n[128];

	snprintf(n, sizeof(n), "%s_status", name);
	acc_token(n, "%s", status_name(wc->status));
	snprintf(n, sizeof(n), "%s_opcode", name);
	acc_token(n, "%d", (int)wc->opcode);
}

int wait_event_type(struct xqpv_context *ctx, enum xqpv_event_type type, int ms,
		    struct xqpv_async_event *out)
{
	long end = now_ms() + ms;

	for (;;) {
		struct xqpv_async_event ev;
		long left = end - now_ms();
		int err;

		if (left <= 0)
			return ETIMEDOUT;
		err = get_event(ctx, &ev, (int)left);
		if (err)
			return err;
		if (ev.event_type == type) {
			if (out)
				*out = ev;
			xqpv_ack_async_event(&ev);
			return 0;
		}
		acc_note("event %s while waiting", xqpv_event_type_str(ev.event_type));
		xqpv_ack_async_event(&ev);
	}
}
