// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * xqp-bench-traffic: latency, message rate and RDMA WRITE bandwidth between
 * two processes on two devices of one fabric, over RC and over XRC.
 *
 * Usage: xqp-bench-traffic [-n ITERS] [-w WINDOW] [-s SIZES] [-t TRANSPORTS]
 *                          [-m METRICS] [-d DEV] [-D DEV] [-T SECONDS] [-c CPUS]
 *   -n ITERS       timed iterations per line (10000), after ITERS/10 untimed
 *   -w WINDOW      SENDs (rate) / RDMA WRITEs (bw) outstanding (32)
 *   -s SIZES       message sizes in bytes (8,64,512,4096,16384,65536)
 *   -t TRANSPORTS  rc,xrc
 *   -m METRICS     lat,rate,bw
 *   -d DEV, -D DEV the parent's and the child's device
 *                  (/dev/xqp/uverbs0, /dev/xqp/uverbs1)
 *   -T SECONDS     the longest wait for a completion or the peer (10)
 *   -c CPU,CPU     the parent's and the child's CPU (default: the first two
 *                  this process may use; "none", or a single CPU: no pinning)
 *
 * The program forks: the parent drives, the child answers; each opens its
 * own device and, per transport, its own endpoint: a PD, one CQ, one
 * registered buffer and
 *   rc   one RC QP, receiving on its receive queue;
 *   xrc  an XRC domain, an XRC SRQ, an XRC target QP (the peer's send QP
 *        talks to it) and an XRC send QP (its SENDs carry the peer's SRQ
 *        number, its RDMA WRITEs too).
 * LIDs, QP and SRQ numbers, the rkey and the address of the area the peer
 * may write go over a socketpair, which also carries the commands. Both
 * sides busy-poll their CQ, each pinned to its own CPU. A message is one SEND WR of SIZE bytes from
 * one registered SGE, signaled, posted by its own POST_SEND and taken by a
 * receive the peer posted beforehand.
 *
 *   lat   ping-pong: the parent SENDs, the child answers each message with
 *         one of the same size; half the round trip, from the POST_SEND to
 *         the poll that returns the answer; median (mean, p99 also shown)
 *   rate  one-way SENDs, parent to child, at most WINDOW not yet returned
 *         as credits: the child reposts each receive and SENDs a cumulative
 *         count back every WINDOW/4 messages. Messages per second from the
 *         first timed post to the credit for the last message.
 *   bw    RDMA WRITEs of SIZE bytes into the child's buffer (WINDOW slots,
 *         round robin), WINDOW outstanding; 10^6 bytes per second from the
 *         first timed post to the last completion.
 *
 * Checks: every completion must be SUCCESS with the expected opcode,
 * wr_id, byte_len and QP (receives: the local QP, the sender's QP number
 * and LID). Every message carries its sequence number and the test's tag;
 * every 64th message and the last carry a full pattern that the receiver
 * verifies; after bw the child verifies the last write into each slot
 * and that nothing past SIZE was written. RNR retries are off
 * (rnr_retry 0): a SEND finding no receive fails with RNR_RETRY_EXC_ERR,
 * so the credits are checked too. No completion for -T seconds, or the
 * peer exiting, ends the run.
 *
 * Output, one line per transport, metric and size (then key=value extras):
 *   traffic <rc|xrc> lat <size> <us> us mean=<us> p99=<us> n=<n>
 *   traffic <rc|xrc> rate <size> <msg/s> msg/s MB/s=<MB/s> n=<n> window=<w>
 *   traffic <rc|xrc> bw <size> <MB/s> MB/s msg/s=<msg/s> n=<n> window=<w>
 * Exit status 0, or 1 with a message on stderr on any error, 2 on usage.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "xqpverbs.h"
#include "bench.h"

#define MAX_SIZES	16
#define MAX_SIZE	(1U << 20)
#define MAX_WINDOW	4096
#define MAX_BUF		(256UL << 20)	/* registered bytes per process */
#define SAMPLE_EVERY	64	/* a full payload check every 64th message */
#define EXTRA_RECV	8	/* receives (and send slots) beyond the window */
#define ACK_SLOTS	4	/* credit messages outstanding at once */
#define PONG_SLOTS	2
#define WC_BATCH	16

enum transport { TR_RC, TR_XRC, TR_MAX };
enum metric { M_LAT, M_RATE, M_BW, M_MAX };

static const char *const tr_name[TR_MAX] = { "rc", "xrc" };
static const char *const m_name[M_MAX] = { "lat", "rate", "bw" };

static struct {
	const char *dev[2];
	long iters, window, timeout_s;
	uint32_t sizes[MAX_SIZES];
	int nsizes;
	unsigned int transports, metrics;	/* bit masks */
	int cpu[2];		/* -1: not pinned */
	const char *cpus;
} opt = {
	.dev = { "/dev/xqp/uverbs0", "/dev/xqp/uverbs1" },
	.iters = 10000, .window = 32, .timeout_s = 10,
	.sizes = { 8, 64, 512, 4096, 16384, 65536 }, .nsizes = 6,
	.transports = 3, .metrics = 7, .cpu = { -1, -1 },
};

