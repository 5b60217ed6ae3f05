// SPDX-License-Identifier: GPL-2.0
/*
 * xqp-badpkt: sends malformed or misdirected RoCE v2 packets (UDP port
 * 4791) at a device, from a raw IPv4 socket, so that every byte of the
 * datagram (the IP header the ICRC covers included) is what the case says.
 * scripts/wire-guests runs it in one guest at the other guest's xqp
 * device while a pingpong runs on that device's connected QP.
 *
 *   xqp-badpkt SRC_IP DST_IP QPN PSN [COUNT]
 *
 * QPN and PSN: a live connected QP of the target and the next PSN it
 * expects (about: the cases aim far from it). Each case sends COUNT (20)
 * packets, 2 ms apart, and prints "CASE sent N": the target's counters
 * say what it made of them.
 *   short        8 bytes of UDP payload: no whole BTH (malformed)
 *   truncated    an RDMA WRITE FIRST whose RETH is cut short (malformed)
 *   bad_icrc     a SEND ONLY to QPN in sequence range with a wrong ICRC
 *   opcode       opcode 0x1f, which no transport defines (unsupported)
 *   no_qp        a SEND ONLY to QP 0xfffff0 (unknown QP)
 *   psn_ahead    a SEND ONLY to QPN at PSN + 2^22 (out of sequence: one
 *                sequence NAK, the rest dropped)
 *   psn_behind   a SEND ONLY to QPN at PSN - 2^22 (a duplicate: ACKed
 *                again, nothing delivered)
 *
 *   xqp-badpkt -t SRC_IP DST_IP RC VA RKEY T1 S1 T2 S2 PSN
 *
 * In sequence, at the QPs xqp-wire-target made (its line "target ..."
 * gives the numbers): each request is sent once and the target's answer is
 * read off the wire (a raw UDP socket), which must be
 *   write_ok       an RDMA WRITE ONLY of 16 bytes at VA: ACK
 *   write_past_mr  the next, 8 bytes before the MR's end: NAK remote access
 *   xrc_send_ok    an XRC SEND ONLY to T1 naming S1: ACK
 *   xrc_no_srq     the next, naming SRQ 0xfffff0: NAK invalid request
 *   xrc_foreign    an XRC SEND ONLY to T2 naming S2 (another XRC domain's
 *                  SRQ): NAK invalid request
 * Prints "insq NAME ok ..." or "insq NAME FAIL ..."; exits 1 on a failure.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "target.h"

#define ROCE_PORT 4791
#define IP_BYTES 20
#define UDP_BYTES 8
#define BTH_BYTES 12

static uint32_t crc_update(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xedb88320U & -(crc & 1));
	}
	return crc;
}

/* The ICRC of a datagram (IP header first, ICRC's 4 bytes last): IBTA A17.8. */
static uint32_t icrc(const uint8_t *d, size_t len)
{
	static const uint8_t lrh[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	uint8_t h[IP_BYTES + UDP_BYTES + BTH_BYTES];
	uint32_t crc = crc_update(0xffffffffU, lrh, sizeof(lrh));

	memcpy(h, d, sizeof(h));
	h[1] = 0xff;			/* TOS */
	h[8] = 0xff;			/* TTL */
	h[10] = h[11] = 0xff;		/* header checksum */
	h[IP_BYTES + 6] = h[IP_BYTES + 7] = 0xff;	/* UDP checksum */
	h[IP_BYTES + UDP_BYTES + 4] = 0xff;	/* BTH: FECN, BECN, reserved */
	crc = crc_update(crc, h, sizeof(h));
	crc = crc_update(crc, d + sizeof(h), len - sizeof(h) - 4);
	return ~crc;
}

struct pkt {
	uint8_t b[256];
	size_t len;
};

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v;
}

/* IPv4 + UDP headers for @payload bytes after them; BTH follows. */
static void headers(struct pkt *k, in_addr_t src, in_addr_t dst, size_t payload)
{
	uint8_t *ip = k->b, *udp = k->b + IP_BYTES;

	k->len = IP_BYTES + UDP_BYTES + payload;
	memset(k->b, 0, k->len);
	ip[0] = 0x45;
	ip[2] = k->len >> 8; ip[3] = k->len;
	ip[4] = 0x12; ip[5] = 0x34;	/* an ID of our own: the kernel fills in 0 */
	ip[6] = 0x40;			/* DF */
	ip[8] = 64;
	ip[9] = IPPROTO_UDP;
	memcpy(ip + 12, &src, 4);
	memcpy(ip + 16, &dst, 4);
	udp[0] = 0xc0; udp[1] = 0x01;	/* source port 49153 */
	udp[2] = ROCE_PORT >> 8; udp[3] = ROCE_PORT & 0xff;
	udp[4] = (UDP_BYTES + payload) >> 8; udp[5] = UDP_BYTES + payload;
	/* UDP checksum 0: none (IPv4) */
}

