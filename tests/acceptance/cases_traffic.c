// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Traffic between the two soft devices (/dev/xqp/uverbs0 and uverbs1) over
 * RC, UC, UD and XRC: every opcode the QP type has, the data checked and
 * every completion field of docs/datapath.md. xqp only: Linux's reference
 * device moves no data.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traffic.h"

#define R_OFF 0		/* receiver's area in its buffer */
#define S_OFF 32768	/* sender's area in its buffer */
#define ATOM_OFF 16384	/* 8-byte aligned, in the receiver's area */

/* A direction of traffic: @s sends to @r. */
struct path {
	const char *tag;
	struct ep *s, *r;
	enum xqpv_qp_type type;
	struct xqpv_srq *srq;	/* XRC: the receive side's SRQ */
	struct xqpv_ah *ah;	/* UD */
	uint32_t qkey;
};

static void expect_f(const struct path *p, const char *what, const char *field,
		     long long got, long long want)
{
	char name[160];

	snprintf(name, sizeof(name), "%s_%s_%s", p->tag, what, field);
	acc_expect_int(name, got, want, __FILE__, __LINE__);
}

static const char *op_name(int op, int inl)
{
	static const char *const n[] = { "write", "write_imm", "send", "send_imm", "read",
					 "cmp_swap", "fetch_add" };

	return inl ? "send_inline" : n[op];
}

static int post_r(const struct path *p, uint64_t wr_id, void *addr, uint32_t len)
{
	if (p->srq)
		return post_srq1(p->srq, wr_id, addr, len, p->r->mr->lkey);
	return post_recv1(p->r->qp, wr_id, addr, len, p->r->mr->lkey);
}

/* The receive completion's fields (docs/datapath.md "Completions"). */
static void check_recv_wc(const struct path *p, const char *what, const struct xqpv_wc *wc,
			  uint64_t wr_id, int opcode, uint32_t len, int imm, uint32_t imm_data)
{
	expect_f(p, what, "r_status", wc->status, XQPV_WC_SUCCESS);
	expect_f(p, what, "r_opcode", wc->opcode, opcode);
	expect_f(p, what, "r_wr_id", (long long)wc->wr_id, (long long)wr_id);
	expect_f(p, what, "r_byte_len", wc->byte_len, len);
	expect_f(p, what, "r_flags", wc->wc_flags, imm ? XQPV_WC_WITH_IMM : 0);
	if (imm)
		expect_f(p, what, "r_imm", wc->imm_data, imm_data);
	expect_f(p, what, "r_qp_num_is_receiver", wc->qp_num == p->r->qp->qp_num, 1);
	expect_f(p, what, "r_src_qp_is_sender", wc->src_qp == p->s->qp->qp_num, 1);
	expect_f(p, what, "r_slid_is_sender", wc->slid == p->s->lid, 1);
	expect_f(p, what, "r_sl", wc->sl, 0);
	expect_f(p, what, "r_pkey_index", wc->pkey_index, 0);
	expect_f(p, what, "r_port", wc->port_num, 1);
	expect_f(p, what, "r_path_bits", wc->dlid_path_bits, 0);
}

static void check_send_wc(const struct path *p, const char *what, const struct xqpv_wc *wc,
			  uint64_t wr_id, int opcode, uint32_t len)
{
	expect_f(p, what, "s_status", wc->status, XQPV_WC_SUCCESS);
	expect_f(p, what, "s_opcode", wc->opcode, opcode);
	expect_f(p, what, "s_wr_id", (long long)wc->wr_id, (long long)wr_id);
	expect_f(p, what, "s_byte_len", wc->byte_len, len);
	expect_f(p, what, "s_qp_num_is_sender", wc->qp_num == p->s->qp->qp_num, 1);
}

