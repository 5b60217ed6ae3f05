// SPDX-License-Identifier: GPL-2.0
/*
 * Allocation-failure sweeps: a scenario is run again and again with the n-th
 * allocation failing, for every n until it runs clean. Each verb must either
 * succeed or fail with -ENOMEM leaving no trace (no leak, no usecnt, no
 * driver object); the scenario then cleans up what did succeed.
 */
#include "fixture.h"

namespace {

/* Runs the shared-QP scenario; returns true if every step succeeded. */
bool scenario(xqp_device *dev, xqp_soft *soft)
{
	xqp_xrcd *x = xqp_alloc_xrcd(dev);
	if (xqp_is_err(x)) {
		EXPECT_EQ(xqp_ptr_err(x), -XQP_ENOMEM);
		return false;
	}
	bool ok = true;
	xqp_qp_init_attr init = {};
	init.qp_type = XQP_QPT_XRC_TGT;
	init.xrcd = x;
	xqp_qp *h = xqp_create_qp_user(dev, nullptr, &init, nullptr, nullptr, "sweep");
	if (xqp_is_err(h)) {
		/* includes the table publish failing: no usecnt may leak */
		EXPECT_EQ(xqp_ptr_err(h), -XQP_ENOMEM);
		EXPECT_EQ(xqp_xrcd_usecnt(x), 0u);
		struct xqp_soft_counts c = {};
		xqp_soft_counts(soft, &c);
		EXPECT_EQ(c.qp, 0u);
		EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
		return false;
	}
	xqp_qp_open_attr oa = {};
	oa.qp_num = xqp_qp_num(h);
	oa.qp_type = XQP_QPT_XRC_TGT;
	xqp_qp *o = xqp_open_qp(x, &oa);
	if (xqp_is_err(o)) {
		EXPECT_EQ(xqp_ptr_err(o), -XQP_ENOMEM);
		EXPECT_EQ(xqp_qp_share_count(h), 1u);
		ok = false;
	} else {
		EXPECT_EQ(xqp_destroy_qp(o), 0);
	}
	EXPECT_EQ(xqp_destroy_qp(h), 0);
	EXPECT_EQ(xqp_xrcd_usecnt(x), 0u);
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
	return ok;
}

} // namespace

TEST_F(Core, AllocationFailureSweep)
{
	/* Warm up: the soft device keeps its number-table leaves once made. */
	ASSERT_TRUE(scenario(dev(), soft_));
	int n = 0;
	for (;; n++) {
		xqp_rcu_barrier();
		long before = xqp_host_live_allocs();
		xqp_host_fail_alloc_after(n);
		bool clean = scenario(dev(), soft_);
		xqp_host_fail_alloc_after(-1);
		xqp_rcu_barrier();
		ASSERT_EQ(xqp_host_live_allocs(), before) << "leak with allocation " << n << " failing";
		if (clean)
			break;
		ASSERT_LT(n, 64) << "scenario never ran clean";
	}
	RecordProperty("failure_points", n);
	EXPECT_GE(n, 3);	/* at least: XRCD, QP, share, table nodes, open */
}

/* The first QP of an XRCD allocates the table's nodes: make exactly that fail. */
TEST_F(Core, PublishFailureLeavesNoUsecnt)
{
	xqp_xrcd *x = xrcd();
	xqp_qp_init_attr init = {};
	init.qp_type = XQP_QPT_XRC_TGT;
	init.xrcd = x;
	bool hit = false;
	for (int n = 0; n < 16 && !hit; n++) {
		long calls = xqp_host_alloc_calls();
		xqp_host_fail_alloc_after(n);
		xqp_qp *h = xqp_create_qp_user(dev(), nullptr, &init, nullptr, nullptr, "t");
		xqp_host_fail_alloc_after(-1);
		if (!xqp_is_err(h)) {
			EXPECT_EQ(xqp_destroy_qp(h), 0);
			break;
		}
		EXPECT_EQ(xqp_xrcd_usecnt(x), 0u);
		EXPECT_EQ(counts().qp, 0u);
		/* the driver had been asked (qp number known) when the publish failed */
		hit = n > 0 && xqp_host_alloc_calls() - calls > 2 &&
		      xqp_soft_op_calls(soft_, XQP_SOFT_OP_DESTROY_QP) > 0;
	}
	EXPECT_TRUE(hit) << "no failure hit the publish step";
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
}
