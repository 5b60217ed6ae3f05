// SPDX-License-Identifier: GPL-2.0
/* Destroying QPs: ordinary ones, shares, and the last share of a shared QP. */
#include "objects.h"

using namespace xqp;

/* Driver destroy; a QP detached by device removal has nothing left there. */
static int driver_destroy(RealQp *qp)
{
	return qp->drv ? qp->dev->ops->destroy_qp(qp->dev->drv, qp->drv) : 0;
}

/*
 * Takes a dying XRC_TGT real QP out of its XRCD and the driver. On a driver
 * failure it goes back into the table (the slot is still free: the driver
 * still owns the number) and the caller makes it live again.
 */
static int destroy_xrc_tgt(RealQp *real)
{
	xqp_xrcd *xrcd = real->xrcd;

	xrcd->table.lock()->erase(real->qp_num, real);
	int ret = driver_destroy(real);
	if (ret) {
		XQP_WARN_ON(xrcd->table.lock()->insert(real->qp_num, real));
		return ret;
	}
	xrcd->usecnt.dec();
	return 0;	/* the caller frees it once nothing points at it */
}

RealQp *xqp::first_stray(xqp_device_objects &objs, xqp_xrcd *xrcd)
{
	RealQp *first = nullptr;

	objs.strays.for_each([&](ListNode *n) {
		RealQp *qp = from_dev_node<RealQp>(n);
		if (!first && (!xrcd || qp->xrcd == xrcd))
			first = qp;
	});
	return first;
}

/*
 * The strays of @xrcd (see destroy_unpublished() in qp_create.cpp): each is
 * taken off the device's list, destroyed in the driver without a lock held,
 * and freed; one the driver refuses again goes back, and its error is
 * returned.
 */
int xqp::reap_strays(xqp_xrcd *xrcd)
{
	xqp_device *dev = xrcd->t.dev;

	for (;;) {
		RealQp *qp;
		{
			auto objs = dev->objects.lock();
			qp = first_stray(*objs, xrcd);
			if (!qp)
				return 0;
			RcuList::del(&qp->dev_node);
			objs->count--;
		}
		int ret = driver_destroy(qp);
		if (ret) {
			dev->track(&qp->dev_node, &xqp_device_objects::strays);
			return ret;
		}
		qp->free_after_grace();
	}
}

/* Marks a share-less @real dying; false while it has shares. */
static bool claim_orphan(RealQp *real)
{
	auto s = real->shared.lock();
	if (s->share_count != 0 || s->life != Life::live)
		return false;
	s->life = Life::dying;
	return true;
}

static void revive(RealQp *real)
{
	real->shared.lock()->life = Life::live;
}

/*
 * A share: if other shares remain it is just closed. The last one takes
 * the real QP with it; if the driver refuses, the share and the QP stay
 * exactly as they were, linked and openable (Linux loses both). Deciding
 * "last" and unlinking happen under one hold of the QP's lock, so two
 * shares destroyed at once cannot both think the other one is last.
 */
static int destroy_share(Share *h)
{
	RealQp *real = h->real;
	Share *gone = nullptr;
	bool last;

	{
		auto s = real->shared.lock();
		last = s->share_count == 1;
		if (last)
			s->life = Life::dying;	/* openers now miss it */
		else
			gone = h->unlink(*s);
	}
	if (last) {
		int ret = destroy_xrc_tgt(real);
		if (ret) {
			revive(real);
			return ret;
		}
		/* the driver reports no event for it any more: no walk is left */
		gone = h->unlink(*real->shared.lock());
		real->free_after_grace();
	}
	delete gone;
	return 0;
}

static int destroy_real(RealQp *qp)
{
	if (qp->is_xrc_tgt()) {
		/* Reachable only through xqp_qp_real(); busy while shares exist. */
		if (!claim_orphan(qp))
			return -XQP_EBUSY;
		int ret = destroy_xrc_tgt(qp);
		if (ret) {
			revive(qp);
			return ret;
		}
		qp->free_after_grace();
		return 0;
	}
	if (qp->drv && qp->mcast.load())
		return -XQP_EBUSY;	/* attached (a removed device detached it) */
	int ret = driver_destroy(qp);
	if (ret)
		return ret;
	qp_uses_put(qp);
	qp->dev->untrack(&qp->dev_node);
	qp->free_after_grace();
	return 0;
}

/**
 * xqp_destroy_qp - destroy a QP or a share (ib_destroy_qp_user).
 *
 * On a share: closes it; when it was the real QP's last share, the real QP
 * is removed from its XRCD, destroyed in the driver and xrcd->usecnt drops.
 * Whoever created the QP, this returns 0 when the share is gone. If the
 * driver fails that last destroy, its error is returned and nothing changes.
 *
 * On a real QP: -EBUSY while it has shares or multicast attachments; else
 * destroyed.
 *
 * Return: 0, -EBUSY, or the driver's error (then the object is intact).
 */
extern "C" int xqp_destroy_qp(struct xqp_qp *qp)
{
	xqp_might_sleep();
	if (is_share(qp))
		return destroy_share(Share::from(qp));
	return destroy_real(RealQp::from(qp));
}
