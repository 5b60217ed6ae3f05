// SPDX-License-Identifier: GPL-2.0
/*
 * UD multicast on the soft subnet (core/mcast.cpp, drivers/soft/mcast.c):
 * ib_attach_mcast()'s checks, rxe's limits and answers, delivery to every
 * attached QP of every device (the sender's own included) with each one's
 * Q_Key, and a QP's destroy while attached.
 */
#include <algorithm>

#include "traffic.h"

namespace {

/* An IPv4-mapped multicast GID, ::ffff:239.1.1.@host. */
void mgid4(xqp_u8 gid[16], int host = 1)
{
	std::memset(gid, 0, 16);
	gid[10] = gid[11] = 0xff;
	gid[12] = 239;
	gid[13] = gid[14] = 1;
	gid[15] = static_cast<xqp_u8>(host);
}

class Mcast : public Traffic {
protected:
	xqp_qp *ud(Node &n, u32 qkey = 0x11111111)
	{
		xqp_qp *q = qp(n, XQP_QPT_UD);
		connect_qp(q, XQP_QPT_UD, 0, 0, true, 0, 7, 1, qkey);
		return q;
	}
	/* An AH of @n's PD to the group @gid. */
	xqp_ah *group_ah(Node &n, const xqp_u8 gid[16])
	{
		xqp_ah_attr av = {};
		av.is_global = 1;
		av.port_num = 1;
		av.hop_limit = 1;
		std::memcpy(av.dgid, gid, 16);
		xqp_ah *ah = xqp_create_ah(n.pd, &av);
		EXPECT_FALSE(xqp_is_err(ah)) << xqp_ptr_err(ah);
		return ah;
	}
	/* A UD QP of @n (4 WRs, 1 SGE) that the test destroys itself. */
	static xqp_qp *bare_ud(Node &n)
	{
		xqp_qp_init_attr init = {};
		init.qp_type = XQP_QPT_UD;
		init.send_cq = n.scq;
		init.recv_cq = n.rcq;
		init.cap.max_send_wr = init.cap.max_recv_wr = 4;
		init.cap.max_send_sge = init.cap.max_recv_sge = 1;
		return xqp_create_qp_user(n.dev, n.pd, &init, nullptr, nullptr, "test");
	}
		struct xqp_soft_counts counts2()
	{
		struct xqp_soft_counts c = {};
		xqp_soft_counts(soft2_, &c);
		return c;
	}
};

TEST_F(Mcast, DeviceReportsRxeLimits)
{
	xqp_device_attr da = {};
	ASSERT_EQ(xqp_query_device(dev(), &da), 0);
	EXPECT_EQ(da.max_mcast_grp, 8192u);
	EXPECT_EQ(da.max_mcast_qp_attach, 56u);
	EXPECT_EQ(da.max_total_mcast_qp_attach, 0x70000u);
}

TEST_F(Mcast, AttachChecksAsIbCore)
{
	xqp_u8 g[16], uni[16] = {0xfe, 0x80};
	mgid4(g);
	xqp_qp *u = ud(a), *rc = qp(a, XQP_QPT_RC);

	EXPECT_EQ(xqp_attach_mcast(rc, g, 0xc001), -XQP_EINVAL);	/* not UD */
	EXPECT_EQ(xqp_attach_mcast(u, uni, 0xc001), -XQP_EINVAL);	/* not multicast */
	/* an InfiniBand port: the LID must be a multicast LID */
	EXPECT_EQ(xqp_attach_mcast(u, g, 0x0005), -XQP_EINVAL);
	EXPECT_EQ(xqp_attach_mcast(u, g, 0xffff), -XQP_EINVAL);
	EXPECT_EQ(counts().mcast_grp, 0u);

	ASSERT_EQ(xqp_attach_mcast(u, g, 0xc001), 0);
	EXPECT_EQ(xqp_attach_mcast(u, g, 0xc001), 0);	/* again: one attachment */
	EXPECT_EQ(counts().mcast_grp, 1u);
	EXPECT_EQ(counts().mcast_attach, 1u);
	EXPECT_EQ(xqp_destroy_qp(u), -XQP_EBUSY);	/* ib_destroy_qp's usecnt */

	xqp_u8 ff[16] = {0xff, 0x0e};			/* an IPv6 group too */
	ff[15] = 7;
	ASSERT_EQ(xqp_attach_mcast(u, ff, 0xc002), 0);
	EXPECT_EQ(counts().mcast_grp, 2u);
	EXPECT_EQ(xqp_detach_mcast(u, g, 0xc001), 0);
	EXPECT_EQ(xqp_detach_mcast(u, g, 0xc001), -XQP_EINVAL);	/* not attached */
	EXPECT_EQ(xqp_destroy_qp(u), -XQP_EBUSY);		/* ff still */
	EXPECT_EQ(xqp_detach_mcast(u, ff, 0xc002), 0);
	EXPECT_EQ(counts().mcast_grp, 0u);
	EXPECT_EQ(counts().mcast_attach, 0u);
}

/*
 * A message to the group reaches every attached QP of both devices, the
 * sender's own included, each with the GRH room and the group as its
 * destination; a QP with another Q_Key, a detached one and one never
 * attached get nothing; a message to the group's GID with another QP
 * number is no multicast (nobody has that GID: lost).
 */
TEST_F(Mcast, DeliveredToEveryAttachedQpOfTheSubnet)
{
	xqp_u8 g[16];
	mgid4(g, 9);
	xqp_qp *s = ud(a), *a2 = ud(a), *b1 = ud(b), *b2 = ud(b), *bq = ud(b, 0x2222);
	xqp_qp *gone = ud(b), *never = ud(b);
	xqp_qp *members[] = {s, a2, b1, b2, bq, gone};

	for (xqp_qp *q : members)
		ASSERT_EQ(xqp_attach_mcast(q, g, 0xc000), 0);
	ASSERT_EQ(xqp_detach_mcast(gone, g, 0xc000), 0);
	int i = 0;
	for (xqp_qp *q : {s, a2, b1, b2, bq, gone, never}) {
		Node &n = i < 2 ? a : b;
		ASSERT_EQ(post_recv(q, static_cast<xqp_u64>(i), n.sge(1024 * i, 1024)), 0);
		i++;
	}
	xqp_ah *ah = group_ah(a, g);
	std::memset(a.buf.data() + 60000, 'm', 100);
	xqp_sge sg = a.sge(60000, 100);
	xqp_send_wr w = send_wr(&sg, ah, XQP_MULTICAST_QPN);
	ASSERT_EQ(post_send(s, w), 0);
	auto sc = poll_n(a.scq, 1);
	ASSERT_EQ(sc.size(), 1u);
	EXPECT_EQ(sc[0].status, XQP_WC_SUCCESS);

	auto ra = poll_n(a.rcq, 2), rb = poll_n(b.rcq, 2);
	ASSERT_EQ(ra.size(), 2u);
	ASSERT_EQ(rb.size(), 2u);
	for (auto *r : {&ra, &rb}) {
		for (const xqp_wc &wc : *r) {
			EXPECT_EQ(wc.status, XQP_WC_SUCCESS);
			EXPECT_EQ(wc.byte_len, 140u);
			EXPECT_EQ(wc.src_qp, xqp_qp_num(s));
			EXPECT_EQ(wc.wc_flags, XQP_WC_GRH);
			Node &n = r == &ra ? a : b;
			const char *at = n.buf.data() + 1024 * wc.wr_id;
			EXPECT_EQ(std::memcmp(at + 24, g, 16), 0) << "the GRH's destination";
			EXPECT_EQ(at[40], 'm');
			EXPECT_EQ(at[139], 'm');
		}
	}
	std::vector<u32> got = {ra[0].qp_num, ra[1].qp_num, rb[0].qp_num, rb[1].qp_num};
	std::sort(got.begin(), got.end());
	std::vector<u32> want = {xqp_qp_num(s), xqp_qp_num(a2), xqp_qp_num(b1), xqp_qp_num(b2)};
	std::sort(want.begin(), want.end());
	EXPECT_EQ(got, want);
	EXPECT_EQ(poll_n(b.rcq, 1, 50).size(), 0u);	/* not bq, gone or never */

	/* the group's GID to one QP number: no device has it */
	w = send_wr(&sg, ah, xqp_qp_num(b1));
	ASSERT_EQ(post_send(s, w), 0);
	EXPECT_EQ(poll_n(a.scq, 1).size(), 1u);
	EXPECT_EQ(poll_n(b.rcq, 1, 50).size(), 0u);

	for (xqp_qp *q : {s, a2, b1, b2, bq})
		EXPECT_EQ(xqp_detach_mcast(q, g, 0xc000), 0);
	EXPECT_EQ(xqp_destroy_ah(ah), 0);
	poll_n(b.rcq, 8, 50);
	EXPECT_EQ(counts().mcast_attach + counts2().mcast_attach, 0u);
}

/* rxe's limits, enforced with its errno; a freed group is room again. */
TEST_F(Mcast, LimitsAreEnforcedWithEnomem)
{
	xqp_soft_limits lim;
	xqp_soft_default_limits(&lim);
	lim.max_mcast_grp = 2;
	lim.max_mcast_qp_attach = 2;
	lim.max_total_mcast_qp_attach = 3;
	xqp_soft *small = xqp_soft_create("xqp_soft_mc", &lim);
	ASSERT_FALSE(xqp_is_err(small));
	lim.max_mcast_qp_attach = XQP_RULES_MAX_MCAST_QP_ATTACH + 1;
	EXPECT_EQ(xqp_ptr_err(xqp_soft_create("xqp_soft_mc2", &lim)), -XQP_EINVAL);
	Node n;
	n.init(xqp_soft_device(small), 4096);
	xqp_qp *q[4];
	for (auto &x : q) {
		x = bare_ud(n);
		ASSERT_FALSE(xqp_is_err(x));
	}
	xqp_u8 g1[16], g2[16], g3[16];
	mgid4(g1, 1);
	mgid4(g2, 2);
	mgid4(g3, 3);
	ASSERT_EQ(xqp_attach_mcast(q[0], g1, 0xc000), 0);
	ASSERT_EQ(xqp_attach_mcast(q[1], g1, 0xc000), 0);
	EXPECT_EQ(xqp_attach_mcast(q[2], g1, 0xc000), -XQP_ENOMEM);	/* 2 a group */
	ASSERT_EQ(xqp_attach_mcast(q[2], g2, 0xc000), 0);
	EXPECT_EQ(xqp_attach_mcast(q[3], g2, 0xc000), -XQP_ENOMEM);	/* 3 in all */
	ASSERT_EQ(xqp_detach_mcast(q[1], g1, 0xc000), 0);
	EXPECT_EQ(xqp_attach_mcast(q[3], g3, 0xc000), -XQP_ENOMEM);	/* 2 groups */
	ASSERT_EQ(xqp_detach_mcast(q[2], g2, 0xc000), 0);
	EXPECT_EQ(xqp_attach_mcast(q[3], g3, 0xc000), 0);
	/* an injected failure changes nothing */
	xqp_soft_inject(small, XQP_SOFT_OP_ATTACH_MCAST, -XQP_ENOMEM, 0);
	EXPECT_EQ(xqp_attach_mcast(q[2], g3, 0xc000), -XQP_ENOMEM);
	struct xqp_soft_counts c = {};
	xqp_soft_counts(small, &c);
	EXPECT_EQ(c.mcast_grp, 2u);
	EXPECT_EQ(c.mcast_attach, 2u);

	/* the device goes with QPs attached: its teardown detaches them */
	xqp_soft_destroy(small);
	for (auto *x : q)
		EXPECT_EQ(xqp_destroy_qp(x), 0);
	n.fini();
}

/*
 * Detach and destroy while messages to the group arrive: a delivery that
 * found the QP holds it until done (ASan, TSan).
 */
TEST_F(Mcast, DestroyWhileMessagesArrive)
{
	xqp_u8 g[16];
	mgid4(g, 4);
	xqp_qp *s = ud(a);
	xqp_ah *ah = group_ah(a, g);
	xqp_sge sg = a.sge(0, 64);
	std::atomic<bool> stop{false};
	std::thread sender([&] {
		while (!stop) {
			xqp_send_wr w = send_wr(&sg, ah, XQP_MULTICAST_QPN);
			w.send_flags = 0;
			if (post_send(s, w))
				std::this_thread::yield();
		}
	});
	for (int round = 0; round < 50; round++) {
		xqp_qp *r = bare_ud(b);
		ASSERT_FALSE(xqp_is_err(r));
		connect_qp(r, XQP_QPT_UD, 0, 0);
		for (int k = 0; k < 4; k++)
			ASSERT_EQ(post_recv(r, k, b.sge(128 * k, 128)), 0);
		ASSERT_EQ(xqp_attach_mcast(r, g, 0xc000), 0);
		std::this_thread::sleep_for(std::chrono::microseconds(200));
		ASSERT_EQ(xqp_detach_mcast(r, g, 0xc000), 0);
		ASSERT_EQ(xqp_destroy_qp(r), 0);
		poll_n(b.rcq, 64, 1);
	}
	stop = true;
	sender.join();
	xqp_work_flush_all();
	poll_n(a.scq, 64, 50);
	poll_n(b.rcq, 256, 50);
	EXPECT_EQ(counts2().mcast_grp, 0u);
	EXPECT_EQ(xqp_destroy_ah(ah), 0);
}

/*
 * Many groups, attached and detached in scattered orders: each message
 * reaches exactly its group's QP (the groups are a table sorted by GID,
 * found by binary search); a refused detach leaves the QP attached.
 */
TEST_F(Mcast, ManyGroupsFoundByGid)
{
	constexpr int kGroups = 300;
	xqp_qp *r = ud(b), *s = ud(a);
	xqp_u8 g[16] = {0xff, 0x0e};
	auto gid = [&](int i) {
		g[13] = static_cast<xqp_u8>((i * 97) % 256);	/* scattered */
		g[14] = static_cast<xqp_u8>(i >> 8);
		g[15] = static_cast<xqp_u8>(i);
		return g;
	};
	for (int i = 0; i < kGroups; i++)
		ASSERT_EQ(xqp_attach_mcast(r, gid((i * 7) % kGroups), 0xc000), 0) << i;
	EXPECT_EQ(counts2().mcast_grp, static_cast<u32>(kGroups));
	for (int i : {0, 1, 150, 299}) {
		ASSERT_EQ(post_recv(r, static_cast<xqp_u64>(i), b.sge(0, 1024)), 0);
		xqp_ah *ah = group_ah(a, gid(i));
		xqp_sge sg = a.sge(0, 8);
		xqp_send_wr w = send_wr(&sg, ah, XQP_MULTICAST_QPN);
		ASSERT_EQ(post_send(s, w), 0);
		auto rc = poll_n(b.rcq, 1);
		ASSERT_EQ(rc.size(), 1u) << i;
		EXPECT_EQ(rc[0].wr_id, static_cast<xqp_u64>(i));
		EXPECT_EQ(poll_n(a.scq, 1).size(), 1u);
		EXPECT_EQ(xqp_destroy_ah(ah), 0);
	}
	/* a group nobody joined: nothing arrives */
	ASSERT_EQ(post_recv(r, 9999, b.sge(0, 1024)), 0);
	xqp_ah *ah = group_ah(a, gid(kGroups + 5));
	xqp_sge sg = a.sge(0, 8);
	xqp_send_wr w = send_wr(&sg, ah, XQP_MULTICAST_QPN);
	ASSERT_EQ(post_send(s, w), 0);
	EXPECT_EQ(poll_n(a.scq, 1).size(), 1u);
	EXPECT_EQ(poll_n(b.rcq, 1, 50).size(), 0u);
	EXPECT_EQ(xqp_destroy_ah(ah), 0);

	xqp_soft_inject(soft2_, XQP_SOFT_OP_DETACH_MCAST, -XQP_ENOMEM, 0);
	EXPECT_EQ(xqp_detach_mcast(r, gid(0), 0xc000), -XQP_ENOMEM);
	EXPECT_EQ(counts2().mcast_attach, static_cast<u32>(kGroups));
	for (int i = kGroups - 1; i >= 0; i--)
		ASSERT_EQ(xqp_detach_mcast(r, gid((i * 11) % kGroups), 0xc000), 0) << i;
	EXPECT_EQ(counts2().mcast_grp, 0u);
	EXPECT_EQ(counts2().mcast_attach, 0u);
}

} // namespace
