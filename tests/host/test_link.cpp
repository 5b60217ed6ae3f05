// SPDX-License-Identifier: GPL-2.0
/*
 * Linked soft devices (drivers/soft/link.c): a RoCE port that follows its
 * link, a GID table mirrored from ib_core, device events to clients, and
 * the fabric reaching a linked device by GID and never by LID.
 */
#include <vector>

#include "traffic.h"

namespace {

/* Stands for the struct net_device the kernel passes; never dereferenced. */
alignas(8) char fake_netdev[2][64];

struct net_device *ndev(int i)
{
	return reinterpret_cast<struct net_device *>(fake_netdev[i]);
}

/* What a client's event() hook saw. */
struct SeenEvent {
	xqp_device *dev;
	int type;
	u32 port;
};
std::vector<SeenEvent> *events_seen;
int client_marker;

void *ev_add(xqp_device *) { return &client_marker; }
void ev_remove(xqp_device *, void *) {}
void ev_event(xqp_device *dev, void *data, xqp_event *ev)
{
	EXPECT_EQ(data, &client_marker);
	EXPECT_EQ(ev->device, dev);
	events_seen->push_back({dev, ev->event, ev->element.port_num});
}

/* An IPv4-mapped GID (::ffff:10.0.0.@host), as ib_core makes for RoCE. */
/* @g as ib_core's add_gid hands it over: a RoCE v2 entry on netdev 7. */
struct Entry {
	xqp_gid_entry e;
	operator const xqp_gid_entry *() const { return &e; }
};
Entry v2(const xqp_u8 *g)
{
	Entry x = {};
	std::memcpy(x.e.gid, g, 16);
	x.e.gid_type = XQP_GID_TYPE_ROCE_V2;
	x.e.ndev_ifindex = 7;
	return x;
}

void v4_gid(xqp_u8 gid[16], int host)
{
	std::memset(gid, 0, 16);
	gid[10] = gid[11] = 0xff;
	gid[12] = 10;
	gid[15] = static_cast<xqp_u8>(host);
}

class Link : public Core {
protected:
	void SetUp() override
	{
		Core::SetUp();
		events_seen = &seen_;
		client_.name = "link-test";
		client_.add = ev_add;
		client_.remove = ev_remove;
		client_.event = ev_event;
		ASSERT_EQ(xqp_register_client(&client_), 0);
		for (int i = 0; i < 2; i++) {
			char name[16] = "xqp_link0";
			name[8] = static_cast<char>('0' + i);
			l_[i] = xqp_soft_create_linked(name, ndev(i), 1, XQP_MTU_1024);
			ASSERT_FALSE(xqp_is_err(l_[i])) << xqp_ptr_err(l_[i]);
		}
	}
	void TearDown() override
	{
		for (xqp_qp *qp : qps_)
			EXPECT_EQ(xqp_destroy_qp(qp), 0);
		a_.fini();
		b_.fini();
		xqp_work_flush_all();
		for (xqp_soft *s : l_)
			xqp_soft_destroy(s);
		xqp_unregister_client(&client_);
		events_seen = nullptr;
		Core::TearDown();
	}
	xqp_device *ldev(int i) { return xqp_soft_device(l_[i]); }
	xqp_port_attr port(int i)
	{
		xqp_port_attr p = {};
		EXPECT_EQ(xqp_query_port(ldev(i), 1, &p), 0);
		return p;
	}
	xqp_qp *rc_qp(Node &n)
	{
		xqp_qp_init_attr init = {};
		init.qp_type = XQP_QPT_RC;
		init.send_cq = n.scq;
		init.recv_cq = n.rcq;
		init.cap.max_send_wr = init.cap.max_recv_wr = 8;
		init.cap.max_send_sge = init.cap.max_recv_sge = 1;
		init.sq_sig_type = XQP_SIGNAL_ALL_WR;
		xqp_qp *q = xqp_create_qp_user(n.dev, n.pd, &init, nullptr, nullptr, "test");
		EXPECT_FALSE(xqp_is_err(q)) << xqp_ptr_err(q);
		if (!xqp_is_err(q))
			qps_.push_back(q);
		return q;
	}

