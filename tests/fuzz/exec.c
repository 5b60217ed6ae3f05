// SPDX-License-Identifier: GPL-2.0
/*
 * The executor: runs one program against /dev/xqp/uverbsN.
 *
 * Processes: the manager starts one fork server (before it holds a corpus,
 * so it stays small); for every program the fork server forks a fresh
 * executor, actor 0, which runs the program and exits; nothing of one
 * program's process state reaches the next. Actors 1..3 are forked from
 * actor 0 by FZ_FORK (so they inherit its files, which they may not write:
 * EACCES, and open their own; one FZ_FORK in four drops the new actor to
 * uid 65534, so the unprivileged paths run too) and run their ops in
 * lock-step, sent over a pipe. QP and SRQ numbers and MR keys, with the
 * device, PD and XRC domain they belong to, go to a shared page, so any
 * actor can name another's objects. FZ_RACE runs the next two ops of actor
 * 0 at once, in two threads.
 *
 * The data path: FZ_SETUP builds a PD, a CQ, an MR and a pair of QPs of one
 * type (RC, UC, UD with address handles, XRC INI -> XRC TGT with an XRC
 * SRQ, RC on an SRQ, RC across files and devices), brings both to RTS
 * pointed at each other and posts receives; FZ_CONNECT does the MODIFY_QP
 * sequence for two QPs of earlier responses. POST_SEND, POST_RECV and
 * POST_SRQ_RECV build their SGEs inside an MR of the QP's PD (a byte picks
 * the MR, another the offsets and lengths; a few values go past its end,
 * before it or use a bad key) and RDMA and atomics address a published MR of
 * the peer's device and PD, so that work requests execute and complete, well
 * or with the errors a byte asks for.
 *
 * Time: the fork server and the executors account each phase and each op
 * kind in the shared page (fz_prof_report()).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <rdma/ib_user_verbs.h>

#include "../lib/fault_knobs.h"
#include "fuzz.h"
#include "xqp_uverbs.h"
#include "xqp_res.h"

/* enum ib_qp_type values (uverbs passes them as they are) */
enum { QPT_RC = 2, QPT_UC = 3, QPT_UD = 4, QPT_XRC_INI = 9, QPT_XRC_TGT = 10 };
/* enum ib_qp_attr_mask */
enum {
	M_STATE = 1, M_SQD_NOTIFY = 1 << 2, M_ACCESS = 1 << 3, M_PKEY = 1 << 4, M_PORT = 1 << 5, M_QKEY = 1 << 6,
	M_AV = 1 << 7, M_MTU = 1 << 8, M_TIMEOUT = 1 << 9, M_RETRY = 1 << 10,
	M_RNR_RETRY = 1 << 11, M_RQ_PSN = 1 << 12, M_RD_ATOMIC = 1 << 13,
	M_MIN_RNR = 1 << 15, M_SQ_PSN = 1 << 16, M_DEST_RD_ATOMIC = 1 << 17,
	M_DEST_QPN = 1 << 20,
};
enum { QPS_RESET, QPS_INIT, QPS_RTR, QPS_RTS, QPS_SQD };
/* enum ib_send_flags */
enum { SEND_FENCE = 1, SEND_SIGNALED = 2, SEND_SOLICITED = 4, SEND_INLINE = 8 };
#define QKEY_A	0x11111111u
#define QKEY_B	0x22222222u

enum { T_PD, T_CQ, T_QP, T_SRQ, T_XRCD, T_MR, T_AH, NT };
#define MAX_OBJ	12
#define MAX_COMP 4
#define BUF_PAGES 16
#define NPUB	32
#define NO_HANDLE 0xffffffffu

/*
 * What this file knows of an object. PDs and XRC domains get an id that is
 * unique in the program (an XRCD shared through an inode: the same id in
 * every file of that device), so that objects of the same PD or domain can
 * be found across files and actors.
 */
struct obj {
	uint32_t handle, num, lkey, rkey;
	uint64_t addr, va;		/* MR: its iova and its address here */
	uint32_t len;			/* MR: length */
	uint16_t id;			/* PD, XRCD: the program-wide id */
	uint16_t pd, xrcd;		/* the ids of the PD / XRCD it belongs to */
	uint32_t pd_h;			/* QP: its PD's handle in this file */
	uint8_t qp_type, xrc, dev;
	uint8_t send_sge, recv_sge, inline_ok;
	/* a QP that FZ_CONNECT or FZ_SETUP pointed at a peer */
	uint8_t connected, peer_dev, has_ah;
	uint16_t peer_pd, peer_xrcd;
	uint32_t peer_qpn, peer_ah;
};

struct ufile {
	int fd, async_fd, dev, ctx;
	int n[NT];
	struct obj o[NT][MAX_OBJ];
	int comp[MAX_COMP], ncomp;
};

struct actor {
	struct ufile f[FZ_FILES];
	int xrcd_fd[2];
	int nl_fd;		/* generic netlink socket, or -1 */
};

/* published for every actor of the program */
struct pub_qp { uint32_t qpn; uint16_t pd, xrcd; uint8_t type, dev; };
struct pub_mr { uint32_t rkey, len; uint64_t addr; uint16_t pd; uint8_t dev; };
struct pub_srq { uint32_t srqn; uint16_t pd, xrcd; uint8_t dev, xrc; };
struct prof { uint64_t ns, n; };

struct fz_shared {
	/* ---- per program: zeroed before each (up to `commands`) ---- */
	struct pub_qp qp[NPUB];
	struct pub_srq srq[NPUB];
	struct pub_mr mr[16];
	uint32_t nqp, nsrq, nmr;
	uint32_t next_id;	/* PD and private XRCD ids */
	uint32_t injected;	/* an FZ_INJECT ran: disarm after the program */
	uint32_t hotplugged;	/* an FZ_HOTPLUG ran: the device back after it */
	int32_t actor_pid[FZ_ACTORS];
	double t_fork, t_done;
	/* ---- for the whole run ---- */
	long commands;
};

/* the time accounts of every process, all procs together */
struct fz_prof_page {
	struct prof phase[FZ_PHASES], kind[FZ_OP_COUNT];
};

/*
 * A proc: one fork server and the programs it runs, one at a time, with its
 * own shared page, MR buffer, KCOV buffers and XRC domain files, so that
 * `procs` programs can run at once (the guest has 2 CPUs).
 */
struct proc {
	pid_t pid;		/* its fork server; 0: not started */
	int in, out;
	struct fz_shared *shared;
	uint8_t *mrbuf;
	double t_start;
	long before;		/* its commands when the program was submitted */
	int busy;
};

static struct proc procs[FZ_MAX_PROCS];
static int nprocs = 1;
static int proc_index;		/* in a fork server and its processes */
static struct fz_prof_page *prof;
static struct fz_shared *shared;	/* in a fork server: its proc's */
static uint8_t *mrbuf;		/* BUF_PAGES pages, same address in every actor */
static __thread int fail_nth_fd = -1;
static int nl_family;		/* the xqp_res family's id; 0: not registered */
int fz_verbose;
static const struct fz_op clean_op;	/* the sub-commands of composite ops */

/* ---- time ---------------------------------------------------------------- */

double fz_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void prof_add(struct prof *p, double since)
{
	double d = fz_now() - since;

	__atomic_add_fetch(&p->ns, (uint64_t)(d > 0 ? d * 1e9 : 0), __ATOMIC_RELAXED);
	__atomic_add_fetch(&p->n, 1, __ATOMIC_RELAXED);
}

void fz_prof(int phase, double since)
{
	if (prof && phase >= 0 && phase < FZ_PHASES)
		prof_add(&prof->phase[phase], since);
}

void fz_prof_report(void)
{
	static const char *const names[FZ_PHASES] = {
		"generate", "exec", "collect", "kmsg", "output", "fork", "ops", "teardown", "reap",
	};
	char line[192];
	int i, k;

	if (!prof)
		return;
	for (i = 0; i < FZ_PHASES; i++) {
		const struct prof *p = &prof->phase[i];

		k = snprintf(line, sizeof(line), "FUZZ-PROF phase %s seconds=%.2f calls=%llu mean_us=%.0f\n",
			     names[i], p->ns / 1e9, (unsigned long long)p->n,
			     p->n ? p->ns / 1e3 / p->n : 0.0);
		(void)!write(1, line, (size_t)k);
	}
	for (i = 0; i < FZ_OP_COUNT; i++) {
		const struct prof *p = &prof->kind[i];

		if (!p->n)
			continue;
		k = snprintf(line, sizeof(line), "FUZZ-PROF op %s seconds=%.2f calls=%llu mean_us=%.0f\n",
			     fz_kind_name[i], p->ns / 1e9, (unsigned long long)p->n,
			     p->ns / 1e3 / p->n);
		(void)!write(1, line, (size_t)k);
	}
}

static void count(void)
{
	__atomic_add_fetch(&shared->commands, 1, __ATOMIC_RELAXED);
}

/*
 * A write() of header + body; 0 or the errno. A header that claims more
 * response words than the caller's response holds makes the device write
 * (and zero, as Linux does) that many bytes: the response then goes to a
 * scratch buffer that big, and the caller's part is copied back, so the
 * fuzzer's own stack is never what the kernel overwrites.
 */
static int cmd(int fd, uint32_t command, void *body, size_t len, uint32_t out_words,
	       const struct fz_op *op)
{
	static __thread uint64_t scratch[256 / 2 + 1];	/* 255 words and more */
	uint8_t buf[8 + 1024];
	struct ib_uverbs_cmd_hdr hdr = {
		.command = command, .in_words = (uint16_t)((8 + len) / 4),
		.out_words = (uint16_t)out_words,
	};
	size_t total = 8 + len;
	int failing = (op->file & 0x80) && fail_nth_fd >= 0, ret;
	uint64_t resp = 0;	/* the caller's response, when redirected */

	if (len > 1024)
		return E2BIG;
	/* now and then a header or a body byte goes wrong */
	if (op->a[12] >= 0xf8) {
		switch (op->a[12] & 3) {
		case 0: hdr.in_words = (uint16_t)(hdr.in_words + 1 - (op->a[11] & 3)); break;
		case 1:
			hdr.out_words = op->a[11];
			/*
			 * Every command with a response has its address first.
			 * One below the lowest page a process can map (an op's
			 * deliberate EFAULT: 8, 16) stays: the kernel refuses
			 * it and writes nothing, and nothing is copied back.
			 */
			if (hdr.out_words > out_words && out_words && len >= 8) {
				memcpy(&resp, body, 8);
				if (resp < 4096)
					resp = 0;
				else
					memset(scratch, 0, sizeof(scratch));
			}
			break;
		case 2: hdr.command |= (uint32_t)op->a[11] << 24; break;
		default: total = 8 + (len ? op->a[11] % len : 0); break;
		}
	}
	memcpy(buf, &hdr, sizeof(hdr));
	memcpy(buf + 8, body, len);
	if (resp) {
		uint64_t to = (uintptr_t)scratch;

		memcpy(buf + 8, &to, 8);
	}
	/*
	 * A body bit flipped, never in the response address of a command that
	 * has a response: the device would write it into the fuzzer's stack.
	 */
	if (op->a[12] >= 0xf0 && op->a[12] < 0xf8 && len > 8 * !!out_words) {
		size_t skip = out_words ? 8 : 0;

		buf[8 + skip + op->a[11] % (len - skip)] ^= (uint8_t)(1u << (op->a[10] & 7));
	}
	if (failing) {
		char n[8];
		int k = snprintf(n, sizeof(n), "%u", 1 + op->a[9] % 8u);

		if (pwrite(fail_nth_fd, n, (size_t)k, 0) < 0)
			failing = 0;
	}
	count();
	ret = write(fd, buf, total) < 0 ? errno : 0;
	if (failing)
		(void)!pwrite(fail_nth_fd, "0", 1, 0);
	if (resp)
		memcpy((void *)(uintptr_t)resp, scratch, (size_t)out_words * 4);
	return ret;
}

/* ---- argument resolution -------------------------------------------------- */

static uint32_t handle_of(struct ufile *f, int t, uint8_t b)
{
	if (b >= 0xf8)
		return b == 0xff ? 0xffffffffu : (uint32_t)(b - 0xf8) * 3;
	if (!f->n[t])
		return b % 4;
	return f->o[t][b % f->n[t]].handle;
}

static struct obj *obj_of(struct ufile *f, int t, uint8_t b)
{
	return f->n[t] ? &f->o[t][b % f->n[t]] : NULL;
}

/* the object a handle_of() byte names, when it names one of this file's */
static struct obj *named(struct ufile *f, int t, uint8_t b)
{
	return b < 0xf8 ? obj_of(f, t, b) : NULL;
}

static struct obj *add_obj(struct ufile *f, int t, struct obj o)
{
	struct obj *slot;

	if (f->n[t] < MAX_OBJ)
		slot = &f->o[t][f->n[t]++];
	else
		slot = &f->o[t][o.handle % MAX_OBJ];
	*slot = o;
	return slot;
}

static void remove_handle(struct ufile *f, int t, uint32_t h)
{
	int i;

	for (i = 0; i < f->n[t]; i++) {
		if (f->o[t][i].handle == h) {
			f->o[t][i] = f->o[t][--f->n[t]];
			return;
		}
	}
}

static uint16_t new_id(void)
{
	return (uint16_t)(1 + __atomic_fetch_add(&shared->next_id, 1, __ATOMIC_RELAXED) % 0x7fff);
}

