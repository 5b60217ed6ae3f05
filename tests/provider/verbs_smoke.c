// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * xqp-verbs-smoke: what Debian's ibverbs-utils do not exercise, through
 * libibverbs' public API only (so through whatever provider libibverbs
 * loads: in the VM, xqp's), on two xqp devices in one process, every pair
 * connected before anything is sent:
 *  - XRC: an XRC SRQ and XRC_RECV QP on one device, an XRC_SEND QP on the
 *    other, sends built with ibv_qp_ex (wr_set_xrc_srqn, inline data),
 *    completions read with ibv_cq_ex (start/next/end_poll, read_*);
 *  - RC with ibv_qp_ex: RDMA write, write with immediate, read, both
 *    atomics; the memory checked;
 *  - UD with ibv_qp_ex (wr_set_ud_addr); UD multicast (ibv_attach_mcast);
 *  - ibv_poll_cq and ibv_cq_ex mixed on one CQ;
 *  - unsupported requests answered EOPNOTSUPP, among them every ibv_qp_ex
 *    builder and post_send opcode of an op the device does not carry.
 * Usage: xqp-verbs-smoke [DEV0 DEV1]   (default xqp_soft0 xqp_soft1)
 * Prints "PASS name" / "FAIL name: why" and "verbs-smoke: N passed, N failed".
 */
#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "cases.h"
#include "verbs_util.h"

struct dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq_ex *cqx;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	unsigned char *buf;
	uint16_t lid;
};

#define BUF_LEN 65536

static int open_dev(const char *name, struct dev *d)
{
	struct ibv_cq_init_attr_ex ca = { .cqe = 64, .wc_flags = IBV_WC_STANDARD_FLAGS };

	memset(d, 0, sizeof(*d));
	d->ctx = stress_open_ctx(name, &d->lid);
	if (!d->ctx)
		return -1;
	d->pd = ibv_alloc_pd(d->ctx);
	d->cqx = ibv_create_cq_ex(d->ctx, &ca);
	if (!d->pd || !d->cqx)
		return -1;
	d->cq = ibv_cq_ex_to_cq(d->cqx);
	if (posix_memalign((void **)&d->buf, 4096, BUF_LEN))
		return -1;
	memset(d->buf, 0, BUF_LEN);
	d->mr = ibv_reg_mr(d->pd, d->buf, BUF_LEN,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC);
	return d->mr ? 0 : -1;
}

/* Polls @cq with ibv_poll_cq until @n completions (or 5 s). */
static int poll_n(struct ibv_cq *cq, struct ibv_wc *wc, int n)
{
	return stress_poll(cq, wc, n, 5000);
}

/* The ibv_cq_ex poller, until @n completions (or 5 s); records what read_* says. */
struct exwc {
	uint64_t wr_id;
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode;
	uint32_t byte_len, qp_num, src_qp, slid;
	unsigned int flags;
	__be32 imm;
};

static int poll_ex_n(struct ibv_cq_ex *cq, struct exwc *out, int n)
{
	struct ibv_poll_cq_attr pa = { 0 };
	uint64_t end = stress_now_ms() + 5000;
	int got = 0, ret;

	while (got < n) {
		ret = ibv_start_poll(cq, &pa);
		if (ret == ENOENT) {
			if (stress_now_ms() > end)
				break;
			continue;
		}
		if (ret)
			return -1;
		do {
			struct exwc *e = &out[got++];

			e->wr_id = cq->wr_id;
			e->status = cq->status;
			e->opcode = ibv_wc_read_opcode(cq);
			e->byte_len = ibv_wc_read_byte_len(cq);
			e->qp_num = ibv_wc_read_qp_num(cq);
			e->src_qp = ibv_wc_read_src_qp(cq);
			e->slid = ibv_wc_read_slid(cq);
			e->flags = ibv_wc_read_wc_flags(cq);
			e->imm = ibv_wc_read_imm_data(cq);
		} while (got < n && (ret = ibv_next_poll(cq)) == 0);
		ibv_end_poll(cq);
		if (ret && ret != ENOENT)
			return -1;
	}
	return got;
}

