// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Objects and handles: handle numbering, unknown / destroyed / wrong-type
 * handles, QP types, dependencies (EBUSY), modify/query, SRQs, teardown of
 * everything on close.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "acc.h"

static int create_qp_raw(int fd, uint8_t type, uint32_t pd, uint32_t scq, uint32_t rcq,
			 int is_srq, uint32_t srq, struct ib_uverbs_create_qp_resp *r)
{
	struct ib_uverbs_create_qp c = {
		.response = (uintptr_t)r,
		.pd_handle = pd,
		.send_cq_handle = scq,
		.recv_cq_handle = rcq,
		.srq_handle = srq,
		.is_srq = (uint8_t)is_srq,
		.qp_type = type,
		.max_send_wr = 4,
		.max_recv_wr = 4,
		.max_send_sge = 1,
		.max_recv_sge = 1,
	};

	return raw_cmd(fd, IB_USER_VERBS_CMD_CREATE_QP, &c, sizeof(c), -1, sizeof(*r) / 4);
}

static int close_xrcd_raw(int fd, uint32_t h)
{
	struct ib_uverbs_close_xrcd c = { .xrcd_handle = h };

	return raw_cmd(fd, IB_USER_VERBS_CMD_CLOSE_XRCD, &c, sizeof(c), -1, 0);
}

/* Handles are small integers, lowest free first, one space for all types. */
static void case_handles(void)
{
	struct xqpv_context *ctx = open_ctx();
	struct xqpv_pd *pd0 = xqpv_alloc_pd(ctx);
	struct xqpv_cq *cq1 = xqpv_create_cq(ctx, 8, NULL, NULL, 0);
	struct xqpv_pd *pd2 = xqpv_alloc_pd(ctx);
	int err;
	struct xqpv_xrcd *x3 = open_xrcd_path(ctx, NULL, 0, &err);
	struct xqpv_pd *again;

	CHECK(pd0 && cq1 && pd2 && x3, "setup: %s", errname(errno));
	if (!pd0 || !cq1 || !pd2 || !x3)
		return;
	EXPECT_INT("pd0", pd0->handle, 0);
	EXPECT_INT("cq1", cq1->handle, 1);
	EXPECT_INT("pd2", pd2->handle, 2);
	EXPECT_INT("xrcd3", x3->handle, 3);
	EXPECT("dealloc0", xqpv_dealloc_pd(pd0), 0);
	again = xqpv_alloc_pd(ctx);
	EXPECT_INT("reused", again ? (long long)again->handle : -1, 0);
	/* a handle means nothing in another file */
	{
		struct xqpv_context *other = open_ctx();

		EXPECT("other_file", dealloc_pd_raw(other->cmd_fd, pd2->handle), ENOENT);
		xqpv_close_device(other);
	}
	xqpv_close_device(ctx);
}

static void case_bad_handles(void)
{
	struct xqpv_context *ctx = open_ctx();
	int fd = ctx->cmd_fd;
	struct xqpv_pd *pd = xqpv_alloc_pd(ctx);
	struct xqpv_cq *cq = xqpv_create_cq(ctx, 8, NULL, NULL, 0);
	struct ib_uverbs_create_qp_resp r;
	struct xqpv_qp_attr a = { 0 };
	struct xqpv_qp fake = { .context = ctx, .handle = 777 };

	CHECK(pd && cq, "setup");
	if (!pd || !cq)
		return;
	EXPECT("dealloc_unknown", dealloc_pd_raw(fd, 1234), ENOENT);
	EXPECT("dealloc_max", dealloc_pd_raw(fd, 0xffffffffU), ENOENT);
	EXPECT("dealloc_cq_as_pd", dealloc_pd_raw(fd, cq->handle), EINVAL);
	EXPECT("destroy_pd_as_cq", destroy_cq_raw(fd, pd->handle, NULL), EINVAL);
	EXPECT("destroy_cq_as_qp", destroy_qp_raw(fd, cq->handle, NULL), EINVAL);
	EXPECT("close_pd_as_xrcd", close_xrcd_raw(fd, pd->handle), EINVAL);
	EXPECT("qp_pd_is_cq", create_qp_raw(fd, XQPV_QPT_RC, cq->handle, cq->handle,
					    cq->handle, 0, 0, &r), EINVAL);
	EXPECT("qp_bad_pd", create_qp_raw(fd, XQPV_QPT_RC, 99, cq->handle, cq->handle,
					  0, 0, &r), ENOENT);
	EXPECT("qp_bad_send_cq", create_qp_raw(fd, XQPV_QPT_RC, pd->handle, 99, cq->handle,
					       0, 0, &r), ENOENT);
	EXPECT("qp_bad_recv_cq", create_qp_raw(fd, XQPV_QPT_RC, pd->handle, cq->handle, 98,
					       0, 0, &r), ENOENT);
	EXPECT("qp_bad_srq", create_qp_raw(fd, XQPV_QPT_RC, pd->handle, cq->handle,
					   cq->handle, 1, 97, &r), ENOENT);
	EXPECT("qp_srq_is_pd", create_qp_raw(fd, XQPV_QPT_RC, pd->handle, cq->handle,
					     cq->handle, 1, pd->handle, &r), EINVAL);
	EXPECT("query_unknown", query_qp_raw(fd, 777, NULL), ENOENT);
	a.qp_state = XQPV_QPS_INIT;
	EXPECT("modify_unknown", xqpv_modify_qp(&fake, &a, XQPV_QP_STATE), ENOENT);
	/* destroyed handles are unknown */
	{
		uint32_t h = pd->handle;

		EXPECT("dealloc", xqpv_dealloc_pd(pd), 0);
		EXPECT("dealloc_again", dealloc_pd_raw(fd, h), ENOENT);
	}
	xqpv_close_device(ctx);
}

