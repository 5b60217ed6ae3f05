// SPDX-License-Identifier: GPL-2.0
/*
 * The soft device on its own: its ops called directly (no core objects), on
 * the strict host seam, with live allocations and driver objects counted.
 */
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <functional>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

extern "C" {
#include "xqp/driver.h"
#include "soft/soft.h"
}
#include "seam_host.h"

namespace {

constexpr xqp_u32 kQpnSpace = 1u << 24;

struct Qp {
	void *drv = nullptr;
	xqp_u32 num = 0;
	xqp_qp_cap cap = {};
};

bool counts_zero(const struct xqp_soft_counts &c)
{
	return !c.pd && !c.cq && !c.xrcd && !c.srq && !c.qp;
}

void expect_ah_eq(const xqp_ah_attr &a, const xqp_ah_attr &b)
{
	EXPECT_EQ(std::memcmp(a.dgid, b.dgid, sizeof(a.dgid)), 0);
	EXPECT_EQ(a.flow_label, b.flow_label);
	EXPECT_EQ(a.dlid, b.dlid);
	EXPECT_EQ(a.sgid_index, b.sgid_index);
	EXPECT_EQ(a.hop_limit, b.hop_limit);
	EXPECT_EQ(a.traffic_class, b.traffic_class);
	EXPECT_EQ(a.sl, b.sl);
	EXPECT_EQ(a.src_path_bits, b.src_path_bits);
	EXPECT_EQ(a.static_rate, b.static_rate);
	EXPECT_EQ(a.port_num, b.port_num);
	EXPECT_EQ(a.is_global, b.is_global);
}

xqp_ah_attr make_ah(xqp_u8 seed)
{
	xqp_ah_attr ah = {};
	for (int i = 0; i < 16; i++)
		ah.dgid[i] = static_cast<xqp_u8>(seed + i);
	ah.flow_label = 0xabcde;
	ah.dlid = static_cast<xqp_u16>(0x1200 + seed);
	ah.sgid_index = 2;
	ah.hop_limit = 64;
	ah.traffic_class = 3;
	ah.sl = 5;
	ah.src_path_bits = 1;
	ah.static_rate = 2;
	ah.port_num = 1;
	ah.is_global = 1;
	return ah;
}

} // namespace

class Soft : public ::testing::Test {
protected:
	void SetUp() override
	{
		allocs_before_ = xqp_host_live_allocs();
		warns_before_ = xqp_host_warn_count();
		soft_ = xqp_soft_create("xqp_soft_unit", nullptr);
		ASSERT_FALSE(xqp_is_err(soft_));
		ops_ = xqp_soft_ops();
	}
	void TearDown() override
	{
		xqp_host_fail_alloc_after(-1);
		if (!soft_ || xqp_is_err(soft_))
			return;
		struct xqp_soft_counts c;
		xqp_soft_counts(soft_, &c);
		EXPECT_TRUE(counts_zero(c)) << "pd " << c.pd << " cq " << c.cq << " xrcd "
					    << c.xrcd << " srq " << c.srq << " qp " << c.qp;
		xqp_soft_destroy(soft_);
		EXPECT_EQ(xqp_host_live_allocs(), allocs_before_) << "leaked allocations";
		EXPECT_EQ(xqp_host_warn_count(), warns_before_) << "warnings";
	}

	struct xqp_soft_counts counts()
	{
		struct xqp_soft_counts c;
		xqp_soft_counts(soft_, &c);
		return c;
	}

	void *pd()
	{
		void *p = nullptr;
		EXPECT_EQ(ops_->alloc_pd(soft_, &p), 0);
		return p;
	}
	void *cq(int cqe = 16, int *granted = nullptr)
	{
		void *c = nullptr;
		int g = cqe;
		EXPECT_EQ(ops_->create_cq(soft_, cqe, &c, &g, nullptr), 0);
		if (granted)
			*granted = g;
		return c;
	}
	void *xrcd()
	{
		void *x = nullptr;
		EXPECT_EQ(ops_->alloc_xrcd(soft_, &x), 0);
		return x;
	}

	int create_qp(xqp_qp_type type, const xqp_qp_cap &cap, Qp *out,
		      void *srq = nullptr, xqp_u32 create_flags = 0)
	{
		xqp_drv_qp_create req = {};
		xqp_drv_qp_created created = {};

		req.qp_type = type;
		req.cap = cap;
		req.srq = srq;
		req.create_flags = create_flags;
		int ret = ops_->create_qp(soft_, &req, &created);
		if (!ret) {
			out->drv = created.drv_qp;
			out->num = created.qp_num;
			out->cap = created.cap;
		}
		return ret;
	}
	Qp qp(xqp_qp_type type = XQP_QPT_RC)
	{
		Qp q;
		xqp_qp_cap cap = { 16, 16, 1, 1, 0 };
		EXPECT_EQ(create_qp(type, cap, &q), 0);
		return q;
	}
	void destroy(const Qp &q) { EXPECT_EQ(ops_->destroy_qp(soft_, q.drv), 0); }

	int modify(const Qp &q, xqp_qp_attr attr, int mask)
	{
		return ops_->modify_qp(soft_, q.drv, &attr, mask);
	}
	xqp_qp_attr query(const Qp &q)
	{
		xqp_qp_attr attr;
		std::memset(&attr, 0xa5, sizeof(attr));
		EXPECT_EQ(ops_->query_qp(soft_, q.drv, &attr, -1), 0);
		return attr;
	}
	xqp_qp_state state(const Qp &q) { return query(q).qp_state; }

	xqp_soft *soft_ = nullptr;
	const xqp_device_ops *ops_ = nullptr;
	long allocs_before_ = 0;
	long warns_before_ = 0;
};

/* ---- device ------------------------------------------------------------ */

TEST_F(Soft, QueryDevice)
{
	xqp_device_attr a = {};
	ASSERT_EQ(ops_->query_device(soft_, &a), 0);
	EXPECT_TRUE(a.device_cap_flags & XQP_DEVICE_XRC);
	EXPECT_EQ(a.max_qp, XQP_SOFT_MAX_QP);
	EXPECT_EQ(a.max_qp_wr, 16384u);
	EXPECT_EQ(a.max_send_sge, 32u);
	EXPECT_EQ(a.max_recv_sge, 32u);
	EXPECT_EQ(a.max_inline_data, 256u);
	EXPECT_EQ(a.max_cqe, 65536u);
	EXPECT_GT(a.max_pd, 0u);
	EXPECT_GT(a.max_xrcd, 0u);
	EXPECT_GT(a.max_srq, 0u);
	EXPECT_GT(a.max_srq_wr, 0u);
	EXPECT_GT(a.max_srq_sge, 0u);
	EXPECT_EQ(a.phys_port_cnt, 1);
	EXPECT_GT(a.max_pkeys, 0);
	EXPECT_NE(a.node_guid, 0u);
	EXPECT_NE(xqp_soft_device(soft_), nullptr);

	/* A second device has its own GUID. */
	xqp_soft *other = xqp_soft_create("xqp_soft_unit1", nullptr);
	ASSERT_FALSE(xqp_is_err(other));
	xqp_device_attr b = {};
	ASSERT_EQ(ops_->query_device(other, &b), 0);
	EXPECT_NE(a.node_guid, b.node_guid);
	xqp_soft_destroy(other);
}

