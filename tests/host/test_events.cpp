// SPDX-License-Identifier: GPL-2.0
/*
 * Async events: xqp_cq_event() / xqp_srq_event() / xqp_qp_event() have the
 * handler registered at create (or open) called once per event, with
 * element.cq / .srq / .qp set (as Linux's ib_cq/ib_srq/ib_qp->event_handler):
 * where raised with XQP_EVENT_INLINE, else from a work item of the object
 * (core/events.h); the soft device's raise hooks never reach an object
 * whose destroy has returned, and no handler runs after it.
 */
#include <atomic>
#include <chrono>
#include <thread>

#include "fixture.h"

namespace {

struct Seen {
	std::atomic<int> calls{0};
	std::atomic<bool> destroyed{false};
	std::atomic<int> after_destroy{0};
	std::atomic<bool> off_thread{false};	/* a call ran on another thread */
	xqp_event last = {};
	void *context = nullptr;
	std::thread::id raiser = std::this_thread::get_id();
};

void record(xqp_event *ev, void *context)
{
	Seen *s = static_cast<Seen *>(context);

	if (s->destroyed.load())
		s->after_destroy++;
	if (std::this_thread::get_id() != s->raiser)
		s->off_thread = true;
	s->last = *ev;
	s->context = context;
	s->calls++;
}

/* Holds its caller until released (10 s at most); counts the calls. */
struct Gate {
	std::atomic<int> calls{0};
	std::atomic<bool> in{false}, release{false};
	static void on(xqp_event *, void *ctx)
	{
		auto *g = static_cast<Gate *>(ctx);
		g->calls++;
		g->in = true;
		for (int i = 0; i < 10000 && !g->release.load(); i++)
			std::this_thread::sleep_for(std::chrono::milliseconds(1));
	}
};

/* Destroys its SRQ at its first event, once told to go. */
struct SrqKiller {
	xqp_srq *srq = nullptr;
	std::atomic<int> calls{0}, rc{1};
	std::atomic<bool> in{false}, go{false};
	static void on(xqp_event *, void *ctx)
	{
		auto *k = static_cast<SrqKiller *>(ctx);
		if (k->calls++ != 0)
			return;
		k->in = true;
		for (int i = 0; i < 10000 && !k->go.load(); i++)
			std::this_thread::sleep_for(std::chrono::milliseconds(1));
		k->rc = xqp_destroy_srq(k->srq);
	}
};

} // namespace

class Events : public Core {
protected:
	xqp_pd *pd_ = nullptr;
	void SetUp() override
	{
		Core::SetUp();
		pd_ = xqp_alloc_pd(dev());
		ASSERT_FALSE(xqp_is_err(pd_));
	}
	void TearDown() override
	{
		if (soft_) {
			EXPECT_EQ(xqp_dealloc_pd(pd_), 0);
		}
		Core::TearDown();
	}
	xqp_srq *srq(Seen *seen, xqp_srq_type type = XQP_SRQT_BASIC, xqp_xrcd *x = nullptr,
		     xqp_cq *cq = nullptr, u32 event_flags = XQP_EVENT_INLINE)
	{
		xqp_srq_init_attr sa = {};
		sa.srq_type = type;
		sa.attr.max_wr = 8;
		sa.xrcd = x;
		sa.cq = cq;
		sa.event_handler = seen ? record : nullptr;
		sa.event_flags = event_flags;
		sa.srq_context = seen;
		xqp_srq *s = xqp_create_srq(pd_, &sa);
		EXPECT_FALSE(xqp_is_err(s)) << xqp_ptr_err(s);
		return s;
	}
};

TEST_F(Events, CqEventReachesItsHandlerOnce)
{
	Seen seen;
	xqp_cq *cq = xqp_create_cq(dev(), 8, record, &seen);
	ASSERT_FALSE(xqp_is_err(cq));
	xqp_cq *other = xqp_create_cq(dev(), 8, record, nullptr);
	ASSERT_FALSE(xqp_is_err(other));

	EXPECT_EQ(xqp_soft_raise_cq_event(soft_, cq, XQP_EVENT_CQ_ERR), 0);
	xqp_work_flush_all();	/* no XQP_EVENT_INLINE: from the CQ's work item */
	EXPECT_EQ(seen.calls.load(), 1);
	EXPECT_TRUE(seen.off_thread.load());
	EXPECT_EQ(seen.last.event, XQP_EVENT_CQ_ERR);
	EXPECT_EQ(seen.last.element.cq, cq);
	EXPECT_EQ(seen.last.device, dev());
	EXPECT_EQ(seen.context, &seen);

	EXPECT_EQ(xqp_destroy_cq(other), 0);
	EXPECT_EQ(xqp_destroy_cq(cq), 0);
	/* Gone: the hook refuses the stale pointer, the handler is not called. */
	EXPECT_EQ(xqp_soft_raise_cq_event(soft_, cq, XQP_EVENT_CQ_ERR), -XQP_EINVAL);
	EXPECT_EQ(xqp_soft_raise_cq_event(soft_, nullptr, XQP_EVENT_CQ_ERR), -XQP_EINVAL);
	EXPECT_EQ(seen.calls.load(), 1);
}