static uint32_t npub(const uint32_t *n)
{
	uint32_t v = __atomic_load_n(n, __ATOMIC_RELAXED);

	return v < NPUB ? v : NPUB;
}

static uint32_t pub_qpn(uint8_t b)
{
	uint32_t n = npub(&shared->nqp);

	if (b >= 0xf0 || !n)
		return b >= 0xf0 ? (uint32_t)b << 16 : b;
	return shared->qp[b % n].qpn;
}

static uint32_t pub_srqn(uint8_t b)
{
	uint32_t n = npub(&shared->nsrq);

	if (b >= 0xf0 || !n)
		return b;
	return shared->srq[b % n].srqn;
}

/* the b-th published XRC SRQ of @xrcd on @dev, else any published SRQ */
static uint32_t pub_xsrqn(uint8_t b, uint16_t xrcd, uint8_t dev)
{
	uint32_t n = npub(&shared->nsrq), i, k = 0, cand[NPUB];

	for (i = 0; i < n && b < 0xf0; i++)
		if (shared->srq[i].xrc && shared->srq[i].xrcd == xrcd && shared->srq[i].dev == dev)
			cand[k++] = shared->srq[i].srqn;
	return k ? cand[b % k] : pub_srqn(b);
}

/* the b-th published MR of @pd on @dev, else of @dev, else any; NULL: none */
static const struct pub_mr *pub_mr_of(uint8_t b, uint16_t pd, uint8_t dev)
{
	uint32_t n = __atomic_load_n(&shared->nmr, __ATOMIC_RELAXED), i, k = 0, pass;
	const struct pub_mr *cand[16];

	if (n > 16)
		n = 16;
	for (pass = b >= 0xe0 ? 2 : 0; pass < 3 && !k; pass++)
		for (i = 0; i < n; i++)
			if ((pass > 1 || shared->mr[i].dev == dev) &&
			    (pass > 0 || shared->mr[i].pd == pd))
				cand[k++] = &shared->mr[i];
	return k ? cand[b % k] : NULL;
}

static void publish_qp(const struct obj *qp)
{
	uint32_t i = __atomic_fetch_add(&shared->nqp, 1, __ATOMIC_RELAXED) % NPUB;

	shared->qp[i] = (struct pub_qp){ .qpn = qp->num, .pd = qp->pd, .xrcd = qp->xrcd,
					 .type = qp->qp_type, .dev = qp->dev };
}

static uint32_t pick_u32(uint8_t b, const uint32_t *vals, int nvals)
{
	return b < 0xf0 ? vals[b % nvals] : (uint32_t)b * 0x01010101u;
}

static void reset_file(struct ufile *f)
{
	memset(f, 0, sizeof(*f));
	f->fd = f->async_fd = -1;
}

static void close_file(struct ufile *f, int aux_too)
{
	int i;

	if (f->fd >= 0)
		close(f->fd);
	if (aux_too) {
		if (f->async_fd >= 0)
			close(f->async_fd);
		for (i = 0; i < f->ncomp; i++)
			close(f->comp[i]);
	}
	reset_file(f);
}

