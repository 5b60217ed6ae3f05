// SPDX-License-Identifier: GPL-2.0
/*
 * xqp_modify_qp_is_ok() against a second, independent transcription of the
 * IB spec table as Linux 6.12's ib_modify_qp_is_ok() has it.
 */
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <tuple>

#include "xqp/verbs.h"

namespace {

constexpr xqp_qp_type kTypes[] = { XQP_QPT_RC, XQP_QPT_UC, XQP_QPT_UD,
				   XQP_QPT_XRC_INI, XQP_QPT_XRC_TGT };
constexpr int kNumTypes = 5;
constexpr int kNumStates = XQP_QPS_ERR + 1;

constexpr int S = XQP_QP_STATE;
constexpr int CUR = XQP_QP_CUR_STATE;
constexpr int NOTIFY = XQP_QP_EN_SQD_ASYNC_NOTIFY;
constexpr int ACC = XQP_QP_ACCESS_FLAGS;
constexpr int PKEY = XQP_QP_PKEY_INDEX;
constexpr int PORT = XQP_QP_PORT;
constexpr int QKEY = XQP_QP_QKEY;
constexpr int AV = XQP_QP_AV;
constexpr int MTU = XQP_QP_PATH_MTU;
constexpr int TMO = XQP_QP_TIMEOUT;
constexpr int RETRY = XQP_QP_RETRY_CNT;
constexpr int RNR = XQP_QP_RNR_RETRY;
constexpr int RQPSN = XQP_QP_RQ_PSN;
constexpr int MAXRD = XQP_QP_MAX_QP_RD_ATOMIC;
constexpr int ALT = XQP_QP_ALT_PATH;
constexpr int MINRNR = XQP_QP_MIN_RNR_TIMER;
constexpr int SQPSN = XQP_QP_SQ_PSN;
constexpr int MAXDRD = XQP_QP_MAX_DEST_RD_ATOMIC;
constexpr int PMS = XQP_QP_PATH_MIG_STATE;
constexpr int DQPN = XQP_QP_DEST_QPN;

/* One valid transition; masks in kTypes order: RC, UC, UD, XRC_INI, XRC_TGT. */
struct Row {
	xqp_qp_state cur;
	xqp_qp_state next;
	int req[kNumTypes];
	int opt[kNumTypes];
};

constexpr int kToInit = PKEY | PORT | ACC;
constexpr int kUdToInit = PKEY | PORT | QKEY;
constexpr int kRtrReq = AV | MTU | DQPN | RQPSN;
constexpr int kRtrOpt = ALT | ACC | PKEY;
constexpr int kRtsReq = TMO | RETRY | RNR | SQPSN | MAXRD;
constexpr int kUcRts = CUR | ALT | ACC | PMS;
constexpr int kRcRts = kUcRts | MINRNR;
constexpr int kUdRts = CUR | QKEY;

const Row kTable[] = {
	{ XQP_QPS_RESET, XQP_QPS_RESET, {}, {} },
	{ XQP_QPS_RESET, XQP_QPS_INIT,
	  { kToInit, kToInit, kUdToInit, kToInit, kToInit }, {} },

	{ XQP_QPS_INIT, XQP_QPS_RESET, {}, {} },
	{ XQP_QPS_INIT, XQP_QPS_ERR, {}, {} },
	{ XQP_QPS_INIT, XQP_QPS_INIT, {},
	  { kToInit, kToInit, kUdToInit, kToInit, kToInit } },
	{ XQP_QPS_INIT, XQP_QPS_RTR,
	  { kRtrReq | MAXDRD | MINRNR, kRtrReq, 0, kRtrReq, kRtrReq | MAXDRD | MINRNR },
	  { kRtrOpt, kRtrOpt, PKEY | QKEY, kRtrOpt, kRtrOpt } },

	{ XQP_QPS_RTR, XQP_QPS_RESET, {}, {} },
	{ XQP_QPS_RTR, XQP_QPS_ERR, {}, {} },
	{ XQP_QPS_RTR, XQP_QPS_RTS,
	  { kRtsReq, SQPSN, SQPSN, kRtsReq, TMO | SQPSN },
	  { kRcRts, kUcRts, kUdRts, kUcRts, kRcRts } },

	{ XQP_QPS_RTS, XQP_QPS_RESET, {}, {} },
	{ XQP_QPS_RTS, XQP_QPS_ERR, {}, {} },
	{ XQP_QPS_RTS, XQP_QPS_RTS, {}, { kRcRts, kUcRts, kUdRts, kUcRts, kRcRts } },
	{ XQP_QPS_RTS, XQP_QPS_SQD, {}, { NOTIFY, NOTIFY, NOTIFY, NOTIFY, NOTIFY } },

	{ XQP_QPS_SQD, XQP_QPS_RESET, {}, {} },
	{ XQP_QPS_SQD, XQP_QPS_ERR, {}, {} },
	{ XQP_QPS_SQD, XQP_QPS_RTS, {}, { kRcRts, kUcRts, kUdRts, kUcRts, kRcRts } },
	{ XQP_QPS_SQD, XQP_QPS_SQD, {},
	  { PORT | AV | TMO | RETRY | RNR | MAXRD | MAXDRD | ALT | ACC | PKEY | MINRNR | PMS,
	    AV | ALT | ACC | PKEY | PMS,
	    PKEY | QKEY,
	    PORT | AV | TMO | RETRY | RNR | MAXRD | ALT | ACC | PKEY | PMS,
	    PORT | AV | TMO | MAXDRD | ALT | ACC | PKEY | MINRNR | PMS } },

	{ XQP_QPS_SQE, XQP_QPS_RESET, {}, {} },
	{ XQP_QPS_SQE, XQP_QPS_ERR, {}, {} },
	{ XQP_QPS_SQE, XQP_QPS_RTS, {}, { 0, CUR | ACC, kUdRts, 0, 0 } },

	{ XQP_QPS_ERR, XQP_QPS_RESET, {}, {} },
	{ XQP_QPS_ERR, XQP_QPS_ERR, {}, {} },
};

const Row *find_row(int cur, int next)
{
	for (const Row &r : kTable)
		if (r.cur == cur && r.next == next)
			return &r;
	return nullptr;
}

/* What ib_modify_qp_is_ok() answers, from the oracle table. */
bool oracle(int cur, int next, int ti, int mask)
{
	const Row *r = find_row(cur, next);
	if (!r)
		return false;
	if ((mask & CUR) && cur != XQP_QPS_RTR && cur != XQP_QPS_RTS &&
	    cur != XQP_QPS_SQD && cur != XQP_QPS_SQE)
		return false;
	int req = r->req[ti], opt = r->opt[ti];
	return (mask & req) == req && !(mask & ~(req | opt | S));
}

int ok(int cur, int next, xqp_qp_type type, int mask)
{
	return xqp_modify_qp_is_ok(static_cast<xqp_qp_state>(cur),
				   static_cast<xqp_qp_state>(next), type, mask);
}

std::string where(const Row &r, int ti)
{
	return "cur " + std::to_string(r.cur) + " next " + std::to_string(r.next) +
	       " type " + std::to_string(kTypes[ti]);
}

} // namespace

