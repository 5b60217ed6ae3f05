// SPDX-License-Identifier: GPL-2.0
/* The executor: what an op's bytes name (argument resolution), and the ops that create objects. */
#include "exec.h"

/* ---- argument resolution -------------------------------------------------- */

uint32_t handle_of(struct ufile *f, int t, uint8_t b)
{
	if (b >= 0xf8)
		return b == 0xff ? 0xffffffffu : (uint32_t)(b - 0xf8) * 3;
	if (!f->n[t])
		return b % 4;
	return f->o[t][b % f->n[t]].handle;
}

struct obj *obj_of(struct ufile *f, int t, uint8_t b)
{
	return f->n[t] ? &f->o[t][b % f->n[t]] : NULL;
}

/* the object a handle_of() byte names, when it names one of this file's */
struct obj *named(struct ufile *f, int t, uint8_t b)
{
	return b < 0xf8 ? obj_of(f, t, b) : NULL;
}

struct obj *add_obj(struct ufile *f, int t, struct obj o)
{
	struct obj *slot;

	if (f->n[t] < MAX_OBJ)
		slot = &f->o[t][f->n[t]++];
	else
		slot = &f->o[t][o.handle % MAX_OBJ];
	*slot = o;
	return slot;
}

void remove_handle(struct ufile *f, int t, uint32_t h)
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

uint32_t pub_qpn(uint8_t b)
{
	uint32_t n = npub(&shared->nqp);

	if (b >= 0xf0 || !n)
		return b >= 0xf0 ? (uint32_t)b << 16 : b;
	return shared->qp[b % n].qpn;
}

uint32_t pub_srqn(uint8_t b)
{
	uint32_t n = npub(&shared->nsrq);

	if (b >= 0xf0 || !n)
		return b;
	return shared->srq[b % n].srqn;
}

/* the b-th published XRC SRQ of @xrcd on @dev, else any published SRQ */
uint32_t pub_xsrqn(uint8_t b, uint16_t xrcd, uint8_t dev)
{
	uint32_t n = npub(&shared->nsrq), i, k = 0, cand[NPUB];

	for (i = 0; i < n && b < 0xf0; i++)
		if (shared->srq[i].xrc && shared->srq[i].xrcd == xrcd && shared->srq[i].dev == dev)
			cand[k++] = shared->srq[i].srqn;
	return k ? cand[b % k] : pub_srqn(b);
}

/* the b-th published MR of @pd on @dev, else of @dev, else any; NULL: none */
const struct pub_mr *pub_mr_of(uint8_t b, uint16_t pd, uint8_t dev)
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

uint32_t pick_u32(uint8_t b, const uint32_t *vals, int nvals)
{
	return b < 0xf0 ? vals[b % nvals] : (uint32_t)b * 0x01010101u;
}

void reset_file(struct ufile *f)
{
	memset(f, 0, sizeof(*f));
	f->fd = f->async_fd = -1;
}

void close_file(struct ufile *f, int aux_too)
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

int open_file(struct ufile *f, int dev)
{
	char path[32];

	snprintf(path, sizeof(path), "/dev/xqp/uverbs%d", dev);
	f->fd = open(path, O_RDWR | O_CLOEXEC);
	f->dev = dev;
	count();
	return f->fd < 0 ? errno : 0;
}

int get_context(struct ufile *f, const struct fz_op *op)
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
struct obj *alloc_pd(struct ufile *f, const struct fz_op *op, uint64_t response,
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

struct obj *create_cq(struct ufile *f, const struct fz_op *op, uint64_t user_handle,
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

int create_channel(struct ufile *f, const struct fz_op *op)
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
struct obj *reg_mr_at(struct ufile *f, const struct fz_op *op, struct obj *pd,
		      uint32_t pd_h, uint64_t start, uint64_t length, uint64_t iova,
		      uint32_t access, int *err)
{
	struct ib_uverbs_reg_mr_resp r;
	struct ib_uverbs_reg_mr m;
	struct obj *mr;

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
	publish_mr(r.rkey, (uint32_t)length, iova, mr->pd, (uint8_t)f->dev);
	return mr;
}

void publish_mr(uint32_t rkey, uint32_t len, uint64_t addr, uint16_t pd, uint8_t dev)
{
	uint32_t i = __atomic_fetch_add(&shared->nmr, 1, __ATOMIC_RELAXED) % 16;

	shared->mr[i] = (struct pub_mr){ .rkey = rkey, .len = len, .addr = addr, .pd = pd,
					 .dev = dev };
}

/* CREATE_QP as given; the object knows its PD or XRCD, device and caps */
struct obj *create_qp_as(struct ufile *f, const struct fz_op *op,
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

struct obj *create_xsrq(struct ufile *f, const struct fz_op *op,
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
struct obj *open_xrcd(struct actor *ac, struct ufile *f, const struct fz_op *op,
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

struct obj *create_ah(struct ufile *f, const struct fz_op *op, const struct obj *pd,
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
