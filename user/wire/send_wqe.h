/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * A send WR's WQE, struct xqp_uverbs_send_wr, from a WR struct with
 * ibv_send_wr's field names and the IBTA opcodes (struct ibv_send_wr in
 * the provider, struct xqpv_send_wr in libxqpverbs): one text for both,
 * included once per WR type after naming it:
 *
 *	#define XQP_WIRE_SEND_WR struct ibv_send_wr
 *	#include "send_wqe.h"
 *
 * which defines xqp_wire_send_wqe() for that type. On a UD QP (@ud) the
 * kernel reads the address (w->wr.ud; an AH of NULL is handle 0),
 * elsewhere the opcode's rdma or atomic fields; on an XRC initiator QP
 * (@xrc_ini) the target's SRQ number trails the WQE. The SGEs are not part
 * of it; *k arrives zeroed (xqp_wire_post() lays WQEs out in zeroed memory).
 */
#ifndef XQP_WIRE_SEND_WR
#error "define XQP_WIRE_SEND_WR (the WR struct) before including send_wqe.h"
#endif

static void xqp_wire_send_wqe(struct xqp_uverbs_send_wr *k, const XQP_WIRE_SEND_WR *w,
			      int ud, int xrc_ini)
{
	k->wr.wr_id = w->wr_id;
	k->wr.num_sge = (__u32)w->num_sge;
	k->wr.opcode = (__u32)w->opcode;
	k->wr.send_flags = (__u32)w->send_flags;
	k->wr.ex.imm_data = w->imm_data;	/* or invalidate_rkey: one union */
	if (ud) {
		k->wr.wr.ud.ah = w->wr.ud.ah ? w->wr.ud.ah->handle : 0;
		k->wr.wr.ud.remote_qpn = w->wr.ud.remote_qpn;
		k->wr.wr.ud.remote_qkey = w->wr.ud.remote_qkey;
	} else {
		switch ((__u32)w->opcode) {
		case IB_UVERBS_WR_RDMA_WRITE:
		case IB_UVERBS_WR_RDMA_WRITE_WITH_IMM:
		case IB_UVERBS_WR_RDMA_READ:
			k->wr.wr.rdma.remote_addr = w->wr.rdma.remote_addr;
			k->wr.wr.rdma.rkey = w->wr.rdma.rkey;
			break;
		case IB_UVERBS_WR_ATOMIC_CMP_AND_SWP:
		case IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD:
			k->wr.wr.atomic.remote_addr = w->wr.atomic.remote_addr;
			k->wr.wr.atomic.compare_add = w->wr.atomic.compare_add;
			k->wr.wr.atomic.swap = w->wr.atomic.swap;
			k->wr.wr.atomic.rkey = w->wr.atomic.rkey;
			break;
		default:
			break;
		}
	}
	if (xrc_ini)
		k->xrc_remote_srq_num = w->qp_type.xrc.remote_srqn;
}

#undef XQP_WIRE_SEND_WR