	xqp_client client_ = {};
	std::vector<SeenEvent> seen_;
	xqp_soft *l_[2] = {};
	Node a_, b_;
	std::vector<xqp_qp *> qps_;
};

} // namespace

TEST_F(Link, LinkedDeviceIsARoCEPortOnItsLink)
{
	xqp_port_attr p = port(0);
	EXPECT_EQ(p.link_layer, XQP_LINK_LAYER_ETHERNET);
	EXPECT_EQ(p.lid, 0);			/* reached by GID alone, as rxe */
	EXPECT_EQ(p.sm_lid, 0);
	EXPECT_EQ(p.state, static_cast<u32>(XQP_PORT_ACTIVE));
	EXPECT_EQ(p.phys_state, XQP_PORT_PHYS_STATE_LINK_UP);
	EXPECT_EQ(p.active_mtu, static_cast<u32>(XQP_MTU_1024));
	EXPECT_EQ(p.max_mtu, static_cast<u32>(XQP_MTU_4096));
	EXPECT_EQ(p.gid_tbl_len, static_cast<u32>(XQP_RULES_ROCE_GID_TBL_LEN));

	EXPECT_EQ(xqp_device_netdev(ldev(0), 1), ndev(0));
	EXPECT_EQ(xqp_device_netdev(ldev(1), 1), ndev(1));
	EXPECT_EQ(xqp_device_netdev(ldev(0), 2), nullptr);	/* no such port */
	EXPECT_EQ(xqp_device_netdev(dev(), 1), nullptr);	/* not linked */
	xqp_port_attr ib = {};
	ASSERT_EQ(xqp_query_port(dev(), 1, &ib), 0);
	EXPECT_EQ(ib.link_layer, XQP_LINK_LAYER_INFINIBAND);
	EXPECT_NE(ib.lid, 0);
}

TEST_F(Link, BadLinksAreRefusedAndLeaveNothing)
{
	xqp_soft *s = xqp_soft_create_linked("xqp_bad", nullptr, 1, XQP_MTU_1024);
	EXPECT_EQ(xqp_ptr_err(s), -XQP_EINVAL);
	s = xqp_soft_create_linked("xqp_bad", ndev(0), 1, static_cast<xqp_mtu>(0));
	EXPECT_EQ(xqp_ptr_err(s), -XQP_EINVAL);
	s = xqp_soft_create_linked("xqp_bad", ndev(0), 1, static_cast<xqp_mtu>(6));
	EXPECT_EQ(xqp_ptr_err(s), -XQP_EINVAL);
	EXPECT_EQ(xqp_soft_link_update(soft_, 1, XQP_MTU_1024), -XQP_EINVAL);
	EXPECT_EQ(xqp_modify_gid(dev(), 1, 0, nullptr), -XQP_EOPNOTSUPP);	/* unlinked: none */
	EXPECT_EQ(xqp_modify_gid(ldev(0), 2, 0, nullptr), -XQP_EINVAL);	/* no port 2 */
	EXPECT_EQ(xqp_soft_link_update(l_[0], 1, static_cast<xqp_mtu>(0)), -XQP_EINVAL);
	EXPECT_TRUE(seen_.empty());
}

TEST_F(Link, PortFollowsTheLinkAndTellsClientsOfChanges)
{
	ASSERT_EQ(xqp_soft_link_update(l_[0], 0, XQP_MTU_1024), 0);
	xqp_port_attr p = port(0);
	EXPECT_EQ(p.state, static_cast<u32>(XQP_PORT_DOWN));
	EXPECT_EQ(p.phys_state, XQP_PORT_PHYS_STATE_DISABLED);
	ASSERT_EQ(seen_.size(), 1u);
	EXPECT_EQ(seen_[0].dev, ldev(0));
	EXPECT_EQ(seen_[0].type, XQP_EVENT_PORT_ERR);
	EXPECT_EQ(seen_[0].port, 1u);

	/* no change of state, no event; the MTU follows all the same */
	ASSERT_EQ(xqp_soft_link_update(l_[0], 0, XQP_MTU_2048), 0);
	EXPECT_EQ(seen_.size(), 1u);
	EXPECT_EQ(port(0).active_mtu, static_cast<u32>(XQP_MTU_2048));

	ASSERT_EQ(xqp_soft_link_update(l_[0], 1, XQP_MTU_4096), 0);
	ASSERT_EQ(seen_.size(), 2u);
	EXPECT_EQ(seen_[1].type, XQP_EVENT_PORT_ACTIVE);
	EXPECT_EQ(port(0).state, static_cast<u32>(XQP_PORT_ACTIVE));
	EXPECT_EQ(port(1).state, static_cast<u32>(XQP_PORT_ACTIVE));	/* the other link */
}

