/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The device rules shared by the soft device (drivers/soft, under xqp's
 * core) and the reference device (drivers/refdev, under Linux's ib_core):
 * what a device advertises, and how it checks and grants what a consumer
 * asks for. The differential suite (tests/kunit/diff_*.c) compares the two cores
 * over these two devices; it shows the cores' differences only while the
 * devices behave the same, so their rules live here, once. rxe's rules
 * where rxe has one.
 *
 * Header-only, and neutral: xqp/types.h is its only include (compiler
 * macros), so the same text compiles in the soft device (C, kernel and
 * host), the reference device (Linux types) and the host tests (C++).
 * The per-op attribute rules of modify_qp are in qp_attr.h.
 */
#ifndef XQP_RULES_LIMITS_H
#define XQP_RULES_LIMITS_H

#include "xqp/types.h"

/* qp_num and srq_num are 24 bits; QPs 0 and 1 are the special QPs (SMI, GSI). */
#define XQP_RULES_NUM_MASK		0xffffffU
#define XQP_RULES_QPN_FIRST		2U
#define XQP_RULES_MAX_QP		(XQP_RULES_NUM_MASK + 1 - XQP_RULES_QPN_FIRST)

/* The device and its one port. */
#define XQP_RULES_VENDOR_ID		0xffffff
#define XQP_RULES_PORT_CNT		1
#define XQP_RULES_GID_TBL_LEN		1
/* A linked (RoCE) device's GID table, filled by ib_core: rxe's length. */
#define XQP_RULES_ROCE_GID_TBL_LEN	1024
#define XQP_RULES_MAX_MSG_SZ		0x800000	/* 8 MiB: one message executed whole (rxe: 2^31) */
#define XQP_RULES_PAGE_SIZE_CAP		0xfffff000U
#define XQP_RULES_MAX_MR_SIZE		(~0ULL)
#define XQP_RULES_SGE_SIZE		16		/* sizeof(struct ib_sge) */
/*
 * Access flags a QP may have: local write, remote write, read, atomic, and
 * MW bind (rxe takes it; binding needs no QP flag on either device).
 */
#define XQP_RULES_ACCESS_SUPPORTED	0x1fU
/* IB_MTU_256 .. IB_MTU_4096; IB_MIG_ARMED, the highest path migration state. */
#define XQP_RULES_MTU_MIN		1
#define XQP_RULES_MTU_MAX		5
#define XQP_RULES_MIG_MAX		2

/*
 * What a device advertises and enforces. Requests beyond a limit fail with
 * -EINVAL; creating an object past its max_* count fails with -ENOMEM.
 * The soft device takes a table per device (struct xqp_soft_limits is this
 * struct); the reference device always has XQP_RULES_DEFAULT_LIMITS.
 */
struct xqp_rules_limits {
	xqp_u32 max_qp;			/* at most XQP_RULES_MAX_QP */
	xqp_u32 max_qp_wr;		/* per send or receive queue */
	xqp_u32 max_sge;		/* per send or receive WR */
	xqp_u32 max_inline;		/* bytes of inline data per send WR */
	xqp_u32 max_cq;
	xqp_u32 max_cqe;		/* at most 0x7fffffff (cqe is an int) */
	xqp_u32 max_pd;
	xqp_u32 max_xrcd;
	xqp_u32 max_srq;
	xqp_u32 max_srq_wr;
	xqp_u32 max_srq_sge;
	xqp_u32 max_qp_rd_atom;		/* bound of max_dest_rd_atomic */
	xqp_u32 max_qp_init_rd_atom;	/* bound of max_rd_atomic */
	xqp_u16 max_pkeys;		/* pkey_index < max_pkeys */
	xqp_u32 max_mr;
	xqp_u32 max_ah;			/* the core enforces it */
	xqp_u32 max_mw;			/* the soft device's (the reference has none) */
	/* UD multicast, the soft device's (the reference has none): */
	xqp_u32 max_mcast_grp;		/* groups with a QP attached */
	xqp_u32 max_mcast_qp_attach;	/* QPs a group, at most XQP_RULES_MAX_MCAST_QP_ATTACH */
	xqp_u32 max_total_mcast_qp_attach;	/* attachments, all groups together */
};

/*
 * The most SGEs a WR may have on any device: a responder takes the
 * receiver's WQE with its own scratch, sized by this, not by its device.
 */
#define XQP_RULES_MAX_SGE	32

/* The most QPs one multicast group may have on any device (rxe's 56). */
#define XQP_RULES_MAX_MCAST_QP_ATTACH	56

/*
 * The defaults, rxe's where rxe has one: 2^24 - 2 QPs, 16384 WRs per queue,
 * 32 SGEs, 256 bytes inline, 65536 CQEs, 27 SRQ SGEs, 128 RDMA reads and
 * atomics in flight, 64 P_Keys, 2^20 PDs, CQs, XRCDs, SRQs, MRs, AHs and
 * memory windows (MRs and windows share the 24-bit key index); rxe's
 * multicast: 8192 groups of 56 QPs, 0x70000 attachments.
 */
#define XQP_RULES_DEFAULT_LIMITS {			\
	.max_qp			= XQP_RULES_MAX_QP,	\
	.max_qp_wr		= 16384,		\
	.max_sge		= XQP_RULES_MAX_SGE,	\
	.max_inline		= 256,			\
	.max_cq			= 1U << 20,		\
	.max_cqe		= 65536,		\
	.max_pd			= 1U << 20,		\
	.max_xrcd		= 1U << 20,		\
	.max_srq		= 1U << 20,		\
	.max_srq_wr		= 16384,		\
	.max_srq_sge		= 27,			\
	.max_qp_rd_atom		= 128,			\
	.max_qp_init_rd_atom	= 128,			\
	.max_pkeys		= 64,			\
	.max_mr			= 1U << 20,		\
	.max_ah			= 1U << 20,		\
	.max_mw			= 1U << 20,		\
	.max_mcast_grp		= 8192,			\
	.max_mcast_qp_attach	= XQP_RULES_MAX_MCAST_QP_ATTACH, \
	.max_total_mcast_qp_attach = 0x70000,		\
}

