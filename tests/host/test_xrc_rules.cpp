// SPDX-License-Identifier: GPL-2.0
/* The shared-QP rules of the spec, one test each, through the C API. */
#include "fixture.h"

namespace {

struct Events {
	int calls = 0;
	xqp_qp *last = nullptr;
	xqp_event_type type{};
};

void on_event(xqp_event *ev, void *ctx)
{
	auto *e = static_cast<Events *>(ctx);
	e->calls++;
	e->last = ev->element.qp;
	e->type = ev->event;
}

} // namespace

TEST_F(Core, XrcdBusyWhileUsedAndFreeAfter)
{
	xqp_xrcd *x = xrcd();
	EXPECT_EQ(xqp_xrcd_usecnt(x), 0u);
	xqp_qp *h = create_tgt(x);
	EXPECT_EQ(xqp_xrcd_usecnt(x), 1u);
	EXPECT_EQ(xqp_dealloc_xrcd(x), -XQP_EBUSY);
	EXPECT_EQ(xqp_destroy_qp(h), 0);
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
}

TEST_F(Core, InodeUsersCountInUsecnt)
{
	xqp_xrcd *x = xrcd();
	xqp_xrcd_get_user(x);
	EXPECT_EQ(xqp_dealloc_xrcd(x), -XQP_EBUSY);
	xqp_xrcd_put_user(x);
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
}

TEST_F(Core, CreateReturnsShareAndGrantedCaps)
{
	xqp_xrcd *x = xrcd();
	xqp_qp_init_attr init = {};
	init.qp_type = XQP_QPT_XRC_TGT;
	init.xrcd = x;
	init.cap.max_recv_wr = 7;
	init.cap.max_send_wr = 3;
	xqp_qp *h = xqp_create_qp_user(dev(), nullptr, &init, nullptr, nullptr, "test");
	ASSERT_FALSE(xqp_is_err(h));
	EXPECT_TRUE(xqp_qp_is_share(h));
	EXPECT_FALSE(xqp_qp_is_share(xqp_qp_real(h)));
	EXPECT_EQ(xqp_qp_get_type(h), XQP_QPT_XRC_TGT);
	EXPECT_EQ(xqp_qp_xrcd(h), x);
	xqp_qp_attr attr = {};
	xqp_qp_init_attr q = {};
	ASSERT_EQ(xqp_query_qp(h, &attr, XQP_QP_CAP, &q), 0);
	EXPECT_EQ(attr.cap.max_recv_wr, init.cap.max_recv_wr);
	EXPECT_EQ(attr.cap.max_send_wr, init.cap.max_send_wr);
	EXPECT_GE(init.cap.max_recv_wr, 7u);
	EXPECT_EQ(q.qp_type, XQP_QPT_XRC_TGT);
	EXPECT_EQ(q.xrcd, x);
	EXPECT_EQ(xqp_destroy_qp(h), 0);
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
}

TEST_F(Core, CreateFailuresLeaveNothing)
{
	xqp_xrcd *x = xrcd();
	xqp_qp_init_attr init = {};
	init.qp_type = XQP_QPT_XRC_TGT;
	EXPECT_EQ(xqp_ptr_err(xqp_create_qp_user(dev(), nullptr, &init, nullptr, nullptr, "t")),
		  -XQP_EINVAL);	/* no XRCD */
	init.qp_type = static_cast<xqp_qp_type>(77);
	EXPECT_EQ(xqp_ptr_err(xqp_create_qp_user(dev(), nullptr, &init, nullptr, nullptr, "t")),
		  -XQP_EINVAL);	/* unknown type */
	init.qp_type = XQP_QPT_XRC_TGT;
	init.xrcd = x;
	xqp_soft_inject(soft_, XQP_SOFT_OP_CREATE_QP, -XQP_ENOSPC, 0);
	EXPECT_EQ(xqp_ptr_err(xqp_create_qp_user(dev(), nullptr, &init, nullptr, nullptr, "t")),
		  -XQP_ENOSPC);
	EXPECT_EQ(xqp_xrcd_usecnt(x), 0u);
	EXPECT_EQ(counts().qp, 0u);
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
}

