// SPDX-License-Identifier: GPL-2.0
/*
 * RoCE v2's wire format (drivers/soft/wire.h): the ICRC against packets
 * whose ICRC someone else computed (a CNP a ConnectX-4 Lx sent, from
 * scapy's RoCE tests, and scapy's own UC SEND), the BTH and extension
 * headers laid out byte for byte as IBA 9.2 draws them, every opcode built
 * and parsed back, and malformed packets refused.
 */
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

extern "C" {
#include "soft/wire.h"
#include "xqp/seam.h"
}

namespace {

using Bytes = std::vector<xqp_u8>;

/* The ICRC of the IP packet @ip (IPv4 or IPv6, UDP, IB) as it is on the wire. */
xqp_u32 icrc_of(const Bytes &ip, bool ipv6)
{
	xqp_u32 l3 = (ipv6 ? SOFT_IPV6_BYTES : SOFT_IPV4_BYTES) + SOFT_UDP_BYTES;
	const xqp_u8 *bth = ip.data() + l3;
	xqp_u32 crc = soft_icrc_start(ip.data(), ipv6, bth);

	crc = soft_icrc_add(crc, bth + SOFT_BTH_BYTES,
			    static_cast<xqp_u32>(ip.size()) - l3 - SOFT_BTH_BYTES - SOFT_ICRC_BYTES);
	return soft_icrc_value(crc);
}

xqp_u32 le32_at_end(const Bytes &b)
{
	const xqp_u8 *p = b.data() + b.size() - 4;
	return p[0] | p[1] << 8 | p[2] << 16 | static_cast<xqp_u32>(p[3]) << 24;
}

/* A CNP a ConnectX-4 Lx sent (scapy's test/contrib/roce.uts), from its IP header on. */
const Bytes cx4_cnp = {
	0x45, 0xc2, 0x00, 0x3c, 0x71, 0x8c, 0x40, 0x00, 0x40, 0x11, 0x91, 0x61,
	0x0a, 0x00, 0x11, 0x01, 0x0a, 0x00, 0x12, 0x01,			/* IPv4 */
	0x00, 0x00, 0x12, 0xb7, 0x00, 0x28, 0x00, 0x00,			/* UDP to 4791 */
	0x81, 0x00, 0xff, 0xff, 0x40, 0x00, 0x01, 0x18, 0x00, 0x00, 0x00, 0x00,	/* BTH */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,			/* reserved */
	0x82, 0xfd, 0x00, 0x2a,						/* ICRC */
};

/* scapy's UC SEND_ONLY example (MigReq, 2 pad bytes), its ICRC 78 f3 53 f3. */
Bytes scapy_uc_send()
{
	Bytes p = {
		0x45, 0x01, 0x00, 0x40, 0x04, 0x78, 0x40, 0x00, 0x40, 0x11, 0xb4, 0xd5,
		192, 168, 0, 7, 192, 168, 0, 7,
		0xc0, 0x00, 0x12, 0xb7, 0x00, 0x2c, 0xac, 0xa2,
		0x24, 0x60, 0xff, 0xff, 0x00, 0x00, 0x00, 0xd3, 0x00, 0xcf, 0x17, 0x10,
		'F', '0', 0x81, 0x8b, 0xe2, 0x89, '5', 0xd9, 0x0e, 0x9a, 0x95, 'P', 'T',
		0x01, 0xbe, 0x88, '^', 'P', 0x00, 0x00,
		0x78, 0xf3, 0x53, 0xf3,
	};
	return p;
}

/* Field by field: the structs' padding is not theirs to compare. */
void expect_same(const soft_pkt &a, const soft_pkt &b, int op)
{
#define SAME(f) EXPECT_EQ(a.f, b.f) << "opcode " << op << ": " #f
	SAME(opcode); SAME(se); SAME(migreq); SAME(pad); SAME(fecn); SAME(becn);
	SAME(ack_req); SAME(pkey); SAME(dqpn); SAME(psn); SAME(mask);
	SAME(xrc_srqn); SAME(qkey); SAME(src_qp); SAME(va); SAME(rkey); SAME(dma_len);
	SAME(swap_add); SAME(compare); SAME(imm); SAME(inv_rkey); SAME(syndrome);
	SAME(msn); SAME(orig); SAME(hdr_len); SAME(payload_len);
#undef SAME
}

} // namespace

TEST(Wire, Crc32IsLinuxsCrc32Le)
{
	const char check[] = "123456789";
	xqp_u8 lrh[8];

	/* the standard CRC-32's check value, with its inversions */
	EXPECT_EQ(~xqp_crc32_le(~0U, check, 9), 0xcbf43926U);
	/* rxe's seed: the masked LRH */
	memset(lrh, 0xff, sizeof(lrh));
	EXPECT_EQ(xqp_crc32_le(~0U, lrh, sizeof(lrh)), 0xdebb20e3U);
}

