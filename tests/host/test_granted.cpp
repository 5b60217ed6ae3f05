// SPDX-License-Identifier: GPL-2.0
/*
 * What the core reports of what the driver granted, as ib_core does: the
 * size of a CQ, the number of an SRQ, the attributes of a port, the
 * signalling type of a QP; and enum fields of caller structs read as the
 * integers a C caller may have stored there (any value, never loaded as the
 * C++ enum type: the ASan+UBSan variant reports such loads).
 */
#include <cstring>

#include "fixture.h"

namespace {

/* Stores @v in an enum field as C code may: any int, no C++ enum cast. */
template <typename E> void store_raw(E *field, int v)
{
	static_assert(sizeof(E) == sizeof(int));
	std::memcpy(field, &v, sizeof(v));
}

} // namespace

/* ---- enum fields read as integers --------------------------------------- */

TEST_F(Core, SrqTypeOutsideTheEnumIsNotSupported)
{
	xqp_pd *pd = xqp_alloc_pd(dev());
	xqp_cq *cq = xqp_create_cq(dev(), 16, nullptr, nullptr);
	xqp_xrcd *x = xrcd();
	ASSERT_FALSE(xqp_is_err(pd));
	ASSERT_FALSE(xqp_is_err(cq));

	/* Tag matching (2), anything past it, negative values: EOPNOTSUPP,
	 * the driver is not asked, nothing is taken. */
	xqp_u64 calls = xqp_soft_op_calls(soft_, XQP_SOFT_OP_CREATE_SRQ);
	for (int type : {2, 3, 200, -1, 0x7fffffff}) {
		xqp_srq_init_attr sa = {};
		store_raw(&sa.srq_type, type);
		sa.attr.max_wr = 8;
		sa.xrcd = x;
		sa.cq = cq;
		EXPECT_EQ(xqp_ptr_err(xqp_create_srq(pd, &sa)), -XQP_EOPNOTSUPP) << type;
	}
	EXPECT_EQ(xqp_soft_op_calls(soft_, XQP_SOFT_OP_CREATE_SRQ), calls);
	EXPECT_EQ(counts().srq, 0u);
	EXPECT_EQ(xqp_xrcd_usecnt(x), 0u);

	/* The two known types still work when stored the same way. */
	for (int type : {0, 1}) {
		xqp_srq_init_attr sa = {};
		store_raw(&sa.srq_type, type);
		sa.attr.max_wr = 8;
		sa.xrcd = x;
		sa.cq = cq;
		xqp_srq *srq = xqp_create_srq(pd, &sa);
		ASSERT_FALSE(xqp_is_err(srq)) << type << ": " << xqp_ptr_err(srq);
		EXPECT_EQ(xqp_xrcd_usecnt(x), type == 1 ? 1u : 0u);
		EXPECT_EQ(xqp_destroy_srq(srq), 0);
	}
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
	EXPECT_EQ(xqp_destroy_cq(cq), 0);
	EXPECT_EQ(xqp_dealloc_pd(pd), 0);
}

TEST_F(Core, OpenQpTypeOutsideTheEnumIsInvalid)
{
	xqp_xrcd *x = xrcd();
	xqp_qp *h = create_tgt(x);

	for (int type : {0, 11, 200, -1}) {
		xqp_qp_open_attr oa = {};
		oa.qp_num = xqp_qp_num(h);
		store_raw(&oa.qp_type, type);
		EXPECT_EQ(xqp_ptr_err(xqp_open_qp(x, &oa)), -XQP_EINVAL) << type;
	}
	EXPECT_EQ(xqp_qp_share_count(h), 1u);
	xqp_qp_open_attr oa = {};
	oa.qp_num = xqp_qp_num(h);
	store_raw(&oa.qp_type, XQP_QPT_XRC_TGT);
	xqp_qp *o = xqp_open_qp(x, &oa);
	ASSERT_FALSE(xqp_is_err(o));
	EXPECT_EQ(xqp_destroy_qp(o), 0);
	EXPECT_EQ(xqp_destroy_qp(h), 0);
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
}

/* ---- CQ size ------------------------------------------------------------ */

