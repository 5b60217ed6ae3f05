// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * xqp-mw-check: memory windows through libibverbs' public API only, on one
 * device, between two RC QPs of it connected to each other, so that the
 * same program runs on xqp and on soft-RoCE (rxe, its loopback) and must
 * give the same answers (scripts/rxe-compare runs it on both):
 *  - the device reports windows (max_mw, MEM_WINDOW, MEM_WINDOW_TYPE_2B);
 *  - a type 1 window bound with ibv_bind_mw() gives remote WRITE and READ
 *    inside its range and nothing past it; its MR is not deregistered
 *    while it is bound;
 *  - a type 2 window bound with an IBV_WR_BIND_MW work request and with
 *    ibv_wr_bind_mw(), freed by IBV_WR_LOCAL_INV and by a peer's
 *    IBV_WR_SEND_WITH_INV (the receive says IBV_WC_WITH_INV and the rkey);
 *  - a bind over an MR without IBV_ACCESS_MW_BIND completes in error.
 * Usage: xqp-mw-check DEV [GID_INDEX]   (a RoCE device needs the GID index;
 *                                         without it the port's LID is used)
 *        xqp-mw-check DEV --exit-bound  (binds a window of each type and
 *                                         exits holding everything: the
 *                                         file's teardown must free it all)
 * Prints "PASS name" / "FAIL name: why" and "mw-check: N passed, N failed".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "cases.h"
#include "verbs_util.h"

#define BUF_LEN		65536
#define RW		(IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)

struct env {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	char *buf;
	struct ibv_mr *mr;		/* local write only: the QPs' SGEs */
	struct ibv_mr *bmr;		/* local write and MW_BIND: windows go here */
	int gid_index;			/* -1: IB addressing by LID */
	union ibv_gid gid;
	uint16_t lid;
	struct ibv_qp *qa, *qb;		/* qa -> qb: qb's windows, qa's accesses */
};

static int poll_one(struct env *e, struct ibv_wc *wc)
{
	return stress_poll(e->cq, wc, 1, 5000) == 1;
}

/* INIT, then RTR and RTS toward @dqpn on this device: by GID or by LID. */
static int to_rts(struct env *e, struct ibv_qp *qp, uint32_t dqpn)
{
	struct ibv_ah_attr av = { .dlid = e->lid, .port_num = 1 };

	if (e->gid_index >= 0) {
		av.dlid = 0;
		av.is_global = 1;
		av.grh.dgid = e->gid;
		av.grh.sgid_index = (uint8_t)e->gid_index;
		av.grh.hop_limit = 1;
	}
	return stress_to_init(qp, RW | IBV_ACCESS_REMOTE_ATOMIC) ||
	       stress_connect_av(qp, &av, dqpn, false);
}

/* A fresh pair qa -> qb (the old one, if any, destroyed); qb with ibv_qp_ex. */
static int new_pair(struct env *e)
{
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = IBV_QPT_RC, .send_cq = e->cq, .recv_cq = e->cq, .pd = e->pd,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.send_ops_flags = IBV_QP_EX_WITH_SEND | IBV_QP_EX_WITH_SEND_WITH_INV |
				  IBV_QP_EX_WITH_BIND_MW | IBV_QP_EX_WITH_LOCAL_INV |
				  IBV_QP_EX_WITH_RDMA_WRITE | IBV_QP_EX_WITH_RDMA_READ,
		.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1,
			 .max_recv_sge = 1 },
	};

	if (e->qa)
		ibv_destroy_qp(e->qa);
	if (e->qb)
		ibv_destroy_qp(e->qb);
	e->qa = ibv_create_qp_ex(e->ctx, &ia);
	e->qb = ibv_create_qp_ex(e->ctx, &ia);
	if (!e->qa || !e->qb)
		return -1;
	return to_rts(e, e->qa, e->qb->qp_num) || to_rts(e, e->qb, e->qa->qp_num);
}