static void nonblock(int fd)
{
	if (fd >= 0)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* the two files whose inodes the XRC domains of a proc's programs share */
static int xrcd_file(struct actor *ac, int i)
{
	char path[64];

	if (ac->xrcd_fd[i] <= 0) {
		snprintf(path, sizeof(path), "/tmp/xqp-fuzz-xrcd-%c%.0d", 'a' + i, proc_index);
		ac->xrcd_fd[i] = open(path, O_RDONLY | O_CREAT | O_CLOEXEC, 0644);
	}
	return ac->xrcd_fd[i];
}

/* ---- creating objects (the plain ops and FZ_SETUP) ------------------------ */

static int open_file(struct ufile *f, int dev)
{
	char path[32];

	snprintf(path, sizeof(path), "/dev/xqp/uverbs%d", dev);
	f->fd = open(path, O_RDWR | O_CLOEXEC);
	f->dev = dev;
	count();
	return f->fd < 0 ? errno : 0;
}

static int get_context(struct ufile *f, const struct fz_op *op)
{
	struct ib_uverbs_get_context_resp r;
	struct ib_uverbs_get_context g = { .response = (uintptr_t)&r };
	int err = cmd(f->fd, IB_USER_VERBS_CMD_GET_CONTEXT, &g, sizeof(g), sizeof(r) / 4, op);

	if (!err) {
		if (f->async_fd >= 0)
			close(f->async_fd);
		f->async_fd = (int)r.async_fd;
		f->ctx = 1;
		nonblock(f->async_fd);
	}
	return err;
}

/* ALLOC_PD; a non-zero @response is where the response goes (a bad address) */
static struct obj *alloc_pd(struct ufile *f, const struct fz_op *op, uint64_t response,
			    int *err)
{
	struct ib_uverbs_alloc_pd_resp r;
	struct ib_uverbs_alloc_pd c = { .response = response ? response : (uintptr_t)&r };

	*err = cmd(f->fd, IB_USER_VERBS_CMD_ALLOC_PD, &c, sizeof(c), sizeof(r) / 4, op);
	if (*err || response)
		return NULL;
	return add_obj(f, T_PD, (struct obj){ .handle = r.pd_handle, .id = new_id(),
					      .dev = (uint8_t)f->dev });
}

static struct obj *create_cq(struct ufile *f, const struct fz_op *op, uint64_t user_handle,
			     int cqe, int vector, int channel, int *err)
{
	struct ib_uverbs_create_cq_resp r;
	struct ib_uverbs_create_cq c;

	memset(&c, 0, sizeof(c));
	c.response = (uintptr_t)&r;
	c.user_handle = user_handle;
	c.cqe = (uint32_t)cqe;
	c.comp_vector = (uint32_t)vector;
	c.comp_channel = channel;
	*err = cmd(f->fd, IB_USER_VERBS_CMD_CREATE_CQ, &c, sizeof(c), sizeof(r) / 4, op);
	return *err ? NULL : add_obj(f, T_CQ, (struct obj){ .handle = r.cq_handle });
}

static int create_channel(struct ufile *f, const struct fz_op *op)
{
	struct ib_uverbs_create_comp_channel_resp r;
	struct ib_uverbs_create_comp_channel c = { .response = (uintptr_t)&r };
	int err = cmd(f->fd, IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL, &c, sizeof(c),
		      sizeof(r) / 4, op);

	if (err)
		return -1;
	nonblock((int)r.fd);
	if (f->ncomp < MAX_COMP) {
		f->comp[f->ncomp++] = (int)r.fd;
		return (int)r.fd;
	}
	close((int)r.fd);
	return -1;
}

/* REG_MR of [start, start + length) at iova @iova in PD @pd (NULL: @pd_h as is) */
static struct obj *reg_mr_at(struct ufile *f, const struct fz_op *op, struct obj *pd,
			     uint32_t pd_h, uint64_t start, uint64_t length, uint64_t iova,
			     uint32_t access, int *err)
{
	struct ib_uverbs_reg_mr_resp r;
	struct ib_uverbs_reg_mr m;
	struct obj *mr;
	uint32_t i;

	memset(&m, 0, sizeof(m));
	m.response = (uintptr_t)&r;
	m.start = start;
	m.length = length;
	m.hca_va = iova;
	m.pd_handle = pd ? pd->handle : pd_h;
	m.access_flags = access;
	*err = cmd(f->fd, IB_USER_VERBS_CMD_REG_MR, &m, sizeof(m), sizeof(r) / 4, op);
	if (*err)
		return NULL;
	mr = add_obj(f, T_MR, (struct obj){ .handle = r.mr_handle, .lkey = r.lkey, .rkey = r.rkey,
					    .addr = iova, .va = start, .len = (uint32_t)length,
					    .pd = pd ? pd->id : 0, .dev = (uint8_t)f->dev });
	i = __atomic_fetch_add(&shared->nmr, 1, __ATOMIC_RELAXED) % 16;
	shared->mr[i] = (struct pub_mr){ .rkey = r.rkey, .len = (uint32_t)length, .addr = iova,
					 .pd = mr->pd, .dev = (uint8_t)f->dev };
	return mr;
}

/* CREATE_QP as given; the object knows its PD or XRCD, device and caps */
static struct obj *create_qp_as(struct ufile *f, const struct fz_op *op,
				struct ib_uverbs_create_qp *c, const struct obj *pd_or_xrcd,
				int *err)
{
	struct ib_uverbs_create_qp_resp r;
	struct obj o = { .qp_type = c->qp_type, .dev = (uint8_t)f->dev, .pd_h = c->pd_handle };
	struct obj *qp;

	c->response = (uintptr_t)&r;
	*err = cmd(f->fd, IB_USER_VERBS_CMD_CREATE_QP, c, sizeof(*c), sizeof(r) / 4, op);
	if (*err)
		return NULL;
	o.handle = r.qp_handle;
	o.num = r.qpn;
	o.send_sge = (uint8_t)(r.max_send_sge < 255 ? r.max_send_sge : 255);
	o.recv_sge = (uint8_t)(r.max_recv_sge < 255 ? r.max_recv_sge : 255);
	o.inline_ok = r.max_inline_data > 0;
	if (pd_or_xrcd) {
		if (c->qp_type == QPT_XRC_TGT)
			o.xrcd = pd_or_xrcd->id;
		else
			o.pd = pd_or_xrcd->id;
	}
	qp = add_obj(f, T_QP, o);
	publish_qp(qp);
	return qp;
}

static struct obj *create_xsrq(struct ufile *f, const struct fz_op *op,
			       struct ib_uverbs_create_xsrq *c, const struct obj *pd,
			       const struct obj *xrcd, int *err)
{
	struct ib_uverbs_create_srq_resp r;
	struct obj *srq;

	c->response = (uintptr_t)&r;
	*err = cmd(f->fd, IB_USER_VERBS_CMD_CREATE_XSRQ, c, sizeof(*c), sizeof(r) / 4, op);
	if (*err)
		return NULL;
	srq = add_obj(f, T_SRQ, (struct obj){ .handle = r.srq_handle, .num = r.srqn,
					      .pd = pd ? pd->id : 0,
					      .xrcd = c->srq_type == 1 && xrcd ? xrcd->id : 0,
					      .xrc = c->srq_type == 1, .dev = (uint8_t)f->dev,
					      .recv_sge = (uint8_t)c->max_sge });
	if (r.srqn) {
		uint32_t i = __atomic_fetch_add(&shared->nsrq, 1, __ATOMIC_RELAXED) % NPUB;

		shared->srq[i] = (struct pub_srq){ .srqn = r.srqn, .pd = srq->pd,
						   .xrcd = srq->xrcd, .dev = srq->dev,
						   .xrc = srq->xrc };
	}
	return srq;
}

/*
 * OPEN_XRCD: @which 0 and 1 are the two shared inodes (the same domain in
 * every file of this device: a fixed id), 2 a private domain (fd -1).
 */
static struct obj *open_xrcd(struct actor *ac, struct ufile *f, const struct fz_op *op,
			     int which, uint32_t oflags, int *err)
{
	struct ib_uverbs_open_xrcd_resp r;
	struct ib_uverbs_open_xrcd c = { .response = (uintptr_t)&r };

	c.fd = which == 2 ? 0xffffffffu : (uint32_t)xrcd_file(ac, which);
	c.oflags = oflags;
	*err = cmd(f->fd, IB_USER_VERBS_CMD_OPEN_XRCD, &c, sizeof(c), sizeof(r) / 4, op);
	if (*err)
		return NULL;
	return add_obj(f, T_XRCD, (struct obj){
		.handle = r.xrcd_handle, .dev = (uint8_t)f->dev,
		.id = which == 2 ? new_id() : (uint16_t)(0x8000 | f->dev << 1 | which) });
}

static struct obj *create_ah(struct ufile *f, const struct fz_op *op, const struct obj *pd,
			     uint32_t pd_h, int port, int dlid, int global, int sl,
			     int hop_limit, int *err)
{
	struct ib_uverbs_create_ah_resp r;
	struct ib_uverbs_create_ah c;

	memset(&c, 0, sizeof(c));
	c.response = (uintptr_t)&r;
	c.pd_handle = pd ? pd->handle : pd_h;
	c.attr.port_num = (uint8_t)port;
	c.attr.dlid = (uint16_t)dlid;
	c.attr.is_global = (uint8_t)global;
	c.attr.sl = (uint8_t)sl;
	c.attr.grh.hop_limit = (uint8_t)hop_limit;
	*err = cmd(f->fd, IB_USER_VERBS_CMD_CREATE_AH, &c, sizeof(c), sizeof(r) / 4, op);
	return *err ? NULL : add_obj(f, T_AH, (struct obj){ .handle = r.ah_handle,
							    .pd = pd ? pd->id : 0,
							    .num = (uint32_t)dlid });
}

/* ---- work requests -------------------------------------------------------- */

/* the MR of @pd the byte names (one of this file's MRs if none; NULL: none) */
static struct obj *mr_of_pd(struct ufile *f, uint16_t pd, uint8_t b)
{
	struct obj *cand[MAX_OBJ];
	int i, k = 0;

	for (i = 0; i < f->n[T_MR] && b < 0xe0; i++)
		if (f->o[T_MR][i].pd == pd)
			cand[k++] = &f->o[T_MR][i];
	return k ? cand[b % k] : obj_of(f, T_MR, b);
}

static const uint32_t seg_len[8] = { 64, 8, 512, 1, 4096, 16, 256, 0 };

/*
 * @n SGEs, consecutive pieces of one MR of @pd: @sel picks the MR, @shape
 * the piece length and where the first starts (@slot moves it on, one slot
 * per WR). A @shape of 0xf8 and up breaks the last SGE: past the MR's end,
 * before its start, a wrong key, an absurd length. Inline data (@inl) is
 * addressed in this process's memory. Returns the bytes described.
 */
static uint32_t build_sges(struct ufile *f, uint16_t pd, uint8_t sel, uint8_t shape,
			   int slot, int inl, struct ib_uverbs_sge *s, int n)
{
	struct obj *mr = mr_of_pd(f, pd, sel);
	uint64_t base = mr ? (inl ? mr->va : mr->addr) : (uintptr_t)mrbuf;
	uint32_t mlen = mr ? mr->len : BUF_PAGES * 4096u;
	uint32_t len = seg_len[shape % 8], off, total = 0;
	int i;

	if (mlen > BUF_PAGES * 4096u)
		mlen = BUF_PAGES * 4096u;	/* an MR beyond the buffer (never valid) */
	off = (((shape >> 3) % 8) * 512u + (uint32_t)slot * 1024u) % (mlen ? mlen : 1);
	for (i = 0; i < n; i++) {
		if (off >= mlen)
			off = 0;
		if (len > mlen - off)
			len = mlen - off;
		s[i].addr = base + off;
		s[i].length = len;
		s[i].lkey = mr ? mr->lkey : sel;
		off += len;
		total += len;
	}
	if (n && shape >= 0xf8) {
		struct ib_uverbs_sge *l = &s[n - 1];

		total -= l->length;
		switch (shape & 3) {
		case 0: l->addr = base + mlen - 63; l->length = 64; break;
		case 1: l->lkey ^= 0x100; break;
		case 2: l->addr = base - 4096; l->length = 64; break;
		default: l->length = 0x7fffffff; break;
		}
		total += l->length;
	}
	return total;
}

static int post_send(struct ufile *f, const struct fz_op *op)
{
	static const uint32_t opcodes[] = {
		IB_UVERBS_WR_SEND, IB_UVERBS_WR_SEND, IB_UVERBS_WR_SEND_WITH_IMM,
		IB_UVERBS_WR_RDMA_WRITE, IB_UVERBS_WR_RDMA_WRITE_WITH_IMM, IB_UVERBS_WR_RDMA_READ,
		IB_UVERBS_WR_ATOMIC_CMP_AND_SWP, IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD,
		IB_UVERBS_WR_SEND_WITH_INV, 11,
	};
	struct {
		struct ib_uverbs_post_send h;
		struct xqp_uverbs_send_wr wr[4];
		struct ib_uverbs_sge sge[12];
	} b;
	struct ib_uverbs_post_send_resp r;
	const uint8_t *a = op->a;
	struct obj *qp = named(f, T_QP, a[0]);
	uint16_t pd = qp ? qp->pd : 0;
	uint32_t nwr = 1 + a[1] % 4, wqe = (a[1] >> 2) % 8 ? sizeof(b.wr[0]) :
					   sizeof(struct ib_uverbs_send_wr);
	uint32_t i, nsge = 0;
	uint8_t *p;

	memset(&b, 0, sizeof(b));
	b.h.response = (uintptr_t)&r;
	b.h.qp_handle = handle_of(f, T_QP, a[0]);
	b.h.wr_count = nwr;
	b.h.wqe_size = wqe;
	for (i = 0; i < nwr; i++) {
		struct xqp_uverbs_send_wr *w = &b.wr[i];
		uint32_t len, flags = a[9] & 0xf;

		w->wr.wr_id = 0x100 + i;
		w->wr.num_sge = (a[3] >> (2 * i)) & 3;
		if (nsge + w->wr.num_sge > 12)
			w->wr.num_sge = 0;
		w->wr.opcode = pick_u32(a[i & 1 ? 8 : 2], opcodes, 10);
		/* the last WR signaled unless a bit says otherwise: completions to poll */
		if (i == nwr - 1 && !(a[9] & 0x40))
			flags |= SEND_SIGNALED;
		if ((flags & SEND_INLINE) && qp && !qp->inline_ok && !(a[9] & 0x80))
			flags &= ~SEND_INLINE;
		w->wr.send_flags = flags;
		w->wr.ex.imm_data = 0x01020304u * a[11];
		len = build_sges(f, pd, a[4], a[5], (int)i, !!(flags & SEND_INLINE),
				 &b.sge[nsge], (int)w->wr.num_sge);
		nsge += w->wr.num_sge;
		if (qp && qp->qp_type == QPT_UD) {
			w->wr.wr.ud.ah = qp->has_ah && a[10] < 0xc0 ? qp->peer_ah
								     : handle_of(f, T_AH, a[10]);
			w->wr.wr.ud.remote_qpn = qp->connected && a[10] < 0xe0 ? qp->peer_qpn
									       : pub_qpn(a[10]);
			w->wr.wr.ud.remote_qkey = a[10] % 8 == 7 ? 0x80000000u :
						  a[10] % 8 == 6 ? QKEY_B : QKEY_A;
		} else {
			const struct pub_mr *rm = qp ? pub_mr_of(a[6], qp->peer_pd, qp->peer_dev)
						     : pub_mr_of(a[6], 0, 0);
			uint64_t raddr = rm ? rm->addr : 0;
			uint32_t rlen = rm ? rm->len : 0, roff = (a[7] % 16) * 64u;
			uint32_t rkey = rm ? rm->rkey : a[6];
			int atomic = w->wr.opcode == IB_UVERBS_WR_ATOMIC_CMP_AND_SWP ||
				     w->wr.opcode == IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD;

			if (atomic)
				len = 8;
			if ((uint64_t)roff + len > rlen)
				roff = rlen > len ? rlen - len : 0;
			if (atomic)
				roff &= ~7u;
			if (a[7] >= 0xf0) {
				switch (a[7] & 3) {
				case 0: roff = rlen; break;		/* past the end */
				case 1: roff |= 1; break;		/* misaligned */
				case 2: rkey ^= 0x100; break;		/* not a key */
				default: raddr = 0; roff = 0; break;
				}
			}
			if (a[6] >= 0xf8)
				rkey = a[6];
			if (atomic) {
				w->wr.wr.atomic.remote_addr = raddr + roff;
				w->wr.wr.atomic.rkey = rkey;
				w->wr.wr.atomic.compare_add = a[11];
				w->wr.wr.atomic.swap = a[7];
			} else {
				w->wr.wr.rdma.remote_addr = raddr + roff;
				w->wr.wr.rdma.rkey = rkey;
			}
		}
		w->xrc_remote_srq_num = qp && qp->connected ?
			pub_xsrqn(a[11], qp->peer_xrcd, qp->peer_dev) : pub_srqn(a[11]);
	}
	b.h.sge_count = nsge;
	/* the SGEs follow the WQEs of the size announced */
	p = (uint8_t *)b.wr;
	if (wqe != sizeof(b.wr[0]))
		for (i = 0; i < nwr; i++)
			memmove(p + i * wqe, &b.wr[i], wqe);
	memmove(p + nwr * wqe, b.sge, nsge * sizeof(b.sge[0]));
	return cmd(f->fd, IB_USER_VERBS_CMD_POST_SEND, &b,
		   sizeof(b.h) + nwr * wqe + nsge * sizeof(b.sge[0]), sizeof(r) / 4, op);
}

/* POST_RECV / POST_SRQ_RECV of @nwr WRs on @handle; pieces of an MR of @pd */
static int post_recv_on(struct ufile *f, const struct fz_op *op, int srq, uint32_t handle,
			uint16_t pd, uint32_t nwr, uint8_t wqe_b, uint8_t nsge_b, uint8_t sel,
			uint8_t shape)
{
	struct {
		struct ib_uverbs_post_recv h;
		struct ib_uverbs_recv_wr wr[4];
		struct ib_uverbs_sge sge[12];
	} b;
	struct ib_uverbs_post_recv_resp r;
	uint32_t i, nsge = 0;

	memset(&b, 0, sizeof(b));
	b.h.response = (uintptr_t)&r;
	b.h.qp_handle = handle;
	b.h.wr_count = nwr;
	b.h.wqe_size = wqe_b % 16 ? sizeof(b.wr[0]) : 8;	/* too small: EINVAL */
	for (i = 0; i < nwr; i++) {
		b.wr[i].wr_id = 0x200 + i;
		b.wr[i].num_sge = (nsge_b >> (2 * i)) & 3;
		build_sges(f, pd, sel, shape, (int)i, 0, &b.sge[nsge], (int)b.wr[i].num_sge);
		nsge += b.wr[i].num_sge;
	}
	b.h.sge_count = nsge;
	memmove(&b.wr[nwr], b.sge, nsge * sizeof(b.sge[0]));
	return cmd(f->fd, srq ? IB_USER_VERBS_CMD_POST_SRQ_RECV : IB_USER_VERBS_CMD_POST_RECV,
		   &b, sizeof(b.h) + nwr * sizeof(b.wr[0]) + nsge * sizeof(b.sge[0]),
		   sizeof(r) / 4, op);
}

static int post_recv(struct ufile *f, const struct fz_op *op, int srq)
{
	const uint8_t *a = op->a;
	struct obj *o = named(f, srq ? T_SRQ : T_QP, a[0]);

	return post_recv_on(f, op, srq, handle_of(f, srq ? T_SRQ : T_QP, a[0]), o ? o->pd : 0,
			    1 + a[1] % 4, a[2], a[3], a[4], a[5]);
}

static int reg_mr(struct ufile *f, const struct fz_op *op)
{
	static const uint32_t access[] = { 0xf, 1, 0xf, 0x7, 0x3, 0x1 | 0x8, 0x4, 0x2 | 0x1 };
	const uint8_t *a = op->a;
	uint64_t start, length, iova;
	int err;

	start = (uintptr_t)mrbuf + (a[1] % BUF_PAGES) * 4096u + (a[2] % 8 ? 0 : a[2]);
	length = a[3] % 8 ? (1u + a[3]) * 64u : (uint64_t)a[3] << 20;
	iova = a[5] % 4 ? start : start + a[5];
	if (a[6] % 16 == 0)
		start = iova = 0x1000;	/* nothing mapped there */
	if (start - (uintptr_t)mrbuf + length > BUF_PAGES * 4096u && a[6] % 4)
		length = BUF_PAGES * 4096u - (start - (uintptr_t)mrbuf);
	reg_mr_at(f, op, named(f, T_PD, a[0]), handle_of(f, T_PD, a[0]), start, length, iova,
		  pick_u32(a[4], access, 8), &err);
	return err;
}

/* ---- bringing QPs up: FZ_CONNECT, FZ_SETUP --------------------------------- */

/*
 * The knobs of a connection, from 6 bytes:
 *  k[0] mode: % 16 < 11 both sides to RTS (an XRC target to RTR, or RTS
 *       with bit 0x20); 11: the sender stops at RTR; 12: the peer is left
 *       as it is; 13: the sender's DLID names the other device; 14: its
 *       destination QP number is off by one; 15: the sender goes on to SQD.
 *       0x10: both go to RESET first. 0xc0 set: a GRH (no such GID).
 *  k[1] retry_cnt (bits 0-2), rnr_retry (bits 3-5; 7, for ever, only as 0xff)
 *  k[2] local ACK timeout (mostly 8..15: 1 ms..134 ms) and min_rnr_timer
 *  k[3] the QPs' access flags (mostly all remote access)
 *  k[4] path MTU, PSNs, rd_atomic
 *  k[5] UD Q_Keys (% 4 == 3: the peer's differs), SL
 */
struct conn {
	uint32_t dest_qpn, qkey, psn, access;
	uint16_t dlid;
	uint8_t mtu, timeout, retry, rnr_retry, min_rnr, rd_atomic, sl, global;
};

static uint32_t conn_mask(int type, int state)
{
	switch (state) {
	case QPS_INIT:
		return M_STATE | M_PKEY | M_PORT | (type == QPT_UD ? M_QKEY : M_ACCESS);
	case QPS_RTR:
		if (type == QPT_UD)
			return M_STATE;
		if (type == QPT_UC || type == QPT_XRC_INI)
			return M_STATE | M_AV | M_MTU | M_DEST_QPN | M_RQ_PSN;
		return M_STATE | M_AV | M_MTU | M_DEST_QPN | M_RQ_PSN | M_DEST_RD_ATOMIC | M_MIN_RNR;
	case QPS_RTS:
		if (type == QPT_UD || type == QPT_UC)
			return M_STATE | M_SQ_PSN;
		if (type == QPT_XRC_TGT)
			return M_STATE | M_TIMEOUT | M_SQ_PSN;
		return M_STATE | M_TIMEOUT | M_RETRY | M_RNR_RETRY | M_SQ_PSN | M_RD_ATOMIC;
	case QPS_SQD:
		return M_STATE | M_SQD_NOTIFY;
	default:
		return M_STATE;
	}
}

static int conn_modify(struct ufile *f, const struct obj *qp, int state, const struct conn *c)
{
	struct ib_uverbs_modify_qp m;

	memset(&m, 0, sizeof(m));
	m.qp_handle = qp->handle;
	m.attr_mask = conn_mask(qp->qp_type, state);
	m.qp_state = (uint8_t)state;
	m.port_num = 1;
	m.qp_access_flags = c->access;
	m.qkey = c->qkey;
	m.path_mtu = c->mtu;
	m.dest_qp_num = c->dest_qpn;
	m.dest.dlid = c->dlid;
	m.dest.port_num = 1;
	m.dest.sl = c->sl;
	m.dest.is_global = c->global;
	m.dest.hop_limit = 1;
	m.rq_psn = m.sq_psn = c->psn;
	m.max_dest_rd_atomic = m.max_rd_atomic = c->rd_atomic;
	m.min_rnr_timer = c->min_rnr;
	m.timeout = c->timeout;
	m.retry_cnt = c->retry;
	m.rnr_retry = c->rnr_retry;
	m.en_sqd_async_notify = state == QPS_SQD;
	return cmd(f->fd, IB_USER_VERBS_CMD_MODIFY_QP, &m, sizeof(m), 0, &clean_op);
}

/* RESET (if asked), INIT, RTR, RTS, SQD, as far as @last: the first error */
static int conn_up(struct ufile *f, const struct obj *qp, const struct conn *c, int reset,
		   int last)
{
	int s, err;

	if (reset && (err = conn_modify(f, qp, QPS_RESET, c)))
		return err;
	for (s = QPS_INIT; s <= last; s++)
		if ((err = conn_modify(f, qp, s, c)))
			return err;
	return 0;
}

static void conn_knobs(struct conn *c, const uint8_t *k)
{
	memset(c, 0, sizeof(*c));
	c->retry = k[1] & 7;
	c->rnr_retry = k[1] == 0xff ? 7 : ((k[1] >> 3) & 7) % 7;
	c->timeout = k[2] & 7 ? 8 + (k[2] & 7) : (k[2] >> 3) % 32;
	c->min_rnr = (k[2] >> 3) & 3 ? 1 + (k[2] >> 5) : (k[2] >> 3) % 32;
	c->access = k[3] % 4 ? 0xf : k[3] >> 4;
	c->mtu = (uint8_t)(1 + k[4] % 5);
	c->psn = (uint32_t)k[4] * 0x10101u;
	c->rd_atomic = 1 + (k[4] >> 6);
	c->sl = k[5] >> 4;
	c->global = (k[0] & 0xc0) == 0xc0;
	c->qkey = QKEY_A;
}

/*
 * Points @qa (in @fa) and @qb (in @fb) at each other and brings them up; a
 * UD pair gets an address handle each way. @qa sends; for XRC it is the
 * initiator, @qb the target.
 */
static int connect_pair(struct ufile *fa, struct obj *qa, struct ufile *fb, struct obj *qb,
			const uint8_t *k)
{
	int mode = k[0] % 16, reset = !!(k[0] & 0x10), err, err2 = 0;
	int tgt_last = k[0] & 0x20 ? QPS_RTS : QPS_RTR;
	struct conn ca, cb;

	conn_knobs(&ca, k);
	cb = ca;
	ca.dest_qpn = qb->num + (mode == 14);
	ca.dlid = (uint16_t)(1 + (mode == 13 ? !fb->dev : fb->dev));
	cb.dest_qpn = qa->num;
	cb.dlid = (uint16_t)(1 + fa->dev);
	if (k[5] % 4 == 3)
		cb.qkey = QKEY_B;
	if (mode != 12 && qb != qa)
		err2 = conn_up(fb, qb, &cb, reset,
			       qb->qp_type == QPT_XRC_TGT ? tgt_last : QPS_RTS);
	err = conn_up(fa, qa, &ca, reset, mode == 11 ? QPS_RTR : mode == 15 ? QPS_SQD : QPS_RTS);
	if (qa->qp_type == QPT_UD && fa->fd >= 0) {
		struct obj *ah;
		int e;

		ah = create_ah(fa, &clean_op, NULL, qa->pd_h, 1, ca.dlid, ca.global, ca.sl, 1, &e);
		if (ah) {
			qa->has_ah = 1;
			qa->peer_ah = ah->handle;
		}
		if (qb != qa && (ah = create_ah(fb, &clean_op, NULL, qb->pd_h, 1, cb.dlid,
						cb.global, cb.sl, 1, &e))) {
			qb->has_ah = 1;
			qb->peer_ah = ah->handle;
		}
	}
	qa->connected = qb->connected = 1;
	qa->peer_qpn = qb->num;
	qa->peer_dev = (uint8_t)fb->dev;
	qa->peer_pd = qb->pd;
	qa->peer_xrcd = qb->xrcd;
	qb->peer_qpn = qa->num;
	qb->peer_dev = (uint8_t)fa->dev;
	qb->peer_pd = qa->pd;
	qb->peer_xrcd = qa->xrcd;
	return err ? err : err2;
}

static int peer_type(int t)
{
	return t == QPT_XRC_INI ? QPT_XRC_TGT : t == QPT_XRC_TGT ? QPT_XRC_INI : t;
}

/*
 * FZ_CONNECT: a[0] picks QP A of this file, a[1] (bit 7) another file of
 * the actor for its peer, a[2] the peer among that file's QPs of the
 * matching type (any file's if it has none; A itself if there is none:
 * a loopback); a[3..8] are the knobs. An XRC target is always the peer.
 */
static int connect_op(struct actor *ac, struct ufile *f, const struct fz_op *op)
{
	const uint8_t *a = op->a;
	struct ufile *g = a[1] & 0x80 ? &ac->f[a[1] % FZ_FILES] : f, *fa = f, *fb;
	struct obj *qa = obj_of(f, T_QP, a[0]), *qb = NULL, *cand[FZ_FILES * MAX_OBJ];
	int i, k = 0, pass, want;

	if (!qa)
		return ENOENT;
	want = peer_type(qa->qp_type);
	for (pass = 0; pass < 2 && !k; pass++) {
		for (i = 0; i < FZ_FILES; i++) {
			struct ufile *h = &ac->f[i];
			int j;

			if (h->fd < 0 || (pass == 0 && h != g))
				continue;
			for (j = 0; j < h->n[T_QP]; j++)
				if (h->o[T_QP][j].qp_type == want && &h->o[T_QP][j] != qa)
					cand[k++] = &h->o[T_QP][j];
		}
	}
	if (k)
		qb = cand[a[2] % k];
	fb = f;
	for (i = 0; qb && i < FZ_FILES; i++)
		if (qb >= ac->f[i].o[T_QP] && qb < ac->f[i].o[T_QP] + MAX_OBJ)
			fb = &ac->f[i];
	if (!qb) {
		if (want != qa->qp_type)
			return ENOENT;	/* XRC without its other half */
		qb = qa;
	}
	if (qa->qp_type == QPT_XRC_TGT) {	/* the initiator sends */
		struct obj *t = qa;
		struct ufile *tf = fa;

		qa = qb;
		qb = t;
		fa = fb;
		fb = tf;
	}
	return connect_pair(fa, qa, fb, qb, &a[3]);
}

/* a file of the actor, open with a context (opened on @dev if it was closed) */
static int ready_file(struct ufile *f, int dev)
{
	int err;

	if (f->fd < 0 && (err = open_file(f, dev)))
		return err;
	if (!f->ctx && (err = get_context(f, &clean_op)))
		return err;
	return 0;
}

/*
 * FZ_SETUP: a[0] % 8 the pair (0, 1 RC; 2 UC; 3 UD; 4, 5 XRC; 6 RC on SRQs;
 * 7 RC with the peer in another file), a[1] the peer's file and device
 * (bit 7: another file for any type; bit 1: the other device; bit 2: the
 * second XRC inode), a[2] the CQs (size; bit 7: with a completion
 * channel), a[3] the MRs (first page; bits 4-5: fewer access rights),
 * a[4] the QPs' caps, a[5..10] the connection's knobs, a[11] % 5 receives
 * posted on each receiving queue, a[12] their shape.
 */
static int setup_op(struct actor *ac, struct ufile *f, const struct fz_op *op)
{
	static const uint32_t mr_access[4] = { 0xf, 0x3, 0x7, 0xb };
	static const int types[8] = { QPT_RC, QPT_RC, QPT_UC, QPT_UD, QPT_XRC_INI,
				      QPT_XRC_INI, QPT_RC, QPT_RC };
	const uint8_t *a = op->a;
	int kind = a[0] % 8, type = types[kind], err, ch = -1, i, n;
	int fi = (int)(f - ac->f), gi = fi;
	struct obj *pda, *pdb, *cqa, *cqb, *qa, *qb, *srq = NULL, *xrcd = NULL;
	struct ib_uverbs_create_qp c;
	struct ufile *g;
	uint32_t page = a[3] % 4, wr = 8u << (a[4] % 3);
	uint8_t shape;

	if ((err = ready_file(f, a[1] & 1)))
		return err;
	if (kind == 7 || (a[1] & 0x80))
		gi = (fi + 1 + ((a[1] >> 3) & 1)) % FZ_FILES;
	g = &ac->f[gi];
	if ((err = ready_file(g, (f->dev + ((a[1] >> 1) & 1)) % 2)))
		return err;
	if (!(pda = alloc_pd(f, &clean_op, 0, &err)))
		return err;
	pdb = g == f ? pda : alloc_pd(g, &clean_op, 0, &err);
	if (!pdb)
		return err;
	if (a[2] & 0x80)
		ch = create_channel(f, &clean_op);
	if (!(cqa = create_cq(f, &clean_op, 1, 16 << (a[2] % 3), 0, ch, &err)))
		return err;
	cqb = g == f ? cqa : create_cq(g, &clean_op, 2, 16 << (a[2] % 3), 0, -1, &err);
	if (!cqb)
		return err;
	if (!reg_mr_at(f, &clean_op, pda, 0, (uintptr_t)mrbuf + page * 4096u,
		       (BUF_PAGES - page) * 4096u, (uintptr_t)mrbuf + page * 4096u,
		       mr_access[(a[3] >> 4) & 3], &err))
		return err;
	if (g != f && !reg_mr_at(g, &clean_op, pdb, 0, (uintptr_t)mrbuf, BUF_PAGES * 4096u,
				 (uintptr_t)mrbuf, mr_access[(a[3] >> 4) & 3], &err))
		return err;

	memset(&c, 0, sizeof(c));
	c.user_handle = 0x51;
	c.max_send_wr = c.max_recv_wr = wr;
	c.max_send_sge = c.max_recv_sge = 1 + (a[4] >> 2) % 3;
	c.max_inline_data = a[4] & 0x40 ? 64 : 0;
	c.sq_sig_all = a[4] >> 7;
	if (kind == 6) {
		struct ib_uverbs_create_xsrq s = { .srq_type = 0, .pd_handle = pdb->handle,
						   .max_wr = 32, .max_sge = 3 };

		if (!(srq = create_xsrq(g, &clean_op, &s, pdb, NULL, &err)))
			return err;
	}
	if (type == QPT_XRC_INI) {
		struct ib_uverbs_create_xsrq s = { .srq_type = 1, .pd_handle = pdb->handle,
						   .max_wr = 32, .max_sge = 3,
						   .cq_handle = cqb->handle };

		if (!(xrcd = open_xrcd(ac, g, &clean_op, (a[1] >> 2) & 1, O_CREAT, &err)))
			return err;
		s.xrcd_handle = xrcd->handle;
		if (!(srq = create_xsrq(g, &clean_op, &s, pdb, xrcd, &err)))
			return err;
	}
	/* the sender */
	c.qp_type = (uint8_t)type;
	c.pd_handle = pda->handle;
	c.send_cq_handle = c.recv_cq_handle = cqa->handle;
	if (!(qa = create_qp_as(f, &clean_op, &c, pda, &err)))
		return err;
	/* the receiver */
	if (type == QPT_XRC_INI) {
		struct ib_uverbs_create_qp t;

		memset(&t, 0, sizeof(t));
		t.user_handle = 0x52;
		t.qp_type = QPT_XRC_TGT;
		t.pd_handle = xrcd->handle;
		qb = create_qp_as(g, &clean_op, &t, xrcd, &err);
	} else {
		c.pd_handle = pdb->handle;
		c.send_cq_handle = c.recv_cq_handle = cqb->handle;
		if (srq) {
			c.is_srq = 1;
			c.srq_handle = srq->handle;
		}
		qb = create_qp_as(g, &clean_op, &c, pdb, &err);
	}
	if (!qb)
		return err;
	/* qa was created without the SRQ; for kind 6 it posts to its own RQ */
	err = connect_pair(f, qa, g, qb, &a[5]);
	if (srq && type == QPT_XRC_INI)
		qa->peer_pd = srq->pd;	/* an XRC target's data lands in its SRQ's PD */
	/* one SGE each, mostly a whole page */
	shape = a[12] >= 0xf8 ? a[12] : (a[12] & 0x38) | (a[12] % 4 ? 4 : a[12] % 8);
	n = a[11] % 5;
	for (i = 0; i < n; i++) {
		if (srq)
			post_recv_on(g, &clean_op, 1, srq->handle, srq->pd, 1, 1, 1, 0, shape);
		else
			post_recv_on(g, &clean_op, 0, qb->handle, qb->pd, 1, 1, 1, 0, shape);
		if (type != QPT_XRC_INI && qb != qa)
			post_recv_on(f, &clean_op, 0, qa->handle, qa->pd, 1, 1, 1, 0, shape);
	}
	return err;
}

/* ---- the xqp_res generic netlink family ------------------------------------ */

static size_t nl_attr(uint8_t *buf, size_t off, size_t cap, uint16_t type, const void *data,
		      uint16_t len)
{
	struct nlattr *at = (struct nlattr *)(buf + off);

	if (off + NLA_ALIGN(NLA_HDRLEN + len) > cap)
		return off;
	at->nla_type = type;
	at->nla_len = (uint16_t)(NLA_HDRLEN + len);
	memcpy(buf + off + NLA_HDRLEN, data, len);
	memset(buf + off + NLA_HDRLEN + len, 0, NLA_ALIGN(len) - len);
	return off + NLA_ALIGN(NLA_HDRLEN + len);
}

static int nl_socket(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);

	if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* the family's id from the generic netlink controller (0: not registered) */
static int nl_resolve(void)
{
	uint8_t buf[1024] __attribute__((aligned(4)));
	struct nlmsghdr *n = (struct nlmsghdr *)buf;
	struct genlmsghdr *g = NLMSG_DATA(n);
	size_t len = NLMSG_HDRLEN + GENL_HDRLEN;
	int fd = nl_socket(), id = 0;
	ssize_t got;

	if (fd < 0)
		return 0;
	memset(buf, 0, sizeof(buf));
	len = nl_attr(buf, len, sizeof(buf), CTRL_ATTR_FAMILY_NAME, XQP_RES_GENL_NAME,
		      sizeof(XQP_RES_GENL_NAME));
	n->nlmsg_len = (uint32_t)len;
	n->nlmsg_type = GENL_ID_CTRL;
	n->nlmsg_flags = NLM_F_REQUEST;
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	if (send(fd, buf, len, 0) == (ssize_t)len &&
	    (got = recv(fd, buf, sizeof(buf), 0)) > (ssize_t)(NLMSG_HDRLEN + GENL_HDRLEN) &&
	    n->nlmsg_type == GENL_ID_CTRL) {
		size_t off = NLMSG_HDRLEN + GENL_HDRLEN;

		while (off + NLA_HDRLEN <= (size_t)got) {
			struct nlattr *at = (struct nlattr *)(buf + off);

			if (at->nla_len < NLA_HDRLEN)
				break;
			if ((at->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID)
				memcpy(&id, buf + off + NLA_HDRLEN, 2);
			off += NLA_ALIGN(at->nla_len);
		}
	}
	close(fd);
	return id & 0xffff;
}

/*
 * FZ_NL_RES: one request on the actor's socket, then some reads of the
 * answer. a[0] % 16 == 15: another message type; a[1]: flags (% 8 == 0:
 * no NLM_F_DUMP; bit 7: NLM_F_ACK); a[2]: the command (DEV_GET, RES_GET, or
 * any number); a[3]: the genl version; a[4] which attributes go in (bits
 * 0-5: TYPE, DEV_INDEX, DEV_NAME, FILTER_QPN, FILTER_PID, a junk one; RES_GET
 * gets TYPE unless bit 6); a[5]-a[9] their values; a[10]: the receive buffer's
 * size and how many reads (a dump left half read continues at the next
 * request's reads, or ends when the socket closes); a[11] % 16 == 15: a
 * fresh socket first.
 */
static int nl_res(struct actor *ac, const struct fz_op *op)
{
	static const char *const names[4] = { "xqp_soft0", "xqp_soft1", "", "xqp_soft9" };
	static const uint32_t rbufs[4] = { 16384, 256, 4096, 32768 };
	static uint8_t rbuf[32768] __attribute__((aligned(8)));
	uint8_t req[512] __attribute__((aligned(4)));
	struct nlmsghdr *n = (struct nlmsghdr *)req;
	struct genlmsghdr *g = NLMSG_DATA(n);
	const uint8_t *a = op->a;
	size_t len = NLMSG_HDRLEN + GENL_HDRLEN;
	uint32_t v, reads = 1 + (a[10] >> 2) % 8, i;
	int attrs = a[4], cmdno = a[2] % 8 < 3 ? XQP_RES_CMD_DEV_GET :
				  a[2] % 8 < 7 ? XQP_RES_CMD_RES_GET : a[2] >> 3;
	int ret = 0;

	if (!nl_family)
		return ENOENT;
	if (ac->nl_fd >= 0 && a[11] % 16 == 15) {
		close(ac->nl_fd);
		ac->nl_fd = -1;
	}
	if (ac->nl_fd < 0 && (ac->nl_fd = nl_socket()) < 0)
		return errno;
	memset(req, 0, sizeof(req));
	if (cmdno == XQP_RES_CMD_RES_GET && !(attrs & 0x40))
		attrs |= 1;
	if (attrs & 1) {
		v = a[5] % 8;	/* 6, 7: no such type */
		len = nl_attr(req, len, sizeof(req), XQP_RES_A_TYPE, &v, a[5] >= 0xf8 ? 2 : 4);
	}
	if (attrs & 2) {
		v = a[6] % 4;
		len = nl_attr(req, len, sizeof(req), XQP_RES_A_DEV_INDEX, &v, 4);
	}
	if (attrs & 4) {
		char name[80];

		if ((a[6] >> 2) % 8 == 7) {	/* too long, and without its NUL */
			memset(name, 'x', sizeof(name));
			len = nl_attr(req, len, sizeof(req), XQP_RES_A_DEV_NAME, name, sizeof(name));
		} else {
			snprintf(name, sizeof(name), "%s", names[(a[6] >> 2) % 4]);
			len = nl_attr(req, len, sizeof(req), XQP_RES_A_DEV_NAME, name,
				      (uint16_t)(strlen(name) + ((a[6] >> 5) & 1 ? 0 : 1)));
		}
	}
	if (attrs & 8) {
		v = pub_qpn(a[7]);
		len = nl_attr(req, len, sizeof(req), XQP_RES_A_FILTER_QPN, &v, 4);
	}
	if (attrs & 0x10) {
		v = a[8] % 4 == 3 ? a[8] : (uint32_t)shared->actor_pid[a[8] % FZ_ACTORS];
		len = nl_attr(req, len, sizeof(req), XQP_RES_A_FILTER_PID, &v, 4);
	}
	if (attrs & 0x20) {
		uint8_t junk[8];

		memset(junk, a[9], sizeof(junk));
		len = nl_attr(req, len, sizeof(req), (uint16_t)(a[9] % (XQP_RES_A_MAX + 4)), junk,
			      (uint16_t)(a[9] % 9));
	}
	n->nlmsg_len = (uint32_t)len;
	n->nlmsg_type = (uint16_t)(a[0] % 16 == 15 ? a[0] >> 4 : nl_family);
	n->nlmsg_flags = NLM_F_REQUEST | (a[1] % 8 ? NLM_F_DUMP : 0) | (a[1] & 0x80 ? NLM_F_ACK : 0);
	n->nlmsg_seq = a[1];
	g->cmd = (uint8_t)cmdno;
	g->version = (uint8_t)(a[3] % 8 ? XQP_RES_GENL_VERSION : a[3] >> 3);
	count();
	if (send(ac->nl_fd, req, len, 0) < 0)
		ret = errno;
	for (i = 0; i < reads; i++) {
		ssize_t got;
		int end = 0;

		count();
		got = recv(ac->nl_fd, rbuf, rbufs[a[10] % 4], MSG_DONTWAIT);
		if (got < 0)
			break;
		for (n = (struct nlmsghdr *)rbuf; NLMSG_OK(n, (size_t)got); n = NLMSG_NEXT(n, got)) {
			if (n->nlmsg_type == NLMSG_DONE)
				end = 1;
			if (n->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(n);

				end = 1;
				if (!ret && e->error)
					ret = -e->error;
			}
		}
		if (end)
			break;
	}
	return ret;
}

/* ---- driver op failures (the soft device's inject file) --------------------- */

/*
 * The soft device's op names, as its inject knob lists them when read (one
 * a line; drivers/soft/soft.h's table is the one source): ops the device
 * grows are picked up; an op number is taken modulo the count.
 */
#define MAX_SOFT_OPS	64
static char soft_op_buf[2048];
static const char *soft_ops[MAX_SOFT_OPS];
static int n_soft_ops;

static void inject_discover(void)
{
	int fd = open("/sys/kernel/debug/xqp_soft/xqp_soft0/inject", O_RDONLY | O_CLOEXEC);
	ssize_t len = 0, r;
	char *p, *line;

	if (fd < 0)
		return;
	while (len < (ssize_t)sizeof(soft_op_buf) - 1 &&
	       (r = read(fd, soft_op_buf + len, sizeof(soft_op_buf) - 1 - (size_t)len)) > 0)
		len += r;
	close(fd);
	soft_op_buf[len] = '\0';
	for (p = soft_op_buf; n_soft_ops < MAX_SOFT_OPS && (line = strsep(&p, "\n"));)
		if (*line)
			soft_ops[n_soft_ops++] = line;
}

static void inject(const struct fz_op *op)
{
	static const int errs[] = { 16, 5, 12, 22, 11, 14, 28, 1 };
	char path[96], line[64];
	int fd, k;

	if (!n_soft_ops)
		return;
	snprintf(path, sizeof(path), "/sys/kernel/debug/xqp_soft/xqp_soft%d/inject", op->a[0] % 2);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	k = snprintf(line, sizeof(line), "%s %d %d", soft_ops[op->a[1] % n_soft_ops],
		     errs[op->a[2] % 8], op->a[3] % 4);
	count();
	__atomic_store_n(&shared->injected, 1, __ATOMIC_RELAXED);
	(void)!write(fd, line, (size_t)k);
	close(fd);
}

static void exec_disarm(void)
{
	char path[96], line[64];
	int d, i, fd, k;

	for (d = 0; d < 2; d++) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/xqp_soft/xqp_soft%d/inject", d);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		for (i = 0; i < n_soft_ops; i++) {
			k = snprintf(line, sizeof(line), "%s 0", soft_ops[i]);
			(void)!write(fd, line, (size_t)k);
		}
		close(fd);
	}
}