static int send_opcode_wc(int op)
{
	switch (op) {
	case XQPV_WR_RDMA_WRITE:
	case XQPV_WR_RDMA_WRITE_WITH_IMM:
		return XQPV_WC_RDMA_WRITE;
	case XQPV_WR_RDMA_READ:
		return XQPV_WC_RDMA_READ;
	case XQPV_WR_ATOMIC_CMP_AND_SWP:
		return XQPV_WC_COMP_SWAP;
	case XQPV_WR_ATOMIC_FETCH_AND_ADD:
		return XQPV_WC_FETCH_ADD;
	default:
		return XQPV_WC_SEND;
	}
}

/* One message of opcode @op (@inl: inline SEND), iteration @it. */
static void run_op(const struct path *p, int op, int inl, unsigned int it)
{
	const char *what = op_name(op, inl);
	unsigned char *rb = p->r->buf + R_OFF, *sb = p->s->buf + S_OFF;
	uint32_t len = inl ? 48 : 1000 + it * 13;
	uint32_t grh = p->type == XQPV_QPT_UD ? 40 : 0;
	uint64_t remote = p->r->mr->iova + R_OFF;
	unsigned char inline_data[64];
	uint32_t imm = htonl(0xabc00000u + it);
	int has_recv = op == XQPV_WR_SEND || op == XQPV_WR_SEND_WITH_IMM ||
		       op == XQPV_WR_RDMA_WRITE_WITH_IMM;
	struct xqpv_sge sge = { (uintptr_t)sb, len, p->s->mr->lkey };
	struct xqpv_send_wr wr = {
		.wr_id = 0x5000 + it, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = XQPV_SEND_SIGNALED | (inl ? XQPV_SEND_INLINE : 0),
		.imm_data = imm,
	};
	struct xqpv_wc wc;
	uint64_t *atom = (uint64_t *)(void *)(p->r->buf + ATOM_OFF);
	uint64_t *res = (uint64_t *)(void *)sb;
	int err;

	memset(rb, 0xee, 8192);
	memset(sb, 0, 8192);
	fill(sb, len, it);
	if (inl) {
		fill(inline_data, len, it);
		memset(sb, 0, len);	/* must come from inline_data */
		sge.addr = (uintptr_t)inline_data;
		sge.lkey = 0;
	}
	if (has_recv) {
		err = post_r(p, 0x7000 + it, rb, 4096);
		expect_f(p, what, "post_recv", err, 0);
	}
	switch (op) {
	case XQPV_WR_RDMA_WRITE:
	case XQPV_WR_RDMA_WRITE_WITH_IMM:
		wr.wr.rdma.remote_addr = remote + 4096;
		wr.wr.rdma.rkey = p->r->mr->rkey;
		break;
	case XQPV_WR_RDMA_READ:
		fill(rb + 4096, len, it + 100);
		wr.wr.rdma.remote_addr = remote + 4096;
		wr.wr.rdma.rkey = p->r->mr->rkey;
		break;
	case XQPV_WR_ATOMIC_CMP_AND_SWP:
	case XQPV_WR_ATOMIC_FETCH_AND_ADD:
		*atom = 1000 + it;
		sge.length = len = 8;
		wr.wr.atomic.remote_addr = p->r->mr->iova + ATOM_OFF;
		wr.wr.atomic.rkey = p->r->mr->rkey;
		wr.wr.atomic.compare_add = op == XQPV_WR_ATOMIC_CMP_AND_SWP ? 1000 + it : 5;
		wr.wr.atomic.swap = 77;
		break;
	default:
		if (p->type == XQPV_QPT_UD) {
			wr.wr.ud.ah = p->ah;
			wr.wr.ud.remote_qpn = p->r->qp->qp_num;
			wr.wr.ud.remote_qkey = p->qkey;
		}
		break;
	}
	if (p->srq)
		wr.qp_type.xrc.remote_srqn = p->srq->srq_num;
	err = post_send1(p->s->qp, &wr);
	expect_f(p, what, "post_send", err, 0);
	if (err)
		return;
	if (poll_one(p->s->cq, &wc, 5000, what))
		check_send_wc(p, what, &wc, wr.wr_id, send_opcode_wc(op),
			      op >= XQPV_WR_ATOMIC_CMP_AND_SWP ? 8 : len);
	if (has_recv && poll_one(p->r->cq, &wc, 5000, what)) {
		int rop = op == XQPV_WR_RDMA_WRITE_WITH_IMM ? XQPV_WC_RECV_RDMA_WITH_IMM :
			  XQPV_WC_RECV;
		int with_imm = op != XQPV_WR_SEND;

		check_recv_wc(p, what, &wc, 0x7000 + it, rop,
			      len + (op == XQPV_WR_RDMA_WRITE_WITH_IMM ? 0 : grh), with_imm, imm);
	}
	/* the data */
	switch (op) {
	case XQPV_WR_SEND:
	case XQPV_WR_SEND_WITH_IMM:
		expect_f(p, what, "data", check_fill(rb + grh, len, it), 1);
		expect_f(p, what, "no_overrun", rb[grh + len] == 0xee, 1);
		break;
	case XQPV_WR_RDMA_WRITE:
	case XQPV_WR_RDMA_WRITE_WITH_IMM:
		expect_f(p, what, "data", check_fill(rb + 4096, len, it), 1);
		expect_f(p, what, "no_overrun", rb[4096 + len] == 0xee, 1);
		if (op == XQPV_WR_RDMA_WRITE_WITH_IMM)
			expect_f(p, what, "recv_buf_untouched", rb[0] == 0xee && rb[100] == 0xee, 1);
		break;
	case XQPV_WR_RDMA_READ:
		expect_f(p, what, "data", check_fill(sb, len, it + 100), 1);
		break;
	case XQPV_WR_ATOMIC_CMP_AND_SWP:
		expect_f(p, what, "old", (long long)*res, 1000 + it);
		expect_f(p, what, "new", (long long)*atom, 77);
		break;
	case XQPV_WR_ATOMIC_FETCH_AND_ADD:
		expect_f(p, what, "old", (long long)*res, 1000 + it);
		expect_f(p, what, "new", (long long)*atom, 1005 + it);
		break;
	}
}