static const char *role = "parent";
static const char *peer_role = "child";
static char cur_test[64] = "setup";
static int ctl_fd = -1;

static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "xqp-bench-traffic: %s: %s: ", role, cur_test);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* ---- the control channel: fixed-size records over a socketpair ---------- */

enum { CMD_RUN, CMD_CHECK, CMD_END };

struct cmd {
	uint32_t op;
	uint32_t metric;
	uint32_t size;
	uint32_t total;		/* messages: warm-up + timed */
	uint32_t tag;
};

struct reply {
	uint32_t ok;
};

/* Exactly @len bytes from the peer; @ms < 0: no limit (the peer's own
 * limits bound its part, and its exit is an EOF here). */
static void ctl_read(void *buf, size_t len, int ms, const char *what)
{
	char *p = buf;

	while (len) {
		struct pollfd pfd = { .fd = ctl_fd, .events = POLLIN };
		ssize_t n;
		int r = poll(&pfd, 1, ms);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			die("poll: %s", strerror(errno));
		if (!r)
			die("%s: nothing from the %s within %d s", what, peer_role, ms / 1000);
		n = read(ctl_fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("%s: read: %s", what, strerror(errno));
		if (!n)
			die("%s: the %s process exited", what, peer_role);
		p += n;
		len -= (size_t)n;
	}
}

static void ctl_write(const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(ctl_fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("write to the %s: %s", peer_role, strerror(errno));
		p += n;
		len -= (size_t)n;
	}
}

static void ctl_reply(void)
{
	struct reply r = { .ok = 1 };

	ctl_write(&r, sizeof(r));
}

static void ctl_wait_reply(const char *what)
{
	struct reply r;

	ctl_read(&r, sizeof(r), (int)opt.timeout_s * 1000, what);
	if (r.ok != 1)
		die("%s: bad reply from the %s", what, peer_role);
}

/* While polling a CQ: the peer has not gone (its exit hangs the socket up). */
static void peer_check(void)
{
	struct pollfd pfd = { .fd = ctl_fd, .events = POLLRDHUP };

	if (poll(&pfd, 1, 0) > 0 && (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR)))
		die("the %s process exited during the run", peer_role);
}

/* ---- messages ---------------------------------------------------------------- */

struct hdr {
	uint32_t seq;
	uint32_t tag;
};

static unsigned char pat(uint32_t tag, uint32_t seq, size_t i)
{
	return (unsigned char)(tag * 29u + seq * 131u + i * 7u + (i >> 9));
}

static int sampled(uint32_t seq, uint32_t total)
{
	return seq % SAMPLE_EVERY == 0 || seq + 1 == total;
}

/* The header, and with @full the pattern of (@tag, @seq) after it. */
static void msg_fill(unsigned char *p, uint32_t size, uint32_t tag, uint32_t seq, int full)
{
	struct hdr h = { .seq = seq, .tag = tag };

	memcpy(p, &h, sizeof(h));
	for (size_t i = sizeof(h); full && i < size; i++)
		p[i] = pat(tag, seq, i);
}

static void msg_check(const unsigned char *p, uint32_t size, uint32_t tag, uint32_t seq,
		      int full, const char *what)
{
	struct hdr h;

	memcpy(&h, p, sizeof(h));
	if (h.seq != seq || h.tag != tag)
		die("%s %u: carries message %u of tag %#x, expected tag %#x", what, seq, h.seq,
		    h.tag, tag);
	for (size_t i = sizeof(h); full && i < size; i++)
		if (p[i] != pat(tag, seq, i))
			die("%s %u: byte %zu is %#x, expected %#x", what, seq, i, p[i],
			    pat(tag, seq, i));
}

/* ---- an endpoint --------------------------------------------------------------- */

/* What one side tells the other. */
struct peer {
	uint64_t addr;		/* the area it lets the peer write (window slots) */
	uint64_t slot;		/* bytes per slot */
	uint32_t rkey;
	uint32_t send_qpn;	/* where its messages come from */
	uint32_t recv_qpn;	/* where the peer's go: its RC / XRC target QP */
	uint32_t srqn;		/* XRC: its SRQ */
	uint32_t lid;
};

struct ep {
	enum transport tr;
	struct xqpv_context *ctx;
	struct xqpv_pd *pd;
	struct xqpv_cq *cq;
	struct xqpv_mr *mr;
	struct xqpv_xrcd *xrcd;
	struct xqpv_srq *srq;
	struct xqpv_qp *sqp;	/* sends: the RC QP or the XRC send QP */
	struct xqpv_qp *tgt;	/* XRC: the target QP */
	uint32_t rqpn;		/* the QP that receives complete on */
	uint32_t nrecv;		/* receive slots, all posted */
	uint32_t window;
	uint16_t lid;
	unsigned char *buf;	/* nrecv receive, window + EXTRA_RECV send, window write slots */
	size_t slot, len;
	struct peer peer;
	struct xqpv_wc wc[WC_BATCH];
	int nwc, iwc;
};

