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
 * check at build time that the numbers below are both APIs' numbers. The
 * engine keeps the slots both use (struct dx_slots, diff_slots.c): an
 * executor only makes its API's calls and records what they returned.
 */
#ifndef XQP_KUNIT_DIFF_DEFS_H
#define XQP_KUNIT_DIFF_DEFS_H

#include <kunit/test.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/types.h>

/* Slots per scenario. */
#define DX_NX	3	/* XRCDs */
#define DX_NQ	8	/* QPs and shares */
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

/* Operations; the slots each uses are listed, and its own arguments (dx_step). */
enum dx_op {
	DX_END = 0,
	DX_ALLOC_XRCD,		/* x */
	DX_DEALLOC_XRCD,	/* x */
	DX_ALLOC_PD,		/* p */
	DX_DEALLOC_PD,		/* p */
	DX_CREATE_CQ,		/* c */
	DX_DESTROY_CQ,		/* c */
	DX_CREATE_TGT,		/* q <- XRC_TGT QP in x (x < 0: none); .create */
	DX_CREATE_QP,		/* q <- on p, c (send+recv), s (< 0: none); .create */
	DX_OPEN,		/* q <- open qpn in x; .open */
	DX_CLOSE,		/* q */
	DX_CLOSE_REAL,		/* the real QP behind q */
	DX_DESTROY,		/* q */
	DX_DESTROY_REAL,	/* the real QP behind q (kept after q is gone) */
	DX_MODIFY,		/* q; .modify */
	DX_QUERY,		/* q */
	DX_RAISE,		/* on qpn; .raise */
	DX_INJECT,		/* .inject */
	DX_CREATE_SRQ,		/* s <- on p; x >= 0: XRC SRQ of x with c (< 0: none) */
	DX_DESTROY_SRQ,		/* s */
	DX_REAP_LEAKED,		/* q: finish a last destroy that failed (D1) */
	DX_SIZES,		/* what an opened share costs */
	DX_QPN_CURSOR,		/* .cursor: where the driver's next QP number search starts */
	/*
	 * An event (.raise) on the CQ (SRQ) of slot c (s) as its driver raises
	 * it; on a dead slot, on the last one destroyed there (the stale
	 * pointer or number is only looked up, never followed): must fail, no
	 * handler.
	 */
	DX_RAISE_CQ_EVENT,	/* c; .raise */
	DX_RAISE_SRQ_EVENT,	/* s; .raise */
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
	DX_V_ACCESS_BAD,	/* an access flag no QP has (zero-based) */
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
	DX_DIV_DESTROY_SHARELESS,	/* D2 */
	DX_DIV_DEALLOC_PD_IN_USE,	/* D3 */
	DX_DIV_COMPACT_SHARES,		/* D4 */
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
#define DX_D_QP		0x08	/* QP slots alive, share counts, queried states */
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
	/* The op's own arguments: the member its comment in enum dx_op names. */
	union {
		struct {
			u8 qp_type;	/* DX_QPT_* */
			u8 caps;	/* DX_CAP_*: the wish list */
		} create;
		struct {
			u8 qp_type;	/* what the opener asks for */
		} open;
		struct {
			u8 state;	/* qp_state (and cur_qp_state) */
			u8 variant;	/* DX_V_*: which attribute is off */
			int mask;	/* DX_M_* */
		} modify;
		struct {
			u8 event;	/* DX_EV_* */
		} raise;
		struct {
			u8 op;		/* DX_INJ_* */
			int err;	/* what it returns */
		} inject;
		struct {
			u32 next;
		} cursor;
	};
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

struct dx_obs {
	int rc;
	int nout;
	long out[DX_NOUT];
	u8 xrcd_live;
	u32 usecnt[DX_NX];
	u8 pd_live, cq_live, srq_live;
	u16 qp_live;
	u32 shares[DX_NQ];
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

/* ---- the slots (diff_slots.c) ------------------------------------------- */

enum dx_kind { DX_K_QP, DX_K_CQ, DX_K_SRQ };

struct dx_slots;

/* An event handler's context: the slot it was registered for. */
struct dx_evctx {
	struct dx_slots *sl;
	u8 kind;			/* enum dx_kind */
	u8 slot;
};

/*
 * What a scenario holds, the same on both sides: each executor keeps its
 * API's pointers here (void *: struct ib_qp * or struct xqp_qp *, ...) and
 * lets the helpers below do the bookkeeping.
 */
struct dx_slots {
	void *xrcd[DX_NX];
	void *pd[DX_NP];
	void *cq[DX_NC];
	void *srq[DX_NS];
	void *qp[DX_NQ];		/* what the user holds: share or QP */
	void *real[DX_NQ];		/* the real QP behind it, while it lives */
	u32 qpn[DX_NQ];
	u32 qpn_valid;			/* bit per slot: qpn[] recorded */
	/* The last CQ/SRQ destroyed in a slot (only compared, never followed). */
	void *cq_gone[DX_NC];
	void *srq_gone[DX_NS];
	u32 srqn[DX_NS];		/* the XRC SRQ number of the live or last SRQ */
	u32 srq_made;			/* bit per slot: an SRQ was created there */
	struct dx_evctx qp_ctx[DX_NQ], cq_ctx[DX_NC], srq_ctx[DX_NS];
	struct dx_ev ev[DX_NQ], cq_ev[DX_NC], srq_ev[DX_NS];
};

void dx_slots_init(struct dx_slots *sl);
/* DX_RC_DEAD_SLOT when the slots @s names are not as its op needs, else 0. */
int dx_slots_check(const struct dx_slots *sl, const struct dx_step *s);
/* The qpn @src stands for: a slot's recorded number, or a literal. */
u32 dx_slots_qpn(const struct dx_slots *sl, int src);
/* Does a slot other than @q hold @qpn? */
bool dx_slots_qpn_reused(const struct dx_slots *sl, int q, u32 qpn);
/* Slot @q now holds @qp (behind it @real, numbered @qpn). */
void dx_slots_put_qp(struct dx_slots *sl, int q, void *qp, void *real, u32 qpn);
/* The real QP @real is gone: every slot that points to it forgets it. */
void dx_slots_forget_real(struct dx_slots *sl, void *real);
void dx_slots_put_srq(struct dx_slots *sl, int s, void *srq, u32 srqn);
void dx_slots_cq_gone(struct dx_slots *sl, int c);
void dx_slots_srq_gone(struct dx_slots *sl, int s);
/* The handler context of slot @slot of @kind, with or without a handler. */
void *dx_slots_evctx(struct dx_slots *sl, enum dx_kind kind, int slot);
/* Records an event delivered to @context (a dx_evctx) about @element. */
void dx_slots_event(void *context, const void *element, unsigned int type);
/* Fills what the slots tell of @o (live bits, events) and clears the events. */
void dx_slots_observe(struct dx_slots *sl, struct dx_obs *o);

/* The soft device under a context of dx_xqp_exec (the fault sweeps arm it). */
struct xqp_soft;
struct xqp_soft *dx_xqp_soft(void *ctx);

/*
 * For the executors: dx_keep() stores what a create returned in its slot,
 * or returns its error; dx_free() empties the slot when the free worked.
 * Both evaluate to an rc.
 */
#define dx_keep(slot, call)							\
	({									\
		void *__obj = (call);						\
										\
		if (!IS_ERR(__obj))						\
			(slot) = __obj;						\
		PTR_ERR_OR_ZERO(__obj);						\
	})
#define dx_free(slot, call)							\
	({									\
		int __rc = (call);						\
										\
		if (!__rc)							\
			(slot) = NULL;						\
		__rc;								\
	})

/* The reference device's API (symbol_get): 0, or -ENOENT if not loaded. */
int dx_linux_get_api(void);
void dx_linux_release_api(void);

/* The table (diff_scenarios.c). */
extern const struct dx_scenario dx_scenarios[];
extern const unsigned int dx_nscenarios;
extern const char *const dx_div_names[DX_DIVS];
extern const char *const dx_op_names[DX_OPS];	/* diff_engine.c */

/* The canonical attribute values of DX_MODIFY (both executors use them). */
#define DX_A_QKEY		0x11111
#define DX_A_ACCESS		0x7	/* local write, remote write, remote read */
#define DX_A_ACCESS_BAD		0x20	/* IB_ACCESS_ZERO_BASED: no QP flag */
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

/*
 * DX_MODIFY's attributes: @a (struct ib_qp_attr or struct xqp_qp_attr, the
 * same field names) gets the canonical values, then @s's variant. @DLID(ah)
 * names an address vector's DLID in that API (an lvalue). A statement.
 */
#define dx_fill_attr(a, s, DLID)						\
	do {									\
		memset((a), 0, sizeof(*(a)));					\
		(a)->qp_state = (s)->modify.state;				\
		(a)->cur_qp_state = (s)->modify.state;				\
		(a)->pkey_index = 0;						\
		(a)->port_num = 1;						\
		(a)->qkey = DX_A_QKEY;						\
		(a)->qp_access_flags = DX_A_ACCESS;				\
		(a)->path_mtu = DX_A_MTU;					\
		(a)->dest_qp_num = DX_A_DEST_QPN;				\
		(a)->rq_psn = DX_A_RQ_PSN;					\
		(a)->sq_psn = DX_A_SQ_PSN;					\
		(a)->max_rd_atomic = DX_A_RD_ATOMIC;				\
		(a)->max_dest_rd_atomic = DX_A_RD_ATOMIC;			\
		(a)->min_rnr_timer = DX_A_MIN_RNR;				\
		(a)->timeout = DX_A_TIMEOUT;					\
		(a)->retry_cnt = DX_A_RETRY;					\
		(a)->rnr_retry = DX_A_RETRY;					\
		(a)->path_mig_state = DX_A_MIG;					\
		(a)->en_sqd_async_notify = 1;					\
		(a)->ah_attr.port_num = 1;					\
		(a)->ah_attr.sl = DX_A_SL;					\
		DLID((a)->ah_attr) = DX_A_DLID;					\
		(a)->alt_ah_attr.port_num = 1;					\
		(a)->alt_ah_attr.sl = DX_A_SL;					\
		DLID((a)->alt_ah_attr) = DX_A_ALT_DLID;				\
		(a)->alt_port_num = 1;						\
		(a)->alt_pkey_index = 0;					\
		(a)->alt_timeout = DX_A_TIMEOUT;				\
		(a)->cap.max_send_wr = 8;					\
		(a)->cap.max_recv_wr = 8;					\
		(a)->cap.max_send_sge = 1;					\
		(a)->cap.max_recv_sge = 1;					\
		switch ((s)->modify.variant) {					\
		case DX_V_PORT0:						\
			(a)->port_num = 0;					\
			break;							\
		case DX_V_PORT2:						\
			(a)->port_num = 2;					\
			break;							\
		case DX_V_PKEY64:						\
			(a)->pkey_index = 64;					\
			break;							\
		case DX_V_MTU6:							\
			(a)->path_mtu = 6;					\
			break;							\
		case DX_V_BIG_PSN:						\
			(a)->rq_psn |= DX_A_PSN_HIGH;				\
			(a)->sq_psn |= DX_A_PSN_HIGH;				\
			break;							\
		case DX_V_AV_PORT2:						\
			(a)->ah_attr.port_num = 2;				\
			break;							\
		case DX_V_ALT_AV_PORT2:						\
			(a)->alt_ah_attr.port_num = 2;				\
			break;							\
		case DX_V_ACCESS_BAD:						\
			(a)->qp_access_flags |= DX_A_ACCESS_BAD;		\
			break;							\
		case DX_V_CUR_RESET:						\
			(a)->cur_qp_state = (int)DX_RESET;				\
			break;							\
		case DX_V_CUR_RTS:						\
			(a)->cur_qp_state = (int)DX_RTS;				\
			break;							\
		case DX_V_CUR_SQD:						\
			(a)->cur_qp_state = (int)DX_SQD;				\
			break;							\
		}								\
	} while (0)

/*
 * What DX_QUERY reports, in this order on both sides: @a and @init (either
 * API's query results), @DLID_OF(ah) reads an address vector's DLID, and
 * @same_num is whether the QP's number is its real QP's. A statement.
 */
#define dx_out_query(o, a, init, DLID_OF, same_num)				\
	do {									\
		long *__v = (o)->out;						\
		int __n = 0;							\
										\
		__v[__n++] = (a)->qp_state;					\
		__v[__n++] = (a)->cur_qp_state;					\
		__v[__n++] = (a)->port_num;					\
		__v[__n++] = (a)->pkey_index;					\
		__v[__n++] = (a)->qkey;						\
		__v[__n++] = (a)->qp_access_flags;				\
		__v[__n++] = (a)->path_mtu;					\
		__v[__n++] = (a)->dest_qp_num;					\
		__v[__n++] = (a)->rq_psn;					\
		__v[__n++] = (a)->sq_psn;					\
		__v[__n++] = (a)->timeout;					\
		__v[__n++] = (a)->retry_cnt;					\
		__v[__n++] = (a)->rnr_retry;					\
		__v[__n++] = (a)->min_rnr_timer;				\
		__v[__n++] = (a)->max_rd_atomic;				\
		__v[__n++] = (a)->max_dest_rd_atomic;				\
		__v[__n++] = (a)->path_mig_state;				\
		__v[__n++] = (a)->en_sqd_async_notify;				\
		__v[__n++] = (a)->cap.max_send_wr;				\
		__v[__n++] = (a)->cap.max_recv_wr;				\
		__v[__n++] = (a)->cap.max_send_sge;				\
		__v[__n++] = (a)->cap.max_recv_sge;				\
		__v[__n++] = (a)->cap.max_inline_data;				\
		__v[__n++] = (a)->ah_attr.port_num;				\
		__v[__n++] = DLID_OF((a)->ah_attr);				\
		__v[__n++] = (a)->ah_attr.sl;					\
		__v[__n++] = (a)->alt_port_num;					\
		__v[__n++] = DLID_OF((a)->alt_ah_attr);				\
		__v[__n++] = (init)->qp_type;					\
		__v[__n++] = (init)->cap.max_send_wr;				\
		__v[__n++] = (init)->sq_sig_type;				\
		__v[__n++] = (same_num);					\
		(o)->nout = __n;						\
	} while (0)

/*
 * What a create reports: whether the number is a valid 24-bit one, whether
 * another slot holds it, type, share or not, (DX_F_QPN) the number, then
 * the granted capabilities of @cap (struct ib_qp_cap or xqp_qp_cap).
 */
#define dx_out_create(o, sl, s, qpn, type, is_share, cap)			\
	do {									\
		int __n = 0;							\
										\
		(o)->out[__n++] = (qpn) >= 2 && (qpn) <= 0xffffff;		\
		(o)->out[__n++] = dx_slots_qpn_reused((sl), (s)->q, (qpn));	\
		(o)->out[__n++] = (type);					\
		(o)->out[__n++] = (is_share);					\
		if ((s)->flags & DX_F_QPN)					\
			(o)->out[__n++] = (qpn);				\
		(o)->out[__n++] = (cap)->max_send_wr;				\
		(o)->out[__n++] = (cap)->max_recv_wr;				\
		(o)->out[__n++] = (cap)->max_send_sge;				\
		(o)->out[__n++] = (cap)->max_recv_sge;				\
		(o)->out[__n++] = (cap)->max_inline_data;			\
		(o)->nout = __n;						\
	} while (0)

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
