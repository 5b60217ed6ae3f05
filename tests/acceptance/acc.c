// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * xqp-acceptance: runs every case against xqp's char device and, when
 * given, against Linux's, and compares.
 *
 *   xqp-acceptance [-v] [-c CASE] [-r MODULE] [-f MAX | -F A-B | -n N] XQP_DEV [LINUX_DEV]
 *
 *   -v         show notes and both signatures
 *   -c CASE    run only CASE (repeatable)
 *   -r MODULE  run the device-removal cases instead (they unload MODULE)
 *   -l         list the cases
 *   -f MAX     allocation-failure sweep (xqp's device only): each
 *              case runs again and again with its process's fail-nth set
 *              to N (the N-th allocation the kernel makes for that task
 *              fails, once; /proc/thread-self/fail-nth, written right
 *              before the case body) until a run ends without reaching its
 *              N-th allocation, or MAX runs. A first run counts the case's
 *              allocations (T); N is 1, 2, ... when T <= MAX, else every
 *              S-th of them (S = T / (MAX - 1) + 1), so a short sweep
 *              reaches past a case's setup into what it is about. What the
 *              case itself expects does not count then; a run must end (no
 *              hang), and leave no object in the soft device (its debugfs
 *              counts, when there); then the case must pass once more,
 *              nothing armed.
 *   -F A-B     one piece of a whole sweep (scripts/fault-sweep's full
 *              campaign): runs with fail-nth A, A + 1, ... B, each judged
 *              as -f judges one, until a run ends without reaching its
 *              N-th allocation (the case's end, printed as "end N"); then
 *              the case must pass unarmed
 *   -n N       one run of each case with fail-nth N, judged as a run of
 *              the sweep is (to reproduce what a sweep reported)
 *
 * Prints one line per case: "PASS name (...)" or "FAIL name: why". Exit
 * status: 0 if every case passed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../lib/fault_knobs.h"
#include "acc.h"

const char *g_dev;
int g_is_xqp;
const char *g_soft_module = "xqp_soft";
static int g_result_fd = -1;
static int g_verbose;
static unsigned int g_fail_nth;	/* arm fail-nth for the case body (-f) */

/* ---- recording ---------------------------------------------------------- */

static void emit(char kind, const char *fmt, va_list ap)
{
	char line[1024];
	int n = snprintf(line, sizeof(line), "%c ", kind);

	n += vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	for (int i = 2; i < n; i++)
		if (line[i] == '\n')
			line[i] = ' ';
	line[n++] = '\n';
	if (g_result_fd >= 0 && write(g_result_fd, line, (size_t)n) < 0)
		_exit(99);
}

void acc_token(const char *name, const char *fmt, ...)
{
	char val[512], buf[700];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	snprintf(buf, sizeof(buf), "%s=%s", name, val);
	for (char *p = buf; *p; p++)
		if (*p == ' ' || *p == '\n')
			*p = '_';
	if (g_result_fd >= 0)
		dprintf(g_result_fd, "T %s\n", buf);
}

void acc_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit('F', fmt, ap);
	va_end(ap);
}

void acc_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit('N', fmt, ap);
	va_end(ap);
}

const char *errname(int err)
{
	static char buf[16];

	switch (err) {
	case 0: return "0";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EIO: return "EIO";
	case ENXIO: return "ENXIO";
	case EBADF: return "EBADF";
	case EAGAIN: return "EAGAIN";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EEXIST: return "EEXIST";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case ENOTTY: return "ENOTTY";
	case ENOSPC: return "ENOSPC";
	case ERANGE: return "ERANGE";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ETIMEDOUT: return "ETIMEDOUT";
	}
	snprintf(buf, sizeof(buf), "E%d", err);
	return buf;
}

void acc_expect_err(const char *name, int got, int want, const char *file, int line)
{
	acc_token(name, "%s", errname(got));
	if (got != want)
		acc_fail("%s: got %s, want %s (%s:%d)", name, errname(got),
			 errname(want), file, line);
}

void acc_expect_int(const char *name, long long got, long long want,
		    const char *file, int line)
{
	acc_token(name, "%lld", got);
	if (got != want)
		acc_fail("%s: got %lld, want %lld (%s:%d)", name, got, want, file, line);
}

