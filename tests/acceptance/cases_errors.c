// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * The data path's errors (docs/datapath.md "Errors", "Posting"): RNR, bad
 * keys, missing access, too long messages, wrong XRC SRQs, flushes, the
 * last-WQE and SRQ-limit events, CQ overrun, posting in the wrong state or
 * to a full queue, MR and CQ resizing rules. xqp only.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/fault_knobs.h"
#include "traffic.h"

/* An RC pair a (uverbs0) <- b (uverbs1) with the given path parameters. */
static void rc_pair(struct ep *a, struct ep *b, const struct conn *c, int cqe,
		    uint32_t swr, uint32_t rwr)
{
	ep_open(a, g_dev, cqe);
	ep_open(b, second_dev(), cqe);
	a->qp = ep_qp(a, XQPV_QPT_RC, NULL, swr, rwr);
	b->qp = ep_qp(b, XQPV_QPT_RC, NULL, swr, rwr);
	if (!a->qp || !b->qp) {
		acc_fail("create rc: %s", errname(errno));
		exit(1);
	}
	connect_pair(a, b, c);
}

static int send_to(struct ep *s, struct ep *r, int op, uint32_t lkey, uint64_t laddr,
		   uint32_t len, uint32_t rkey, uint64_t raddr, uint64_t wr_id)
{
	struct xqpv_sge sge = { laddr, len, lkey };
	struct xqpv_send_wr w = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = XQPV_SEND_SIGNALED,
	};

	(void)r;
	if (op == XQPV_WR_ATOMIC_CMP_AND_SWP || op == XQPV_WR_ATOMIC_FETCH_AND_ADD) {
		sge.length = 8;
		w.wr.atomic.remote_addr = raddr;
		w.wr.atomic.rkey = rkey;
		w.wr.atomic.compare_add = 1;
	} else {
		w.wr.rdma.remote_addr = raddr;
		w.wr.rdma.rkey = rkey;
	}
	return post_send1(s->qp, &w);
}

static int qp_state(struct xqpv_qp *qp)
{
	struct xqpv_qp_attr a;

	return xqpv_query_qp(qp, &a, XQPV_QP_STATE, NULL) ? -1 : (int)a.qp_state;
}

static void one_error(const char *name, struct xqpv_cq *cq, enum xqpv_wc_status want,
		      uint64_t wr_id)
{
	struct xqpv_wc wc;
	char n[96];

	if (!poll_one(cq, &wc, 10000, name))
		return;
	snprintf(n, sizeof(n), "%s_status", name);
	acc_expect_int(n, wc.status, want, __FILE__, __LINE__);
	snprintf(n, sizeof(n), "%s_wr_id", name);
	acc_expect_int(n, (long long)wc.wr_id, (long long)wr_id, __FILE__, __LINE__);
}

/* ---- RNR ------------------------------------------------------------------- */

static void case_rnr(void)
{
	for (int retry = 0; retry <= 1; retry++) {
		struct conn c = conn_defaults();
		struct ep a, b;
		char n[32];

		c.rnr_retry = (uint8_t)retry;
		c.min_rnr_timer = 1;
		rc_pair(&a, &b, &c, 16, 8, 8);
		snprintf(n, sizeof(n), "rnr_retry%d_post", retry);
		EXPECT(n, send_to(&b, &a, XQPV_WR_SEND, b.mr->lkey, (uintptr_t)b.buf, 64, 0, 0, 1), 0);
		snprintf(n, sizeof(n), "rnr_retry%d", retry);
		one_error(n, b.cq, XQPV_WC_RNR_RETRY_EXC_ERR, 1);
		snprintf(n, sizeof(n), "rnr_retry%d_requester_err", retry);
		EXPECT_INT(n, qp_state(b.qp), XQPV_QPS_ERR);
		snprintf(n, sizeof(n), "rnr_retry%d_responder_rts", retry);
		EXPECT_INT(n, qp_state(a.qp), XQPV_QPS_RTS);
		ep_close(&a);
		ep_close(&b);
	}
	/* rnr_retry 7: retried until a receive shows up */
	{
		struct ep a, b;
		struct xqpv_wc wc;

		rc_pair(&a, &b, NULL, 16, 8, 8);
		EXPECT("rnr_inf_post", send_to(&b, &a, XQPV_WR_SEND, b.mr->lkey, (uintptr_t)b.buf,
					       64, 0, 0, 2), 0);
		EXPECT_INT("rnr_inf_nothing_yet", poll_n(b.cq, &wc, 1, 100), 0);
		EXPECT("rnr_inf_recv", post_recv1(a.qp, 3, a.buf, 4096, a.mr->lkey), 0);
		one_error("rnr_inf_send", b.cq, XQPV_WC_SUCCESS, 2);
		one_error("rnr_inf_recv", a.cq, XQPV_WC_SUCCESS, 3);
		ep_close(&a);
		ep_close(&b);
	}
}

/* ---- local and remote protection -------------------------------------------- */

