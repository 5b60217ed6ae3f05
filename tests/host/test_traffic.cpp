// SPDX-License-Identifier: GPL-2.0
/*
 * The data path on the host seam: two soft devices on one subnet, traffic
 * of every opcode over RC, UC, UD and XRC, the completion fields, the
 * posting rules, and the errors of docs/datapath.md.
 */
#include <memory>

#include "traffic.h"

namespace {

TEST_F(Traffic, DevicesHaveDistinctLidsAndActivePorts)
{
	xqp_port_attr pa = {}, pb = {};
	ASSERT_EQ(xqp_query_port(a.dev, 1, &pa), 0);
	ASSERT_EQ(xqp_query_port(b.dev, 1, &pb), 0);
	EXPECT_EQ(pa.state, static_cast<u32>(XQP_PORT_ACTIVE));
	EXPECT_NE(pa.lid, 0);
	EXPECT_NE(pa.lid, pb.lid);
	EXPECT_EQ(pa.lid, lid(a));
}

TEST_F(Traffic, GidAndPkeyTablesMatchThePort)
{
	xqp_port_attr pa = {};
	xqp_device_attr da = {};
	ASSERT_EQ(xqp_query_port(a.dev, 1, &pa), 0);
	ASSERT_EQ(xqp_query_device(a.dev, &da), 0);
	ASSERT_EQ(pa.gid_tbl_len, 1u);
	xqp_u8 gid[16] = {}, want[16] = {0xfe, 0x80};
	for (int i = 0; i < 8; i++)
		want[8 + i] = static_cast<xqp_u8>(da.node_guid >> (56 - 8 * i));
	ASSERT_EQ(xqp_query_gid(a.dev, 1, 0, gid), 0);
	EXPECT_EQ(memcmp(gid, want, 16), 0);
	EXPECT_EQ(xqp_query_gid(a.dev, 1, static_cast<int>(pa.gid_tbl_len), gid), -XQP_EINVAL);
	EXPECT_EQ(xqp_query_gid(a.dev, 1, -1, gid), -XQP_EINVAL);
	EXPECT_EQ(xqp_query_gid(a.dev, 2, 0, gid), -XQP_EINVAL);

	xqp_u16 pkey = 1;
	ASSERT_EQ(pa.pkey_tbl_len, 64);
	ASSERT_EQ(xqp_query_pkey(a.dev, 1, 0, &pkey), 0);
	EXPECT_EQ(pkey, 0xffff);
	ASSERT_EQ(xqp_query_pkey(a.dev, 1, pa.pkey_tbl_len - 1, &pkey), 0);
	EXPECT_EQ(pkey, 0);
	EXPECT_EQ(xqp_query_pkey(a.dev, 1, pa.pkey_tbl_len, &pkey), -XQP_EINVAL);
	EXPECT_EQ(xqp_query_pkey(a.dev, 0, 0, &pkey), -XQP_EINVAL);
}

TEST_F(Traffic, RcSendArrivesWithEveryCompletionField)
{
	xqp_qp *qa, *qb;
	pair(XQP_QPT_RC, &qa, &qb);
	ASSERT_EQ(post_recv(qb, 77, b.sge(0, 4096)), 0);
	fill(a, 0, 100, 'a');
	xqp_sge s = a.sge(0, 100);
	xqp_send_wr w = wr(XQP_WR_SEND_WITH_IMM, &s, 1, 5);
	w.imm_data = 0x01020304;
	ASSERT_EQ(post_send(qa, w), 0);

	auto rc = poll_n(b.rcq, 1);
	ASSERT_EQ(rc.size(), 1u);
	EXPECT_EQ(rc[0].wr_id, 77u);
	EXPECT_EQ(rc[0].status, XQP_WC_SUCCESS);
	EXPECT_EQ(rc[0].opcode, XQP_WC_RECV);
	EXPECT_EQ(rc[0].byte_len, 100u);
	EXPECT_EQ(rc[0].wc_flags, XQP_WC_WITH_IMM);
	EXPECT_EQ(rc[0].imm_data, 0x01020304u);
	EXPECT_EQ(rc[0].qp_num, xqp_qp_num(qb));
	EXPECT_EQ(rc[0].src_qp, xqp_qp_num(qa));
	EXPECT_EQ(rc[0].slid, lid(a));
	EXPECT_EQ(rc[0].port_num, 1);
	EXPECT_EQ(std::memcmp(b.buf.data(), a.buf.data(), 100), 0);

	auto sc = poll_n(a.scq, 1);
	ASSERT_EQ(sc.size(), 1u);
	EXPECT_EQ(sc[0].wr_id, 5u);
	EXPECT_EQ(sc[0].status, XQP_WC_SUCCESS);
	EXPECT_EQ(sc[0].opcode, XQP_WC_SEND);
	EXPECT_EQ(sc[0].byte_len, 100u);
	EXPECT_EQ(sc[0].qp_num, xqp_qp_num(qa));
}

TEST_F(Traffic, RcRdmaWriteReadAndAtomics)
{
	xqp_qp *qa, *qb;
	pair(XQP_QPT_RC, &qa, &qb);
	u32 rkey = xqp_mr_rkey(b.mr);

	fill(a, 0, 300, 'w');
	xqp_sge s = a.sge(0, 300);
	xqp_send_wr w = wr(XQP_WR_RDMA_WRITE, &s, 1, 1);
	w.wr.rdma.remote_addr = b.addr(1000);
	w.wr.rdma.rkey = rkey;
	ASSERT_EQ(post_send(qa, w), 0);
	auto c = poll_n(a.scq, 1);
	ASSERT_EQ(c.size(), 1u);
	EXPECT_EQ(c[0].opcode, XQP_WC_RDMA_WRITE);
	EXPECT_EQ(c[0].status, XQP_WC_SUCCESS);
	EXPECT_EQ(std::memcmp(b.buf.data() + 1000, a.buf.data(), 300), 0);

	fill(b, 5000, 200, 'r');
	s = a.sge(2000, 200);
	w = wr(XQP_WR_RDMA_READ, &s, 1, 2);
	w.wr.rdma.remote_addr = b.addr(5000);
	w.wr.rdma.rkey = rkey;
	ASSERT_EQ(post_send(qa, w), 0);
	c = poll_n(a.scq, 1);
	ASSERT_EQ(c.size(), 1u);
	EXPECT_EQ(c[0].opcode, XQP_WC_RDMA_READ);
	EXPECT_EQ(c[0].byte_len, 200u);
	EXPECT_EQ(std::memcmp(a.buf.data() + 2000, b.buf.data() + 5000, 200), 0);

	xqp_u64 v = 40;
	std::memcpy(b.buf.data() + 8192, &v, 8);
	s = a.sge(3000, 8);
	w = wr(XQP_WR_ATOMIC_FETCH_AND_ADD, &s, 1, 3);
	w.wr.atomic.remote_addr = b.addr(8192);
	w.wr.atomic.compare_add = 2;
	w.wr.atomic.rkey = rkey;
	ASSERT_EQ(post_send(qa, w), 0);
	c = poll_n(a.scq, 1);
	ASSERT_EQ(c.size(), 1u);
	EXPECT_EQ(c[0].opcode, XQP_WC_FETCH_ADD);
	EXPECT_EQ(c[0].byte_len, 8u);
	std::memcpy(&v, a.buf.data() + 3000, 8);
	EXPECT_EQ(v, 40u);
	std::memcpy(&v, b.buf.data() + 8192, 8);
	EXPECT_EQ(v, 42u);

	w = wr(XQP_WR_ATOMIC_CMP_AND_SWP, &s, 1, 4);
	w.wr.atomic.remote_addr = b.addr(8192);
	w.wr.atomic.compare_add = 42;
	w.wr.atomic.swap = 7;
	w.wr.atomic.rkey = rkey;
	ASSERT_EQ(post_send(qa, w), 0);
	c = poll_n(a.scq, 1);
	ASSERT_EQ(c.size(), 1u);
	EXPECT_EQ(c[0].opcode, XQP_WC_COMP_SWAP);
	std::memcpy(&v, b.buf.data() + 8192, 8);
	EXPECT_EQ(v, 7u);
	std::memcpy(&v, a.buf.data() + 3000, 8);
	EXPECT_EQ(v, 42u);
}

TEST_F(Traffic, WriteWithImmConsumesAReceiveAndInlineSendCopiesAtPost)
{
	xqp_qp *qa, *qb;
	pair(XQP_QPT_RC, &qa, &qb);
	ASSERT_EQ(post_recv(qb, 9, b.sge(0, 16)), 0);
	fill(a, 0, 64, 'i');
	xqp_sge s = a.sge(0, 64);
	xqp_send_wr w = wr(XQP_WR_RDMA_WRITE_WITH_IMM, &s, 1, 1);
	w.imm_data = 0xabcd;
	w.wr.rdma.remote_addr = b.addr(4096);
	w.wr.rdma.rkey = xqp_mr_rkey(b.mr);
	ASSERT_EQ(post_send(qa, w), 0);
	auto r = poll_n(b.rcq, 1);
	ASSERT_EQ(r.size(), 1u);
	EXPECT_EQ(r[0].opcode, XQP_WC_RECV_RDMA_WITH_IMM);
	EXPECT_EQ(r[0].byte_len, 64u);
	EXPECT_EQ(r[0].imm_data, 0xabcdu);
	EXPECT_EQ(std::memcmp(b.buf.data() + 4096, a.buf.data(), 64), 0);

	/* Inline: the data is taken at post time, the lkey is not looked at. */
	char data[32];
	std::memset(data, 'z', sizeof(data));
	xqp_sge is = {reinterpret_cast<xqp_uintptr_t>(data), sizeof(data), 0xdead};
	ASSERT_EQ(post_recv(qb, 10, b.sge(100, 64)), 0);
	w = wr(XQP_WR_SEND, &is, 1, 2, XQP_SEND_SIGNALED | XQP_SEND_INLINE);
	ASSERT_EQ(post_send(qa, w), 0);
	std::memset(data, 0, sizeof(data));
	r = poll_n(b.rcq, 1);
	ASSERT_EQ(r.size(), 1u);
	EXPECT_EQ(r[0].byte_len, 32u);
	EXPECT_EQ(b.buf[100], 'z');
	EXPECT_EQ(b.buf[131], 'z');
	EXPECT_EQ(poll_n(a.scq, 2).size(), 2u);
}

TEST_F(Traffic, UdSendWithAhLeavesGrhRoomAndDropsWrongQkey)
{
	xqp_qp *ua = qp(a, XQP_QPT_UD), *ub = qp(b, XQP_QPT_UD);
	connect_qp(ua, XQP_QPT_UD, 0, 0);
	connect_qp(ub, XQP_QPT_UD, 0, 0);
	xqp_ah_attr av = {};
	av.dlid = lid(b);
	av.port_num = 1;
	av.sl = 3;
	xqp_ah *ah = xqp_create_ah(a.pd, &av);
	ASSERT_FALSE(xqp_is_err(ah));
	ASSERT_EQ(post_recv(ub, 1, b.sge(0, 40 + 256)), 0);
	fill(a, 0, 256, 'u');
	xqp_sge s = a.sge(0, 256);
	xqp_send_wr w = wr(XQP_WR_SEND, &s, 1, 1);
	w.wr.ud.ah = ah;
	w.wr.ud.remote_qpn = xqp_qp_num(ub);
	w.wr.ud.remote_qkey = 0x11111111;
	ASSERT_EQ(post_send(ua, w), 0);
	auto r = poll_n(b.rcq, 1);
	ASSERT_EQ(r.size(), 1u);
	EXPECT_EQ(r[0].byte_len, 40u + 256u);
	EXPECT_EQ(r[0].src_qp, xqp_qp_num(ua));
	EXPECT_EQ(r[0].sl, 3);
	EXPECT_EQ(r[0].wc_flags, 0);
	EXPECT_EQ(std::memcmp(b.buf.data() + 40, a.buf.data(), 256), 0);

	/* A wrong Q_Key: the sender completes, the receiver never sees it. */
	ASSERT_EQ(post_recv(ub, 2, b.sge(0, 4096)), 0);
	w.wr.ud.remote_qkey = 0x22222222;
	ASSERT_EQ(post_send(ua, w), 0);
	EXPECT_EQ(poll_n(a.scq, 2).size(), 2u);
	EXPECT_EQ(poll_n(b.rcq, 1, 50).size(), 0u);

	/* RDMA on UD, or an AH of another PD: EINVAL with bad_wr. */
	w.opcode = XQP_WR_RDMA_WRITE;
	const xqp_send_wr *bad = nullptr;
	EXPECT_EQ(xqp_post_send(ua, &w, &bad), -XQP_EINVAL);
	EXPECT_EQ(bad, &w);
	EXPECT_EQ(xqp_destroy_ah(ah), 0);
}

TEST_F(Traffic, UcDropsWithoutReceiveAndRcRetriesRnr)
{
	xqp_qp *ua, *ub;
	pair(XQP_QPT_UC, &ua, &ub);
	xqp_sge s = a.sge(0, 10);
	xqp_send_wr w = wr(XQP_WR_SEND, &s, 1, 1);
	ASSERT_EQ(post_send(ua, w), 0);
	auto c = poll_n(a.scq, 1);
	ASSERT_EQ(c.size(), 1u);
	EXPECT_EQ(c[0].status, XQP_WC_SUCCESS);

	xqp_qp *ra, *rb;
	pair(XQP_QPT_RC, &ra, &rb, 7);
	ASSERT_EQ(post_send(ra, w), 0);
	EXPECT_EQ(poll_n(a.scq, 1, 30).size(), 0u);	/* RNR: waiting */
	ASSERT_EQ(post_recv(rb, 3, b.sge(0, 64)), 0);
	c = poll_n(a.scq, 1);
	ASSERT_EQ(c.size(), 1u);
	EXPECT_EQ(c[0].status, XQP_WC_SUCCESS);
	EXPECT_EQ(poll_n(b.rcq, 1).size(), 1u);
}

TEST_F(Traffic, RnrRetriesRunOutAndTheQpFlushes)
{
	xqp_qp *ra, *rb;
	pair(XQP_QPT_RC, &ra, &rb, 1);
	xqp_sge s = a.sge(0, 10);
	xqp_send_wr w1 = wr(XQP_WR_SEND, &s, 1, 1), w2 = wr(XQP_WR_SEND, &s, 1, 2, 0);
	w1.next = &w2;
	ASSERT_EQ(post_send(ra, w1), 0);
	auto c = poll_n(a.scq, 2);
	ASSERT_EQ(c.size(), 2u);
	EXPECT_EQ(c[0].status, XQP_WC_RNR_RETRY_EXC_ERR);
	EXPECT_EQ(c[0].wr_id, 1u);
	EXPECT_EQ(c[1].status, XQP_WC_WR_FLUSH_ERR);	/* unsignaled, but failed */
	EXPECT_EQ(c[1].wr_id, 2u);
	xqp_qp_attr qa = {};
	ASSERT_EQ(xqp_query_qp(ra, &qa, XQP_QP_STATE, nullptr), 0);
	EXPECT_EQ(qa.qp_state, XQP_QPS_ERR);
	/* Posting in ERR: accepted, flushed. */
	w1.next = nullptr;
	ASSERT_EQ(post_send(ra, w1), 0);
	c = poll_n(a.scq, 1);
	ASSERT_EQ(c.size(), 1u);
	EXPECT_EQ(c[0].status, XQP_WC_WR_FLUSH_ERR);
}

TEST_F(Traffic, LocalAndRemoteProtectionErrors)
{
	Events evb;
	xqp_qp *qa, *qb;
	pair(XQP_QPT_RC, &qa, &qb, 7, 0xe, &evb);
	xqp_sge s = a.sge(0, 10);
	s.lkey ^= 0x100;	/* no such MR */
	xqp_send_wr w = wr(XQP_WR_SEND, &s, 1, 1);
	ASSERT_EQ(post_send(qa, w), 0);
	auto c = poll_n(a.scq, 1);
	ASSERT_EQ(c.size(), 1u);
	EXPECT_EQ(c[0].status, XQP_WC_LOC_PROT_ERR);

	xqp_qp *qc, *qd;
	pair(XQP_QPT_RC, &qc, &qd, 7, 0xe, &evb);
	s = a.sge(0, 10);
	w = wr(XQP_WR_RDMA_WRITE, &s, 1, 2);
	w.wr.rdma.remote_addr = b.addr(65536 - 4);	/* past the MR's end */
	w.wr.rdma.rkey = xqp_mr_rkey(b.mr);
	ASSERT_EQ(post_send(qc, w), 0);
	c = poll_n(a.scq, 1);
	ASSERT_EQ(c.size(), 1u);
	EXPECT_EQ(c[0].status, XQP_WC_REM_ACCESS_ERR);
	xqp_qp_attr at = {};
	ASSERT_EQ(xqp_query_qp(qd, &at, XQP_QP_STATE, nullptr), 0);
	EXPECT_EQ(at.qp_state, XQP_QPS_ERR);
	EXPECT_EQ(evb.last.load(), XQP_EVENT_QP_ACCESS_ERR);
}

/*
 * A receive is checked where the message writes, as rxe and hardware check
 * it: a SGE that runs past its MR, or a second SGE with no MR at all, is no
 * error while the message ends before them (perftest -c XRC posts 4 KiB
 * receives that run past its buffer's end for 8-byte messages); a message
 * that reaches them fails with LOC_PROT_ERR, and one longer than the WQE
 * with LOC_LEN_ERR.
 */
TEST_F(Traffic, ReceiveIsCheckedWhereTheMessageWrites)
{
	for (xqp_qp_type t : { XQP_QPT_RC, XQP_QPT_UD }) {
		SCOPED_TRACE(t == XQP_QPT_RC ? "RC" : "UD");
		xqp_qp *qa, *qb;
		pair(t, &qa, &qb);
		const u32 grh = t == XQP_QPT_UD ? 40 : 0;
		xqp_ah_attr av = {};
		av.dlid = lid(b);
		av.port_num = 1;
		xqp_ah *ah = xqp_create_ah(a.pd, &av);
		ASSERT_FALSE(xqp_is_err(ah));
		auto send = [&](u32 len, xqp_u64 id) {
			xqp_sge s = a.sge(0, len);
			xqp_send_wr w = wr(XQP_WR_SEND, &s, 1, id);
			if (t == XQP_QPT_UD) {
				w.wr.ud.ah = ah;
				w.wr.ud.remote_qpn = xqp_qp_num(qb);
				w.wr.ud.remote_qkey = 0x11111111;
			}
			ASSERT_EQ(post_send(qa, w), 0);
		};
		std::memset(a.buf.data(), 0x5a, 64);
		/* one SGE: its last 4 KiB are past the MR's end (65536) */
		ASSERT_EQ(post_recv(qb, 1, b.sge(65536 - 1024, 4096 + 1024)), 0);
		send(8, 1);
		auto c = poll_n(b.rcq, 1);
		ASSERT_EQ(c.size(), 1u);
		EXPECT_EQ(c[0].status, XQP_WC_SUCCESS);
		EXPECT_EQ(c[0].byte_len, 8u + grh);
		EXPECT_EQ(b.buf[65536 - 1024 + grh + 7], 0x5a);
		ASSERT_EQ(poll_n(a.scq, 1).size(), 1u);
		/* two SGEs, the second with no MR: unread by 16 bytes, read by 600 */
		xqp_sge two[2] = { b.sge(0, 512 + grh), b.sge(1024, 512) };
		two[1].lkey ^= 0x100;
		for (xqp_u64 id : { 2, 3 })
			ASSERT_EQ(post_recv(qb, id, two, 2), 0);
		send(16, 2);
		c = poll_n(b.rcq, 1);
		ASSERT_EQ(c.size(), 1u);
		EXPECT_EQ(c[0].status, XQP_WC_SUCCESS);
		ASSERT_EQ(poll_n(a.scq, 1).size(), 1u);
		send(600, 3);
		c = poll_n(b.rcq, 1);
		ASSERT_EQ(c.size(), 1u);
		EXPECT_EQ(c[0].status, XQP_WC_LOC_PROT_ERR);
		EXPECT_EQ(c[0].wr_id, 3u);
		poll_n(a.scq, 1);
		EXPECT_EQ(xqp_destroy_ah(ah), 0);
	}
}

TEST_F(Traffic, QpWithoutRemoteWriteAccessRefusesWrites)
{
	xqp_qp *qa, *qb;
	pair(XQP_QPT_RC, &qa, &qb, 7, XQP_ACCESS_REMOTE_READ);
	xqp_sge s = a.sge(0, 10);
	xqp_send_wr w = wr(XQP_WR_RDMA_WRITE, &s, 1, 1);
	w.wr.rdma.remote_addr = b.addr(0);
	w.wr.rdma.rkey = xqp_mr_rkey(b.mr);
	ASSERT_EQ(post_send(qa, w), 0);
	auto c = poll_n(a.scq, 1);
	ASSERT_EQ(c.size(), 1u);
	EXPECT_EQ(c[0].status, XQP_WC_REM_ACCESS_ERR);
}

TEST_F(Traffic, TooLongMessageFailsBothSides)
{
	xqp_qp *qa, *qb;
	pair(XQP_QPT_RC, &qa, &qb);
	ASSERT_EQ(post_recv(qb, 1, b.sge(0, 8)), 0);
	xqp_sge s = a.sge(0, 100);
	xqp_send_wr w = wr(XQP_WR_SEND, &s, 1, 1);
	ASSERT_EQ(post_send(qa, w), 0);
	auto r = poll_n(b.rcq, 1);
	ASSERT_EQ(r.size(), 1u);
	EXPECT_EQ(r[0].status, XQP_WC_LOC_LEN_ERR);
	auto c = poll_n(a.scq, 1);
	ASSERT_EQ(c.size(), 1u);
	EXPECT_EQ(c[0].status, XQP_WC_REM_INV_REQ_ERR);
}

TEST_F(Traffic, PostingRules)
{
	const xqp_recv_wr rw0 = {};
	xqp_qp *q = qp(a, XQP_QPT_RC, nullptr, 2, 1, 16);
	xqp_sge s = a.sge(0, 8);
	xqp_send_wr w = wr(XQP_WR_SEND, &s, 1);
	const xqp_send_wr *bad = nullptr;
	EXPECT_EQ(xqp_post_send(q, &w, &bad), -XQP_EINVAL);	/* RESET */
	EXPECT_EQ(bad, &w);
	xqp_qp *peer = qp(b, XQP_QPT_RC);
	connect_qp(q, XQP_QPT_RC, lid(b), xqp_qp_num(peer));
	connect_qp(peer, XQP_QPT_RC, lid(a), xqp_qp_num(q));
	/* an empty list (POST_SEND/POST_RECV with wr_count 0) queues nothing */
	const xqp_recv_wr *ebad = &rw0;
	EXPECT_EQ(xqp_post_send(q, nullptr, &bad), 0);
	EXPECT_EQ(xqp_post_recv(peer, nullptr, &ebad), 0);
	EXPECT_TRUE(poll_n(a.scq, 1, 20).empty());

	/* granted: 3 WRs (2^k - 1); the fourth is refused; nothing executes
	 * meanwhile since the peer has no receive (RNR wait). */
	xqp_send_wr ws[4];
	for (int i = 0; i < 4; i++) {
		ws[i] = wr(XQP_WR_SEND, &s, 1, 100 + i);
		ws[i].next = i < 3 ? &ws[i + 1] : nullptr;
	}
	xqp_qp_init_attr init = {};
	xqp_qp_attr qa = {};
	ASSERT_EQ(xqp_query_qp(q, &qa, 0, &init), 0);
	ASSERT_EQ(qa.cap.max_send_wr, 3u);
	EXPECT_EQ(xqp_post_send(q, &ws[0], &bad), -XQP_ENOMEM);
	EXPECT_EQ(bad, &ws[3]);

	xqp_sge two[2] = {s, s};
	w = wr(XQP_WR_SEND, two, 2);
	xqp_qp *q2 = qp(a, XQP_QPT_RC, nullptr, 4, 1, 16);
	connect_qp(q2, XQP_QPT_RC, lid(b), 12345);
	EXPECT_EQ(xqp_post_send(q2, &w, &bad), -XQP_EINVAL);	/* 2 SGEs > 1 */
	w = wr(XQP_WR_SEND, &s, 1, 1, XQP_SEND_INLINE);
	s.length = 1000;
	EXPECT_EQ(xqp_post_send(q2, &w, &bad), -XQP_EINVAL);	/* inline > max */
	s.length = 8;
	/* IB opcodes the device does not execute: EOPNOTSUPP; no IB opcode, or
	 * one invalid on the QP's type: EINVAL */
	for (int op = XQP_WR_LSO; op <= XQP_WR_ATOMIC_WRITE; op++) {
		w = wr(static_cast<xqp_wr_opcode>(op), &s, 1);
		bad = nullptr;
		EXPECT_EQ(xqp_post_send(q2, &w, &bad), -XQP_EOPNOTSUPP) << "opcode " << op;
		EXPECT_EQ(bad, &w);
	}
	w = wr(static_cast<xqp_wr_opcode>(XQP_WR_ATOMIC_WRITE + 1), &s, 1);
	EXPECT_EQ(xqp_post_send(q2, &w, &bad), -XQP_EINVAL);
	xqp_qp *uc = qp(a, XQP_QPT_UC, nullptr, 4, 1, 16);
	connect_qp(uc, XQP_QPT_UC, lid(b), 12345);
	w = wr(XQP_WR_RDMA_READ, &s, 1);
	EXPECT_EQ(xqp_post_send(uc, &w, &bad), -XQP_EINVAL);
	w = wr(XQP_WR_SEND_WITH_INV, &s, 1);	/* RC and XRC only */
	EXPECT_EQ(xqp_post_send(uc, &w, &bad), -XQP_EINVAL);
	w = wr(XQP_WR_BIND_MW, nullptr, 0);	/* no window */
	EXPECT_EQ(xqp_post_send(q2, &w, &bad), -XQP_EINVAL);

	xqp_recv_wr rw = {};
	const xqp_recv_wr *rbad = nullptr;
	xqp_sge many[8] = {};
	rw.sg_list = many;
	rw.num_sge = 8;
	EXPECT_EQ(xqp_post_recv(q2, &rw, &rbad), -XQP_EINVAL);
	EXPECT_EQ(rbad, &rw);
}

TEST_F(Traffic, UnreachablePeerFailsRcAfterItsRetries)
{
	xqp_qp *q = qp(a, XQP_QPT_RC);
	/* no device at LID 63; timeout 8: 1 ms per try, 1 + 2 tries */
	connect_qp(q, XQP_QPT_RC, 63, 1234, true, 0xe, 7, 1, 0x11111111, 8, 2);
	xqp_sge s = a.sge(0, 8);
	xqp_send_wr w = wr(XQP_WR_SEND, &s, 1);
	auto t0 = std::chrono::steady_clock::now();
	ASSERT_EQ(post_send(q, w), 0);
	auto c = poll_n(a.scq, 1);
	ASSERT_EQ(c.size(), 1u);
	EXPECT_EQ(c[0].status, XQP_WC_RETRY_EXC_ERR);
	/* 1 + retry_cnt tries, the ACK timeout apart */
	EXPECT_GE(std::chrono::steady_clock::now() - t0, std::chrono::microseconds(2 * 1048));
}

/* A responder that reaches RTR within the requester's retries gets the
 * message: the transport retransmits (ibv_xsrq_pingpong relies on it). */
TEST_F(Traffic, PeerReachingRtrLateGetsTheRetransmission)
{
	xqp_qp *q = qp(a, XQP_QPT_RC), *peer = qp(b, XQP_QPT_RC);
	/* timeout 12: 17 ms per try, 8 tries */
	connect_qp(q, XQP_QPT_RC, lid(b), xqp_qp_num(peer), true, 0xe, 7, 1, 0x11111111, 12);
	xqp_sge s = a.sge(0, 64);
	xqp_send_wr w = wr(XQP_WR_SEND, &s, 1, 7);
	ASSERT_EQ(post_send(q, w), 0);
	std::this_thread::sleep_for(std::chrono::milliseconds(30));
	EXPECT_TRUE(poll_n(a.scq, 1, 1).empty());	/* still retrying */
	connect_qp(peer, XQP_QPT_RC, lid(a), xqp_qp_num(q), false);
	ASSERT_EQ(post_recv(peer, 9, b.sge(0, 64)), 0);	/* an RNR NAK meanwhile is retried too */
	auto c = poll_n(a.scq, 1);
	ASSERT_EQ(c.size(), 1u);
	EXPECT_EQ(c[0].status, XQP_WC_SUCCESS);
	auto r = poll_n(b.rcq, 1);
	ASSERT_EQ(r.size(), 1u);
	EXPECT_EQ(r[0].wr_id, 9u);
	EXPECT_EQ(r[0].byte_len, 64u);
}

/*
 * What runs on the work queue (RNR and ACK-timeout retries, posts made with
 * IRQs off) allocates nothing: the failure sweeps arm the work queue's own
 * fail-nth (xqp_work_fail_nth(): a test task's never reaches a worker), and
 * an allocation there would fail. The hook itself is checked first with an
 * item that does allocate.
 */
struct AllocatingWork {
	xqp_work work;
	void *got = reinterpret_cast<void *>(1);
	std::atomic<bool> ran{false};
};

static void allocating_work_fn(xqp_work *w)
{
	auto *a = reinterpret_cast<AllocatingWork *>(w);
	a->got = xqp_zalloc(16, XQP_GFP_KERNEL);
	a->ran = true;
}

TEST_F(Traffic, DeferredWorkAllocatesNothing)
{
	AllocatingWork probe;
	xqp_work_init(&probe.work, allocating_work_fn);
	xqp_work_fail_nth(1);
	xqp_work_queue(&probe.work, 0);
	xqp_work_flush_all();
	ASSERT_TRUE(probe.ran);
	EXPECT_EQ(probe.got, nullptr);
	EXPECT_EQ(xqp_work_fail_fired(), 1);
	xqp_work_cancel_sync(&probe.work);

	xqp_work_fail_nth(1);
	xqp_qp *ra, *rb;
	pair(XQP_QPT_RC, &ra, &rb, 7);
	xqp_sge s = a.sge(0, 10);
	xqp_send_wr w = wr(XQP_WR_SEND, &s, 1, 1);
	ASSERT_EQ(post_send(ra, w), 0);
	EXPECT_EQ(poll_n(a.scq, 1, 30).size(), 0u);	/* RNR NAK: retried on the work queue */
	ASSERT_EQ(post_recv(rb, 3, b.sge(0, 64)), 0);
	auto c = poll_n(a.scq, 1);
	ASSERT_EQ(c.size(), 1u);
	EXPECT_EQ(c[0].status, XQP_WC_SUCCESS);
	EXPECT_EQ(poll_n(b.rcq, 1).size(), 1u);

	/* a post with IRQs off runs on the work queue */
	ASSERT_EQ(post_recv(rb, 4, b.sge(0, 64)), 0);
	unsigned long flags = xqp_irq_save();
	int rc = post_send(ra, w);
	xqp_irq_restore(flags);
	ASSERT_EQ(rc, 0);
	c = poll_n(a.scq, 1);
	ASSERT_EQ(c.size(), 1u);
	EXPECT_EQ(c[0].status, XQP_WC_SUCCESS);

	/* ACK-timeout retries to nobody, then RETRY_EXC_ERR */
	xqp_qp *q = qp(a, XQP_QPT_RC);
	connect_qp(q, XQP_QPT_RC, 63, 1234, true, 0xe, 7, 1, 0x11111111, 8, 2);
	ASSERT_EQ(post_send(q, w), 0);
	c = poll_n(a.scq, 1);
	ASSERT_EQ(c.size(), 1u);
	EXPECT_EQ(c[0].status, XQP_WC_RETRY_EXC_ERR);
	xqp_work_flush_all();
	EXPECT_EQ(xqp_work_fail_fired(), 0);
	xqp_work_fail_nth(0);
}

/* Moving to ERR flushes a WQE that waits for its retry timer at once. */
TEST_F(Traffic, ErrFlushesAWqeWaitingForItsRetryTimer)
{
	xqp_qp *q = qp(a, XQP_QPT_RC);
	/* timeout 22: 17 s per try */
	connect_qp(q, XQP_QPT_RC, 63, 1234, true, 0xe, 7, 1, 0x11111111, 22);
	xqp_sge s = a.sge(0, 8);
	xqp_send_wr w = wr(XQP_WR_SEND, &s, 1);
	ASSERT_EQ(post_send(q, w), 0);
	std::this_thread::sleep_for(std::chrono::milliseconds(10));
	xqp_qp_attr at = {};
	at.qp_state = XQP_QPS_ERR;
	ASSERT_EQ(modify(q, at, XQP_QP_STATE), 0);
	auto c = poll_n(a.scq, 1, 2000);
	ASSERT_EQ(c.size(), 1u);
	EXPECT_EQ(c[0].status, XQP_WC_WR_FLUSH_ERR);
}

/*
 * RESET drops the head's retry timer: a WQE waiting out a 655 ms RNR timer
 * is reset away, the QP reconnected, and a post that cannot run inline (IRQs
 * off) must run now, not when the old timer fires (a queued delayed work
 * took the new zero-delay kick for itself).
 */
TEST_F(Traffic, ResetDropsTheHeadsRetryTimer)
{
	xqp_qp *qa = qp(a, XQP_QPT_RC), *qb = qp(b, XQP_QPT_RC);
	connect_qp(qa, XQP_QPT_RC, lid(b), xqp_qp_num(qb), true, 0xe, 7);
	/* the responder's min_rnr_timer 0: 655.36 ms */
	connect_qp(qb, XQP_QPT_RC, lid(a), xqp_qp_num(qa), true, 0xe, 7, 0);
	xqp_sge s = a.sge(0, 8);
	xqp_send_wr w = wr(XQP_WR_SEND, &s, 1, 1);
	ASSERT_EQ(post_send(qa, w), 0);
	EXPECT_EQ(poll_n(a.scq, 1, 30).size(), 0u);	/* RNR: the timer runs */
	xqp_qp_attr at = {};
	at.qp_state = XQP_QPS_RESET;
	ASSERT_EQ(modify(qa, at, XQP_QP_STATE), 0);
	connect_qp(qa, XQP_QPT_RC, lid(b), xqp_qp_num(qb), true, 0xe, 7);
	ASSERT_EQ(post_recv(qb, 3, b.sge(0, 64)), 0);
	w.wr_id = 2;
	auto t0 = std::chrono::steady_clock::now();
	unsigned long flags = xqp_irq_save();
	int rc = post_send(qa, w);
	xqp_irq_restore(flags);
	ASSERT_EQ(rc, 0);
	auto c = poll_n(a.scq, 1);
	auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
		std::chrono::steady_clock::now() - t0).count();
	ASSERT_EQ(c.size(), 1u);
	EXPECT_EQ(c[0].wr_id, 2u);	/* the reset WQE is gone, never completed */
	EXPECT_EQ(c[0].status, XQP_WC_SUCCESS);
	EXPECT_LT(ms, 300) << "the post waited for the timer of a WQE RESET dropped";
	EXPECT_EQ(poll_n(a.scq, 1, 700).size(), 0u);
}

