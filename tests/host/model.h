/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny, obviously correct model of the core's XRC sharing verbs, run
 * against the core on a soft device (host seam): every return code is
 * predicted by the model, and after every op the observable state (XRCD
 * usecnt, shares per QP, driver objects, event deliveries, QP state) must
 * match it; at the end everything is destroyed.
 *
 * Two users, two parameters:
 *   tests/host/test_model.cpp       Source: seeded random bytes; Report: gtest
 *   tests/fuzz/host/fuzz_core.cpp   Source: libFuzzer's bytes;   Report: abort
 *
 * Source: bool next(uint8_t op[3]) gives the next op (kind, x, y), false
 * when there is none. Report: void fail(const char *file, int line,
 * const char *expr, const std::string &trace) is told of the first failed
 * check, with the last ops; the run stops there.
 *
 * Besides create/open/close/destroy/modify/query and events, the ops make
 * allocations and driver ops fail: a failed verb must leave no trace.
 */
#ifndef XQP_TEST_MODEL_H
#define XQP_TEST_MODEL_H

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

extern "C" {
#include "xqp/driver.h"
#include "xqp/seam.h"
#include "soft/soft.h"
}
#include "seam_host.h"

namespace xqp_model {

struct Events {
	int calls = 0;
	xqp_qp *last = nullptr;
};

inline void on_event(xqp_event *ev, void *ctx)
{
	auto *e = static_cast<Events *>(ctx);
	e->calls++;
	e->last = ev->element.qp;
}

struct MXrcd {
	xqp_xrcd *x = nullptr;
	int reals = 0;		/* model usecnt */
};

struct MReal {
	xqp_u32 qpn;
	int xrcd;
	xqp_qp *real;
	bool exists;
	int shares;
	xqp_qp_state state;
};

struct MShare {
	xqp_qp *qp;
	int real;
	bool live;
	std::unique_ptr<Events> ev;	/* null: no handler */
	int expected;
};

/* A failed check: tell the reporter, stop this op (and the run). */
#define XQP_MODEL_CHECK(cond)                                                              \
	do {                                                                               \
		if (!(cond)) {                                                             \
			failed(__FILE__, __LINE__, #cond);                                 \
			return;                                                            \
		}                                                                          \
	} while (0)

template <typename Source, typename Report> class Run {
public:
	Run(xqp_soft *soft, Source &src, Report &rep) : soft_(soft), src_(src), rep_(rep) {}

	/*
	 * At most max_steps ops (fewer when the source ends), the state checked
	 * after each, then everything destroyed. False after a failed check.
	 */
	bool run(long max_steps)
	{
		uint8_t op[3];
		for (long i = 0; i < max_steps && src_.next(op); i++) {
			note(op);
			step(op[0], op[1], op[2]);
			if (failed_)
				return false;
			check();
			if (failed_)
				return false;
		}
		cleanup();
		return !failed_;
	}

private:
	static constexpr int kKinds = 11;
	static constexpr int kTrace = 16;

	xqp_soft *soft_;
	Source &src_;
	Report &rep_;
	bool failed_ = false;
	long steps_ = 0;
	uint8_t trace_[kTrace][3] = {};
	MXrcd xrcds_[2];
	std::vector<MReal> reals_;
	std::vector<MShare> shares_;

	xqp_device *dev() { return xqp_soft_device(soft_); }

	void note(const uint8_t op[3])
	{
		for (int k = 0; k < 3; k++)
			trace_[steps_ % kTrace][k] = op[k];
		steps_++;
	}

	void failed(const char *file, int line, const char *expr)
	{
		static const char *const names[kKinds] = {
			"alloc_xrcd", "dealloc_xrcd", "create", "open", "close", "destroy",
			"destroy_real", "event", "destroy-fail", "modify", "dealloc-fail"};
		std::string t = "step " + std::to_string(steps_ - 1) + ", last ops (kind x y):";
		for (long s = steps_ > kTrace ? steps_ - kTrace : 0; s < steps_; s++) {
			const uint8_t *op = trace_[s % kTrace];
			char buf[48];
			std::snprintf(buf, sizeof(buf), " %s(%u,%u)", names[op[0] % kKinds], op[1],
				      op[2]);
			t += buf;
		}
		failed_ = true;
		rep_.fail(file, line, expr, t);
	}

	template <typename P> int pick(int n, uint8_t b, P pred)
	{
		std::vector<int> c;
		for (int i = 0; i < n; i++)
			if (pred(i))
				c.push_back(i);
		return c.empty() ? -1 : c[b % c.size()];
	}
	/* y & 0x80: the (y & 7)-th next allocation fails (0: the first) */
	static void arm_alloc(uint8_t y) { xqp_host_fail_alloc_after(y & 0x80 ? (y & 7) : -1); }
	static void disarm_alloc() { xqp_host_fail_alloc_after(-1); }
	void real_gone(int r)
	{
		reals_[r].exists = false;
		xrcds_[reals_[r].xrcd].reals--;
	}
	void add_share(xqp_qp *qp, int r, Events *ev)
	{
		shares_.push_back(MShare{qp, r, true, std::unique_ptr<Events>(ev), 0});
		reals_[r].shares++;
	}

	void step(uint8_t kind, uint8_t x, uint8_t y);
	void check();
	void cleanup();
};

template <typename S, typename R> void Run<S, R>::step(uint8_t kind, uint8_t x, uint8_t y)
{
	switch (kind % kKinds) {
	case 0: { /* alloc XRCD, maybe failing */
		int s = x % 2;
		if (xrcds_[s].x)
			return;
		arm_alloc(y);
		xqp_xrcd *p = xqp_alloc_xrcd(dev());
		disarm_alloc();
		if (xqp_is_err(p)) {
			XQP_MODEL_CHECK(xqp_ptr_err(p) == -XQP_ENOMEM && (y & 0x80));
			return;
		}
		xrcds_[s].x = p;
		return;
	}
	case 1: { /* dealloc XRCD: only without QPs */
		int s = x % 2;
		if (!xrcds_[s].x)
			return;
		int ret = xqp_dealloc_xrcd(xrcds_[s].x);
		XQP_MODEL_CHECK(ret == (xrcds_[s].reals ? -XQP_EBUSY : 0));
		if (!ret)
			xrcds_[s].x = nullptr;
		return;
	}
	case 2: { /* create an XRC target QP, maybe failing */
		int s = x % 2;
		if (!xrcds_[s].x)
			return;
		Events *ev = y & 1 ? new Events : nullptr;
		xqp_qp_init_attr init = {};
		init.qp_type = XQP_QPT_XRC_TGT;
		init.xrcd = xrcds_[s].x;
		init.event_handler = ev ? on_event : nullptr;
		init.event_flags = XQP_EVENT_INLINE;
		init.qp_context = ev;
		arm_alloc(y);
		xqp_qp *h = xqp_create_qp_user(dev(), nullptr, &init, nullptr, nullptr, "model");
		disarm_alloc();
		if (xqp_is_err(h)) {
			delete ev;
			XQP_MODEL_CHECK(xqp_ptr_err(h) == -XQP_ENOMEM && (y & 0x80));
			return;
		}
		reals_.push_back(MReal{xqp_qp_num(h), s, xqp_qp_real(h), true, 0, XQP_QPS_RESET});
		xrcds_[s].reals++;
		add_share(h, static_cast<int>(reals_.size()) - 1, ev);
		return;
	}
	case 3: { /* open by number: one that exists, is gone, or is another XRCD's */
		int s = x % 2;
		if (!xrcds_[s].x || reals_.empty())
			return;
		/* a live QP unless x & 4 (then any made so far: most are gone) */
		int r = x & 4 ? -1 : pick(static_cast<int>(reals_.size()), y,
					  [&](int k) { return reals_[k].exists; });
		if (r < 0)
			r = y % reals_.size();
		Events *ev = x & 2 ? new Events : nullptr;
		xqp_qp_open_attr oa = {};
		oa.qp_num = (x & 0xf0) == 0xf0 ? reals_[r].qpn + 1000 : reals_[r].qpn;
		oa.qp_type = XQP_QPT_XRC_TGT;
		oa.event_handler = ev ? on_event : nullptr;
		oa.event_flags = XQP_EVENT_INLINE;
		oa.qp_context = ev;
		bool found = false;
		for (MReal &m : reals_)
			if (m.exists && m.xrcd == s && m.qpn == oa.qp_num)
				found = true;
		arm_alloc(y);
		xqp_qp *h = xqp_open_qp(xrcds_[s].x, &oa);
		disarm_alloc();
		if (xqp_is_err(h)) {
			delete ev;
			/* an allocation may fail before the lookup */
			XQP_MODEL_CHECK(xqp_ptr_err(h) == -XQP_ENOMEM
						? (y & 0x80) != 0
						: !found && xqp_ptr_err(h) == -XQP_EINVAL);
			return;
		}
		XQP_MODEL_CHECK(found);
		int real = -1;
		for (size_t k = 0; k < reals_.size(); k++)
			if (reals_[k].exists && reals_[k].real == xqp_qp_real(h))
				real = static_cast<int>(k);
		XQP_MODEL_CHECK(real >= 0 && reals_[real].xrcd == s &&
				reals_[real].qpn == oa.qp_num);
		add_share(h, real, ev);
		return;
	}
	case 4: /* close a share */
	case 5: { /* destroy a share: the last one destroys the QP */
		int i = pick(static_cast<int>(shares_.size()), x,
			     [&](int k) { return shares_[k].live; });
		if (i < 0)
			return;
		MShare &h = shares_[i];
		if (kind % kKinds == 4) {
			XQP_MODEL_CHECK(xqp_close_qp(h.qp) == 0);
			reals_[h.real].shares--;
		} else {
			XQP_MODEL_CHECK(xqp_destroy_qp(h.qp) == 0);
			if (--reals_[h.real].shares == 0)
				real_gone(h.real);
		}
		h.live = false;
		return;
	}
	case 6: { /* destroy the real QP itself: only without shares */
		int r = pick(static_cast<int>(reals_.size()), x,
			     [&](int k) { return reals_[k].exists; });
		if (r < 0)
			return;
		int ret = xqp_destroy_qp(reals_[r].real);
		XQP_MODEL_CHECK(ret == (reals_[r].shares ? -XQP_EBUSY : 0));
		if (!ret)
			real_gone(r);
		return;
	}
	case 7: { /* an event reaches every share with a handler */
		int r = pick(static_cast<int>(reals_.size()), x,
			     [&](int k) { return reals_[k].exists; });
		if (r < 0)
			return;
		XQP_MODEL_CHECK(xqp_soft_raise_qp_event(soft_, reals_[r].qpn,
						      XQP_EVENT_COMM_EST) == 0);
		for (MShare &h : shares_)
			if (h.live && h.real == r && h.ev)
				h.expected++;
		return;
	}
	case 8: { /* the driver refuses the last destroy: nothing changes */
		int i = pick(static_cast<int>(shares_.size()), x, [&](int k) {
			return shares_[k].live && reals_[shares_[k].real].shares == 1;
		});
		if (i < 0)
			return;
		int err = y & 1 ? -XQP_EIO : -XQP_EBUSY;
		xqp_soft_inject(soft_, XQP_SOFT_OP_DESTROY_QP, err, 0);
		int ret = xqp_destroy_qp(shares_[i].qp);
		xqp_soft_inject(soft_, XQP_SOFT_OP_DESTROY_QP, 0, 0);
		XQP_MODEL_CHECK(ret == err);
		return;
	}
	case 9: { /* modify through one share, query through another */
		int i = pick(static_cast<int>(shares_.size()), x,
			     [&](int k) { return shares_[k].live; });
		if (i < 0)
			return;
		MReal &r = reals_[shares_[i].real];
		static const xqp_qp_state targets[] = {XQP_QPS_INIT, XQP_QPS_ERR, XQP_QPS_RESET};
		xqp_qp_state next = targets[y % 3];
		xqp_qp_attr attr = {};
		attr.qp_state = next;
		attr.port_num = 1;
		int mask = XQP_QP_STATE;
		if (next == XQP_QPS_INIT)
			mask |= XQP_QP_PKEY_INDEX | XQP_QP_PORT | XQP_QP_ACCESS_FLAGS;
		/* the IB table, for these three targets: anything -> RESET;
		 * anything but RESET -> ERR; RESET or INIT -> INIT */
		bool valid = next == XQP_QPS_RESET ||
			     (next == XQP_QPS_ERR && r.state != XQP_QPS_RESET) ||
			     (next == XQP_QPS_INIT &&
			      (r.state == XQP_QPS_RESET || r.state == XQP_QPS_INIT));
		XQP_MODEL_CHECK(xqp_modify_qp(shares_[i].qp, &attr, mask) ==
				(valid ? 0 : -XQP_EINVAL));
		if (valid)
			r.state = next;
		int j = pick(static_cast<int>(shares_.size()), y, [&](int k) {
			return shares_[k].live && shares_[k].real == shares_[i].real;
		});
		xqp_qp_attr got = {};
		XQP_MODEL_CHECK(xqp_query_qp(shares_[j].qp, &got, XQP_QP_STATE, nullptr) == 0);
		XQP_MODEL_CHECK(got.qp_state == r.state);
		return;
	}
	case 10: { /* dealloc of an unused XRCD the driver refuses */
		int s = x % 2;
		if (!xrcds_[s].x || xrcds_[s].reals)
			return;
		xqp_soft_inject(soft_, XQP_SOFT_OP_DEALLOC_XRCD, -XQP_EIO, 0);
		int ret = xqp_dealloc_xrcd(xrcds_[s].x);
		xqp_soft_inject(soft_, XQP_SOFT_OP_DEALLOC_XRCD, 0, 0);
		XQP_MODEL_CHECK(ret == -XQP_EIO || ret == 0);
		if (!ret)
			xrcds_[s].x = nullptr;
		return;
	}
	}
}

template <typename S, typename R> void Run<S, R>::check()
{
	int nx = 0, nr = 0;
	for (MXrcd &x : xrcds_) {
		if (!x.x)
			continue;
		nx++;
		XQP_MODEL_CHECK(xqp_xrcd_usecnt(x.x) == static_cast<xqp_u32>(x.reals));
	}
	for (MReal &r : reals_) {
		if (!r.exists)
			continue;
		nr++;
		XQP_MODEL_CHECK(xqp_qp_share_count(r.real) == static_cast<xqp_u32>(r.shares));
	}
	for (MShare &h : shares_) {
		if (!h.ev)
			continue;
		XQP_MODEL_CHECK(h.ev->calls == h.expected);
		if (h.ev->calls)
			XQP_MODEL_CHECK(h.ev->last == h.qp);
	}
	struct xqp_soft_counts c = {};
	xqp_soft_counts(soft_, &c);
	XQP_MODEL_CHECK(c.xrcd == static_cast<xqp_u32>(nx));
	XQP_MODEL_CHECK(c.qp == static_cast<xqp_u32>(nr));
}

template <typename S, typename R> void Run<S, R>::cleanup()
{
	for (MShare &h : shares_) {
		if (!h.live)
			continue;
		XQP_MODEL_CHECK(xqp_destroy_qp(h.qp) == 0);
		h.live = false;
		if (--reals_[h.real].shares == 0)
			real_gone(h.real);
	}
	/* what is left are orphans: closed by their last user, never destroyed */
	for (size_t r = 0; r < reals_.size(); r++) {
		if (!reals_[r].exists)
			continue;
		XQP_MODEL_CHECK(xqp_destroy_qp(reals_[r].real) == 0);
		real_gone(static_cast<int>(r));
	}
	for (MXrcd &x : xrcds_) {
		if (!x.x)
			continue;
		XQP_MODEL_CHECK(xqp_dealloc_xrcd(x.x) == 0);
		x.x = nullptr;
	}
	struct xqp_soft_counts c = {};
	xqp_soft_counts(soft_, &c);
	XQP_MODEL_CHECK(c.pd + c.cq + c.xrcd + c.srq + c.qp + c.mr == 0);
}

#undef XQP_MODEL_CHECK

} // namespace xqp_model

#endif
