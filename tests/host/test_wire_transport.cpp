// SPDX-License-Identifier: GPL-2.0
/*
 * RoCE v2 on the wire, transport rules (drivers/soft/wire_*.c): two linked
 * devices in different namespaces reach each other only through the
 * host's wire (platform/host/wire_host.cpp), which can lose, duplicate and
 * reorder packets: every RC operation, multi-packet messages, UD with its
 * GRH, RNR waits, retransmission, bad packets dropped and counted.
 */
#include <unistd.h>
#include <vector>

#include "traffic.h"
#include "wire_host.h"

extern "C" {
#include "soft/wire.h"
}

namespace {

alignas(8) char wire_netdev[2][64];

struct net_device *wdev(int i)
{
	return reinterpret_cast<struct net_device *>(wire_netdev[i]);
}

void gid4(xqp_u8 gid[16], int host)
{
	std::memset(gid, 0, 16);
	gid[10] = gid[11] = 0xff;
	gid[12] = 10;
	gid[15] = static_cast<xqp_u8>(host);
}

struct xqp_soft_wire_counts wire_counts(xqp_soft *s)
{
	struct xqp_soft_wire_counts c = {};
	xqp_soft_wire_counts(s, &c);
	return c;
}

class WireTransport : public Core {
protected:
	void SetUp() override
	{
		Core::SetUp();
		xqp_host_wire_faults(0, 0, 0, 1);
		for (int i = 0; i < 2; i++) {
			xqp_host_wire_set_ns(wdev(i), i + 1);
			char name[16] = "xqp_wire0";
			name[8] = static_cast<char>('0' + i);
			l_[i] = xqp_soft_create_linked(name, wdev(i), 1, XQP_MTU_4096);
			ASSERT_FALSE(xqp_is_err(l_[i])) << xqp_ptr_err(l_[i]);
			ASSERT_TRUE(xqp_soft_wire_ready(l_[i]));
			gid4(gid_[i], i + 1);
			xqp_gid_entry e = {};
			std::memcpy(e.gid, gid_[i], 16);
			e.gid_type = XQP_GID_TYPE_ROCE_V2;
			ASSERT_EQ(xqp_modify_gid(ldev(i), 1, 0, &e), 0);
		}
		a_.init(ldev(0), 1 << 20);
		b_.init(ldev(1), 1 << 20);
	}
	void TearDown() override
	{
		xqp_host_wire_faults(0, 0, 0, 1);
		for (xqp_qp *qp : qps_)
			EXPECT_EQ(xqp_destroy_qp(qp), 0);
		a_.fini();
		b_.fini();
		xqp_host_wire_idle();
		xqp_work_flush_all();
		for (xqp_soft *s : l_)
			xqp_soft_destroy(s);
		Core::TearDown();
	}
	xqp_device *ldev(int i) { return xqp_soft_device(l_[i]); }
	xqp_qp *qp(Node &n, xqp_qp_type type, int wr = 64)
	{
		xqp_qp_init_attr init = {};
		init.qp_type = type;
		init.send_cq = n.scq;
		init.recv_cq = n.rcq;
		init.cap.max_send_wr = init.cap.max_recv_wr = static_cast<u32>(wr);
		init.cap.max_send_sge = init.cap.max_recv_sge = 2;
		init.sq_sig_type = XQP_SIGNAL_ALL_WR;
		xqp_qp *q = xqp_create_qp_user(n.dev, n.pd, &init, nullptr, nullptr, "test");
		EXPECT_FALSE(xqp_is_err(q)) << xqp_ptr_err(q);
		if (!xqp_is_err(q))
			qps_.push_back(q);
		return q;
	}
	/* An RC pair a -> b across the wire. */
	void rc_pair(xqp_qp **qa, xqp_qp **qb, xqp_u8 timeout = 14, xqp_u8 retry = 7,
		     xqp_u8 rd_atomic = 1)
	{
		*qa = qp(a_, XQP_QPT_RC);
		*qb = qp(b_, XQP_QPT_RC);
		ASSERT_TRUE(*qa && *qb && !xqp_is_err(*qa) && !xqp_is_err(*qb));
		connect_qp(*qa, XQP_QPT_RC, 0, xqp_qp_num(*qb), true, 0xe, 7, 1, 0, timeout, retry,
			   gid_[1], rd_atomic);
		connect_qp(*qb, XQP_QPT_RC, 0, xqp_qp_num(*qa), true, 0xe, 7, 1, 0, timeout, retry,
			   gid_[0], rd_atomic);
	}
	/* One SEND of @len bytes from qa to qb, both completions taken. */
	void send_one(xqp_qp *qa, xqp_qp *qb, u32 len)
	{
		ASSERT_EQ(post_recv(qb, 1, b_.sge(0, 8192)), 0);
		xqp_sge s = a_.sge(0, len);
		xqp_send_wr w = send_wr(&s);
		ASSERT_EQ(post_send(qa, w), 0);
		ASSERT_EQ(poll_n(b_.rcq, 1).size(), 1u);
		ASSERT_EQ(poll_n(a_.scq, 1).size(), 1u);
	}
	/* @n READs of @len bytes from qa, b's buffer into a's, wr_id 0..n-1. */
	void post_reads(xqp_qp *qa, u32 len, u32 n)
	{
		for (u32 i = 0; i < n; i++) {
			xqp_sge s = a_.sge(i * len, len);
			xqp_send_wr w = send_wr(&s);
			w.opcode = XQP_WR_RDMA_READ;
			w.wr.rdma.remote_addr = reinterpret_cast<uintptr_t>(b_.buf.data()) + i * len;
			w.wr.rdma.rkey = xqp_mr_rkey(b_.mr);
			w.wr_id = i;
			ASSERT_EQ(post_send(qa, w), 0);
		}
	}
	static void fill(Node &n, size_t off, size_t len, unsigned seed)
	{
		for (size_t i = 0; i < len; i++)
			n.buf[off + i] = static_cast<char>((i * 131 + seed * 7 + (i >> 8)) & 0xff);
	}

