// SPDX-License-Identifier: GPL-2.0
/* Opening and closing shares of shared (XRC_TGT) QPs. */
#include "objects.h"

using namespace xqp;

/**
 * xqp_open_qp - open a share of an XRC_TGT QP of @xrcd (ib_open_qp).
 * @xrcd: the XRC domain the QP was created in.
 * @open_attr: qp_num, qp_type (must be XRC_TGT), event handler, context and
 *	       event_flags (XQP_EVENT_INLINE).
 *
 * The lookup takes no lock: the table is read under RCU, then only the one
 * real QP's lock is taken to add the share. A QP of another XRCD, or one
 * whose last share is being destroyed, is not found.
 *
 * Return: a new share, or ERR_PTR(-EINVAL: wrong type, unknown event_flags
 * or no such QP in this XRCD; -EIO: device removed; -ENOMEM).
 */
enum class Link { linked, not_found, needs_box };

/*
 * Links @h into the live QP @qpn of @xrcd. A share whose handler is not
 * inline needs the QP's event box: @spare becomes it if the QP has none
 * (then null); without a spare that is needs_box, nothing done.
 */
static Link link_share(xqp_xrcd *xrcd, u32 qpn, Share *h, EventBox *&spare)
{
	RcuReadGuard rcu;
	RealQp *real = xrcd->table.rcu_view().lookup(qpn);
	if (!real)
		return Link::not_found;
	auto s = real->shared.lock();
	if (s->life != Life::live)
		return Link::not_found;
	if (h->walk == Share::Walk::box && !real->events.get()) {
		if (!spare)
			return Link::needs_box;
		spare->bind(real);
		real->events.set(spare);
		spare = nullptr;
	}
	h->real = real;
	h->link(*s);
	return Link::linked;
}

extern "C" struct xqp_qp *xqp_open_qp(struct xqp_xrcd *xrcd,
				      const struct xqp_qp_open_attr *open_attr)
{
	if (enum_int(&open_attr->qp_type) != XQP_QPT_XRC_TGT ||
	    !event_flags_valid(open_attr->event_flags))
		return err_ptr<xqp_qp>(-XQP_EINVAL);
	if (!xrcd->t.dev->alive())
		return err_ptr<xqp_qp>(-XQP_EIO);

	Share *h = Share::create(nullptr, open_attr->event_handler,
				   open_attr->qp_context, open_attr->event_flags);
	if (!h)
		return err_ptr<xqp_qp>(-XQP_ENOMEM);
	EventBox *spare = nullptr;
	Link l = link_share(xrcd, open_attr->qp_num, h, spare);
	if (l == Link::needs_box) {
		/* the QP's first deferred share: made here, where we may sleep */
		spare = EventBox::create(nullptr, deliver_qp_event);
		l = spare ? link_share(xrcd, open_attr->qp_num, h, spare) : Link::needs_box;
		EventBox::retire(spare);	/* not needed after all: never raised */
	}
	if (l != Link::linked) {
		delete h;	/* never published */
		return err_ptr<xqp_qp>(l == Link::needs_box ? -XQP_ENOMEM : -XQP_EINVAL);
	}
	return h->c();
}

/*
 * Closes @h when its device is gone: the real QP was detached from the
 * driver at unregistration (qp->drv cleared under the XRCD's mutex) and
 * nobody can open it any more, so its last share, closed or destroyed,
 * takes it out of its XRCD and frees it, as unregistration itself reclaims
 * a QP whose shares were all closed before. The XRCD's mutex is taken
 * first, as the lock order wants (XRCD mutex, then the QP's lock).
 */
static void close_detached(Share *h)
{
	RealQp *real = h->real;
	xqp_xrcd *xrcd = real->xrcd;
	Share *gone;
	bool last;

	xqp_might_sleep();
	{
		auto table = xrcd->table.lock();
		auto s = real->shared.lock();
		gone = h->unlink(*s);
		last = s->share_count == 0 && !real->drv && s->life == Life::live;
		if (last) {
			s->life = Life::dying;
			table->erase(real->qp_num, real);
		}
	}
	delete gone;
	if (last) {
		xrcd->usecnt.dec();
		real->free_after_grace();
	}
}

/**
 * xqp_close_qp - close a share (ib_close_qp).
 *
 * Unlinks the share and frees it. When this returns, the share's event
 * handler is not running and will not be called again. The real QP is never
 * destroyed here, even when this was its last share: like Linux, it stays in
 * its XRCD (openable again) until destroyed through a share, the XRCD's
 * users are gone and the device goes away. Once the device is gone (after
 * xqp_unregister_device()) nothing can open it again, and its last share
 * frees it, whether closed or destroyed.
 *
 * Context: any on a live device; may sleep once the device is gone (the
 * XRCD's mutex is taken then).
 * Return: 0, or -EINVAL for a real QP.
 */
extern "C" int xqp_close_qp(struct xqp_qp *qp)
{
	if (!is_share(qp))
		return -XQP_EINVAL;
	Share *h = Share::from(qp);
	if (!h->real->dev->alive()) {
		close_detached(h);
		return 0;
	}
	Share *gone = h->unlink(*h->real->shared.lock());
	delete gone;
	return 0;
}