/*
 * A remote error does not move a QP its owner has RESET meanwhile into ERR:
 * the failed completion's handler (as a user who polls it at once would)
 * resets the requester before the transport's move to ERR comes.
 */
struct ResetOnComp {
	xqp_qp *qp = nullptr;
	int rc = 1;
	static void comp(xqp_cq *, void *ctx)
	{
		auto *r = static_cast<ResetOnComp *>(ctx);
		xqp_qp_attr at = {};
		at.qp_state = XQP_QPS_RESET;
		r->rc = xqp_modify_qp(r->qp, &at, XQP_QP_STATE);
	}
};

TEST_F(Traffic, RemoteErrorLeavesAQpItsOwnerResetInReset)
{
	ResetOnComp roc;
	xqp_cq *cq = cq_calling(ResetOnComp::comp, &roc);
	ASSERT_TRUE(cq);
	xqp_qp *qb;
	xqp_qp *qa = rc_on_cqs(cq, a.rcq, XQP_SIGNAL_REQ_WR, &qb);
	ASSERT_TRUE(qa);
	roc.qp = qa;
	ASSERT_EQ(xqp_req_notify_cq(cq, XQP_CQ_NEXT_COMP), 0);
	xqp_sge s = a.sge(0, 8);
	xqp_send_wr w = wr(XQP_WR_RDMA_WRITE, &s, 1, 1);
	w.wr.rdma.remote_addr = b.addr(0);
	w.wr.rdma.rkey = xqp_mr_rkey(b.mr) ^ 0x100;	/* no such MR */
	ASSERT_EQ(post_send(qa, w), 0);
	auto c = poll_n(cq, 1);
	ASSERT_EQ(c.size(), 1u);
	EXPECT_EQ(c[0].status, XQP_WC_REM_ACCESS_ERR);
	xqp_work_flush_all();
	EXPECT_EQ(roc.rc, 0);
	xqp_qp_attr qa_attr = {};
	ASSERT_EQ(xqp_query_qp(qa, &qa_attr, XQP_QP_STATE, nullptr), 0);
	EXPECT_EQ(qa_attr.qp_state, XQP_QPS_RESET);
	EXPECT_EQ(xqp_destroy_qp(qa), 0);
	EXPECT_EQ(xqp_destroy_cq(cq), 0);
}

