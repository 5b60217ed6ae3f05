// SPDX-License-Identifier: GPL-2.0
/*
 * When a share's memory goes (core/objects.h, QpShared): at close when no
 * event walk is in progress on its QP; by the last walk otherwise, and never
 * a handler call after close returned. The host seam counts every live
 * allocation (the share cache's too), so "freed" is observable without a
 * grace period, and ASan sees a walker touching a freed share.
 */
#include <atomic>
#include <chrono>
#include <thread>

#include "fixture.h"

namespace {

struct Gate {
	std::atomic<bool> in_handler{false};
	std::atomic<bool> release{false};
	std::atomic<int> calls{0};
};

/* Blocks the walk in this handler until released (10 s at most). */
void gate_handler(xqp_event *, void *ctx)
{
	auto *g = static_cast<Gate *>(ctx);
	g->calls++;
	g->in_handler = true;
	auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
	while (!g->release.load() && std::chrono::steady_clock::now() < deadline)
		std::this_thread::yield();
}

void count(xqp_event *, void *ctx)
{
	++*static_cast<std::atomic<int> *>(ctx);
}

} // namespace

TEST_F(Core, CloseFreesTheShareAtOnce)
{
	xqp_xrcd *x = xrcd();
	xqp_qp *c = create_tgt(x);
	long base = xqp_host_live_allocs();

	xqp_qp *h = open(x, xqp_qp_num(c));
	ASSERT_FALSE(xqp_is_err(h));
	EXPECT_EQ(xqp_host_live_allocs(), base + 1);	/* one object a share */
	EXPECT_EQ(xqp_close_qp(h), 0);
	EXPECT_EQ(xqp_host_live_allocs(), base);	/* no grace period */

	h = open(x, xqp_qp_num(c));
	ASSERT_FALSE(xqp_is_err(h));
	EXPECT_EQ(xqp_destroy_qp(h), 0);		/* not the last: a close */
	EXPECT_EQ(xqp_host_live_allocs(), base);
	EXPECT_EQ(xqp_destroy_qp(c), 0);
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
}

/*
 * Walk order is newest first: the gate share (newest) blocks the walk
 * before it reaches the older shares. Closing those meanwhile neither
 * waits for the walk nor frees them under it; the walk skips them and its
 * end frees them.
 */
TEST_F(Core, SharesClosedDuringAWalkGoWithTheWalk)
{
	xqp_xrcd *x = xrcd();
	xqp_qp *c = create_tgt(x);
	u32 qpn = xqp_qp_num(c);
	std::atomic<int> closed_calls{0}, kept_calls{0};
	xqp_qp *closed1 = open(x, qpn, count, &closed_calls);
	xqp_qp *kept = open(x, qpn, count, &kept_calls);
	xqp_qp *closed2 = open(x, qpn, count, &closed_calls);
	Gate gate;
	xqp_qp *g = open(x, qpn, gate_handler, &gate);
	ASSERT_FALSE(xqp_is_err(closed1) || xqp_is_err(kept) || xqp_is_err(closed2) ||
		     xqp_is_err(g));
	long base = xqp_host_live_allocs();

	std::thread eventer([&] { EXPECT_EQ(xqp_soft_raise_qp_event(soft_, qpn, XQP_EVENT_COMM_EST), 0); });
	while (!gate.in_handler.load())
		std::this_thread::yield();

	/* The walk is in the gate's handler: close two shares it has not reached. */
	EXPECT_EQ(xqp_close_qp(closed1), 0);
	EXPECT_EQ(xqp_destroy_qp(closed2), 0);
	EXPECT_EQ(xqp_host_live_allocs(), base);	/* kept for the walk */
	/* A share opened and closed meanwhile: the walk may not reach it. */
	xqp_qp *late = open(x, qpn);
	ASSERT_FALSE(xqp_is_err(late));
	EXPECT_EQ(xqp_close_qp(late), 0);

	gate.release = true;
	eventer.join();
	EXPECT_EQ(gate.calls.load(), 1);
	EXPECT_EQ(kept_calls.load(), 1);
	EXPECT_EQ(closed_calls.load(), 0);		/* closed before reached */
	EXPECT_EQ(xqp_host_live_allocs(), base - 2);	/* the walk freed them */

	/* A later walk delivers to those still open only, and frees at close. */
	EXPECT_EQ(xqp_close_qp(g), 0);
	EXPECT_EQ(xqp_soft_raise_qp_event(soft_, qpn, XQP_EVENT_COMM_EST), 0);
	EXPECT_EQ(kept_calls.load(), 2);
	EXPECT_EQ(gate.calls.load(), 1);
	EXPECT_EQ(xqp_host_live_allocs(), base - 3);
	EXPECT_EQ(xqp_destroy_qp(kept), 0);
	EXPECT_EQ(xqp_destroy_qp(c), 0);
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
}

