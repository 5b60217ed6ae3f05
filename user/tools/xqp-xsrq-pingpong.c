// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * xqp-xsrq-pingpong: the ibv_xsrq_pingpong pattern over libxqpverbs. XRC
 * traffic through shared receive queues, with connection data exchanged
 * over loopback TCP.
 *
 *   server:  xqp-xsrq-pingpong -d /dev/xqp/uverbs0 -f FILE [-c CLIENTS] [opts]
 *   client:  xqp-xsrq-pingpong -d /dev/xqp/uverbs1 [opts] 127.0.0.1
 *   opener:  xqp-xsrq-pingpong -d /dev/xqp/uverbs0 -f FILE -o QPN [opts] 127.0.0.1
 *
 * The server opens the XRC domain of FILE (so that other processes can
 * join it), creates one XRC SRQ and one XRC target QP per client (numbers
 * printed) and, for the replies, one XRC send QP per client. A client has
 * an XRC send QP towards the server's target QP (addressing the server's
 * SRQ) and a target QP + SRQ of its own for the replies. Each side checks
 * every message it receives (an iteration counter and a pattern derived
 * from it) and the client prints the round trips' latency and throughput.
 *
 * The opener (-o) opens the server's target QP QPN by number in the same
 * XRC domain (OPEN_QP), creates an XRC SRQ of its own and registers it
 * with the server; the client whose target QP that is sends, after every
 * round trip, one more message to the opener's SRQ through the shared QP.
 * Start the opener before that client. The opener prints what it got.
 *
 * Options: -p PORT (18515), -s SIZE (4096), -n ITERS (1000), -r RX_DEPTH
 * (16), -e (wait for completion events instead of busy polling), -t SECONDS
 * (10: the limit for connecting and for any completion; a dead peer ends
 * the run with an error instead of a hang).
 *
 * Between machines (linked devices, RoCE v2): -R GID, the other machine's
 * device's GID (an IPv6 address, ::ffff:a.b.c.d for IPv4), -x INDEX this
 * device's GID index to send from, -m MTU the path MTU (256..4096, 1024 on
 * a 1500-byte Ethernet). Every QP then addresses the peer by GID, and the
 * server listens on every address, the client connecting to any.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "xqpverbs.h"

#define MAX_CLIENTS 16

static struct {
	const char *dev, *file, *host;
	int port, size, iters, rx_depth, events, timeout_s, clients;
	uint32_t open_qpn;
	int global, sgid_index, mtu;	/* -R, -x, -m */
	uint8_t rgid[16];
} opt = { .dev = "/dev/xqp/uverbs0", .port = 18515, .size = 4096, .iters = 1000,
	  .rx_depth = 16, .timeout_s = 10, .clients = 1, .mtu = XQPV_MTU_4096 };

static const char *prog = "xqp-xsrq-pingpong";

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/* ---- the verbs side ------------------------------------------------------ */

struct dev {
	struct xqpv_context *ctx;
	struct xqpv_comp_channel *ch;
	struct xqpv_pd *pd;
	struct xqpv_cq *cq;
	struct xqpv_xrcd *xrcd;
	struct xqpv_mr *mr;
	unsigned char *buf;
	size_t buf_len;
	uint16_t lid;
};

