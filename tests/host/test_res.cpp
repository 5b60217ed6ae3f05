// SPDX-License-Identifier: GPL-2.0
/*
 * The resource walk (xqp/res.h): every object once, in its order, resumed
 * by the cursor across calls with budget 1, across objects destroyed and
 * created between calls, and across an emit that has no room.
 */
#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "fixture.h"

extern "C" {
#include "xqp/res.h"
}

namespace {

struct Seen {
	xqp_res_type type;
	u32 id;
	u32 qp_num;
	u32 share_count;
	std::vector<void *> contexts;
	void *owner;
	u32 usecnt;
	u32 xrcd;
	xqp_u64 inode;
};

struct Collector {
	std::vector<Seen> seen;
	int full_after = -1;	/* say FULL once when this many were taken */

	static xqp_res_emit emit(void *arg, const xqp_res_entry *e)
	{
		auto *c = static_cast<Collector *>(arg);
		if (c->full_after >= 0 && (int)c->seen.size() == c->full_after) {
			c->full_after = -1;
			return XQP_RES_FULL;
		}
		Seen s = {e->type, e->id, 0, 0, {}, e->owner, e->usecnt, 0, 0};
		if (e->type == XQP_RES_QP) {
			s.qp_num = e->qp.qp_num;
			s.share_count = e->qp.share_count;
			s.xrcd = e->qp.xrcd;
			for (u32 i = 0; i < e->qp.nshares; i++)
				s.contexts.push_back(e->qp.shares[i].context);
		}
		if (e->type == XQP_RES_XRCD)
			s.inode = e->xrcd.inode;
		c->seen.push_back(s);
		return XQP_RES_TAKEN;
	}
};

class Res : public Core {
protected:
	/* Walks to the end with @budget per call; returns the number of calls. */
	int walk_all(xqp_res_type type, Collector &c, u32 budget, xqp_res_cursor *cur = nullptr)
	{
		xqp_res_cursor local = {};
		if (!cur)
			cur = &local;
		int calls = 0, ret;
		do {
			ret = xqp_res_walk(dev(), type, cur, entry_.get(), budget, Collector::emit, &c);
			calls++;
		} while (ret == 1 && calls < 10000);
		EXPECT_EQ(ret, 0);
		return calls;
	}
	std::unique_ptr<xqp_res_entry> entry_{new xqp_res_entry};
};

TEST_F(Res, PdsNewestFirstOneCallEach)
{
	xqp_pd *pd[3];
	for (auto &p : pd) {
		p = xqp_alloc_pd(dev());
		ASSERT_FALSE(xqp_is_err(p));
	}
	Collector c;
	int calls = walk_all(XQP_RES_PD, c, 1);
	ASSERT_EQ(c.seen.size(), 3u);
	EXPECT_EQ(calls, 3);	/* budget 1: one call per object, the last finds no more */
	EXPECT_EQ(c.seen[0].id, xqp_pd_res_id(pd[2]));
	EXPECT_EQ(c.seen[1].id, xqp_pd_res_id(pd[1]));
	EXPECT_EQ(c.seen[2].id, xqp_pd_res_id(pd[0]));
	EXPECT_GT(c.seen[0].id, c.seen[1].id);
	EXPECT_GT(c.seen[1].id, c.seen[2].id);
	for (auto *p : pd)
		EXPECT_EQ(xqp_dealloc_pd(p), 0);
}

TEST_F(Res, ResumesAcrossDestroyAndCreate)
{
	xqp_pd *a = xqp_alloc_pd(dev()), *b = xqp_alloc_pd(dev()), *d = xqp_alloc_pd(dev());
	Collector c;
	xqp_res_cursor cur = {};
	ASSERT_EQ(xqp_res_walk(dev(), XQP_RES_PD, &cur, entry_.get(), 1, Collector::emit, &c), 1);
	ASSERT_EQ(c.seen.size(), 1u);
	EXPECT_EQ(c.seen[0].id, xqp_pd_res_id(d));
	/* b goes, a newer one comes: neither is reported, a still is. */
	EXPECT_EQ(xqp_dealloc_pd(b), 0);
	xqp_pd *e = xqp_alloc_pd(dev());
	walk_all(XQP_RES_PD, c, 1, &cur);
	ASSERT_EQ(c.seen.size(), 2u);
	EXPECT_EQ(c.seen[1].id, xqp_pd_res_id(a));
	EXPECT_EQ(xqp_dealloc_pd(a), 0);
	EXPECT_EQ(xqp_dealloc_pd(d), 0);
	EXPECT_EQ(xqp_dealloc_pd(e), 0);
}

TEST_F(Res, FullEntryComesFirstNextTime)
{
	xqp_pd *pd[4];
	for (auto &p : pd)
		p = xqp_alloc_pd(dev());
	Collector c;
	c.full_after = 2;
	xqp_res_cursor cur = {};
	EXPECT_EQ(xqp_res_walk(dev(), XQP_RES_PD, &cur, entry_.get(), 100, Collector::emit, &c), 1);
	EXPECT_EQ(c.seen.size(), 2u);
	EXPECT_EQ(xqp_res_walk(dev(), XQP_RES_PD, &cur, entry_.get(), 100, Collector::emit, &c), 0);
	ASSERT_EQ(c.seen.size(), 4u);
	for (int i = 0; i < 4; i++)
		EXPECT_EQ(c.seen[i].id, xqp_pd_res_id(pd[3 - i]));
	for (auto *p : pd)
		EXPECT_EQ(xqp_dealloc_pd(p), 0);
}

TEST_F(Res, SharedQpWithEveryShare)
{
	xqp_xrcd *x = xrcd();
	int ctx[3];
	xqp_qp *creator = create_tgt(x, nullptr, &ctx[0]);
	u32 qpn = xqp_qp_num(creator);
	xqp_qp *h1 = open(x, qpn, nullptr, &ctx[1]);
	xqp_qp *h2 = open(x, qpn, nullptr, &ctx[2]);
	ASSERT_FALSE(xqp_is_err(h1));
	ASSERT_FALSE(xqp_is_err(h2));

	Collector c;
	walk_all(XQP_RES_QP, c, 1);
	ASSERT_EQ(c.seen.size(), 1u);
	EXPECT_EQ(c.seen[0].qp_num, qpn);
	EXPECT_EQ(c.seen[0].id, 0u);
	EXPECT_EQ(c.seen[0].share_count, 3u);
	EXPECT_EQ(c.seen[0].xrcd, xqp_xrcd_res_id(x));
	ASSERT_EQ(c.seen[0].contexts.size(), 3u);
	/* The share list is newest first. */
	EXPECT_EQ(c.seen[0].contexts[0], &ctx[2]);
	EXPECT_EQ(c.seen[0].contexts[1], &ctx[1]);
	EXPECT_EQ(c.seen[0].contexts[2], &ctx[0]);

	EXPECT_EQ(xqp_close_qp(h1), 0);
	c.seen.clear();
	walk_all(XQP_RES_QP, c, 5);
	ASSERT_EQ(c.seen.size(), 1u);
	EXPECT_EQ(c.seen[0].share_count, 2u);

	EXPECT_EQ(xqp_destroy_qp(h2), 0);
	EXPECT_EQ(xqp_destroy_qp(creator), 0);
	c.seen.clear();
	walk_all(XQP_RES_QP, c, 5);
	EXPECT_TRUE(c.seen.empty());
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
}

TEST_F(Res, SharesListedUpToTheMaxAllCounted)
{
	xqp_xrcd *x = xrcd();
	xqp_qp *creator = create_tgt(x);
	std::vector<xqp_qp *> opened;
	for (int i = 0; i < XQP_RES_SHARES_MAX + 8; i++)
		opened.push_back(open(x, xqp_qp_num(creator)));
	Collector c;
	walk_all(XQP_RES_QP, c, 10);
	ASSERT_EQ(c.seen.size(), 1u);
	EXPECT_EQ(c.seen[0].share_count, XQP_RES_SHARES_MAX + 9u);
	EXPECT_EQ(c.seen[0].contexts.size(), (size_t)XQP_RES_SHARES_MAX);
	for (auto *h : opened)
		EXPECT_EQ(xqp_close_qp(h), 0);
	EXPECT_EQ(xqp_destroy_qp(creator), 0);
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
}

TEST_F(Res, OrdinaryThenSharedXrcdByXrcdBudgetOne)
{
	xqp_pd *pd = xqp_alloc_pd(dev());
	xqp_cq *cq = xqp_create_cq(dev(), 4, nullptr, nullptr);
	ASSERT_FALSE(xqp_is_err(cq));
	xqp_qp_init_attr ia = {};
	ia.qp_type = XQP_QPT_RC;
	ia.send_cq = ia.recv_cq = cq;
	ia.cap.max_send_wr = ia.cap.max_recv_wr = 1;
	ia.cap.max_send_sge = ia.cap.max_recv_sge = 1;
	xqp_qp *rc = xqp_create_qp_user(dev(), pd, &ia, nullptr, nullptr, "test");
	ASSERT_FALSE(xqp_is_err(rc));

	xqp_xrcd *x1 = xrcd(), *x2 = xrcd();
	xqp_qp *t1a = create_tgt(x1), *t1b = create_tgt(x1), *t2 = create_tgt(x2);

	Collector c;
	int calls = walk_all(XQP_RES_QP, c, 1);
	ASSERT_EQ(c.seen.size(), 4u);
	EXPECT_EQ(calls, 4);
	EXPECT_EQ(c.seen[0].qp_num, xqp_qp_num(rc));
	EXPECT_NE(c.seen[0].id, 0u);
	/* x2 is newer: its QP first; then x1's by number. */
	EXPECT_EQ(c.seen[1].qp_num, xqp_qp_num(t2));
	EXPECT_EQ(c.seen[1].xrcd, xqp_xrcd_res_id(x2));
	u32 lo = xqp_qp_num(t1a) < xqp_qp_num(t1b) ? xqp_qp_num(t1a) : xqp_qp_num(t1b);
	u32 hi = xqp_qp_num(t1a) ^ xqp_qp_num(t1b) ^ lo;
	EXPECT_EQ(c.seen[2].qp_num, lo);
	EXPECT_EQ(c.seen[3].qp_num, hi);

	/* Every QP exactly once with any budget. */
	for (u32 budget : {2u, 3u, 100u}) {
		Collector d;
		walk_all(XQP_RES_QP, d, budget);
		EXPECT_EQ(d.seen.size(), 4u) << budget;
	}

	/* The CQ counts the QP's two uses; the PD one. */
	Collector cqs, pds;
	walk_all(XQP_RES_CQ, cqs, 10);
	walk_all(XQP_RES_PD, pds, 10);
	ASSERT_EQ(cqs.seen.size(), 1u);
	ASSERT_EQ(pds.seen.size(), 1u);
	EXPECT_EQ(cqs.seen[0].usecnt, 2u);
	EXPECT_EQ(pds.seen[0].usecnt, 1u);

	EXPECT_EQ(xqp_destroy_qp(t1a), 0);
	EXPECT_EQ(xqp_destroy_qp(t1b), 0);
	EXPECT_EQ(xqp_destroy_qp(t2), 0);
	EXPECT_EQ(xqp_destroy_qp(rc), 0);
	EXPECT_EQ(xqp_dealloc_xrcd(x1), 0);
	EXPECT_EQ(xqp_dealloc_xrcd(x2), 0);
	EXPECT_EQ(xqp_destroy_cq(cq), 0);
	EXPECT_EQ(xqp_dealloc_pd(pd), 0);
}

TEST_F(Res, XrcdOwnerInodeAndUsecnt)
{
	xqp_xrcd *x = xrcd();
	int owner, other;
	xqp_xrcd_set_res_owner(x, &owner);
	xqp_xrcd_set_res_inode(x, 4242);
	xqp_qp *t = create_tgt(x);
	Collector c;
	walk_all(XQP_RES_XRCD, c, 1);
	ASSERT_EQ(c.seen.size(), 1u);
	EXPECT_EQ(c.seen[0].owner, &owner);
	EXPECT_EQ(c.seen[0].inode, 4242u);
	EXPECT_EQ(c.seen[0].usecnt, 1u);
	xqp_xrcd_clear_res_owner(x, &other);	/* not its owner: kept */
	c.seen.clear();
	walk_all(XQP_RES_XRCD, c, 1);
	EXPECT_EQ(c.seen[0].owner, &owner);
	xqp_xrcd_clear_res_owner(x, &owner);
	c.seen.clear();
	walk_all(XQP_RES_XRCD, c, 1);
	EXPECT_EQ(c.seen[0].owner, nullptr);
	EXPECT_EQ(xqp_destroy_qp(t), 0);
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
}

/* Walks while another thread opens and closes shares and makes QPs. */
TEST_F(Res, WalkDuringOpenCloseCreate)
{
	xqp_xrcd *x = xrcd();
	xqp_qp *creator = create_tgt(x);
	u32 qpn = xqp_qp_num(creator);
	std::atomic<bool> stop{false};
	std::thread churn([&] {
		while (!stop.load()) {
			xqp_qp *h = open(x, qpn);
			xqp_qp *t = create_tgt(x);
			EXPECT_EQ(xqp_close_qp(h), 0);
			EXPECT_EQ(xqp_destroy_qp(t), 0);
		}
	});
	for (int round = 0; round < 200; round++) {
		Collector c;
		walk_all(XQP_RES_QP, c, 1 + round % 3);
		int shared = 0;
		for (const Seen &s : c.seen) {
			if (s.qp_num != qpn)
				continue;
			shared++;
			EXPECT_GE(s.share_count, 1u);
			EXPECT_LE(s.share_count, 2u);
			EXPECT_EQ(s.contexts.size(), s.share_count);
		}
		EXPECT_EQ(shared, 1);
	}
	stop.store(true);
	churn.join();
	EXPECT_EQ(xqp_destroy_qp(creator), 0);
	EXPECT_EQ(xqp_dealloc_xrcd(x), 0);
}

/*
 * An MR's memory is released only once no walk can find the MR: the walk
 * reads the memory's length (the fuzzer's KASAN report: a dump racing a
 * file's close read a freed umem). Here the release itself walks the MRs.
 */
struct WalkingMem {
	xqp_mem mem;
	Res *res;
	xqp_device *dev;
	xqp_res_entry *entry;
	int walks = 0, listed = 0, released = 0;
	char buf[64];