TEST(QpState, OracleHasEachTransitionOnce)
{
	std::set<std::pair<int, int>> seen;
	for (const Row &r : kTable)
		EXPECT_TRUE(seen.insert({ r.cur, r.next }).second) << r.cur << "->" << r.next;
	EXPECT_EQ(seen.size(), 22u);
}

TEST(QpState, RequiredMaskAccepted)
{
	for (const Row &r : kTable) {
		for (int ti = 0; ti < kNumTypes; ti++) {
			int req = r.req[ti], opt = r.opt[ti];
			EXPECT_EQ(ok(r.cur, r.next, kTypes[ti], S | req), 1) << where(r, ti);
			EXPECT_EQ(ok(r.cur, r.next, kTypes[ti], S | req | opt), 1) << where(r, ti);
			/* Like Linux, the table does not insist on IB_QP_STATE. */
			EXPECT_EQ(ok(r.cur, r.next, kTypes[ti], req), 1) << where(r, ti);
			/* Each optional attribute alone is fine too. */
			for (int b = 0; b < 32; b++) {
				if (opt & (1 << b)) {
					EXPECT_EQ(ok(r.cur, r.next, kTypes[ti], S | req | (1 << b)), 1)
						<< where(r, ti) << " bit " << b;
				}
			}
		}
	}
}

