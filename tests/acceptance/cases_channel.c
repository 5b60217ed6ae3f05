// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Completion channels (read, poll, O_NONBLOCK, solicited-only arming), an
 * empty poll that sleeps while its CPU is wanted, a process killed with WRs
 * posted and MRs registered, REG_MR against RLIMIT_MEMLOCK. The
 * empty-channel rules are compared with Linux; the rest needs traffic: xqp
 * only.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "traffic.h"

static int readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n = poll(&p, 1, ms);

	return n > 0 && (p.revents & POLLIN);
}

/* What Linux answers too: no traffic involved. */
static void case_channel_abi(void)
{
	struct xqpv_context *ctx = open_ctx();
	struct xqpv_comp_channel *ch = xqpv_create_comp_channel(ctx);
	struct ib_uverbs_comp_event_desc d;
	struct xqpv_cq *cq;
	uint32_t comp = 0xffff;

	EXPECT("create", PERR(ch), 0);
	if (!ch)
		return;
	EXPECT_INT("poll_empty", readable(ch->fd, 0), 0);
	fcntl(ch->fd, F_SETFL, O_NONBLOCK);
	EXPECT("read_empty", read(ch->fd, &d, sizeof(d)) < 0 ? errno : 0, EAGAIN);
	/* read-only fd: vfs_write() refuses it before any file op, as on Linux */
	EXPECT("write", write(ch->fd, &d, sizeof(d)) < 0 ? errno : 0, EBADF);
	cq = xqpv_create_cq(ctx, 4, NULL, ch, 0);
	EXPECT("cq_on_channel", PERR(cq), 0);
	EXPECT("cq_vector_1", PERR(xqpv_create_cq(ctx, 4, NULL, ch, 1)), EINVAL);
	{
		struct ib_uverbs_create_cq_resp r;
		struct ib_uverbs_create_cq c = { .response = (uintptr_t)&r, .cqe = 4,
						 .comp_channel = ctx->async_fd };

		EXPECT("cq_async_fd_as_channel", raw_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_CREATE_CQ,
			&c, sizeof(c), -1, sizeof(r) / 4), EBADF);
		c.comp_channel = 1000;
		EXPECT("cq_bad_fd", raw_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_CREATE_CQ,
			&c, sizeof(c), -1, sizeof(r) / 4), EBADF);
	}
	EXPECT("destroy_channel_busy", xqpv_destroy_comp_channel(ch), EBUSY);
	if (cq) {
		struct ib_uverbs_destroy_cq_resp r = { 7, 7 };
		struct ib_uverbs_destroy_cq c = { .response = (uintptr_t)&r, .cq_handle = cq->handle };

		EXPECT("destroy_cq", raw_cmd(ctx->cmd_fd, IB_USER_VERBS_CMD_DESTROY_CQ, &c,
					     sizeof(c), -1, sizeof(r) / 4), 0);
		comp = r.comp_events_reported;
		free(cq);	/* destroyed raw: the library object goes by hand */
		ch->refcnt--;
	}
	EXPECT_INT("comp_events_reported", comp, 0);
	EXPECT("destroy_channel", xqpv_destroy_comp_channel(ch), 0);
	xqpv_close_device(ctx);
}

static int send_msg(struct ep *s, uint64_t wr_id, int solicited)
{
	struct xqpv_sge sge = { (uintptr_t)s->buf, 32, s->mr->lkey };
	struct xqpv_send_wr w = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
				 .opcode = XQPV_WR_SEND,
				 .send_flags = solicited ? XQPV_SEND_SOLICITED : 0 };

	return post_send1(s->qp, &w);
}

/*
 * a on g_dev, b on the second device, connected RC QPs; a's receive CQ (the
 * one returned, with @cq_context) on a completion channel (*@ch), @recvs
 * receives of 4 KiB posted on a (wr_ids 10, 11, ...). NULL when it failed.
 */
