// SPDX-License-Identifier: GPL-2.0
/*
 * xqp_diff, the scenario table: the rules of the shared-QP contract
 * (../shared/spec/shared-qp.md), each as data run against Linux and xqp.
 *
 * A step names slots: q (QPs/shares), x (XRCDs), p (PDs), c (CQs), s (SRQs);
 * a qpn comes from a slot ("the number of q0") or is a literal (DX_QPN_*).
 * .rc is what Linux returns (and xqp too, unless the step is annotated).
 * Annotations, for the documented divergences of docs/divergences.md:
 *   DIV(d, cats, xrc)  both run; they differ in exactly @cats; xqp returns @xrc
 *   XQ(d, cats, xrc)   xqp only (Linux would crash or corrupt); xqp returns @xrc
 *   LX(d, cats)        Linux only (its way out of a state xqp never enters)
 */
#include <linux/errno.h>

#include "diff_defs.h"

const char *const dx_div_names[DX_DIVS] = {
	[DX_DIV_NONE] = "none",
	[DX_DIV_LAST_DESTROY_FAILS] = "D1 last-destroy-driver-failure",
	[DX_DIV_DESTROY_SHARELESS] = "D2 destroy-shareless-real-qp",
	[DX_DIV_DEALLOC_PD_IN_USE] = "D3 dealloc-pd-in-use",
	[DX_DIV_COMPACT_SHARES] = "D4 compact-shares",
	[DX_DIV_MODIFY_BAD_PORT] = "D5 modify-port-out-of-range",
	[DX_DIV_UNKNOWN_QP_TYPE] = "D7 unknown-qp-type-errno",
	[DX_DIV_XRC_SRQ_WITHOUT_CQ] = "D8 xrc-srq-without-cq",
};

#define D1 DX_DIV_LAST_DESTROY_FAILS
#define D2 DX_DIV_DESTROY_SHARELESS
#define D3 DX_DIV_DEALLOC_PD_IN_USE
#define D4 DX_DIV_COMPACT_SHARES
#define D5 DX_DIV_MODIFY_BAD_PORT
#define D7 DX_DIV_UNKNOWN_QP_TYPE
#define D8 DX_DIV_XRC_SRQ_WITHOUT_CQ

#define RC	DX_D_RC
#define OUT	DX_D_OUT
#define XRCD	DX_D_XRCD
#define QPS	DX_D_QP
#define OPENS	DX_D_OPEN
#define EVS	DX_D_EV
#define DRV	DX_D_DRV

#define DIV(d, m, x)	.div = (d), .dmask = (m), .xrc = (x)
#define XQ(d, m, x)	.side = DX_XQ_ONLY, DIV(d, m, x)
#define LX(d, m)	.side = DX_LX_ONLY, .div = (d), .dmask = (m)
#define NOH		.flags = DX_F_NO_HANDLER

#define ALLOC_XRCD(x_)		{ .op = DX_ALLOC_XRCD, .x = (x_) }
#define FREE_XRCD(x_, ...)	{ .op = DX_DEALLOC_XRCD, .x = (x_), __VA_ARGS__ }
#define ALLOC_PD(p_)		{ .op = DX_ALLOC_PD, .p = (p_) }
#define FREE_PD(p_, ...)	{ .op = DX_DEALLOC_PD, .p = (p_), __VA_ARGS__ }
#define MAKE_CQ(c_, ...)	{ .op = DX_CREATE_CQ, .c = (c_), __VA_ARGS__ }
#define FREE_CQ(c_, ...)	{ .op = DX_DESTROY_CQ, .c = (c_), __VA_ARGS__ }
/* An XRC_TGT QP in x (-1: none): q gets the creator's share. */
#define TGT(q_, x_, ...)	{ .op = DX_CREATE_TGT, .q = (q_), .x = (x_), \
				  .create.qp_type = DX_QPT_XRC_TGT, __VA_ARGS__ }
/* An ordinary QP of type t on PD p, CQ c (send and receive). */
#define QP(q_, t_, p_, c_, ...)	{ .op = DX_CREATE_QP, .q = (q_), .create.qp_type = (t_), \
				  .p = (p_), .c = (c_), .s = -1, __VA_ARGS__ }
#define QP_SRQ(q_, t_, p_, c_, s_) { .op = DX_CREATE_QP, .q = (q_), .create.qp_type = (t_), \
				  .p = (p_), .c = (c_), .s = (s_) }
/* A create's wish list (DX_CAP_*; none by default). */
#define CAPS(set_)		.create.caps = (set_)
/* Open in x the QP whose number q src holds (or DX_QPN_*). */
#define OPEN(q_, x_, src_, ...)	{ .op = DX_OPEN, .q = (q_), .x = (x_), .qpn = (src_), \
				  .open.qp_type = DX_QPT_XRC_TGT, __VA_ARGS__ }
#define OPEN_T(q_, x_, src_, t_, ...) { .op = DX_OPEN, .q = (q_), .x = (x_), .qpn = (src_), \
				  .open.qp_type = (t_), __VA_ARGS__ }
#define CLOSE(q_, ...)		{ .op = DX_CLOSE, .q = (q_), __VA_ARGS__ }
#define CLOSE_REAL(q_, ...)	{ .op = DX_CLOSE_REAL, .q = (q_), __VA_ARGS__ }
#define DESTROY(q_, ...)	{ .op = DX_DESTROY, .q = (q_), __VA_ARGS__ }
#define DESTROY_REAL(q_, ...)	{ .op = DX_DESTROY_REAL, .q = (q_), __VA_ARGS__ }
#define MODIFY(q_, st_, m_, ...) { .op = DX_MODIFY, .q = (q_), .modify.state = (st_), \
				  .modify.mask = (m_), __VA_ARGS__ }
/* Which attribute of a MODIFY is off (DX_V_*; all valid by default). */
#define VARIANT(v_)		.modify.variant = (v_)
#define QUERY(q_)		{ .op = DX_QUERY, .q = (q_) }
#define RAISE(src_, ev_, ...)	{ .op = DX_RAISE, .qpn = (src_), .raise.event = (ev_), __VA_ARGS__ }
#define INJECT(op_, err_)	{ .op = DX_INJECT, .inject.op = (op_), .inject.err = (err_) }
#define SRQ(s_, p_, ...)	{ .op = DX_CREATE_SRQ, .s = (s_), .p = (p_), .x = -1, __VA_ARGS__ }
#define XSRQ(s_, p_, c_, x_, ...) { .op = DX_CREATE_SRQ, .s = (s_), .p = (p_), .c = (c_), \
				  .x = (x_), __VA_ARGS__ }
