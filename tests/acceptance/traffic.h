/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Helpers of the data-path cases (cases_traffic*.c): endpoints on the two
 * soft devices (/dev/xqp/uverbs0 = g_dev and /dev/xqp/uverbs1, LIDs 1 and
 * 2), QPs connected through MODIFY_QP, polling with a deadline.
 */
#ifndef XQP_TRAFFIC_H
#define XQP_TRAFFIC_H

#include "acc.h"

#define BUF_LEN 65536

/* One side: a context, PD, CQ (send and receive), buffer + MR, one QP. */
struct ep {
	struct xqpv_context *ctx;
	struct xqpv_pd *pd;
	struct xqpv_cq *cq;
	struct xqpv_mr *mr;
	unsigned char *buf;	/* BUF_LEN bytes, page aligned */
	struct xqpv_qp *qp;
	uint16_t lid;
	/* XRC: the target side's domain, target QP and SRQs */
	struct xqpv_xrcd *xrcd;
	struct xqpv_srq *srq[2];
};

/* The second device's path: g_dev with its last digit + 1. */
const char *second_dev(void);

/* Opens @path; PD, a CQ of @cqe, a registered buffer (all access bits).
 * Fails the case (exits) on error. */
void ep_open(struct ep *e, const char *path, int cqe);
void ep_close(struct ep *e);	/* destroys what it holds, ignores errors */

/* A QP of @type on the endpoint (not XRC target); @srq may be NULL. */
struct xqpv_qp *ep_qp(struct ep *e, enum xqpv_qp_type type, struct xqpv_srq *srq,
		     uint32_t max_send_wr, uint32_t max_recv_wr);

/* Path parameters of a connection (defaults from conn_defaults()). */
struct conn {
	uint8_t rnr_retry, retry_cnt, min_rnr_timer, timeout;
	unsigned int access;	/* the responder's qp_access_flags */
};
struct conn conn_defaults(void);

/* RESET -> INIT -> RTR (-> RTS when @rts) towards @dlid/@dqpn. Return 0/errno. */
int qp_connect(struct xqpv_qp *qp, uint16_t dlid, uint32_t dqpn, const struct conn *c,
	       int rts);
/* UD: RESET -> INIT -> RTR -> RTS with Q_Key @qkey. */
int qp_ud_up(struct xqpv_qp *qp, uint32_t qkey);
int qp_to_state(struct xqpv_qp *qp, enum xqpv_qp_state s);

/* Connects two RC/UC QPs both ways (@c may be NULL). Fails the case on error. */
void connect_pair(struct ep *a, struct ep *b, const struct conn *c);

/* XRC: target side @t on its device (XRCD, XRC_TGT QP, two XRC SRQs of
 * @srq_wr WRs), initiator @i (XRC_SEND QP); connected. */
void xrc_setup(struct ep *t, struct ep *i, uint32_t srq_wr, const struct conn *c);

/* CLOCK_MONOTONIC in milliseconds. */
long now_ms(void);
/* Polls @cq until @n completions or @ms pass: the number got. */
int poll_n(struct xqpv_cq *cq, struct xqpv_wc *wc, int n, int ms);
/* Exactly one completion within @ms (fails the case otherwise, wc zeroed). */
int poll_one(struct xqpv_cq *cq, struct xqpv_wc *wc, int ms, const char *what);

/* Posting one WR. */
int post_recv1(struct xqpv_qp *qp, uint64_t wr_id, void *addr, uint32_t len, uint32_t lkey);
int post_srq1(struct xqpv_srq *srq, uint64_t wr_id, void *addr, uint32_t len, uint32_t lkey);
int post_send1(struct xqpv_qp *qp, struct xqpv_send_wr *wr);	/* wr->next ignored */

/* Fills @n bytes with a pattern of @seed; checks it. */
void fill(void *p, size_t n, unsigned int seed);
int check_fill(const void *p, size_t n, unsigned int seed);

/* Status/opcode tokens of one completion: "@name_status", "@name_opcode". */
void wc_tokens(const char *name, const struct xqpv_wc *wc);
/* Records the async events of @ctx within @ms as tokens "@name=TYPE". */
int wait_event_type(struct xqpv_context *ctx, enum xqpv_event_type type, int ms,
		    struct xqpv_async_event *out);

#endif