TEST(QpState, MissingRequiredBitRejected)
{
	int checked = 0;
	for (const Row &r : kTable) {
		for (int ti = 0; ti < kNumTypes; ti++) {
			int req = r.req[ti], opt = r.opt[ti];
			for (int b = 0; b < 32; b++) {
				if (!(req & (1 << b)))
					continue;
				EXPECT_EQ(ok(r.cur, r.next, kTypes[ti], (S | req | opt) & ~(1 << b)), 0)
					<< where(r, ti) << " without bit " << b;
				checked++;
			}
		}
	}
	EXPECT_EQ(checked, 49);	/* 15 to INIT, 20 to RTR, 14 to RTS */
}

TEST(QpState, ExtraBitRejected)
{
	for (const Row &r : kTable) {
		for (int ti = 0; ti < kNumTypes; ti++) {
			int allowed = r.req[ti] | r.opt[ti] | S;
			for (int b = 0; b < 32; b++) {
				int bit = static_cast<int>(1u << b);
				if (allowed & bit)
					continue;
				EXPECT_EQ(ok(r.cur, r.next, kTypes[ti], r.req[ti] | S | bit), 0)
					<< where(r, ti) << " with bit " << b;
			}
		}
	}
}

TEST(QpState, TransitionsNotInTableRejected)
{
	for (int cur = 0; cur < kNumStates; cur++) {
		for (int next = 0; next < kNumStates; next++) {
			if (find_row(cur, next))
				continue;
			for (xqp_qp_type t : kTypes) {
				EXPECT_EQ(ok(cur, next, t, S), 0) << cur << "->" << next;
				EXPECT_EQ(ok(cur, next, t, 0), 0) << cur << "->" << next;
				EXPECT_EQ(ok(cur, next, t, XQP_QP_ATTR_STANDARD_BITS), 0);
			}
		}
	}
	/* A few the IB spec is known for. */
	EXPECT_EQ(ok(XQP_QPS_RESET, XQP_QPS_ERR, XQP_QPT_RC, S), 0);
	EXPECT_EQ(ok(XQP_QPS_RESET, XQP_QPS_RTR, XQP_QPT_RC, S | kRtrReq | MAXDRD | MINRNR), 0);
	EXPECT_EQ(ok(XQP_QPS_INIT, XQP_QPS_RTS, XQP_QPT_UD, S | SQPSN), 0);
	EXPECT_EQ(ok(XQP_QPS_RTR, XQP_QPS_RTR, XQP_QPT_RC, S), 0);
	EXPECT_EQ(ok(XQP_QPS_ERR, XQP_QPS_RTS, XQP_QPT_UD, S), 0);
	EXPECT_EQ(ok(XQP_QPS_SQE, XQP_QPS_SQD, XQP_QPT_UD, S), 0);
}