TEST(Wire, IcrcOfACnpAConnectX4Sent)
{
	EXPECT_EQ(icrc_of(cx4_cnp, false), le32_at_end(cx4_cnp));

	struct soft_pkt pkt;
	ASSERT_EQ(soft_pkt_parse(cx4_cnp.data() + 28, static_cast<xqp_u32>(cx4_cnp.size()) - 28, &pkt), 0);
	EXPECT_EQ(pkt.opcode, 0x81);
	EXPECT_TRUE(pkt.mask & SOFT_OPF_CNP);
	EXPECT_TRUE(pkt.becn);
	EXPECT_FALSE(pkt.fecn);
	EXPECT_EQ(pkt.dqpn, 0x118U);
	EXPECT_EQ(pkt.payload_len, 0U);
	EXPECT_STREQ(soft_op_name(pkt.opcode), "CNP");
}

TEST(Wire, IcrcOfScapysUcSend)
{
	Bytes p = scapy_uc_send();
	struct soft_pkt pkt;

	EXPECT_EQ(icrc_of(p, false), le32_at_end(p));
	ASSERT_EQ(soft_pkt_parse(p.data() + 28, static_cast<xqp_u32>(p.size()) - 28, &pkt), 0);
	EXPECT_EQ(pkt.opcode, SOFT_OP_UC | SOFT_OP_SEND_ONLY);
	EXPECT_TRUE(pkt.migreq);
	EXPECT_EQ(pkt.pad, 2);
	EXPECT_EQ(pkt.dqpn, 211U);
	EXPECT_EQ(pkt.psn, 13571856U);
	EXPECT_EQ(pkt.payload_len, 18U);
}

/* What routers change (and the BTH's FECN/BECN byte) leaves the ICRC; anything else moves it. */
TEST(Wire, IcrcMasksExactlyTheVariantFields)
{
	const Bytes base = scapy_uc_send();
	const xqp_u32 good = le32_at_end(base);
	const int variant[] = { 1, 8, 10, 11, 20 + 6, 20 + 7, 28 + 4 };	/* TOS TTL csum csum UDP csum BTH[4] */

	for (int off : variant) {
		Bytes p = base;
		p[off] ^= 0x5a;
		EXPECT_EQ(icrc_of(p, false), good) << "offset " << off;
	}
	for (size_t off = 0; off < base.size() - 4; off++) {
		bool masked = false;
		for (int v : variant)
			masked |= static_cast<size_t>(v) == off;
		if (masked)
			continue;
		Bytes p = base;
		p[off] ^= 0x01;
		EXPECT_NE(icrc_of(p, false), good) << "offset " << off;
	}
}

TEST(Wire, IcrcOverIpv6MasksClassFlowAndHopLimit)
{
	Bytes p(SOFT_IPV6_BYTES + SOFT_UDP_BYTES + SOFT_BTH_BYTES + 8 + SOFT_ICRC_BYTES);
	for (size_t i = 0; i < p.size(); i++)
		p[i] = static_cast<xqp_u8>(i * 7 + 1);
	p[0] = 0x60;
	const xqp_u32 good = icrc_of(p, true);
	for (int off : { 0, 1, 2, 3, 7 }) {
		Bytes q = p;
		q[off] ^= off ? 0xff : 0x0f;	/* byte 0: the class's high nibble, not the version */
		EXPECT_EQ(icrc_of(q, true), good) << "offset " << off;
	}
	for (int off : { 4, 5, 6, 8, 39 }) {	/* payload length, next header, addresses */
		Bytes q = p;
		q[off] ^= 0x01;
		EXPECT_NE(icrc_of(q, true), good) << "offset " << off;
	}
}

