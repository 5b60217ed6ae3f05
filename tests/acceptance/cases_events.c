// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * Async events: every opener of a shared QP, in every process, gets its own
 * copy on its own async fd, naming its own handle; destroyed handles get
 * nothing; DESTROY reports how many were read; the async fd's read/poll
 * rules. Events are raised through a test hook (xqp: an ioctl; Linux: the
 * reference device's debugfs file, if it has one, else the case is xqp only).
 */
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acc.h"

#define SKIP_IF_NO_HOOK(err)                                                   \
	do {                                                                   \
		if ((err) == ENOTTY && !g_is_xqp) {                            \
			acc_token("SKIP", "no-event-hook-on-this-device");      \
			return;                                                \
		}                                                              \
	} while (0)

/*
 * Opens the QP, then on each command byte: 1 = expect exactly one event for
 * its own share (reports its type), 2 = expect none, 3 = destroy its share.
 */
static void ev_opener(void *arg)
{
	struct peer *p = arg;
	struct xqpv_context *ctx = open_ctx();
	struct xqpv_async_event ev;
	struct xqpv_qp *h = NULL;
	int err;
	struct xqpv_xrcd *x = open_xrcd_path(ctx, p->path, 0, &err);
	uint32_t qpn = chan_recv(&p->to), cmd;

	if (x)
		h = open_tgt(ctx, x, qpn, &err);
	chan_send(&p->from, (uint32_t)err);
	while ((cmd = chan_recv(&p->to)) != 0 && cmd != 0xffffffffU) {
		uint32_t reply = 0;

		switch (cmd) {
		case 1:
			err = get_event(ctx, &ev, 5000);
			if (err) {
				reply = 1000 + (uint32_t)err;
				break;
			}
			CHECK(ev.element.qp == h, "%s: event names %p, its share is %p",
			      p->tag, (void *)ev.element.qp, (void *)h);
			reply = ev.event_type;
			xqpv_ack_async_event(&ev);
			break;
		case 2:
			err = get_event(ctx, &ev, 300);
			reply = err == ETIMEDOUT ? 0 : 2000 + (err ? (uint32_t)err : ev.event_type);
			break;
		case 3:
			reply = h ? (uint32_t)xqpv_destroy_qp(h) : 99;
			h = NULL;
			break;
		}
		chan_send(&p->from, reply);
	}
	xqpv_close_device(ctx);
}

static void case_each_opener(void)
{
	const char *path = case_file("events");
	struct peer a, b;
	struct xqpv_context *ctx = open_ctx();
	struct xqpv_async_event ev;
	int err;
	struct xqpv_xrcd *x;
	struct xqpv_qp *qp = open_xrcd_tgt(ctx, path, O_CREAT, &x);
	pid_t pa, pb;

	CHECK(qp, "create");
	if (!qp)
		return;
	err = raise_event(qp, XQPV_EVENT_COMM_EST);
	SKIP_IF_NO_HOOK(err);
	EXPECT("raise_alone", err, 0);
	EXPECT("creator_gets_it", get_event(ctx, &ev, 5000), 0);
	CHECK(ev.element.qp == qp, "creator event names %p, not %p", (void *)ev.element.qp,
	      (void *)qp);
	EXPECT_INT("creator_type", ev.event_type, XQPV_EVENT_COMM_EST);
	xqpv_ack_async_event(&ev);

	peer_init(&a, path, "a");
	peer_init(&b, path, "b");
	pa = spawn(ev_opener, &a);
	pb = spawn(ev_opener, &b);
	chan_send(&a.to, qp->qp_num);
	chan_send(&b.to, qp->qp_num);
	EXPECT_INT("a_open", chan_recv(&a.from), 0);
	EXPECT_INT("b_open", chan_recv(&b.from), 0);

	EXPECT("raise_fatal", raise_event(qp, XQPV_EVENT_QP_FATAL), 0);
	EXPECT_INT("a_gets_one", peer_ask(&a, 1), XQPV_EVENT_QP_FATAL);
	EXPECT_INT("b_gets_one", peer_ask(&b, 1), XQPV_EVENT_QP_FATAL);
	EXPECT("creator_gets_one", get_event(ctx, &ev, 5000), 0);
	EXPECT_INT("creator_fatal", ev.event_type, XQPV_EVENT_QP_FATAL);
	xqpv_ack_async_event(&ev);
	EXPECT_INT("a_no_second", peer_ask(&a, 2), 0);
	EXPECT_INT("b_no_second", peer_ask(&b, 2), 0);
	EXPECT("creator_no_second", get_event(ctx, &ev, 300), ETIMEDOUT);

	/* a closes its share: it hears nothing more, the others do */
	EXPECT_INT("a_destroy", peer_ask(&a, 3), 0);
	EXPECT("raise_access", raise_event(qp, XQPV_EVENT_QP_ACCESS_ERR), 0);
	EXPECT_INT("a_nothing", peer_ask(&a, 2), 0);
	EXPECT_INT("b_gets_access", peer_ask(&b, 1), XQPV_EVENT_QP_ACCESS_ERR);
	EXPECT("creator_gets_access", get_event(ctx, &ev, 5000), 0);
	xqpv_ack_async_event(&ev);

	/* the creator leaves and a exits; b still gets events */
	{
		uint32_t qpn = qp->qp_num;
		struct xqpv_qp *h;

		EXPECT("creator_destroy", xqpv_destroy_qp(qp), 0);
		chan_send(&a.to, 0);
		EXPECT_INT("a_exit", reap(pa), 0);
		h = open_tgt(ctx, x, qpn, &err);
		EXPECT("creator_reopens", err, 0);
		if (h) {
			EXPECT("raise_via_new_handle", raise_event(h, XQPV_EVENT_PATH_MIG), 0);
			EXPECT_INT("b_gets_mig", peer_ask(&b, 1), XQPV_EVENT_PATH_MIG);
			EXPECT("new_share_gets_mig", get_event(ctx, &ev, 5000), 0);
			CHECK(ev.element.qp == h, "new share event names %p", (void *)ev.element.qp);
			xqpv_ack_async_event(&ev);
			EXPECT("destroy_new_handle", xqpv_destroy_qp(h), 0);
		}
	}
	chan_send(&b.to, 0);
	EXPECT_INT("b_exit", reap(pb), 0);
	xqpv_close_device(ctx);
}

/* DESTROY reports the events read; unread ones are dropped with the share. */
static void case_destroy_counts(void)
{
	struct xqpv_context *ctx = open_ctx();
	struct xqpv_async_event ev;
	int err, i;
	struct xqpv_qp *qp = open_xrcd_tgt(ctx, NULL, 0, NULL);
	uint32_t reported;

	CHECK(qp, "create");
	if (!qp)
		return;
	err = raise_event(qp, XQPV_EVENT_QP_FATAL);
	SKIP_IF_NO_HOOK(err);
	for (i = 0; i < 2; i++)
		EXPECT("raise", raise_event(qp, XQPV_EVENT_QP_REQ_ERR), 0);
	for (i = 0; i < 2; i++) {
		EXPECT("read", get_event(ctx, &ev, 5000), 0);
		xqpv_ack_async_event(&ev);
	}
	EXPECT("destroy", destroy_qp_raw(ctx->cmd_fd, qp->handle, &reported), 0);
	EXPECT_INT("events_reported", reported, 2);
	/* the third event went with the share */
	fcntl(ctx->async_fd, F_SETFL, O_NONBLOCK);
	EXPECT("queue_empty", xqpv_get_async_event(ctx, &ev) ? errno : 0, EAGAIN);
	xqpv_close_device(ctx);
}

/* read()/poll() rules of the async fd. */
static void case_async_fd(void)
{
	struct xqpv_context *ctx = open_ctx();
	struct ib_uverbs_async_event_desc desc, descs[2];
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };
	int err;
	struct xqpv_qp *qp = open_xrcd_tgt(ctx, NULL, 0, NULL);
	char small[8];

	CHECK(qp, "create");
	if (!qp)
		return;
	EXPECT_INT("poll_empty", poll(&p, 1, 0), 0);
	fcntl(ctx->async_fd, F_SETFL, O_NONBLOCK);
	EXPECT("read_empty", read(ctx->async_fd, &desc, sizeof(desc)) < 0 ? errno : 0, EAGAIN);
	EXPECT("write_async_fd", write(ctx->async_fd, &desc, sizeof(desc)) < 0 ? errno : 0,
	       EBADF);
	err = raise_event(qp, XQPV_EVENT_COMM_EST);
	SKIP_IF_NO_HOOK(err);
	EXPECT_INT("poll_ready", poll(&p, 1, 5000), 1);
	EXPECT_INT("pollin", !!(p.revents & POLLIN), 1);
	EXPECT("read_small", read(ctx->async_fd, small, sizeof(small)) < 0 ? errno : 0, EINVAL);
	memset(descs, 0xff, sizeof(descs));
	EXPECT_INT("read_full", read(ctx->async_fd, descs, sizeof(descs)), sizeof(desc));
	desc = descs[0];
	EXPECT_INT("element_is_user_handle", desc.element == (uintptr_t)qp, 1);
	EXPECT_INT("type", desc.event_type, XQPV_EVENT_COMM_EST);
	EXPECT_INT("reserved", desc.reserved, 0);
	EXPECT_INT("poll_drained", poll(&p, 1, 0), 0);
	/* an ordinary QP's events go to its own file too */
	{
		struct xqpv_pd *pd = xqpv_alloc_pd(ctx);
		struct xqpv_cq *cq = xqpv_create_cq(ctx, 4, NULL, NULL, 0);
		struct xqpv_qp *rc = create_rc(ctx, pd, cq);
		struct xqpv_async_event ev;

		CHECK(rc, "rc");
		if (rc) {
			EXPECT("raise_rc", raise_event(rc, XQPV_EVENT_SQ_DRAINED), 0);
			EXPECT("rc_event", get_event(ctx, &ev, 5000), 0);
			CHECK(ev.element.qp == rc, "rc event names %p", (void *)ev.element.qp);
			EXPECT_INT("rc_type", ev.event_type, XQPV_EVENT_SQ_DRAINED);
			xqpv_ack_async_event(&ev);
		}
	}
	xqpv_close_device(ctx);
}