/*
 * Memory an MR maps a page at a time whose bytes are not congruent to the
 * MR's iova mod 8 (a kernel MR on an odd address): an 8-byte aligned iova
 * can land on memory that is misaligned and crosses a page.
 */
struct PagedMem {
	xqp_mem mem = {};
	alignas(4096) char buf[3 * 4096] = {};
	static constexpr xqp_u64 kShift = 4;	/* offset 0 is buf + 4 */
	static PagedMem *from(xqp_mem *m) { return reinterpret_cast<PagedMem *>(m); }
	static void *map(xqp_mem *m, xqp_u64 off, xqp_u64 *len)
	{
		xqp_u64 at = off + kShift;
		*len = 4096 - at % 4096;	/* to the end of its page */
		return from(m)->buf + at;
	}
	static void unmap(xqp_mem *, void *) {}
	static void release(xqp_mem *) {}
	static constexpr xqp_mem_ops ops = {map, unmap, release};
};

TEST_F(Traffic, AtomicOnMisalignedMemoryIsAnInvalidRequest)
{
	auto pm = std::make_unique<PagedMem>();
	pm->mem.ops = &PagedMem::ops;
	pm->mem.length = 2 * 4096;
	const xqp_u64 iova = 0x100000;
	xqp_mr *mr = xqp_reg_mr(b.pd, &pm->mem, iova,
				XQP_ACCESS_LOCAL_WRITE | XQP_ACCESS_REMOTE_ATOMIC);
	ASSERT_FALSE(xqp_is_err(mr)) << xqp_ptr_err(mr);
	xqp_qp *qa, *qb;
	pair(XQP_QPT_RC, &qa, &qb);
	xqp_sge s = a.sge(0, 8);
	xqp_send_wr w = wr(XQP_WR_ATOMIC_FETCH_AND_ADD, &s, 1, 1);
	w.wr.atomic.remote_addr = iova + 4088;	/* memory buf + 4092: 4 + 4 bytes */
	w.wr.atomic.compare_add = 0x0101010101010101ULL;
	w.wr.atomic.rkey = xqp_mr_rkey(mr);
	ASSERT_EQ(post_send(qa, w), 0);
	auto c = poll_n(a.scq, 1);
	ASSERT_EQ(c.size(), 1u);
	EXPECT_EQ(c[0].status, XQP_WC_REM_INV_REQ_ERR);
	for (int i = 4088; i < 4104; i++)
		EXPECT_EQ(pm->buf[i], 0) << "byte " << i << " changed";
	EXPECT_EQ(xqp_destroy_qp(qa), 0);
	forget(qa);
	EXPECT_EQ(xqp_destroy_qp(qb), 0);
	forget(qb);
	EXPECT_EQ(xqp_dereg_mr(mr), 0);
}

