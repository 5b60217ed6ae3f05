// SPDX-License-Identifier: GPL-2.0
/*
 * The transport rules a connection manager sets up and a peer relies on
 * (docs/datapath.md): PSNs (sq_psn and rq_psn start the sequence, a
 * message takes one per packet at the path MTU, a duplicate is ACKed again
 * or, a READ, re-executed, a gap is NAKed and retransmitted until
 * retry_cnt is spent; UC resynchronises), and the READ/atomic depths
 * max_rd_atomic / max_dest_rd_atomic as rxe enforces them.
 */
#include "traffic.h"

namespace {

class Psn : public Traffic {
protected:
	/*
	 * A pair a -> b of @type: b, the responder, to RTR with @rq_psn (and
	 * max_dest_rd_atomic @rd_depth), a, the requester, connect_qp()'s RTR
	 * and then RTS with @sq_psn.
	 */
	void pair_psn(xqp_qp_type type, xqp_qp **qa, xqp_qp **qb, u32 sq_psn, u32 rq_psn,
		      xqp_u8 retry_cnt = 7, xqp_u8 timeout = 14, xqp_u8 rd_depth = 1)
	{
		*qa = qp(a, type);
		*qb = qp(b, type);
		xqp_qp_attr at = {};
		at.qp_state = XQP_QPS_INIT;
		at.port_num = 1;
		at.qp_access_flags = 0xe;
		ASSERT_EQ(modify(*qb, at, XQP_QP_STATE | XQP_QP_PKEY_INDEX | XQP_QP_PORT |
					      XQP_QP_ACCESS_FLAGS), 0);
		at = {};
		at.qp_state = XQP_QPS_RTR;
		at.path_mtu = XQP_MTU_256;
		at.dest_qp_num = xqp_qp_num(*qa);
		at.rq_psn = rq_psn;
		at.ah_attr.dlid = lid(a);
		at.ah_attr.port_num = 1;
		at.max_dest_rd_atomic = rd_depth;
		at.min_rnr_timer = 1;
		int mask = XQP_QP_STATE | XQP_QP_AV | XQP_QP_PATH_MTU | XQP_QP_DEST_QPN |
			   XQP_QP_RQ_PSN;
		if (type == XQP_QPT_RC)
			mask |= XQP_QP_MAX_DEST_RD_ATOMIC | XQP_QP_MIN_RNR_TIMER;
		ASSERT_EQ(modify(*qb, at, mask), 0);
		connect_qp(*qa, type, lid(b), xqp_qp_num(*qb), false);
		at = {};
		at.qp_state = XQP_QPS_RTS;
		at.sq_psn = sq_psn;
		at.timeout = timeout;
		at.retry_cnt = retry_cnt;
		at.rnr_retry = 7;
		at.max_rd_atomic = 1;
		mask = XQP_QP_STATE | XQP_QP_SQ_PSN;
		if (type == XQP_QPT_RC)
			mask |= XQP_QP_TIMEOUT | XQP_QP_RETRY_CNT | XQP_QP_RNR_RETRY |
				XQP_QP_MAX_QP_RD_ATOMIC;
		ASSERT_EQ(modify(*qa, at, mask), 0);
	}
	u32 psn(xqp_qp *q, int mask)
	{
		xqp_qp_attr at = {};
		xqp_qp_init_attr init = {};
		EXPECT_EQ(xqp_query_qp(q, &at, mask, &init), 0);
		return mask == XQP_QP_SQ_PSN ? at.sq_psn : at.rq_psn;
	}
	/* A signaled READ of @len bytes of b's buffer at @from into a's at @to. */
	int read(xqp_qp *q, u32 len, xqp_u64 id, size_t to = 0, size_t from = 0)
	{
		xqp_sge s = a.sge(to, len);
		xqp_send_wr rd = wr(XQP_WR_RDMA_READ, &s, 1, id);
		rd.wr.rdma.remote_addr = b.addr(from);
		rd.wr.rdma.rkey = xqp_mr_rkey(b.mr);
		return post_send(q, rd);
	}
	int send(xqp_qp *q, u32 len, xqp_u64 id = 1)
	{
		xqp_sge s = a.sge(0, len);
		xqp_send_wr w = wr(XQP_WR_SEND, &s, 1, id);
		return post_send(q, w);
	}
};

/* The requester's path MTU counts (connect_qp()'s 4096; the responder has 256). */
TEST_F(Psn, MessagesTakeOnePsnPerPacketOnBothSides)
{
	xqp_qp *qa, *qb;
	pair_psn(XQP_QPT_RC, &qa, &qb, 100, 100);
	ASSERT_EQ(post_recv(qb, 1, b.sge(0, 16384)), 0);
	ASSERT_EQ(send(qa, 3 * 4096 + 1), 0);	/* 4 packets */
	auto r = poll_n(a.scq, 1);
	ASSERT_EQ(r.size(), 1u);
	EXPECT_EQ(r[0].status, XQP_WC_SUCCESS);
	EXPECT_EQ(poll_n(b.rcq, 1).size(), 1u);
	EXPECT_EQ(psn(qa, XQP_QP_SQ_PSN), 104u);
	EXPECT_EQ(psn(qb, XQP_QP_RQ_PSN), 104u);
	/* a zero-length SEND and a READ of 2 packets */
	ASSERT_EQ(post_recv(qb, 2, b.sge(0, 64)), 0);
	ASSERT_EQ(send(qa, 0), 0);
	ASSERT_EQ(read(qa, 8192, 3), 0);
	EXPECT_EQ(poll_n(a.scq, 2).size(), 2u);
	EXPECT_EQ(psn(qa, XQP_QP_SQ_PSN), 107u);
	EXPECT_EQ(psn(qb, XQP_QP_RQ_PSN), 107u);
}

/* The sequence wraps at 2^24, on both sides. */
TEST_F(Psn, SequenceWrapsAt24Bits)
{
	xqp_qp *qa, *qb;
	pair_psn(XQP_QPT_RC, &qa, &qb, 0xffffff, 0xffffff);
	ASSERT_EQ(post_recv(qb, 1, b.sge(0, 64)), 0);
	ASSERT_EQ(post_recv(qb, 2, b.sge(64, 64)), 0);
	ASSERT_EQ(send(qa, 8), 0);
	ASSERT_EQ(send(qa, 8), 0);
	EXPECT_EQ(poll_n(b.rcq, 2).size(), 2u);
	EXPECT_EQ(psn(qa, XQP_QP_SQ_PSN), 1u);
	EXPECT_EQ(psn(qb, XQP_QP_RQ_PSN), 1u);
}

/* A requester ahead of its responder: NAK sequence error, retried, then RETRY_EXC. */
TEST_F(Psn, GapIsRetransmittedUntilRetryCountIsSpent)
{
	xqp_qp *qa, *qb;
	pair_psn(XQP_QPT_RC, &qa, &qb, 50, 10, 2, 1);
	ASSERT_EQ(post_recv(qb, 1, b.sge(0, 64)), 0);
	ASSERT_EQ(send(qa, 8), 0);
	auto r = poll_n(a.scq, 1);
	ASSERT_EQ(r.size(), 1u);
	EXPECT_EQ(r[0].status, XQP_WC_RETRY_EXC_ERR);
	EXPECT_EQ(poll_n(b.rcq, 1, 100).size(), 0u);	/* nothing delivered */
	EXPECT_EQ(psn(qb, XQP_QP_RQ_PSN), 10u);
}

/*
 * A requester behind: each duplicate SEND is ACKed (completes well) and
 * not delivered, until it reaches the responder's PSN; from there on
 * messages are delivered.
 */
TEST_F(Psn, DuplicatesAreAckedNotDeliveredUntilInSequence)
{
	xqp_qp *qa, *qb;
	pair_psn(XQP_QPT_RC, &qa, &qb, 7, 10);
	ASSERT_EQ(post_recv(qb, 1, b.sge(0, 64)), 0);
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(send(qa, 8, 10 + i), 0);
	auto r = poll_n(a.scq, 4);
	ASSERT_EQ(r.size(), 4u);
	for (auto &c : r)
		EXPECT_EQ(c.status, XQP_WC_SUCCESS);
	/* PSNs 7, 8, 9 were duplicates; 10 was delivered */
	auto rr = poll_n(b.rcq, 1);
	ASSERT_EQ(rr.size(), 1u);
	EXPECT_EQ(poll_n(b.rcq, 1, 100).size(), 0u);
	EXPECT_EQ(psn(qb, XQP_QP_RQ_PSN), 11u);
}

/* A duplicate READ is executed again: the data comes back. */
TEST_F(Psn, DuplicateReadIsReExecuted)
{
	xqp_qp *qa, *qb;
	pair_psn(XQP_QPT_RC, &qa, &qb, 3, 4);
	fill(b, 1024, 64, 'k');
	ASSERT_EQ(read(qa, 64, 5, 2048, 1024), 0);
	auto r = poll_n(a.scq, 1);
	ASSERT_EQ(r.size(), 1u);
	EXPECT_EQ(r[0].status, XQP_WC_SUCCESS);
	EXPECT_EQ(std::memcmp(a.buf.data() + 2048, b.buf.data() + 1024, 64), 0);
	EXPECT_EQ(psn(qb, XQP_QP_RQ_PSN), 4u);	/* not moved by a duplicate */
}

/* UC has no NAK: the responder takes a first packet whatever its PSN. */
TEST_F(Psn, UcResynchronises)
{
	xqp_qp *qa, *qb;
	pair_psn(XQP_QPT_UC, &qa, &qb, 500, 20);
	ASSERT_EQ(post_recv(qb, 1, b.sge(0, 64)), 0);
	ASSERT_EQ(send(qa, 8), 0);
	EXPECT_EQ(poll_n(b.rcq, 1).size(), 1u);
	EXPECT_EQ(psn(qb, XQP_QP_RQ_PSN), 501u);
}

/* max_dest_rd_atomic 0: a READ is NAKed as an invalid request, the responder errs. */
TEST_F(Psn, NoResponderResourcesRefuseReads)
{
	xqp_qp *qa, *qb;
	pair_psn(XQP_QPT_RC, &qa, &qb, 0, 0, 7, 14, 0);
	ASSERT_EQ(read(qa, 64, 5), 0);
	auto r = poll_n(a.scq, 1);
	ASSERT_EQ(r.size(), 1u);
	EXPECT_EQ(r[0].status, XQP_WC_REM_INV_REQ_ERR);
	xqp_qp_attr q = {};
	xqp_qp_init_attr init = {};
	ASSERT_EQ(xqp_query_qp(qb, &q, XQP_QP_STATE, &init), 0);
	EXPECT_EQ(q.qp_state, XQP_QPS_ERR);
}

/*
 * max_rd_atomic 0: the requester has no credit for a READ, which waits at
 * the head (rxe's requester), and so does what was posted after it; a
 * move to ERR flushes both.
 */
TEST_F(Psn, NoRequesterCreditHoldsReads)
{
	xqp_qp *qa, *qb;
	pair(XQP_QPT_RC, &qa, &qb);
	xqp_qp_attr at = {};
	at.qp_state = XQP_QPS_SQD;
	ASSERT_EQ(modify(qa, at, XQP_QP_STATE), 0);
	at = {};
	at.qp_state = XQP_QPS_SQD;	/* SQD -> SQD changes the depth */
	at.max_rd_atomic = 0;
	ASSERT_EQ(modify(qa, at, XQP_QP_STATE | XQP_QP_MAX_QP_RD_ATOMIC), 0);
	at = {};
	at.qp_state = XQP_QPS_RTS;
	ASSERT_EQ(modify(qa, at, XQP_QP_STATE), 0);
	ASSERT_EQ(read(qa, 64, 5), 0);
	ASSERT_EQ(post_recv(qb, 1, b.sge(0, 64)), 0);
	ASSERT_EQ(send(qa, 8, 6), 0);
	EXPECT_EQ(poll_n(a.scq, 1, 200).size(), 0u);
	EXPECT_EQ(poll_n(b.rcq, 1, 50).size(), 0u);
	at = {};
	at.qp_state = XQP_QPS_ERR;
	ASSERT_EQ(modify(qa, at, XQP_QP_STATE), 0);
	auto r = poll_n(a.scq, 2);
	ASSERT_EQ(r.size(), 2u);
	EXPECT_EQ(r[0].status, XQP_WC_WR_FLUSH_ERR);
	EXPECT_EQ(r[1].status, XQP_WC_WR_FLUSH_ERR);
}

} // namespace