static void bth(struct pkt *k, uint8_t opcode, uint32_t qpn, uint32_t psn)
{
	uint8_t *b = k->b + IP_BYTES + UDP_BYTES;

	b[0] = opcode;
	b[2] = b[3] = 0xff;		/* P_Key */
	put32(b + 4, qpn & 0xffffff);
	put32(b + 8, (1U << 31) | (psn & 0xffffff));	/* AckReq */
}

/*
 * A request: BTH, @ext_len bytes of extension headers, @fill_len bytes of
 * @fill, the ICRC (wrong unless @good_icrc).
 */
static void request(struct pkt *k, in_addr_t src, in_addr_t dst, uint8_t opcode, uint32_t qpn,
		    uint32_t psn, const uint8_t *ext, size_t ext_len, uint8_t fill, size_t fill_len,
		    int good_icrc)
{
	uint8_t *after = k->b + IP_BYTES + UDP_BYTES + BTH_BYTES;
	uint32_t c;

	headers(k, src, dst, BTH_BYTES + ext_len + fill_len + 4);
	bth(k, opcode, qpn, psn);
	if (ext_len)
		memcpy(after, ext, ext_len);
	memset(after + ext_len, fill, fill_len);
	c = icrc(k->b, k->len);
	if (!good_icrc)
		c ^= 0x1;
	memcpy(k->b + k->len - 4, &c, 4);	/* the CRC's own byte order */
}

/* A packet of @after bytes after the BTH (payload and ICRC included). */
static void packet(struct pkt *k, in_addr_t src, in_addr_t dst, uint8_t opcode, uint32_t qpn,
		   uint32_t psn, size_t after, int good_icrc)
{
	request(k, src, dst, opcode, qpn, psn, NULL, 0, 0x5a, after - 4, good_icrc);
}

/* The cases: a packet after the headers, or (after 0) 8 bytes of no BTH. */
static const struct bad_case {
	const char *name;
	uint8_t opcode;
	size_t after;		/* bytes after the BTH, ICRC included */
	int other_qp;		/* to QP 0xfffff0 instead of QPN */
	int32_t psn_off;	/* from PSN */
	int good_icrc;
} cases[] = {
	{ "short", 0, 0, 0, 0, 0 },
	{ "truncated", 0x06, 4 + 4, 0, 0, 1 },	/* RDMA WRITE FIRST: RETH cut to 4 */
	{ "bad_icrc", 0x04, 16 + 4, 0, 0, 0 },
	{ "opcode", 0x1f, 16 + 4, 0, 0, 1 },
	{ "no_qp", 0x04, 16 + 4, 1, 0, 1 },
	{ "psn_ahead", 0x04, 16 + 4, 0, 1 << 22, 1 },
	{ "psn_behind", 0x04, 16 + 4, 0, -(1 << 22), 1 },
};

/* ---- in sequence, at xqp-wire-target's QPs ---- */

#define OP_RC_WRITE_ONLY 0x0a
#define OP_XRC_SEND_ONLY 0xa4
#define AETH_ACK 0x00
#define AETH_NAK_INVALID 0x61
#define AETH_NAK_ACCESS 0x62

/*
 * Waits (5 s at most) for the target's answer to @peer's request at @psn:
 * an RC or XRC ACKNOWLEDGE from @from to port 4791. Its AETH syndrome, or
 * -1 if none came.
 */
static int answer(int rfd, in_addr_t from, uint32_t peer, uint32_t psn)
{
	uint8_t b[2048];
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		ssize_t n = recv(rfd, b, sizeof(b), 0);
		const uint8_t *udp, *h;
		size_t ihl;

		clock_gettime(CLOCK_MONOTONIC, &t);
		if (t.tv_sec - t0.tv_sec > 5)
			return -1;
		if (n < IP_BYTES)
			continue;
		ihl = (b[0] & 0xf) * 4u;
		if ((size_t)n < ihl + UDP_BYTES + BTH_BYTES + 4 || memcmp(b + 12, &from, 4))
			continue;
		udp = b + ihl;
		h = udp + UDP_BYTES;
		if (((udp[2] << 8) | udp[3]) != ROCE_PORT || (h[0] != 0x11 && h[0] != 0xb1))
			continue;
		if ((((uint32_t)h[5] << 16) | (h[6] << 8) | h[7]) != peer ||
		    (((uint32_t)h[9] << 16) | (h[10] << 8) | h[11]) != (psn & 0xffffff))
			continue;
		return h[BTH_BYTES];
	}
}

static const char *syndrome_name(int s)
{
	if (s < 0)
		return "no answer";
	if ((s & 0x60) == AETH_ACK)
		return "ACK";
	return s == AETH_NAK_ACCESS ? "NAK remote access" :
	       s == AETH_NAK_INVALID ? "NAK invalid request" : "another answer";
}

