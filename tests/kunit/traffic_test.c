// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: kernel clients moving data through xqp, in the kernel under
 * KASAN/lockdep/kmemleak: XRC traffic across two soft devices through
 * shared shares that are opened and destroyed while it flows; RC with
 * every opcode on kmalloc'd and vmalloc'd memory; posting from atomic
 * context (executed on the work queue); destroying a QP whose head waits
 * for an RNR retry; UD multicast to QPs of one device, the sender's own
 * included, and a device that goes with a QP attached.
 */
#include <linux/delay.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "suite.h"
#include "xqp/seam.h"
#include "xqp_test.h"

#define TT_BUF		(64 * 1024)

/* One device's side: PD, a CQ with a completion counter, a registered buffer. */
struct tt_node {
	struct xqp_device *dev;
	struct xqp_pd *pd;
	struct xqp_cq *cq;
	char *buf;
	bool vmem;
	struct xqp_mr *mr;
	atomic_t comps;
};

static void tt_comp(struct xqp_cq *cq, void *ctx)
{
	struct tt_node *n = ctx;

	atomic_inc(&n->comps);
}

static void tt_node_init(struct kunit *test, struct tt_node *n,
			 struct xqp_device *dev, bool vmem)
{
	struct xqp_cq_init_attr ca = { .cqe = 256, .comp_handler = tt_comp,
				       .cq_context = n };

	n->dev = dev;
	n->vmem = vmem;
	n->buf = vmem ? vzalloc(TT_BUF) : kzalloc(TT_BUF, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, n->buf);
	n->pd = xqp_alloc_pd(dev);
	KUNIT_ASSERT_FALSE(test, IS_ERR(n->pd));
	n->cq = xqp_create_cq_attr(dev, &ca);
	KUNIT_ASSERT_FALSE(test, IS_ERR(n->cq));
	n->mr = xqp_reg_kernel_mr(n->pd, n->buf, TT_BUF, 0xf);
	KUNIT_ASSERT_FALSE(test, IS_ERR(n->mr));
}

static void tt_node_fini(struct kunit *test, struct tt_node *n)
{
	KUNIT_EXPECT_EQ(test, xqp_dereg_mr(n->mr), 0);
	KUNIT_EXPECT_EQ(test, xqp_destroy_cq(n->cq), 0);
	KUNIT_EXPECT_EQ(test, xqp_dealloc_pd(n->pd), 0);
	if (n->vmem)
		vfree(n->buf);
	else
		kfree(n->buf);
}

static struct xqp_sge tt_sge(struct tt_node *n, u32 off, u32 len)
{
	return (struct xqp_sge){ .addr = (uintptr_t)(n->buf + off), .length = len,
				 .lkey = xqp_mr_lkey(n->mr) };
}

/* Polls until one completion or 5 s; returns 1 with *wc filled, else 0. */
static int tt_poll1(struct xqp_cq *cq, struct xqp_wc *wc)
{
	int i;

	for (i = 0; i < 5000; i++) {
		if (xqp_poll_cq(cq, 1, wc) == 1)
			return 1;
		usleep_range(200, 1000);
	}
	return 0;
}

static struct xqp_qp *tt_qp(struct kunit *test, struct tt_node *n,
			    enum xqp_qp_type type)
{
	struct xqp_qp_init_attr init = {
		.qp_type = type, .send_cq = n->cq, .recv_cq = n->cq,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64, .max_send_sge = 2,
			 .max_recv_sge = 2 },
		.sq_sig_type = XQP_SIGNAL_ALL_WR,
	};
	struct xqp_qp *qp = xqp_create_qp_user(n->dev, n->pd, &init, NULL, NULL,
					       KBUILD_MODNAME);

	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(qp), "create: %ld", PTR_ERR(qp));
	return qp;
}