TEST(QpState, KnownRequirements)
{
	/* RC to INIT needs access flags; UD needs a Q_Key instead. */
	EXPECT_EQ(ok(XQP_QPS_RESET, XQP_QPS_INIT, XQP_QPT_RC, S | PKEY | PORT | ACC), 1);
	EXPECT_EQ(ok(XQP_QPS_RESET, XQP_QPS_INIT, XQP_QPT_RC, S | PKEY | PORT | QKEY), 0);
	EXPECT_EQ(ok(XQP_QPS_RESET, XQP_QPS_INIT, XQP_QPT_UD, S | PKEY | PORT | QKEY), 1);
	EXPECT_EQ(ok(XQP_QPS_RESET, XQP_QPS_INIT, XQP_QPT_UD, S | PKEY | PORT | ACC), 0);
	/* UD to RTR needs nothing. */
	EXPECT_EQ(ok(XQP_QPS_INIT, XQP_QPS_RTR, XQP_QPT_UD, S), 1);
	/* An XRC target sends only ACKs: to RTS it needs timeout and SQ PSN only. */
	EXPECT_EQ(ok(XQP_QPS_RTR, XQP_QPS_RTS, XQP_QPT_XRC_TGT, S | TMO | SQPSN), 1);
	EXPECT_EQ(ok(XQP_QPS_RTR, XQP_QPS_RTS, XQP_QPT_XRC_TGT, S | kRtsReq), 0);
	EXPECT_EQ(ok(XQP_QPS_RTR, XQP_QPS_RTS, XQP_QPT_XRC_INI, S | kRtsReq), 1);
	/* An XRC initiator receives no RDMA reads: no responder resources. */
	EXPECT_EQ(ok(XQP_QPS_INIT, XQP_QPS_RTR, XQP_QPT_XRC_INI, S | kRtrReq | MAXDRD), 0);
	EXPECT_EQ(ok(XQP_QPS_INIT, XQP_QPS_RTR, XQP_QPT_XRC_TGT,
		     S | kRtrReq | MAXDRD | MINRNR), 1);
	/* Path and capability changes are never accepted through modify. */
	EXPECT_EQ(ok(XQP_QPS_RTS, XQP_QPS_RTS, XQP_QPT_RC, S | XQP_QP_CAP), 0);
	EXPECT_EQ(ok(XQP_QPS_SQD, XQP_QPS_SQD, XQP_QPT_RC, S | XQP_QP_CAP), 0);
	EXPECT_EQ(ok(XQP_QPS_SQD, XQP_QPS_SQD, XQP_QPT_UC, S | PORT), 0);
}

TEST(QpState, CurStateRules)
{
	/* Accepted on the transitions into RTS out of RTR, RTS and SQD. */
	for (int cur : { XQP_QPS_RTR, XQP_QPS_RTS, XQP_QPS_SQD }) {
		for (int ti = 0; ti < kNumTypes; ti++) {
			const Row *r = find_row(cur, XQP_QPS_RTS);
			ASSERT_NE(r, nullptr);
			EXPECT_EQ(ok(cur, XQP_QPS_RTS, kTypes[ti], S | CUR | r->req[ti]), 1)
				<< where(*r, ti);
		}
	}
	/* Out of SQE only for UC and UD. */
	EXPECT_EQ(ok(XQP_QPS_SQE, XQP_QPS_RTS, XQP_QPT_UD, S | CUR), 1);
	EXPECT_EQ(ok(XQP_QPS_SQE, XQP_QPS_RTS, XQP_QPT_UC, S | CUR), 1);
	EXPECT_EQ(ok(XQP_QPS_SQE, XQP_QPS_RTS, XQP_QPT_RC, S | CUR), 0);
	EXPECT_EQ(ok(XQP_QPS_SQE, XQP_QPS_RTS, XQP_QPT_RC, S), 1);
	EXPECT_EQ(ok(XQP_QPS_SQE, XQP_QPS_RTS, XQP_QPT_XRC_TGT, S | CUR), 0);

	/* Never out of RESET, INIT or ERR, whatever the table allows otherwise. */
	for (xqp_qp_type t : kTypes) {
		EXPECT_EQ(ok(XQP_QPS_RESET, XQP_QPS_RESET, t, S | CUR), 0);
		EXPECT_EQ(ok(XQP_QPS_INIT, XQP_QPS_INIT, t, S | CUR), 0);
		EXPECT_EQ(ok(XQP_QPS_INIT, XQP_QPS_ERR, t, S | CUR), 0);
		EXPECT_EQ(ok(XQP_QPS_ERR, XQP_QPS_RESET, t, S | CUR), 0);
		EXPECT_EQ(ok(XQP_QPS_ERR, XQP_QPS_ERR, t, S | CUR), 0);
		/* Nor on the plain transitions out of the other states. */
		EXPECT_EQ(ok(XQP_QPS_RTS, XQP_QPS_ERR, t, S | CUR), 0);
		EXPECT_EQ(ok(XQP_QPS_RTR, XQP_QPS_RESET, t, S | CUR), 0);
		EXPECT_EQ(ok(XQP_QPS_RTS, XQP_QPS_SQD, t, S | CUR), 0);
		EXPECT_EQ(ok(XQP_QPS_SQD, XQP_QPS_SQD, t, S | CUR), 0);
	}
}

