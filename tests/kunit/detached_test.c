// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the host tests of a driver that goes (tests/host/test_driver_gone.cpp)
 * where the kernel adds something: the real seam, lockdep on the locks
 * taken, kmemleak and KASAN on what is freed.
 *
 * Defect 2: a shared QP that still had shares when its device was
 * unregistered goes with its last share, whether a kernel client closes
 * or destroys it (the close takes the XRCD's mutex then: lockdep checks
 * the order XRCD mutex -> QP lock, and that it may sleep there).
 */
#include <kunit/test.h>

#include "suite.h"
#include "xqp_test.h"

static void detached_shared_qp_goes_with_last_share(struct kunit *test)
{
	struct xqp_soft *soft = xqp_soft_create("xqp_kunit_gone", NULL);
	struct xqp_xrcd *x1, *x2;
	struct xqp_qp *h1, *h2, *o1, *o2;
	struct xqp_qp_init_attr init = { .qp_type = XQP_QPT_XRC_TGT };
	struct xqp_device *dev;

	KUNIT_ASSERT_FALSE(test, IS_ERR(soft));
	dev = xqp_soft_device(soft);
	x1 = xqp_alloc_xrcd(dev);
	x2 = xqp_alloc_xrcd(dev);
	KUNIT_ASSERT_FALSE(test, IS_ERR(x1) || IS_ERR(x2));
	init.xrcd = x1;
	h1 = xqp_create_qp_user(dev, NULL, &init, NULL, NULL, KBUILD_MODNAME);
	init.xrcd = x2;
	h2 = xqp_create_qp_user(dev, NULL, &init, NULL, NULL, KBUILD_MODNAME);
	KUNIT_ASSERT_FALSE(test, IS_ERR(h1) || IS_ERR(h2));
	o1 = xqp_kt_open(test, x1, xqp_qp_num(h1), NULL, NULL);
	o2 = xqp_kt_open(test, x2, xqp_qp_num(h2), NULL, NULL);
	KUNIT_ASSERT_FALSE(test, IS_ERR(o1) || IS_ERR(o2));

	xqp_soft_destroy(soft);		/* unregisters: both QPs are detached */

	KUNIT_EXPECT_EQ(test, xqp_close_qp(o1), 0);
	KUNIT_EXPECT_EQ(test, xqp_close_qp(h1), 0);
	KUNIT_EXPECT_EQ(test, xqp_xrcd_usecnt(x1), 0);
	KUNIT_EXPECT_EQ(test, xqp_dealloc_xrcd(x1), 0);
	KUNIT_EXPECT_EQ(test, xqp_destroy_qp(h2), 0);
	KUNIT_EXPECT_EQ(test, xqp_close_qp(o2), 0);
	KUNIT_EXPECT_EQ(test, xqp_xrcd_usecnt(x2), 0);
	KUNIT_EXPECT_EQ(test, xqp_dealloc_xrcd(x2), 0);
}

XQP_KUNIT_SUITE(xqp_detached_suite, "xqp_detached", XQP_NO_FIXTURE,
		KUNIT_CASE(detached_shared_qp_goes_with_last_share));