/* An RDMA WRITE or READ of @len bytes from qa's buf[0] at qb's buf[@off] via @rkey. */
static int rdma(struct env *e, enum ibv_wr_opcode op, size_t off, uint32_t rkey, uint32_t len)
{
	struct ibv_sge s = { .addr = (uintptr_t)e->buf, .length = len, .lkey = e->mr->lkey };
	struct ibv_send_wr w = { .wr_id = 1, .sg_list = &s, .num_sge = 1, .opcode = op,
				 .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_wc wc;

	w.wr.rdma.remote_addr = (uintptr_t)e->buf + off;
	w.wr.rdma.rkey = rkey;
	if (ibv_post_send(e->qa, &w, &bad))
		return -1;
	return poll_one(e, &wc) ? (int)wc.status : -2;
}

/* Posts @w on qb and takes its completion: its status, *@op its opcode. */
static int qb_local(struct env *e, struct ibv_send_wr *w, enum ibv_wc_opcode *op)
{
	struct ibv_send_wr *bad;
	struct ibv_wc wc;

	if (ibv_post_send(e->qb, w, &bad))
		return -1;
	if (!poll_one(e, &wc))
		return -2;
	*op = wc.opcode;
	return (int)wc.status;
}

static struct ibv_send_wr bind_wr(struct env *e, struct ibv_mw *mw, uint32_t rkey,
				  struct ibv_mr *mr, size_t off, size_t len, int access)
{
	struct ibv_send_wr w = { .wr_id = 2, .opcode = IBV_WR_BIND_MW,
				 .send_flags = IBV_SEND_SIGNALED };

	w.bind_mw.mw = mw;
	w.bind_mw.rkey = rkey;
	w.bind_mw.bind_info.mr = mr;
	w.bind_mw.bind_info.addr = (uintptr_t)e->buf + off;
	w.bind_mw.bind_info.length = len;
	w.bind_mw.bind_info.mw_access_flags = (unsigned int)access;
	return w;
}

static void test_caps(struct env *e)
{
	struct ibv_device_attr d;
	int ret = ibv_query_device(e->ctx, &d);

	CASE("caps", !ret && d.max_mw > 0 && (d.device_cap_flags & IBV_DEVICE_MEM_WINDOW) &&
	     (d.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B),
	     "ret %d max_mw %d cap_flags %#x", ret, d.max_mw, d.device_cap_flags);
}

static void test_type1(struct env *e)
{
	struct ibv_mw *mw = ibv_alloc_mw(e->pd, IBV_MW_TYPE_1);
	struct ibv_mw_bind b = { .wr_id = 3, .send_flags = IBV_SEND_SIGNALED,
				 .bind_info = { .mr = e->bmr, .addr = (uintptr_t)e->buf + 4096,
						.length = 1024, .mw_access_flags = RW } };
	struct ibv_wc wc;
	int ret, n, st;

	CASE("type1_alloc", mw && mw->type == IBV_MW_TYPE_1, "%s", strerror(errno));
	if (!mw || new_pair(e))
		return;
	ret = ibv_bind_mw(e->qb, mw, &b);
	n = ret ? 0 : poll_one(e, &wc);
	CASE("type1_bind", !ret && n == 1 && wc.status == IBV_WC_SUCCESS &&
	     wc.opcode == IBV_WC_BIND_MW && wc.wr_id == 3,
	     "ret %d n %d status %d opcode %d", ret, n, n ? (int)wc.status : -1,
	     n ? (int)wc.opcode : -1);
	memset(e->buf, 'w', 100);
	st = rdma(e, IBV_WR_RDMA_WRITE, 4096, mw->rkey, 100);
	CASE("type1_write", st == IBV_WC_SUCCESS && e->buf[4096] == 'w' && e->buf[4195] == 'w',
	     "status %d", st);
	memset(e->buf + 4096 + 924, 'r', 100);
	st = rdma(e, IBV_WR_RDMA_READ, 4096 + 924, mw->rkey, 100);
	CASE("type1_read", st == IBV_WC_SUCCESS && e->buf[0] == 'r' && e->buf[99] == 'r',
	     "status %d", st);
	ret = ibv_dereg_mr(e->bmr);
	CASE("mr_kept_while_bound", ret != 0, "ibv_dereg_mr %d", ret);
	if (!ret)
		e->bmr = NULL;
	st = rdma(e, IBV_WR_RDMA_WRITE, 4096 + 1000, mw->rkey, 100);
	CASE("type1_past_its_end", st == IBV_WC_REM_ACCESS_ERR, "status %d", st);
	CASE("type1_dealloc", ibv_dealloc_mw(mw) == 0, "%s", strerror(errno));
}

static void test_type2(struct env *e)
{
	struct ibv_mw *mw = ibv_alloc_mw(e->pd, IBV_MW_TYPE_2);
	enum ibv_wc_opcode op = 0;
	struct ibv_send_wr w;
	uint32_t key;
	int st;

	CASE("type2_alloc", mw && mw->type == IBV_MW_TYPE_2, "%s", strerror(errno));
	if (!mw || !e->bmr || new_pair(e))
		return;
	key = ibv_inc_rkey(mw->rkey);
	w = bind_wr(e, mw, key, e->bmr, 8192, 4096, RW);
	st = qb_local(e, &w, &op);
	CASE("type2_bind_wr", st == IBV_WC_SUCCESS && op == IBV_WC_BIND_MW, "status %d opcode %d",
	     st, (int)op);
	st = rdma(e, IBV_WR_RDMA_WRITE, 8192, key, 64);
	CASE("type2_write", st == IBV_WC_SUCCESS, "status %d", st);
	memset(&w, 0, sizeof(w));
	w.wr_id = 4;
	w.opcode = IBV_WR_LOCAL_INV;
	w.send_flags = IBV_SEND_SIGNALED;
	w.invalidate_rkey = key;
	st = qb_local(e, &w, &op);
	CASE("type2_local_inv", st == IBV_WC_SUCCESS && op == IBV_WC_LOCAL_INV,
	     "status %d opcode %d", st, (int)op);
	st = rdma(e, IBV_WR_RDMA_WRITE, 8192, key, 64);
	CASE("type2_invalidated", st == IBV_WC_REM_ACCESS_ERR, "status %d", st);
	CASE("type2_dealloc", ibv_dealloc_mw(mw) == 0, "%s", strerror(errno));
}

static void test_send_inv(struct env *e)
{
	struct ibv_mw *mw = ibv_alloc_mw(e->pd, IBV_MW_TYPE_2);
	struct ibv_mw_bind_info bi = { .mr = e->bmr, .mw_access_flags = RW, .length = 4096 };
	struct ibv_sge rs = { .addr = (uintptr_t)e->buf + 32768, .length = 256,
			      .lkey = e->mr->lkey };
	struct ibv_sge ss = { .addr = (uintptr_t)e->buf, .length = 32, .lkey = e->mr->lkey };
	struct ibv_recv_wr r = { .wr_id = 6, .sg_list = &rs, .num_sge = 1 }, *rbad;
	struct ibv_send_wr s = { .wr_id = 7, .sg_list = &ss, .num_sge = 1,
				 .opcode = IBV_WR_SEND_WITH_INV,
				 .send_flags = IBV_SEND_SIGNALED }, *sbad;
	struct ibv_qp_ex *x;
	struct ibv_wc wc[2], *recv = NULL;
	uint32_t key;
	int ret, n = 0, st, i;

	if (!mw || !e->bmr || new_pair(e)) {
		CASE("send_inv_setup", 0, "%s", strerror(errno));
		return;
	}
	key = ibv_inc_rkey(mw->rkey);
	bi.addr = (uintptr_t)e->buf + 16384;
	x = ibv_qp_to_qp_ex(e->qb);
	ibv_wr_start(x);
	x->wr_id = 5;
	x->wr_flags = IBV_SEND_SIGNALED;
	ibv_wr_bind_mw(x, mw, key, &bi);
	ret = ibv_wr_complete(x);
	n = ret ? 0 : poll_one(e, wc);
	CASE("type2_wr_bind_mw", !ret && n == 1 && wc[0].status == IBV_WC_SUCCESS &&
	     wc[0].opcode == IBV_WC_BIND_MW, "ret %d n %d status %d", ret, n,
	     n ? (int)wc[0].status : -1);
	s.invalidate_rkey = key;
	ret = ibv_post_recv(e->qb, &r, &rbad) || ibv_post_send(e->qa, &s, &sbad);
	for (i = 0; !ret && i < 2 && poll_one(e, &wc[i]); i++)
		if (wc[i].opcode & IBV_WC_RECV)
			recv = &wc[i];
	CASE("send_inv", !ret && i == 2 && recv && recv->status == IBV_WC_SUCCESS &&
	     (recv->wc_flags & IBV_WC_WITH_INV) && recv->invalidated_rkey == key &&
	     recv->byte_len == 32,
	     "ret %d completions %d recv %s status %d flags %#x rkey %#x (want %#x) byte_len %u",
	     ret, i, recv ? "yes" : "no", recv ? (int)recv->status : -1, recv ? recv->wc_flags : 0,
	     recv ? recv->invalidated_rkey : 0, key, recv ? recv->byte_len : 0);
	st = rdma(e, IBV_WR_RDMA_WRITE, 16384, key, 8);
	CASE("send_inv_invalidated", st == IBV_WC_REM_ACCESS_ERR, "status %d", st);
	CASE("send_inv_dealloc", ibv_dealloc_mw(mw) == 0, "%s", strerror(errno));
}

static void test_bind_refused(struct env *e)
{
	struct ibv_mw *mw = ibv_alloc_mw(e->pd, IBV_MW_TYPE_2);
	enum ibv_wc_opcode op = 0;
	struct ibv_send_wr w;
	int st;

	if (!mw || new_pair(e)) {
		CASE("bind_refused_setup", 0, "%s", strerror(errno));
		return;
	}
	w = bind_wr(e, mw, ibv_inc_rkey(mw->rkey), e->mr, 0, 64, RW);	/* no MW_BIND */
	st = qb_local(e, &w, &op);
	CASE("bind_without_mw_bind_access", st == IBV_WC_MW_BIND_ERR, "status %d", st);
	CASE("bind_refused_dealloc", ibv_dealloc_mw(mw) == 0, "%s", strerror(errno));
}

/* Two windows bound (type 2 to qb), and exit: the teardown's to free. */
static int exit_bound_windows(struct env *e)
{
	struct ibv_mw *m1 = ibv_alloc_mw(e->pd, IBV_MW_TYPE_1);
	struct ibv_mw *m2 = ibv_alloc_mw(e->pd, IBV_MW_TYPE_2);
	struct ibv_mw_bind b = { .send_flags = IBV_SEND_SIGNALED,
				 .bind_info = { .mr = e->bmr, .addr = (uintptr_t)e->buf,
						.length = 4096, .mw_access_flags = RW } };
	enum ibv_wc_opcode op;
	struct ibv_send_wr w;
	struct ibv_wc wc;
	int ok;

	ok = m1 && m2 && !new_pair(e) && !ibv_bind_mw(e->qb, m1, &b) && poll_one(e, &wc) &&
	     wc.status == IBV_WC_SUCCESS;
	if (ok) {
		w = bind_wr(e, m2, ibv_inc_rkey(m2->rkey), e->bmr, 0, 4096, RW);
		ok = qb_local(e, &w, &op) == IBV_WC_SUCCESS;
	}
	CASE("exit_bound", ok, "%s", strerror(errno));
	printf("mw-check: %d passed, %d failed\n", passed, failed);
	return failed != 0;	/* everything left to the file's teardown */
}

int main(int argc, char **argv)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_port_attr pa;
	int exit_bound = argc > 2 && !strcmp(argv[2], "--exit-bound");
	struct env e = { .gid_index = argc > 2 && !exit_bound ? atoi(argv[2]) : -1 };
	int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; list && list[i] && argc > 1; i++)
		if (!strcmp(ibv_get_device_name(list[i]), argv[1]))
			e.ctx = ibv_open_device(list[i]);
	e.buf = aligned_alloc(4096, BUF_LEN);
	if (e.ctx && e.buf) {
		memset(e.buf, 0, BUF_LEN);
		e.pd = ibv_alloc_pd(e.ctx);
		e.cq = ibv_create_cq(e.ctx, 16, NULL, NULL, 0);
	}
	if (e.pd) {
		e.mr = ibv_reg_mr(e.pd, e.buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE);
		e.bmr = ibv_reg_mr(e.pd, e.buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_MW_BIND);
	}
	if (!e.cq || !e.mr || !e.bmr || ibv_query_port(e.ctx, 1, &pa) ||
	    (e.gid_index >= 0 && ibv_query_gid(e.ctx, 1, e.gid_index, &e.gid))) {
		printf("FAIL setup: %s: %s\n", argc > 1 ? argv[1] : "(no device)", strerror(errno));
		printf("mw-check: 0 passed, 1 failed\n");
		return 1;
	}
	e.lid = pa.lid;
	if (exit_bound)
		return exit_bound_windows(&e);
	test_caps(&e);
	test_type1(&e);
	test_type2(&e);
	test_send_inv(&e);
	test_bind_refused(&e);
	CASE("teardown", !ibv_destroy_qp(e.qa) && !ibv_destroy_qp(e.qb) &&
	     (!e.bmr || !ibv_dereg_mr(e.bmr)) && !ibv_dereg_mr(e.mr) && !ibv_destroy_cq(e.cq) &&
	     !ibv_dealloc_pd(e.pd), "%s", strerror(errno));
	ibv_close_device(e.ctx);
	ibv_free_device_list(list);
	printf("mw-check: %d passed, %d failed\n", passed, failed);
	return failed != 0;
}