TEST_F(Events, CqWithoutHandlerIgnoresEvents)
{
	xqp_cq *cq = xqp_create_cq(dev(), 8, nullptr, nullptr);
	ASSERT_FALSE(xqp_is_err(cq));
	EXPECT_EQ(xqp_soft_raise_cq_event(soft_, cq, XQP_EVENT_CQ_ERR), 0);
	EXPECT_EQ(xqp_destroy_cq(cq), 0);
}

TEST_F(Events, SrqEventsReachTheirHandler)
{
	Seen seen, xseen;
	xqp_srq *s = srq(&seen);
	xqp_xrcd *x = xrcd();
	xqp_cq *cq = xqp_create_cq(dev(), 8, nullptr, nullptr);
	ASSERT_FALSE(xqp_is_err(cq));
	xqp_srq *xs = srq(&xseen, XQP_SRQT_XRC, x, cq);
	xqp_srq *quiet = srq(nullptr);

	EXPECT_EQ(xqp_soft_raise_srq_event(soft_, xqp_srq_num(s), XQP_EVENT_SRQ_LIMIT_REACHED), 0);
	EXPECT_EQ(seen.calls.load(), 1);
	EXPECT_EQ(seen.last.event, XQP_EVENT_SRQ_LIMIT_REACHED);
	EXPECT_EQ(seen.last.element.srq, s);
	EXPECT_EQ(seen.last.device, dev());
	EXPECT_EQ(xqp_soft_raise_srq_event(soft_, xqp_srq_num(xs), XQP_EVENT_SRQ_ERR), 0);
	EXPECT_EQ(xseen.calls.load(), 1);
	EXPECT_EQ(xseen.last.event, XQP_EVENT_SRQ_ERR);
	EXPECT_EQ(xseen.last.element.srq, xs);
	EXPECT_EQ(seen.calls.load(), 1) << "one SRQ's event is not another's";
	EXPECT_EQ(xqp_soft_raise_srq_event(soft_, xqp_srq_num(quiet), XQP_EVENT_SRQ_ERR), 0);

	xqp_u32 num = xqp_srq_num(s);
	EXPECT_EQ(xqp_destroy_srq(s), 0);
	EXPECT_EQ(xqp_soft_raise_srq_event(soft_, num, XQP_EVENT_SRQ_ERR), -XQP_EINVAL);
	EXPECT_EQ(xqp_soft_raise_srq_event(soft_, 0, XQP_EVENT_SRQ_ERR), -XQP_EINVAL);
	EXPECT_EQ(seen.calls.load(), 1);
	EXPECT_EQ(xqp_destroy_srq(xs), 0);
	EXPECT_EQ(xqp_destroy_srq(quiet), 0);
	EXPECT_EQ(xqp_destroy_cq(cq), 0);
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
}

/* Destroy racing with events: none runs once destroy has returned. */
TEST_F(Events, NoCqOrSrqEventAfterDestroy)
{
	for (int round = 0; round < 50; round++) {
		Seen cseen, sseen;
		xqp_cq *cq = xqp_create_cq(dev(), 8, record, &cseen);
		ASSERT_FALSE(xqp_is_err(cq));
		xqp_srq *s = srq(&sseen);
		xqp_u32 num = xqp_srq_num(s);
		std::atomic<bool> go{false};

		std::thread raiser([&] {
			while (!go.load())
				;
			bool cq_live = true, srq_live = true;
			while (cq_live || srq_live) {
				if (cq_live)
					cq_live = xqp_soft_raise_cq_event(soft_, cq, XQP_EVENT_CQ_ERR) == 0;
				if (srq_live)
					srq_live = xqp_soft_raise_srq_event(soft_, num,
									    XQP_EVENT_SRQ_ERR) == 0;
			}
		});
		go = true;
		std::this_thread::yield();
		EXPECT_EQ(xqp_destroy_cq(cq), 0);
		cseen.destroyed = true;
		EXPECT_EQ(xqp_destroy_srq(s), 0);
		sseen.destroyed = true;
		raiser.join();
		EXPECT_EQ(cseen.after_destroy.load(), 0);
		EXPECT_EQ(sseen.after_destroy.load(), 0);
	}
}