/* RESET -> INIT -> RTR (-> RTS) toward (@dlid, @dqpn). */
static void tt_connect(struct kunit *test, struct xqp_qp *qp, enum xqp_qp_type type,
		       u16 dlid, u32 dqpn, bool rts)
{
	struct xqp_qp_attr a = { .qp_state = XQP_QPS_INIT, .port_num = 1,
				 .qp_access_flags = 0xe };
	int mask = XQP_QP_STATE | XQP_QP_PKEY_INDEX | XQP_QP_PORT | XQP_QP_ACCESS_FLAGS;

	KUNIT_ASSERT_EQ(test, xqp_modify_qp(qp, &a, mask), 0);
	memset(&a, 0, sizeof(a));
	a.qp_state = XQP_QPS_RTR;
	a.path_mtu = XQP_MTU_4096;
	a.dest_qp_num = dqpn;
	a.ah_attr.dlid = dlid;
	a.ah_attr.port_num = 1;
	a.min_rnr_timer = 1;
	a.max_dest_rd_atomic = 1;
	mask = XQP_QP_STATE | XQP_QP_AV | XQP_QP_PATH_MTU | XQP_QP_DEST_QPN | XQP_QP_RQ_PSN;
	if (type != XQP_QPT_XRC_INI)
		mask |= XQP_QP_MIN_RNR_TIMER | XQP_QP_MAX_DEST_RD_ATOMIC;
	KUNIT_ASSERT_EQ(test, xqp_modify_qp(qp, &a, mask), 0);
	if (!rts)
		return;
	memset(&a, 0, sizeof(a));
	a.qp_state = XQP_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	mask = XQP_QP_STATE | XQP_QP_SQ_PSN | XQP_QP_TIMEOUT | XQP_QP_RETRY_CNT |
	       XQP_QP_RNR_RETRY | XQP_QP_MAX_QP_RD_ATOMIC;
	KUNIT_ASSERT_EQ(test, xqp_modify_qp(qp, &a, mask), 0);
}

static int tt_send(struct xqp_qp *qp, enum xqp_wr_opcode op, struct xqp_sge *s,
		   u32 srqn)
{
	struct xqp_send_wr wr = { .wr_id = op, .opcode = op, .sg_list = s,
				  .num_sge = 1, .xrc_remote_srq_num = srqn };
	const struct xqp_send_wr *bad;

	return xqp_post_send(qp, &wr, &bad);
}

static int tt_srq_recv(struct xqp_srq *srq, u64 id, struct xqp_sge s)
{
	struct xqp_recv_wr wr = { .wr_id = id, .sg_list = &s, .num_sge = 1 };
	const struct xqp_recv_wr *bad;

	return xqp_post_srq_recv(srq, &wr, &bad);
}

/*
 * 200 XRC sends from device A into an XRC SRQ on device B; every 10 the
 * oldest share of the target QP is destroyed and a new one opened, the
 * creator's first: the messages keep arriving, all with the QP's number.
 */