#define FREE_SRQ(s_, ...)	{ .op = DX_DESTROY_SRQ, .s = (s_), __VA_ARGS__ }
#define REAP(q_, ...)		{ .op = DX_REAP_LEAKED, .q = (q_), __VA_ARGS__ }
#define SIZES(...)		{ .op = DX_SIZES, __VA_ARGS__ }
#define CURSOR(n_)		{ .op = DX_QPN_CURSOR, .cursor.next = (n_) }
/* An async event on the CQ (SRQ) of a slot, or the last one destroyed there. */
#define RAISE_CQ(c_, ev_, ...)	{ .op = DX_RAISE_CQ_EVENT, .c = (c_), .raise.event = (ev_), \
				  __VA_ARGS__ }
#define RAISE_SRQ(s_, ev_, ...)	{ .op = DX_RAISE_SRQ_EVENT, .s = (s_), .raise.event = (ev_), \
				  __VA_ARGS__ }
#define QPN			.flags = DX_F_QPN
#define END			{ .op = DX_END }

/* Attribute masks of the IB transition table (ib_modify_qp_is_ok). */
#define S		DX_M_STATE
#define INIT_CONN	(S | DX_M_PKEY | DX_M_PORT | DX_M_ACCESS)	/* RC UC XRC */
#define INIT_UD		(S | DX_M_PKEY | DX_M_PORT | DX_M_QKEY)
#define RTR_UC		(S | DX_M_AV | DX_M_MTU | DX_M_DEST_QPN | DX_M_RQ_PSN) /* UC INI */
#define RTR_RC		(RTR_UC | DX_M_MAX_DEST_RD | DX_M_MIN_RNR)	/* RC TGT */
#define RTS_RC		(S | DX_M_TIMEOUT | DX_M_RETRY | DX_M_RNR_RETRY | DX_M_SQ_PSN | \
			 DX_M_MAX_QP_RD)				/* RC INI */
#define RTS_TGT		(S | DX_M_TIMEOUT | DX_M_SQ_PSN)
#define RTS_UC		(S | DX_M_SQ_PSN)				/* UC UD */

#define TGT_TO_RTS(q_)	MODIFY(q_, DX_INIT, INIT_CONN), MODIFY(q_, DX_RTR, RTR_RC), \
			MODIFY(q_, DX_RTS, RTS_TGT)

/* ---- creation ----------------------------------------------------------- */

static const struct dx_step sc_create_tgt_returns_share[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),			/* a share, usecnt 1, one share, RESET */
	QUERY(0),
	FREE_XRCD(0, .rc = -EBUSY),
	DESTROY(0),
	FREE_XRCD(0),
	END
};

static const struct dx_step sc_create_tgt_grants_caps[] = {
	ALLOC_XRCD(0),
	TGT(0, 0, CAPS(DX_CAP_SMALL)),	/* out: the granted caps, rewritten */
	QUERY(0),
	TGT(1, 0, CAPS(DX_CAP_ODD)),
	QUERY(1),
	DESTROY(0),
	DESTROY(1),
	FREE_XRCD(0),
	END
};

/* The signalling type is the real QP's: every share reports it. */
static const struct dx_step sc_query_sq_sig_type[] = {
	ALLOC_XRCD(0),
	TGT(0, 0, .flags = DX_F_SIG_ALL),
	OPEN(1, 0, 0),
	QUERY(0),
	QUERY(1),			/* the opener's share: the real QP's */
	TGT(2, 0),			/* REQ_WR */
	QUERY(2),
	ALLOC_PD(0),
	MAKE_CQ(0),
	QP(3, DX_QPT_RC, 0, 0, .flags = DX_F_SIG_ALL),
	QUERY(3),
	DESTROY(3),
	DESTROY(2),
	DESTROY(1),
	DESTROY(0),
	FREE_CQ(0),
	FREE_PD(0),
	FREE_XRCD(0),
	END
};

static const struct dx_step sc_create_tgt_rejects_caps[] = {
	ALLOC_XRCD(0),
	TGT(0, 0, CAPS(DX_CAP_TOO_MANY_WR), .rc = -EINVAL),
	TGT(0, 0, CAPS(DX_CAP_TOO_MANY_SGE), .rc = -EINVAL),
	TGT(0, 0, CAPS(DX_CAP_FLAGS), .rc = -EOPNOTSUPP),
	FREE_XRCD(0),			/* nothing was left behind */
	END
};

static const struct dx_step sc_create_tgt_driver_error[] = {
	ALLOC_XRCD(0),
	INJECT(DX_INJ_CREATE_QP, -ENOSPC),
	TGT(0, 0, .rc = -ENOSPC),	/* the driver's error, usecnt untouched */
	TGT(0, 0),
	DESTROY(0),
	FREE_XRCD(0),
	END
};

static const struct dx_step sc_create_tgt_needs_xrcd[] = {
	ALLOC_XRCD(0),
	TGT(0, -1, .rc = -EINVAL),
	FREE_XRCD(0),
	END
};

static const struct dx_step sc_create_rc_returns_real_qp[] = {
	ALLOC_PD(0),
	MAKE_CQ(0),
	QP(0, DX_QPT_RC, 0, 0),		/* the real QP, no shares */
	QUERY(0),
	CLOSE(0, .rc = -EINVAL),	/* ib_close_qp on a real QP */
	DESTROY_REAL(0),		/* its real QP is itself */
	FREE_CQ(0),
	FREE_PD(0),
	END
};

static const struct dx_step sc_create_every_type[] = {
	ALLOC_PD(0),
	MAKE_CQ(0),
	QP(0, DX_QPT_RC, 0, 0, CAPS(DX_CAP_SMALL)),
	QP(1, DX_QPT_UC, 0, 0, CAPS(DX_CAP_ODD)),
	QP(2, DX_QPT_UD, 0, 0, CAPS(DX_CAP_SMALL)),
	QP(3, DX_QPT_XRC_INI, 0, 0, CAPS(DX_CAP_SMALL)),
	QUERY(0), QUERY(1), QUERY(2), QUERY(3),
	QP(4, DX_QPT_RC, 0, 0, CAPS(DX_CAP_TOO_MANY_WR), .rc = -EINVAL),
	DESTROY(0), DESTROY(1), DESTROY(2), DESTROY(3),
	FREE_CQ(0),
	FREE_PD(0),
	END
};

static const struct dx_step sc_create_unknown_type[] = {
	ALLOC_PD(0),
	MAKE_CQ(0),
	/* Linux hands it to the driver (rxe: -EOPNOTSUPP); xqp refuses it */
	QP(0, DX_QPT_RAW_PACKET, 0, 0, .rc = -EOPNOTSUPP, DIV(D7, RC, -EINVAL)),
	FREE_CQ(0),
	FREE_PD(0),
	END
};

static const struct dx_step sc_qpn_not_reused_at_once[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),
	DESTROY(0),
	TGT(1, 0),			/* out: a new number, not q0's */
	OPEN(2, 0, 0, .rc = -EINVAL),	/* q0's number is gone */
	DESTROY(1),
	FREE_XRCD(0),
	END
};