/* ---- helpers ------------------------------------------------------------------ */

struct xqpv_context *open_ctx(void)
{
	struct xqpv_context *ctx = xqpv_open_device_path(g_dev);

	if (!ctx) {
		acc_fail("open %s: %s", g_dev, errname(errno));
		exit(1);
	}
	return ctx;
}

int raw_write(int fd, const void *buf, size_t len)
{
	ssize_t n = write(fd, buf, len);

	if (n < 0)
		return errno;
	return (size_t)n == len ? 0 : EIO;
}

int raw_cmd(int fd, uint32_t command, const void *body, size_t body_len,
	    int in_words, int out_words)
{
	unsigned char buf[8 + 4096];
	struct ib_uverbs_cmd_hdr hdr;

	if (body_len > 4096)
		return E2BIG;
	hdr.command = command;
	hdr.in_words = (uint16_t)(in_words >= 0 ? in_words : (int)((8 + body_len) / 4));
	hdr.out_words = (uint16_t)(out_words >= 0 ? out_words : 0);
	memcpy(buf, &hdr, sizeof(hdr));
	if (body_len)
		memcpy(buf + 8, body, body_len);
	return raw_write(fd, buf, 8 + body_len);
}

static char g_case_tag[64];

const char *case_file(const char *tag)
{
	static char path[8][128];
	static int next;
	char *p = path[next++ % 8];
	int fd;

	snprintf(p, 128, "/tmp/xqp-acc-%s-%s", g_case_tag, tag);
	fd = open(p, O_CREAT | O_RDWR, 0600);
	if (fd >= 0)
		close(fd);
	return p;
}

struct xqpv_xrcd *open_xrcd_path(struct xqpv_context *ctx, const char *path,
				int oflags, int *err)
{
	struct xqpv_xrcd_init_attr a = {
		.comp_mask = XQPV_XRCD_INIT_ATTR_FD | XQPV_XRCD_INIT_ATTR_OFLAGS,
		.fd = -1,
		.oflags = oflags,
	};
	struct xqpv_xrcd *x;
	int fd = -1;

	if (path) {
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			*err = errno;
			return NULL;
		}
		a.fd = fd;
	}
	x = xqpv_open_xrcd(ctx, &a);
	*err = x ? 0 : errno;
	if (fd >= 0)
		close(fd);	/* the XRCD holds the inode, not the fd */
	return x;
}

struct xqpv_qp *create_tgt(struct xqpv_context *ctx, struct xqpv_xrcd *xrcd)
{
	struct xqpv_qp_init_attr_ex a = {
		.qp_type = XQPV_QPT_XRC_RECV,
		.comp_mask = XQPV_QP_INIT_ATTR_XRCD,
		.xrcd = xrcd,
	};

	return xqpv_create_qp_ex(ctx, &a);
}

struct xqpv_qp *open_tgt(struct xqpv_context *ctx, struct xqpv_xrcd *xrcd,
			uint32_t qpn, int *err)
{
	struct xqpv_qp_open_attr a = {
		.comp_mask = XQPV_QP_OPEN_ATTR_NUM | XQPV_QP_OPEN_ATTR_XRCD |
			     XQPV_QP_OPEN_ATTR_TYPE,
		.qp_num = qpn,
		.xrcd = xrcd,
		.qp_type = XQPV_QPT_XRC_RECV,
	};
	struct xqpv_qp *qp = xqpv_open_qp(ctx, &a);

	if (err)
		*err = qp ? 0 : errno;
	return qp;
}

struct xqpv_qp *open_xrcd_tgt(struct xqpv_context *ctx, const char *path, int oflags,
			     struct xqpv_xrcd **xrcd)
{
	int err;
	struct xqpv_xrcd *x = open_xrcd_path(ctx, path, oflags, &err);

	if (xrcd)
		*xrcd = x;
	return x ? create_tgt(ctx, x) : NULL;
}

struct xqpv_qp *create_rc(struct xqpv_context *ctx, struct xqpv_pd *pd, struct xqpv_cq *cq)
{
	struct xqpv_qp_init_attr_ex a = {
		.qp_type = XQPV_QPT_RC, .comp_mask = XQPV_QP_INIT_ATTR_PD, .pd = pd,
		.send_cq = cq, .cap = { .max_send_wr = 1, .max_send_sge = 1 },
	};

