// SPDX-License-Identifier: GPL-2.0
/*
 * The failure sweeps' data-path programs (fault_sweep.h): fixed step lists
 * of kernel-client work on two soft devices of one subnet, A and B, swept
 * by xqp_fault's allocation and driver-op sweeps (fault_sweep.c) under the
 * same rules as the xqp_diff scenarios.
 *
 *   traffic_rc   PDs, MRs, two CQs (B's armed with req_notify; both with a
 *                completion handler), an RC pair A <-> B to RTS, a
 *                receive list, SEND, RDMA WRITE, RDMA READ, both atomics,
 *                polls, resize_cq, query_device/port/gid/pkey, teardown.
 *   traffic_xrc  an XRCD, an XRC SRQ and an XRC_TGT QP on B, an XRC_INI QP
 *                on A sending to the SRQ (remote_srqn), post_srq_recv,
 *                query_srq, modify_srq (resize and limit), a send after
 *                the resize, polls, teardown.
 *   traffic_ud_uc an AH and a UD pair (SEND_WITH_IMM, an inline SEND, a
 *                send list refused at its third WR; both attached to a
 *                multicast group, a SEND to it, both detached), then a UC pair
 *                (RDMA_WRITE_WITH_IMM, a list one WR longer than the send
 *                queue: refused when it is full), polls, teardown.
 *   traffic_mw   memory windows over an RC pair: a type 2 window of B bound
 *                by B's QP, an RDMA WRITE through it, a SEND_WITH_INV that
 *                frees it, bound again and freed by LOCAL_INV, a type 1
 *                window made and freed, teardown.
 *   traffic_deferred an RC pair with retries: a CQ overrun (CQ_ERR), posts
 *                with IRQs off (executed on the work queue), an RNR NAK
 *                retried once then RNR_RETRY_EXC_ERR, a post to the QP in
 *                ERR (flushed), a QP with no responder retransmitting once
 *                (RETRY_EXC_ERR), another retransmitting for ever,
 *                destroyed while it waits.
 *
 * Deterministic runs: a WR posted from a context that may sleep (the KUnit
 * kthread) executes in the poster, completions included
 * (docs/datapath.md): when post_send returns, its completions are queued
 * and its data moved, so a poll step polls once and waits for nothing
 * (completion handlers run from their CQ's work item: the observation
 * waits for the work queue before it counts their calls), and
 * every allocation the execution makes is the task's, where fail-nth sees
 * it. Receives are posted before the sends that need them, and the
 * requesters of the first three programs retry nothing (rnr_retry 0,
 * retry_cnt 0): a send that finds no receive or no responder, as in a run
 * whose post_recv or modify_qp was failed, completes with an error at once
 * instead of on a timer. What does run on the work queue (traffic_deferred:
 * posts with IRQs off, RNR and ACK-timeout retries) is waited for without a
 * driver op: its post step waits until the completion handler of its CQ,
 * armed by the step before, has run (FT_WAIT), so every run makes the same
 * op calls and the same allocations on the task; what the work queue
 * allocates is not swept.
 *
 * A step whose objects are missing (their create failed) is not run
 * (FS_RC_DEAD_SLOT); the others run on, so the steps after a failure are
 * exercised too (they must return 0 or an errno). Destroy steps are swept;
 * the teardown destroys what they left (their failures included), disarmed,
 * and every xqp_soft_counts() of both devices must be zero then.
 *
 * What a step left (its observation): what it reported (completions:
 * wr_id, status, opcode, byte_len, the right QP number; the granted CQ and
 * SRQ sizes; port and table entries that do not depend on the device
 * instance), the objects it holds, both devices' object counts, the
 * completion handler calls and QP/SRQ events, and a hash of both data
 * buffers: a post that returned 0 but moved nothing differs from the clean
 * run at the next poll.
 */
#include <linux/delay.h>
#include <linux/jhash.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "fault_sweep.h"
#include "xqp/seam.h"

#define FT_BUF		4096	/* each device's registered buffer */
#define FT_NC		2	/* CQs: 0 on A, 1 on B */
#define FT_NQ		4	/* QPs */
#define FT_LIST		32	/* WRs one list step posts at most */
#define FT_QKEY		0x11111111
#define FT_QP1_QKEY	0x80010000	/* IB_QP1_QKEY: the GSI QP's */
#define FT_NOUT		36
#define FT_POLL		8	/* completions one poll step takes at most */
#define FT_WAIT_MS	2000	/* FT_WAIT: a clean run's handler comes long before */
#define FT_CQE		16
#define FT_ACCESS	(XQP_ACCESS_LOCAL_WRITE | XQP_ACCESS_REMOTE_WRITE | \
			 XQP_ACCESS_REMOTE_READ | XQP_ACCESS_REMOTE_ATOMIC | XQP_ACCESS_MW_BIND)

/* Where things are in the buffers (offsets into A's or B's). */
#define FT_A_SRC	0	/* A: what is sent and written (64 bytes) */
#define FT_B_RECV	256	/* B: two receives of 64 bytes */
#define FT_B_WRITE	512	/* B: RDMA WRITE target, READ source */
#define FT_A_READ	1024	/* A: RDMA READ target */
#define FT_B_ATOMIC	2048	/* B: the 8-byte atomic target */
#define FT_A_FETCH	2056	/* A: what the two atomics fetched */
#define FT_B_SRQ	3072	/* B: four SRQ receives of 64 bytes */
#define FT_MSG		64

enum ft_op {
	FT_ALLOC_PD,		/* d */
	FT_DEALLOC_PD,		/* d */
	FT_REG_MR,		/* d: its buffer on its PD; .n 1: the DMA MR */
	FT_DEREG_MR,		/* d */
	FT_CREATE_CQ,		/* c on d, with handlers; .n entries (0: FT_CQE) */
	FT_DESTROY_CQ,		/* c */
	FT_NOTIFY_CQ,		/* c: NEXT_COMP */
	FT_RESIZE_CQ,		/* c to .n */
	FT_POLL_CQ,		/* c: once, up to FT_POLL; .n expected, each .st, .k CQ events by then (clean run) */
	FT_QUERY_DEVICE,	/* d */
	FT_QUERY_PORT,		/* d */
	FT_QUERY_GID,		/* d: index 0 */
	FT_QUERY_PKEY,		/* d: index 0 */
	FT_ALLOC_XRCD,		/* on d */
	FT_DEALLOC_XRCD,
	FT_CREATE_SRQ,		/* XRC SRQ on d (its PD, the XRCD, CQ c) */
	FT_DESTROY_SRQ,
	FT_MODIFY_SRQ,		/* max_wr .n, srq_limit 1 */
	FT_QUERY_SRQ,
	FT_CREATE_QP,		/* q: .type on d (its PD, CQ c); XRC_TGT: in the XRCD */
	FT_DESTROY_QP,		/* q */
	FT_TO_INIT,		/* q */
	FT_TO_RTR,		/* q toward q2 */
	FT_TO_RTS,		/* q; .k retries: 0 none, 1 one, -1 for ever */
	FT_POST_RECV,		/* q: two receives at FT_B_RECV */
	FT_POST_SRQ_RECV,	/* two receives at FT_B_SRQ + .n * 64 */
	FT_POST_SEND,		/* q: .opcode (to the SRQ for XRC_INI, to q2 for UD), .flags, .len, .how */
	FT_POST_LIST,		/* q: SENDs, WR .k invalid; .k < 0: one more than the SQ holds */
	FT_CREATE_AH,		/* on d's PD toward the other device; .n 1: XQP_AH_NO_SLEEP; .n 2: the group's (mah) */
	FT_DESTROY_AH,		/* .n 2: the group's */
	FT_ALLOC_MW,		/* on d's PD, of type .n */
	FT_DEALLOC_MW,
	FT_ATTACH_MCAST,	/* q to the group FT_MGID */
	FT_DETACH_MCAST,	/* q from it */
	FT_OPS
};

static const char *const ft_op_names[FT_OPS] = {
	"alloc_pd", "dealloc_pd", "reg_mr", "dereg_mr", "create_cq", "destroy_cq",
	"req_notify_cq", "resize_cq", "poll_cq", "query_device", "query_port",
	"query_gid", "query_pkey", "alloc_xrcd", "dealloc_xrcd", "create_srq",
	"destroy_srq", "modify_srq", "query_srq", "create_qp", "destroy_qp",
	"modify_qp(INIT)", "modify_qp(RTR)", "modify_qp(RTS)", "post_recv",
	"post_srq_recv", "post_send", "post_send(list)", "create_ah", "destroy_ah",
	"alloc_mw", "dealloc_mw", "attach_mcast", "detach_mcast",
};