static void dev_open(struct dev *d, size_t buf_len, int cqe)
{
	struct xqpv_xrcd_init_attr xa = {
		.comp_mask = XQPV_XRCD_INIT_ATTR_FD | XQPV_XRCD_INIT_ATTR_OFLAGS, .fd = -1,
	};
	struct xqpv_port_attr pa;

	memset(d, 0, sizeof(*d));
	d->ctx = xqpv_open_device_path(opt.dev);
	if (!d->ctx)
		die("open %s: %s", opt.dev, strerror(errno));
	if (xqpv_query_port(d->ctx, 1, &pa))
		die("query port: %s", strerror(errno));
	d->lid = pa.lid;
	if (opt.file) {
		xa.fd = open(opt.file, O_RDONLY | O_CREAT, 0600);
		if (xa.fd < 0)
			die("open %s: %s", opt.file, strerror(errno));
		xa.oflags = O_CREAT;
	}
	d->xrcd = xqpv_open_xrcd(d->ctx, &xa);
	if (!d->xrcd)
		die("open XRC domain: %s", strerror(errno));
	if (xa.fd >= 0)
		close(xa.fd);
	d->pd = xqpv_alloc_pd(d->ctx);
	if (!d->pd)
		die("alloc PD: %s", strerror(errno));
	if (opt.events) {
		d->ch = xqpv_create_comp_channel(d->ctx);
		if (!d->ch)
			die("create completion channel: %s", strerror(errno));
	}
	d->cq = xqpv_create_cq(d->ctx, cqe, NULL, d->ch, 0);
	if (!d->cq)
		die("create CQ: %s", strerror(errno));
	if (opt.events && xqpv_req_notify_cq(d->cq, 0))
		die("arm CQ: %s", strerror(errno));
	if (posix_memalign((void **)&d->buf, 4096, buf_len))
		die("out of memory");
	memset(d->buf, 0, buf_len);
	d->buf_len = buf_len;
	d->mr = xqpv_reg_mr(d->pd, d->buf, buf_len, XQPV_ACCESS_LOCAL_WRITE);
	if (!d->mr)
		die("register %zu bytes: %s", buf_len, strerror(errno));
}

static struct xqpv_srq *make_srq(struct dev *d)
{
	struct xqpv_srq_init_attr_ex a = {
		.attr = { .max_wr = (uint32_t)opt.rx_depth, .max_sge = 1 },
		.comp_mask = XQPV_SRQ_INIT_ATTR_TYPE | XQPV_SRQ_INIT_ATTR_PD |
			     XQPV_SRQ_INIT_ATTR_XRCD | XQPV_SRQ_INIT_ATTR_CQ,
		.srq_type = XQPV_SRQT_XRC, .pd = d->pd, .xrcd = d->xrcd, .cq = d->cq,
	};
	struct xqpv_srq *s = xqpv_create_srq_ex(d->ctx, &a);

	if (!s)
		die("create XRC SRQ: %s", strerror(errno));
	return s;
}

static void post_srq(struct dev *d, struct xqpv_srq *srq, uint64_t wr_id, unsigned char *at)
{
	struct xqpv_sge sge = { (uintptr_t)at, (uint32_t)opt.size, d->mr->lkey };
	struct xqpv_recv_wr w = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1 }, *bad;

	if (xqpv_post_srq_recv(srq, &w, &bad))
		die("post SRQ receive: %s", strerror(errno));
}

static struct xqpv_qp *make_tgt(struct dev *d)
{
	struct xqpv_qp_init_attr_ex a = {
		.qp_type = XQPV_QPT_XRC_RECV, .comp_mask = XQPV_QP_INIT_ATTR_XRCD, .xrcd = d->xrcd,
	};
	struct xqpv_qp *q = xqpv_create_qp_ex(d->ctx, &a);

	if (!q)
		die("create XRC target QP: %s", strerror(errno));
	return q;
}

static struct xqpv_qp *make_ini(struct dev *d)
{
	struct xqpv_qp_init_attr_ex a = {
		.qp_type = XQPV_QPT_XRC_SEND, .comp_mask = XQPV_QP_INIT_ATTR_PD, .pd = d->pd,
		.send_cq = d->cq, .recv_cq = d->cq,
		.cap = { .max_send_wr = 4, .max_send_sge = 1 },
	};
	struct xqpv_qp *q = xqpv_create_qp_ex(d->ctx, &a);

	if (!q)
		die("create XRC send QP: %s", strerror(errno));
	return q;
}

