// SPDX-License-Identifier: GPL-2.0
/*
 * "No device-global lock" made observable. Linux holds the device's
 * qp_open_list_lock across every event walk, open and close, so while one
 * QP's event handler runs, nothing else on the device can open, close or
 * deliver. In xqp an event handler on QP A that never returns until QP B has
 * been opened, evented, closed and destroyed by another thread must not stop
 * that thread: the test would hang (and fail on its deadline) otherwise.
 */
#include <atomic>
#include <chrono>
#include <thread>

#include "fixture.h"

namespace {

struct Gate {
	std::atomic<bool> in_handler{false};
	std::atomic<bool> release{false};
	std::atomic<bool> timed_out{false};
};

void blocking_handler(xqp_event *, void *ctx)
{
	auto *g = static_cast<Gate *>(ctx);
	g->in_handler = true;
	auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
	while (!g->release.load()) {
		if (std::chrono::steady_clock::now() > deadline) {
			g->timed_out = true;
			return;
		}
		std::this_thread::yield();
	}
}

void count(xqp_event *, void *ctx)
{
	++*static_cast<std::atomic<int> *>(ctx);
}

} // namespace

TEST_F(Core, OtherQpsProceedWhileAHandlerRuns)
{
	xqp_xrcd *x = xrcd();
	Gate gate;
	xqp_qp *a = create_tgt(x, blocking_handler, &gate);
	std::atomic<int> b_events{0};
	xqp_qp *b = create_tgt(x, count, &b_events);
	u32 qpn_a = xqp_qp_num(a), qpn_b = xqp_qp_num(b);

	std::thread eventer([&] { xqp_soft_raise_qp_event(soft_, qpn_a, XQP_EVENT_QP_FATAL); });
	while (!gate.in_handler.load())
		std::this_thread::yield();

	/* A's handler is running (in atomic context); B is untouched by it. */
	xqp_qp *o = open(x, qpn_b, count, &b_events);
	ASSERT_FALSE(xqp_is_err(o));
	EXPECT_EQ(xqp_soft_raise_qp_event(soft_, qpn_b, XQP_EVENT_COMM_EST), 0);
	EXPECT_EQ(b_events.load(), 2);
	EXPECT_EQ(xqp_close_qp(o), 0);
	xqp_qp *c = create_tgt(x);
	EXPECT_EQ(xqp_destroy_qp(c), 0);
	/* Even A itself can be opened by someone else meanwhile. */
	xqp_qp *oa = open(x, qpn_a);
	ASSERT_FALSE(xqp_is_err(oa));
	EXPECT_EQ(xqp_destroy_qp(oa), 0);

	gate.release = true;
	eventer.join();
	EXPECT_FALSE(gate.timed_out.load());
	EXPECT_EQ(xqp_destroy_qp(b), 0);
	EXPECT_EQ(xqp_destroy_qp(a), 0);
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
}

/* An event handler may raise an event on another QP of the same device: a
 * device-global lock held over the walk would make that a self-deadlock. */
TEST_F(Core, NestedEventOnAnotherQp)
{
	xqp_xrcd *x = xrcd();
	std::atomic<int> b_events{0};
	xqp_qp *b = create_tgt(x, count, &b_events);
	struct Nest {
		xqp_soft *soft;
		u32 qpn_b;
		int ret = -1;
	} nest{soft_, xqp_qp_num(b)};
	xqp_qp *a = create_tgt(x, [](xqp_event *, void *ctx) {
		auto *n = static_cast<Nest *>(ctx);
		n->ret = xqp_soft_raise_qp_event(n->soft, n->qpn_b, XQP_EVENT_COMM_EST);
	}, &nest);
	EXPECT_EQ(xqp_soft_raise_qp_event(soft_, xqp_qp_num(a), XQP_EVENT_QP_FATAL), 0);
	EXPECT_EQ(nest.ret, 0);
	EXPECT_EQ(b_events.load(), 1);
	EXPECT_EQ(xqp_destroy_qp(a), 0);
	EXPECT_EQ(xqp_destroy_qp(b), 0);
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
}