TEST_F(Link, GidTableMirrorsWhatIsSetAndSaysSo)
{
	xqp_u8 g[16], got[16];
	v4_gid(g, 1);
	const int last = XQP_RULES_ROCE_GID_TBL_LEN - 1;

	ASSERT_EQ(xqp_query_gid(ldev(0), 1, 3, got), 0);
	EXPECT_EQ(std::memcmp(got, std::vector<xqp_u8>(16, 0).data(), 16), 0);	/* empty */
	ASSERT_EQ(xqp_modify_gid(ldev(0), 1, 3, v2(g)), 0);
	ASSERT_EQ(xqp_query_gid(ldev(0), 1, 3, got), 0);
	EXPECT_EQ(std::memcmp(got, g, 16), 0);
	ASSERT_EQ(seen_.size(), 1u);
	EXPECT_EQ(seen_[0].type, XQP_EVENT_GID_CHANGE);

	ASSERT_EQ(xqp_modify_gid(ldev(0), 1, last, v2(g)), 0);	/* the last entry */
	ASSERT_EQ(xqp_query_gid(ldev(0), 1, last, got), 0);
	EXPECT_EQ(std::memcmp(got, g, 16), 0);
	EXPECT_EQ(xqp_modify_gid(ldev(0), 1, last + 1, v2(g)), -XQP_EINVAL);
	EXPECT_EQ(xqp_query_gid(ldev(0), 1, last + 1, got), -XQP_EINVAL);

	ASSERT_EQ(xqp_modify_gid(ldev(0), 1, 3, nullptr), 0);
	ASSERT_EQ(xqp_query_gid(ldev(0), 1, 3, got), 0);
	EXPECT_EQ(std::memcmp(got, std::vector<xqp_u8>(16, 0).data(), 16), 0);
	EXPECT_EQ(seen_.size(), 3u);
}

