// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Device removal while files are open (unloading the soft device module):
 * everything is torn down, later commands get EIO, blocked async readers
 * wake up with IB_EVENT_DEVICE_FATAL then EIO, files close cleanly, and a
 * new device works afterwards. Run with -r MODULE, last (it unloads it).
 * Linux's uverbs cannot do this with the reference device: ib_uverbs pins
 * a driver without disassociate_ucontext while a file is open. Beside them,
 * hotplug_second_device removes one device through the soft module's hook
 * and runs with the others (it leaves the device there again).
 */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "acc.h"
#include "traffic.h"

struct reader_arg {
	struct chan ready;
	const char *path;
};

/* Holds a shared QP and blocks in read() on its async fd. */
static void reader(void *arg)
{
	struct reader_arg *r = arg;
	struct xqpv_context *ctx = open_ctx();
	struct ib_uverbs_async_event_desc d;
	int err;
	struct xqpv_xrcd *x = open_xrcd_path(ctx, r->path, 0, &err);
	uint32_t qpn = chan_recv(&r->ready);
	struct xqpv_qp *h = x ? open_tgt(ctx, x, qpn, &err) : NULL;
	ssize_t n;

	chan_send(&r->ready, h ? 0 : (uint32_t)err);
	n = read(ctx->async_fd, &d, sizeof(d));	/* blocks until the removal */
	EXPECT_INT("reader_woke_with_event", n, sizeof(d));
	EXPECT_INT("reader_event_fatal", d.event_type, XQPV_EVENT_DEVICE_FATAL);
	n = read(ctx->async_fd, &d, sizeof(d));
	EXPECT("reader_then_eio", n < 0 ? errno : 0, EIO);
	EXPECT("reader_destroy", xqpv_destroy_qp(h), 0);	/* EIO -> destroyed */
	EXPECT("reader_close", xqpv_close_device(ctx), 0);
}

