// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * xqp-bench-uverbs: the cost of the shared-QP commands through a uverbs
 * char device, the same program against xqp (/dev/xqp/uverbsN) and against
 * Linux's ib_uverbs (/dev/infiniband/uverbsN).
 *
 * Usage: xqp-bench-uverbs [-n ITERS] [-w WARMUP] [-k K] [-p PROCS] [-l LABEL] DEVICE
 *   defaults: ITERS 20000, WARMUP ITERS/10, K 64, PROCS 2, LABEL the DEVICE path
 *
 * Setup (context, XRC domain, the QPs to open) goes through libxqpverbs;
 * every measured command is one raw write() of a command buffer built before
 * the clock starts, so what is timed is the syscall and the kernel, nothing
 * of the library. Times are CLOCK_MONOTONIC over ITERS iterations after
 * WARMUP untimed ones. Output, one line per metric:
 *
 *   bench <label> <metric> <ns_per_op> <ops>
 *
 *   reject       DESTROY_QP of a handle that does not exist (ENOENT): the
 *                floor of a command through the device file
 *   open_destroy OPEN_QP + DESTROY_QP of the opened handle, on an XRC_TGT
 *                QP that stays alive (its creator's handle remains)
 *   create_destroy CREATE_QP(XRC_TGT) + DESTROY_QP (the last handle)
 *   openK_open, openK_destroy, openK
 *                K OPEN_QPs on one QP, then their K DESTROY_QPs: per OPEN,
 *                per DESTROY, per handle (open + destroy)
 *   mpP_distinct, mpP_same
 *                P processes, each with its own context, doing
 *                open_destroy ITERS times at once: on P distinct QPs, or all
 *                on the same QP. ns_per_op is the aggregate (wall time from
 *                the first start to the last end, divided by all ops), so
 *                1e9/ns_per_op is the aggregate ops/s.
 *
 * Any unexpected result aborts with a message and exit status 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rdma/ib_user_verbs.h>

#include "xqpverbs.h"
#include "bench.h"

static const char *label;

static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "xqp-bench-uverbs: %s: ", label ? label : "-");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void report(const char *metric, uint64_t ns, uint64_t ops)
{
	printf("bench %s %s %.1f %llu\n", label, metric, (double)ns / (double)ops,
	       (unsigned long long)ops);
	fflush(stdout);
}

/* ---- pre-built commands: header + command struct, one write() each ---- */

struct destroy_buf {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_destroy_qp cmd;
};

struct open_buf {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_open_qp cmd;
};

struct create_buf {
	struct ib_uverbs_cmd_hdr hdr;
	struct ib_uverbs_create_qp cmd;
};

/* One per process: where the kernel writes the responses. */
static struct ib_uverbs_destroy_qp_resp destroy_resp;
static struct ib_uverbs_create_qp_resp qp_resp;	/* OPEN_QP's and CREATE_QP's */

static void destroy_init(struct destroy_buf *b)
{
	memset(b, 0, sizeof(*b));
	b->hdr.command = IB_USER_VERBS_CMD_DESTROY_QP;
	b->hdr.in_words = sizeof(*b) / 4;
	b->hdr.out_words = sizeof(destroy_resp) / 4;
	b->cmd.response = (uintptr_t)&destroy_resp;
}

static void open_init(struct open_buf *b, uint32_t xrcd_handle, uint32_t qpn)
{
	memset(b, 0, sizeof(*b));
	b->hdr.command = IB_USER_VERBS_CMD_OPEN_QP;
	b->hdr.in_words = sizeof(*b) / 4;
	b->hdr.out_words = sizeof(qp_resp) / 4;
	b->cmd.response = (uintptr_t)&qp_resp;
	b->cmd.user_handle = 0x42;
	b->cmd.pd_handle = xrcd_handle;
	b->cmd.qpn = qpn;
	b->cmd.qp_type = XQPV_QPT_XRC_TGT;
}

static void create_init(struct create_buf *b, uint32_t xrcd_handle)
{
	memset(b, 0, sizeof(*b));
	b->hdr.command = IB_USER_VERBS_CMD_CREATE_QP;
	b->hdr.in_words = sizeof(*b) / 4;
	b->hdr.out_words = sizeof(qp_resp) / 4;
	b->cmd.response = (uintptr_t)&qp_resp;
	b->cmd.user_handle = 0x43;
	b->cmd.pd_handle = xrcd_handle;	/* XRC_TGT: the XRCD's handle */
	b->cmd.qp_type = XQPV_QPT_XRC_TGT;
}

/* write() of a whole command: 0, or the errno. */
static int send_cmd(int fd, const void *buf, size_t len)
{
	ssize_t n = write(fd, buf, len);

	if (n < 0)
		return errno;
	if ((size_t)n != len)
		die("short write: %zd of %zu bytes", n, len);
	return 0;
}