	xqp_soft *l_[2] = {};
	xqp_u8 gid_[2][16];
	Node a_, b_;
	std::vector<xqp_qp *> qps_;
};

xqp_send_wr rdma_wr(xqp_wr_opcode op, xqp_sge *s, xqp_u64 addr, u32 rkey)
{
	xqp_send_wr w = send_wr(s);
	w.opcode = op;
	w.wr.rdma.remote_addr = addr;
	w.wr.rdma.rkey = rkey;
	return w;
}

} // namespace

TEST_F(WireTransport, RcOperationsCrossTheWireInPackets)
{
	xqp_qp *qa, *qb;
	rc_pair(&qa, &qb);
	xqp_u64 sent0 = xqp_host_wire_sent();

	/* a SEND of three packets at the 4096-byte path MTU */
	fill(a_, 0, 10000, 1);
	ASSERT_EQ(post_recv(qb, 7, b_.sge(0, 16384)), 0);
	xqp_sge s = a_.sge(0, 10000);
	xqp_send_wr w = send_wr(&s);
	ASSERT_EQ(post_send(qa, w), 0);
	auto rc = poll_n(b_.rcq, 1);
	ASSERT_EQ(rc.size(), 1u);
	EXPECT_EQ(rc[0].status, XQP_WC_SUCCESS);
	EXPECT_EQ(rc[0].byte_len, 10000u);
	EXPECT_EQ(rc[0].src_qp, xqp_qp_num(qa));
	EXPECT_EQ(std::memcmp(b_.buf.data(), a_.buf.data(), 10000), 0);
	auto sc = poll_n(a_.scq, 1);
	ASSERT_EQ(sc.size(), 1u);
	EXPECT_EQ(sc[0].status, XQP_WC_SUCCESS);
	EXPECT_GE(xqp_host_wire_sent() - sent0, 4u);	/* 3 packets and an ACK */

	/* WRITE with immediate, 5 packets */
	fill(a_, 20000, 20000, 2);
	ASSERT_EQ(post_recv(qb, 8, b_.sge(0, 16)), 0);
	s = a_.sge(20000, 20000);
	w = rdma_wr(XQP_WR_RDMA_WRITE_WITH_IMM, &s, reinterpret_cast<uintptr_t>(b_.buf.data()) + 100000,
		    xqp_mr_rkey(b_.mr));
	w.imm_data = 0x12345678;
	ASSERT_EQ(post_send(qa, w), 0);
	rc = poll_n(b_.rcq, 1);
	ASSERT_EQ(rc.size(), 1u);
	EXPECT_EQ(rc[0].status, XQP_WC_SUCCESS);
	EXPECT_EQ(rc[0].opcode, XQP_WC_RECV_RDMA_WITH_IMM);
	EXPECT_EQ(rc[0].imm_data, 0x12345678u);
	EXPECT_EQ(rc[0].byte_len, 20000u);
	EXPECT_EQ(std::memcmp(b_.buf.data() + 100000, a_.buf.data() + 20000, 20000), 0);
	ASSERT_EQ(poll_n(a_.scq, 1).size(), 1u);

	/* READ of 30000 bytes: 8 response packets */
	fill(b_, 200000, 30000, 3);
	s = a_.sge(300000, 30000);
	w = rdma_wr(XQP_WR_RDMA_READ, &s, reinterpret_cast<uintptr_t>(b_.buf.data()) + 200000,
		    xqp_mr_rkey(b_.mr));
	ASSERT_EQ(post_send(qa, w), 0);
	sc = poll_n(a_.scq, 1);
	ASSERT_EQ(sc.size(), 1u);
	EXPECT_EQ(sc[0].status, XQP_WC_SUCCESS);
	EXPECT_EQ(sc[0].opcode, XQP_WC_RDMA_READ);
	EXPECT_EQ(sc[0].byte_len, 30000u);
	EXPECT_EQ(std::memcmp(a_.buf.data() + 300000, b_.buf.data() + 200000, 30000), 0);

	/* atomics: the remote value before comes back, the remote memory changes */
	xqp_u64 v = 40, got = 0;
	std::memcpy(b_.buf.data() + 400000, &v, 8);
	s = a_.sge(400000, 8);
	w = rdma_wr(XQP_WR_ATOMIC_FETCH_AND_ADD, &s, 0, 0);
	w.wr.atomic.remote_addr = reinterpret_cast<uintptr_t>(b_.buf.data()) + 400000;
	w.wr.atomic.rkey = xqp_mr_rkey(b_.mr);
	w.wr.atomic.compare_add = 2;
	ASSERT_EQ(post_send(qa, w), 0);
	sc = poll_n(a_.scq, 1);
	ASSERT_EQ(sc.size(), 1u);
	EXPECT_EQ(sc[0].status, XQP_WC_SUCCESS);
	std::memcpy(&got, a_.buf.data() + 400000, 8);
	EXPECT_EQ(got, 40u);
	std::memcpy(&v, b_.buf.data() + 400000, 8);
	EXPECT_EQ(v, 42u);
	w.opcode = XQP_WR_ATOMIC_CMP_AND_SWP;
	w.wr.atomic.compare_add = 42;
	w.wr.atomic.swap = 7;
	ASSERT_EQ(post_send(qa, w), 0);
	sc = poll_n(a_.scq, 1);
	ASSERT_EQ(sc.size(), 1u);
	EXPECT_EQ(sc[0].status, XQP_WC_SUCCESS);
	std::memcpy(&got, a_.buf.data() + 400000, 8);
	EXPECT_EQ(got, 42u);
	std::memcpy(&v, b_.buf.data() + 400000, 8);
	EXPECT_EQ(v, 7u);

	struct xqp_soft_wire_counts ca = wire_counts(l_[0]), cb = wire_counts(l_[1]);
	EXPECT_EQ(ca.rx_bad_icrc + cb.rx_bad_icrc + ca.rx_malformed + cb.rx_malformed, 0u);
	EXPECT_EQ(ca.retransmits + cb.retransmits, 0u);
}