TEST_F(Core, OpenRules)
{
	xqp_xrcd *x1 = xrcd(), *x2 = xrcd();
	xqp_qp *h = create_tgt(x1);
	xqp_qp_open_attr oa = {};
	oa.qp_num = xqp_qp_num(h);
	oa.qp_type = XQP_QPT_RC;
	EXPECT_EQ(xqp_ptr_err(xqp_open_qp(x1, &oa)), -XQP_EINVAL);
	EXPECT_EQ(xqp_ptr_err(open(x1, xqp_qp_num(h) + 1)), -XQP_EINVAL);
	EXPECT_EQ(xqp_ptr_err(open(x2, xqp_qp_num(h))), -XQP_EINVAL);
	EXPECT_EQ(xqp_ptr_err(open(x1, 1u << 24)), -XQP_EINVAL);
	EXPECT_EQ(xqp_ptr_err(open(x1, 0xffffffffu)), -XQP_EINVAL);
	xqp_qp *o = open(x1, xqp_qp_num(h));
	ASSERT_FALSE(xqp_is_err(o));
	EXPECT_EQ(xqp_qp_real(o), xqp_qp_real(h));
	EXPECT_EQ(xqp_qp_share_count(o), 2u);
	EXPECT_EQ(xqp_xrcd_usecnt(x1), 1u);	/* opens do not count */
	EXPECT_EQ(xqp_destroy_qp(h), 0);
	EXPECT_EQ(xqp_destroy_qp(o), 0);
	EXPECT_EQ(xqp_dealloc_xrcd(x1), 0);
	EXPECT_EQ(xqp_dealloc_xrcd(x2), 0);
}

TEST_F(Core, CloseNeverDestroysAndOrphanStaysOpenable)
{
	xqp_xrcd *x = xrcd();
	xqp_qp *h = create_tgt(x);
	xqp_qp *real = xqp_qp_real(h);
	u32 qpn = xqp_qp_num(h);
	EXPECT_EQ(xqp_close_qp(real), -XQP_EINVAL);
	EXPECT_EQ(xqp_close_qp(h), 0);
	EXPECT_EQ(xqp_qp_share_count(real), 0u);
	EXPECT_EQ(xqp_xrcd_usecnt(x), 1u);
	EXPECT_EQ(counts().qp, 1u);
	xqp_qp *o = open(x, qpn);
	ASSERT_FALSE(xqp_is_err(o));
	EXPECT_EQ(xqp_destroy_qp(o), 0);
	EXPECT_EQ(xqp_ptr_err(open(x, qpn)), -XQP_EINVAL);
	EXPECT_EQ(counts().qp, 0u);
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
}

TEST_F(Core, DestroyingAnOrphanRealQp)
{
	xqp_xrcd *x = xrcd();
	xqp_qp *h = create_tgt(x);
	xqp_qp *real = xqp_qp_real(h);
	EXPECT_EQ(xqp_destroy_qp(real), -XQP_EBUSY);
	EXPECT_EQ(xqp_close_qp(h), 0);
	EXPECT_EQ(xqp_destroy_qp(real), 0);	/* no shares left: it goes */
	EXPECT_EQ(xqp_xrcd_usecnt(x), 0u);
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
}

TEST_F(Core, CreatorIsOneShareAmongEquals)
{
	xqp_xrcd *x = xrcd();
	xqp_qp *h = create_tgt(x);
	xqp_qp *a = open(x, xqp_qp_num(h));
	xqp_qp *b = open(x, xqp_qp_num(h));
	xqp_qp *real = xqp_qp_real(h);
	EXPECT_EQ(xqp_destroy_qp(h), 0);
	EXPECT_EQ(xqp_qp_real(a), real);
	EXPECT_EQ(xqp_destroy_qp(a), 0);
	EXPECT_EQ(xqp_xrcd_usecnt(x), 1u);
	EXPECT_EQ(xqp_qp_share_count(b), 1u);
	EXPECT_EQ(xqp_destroy_qp(b), 0);
	EXPECT_EQ(xqp_xrcd_usecnt(x), 0u);
	EXPECT_EQ(counts().qp, 0u);
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
}