static void case_bad_lkey(void)
{
	struct ep a, b;

	rc_pair(&a, &b, NULL, 16, 8, 8);
	EXPECT("recv", post_recv1(a.qp, 1, a.buf, 4096, a.mr->lkey), 0);
	EXPECT("post", send_to(&b, &a, XQPV_WR_SEND, b.mr->lkey + 0x1000, (uintptr_t)b.buf,
			       64, 0, 0, 7), 0);
	one_error("bad_lkey", b.cq, XQPV_WC_LOC_PROT_ERR, 7);
	EXPECT_INT("bad_lkey_qp_err", qp_state(b.qp), XQPV_QPS_ERR);
	ep_close(&a);
	ep_close(&b);
	/* an SGE past the end of the MR */
	rc_pair(&a, &b, NULL, 16, 8, 8);
	EXPECT("recv2", post_recv1(a.qp, 1, a.buf, 4096, a.mr->lkey), 0);
	EXPECT("post2", send_to(&b, &a, XQPV_WR_SEND, b.mr->lkey,
				(uintptr_t)b.buf + BUF_LEN - 16, 64, 0, 0, 8), 0);
	one_error("sge_outside_mr", b.cq, XQPV_WC_LOC_PROT_ERR, 8);
	ep_close(&a);
	ep_close(&b);
	/* a receive into an MR without LOCAL_WRITE */
	rc_pair(&a, &b, NULL, 16, 8, 8);
	{
		static unsigned char ro[4096] __attribute__((aligned(4096)));
		struct xqpv_mr *mr = xqpv_reg_mr(a.pd, ro, sizeof(ro), XQPV_ACCESS_REMOTE_READ);

		EXPECT("ro_mr", PERR(mr), 0);
		if (mr) {
			EXPECT("recv_ro", post_recv1(a.qp, 9, ro, sizeof(ro), mr->lkey), 0);
			EXPECT("post3", send_to(&b, &a, XQPV_WR_SEND, b.mr->lkey, (uintptr_t)b.buf,
						64, 0, 0, 10), 0);
			one_error("recv_no_local_write", a.cq, XQPV_WC_LOC_PROT_ERR, 9);
			ep_close(&b);
			xqpv_destroy_qp(a.qp);
			a.qp = NULL;
			xqpv_dereg_mr(mr);
		}
	}
	ep_close(&a);
}

static void bad_remote(const char *name, int op, int use_ro_mr, int qp_access)
{
	static unsigned char ro[4096] __attribute__((aligned(4096)));
	struct conn c = conn_defaults();
	struct ep a, b;
	struct xqpv_mr *mr = NULL;
	uint32_t rkey;
	uint64_t raddr;
	char n[96];

	if (qp_access >= 0)
		c.access = (unsigned int)qp_access;
	rc_pair(&a, &b, &c, 16, 8, 8);
	rkey = a.mr->rkey;
	raddr = a.mr->iova;
	if (use_ro_mr == 1) {
		rkey += 0x1000;		/* no such key */
	} else if (use_ro_mr == 2) {
		mr = xqpv_reg_mr(a.pd, ro, sizeof(ro), XQPV_ACCESS_LOCAL_WRITE);
		CHECK(mr, "mr: %s", errname(errno));
		if (!mr)
			exit(1);
		rkey = mr->rkey;
		raddr = (uintptr_t)ro;
	} else if (use_ro_mr == 3) {
		raddr += BUF_LEN - 8;	/* runs past the end */
	}
	snprintf(n, sizeof(n), "%s_post", name);
	EXPECT(n, send_to(&b, &a, op, b.mr->lkey, (uintptr_t)b.buf, 64, rkey, raddr, 11), 0);
	one_error(name, b.cq, XQPV_WC_REM_ACCESS_ERR, 11);
	snprintf(n, sizeof(n), "%s_requester_err", name);
	EXPECT_INT(n, qp_state(b.qp), XQPV_QPS_ERR);
	snprintf(n, sizeof(n), "%s_responder_err", name);
	EXPECT_INT(n, qp_state(a.qp), XQPV_QPS_ERR);
	snprintf(n, sizeof(n), "%s_access_err_event", name);
	EXPECT(n, wait_event_type(a.ctx, XQPV_EVENT_QP_ACCESS_ERR, 5000, NULL), 0);
	ep_close(&b);
	xqpv_destroy_qp(a.qp);
	a.qp = NULL;
	if (mr)
		xqpv_dereg_mr(mr);
	ep_close(&a);
}

static void case_bad_rkey(void)
{
	bad_remote("write_bad_rkey", XQPV_WR_RDMA_WRITE, 1, -1);
	bad_remote("read_bad_rkey", XQPV_WR_RDMA_READ, 1, -1);
	bad_remote("write_past_mr", XQPV_WR_RDMA_WRITE, 3, -1);
}

static void case_no_remote_access(void)
{
	bad_remote("write_mr_local_only", XQPV_WR_RDMA_WRITE, 2, -1);
	bad_remote("read_mr_local_only", XQPV_WR_RDMA_READ, 2, -1);
	bad_remote("atomic_mr_local_only", XQPV_WR_ATOMIC_FETCH_AND_ADD, 2, -1);
	bad_remote("write_qp_no_remote_write", XQPV_WR_RDMA_WRITE, 0, XQPV_ACCESS_REMOTE_READ);
	bad_remote("read_qp_no_remote_read", XQPV_WR_RDMA_READ, 0, XQPV_ACCESS_REMOTE_WRITE);
}