static void xrc_traffic_through_changing_shares(struct kunit *test)
{
	struct xqp_kt *kt = xqp_kt(test);
	struct xqp_soft *soft_b = xqp_soft_create("xqp_kunit_b", NULL);
	struct xqp_srq_init_attr si = { .srq_type = XQP_SRQT_XRC,
					.attr = { .max_wr = 64, .max_sge = 1 } };
	struct tt_node a = {}, b = {};
	struct xqp_qp_init_attr ti = { .qp_type = XQP_QPT_XRC_TGT };
	struct xqp_qp *ini, *cur, *next;
	struct xqp_xrcd *xrcd;
	struct xqp_srq *srq;
	struct xqp_sge s;
	struct xqp_wc wc;
	u32 tgt_num;
	int i;

	KUNIT_ASSERT_FALSE(test, IS_ERR(soft_b));
	tt_node_init(test, &a, kt->dev, false);
	tt_node_init(test, &b, xqp_soft_device(soft_b), true);
	xrcd = xqp_alloc_xrcd(b.dev);
	KUNIT_ASSERT_FALSE(test, IS_ERR(xrcd));
	si.xrcd = xrcd;
	si.cq = b.cq;
	ti.xrcd = xrcd;
	srq = xqp_create_srq(b.pd, &si);
	KUNIT_ASSERT_FALSE(test, IS_ERR(srq));
	cur = xqp_create_qp_user(b.dev, NULL, &ti, NULL, NULL, KBUILD_MODNAME);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cur));
	tgt_num = xqp_qp_num(cur);
	ini = tt_qp(test, &a, XQP_QPT_XRC_INI);
	tt_connect(test, cur, XQP_QPT_XRC_TGT, xqp_soft_lid(kt->soft), xqp_qp_num(ini), false);
	tt_connect(test, ini, XQP_QPT_XRC_INI, xqp_soft_lid(soft_b), tgt_num, true);
	KUNIT_ASSERT_EQ(test, xqp_req_notify_cq(b.cq, XQP_CQ_NEXT_COMP), 0);

	for (i = 0; i < 200; i++) {
		if (i && i % 10 == 0) {
			next = xqp_kt_open(test, xrcd, tgt_num, NULL, NULL);
			KUNIT_ASSERT_FALSE(test, IS_ERR(next));
			KUNIT_ASSERT_EQ(test, xqp_destroy_qp(cur), 0);
			cur = next;
		}
		KUNIT_ASSERT_EQ(test, tt_srq_recv(srq, i, tt_sge(&b, 256 * (i % 64), 256)), 0);
		memset(a.buf, i & 0xff, 256);
		s = tt_sge(&a, 0, 256);
		KUNIT_ASSERT_EQ(test, tt_send(ini, XQP_WR_SEND, &s, xqp_srq_num(srq)), 0);
		KUNIT_ASSERT_TRUE(test, tt_poll1(b.cq, &wc));
		KUNIT_EXPECT_EQ(test, wc.status, XQP_WC_SUCCESS);
		KUNIT_EXPECT_EQ(test, wc.wr_id, (u64)i);
		KUNIT_EXPECT_EQ(test, wc.qp_num, tgt_num);
		KUNIT_EXPECT_EQ(test, wc.byte_len, 256);
		KUNIT_EXPECT_EQ(test, b.buf[256 * (i % 64) + 255], (char)(i & 0xff));
		KUNIT_ASSERT_TRUE(test, tt_poll1(a.cq, &wc));
		KUNIT_EXPECT_EQ(test, wc.status, XQP_WC_SUCCESS);
	}
	xqp_work_flush_all();	/* the handler runs from the CQ's work item */
	KUNIT_EXPECT_EQ(test, atomic_read(&b.comps), 1);	/* armed once */

	/* The last share goes: the QP with it; the next send finds nobody. */
	KUNIT_ASSERT_EQ(test, xqp_destroy_qp(cur), 0);
	s = tt_sge(&a, 0, 8);
	KUNIT_ASSERT_EQ(test, tt_send(ini, XQP_WR_SEND, &s, xqp_srq_num(srq)), 0);
	KUNIT_ASSERT_TRUE(test, tt_poll1(a.cq, &wc));
	KUNIT_EXPECT_EQ(test, wc.status, XQP_WC_RETRY_EXC_ERR);

	KUNIT_EXPECT_EQ(test, xqp_destroy_qp(ini), 0);
	KUNIT_EXPECT_EQ(test, xqp_destroy_srq(srq), 0);
	KUNIT_EXPECT_EQ(test, xqp_dealloc_xrcd(xrcd), 0);
	tt_node_fini(test, &a);
	tt_node_fini(test, &b);
	xqp_soft_destroy(soft_b);
}

static DEFINE_SPINLOCK(tt_lock);

/*
 * RC on one device (loopback) with every opcode; the WRITE is posted with
 * a spinlock held, so it runs on the work queue, not in the poster.
 */