TEST_F(Core, ModifyAndQueryThroughAnyShare)
{
	xqp_xrcd *x = xrcd();
	xqp_qp *h = create_tgt(x);
	xqp_qp *a = open(x, xqp_qp_num(h));
	xqp_qp_attr attr = {};
	attr.qp_state = XQP_QPS_RTR;	/* RESET -> RTR is not a transition */
	EXPECT_EQ(xqp_modify_qp(a, &attr, XQP_QP_STATE), -XQP_EINVAL);
	attr.qp_state = XQP_QPS_INIT;
	EXPECT_EQ(xqp_modify_qp(a, &attr, XQP_QP_STATE), -XQP_EINVAL);	/* missing required */
	attr.port_num = 1;
	EXPECT_EQ(xqp_modify_qp(a, &attr, XQP_QP_STATE | XQP_QP_PKEY_INDEX | XQP_QP_PORT |
					      XQP_QP_ACCESS_FLAGS), 0);
	xqp_qp_attr got = {};
	EXPECT_EQ(xqp_query_qp(h, &got, XQP_QP_STATE, nullptr), 0);
	EXPECT_EQ(got.qp_state, XQP_QPS_INIT);
	EXPECT_EQ(got.port_num, 1);
	EXPECT_EQ(xqp_modify_qp(h, &attr, 1 << 30), -XQP_EOPNOTSUPP);
	EXPECT_EQ(xqp_destroy_qp(a), 0);
	EXPECT_EQ(xqp_destroy_qp(h), 0);
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
}

TEST_F(Core, EventsFanOutOncePerShareAndStopAtClose)
{
	xqp_xrcd *x = xrcd();
	Events ec, ea, en;
	xqp_qp *h = create_tgt(x, on_event, &ec);
	xqp_qp *a = open(x, xqp_qp_num(h), on_event, &ea);
	xqp_qp *n = open(x, xqp_qp_num(h), nullptr, &en);
	ASSERT_EQ(xqp_soft_raise_qp_event(soft_, xqp_qp_num(h), XQP_EVENT_PATH_MIG), 0);
	EXPECT_EQ(ec.calls, 1);
	EXPECT_EQ(ea.calls, 1);
	EXPECT_EQ(en.calls, 0);
	EXPECT_EQ(ec.last, h);
	EXPECT_EQ(ea.last, a);
	EXPECT_EQ(ea.type, XQP_EVENT_PATH_MIG);
	EXPECT_EQ(xqp_close_qp(a), 0);
	ASSERT_EQ(xqp_soft_raise_qp_event(soft_, xqp_qp_num(h), XQP_EVENT_COMM_EST), 0);
	EXPECT_EQ(ea.calls, 1);
	EXPECT_EQ(ec.calls, 2);
	EXPECT_EQ(xqp_destroy_qp(n), 0);
	EXPECT_EQ(xqp_destroy_qp(h), 0);
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
}

TEST_F(Core, LastDestroyDriverFailureKeepsEverything)
{
	xqp_xrcd *x = xrcd();
	Events e;
	xqp_qp *h = create_tgt(x, on_event, &e);
	u32 qpn = xqp_qp_num(h);
	xqp_soft_inject(soft_, XQP_SOFT_OP_DESTROY_QP, -XQP_EIO, 0);
	EXPECT_EQ(xqp_destroy_qp(h), -XQP_EIO);
	EXPECT_EQ(xqp_xrcd_usecnt(x), 1u);
	EXPECT_EQ(xqp_qp_share_count(h), 1u);
	EXPECT_EQ(xqp_soft_raise_qp_event(soft_, qpn, XQP_EVENT_QP_FATAL), 0);
	EXPECT_EQ(e.calls, 1);
	xqp_qp *o = open(x, qpn);
	ASSERT_FALSE(xqp_is_err(o));
	EXPECT_EQ(xqp_destroy_qp(o), 0);
	EXPECT_EQ(xqp_destroy_qp(h), 0);
	EXPECT_EQ(xqp_xrcd_usecnt(x), 0u);
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
}