TEST_F(WireTransport, RcSurvivesLossDuplicationAndReordering)
{
	xqp_qp *qa, *qb;
	rc_pair(&qa, &qb, 12, 7);	/* 16 ms ACK timeout */
	xqp_host_wire_faults(5, 2, 5, 42);
	const int n = 120, len = 9000;
	for (int i = 0; i < 60; i++)
		ASSERT_EQ(post_recv(qb, static_cast<xqp_u64>(i), b_.sge((i % 60) * 16384, 16384)), 0);
	int posted = 0, received = 0, completed = 0;
	std::vector<xqp_wc> wcs;
	while (completed < n || received < n) {
		while (posted < n && posted - completed < 32) {
			fill(a_, static_cast<size_t>(posted % 32) * 16384, len, static_cast<unsigned>(posted));
			xqp_sge s = a_.sge(static_cast<u32>(posted % 32) * 16384, len);
			xqp_send_wr w = send_wr(&s);
			w.wr_id = static_cast<xqp_u64>(posted);
			ASSERT_EQ(post_send(qa, w), 0);
			posted++;
		}
		auto sc = poll_n(a_.scq, 1, 20000);
		ASSERT_GE(sc.size(), 1u) << "completed " << completed;
		for (const xqp_wc &c : sc) {
			if (c.status != XQP_WC_SUCCESS) {
				for (int i = 0; i < 2; i++) {
					struct xqp_soft_wire_counts k = wire_counts(l_[i]);
					const xqp_u64 *v = reinterpret_cast<const xqp_u64 *>(&k);
					for (size_t j = 0; j < sizeof(k) / 8; j++)
						fprintf(stderr, "%d:%zu=%llu ", i, j, (unsigned long long)v[j]);
					fprintf(stderr, "\n");
				}
			}
			ASSERT_EQ(c.status, XQP_WC_SUCCESS);
			EXPECT_EQ(c.wr_id, static_cast<xqp_u64>(completed));
			completed++;
		}
		xqp_wc wc;
		while (xqp_poll_cq(b_.rcq, 1, &wc) == 1) {
			ASSERT_EQ(wc.status, XQP_WC_SUCCESS);
			ASSERT_EQ(wc.wr_id, static_cast<xqp_u64>(received));	/* in order, once each */
			ASSERT_EQ(wc.byte_len, static_cast<u32>(len));
			std::vector<char> want(len);
			for (int k = 0; k < len; k++)
				want[k] = static_cast<char>((k * 131 + received * 7 + (k >> 8)) & 0xff);
			ASSERT_EQ(std::memcmp(b_.buf.data() + (received % 60) * 16384, want.data(), len), 0)
				<< "message " << received;
			int next = received + 60;
			if (next < n) {
				ASSERT_EQ(post_recv(qb, static_cast<xqp_u64>(next),
						    b_.sge((next % 60) * 16384, 16384)), 0);
			}
			received++;
		}
	}
	xqp_wc extra;
	EXPECT_EQ(xqp_poll_cq(b_.rcq, 1, &extra), 0);	/* nothing twice */
	struct xqp_soft_wire_counts ca = wire_counts(l_[0]), cb = wire_counts(l_[1]);
	EXPECT_GT(ca.retransmits, 0u);
	EXPECT_GT(cb.rx_duplicate + cb.rx_out_of_seq, 0u);
}

TEST_F(WireTransport, UdCarriesTheIpHeaderAndChecksTheQkey)
{
	xqp_qp *ua = qp(a_, XQP_QPT_UD), *ub = qp(b_, XQP_QPT_UD);
	ASSERT_TRUE(ua && ub);
	connect_qp(ua, XQP_QPT_UD, 0, 0, true, 0, 7, 1, 0x1234);
	connect_qp(ub, XQP_QPT_UD, 0, 0, true, 0, 7, 1, 0x1234);
	xqp_ah_attr av = {};
	av.is_global = 1;
	av.port_num = 1;
	av.sgid_index = 0;
	av.hop_limit = 64;
	std::memcpy(av.dgid, gid_[1], 16);
	xqp_ah *ah = xqp_create_ah(a_.pd, &av);
	ASSERT_FALSE(xqp_is_err(ah)) << xqp_ptr_err(ah);

	ASSERT_EQ(post_recv(ub, 1, b_.sge(0, 2048)), 0);
	fill(a_, 0, 1000, 5);
	xqp_sge s = a_.sge(0, 1000);
	xqp_send_wr w = send_wr(&s, ah, xqp_qp_num(ub), 0x9999);	/* wrong Q_Key: dropped */
	ASSERT_EQ(post_send(ua, w), 0);
	ASSERT_EQ(poll_n(a_.scq, 1).size(), 1u);
	w = send_wr(&s, ah, xqp_qp_num(ub), 0x1234);
	ASSERT_EQ(post_send(ua, w), 0);
	auto rc = poll_n(b_.rcq, 1);
	ASSERT_EQ(rc.size(), 1u);
	EXPECT_EQ(rc[0].status, XQP_WC_SUCCESS);
	EXPECT_EQ(rc[0].byte_len, 1040u);
	EXPECT_EQ(rc[0].src_qp, xqp_qp_num(ua));
	EXPECT_TRUE(rc[0].wc_flags & XQP_WC_GRH);
	const auto *ip = reinterpret_cast<const xqp_u8 *>(b_.buf.data()) + 20;
	EXPECT_EQ(ip[0], 0x45);			/* IPv4, as rxe lays it out */
	EXPECT_EQ(ip[9], 17);
	EXPECT_EQ(std::memcmp(ip + 12, gid_[0] + 12, 4), 0);
	EXPECT_EQ(std::memcmp(ip + 16, gid_[1] + 12, 4), 0);
	EXPECT_EQ(std::memcmp(b_.buf.data() + 40, a_.buf.data(), 1000), 0);
	EXPECT_EQ(wire_counts(l_[1]).rx_bad_qkey, 1u);
	EXPECT_EQ(xqp_destroy_ah(ah), 0);
}