static const struct dx_step sc_qpn_cursor_wraps[] = {
	ALLOC_XRCD(0),
	CURSOR(0xfffffe),
	TGT(0, 0, QPN),			/* 0xfffffe */
	TGT(1, 0, QPN),			/* 0xffffff: the last 24-bit number */
	TGT(2, 0, QPN),			/* wraps, past QP0 and QP1: 2 */
	OPEN(3, 0, 1),
	CURSOR(0),			/* out of range: starts over at 2 */
	TGT(4, 0, QPN),			/* 2 is taken: 3 */
	DESTROY(2),
	CURSOR(2),
	TGT(5, 0, QPN),			/* 2 is free again */
	DESTROY(0), DESTROY(1), DESTROY(3), DESTROY(4), DESTROY(5),
	FREE_XRCD(0),
	END
};

/* ---- open --------------------------------------------------------------- */

static const struct dx_step sc_open_requires_xrc_tgt_type[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),
	OPEN_T(1, 0, 0, DX_QPT_RC, .rc = -EINVAL),
	OPEN_T(1, 0, 0, DX_QPT_UC, .rc = -EINVAL),
	OPEN_T(1, 0, 0, DX_QPT_UD, .rc = -EINVAL),
	OPEN_T(1, 0, 0, DX_QPT_XRC_INI, .rc = -EINVAL),
	OPEN(1, 0, 0),
	DESTROY(1),
	DESTROY(0),
	FREE_XRCD(0),
	END
};

static const struct dx_step sc_open_unknown_number[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),
	OPEN(1, 0, DX_QPN_BOGUS, .rc = -EINVAL),
	OPEN(1, 0, DX_QPN_ZERO, .rc = -EINVAL),
	OPEN(1, 0, DX_QPN_ONE, .rc = -EINVAL),
	OPEN(1, 0, DX_QPN_HUGE, .rc = -EINVAL),
	DESTROY(0),
	FREE_XRCD(0),
	END
};

static const struct dx_step sc_open_other_xrcd_invisible[] = {
	ALLOC_XRCD(0),
	ALLOC_XRCD(1),
	TGT(0, 0),
	OPEN(1, 1, 0, .rc = -EINVAL),	/* q0 is x0's */
	TGT(2, 1),
	OPEN(3, 0, 2, .rc = -EINVAL),	/* q2 is x1's */
	OPEN(3, 1, 2),
	OPEN(4, 0, 0),
	DESTROY(0), DESTROY(4),
	FREE_XRCD(0),
	FREE_XRCD(1, .rc = -EBUSY),
	DESTROY(3), DESTROY(2),
	FREE_XRCD(1),
	END
};

static const struct dx_step sc_open_rc_number[] = {
	ALLOC_PD(0),
	MAKE_CQ(0),
	ALLOC_XRCD(0),
	QP(0, DX_QPT_RC, 0, 0),
	OPEN(1, 0, 0, .rc = -EINVAL),	/* not an XRC_TGT QP of x0 */
	DESTROY(0),
	FREE_XRCD(0),
	FREE_CQ(0),
	FREE_PD(0),
	END
};

static const struct dx_step sc_open_after_destroy[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),
	OPEN(1, 0, 0),
	DESTROY(0),
	DESTROY(1),			/* the last share: the QP goes */
	OPEN(2, 0, 0, .rc = -EINVAL),
	FREE_XRCD(0),
	END
};

static const struct dx_step sc_opened_shares_take_no_usecnt[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),
	OPEN(1, 0, 0),
	OPEN(2, 0, 0),
	OPEN(3, 0, 0, NOH),		/* usecnt stays 1, four shares */
	FREE_XRCD(0, .rc = -EBUSY),
	DESTROY(2), DESTROY(0), DESTROY(3),
	FREE_XRCD(0, .rc = -EBUSY),
	DESTROY(1),
	FREE_XRCD(0),
	END
};

/* ---- close -------------------------------------------------------------- */

static const struct dx_step sc_close_real_einval[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),
	CLOSE_REAL(0, .rc = -EINVAL),
	OPEN(1, 0, 0),
	CLOSE_REAL(1, .rc = -EINVAL),
	DESTROY(1),
	DESTROY(0),
	FREE_XRCD(0),
	END
};

static const struct dx_step sc_close_last_keeps_qp_openable[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),
	CLOSE(0),			/* Linux parity: the QP stays, openable */
	FREE_XRCD(0, .rc = -EBUSY),
	RAISE(0, DX_EV_QP_FATAL),	/* nobody to tell */
	OPEN(1, 0, 0),
	QUERY(1),
	DESTROY(1),			/* now it goes */
	OPEN(2, 0, 0, .rc = -EINVAL),
	FREE_XRCD(0),
	END
};

static const struct dx_step sc_close_keeps_state[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),
	MODIFY(0, DX_INIT, INIT_CONN),
	MODIFY(0, DX_RTR, RTR_RC),
	CLOSE(0),
	OPEN(1, 0, 0),
	QUERY(1),			/* still RTR, same attributes */
	DESTROY(1),
	FREE_XRCD(0),
	END
};

static const struct dx_step sc_close_one_of_many[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),
	OPEN(1, 0, 0),
	OPEN(2, 0, 0),
	CLOSE(1),
	CLOSE(0),
	DESTROY(2),			/* the last share */
	OPEN(3, 0, 0, .rc = -EINVAL),
	FREE_XRCD(0),
	END
};

static const struct dx_step sc_close_then_destroy_real_busy[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),
	OPEN(1, 0, 0),
	CLOSE(0),
	DESTROY_REAL(1, .rc = -EBUSY),	/* q1 still holds it */
	DESTROY(1),
	FREE_XRCD(0),
	END
};

/* ---- destroy ------------------------------------------------------------ */

static const struct dx_step sc_creator_not_special[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),
	OPEN(1, 0, 0),
	DESTROY(0),			/* the creator leaves, the QP stays */
	RAISE(1, DX_EV_QP_FATAL),
	QUERY(1),
	OPEN(2, 0, 1),
	DESTROY(2),
	DESTROY(1),			/* the last one takes it */
	OPEN(3, 0, 1, .rc = -EINVAL),
	FREE_XRCD(0),
	END
};

static const struct dx_step sc_last_share_destroys[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),
	OPEN(1, 0, 0),
	OPEN(2, 0, 0),
	DESTROY(1),
	DESTROY(2),			/* the driver QP is still there */
	DESTROY(0),			/* now it is not; usecnt 0 */
	FREE_XRCD(0),
	END
};

static const struct dx_step sc_destroy_real_busy_with_shares[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),
	DESTROY_REAL(0, .rc = -EBUSY),
	OPEN(1, 0, 0),
	DESTROY_REAL(1, .rc = -EBUSY),
	DESTROY(0),
	DESTROY_REAL(1, .rc = -EBUSY),
	DESTROY(1),
	FREE_XRCD(0),
	END
};