/*
 * FZ_HOTPLUG: the second soft device removed, as unplugging it would (the
 * files on it stay and answer EIO; its QPs' peers see them go), or made
 * again (a fresh device; uverbs1 again once no file holds the old one).
 * The first device stays, so the rest of a program still has one; after a
 * program that ran this, the manager makes the second one again.
 */
static void hotplug_write(const char *what)
{
	int fd = open("/sys/kernel/debug/xqp_soft/hotplug", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	(void)!write(fd, what, strlen(what));
	close(fd);
}

static void hotplug(const struct fz_op *op)
{
	count();
	__atomic_store_n(&shared->hotplugged, 1, __ATOMIC_RELAXED);
	hotplug_write(op->a[0] % 4 ? "remove 1" : "add 1");
}

/* an arbitrary write: header fields and body from the op's bytes */
static int raw(struct ufile *f, const struct fz_op *op)
{
	/* what an extended header may claim: (63 + 4095) words of 8 bytes */
	static __thread uint8_t resp[(63 + 4096) * 8];
	uint8_t buf[8 + 24 + 256];
	uint64_t s = 0;
	size_t len = 8 + 4 * (op->a[3] % 72), i;
	struct ib_uverbs_cmd_hdr *h = (void *)buf;

	for (i = 0; i < FZ_ARGS; i++)
		s = s * 131 + op->a[i];
	for (i = 0; i < sizeof(buf); i++) {
		s = s * 6364136223846793005ull + 1442695040888963407ull;
		buf[i] = (uint8_t)(s >> 56);
		if (op->a[6] & 1)
			buf[i] &= 3;	/* small values: closer to valid */
	}
	h->command = op->a[0] % 48 | (op->a[4] & 0x80 ? 0x80000000u : 0) |
		     (op->a[4] == 0xff ? 0x7f000000u : 0);
	h->in_words = op->a[5] % 4 ? (uint16_t)(len / 4) : op->a[1];
	h->out_words = op->a[2] % 64;
	if (h->command & 0x80000000u) {
		struct ib_uverbs_ex_cmd_hdr *x = (void *)(buf + 8);

		x->response = op->a[5] & 2 ? (uintptr_t)resp : 0;
		x->provider_out_words %= 4096;	/* the device zeroes all it claims */
		x->cmd_hdr_reserved = op->a[5] & 4 ? 0 : x->cmd_hdr_reserved;
		h->in_words = (uint16_t)((len - 8 - 16 > 0 ? len - 24 : 0) / 8);
	} else if (len >= 16 && (op->a[5] & 2)) {
		uint64_t r = (uintptr_t)resp;

		memcpy(buf + 8, &r, 8);
	}
	count();
	return write(f->fd, buf, len) < 0 ? errno : 0;
}

/*
 * FZ_AUX_FD: the file paths of the event files other than a non-blocking
 * read. a[0] picks the async fd or a completion channel (a[1]); a[2] % 5:
 * poll() (0 or 1 ms), epoll (registered, waited on, taken off again or
 * left for the epoll instance's close), O_ASYNC on or off (SIGIO is
 * ignored), /proc/self/fdinfo, or a blocking read that a 2 ms timer
 * interrupts when nothing comes (SIGALRM is caught without SA_RESTART).
 */
static int aux_fd(struct ufile *f, const struct fz_op *op)
{
	const uint8_t *a = op->a;
	int fd = a[0] % 2 || !f->ncomp ? f->async_fd : f->comp[a[1] % f->ncomp];
	char buf[256];
	int ret = 0, ep;

	if (fd < 0)
		return EBADF;
	count();
	switch (a[2] % 5) {
	case 0: {
		struct pollfd p = { .fd = fd, .events = POLLIN | POLLOUT | POLLPRI };

		return poll(&p, 1, a[3] & 1) < 0 ? errno : 0;
	}
	case 1: {
		struct epoll_event ev = { .events = EPOLLIN | (a[3] & 2 ? EPOLLET : 0) };

		ep = epoll_create1(EPOLL_CLOEXEC);
		if (ep < 0)
			return errno;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0)
			ret = errno;
		else if (epoll_wait(ep, &ev, 1, a[3] & 1) < 0)
			ret = errno;
		if (a[3] & 4)
			epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
		close(ep);
		return ret;
	}
	case 2: {
		int fl = fcntl(fd, F_GETFL);

		if (fl < 0)
			return errno;
		fcntl(fd, F_SETOWN, getpid());
		return fcntl(fd, F_SETFL, a[3] & 1 ? fl | O_ASYNC : fl & ~O_ASYNC) < 0 ? errno : 0;
	}
	case 3: {
		int k, fi;

		snprintf(buf, sizeof(buf), "/proc/self/fdinfo/%d", fd);
		fi = open(buf, O_RDONLY | O_CLOEXEC);
		if (fi < 0)
			return errno;
		k = (int)read(fi, buf, sizeof(buf));
		close(fi);
		return k < 0 ? errno : 0;
	}
	default: {
		/* this thread's own timer (FZ_RACE has two), every 2 ms until deleted */
		struct sigevent sev = { .sigev_notify = SIGEV_THREAD_ID, .sigev_signo = SIGALRM };
		struct itimerspec t = { .it_value = { .tv_nsec = 2000000 },
					.it_interval = { .tv_nsec = 2000000 } };
		int fl = fcntl(fd, F_GETFL);
		timer_t timer;

		if (fl < 0)
			return errno;
		sev._sigev_un._tid = gettid();	/* glibc 2.36 names no accessor */
		if (timer_create(CLOCK_MONOTONIC, &sev, &timer) < 0)
			return errno;
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
		timer_settime(timer, 0, &t, NULL);
		if (read(fd, buf, a[3] % 4 ? 16 * (1 + a[3] % 4) : 7) < 0)
			ret = errno;
		timer_delete(timer);
		fcntl(fd, F_SETFL, fl);
		return ret;
	}
	}
}

