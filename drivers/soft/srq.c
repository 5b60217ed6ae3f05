// SPDX-License-Identifier: GPL-2.0
/*
 * xqp_soft: SRQs, ordinary and XRC: capability checks against the device
 * limits, granted sizes, destroy that waits out remote requesters (the
 * receive ring itself is wq.c).
 */
#include "soft_priv.h"


static int soft_check_srq(struct xqp_soft *soft, void *drv_pd, void *drv_xrcd,
			  void *drv_cq, const struct xqp_srq_init_attr *init)
{
	const struct xqp_srq_attr *attr = &init->attr;

	switch (init->srq_type) {
	case XQP_SRQT_BASIC:
		break;
	case XQP_SRQT_XRC:
		if (!drv_xrcd || !drv_cq)
			return -XQP_EINVAL;
		if (!soft_owns(soft, drv_xrcd) || !soft_owns(soft, drv_cq))
			return -XQP_EINVAL;
		break;
	default:
		return -XQP_EINVAL;
	}
	if (!drv_pd || !soft_owns(soft, drv_pd))
		return -XQP_EINVAL;
	if (!xqp_rules_srq_ok(&soft->lim, attr->max_wr, attr->max_sge))
		return -XQP_EINVAL;
	return 0;
}

int soft_create_srq(void *drv, void *drv_pd, void *drv_xrcd,
		    void *drv_cq, struct xqp_srq_init_attr *init,
		    void **drv_srq, xqp_u32 *srq_num,
		    struct xqp_srq *core_srq)
{
	struct xqp_soft *soft = drv;
	struct soft_srq *srq;
	xqp_u32 num;
	int err;

	err = soft_enter(soft, XQP_SOFT_OP_CREATE_SRQ);
	if (err)
		return err;
	err = soft_check_srq(soft, drv_pd, drv_xrcd, drv_cq, init);
	if (err)
		return err;

	srq = xqp_zalloc(sizeof(*srq), XQP_GFP_KERNEL_ACCOUNT);
	if (!srq)
		return -XQP_ENOMEM;
	srq->obj.soft = soft;
	srq->core_srq = core_srq;
	srq->type = init->srq_type;
	srq->pd = drv_pd;
	if (init->srq_type == XQP_SRQT_XRC) {
		srq->xrcd = drv_xrcd;
		srq->cq = drv_cq;
	}
	soft_refs_init(&srq->refs);
	srq->attr = init->attr;
	xqp_rules_grant_srq(&soft->lim, &srq->attr.max_wr, &srq->attr.max_sge);
	err = soft_srq_ring_init(srq);
	if (err)
		goto err_free;

	err = soft_numtab_insert(soft, &soft->srqns, &soft->counts.srq,
			      soft->lim.max_srq, srq, &num);
	if (err)
		goto err_free;
	srq->srq_num = num;

	init->attr = srq->attr;
	*drv_srq = srq;
	if (srq_num)
		*srq_num = num;
	return 0;

err_free:
	soft_ring_free(&srq->ring);
	xqp_free(srq);
	return err;
}

int soft_destroy_srq(void *drv, void *drv_srq)
{
	struct xqp_soft *soft = drv;
	struct soft_srq *srq = drv_srq;
	int err;

	err = soft_enter_obj(soft, XQP_SOFT_OP_DESTROY_SRQ, srq);
	if (err)
		return err;
	/* Unreachable by number; then wait out events already on their way. */
	soft_numtab_delete(soft, &soft->srqns, &soft->counts.srq, srq->srq_num);
	soft_refs_drain(&srq->refs);
	soft_ring_free(&srq->ring);
	xqp_free(srq);
	return 0;
}
