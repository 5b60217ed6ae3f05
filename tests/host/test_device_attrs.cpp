// SPDX-License-Identifier: GPL-2.0
/*
 * The device's attributes tell the truth: every limit query_device reports
 * is what the device enforces, exactly. For each, the device accepts the
 * limit and refuses one more: counts of objects with -ENOMEM (on a device
 * made with small counts), sizes of one object with -EINVAL (on the
 * default device). uverbs' QUERY_DEVICE and the ib_device's sysfs copy
 * these fields (tests/acceptance: device_attrs_enforced).
 */
#include <vector>

#include "traffic.h"

namespace {

constexpr u32 kCount = 2;

struct SmallDevice {
	xqp_soft *soft = nullptr;
	xqp_device *dev = nullptr;
	xqp_device_attr a = {};

	void init()
	{
		struct xqp_soft_limits lim;

		xqp_soft_default_limits(&lim);
		lim.max_pd = lim.max_cq = lim.max_mr = lim.max_ah = lim.max_xrcd = lim.max_srq =
			lim.max_qp = kCount;
		soft = xqp_soft_create("xqp_soft_small", &lim);
		ASSERT_FALSE(xqp_is_err(soft));
		dev = xqp_soft_device(soft);
		ASSERT_EQ(xqp_query_device(dev, &a), 0);
	}
};

/* @make makes one more object (or an error pointer); kCount succeed, then -ENOMEM. */
template <typename T, typename Make, typename Free>
void count_limit(const char *what, u32 reported, Make make, Free free_one)
{
	std::vector<T *> made;

	EXPECT_EQ(reported, kCount) << what;
	for (u32 i = 0; i < kCount; i++) {
		T *o = make();
		EXPECT_FALSE(xqp_is_err(o)) << what << " " << i << ": " << xqp_ptr_err(o);
		if (!xqp_is_err(o))
			made.push_back(o);
	}
	T *extra = make();
	EXPECT_TRUE(xqp_is_err(extra)) << what << ": one more than max";
	if (xqp_is_err(extra)) {
		EXPECT_EQ(xqp_ptr_err(extra), -XQP_ENOMEM) << what;
	} else
		made.push_back(extra);
	for (T *o : made)
		EXPECT_EQ(free_one(o), 0) << what;
}

xqp_qp *rc_qp(xqp_device *dev, xqp_pd *pd, xqp_cq *cq, const xqp_qp_cap &cap)
{
	xqp_qp_init_attr init = {};

	init.qp_type = XQP_QPT_RC;
	init.send_cq = cq;
	init.recv_cq = cq;
	init.cap = cap;
	return xqp_create_qp_user(dev, pd, &init, nullptr, nullptr, "test");
}

/* @cap is accepted, and with @field one more it is refused with -EINVAL. */
void qp_cap_limit(xqp_device *dev, xqp_pd *pd, xqp_cq *cq, u32 xqp_qp_cap::*field, u32 max,
		  const char *what)
{
	xqp_qp_cap cap = {1, 1, 1, 1, 0};

	cap.*field = max;
	xqp_qp *qp = rc_qp(dev, pd, cq, cap);
	EXPECT_FALSE(xqp_is_err(qp)) << what << " = " << max << ": " << xqp_ptr_err(qp);
	if (!xqp_is_err(qp)) {
		EXPECT_EQ(xqp_destroy_qp(qp), 0);
	}
	cap.*field = max + 1;
	qp = rc_qp(dev, pd, cq, cap);
	EXPECT_TRUE(xqp_is_err(qp)) << what << " = max + 1";
	if (xqp_is_err(qp)) {
		EXPECT_EQ(xqp_ptr_err(qp), -XQP_EINVAL) << what;
	} else
		EXPECT_EQ(xqp_destroy_qp(qp), 0);
}

/* A fresh RC QP taken to INIT; then RTR with max_dest_rd_atomic @n. */
int rtr_with_dest_rd_atomic(xqp_qp *qp, u32 n)
{
	xqp_qp_attr a = {};

	a.qp_state = XQP_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = 0xe;
	if (xqp_modify_qp(qp, &a, XQP_QP_STATE | XQP_QP_PKEY_INDEX | XQP_QP_PORT |
				      XQP_QP_ACCESS_FLAGS))
		return -1;
	a = {};
	a.qp_state = XQP_QPS_RTR;
	a.path_mtu = XQP_MTU_4096;
	a.dest_qp_num = xqp_qp_num(qp);
	a.ah_attr.dlid = 1;
	a.ah_attr.port_num = 1;
	a.max_dest_rd_atomic = (xqp_u8)n;
	a.min_rnr_timer = 1;
	return xqp_modify_qp(qp, &a, XQP_QP_STATE | XQP_QP_AV | XQP_QP_PATH_MTU |
					 XQP_QP_DEST_QPN | XQP_QP_RQ_PSN |
					 XQP_QP_MAX_DEST_RD_ATOMIC | XQP_QP_MIN_RNR_TIMER);
}

int rts_with_rd_atomic(xqp_qp *qp, u32 n)
{
	xqp_qp_attr a = {};

	a.qp_state = XQP_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = (xqp_u8)n;
	return xqp_modify_qp(qp, &a, XQP_QP_STATE | XQP_QP_SQ_PSN | XQP_QP_TIMEOUT |
					 XQP_QP_RETRY_CNT | XQP_QP_RNR_RETRY |
					 XQP_QP_MAX_QP_RD_ATOMIC);
}

} // namespace

