// SPDX-License-Identifier: GPL-2.0
/*
 * Async QP events. A shared QP's event goes to every handle with a handler,
 * exactly once each, with element.qp set to that handle. The walk is under
 * RCU; each delivery holds only that handle's lock, which close takes to
 * retire the handle, so no handler runs after its close has returned and
 * unrelated QPs never contend.
 */
#include "objects.h"

using namespace xqp;

static void deliver(Handle *h, xqp_event *ev)
{
	auto alive = h->alive.lock();
	if (*alive && h->handler) {
		ev->element.qp = h->c();
		h->handler(ev, h->context);
	}
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
	RcuReadGuard rcu;
	real->shared.rcu_view().handles.for_each(
		[&](ListNode *n) { deliver(Handle::from_node(n), &ev); });
}