struct ft_step {
	u8 op;
	s8 d, c, q, q2;
	u8 type;		/* FT_CREATE_QP: enum xqp_qp_type */
	u8 opcode;		/* FT_POST_SEND: enum xqp_wr_opcode */
	u16 n;
	u8 flags;		/* FT_POST_SEND: send_flags besides SIGNALED */
	u8 len;			/* FT_POST_SEND: bytes sent (0: FT_MSG) */
	s8 k;			/* FT_POST_LIST; FT_TO_RTS; FT_POLL_CQ */
	u8 how;			/* FT_POST_SEND: FT_IRQS_OFF, FT_WAIT */
	u8 st;			/* FT_POLL_CQ: the clean run's status (enum xqp_wc_status) */
};

/* How FT_POST_SEND posts. */
#define FT_IRQS_OFF	1	/* under a spinlock with IRQs off: run on the work queue */
#define FT_WAIT		2	/* then until the handler of its CQ (armed) has run */
#define FT_VIA_MW	4	/* RDMA: through the window's rkey, not the MR's */
#define FT_TO_GROUP	8	/* UD: to the group FT_MGID through mah, QP 0xffffff (q2 a member) */

/* The multicast group of the programs (FT_ATTACH_MCAST), and its LID. */
static const u8 ft_mgid[16] = { 0xff, 0x0e, [14] = 0x0f, [15] = 0x75 };
#define FT_MLID		0xc001

/* A program: its steps and what one is called. */
struct ft_prog {
	const struct ft_step *steps;
};

/* What one step left (compared with memcmp: no padding holes). */
struct ft_obs {
	s32 nout;
	s32 out[FT_NOUT];
	u32 drv[2][9];		/* xqp_soft_counts of A, B: pd cq xrcd srq qp mr mw, mcast_grp mcast_attach */
	u32 held;		/* bit per object the program holds */
	u32 comps[FT_NC];	/* completion handler calls */
	u32 cq_events[FT_NC];	/* CQ async events (overruns) */
	u32 events;		/* QP and SRQ async events */
	u32 hash[2];		/* of A's and B's buffer */
};

/* What a CQ's handlers count (its cq_context). */
struct ft_cq_ctx {
	atomic_t comps;
	atomic_t events;
};

struct ft_ctx {
	struct xqp_soft *soft[2];
	struct xqp_device *dev[2];
	char *buf[2];
	struct xqp_pd *pd[2];
	struct xqp_mr *mr[2];
	struct xqp_cq *cq[FT_NC];
	struct xqp_xrcd *xrcd;
	struct xqp_srq *srq;
	struct xqp_qp *qp[FT_NQ];
	u32 qpn[FT_NQ];
	s8 qcq[FT_NQ];		/* the CQ a QP was made with */
	u32 sq_slots[FT_NQ];	/* the granted max_send_wr */
	struct xqp_ah *ah;
	struct xqp_ah *mah;	/* to the group */
	u8 attached;		/* bit per QP attached to the group */
	bool to_group;		/* a SEND to the group was posted: its GRH is in B's buffer */
	struct xqp_mw *mw;
	u32 mw_key;		/* the rkey the window's last bind gave it */
	u8 mw_binds;		/* binds posted: each takes the next key byte */
	struct xqp_send_wr list[FT_LIST];	/* FT_POST_LIST's WRs */
	struct ft_cq_ctx cqc[FT_NC];
	bool armed[FT_NC];	/* req_notify_cq succeeded, its handler not seen yet */
	spinlock_t irqs_off;	/* FT_IRQS_OFF posts under it */
	atomic_t events;
};

static void ft_comp(struct xqp_cq *cq, void *ctx)
{
	atomic_inc(&((struct ft_cq_ctx *)ctx)->comps);
}

static void ft_cq_event(struct xqp_event *ev, void *ctx)
{
	atomic_inc(&((struct ft_cq_ctx *)ctx)->events);
}

static void ft_event(struct xqp_event *ev, void *ctx)
{
	atomic_inc(ctx);
}

static void ft_out(struct ft_obs *o, long v)
{
	if (o->nout < FT_NOUT)
		o->out[o->nout++] = (s32)v;
}

static const struct ft_step *ft_step_of(const struct fs_prog *p, unsigned int i)
{
	return &((const struct ft_prog *)p->arg)->steps[i];
}

static void ft_free(struct ft_ctx *t)
{
	int d;

	for (d = 1; d >= 0; d--) {
		if (!IS_ERR_OR_NULL(t->soft[d]))
			xqp_soft_destroy(t->soft[d]);
		kfree(t->buf[d]);
	}
	kfree(t);
}

/*
 * Two soft devices of the subnet and their buffers: A's source filled with
 * a pattern, B's atomic target 5. Made disarmed (the devices' own
 * creation is the scenarios' device_only).
 */
static void *ft_setup(struct kunit *test, const struct fs_prog *p)
{
	static const char *const names[2] = { "xqp_fault_a", "xqp_fault_b" };
	struct ft_ctx *t = kzalloc(sizeof(*t), GFP_KERNEL);
	u64 five = 5;
	int d, i;

	if (!t)
		return NULL;
	for (d = 0; d < 2; d++) {
		t->buf[d] = kzalloc(FT_BUF, GFP_KERNEL);
		t->soft[d] = xqp_soft_create(names[d], NULL);
		if (!t->buf[d] || IS_ERR(t->soft[d])) {
			kunit_err(test, "%s: no soft device %s\n", p->name, names[d]);
			ft_free(t);
			return NULL;
		}
		t->dev[d] = xqp_soft_device(t->soft[d]);
	}
	spin_lock_init(&t->irqs_off);
	for (i = 0; i < FT_MSG; i++)
		t->buf[0][FT_A_SRC + i] = (char)('a' + i % 26);
	memcpy(t->buf[1] + FT_B_ATOMIC, &five, sizeof(five));
	return t;
}

static unsigned int ft_softs(void *ctx, struct xqp_soft **soft)
{
	struct ft_ctx *t = ctx;

	soft[0] = t->soft[0];
	soft[1] = t->soft[1];
	return 2;
}

static struct xqp_sge ft_sge(struct ft_ctx *t, int d, u32 off, u32 len)
{
	return (struct xqp_sge){ .addr = (uintptr_t)(t->buf[d] + off), .length = len,
				 .lkey = xqp_mr_lkey(t->mr[d]) };
}

/*
 * A requester's retries: 0 none (nobody there or no receive: fail now, not
 * on a timer); 1 one of each, after 8 us (ACK timeout 1) or the
 * responder's RNR timer; -1 for ever (timeout 0, rnr_retry 7).
 */
static void ft_retries(s8 k, struct xqp_qp_attr *a)
{
	a->timeout = k ? (k > 0 ? 1 : 0) : 14;
	a->retry_cnt = k ? (k > 0 ? 1 : 7) : 0;
	a->rnr_retry = k ? (k > 0 ? 1 : 7) : 0;
}

/*
 * INIT, RTR toward q2's device and number, RTS: as a kernel client does,
 * with the attributes each type takes (UD: a Q_Key, no path; UC: no
 * responder resources, no retries).
 */
