// SPDX-License-Identifier: GPL-2.0
/* QP creation: ordinary QPs, and XRC_TGT QPs published in their XRCD. */
#include "objects.h"

using namespace xqp;

/* The objects an ordinary QP uses (ib_qp_usecnt_inc/dec). */
static void qp_uses(RealQp *qp, bool get)
{
	Atomic<u32> *counts[] = {qp->pd ? &qp->pd->usecnt : nullptr,
				 qp->send_cq ? &qp->send_cq->usecnt : nullptr,
				 qp->recv_cq ? &qp->recv_cq->usecnt : nullptr,
				 qp->srq ? &qp->srq->usecnt : nullptr};

	for (Atomic<u32> *c : counts)
		if (c)
			get ? c->inc() : c->dec();
}

void xqp::qp_uses_put(RealQp *qp)
{
	qp_uses(qp, false);
}

/* Reads the type as the integer a C caller may have stored (any value). */
static bool known_type(const xqp_qp_type *type)
{
	switch (enum_int(type)) {
	case XQP_QPT_GSI:
	case XQP_QPT_RC:
	case XQP_QPT_UC:
	case XQP_QPT_UD:
	case XQP_QPT_XRC_INI:
	case XQP_QPT_XRC_TGT:
		return true;
	}
	return false;
}

/*
 * The signalling type as the driver and queries see it: XQP_SIGNAL_ALL_WR,
 * or XQP_SIGNAL_REQ_WR for any other value a C caller stored (drivers test
 * for ALL_WR, as uverbs' sq_sig_all does).
 */
static xqp_sig_type sig_type(const xqp_sig_type *type)
{
	return enum_int(type) == XQP_SIGNAL_ALL_WR ? XQP_SIGNAL_ALL_WR : XQP_SIGNAL_REQ_WR;
}

/* Objects given with @attr must belong to @dev; XRC_TGT needs an XRCD. */
static int check_attr(xqp_device *dev, xqp_pd *pd, const xqp_qp_init_attr *attr)
{
	if (!known_type(&attr->qp_type) || !event_flags_valid(attr->event_flags))
		return -XQP_EINVAL;
	if (attr->qp_type == XQP_QPT_XRC_TGT)
		return attr->xrcd && attr->xrcd->t.dev == dev ? 0 : -XQP_EINVAL;
	if ((pd && pd->t.dev != dev) ||
	    (attr->send_cq && attr->send_cq->t.dev != dev) ||
	    (attr->recv_cq && attr->recv_cq->t.dev != dev) ||
	    (attr->srq && attr->srq->t.dev != dev))
		return -XQP_EINVAL;
	return 0;
}

/* Allocates the core object and asks the driver for the QP. */
static RealQp *create_real(xqp_device *dev, xqp_pd *pd, xqp_qp_init_attr *attr)
{
	bool tgt = attr->qp_type == XQP_QPT_XRC_TGT;
	RealQp *qp = new (Gfp::account()) RealQp;
	if (!qp)
		return err_ptr<RealQp>(-XQP_ENOMEM);

	qp->base.kind = xqp_qp::Kind::real;
	qp->dev = dev;
	qp->type = attr->qp_type;
	qp->sq_sig_type = sig_type(&attr->sq_sig_type);
	if (tgt) {
		qp->xrcd = attr->xrcd;	/* no PD, CQs or SRQ: Linux sets them NULL */
	} else {
		qp->pd = pd;
		qp->send_cq = attr->send_cq;
		qp->recv_cq = attr->recv_cq;
		qp->srq = attr->srq;
		qp->handler = attr->event_handler;
		qp->context = attr->qp_context;
	}
	/* the creator's handler, on its share for XRC_TGT, may need the box */
	if (needs_event_box(attr->event_handler, attr->event_flags)) {
		EventBox *box = EventBox::create(qp, deliver_qp_event);
		if (!box) {
			delete qp;
			return err_ptr<RealQp>(-XQP_ENOMEM);
		}
		qp->events.set(box);
	}

	xqp_drv_qp_create req = {};
	req.qp_type = attr->qp_type;
	req.cap = attr->cap;
	req.sq_sig_type = qp->sq_sig_type;
	req.create_flags = attr->create_flags;
	req.port_num = attr->port_num;
	req.pd = qp->pd ? qp->pd->t.drv : nullptr;
	req.send_cq = qp->send_cq ? qp->send_cq->t.drv : nullptr;
	req.recv_cq = qp->recv_cq ? qp->recv_cq->t.drv : nullptr;
	req.srq = qp->srq ? qp->srq->t.drv : nullptr;
	req.xrcd = tgt ? qp->xrcd->t.drv : nullptr;
	req.core_qp = qp->c();

	xqp_drv_qp_created out = {};
	int ret = dev->ops->create_qp(dev->drv, &req, &out);
	if (ret) {
		delete qp;
		return err_ptr<RealQp>(ret);
	}
	qp->drv = out.drv_qp;
	qp->qp_num = out.qp_num;
	attr->cap = out.cap;
	dev->get();
	return qp;
}

