// SPDX-License-Identifier: GPL-2.0
/*
 * The executor: runs one program against /dev/xqp/uverbsN. Actor 0 is the
 * executor process itself; actors 1..3 are forked from it by FZ_FORK (so they
 * inherit its files, which they may not write: EACCES, and open their own)
 * and run their ops in lock-step, sent over a pipe. QP and SRQ numbers and
 * MR keys go to a shared page, so any actor can name another's objects.
 * FZ_RACE runs the next two ops of actor 0 at once, in two threads.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <rdma/ib_user_verbs.h>

#include "fuzz.h"
#include "xqp_uverbs.h"

/* enum ib_qp_type values (uverbs passes them as they are) */
enum { QPT_RC = 2, QPT_UC = 3, QPT_UD = 4, QPT_XRC_INI = 9, QPT_XRC_TGT = 10 };

enum { T_PD, T_CQ, T_QP, T_SRQ, T_XRCD, T_MR, T_AH, NT };
#define MAX_OBJ	12
#define MAX_COMP 4
#define BUF_PAGES 16

struct obj {
	uint32_t handle, num, lkey, rkey;
	uint8_t qp_type;
};

struct ufile {
	int fd, async_fd, dev;
	int n[NT];
	struct obj o[NT][MAX_OBJ];
	int comp[MAX_COMP], ncomp;
};

struct actor {
	struct ufile f[FZ_FILES];
	int xrcd_fd[2];
};

struct fz_shared {
	uint32_t qpn[32], srqn[32];
	uint32_t nqpn, nsrqn;
	struct { uint32_t rkey; uint64_t addr; } mr[16];
	uint32_t nmr;
	uint32_t injected;	/* an FZ_INJECT ran: disarm after the program */
	long commands;
};

static struct fz_shared *shared;
static uint8_t *mrbuf;		/* BUF_PAGES pages, same address in every actor */
static __thread int fail_nth_fd = -1;
int fz_verbose;

static void count(void)
{
	__atomic_add_fetch(&shared->commands, 1, __ATOMIC_RELAXED);
}

