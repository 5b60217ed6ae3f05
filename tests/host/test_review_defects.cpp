// SPDX-License-Identifier: GPL-2.0
/*
 * The core defects of issue 9's review (defects 2, 4 and 5), one test
 * each; every one failed before its fix (docs/reliability.md, "Review
 * defects"). Defects 1 and 3 are in the char device: user/tests/cases_review.c.
 */
#include <sys/mman.h>
#include <unistd.h>

#include "fixture.h"

/*
 * Defect 2: a shared QP that still had handles when its device was
 * unregistered stays in its XRCD, detached from the driver. Whether a
 * kernel client then closes its handles or destroys them, the last one
 * takes the QP along: the XRCD can be deallocated, nothing leaks (the
 * fixture counts allocations; the device goes with its last object).
 */
TEST_F(Core, ReviewDefect2_DetachedSharedQpGoesWithItsLastHandle)
{
	xqp_xrcd *x1 = xrcd(), *x2 = xrcd(), *x3 = xrcd();
	xqp_qp *h1 = create_tgt(x1), *h2 = create_tgt(x2), *h3 = create_tgt(x3);
	xqp_qp *o1 = open(x1, xqp_qp_num(h1));
	xqp_qp *o2 = open(x2, xqp_qp_num(h2));
	xqp_qp *o3 = open(x3, xqp_qp_num(h3));
	ASSERT_FALSE(xqp_is_err(o1) || xqp_is_err(o2) || xqp_is_err(o3));
	remove_device();

	/* every handle closed */
	EXPECT_EQ(xqp_close_qp(o1), 0);
	EXPECT_EQ(xqp_close_qp(h1), 0);
	EXPECT_EQ(xqp_xrcd_usecnt(x1), 0u);
	EXPECT_EQ(xqp_dealloc_xrcd(x1), 0);
	/* one destroyed, the last one closed */
	EXPECT_EQ(xqp_destroy_qp(h2), 0);
	EXPECT_EQ(xqp_close_qp(o2), 0);
	EXPECT_EQ(xqp_xrcd_usecnt(x2), 0u);
	EXPECT_EQ(xqp_dealloc_xrcd(x2), 0);
	/* one closed, the last one destroyed (worked before the fix too) */
	EXPECT_EQ(xqp_close_qp(h3), 0);
	EXPECT_EQ(xqp_destroy_qp(o3), 0);
	EXPECT_EQ(xqp_xrcd_usecnt(x3), 0u);
	EXPECT_EQ(xqp_dealloc_xrcd(x3), 0);
}