static const struct dx_step sc_xrcd_busy_until_all_gone[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),
	TGT(1, 0),			/* usecnt 2 */
	FREE_XRCD(0, .rc = -EBUSY),
	DESTROY(0),
	FREE_XRCD(0, .rc = -EBUSY),
	DESTROY(1),
	FREE_XRCD(0),
	END
};

static const struct dx_step sc_many_shares_mixed_order[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),
	OPEN(1, 0, 0), OPEN(2, 0, 0), OPEN(3, 0, 0), OPEN(4, 0, 0), OPEN(5, 0, 0),
	DESTROY(3),
	CLOSE(1),
	DESTROY(0),
	DESTROY(5),
	CLOSE(4),
	DESTROY(2),			/* the last of six */
	OPEN(6, 0, 0, .rc = -EINVAL),
	FREE_XRCD(0),
	END
};

static const struct dx_step sc_two_xrcds_two_qps[] = {
	ALLOC_XRCD(0),
	ALLOC_XRCD(1),
	TGT(0, 0),
	TGT(1, 1),
	OPEN(2, 0, 0),
	OPEN(3, 1, 1),
	DESTROY(0),
	FREE_XRCD(0, .rc = -EBUSY),
	DESTROY(2),
	FREE_XRCD(0),
	DESTROY(1),
	DESTROY(3),
	FREE_XRCD(1),
	END
};

/* ---- modify and query --------------------------------------------------- */

static const struct dx_step sc_tgt_walk_through_shares[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),
	OPEN(1, 0, 0),
	OPEN(2, 0, 0),
	MODIFY(0, DX_INIT, INIT_CONN),
	QUERY(2),
	MODIFY(1, DX_RTR, RTR_RC),
	QUERY(0),
	MODIFY(2, DX_RTS, RTS_TGT),
	QUERY(1),
	MODIFY(0, DX_SQD, S | DX_M_EN_SQD),
	QUERY(2),
	MODIFY(1, DX_RTS, S),
	MODIFY(2, DX_ERR, S),
	QUERY(0),
	MODIFY(0, DX_RESET, S),
	QUERY(1),
	DESTROY(0), DESTROY(1), DESTROY(2),
	FREE_XRCD(0),
	END
};

static const struct dx_step sc_tgt_missing_required[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),
	MODIFY(0, DX_INIT, S | DX_M_PKEY | DX_M_PORT, .rc = -EINVAL),
	MODIFY(0, DX_INIT, S | DX_M_PKEY | DX_M_ACCESS, .rc = -EINVAL),
	MODIFY(0, DX_INIT, INIT_CONN),
	MODIFY(0, DX_RTR, RTR_RC & ~DX_M_MIN_RNR, .rc = -EINVAL),
	MODIFY(0, DX_RTR, RTR_RC & ~DX_M_MAX_DEST_RD, .rc = -EINVAL),
	MODIFY(0, DX_RTR, RTR_RC & ~DX_M_AV, .rc = -EINVAL),
	MODIFY(0, DX_RTR, RTR_RC),
	MODIFY(0, DX_RTS, S | DX_M_SQ_PSN, .rc = -EINVAL),
	MODIFY(0, DX_RTS, RTS_TGT | DX_M_RETRY, .rc = -EINVAL),	/* not a TGT attr */
	MODIFY(0, DX_RTS, RTS_TGT | DX_M_MAX_QP_RD, .rc = -EINVAL),
	MODIFY(0, DX_RTS, RTS_TGT | DX_M_MIN_RNR),			/* optional */
	QUERY(0),
	DESTROY(0),
	FREE_XRCD(0),
	END
};

static const struct dx_step sc_tgt_invalid_transitions[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),
	MODIFY(0, DX_RTR, RTR_RC, .rc = -EINVAL),
	MODIFY(0, DX_RTS, RTS_TGT, .rc = -EINVAL),
	MODIFY(0, DX_ERR, S, .rc = -EINVAL),		/* RESET -> ERR is not in the table */
	MODIFY(0, DX_SQD, S, .rc = -EINVAL),
	MODIFY(0, DX_RESET, S),
	MODIFY(0, DX_INIT, INIT_CONN),
	MODIFY(0, DX_RTS, RTS_TGT, .rc = -EINVAL),
	MODIFY(0, DX_SQD, S, .rc = -EINVAL),
	MODIFY(0, DX_INIT, S),
	MODIFY(0, DX_INIT, S | DX_M_PKEY | DX_M_ACCESS),
	MODIFY(0, DX_INIT, S | DX_M_QKEY, .rc = -EINVAL),
	MODIFY(0, DX_ERR, S),
	MODIFY(0, DX_INIT, INIT_CONN, .rc = -EINVAL),
	MODIFY(0, DX_RTS, RTS_TGT, .rc = -EINVAL),
	MODIFY(0, DX_ERR, S),
	MODIFY(0, DX_RESET, S),
	QUERY(0),
	DESTROY(0),
	FREE_XRCD(0),
	END
};

static const struct dx_step sc_rc_walk[] = {
	ALLOC_PD(0),
	MAKE_CQ(0),
	QP(0, DX_QPT_RC, 0, 0),
	MODIFY(0, DX_INIT, INIT_CONN | DX_M_QKEY, .rc = -EINVAL),
	MODIFY(0, DX_INIT, INIT_CONN),
	MODIFY(0, DX_RTR, RTR_RC | DX_M_ALT_PATH),
	QUERY(0),
	MODIFY(0, DX_RTS, RTS_RC),
	MODIFY(0, DX_RTS, S | DX_M_CUR_STATE | DX_M_MIN_RNR, VARIANT(DX_V_CUR_RTS)),
	QUERY(0),
	MODIFY(0, DX_SQD, S),
	MODIFY(0, DX_SQD, S | DX_M_PORT | DX_M_TIMEOUT | DX_M_MAX_DEST_RD),
	MODIFY(0, DX_RTS, S),
	MODIFY(0, DX_ERR, S),
	MODIFY(0, DX_RESET, S),
	QUERY(0),
	DESTROY(0),
	FREE_CQ(0),
	FREE_PD(0),
	END
};

static const struct dx_step sc_rc_missing_required[] = {
	ALLOC_PD(0),
	MAKE_CQ(0),
	QP(0, DX_QPT_RC, 0, 0),
	MODIFY(0, DX_INIT, S | DX_M_PORT | DX_M_ACCESS, .rc = -EINVAL),
	MODIFY(0, DX_INIT, INIT_CONN),
	MODIFY(0, DX_RTR, RTR_RC & ~DX_M_MAX_DEST_RD, .rc = -EINVAL),
	MODIFY(0, DX_RTR, RTR_RC & ~DX_M_MIN_RNR, .rc = -EINVAL),
	MODIFY(0, DX_RTR, RTR_RC & ~DX_M_DEST_QPN, .rc = -EINVAL),
	MODIFY(0, DX_RTR, RTR_RC),
	MODIFY(0, DX_RTS, RTS_RC & ~DX_M_MAX_QP_RD, .rc = -EINVAL),
	MODIFY(0, DX_RTS, RTS_RC & ~DX_M_RNR_RETRY, .rc = -EINVAL),
	MODIFY(0, DX_RTS, RTS_RC),
	QUERY(0),
	DESTROY(0),
	FREE_CQ(0),
	FREE_PD(0),
	END
};

