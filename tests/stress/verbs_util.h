/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * What the stress programs, tests/provider/verbs_smoke.c (xqp-verbs-smoke)
 * and tests/provider/mw_check.c (xqp-mw-check) share: opening an xqp device through Debian's libibverbs (and so through
 * xqp's provider), connecting RC-like QPs, and polling with a deadline.
 * Public libibverbs API only.
 */
#ifndef XQP_STRESS_VERBS_UTIL_H
#define XQP_STRESS_VERBS_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

/* One device as a process sees it: context, PD, one CQ, port 1's LID. */
struct stress_dev {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	uint16_t lid;
};

/*
 * Opens device @name and reads port 1's LID into @lid; NULL with errno set
 * (ENODEV: not listed).
 */
struct ibv_context *stress_open_ctx(const char *name, uint16_t *lid);

/* The same, then a PD and a CQ of @cqe; 0, or -1 with errno set. */
int stress_open_dev(const char *name, int cqe, struct stress_dev *d);
void stress_close_dev(struct stress_dev *d);

/* RESET -> INIT on port 1 with @access. */
int stress_to_init(struct ibv_qp *qp, int access);

/* INIT -> RTR towards (@dlid, @dqpn), then RTS unless @recv_only. */
int stress_connect(struct ibv_qp *qp, uint16_t dlid, uint32_t dqpn, bool recv_only);
/* The same towards the address @av (a RoCE device's: a GRH, no LID). */
int stress_connect_av(struct ibv_qp *qp, const struct ibv_ah_attr *av, uint32_t dqpn,
		      bool recv_only);

/*
 * Polls @cq until @n completions are in @wc or @timeout_ms pass. Returns how
 * many it got, or -1 (errno set) when polling itself fails.
 */
int stress_poll(struct ibv_cq *cq, struct ibv_wc *wc, int n, int timeout_ms);

/* A small seeded generator (xorshift64*), the same on every libc. */
uint64_t stress_rand(uint64_t *state);

/* Milliseconds of CLOCK_MONOTONIC. */
uint64_t stress_now_ms(void);

#endif