/* ---- one op ----------------------------------------------------------------- */

static const uint32_t qp_states_mask[7][5] = {
	/* RC/XRC, UC, UD: the masks IB requires for each target */
	[1] = { 1 | 1 << 3 | 1 << 4 | 1 << 5, 1 | 1 << 3 | 1 << 4 | 1 << 5,
		1 | 1 << 4 | 1 << 5 | 1 << 6 },
	[2] = { 1 | 1 << 7 | 1 << 8 | 1 << 20 | 1 << 12 | 1 << 17 | 1 << 15,
		1 | 1 << 7 | 1 << 8 | 1 << 20 | 1 << 12, 1 },
	[3] = { 1 | 1 << 16 | 1 << 9 | 1 << 10 | 1 << 11 | 1 << 13, 1 | 1 << 16, 1 | 1 << 16 },
};

static int modify_qp(struct ufile *f, const struct fz_op *op)
{
	struct ib_uverbs_modify_qp m;
	struct obj *qp = named(f, T_QP, op->a[0]);
	int state = op->a[1] % 7, cls = 0;

	memset(&m, 0, sizeof(m));
	m.qp_handle = handle_of(f, T_QP, op->a[0]);
	if (qp && qp->qp_type == QPT_UC)
		cls = 1;
	else if (qp && qp->qp_type == QPT_UD)
		cls = 2;
	m.attr_mask = qp_states_mask[state][cls] ? qp_states_mask[state][cls] : 1;
	if (qp && state >= QPS_INIT && state <= QPS_RTS && op->a[2] % 4 == 2)
		m.attr_mask = conn_mask(qp->qp_type, state);	/* exactly right */
	if (op->a[2] % 8 == 0)
		m.attr_mask ^= 1u << (op->a[3] % 22);
	else if (op->a[2] % 16 == 1)
		m.attr_mask = (uint32_t)op->a[3] << 12 | op->a[4] << 4 | (op->a[5] & 0xf);
	m.qp_state = (uint8_t)state;
	m.cur_qp_state = op->a[6] % 7;
	m.port_num = op->a[7] % 16 ? 1 : op->a[7] % 4;
	m.pkey_index = op->a[7] % 32 == 3;
	m.qp_access_flags = op->a[8] % 16;
	m.qkey = op->a[8] & 0x80 ? 0x80000000u | op->a[8] : QKEY_A;
	m.path_mtu = 1 + op->a[9] % 5;
	m.dest_qp_num = qp && qp->connected && op->a[4] < 0x80 ? qp->peer_qpn : pub_qpn(op->a[4]);
	m.dest.dlid = qp && qp->connected && op->a[5] < 0x80 ? 1 + qp->peer_dev : 1 + op->a[5] % 2;
	m.dest.port_num = op->a[7] % 16 ? 1 : op->a[7] % 4;
	m.dest.is_global = op->a[10] % 16 == 0;
	m.dest.sl = op->a[10] % 16;
	m.rq_psn = m.sq_psn = op->a[10];
	m.max_dest_rd_atomic = m.max_rd_atomic = op->a[11] % 4;
	m.min_rnr_timer = 1;
	m.timeout = 10;
	m.retry_cnt = op->a[11] % 8;
	m.rnr_retry = op->a[11] % 8;
	m.alt_port_num = op->a[3] % 3;
	m.en_sqd_async_notify = op->a[3] & 1;
	return cmd(f->fd, IB_USER_VERBS_CMD_MODIFY_QP, &m, sizeof(m), 0, op);
}