/*
 * A CQ's async events reach its creator's async fd, naming the CQ (its
 * user_handle); DESTROY_CQ's async_events_reported counts those read and the
 * unread ones go with the CQ. Linux: raised through a QP on the CQ (the
 * reference device's raise_cq_event names a CQ by a QP's number).
 */
static void case_cq_events(void)
{
	struct xqpv_context *ctx = open_ctx();
	struct xqpv_async_event ev;
	struct xqpv_pd *pd = xqpv_alloc_pd(ctx);
	struct xqpv_cq *cq = xqpv_create_cq(ctx, 4, NULL, NULL, 0);
	struct xqpv_qp *rc = pd && cq ? create_rc(ctx, pd, cq) : NULL;
	uint32_t reported = 99;
	int err, i;

	CHECK(rc, "pd/cq/rc: %s", errname(errno));
	if (!rc)
		return;
	err = raise_cq_event(cq, rc, XQPV_EVENT_CQ_ERR);
	SKIP_IF_NO_HOOK(err);
	EXPECT("raise_cq_err", err, 0);
	EXPECT("cq_event", get_event(ctx, &ev, 5000), 0);
	CHECK(ev.element.cq == cq, "CQ event names %p, not %p", (void *)ev.element.cq,
	      (void *)cq);
	EXPECT_INT("cq_type", ev.event_type, XQPV_EVENT_CQ_ERR);
	xqpv_ack_async_event(&ev);
	EXPECT("cq_no_second", get_event(ctx, &ev, 300), ETIMEDOUT);

	for (i = 0; i < 2; i++)
		EXPECT("raise_again", raise_cq_event(cq, rc, XQPV_EVENT_CQ_ERR), 0);
	EXPECT("read_one_more", get_event(ctx, &ev, 5000), 0);
	xqpv_ack_async_event(&ev);
	EXPECT("destroy_rc", xqpv_destroy_qp(rc), 0);
	EXPECT("destroy_cq", destroy_cq_raw(ctx->cmd_fd, cq->handle, &reported), 0);
	EXPECT_INT("async_events_reported", reported, 2);
	/* the unread one went with the CQ */
	fcntl(ctx->async_fd, F_SETFL, O_NONBLOCK);
	EXPECT("queue_empty", xqpv_get_async_event(ctx, &ev) ? errno : 0, EAGAIN);

	/* the library's destroy waits for the CQ's acked events: it returns */
	cq = xqpv_create_cq(ctx, 4, NULL, NULL, 0);
	rc = cq ? create_rc(ctx, pd, cq) : NULL;
	CHECK(rc, "cq2/rc2: %s", errname(errno));
	if (rc) {
		EXPECT("raise_cq2", raise_cq_event(cq, rc, XQPV_EVENT_CQ_ERR), 0);
		EXPECT("cq2_event", get_event(ctx, &ev, 5000), 0);
		CHECK(ev.element.cq == cq, "CQ2 event names %p", (void *)ev.element.cq);
		xqpv_ack_async_event(&ev);
		EXPECT("destroy_rc2", xqpv_destroy_qp(rc), 0);
		EXPECT("lib_destroy_cq2", xqpv_destroy_cq(cq), 0);
	}
	xqpv_close_device(ctx);
}