/* What libibverbs' ibv_query_gid_ex() gets through the char device's QUERY_GID_ENTRY. */
TEST_F(Link, GidEntriesKeepTheirTypeAndNetdev)
{
	xqp_u8 g[16], raw[16];
	xqp_gid_entry got;
	v4_gid(g, 1);

	EXPECT_EQ(xqp_query_gid_entry(ldev(0), 1, 3, &got), -XQP_ENODATA);	/* empty */
	ASSERT_EQ(xqp_modify_gid(ldev(0), 1, 3, v2(g)), 0);
	ASSERT_EQ(xqp_query_gid_entry(ldev(0), 1, 3, &got), 0);
	EXPECT_EQ(std::memcmp(got.gid, g, 16), 0);
	EXPECT_EQ(got.gid_type, static_cast<xqp_u32>(XQP_GID_TYPE_ROCE_V2));
	EXPECT_EQ(got.ndev_ifindex, 7u);

	Entry v1 = v2(g);
	v1.e.gid_type = XQP_GID_TYPE_ROCE_V1;
	v1.e.ndev_ifindex = 9;
	ASSERT_EQ(xqp_modify_gid(ldev(0), 1, 2, v1), 0);
	ASSERT_EQ(xqp_query_gid_entry(ldev(0), 1, 2, &got), 0);
	EXPECT_EQ(got.gid_type, static_cast<xqp_u32>(XQP_GID_TYPE_ROCE_V1));
	EXPECT_EQ(got.ndev_ifindex, 9u);

	Entry bad = v2(g);
	bad.e.gid_type = 3;
	EXPECT_EQ(xqp_modify_gid(ldev(0), 1, 4, bad), -XQP_EINVAL);
	EXPECT_EQ(xqp_query_gid_entry(ldev(0), 1, 4, &got), -XQP_ENODATA);
	EXPECT_EQ(xqp_query_gid_entry(ldev(0), 1, XQP_RULES_ROCE_GID_TBL_LEN, &got), -XQP_EINVAL);
	EXPECT_EQ(xqp_query_gid_entry(ldev(0), 1, -1, &got), -XQP_EINVAL);
	EXPECT_EQ(xqp_query_gid_entry(ldev(0), 2, 0, &got), -XQP_EINVAL);

	ASSERT_EQ(xqp_modify_gid(ldev(0), 1, 3, nullptr), 0);
	EXPECT_EQ(xqp_query_gid_entry(ldev(0), 1, 3, &got), -XQP_ENODATA);

	/* an unlinked device: its one GID, of type IB, on no netdev */
	ASSERT_EQ(xqp_query_gid(dev(), 1, 0, raw), 0);
	ASSERT_EQ(xqp_query_gid_entry(dev(), 1, 0, &got), 0);
	EXPECT_EQ(std::memcmp(got.gid, raw, 16), 0);
	EXPECT_EQ(got.gid_type, static_cast<xqp_u32>(XQP_GID_TYPE_IB));
	EXPECT_EQ(got.ndev_ifindex, 0u);
	EXPECT_EQ(xqp_query_gid_entry(dev(), 1, 1, &got), -XQP_EINVAL);
}

TEST_F(Link, LinkedDevicesReachEachOtherByGidNotByLid)
{
	xqp_u8 ga[16], gb[16];
	v4_gid(ga, 1);
	v4_gid(gb, 2);
	ASSERT_EQ(xqp_modify_gid(ldev(0), 1, 1, v2(ga)), 0);
	ASSERT_EQ(xqp_modify_gid(ldev(1), 1, 1, v2(gb)), 0);
	a_.init(ldev(0));
	b_.init(ldev(1));
	xqp_qp *qa = rc_qp(a_), *qb = rc_qp(b_);
	ASSERT_TRUE(qa && qb && !xqp_is_err(qa) && !xqp_is_err(qb));
	connect_qp(qa, XQP_QPT_RC, 0, xqp_qp_num(qb), true, 0xe, 7, 1, 0x11111111, 14, 7, gb);
	connect_qp(qb, XQP_QPT_RC, 0, xqp_qp_num(qa), true, 0xe, 7, 1, 0x11111111, 14, 7, ga);

	ASSERT_EQ(post_recv(qb, 7, b_.sge(0, 256)), 0);
	std::memset(a_.buf.data(), 'g', 200);
	xqp_sge s = a_.sge(0, 200);
	xqp_send_wr w = send_wr(&s);
	ASSERT_EQ(post_send(qa, w), 0);
	auto rc = poll_n(b_.rcq, 1);
	ASSERT_EQ(rc.size(), 1u);
	EXPECT_EQ(rc[0].status, XQP_WC_SUCCESS);
	EXPECT_EQ(rc[0].byte_len, 200u);
	EXPECT_EQ(std::memcmp(b_.buf.data(), a_.buf.data(), 200), 0);
	auto sc = poll_n(a_.scq, 1);
	ASSERT_EQ(sc.size(), 1u);
	EXPECT_EQ(sc[0].status, XQP_WC_SUCCESS);

	/* once b's GID is gone nothing answers it: the send runs out of retries */
	ASSERT_EQ(xqp_modify_gid(ldev(1), 1, 1, nullptr), 0);
	ASSERT_EQ(post_send(qa, w), 0);
	sc = poll_n(a_.scq, 1, 30000);
	ASSERT_EQ(sc.size(), 1u);
	EXPECT_NE(sc[0].status, XQP_WC_SUCCESS);
}

