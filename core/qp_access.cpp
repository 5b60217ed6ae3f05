// SPDX-License-Identifier: GPL-2.0
/* Accessors: what callers may read of a QP or share. */
#include "objects.h"

using namespace xqp;

/** xqp_qp_num - the QP number (24 bits); a share answers for its real QP. */
extern "C" xqp_u32 xqp_qp_num(const struct xqp_qp *qp)
{
	return real_of(const_cast<xqp_qp *>(qp))->qp_num;
}

/** xqp_qp_get_type - the QP type; XRC_TGT for a share. */
extern "C" enum xqp_qp_type xqp_qp_get_type(const struct xqp_qp *qp)
{
	return real_of(const_cast<xqp_qp *>(qp))->type;
}

/** xqp_qp_real - the real QP behind @qp (itself for a real QP), like ib_qp->real_qp. */
extern "C" struct xqp_qp *xqp_qp_real(struct xqp_qp *qp)
{
	return real_of(qp)->c();
}

/** xqp_qp_is_share - 1 if @qp is a share of a shared QP, 0 for a real QP. */
extern "C" int xqp_qp_is_share(const struct xqp_qp *qp)
{
	return is_share(qp);
}

/** xqp_qp_context - the context given at create/open for this share or QP. */
extern "C" void *xqp_qp_context(const struct xqp_qp *qp)
{
	return is_share(qp) ? Share::from(const_cast<xqp_qp *>(qp))->context
			     : RealQp::from(const_cast<xqp_qp *>(qp))->context;
}

/** xqp_qp_uobject - the caller object (uverbs) given at create for this share or QP. */
extern "C" void *xqp_qp_uobject(const struct xqp_qp *qp)
{
	return is_share(qp) ? Share::from(const_cast<xqp_qp *>(qp))->uobj
			     : RealQp::from(const_cast<xqp_qp *>(qp))->uobj;
}

/** xqp_qp_share_count - how many shares the real QP behind @qp has now. */
extern "C" xqp_u32 xqp_qp_share_count(const struct xqp_qp *qp)
{
	return real_of(const_cast<xqp_qp *>(qp))->shared.lock()->share_count;
}

/** xqp_qp_xrcd - the XRCD of an XRC_TGT QP or share; NULL otherwise. */
extern "C" struct xqp_xrcd *xqp_qp_xrcd(const struct xqp_qp *qp)
{
	return real_of(const_cast<xqp_qp *>(qp))->xrcd;
}

/** xqp_object_sizes - sizeof the core's share, real QP and XRCD (for reports). */
extern "C" void xqp_object_sizes(struct xqp_object_sizes *sizes)
{
	sizes->share = sizeof(Share);
	sizes->real_qp = sizeof(RealQp);
	sizes->xrcd = sizeof(xqp_xrcd);
}
