// SPDX-License-Identifier: GPL-2.0
/* The executor: work requests (POST_SEND, POST_RECV, POST_SRQ_RECV) and the MRs they use. */
#include "exec.h"

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

/* A window of this file's rkey as last bound here (a byte now and then). */
static uint32_t window_rkey(struct ufile *f, uint8_t b)
{
	struct obj *mw = named(f, T_MW, b);

	return mw ? mw->rkey : 0x01010101u * b;
}

/*
 * A BIND_MW WR's fields: a window of this file (@b), a piece of an MR of @pd
 * (@sel), an access and a range (@shape: sometimes zero-based, sometimes
 * past the MR, of length 0, or with bits no window has). The window's new
 * rkey is published for remote ops, as if the bind will succeed.
 */
static void bind_fields(struct ufile *f, uint16_t pd, uint8_t b, uint8_t sel, uint8_t shape,
			struct xqp_uverbs_send_wr *w)
{
	static const uint32_t access[] = { 0x6, 0x4, 0x2, 0xe, 0x26, 0x8, 0x1, 0x40 };
	struct obj *mw = named(f, T_MW, b), *mr = mr_of_pd(f, pd, sel);
	uint32_t len = seg_len[shape % 8] ? seg_len[shape % 8] * 4 : 0;
	uint64_t off = ((shape >> 3) % 4) * 256u;

	w->mw_handle = mw ? mw->handle : handle_of(f, T_MW, b);
	w->bind_rkey = mw ? (mw->rkey & ~0xffu) | (uint8_t)(mw->rkey + 1 + (b >> 4)) : b;
	w->mr_lkey = mr ? mr->lkey : sel;
	w->bind_access = access[(shape >> 5) % 8];
	if (mr && off + len > mr->len)
		off = mr->len > len ? mr->len - len : 0;
	if (shape >= 0xf8)
		off = mr ? mr->len : 0;		/* past the MR */
	w->bind_addr = (mr ? mr->addr : 0) + off;
	w->bind_length = len;
	if (!mw)
		return;
	mw->rkey = w->bind_rkey;
	publish_mr(mw->rkey, len, w->bind_access & 0x20 ? 0 : w->bind_addr, mw->pd, mw->dev);
}

int post_send(struct ufile *f, const struct fz_op *op)
{
	static const uint32_t opcodes[] = {
		IB_UVERBS_WR_SEND, IB_UVERBS_WR_SEND, IB_UVERBS_WR_SEND_WITH_IMM,
		IB_UVERBS_WR_RDMA_WRITE, IB_UVERBS_WR_RDMA_WRITE_WITH_IMM, IB_UVERBS_WR_RDMA_READ,
		IB_UVERBS_WR_ATOMIC_CMP_AND_SWP, IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD,
		IB_UVERBS_WR_SEND_WITH_INV, 11, IB_UVERBS_WR_BIND_MW, IB_UVERBS_WR_LOCAL_INV,
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
		w->wr.opcode = pick_u32(a[i & 1 ? 8 : 2], opcodes, 12);
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
		if (w->wr.opcode == IB_UVERBS_WR_BIND_MW)
			bind_fields(f, pd, a[12], a[4], a[7], w);
		else if (w->wr.opcode == IB_UVERBS_WR_LOCAL_INV ||
			 (w->wr.opcode == IB_UVERBS_WR_SEND_WITH_INV && a[12] < 0x80))
			w->wr.ex.invalidate_rkey = window_rkey(f, a[12]);
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
int post_recv_on(struct ufile *f, const struct fz_op *op, int srq, uint32_t handle,
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

int post_recv(struct ufile *f, const struct fz_op *op, int srq)
{
	const uint8_t *a = op->a;
	struct obj *o = named(f, srq ? T_SRQ : T_QP, a[0]);

	return post_recv_on(f, op, srq, handle_of(f, srq ? T_SRQ : T_QP, a[0]), o ? o->pd : 0,
			    1 + a[1] % 4, a[2], a[3], a[4], a[5]);
}

/* ALLOC_MW of type 1 or 2 (now and then 0 or 3) in a PD of this file. */
int alloc_mw(struct ufile *f, const struct fz_op *op)
{
	struct ib_uverbs_alloc_mw_resp r;
	const uint8_t *a = op->a;
	struct obj *pd = named(f, T_PD, a[0]);
	struct ib_uverbs_alloc_mw c = { .response = (uintptr_t)&r,
					.pd_handle = handle_of(f, T_PD, a[0]),
					.mw_type = a[1] % 16 ? 1 + a[1] % 2 : a[1] % 32 ? 0 : 3 };
	int err = cmd(f->fd, IB_USER_VERBS_CMD_ALLOC_MW, &c, sizeof(c), sizeof(r) / 4, op);

	if (!err)
		add_obj(f, T_MW, (struct obj){ .handle = r.mw_handle, .rkey = r.rkey,
					       .pd = pd ? pd->id : 0, .dev = (uint8_t)f->dev });
	return err;
}

/*
 * ATTACH_MCAST or DETACH_MCAST of a QP of this file to one of four groups
 * (IPv6 and IPv4-mapped), now and then a unicast GID, mostly with a
 * multicast LID; an attach that took may also point the QP's UD sends at
 * the group (an AH to its GID on the QP's PD, QP number 0xffffff), so
 * that POST_SEND delivers to every QP attached.
 */
int mcast(struct ufile *f, const struct fz_op *op)
{
	const uint8_t *a = op->a;
	struct obj *qp = named(f, T_QP, a[0]);
	struct ib_uverbs_attach_mcast c = { .qp_handle = handle_of(f, T_QP, a[0]),
					    .mlid = a[2] % 8 ? 0xc000 + a[2] % 4 : a[2] };
	struct ib_uverbs_create_ah_resp r;
	struct ib_uverbs_create_ah ah;
	int err;

	if (a[1] % 16) {
		c.gid[0] = 0xff;
		c.gid[1] = 0x0e;
	} else {
		c.gid[0] = 0xfe;	/* link-local unicast: EINVAL */
		c.gid[1] = 0x80;
	}
	if (a[1] & 0x40) {		/* ::ffff:239.0.0.N */
		memset(c.gid, 0, 16);
		c.gid[10] = c.gid[11] = 0xff;
		c.gid[12] = 239;
	}
	c.gid[15] = (uint8_t)(1 + a[1] % 4);
	err = cmd(f->fd, op->kind == FZ_ATTACH_MCAST ? IB_USER_VERBS_CMD_ATTACH_MCAST :
		  IB_USER_VERBS_CMD_DETACH_MCAST, &c, sizeof(c), 0, op);
	if (err || op->kind != FZ_ATTACH_MCAST || !qp || a[3] % 2)
		return err;
	memset(&ah, 0, sizeof(ah));
	ah.response = (uintptr_t)&r;
	ah.pd_handle = qp->pd_h;
	ah.attr.port_num = 1;
	ah.attr.dlid = c.mlid;
	ah.attr.is_global = 1;
	ah.attr.grh.hop_limit = 1;
	memcpy(ah.attr.grh.dgid, c.gid, 16);
	if (!cmd(f->fd, IB_USER_VERBS_CMD_CREATE_AH, &ah, sizeof(ah), sizeof(r) / 4, op) &&
	    add_obj(f, T_AH, (struct obj){ .handle = r.ah_handle, .pd = qp->pd,
					   .num = c.mlid })) {
		qp->has_ah = 1;
		qp->peer_ah = r.ah_handle;
		qp->peer_qpn = 0xffffff;
		qp->connected = 1;
	}
	return 0;
}

int reg_mr(struct ufile *f, const struct fz_op *op)
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
