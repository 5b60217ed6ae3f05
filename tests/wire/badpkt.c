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
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

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

/* A packet of @after bytes after the BTH (payload and ICRC included). */
static void packet(struct pkt *k, in_addr_t src, in_addr_t dst, uint8_t opcode, uint32_t qpn,
		   uint32_t psn, size_t after, int good_icrc)
{
	uint32_t c;

	headers(k, src, dst, BTH_BYTES + after);
	bth(k, opcode, qpn, psn);
	memset(k->b + IP_BYTES + UDP_BYTES + BTH_BYTES, 0x5a, after - 4);
	c = icrc(k->b, k->len);
	if (!good_icrc)
		c ^= 0x1;
	memcpy(k->b + k->len - 4, &c, 4);	/* the CRC's own byte order */
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

int main(int argc, char **argv)
{
	struct sockaddr_in to = { .sin_family = AF_INET };
	const struct timespec gap = { 0, 2 * 1000 * 1000 };
	in_addr_t src, dst;
	uint32_t qpn, psn;
	int fd, count, i;
	struct pkt k;

	if (argc < 5) {
		fprintf(stderr, "usage: %s SRC_IP DST_IP QPN PSN [COUNT]\n", argv[0]);
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