/* Every QP type; the XRC target takes the XRCD in pd_handle and nothing else. */
static void case_qp_types(void)
{
	struct xqpv_context *ctx = open_ctx();
	int fd = ctx->cmd_fd, err;
	struct xqpv_pd *pd = xqpv_alloc_pd(ctx);
	struct xqpv_cq *cq = xqpv_create_cq(ctx, 8, NULL, NULL, 0);
	struct xqpv_cq *cq2 = xqpv_create_cq(ctx, 8, NULL, NULL, 0);
	struct xqpv_xrcd *x = open_xrcd_path(ctx, NULL, 0, &err);
	struct ib_uverbs_create_qp_resp r;
	static const struct { const char *n; uint8_t t; } types[] = {
		{ "rc", XQPV_QPT_RC }, { "uc", XQPV_QPT_UC }, { "ud", XQPV_QPT_UD },
		{ "xrc_ini", XQPV_QPT_XRC_SEND },
	};

	CHECK(pd && cq && cq2 && x, "setup");
	if (!pd || !cq || !cq2 || !x)
		return;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		char n[32];

		snprintf(n, sizeof(n), "create_%s", types[i].n);
		err = create_qp_raw(fd, types[i].t, pd->handle, cq->handle, cq2->handle, 0, 0, &r);
		EXPECT(n, err, 0);
		if (!err) {
			CHECK(r.qpn >= 2 && r.qpn < (1U << 24), "%s qpn %u", n, r.qpn);
			snprintf(n, sizeof(n), "caps_%s", types[i].n);
			acc_token(n, "%u/%u/%u/%u", r.max_send_wr, r.max_recv_wr,
				  r.max_send_sge, r.max_recv_sge);
			snprintf(n, sizeof(n), "destroy_%s", types[i].n);
			EXPECT(n, destroy_qp_raw(fd, r.qp_handle, NULL), 0);
		}
	}
	EXPECT("create_tgt", create_qp_raw(fd, XQPV_QPT_XRC_RECV, x->handle, 0, 0, 0, 0, &r), 0);
	acc_token("caps_tgt", "%u/%u/%u/%u", r.max_send_wr, r.max_recv_wr, r.max_send_sge,
		  r.max_recv_sge);
	EXPECT("destroy_tgt", destroy_qp_raw(fd, r.qp_handle, NULL), 0);
	/* CQ and SRQ fields of an XRC target are not looked at */
	EXPECT("tgt_ignores_cqs", create_qp_raw(fd, XQPV_QPT_XRC_RECV, x->handle, 555, 556,
						1, 557, &r), 0);
	EXPECT("destroy_tgt2", destroy_qp_raw(fd, r.qp_handle, NULL), 0);
	EXPECT("tgt_pd_handle", create_qp_raw(fd, XQPV_QPT_XRC_RECV, pd->handle, 0, 0, 0, 0,
					      &r), EINVAL);
	EXPECT("tgt_unknown_xrcd", create_qp_raw(fd, XQPV_QPT_XRC_RECV, 4444, 0, 0, 0, 0,
						 &r), EINVAL);
	EXPECT("type_0", create_qp_raw(fd, 0, pd->handle, cq->handle, cq->handle, 0, 0, &r),
	       EINVAL);
	/* raw packet and driver QPs: Linux asks the driver, which has none */
	EXPECT("type_raw_packet", create_qp_raw(fd, 8, pd->handle, cq->handle, cq->handle,
						0, 0, &r), EOPNOTSUPP);
	EXPECT("type_raw_packet_bad_pd", create_qp_raw(fd, 8, 99, cq->handle, cq->handle,
						       0, 0, &r), ENOENT);
	EXPECT("type_driver", create_qp_raw(fd, 255, pd->handle, cq->handle, cq->handle, 0,
					    0, &r), EOPNOTSUPP);
	EXPECT("type_5", create_qp_raw(fd, 5, pd->handle, cq->handle, cq->handle, 0, 0, &r),
	       EINVAL);
	EXPECT("type_11", create_qp_raw(fd, 11, pd->handle, cq->handle, cq->handle, 0, 0, &r),
	       EINVAL);
	/* the initiator needs no receive CQ */
	EXPECT("xrc_ini_bad_rcq", create_qp_raw(fd, XQPV_QPT_XRC_SEND, pd->handle, cq->handle,
						999, 0, 0, &r), 0);
	xqpv_close_device(ctx);
}