static int run(const char *cmd)
{
	int st = system(cmd);

	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static void case_removal(void)
{
	struct reader_arg r = { .path = case_file("removal") };
	struct xqpv_context *ctx = open_ctx(), *idle = open_ctx();
	struct ib_uverbs_query_device_resp qd;
	struct pollfd p;
	char cmd[256];
	int err, fd;
	struct xqpv_xrcd *x = open_xrcd_path(ctx, r.path, O_CREAT, &err);
	struct xqpv_xrcd *priv = open_xrcd_path(ctx, NULL, 0, &err);
	struct xqpv_pd *pd = xqpv_alloc_pd(ctx);
	struct xqpv_cq *cq = xqpv_create_cq(ctx, 8, NULL, NULL, 0);
	struct xqpv_qp *tgt = x ? create_tgt(ctx, x) : NULL;
	struct xqpv_qp *tgt2 = priv ? create_tgt(ctx, priv) : NULL;
	struct xqpv_qp *rc = pd && cq ? create_rc(ctx, pd, cq) : NULL;
	struct xqpv_srq *srq = create_xrc_srq(ctx, pd, x, cq);
	struct xqpv_qp_attr a = { 0 };
	pid_t rp;

	CHECK(tgt && tgt2 && rc && srq, "setup: %s", errname(errno));
	if (!tgt || !tgt2 || !rc || !srq)
		return;
	chan_init(&r.ready);
	rp = spawn(reader, &r);
	chan_send(&r.ready, tgt->qp_num);
	usleep(100 * 1000);
	EXPECT_INT("reader_opened", chan_recv(&r.ready), 0);
	usleep(300 * 1000);	/* let it block in read() */

	snprintf(cmd, sizeof(cmd), "rmmod %s", g_soft_module);
	EXPECT_INT("rmmod", run(cmd), 0);

	/* every later command: EIO */
	EXPECT("query_device", query_device_raw(ctx->cmd_fd, &qd), EIO);
	EXPECT("alloc_pd", PERR(xqpv_alloc_pd(ctx)), EIO);
	a.qp_state = XQPV_QPS_INIT;
	EXPECT("modify", xqpv_modify_qp(tgt, &a, XQPV_QP_STATE), EIO);
	EXPECT("idle_file_cmd", query_device_raw(idle->cmd_fd, &qd), EIO);
	/* async fd: DEVICE_FATAL, then EIO; poll says error once drained */
	{
		struct xqpv_async_event ev;

		EXPECT("fatal_event", get_event(ctx, &ev, 2000), 0);
		EXPECT_INT("fatal_type", ev.event_type, XQPV_EVENT_DEVICE_FATAL);
		EXPECT("then_eio", xqpv_get_async_event(ctx, &ev) ? errno : 0, EIO);
		p.fd = ctx->async_fd;
		p.events = POLLIN;
		EXPECT_INT("poll_err", poll(&p, 1, 0) == 1 && (p.revents & POLLERR), 1);
	}
	EXPECT_INT("reader_exit", reap(rp), 0);
	/* destroys report success (the objects are gone), close works */
	EXPECT("destroy_rc", xqpv_destroy_qp(rc), 0);
	EXPECT("destroy_srq", xqpv_destroy_srq(srq), 0);
	EXPECT("close_ctx", xqpv_close_device(ctx), 0);
	EXPECT("close_idle", xqpv_close_device(idle), 0);
	fd = open(g_dev, O_RDWR);
	EXPECT("node_gone", fd < 0 ? errno : 0, ENOENT);
	if (fd >= 0)
		close(fd);

	/* a new device works */
	snprintf(cmd, sizeof(cmd), "insmod /lib/xqp/%s.ko", g_soft_module);
	EXPECT_INT("insmod", run(cmd), 0);
	usleep(200 * 1000);
	ctx = xqpv_open_device_path(g_dev);
	EXPECT("reopen", PERR(ctx), 0);
	if (ctx) {
		x = open_xrcd_path(ctx, r.path, O_CREAT | O_EXCL, &err);
		EXPECT("fresh_xrcd", err, 0);
		EXPECT("fresh_qp", PERR(x ? create_tgt(ctx, x) : NULL), 0);
		xqpv_close_device(ctx);
	}
}

/* Commands racing the removal: each one either works or gets EIO. */
#include <pthread.h>

struct load {
	const char *path;
	int stop;
	int bad;
	int saw_eio;
};

static void *load_thread(void *arg)
{
	struct load *l = arg;
	struct xqpv_context *ctx = xqpv_open_device_path(g_dev);
	struct xqpv_xrcd *x;
	int err;

	if (!ctx)
		return NULL;
	x = open_xrcd_path(ctx, l->path, O_CREAT, &err);
	while (x && !__atomic_load_n(&l->stop, __ATOMIC_RELAXED)) {
		struct xqpv_qp *qp = create_tgt(ctx, x), *h;
		struct xqpv_qp_attr a;

		if (!qp) {
			err = errno;
			goto check;
		}
		h = open_tgt(ctx, x, qp->qp_num, &err);
		if (h) {
			err = xqpv_query_qp(h, &a, XQPV_QP_STATE, NULL);
			if (err)
				goto check;
		} else if (err) {
			goto check;
		}
		err = xqpv_destroy_qp(qp);
check:
		if (err == EIO) {
			__atomic_store_n(&l->saw_eio, 1, __ATOMIC_RELAXED);
			break;
		}
		if (err)
			__atomic_store_n(&l->bad, err, __ATOMIC_RELAXED);
	}
	xqpv_close_device(ctx);
	return NULL;
}

static void case_removal_under_load(void)
{
	struct load l = { .path = case_file("load") };
	pthread_t t[3];
	char cmd[256];

	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, load_thread, &l);
	usleep(500 * 1000);
	snprintf(cmd, sizeof(cmd), "rmmod %s", g_soft_module);
	EXPECT_INT("rmmod_under_load", run(cmd), 0);
	usleep(200 * 1000);
	__atomic_store_n(&l.stop, 1, __ATOMIC_RELAXED);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	EXPECT("only_clean_errnos", l.bad, 0);
	EXPECT_INT("threads_saw_eio", l.saw_eio, 1);
	snprintf(cmd, sizeof(cmd), "insmod /lib/xqp/%s.ko", g_soft_module);
	EXPECT_INT("insmod", run(cmd), 0);
}

/* ---- removal with traffic in flight ---------------------------------------- */

/* The process's long-term pinned pages (VmPin of /proc/self/status), in kB. */
static long vm_pin_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