static struct xqpv_cq *channel_pair(struct ep *a, struct ep *b, struct xqpv_comp_channel **ch,
				    void *cq_context, int recvs)
{
	struct xqpv_cq *rcq;

	ep_open(a, g_dev, 16);
	ep_open(b, second_dev(), 16);
	*ch = xqpv_create_comp_channel(a->ctx);
	rcq = *ch ? xqpv_create_cq(a->ctx, 16, cq_context, *ch, 0) : NULL;
	EXPECT("setup", PERR(rcq), 0);
	if (!rcq)
		return NULL;
	{
		struct xqpv_qp_init_attr_ex qa = {
			.qp_type = XQPV_QPT_RC, .comp_mask = XQPV_QP_INIT_ATTR_PD, .pd = a->pd,
			.send_cq = a->cq, .recv_cq = rcq,
			.cap = { .max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1,
				 .max_recv_sge = 1 },
		};

		a->qp = xqpv_create_qp_ex(a->ctx, &qa);
	}
	b->qp = ep_qp(b, XQPV_QPT_RC, NULL, 8, 8);
	CHECK(a->qp && b->qp, "qps");
	if (!a->qp || !b->qp)
		return NULL;
	connect_pair(a, b, NULL);
	for (int i = 0; i < recvs; i++)
		EXPECT("recv", post_recv1(a->qp, 10 + (uint64_t)i, a->buf, 4096, a->mr->lkey), 0);
	return rcq;
}

static void case_channel_events(void)
{
	struct ep a, b;
	struct xqpv_comp_channel *ch;
	struct xqpv_cq *rcq, *got = NULL;
	void *ctxp = NULL;
	struct xqpv_wc wc;
	int marker;

	rcq = channel_pair(&a, &b, &ch, &marker, 6);
	if (!rcq)
		return;
	/* not armed: a completion gives no event */
	EXPECT("send_unarmed", send_msg(&b, 1, 0), 0);
	EXPECT_INT("recv_unarmed", poll_n(rcq, &wc, 1, 5000), 1);
	EXPECT_INT("no_event_unarmed", readable(ch->fd, 200), 0);
	/* armed: one event, naming the CQ and its context */
	EXPECT("arm", xqpv_req_notify_cq(rcq, 0), 0);
	EXPECT("send_armed", send_msg(&b, 2, 0), 0);
	EXPECT_INT("event_readable", readable(ch->fd, 5000), 1);
	EXPECT("get_event", xqpv_get_cq_event(ch, &got, &ctxp), 0);
	EXPECT_INT("event_cq", got == rcq, 1);
	EXPECT_INT("event_context", ctxp == &marker, 1);
	xqpv_ack_cq_events(rcq, 1);
	EXPECT_INT("poll_after_event", poll_n(rcq, &wc, 1, 1000), 1);
	EXPECT_INT("poll_after_event_wr_id", (long long)wc.wr_id, 11);
	/* once per arming */
	EXPECT("send_again", send_msg(&b, 3, 0), 0);
	EXPECT_INT("recv_again", poll_n(rcq, &wc, 1, 5000), 1);
	EXPECT_INT("no_second_event", readable(ch->fd, 200), 0);
	fcntl(ch->fd, F_SETFL, O_NONBLOCK);
	EXPECT("nonblock_empty", xqpv_get_cq_event(ch, &got, &ctxp), EAGAIN);
	/* solicited only: an unsolicited message does not fire it */
	EXPECT("arm_solicited", xqpv_req_notify_cq(rcq, 1), 0);
	EXPECT("send_unsolicited", send_msg(&b, 4, 0), 0);
	EXPECT_INT("recv_unsolicited", poll_n(rcq, &wc, 1, 5000), 1);
	EXPECT_INT("no_event_unsolicited", readable(ch->fd, 200), 0);
	EXPECT("send_solicited", send_msg(&b, 5, 1), 0);
	EXPECT_INT("event_solicited", readable(ch->fd, 5000), 1);
	EXPECT("get_event2", xqpv_get_cq_event(ch, &got, &ctxp), 0);
	EXPECT_INT("recv_solicited", poll_n(rcq, &wc, 1, 5000), 1);
	/* destroy_cq reports 2 events: both acknowledged, so it returns */
	xqpv_ack_cq_events(rcq, 1);
	EXPECT("destroy_qp", xqpv_destroy_qp(a.qp), 0);
	a.qp = NULL;
	EXPECT("destroy_channel_busy", xqpv_destroy_comp_channel(ch), EBUSY);
	EXPECT("destroy_cq", xqpv_destroy_cq(rcq), 0);
	EXPECT("destroy_channel", xqpv_destroy_comp_channel(ch), 0);
	ep_close(&a);
	ep_close(&b);
}

/* ---- an empty poll while another task wants the CPU --------------------------- */

static int pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? errno : 0;
}