static uint32_t do_open(int fd, struct open_buf *b)
{
	int err = send_cmd(fd, b, sizeof(*b));

	if (err)
		die("OPEN_QP of qpn %u: %s", b->cmd.qpn, strerror(err));
	return qp_resp.qp_handle;
}

static uint32_t do_create(int fd, struct create_buf *b)
{
	int err = send_cmd(fd, b, sizeof(*b));

	if (err)
		die("CREATE_QP(XRC_TGT): %s", strerror(err));
	return qp_resp.qp_handle;
}

static void do_destroy(int fd, struct destroy_buf *b, uint32_t handle)
{
	int err;

	b->cmd.qp_handle = handle;
	err = send_cmd(fd, b, sizeof(*b));
	if (err)
		die("DESTROY_QP of handle %u: %s", handle, strerror(err));
}

/* ---- setup through libxqpverbs ---------------------------------------- */

struct setup {
	struct xqpv_context *ctx;
	struct xqpv_xrcd *xrcd;
};

/* A context and an XRCD: private (@xrcd_fd -1) or the one of a file. */
static struct setup setup_open(const char *dev, int xrcd_fd)
{
	struct xqpv_xrcd_init_attr xa = {
		.comp_mask = XQPV_XRCD_INIT_ATTR_FD | XQPV_XRCD_INIT_ATTR_OFLAGS,
		.fd = xrcd_fd,
		.oflags = xrcd_fd >= 0 ? O_CREAT : 0,
	};
	struct setup s;

	s.ctx = xqpv_open_device_path(dev);
	if (!s.ctx)
		die("open %s: %s", dev, strerror(errno));
	s.xrcd = xqpv_open_xrcd(s.ctx, &xa);
	if (!s.xrcd)
		die("OPEN_XRCD: %s", strerror(errno));
	return s;
}

static struct xqpv_qp *setup_qp(struct setup *s)
{
	struct xqpv_qp_init_attr_ex qa = {
		.qp_type = XQPV_QPT_XRC_TGT,
		.comp_mask = XQPV_QP_INIT_ATTR_XRCD,
		.xrcd = s->xrcd,
	};
	struct xqpv_qp *qp = xqpv_create_qp_ex(s->ctx, &qa);

	if (!qp)
		die("CREATE_QP(XRC_TGT): %s", strerror(errno));
	return qp;
}

static void setup_close(struct setup *s)
{
	if (xqpv_close_xrcd(s->xrcd))
		die("CLOSE_XRCD: %s", strerror(errno));
	xqpv_close_device(s->ctx);
}

/* ---- the metrics -------------------------------------------------------- */

static long iters = 20000, warmup = -1, kopen = 64, procs = 2;

static void bench_reject(int fd)
{
	struct destroy_buf b;
	uint64_t t0 = 0;
	long i;
	int err;

	destroy_init(&b);
	b.cmd.qp_handle = 0x7ffffff0;	/* no such handle */
	for (i = -warmup; i < iters; i++) {
		if (i == 0)
			t0 = now_ns();
		err = send_cmd(fd, &b, sizeof(b));
		if (err != ENOENT)
			die("DESTROY_QP of a missing handle: %s, not ENOENT",
			    err ? strerror(err) : "success");
	}
	report("reject", now_ns() - t0, (uint64_t)iters);
}

/* @n rounds of OPEN_QP + DESTROY_QP on @qpn; returns the elapsed ns. */
static uint64_t open_destroy_loop(int fd, uint32_t xrcd_handle, uint32_t qpn, long n)
{
	struct destroy_buf d;
	struct open_buf o;
	uint64_t t0 = 0;
	long i;

	destroy_init(&d);
	open_init(&o, xrcd_handle, qpn);
	t0 = now_ns();
	for (i = 0; i < n; i++)
		do_destroy(fd, &d, do_open(fd, &o));
	return now_ns() - t0;
}

static void bench_open_destroy(struct setup *s, struct xqpv_qp *qp)
{
	int fd = s->ctx->cmd_fd;

	open_destroy_loop(fd, s->xrcd->handle, qp->qp_num, warmup);
	report("open_destroy", open_destroy_loop(fd, s->xrcd->handle, qp->qp_num, iters),
	       (uint64_t)iters);
}

static void bench_create_destroy(struct setup *s)
{
	int fd = s->ctx->cmd_fd;
	struct destroy_buf d;
	struct create_buf c;
	uint64_t t0 = 0;
	long i;

	destroy_init(&d);
	create_init(&c, s->xrcd->handle);
	for (i = -warmup; i < iters; i++) {
		if (i == 0)
			t0 = now_ns();
		do_destroy(fd, &d, do_create(fd, &c));
	}
	report("create_destroy", now_ns() - t0, (uint64_t)iters);
}