static void test_xrc(struct dev *a, struct dev *b)
{
	struct ibv_xrcd_init_attr xa = { .comp_mask = IBV_XRCD_INIT_ATTR_FD |
						      IBV_XRCD_INIT_ATTR_OFLAGS,
					 .fd = -1, .oflags = O_CREAT };
	struct ibv_xrcd *xrcd = ibv_open_xrcd(b->ctx, &xa);
	struct ibv_srq_init_attr_ex sa = {
		.attr = { .max_wr = 16, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_XRCD |
			     IBV_SRQ_INIT_ATTR_CQ | IBV_SRQ_INIT_ATTR_PD,
		.srq_type = IBV_SRQT_XRC, .xrcd = xrcd, .cq = b->cq, .pd = b->pd,
	};
	struct ibv_srq *srq = xrcd ? ibv_create_srq_ex(b->ctx, &sa) : NULL;
	struct ibv_qp_init_attr_ex ta = { .qp_type = IBV_QPT_XRC_RECV,
					  .comp_mask = IBV_QP_INIT_ATTR_XRCD, .xrcd = xrcd };
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = IBV_QPT_XRC_SEND, .send_cq = a->cq, .pd = a->pd,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_IMM,
		.cap = { .max_send_wr = 16, .max_send_sge = 1, .max_inline_data = 64 },
	};
	struct ibv_qp *tgt = NULL, *ini = NULL;
	struct ibv_qp_ex *x;
	struct exwc e[4];
	struct ibv_wc wc[4];
	uint32_t srqn = 0;
	int i, n;

	CASE("xrc_setup", xrcd && srq && ibv_get_srq_num(srq, &srqn) == 0,
	     "xrcd %p srq %p: %s", (void *)xrcd, (void *)srq, strerror(errno));
	if (!srq)
		return;
	tgt = ibv_create_qp_ex(b->ctx, &ta);
	ini = ibv_create_qp_ex(a->ctx, &ia);
	x = ini ? ibv_qp_to_qp_ex(ini) : NULL;
	CASE("xrc_qps", tgt && ini && x, "tgt %p ini %p: %s", (void *)tgt, (void *)ini,
	     strerror(errno));
	if (!x)
		return;
	if (stress_to_init(tgt, 0) || stress_to_init(ini, 0) ||
	    stress_connect(tgt, a->lid, ini->qp_num, true) ||
	    stress_connect(ini, b->lid, tgt->qp_num, false)) {
		CASE("xrc_connect", 0, "%s", strerror(errno));
		return;
	}
	for (i = 0; i < 3; i++) {
		struct ibv_sge s = { .addr = (uintptr_t)b->buf + i * 4096, .length = 4096,
				     .lkey = b->mr->lkey };
		struct ibv_recv_wr r = { .wr_id = 100 + i, .sg_list = &s, .num_sge = 1 }, *bad;

		if (ibv_post_srq_recv(srq, &r, &bad)) {
			CASE("xrc_post_srq_recv", 0, "%s", strerror(errno));
			return;
		}
	}
	memcpy(a->buf, "xrc via ibv_qp_ex", 18);
	ibv_wr_start(x);
	x->wr_id = 1;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send(x);
	ibv_wr_set_xrc_srqn(x, srqn);
	ibv_wr_set_sge(x, a->mr->lkey, (uintptr_t)a->buf, 18);
	x->wr_id = 2;
	ibv_wr_send_imm(x, htobe32(0x1234));
	ibv_wr_set_xrc_srqn(x, srqn);
	{
		char msg[16] = "inline-xrc";

		ibv_wr_set_inline_data(x, msg, 11);
		memset(msg, 0, sizeof(msg));	/* copied at the call */
	}
	n = ibv_wr_complete(x);
	CASE("xrc_wr_complete", n == 0, "%s", strerror(n));
	n = poll_n(a->cq, wc, 2);
	CASE("xrc_send_completions", n == 2 && wc[0].status == IBV_WC_SUCCESS &&
	     wc[1].status == IBV_WC_SUCCESS && wc[0].opcode == IBV_WC_SEND && wc[0].wr_id == 1,
	     "%d completions, status %d/%d", n, n > 0 ? (int)wc[0].status : -1,
	     n > 1 ? (int)wc[1].status : -1);
	n = poll_ex_n(b->cqx, e, 2);
	CASE("xrc_recv_cq_ex", n == 2 && e[0].status == IBV_WC_SUCCESS && e[0].wr_id == 100 &&
	     e[0].opcode == IBV_WC_RECV && e[0].byte_len == 18 && e[0].qp_num == tgt->qp_num &&
	     e[0].src_qp == ini->qp_num && e[0].slid == a->lid && !(e[0].flags & IBV_WC_WITH_IMM) &&
	     e[1].wr_id == 101 && e[1].byte_len == 11 && (e[1].flags & IBV_WC_WITH_IMM) &&
	     e[1].imm == htobe32(0x1234),
	     "%d completions; [0] status %d wr_id %llu len %u qp %x/%x src %x flags %x", n,
	     n ? (int)e[0].status : -1, n ? (unsigned long long)e[0].wr_id : 0, n ? e[0].byte_len : 0,
	     n ? e[0].qp_num : 0, tgt->qp_num, n ? e[0].src_qp : 0, n ? e[0].flags : 0);
	CASE("xrc_data", !memcmp(b->buf, "xrc via ibv_qp_ex", 18) &&
	     !memcmp(b->buf + 4096, "inline-xrc", 11), "received bytes differ");

	/* plain ibv_post_send with the remote SRQ number too */
	{
		struct ibv_sge s = { .addr = (uintptr_t)a->buf, .length = 5, .lkey = a->mr->lkey };
		struct ibv_send_wr w = { .wr_id = 3, .sg_list = &s, .num_sge = 1,
					 .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED },
				   *bad;

		w.qp_type.xrc.remote_srqn = srqn;
		memcpy(a->buf, "plain", 5);
		n = ibv_post_send(ini, &w, &bad);
		CASE("xrc_post_send", n == 0 && poll_n(a->cq, wc, 1) == 1 &&
		     wc[0].status == IBV_WC_SUCCESS && poll_n(b->cq, wc, 1) == 1 &&
		     wc[0].status == IBV_WC_SUCCESS && wc[0].byte_len == 5 &&
		     !memcmp(b->buf + 8192, "plain", 5), "post %d, status %d", n, wc[0].status);
	}
	CASE("xrc_teardown", !ibv_destroy_qp(ini) && !ibv_destroy_qp(tgt) &&
	     !ibv_destroy_srq(srq) && !ibv_close_xrcd(xrcd), "%s", strerror(errno));
}

