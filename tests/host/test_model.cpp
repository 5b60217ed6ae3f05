// SPDX-License-Identifier: GPL-2.0
/*
 * Model-based randomized test: random operation sequences run against the
 * core and against a tiny, obviously correct model of the spec; every return
 * code is predicted by the model and the observable state (usecnt, handle
 * counts, driver objects, event deliveries, QP state) compared after each
 * step. `make check` uses a fixed seed; XQP_MODEL_SEED / XQP_MODEL_STEPS /
 * XQP_MODEL_RUNS run longer on demand.
 */
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "fixture.h"

namespace {

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
	int reals = 0;		/* model usecnt */
};

struct MReal {
	u32 qpn;
	int xrcd;
	xqp_qp *real;
	bool exists = true;
	int handles = 0;
	xqp_qp_state state = XQP_QPS_RESET;
};

struct MHandle {
	xqp_qp *qp;
	int real;
	bool live = true;
	std::unique_ptr<Events> ev;	/* null: no handler */
	int expected_calls = 0;
};

long env(const char *name, long dflt)
{
	const char *v = std::getenv(name);
	return v ? std::strtol(v, nullptr, 0) : dflt;
}

class Model : public Core {
protected:
	std::mt19937 rng;
	MXrcd xrcds[2];
	std::vector<MReal> reals;
	std::vector<MHandle> handles;
	std::string trace;

	int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); }

	template <typename P> int pick_where(int n, P pred)
	{
		std::vector<int> c;
		for (int i = 0; i < n; i++)
			if (pred(i))
				c.push_back(i);
		return c.empty() ? -1 : c[pick(static_cast<int>(c.size()))];
	}

	MHandle &add_handle(xqp_qp *qp, int real, bool with_handler, Events *ev)
	{
		handles.push_back(MHandle{qp, real, true, std::unique_ptr<Events>(ev), 0});
		(void)with_handler;
		reals[real].handles++;
		return handles.back();
	}

	void real_gone(int r)
	{
		reals[r].exists = false;
		xrcds[reals[r].xrcd].reals--;
	}

	void step();
	void check_state();
	void cleanup();
};

void Model::step()
{
	switch (pick(10)) {
	case 0: { /* alloc XRCD */
		int s = pick(2);
		if (xrcds[s].x)
			return;
		trace += "alloc_xrcd ";
		xrcds[s].x = xqp_alloc_xrcd(dev());
		ASSERT_FALSE(xqp_is_err(xrcds[s].x));
		return;
	}
	case 1: { /* dealloc XRCD */
		int s = pick(2);
		if (!xrcds[s].x)
			return;
		trace += "dealloc_xrcd ";
		int ret = xqp_dealloc_xrcd(xrcds[s].x);
		ASSERT_EQ(ret, xrcds[s].reals ? -XQP_EBUSY : 0);
		if (!ret)
			xrcds[s].x = nullptr;
		return;
	}
	case 2: { /* create XRC_TGT */
		int s = pick(2);
		if (!xrcds[s].x)
			return;
		trace += "create ";
		Events *ev = pick(2) ? new Events : nullptr;
		xqp_qp *h = create_tgt(xrcds[s].x, ev ? on_event : nullptr, ev);
		ASSERT_FALSE(xqp_is_err(h));
		reals.push_back(MReal{xqp_qp_num(h), s, xqp_qp_real(h)});
		xrcds[s].reals++;
		add_handle(h, static_cast<int>(reals.size()) - 1, ev, ev);
		return;
	}
	case 3: { /* open by number, maybe a gone or foreign one */
		int s = pick(2);
		if (!xrcds[s].x || reals.empty())
			return;
		int r = pick(static_cast<int>(reals.size()));
		bool found = reals[r].exists && reals[r].xrcd == s;
		trace += found ? "open " : "open-miss ";
		Events *ev = pick(2) ? new Events : nullptr;
		xqp_qp *h = open(xrcds[s].x, reals[r].qpn, ev ? on_event : nullptr, ev);
		if (!found) {
			delete ev;
			ASSERT_EQ(xqp_ptr_err(h), -XQP_EINVAL);
			return;
		}
		ASSERT_FALSE(xqp_is_err(h));
		ASSERT_EQ(xqp_qp_real(h), reals[r].real);
		add_handle(h, r, ev, ev);
		return;
	}
	case 4: { /* close */
		int i = pick_where(static_cast<int>(handles.size()),
				   [&](int k) { return handles[k].live; });
		if (i < 0)
			return;
		trace += "close ";
		ASSERT_EQ(xqp_close_qp(handles[i].qp), 0);
		handles[i].live = false;
		reals[handles[i].real].handles--;
		return;
	}
	case 5: { /* destroy a handle */
		int i = pick_where(static_cast<int>(handles.size()),
				   [&](int k) { return handles[k].live; });
		if (i < 0)
			return;
		trace += "destroy ";
		ASSERT_EQ(xqp_destroy_qp(handles[i].qp), 0);
		handles[i].live = false;
		int r = handles[i].real;
		if (--reals[r].handles == 0)
			real_gone(r);
		return;
	}
	case 6: { /* destroy the real QP itself */
		int r = pick_where(static_cast<int>(reals.size()),
				   [&](int k) { return reals[k].exists; });
		if (r < 0)
			return;
		trace += "destroy_real ";
		int ret = xqp_destroy_qp(reals[r].real);
		ASSERT_EQ(ret, reals[r].handles ? -XQP_EBUSY : 0);
		if (!ret)
			real_gone(r);
		return;
	}
	case 7: { /* event */
		int r = pick_where(static_cast<int>(reals.size()),
				   [&](int k) { return reals[k].exists; });
		if (r < 0)
			return;
		trace += "event ";
		ASSERT_EQ(xqp_soft_raise_qp_event(soft_, reals[r].qpn, XQP_EVENT_COMM_EST), 0);
		for (MHandle &h : handles)
			if (h.live && h.real == r && h.ev)
				h.expected_calls++;
		return;
	}
	case 8: { /* the last destroy fails in the driver */
		int i = pick_where(static_cast<int>(handles.size()), [&](int k) {
			return handles[k].live && reals[handles[k].real].handles == 1;
		});
		if (i < 0)
			return;
		trace += "destroy-fail ";
		xqp_soft_inject(soft_, XQP_SOFT_OP_DESTROY_QP, -XQP_EIO, 0);
		ASSERT_EQ(xqp_destroy_qp(handles[i].qp), -XQP_EIO);
		return;
	}
	case 9: { /* modify through one handle, query through another */
		int i = pick_where(static_cast<int>(handles.size()),
				   [&](int k) { return handles[k].live; });
		if (i < 0)
			return;
		trace += "modify ";
		MReal &r = reals[handles[i].real];
		static const xqp_qp_state targets[] = {XQP_QPS_INIT, XQP_QPS_ERR, XQP_QPS_RESET};
		xqp_qp_state next = targets[pick(3)];
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
		ASSERT_EQ(xqp_modify_qp(handles[i].qp, &attr, mask), valid ? 0 : -XQP_EINVAL)
			<< "state " << r.state << " -> " << next;
		if (valid)
			r.state = next;
		int j = pick_where(static_cast<int>(handles.size()), [&](int k) {
			return handles[k].live && handles[k].real == handles[i].real;
		});
		xqp_qp_attr got = {};
		ASSERT_EQ(xqp_query_qp(handles[j].qp, &got, XQP_QP_STATE, nullptr), 0);
		ASSERT_EQ(got.qp_state, r.state);
		return;
	}
	}
}