/* a write() of header + body; 0 or the errno */
static int cmd(int fd, uint32_t command, void *body, size_t len, uint32_t out_words,
	       const struct fz_op *op)
{
	uint8_t buf[8 + 1024];
	struct ib_uverbs_cmd_hdr hdr = {
		.command = command, .in_words = (uint16_t)((8 + len) / 4),
		.out_words = (uint16_t)out_words,
	};
	size_t total = 8 + len;
	int failing = (op->file & 0x80) && fail_nth_fd >= 0, ret;

	if (len > 1024)
		return E2BIG;
	/* now and then a header or a body byte goes wrong */
	if (op->a[12] >= 0xf8) {
		switch (op->a[12] & 3) {
		case 0: hdr.in_words = (uint16_t)(hdr.in_words + 1 - (op->a[11] & 3)); break;
		case 1: hdr.out_words = op->a[11]; break;
		case 2: hdr.command |= (uint32_t)op->a[11] << 24; break;
		default: total = 8 + (len ? op->a[11] % len : 0); break;
		}
	}
	memcpy(buf, &hdr, sizeof(hdr));
	memcpy(buf + 8, body, len);
	if (op->a[12] >= 0xf0 && op->a[12] < 0xf8 && len)
		buf[8 + op->a[11] % len] ^= (uint8_t)(1u << (op->a[10] & 7));
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

static void add_obj(struct ufile *f, int t, struct obj o)
{
	if (f->n[t] < MAX_OBJ)
		f->o[t][f->n[t]++] = o;
	else
		f->o[t][o.handle % MAX_OBJ] = o;
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

static uint32_t pub_qpn(uint8_t b)
{
	uint32_t n = __atomic_load_n(&shared->nqpn, __ATOMIC_RELAXED);

	if (b >= 0xf0 || !n)
		return b >= 0xf0 ? (uint32_t)b << 16 : b;
	return shared->qpn[b % (n < 32 ? n : 32)];
}

static uint32_t pub_srqn(uint8_t b)
{
	uint32_t n = __atomic_load_n(&shared->nsrqn, __ATOMIC_RELAXED);

	if (b >= 0xf0 || !n)
		return b;
	return shared->srqn[b % (n < 32 ? n : 32)];
}

static void publish(uint32_t *arr, uint32_t *n, uint32_t v)
{
	uint32_t i = __atomic_fetch_add(n, 1, __ATOMIC_RELAXED);

	arr[i % 32] = v;
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

/* ---- the commands --------------------------------------------------------- */

static void sges(struct ufile *f, const uint8_t *a, struct ib_uverbs_sge *s, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct obj *mr = obj_of(f, T_MR, a[i]);

		s[i].addr = (uintptr_t)mrbuf + (a[i] & 0x70) * 64u;
		s[i].length = 1u << (a[i] % 13);
		s[i].lkey = mr ? mr->lkey : a[i];
	}
}

static const uint32_t qp_states_mask[7][5] = {
	/* RC/XRC_INI/XRC_TGT, UC, UD: the masks IB requires for each target */
	[1] = { 1 | 1 << 3 | 1 << 4 | 1 << 5, 1 | 1 << 3 | 1 << 4 | 1 << 5,
		1 | 1 << 4 | 1 << 5 | 1 << 6 },
	[2] = { 1 | 1 << 7 | 1 << 8 | 1 << 20 | 1 << 12 | 1 << 17 | 1 << 15,
		1 | 1 << 7 | 1 << 8 | 1 << 20 | 1 << 12, 1 },
	[3] = { 1 | 1 << 16 | 1 << 9 | 1 << 10 | 1 << 11 | 1 << 13, 1 | 1 << 16, 1 | 1 << 16 },
};

static int modify_qp(struct ufile *f, const struct fz_op *op)
{
	struct ib_uverbs_modify_qp m;
	struct obj *qp = obj_of(f, T_QP, op->a[0]);
	int state = op->a[1] % 7, cls = 0;

	memset(&m, 0, sizeof(m));
	m.qp_handle = handle_of(f, T_QP, op->a[0]);
	if (qp && qp->qp_type == QPT_UC)
		cls = 1;
	else if (qp && qp->qp_type == QPT_UD)
		cls = 2;
	m.attr_mask = qp_states_mask[state][cls] ? qp_states_mask[state][cls] : 1;
	if (op->a[2] % 8 == 0)
		m.attr_mask ^= 1u << (op->a[3] % 22);
	else if (op->a[2] % 16 == 1)
		m.attr_mask = (uint32_t)op->a[3] << 12 | op->a[4] << 4 | (op->a[5] & 0xf);
	m.qp_state = (uint8_t)state;
	m.cur_qp_state = op->a[6] % 7;
	m.port_num = op->a[7] % 16 ? 1 : op->a[7] % 4;
	m.pkey_index = op->a[7] % 32 == 3;
	m.qp_access_flags = op->a[8] % 16;
	m.qkey = op->a[8] & 0x80 ? 0x80000000u | op->a[8] : 0x11111111u;
	m.path_mtu = 1 + op->a[9] % 5;
	m.dest_qp_num = pub_qpn(op->a[4]);
	m.dest.dlid = 1 + op->a[5] % 2;
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
	return cmd(f->fd, IB_USER_VERBS_CMD_MODIFY_QP, &m, sizeof(m), 0, op);
}

static int create_qp(struct ufile *f, const struct fz_op *op)
{
	static const uint32_t types[] = { QPT_RC, QPT_UC, QPT_UD,
					  QPT_XRC_INI, QPT_XRC_TGT,
					  QPT_RC, QPT_XRC_TGT };
	struct ib_uverbs_create_qp_resp r;
	struct ib_uverbs_create_qp c;
	int err;

	memset(&c, 0, sizeof(c));
	c.response = (uintptr_t)&r;
	c.user_handle = op->a[0];
	c.qp_type = (uint8_t)pick_u32(op->a[1], types, 7);
	c.pd_handle = c.qp_type == QPT_XRC_TGT ? handle_of(f, T_XRCD, op->a[2])
							 : handle_of(f, T_PD, op->a[2]);
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
	err = cmd(f->fd, IB_USER_VERBS_CMD_CREATE_QP, &c, sizeof(c), sizeof(r) / 4, op);
	if (!err) {
		add_obj(f, T_QP, (struct obj){ .handle = r.qp_handle, .num = r.qpn,
					       .qp_type = c.qp_type });
		publish(shared->qpn, &shared->nqpn, r.qpn);
	}
	return err;
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
		struct ib_uverbs_sge sge[8];
	} b;
	struct ib_uverbs_post_send_resp r;
	struct obj *qp = obj_of(f, T_QP, op->a[0]);
	uint32_t nwr = 1 + op->a[1] % 4, wqe = op->a[2] % 8 ? sizeof(b.wr[0]) :
					     sizeof(struct ib_uverbs_send_wr);
	uint32_t i, nsge = 0;
	uint8_t *p;

	memset(&b, 0, sizeof(b));
	b.h.response = (uintptr_t)&r;
	b.h.qp_handle = handle_of(f, T_QP, op->a[0]);
	b.h.wr_count = nwr;
	b.h.wqe_size = wqe;
	for (i = 0; i < nwr; i++) {
		struct xqp_uverbs_send_wr *w = &b.wr[i];
		uint32_t mri = shared->nmr ? op->a[4 + i] % (shared->nmr < 16 ? shared->nmr : 16) : 0;

		w->wr.wr_id = i;
		w->wr.num_sge = (op->a[3] >> (2 * i)) % 3;
		if (nsge + w->wr.num_sge > 8)
			w->wr.num_sge = 0;
		nsge += w->wr.num_sge;
		w->wr.opcode = pick_u32(op->a[8 + i % 2], opcodes, 10);
		w->wr.send_flags = op->a[10] & 0xf;
		if (qp && qp->qp_type == QPT_UD) {
			w->wr.wr.ud.ah = handle_of(f, T_AH, op->a[4 + i]);
			w->wr.wr.ud.remote_qpn = pub_qpn(op->a[4 + i]);
			w->wr.wr.ud.remote_qkey = 0x11111111u;
		} else {
			w->wr.wr.rdma.remote_addr = shared->nmr ? shared->mr[mri].addr : 0;
			w->wr.wr.rdma.rkey = shared->nmr ? shared->mr[mri].rkey : op->a[4 + i];
			if (w->wr.opcode >= IB_UVERBS_WR_ATOMIC_CMP_AND_SWP)
				w->wr.wr.atomic.rkey = w->wr.wr.rdma.rkey;
		}
		w->xrc_remote_srq_num = pub_srqn(op->a[11]);
	}
	b.h.sge_count = nsge;
	sges(f, &op->a[4], b.sge, (int)nsge);
	/* the SGEs follow the WQEs of the size announced */
	p = (uint8_t *)b.wr;
	if (wqe != sizeof(b.wr[0]))
		for (i = 0; i < nwr; i++)
			memmove(p + i * wqe, &b.wr[i], wqe);
	memmove(p + nwr * wqe, b.sge, nsge * sizeof(b.sge[0]));
	return cmd(f->fd, IB_USER_VERBS_CMD_POST_SEND, &b,
		   sizeof(b.h) + nwr * wqe + nsge * sizeof(b.sge[0]), sizeof(r) / 4, op);
}

static int post_recv(struct ufile *f, const struct fz_op *op, int srq)
{
	struct {
		struct ib_uverbs_post_recv h;
		struct ib_uverbs_recv_wr wr[4];
		struct ib_uverbs_sge sge[8];
	} b;
	struct ib_uverbs_post_recv_resp r;
	uint32_t nwr = 1 + op->a[1] % 4, i, nsge = 0;

	memset(&b, 0, sizeof(b));
	b.h.response = (uintptr_t)&r;
	b.h.qp_handle = handle_of(f, srq ? T_SRQ : T_QP, op->a[0]);
	b.h.wr_count = nwr;
	b.h.wqe_size = op->a[2] % 16 ? sizeof(b.wr[0]) : op->a[2];
	if (b.h.wqe_size != sizeof(b.wr[0]))
		b.h.wqe_size = 8;	/* too small: EINVAL */
	for (i = 0; i < nwr; i++) {
		b.wr[i].wr_id = i;
		b.wr[i].num_sge = (op->a[3] >> (2 * i)) % 3;
		nsge += b.wr[i].num_sge;
	}
	b.h.sge_count = nsge;
	sges(f, &op->a[4], b.sge, (int)nsge);
	memmove(&b.wr[nwr], b.sge, nsge * sizeof(b.sge[0]));
	return cmd(f->fd, srq ? IB_USER_VERBS_CMD_POST_SRQ_RECV : IB_USER_VERBS_CMD_POST_RECV,
		   &b, sizeof(b.h) + nwr * sizeof(b.wr[0]) + nsge * sizeof(b.sge[0]),
		   sizeof(r) / 4, op);
}

static int reg_mr(struct ufile *f, const struct fz_op *op)
{
	static const uint32_t access[] = { 0, 1, 0xf, 0x7, 0x3, 0x1 | 0x8, 0x4, 0x2 | 0x1 };
	struct ib_uverbs_reg_mr_resp r;
	struct ib_uverbs_reg_mr m;
	int err;

	memset(&m, 0, sizeof(m));
	m.response = (uintptr_t)&r;
	m.start = (uintptr_t)mrbuf + (op->a[1] % BUF_PAGES) * 4096u + (op->a[2] % 8 ? 0 : op->a[2]);
	m.length = op->a[3] % 8 ? (1u + op->a[3]) * 64u : (uint64_t)op->a[3] << 20;
	m.hca_va = op->a[5] % 4 ? m.start : m.start + op->a[5];
	m.pd_handle = handle_of(f, T_PD, op->a[0]);
	m.access_flags = pick_u32(op->a[4], access, 8);
	if (op->a[6] % 16 == 0)
		m.start = m.hca_va = 0x1000;	/* nothing mapped there */
	if (m.start - (uintptr_t)mrbuf + m.length > BUF_PAGES * 4096u && op->a[6] % 4)
		m.length = BUF_PAGES * 4096u - (m.start - (uintptr_t)mrbuf);
	err = cmd(f->fd, IB_USER_VERBS_CMD_REG_MR, &m, sizeof(m), sizeof(r) / 4, op);
	if (!err) {
		uint32_t i = __atomic_fetch_add(&shared->nmr, 1, __ATOMIC_RELAXED) % 16;

		add_obj(f, T_MR, (struct obj){ .handle = r.mr_handle, .lkey = r.lkey, .rkey = r.rkey });
		shared->mr[i].rkey = r.rkey;
		shared->mr[i].addr = m.hca_va;
	}
	return err;
}

static const char *const soft_ops[] = {
	"query_device", "query_port", "alloc_pd", "dealloc_pd", "create_cq", "destroy_cq",
	"alloc_xrcd", "dealloc_xrcd", "create_srq", "destroy_srq", "create_qp", "modify_qp",
	"query_qp", "destroy_qp", "reg_mr", "dereg_mr",
};
#define N_SOFT_OPS (int)(sizeof(soft_ops) / sizeof(soft_ops[0]))

static void inject(const struct fz_op *op)
{
	static const int errs[] = { 16, 5, 12, 22 };
	char path[96], line[64];
	int fd, k;

	snprintf(path, sizeof(path), "/sys/kernel/debug/xqp_soft/xqp_soft%d/inject", op->a[0] % 2);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	k = snprintf(line, sizeof(line), "%s %d %d", soft_ops[op->a[1] % N_SOFT_OPS],
		     errs[op->a[2] % 4], op->a[3] % 4);
	count();
	__atomic_store_n(&shared->injected, 1, __ATOMIC_RELAXED);
	(void)!write(fd, line, (size_t)k);
	close(fd);
}

void fz_exec_disarm(void);
void fz_exec_disarm(void)
{
	char path[96], line[64];
	int d, i, fd, k;

	for (d = 0; d < 2; d++) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/xqp_soft/xqp_soft%d/inject", d);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		for (i = 0; i < N_SOFT_OPS; i++) {
			k = snprintf(line, sizeof(line), "%s 0", soft_ops[i]);
			(void)!write(fd, line, (size_t)k);
		}
		close(fd);
	}
}

