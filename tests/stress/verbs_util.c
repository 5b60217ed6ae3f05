// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Device opening, QP connection and polling for the stress programs,
 * tests/provider/verbs_smoke.c and tests/provider/mw_check.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "verbs_util.h"

struct ibv_context *stress_open_ctx(const char *name, uint16_t *lid)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	struct ibv_port_attr pa;
	int i, err;

	for (i = 0; list && list[i] && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	err = errno;
	if (list)
		ibv_free_device_list(list);
	if (!ctx) {
		errno = (list && i > 0 && err) ? err : ENODEV;
		return NULL;
	}
	if (ibv_query_port(ctx, 1, &pa)) {
		err = errno;
		ibv_close_device(ctx);
		errno = err;
		return NULL;
	}
	*lid = pa.lid;
	return ctx;
}

int stress_open_dev(const char *name, int cqe, struct stress_dev *d)
{
	int err;

	memset(d, 0, sizeof(*d));
	d->ctx = stress_open_ctx(name, &d->lid);
	if (!d->ctx)
		return -1;
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd)
		goto err;
	d->cq = ibv_create_cq(d->ctx, cqe, NULL, NULL, 0);
	if (!d->cq)
		goto err;
	return 0;
err:
	err = errno;
	stress_close_dev(d);
	errno = err;
	return -1;
}

void stress_close_dev(struct stress_dev *d)
{
	if (d->cq)
		ibv_destroy_cq(d->cq);
	if (d->pd)
		ibv_dealloc_pd(d->pd);
	if (d->ctx)
		ibv_close_device(d->ctx);
	memset(d, 0, sizeof(*d));
}

int stress_to_init(struct ibv_qp *qp, int access)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1,
				 .qp_access_flags = access };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				     IBV_QP_ACCESS_FLAGS);
}

int stress_connect(struct ibv_qp *qp, uint16_t dlid, uint32_t dqpn, bool recv_only)
{
	const struct ibv_ah_attr av = { .dlid = dlid, .port_num = 1 };

	return stress_connect_av(qp, &av, dqpn, recv_only);
}

int stress_connect_av(struct ibv_qp *qp, const struct ibv_ah_attr *av, uint32_t dqpn,
		      bool recv_only)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024, .dest_qp_num = dqpn,
		.rq_psn = 0, .max_dest_rd_atomic = 1, .min_rnr_timer = 1, .ah_attr = *av,
	};

	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				  IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				  IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 0;
	a.max_rd_atomic = 1;
	if (recv_only)
		return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_SQ_PSN);
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_SQ_PSN |
				     IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

uint64_t stress_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

int stress_poll(struct ibv_cq *cq, struct ibv_wc *wc, int n, int timeout_ms)
{
	uint64_t end = stress_now_ms() + (uint64_t)timeout_ms;
	int got = 0;

	while (got < n) {
		int r = ibv_poll_cq(cq, n - got, wc + got);

		if (r < 0) {
			errno = EIO;
			return -1;
		}
		got += r;
		if (!r) {
			if (stress_now_ms() > end)
				break;
			sched_yield();
		}
	}
	return got;
}

uint64_t stress_rand(uint64_t *state)
{
	uint64_t x = *state ? *state : 0x9e3779b97f4a7c15ull;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dull;
}