/*
 * An SRQ's async events (SRQ_LIMIT_REACHED, SRQ_ERR) reach its creator's
 * async fd, naming the SRQ; DESTROY_SRQ's events_reported counts those read.
 * An XRC SRQ, so that Linux's reference device can name it by number.
 */
static void case_srq_events(void)
{
	struct xqpv_context *ctx = open_ctx();
	struct xqpv_async_event ev;
	struct xqpv_pd *pd = xqpv_alloc_pd(ctx);
	struct xqpv_cq *cq = xqpv_create_cq(ctx, 4, NULL, NULL, 0);
	int err;
	struct xqpv_xrcd *x = open_xrcd_path(ctx, NULL, 0, &err);
	struct xqpv_srq *srq = pd && cq && x ? create_xrc_srq(ctx, pd, x, cq) : NULL;
	uint32_t reported = 99;

	CHECK(srq, "pd/cq/xrcd/srq: %s", errname(errno));
	if (!srq)
		return;
	err = raise_srq_event(srq, XQPV_EVENT_SRQ_LIMIT_REACHED);
	SKIP_IF_NO_HOOK(err);
	EXPECT("raise_limit", err, 0);
	EXPECT("limit_event", get_event(ctx, &ev, 5000), 0);
	CHECK(ev.element.srq == srq, "SRQ event names %p, not %p", (void *)ev.element.srq,
	      (void *)srq);
	EXPECT_INT("limit_type", ev.event_type, XQPV_EVENT_SRQ_LIMIT_REACHED);
	xqpv_ack_async_event(&ev);
	EXPECT("raise_err", raise_srq_event(srq, XQPV_EVENT_SRQ_ERR), 0);
	EXPECT("err_event", get_event(ctx, &ev, 5000), 0);
	CHECK(ev.element.srq == srq, "SRQ_ERR names %p", (void *)ev.element.srq);
	EXPECT_INT("err_type", ev.event_type, XQPV_EVENT_SRQ_ERR);
	xqpv_ack_async_event(&ev);
	EXPECT("no_third", get_event(ctx, &ev, 300), ETIMEDOUT);

	EXPECT("raise_unread", raise_srq_event(srq, XQPV_EVENT_SRQ_ERR), 0);
	EXPECT("destroy_srq", destroy_srq_raw(ctx->cmd_fd, srq->handle, &reported), 0);
	EXPECT_INT("events_reported", reported, 2);
	fcntl(ctx->async_fd, F_SETFL, O_NONBLOCK);
	EXPECT("queue_empty", xqpv_get_async_event(ctx, &ev) ? errno : 0, EAGAIN);

	/* the library's destroy waits for the SRQ's acked events: it returns */
	srq = create_xrc_srq(ctx, pd, x, cq);
	CHECK(srq, "srq2: %s", errname(errno));
	if (srq) {
		EXPECT("raise_srq2", raise_srq_event(srq, XQPV_EVENT_SRQ_ERR), 0);
		EXPECT("srq2_event", get_event(ctx, &ev, 5000), 0);
		CHECK(ev.element.srq == srq, "SRQ2 event names %p", (void *)ev.element.srq);
		xqpv_ack_async_event(&ev);
		EXPECT("lib_destroy_srq2", xqpv_destroy_srq(srq), 0);
	}
	xqpv_close_device(ctx);
}

