/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Resource walk: the objects of one device as `xqp res show` reports them
 * (uverbs/nl_res.c), read under the core's own locks.
 *
 * A walk visits one type of object and is resumable: the caller keeps a
 * struct xqp_res_cursor between calls (a netlink dump keeps it between
 * callbacks) and each call visits at most @budget objects. Nothing is
 * pinned between calls; the cursor holds numbers only (resource ids, QP
 * numbers), so objects created or destroyed in between are simply seen or
 * not, and none is visited twice.
 *
 * Order: PDs, CQs, SRQs, XRCDs, MRs and ordinary QPs newest first (by
 * resource id, descending: the device lists' own order); then XRC target
 * QPs, XRCD by XRCD (newest first), each XRCD's QPs by QP number.
 *
 * Resource ids are given when an object is tracked by its device: unique on
 * the device, increasing, never reused while the device lives (rdma's pdn,
 * cqn, ...). XRC target QPs are named by their QP number.
 *
 * No kernel pointer reaches a report through this API by accident: the
 * pointers in an entry (owner, handler, context, uobj) are for the caller
 * to recognise its own objects with, never to print.
 */
#ifndef XQP_RES_H
#define XQP_RES_H

#include "xqp/verbs.h"

XQP_EXTERN_C_BEGIN

enum xqp_res_type {
	XQP_RES_PD,
	XQP_RES_CQ,
	XQP_RES_XRCD,
	XQP_RES_SRQ,
	XQP_RES_QP,
	XQP_RES_MR,
	XQP_RES_NR_TYPES,
};

/* Handles of one shared QP listed in one entry (all are counted). */
#define XQP_RES_SHARES_MAX 32

/* One share of a shared QP: who holds it. */
struct xqp_res_share {
	xqp_event_handler_t handler;	/* as opened or created */
	void *context;
	void *uobj;			/* the creator's (xqp_create_qp_user()) */
};

struct xqp_res_qp {
	xqp_u32 qp_num;
	enum xqp_qp_type type;
	xqp_u32 pd, send_cq, recv_cq, srq;	/* resource ids, 0: none */
	xqp_u32 xrcd;			/* XRC_TGT: its XRCD's id */
	xqp_u32 xrcd_usecnt;
	int dying;			/* its last share is being destroyed */
	const char *caller;		/* kernel creator's module name, or NULL */
	xqp_u32 share_count;		/* XRC_TGT: every share */
	xqp_u32 nshares;		/* listed below (<= XQP_RES_SHARES_MAX) */
	struct xqp_res_share shares[XQP_RES_SHARES_MAX];
};

struct xqp_res_entry {
	enum xqp_res_type type;
	xqp_u32 id;			/* resource id; 0 for an XRC_TGT QP */
	xqp_u32 usecnt;			/* PD, CQ, SRQ, XRCD */
	void *owner;			/* xqp_res_set_owner(); ordinary QP: its uobj */
	xqp_event_handler_t handler;	/* CQ, SRQ, ordinary QP */
	void *context;
	union {
		struct { int cqe; } cq;
		struct {
			xqp_u32 srq_num;
			enum xqp_srq_type type;
			xqp_u32 pd, cq, xrcd;
		} srq;
		struct { xqp_u64 inode; } xrcd;	/* xqp_xrcd_set_res_inode(), 0: none */
		struct {
			xqp_u32 lkey, rkey, pd;
			xqp_u64 length;
		} mr;
		struct xqp_res_qp qp;
	};
};

/* Where a walk stands; zero it to start. Only xqp_res_walk() writes it. */
struct xqp_res_cursor {
	xqp_u32 started;
	xqp_u32 phase;		/* QPs: 0 ordinary, 1 XRC_TGT */
	xqp_u32 id;		/* the last resource id visited (phase 1: the XRCD's) */
	xqp_u32 qp_num;		/* phase 1: the next QP number to look at */
};

/* What an emit callback returns. */
enum xqp_res_emit {
	XQP_RES_TAKEN,		/* reported or filtered out: go on */
	XQP_RES_FULL,		/* no room: stop; this entry comes first next time */
};

typedef enum xqp_res_emit (*xqp_res_emit_t)(void *arg, const struct xqp_res_entry *e);

/**
 * xqp_res_walk - visit the objects of one type on a device, resumably.
 * @dev: the device (alive: the caller fences unregistration).
 * @type: which objects.
 * @cur: where the previous call stopped (zeroed for the first).
 * @scratch: the entry the walk fills for @emit (callers allocate it: an
 *	     entry with its shares is too large for a kernel stack).
 * @budget: most objects visited (emitted or filtered) in this call, >= 1.
 * @emit: called for each object, with the device's mutex held and in an RCU
 *	  read-side section: it must not sleep. What an entry points at stays
 *	  valid until @emit returns (a uobj the caller freed by RCU after
 *	  destroying the object included).
 * @arg: for @emit.
 *
 * Context: may sleep (takes the device's mutex).
 * Return: 0 when every object was visited, 1 when stopped early (budget, or
 * @emit said XQP_RES_FULL; call again with @cur), -EINVAL for a bad type or
 * budget, -EIO for a removed device.
 */
int xqp_res_walk(struct xqp_device *dev, enum xqp_res_type type,
		 struct xqp_res_cursor *cur, struct xqp_res_entry *scratch,
		 xqp_u32 budget, xqp_res_emit_t emit, void *arg);

/*
 * The owner an entry reports for an object (e.g. the uverbs object that
 * holds it). Set once it is created; an owner that goes away while the
 * object stays (a shared XRCD's first opener) clears itself with
 * xqp_xrcd_clear_res_owner() before it is freed. Any context.
 */
void xqp_pd_set_res_owner(struct xqp_pd *pd, void *owner);
void xqp_cq_set_res_owner(struct xqp_cq *cq, void *owner);
void xqp_srq_set_res_owner(struct xqp_srq *srq, void *owner);
void xqp_xrcd_set_res_owner(struct xqp_xrcd *xrcd, void *owner);
void xqp_mr_set_res_owner(struct xqp_mr *mr, void *owner);
/* Clears the XRCD's owner if it is @owner. */
void xqp_xrcd_clear_res_owner(struct xqp_xrcd *xrcd, void *owner);
/* The inode number an XRCD is shared through (OPEN_XRCD with a file). */
void xqp_xrcd_set_res_inode(struct xqp_xrcd *xrcd, xqp_u64 ino);

/* The resource id of an object (0 for an XRC_TGT QP or a share). */
xqp_u32 xqp_pd_res_id(const struct xqp_pd *pd);
xqp_u32 xqp_xrcd_res_id(const struct xqp_xrcd *xrcd);

XQP_EXTERN_C_END

#endif /* XQP_RES_H */