/* A kernel client's SRQ handler runs from the SRQ's work item, once per event. */
TEST_F(Events, SrqEventsOfAKernelClientComeFromItsWorkItem)
{
	Seen seen;
	xqp_srq *s = srq(&seen, XQP_SRQT_BASIC, nullptr, nullptr, 0);
	for (int i = 0; i < 3; i++)
		EXPECT_EQ(xqp_soft_raise_srq_event(soft_, xqp_srq_num(s), XQP_EVENT_SRQ_LIMIT_REACHED), 0);
	EXPECT_EQ(xqp_soft_raise_srq_event(soft_, xqp_srq_num(s), XQP_EVENT_SRQ_ERR), 0);
	xqp_work_flush_all();
	EXPECT_EQ(seen.calls.load(), 4);
	EXPECT_TRUE(seen.off_thread.load());
	EXPECT_EQ(seen.last.element.srq, s);
	EXPECT_EQ(xqp_destroy_srq(s), 0);
}

/*
 * A shared QP's event reaches each share once: the inline ones (uverbs')
 * before the raise returns, the others from the QP's work item; a share
 * closed before the event hears nothing. The box is made by the first
 * share that needs it (the creator here is inline), kept by the others.
 */
TEST_F(Events, SharesHearEachEventOnceInlineOrFromTheWorkItem)
{
	xqp_xrcd *x = xrcd();
	Seen creator, in1, def1, def2, closed;
	xqp_qp *c = create_tgt(x, record, &creator);
	u32 qpn = xqp_qp_num(c);
	auto open_deferred = [&](Seen *seen) {
		xqp_qp_open_attr oa = {};
		oa.qp_num = qpn;
		oa.qp_type = XQP_QPT_XRC_TGT;
		oa.event_handler = record;
		oa.qp_context = seen;
		return xqp_open_qp(x, &oa);
	};
	xqp_qp *i1 = open(x, qpn, record, &in1);
	xqp_qp *d1 = open_deferred(&def1);
	xqp_qp *d2 = open_deferred(&def2);
	xqp_qp *gone = open_deferred(&closed);
	ASSERT_FALSE(xqp_is_err(i1) || xqp_is_err(d1) || xqp_is_err(d2) || xqp_is_err(gone));
	EXPECT_EQ(xqp_close_qp(gone), 0);

	for (int i = 0; i < 3; i++)
		EXPECT_EQ(xqp_soft_raise_qp_event(soft_, qpn, XQP_EVENT_COMM_EST), 0);
	EXPECT_EQ(creator.calls.load(), 3);
	EXPECT_EQ(in1.calls.load(), 3);
	EXPECT_FALSE(creator.off_thread.load() || in1.off_thread.load());
	xqp_work_flush_all();
	EXPECT_EQ(def1.calls.load(), 3);
	EXPECT_EQ(def2.calls.load(), 3);
	EXPECT_TRUE(def1.off_thread.load() && def2.off_thread.load());
	EXPECT_EQ(def1.last.element.qp, d1);
	EXPECT_EQ(def2.last.element.qp, d2);
	EXPECT_EQ(closed.calls.load(), 0);
	EXPECT_EQ(creator.calls.load(), 3);	/* not again from the work item */

	/* closed: nothing more, from either path */
	EXPECT_EQ(xqp_close_qp(d1), 0);
	EXPECT_EQ(xqp_soft_raise_qp_event(soft_, qpn, XQP_EVENT_SQ_DRAINED), 0);
	xqp_work_flush_all();
	EXPECT_EQ(def1.calls.load(), 3);
	EXPECT_EQ(def2.calls.load(), 4);
	EXPECT_EQ(def2.last.event, XQP_EVENT_SQ_DRAINED);
	EXPECT_EQ(xqp_close_qp(d2), 0);
	EXPECT_EQ(xqp_close_qp(i1), 0);
	EXPECT_EQ(xqp_destroy_qp(c), 0);
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
}

/* Destroy waits out a delivery in progress and drops what is still owed. */
TEST_F(Events, DestroyDropsTheEventsOwed)
{
	Gate gate;
	xqp_cq *cq = xqp_create_cq(dev(), 8, Gate::on, &gate);
	ASSERT_FALSE(xqp_is_err(cq));
	EXPECT_EQ(xqp_soft_raise_cq_event(soft_, cq, XQP_EVENT_CQ_ERR), 0);
	while (!gate.in.load())
		std::this_thread::yield();
	EXPECT_EQ(xqp_soft_raise_cq_event(soft_, cq, XQP_EVENT_CQ_ERR), 0);	/* owed */
	EXPECT_TRUE(waits_for_handler(gate.release, [&] { EXPECT_EQ(xqp_destroy_cq(cq), 0); }));
	xqp_work_flush_all();
	EXPECT_EQ(gate.calls.load(), 1);
}

