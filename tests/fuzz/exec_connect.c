// SPDX-License-Identifier: GPL-2.0
/* The executor: bringing QPs up (FZ_CONNECT, FZ_SETUP). */
#include "exec.h"

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

uint32_t conn_mask(int type, int state)
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
int connect_op(struct actor *ac, struct ufile *f, const struct fz_op *op)
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
int setup_op(struct actor *ac, struct ufile *f, const struct fz_op *op)
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