static void to_rtr(struct xqpv_qp *qp, uint16_t dlid, uint32_t dqpn, uint32_t psn)
{
	struct xqpv_qp_attr a = { .qp_state = XQPV_QPS_INIT, .port_num = 1 };
	int mask = XQPV_QP_STATE | XQPV_QP_AV | XQPV_QP_PATH_MTU | XQPV_QP_DEST_QPN | XQPV_QP_RQ_PSN;
	int err;

	if ((err = xqpv_modify_qp(qp, &a, XQPV_QP_STATE | XQPV_QP_PKEY_INDEX | XQPV_QP_PORT |
				 XQPV_QP_ACCESS_FLAGS)))
		die("QP %#x to INIT: %s", qp->qp_num, strerror(err));
	memset(&a, 0, sizeof(a));
	a.qp_state = XQPV_QPS_RTR;
	a.path_mtu = opt.mtu;
	a.dest_qp_num = dqpn;
	a.rq_psn = psn;
	a.ah_attr.dlid = dlid;
	a.ah_attr.port_num = 1;
	if (opt.global) {	/* the peer by GID: RoCE v2 between machines */
		a.ah_attr.is_global = 1;
		memcpy(a.ah_attr.grh.dgid, opt.rgid, 16);
		a.ah_attr.grh.sgid_index = (uint8_t)opt.sgid_index;
		a.ah_attr.grh.hop_limit = 64;
	}
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	if (qp->qp_type == XQPV_QPT_XRC_RECV)
		mask |= XQPV_QP_MAX_DEST_RD_ATOMIC | XQPV_QP_MIN_RNR_TIMER;
	if ((err = xqpv_modify_qp(qp, &a, mask)))
		die("QP %#x to RTR: %s", qp->qp_num, strerror(err));
}

static void to_rts(struct xqpv_qp *qp, uint32_t psn)
{
	struct xqpv_qp_attr a = { .qp_state = XQPV_QPS_RTS, .sq_psn = psn, .timeout = 14,
				 .retry_cnt = 7, .rnr_retry = 7, .max_rd_atomic = 1 };
	int err = xqpv_modify_qp(qp, &a, XQPV_QP_STATE | XQPV_QP_SQ_PSN | XQPV_QP_TIMEOUT |
				XQPV_QP_RETRY_CNT | XQPV_QP_RNR_RETRY | XQPV_QP_MAX_QP_RD_ATOMIC);

	if (err)
		die("QP %#x to RTS: %s", qp->qp_num, strerror(err));
}

/* One completion within the timeout (busy polling, or events with -e). */
static void next_wc(struct dev *d, struct xqpv_wc *wc)
{
	long end = now_ms() + opt.timeout_s * 1000L;

	for (;;) {
		int n = xqpv_poll_cq(d->cq, 1, wc);

		if (n < 0)
			die("poll CQ: %s", strerror(-n));
		if (n == 1) {
			if (wc->status != XQPV_WC_SUCCESS)
				die("completion of wr_id %#llx: %s (%d)",
				    (unsigned long long)wc->wr_id, xqpv_wc_status_str(wc->status),
				    (int)wc->status);
			return;
		}
		if (now_ms() > end)
			die("no completion within %d s (peer gone?)", opt.timeout_s);
		if (opt.events) {
			struct pollfd p = { .fd = d->ch->fd, .events = POLLIN };
			struct xqpv_cq *cq;
			void *ctx;

			n = poll(&p, 1, 100);
			if (n < 0 && errno != EINTR)
				die("poll completion channel: %s", strerror(errno));
			if (n > 0) {
				if (xqpv_get_cq_event(d->ch, &cq, &ctx))
					die("get CQ event: %s", strerror(errno));
				xqpv_ack_cq_events(cq, 1);
				if (xqpv_req_notify_cq(cq, 0))
					die("arm CQ: %s", strerror(errno));
			}
		}
	}
}