TEST_F(WireTransport, RnrNakWaitsForTheReceiveAndGoesOn)
{
	xqp_qp *qa, *qb;
	rc_pair(&qa, &qb);
	fill(a_, 0, 5000, 9);
	xqp_sge s = a_.sge(0, 5000);
	xqp_send_wr w = send_wr(&s);
	ASSERT_EQ(post_send(qa, w), 0);
	/* nothing posted yet: RNR NAKs until it is */
	for (int i = 0; i < 500 && wire_counts(l_[0]).rnr_naks_taken == 0; i++)
		usleep(1000);
	EXPECT_GT(wire_counts(l_[0]).rnr_naks_taken, 0u);
	ASSERT_EQ(post_recv(qb, 3, b_.sge(0, 8192)), 0);
	auto rc = poll_n(b_.rcq, 1);
	ASSERT_EQ(rc.size(), 1u);
	EXPECT_EQ(rc[0].status, XQP_WC_SUCCESS);
	EXPECT_EQ(std::memcmp(b_.buf.data(), a_.buf.data(), 5000), 0);
	auto sc = poll_n(a_.scq, 1);
	ASSERT_EQ(sc.size(), 1u);
	EXPECT_EQ(sc[0].status, XQP_WC_SUCCESS);
}

TEST_F(WireTransport, RemoteAccessErrorIsNakedAndBothSidesErr)
{
	xqp_qp *qa, *qb;
	rc_pair(&qa, &qb);
	xqp_sge s = a_.sge(0, 100);
	xqp_send_wr w = rdma_wr(XQP_WR_RDMA_WRITE, &s, 0x1000, xqp_mr_rkey(b_.mr) ^ 0x100);
	ASSERT_EQ(post_send(qa, w), 0);
	auto sc = poll_n(a_.scq, 1);
	ASSERT_EQ(sc.size(), 1u);
	EXPECT_EQ(sc[0].status, XQP_WC_REM_ACCESS_ERR);
	EXPECT_EQ(wire_counts(l_[1]).naks_sent, 1u);
	xqp_qp_attr at = {};
	xqp_qp_init_attr ia = {};
	ASSERT_EQ(xqp_query_qp(qb, &at, XQP_QP_STATE, &ia), 0);
	EXPECT_EQ(at.qp_state, XQP_QPS_ERR);
}

TEST_F(WireTransport, NoPeerRunsOutOfRetries)
{
	xqp_qp *qa, *qb;
	rc_pair(&qa, &qb, 8, 2);
	ASSERT_EQ(xqp_modify_gid(ldev(1), 1, 0, nullptr), 0);	/* b's address is gone */
	xqp_sge s = a_.sge(0, 100);
	xqp_send_wr w = send_wr(&s);
	ASSERT_EQ(post_send(qa, w), 0);
	auto sc = poll_n(a_.scq, 1, 10000);
	ASSERT_EQ(sc.size(), 1u);
	EXPECT_EQ(sc[0].status, XQP_WC_RETRY_EXC_ERR);
	EXPECT_EQ(wire_counts(l_[0]).retransmits, 2u);
}

TEST_F(WireTransport, BadPacketsAreDroppedAndCounted)
{
	xqp_qp *qa, *qb;
	rc_pair(&qa, &qb);
	xqp_u8 pkt[64] = {};
	/* a SEND_ONLY to qb with 4 payload bytes and a wrong ICRC */
	pkt[0] = 0x04;
	pkt[2] = pkt[3] = 0xff;
	pkt[5] = static_cast<xqp_u8>(xqp_qp_num(qb) >> 16);
	pkt[6] = static_cast<xqp_u8>(xqp_qp_num(qb) >> 8);
	pkt[7] = static_cast<xqp_u8>(xqp_qp_num(qb));
	xqp_host_wire_inject(wdev(1), gid_[0], gid_[1], pkt, 12 + 4 + 4);
	xqp_host_wire_inject(wdev(1), gid_[0], gid_[1], pkt, 10);	/* shorter than a BTH */
	xqp_host_wire_idle();
	struct xqp_soft_wire_counts c = wire_counts(l_[1]);
	EXPECT_EQ(c.rx_bad_icrc, 1u);
	EXPECT_EQ(c.rx_malformed, 1u);

	send_one(qa, qb, 64);	/* the connection still works */
}