TEST_F(Link, LidRoutingNeverReachesALinkedDevice)
{
	/* The slot's LID that an unlinked device would have had reaches nothing. */
	a_.init(dev());
	b_.init(ldev(0));
	xqp_qp *qa = rc_qp(a_), *qb = rc_qp(b_);
	ASSERT_TRUE(qa && qb && !xqp_is_err(qa) && !xqp_is_err(qb));
	connect_qp(qa, XQP_QPT_RC, xqp_soft_lid(l_[0]), xqp_qp_num(qb), true, 0xe, 7, 1,
		   0x11111111, 8, 1);
	connect_qp(qb, XQP_QPT_RC, xqp_soft_lid(soft_), xqp_qp_num(qa));
	ASSERT_EQ(post_recv(qb, 7, b_.sge(0, 256)), 0);
	xqp_sge s = a_.sge(0, 16);
	xqp_send_wr w = send_wr(&s);
	ASSERT_EQ(post_send(qa, w), 0);
	auto sc = poll_n(a_.scq, 1, 30000);
	ASSERT_EQ(sc.size(), 1u);
	EXPECT_NE(sc[0].status, XQP_WC_SUCCESS);
	EXPECT_TRUE(poll_n(b_.rcq, 1, 50).empty());
}

/*
 * UD by GID between linked devices: the receive buffer starts with what
 * the message arrived with, 20 zero bytes and the sender's IPv4 header for
 * IPv4 GIDs (rxe's layout, which ibv_init_ah_from_wc() parses), an IPv6
 * header's layout with both GIDs otherwise; the completion has the GRH
 * flag, the sender's QP and no LID.
 */
TEST_F(Link, UdByGidWritesTheHeadersItArrivedWith)
{
	xqp_u8 ga[16], gb[16], ll[16] = {0xfe, 0x80};
	v4_gid(ga, 1);
	v4_gid(gb, 2);
	ll[15] = 7;
	ASSERT_EQ(xqp_modify_gid(ldev(0), 1, 0, v2(ll)), 0);
	ASSERT_EQ(xqp_modify_gid(ldev(0), 1, 1, v2(ga)), 0);
	ASSERT_EQ(xqp_modify_gid(ldev(1), 1, 1, v2(gb)), 0);
	xqp_u8 llb[16] = {0xfe, 0x80};
	llb[15] = 8;
	ASSERT_EQ(xqp_modify_gid(ldev(1), 1, 0, v2(llb)), 0);
	a_.init(ldev(0));
	b_.init(ldev(1));
	xqp_qp_init_attr init = {};
	init.qp_type = XQP_QPT_UD;
	init.cap.max_send_wr = init.cap.max_recv_wr = 4;
	init.cap.max_send_sge = init.cap.max_recv_sge = 1;
	init.send_cq = a_.scq;
	init.recv_cq = a_.rcq;
	xqp_qp *ua = xqp_create_qp_user(a_.dev, a_.pd, &init, nullptr, nullptr, "test");
	init.send_cq = b_.scq;
	init.recv_cq = b_.rcq;
	xqp_qp *ub = xqp_create_qp_user(b_.dev, b_.pd, &init, nullptr, nullptr, "test");
	ASSERT_FALSE(xqp_is_err(ua) || xqp_is_err(ub));
	qps_.push_back(ua);
	qps_.push_back(ub);
	connect_qp(ua, XQP_QPT_UD, 0, 0);
	connect_qp(ub, XQP_QPT_UD, 0, 0);

	struct {
		int sgid_index;
		const xqp_u8 *dgid;
	} cases[] = { {1, gb}, {0, llb} };
	for (auto &c : cases) {
		xqp_ah_attr av = {};
		av.is_global = 1;
		std::memcpy(av.dgid, c.dgid, 16);
		av.sgid_index = static_cast<xqp_u8>(c.sgid_index);
		av.hop_limit = 64;
		av.traffic_class = 0x10;
		av.port_num = 1;
		xqp_ah *ah = xqp_create_ah(a_.pd, &av);
		ASSERT_FALSE(xqp_is_err(ah));
		std::memset(b_.buf.data(), 0xee, 40);
		ASSERT_EQ(post_recv(ub, 1, b_.sge(0, 40 + 100)), 0);
		xqp_sge s = a_.sge(0, 100);
		xqp_send_wr w = send_wr(&s, ah, xqp_qp_num(ub));
		ASSERT_EQ(post_send(ua, w), 0);
		auto r = poll_n(b_.rcq, 1);
		ASSERT_EQ(r.size(), 1u);
		EXPECT_EQ(r[0].status, XQP_WC_SUCCESS);
		EXPECT_EQ(r[0].wc_flags & XQP_WC_GRH, XQP_WC_GRH);
		EXPECT_EQ(r[0].src_qp, xqp_qp_num(ua));
		EXPECT_EQ(r[0].slid, 0);
		EXPECT_EQ(r[0].byte_len, 140u);
		const auto *h = reinterpret_cast<const xqp_u8 *>(b_.buf.data());
		if (c.sgid_index == 1) {
			for (int i = 0; i < 20; i++)
				EXPECT_EQ(h[i], 0) << i;
			const xqp_u8 *ip = h + 20;
			EXPECT_EQ(ip[0], 0x45);
			EXPECT_EQ(ip[1], 0x10);			/* TOS = traffic class */
			EXPECT_EQ(ip[2] << 8 | ip[3], 20 + 8 + 12 + 8 + 100 + 4);
			EXPECT_EQ(ip[8], 64);			/* TTL = hop limit */
			EXPECT_EQ(ip[9], 17);
			EXPECT_EQ(std::memcmp(ip + 12, ga + 12, 4), 0);
			EXPECT_EQ(std::memcmp(ip + 16, gb + 12, 4), 0);
			xqp_u32 sum = 0;	/* a valid header sums to 0xffff */
			for (int i = 0; i < 20; i += 2)
				sum += static_cast<xqp_u32>(ip[i] << 8 | ip[i + 1]);
			while (sum >> 16)
				sum = (sum & 0xffff) + (sum >> 16);
			EXPECT_EQ(sum, 0xffffu);
		} else {
			EXPECT_EQ(h[0] >> 4, 6);
			EXPECT_EQ(h[6], 17);			/* RoCE v2: UDP */
			EXPECT_EQ(h[7], 64);
			EXPECT_EQ(std::memcmp(h + 8, ll, 16), 0);	/* SGID */
			EXPECT_EQ(std::memcmp(h + 24, llb, 16), 0);	/* DGID */
		}
		EXPECT_EQ(poll_n(a_.scq, 1).size(), 1u);
		EXPECT_EQ(xqp_destroy_ah(ah), 0);
	}
}

