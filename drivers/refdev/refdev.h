/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xqp_refdev: a minimal XRC-capable ib_device registered with the kernel's
 * own ib_core, so that the scenarios xqp runs against its core can be run
 * against Linux's (the differential KUnit suite, tests/kunit/diff_*.c) and, through
 * /dev/infiniband/uverbsN, against Linux's uverbs (the userspace acceptance
 * suite).
 *
 * It keeps QP state and attributes the way drivers/soft does (the same
 * limits, checks and granted capabilities: both take them from
 * drivers/rules/; the IB transition table through ib_modify_qp_is_ok()), moves no data, and offers the same test hooks as the
 * soft device: live-object counts, one-shot fault injection per op, and async
 * QP events raised as hardware would raise them.
 *
 * The test API below is exported GPL-only. Kernel C, Linux types.
 */
#ifndef XQP_REFDEV_H
#define XQP_REFDEV_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>

#include "rules/limits.h"

struct xqp_refdev;

/* qp_num is 24 bits; 0 and 1 are the special QPs (SMI, GSI) and never used. */
#define XQP_REFDEV_QPN_FIRST	XQP_RULES_QPN_FIRST
#define XQP_REFDEV_QPN_LAST	XQP_RULES_NUM_MASK

/* Live driver objects of each kind. */
struct xqp_refdev_counts {
	u32 ucontext;
	u32 pd;
	u32 cq;
	u32 xrcd;
	u32 srq;
	u32 qp;
};

/* One per driver op that can be made to fail (xqp_soft_op's counterpart). */
enum xqp_refdev_op {
	XQP_REFDEV_OP_ALLOC_PD,
	XQP_REFDEV_OP_DEALLOC_PD,
	XQP_REFDEV_OP_CREATE_CQ,
	XQP_REFDEV_OP_DESTROY_CQ,
	XQP_REFDEV_OP_ALLOC_XRCD,
	XQP_REFDEV_OP_DEALLOC_XRCD,
	XQP_REFDEV_OP_CREATE_SRQ,
	XQP_REFDEV_OP_DESTROY_SRQ,
	XQP_REFDEV_OP_CREATE_QP,
	XQP_REFDEV_OP_MODIFY_QP,
	XQP_REFDEV_OP_QUERY_QP,
	XQP_REFDEV_OP_DESTROY_QP,
	XQP_REFDEV_OP_COUNT
};

/**
 * xqp_refdev_create - allocate and register a reference device "xqp_ref%d".
 *
 * Context: may sleep.
 * Return: the device, or ERR_PTR(-ENOMEM / the error of ib_register_device()).
 */
struct xqp_refdev *xqp_refdev_create(void);

/**
 * xqp_refdev_destroy - unregister and free a reference device.
 * @ref: the device; NULL and error pointers are ignored.
 *
 * Every kernel object made on it must be gone first (userspace ones are
 * released by ib_uverbs during unregistration). Objects still counted are
 * reported with pr_err (never WARN: a test that leaked should fail, not
 * taint the run) and the number of them is returned.
 *
 * Context: may sleep.
 * Return: the number of driver objects that were still alive.
 */
unsigned int xqp_refdev_destroy(struct xqp_refdev *ref);

/* The registered ib_device of @ref. */
struct ib_device *xqp_refdev_ibdev(struct xqp_refdev *ref);

/* A snapshot of the live driver objects of @ref. Context: any. */
void xqp_refdev_counts(struct xqp_refdev *ref, struct xqp_refdev_counts *counts);

/**
 * xqp_refdev_inject - make one future call of a driver op fail.
 * @ref: the device.
 * @op: which op.
 * @err: the negative errno the call returns; 0 disarms a pending injection.
 * @after: how many calls of @op succeed first; the (@after + 1)-th fails.
 *
 * One shot, like xqp_soft_inject(): the failing call changes nothing (a
 * failing destroy leaves its object intact) and later calls behave normally.
 * Note that ib_core WARNs when some kernel destroys fail (ib_dealloc_pd,
 * ib_destroy_cq): inject into those only through the *_user variants.
 *
 * Context: any.
 */
void xqp_refdev_inject(struct xqp_refdev *ref, enum xqp_refdev_op op, int err,
		       unsigned int after);

/* How many times @op has been called on @ref (failed calls included). */
u64 xqp_refdev_op_calls(struct xqp_refdev *ref, enum xqp_refdev_op op);

/**
 * xqp_refdev_raise_qp_event - report an async event on a QP, as hardware does.
 * @ref: the device.
 * @qp_num: the QP's number.
 * @type: the event.
 *
 * Calls the real QP's event_handler with an ib_event whose element.qp is the
 * real QP, as a driver does. For an XRC_TGT QP that handler is ib_core's
 * __ib_shared_qp_event_handler, which fans the event out to the open
 * handles. Runs under the device's QP table lock, so it never races with
 * the QP's destruction in the driver.
 *
 * Context: any; the handlers run in atomic context.
 * Return: 0, or -EINVAL if no QP of @ref has that number.
 */