TEST_F(Traffic, ModifyToErrFlushesReceivesAndReportsLastWqeOnSrqQps)
{
	xqp_qp *qa, *qb;
	pair(XQP_QPT_RC, &qa, &qb);
	ASSERT_EQ(post_recv(qb, 1, b.sge(0, 8)), 0);
	ASSERT_EQ(post_recv(qb, 2, b.sge(8, 8)), 0);
	xqp_qp_attr at = {};
	at.qp_state = XQP_QPS_ERR;
	ASSERT_EQ(xqp_modify_qp(qb, &at, XQP_QP_STATE), 0);
	auto r = poll_n(b.rcq, 2);
	ASSERT_EQ(r.size(), 2u);
	EXPECT_EQ(r[0].status, XQP_WC_WR_FLUSH_ERR);
	EXPECT_EQ(r[1].wr_id, 2u);

	xqp_srq *srq = make_srq(8, 1);
	ASSERT_FALSE(xqp_is_err(srq));
	Events ev;
	xqp_qp *qs = qp(b, XQP_QPT_RC, srq, 4, 1, 0, XQP_SIGNAL_REQ_WR, &ev);
	connect_qp(qs, XQP_QPT_RC, lid(a), 99);
	ASSERT_EQ(xqp_modify_qp(qs, &at, XQP_QP_STATE), 0);
	EXPECT_EQ(ev.last.load(), XQP_EVENT_QP_LAST_WQE_REACHED);
	EXPECT_EQ(ev.count.load(), 1);
}

TEST_F(Traffic, SrqLimitFiresOnceAndSrqsShareReceives)
{
	xqp_srq_init_attr si = {};
	Events sev;
	si.event_handler = Events::on;
	si.event_flags = XQP_EVENT_INLINE;
	si.srq_context = &sev;
	xqp_srq *srq = make_srq(8, 1, si);
	ASSERT_FALSE(xqp_is_err(srq));
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(post_srq_recv(srq, 10 + i, b.sge(64 * i, 64)), 0);
	xqp_srq_attr sa = {};
	sa.srq_limit = 3;
	ASSERT_EQ(xqp_modify_srq(srq, &sa, XQP_SRQ_LIMIT), 0);
	ASSERT_EQ(xqp_query_srq(srq, &sa), 0);
	EXPECT_EQ(sa.srq_limit, 3u);
	sa.srq_limit = 100;
	EXPECT_EQ(xqp_modify_srq(srq, &sa, XQP_SRQ_LIMIT), -XQP_EINVAL);

	xqp_qp *q1 = qp(b, XQP_QPT_RC, srq), *q2 = qp(b, XQP_QPT_RC, srq);
	xqp_qp *s1 = qp(a, XQP_QPT_RC), *s2 = qp(a, XQP_QPT_RC);
	connect_qp(q1, XQP_QPT_RC, lid(a), xqp_qp_num(s1));
	connect_qp(q2, XQP_QPT_RC, lid(a), xqp_qp_num(s2));
	connect_qp(s1, XQP_QPT_RC, lid(b), xqp_qp_num(q1));
	connect_qp(s2, XQP_QPT_RC, lid(b), xqp_qp_num(q2));
	xqp_sge s = a.sge(0, 16);
	xqp_send_wr w = wr(XQP_WR_SEND, &s, 1);
	ASSERT_EQ(post_send(s1, w), 0);
	ASSERT_EQ(post_send(s2, w), 0);
	auto r = poll_n(b.rcq, 2);
	ASSERT_EQ(r.size(), 2u);
	EXPECT_EQ(r[0].wr_id, 10u);
	EXPECT_EQ(r[1].wr_id, 11u);
	EXPECT_NE(r[0].qp_num, r[1].qp_num);
	EXPECT_EQ(sev.count.load(), 1);
	EXPECT_EQ(sev.last.load(), XQP_EVENT_SRQ_LIMIT_REACHED);
	ASSERT_EQ(xqp_query_srq(srq, &sa), 0);
	EXPECT_EQ(sa.srq_limit, 0u);
	EXPECT_EQ(poll_n(a.scq, 2).size(), 2u);
}

/*
 * A modify_srq that fails changes nothing: a limit the new size cannot
 * hold is refused before the SRQ is resized (the driver used to resize
 * first and then refuse the limit, returning -EINVAL with the SRQ resized).
 */
/*
 * A kernel client may pass no bad_wr (ib_post_send() and friends take NULL):
 * the driver refusing a WR in a list must not write through it.
 */
TEST_F(Traffic, PostsTakeNoBadWr)
{
	xqp_qp *qa, *qb;
	pair(XQP_QPT_RC, &qa, &qb);
	xqp_sge s = a.sge(0, 16);
	xqp_send_wr w[2] = {wr(XQP_WR_SEND, &s, 1, 1), wr(XQP_WR_SEND, &s, 1, 2)};
	w[0].next = &w[1];
	w[1].send_flags = 0x4000;	/* no such flag: the driver refuses WR 1 */
	ASSERT_EQ(post_recv(qb, 7, b.sge(0, 64)), 0);
	EXPECT_EQ(xqp_post_send(qa, w, nullptr), -XQP_EINVAL);
	EXPECT_EQ(poll_n(a.scq, 1).size(), 1u);	/* WR 0 was queued */
	EXPECT_EQ(poll_n(b.rcq, 1).size(), 1u);

	xqp_sge many[8];
	for (xqp_sge &m : many)
		m = b.sge(0, 8);
	xqp_recv_wr r = {};
	r.sg_list = many;
	r.num_sge = 8;	/* more than max_recv_sge 4: refused by the driver */
	EXPECT_EQ(xqp_post_recv(qb, &r, nullptr), -XQP_EINVAL);

	xqp_srq *srq = make_srq(4, 1);
	ASSERT_FALSE(xqp_is_err(srq));
	r.num_sge = 2;
	EXPECT_EQ(xqp_post_srq_recv(srq, &r, nullptr), -XQP_EINVAL);
}