/* A compare that does not match: the old value comes back, nothing swapped. */
static void run_cas_miss(const struct path *p)
{
	uint64_t *atom = (uint64_t *)(void *)(p->r->buf + ATOM_OFF);
	uint64_t *res = (uint64_t *)(void *)(p->s->buf + S_OFF);
	struct xqpv_sge sge = { (uintptr_t)res, 8, p->s->mr->lkey };
	struct xqpv_send_wr wr = {
		.wr_id = 99, .sg_list = &sge, .num_sge = 1, .opcode = XQPV_WR_ATOMIC_CMP_AND_SWP,
		.send_flags = XQPV_SEND_SIGNALED,
	};
	struct xqpv_wc wc;

	*atom = 42;
	*res = 0;
	wr.wr.atomic.remote_addr = p->r->mr->iova + ATOM_OFF;
	wr.wr.atomic.rkey = p->r->mr->rkey;
	wr.wr.atomic.compare_add = 41;
	wr.wr.atomic.swap = 7;
	if (p->srq)
		wr.qp_type.xrc.remote_srqn = p->srq->srq_num;
	expect_f(p, "cas_miss", "post", post_send1(p->s->qp, &wr), 0);
	if (poll_one(p->s->cq, &wc, 5000, "cas_miss"))
		expect_f(p, "cas_miss", "status", wc.status, XQPV_WC_SUCCESS);
	expect_f(p, "cas_miss", "old", (long long)*res, 42);
	expect_f(p, "cas_miss", "unchanged", (long long)*atom, 42);
}