static unsigned char *recv_slot(struct ep *e, uint64_t k)
{
	return e->buf + e->slot * k;
}

static unsigned char *send_slot(struct ep *e, uint32_t k)
{
	return e->buf + e->slot * (e->nrecv + k);
}

static unsigned char *write_slot(struct ep *e, uint32_t k)
{
	return e->buf + e->slot * (e->nrecv + e->window + EXTRA_RECV + k);
}

static void repost(struct ep *e, uint64_t k)
{
	struct xqpv_sge sge = { (uintptr_t)recv_slot(e, k), (uint32_t)e->slot, e->mr->lkey };
	struct xqpv_recv_wr wr = { .wr_id = k, .sg_list = &sge, .num_sge = 1 }, *bad;
	int err = e->srq ? xqpv_post_srq_recv(e->srq, &wr, &bad) :
			   xqpv_post_recv(e->sqp, &wr, &bad);

	if (err)
		die("post receive %llu: %s", (unsigned long long)k, strerror(err));
}

static void ep_open(struct ep *e, enum transport tr, const char *dev, uint32_t max_size)
{
	struct xqpv_qp_init_attr_ex qa = { .comp_mask = XQPV_QP_INIT_ATTR_PD };
	struct xqpv_port_attr pa;

	memset(e, 0, sizeof(*e));
	e->tr = tr;
	e->window = (uint32_t)opt.window;
	e->nrecv = e->window + EXTRA_RECV;
	e->slot = ((size_t)max_size + 63) & ~(size_t)63;
	e->len = e->slot * (e->nrecv + 2 * e->window + EXTRA_RECV);
	e->ctx = xqpv_open_device_path(dev);
	if (!e->ctx)
		die("open %s: %s", dev, strerror(errno));
	if (xqpv_query_port(e->ctx, 1, &pa))
		die("query port 1 of %s: %s", dev, strerror(errno));
	e->lid = pa.lid;
	e->pd = xqpv_alloc_pd(e->ctx);
	if (!e->pd)
		die("alloc PD: %s", strerror(errno));
	e->cq = xqpv_create_cq(e->ctx, (int)(2 * e->nrecv + 2 * e->window + 16), NULL, NULL, 0);
	if (!e->cq)
		die("create CQ: %s", strerror(errno));
	if (posix_memalign((void **)&e->buf, 4096, e->len))
		die("out of memory (%zu bytes)", e->len);
	memset(e->buf, 0, e->len);
	e->mr = xqpv_reg_mr(e->pd, e->buf, e->len, XQPV_ACCESS_LOCAL_WRITE | XQPV_ACCESS_REMOTE_WRITE);
	if (!e->mr)
		die("register %zu bytes: %s", e->len, strerror(errno));

	qa.pd = e->pd;
	qa.send_cq = qa.recv_cq = e->cq;
	qa.cap.max_send_wr = e->window + EXTRA_RECV;
	qa.cap.max_send_sge = 1;
	if (tr == TR_RC) {
		qa.qp_type = XQPV_QPT_RC;
		qa.cap.max_recv_wr = e->nrecv;
		qa.cap.max_recv_sge = 1;
		e->sqp = xqpv_create_qp_ex(e->ctx, &qa);
		if (!e->sqp)
			die("create RC QP: %s", strerror(errno));
		e->rqpn = e->sqp->qp_num;
	} else {
		struct xqpv_xrcd_init_attr xa = {
			.comp_mask = XQPV_XRCD_INIT_ATTR_FD | XQPV_XRCD_INIT_ATTR_OFLAGS, .fd = -1,
		};
		struct xqpv_srq_init_attr_ex sa = {
			.attr = { .max_wr = e->nrecv, .max_sge = 1 },
			.comp_mask = XQPV_SRQ_INIT_ATTR_TYPE | XQPV_SRQ_INIT_ATTR_PD |
				     XQPV_SRQ_INIT_ATTR_XRCD | XQPV_SRQ_INIT_ATTR_CQ,
			.srq_type = XQPV_SRQT_XRC, .pd = e->pd, .cq = e->cq,
		};
		struct xqpv_qp_init_attr_ex ta = {
			.qp_type = XQPV_QPT_XRC_RECV, .comp_mask = XQPV_QP_INIT_ATTR_XRCD,
		};

		e->xrcd = xqpv_open_xrcd(e->ctx, &xa);
		if (!e->xrcd)
			die("open XRC domain: %s", strerror(errno));
		sa.xrcd = ta.xrcd = e->xrcd;
		e->srq = xqpv_create_srq_ex(e->ctx, &sa);
		if (!e->srq)
			die("create XRC SRQ: %s", strerror(errno));
		e->tgt = xqpv_create_qp_ex(e->ctx, &ta);
		if (!e->tgt)
			die("create XRC target QP: %s", strerror(errno));
		qa.qp_type = XQPV_QPT_XRC_SEND;
		e->sqp = xqpv_create_qp_ex(e->ctx, &qa);
		if (!e->sqp)
			die("create XRC send QP: %s", strerror(errno));
		e->rqpn = e->tgt->qp_num;
	}
}