static void case_too_long(void)
{
	struct ep a, b;

	rc_pair(&a, &b, NULL, 16, 8, 8);
	EXPECT("recv", post_recv1(a.qp, 21, a.buf, 64, a.mr->lkey), 0);
	EXPECT("post", send_to(&b, &a, XQPV_WR_SEND, b.mr->lkey, (uintptr_t)b.buf, 1000,
			       0, 0, 22), 0);
	one_error("responder", a.cq, XQPV_WC_LOC_LEN_ERR, 21);
	one_error("requester", b.cq, XQPV_WC_REM_INV_REQ_ERR, 22);
	EXPECT_INT("responder_err", qp_state(a.qp), XQPV_QPS_ERR);
	EXPECT_INT("requester_err", qp_state(b.qp), XQPV_QPS_ERR);
	ep_close(&a);
	ep_close(&b);
}

static void case_xrc_wrong_srq(void)
{
	for (int k = 0; k < 2; k++) {
		struct ep t, i;
		struct xqpv_sge sge;
		struct xqpv_send_wr s = { .wr_id = 31, .num_sge = 1, .opcode = XQPV_WR_SEND,
					 .send_flags = XQPV_SEND_SIGNALED, .sg_list = &sge };
		struct xqpv_xrcd *other = NULL;
		struct xqpv_srq *foreign = NULL;
		struct xqpv_wc wc;
		const char *name = k ? "srq_of_other_xrcd" : "no_such_srq";
		char n[64];
		int err;

		ep_open(&t, g_dev, 16);
		ep_open(&i, second_dev(), 16);
		xrc_setup(&t, &i, 8, NULL);
		sge = (struct xqpv_sge){ (uintptr_t)i.buf, 64, i.mr->lkey };
		EXPECT("srq_post", post_srq1(t.srq[0], 30, t.buf, 4096, t.mr->lkey), 0);
		if (k) {
			other = open_xrcd_path(t.ctx, NULL, 0, &err);
			foreign = other ? create_xrc_srq(t.ctx, t.pd, other, t.cq) : NULL;
			CHECK(foreign, "foreign srq: %s", errname(errno));
			if (!foreign)
				exit(1);
			EXPECT("foreign_post", post_srq1(foreign, 32, t.buf, 4096, t.mr->lkey), 0);
			s.qp_type.xrc.remote_srqn = foreign->srq_num;
		} else {
			s.qp_type.xrc.remote_srqn = t.srq[0]->srq_num ^ 0x800000;
		}
		snprintf(n, sizeof(n), "%s_post", name);
		EXPECT(n, post_send1(i.qp, &s), 0);
		one_error(name, i.cq, XQPV_WC_REM_INV_REQ_ERR, 31);
		snprintf(n, sizeof(n), "%s_ini_err", name);
		EXPECT_INT(n, qp_state(i.qp), XQPV_QPS_ERR);
		snprintf(n, sizeof(n), "%s_tgt_unharmed", name);
		EXPECT_INT(n, qp_state(t.qp), XQPV_QPS_RTR);
		snprintf(n, sizeof(n), "%s_no_receive", name);
		EXPECT_INT(n, poll_n(t.cq, &wc, 1, 200), 0);
		if (foreign)
			xqpv_destroy_srq(foreign);
		if (other)
			xqpv_close_xrcd(other);
		ep_close(&i);
		ep_close(&t);
	}
}

/* ---- flushing, events ----------------------------------------------------- */

static void case_flush(void)
{
	struct ep a, b;
	struct xqpv_wc wc[8];
	int n, flushed_recv = 0, flushed_send = 0, ok = 1;

	rc_pair(&a, &b, NULL, 32, 8, 8);
	for (int i = 0; i < 3; i++)
		EXPECT("recv", post_recv1(b.qp, 100 + (uint64_t)i, b.buf, 4096, b.mr->lkey), 0);
	/* a has no receives and rnr_retry 7: these stay outstanding */
	for (int i = 0; i < 2; i++)
		EXPECT("send", send_to(&b, &a, XQPV_WR_SEND, b.mr->lkey, (uintptr_t)b.buf + 8192,
				       64, 0, 0, 200 + (uint64_t)i), 0);
	EXPECT_INT("nothing_yet", poll_n(b.cq, wc, 1, 100), 0);
	EXPECT("to_err", qp_to_state(b.qp, XQPV_QPS_ERR), 0);
	/* in ERR: still accepted, and flushed */
	EXPECT("recv_in_err", post_recv1(b.qp, 103, b.buf, 4096, b.mr->lkey), 0);
	EXPECT("send_in_err", send_to(&b, &a, XQPV_WR_SEND, b.mr->lkey, (uintptr_t)b.buf,
				      64, 0, 0, 202), 0);
	n = poll_n(b.cq, wc, 7, 5000);
	EXPECT_INT("flushed", n, 7);
	for (int i = 0; i < n; i++) {
		ok &= wc[i].status == XQPV_WC_WR_FLUSH_ERR && wc[i].byte_len == 0 &&
		      wc[i].qp_num == b.qp->qp_num;
		if (wc[i].wr_id >= 200) {
			flushed_send++;
			ok &= wc[i].opcode == XQPV_WC_SEND;
		} else {
			flushed_recv++;
			ok &= wc[i].opcode == XQPV_WC_RECV;
		}
	}
	EXPECT_INT("flush_fields", ok, 1);
	EXPECT_INT("flushed_recv", flushed_recv, 4);
	EXPECT_INT("flushed_send", flushed_send, 3);
	/* receives complete in order; sends in order */
	ep_close(&a);
	ep_close(&b);
}

