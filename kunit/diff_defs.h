/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The differential suite (xqp_diff): one table of scenarios, run step by step
 * against Linux's ib_core (on a fresh xqp_refdev) and against xqp's core (on
 * a fresh soft device), comparing after every step what each returned and
 * everything observable. Steps that differ on purpose carry the divergence
 * they show (docs/divergences.md) and must differ exactly as annotated.
 *
 * This header is neutral: it includes neither <rdma/ib_verbs.h> nor
 * xqp/verbs.h. The two executors (diff_linux.c, diff_xqp.c) translate, and
 * check at build time that the numbers below are both APIs' numbers.
 */
#ifndef XQP_KUNIT_DIFF_DEFS_H
#define XQP_KUNIT_DIFF_DEFS_H

#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/types.h>

/* Slots per scenario. */
#define DX_NX	3	/* XRCDs */
#define DX_NQ	8	/* QPs and handles */
#define DX_NP	2	/* PDs */
#define DX_NC	2	/* CQs */
#define DX_NS	2	/* SRQs */
#define DX_NOUT	40	/* outputs of one op */

/* QP types, states, attribute bits, events: Linux's (and xqp's) values. */
enum {
	DX_QPT_RC = 2, DX_QPT_UC = 3, DX_QPT_UD = 4, DX_QPT_RAW_PACKET = 8,
	DX_QPT_XRC_INI = 9, DX_QPT_XRC_TGT = 10,
};
enum { DX_RESET, DX_INIT, DX_RTR, DX_RTS, DX_SQD, DX_SQE, DX_ERR };
enum {
	DX_M_STATE = 1 << 0, DX_M_CUR_STATE = 1 << 1, DX_M_EN_SQD = 1 << 2,
	DX_M_ACCESS = 1 << 3, DX_M_PKEY = 1 << 4, DX_M_PORT = 1 << 5,
	DX_M_QKEY = 1 << 6, DX_M_AV = 1 << 7, DX_M_MTU = 1 << 8,
	DX_M_TIMEOUT = 1 << 9, DX_M_RETRY = 1 << 10, DX_M_RNR_RETRY = 1 << 11,
	DX_M_RQ_PSN = 1 << 12, DX_M_MAX_QP_RD = 1 << 13, DX_M_ALT_PATH = 1 << 14,
	DX_M_MIN_RNR = 1 << 15, DX_M_SQ_PSN = 1 << 16, DX_M_MAX_DEST_RD = 1 << 17,
	DX_M_MIG = 1 << 18, DX_M_CAP = 1 << 19, DX_M_DEST_QPN = 1 << 20,
	DX_M_RATE_LIMIT = 1 << 25,
};
enum {
	DX_EV_QP_FATAL = 1, DX_EV_QP_REQ_ERR = 2, DX_EV_QP_ACCESS_ERR = 3,
	DX_EV_COMM_EST = 4, DX_EV_SQ_DRAINED = 5, DX_EV_PATH_MIG = 6,
	DX_EV_PATH_MIG_ERR = 7, DX_EV_LAST_WQE = 16,
	DX_EV_CQ_ERR = 0, DX_EV_SRQ_ERR = 14, DX_EV_SRQ_LIMIT = 15,
};

/* Operations; the slots each uses are listed. */
enum dx_op {
	DX_END = 0,
	DX_ALLOC_XRCD,		/* x */
	DX_DEALLOC_XRCD,	/* x */
	DX_ALLOC_PD,		/* p */
	DX_DEALLOC_PD,		/* p */
	DX_CREATE_CQ,		/* c */
	DX_DESTROY_CQ,		/* c */
	DX_CREATE_TGT,		/* q <- QP of type var in x (x < 0: none); arg: caps */
	DX_CREATE_QP,		/* q <- type var on p, c (send+recv), s (< 0: none) */
	DX_OPEN,		/* q <- open qpn in x; arg: qp_type */
	DX_CLOSE,		/* q */
	DX_CLOSE_REAL,		/* the real QP behind q */
	DX_DESTROY,		/* q */
	DX_DESTROY_REAL,	/* the real QP behind q (kept after q is gone) */
	DX_MODIFY,		/* q; arg: state, mask, var: attribute variant */
	DX_QUERY,		/* q */
	DX_RAISE,		/* event arg on qpn */
	DX_INJECT,		/* arg: DX_INJ_*, err */
	DX_CREATE_SRQ,		/* s <- on p; x >= 0: XRC SRQ of x with c (< 0: none) */
	DX_DESTROY_SRQ,		/* s */
	DX_REAP_LEAKED,		/* q: finish a last destroy that failed (D1) */
	DX_SIZES,		/* what an opened handle costs */
	DX_QPN_CURSOR,		/* the driver's next QP number search starts at arg */
	/*
	 * Event arg on the CQ (SRQ) of slot c (s) as its driver raises it; on
	 * a dead slot, on the last one destroyed there (the stale pointer or
	 * number is only looked up, never followed): must fail, no handler.
	 */
	DX_RAISE_CQ_EVENT,	/* c; arg: event */
	DX_RAISE_SRQ_EVENT,	/* s; arg: event */
	DX_OPS
};