TEST_F(WireTransport, LongMessagesBothWaysAtOnce)
{
	xqp_qp *qa, *qb;
	rc_pair(&qa, &qb);
	const u32 len = 256 * 1024;	/* 64 packets at 4096 */
	for (int round = 0; round < 20; round++) {
		ASSERT_EQ(post_recv(qb, 1, b_.sge(0, len)), 0);
		ASSERT_EQ(post_recv(qa, 2, a_.sge(0, len)), 0);
		fill(a_, 512 * 1024, len, static_cast<unsigned>(round));
		fill(b_, 512 * 1024, len, static_cast<unsigned>(round + 100));
		xqp_sge sa = a_.sge(512 * 1024, len), sb = b_.sge(512 * 1024, len);
		xqp_send_wr wa = send_wr(&sa), wb = send_wr(&sb);
		ASSERT_EQ(post_send(qa, wa), 0);
		ASSERT_EQ(post_send(qb, wb), 0);
		ASSERT_EQ(poll_n(b_.rcq, 1).size(), 1u) << "round " << round;
		ASSERT_EQ(poll_n(a_.rcq, 1).size(), 1u) << "round " << round;
		ASSERT_EQ(poll_n(a_.scq, 1).size(), 1u);
		ASSERT_EQ(poll_n(b_.scq, 1).size(), 1u);
		ASSERT_EQ(std::memcmp(b_.buf.data(), a_.buf.data() + 512 * 1024, len), 0);
		ASSERT_EQ(std::memcmp(a_.buf.data(), b_.buf.data() + 512 * 1024, len), 0);
	}
}

/*
 * READs back to back, as ib_read_bw posts them: the responder takes each
 * while it still sends the one before (they wait their turn in its
 * resources), so every one completes without a retransmission.
 */
TEST_F(WireTransport, ReadsInFlightTogetherAllComplete)
{
	xqp_qp *qa, *qb;
	rc_pair(&qa, &qb, 14, 7, 16);
	const u32 len = 80000, n = 12;	/* 20 response packets each */
	fill(b_, 0, len * n, 9);
	for (u32 round = 0; round < 3; round++) {
		std::memset(a_.buf.data(), 0, len * n);
		post_reads(qa, len, n);
		auto sc = poll_n(a_.scq, n);
		ASSERT_EQ(sc.size(), n) << "round " << round;
		for (u32 i = 0; i < n; i++) {
			EXPECT_EQ(sc[i].status, XQP_WC_SUCCESS);
			EXPECT_EQ(sc[i].wr_id, i);
		}
		ASSERT_EQ(std::memcmp(a_.buf.data(), b_.buf.data(), len * n), 0);
	}
	struct xqp_soft_wire_counts ca = wire_counts(l_[0]), cb = wire_counts(l_[1]);
	EXPECT_EQ(ca.retransmits + cb.retransmits, 0u);
	EXPECT_EQ(cb.rx_busy, 0u);
}

/*
 * READs and SENDs mixed on a wire that loses, duplicates and reorders: a
 * SEND that came while READ responses went out is asked for again with a
 * sequence NAK, duplicated READs are answered from the resources, and
 * every byte arrives once.
 */
TEST_F(WireTransport, ReadsAndSendsSurviveLoss)
{
	xqp_qp *qa, *qb;
	rc_pair(&qa, &qb, 14, 7, 8);	/* 67 ms ACK timeout */
	const u32 len = 30000, n = 8;	/* READs of 8 packets, then a SEND */
	fill(b_, 0, len * n, 5);
	xqp_host_wire_faults(5, 2, 5, 7);
	for (u32 round = 0; round < 6; round++) {
		std::memset(a_.buf.data(), 0, len * n);
		fill(a_, 600000, 5000, round);
		ASSERT_EQ(post_recv(qb, 100 + round, b_.sge(700000, 8192)), 0);
		post_reads(qa, len, n);
		xqp_sge s = a_.sge(600000, 5000);
		xqp_send_wr w = send_wr(&s);
		w.wr_id = n;
		ASSERT_EQ(post_send(qa, w), 0);
		auto sc = poll_n(a_.scq, n + 1, 20000);
		ASSERT_EQ(sc.size(), n + 1) << "round " << round;
		for (u32 i = 0; i <= n; i++) {
			ASSERT_EQ(sc[i].status, XQP_WC_SUCCESS) << "round " << round << " wr " << i
				<< " retransmits " << wire_counts(l_[0]).retransmits;
			EXPECT_EQ(sc[i].wr_id, i);
		}
		ASSERT_EQ(std::memcmp(a_.buf.data(), b_.buf.data(), len * n), 0) << "round " << round;
		auto rc = poll_n(b_.rcq, 1, 20000);
		ASSERT_EQ(rc.size(), 1u);
		EXPECT_EQ(rc[0].wr_id, 100 + round);
		EXPECT_EQ(rc[0].byte_len, 5000u);
		ASSERT_EQ(std::memcmp(b_.buf.data() + 700000, a_.buf.data() + 600000, 5000), 0);
	}
	xqp_wc extra;
	EXPECT_EQ(xqp_poll_cq(b_.rcq, 1, &extra), 0);	/* nothing twice */
	struct xqp_soft_wire_counts ca = wire_counts(l_[0]), cb = wire_counts(l_[1]);
	EXPECT_GT(ca.retransmits, 0u);
	EXPECT_GT(cb.rx_duplicate, 0u);
}

/*
 * READ responses reordered (a packet overtaken by the next): the requester
 * asks the READ again at once from the packet missing, as rxe's completer
 * does, instead of waiting out its ACK timeout (4.3 s here) for each gap.
 * Two guests with netem's reordering stalled rping's 64 KiB READs for
 * minutes before.
 */
