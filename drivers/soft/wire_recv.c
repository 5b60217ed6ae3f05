// SPDX-License-Identifier: GPL-2.0
/*
 * A RoCE v2 datagram that arrived for a linked device: checked (ICRC,
 * headers, destination GID, the QP and its transport) and handed to the
 * QP's responder (a request) or completer (a response). Whatever fails a
 * check is dropped and counted in the device's wire counts, never logged.
 */
#include "soft_priv.h"

/* The GID of an IP address in the header at @ip: IPv6's, or IPv4-mapped. */
static void soft_ip_gid(const xqp_u8 *ip, int ipv6, int dst, xqp_u8 gid[16])
{
	if (ipv6) {
		__builtin_memcpy(gid, ip + (dst ? 24 : 8), 16);
		return;
	}
	__builtin_memset(gid, 0, 10);
	gid[10] = 0xff;
	gid[11] = 0xff;
	__builtin_memcpy(gid + 12, ip + (dst ? 16 : 12), 4);
}

/* Whether a QP of @type takes requests (@request) or responses of @prefix. */
static int soft_rx_type_ok(enum xqp_qp_type type, xqp_u8 prefix, int request)
{
	switch (prefix) {
	case SOFT_OP_RC:
		return type == XQP_QPT_RC;
	case SOFT_OP_UC:
		return type == XQP_QPT_UC && request;
	case SOFT_OP_UD:
		return soft_is_ud(type) && request;
	case SOFT_OP_XRC:
		return type == (request ? XQP_QPT_XRC_TGT : XQP_QPT_XRC_INI);
	default:
		return 0;
	}
}

static int soft_rx_icrc_ok(const xqp_u8 *ip, int ipv6, const xqp_u8 *bth, xqp_u32 len)
{
	xqp_u32 crc = soft_icrc_start(ip, ipv6, bth);
	const xqp_u8 *t = bth + len - SOFT_ICRC_BYTES;
	xqp_u32 want = (xqp_u32)t[0] | (xqp_u32)t[1] << 8 | (xqp_u32)t[2] << 16 |
		       (xqp_u32)t[3] << 24;

	crc = soft_icrc_add(crc, bth + SOFT_BTH_BYTES, len - SOFT_BTH_BYTES - SOFT_ICRC_BYTES);
	return soft_icrc_value(crc) == want;
}

/*
 * A UD request to QP 0xffffff (rxe_rcv_mcast_pkt()): to every QP of @soft
 * attached to the destination GID's group; each takes it as a UD responder
 * does (its state, its Q_Key, a receive WQE) or drops it. No group: dropped
 * and counted with the unknown QPs. One sent by a device this one reaches
 * inside the kernel (its netdev bridged to ours) was delivered there
 * already: dropped, counted as a duplicate. Not inlined: its QP array
 * stays off soft_wire_rx()'s frame for every other packet.
 */
static __attribute__((__noinline__)) void soft_wire_rx_mcast(struct xqp_soft *soft,
							  struct soft_rx *rx)
{
	struct soft_qp *qps[XQP_RULES_MAX_MCAST_QP_ATTACH];
	xqp_u32 i, n = 0;

	if (soft_fabric_gid_is_local(rx->sgid, soft->link->net)) {
		SOFT_WIRE_COUNT(soft, rx_duplicate);
		return;
	}
	if (SOFT_OP_TRANSPORT(rx->pkt.opcode) == SOFT_OP_UD && (rx->pkt.mask & SOFT_OPF_REQUEST) &&
	    xqp_gid_is_multicast(rx->dgid))
		n = soft_mcast_qps(soft, rx->dgid, qps);
	if (!n) {
		SOFT_WIRE_COUNT(soft, rx_unknown_qp);
		return;
	}
	for (i = 0; i < n; i++) {
		soft_wire_respond(qps[i], rx);
		soft_refs_put(&qps[i]->refs);
	}
}

