/* SPDX-License-Identifier: GPL-2.0 */
/*
 * modify_qp's attribute rules, shared by the soft device and the reference
 * device (see limits.h for why they are shared): which values each
 * attribute may take, and which attributes a QP keeps. Each rule is one row
 * of a table; a device expands the tables over its own types:
 * struct xqp_qp_attr with the XQP_QP_ mask bits, or struct ib_qp_attr with
 * the IB_QP_ bits (the same field names, the same bit names after the
 * prefix, the same values).
 *
 * The checks are the ones that do not depend on the QP's state, as
 * rxe_qp_chk_attr(); the state transition itself is the IB spec's table
 * (ib_modify_qp_is_ok() and its xqp twin) and the capabilities are granted
 * by xqp_rules_grant_qp_cap().
 */
#ifndef XQP_RULES_QP_ATTR_H
#define XQP_RULES_QP_ATTR_H

#include "rules/limits.h"

/* Is @v in [@lo, @end)? Everything widened first, so no row can wrap. */
static inline int xqp_rules_in(xqp_u64 v, xqp_u64 lo, xqp_u64 end)
{
	return v >= lo && v < end;
}

/*
 * The value rules, one row each: R(.., bit, field, lo, end): when @bit is in
 * the mask, attr->field must lie in [lo, end); F(.., bit, field, allowed):
 * it may have no bit outside @allowed. One mask bit may have several rows
 * (ALT_PATH covers three fields). @lim is the device's limits table; the
 * rows pass @P (the mask bits' prefix), @a (the attributes) and @m (the
 * mask) on to R and F.
 */
#define XQP_RULES__QP_ATTR_CHECKS(R, F, P, a, m, lim)					\
	R(P, a, m, PORT, port_num, 1, XQP_RULES_PORT_CNT + 1)				\
	R(P, a, m, PKEY_INDEX, pkey_index, 0, (lim)->max_pkeys)				\
	F(P, a, m, ACCESS_FLAGS, qp_access_flags, XQP_RULES_ACCESS_SUPPORTED)		\
	R(P, a, m, PATH_MTU, path_mtu, XQP_RULES_MTU_MIN, XQP_RULES_MTU_MAX + 1)	\
	R(P, a, m, TIMEOUT, timeout, 0, 32)						\
	R(P, a, m, RETRY_CNT, retry_cnt, 0, 8)						\
	R(P, a, m, RNR_RETRY, rnr_retry, 0, 8)						\
	R(P, a, m, MIN_RNR_TIMER, min_rnr_timer, 0, 32)					\
	R(P, a, m, MAX_QP_RD_ATOMIC, max_rd_atomic, 0,					\
	  (xqp_u64)(lim)->max_qp_init_rd_atom + 1)					\
	R(P, a, m, MAX_DEST_RD_ATOMIC, max_dest_rd_atomic, 0,				\
	  (xqp_u64)(lim)->max_qp_rd_atom + 1)						\
	R(P, a, m, PATH_MIG_STATE, path_mig_state, 0, XQP_RULES_MIG_MAX + 1)		\
	R(P, a, m, DEST_QPN, dest_qp_num, 0, (xqp_u64)XQP_RULES_NUM_MASK + 1)		\
	R(P, a, m, ALT_PATH, alt_port_num, 1, XQP_RULES_PORT_CNT + 1)			\
	R(P, a, m, ALT_PATH, alt_pkey_index, 0, (lim)->max_pkeys)			\
	R(P, a, m, ALT_PATH, alt_timeout, 0, 32)

