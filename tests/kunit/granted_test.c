// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: what the core reports of what the driver granted, through the
 * exported API, as the uverbs char device reads it (CREATE_CQ's cqe,
 * CREATE_XSRQ's srqn, QUERY_PORT, QUERY_QP's sq_sig_all).
 */
#include <kunit/test.h>
#include <linux/string.h>

#include "suite.h"
#include "xqp_test.h"

/* CREATE_CQ reports the driver's size: the soft device rounds like rxe. */
static void cq_cqe_is_granted(struct kunit *test)
{
	static const struct { int req, granted; } cases[] = {
		{ 1, 1 }, { 8, 15 }, { 16, 31 }, { 65536, 65536 },
	};
	struct xqp_cq *cq;
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		cq = xqp_create_cq(xqp_kt(test)->dev, cases[i].req, NULL, NULL);
		KUNIT_ASSERT_FALSE(test, IS_ERR(cq));
		KUNIT_EXPECT_EQ(test, xqp_cq_cqe(cq), cases[i].granted);
		KUNIT_EXPECT_EQ(test, xqp_destroy_cq(cq), 0);
	}
	cq = xqp_create_cq(xqp_kt(test)->dev, 65537, NULL, NULL);
	KUNIT_EXPECT_EQ(test, PTR_ERR(cq), -EINVAL);
}

/* CREATE_XSRQ reports the driver's XRC SRQ number. */
static void srq_num_is_the_drivers(struct kunit *test)
{
	struct xqp_device *dev = xqp_kt(test)->dev;
	struct xqp_pd *pd = xqp_alloc_pd(dev);
	struct xqp_cq *cq = xqp_create_cq(dev, 4, NULL, NULL);
	struct xqp_xrcd *xrcd = xqp_alloc_xrcd(dev);
	struct xqp_srq_init_attr sa = {
		.attr = { .max_wr = 4, .max_sge = 1 },
		.srq_type = XQP_SRQT_XRC,
		.cq = cq,
		.xrcd = xrcd,
	};
	struct xqp_srq *a, *b;

	KUNIT_ASSERT_FALSE(test, IS_ERR(pd) || IS_ERR(cq) || IS_ERR(xrcd));
	a = xqp_create_srq(pd, &sa);
	b = xqp_create_srq(pd, &sa);
	KUNIT_ASSERT_FALSE(test, IS_ERR(a) || IS_ERR(b));
	KUNIT_EXPECT_GE(test, xqp_srq_num(a), 1);
	KUNIT_EXPECT_LE(test, xqp_srq_num(a), 0xffffff);
	KUNIT_EXPECT_EQ(test, xqp_srq_num(b), xqp_srq_num(a) + 1);
	KUNIT_EXPECT_EQ(test, xqp_destroy_srq(b), 0);
	KUNIT_EXPECT_EQ(test, xqp_destroy_srq(a), 0);
	KUNIT_EXPECT_EQ(test, xqp_dealloc_xrcd(xrcd), 0);
	KUNIT_EXPECT_EQ(test, xqp_destroy_cq(cq), 0);
	KUNIT_EXPECT_EQ(test, xqp_dealloc_pd(pd), 0);
}

