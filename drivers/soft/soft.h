/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xqp_soft: a software device behind struct xqp_device_ops. It keeps QP
 * state and attributes like rxe does and moves data between the soft
 * devices of one in-kernel subnet (docs/datapath.md). Tests drive it
 * through the core or call its ops directly (xqp_soft_ops(), with the
 * struct xqp_soft pointer as the driver pointer), count its live objects and
 * make its ops fail on demand.
 *
 * Compiled for the kernel module and for the host tests: it reaches the
 * platform only through xqp/seam.h.
 */
#ifndef XQP_SOFT_H
#define XQP_SOFT_H

#include "xqp/driver.h"
#include "rules/limits.h"

XQP_EXTERN_C_BEGIN

struct xqp_soft;

/*
 * The soft device's rules are the reference device's: drivers/rules/.
 * qp_num is 24 bits; 0 and 1 are the special QPs (SMI, GSI) and never used.
 */
#define XQP_SOFT_QPN_RESERVED	XQP_RULES_QPN_FIRST
#define XQP_SOFT_MAX_QP		XQP_RULES_MAX_QP

/*
 * What the device advertises and enforces: the shared limits table
 * (struct xqp_rules_limits), one per soft device. Requests beyond a limit
 * fail with -EINVAL; creating an object past its max_* count fails with
 * -ENOMEM.
 */
#define xqp_soft_limits xqp_rules_limits

/* Live driver objects of each kind. */
struct xqp_soft_counts {
	xqp_u32 pd;
	xqp_u32 cq;
	xqp_u32 xrcd;
	xqp_u32 srq;
	xqp_u32 qp;
	xqp_u32 mr;
};

/*
 * One per op of struct xqp_device_ops, for fault injection and call counts.
 * New ops are appended (before XQP_SOFT_OP_COUNT): the numbers are used by
 * the debugfs inject knob's name table (soft_main.c) and by tests.
 */
enum xqp_soft_op {
	XQP_SOFT_OP_QUERY_DEVICE,
	XQP_SOFT_OP_QUERY_PORT,
	XQP_SOFT_OP_ALLOC_PD,
	XQP_SOFT_OP_DEALLOC_PD,
	XQP_SOFT_OP_CREATE_CQ,
	XQP_SOFT_OP_DESTROY_CQ,
	XQP_SOFT_OP_ALLOC_XRCD,
	XQP_SOFT_OP_DEALLOC_XRCD,
	XQP_SOFT_OP_CREATE_SRQ,
	XQP_SOFT_OP_DESTROY_SRQ,
	XQP_SOFT_OP_CREATE_QP,
	XQP_SOFT_OP_MODIFY_QP,
	XQP_SOFT_OP_QUERY_QP,
	XQP_SOFT_OP_DESTROY_QP,
	XQP_SOFT_OP_REG_MR,
	XQP_SOFT_OP_DEREG_MR,
	/*
	 * The data path. The first five may be called in any context and at
	 * a high rate: their calls are counted only while
	 * xqp_soft_count_data_path() is on (they can fail on demand always).
	 */
	XQP_SOFT_OP_POST_SEND,
	XQP_SOFT_OP_POST_RECV,
	XQP_SOFT_OP_POST_SRQ_RECV,
	XQP_SOFT_OP_POLL_CQ,
	XQP_SOFT_OP_REQ_NOTIFY_CQ,
	XQP_SOFT_OP_RESIZE_CQ,
	XQP_SOFT_OP_MODIFY_SRQ,
	XQP_SOFT_OP_QUERY_SRQ,
	XQP_SOFT_OP_QUERY_GID,
	XQP_SOFT_OP_QUERY_PKEY,
	XQP_SOFT_OP_COUNT
};

void xqp_soft_default_limits(struct xqp_soft_limits *lim);
struct xqp_soft *xqp_soft_create(const char *name,
				 const struct xqp_soft_limits *lim);
void xqp_soft_destroy(struct xqp_soft *soft);
struct xqp_device *xqp_soft_device(struct xqp_soft *soft);
const struct xqp_device_ops *xqp_soft_ops(void);

void xqp_soft_counts(struct xqp_soft *soft, struct xqp_soft_counts *counts);
void xqp_soft_inject(struct xqp_soft *soft, enum xqp_soft_op op, int err,
		     unsigned int after);
xqp_u64 xqp_soft_op_calls(struct xqp_soft *soft, enum xqp_soft_op op);
void xqp_soft_count_data_path(struct xqp_soft *soft, int on);
int xqp_soft_raise_qp_event(struct xqp_soft *soft, xqp_u32 qp_num,
			    enum xqp_event_type type);
int xqp_soft_raise_srq_event(struct xqp_soft *soft, xqp_u32 srq_num,
			     enum xqp_event_type type);
/* CQs have no number: the core CQ is the handle (-EINVAL unless live). */
int xqp_soft_raise_cq_event(struct xqp_soft *soft, struct xqp_cq *core_cq,
			    enum xqp_event_type type);
/* The LID the subnet gave the device (1, 2, ...; unique while it lives). */
xqp_u16 xqp_soft_lid(struct xqp_soft *soft);
/* Completions lost to a full CQ since it was created (tests). */
xqp_u64 xqp_soft_cq_overruns(struct xqp_soft *soft, struct xqp_cq *core_cq);
/* Tests only: where the next QP number search starts (to reach the wrap). */
void xqp_soft_set_qpn_cursor(struct xqp_soft *soft, xqp_u32 next);

XQP_EXTERN_C_END

#endif /* XQP_SOFT_H */