static void bench_open_k(struct setup *s, struct xqpv_qp *qp)
{
	int fd = s->ctx->cmd_fd;
	uint64_t t_open = 0, t_destroy = 0, t0, t1, t2;
	long rounds = iters / kopen > 0 ? iters / kopen : 1;
	long wrounds = warmup / kopen > 0 ? warmup / kopen : 1;
	uint32_t *h = calloc((size_t)kopen, sizeof(*h));
	struct destroy_buf d;
	struct open_buf o;
	char name[64];
	long r, i;

	if (!h)
		die("out of memory");
	destroy_init(&d);
	open_init(&o, s->xrcd->handle, qp->qp_num);
	for (r = -wrounds; r < rounds; r++) {
		t0 = now_ns();
		for (i = 0; i < kopen; i++)
			h[i] = do_open(fd, &o);
		t1 = now_ns();
		for (i = 0; i < kopen; i++)
			do_destroy(fd, &d, h[i]);
		t2 = now_ns();
		if (r >= 0) {
			t_open += t1 - t0;
			t_destroy += t2 - t1;
		}
	}
	free(h);
	snprintf(name, sizeof(name), "open%ld_open", kopen);
	report(name, t_open, (uint64_t)(rounds * kopen));
	snprintf(name, sizeof(name), "open%ld_destroy", kopen);
	report(name, t_destroy, (uint64_t)(rounds * kopen));
	snprintf(name, sizeof(name), "open%ld", kopen);
	report(name, t_open + t_destroy, (uint64_t)(rounds * kopen));
}

/* ---- several processes ---------------------------------------------------- */

struct child_result {
	uint64_t start, end;
	int32_t ok;
};

static void read_full(int fd, void *buf, size_t len, const char *what)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = read(fd, (char *)buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			die("%s: %s", what, n < 0 ? strerror(errno) : "a process quit early");
		got += (size_t)n;
	}
}

/*
 * Waits until @fd is readable. While waiting, a child of @pids[0..@n-1] that
 * exited early (a failed child) aborts the run: the others would keep the
 * pipes open and the wait would never end. Reaped children get pid 0.
 */
static void wait_children(int fd, pid_t *pids, long n, const char *what)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	long i;
	int st;

	while (poll(&p, 1, 1000) <= 0) {
		for (i = 0; i < n; i++) {
			if (pids[i] <= 0 || waitpid(pids[i], &st, WNOHANG) != pids[i])
				continue;
			pids[i] = 0;
			if (!WIFEXITED(st) || WEXITSTATUS(st)) {
				for (i = 0; i < n; i++)
					if (pids[i] > 0)
						kill(pids[i], SIGKILL);
				die("%s: a process failed", what);
			}
		}
	}
}

static void write_full(int fd, const void *buf, size_t len)
{
	if (write(fd, buf, len) != (ssize_t)len)
		die("pipe write: %s", strerror(errno));
}

/*
 * A child: its own context on the device, the XRCD of @xrcd_path, warm-up,
 * "ready" on @ready, waits for "go" on @go, then ITERS open+destroy on
 * @qpn; sends its start/end times on @results.
 */
static void __attribute__((noreturn)) mp_child(const char *dev, const char *xrcd_path,
					       uint32_t qpn, int ready, int go, int results)
{
	struct child_result res = { 0 };
	struct setup s;
	char c = 'r';
	int xfd = open(xrcd_path, O_RDONLY);

	if (xfd < 0)
		die("open %s: %s", xrcd_path, strerror(errno));
	s = setup_open(dev, xfd);
	open_destroy_loop(s.ctx->cmd_fd, s.xrcd->handle, qpn, warmup);
	write_full(ready, &c, 1);
	read_full(go, &c, 1, "waiting for go");
	res.start = now_ns();
	open_destroy_loop(s.ctx->cmd_fd, s.xrcd->handle, qpn, iters);
	res.end = now_ns();
	res.ok = 1;
	write_full(results, &res, sizeof(res));
	setup_close(&s);
	close(xfd);
	_exit(0);
}

/*
 * P processes at once on the QPs @qpns[0..P-1] (all the same, or distinct).
 * The children open their own contexts (a forked child must not write to
 * its parent's context) and join the XRCD of the parent's file.
 */
