/* SPDX-License-Identifier: GPL-2.0 */
/*
 * GoogleTest fixture: a fresh soft device on the strict host seam per test.
 * TearDown removes the device, waits for RCU callbacks and fails the test on
 * any leaked allocation or core warning.
 */
#ifndef XQP_TEST_FIXTURE_H
#define XQP_TEST_FIXTURE_H

#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

extern "C" {
#include "xqp/driver.h"
#include "xqp/seam.h"
#include "soft/soft.h"
}
#include "seam_host.h"

using u32 = xqp_u32;

/* Waits up to 5 s for @v to leave @from (a handler's result on a worker). */
inline void wait_while(const std::atomic<int> &v, int from)
{
	for (int i = 0; i < 5000 && v.load() == from; i++)
		std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

/*
 * Runs @op on a thread of its own while a handler is held (until @release):
 * true when @op had not returned 50 ms in, i.e. it waited for the handler.
 * Then @release is set and the thread joined.
 */
template <typename Op> bool waits_for_handler(std::atomic<bool> &release, Op op)
{
	std::atomic<bool> done{false};
	std::thread t([&] {
		op();
		done = true;
	});
	std::this_thread::sleep_for(std::chrono::milliseconds(50));
	bool waited = !done.load();
	release = true;
	t.join();
	return waited;
}

class Core : public ::testing::Test {
protected:
	void SetUp() override
	{
		xqp_rcu_barrier();
		allocs_before_ = xqp_host_live_allocs();
		warns_before_ = xqp_host_warn_count();
		soft_ = xqp_soft_create("xqp_soft_test", nullptr);
		ASSERT_FALSE(xqp_is_err(soft_));
	}
	void TearDown() override
	{
		xqp_host_fail_alloc_after(-1);
		if (soft_) {
			xqp_soft_counts_check();
			remove_device();
		}
		xqp_rcu_barrier();
		EXPECT_EQ(xqp_host_live_allocs(), allocs_before_) << "leaked allocations";
		EXPECT_EQ(xqp_host_warn_count(), warns_before_) << "core warnings";
	}

	xqp_device *dev() { return xqp_soft_device(soft_); }
	void remove_device()
	{
		xqp_soft_destroy(soft_);
		soft_ = nullptr;
	}
	struct xqp_soft_counts counts()
	{
		struct xqp_soft_counts c = {};
		xqp_soft_counts(soft_, &c);
		return c;
	}
	/* A test that ends normally has destroyed everything it made. */
	void xqp_soft_counts_check()
	{
		struct xqp_soft_counts c = counts();
		EXPECT_EQ(c.pd + c.cq + c.xrcd + c.srq + c.qp + c.mr + c.mcast_grp + c.mcast_attach, 0u)
			<< "driver objects left";
	}
	xqp_xrcd *xrcd()
	{
		xqp_xrcd *x = xqp_alloc_xrcd(dev());
		EXPECT_FALSE(xqp_is_err(x));
		return x;
	}
	xqp_qp *create_tgt(xqp_xrcd *x, xqp_event_handler_t handler = nullptr,
			   void *ctx = nullptr)
	{
		xqp_qp_init_attr init = {};
		init.qp_type = XQP_QPT_XRC_TGT;
		init.xrcd = x;
		init.event_handler = handler;
		init.event_flags = XQP_EVENT_INLINE;
		init.qp_context = ctx;
		xqp_qp *h = xqp_create_qp_user(dev(), nullptr, &init, nullptr, nullptr, "test");
		EXPECT_FALSE(xqp_is_err(h)) << xqp_ptr_err(h);
		return h;
	}
	static xqp_qp *open(xqp_xrcd *x, u32 qpn, xqp_event_handler_t handler = nullptr,
			    void *ctx = nullptr)
	{
		xqp_qp_open_attr oa = {};
		oa.qp_num = qpn;
		oa.qp_type = XQP_QPT_XRC_TGT;
		oa.event_handler = handler;
		oa.event_flags = XQP_EVENT_INLINE;
		oa.qp_context = ctx;
		return xqp_open_qp(x, &oa);
	}

	xqp_soft *soft_ = nullptr;
	long allocs_before_ = 0;
	long warns_before_ = 0;
};

#endif