static void case_last_wqe(void)
{
	struct ep a;
	struct xqpv_srq_init_attr_ex sa = {
		.attr = { .max_wr = 8, .max_sge = 1 },
		.comp_mask = XQPV_SRQ_INIT_ATTR_PD, .pd = NULL,
	};
	struct xqpv_async_event ev;
	struct xqpv_srq *srq;

	ep_open(&a, g_dev, 16);
	sa.pd = a.pd;
	srq = xqpv_create_srq_ex(a.ctx, &sa);
	EXPECT("srq", PERR(srq), 0);
	if (!srq)
		return;
	a.qp = ep_qp(&a, XQPV_QPT_RC, srq, 4, 0);
	EXPECT("qp_on_srq", PERR(a.qp), 0);
	if (!a.qp)
		return;
	EXPECT("post_recv_on_srq_qp", post_recv1(a.qp, 1, a.buf, 64, a.mr->lkey), EINVAL);
	EXPECT("srq_recv", post_srq1(srq, 2, a.buf, 64, a.mr->lkey), 0);
	{
		struct xqpv_qp_attr at = { .qp_state = XQPV_QPS_INIT, .port_num = 1 };

		EXPECT("init", xqpv_modify_qp(a.qp, &at, XQPV_QP_STATE | XQPV_QP_PKEY_INDEX |
					     XQPV_QP_PORT | XQPV_QP_ACCESS_FLAGS), 0);
	}
	EXPECT("to_err", qp_to_state(a.qp, XQPV_QPS_ERR), 0);
	EXPECT("last_wqe", wait_event_type(a.ctx, XQPV_EVENT_QP_LAST_WQE_REACHED, 5000, &ev), 0);
	EXPECT_INT("last_wqe_names_qp", ev.element.qp == a.qp, 1);
	xqpv_destroy_qp(a.qp);
	a.qp = NULL;
	EXPECT("destroy_srq", xqpv_destroy_srq(srq), 0);
	ep_close(&a);
}

/*
 * An async event raised on the work queue whose entry cannot be allocated
 * is dropped and counted on the async fd (fdinfo xqp-dropped), as one past
 * the queue's bound is. The event: LAST_WQE_REACHED of a requester on an
 * SRQ that its RNR retry, which the work queue runs, takes to ERR. The
 * allocation fails through the work queue's own fail-nth
 * (/sys/kernel/debug/xqp/work_fail_nth, 1: its first allocation; reads 1
 * once one failed), which exists where the kernel has fault injection:
 * elsewhere the unarmed half runs alone. Unarmed, the event arrives.
 */
#define WORK_FAIL_NTH "/sys/kernel/debug/xqp/work_fail_nth"

static int work_fail_write(const char *v)
{
	FILE *f = fopen(WORK_FAIL_NTH, "w");
	int err;

	if (!f)
		return errno;
	err = fputs(v, f) < 0 ? EIO : 0;
	return fclose(f) ? errno : err;
}

static int work_fail_fired(void)
{
	FILE *f = fopen(WORK_FAIL_NTH, "r");
	int v = -1;

	if (f && fscanf(f, "%d", &v) != 1)
		v = -1;
	if (f)
		fclose(f);
	return v;
}

static void case_work_event_dropped(void)
{
	int hook = access(WORK_FAIL_NTH, W_OK) == 0;

	/* the hook is there exactly where the kernel has fault injection */
	EXPECT_INT("hook_iff_fault_injection", hook, access("/proc/thread-self/fail-nth", F_OK) == 0);
	if (hook)	/* quiet: an injected failure is not a splat */
		EXPECT("fault_knobs", fault_knobs_set() ? errno : 0, 0);
	for (int armed = hook; armed >= 0; armed--) {
		struct xqpv_srq_init_attr_ex sa = {
			.attr = { .max_wr = 8, .max_sge = 1 }, .comp_mask = XQPV_SRQ_INIT_ATTR_PD,
		};
		struct conn c = conn_defaults();
		struct xqpv_async_event ev;
		struct xqpv_srq *srq;
		struct ep a, b;
		char n[48];

		c.rnr_retry = 1;
		ep_open(&a, g_dev, 16);
		ep_open(&b, second_dev(), 16);
		sa.pd = b.pd;
		srq = xqpv_create_srq_ex(b.ctx, &sa);
		a.qp = ep_qp(&a, XQPV_QPT_RC, NULL, 4, 4);
		b.qp = srq ? ep_qp(&b, XQPV_QPT_RC, srq, 4, 0) : NULL;
		if (!a.qp || !b.qp) {
			acc_fail("create: %s", errname(errno));
			exit(1);
		}
		connect_pair(&a, &b, &c);
		if (armed)
			EXPECT("arm", work_fail_write("1"), 0);
		snprintf(n, sizeof(n), "armed%d_post", armed);
		EXPECT(n, send_to(&b, &a, XQPV_WR_SEND, b.mr->lkey, (uintptr_t)b.buf, 64, 0, 0, 1),
		       0);
		snprintf(n, sizeof(n), "armed%d_rnr", armed);
		one_error(n, b.cq, XQPV_WC_RNR_RETRY_EXC_ERR, 1);
		snprintf(n, sizeof(n), "armed%d_last_wqe", armed);
		EXPECT(n, wait_event_type(b.ctx, XQPV_EVENT_QP_LAST_WQE_REACHED, armed ? 300 : 5000,
					  &ev), armed ? ETIMEDOUT : 0);
		snprintf(n, sizeof(n), "armed%d_dropped", armed);
		EXPECT_INT(n, fdinfo_value(b.ctx->async_fd, "xqp-dropped"), armed);
		if (hook) {
			snprintf(n, sizeof(n), "armed%d_fired", armed);
			EXPECT_INT(n, work_fail_fired(), armed);
			EXPECT("disarm", work_fail_write("0"), 0);
		}
		xqpv_destroy_qp(b.qp);
		b.qp = NULL;
		EXPECT("destroy_srq", xqpv_destroy_srq(srq), 0);
		ep_close(&a);
		ep_close(&b);
	}
}