TEST_F(Soft, QueryPort)
{
	xqp_port_attr a;
	std::memset(&a, 0xa5, sizeof(a));
	ASSERT_EQ(ops_->query_port(soft_, 1, &a), 0);
	EXPECT_EQ(a.state, XQP_PORT_ACTIVE);
	EXPECT_EQ(a.max_mtu, XQP_MTU_4096);
	EXPECT_EQ(a.active_mtu, XQP_MTU_4096);
	EXPECT_EQ(a.gid_tbl_len, 1u);
	EXPECT_EQ(a.port_cap_flags, 0u);
	EXPECT_EQ(a.max_msg_sz, 0x800000u);
	EXPECT_EQ(a.bad_pkey_cntr, 0u);
	EXPECT_EQ(a.qkey_viol_cntr, 0u);
	EXPECT_EQ(a.pkey_tbl_len, 64);
	EXPECT_EQ(a.lid, 1);
	EXPECT_EQ(a.sm_lid, 1);
	EXPECT_EQ(a.lmc, 0);
	EXPECT_EQ(a.max_vl_num, 1);
	EXPECT_EQ(a.sm_sl, 0);
	EXPECT_EQ(a.subnet_timeout, 0);
	EXPECT_EQ(a.init_type_reply, 0);
	EXPECT_EQ(a.active_width, XQP_WIDTH_1X);
	EXPECT_EQ(a.active_speed, XQP_SPEED_SDR);
	EXPECT_EQ(a.phys_state, XQP_PORT_PHYS_STATE_LINK_UP);
	EXPECT_EQ(a.link_layer, XQP_LINK_LAYER_INFINIBAND);

	/* The one port only (the core checks first; the driver too). */
	xqp_port_attr b;
	std::memset(&b, 0x5a, sizeof(b));
	EXPECT_EQ(ops_->query_port(soft_, 0, &b), -XQP_EINVAL);
	EXPECT_EQ(ops_->query_port(soft_, 2, &b), -XQP_EINVAL);
	EXPECT_EQ(ops_->query_port(soft_, 0xffffffffu, &b), -XQP_EINVAL);
	EXPECT_EQ(b.state, 0x5a5a5a5au) << "a failed query writes nothing";
}

TEST_F(Soft, QueryPortFollowsTheLimits)
{
	struct xqp_soft_limits lim;
	xqp_soft_default_limits(&lim);
	lim.max_pkeys = 128;
	xqp_soft *s = xqp_soft_create("xqp_soft_pkeys", &lim);
	ASSERT_FALSE(xqp_is_err(s));
	xqp_port_attr a = {};
	ASSERT_EQ(ops_->query_port(s, 1, &a), 0);
	EXPECT_EQ(a.pkey_tbl_len, 128);
	xqp_soft_destroy(s);
}

TEST_F(Soft, CustomLimits)
{
	struct xqp_soft_limits lim;
	xqp_soft_default_limits(&lim);
	EXPECT_EQ(lim.max_qp, XQP_SOFT_MAX_QP);
	EXPECT_EQ(lim.max_qp_wr, 16384u);
	EXPECT_EQ(lim.max_sge, 32u);
	EXPECT_EQ(lim.max_inline, 256u);
	EXPECT_EQ(lim.max_cqe, 65536u);

	lim.max_qp = 2;
	lim.max_qp_wr = 100;
	lim.max_pd = 1;
	xqp_soft *s = xqp_soft_create("xqp_soft_small", &lim);
	ASSERT_FALSE(xqp_is_err(s));
	xqp_device_attr a = {};
	ASSERT_EQ(ops_->query_device(s, &a), 0);
	EXPECT_EQ(a.max_qp, 2u);
	EXPECT_EQ(a.max_qp_wr, 100u);

	void *p1 = nullptr, *p2 = nullptr;
	EXPECT_EQ(ops_->alloc_pd(s, &p1), 0);
	EXPECT_EQ(ops_->alloc_pd(s, &p2), -XQP_ENOMEM);

	xqp_drv_qp_create req = {};
	xqp_drv_qp_created out[3] = {};
	req.qp_type = XQP_QPT_RC;
	req.cap.max_send_wr = 100;
	EXPECT_EQ(ops_->create_qp(s, &req, &out[0]), 0);
	EXPECT_EQ(out[0].cap.max_send_wr, 100u);	/* rounding stops at the limit */
	req.cap.max_send_wr = 101;
	EXPECT_EQ(ops_->create_qp(s, &req, &out[1]), -XQP_EINVAL);
	req.cap.max_send_wr = 1;
	EXPECT_EQ(ops_->create_qp(s, &req, &out[1]), 0);
	EXPECT_EQ(ops_->create_qp(s, &req, &out[2]), -XQP_ENOMEM);	/* max_qp */
	EXPECT_EQ(ops_->destroy_qp(s, out[1].drv_qp), 0);
	EXPECT_EQ(ops_->create_qp(s, &req, &out[2]), 0);

	EXPECT_EQ(ops_->destroy_qp(s, out[0].drv_qp), 0);
	EXPECT_EQ(ops_->destroy_qp(s, out[2].drv_qp), 0);
	EXPECT_EQ(ops_->dealloc_pd(s, p1), 0);
	xqp_soft_destroy(s);
}

TEST_F(Soft, ImpossibleLimitsRejected)
{
	struct xqp_soft_limits lim;
	xqp_soft_default_limits(&lim);
	lim.max_qp = XQP_SOFT_MAX_QP + 1;
	xqp_soft *s = xqp_soft_create("xqp_soft_bad", &lim);
	ASSERT_TRUE(xqp_is_err(s));
	EXPECT_EQ(xqp_ptr_err(s), -XQP_EINVAL);
	xqp_soft_destroy(s);	/* ignored */
}

TEST_F(Soft, CreateAllocationFailuresLeaveNothing)
{
	long base = xqp_host_live_allocs();
	for (long n = 0;; n++) {
		ASSERT_LT(n, 100);
		xqp_host_fail_alloc_after(n);
		xqp_soft *s = xqp_soft_create("xqp_soft_sweep", nullptr);
		xqp_host_fail_alloc_after(-1);
		if (!xqp_is_err(s)) {
			xqp_soft_destroy(s);
			EXPECT_GE(n, 5);
			break;
		}
		EXPECT_EQ(xqp_ptr_err(s), -XQP_ENOMEM) << n;
		EXPECT_EQ(xqp_host_live_allocs(), base) << n;
	}
}

/* ---- PD, CQ, XRCD ---------------------------------------------------- */

TEST_F(Soft, CountsFollowObjects)
{
	void *p = pd(), *c = cq(), *x = xrcd();
	EXPECT_EQ(counts().pd, 1u);
	EXPECT_EQ(counts().cq, 1u);
	EXPECT_EQ(counts().xrcd, 1u);
	Qp q = qp();
	EXPECT_EQ(counts().qp, 1u);
	destroy(q);
	EXPECT_EQ(ops_->dealloc_xrcd(soft_, x), 0);
	EXPECT_EQ(ops_->destroy_cq(soft_, c), 0);
	EXPECT_EQ(ops_->dealloc_pd(soft_, p), 0);
	EXPECT_TRUE(counts_zero(counts()));
}

