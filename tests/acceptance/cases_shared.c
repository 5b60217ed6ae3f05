// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Real processes sharing XRC target QPs: QP numbers over pipes, the creator
 * leaving (exit, kill -9), fork, the last share freeing the QP.
 */
#include <fcntl.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "acc.h"

static void tok(const struct peer *p, const char *what, int err)
{
	char n[64];

	snprintf(n, sizeof(n), "%s.%s", p->tag, what);
	acc_token(n, "%s", errname(err));
}

/*
 * An opener: joins the XRCD, opens the QP whose number arrives, then obeys
 * commands: 1 = modify to INIT, 2 = query (reports the state), 3 = destroy
 * its handle, 0 = exit (closing everything).
 */
static void opener(void *arg)
{
	struct peer *p = arg;
	struct xqpv_context *ctx = open_ctx();
	struct xqpv_qp *h = NULL;
	struct xqpv_qp_attr a;
	int err;
	struct xqpv_xrcd *x = open_xrcd_path(ctx, p->path, 0, &err);
	uint32_t qpn = chan_recv(&p->to), cmd;

	tok(p, "join", err);
	if (x)
		h = open_tgt(ctx, x, qpn, &err);
	tok(p, "open", err);
	CHECK(!h || h->qp_num == qpn, "%s: opened qpn %u, want %u", p->tag,
	      h ? h->qp_num : 0, qpn);
	chan_send(&p->from, (uint32_t)err);
	while ((cmd = chan_recv(&p->to)) != 0 && cmd != 0xffffffffU) {
		switch (cmd) {
		case 1:
			memset(&a, 0, sizeof(a));
			a.qp_state = XQPV_QPS_INIT;
			a.port_num = 1;
			err = h ? xqpv_modify_qp(h, &a, XQPV_QP_STATE | XQPV_QP_PKEY_INDEX |
						XQPV_QP_PORT | XQPV_QP_ACCESS_FLAGS) : EBADF;
			tok(p, "modify_init", err);
			break;
		case 2:
			err = h ? xqpv_query_qp(h, &a, XQPV_QP_STATE, NULL) : EBADF;
			chan_send(&p->from, err ? 100 + (uint32_t)err : a.qp_state);
			continue;
		case 3:
			err = h ? xqpv_destroy_qp(h) : EBADF;
			h = NULL;
			tok(p, "destroy", err);
			break;
		case 4:
			err = x ? (int)PERR(open_tgt(ctx, x, qpn, &err)) : EBADF;
			chan_send(&p->from, (uint32_t)err);
			continue;
		}
		chan_send(&p->from, (uint32_t)err);
	}
	xqpv_close_device(ctx);
}

/* Creator + two openers in three processes; every share is equal. */
static void case_three_processes(void)
{
	const char *path = case_file("three");
	struct peer a, b;
	struct xqpv_context *ctx = open_ctx();
	int err;
	struct xqpv_xrcd *x;
	struct xqpv_qp *qp = open_xrcd_tgt(ctx, path, O_CREAT, &x);
	uint32_t qpn;
	pid_t pa, pb;

	CHECK(qp, "create: %s", errname(errno));
	if (!qp)
		return;
	qpn = qp->qp_num;
	peer_init(&a, path, "a");
	peer_init(&b, path, "b");
	pa = spawn(opener, &a);
	pb = spawn(opener, &b);
	chan_send(&a.to, qpn);
	chan_send(&b.to, qpn);
	EXPECT_INT("a_opened", chan_recv(&a.from), 0);
	EXPECT_INT("b_opened", chan_recv(&b.from), 0);

	/* the creator's destroy just closes its share */
	EXPECT("creator_destroy", xqpv_destroy_qp(qp), 0);
	EXPECT_INT("a_modify", peer_ask(&a, 1), 0);
	EXPECT_INT("b_sees_init", peer_ask(&b, 2), XQPV_QPS_INIT);
	EXPECT_INT("a_destroy", peer_ask(&a, 3), 0);
	EXPECT_INT("b_still_sees", peer_ask(&b, 2), XQPV_QPS_INIT);
	EXPECT_INT("b_reopens", peer_ask(&b, 4), 0);	/* b now holds two shares */
	EXPECT_INT("b_destroy_one", peer_ask(&b, 3), 0);
	EXPECT("creator_can_reopen", PERR(qp = open_tgt(ctx, x, qpn, &err)), 0);
	if (qp)
		EXPECT("creator_destroy_again", xqpv_destroy_qp(qp), 0);
	chan_send(&b.to, 0);	/* b exits: its last share goes with its file */
	EXPECT_INT("b_exit", reap(pb), 0);
	chan_send(&a.to, 0);
	EXPECT_INT("a_exit", reap(pa), 0);
	/* nobody holds it: gone, the number is not openable */
	EXPECT("gone", PERR(open_tgt(ctx, x, qpn, &err)), EINVAL);
	EXPECT("close_xrcd", xqpv_close_xrcd(x), 0);
	xqpv_close_device(ctx);
}

