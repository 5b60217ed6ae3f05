// SPDX-License-Identifier: GPL-2.0
/*
 * Async QP events. A shared QP's event goes to every share with a handler,
 * exactly once each, with element.qp set to that share. The walk reads the
 * share list without the QP's lock, counted in the QP's walks (so no share
 * it may reach is freed under it: see QpShared); each delivery holds only
 * that share's state at DELIVERING (one compare-and-swap, inline: no lock,
 * no call into the seam), which a close during a walk waits out before it
 * sets CLOSED. So no handler runs after its close has returned, opens and
 * closes (of this QP too) go on while a handler runs, and unrelated QPs
 * never contend. IRQs are off for the whole walk (handlers run in atomic
 * context anyway): nothing preempts a delivery a closer waits for.
 */
#include "objects.h"

using namespace xqp;

/* Runs @h's handler unless it is closed; waits out another walker's delivery to it. */
static void deliver(Share *h, xqp_event *ev)
{
	if (!h->handler)
		return;
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

/**
 * xqp_qp_event - report an async event on a real QP (driver side).
 * Context: any; handlers run in atomic context.
 */
extern "C" void xqp_qp_event(struct xqp_qp *core_qp, enum xqp_event_type type)
{
	RealQp *real = RealQp::from(core_qp);
	xqp_event ev = {};

	ev.device = real->dev;
	ev.event = type;
	if (!real->is_xrc_tgt()) {
		if (real->handler) {
			ev.element.qp = real->c();
			real->handler(&ev, real->context);
		}
		return;
	}
	Share *done = nullptr;
	{
		/* one IRQ toggle for the walk, not one per share */
		IrqsOff irqs;
		real->shared.lock(irqs)->walks++;
		real->shared.rcu_view().shares.for_each(
			[&](ListNode *n) { deliver(Share::from_node(n), &ev); });
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