TEST_F(Soft, CqeValidated)
{
	void *c = nullptr;
	int g = 77;
	EXPECT_EQ(ops_->create_cq(soft_, 0, &c, &g, nullptr), -XQP_EINVAL);
	EXPECT_EQ(ops_->create_cq(soft_, -1, &c, &g, nullptr), -XQP_EINVAL);
	EXPECT_EQ(ops_->create_cq(soft_, 65537, &c, &g, nullptr), -XQP_EINVAL);
	EXPECT_EQ(g, 77) << "a failed create reports nothing";
	EXPECT_EQ(counts().cq, 0u);
	void *c1 = cq(1), *c2 = cq(65536);
	EXPECT_EQ(counts().cq, 2u);
	EXPECT_EQ(ops_->destroy_cq(soft_, c1), 0);
	EXPECT_EQ(ops_->destroy_cq(soft_, c2), 0);
}

/* Like rxe's CQ ring: 2^k - 1 >= cqe entries, never past max_cqe. */
TEST_F(Soft, CqeGrantedAsRxeRounds)
{
	const struct { int req, granted; } cases[] = {
		{1, 1}, {2, 3}, {3, 3}, {4, 7}, {8, 15}, {15, 15}, {16, 31},
		{1000, 1023}, {32767, 32767}, {32768, 65535}, {65535, 65535},
		{65536, 65536},
	};
	for (const auto &t : cases) {
		int g = 0;
		void *c = cq(t.req, &g);
		EXPECT_EQ(g, t.granted) << t.req;
		EXPECT_EQ(ops_->destroy_cq(soft_, c), 0);
	}
}

/* ---- SRQ ----------------------------------------------------------------- */

TEST_F(Soft, SrqValidatedAndGranted)
{
	void *p = pd(), *c = cq(), *x = xrcd();
	void *s1 = nullptr, *s2 = nullptr, *bad = nullptr;
	xqp_u32 n1 = 0, n2 = 0, nb = 0;

	xqp_srq_init_attr init = {};
	init.srq_type = XQP_SRQT_BASIC;
	init.attr = { 100, 0, 7 };
	ASSERT_EQ(ops_->create_srq(soft_, p, nullptr, nullptr, &init, &s1, &n1, nullptr), 0);
	EXPECT_GE(init.attr.max_wr, 100u);
	EXPECT_LE(init.attr.max_wr, 16384u);
	EXPECT_GE(init.attr.max_sge, 1u);
	EXPECT_EQ(init.attr.srq_limit, 7u);
	EXPECT_NE(n1, 0u);

	/* XRC SRQs need their XRCD and CQ. */
	xqp_srq_init_attr xinit = {};
	xinit.srq_type = XQP_SRQT_XRC;
	xinit.attr = { 16, 27, 0 };
	EXPECT_EQ(ops_->create_srq(soft_, p, nullptr, c, &xinit, &bad, &nb, nullptr), -XQP_EINVAL);
	EXPECT_EQ(ops_->create_srq(soft_, p, x, nullptr, &xinit, &bad, &nb, nullptr), -XQP_EINVAL);
	ASSERT_EQ(ops_->create_srq(soft_, p, x, c, &xinit, &s2, &n2, nullptr), 0);
	EXPECT_GE(xinit.attr.max_wr, 16u);
	EXPECT_EQ(xinit.attr.max_sge, 27u);
	EXPECT_NE(n2, n1);
	EXPECT_LT(n2, kQpnSpace);

	/* Beyond the limits: -EINVAL, and the request is left as it was. */
	xqp_srq_init_attr over = {};
	over.srq_type = XQP_SRQT_BASIC;
	over.attr = { 0, 1, 0 };
	EXPECT_EQ(ops_->create_srq(soft_, p, nullptr, nullptr, &over, &bad, &nb, nullptr), -XQP_EINVAL);
	over.attr = { 16385, 1, 0 };
	EXPECT_EQ(ops_->create_srq(soft_, p, nullptr, nullptr, &over, &bad, &nb, nullptr), -XQP_EINVAL);
	over.attr = { 16, 28, 0 };
	EXPECT_EQ(ops_->create_srq(soft_, p, nullptr, nullptr, &over, &bad, &nb, nullptr), -XQP_EINVAL);
	EXPECT_EQ(over.attr.max_wr, 16u);
	EXPECT_EQ(over.attr.max_sge, 28u);
	over.attr = { 16, 1, 0 };
	EXPECT_EQ(ops_->create_srq(soft_, nullptr, nullptr, nullptr, &over, &bad, &nb, nullptr),
		  -XQP_EINVAL);
	EXPECT_EQ(counts().srq, 2u);

	/* A QP on an SRQ: its receive capabilities are not checked. */
	Qp q;
	xqp_qp_cap cap = { 1, 1u << 30, 1, 1000, 0 };
	ASSERT_EQ(create_qp(XQP_QPT_RC, cap, &q, s1), 0);
	EXPECT_EQ(q.cap.max_recv_wr, cap.max_recv_wr);
	destroy(q);

	EXPECT_EQ(ops_->destroy_srq(soft_, s1), 0);
	EXPECT_EQ(ops_->destroy_srq(soft_, s2), 0);
	EXPECT_EQ(ops_->dealloc_xrcd(soft_, x), 0);
	EXPECT_EQ(ops_->destroy_cq(soft_, c), 0);
	EXPECT_EQ(ops_->dealloc_pd(soft_, p), 0);
}

/* ---- QP capabilities ------------------------------------------------------ */

TEST_F(Soft, QpCapsOverLimitRejected)
{
	const xqp_qp_cap at_limit = { 16384, 16384, 32, 32, 256 };
	Qp q;
	ASSERT_EQ(create_qp(XQP_QPT_RC, at_limit, &q), 0);
	EXPECT_EQ(q.cap.max_send_wr, 16384u);
	EXPECT_EQ(q.cap.max_recv_wr, 16384u);
	EXPECT_EQ(q.cap.max_send_sge, 32u);
	EXPECT_EQ(q.cap.max_recv_sge, 32u);
	EXPECT_EQ(q.cap.max_inline_data, 256u);
	destroy(q);

	for (int field = 0; field < 5; field++) {
		xqp_qp_cap cap = at_limit;
		xqp_u32 *f[] = { &cap.max_send_wr, &cap.max_recv_wr, &cap.max_send_sge,
				 &cap.max_recv_sge, &cap.max_inline_data };
		(*f[field])++;
		Qp bad;
		EXPECT_EQ(create_qp(XQP_QPT_RC, cap, &bad), -XQP_EINVAL) << field;
		*f[field] = 0xffffffffu;
		EXPECT_EQ(create_qp(XQP_QPT_UD, cap, &bad), -XQP_EINVAL) << field;
	}
	EXPECT_EQ(counts().qp, 0u);
}