static int create_qp(struct ufile *f, const struct fz_op *op)
{
	static const uint32_t types[] = { QPT_RC, QPT_UC, QPT_UD,
					  QPT_XRC_INI, QPT_XRC_TGT,
					  QPT_RC, QPT_XRC_TGT };
	struct ib_uverbs_create_qp c;
	int err, tgt;

	memset(&c, 0, sizeof(c));
	c.user_handle = op->a[0];
	c.qp_type = (uint8_t)pick_u32(op->a[1], types, 7);
	tgt = c.qp_type == QPT_XRC_TGT;
	c.pd_handle = tgt ? handle_of(f, T_XRCD, op->a[2]) : handle_of(f, T_PD, op->a[2]);
	c.send_cq_handle = handle_of(f, T_CQ, op->a[3]);
	c.recv_cq_handle = handle_of(f, T_CQ, op->a[4]);
	c.is_srq = op->a[5] % 4 == 0;
	c.srq_handle = handle_of(f, T_SRQ, op->a[5]);
	c.max_send_wr = op->a[6] % 64;
	c.max_recv_wr = op->a[7] % 64;
	c.max_send_sge = op->a[8] % 5;
	c.max_recv_sge = op->a[9] % 5;
	c.max_inline_data = op->a[10] % 4 ? 0 : 64u << (op->a[10] % 5);
	c.sq_sig_all = op->a[11] & 1;
	create_qp_as(f, op, &c, named(f, tgt ? T_XRCD : T_PD, op->a[2]), &err);
	return err;
}