TEST_F(Core, CqReportsTheGrantedSize)
{
	const struct { int req, granted; } cases[] = {
		{1, 1}, {8, 15}, {16, 31}, {100, 127}, {65535, 65535}, {65536, 65536},
	};
	for (const auto &t : cases) {
		xqp_cq *cq = xqp_create_cq(dev(), t.req, nullptr, nullptr);
		ASSERT_FALSE(xqp_is_err(cq)) << t.req;
		EXPECT_EQ(xqp_cq_cqe(cq), t.granted) << t.req;
		EXPECT_EQ(xqp_destroy_cq(cq), 0);
	}
	EXPECT_EQ(xqp_ptr_err(xqp_create_cq(dev(), 0, nullptr, nullptr)), -XQP_EINVAL);
	EXPECT_EQ(xqp_ptr_err(xqp_create_cq(dev(), 65537, nullptr, nullptr)), -XQP_EINVAL);
}

namespace {

/* A driver that grants exactly the request and leaves *granted_cqe alone. */
int exact_create_cq(void *, int, void **drv_cq, int *, xqp_cq *)
{
	static int token;

	*drv_cq = &token;
	return 0;
}
int exact_destroy_cq(void *, void *) { return 0; }
int exact_create_qp(void *, const xqp_drv_qp_create *, xqp_drv_qp_created *)
{
	return -XQP_EOPNOTSUPP;
}
int exact_destroy_qp(void *, void *) { return 0; }

} // namespace

TEST(CoreDriverContract, CqeDefaultsToTheRequest)
{
	xqp_device_ops ops = {};
	ops.create_cq = exact_create_cq;
	ops.destroy_cq = exact_destroy_cq;
	ops.create_qp = exact_create_qp;
	ops.destroy_qp = exact_destroy_qp;
	long allocs = xqp_host_live_allocs();
	xqp_device *dev = xqp_register_device("exact", &ops, nullptr);
	ASSERT_FALSE(xqp_is_err(dev));
	xqp_cq *cq = xqp_create_cq(dev, 42, nullptr, nullptr);
	ASSERT_FALSE(xqp_is_err(cq));
	EXPECT_EQ(xqp_cq_cqe(cq), 42);
	EXPECT_EQ(xqp_destroy_cq(cq), 0);
	xqp_unregister_device(dev);
	xqp_rcu_barrier();
	EXPECT_EQ(xqp_host_live_allocs(), allocs);
}

/* ---- SRQ numbers -------------------------------------------------------- */

TEST_F(Core, SrqNumIsTheDriversNumber)
{
	xqp_pd *pd = xqp_alloc_pd(dev());
	xqp_cq *cq = xqp_create_cq(dev(), 16, nullptr, nullptr);
	xqp_xrcd *x = xrcd();
	xqp_srq *srq[4];

	for (int i = 0; i < 4; i++) {
		xqp_srq_init_attr sa = {};
		sa.srq_type = i % 2 ? XQP_SRQT_XRC : XQP_SRQT_BASIC;
		sa.attr.max_wr = 4;
		sa.xrcd = x;
		sa.cq = cq;
		srq[i] = xqp_create_srq(pd, &sa);
		ASSERT_FALSE(xqp_is_err(srq[i]));
	}
	/* The soft device numbers every SRQ from 1, each its own number. */
	for (int i = 0; i < 4; i++) {
		EXPECT_GE(xqp_srq_num(srq[i]), 1u);
		EXPECT_LE(xqp_srq_num(srq[i]), 0xffffffu);
		for (int j = 0; j < i; j++)
			EXPECT_NE(xqp_srq_num(srq[i]), xqp_srq_num(srq[j]));
	}
	/* The soft device hands numbers out in order (its cursor). */
	EXPECT_EQ(xqp_srq_num(srq[1]), xqp_srq_num(srq[0]) + 1);
	EXPECT_EQ(xqp_srq_num(srq[3]), xqp_srq_num(srq[0]) + 3);
	for (xqp_srq *s : srq)
		EXPECT_EQ(xqp_destroy_srq(s), 0);
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
	EXPECT_EQ(xqp_destroy_cq(cq), 0);
	EXPECT_EQ(xqp_dealloc_pd(pd), 0);
}

/* ---- ports -------------------------------------------------------------- */