static int ft_modify(struct ft_ctx *t, const struct ft_step *s)
{
	struct xqp_qp *qp = t->qp[s->q];
	enum xqp_qp_type type = xqp_qp_get_type(qp);
	struct xqp_qp_attr a = {};
	int mask;

	switch (s->op) {
	case FT_TO_INIT:
		a.qp_state = XQP_QPS_INIT;
		a.port_num = 1;
		mask = XQP_QP_STATE | XQP_QP_PKEY_INDEX | XQP_QP_PORT;
		if (type == XQP_QPT_GSI) {	/* as ib_mad_port_start(): no port */
			a.qkey = FT_QP1_QKEY;
			mask = XQP_QP_STATE | XQP_QP_PKEY_INDEX | XQP_QP_QKEY;
		} else if (type == XQP_QPT_UD) {
			a.qkey = FT_QKEY;
			mask |= XQP_QP_QKEY;
		} else {
			a.qp_access_flags = XQP_ACCESS_REMOTE_WRITE;
			if (type != XQP_QPT_UC)
				a.qp_access_flags |= XQP_ACCESS_REMOTE_READ |
						     XQP_ACCESS_REMOTE_ATOMIC;
			mask |= XQP_QP_ACCESS_FLAGS;
		}
		break;
	case FT_TO_RTR:
		a.qp_state = XQP_QPS_RTR;
		if (type == XQP_QPT_UD || type == XQP_QPT_GSI)
			return xqp_modify_qp(qp, &a, XQP_QP_STATE);
		if (!t->qp[s->q2])
			return FS_RC_DEAD_SLOT;
		a.path_mtu = XQP_MTU_4096;
		a.dest_qp_num = t->qpn[s->q2];
		a.ah_attr.dlid = xqp_soft_lid(t->soft[s->d ^ 1]);
		a.ah_attr.port_num = 1;
		a.min_rnr_timer = 1;
		a.max_dest_rd_atomic = 1;
		mask = XQP_QP_STATE | XQP_QP_AV | XQP_QP_PATH_MTU | XQP_QP_DEST_QPN |
		       XQP_QP_RQ_PSN;
		if (type != XQP_QPT_XRC_INI && type != XQP_QPT_UC)
			mask |= XQP_QP_MIN_RNR_TIMER | XQP_QP_MAX_DEST_RD_ATOMIC;
		break;
	default:
		a.qp_state = XQP_QPS_RTS;
		if (type == XQP_QPT_UD || type == XQP_QPT_GSI || type == XQP_QPT_UC)
			return xqp_modify_qp(qp, &a, XQP_QP_STATE | XQP_QP_SQ_PSN);
		ft_retries(s->k, &a);
		a.max_rd_atomic = 1;
		mask = XQP_QP_STATE | XQP_QP_SQ_PSN | XQP_QP_TIMEOUT | XQP_QP_RETRY_CNT |
		       XQP_QP_RNR_RETRY | XQP_QP_MAX_QP_RD_ATOMIC;
		break;
	}
	return xqp_modify_qp(qp, &a, mask);
}

static int ft_create_qp(struct ft_ctx *t, const struct ft_step *s)
{
	struct xqp_qp_init_attr init = {
		.qp_type = s->type,
		.event_handler = ft_event,
		.qp_context = &t->events,
		.sq_sig_type = XQP_SIGNAL_ALL_WR,
		.port_num = s->type == XQP_QPT_GSI,	/* QP1 of port 1 */
	};
	struct xqp_pd *pd = NULL;
	struct xqp_qp *qp;

	if (s->type == XQP_QPT_XRC_TGT) {
		if (!t->xrcd)
			return FS_RC_DEAD_SLOT;
		init.xrcd = t->xrcd;
	} else {
		if (!t->pd[s->d] || !t->cq[s->c])
			return FS_RC_DEAD_SLOT;
		pd = t->pd[s->d];
		init.send_cq = t->cq[s->c];
		init.recv_cq = t->cq[s->c];
		init.cap.max_send_wr = 8;
		init.cap.max_send_sge = 1;
		init.cap.max_inline_data = FT_MSG;
		if (s->type != XQP_QPT_XRC_INI) {
			init.cap.max_recv_wr = 8;
			init.cap.max_recv_sge = 1;
		}
	}
	qp = xqp_create_qp_user(t->dev[s->d], pd, &init, NULL, NULL, KBUILD_MODNAME);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	t->qp[s->q] = qp;
	t->qpn[s->q] = xqp_qp_num(qp);
	t->qcq[s->q] = s->type == XQP_QPT_XRC_TGT ? -1 : s->c;
	t->sq_slots[s->q] = init.cap.max_send_wr;
	return 0;
}

static int ft_create_srq(struct ft_ctx *t, const struct ft_step *s)
{
	struct xqp_srq_init_attr si = {
		.srq_type = XQP_SRQT_XRC,
		.attr = { .max_wr = 4, .max_sge = 1 },
		.event_handler = ft_event,
		.srq_context = &t->events,
		.xrcd = t->xrcd,
		.cq = t->cq[s->c],
	};
	struct xqp_srq *srq;

	if (!t->pd[s->d] || !t->xrcd || !t->cq[s->c])
		return FS_RC_DEAD_SLOT;
	srq = xqp_create_srq(t->pd[s->d], &si);
	if (IS_ERR(srq))
		return PTR_ERR(srq);
	t->srq = srq;
	return 0;
}

/* Two receives in one list; a refused list names one of its WRs as bad. */
static int ft_post_recv(struct ft_ctx *t, const struct ft_step *s, struct ft_obs *o)
{
	int d = s->op == FT_POST_RECV ? s->d : 1;
	u32 off = s->op == FT_POST_RECV ? FT_B_RECV : FT_B_SRQ + s->n * FT_MSG;
	struct xqp_sge sge[2] = { ft_sge(t, d, off, FT_MSG), ft_sge(t, d, off + FT_MSG, FT_MSG) };
	struct xqp_recv_wr wr[2] = {
		{ .next = &wr[1], .wr_id = 100 + off / FT_MSG, .sg_list = &sge[0], .num_sge = 1 },
		{ .wr_id = 101 + off / FT_MSG, .sg_list = &sge[1], .num_sge = 1 },
	};
	const struct xqp_recv_wr *bad = NULL;
	int rc;

	if (s->op == FT_POST_RECV)
		rc = xqp_post_recv(t->qp[s->q], wr, &bad);
	else
		rc = xqp_post_srq_recv(t->srq, wr, &bad);
	if (rc && bad != &wr[0] && bad != &wr[1])
		return 2000;	/* not an errno: the judge reports it */
	ft_out(o, rc ? bad - wr : -1);
	return rc;
}

/* UD: the address of q2 through the program's AH (FT_TO_GROUP: the group's); false when there is none. */
static bool ft_ud_dest(struct ft_ctx *t, const struct ft_step *s, struct xqp_send_wr *wr)
{
	enum xqp_qp_type type = xqp_qp_get_type(t->qp[s->q]);

	if (type != XQP_QPT_UD && type != XQP_QPT_GSI)
		return true;
	if (s->how & FT_TO_GROUP) {
		if (!t->mah)
			return false;
		wr->wr.ud.ah = t->mah;
		wr->wr.ud.remote_qpn = XQP_MULTICAST_QPN;
		wr->wr.ud.remote_qkey = FT_QKEY;
		return true;
	}
	if (!t->ah || !t->qp[s->q2])
		return false;
	wr->wr.ud.ah = t->ah;
	wr->wr.ud.remote_qpn = t->qpn[s->q2];
	wr->wr.ud.remote_qkey = type == XQP_QPT_GSI ? FT_QP1_QKEY : FT_QKEY;
	return true;
}

/* Posts @wr on q; with FT_IRQS_OFF, as a client under its own IRQ-safe lock. */
static int ft_post(struct ft_ctx *t, const struct ft_step *s, const struct xqp_send_wr *wr,
		   const struct xqp_send_wr **bad)
{
	unsigned long flags;
	int rc;

	if (!(s->how & FT_IRQS_OFF))
		return xqp_post_send(t->qp[s->q], wr, bad);
	spin_lock_irqsave(&t->irqs_off, flags);
	rc = xqp_post_send(t->qp[s->q], wr, bad);
	spin_unlock_irqrestore(&t->irqs_off, flags);
	return rc;
}

/*
 * FT_WAIT: until the completion handler of q's CQ has run since it read
 * @before, if that CQ is armed; no driver op is called meanwhile, so every
 * run makes the same calls. -ETIMEDOUT if it has not after FT_WAIT_MS: a
 * WR the device took always completes (a send queue below RTS takes
 * none), but a full CQ loses the completion, as in a run whose poll
 * failed; in a clean run, or before a run's first failure, it is reported.
 */
static int ft_wait(struct ft_ctx *t, const struct ft_step *s, int before)
{
	unsigned long until = jiffies + msecs_to_jiffies(FT_WAIT_MS);
	int c = t->qcq[s->q];

	if (c < 0 || !t->armed[c])
		return 0;
	while (atomic_read(&t->cqc[c].comps) == before) {
		if (time_after(jiffies, until))
			return -ETIMEDOUT;
		usleep_range(100, 500);
	}
	t->armed[c] = false;
	return 0;
}