TEST_F(WireTransport, AReadResponseGapIsAskedAgainAtOnce)
{
	xqp_qp *qa, *qb;
	rc_pair(&qa, &qb, 20, 7, 1);	/* 4.3 s ACK timeout */
	const u32 len = 32 * 4096;	/* 32 response packets */
	fill(b_, 0, len, 3);
	xqp_host_wire_faults(0, 0, 10, 11);
	for (u32 round = 0; round < 8; round++) {
		std::memset(a_.buf.data(), 0, len);
		xqp_sge s = a_.sge(0, len);
		xqp_send_wr w = rdma_wr(XQP_WR_RDMA_READ, &s, reinterpret_cast<uintptr_t>(b_.buf.data()),
					xqp_mr_rkey(b_.mr));
		w.wr_id = round;
		ASSERT_EQ(post_send(qa, w), 0);
		auto sc = poll_n(a_.scq, 1, 2500);	/* well within one timeout */
		ASSERT_EQ(sc.size(), 1u) << "round " << round;
		EXPECT_EQ(sc[0].status, XQP_WC_SUCCESS);
		ASSERT_EQ(std::memcmp(a_.buf.data(), b_.buf.data(), len), 0) << "round " << round;
	}
	struct xqp_soft_wire_counts ca = wire_counts(l_[0]);
	EXPECT_GT(ca.retransmits, 0u);	/* the gaps were asked again */
}

/*
 * One READ response packet lost while READs behind it are in flight (as
 * ib_read_bw keeps them): the next READ's response tells the requester
 * that the head's was lost, and it asks again at once, as rxe's completer
 * does, instead of after its ACK timeout (4.3 s here; 67 ms in perftest,
 * where each such loss cost that much). The responder, asked again from
 * inside a response, stops the old one at once.
 */
TEST_F(WireTransport, AReadResponseLostBehindReadsIsAskedAgainAtOnce)
{
	xqp_qp *qa, *qb;
	rc_pair(&qa, &qb, 20, 7, 16);	/* 4.3 s ACK timeout */
	const u32 len = 20 * 4096, n = 8;	/* 20 response packets each */
	fill(b_, 0, len * n, 4);
	for (u32 round = 0; round < 4; round++) {
		std::memset(a_.buf.data(), 0, len * n);
		/* a middle packet of READ 0, 1, 2, 3 by round */
		xqp_host_wire_drop_one(SOFT_OP_RC | SOFT_OP_READ_RESPONSE_MIDDLE, round * 18 + 5);
		post_reads(qa, len, n);
		auto sc = poll_n(a_.scq, n, 2500);	/* well within one timeout */
		ASSERT_EQ(sc.size(), n) << "round " << round;
		for (u32 i = 0; i < n; i++) {
			EXPECT_EQ(sc[i].status, XQP_WC_SUCCESS);
			EXPECT_EQ(sc[i].wr_id, i);
		}
		ASSERT_EQ(std::memcmp(a_.buf.data(), b_.buf.data(), len * n), 0) << "round " << round;
	}
	EXPECT_GE(wire_counts(l_[0]).retransmits, 4u);
}

/*
 * On the wire too a receive is checked packet by packet where the message
 * writes (as rxe): a receive SGE past its MR's end takes an 8-byte SEND, a
 * three-packet SEND fills a WQE whose second SGE (no MR) it never reaches,
 * and one that reaches that SGE fails with LOC_PROT_ERR.
 */
TEST_F(WireTransport, ReceiveIsCheckedWhereEachPacketWrites)
{
	xqp_qp *qa, *qb;
	rc_pair(&qa, &qb);
	const size_t end = 1 << 20;	/* b's MR */
	fill(a_, 0, 20000, 6);
	ASSERT_EQ(post_recv(qb, 1, b_.sge(end - 1024, 8192)), 0);
	xqp_sge two[2] = { b_.sge(0, 12288), b_.sge(16384, 8192) };
	two[1].lkey ^= 0x100;	/* no such MR */
	for (xqp_u64 id : { 2, 3 })
		ASSERT_EQ(post_recv(qb, id, two, 2), 0);
	for (u32 len : { 8u, 12288u, 14000u }) {
		xqp_sge s = a_.sge(0, len);
		xqp_send_wr w = send_wr(&s);
		ASSERT_EQ(post_send(qa, w), 0);
		auto rc = poll_n(b_.rcq, 1);
		ASSERT_EQ(rc.size(), 1u) << len;
		EXPECT_EQ(rc[0].status, len < 14000 ? XQP_WC_SUCCESS : XQP_WC_LOC_PROT_ERR) << len;
		poll_n(a_.scq, 1);
	}
	EXPECT_EQ(std::memcmp(b_.buf.data() + end - 1024, a_.buf.data(), 8), 0);
	EXPECT_EQ(std::memcmp(b_.buf.data(), a_.buf.data(), 12288), 0);
}

/*
 * The wire's counts are the port's counters (driver op port_stats: what
 * ib_core shows as hw_counters and `rdma statistic`), by name, as debugfs
 * has them.
 */
/*
 * A type 2 window on the wire: its bind waits behind a SEND until that is
 * acknowledged, WRITEs of two packets go through its rkey, and a SEND
 * WITH INVALIDATE of three packets (the last carries the IETH) frees it.
 */