static int run_op(struct actor *ac, const struct fz_op *op)
{
	struct ufile *f = &ac->f[(op->file & 0x7f) % FZ_FILES];
	const uint8_t *a = op->a;
	int kind = op->kind % FZ_OP_COUNT, err = 0;

	if (kind == FZ_NL_RES)
		return nl_res(ac, op);
	if (kind != FZ_OPEN && kind != FZ_SETUP && f->fd < 0) {
		/* an op on a closed file goes to the first open one */
		int k;

		for (k = 0; k < FZ_FILES && ac->f[k].fd < 0; k++)
			;
		if (k == FZ_FILES)
			return EBADF;
		f = &ac->f[k];
	}
	switch (kind) {
	case FZ_OPEN:
		if (f->fd >= 0)
			close_file(f, a[1] & 1);
		return open_file(f, a[0] % 2);
	case FZ_CLOSE:
		count();
		close_file(f, a[0] & 1);
		return 0;
	case FZ_GET_CONTEXT:
		return get_context(f, op);
	case FZ_QUERY_DEVICE: {
		struct ib_uverbs_query_device_resp r;
		struct ib_uverbs_query_device q = { .response = (uintptr_t)&r };

		return cmd(f->fd, IB_USER_VERBS_CMD_QUERY_DEVICE, &q, sizeof(q),
			   a[0] % 8 ? sizeof(r) / 4 : a[0] % 64, op);
	}
	case FZ_QUERY_PORT: {
		struct ib_uverbs_query_port_resp r;
		struct ib_uverbs_query_port q = { .response = (uintptr_t)&r,
						  .port_num = a[0] % 4 ? 1 : a[0] % 3 };

		return cmd(f->fd, IB_USER_VERBS_CMD_QUERY_PORT, &q, sizeof(q), sizeof(r) / 4, op);
	}
	case FZ_ALLOC_PD:
		alloc_pd(f, op, a[0] % 16 ? 0 : 8, &err);
		return err;
	case FZ_DEALLOC_PD: {
		struct ib_uverbs_dealloc_pd c = { .pd_handle = handle_of(f, T_PD, a[0]) };

		err = cmd(f->fd, IB_USER_VERBS_CMD_DEALLOC_PD, &c, sizeof(c), 0, op);
		if (!err)
			remove_handle(f, T_PD, c.pd_handle);
		return err;
	}
	case FZ_CREATE_AH:
		create_ah(f, op, named(f, T_PD, a[0]), handle_of(f, T_PD, a[0]),
			  a[1] % 8 ? 1 : a[1] % 4, 1 + a[2] % 3, a[3] % 8 == 0, a[4] % 16, a[5], &err);
		return err;
	case FZ_DESTROY_AH: {
		struct ib_uverbs_destroy_ah c = { .ah_handle = handle_of(f, T_AH, a[0]) };
		int i;

		err = cmd(f->fd, IB_USER_VERBS_CMD_DESTROY_AH, &c, sizeof(c), 0, op);
		if (!err) {
			remove_handle(f, T_AH, c.ah_handle);
			for (i = 0; i < f->n[T_QP]; i++)
				if (f->o[T_QP][i].has_ah && f->o[T_QP][i].peer_ah == c.ah_handle)
					f->o[T_QP][i].has_ah = 0;
		}
		return err;
	}
	case FZ_REG_MR:
		return reg_mr(f, op);
	case FZ_DEREG_MR: {
		struct ib_uverbs_dereg_mr c = { .mr_handle = handle_of(f, T_MR, a[0]) };

		err = cmd(f->fd, IB_USER_VERBS_CMD_DEREG_MR, &c, sizeof(c), 0, op);
		if (!err)
			remove_handle(f, T_MR, c.mr_handle);
		return err;
	}
	case FZ_CREATE_COMP_CHANNEL:
		return create_channel(f, op) < 0 ? EINVAL : 0;
	case FZ_CREATE_CQ: {
		static const uint32_t cqes[] = { 1, 4, 16, 64, 255, 3, 0, 100000 };

		create_cq(f, op, a[0], (int)pick_u32(a[1], cqes, 8), a[2] % 16 == 0,
			  a[3] % 3 == 0 || !f->ncomp ? -1 :
			  a[3] % 3 == 1 ? f->comp[a[4] % f->ncomp] : (int)a[4] % 8, &err);
		return err;
	}
	case FZ_RESIZE_CQ: {
		struct ib_uverbs_resize_cq_resp r;
		struct ib_uverbs_resize_cq c = { .response = (uintptr_t)&r,
						 .cq_handle = handle_of(f, T_CQ, a[0]),
						 .cqe = a[1] % 8 ? a[1] : 70000 };

		return cmd(f->fd, IB_USER_VERBS_CMD_RESIZE_CQ, &c, sizeof(c), sizeof(r) / 4, op);
	}
	case FZ_DESTROY_CQ: {
		struct ib_uverbs_destroy_cq_resp r;
		struct ib_uverbs_destroy_cq c = { .response = (uintptr_t)&r,
						  .cq_handle = handle_of(f, T_CQ, a[0]) };

		err = cmd(f->fd, IB_USER_VERBS_CMD_DESTROY_CQ, &c, sizeof(c), sizeof(r) / 4, op);
		if (!err)
			remove_handle(f, T_CQ, c.cq_handle);
		return err;
	}
	case FZ_POLL_CQ: {
		struct {
			struct ib_uverbs_poll_cq_resp h;
			struct ib_uverbs_wc wc[16];
		} r;
		struct ib_uverbs_poll_cq c = { .response = (uintptr_t)&r,
					       .cq_handle = handle_of(f, T_CQ, a[0]),
					       .ne = a[1] % 17 };

		return cmd(f->fd, IB_USER_VERBS_CMD_POLL_CQ, &c, sizeof(c),
			   (uint32_t)(sizeof(r.h) + c.ne * sizeof(r.wc[0])) / 4, op);
	}
	case FZ_REQ_NOTIFY_CQ: {
		struct ib_uverbs_req_notify_cq c = { .cq_handle = handle_of(f, T_CQ, a[0]),
						     .solicited_only = a[1] & 1 };

		return cmd(f->fd, IB_USER_VERBS_CMD_REQ_NOTIFY_CQ, &c, sizeof(c), 0, op);
	}
	case FZ_CREATE_QP:
		return create_qp(f, op);
	case FZ_QUERY_QP: {
		struct ib_uverbs_query_qp_resp r;
		struct ib_uverbs_query_qp c = { .response = (uintptr_t)&r,
						.qp_handle = handle_of(f, T_QP, a[0]),
						.attr_mask = a[1] % 4 ? 0x1fffff : (uint32_t)a[2] << 20 };

		return cmd(f->fd, IB_USER_VERBS_CMD_QUERY_QP, &c, sizeof(c), sizeof(r) / 4, op);
	}
	case FZ_MODIFY_QP:
		return modify_qp(f, op);
	case FZ_DESTROY_QP: {
		struct ib_uverbs_destroy_qp_resp r;
		struct ib_uverbs_destroy_qp c = { .response = a[1] % 16 ? (uintptr_t)&r : 16,
						  .qp_handle = handle_of(f, T_QP, a[0]) };

		err = cmd(f->fd, IB_USER_VERBS_CMD_DESTROY_QP, &c, sizeof(c), sizeof(r) / 4, op);
		if (!err)
			remove_handle(f, T_QP, c.qp_handle);
		return err;
	}
	case FZ_POST_SEND:
		return post_send(f, op);
	case FZ_POST_RECV:
		return post_recv(f, op, 0);
	case FZ_POST_SRQ_RECV:
		return post_recv(f, op, 1);
	case FZ_CREATE_SRQ: {
		struct ib_uverbs_create_srq_resp r;
		struct ib_uverbs_create_srq c = { .response = (uintptr_t)&r, .user_handle = a[0],
						  .pd_handle = handle_of(f, T_PD, a[1]),
						  .max_wr = a[2] % 64, .max_sge = a[3] % 5,
						  .srq_limit = a[4] % 8 };
		struct obj *pd = named(f, T_PD, a[1]);

		err = cmd(f->fd, IB_USER_VERBS_CMD_CREATE_SRQ, &c, sizeof(c), sizeof(r) / 4, op);
		if (!err)
			add_obj(f, T_SRQ, (struct obj){ .handle = r.srq_handle, .num = r.srqn,
						       .pd = pd ? pd->id : 0,
						       .dev = (uint8_t)f->dev });
		return err;
	}
	case FZ_CREATE_XSRQ: {
		struct ib_uverbs_create_xsrq c = {
			.user_handle = a[0],
			.srq_type = a[1] % 8 < 5 ? 1 : a[1] % 8 < 7 ? 0 : a[1] % 4,
			.pd_handle = handle_of(f, T_PD, a[2]), .max_wr = a[3] % 64,
			.max_sge = a[4] % 5, .srq_limit = a[5] % 8,
			.xrcd_handle = handle_of(f, T_XRCD, a[6]),
			.cq_handle = handle_of(f, T_CQ, a[7]),
		};

		create_xsrq(f, op, &c, named(f, T_PD, a[2]), named(f, T_XRCD, a[6]), &err);
		return err;
	}
	case FZ_MODIFY_SRQ: {
		struct ib_uverbs_modify_srq c = { .srq_handle = handle_of(f, T_SRQ, a[0]),
						  .attr_mask = a[1] % 4, .max_wr = a[2] % 128,
						  .srq_limit = a[3] % 32 };

		return cmd(f->fd, IB_USER_VERBS_CMD_MODIFY_SRQ, &c, sizeof(c), 0, op);
	}
	case FZ_QUERY_SRQ: {
		struct ib_uverbs_query_srq_resp r;
		struct ib_uverbs_query_srq c = { .response = (uintptr_t)&r,
						 .srq_handle = handle_of(f, T_SRQ, a[0]) };

		return cmd(f->fd, IB_USER_VERBS_CMD_QUERY_SRQ, &c, sizeof(c), sizeof(r) / 4, op);
	}
	case FZ_DESTROY_SRQ: {
		struct ib_uverbs_destroy_srq_resp r;
		struct ib_uverbs_destroy_srq c = { .response = (uintptr_t)&r,
						   .srq_handle = handle_of(f, T_SRQ, a[0]) };

		err = cmd(f->fd, IB_USER_VERBS_CMD_DESTROY_SRQ, &c, sizeof(c), sizeof(r) / 4, op);
		if (!err)
			remove_handle(f, T_SRQ, c.srq_handle);
		return err;
	}
	case FZ_OPEN_XRCD:
		open_xrcd(ac, f, op, a[0] % 3,
			  a[1] % 3 == 0 ? 0 : a[1] % 3 == 1 ? O_CREAT : O_CREAT | O_EXCL, &err);
		return err;
	case FZ_CLOSE_XRCD: {
		struct ib_uverbs_close_xrcd c = { .xrcd_handle = handle_of(f, T_XRCD, a[0]) };

		err = cmd(f->fd, IB_USER_VERBS_CMD_CLOSE_XRCD, &c, sizeof(c), 0, op);
		if (!err)
			remove_handle(f, T_XRCD, c.xrcd_handle);
		return err;
	}
	case FZ_OPEN_QP: {
		struct ib_uverbs_create_qp_resp r;
		struct ib_uverbs_open_qp c;
		struct obj *xrcd = named(f, T_XRCD, a[1]);

		memset(&c, 0, sizeof(c));
		c.response = (uintptr_t)&r;
		c.user_handle = a[0];
		c.pd_handle = handle_of(f, T_XRCD, a[1]);
		c.qpn = pub_qpn(a[2]);
		c.qp_type = a[3] % 8 ? QPT_XRC_TGT : a[3] % 16;
		err = cmd(f->fd, IB_USER_VERBS_CMD_OPEN_QP, &c, sizeof(c), sizeof(r) / 4, op);
		if (!err)
			add_obj(f, T_QP, (struct obj){ .handle = r.qp_handle, .num = r.qpn,
						       .qp_type = QPT_XRC_TGT,
						       .xrcd = xrcd ? xrcd->id : 0,
						       .dev = (uint8_t)f->dev });
		return err;
	}
	case FZ_READ_ASYNC: {
		struct ib_uverbs_async_event_desc ev[4];

		if (f->async_fd < 0)
			return EBADF;
		count();
		return read(f->async_fd, ev, a[0] % 8 ? sizeof(ev[0]) * (1 + a[0] % 4) : 7) < 0
			       ? errno : 0;
	}
	case FZ_READ_COMP: {
		struct ib_uverbs_comp_event_desc ev[4];

		if (!f->ncomp)
			return EBADF;
		count();
		return read(f->comp[a[0] % f->ncomp], ev, sizeof(ev[0]) * (1 + a[1] % 4)) < 0
			       ? errno : 0;
	}
	case FZ_CLOSE_AUX:
		count();
		if (a[0] % 2 == 0 && f->async_fd >= 0) {
			close(f->async_fd);
			f->async_fd = -1;
		} else if (f->ncomp) {
			int i = a[1] % f->ncomp;

			close(f->comp[i]);
			f->comp[i] = f->comp[--f->ncomp];
		}
		return 0;
	case FZ_RAISE_EVENT: {
		static const unsigned long ioc[3] = { XQP_UVERBS_IOC_RAISE_QP_EVENT,
						      XQP_UVERBS_IOC_RAISE_CQ_EVENT,
						      XQP_UVERBS_IOC_RAISE_SRQ_EVENT };
		static const int types[3] = { T_QP, T_CQ, T_SRQ };
		struct xqp_uverbs_raise_event e = { .handle = handle_of(f, types[a[0] % 3], a[1]),
						    .event_type = a[2] % 24 };

		count();
		return ioctl(f->fd, ioc[a[0] % 3], &e) < 0 ? errno : 0;
	}
	case FZ_INJECT:
		inject(op);
		return 0;
	case FZ_RAW:
		return raw(f, op);
	case FZ_CONNECT:
		return connect_op(ac, f, op);
	case FZ_SETUP:
		return setup_op(ac, f, op);
	case FZ_AUX_FD:
		return aux_fd(f, op);
	case FZ_HOTPLUG:
		hotplug(op);
		return 0;
	}
	return 0;
}

/* the op this thread runs, for the report of a crash of the fuzzer itself */
static __thread int cur_kind = -1, cur_index = -1;

static int run_op_timed(struct actor *ac, const struct fz_op *op)
{
	double t0 = fz_now();
	int err;

	cur_kind = op->kind % FZ_OP_COUNT;
	err = run_op(ac, op);
	cur_kind = -1;

	prof_add(&prof->kind[op->kind % FZ_OP_COUNT], t0);
	return err;
}

/* ---- actors and programs ------------------------------------------------- */

struct child {
	pid_t pid;
	int to, from;
};

static void actor_loop(struct actor *ac, int in, int out)
{
	struct fz_op op;

	while (read(in, &op, sizeof(op)) == (ssize_t)sizeof(op)) {
		uint8_t done = (uint8_t)run_op_timed(ac, &op);

		if (fz_verbose)
			printf("  actor %d: %s file %d -> %s\n", op.actor % FZ_ACTORS,
			       fz_kind_name[op.kind % FZ_OP_COUNT], (op.file & 0x7f) % FZ_FILES,
			       done ? strerror(done) : "ok");

		if (write(out, &done, 1) != 1)
			break;
	}
	_exit(0);
}

/* to uid/gid 65534, after the privileged setup of the actor */
static void drop_privileges(void)
{
	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		fprintf(stderr, "xqp-fuzz: dropping privileges: %s\n", strerror(errno));
}

static void fork_actor(struct actor *ac, struct child *c, int slot, int unprivileged)
{
	int to[2], from[2];

	if (pipe2(to, O_CLOEXEC))
		return;
	if (pipe2(from, O_CLOEXEC)) {
		close(to[0]);
		close(to[1]);
		return;
	}
	count();
	c->pid = fork();
	if (c->pid == 0) {
		close(to[1]);
		close(from[0]);
		fail_nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
		fz_cover_enable(proc_index * FZ_ACTORS + slot);
		/* its own netlink socket: its own credentials */
		if (ac->nl_fd >= 0)
			close(ac->nl_fd);
		ac->nl_fd = -1;
		if (unprivileged)
			drop_privileges();
		actor_loop(ac, to[0], from[1]);
	}
	close(to[0]);
	close(from[1]);
	if (c->pid < 0) {
		close(to[1]);
		close(from[0]);
		c->pid = 0;
		return;
	}
	__atomic_store_n(&shared->actor_pid[slot], c->pid, __ATOMIC_RELAXED);
	c->to = to[1];
	c->from = from[0];
}

static void kill_actor(struct child *c, int slot)
{
	if (!c->pid)
		return;
	count();
	kill(c->pid, SIGKILL);
	waitpid(c->pid, NULL, 0);
	__atomic_store_n(&shared->actor_pid[slot], 0, __ATOMIC_RELAXED);
	close(c->to);
	close(c->from);
	c->pid = 0;
}

static void send_op(struct child *c, int slot, const struct fz_op *op)
{
	uint8_t done;

	if (!c->pid)
		return;
	if (write(c->to, op, sizeof(*op)) != (ssize_t)sizeof(*op) ||
	    read(c->from, &done, 1) != 1)
		kill_actor(c, slot);
}

struct race {
	struct actor copy;
	const struct fz_op *op;
};

static void *race_thread(void *arg)
{
	struct race *r = arg;

	run_op_timed(&r->copy, r->op);
	return NULL;
}

static int has_comp(const struct ufile *f, int fd)
{
	int i;

	for (i = 0; i < f->ncomp; i++)
		if (f->comp[i] == fd)
			return 1;
	return 0;
}

/* the channels the race thread closed are gone from m, those it made are added */
static void merge_comps(struct ufile *m, const struct ufile *b, const struct ufile *c)
{
	int i;

	for (i = 0; i < m->ncomp; i++)
		if (has_comp(b, m->comp[i]) && !has_comp(c, m->comp[i]))
			m->comp[i--] = m->comp[--m->ncomp];
	for (i = 0; i < c->ncomp; i++)
		if (!has_comp(b, c->comp[i]) && !has_comp(m, c->comp[i]) && m->ncomp < MAX_COMP)
			m->comp[m->ncomp++] = c->comp[i];
}

/* a descriptor the race thread changed and the main thread did not */
static void merge_fd(int *m, int b, int c)
{
	if (*m == b && c != b)
		*m = c;
}

/*
 * After FZ_RACE: the race thread ran its op on a copy of the actor, so what
 * it did to descriptors (closed or opened a file, an async fd, a completion
 * channel, an XRC domain's file, the netlink socket) is carried into the
 * actor. Left in the copy, a closed descriptor's number would still be named
 * by the actor after the kernel reused it for another file: read_async then
 * read a blocking netlink socket for ever (tests/fuzz/crashes/hang-ea62*).
 * Objects the race thread made on a file that stays open are not carried;
 * they go with the file. `before` is the actor as the race began.
 */