/* A creator that creates, passes the number on and then exits or dies. */
struct creator_arg {
	const char *path;
	struct chan out, in;
	int hold;	/* 1: wait for a byte before leaving; 2: sleep forever */
};

static void creator(void *arg)
{
	struct creator_arg *c = arg;
	struct xqpv_context *ctx = open_ctx();
	struct xqpv_qp *qp = open_xrcd_tgt(ctx, c->path, O_CREAT, NULL);
	struct xqpv_qp_attr a = { .qp_state = XQPV_QPS_INIT, .port_num = 1 };

	CHECK(qp, "creator: %s", errname(errno));
	if (qp)
		CHECK(!xqpv_modify_qp(qp, &a, XQPV_QP_STATE | XQPV_QP_PKEY_INDEX | XQPV_QP_PORT |
				     XQPV_QP_ACCESS_FLAGS), "creator modify");
	chan_send(&c->out, qp ? qp->qp_num : 0);
	if (c->hold == 2)
		for (;;)
			pause();
	chan_recv(&c->in);
	/* leave without destroying anything: exit closes the file */
	exit(0);
}

static void leaver(int how)
{
	struct creator_arg c = { .path = case_file("leaver"), .hold = how };
	struct xqpv_context *ctx = open_ctx();
	struct xqpv_qp *h = NULL, *h2;
	struct xqpv_qp_attr a;
	struct xqpv_xrcd *x;
	uint32_t qpn;
	pid_t pid;
	int err, st;

	chan_init(&c.out);
	chan_init(&c.in);
	pid = spawn(creator, &c);
	qpn = chan_recv(&c.out);
	x = open_xrcd_path(ctx, c.path, 0, &err);
	EXPECT("join", err, 0);
	if (x)
		h = open_tgt(ctx, x, qpn, &err);
	EXPECT("open", err, 0);
	if (how == 2)
		kill(pid, SIGKILL);
	else
		chan_send(&c.in, 1);
	st = reap(pid);
	EXPECT_INT("creator_status", st, how == 2 ? 128 + SIGKILL : 0);
	if (!h)
		return;
	/* the QP survived its creator, with its state */
	EXPECT("query", xqpv_query_qp(h, &a, XQPV_QP_STATE, NULL), 0);
	EXPECT_INT("state", a.qp_state, XQPV_QPS_INIT);
	memset(&a, 0, sizeof(a));
	a.qp_state = XQPV_QPS_ERR;
	EXPECT("modify", xqpv_modify_qp(h, &a, XQPV_QP_STATE), 0);
	h2 = open_tgt(ctx, x, qpn, &err);
	EXPECT("still_openable", err, 0);
	EXPECT("destroy_h", xqpv_destroy_qp(h), 0);
	if (h2)
		EXPECT("destroy_h2", xqpv_destroy_qp(h2), 0);
	EXPECT("gone", PERR(open_tgt(ctx, x, qpn, &err)), EINVAL);
	EXPECT("close_xrcd", xqpv_close_xrcd(x), 0);
	/* nothing of the creator's is left on the inode */
	x = open_xrcd_path(ctx, c.path, O_CREAT | O_EXCL, &err);
	EXPECT("inode_free", err, 0);
	xqpv_close_device(ctx);
}