/* One signaled WR of @s->opcode from q to its peer on the other device. */
static int ft_post_send(struct ft_ctx *t, const struct ft_step *s, struct ft_obs *o)
{
	int d = s->d, peer = s->d ^ 1;
	u32 len = s->len ? s->len : FT_MSG;
	struct xqp_send_wr wr = {
		.wr_id = 1000 + s->opcode,
		.opcode = s->opcode,
		.send_flags = XQP_SEND_SIGNALED | s->flags,
		.num_sge = 1,
		.imm_data = 0x1234 + s->opcode,
	};
	const struct xqp_send_wr *bad = NULL;
	int rc, c = t->qcq[s->q], before;
	struct xqp_sge sge;

	if (!t->mr[peer])
		return FS_RC_DEAD_SLOT;
	if ((s->how & FT_VIA_MW) && !t->mw)
		return FS_RC_DEAD_SLOT;
	switch (s->opcode) {
	case XQP_WR_RDMA_WRITE:
	case XQP_WR_RDMA_WRITE_WITH_IMM:
		sge = ft_sge(t, d, FT_A_SRC, len);
		wr.wr.rdma.remote_addr = (uintptr_t)(t->buf[peer] + FT_B_WRITE);
		wr.wr.rdma.rkey = s->how & FT_VIA_MW ? t->mw_key : xqp_mr_rkey(t->mr[peer]);
		break;
	case XQP_WR_BIND_MW:	/* the window to FT_MSG bytes of our own MR */
		if (!t->mw)
			return FS_RC_DEAD_SLOT;
		t->mw_key = (xqp_mw_rkey(t->mw) & ~0xffU) | (u8)(0x40 + ++t->mw_binds);
		wr.wr.bind.mw = t->mw;
		wr.wr.bind.rkey = t->mw_key;
		wr.wr.bind.mr_lkey = xqp_mr_lkey(t->mr[d]);
		wr.wr.bind.addr = (uintptr_t)(t->buf[d] + FT_B_WRITE);
		wr.wr.bind.length = FT_MSG;
		wr.wr.bind.access = XQP_ACCESS_REMOTE_WRITE | XQP_ACCESS_REMOTE_READ;
		wr.num_sge = 0;
		break;
	case XQP_WR_LOCAL_INV:
		wr.invalidate_rkey = t->mw_key;
		wr.num_sge = 0;
		break;
	case XQP_WR_RDMA_READ:
		sge = ft_sge(t, d, FT_A_READ, FT_MSG);
		wr.wr.rdma.remote_addr = (uintptr_t)(t->buf[peer] + FT_B_WRITE);
		wr.wr.rdma.rkey = xqp_mr_rkey(t->mr[peer]);
		break;
	case XQP_WR_ATOMIC_FETCH_AND_ADD:
	case XQP_WR_ATOMIC_CMP_AND_SWP:
		sge = ft_sge(t, d, FT_A_FETCH + (s->opcode == XQP_WR_ATOMIC_CMP_AND_SWP) * 8, 8);
		wr.wr.atomic.remote_addr = (uintptr_t)(t->buf[peer] + FT_B_ATOMIC);
		wr.wr.atomic.rkey = xqp_mr_rkey(t->mr[peer]);
		wr.wr.atomic.compare_add = s->opcode == XQP_WR_ATOMIC_CMP_AND_SWP ? 15 : 10;
		wr.wr.atomic.swap = 100;
		break;
	default:	/* SEND, SEND_WITH_IMM, SEND_WITH_INV; to the SRQ for XRC, to q2 for UD */
		sge = ft_sge(t, d, FT_A_SRC, len);
		if (s->opcode == XQP_WR_SEND_WITH_INV)
			wr.invalidate_rkey = t->mw_key;
		if (xqp_qp_get_type(t->qp[s->q]) == XQP_QPT_XRC_INI) {
			if (!t->srq)
				return FS_RC_DEAD_SLOT;
			wr.xrc_remote_srq_num = xqp_srq_num(t->srq);
		}
		if (!ft_ud_dest(t, s, &wr))
			return FS_RC_DEAD_SLOT;
		break;
	}
	wr.sg_list = &sge;
	before = c >= 0 ? atomic_read(&t->cqc[c].comps) : 0;
	rc = ft_post(t, s, &wr, &bad);
	if (rc && bad != &wr)
		return 2000;	/* not an errno: the judge reports it */
	/* the hash leaves the GID out from the step that sent: a refused send changed nothing */
	if (!rc)
		t->to_group |= !!(s->how & FT_TO_GROUP);
	if (rc || !(s->how & FT_WAIT))
		return rc;
	return ft_wait(t, s, before);
}

/*
 * A list of signaled 16-byte SENDs from q (to q2 for UD) that the device
 * must refuse part-way: WR .k has an opcode the QP's type does not take
 * (-EINVAL), or, with .k < 0, the list is one WR longer than the send
 * queue (-ENOMEM at the last). Refused there, the step returns 0 (the WRs
 * before it are posted and complete); any other outcome is its own result.
 */
static int ft_post_list(struct ft_ctx *t, const struct ft_step *s, struct ft_obs *o)
{
	struct xqp_send_wr *wr = t->list;
	const struct xqp_send_wr *bad = NULL;
	struct xqp_sge sge = ft_sge(t, s->d, FT_A_SRC, 16);
	u32 n = s->k >= 0 ? s->n : t->sq_slots[s->q] + 1;
	u32 at = s->k >= 0 ? (u32)s->k : n - 1, i;
	int want = s->k >= 0 ? -EINVAL : -ENOMEM, rc;

	if (n > FT_LIST || at >= n)
		return 2001;	/* a step the table cannot have: not an errno */
	memset(t->list, 0, sizeof(t->list));
	for (i = 0; i < n; i++) {
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
		wr[i].wr_id = 3000 + i;
		wr[i].opcode = XQP_WR_SEND;
		wr[i].send_flags = XQP_SEND_SIGNALED;
		wr[i].sg_list = &sge;
		wr[i].num_sge = 1;
		if (!ft_ud_dest(t, s, &wr[i]))
			return FS_RC_DEAD_SLOT;
	}
	if (s->k >= 0)
		wr[at].opcode = XQP_WR_ATOMIC_FETCH_AND_ADD;
	rc = xqp_post_send(t->qp[s->q], wr, &bad);
	if (rc && (bad < wr || bad >= wr + n))
		return 2000;	/* not an errno: the judge reports it */
	ft_out(o, rc ? bad - wr : -1);
	if (rc == want && bad == &wr[at])
		return 0;
	return rc ? rc : 2002;	/* accepted a list it must refuse: not an errno */
}

/* Polls once: the completions of the posts before are all there. */
static int ft_poll(struct ft_ctx *t, const struct ft_step *s, struct ft_obs *o)
{
	struct xqp_wc wc[FT_POLL];
	int n, i, j;

	n = xqp_poll_cq(t->cq[s->c], FT_POLL, wc);
	if (n < 0)
		return n;
	if (n > FT_POLL)
		return 2000 + n;	/* more than asked for: not an errno */
	ft_out(o, n);
	for (i = 0; i < n; i++) {
		bool ours = false;

		for (j = 0; j < FT_NQ; j++)
			ours |= t->qp[j] && wc[i].qp_num == t->qpn[j];
		ft_out(o, (long)wc[i].wr_id);
		ft_out(o, wc[i].status);
		ft_out(o, wc[i].opcode);
		ft_out(o, ours ? (long)wc[i].byte_len : -1);
	}
	return 0;
}

static int ft_query(struct ft_ctx *t, const struct ft_step *s, struct ft_obs *o)
{
	struct xqp_device_attr da;
	struct xqp_port_attr pa;
	struct xqp_srq_attr sa;
	u8 gid[16];
	u16 pkey;
	int rc, i;

	switch (s->op) {
	case FT_QUERY_DEVICE:
		rc = xqp_query_device(t->dev[s->d], &da);
		if (!rc) {
			ft_out(o, da.max_qp);
			ft_out(o, da.max_cqe);
			ft_out(o, !!(da.device_cap_flags & XQP_DEVICE_XRC));
			ft_out(o, da.phys_port_cnt);
		}
		return rc;
	case FT_QUERY_PORT:
		rc = xqp_query_port(t->dev[s->d], 1, &pa);
		if (!rc) {
			ft_out(o, pa.state);
			ft_out(o, pa.active_mtu);
			ft_out(o, pa.gid_tbl_len);
			ft_out(o, pa.pkey_tbl_len);
			ft_out(o, pa.lid == xqp_soft_lid(t->soft[s->d]));
		}
		return rc;
	case FT_QUERY_GID:
		rc = xqp_query_gid(t->dev[s->d], 1, 0, gid);
		for (i = 0; !rc && i < 8; i++)	/* the prefix; the rest is the instance's */
			ft_out(o, gid[i]);
		return rc;
	case FT_QUERY_PKEY:
		rc = xqp_query_pkey(t->dev[s->d], 1, 0, &pkey);
		if (!rc)
			ft_out(o, pkey);
		return rc;
	default:	/* FT_QUERY_SRQ */
		if (!t->srq)
			return FS_RC_DEAD_SLOT;
		rc = xqp_query_srq(t->srq, &sa);
		if (!rc) {
			ft_out(o, sa.max_wr);
			ft_out(o, sa.max_sge);
			ft_out(o, sa.srq_limit);
		}
		return rc;
	}
}