/* Another task that wants CPU 0 all the time, until killed. */
static void spinner(void *arg)
{
	(void)arg;
	if (pin_cpu0())
		exit(1);
	for (;;)
		;
}

/* This thread's voluntary context switches (it slept), -1 if unknown. */
static long voluntary_switches(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? -1 : ru.ru_nvcsw;
}

struct late_send {
	struct ep *s;
	uint64_t wr_id;
	int solicited, rc;
};

static void *send_later(void *arg)
{
	struct late_send *l = arg;

	usleep(20000);
	l->rc = send_msg(l->s, l->wr_id, l->solicited);
	return NULL;
}

/*
 * Polls @cq, empty at first, in a loop with nothing else in it while a
 * thread sends a message 20 ms later: the completion, and how many times
 * the polling thread slept meanwhile (-1: failed). *@woken: the poll that
 * returned the completion had slept in that very call (woken by it, the
 * command polled again).
 */
static long poll_while_sent(struct ep *s, struct xqpv_cq *cq, uint64_t wr_id,
			    int solicited, struct xqpv_wc *wc, int *woken)
{
	struct late_send l = { s, wr_id, solicited, -1 };
	long before = voluntary_switches(), slept, call = before;
	long end = now_ms() + 5000;
	pthread_t t;
	int r = 0;

	if (pthread_create(&t, NULL, send_later, &l))
		return -1;
	while (!r && now_ms() < end) {
		call = voluntary_switches();
		r = xqpv_poll_cq(cq, 1, wc);
	}
	slept = voluntary_switches() - before;
	*woken += r == 1 && voluntary_switches() > call;
	pthread_join(t, NULL);
	return r == 1 && !l.rc ? slept : -1;
}

/*
 * POLL_CQ on an empty CQ, with another task runnable on the poller's CPU,
 * sleeps until the next completion (bounded) rather than spinning: the
 * completion still comes, and the sleep's wake-up is not req_notify's
 * arming: no completion event unless the CQ was armed for that one.
 */
static void poll_sleep_child(void *arg)
{
	struct ep a, b;
	struct xqpv_comp_channel *ch;
	struct xqpv_cq *rcq, *got;
	struct xqpv_wc wc;
	void *ctxp;
	pid_t spin;
	int woken = 0;

	(void)arg;
	EXPECT("pin", pin_cpu0(), 0);
	rcq = channel_pair(&a, &b, &ch, NULL, 4);
	if (!rcq)
		return;
	spin = spawn(spinner, NULL);

	/* not armed: the poller sleeps, the completion wakes it, no event */
	EXPECT_INT("slept_unarmed", poll_while_sent(&b, rcq, 1, 0, &wc, &woken) > 0, 1);
	EXPECT_INT("wr_id_unarmed", (long long)wc.wr_id, 10);
	EXPECT_INT("no_event_unarmed", readable(ch->fd, 100), 0);
	/* armed for a solicited one: an unsolicited one woke the poller only */
	EXPECT("arm_solicited", xqpv_req_notify_cq(rcq, 1), 0);
	EXPECT_INT("slept_unsolicited", poll_while_sent(&b, rcq, 2, 0, &wc, &woken) > 0, 1);
	EXPECT_INT("no_event_unsolicited", readable(ch->fd, 100), 0);
	/* the arming is still there: a solicited one raises its one event */
	EXPECT_INT("slept_solicited", poll_while_sent(&b, rcq, 3, 1, &wc, &woken) > 0, 1);
	EXPECT_INT("wr_id_solicited", (long long)wc.wr_id, 12);
	EXPECT_INT("event_solicited", readable(ch->fd, 5000), 1);
	EXPECT("get_event", xqpv_get_cq_event(ch, &got, &ctxp), 0);
	xqpv_ack_cq_events(rcq, 1);
	/* the poll that slept returned what woke it: most of the three (the
	 * bound's timer can fire just before the completion comes) */
	EXPECT_INT("woken_poll_returns_it", woken >= 2, 1);
	kill(spin, SIGKILL);
	EXPECT_INT("spinner", reap(spin), 128 + SIGKILL);

	/*
	 * The CPU to itself: an empty poll returns at once. A kernel thread
	 * woken on this CPU now and then makes one poll sleep; a poll that
	 * slept whenever the CQ was empty would sleep 1,000 times.
	 */
	{
		long before = voluntary_switches();
		int n = 0;

		for (int i = 0; i < 1000; i++)
			n += xqpv_poll_cq(rcq, 1, &wc);
		EXPECT_INT("alone_empty", n, 0);
		EXPECT_INT("alone_seldom_sleeps", voluntary_switches() - before < 10, 1);
	}
	EXPECT("destroy_qp", xqpv_destroy_qp(a.qp), 0);
	a.qp = NULL;
	EXPECT("destroy_cq", xqpv_destroy_cq(rcq), 0);
	EXPECT("destroy_channel", xqpv_destroy_comp_channel(ch), 0);
	ep_close(&a);
	ep_close(&b);
}