static void run_all(const struct path *p, int rounds)
{
	for (int r = 0; r < rounds; r++) {
		for (int op = XQPV_WR_RDMA_WRITE; op <= XQPV_WR_ATOMIC_FETCH_AND_ADD; op++) {
			int allowed = p->type == XQPV_QPT_RC || p->type == XQPV_QPT_XRC_SEND ||
				      (p->type == XQPV_QPT_UC && op <= XQPV_WR_SEND_WITH_IMM) ||
				      (p->type == XQPV_QPT_UD && (op == XQPV_WR_SEND ||
								op == XQPV_WR_SEND_WITH_IMM));

			if (allowed)
				run_op(p, op, 0, (unsigned int)(r * 10 + op));
		}
		run_op(p, XQPV_WR_SEND, 1, (unsigned int)(r * 10 + 9));
	}
}

/* An opcode the QP type lacks: EINVAL, bad_wr at it, the one before posted. */
static void refuse_op(const struct path *p, int op)
{
	unsigned char *sb = p->s->buf + S_OFF;
	struct xqpv_sge sge = { (uintptr_t)sb, 8, p->s->mr->lkey };
	struct xqpv_send_wr w[2], *bad = NULL;
	struct xqpv_wc wc;
	char what[32];

	snprintf(what, sizeof(what), "refuse_%s", op_name(op, 0));
	memset(w, 0, sizeof(w));
	for (int i = 0; i < 2; i++) {
		w[i].wr_id = 900 + (uint64_t)i;
		w[i].sg_list = &sge;
		w[i].num_sge = 1;
		w[i].send_flags = XQPV_SEND_SIGNALED;
		w[i].wr.rdma.remote_addr = p->r->mr->iova;
		w[i].wr.rdma.rkey = p->r->mr->rkey;
	}
	/* the first: an RDMA WRITE (UC) / a SEND to nobody (UD), both fine */
	w[0].opcode = p->type == XQPV_QPT_UD ? XQPV_WR_SEND : XQPV_WR_RDMA_WRITE;
	if (p->type == XQPV_QPT_UD) {
		w[0].wr.ud.ah = p->ah;
		w[0].wr.ud.remote_qpn = 0xfffffe;
		w[0].wr.ud.remote_qkey = p->qkey;
		w[1].wr.ud.ah = p->ah;
	}
	w[0].next = &w[1];
	w[1].opcode = op;
	expect_f(p, what, "err", xqpv_post_send(p->s->qp, w, &bad), EINVAL);
	if (p->type == XQPV_QPT_UD) {
		/* uverbs refuses a UD WR that is not a SEND while copying the
		 * list in (ib_uverbs_post_send()): nothing is posted */
		expect_f(p, what, "bad_wr_is_first", bad == &w[0], 1);
		expect_f(p, what, "none_posted", poll_n(p->s->cq, &wc, 1, 200), 0);
		return;
	}
	expect_f(p, what, "bad_wr_is_second", bad == &w[1], 1);
	if (poll_one(p->s->cq, &wc, 5000, what))
		expect_f(p, what, "first_completed", (long long)wc.wr_id, 900);
}

static void case_rc(void)
{
	struct ep a, b;
	struct path p1 = { .tag = "rc10", .type = XQPV_QPT_RC, .s = &b, .r = &a };
	struct path p2 = { .tag = "rc01", .type = XQPV_QPT_RC, .s = &a, .r = &b };

	ep_open(&a, g_dev, 64);
	ep_open(&b, second_dev(), 64);
	EXPECT_INT("lid0", a.lid, 1);
	EXPECT_INT("lid1", b.lid, 2);
	a.qp = ep_qp(&a, XQPV_QPT_RC, NULL, 16, 16);
	b.qp = ep_qp(&b, XQPV_QPT_RC, NULL, 16, 16);
	CHECK(a.qp && b.qp, "create: %s", errname(errno));
	if (!a.qp || !b.qp)
		return;
	connect_pair(&a, &b, NULL);
	run_all(&p1, 3);
	run_all(&p2, 1);
	run_cas_miss(&p1);
	ep_close(&a);
	ep_close(&b);
}