static void mp_run(const char *metric, const char *dev, const char *xrcd_path,
		   const uint32_t *qpns)
{
	int ready[2], go[2], results[2];
	uint64_t start = UINT64_MAX, end = 0;
	pid_t *pids = calloc((size_t)procs, sizeof(*pids));
	int failed = 0, st;
	long i;
	char c;

	if (!pids)
		die("out of memory");
	if (pipe(ready) || pipe(go) || pipe(results))
		die("pipe: %s", strerror(errno));
	fflush(stdout);
	fflush(stderr);
	for (i = 0; i < procs; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			die("fork: %s", strerror(errno));
		if (pids[i] == 0) {
			close(ready[0]);
			close(go[1]);
			close(results[0]);
			mp_child(dev, xrcd_path, qpns[i], ready[1], go[0], results[1]);
		}
	}
	close(ready[1]);
	close(go[0]);
	close(results[1]);
	for (i = 0; i < procs; i++) {
		wait_children(ready[0], pids, procs, metric);
		read_full(ready[0], &c, 1, "waiting for the processes to be ready");
	}
	for (i = 0; i < procs; i++)
		write_full(go[1], "g", 1);
	for (i = 0; i < procs; i++) {
		struct child_result res;

		wait_children(results[0], pids, procs, metric);
		read_full(results[0], &res, sizeof(res), "waiting for results");
		if (res.start < start)
			start = res.start;
		if (res.end > end)
			end = res.end;
	}
	for (i = 0; i < procs; i++) {
		if (pids[i] > 0 &&
		    (waitpid(pids[i], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)))
			failed = 1;
	}
	close(ready[0]);
	close(go[1]);
	close(results[0]);
	free(pids);
	if (failed)
		die("%s: a process failed", metric);
	report(metric, end - start, (uint64_t)(iters * procs));
}

static void bench_mp(const char *dev)
{
	char path[] = "/tmp/xqp-bench-xrcd.XXXXXX";
	uint32_t *same = calloc((size_t)procs, sizeof(*same));
	uint32_t *distinct = calloc((size_t)procs, sizeof(*distinct));
	struct xqpv_qp **qps = calloc((size_t)procs, sizeof(*qps));
	char metric[64];
	struct setup s;
	int xfd;
	long i;

	if (!same || !distinct || !qps)
		die("out of memory");
	xfd = mkstemp(path);
	if (xfd < 0)
		die("mkstemp %s: %s", path, strerror(errno));
	s = setup_open(dev, xfd);
	for (i = 0; i < procs; i++) {
		qps[i] = setup_qp(&s);
		distinct[i] = qps[i]->qp_num;
		same[i] = qps[0]->qp_num;
	}
	snprintf(metric, sizeof(metric), "mp%ld_distinct", procs);
	mp_run(metric, dev, path, distinct);
	snprintf(metric, sizeof(metric), "mp%ld_same", procs);
	mp_run(metric, dev, path, same);
	for (i = 0; i < procs; i++) {
		if (xqpv_destroy_qp(qps[i]))
			die("DESTROY_QP: %s", strerror(errno));
	}
	setup_close(&s);
	close(xfd);
	unlink(path);
	free(qps);
	free(same);
	free(distinct);
}

static long num_arg(const char *opt, const char *s, long min)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min) {
		fprintf(stderr, "xqp-bench-uverbs: %s wants a number >= %ld, got '%s'\n",
			opt, min, s);
		exit(2);
	}
	return v;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: xqp-bench-uverbs [-n ITERS] [-w WARMUP] [-k K] [-p PROCS] [-l LABEL] DEVICE\n"
		"  DEVICE  /dev/xqp/uverbsN or /dev/infiniband/uverbsN\n"
		"  prints: bench <label> <metric> <ns_per_op> <ops>\n");
	exit(2);
}

int main(int argc, char **argv)
{
	struct xqpv_qp *qp;
	struct setup s;
	const char *dev;
	int opt;

	while ((opt = getopt(argc, argv, "n:w:k:p:l:h")) != -1) {
		switch (opt) {
		case 'n': iters = num_arg("-n", optarg, 1); break;
		case 'w': warmup = num_arg("-w", optarg, 0); break;
		case 'k': kopen = num_arg("-k", optarg, 1); break;
		case 'p': procs = num_arg("-p", optarg, 1); break;
		case 'l': label = optarg; break;
		default: usage();
		}
	}
	if (optind != argc - 1)
		usage();
	dev = argv[optind];
	if (warmup < 0)
		warmup = iters / 10;
	if (!label)
		label = dev;

	s = setup_open(dev, -1);
	qp = setup_qp(&s);
	bench_reject(s.ctx->cmd_fd);
	bench_open_destroy(&s, qp);
	bench_create_destroy(&s);
	bench_open_k(&s, qp);
	if (xqpv_destroy_qp(qp))
		die("DESTROY_QP: %s", strerror(errno));
	setup_close(&s);
	bench_mp(dev);
	return 0;
}