int xqp_refdev_raise_qp_event(struct xqp_refdev *ref, u32 qp_num,
			      enum ib_event_type type);

/**
 * xqp_refdev_raise_srq_event - report an async event on an XRC SRQ.
 * @ref: the device.
 * @srq_num: the XRC SRQ's number (basic SRQs have none here).
 * @type: the event (IB_EVENT_SRQ_ERR, IB_EVENT_SRQ_LIMIT_REACHED).
 *
 * Calls ib_srq->event_handler with element.srq set, as a driver does, under
 * the device's SRQ table lock, so it never races with destroy_srq.
 *
 * Context: any; the handler runs in atomic context.
 * Return: 0, or -EINVAL if no XRC SRQ of @ref has that number.
 */
int xqp_refdev_raise_srq_event(struct xqp_refdev *ref, u32 srq_num,
			       enum ib_event_type type);

/**
 * xqp_refdev_raise_cq_event - report an async event on the send CQ of a QP.
 * @ref: the device.
 * @qp_num: the number of a QP whose send CQ gets the event (CQs have no
 *	    number userspace can learn).
 * @type: the event (IB_EVENT_CQ_ERR).
 *
 * Calls ib_cq->event_handler with element.cq set, as a driver does, under
 * the QP table lock: the QP holds the CQ, so it cannot be destroyed meanwhile.
 *
 * Context: any; the handler runs in atomic context.
 * Return: 0, or -EINVAL if no QP of @ref has that number or it has no send CQ.
 */
int xqp_refdev_raise_cq_event(struct xqp_refdev *ref, u32 qp_num,
			      enum ib_event_type type);

/**
 * xqp_refdev_raise_ibcq_event - report an async event on a CQ, as hardware does.
 * @ref: the device.
 * @cq: the CQ (any CQ of @ref, with or without QPs; a kernel caller's handle).
 * @type: the event (IB_EVENT_CQ_ERR).
 *
 * Looks @cq up among the live CQs of @ref (the pointer is only compared,
 * never followed, until found) and calls its event_handler, if any, with
 * element.cq set, under the lock destroy_cq takes to unlist it: a stale or
 * destroyed pointer gets -EINVAL, never a call (unless the memory was
 * reused for a new CQ of @ref, which then gets the event).
 *
 * Context: any; the handler runs in atomic context.
 * Return: 0, or -EINVAL if @cq is no live CQ of @ref.
 */
int xqp_refdev_raise_ibcq_event(struct xqp_refdev *ref, struct ib_cq *cq,
				enum ib_event_type type);

/**
 * xqp_refdev_raise_ibsrq_event - report an async event on any SRQ.
 * @ref: the device.
 * @srq: the SRQ, basic or XRC (basic SRQs have no number to raise it by).
 * @type: the event (IB_EVENT_SRQ_ERR, IB_EVENT_SRQ_LIMIT_REACHED).
 *
 * As xqp_refdev_raise_ibcq_event(), for SRQs: -EINVAL for a pointer that is
 * no live SRQ of @ref, else the event_handler, if any, with element.srq set.
 *
 * Context: any; the handler runs in atomic context.
 * Return: 0, or -EINVAL if @srq is no live SRQ of @ref.
 */
int xqp_refdev_raise_ibsrq_event(struct xqp_refdev *ref, struct ib_srq *srq,
				 enum ib_event_type type);

/**
 * xqp_refdev_find_qp - the driver's (real) QP with number @qp_num.
 *
 * No reference is taken: the pointer is valid only while the caller knows
 * the QP cannot be destroyed (a test that owns every user of the device).
 * Used to reach a real QP ib_core no longer points to (a failed last destroy
 * of an XRC_TGT QP).
 *
 * Return: the QP, or NULL.
 */
struct ib_qp *xqp_refdev_find_qp(struct xqp_refdev *ref, u32 qp_num);

/*
 * Moves the QP number allocator: the next search starts at @next (numbers
 * below 2 or above 2^24 - 1 start over at 2). For tests of the wrap-around.
 */
void xqp_refdev_set_qpn_cursor(struct xqp_refdev *ref, u32 next);

/*
 * Module-internal, not exported (refdev_main.c's init and exit): the
 * debugfs directory xqp_refdev/ that holds each device's
 * <ibdev name>/raise_{qp,srq,cq}_event hooks (see refdev.c). Devices created before
 * init or after exit get no hook.
 */
void xqp_refdev_debugfs_init(void);
void xqp_refdev_debugfs_exit(void);

#endif /* XQP_REFDEV_H */