static const struct dx_step sc_uc_walk[] = {
	ALLOC_PD(0),
	MAKE_CQ(0),
	QP(0, DX_QPT_UC, 0, 0),
	MODIFY(0, DX_INIT, INIT_CONN),
	MODIFY(0, DX_RTR, RTR_UC | DX_M_MAX_DEST_RD, .rc = -EINVAL),
	MODIFY(0, DX_RTR, RTR_UC),
	MODIFY(0, DX_RTS, RTS_UC | DX_M_TIMEOUT, .rc = -EINVAL),
	MODIFY(0, DX_RTS, RTS_UC),
	QUERY(0),
	MODIFY(0, DX_SQD, S | DX_M_EN_SQD),
	MODIFY(0, DX_SQD, S | DX_M_AV | DX_M_PKEY),
	MODIFY(0, DX_SQD, S | DX_M_TIMEOUT, .rc = -EINVAL),
	MODIFY(0, DX_ERR, S),
	QUERY(0),
	DESTROY(0),
	FREE_CQ(0),
	FREE_PD(0),
	END
};

static const struct dx_step sc_ud_walk[] = {
	ALLOC_PD(0),
	MAKE_CQ(0),
	QP(0, DX_QPT_UD, 0, 0),
	MODIFY(0, DX_INIT, INIT_CONN, .rc = -EINVAL),	/* access flags, no qkey */
	MODIFY(0, DX_INIT, INIT_UD),
	MODIFY(0, DX_RTR, S),
	MODIFY(0, DX_RTS, S, .rc = -EINVAL),
	MODIFY(0, DX_RTS, RTS_UC),
	MODIFY(0, DX_RTS, S | DX_M_QKEY),
	MODIFY(0, DX_RTS, S | DX_M_AV, .rc = -EINVAL),
	QUERY(0),
	MODIFY(0, DX_ERR, S),
	MODIFY(0, DX_RESET, S),
	DESTROY(0),
	FREE_CQ(0),
	FREE_PD(0),
	END
};

static const struct dx_step sc_xrc_ini_walk[] = {
	ALLOC_PD(0),
	MAKE_CQ(0),
	QP(0, DX_QPT_XRC_INI, 0, 0),
	MODIFY(0, DX_INIT, INIT_CONN),
	MODIFY(0, DX_RTR, RTR_UC | DX_M_MIN_RNR, .rc = -EINVAL),
	MODIFY(0, DX_RTR, RTR_UC),
	MODIFY(0, DX_RTS, RTS_RC & ~DX_M_RNR_RETRY, .rc = -EINVAL),
	MODIFY(0, DX_RTS, RTS_RC),
	MODIFY(0, DX_SQD, S | DX_M_EN_SQD),
	MODIFY(0, DX_SQD, S | DX_M_MAX_DEST_RD, .rc = -EINVAL),
	MODIFY(0, DX_SQD, S | DX_M_PORT | DX_M_RETRY),
	MODIFY(0, DX_RTS, S),
	QUERY(0),
	DESTROY(0),
	FREE_CQ(0),
	FREE_PD(0),
	END
};

static const struct dx_step sc_cur_state_rules[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),
	MODIFY(0, DX_INIT, INIT_CONN | DX_M_CUR_STATE, VARIANT(DX_V_CUR_RESET), .rc = -EINVAL),
	TGT_TO_RTS(0),
	MODIFY(0, DX_RTS, S | DX_M_CUR_STATE, VARIANT(DX_V_CUR_RTS)),
	/* The driver takes cur_qp_state on trust: SQD -> RTS is checked. */
	MODIFY(0, DX_RTS, S | DX_M_CUR_STATE | DX_M_MIN_RNR, VARIANT(DX_V_CUR_SQD)),
	MODIFY(0, DX_SQD, S | DX_M_CUR_STATE, VARIANT(DX_V_CUR_RTS), .rc = -EINVAL),
	QUERY(0),
	DESTROY(0),
	FREE_XRCD(0),
	END
};

static const struct dx_step sc_err_and_reset_from_everywhere[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),
	MODIFY(0, DX_RESET, S),
	MODIFY(0, DX_INIT, INIT_CONN),
	MODIFY(0, DX_ERR, S),
	MODIFY(0, DX_ERR, S),
	MODIFY(0, DX_RESET, S),
	MODIFY(0, DX_INIT, INIT_CONN),
	MODIFY(0, DX_RTR, RTR_RC),
	MODIFY(0, DX_ERR, S),
	MODIFY(0, DX_RESET, S),
	TGT_TO_RTS(0),
	MODIFY(0, DX_ERR, S),
	MODIFY(0, DX_RESET, S),
	TGT_TO_RTS(0),
	MODIFY(0, DX_SQD, S),
	MODIFY(0, DX_RESET, S),
	MODIFY(0, DX_ERR, S, .rc = -EINVAL),
	QUERY(0),
	DESTROY(0),
	FREE_XRCD(0),
	END
};

static const struct dx_step sc_modify_checks_attributes[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),
	MODIFY(0, DX_INIT, INIT_CONN, VARIANT(DX_V_PORT0), .rc = -EINVAL),
	MODIFY(0, DX_INIT, INIT_CONN, VARIANT(DX_V_PKEY64), .rc = -EINVAL),
	MODIFY(0, DX_INIT, INIT_CONN, VARIANT(DX_V_ACCESS_BAD), .rc = -EINVAL),
	MODIFY(0, DX_INIT, INIT_CONN),
	MODIFY(0, DX_RTR, RTR_RC, VARIANT(DX_V_MTU6), .rc = -EINVAL),
	MODIFY(0, DX_RTR, S | (1 << 22), .rc = -EOPNOTSUPP),	/* an unknown bit */
	MODIFY(0, DX_INIT, S | DX_M_RATE_LIMIT, .rc = -EINVAL),
	MODIFY(0, DX_INIT, S | DX_M_CAP, .rc = -EINVAL),
	MODIFY(0, DX_RTR, RTR_RC),
	QUERY(0),
	DESTROY(0),
	FREE_XRCD(0),
	END
};

static const struct dx_step sc_psn_masked_to_24_bits[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),
	MODIFY(0, DX_INIT, INIT_CONN),
	MODIFY(0, DX_RTR, RTR_RC, VARIANT(DX_V_BIG_PSN)),
	QUERY(0),
	MODIFY(0, DX_RTS, RTS_TGT, VARIANT(DX_V_BIG_PSN)),
	QUERY(0),
	DESTROY(0),
	FREE_XRCD(0),
	END
};