static void test_rc(struct dev *a, struct dev *b)
{
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = IBV_QPT_RC, .send_cq = a->cq, .recv_cq = a->cq, .pd = a->pd,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM |
				  IBV_QP_EX_WITH_RDMA_READ | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
				  IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD | IBV_QP_EX_WITH_SEND,
		.cap = { .max_send_wr = 16, .max_recv_wr = 16, .max_send_sge = 2,
			 .max_recv_sge = 1 },
	};
	struct ibv_qp_init_attr ib = {
		.qp_type = IBV_QPT_RC, .send_cq = b->cq, .recv_cq = b->cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 16, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qa = ibv_create_qp_ex(a->ctx, &ia), *qb = ibv_create_qp(b->pd, &ib);
	struct ibv_qp_ex *x = qa ? ibv_qp_to_qp_ex(qa) : NULL;
	const int acc = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
			IBV_ACCESS_REMOTE_ATOMIC;
	uint64_t rb = (uintptr_t)b->buf;
	struct ibv_sge two[2];
	struct ibv_wc wc[8];
	uint64_t *counter = (uint64_t *)(b->buf + 32768);
	int n, ret;

	CASE("rc_qp_ex_create", x && qb, "%s", strerror(errno));
	if (!x || !qb)
		return;
	if (stress_to_init(qa, acc) || stress_to_init(qb, acc) ||
	    stress_connect(qa, b->lid, qb->qp_num, false) ||
	    stress_connect(qb, a->lid, qa->qp_num, false)) {
		CASE("rc_connect", 0, "%s", strerror(errno));
		return;
	}
	{
		struct ibv_sge s = { .addr = (uintptr_t)b->buf + 49152, .length = 64,
				     .lkey = b->mr->lkey };
		struct ibv_recv_wr r = { .wr_id = 77, .sg_list = &s, .num_sge = 1 }, *bad;

		ibv_post_recv(qb, &r, &bad);
	}
	memset(a->buf, 0, BUF_LEN);
	memcpy(a->buf, "first-", 6);
	memcpy(a->buf + 100, "second", 6);
	*counter = 40;
	two[0] = (struct ibv_sge){ .addr = (uintptr_t)a->buf, .length = 6, .lkey = a->mr->lkey };
	two[1] = (struct ibv_sge){ .addr = (uintptr_t)a->buf + 100, .length = 6,
				   .lkey = a->mr->lkey };
	memcpy(b->buf + 1024, "remote-data", 11);

	ibv_wr_start(x);
	x->wr_flags = IBV_SEND_SIGNALED;
	x->wr_id = 1;
	ibv_wr_rdma_write(x, b->mr->rkey, rb);
	ibv_wr_set_sge_list(x, 2, two);
	x->wr_id = 2;
	ibv_wr_rdma_read(x, b->mr->rkey, rb + 1024);
	ibv_wr_set_sge(x, a->mr->lkey, (uintptr_t)a->buf + 2048, 11);
	x->wr_id = 3;
	ibv_wr_atomic_fetch_add(x, b->mr->rkey, (uintptr_t)counter, 2);
	ibv_wr_set_sge(x, a->mr->lkey, (uintptr_t)a->buf + 4096, 8);
	x->wr_id = 4;
	ibv_wr_atomic_cmp_swp(x, b->mr->rkey, (uintptr_t)counter, 42, 1000);
	ibv_wr_set_sge(x, a->mr->lkey, (uintptr_t)a->buf + 4104, 8);
	x->wr_id = 5;
	ibv_wr_rdma_write_imm(x, b->mr->rkey, rb + 8192, htobe32(99));
	ibv_wr_set_sge(x, a->mr->lkey, (uintptr_t)a->buf, 6);
	ret = ibv_wr_complete(x);
	n = ret ? 0 : poll_n(a->cq, wc, 5);
	CASE("rc_qp_ex_ops", ret == 0 && n == 5 && wc[0].status == IBV_WC_SUCCESS &&
	     wc[4].status == IBV_WC_SUCCESS && wc[1].opcode == IBV_WC_RDMA_READ &&
	     wc[2].opcode == IBV_WC_FETCH_ADD && wc[3].opcode == IBV_WC_COMP_SWAP,
	     "complete %d, %d completions, status %d", ret, n, n ? (int)wc[n - 1].status : -1);
	CASE("rc_memory", !memcmp(b->buf, "first-second", 12) &&
	     !memcmp(a->buf + 2048, "remote-data", 11) && *(uint64_t *)(a->buf + 4096) == 40 &&
	     *(uint64_t *)(a->buf + 4104) == 42 && *counter == 1000 &&
	     !memcmp(b->buf + 8192, "first-", 6),
	     "write/read/atomics did not land (counter %llu)", (unsigned long long)*counter);
	n = poll_n(b->cq, wc, 1);
	CASE("rc_write_imm_recv", n == 1 && wc[0].opcode == IBV_WC_RECV_RDMA_WITH_IMM &&
	     (wc[0].wc_flags & IBV_WC_WITH_IMM) && wc[0].imm_data == htobe32(99) &&
	     wc[0].wr_id == 77, "%d completions, opcode %d", n, n ? (int)wc[0].opcode : -1);

	/* mixing the two pollers: three sends, one read through cq_ex, two by poll_cq */
	{
		struct ibv_sge s = { .addr = (uintptr_t)a->buf, .length = 1, .lkey = a->mr->lkey };
		struct exwc e[1];
		int i;

		ibv_wr_start(x);
		for (i = 0; i < 3; i++) {
			x->wr_id = 10 + i;
			ibv_wr_rdma_write(x, b->mr->rkey, rb);
			ibv_wr_set_sge_list(x, 1, &s);
		}
		ret = ibv_wr_complete(x);
		n = ret ? -1 : poll_ex_n(a->cqx, e, 1);
		CASE("cq_ex_then_poll_cq", n == 1 && e[0].wr_id == 10 && poll_n(a->cq, wc, 2) == 2 &&
		     wc[0].wr_id == 11 && wc[1].wr_id == 12, "ret %d, n %d", ret, n);
	}
	CASE("rc_teardown", !ibv_destroy_qp(qa) && !ibv_destroy_qp(qb), "%s", strerror(errno));
}