TEST_F(Traffic, FailedModifySrqChangesNothing)
{
	xqp_srq *srq = make_srq(8, 1);
	ASSERT_FALSE(xqp_is_err(srq));
	xqp_srq_attr sa = {};
	ASSERT_EQ(xqp_query_srq(srq, &sa), 0);
	const u32 size = sa.max_wr;
	ASSERT_EQ(post_srq_recv(srq, 1, b.sge(0, 64)), 0);

	sa = {};
	sa.max_wr = 32;
	sa.srq_limit = 1000;	/* beyond what 32 is granted */
	EXPECT_EQ(xqp_modify_srq(srq, &sa, XQP_SRQ_MAX_WR | XQP_SRQ_LIMIT), -XQP_EINVAL);
	ASSERT_EQ(xqp_query_srq(srq, &sa), 0);
	EXPECT_EQ(sa.max_wr, size);
	EXPECT_EQ(sa.srq_limit, 0u);

	/* Both at once, the limit fitting only the new size: both taken. */
	sa = {};
	sa.max_wr = 64;
	sa.srq_limit = size + 1;
	ASSERT_EQ(xqp_modify_srq(srq, &sa, XQP_SRQ_MAX_WR | XQP_SRQ_LIMIT), 0);
	const u32 grown = sa.max_wr;
	EXPECT_GE(grown, 64u);
	ASSERT_EQ(xqp_query_srq(srq, &sa), 0);
	EXPECT_EQ(sa.max_wr, grown);
	EXPECT_EQ(sa.srq_limit, size + 1);

	/* Shrinking below the armed limit is refused (as rxe does), nothing changed. */
	sa = {};
	sa.max_wr = 8;
	EXPECT_EQ(xqp_modify_srq(srq, &sa, XQP_SRQ_MAX_WR), -XQP_EINVAL);
	ASSERT_EQ(xqp_query_srq(srq, &sa), 0);
	EXPECT_EQ(sa.max_wr, grown);
	EXPECT_EQ(sa.srq_limit, size + 1);
}

TEST_F(Traffic, XrcDeliversIntoTheNamedSrqThroughAnyShare)
{
	xqp_xrcd *x = xqp_alloc_xrcd(b.dev), *other = xqp_alloc_xrcd(b.dev);
	ASSERT_FALSE(xqp_is_err(x));
	xrcds_.push_back(x);
	xrcds_.push_back(other);
	xqp_srq_init_attr si = {};
	si.srq_type = XQP_SRQT_XRC;
	si.attr.max_wr = 16;
	si.attr.max_sge = 1;
	si.xrcd = x;
	si.cq = b.rcq;
	xqp_srq *srq = xqp_create_srq(b.pd, &si);
	ASSERT_FALSE(xqp_is_err(srq));
	srqs_.push_back(srq);
	si.xrcd = other;
	xqp_srq *foreign = xqp_create_srq(b.pd, &si);
	ASSERT_FALSE(xqp_is_err(foreign));
	srqs_.push_back(foreign);

	xqp_qp_init_attr ti = {};
	ti.qp_type = XQP_QPT_XRC_TGT;
	ti.xrcd = x;
	xqp_qp *tgt = xqp_create_qp_user(b.dev, nullptr, &ti, nullptr, nullptr, "test");
	ASSERT_FALSE(xqp_is_err(tgt));
	xqp_qp *ini = qp(a, XQP_QPT_XRC_INI);
	connect_qp(tgt, XQP_QPT_XRC_TGT, lid(a), xqp_qp_num(ini), false);
	connect_qp(ini, XQP_QPT_XRC_INI, lid(b), xqp_qp_num(tgt));
	xqp_qp *opened = open(x, xqp_qp_num(tgt));
	ASSERT_FALSE(xqp_is_err(opened));

	for (int i = 0; i < 3; i++)
		ASSERT_EQ(post_srq_recv(srq, 50 + i, b.sge(1024 * i, 1024)), 0);
	fill(a, 0, 500, 'x');
	xqp_sge s = a.sge(0, 500);
	xqp_send_wr w = wr(XQP_WR_SEND, &s, 1, 1);
	w.xrc_remote_srq_num = xqp_srq_num(srq);
	ASSERT_EQ(post_send(ini, w), 0);
	auto r = poll_n(b.rcq, 1);
	ASSERT_EQ(r.size(), 1u);
	EXPECT_EQ(r[0].wr_id, 50u);
	EXPECT_EQ(r[0].qp_num, xqp_qp_num(tgt));
	EXPECT_EQ(r[0].src_qp, xqp_qp_num(ini));
	EXPECT_EQ(std::memcmp(b.buf.data(), a.buf.data(), 500), 0);

	/* The creator's share goes; traffic goes on through the opened one. */
	ASSERT_EQ(xqp_destroy_qp(tgt), 0);
	ASSERT_EQ(post_send(ini, w), 0);
	r = poll_n(b.rcq, 1);
	ASSERT_EQ(r.size(), 1u);
	EXPECT_EQ(r[0].wr_id, 51u);

	/* An SRQ of another XRC domain: the requester sees a remote error. */
	w.xrc_remote_srq_num = xqp_srq_num(foreign);
	ASSERT_EQ(post_send(ini, w), 0);
	auto c = poll_n(a.scq, 3);
	ASSERT_EQ(c.size(), 3u);
	EXPECT_EQ(c[2].status, XQP_WC_REM_INV_REQ_ERR);

	/* The last share destroys the QP: nothing reaches it any more. */
	u32 tgt_num = xqp_qp_num(opened);
	ASSERT_EQ(xqp_destroy_qp(opened), 0);
	xqp_qp *ini2 = qp(a, XQP_QPT_XRC_INI);
	connect_qp(ini2, XQP_QPT_XRC_INI, lid(b), tgt_num);
	w.xrc_remote_srq_num = xqp_srq_num(srq);
	ASSERT_EQ(post_send(ini2, w), 0);
	c = poll_n(a.scq, 1);
	ASSERT_EQ(c.size(), 1u);
	EXPECT_EQ(c[0].status, XQP_WC_RETRY_EXC_ERR);
}

TEST_F(Traffic, CompletionHandlerFiresOnceWhenArmed)
{
	xqp_qp *qa, *qb;
	pair(XQP_QPT_RC, &qa, &qb);
	xqp_sge s = a.sge(0, 8);
	xqp_send_wr w = wr(XQP_WR_SEND, &s, 1);
	ASSERT_EQ(post_recv(qb, 1, b.sge(0, 64)), 0);
	ASSERT_EQ(post_recv(qb, 2, b.sge(0, 64)), 0);
	ASSERT_EQ(xqp_req_notify_cq(b.rcq, XQP_CQ_NEXT_COMP), 0);
	ASSERT_EQ(post_send(qa, w), 0);
	ASSERT_EQ(post_send(qa, w), 0);
	EXPECT_EQ(poll_n(a.scq, 2).size(), 2u);
	xqp_work_flush_all();	/* the handler runs from the CQ's work item */
	EXPECT_EQ(b.rcq_ctx.calls.load(), 1);
	EXPECT_EQ(xqp_req_notify_cq(b.rcq, XQP_CQ_SOLICITED | XQP_CQ_REPORT_MISSED_EVENTS), 1);
	EXPECT_EQ(poll_n(b.rcq, 2).size(), 2u);

	/* Solicited only: an unsolicited receive does not fire, a solicited one does. */
	ASSERT_EQ(xqp_req_notify_cq(b.rcq, XQP_CQ_SOLICITED), 0);
	int before = b.rcq_ctx.calls.load();
	ASSERT_EQ(post_recv(qb, 3, b.sge(0, 64)), 0);
	ASSERT_EQ(post_recv(qb, 4, b.sge(0, 64)), 0);
	ASSERT_EQ(post_send(qa, w), 0);
	EXPECT_EQ(poll_n(b.rcq, 1).size(), 1u);
	xqp_work_flush_all();
	EXPECT_EQ(b.rcq_ctx.calls.load(), before);
	w.send_flags |= XQP_SEND_SOLICITED;
	ASSERT_EQ(post_send(qa, w), 0);
	EXPECT_EQ(poll_n(b.rcq, 1).size(), 1u);
	xqp_work_flush_all();
	EXPECT_EQ(b.rcq_ctx.calls.load(), before + 1);
	EXPECT_EQ(xqp_req_notify_cq(b.rcq, 8), -XQP_EINVAL);
}

/*
 * A poller's wake (xqp_cq_arm_poll_wake(), uverbs' empty POLL_CQ) fires
 * once, for the next completion of any kind, inline, and apart from
 * req_notify: no comp_handler call comes of it, and req_notify's arming
 * stays as it was.
 */
TEST_F(Traffic, PollWakeFiresOnceApartFromNotify)
{
	xqp_qp *qa, *qb;
	pair(XQP_QPT_RC, &qa, &qb);
	xqp_sge s = a.sge(0, 8);
	xqp_send_wr w = wr(XQP_WR_SEND, &s, 1);
	for (int id = 1; id <= 4; id++)
		ASSERT_EQ(post_recv(qb, id, b.sge(0, 64)), 0);

	ASSERT_EQ(xqp_cq_arm_poll_wake(b.rcq), 0);
	ASSERT_EQ(post_send(qa, w), 0);
	EXPECT_EQ(poll_n(b.rcq, 1).size(), 1u);
	EXPECT_EQ(b.rcq_ctx.wakes.load(), 1);	/* made inline, in the post */
	ASSERT_EQ(post_send(qa, w), 0);
	EXPECT_EQ(poll_n(b.rcq, 1).size(), 1u);
	EXPECT_EQ(b.rcq_ctx.wakes.load(), 1);	/* once an arming */
	xqp_work_flush_all();
	EXPECT_EQ(b.rcq_ctx.calls.load(), 0);	/* no completion event */
	EXPECT_EQ(poll_n(a.scq, 2).size(), 2u);
	EXPECT_EQ(a.scq_ctx.wakes.load(), 0);	/* never armed */

	/* A completion already waiting: 1, poll again rather than sleep. */
	ASSERT_EQ(post_send(qa, w), 0);
	EXPECT_EQ(poll_n(a.scq, 1).size(), 1u);
	EXPECT_EQ(xqp_cq_arm_poll_wake(b.rcq), 1);
	EXPECT_EQ(poll_n(b.rcq, 1).size(), 1u);
	/* ...and arms nothing: the next completion wakes no poller. */
	ASSERT_EQ(post_recv(qb, 9, b.sge(0, 64)), 0);
	ASSERT_EQ(post_send(qa, w), 0);
	EXPECT_EQ(poll_n(b.rcq, 1).size(), 1u);
	EXPECT_EQ(b.rcq_ctx.wakes.load(), 1);
	EXPECT_EQ(poll_n(a.scq, 1).size(), 1u);

	/* Both armings at once: each fires once for the one completion. */
	b.rcq_ctx.wakes = 0;
	ASSERT_EQ(xqp_req_notify_cq(b.rcq, XQP_CQ_SOLICITED), 0);
	ASSERT_EQ(xqp_cq_arm_poll_wake(b.rcq), 0);
	w.send_flags |= XQP_SEND_SOLICITED;
	ASSERT_EQ(post_send(qa, w), 0);
	EXPECT_EQ(poll_n(b.rcq, 1).size(), 1u);
	xqp_work_flush_all();
	EXPECT_EQ(b.rcq_ctx.wakes.load(), 1);
	EXPECT_EQ(b.rcq_ctx.calls.load(), 1);
	EXPECT_EQ(poll_n(a.scq, 1).size(), 1u);

	/* An error completion wakes too: a receive flushed by the QP's error. */
	ASSERT_EQ(post_recv(qb, 5, b.sge(0, 64)), 0);
	ASSERT_EQ(xqp_cq_arm_poll_wake(b.rcq), 0);
	xqp_qp_attr err = {};
	err.qp_state = XQP_QPS_ERR;
	ASSERT_EQ(xqp_modify_qp(qb, &err, XQP_QP_STATE), 0);
	auto f = poll_n(b.rcq, 1);
	ASSERT_EQ(f.size(), 1u);
	EXPECT_EQ(f[0].status, XQP_WC_WR_FLUSH_ERR);
	EXPECT_EQ(b.rcq_ctx.wakes.load(), 2);

	/* A user's req_notify cannot ask for it; a failed arming arms nothing. */
	EXPECT_EQ(xqp_req_notify_cq(b.rcq, XQP_CQ_ARM_POLL_WAKE), -XQP_EINVAL);
	xqp_soft_inject(soft_, XQP_SOFT_OP_REQ_NOTIFY_CQ, -XQP_EIO, 0);
	EXPECT_EQ(xqp_cq_arm_poll_wake(a.scq), -XQP_EIO);
	ASSERT_EQ(post_send(qa, w), 0);
	EXPECT_EQ(poll_n(a.scq, 1).size(), 1u);
	EXPECT_EQ(a.scq_ctx.wakes.load(), 0);

	/* A CQ made without a poll_wake handler cannot be armed for one. */
	xqp_cq_init_attr ca = {};
	ca.cqe = 4;
	xqp_cq *plain = xqp_create_cq_attr(a.dev, &ca);
	ASSERT_FALSE(xqp_is_err(plain));
	EXPECT_EQ(xqp_cq_arm_poll_wake(plain), -XQP_EINVAL);
	EXPECT_EQ(xqp_destroy_cq(plain), 0);
}