	return xqpv_create_qp_ex(ctx, &a);
}

struct xqpv_srq *create_xrc_srq(struct xqpv_context *ctx, struct xqpv_pd *pd,
			       struct xqpv_xrcd *xrcd, struct xqpv_cq *cq)
{
	struct xqpv_srq_init_attr_ex a = {
		.attr = { .max_wr = 4, .max_sge = 1 },
		.comp_mask = XQPV_SRQ_INIT_ATTR_TYPE | XQPV_SRQ_INIT_ATTR_PD |
			     XQPV_SRQ_INIT_ATTR_XRCD | XQPV_SRQ_INIT_ATTR_CQ,
		.srq_type = XQPV_SRQT_XRC, .pd = pd, .xrcd = xrcd, .cq = cq,
	};

	return xqpv_create_srq_ex(ctx, &a);
}

int query_device_raw(int fd, struct ib_uverbs_query_device_resp *resp)
{
	struct ib_uverbs_query_device cmd = { .response = (uintptr_t)resp };

	return raw_cmd(fd, IB_USER_VERBS_CMD_QUERY_DEVICE, &cmd, sizeof(cmd), -1,
		       sizeof(*resp) / 4);
}

int dealloc_pd_raw(int fd, uint32_t handle)
{
	struct ib_uverbs_dealloc_pd cmd = { .pd_handle = handle };

	return raw_cmd(fd, IB_USER_VERBS_CMD_DEALLOC_PD, &cmd, sizeof(cmd), -1, 0);
}

int query_qp_raw(int fd, uint32_t handle, struct ib_uverbs_query_qp_resp *resp)
{
	struct ib_uverbs_query_qp_resp local;
	struct ib_uverbs_query_qp cmd = {
		.response = (uintptr_t)(resp ? resp : &local), .qp_handle = handle,
	};

	return raw_cmd(fd, IB_USER_VERBS_CMD_QUERY_QP, &cmd, sizeof(cmd), -1,
		       sizeof(local) / 4);
}

int destroy_qp_raw(int fd, uint32_t handle, uint32_t *events_reported)
{
	struct ib_uverbs_destroy_qp_resp resp = { 0 };
	struct ib_uverbs_destroy_qp cmd = { .response = (uintptr_t)&resp, .qp_handle = handle };
	int err = raw_cmd(fd, IB_USER_VERBS_CMD_DESTROY_QP, &cmd, sizeof(cmd), -1,
			  sizeof(resp) / 4);

	if (events_reported)
		*events_reported = resp.events_reported;
	return err;
}

int destroy_cq_raw(int fd, uint32_t handle, uint32_t *events_reported)
{
	struct ib_uverbs_destroy_cq_resp resp = { 0 };
	struct ib_uverbs_destroy_cq cmd = { .response = (uintptr_t)&resp, .cq_handle = handle };
	int err = raw_cmd(fd, IB_USER_VERBS_CMD_DESTROY_CQ, &cmd, sizeof(cmd), -1,
			  sizeof(resp) / 4);

	if (events_reported)
		*events_reported = resp.async_events_reported;
	return err;
}

int destroy_srq_raw(int fd, uint32_t handle, uint32_t *events_reported)
{
	struct ib_uverbs_destroy_srq_resp resp = { 0 };
	struct ib_uverbs_destroy_srq cmd = { .response = (uintptr_t)&resp, .srq_handle = handle };
	int err = raw_cmd(fd, IB_USER_VERBS_CMD_DESTROY_SRQ, &cmd, sizeof(cmd), -1,
			  sizeof(resp) / 4);

	if (events_reported)
		*events_reported = resp.events_reported;
	return err;
}

pid_t spawn(void (*fn)(void *), void *arg)
{
	pid_t pid = fork();

	if (pid < 0) {
		acc_fail("fork: %s", errname(errno));
		exit(1);
	}
	if (pid == 0) {
		fn(arg);
		exit(0);
	}
	return pid;
}

int reap(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) < 0)
		return -1;
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

void chan_init(struct chan *c)
{
	if (pipe(c->fd)) {
		acc_fail("pipe: %s", errname(errno));
		exit(1);
	}
}