TEST_F(Soft, QpCapsGrantedAtLeastRequested)
{
	const xqp_u32 wrs[] = { 0, 1, 2, 3, 7, 8, 100, 1000, 16383, 16384 };
	const xqp_u32 sges[] = { 0, 1, 2, 5, 16, 31, 32 };
	const xqp_u32 inl[] = { 0, 1, 15, 16, 64, 255, 256 };
	for (xqp_u32 wr : wrs) {
		for (xqp_u32 sge : sges) {
			for (xqp_u32 in : inl) {
				xqp_qp_cap cap = { wr, wr, sge, sge, in };
				Qp q;
				ASSERT_EQ(create_qp(XQP_QPT_RC, cap, &q), 0);
				EXPECT_GE(q.cap.max_send_wr, wr);
				EXPECT_GE(q.cap.max_recv_wr, wr);
				EXPECT_GE(q.cap.max_send_sge, sge);
				EXPECT_GE(q.cap.max_recv_sge, sge);
				EXPECT_GE(q.cap.max_inline_data, in);
				EXPECT_LE(q.cap.max_send_wr, 16384u);
				EXPECT_LE(q.cap.max_send_sge, 32u);
				EXPECT_LE(q.cap.max_inline_data, 256u);
				xqp_qp_attr a = query(q);
				EXPECT_EQ(a.cap.max_send_wr, q.cap.max_send_wr);
				EXPECT_EQ(a.cap.max_recv_wr, q.cap.max_recv_wr);
				EXPECT_EQ(a.cap.max_send_sge, q.cap.max_send_sge);
				EXPECT_EQ(a.cap.max_recv_sge, q.cap.max_recv_sge);
				EXPECT_EQ(a.cap.max_inline_data, q.cap.max_inline_data);
				destroy(q);
			}
		}
	}
}

TEST_F(Soft, QpTypesAndFlags)
{
	for (xqp_qp_type t : { XQP_QPT_RC, XQP_QPT_UC, XQP_QPT_UD, XQP_QPT_XRC_INI,
			       XQP_QPT_XRC_TGT }) {
		Qp q = qp(t);
		EXPECT_EQ(state(q), XQP_QPS_RESET);
		destroy(q);
	}
	Qp bad;
	for (int t : { 0, 5, 8, 11 })
		EXPECT_EQ(create_qp(static_cast<xqp_qp_type>(t), {}, &bad), -XQP_EOPNOTSUPP) << t;
	/* GSI: QP1 of port 1, the only port (KernelClients.* make them) */
	EXPECT_EQ(create_qp(XQP_QPT_GSI, {}, &bad), -XQP_EINVAL);
	EXPECT_EQ(create_qp(XQP_QPT_RC, {}, &bad, nullptr, 1), -XQP_EOPNOTSUPP);
	EXPECT_EQ(counts().qp, 0u);
}

/* A post to another device's QP or SRQ queues nothing and names its first WR (as bad). */
TEST_F(Soft, PostToAnotherDevicesQueueNamesTheFirstWr)
{
	xqp_soft *other = xqp_soft_create("xqp_soft_other", nullptr);
	ASSERT_FALSE(xqp_is_err(other));
	void *p = pd();
	Qp q = qp();
	xqp_srq_init_attr init = {};
	init.srq_type = XQP_SRQT_BASIC;
	init.attr = { 16, 1, 0 };
	void *srq = nullptr;
	xqp_u32 srqn = 0;
	ASSERT_EQ(ops_->create_srq(soft_, p, nullptr, nullptr, &init, &srq, &srqn, nullptr), 0);

	xqp_send_wr s[2] = {};
	s[0].next = &s[1];
	const xqp_send_wr *sbad = nullptr;
	EXPECT_EQ(ops_->post_send(other, q.drv, s, &sbad), -XQP_EINVAL);
	EXPECT_EQ(sbad, &s[0]);
	xqp_recv_wr r[2] = {};
	r[0].next = &r[1];
	const xqp_recv_wr *rbad = nullptr;
	EXPECT_EQ(ops_->post_recv(other, q.drv, r, &rbad), -XQP_EINVAL);
	EXPECT_EQ(rbad, &r[0]);
	rbad = nullptr;
	EXPECT_EQ(ops_->post_srq_recv(other, srq, r, &rbad), -XQP_EINVAL);
	EXPECT_EQ(rbad, &r[0]);
	/* the core never does this: each one warns */
	EXPECT_EQ(xqp_host_warn_count(), warns_before_ + 3);
	warns_before_ += 3;

	EXPECT_EQ(ops_->destroy_srq(soft_, srq), 0);
	destroy(q);
	EXPECT_EQ(ops_->dealloc_pd(soft_, p), 0);
	xqp_soft_destroy(other);
}

TEST_F(Soft, QpAllocationFailuresLeaveNothing)
{
	long base = xqp_host_live_allocs();
	Qp q;
	/* The QP itself, then the first leaf of the number table. */
	for (long n = 0; n < 2; n++) {
		xqp_host_fail_alloc_after(n);
		EXPECT_EQ(create_qp(XQP_QPT_RC, {}, &q), -XQP_ENOMEM) << n;
		xqp_host_fail_alloc_after(-1);
		EXPECT_EQ(xqp_host_live_allocs(), base) << n;
		EXPECT_EQ(counts().qp, 0u);
	}
	q = qp();
	destroy(q);
}

/* ---- QP numbers ------------------------------------------------------------ */

TEST_F(Soft, QpNumbersUniqueAndNotReused)
{
	std::vector<Qp> qps;
	std::set<xqp_u32> nums;
	for (int i = 0; i < 5000; i++) {
		Qp q = qp(i % 2 ? XQP_QPT_XRC_TGT : XQP_QPT_UD);
		EXPECT_GE(q.num, 2u);
		EXPECT_LT(q.num, kQpnSpace);
		EXPECT_TRUE(nums.insert(q.num).second) << q.num;
		if (!qps.empty()) {
			EXPECT_GT(q.num, qps.back().num);
		}
		qps.push_back(q);
	}

	/* A destroyed number does not come back on the next creates. */
	xqp_u32 freed = qps[100].num;
	destroy(qps[100]);
	xqp_u32 last = qps.back().num;
	destroy(qps.back());
	qps.erase(qps.begin() + 100);
	qps.pop_back();
	for (int i = 0; i < 100; i++) {
		Qp q = qp();
		EXPECT_NE(q.num, freed);
		EXPECT_NE(q.num, last);
		EXPECT_GT(q.num, last);
		qps.push_back(q);
	}
	for (const Qp &q : qps)
		destroy(q);
	EXPECT_EQ(counts().qp, 0u);
}

TEST_F(Soft, QpNumbersWrapSkippingReservedAndLive)
{
	Qp a = qp(), b = qp();
	EXPECT_EQ(a.num, 2u);	/* 0 and 1 are the special QPs */
	EXPECT_EQ(b.num, 3u);

	xqp_soft_set_qpn_cursor(soft_, kQpnSpace - 2);
	Qp c = qp(), d = qp(), e = qp(), f = qp();
	EXPECT_EQ(c.num, kQpnSpace - 2);
	EXPECT_EQ(d.num, kQpnSpace - 1);
	EXPECT_EQ(e.num, 4u);	/* wrapped past 0, 1 and the live 2, 3 */
	EXPECT_EQ(f.num, 5u);

	/* After the wrap a freed number is reused only when the cursor is back. */
	destroy(a);
	Qp g = qp();
	EXPECT_EQ(g.num, 6u);
	xqp_soft_set_qpn_cursor(soft_, kQpnSpace - 1);
	Qp h = qp();
	EXPECT_EQ(h.num, 2u);	/* kQpnSpace - 1 is live (d): skipped, then wrap */

	for (const Qp &q : { b, c, d, e, f, g, h })
		destroy(q);
}