static struct peer ep_info(struct ep *e)
{
	struct peer p = {
		.addr = e->mr->iova + (uint64_t)(write_slot(e, 0) - e->buf),
		.slot = e->slot,
		.rkey = e->mr->rkey,
		.send_qpn = e->sqp->qp_num,
		.recv_qpn = e->rqpn,
		.srqn = e->srq ? e->srq->srq_num : 0,
		.lid = e->lid,
	};

	return p;
}

/* RESET -> INIT -> RTR (-> RTS) towards @dlid/@dqpn. */
static void qp_up(struct xqpv_qp *qp, uint16_t dlid, uint32_t dqpn, int rts)
{
	struct xqpv_qp_attr a = {
		.qp_state = XQPV_QPS_INIT, .port_num = 1,
		.qp_access_flags = XQPV_ACCESS_REMOTE_WRITE,
	};
	int mask = XQPV_QP_STATE | XQPV_QP_PKEY_INDEX | XQPV_QP_PORT | XQPV_QP_ACCESS_FLAGS;
	int err = xqpv_modify_qp(qp, &a, mask);

	if (err)
		die("QP %#x to INIT: %s", qp->qp_num, strerror(err));
	memset(&a, 0, sizeof(a));
	a.qp_state = XQPV_QPS_RTR;
	a.path_mtu = XQPV_MTU_4096;
	a.dest_qp_num = dqpn;
	a.ah_attr.dlid = dlid;
	a.ah_attr.port_num = 1;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 1;
	mask = XQPV_QP_STATE | XQPV_QP_AV | XQPV_QP_PATH_MTU | XQPV_QP_DEST_QPN | XQPV_QP_RQ_PSN;
	if (qp->qp_type != XQPV_QPT_XRC_SEND)
		mask |= XQPV_QP_MAX_DEST_RD_ATOMIC | XQPV_QP_MIN_RNR_TIMER;
	err = xqpv_modify_qp(qp, &a, mask);
	if (err)
		die("QP %#x to RTR: %s", qp->qp_num, strerror(err));
	if (!rts)
		return;
	memset(&a, 0, sizeof(a));
	a.qp_state = XQPV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 0;	/* an RNR NAK fails the SEND: the credits must prevent it */
	a.max_rd_atomic = 1;
	err = xqpv_modify_qp(qp, &a, XQPV_QP_STATE | XQPV_QP_SQ_PSN | XQPV_QP_TIMEOUT |
			    XQPV_QP_RETRY_CNT | XQPV_QP_RNR_RETRY | XQPV_QP_MAX_QP_RD_ATOMIC);
	if (err)
		die("QP %#x to RTS: %s", qp->qp_num, strerror(err));
}

static void ep_connect(struct ep *e)
{
	struct peer *p = &e->peer;

	if (p->slot != e->slot)
		die("the %s's slots are %llu bytes, mine %zu", peer_role,
		    (unsigned long long)p->slot, e->slot);
	if (e->tgt)
		qp_up(e->tgt, (uint16_t)p->lid, p->send_qpn, 0);
	qp_up(e->sqp, (uint16_t)p->lid, p->recv_qpn, 1);
	/* an RQ takes receives from INIT on: now, before the peer may send */
	for (uint32_t k = 0; k < e->nrecv; k++)
		repost(e, k);
}

static void check(int err, const char *what)
{
	if (err)
		die("%s: %s", what, strerror(err));
}

static void ep_close(struct ep *e)
{
	check(xqpv_destroy_qp(e->sqp), "destroy send QP");
	if (e->tgt)
		check(xqpv_destroy_qp(e->tgt), "destroy XRC target QP");
	if (e->srq)
		check(xqpv_destroy_srq(e->srq), "destroy XRC SRQ");
	if (e->xrcd)
		check(xqpv_close_xrcd(e->xrcd), "close XRC domain");
	check(xqpv_dereg_mr(e->mr), "deregister MR");
	check(xqpv_destroy_cq(e->cq), "destroy CQ");
	check(xqpv_dealloc_pd(e->pd), "dealloc PD");
	check(xqpv_close_device(e->ctx), "close device");
	free(e->buf);
}

/* ---- the data path ------------------------------------------------------------- */

/* One signaled SEND or RDMA WRITE (@raddr: the peer's address) of @len bytes at @at. */
static void post(struct ep *e, enum xqpv_wr_opcode op, unsigned char *at, uint32_t len,
		 uint64_t wr_id, uint64_t raddr)
{
	struct xqpv_sge sge = { (uintptr_t)at, len, e->mr->lkey };
	struct xqpv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = XQPV_SEND_SIGNALED,
	}, *bad;
	int err;

	if (op == XQPV_WR_RDMA_WRITE) {
		wr.wr.rdma.remote_addr = raddr;
		wr.wr.rdma.rkey = e->peer.rkey;
	}
	if (e->tr == TR_XRC)
		wr.qp_type.xrc.remote_srqn = e->peer.srqn;
	err = xqpv_post_send(e->sqp, &wr, &bad);
	if (err)
		die("post %s %llu: %s", op == XQPV_WR_SEND ? "SEND" : "RDMA WRITE",
		    (unsigned long long)wr_id, strerror(err));
}