/*
 * A kernel client's completion handler runs from the CQ's work item, never
 * in the context that made the completion (a poster's): Linux drivers call
 * theirs from a context of their own. Here b's SEND lands in qa, whose
 * receive CQ's handler destroys qa: called in b's post (whose run holds qa
 * while it executes there), the destroy waited for that run, in it, for
 * ever; handlers that post chained into each other the same way.
 */
struct DestroyOnComp {
	xqp_qp *qp = nullptr;
	std::thread::id poster, ran_on;
	std::atomic<int> rc{1};
	static void comp(xqp_cq *, void *ctx)
	{
		auto *d = static_cast<DestroyOnComp *>(ctx);
		d->ran_on = std::this_thread::get_id();
		d->rc = xqp_destroy_qp(d->qp);
	}
};

TEST_F(Traffic, CompletionHandlerRunsInAContextOfItsOwn)
{
	DestroyOnComp d;
	xqp_cq *cq = cq_calling(DestroyOnComp::comp, &d);
	ASSERT_TRUE(cq);
	xqp_qp *qb;
	xqp_qp *qa = rc_on_cqs(a.scq, cq, XQP_SIGNAL_ALL_WR, &qb);
	ASSERT_TRUE(qa);
	d.qp = qa;
	ASSERT_EQ(post_recv(qa, 1, a.sge(0, 64)), 0);
	ASSERT_EQ(xqp_req_notify_cq(cq, XQP_CQ_NEXT_COMP), 0);
	d.poster = std::this_thread::get_id();
	xqp_sge s = b.sge(0, 8);
	xqp_send_wr w = wr(XQP_WR_SEND, &s, 1);
	ASSERT_EQ(post_send(qb, w), 0);
	auto sc = poll_n(b.scq, 1);
	ASSERT_EQ(sc.size(), 1u);
	EXPECT_EQ(sc[0].status, XQP_WC_SUCCESS);
	wait_while(d.rc, 1);
	EXPECT_EQ(d.rc.load(), 0);
	EXPECT_NE(d.ran_on, d.poster);
	xqp_wc wc;
	EXPECT_EQ(xqp_poll_cq(cq, 1, &wc), 1);	/* the receive, before the QP went */
	EXPECT_EQ(xqp_destroy_cq(cq), 0);

	xqp_cq_init_attr ca = {};
	ca.cqe = 16;
	ca.flags = 0x2;	/* no such flag */
	EXPECT_EQ(xqp_ptr_err(xqp_create_cq_attr(a.dev, &ca)), -XQP_EINVAL);
}

/*
 * A kernel client's QP event handler (no XQP_EVENT_INLINE) runs from the
 * QP's work item: the responder's QP_ACCESS_ERR, raised inside the
 * requester's post, reaches a handler that destroys that QP, which, called
 * in the poster's context, would wait there for the post that raised it.
 */
TEST_F(Traffic, QpEventHandlerRunsInAContextOfItsOwn)
{
	Events evd;
	evd.event_flags = 0;
	xqp_qp *qc, *qd;
	pair(XQP_QPT_RC, &qc, &qd, 7, 0xe, &evd);
	evd.destroy = qd;
	xqp_sge s = a.sge(0, 10);
	xqp_send_wr w = wr(XQP_WR_RDMA_WRITE, &s, 1, 2);
	w.wr.rdma.remote_addr = b.addr(65536 - 4);	/* past the MR's end */
	w.wr.rdma.rkey = xqp_mr_rkey(b.mr);
	ASSERT_EQ(post_send(qc, w), 0);
	auto c = poll_n(a.scq, 1);
	ASSERT_EQ(c.size(), 1u);
	EXPECT_EQ(c[0].status, XQP_WC_REM_ACCESS_ERR);
	wait_while(evd.destroy_rc, 1);
	EXPECT_EQ(evd.destroy_rc.load(), 0);
	EXPECT_NE(evd.ran_on, std::this_thread::get_id());
	EXPECT_EQ(evd.last.load(), XQP_EVENT_QP_ACCESS_ERR);
	EXPECT_EQ(evd.count.load(), 1);
	forget(qd);
}

TEST_F(Traffic, CqOverrunLosesTheCompletionAndReportsCqErr)
{
	Node small;
	small.init(b.dev, 4096, 0xf, 1);
	xqp_qp *qa = qp(a, XQP_QPT_RC), *qb = qp(small, XQP_QPT_RC);
	connect_qp(qa, XQP_QPT_RC, lid(b), xqp_qp_num(qb));
	connect_qp(qb, XQP_QPT_RC, lid(a), xqp_qp_num(qa));
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(post_recv(qb, i, small.sge(0, 64)), 0);
	xqp_sge s = a.sge(0, 8);
	xqp_send_wr w = wr(XQP_WR_SEND, &s, 1);
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(post_send(qa, w), 0);
	EXPECT_EQ(poll_n(a.scq, 3).size(), 3u);
	EXPECT_EQ(xqp_cq_cqe(small.rcq), 1);
	EXPECT_EQ(xqp_soft_cq_overruns(soft2_, small.rcq), 2u);
	EXPECT_EQ(small.rcq_ctx.events.last.load(), XQP_EVENT_CQ_ERR);
	EXPECT_EQ(poll_n(small.rcq, 3, 50).size(), 1u);
	ASSERT_EQ(xqp_destroy_qp(qb), 0);
	forget(qb);
	small.fini();
}

TEST_F(Traffic, ResizeCqKeepsItsCompletions)
{
	xqp_qp *qa, *qb;
	pair(XQP_QPT_RC, &qa, &qb);
	xqp_sge s = a.sge(0, 8);
	xqp_send_wr w = wr(XQP_WR_SEND, &s, 1);
	for (int i = 0; i < 5; i++) {
		ASSERT_EQ(post_recv(qb, i, b.sge(0, 64)), 0);
		ASSERT_EQ(post_send(qa, w), 0);
	}
	EXPECT_EQ(poll_n(a.scq, 5).size(), 5u);
	EXPECT_EQ(xqp_resize_cq(b.rcq, 2), -XQP_EINVAL);	/* 5 queued */
	ASSERT_EQ(xqp_resize_cq(b.rcq, 200), 0);
	EXPECT_EQ(xqp_cq_cqe(b.rcq), 255);
	auto r = poll_n(b.rcq, 5);
	ASSERT_EQ(r.size(), 5u);
	for (int i = 0; i < 5; i++)
		EXPECT_EQ(r[i].wr_id, static_cast<xqp_u64>(i));
}

/*
 * Every data-path op of the soft device can fail on demand (the failure
 * sweeps, tests/kunit/fault_sweep.c): the core returns the driver's errno, a
 * refused post names its first WR as bad and queues nothing, and the next
 * call works. The fast ops are counted only while counting is on.
 */
TEST_F(Traffic, EachDataPathOpFailsOnceWithTheInjectedErrno)
{
	xqp_qp *qa, *qb;
	pair(XQP_QPT_RC, &qa, &qb);
	xqp_srq *srq = make_srq(8, 1);
	ASSERT_FALSE(xqp_is_err(srq));
	xqp_soft_count_data_path(soft_, 1);
	xqp_soft_count_data_path(soft2_, 1);

	xqp_sge rs = b.sge(0, 64);
	xqp_recv_wr rw[2] = {};
	rw[0].wr_id = 1;
	rw[0].sg_list = &rs;
	rw[0].num_sge = 1;
	rw[0].next = &rw[1];
	rw[1] = rw[0];
	rw[1].wr_id = 2;
	rw[1].next = nullptr;
	const xqp_recv_wr *rbad = nullptr;
	xqp_soft_inject(soft2_, XQP_SOFT_OP_POST_RECV, -XQP_EAGAIN, 0);
	EXPECT_EQ(xqp_post_recv(qb, rw, &rbad), -XQP_EAGAIN);
	EXPECT_EQ(rbad, &rw[0]);
	xqp_soft_inject(soft2_, XQP_SOFT_OP_POST_SRQ_RECV, -XQP_ENOSPC, 0);
	rbad = nullptr;
	EXPECT_EQ(xqp_post_srq_recv(srq, rw, &rbad), -XQP_ENOSPC);
	EXPECT_EQ(rbad, &rw[0]);
	xqp_srq_attr sa = {};
	ASSERT_EQ(xqp_query_srq(srq, &sa), 0);
	const u32 srq_wr = sa.max_wr;	/* granted: 8 or more */
	EXPECT_GE(srq_wr, 8u);

	/* A refused send queues nothing: no completion, no receive consumed. */
	xqp_sge s = a.sge(0, 8);
	xqp_send_wr w[2] = { wr(XQP_WR_SEND, &s, 1, 7), wr(XQP_WR_SEND, &s, 1, 8) };
	w[0].next = &w[1];
	const xqp_send_wr *sbad = nullptr;
	xqp_soft_inject(soft_, XQP_SOFT_OP_POST_SEND, -XQP_EIO, 0);
	EXPECT_EQ(xqp_post_send(qa, w, &sbad), -XQP_EIO);
	EXPECT_EQ(sbad, &w[0]);
	EXPECT_EQ(poll_n(a.scq, 1, 20).size(), 0u);
	ASSERT_EQ(xqp_post_recv(qb, rw, &rbad), 0);
	ASSERT_EQ(xqp_post_send(qa, w, &sbad), 0);
	EXPECT_EQ(poll_n(a.scq, 2).size(), 2u);

	/* A failed poll takes nothing; the completions are there for the next. */
	xqp_wc wc[4];
	xqp_soft_inject(soft2_, XQP_SOFT_OP_POLL_CQ, -XQP_EBUSY, 0);
	EXPECT_EQ(xqp_poll_cq(b.rcq, 4, wc), -XQP_EBUSY);
	auto r = poll_n(b.rcq, 2);
	ASSERT_EQ(r.size(), 2u);
	EXPECT_EQ(r[0].wr_id, 1u);

	xqp_soft_inject(soft2_, XQP_SOFT_OP_REQ_NOTIFY_CQ, -XQP_EIO, 0);
	EXPECT_EQ(xqp_req_notify_cq(b.rcq, XQP_CQ_NEXT_COMP), -XQP_EIO);
	ASSERT_EQ(post_recv(qb, 3, b.sge(0, 64)), 0);
	ASSERT_EQ(post_send(qa, w[1]), 0);
	EXPECT_EQ(poll_n(b.rcq, 1).size(), 1u);
	EXPECT_EQ(b.rcq_ctx.calls.load(), 0);	/* the failed arm armed nothing */
	EXPECT_EQ(xqp_req_notify_cq(b.rcq, XQP_CQ_NEXT_COMP), 0);

	int cqe = xqp_cq_cqe(b.rcq);
	xqp_soft_inject(soft2_, XQP_SOFT_OP_RESIZE_CQ, -XQP_ENOMEM, 0);
	EXPECT_EQ(xqp_resize_cq(b.rcq, 200), -XQP_ENOMEM);
	EXPECT_EQ(xqp_cq_cqe(b.rcq), cqe);
	ASSERT_EQ(xqp_resize_cq(b.rcq, 200), 0);

	sa = {};
	sa.max_wr = srq_wr + 16;
	xqp_soft_inject(soft2_, XQP_SOFT_OP_MODIFY_SRQ, -XQP_EPERM, 0);
	EXPECT_EQ(xqp_modify_srq(srq, &sa, XQP_SRQ_MAX_WR), -XQP_EPERM);
	xqp_soft_inject(soft2_, XQP_SOFT_OP_QUERY_SRQ, -XQP_EFAULT, 0);
	EXPECT_EQ(xqp_query_srq(srq, &sa), -XQP_EFAULT);
	ASSERT_EQ(xqp_query_srq(srq, &sa), 0);
	EXPECT_EQ(sa.max_wr, srq_wr);	/* the failed modify resized nothing */

	xqp_u8 gid[16];
	xqp_u16 pkey = 0;
	xqp_soft_inject(soft_, XQP_SOFT_OP_QUERY_GID, -XQP_ENODEV, 0);
	EXPECT_EQ(xqp_query_gid(a.dev, 1, 0, gid), -XQP_ENODEV);
	EXPECT_EQ(xqp_query_gid(a.dev, 1, 0, gid), 0);
	xqp_soft_inject(soft_, XQP_SOFT_OP_QUERY_PKEY, -XQP_ERANGE, 0);
	EXPECT_EQ(xqp_query_pkey(a.dev, 1, 0, &pkey), -XQP_ERANGE);
	EXPECT_EQ(xqp_query_pkey(a.dev, 1, 0, &pkey), 0);
	EXPECT_EQ(pkey, 0xffff);

	/* Counted while on (failed calls too), not once it is off. */
	EXPECT_EQ(xqp_soft_op_calls(soft_, XQP_SOFT_OP_POST_SEND), 3u);
	EXPECT_EQ(xqp_soft_op_calls(soft2_, XQP_SOFT_OP_POST_RECV), 3u);
	EXPECT_EQ(xqp_soft_op_calls(soft2_, XQP_SOFT_OP_REQ_NOTIFY_CQ), 2u);
	EXPECT_EQ(xqp_soft_op_calls(soft2_, XQP_SOFT_OP_RESIZE_CQ), 2u);
	EXPECT_EQ(xqp_soft_op_calls(soft_, XQP_SOFT_OP_QUERY_GID), 2u);
	xqp_soft_count_data_path(soft2_, 0);
	xqp_u64 polls = xqp_soft_op_calls(soft2_, XQP_SOFT_OP_POLL_CQ);
	EXPECT_GE(polls, 3u);
	EXPECT_EQ(xqp_poll_cq(b.rcq, 4, wc), 0);
	EXPECT_EQ(xqp_soft_op_calls(soft2_, XQP_SOFT_OP_POLL_CQ), polls);
	xqp_soft_count_data_path(soft_, 0);
}