TEST_F(Core, QueryPortIsTheDrivers)
{
	xqp_port_attr a;
	std::memset(&a, 0xa5, sizeof(a));
	xqp_u64 calls = xqp_soft_op_calls(soft_, XQP_SOFT_OP_QUERY_PORT);
	ASSERT_EQ(xqp_query_port(dev(), 1, &a), 0);
	EXPECT_EQ(xqp_soft_op_calls(soft_, XQP_SOFT_OP_QUERY_PORT), calls + 1);
	xqp_port_attr d = {};
	ASSERT_EQ(xqp_soft_ops()->query_port(soft_, 1, &d), 0);
	EXPECT_EQ(std::memcmp(&a, &d, sizeof(a)), 0) << "the driver's answer, unchanged";
	EXPECT_EQ(a.state, XQP_PORT_ACTIVE);
	EXPECT_EQ(a.link_layer, XQP_LINK_LAYER_INFINIBAND);
	xqp_device_attr da = {};
	ASSERT_EQ(xqp_query_device(dev(), &da), 0);
	EXPECT_EQ(a.pkey_tbl_len, da.max_pkeys);

	/* Ports outside 1..phys_port_cnt: -EINVAL from the core, the driver
	 * is not asked. */
	calls = xqp_soft_op_calls(soft_, XQP_SOFT_OP_QUERY_PORT);
	for (xqp_u32 port : {0u, 2u, 255u, 256u, 0xffffffffu})
		EXPECT_EQ(xqp_query_port(dev(), port, &a), -XQP_EINVAL) << port;
	EXPECT_EQ(xqp_soft_op_calls(soft_, XQP_SOFT_OP_QUERY_PORT), calls);

	/* The driver's error comes back as it is. */
	xqp_soft_inject(soft_, XQP_SOFT_OP_QUERY_PORT, -XQP_ENOMEM, 0);
	EXPECT_EQ(xqp_query_port(dev(), 1, &a), -XQP_ENOMEM);
	EXPECT_EQ(xqp_query_port(dev(), 1, &a), 0);
}

TEST_F(Core, QueryPortAfterRemovalIsEio)
{
	xqp_pd *pd = xqp_alloc_pd(dev());	/* keeps the device's memory */
	ASSERT_FALSE(xqp_is_err(pd));
	xqp_device *d = dev();
	remove_device();
	xqp_port_attr a = {};
	EXPECT_EQ(xqp_query_port(d, 1, &a), -XQP_EIO);
	EXPECT_EQ(xqp_query_port(d, 0, &a), -XQP_EIO);
	EXPECT_EQ(xqp_dealloc_pd(pd), 0);
}

namespace {

/* A two-port driver that remembers which port it was asked about. */
struct TwoPorts {
	xqp_u32 asked = 0;
	int queries = 0;
};

int two_query_device(void *, xqp_device_attr *attr)
{
	attr->phys_port_cnt = 2;
	return 0;
}
int two_query_port(void *drv, xqp_u32 port, xqp_port_attr *attr)
{
	auto *t = static_cast<TwoPorts *>(drv);
	t->asked = port;
	t->queries++;
	attr->state = port == 2 ? XQP_PORT_DOWN : XQP_PORT_ACTIVE;
	attr->lid = static_cast<xqp_u16>(0x100 + port);
	return 0;
}

} // namespace

TEST(CoreDriverContract, QueryPortCountsThePortsOfRegistration)
{
	xqp_device_ops ops = {};
	TwoPorts t;
	ops.query_device = two_query_device;
	ops.query_port = two_query_port;
	ops.create_qp = exact_create_qp;
	ops.destroy_qp = exact_destroy_qp;
	long allocs = xqp_host_live_allocs();
	xqp_device *dev = xqp_register_device("two", &ops, &t);
	ASSERT_FALSE(xqp_is_err(dev));
	xqp_port_attr a;
	std::memset(&a, 0xa5, sizeof(a));
	ASSERT_EQ(xqp_query_port(dev, 2, &a), 0);
	EXPECT_EQ(t.asked, 2u);
	EXPECT_EQ(a.state, XQP_PORT_DOWN);
	EXPECT_EQ(a.lid, 0x102);
	EXPECT_EQ(a.max_msg_sz, 0u) << "zeroed before the driver fills it";
	EXPECT_EQ(a.link_layer, 0);
	ASSERT_EQ(xqp_query_port(dev, 1, &a), 0);
	EXPECT_EQ(a.state, XQP_PORT_ACTIVE);
	EXPECT_EQ(xqp_query_port(dev, 3, &a), -XQP_EINVAL);
	EXPECT_EQ(t.queries, 2);
	xqp_unregister_device(dev);
	xqp_rcu_barrier();
	EXPECT_EQ(xqp_host_live_allocs(), allocs);
}