/* What is in use cannot go; once the user is gone it can. */
static void case_busy(void)
{
	struct xqpv_context *ctx = open_ctx();
	int err;
	struct xqpv_pd *pd = xqpv_alloc_pd(ctx);
	struct xqpv_cq *cq = xqpv_create_cq(ctx, 8, NULL, NULL, 0);
	struct xqpv_xrcd *x = open_xrcd_path(ctx, NULL, 0, &err);
	struct xqpv_qp_init_attr_ex qa = {
		.qp_type = XQPV_QPT_RC, .comp_mask = XQPV_QP_INIT_ATTR_PD, .pd = pd,
		.send_cq = cq, .recv_cq = cq,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct xqpv_qp *qp = xqpv_create_qp_ex(ctx, &qa);
	struct xqpv_qp *tgt = x ? create_tgt(ctx, x) : NULL;

	CHECK(qp && tgt, "setup: %s", errname(errno));
	if (!qp || !tgt)
		return;
	EXPECT("dealloc_pd_busy", xqpv_dealloc_pd(pd), EBUSY);
	EXPECT("destroy_cq_busy", xqpv_destroy_cq(cq), EBUSY);
	EXPECT("close_xrcd_busy", xqpv_close_xrcd(x), EBUSY);
	EXPECT("destroy_qp", xqpv_destroy_qp(qp), 0);
	EXPECT("destroy_tgt", xqpv_destroy_qp(tgt), 0);
	EXPECT("dealloc_pd", xqpv_dealloc_pd(pd), 0);
	EXPECT("destroy_cq", xqpv_destroy_cq(cq), 0);
	EXPECT("close_xrcd", xqpv_close_xrcd(x), 0);
	xqpv_close_device(ctx);
}

/* Modify and query: the state machine and Linux's checks before the driver. */
static void case_modify_query(void)
{
	struct xqpv_context *ctx = open_ctx();
	int err;
	struct xqpv_xrcd *x;
	struct xqpv_qp *qp = open_xrcd_tgt(ctx, NULL, 0, &x);
	struct xqpv_qp *h2;
	struct xqpv_qp_attr a, q;
	struct xqpv_qp_init_attr init;

	CHECK(qp, "setup: %s", errname(errno));
	if (!qp)
		return;
	h2 = open_tgt(ctx, x, qp->qp_num, &err);
	EXPECT("open", err, 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = XQPV_QPS_RTR;
	EXPECT("reset_to_rtr", xqpv_modify_qp(qp, &a, XQPV_QP_STATE), EINVAL);
	a.qp_state = XQPV_QPS_INIT;
	EXPECT("init_missing_attrs", xqpv_modify_qp(qp, &a, XQPV_QP_STATE), EINVAL);
	a.pkey_index = 0;
	a.port_num = 0;
	a.qp_access_flags = XQPV_ACCESS_REMOTE_WRITE;
	EXPECT("init_port0", xqpv_modify_qp(qp, &a, XQPV_QP_STATE | XQPV_QP_PKEY_INDEX |
					   XQPV_QP_PORT | XQPV_QP_ACCESS_FLAGS), EINVAL);
	a.port_num = 2;
	EXPECT("init_port2", xqpv_modify_qp(qp, &a, XQPV_QP_STATE | XQPV_QP_PKEY_INDEX |
					   XQPV_QP_PORT | XQPV_QP_ACCESS_FLAGS), EINVAL);
	a.port_num = 1;
	a.pkey_index = 64;
	EXPECT("init_pkey64", xqpv_modify_qp(qp, &a, XQPV_QP_STATE | XQPV_QP_PKEY_INDEX |
					    XQPV_QP_PORT | XQPV_QP_ACCESS_FLAGS), EINVAL);
	a.pkey_index = 0;
	EXPECT("to_init", xqpv_modify_qp(qp, &a, XQPV_QP_STATE | XQPV_QP_PKEY_INDEX |
					XQPV_QP_PORT | XQPV_QP_ACCESS_FLAGS), 0);
	/* one real QP: the other handle sees the state */
	EXPECT("query_h2", xqpv_query_qp(h2, &q, XQPV_QP_STATE, &init), 0);
	EXPECT_INT("h2_state", q.qp_state, XQPV_QPS_INIT);
	EXPECT_INT("h2_port", q.port_num, 1);
	EXPECT_INT("h2_access", q.qp_access_flags, XQPV_ACCESS_REMOTE_WRITE);
	/* INIT -> RTR through the other handle */
	memset(&a, 0, sizeof(a));
	a.qp_state = XQPV_QPS_RTR;
	a.path_mtu = XQPV_MTU_1024;
	a.dest_qp_num = 0x123;
	a.rq_psn = 0x1000001;	/* masked to 24 bits */
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 12;
	a.ah_attr.dlid = 7;
	a.ah_attr.port_num = 1;
	int rtr = XQPV_QP_STATE | XQPV_QP_AV | XQPV_QP_PATH_MTU | XQPV_QP_DEST_QPN |
		  XQPV_QP_RQ_PSN | XQPV_QP_MAX_DEST_RD_ATOMIC | XQPV_QP_MIN_RNR_TIMER;
	a.ah_attr.port_num = 2;
	EXPECT("rtr_av_port2", xqpv_modify_qp(h2, &a, rtr), EINVAL);
	a.ah_attr.port_num = 1;
	EXPECT("rtr_missing", xqpv_modify_qp(h2, &a, rtr & ~XQPV_QP_DEST_QPN), EINVAL);
	EXPECT("to_rtr", xqpv_modify_qp(h2, &a, rtr), 0);
	EXPECT("query", xqpv_query_qp(qp, &q, XQPV_QP_STATE, &init), 0);
	EXPECT_INT("state", q.qp_state, XQPV_QPS_RTR);
	EXPECT_INT("mtu", q.path_mtu, XQPV_MTU_1024);
	EXPECT_INT("dest_qpn", q.dest_qp_num, 0x123);
	EXPECT_INT("rq_psn", q.rq_psn, 1);
	EXPECT_INT("dlid", q.ah_attr.dlid, 7);
	EXPECT_INT("min_rnr", q.min_rnr_timer, 12);
	/* Linux's checks in the uverbs layer */
	memset(&a, 0, sizeof(a));
	a.qp_state = 7;
	EXPECT("state_7", xqpv_modify_qp(qp, &a, XQPV_QP_STATE), EINVAL);
	a.qp_state = XQPV_QPS_ERR;
	a.cur_qp_state = 9;
	EXPECT("cur_state_9", xqpv_modify_qp(qp, &a, XQPV_QP_STATE | XQPV_QP_CUR_STATE), EINVAL);
	a.qkey = 0x80000000U;	/* allowed with CAP_NET_RAW: on to the driver */
	EXPECT("privileged_qkey_root", xqpv_modify_qp(qp, &a, XQPV_QP_QKEY), EINVAL);
	EXPECT("rate_limit_bit", xqpv_modify_qp(qp, &a, 1 << 25), EOPNOTSUPP);
	EXPECT("bit_21", xqpv_modify_qp(qp, &a, 1 << 21), EOPNOTSUPP);
	a.alt_port_num = 1;
	a.alt_ah_attr.port_num = 2;
	EXPECT("alt_path_ports", xqpv_modify_qp(qp, &a, XQPV_QP_ALT_PATH), EINVAL);
	/* to ERR from anywhere, then RESET */
	memset(&a, 0, sizeof(a));
	a.qp_state = XQPV_QPS_ERR;
	EXPECT("to_err", xqpv_modify_qp(h2, &a, XQPV_QP_STATE), 0);
	a.qp_state = XQPV_QPS_RESET;
	EXPECT("to_reset", xqpv_modify_qp(qp, &a, XQPV_QP_STATE), 0);
	EXPECT("destroy_h2", xqpv_destroy_qp(h2), 0);
	EXPECT("query_after", xqpv_query_qp(qp, &q, XQPV_QP_STATE, NULL), 0);
	EXPECT_INT("state_after", q.qp_state, XQPV_QPS_RESET);
	xqpv_close_device(ctx);
}

/* QUERY_QP's sq_sig_all is the real QP's, whichever handle asks. */
static void case_sq_sig_all(void)
{
	struct xqpv_context *ctx = open_ctx();
	int err;
	struct xqpv_xrcd *x = open_xrcd_path(ctx, NULL, 0, &err);
	struct xqpv_pd *pd = xqpv_alloc_pd(ctx);
	struct xqpv_cq *cq = xqpv_create_cq(ctx, 8, NULL, NULL, 0);
	struct xqpv_qp_init_attr_ex qa = {
		.qp_type = XQPV_QPT_XRC_RECV, .comp_mask = XQPV_QP_INIT_ATTR_XRCD,
		.xrcd = x, .sq_sig_all = 1,
	};
	struct xqpv_qp_init_attr init;
	struct xqpv_qp_attr q;
	struct xqpv_qp *tgt, *opened, *rc;

	CHECK(x && pd && cq, "setup: %s", errname(errno));
	if (!x || !pd || !cq)
		return;
	tgt = xqpv_create_qp_ex(ctx, &qa);
	EXPECT("create_tgt_all", PERR(tgt), 0);
	if (!tgt)
		return;
	opened = open_tgt(ctx, x, tgt->qp_num, &err);
	EXPECT("open", err, 0);
	memset(&init, 0, sizeof(init));
	EXPECT("query_creator", xqpv_query_qp(tgt, &q, XQPV_QP_STATE, &init), 0);
	EXPECT_INT("creator_sq_sig_all", init.sq_sig_all, 1);
	if (opened) {
		memset(&init, 0, sizeof(init));
		EXPECT("query_opened", xqpv_query_qp(opened, &q, XQPV_QP_STATE, &init), 0);
		EXPECT_INT("opened_sq_sig_all", init.sq_sig_all, 1);
		EXPECT("destroy_opened", xqpv_destroy_qp(opened), 0);
	}
	EXPECT("destroy_tgt", xqpv_destroy_qp(tgt), 0);

	/* ordinary QPs: 0 stays 0; any non-zero byte is ALL_WR */
	qa.qp_type = XQPV_QPT_RC;
	qa.comp_mask = XQPV_QP_INIT_ATTR_PD;
	qa.pd = pd;
	qa.xrcd = NULL;
	qa.send_cq = qa.recv_cq = cq;
	qa.cap.max_send_wr = 1;
	qa.cap.max_send_sge = 1;
	qa.sq_sig_all = 0;
	rc = xqpv_create_qp_ex(ctx, &qa);
	EXPECT("create_rc_req", PERR(rc), 0);
	if (rc) {
		init.sq_sig_all = 7;
		EXPECT("query_rc_req", xqpv_query_qp(rc, &q, XQPV_QP_STATE, &init), 0);
		EXPECT_INT("rc_req_sq_sig_all", init.sq_sig_all, 0);
		EXPECT("destroy_rc_req", xqpv_destroy_qp(rc), 0);
	}
	{
		struct ib_uverbs_create_qp_resp r;
		struct ib_uverbs_create_qp c = {
			.response = (uintptr_t)&r, .pd_handle = pd->handle,
			.send_cq_handle = cq->handle, .recv_cq_handle = cq->handle,
			.qp_type = XQPV_QPT_RC, .sq_sig_all = 2,
			.max_send_wr = 1, .max_send_sge = 1,
			.max_recv_wr = 1, .max_recv_sge = 1,
		};
		struct ib_uverbs_query_qp_resp qr;

		EXPECT("raw_create_sig_2", raw_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_CREATE_QP, &c,
						   sizeof(c), -1, sizeof(r) / 4), 0);
		memset(&qr, 0xa5, sizeof(qr));
		EXPECT("raw_query", query_qp_raw(ctx->cmd_fd, r.qp_handle, &qr), 0);
		EXPECT_INT("raw_sq_sig_all", qr.sq_sig_all, 1);
	}
	xqpv_close_device(ctx);
}

/*
 * CREATE_CQ reports the size the driver granted. Drivers differ (rxe and
 * the soft device round up to 2^k - 1, the reference device grants the
 * request): the tokens hold what every driver must satisfy, xqp's exact
 * value is checked on xqp only.
 */
static void case_cq_size(void)
{
	static const struct { int req, soft; } sizes[] = {
		{ 1, 1 }, { 8, 15 }, { 16, 31 }, { 1000, 1023 }, { 65536, 65536 },
	};
	struct xqpv_context *ctx = open_ctx();
	struct ib_uverbs_create_cq_resp r;
	struct ib_uverbs_create_cq c = {
		.response = (uintptr_t)&r, .comp_channel = -1,
	};
	struct xqpv_device_attr da;
	char name[32];

	EXPECT("query_device", xqpv_query_device(ctx, &da), 0);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct xqpv_cq *cq = xqpv_create_cq(ctx, sizes[i].req, NULL, NULL, 0);

		snprintf(name, sizeof(name), "create_%d", sizes[i].req);
		EXPECT(name, PERR(cq), 0);
		if (!cq)
			continue;
		snprintf(name, sizeof(name), "cqe_%d_fits", sizes[i].req);
		EXPECT_INT(name, cq->cqe >= sizes[i].req && cq->cqe <= da.max_cqe, 1);
		if (g_is_xqp)
			CHECK(cq->cqe == sizes[i].soft, "cqe %d: got %d, the soft device grants %d",
			      sizes[i].req, cq->cqe, sizes[i].soft);
		acc_note("cqe %d -> %d", sizes[i].req, cq->cqe);
		EXPECT("destroy", xqpv_destroy_cq(cq), 0);
	}
	/* the driver's limits: 1..max_cqe */
	c.cqe = 0;
	EXPECT("cqe_0", raw_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_CREATE_CQ, &c, sizeof(c), -1,
				sizeof(r) / 4), EINVAL);
	c.cqe = (uint32_t)da.max_cqe + 1;
	EXPECT("cqe_past_max", raw_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_CREATE_CQ, &c, sizeof(c),
				       -1, sizeof(r) / 4), EINVAL);
	c.cqe = 0xffffffffU;	/* -1 as the driver's int */
	EXPECT("cqe_minus_1", raw_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_CREATE_CQ, &c, sizeof(c),
				      -1, sizeof(r) / 4), EINVAL);
	/* the raw response carries the same value as the library saw */
	c.cqe = 100;
	memset(&r, 0, sizeof(r));
	EXPECT("raw_100", raw_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_CREATE_CQ, &c, sizeof(c), -1,
				  sizeof(r) / 4), 0);
	EXPECT_INT("raw_100_fits", r.cqe >= 100 && r.cqe <= (uint32_t)da.max_cqe, 1);
	if (g_is_xqp)
		CHECK(r.cqe == 127, "raw cqe 100: got %u, the soft device grants 127", r.cqe);
	xqpv_close_device(ctx);
}