	static WalkingMem *from(xqp_mem *m) { return reinterpret_cast<WalkingMem *>(m); }
	static void *map(xqp_mem *m, xqp_u64 off, xqp_u64 *len)
	{
		*len = sizeof(from(m)->buf) - off;
		return from(m)->buf + off;
	}
	static void unmap(xqp_mem *, void *) {}
	static void release(xqp_mem *m)
	{
		WalkingMem *w = from(m);
		Collector c;
		xqp_res_cursor cur = {};
		while (xqp_res_walk(w->dev, XQP_RES_MR, &cur, w->entry, 8, Collector::emit, &c) == 1)
			;
		w->walks++;
		w->listed += (int)c.seen.size();
		w->released++;
	}
	static constexpr xqp_mem_ops ops = {map, unmap, release};
};

TEST_F(Res, MrMemoryReleasedOnlyOffTheList)
{
	xqp_pd *pd = xqp_alloc_pd(dev());
	ASSERT_FALSE(xqp_is_err(pd));
	WalkingMem wm;
	wm.mem.ops = &WalkingMem::ops;
	wm.mem.length = sizeof(wm.buf);
	wm.dev = dev();
	wm.entry = entry_.get();
	xqp_mr *mr = xqp_reg_mr(pd, &wm.mem, 0x1000, XQP_ACCESS_LOCAL_WRITE);
	ASSERT_FALSE(xqp_is_err(mr));
	Collector before;
	walk_all(XQP_RES_MR, before, 4);
	ASSERT_EQ(before.seen.size(), 1u);
	ASSERT_EQ(xqp_dereg_mr(mr), 0);
	EXPECT_EQ(wm.released, 1);
	EXPECT_EQ(wm.walks, 1);
	EXPECT_EQ(wm.listed, 0) << "the MR was still listed when its memory was released";
	EXPECT_EQ(xqp_dealloc_pd(pd), 0);
}

/* Every MR entry's length is one the churn below registers. */
struct LengthCheck {
	static xqp_res_emit emit(void *arg, const xqp_res_entry *e)
	{
		auto *bad = static_cast<int *>(arg);
		if (e->type != XQP_RES_MR || e->mr.length == 0 || e->mr.length > 256 ||
		    e->mr.length % 64)
			++*bad;
		return XQP_RES_TAKEN;
	}
};

/* Walks of MRs while another thread registers and deregisters them. */
TEST_F(Res, WalkDuringRegDereg)
{
	xqp_pd *pd = xqp_alloc_pd(dev());
	ASSERT_FALSE(xqp_is_err(pd));
	std::atomic<bool> stop{false};
	std::atomic<int> rounds{0};
	std::thread churn([&] {
		static char buf[4][256];
		for (; !stop.load(); rounds++) {
			xqp_mr *mr[4];
			for (int i = 0; i < 4; i++) {
				mr[i] = xqp_reg_kernel_mr(pd, buf[i], 64 * (i + 1), XQP_ACCESS_LOCAL_WRITE);
				ASSERT_FALSE(xqp_is_err(mr[i]));
			}
			for (int i = 0; i < 4; i++)
				ASSERT_EQ(xqp_dereg_mr(mr[i]), 0);
		}
	});
	for (int round = 0; round < 300 || rounds.load() < 300; round++) {
		int bad = 0, calls = 0;
		xqp_res_cursor cur = {};
		while (xqp_res_walk(dev(), XQP_RES_MR, &cur, entry_.get(), 1 + round % 3,
				    LengthCheck::emit, &bad) == 1 && ++calls < 10000)
			;
		EXPECT_EQ(bad, 0);
	}
	stop.store(true);
	churn.join();
	EXPECT_EQ(xqp_dealloc_pd(pd), 0);
}

TEST_F(Res, BadArguments)
{
	Collector c;
	xqp_res_cursor cur = {};
	EXPECT_EQ(xqp_res_walk(dev(), XQP_RES_PD, &cur, entry_.get(), 0, Collector::emit, &c),
		  -XQP_EINVAL);
	EXPECT_EQ(xqp_res_walk(dev(), XQP_RES_NR_TYPES, &cur, entry_.get(), 1, Collector::emit, &c),
		  -XQP_EINVAL);
	EXPECT_EQ(xqp_res_walk(dev(), XQP_RES_PD, &cur, entry_.get(), 1, nullptr, &c), -XQP_EINVAL);
	EXPECT_EQ(xqp_res_walk(dev(), XQP_RES_SRQ, &cur, entry_.get(), 1, Collector::emit, &c), 0);
	EXPECT_TRUE(c.seen.empty());
}

} // namespace
