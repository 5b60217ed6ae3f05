// SPDX-License-Identifier: GPL-2.0
/*
 * Races: threads open, close and destroy shares and create and destroy
 * shared QPs while another raises events on them. Never a share to a freed
 * QP, never an event after close returned, every count back to zero. Built
 * also with TSan (make check runs it there) and ASan (a late event would read
 * a freed, poisoned context).
 */
#include <atomic>
#include <random>
#include <thread>
#include <vector>

#include "fixture.h"

namespace {

constexpr unsigned kLive = 0x4c495645;
constexpr unsigned kClosed = 0x434c4f53;

struct Ctx {
	std::atomic<unsigned> magic{kLive};
	std::atomic<int> calls{0};
};

std::atomic<long> late_events{0};

void on_event(xqp_event *ev, void *ctx)
{
	auto *c = static_cast<Ctx *>(ctx);
	if (c->magic.load() != kLive || !ev->element.qp)
		late_events++;
	c->calls++;
}

constexpr int kSlots = 8;

struct Shared {
	std::atomic<u32> qpn[kSlots];
	std::atomic<bool> stop{false};
	std::atomic<long> opens{0}, misses{0};
};

} // namespace

TEST_F(Core, OpenCloseDestroyAndEventsRace)
{
	xqp_xrcd *x = xrcd();
	Shared sh;
	for (auto &q : sh.qpn)
		q = 0;
	late_events = 0;

	/* churn: replaces the QP in a slot: create, publish the number, let go */
	auto churn = [&](int seed) {
		std::mt19937 rng(seed);
		for (int i = 0; i < 300; i++) {
			xqp_qp *h = create_tgt(x);
			if (xqp_is_err(h))
				return;
			sh.qpn[rng() % kSlots] = xqp_qp_num(h);
			std::this_thread::yield();
			/* destroy or close the creator's share: openers keep it alive */
			if (rng() % 2) {
				EXPECT_EQ(xqp_destroy_qp(h), 0);
			} else {
				/* close leaves an orphan: reopen and destroy to reclaim */
				u32 qpn = xqp_qp_num(h);
				EXPECT_EQ(xqp_close_qp(h), 0);
				xqp_qp *o = open(x, qpn);
				if (!xqp_is_err(o)) {
					EXPECT_EQ(xqp_destroy_qp(o), 0);
				}
			}
		}
	};
	auto opener = [&](int seed) {
		std::mt19937 rng(seed);
		while (!sh.stop.load()) {
			u32 qpn = sh.qpn[rng() % kSlots];
			if (!qpn)
				continue;
			auto *ctx = new Ctx;
			xqp_qp *h = open(x, qpn, on_event, ctx);
			if (xqp_is_err(h)) {
				EXPECT_EQ(xqp_ptr_err(h), -XQP_EINVAL);
				sh.misses++;
				delete ctx;
				continue;
			}
			sh.opens++;
			EXPECT_EQ(xqp_qp_num(h), qpn);
			std::this_thread::yield();
			EXPECT_EQ(rng() % 2 ? xqp_close_qp(h) : xqp_destroy_qp(h), 0);
			ctx->magic = kClosed;	/* any event from now on is late */
			std::this_thread::yield();
			delete ctx;
		}
	};
	auto eventer = [&] {
		unsigned i = 0;
		while (!sh.stop.load()) {
			u32 qpn = sh.qpn[i++ % kSlots];
			if (qpn)
				xqp_soft_raise_qp_event(soft_, qpn, XQP_EVENT_COMM_EST);
		}
	};

	std::vector<std::thread> t;
	t.emplace_back(eventer);
	for (int i = 0; i < 3; i++)
		t.emplace_back(opener, 100 + i);
	std::thread c1(churn, 1), c2(churn, 2);
	c1.join();
	c2.join();
	sh.stop = true;
	for (auto &th : t)
		th.join();

	EXPECT_EQ(late_events.load(), 0);
	/* Orphans (closed last shares whose reopen lost a race) are reclaimed
	 * by reopening each remaining number and destroying it. */
	for (u32 qpn = 2; qpn < 2 + 700 && xqp_xrcd_usecnt(x); qpn++) {
		xqp_qp *o = open(x, qpn);
		if (!xqp_is_err(o)) {
			EXPECT_EQ(xqp_destroy_qp(o), 0);
		}
	}
	EXPECT_EQ(xqp_xrcd_usecnt(x), 0u);
	EXPECT_EQ(counts().qp, 0u);
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
	RecordProperty("opens", static_cast<int>(sh.opens.load()));
	RecordProperty("misses", static_cast<int>(sh.misses.load()));
	EXPECT_GT(sh.opens.load(), 0);
}