/*
 * A link's device made with the n-th allocation failing, for every n until
 * it is made: each failure is -ENOMEM and leaves nothing (no allocation, no
 * device a client heard of); the made device routes by the GID then set.
 */
TEST_F(Link, LinkedDeviceAllocationFailureSweep)
{
	int n = 0;
	for (;; n++) {
		xqp_rcu_barrier();
		long before = xqp_host_live_allocs();
		size_t heard = seen_.size();
		xqp_host_fail_alloc_after(n);
		xqp_soft *s = xqp_soft_create_linked("xqp_link_sweep", ndev(0), 1, XQP_MTU_1024);
		xqp_host_fail_alloc_after(-1);
		if (!xqp_is_err(s)) {
			xqp_u8 g[16];
			v4_gid(g, 9);
			EXPECT_EQ(xqp_modify_gid(xqp_soft_device(s), 1, 3, v2(g)), 0);
			xqp_u8 back[16];
			EXPECT_EQ(xqp_query_gid(xqp_soft_device(s), 1, 3, back), 0);
			EXPECT_EQ(std::memcmp(g, back, 16), 0);
			xqp_soft_destroy(s);
			break;
		}
		EXPECT_EQ(xqp_ptr_err(s), -XQP_ENOMEM);
		EXPECT_EQ(seen_.size(), heard);
		xqp_rcu_barrier();
		ASSERT_EQ(xqp_host_live_allocs(), before) << "leak with allocation " << n << " failing";
		ASSERT_LT(n, 64) << "never made";
	}
	EXPECT_GE(n, 2);	/* at least the soft device and its GID table */
}