#define XQP_RULES__BAD_RANGE(P, a, m, bit, field, lo, end)			\
	|| (((m) & P##bit) && !xqp_rules_in((a)->field, (lo), (end)))
#define XQP_RULES__BAD_FLAGS(P, a, m, bit, field, allowed)			\
	|| (((m) & P##bit) && ((xqp_u64)(a)->field & ~(xqp_u64)(allowed)))

/*
 * True when an attribute that @mask names breaks a rule (the device then
 * fails modify_qp with -EINVAL). @prefix: XQP_QP_ or IB_QP_; @attr: the
 * attributes; @lim: the device's struct xqp_rules_limits.
 */
#define XQP_RULES_QP_ATTR_BAD(prefix, attr, mask, lim)				\
	(0 XQP_RULES__QP_ATTR_CHECKS(XQP_RULES__BAD_RANGE, XQP_RULES__BAD_FLAGS,\
				     prefix, attr, mask, lim))

/*
 * What a QP keeps of a successful modify, one row each: C(.., bit, field)
 * takes the field as given, N(.., bit, field) its low 24 bits (a PSN),
 * A(.., bit, field) the address vector, in the device's own way of keeping
 * one. The CAP bit is no row: what is kept is what xqp_rules_grant_qp_cap()
 * granted.
 */
#define XQP_RULES__QP_ATTR_KEPT(C, N, A, ...)					\
	C(__VA_ARGS__, EN_SQD_ASYNC_NOTIFY, en_sqd_async_notify)		\
	C(__VA_ARGS__, ACCESS_FLAGS, qp_access_flags)				\
	C(__VA_ARGS__, PKEY_INDEX, pkey_index)					\
	C(__VA_ARGS__, PORT, port_num)						\
	C(__VA_ARGS__, QKEY, qkey)						\
	A(__VA_ARGS__, AV, ah_attr)						\
	C(__VA_ARGS__, PATH_MTU, path_mtu)					\
	C(__VA_ARGS__, TIMEOUT, timeout)					\
	C(__VA_ARGS__, RETRY_CNT, retry_cnt)					\
	C(__VA_ARGS__, RNR_RETRY, rnr_retry)					\
	N(__VA_ARGS__, RQ_PSN, rq_psn)						\
	C(__VA_ARGS__, MAX_QP_RD_ATOMIC, max_rd_atomic)				\
	A(__VA_ARGS__, ALT_PATH, alt_ah_attr)					\
	C(__VA_ARGS__, ALT_PATH, alt_port_num)					\
	C(__VA_ARGS__, ALT_PATH, alt_pkey_index)				\
	C(__VA_ARGS__, ALT_PATH, alt_timeout)					\
	C(__VA_ARGS__, MIN_RNR_TIMER, min_rnr_timer)				\
	N(__VA_ARGS__, SQ_PSN, sq_psn)						\
	C(__VA_ARGS__, MAX_DEST_RD_ATOMIC, max_dest_rd_atomic)			\
	C(__VA_ARGS__, PATH_MIG_STATE, path_mig_state)				\
	C(__VA_ARGS__, DEST_QPN, dest_qp_num)					\
	C(__VA_ARGS__, RATE_LIMIT, rate_limit)

#define XQP_RULES__KEEP_COPY(P, d, s, m, keep_ah, bit, field)			\
	if ((m) & P##bit)							\
		(d)->field = (s)->field;
#define XQP_RULES__KEEP_PSN(P, d, s, m, keep_ah, bit, field)			\
	if ((m) & P##bit)							\
		(d)->field = (s)->field & XQP_RULES_NUM_MASK;
#define XQP_RULES__KEEP_AH(P, d, s, m, keep_ah, bit, field)			\
	if ((m) & P##bit)							\
		keep_ah(&(d)->field, &(s)->field);

/*
 * Stores into @dst every attribute of @src that @mask names (a statement).
 * @prefix: XQP_QP_ or IB_QP_; @keep_ah(dst, src): keeps an address vector.
 */
#define XQP_RULES_QP_ATTR_KEEP(prefix, dst, src, mask, keep_ah)		\
	do {									\
		XQP_RULES__QP_ATTR_KEPT(XQP_RULES__KEEP_COPY, XQP_RULES__KEEP_PSN,\
					XQP_RULES__KEEP_AH, prefix, dst, src,	\
					mask, keep_ah)				\
	} while (0)

#endif /* XQP_RULES_QP_ATTR_H */