static void test_ud(struct dev *a, struct dev *b)
{
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = IBV_QPT_UD, .send_cq = a->cq, .recv_cq = a->cq, .pd = a->pd,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND_WITH_IMM,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_init_attr ib = {
		.qp_type = IBV_QPT_UD, .send_cq = b->cq, .recv_cq = b->cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qa = ibv_create_qp_ex(a->ctx, &ia), *qb = ibv_create_qp(b->pd, &ib);
	struct ibv_qp_ex *x = qa ? ibv_qp_to_qp_ex(qa) : NULL;
	struct ibv_ah_attr aa = { .dlid = b->lid, .port_num = 1 };
	struct ibv_ah *ah = ibv_create_ah(a->pd, &aa);
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
				  .qkey = 0x11111111 };
	struct ibv_wc wc[2];
	int n, ret;

	CASE("ud_setup", x && qb && ah, "%s", strerror(errno));
	if (!x || !qb || !ah)
		return;
	ret = ibv_modify_qp(qa, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY) ||
	      ibv_modify_qp(qb, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY);
	at.qp_state = IBV_QPS_RTR;
	ret = ret || ibv_modify_qp(qa, &at, IBV_QP_STATE) || ibv_modify_qp(qb, &at, IBV_QP_STATE);
	at.qp_state = IBV_QPS_RTS;
	at.sq_psn = 0;
	ret = ret || ibv_modify_qp(qa, &at, IBV_QP_STATE | IBV_QP_SQ_PSN);
	{
		struct ibv_sge s = { .addr = (uintptr_t)b->buf + 16384, .length = 40 + 64,
				     .lkey = b->mr->lkey };
		struct ibv_recv_wr r = { .wr_id = 5, .sg_list = &s, .num_sge = 1 }, *bad;

		ret = ret || ibv_post_recv(qb, &r, &bad);
	}
	CASE("ud_connect", !ret, "%s", strerror(errno));
	memcpy(a->buf, "datagram", 8);
	ibv_wr_start(x);
	x->wr_id = 9;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_send_imm(x, htobe32(5));
	ibv_wr_set_ud_addr(x, ah, qb->qp_num, 0x11111111);
	ibv_wr_set_sge(x, a->mr->lkey, (uintptr_t)a->buf, 8);
	ret = ibv_wr_complete(x);
	n = ret ? 0 : poll_n(b->cq, wc, 1);
	CASE("ud_qp_ex_send", ret == 0 && n == 1 && wc[0].status == IBV_WC_SUCCESS &&
	     wc[0].byte_len == 48 && wc[0].src_qp == qa->qp_num &&
	     !memcmp(b->buf + 16384 + 40, "datagram", 8),
	     "complete %d, %d completions, status %d len %u", ret, n, n ? (int)wc[0].status : -1,
	     n ? wc[0].byte_len : 0);
	poll_n(a->cq, wc, 1);
	CASE("ud_teardown", !ibv_destroy_ah(ah) && !ibv_destroy_qp(qa) && !ibv_destroy_qp(qb),
	     "%s", strerror(errno));
}