TEST_F(Traffic, MrRules)
{
	char buf[64];
	EXPECT_EQ(xqp_ptr_err(xqp_reg_kernel_mr(a.pd, buf, sizeof(buf), XQP_ACCESS_REMOTE_WRITE)),
		  -XQP_EINVAL);
	EXPECT_EQ(xqp_ptr_err(xqp_reg_kernel_mr(a.pd, buf, sizeof(buf), XQP_ACCESS_REMOTE_ATOMIC)),
		  -XQP_EINVAL);
	EXPECT_EQ(xqp_ptr_err(xqp_reg_kernel_mr(a.pd, buf, 0, 0)), -XQP_EINVAL);
	EXPECT_EQ(xqp_dealloc_pd(a.pd), -XQP_EBUSY);	/* its MR holds it */
	xqp_mr *mr = xqp_reg_kernel_mr(a.pd, buf, sizeof(buf), XQP_ACCESS_REMOTE_READ);
	ASSERT_FALSE(xqp_is_err(mr));
	EXPECT_NE(xqp_mr_lkey(mr), xqp_mr_lkey(a.mr));
	EXPECT_EQ(xqp_mr_lkey(mr), xqp_mr_rkey(mr));
	ASSERT_EQ(xqp_dereg_mr(mr), 0);
}

/* Several threads post on one QP and on a QP each; every message arrives once. */
TEST_F(Traffic, ConcurrentPostersOnOneQpAndOnMany)
{
	constexpr int kThreads = 4, kEach = 150;
	Node big;	/* a receive CQ that holds every completion: no overrun */
	big.init(b.dev, 1000 * 64, 0xf, 2048);
	xqp_srq_init_attr si = {};
	si.attr.max_wr = 1023;
	si.attr.max_sge = 1;
	xqp_srq *srq = xqp_create_srq(big.pd, &si);
	ASSERT_FALSE(xqp_is_err(srq));
	srqs_.push_back(srq);
	/* QP 0 is shared by all threads; QPs 1..kThreads are one per thread. */
	std::vector<xqp_qp *> snd, rcv;
	for (int i = 0; i <= kThreads; i++) {
		snd.push_back(qp(a, XQP_QPT_RC));
		rcv.push_back(qp(big, XQP_QPT_RC, srq));
		connect_qp(snd[i], XQP_QPT_RC, lid(b), xqp_qp_num(rcv[i]));
		connect_qp(rcv[i], XQP_QPT_RC, lid(a), xqp_qp_num(snd[i]));
	}
	const int total = kThreads * kEach * 2;
	std::atomic<int> got{0};
	std::thread rx([&] {
		/* Receive k lands in slot k, reposted only once it completed. */
		for (int i = 0; i < 1000; i++)
			post_srq_recv(srq, i, big.sge(64 * i, 64));
		auto end = std::chrono::steady_clock::now() + std::chrono::seconds(60);
		while (got.load() < total && std::chrono::steady_clock::now() < end) {
			xqp_wc wc[8];
			int n = xqp_poll_cq(big.rcq, 8, wc);
			for (int i = 0; i < n; i++) {
				EXPECT_EQ(wc[i].status, XQP_WC_SUCCESS);
				post_srq_recv(srq, wc[i].wr_id, big.sge(64 * wc[i].wr_id, 64));
			}
			if (n > 0)
				got += n;
			else
				std::this_thread::yield();
		}
	});
	std::vector<std::thread> ts;
	for (int t = 0; t < kThreads; t++)
		ts.emplace_back([&, t] {
			xqp_sge s = a.sge(0, 8);
			for (int i = 0; i < 2 * kEach; i++) {
				xqp_send_wr w = wr(XQP_WR_SEND, &s, 1, 1, 0);
				xqp_qp *q = i % 2 ? snd[t + 1] : snd[0];
				while (post_send(q, w) == -XQP_ENOMEM)
					std::this_thread::yield();
			}
		});
	for (auto &t : ts)
		t.join();
	rx.join();
	EXPECT_EQ(got.load(), total);
	EXPECT_EQ(poll_n(big.rcq, 1, 20).size(), 0u);	/* exactly once */
	EXPECT_EQ(xqp_soft_cq_overruns(soft2_, big.rcq), 0u);
	for (xqp_qp *q : snd) {
		xqp_qp_attr at = {};
		ASSERT_EQ(xqp_query_qp(q, &at, XQP_QP_STATE, nullptr), 0);
		EXPECT_EQ(at.qp_state, XQP_QPS_RTS);
	}
	for (xqp_qp *q : rcv) {
		ASSERT_EQ(xqp_destroy_qp(q), 0);
		forget(q);
	}
	ASSERT_EQ(xqp_destroy_srq(srq), 0);
	srqs_.pop_back();
	big.fini();
}

TEST_F(Traffic, DestroyWithWorkQueuedLeavesNothing)
{
	xqp_qp *qa, *qb;
	pair(XQP_QPT_RC, &qa, &qb, 7);
	xqp_sge s = a.sge(0, 8);
	xqp_send_wr w = wr(XQP_WR_SEND, &s, 1);
	ASSERT_EQ(post_send(qa, w), 0);	/* RNR-waits for ever */
	ASSERT_EQ(post_send(qa, w), 0);
	ASSERT_EQ(post_recv(qb, 1, b.sge(0, 8)), 0);
	ASSERT_EQ(xqp_destroy_qp(qb), 0);
	forget(qb);
	ASSERT_EQ(xqp_destroy_qp(qa), 0);
	forget(qa);
}

TEST_F(Traffic, RemovingTheDeviceUnderTrafficFreesEverything)
{
	xqp_qp *qa, *qb;
	pair(XQP_QPT_RC, &qa, &qb, 7);
	xqp_sge s = a.sge(0, 8);
	xqp_send_wr w = wr(XQP_WR_SEND, &s, 1);
	ASSERT_EQ(post_send(qa, w), 0);
	/* b's device goes: its QP, MR, CQs, PD are detached; a's QP fails on. */
	xqp_soft_destroy(soft2_);
	soft2_ = nullptr;
	EXPECT_EQ(xqp_post_recv(qb, nullptr, nullptr), -XQP_EIO);
	ASSERT_EQ(post_send(qa, w), 0);
	auto c = poll_n(a.scq, 2);
	ASSERT_GE(c.size(), 1u);
	EXPECT_EQ(c.back().status, XQP_WC_WR_FLUSH_ERR);
	/* The core objects of b are their owners' to free: -EIO-safe calls. */
	ASSERT_EQ(xqp_destroy_qp(qb), 0);
	forget(qb);
	b.fini();
}

} // namespace

/*
 * A connected responder takes messages only from the QP and path it was
 * connected to; others are dropped unseen (RC: the requester's retries run
 * out; UC: its send completes, nothing arrives), as IB's transport does.
 */
TEST_F(Traffic, ConnectedResponderTakesOnlyItsPeer)
{
	for (xqp_qp_type type : {XQP_QPT_RC, XQP_QPT_UC}) {
		SCOPED_TRACE(type == XQP_QPT_RC ? "RC" : "UC");
		xqp_qp *qa, *qb;
		pair(type, &qa, &qb);
		/* qx: connected to qb, which is not connected to qx */
		xqp_qp *qx = qp(a, type);
		connect_qp(qx, type, lid(b), xqp_qp_num(qb), true, 0xe, 0, 1, 0x11111111, 8, 1);
		/* qy -> qz, but qz's path names its own device, not qy's */
		xqp_qp *qy = qp(a, type), *qz = qp(b, type);
		connect_qp(qy, type, lid(b), xqp_qp_num(qz), true, 0xe, 0, 1, 0x11111111, 8, 1);
		connect_qp(qz, type, lid(b), xqp_qp_num(qy));
		ASSERT_EQ(post_recv(qb, 1, b.sge(0, 256)), 0);
		ASSERT_EQ(post_recv(qz, 2, b.sge(256, 256)), 0);

		xqp_sge s = a.sge(0, 64);
		xqp_send_wr w = wr(XQP_WR_SEND, &s, 1, 9);
		ASSERT_EQ(post_send(qx, w), 0);
		ASSERT_EQ(post_send(qy, w), 0);
		auto sc = poll_n(a.scq, 2, 30000);
		ASSERT_EQ(sc.size(), 2u);
		for (const xqp_wc &c : sc)
			EXPECT_EQ(c.status, type == XQP_QPT_RC ? XQP_WC_RETRY_EXC_ERR : XQP_WC_SUCCESS);
		EXPECT_TRUE(poll_n(b.rcq, 1, 50).empty());	/* neither arrived */

		/* the peer itself is heard */
		ASSERT_EQ(post_send(qa, w), 0);
		auto rc = poll_n(b.rcq, 1);
		ASSERT_EQ(rc.size(), 1u);
		EXPECT_EQ(rc[0].wr_id, 1u);
		EXPECT_EQ(rc[0].src_qp, xqp_qp_num(qa));
		EXPECT_EQ(poll_n(a.scq, 1).size(), 1u);
		for (xqp_qp *q : {qa, qb, qx, qy, qz}) {
			forget(q);
			EXPECT_EQ(xqp_destroy_qp(q), 0);
		}
		poll_n(b.rcq, 8, 50);	/* the flushed receive of qz */
	}
}