/* QUERY_PORT: the driver's port 1; other ports EINVAL before the driver. */
static void query_port_is_the_drivers(struct kunit *test)
{
	struct xqp_kt *kt = xqp_kt(test);
	struct xqp_port_attr a;
	u64 calls;

	memset(&a, 0xa5, sizeof(a));
	KUNIT_ASSERT_EQ(test, xqp_query_port(kt->dev, 1, &a), 0);
	KUNIT_EXPECT_EQ(test, a.state, XQP_PORT_ACTIVE);
	KUNIT_EXPECT_EQ(test, a.phys_state, XQP_PORT_PHYS_STATE_LINK_UP);
	KUNIT_EXPECT_EQ(test, a.link_layer, XQP_LINK_LAYER_INFINIBAND);
	KUNIT_EXPECT_EQ(test, a.max_mtu, XQP_MTU_4096);
	KUNIT_EXPECT_EQ(test, a.active_mtu, XQP_MTU_4096);
	KUNIT_EXPECT_EQ(test, a.active_width, XQP_WIDTH_1X);
	KUNIT_EXPECT_EQ(test, a.active_speed, XQP_SPEED_SDR);
	KUNIT_EXPECT_EQ(test, a.max_msg_sz, 0x800000);
	KUNIT_EXPECT_EQ(test, a.pkey_tbl_len, 64);
	KUNIT_EXPECT_EQ(test, a.gid_tbl_len, 1);
	KUNIT_EXPECT_EQ(test, a.lid, xqp_soft_lid(kt->soft));
	KUNIT_EXPECT_EQ(test, a.sm_lid, 1);
	KUNIT_EXPECT_EQ(test, a.bad_pkey_cntr, 0);
	KUNIT_EXPECT_EQ(test, a.init_type_reply, 0);

	calls = xqp_soft_op_calls(kt->soft, XQP_SOFT_OP_QUERY_PORT);
	KUNIT_EXPECT_EQ(test, xqp_query_port(kt->dev, 0, &a), -EINVAL);
	KUNIT_EXPECT_EQ(test, xqp_query_port(kt->dev, 2, &a), -EINVAL);
	KUNIT_EXPECT_EQ(test, xqp_query_port(kt->dev, U32_MAX, &a), -EINVAL);
	KUNIT_EXPECT_EQ(test, xqp_soft_op_calls(kt->soft, XQP_SOFT_OP_QUERY_PORT), calls);
	xqp_soft_inject(kt->soft, XQP_SOFT_OP_QUERY_PORT, -EIO, 0);
	KUNIT_EXPECT_EQ(test, xqp_query_port(kt->dev, 1, &a), -EIO);
}

/* QUERY_QP's sq_sig_all: the real QP's signalling type, from any share. */
static void sq_sig_type_is_the_real_qps(struct kunit *test)
{
	struct xqp_kt *kt = xqp_kt(test);
	struct xqp_xrcd *xrcd = xqp_alloc_xrcd(kt->dev);
	struct xqp_qp_init_attr init = {
		.qp_type = XQP_QPT_XRC_TGT,
		.xrcd = xrcd,
		.sq_sig_type = XQP_SIGNAL_ALL_WR,
	};
	struct xqp_qp_init_attr q;
	struct xqp_qp_attr *attr;
	struct xqp_qp *h, *o;

	attr = kunit_kzalloc(test, sizeof(*attr), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, attr);
	KUNIT_ASSERT_FALSE(test, IS_ERR(xrcd));
	h = xqp_create_qp_user(kt->dev, NULL, &init, NULL, NULL, KBUILD_MODNAME);
	KUNIT_ASSERT_FALSE(test, IS_ERR(h));
	o = xqp_kt_open(test, xrcd, xqp_qp_num(h), NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(o));

	q.sq_sig_type = XQP_SIGNAL_REQ_WR;
	KUNIT_EXPECT_EQ(test, xqp_query_qp(h, attr, 0, &q), 0);
	KUNIT_EXPECT_EQ(test, q.sq_sig_type, XQP_SIGNAL_ALL_WR);
	q.sq_sig_type = XQP_SIGNAL_REQ_WR;
	KUNIT_EXPECT_EQ(test, xqp_query_qp(o, attr, 0, &q), 0);
	KUNIT_EXPECT_EQ(test, q.sq_sig_type, XQP_SIGNAL_ALL_WR);
	KUNIT_EXPECT_EQ(test, xqp_destroy_qp(o), 0);
	KUNIT_EXPECT_EQ(test, xqp_destroy_qp(h), 0);

	init.sq_sig_type = XQP_SIGNAL_REQ_WR;
	h = xqp_create_qp_user(kt->dev, NULL, &init, NULL, NULL, KBUILD_MODNAME);
	KUNIT_ASSERT_FALSE(test, IS_ERR(h));
	KUNIT_EXPECT_EQ(test, xqp_query_qp(h, attr, 0, &q), 0);
	KUNIT_EXPECT_EQ(test, q.sq_sig_type, XQP_SIGNAL_REQ_WR);
	KUNIT_EXPECT_EQ(test, xqp_destroy_qp(h), 0);
	KUNIT_EXPECT_EQ(test, xqp_dealloc_xrcd(xrcd), 0);
}

XQP_KUNIT_SUITE(xqp_granted_suite, "xqp_granted", XQP_KT_FIXTURE,
		KUNIT_CASE(cq_cqe_is_granted),
		KUNIT_CASE(srq_num_is_the_drivers),
		KUNIT_CASE(query_port_is_the_drivers),
		KUNIT_CASE(sq_sig_type_is_the_real_qps));