void soft_wire_rx(struct xqp_soft *soft, const xqp_u8 *ip, int ipv6,
		  const xqp_u8 *bth, xqp_u32 len)
{
	struct soft_rx rx;
	struct soft_qp *qp;
	int err, request;

	SOFT_WIRE_COUNT(soft, rx_packets);
	if (len < SOFT_BTH_BYTES + SOFT_ICRC_BYTES) {
		SOFT_WIRE_COUNT(soft, rx_malformed);
		return;
	}
	if (!soft_rx_icrc_ok(ip, ipv6, bth, len)) {
		SOFT_WIRE_COUNT(soft, rx_bad_icrc);
		return;
	}
	err = soft_pkt_parse(bth, len, &rx.pkt);
	if (err) {
		if (err == -XQP_EOPNOTSUPP)
			SOFT_WIRE_COUNT(soft, rx_unsupported);
		else
			SOFT_WIRE_COUNT(soft, rx_malformed);
		return;
	}
	if (rx.pkt.mask & SOFT_OPF_CNP) {	/* congestion: taken and ignored */
		SOFT_WIRE_COUNT(soft, rx_cnp);
		return;
	}
	rx.payload = bth + rx.pkt.hdr_len;
	rx.ip = ip;
	rx.ipv6 = ipv6;
	soft_ip_gid(ip, ipv6, 0, rx.sgid);
	soft_ip_gid(ip, ipv6, 1, rx.dgid);
	if (rx.pkt.dqpn == XQP_MULTICAST_QPN) {
		soft_wire_rx_mcast(soft, &rx);
		return;
	}
	if (!soft_link_has_gid(soft, rx.dgid)) {
		SOFT_WIRE_COUNT(soft, rx_bad_addr);
		return;
	}
	qp = soft_qp_get(soft, rx.pkt.dqpn);
	request = !!(rx.pkt.mask & SOFT_OPF_REQUEST);
	if (!qp || !qp->wresp ||
	    !soft_rx_type_ok(qp->type, SOFT_OP_TRANSPORT(rx.pkt.opcode), request)) {
		SOFT_WIRE_COUNT(soft, rx_unknown_qp);
		goto out;
	}
	if (request)
		soft_wire_respond(qp, &rx);
	else
		soft_wire_ack(qp, &rx);
out:
	if (qp)
		soft_refs_put(&qp->refs);
}

/**
 * xqp_soft_wire_counts - a device's wire counts.
 * @soft: the device.
 * @out: filled (all 0 for a device that is not linked).
 *
 * Context: any.
 */
void xqp_soft_wire_counts(struct xqp_soft *soft, struct xqp_soft_wire_counts *out)
{
	const xqp_u64 *src = (const xqp_u64 *)&soft->wire;
	xqp_u64 *dst = (xqp_u64 *)out;
	xqp_size_t i;

	for (i = 0; i < sizeof(*out) / sizeof(xqp_u64); i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
}

/* The counts' names, in struct xqp_soft_wire_counts' order. */
static const char *const soft_wire_count_names[] = {
	"tx_packets", "rx_packets", "tx_dropped", "rx_bad_icrc", "rx_malformed",
	"rx_unsupported", "rx_unknown_qp", "rx_bad_addr", "rx_bad_state", "rx_bad_qkey",
	"rx_cnp", "rx_duplicate", "rx_out_of_seq", "rx_stray_ack", "rx_busy", "retransmits",
	"rnr_naks_sent", "rnr_naks_taken", "naks_sent", "naks_taken",
};
#define SOFT_WIRE_NCOUNTS (sizeof(struct xqp_soft_wire_counts) / sizeof(xqp_u64))
typedef char soft_wire_names_match[sizeof(soft_wire_count_names) ==
				   SOFT_WIRE_NCOUNTS * sizeof(const char *) ? 1 : -1];

/**
 * xqp_soft_port_stats - the port's counters (driver op port_stats): the wire's.
 * @drv: the device.
 * @port: 1.
 * @names: the first @max names, or NULL.
 * @values: their values, or NULL.
 * @max: room in each.
 *
 * Context: any.
 * Return: how many counters there are.
 */
int xqp_soft_port_stats(void *drv, xqp_u32 port, const char **names, xqp_u64 *values, int max)
{
	struct xqp_soft_wire_counts c;
	const xqp_u64 *v = (const xqp_u64 *)&c;
	int i;

	(void)port;
	xqp_soft_wire_counts((struct xqp_soft *)drv, &c);
	for (i = 0; i < (int)SOFT_WIRE_NCOUNTS && i < max; i++) {
		if (names)
			names[i] = soft_wire_count_names[i];
		if (values)
			values[i] = v[i];
	}
	return (int)SOFT_WIRE_NCOUNTS;
}

int xqp_soft_wire_ready(struct xqp_soft *soft)
{
	return soft->link && soft->link->sock;
}