/* xqp: the hooks refuse handles of another type, as the QP one does. */
static void case_hook_types(void)
{
	struct xqpv_context *ctx = open_ctx();
	struct xqpv_pd *pd = xqpv_alloc_pd(ctx);
	struct xqpv_cq *cq = xqpv_create_cq(ctx, 4, NULL, NULL, 0);
	struct xqpv_srq fake_srq;
	struct xqpv_cq fake_cq;

	CHECK(pd && cq, "pd/cq: %s", errname(errno));
	if (!pd || !cq)
		return;
	memset(&fake_srq, 0, sizeof(fake_srq));
	fake_srq.context = ctx;
	fake_srq.handle = cq->handle;
	EXPECT("srq_hook_on_cq", xqpv_raise_srq_event(&fake_srq, XQPV_EVENT_SRQ_ERR) ? errno : 0,
	       EINVAL);
	memset(&fake_cq, 0, sizeof(fake_cq));
	fake_cq.context = ctx;
	fake_cq.handle = cq->handle + 1000;
	EXPECT("cq_hook_no_handle", xqpv_raise_cq_event(&fake_cq, XQPV_EVENT_CQ_ERR) ? errno : 0,
	       ENOENT);
	EXPECT("cq_hook_bad_event", xqpv_raise_cq_event(cq, (enum xqpv_event_type)99) ? errno : 0,
	       EINVAL);
	EXPECT("destroy_cq", xqpv_destroy_cq(cq), 0);
	xqpv_close_device(ctx);
}