/* The headers where IBA 9.2 puts them. */
TEST(Wire, HeadersLaidOutAsTheSpecDrawsThem)
{
	xqp_u8 b[64];
	struct soft_pkt pkt = {};

	pkt.opcode = SOFT_OP_XRC | SOFT_OP_WRITE_ONLY_IMM;
	pkt.se = 1;
	pkt.pkey = 0xffff;
	pkt.dqpn = 0x123456;
	pkt.ack_req = 1;
	pkt.psn = 0xabcdef;
	pkt.xrc_srqn = 0x654321;
	pkt.va = 0x0102030405060708ULL;
	pkt.rkey = 0x11223344;
	pkt.dma_len = 5;
	pkt.imm = 0xcafef00d;
	pkt.payload_len = 5;
	ASSERT_EQ(soft_pkt_build(&pkt, b), 12U + 4 + 16 + 4);
	const Bytes want = {
		0xab, 0xb0, 0xff, 0xff, 0x00, 0x12, 0x34, 0x56, 0x80, 0xab, 0xcd, 0xef,	/* BTH, pad 3 */
		0x00, 0x65, 0x43, 0x21,							/* XRCETH */
		1, 2, 3, 4, 5, 6, 7, 8, 0x11, 0x22, 0x33, 0x44, 0, 0, 0, 5,		/* RETH */
		0xca, 0xfe, 0xf0, 0x0d,							/* ImmDt */
	};
	EXPECT_EQ(Bytes(b, b + want.size()), want);

	pkt = {};
	pkt.opcode = SOFT_OP_UD | SOFT_OP_SEND_ONLY;
	pkt.dqpn = 1;
	pkt.qkey = 0x80010000;
	pkt.src_qp = 0xabcdef;
	pkt.payload_len = 256;
	ASSERT_EQ(soft_pkt_build(&pkt, b), 12U + 8);
	EXPECT_EQ(b[1], 0x00);	/* no pad */
	EXPECT_EQ(Bytes(b + 12, b + 20), (Bytes{ 0x80, 0x01, 0x00, 0x00, 0x00, 0xab, 0xcd, 0xef }));

	pkt = {};
	pkt.opcode = SOFT_OP_RC | SOFT_OP_COMPARE_SWAP;
	pkt.va = 0x1000;
	pkt.rkey = 7;
	pkt.swap_add = 0x2222222222222222ULL;
	pkt.compare = 0x3333333333333333ULL;
	ASSERT_EQ(soft_pkt_build(&pkt, b), 12U + 28);
	EXPECT_EQ(Bytes(b + 12, b + 40),
		  (Bytes{ 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 7,
			  0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22, 0x22,
			  0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33, 0x33 }));

	pkt = {};
	pkt.opcode = SOFT_OP_RC | SOFT_OP_ATOMIC_ACKNOWLEDGE;
	pkt.syndrome = SOFT_AETH_ACK | SOFT_AETH_CREDITS_INVALID;
	pkt.msn = 0x000102;
	pkt.orig = 0x8877665544332211ULL;
	ASSERT_EQ(soft_pkt_build(&pkt, b), 12U + 4 + 8);
	EXPECT_EQ(Bytes(b + 12, b + 24),
		  (Bytes{ 0x1f, 0x00, 0x01, 0x02, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11 }));
}

/* Which opcodes xqp speaks: RC, XRC (RC's), UC's SEND and WRITE, UD's SEND_ONLY(_IMM), CNP. */
TEST(Wire, OpcodesSpokenAndRefused)
{
	int spoken = 0;

	for (int op = 0; op < 256; op++)
		spoken += soft_op_mask(static_cast<xqp_u8>(op)) != 0;
	EXPECT_EQ(spoken, 23 + 23 + 12 + 2 + 1);
	EXPECT_EQ(soft_op_mask(SOFT_OP_UC | SOFT_OP_READ_REQUEST), 0U);
	EXPECT_EQ(soft_op_mask(SOFT_OP_UC | SOFT_OP_SEND_ONLY_INV), 0U);
	EXPECT_EQ(soft_op_mask(SOFT_OP_UD | SOFT_OP_SEND_FIRST), 0U);
	EXPECT_EQ(soft_op_mask(0x40 | SOFT_OP_SEND_ONLY), 0U);		/* RD */
	EXPECT_EQ(soft_op_mask(SOFT_OP_RC | 0x1c), 0U);			/* FLUSH */
	EXPECT_EQ(soft_op_mask(SOFT_OP_RC | 0x1d), 0U);			/* ATOMIC WRITE */
	EXPECT_TRUE(soft_op_mask(SOFT_OP_XRC | SOFT_OP_SEND_FIRST) & SOFT_OPF_XRCETH);
	EXPECT_FALSE(soft_op_mask(SOFT_OP_XRC | SOFT_OP_ACKNOWLEDGE) & SOFT_OPF_XRCETH);
	EXPECT_FALSE(soft_op_mask(SOFT_OP_XRC | SOFT_OP_READ_RESPONSE_ONLY) & SOFT_OPF_XRCETH);
	EXPECT_STREQ(soft_op_name(SOFT_OP_XRC | SOFT_OP_FETCH_ADD), "FETCH_ADD");
	EXPECT_STREQ(soft_op_name(0x40), "unknown");
}

