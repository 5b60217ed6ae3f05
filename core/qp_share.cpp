// SPDX-License-Identifier: GPL-2.0
/* Handles on shared QPs: creation, linking, unlinking; real QP freeing. */
#include "objects.h"

/* The seam's object caches, by class (xqp/seam.h); constant data. */
extern "C" const xqp_size_t xqp_cache_sizes[XQP_CACHE_CLASSES] = {
	sizeof(xqp::Share),
};
static_assert(XQP_CACHE_CLASSES == 1, "a size for every cache class");

namespace xqp {

Share *Share::create(RealQp *real, xqp_event_handler_t handler, void *context,
		     u32 event_flags)
{
	Share *h = new (Gfp::account()) Share;
	if (!h)
		return nullptr;
	h->base.kind = xqp_qp::Kind::share;
	h->real = real;
	h->handler = handler;
	h->context = context;
	h->walk = !handler ? Walk::none :
		  event_flags & XQP_EVENT_INLINE ? Walk::raiser : Walk::box;
	return h;
}

void Share::link(QpShared &s)
{
	s.shares.add_head(&node);
	s.share_count++;
}

Share *Share::unlink(QpShared &s)
{
	RcuList::del(&node);
	s.share_count--;
	if (!s.walks)
		return this;	/* no walker can be on it, nor reach it */
	/* Waits out a delivery to it in progress; none starts after. */
	for (u32 cur = OPEN; !state.cmpxchg(cur, CLOSED); cur = OPEN)
		xqp_cpu_relax();
	next_retired = s.retired;
	s.retired = this;
	return nullptr;
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
	events.retire();
	xqp_call_rcu(&rcu, free_real_qp_rcu);
}

} // namespace xqp