static const struct dx_step sc_any_share_one_state[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),
	OPEN(1, 0, 0),
	OPEN(2, 0, 0),
	MODIFY(2, DX_INIT, INIT_CONN),
	CLOSE(2),
	MODIFY(1, DX_RTR, RTR_RC),
	DESTROY(0),
	MODIFY(1, DX_RTS, RTS_TGT),
	QUERY(1),
	OPEN(3, 0, 1),
	QUERY(3),
	MODIFY(3, DX_RTS, RTS_TGT, .rc = -EINVAL),	/* RTS -> RTS takes no SQ_PSN */
	DESTROY(1),
	DESTROY(3),
	FREE_XRCD(0),
	END
};

/* ---- events ------------------------------------------------------------- */

static const struct dx_step sc_event_fanout_each_once[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),
	OPEN(1, 0, 0),
	OPEN(2, 0, 0),
	RAISE(0, DX_EV_QP_FATAL),	/* q0, q1, q2 once each, element = self */
	RAISE(2, DX_EV_COMM_EST),
	DESTROY(1), DESTROY(0), DESTROY(2),
	FREE_XRCD(0),
	END
};

static const struct dx_step sc_event_null_handler_skipped[] = {
	ALLOC_XRCD(0),
	TGT(0, 0, NOH),
	OPEN(1, 0, 0, NOH),
	OPEN(2, 0, 0),
	RAISE(0, DX_EV_QP_REQ_ERR),	/* q2 only */
	DESTROY(2),
	RAISE(0, DX_EV_QP_REQ_ERR),	/* nobody */
	DESTROY(0), DESTROY(1),
	FREE_XRCD(0),
	END
};

static const struct dx_step sc_event_none_after_close[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),
	OPEN(1, 0, 0),
	OPEN(2, 0, 0),
	CLOSE(1),
	RAISE(0, DX_EV_QP_FATAL),	/* q0, q2 */
	DESTROY(2),
	RAISE(0, DX_EV_QP_FATAL),	/* q0 */
	DESTROY(0),
	FREE_XRCD(0),
	END
};

static const struct dx_step sc_event_after_creator_gone[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),
	OPEN(1, 0, 0),
	DESTROY(0),
	RAISE(1, DX_EV_PATH_MIG),	/* q1 */
	DESTROY(1),
	FREE_XRCD(0),
	END
};

static const struct dx_step sc_event_orphan_then_reopen[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),
	CLOSE(0),
	RAISE(0, DX_EV_QP_FATAL),	/* delivered to nobody */
	OPEN(1, 0, 0),
	RAISE(0, DX_EV_QP_FATAL),	/* q1 */
	DESTROY(1),
	RAISE(0, DX_EV_QP_FATAL, .rc = -EINVAL),	/* no such QP any more */
	FREE_XRCD(0),
	END
};

static const struct dx_step sc_event_types_pass_through[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),
	OPEN(1, 0, 0),
	RAISE(0, DX_EV_QP_ACCESS_ERR),
	RAISE(0, DX_EV_SQ_DRAINED),
	RAISE(1, DX_EV_PATH_MIG_ERR),
	RAISE(1, DX_EV_LAST_WQE),
	DESTROY(0), DESTROY(1),
	FREE_XRCD(0),
	END
};

static const struct dx_step sc_event_ordinary_qps[] = {
	ALLOC_PD(0),
	MAKE_CQ(0),
	QP(0, DX_QPT_RC, 0, 0),
	QP(1, DX_QPT_UD, 0, 0, NOH),
	RAISE(0, DX_EV_COMM_EST),	/* q0, element = the QP itself */
	RAISE(1, DX_EV_QP_FATAL),	/* no handler: nobody */
	DESTROY(0), DESTROY(1),
	RAISE(0, DX_EV_COMM_EST, .rc = -EINVAL),
	FREE_CQ(0),
	FREE_PD(0),
	END
};

static const struct dx_step sc_event_qps_isolated[] = {
	ALLOC_XRCD(0),
	ALLOC_XRCD(1),
	TGT(0, 0),
	TGT(1, 0),
	TGT(2, 1),
	OPEN(3, 0, 0),
	OPEN(4, 0, 1),
	OPEN(5, 1, 2),
	RAISE(0, DX_EV_QP_FATAL),	/* q0, q3 */
	RAISE(1, DX_EV_COMM_EST),	/* q1, q4 */
	RAISE(2, DX_EV_QP_REQ_ERR),	/* q2, q5 */
	DESTROY(0), DESTROY(1), DESTROY(2), DESTROY(3), DESTROY(4), DESTROY(5),
	FREE_XRCD(0),
	FREE_XRCD(1),
	END
};

/* ---- SRQs, PDs, CQs ----------------------------------------------------- */

/* CQ_ERR reaches the CQ's own handler once, element = that CQ. */
static const struct dx_step sc_cq_event_reaches_handler[] = {
	MAKE_CQ(0),
	MAKE_CQ(1),
	RAISE_CQ(0, DX_EV_CQ_ERR),	/* cq 0 once, element cq 0 */
	RAISE_CQ(1, DX_EV_CQ_ERR),	/* cq 1 once, element cq 1 */
	FREE_CQ(0),
	FREE_CQ(1),
	END
};

/* A CQ created without a handler: the event is dropped, no crash. */
static const struct dx_step sc_cq_event_null_handler[] = {
	MAKE_CQ(0, NOH),
	MAKE_CQ(1),
	RAISE_CQ(0, DX_EV_CQ_ERR),	/* nobody called */
	RAISE_CQ(1, DX_EV_CQ_ERR),
	FREE_CQ(0),
	FREE_CQ(1),
	END
};

/* SRQ events on basic SRQs: the type passes, a NULL handler is skipped. */
static const struct dx_step sc_srq_event_basic[] = {
	ALLOC_PD(0),
	SRQ(0, 0),
	SRQ(1, 0, NOH),
	RAISE_SRQ(0, DX_EV_SRQ_LIMIT),	/* srq 0 once, element srq 0 */
	RAISE_SRQ(0, DX_EV_SRQ_ERR),
	RAISE_SRQ(1, DX_EV_SRQ_LIMIT),	/* nobody called */
	FREE_SRQ(0),
	FREE_SRQ(1),
	FREE_PD(0),
	END
};

/* SRQ events on an XRC SRQ, and CQ_ERR on the CQ it holds. */
static const struct dx_step sc_srq_event_xrc[] = {
	ALLOC_PD(0),
	MAKE_CQ(0),
	ALLOC_XRCD(0),
	XSRQ(0, 0, 0, 0),
	XSRQ(1, 0, 0, 0, NOH),
	RAISE_SRQ(0, DX_EV_SRQ_LIMIT),
	RAISE_SRQ(0, DX_EV_SRQ_ERR),
	RAISE_SRQ(1, DX_EV_SRQ_ERR),	/* nobody called */
	RAISE_CQ(0, DX_EV_CQ_ERR),	/* the CQ's handler, not the SRQs' */
	FREE_SRQ(0),
	FREE_SRQ(1),
	FREE_XRCD(0),
	FREE_CQ(0),
	FREE_PD(0),
	END
};