static void fill_msg(unsigned char *p, uint32_t iter, uint32_t who)
{
	uint32_t be = htonl(iter), bw = htonl(who);

	memcpy(p, &be, 4);
	memcpy(p + 4, &bw, 4);
	for (int i = 8; i < opt.size; i++)
		p[i] = (unsigned char)(iter * 7 + who * 13 + i);
}

static void check_msg(const unsigned char *p, uint32_t iter, uint32_t who, uint32_t len)
{
	uint32_t be, bw;

	if (len != (uint32_t)opt.size)
		die("message %u: %u bytes, want %d", iter, len, opt.size);
	memcpy(&be, p, 4);
	memcpy(&bw, p + 4, 4);
	if (ntohl(be) != iter || ntohl(bw) != who)
		die("message %u from %u: carries iteration %u from %u", iter, who, ntohl(be),
		    ntohl(bw));
	for (int i = 8; i < opt.size; i++)
		if (p[i] != (unsigned char)(iter * 7 + who * 13 + i))
			die("message %u: byte %d is wrong", iter, i);
}

static void send_msg(struct dev *d, struct xqpv_qp *ini, uint32_t srqn, unsigned char *at,
		     uint64_t wr_id)
{
	struct xqpv_sge sge = { (uintptr_t)at, (uint32_t)opt.size, d->mr->lkey };
	struct xqpv_send_wr w = { .wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
				 .opcode = XQPV_WR_SEND, .send_flags = XQPV_SEND_SIGNALED }, *bad;

	w.qp_type.xrc.remote_srqn = srqn;
	if (xqpv_post_send(ini, &w, &bad))
		die("post send: %s", strerror(errno));
}

/* ---- loopback TCP ---------------------------------------------------------- */

struct info {
	uint16_t lid;
	uint32_t ini_qpn, tgt_qpn, srqn, psn, extra_srqn;
};

