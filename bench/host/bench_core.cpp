// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmarks of the core on the host seam (make bench). Figures are for the
 * strict host seam (calloc + poisoning, pthread locks, rwlock RCU), so they
 * compare shapes (scaling, fan-out, bytes per object), not absolute kernel
 * costs. docs/benchmarks.md keeps the results.
 */
#include <benchmark/benchmark.h>

#include <atomic>
#include <vector>

extern "C" {
#include "soft/soft.h"
#include "xqp/driver.h"
#include "xqp/seam.h"
}
#include "seam_host.h"

namespace {

struct World {
	xqp_soft *soft;
	xqp_device *dev;
	xqp_xrcd *xrcd;
	std::vector<xqp_qp *> creators;

	explicit World(int qps)
	{
		soft = xqp_soft_create("xqp_bench", nullptr);
		dev = xqp_soft_device(soft);
		xrcd = xqp_alloc_xrcd(dev);
		for (int i = 0; i < qps; i++)
			creators.push_back(create());
	}
	~World()
	{
		for (xqp_qp *h : creators)
			xqp_destroy_qp(h);
		xqp_dealloc_xrcd(xrcd);
		xqp_soft_destroy(soft);
		xqp_rcu_barrier();
	}
	xqp_qp *create(xqp_event_handler_t handler = nullptr, void *ctx = nullptr)
	{
		xqp_qp_init_attr init = {};
		init.qp_type = XQP_QPT_XRC_TGT;
		init.xrcd = xrcd;
		init.event_handler = handler;
		init.qp_context = ctx;
		init.event_flags = XQP_EVENT_INLINE;	/* the walk, timed at the raise */
		return xqp_create_qp_user(dev, nullptr, &init, nullptr, nullptr, "bench");
	}
	xqp_qp *open(u_int32_t qpn, xqp_event_handler_t handler = nullptr, void *ctx = nullptr)
	{
		xqp_qp_open_attr oa = {};
		oa.qp_num = qpn;
		oa.qp_type = XQP_QPT_XRC_TGT;
		oa.event_handler = handler;
		oa.qp_context = ctx;
		oa.event_flags = XQP_EVENT_INLINE;
		return xqp_open_qp(xrcd, &oa);
	}
};

/*
 * The World every run of BM_OpenClose shares: made once, by whichever
 * thread comes first (a function-local static: the others wait for it),
 * and kept for the process. Each run opens and closes as many shares as it
 * made, so runs leave it as they found it.
 */
World &open_close_world()
{
	static World *w = new World(16);
	return *w;
}

/* open + close of a share; threads on distinct QPs or all on one QP. */
void BM_OpenClose(benchmark::State &state, bool same_qp)
{
	World *world = &open_close_world();
	xqp_qp *mine = world->creators[same_qp ? 0 : state.thread_index() % 16];
	u_int32_t qpn = xqp_qp_num(mine);
	for (auto _ : state) {
		xqp_qp *h = world->open(qpn);
		benchmark::DoNotOptimize(h);
		xqp_close_qp(h);
	}
	state.SetItemsProcessed(state.iterations());
	if (state.thread_index() == 0) {
		xqp_rcu_barrier();
	}
}
void BM_OpenClose_DistinctQps(benchmark::State &s) { BM_OpenClose(s, false); }
void BM_OpenClose_SameQp(benchmark::State &s) { BM_OpenClose(s, true); }
BENCHMARK(BM_OpenClose_DistinctQps)->ThreadRange(1, 2)->UseRealTime();
BENCHMARK(BM_OpenClose_SameQp)->ThreadRange(1, 2)->UseRealTime();

/* open + destroy (the last-share logic) on a QP that stays alive. */
void BM_OpenDestroy(benchmark::State &state)
{
	World w(1);
	u_int32_t qpn = xqp_qp_num(w.creators[0]);
	for (auto _ : state)
		xqp_destroy_qp(w.open(qpn));
	state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_OpenDestroy);

/* create + destroy of an XRC_TGT QP (driver, table publish, share). */
void BM_CreateDestroy(benchmark::State &state)
{
	World w(0);
	for (auto _ : state)
		xqp_destroy_qp(w.create());
	state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CreateDestroy);

void count_event(xqp_event *, void *ctx)
{
	static_cast<std::atomic<long> *>(ctx)->fetch_add(1, std::memory_order_relaxed);
}

/* one async event fanned out to N shares. */
void BM_EventFanout(benchmark::State &state)
{
	World w(0);
	std::atomic<long> delivered{0};
	xqp_qp *h = w.create(count_event, &delivered);
	u_int32_t qpn = xqp_qp_num(h);
	std::vector<xqp_qp *> opened;
	for (int i = 1; i < state.range(0); i++)
		opened.push_back(w.open(qpn, count_event, &delivered));
	for (auto _ : state)
		xqp_soft_raise_qp_event(w.soft, qpn, XQP_EVENT_COMM_EST);
	state.counters["deliveries/s"] = benchmark::Counter(
		static_cast<double>(delivered.load()), benchmark::Counter::kIsRate);
	for (xqp_qp *o : opened)
		xqp_destroy_qp(o);
	xqp_destroy_qp(h);
}
BENCHMARK(BM_EventFanout)->Arg(1)->Arg(16)->Arg(256);

/* memory: bytes per real QP (core + soft driver + table) and per share. */
void BM_Memory(benchmark::State &state)
{
	const int n = static_cast<int>(state.range(0));
	for (auto _ : state) {
		World w(0);
		long before = xqp_host_live_bytes();
		std::vector<xqp_qp *> hs;
		for (int i = 0; i < n; i++)
			hs.push_back(w.create());
		long after_qps = xqp_host_live_bytes();
		std::vector<xqp_qp *> opened;
		for (int i = 0; i < n; i++)
			opened.push_back(w.open(xqp_qp_num(hs[i])));
		long after_opens = xqp_host_live_bytes();
		state.counters["bytes/real_qp"] = static_cast<double>(after_qps - before) / n;
		state.counters["bytes/share"] = static_cast<double>(after_opens - after_qps) / n;
		for (xqp_qp *o : opened)
			xqp_destroy_qp(o);
		for (xqp_qp *h : hs)
			xqp_destroy_qp(h);
	}
	struct xqp_object_sizes s = {};
	xqp_object_sizes(&s);
	state.counters["sizeof_share"] = static_cast<double>(s.share);
	state.counters["sizeof_real_qp"] = static_cast<double>(s.real_qp);
}
BENCHMARK(BM_Memory)->Arg(100000)->Iterations(1)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