/* Where a qpn comes from: a slot's recorded number, or a literal. */
#define DX_QPN_BOGUS	(-1)	/* a free 24-bit number: 0xabcde */
#define DX_QPN_ZERO	(-2)	/* QP0 */
#define DX_QPN_ONE	(-3)	/* QP1 */
#define DX_QPN_HUGE	(-4)	/* 0x1000000: past 24 bits */

/* DX_CREATE_SRQ: an XRC SRQ without an XRCD (x slot value). */
#define DX_SRQ_XRC_NO_XRCD	(-2)

/* Injectable driver ops. */
enum { DX_INJ_CREATE_QP = 1, DX_INJ_DESTROY_QP };

/* Attribute variants of DX_MODIFY (valid values otherwise). */
enum {
	DX_V_OK = 0,
	DX_V_PORT0,		/* port_num 0 */
	DX_V_PORT2,		/* port_num 2 (the device has one port) */
	DX_V_PKEY64,		/* pkey_index 64 (64 P_Keys) */
	DX_V_MTU6,		/* path_mtu 6 */
	DX_V_BIG_PSN,		/* rq_psn, sq_psn beyond 24 bits */
	DX_V_AV_PORT2,		/* ah_attr.port_num 2 */
	DX_V_ALT_AV_PORT2,	/* alt_ah_attr.port_num 2, alt_port_num 1 */
	DX_V_ACCESS_BAD,	/* an access flag the device lacks (MW bind) */
	DX_V_CUR_RESET,		/* cur_qp_state RESET */
	DX_V_CUR_RTS,		/* cur_qp_state RTS */
	DX_V_CUR_SQD,		/* cur_qp_state SQD */
};

/* Capability sets of DX_CREATE_TGT / DX_CREATE_QP. */
enum {
	DX_CAP_NONE = 0, DX_CAP_SMALL, DX_CAP_ODD, DX_CAP_TOO_MANY_WR,
	DX_CAP_TOO_MANY_SGE, DX_CAP_FLAGS,
};

/* Which executors run a step. */
enum { DX_BOTH = 0, DX_XQ_ONLY, DX_LX_ONLY };

/* Flags of a step. */
#define DX_F_NO_HANDLER	0x1	/* create/open (QP, CQ, SRQ) without an event handler */
#define DX_F_QPN	0x2	/* create: report the QP number itself */
#define DX_F_SIG_ALL	0x4	/* create: sq_sig_type ALL_WR (else REQ_WR) */

/* Divergences (docs/divergences.md); 0: none, the two must agree. */
enum {
	DX_DIV_NONE = 0,
	DX_DIV_LAST_DESTROY_FAILS,	/* D1 */
	DX_DIV_DESTROY_HANDLELESS,	/* D2 */
	DX_DIV_DEALLOC_PD_IN_USE,	/* D3 */
	DX_DIV_COMPACT_HANDLES,		/* D4 */
	DX_DIV_MODIFY_BAD_PORT,		/* D5 */
	/* D6 (AV port unchecked) was a parity gap, fixed: both sides agree now */
	DX_DIV_UNKNOWN_QP_TYPE,		/* D7 */
	DX_DIV_XRC_SRQ_WITHOUT_CQ,	/* D8 */
	DX_DIVS
};

/* What differs (an observation category), for annotations and reports. */
#define DX_D_RC		0x01	/* the step's return code */
#define DX_D_OUT	0x02	/* what the op reported (caps, attributes...) */
#define DX_D_XRCD	0x04	/* XRCDs alive and their usecnt */
#define DX_D_QP		0x08	/* QP slots alive, handle counts, queried states */
#define DX_D_OPEN	0x10	/* which recorded qpns are openable in which XRCD */
#define DX_D_EV		0x20	/* events delivered during the step */
#define DX_D_OBJ	0x40	/* PD, CQ, SRQ slots alive */
#define DX_D_DRV	0x80	/* live objects in the driver */

/* An rc for a step an executor did not run, or could not (dead slot). */
#define DX_RC_NOT_RUN	1000
#define DX_RC_DEAD_SLOT	1001

struct dx_step {
	u8 op;
	s8 q, x, p, c, s;
	s8 qpn;		/* slot whose qpn, or DX_QPN_* */
	u8 flags;
	u8 side;
	u8 div;		/* DX_DIV_*: a documented divergence */
	u8 dmask;	/* DX_D_*: exactly what differs at this step */
	int arg, mask, var;
	int rc;		/* expected rc on Linux (both, if no divergence) */
	int xrc;	/* expected rc on xqp when div is set */
};

struct dx_scenario {
	const char *name;
	const char *rule;	/* the spec rule it shows */
	const struct dx_step *steps;
};