/* Two walks at once on one QP: the one that ends last frees what was closed. */
TEST_F(Core, TheLastOfTwoWalksFreesTheClosed)
{
	xqp_xrcd *x = xrcd();
	xqp_qp *c = create_tgt(x);
	u32 qpn = xqp_qp_num(c);
	std::atomic<int> calls{0};
	xqp_qp *victim = open(x, qpn, count, &calls);
	Gate gate;
	xqp_qp *g = open(x, qpn, gate_handler, &gate);
	ASSERT_FALSE(xqp_is_err(victim) || xqp_is_err(g));
	long base = xqp_host_live_allocs();

	/* walk 1 blocks in the gate; walk 2 then waits its turn at the gate (DELIVERING) */
	std::thread w1([&] { xqp_soft_raise_qp_event(soft_, qpn, XQP_EVENT_COMM_EST); });
	while (!gate.in_handler.load())
		std::this_thread::yield();
	std::thread w2([&] { xqp_soft_raise_qp_event(soft_, qpn, XQP_EVENT_PATH_MIG); });
	std::this_thread::sleep_for(std::chrono::milliseconds(20));
	EXPECT_EQ(xqp_close_qp(victim), 0);
	EXPECT_EQ(xqp_host_live_allocs(), base);
	gate.release = true;
	w1.join();
	w2.join();
	EXPECT_EQ(calls.load(), 0);
	EXPECT_EQ(gate.calls.load(), 2);
	EXPECT_EQ(xqp_host_live_allocs(), base - 1);
	EXPECT_EQ(xqp_close_qp(g), 0);
	EXPECT_EQ(xqp_destroy_qp(c), 0);
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
}

/*
 * A close of the share whose handler is running returns only once that
 * call has: it waits out the delivery (DELIVERING), then nothing more.
 */
TEST_F(Core, CloseWaitsOutItsShareDeliveryInProgress)
{
	xqp_xrcd *x = xrcd();
	xqp_qp *c = create_tgt(x);
	u32 qpn = xqp_qp_num(c);
	Gate gate;
	xqp_qp *g = open(x, qpn, gate_handler, &gate);
	ASSERT_FALSE(xqp_is_err(g));
	long base = xqp_host_live_allocs();

	std::thread eventer([&] { xqp_soft_raise_qp_event(soft_, qpn, XQP_EVENT_COMM_EST); });
	while (!gate.in_handler.load())
		std::this_thread::yield();
	EXPECT_TRUE(waits_for_handler(gate.release, [&] { EXPECT_EQ(xqp_close_qp(g), 0); }));
	eventer.join();
	EXPECT_EQ(xqp_host_live_allocs(), base - 1);	/* the walk's end freed it */
	EXPECT_EQ(xqp_soft_raise_qp_event(soft_, qpn, XQP_EVENT_COMM_EST), 0);
	EXPECT_EQ(gate.calls.load(), 1);
	EXPECT_EQ(xqp_destroy_qp(c), 0);
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
}