struct flow {
	struct ep a, b;		/* RC pair: uverbs0 -> uverbs1 */
	int stop;
	long moved;		/* messages received and checked */
	int bad;		/* an errno or status that removal does not explain */
	int bad_status;		/* with bad == EPROTO: the completion's status */
	int saw_eio;
	int peer_gone;		/* a send exceeded its retries: b went first */
};

/* Sends 4 KiB messages a -> b, one receive posted per message, until a
 * command says EIO (the device is gone). Completions before that succeed or
 * are flushed, but for one: the module removes its devices last first, so
 * a send can find b gone and exceed its retries (retry_cnt 1, timeout 10:
 * 8 ms) before a's removal flushes it. The next command on b then says EIO. */
static void *flow_thread(void *arg)
{
	struct flow *f = arg;
	struct xqpv_sge sge = { (uintptr_t)f->a.buf, 4096, f->a.mr->lkey };
	struct xqpv_send_wr w = { .sg_list = &sge, .num_sge = 1, .opcode = XQPV_WR_SEND,
				 .send_flags = XQPV_SEND_SIGNALED };
	struct xqpv_wc wc;
	int err = 0, r;

	while (!__atomic_load_n(&f->stop, __ATOMIC_RELAXED)) {
		w.wr_id = (uint64_t)f->moved;
		err = post_recv1(f->b.qp, w.wr_id, f->b.buf, 4096, f->b.mr->lkey);
		if (!err)
			err = post_send1(f->a.qp, &w);
		for (int cq = 0; !err && cq < 2; cq++) {
			int tries = 20000;	/* 2 s */

			while ((r = xqpv_poll_cq(cq ? f->b.cq : f->a.cq, 1, &wc)) == 0 &&
			       --tries)
				usleep(100);
			if (r < 0)
				err = -r;
			else if (r == 0)
				err = ETIMEDOUT;
			else if (!cq && wc.status == XQPV_WC_RETRY_EXC_ERR && !f->peer_gone)
				f->peer_gone = 1;
			else if (wc.status != XQPV_WC_SUCCESS && wc.status != XQPV_WC_WR_FLUSH_ERR)
				err = EPROTO;
			if (err == EPROTO)
				f->bad_status = wc.status;
			if (f->peer_gone)
				break;
		}
		if (err)
			break;
		if (!f->peer_gone)
			f->moved++;
	}
	if (err == EIO)
		__atomic_store_n(&f->saw_eio, 1, __ATOMIC_RELAXED);
	else if (err)
		__atomic_store_n(&f->bad, err, __ATOMIC_RELAXED);
	return NULL;
}

