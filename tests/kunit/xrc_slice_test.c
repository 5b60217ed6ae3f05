// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the shared-QP slice (XRCD, XRC_TGT create/open/close/destroy),
 * rule by rule, on a fresh soft device per test.
 */
#include <kunit/test.h>

#include "suite.h"
#include "xqp_test.h"

static void xrcd_busy_while_used(struct kunit *test)
{
	struct xqp_xrcd *xrcd = xqp_alloc_xrcd(xqp_kt(test)->dev);
	struct xqp_qp *h;

	KUNIT_ASSERT_FALSE(test, IS_ERR(xrcd));
	KUNIT_EXPECT_EQ(test, xqp_xrcd_usecnt(xrcd), 0);
	h = xqp_kt_create_tgt(test, xrcd, NULL, NULL);
	KUNIT_EXPECT_EQ(test, xqp_xrcd_usecnt(xrcd), 1);
	KUNIT_EXPECT_EQ(test, xqp_dealloc_xrcd(xrcd), -EBUSY);
	KUNIT_EXPECT_EQ(test, xqp_destroy_qp(h), 0);
	KUNIT_EXPECT_EQ(test, xqp_xrcd_usecnt(xrcd), 0);
	KUNIT_EXPECT_EQ(test, xqp_dealloc_xrcd(xrcd), 0);
}

static void create_returns_share_with_granted_caps(struct kunit *test)
{
	struct xqp_xrcd *xrcd = xqp_alloc_xrcd(xqp_kt(test)->dev);
	struct xqp_qp_init_attr init = {
		.qp_type = XQP_QPT_XRC_TGT,
		.xrcd = xrcd,
		.cap = { .max_send_wr = 3, .max_recv_wr = 5, .max_send_sge = 1 },
	};
	struct xqp_qp_attr attr = {};
	struct xqp_qp_init_attr q = {};
	struct xqp_qp *h;

	h = xqp_create_qp_user(xqp_kt(test)->dev, NULL, &init, NULL, NULL, KBUILD_MODNAME);
	KUNIT_ASSERT_FALSE(test, IS_ERR(h));
	KUNIT_EXPECT_TRUE(test, xqp_qp_is_share(h));
	KUNIT_EXPECT_FALSE(test, xqp_qp_is_share(xqp_qp_real(h)));
	KUNIT_EXPECT_EQ(test, xqp_qp_share_count(h), 1);
	KUNIT_EXPECT_EQ(test, xqp_qp_get_type(h), XQP_QPT_XRC_TGT);
	KUNIT_EXPECT_PTR_EQ(test, xqp_qp_xrcd(h), xrcd);
	KUNIT_EXPECT_GT(test, xqp_qp_num(h), 1);
	KUNIT_EXPECT_LE(test, xqp_qp_num(h), 0xffffff);
	/* attr->cap now holds what the driver granted, as query reports it */
	KUNIT_EXPECT_EQ(test, xqp_query_qp(h, &attr, 0, &q), 0);
	KUNIT_EXPECT_EQ(test, init.cap.max_send_wr, attr.cap.max_send_wr);
	KUNIT_EXPECT_EQ(test, init.cap.max_recv_wr, attr.cap.max_recv_wr);
	KUNIT_EXPECT_GE(test, init.cap.max_send_wr, 3);
	KUNIT_EXPECT_GE(test, init.cap.max_recv_wr, 5);
	KUNIT_EXPECT_PTR_EQ(test, q.xrcd, xrcd);
	KUNIT_EXPECT_EQ(test, xqp_destroy_qp(h), 0);
	KUNIT_EXPECT_EQ(test, xqp_dealloc_xrcd(xrcd), 0);
}

static void create_driver_error_leaves_nothing(struct kunit *test)
{
	struct xqp_kt *kt = xqp_kt(test);
	struct xqp_xrcd *xrcd = xqp_alloc_xrcd(kt->dev);
	struct xqp_qp_init_attr init = { .qp_type = XQP_QPT_XRC_TGT, .xrcd = xrcd };
	struct xqp_qp *h;

	xqp_soft_inject(kt->soft, XQP_SOFT_OP_CREATE_QP, -ENOSPC, 0);
	h = xqp_create_qp_user(kt->dev, NULL, &init, NULL, NULL, KBUILD_MODNAME);
	KUNIT_EXPECT_EQ(test, PTR_ERR(h), -ENOSPC);
	KUNIT_EXPECT_EQ(test, xqp_xrcd_usecnt(xrcd), 0);
	init.xrcd = NULL;
	h = xqp_create_qp_user(kt->dev, NULL, &init, NULL, NULL, KBUILD_MODNAME);
	KUNIT_EXPECT_EQ(test, PTR_ERR(h), -EINVAL);
	KUNIT_EXPECT_EQ(test, xqp_dealloc_xrcd(xrcd), 0);
}