/* XRC SRQs: need an XRCD, a CQ and a PD; they keep the XRCD busy. */
static void case_srq(void)
{
	struct xqpv_context *ctx = open_ctx();
	int err;
	struct xqpv_pd *pd = xqpv_alloc_pd(ctx);
	struct xqpv_cq *cq = xqpv_create_cq(ctx, 8, NULL, NULL, 0);
	struct xqpv_xrcd *x = open_xrcd_path(ctx, NULL, 0, &err);
	struct xqpv_srq_init_attr_ex sa = {
		.attr = { .max_wr = 10, .max_sge = 1 },
		.comp_mask = XQPV_SRQ_INIT_ATTR_TYPE | XQPV_SRQ_INIT_ATTR_PD |
			     XQPV_SRQ_INIT_ATTR_XRCD | XQPV_SRQ_INIT_ATTR_CQ,
		.srq_type = XQPV_SRQT_XRC, .pd = pd, .xrcd = x, .cq = cq,
	};
	struct xqpv_srq *srq, *basic;
	struct ib_uverbs_create_srq_resp r;
	struct ib_uverbs_create_xsrq c = { .response = (uintptr_t)&r };
	struct ib_uverbs_create_qp_resp qr;

	CHECK(pd && cq && x, "setup");
	if (!pd || !cq || !x)
		return;
	srq = xqpv_create_srq_ex(ctx, &sa);
	EXPECT("create_xrc_srq", PERR(srq), 0);
	acc_token("granted", "%u/%u", sa.attr.max_wr, sa.attr.max_sge);
	/* the driver's XRC SRQ number (devices number differently: not compared) */
	EXPECT_INT("xrc_srqn_24bit", srq && srq->srq_num >= 1 && srq->srq_num <= 0xffffff, 1);
	EXPECT("close_xrcd_busy", xqpv_close_xrcd(x), EBUSY);
	EXPECT("destroy_cq_busy", xqpv_destroy_cq(cq), EBUSY);
	EXPECT("dealloc_pd_busy", xqpv_dealloc_pd(pd), EBUSY);
	/* an RC QP cannot use an XRC SRQ */
	{
		struct ib_uverbs_create_qp q = {
			.response = (uintptr_t)&qr, .pd_handle = pd->handle,
			.send_cq_handle = cq->handle, .recv_cq_handle = cq->handle,
			.srq_handle = srq ? srq->handle : 0, .is_srq = 1,
			.qp_type = XQPV_QPT_RC, .max_send_wr = 1, .max_send_sge = 1,
		};

		EXPECT("rc_on_xrc_srq", raw_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_CREATE_QP, &q,
						sizeof(q), -1, sizeof(qr) / 4), EINVAL);
	}
	/* raw: unknown XRCD is EINVAL, unknown CQ and PD ENOENT */
	c.srq_type = XQPV_SRQT_XRC;
	c.pd_handle = pd->handle;
	c.cq_handle = cq->handle;
	c.xrcd_handle = 999;
	c.max_wr = 4;
	c.max_sge = 1;
	EXPECT("xsrq_bad_xrcd", raw_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_CREATE_XSRQ, &c,
					sizeof(c), -1, sizeof(r) / 4), EINVAL);
	c.xrcd_handle = x->handle;
	c.cq_handle = 998;
	EXPECT("xsrq_bad_cq", raw_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_CREATE_XSRQ, &c,
				      sizeof(c), -1, sizeof(r) / 4), ENOENT);
	c.cq_handle = cq->handle;
	c.pd_handle = 997;
	EXPECT("xsrq_bad_pd", raw_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_CREATE_XSRQ, &c,
				      sizeof(c), -1, sizeof(r) / 4), ENOENT);
	/* other SRQ types go to the driver, which has none */
	c.pd_handle = pd->handle;
	c.srq_type = 2;	/* tag matching: needs a CQ too */
	c.cq_handle = 996;
	EXPECT("xsrq_tm_bad_cq", raw_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_CREATE_XSRQ, &c,
					 sizeof(c), -1, sizeof(r) / 4), ENOENT);
	c.cq_handle = cq->handle;
	EXPECT("xsrq_tm", raw_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_CREATE_XSRQ, &c,
				  sizeof(c), -1, sizeof(r) / 4), EOPNOTSUPP);
	c.srq_type = 200;
	EXPECT("xsrq_type_200", raw_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_CREATE_XSRQ, &c,
					sizeof(c), -1, sizeof(r) / 4), EOPNOTSUPP);
	/* a second XRC SRQ, raw: a number of its own */
	c.srq_type = XQPV_SRQT_XRC;
	memset(&r, 0, sizeof(r));
	EXPECT("xsrq_second", raw_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_CREATE_XSRQ, &c,
				      sizeof(c), -1, sizeof(r) / 4), 0);
	EXPECT_INT("second_srqn_24bit", r.srqn >= 1 && r.srqn <= 0xffffff, 1);
	EXPECT_INT("second_srqn_own", srq && r.srqn != srq->srq_num, 1);
	{
		struct ib_uverbs_destroy_srq_resp dr;
		struct ib_uverbs_destroy_srq d = {
			.response = (uintptr_t)&dr, .srq_handle = r.srq_handle,
		};

		EXPECT("destroy_second", raw_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_DESTROY_SRQ, &d,
						 sizeof(d), -1, sizeof(dr) / 4), 0);
	}
	/* a basic SRQ through CREATE_XSRQ and an RC QP on it */
	sa.comp_mask = XQPV_SRQ_INIT_ATTR_TYPE | XQPV_SRQ_INIT_ATTR_PD;
	sa.srq_type = XQPV_SRQT_BASIC;
	basic = xqpv_create_srq_ex(ctx, &sa);
	EXPECT("create_basic", PERR(basic), 0);
	/* srqn is reported for XRC SRQs only (the soft device numbers all) */
	EXPECT_INT("basic_srqn", basic ? (long long)basic->srq_num : -1, 0);
	if (basic) {
		struct xqpv_qp_init_attr_ex qa = {
			.qp_type = XQPV_QPT_RC, .comp_mask = XQPV_QP_INIT_ATTR_PD, .pd = pd,
			.send_cq = cq, .srq = basic,
			.cap = { .max_send_wr = 1, .max_send_sge = 1 },
		};
		struct xqpv_qp *qp = xqpv_create_qp_ex(ctx, &qa);

		EXPECT("rc_on_basic", PERR(qp), 0);
		EXPECT("destroy_basic_busy", xqpv_destroy_srq(basic), EBUSY);
		if (qp)
			EXPECT("destroy_rc", xqpv_destroy_qp(qp), 0);
		EXPECT("destroy_basic", xqpv_destroy_srq(basic), 0);
	}
	if (srq)
		EXPECT("destroy_srq", xqpv_destroy_srq(srq), 0);
	EXPECT("close_xrcd", xqpv_close_xrcd(x), 0);
	xqpv_close_device(ctx);
}