TEST(CoreDriverContract, QueryPortWithoutTheOp)
{
	xqp_device_ops ops = {};
	ops.create_qp = exact_create_qp;
	ops.destroy_qp = exact_destroy_qp;
	long allocs = xqp_host_live_allocs();
	xqp_device *dev = xqp_register_device("noport", &ops, nullptr);
	ASSERT_FALSE(xqp_is_err(dev));
	xqp_port_attr a;
	std::memset(&a, 0xa5, sizeof(a));
	/* No query_device either: one port. */
	EXPECT_EQ(xqp_query_port(dev, 1, &a), -XQP_EOPNOTSUPP);
	EXPECT_EQ(a.state, 0u) << "zeroed";
	EXPECT_EQ(xqp_query_port(dev, 2, &a), -XQP_EINVAL);
	xqp_unregister_device(dev);
	xqp_rcu_barrier();
	EXPECT_EQ(xqp_host_live_allocs(), allocs);
}

/* ---- signalling type ---------------------------------------------------- */

TEST_F(Core, QuerySqSigTypeOfTheRealQp)
{
	xqp_pd *pd = xqp_alloc_pd(dev());
	xqp_cq *cq = xqp_create_cq(dev(), 16, nullptr, nullptr);
	xqp_xrcd *x = xrcd();
	ASSERT_FALSE(xqp_is_err(pd));
	ASSERT_FALSE(xqp_is_err(cq));

	/* Ordinary QPs: what they were created with. */
	for (xqp_sig_type sig : {XQP_SIGNAL_ALL_WR, XQP_SIGNAL_REQ_WR}) {
		xqp_qp_init_attr init = {};
		init.qp_type = XQP_QPT_RC;
		init.send_cq = cq;
		init.recv_cq = cq;
		init.sq_sig_type = sig;
		xqp_qp *qp = xqp_create_qp_user(dev(), pd, &init, nullptr, nullptr, "t");
		ASSERT_FALSE(xqp_is_err(qp));
		xqp_qp_attr a;
		xqp_qp_init_attr q;
		std::memset(&q, 0xa5, sizeof(q));
		ASSERT_EQ(xqp_query_qp(qp, &a, 0, &q), 0);
		EXPECT_EQ(q.sq_sig_type, sig);
		EXPECT_EQ(xqp_destroy_qp(qp), 0);
	}

	/* A shared QP: every share answers with the real QP's, the opener's
	 * own share too (Linux asks the driver about qp->real_qp). */
	xqp_qp_init_attr init = {};
	init.qp_type = XQP_QPT_XRC_TGT;
	init.xrcd = x;
	init.sq_sig_type = XQP_SIGNAL_ALL_WR;
	xqp_qp *h = xqp_create_qp_user(dev(), nullptr, &init, nullptr, nullptr, "t");
	ASSERT_FALSE(xqp_is_err(h));
	xqp_qp *o = open(x, xqp_qp_num(h));
	ASSERT_FALSE(xqp_is_err(o));
	for (xqp_qp *qp : {h, o, xqp_qp_real(h)}) {
		xqp_qp_attr a;
		xqp_qp_init_attr q = {};
		q.sq_sig_type = XQP_SIGNAL_REQ_WR;
		ASSERT_EQ(xqp_query_qp(qp, &a, 0, &q), 0);
		EXPECT_EQ(q.sq_sig_type, XQP_SIGNAL_ALL_WR);
	}
	EXPECT_EQ(xqp_destroy_qp(o), 0);
	EXPECT_EQ(xqp_destroy_qp(h), 0);
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
	EXPECT_EQ(xqp_destroy_cq(cq), 0);
	EXPECT_EQ(xqp_dealloc_pd(pd), 0);
}

TEST_F(Core, SqSigTypeOutsideTheEnumIsRequested)
{
	xqp_xrcd *x = xrcd();
	for (int raw : {2, 200, -1}) {
		xqp_qp_init_attr init = {};
		init.qp_type = XQP_QPT_XRC_TGT;
		init.xrcd = x;
		store_raw(&init.sq_sig_type, raw);
		xqp_qp *h = xqp_create_qp_user(dev(), nullptr, &init, nullptr, nullptr, "t");
		ASSERT_FALSE(xqp_is_err(h)) << raw;
		xqp_qp_attr a;
		xqp_qp_init_attr q = {};
		ASSERT_EQ(xqp_query_qp(h, &a, 0, &q), 0);
		EXPECT_EQ(q.sq_sig_type, XQP_SIGNAL_REQ_WR) << raw;
		EXPECT_EQ(xqp_destroy_qp(h), 0);
	}
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
}