static void case_creator_exits(void)
{
	leaver(1);
}

static void case_creator_killed(void)
{
	leaver(2);
}

/* kill -9 at a random point of a busy process: nothing is left behind. */
static void churn(void *arg)
{
	const char *path = arg;
	struct xqpv_context *ctx = open_ctx();
	int err;
	struct xqpv_xrcd *x = open_xrcd_path(ctx, path, O_CREAT, &err);
	struct xqpv_pd *pd = xqpv_alloc_pd(ctx);
	struct xqpv_cq *cq = xqpv_create_cq(ctx, 16, NULL, NULL, 0);

	if (!x || !pd || !cq)
		exit(3);
	for (unsigned int i = 0;; i++) {
		struct xqpv_qp *q = create_tgt(ctx, x);
		struct xqpv_qp *o = q ? open_tgt(ctx, x, q->qp_num, &err) : NULL;

		if (!q || !o || !create_rc(ctx, pd, cq))
			exit(4);
		if (i % 3 == 0)
			xqpv_destroy_qp(q);
		if (i % 5 == 0)
			xqpv_destroy_qp(o);
	}
}

static void case_kill9_midway(void)
{
	const char *path = case_file("churn");
	struct xqpv_context *ctx;
	struct timespec ts = { 0, 300 * 1000 * 1000 };
	int err;

	for (int round = 0; round < 3; round++) {
		pid_t pid = spawn(churn, (void *)path);

		ts.tv_nsec = (100 + 150 * round) * 1000 * 1000;
		nanosleep(&ts, NULL);
		kill(pid, SIGKILL);
		CHECK(reap(pid) == 128 + SIGKILL, "churn %d ended on its own", round);
	}
	ctx = open_ctx();
	open_xrcd_path(ctx, path, O_CREAT | O_EXCL, &err);
	EXPECT("inode_free_after_kills", err, 0);
	xqpv_close_device(ctx);
}

/* fork: the child shares the file; the objects live while either holds it. */
struct fork_arg {
	struct chan go;
};

static void holder(void *arg)
{
	struct fork_arg *f = arg;

	chan_recv(&f->go);	/* holds the inherited file until told */
	exit(0);
}

struct third_arg {
	const char *path;
	uint32_t qpn;
	int expect;
};

static void third(void *arg)
{
	struct third_arg *t = arg;
	struct xqpv_context *ctx = open_ctx();
	int err;
	struct xqpv_xrcd *x = open_xrcd_path(ctx, t->path, 0, &err);
	struct xqpv_qp *h = x ? open_tgt(ctx, x, t->qpn, &err) : NULL;

	if (h)
		xqpv_destroy_qp(h);
	xqpv_close_device(ctx);
	exit(err == t->expect ? 0 : 10 + err);
}

static void case_fork_shares_file(void)
{
	struct third_arg t = { .path = case_file("fork") };
	struct fork_arg f;
	struct xqpv_context *ctx = open_ctx();
	struct xqpv_qp *qp = open_xrcd_tgt(ctx, t.path, O_CREAT, NULL);
	pid_t child;

	CHECK(qp, "create");
	if (!qp)
		return;
	t.qpn = qp->qp_num;
	chan_init(&f.go);
	child = spawn(holder, &f);
	/* the parent lets go of its descriptors: the child's copy holds all */
	xqpv_close_device(ctx);
	t.expect = 0;
	EXPECT_INT("third_opens_while_child_holds", reap(spawn(third, &t)), 0);
	chan_send(&f.go, 1);
	EXPECT_INT("child_exit", reap(child), 0);
	t.expect = EAGAIN;	/* the XRCD itself is gone with the last file */
	EXPECT_INT("third_after_child", reap(spawn(third, &t)), 0);
}