static void rc_every_opcode_loopback(struct kunit *test)
{
	struct xqp_kt *kt = xqp_kt(test);
	struct tt_node n = {};
	struct xqp_qp *qa, *qb;
	struct xqp_recv_wr rw = {};
	const struct xqp_recv_wr *rbad;
	const struct xqp_send_wr *bad;
	struct xqp_send_wr wr = {};
	struct xqp_sge s, r;
	struct xqp_wc wc;
	u64 v = 5;
	int err;

	tt_node_init(test, &n, kt->dev, false);
	qa = tt_qp(test, &n, XQP_QPT_RC);
	qb = tt_qp(test, &n, XQP_QPT_RC);
	tt_connect(test, qa, XQP_QPT_RC, xqp_soft_lid(kt->soft), xqp_qp_num(qb), true);
	tt_connect(test, qb, XQP_QPT_RC, xqp_soft_lid(kt->soft), xqp_qp_num(qa), true);

	r = tt_sge(&n, 4096, 128);
	rw.sg_list = &r;
	rw.num_sge = 1;
	KUNIT_ASSERT_EQ(test, xqp_post_recv(qb, &rw, &rbad), 0);
	strscpy(n.buf, "hello xqp", 16);
	s = tt_sge(&n, 0, 16);
	KUNIT_ASSERT_EQ(test, tt_send(qa, XQP_WR_SEND, &s, 0), 0);
	KUNIT_ASSERT_TRUE(test, tt_poll1(n.cq, &wc));
	KUNIT_ASSERT_TRUE(test, tt_poll1(n.cq, &wc));
	KUNIT_EXPECT_STREQ(test, n.buf + 4096, "hello xqp");

	wr.opcode = XQP_WR_RDMA_WRITE;
	wr.sg_list = &s;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = (uintptr_t)(n.buf + 8192);
	wr.wr.rdma.rkey = xqp_mr_rkey(n.mr);
	spin_lock(&tt_lock);
	err = xqp_post_send(qa, &wr, &bad);
	spin_unlock(&tt_lock);
	KUNIT_ASSERT_EQ(test, err, 0);
	KUNIT_ASSERT_TRUE(test, tt_poll1(n.cq, &wc));
	KUNIT_EXPECT_EQ(test, wc.opcode, XQP_WC_RDMA_WRITE);
	KUNIT_EXPECT_STREQ(test, n.buf + 8192, "hello xqp");

	wr.opcode = XQP_WR_RDMA_READ;
	s = tt_sge(&n, 12288, 16);
	KUNIT_ASSERT_EQ(test, xqp_post_send(qa, &wr, &bad), 0);
	KUNIT_ASSERT_TRUE(test, tt_poll1(n.cq, &wc));
	KUNIT_EXPECT_EQ(test, wc.opcode, XQP_WC_RDMA_READ);
	KUNIT_EXPECT_STREQ(test, n.buf + 12288, "hello xqp");

	memcpy(n.buf + 16384, &v, 8);
	s = tt_sge(&n, 16392, 8);
	wr.opcode = XQP_WR_ATOMIC_FETCH_AND_ADD;
	wr.wr.atomic.remote_addr = (uintptr_t)(n.buf + 16384);
	wr.wr.atomic.compare_add = 10;
	wr.wr.atomic.rkey = xqp_mr_rkey(n.mr);
	KUNIT_ASSERT_EQ(test, xqp_post_send(qa, &wr, &bad), 0);
	KUNIT_ASSERT_TRUE(test, tt_poll1(n.cq, &wc));
	KUNIT_EXPECT_EQ(test, wc.opcode, XQP_WC_FETCH_ADD);
	memcpy(&v, n.buf + 16384, 8);
	KUNIT_EXPECT_EQ(test, v, 15ULL);
	memcpy(&v, n.buf + 16392, 8);
	KUNIT_EXPECT_EQ(test, v, 5ULL);

	KUNIT_EXPECT_EQ(test, xqp_destroy_qp(qa), 0);
	KUNIT_EXPECT_EQ(test, xqp_destroy_qp(qb), 0);
	tt_node_fini(test, &n);
}

/* A QP whose head waits for an RNR retry (for ever) is destroyed cleanly. */
static void destroy_while_rnr_waits(struct kunit *test)
{
	struct xqp_kt *kt = xqp_kt(test);
	struct tt_node n = {};
	struct xqp_qp *qa, *qb;
	struct xqp_sge s;
	struct xqp_wc wc;

	tt_node_init(test, &n, kt->dev, true);
	qa = tt_qp(test, &n, XQP_QPT_RC);
	qb = tt_qp(test, &n, XQP_QPT_RC);
	tt_connect(test, qa, XQP_QPT_RC, xqp_soft_lid(kt->soft), xqp_qp_num(qb), true);
	tt_connect(test, qb, XQP_QPT_RC, xqp_soft_lid(kt->soft), xqp_qp_num(qa), true);
	s = tt_sge(&n, 0, 64);
	KUNIT_ASSERT_EQ(test, tt_send(qa, XQP_WR_SEND, &s, 0), 0);
	KUNIT_ASSERT_EQ(test, tt_send(qa, XQP_WR_SEND, &s, 0), 0);
	msleep(20);
	KUNIT_EXPECT_EQ(test, xqp_poll_cq(n.cq, 1, &wc), 0);
	KUNIT_EXPECT_EQ(test, xqp_destroy_qp(qb), 0);
	KUNIT_EXPECT_EQ(test, xqp_destroy_qp(qa), 0);
	tt_node_fini(test, &n);
}

/* A UD QP of @n in RTS with Q_Key 0x1234. */
static struct xqp_qp *tt_ud(struct kunit *test, struct tt_node *n)
{
	struct xqp_qp *qp = tt_qp(test, n, XQP_QPT_UD);
	struct xqp_qp_attr a = { .qp_state = XQP_QPS_INIT, .port_num = 1, .qkey = 0x1234 };

	KUNIT_ASSERT_EQ(test, xqp_modify_qp(qp, &a, XQP_QP_STATE | XQP_QP_PKEY_INDEX |
					     XQP_QP_PORT | XQP_QP_QKEY), 0);
	a.qp_state = XQP_QPS_RTR;
	KUNIT_ASSERT_EQ(test, xqp_modify_qp(qp, &a, XQP_QP_STATE), 0);
	a.qp_state = XQP_QPS_RTS;
	KUNIT_ASSERT_EQ(test, xqp_modify_qp(qp, &a, XQP_QP_STATE | XQP_QP_SQ_PSN), 0);
	return qp;
}