TEST(QpState, RateLimitNeverAccepted)
{
	/* Linux allows it for raw packet QPs only. */
	for (xqp_qp_type t : kTypes) {
		EXPECT_EQ(ok(XQP_QPS_RTS, XQP_QPS_RTS, t, S | XQP_QP_RATE_LIMIT), 0);
		const Row *r = find_row(XQP_QPS_RTR, XQP_QPS_RTS);
		for (int ti = 0; ti < kNumTypes; ti++)
			EXPECT_EQ(ok(XQP_QPS_RTR, XQP_QPS_RTS, kTypes[ti],
				     S | r->req[ti] | XQP_QP_RATE_LIMIT), 0);
	}
}

TEST(QpState, InvalidStatesAndTypes)
{
	/*
	 * Only values inside the enums' ranges: anything else is undefined
	 * behaviour in C++ (UBSan's enum check). C callers may pass any int;
	 * the function compares as unsigned, which covers negative values too.
	 */
	for (xqp_qp_type t : kTypes) {
		EXPECT_EQ(ok(kNumStates, XQP_QPS_RESET, t, S), 0);
		EXPECT_EQ(ok(XQP_QPS_RESET, kNumStates, t, S), 0);
		EXPECT_EQ(ok(XQP_QPS_ERR, kNumStates, t, S), 0);
		EXPECT_EQ(ok(kNumStates, kNumStates, t, 0), 0);
	}
	/* SMI, raw IPv6/ethertype, 7, raw packet, XRC_TGT + 1...: not xqp's (GSI is). */
	for (int t : { 0, 5, 6, 7, 8, 11, 15 }) {
		auto type = static_cast<xqp_qp_type>(t);
		EXPECT_EQ(ok(XQP_QPS_RESET, XQP_QPS_RESET, type, S), 0) << t;
		EXPECT_EQ(ok(XQP_QPS_RESET, XQP_QPS_INIT, type, S | kToInit), 0) << t;
		EXPECT_EQ(ok(XQP_QPS_INIT, XQP_QPS_RTR, type, S), 0) << t;
		EXPECT_EQ(ok(XQP_QPS_ERR, XQP_QPS_RESET, type, S), 0) << t;
	}
}

TEST(QpState, RandomMasksMatchOracle)
{
	std::uint64_t x = 0x9e3779b97f4a7c15ull;
	auto next_rand = [&x] {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		return x;
	};
	for (int cur = 0; cur <= kNumStates; cur++) {
		for (int next = 0; next <= kNumStates; next++) {
			for (int ti = 0; ti < kNumTypes; ti++) {
				const Row *r = find_row(cur, next);
				for (int i = 0; i < 300; i++) {
					std::uint64_t v = next_rand();
					/* Mostly masks close to the interesting ones. */
					int mask = static_cast<int>(v);
					if (r && (i & 1))
						mask = (r->req[ti] | r->opt[ti] | S | CUR) &
						       static_cast<int>(v >> 32);
					if (r && (i % 4) == 3)
						mask |= r->req[ti];
					EXPECT_EQ(ok(cur, next, kTypes[ti], mask),
						  oracle(cur, next, ti, mask) ? 1 : 0)
						<< cur << "->" << next << " type " << kTypes[ti]
						<< " mask 0x" << std::hex << mask;
				}
			}
		}
	}
}