/* The next completion, busy polling; any status but SUCCESS ends the run. */
static void ep_wc(struct ep *e, struct xqpv_wc *wc)
{
	uint64_t deadline = 0;
	unsigned int spins = 0;

	while (e->iwc == e->nwc) {
		int n = xqpv_poll_cq(e->cq, WC_BATCH, e->wc);

		if (n < 0)
			die("poll CQ: %s", strerror(-n));
		e->nwc = n;
		e->iwc = 0;
		if (n || ++spins % 1024)
			continue;
		peer_check();
		if (!deadline)
			deadline = now_ns() + (uint64_t)opt.timeout_s * 1000000000u;
		else if (now_ns() > deadline)
			die("no completion within %ld s", opt.timeout_s);
	}
	*wc = e->wc[e->iwc++];
	if (wc->status != XQPV_WC_SUCCESS)
		die("completion of wr_id %llu (QP %#x, opcode %d): %s (status %d)",
		    (unsigned long long)wc->wr_id, wc->qp_num, (int)wc->opcode,
		    xqpv_wc_status_str(wc->status), (int)wc->status);
}

static void check_send(struct ep *e, const struct xqpv_wc *wc, enum xqpv_wc_opcode op,
		       uint64_t wr_id, uint32_t len)
{
	if (wc->opcode & XQPV_WC_RECV)
		die("a receive (wr_id %llu, %u bytes) while expecting send completion %llu",
		    (unsigned long long)wc->wr_id, wc->byte_len, (unsigned long long)wr_id);
	if (wc->opcode != op || wc->wr_id != wr_id || wc->byte_len != len ||
	    wc->qp_num != e->sqp->qp_num)
		die("send completion: opcode %d, wr_id %llu, %u bytes, QP %#x; expected %d, %llu, %u, %#x",
		    (int)wc->opcode, (unsigned long long)wc->wr_id, wc->byte_len, wc->qp_num,
		    (int)op, (unsigned long long)wr_id, len, e->sqp->qp_num);
}

static void take_send(struct ep *e, enum xqpv_wc_opcode op, uint64_t wr_id, uint32_t len)
{
	struct xqpv_wc wc;

	ep_wc(e, &wc);
	check_send(e, &wc, op, wr_id, len);
}

/* A receive of @len bytes from the peer's send QP into mine: its buffer. */
static unsigned char *check_recv(struct ep *e, const struct xqpv_wc *wc, uint32_t len)
{
	if (wc->opcode != XQPV_WC_RECV || wc->wr_id >= e->nrecv || wc->byte_len != len ||
	    wc->qp_num != e->rqpn || wc->src_qp != e->peer.send_qpn || wc->slid != e->peer.lid)
		die("receive completion: opcode %d, wr_id %llu, %u bytes, QP %#x from QP %#x LID %u; "
		    "expected %d, < %u, %u, %#x from %#x LID %u",
		    (int)wc->opcode, (unsigned long long)wc->wr_id, wc->byte_len, wc->qp_num,
		    wc->src_qp, wc->slid, (int)XQPV_WC_RECV, e->nrecv, len, e->rqpn,
		    e->peer.send_qpn, e->peer.lid);
	return recv_slot(e, wc->wr_id);
}

/* ---- the metrics ----------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* lat, the parent: ping @total times; half round trips of the timed ones. */
static void lat_ping(struct ep *e, const struct cmd *c, uint32_t warm)
{
	uint32_t n = c->total - warm;
	uint64_t *rtt = malloc(n * sizeof(*rtt)), sum = 0;
	unsigned char *out = send_slot(e, 0);

	if (!rtt)
		die("out of memory");
	for (uint32_t it = 0; it < c->total; it++) {
		int full = sampled(it, c->total), sent = 0;
		struct xqpv_wc wc;
		uint64_t t0, t1;

		msg_fill(out, c->size, c->tag, it, full);
		t0 = now_ns();
		post(e, XQPV_WR_SEND, out, c->size, it, 0);
		for (;;) {
			ep_wc(e, &wc);
			if (wc.opcode & XQPV_WC_RECV)
				break;
			check_send(e, &wc, XQPV_WC_SEND, it, c->size);
			sent = 1;
		}
		t1 = now_ns();
		msg_check(check_recv(e, &wc, c->size), c->size, c->tag ^ 1, it, full, "answer");
		repost(e, wc.wr_id);
		if (!sent)
			take_send(e, XQPV_WC_SEND, it, c->size);
		if (it >= warm) {
			rtt[it - warm] = t1 - t0;
			sum += t1 - t0;
		}
	}
	qsort(rtt, n, sizeof(*rtt), cmp_u64);
	printf("traffic %s lat %u %.2f us mean=%.2f p99=%.2f n=%u\n", tr_name[e->tr], c->size,
	       (n % 2 ? rtt[n / 2] : (rtt[n / 2 - 1] + rtt[n / 2]) / 2) / 2e3,
	       (double)sum / n / 2e3, rtt[(uint64_t)n * 99 / 100] / 2e3, n);
	free(rtt);
}

