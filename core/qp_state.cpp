// SPDX-License-Identifier: GPL-2.0
/*
 * The IB spec's QP state transition table (IBA 1.x, section 10.3 / 11.2.4.1)
 * and xqp_modify_qp_is_ok(), with the semantics of Linux 6.12's
 * ib_modify_qp_is_ok() for the QP types xqp knows: RC, UC, UD, XRC_INI and
 * XRC_TGT, and GSI, whose rows are UD's (as Linux's table has them). Any
 * other type value is never valid.
 *
 * The table is built at compile time: no static constructor runs for it.
 */
#include "xqp/verbs.h"

namespace {

constexpr int kStates = XQP_QPS_ERR + 1;

/* One attribute mask per QP type xqp supports. */
struct TypeMasks {
	int rc = 0;
	int uc = 0;
	int ud = 0;
	int xrc_ini = 0;
	int xrc_tgt = 0;
	int gsi = 0;	/* UD's without XQP_QP_PORT: build_table() */

	/* The mask for @type; nullptr for a type outside the table. */
	constexpr const int *of(enum xqp_qp_type type) const
	{
		switch (type) {
		case XQP_QPT_RC:
			return &rc;
		case XQP_QPT_UC:
			return &uc;
		case XQP_QPT_UD:
			return &ud;
		case XQP_QPT_GSI:
			return &gsi;
		case XQP_QPT_XRC_INI:
			return &xrc_ini;
		case XQP_QPT_XRC_TGT:
			return &xrc_tgt;
		}
		return nullptr;
	}
};

/* cur -> next: is it allowed at all, and which attributes it needs/allows. */
struct Transition {
	bool valid = false;
	TypeMasks req = {};
	TypeMasks opt = {};
};

struct StateTable {
	Transition t[kStates][kStates];
};

/* Attribute masks that recur in the table. */
constexpr int kPkeyPortAccess = XQP_QP_PKEY_INDEX | XQP_QP_PORT | XQP_QP_ACCESS_FLAGS;
constexpr int kPkeyPortQkey = XQP_QP_PKEY_INDEX | XQP_QP_PORT | XQP_QP_QKEY;
constexpr int kConnRtrReq = XQP_QP_AV | XQP_QP_PATH_MTU | XQP_QP_DEST_QPN | XQP_QP_RQ_PSN;
constexpr int kConnRtrOpt = XQP_QP_ALT_PATH | XQP_QP_ACCESS_FLAGS | XQP_QP_PKEY_INDEX;
constexpr int kRcRtsReq = XQP_QP_TIMEOUT | XQP_QP_RETRY_CNT | XQP_QP_RNR_RETRY |
			  XQP_QP_SQ_PSN | XQP_QP_MAX_QP_RD_ATOMIC;
/* Optional on every transition into RTS, per type (UD: CUR_STATE | QKEY). */
constexpr int kUcToRtsOpt = XQP_QP_CUR_STATE | XQP_QP_ALT_PATH | XQP_QP_ACCESS_FLAGS |
			    XQP_QP_PATH_MIG_STATE;
constexpr int kRcToRtsOpt = kUcToRtsOpt | XQP_QP_MIN_RNR_TIMER;
constexpr int kUdToRtsOpt = XQP_QP_CUR_STATE | XQP_QP_QKEY;

/* Marks cur -> next valid with no attribute required or allowed. */
constexpr void plain(StateTable &s, xqp_qp_state cur, xqp_qp_state next)
{
	s.t[cur][next].valid = true;
}

constexpr StateTable build_table()
{
	StateTable s{};

	/* From every state, RESET is valid; from every state but RESET, ERR. */
	for (int cur = XQP_QPS_RESET; cur <= XQP_QPS_ERR; cur++) {
		plain(s, xqp_qp_state(cur), XQP_QPS_RESET);
		if (cur != XQP_QPS_RESET)
			plain(s, xqp_qp_state(cur), XQP_QPS_ERR);
	}

	s.t[XQP_QPS_RESET][XQP_QPS_INIT] = {
		.valid = true,
		.req = { .rc = kPkeyPortAccess, .uc = kPkeyPortAccess,
			 .ud = kPkeyPortQkey, .xrc_ini = kPkeyPortAccess,
			 .xrc_tgt = kPkeyPortAccess },
	};

	s.t[XQP_QPS_INIT][XQP_QPS_INIT] = {
		.valid = true,
		.opt = { .rc = kPkeyPortAccess, .uc = kPkeyPortAccess,
			 .ud = kPkeyPortQkey, .xrc_ini = kPkeyPortAccess,
			 .xrc_tgt = kPkeyPortAccess },
	};

	s.t[XQP_QPS_INIT][XQP_QPS_RTR] = {
		.valid = true,
		.req = { .rc = kConnRtrReq | XQP_QP_MAX_DEST_RD_ATOMIC | XQP_QP_MIN_RNR_TIMER,
			 .uc = kConnRtrReq,
			 .ud = 0,
			 .xrc_ini = kConnRtrReq,
			 .xrc_tgt = kConnRtrReq | XQP_QP_MAX_DEST_RD_ATOMIC |
				    XQP_QP_MIN_RNR_TIMER },
		.opt = { .rc = kConnRtrOpt, .uc = kConnRtrOpt,
			 .ud = XQP_QP_PKEY_INDEX | XQP_QP_QKEY,
			 .xrc_ini = kConnRtrOpt, .xrc_tgt = kConnRtrOpt },
	};

	s.t[XQP_QPS_RTR][XQP_QPS_RTS] = {
		.valid = true,
		.req = { .rc = kRcRtsReq, .uc = XQP_QP_SQ_PSN, .ud = XQP_QP_SQ_PSN,
			 .xrc_ini = kRcRtsReq,
			 .xrc_tgt = XQP_QP_TIMEOUT | XQP_QP_SQ_PSN },
		.opt = { .rc = kRcToRtsOpt, .uc = kUcToRtsOpt, .ud = kUdToRtsOpt,
			 .xrc_ini = kUcToRtsOpt, .xrc_tgt = kRcToRtsOpt },
	};

	s.t[XQP_QPS_RTS][XQP_QPS_RTS] = s.t[XQP_QPS_RTR][XQP_QPS_RTS];
	s.t[XQP_QPS_RTS][XQP_QPS_RTS].req = {};

	s.t[XQP_QPS_RTS][XQP_QPS_SQD] = {
		.valid = true,
		.opt = { .rc = XQP_QP_EN_SQD_ASYNC_NOTIFY,
			 .uc = XQP_QP_EN_SQD_ASYNC_NOTIFY,
			 .ud = XQP_QP_EN_SQD_ASYNC_NOTIFY,
			 .xrc_ini = XQP_QP_EN_SQD_ASYNC_NOTIFY,
			 .xrc_tgt = XQP_QP_EN_SQD_ASYNC_NOTIFY },
	};

	s.t[XQP_QPS_SQD][XQP_QPS_RTS] = s.t[XQP_QPS_RTS][XQP_QPS_RTS];

	s.t[XQP_QPS_SQD][XQP_QPS_SQD] = {
		.valid = true,
		.opt = { .rc = XQP_QP_PORT | XQP_QP_AV | XQP_QP_TIMEOUT |
			       XQP_QP_RETRY_CNT | XQP_QP_RNR_RETRY |
			       XQP_QP_MAX_QP_RD_ATOMIC | XQP_QP_MAX_DEST_RD_ATOMIC |
			       XQP_QP_ALT_PATH | XQP_QP_ACCESS_FLAGS |
			       XQP_QP_PKEY_INDEX | XQP_QP_MIN_RNR_TIMER |
			       XQP_QP_PATH_MIG_STATE,
			 .uc = XQP_QP_AV | XQP_QP_ALT_PATH | XQP_QP_ACCESS_FLAGS |
			       XQP_QP_PKEY_INDEX | XQP_QP_PATH_MIG_STATE,
			 .ud = XQP_QP_PKEY_INDEX | XQP_QP_QKEY,
			 .xrc_ini = XQP_QP_PORT | XQP_QP_AV | XQP_QP_TIMEOUT |
				    XQP_QP_RETRY_CNT | XQP_QP_RNR_RETRY |
				    XQP_QP_MAX_QP_RD_ATOMIC | XQP_QP_ALT_PATH |
				    XQP_QP_ACCESS_FLAGS | XQP_QP_PKEY_INDEX |
				    XQP_QP_PATH_MIG_STATE,
			 .xrc_tgt = XQP_QP_PORT | XQP_QP_AV | XQP_QP_TIMEOUT |
				    XQP_QP_MAX_DEST_RD_ATOMIC | XQP_QP_ALT_PATH |
				    XQP_QP_ACCESS_FLAGS | XQP_QP_PKEY_INDEX |
				    XQP_QP_MIN_RNR_TIMER | XQP_QP_PATH_MIG_STATE },
	};

	/* SQE -> RTS: valid for every type; attributes allowed only for UC and UD. */
	s.t[XQP_QPS_SQE][XQP_QPS_RTS] = {
		.valid = true,
		.opt = { .uc = XQP_QP_CUR_STATE | XQP_QP_ACCESS_FLAGS,
			 .ud = kUdToRtsOpt },
	};

	/* GSI (QP1): UD's rows less the port, which a special QP has for good */
	for (int cur = XQP_QPS_RESET; cur <= XQP_QPS_ERR; cur++) {
		for (int next = XQP_QPS_RESET; next <= XQP_QPS_ERR; next++) {
			Transition &t = s.t[cur][next];
			t.req.gsi = t.req.ud & ~XQP_QP_PORT;
			t.opt.gsi = t.opt.ud & ~XQP_QP_PORT;
		}
	}
	return s;
}

constexpr StateTable qp_state_table = build_table();

/* Compile-time spot checks against Linux 6.12's table. */
static_assert(qp_state_table.t[XQP_QPS_ERR][XQP_QPS_ERR].valid);
static_assert(!qp_state_table.t[XQP_QPS_RESET][XQP_QPS_ERR].valid);
static_assert(!qp_state_table.t[XQP_QPS_RTR][XQP_QPS_RTR].valid);
static_assert(!qp_state_table.t[XQP_QPS_SQE][XQP_QPS_SQE].valid);
static_assert(qp_state_table.t[XQP_QPS_RTS][XQP_QPS_RTS].req.rc == 0);
static_assert(qp_state_table.t[XQP_QPS_SQD][XQP_QPS_RTS].opt.xrc_tgt ==
	      (XQP_QP_CUR_STATE | XQP_QP_ALT_PATH | XQP_QP_ACCESS_FLAGS |
	       XQP_QP_MIN_RNR_TIMER | XQP_QP_PATH_MIG_STATE));
static_assert(qp_state_table.t[XQP_QPS_SQE][XQP_QPS_RTS].opt.rc == 0);
static_assert(qp_state_table.t[XQP_QPS_RESET][XQP_QPS_INIT].req.gsi ==
	      (XQP_QP_PKEY_INDEX | XQP_QP_QKEY));
static_assert(qp_state_table.t[XQP_QPS_RTR][XQP_QPS_RTS].req.gsi == XQP_QP_SQ_PSN);

} // namespace

