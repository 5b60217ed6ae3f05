// SPDX-License-Identifier: GPL-2.0
/*
 * RoCE v2's invariant CRC (IBA A17.8), as rxe_icrc.c computes it: the CRC
 * runs over a copy of the IP, UDP and BT headers whose variant fields (those
 * a router or switch may change) are set to all 1s, then over the packet's
 * remaining bytes up to the ICRC. The masked LRH that starts it (8 bytes of
 * 1s) is folded into the seed.
 */
#include "wire.h"
#include "xqp/seam.h"

/* crc32_le(0xffffffff, 8 bytes of 0xff): the masked LRH. */
#define SOFT_ICRC_SEED		0xdebb20e3U

xqp_u32 soft_icrc_start(const xqp_u8 *ip, int ipv6, const xqp_u8 *bth)
{
	xqp_u8 h[SOFT_IPV6_BYTES + SOFT_UDP_BYTES + SOFT_BTH_BYTES];
	xqp_u32 iplen = ipv6 ? SOFT_IPV6_BYTES : SOFT_IPV4_BYTES;
	xqp_u8 *udp = h + iplen;

	__builtin_memcpy(h, ip, iplen + SOFT_UDP_BYTES);
	if (ipv6) {
		h[0] |= 0x0f;		/* traffic class and flow label */
		h[1] = 0xff;
		h[2] = 0xff;
		h[3] = 0xff;
		h[7] = 0xff;		/* hop limit */
	} else {
		h[1] = 0xff;		/* TOS */
		h[8] = 0xff;		/* TTL */
		h[10] = 0xff;		/* header checksum */
		h[11] = 0xff;
	}
	udp[6] = 0xff;			/* UDP checksum */
	udp[7] = 0xff;
	__builtin_memcpy(udp + SOFT_UDP_BYTES, bth, SOFT_BTH_BYTES);
	udp[SOFT_UDP_BYTES + 4] = 0xff;	/* BTH byte 4: FECN, BECN, reserved */
	return xqp_crc32_le(SOFT_ICRC_SEED, h, iplen + SOFT_UDP_BYTES + SOFT_BTH_BYTES);
}

xqp_u32 soft_icrc_add(xqp_u32 crc, const void *p, xqp_u32 len)
{
	return xqp_crc32_le(crc, p, len);
}