TEST_F(Soft, ManyQpsAcrossLeaves)
{
	std::vector<Qp> qps;
	long base = xqp_host_live_allocs();
	for (int i = 0; i < 20000; i++)
		qps.push_back(qp(XQP_QPT_UD));
	EXPECT_EQ(counts().qp, 20000u);
	EXPECT_EQ(qps.back().num, 20001u);
	for (const Qp &q : qps)
		destroy(q);
	EXPECT_EQ(counts().qp, 0u);
	/* Empty leaves are freed, but one spare may be kept. */
	EXPECT_LE(xqp_host_live_allocs(), base + 1);
}

/* ---- modify / query --------------------------------------------------------- */

TEST_F(Soft, RcModifyQueryRoundTrip)
{
	Qp q = qp(XQP_QPT_RC);
	xqp_qp_attr a = {};

	a.qp_state = XQP_QPS_INIT;
	a.pkey_index = 3;
	a.port_num = 1;
	a.qp_access_flags = 0x7;
	ASSERT_EQ(modify(q, a, XQP_QP_STATE | XQP_QP_PKEY_INDEX | XQP_QP_PORT |
				       XQP_QP_ACCESS_FLAGS), 0);
	xqp_qp_attr r = query(q);
	EXPECT_EQ(r.qp_state, XQP_QPS_INIT);
	EXPECT_EQ(r.cur_qp_state, XQP_QPS_INIT);
	EXPECT_EQ(r.pkey_index, 3);
	EXPECT_EQ(r.port_num, 1);
	EXPECT_EQ(r.qp_access_flags, 0x7u);

	a = {};
	a.qp_state = XQP_QPS_RTR;
	a.ah_attr = make_ah(10);
	a.path_mtu = 5;
	a.dest_qp_num = 0x123456;
	a.rq_psn = 0xabcdef;
	a.max_dest_rd_atomic = 16;
	a.min_rnr_timer = 12;
	a.alt_ah_attr = make_ah(40);
	a.alt_port_num = 1;
	a.alt_pkey_index = 4;
	a.alt_timeout = 14;
	ASSERT_EQ(modify(q, a, XQP_QP_STATE | XQP_QP_AV | XQP_QP_PATH_MTU |
				       XQP_QP_DEST_QPN | XQP_QP_RQ_PSN |
				       XQP_QP_MAX_DEST_RD_ATOMIC | XQP_QP_MIN_RNR_TIMER |
				       XQP_QP_ALT_PATH), 0);
	r = query(q);
	EXPECT_EQ(r.qp_state, XQP_QPS_RTR);
	expect_ah_eq(r.ah_attr, a.ah_attr);
	expect_ah_eq(r.alt_ah_attr, a.alt_ah_attr);
	EXPECT_EQ(r.path_mtu, 5u);
	EXPECT_EQ(r.dest_qp_num, 0x123456u);
	EXPECT_EQ(r.rq_psn, 0xabcdefu);
	EXPECT_EQ(r.max_dest_rd_atomic, 16);
	EXPECT_EQ(r.min_rnr_timer, 12);
	EXPECT_EQ(r.alt_port_num, 1);
	EXPECT_EQ(r.alt_pkey_index, 4);
	EXPECT_EQ(r.alt_timeout, 14);
	/* Earlier attributes are kept. */
	EXPECT_EQ(r.pkey_index, 3);
	EXPECT_EQ(r.qp_access_flags, 0x7u);

	a = {};
	a.qp_state = XQP_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 6;
	a.sq_psn = 0x654321;
	a.max_rd_atomic = 8;
	a.path_mig_state = 1;
	ASSERT_EQ(modify(q, a, XQP_QP_STATE | XQP_QP_TIMEOUT | XQP_QP_RETRY_CNT |
				       XQP_QP_RNR_RETRY | XQP_QP_SQ_PSN |
				       XQP_QP_MAX_QP_RD_ATOMIC | XQP_QP_PATH_MIG_STATE), 0);
	r = query(q);
	EXPECT_EQ(r.qp_state, XQP_QPS_RTS);
	EXPECT_EQ(r.cur_qp_state, XQP_QPS_RTS);
	EXPECT_EQ(r.timeout, 14);
	EXPECT_EQ(r.retry_cnt, 7);
	EXPECT_EQ(r.rnr_retry, 6);
	EXPECT_EQ(r.sq_psn, 0x654321u);
	EXPECT_EQ(r.max_rd_atomic, 8);
	EXPECT_EQ(r.path_mig_state, 1u);
	EXPECT_EQ(r.dest_qp_num, 0x123456u);
	EXPECT_EQ(r.cap.max_send_wr, q.cap.max_send_wr);

	/* RTS -> SQD -> SQD (path changes) -> RTS -> ERR -> RESET. */
	a = {};
	a.qp_state = XQP_QPS_SQD;
	a.en_sqd_async_notify = 1;
	ASSERT_EQ(modify(q, a, XQP_QP_STATE | XQP_QP_EN_SQD_ASYNC_NOTIFY), 0);
	EXPECT_EQ(query(q).en_sqd_async_notify, 1);
	a = {};
	a.qp_state = XQP_QPS_SQD;
	a.timeout = 20;
	a.port_num = 1;
	ASSERT_EQ(modify(q, a, XQP_QP_STATE | XQP_QP_TIMEOUT | XQP_QP_PORT), 0);
	EXPECT_EQ(query(q).timeout, 20);
	a.qp_state = XQP_QPS_RTS;
	ASSERT_EQ(modify(q, a, XQP_QP_STATE), 0);
	a.qp_state = XQP_QPS_ERR;
	ASSERT_EQ(modify(q, a, XQP_QP_STATE), 0);
	EXPECT_EQ(state(q), XQP_QPS_ERR);
	a.qp_state = XQP_QPS_RESET;
	ASSERT_EQ(modify(q, a, XQP_QP_STATE), 0);
	EXPECT_EQ(state(q), XQP_QPS_RESET);
	destroy(q);
}