static void case_srq_limit(void)
{
	struct ep a, b;
	struct xqpv_srq_init_attr_ex sa = {
		.attr = { .max_wr = 8, .max_sge = 1 }, .comp_mask = XQPV_SRQ_INIT_ATTR_PD,
	};
	struct xqpv_srq_attr q, m;
	struct xqpv_async_event ev;
	struct xqpv_srq *srq;
	struct xqpv_wc wc;

	ep_open(&a, g_dev, 32);
	ep_open(&b, second_dev(), 32);
	sa.pd = a.pd;
	srq = xqpv_create_srq_ex(a.ctx, &sa);
	EXPECT("srq", PERR(srq), 0);
	if (!srq)
		return;
	a.qp = ep_qp(&a, XQPV_QPT_RC, srq, 4, 0);
	b.qp = ep_qp(&b, XQPV_QPT_RC, NULL, 4, 4);
	CHECK(a.qp && b.qp, "qps");
	if (!a.qp || !b.qp)
		return;
	connect_pair(&a, &b, NULL);
	EXPECT("query", xqpv_query_srq(srq, &q), 0);
	EXPECT_INT("query_max_wr_covers", q.max_wr >= 8, 1);
	EXPECT_INT("query_limit0", q.srq_limit, 0);
	for (int i = 0; i < 4; i++)
		EXPECT("srq_recv", post_srq1(srq, 40 + (uint64_t)i, a.buf + i * 4096, 4096,
					     a.mr->lkey), 0);
	m.max_wr = 0;
	m.srq_limit = q.max_wr + 1;
	EXPECT("limit_over_max_wr", xqpv_modify_srq(srq, &m, XQPV_SRQ_LIMIT), EINVAL);
	m.max_wr = 2;
	EXPECT("resize_below_posted", xqpv_modify_srq(srq, &m, XQPV_SRQ_MAX_WR), EINVAL);
	m.max_wr = 20;
	EXPECT("resize_up", xqpv_modify_srq(srq, &m, XQPV_SRQ_MAX_WR), 0);
	EXPECT("query2", xqpv_query_srq(srq, &q), 0);
	EXPECT_INT("resized_covers", q.max_wr >= 20, 1);
	m.srq_limit = 3;
	EXPECT("arm", xqpv_modify_srq(srq, &m, XQPV_SRQ_LIMIT), 0);
	EXPECT("query3", xqpv_query_srq(srq, &q), 0);
	EXPECT_INT("armed", q.srq_limit, 3);
	/* 4 posted -> 3: not below the limit yet */
	EXPECT("send1", send_to(&b, &a, XQPV_WR_SEND, b.mr->lkey, (uintptr_t)b.buf, 16, 0, 0, 1), 0);
	one_error("send1", b.cq, XQPV_WC_SUCCESS, 1);
	one_error("recv1", a.cq, XQPV_WC_SUCCESS, 40);
	EXPECT("no_event_yet", wait_event_type(a.ctx, XQPV_EVENT_SRQ_LIMIT_REACHED, 200, NULL),
	       ETIMEDOUT);
	/* 3 -> 2: below */
	EXPECT("send2", send_to(&b, &a, XQPV_WR_SEND, b.mr->lkey, (uintptr_t)b.buf, 16, 0, 0, 2), 0);
	one_error("send2", b.cq, XQPV_WC_SUCCESS, 2);
	one_error("recv2", a.cq, XQPV_WC_SUCCESS, 41);
	EXPECT("limit_event", wait_event_type(a.ctx, XQPV_EVENT_SRQ_LIMIT_REACHED, 5000, &ev), 0);
	EXPECT_INT("limit_event_names_srq", ev.element.srq == srq, 1);
	EXPECT("query4", xqpv_query_srq(srq, &q), 0);
	EXPECT_INT("disarmed", q.srq_limit, 0);
	/* once: the next one raises nothing */
	EXPECT("send3", send_to(&b, &a, XQPV_WR_SEND, b.mr->lkey, (uintptr_t)b.buf, 16, 0, 0, 3), 0);
	one_error("send3", b.cq, XQPV_WC_SUCCESS, 3);
	EXPECT("no_second_event", wait_event_type(a.ctx, XQPV_EVENT_SRQ_LIMIT_REACHED, 200, NULL),
	       ETIMEDOUT);
	poll_n(a.cq, &wc, 1, 1000);
	ep_close(&b);
	xqpv_destroy_qp(a.qp);
	a.qp = NULL;
	xqpv_destroy_srq(srq);
	ep_close(&a);
}