static int in_sequence(char **a)
{
	in_addr_t src = inet_addr(a[0]), dst = inet_addr(a[1]);
	uint32_t rc = strtoul(a[2], NULL, 0), rkey = strtoul(a[4], NULL, 0);
	uint64_t va = strtoull(a[3], NULL, 0);
	uint32_t t1 = strtoul(a[5], NULL, 0), s1 = strtoul(a[6], NULL, 0);
	uint32_t t2 = strtoul(a[7], NULL, 0), s2 = strtoul(a[8], NULL, 0);
	uint32_t psn = strtoul(a[9], NULL, 0);
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_addr.s_addr = dst };
	const struct timeval wait = { 0, 200 * 1000 };
	struct {
		const char *name;
		uint8_t opcode;
		uint32_t qpn, peer, psn;
		uint8_t ext[16];
		size_t ext_len;
		int want;
	} c[5] = {
		{ "write_ok", OP_RC_WRITE_ONLY, rc, TARGET_PEER_RC, psn, {}, 16, AETH_ACK },
		{ "write_past_mr", OP_RC_WRITE_ONLY, rc, TARGET_PEER_RC, psn + 1, {}, 16, AETH_NAK_ACCESS },
		{ "xrc_send_ok", OP_XRC_SEND_ONLY, t1, TARGET_PEER_XRC1, psn, {}, 4, AETH_ACK },
		{ "xrc_no_srq", OP_XRC_SEND_ONLY, t1, TARGET_PEER_XRC1, psn + 1, {}, 4, AETH_NAK_INVALID },
		{ "xrc_foreign", OP_XRC_SEND_ONLY, t2, TARGET_PEER_XRC2, psn, {}, 4, AETH_NAK_INVALID },
	};
	uint64_t past = va + TARGET_MR_BYTES - 8;
	int sfd, rfd, failed = 0;
	struct pkt k;

	for (int i = 0; i < 8; i++) {	/* RETHs: VA, then 8 bytes before the end */
		c[0].ext[i] = (uint8_t)(va >> (56 - 8 * i));
		c[1].ext[i] = (uint8_t)(past >> (56 - 8 * i));
	}
	for (int i = 0; i < 2; i++) {
		put32(c[i].ext + 8, rkey);
		put32(c[i].ext + 12, 16);
	}
	put32(c[2].ext, s1);		/* XRCETH: reserved byte 0, the SRQ number */
	put32(c[3].ext, 0xfffff0);
	put32(c[4].ext, s2);
	sfd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	rfd = socket(AF_INET, SOCK_RAW, IPPROTO_UDP);
	if (sfd < 0 || rfd < 0 || setsockopt(rfd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait))) {
		perror("raw sockets");
		return 1;
	}
	for (int i = 0; i < 5; i++) {
		int got;

		request(&k, src, dst, c[i].opcode, c[i].qpn, c[i].psn, c[i].ext, c[i].ext_len, 0xa5,
			16, 1);
		if (sendto(sfd, k.b, k.len, 0, (struct sockaddr *)&to, sizeof(to)) != (ssize_t)k.len) {
			perror("sendto");
			return 1;
		}
		got = answer(rfd, dst, c[i].peer, c[i].psn);
		if (got == c[i].want || (c[i].want == AETH_ACK && got >= 0 && !(got & 0x60))) {
			printf("insq %s ok (%s, syndrome %#x)\n", c[i].name, syndrome_name(got), got);
		} else {
			printf("insq %s FAIL: %s (%#x), not %s\n", c[i].name, syndrome_name(got), got,
			       syndrome_name(c[i].want));
			failed = 1;
		}
	}
	close(rfd);
	close(sfd);
	return failed;
}

int main(int argc, char **argv)
{
	struct sockaddr_in to = { .sin_family = AF_INET };
	const struct timespec gap = { 0, 2 * 1000 * 1000 };
	in_addr_t src, dst;
	uint32_t qpn, psn;
	int fd, count, i;
	struct pkt k;

	if (argc == 12 && !strcmp(argv[1], "-t"))
		return in_sequence(argv + 2);
	if (argc < 5) {
		fprintf(stderr, "usage: %s SRC_IP DST_IP QPN PSN [COUNT]\n"
			"       %s -t SRC_IP DST_IP RC VA RKEY T1 S1 T2 S2 PSN\n", argv[0], argv[0]);
		return 2;
	}
	src = inet_addr(argv[1]);
	dst = inet_addr(argv[2]);
	qpn = strtoul(argv[3], NULL, 0);
	psn = strtoul(argv[4], NULL, 0);
	count = argc > 5 ? atoi(argv[5]) : 20;
	fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	if (fd < 0) {
		perror("socket(AF_INET, SOCK_RAW, IPPROTO_RAW)");
		return 1;
	}
	to.sin_addr.s_addr = dst;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct bad_case *b = &cases[c];

		for (i = 0; i < count; i++) {
			if (!b->after) {
				headers(&k, src, dst, 8);
				memset(k.b + IP_BYTES + UDP_BYTES, 0x04, 8);
			} else {
				packet(&k, src, dst, b->opcode, b->other_qp ? 0xfffff0 : qpn,
				       psn + (uint32_t)b->psn_off, b->after, b->good_icrc);
			}
			if (sendto(fd, k.b, k.len, 0, (struct sockaddr *)&to, sizeof(to)) !=
			    (ssize_t)k.len) {
				perror("sendto");
				return 1;
			}
			nanosleep(&gap, NULL);
		}
		printf("%s sent %d\n", b->name, count);
	}
	close(fd);
	return 0;
}