TEST_F(Soft, UdAndXrcTgtBringUp)
{
	Qp ud = qp(XQP_QPT_UD);
	xqp_qp_attr a = {};
	a.qp_state = XQP_QPS_INIT;
	a.port_num = 1;
	a.qkey = 0x80010000;
	ASSERT_EQ(modify(ud, a, XQP_QP_STATE | XQP_QP_PKEY_INDEX | XQP_QP_PORT | XQP_QP_QKEY), 0);
	a.qp_state = XQP_QPS_RTR;
	ASSERT_EQ(modify(ud, a, XQP_QP_STATE), 0);
	a.qp_state = XQP_QPS_RTS;
	a.sq_psn = 77;
	ASSERT_EQ(modify(ud, a, XQP_QP_STATE | XQP_QP_SQ_PSN), 0);
	xqp_qp_attr r = query(ud);
	EXPECT_EQ(r.qp_state, XQP_QPS_RTS);
	EXPECT_EQ(r.qkey, 0x80010000u);
	EXPECT_EQ(r.sq_psn, 77u);
	/* Without XQP_QP_STATE the QP stays where it is (RTS -> RTS). */
	a.qkey = 0x1234;
	ASSERT_EQ(modify(ud, a, XQP_QP_QKEY), 0);
	r = query(ud);
	EXPECT_EQ(r.qp_state, XQP_QPS_RTS);
	EXPECT_EQ(r.qkey, 0x1234u);
	destroy(ud);

	Qp tgt = qp(XQP_QPT_XRC_TGT);
	a = {};
	a.qp_state = XQP_QPS_INIT;
	a.port_num = 1;
	a.qp_access_flags = 0x6;
	ASSERT_EQ(modify(tgt, a, XQP_QP_STATE | XQP_QP_PKEY_INDEX | XQP_QP_PORT |
					 XQP_QP_ACCESS_FLAGS), 0);
	a.qp_state = XQP_QPS_RTR;
	a.ah_attr = make_ah(1);
	a.path_mtu = 3;
	a.dest_qp_num = 99;
	a.rq_psn = 5;
	a.max_dest_rd_atomic = 4;
	a.min_rnr_timer = 1;
	/* XRC_TGT needs responder resources, unlike XRC_INI. */
	ASSERT_EQ(modify(tgt, a, XQP_QP_STATE | XQP_QP_AV | XQP_QP_PATH_MTU |
					 XQP_QP_DEST_QPN | XQP_QP_RQ_PSN), -XQP_EINVAL);
	ASSERT_EQ(modify(tgt, a, XQP_QP_STATE | XQP_QP_AV | XQP_QP_PATH_MTU |
					 XQP_QP_DEST_QPN | XQP_QP_RQ_PSN |
					 XQP_QP_MAX_DEST_RD_ATOMIC | XQP_QP_MIN_RNR_TIMER), 0);
	a.qp_state = XQP_QPS_RTS;
	a.timeout = 10;
	a.sq_psn = 6;
	ASSERT_EQ(modify(tgt, a, XQP_QP_STATE | XQP_QP_TIMEOUT | XQP_QP_SQ_PSN), 0);
	r = query(tgt);
	EXPECT_EQ(r.qp_state, XQP_QPS_RTS);
	EXPECT_EQ(r.max_dest_rd_atomic, 4);
	EXPECT_EQ(r.dest_qp_num, 99u);
	destroy(tgt);
}

TEST_F(Soft, InvalidModifyChangesNothing)
{
	Qp q = qp(XQP_QPT_RC);
	const int init_mask = XQP_QP_STATE | XQP_QP_PKEY_INDEX | XQP_QP_PORT |
			      XQP_QP_ACCESS_FLAGS;
	xqp_qp_attr a = {};
	a.qp_state = XQP_QPS_INIT;
	a.port_num = 1;

	/* Transitions outside the table, or with missing/extra attributes. */
	xqp_qp_attr b = a;
	b.qp_state = XQP_QPS_RTR;
	EXPECT_EQ(modify(q, b, XQP_QP_STATE), -XQP_EINVAL);
	EXPECT_EQ(modify(q, a, init_mask & ~XQP_QP_PORT), -XQP_EINVAL);
	EXPECT_EQ(modify(q, a, init_mask | XQP_QP_QKEY), -XQP_EINVAL);
	EXPECT_EQ(modify(q, a, init_mask | XQP_QP_CUR_STATE), -XQP_EINVAL);
	b.qp_state = static_cast<xqp_qp_state>(XQP_QPS_ERR + 1);
	EXPECT_EQ(modify(q, b, XQP_QP_STATE), -XQP_EINVAL);

	/* Attribute values beyond the device. */
	b = a;
	b.port_num = 0;
	EXPECT_EQ(modify(q, b, init_mask), -XQP_EINVAL);
	b.port_num = 2;
	EXPECT_EQ(modify(q, b, init_mask), -XQP_EINVAL);
	b = a;
	b.pkey_index = 64;
	EXPECT_EQ(modify(q, b, init_mask), -XQP_EINVAL);
	b = a;
	b.qp_access_flags = 0x20;	/* MW_BIND (0x10) a QP may have; no more */
	EXPECT_EQ(modify(q, b, init_mask), -XQP_EINVAL);
	EXPECT_EQ(state(q), XQP_QPS_RESET);
	EXPECT_EQ(query(q).port_num, 0);

	b = a;
	b.pkey_index = 63;
	ASSERT_EQ(modify(q, b, init_mask), 0);

	xqp_qp_attr rtr = {};
	rtr.qp_state = XQP_QPS_RTR;
	rtr.path_mtu = 5;
	rtr.max_dest_rd_atomic = 129;
	const int rtr_mask = XQP_QP_STATE | XQP_QP_AV | XQP_QP_PATH_MTU | XQP_QP_DEST_QPN |
			     XQP_QP_RQ_PSN | XQP_QP_MAX_DEST_RD_ATOMIC | XQP_QP_MIN_RNR_TIMER;
	EXPECT_EQ(modify(q, rtr, rtr_mask), -XQP_EINVAL);
	rtr.max_dest_rd_atomic = 128;
	rtr.path_mtu = 6;
	EXPECT_EQ(modify(q, rtr, rtr_mask), -XQP_EINVAL);
	rtr.path_mtu = 5;
	rtr.dest_qp_num = 1u << 24;
	EXPECT_EQ(modify(q, rtr, rtr_mask), -XQP_EINVAL);
	rtr.dest_qp_num = 7;
	EXPECT_EQ(modify(q, rtr, rtr_mask | XQP_QP_ALT_PATH), -XQP_EINVAL);	/* alt port 0 */
	xqp_qp_attr before = query(q);
	EXPECT_EQ(before.qp_state, XQP_QPS_INIT);
	EXPECT_EQ(before.pkey_index, 63);
	EXPECT_EQ(before.max_dest_rd_atomic, 0);
	ASSERT_EQ(modify(q, rtr, rtr_mask), 0);

	xqp_qp_attr rts = {};
	rts.qp_state = XQP_QPS_RTS;
	rts.max_rd_atomic = 129;
	const int rts_mask = XQP_QP_STATE | XQP_QP_TIMEOUT | XQP_QP_RETRY_CNT |
			     XQP_QP_RNR_RETRY | XQP_QP_SQ_PSN | XQP_QP_MAX_QP_RD_ATOMIC;
	EXPECT_EQ(modify(q, rts, rts_mask), -XQP_EINVAL);
	rts.max_rd_atomic = 128;
	rts.timeout = 32;
	EXPECT_EQ(modify(q, rts, rts_mask), -XQP_EINVAL);
	rts.timeout = 31;
	rts.retry_cnt = 8;
	EXPECT_EQ(modify(q, rts, rts_mask), -XQP_EINVAL);
	rts.retry_cnt = 7;
	/* Capabilities cannot be changed by modify on this device. */
	rts.cap = q.cap;
	EXPECT_EQ(modify(q, rts, rts_mask | XQP_QP_CAP), -XQP_EINVAL);
	rts.cap.max_send_wr = 16385;
	EXPECT_EQ(modify(q, rts, rts_mask | XQP_QP_CAP), -XQP_EINVAL);
	/* RTR -> RTR (no IB_QP_STATE) is not a transition. */
	EXPECT_EQ(modify(q, rts, XQP_QP_MIN_RNR_TIMER), -XQP_EINVAL);
	EXPECT_EQ(state(q), XQP_QPS_RTR);
	ASSERT_EQ(modify(q, rts, rts_mask), 0);
	EXPECT_EQ(query(q).max_rd_atomic, 128);
	destroy(q);
}