/* an arbitrary write: header fields and body from the op's bytes */
static int raw(struct ufile *f, const struct fz_op *op)
{
	uint8_t buf[8 + 24 + 256], resp[512];
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
		x->cmd_hdr_reserved = op->a[5] & 4 ? 0 : x->cmd_hdr_reserved;
		h->in_words = (uint16_t)((len - 8 - 16 > 0 ? len - 24 : 0) / 8);
	} else if (len >= 16 && (op->a[5] & 2)) {
		uint64_t r = (uintptr_t)resp;

		memcpy(buf + 8, &r, 8);
	}
	count();
	return write(f->fd, buf, len) < 0 ? errno : 0;
}

static void nonblock(int fd)
{
	if (fd >= 0)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static int xrcd_file(struct actor *ac, int i)
{
	static const char *const path[2] = { "/tmp/xqp-fuzz-xrcd-a", "/tmp/xqp-fuzz-xrcd-b" };

	if (ac->xrcd_fd[i] <= 0)
		ac->xrcd_fd[i] = open(path[i], O_RDONLY | O_CREAT | O_CLOEXEC, 0600);
	return ac->xrcd_fd[i];
}

static int run_op(struct actor *ac, const struct fz_op *op)
{
	struct ufile *f = &ac->f[(op->file & 0x7f) % FZ_FILES];
	const uint8_t *a = op->a;
	int err = 0;

	if (op->kind % FZ_OP_COUNT != FZ_OPEN && f->fd < 0) {
		/* an op on a closed file goes to the first open one */
		int k;

		for (k = 0; k < FZ_FILES && ac->f[k].fd < 0; k++)
			;
		if (k == FZ_FILES)
			return EBADF;
		f = &ac->f[k];
	}
	switch (op->kind % FZ_OP_COUNT) {
	case FZ_OPEN: {
		char path[32];

		if (f->fd >= 0)
			close_file(f, a[1] & 1);
		snprintf(path, sizeof(path), "/dev/xqp/uverbs%d", a[0] % 2);
		f->fd = open(path, O_RDWR | O_CLOEXEC);
		f->dev = a[0] % 2;
		count();
		return f->fd < 0 ? errno : 0;
	}
	case FZ_CLOSE:
		count();
		close_file(f, a[0] & 1);
		return 0;
	case FZ_GET_CONTEXT: {
		struct ib_uverbs_get_context_resp r;
		struct ib_uverbs_get_context g = { .response = (uintptr_t)&r };

		err = cmd(f->fd, IB_USER_VERBS_CMD_GET_CONTEXT, &g, sizeof(g), sizeof(r) / 4, op);
		if (!err) {
			if (f->async_fd >= 0)
				close(f->async_fd);
			f->async_fd = (int)r.async_fd;
			nonblock(f->async_fd);
		}
		return err;
	}
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
	case FZ_ALLOC_PD: {
		struct ib_uverbs_alloc_pd_resp r;
		struct ib_uverbs_alloc_pd c = { .response = a[0] % 16 ? (uintptr_t)&r : 8 };

		err = cmd(f->fd, IB_USER_VERBS_CMD_ALLOC_PD, &c, sizeof(c), sizeof(r) / 4, op);
		if (!err)
			add_obj(f, T_PD, (struct obj){ .handle = r.pd_handle });
		return err;
	}
	case FZ_DEALLOC_PD: {
		struct ib_uverbs_dealloc_pd c = { .pd_handle = handle_of(f, T_PD, a[0]) };

		err = cmd(f->fd, IB_USER_VERBS_CMD_DEALLOC_PD, &c, sizeof(c), 0, op);
		if (!err)
			remove_handle(f, T_PD, c.pd_handle);
		return err;
	}
	case FZ_CREATE_AH: {
		struct ib_uverbs_create_ah_resp r;
		struct ib_uverbs_create_ah c;

		memset(&c, 0, sizeof(c));
		c.response = (uintptr_t)&r;
		c.pd_handle = handle_of(f, T_PD, a[0]);
		c.attr.port_num = a[1] % 8 ? 1 : a[1] % 4;
		c.attr.dlid = 1 + a[2] % 3;
		c.attr.is_global = a[3] % 8 == 0;
		c.attr.sl = a[4] % 16;
		c.attr.grh.hop_limit = a[5];
		err = cmd(f->fd, IB_USER_VERBS_CMD_CREATE_AH, &c, sizeof(c), sizeof(r) / 4, op);
		if (!err)
			add_obj(f, T_AH, (struct obj){ .handle = r.ah_handle });
		return err;
	}
	case FZ_DESTROY_AH: {
		struct ib_uverbs_destroy_ah c = { .ah_handle = handle_of(f, T_AH, a[0]) };

		err = cmd(f->fd, IB_USER_VERBS_CMD_DESTROY_AH, &c, sizeof(c), 0, op);
		if (!err)
			remove_handle(f, T_AH, c.ah_handle);
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
	case FZ_CREATE_COMP_CHANNEL: {
		struct ib_uverbs_create_comp_channel_resp r;
		struct ib_uverbs_create_comp_channel c = { .response = (uintptr_t)&r };

		err = cmd(f->fd, IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL, &c, sizeof(c),
			  sizeof(r) / 4, op);
		if (!err) {
			nonblock((int)r.fd);
			if (f->ncomp < MAX_COMP)
				f->comp[f->ncomp++] = (int)r.fd;
			else
				close((int)r.fd);
		}
		return err;
	}
	case FZ_CREATE_CQ: {
		static const uint32_t cqes[] = { 1, 4, 16, 64, 255, 3, 0, 100000 };
		struct ib_uverbs_create_cq_resp r;
		struct ib_uverbs_create_cq c;

		memset(&c, 0, sizeof(c));
		c.response = (uintptr_t)&r;
		c.user_handle = a[0];
		c.cqe = pick_u32(a[1], cqes, 8);
		c.comp_vector = a[2] % 16 == 0;
		c.comp_channel = a[3] % 3 == 0 || !f->ncomp ? -1 :
				 a[3] % 3 == 1 ? f->comp[a[4] % f->ncomp] : (int)a[4] % 8;
		err = cmd(f->fd, IB_USER_VERBS_CMD_CREATE_CQ, &c, sizeof(c), sizeof(r) / 4, op);
		if (!err)
			add_obj(f, T_CQ, (struct obj){ .handle = r.cq_handle });
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

		err = cmd(f->fd, IB_USER_VERBS_CMD_CREATE_SRQ, &c, sizeof(c), sizeof(r) / 4, op);
		if (!err)
			add_obj(f, T_SRQ, (struct obj){ .handle = r.srq_handle, .num = r.srqn });
		return err;
	}
	case FZ_CREATE_XSRQ: {
		struct ib_uverbs_create_srq_resp r;
		struct ib_uverbs_create_xsrq c = {
			.response = (uintptr_t)&r, .user_handle = a[0],
			.srq_type = a[1] % 8 < 5 ? 1 : a[1] % 8 < 7 ? 0 : a[1] % 4,
			.pd_handle = handle_of(f, T_PD, a[2]), .max_wr = a[3] % 64,
			.max_sge = a[4] % 5, .srq_limit = a[5] % 8,
			.xrcd_handle = handle_of(f, T_XRCD, a[6]),
			.cq_handle = handle_of(f, T_CQ, a[7]),
		};

		err = cmd(f->fd, IB_USER_VERBS_CMD_CREATE_XSRQ, &c, sizeof(c), sizeof(r) / 4, op);
		if (!err) {
			add_obj(f, T_SRQ, (struct obj){ .handle = r.srq_handle, .num = r.srqn });
			if (r.srqn)
				publish(shared->srqn, &shared->nsrqn, r.srqn);
		}
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
	case FZ_OPEN_XRCD: {
		struct ib_uverbs_open_xrcd_resp r;
		struct ib_uverbs_open_xrcd c = { .response = (uintptr_t)&r };

		c.fd = a[0] % 3 == 2 ? 0xffffffffu : (uint32_t)xrcd_file(ac, a[0] % 3);
		c.oflags = a[1] % 3 == 0 ? 0 : a[1] % 3 == 1 ? O_CREAT : O_CREAT | O_EXCL;
		err = cmd(f->fd, IB_USER_VERBS_CMD_OPEN_XRCD, &c, sizeof(c), sizeof(r) / 4, op);
		if (!err)
			add_obj(f, T_XRCD, (struct obj){ .handle = r.xrcd_handle });
		return err;
	}
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

		memset(&c, 0, sizeof(c));
		c.response = (uintptr_t)&r;
		c.user_handle = a[0];
		c.pd_handle = handle_of(f, T_XRCD, a[1]);
		c.qpn = pub_qpn(a[2]);
		c.qp_type = a[3] % 8 ? QPT_XRC_TGT : a[3] % 16;
		err = cmd(f->fd, IB_USER_VERBS_CMD_OPEN_QP, &c, sizeof(c), sizeof(r) / 4, op);
		if (!err)
			add_obj(f, T_QP, (struct obj){ .handle = r.qp_handle, .num = r.qpn,
						       .qp_type = QPT_XRC_TGT });
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
	}
	return 0;
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
		uint8_t done = (uint8_t)run_op(ac, &op);

		if (fz_verbose)
			printf("  actor %d: %s file %d -> %s\n", op.actor % FZ_ACTORS,
			       fz_kind_name[op.kind % FZ_OP_COUNT], (op.file & 0x7f) % FZ_FILES,
			       done ? strerror(done) : "ok");

		if (write(out, &done, 1) != 1)
			break;
	}
	_exit(0);
}

static void fork_actor(struct actor *ac, struct child *c, int slot)
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
		fz_cover_enable(slot);
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
	c->to = to[1];
	c->from = from[0];
}

static void kill_actor(struct child *c)
{
	if (!c->pid)
		return;
	count();
	kill(c->pid, SIGKILL);
	waitpid(c->pid, NULL, 0);
	close(c->to);
	close(c->from);
	c->pid = 0;
}

static void send_op(struct child *c, const struct fz_op *op)
{
	uint8_t done;

	if (!c->pid)
		return;
	if (write(c->to, op, sizeof(*op)) != (ssize_t)sizeof(*op) ||
	    read(c->from, &done, 1) != 1)
		kill_actor(c);
}

struct race {
	struct actor copy;
	const struct fz_op *op;
};

static void *race_thread(void *arg)
{
	struct race *r = arg;

	run_op(&r->copy, r->op);
	return NULL;
}

/*
 * One program, then everything it left is torn down (actors killed, files
 * closed: the device's file teardown runs with whatever objects remain).
 */
static void run_prog(struct actor *ac, const struct fz_prog *p)
{
	struct child kids[FZ_ACTORS] = { 0 };
	int i, k;

	for (k = 0; k < FZ_FILES; k++)
		reset_file(&ac->f[k]);
	ac->xrcd_fd[0] = ac->xrcd_fd[1] = -1;
	for (i = 0; i < p->n; i++) {
		const struct fz_op *op = &p->op[i];
		int actor = op->actor % FZ_ACTORS;

		switch (op->kind % FZ_OP_COUNT) {
		case FZ_FORK:
			k = 1 + op->a[0] % (FZ_ACTORS - 1);
			if (!kids[k].pid)
				fork_actor(ac, &kids[k], k);
			continue;
		case FZ_KILL:
			kill_actor(&kids[1 + op->a[0] % (FZ_ACTORS - 1)]);
			continue;
		case FZ_RACE:
			if (i + 2 < p->n) {
				static struct race r;
				pthread_t t;

				r.copy = *ac;
				r.op = &p->op[i + 1];
				if (pthread_create(&t, NULL, race_thread, &r) == 0) {
					run_op(ac, &p->op[i + 2]);
					pthread_join(t, NULL);
					i += 2;
				}
			}
			continue;
		}
		if (actor == 0) {
			int err = run_op(ac, op);

			if (fz_verbose)
				printf("  actor 0: %s file %d -> %s\n", fz_kind_name[op->kind % FZ_OP_COUNT],
				       (op->file & 0x7f) % FZ_FILES, err ? strerror(err) : "ok");
		} else {
			send_op(&kids[actor], op);
		}
	}
	for (k = 1; k < FZ_ACTORS; k++)
		kill_actor(&kids[k]);
	for (k = 0; k < FZ_FILES; k++)
		close_file(&ac->f[k], 1);
	for (k = 0; k < 2; k++)
		if (ac->xrcd_fd[k] >= 0)
			close(ac->xrcd_fd[k]);
}

/* The executor: programs from `in`, one byte to `out` after each. */
static void executor(int in, int out)
{
	static struct actor ac;
	static struct fz_prog p;

	setpgid(0, 0);
	fail_nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	fz_cover_enable(0);
	for (;;) {
		uint8_t done = 1;

		if (read(in, &p, sizeof(p)) != (ssize_t)sizeof(p))
			_exit(0);
		memset(shared, 0, offsetof(struct fz_shared, commands));
		run_prog(&ac, &p);
		if (write(out, &done, 1) != 1)
			_exit(0);
	}
}

int fz_exec_init(void)
{
	int fd;

	shared = mmap(NULL, sizeof(*shared), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		      -1, 0);
	mrbuf = mmap(NULL, BUF_PAGES * 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		     -1, 0);
	if (shared == MAP_FAILED || mrbuf == MAP_FAILED)
		return -1;
	/* failslab: fail GFP_KERNEL allocations too, and quietly */
	fd = open("/sys/kernel/debug/failslab/ignore-gfp-wait", O_WRONLY);
	if (fd >= 0) {
		(void)!write(fd, "N", 1);
		close(fd);
	}
	fd = open("/sys/kernel/debug/failslab/verbose", O_WRONLY);
	if (fd >= 0) {
		(void)!write(fd, "0", 1);
		close(fd);
	}
	fd = open("/sys/kernel/debug/fail_page_alloc/verbose", O_WRONLY);
	if (fd >= 0) {
		(void)!write(fd, "0", 1);
		close(fd);
	}
	return 0;
}


/* the running executor, restarted after a hang or a death, and now and then */
#define EXEC_PROGRAMS 2000
static pid_t exec_pid;
static int exec_in = -1, exec_out = -1, exec_runs;

static void exec_stop(void)
{
	if (!exec_pid)
		return;
	kill(-exec_pid, SIGKILL);
	kill(exec_pid, SIGKILL);
	waitpid(exec_pid, NULL, 0);
	/* actors orphaned by it come to us (PR_SET_CHILD_SUBREAPER) */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	close(exec_in);
	close(exec_out);
	exec_pid = 0;
}

static int exec_start(void)
{
	int to[2], from[2];

	if (pipe2(to, O_CLOEXEC))
		return -1;
	if (pipe2(from, O_CLOEXEC)) {
		close(to[0]);
		close(to[1]);
		return -1;
	}
	exec_pid = fork();
	if (exec_pid == 0) {
		close(to[1]);
		close(from[0]);
		executor(to[0], from[1]);
	}
	close(to[0]);
	close(from[1]);
	if (exec_pid < 0) {
		exec_pid = 0;
		close(to[1]);
		close(from[0]);
		return -1;
	}
	setpgid(exec_pid, exec_pid);
	exec_in = to[1];
	exec_out = from[0];
	exec_runs = 0;
	return 0;
}

int fz_exec(const struct fz_prog *p, long *commands)
{
	long before = shared->commands;
	struct pollfd pfd;
	uint8_t done;
	int ret = 0, r;

	if (exec_pid && exec_runs >= EXEC_PROGRAMS)
		exec_stop();
	if (!exec_pid && exec_start())
		return 0;
	exec_runs++;
	signal(SIGPIPE, SIG_IGN);
	if (write(exec_in, p, sizeof(*p)) != (ssize_t)sizeof(*p)) {
		exec_stop();
		goto out;
	}
	pfd = (struct pollfd){ .fd = exec_out, .events = POLLIN };
	do
		r = poll(&pfd, 1, 20000);
	while (r < 0 && errno == EINTR);
	if (r == 0) {
		ret = -1;	/* hung */
		exec_stop();
	} else if (read(exec_out, &done, 1) != 1) {
		exec_stop();	/* died (killed by an oops?): the log tells */
	}
out:
	if (shared->injected)
		fz_exec_disarm();
	*commands += shared->commands - before;
	return ret;
}