/* What each step needs besides its own arguments; FS_RC_DEAD_SLOT if missing. */
static bool ft_ready(const struct ft_ctx *t, const struct ft_step *s)
{
	switch (s->op) {
	case FT_DEALLOC_PD:
		return t->pd[s->d];
	case FT_REG_MR:
		return t->pd[s->d];
	case FT_DEREG_MR:
		return t->mr[s->d];
	case FT_DESTROY_CQ:
	case FT_NOTIFY_CQ:
	case FT_RESIZE_CQ:
	case FT_POLL_CQ:
		return t->cq[s->c];
	case FT_DEALLOC_XRCD:
		return t->xrcd;
	case FT_DESTROY_SRQ:
	case FT_MODIFY_SRQ:
		return t->srq;
	case FT_POST_SRQ_RECV:
		return t->srq && t->mr[1];
	case FT_CREATE_QP:
		return !t->qp[s->q];	/* its destroy failed: not made over it */
	case FT_DESTROY_QP:
	case FT_TO_INIT:
	case FT_TO_RTR:
	case FT_TO_RTS:
		return t->qp[s->q];
	case FT_POST_RECV:
	case FT_POST_SEND:
		/* to the group: its AH, and q2 attached to take it */
		if ((s->how & FT_TO_GROUP) && (!t->mah || !(t->attached & 1 << s->q2)))
			return false;
		return t->qp[s->q] && t->mr[s->d];
	case FT_POST_LIST:
		return t->qp[s->q] && t->mr[s->d];
	case FT_CREATE_AH:
		return t->pd[s->d];
	case FT_DESTROY_AH:
		return s->n == 2 ? !!t->mah : !!t->ah;
	case FT_ATTACH_MCAST:
		return t->qp[s->q] && !(t->attached & 1 << s->q);
	case FT_DETACH_MCAST:
		return t->attached & 1 << s->q;
	case FT_ALLOC_MW:
		return t->pd[s->d] && !t->mw;
	case FT_DEALLOC_MW:
		return t->mw;
	}
	return true;
}

static int ft_run(const struct fs_prog *p, void *ctx, unsigned int i, void *obs)
{
	const struct ft_step *s = ft_step_of(p, i);
	struct xqp_cq_init_attr ca = {
		.cqe = s->n ? s->n : FT_CQE, .comp_handler = ft_comp, .event_handler = ft_cq_event,
	};
	struct ft_ctx *t = ctx;
	struct ft_obs *o = obs;
	struct xqp_ah_attr ah = {
		.dlid = xqp_soft_lid(t->soft[s->d ^ 1]), .port_num = 1, .sl = 2,
	};
	struct xqp_srq_attr sa;
	int rc;

	if (!ft_ready(t, s))
		return FS_RC_DEAD_SLOT;
	switch (s->op) {
	case FT_ALLOC_PD:
		return dx_keep(t->pd[s->d], xqp_alloc_pd(t->dev[s->d]));
	case FT_DEALLOC_PD:
		return dx_free(t->pd[s->d], xqp_dealloc_pd(t->pd[s->d]));
	case FT_REG_MR:	/* the DMA MR's iova is the buffer's address too */
		if (s->n)
			return dx_keep(t->mr[s->d], xqp_get_dma_mr(t->pd[s->d],
								   XQP_ACCESS_LOCAL_WRITE));
		return dx_keep(t->mr[s->d], xqp_reg_kernel_mr(t->pd[s->d], t->buf[s->d], FT_BUF,
							      FT_ACCESS));
	case FT_DEREG_MR:
		return dx_free(t->mr[s->d], xqp_dereg_mr(t->mr[s->d]));
	case FT_CREATE_CQ:
		ca.cq_context = &t->cqc[s->c];
		rc = dx_keep(t->cq[s->c], xqp_create_cq_attr(t->dev[s->d], &ca));
		if (!rc)
			ft_out(o, xqp_cq_cqe(t->cq[s->c]));
		return rc;
	case FT_DESTROY_CQ:
		return dx_free(t->cq[s->c], xqp_destroy_cq(t->cq[s->c]));
	case FT_NOTIFY_CQ:
		rc = xqp_req_notify_cq(t->cq[s->c], XQP_CQ_NEXT_COMP);
		t->armed[s->c] |= !rc;
		return rc;
	case FT_RESIZE_CQ:
		rc = xqp_resize_cq(t->cq[s->c], s->n);
		ft_out(o, xqp_cq_cqe(t->cq[s->c]));
		return rc;
	case FT_POLL_CQ:
		return ft_poll(t, s, o);
	case FT_QUERY_DEVICE:
	case FT_QUERY_PORT:
	case FT_QUERY_GID:
	case FT_QUERY_PKEY:
	case FT_QUERY_SRQ:
		return ft_query(t, s, o);
	case FT_ALLOC_XRCD:
		return dx_keep(t->xrcd, xqp_alloc_xrcd(t->dev[s->d]));
	case FT_DEALLOC_XRCD:
		return dx_free(t->xrcd, xqp_dealloc_xrcd(t->xrcd));
	case FT_CREATE_SRQ:
		return ft_create_srq(t, s);
	case FT_DESTROY_SRQ:
		return dx_free(t->srq, xqp_destroy_srq(t->srq));
	case FT_MODIFY_SRQ:
		sa = (struct xqp_srq_attr){ .max_wr = s->n, .srq_limit = 1 };
		rc = xqp_modify_srq(t->srq, &sa, XQP_SRQ_MAX_WR | XQP_SRQ_LIMIT);
		ft_out(o, rc ? -1 : (long)sa.max_wr);
		return rc;
	case FT_CREATE_QP:
		return ft_create_qp(t, s);
	case FT_DESTROY_QP:
		return dx_free(t->qp[s->q], xqp_destroy_qp(t->qp[s->q]));
	case FT_TO_INIT:
	case FT_TO_RTR:
	case FT_TO_RTS:
		return ft_modify(t, s);
	case FT_POST_RECV:
	case FT_POST_SRQ_RECV:
		return ft_post_recv(t, s, o);
	case FT_POST_SEND:
		return ft_post_send(t, s, o);
	case FT_POST_LIST:
		return ft_post_list(t, s, o);
	case FT_CREATE_AH:
		if (s->n == 2) {
			struct xqp_ah_attr mav = { .is_global = 1, .port_num = 1, .hop_limit = 1 };

			memcpy(mav.dgid, ft_mgid, 16);
			return dx_keep(t->mah, xqp_create_ah(t->pd[s->d], &mav));
		}
		return dx_keep(t->ah, xqp_create_ah_flags(t->pd[s->d], &ah,
							  s->n ? XQP_AH_NO_SLEEP : 0));
	case FT_DESTROY_AH:
		if (s->n == 2)
			return dx_free(t->mah, xqp_destroy_ah(t->mah));
		return dx_free(t->ah, xqp_destroy_ah(t->ah));
	case FT_ATTACH_MCAST:
		rc = xqp_attach_mcast(t->qp[s->q], ft_mgid, FT_MLID);
		if (!rc)
			t->attached |= 1 << s->q;
		return rc;
	case FT_DETACH_MCAST:
		rc = xqp_detach_mcast(t->qp[s->q], ft_mgid, FT_MLID);
		if (!rc)
			t->attached &= ~(1 << s->q);
		return rc;
	case FT_ALLOC_MW:
		return dx_keep(t->mw, xqp_alloc_mw(t->pd[s->d], s->n));
	case FT_DEALLOC_MW:
		return dx_free(t->mw, xqp_dealloc_mw(t->mw));
	}
	return -EOPNOTSUPP;
}

/*
 * A hash of device @d's buffer; once a message to the group was sent, but
 * for the source GID of the GRH its receive at FT_B_RECV holds: the soft
 * device's GID carries its node GUID, which differs from one run's devices
 * to the next.
 */
static u32 ft_hash(const struct ft_ctx *t, int d)
{
	const char *b = t->buf[d];
	u32 at = FT_B_RECV + 8, n = 16;

	if (!t->to_group)
		return jhash(b, FT_BUF, 0);
	return jhash(b, at, jhash(b + at + n, FT_BUF - at - n, 0));
}