/*
 * After destroy the driver no longer knows the CQ/SRQ: the raise fails and
 * no handler runs. (Nothing is created after the destroys, so the stale
 * pointers the Linux side looks up cannot name a new object.)
 */
static const struct dx_step sc_cq_srq_event_none_after_destroy[] = {
	ALLOC_PD(0),
	MAKE_CQ(0),
	MAKE_CQ(1),
	ALLOC_XRCD(0),
	SRQ(0, 0),
	XSRQ(1, 0, 1, 0),
	RAISE_CQ(0, DX_EV_CQ_ERR),
	RAISE_SRQ(0, DX_EV_SRQ_ERR),
	RAISE_SRQ(1, DX_EV_SRQ_LIMIT),
	FREE_SRQ(0),
	FREE_SRQ(1),
	FREE_CQ(0),
	RAISE_CQ(0, DX_EV_CQ_ERR, .rc = -EINVAL),
	RAISE_SRQ(0, DX_EV_SRQ_ERR, .rc = -EINVAL),
	RAISE_SRQ(1, DX_EV_SRQ_LIMIT, .rc = -EINVAL),
	RAISE_CQ(1, DX_EV_CQ_ERR),	/* the other CQ still gets its own */
	FREE_CQ(1),
	RAISE_CQ(1, DX_EV_CQ_ERR, .rc = -EINVAL),
	FREE_XRCD(0),
	FREE_PD(0),
	END
};

static const struct dx_step sc_xrc_srq_takes_xrcd_usecnt[] = {
	ALLOC_PD(0),
	MAKE_CQ(0),
	ALLOC_XRCD(0),
	XSRQ(0, 0, 0, 0),		/* usecnt 1 */
	FREE_XRCD(0, .rc = -EBUSY),
	FREE_CQ(0, .rc = -EBUSY),
	FREE_SRQ(0),
	FREE_XRCD(0),
	FREE_CQ(0),
	FREE_PD(0),
	END
};

static const struct dx_step sc_xrc_srq_and_tgt_share_usecnt[] = {
	ALLOC_PD(0),
	MAKE_CQ(0),
	ALLOC_XRCD(0),
	TGT(0, 0),
	XSRQ(0, 0, 0, 0),		/* usecnt 2 */
	DESTROY(0),
	FREE_XRCD(0, .rc = -EBUSY),
	FREE_SRQ(0),
	FREE_XRCD(0),
	FREE_CQ(0),
	FREE_PD(0),
	END
};

static const struct dx_step sc_basic_srq_leaves_xrcd_alone[] = {
	ALLOC_PD(0),
	ALLOC_XRCD(0),
	SRQ(0, 0),
	FREE_XRCD(0),
	FREE_SRQ(0),
	FREE_PD(0),
	END
};

static const struct dx_step sc_xrc_srq_needs_xrcd[] = {
	ALLOC_PD(0),
	MAKE_CQ(0),
	XSRQ(0, 0, 0, DX_SRQ_XRC_NO_XRCD, .rc = -EINVAL),
	FREE_CQ(0),			/* nothing kept it */
	FREE_PD(0),
	END
};

static const struct dx_step sc_qp_on_srq[] = {
	ALLOC_PD(0),
	MAKE_CQ(0),
	SRQ(0, 0),
	QP_SRQ(0, DX_QPT_RC, 0, 0, 0),
	QUERY(0),
	FREE_SRQ(0, .rc = -EBUSY),
	DESTROY(0),
	FREE_SRQ(0),
	FREE_CQ(0),
	FREE_PD(0),
	END
};

static const struct dx_step sc_cq_busy_while_used[] = {
	ALLOC_PD(0),
	MAKE_CQ(0),
	MAKE_CQ(1),
	QP(0, DX_QPT_RC, 0, 0),
	FREE_CQ(0, .rc = -EBUSY),
	FREE_CQ(1),
	DESTROY(0),
	FREE_CQ(0),
	FREE_PD(0),
	END
};

/* ---- the documented divergences ----------------------------------------- */

/* D1: the driver fails the last destroy. */
static const struct dx_step sc_last_destroy_fails[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),
	INJECT(DX_INJ_DESTROY_QP, -EIO),
	/* Linux: 0, share freed, QP erased from the XRCD, left in the driver */
	DESTROY(0, DIV(D1, RC | QPS | OPENS, -EIO)),
	/* xqp's share still hears the QP; Linux's real QP has no one */
	RAISE(0, DX_EV_QP_FATAL, DIV(D1, QPS | OPENS | EVS, 0)),
	OPEN(1, 0, 0, .rc = -EINVAL, DIV(D1, RC | OUT | QPS | OPENS, 0)),
	DESTROY(1, XQ(D1, RC | QPS | OPENS, 0)),
	FREE_XRCD(0, .rc = -EBUSY, DIV(D1, QPS | OPENS, -EBUSY)),
	/* Linux: destroy the real QP by hand, drop usecnt by hand; xqp: retry */
	REAP(0, DIV(D1, 0, 0)),
	OPEN(1, 0, 0, .rc = -EINVAL),
	FREE_XRCD(0),
	END
};

/* D1 again: shares destroyed before do not reach the driver. */
static const struct dx_step sc_last_destroy_fails_after_others[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),
	OPEN(1, 0, 0),
	OPEN(2, 0, 0, NOH),
	INJECT(DX_INJ_DESTROY_QP, -EBUSY),
	DESTROY(1),
	DESTROY(0),
	DESTROY(2, DIV(D1, RC | QPS | OPENS, -EBUSY)),
	REAP(2, DIV(D1, 0, 0)),
	FREE_XRCD(0),
	END
};

/* D2: destroying a real XRC_TGT QP that has no share left. */
static const struct dx_step sc_destroy_shareless_real_qp[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),
	CLOSE(0),
	/* Linux would free it and leave it in the XRCD table: xqp only */
	DESTROY_REAL(0, XQ(D2, RC | XRCD | OPENS | DRV, 0)),
	/* Linux's legitimate way out: open a share, destroy it */
	OPEN(1, 0, 0, LX(D2, RC | OUT | XRCD | QPS | OPENS | DRV)),
	DESTROY(1, LX(D2, RC)),
	OPEN(2, 0, 0, .rc = -EINVAL),
	FREE_XRCD(0),
	END
};

/* D3: a PD in use. */
static const struct dx_step sc_dealloc_pd_in_use[] = {
	ALLOC_PD(0),
	MAKE_CQ(0),
	QP(0, DX_QPT_RC, 0, 0),
	FREE_PD(0, XQ(D3, RC, -EBUSY)),	/* Linux frees it under the QP */
	DESTROY(0),
	FREE_CQ(0),
	FREE_PD(0),
	END
};

/* D4: what one opened share costs. */
static const struct dx_step sc_compact_shares[] = {
	SIZES(DIV(D4, OUT, 0)),
	END
};

