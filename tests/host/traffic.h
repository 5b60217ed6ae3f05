/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers for data-path tests: two soft devices on the host subnet, a
 * "node" per device (PD, CQs, a registered buffer), QPs connected across
 * them, and polling with a deadline (RNR retries run on the seam's work
 * threads).
 */
#ifndef XQP_TEST_TRAFFIC_H
#define XQP_TEST_TRAFFIC_H

#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "fixture.h"

struct Events {
	std::atomic<int> count{0};
	std::atomic<int> last{-1};
	/* how the handler is registered: by default called by the raiser */
	u32 event_flags = XQP_EVENT_INLINE;
	/* a handler that destroys this QP at its first event, and where it ran */
	xqp_qp *destroy = nullptr;
	std::atomic<int> destroy_rc{1};
	std::thread::id ran_on;
	static void on(xqp_event *ev, void *ctx)
	{
		auto *e = static_cast<Events *>(ctx);
		e->ran_on = std::this_thread::get_id();
		if (e->destroy) {
			xqp_qp *q = e->destroy;
			e->destroy = nullptr;
			e->destroy_rc = xqp_destroy_qp(q);
		}
		e->last.store(ev->event);
		e->count++;
	}
};

/* A CQ's context: its completion handler calls and its async events. */
struct CqCtx {
	std::atomic<int> calls{0};
	std::atomic<int> wakes{0};	/* poll_wake calls */
	Events events;
	static void comp(xqp_cq *, void *ctx) { static_cast<CqCtx *>(ctx)->calls++; }
	static void wake(xqp_cq *, void *ctx) { static_cast<CqCtx *>(ctx)->wakes++; }
	static void event(xqp_event *ev, void *ctx)
	{
		Events::on(ev, &static_cast<CqCtx *>(ctx)->events);
	}
};

/* One device's side: a PD, send and receive CQs, a registered buffer. */
struct Node {
	xqp_device *dev = nullptr;
	xqp_pd *pd = nullptr;
	xqp_cq *scq = nullptr;
	xqp_cq *rcq = nullptr;
	std::vector<char> buf;
	xqp_mr *mr = nullptr;
	CqCtx scq_ctx, rcq_ctx;

	void init(xqp_device *d, size_t len = 65536, int access = 0xf, int cqe = 64)
	{
		dev = d;
		pd = xqp_alloc_pd(d);
		ASSERT_FALSE(xqp_is_err(pd));
		xqp_cq_init_attr ca = {};
		ca.cqe = cqe;
		ca.comp_handler = CqCtx::comp;
		ca.poll_wake = CqCtx::wake;
		ca.event_handler = CqCtx::event;
		ca.event_flags = XQP_EVENT_INLINE;
		ca.cq_context = &scq_ctx;
		scq = xqp_create_cq_attr(d, &ca);
		ASSERT_FALSE(xqp_is_err(scq));
		ca.cq_context = &rcq_ctx;
		rcq = xqp_create_cq_attr(d, &ca);
		ASSERT_FALSE(xqp_is_err(rcq));
		buf.assign(len, 0);
		mr = xqp_reg_kernel_mr(pd, buf.data(), len, access);
		ASSERT_FALSE(xqp_is_err(mr)) << xqp_ptr_err(mr);
	}
	void fini()
	{
		if (mr) {
			EXPECT_EQ(xqp_dereg_mr(mr), 0);
		}
		if (scq) {
			EXPECT_EQ(xqp_destroy_cq(scq), 0);
		}
		if (rcq) {
			EXPECT_EQ(xqp_destroy_cq(rcq), 0);
		}
		if (pd) {
			EXPECT_EQ(xqp_dealloc_pd(pd), 0);
		}
		mr = nullptr;
		scq = rcq = nullptr;
		pd = nullptr;
	}
	xqp_u64 addr(size_t off = 0) { return reinterpret_cast<xqp_uintptr_t>(buf.data() + off); }
	xqp_sge sge(size_t off, u32 len) { return xqp_sge{addr(off), len, xqp_mr_lkey(mr)}; }
};