/*
 * Undoes create_real() on an XRC_TGT QP nobody else has seen. A driver may
 * refuse the destroy; it then still has the QP and may report events on it
 * with the core's cookie, so the core keeps the QP on the device's strays,
 * asked for again when the XRCD is deallocated (xqp::reap_strays()) or the
 * device goes. It is no user of its XRCD (not in usecnt): nobody can reach
 * it, and counting it would keep an inode's XRCD, whose last user's close
 * deallocates it only at usecnt 0, until the device goes.
 */
static void destroy_unpublished(RealQp *qp)
{
	xqp_device *dev = qp->dev;

	if (dev->ops->destroy_qp(dev->drv, qp->drv)) {
		dev->track(&qp->dev_node, &xqp_device_objects::strays);
		return;
	}
	delete qp;
	dev->put();
}

/*
 * Gives a new XRC_TGT real QP its creator's share and publishes it in the
 * XRCD table, last, so that openers never see it half made. On failure
 * nothing is left behind: not the share, not the usecnt (a Linux leak).
 */
static xqp_qp *publish_xrc_tgt(RealQp *real, xqp_qp_init_attr *attr, void *uobj)
{
	xqp_xrcd *xrcd = real->xrcd;
	Share *h = Share::create(real, attr->event_handler, attr->qp_context,
				 attr->event_flags);
	if (!h)
		return err_ptr<xqp_qp>(-XQP_ENOMEM);
	h->uobj = uobj;
	h->link(*real->shared.lock());
	xrcd->usecnt.inc();

	int ret = xrcd->table.lock()->insert(real->qp_num, real);
	if (ret) {
		xrcd->usecnt.dec();
		/* the driver may already be reporting events on it */
		Share *gone = h->unlink(*real->shared.lock());
		delete gone;
		return err_ptr<xqp_qp>(ret);
	}
	return h->c();
}

/**
 * xqp_create_qp_user - create a QP (ib_create_qp_user).
 * @dev: the device.
 * @pd: protection domain (ignored for XRC_TGT).
 * @attr: what to create; attr->cap is rewritten to the granted capabilities.
 *	  attr->sq_sig_type is kept on the real QP (xqp_query_qp() reports it);
 *	  a value other than XQP_SIGNAL_ALL_WR counts as XQP_SIGNAL_REQ_WR.
 * @udata: user buffers passed to the driver, or NULL.
 * @uobj: the caller's object for this QP (uverbs), kept on the result.
 * @caller: the kernel module creating it (for reports), or NULL from user.
 *
 * For XRC_TGT the real QP is owned by the core and published in
 * attr->xrcd; the returned pointer is the creator's share on it, one share
 * among equals. For other types the real QP is returned.
 *
 * Return: the QP or share, or ERR_PTR(-EINVAL, -EIO for a removed device,
 * -EOPNOTSUPP, -ENOMEM, the driver's error). Nothing is left on failure.
 */
extern "C" struct xqp_qp *xqp_create_qp_user(struct xqp_device *dev, struct xqp_pd *pd,
					     struct xqp_qp_init_attr *attr,
					     struct xqp_udata *udata, void *uobj,
					     const char *caller)
{
	(void)udata;	/* the soft device takes no private data */
	if (!dev->alive())
		return err_ptr<xqp_qp>(-XQP_EIO);
	int ret = check_attr(dev, pd, attr);
	if (ret)
		return err_ptr<xqp_qp>(ret);

	RealQp *qp = create_real(dev, pd, attr);
	if (xqp_is_err(qp))
		return reinterpret_cast<xqp_qp *>(qp);
	qp->caller = caller;

	if (qp->is_xrc_tgt()) {
		xqp_qp *h = publish_xrc_tgt(qp, attr, uobj);
		if (xqp_is_err(h))
			destroy_unpublished(qp);
		return h;
	}
	qp->uobj = uobj;
	qp_uses(qp, true);
	dev->track(&qp->dev_node, &xqp_device_objects::qps, &qp->res_id);
	return qp->c();
}
