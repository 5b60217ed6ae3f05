// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: CQ and SRQ async events in the kernel. The soft device raises them
 * from atomic context (IRQs off, as a device's interrupt handler would); the
 * core calls the handler registered at create once, with element.cq /
 * element.srq set: there with XQP_EVENT_INLINE, else from a work item of
 * the object (process context, IRQs on); nothing reaches an object once its
 * destroy has returned.
 */
#include <kunit/test.h>
#include <linux/irqflags.h>
#include <linux/preempt.h>

#include "suite.h"
#include "xqp_test.h"
#include "xqp/seam.h"

struct ev_seen {
	int calls;
	int atomic;		/* calls made with IRQs off */
	void *element;
	enum xqp_event_type type;
	struct xqp_device *device;
};

static void cq_handler(struct xqp_event *ev, void *ctx)
{
	struct ev_seen *s = ctx;

	s->calls++;
	s->atomic += irqs_disabled();
	s->element = ev->element.cq;
	s->type = ev->event;
	s->device = ev->device;
}

static void srq_handler(struct xqp_event *ev, void *ctx)
{
	struct ev_seen *s = ctx;

	s->calls++;
	s->atomic += irqs_disabled();
	s->element = ev->element.srq;
	s->type = ev->event;
	s->device = ev->device;
}

static void cq_event_reaches_handler(struct kunit *test)
{
	struct xqp_kt *kt = xqp_kt(test);
	struct ev_seen seen = {};
	struct xqp_cq *cq = xqp_create_cq(kt->dev, 8, cq_handler, &seen);
	unsigned long flags;
	int ret;

	KUNIT_ASSERT_FALSE(test, IS_ERR(cq));
	local_irq_save(flags);
	ret = xqp_soft_raise_cq_event(kt->soft, cq, XQP_EVENT_CQ_ERR);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, ret, 0);
	xqp_work_flush_all();	/* a kernel client's: from the CQ's work item */
	KUNIT_EXPECT_EQ(test, seen.calls, 1);
	KUNIT_EXPECT_EQ(test, seen.atomic, 0);
	KUNIT_EXPECT_PTR_EQ(test, seen.element, (void *)cq);
	KUNIT_EXPECT_EQ(test, seen.type, XQP_EVENT_CQ_ERR);
	KUNIT_EXPECT_PTR_EQ(test, seen.device, kt->dev);

	KUNIT_EXPECT_EQ(test, xqp_destroy_cq(cq), 0);
	KUNIT_EXPECT_EQ(test, xqp_soft_raise_cq_event(kt->soft, cq, XQP_EVENT_CQ_ERR),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, seen.calls, 1);
}

static void srq_events_reach_handler(struct kunit *test)
{
	struct xqp_kt *kt = xqp_kt(test);
	struct ev_seen seen = {};
	struct xqp_pd *pd = xqp_alloc_pd(kt->dev);
	struct xqp_cq *cq = xqp_create_cq(kt->dev, 4, NULL, NULL);
	struct xqp_xrcd *xrcd = xqp_alloc_xrcd(kt->dev);
	struct xqp_srq_init_attr sa = {
		.event_handler = srq_handler,
		.srq_context = &seen,
		.event_flags = XQP_EVENT_INLINE,
		.attr = { .max_wr = 4, .max_sge = 1 },
		.srq_type = XQP_SRQT_XRC,
		.cq = cq,
		.xrcd = xrcd,
	};
	struct xqp_srq *srq;
	unsigned long flags;
	u32 num;
	int ret;

	KUNIT_ASSERT_FALSE(test, IS_ERR(pd) || IS_ERR(cq) || IS_ERR(xrcd));
	srq = xqp_create_srq(pd, &sa);
	KUNIT_ASSERT_FALSE(test, IS_ERR(srq));
	num = xqp_srq_num(srq);

	local_irq_save(flags);
	ret = xqp_soft_raise_srq_event(kt->soft, num, XQP_EVENT_SRQ_LIMIT_REACHED);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, ret, 0);
	KUNIT_EXPECT_EQ(test, seen.calls, 1);
	KUNIT_EXPECT_EQ(test, seen.atomic, 1);
	KUNIT_EXPECT_PTR_EQ(test, seen.element, (void *)srq);
	KUNIT_EXPECT_EQ(test, seen.type, XQP_EVENT_SRQ_LIMIT_REACHED);
	KUNIT_EXPECT_PTR_EQ(test, seen.device, kt->dev);
	KUNIT_EXPECT_EQ(test, xqp_soft_raise_srq_event(kt->soft, num, XQP_EVENT_SRQ_ERR), 0);
	KUNIT_EXPECT_EQ(test, seen.calls, 2);
	KUNIT_EXPECT_EQ(test, seen.type, XQP_EVENT_SRQ_ERR);

	KUNIT_EXPECT_EQ(test, xqp_destroy_srq(srq), 0);
	KUNIT_EXPECT_EQ(test, xqp_soft_raise_srq_event(kt->soft, num, XQP_EVENT_SRQ_ERR),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, seen.calls, 2);
	KUNIT_EXPECT_EQ(test, xqp_dealloc_xrcd(xrcd), 0);
	KUNIT_EXPECT_EQ(test, xqp_destroy_cq(cq), 0);
	KUNIT_EXPECT_EQ(test, xqp_dealloc_pd(pd), 0);
}

/* No handler registered: the event is dropped, as ib_core does. */
static void events_without_handler(struct kunit *test)
{
	struct xqp_kt *kt = xqp_kt(test);
	struct xqp_pd *pd = xqp_alloc_pd(kt->dev);
	struct xqp_cq *cq = xqp_create_cq(kt->dev, 4, NULL, NULL);
	struct xqp_srq_init_attr sa = {
		.attr = { .max_wr = 4, .max_sge = 1 },
		.srq_type = XQP_SRQT_BASIC,
	};
	struct xqp_srq *srq;

	KUNIT_ASSERT_FALSE(test, IS_ERR(pd) || IS_ERR(cq));
	srq = xqp_create_srq(pd, &sa);
	KUNIT_ASSERT_FALSE(test, IS_ERR(srq));
	KUNIT_EXPECT_EQ(test, xqp_soft_raise_cq_event(kt->soft, cq, XQP_EVENT_CQ_ERR), 0);
	KUNIT_EXPECT_EQ(test, xqp_soft_raise_srq_event(kt->soft, xqp_srq_num(srq),
						       XQP_EVENT_SRQ_ERR), 0);
	KUNIT_EXPECT_EQ(test, xqp_destroy_srq(srq), 0);
	KUNIT_EXPECT_EQ(test, xqp_destroy_cq(cq), 0);
	KUNIT_EXPECT_EQ(test, xqp_dealloc_pd(pd), 0);
}

XQP_KUNIT_SUITE(xqp_events_suite, "xqp_cq_srq_events", XQP_KT_FIXTURE,
		KUNIT_CASE(cq_event_reaches_handler),
		KUNIT_CASE(srq_events_reach_handler),
		KUNIT_CASE(events_without_handler));
