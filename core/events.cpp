// SPDX-License-Identifier: GPL-2.0
/* Async events delivered from a work item of their object (events.h). */
#include "events.h"

namespace xqp {

EventBox *EventBox::create(void *obj, Deliver deliver)
{
	EventBox *box = new (Gfp::account()) EventBox;
	if (!box)
		return nullptr;
	box->deliver_ = deliver;
	box->obj_ = obj;
	xqp_work_init(&box->work_, run);
	return box;
}

void EventBox::raise(xqp_event_type type)
{
	if (XQP_WARN_ON(static_cast<u32>(type) >= kEventTypes))
		return;	/* a driver's bug: no such event */
	owed_[type].inc();
	xqp_work_queue(&work_, 0);
}

void EventBox::run(xqp_work *work)
{
	EventBox *box = reinterpret_cast<EventBox *>(reinterpret_cast<char *>(work) -
						      __builtin_offsetof(EventBox, work_));

	for (u32 type = 0; type < kEventTypes; type++) {
		for (u32 n = box->owed_[type].exchange(0); n; n--) {
			box->deliver_(box->obj_, static_cast<xqp_event_type>(type));
			if (box->orphaned_) {	/* the handler destroyed the object */
				xqp_work_cancel(&box->work_);	/* a raise's requeue */
				delete box;
				return;
			}
		}
	}
}

void EventBox::retire(EventBox *box)
{
	if (!box)
		return;
	if (xqp_work_is_current(&box->work_)) {
		box->orphaned_ = true;
		return;
	}
	xqp_might_sleep();
	xqp_work_cancel_sync(&box->work_);
	delete box;
}

} // namespace xqp