static int wait_fd(int fd, short ev)
{
	struct pollfd p = { .fd = fd, .events = ev };
	int n;

	do {
		n = poll(&p, 1, opt.timeout_s * 1000);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		die("poll: %s", strerror(errno));
	return n > 0;
}

static void send_line(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void send_line(int fd, const char *fmt, ...)
{
	char line[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (write(fd, line, (size_t)n) != n)
		die("send connection data: %s", strerror(errno));
}

static void recv_line(int fd, char *line, size_t len)
{
	size_t got = 0;

	while (got + 1 < len) {
		ssize_t n;

		if (!wait_fd(fd, POLLIN))
			die("peer sent no connection data within %d s", opt.timeout_s);
		n = read(fd, line + got, 1);
		if (n < 0)
			die("read connection data: %s", strerror(errno));
		if (n == 0)
			die("peer closed the connection");
		if (line[got++] == '\n')
			break;
	}
	line[got] = '\0';
}

static int tcp_connect(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)opt.port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int err = 0;
	socklen_t l = sizeof(err);

	if (fd < 0)
		die("socket: %s", strerror(errno));
	if (inet_pton(AF_INET, opt.host, &sa.sin_addr) != 1 ||
	    (!opt.global && ntohl(sa.sin_addr.s_addr) >> 24 != 127))
		die("%s: only loopback (127.x.x.x) addresses without -R", opt.host);
	for (long end = now_ms() + opt.timeout_s * 1000L;;) {
		if (!connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
			break;
		if (errno == EINPROGRESS) {
			if (!wait_fd(fd, POLLOUT))
				die("connect %s:%d: timed out", opt.host, opt.port);
			getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &l);
			if (!err)
				break;
			errno = err;
		}
		if ((errno != ECONNREFUSED && errno != EAGAIN) || now_ms() > end)
			die("connect %s:%d: %s", opt.host, opt.port, strerror(errno));
		close(fd);	/* the server may not listen yet: retry */
		usleep(100 * 1000);
		fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			die("socket: %s", strerror(errno));
	}
	return fd;
}

static void print_results(const char *who, long us, long long bytes, int iters)
{
	double s = us / 1e6;

	printf("%s: %lld bytes in %.2f seconds = %.2f Mbit/sec\n", who, bytes, s,
	       s > 0 ? bytes * 8.0 / s / 1e6 : 0.0);
	printf("%s: %d iters in %.2f seconds = %.2f usec/iter\n", who, iters, s,
	       iters ? (double)us / iters : 0.0);
}

static long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

/* ---- server ------------------------------------------------------------------ */

static int busy_any(const int *busy, int n)
{
	for (int i = 0; i < n; i++)
		if (busy[i])
			return 1;
	return 0;
}

/* Client @i's reply buffer: after every SRQ's receive buffers. */
static unsigned char *reply_buf(struct dev *d, int nclients, int i)
{
	return d->buf + (size_t)opt.size * (size_t)(nclients * opt.rx_depth + i);
}

static void reply(struct dev *d, struct xqpv_qp *ini, uint32_t srqn, unsigned char *buf,
		  uint32_t iter, int i)
{
	fill_msg(buf, iter, (uint32_t)i + 100);
	send_msg(d, ini, srqn, buf, (1ULL << 40) | (uint64_t)i);
}

static void run_server(void)
{
	struct dev d;
	struct xqpv_srq *srq[MAX_CLIENTS];
	struct xqpv_qp *tgt[MAX_CLIENTS], *ini[MAX_CLIENTS];
	struct info peer[MAX_CLIENTS];
	uint32_t extra_for[MAX_CLIENTS] = { 0 }, extra_srqn[MAX_CLIENTS] = { 0 };
	int busy[MAX_CLIENTS] = { 0 }, pending[MAX_CLIENTS] = { 0 };
	uint32_t pend_iter[MAX_CLIENTS];
	int done[MAX_CLIENTS] = { 0 }, nclients = opt.clients, connected = 0, finished = 0;
	int lfd, one = 1, njoin = 0;
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)opt.port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	size_t slot = (size_t)opt.size;
	long t0 = 0;

	if (!opt.file)
		die("the server needs -f FILE (the XRC domain other processes join)");
	dev_open(&d, slot * (size_t)(nclients * (opt.rx_depth + 1)),
		 nclients * (opt.rx_depth + 8));
	for (int i = 0; i < nclients; i++) {
		srq[i] = make_srq(&d);
		tgt[i] = make_tgt(&d);
		ini[i] = make_ini(&d);
		for (int k = 0; k < opt.rx_depth; k++)
			post_srq(&d, srq[i], (uint64_t)(i * opt.rx_depth + k),
				 d.buf + slot * (size_t)(i * opt.rx_depth + k));
		printf("server: client %d: target QP %#x, SRQ %#x, send QP %#x, LID %#x\n",
		       i, tgt[i]->qp_num, srq[i]->srq_num, ini[i]->qp_num, d.lid);
	}
	fflush(stdout);
	if (opt.global)
		sa.sin_addr.s_addr = htonl(INADDR_ANY);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 16))
		die("listen on port %d: %s", opt.port, strerror(errno));
	printf("server: listening on %s:%d\n", opt.global ? "0.0.0.0" : "127.0.0.1", opt.port);
	fflush(stdout);
	while (connected < nclients) {
		char line[128];
		int fd;

		if (!wait_fd(lfd, POLLIN))
			die("%d of %d clients connected within %d s", connected, nclients,
			    opt.timeout_s);
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			die("accept: %s", strerror(errno));
		recv_line(fd, line, sizeof(line));
		if (!strncmp(line, "JOIN ", 5)) {
			uint32_t q, s;

			if (sscanf(line + 5, "%x %x", &q, &s) != 2 || njoin >= MAX_CLIENTS)
				die("bad JOIN line");
			extra_for[njoin] = q;
			extra_srqn[njoin++] = s;
			printf("server: an opener shares target QP %#x, with SRQ %#x\n", q, s);
			send_line(fd, "OK\n");
			close(fd);
			continue;
		}
		{
			struct info *p = &peer[connected];
			uint32_t ex = 0;
			unsigned int lid;
			int i = connected;

			if (sscanf(line, "%x %x %x %x %x", &lid, &p->ini_qpn, &p->tgt_qpn, &p->srqn,
				   &p->psn) != 5)
				die("bad connection data from a client");
			p->lid = (uint16_t)lid;
			for (int j = 0; j < njoin; j++)
				if (extra_for[j] == tgt[i]->qp_num)
					ex = extra_srqn[j];
			to_rtr(tgt[i], p->lid, p->ini_qpn, p->psn);
			to_rtr(ini[i], p->lid, p->tgt_qpn, p->psn);
			to_rts(ini[i], 0);
			send_line(fd, "%x %x %x %x %x %x %x\n", d.lid, ini[i]->qp_num,
				  tgt[i]->qp_num, srq[i]->srq_num, 0u, ex, (unsigned int)i);
			close(fd);
			connected++;
		}
	}
	close(lfd);
	t0 = now_us();
	/* echo every message back to the client it came from; a client's
	 * reply buffer is reused only after its last reply's completion */
	while (finished < nclients || busy_any(busy, nclients)) {
		struct xqpv_wc wc;
		int i, k;

		next_wc(&d, &wc);
		if (!(wc.opcode & XQPV_WC_RECV)) {
			i = (int)(wc.wr_id & 0xff);
			busy[i] = 0;
			if (pending[i]) {
				pending[i] = 0;
				reply(&d, ini[i], peer[i].srqn, reply_buf(&d, nclients, i),
				      pend_iter[i], i);
				busy[i] = 1;
			}
			continue;
		}
		i = (int)(wc.wr_id / (uint64_t)opt.rx_depth);
		k = (int)(wc.wr_id % (uint64_t)opt.rx_depth);
		if (i >= nclients || wc.qp_num != tgt[i]->qp_num)
			die("receive on QP %#x for client %d: not its target QP", wc.qp_num, i);
		check_msg(d.buf + slot * (size_t)(i * opt.rx_depth + k), (uint32_t)done[i],
			  (uint32_t)i, wc.byte_len);
		post_srq(&d, srq[i], wc.wr_id, d.buf + slot * (size_t)(i * opt.rx_depth + k));
		if (busy[i]) {
			pending[i] = 1;
			pend_iter[i] = (uint32_t)done[i];
		} else {
			reply(&d, ini[i], peer[i].srqn, reply_buf(&d, nclients, i),
			      (uint32_t)done[i], i);
			busy[i] = 1;
		}
		if (++done[i] == opt.iters)
			finished++;
	}
	for (int i = 0; i < nclients; i++)
		printf("server: client %d: %d messages checked and answered\n", i, done[i]);
	print_results("server", now_us() - t0,
		      2LL * opt.size * opt.iters * nclients, opt.iters * nclients);
	for (int i = 0; i < nclients; i++) {
		xqpv_destroy_qp(ini[i]);
		xqpv_destroy_qp(tgt[i]);
		xqpv_destroy_srq(srq[i]);
	}
	xqpv_close_device(d.ctx);
}