static void case_poll_sleep(void)
{
	EXPECT_INT("child", reap(spawn(poll_sleep_child, NULL)), 0);
}

/* ---- kill -9 with WRs posted and MRs registered ------------------------------ */

struct victim_arg {
	struct chan to, from;
	uint16_t peer_lid;
};

static void victim(void *arg)
{
	struct victim_arg *v = arg;
	struct ep e;
	uint32_t peer_qpn;

	ep_open(&e, second_dev(), 64);
	e.qp = ep_qp(&e, XQPV_QPT_RC, NULL, 16, 16);
	if (!e.qp)
		exit(3);
	chan_send(&v->from, e.qp->qp_num);
	peer_qpn = chan_recv(&v->to);
	if (qp_connect(e.qp, v->peer_lid, peer_qpn, NULL, 1))
		exit(4);
	/* more MRs, receives waiting, sends stuck in RNR (the peer has no
	 * receives; rnr_retry 7) */
	for (int i = 0; i < 4; i++)
		if (!xqpv_reg_mr(e.pd, e.buf + i * 4096, 4096, XQPV_ACCESS_LOCAL_WRITE))
			exit(5);
	for (int i = 0; i < 8; i++)
		if (post_recv1(e.qp, (uint64_t)i, e.buf, 4096, e.mr->lkey))
			exit(6);
	for (int i = 0; i < 8; i++) {
		struct xqpv_sge sge = { (uintptr_t)e.buf, 64, e.mr->lkey };
		struct xqpv_send_wr w = { .wr_id = (uint64_t)i, .sg_list = &sge, .num_sge = 1,
					 .opcode = XQPV_WR_SEND, .send_flags = XQPV_SEND_SIGNALED };

		if (post_send1(e.qp, &w))
			exit(7);
	}
	chan_send(&v->from, 1);
	pause();
}

static void case_kill9_posted(void)
{
	struct victim_arg v;
	struct conn c = conn_defaults();
	struct ep a;
	struct xqpv_wc wc[4];
	uint32_t qpn;
	pid_t pid;
	int n;

	c.retry_cnt = 1;
	c.rnr_retry = 1;
	c.timeout = 8;
	ep_open(&a, g_dev, 64);
	a.qp = ep_qp(&a, XQPV_QPT_RC, NULL, 16, 16);
	CHECK(a.qp, "qp");
	if (!a.qp)
		return;
	v.peer_lid = a.lid;
	chan_init(&v.to);
	chan_init(&v.from);
	pid = spawn(victim, &v);
	qpn = chan_recv(&v.from);
	CHECK(qpn != 0xffffffffU, "victim failed");
	chan_send(&v.to, a.qp->qp_num);
	EXPECT("connect", qp_connect(a.qp, 2, qpn, &c, 1), 0);
	EXPECT_INT("victim_ready", chan_recv(&v.from), 1);
	kill(pid, SIGKILL);
	EXPECT_INT("victim_killed", reap(pid), 128 + SIGKILL);
	/* nothing of the victim's arrives any more */
	EXPECT("recv", post_recv1(a.qp, 500, a.buf, 4096, a.mr->lkey), 0);
	usleep(200 * 1000);
	n = poll_n(a.cq, wc, 4, 300);
	/* a receive that raced the kill may have completed; none after it */
	EXPECT_INT("at_most_one_recv", n <= 1, 1);
	/* a message to the dead QP fails; the rest is flushed */
	{
		struct xqpv_sge sge = { (uintptr_t)a.buf + 8192, 64, a.mr->lkey };
		struct xqpv_send_wr w = { .wr_id = 600, .sg_list = &sge, .num_sge = 1,
					 .opcode = XQPV_WR_SEND, .send_flags = XQPV_SEND_SIGNALED };

		if (n == 1)
			EXPECT("recv_again", post_recv1(a.qp, 501, a.buf, 4096, a.mr->lkey), 0);
		EXPECT("send_to_dead", post_send1(a.qp, &w), 0);
		n = poll_n(a.cq, wc, 2, 20000);
		EXPECT_INT("send_and_recv_completed", n, 2);
		for (int i = 0; i < n; i++) {
			if (wc[i].wr_id == 600)
				EXPECT_INT("send_to_dead_failed", wc[i].status != XQPV_WC_SUCCESS, 1);
			else
				EXPECT_INT("recv_flushed", wc[i].status, XQPV_WC_WR_FLUSH_ERR);
		}
	}
	EXPECT_INT("qp_err", ({
		struct xqpv_qp_attr at;
		xqpv_query_qp(a.qp, &at, XQPV_QP_STATE, NULL) ? -1 : (int)at.qp_state; }),
		XQPV_QPS_ERR);
	ep_close(&a);
	/* the victim's device is usable and holds nothing of it */
	{
		struct ep e;

		ep_open(&e, second_dev(), 16);
		e.qp = ep_qp(&e, XQPV_QPT_RC, NULL, 8, 8);
		EXPECT("second_dev_usable", PERR(e.qp), 0);
		ep_close(&e);
	}
}

