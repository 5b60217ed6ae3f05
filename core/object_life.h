/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one create/destroy sequence shared by the device-tracked objects (PD,
 * CQ, SRQ, XRCD): check the device, allocate the core object, ask the
 * driver, then take the device reference and track the object; destroy in
 * the reverse order, refusing with -EBUSY while the object is in use.
 */
#ifndef XQP_OBJECT_LIFE_H
#define XQP_OBJECT_LIFE_H

#include "objects.h"

namespace xqp {

/*
 * @op is the driver op @make calls; it is looked at only once the device is
 * known to be alive: after unregistration the ops table may be gone with
 * the driver's module. @make(obj) asks the driver and returns 0 or a
 * negative errno.
 */
template <typename T, typename Op, typename Make>
T *make_tracked(xqp_device *dev, Op xqp_device_ops::*op, RcuList xqp_device_objects::*list,
		Make make)
{
	if (!dev->alive())
		return err_ptr<T>(-XQP_EIO);
	if (!(dev->ops->*op))
		return err_ptr<T>(-XQP_EOPNOTSUPP);
	T *obj = new (Gfp::account()) T;
	if (!obj)
		return err_ptr<T>(-XQP_ENOMEM);
	obj->t.dev = dev;
	int ret = make(obj);
	if (ret) {
		delete obj;
		return err_ptr<T>(ret);
	}
	dev->get();
	dev->track(&obj->t.dev_node, list, &obj->t.res_id);
	return obj;
}

/* What must stop before an object is freed: the handler calls owed. */
inline void quiesce(void *) {}
inline void quiesce(xqp_srq *srq) { srq->events.retire(); }
inline void quiesce(xqp_cq *cq)
{
	cq->events.retire();
	xqp_work_cancel_sync(&cq->comp_work);
}

/* @unmake(drv) asks the driver; skipped once the device has detached it. */
template <typename T, typename Unmake> int unmake_tracked(T *obj, Unmake unmake)
{
	xqp_device *dev = obj->t.dev;

	if (obj->usecnt.load())
		return -XQP_EBUSY;
	if (obj->t.drv) {
		int ret = unmake(obj->t.drv);
		if (ret)
			return ret;
	}
	quiesce(obj);
	dev->untrack(&obj->t.dev_node);
	delete obj;
	dev->put();
	return 0;
}

inline void set_element(xqp_event &ev, xqp_cq *cq) { ev.element.cq = cq; }
inline void set_element(xqp_event &ev, xqp_srq *srq) { ev.element.srq = srq; }

/*
 * One event of @type to @obj's (a CQ's or an SRQ's) handler, as Linux
 * drivers call ib_cq/ib_srq->event_handler. These templates are static:
 * an address taken (deliver_event) or a copy not inlined must not become
 * a COMDAT group in the module (scripts/gates).
 */
template <typename T> static void call_handler(T *obj, xqp_event_type type)
{
	xqp_event ev = {};

	ev.device = obj->t.dev;
	ev.event = type;
	set_element(ev, obj);
	obj->handler(&ev, obj->context);
}

template <typename T> static void deliver_event(void *obj, xqp_event_type type)
{
	call_handler(static_cast<T *>(obj), type);
}

/*
 * For make_tracked()'s make(), before the driver: checks @flags and gives a
 * handler without XQP_EVENT_INLINE its box. 0, -EINVAL or -ENOMEM.
 */
template <typename T> static int make_event_box(T *obj, u32 flags)
{
	if (!event_flags_valid(flags))
		return -XQP_EINVAL;
	if (!needs_event_box(obj->handler, flags))
		return 0;
	EventBox *box = EventBox::create(obj, deliver_event<T>);
	if (!box)
		return -XQP_ENOMEM;
	obj->events.set(box);
	return 0;
}

/* An async event of @obj (a CQ or an SRQ): now, or owed to its box. */
template <typename T> static void raise_event(T *obj, xqp_event_type type)
{
	if (!obj->handler)
		return;
	if (EventBox *box = obj->events.get()) {
		box->raise(type);
		return;
	}
	call_handler(obj, type);
}

} // namespace xqp

#endif