static void case_cq_overrun(void)
{
	struct ep a, b;
	struct xqpv_async_event ev;

	rc_pair(&a, &b, NULL, 1, 8, 8);
	EXPECT_INT("cq_size", b.cq->cqe, 1);
	for (int i = 0; i < 3; i++)
		EXPECT("write", send_to(&b, &a, XQPV_WR_RDMA_WRITE, b.mr->lkey, (uintptr_t)b.buf, 16,
					a.mr->rkey, a.mr->iova, 50 + (uint64_t)i), 0);
	EXPECT("cq_err", wait_event_type(b.ctx, XQPV_EVENT_CQ_ERR, 5000, &ev), 0);
	EXPECT_INT("cq_err_names_cq", ev.element.cq == b.cq, 1);
	{
		struct xqpv_wc wc[4];

		EXPECT_INT("kept_one", poll_n(b.cq, wc, 4, 200), 1);
	}
	ep_close(&a);
	ep_close(&b);
}

/* ---- posting rules ---------------------------------------------------------- */

static void case_wrong_state(void)
{
	struct ep a, b;
	struct xqpv_sge sge;
	struct xqpv_send_wr w[2], *bad;
	struct xqpv_recv_wr r = { .wr_id = 1, .num_sge = 1 }, *rbad;
	struct xqpv_wc wc;
	const char *names[] = { "reset", "init", "rtr" };

	ep_open(&a, g_dev, 16);
	ep_open(&b, second_dev(), 16);
	a.qp = ep_qp(&a, XQPV_QPT_RC, NULL, 8, 8);
	b.qp = ep_qp(&b, XQPV_QPT_RC, NULL, 8, 8);
	CHECK(a.qp && b.qp, "qps");
	if (!a.qp || !b.qp)
		return;
	sge = (struct xqpv_sge){ (uintptr_t)b.buf, 16, b.mr->lkey };
	r.sg_list = &sge;
	memset(w, 0, sizeof(w));
	for (int i = 0; i < 2; i++) {
		w[i].wr_id = 60 + (uint64_t)i;
		w[i].sg_list = &sge;
		w[i].num_sge = 1;
		w[i].opcode = XQPV_WR_RDMA_WRITE;
		w[i].send_flags = XQPV_SEND_SIGNALED;
		w[i].wr.rdma.remote_addr = a.mr->iova;
		w[i].wr.rdma.rkey = a.mr->rkey;
	}
	w[0].next = &w[1];
	EXPECT("recv_reset", xqpv_post_recv(b.qp, &r, &rbad), EINVAL);
	EXPECT_INT("recv_reset_bad", rbad == &r, 1);
	for (int s = 0; s < 3; s++) {
		char n[48];

		if (s == 1) {
			struct xqpv_qp_attr at = { .qp_state = XQPV_QPS_INIT, .port_num = 1,
						  .qp_access_flags = XQPV_ACCESS_REMOTE_WRITE };

			EXPECT("to_init", xqpv_modify_qp(b.qp, &at, XQPV_QP_STATE |
				XQPV_QP_PKEY_INDEX | XQPV_QP_PORT | XQPV_QP_ACCESS_FLAGS), 0);
			EXPECT("recv_init", xqpv_post_recv(b.qp, &r, &rbad), 0);
		}
		if (s == 2) {
			/* qp_connect from RESET: do it on a fresh pair of states */
			struct xqpv_qp_attr at = { .qp_state = XQPV_QPS_RTR, .path_mtu = XQPV_MTU_1024,
						  .dest_qp_num = a.qp->qp_num,
						  .max_dest_rd_atomic = 1, .min_rnr_timer = 1 };

			at.ah_attr.dlid = a.lid;
			at.ah_attr.port_num = 1;
			EXPECT("to_rtr", xqpv_modify_qp(b.qp, &at, XQPV_QP_STATE | XQPV_QP_AV |
				XQPV_QP_PATH_MTU | XQPV_QP_DEST_QPN | XQPV_QP_RQ_PSN |
				XQPV_QP_MAX_DEST_RD_ATOMIC | XQPV_QP_MIN_RNR_TIMER), 0);
		}
		bad = NULL;
		snprintf(n, sizeof(n), "send_%s", names[s]);
		EXPECT(n, xqpv_post_send(b.qp, w, &bad), EINVAL);
		snprintf(n, sizeof(n), "send_%s_bad_is_first", names[s]);
		EXPECT_INT(n, bad == &w[0], 1);
	}
	EXPECT("a_up", qp_connect(a.qp, b.lid, b.qp->qp_num, NULL, 1), 0);
	{
		struct xqpv_qp_attr at = { .qp_state = XQPV_QPS_RTS, .timeout = 10, .retry_cnt = 1,
					  .rnr_retry = 7, .max_rd_atomic = 1 };

		EXPECT("to_rts", xqpv_modify_qp(b.qp, &at, XQPV_QP_STATE | XQPV_QP_SQ_PSN |
			XQPV_QP_TIMEOUT | XQPV_QP_RETRY_CNT | XQPV_QP_RNR_RETRY |
			XQPV_QP_MAX_QP_RD_ATOMIC), 0);
	}
	/* too many SGEs in the second WR: the first is posted */
	static struct xqpv_sge many[40];
	for (int i = 0; i < 40; i++)
		many[i] = (struct xqpv_sge){ (uintptr_t)b.buf + (uint64_t)i * 16, 16, b.mr->lkey };
	w[1].sg_list = many;
	w[1].num_sge = 40;	/* past any granted max_send_sge (device max 32) */
	bad = NULL;
	EXPECT("too_many_sge", xqpv_post_send(b.qp, w, &bad), EINVAL);
	EXPECT_INT("too_many_sge_bad_is_second", bad == &w[1], 1);
	if (poll_one(b.cq, &wc, 5000, "first_posted"))
		EXPECT_INT("first_posted", (long long)wc.wr_id, 60);
	/* inline data past max_inline_data */
	{
		static unsigned char big[8192];
		struct xqpv_sge bs = { (uintptr_t)big, sizeof(big), 0 };
		struct xqpv_send_wr iw = { .wr_id = 70, .sg_list = &bs, .num_sge = 1,
					  .opcode = XQPV_WR_RDMA_WRITE,
					  .send_flags = XQPV_SEND_INLINE | XQPV_SEND_SIGNALED };

		iw.wr.rdma.remote_addr = a.mr->iova;
		iw.wr.rdma.rkey = a.mr->rkey;
		EXPECT("inline_too_long", post_send1(b.qp, &iw), EINVAL);
	}
	/* an opcode no QP has */
	{
		struct xqpv_send_wr ow = { .wr_id = 71, .sg_list = &sge, .num_sge = 1,
					  .opcode = (enum xqpv_wr_opcode)99 };

		EXPECT("unknown_opcode", post_send1(b.qp, &ow), EINVAL);
	}
	ep_close(&a);
	ep_close(&b);
}