/* Can a device be built with @lim? (numbers are 24 bits; cqe is an int) */
static inline int xqp_rules_limits_ok(const struct xqp_rules_limits *lim)
{
	return lim->max_qp <= XQP_RULES_MAX_QP &&
	       lim->max_sge <= XQP_RULES_MAX_SGE && lim->max_srq_sge <= XQP_RULES_MAX_SGE &&
	       lim->max_srq <= XQP_RULES_NUM_MASK &&
	       lim->max_mr <= XQP_RULES_NUM_MASK && lim->max_mw <= XQP_RULES_NUM_MASK &&
	       lim->max_mr + lim->max_mw <= XQP_RULES_NUM_MASK &&
	       lim->max_cqe <= 0x7fffffffU &&
	       lim->max_mcast_qp_attach <= XQP_RULES_MAX_MCAST_QP_ATTACH;
}

/*
 * A queue (CQ, send/receive queue, SRQ) of @req entries, sized like rxe's
 * rings: 2^k - 1 >= @req, up to @max; 0 stays 0.
 */
static inline xqp_u32 xqp_rules_grant_wr(xqp_u32 req, xqp_u32 max)
{
	xqp_u64 slots;

	if (!req)
		return 0;
	slots = 1ULL << (64 - __builtin_clzll((xqp_u64)req));	/* > req */
	return (xqp_u32)(slots - 1 < max ? slots - 1 : max);
}

/* A CQ of @cqe entries may be asked for (create and resize): 1..max_cqe. */
static inline int xqp_rules_cqe_ok(const struct xqp_rules_limits *lim, int cqe)
{
	return cqe >= 1 && (xqp_u32)cqe <= lim->max_cqe;
}

/* An SRQ of @max_wr WRs of @max_sge SGEs may be asked for. */
static inline int xqp_rules_srq_ok(const struct xqp_rules_limits *lim,
				   xqp_u32 max_wr, xqp_u32 max_sge)
{
	return max_wr >= 1 && max_wr <= lim->max_srq_wr &&
	       max_sge <= lim->max_srq_sge;
}

/* What an SRQ asked for gets: its ring's size, and at least one SGE. */
static inline void xqp_rules_grant_srq(const struct xqp_rules_limits *lim,
				       xqp_u32 *max_wr, xqp_u32 *max_sge)
{
	*max_wr = xqp_rules_grant_wr(*max_wr, lim->max_srq_wr);
	if (*max_sge < 1)
		*max_sge = 1;
}