static void ft_observe(const struct fs_prog *p, void *ctx, unsigned int i, void *obs)
{
	struct ft_ctx *t = ctx;
	struct ft_obs *o = obs;
	struct xqp_soft_counts c;
	int d, k;

	xqp_work_flush_all();	/* the completion handlers owed have run */
	for (d = 0; d < 2; d++) {
		xqp_soft_counts(t->soft[d], &c);
		o->drv[d][0] = c.pd;
		o->drv[d][1] = c.cq;
		o->drv[d][2] = c.xrcd;
		o->drv[d][3] = c.srq;
		o->drv[d][4] = c.qp;
		o->drv[d][5] = c.mr;
		o->drv[d][6] = c.mw;
		o->drv[d][7] = c.mcast_grp;
		o->drv[d][8] = c.mcast_attach;
		o->hash[d] = ft_hash(t, d);
		o->held |= !!t->pd[d] << d | !!t->mr[d] << (2 + d);
	}
	for (k = 0; k < FT_NC; k++) {
		o->held |= !!t->cq[k] << (4 + k);
		o->comps[k] = atomic_read(&t->cqc[k].comps);
		o->cq_events[k] = atomic_read(&t->cqc[k].events);
	}
	for (k = 0; k < FT_NQ; k++)
		o->held |= !!t->qp[k] << (6 + k);
	o->held |= !!t->xrcd << 10 | !!t->srq << 11 | !!t->ah << 12 | !!t->mw << 13 |
		   !!t->mah << 14 | (u32)t->attached << 15;
	o->events = atomic_read(&t->events);
}

/* Everything but what the step reported: objects, counts, handlers, events, data. */
static bool ft_state_differs(char *buf, size_t len, const void *pa, const void *pb)
{
	const struct ft_obs *a = pa, *b = pb;
	size_t n = 0;

	buf[0] = '\0';
	FS_OBS_PART(buf, len, n, a, b, "driver-objects", drv);
	FS_OBS_PART(buf, len, n, a, b, "held", held);
	FS_OBS_PART(buf, len, n, a, b, "completion-handlers", comps);
	FS_OBS_PART(buf, len, n, a, b, "cq-events", cq_events);
	FS_OBS_PART(buf, len, n, a, b, "events", events);
	FS_OBS_PART(buf, len, n, a, b, "data", hash);
	return n;
}

/* Which parts of two observations differ, for a report. */
static void ft_obs_diff(char *buf, size_t len, const void *pa, const void *pb)
{
	const struct ft_obs *a = pa, *b = pb;
	size_t n;

	ft_state_differs(buf, len, pa, pb);
	n = strlen(buf);
	FS_OBS_PART(buf, len, n, a, b, "out", out);
	if (a->nout != b->nout)
		n += scnprintf(buf + n, len - n, " nout");
}

/* Disarmed: everything still held, users first; then both devices must be empty. */
static unsigned int ft_teardown(void *ctx, struct kunit *test)
{
	struct ft_ctx *t = ctx;
	struct xqp_soft_counts c;
	unsigned int left = 0;
	int d, k;

	for (k = FT_NQ - 1; k >= 0; k--)
		if ((t->attached & 1 << k) && xqp_detach_mcast(t->qp[k], ft_mgid, FT_MLID))
			left++;
	for (k = FT_NQ - 1; k >= 0; k--)
		if (t->qp[k] && xqp_destroy_qp(t->qp[k]))
			left++;
	if (t->srq && xqp_destroy_srq(t->srq))
		left++;
	if (t->ah && xqp_destroy_ah(t->ah))
		left++;
	if (t->mah && xqp_destroy_ah(t->mah))
		left++;
	if (t->mw && xqp_dealloc_mw(t->mw))	/* before the MR it may be bound to */
		left++;
	for (d = 1; d >= 0; d--)
		if (t->mr[d] && xqp_dereg_mr(t->mr[d]))
			left++;
	for (k = FT_NC - 1; k >= 0; k--)
		if (t->cq[k] && xqp_destroy_cq(t->cq[k]))
			left++;
	if (t->xrcd && xqp_dealloc_xrcd(t->xrcd))
		left++;
	for (d = 1; d >= 0; d--)
		if (t->pd[d] && xqp_dealloc_pd(t->pd[d]))
			left++;
	if (left)
		kunit_err(test, "traffic: %u objects could not be destroyed\n", left);
	for (d = 0; d < 2; d++) {
		xqp_soft_counts(t->soft[d], &c);
		left += c.pd + c.cq + c.xrcd + c.srq + c.qp + c.mr + c.mw + c.mcast_grp +
			c.mcast_attach;
	}
	ft_free(t);
	return left;
}

static const char *ft_step_name(const struct fs_prog *p, unsigned int i)
{
	return ft_op_names[ft_step_of(p, i)->op];
}

/*
 * The clean run is itself a test of the data path: every step succeeded
 * (FT_WAIT: the handler ran), each poll took the completions its step
 * expects, with the status it expects (success but where an error is the
 * point), and the handler of the armed CQ ran.
 */
static bool ft_clean_ok(struct kunit *test, const struct fs_prog *p, const int *rc,
			const void *obs)
{
	const struct ft_obs *o = obs;
	bool ok = true;
	unsigned int i;
	int k;

	for (i = 0; i < p->nsteps; i++) {
		const struct ft_step *s = ft_step_of(p, i);
		const struct ft_obs *oi = &o[i];

		if (rc[i]) {
			KUNIT_FAIL(test, "%s: clean run, step %u (%s) returned %d", p->name, i,
				   ft_op_names[s->op], rc[i]);
			ok = false;
			continue;
		}
		if (s->op != FT_POLL_CQ)
			continue;
		if (oi->out[0] != s->n) {
			KUNIT_FAIL(test, "%s: clean run, step %u polled %d completions, not %u",
				   p->name, i, oi->out[0], s->n);
			ok = false;
		}
		if (oi->cq_events[s->c] != s->k) {
			KUNIT_FAIL(test, "%s: clean run, step %u: CQ %d has had %u async events, not %d",
				   p->name, i, s->c, oi->cq_events[s->c], s->k);
			ok = false;
		}
		for (k = 0; k < oi->out[0] && 1 + 4 * k + 3 < FT_NOUT; k++) {
			if (oi->out[1 + 4 * k + 1] != s->st ||
			    oi->out[1 + 4 * k + 3] < 0) {
				KUNIT_FAIL(test, "%s: clean run, step %u: completion %d has status %d, byte_len %d",
					   p->name, i, k, oi->out[1 + 4 * k + 1],
					   oi->out[1 + 4 * k + 3]);
				ok = false;
			}
		}
	}
	return ok;
}

static const struct fs_prog_ops ft_ops = {
	.setup = ft_setup,
	.softs = ft_softs,
	.run = ft_run,
	.observe = ft_observe,
	.obs_diff = ft_obs_diff,
	.state_differs = ft_state_differs,
	.teardown = ft_teardown,
	.step_name = ft_step_name,
	.clean_ok = ft_clean_ok,
};

#define A 0
#define B 1

/*
 * QP qa on A (CQ 0) and qb on B (CQ 1) of type @qpt, made and taken to RTS
 * toward each other, their requesters with @retries (ft_retries()).
 */
#define FT_PAIR_RETRY(qpt, qa, qb, retries)					\
	{ FT_CREATE_QP, .d = A, .c = 0, .q = (qa), .type = (qpt) },		\
	{ FT_CREATE_QP, .d = B, .c = 1, .q = (qb), .type = (qpt) },		\
	{ FT_TO_INIT, .q = (qa) },						\
	{ FT_TO_INIT, .q = (qb) },						\
	{ FT_TO_RTR, .d = A, .q = (qa), .q2 = (qb) },				\
	{ FT_TO_RTR, .d = B, .q = (qb), .q2 = (qa) },				\
	{ FT_TO_RTS, .q = (qa), .k = (retries) },				\
	{ FT_TO_RTS, .q = (qb), .k = (retries) }
#define FT_PAIR(qpt, qa, qb)	FT_PAIR_RETRY(qpt, qa, qb, 0)

/* The end of a program without XRC: both MRs, both CQs, both PDs, B first. */
#define FT_TEARDOWN					\
	{ FT_DEREG_MR, .d = B },			\
	{ FT_DEREG_MR, .d = A },			\
	{ FT_DESTROY_CQ, .c = 1 },			\
	{ FT_DESTROY_CQ, .c = 0 },			\
	{ FT_DEALLOC_PD, .d = B },			\
	{ FT_DEALLOC_PD, .d = A }