static void open_rules(struct kunit *test)
{
	struct xqp_xrcd *x1 = xqp_alloc_xrcd(xqp_kt(test)->dev);
	struct xqp_xrcd *x2 = xqp_alloc_xrcd(xqp_kt(test)->dev);
	struct xqp_qp_open_attr oa = { .qp_type = XQP_QPT_RC };
	struct xqp_qp *h, *o;

	h = xqp_kt_create_tgt(test, x1, NULL, NULL);
	oa.qp_num = xqp_qp_num(h);
	KUNIT_EXPECT_EQ(test, PTR_ERR(xqp_open_qp(x1, &oa)), -EINVAL);	/* type */
	KUNIT_EXPECT_EQ(test, PTR_ERR(xqp_kt_open(test, x1, xqp_qp_num(h) + 1, NULL, NULL)),
			-EINVAL);					/* number */
	KUNIT_EXPECT_EQ(test, PTR_ERR(xqp_kt_open(test, x2, xqp_qp_num(h), NULL, NULL)),
			-EINVAL);					/* other XRCD */
	KUNIT_EXPECT_EQ(test, PTR_ERR(xqp_kt_open(test, x1, 0x1000000, NULL, NULL)), -EINVAL);
	o = xqp_kt_open(test, x1, xqp_qp_num(h), NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(o));
	KUNIT_EXPECT_EQ(test, xqp_qp_share_count(h), 2);
	KUNIT_EXPECT_PTR_EQ(test, xqp_qp_real(o), xqp_qp_real(h));
	/* opened shares do not take xrcd usecnt */
	KUNIT_EXPECT_EQ(test, xqp_xrcd_usecnt(x1), 1);
	KUNIT_EXPECT_EQ(test, xqp_destroy_qp(o), 0);
	KUNIT_EXPECT_EQ(test, xqp_destroy_qp(h), 0);
	KUNIT_EXPECT_EQ(test, xqp_dealloc_xrcd(x2), 0);
	KUNIT_EXPECT_EQ(test, xqp_dealloc_xrcd(x1), 0);
}

static void close_never_destroys(struct kunit *test)
{
	struct xqp_xrcd *xrcd = xqp_alloc_xrcd(xqp_kt(test)->dev);
	struct xqp_qp *h, *o;
	u32 qpn;

	h = xqp_kt_create_tgt(test, xrcd, NULL, NULL);
	qpn = xqp_qp_num(h);
	KUNIT_EXPECT_EQ(test, xqp_close_qp(xqp_qp_real(h)), -EINVAL);
	KUNIT_EXPECT_EQ(test, xqp_close_qp(h), 0);
	/* Linux parity: the real QP stays, share-less, openable. */
	KUNIT_EXPECT_EQ(test, xqp_xrcd_usecnt(xrcd), 1);
	o = xqp_kt_open(test, xrcd, qpn, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(o));
	KUNIT_EXPECT_EQ(test, xqp_destroy_qp(o), 0);
	KUNIT_EXPECT_EQ(test, xqp_xrcd_usecnt(xrcd), 0);
	KUNIT_EXPECT_EQ(test, PTR_ERR(xqp_kt_open(test, xrcd, qpn, NULL, NULL)), -EINVAL);
	KUNIT_EXPECT_EQ(test, xqp_dealloc_xrcd(xrcd), 0);
}

static void creator_is_one_share_among_equals(struct kunit *test)
{
	struct xqp_xrcd *xrcd = xqp_alloc_xrcd(xqp_kt(test)->dev);
	struct xqp_qp *h, *a, *real;

	h = xqp_kt_create_tgt(test, xrcd, NULL, NULL);
	real = xqp_qp_real(h);
	a = xqp_kt_open(test, xrcd, xqp_qp_num(h), NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(a));
	KUNIT_EXPECT_EQ(test, xqp_destroy_qp(real), -EBUSY);
	KUNIT_EXPECT_EQ(test, xqp_destroy_qp(h), 0);	/* creator leaves */
	KUNIT_EXPECT_PTR_EQ(test, xqp_qp_real(a), real);
	KUNIT_EXPECT_EQ(test, xqp_qp_share_count(a), 1);
	KUNIT_EXPECT_EQ(test, xqp_xrcd_usecnt(xrcd), 1);
	KUNIT_EXPECT_EQ(test, xqp_destroy_qp(a), 0);	/* last one */
	KUNIT_EXPECT_EQ(test, xqp_xrcd_usecnt(xrcd), 0);
	KUNIT_EXPECT_EQ(test, xqp_dealloc_xrcd(xrcd), 0);
}