TEST_F(Soft, CurStateTakenFromAttr)
{
	Qp q = qp(XQP_QPT_UD);
	xqp_qp_attr a = {};
	a.qp_state = XQP_QPS_INIT;
	a.port_num = 1;
	ASSERT_EQ(modify(q, a, XQP_QP_STATE | XQP_QP_PKEY_INDEX | XQP_QP_PORT | XQP_QP_QKEY), 0);
	a.qp_state = XQP_QPS_RTR;
	ASSERT_EQ(modify(q, a, XQP_QP_STATE), 0);

	/* The caller says the QP is in SQE: SQE -> RTS is valid for UD. */
	a.qp_state = XQP_QPS_RTS;
	a.cur_qp_state = XQP_QPS_SQE;
	ASSERT_EQ(modify(q, a, XQP_QP_STATE | XQP_QP_CUR_STATE), 0);
	EXPECT_EQ(state(q), XQP_QPS_RTS);

	/* A claimed INIT never allows CUR_STATE. */
	a.cur_qp_state = XQP_QPS_INIT;
	EXPECT_EQ(modify(q, a, XQP_QP_STATE | XQP_QP_CUR_STATE), -XQP_EINVAL);
	a.cur_qp_state = XQP_QPS_RTS;
	EXPECT_EQ(modify(q, a, XQP_QP_STATE | XQP_QP_CUR_STATE), 0);
	destroy(q);

	Qp rc = qp(XQP_QPT_RC);
	a = {};
	a.qp_state = XQP_QPS_RTS;
	a.cur_qp_state = XQP_QPS_SQE;	/* SQE -> RTS allows no CUR_STATE for RC */
	EXPECT_EQ(modify(rc, a, XQP_QP_STATE | XQP_QP_CUR_STATE), -XQP_EINVAL);
	EXPECT_EQ(state(rc), XQP_QPS_RESET);
	destroy(rc);
}

/* ---- events ----------------------------------------------------------------- */

TEST_F(Soft, RaiseQpEventLooksUpTheNumber)
{
	Qp q = qp();
	/* No core cookie on a QP created directly: found, nothing to deliver. */
	EXPECT_EQ(xqp_soft_raise_qp_event(soft_, q.num, XQP_EVENT_QP_FATAL), 0);
	EXPECT_EQ(xqp_soft_raise_qp_event(soft_, q.num + 1, XQP_EVENT_QP_FATAL), -XQP_EINVAL);
	EXPECT_EQ(xqp_soft_raise_qp_event(soft_, 0, XQP_EVENT_QP_FATAL), -XQP_EINVAL);
	EXPECT_EQ(xqp_soft_raise_qp_event(soft_, 1, XQP_EVENT_QP_FATAL), -XQP_EINVAL);
	EXPECT_EQ(xqp_soft_raise_qp_event(soft_, kQpnSpace, XQP_EVENT_QP_FATAL), -XQP_EINVAL);
	destroy(q);
	EXPECT_EQ(xqp_soft_raise_qp_event(soft_, q.num, XQP_EVENT_QP_FATAL), -XQP_EINVAL);
}

/* ---- fault injection --------------------------------------------------------- */

namespace {

/* How to make and unmake one object of each kind, for the injection tests. */
struct Kind {
	const char *name;
	xqp_soft_op create_op;
	xqp_soft_op destroy_op;
	xqp_u32 xqp_soft_counts::*count;
	std::function<int(void **)> create;
	std::function<int(void *)> destroy;
};

} // namespace

class SoftInject : public Soft {
protected:
	void SetUp() override
	{
		Soft::SetUp();
		pd_ = pd();
		cq_ = cq();
		xrcd_ = xrcd();
		auto *s = soft_;
		auto *o = ops_;
		void *p = pd_;
		kinds_ = {
			{ "pd", XQP_SOFT_OP_ALLOC_PD, XQP_SOFT_OP_DEALLOC_PD,
			  &xqp_soft_counts::pd,
			  [=](void **out) { return o->alloc_pd(s, out); },
			  [=](void *d) { return o->dealloc_pd(s, d); } },
			{ "cq", XQP_SOFT_OP_CREATE_CQ, XQP_SOFT_OP_DESTROY_CQ,
			  &xqp_soft_counts::cq,
			  [=](void **out) {
				  int g = 8;
				  return o->create_cq(s, 8, out, &g, nullptr);
			  },
			  [=](void *d) { return o->destroy_cq(s, d); } },
			{ "xrcd", XQP_SOFT_OP_ALLOC_XRCD, XQP_SOFT_OP_DEALLOC_XRCD,
			  &xqp_soft_counts::xrcd,
			  [=](void **out) { return o->alloc_xrcd(s, out); },
			  [=](void *d) { return o->dealloc_xrcd(s, d); } },
			{ "srq", XQP_SOFT_OP_CREATE_SRQ, XQP_SOFT_OP_DESTROY_SRQ,
			  &xqp_soft_counts::srq,
			  [=](void **out) {
				  xqp_srq_init_attr init = {};
				  xqp_u32 num;
				  init.attr.max_wr = 4;
				  return o->create_srq(s, p, nullptr, nullptr, &init, out, &num, nullptr);
			  },
			  [=](void *d) { return o->destroy_srq(s, d); } },
			{ "qp", XQP_SOFT_OP_CREATE_QP, XQP_SOFT_OP_DESTROY_QP,
			  &xqp_soft_counts::qp,
			  [=](void **out) {
				  xqp_drv_qp_create req = {};
				  xqp_drv_qp_created created = {};
				  req.qp_type = XQP_QPT_RC;
				  int ret = o->create_qp(s, &req, &created);
				  *out = created.drv_qp;
				  return ret;
			  },
			  [=](void *d) { return o->destroy_qp(s, d); } },
		};
	}
	void TearDown() override
	{
		EXPECT_EQ(ops_->dealloc_xrcd(soft_, xrcd_), 0);
		EXPECT_EQ(ops_->destroy_cq(soft_, cq_), 0);
		EXPECT_EQ(ops_->dealloc_pd(soft_, pd_), 0);
		Soft::TearDown();
	}

	void *pd_ = nullptr, *cq_ = nullptr, *xrcd_ = nullptr;
	std::vector<Kind> kinds_;
};

TEST_F(SoftInject, CreateFailsExactlyOnceAfterN)
{
	for (const Kind &k : kinds_) {
		SCOPED_TRACE(k.name);
		xqp_u32 base = counts().*k.count;
		xqp_u64 calls = xqp_soft_op_calls(soft_, k.create_op);
		void *obj[4] = {};

		xqp_soft_inject(soft_, k.create_op, -XQP_EIO, 2);
		EXPECT_EQ(k.create(&obj[0]), 0);
		EXPECT_EQ(k.create(&obj[1]), 0);
		void *failed = nullptr;
		EXPECT_EQ(k.create(&failed), -XQP_EIO);
		EXPECT_EQ(counts().*k.count, base + 2);
		EXPECT_EQ(k.create(&obj[2]), 0);
		EXPECT_EQ(k.create(&obj[3]), 0);
		EXPECT_EQ(counts().*k.count, base + 4);
		EXPECT_EQ(xqp_soft_op_calls(soft_, k.create_op), calls + 5);
		for (void *o : obj)
			EXPECT_EQ(k.destroy(o), 0);
		EXPECT_EQ(counts().*k.count, base);
	}
}

