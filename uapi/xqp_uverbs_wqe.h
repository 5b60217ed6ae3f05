/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * Userspace only (no kernel code includes it): a POST_SEND to
 * /dev/xqp/uverbsN as its two writers build it, xqp's libibverbs provider
 * (user/provider/post.c, from struct ibv_send_wr) and libxqpverbs
 * (user/lib/post.c, from struct xqpv_send_wr). Both WR structs have
 * ibv_send_wr's field names, and their opcodes are the IBTA values
 * uverbs takes (each writer asserts it with XQP_UVERBS_ASSERT_WR_OPCODES).
 *
 * The request: struct ib_uverbs_cmd_hdr, struct ib_uverbs_post_send,
 * wr_count WQEs of sizeof(struct xqp_uverbs_send_wr), then the SGEs of
 * every WR in order (docs/uverbs.md "XRC sends").
 */
#ifndef XQP_UAPI_UVERBS_WQE_H
#define XQP_UAPI_UVERBS_WQE_H

#include "xqp_uverbs.h"

/* Bytes of a POST_SEND of @nwr WQEs and @nsge SGEs, the header included. */
#define XQP_UVERBS_POST_SEND_LEN(nwr, nsge)					\
	(sizeof(struct ib_uverbs_cmd_hdr) + sizeof(struct ib_uverbs_post_send) +	\
	 (nwr) * sizeof(struct xqp_uverbs_send_wr) +				\
	 (nsge) * sizeof(struct ib_uverbs_sge))

/* The opcodes @prefix##RDMA_WRITE ... are the kernel's (IBV_WR_, XQPV_WR_). */
#define XQP_UVERBS_ASSERT_WR_OPCODES(prefix)						\
	_Static_assert((int)prefix##RDMA_WRITE == (int)IB_UVERBS_WR_RDMA_WRITE &&	\
		       (int)prefix##RDMA_WRITE_WITH_IMM ==				\
		       (int)IB_UVERBS_WR_RDMA_WRITE_WITH_IMM &&				\
		       (int)prefix##SEND == (int)IB_UVERBS_WR_SEND &&			\
		       (int)prefix##SEND_WITH_IMM == (int)IB_UVERBS_WR_SEND_WITH_IMM &&	\
		       (int)prefix##RDMA_READ == (int)IB_UVERBS_WR_RDMA_READ &&		\
		       (int)prefix##ATOMIC_CMP_AND_SWP ==				\
		       (int)IB_UVERBS_WR_ATOMIC_CMP_AND_SWP &&				\
		       (int)prefix##ATOMIC_FETCH_AND_ADD ==				\
		       (int)IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD,				\
		       #prefix "* are not the IB_UVERBS_WR_* opcodes")

/*
 * Defines static void @name(struct xqp_uverbs_send_wr *k, const @wr_type *w,
 * int ud, int xrc_ini): WQE *k from WR *w. On a UD QP (@ud) the kernel reads
 * the address (w->wr.ud; an AH of NULL is handle 0), elsewhere the opcode's
 * rdma or atomic fields; on an XRC initiator QP (@xrc_ini) the target's SRQ
 * number trails the WQE. The SGEs are not part of it. Uses memset().
 */
#define XQP_UVERBS_DEFINE_SEND_WQE(name, wr_type)					\
static void name(struct xqp_uverbs_send_wr *k, const wr_type *w, int ud, int xrc_ini)	\
{											\
	memset(k, 0, sizeof(*k));							\
	k->wr.wr_id = w->wr_id;								\
	k->wr.num_sge = (__u32)w->num_sge;						\
	k->wr.opcode = (__u32)w->opcode;						\
	k->wr.send_flags = (__u32)w->send_flags;					\
	k->wr.ex.imm_data = w->imm_data;	/* or invalidate_rkey: one union */	\
	if (ud) {									\
		k->wr.wr.ud.ah = w->wr.ud.ah ? w->wr.ud.ah->handle : 0;			\
		k->wr.wr.ud.remote_qpn = w->wr.ud.remote_qpn;				\
		k->wr.wr.ud.remote_qkey = w->wr.ud.remote_qkey;				\
	} else {									\
		switch ((__u32)w->opcode) {						\
		case IB_UVERBS_WR_RDMA_WRITE:						\
		case IB_UVERBS_WR_RDMA_WRITE_WITH_IMM:					\
		case IB_UVERBS_WR_RDMA_READ:						\
			k->wr.wr.rdma.remote_addr = w->wr.rdma.remote_addr;		\
			k->wr.wr.rdma.rkey = w->wr.rdma.rkey;				\
			break;								\
		case IB_UVERBS_WR_ATOMIC_CMP_AND_SWP:					\
		case IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD:					\
			k->wr.wr.atomic.remote_addr = w->wr.atomic.remote_addr;		\
			k->wr.wr.atomic.compare_add = w->wr.atomic.compare_add;		\
			k->wr.wr.atomic.swap = w->wr.atomic.swap;			\
			k->wr.wr.atomic.rkey = w->wr.atomic.rkey;			\
			break;								\
		default:								\
			break;								\
		}									\
	}										\
	if (xrc_ini)									\
		k->xrc_remote_srq_num = w->qp_type.xrc.remote_srqn;			\
}

#endif /* XQP_UAPI_UVERBS_WQE_H */