/*
 * UD multicast in the kernel: three QPs of one device attached to a group,
 * the sender among them; two messages, one posted under a spinlock (run on
 * the work queue), reach all three. Then a second device goes with a QP
 * still attached: its teardown detaches it (kmemleak sees no group left).
 */
static void mcast_loopback_and_teardown(struct kunit *test)
{
	static const u8 g[16] = { 0xff, 0x0e, [15] = 0x42 };
	struct xqp_kt *kt = xqp_kt(test);
	struct xqp_ah_attr av = { .is_global = 1, .port_num = 1, .hop_limit = 1 };
	struct tt_node n = {}, m = {};
	struct xqp_qp *q[3], *lone;
	struct xqp_soft *soft2;
	struct xqp_recv_wr rw = { .num_sge = 1 };
	const struct xqp_recv_wr *rbad;
	const struct xqp_send_wr *bad;
	struct xqp_send_wr wr = { .opcode = XQP_WR_SEND, .num_sge = 1 };
	struct xqp_sge rs, ss;
	struct xqp_wc wc;
	struct xqp_ah *ah;
	int i, got = 0;

	tt_node_init(test, &n, kt->dev, false);
	memcpy(av.dgid, g, 16);
	ah = xqp_create_ah(n.pd, &av);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ah));
	for (i = 0; i < 3; i++) {
		q[i] = tt_ud(test, &n);
		KUNIT_ASSERT_EQ(test, xqp_attach_mcast(q[i], g, 0xc000), 0);
		for (int k = 0; k < 2; k++) {
			rs = tt_sge(&n, 4096 * (2 * i + k), 4096);
			rw.sg_list = &rs;
			KUNIT_ASSERT_EQ(test, xqp_post_recv(q[i], &rw, &rbad), 0);
		}
	}
	KUNIT_EXPECT_EQ(test, xqp_destroy_qp(q[1]), -EBUSY);
	memset(n.buf + 32768, 'k', 64);
	ss = tt_sge(&n, 32768, 64);
	wr.sg_list = &ss;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = XQP_MULTICAST_QPN;
	wr.wr.ud.remote_qkey = 0x1234;
	KUNIT_ASSERT_EQ(test, xqp_post_send(q[0], &wr, &bad), 0);
	spin_lock(&tt_lock);
	KUNIT_EXPECT_EQ(test, xqp_post_send(q[0], &wr, &bad), 0);
	spin_unlock(&tt_lock);
	/* two sends and six receives, on the one CQ */
	while (got < 8 && tt_poll1(n.cq, &wc)) {
		KUNIT_EXPECT_EQ(test, wc.status, XQP_WC_SUCCESS);
		if (wc.opcode == XQP_WC_RECV)
			KUNIT_EXPECT_EQ(test, wc.byte_len, 40U + 64U);
		got++;
	}
	KUNIT_EXPECT_EQ(test, got, 8);
	KUNIT_EXPECT_EQ(test, xqp_poll_cq(n.cq, 1, &wc), 0);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, xqp_detach_mcast(q[i], g, 0xc000), 0);
		KUNIT_EXPECT_EQ(test, xqp_destroy_qp(q[i]), 0);
	}
	KUNIT_EXPECT_EQ(test, xqp_destroy_ah(ah), 0);
	tt_node_fini(test, &n);

	soft2 = xqp_soft_create("xqp_soft_kmc", NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(soft2));
	tt_node_init(test, &m, xqp_soft_device(soft2), false);
	lone = tt_ud(test, &m);
	KUNIT_ASSERT_EQ(test, xqp_attach_mcast(lone, g, 0xc000), 0);
	xqp_soft_destroy(soft2);	/* detaches it; the core objects stay */
	KUNIT_EXPECT_EQ(test, xqp_destroy_qp(lone), 0);
	tt_node_fini(test, &m);
}

XQP_KUNIT_SUITE(xqp_traffic_suite, "xqp_traffic", XQP_KT_FIXTURE,
		KUNIT_CASE(xrc_traffic_through_changing_shares),
		KUNIT_CASE(rc_every_opcode_loopback),
		KUNIT_CASE(destroy_while_rnr_waits),
		KUNIT_CASE(mcast_loopback_and_teardown));
