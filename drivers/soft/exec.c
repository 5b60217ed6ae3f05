// SPDX-License-Identifier: GPL-2.0
/*
 * Executing send WQEs: the soft device's requester and responder.
 *
 * Each QP with a send queue has one runner at a time (sq_running, under the
 * SQ lock). The runner copies the head WQE out, drops every lock, executes
 * it against the destination QP (which it references, so neither the QP nor
 * its device can go meanwhile), then completes and pops it. Where it runs:
 *  - in the poster's context when that may sleep (a write() of POST_SEND,
 *    a kernel client in process context), for at most SOFT_RUN_INLINE WQEs;
 *  - else, and for the rest, on the seam's work queue (SOFT_RUN_WORK WQEs a
 *    run, then it queues itself again), so no poster is held for long and
 *    a slow receiver stalls only the QPs that send to it;
 *  - an RNR NAK parks the head until the responder's RNR timer has passed,
 *    and so does a message nobody can receive (no such QP, or not in RTR
 *    yet), for the requester's ACK timeout, as a real transport
 *    retransmits (a delayed work item); nothing spins.
 * A message is executed exactly once, in posting order, so RC, UC and XRC
 * messages between two QPs arrive in order; fences hold trivially.
 *
 * There are no packets, but the PSNs a connected QP would give them are
 * kept and honoured (soft_psn_check()): a message takes as many PSNs as it
 * would have packets at the path MTU, the requester's sq_psn against the
 * responder's rq_psn decide whether it is new, a duplicate (re-ACKed; a
 * READ re-executed) or beyond a gap (NAKed: retransmitted, retry_cnt
 * times). A UD message is limited to the port MTU. docs/datapath.md lists
 * the outcomes.
 */
#include "soft_priv.h"

#define SOFT_RUN_INLINE		16	/* WQEs a poster executes itself */
#define SOFT_RUN_WORK		64	/* WQEs one work item run executes */
#define SOFT_RNR_INFINITE	7