/* ---- client -------------------------------------------------------------------- */

static void run_client(void)
{
	struct dev d;
	struct xqpv_srq *srq;
	struct xqpv_qp *tgt, *ini;
	struct info s;
	char line[128];
	unsigned int lid;
	size_t slot = (size_t)opt.size;
	uint32_t who;
	long t0;
	int fd;

	opt.file = NULL;	/* a private XRC domain on the client's device */
	dev_open(&d, slot * (size_t)(opt.rx_depth + 1), opt.rx_depth + 8);
	srq = make_srq(&d);
	tgt = make_tgt(&d);
	ini = make_ini(&d);
	for (int k = 0; k < opt.rx_depth; k++)
		post_srq(&d, srq, (uint64_t)k, d.buf + slot * (size_t)k);
	fd = tcp_connect();
	send_line(fd, "%x %x %x %x %x\n", d.lid, ini->qp_num, tgt->qp_num, srq->srq_num, 0u);
	recv_line(fd, line, sizeof(line));
	close(fd);
	if (sscanf(line, "%x %x %x %x %x %x %x", &lid, &s.ini_qpn, &s.tgt_qpn, &s.srqn, &s.psn,
		   &s.extra_srqn, &who) != 7)
		die("bad connection data from the server");
	s.lid = (uint16_t)lid;
	printf("client %u: local LID %#x send QP %#x target QP %#x SRQ %#x\n", who, d.lid,
	       ini->qp_num, tgt->qp_num, srq->srq_num);
	printf("client %u: remote LID %#x target QP %#x SRQ %#x%s\n", who, s.lid, s.tgt_qpn,
	       s.srqn, s.extra_srqn ? " (+ an opener's SRQ on it)" : "");
	to_rtr(tgt, s.lid, s.ini_qpn, s.psn);
	to_rtr(ini, s.lid, s.tgt_qpn, s.psn);
	to_rts(ini, 0);
	t0 = now_us();
	for (int it = 0; it < opt.iters; it++) {
		unsigned char *out = d.buf + slot * (size_t)opt.rx_depth;
		struct xqpv_wc wc;

		fill_msg(out, (uint32_t)it, who);
		send_msg(&d, ini, s.srqn, out, 1ULL << 40);
		/* the send's completion and the reply, in either order */
		for (int got = 0; got < 2; got++) {
			next_wc(&d, &wc);
			if (!(wc.opcode & XQPV_WC_RECV))
				continue;
			if (wc.qp_num != tgt->qp_num)
				die("reply on QP %#x, not my target QP", wc.qp_num);
			check_msg(d.buf + slot * wc.wr_id, (uint32_t)it, who + 100, wc.byte_len);
			post_srq(&d, srq, wc.wr_id, d.buf + slot * wc.wr_id);
		}
		if (s.extra_srqn) {
			fill_msg(out, (uint32_t)it, 200);
			send_msg(&d, ini, s.extra_srqn, out, 2);
			next_wc(&d, &wc);
		}
	}
	print_results("client", now_us() - t0, 2LL * opt.size * opt.iters, opt.iters);
	/*
	 * On a lossy wire the ACK of the server's last reply may be lost: the
	 * server sends it again (up to 7 times 67 ms), and only a target QP
	 * that still exists acknowledges it. Keep it a while.
	 */
	if (opt.global)
		sleep(2);
	xqpv_destroy_qp(ini);
	xqpv_destroy_qp(tgt);
	xqpv_destroy_srq(srq);
	xqpv_close_device(d.ctx);
}