TEST_F(WireTransport, WindowsBindAndInvalidateAcrossTheWire)
{
	xqp_qp *qa, *qb;
	rc_pair(&qa, &qb);
	xqp_mr *bmr = xqp_reg_kernel_mr(b_.pd, b_.buf.data(), b_.buf.size(),
					XQP_ACCESS_LOCAL_WRITE | XQP_ACCESS_MW_BIND);
	ASSERT_FALSE(xqp_is_err(bmr));
	xqp_mw *mw = xqp_alloc_mw(b_.pd, XQP_MW_TYPE_2);
	ASSERT_FALSE(xqp_is_err(mw));
	u32 key = (xqp_mw_rkey(mw) & ~0xffU) | 0x77;
	xqp_u64 base = reinterpret_cast<uintptr_t>(b_.buf.data()) + 65536;

	ASSERT_EQ(post_recv(qa, 1, a_.sge(0, 4096)), 0);
	xqp_sge s = b_.sge(0, 3000);
	xqp_send_wr w = send_wr(&s);
	ASSERT_EQ(post_send(qb, w), 0);
	xqp_send_wr bw = {};
	bw.wr_id = 2;
	bw.opcode = XQP_WR_BIND_MW;
	bw.send_flags = XQP_SEND_SIGNALED;
	bw.wr.bind = { mw, key, xqp_mr_lkey(bmr), base, 8192,
		       XQP_ACCESS_REMOTE_WRITE | XQP_ACCESS_REMOTE_READ };
	ASSERT_EQ(post_send(qb, bw), 0);
	auto bc = poll_n(b_.scq, 2);
	ASSERT_EQ(bc.size(), 2u);
	EXPECT_EQ(bc[0].opcode, XQP_WC_SEND);	/* in order */
	EXPECT_EQ(bc[1].opcode, XQP_WC_BIND_MW);
	EXPECT_EQ(bc[1].status, XQP_WC_SUCCESS);
	ASSERT_EQ(poll_n(a_.rcq, 1).size(), 1u);

	fill(a_, 0, 6000, 4);
	s = a_.sge(0, 6000);
	w = rdma_wr(XQP_WR_RDMA_WRITE, &s, base + 100, key);
	ASSERT_EQ(post_send(qa, w), 0);
	auto sc = poll_n(a_.scq, 1);
	ASSERT_EQ(sc.size(), 1u);
	EXPECT_EQ(sc[0].status, XQP_WC_SUCCESS);
	EXPECT_EQ(std::memcmp(b_.buf.data() + 65536 + 100, a_.buf.data(), 6000), 0);
	EXPECT_EQ(xqp_dereg_mr(bmr), -XQP_EINVAL);

	ASSERT_EQ(post_recv(qb, 3, b_.sge(0, 16384)), 0);
	s = a_.sge(0, 9000);
	w = send_wr(&s);
	w.opcode = XQP_WR_SEND_WITH_INV;
	w.invalidate_rkey = key;
	ASSERT_EQ(post_send(qa, w), 0);
	auto rc = poll_n(b_.rcq, 1);
	ASSERT_EQ(rc.size(), 1u);
	EXPECT_EQ(rc[0].status, XQP_WC_SUCCESS);
	EXPECT_EQ(rc[0].byte_len, 9000u);
	EXPECT_EQ(rc[0].wc_flags, XQP_WC_WITH_INVALIDATE);
	EXPECT_EQ(rc[0].invalidate_rkey, key);
	ASSERT_EQ(poll_n(a_.scq, 1).size(), 1u);

	s = a_.sge(0, 8);
	w = rdma_wr(XQP_WR_RDMA_WRITE, &s, base, key);
	ASSERT_EQ(post_send(qa, w), 0);
	sc = poll_n(a_.scq, 1);
	ASSERT_EQ(sc.size(), 1u);
	EXPECT_EQ(sc[0].status, XQP_WC_REM_ACCESS_ERR);
	EXPECT_EQ(xqp_dealloc_mw(mw), 0);
	EXPECT_EQ(xqp_dereg_mr(bmr), 0);
}

TEST_F(WireTransport, PortCountersAreTheWireCounts)
{
	xqp_qp *qa, *qb;
	rc_pair(&qa, &qb);
	send_one(qa, qb, 5000);
	xqp_host_wire_idle();

	const char *names[64] = {};
	xqp_u64 values[64] = {};
	struct xqp_soft_wire_counts c = wire_counts(l_[0]);
	const xqp_u64 *v = reinterpret_cast<const xqp_u64 *>(&c);
	int n = xqp_port_stats(ldev(0), 1, names, values, 64);
	ASSERT_EQ(n, static_cast<int>(sizeof(c) / sizeof(xqp_u64)));
	EXPECT_STREQ(names[0], "tx_packets");
	EXPECT_STREQ(names[n - 1], "naks_taken");
	for (int i = 0; i < n; i++)
		EXPECT_EQ(values[i], v[i]) << names[i];
	EXPECT_GT(values[0], 0u);			/* packets went out */
	EXPECT_EQ(xqp_port_stats(ldev(0), 1, nullptr, nullptr, 0), n);	/* how many */
	EXPECT_EQ(xqp_port_stats(ldev(0), 2, names, values, 64), -XQP_EINVAL);
	const char *few[3] = {};
	EXPECT_EQ(xqp_port_stats(ldev(0), 1, few, nullptr, 3), n);	/* only 3 written */
	EXPECT_STREQ(few[2], "tx_dropped");
}

/*
 * UD multicast across the wire: a message to ::ffff:239.2.2.2 reaches the
 * QPs attached on the other namespace's device (through the wire, once)
 * and on the sender's own (inside the kernel), each with the IPv4 header
 * rxe writes; each device's netdev takes the group's MAC while the group
 * exists. A device with no such group drops the packet and counts it.
 */