TEST_F(Core, DeviceAttrsCountsAreEnforcedExactly)
{
	SmallDevice s;
	ASSERT_NO_FATAL_FAILURE(s.init());
	xqp_device *d = s.dev;

	count_limit<xqp_pd>("max_pd", s.a.max_pd, [d] { return xqp_alloc_pd(d); }, xqp_dealloc_pd);
	count_limit<xqp_cq>("max_cq", s.a.max_cq,
			    [d] { return xqp_create_cq(d, 1, nullptr, nullptr); }, xqp_destroy_cq);
	count_limit<xqp_xrcd>("max_xrcd", s.a.max_xrcd, [d] { return xqp_alloc_xrcd(d); },
			      xqp_dealloc_xrcd);

	xqp_pd *pd = xqp_alloc_pd(d);
	ASSERT_FALSE(xqp_is_err(pd));
	xqp_cq *cq = xqp_create_cq(d, 16, nullptr, nullptr);
	ASSERT_FALSE(xqp_is_err(cq));
	static char buf[4096];
	count_limit<xqp_mr>("max_mr", s.a.max_mr,
			    [pd] { return xqp_reg_kernel_mr(pd, buf, sizeof(buf), 0x1); },
			    xqp_dereg_mr);
	count_limit<xqp_ah>("max_ah", s.a.max_ah,
			    [pd] {
				    xqp_ah_attr aa = {};
				    aa.dlid = 1;
				    aa.port_num = 1;
				    return xqp_create_ah(pd, &aa);
			    },
			    xqp_destroy_ah);
	count_limit<xqp_srq>("max_srq", s.a.max_srq,
			     [pd] {
				     xqp_srq_init_attr si = {};
				     si.attr.max_wr = 1;
				     si.attr.max_sge = 1;
				     si.srq_type = XQP_SRQT_BASIC;
				     return xqp_create_srq(pd, &si);
			     },
			     xqp_destroy_srq);
	count_limit<xqp_qp>("max_qp", s.a.max_qp,
			    [d, pd, cq] { return rc_qp(d, pd, cq, xqp_qp_cap{1, 1, 1, 1, 0}); },
			    xqp_destroy_qp);
	EXPECT_EQ(xqp_destroy_cq(cq), 0);
	EXPECT_EQ(xqp_dealloc_pd(pd), 0);
	xqp_soft_destroy(s.soft);
}