/*
 * Checks a QP's requested capabilities against @lim (-EINVAL, as
 * rxe_qp_chk_cap()) and rewrites them to what is granted, never less than
 * requested. With an SRQ (@has_srq) the receive capabilities are not the
 * QP's: they are then left as they are. The fields are those of
 * struct xqp_qp_cap and struct ib_qp_cap: XQP_RULES_GRANT_QP_CAP() passes
 * either.
 */
static inline int xqp_rules_grant_qp_cap(const struct xqp_rules_limits *lim,
					 xqp_u32 *send_wr, xqp_u32 *recv_wr,
					 xqp_u32 *send_sge, const xqp_u32 *recv_sge,
					 xqp_u32 *inline_data, int has_srq)
{
	xqp_u64 wqe;

	if (*send_wr > lim->max_qp_wr || *send_sge > lim->max_sge ||
	    *inline_data > lim->max_inline)
		return -XQP_EINVAL;
	if (!has_srq && (*recv_wr > lim->max_qp_wr || *recv_sge > lim->max_sge))
		return -XQP_EINVAL;

	/* A send WQE holds its SGEs or its inline data, whichever is larger. */
	wqe = (xqp_u64)*send_sge * XQP_RULES_SGE_SIZE;
	if (wqe < *inline_data)
		wqe = *inline_data;
	*send_wr = xqp_rules_grant_wr(*send_wr, lim->max_qp_wr);
	*send_sge = (xqp_u32)(wqe / XQP_RULES_SGE_SIZE < lim->max_sge ?
			      wqe / XQP_RULES_SGE_SIZE : lim->max_sge);
	*inline_data = (xqp_u32)(wqe < lim->max_inline ? wqe : lim->max_inline);
	if (!has_srq)
		*recv_wr = xqp_rules_grant_wr(*recv_wr, lim->max_qp_wr);
	return 0;
}

#define XQP_RULES_GRANT_QP_CAP(lim, cap, has_srq)				\
	xqp_rules_grant_qp_cap((lim), &(cap)->max_send_wr, &(cap)->max_recv_wr,\
			       &(cap)->max_send_sge, &(cap)->max_recv_sge,	\
			       &(cap)->max_inline_data, (has_srq))

/*
 * The QP types both devices create (the values of enum ib_qp_type and
 * enum xqp_qp_type, named by @prefix: IB_QPT_ or XQP_QPT_).
 */
#define XQP_RULES_QP_TYPE_OK(prefix, type)					\
	((type) == prefix##RC || (type) == prefix##UC || (type) == prefix##UD ||\
	 (type) == prefix##XRC_INI || (type) == prefix##XRC_TGT)

/*
 * The device attributes both report from @lim, as a list of designated
 * initializers for struct xqp_device_attr or struct ib_device_attr (the
 * same field names); each device adds its own identity (GUIDs) and what
 * only its API has.
 */
#define XQP_RULES_DEVICE_ATTRS(lim)				\
	.vendor_id		= XQP_RULES_VENDOR_ID,		\
	.max_mr_size		= XQP_RULES_MAX_MR_SIZE,	\
	.page_size_cap		= XQP_RULES_PAGE_SIZE_CAP,	\
	.max_qp			= (lim)->max_qp,		\
	.max_qp_wr		= (lim)->max_qp_wr,		\
	.max_send_sge		= (lim)->max_sge,		\
	.max_recv_sge		= (lim)->max_sge,		\
	.max_cq			= (lim)->max_cq,		\
	.max_cqe		= (lim)->max_cqe,		\
	.max_pd			= (lim)->max_pd,		\
	.max_srq		= (lim)->max_srq,		\
	.max_srq_wr		= (lim)->max_srq_wr,		\
	.max_srq_sge		= (lim)->max_srq_sge,		\
	.max_qp_rd_atom		= (lim)->max_qp_rd_atom,	\
	.max_qp_init_rd_atom	= (lim)->max_qp_init_rd_atom,	\
	.max_pkeys		= (lim)->max_pkeys

#endif /* XQP_RULES_LIMITS_H */
