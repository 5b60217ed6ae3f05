// SPDX-License-Identifier: GPL-2.0
/*
 * Async QP events. A shared QP's event goes to every share with a handler,
 * exactly once each, with element.qp set to that share: the raiser's walk
 * delivers to the shares opened with XQP_EVENT_INLINE, the QP's event box
 * (events.h) to the others, from its work item, by a walk of its own. A
 * walk reads the share list without the QP's lock, counted in the QP's
 * walks (so no share it may reach is freed under it: see QpShared); each
 * delivery holds only that share's state at DELIVERING (one compare-and-
 * swap, inline: no lock, no call into the seam), which a close during a
 * walk waits out before it sets CLOSED. So no handler runs after its close
 * has returned, opens and closes (of this QP too) go on while a handler
 * runs, and unrelated QPs never contend. IRQs are off for the whole walk:
 * nothing preempts a delivery a closer waits for.
 */
#include "objects.h"

using namespace xqp;

/* Runs @h's handler unless it is closed; waits out another walker's delivery to it. */
static void deliver(Share *h, xqp_event *ev)
{
	for (u32 cur = Share::OPEN; !h->state.cmpxchg(cur, Share::DELIVERING);
	     cur = Share::OPEN) {
		if (cur == Share::CLOSED)
			return;
		xqp_cpu_relax();
	}
	ev->element.qp = h->c();
	h->handler(ev, h->context);
	h->state.store(Share::OPEN);
}

/* One event to the shares of @real whose handlers @which walk runs. */
static void walk(RealQp *real, xqp_event_type type, Share::Walk which)
{
	xqp_event ev = {};
	Share *done = nullptr;

	ev.device = real->dev;
	ev.event = type;
	{
		/* one IRQ toggle for the walk, not one per share */
		IrqsOff irqs;
		real->shared.lock(irqs)->walks++;
		real->shared.rcu_view().shares.for_each([&](ListNode *n) {
			Share *h = Share::from_node(n);
			if (h->walk == which)
				deliver(h, &ev);
		});
		auto s = real->shared.lock(irqs);
		if (--s->walks == 0) {
			done = s->retired;
			s->retired = nullptr;
		}
	}
	while (done) {
		Share *next = done->next_retired;
		delete done;
		done = next;
	}
}

/* The creator's handler of a QP other than XRC_TGT. */
static void call_creator(RealQp *real, xqp_event_type type)
{
	xqp_event ev = {};

	ev.device = real->dev;
	ev.event = type;
	ev.element.qp = real->c();
	real->handler(&ev, real->context);
}

void xqp::deliver_qp_event(void *real, xqp_event_type type)
{
	RealQp *qp = static_cast<RealQp *>(real);

	if (qp->is_xrc_tgt())
		walk(qp, type, Share::Walk::box);
	else
		call_creator(qp, type);
}

/**
 * xqp_qp_event - report an async event on a real QP (driver side).
 *
 * Each handler runs here if registered with XQP_EVENT_INLINE, else from
 * the QP's work item.
 *
 * Context: any; handlers called here run in atomic context.
 */
extern "C" void xqp_qp_event(struct xqp_qp *core_qp, enum xqp_event_type type)
{
	RealQp *real = RealQp::from(core_qp);
	EventBox *box = real->events.get();

	if (!real->is_xrc_tgt()) {
		if (box)
			box->raise(type);
		else if (real->handler)
			call_creator(real, type);
		return;
	}
	walk(real, type, Share::Walk::raiser);
	if (box)
		box->raise(type);
}