TEST_F(Core, OrdinaryQpsUsePdCqSrq)
{
	xqp_pd *pd = xqp_alloc_pd(dev());
	xqp_cq *cq = xqp_create_cq(dev(), 16, nullptr, nullptr);
	ASSERT_FALSE(xqp_is_err(pd));
	ASSERT_FALSE(xqp_is_err(cq));
	xqp_srq_init_attr sa = {};
	sa.attr.max_wr = 8;
	sa.attr.max_sge = 1;
	xqp_srq *srq = xqp_create_srq(pd, &sa);
	ASSERT_FALSE(xqp_is_err(srq));
	for (xqp_qp_type t : {XQP_QPT_RC, XQP_QPT_UC, XQP_QPT_UD, XQP_QPT_XRC_INI}) {
		xqp_qp_init_attr init = {};
		init.qp_type = t;
		init.send_cq = cq;
		init.recv_cq = cq;
		init.srq = t == XQP_QPT_XRC_INI ? nullptr : srq;
		init.cap.max_send_wr = 4;
		init.cap.max_send_sge = 1;
		xqp_qp *qp = xqp_create_qp_user(dev(), pd, &init, nullptr, nullptr, "t");
		ASSERT_FALSE(xqp_is_err(qp)) << t << ": " << xqp_ptr_err(qp);
		EXPECT_FALSE(xqp_qp_is_share(qp));
		EXPECT_EQ(xqp_close_qp(qp), -XQP_EINVAL);
		EXPECT_EQ(xqp_dealloc_pd(pd), -XQP_EBUSY);
		EXPECT_EQ(xqp_destroy_cq(cq), -XQP_EBUSY);
		EXPECT_EQ(xqp_destroy_qp(qp), 0);
	}
	EXPECT_EQ(xqp_dealloc_pd(pd), -XQP_EBUSY);	/* the SRQ still uses it */
	EXPECT_EQ(xqp_destroy_srq(srq), 0);
	EXPECT_EQ(xqp_destroy_cq(cq), 0);
	EXPECT_EQ(xqp_dealloc_pd(pd), 0);
}

TEST_F(Core, XrcSrqCountsInXrcdUsecnt)
{
	xqp_pd *pd = xqp_alloc_pd(dev());
	xqp_cq *cq = xqp_create_cq(dev(), 16, nullptr, nullptr);
	xqp_xrcd *x = xrcd();
	xqp_srq_init_attr sa = {};
	sa.srq_type = XQP_SRQT_XRC;
	sa.attr.max_wr = 8;
	sa.attr.max_sge = 1;
	EXPECT_EQ(xqp_ptr_err(xqp_create_srq(pd, &sa)), -XQP_EINVAL);	/* no xrcd/cq */
	sa.xrcd = x;
	sa.cq = cq;
	xqp_srq *srq = xqp_create_srq(pd, &sa);
	ASSERT_FALSE(xqp_is_err(srq));
	EXPECT_EQ(xqp_xrcd_usecnt(x), 1u);
	EXPECT_EQ(xqp_dealloc_xrcd(x), -XQP_EBUSY);
	EXPECT_EQ(xqp_destroy_cq(cq), -XQP_EBUSY);
	EXPECT_EQ(xqp_destroy_srq(srq), 0);
	EXPECT_EQ(xqp_xrcd_usecnt(x), 0u);
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
	EXPECT_EQ(xqp_destroy_cq(cq), 0);
	EXPECT_EQ(xqp_dealloc_pd(pd), 0);
}

TEST_F(Core, CompactShares)
{
	struct xqp_object_sizes s = {};
	xqp_object_sizes(&s);
	RecordProperty("share_bytes", static_cast<int>(s.share));
	EXPECT_LT(s.share, s.real_qp);
	EXPECT_LE(s.share, 160u);
}

TEST_F(Core, UnregisterWithLiveObjectsDetachesThem)
{
	xqp_xrcd *x = xrcd();
	xqp_qp *h = create_tgt(x);
	xqp_qp *o = open(x, xqp_qp_num(h));
	xqp_qp *orphan = create_tgt(x);
	ASSERT_EQ(xqp_close_qp(orphan), 0);
	xqp_pd *pd = xqp_alloc_pd(dev());
	remove_device();
	/* Every driver object is gone; owners' calls now fail or just free. */
	xqp_qp_attr attr = {};
	EXPECT_EQ(xqp_query_qp(h, &attr, XQP_QP_STATE, nullptr), -XQP_EIO);
	EXPECT_EQ(xqp_ptr_err(open(x, xqp_qp_num(h))), -XQP_EIO);
	EXPECT_EQ(xqp_destroy_qp(o), 0);
	EXPECT_EQ(xqp_destroy_qp(h), 0);
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
	EXPECT_EQ(xqp_dealloc_pd(pd), 0);
}