/* Everything a step can be judged by, from one executor. */
struct dx_ev {
	u16 calls;
	s8 elem;	/* slot of element.qp of the last one; -1 none, -2 unknown */
	u8 type;
};

/*
 * Records one event in @rec: one more call, its type @evtype, and which slot
 * of the array @slots its element @element is (-2 when none is). Both
 * executors' handlers (QP, CQ, SRQ) use it, each with its own slot array.
 */
#define dx_ev_record(rec, slots, element, evtype)				\
	do {									\
		int __i;							\
										\
		(rec)->elem = -2;						\
		for (__i = 0; __i < ARRAY_SIZE(slots); __i++)			\
			if ((slots)[__i] && (slots)[__i] == (element))		\
				(rec)->elem = __i;				\
		(rec)->calls++;							\
		(rec)->type = (evtype);						\
	} while (0)

struct dx_obs {
	int rc;
	int nout;
	long out[DX_NOUT];
	u8 xrcd_live;
	u32 usecnt[DX_NX];
	u8 pd_live, cq_live, srq_live;
	u16 qp_live;
	u32 handles[DX_NQ];
	int state[DX_NQ];	/* queried qp_state, or the query's -errno */
	u32 open_bits;		/* bit q * DX_NX + x: qpn of q openable in x */
	struct dx_ev ev[DX_NQ];
	struct dx_ev cq_ev[DX_NC];	/* elem: slot of element.cq */
	struct dx_ev srq_ev[DX_NS];	/* elem: slot of element.srq */
	u32 drv[5];		/* pd, cq, xrcd, srq, qp alive in the driver */
};

/* One executor: an API and a device under it. */
struct dx_exec {
	const char *name;
	/* A fresh device; NULL and a kunit_skip/fail message when impossible. */
	void *(*setup)(struct kunit *test);
	/* Runs @s; returns its rc and fills @o->out/nout. */
	int (*run)(void *ctx, const struct dx_step *s, struct dx_obs *o);
	/* Fills the rest of @o (and clears the events recorded so far). */
	void (*observe)(void *ctx, struct dx_obs *o);
	/* Destroys everything left; removes the device; returns objects leaked. */
	unsigned int (*teardown)(void *ctx, struct kunit *test);
};

extern const struct dx_exec dx_linux_exec;
extern const struct dx_exec dx_xqp_exec;

/* The reference device's API (symbol_get): 0, or -ENOENT if not loaded. */
int dx_linux_get_api(void);
void dx_linux_release_api(void);

/* The table (diff_scenarios.c). */
extern const struct dx_scenario dx_scenarios[];
extern const unsigned int dx_nscenarios;
extern const char *const dx_div_names[DX_DIVS];

/* The canonical attribute values of DX_MODIFY (both executors use them). */
#define DX_A_QKEY		0x11111
#define DX_A_ACCESS		0x7	/* local write, remote write, remote read */
#define DX_A_ACCESS_BAD		0x10	/* IB_ACCESS_MW_BIND */
#define DX_A_MTU		3	/* IB_MTU_1024 */
#define DX_A_DEST_QPN		0x42
#define DX_A_RQ_PSN		0x100
#define DX_A_SQ_PSN		0x200
#define DX_A_PSN_HIGH		0x1000000
#define DX_A_RD_ATOMIC		4
#define DX_A_MIN_RNR		12
#define DX_A_TIMEOUT		14
#define DX_A_RETRY		7
#define DX_A_MIG		1	/* IB_MIG_REARM */
#define DX_A_DLID		0x21
#define DX_A_ALT_DLID		0x22
#define DX_A_SL			3

/* A capability set: the wish list of a create. */
struct dx_cap {
	u32 send_wr, recv_wr, send_sge, recv_sge, inline_data;
	u32 create_flags;
};

static inline struct dx_cap dx_cap_set(int set)
{
	switch (set) {
	case DX_CAP_SMALL:
		return (struct dx_cap){ 3, 5, 1, 1, 0, 0 };
	case DX_CAP_ODD:
		return (struct dx_cap){ 100, 1000, 3, 2, 60, 0 };
	case DX_CAP_TOO_MANY_WR:
		return (struct dx_cap){ 16385, 1, 1, 1, 0, 0 };
	case DX_CAP_TOO_MANY_SGE:
		return (struct dx_cap){ 1, 1, 1, 33, 0, 0 };
	case DX_CAP_FLAGS:	/* IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK */
		return (struct dx_cap){ 1, 1, 1, 1, 0, 1 << 1 };
	default:
		return (struct dx_cap){ 0, 0, 0, 0, 0, 0 };
	}
}

/* The literal qpn a DX_QPN_* stands for. */
static inline u32 dx_literal_qpn(int src)
{
	switch (src) {
	case DX_QPN_ZERO:
		return 0;
	case DX_QPN_ONE:
		return 1;
	case DX_QPN_HUGE:
		return 0x1000000;
	default:
		return 0xabcde;
	}
}

#endif