/**
 * xqp_modify_qp_is_ok - may a QP of @type go from @cur to @next with @mask?
 * @cur: the QP's current state (attr->cur_qp_state if IB_QP_CUR_STATE is set).
 * @next: the requested state (@cur when IB_QP_STATE is not set).
 * @type: the QP's type.
 * @mask: the attribute mask of the modify call.
 *
 * As ib_modify_qp_is_ok(): the transition must be in the IB spec's table,
 * every attribute it requires for @type must be in @mask, and @mask may hold
 * nothing but required and optional attributes and XQP_QP_STATE.
 * XQP_QP_CUR_STATE is accepted only where the table lists it, which is on
 * transitions out of RTR, RTS, SQD and SQE. XQP_QP_RATE_LIMIT is optional
 * only for raw packet QPs in Linux, so it is never accepted here.
 * Out-of-range states and unknown types are refused rather than indexed.
 *
 * Context: any.
 * Return: 1 if the transition is allowed, 0 if not.
 */
extern "C" int xqp_modify_qp_is_ok(enum xqp_qp_state cur, enum xqp_qp_state next,
				   enum xqp_qp_type type, int mask)
{
	if (static_cast<unsigned int>(cur) > XQP_QPS_ERR ||
	    static_cast<unsigned int>(next) > XQP_QPS_ERR)
		return 0;

	if ((mask & XQP_QP_CUR_STATE) && cur != XQP_QPS_RTR && cur != XQP_QPS_RTS &&
	    cur != XQP_QPS_SQD && cur != XQP_QPS_SQE)
		return 0;

	const Transition &t = qp_state_table.t[cur][next];
	if (!t.valid)
		return 0;

	const int *req = t.req.of(type);
	const int *opt = t.opt.of(type);
	if (!req || !opt)
		return 0;

	if ((mask & *req) != *req)
		return 0;

	if (mask & ~(*req | *opt | XQP_QP_STATE))
		return 0;

	return 1;
}
