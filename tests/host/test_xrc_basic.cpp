// SPDX-License-Identifier: GPL-2.0
/* The shared-QP slice through the C API on the soft device. */
#include "fixture.h"

TEST_F(Core, XrcdAllocDealloc)
{
	xqp_xrcd *x = xqp_alloc_xrcd(dev());
	ASSERT_FALSE(xqp_is_err(x));
	EXPECT_EQ(xqp_xrcd_usecnt(x), 0u);
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
}
