/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Async events owed to a kernel client's handler. A handler registered
 * without XQP_EVENT_INLINE runs from a work item of its object, in process
 * context, never where the driver raised the event (a poster's context, a
 * receive softirq), as Linux drivers call theirs from a context of their
 * own: a handler may post, and destroy its own QP, without recursing into
 * or waiting on whoever raised the event. The box counts what is owed per
 * event type, so raising one never allocates and never loses one; its work
 * item delivers them, the types in enum order, each as often as raised.
 */
#ifndef XQP_EVENTS_H
#define XQP_EVENTS_H

#include "xqp/verbs.h"
#include "util/atomic.h"

namespace xqp {

constexpr u32 kEventTypes = XQP_EVENT_WQ_FATAL + 1;

class EventBox : public Allocated, Pinned {
public:
	/* Delivers one event of @type to @obj's handler(s); process context. */
	using Deliver = void (*)(void *obj, xqp_event_type type);

	/* A box for @obj, or null (no memory); @obj may be set later (bind). */
	static EventBox *create(void *obj, Deliver deliver);
	void bind(void *obj) { obj_ = obj; }
	/* Any context: one more of @type owed, delivered soon. */
	void raise(xqp_event_type type);
	/*
	 * Before @box's object goes (may sleep): no delivery runs once this
	 * returns, and what is still owed is dropped. From inside one of the
	 * box's own deliveries (a handler destroying its own object), the
	 * work item stops after that delivery and frees the box itself.
	 */
	static void retire(EventBox *box);

private:
	static void run(xqp_work *work);

	xqp_work work_;
	Deliver deliver_;
	void *obj_;
	bool orphaned_;		/* retired from inside run(): it frees the box */
	Atomic<u32> owed_[kEventTypes];
};

/* What an object with a handler holds: its box, when the handler is not inline. */
class OwnedEventBox : Pinned {
public:
	OwnedEventBox() = default;
	~OwnedEventBox() { retire(); }
	EventBox *get() const { return rcu_deref(box_); }
	/* Publishes @box (the object's lock held, or the object unpublished). */
	void set(EventBox *box) { rcu_assign(box_, box); }
	void retire()
	{
		EventBox::retire(box_);
		box_ = nullptr;
	}

private:
	EventBox *box_ = nullptr;
};

/* XQP_EVENT_INLINE or nothing: the only flag a handler's registration takes. */
inline bool event_flags_valid(u32 flags) { return !(flags & ~XQP_EVENT_INLINE); }
/* A handler registered with @flags runs from a work item: its object needs a box. */
inline bool needs_event_box(xqp_event_handler_t handler, u32 flags)
{
	return handler && !(flags & XQP_EVENT_INLINE);
}

} // namespace xqp

#endif