static void merge_race(struct actor *ac, const struct actor *before, const struct actor *copy)
{
	int k;

	for (k = 0; k < FZ_FILES; k++) {
		struct ufile *m = &ac->f[k];
		const struct ufile *b = &before->f[k], *c = &copy->f[k];

		if (c->fd != b->fd) {
			if (m->fd == b->fd)
				*m = *c;	/* closed or reopened by the race thread */
			continue;
		}
		if (c->async_fd != b->async_fd && m->async_fd == b->async_fd)
			m->ctx = c->ctx;
		merge_fd(&m->async_fd, b->async_fd, c->async_fd);
		merge_comps(m, b, c);
	}
	for (k = 0; k < 2; k++)
		merge_fd(&ac->xrcd_fd[k], before->xrcd_fd[k], copy->xrcd_fd[k]);
	merge_fd(&ac->nl_fd, before->nl_fd, copy->nl_fd);
}

/*
 * One program in this (fresh) process, then everything it left is torn
 * down (actors killed, files closed: the device's file teardown runs with
 * whatever objects remain).
 */
static void run_prog(struct actor *ac, const struct fz_prog *p)
{
	struct child kids[FZ_ACTORS] = { 0 };
	double t0, start = fz_now();
	int i, k;

	for (k = 0; k < FZ_FILES; k++)
		reset_file(&ac->f[k]);
	ac->xrcd_fd[0] = ac->xrcd_fd[1] = -1;
	ac->nl_fd = -1;
	for (i = 0; i < p->n; i++) {
		const struct fz_op *op = &p->op[i];
		int actor = op->actor % FZ_ACTORS;

		cur_index = i;
		t0 = fz_now();
		switch (op->kind % FZ_OP_COUNT) {
		case FZ_FORK:
			k = 1 + op->a[0] % (FZ_ACTORS - 1);
			if (!kids[k].pid)
				fork_actor(ac, &kids[k], k, op->a[1] % 4 == 3);
			prof_add(&prof->kind[FZ_FORK], t0);
			continue;
		case FZ_KILL:
			k = 1 + op->a[0] % (FZ_ACTORS - 1);
			kill_actor(&kids[k], k);
			prof_add(&prof->kind[FZ_KILL], t0);
			continue;
		case FZ_RACE:
			if (i + 2 < p->n) {
				static struct race r;
				static struct actor before;
				pthread_t t;

				r.copy = before = *ac;
				r.op = &p->op[i + 1];
				if (pthread_create(&t, NULL, race_thread, &r) == 0) {
					run_op_timed(ac, &p->op[i + 2]);
					pthread_join(t, NULL);
					merge_race(ac, &before, &r.copy);
					i += 2;
				}
			}
			prof_add(&prof->kind[FZ_RACE], t0);
			continue;
		}
		if (actor == 0) {
			int err = run_op_timed(ac, op);

			if (fz_verbose)
				printf("  actor 0: %s file %d -> %s\n", fz_kind_name[op->kind % FZ_OP_COUNT],
				       (op->file & 0x7f) % FZ_FILES, err ? strerror(err) : "ok");
		} else {
			send_op(&kids[actor], actor, op);
		}
	}
	fz_prof(FZ_PH_OPS, start);
	t0 = fz_now();
	for (k = 1; k < FZ_ACTORS; k++)
		kill_actor(&kids[k], k);
	for (k = 0; k < FZ_FILES; k++)
		close_file(&ac->f[k], 1);
	for (k = 0; k < 2; k++)
		if (ac->xrcd_fd[k] >= 0)
			close(ac->xrcd_fd[k]);
	if (ac->nl_fd >= 0)
		close(ac->nl_fd);
	fz_prof(FZ_PH_TEARDOWN, t0);
}

/* The executor: actor 0 of one program, in a process of its own. */
static void executor(const struct fz_prog *p)
{
	static struct actor ac;

	shared->actor_pid[0] = getpid();
	fail_nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	fz_cover_enable(proc_index * FZ_ACTORS);
	fz_prof(FZ_PH_FORK, shared->t_fork);
	run_prog(&ac, p);
	shared->t_done = fz_now();
	_exit(0);
}

/*
 * The fork server: programs from `in`; for each, a fresh executor, and one
 * byte to `out` when it is gone (0, or 1: it died of a signal). It reaps
 * the actors an executor that died left behind (it is their subreaper).
 */
/*
 * A fault in an executor or actor is a defect of this program, or of the
 * kernel writing where it must not: say where it was, then die of it.
 */
static void on_fault(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;
	uint64_t ip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	uint64_t sp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP], w0 = 0, w1 = 0;
	char line[256];
	int k;

	if (sp && !(sp & 7)) {	/* the return address a call to a bad pointer left */
		w0 = ((uint64_t *)sp)[0];
		w1 = ((uint64_t *)sp)[1];
	}
	k = snprintf(line, sizeof(line),
		     "xqp-fuzz: pid %d: signal %d at %p, ip %#llx sp %#llx [sp] %#llx %#llx;"
		     " op %s, index %d\n", (int)getpid(), sig, si->si_addr,
		     (unsigned long long)ip, (unsigned long long)sp, (unsigned long long)w0,
		     (unsigned long long)w1, cur_kind >= 0 ? fz_kind_name[cur_kind] : "-",
		     cur_index);
	(void)!write(2, line, (size_t)k);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_alarm(int sig)
{
	(void)sig;	/* only to interrupt a blocking read (FZ_AUX_FD) */
}

static void fork_server(int in, int out)
{
	static struct fz_prog p;
	struct sigaction sa = { .sa_sigaction = on_fault, .sa_flags = SA_SIGINFO | SA_ONSTACK };
	struct sigaction alarm = { .sa_handler = on_alarm };	/* no SA_RESTART */

	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGILL, &sa, NULL);
	sigaction(SIGFPE, &sa, NULL);
	sigaction(SIGALRM, &alarm, NULL);
	signal(SIGIO, SIG_IGN);		/* O_ASYNC event files signal their owner */
	setpgid(0, 0);
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	nl_family = nl_resolve();
	for (;;) {
		uint8_t done = 0;
		pid_t pid;
		int st = 0, k;

		if (read(in, &p, sizeof(p)) != (ssize_t)sizeof(p))
			_exit(0);
		memset(shared, 0, offsetof(struct fz_shared, commands));
		shared->t_fork = fz_now();
		pid = fork();
		if (pid == 0)
			executor(&p);
		if (pid < 0 || waitpid(pid, &st, 0) != pid) {
			done = 1;
		} else {
			if (WIFSIGNALED(st))
				done = 1;
			if (shared->t_done > 0)
				fz_prof(FZ_PH_REAP, shared->t_done);
		}
		for (k = 1; k < FZ_ACTORS; k++)
			if (shared->actor_pid[k] > 0)
				kill(shared->actor_pid[k], SIGKILL);
		while (waitpid(-1, NULL, __WALL) > 0)
			;
		if (write(out, &done, 1) != 1)
			_exit(0);
	}
}

int fz_exec_init(int n)
{
	int i;

	nprocs = n < 1 ? 1 : n > FZ_MAX_PROCS ? FZ_MAX_PROCS : n;
	prof = mmap(NULL, sizeof(*prof), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		    -1, 0);
	if (prof == MAP_FAILED)
		return -1;
	for (i = 0; i < nprocs; i++) {
		struct proc *pr = &procs[i];

		pr->shared = mmap(NULL, sizeof(*pr->shared), PROT_READ | PROT_WRITE,
				  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		pr->mrbuf = mmap(NULL, BUF_PAGES * 4096, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (pr->shared == MAP_FAILED || pr->mrbuf == MAP_FAILED)
			return -1;
	}
	if (fault_knobs_set())
		printf("xqp-fuzz: cannot set the fault-injection knobs (%s): failed allocations reach GFP_ATOMIC ones only\n",
		       strerror(errno));
	/* a write to a dead actor's pipe fails, it does not kill (inherited) */
	signal(SIGPIPE, SIG_IGN);
	inject_discover();
	printf("xqp-fuzz: %d soft device ops can fail (inject); %d program(s) at once\n",
	       n_soft_ops, nprocs);
	return 0;
}

/* A fork server is restarted after a hang or its death. */
static void exec_stop(struct proc *pr)
{
	if (!pr->pid)
		return;
	kill(-pr->pid, SIGKILL);
	kill(pr->pid, SIGKILL);
	waitpid(pr->pid, NULL, 0);
	/* actors orphaned by it come to us (PR_SET_CHILD_SUBREAPER) */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	close(pr->in);
	close(pr->out);
	pr->pid = 0;
}

static int exec_start(struct proc *pr)
{
	int to[2], from[2];

	if (pipe2(to, O_CLOEXEC))
		return -1;
	if (pipe2(from, O_CLOEXEC)) {
		close(to[0]);
		close(to[1]);
		return -1;
	}
	pr->pid = fork();
	if (pr->pid == 0) {
		close(to[1]);
		close(from[0]);
		proc_index = (int)(pr - procs);
		shared = pr->shared;
		mrbuf = pr->mrbuf;
		fork_server(to[0], from[1]);
	}
	close(to[0]);
	close(from[1]);
	if (pr->pid < 0) {
		pr->pid = 0;
		close(to[1]);
		close(from[0]);
		return -1;
	}
	setpgid(pr->pid, pr->pid);
	pr->in = to[1];
	pr->out = from[0];
	return 0;
}

int fz_exec_submit(int i, const struct fz_prog *p)
{
	struct proc *pr = &procs[i];

	if (i < 0 || i >= nprocs || pr->busy)
		return -1;
	if (!pr->pid && exec_start(pr))
		return -1;
	pr->before = pr->shared->commands;
	pr->t_start = fz_now();
	if (write(pr->in, p, sizeof(*p)) != (ssize_t)sizeof(*p)) {
		exec_stop(pr);
		return -1;
	}
	pr->busy = 1;
	return 0;
}

#define HANG_SECONDS 20

/* a line of a /proc file, newline dropped; "" when it cannot be read */
static void proc_line(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, len - 1);

	if (fd >= 0)
		close(fd);
	buf[n > 0 ? n : 0] = 0;
	buf[strcspn(buf, "\n")] = 0;
}

/*
 * What each thread of a hung program waits in: its system call, the file
 * its first argument names (when it names one) and its kernel wait
 * channel, one FUZZ-HANG line each, before the processes are killed.
 */
static void hang_report(const struct proc *pr)
{
	char path[96], sys[160], wchan[64], target[128];
	struct dirent *d;
	int k;

	for (k = 0; k < FZ_ACTORS; k++) {
		pid_t pid = pr->shared->actor_pid[k];
		DIR *dir;

		snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
		dir = pid > 0 ? opendir(path) : NULL;
		while (dir && (d = readdir(dir))) {
			int tid = atoi(d->d_name);
			long nr = -1, arg = -1;
			ssize_t n = -1;

			if (tid <= 0)
				continue;
			snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)pid, tid);
			proc_line(path, sys, sizeof(sys));
			snprintf(path, sizeof(path), "/proc/%d/task/%d/wchan", (int)pid, tid);
			proc_line(path, wchan, sizeof(wchan));
			if (sscanf(sys, "%ld %lx", &nr, &arg) == 2 && arg >= 0 && arg < 4096) {
				snprintf(path, sizeof(path), "/proc/%d/fd/%ld", (int)pid, arg);
				n = readlink(path, target, sizeof(target) - 1);
			}
			target[n > 0 ? n : 0] = 0;
			printf("FUZZ-HANG actor %d tid %d syscall %ld fd %ld -> %s wchan %s\n", k,
			       tid, nr, arg, n > 0 ? target : "-", wchan[0] ? wchan : "-");
		}
		if (dir)
			closedir(dir);
	}
	fflush(stdout);
}

int fz_exec_wait(int *which, long *commands)
{
	struct pollfd pfd[FZ_MAX_PROCS];
	int idx[FZ_MAX_PROCS], n, i, r, ret = 0;
	struct proc *pr = NULL;
	uint8_t done;

	for (;;) {
		double first = 0;

		for (n = 0, i = 0; i < nprocs; i++) {
			if (!procs[i].busy)
				continue;
			if (!n || procs[i].t_start < first)
				first = procs[i].t_start;
			pfd[n] = (struct pollfd){ .fd = procs[i].out, .events = POLLIN };
			idx[n++] = i;
		}
		if (!n)
			return -2;
		r = poll(pfd, (nfds_t)n, (int)((first + HANG_SECONDS - fz_now()) * 1000) + 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r > 0) {
			for (i = 0; i < n && !pr; i++)
				if (pfd[i].revents)
					pr = &procs[idx[i]];
			if (read(pr->out, &done, 1) != 1)
				exec_stop(pr);	/* the fork server died: the log tells */
			else if (done)
				ret = 1;	/* the executor died of a signal (an oops?) */
			break;
		}
		/* the oldest program that ran past its time hung */
		for (i = 0; i < n && !pr; i++)
			if (fz_now() - procs[idx[i]].t_start >= HANG_SECONDS)
				pr = &procs[idx[i]];
		if (pr) {
			ret = -1;
			hang_report(pr);
			exec_stop(pr);
			break;
		}
	}
	pr->busy = 0;
	*which = (int)(pr - procs);
	if (pr->shared->injected)
		exec_disarm();
	if (pr->shared->hotplugged)
		hotplug_write("add 1");	/* EEXIST when it is there */
	*commands += pr->shared->commands - pr->before;
	fz_prof(FZ_PH_EXEC, pr->t_start);
	return ret;
}

int fz_exec(const struct fz_prog *p, long *commands)
{
	int which;

	if (fz_exec_submit(0, p))
		return 0;
	return fz_exec_wait(&which, commands);
}