static void event_fanout_per_share(struct kunit *test)
{
	struct xqp_kt *kt = xqp_kt(test);
	struct xqp_xrcd *xrcd = xqp_alloc_xrcd(kt->dev);
	struct xqp_kt_events ec = {}, ea = {}, en = {};
	struct xqp_qp *h, *a, *n;

	h = xqp_kt_create_tgt(test, xrcd, xqp_kt_event_handler, &ec);
	a = xqp_kt_open(test, xrcd, xqp_qp_num(h), xqp_kt_event_handler, &ea);
	n = xqp_kt_open(test, xrcd, xqp_qp_num(h), NULL, &en);	/* no handler */
	KUNIT_ASSERT_FALSE(test, IS_ERR(a) || IS_ERR(n));
	KUNIT_EXPECT_EQ(test, xqp_soft_raise_qp_event(kt->soft, xqp_qp_num(h),
						      XQP_EVENT_QP_REQ_ERR), 0);
	KUNIT_EXPECT_EQ(test, ec.calls, 1);
	KUNIT_EXPECT_EQ(test, ea.calls, 1);
	KUNIT_EXPECT_EQ(test, en.calls, 0);
	KUNIT_EXPECT_PTR_EQ(test, ec.last, h);
	KUNIT_EXPECT_PTR_EQ(test, ea.last, a);
	KUNIT_EXPECT_EQ(test, ea.type, XQP_EVENT_QP_REQ_ERR);
	/* a closed share receives nothing more */
	KUNIT_EXPECT_EQ(test, xqp_close_qp(a), 0);
	xqp_soft_raise_qp_event(kt->soft, xqp_qp_num(h), XQP_EVENT_COMM_EST);
	KUNIT_EXPECT_EQ(test, ea.calls, 1);
	KUNIT_EXPECT_EQ(test, ec.calls, 2);
	KUNIT_EXPECT_EQ(test, xqp_destroy_qp(n), 0);
	KUNIT_EXPECT_EQ(test, xqp_destroy_qp(h), 0);
	KUNIT_EXPECT_EQ(test, xqp_dealloc_xrcd(xrcd), 0);
}

static void last_destroy_driver_failure_keeps_all(struct kunit *test)
{
	struct xqp_kt *kt = xqp_kt(test);
	struct xqp_xrcd *xrcd = xqp_alloc_xrcd(kt->dev);
	struct xqp_kt_events e = {};
	struct xqp_qp *h, *o;
	u32 qpn;

	h = xqp_kt_create_tgt(test, xrcd, xqp_kt_event_handler, &e);
	qpn = xqp_qp_num(h);
	xqp_soft_inject(kt->soft, XQP_SOFT_OP_DESTROY_QP, -EIO, 0);
	KUNIT_EXPECT_EQ(test, xqp_destroy_qp(h), -EIO);
	/* better than Linux: share, QP, table entry and usecnt all intact */
	KUNIT_EXPECT_EQ(test, xqp_xrcd_usecnt(xrcd), 1);
	KUNIT_EXPECT_EQ(test, xqp_qp_share_count(h), 1);
	xqp_soft_raise_qp_event(kt->soft, qpn, XQP_EVENT_QP_FATAL);
	KUNIT_EXPECT_EQ(test, e.calls, 1);
	o = xqp_kt_open(test, xrcd, qpn, NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(o));
	KUNIT_EXPECT_EQ(test, xqp_destroy_qp(o), 0);
	KUNIT_EXPECT_EQ(test, xqp_destroy_qp(h), 0);	/* the retry finishes */
	KUNIT_EXPECT_EQ(test, xqp_xrcd_usecnt(xrcd), 0);
	KUNIT_EXPECT_EQ(test, xqp_dealloc_xrcd(xrcd), 0);
}

static void compact_shares(struct kunit *test)
{
	struct xqp_object_sizes s;

	xqp_object_sizes(&s);
	kunit_info(test, "share %zu bytes, real QP %zu bytes, XRCD %zu bytes\n",
		   s.share, s.real_qp, s.xrcd);
	KUNIT_EXPECT_LT(test, s.share, s.real_qp);
}

XQP_KUNIT_SUITE(xqp_slice_suite, "xqp_xrc_slice", XQP_KT_FIXTURE,
		KUNIT_CASE(xrcd_busy_while_used),
		KUNIT_CASE(create_returns_share_with_granted_caps),
		KUNIT_CASE(create_driver_error_leaves_nothing),
		KUNIT_CASE(open_rules),
		KUNIT_CASE(close_never_destroys),
		KUNIT_CASE(creator_is_one_share_among_equals),
		KUNIT_CASE(event_fanout_per_share),
		KUNIT_CASE(last_destroy_driver_failure_keeps_all),
		KUNIT_CASE(compact_shares));