/* Polls @cq until @n completions arrived or 5 s passed. */
inline std::vector<xqp_wc> poll_n(xqp_cq *cq, int n, int ms = 5000)
{
	std::vector<xqp_wc> out;
	auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
	while (static_cast<int>(out.size()) < n && std::chrono::steady_clock::now() < end) {
		xqp_wc wc[8];
		int got = xqp_poll_cq(cq, 8, wc);
		if (got < 0)
			break;
		out.insert(out.end(), wc, wc + got);
		if (!got)
			std::this_thread::sleep_for(std::chrono::microseconds(100));
	}
	return out;
}

inline int modify(xqp_qp *qp, xqp_qp_attr &a, int mask)
{
	return xqp_modify_qp(qp, &a, mask);
}

/*
 * RESET -> INIT -> RTR -> RTS (XRC_TGT and receive-only sides stop at RTR),
 * to @dlid, or to @dgid when given.
 */
inline void connect_qp(xqp_qp *qp, xqp_qp_type type, xqp_u16 dlid, u32 dqpn,
		       bool rts = true, u32 access = 0xe, xqp_u8 rnr_retry = 7,
		       xqp_u8 min_rnr = 1, u32 qkey = 0x11111111, xqp_u8 timeout = 14,
		       xqp_u8 retry_cnt = 7, const xqp_u8 *dgid = nullptr, xqp_u8 rd_atomic = 1)
{
	xqp_qp_attr a = {};
	a.qp_state = XQP_QPS_INIT;
	a.port_num = 1;
	a.pkey_index = 0;
	int mask = XQP_QP_STATE | XQP_QP_PKEY_INDEX | XQP_QP_PORT;
	if (type == XQP_QPT_UD) {
		a.qkey = qkey;
		mask |= XQP_QP_QKEY;
	} else {
		a.qp_access_flags = access;
		mask |= XQP_QP_ACCESS_FLAGS;
	}
	ASSERT_EQ(modify(qp, a, mask), 0);
	a = {};
	a.qp_state = XQP_QPS_RTR;
	mask = XQP_QP_STATE;
	if (type != XQP_QPT_UD) {
		a.path_mtu = XQP_MTU_4096;
		a.dest_qp_num = dqpn;
		a.rq_psn = 0;
		a.ah_attr.dlid = dlid;
		a.ah_attr.port_num = 1;
		if (dgid) {	/* by GID, as to a RoCE peer */
			a.ah_attr.is_global = 1;
			std::memcpy(a.ah_attr.dgid, dgid, 16);
		}
		mask |= XQP_QP_AV | XQP_QP_PATH_MTU | XQP_QP_DEST_QPN | XQP_QP_RQ_PSN;
		if (type != XQP_QPT_UC && type != XQP_QPT_XRC_INI) {
			a.max_dest_rd_atomic = rd_atomic;
			a.min_rnr_timer = min_rnr;
			mask |= XQP_QP_MAX_DEST_RD_ATOMIC | XQP_QP_MIN_RNR_TIMER;
		}
	}
	ASSERT_EQ(modify(qp, a, mask), 0);
	if (!rts)
		return;
	a = {};
	a.qp_state = XQP_QPS_RTS;
	a.sq_psn = 0;
	mask = XQP_QP_STATE | XQP_QP_SQ_PSN;
	if (type == XQP_QPT_RC || type == XQP_QPT_XRC_INI) {
		a.timeout = timeout;
		a.retry_cnt = retry_cnt;
		a.rnr_retry = rnr_retry;
		a.max_rd_atomic = rd_atomic;
		mask |= XQP_QP_TIMEOUT | XQP_QP_RETRY_CNT | XQP_QP_RNR_RETRY |
			XQP_QP_MAX_QP_RD_ATOMIC;
	}
	ASSERT_EQ(modify(qp, a, mask), 0);
}

