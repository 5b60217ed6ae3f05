// SPDX-License-Identifier: GPL-2.0
/* Opening and closing handles on shared (XRC_TGT) QPs. */
#include "objects.h"

using namespace xqp;

/**
 * xqp_open_qp - open a handle on an XRC_TGT QP of @xrcd (ib_open_qp).
 * @xrcd: the XRC domain the QP was created in.
 * @open_attr: qp_num, qp_type (must be XRC_TGT), event handler and context.
 *
 * The lookup takes no lock: the table is read under RCU, then only the one
 * real QP's lock is taken to add the handle. A QP of another XRCD, or one
 * whose last handle is being destroyed, is not found.
 *
 * Return: a new handle, or ERR_PTR(-EINVAL: wrong type or no such QP in
 * this XRCD; -EIO: device removed; -ENOMEM).
 */
extern "C" struct xqp_qp *xqp_open_qp(struct xqp_xrcd *xrcd,
				      const struct xqp_qp_open_attr *open_attr)
{
	if (enum_int(&open_attr->qp_type) != XQP_QPT_XRC_TGT)
		return err_ptr<xqp_qp>(-XQP_EINVAL);
	if (!xrcd->dev->alive())
		return err_ptr<xqp_qp>(-XQP_EIO);

	Handle *h = Handle::create(nullptr, open_attr->event_handler,
				   open_attr->qp_context);
	if (!h)
		return err_ptr<xqp_qp>(-XQP_ENOMEM);

	bool found = false;
	{
		RcuReadGuard rcu;
		RealQp *real = xrcd->table.rcu_view().lookup(open_attr->qp_num);
		if (real) {
			auto s = real->shared.lock();
			if (s->life == Life::live) {
				h->real = real;
				h->link(*s);
				found = true;
			}
		}
	}
	if (!found) {
		delete h;	/* never published */
		return err_ptr<xqp_qp>(-XQP_EINVAL);
	}
	return h->c();
}

/**
 * xqp_close_qp - close a handle (ib_close_qp).
 *
 * Unlinks the handle and frees it. When this returns, the handle's event
 * handler is not running and will not be called again. The real QP is never
 * destroyed here, even when this was its last handle: like Linux, it stays in
 * its XRCD (openable again) until destroyed through a handle, the XRCD's
 * users are gone and the device goes away.
 *
 * Return: 0, or -EINVAL for a real QP.
 */
extern "C" int xqp_close_qp(struct xqp_qp *qp)
{
	if (!is_handle(qp))
		return -XQP_EINVAL;
	Handle *h = Handle::from(qp);
	h->unlink(*h->real->shared.lock());
	h->retire();
	return 0;
}