/* ---- opener: shares the server's target QP -------------------------------------- */

static void run_opener(void)
{
	struct dev d;
	struct xqpv_qp_open_attr oa = {
		.comp_mask = XQPV_QP_OPEN_ATTR_NUM | XQPV_QP_OPEN_ATTR_XRCD | XQPV_QP_OPEN_ATTR_TYPE,
		.qp_num = opt.open_qpn, .qp_type = XQPV_QPT_XRC_RECV,
	};
	struct xqpv_srq *srq;
	struct xqpv_qp *h;
	size_t slot = (size_t)opt.size;
	char line[32];
	long t0 = 0;
	int fd, got = 0;

	if (!opt.file)
		die("-o needs -f FILE: the server's XRC domain");
	dev_open(&d, slot * (size_t)opt.rx_depth, opt.rx_depth + 8);
	oa.xrcd = d.xrcd;
	h = xqpv_open_qp(d.ctx, &oa);
	if (!h)
		die("open target QP %#x: %s", opt.open_qpn, strerror(errno));
	srq = make_srq(&d);
	for (int k = 0; k < opt.rx_depth; k++)
		post_srq(&d, srq, (uint64_t)k, d.buf + slot * (size_t)k);
	printf("opener: opened target QP %#x; my SRQ %#x\n", h->qp_num, srq->srq_num);
	fflush(stdout);
	fd = tcp_connect();
	send_line(fd, "JOIN %x %x\n", h->qp_num, srq->srq_num);
	recv_line(fd, line, sizeof(line));
	close(fd);
	while (got < opt.iters) {
		struct xqpv_wc wc;

		next_wc(&d, &wc);
		if (!got)
			t0 = now_us();
		if (wc.qp_num != h->qp_num)
			die("receive on QP %#x, not the shared target QP", wc.qp_num);
		check_msg(d.buf + slot * wc.wr_id, (uint32_t)got, 200, wc.byte_len);
		post_srq(&d, srq, wc.wr_id, d.buf + slot * wc.wr_id);
		got++;
	}
	printf("opener: %d messages through the shared target QP, all checked\n", got);
	print_results("opener", now_us() - t0, (long long)opt.size * got, got);
	xqpv_destroy_qp(h);
	xqpv_destroy_srq(srq);
	xqpv_close_device(d.ctx);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: %s [-d DEV] -f FILE [-c CLIENTS]          (server)\n"
		"       %s [-d DEV] 127.0.0.1                     (client)\n"
		"       %s [-d DEV] -f FILE -o QPN 127.0.0.1      (opener of a target QP)\n"
		"  -p PORT (18515) -s SIZE (4096) -n ITERS (1000) -r RX_DEPTH (16)\n"
		"  -e (completion events) -t SECONDS (10, the limit on any wait)\n"
		"  between machines: -R PEER_GID -x GID_INDEX -m MTU, and the client's\n"
		"  address is the server's IPv4 address\n",
		prog, prog, prog);
	exit(2);
}

