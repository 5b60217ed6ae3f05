// SPDX-License-Identifier: GPL-2.0
/*
 * What kernel clients of a device use (ib_core's MAD layer, ib_cm and
 * rdma_cm on a linked device's ib_device: drivers/ibdev/kverbs.c): the GSI
 * QP (QP1), the DMA MR of all kernel memory, and AHs made where sleeping
 * is not allowed.
 */
#include "traffic.h"

namespace {

constexpr u32 kQp1Qkey = 0x80010000;	/* IB_QP1_QKEY */

class KernelClients : public Traffic {
protected:
	/* A GSI QP on @n's device (port 1), or the error. */
	xqp_qp *gsi(Node &n, int *err = nullptr)
	{
		xqp_qp_init_attr init = {};
		init.qp_type = XQP_QPT_GSI;
		init.send_cq = n.scq;
		init.recv_cq = n.rcq;
		init.cap.max_send_wr = 16;
		init.cap.max_recv_wr = 16;
		init.cap.max_send_sge = 2;
		init.cap.max_recv_sge = 1;
		init.port_num = 1;
		xqp_qp *q = xqp_create_qp_user(n.dev, n.pd, &init, nullptr, nullptr, "kernel");
		if (err)
			*err = xqp_is_err(q) ? xqp_ptr_err(q) : 0;
		if (xqp_is_err(q))
			return nullptr;
		qps_.push_back(q);
		return q;
	}
	/* As ib_mad_port_start(): INIT (P_Key index, Q_Key; no port), RTR, RTS. */
	void start_gsi(xqp_qp *q)
	{
		xqp_qp_attr a = {};
		a.qp_state = XQP_QPS_INIT;
		a.qkey = kQp1Qkey;
		ASSERT_EQ(modify(q, a, XQP_QP_STATE | XQP_QP_PKEY_INDEX | XQP_QP_QKEY), 0);
		a = {};
		a.qp_state = XQP_QPS_RTR;
		ASSERT_EQ(modify(q, a, XQP_QP_STATE), 0);
		a.qp_state = XQP_QPS_RTS;
		ASSERT_EQ(modify(q, a, XQP_QP_STATE | XQP_QP_SQ_PSN), 0);
	}
	xqp_ah *ah_to(Node &to, int flags = 0)
	{
		xqp_ah_attr av = {};
		av.dlid = lid(to);
		av.port_num = 1;
		return xqp_create_ah_flags(a.pd, &av, flags);
	}
};

TEST_F(KernelClients, GsiIsQpOneAndOnePerPort)
{
	xqp_qp *g = gsi(a);
	ASSERT_NE(g, nullptr);
	EXPECT_EQ(xqp_qp_num(g), 1u);
	EXPECT_EQ(xqp_qp_get_type(g), XQP_QPT_GSI);
	int err = 0;
	EXPECT_EQ(gsi(a, &err), nullptr);
	EXPECT_EQ(err, -XQP_EBUSY);
	/* the other device has its own QP1 */
	xqp_qp *gb = gsi(b);
	ASSERT_NE(gb, nullptr);
	EXPECT_EQ(xqp_qp_num(gb), 1u);
	/* QP1 is free again once destroyed */
	forget(g);
	EXPECT_EQ(xqp_destroy_qp(g), 0);
	EXPECT_NE(gsi(a), nullptr);
}

/* Linux's table: a special QP's transitions never take a port. */
TEST_F(KernelClients, GsiTransitionsTakeNoPort)
{
	xqp_qp *g = gsi(a);
	ASSERT_NE(g, nullptr);
	xqp_qp_attr at = {};
	at.qp_state = XQP_QPS_INIT;
	at.qkey = kQp1Qkey;
	at.port_num = 1;
	EXPECT_EQ(modify(g, at, XQP_QP_STATE | XQP_QP_PKEY_INDEX | XQP_QP_QKEY | XQP_QP_PORT),
		  -XQP_EINVAL);
	EXPECT_EQ(xqp_modify_qp_is_ok(XQP_QPS_RESET, XQP_QPS_INIT, XQP_QPT_GSI,
				      XQP_QP_STATE | XQP_QP_PKEY_INDEX | XQP_QP_QKEY), 1);
	EXPECT_EQ(xqp_modify_qp_is_ok(XQP_QPS_RESET, XQP_QPS_INIT, XQP_QPT_UD,
				      XQP_QP_STATE | XQP_QP_PKEY_INDEX | XQP_QP_QKEY), 0);
	start_gsi(g);
}

/*
 * A MAD's way: QP1 to QP1 with the GSI Q_Key (its high bit: each side's
 * own), the buffers addressed by their kernel addresses through the DMA
 * MR's lkey, the receive's 40-byte GRH room counted in byte_len.
 */
TEST_F(KernelClients, GsiToGsiThroughTheDmaMr)
{
	xqp_qp *ga = gsi(a), *gb = gsi(b);
	ASSERT_TRUE(ga && gb);
	start_gsi(ga);
	start_gsi(gb);
	xqp_mr *dma_a = xqp_get_dma_mr(a.pd, XQP_ACCESS_LOCAL_WRITE);
	xqp_mr *dma_b = xqp_get_dma_mr(b.pd, XQP_ACCESS_LOCAL_WRITE);
	ASSERT_FALSE(xqp_is_err(dma_a));
	ASSERT_FALSE(xqp_is_err(dma_b));
	std::vector<char> mad(256), rbuf(40 + 256);
	for (size_t i = 0; i < mad.size(); i++)
		mad[i] = static_cast<char>(i * 7);
	xqp_sge rs = {reinterpret_cast<xqp_uintptr_t>(rbuf.data()), 40 + 256, xqp_mr_lkey(dma_b)};
	ASSERT_EQ(post_recv(gb, 9, rs), 0);
	xqp_ah *ah = ah_to(b);
	ASSERT_FALSE(xqp_is_err(ah));
	/* two SGEs, as ib_mad sends header and payload */
	xqp_sge ss[2] = {{reinterpret_cast<xqp_uintptr_t>(mad.data()), 24, xqp_mr_lkey(dma_a)},
			 {reinterpret_cast<xqp_uintptr_t>(mad.data() + 24), 232,
			  xqp_mr_lkey(dma_a)}};
	xqp_send_wr w = send_wr(ss, ah, 1, kQp1Qkey);
	w.num_sge = 2;
	ASSERT_EQ(post_send(ga, w), 0);
	auto r = poll_n(b.rcq, 1);
	ASSERT_EQ(r.size(), 1u);
	EXPECT_EQ(r[0].status, XQP_WC_SUCCESS);
	EXPECT_EQ(r[0].wr_id, 9u);
	EXPECT_EQ(r[0].byte_len, 40u + 256u);
	EXPECT_EQ(r[0].src_qp, 1u);
	EXPECT_EQ(r[0].qp_num, 1u);
	EXPECT_EQ(r[0].slid, lid(a));
	EXPECT_EQ(std::memcmp(rbuf.data() + 40, mad.data(), 256), 0);
	auto s = poll_n(a.scq, 1);
	ASSERT_EQ(s.size(), 1u);
	EXPECT_EQ(s[0].status, XQP_WC_SUCCESS);
	EXPECT_EQ(xqp_destroy_ah(ah), 0);
	EXPECT_EQ(xqp_dereg_mr(dma_a), 0);
	EXPECT_EQ(xqp_dereg_mr(dma_b), 0);
}

/*
 * An ordinary UD QP reaches QP1 only with QP1's Q_Key as its own, which
 * takes privilege to set (uverbs: CAP_NET_RAW): asking for the GSI Q_Key
 * in the WR means "my own", so an unprivileged sender's message is dropped.
 */
TEST_F(KernelClients, UdSenderWithItsOwnQkeyCannotReachQpOne)
{
	xqp_qp *gb = gsi(b);
	ASSERT_NE(gb, nullptr);
	start_gsi(gb);
	xqp_qp *ua = qp(a, XQP_QPT_UD);
	connect_qp(ua, XQP_QPT_UD, 0, 0);	/* Q_Key 0x11111111 */
	ASSERT_EQ(post_recv(gb, 1, b.sge(0, 40 + 64)), 0);
	xqp_ah *ah = ah_to(b);
	ASSERT_FALSE(xqp_is_err(ah));
	xqp_sge s = a.sge(0, 64);
	xqp_send_wr w = send_wr(&s, ah, 1, kQp1Qkey);
	ASSERT_EQ(post_send(ua, w), 0);
	EXPECT_EQ(poll_n(a.scq, 1).size(), 1u);	/* sent, as UD is */
	EXPECT_EQ(poll_n(b.rcq, 1, 200).size(), 0u);	/* and dropped */
	/* with the Q_Key set to QP1's (a privileged caller), it arrives */
	xqp_qp_attr at = {};
	at.qkey = kQp1Qkey;
	ASSERT_EQ(modify(ua, at, XQP_QP_QKEY), 0);
	ASSERT_EQ(post_send(ua, w), 0);
	EXPECT_EQ(poll_n(b.rcq, 1).size(), 1u);
	EXPECT_EQ(xqp_destroy_ah(ah), 0);
}

/* The DMA MR never gives remote access to all of the kernel's memory. */
TEST_F(KernelClients, DmaMrIsLocalOnly)
{
	for (int access : {int(XQP_ACCESS_REMOTE_READ), int(XQP_ACCESS_REMOTE_WRITE),
			   XQP_ACCESS_REMOTE_ATOMIC | XQP_ACCESS_LOCAL_WRITE})
		EXPECT_EQ(xqp_ptr_err(xqp_get_dma_mr(a.pd, access)), -XQP_EOPNOTSUPP) << access;
	xqp_mr *m = xqp_get_dma_mr(a.pd, 0);
	ASSERT_FALSE(xqp_is_err(m));
	/* the PD is in use while its MR is */
	EXPECT_EQ(xqp_dealloc_pd(a.pd), -XQP_EBUSY);
	EXPECT_EQ(xqp_dereg_mr(m), 0);
}

/* An AH made without sleeping: counted against max_ah, on no list, any flag else refused. */
TEST_F(KernelClients, AhWithoutSleepingIsCountedButNotListed)
{
	xqp_ah *ah = ah_to(b, XQP_AH_NO_SLEEP);
	ASSERT_FALSE(xqp_is_err(ah));
	EXPECT_EQ(xqp_ptr_err(ah_to(b, 2)), -XQP_EINVAL);
	EXPECT_EQ(xqp_dealloc_pd(a.pd), -XQP_EBUSY);
	/* it addresses UD sends as any AH */
	xqp_qp *ua = qp(a, XQP_QPT_UD), *ub = qp(b, XQP_QPT_UD);
	connect_qp(ua, XQP_QPT_UD, 0, 0);
	connect_qp(ub, XQP_QPT_UD, 0, 0);
	ASSERT_EQ(post_recv(ub, 1, b.sge(0, 40 + 8)), 0);
	xqp_sge s = a.sge(0, 8);
	xqp_send_wr w = send_wr(&s, ah, xqp_qp_num(ub));
	ASSERT_EQ(post_send(ua, w), 0);
	EXPECT_EQ(poll_n(b.rcq, 1).size(), 1u);
	EXPECT_EQ(xqp_destroy_ah(ah), 0);
}

} // namespace