/* D5: modify with a port the device does not have. */
static const struct dx_step sc_modify_port_out_of_range[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),
	/* Linux reads port_data[2] out of bounds before the driver refuses */
	MODIFY(0, DX_INIT, INIT_CONN, VARIANT(DX_V_PORT2), XQ(D5, RC, -EINVAL)),
	MODIFY(0, DX_INIT, INIT_CONN),
	QUERY(0),
	DESTROY(0),
	FREE_XRCD(0),
	END
};

/* An address vector on a port the device does not have: -EINVAL on both
 * (this was D6, a parity gap the suite found; fixed in the core). */
static const struct dx_step sc_av_port_checked[] = {
	ALLOC_XRCD(0),
	TGT(0, 0),
	MODIFY(0, DX_INIT, INIT_CONN),
	MODIFY(0, DX_RTR, RTR_RC, VARIANT(DX_V_AV_PORT2), .rc = -EINVAL),
	MODIFY(0, DX_RESET, S),
	MODIFY(0, DX_INIT, INIT_CONN),
	MODIFY(0, DX_RTR, RTR_RC | DX_M_ALT_PATH, VARIANT(DX_V_ALT_AV_PORT2), .rc = -EINVAL),
	MODIFY(0, DX_RESET, S),
	MODIFY(0, DX_INIT, INIT_CONN),
	MODIFY(0, DX_RTR, RTR_RC | DX_M_ALT_PATH),
	QUERY(0),
	DESTROY(0),
	FREE_XRCD(0),
	END
};

/* D8: an XRC SRQ without its CQ. */
static const struct dx_step sc_xrc_srq_without_cq[] = {
	ALLOC_PD(0),
	ALLOC_XRCD(0),
	/* Linux increments ext.cq->usecnt before anyone checks: NULL deref */
	XSRQ(0, 0, -1, 0, XQ(D8, RC, -EINVAL)),
	FREE_XRCD(0),			/* nothing kept it */
	FREE_PD(0),
	END
};

#define SC(n, r) { #n, r, sc_##n }

const struct dx_scenario dx_scenarios[] = {
	SC(create_tgt_returns_share, "create returns the share"),
	SC(create_tgt_grants_caps, "create rewrites caps"),
	SC(query_sq_sig_type, "query reports the real QP's signalling type"),
	SC(create_tgt_rejects_caps, "create errors leave nothing"),
	SC(create_tgt_driver_error, "create errors leave nothing"),
	SC(create_tgt_needs_xrcd, "XRC_TGT needs an XRCD"),
	SC(create_rc_returns_real_qp, "other types return the real QP"),
	SC(create_every_type, "other types return the real QP"),
	SC(create_unknown_type, "D7"),
	SC(qpn_not_reused_at_once, "qp numbers"),
	SC(qpn_cursor_wraps, "qp numbers: 24 bits, never 0 or 1"),
	SC(open_requires_xrc_tgt_type, "open: EINVAL unless XRC_TGT"),
	SC(open_unknown_number, "open: EINVAL for an unknown number"),
	SC(open_other_xrcd_invisible, "open: another XRCD's QP is invisible"),
	SC(open_rc_number, "open: EINVAL for an unknown number"),
	SC(open_after_destroy, "open: EINVAL after the last share"),
	SC(opened_shares_take_no_usecnt, "opened shares take no usecnt"),
	SC(close_real_einval, "close: EINVAL on a real QP"),
	SC(close_last_keeps_qp_openable, "close never destroys"),
	SC(close_keeps_state, "close never destroys"),
	SC(close_one_of_many, "close never destroys"),
	SC(close_then_destroy_real_busy, "destroy: EBUSY on a real QP with shares"),
	SC(creator_not_special, "destroy: the creator is one share among equals"),
	SC(last_share_destroys, "destroy: the last share destroys"),
	SC(destroy_real_busy_with_shares, "destroy: EBUSY on a real QP with shares"),
	SC(xrcd_busy_until_all_gone, "dealloc_xrcd: EBUSY while in use"),
	SC(many_shares_mixed_order, "destroy: the last share destroys"),
	SC(two_xrcds_two_qps, "dealloc_xrcd: EBUSY while in use"),
	SC(tgt_walk_through_shares, "modify/query through any share"),
	SC(tgt_missing_required, "transition table: XRC_TGT"),
	SC(tgt_invalid_transitions, "transition table: XRC_TGT"),
	SC(rc_walk, "transition table: RC"),
	SC(rc_missing_required, "transition table: RC"),
	SC(uc_walk, "transition table: UC"),
	SC(ud_walk, "transition table: UD"),
	SC(xrc_ini_walk, "transition table: XRC_INI"),
	SC(cur_state_rules, "transition table: CUR_STATE"),
	SC(err_and_reset_from_everywhere, "transition table: ERR and RESET"),
	SC(modify_checks_attributes, "modify: attribute checks"),
	SC(psn_masked_to_24_bits, "modify: PSNs are 24 bits"),
	SC(any_share_one_state, "modify/query through any share"),
	SC(event_fanout_each_once, "events: each share once, element = share"),
	SC(event_null_handler_skipped, "events: NULL handler skipped"),
	SC(event_none_after_close, "events: none after close"),
	SC(event_after_creator_gone, "events: the creator is not special"),
	SC(event_orphan_then_reopen, "events: a share-less QP"),
	SC(event_types_pass_through, "events: the type is passed"),
	SC(event_ordinary_qps, "events: ordinary QPs"),
	SC(event_qps_isolated, "events: per real QP"),
	SC(xrc_srq_takes_xrcd_usecnt, "XRC SRQ counts in usecnt"),
	SC(xrc_srq_and_tgt_share_usecnt, "XRC SRQ counts in usecnt"),
	SC(basic_srq_leaves_xrcd_alone, "XRC SRQ counts in usecnt"),
	SC(xrc_srq_needs_xrcd, "XRC SRQ needs an XRCD"),
	SC(qp_on_srq, "usecnt of an SRQ"),
	SC(cq_busy_while_used, "usecnt of a CQ"),
	SC(cq_event_reaches_handler, "events: CQ, element = the CQ"),
	SC(cq_event_null_handler, "events: NULL handler skipped"),
	SC(srq_event_basic, "events: SRQ, element = the SRQ"),
	SC(srq_event_xrc, "events: SRQ, element = the SRQ"),
	SC(cq_srq_event_none_after_destroy, "events: none after destroy"),
	SC(last_destroy_fails, "D1"),
	SC(last_destroy_fails_after_others, "D1"),
	SC(destroy_shareless_real_qp, "D2"),
	SC(dealloc_pd_in_use, "D3"),
	SC(compact_shares, "D4"),
	SC(modify_port_out_of_range, "D5"),
	SC(av_port_checked, "ah ports"),
	SC(xrc_srq_without_cq, "D8"),
};

const unsigned int dx_nscenarios = ARRAY_SIZE(dx_scenarios);