/* Every spoken opcode, built with every field it carries set, parses back the same. */
TEST(Wire, EveryOpcodeBuildsAndParsesBack)
{
	for (int op = 0; op < 256; op++) {
		xqp_u32 m = soft_op_mask(static_cast<xqp_u8>(op));
		if (!m)
			continue;
		struct soft_pkt in = {};
		in.opcode = static_cast<xqp_u8>(op);
		in.se = 1;
		in.ack_req = 1;
		in.becn = 1;
		in.pkey = 0x8001;
		in.dqpn = 0xfedcba;
		in.psn = 0x123456 + static_cast<xqp_u32>(op);
		in.xrc_srqn = m & SOFT_OPF_XRCETH ? 0x00abcd : 0;
		in.qkey = m & SOFT_OPF_DETH ? 0x11111111 : 0;
		in.src_qp = m & SOFT_OPF_DETH ? 0x222222 : 0;
		in.va = m & (SOFT_OPF_RETH | SOFT_OPF_ATMETH) ? 0x0123456789abcdefULL : 0;
		in.rkey = m & (SOFT_OPF_RETH | SOFT_OPF_ATMETH) ? 0x33333333 : 0;
		in.dma_len = m & SOFT_OPF_RETH ? 4096 : 0;
		in.swap_add = m & SOFT_OPF_ATMETH ? 0x4444444444444444ULL : 0;
		in.compare = m & SOFT_OPF_ATMETH ? 0x5555555555555555ULL : 0;
		in.imm = m & SOFT_OPF_IMMDT ? 0x66666666 : 0;
		in.inv_rkey = m & SOFT_OPF_IETH ? 0x77777777 : 0;
		in.syndrome = m & SOFT_OPF_AETH ? SOFT_AETH_RNR_NAK | 14 : 0;
		in.msn = m & SOFT_OPF_AETH ? 0x888888 : 0;
		in.orig = m & SOFT_OPF_ATMACK ? 0x9999999999999999ULL : 0;
		in.payload_len = m & SOFT_OPF_PAYLOAD ? 7 : 0;

		xqp_u8 b[128] = {};
		xqp_u32 hl = soft_pkt_build(&in, b);
		ASSERT_EQ(hl, soft_op_hdr_len(m)) << "opcode " << op;
		xqp_u32 len = hl + in.payload_len + in.pad + SOFT_ICRC_BYTES;
		struct soft_pkt out;
		ASSERT_EQ(soft_pkt_parse(b, len, &out), 0) << "opcode " << op;
		expect_same(in, out, op);
	}
}

TEST(Wire, MalformedPacketsAreRefused)
{
	xqp_u8 b[128] = {};
	struct soft_pkt pkt = {};

	pkt.opcode = SOFT_OP_RC | SOFT_OP_WRITE_ONLY;
	pkt.payload_len = 8;
	xqp_u32 hl = soft_pkt_build(&pkt, b);
	const xqp_u32 len = hl + 8 + SOFT_ICRC_BYTES;
	struct soft_pkt out;

	ASSERT_EQ(soft_pkt_parse(b, len, &out), 0);
	/* shorter than its headers and ICRC */
	EXPECT_EQ(soft_pkt_parse(b, hl + 3, &out), -XQP_EINVAL);
	EXPECT_EQ(soft_pkt_parse(b, 15, &out), -XQP_EINVAL);
	/* a transport version other than 0 */
	b[1] |= 1;
	EXPECT_EQ(soft_pkt_parse(b, len, &out), -XQP_EINVAL);
	b[1] &= ~1;
	/* more pad than payload */
	b[1] |= 3 << 4;
	EXPECT_EQ(soft_pkt_parse(b, hl + 2 + SOFT_ICRC_BYTES, &out), -XQP_EINVAL);
	/* an opcode nobody here speaks */
	b[0] = SOFT_OP_RC | 0x1c;
	EXPECT_EQ(soft_pkt_parse(b, len, &out), -XQP_EOPNOTSUPP);

	/* bytes after an ACK, which carries none */
	pkt = {};
	pkt.opcode = SOFT_OP_RC | SOFT_OP_ACKNOWLEDGE;
	hl = soft_pkt_build(&pkt, b);
	EXPECT_EQ(soft_pkt_parse(b, hl + SOFT_ICRC_BYTES, &out), 0);
	EXPECT_EQ(soft_pkt_parse(b, hl + 4 + SOFT_ICRC_BYTES, &out), -XQP_EINVAL);
	/* a READ request with data */
	pkt.opcode = SOFT_OP_RC | SOFT_OP_READ_REQUEST;
	hl = soft_pkt_build(&pkt, b);
	EXPECT_EQ(soft_pkt_parse(b, hl + 1 + SOFT_ICRC_BYTES, &out), -XQP_EINVAL);
}