/* Close with everything still there: all of it goes, dependents first. */
static void case_close_cleanup(void)
{
	const char *path = case_file("cleanup");
	struct xqpv_context *ctx = open_ctx();
	int err, i;
	struct xqpv_xrcd *x = open_xrcd_path(ctx, path, O_CREAT, &err);
	struct xqpv_xrcd *x2 = open_xrcd_path(ctx, path, 0, &err);
	struct xqpv_pd *pd = xqpv_alloc_pd(ctx);
	struct xqpv_cq *cq = xqpv_create_cq(ctx, 8, NULL, NULL, 0);
	struct xqpv_qp *tgt;

	CHECK(x && x2 && pd && cq, "setup: %s", errname(err));
	if (!x || !x2 || !pd || !cq)
		return;
	/* objects created in an order that needs the retry to tear down */
	for (i = 0; i < 4; i++) {
		CHECK(create_rc(ctx, pd, cq), "rc %d", i);
		tgt = create_tgt(ctx, i & 1 ? x : x2);
		CHECK(tgt, "tgt %d", i);
		if (tgt)
			CHECK(open_tgt(ctx, i & 1 ? x2 : x, tgt->qp_num, &err), "open %d", i);
	}
	CHECK(create_xrc_srq(ctx, pd, x2, cq), "srq");
	/* a PD created last but used by nothing, an XRCD opened last */
	CHECK(xqpv_alloc_pd(ctx), "pd2");
	CHECK(open_xrcd_path(ctx, path, 0, &err), "x3");
	EXPECT("close", xqpv_close_device(ctx), 0);

	/* the inode's XRCD is gone: O_CREAT|O_EXCL works again */
	ctx = open_ctx();
	x = open_xrcd_path(ctx, path, O_CREAT | O_EXCL, &err);
	EXPECT("recreate_excl", err, 0);
	xqpv_close_device(ctx);
}