/* lat, the child: answer each message with one of the same size. */
static void lat_pong(struct ep *e, const struct cmd *c)
{
	uint32_t done = 0;

	for (uint32_t it = 0; it < c->total; it++) {
		unsigned char *out = send_slot(e, it % PONG_SLOTS);
		int full = sampled(it, c->total);
		struct xqpv_wc wc;

		while (done + PONG_SLOTS <= it)
			take_send(e, XQPV_WC_SEND, done++, c->size);
		msg_fill(out, c->size, c->tag ^ 1, it, full);
		for (;;) {
			ep_wc(e, &wc);
			if (wc.opcode & XQPV_WC_RECV)
				break;
			check_send(e, &wc, XQPV_WC_SEND, done++, c->size);
		}
		check_recv(e, &wc, c->size);
		post(e, XQPV_WR_SEND, out, c->size, it, 0);
		msg_check(recv_slot(e, wc.wr_id), c->size, c->tag, it, full, "message");
		repost(e, wc.wr_id);
	}
	while (done < c->total)
		take_send(e, XQPV_WC_SEND, done++, c->size);
}

/* rate, the parent: SENDs within the credits the child returns. */
static void rate_send(struct ep *e, const struct cmd *c, uint32_t warm)
{
	uint32_t w = e->window, seq = 0, sdone = 0, acked = 0;
	uint64_t t0 = 0, t;
	double rate;

	while (acked < c->total || sdone < c->total) {
		struct xqpv_wc wc;
		struct hdr h;

		while (seq < c->total && seq - acked < w && seq - sdone < w) {
			unsigned char *out = send_slot(e, seq % w);

			msg_fill(out, c->size, c->tag, seq, sampled(seq, c->total));
			if (seq == warm)
				t0 = now_ns();
			post(e, XQPV_WR_SEND, out, c->size, seq, 0);
			seq++;
		}
		ep_wc(e, &wc);
		if (!(wc.opcode & XQPV_WC_RECV)) {
			check_send(e, &wc, XQPV_WC_SEND, sdone++, c->size);
			continue;
		}
		memcpy(&h, check_recv(e, &wc, sizeof(h)), sizeof(h));
		if (h.tag != (c->tag ^ 1) || h.seq <= acked || h.seq > seq)
			die("credit for %u messages of tag %#x: %u acknowledged, %u sent, tag %#x",
			    h.seq, h.tag, acked, seq, c->tag ^ 1);
		acked = h.seq;
		repost(e, wc.wr_id);
	}
	t = now_ns() - t0;
	rate = (double)(c->total - warm) * 1e9 / (double)t;
	printf("traffic %s rate %u %.0f msg/s MB/s=%.2f n=%u window=%u\n", tr_name[e->tr],
	       c->size, rate, rate * c->size / 1e6, c->total - warm, w);
}

/* rate, the child: receive, repost, return credits every window/4. */
static void rate_recv(struct ep *e, const struct cmd *c)
{
	uint32_t every = e->window / 4 ? e->window / 4 : 1;
	uint32_t got = 0, credited = 0, asent = 0, adone = 0;

	while (got < c->total || credited < c->total || adone < asent) {
		struct xqpv_wc wc;

		if (credited < got && (got - credited >= every || got == c->total) &&
		    asent - adone < ACK_SLOTS) {
			unsigned char *out = send_slot(e, asent % ACK_SLOTS);

			msg_fill(out, sizeof(struct hdr), c->tag ^ 1, got, 0);
			post(e, XQPV_WR_SEND, out, sizeof(struct hdr), asent++, 0);
			credited = got;
			continue;
		}
		ep_wc(e, &wc);
		if (!(wc.opcode & XQPV_WC_RECV)) {
			check_send(e, &wc, XQPV_WC_SEND, adone++, sizeof(struct hdr));
			continue;
		}
		if (got == c->total)
			die("a message beyond the %u sent", c->total);
		msg_check(check_recv(e, &wc, c->size), c->size, c->tag, got,
			  sampled(got, c->total), "message");
		repost(e, wc.wr_id);
		got++;
	}
}

/* bw, the parent: RDMA WRITEs into the child's slots, round robin. */
static void bw_write(struct ep *e, const struct cmd *c, uint32_t warm)
{
	uint32_t w = e->window, seq = 0, done = 0;
	uint64_t t0 = 0, t;
	double bw;

	while (done < c->total) {
		while (seq < c->total && seq - done < w) {
			unsigned char *out = send_slot(e, seq % w);

			/* the last write into each slot is checked by the child */
			msg_fill(out, c->size, c->tag, seq, seq + w >= c->total);
			if (seq == warm)
				t0 = now_ns();
			post(e, XQPV_WR_RDMA_WRITE, out, c->size, seq,
			     e->peer.addr + (seq % w) * e->peer.slot);
			seq++;
		}
		take_send(e, XQPV_WC_RDMA_WRITE, done++, c->size);
	}
	t = now_ns() - t0;
	bw = (double)(c->total - warm) * c->size * 1e3 / (double)t;
	printf("traffic %s bw %u %.2f MB/s msg/s=%.0f n=%u window=%u\n", tr_name[e->tr],
	       c->size, bw, bw * 1e6 / c->size, c->total - warm, w);
}