/* UD with a GRH on the soft subnet: IB's GRH (next header 0x1B) with both GIDs. */
TEST_F(Traffic, UdWithGrhWritesTheGrh)
{
	xqp_qp *ua = qp(a, XQP_QPT_UD), *ub = qp(b, XQP_QPT_UD);
	connect_qp(ua, XQP_QPT_UD, 0, 0);
	connect_qp(ub, XQP_QPT_UD, 0, 0);
	xqp_u8 ga[16], gb[16];
	ASSERT_EQ(xqp_query_gid(a.dev, 1, 0, ga), 0);
	ASSERT_EQ(xqp_query_gid(b.dev, 1, 0, gb), 0);
	xqp_ah_attr av = {};
	av.is_global = 1;
	std::memcpy(av.dgid, gb, 16);
	av.hop_limit = 5;
	av.flow_label = 0x12345;
	av.port_num = 1;
	xqp_ah *ah = xqp_create_ah(a.pd, &av);
	ASSERT_FALSE(xqp_is_err(ah));
	ASSERT_EQ(post_recv(ub, 1, b.sge(0, 40 + 64)), 0);
	xqp_sge s = a.sge(0, 64);
	xqp_send_wr w = send_wr(&s, ah, xqp_qp_num(ub));
	ASSERT_EQ(post_send(ua, w), 0);
	auto r = poll_n(b.rcq, 1);
	ASSERT_EQ(r.size(), 1u);
	EXPECT_EQ(r[0].wc_flags, XQP_WC_GRH);
	EXPECT_EQ(r[0].slid, lid(a));
	const auto *h = reinterpret_cast<const xqp_u8 *>(b.buf.data());
	EXPECT_EQ(h[0] >> 4, 6);
	EXPECT_EQ((h[1] & 0xf) << 16 | h[2] << 8 | h[3], 0x12345);
	EXPECT_EQ(h[6], 0x1b);
	EXPECT_EQ(h[7], 5);
	EXPECT_EQ(std::memcmp(h + 8, ga, 16), 0);
	EXPECT_EQ(std::memcmp(h + 24, gb, 16), 0);
	EXPECT_EQ(poll_n(a.scq, 1).size(), 1u);
	EXPECT_EQ(xqp_destroy_ah(ah), 0);
}

/*
 * The responder fills its scratch SGEs from the receiver's WQE, whatever
 * the sender's device allows: a sender made with one SGE per WR sends into
 * a 32-SGE receive of a default device (under ASan, an overflow shows).
 */
TEST_F(Traffic, SmallSgeSenderIntoWideReceive)
{
	xqp_soft_limits lim;
	xqp_soft_default_limits(&lim);
	lim.max_sge = XQP_RULES_MAX_SGE + 1;	/* wider than any scratch: refused */
	EXPECT_EQ(xqp_ptr_err(xqp_soft_create("xqp_soft_wide", &lim)), -XQP_EINVAL);
	lim.max_sge = 1;
	lim.max_srq_sge = 1;
	xqp_soft *small = xqp_soft_create("xqp_soft_small", &lim);
	ASSERT_FALSE(xqp_is_err(small));
	Node s;
	s.init(xqp_soft_device(small));
	xqp_qp *qs = qp(s, XQP_QPT_RC, nullptr, 4, 1, 0);
	xqp_qp *qb = qp(b, XQP_QPT_RC, nullptr, 4, 32, 0);
	ASSERT_TRUE(qs && qb);
	connect_qp(qs, XQP_QPT_RC, lid(b), xqp_qp_num(qb));
	connect_qp(qb, XQP_QPT_RC, xqp_soft_lid(small), xqp_qp_num(qs));
	std::vector<xqp_sge> sges;
	for (u32 i = 0; i < 32; i++)
		sges.push_back(b.sge(i * 8, 8));
	xqp_recv_wr rw = {};
	rw.wr_id = 3;
	rw.sg_list = sges.data();
	rw.num_sge = 32;
	const xqp_recv_wr *bad = nullptr;
	ASSERT_EQ(xqp_post_recv(qb, &rw, &bad), 0);
	fill(s, 0, 256, 's');
	xqp_sge one = s.sge(0, 256);
	xqp_send_wr w = send_wr(&one);
	ASSERT_EQ(post_send(qs, w), 0);
	auto rc = poll_n(b.rcq, 1);
	ASSERT_EQ(rc.size(), 1u);
	EXPECT_EQ(rc[0].status, XQP_WC_SUCCESS);
	EXPECT_EQ(rc[0].byte_len, 256u);
	EXPECT_EQ(std::memcmp(b.buf.data(), s.buf.data(), 256), 0);
	EXPECT_EQ(poll_n(s.scq, 1).size(), 1u);
	for (xqp_qp *q : {qs, qb}) {
		forget(q);
		EXPECT_EQ(xqp_destroy_qp(q), 0);
	}
	s.fini();
	xqp_work_flush_all();
	xqp_soft_destroy(small);
}

/*
 * A UC responder drops a message it cannot take (a receive too small, a
 * bad rkey) and stays in RTS, as the spec and rxe have it; only the
 * receive that was too small completes in error.
 */
TEST_F(Traffic, UcResponderErrorsDropTheMessageNotTheQp)
{
	xqp_qp *ua, *ub;
	pair(XQP_QPT_UC, &ua, &ub);
	ASSERT_EQ(post_recv(ub, 1, b.sge(0, 10)), 0);
	xqp_sge s = a.sge(0, 100);
	xqp_send_wr w = wr(XQP_WR_SEND, &s, 1, 1);
	ASSERT_EQ(post_send(ua, w), 0);
	auto rc = poll_n(b.rcq, 1);
	ASSERT_EQ(rc.size(), 1u);
	EXPECT_EQ(rc[0].status, XQP_WC_LOC_LEN_ERR);

	xqp_send_wr bad = wr(XQP_WR_RDMA_WRITE, &s, 1, 2);
	bad.wr.rdma.remote_addr = b.addr(0);
	bad.wr.rdma.rkey = xqp_mr_rkey(b.mr) ^ 0x80;
	ASSERT_EQ(post_send(ua, bad), 0);
	EXPECT_EQ(poll_n(a.scq, 2).size(), 2u);

	xqp_qp_attr qa = {};
	xqp_qp_init_attr qi = {};
	ASSERT_EQ(xqp_query_qp(ub, &qa, XQP_QP_STATE, &qi), 0);
	EXPECT_EQ(qa.qp_state, XQP_QPS_RTS);
	ASSERT_EQ(post_recv(ub, 3, b.sge(0, 4096)), 0);
	ASSERT_EQ(post_send(ua, w), 0);
	rc = poll_n(b.rcq, 1);
	ASSERT_EQ(rc.size(), 1u);
	EXPECT_EQ(rc[0].wr_id, 3u);
	EXPECT_EQ(rc[0].status, XQP_WC_SUCCESS);
	EXPECT_EQ(rc[0].byte_len, 100u);
}

/* Resizing a QP (XQP_QP_CAP) is refused in any state; its queues stay as granted. */
TEST_F(Traffic, ModifyQpCapIsRefused)
{
	xqp_qp *q = qp(a, XQP_QPT_RC);
	xqp_qp_attr before = {}, after = {};
	xqp_qp_init_attr ib = {}, ia = {};
	ASSERT_EQ(xqp_query_qp(q, &before, XQP_QP_CAP, &ib), 0);
	xqp_qp_attr m = {};
	m.cap.max_send_wr = 1000;
	m.cap.max_recv_wr = 1000;
	EXPECT_EQ(xqp_modify_qp(q, &m, XQP_QP_CAP), -XQP_EINVAL);
	m.qp_state = XQP_QPS_INIT;
	m.port_num = 1;
	m.qp_access_flags = 0;
	EXPECT_EQ(xqp_modify_qp(q, &m, XQP_QP_STATE | XQP_QP_PORT | XQP_QP_PKEY_INDEX |
				       XQP_QP_ACCESS_FLAGS | XQP_QP_CAP), -XQP_EINVAL);
	ASSERT_EQ(xqp_query_qp(q, &after, XQP_QP_CAP, &ia), 0);
	EXPECT_EQ(after.cap.max_send_wr, before.cap.max_send_wr);
	EXPECT_EQ(after.cap.max_recv_wr, before.cap.max_recv_wr);
	EXPECT_EQ(after.qp_state, XQP_QPS_RESET);
}

/*
 * SQD: a WQE already started (here waiting out an RNR timer) still
 * completes, IBV_EVENT_SQ_DRAINED comes only after it, and a WQE posted in
 * SQD waits for RTS, as the spec has SQ drain.
 */
TEST_F(Traffic, SqDrainedOnlyOnceTheStartedWqeCompleted)
{
	Events eva;
	xqp_qp *qa = qp(a, XQP_QPT_RC, nullptr, 16, 4, 64, XQP_SIGNAL_REQ_WR, &eva);
	xqp_qp *qb = qp(b, XQP_QPT_RC);
	connect_qp(qa, XQP_QPT_RC, lid(b), xqp_qp_num(qb), true, 0xe, 7);
	connect_qp(qb, XQP_QPT_RC, lid(a), xqp_qp_num(qa), true, 0xe, 7, 28);	/* RNR 164 ms */
	xqp_sge s = a.sge(0, 32);
	xqp_send_wr w = wr(XQP_WR_SEND, &s, 1, 1);
	ASSERT_EQ(post_send(qa, w), 0);		/* no receive yet: RNR, waits */
	std::this_thread::sleep_for(std::chrono::milliseconds(20));
	xqp_qp_attr m = {};
	m.qp_state = XQP_QPS_SQD;
	m.en_sqd_async_notify = 1;
	ASSERT_EQ(modify(qa, m, XQP_QP_STATE | XQP_QP_EN_SQD_ASYNC_NOTIFY), 0);
	std::this_thread::sleep_for(std::chrono::milliseconds(50));
	EXPECT_EQ(eva.count.load(), 0);		/* a WQE is outstanding */

	ASSERT_EQ(post_recv(qb, 7, b.sge(0, 64)), 0);
	auto sc = poll_n(a.scq, 1, 3000);
	ASSERT_EQ(sc.size(), 1u);
	EXPECT_EQ(sc[0].status, XQP_WC_SUCCESS);
	for (int i = 0; i < 100 && eva.count.load() == 0; i++)
		std::this_thread::sleep_for(std::chrono::milliseconds(10));
	EXPECT_EQ(eva.count.load(), 1);
	EXPECT_EQ(eva.last.load(), XQP_EVENT_SQ_DRAINED);
	EXPECT_EQ(poll_n(b.rcq, 1).size(), 1u);

	/* posted in SQD: not started until RTS */
	ASSERT_EQ(post_recv(qb, 8, b.sge(0, 64)), 0);
	w.wr_id = 2;
	ASSERT_EQ(post_send(qa, w), 0);
	EXPECT_TRUE(poll_n(b.rcq, 1, 100).empty());
	m = {};
	m.qp_state = XQP_QPS_RTS;
	ASSERT_EQ(modify(qa, m, XQP_QP_STATE), 0);
	EXPECT_EQ(poll_n(b.rcq, 1).size(), 1u);
	EXPECT_EQ(poll_n(a.scq, 1).size(), 1u);
	EXPECT_EQ(eva.count.load(), 1);
}
