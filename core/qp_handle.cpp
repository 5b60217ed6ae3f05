// SPDX-License-Identifier: GPL-2.0
/* Handles on shared QPs: creation, linking, retirement; real QP freeing. */
#include "objects.h"

namespace xqp {

Handle *Handle::create(RealQp *real, xqp_event_handler_t handler, void *context)
{
	Handle *h = new (Gfp::account()) Handle;
	if (!h)
		return nullptr;
	h->base.kind = xqp_qp::Kind::handle;
	h->real = real;
	h->handler = handler;
	h->context = context;
	*h->alive.lock() = true;
	return h;
}

void Handle::link(QpShared &s)
{
	s.handles.add_head(&node);
	s.handle_count++;
}

void Handle::unlink(QpShared &s)
{
	RcuList::del(&node);
	s.handle_count--;
}

static void free_handle_rcu(xqp_rcu_head *head)
{
	delete reinterpret_cast<Handle *>(reinterpret_cast<char *>(head) -
					  __builtin_offsetof(Handle, rcu));
}

void Handle::retire()
{
	/* Waits out a delivery in progress on this handle; none start after. */
	*alive.lock() = false;
	xqp_call_rcu(&rcu, free_handle_rcu);
}

static void free_real_qp_rcu(xqp_rcu_head *head)
{
	RealQp *qp = reinterpret_cast<RealQp *>(reinterpret_cast<char *>(head) -
						__builtin_offsetof(RealQp, rcu));
	xqp_device *dev = qp->dev;

	delete qp;
	dev->put();
}

void RealQp::free_after_grace()
{
	xqp_call_rcu(&rcu, free_real_qp_rcu);
}

} // namespace xqp