/* bw, the child: each slot holds its last write, and nothing past it. */
static void bw_check(struct ep *e, const struct cmd *c)
{
	for (uint32_t k = 0; k < e->window; k++) {
		unsigned char *p = write_slot(e, k);
		size_t from = 0;

		if (k < c->total) {
			uint32_t seq = k + (c->total - 1 - k) / e->window * e->window;

			msg_check(p, c->size, c->tag, seq, 1, "write");
			from = c->size;
		}
		for (size_t i = from; i < e->slot; i++)
			if (p[i])
				die("slot %u: byte %zu is %#x, not written (%u-byte writes)", k, i,
				    p[i], c->size);
	}
}

/* ---- the two processes ---------------------------------------------------------------- */

static void set_test(enum transport tr, const char *m, uint32_t size)
{
	snprintf(cur_test, sizeof(cur_test), "%s %s %u", tr_name[tr], m, size);
}

static void parent_run(struct ep *e)
{
	uint32_t warm = (uint32_t)(opt.iters / 10);

	for (int m = 0; m < M_MAX; m++) {
		if (!(opt.metrics & (1u << m)))
			continue;
		for (int s = 0; s < opt.nsizes; s++) {
			struct cmd c = {
				.op = CMD_RUN, .metric = (uint32_t)m, .size = opt.sizes[s],
				.total = (uint32_t)opt.iters + warm,
				.tag = (uint32_t)e->tr << 24 | (uint32_t)m << 16 |
				       (uint32_t)s << 8 | 0x10,
			};

			set_test(e->tr, m_name[m], c.size);
			ctl_write(&c, sizeof(c));
			ctl_wait_reply("waiting for the child to be ready");
			if (m == M_LAT)
				lat_ping(e, &c, warm);
			else if (m == M_RATE)
				rate_send(e, &c, warm);
			else
				bw_write(e, &c, warm);
			if (m == M_BW) {
				c.op = CMD_CHECK;
				ctl_write(&c, sizeof(c));
			}
			ctl_wait_reply("waiting for the child's checks");
		}
	}
	{
		struct cmd c = { .op = CMD_END };

		ctl_write(&c, sizeof(c));
	}
}

static void child_run(struct ep *e)
{
	for (;;) {
		struct cmd c;

		strcpy(cur_test, "idle");
		ctl_read(&c, sizeof(c), -1, "waiting for a command");
		if (c.op == CMD_END)
			return;
		if (c.op != CMD_RUN || c.metric >= M_MAX || c.size < sizeof(struct hdr) ||
		    c.size > e->slot)
			die("bad command %u", c.op);
		set_test(e->tr, m_name[c.metric], c.size);
		if (c.metric == M_BW)
			memset(write_slot(e, 0), 0, e->slot * e->window);
		ctl_reply();
		if (c.metric == M_LAT) {
			lat_pong(e, &c);
		} else if (c.metric == M_RATE) {
			rate_recv(e, &c);
		} else {
			struct cmd d;

			ctl_read(&d, sizeof(d), -1, "waiting for the writes");
			if (d.op != CMD_CHECK)
				die("bad command %u", d.op);
			bw_check(e, &c);
		}
		ctl_reply();
	}
}

static void run(const char *dev, int parent)
{
	uint32_t max_size = 0;

	for (int s = 0; s < opt.nsizes; s++)
		if (opt.sizes[s] > max_size)
			max_size = opt.sizes[s];
	for (int tr = 0; tr < TR_MAX; tr++) {
		struct peer mine;
		struct ep e;

		if (!(opt.transports & (1u << tr)))
			continue;
		snprintf(cur_test, sizeof(cur_test), "%s setup", tr_name[tr]);
		ep_open(&e, (enum transport)tr, dev, max_size);
		mine = ep_info(&e);
		ctl_write(&mine, sizeof(mine));
		ctl_read(&e.peer, sizeof(e.peer), (int)opt.timeout_s * 1000,
			 "waiting for the connection data");
		ep_connect(&e);
		if (parent) {
			ctl_wait_reply("waiting for the child to connect");
			printf("# %s: parent %s LID %u QP %#x, child %s LID %u QP %#x%s\n",
			       tr_name[tr], opt.dev[0], e.lid, e.sqp->qp_num, opt.dev[1],
			       e.peer.lid, e.peer.recv_qpn, tr == TR_XRC ? " (target)" : "");
			parent_run(&e);
		} else {
			ctl_reply();
			child_run(&e);
		}
		snprintf(cur_test, sizeof(cur_test), "%s teardown", tr_name[tr]);
		ep_close(&e);
	}
}