/*
 * What a program written for a newer libibverbs does on an RC ibv_qp_ex
 * (Debian 13's 56.1 once crashed here: wr_flush was NULL): QPs asked for
 * send ops the device does not carry are refused with EOPNOTSUPP, every
 * builder may be called and the ones for ops the QP was not made for (the
 * window ops included) fail the batch with EOPNOTSUPP, ibv_post_send() with
 * an opcode the device does not carry is EOPNOTSUPP, the
 * atomics the QP was made for still run, and after all the refusals the
 * PD and CQ they used are destroyed cleanly.
 */
static void test_qp_ex_refusals(struct dev *a, struct dev *b)
{
	/* IBV_QP_EX_WITH_FLUSH (1 << 11) and IBV_WR_FLUSH (14) are not in
	 * Debian 12's header */
	static const uint64_t refused_ops[] = { IBV_QP_EX_WITH_TSO, IBV_QP_EX_WITH_ATOMIC_WRITE,
						1ULL << 11 };
	static const int refused_opcodes[] = { IBV_WR_TSO, 14, IBV_WR_ATOMIC_WRITE };
	struct ibv_pd *pd = ibv_alloc_pd(a->ctx);
	struct ibv_cq *cq = ibv_create_cq(a->ctx, 16, NULL, NULL, 0);
	struct ibv_mr *mr = pd ? ibv_reg_mr(pd, a->buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE) : NULL;
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = IBV_QPT_RC, .send_cq = cq, .recv_cq = cq, .pd = pd,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_init_attr ib = {
		.qp_type = IBV_QPT_RC, .send_cq = b->cq, .recv_cq = b->cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	const int acc = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
	uint64_t *counter = (uint64_t *)(b->buf + 40960);
	unsigned int i, bad_creates = 0, bad_builders = 0, bad_posts = 0;
	struct ibv_qp *qa, *qb;
	struct ibv_qp_ex *x;
	struct ibv_wc wc[2];
	int n, ret;

	CASE("qp_ex_refusals_setup", pd && cq && mr, "%s", strerror(errno));
	if (!pd || !cq || !mr)
		return;
	for (i = 0; i < sizeof(refused_ops) / sizeof(refused_ops[0]); i++) {
		ia.send_ops_flags = IBV_QP_EX_WITH_SEND | refused_ops[i];
		errno = 0;
		qa = ibv_create_qp_ex(a->ctx, &ia);
		if (qa || errno != EOPNOTSUPP) {
			printf("    send op %#llx: %s, errno %d\n", (unsigned long long)refused_ops[i],
			       qa ? "created" : "refused", errno);
			bad_creates++;
			if (qa)
				ibv_destroy_qp(qa);
		}
	}
	CASE("qp_ex_unsupported_send_ops_refused", bad_creates == 0, "%u not refused with EOPNOTSUPP",
	     bad_creates);

	ia.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP |
			    IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;
	qa = ibv_create_qp_ex(a->ctx, &ia);
	qb = ibv_create_qp(b->pd, &ib);
	x = qa ? ibv_qp_to_qp_ex(qa) : NULL;
	if (!x || !qb || stress_to_init(qa, acc) || stress_to_init(qb, acc) ||
	    stress_connect(qa, b->lid, qb->qp_num, false) ||
	    stress_connect(qb, a->lid, qa->qp_num, false)) {
		CASE("qp_ex_refusals_connect", 0, "%s", strerror(errno));
		return;
	}
	for (i = 0; i < 6; i++) {
		struct ibv_mw_bind_info bi = { .mr = mr, .addr = (uintptr_t)a->buf, .length = 8 };
		uint64_t data = 7;

		ibv_wr_start(x);
		x->wr_id = 100 + i;
		x->wr_flags = IBV_SEND_SIGNALED;
		switch (i) {
		case 0: ibv_wr_bind_mw(x, NULL, 1, &bi); break;
		case 1: ibv_wr_local_inv(x, 1); break;
		case 2: ibv_wr_send_inv(x, 1); break;
		case 3: ibv_wr_send_tso(x, &data, 8, 64); break;
		case 4: ibv_wr_atomic_write(x, b->mr->rkey, (uintptr_t)counter, &data); break;
		case 5:
#ifdef ABI34_HAVE_WR_FLUSH
			ibv_wr_flush(x, b->mr->rkey, (uintptr_t)counter, 8, IBV_FLUSH_GLOBAL,
				     IBV_FLUSH_RANGE);
#else
			ibv_wr_rdma_write(x, b->mr->rkey, (uintptr_t)counter);	/* not asked for */
#endif
			break;
		}
		ibv_wr_set_sge(x, mr->lkey, (uintptr_t)a->buf, 8);
		ret = ibv_wr_complete(x);
		if (ret != EOPNOTSUPP) {
			printf("    builder %u: wr_complete %d\n", i, ret);
			bad_builders++;
		}
	}
	CASE("qp_ex_unsupported_builders_refused", bad_builders == 0 && poll_n(cq, wc, 1) == 0,
	     "%u builders not refused with EOPNOTSUPP (or something completed)", bad_builders);
	for (i = 0; i < sizeof(refused_opcodes) / sizeof(refused_opcodes[0]); i++) {
		struct ibv_sge s = { .addr = (uintptr_t)a->buf, .length = 8, .lkey = mr->lkey };
		struct ibv_send_wr w = { .wr_id = 200 + i, .sg_list = &s, .num_sge = 1,
					 .opcode = (enum ibv_wr_opcode)refused_opcodes[i],
					 .send_flags = IBV_SEND_SIGNALED }, *bad = NULL;

		w.wr.rdma.rkey = b->mr->rkey;
		w.wr.rdma.remote_addr = (uintptr_t)counter;
		ret = ibv_post_send(qa, &w, &bad);
		if (ret != EOPNOTSUPP || bad != &w) {
			printf("    opcode %d: ibv_post_send %d\n", refused_opcodes[i], ret);
			bad_posts++;
		}
	}
	CASE("post_send_unsupported_opcodes_refused", bad_posts == 0 && poll_n(cq, wc, 1) == 0,
	     "%u opcodes not refused with EOPNOTSUPP (or something completed)", bad_posts);

	*counter = 5;
	ibv_wr_start(x);
	x->wr_flags = IBV_SEND_SIGNALED;
	x->wr_id = 1;
	ibv_wr_atomic_fetch_add(x, b->mr->rkey, (uintptr_t)counter, 3);
	ibv_wr_set_sge(x, mr->lkey, (uintptr_t)a->buf + 64, 8);
	x->wr_id = 2;
	ibv_wr_atomic_cmp_swp(x, b->mr->rkey, (uintptr_t)counter, 8, 77);
	ibv_wr_set_sge(x, mr->lkey, (uintptr_t)a->buf + 72, 8);
	ret = ibv_wr_complete(x);
	n = ret ? 0 : poll_n(cq, wc, 2);
	CASE("qp_ex_atomics_after_refusals", ret == 0 && n == 2 && wc[0].status == IBV_WC_SUCCESS &&
	     wc[1].status == IBV_WC_SUCCESS && *(uint64_t *)(a->buf + 64) == 5 &&
	     *(uint64_t *)(a->buf + 72) == 8 && *counter == 77,
	     "complete %d, %d completions, counter %llu", ret, n, (unsigned long long)*counter);
	errno = 0;
	ret = ibv_destroy_qp(qa) || ibv_destroy_qp(qb) || ibv_dereg_mr(mr) ||
	      ibv_destroy_cq(cq) || ibv_dealloc_pd(pd);
	CASE("qp_ex_refusals_teardown", !ret, "%s", strerror(errno));
}

static void test_refusals(struct dev *a)
{
	struct ibv_cq_init_attr_ex ca = { .cqe = 4, .wc_flags = IBV_WC_STANDARD_FLAGS |
							       IBV_WC_EX_WITH_COMPLETION_TIMESTAMP };
	struct ibv_device_attr_ex dx;

	errno = 0;
	CASE("cq_ex_timestamps_refused", !ibv_create_cq_ex(a->ctx, &ca) && errno == EOPNOTSUPP,
	     "errno %d", errno);
	struct ibv_mw *mw1 = ibv_alloc_mw(a->pd, IBV_MW_TYPE_1);
	struct ibv_mw *mw2 = ibv_alloc_mw(a->pd, IBV_MW_TYPE_2);

	CASE("alloc_mw", mw1 && mw2 && mw1->type == IBV_MW_TYPE_1 && mw2->type == IBV_MW_TYPE_2 &&
	     mw1->rkey != mw2->rkey && !ibv_dealloc_mw(mw1) && !ibv_dealloc_mw(mw2),
	     "%s", strerror(errno));
	CASE("query_device_ex", ibv_query_device_ex(a->ctx, NULL, &dx) == 0 &&
	     (dx.orig_attr.device_cap_flags & IBV_DEVICE_XRC) && dx.completion_timestamp_mask == 0,
	     "%s", strerror(errno));
}

/* A UD QP of @d in RTS (RTR is enough to receive) with Q_Key @qkey; NULL on failure. */
static struct ibv_qp *ud_qp(struct dev *d, uint32_t qkey)
{
	struct ibv_qp_init_attr ia = {
		.qp_type = IBV_QPT_UD, .send_cq = d->cq, .recv_cq = d->cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp_attr at = { .qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = qkey };
	struct ibv_qp *qp = ibv_create_qp(d->pd, &ia);

	if (!qp)
		return NULL;
	if (ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY) ||
	    (at.qp_state = IBV_QPS_RTR, ibv_modify_qp(qp, &at, IBV_QP_STATE)) ||
	    (at.qp_state = IBV_QPS_RTS, ibv_modify_qp(qp, &at, IBV_QP_STATE | IBV_QP_SQ_PSN))) {
		ibv_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

/*
 * UD multicast as libibverbs programs use it (ibv_attach_mcast, an AH to
 * the group, QP 0xffffff): every attached QP with the sender's Q_Key takes
 * the message, on the other device; an InfiniBand port's group needs a
 * multicast LID; attaching twice is one attachment; destroying an
 * attached QP is EBUSY; detaching what is not attached is EINVAL; rxe's
 * answer to a QP that blocks its own multicast (mckey -l): EOPNOTSUPP.
 */
static void test_mcast(struct dev *a, struct dev *b)
{
	union ibv_gid g = { .raw = { 0xff, 0x0e, [14] = 0x12, [15] = 0x34 } };
	struct ibv_qp *qa = ud_qp(a, 0x11111111), *q1 = ud_qp(b, 0x11111111);
	struct ibv_qp *q2 = ud_qp(b, 0x11111111), *q3 = ud_qp(b, 0x22222222);
	struct ibv_ah_attr aa = { .is_global = 1, .dlid = 0xc001, .port_num = 1,
				  .grh = { .dgid = g, .hop_limit = 1 } };
	struct ibv_ah *ah = ibv_create_ah(a->pd, &aa);
	struct ibv_qp_init_attr_ex bl = {
		.qp_type = IBV_QPT_UD, .send_cq = a->cq, .recv_cq = a->cq, .pd = a->pd,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS,
		.create_flags = IBV_QP_CREATE_BLOCK_SELF_MCAST_LB,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qs[] = { q1, q2, q3 };
	struct ibv_wc wc[4];
	int i, n, ret = 0, busy, again, stray;

	CASE("mcast_setup", qa && q1 && q2 && q3 && ah, "%s", strerror(errno));
	if (!qa || !q1 || !q2 || !q3 || !ah)
		return;
	errno = 0;
	CASE("mcast_block_loopback_refused", !ibv_create_qp_ex(a->ctx, &bl) && errno == EOPNOTSUPP,
	     "errno %s", strerror(errno));
	ret = ibv_attach_mcast(q1, &g, 0x0005);
	CASE("mcast_ib_port_needs_mcast_lid", ret == EINVAL, "%s", strerror(ret));
	ret = 0;
	for (i = 0; i < 3 && !ret; i++)
		ret = ibv_attach_mcast(qs[i], &g, 0xc001);
	again = ibv_attach_mcast(q1, &g, 0xc001);
	CASE("mcast_attach", !ret && !again, "%s / again %s", strerror(ret), strerror(again));
	busy = ibv_destroy_qp(q1);
	CASE("mcast_attached_qp_busy", busy == EBUSY, "destroy: %s", strerror(busy));
	for (i = 0; i < 3; i++) {
		struct ibv_sge s = { .addr = (uintptr_t)b->buf + 20480 + 1024 * i, .length = 1024,
				     .lkey = b->mr->lkey };
		struct ibv_recv_wr r = { .wr_id = 100 + i, .sg_list = &s, .num_sge = 1 }, *bad;

		ret = ret || ibv_post_recv(qs[i], &r, &bad);
	}
	memcpy(a->buf + 8192, "to the group", 12);
	{
		struct ibv_sge s = { .addr = (uintptr_t)a->buf + 8192, .length = 12,
				     .lkey = a->mr->lkey };
		struct ibv_send_wr w = { .wr_id = 7, .sg_list = &s, .num_sge = 1,
					 .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
					 .wr.ud = { .ah = ah, .remote_qpn = 0xffffff,
						    .remote_qkey = 0x11111111 } }, *bad;

		ret = ret || ibv_post_send(qa, &w, &bad);
	}
	n = ret ? 0 : poll_n(b->cq, wc, 2);
	stray = n == 2 ? stress_poll(b->cq, wc + 2, 1, 100) : 0;
	CASE("mcast_delivered", n == 2 && !stray && wc[0].status == IBV_WC_SUCCESS &&
	     wc[1].status == IBV_WC_SUCCESS && wc[0].byte_len == 52 && wc[1].byte_len == 52 &&
	     (wc[0].wc_flags & IBV_WC_GRH) && wc[0].src_qp == qa->qp_num &&
	     wc[0].wr_id + wc[1].wr_id == 201 &&
	     !memcmp(b->buf + 20480 + 40, "to the group", 12) &&
	     !memcmp(b->buf + 20480 + 1024 + 40, "to the group", 12) &&
	     !memcmp(b->buf + 20480 + 24, g.raw, 16) && poll_n(a->cq, wc + 3, 1) == 1,
	     "post %d, %d completions (%d more), wr_ids %llu %llu", ret, n, stray,
	     n > 0 ? (unsigned long long)wc[0].wr_id : 0ULL,
	     n > 1 ? (unsigned long long)wc[1].wr_id : 0ULL);
	ret = 0;
	for (i = 0; i < 3 && !ret; i++)
		ret = ibv_detach_mcast(qs[i], &g, 0xc001);
	again = ibv_detach_mcast(q1, &g, 0xc001);
	CASE("mcast_detach", !ret && again == EINVAL, "%s / again %s", strerror(ret),
	     strerror(again));
	/* q3's receive was never taken: flushed when it goes */
	CASE("mcast_teardown", !ibv_destroy_ah(ah) && !ibv_destroy_qp(qa) && !ibv_destroy_qp(q1) &&
	     !ibv_destroy_qp(q2) && !ibv_destroy_qp(q3), "%s", strerror(errno));
}

/*
 * What a program that checks capabilities reads: atomics supported (every
 * atomic test skips on IBV_ATOMIC_NONE), an MR count, the port count of
 * ibv_query_device_ex() the same as the legacy one's.
 */
static void test_device_attrs(struct dev *a)
{
	struct ibv_device_attr_ex ax;
	struct ibv_device_attr d;
	int ret = ibv_query_device(a->ctx, &d);

	CASE("query_device", ret == 0, "%s", strerror(ret));
	CASE("atomic_cap", d.atomic_cap == IBV_ATOMIC_HCA, "atomic_cap %d", (int)d.atomic_cap);
	CASE("max_mr", d.max_mr > 0 && d.max_ah > 0 && d.max_sge_rd == d.max_sge,
	     "max_mr %d max_ah %d max_sge_rd %d max_sge %d", d.max_mr, d.max_ah, d.max_sge_rd,
	     d.max_sge);
	CASE("mw", d.max_mw > 0 && (d.device_cap_flags & IBV_DEVICE_MEM_WINDOW) &&
	     (d.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B),
	     "max_mw %d cap_flags %#x", d.max_mw, d.device_cap_flags);
	CASE("mcast_limits", d.max_mcast_grp == 8192 && d.max_mcast_qp_attach == 56 &&
	     d.max_total_mcast_qp_attach == 0x70000, "max_mcast_grp %d qp_attach %d total %d",
	     d.max_mcast_grp, d.max_mcast_qp_attach, d.max_total_mcast_qp_attach);
	ret = ibv_query_device_ex(a->ctx, NULL, &ax);
	CASE("query_device_ex_ports", ret == 0 && ax.phys_port_cnt_ex == d.phys_port_cnt &&
	     ax.orig_attr.atomic_cap == d.atomic_cap,
	     "ret %d phys_port_cnt_ex %u phys_port_cnt %u", ret, ax.phys_port_cnt_ex,
	     d.phys_port_cnt);
}

int main(int argc, char **argv)
{
	const char *n0 = argc > 2 ? argv[1] : "xqp_soft0", *n1 = argc > 2 ? argv[2] : "xqp_soft1";
	struct dev a, b;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (open_dev(n0, &a) || open_dev(n1, &b)) {
		printf("FAIL open: %s/%s: %s\n", n0, n1, strerror(errno));
		printf("verbs-smoke: 0 passed, 1 failed\n");
		return 1;
	}
	test_device_attrs(&a);
	test_xrc(&a, &b);
	test_rc(&a, &b);
	test_ud(&a, &b);
	test_mcast(&a, &b);
	test_qp_ex_refusals(&a, &b);
	test_refusals(&a);
	ibv_dereg_mr(a.mr);
	ibv_dereg_mr(b.mr);
	ibv_destroy_cq(a.cq);
	ibv_destroy_cq(b.cq);
	ibv_dealloc_pd(a.pd);
	ibv_dealloc_pd(b.pd);
	ibv_close_device(a.ctx);
	ibv_close_device(b.ctx);
	printf("verbs-smoke: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