TEST_F(SoftInject, DestroyFailsOnceAndLeavesObject)
{
	for (const Kind &k : kinds_) {
		SCOPED_TRACE(k.name);
		xqp_u32 base = counts().*k.count;
		void *obj = nullptr;
		ASSERT_EQ(k.create(&obj), 0);
		xqp_soft_inject(soft_, k.destroy_op, -XQP_EBUSY, 0);
		EXPECT_EQ(k.destroy(obj), -XQP_EBUSY);
		EXPECT_EQ(counts().*k.count, base + 1);
		EXPECT_EQ(k.destroy(obj), 0);
		EXPECT_EQ(counts().*k.count, base);
	}
}

TEST_F(SoftInject, DestroyQpFailureKeepsQpUsable)
{
	Qp q = qp();
	xqp_soft_inject(soft_, XQP_SOFT_OP_DESTROY_QP, -XQP_EIO, 0);
	EXPECT_EQ(ops_->destroy_qp(soft_, q.drv), -XQP_EIO);
	EXPECT_EQ(xqp_soft_raise_qp_event(soft_, q.num, XQP_EVENT_QP_FATAL), 0);
	EXPECT_EQ(state(q), XQP_QPS_RESET);
	destroy(q);
}

TEST_F(SoftInject, QueryAndModifyFailOnce)
{
	Qp q = qp(XQP_QPT_UD);
	xqp_device_attr da;
	xqp_soft_inject(soft_, XQP_SOFT_OP_QUERY_DEVICE, -XQP_EIO, 0);
	EXPECT_EQ(ops_->query_device(soft_, &da), -XQP_EIO);
	EXPECT_EQ(ops_->query_device(soft_, &da), 0);
	xqp_port_attr pa;
	xqp_soft_inject(soft_, XQP_SOFT_OP_QUERY_PORT, -XQP_EIO, 0);
	EXPECT_EQ(ops_->query_port(soft_, 1, &pa), -XQP_EIO);
	EXPECT_EQ(ops_->query_port(soft_, 1, &pa), 0);
	EXPECT_EQ(xqp_soft_op_calls(soft_, XQP_SOFT_OP_QUERY_PORT), 2u);

	xqp_qp_attr a = {};
	a.qp_state = XQP_QPS_INIT;
	a.port_num = 1;
	const int mask = XQP_QP_STATE | XQP_QP_PKEY_INDEX | XQP_QP_PORT | XQP_QP_QKEY;
	xqp_soft_inject(soft_, XQP_SOFT_OP_MODIFY_QP, -XQP_ENOMEM, 0);
	EXPECT_EQ(modify(q, a, mask), -XQP_ENOMEM);
	EXPECT_EQ(state(q), XQP_QPS_RESET);
	EXPECT_EQ(modify(q, a, mask), 0);

	xqp_soft_inject(soft_, XQP_SOFT_OP_QUERY_QP, -XQP_EIO, 1);
	xqp_qp_attr r;
	EXPECT_EQ(ops_->query_qp(soft_, q.drv, &r, 0), 0);
	EXPECT_EQ(ops_->query_qp(soft_, q.drv, &r, 0), -XQP_EIO);
	EXPECT_EQ(ops_->query_qp(soft_, q.drv, &r, 0), 0);
	EXPECT_EQ(r.qp_state, XQP_QPS_INIT);
	destroy(q);
}

TEST_F(SoftInject, ZeroDisarmsAndCallsAreCounted)
{
	xqp_u64 before = xqp_soft_op_calls(soft_, XQP_SOFT_OP_CREATE_QP);
	xqp_soft_inject(soft_, XQP_SOFT_OP_CREATE_QP, -XQP_EIO, 0);
	xqp_soft_inject(soft_, XQP_SOFT_OP_CREATE_QP, 0, 0);
	Qp q = qp();
	destroy(q);
	EXPECT_EQ(xqp_soft_op_calls(soft_, XQP_SOFT_OP_CREATE_QP), before + 1);
	EXPECT_EQ(xqp_soft_op_calls(soft_, XQP_SOFT_OP_DESTROY_QP), 1u);

	/* Re-arming replaces the pending injection. */
	xqp_soft_inject(soft_, XQP_SOFT_OP_ALLOC_PD, -XQP_EIO, 0);
	xqp_soft_inject(soft_, XQP_SOFT_OP_ALLOC_PD, -XQP_EAGAIN, 1);
	void *p1 = nullptr, *p2 = nullptr;
	EXPECT_EQ(ops_->alloc_pd(soft_, &p1), 0);
	EXPECT_EQ(ops_->alloc_pd(soft_, &p2), -XQP_EAGAIN);
	EXPECT_EQ(ops_->dealloc_pd(soft_, p1), 0);
}

/* ---- threads ------------------------------------------------------------------ */

TEST_F(Soft, ConcurrentCreateModifyDestroy)
{
	std::mutex m;
	std::set<xqp_u32> live;
	bool duplicate = false;
	auto worker = [&](int id) {
		for (int i = 0; i < 1500; i++) {
			xqp_drv_qp_create req = {};
			xqp_drv_qp_created out = {};
			req.qp_type = id % 2 ? XQP_QPT_UD : XQP_QPT_XRC_TGT;
			if (ops_->create_qp(soft_, &req, &out))
				continue;
			{
				std::lock_guard<std::mutex> l(m);
				duplicate |= !live.insert(out.qp_num).second;
			}
			xqp_qp_attr a = {};
			a.qp_state = XQP_QPS_INIT;
			a.port_num = 1;
			int mask = XQP_QP_STATE | XQP_QP_PKEY_INDEX | XQP_QP_PORT |
				   (id % 2 ? XQP_QP_QKEY : XQP_QP_ACCESS_FLAGS);
			EXPECT_EQ(ops_->modify_qp(soft_, out.drv_qp, &a, mask), 0);
			EXPECT_EQ(xqp_soft_raise_qp_event(soft_, out.qp_num,
							  XQP_EVENT_COMM_EST), 0);
			xqp_qp_attr r;
			EXPECT_EQ(ops_->query_qp(soft_, out.drv_qp, &r, 0), 0);
			EXPECT_EQ(r.qp_state, XQP_QPS_INIT);
			{
				std::lock_guard<std::mutex> l(m);
				live.erase(out.qp_num);
			}
			EXPECT_EQ(ops_->destroy_qp(soft_, out.drv_qp), 0);
		}
	};
	std::vector<std::thread> threads;
	for (int t = 0; t < 4; t++)
		threads.emplace_back(worker, t);
	for (std::thread &t : threads)
		t.join();
	EXPECT_FALSE(duplicate);
	EXPECT_EQ(counts().qp, 0u);
}

TEST_F(Soft, EventsRacingDestroy)
{
	for (int round = 0; round < 200; round++) {
		Qp q = qp(XQP_QPT_XRC_TGT);
		std::atomic<bool> go{false};
		std::thread raiser([&] {
			while (!go.load())
				;
			/* Found (0) until the destroy unmaps it, then -EINVAL. */
			for (int i = 0; i < 50; i++) {
				int ret = xqp_soft_raise_qp_event(soft_, q.num, XQP_EVENT_QP_FATAL);
				EXPECT_TRUE(ret == 0 || ret == -XQP_EINVAL) << ret;
			}
		});
		go.store(true);
		destroy(q);
		raiser.join();
		EXPECT_EQ(xqp_soft_raise_qp_event(soft_, q.num, XQP_EVENT_QP_FATAL), -XQP_EINVAL);
	}
}