int main(int argc, char **argv)
{
	int c;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((c = getopt(argc, argv, "d:f:p:s:n:r:c:o:et:R:x:m:h")) != -1) {
		switch (c) {
		case 'd': opt.dev = optarg; break;
		case 'f': opt.file = optarg; break;
		case 'p': opt.port = atoi(optarg); break;
		case 's': opt.size = atoi(optarg); break;
		case 'n': opt.iters = atoi(optarg); break;
		case 'r': opt.rx_depth = atoi(optarg); break;
		case 'c': opt.clients = atoi(optarg); break;
		case 'o': opt.open_qpn = (uint32_t)strtoul(optarg, NULL, 0); break;
		case 'e': opt.events = 1; break;
		case 't': opt.timeout_s = atoi(optarg); break;
		case 'R':
			if (inet_pton(AF_INET6, optarg, opt.rgid) != 1)
				usage();
			opt.global = 1;
			break;
		case 'x': opt.sgid_index = atoi(optarg); break;
		case 'm':
			switch (atoi(optarg)) {
			case 256: opt.mtu = XQPV_MTU_256; break;
			case 512: opt.mtu = XQPV_MTU_512; break;
			case 1024: opt.mtu = XQPV_MTU_1024; break;
			case 2048: opt.mtu = XQPV_MTU_2048; break;
			case 4096: opt.mtu = XQPV_MTU_4096; break;
			default: usage();
			}
			break;
		default: usage();
		}
	}
	if (optind < argc)
		opt.host = argv[optind];
	if (opt.size < 8 || opt.size > 1 << 20 || opt.iters < 1 || opt.rx_depth < 1 ||
	    opt.rx_depth > 1024 || opt.clients < 1 || opt.clients > MAX_CLIENTS ||
	    opt.timeout_s < 1 || opt.port <= 0 || opt.port > 65535 || opt.sgid_index < 0 ||
	    opt.sgid_index > 255)
		usage();
	if (opt.open_qpn) {
		if (!opt.host)
			usage();
		run_opener();
	} else if (opt.host) {
		run_client();
	} else {
		run_server();
	}
	return 0;
}