/* The IB RNR timer encoding (min_rnr_timer 0..31), in microseconds. */
static const xqp_u32 soft_rnr_us[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

/* What the responder's QP lets requesters do, read under its lock. */
struct soft_resp_attr {
	xqp_u32 access;
	xqp_u32 qkey;
	xqp_u8 min_rnr_timer;
	xqp_u8 max_dest_rd_atomic;	/* 0: no READ or atomic taken */
	xqp_u32 dest_qp_num;		/* a connected responder's peer */
	struct xqp_ah_attr av;		/* and the path to it */
};

/* One execution: the outcome and what the requester's completion says. */
struct soft_result {
	enum soft_exec exec;
	int status;			/* enum xqp_wc_status */
	xqp_u32 byte_len;
	xqp_u8 rnr_timer;		/* with SOFT_EXEC_RNR */
	xqp_u32 npsn;			/* the PSNs it took, when done well */
};

static void soft_sq_work(struct xqp_work *work);

xqp_u32 soft_rnr_delay_us(xqp_u8 timer)
{
	return soft_rnr_us[timer & 31];
}

void soft_exec_init(struct soft_qp *qp)
{
	qp->rnr_left = -1;
	qp->retry_left = -1;
	xqp_work_init(&qp->work, soft_sq_work);
}

static struct soft_qp *soft_qp_of_work(struct xqp_work *work)
{
	return (struct soft_qp *)((char *)work - __builtin_offsetof(struct soft_qp, work));
}

static int soft_is_rc_like(enum xqp_qp_type t)
{
	return t == XQP_QPT_RC || t == XQP_QPT_XRC_INI || t == XQP_QPT_XRC_TGT;
}

/* May a requester of type @req talk to a responder of type @resp? */
static int soft_types_match(enum xqp_qp_type req, enum xqp_qp_type resp)
{
	if (req == XQP_QPT_XRC_INI)
		return resp == XQP_QPT_XRC_TGT;
	if (soft_is_ud(req))
		return soft_is_ud(resp);	/* a UD QP may send to QP1, and back */
	return req == resp;
}

static int soft_state(const struct soft_qp *qp)
{
	return __atomic_load_n(&qp->state, __ATOMIC_ACQUIRE);
}

static int soft_can_receive(const struct soft_qp *qp)
{
	int s = soft_state(qp);

	return s >= XQP_QPS_RTR && s != XQP_QPS_ERR;
}

static void soft_resp_attr(struct soft_qp *qp, struct soft_resp_attr *ra)
{
	unsigned long flags = xqp_spin_lock_irqsave(&qp->lock);

	ra->access = qp->attr.qp_access_flags;
	ra->qkey = qp->attr.qkey;
	ra->min_rnr_timer = qp->attr.min_rnr_timer;
	ra->max_dest_rd_atomic = qp->attr.max_dest_rd_atomic;
	ra->dest_qp_num = qp->attr.dest_qp_num;
	ra->av = qp->attr.ah_attr;
	xqp_spin_unlock_irqrestore(&qp->lock, flags);
}

/* ---- errors and state ---------------------------------------------------- */

/* Events and flushing of a QP that has just entered ERR. */
static void soft_qp_entered_err(struct soft_qp *qp, int event)
{
	if (qp->core_qp && event >= 0)
		xqp_qp_event(qp->core_qp, (enum xqp_event_type)event);
	if (qp->core_qp && qp->srq)	/* as rxe: a QP on an SRQ */
		xqp_qp_event(qp->core_qp, XQP_EVENT_QP_LAST_WQE_REACHED);
	if (qp->rq.slots)
		soft_flush_rq(qp);
	if (qp->cur)	/* its runner flushes the SQ, now even if it waits */
		xqp_work_expedite(&qp->work);
}

/**
 * soft_qp_to_err - move a QP to ERR, as the transport does on an error.
 * @qp: the QP (referenced or owned by the caller).
 * @event: the async event to report (XQP_EVENT_*), or -1 for none.
 *
 * A QP already in ERR is left alone, and so is one its owner has moved to
 * RESET or INIT since the failed message was taken: such a QP carries no
 * traffic, and the error belongs to what the RESET dropped. Its receive
 * WQEs are flushed at once, its send WQEs by its runner.
 *
 * Context: any.
 */
void soft_qp_to_err(struct soft_qp *qp, int event)
{
	unsigned long flags;
	int old, moved;

	flags = xqp_spin_lock_irqsave(&qp->lock);
	old = qp->attr.qp_state;
	moved = old >= XQP_QPS_RTR && old != XQP_QPS_ERR;
	if (moved) {
		qp->attr.qp_state = XQP_QPS_ERR;
		__atomic_store_n(&qp->state, XQP_QPS_ERR, __ATOMIC_RELEASE);
	}
	xqp_spin_unlock_irqrestore(&qp->lock, flags);
	if (moved)
		soft_qp_entered_err(qp, event);
}

/*
 * SQD with en_sqd_async_notify: SQ_DRAINED now if no WQE is in flight,
 * else when the runner has finished the one it started.
 */
static void soft_sq_drain_notify(struct soft_qp *qp)
{
	unsigned long flags;
	int now;

	flags = xqp_spin_lock_irqsave(&qp->sq.lock);
	now = !qp->sq_running && !qp->head_started;
	if (!now)
		qp->drain_pending = 1;
	xqp_spin_unlock_irqrestore(&qp->sq.lock, flags);
	if (now)
		xqp_qp_event(qp->core_qp, XQP_EVENT_SQ_DRAINED);
}

/**
 * soft_qp_state_changed - what modify_qp's new state means for the queues.
 * @qp: the QP.
 * @old_state: the state before.
 * @new_state: the state now.
 * @sqd_notify: en_sqd_async_notify, as read under the QP's lock with the
 *	state change.
 *
 * To ERR: flush; to RESET: empty the queues silently; to RTS: run what
 * waits; to SQD: report SQ_DRAINED if asked, once the WQE in flight (if
 * any) has finished.
 *
 * Context: may sleep (modify_qp).
 */
void soft_qp_state_changed(struct soft_qp *qp, int old_state, int new_state,
			   int sqd_notify)
{
	if (new_state == old_state)
		return;
	switch (new_state) {
	case XQP_QPS_ERR:
		soft_qp_entered_err(qp, -1);
		break;
	case XQP_QPS_RESET:
		soft_qp_reset_queues(qp);
		soft_wire_reset(qp);
		break;
	case XQP_QPS_RTR:
		soft_wire_connect(qp, old_state, new_state);
		break;
	case XQP_QPS_RTS:
		soft_wire_connect(qp, old_state, new_state);
		soft_sq_kick(qp);
		break;
	case XQP_QPS_SQD:
		if (sqd_notify && qp->core_qp)
			soft_sq_drain_notify(qp);
		break;
	}
}

/* ---- the responder --------------------------------------------------------- */

/* The execution of one WQE against one responder QP. */
struct soft_xfer {
	struct soft_qp *qp;		/* requester */
	struct soft_swqe *w;
	xqp_u32 nl;			/* qp->lseg in use */
	struct soft_qp *dst;		/* responder, referenced */
	struct soft_srq *srq;		/* where its receives come from, or NULL */
	struct soft_srq *xsrq;		/* the XRC SRQ, referenced */
	struct soft_cq *recv_cq;
	void *pd;			/* the responder's PD for this message */
	struct soft_resp_attr ra;
	const struct xqp_ah_attr *av;
	struct soft_result *res;
	xqp_u32 psn;			/* connected: the message's first PSN */
	xqp_u32 npsn;			/* and how many it takes */
};

static void soft_fail(struct soft_xfer *x, int status)
{
	x->res->exec = SOFT_EXEC_DONE;
	x->res->status = status;
}

/* An RC-like responder fails with @event, its requester sees @req_status; UC/UD drop. */
static void soft_resp_error(struct soft_xfer *x, int event, int req_status)
{
	/* UC and UD responders drop the message and keep going (rxe's drop_msg) */
	if (soft_is_rc_like(x->dst->type))
		soft_qp_to_err(x->dst, event);
	soft_fail(x, soft_is_rc_like(x->qp->type) ? req_status : XQP_WC_SUCCESS);
}

/* A receive WQE for this message, or RNR (RC, XRC) / a silent drop (UC, UD). */
static int soft_take(struct soft_xfer *x)
{
	if (soft_take_recv(x->dst, x->srq, x->qp->rscratch))
		return 1;
	if (soft_is_rc_like(x->qp->type)) {
		x->res->exec = SOFT_EXEC_RNR;
		x->res->rnr_timer = x->ra.min_rnr_timer;
	} else {
		soft_fail(x, XQP_WC_SUCCESS);
	}
	return 0;
}

/* The responder's completion of the receive WQE in x->qp->rscratch. */
static void soft_recv_complete(struct soft_xfer *x, int status, int opcode,
			       xqp_u32 byte_len)
{
	const struct soft_swqe *w = x->w;
	int imm = w->opcode == XQP_WR_SEND_WITH_IMM ||
		  w->opcode == XQP_WR_RDMA_WRITE_WITH_IMM;
	int inv = w->opcode == XQP_WR_SEND_WITH_INV && status == XQP_WC_SUCCESS;
	struct xqp_wc wc = {
		.wr_id = x->qp->rscratch->wr_id,
		.status = (enum xqp_wc_status)status,
		.opcode = (enum xqp_wc_opcode)opcode,
		.byte_len = status == XQP_WC_SUCCESS ? byte_len : 0,
		.imm_data = imm || inv ? w->imm_data : 0,	/* or the rkey invalidated */
		.qp_num = x->dst->qp_num,
		.src_qp = x->qp->qp_num,
		.wc_flags = (imm ? XQP_WC_WITH_IMM : 0) | (inv ? XQP_WC_WITH_INVALIDATE : 0) |
			    (soft_is_ud(x->dst->type) && x->av->is_global ? XQP_WC_GRH : 0),
		.slid = x->qp->obj.soft->link ? 0 : x->qp->obj.soft->lid,	/* RoCE: none */
		.sl = x->av->sl,
		.port_num = 1,
	};

	soft_cq_post(x->recv_cq, &wc, !!(w->send_flags & XQP_SEND_SOLICITED));
}

/* The IPv4 header checksum (RFC 791) of the 20 bytes at @h. */
static xqp_u16 soft_ipv4_csum(const xqp_u8 *h)
{
	xqp_u32 sum = 0;
	int i;

	for (i = 0; i < 20; i += 2)
		sum += (xqp_u32)(h[i] << 8 | h[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (xqp_u16)~sum;
}

static int soft_gid_is_v4(const xqp_u8 *g)
{
	static const xqp_u8 mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return !__builtin_memcmp(g, mapped, sizeof(mapped));
}

/*
 * The 40 bytes a UD receive of a message with a GRH starts with, as the
 * message would have arrived: from a RoCE v2 IPv4 source, 20 zero bytes and
 * its IPv4 header (as rxe writes it, and ibv_init_ah_from_wc() reads it);
 * otherwise the GRH (IBA 8.3; an IPv6 header's layout, next header UDP on a
 * RoCE port, IB's 0x1B on the soft subnet). Headers after the GRH counted
 * in its lengths: UDP 8 (RoCE), BTH 12, DETH 8, ICRC 4.
 */
static void soft_make_grh(const struct soft_xfer *x, xqp_u8 grh[SOFT_GRH_SIZE])
{
	const struct xqp_ah_attr *av = x->av;
	int roce = x->qp->obj.soft->link != NULL;
	xqp_u32 paylen = (roce ? 8 : 0) + 12 + 8 + x->w->length + 4;
	xqp_u8 sgid[16];
	xqp_u16 csum;
	int i;

	__builtin_memset(grh, 0, SOFT_GRH_SIZE);
	soft_fabric_sgid(x->qp->obj.soft, av->sgid_index, sgid);
	if (roce && soft_gid_is_v4(sgid) && soft_gid_is_v4(av->dgid)) {
		xqp_u8 *ip = grh + 20;
		xqp_u32 tot = 20 + paylen;

		ip[0] = 0x45;
		ip[1] = av->traffic_class;
		ip[2] = (xqp_u8)(tot >> 8);
		ip[3] = (xqp_u8)tot;
		ip[6] = 0x40;			/* don't fragment */
		ip[8] = av->hop_limit;
		ip[9] = 17;			/* UDP */
		for (i = 0; i < 4; i++) {
			ip[12 + i] = sgid[12 + i];
			ip[16 + i] = av->dgid[12 + i];
		}
		csum = soft_ipv4_csum(ip);
		ip[10] = (xqp_u8)(csum >> 8);
		ip[11] = (xqp_u8)csum;
		return;
	}
	grh[0] = (xqp_u8)(6 << 4 | av->traffic_class >> 4);
	grh[1] = (xqp_u8)(av->traffic_class << 4 | (av->flow_label >> 16 & 0xf));
	grh[2] = (xqp_u8)(av->flow_label >> 8);
	grh[3] = (xqp_u8)av->flow_label;
	grh[4] = (xqp_u8)(paylen >> 8);
	grh[5] = (xqp_u8)paylen;
	grh[6] = roce ? 17 : 0x1b;
	grh[7] = av->hop_limit;
	for (i = 0; i < 16; i++) {
		grh[8 + i] = sgid[i];
		grh[24 + i] = av->dgid[i];
	}
}

static void soft_do_send(struct soft_xfer *x)
{
	struct xqp_soft *rsoft = x->dst->obj.soft;
	struct soft_rwqe *r = x->qp->rscratch;
	struct soft_seg *rseg = x->qp->rseg;
	xqp_u32 grh = soft_is_ud(x->dst->type) ? SOFT_GRH_SIZE : 0;
	/* the bytes written: the GRH's room too when it carries one */
	xqp_u32 from = grh && x->av->is_global ? 0 : grh;
	int st;

	if (!soft_take(x))
		return;
	st = soft_recv_range_get(rsoft, x->pd, r->sge, r->num_sge, from,
				 (xqp_u64)x->w->length + grh - from, rseg);
	if (st != XQP_WC_SUCCESS) {
		soft_recv_complete(x, st, XQP_WC_RECV, 0);
		soft_resp_error(x, -1, st == XQP_WC_LOC_LEN_ERR ? XQP_WC_REM_INV_REQ_ERR :
				 XQP_WC_REM_OP_ERR);
		return;
	}
	if (!from && grh) {
		xqp_u8 hdr[SOFT_GRH_SIZE];
		struct soft_seg hseg = { .mr = NULL, .buf = (char *)hdr, .length = SOFT_GRH_SIZE };

		soft_make_grh(x, hdr);
		soft_segs_copy(rseg, r->num_sge, &hseg, 1, SOFT_GRH_SIZE);
		soft_segs_skip(rseg, r->num_sge, grh);
	}
	soft_segs_copy(rseg, r->num_sge, x->qp->lseg, x->nl, x->w->length);
	soft_segs_put(rseg, r->num_sge);
	if (x->w->opcode == XQP_WR_SEND_WITH_INV &&
	    soft_mw_invalidate(rsoft, x->pd, x->dst->qp_num, x->w->imm_data)) {
		/* rxe's class J: the receive fails, the responder errs */
		soft_recv_complete(x, XQP_WC_REM_INV_REQ_ERR, XQP_WC_RECV, 0);
		soft_resp_error(x, XQP_EVENT_QP_REQ_ERR, XQP_WC_REM_INV_REQ_ERR);
		return;
	}
	soft_recv_complete(x, XQP_WC_SUCCESS, XQP_WC_RECV, x->w->length + grh);
	soft_fail(x, XQP_WC_SUCCESS);
}

/* The remote range of an RDMA or atomic WQE, with the QP's and MR's access. */
static int soft_remote(struct soft_xfer *x, int access, xqp_u32 len)
{
	if (!(x->ra.access & (xqp_u32)access) ||
	    soft_rkey_get(x->dst->obj.soft, x->pd, x->dst->qp_num, x->w->rkey, x->w->remote_addr,
			  len, access, &x->qp->rseg[0]) != XQP_WC_SUCCESS) {
		soft_resp_error(x, XQP_EVENT_QP_ACCESS_ERR, XQP_WC_REM_ACCESS_ERR);
		return 0;
	}
	return 1;
}

static void soft_do_write(struct soft_xfer *x)
{
	int imm = x->w->opcode == XQP_WR_RDMA_WRITE_WITH_IMM;

	if (!soft_remote(x, XQP_ACCESS_REMOTE_WRITE, x->w->length))
		return;
	if (!imm || soft_take(x)) {
		soft_segs_copy(&x->qp->rseg[0], 1, x->qp->lseg, x->nl, x->w->length);
		if (imm)
			soft_recv_complete(x, XQP_WC_SUCCESS, XQP_WC_RECV_RDMA_WITH_IMM,
					   x->w->length);
		soft_fail(x, XQP_WC_SUCCESS);
	}
	soft_segs_put(&x->qp->rseg[0], 1);
}

static void soft_do_read(struct soft_xfer *x)
{
	if (!soft_remote(x, XQP_ACCESS_REMOTE_READ, x->w->length))
		return;
	soft_segs_copy(x->qp->lseg, x->nl, &x->qp->rseg[0], 1, x->w->length);
	soft_segs_put(&x->qp->rseg[0], 1);
	soft_fail(x, XQP_WC_SUCCESS);
}

static void soft_do_atomic(struct soft_xfer *x)
{
	struct soft_seg old_seg = { .mr = NULL, .length = 8 };
	xqp_u64 old = 0;
	int err;

	if (x->w->remote_addr & 7) {
		soft_resp_error(x, XQP_EVENT_QP_REQ_ERR, XQP_WC_REM_INV_REQ_ERR);
		return;
	}
	if (!soft_remote(x, XQP_ACCESS_REMOTE_ATOMIC, 8))
		return;
	err = soft_seg_atomic(&x->qp->rseg[0], x->w->opcode == XQP_WR_ATOMIC_CMP_AND_SWP,
			      x->w->compare_add, x->w->swap, &old);
	soft_segs_put(&x->qp->rseg[0], 1);
	if (err) {	/* the memory under the aligned iova is not aligned */
		soft_resp_error(x, XQP_EVENT_QP_REQ_ERR, XQP_WC_REM_INV_REQ_ERR);
		return;
	}
	old_seg.buf = (char *)&old;
	soft_segs_copy(x->qp->lseg, x->nl, &old_seg, 1, 8);
	soft_fail(x, XQP_WC_SUCCESS);
	x->res->byte_len = 8;
}

/*
 * Where this message's receives and remote accesses belong: an XRC message
 * names an XRC SRQ of the target QP's domain (else the target refuses it
 * and stays well); others use the QP's SRQ or RQ and its PD.
 */
static int soft_resp_route(struct soft_xfer *x)
{
	struct soft_qp *dst = x->dst;

	if (dst->type != XQP_QPT_XRC_TGT) {
		x->srq = dst->srq;
		x->pd = dst->pd;
		x->recv_cq = dst->srq && dst->srq->type == XQP_SRQT_XRC ?
			     dst->srq->cq : dst->recv_cq;
		return 1;
	}
	x->xsrq = soft_srq_get(dst->obj.soft, x->w->xrc_srqn & SOFT_NUM_MASK);
	if (!x->xsrq || x->xsrq->type != XQP_SRQT_XRC || x->xsrq->xrcd != dst->xrcd) {
		soft_fail(x, XQP_WC_REM_INV_REQ_ERR);
		return 0;
	}
	x->srq = x->xsrq;
	x->pd = x->xsrq->pd;
	x->recv_cq = x->xsrq->cq;
	return 1;
}

static void soft_respond(struct soft_xfer *x)
{
	if (!soft_resp_route(x))
		return;
	if (soft_is_rd_atomic(x->w->opcode) && !x->ra.max_dest_rd_atomic) {
		/* rxe's check_resource(): NAK invalid request, the responder errs */
		soft_resp_error(x, XQP_EVENT_QP_REQ_ERR, XQP_WC_REM_INV_REQ_ERR);
		return;
	}
	switch (x->w->opcode) {
	case XQP_WR_SEND:
	case XQP_WR_SEND_WITH_IMM:
	case XQP_WR_SEND_WITH_INV:
		soft_do_send(x);
		break;
	case XQP_WR_RDMA_WRITE:
	case XQP_WR_RDMA_WRITE_WITH_IMM:
		soft_do_write(x);
		break;
	case XQP_WR_RDMA_READ:
		soft_do_read(x);
		break;
	default:
		soft_do_atomic(x);
		break;
	}
}

/* ---- the requester ------------------------------------------------------------ */

/* Resolves the WQE's local data into qp->lseg: its SGEs or its inline bytes. */
static int soft_local(struct soft_qp *qp, struct soft_swqe *w, xqp_u32 *nl)
{
	int write = w->opcode == XQP_WR_RDMA_READ ||
		    w->opcode == XQP_WR_ATOMIC_CMP_AND_SWP ||
		    w->opcode == XQP_WR_ATOMIC_FETCH_AND_ADD;
	xqp_u64 total;

	if (w->num_sge) {
		*nl = w->num_sge;
		return soft_sges_get(qp->obj.soft, qp->pd, w->sge, w->num_sge,
				     write ? XQP_ACCESS_LOCAL_WRITE : 0, qp->lseg, &total);
	}
	qp->lseg[0] = (struct soft_seg){ .mr = NULL, .buf = w->inline_data,
					 .length = w->length };
	*nl = 1;
	return XQP_WC_SUCCESS;
}

/*
 * A connected responder (RC, UC, XRC target) takes messages only from the
 * QP and path it was connected to: its dest_qp_num, on the device its
 * address (DLID, or DGID) names. Anything else is dropped unseen, as the
 * IB transport's responder drops a packet from another source.
 */
static int soft_from_peer(const struct soft_xfer *x)
{
	if (soft_is_ud(x->qp->type))
		return 1;
	return x->ra.dest_qp_num == x->qp->qp_num &&
	       soft_fabric_reaches(&x->ra.av, x->qp->obj.soft);
}

/* The path MTU's bytes (enum xqp_mtu: 256 << (mtu - 1)); 4096 if unset. */
static xqp_u32 soft_mtu_bytes(xqp_u32 mtu)
{
	return mtu >= XQP_MTU_256 && mtu <= XQP_MTU_4096 ? 128U << mtu : 4096;
}

/* The PSNs @w takes: its packets at @mtu (a READ: its response's), 1 at least. */
static xqp_u32 soft_wqe_psns(const struct soft_swqe *w, xqp_u32 mtu)
{
	xqp_u32 bytes = soft_mtu_bytes(mtu);

	if (w->opcode == XQP_WR_ATOMIC_CMP_AND_SWP || w->opcode == XQP_WR_ATOMIC_FETCH_AND_ADD ||
	    !w->length)
		return 1;
	return (xqp_u32)(((xqp_u64)w->length + bytes - 1) / bytes);
}

enum soft_psn { SOFT_PSN_NEW, SOFT_PSN_DUP, SOFT_PSN_GAP };

/*
 * The message's first PSN against what the responder expects (IBA 9.7.4:
 * within half the 24-bit space behind it, a duplicate; else ahead, a gap).
 * A UC responder takes a first packet whatever its PSN and resynchronises
 * (IBA 9.7.4.1.2): for it every message is new.
 */
static enum soft_psn soft_psn_check(struct soft_xfer *x)
{
	struct soft_qp *dst = x->dst;
	unsigned long flags;
	xqp_u32 diff;

	flags = xqp_spin_lock_irqsave(&dst->lock);
	if (dst->type == XQP_QPT_UC)
		dst->attr.rq_psn = x->psn;
	diff = (x->psn - dst->attr.rq_psn) & SOFT_NUM_MASK;
	xqp_spin_unlock_irqrestore(&dst->lock, flags);
	if (!diff)
		return SOFT_PSN_NEW;
	return diff & 0x800000 ? SOFT_PSN_DUP : SOFT_PSN_GAP;
}

/* The responder took the message: it expects the PSN after it. */
static void soft_psn_accepted(struct soft_xfer *x)
{
	unsigned long flags;

	flags = xqp_spin_lock_irqsave(&x->dst->lock);
	x->dst->attr.rq_psn = (x->psn + x->npsn) & SOFT_NUM_MASK;
	xqp_spin_unlock_irqrestore(&x->dst->lock, flags);
}

/*
 * A connected message, by its PSN: a new one executes (and moves the
 * responder's PSN on once it is taken); a duplicate SEND or WRITE is
 * ACKed again without executing, a duplicate READ re-executed, a duplicate
 * atomic, with no saved result here, dropped (rxe's answer when it has
 * none), so it is retransmitted; beyond a gap, a PSN sequence error NAK:
 * retransmitted, retry_cnt times (rxe's requester counts it so).
 */
static void soft_respond_in_sequence(struct soft_xfer *x)
{
	switch (soft_psn_check(x)) {
	case SOFT_PSN_NEW:
		soft_respond(x);
		if (x->res->exec == SOFT_EXEC_DONE && x->res->status == XQP_WC_SUCCESS)
			soft_psn_accepted(x);
		return;
	case SOFT_PSN_DUP:
		if (x->w->opcode == XQP_WR_RDMA_READ)
			soft_respond(x);
		else if (soft_is_atomic(x->w->opcode))
			x->res->exec = SOFT_EXEC_RETRY;
		else
			soft_fail(x, XQP_WC_SUCCESS);
		return;
	case SOFT_PSN_GAP:
		x->res->exec = SOFT_EXEC_RETRY;
		return;
	}
}

/* A UD message at a responder whose attributes are in x->ra: its Q_Key decides. */
static void soft_ud_respond(struct soft_xfer *x)
{
	unsigned long flags;
	xqp_u32 qkey;

	flags = xqp_spin_lock_irqsave(&x->qp->lock);
	qkey = x->qp->attr.qkey;
	xqp_spin_unlock_irqrestore(&x->qp->lock, flags);
	if (!(x->w->ud_qkey & SOFT_QKEY_PRIV))
		qkey = x->w->ud_qkey;
	if (qkey != x->ra.qkey)
		soft_fail(x, XQP_WC_SUCCESS);	/* dropped by the responder */
	else
		soft_respond(x);
}

/*
 * A UD message to a multicast group (mcast.c): on the wire when the device
 * is linked, and to each QP attached to the group on the devices it
 * reaches in the kernel, each taking it as a UD responder does. A UD send
 * completes once sent, whoever took it.
 */
static void soft_execute_mcast(struct soft_xfer *x)
{
	struct soft_qp *qp = x->qp, *qps[XQP_RULES_MAX_MCAST_QP_ATTACH];
	struct xqp_soft *soft;
	xqp_u32 n, j;
	int i, st;

	if (qp->obj.soft->link && qp->obj.soft->link->sock) {
		st = soft_wire_send_ud(qp, x->w);
		if (st != XQP_WC_SUCCESS) {
			soft_fail(x, st);
			return;
		}
	}
	st = soft_local(qp, x->w, &x->nl);
	if (st != XQP_WC_SUCCESS) {
		soft_fail(x, st);
		return;
	}
	for (i = 0; i < SOFT_MAX_NODES; i++) {
		xqp_rcu_read_lock();
		soft = soft_fabric_node(i);
		n = soft && soft_fabric_mcast_peer(qp->obj.soft, soft) ?
		    soft_mcast_qps(soft, x->av->dgid, qps) : 0;
		xqp_rcu_read_unlock();
		for (j = 0; j < n; j++) {	/* a QP reference holds its device */
			x->dst = qps[j];
			if (soft_can_receive(x->dst)) {
				soft_resp_attr(x->dst, &x->ra);
				soft_ud_respond(x);
			}
			soft_refs_put(&qps[j]->refs);
		}
		if (n && xqp_may_sleep())	/* up to 56 copies a device */
			xqp_cond_resched();
	}
	x->dst = NULL;
	soft_segs_put(qp->lseg, x->nl);
	soft_fail(x, XQP_WC_SUCCESS);
}

/* Executes @w (a copy of the SQ's head) and says what became of it. */
static void soft_execute(struct soft_qp *qp, struct soft_swqe *w,
			 struct soft_result *res)
{
	struct soft_xfer x = { .qp = qp, .w = w, .res = res };
	struct xqp_ah_attr av;
	unsigned long flags;
	xqp_u32 dqpn;
	int st, rd_credit;

	res->byte_len = w->length;
	if (soft_is_local_op(w->opcode)) {	/* in order: the WQEs before it are done */
		soft_fail(&x, soft_mw_local_op(qp, w));
		return;
	}
	if (soft_is_ud(qp->type)) {
		av = w->ud_av;
		dqpn = w->ud_qpn;
		if (w->length > SOFT_UD_MTU) {
			soft_fail(&x, XQP_WC_LOC_LEN_ERR);
			return;
		}
	} else {
		flags = xqp_spin_lock_irqsave(&qp->lock);
		av = qp->attr.ah_attr;
		dqpn = qp->attr.dest_qp_num;
		x.psn = qp->attr.sq_psn;
		x.npsn = soft_wqe_psns(w, qp->attr.path_mtu);
		rd_credit = qp->attr.max_rd_atomic;
		xqp_spin_unlock_irqrestore(&qp->lock, flags);
		if (soft_is_rd_atomic(w->opcode) && !rd_credit) {
			/* rxe's requester: no READ or atomic without a credit */
			res->exec = SOFT_EXEC_STALL;
			return;
		}
	}
	res->npsn = x.npsn ? x.npsn : 1;
	x.av = &av;
	if (soft_is_ud(qp->type) && soft_mcast_dest(&av, dqpn)) {
		soft_execute_mcast(&x);
		return;
	}
	if (soft_is_ud(qp->type) && soft_wire_ud_remote(qp, &av)) {
		soft_fail(&x, soft_wire_send_ud(qp, w));
		return;
	}
	st = soft_local(qp, w, &x.nl);
	if (st != XQP_WC_SUCCESS) {
		soft_fail(&x, st);
		return;
	}
	x.dst = soft_fabric_find_qp(&av, dqpn);
	if (!x.dst || !soft_types_match(qp->type, x.dst->type) ||
	    !soft_can_receive(x.dst)) {
		/* No responder: RC-like requesters retransmit, UC/UD drop. */
		if (soft_is_rc_like(qp->type))
			res->exec = SOFT_EXEC_RETRY;
		else
			soft_fail(&x, XQP_WC_SUCCESS);
		goto out;
	}
	soft_resp_attr(x.dst, &x.ra);
	if (!soft_from_peer(&x)) {
		/* dropped: to the requester, as if nobody answered */
		if (soft_is_rc_like(qp->type))
			res->exec = SOFT_EXEC_RETRY;
		else
			soft_fail(&x, XQP_WC_SUCCESS);
		goto out;
	}
	if (soft_is_ud(qp->type)) {
		soft_ud_respond(&x);
		goto out;
	}
	soft_respond_in_sequence(&x);
out:
	if (x.xsrq)
		soft_refs_put(&x.xsrq->refs);
	if (x.dst)
		soft_refs_put(&x.dst->refs);
	soft_segs_put(qp->lseg, x.nl);
}

/* ---- the runner --------------------------------------------------------------- */

static const int soft_wc_opcode[] = {
	[XQP_WR_RDMA_WRITE] = XQP_WC_RDMA_WRITE,
	[XQP_WR_RDMA_WRITE_WITH_IMM] = XQP_WC_RDMA_WRITE,
	[XQP_WR_SEND] = XQP_WC_SEND,
	[XQP_WR_SEND_WITH_IMM] = XQP_WC_SEND,
	[XQP_WR_RDMA_READ] = XQP_WC_RDMA_READ,
	[XQP_WR_ATOMIC_CMP_AND_SWP] = XQP_WC_COMP_SWAP,
	[XQP_WR_ATOMIC_FETCH_AND_ADD] = XQP_WC_FETCH_ADD,
	[XQP_WR_LOCAL_INV] = XQP_WC_LOCAL_INV,
	[XQP_WR_BIND_MW] = XQP_WC_BIND_MW,
	[XQP_WR_SEND_WITH_INV] = XQP_WC_SEND,
};

/* The requester's completion: signaled WQEs, and every failed one. */
static void soft_send_complete(struct soft_qp *qp, const struct soft_swqe *w,
			       const struct soft_result *res)
{
	int ok = res->status == XQP_WC_SUCCESS;
	struct xqp_wc wc = {
		.wr_id = w->wr_id,
		.status = (enum xqp_wc_status)res->status,
		.opcode = (enum xqp_wc_opcode)(res->status == XQP_WC_WR_FLUSH_ERR ?
					       0 : soft_wc_opcode[w->opcode]),
		.byte_len = ok ? res->byte_len : 0,
		.qp_num = qp->qp_num,
		.port_num = 1,
	};

	if (ok && qp->sq_sig_type != XQP_SIGNAL_ALL_WR &&
	    !(w->send_flags & XQP_SEND_SIGNALED))
		return;
	soft_cq_post(qp->send_cq, &wc, 0);
	if (!ok && res->status != XQP_WC_WR_FLUSH_ERR)
		soft_qp_to_err(qp, -1);
}

void soft_sq_complete(struct soft_qp *qp, const struct soft_swqe *w, int status,
		      xqp_u32 byte_len)
{
	struct soft_result res = { .exec = SOFT_EXEC_DONE, .status = status,
				   .byte_len = byte_len };

	soft_send_complete(qp, w, &res);
}

/* The IB local ACK timeout (4.096 us * 2^timeout) in us; 0 is "infinite":
 * retransmit every 2^14 units (67 ms) for ever. */
xqp_u32 soft_timeout_us(xqp_u8 timeout)
{
	xqp_u64 us = (4096ULL << (timeout ? timeout : 14)) / 1000;

	return us > 0xffffffffULL ? 0xffffffffU : (xqp_u32)us;
}

/*
 * The head could not be delivered: an RNR NAK (retried after the
 * responder's timer, rnr_retry times, 7: for ever) or no responder
 * (retransmitted after the ACK timeout, retry_cnt times; timeout 0: for
 * ever). Returns 1 and the delay when it waits, else 0 with the failure.
 */
static int soft_head_wait(struct soft_qp *qp, struct soft_result *res, xqp_u32 *delay_us)
{
	xqp_u8 rnr_retry, retry_cnt, timeout;
	unsigned long flags;
	int *left, limit, forever, exceeded;

	flags = xqp_spin_lock_irqsave(&qp->lock);
	rnr_retry = qp->attr.rnr_retry;
	retry_cnt = qp->attr.retry_cnt;
	timeout = qp->attr.timeout;
	xqp_spin_unlock_irqrestore(&qp->lock, flags);
	if (res->exec == SOFT_EXEC_RNR) {
		left = &qp->rnr_left;
		limit = rnr_retry;
		forever = rnr_retry == SOFT_RNR_INFINITE;
		*delay_us = soft_rnr_us[res->rnr_timer & 31];
		exceeded = XQP_WC_RNR_RETRY_EXC_ERR;
	} else {
		left = &qp->retry_left;
		limit = retry_cnt;
		forever = timeout == 0;
		*delay_us = soft_timeout_us(timeout);
		exceeded = XQP_WC_RETRY_EXC_ERR;
	}
	if (*left < 0)
		*left = limit;
	if (!forever) {
		if (*left == 0) {
			res->exec = SOFT_EXEC_DONE;
			res->status = exceeded;
			return 0;
		}
		(*left)--;
	}
	return 1;
}

/* The requester's next PSN, after a message that took @n. */
static void soft_psn_sent(struct soft_qp *qp, xqp_u32 n)
{
	unsigned long flags;

	flags = xqp_spin_lock_irqsave(&qp->lock);
	qp->attr.sq_psn = (qp->attr.sq_psn + n) & SOFT_NUM_MASK;
	xqp_spin_unlock_irqrestore(&qp->lock, flags);
}

/* Executes or flushes the head; no lock held. */
static void soft_run_one(struct soft_qp *qp, int state, struct soft_result *res)
{
	*res = (struct soft_result){ .exec = SOFT_EXEC_DONE };
	if (state == XQP_QPS_ERR || state == XQP_QPS_SQE)
		res->status = XQP_WC_WR_FLUSH_ERR;
	else
		soft_execute(qp, qp->cur, res);
}

/*
 * Runs the send queue: at most @budget WQEs, then the rest on the work
 * queue. Stops at an RNR wait, and while the QP is not sending (SQD, or a
 * state below RTS after a RESET).
 */
static void soft_sq_run(struct soft_qp *qp, int budget)
{
	struct soft_ring *sq = &qp->sq;
	struct soft_result res;
	unsigned long flags;
	int state, n = 0, drained;
	xqp_u32 gen, delay_us = 0;

	flags = xqp_spin_lock_irqsave(&sq->lock);
	if (qp->sq_running || qp->head_wait) {
		qp->sq_again = qp->sq_running;	/* the runner looks again */
		xqp_spin_unlock_irqrestore(&sq->lock, flags);
		return;
	}
	qp->sq_running = 1;
	if (__atomic_load_n(&qp->on_wire, __ATOMIC_ACQUIRE)) {
		do {
			qp->sq_again = 0;
			xqp_spin_unlock_irqrestore(&sq->lock, flags);
			n = soft_wire_sq_run(qp, budget);
			flags = xqp_spin_lock_irqsave(&sq->lock);
		} while (qp->sq_again && !n);
		if (n)
			xqp_work_queue(&qp->work, 0);
		goto done;
	}
	while (sq->count) {
		state = soft_state(qp);
		/* SQD finishes a WQE already started, starts none */
		if (state < XQP_QPS_RTS || (state == XQP_QPS_SQD && !qp->head_started))
			break;
		if (n++ == budget) {
			xqp_work_queue(&qp->work, 0);
			break;
		}
		__builtin_memcpy(qp->cur, soft_ring_at(sq, sq->head), sq->entry_size);
		gen = qp->sq_gen;
		xqp_spin_unlock_irqrestore(&sq->lock, flags);

		soft_run_one(qp, state, &res);
		if (res.exec == SOFT_EXEC_RNR || res.exec == SOFT_EXEC_RETRY)
			soft_head_wait(qp, &res, &delay_us);
		if (res.exec == SOFT_EXEC_DONE && res.status == XQP_WC_SUCCESS)
			soft_psn_sent(qp, res.npsn);

		flags = xqp_spin_lock_irqsave(&sq->lock);
		if (gen != qp->sq_gen) {	/* RESET meanwhile: the WQE is gone */
			qp->rnr_left = -1;
			qp->retry_left = -1;
			qp->head_started = 0;
			continue;
		}
		if (res.exec == SOFT_EXEC_STALL)
			break;	/* not started: a post or modify to RTS tries again */
		if (res.exec != SOFT_EXEC_DONE) {
			qp->head_wait = 1;
			qp->head_started = 1;
			xqp_work_queue(&qp->work, delay_us);
			break;
		}
		soft_ring_pop(sq);
		qp->head_started = 0;
		qp->rnr_left = -1;
		qp->retry_left = -1;
		xqp_spin_unlock_irqrestore(&sq->lock, flags);
		soft_send_complete(qp, qp->cur, &res);
		flags = xqp_spin_lock_irqsave(&sq->lock);
	}
done:
	qp->sq_running = 0;
	drained = qp->drain_pending && !qp->head_started && soft_state(qp) == XQP_QPS_SQD;
	if (drained || soft_state(qp) != XQP_QPS_SQD)
		qp->drain_pending = 0;
	xqp_spin_unlock_irqrestore(&sq->lock, flags);
	if (drained && qp->core_qp)
		xqp_qp_event(qp->core_qp, XQP_EVENT_SQ_DRAINED);
}

static void soft_sq_work(struct xqp_work *work)
{
	struct soft_qp *qp = soft_qp_of_work(work);
	unsigned long flags;

	flags = xqp_spin_lock_irqsave(&qp->sq.lock);
	qp->head_wait = 0;
	xqp_spin_unlock_irqrestore(&qp->sq.lock, flags);
	soft_sq_run(qp, SOFT_RUN_WORK);
}

/**
 * soft_sq_kick - make the send queue's runner look at new work.
 * @qp: the QP.
 *
 * Runs it here when the caller may sleep, else queues it.
 *
 * Context: any.
 */
void soft_sq_kick(struct soft_qp *qp)
{
	if (!qp->cur)
		return;
	if (xqp_may_sleep())
		soft_sq_run(qp, SOFT_RUN_INLINE);
	else
		xqp_work_queue(&qp->work, 0);
}

/**
 * soft_sq_stop - no run of @qp's send queue is in flight or to come.
 * @qp: a QP its destroy has made unreachable and whose refs have drained.
 *
 * Context: may sleep.
 */
void soft_sq_stop(struct soft_qp *qp)
{
	if (qp->cur)
		xqp_work_cancel_sync(&qp->work);
}