/* The start of a program: both PDs, both buffers' MRs, CQ 0 on A, CQ 1 on B. */
#define FT_NODES					\
	{ FT_ALLOC_PD, .d = A },			\
	{ FT_ALLOC_PD, .d = B },			\
	{ FT_REG_MR, .d = A },				\
	{ FT_REG_MR, .d = B },				\
	{ FT_CREATE_CQ, .d = A, .c = 0 },		\
	{ FT_CREATE_CQ, .d = B, .c = 1 }

/* RC between A (QP 0, CQ 0) and B (QP 1, CQ 1, armed), every opcode. */
static const struct ft_step ft_rc_steps[] = {
	FT_NODES,
	{ FT_NOTIFY_CQ, .c = 1 },
	{ FT_QUERY_DEVICE, .d = A },
	{ FT_QUERY_PORT, .d = A },
	{ FT_QUERY_GID, .d = A },
	{ FT_QUERY_PKEY, .d = B },
	FT_PAIR(XQP_QPT_RC, 0, 1),
	{ FT_POST_RECV, .d = B, .q = 1 },
	{ FT_POST_SEND, .d = A, .q = 0, .opcode = XQP_WR_SEND },
	{ FT_POLL_CQ, .c = 0, .n = 1 },
	{ FT_POLL_CQ, .c = 1, .n = 1 },
	{ FT_POST_SEND, .d = A, .q = 0, .opcode = XQP_WR_RDMA_WRITE },
	{ FT_POST_SEND, .d = A, .q = 0, .opcode = XQP_WR_RDMA_READ },
	{ FT_POST_SEND, .d = A, .q = 0, .opcode = XQP_WR_ATOMIC_FETCH_AND_ADD },
	{ FT_POST_SEND, .d = A, .q = 0, .opcode = XQP_WR_ATOMIC_CMP_AND_SWP },
	{ FT_POLL_CQ, .c = 0, .n = 4 },
	{ FT_RESIZE_CQ, .c = 0, .n = 64 },
	{ FT_POST_SEND, .d = A, .q = 0, .opcode = XQP_WR_SEND },
	{ FT_POLL_CQ, .c = 1, .n = 1 },
	{ FT_POLL_CQ, .c = 0, .n = 1 },
	{ FT_DESTROY_QP, .q = 1 },
	{ FT_DESTROY_QP, .q = 0 },
	FT_TEARDOWN,
};

/* XRC: A's XRC_INI (QP 1, CQ 0) into B's XRC SRQ (CQ 1) through B's XRC_TGT (QP 0). */
static const struct ft_step ft_xrc_steps[] = {
	FT_NODES,
	{ FT_ALLOC_XRCD, .d = B },
	{ FT_CREATE_SRQ, .d = B, .c = 1 },
	{ FT_CREATE_QP, .d = B, .q = 0, .type = XQP_QPT_XRC_TGT },
	{ FT_CREATE_QP, .d = A, .c = 0, .q = 1, .type = XQP_QPT_XRC_INI },
	{ FT_TO_INIT, .q = 0 },
	{ FT_TO_INIT, .q = 1 },
	{ FT_TO_RTR, .d = B, .q = 0, .q2 = 1 },
	{ FT_TO_RTR, .d = A, .q = 1, .q2 = 0 },
	{ FT_TO_RTS, .q = 1 },
	{ FT_POST_SRQ_RECV, .n = 0 },
	{ FT_QUERY_SRQ },
	{ FT_POST_SEND, .d = A, .q = 1, .opcode = XQP_WR_SEND },
	{ FT_POLL_CQ, .c = 0, .n = 1 },
	{ FT_POLL_CQ, .c = 1, .n = 1 },
	{ FT_MODIFY_SRQ, .n = 8 },
	{ FT_QUERY_SRQ },
	{ FT_POST_SRQ_RECV, .n = 2 },
	{ FT_POST_SEND, .d = A, .q = 1, .opcode = XQP_WR_SEND },
	{ FT_POLL_CQ, .c = 1, .n = 1 },
	{ FT_POLL_CQ, .c = 0, .n = 1 },
	{ FT_QUERY_GID, .d = B },
	{ FT_DESTROY_QP, .q = 1 },
	{ FT_DESTROY_QP, .q = 0 },
	{ FT_DESTROY_SRQ },
	{ FT_DEREG_MR, .d = B },
	{ FT_DEREG_MR, .d = A },
	{ FT_DESTROY_CQ, .c = 1 },
	{ FT_DESTROY_CQ, .c = 0 },
	{ FT_DEALLOC_XRCD },
	{ FT_DEALLOC_PD, .d = B },
	{ FT_DEALLOC_PD, .d = A },
};

/*
 * UD between A (QP 0, CQ 0) and B (QP 1, CQ 1) through an AH, then UC
 * between A (QP 2) and B (QP 3). A UD receive holds the 40-byte GRH room
 * and 16 bytes; sends no receive waits for are dropped (UD, UC), their
 * senders complete.
 */
static const struct ft_step ft_ud_uc_steps[] = {
	FT_NODES,
	{ FT_CREATE_AH, .d = A },
	FT_PAIR(XQP_QPT_UD, 0, 1),
	{ FT_POST_RECV, .d = B, .q = 1 },
	{ FT_POST_SEND, .d = A, .q = 0, .q2 = 1, .opcode = XQP_WR_SEND_WITH_IMM, .len = 16 },
	{ FT_POST_SEND, .d = A, .q = 0, .q2 = 1, .opcode = XQP_WR_SEND,
	  .flags = XQP_SEND_INLINE, .len = 16 },
	{ FT_POLL_CQ, .c = 0, .n = 2 },
	{ FT_POLL_CQ, .c = 1, .n = 2 },
	{ FT_POST_LIST, .d = A, .q = 0, .q2 = 1, .n = 3, .k = 2 },
	{ FT_POLL_CQ, .c = 0, .n = 2 },
	{ FT_CREATE_AH, .d = A, .n = 2 },
	{ FT_ATTACH_MCAST, .q = 1 },
	{ FT_ATTACH_MCAST, .q = 0 },
	{ FT_POST_RECV, .d = B, .q = 1 },
	{ FT_POST_SEND, .d = A, .q = 0, .q2 = 1, .opcode = XQP_WR_SEND, .len = 16,
	  .how = FT_TO_GROUP },
	{ FT_POLL_CQ, .c = 0, .n = 1 },
	{ FT_POLL_CQ, .c = 1, .n = 1 },
	{ FT_DETACH_MCAST, .q = 0 },
	{ FT_DETACH_MCAST, .q = 1 },
	{ FT_DESTROY_AH, .n = 2 },
	FT_PAIR(XQP_QPT_UC, 2, 3),
	{ FT_POST_RECV, .d = B, .q = 3 },
	{ FT_POST_SEND, .d = A, .q = 2, .opcode = XQP_WR_RDMA_WRITE_WITH_IMM, .len = 32 },
	{ FT_POLL_CQ, .c = 0, .n = 1 },
	{ FT_POLL_CQ, .c = 1, .n = 1 },
	{ FT_POST_LIST, .d = A, .q = 2, .k = -1 },
	{ FT_POLL_CQ, .c = 0, .n = 8 },
	{ FT_POLL_CQ, .c = 1, .n = 1 },
	{ FT_DESTROY_QP, .q = 3 },
	{ FT_DESTROY_QP, .q = 2 },
	{ FT_DESTROY_QP, .q = 1 },
	{ FT_DESTROY_QP, .q = 0 },
	{ FT_DESTROY_AH },
	FT_TEARDOWN,
};

/*
 * What ib_core's MAD layer does on a linked device (drivers/ibdev/kverbs.c):
 * the GSI QP (QP1) of A and of B, buffers through each PD's DMA MR, an AH
 * made without sleeping, a SEND from QP1 to QP1 with the GSI Q_Key.
 */
static const struct ft_step ft_gsi_steps[] = {
	{ FT_ALLOC_PD, .d = A },
	{ FT_ALLOC_PD, .d = B },
	{ FT_REG_MR, .d = A, .n = 1 },
	{ FT_REG_MR, .d = B, .n = 1 },
	{ FT_CREATE_CQ, .d = A, .c = 0 },
	{ FT_CREATE_CQ, .d = B, .c = 1 },
	{ FT_CREATE_AH, .d = A, .n = 1 },
	FT_PAIR(XQP_QPT_GSI, 0, 1),
	{ FT_POST_RECV, .d = B, .q = 1 },
	{ FT_POST_SEND, .d = A, .q = 0, .q2 = 1, .opcode = XQP_WR_SEND, .len = 16 },
	{ FT_POLL_CQ, .c = 0, .n = 1 },
	{ FT_POLL_CQ, .c = 1, .n = 1 },
	{ FT_DESTROY_QP, .q = 1 },
	{ FT_DESTROY_QP, .q = 0 },
	{ FT_DESTROY_AH },
	FT_TEARDOWN,
};