TEST_F(WireTransport, MulticastReachesBothSidesOnce)
{
	xqp_u8 g[16];
	gid4(g, 2);
	g[12] = 239;
	g[13] = g[14] = 2;
	xqp_qp *s = qp(a_, XQP_QPT_UD), *ra = qp(a_, XQP_QPT_UD), *rb = qp(b_, XQP_QPT_UD);
	ASSERT_TRUE(s && ra && rb);
	for (xqp_qp *q : {s, ra, rb})
		connect_qp(q, XQP_QPT_UD, 0, 0, true, 0, 7, 1, 0x01234567);
	int macs = xqp_host_wire_mcast_macs();
	ASSERT_EQ(xqp_attach_mcast(ra, g, 0), 0);	/* RoCE: the LID is not looked at */
	ASSERT_EQ(xqp_attach_mcast(rb, g, 0), 0);
	EXPECT_EQ(xqp_host_wire_mcast_macs(), macs + 2);
	ASSERT_EQ(post_recv(ra, 1, a_.sge(0, 1024)), 0);
	ASSERT_EQ(post_recv(rb, 2, b_.sge(0, 1024)), 0);
	ASSERT_EQ(post_recv(rb, 3, b_.sge(1024, 1024)), 0);

	xqp_ah_attr av = {};
	av.is_global = 1;
	av.port_num = 1;
	av.hop_limit = 64;
	std::memcpy(av.dgid, g, 16);
	xqp_ah *ah = xqp_create_ah(a_.pd, &av);
	ASSERT_FALSE(xqp_is_err(ah)) << xqp_ptr_err(ah);
	fill(a_, 4096, 200, 3);
	xqp_sge sg = a_.sge(4096, 200);
	xqp_send_wr w = send_wr(&sg, ah, XQP_MULTICAST_QPN, 0x01234567);
	ASSERT_EQ(post_send(s, w), 0);
	ASSERT_EQ(poll_n(a_.scq, 1).size(), 1u);
	for (auto [n, r] : {std::pair<Node *, xqp_qp *>{&a_, ra}, {&b_, rb}}) {
		auto rc = poll_n(n->rcq, 1);
		ASSERT_EQ(rc.size(), 1u);
		EXPECT_EQ(rc[0].status, XQP_WC_SUCCESS);
		EXPECT_EQ(rc[0].qp_num, xqp_qp_num(r));
		EXPECT_EQ(rc[0].byte_len, 240u);
		EXPECT_EQ(rc[0].src_qp, xqp_qp_num(s));
		const auto *ip = reinterpret_cast<const xqp_u8 *>(n->buf.data()) + 20;
		EXPECT_EQ(ip[0], 0x45);
		EXPECT_EQ(std::memcmp(ip + 12, gid_[0] + 12, 4), 0);
		EXPECT_EQ(std::memcmp(ip + 16, g + 12, 4), 0);
		EXPECT_EQ(std::memcmp(n->buf.data() + 40, a_.buf.data() + 4096, 200), 0);
	}
	xqp_host_wire_idle();
	EXPECT_EQ(poll_n(b_.rcq, 1, 50).size(), 0u);	/* once, not twice */
	EXPECT_EQ(wire_counts(l_[1]).rx_unknown_qp, 0u);

	ASSERT_EQ(xqp_detach_mcast(rb, g, 0), 0);
	EXPECT_EQ(xqp_host_wire_mcast_macs(), macs + 1);
	ASSERT_EQ(post_send(s, w), 0);
	ASSERT_EQ(poll_n(a_.scq, 1).size(), 1u);
	xqp_host_wire_idle();
	EXPECT_EQ(wire_counts(l_[1]).rx_unknown_qp, 1u);	/* no group there now */
	EXPECT_EQ(poll_n(a_.rcq, 1, 50).size(), 0u);	/* ra has no receive left */
	ASSERT_EQ(xqp_detach_mcast(ra, g, 0), 0);
	EXPECT_EQ(xqp_host_wire_mcast_macs(), macs);
	EXPECT_EQ(xqp_destroy_ah(ah), 0);
}

/*
 * A group's datagram that comes back from the wire although a device of
 * the receiver's own kernel and namespace sent it (netdevs bridged): that
 * device's fabric delivered it already, so it is dropped and counted as a
 * duplicate; the same datagram from the other namespace's GID is taken.
 */
TEST_F(WireTransport, MulticastFromTheFabricIsNotTakenTwice)
{
	xqp_u8 g[16];
	gid4(g, 9);
	g[12] = 239;
	xqp_qp *rb = qp(b_, XQP_QPT_UD);
	ASSERT_TRUE(rb);
	connect_qp(rb, XQP_QPT_UD, 0, 0, true, 0, 7, 1, 0x4321);
	ASSERT_EQ(xqp_attach_mcast(rb, g, 0), 0);
	ASSERT_EQ(post_recv(rb, 1, b_.sge(0, 1024)), 0);
	ASSERT_EQ(post_recv(rb, 2, b_.sge(1024, 1024)), 0);
	/* UD SEND_ONLY to QP 0xffffff: BTH, DETH (Q_Key, source QP 7), 4 bytes, ICRC */
	xqp_u8 pkt[12 + 8 + 4 + 4] = {};
	pkt[0] = SOFT_OP_UD | SOFT_OP_SEND_ONLY;
	pkt[2] = pkt[3] = 0xff;
	pkt[5] = pkt[6] = pkt[7] = 0xff;
	soft_put_be32(pkt + 12, 0x4321);
	pkt[19] = 7;
	std::memcpy(pkt + 20, "mcst", 4);
	xqp_u64 dup0 = wire_counts(l_[1]).rx_duplicate;
	xqp_host_wire_inject(wdev(1), gid_[1], g, pkt, sizeof(pkt), true);	/* from itself */
	xqp_host_wire_idle();
	EXPECT_EQ(wire_counts(l_[1]).rx_duplicate, dup0 + 1);
	EXPECT_EQ(poll_n(b_.rcq, 1, 50).size(), 0u);
	xqp_host_wire_inject(wdev(1), gid_[0], g, pkt, sizeof(pkt), true);	/* from outside */
	xqp_host_wire_idle();
	auto rc = poll_n(b_.rcq, 1);
	ASSERT_EQ(rc.size(), 1u);
	EXPECT_EQ(rc[0].status, XQP_WC_SUCCESS);
	EXPECT_EQ(rc[0].src_qp, 7u);
	EXPECT_EQ(std::memcmp(b_.buf.data() + 40, "mcst", 4), 0);
	ASSERT_EQ(xqp_detach_mcast(rb, g, 0), 0);
}