const struct acc_case acc_cases_shared[] = {
	{ "shared_three_processes", case_three_processes, NULL, 0 },
	{ "shared_creator_exits", case_creator_exits, NULL, 0 },
	{ "shared_creator_kill9", case_creator_killed, NULL, 0 },
	{ "shared_kill9_midway", case_kill9_midway, NULL, 0 },
	{ "shared_fork_shares_file", case_fork_shares_file, NULL, 0 },
	{ NULL, NULL, NULL, 0 },
};

/*
 * Threads hammering one file: creates, opens, modifies, queries and
 * destroys of shared QPs, racing with each other over the same handles.
 * Only clean errnos may come back; the kernel checks the rest (KASAN,
 * lockdep, kmemleak).
 */
#include <pthread.h>

struct stress {
	struct xqpv_context *ctx;
	struct xqpv_xrcd *x;
	uint32_t handles[64];	/* raw handles, shared between threads */
	int bad;
	unsigned int seed;
};

static void *stress_thread(void *arg)
{
	struct stress *s = arg;
	unsigned int seed = __atomic_add_fetch(&s->seed, 7919, __ATOMIC_RELAXED);

	for (int i = 0; i < 300; i++) {
		unsigned int slot = (unsigned int)rand_r(&seed) % 64;
		uint32_t h = __atomic_load_n(&s->handles[slot], __ATOMIC_RELAXED);
		int err = 0;

		switch (rand_r(&seed) % 4) {
		case 0: {	/* create, publish the handle (xqpv_qp leaks: fine) */
			struct xqpv_qp *qp = create_tgt(s->ctx, s->x);

			if (!qp) {
				err = errno;
				break;
			}
			__atomic_store_n(&s->handles[slot], qp->handle, __ATOMIC_RELAXED);
			if (!open_tgt(s->ctx, s->x, qp->qp_num, &err) && err != EINVAL)
				break;
			err = 0;
			break;
		}
		case 1:
			err = destroy_qp_raw(s->ctx->cmd_fd, h, NULL);
			break;
		case 2:
			err = query_qp_raw(s->ctx->cmd_fd, h, NULL);
			break;
		case 3: {
			struct xqpv_qp fake = { .context = s->ctx, .handle = h };
			struct xqpv_qp_attr a = { .qp_state = XQPV_QPS_ERR };

			err = xqpv_modify_qp(&fake, &a, XQPV_QP_STATE);
			break;
		}
		}
		/* a racing destroy: gone (ENOENT), in use (EBUSY), not a QP
		 * (EINVAL: the slot was reused by another type or state) */
		if (err && err != ENOENT && err != EBUSY && err != EINVAL)
			__atomic_store_n(&s->bad, err, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void case_threads(void)
{
	const char *path = case_file("threads");
	struct stress s = { .ctx = open_ctx(), .seed = 1 };
	pthread_t t[4];
	int err;

	memset(s.handles, 0xff, sizeof(s.handles));
	s.x = open_xrcd_path(s.ctx, path, O_CREAT, &err);
	CHECK(s.x, "xrcd");
	if (!s.x)
		return;
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, stress_thread, &s);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	EXPECT("unexpected_errno", s.bad, 0);
	EXPECT("close", xqpv_close_device(s.ctx), 0);
	s.ctx = open_ctx();
	open_xrcd_path(s.ctx, path, O_CREAT | O_EXCL, &err);
	EXPECT("all_released", err, 0);
	xqpv_close_device(s.ctx);
}

const struct acc_case acc_cases_stress[] = {
	{ "stress_threads_one_file", case_threads, NULL, 0 },
	{ NULL, NULL, NULL, 0 },
};