static void case_uc(void)
{
	struct ep a, b;
	struct path p = { .tag = "uc", .type = XQPV_QPT_UC, .s = &b, .r = &a };

	ep_open(&a, g_dev, 64);
	ep_open(&b, second_dev(), 64);
	a.qp = ep_qp(&a, XQPV_QPT_UC, NULL, 16, 16);
	b.qp = ep_qp(&b, XQPV_QPT_UC, NULL, 16, 16);
	CHECK(a.qp && b.qp, "create: %s", errname(errno));
	if (!a.qp || !b.qp)
		return;
	connect_pair(&a, &b, NULL);
	run_all(&p, 2);
	refuse_op(&p, XQPV_WR_RDMA_READ);
	refuse_op(&p, XQPV_WR_ATOMIC_CMP_AND_SWP);
	refuse_op(&p, XQPV_WR_ATOMIC_FETCH_AND_ADD);
	ep_close(&a);
	ep_close(&b);
}

static void case_ud(void)
{
	struct ep a, b;
	struct path p = { .tag = "ud", .type = XQPV_QPT_UD, .s = &b, .r = &a, .qkey = 0x1234 };
	struct xqpv_ah_attr aa = { .dlid = 1, .port_num = 1 };
	struct xqpv_ah_attr bad_port = { .dlid = 1, .port_num = 2 };
	struct xqpv_send_wr w = { .opcode = XQPV_WR_SEND };

	ep_open(&a, g_dev, 64);
	ep_open(&b, second_dev(), 64);
	a.qp = ep_qp(&a, XQPV_QPT_UD, NULL, 16, 16);
	b.qp = ep_qp(&b, XQPV_QPT_UD, NULL, 16, 16);
	CHECK(a.qp && b.qp, "create: %s", errname(errno));
	if (!a.qp || !b.qp)
		return;
	EXPECT("ud_up_a", qp_ud_up(a.qp, p.qkey), 0);
	EXPECT("ud_up_b", qp_ud_up(b.qp, p.qkey), 0);
	EXPECT("ah_bad_port", PERR(xqpv_create_ah(b.pd, &bad_port)), EINVAL);
	aa.dlid = a.lid;
	p.ah = xqpv_create_ah(b.pd, &aa);
	EXPECT("ah", PERR(p.ah), 0);
	if (!p.ah)
		return;
	run_all(&p, 2);
	refuse_op(&p, XQPV_WR_RDMA_WRITE);
	refuse_op(&p, XQPV_WR_RDMA_READ);
	/* no AH: refused by the library before the kernel sees it */
	EXPECT("ud_no_ah", post_send1(b.qp, &w), EINVAL);
	/* a wrong Q_Key: dropped silently */
	{
		struct xqpv_sge sge = { (uintptr_t)b.buf, 16, b.mr->lkey };
		struct xqpv_send_wr s = { .wr_id = 5, .sg_list = &sge, .num_sge = 1,
					 .opcode = XQPV_WR_SEND, .send_flags = XQPV_SEND_SIGNALED };
		struct xqpv_wc wc;

		s.wr.ud.ah = p.ah;
		s.wr.ud.remote_qpn = a.qp->qp_num;
		s.wr.ud.remote_qkey = p.qkey + 1;
		EXPECT("post_recv", post_recv1(a.qp, 6, a.buf, 4096, a.mr->lkey), 0);
		EXPECT("wrong_qkey_post", post_send1(b.qp, &s), 0);
		if (poll_one(b.cq, &wc, 5000, "wrong_qkey"))
			EXPECT_INT("wrong_qkey_sender_ok", wc.status, XQPV_WC_SUCCESS);
		EXPECT_INT("wrong_qkey_nothing_received", poll_n(a.cq, &wc, 1, 300), 0);
	}
	EXPECT("destroy_ah", xqpv_destroy_ah(p.ah), 0);
	ep_close(&a);
	ep_close(&b);
}