/* One receive WR of @n SGEs at @sg. */
inline int post_recv(xqp_qp *qp, xqp_u64 id, xqp_sge *sg, int n)
{
	xqp_recv_wr wr = {};
	wr.wr_id = id;
	wr.sg_list = sg;
	wr.num_sge = n;
	const xqp_recv_wr *bad = nullptr;
	return xqp_post_recv(qp, &wr, &bad);
}

inline int post_recv(xqp_qp *qp, xqp_u64 id, xqp_sge s)
{
	return post_recv(qp, id, &s, 1);
}

inline int post_srq_recv(xqp_srq *srq, xqp_u64 id, xqp_sge s)
{
	xqp_recv_wr wr = {};
	wr.wr_id = id;
	wr.sg_list = &s;
	wr.num_sge = 1;
	const xqp_recv_wr *bad = nullptr;
	return xqp_post_srq_recv(srq, &wr, &bad);
}

/* A signaled SEND of @s, or to @ah's UD QP @qpn with @qkey when @ah is given. */
inline xqp_send_wr send_wr(xqp_sge *s, xqp_ah *ah = nullptr, u32 qpn = 0,
			   u32 qkey = 0x11111111)
{
	xqp_send_wr w = {};
	w.opcode = XQP_WR_SEND;
	w.sg_list = s;
	w.num_sge = 1;
	w.send_flags = XQP_SEND_SIGNALED;
	w.wr.ud.ah = ah;
	w.wr.ud.remote_qpn = qpn;
	w.wr.ud.remote_qkey = qkey;
	return w;
}

inline int post_send(xqp_qp *qp, xqp_send_wr &wr)
{
	const xqp_send_wr *bad = nullptr;
	return xqp_post_send(qp, &wr, &bad);
}

/* Two soft devices a and b, a node on each; QPs and SRQs made here go at TearDown. */
class Traffic : public Core {
protected:
	void SetUp() override
	{
		Core::SetUp();
		soft2_ = xqp_soft_create("xqp_soft_test2", nullptr);
		ASSERT_FALSE(xqp_is_err(soft2_));
		a.init(dev());
		b.init(xqp_soft_device(soft2_));
	}
	void TearDown() override
	{
		for (xqp_qp *qp : qps_)
			EXPECT_EQ(xqp_destroy_qp(qp), 0);
		for (xqp_srq *s : srqs_)
			EXPECT_EQ(xqp_destroy_srq(s), 0);
		a.fini();
		b.fini();
		for (xqp_xrcd *x : xrcds_)
			EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
		xqp_work_flush_all();
		xqp_soft_destroy(soft2_);
		Core::TearDown();
	}
	xqp_u16 lid(Node &n) { return xqp_soft_lid(&n == &a ? soft_ : soft2_); }

