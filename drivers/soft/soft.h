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
	xqp_u32 mw;
	xqp_u32 mcast_grp;		/* multicast groups with a QP attached */
	xqp_u32 mcast_attach;		/* attachments, all groups together */
};

/*
 * One per op of struct xqp_device_ops, for fault injection and call counts:
 * the one table of them, X(NAME, name), in number order. New ops are
 * appended: the numbers are used by tests, the names by the debugfs inject
 * knob (soft_main.c), which also lists them for userspace.
 * The data path starts at POST_SEND. Its first five ops may be called in
 * any context and at a high rate: their calls are counted only while
 * xqp_soft_count_data_path() is on (they can fail on demand always).
 */
#define XQP_SOFT_OPS(X) \
	X(QUERY_DEVICE, query_device) \
	X(QUERY_PORT, query_port) \
	X(ALLOC_PD, alloc_pd) \
	X(DEALLOC_PD, dealloc_pd) \
	X(CREATE_CQ, create_cq) \
	X(DESTROY_CQ, destroy_cq) \
	X(ALLOC_XRCD, alloc_xrcd) \
	X(DEALLOC_XRCD, dealloc_xrcd) \
	X(CREATE_SRQ, create_srq) \
	X(DESTROY_SRQ, destroy_srq) \
	X(CREATE_QP, create_qp) \
	X(MODIFY_QP, modify_qp) \
	X(QUERY_QP, query_qp) \
	X(DESTROY_QP, destroy_qp) \
	X(REG_MR, reg_mr) \
	X(DEREG_MR, dereg_mr) \
	X(POST_SEND, post_send) \
	X(POST_RECV, post_recv) \
	X(POST_SRQ_RECV, post_srq_recv) \
	X(POLL_CQ, poll_cq) \
	X(REQ_NOTIFY_CQ, req_notify_cq) \
	X(RESIZE_CQ, resize_cq) \
	X(MODIFY_SRQ, modify_srq) \
	X(QUERY_SRQ, query_srq) \
	X(QUERY_GID, query_gid) \
	X(QUERY_PKEY, query_pkey) \
	X(MODIFY_GID, modify_gid) \
	X(ALLOC_MW, alloc_mw) \
	X(DEALLOC_MW, dealloc_mw) \
	X(ATTACH_MCAST, attach_mcast) \
	X(DETACH_MCAST, detach_mcast)

enum xqp_soft_op {
#define XQP_SOFT_OP_ENUM(NAME, name) XQP_SOFT_OP_##NAME,
	XQP_SOFT_OPS(XQP_SOFT_OP_ENUM)
#undef XQP_SOFT_OP_ENUM
	XQP_SOFT_OP_COUNT
};

/* An op's name ("create_qp"); NULL past the table. */
const char *xqp_soft_op_name(enum xqp_soft_op op);
/* The op of that name, or -EINVAL. */
int xqp_soft_op_lookup(const char *name);

void xqp_soft_default_limits(struct xqp_soft_limits *lim);
struct xqp_soft *xqp_soft_create(const char *name,
				 const struct xqp_soft_limits *lim);
void xqp_soft_destroy(struct xqp_soft *soft);
/* A device linked to an Ethernet netdev (link.c; drivers/ibdev makes them). */
struct net_device;
struct xqp_soft *xqp_soft_create_linked(const char *name, struct net_device *netdev,
					int up, enum xqp_mtu mtu);
int xqp_soft_link_update(struct xqp_soft *soft, int up, enum xqp_mtu mtu);
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
/* What a linked device's RoCE v2 wire did (debugfs "wire"; atomics). */
struct xqp_soft_wire_counts {
	xqp_u64 tx_packets, rx_packets;
	xqp_u64 tx_dropped;		/* no route, no memory, the stack refused */
	xqp_u64 rx_bad_icrc, rx_malformed, rx_unsupported;
	xqp_u64 rx_unknown_qp;		/* no such QP, or not of the packet's transport */
	xqp_u64 rx_bad_addr;		/* not from the QP's peer, not to our GID */
	xqp_u64 rx_bad_state;		/* the QP cannot take it in its state */
	xqp_u64 rx_bad_qkey;
	xqp_u64 rx_cnp;
	xqp_u64 rx_duplicate;		/* requests seen before */
	xqp_u64 rx_out_of_seq;		/* PSN ahead: NAKed */
	xqp_u64 rx_stray_ack;		/* responses for nothing outstanding */
	xqp_u64 rx_busy;		/* requests while a READ response was going */
	xqp_u64 retransmits;		/* timeouts and sequence NAKs taken */
	xqp_u64 rnr_naks_sent, rnr_naks_taken;
	xqp_u64 naks_sent, naks_taken;	/* other NAKs */
};
void xqp_soft_wire_counts(struct xqp_soft *soft, struct xqp_soft_wire_counts *out);
/* The same counts with their names: the driver op port_stats (@drv: @soft). */
int xqp_soft_port_stats(void *drv, xqp_u32 port, const char **names, xqp_u64 *values, int max);
/* Whether @soft sends on the wire: its link's socket is open. */
int xqp_soft_wire_ready(struct xqp_soft *soft);
/* The wire's module part (net.c, kernel only): at load and unload. */
int soft_net_init(void);
void soft_net_fini(void);

/* The LID the subnet gave the device (1, 2, ...; unique while it lives). */
xqp_u16 xqp_soft_lid(struct xqp_soft *soft);
/* Completions lost to a full CQ since it was created (tests). */
xqp_u64 xqp_soft_cq_overruns(struct xqp_soft *soft, struct xqp_cq *core_cq);
/* One QP's transport state, as debugfs's "qps" lists it. */
struct xqp_soft_qp_state {
	xqp_u32 qp_num;
	xqp_u32 type;			/* enum xqp_qp_type */
	xqp_u32 state;			/* enum xqp_qp_state */
	xqp_u32 dest_qp_num;
	xqp_u32 sq_psn, rq_psn;
	xqp_u32 sq_count, rq_count;	/* WQEs queued */
	xqp_u32 sq_running, head_wait, head_started;
	int rnr_left, retry_left;	/* -1: the head has not waited */
	xqp_u32 send_cq_count, recv_cq_count;	/* completions unpolled */
	xqp_u64 send_cq_overruns, recv_cq_overruns;
	/* on the wire: requester and responder */
	xqp_u32 on_wire;
	xqp_u32 tx_psn, una, max_psn, tx_idx, tx_off, rd_out, timer_on, rnr_wait;
	xqp_u32 epsn, resp_msg, resp_busy, resp_nak_sent;
};
/* The QP numbered @qp_num or the next one above it: 1 and *@out, or 0 if none. */
int xqp_soft_qp_state(struct xqp_soft *soft, xqp_u32 qp_num,
		      struct xqp_soft_qp_state *out);
/* Tests only: where the next QP number search starts (to reach the wrap). */
void xqp_soft_set_qpn_cursor(struct xqp_soft *soft, xqp_u32 next);

XQP_EXTERN_C_END

#endif /* XQP_SOFT_H */