static void case_xrc(void)
{
	struct ep t, i;
	struct path p = { .tag = "xrc", .type = XQPV_QPT_XRC_SEND, .s = &i, .r = &t };
	struct path q = { .tag = "xrc_srq1", .type = XQPV_QPT_XRC_SEND, .s = &i, .r = &t };
	struct xqpv_wc wc;

	ep_open(&t, g_dev, 64);
	ep_open(&i, second_dev(), 64);
	xrc_setup(&t, &i, 16, NULL);
	p.srq = t.srq[0];
	q.srq = t.srq[1];
	CHECK(t.srq[0]->srq_num != t.srq[1]->srq_num, "two SRQs, one number");
	run_all(&p, 2);
	run_all(&q, 1);
	run_cas_miss(&p);
	/* a message for SRQ 1 does not consume SRQ 0's WRs */
	EXPECT("srq0_post", post_srq1(t.srq[0], 1, t.buf, 256, t.mr->lkey), 0);
	{
		struct xqpv_sge sge = { (uintptr_t)i.buf + S_OFF, 32, i.mr->lkey };
		struct xqpv_send_wr s = { .wr_id = 2, .sg_list = &sge, .num_sge = 1,
					 .opcode = XQPV_WR_SEND, .send_flags = XQPV_SEND_SIGNALED };

		s.qp_type.xrc.remote_srqn = t.srq[1]->srq_num;
		EXPECT("srq1_post", post_srq1(t.srq[1], 3, t.buf + 1024, 256, t.mr->lkey), 0);
		EXPECT("send_to_srq1", post_send1(i.qp, &s), 0);
		if (poll_one(i.cq, &wc, 5000, "send_to_srq1"))
			EXPECT_INT("send_to_srq1_status", wc.status, XQPV_WC_SUCCESS);
		if (poll_one(t.cq, &wc, 5000, "recv_srq1"))
			EXPECT_INT("recv_srq1_wr_id", (long long)wc.wr_id, 3);
	}
	/* post_send on the XRC target QP: EINVAL; post_recv on either: EINVAL */
	{
		struct xqpv_send_wr s = { .opcode = XQPV_WR_SEND }, *bad = NULL;

		EXPECT("tgt_post_send", xqpv_post_send(t.qp, &s, &bad), EINVAL);
		EXPECT_INT("tgt_post_send_bad_wr", bad == &s, 1);
		EXPECT("tgt_post_recv", post_recv1(t.qp, 1, t.buf, 64, t.mr->lkey), EINVAL);
		EXPECT("ini_post_recv", post_recv1(i.qp, 1, i.buf, 64, i.mr->lkey), EINVAL);
	}
	ep_close(&i);
	ep_close(&t);
}

/* The third process's view: a target QP opened by number receives too. */
struct opener_arg {
	struct chan to, from;
};

static void xrc_opener(void *arg)
{
	struct opener_arg *o = arg;
	struct xqpv_context *ctx = open_ctx();
	int err;
	const char *path = case_file("xrcd");
	struct xqpv_xrcd *x = open_xrcd_path(ctx, path, 0, &err);
	struct xqpv_pd *pd = xqpv_alloc_pd(ctx);
	struct xqpv_cq *cq = xqpv_create_cq(ctx, 8, NULL, NULL, 0);
	static unsigned char buf[4096] __attribute__((aligned(4096)));
	struct xqpv_mr *mr = pd ? xqpv_reg_mr(pd, buf, sizeof(buf), XQPV_ACCESS_LOCAL_WRITE) : NULL;
	struct xqpv_srq *srq = x && cq && pd ? create_xrc_srq(ctx, pd, x, cq) : NULL;
	uint32_t tgt_qpn = chan_recv(&o->to);
	struct xqpv_qp *h = x ? open_tgt(ctx, x, tgt_qpn, &err) : NULL;
	struct xqpv_wc wc;

	if (!h || !srq || !mr) {
		chan_send(&o->from, 0);
		exit(3);
	}
	EXPECT("opener_post_srq", post_srq1(srq, 77, buf, sizeof(buf), mr->lkey), 0);
	chan_send(&o->from, srq->srq_num);
	if (poll_one(cq, &wc, 5000, "opener_recv")) {
		EXPECT_INT("opener_status", wc.status, XQPV_WC_SUCCESS);
		EXPECT_INT("opener_wr_id", (long long)wc.wr_id, 77);
		EXPECT_INT("opener_qp_num_is_tgt", wc.qp_num == tgt_qpn, 1);
		EXPECT_INT("opener_data", check_fill(buf, 512, 5), 1);
	}
	chan_send(&o->from, 1);
	chan_recv(&o->to);
	xqpv_destroy_qp(h);
	xqpv_destroy_srq(srq);
	xqpv_dereg_mr(mr);
	xqpv_close_device(ctx);
}