/*
 * Memory windows between A (QP 0, CQ 0) and B (QP 1, CQ 1): a type 2
 * window of B bound by QP 1 to 64 bytes of B's MR, A's RDMA WRITE through
 * its rkey, A's SEND_WITH_INV that frees it at B (the receive says so),
 * bound again and freed by B's LOCAL_INV; a type 1 window made and freed.
 */
static const struct ft_step ft_mw_steps[] = {
	FT_NODES,
	FT_PAIR(XQP_QPT_RC, 0, 1),
	{ FT_ALLOC_MW, .d = B, .n = XQP_MW_TYPE_2 },
	{ FT_POST_SEND, .d = B, .q = 1, .opcode = XQP_WR_BIND_MW },
	{ FT_POLL_CQ, .c = 1, .n = 1 },
	{ FT_POST_SEND, .d = A, .q = 0, .opcode = XQP_WR_RDMA_WRITE, .how = FT_VIA_MW },
	{ FT_POLL_CQ, .c = 0, .n = 1 },
	{ FT_POST_RECV, .d = B, .q = 1 },
	{ FT_POST_SEND, .d = A, .q = 0, .opcode = XQP_WR_SEND_WITH_INV },
	{ FT_POLL_CQ, .c = 0, .n = 1 },
	{ FT_POLL_CQ, .c = 1, .n = 1 },
	{ FT_POST_SEND, .d = B, .q = 1, .opcode = XQP_WR_BIND_MW },
	{ FT_POST_SEND, .d = B, .q = 1, .opcode = XQP_WR_LOCAL_INV },
	{ FT_POLL_CQ, .c = 1, .n = 2 },
	{ FT_DEALLOC_MW },
	{ FT_ALLOC_MW, .d = A, .n = XQP_MW_TYPE_1 },
	{ FT_DEALLOC_MW },
	{ FT_DESTROY_QP, .q = 1 },
	{ FT_DESTROY_QP, .q = 0 },
	FT_TEARDOWN,
};

/*
 * What runs on the work queue, between A (QP 0, CQ 0 of 3 entries) and B
 * (QP 1, CQ 1), an RC pair that retries once; each FT_WAIT post after a
 * req_notify_cq of CQ 0. Then A's QP 2 toward B's QP 3, which stays in
 * INIT: nobody answers.
 */
static const struct ft_step ft_deferred_steps[] = {
	{ FT_ALLOC_PD, .d = A },
	{ FT_ALLOC_PD, .d = B },
	{ FT_REG_MR, .d = A },
	{ FT_REG_MR, .d = B },
	{ FT_CREATE_CQ, .d = A, .c = 0, .n = 3 },
	{ FT_CREATE_CQ, .d = B, .c = 1 },
	FT_PAIR_RETRY(XQP_QPT_RC, 0, 1, 1),
	/* a CQ overrun: four completions for three entries, one CQ_ERR */
	{ FT_POST_SEND, .d = A, .q = 0, .opcode = XQP_WR_RDMA_WRITE },
	{ FT_POST_SEND, .d = A, .q = 0, .opcode = XQP_WR_RDMA_WRITE },
	{ FT_POST_SEND, .d = A, .q = 0, .opcode = XQP_WR_RDMA_WRITE },
	{ FT_POST_SEND, .d = A, .q = 0, .opcode = XQP_WR_RDMA_WRITE },
	{ FT_POLL_CQ, .c = 0, .n = 3, .k = 1 },
	/* posted with IRQs off: executed on the work queue */
	{ FT_POST_RECV, .d = B, .q = 1 },
	{ FT_NOTIFY_CQ, .c = 0 },
	{ FT_POST_SEND, .d = A, .q = 0, .opcode = XQP_WR_SEND, .how = FT_IRQS_OFF | FT_WAIT },
	{ FT_NOTIFY_CQ, .c = 0 },
	{ FT_POST_SEND, .d = A, .q = 0, .opcode = XQP_WR_RDMA_READ, .how = FT_IRQS_OFF | FT_WAIT },
	{ FT_NOTIFY_CQ, .c = 0 },
	{ FT_POST_SEND, .d = A, .q = 0, .opcode = XQP_WR_SEND, .how = FT_IRQS_OFF | FT_WAIT },
	{ FT_POLL_CQ, .c = 0, .n = 3, .k = 1 },
	{ FT_POLL_CQ, .c = 1, .n = 2 },
	/* no receive left: an RNR NAK, retried once after B's timer; QP 0 to ERR */
	{ FT_NOTIFY_CQ, .c = 0 },
	{ FT_POST_SEND, .d = A, .q = 0, .opcode = XQP_WR_SEND, .how = FT_WAIT },
	{ FT_POLL_CQ, .c = 0, .n = 1, .st = XQP_WC_RNR_RETRY_EXC_ERR, .k = 1 },
	/* a post to the QP in ERR is flushed */
	{ FT_NOTIFY_CQ, .c = 0 },
	{ FT_POST_SEND, .d = A, .q = 0, .opcode = XQP_WR_SEND, .how = FT_IRQS_OFF | FT_WAIT },
	{ FT_POLL_CQ, .c = 0, .n = 1, .st = XQP_WC_WR_FLUSH_ERR, .k = 1 },
	/* nobody answers: retransmitted once after the ACK timeout */
	{ FT_CREATE_QP, .d = A, .c = 0, .q = 2, .type = XQP_QPT_RC },
	{ FT_CREATE_QP, .d = B, .c = 1, .q = 3, .type = XQP_QPT_RC },
	{ FT_TO_INIT, .q = 2 },
	{ FT_TO_INIT, .q = 3 },
	{ FT_TO_RTR, .d = A, .q = 2, .q2 = 3 },
	{ FT_TO_RTS, .q = 2, .k = 1 },
	{ FT_NOTIFY_CQ, .c = 0 },
	{ FT_POST_SEND, .d = A, .q = 2, .opcode = XQP_WR_RDMA_WRITE, .how = FT_WAIT },
	{ FT_POLL_CQ, .c = 0, .n = 1, .st = XQP_WC_RETRY_EXC_ERR, .k = 1 },
	/* retransmitted for ever: destroyed while it waits for the ACK timeout */
	{ FT_DESTROY_QP, .q = 2 },
	{ FT_CREATE_QP, .d = A, .c = 0, .q = 2, .type = XQP_QPT_RC },
	{ FT_TO_INIT, .q = 2 },
	{ FT_TO_RTR, .d = A, .q = 2, .q2 = 3 },
	{ FT_TO_RTS, .q = 2, .k = -1 },
	{ FT_POST_SEND, .d = A, .q = 2, .opcode = XQP_WR_RDMA_WRITE },
	{ FT_DESTROY_QP, .q = 2 },
	{ FT_POLL_CQ, .c = 0, .n = 0, .k = 1 },
	{ FT_DESTROY_QP, .q = 3 },
	{ FT_DESTROY_QP, .q = 1 },
	{ FT_DESTROY_QP, .q = 0 },
	FT_TEARDOWN,
};

#undef FT_TEARDOWN
#undef FT_NODES
#undef FT_PAIR
#undef FT_PAIR_RETRY
#undef A
#undef B

/* A traffic program named NAME over the step table ft_NAME_steps. */
#define FT_PROG(NAME)							\
	static const struct ft_prog ft_##NAME = { ft_##NAME##_steps };	\
	static const struct fs_prog fs_traffic_##NAME = {		\
		.name = "traffic_" #NAME,				\
		.ops = &ft_ops,						\
		.arg = &ft_##NAME,					\
		.nsteps = ARRAY_SIZE(ft_##NAME##_steps),		\
		.obs_size = sizeof(struct ft_obs),			\
		.family = FS_FAM_TRAFFIC,				\
	}

FT_PROG(rc);
FT_PROG(xrc);
FT_PROG(ud_uc);
FT_PROG(deferred);
FT_PROG(gsi);
FT_PROG(mw);

const struct fs_prog *const fs_traffic_progs[] = {
	&fs_traffic_rc, &fs_traffic_xrc, &fs_traffic_ud_uc, &fs_traffic_deferred,
	&fs_traffic_gsi, &fs_traffic_mw,
};
const unsigned int fs_traffic_nprogs = ARRAY_SIZE(fs_traffic_progs);