static void case_queue_full(void)
{
	struct ep a, b;
	struct xqpv_qp_attr at;
	struct xqpv_qp_init_attr ia;
	struct xqpv_send_wr *sw;
	struct xqpv_recv_wr *rw, *rbad;
	struct xqpv_send_wr *bad;
	struct xqpv_sge sge;
	struct xqpv_wc wc[128];
	uint32_t ns, nr;
	int got;

	rc_pair(&a, &b, NULL, 256, 8, 8);
	EXPECT("query", xqpv_query_qp(b.qp, &at, XQPV_QP_CAP, &ia), 0);
	ns = ia.cap.max_send_wr;
	nr = ia.cap.max_recv_wr;
	CHECK(ns >= 8 && ns < 64 && nr >= 8 && nr < 64, "caps %u %u", ns, nr);
	if (ns >= 64 || nr >= 64)
		return;
	sge = (struct xqpv_sge){ (uintptr_t)b.buf, 16, b.mr->lkey };
	rw = calloc(nr + 1, sizeof(*rw));
	sw = calloc(ns + 1, sizeof(*sw));
	for (uint32_t i = 0; i <= nr; i++) {
		rw[i].wr_id = 1000 + i;
		rw[i].sg_list = &sge;
		rw[i].num_sge = 1;
		rw[i].next = i < nr ? &rw[i + 1] : NULL;
	}
	EXPECT("recv_full", xqpv_post_recv(b.qp, rw, &rbad), ENOMEM);
	EXPECT_INT("recv_full_bad_is_last", rbad == &rw[nr], 1);
	/* a has no receives, rnr_retry 7: the sends stay outstanding */
	for (uint32_t i = 0; i <= ns; i++) {
		sw[i].wr_id = 2000 + i;
		sw[i].sg_list = &sge;
		sw[i].num_sge = 1;
		sw[i].opcode = XQPV_WR_SEND;
		sw[i].send_flags = XQPV_SEND_SIGNALED;
		sw[i].next = i < ns ? &sw[i + 1] : NULL;
	}
	EXPECT("send_full", xqpv_post_send(b.qp, sw, &bad), ENOMEM);
	EXPECT_INT("send_full_bad_is_last", bad == &sw[ns], 1);
	EXPECT("to_err", qp_to_state(b.qp, XQPV_QPS_ERR), 0);
	got = poll_n(b.cq, wc, (int)(ns + nr), 5000);
	EXPECT_INT("all_flushed", got, ns + nr);
	/* SRQ full */
	{
		struct xqpv_srq_init_attr_ex sa = {
			.attr = { .max_wr = 4, .max_sge = 1 }, .comp_mask = XQPV_SRQ_INIT_ATTR_PD,
			.pd = a.pd,
		};
		struct xqpv_srq *srq = xqpv_create_srq_ex(a.ctx, &sa);
		uint32_t n = sa.attr.max_wr;

		EXPECT("srq", PERR(srq), 0);
		if (srq && n < 64) {
			struct xqpv_recv_wr *s = calloc(n + 1, sizeof(*s));

			sge = (struct xqpv_sge){ (uintptr_t)a.buf, 16, a.mr->lkey };
			for (uint32_t i = 0; i <= n; i++) {
				s[i].wr_id = i;
				s[i].sg_list = &sge;
				s[i].num_sge = 1;
				s[i].next = i < n ? &s[i + 1] : NULL;
			}
			EXPECT("srq_full", xqpv_post_srq_recv(srq, s, &rbad), ENOMEM);
			EXPECT_INT("srq_full_bad_is_last", rbad == &s[n], 1);
			sge.length = 8;
			s[0].num_sge = 2;	/* max_sge 1 */
			s[0].next = NULL;
			EXPECT("srq_too_many_sge", xqpv_post_srq_recv(srq, s, &rbad), EINVAL);
			xqpv_destroy_srq(srq);
			free(s);
		}
	}
	free(rw);
	free(sw);
	ep_close(&a);
	ep_close(&b);
}

