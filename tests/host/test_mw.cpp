// SPDX-License-Identifier: GPL-2.0
/*
 * Memory windows on the soft device (drivers/soft/mw.c): type 1 and type
 * 2B windows bound by BIND_MW, remote access through a window's rkey inside
 * its range and access only, LOCAL_INV and SEND_WITH_INV, the rules a bind
 * must meet (MW_BIND_ERR), and an MR that is not deregistered while
 * windows are bound to it.
 */
#include "traffic.h"

namespace {

constexpr int kBindable = XQP_ACCESS_LOCAL_WRITE | XQP_ACCESS_MW_BIND;
constexpr int kRw = XQP_ACCESS_REMOTE_WRITE | XQP_ACCESS_REMOTE_READ;

/* @mw's rkey with key byte @key. */
u32 rekey(xqp_mw *mw, xqp_u8 key)
{
	return (xqp_mw_rkey(mw) & ~0xffU) | key;
}

xqp_send_wr bind_wr(xqp_mw *mw, u32 rkey, xqp_mr *mr, xqp_u64 addr, xqp_u64 len, int access)
{
	xqp_send_wr w = {};
	w.wr_id = 9;
	w.opcode = XQP_WR_BIND_MW;
	w.send_flags = XQP_SEND_SIGNALED;
	w.wr.bind.mw = mw;
	w.wr.bind.rkey = rkey;
	w.wr.bind.mr_lkey = mr ? xqp_mr_lkey(mr) : 0;
	w.wr.bind.addr = addr;
	w.wr.bind.length = len;
	w.wr.bind.access = access;
	return w;
}

class Windows : public Traffic {
protected:
	void SetUp() override
	{
		Traffic::SetUp();
		bmr_ = xqp_reg_kernel_mr(b.pd, b.buf.data(), b.buf.size(), kBindable);
		ASSERT_FALSE(xqp_is_err(bmr_));
	}
	void TearDown() override
	{
		for (xqp_mw *mw : mws_)
			EXPECT_EQ(xqp_dealloc_mw(mw), 0);
		EXPECT_EQ(xqp_dereg_mr(bmr_), 0);
		Traffic::TearDown();
	}
	xqp_mw *mw(xqp_mw_type type, xqp_pd *pd = nullptr)
	{
		xqp_mw *w = xqp_alloc_mw(pd ? pd : b.pd, type);
		EXPECT_FALSE(xqp_is_err(w)) << xqp_ptr_err(w);
		if (!xqp_is_err(w))
			mws_.push_back(w);
		return w;
	}
	/* Executes a local WR on @q (b's side): its completion's status. */
	int local(xqp_qp *q, xqp_send_wr w)
	{
		if (post_send(q, w))
			return -1;
		auto c = poll_n(b.scq, 1);
		if (c.size() != 1)
			return -2;
		EXPECT_EQ(c[0].opcode, c[0].status == XQP_WC_SUCCESS ?
			  (w.opcode == XQP_WR_BIND_MW ? XQP_WC_BIND_MW : XQP_WC_LOCAL_INV) :
			  c[0].opcode);
		return c[0].status;
	}
	int bind(xqp_qp *q, xqp_mw *m, u32 rkey, xqp_u64 off, xqp_u64 len, int access,
		 xqp_mr *mr = nullptr)
	{
		return local(q, bind_wr(m, rkey, mr ? mr : bmr_, b.addr(off), len, access));
	}
	/* An RDMA op of @len bytes from qa at a's offset 0 to @addr/@rkey: its status. */
	int rdma(xqp_qp *qa, xqp_wr_opcode op, xqp_u64 addr, u32 rkey, u32 len)
	{
		xqp_sge s = a.sge(0, len);
		xqp_send_wr w = wr(op, &s, 1);
		w.wr.rdma.remote_addr = addr;
		w.wr.rdma.rkey = rkey;
		if (post_send(qa, w))
			return -1;
		auto c = poll_n(a.scq, 1);
		return c.size() == 1 ? c[0].status : -2;
	}
	xqp_mr *bmr_ = nullptr;
	std::vector<xqp_mw *> mws_;
};

TEST_F(Windows, DeviceReportsWindows)
{
	xqp_device_attr da = {};
	ASSERT_EQ(xqp_query_device(b.dev, &da), 0);
	EXPECT_EQ(da.max_mw, 1u << 20);
	EXPECT_TRUE(da.device_cap_flags & XQP_DEVICE_MEM_WINDOW);
	EXPECT_TRUE(da.device_cap_flags & XQP_DEVICE_MEM_WINDOW_TYPE_2B);
	EXPECT_EQ(xqp_ptr_err(xqp_alloc_mw(b.pd, static_cast<xqp_mw_type>(3))), -XQP_EINVAL);
	xqp_mw *m = mw(XQP_MW_TYPE_1);
	EXPECT_EQ(xqp_mw_get_type(m), XQP_MW_TYPE_1);
	struct xqp_soft_counts c = {};
	xqp_soft_counts(soft2_, &c);
	EXPECT_EQ(c.mw, 1u);
}

TEST_F(Windows, Type1WindowOpensItsRangeOnly)
{
	xqp_qp *qa, *qb;
	pair(XQP_QPT_RC, &qa, &qb);
	xqp_mw *m = mw(XQP_MW_TYPE_1);
	u32 key = rekey(m, static_cast<xqp_u8>(xqp_mw_rkey(m) + 1));
	ASSERT_EQ(bind(qb, m, key, 4096, 1024, kRw), XQP_WC_SUCCESS);

	fill(a, 0, 100, 'w');
	EXPECT_EQ(rdma(qa, XQP_WR_RDMA_WRITE, b.addr(4096), key, 100), XQP_WC_SUCCESS);
	EXPECT_EQ(std::memcmp(b.buf.data() + 4096, a.buf.data(), 100), 0);
	fill(b, 4096 + 924, 100, 'r');
	EXPECT_EQ(rdma(qa, XQP_WR_RDMA_READ, b.addr(4096 + 924), key, 100), XQP_WC_SUCCESS);
	EXPECT_EQ(std::memcmp(a.buf.data(), b.buf.data() + 4096 + 924, 100), 0);
	/* bound: its MR stays */
	EXPECT_EQ(xqp_dereg_mr(bmr_), -XQP_EINVAL);

	/* past its end, the rkey it was allocated with, the MR's own key: refused */
	EXPECT_EQ(rdma(qa, XQP_WR_RDMA_WRITE, b.addr(4096 + 1000), key, 100),
		  XQP_WC_REM_ACCESS_ERR);
	pair(XQP_QPT_RC, &qa, &qb);
	EXPECT_EQ(rdma(qa, XQP_WR_RDMA_WRITE, b.addr(4096), xqp_mw_rkey(m), 8),
		  XQP_WC_REM_ACCESS_ERR);
	pair(XQP_QPT_RC, &qa, &qb);
	EXPECT_EQ(rdma(qa, XQP_WR_RDMA_WRITE, b.addr(4096), xqp_mr_rkey(bmr_), 8),
		  XQP_WC_REM_ACCESS_ERR);

	/* rebound elsewhere (a type 1 window may be), then unbound: length 0 */
	pair(XQP_QPT_RC, &qa, &qb);
	u32 key2 = rekey(m, static_cast<xqp_u8>(key + 1));
	ASSERT_EQ(bind(qb, m, key2, 0, 64, XQP_ACCESS_REMOTE_READ), XQP_WC_SUCCESS);
	EXPECT_EQ(rdma(qa, XQP_WR_RDMA_READ, b.addr(0), key2, 64), XQP_WC_SUCCESS);
	EXPECT_EQ(rdma(qa, XQP_WR_RDMA_WRITE, b.addr(0), key2, 8), XQP_WC_REM_ACCESS_ERR);
	pair(XQP_QPT_RC, &qa, &qb);
	ASSERT_EQ(bind(qb, m, key2, 0, 0, 0), XQP_WC_SUCCESS);
	EXPECT_EQ(rdma(qa, XQP_WR_RDMA_READ, b.addr(0), key2, 8), XQP_WC_REM_ACCESS_ERR);
}

TEST_F(Windows, Type2WindowIsItsQpsUntilInvalidated)
{
	xqp_qp *qa, *qb, *qc, *qd;
	pair(XQP_QPT_RC, &qa, &qb);
	pair(XQP_QPT_RC, &qc, &qd);
	xqp_mw *m = mw(XQP_MW_TYPE_2);
	u32 key = rekey(m, 0x5a);
	ASSERT_EQ(bind(qb, m, key, 0, 4096, kRw | XQP_ACCESS_REMOTE_ATOMIC), XQP_WC_SUCCESS);
	EXPECT_EQ(rdma(qa, XQP_WR_RDMA_WRITE, b.addr(8), key, 8), XQP_WC_SUCCESS);
	/* through another QP of b: refused (it is qb's) */
	EXPECT_EQ(rdma(qc, XQP_WR_RDMA_WRITE, b.addr(8), key, 8), XQP_WC_REM_ACCESS_ERR);

	xqp_send_wr inv = {};
	inv.opcode = XQP_WR_LOCAL_INV;
	inv.send_flags = XQP_SEND_SIGNALED;
	inv.invalidate_rkey = key;
	ASSERT_EQ(local(qb, inv), XQP_WC_SUCCESS);
	EXPECT_EQ(rdma(qa, XQP_WR_RDMA_WRITE, b.addr(8), key, 8), XQP_WC_REM_ACCESS_ERR);
	EXPECT_EQ(xqp_dealloc_mw(m), 0);
	mws_.clear();

	/* a type 2 window is bound once: a second bind before it is freed fails */
	pair(XQP_QPT_RC, &qa, &qb);
	m = mw(XQP_MW_TYPE_2);
	ASSERT_EQ(bind(qb, m, rekey(m, 1), 0, 64, kRw), XQP_WC_SUCCESS);
	EXPECT_EQ(bind(qb, m, rekey(m, 2), 0, 64, kRw), XQP_WC_MW_BIND_ERR);
	/* and an invalidation of a type 1 window, or of no window, fails */
	pair(XQP_QPT_RC, &qa, &qb);
	xqp_mw *t1 = mw(XQP_MW_TYPE_1);
	ASSERT_EQ(bind(qb, t1, rekey(t1, 3), 0, 64, kRw), XQP_WC_SUCCESS);
	inv.invalidate_rkey = rekey(t1, 3);
	EXPECT_EQ(local(qb, inv), XQP_WC_LOC_QP_OP_ERR);
}

TEST_F(Windows, SendWithInvalidateFreesTheWindowAtItsTarget)
{
	xqp_qp *qa, *qb;
	pair(XQP_QPT_RC, &qa, &qb);
	xqp_mw *m = mw(XQP_MW_TYPE_2);
	u32 key = rekey(m, 0x11);
	ASSERT_EQ(bind(qb, m, key, 0, 4096, kRw), XQP_WC_SUCCESS);

	ASSERT_EQ(post_recv(qb, 44, b.sge(8192, 256)), 0);
	xqp_sge s = a.sge(0, 32);
	xqp_send_wr w = wr(XQP_WR_SEND_WITH_INV, &s, 1);
	w.invalidate_rkey = key;
	ASSERT_EQ(post_send(qa, w), 0);
	auto rc = poll_n(b.rcq, 1);
	ASSERT_EQ(rc.size(), 1u);
	EXPECT_EQ(rc[0].status, XQP_WC_SUCCESS);
	EXPECT_EQ(rc[0].opcode, XQP_WC_RECV);
	EXPECT_EQ(rc[0].byte_len, 32u);
	EXPECT_EQ(rc[0].wc_flags, XQP_WC_WITH_INVALIDATE);
	EXPECT_EQ(rc[0].invalidate_rkey, key);
	auto sc = poll_n(a.scq, 1);
	ASSERT_EQ(sc.size(), 1u);
	EXPECT_EQ(sc[0].status, XQP_WC_SUCCESS);
	EXPECT_EQ(sc[0].opcode, XQP_WC_SEND);
	EXPECT_EQ(rdma(qa, XQP_WR_RDMA_WRITE, b.addr(0), key, 8), XQP_WC_REM_ACCESS_ERR);

	/* free again: it binds anew; an invalidation of a key it no longer has fails */
	pair(XQP_QPT_RC, &qa, &qb);
	ASSERT_EQ(bind(qb, m, rekey(m, 0x12), 0, 64, kRw), XQP_WC_SUCCESS);
	ASSERT_EQ(post_recv(qb, 45, b.sge(8192, 256)), 0);
	ASSERT_EQ(post_send(qa, w), 0);
	rc = poll_n(b.rcq, 1);
	ASSERT_EQ(rc.size(), 1u);
	EXPECT_EQ(rc[0].status, XQP_WC_REM_INV_REQ_ERR);
	sc = poll_n(a.scq, 1);
	ASSERT_EQ(sc.size(), 1u);
	EXPECT_EQ(sc[0].status, XQP_WC_REM_INV_REQ_ERR);
}

TEST_F(Windows, ZeroBasedWindowIsAddressedFromZero)
{
	xqp_qp *qa, *qb;
	pair(XQP_QPT_RC, &qa, &qb);
	xqp_mw *m = mw(XQP_MW_TYPE_2);
	u32 key = rekey(m, 7);
	ASSERT_EQ(bind(qb, m, key, 8192, 512, kRw | XQP_ACCESS_ZERO_BASED), XQP_WC_SUCCESS);
	fill(a, 0, 16, 'z');
	EXPECT_EQ(rdma(qa, XQP_WR_RDMA_WRITE, 16, key, 16), XQP_WC_SUCCESS);
	EXPECT_EQ(std::memcmp(b.buf.data() + 8192 + 16, a.buf.data(), 16), 0);
	EXPECT_EQ(rdma(qa, XQP_WR_RDMA_WRITE, 500, key, 16), XQP_WC_REM_ACCESS_ERR);
}

TEST_F(Windows, BindsBreakingTheRulesFail)
{
	xqp_mr *plain = xqp_reg_kernel_mr(b.pd, b.buf.data(), 4096, 0xf);	/* no MW_BIND */
	xqp_mr *ro = xqp_reg_kernel_mr(b.pd, b.buf.data(), 4096, XQP_ACCESS_MW_BIND);
	xqp_pd *other = xqp_alloc_pd(b.dev);
	ASSERT_FALSE(xqp_is_err(plain) || xqp_is_err(ro) || xqp_is_err(other));
	xqp_mw *t1 = mw(XQP_MW_TYPE_1), *t2 = mw(XQP_MW_TYPE_2);
	xqp_mw *foreign = mw(XQP_MW_TYPE_1, other);
	struct Case {
		const char *what;
		xqp_mw *mw;
		xqp_mr *mr;
		xqp_u64 off, len;
		int access;
	} cases[] = {
		{ "type 1 zero-based", t1, bmr_, 0, 64, XQP_ACCESS_ZERO_BASED },
		{ "type 2 of length 0", t2, bmr_, 0, 0, kRw },
		{ "MR without MW_BIND", t1, plain, 0, 64, kRw },
		{ "writable on an MR without local write", t1, ro, 0, 64, XQP_ACCESS_REMOTE_WRITE },
		{ "past the MR", t1, bmr_, b.buf.size() - 32, 64, kRw },
		{ "window of another PD", foreign, bmr_, 0, 64, kRw },
		{ "unknown access bit", t1, bmr_, 0, 64, 1 << 7 },
	};
	for (const Case &c : cases) {
		xqp_qp *qa, *qb;
		pair(XQP_QPT_RC, &qa, &qb);
		EXPECT_EQ(bind(qb, c.mw, rekey(c.mw, 9), c.off, c.len, c.access, c.mr),
			  XQP_WC_MW_BIND_ERR) << c.what;
		xqp_qp_attr qa_attr = {};
		xqp_qp_init_attr init = {};
		ASSERT_EQ(xqp_query_qp(qb, &qa_attr, XQP_QP_STATE, &init), 0);
		EXPECT_EQ(qa_attr.qp_state, XQP_QPS_ERR) << c.what;
	}
	EXPECT_EQ(xqp_dereg_mr(plain), 0);
	EXPECT_EQ(xqp_dereg_mr(ro), 0);
	EXPECT_EQ(xqp_dealloc_mw(foreign), 0);
	mws_.pop_back();
	EXPECT_EQ(xqp_dealloc_pd(other), 0);
}

TEST_F(Windows, DeallocOfABoundWindowReleasesItsMr)
{
	xqp_qp *qa, *qb;
	pair(XQP_QPT_RC, &qa, &qb);
	xqp_mr *mr = xqp_reg_kernel_mr(b.pd, b.buf.data(), 4096, kBindable);
	ASSERT_FALSE(xqp_is_err(mr));
	xqp_mw *m = xqp_alloc_mw(b.pd, XQP_MW_TYPE_1);
	ASSERT_FALSE(xqp_is_err(m));
	ASSERT_EQ(bind(qb, m, rekey(m, 4), 0, 64, kRw, mr), XQP_WC_SUCCESS);
	EXPECT_EQ(xqp_dereg_mr(mr), -XQP_EINVAL);
	u32 key = rekey(m, 4);
	EXPECT_EQ(xqp_dealloc_mw(m), 0);
	EXPECT_EQ(xqp_dereg_mr(mr), 0);
	EXPECT_EQ(rdma(qa, XQP_WR_RDMA_READ, b.addr(0), key, 8), XQP_WC_REM_ACCESS_ERR);
}

/*
 * A bind that runs while its window is freed binds nothing: the window's MR
 * is free to go afterwards, whichever came first (each round: a bind posted
 * with IRQs off, so executed on the work queue, and the window freed at
 * once by the poster).
 */
TEST_F(Windows, ABindRacingTheDeallocLeavesTheMrFree)
{
	for (int round = 0; round < 1000; round++) {
		xqp_qp *qa, *qb;
		pair(XQP_QPT_RC, &qa, &qb);
		xqp_mr *mr = xqp_reg_kernel_mr(b.pd, b.buf.data(), 4096, kBindable);
		ASSERT_FALSE(xqp_is_err(mr));
		xqp_mw *m = xqp_alloc_mw(b.pd, XQP_MW_TYPE_1);
		ASSERT_FALSE(xqp_is_err(m));
		xqp_send_wr w = bind_wr(m, rekey(m, 1), mr, b.addr(0), 64, kRw);
		unsigned long flags = xqp_irq_save();
		int rc = post_send(qb, w);
		xqp_irq_restore(flags);
		EXPECT_EQ(rc, 0);
		EXPECT_EQ(xqp_dealloc_mw(m), 0);
		ASSERT_EQ(poll_n(b.scq, 1).size(), 1u);	/* bound, or MW_BIND_ERR */
		ASSERT_EQ(xqp_dereg_mr(mr), 0) << "round " << round;
		EXPECT_EQ(xqp_destroy_qp(qb), 0);
		EXPECT_EQ(xqp_destroy_qp(qa), 0);
		qps_.resize(qps_.size() - 2);
	}
}

} // namespace