void Model::check_state()
{
	int xrcd_count = 0, real_count = 0;
	for (MXrcd &x : xrcds) {
		if (!x.x)
			continue;
		xrcd_count++;
		ASSERT_EQ(xqp_xrcd_usecnt(x.x), static_cast<u32>(x.reals));
	}
	for (MReal &r : reals) {
		if (!r.exists)
			continue;
		real_count++;
		ASSERT_EQ(xqp_qp_handle_count(r.real), static_cast<u32>(r.handles));
	}
	for (MHandle &h : handles) {
		if (!h.ev)
			continue;
		ASSERT_EQ(h.ev->calls, h.expected_calls);
		if (h.ev->calls) {
			ASSERT_EQ(h.ev->last, h.qp);
		}
	}
	struct xqp_soft_counts c = counts();
	ASSERT_EQ(c.xrcd, static_cast<u32>(xrcd_count));
	ASSERT_EQ(c.qp, static_cast<u32>(real_count));
}

void Model::cleanup()
{
	for (MHandle &h : handles) {
		if (!h.live)
			continue;
		ASSERT_EQ(xqp_destroy_qp(h.qp), 0);
		h.live = false;
		if (--reals[h.real].handles == 0)
			real_gone(h.real);
	}
	/* what is left are orphans: closed by their last user, never destroyed */
	for (size_t r = 0; r < reals.size(); r++) {
		if (!reals[r].exists)
			continue;
		ASSERT_EQ(xqp_destroy_qp(reals[r].real), 0);
		real_gone(static_cast<int>(r));
	}
	for (MXrcd &x : xrcds) {
		if (!x.x)
			continue;
		ASSERT_EQ(xqp_dealloc_xrcd(x.x), 0);
	}
}

} // namespace

TEST_F(Model, RandomSequencesMatchTheModel)
{
	long seed = env("XQP_MODEL_SEED", 1);
	long steps = env("XQP_MODEL_STEPS", 20000);
	long runs = env("XQP_MODEL_RUNS", 1);
	for (long run = 0; run < runs; run++) {
		rng.seed(static_cast<unsigned>(seed + run));
		for (long i = 0; i < steps; i++) {
			step();
			if (HasFailure()) {
				ADD_FAILURE() << "seed " << seed + run << " step " << i
					      << " trace tail: "
					      << trace.substr(trace.size() > 300 ? trace.size() - 300 : 0);
				return;
			}
			check_state();
			if (HasFailure()) {
				ADD_FAILURE() << "seed " << seed + run << " step " << i;
				return;
			}
		}
		cleanup();
		ASSERT_FALSE(HasFailure());
		reals.clear();
		handles.clear();
		trace.clear();
		for (MXrcd &x : xrcds)
			x = MXrcd{};
	}
}