TEST_F(Core, DeviceAttrsSizesAreEnforcedExactly)
{
	xqp_device_attr a = {};
	ASSERT_EQ(xqp_query_device(dev(), &a), 0);
	xqp_pd *pd = xqp_alloc_pd(dev());
	ASSERT_FALSE(xqp_is_err(pd));
	xqp_cq *cq = xqp_create_cq(dev(), 16, nullptr, nullptr);
	ASSERT_FALSE(xqp_is_err(cq));

	qp_cap_limit(dev(), pd, cq, &xqp_qp_cap::max_send_wr, a.max_qp_wr, "max_qp_wr (send)");
	qp_cap_limit(dev(), pd, cq, &xqp_qp_cap::max_recv_wr, a.max_qp_wr, "max_qp_wr (recv)");
	qp_cap_limit(dev(), pd, cq, &xqp_qp_cap::max_send_sge, a.max_send_sge, "max_send_sge");
	qp_cap_limit(dev(), pd, cq, &xqp_qp_cap::max_recv_sge, a.max_recv_sge, "max_recv_sge");
	qp_cap_limit(dev(), pd, cq, &xqp_qp_cap::max_inline_data, a.max_inline_data,
		     "max_inline_data");

	/* max_cqe */
	xqp_cq *big = xqp_create_cq(dev(), (int)a.max_cqe, nullptr, nullptr);
	EXPECT_FALSE(xqp_is_err(big)) << xqp_ptr_err(big);
	if (!xqp_is_err(big)) {
		EXPECT_EQ(xqp_destroy_cq(big), 0);
	}
	big = xqp_create_cq(dev(), (int)a.max_cqe + 1, nullptr, nullptr);
	EXPECT_EQ(xqp_ptr_err(big), -XQP_EINVAL) << "max_cqe + 1";

	/* max_srq_wr, max_srq_sge */
	for (int which = 0; which < 2; which++) {
		for (u32 extra = 0; extra < 2; extra++) {
			xqp_srq_init_attr si = {};
			si.attr.max_wr = which ? 1 : a.max_srq_wr + extra;
			si.attr.max_sge = which ? a.max_srq_sge + extra : 1;
			xqp_srq *srq = xqp_create_srq(pd, &si);
			if (!extra) {
				EXPECT_FALSE(xqp_is_err(srq)) << (which ? "max_srq_sge" : "max_srq_wr");
				if (!xqp_is_err(srq)) {
					EXPECT_EQ(xqp_destroy_srq(srq), 0);
				}
			} else {
				EXPECT_EQ(xqp_ptr_err(srq), -XQP_EINVAL)
					<< (which ? "max_srq_sge + 1" : "max_srq_wr + 1");
			}
		}
	}

	/* max_qp_rd_atom bounds max_dest_rd_atomic, max_qp_init_rd_atom max_rd_atomic */
	for (u32 extra = 0; extra < 2; extra++) {
		xqp_qp *qp = rc_qp(dev(), pd, cq, xqp_qp_cap{1, 1, 1, 1, 0});
		ASSERT_FALSE(xqp_is_err(qp));
		EXPECT_EQ(rtr_with_dest_rd_atomic(qp, a.max_qp_rd_atom + extra),
			  extra ? -XQP_EINVAL : 0) << "max_qp_rd_atom + " << extra;
		if (!extra) {
			EXPECT_EQ(rts_with_rd_atomic(qp, a.max_qp_init_rd_atom), 0);
		}
		EXPECT_EQ(xqp_destroy_qp(qp), 0);
	}
	xqp_qp *qp = rc_qp(dev(), pd, cq, xqp_qp_cap{1, 1, 1, 1, 0});
	ASSERT_FALSE(xqp_is_err(qp));
	ASSERT_EQ(rtr_with_dest_rd_atomic(qp, 1), 0);
	EXPECT_EQ(rts_with_rd_atomic(qp, a.max_qp_init_rd_atom + 1), -XQP_EINVAL)
		<< "max_qp_init_rd_atom + 1";
	EXPECT_EQ(xqp_destroy_qp(qp), 0);

	/* ports and P_Keys */
	xqp_port_attr pa = {};
	EXPECT_EQ(xqp_query_port(dev(), a.phys_port_cnt, &pa), 0);
	EXPECT_EQ(xqp_query_port(dev(), a.phys_port_cnt + 1u, &pa), -XQP_EINVAL);
	xqp_u16 pkey = 0;
	EXPECT_EQ(xqp_query_pkey(dev(), 1, (xqp_u16)(a.max_pkeys - 1), &pkey), 0);
	EXPECT_EQ(xqp_query_pkey(dev(), 1, a.max_pkeys, &pkey), -XQP_EINVAL);

	/* what is reported without a count to try */
	EXPECT_EQ(a.atomic_cap, XQP_ATOMIC_HCA);	/* Traffic.* run FETCH_ADD and CMP_SWP */
	EXPECT_EQ(a.max_sge_rd, a.max_send_sge);
	EXPECT_EQ(a.max_res_rd_atom, a.max_qp_rd_atom * (xqp_u64)a.max_qp > 0x7fffffff ?
					     0x7fffffffu : a.max_qp_rd_atom * a.max_qp);
	EXPECT_GT(a.max_mr, 0u);
	EXPECT_GT(a.max_ah, 0u);

	EXPECT_EQ(xqp_destroy_cq(cq), 0);
	EXPECT_EQ(xqp_dealloc_pd(pd), 0);
}