static void case_removal_under_traffic(void)
{
	struct flow f = { 0 };
	pthread_t t;
	char cmd[256];
	long pinned;

	ep_open(&f.a, g_dev, 64);
	ep_open(&f.b, second_dev(), 64);
	f.a.qp = ep_qp(&f.a, XQPV_QPT_RC, NULL, 8, 8);
	f.b.qp = ep_qp(&f.b, XQPV_QPT_RC, NULL, 8, 8);
	connect_pair(&f.a, &f.b, NULL);
	pinned = vm_pin_kb();
	EXPECT_INT("mrs_pinned", pinned >= 2 * BUF_LEN / 1024, 1);
	pthread_create(&t, NULL, flow_thread, &f);
	usleep(300 * 1000);
	snprintf(cmd, sizeof(cmd), "rmmod %s", g_soft_module);
	EXPECT_INT("rmmod_under_traffic", run(cmd), 0);
	usleep(200 * 1000);
	__atomic_store_n(&f.stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	EXPECT_INT("traffic_flowed", f.moved > 0, 1);
	EXPECT("only_clean_errnos", f.bad, 0);
	EXPECT_INT("unexplained_wc_status", f.bad_status, 0);
	EXPECT_INT("sender_saw_eio", f.saw_eio, 1);
	/* the device's removal gave the pinned pages back, files still open */
	EXPECT_INT("pages_unpinned", vm_pin_kb(), 0);
	ep_close(&f.a);
	ep_close(&f.b);
	snprintf(cmd, sizeof(cmd), "insmod /lib/xqp/%s.ko devices=2", g_soft_module);
	EXPECT_INT("insmod", run(cmd), 0);
}

/* A write of @what to the soft module's hotplug hook: 0 or the errno. */
static int hotplug(const char *what)
{
	int fd = open("/sys/kernel/debug/xqp_soft/hotplug", O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return errno;
	if (write(fd, what, strlen(what)) < 0)
		err = errno;
	close(fd);
	return err;
}

/* A send from @a to its RC peer, whose device is gone: no responder, so
 * the retries run out (retry_cnt 1, timeout 10: 8 ms), as with a dead node. */
static void send_to_gone_peer(struct ep *a)
{
	struct xqpv_sge sge = { (uintptr_t)a->buf, 64, a->mr->lkey };
	struct xqpv_send_wr w = { .wr_id = 7, .sg_list = &sge, .num_sge = 1,
				 .opcode = XQPV_WR_SEND, .send_flags = XQPV_SEND_SIGNALED };
	struct xqpv_wc wc;

	EXPECT("send_to_gone_peer", post_send1(a->qp, &w), 0);
	if (poll_one(a->cq, &wc, 2000, "send_to_gone_peer"))
		EXPECT_INT("gone_peer_retry_exceeded", wc.status, XQPV_WC_RETRY_EXC_ERR);
}

/*
 * The soft module's hotplug hook: the second device removed while a file
 * holds a PD on it (the file answers EIO, the destroy reports success, the
 * first device is untouched, its QP connected to the gone one sees no
 * responder), then made again under the same node.
 */
static void case_hotplug(void)
{
	struct ib_uverbs_query_device_resp qd;
	struct xqpv_context *ctx = xqpv_open_device_path(second_dev()), *first = open_ctx();
	struct xqpv_pd *pd = ctx ? xqpv_alloc_pd(ctx) : NULL;
	struct ep a, b;

	CHECK(pd, "setup on %s: %s", second_dev(), errname(errno));
	if (!pd)
		return;
	ep_open(&a, g_dev, 4);
	ep_open(&b, second_dev(), 4);
	a.qp = ep_qp(&a, XQPV_QPT_RC, NULL, 4, 4);
	b.qp = ep_qp(&b, XQPV_QPT_RC, NULL, 4, 4);
	connect_pair(&a, &b, NULL);
	EXPECT("remove", hotplug("remove 1"), 0);
	EXPECT("remove_again", hotplug("remove 1"), ENOENT);
	EXPECT("file_eio", PERR(xqpv_alloc_pd(ctx)), EIO);
	EXPECT("dealloc_after", xqpv_dealloc_pd(pd), 0);
	EXPECT("close_after", xqpv_close_device(ctx), 0);
	EXPECT("first_untouched", query_device_raw(first->cmd_fd, &qd), 0);
	send_to_gone_peer(&a);
	ep_close(&b);
	ep_close(&a);
	EXPECT("bad_verb", hotplug("unplug 1"), EINVAL);
	EXPECT("bad_index", hotplug("add 8"), EINVAL);
	EXPECT("no_index", hotplug("add"), EINVAL);
	EXPECT("add", hotplug("add 1"), 0);
	EXPECT("add_again", hotplug("add 1"), EEXIST);
	ctx = xqpv_open_device_path(second_dev());
	EXPECT("reopen", PERR(ctx), 0);
	if (ctx) {
		pd = xqpv_alloc_pd(ctx);
		EXPECT("fresh_pd", PERR(pd), 0);
		if (pd)
			EXPECT("fresh_dealloc", xqpv_dealloc_pd(pd), 0);
		xqpv_close_device(ctx);
	}
	xqpv_close_device(first);
}

const struct acc_case acc_cases_removal[] = {
	{ "removal_under_traffic", case_removal_under_traffic, NULL, ACC_REMOVAL | ACC_XQP_ONLY },
	{ "removal_with_open_files", case_removal, NULL, ACC_REMOVAL | ACC_XQP_ONLY },
	{ "removal_under_load", case_removal_under_load, NULL, ACC_REMOVAL | ACC_XQP_ONLY },
	{ "hotplug_second_device", case_hotplug, NULL, ACC_XQP_ONLY },
	{ NULL, NULL, NULL, 0 },
};