/* ---- RLIMIT_MEMLOCK ------------------------------------------------------------ */

static int drop_ipc_lock(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return errno;
	d[CAP_IPC_LOCK / 32].effective &= ~(1U << (CAP_IPC_LOCK % 32));
	d[CAP_IPC_LOCK / 32].permitted &= ~(1U << (CAP_IPC_LOCK % 32));
	d[CAP_IPC_LOCK / 32].inheritable &= ~(1U << (CAP_IPC_LOCK % 32));
	return syscall(SYS_capset, &h, d) ? errno : 0;
}

static void memlock_child(void *arg)
{
	struct rlimit rl = { 64 * 1024, 64 * 1024 };
	size_t big = 1024 * 1024;
	struct xqpv_context *ctx;
	struct xqpv_pd *pd;
	unsigned char *mem;
	struct xqpv_mr *small, *mr;

	(void)arg;
	EXPECT("drop_cap_ipc_lock", drop_ipc_lock(), 0);
	EXPECT("setrlimit", setrlimit(RLIMIT_MEMLOCK, &rl) ? errno : 0, 0);
	ctx = open_ctx();
	pd = xqpv_alloc_pd(ctx);
	mem = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!pd || mem == MAP_FAILED)
		exit(3);
	EXPECT("beyond_limit", PERR(xqpv_reg_mr(pd, mem, big, XQPV_ACCESS_LOCAL_WRITE)), ENOMEM);
	small = xqpv_reg_mr(pd, mem, 32 * 1024, XQPV_ACCESS_LOCAL_WRITE);
	EXPECT("within_limit", PERR(small), 0);
	/* 32 KiB pinned: another 48 KiB is past the 64 KiB */
	EXPECT("sum_beyond_limit", PERR(xqpv_reg_mr(pd, mem + 64 * 1024, 48 * 1024,
						    XQPV_ACCESS_LOCAL_WRITE)), ENOMEM);
	if (small)
		EXPECT("dereg", xqpv_dereg_mr(small), 0);
	/* deregistering gave the pages back */
	mr = xqpv_reg_mr(pd, mem + 64 * 1024, 48 * 1024, XQPV_ACCESS_LOCAL_WRITE);
	EXPECT("after_dereg", PERR(mr), 0);
	if (mr)
		xqpv_dereg_mr(mr);
	xqpv_dealloc_pd(pd);
	xqpv_close_device(ctx);
}

static void case_memlock(void)
{
	EXPECT_INT("child", reap(spawn(memlock_child, NULL)), 0);
}

const struct acc_case acc_cases_channel[] = {
	{ "dp_comp_channel_abi", case_channel_abi, NULL, 0 },
	{ "dp_comp_channel_events", case_channel_events, NULL, ACC_XQP_ONLY },
	{ "dp_poll_sleeps_while_cpu_wanted", case_poll_sleep, NULL, ACC_XQP_ONLY },
	{ "dp_kill9_with_wrs_posted", case_kill9_posted, NULL, ACC_XQP_ONLY },
	{ "dp_reg_mr_memlock", case_memlock, NULL, ACC_XQP_ONLY },
	{ NULL, NULL, NULL, 0 },
};
