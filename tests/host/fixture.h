/* SPDX-License-Identifier: GPL-2.0 */
/* GoogleTest fixture: a soft device on the strict host seam, leak-checked. */
#ifndef XQP_TEST_FIXTURE_H
#define XQP_TEST_FIXTURE_H

#include <gtest/gtest.h>

extern "C" {
#include "xqp/driver.h"
#include "xqp/seam.h"
#include "soft/soft.h"
}
#include "seam_host.h"

class Core : public ::testing::Test {
protected:
	void SetUp() override
	{
		allocs_before_ = xqp_host_live_allocs();
		warns_before_ = xqp_host_warn_count();
		soft_ = xqp_soft_create("xqp_soft_test", nullptr);
		ASSERT_FALSE(xqp_is_err(soft_));
	}
	void TearDown() override
	{
		xqp_host_fail_alloc_after(-1);
		xqp_soft_destroy(soft_);
		xqp_rcu_barrier();
		EXPECT_EQ(xqp_host_live_allocs(), allocs_before_) << "leaked allocations";
		EXPECT_EQ(xqp_host_warn_count(), warns_before_) << "core warnings";
	}
	xqp_device *dev() { return xqp_soft_device(soft_); }

	xqp_soft *soft_ = nullptr;
	long allocs_before_ = 0;
	long warns_before_ = 0;
};

#endif