/* xqp bounds the queue (Linux does not) and counts what it drops. */
static void case_queue_bound(void)
{
	struct xqpv_context *ctx = open_ctx();
	struct ib_uverbs_async_event_desc desc;
	int n = 0;
	struct xqpv_qp *qp = open_xrcd_tgt(ctx, NULL, 0, NULL);
	unsigned int max = 4096;
	FILE *f;

	CHECK(qp, "create");
	if (!qp)
		return;
	f = fopen("/sys/module/xqp/parameters/uverbs_async_queue_max", "r");
	if (f) {
		if (fscanf(f, "%u", &max) != 1)
			max = 4096;
		fclose(f);
	}
	for (unsigned int i = 0; i < max + 10; i++)
		if (raise_event(qp, XQPV_EVENT_COMM_EST))
			break;
	EXPECT_INT("dropped", fdinfo_value(ctx->async_fd, "xqp-dropped"), 10);
	EXPECT_INT("queued", fdinfo_value(ctx->async_fd, "xqp-queued"), max);
	fcntl(ctx->async_fd, F_SETFL, O_NONBLOCK);
	while (read(ctx->async_fd, &desc, sizeof(desc)) == sizeof(desc))
		n++;
	EXPECT_INT("read_all", n, max);
	/* the handle's counter: all of them were read (none acked by the lib) */
	xqpv_close_device(ctx);
}

const struct acc_case acc_cases_events[] = {
	{ "events_each_opener_own_copy", case_each_opener,
	  "xqp delivers events to shares from OPEN_QP; Linux drops them (no async file on those objects)",
	  0 },
	{ "events_destroy_counts", case_destroy_counts, NULL, 0 },
	{ "events_async_fd_rules", case_async_fd, NULL, 0 },
	{ "events_cq", case_cq_events, NULL, 0 },
	{ "events_srq", case_srq_events, NULL, 0 },
	{ "events_hook_types", case_hook_types, NULL, ACC_XQP_ONLY },
	{ "events_queue_bound", case_queue_bound, NULL, ACC_XQP_ONLY },
	{ NULL, NULL, NULL, 0 },
};