/* -c: the CPUs to pin the two processes to, or none. */
static void pick_cpus(void)
{
	cpu_set_t set;
	int n = 0;

	if (opt.cpus) {
		if (!strcmp(opt.cpus, "none"))
			return;
		if (sscanf(opt.cpus, "%d,%d", &opt.cpu[0], &opt.cpu[1]) != 2 ||
		    opt.cpu[0] < 0 || opt.cpu[1] < 0 || opt.cpu[0] >= CPU_SETSIZE ||
		    opt.cpu[1] >= CPU_SETSIZE) {
			fprintf(stderr, "xqp-bench-traffic: -c wants CPU,CPU or none\n");
			exit(2);
		}
		return;
	}
	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (int i = 0; i < CPU_SETSIZE && n < 2; i++)
		if (CPU_ISSET(i, &set))
			opt.cpu[n++] = i;
	if (n < 2)
		opt.cpu[0] = opt.cpu[1] = -1;
}

static void pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("pin to CPU %d: %s", cpu, strerror(errno));
}

/* ---- options ---------------------------------------------------------------------------- */

static void __attribute__((noreturn)) usage(void)
{
	fprintf(stderr,
		"usage: xqp-bench-traffic [-n ITERS] [-w WINDOW] [-s SIZES] [-t rc,xrc]\n"
		"                         [-m lat,rate,bw] [-d DEV] [-D DEV] [-T SECONDS]\n"
		"                         [-c CPU,CPU|none]\n"
		"  prints: traffic <transport> <metric> <size> <value> <unit> [key=value...]\n");
	exit(2);
}

static long num_arg(const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "xqp-bench-traffic: '%s' is not a number in %ld..%ld\n", s, min, max);
		exit(2);
	}
	return v;
}

/* A comma-separated list of names from @names: a bit mask. */
static unsigned int names_arg(char *s, const char *const *names, int n)
{
	unsigned int mask = 0;

	for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
		int i;

		for (i = 0; i < n && strcmp(tok, names[i]); i++)
			;
		if (i == n) {
			fprintf(stderr, "xqp-bench-traffic: unknown name '%s'\n", tok);
			exit(2);
		}
		mask |= 1u << i;
	}
	if (!mask)
		usage();
	return mask;
}

static void sizes_arg(char *s)
{
	opt.nsizes = 0;
	for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
		if (opt.nsizes == MAX_SIZES)
			usage();
		opt.sizes[opt.nsizes++] = (uint32_t)num_arg(tok, sizeof(struct hdr), MAX_SIZE);
	}
	if (!opt.nsizes)
		usage();
}

int main(int argc, char **argv)
{
	int sv[2], c, st;
	uint32_t max_size = 0;
	pid_t pid, me = getpid();

	while ((c = getopt(argc, argv, "n:w:s:t:m:d:D:T:c:h")) != -1) {
		switch (c) {
		case 'n': opt.iters = num_arg(optarg, 1, 100000000); break;
		case 'w': opt.window = num_arg(optarg, 1, MAX_WINDOW); break;
		case 's': sizes_arg(optarg); break;
		case 't': opt.transports = names_arg(optarg, tr_name, TR_MAX); break;
		case 'm': opt.metrics = names_arg(optarg, m_name, M_MAX); break;
		case 'd': opt.dev[0] = optarg; break;
		case 'D': opt.dev[1] = optarg; break;
		case 'T': opt.timeout_s = num_arg(optarg, 1, 3600); break;
		case 'c': opt.cpus = optarg; break;
		default: usage();
		}
	}
	if (optind != argc)
		usage();
	for (int s = 0; s < opt.nsizes; s++)
		if (opt.sizes[s] > max_size)
			max_size = opt.sizes[s];
	if ((size_t)max_size * (size_t)(3 * opt.window + 2 * EXTRA_RECV) > MAX_BUF) {
		fprintf(stderr, "xqp-bench-traffic: window x largest size needs more than %lu MiB\n",
			MAX_BUF >> 20);
		exit(2);
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		die("socketpair: %s", strerror(errno));
	pick_cpus();
	if (opt.cpu[0] >= 0)
		printf("# xqp-bench-traffic: n=%ld warm-up=%ld window=%ld, busy polling, CPUs %d and %d\n",
		       opt.iters, opt.iters / 10, opt.window, opt.cpu[0], opt.cpu[1]);
	else
		printf("# xqp-bench-traffic: n=%ld warm-up=%ld window=%ld, busy polling, not pinned\n",
		       opt.iters, opt.iters / 10, opt.window);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		role = "child";
		peer_role = "parent";
		/* a parent that dies takes the child along (and has said why) */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != me)
			_exit(1);
		close(sv[0]);
		ctl_fd = sv[1];
		pin(opt.cpu[1]);
		run(opt.dev[1], 0);
		exit(0);
	}
	close(sv[1]);
	ctl_fd = sv[0];
	pin(opt.cpu[0]);
	run(opt.dev[0], 1);
	close(ctl_fd);
	strcpy(cur_test, "exit");
	if (waitpid(pid, &st, 0) != pid)
		die("waitpid: %s", strerror(errno));
	if (!WIFEXITED(st) || WEXITSTATUS(st))
		die("the child process failed (status %#x)", st);
	return 0;
}