static void case_xrc_opened_target(void)
{
	struct opener_arg o;
	struct ep t, i;
	int err;
	const char *path = case_file("xrcd");
	struct xqpv_wc wc;
	uint32_t srqn;
	pid_t pid;

	ep_open(&t, g_dev, 16);
	ep_open(&i, second_dev(), 16);
	t.xrcd = open_xrcd_path(t.ctx, path, O_CREAT, &err);
	t.qp = t.xrcd ? create_tgt(t.ctx, t.xrcd) : NULL;
	i.qp = ep_qp(&i, XQPV_QPT_XRC_SEND, NULL, 8, 0);
	CHECK(t.qp && i.qp, "setup: %s", errname(errno));
	if (!t.qp || !i.qp)
		return;
	EXPECT("tgt_connect", qp_connect(t.qp, i.lid, i.qp->qp_num, NULL, 0), 0);
	EXPECT("ini_connect", qp_connect(i.qp, t.lid, t.qp->qp_num, NULL, 1), 0);
	chan_init(&o.to);
	chan_init(&o.from);
	pid = spawn(xrc_opener, &o);
	chan_send(&o.to, t.qp->qp_num);
	srqn = chan_recv(&o.from);
	CHECK(srqn && srqn != 0xffffffffU, "opener failed");
	{
		struct xqpv_sge sge = { (uintptr_t)i.buf, 512, i.mr->lkey };
		struct xqpv_send_wr s = { .wr_id = 8, .sg_list = &sge, .num_sge = 1,
					 .opcode = XQPV_WR_SEND, .send_flags = XQPV_SEND_SIGNALED };

		fill(i.buf, 512, 5);
		s.qp_type.xrc.remote_srqn = srqn;
		EXPECT("send", post_send1(i.qp, &s), 0);
		if (poll_one(i.cq, &wc, 5000, "send"))
			EXPECT_INT("send_status", wc.status, XQPV_WC_SUCCESS);
	}
	EXPECT_INT("opener_received", chan_recv(&o.from), 1);
	/* the creator destroys its handle: the opener's keeps the QP */
	EXPECT("creator_destroy", xqpv_destroy_qp(t.qp), 0);
	t.qp = NULL;
	chan_send(&o.to, 1);
	EXPECT_INT("opener_exit", reap(pid), 0);
	ep_close(&i);
	ep_close(&t);
}

const struct acc_case acc_cases_traffic[] = {
	{ "traffic_rc_all_opcodes", case_rc, NULL, ACC_XQP_ONLY },
	{ "traffic_uc_opcodes", case_uc, NULL, ACC_XQP_ONLY },
	{ "traffic_ud_send", case_ud, NULL, ACC_XQP_ONLY },
	{ "traffic_xrc_all_opcodes", case_xrc, NULL, ACC_XQP_ONLY },
	{ "traffic_xrc_opened_target", case_xrc_opened_target, NULL, ACC_XQP_ONLY },
	{ NULL, NULL, NULL, 0 },
};
