// SPDX-License-Identifier: GPL-2.0
/*
 * xqp_soft: the objects without numbers, PD, CQ and XRCD: create and destroy
 * against the device's limits (the CQ's data path is cq.c).
 */
#include "soft_priv.h"

/*
 * A counted object that is nothing more (PD, XRCD): @op's entry, then one
 * of @count, at most @max.
 */
static int soft_plain_new(struct xqp_soft *soft, enum xqp_soft_op op, xqp_u32 *count,
			  xqp_u32 max, void **out)
{
	struct soft_obj *obj;
	int err = soft_enter(soft, op);

	if (err)
		return err;
	obj = soft_obj_new(soft, sizeof(*obj), count, max);
	if (xqp_is_err(obj))
		return (int)xqp_ptr_err(obj);
	*out = obj;
	return 0;
}

static int soft_plain_del(struct xqp_soft *soft, enum xqp_soft_op op, void *obj, xqp_u32 *count)
{
	int err = soft_enter_obj(soft, op, obj);

	if (err)
		return err;
	soft_obj_del(soft, obj, count);
	return 0;
}

int soft_alloc_pd(void *drv, void **drv_pd)
{
	struct xqp_soft *soft = drv;

	return soft_plain_new(soft, XQP_SOFT_OP_ALLOC_PD, &soft->counts.pd, soft->lim.max_pd,
			      drv_pd);
}

int soft_dealloc_pd(void *drv, void *drv_pd)
{
	struct xqp_soft *soft = drv;

	return soft_plain_del(soft, XQP_SOFT_OP_DEALLOC_PD, drv_pd, &soft->counts.pd);
}

/* ---- CQ ----------------------------------------------------------------- */

/* A ring of 2^k - 1 >= @cqe entries (up to max_cqe), as rxe_cq_from_init(). */
int soft_create_cq(void *drv, int cqe, void **drv_cq, int *granted_cqe,
		   struct xqp_cq *core_cq)
{
	struct xqp_soft *soft = drv;
	struct soft_cq *cq;
	unsigned long flags;
	int err;

	err = soft_enter(soft, XQP_SOFT_OP_CREATE_CQ);
	if (err)
		return err;
	if (!xqp_rules_cqe_ok(&soft->lim, cqe))
		return -XQP_EINVAL;
	cq = soft_obj_new(soft, sizeof(*cq), &soft->counts.cq, soft->lim.max_cq);
	if (xqp_is_err(cq))
		return (int)xqp_ptr_err(cq);
	err = soft_cq_init(cq, (int)xqp_rules_grant_wr((xqp_u32)cqe, soft->lim.max_cqe));
	if (err) {
		soft_obj_del(soft, cq, &soft->counts.cq);
		return err;
	}
	cq->core_cq = core_cq;
	flags = xqp_spin_lock_irqsave(&soft->lock);
	cq->next = soft->cqs;
	if (cq->next)
		cq->next->pprev = &cq->next;
	cq->pprev = &soft->cqs;
	soft->cqs = cq;
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
	*drv_cq = cq;
	*granted_cqe = cq->cqe;
	return 0;
}

int soft_destroy_cq(void *drv, void *drv_cq)
{
	struct xqp_soft *soft = drv;
	struct soft_cq *cq = drv_cq;
	unsigned long flags;
	int err;

	err = soft_enter_obj(soft, XQP_SOFT_OP_DESTROY_CQ, drv_cq);
	if (err)
		return err;
	/* Unreachable for raise_cq_event; then wait out events on their way. */
	flags = xqp_spin_lock_irqsave(&soft->lock);
	*cq->pprev = cq->next;
	if (cq->next)
		cq->next->pprev = cq->pprev;
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
	soft_refs_drain(&cq->refs);
	soft_cq_fini(cq);
	soft_obj_del(soft, drv_cq, &soft->counts.cq);
	return 0;
}

/* ---- XRCD --------------------------------------------------------------- */

int soft_alloc_xrcd(void *drv, void **drv_xrcd)
{
	struct xqp_soft *soft = drv;

	return soft_plain_new(soft, XQP_SOFT_OP_ALLOC_XRCD, &soft->counts.xrcd, soft->lim.max_xrcd,
			      drv_xrcd);
}

int soft_dealloc_xrcd(void *drv, void *drv_xrcd)
{
	struct xqp_soft *soft = drv;

	return soft_plain_del(soft, XQP_SOFT_OP_DEALLOC_XRCD, drv_xrcd, &soft->counts.xrcd);
}