/*
 * A handler may destroy the object it is called for: its work item then
 * stops after that call, takes back the requeue a later raise made, and
 * frees the box (ASan and the fixture's count of allocations see the rest).
 */
TEST_F(Events, AHandlerMayDestroyItsOwnSrq)
{
	SrqKiller k;
	xqp_srq_init_attr sa = {};
	sa.srq_type = XQP_SRQT_BASIC;
	sa.attr.max_wr = 8;
	sa.event_handler = SrqKiller::on;
	sa.srq_context = &k;
	k.srq = xqp_create_srq(pd_, &sa);
	ASSERT_FALSE(xqp_is_err(k.srq));
	u32 num = xqp_srq_num(k.srq);
	EXPECT_EQ(xqp_soft_raise_srq_event(soft_, num, XQP_EVENT_SRQ_ERR), 0);
	while (!k.in.load())
		std::this_thread::yield();
	/* owed, and the work item queued again while it runs */
	EXPECT_EQ(xqp_soft_raise_srq_event(soft_, num, XQP_EVENT_SRQ_ERR), 0);
	k.go = true;
	wait_while(k.rc, 1);
	xqp_work_flush_all();
	EXPECT_EQ(k.rc.load(), 0);
	EXPECT_EQ(k.calls.load(), 1);
}

/* event_flags: XQP_EVENT_INLINE or nothing; anything else is -EINVAL, nothing made. */
TEST_F(Events, UnknownEventFlagsAreRefused)
{
	Seen seen;
	xqp_cq_init_attr ca = {};
	ca.cqe = 8;
	ca.event_handler = record;
	ca.event_flags = 0x2;
	EXPECT_EQ(xqp_ptr_err(xqp_create_cq_attr(dev(), &ca)), -XQP_EINVAL);

	xqp_srq_init_attr sa = {};
	sa.attr.max_wr = 8;
	sa.event_flags = 0x80000000u;
	EXPECT_EQ(xqp_ptr_err(xqp_create_srq(pd_, &sa)), -XQP_EINVAL);

	xqp_xrcd *x = xrcd();
	xqp_qp_init_attr init = {};
	init.qp_type = XQP_QPT_XRC_TGT;
	init.xrcd = x;
	init.event_flags = 0x3;
	EXPECT_EQ(xqp_ptr_err(xqp_create_qp_user(dev(), nullptr, &init, nullptr, nullptr, "test")),
		  -XQP_EINVAL);
	xqp_qp *c = create_tgt(x);
	xqp_qp_open_attr oa = {};
	oa.qp_num = xqp_qp_num(c);
	oa.qp_type = XQP_QPT_XRC_TGT;
	oa.event_flags = 0x4;
	EXPECT_EQ(xqp_ptr_err(xqp_open_qp(x, &oa)), -XQP_EINVAL);
	EXPECT_EQ(xqp_destroy_qp(c), 0);
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
}

/*
 * The first deferred share of a QP makes its box: each allocation of that
 * open failing is -ENOMEM with nothing left; a later open succeeds.
 */
TEST_F(Events, OpeningTheFirstDeferredShareWithoutMemoryLeavesNothing)
{
	xqp_xrcd *x = xrcd();
	xqp_qp *c = create_tgt(x);
	Seen seen;
	xqp_qp_open_attr oa = {};
	oa.qp_num = xqp_qp_num(c);
	oa.qp_type = XQP_QPT_XRC_TGT;
	oa.event_handler = record;
	oa.qp_context = &seen;
	long base = xqp_host_live_allocs();
	for (long n = 0; n < 2; n++) {
		xqp_host_fail_alloc_after(n);
		EXPECT_EQ(xqp_ptr_err(xqp_open_qp(x, &oa)), -XQP_ENOMEM) << n;
		xqp_host_fail_alloc_after(-1);
		EXPECT_EQ(xqp_host_live_allocs(), base) << n;
	}
	xqp_qp *h = xqp_open_qp(x, &oa);
	ASSERT_FALSE(xqp_is_err(h));
	EXPECT_EQ(xqp_host_live_allocs(), base + 2);	/* the share and the QP's box */
	EXPECT_EQ(xqp_close_qp(h), 0);
	EXPECT_EQ(xqp_destroy_qp(c), 0);
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
}