/* ---- MRs, CQ resize --------------------------------------------------------- */

static void case_mr_rules(void)
{
	struct ep a;
	static unsigned char buf[8192] __attribute__((aligned(4096)));
	struct xqpv_mr *mr;

	ep_open(&a, g_dev, 16);
	EXPECT("remote_write_no_local", PERR(xqpv_reg_mr(a.pd, buf, sizeof(buf),
							 XQPV_ACCESS_REMOTE_WRITE)), EINVAL);
	EXPECT("atomic_no_local", PERR(xqpv_reg_mr(a.pd, buf, sizeof(buf),
						   XQPV_ACCESS_REMOTE_ATOMIC)), EINVAL);
	EXPECT("unknown_bit", PERR(xqpv_reg_mr(a.pd, buf, sizeof(buf), 1 << 30)), EINVAL);
	EXPECT("iova_offset", PERR(xqpv_reg_mr_iova(a.pd, buf + 8, 64, 0x10000, 0)), EINVAL);
	EXPECT("unmapped", PERR(xqpv_reg_mr(a.pd, (void *)(uintptr_t)0x1000, 4096, 0)), EFAULT);
	mr = xqpv_reg_mr_iova(a.pd, buf + 8, 64, 0x10008, XQPV_ACCESS_LOCAL_WRITE);
	EXPECT("iova_ok", PERR(mr), 0);
	if (mr) {
		EXPECT_INT("lkey_is_rkey", mr->lkey == mr->rkey, 1);
		EXPECT_INT("key_nonzero", mr->lkey != 0, 1);
		EXPECT_INT("key_distinct", mr->lkey != a.mr->lkey, 1);
		EXPECT("pd_busy", xqpv_dealloc_pd(a.pd), EBUSY);
		EXPECT("dereg", xqpv_dereg_mr(mr), 0);
	}
	{
		struct ib_uverbs_dereg_mr d = { .mr_handle = 12345 };

		EXPECT("dereg_unknown", raw_cmd(a.ctx->cmd_fd, IB_USER_VERBS_CMD_DEREG_MR, &d,
						sizeof(d), -1, 0), ENOENT);
	}
	ep_close(&a);
}

static void case_resize_cq(void)
{
	struct ep a, b;

	rc_pair(&a, &b, NULL, 4, 8, 8);
	EXPECT_INT("created", b.cq->cqe, 7);
	EXPECT("grow", xqpv_resize_cq(b.cq, 20), 0);
	EXPECT_INT("grown", b.cq->cqe, 31);
	for (int i = 0; i < 5; i++)
		EXPECT("write", send_to(&b, &a, XQPV_WR_RDMA_WRITE, b.mr->lkey, (uintptr_t)b.buf, 16,
					a.mr->rkey, a.mr->iova, 80 + (uint64_t)i), 0);
	usleep(200 * 1000);
	EXPECT("below_queued", xqpv_resize_cq(b.cq, 2), EINVAL);
	EXPECT("over_max", xqpv_resize_cq(b.cq, 1 << 30), EINVAL);
	EXPECT("shrink_to_queued", xqpv_resize_cq(b.cq, 5), 0);
	EXPECT_INT("shrunk", b.cq->cqe, 7);
	{
		struct xqpv_wc wc[8];
		int n = poll_n(b.cq, wc, 5, 2000), order = 1;

		EXPECT_INT("kept_all", n, 5);
		for (int i = 0; i < n; i++)
			order &= wc[i].wr_id == 80 + (uint64_t)i;
		EXPECT_INT("kept_order", order, 1);
	}
	ep_close(&a);
	ep_close(&b);
}

const struct acc_case acc_cases_errors[] = {
	{ "dp_err_rnr", case_rnr, NULL, ACC_XQP_ONLY },
	{ "dp_err_bad_lkey", case_bad_lkey, NULL, ACC_XQP_ONLY },
	{ "dp_err_bad_rkey", case_bad_rkey, NULL, ACC_XQP_ONLY },
	{ "dp_err_no_remote_access", case_no_remote_access, NULL, ACC_XQP_ONLY },
	{ "dp_err_too_long", case_too_long, NULL, ACC_XQP_ONLY },
	{ "dp_err_xrc_wrong_srq", case_xrc_wrong_srq, NULL, ACC_XQP_ONLY },
	{ "dp_err_flush", case_flush, NULL, ACC_XQP_ONLY },
	{ "dp_err_last_wqe_reached", case_last_wqe, NULL, ACC_XQP_ONLY },
	{ "dp_err_srq_limit", case_srq_limit, NULL, ACC_XQP_ONLY },
	{ "dp_err_work_event_dropped", case_work_event_dropped, NULL, ACC_XQP_ONLY },
	{ "dp_err_cq_overrun", case_cq_overrun, NULL, ACC_XQP_ONLY },
	{ "dp_post_wrong_state", case_wrong_state, NULL, ACC_XQP_ONLY },
	{ "dp_post_queue_full", case_queue_full, NULL, ACC_XQP_ONLY },
	{ "dp_mr_rules", case_mr_rules, NULL, ACC_XQP_ONLY },
	{ "dp_resize_cq", case_resize_cq, NULL, ACC_XQP_ONLY },
	{ NULL, NULL, NULL, 0 },
};
