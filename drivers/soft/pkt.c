// SPDX-License-Identifier: GPL-2.0
/*
 * A RoCE v2 packet's BTH and extension headers, parsed and built. The BTH
 * (IBA 9.2): opcode; SE, MigReq, PadCnt (2 bits), TVer (4 bits, 0); P_Key;
 * byte 4 (RoCE v2: FECN, BECN, 6 reserved bits); DestQP (24 bits); AckReq
 * and 7 reserved bits; PSN (24 bits). The extension headers follow in the
 * order wire.h lists.
 */
#include "wire.h"
#include "xqp/seam.h"

#define BTH_SE		0x80
#define BTH_MIGREQ	0x40
#define BTH_PAD_SHIFT	4
#define BTH_TVER_MASK	0x0f
#define BTH_FECN	0x80
#define BTH_BECN	0x40
#define BTH_ACKREQ	0x80

static void soft_bth_parse(const xqp_u8 *p, struct soft_pkt *pkt)
{
	pkt->opcode = p[0];
	pkt->se = !!(p[1] & BTH_SE);
	pkt->migreq = !!(p[1] & BTH_MIGREQ);
	pkt->pad = (p[1] >> BTH_PAD_SHIFT) & 3;
	pkt->pkey = (xqp_u16)soft_get_be16(p + 2);
	pkt->fecn = !!(p[4] & BTH_FECN);
	pkt->becn = !!(p[4] & BTH_BECN);
	pkt->dqpn = soft_get_be24(p + 5);
	pkt->ack_req = !!(p[8] & BTH_ACKREQ);
	pkt->psn = soft_get_be24(p + 9);
}

/* The extension headers @pkt->mask names, from @q on. */
static void soft_eth_parse(const xqp_u8 *q, struct soft_pkt *pkt)
{
	xqp_u32 m = pkt->mask;

	if (m & SOFT_OPF_XRCETH) {
		pkt->xrc_srqn = soft_get_be24(q + 1);
		q += SOFT_XRCETH_BYTES;
	}
	if (m & SOFT_OPF_DETH) {
		pkt->qkey = soft_get_be32(q);
		pkt->src_qp = soft_get_be24(q + 5);
		q += SOFT_DETH_BYTES;
	}
	if (m & SOFT_OPF_RETH) {
		pkt->va = soft_get_be64(q);
		pkt->rkey = soft_get_be32(q + 8);
		pkt->dma_len = soft_get_be32(q + 12);
		q += SOFT_RETH_BYTES;
	}
	if (m & SOFT_OPF_ATMETH) {
		pkt->va = soft_get_be64(q);
		pkt->rkey = soft_get_be32(q + 8);
		pkt->swap_add = soft_get_be64(q + 12);
		pkt->compare = soft_get_be64(q + 20);
		q += SOFT_ATMETH_BYTES;
	}
	if (m & SOFT_OPF_AETH) {
		pkt->syndrome = q[0];
		pkt->msn = soft_get_be24(q + 1);
		q += SOFT_AETH_BYTES;
	}
	if (m & SOFT_OPF_ATMACK) {
		pkt->orig = soft_get_be64(q);
		q += SOFT_ATMACK_BYTES;
	}
	if (m & SOFT_OPF_IMMDT) {
		pkt->imm = soft_get_be32(q);
		q += SOFT_IMMDT_BYTES;
	}
	if (m & SOFT_OPF_IETH)
		pkt->inv_rkey = soft_get_be32(q);
}

