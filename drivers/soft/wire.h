/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RoCE v2 on the wire (IBA Annex A17): the InfiniBand transport headers a
 * UDP datagram to port 4791 carries, as rxe_hdr.h and rxe_opcode.c are
 * rxe's. Freestanding (no kernel header): the same code builds on the host
 * for its tests.
 *
 *   opcode.c  the opcodes xqp speaks and the headers each one carries
 *   pkt.c     parsing and building a packet's BTH and extension headers
 *   icrc.c    the invariant CRC over the IP, UDP and IB headers and payload
 *
 * A packet, from the UDP payload's first byte:
 *   BTH [XRCETH] [DETH] [RETH | AtomicETH] [ImmDt | IETH] [AETH]
 *   [AtomicAckETH] payload pad ICRC
 * Every field is big-endian on the wire except the ICRC (little-endian,
 * the CRC's own bit order). docs/wire.md describes the format and the rules.
 */
#ifndef XQP_SOFT_WIRE_H
#define XQP_SOFT_WIRE_H

#include "xqp/types.h"

#define SOFT_ROCE_UDP_PORT	4791

/* Header sizes in bytes. */
#define SOFT_BTH_BYTES		12
#define SOFT_XRCETH_BYTES	4
#define SOFT_DETH_BYTES		8
#define SOFT_RETH_BYTES		16
#define SOFT_ATMETH_BYTES	28
#define SOFT_IMMDT_BYTES	4
#define SOFT_IETH_BYTES		4
#define SOFT_AETH_BYTES		4
#define SOFT_ATMACK_BYTES	8
#define SOFT_ICRC_BYTES		4
#define SOFT_IPV4_BYTES		20	/* without options: RoCE v2 sends none */
#define SOFT_IPV6_BYTES		40
#define SOFT_UDP_BYTES		8

/* The BTH's transport prefix (opcode bits 7-5) and operation (bits 4-0). */
#define SOFT_OP_RC		0x00
#define SOFT_OP_UC		0x20
#define SOFT_OP_UD		0x60
#define SOFT_OP_CNP		0x80	/* RoCE v2 congestion notification */
#define SOFT_OP_XRC		0xa0
#define SOFT_OP_TRANSPORT(op)	((op) & 0xe0)

enum soft_op {
	SOFT_OP_SEND_FIRST = 0x00,
	SOFT_OP_SEND_MIDDLE = 0x01,
	SOFT_OP_SEND_LAST = 0x02,
	SOFT_OP_SEND_LAST_IMM = 0x03,
	SOFT_OP_SEND_ONLY = 0x04,
	SOFT_OP_SEND_ONLY_IMM = 0x05,
	SOFT_OP_WRITE_FIRST = 0x06,
	SOFT_OP_WRITE_MIDDLE = 0x07,
	SOFT_OP_WRITE_LAST = 0x08,
	SOFT_OP_WRITE_LAST_IMM = 0x09,
	SOFT_OP_WRITE_ONLY = 0x0a,
	SOFT_OP_WRITE_ONLY_IMM = 0x0b,
	SOFT_OP_READ_REQUEST = 0x0c,
	SOFT_OP_READ_RESPONSE_FIRST = 0x0d,
	SOFT_OP_READ_RESPONSE_MIDDLE = 0x0e,
	SOFT_OP_READ_RESPONSE_LAST = 0x0f,
	SOFT_OP_READ_RESPONSE_ONLY = 0x10,
	SOFT_OP_ACKNOWLEDGE = 0x11,
	SOFT_OP_ATOMIC_ACKNOWLEDGE = 0x12,
	SOFT_OP_COMPARE_SWAP = 0x13,
	SOFT_OP_FETCH_ADD = 0x14,
	SOFT_OP_SEND_LAST_INV = 0x16,
	SOFT_OP_SEND_ONLY_INV = 0x17,
};

/* What an opcode is and carries (soft_op_mask()). */
enum soft_op_flag {
	SOFT_OPF_XRCETH = 1 << 0,
	SOFT_OPF_DETH = 1 << 1,
	SOFT_OPF_RETH = 1 << 2,
	SOFT_OPF_ATMETH = 1 << 3,
	SOFT_OPF_IMMDT = 1 << 4,
	SOFT_OPF_IETH = 1 << 5,
	SOFT_OPF_AETH = 1 << 6,
	SOFT_OPF_ATMACK = 1 << 7,
	SOFT_OPF_PAYLOAD = 1 << 8,	/* carries data (possibly 0 bytes) */
	SOFT_OPF_REQUEST = 1 << 9,	/* a requester sends it; else a responder */
	SOFT_OPF_FIRST = 1 << 10,	/* starts a message (ONLY: FIRST | LAST) */
	SOFT_OPF_LAST = 1 << 11,	/* ends one */
	SOFT_OPF_SEND = 1 << 12,
	SOFT_OPF_WRITE = 1 << 13,
	SOFT_OPF_READ = 1 << 14,	/* a READ request or response */
	SOFT_OPF_ATOMIC = 1 << 15,	/* an atomic request */
	SOFT_OPF_ACK = 1 << 16,		/* ACK/NAK or atomic ACK */
	SOFT_OPF_CNP = 1 << 17,
};

/* The AETH's syndrome (IBA 9.7.5.1.1): bits 7-5 say which kind. */
#define SOFT_AETH_ACK		0x00	/* low 5 bits: credits */
#define SOFT_AETH_RNR_NAK	0x20	/* low 5 bits: the RNR timer */
#define SOFT_AETH_NAK		0x60	/* low 5 bits: one of: */
#define SOFT_NAK_PSN_SEQ_ERR	0x00
#define SOFT_NAK_INVALID_REQ	0x01
#define SOFT_NAK_REMOTE_ACCESS	0x02
#define SOFT_NAK_REMOTE_OP_ERR	0x03
#define SOFT_NAK_INVALID_RD_REQ	0x04
#define SOFT_AETH_KIND(s)	((s) & 0x60)
#define SOFT_AETH_CREDITS_INVALID 0x1f	/* an ACK's "no credit count" */

#define SOFT_PSN_MASK		0xffffffU

/* @a - @b in the 24-bit PSN space (bit 23 set: @a is before @b). */
static inline xqp_u32 soft_psn_diff(xqp_u32 a, xqp_u32 b)
{
	return (a - b) & SOFT_PSN_MASK;
}
#define SOFT_QPN_MASK		0xffffffU
#define SOFT_DEFAULT_PKEY	0xffff

/*
 * One packet's transport headers, parsed (soft_pkt_parse()) or to build
 * (soft_pkt_build()): the fields of the headers its opcode carries; the
 * others are 0. Immediate data is as the wire has it, big-endian bytes read
 * as a big-endian number.
 */
struct soft_pkt {
	xqp_u8 opcode;
	xqp_u8 se;			/* solicited event */
	xqp_u8 migreq;
	xqp_u8 pad;			/* pad bytes after the payload, 0-3 */
	xqp_u8 fecn, becn;		/* RoCE v2's congestion bits (byte 4) */
	xqp_u8 ack_req;
	xqp_u16 pkey;
	xqp_u32 dqpn;
	xqp_u32 psn;
	xqp_u32 mask;			/* soft_op_mask(opcode) */

	xqp_u32 xrc_srqn;		/* XRCETH */
	xqp_u32 qkey, src_qp;		/* DETH */
	xqp_u64 va;			/* RETH or AtomicETH */
	xqp_u32 rkey;			/* RETH or AtomicETH */
	xqp_u32 dma_len;		/* RETH */
	xqp_u64 swap_add, compare;	/* AtomicETH: swap (or add), compare */
	xqp_u32 imm;			/* ImmDt */
	xqp_u32 inv_rkey;		/* IETH */
	xqp_u8 syndrome;		/* AETH */
	xqp_u32 msn;			/* AETH */
	xqp_u64 orig;			/* AtomicAckETH: the remote's value before */

	xqp_u32 hdr_len;		/* BTH and extension headers */
	xqp_u32 payload_len;		/* without pad and ICRC */
};

/* ---- opcode.c ---- */
/* What @opcode is and carries; 0 for one xqp neither sends nor takes. */
xqp_u32 soft_op_mask(xqp_u8 opcode);
/* The bytes of the BTH and the extension headers @mask names. */
xqp_u32 soft_op_hdr_len(xqp_u32 mask);
/* The operation's name, the same on every transport ("SEND_ONLY", "CNP"); "unknown" if none. */
const char *soft_op_name(xqp_u8 opcode);

/* ---- pkt.c ---- */
/*
 * Parses the @len bytes of a UDP payload at @p (headers, payload, pad,
 * ICRC) into @pkt. The ICRC is not checked here (icrc.c).
 * Return: 0; -EINVAL for a truncated or malformed packet (bad version, a
 * payload on an opcode without one, a pad without a payload, a READ
 * request or atomic with data); -EOPNOTSUPP for an opcode xqp does not take.
 */
int soft_pkt_parse(const xqp_u8 *p, xqp_u32 len, struct soft_pkt *pkt);
/*
 * Writes @pkt's BTH and extension headers at @p (soft_op_hdr_len() bytes
 * of room), taking the mask from the opcode and the pad from payload_len.
 * Return: the bytes written; 0 for an opcode soft_op_mask() does not know.
 */
xqp_u32 soft_pkt_build(struct soft_pkt *pkt, xqp_u8 *p);

/* ---- icrc.c ---- */
/*
 * The ICRC (IBA A17.8) of a RoCE v2 packet: a CRC-32 over 8 bytes of 1s
 * (the masked LRH), the IP header with its variant fields masked (IPv4:
 * TOS, TTL, checksum; IPv6: traffic class, flow label, hop limit), the UDP
 * header with its checksum masked, the BTH with its byte 4 (FECN, BECN,
 * reserved) masked, then the rest up to the ICRC.
 * soft_icrc_start() covers the IP and UDP headers at @ip (@ipv6: 40 bytes
 * of IPv6, else 20 of IPv4, the UDP header after) and the BTH at @bth;
 * soft_icrc_add() the bytes after it, in as many pieces as they come;
 * soft_icrc_value() what goes on the wire (little-endian).
 */
xqp_u32 soft_icrc_start(const xqp_u8 *ip, int ipv6, const xqp_u8 *bth);
xqp_u32 soft_icrc_add(xqp_u32 crc, const void *p, xqp_u32 len);
static inline xqp_u32 soft_icrc_value(xqp_u32 crc)
{
	return ~crc;
}

/* Big-endian fields. */
static inline xqp_u32 soft_get_be16(const xqp_u8 *p)
{
	return (xqp_u32)p[0] << 8 | p[1];
}

static inline xqp_u32 soft_get_be24(const xqp_u8 *p)
{
	return (xqp_u32)p[0] << 16 | (xqp_u32)p[1] << 8 | p[2];
}

static inline xqp_u32 soft_get_be32(const xqp_u8 *p)
{
	return (xqp_u32)p[0] << 24 | soft_get_be24(p + 1);
}

static inline xqp_u64 soft_get_be64(const xqp_u8 *p)
{
	return (xqp_u64)soft_get_be32(p) << 32 | soft_get_be32(p + 4);
}

static inline void soft_put_be16(xqp_u8 *p, xqp_u32 v)
{
	p[0] = (xqp_u8)(v >> 8);
	p[1] = (xqp_u8)v;
}

static inline void soft_put_be24(xqp_u8 *p, xqp_u32 v)
{
	p[0] = (xqp_u8)(v >> 16);
	soft_put_be16(p + 1, v);
}

static inline void soft_put_be32(xqp_u8 *p, xqp_u32 v)
{
	p[0] = (xqp_u8)(v >> 24);
	soft_put_be24(p + 1, v);
}

static inline void soft_put_be64(xqp_u8 *p, xqp_u64 v)
{
	soft_put_be32(p, (xqp_u32)(v >> 32));
	soft_put_be32(p + 4, (xqp_u32)v);
}

#endif /* XQP_SOFT_WIRE_H */
