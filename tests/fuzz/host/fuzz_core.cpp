// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target over the core's XRC sharing verbs on a soft device (host
 * seam), checked against a model of the spec, the same one as
 * tests/host/test_model.cpp's but driven by the fuzzer's bytes: each 3 bytes
 * are one op (kind, x, y). Besides that test's ops it makes allocations and
 * driver ops fail (a failed verb must leave no trace), and raises events.
 * After every op the observable state (XRCD usecnt, handles per QP, driver
 * objects, event deliveries, QP state) must match the model; at the end
 * everything is destroyed, and no allocation or core warning may remain.
 * A mismatch aborts (libFuzzer saves the input).
 *
 *   build/fuzz/xqp-fuzz-core -max_total_time=60 -seed=1 CORPUS_DIR
 */
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

extern "C" {
#include "xqp/driver.h"
#include "xqp/seam.h"
#include "soft/soft.h"
}
#include "seam_host.h"

namespace {

#define CHECK(cond)                                                                        \
	do {                                                                               \
		if (!(cond)) {                                                             \
			std::fprintf(stderr, "fuzz_core: %s:%d: check failed: %s\n", __FILE__, \
				     __LINE__, #cond);                                     \
			std::abort();                                                      \
		}                                                                          \
	} while (0)

struct Events {
	int calls = 0;
	xqp_qp *last = nullptr;
};

void on_event(xqp_event *ev, void *ctx)
{
	auto *e = static_cast<Events *>(ctx);
	e->calls++;
	e->last = ev->element.qp;
}

struct MXrcd {
	xqp_xrcd *x = nullptr;
	int reals = 0;
};

struct MReal {
	xqp_u32 qpn;
	int xrcd;
	xqp_qp *real;
	bool exists;
	int handles;
	xqp_qp_state state;
};

struct MHandle {
	xqp_qp *qp;
	int real;
	bool live;
	Events *ev;	/* owned; null: no handler */
	int expected;
};

class Run {
public:
	Run(const uint8_t *d, size_t n) : data_(d), size_(n) {}
	~Run()
	{
		for (MHandle &h : handles_)
			delete h.ev;
	}
	void go();

private:
	const uint8_t *data_;
	size_t size_, pos_ = 0;
	xqp_soft *soft_ = nullptr;
	MXrcd xrcds_[2];
	std::vector<MReal> reals_;
	std::vector<MHandle> handles_;

	xqp_device *dev() { return xqp_soft_device(soft_); }
	template <typename P> int pick(int n, uint8_t b, P pred)
	{
		std::vector<int> c;
		for (int i = 0; i < n; i++)
			if (pred(i))
				c.push_back(i);
		return c.empty() ? -1 : c[b % c.size()];
	}
	/* the next allocation(s) may fail: 0 = none, else the (y-1)-th fails */
	void arm_alloc(uint8_t y) { xqp_host_fail_alloc_after(y & 0x80 ? (y & 7) : -1); }
	void disarm_alloc() { xqp_host_fail_alloc_after(-1); }
	void real_gone(int r)
	{
		reals_[r].exists = false;
		xrcds_[reals_[r].xrcd].reals--;
	}
	void add_handle(xqp_qp *qp, int r, Events *ev)
	{
		handles_.push_back(MHandle{qp, r, true, ev, 0});
		reals_[r].handles++;
	}
	void step(uint8_t kind, uint8_t x, uint8_t y);
	void check();
	void cleanup();
};

void Run::step(uint8_t kind, uint8_t x, uint8_t y)
{
	switch (kind % 11) {
	case 0: { /* alloc XRCD, maybe failing */
		int s = x % 2;
		if (xrcds_[s].x)
			return;
		arm_alloc(y);
		xqp_xrcd *p = xqp_alloc_xrcd(dev());
		disarm_alloc();
		if (xqp_is_err(p)) {
			CHECK(xqp_ptr_err(p) == -XQP_ENOMEM && (y & 0x80));
			return;
		}
		xrcds_[s].x = p;
		return;
	}
	case 1: { /* dealloc XRCD */
		int s = x % 2;
		if (!xrcds_[s].x)
			return;
		int ret = xqp_dealloc_xrcd(xrcds_[s].x);
		CHECK(ret == (xrcds_[s].reals ? -XQP_EBUSY : 0));
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
		init.qp_context = ev;
		arm_alloc(y);
		xqp_qp *h = xqp_create_qp_user(dev(), nullptr, &init, nullptr, nullptr, "fuzz");
		disarm_alloc();
		if (xqp_is_err(h)) {
			delete ev;
			CHECK(xqp_ptr_err(h) == -XQP_ENOMEM && (y & 0x80));
			return;
		}
		reals_.push_back(MReal{xqp_qp_num(h), s, xqp_qp_real(h), true, 0, XQP_QPS_RESET});
		xrcds_[s].reals++;
		add_handle(h, static_cast<int>(reals_.size()) - 1, ev);
		return;
	}
	case 3: { /* open by number: one that exists, is gone, or is another XRCD's */
		int s = x % 2;
		if (!xrcds_[s].x || reals_.empty())
			return;
		int r = y % reals_.size();
		bool found;
		Events *ev = x & 2 ? new Events : nullptr;
		xqp_qp_open_attr oa = {};
		oa.qp_num = (x & 0xf0) == 0xf0 ? reals_[r].qpn + 1000 : reals_[r].qpn;
		oa.qp_type = XQP_QPT_XRC_TGT;
		oa.event_handler = ev ? on_event : nullptr;
		oa.qp_context = ev;
		found = false;
		for (MReal &m : reals_)
			if (m.exists && m.xrcd == s && m.qpn == oa.qp_num)
				found = true;
		arm_alloc(y);
		xqp_qp *h = xqp_open_qp(xrcds_[s].x, &oa);
		disarm_alloc();
		if (xqp_is_err(h)) {
			delete ev;
			/* an allocation may fail before the lookup */
			CHECK(xqp_ptr_err(h) == -XQP_ENOMEM ? (y & 0x80) != 0
							    : !found && xqp_ptr_err(h) == -XQP_EINVAL);
			return;
		}
		CHECK(found);
		int real = -1;
		for (size_t k = 0; k < reals_.size(); k++)
			if (reals_[k].exists && reals_[k].real == xqp_qp_real(h))
				real = static_cast<int>(k);
		CHECK(real >= 0 && reals_[real].xrcd == s && reals_[real].qpn == oa.qp_num);
		add_handle(h, real, ev);
		return;
	}
	case 4: /* close a handle */
	case 5: { /* destroy a handle */
		int i = pick(static_cast<int>(handles_.size()), x,
			     [&](int k) { return handles_[k].live; });
		if (i < 0)
			return;
		MHandle &h = handles_[i];
		if (kind % 11 == 4) {
			CHECK(xqp_close_qp(h.qp) == 0);
			reals_[h.real].handles--;
		} else {
			CHECK(xqp_destroy_qp(h.qp) == 0);
			if (--reals_[h.real].handles == 0)
				real_gone(h.real);
		}
		h.live = false;
		return;
	}
	case 6: { /* destroy the real QP: only without handles */
		int r = pick(static_cast<int>(reals_.size()), x,
			     [&](int k) { return reals_[k].exists; });
		if (r < 0)
			return;
		int ret = xqp_destroy_qp(reals_[r].real);
		CHECK(ret == (reals_[r].handles ? -XQP_EBUSY : 0));
		if (!ret)
			real_gone(r);
		return;
	}
	case 7: { /* an event reaches every handle with a handler */
		int r = pick(static_cast<int>(reals_.size()), x,
			     [&](int k) { return reals_[k].exists; });
		if (r < 0)
			return;
		CHECK(xqp_soft_raise_qp_event(soft_, reals_[r].qpn, XQP_EVENT_COMM_EST) == 0);
		for (MHandle &h : handles_)
			if (h.live && h.real == r && h.ev)
				h.expected++;
		return;
	}
	case 8: { /* the driver refuses the last destroy: nothing changes */
		int i = pick(static_cast<int>(handles_.size()), x, [&](int k) {
			return handles_[k].live && reals_[handles_[k].real].handles == 1;
		});
		if (i < 0)
			return;
		xqp_soft_inject(soft_, XQP_SOFT_OP_DESTROY_QP, y & 1 ? -XQP_EIO : -XQP_EBUSY, 0);
		int ret = xqp_destroy_qp(handles_[i].qp);
		xqp_soft_inject(soft_, XQP_SOFT_OP_DESTROY_QP, 0, 0);
		CHECK(ret == (y & 1 ? -XQP_EIO : -XQP_EBUSY));
		return;
	}
	case 9: { /* modify through one handle, query through another */
		int i = pick(static_cast<int>(handles_.size()), x,
			     [&](int k) { return handles_[k].live; });
		if (i < 0)
			return;
		MReal &r = reals_[handles_[i].real];
		static const xqp_qp_state targets[] = {XQP_QPS_INIT, XQP_QPS_ERR, XQP_QPS_RESET};
		xqp_qp_state next = targets[y % 3];
		xqp_qp_attr attr = {};
		attr.qp_state = next;
		attr.port_num = 1;
		int mask = XQP_QP_STATE;
		if (next == XQP_QPS_INIT)
			mask |= XQP_QP_PKEY_INDEX | XQP_QP_PORT | XQP_QP_ACCESS_FLAGS;
		bool valid = next == XQP_QPS_RESET ||
			     (next == XQP_QPS_ERR && r.state != XQP_QPS_RESET) ||
			     (next == XQP_QPS_INIT &&
			      (r.state == XQP_QPS_RESET || r.state == XQP_QPS_INIT));
		CHECK(xqp_modify_qp(handles_[i].qp, &attr, mask) == (valid ? 0 : -XQP_EINVAL));
		if (valid)
			r.state = next;
		int j = pick(static_cast<int>(handles_.size()), y, [&](int k) {
			return handles_[k].live && handles_[k].real == handles_[i].real;
		});
		xqp_qp_attr got = {};
		CHECK(xqp_query_qp(handles_[j].qp, &got, XQP_QP_STATE, nullptr) == 0);
		CHECK(got.qp_state == r.state);
		return;
	}
	case 10: { /* dealloc of an XRCD the driver refuses */
		int s = x % 2;
		if (!xrcds_[s].x || xrcds_[s].reals)
			return;
		xqp_soft_inject(soft_, XQP_SOFT_OP_DEALLOC_XRCD, -XQP_EIO, 0);
		int ret = xqp_dealloc_xrcd(xrcds_[s].x);
		xqp_soft_inject(soft_, XQP_SOFT_OP_DEALLOC_XRCD, 0, 0);
		CHECK(ret == -XQP_EIO || ret == 0);
		if (!ret)
			xrcds_[s].x = nullptr;
		return;
	}
	}
}

void Run::check()
{
	int nx = 0, nr = 0;
	for (MXrcd &x : xrcds_) {
		if (!x.x)
			continue;
		nx++;
		CHECK(xqp_xrcd_usecnt(x.x) == static_cast<xqp_u32>(x.reals));
	}
	for (MReal &r : reals_) {
		if (!r.exists)
			continue;
		nr++;
		CHECK(xqp_qp_handle_count(r.real) == static_cast<xqp_u32>(r.handles));
	}
	for (MHandle &h : handles_) {
		if (!h.ev)
			continue;
		CHECK(h.ev->calls == h.expected);
		if (h.ev->calls)
			CHECK(h.ev->last == h.qp);
	}
	struct xqp_soft_counts c = {};
	xqp_soft_counts(soft_, &c);
	CHECK(c.xrcd == static_cast<xqp_u32>(nx));
	CHECK(c.qp == static_cast<xqp_u32>(nr));
}

void Run::cleanup()
{
	for (MHandle &h : handles_) {
		if (!h.live)
			continue;
		CHECK(xqp_destroy_qp(h.qp) == 0);
		h.live = false;
		if (--reals_[h.real].handles == 0)
			real_gone(h.real);
	}
	for (size_t r = 0; r < reals_.size(); r++) {
		if (!reals_[r].exists)
			continue;
		CHECK(xqp_destroy_qp(reals_[r].real) == 0);
		real_gone(static_cast<int>(r));
	}
	for (MXrcd &x : xrcds_)
		if (x.x)
			CHECK(xqp_dealloc_xrcd(x.x) == 0);
	struct xqp_soft_counts c = {};
	xqp_soft_counts(soft_, &c);
	CHECK(c.pd + c.cq + c.xrcd + c.srq + c.qp + c.mr == 0);
}

void Run::go()
{
	xqp_rcu_barrier();
	long allocs = xqp_host_live_allocs(), warns = xqp_host_warn_count();
	soft_ = xqp_soft_create("xqp_soft_fuzz", nullptr);
	CHECK(!xqp_is_err(soft_));
	for (pos_ = 0; pos_ + 3 <= size_ && pos_ < 3 * 4096; pos_ += 3) {
		step(data_[pos_], data_[pos_ + 1], data_[pos_ + 2]);
		check();
	}
	cleanup();
	xqp_soft_destroy(soft_);
	xqp_rcu_barrier();
	CHECK(xqp_host_live_allocs() == allocs);
	CHECK(xqp_host_warn_count() == warns);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Run(data, size).go();
	return 0;
}