int soft_pkt_parse(const xqp_u8 *p, xqp_u32 len, struct soft_pkt *pkt)
{
	xqp_u32 rest;

	*pkt = (struct soft_pkt){ 0 };
	if (len < SOFT_BTH_BYTES + SOFT_ICRC_BYTES)
		return -XQP_EINVAL;
	if (p[1] & BTH_TVER_MASK)
		return -XQP_EINVAL;
	soft_bth_parse(p, pkt);
	pkt->mask = soft_op_mask(pkt->opcode);
	if (!pkt->mask)
		return -XQP_EOPNOTSUPP;
	pkt->hdr_len = soft_op_hdr_len(pkt->mask);
	if (len < pkt->hdr_len + SOFT_ICRC_BYTES)
		return -XQP_EINVAL;
	soft_eth_parse(p + SOFT_BTH_BYTES, pkt);
	rest = len - pkt->hdr_len - SOFT_ICRC_BYTES;	/* payload and pad */
	if (!(pkt->mask & SOFT_OPF_PAYLOAD) && rest)
		return -XQP_EINVAL;
	if (pkt->pad > rest)
		return -XQP_EINVAL;
	pkt->payload_len = rest - pkt->pad;
	return 0;
}

static void soft_eth_build(const struct soft_pkt *pkt, xqp_u8 *q)
{
	xqp_u32 m = pkt->mask;

	if (m & SOFT_OPF_XRCETH) {
		q[0] = 0;
		soft_put_be24(q + 1, pkt->xrc_srqn);
		q += SOFT_XRCETH_BYTES;
	}
	if (m & SOFT_OPF_DETH) {
		soft_put_be32(q, pkt->qkey);
		q[4] = 0;
		soft_put_be24(q + 5, pkt->src_qp);
		q += SOFT_DETH_BYTES;
	}
	if (m & SOFT_OPF_RETH) {
		soft_put_be64(q, pkt->va);
		soft_put_be32(q + 8, pkt->rkey);
		soft_put_be32(q + 12, pkt->dma_len);
		q += SOFT_RETH_BYTES;
	}
	if (m & SOFT_OPF_ATMETH) {
		soft_put_be64(q, pkt->va);
		soft_put_be32(q + 8, pkt->rkey);
		soft_put_be64(q + 12, pkt->swap_add);
		soft_put_be64(q + 20, pkt->compare);
		q += SOFT_ATMETH_BYTES;
	}
	if (m & SOFT_OPF_AETH) {
		q[0] = pkt->syndrome;
		soft_put_be24(q + 1, pkt->msn);
		q += SOFT_AETH_BYTES;
	}
	if (m & SOFT_OPF_ATMACK) {
		soft_put_be64(q, pkt->orig);
		q += SOFT_ATMACK_BYTES;
	}
	if (m & SOFT_OPF_IMMDT) {
		soft_put_be32(q, pkt->imm);
		q += SOFT_IMMDT_BYTES;
	}
	if (m & SOFT_OPF_IETH)
		soft_put_be32(q, pkt->inv_rkey);
}

xqp_u32 soft_pkt_build(struct soft_pkt *pkt, xqp_u8 *p)
{
	pkt->mask = soft_op_mask(pkt->opcode);
	if (!pkt->mask)
		return 0;
	pkt->hdr_len = soft_op_hdr_len(pkt->mask);
	pkt->pad = (xqp_u8)((4 - (pkt->payload_len & 3)) & 3);
	__builtin_memset(p, 0, pkt->hdr_len);	/* reserved fields and CNP's bytes */
	p[0] = pkt->opcode;
	p[1] = (xqp_u8)((pkt->se ? BTH_SE : 0) | (pkt->migreq ? BTH_MIGREQ : 0) |
			pkt->pad << BTH_PAD_SHIFT);
	soft_put_be16(p + 2, pkt->pkey);
	p[4] = (xqp_u8)((pkt->fecn ? BTH_FECN : 0) | (pkt->becn ? BTH_BECN : 0));
	soft_put_be24(p + 5, pkt->dqpn & SOFT_QPN_MASK);
	p[8] = pkt->ack_req ? BTH_ACKREQ : 0;
	soft_put_be24(p + 9, pkt->psn & SOFT_PSN_MASK);
	soft_eth_build(pkt, p + SOFT_BTH_BYTES);
	return pkt->hdr_len;
}