void chan_send(struct chan *c, uint32_t v)
{
	if (write(c->fd[1], &v, sizeof(v)) != sizeof(v))
		acc_fail("chan_send: %s", errname(errno));
}

uint32_t chan_recv(struct chan *c)
{
	uint32_t v;
	ssize_t n;

	do {
		n = read(c->fd[0], &v, sizeof(v));
	} while (n < 0 && errno == EINTR);
	return n == sizeof(v) ? v : 0xffffffffU;
}

void peer_init(struct peer *p, const char *path, const char *tag)
{
	p->path = path;
	p->tag = tag;
	chan_init(&p->to);
	chan_init(&p->from);
}

uint32_t peer_ask(struct peer *p, uint32_t cmd)
{
	chan_send(&p->to, cmd);
	return chan_recv(&p->from);
}

/* Linux: the reference device's debugfs hook @hook, if it has one. */
static int raise_linux(const char *hook, uint32_t num, enum xqpv_event_type event)
{
	const char *slash = strrchr(g_dev, '/');
	char path[256], ibdev[64] = "", buf[64];
	FILE *f;
	int fd, n;

	snprintf(path, sizeof(path), "/sys/class/infiniband_verbs/%s/ibdev",
		 slash ? slash + 1 : g_dev);
	f = fopen(path, "r");
	if (!f)
		return ENOTTY;
	if (!fgets(ibdev, sizeof(ibdev), f))
		ibdev[0] = '\0';
	fclose(f);
	ibdev[strcspn(ibdev, "\n")] = '\0';
	snprintf(path, sizeof(path), "/sys/kernel/debug/xqp_refdev/%s/%s", ibdev, hook);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return ENOTTY;
	n = snprintf(buf, sizeof(buf), "%u %d\n", num, (int)event);
	n = write(fd, buf, (size_t)n) < 0 ? errno : 0;
	close(fd);
	return n;
}

int raise_event(struct xqpv_qp *qp, enum xqpv_event_type event)
{
	if (g_is_xqp)
		return xqpv_raise_qp_event(qp, event) ? errno : 0;
	return raise_linux("raise_qp_event", qp->qp_num, event);
}

int raise_cq_event(struct xqpv_cq *cq, struct xqpv_qp *qp, enum xqpv_event_type event)
{
	if (g_is_xqp)
		return xqpv_raise_cq_event(cq, event) ? errno : 0;
	return raise_linux("raise_cq_event", qp->qp_num, event);
}

int raise_srq_event(struct xqpv_srq *srq, enum xqpv_event_type event)
{
	if (g_is_xqp)
		return xqpv_raise_srq_event(srq, event) ? errno : 0;
	return raise_linux("raise_srq_event", srq->srq_num, event);
}