	xqp_qp *qp(Node &n, xqp_qp_type type, xqp_srq *srq = nullptr, u32 wr = 16,
		   u32 sge = 4, u32 inl = 64, xqp_sig_type sig = XQP_SIGNAL_REQ_WR,
		   Events *ev = nullptr)
	{
		xqp_qp_init_attr init = {};
		init.qp_type = type;
		init.send_cq = n.scq;
		init.recv_cq = n.rcq;
		init.srq = srq;
		init.cap.max_send_wr = wr;
		init.cap.max_recv_wr = srq ? 0 : wr;
		init.cap.max_send_sge = sge;
		init.cap.max_recv_sge = srq ? 0 : sge;
		init.cap.max_inline_data = inl;
		init.sq_sig_type = sig;
		init.event_handler = ev ? Events::on : nullptr;
		init.event_flags = ev ? ev->event_flags : 0;
		init.qp_context = ev;
		xqp_qp *q = xqp_create_qp_user(n.dev, n.pd, &init, nullptr, nullptr, "test");
		EXPECT_FALSE(xqp_is_err(q)) << xqp_ptr_err(q);
		if (!xqp_is_err(q))
			qps_.push_back(q);
		return q;
	}
	/* An RC (or UC) pair a -> b, both RTS. */
	void pair(xqp_qp_type type, xqp_qp **qa, xqp_qp **qb, xqp_u8 rnr_retry = 7,
		  u32 access = 0xe, Events *evb = nullptr)
	{
		*qa = qp(a, type);
		*qb = qp(b, type, nullptr, 16, 4, 64, XQP_SIGNAL_REQ_WR, evb);
		connect_qp(*qa, type, lid(b), xqp_qp_num(*qb), true, 0xe, rnr_retry);
		connect_qp(*qb, type, lid(a), xqp_qp_num(*qa), true, access, rnr_retry);
	}
	/* An SRQ on b's PD (@si's other fields as given), destroyed at TearDown. */
	xqp_srq *make_srq(u32 max_wr, u32 max_sge, xqp_srq_init_attr si = {})
	{
		si.attr.max_wr = max_wr;
		si.attr.max_sge = max_sge;
		xqp_srq *s = xqp_create_srq(b.pd, &si);
		EXPECT_FALSE(xqp_is_err(s)) << xqp_ptr_err(s);
		if (!xqp_is_err(s))
			srqs_.push_back(s);
		return s;
	}
	/* A CQ of a's (16 entries) whose completion handler is @comp(@ctx). */
	xqp_cq *cq_calling(xqp_comp_handler_t comp, void *ctx)
	{
		xqp_cq_init_attr ca = {};
		ca.cqe = 16;
		ca.comp_handler = comp;
		ca.cq_context = ctx;
		xqp_cq *cq = xqp_create_cq_attr(a.dev, &ca);
		EXPECT_FALSE(xqp_is_err(cq));
		return xqp_is_err(cq) ? nullptr : cq;
	}
	/*
	 * An RC QP of a's on CQs @scq and @rcq (4 WRs, 1 SGE), connected to a new
	 * QP of b's (*@peer); the caller destroys the first.
	 */
	xqp_qp *rc_on_cqs(xqp_cq *scq, xqp_cq *rcq, xqp_sig_type sig, xqp_qp **peer)
	{
		xqp_qp_init_attr init = {};
		init.qp_type = XQP_QPT_RC;
		init.send_cq = scq;
		init.recv_cq = rcq;
		init.cap.max_send_wr = init.cap.max_recv_wr = 4;
		init.cap.max_send_sge = init.cap.max_recv_sge = 1;
		init.sq_sig_type = sig;
		xqp_qp *q = xqp_create_qp_user(a.dev, a.pd, &init, nullptr, nullptr, "test");
		EXPECT_FALSE(xqp_is_err(q));
		if (xqp_is_err(q))
			return nullptr;
		*peer = qp(b, XQP_QPT_RC);
		connect_qp(q, XQP_QPT_RC, lid(b), xqp_qp_num(*peer));
		connect_qp(*peer, XQP_QPT_RC, lid(a), xqp_qp_num(q));
		return q;
	}
	void forget(xqp_qp *q)
	{
		for (auto it = qps_.begin(); it != qps_.end(); ++it)
			if (*it == q) {
				qps_.erase(it);
				return;
			}
	}
	static xqp_send_wr wr(xqp_wr_opcode op, xqp_sge *s, int n, xqp_u64 id = 1,
			      int flags = XQP_SEND_SIGNALED)
	{
		xqp_send_wr w = {};
		w.wr_id = id;
		w.opcode = op;
		w.sg_list = s;
		w.num_sge = n;
		w.send_flags = flags;
		return w;
	}
	void fill(Node &n, size_t off, size_t len, char base)
	{
		for (size_t i = 0; i < len; i++)
			n.buf[off + i] = static_cast<char>(base + i);
	}

	xqp_soft *soft2_ = nullptr;
	Node a, b;
	std::vector<xqp_qp *> qps_;
	std::vector<xqp_srq *> srqs_;
	std::vector<xqp_xrcd *> xrcds_;
};

#endif