/* Without CAP_NET_RAW: raw packet QPs and privileged Q_Keys are refused. */
static void unprivileged(void *arg)
{
	struct { uint32_t version; int pid; } hdr = { 0x20080522, 0 };
	struct { uint32_t effective, permitted, inheritable; } data[2] = { { 0 } };
	struct xqpv_context *ctx;
	struct ib_uverbs_create_qp_resp r;
	struct xqpv_qp_attr a = { 0 };
	struct xqpv_pd *pd;
	struct xqpv_cq *cq;
	struct xqpv_qp *qp;

	(void)arg;
	if (syscall(SYS_capset, &hdr, data)) {
		acc_fail("capset: %s", errname(errno));
		return;
	}
	ctx = open_ctx();	/* opened with the new credentials */
	pd = xqpv_alloc_pd(ctx);
	cq = xqpv_create_cq(ctx, 4, NULL, NULL, 0);
	CHECK(pd && cq, "setup");
	if (!pd || !cq)
		return;
	EXPECT("raw_packet", create_qp_raw(ctx->cmd_fd, 8, pd->handle, cq->handle,
					   cq->handle, 0, 0, &r), EPERM);
	qp = open_xrcd_tgt(ctx, NULL, 0, NULL);
	CHECK(qp, "tgt");
	if (!qp)
		return;
	a.qkey = 0x80000001U;
	EXPECT("privileged_qkey", xqpv_modify_qp(qp, &a, XQPV_QP_QKEY), EPERM);
	a.qkey = 1;
	EXPECT("plain_qkey", xqpv_modify_qp(qp, &a, XQPV_QP_QKEY), EINVAL);
	xqpv_close_device(ctx);
}

static void case_unprivileged(void)
{
	EXPECT_INT("child", reap(spawn(unprivileged, NULL)), 0);
}

const struct acc_case acc_cases_objects[] = {
	{ "obj_unprivileged", case_unprivileged, NULL, 0 },
	{ "obj_handle_numbers", case_handles, NULL, 0 },
	{ "obj_bad_handles", case_bad_handles, NULL, 0 },
	{ "obj_qp_types", case_qp_types, NULL, 0 },
	{ "obj_busy_dependencies", case_busy, NULL, 0 },
	{ "obj_modify_query", case_modify_query, NULL, 0 },
	{ "obj_sq_sig_all", case_sq_sig_all, NULL, 0 },
	{ "obj_cq_size", case_cq_size, NULL, 0 },
	{ "obj_srq", case_srq, NULL, 0 },
	{ "obj_close_cleanup", case_close_cleanup, NULL, 0 },
	{ NULL, NULL, NULL, 0 },
};