int get_event(struct xqpv_context *ctx, struct xqpv_async_event *ev, int ms)
{
	struct pollfd p = { .fd = ctx->async_fd, .events = POLLIN };
	int n;

	do {
		n = poll(&p, 1, ms);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno;
	if (n == 0)
		return ETIMEDOUT;
	return xqpv_get_async_event(ctx, ev) ? errno : 0;
}

long long fdinfo_value(int fd, const char *key)
{
	char path[64], line[128];
	long long v = -1;
	size_t n = strlen(key);
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, n) && line[n] == ':' &&
		    sscanf(line + n + 1, "%lld", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

/* ---- the runner ------------------------------------------------------------ */

struct result {
	int ran;
	int status;		/* exit code of the case process; -1 timeout */
	int nth_left;		/* fail-nth left at the case's exit; -1 unknown */
	char *tokens;		/* sorted, space separated */
	char *fails;		/* "; " separated */
	char *notes;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void append(char **dst, const char *sep, const char *s)
{
	size_t old = *dst ? strlen(*dst) : 0;
	char *n = realloc(*dst, old + strlen(sep) + strlen(s) + 1);

	if (!n)
		abort();
	if (old)
		strcpy(n + old, sep), strcat(n, s);
	else
		strcpy(n, s);
	*dst = n;
}

/* ---- fail-nth (-f) ------------------------------------------------------ */

static int g_nth_fd = -1;
static pid_t g_nth_pid;

/*
 * At the case process's exit (not its children's): what is left of fail-nth
 * (0: the failure happened), reported as "X N", after disarming.
 */
static void fail_nth_report(void)
{
	char buf[16];
	ssize_t n;

	if (getpid() != g_nth_pid || g_nth_fd < 0)
		return;
	n = pread(g_nth_fd, buf, sizeof(buf) - 1, 0);
	if (write(g_nth_fd, "0", 1) < 0)
		_exit(98);
	if (n <= 0)
		return;
	buf[n] = '\0';
	dprintf(g_result_fd, "X %d\n", atoi(buf));
}

/*
 * The file is opened before arming so that neither arming nor reading back
 * allocates: only the case body's allocations count.
 */
static void fail_nth_arm(unsigned int nth)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", nth);

	g_nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (g_nth_fd < 0) {
		dprintf(g_result_fd, "F cannot open /proc/thread-self/fail-nth: %s\n",
			errname(errno));
		exit(1);
	}
	g_nth_pid = getpid();
	if (atexit(fail_nth_report)) {
		dprintf(g_result_fd, "F atexit failed\n");
		exit(1);
	}
	if (write(g_nth_fd, buf, (size_t)len) != len) {
		dprintf(g_result_fd, "F cannot arm fail-nth: %s\n", errname(errno));
		exit(1);
	}
}

static void run_case(const struct acc_case *c, const char *dev, int is_xqp,
		     struct result *r)
{
	char *buf = NULL, **toks = NULL;
	size_t len = 0, cap = 0, ntok = 0;
	int p[2], st = 0, reaped = 0;
	time_t start = time(NULL), ended = 0;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->ran = 1;
	r->nth_left = -1;
	if (pipe(p)) {
		perror("pipe");
		exit(2);
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		setpgid(0, 0);
		g_result_fd = p[1];
		g_dev = dev;
		g_is_xqp = is_xqp;
		snprintf(g_case_tag, sizeof(g_case_tag), "%s-%d", c->name, getpid());
		alarm(120);
		if (g_fail_nth)
			fail_nth_arm(g_fail_nth);
		c->fn();
		exit(0);
	}
	close(p[1]);
	setpgid(pid, pid);
	for (;;) {
		struct pollfd pf = { .fd = p[0], .events = POLLIN };
		int n = poll(&pf, 1, 1000);

		if (n > 0) {
			char chunk[4096];
			ssize_t got = read(p[0], chunk, sizeof(chunk));

			if (got <= 0)
				break;
			if (len + (size_t)got + 1 > cap) {
				cap = (len + (size_t)got + 1) * 2;
				buf = realloc(buf, cap);
				if (!buf)
					abort();
			}
			memcpy(buf + len, chunk, (size_t)got);
			len += (size_t)got;
		}
		/*
		 * The case process is gone but its pipe is still open: helpers
		 * it forked outlived it (it died before telling them to go, as
		 * an injected failure can make it do). They get a grace period,
		 * then are killed: only one stuck in the kernel keeps the pipe
		 * open after that, and that is a hang.
		 */
		if (!reaped && waitpid(pid, &st, WNOHANG) == pid) {
			reaped = 1;
			ended = time(NULL);
		}
		if (reaped && ended && time(NULL) - ended > 5) {
			kill(-pid, SIGKILL);
			append(&r->notes, "\n    ", "helpers outlived the case process: killed");
			ended = 0;
		}
		if (time(NULL) - start > 150) {
			kill(-pid, SIGKILL);
			r->status = -1;
			break;
		}
	}
	close(p[0]);
	if ((reaped || waitpid(pid, &st, 0) == pid) && r->status != -1)
		r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	kill(-pid, SIGKILL);	/* stragglers of the case */

	if (buf) {
		buf[len] = '\0';
		for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
			if (line[0] == 'T' && line[1] == ' ') {
				toks = realloc(toks, sizeof(*toks) * (ntok + 1));
				toks[ntok++] = line + 2;
			} else if (line[0] == 'F') {
				append(&r->fails, "; ", line + 2);
			} else if (line[0] == 'N') {
				append(&r->notes, "\n    ", line + 2);
			} else if (line[0] == 'X') {
				r->nth_left = atoi(line + 2);
			}
		}
	}
	qsort(toks, ntok, sizeof(*toks), cmp_str);
	r->tokens = strdup("");
	for (size_t i = 0; i < ntok; i++)
		append(&r->tokens, " ", toks[i]);
	if (r->status == -1)
		append(&r->fails, "; ", "timed out");
	else if (r->status && !r->fails) {
		char msg[64];

		snprintf(msg, sizeof(msg), "case process exited with %d", r->status);
		append(&r->fails, "; ", msg);
	}
	free(toks);
	/* buf is referenced by nothing now (tokens were copied) */
	free(buf);
}

/* ---- the allocation-failure sweep (-f) --------------------------------- */

/* acc.h; -1 also for an older xqp_soft.ko or no debugfs */
long soft_count(const char *which, char *what, size_t n)
{
	long total = -1;
	size_t used = 0;

	if (what)
		what[0] = '\0';
	for (int d = 0; d < 8; d++) {
		char path[80], kind[32];
		unsigned long v;
		FILE *f;

		snprintf(path, sizeof(path), "/sys/kernel/debug/xqp_soft/xqp_soft%d/counts", d);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (total < 0)
			total = 0;
		while (fscanf(f, "%31s %lu", kind, &v) == 2) {
			if (which && strcmp(kind, which))
				continue;
			total += (long)v;
			if (v && what && used < n)
				used += (size_t)snprintf(what + used, n - used, "%sxqp_soft%d %s %lu",
							 used ? ", " : "", d, kind, v);
		}
		fclose(f);
	}
	return total;
}

long soft_objects(char *what, size_t n)
{
	return soft_count(NULL, what, n);
}

static void free_result(struct result *r)
{
	free(r->tokens);
	free(r->fails);
	free(r->notes);
}

/* fail-nth of the counting run: far more allocations than any case makes */
#define SWEEP_COUNT_NTH	(1u << 30)

/*
 * The allocations @c makes on its task, from a run armed at
 * SWEEP_COUNT_NTH (what is left of fail-nth tells); 0 if unknown.
 */
static unsigned int count_allocs(const struct acc_case *c, const char *dev)
{
	unsigned int total = 0;
	struct result r;

	g_fail_nth = SWEEP_COUNT_NTH;
	run_case(c, dev, 1, &r);
	g_fail_nth = 0;
	if (!r.fails && r.nth_left > 0)
		total = SWEEP_COUNT_NTH - (unsigned int)r.nth_left;
	free_result(&r);
	return total;
}

/*
 * One run of @c with fail-nth @nth: it must end (no hang) and leave nothing
 * in the soft devices; what is wrong goes to @bad. Returns 1 if the run
 * never reached its @nth allocation (the case was complete).
 */
static int armed_run(const struct acc_case *c, const char *dev, unsigned int nth, char *bad,
		     size_t n)
{
	char what[256];
	struct result r;
	int complete;

	g_fail_nth = nth;
	run_case(c, dev, 1, &r);
	g_fail_nth = 0;
	if (r.status == -1)
		snprintf(bad, n, "fail-nth %u: the case hung", nth);
	if (!bad[0] && soft_objects(what, sizeof(what)) > 0)
		snprintf(bad, n, "fail-nth %u: left in the device: %s", nth, what);
	complete = r.nth_left > 0;
	if (g_verbose)
		printf("    fail-nth %u: status %d%s%s%s%s\n", nth, r.status, r.fails ? "; the case said: " : "",
		       r.fails ? r.fails : "", r.notes ? "; notes:" : "", r.notes ? r.notes : "");
	free_result(&r);
	return complete;
}

/*
 * After armed runs (@after says which): none went wrong (@bad empty) and
 * @c passes unarmed. Prints the FAIL line; returns 1 if all is well.
 */
static int passes_after(const struct acc_case *c, const char *dev, const char *bad,
			const char *after)
{
	struct result r;
	int ok;

	if (bad[0]) {
		printf("FAIL %s: %s\n", c->name, bad);
		return 0;
	}
	run_case(c, dev, 1, &r);
	ok = !r.fails;
	if (!ok)
		printf("FAIL %s: after %s the case fails unarmed: %s\n", c->name, after, r.fails);
	free_result(&r);
	return ok;
}

/*
 * Sweeps @c on @dev: fail-nth 1, 1 + S, 1 + 2S, ... (S from the counting
 * run, 1 when the case makes at most @max allocations) until a run does
 * not reach its N-th allocation or @max runs. Returns 1 if the case passes
 * the sweep.
 */
static int sweep_case(const struct acc_case *c, const char *dev, unsigned int max)
{
	unsigned int nth, runs, points = 0, complete = 0, total, stride = 1;
	char bad[384] = "", how[64] = "", after[48];

	total = count_allocs(c, dev);
	if (total > max && max > 1) {	/* the last run goes past the end */
		stride = total / (max - 1) + 1;
		snprintf(how, sizeof(how), " of %u allocations, every %u", total, stride);
	}
	for (nth = 1, runs = 0; runs < max && !bad[0] && !complete; nth += stride, runs++) {
		complete = armed_run(c, dev, nth, bad, sizeof(bad));
		points += !complete;
	}
	snprintf(after, sizeof(after), "%u failure points", points);
	if (!passes_after(c, dev, bad, after))
		return 0;
	printf("PASS %s (%u failure points%s%s; then passes unarmed)\n", c->name, points, how,
	       complete ? (stride > 1 ? ", to the end" : ", every one") :
	       stride > 1 ? ", the end not reached (more allocations than counted)" :
	       ", the first ones only (-f)");
	return 1;
}

/*
 * -F A-B: the runs of fail-nth @first to @last, stride 1, until one does
 * not reach its N-th allocation (the case's end). Returns 1 if the case
 * passes them and then passes unarmed.
 */
static int range_case(const struct acc_case *c, const char *dev, unsigned int first,
		      unsigned int last)
{
	unsigned int nth, points = 0, end = 0;
	char bad[384] = "", after[48];

	for (nth = first; nth <= last && !bad[0] && !end; nth++) {
		if (armed_run(c, dev, nth, bad, sizeof(bad)))
			end = nth;
		else
			points++;
	}
	snprintf(after, sizeof(after), "fail-nth %u-%u", first, last);
	if (!passes_after(c, dev, bad, after))
		return 0;
	if (end)
		printf("PASS %s (fail-nth %u-%u: %u failure points, end %u; then passes unarmed)\n",
		       c->name, first, last, points, end);
	else
		printf("PASS %s (fail-nth %u-%u: %u failure points; then passes unarmed)\n",
		       c->name, first, last, points);
	return 1;
}

/* -n N: one armed run, judged as the sweep judges one. */
static int nth_case(const struct acc_case *c, const char *dev, unsigned int nth)
{
	char bad[384] = "";
	int complete = armed_run(c, dev, nth, bad, sizeof(bad));

	if (bad[0]) {
		printf("FAIL %s: %s\n", c->name, bad);
		return 0;
	}
	printf("PASS %s (fail-nth %u: %s)\n", c->name, nth,
	       complete ? "not reached" : "failed, no hang, nothing left");
	return 1;
}

/* First token that differs, for the report. */
static void diff_tokens(const char *a, const char *b, char *out, size_t n)
{
	char *x = strdup(a), *y = strdup(b), *sx, *sy;
	char *ta = strtok_r(x, " ", &sx), *tb = strtok_r(y, " ", &sy);

	while (ta && tb && !strcmp(ta, tb)) {
		ta = strtok_r(NULL, " ", &sx);
		tb = strtok_r(NULL, " ", &sy);
	}
	snprintf(out, n, "xqp %s vs linux %s", ta ? ta : "(end)", tb ? tb : "(end)");
	free(x);
	free(y);
}

int main(int argc, char **argv)
{
	const struct acc_case *all[] = {
		acc_cases_abi, acc_cases_objects, acc_cases_xrcd, acc_cases_shared,
		acc_cases_events, acc_cases_stress, acc_cases_traffic, acc_cases_errors,
		acc_cases_channel, acc_cases_raw, acc_cases_refusals,
		acc_cases_removal,
	};
	const char *only[64];
	int nonly = 0, removal = 0, list = 0, opt;
	unsigned int sweep = 0, one_nth = 0, first = 0, last = 0;
	int passed = 0, failed = 0;
	const char *xdev, *ldev = NULL;

	while ((opt = getopt(argc, argv, "vc:r:lf:F:n:")) != -1) {
		switch (opt) {
		case 'v':
			g_verbose = 1;
			break;
		case 'c':
			if (nonly < 64)
				only[nonly++] = optarg;
			break;
		case 'r':
			removal = 1;
			g_soft_module = optarg;
			break;
		case 'l':
			list = 1;
			break;
		case 'f':
			sweep = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		case 'F':
			if (sscanf(optarg, "%u-%u", &first, &last) != 2 || !first || last < first) {
				fprintf(stderr, "%s: -F takes A-B, 1 <= A <= B\n", argv[0]);
				return 2;
			}
			break;
		case 'n':
			one_nth = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		default:
			fprintf(stderr, "usage: %s [-v] [-l] [-c CASE] [-r MODULE] [-f MAX | -F A-B | -n N] XQP_DEV [LINUX_DEV]\n",
				argv[0]);
			return 2;
		}
	}
	if (!list && optind >= argc) {
		fprintf(stderr, "usage: %s [-v] [-l] [-c CASE] [-r MODULE] [-f MAX | -F A-B | -n N] XQP_DEV [LINUX_DEV]\n",
			argv[0]);
		return 2;
	}
	xdev = list ? "" : argv[optind];
	if (!list && optind + 1 < argc && access(argv[optind + 1], F_OK) == 0)
		ldev = argv[optind + 1];
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	if (!list && (one_nth || sweep || first) && fault_knobs_set()) {
		printf("FAIL fault_knobs: cannot set %s's knobs: %s\n", FAULT_KNOBS_DIR "failslab",
		       errname(errno));
		return 1;
	}

	for (size_t t = 0; t < sizeof(all) / sizeof(all[0]); t++) {
		for (const struct acc_case *c = all[t]; c->name; c++) {
			struct result rx, rl = { 0 };
			int want = 1;

			if (!!(c->flags & ACC_REMOVAL) != removal)
				continue;
			if (nonly) {
				want = 0;
				for (int i = 0; i < nonly; i++)
					want |= !strcmp(only[i], c->name);
			}
			if (!want)
				continue;
			if (list) {
				printf("%s%s%s\n", c->name,
				       c->flags & ACC_XQP_ONLY ? " [xqp only]" : "",
				       c->divergence ? " [divergence]" : "");
				continue;
			}
			if (one_nth || sweep || first) {
				if (first ? range_case(c, xdev, first, last) :
				    one_nth ? nth_case(c, xdev, one_nth) : sweep_case(c, xdev, sweep))
					passed++;
				else
					failed++;
				continue;
			}
			run_case(c, xdev, 1, &rx);
			if (ldev && !(c->flags & (ACC_XQP_ONLY | ACC_REMOVAL)))
				run_case(c, ldev, 0, &rl);

			if (rx.fails) {
				printf("FAIL %s: %s\n", c->name, rx.fails);
				failed++;
			} else if (!rl.ran) {
				printf("PASS %s (%s)\n", c->name,
				       c->flags & (ACC_XQP_ONLY | ACC_REMOVAL) ? "xqp only" :
				       "no linux device");
				passed++;
			} else if (strstr(rl.tokens, "SKIP=")) {
				const char *why = strstr(rl.tokens, "SKIP=") + 5;

				printf("PASS %s (xqp only: %.*s)\n", c->name,
				       (int)strcspn(why, " "), why);
				passed++;
			} else if (!strcmp(rx.tokens, rl.tokens) && rl.status != -1) {
				printf("PASS %s (same as linux)\n", c->name);
				passed++;
			} else if (c->divergence) {
				printf("PASS %s (listed divergence: %s)\n", c->name, c->divergence);
				passed++;
			} else {
				char d[256];

				diff_tokens(rx.tokens, rl.tokens, d, sizeof(d));
				printf("FAIL %s: differs from linux: %s%s%s\n", c->name, d,
				       rl.fails ? "; linux: " : "", rl.fails ? rl.fails : "");
				failed++;
			}
			if (g_verbose) {
				printf("    xqp:   %s\n", rx.tokens);
				if (rl.ran)
					printf("    linux: %s%s%s\n", rl.tokens,
					       rl.fails ? "  [expectations: " : "",
					       rl.fails ? rl.fails : "");
				if (rx.notes)
					printf("    %s\n", rx.notes);
			}
		}
	}
	if (!list)
		printf("# xqp-acceptance: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
