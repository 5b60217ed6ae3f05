// SPDX-License-Identifier: GPL-2.0
/*
 * CQ and SRQ async events: xqp_cq_event() / xqp_srq_event() call the handler
 * registered at create, once, with element.cq / element.srq set (as Linux's
 * ib_cq->event_handler / ib_srq->event_handler); the soft device's raise
 * hooks never reach an object whose destroy has returned.
 */
#include <atomic>
#include <thread>

#include "fixture.h"

namespace {

struct Seen {
	std::atomic<int> calls{0};
	std::atomic<bool> destroyed{false};
	std::atomic<int> after_destroy{0};
	xqp_event last = {};
	void *context = nullptr;
};

void record(xqp_event *ev, void *context)
{
	Seen *s = static_cast<Seen *>(context);

	if (s->destroyed.load())
		s->after_destroy++;
	s->last = *ev;
	s->context = context;
	s->calls++;
}

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
		     xqp_cq *cq = nullptr)
	{
		xqp_srq_init_attr sa = {};
		sa.srq_type = type;
		sa.attr.max_wr = 8;
		sa.xrcd = x;
		sa.cq = cq;
		sa.event_handler = seen ? record : nullptr;
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
	EXPECT_EQ(seen.calls.load(), 1);
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
