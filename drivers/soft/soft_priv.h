/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The soft device's internals, shared by its files:
 *   soft.c    the control path (objects, attributes, number tables, ops)
 *   fabric.c  the subnet: devices by LID and GID
 *   mr.c      memory regions: keys, access checks, copying between them
 *   cq.c      completion queue rings, polling, arming
 *   wq.c      send/receive queue and SRQ rings, posting, flushing
 *   exec.c    executing send WQEs: requester and responder
 * docs/design.md ("The data path") tells where and how a WR executes.
 */
#ifndef XQP_SOFT_PRIV_H
#define XQP_SOFT_PRIV_H

#include "xqp/driver.h"
#include "xqp/seam.h"
#include "soft.h"
#include "wire.h"

#ifndef NULL
#define NULL ((void *)0)
#endif

/* The device's numbers and port, as the shared rules set them (drivers/rules/). */
#define SOFT_NUM_MASK		XQP_RULES_NUM_MASK
#define SOFT_NUM_SPACE		(SOFT_NUM_MASK + 1)

#define SOFT_PORT_CNT		XQP_RULES_PORT_CNT
#define SOFT_GID_TBL_LEN	XQP_RULES_GID_TBL_LEN
#define SOFT_MAX_MSG_SZ		XQP_RULES_MAX_MSG_SZ
#define SOFT_SGE_SIZE		XQP_RULES_SGE_SIZE
#define SOFT_UD_MTU		4096		/* the port's active MTU */
#define SOFT_GRH_SIZE		40		/* reserved at a UD receive buffer's start */
#define SOFT_QKEY_PRIV		0x80000000U	/* UD: use the QP's own Q_Key */
#define SOFT_MAX_NODES		64		/* devices on the subnet */
#define SOFT_ROCE_GID_TBL_LEN	XQP_RULES_ROCE_GID_TBL_LEN	/* a linked device's */

/* The GSI QP's number (IBA 3.5.6.2: QP1 of each port; one port here). */
#define SOFT_GSI_QPN		1U

/* Datagram QPs: UD, and GSI (QP1), which is UD with a fixed number. */
static inline int soft_is_ud(enum xqp_qp_type t)
{
	return t == XQP_QPT_UD || t == XQP_QPT_GSI;
}

static inline int soft_is_atomic(xqp_u32 opcode)
{
	return opcode == XQP_WR_ATOMIC_CMP_AND_SWP || opcode == XQP_WR_ATOMIC_FETCH_AND_ADD;
}

/* What takes a responder resource (max_dest_rd_atomic) and a requester's credit. */
/* Executed by the send queue itself, no message: BIND_MW, LOCAL_INV. */
static inline int soft_is_local_op(xqp_u32 opcode)
{
	return opcode == XQP_WR_BIND_MW || opcode == XQP_WR_LOCAL_INV;
}

static inline int soft_is_rd_atomic(xqp_u32 opcode)
{
	return opcode == XQP_WR_RDMA_READ || soft_is_atomic(opcode);
}

static inline xqp_u32 soft_min(xqp_u32 a, xqp_u32 b)
{
	return a < b ? a : b;
}

struct soft_leaf;

/* A map from 24-bit numbers to objects, with a cursor-based allocator. */
struct soft_numtab {
	xqp_u32 first;			/* lowest number handed out */
	xqp_u32 cursor;			/* where the next search starts */
	struct soft_leaf **leaf;	/* SOFT_LEAVES entries, NULL when empty */
	xqp_u16 *used;			/* numbers in use per leaf */
	struct soft_leaf *spare;	/* an all-NULL leaf, ready to install */
};

struct soft_inject {
	int countdown;			/* fires when it drops to 0 */
	int err;
};

/* One entry of a linked device's GID table. */
struct soft_gid {
	struct xqp_gid_entry entry;
	xqp_u8 valid;
};

/* What a device linked to a netdev has (link.c); under its soft->lock. */
struct soft_link {
	struct net_device *netdev;	/* opaque; held by the link's owner */
	void *net;			/* the netdev's network namespace (net.c) */
	void *sock;			/* its RoCE v2 socket (net.c), NULL: none */
	xqp_u8 up;			/* running with carrier: port ACTIVE */
	xqp_u32 active_mtu;		/* enum xqp_mtu */
	xqp_u32 ngids;			/* 1 + the highest valid entry */
	struct soft_gid gids[SOFT_ROCE_GID_TBL_LEN];
};

struct xqp_soft {
	struct xqp_device *dev;
	struct soft_link *link;		/* NULL: on the LID subnet only */
	struct xqp_soft_limits lim;
	xqp_u64 node_guid;		/* also the port GUID and GID 0's low half */
	xqp_u16 lid;			/* 0 while off the subnet */

	struct xqp_spinlock lock;	/* counts, qpns, srqns, mrns, cqs, mgrps */
	struct xqp_soft_counts counts;
	struct soft_numtab qpns;
	struct soft_numtab srqns;
	struct soft_numtab mrns;	/* MR and window index = key >> 8 */
	xqp_u32 key_gen;		/* low byte of the next MR key */
	xqp_u32 mw_serial;		/* the next window's (atomic) */
	struct soft_cq *cqs;		/* live CQs, for raise_cq_event */
	struct soft_mgrp **mgrps;	/* multicast groups by GID (mcast.c), or NULL */
	struct xqp_mutex mcast_mutex;	/* attach and detach: the link's MAC list too */

	struct xqp_soft_wire_counts wire;	/* atomics (wire_*.c) */

	struct soft_inject inject[XQP_SOFT_OP_COUNT];
	int count_data_path;		/* xqp_soft_count_data_path() */
	xqp_u64 calls[XQP_SOFT_OP_COUNT];
};

/* PDs and XRCDs: nothing but their owner. */
struct soft_obj {
	struct xqp_soft *soft;
};

/*
 * A reference that keeps an object while someone outside its owner uses
 * it (an event on its way, a remote requester); its destroy first makes it
 * unreachable, then sleeps until the count drains.
 */
struct soft_refs {
	int count;
	struct xqp_waitq drained;
};

void soft_refs_init(struct soft_refs *r);
void soft_refs_get(struct soft_refs *r);
void soft_refs_put(struct soft_refs *r);
void soft_refs_drain(struct soft_refs *r);

/* A ring of fixed-size entries: head is consumed, tail produced. */
struct soft_ring {
	struct xqp_spinlock lock;
	char *buf;
	xqp_u32 entry_size;
	xqp_u32 slots;			/* capacity (the granted WR count) */
	xqp_u32 head;			/* the oldest entry's slot, below slots */
	xqp_u32 count;			/* entries queued */
};

int soft_ring_init(struct soft_ring *r, xqp_u32 slots, xqp_u32 entry_size);
void soft_ring_free(struct soft_ring *r);
/* Entry @pos after the head's slot (pos < 2 * slots: head + count at most). */
static inline void *soft_ring_at(struct soft_ring *r, xqp_u32 pos)
{
	return r->buf + (xqp_size_t)(pos % r->slots) * r->entry_size;
}

/*
 * Drops the oldest entry. The head wraps at slots, never at 2^32: slots is
 * not a power of two (2^k - 1 WRs), so a free-running head's last slots
 * before 2^32 would alias the first ones.
 */
static inline void soft_ring_pop(struct soft_ring *r)
{
	r->head = r->head + 1 == r->slots ? 0 : r->head + 1;
	r->count--;
}

struct soft_cq {
	struct soft_obj obj;
	int cqe;			/* capacity */
	struct xqp_cq *core_cq;
	struct soft_refs refs;		/* events being delivered */
	struct soft_cq *next, **pprev;	/* soft->cqs, soft->lock */

	struct xqp_spinlock lock;	/* everything below */
	struct xqp_wc *ring;		/* cqe + 1 entries */
	xqp_u32 head, count;
	int armed;			/* 0, XQP_CQ_NEXT_COMP, XQP_CQ_SOLICITED */
	int poll_wake;			/* XQP_CQ_ARM_POLL_WAKE: a poller sleeps */
	xqp_u64 overruns;
};

/* A posted receive: its SGEs follow (max_sge of its queue). */
struct soft_rwqe {
	xqp_u64 wr_id;
	xqp_u32 num_sge;
	xqp_u32 reserved;
	struct xqp_sge sge[];
};

struct soft_srq {
	struct soft_obj obj;
	enum xqp_srq_type type;
	xqp_u32 srq_num;
	struct xqp_srq *core_srq;
	struct soft_refs refs;		/* events, XRC requesters */
	struct xqp_srq_attr attr;	/* ring.lock */
	void *pd;
	void *xrcd;
	struct soft_cq *cq;		/* XRC: where its receives complete */
	struct soft_ring ring;		/* struct soft_rwqe */
};

/*
 * A send WQE as queued: the WR's fields, the destination of a UD send
 * (copied from its AH at post time), then max(max_send_sge SGEs,
 * max_inline_data bytes) of payload: the SGEs, or the inline data.
 */
struct soft_swqe {
	xqp_u64 wr_id;
	xqp_u64 remote_addr;
	xqp_u64 compare_add;
	xqp_u64 swap;
	xqp_u32 opcode;			/* enum xqp_wr_opcode */
	xqp_u32 send_flags;
	xqp_u32 imm_data;
	xqp_u32 rkey;
	xqp_u32 num_sge;		/* 0 for inline data */
	xqp_u32 length;			/* message bytes */
	xqp_u32 xrc_srqn;
	xqp_u32 ud_qpn;
	xqp_u32 ud_qkey;
	struct xqp_ah_attr ud_av;
	xqp_u32 wire_psn;		/* on the wire: its first PSN, */
	xqp_u32 wire_npsn;		/*   the PSNs it takes, */
	xqp_u32 wire_got;		/*   READ response packets taken */
	xqp_u32 bind_mw;		/* BIND_MW: the window's index, */
	xqp_u32 bind_serial;		/*   its serial (mw.c), */
	xqp_u32 bind_lkey;		/*   the MR, */
	xqp_u32 bind_access;		/*   the access; rkey, remote_addr, */
	xqp_u64 bind_len;		/*   the range's start and length */
#if defined(__cplusplus) && defined(__clang__)
/* host C++ (clang) reads the zero-size union below: C gives it size 0 */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wextern-c-compat"
#endif
	union {
		struct xqp_sge sge[0];
		char inline_data[0];
	};
#if defined(__cplusplus) && defined(__clang__)
#pragma clang diagnostic pop
#endif
};

/* What executing a send WQE came to. */
enum soft_exec {
	SOFT_EXEC_DONE,			/* completed (with wc status) */
	SOFT_EXEC_RNR,			/* receiver not ready: retry later */
	SOFT_EXEC_RETRY,		/* no responder: retransmit after timeout */
	SOFT_EXEC_STALL,		/* a READ or atomic with max_rd_atomic 0: waits */
};

/*
 * A READ or atomic the responder executed, kept to answer its duplicate
 * (IBA 9.7.5.1.3: a READ is executed again, an atomic's result resent).
 */
struct soft_wire_res {
	xqp_u32 kind;			/* 0 (free), SOFT_OPF_READ or SOFT_OPF_ATOMIC */
	xqp_u32 psn;			/* the request's PSN */
	xqp_u32 npsn;			/* the PSNs its response takes */
	xqp_u64 va;			/* READ: the range */
	xqp_u32 rkey, len;
	xqp_u64 orig;			/* atomic: the value before */
	void *pd;			/* READ: its memory's PD */
	xqp_u32 msn;			/* the MSN its response carries */
};

#define SOFT_WIRE_MAX_RES	128	/* max_qp_rd_atom (drivers/rules/limits.h) */

/* The responder of a QP on a linked device (wire_resp.c); its lock. */
struct soft_wire_resp {
	struct xqp_spinlock lock;
	xqp_u32 epsn;			/* the PSN it expects */
	xqp_u32 msn;			/* messages completed (AETH) */
	xqp_u8 nak_sent;		/* a sequence NAK for epsn is out */
	xqp_u32 msg;			/* in a message: SOFT_OPF_SEND, _WRITE, 0 */
	xqp_u8 drop;			/* UC: dropping until a first packet */
	xqp_u8 have_rwqe;		/* rwqe holds a taken receive WQE */
	xqp_u32 offset;			/* bytes of the message taken */
	xqp_u64 va;			/* WRITE: where it goes, */
	xqp_u32 rkey, dma_len;		/*   as its first packet said */
	struct soft_srq *srq;		/* XRC: the SRQ of the message, referenced */
	struct soft_rwqe *rwqe;		/* XQP_RULES_MAX_SGE SGEs */
	struct soft_seg *seg;		/* XQP_RULES_MAX_SGE + 1 */
	struct soft_wire_res res[SOFT_WIRE_MAX_RES];
	xqp_u32 res_next;		/* the oldest, replaced next */
	xqp_u8 busy;			/* a READ response is being sent: */
	struct soft_wire_res read;	/*   which, */
	xqp_u32 read_next;		/*   its next packet; */
	xqp_u32 read_gen;		/*   bumped when it is replaced; */
	struct soft_wire_rd_wait {	/* READs taken meanwhile, or asked */
		xqp_u32 psn;		/*   again: from which PSN, */
		xqp_u8 slot;		/*   of which res[]; */
	} read_q[SOFT_WIRE_MAX_RES];
	xqp_u32 read_qh, read_qn;	/*   the first and how many; */
	xqp_u8 nak_busy;		/*   a request dropped meanwhile: NAK after */
};

/* The requester of a connected QP on the wire (wire_send.c); sq.lock. */
struct soft_wire_req {
	xqp_u32 tx_idx;			/* WQEs after the head wholly sent */
	xqp_u32 tx_off;			/* bytes of WQE tx_idx sent */
	xqp_u32 tx_psn;			/* the next PSN to send */
	xqp_u32 una;			/* the oldest PSN not acknowledged */
	xqp_u32 max_psn;		/* the PSN after the furthest one sent */
	xqp_u32 una_armed;		/* una when the timer was armed */
	xqp_u32 rd_out;			/* READs and atomics in flight */
	xqp_u32 since_ackreq;		/* packets sent without AckReq */
	int retry_left, rnr_left;	/* -1: full */
	xqp_u8 timer_on;
	xqp_u8 dead;			/* destroyed: no timer, no packet */
	xqp_u8 rnr_wait;		/* sending waits for the RNR timer */
	xqp_u8 read_reasked;		/* the head READ or atomic asked again */
	xqp_u8 went_back;		/* sent again from back_psn, no progress since */
	xqp_u32 back_psn;
	struct xqp_work timer;		/* retransmission and RNR timer */
	struct soft_seg *seg;		/* responses' SGEs (max_send_sge + 1) */
};

struct soft_qp {
	struct soft_obj obj;
	enum xqp_qp_type type;
	enum xqp_sig_type sq_sig_type;
	xqp_u32 qp_num;
	struct xqp_qp *core_qp;
	struct soft_refs refs;		/* events, remote requesters */
	void *pd;
	struct soft_cq *send_cq;
	struct soft_cq *recv_cq;
	struct soft_srq *srq;
	void *xrcd;

	struct xqp_spinlock lock;	/* attr */
	struct xqp_qp_attr attr;
	int state;			/* attr.qp_state, readable without lock */
	xqp_u32 mcast_groups;		/* groups it is attached to: soft->lock */
	xqp_u8 mcast_dead;		/* being destroyed: no attach (mcast_mutex) */

	/* The send queue and its runner (exec.c). */
	struct soft_ring sq;		/* struct soft_swqe, sq.lock also: */
	int sq_running;			/*   a runner is executing the SQ */
	int sq_again;			/*   someone kicked while it ran */
	int head_wait;			/*   the head waits for a retry timer */
	int head_started;		/*   the head was tried: SQD finishes it */
	int drain_pending;		/*   SQ_DRAINED is due once it finished */
	xqp_u32 sq_gen;			/*   bumped by RESET: drop what runs */
	int rnr_left;			/* the head's RNR retries (runner only) */
	int retry_left;			/* its transport retries (runner only) */
	struct xqp_work work;		/* deferred runs, retries */
	struct soft_swqe *cur;		/* the runner's copy of the head */
	struct soft_rwqe *rscratch;	/* a receive WQE taken (runner only) */
	struct soft_seg *lseg, *rseg;	/* resolved SGEs (runner only) */

	struct soft_ring rq;		/* struct soft_rwqe; none with an SRQ */

	/* RoCE v2 on the wire (wire_*.c): a linked device's QPs. */
	xqp_u8 on_wire;			/* connected: the peer is outside this kernel */
	struct soft_wire_req wreq;
	struct soft_wire_resp *wresp;	/* NULL unless linked */
	struct xqp_work rwork;		/* the responder's READ responses */
};

/* ---- pool.c ---- */
struct soft_qp *soft_qp_get(struct xqp_soft *soft, xqp_u32 qp_num);
/* The QP numbered *@qp_num or the next above it, referenced, and its number; NULL if none. */
struct soft_qp *soft_qp_get_next(struct xqp_soft *soft, xqp_u32 *qp_num);
struct soft_srq *soft_srq_get(struct xqp_soft *soft, xqp_u32 srq_num);
int soft_numtab_init(struct soft_numtab *tab, xqp_u32 first);
void soft_numtab_free(struct soft_numtab *tab);
int soft_numtab_insert(struct xqp_soft *soft, struct soft_numtab *tab,
		       xqp_u32 *count, xqp_u32 max, void *obj, xqp_u32 *num);
int soft_numtab_insert_at(struct xqp_soft *soft, struct soft_numtab *tab,
			  xqp_u32 *count, xqp_u32 max, void *obj, xqp_u32 num);
/* As soft_numtab_delete(), unless *@users (under soft->lock) is not 0: -EBUSY. */
int soft_numtab_delete_unused(struct xqp_soft *soft, struct soft_numtab *tab,
			      xqp_u32 *count, xqp_u32 num, const xqp_u32 *users);
void soft_numtab_delete(struct xqp_soft *soft, struct soft_numtab *tab,
			xqp_u32 *count, xqp_u32 num);
void *soft_numtab_lookup(struct soft_numtab *tab, xqp_u32 num);
/* A zeroed object of @size counted in @count (at most @max), or an error pointer. */
void *soft_obj_new(struct xqp_soft *soft, xqp_size_t size, xqp_u32 *count, xqp_u32 max);
void soft_obj_del(struct xqp_soft *soft, void *p, xqp_u32 *count);
int soft_owns(struct xqp_soft *soft, const void *p);

/* ---- inject.c ---- */
int soft_enter(struct xqp_soft *soft, enum xqp_soft_op op);
int soft_enter_obj(struct xqp_soft *soft, enum xqp_soft_op op, const void *obj);
int soft_enter_data_path(struct xqp_soft *soft, enum xqp_soft_op op);

/* ---- verbs.c, srq.c, qp.c: the object ops ---- */
int soft_alloc_pd(void *drv, void **drv_pd);
int soft_dealloc_pd(void *drv, void *drv_pd);
int soft_create_cq(void *drv, int cqe, void **drv_cq, int *granted_cqe,
		   struct xqp_cq *core_cq);
int soft_destroy_cq(void *drv, void *drv_cq);
int soft_alloc_xrcd(void *drv, void **drv_xrcd);
int soft_dealloc_xrcd(void *drv, void *drv_xrcd);
int soft_create_srq(void *drv, void *drv_pd, void *drv_xrcd, void *drv_cq,
		    struct xqp_srq_init_attr *init, void **drv_srq, xqp_u32 *srq_num,
		    struct xqp_srq *core_srq);
int soft_destroy_srq(void *drv, void *drv_srq);
int soft_create_qp(void *drv, const struct xqp_drv_qp_create *req,
		   struct xqp_drv_qp_created *out);
int soft_modify_qp(void *drv, void *drv_qp, const struct xqp_qp_attr *attr,
		   int mask);
int soft_query_qp(void *drv, void *drv_qp, struct xqp_qp_attr *attr,
		  int mask);
int soft_destroy_qp(void *drv, void *drv_qp);

/* ---- fabric.c ---- */
/* soft.c: a device, linked when @link (then owned by it), registered. */
struct xqp_soft *soft_create(const char *name, const struct xqp_soft_limits *lim,
			     struct soft_link *link);
/* link.c */
void soft_link_port(const struct soft_link *link, struct xqp_port_attr *attr);
void soft_link_gid(const struct soft_link *link, int index, xqp_u8 gid[16]);
int soft_link_has_gid(struct xqp_soft *soft, const xqp_u8 gid[16]);
struct net_device *soft_get_netdev(void *drv, xqp_u32 port);
int soft_modify_gid(void *drv, xqp_u32 port, xqp_u32 index, const struct xqp_gid_entry *entry);
int soft_link_gid_entry(struct xqp_soft *soft, int index, struct xqp_gid_entry *entry);
int soft_gid_equal(const xqp_u8 *a, const xqp_u8 *b);
int soft_fabric_join(struct xqp_soft *soft);
int soft_fabric_reaches(const struct xqp_ah_attr *av, struct xqp_soft *soft);
void soft_fabric_sgid(struct xqp_soft *soft, int index, xqp_u8 gid[16]);
void soft_fabric_leave(struct xqp_soft *soft);
/* The device an address vector reaches, with a QP reference; NULL if none. */
struct soft_qp *soft_fabric_find_qp(const struct xqp_ah_attr *av, xqp_u32 qp_num);
void soft_fabric_gid(const struct xqp_soft *soft, xqp_u8 gid[16]);
int soft_query_gid(void *drv, xqp_u32 port, int index, xqp_u8 gid[16]);
int soft_query_gid_entry(void *drv, xqp_u32 port, int index, struct xqp_gid_entry *entry);
int soft_query_pkey(void *drv, xqp_u32 port, xqp_u16 index, xqp_u16 *pkey);

/* ---- mcast.c ---- */
int soft_attach_mcast(void *drv, void *drv_qp, const xqp_u8 gid[16], xqp_u16 lid);
int soft_detach_mcast(void *drv, void *drv_qp, const xqp_u8 gid[16], xqp_u16 lid);
/* Destroy, before the QP's references drain: out of every group. */
void soft_mcast_qp_gone(struct soft_qp *qp);
/* Device teardown, no QP left: the group table goes. */
void soft_mcast_fini(struct xqp_soft *soft);
/* Whether a UD send to @av and QP @dqpn goes to a multicast group. */
int soft_mcast_dest(const struct xqp_ah_attr *av, xqp_u32 dqpn);
/*
 * The QPs of @soft attached to @mgid, referenced, into @qps (room for
 * XQP_RULES_MAX_MCAST_QP_ATTACH): how many. Any context.
 */
xqp_u32 soft_mcast_qps(struct xqp_soft *soft, const xqp_u8 mgid[16], struct soft_qp **qps);
/* The fabric's devices a multicast from @from reaches without the wire (fabric.c). */
int soft_fabric_mcast_peer(const struct xqp_soft *from, const struct xqp_soft *to);
/* Device @i of the fabric (0 .. SOFT_MAX_NODES - 1), or NULL. RCU read lock held. */
struct xqp_soft *soft_fabric_node(int i);

/* ---- mr.c ---- */
#define SOFT_KEY_SHIFT		8	/* a key: its index in soft->mrns, a key byte */

/* What a key in soft->mrns names: an MR, or a memory window (mw.c). */
struct soft_keyed {
	struct soft_obj obj;
	xqp_u32 key;			/* a window's changes at bind: soft->lock */
	xqp_u8 is_mw;
};

struct soft_mr {
	struct soft_keyed k;
	int access;
	xqp_u64 iova;
	xqp_u64 length;
	void *pd;
	struct xqp_mem *mem;
	struct soft_refs refs;
	xqp_u32 num_mw;			/* windows bound to it: soft->lock */
};

int soft_reg_mr(void *drv, void *drv_pd, struct xqp_mem *mem, xqp_u64 iova,
		int access, void **drv_mr, xqp_u32 *lkey, xqp_u32 *rkey);
int soft_dereg_mr(void *drv, void *drv_mr);
/* A new key for index @index: a fresh key byte. */
xqp_u32 soft_key_make(struct xqp_soft *soft, xqp_u32 index);
/* What @key names (its key byte matching), or NULL. Caller holds soft->lock. */
struct soft_keyed *soft_keyed_find(struct xqp_soft *soft, xqp_u32 key);
/* The MR @key names, or NULL. Caller holds soft->lock. */
struct soft_mr *soft_mr_find(struct xqp_soft *soft, xqp_u32 key);

/* One resolved piece of a scatter/gather list. */
struct soft_seg {
	struct soft_mr *mr;		/* NULL: @buf is kernel memory (inline) */
	char *buf;
	xqp_u64 offset;			/* into the MR's memory */
	xqp_u32 length;
};

/*
 * Resolves @n SGEs of a QP whose PD is @pd into @seg (references taken);
 * @access: XQP_ACCESS_LOCAL_WRITE when the device writes into them.
 * Return: XQP_WC_SUCCESS or LOC_PROT_ERR; nothing held on error.
 */
int soft_sges_get(struct xqp_soft *soft, void *pd, const struct xqp_sge *sge,
		  xqp_u32 n, int access, struct soft_seg *seg, xqp_u64 *total);
/*
 * Resolves bytes [@off, @off + @len) of a receive WQE's @n SGEs into @seg
 * (@n entries, one per SGE, empty where no byte of the range falls), with
 * access LOCAL_WRITE in @pd: only the bytes a message writes, as rxe and
 * hardware check a receive (an SGE past its MR, or one no byte reaches,
 * is no error).
 * Return: XQP_WC_SUCCESS; LOC_LEN_ERR when the range ends past the WQE's
 * SGEs (no MR looked at); LOC_PROT_ERR; nothing held on error.
 */
int soft_recv_range_get(struct xqp_soft *soft, void *pd, const struct xqp_sge *sge,
			xqp_u32 n, xqp_u64 off, xqp_u64 len, struct soft_seg *seg);
/*
 * One remote range by rkey, an MR's or a window's, for the responder QP
 * @qpn (a type 2 window is bound to one) of PD @pd.
 * Return: XQP_WC_SUCCESS or REM_ACCESS_ERR.
 */
int soft_rkey_get(struct xqp_soft *soft, void *pd, xqp_u32 qpn, xqp_u32 rkey,
		  xqp_u64 addr, xqp_u32 len, int access, struct soft_seg *seg);

/* ---- mw.c ---- */
int soft_alloc_mw(void *drv, void *drv_pd, enum xqp_mw_type type, void **drv_mw,
		  xqp_u32 *rkey);
int soft_dealloc_mw(void *drv, void *drv_mw);
/*
 * The MR under window @k for a remote access of [*@addr, + @len) with
 * @access at QP @qpn of PD @pd, *@addr made the MR's address; NULL if the
 * window refuses it. Caller holds soft->lock.
 */
struct soft_mr *soft_mw_target(struct soft_keyed *k, void *pd, xqp_u32 qpn,
			       xqp_u64 *addr, xqp_u32 len, int access);
/* Fills a BIND_MW WQE @w of @qp from @wr: 0, or -EINVAL (no window of this device). */
int soft_mw_bind_post(struct soft_qp *qp, struct soft_swqe *w, const struct xqp_send_wr *wr);
/*
 * A BIND_MW or LOCAL_INV WQE of @qp, executed once the WQEs before it are:
 * XQP_WC_SUCCESS, MW_BIND_ERR (a bind refused) or LOC_QP_OP_ERR (an
 * invalidation refused, as rxe).
 */
int soft_mw_local_op(struct soft_qp *qp, const struct soft_swqe *w);
/*
 * Invalidates the type 2 window @rkey names, of PD @pd: for a LOCAL_INV
 * (@qpn SOFT_ANY_QPN) or a SEND_WITH_INV received at QP @qpn, which must
 * be the window's. Return: 0, or -EINVAL (no such window, another PD or
 * QP, type 1, not bound).
 */
#define SOFT_ANY_QPN	0xffffffffU
int soft_mw_invalidate(struct xqp_soft *soft, void *pd, xqp_u32 qpn, xqp_u32 rkey);
void soft_segs_put(struct soft_seg *seg, xqp_u32 n);
/* Drops the first @skip bytes of @seg[0..n) (UD: the GRH room). 1 if they fit. */
int soft_segs_skip(struct soft_seg *seg, xqp_u32 n, xqp_u32 skip);
/* Copies min(both totals, @len) bytes; returns the bytes copied. */
xqp_u64 soft_segs_copy(struct soft_seg *dst, xqp_u32 ndst, struct soft_seg *src,
		       xqp_u32 nsrc, xqp_u64 len);
/* An 8-byte atomic at @seg; *@old the value before. -EINVAL: memory misaligned. */
int soft_seg_atomic(struct soft_seg *seg, int cmp_swap, xqp_u64 compare_add,
		    xqp_u64 swap, xqp_u64 *old);

/* ---- cq.c ---- */
int soft_cq_init(struct soft_cq *cq, int cqe);
void soft_cq_fini(struct soft_cq *cq);
/* Queues @wc; arms fire; a full CQ loses it and reports CQ_ERR. */
void soft_cq_post(struct soft_cq *cq, const struct xqp_wc *wc, int solicited);
int soft_poll_cq(void *drv, void *drv_cq, int num, struct xqp_wc *wc);
int soft_req_notify_cq(void *drv, void *drv_cq, int flags);
int soft_resize_cq(void *drv, void *drv_cq, int cqe, int *granted);

/* ---- wq.c ---- */
int soft_qp_queues_init(struct soft_qp *qp);
void soft_qp_queues_fini(struct soft_qp *qp);
int soft_srq_ring_init(struct soft_srq *srq);
int soft_post_send(void *drv, void *drv_qp, const struct xqp_send_wr *wr,
		   const struct xqp_send_wr **bad_wr);
int soft_post_recv(void *drv, void *drv_qp, const struct xqp_recv_wr *wr,
		   const struct xqp_recv_wr **bad_wr);
int soft_post_srq_recv(void *drv, void *drv_srq, const struct xqp_recv_wr *wr,
		       const struct xqp_recv_wr **bad_wr);
int soft_modify_srq(void *drv, void *drv_srq, struct xqp_srq_attr *attr, int mask);
int soft_query_srq(void *drv, void *drv_srq, struct xqp_srq_attr *attr);
/* Takes the next receive WQE of @qp (its RQ or @srq) into @out: 1, or 0. */
int soft_take_recv(struct soft_qp *qp, struct soft_srq *srq, struct soft_rwqe *out);
/* Completes every receive WQE of @qp's RQ with WR_FLUSH_ERR. */
void soft_flush_rq(struct soft_qp *qp);
/* Drops every WQE of both queues without completions (RESET). */
void soft_qp_reset_queues(struct soft_qp *qp);

/* ---- exec.c ---- */
void soft_exec_init(struct soft_qp *qp);
/* Runs the SQ now if the caller may sleep, else on the work queue. */
void soft_sq_kick(struct soft_qp *qp);
/* After destroy made the QP unreachable: no run in flight or to come. */
void soft_sq_stop(struct soft_qp *qp);
/* Moves @qp to ERR (if not there), reports @event (-1: none), flushes. */
void soft_qp_to_err(struct soft_qp *qp, int event);
/* modify_qp's hook: what a new state means for the queues. */
void soft_qp_state_changed(struct soft_qp *qp, int old_state, int new_state,
			   int sqd_notify);

/* ---- the network: net.c in the kernel, the host tests' wire ---- */
/* Where a packet goes: GIDs (IPv4-mapped or IPv6), the GRH's fields. */
struct soft_route {
	xqp_u8 sgid[16], dgid[16];
	xqp_u8 tclass, hop_limit;
	xqp_u32 flow_label;
	xqp_u16 sport;			/* UDP source port */
};
/* Opens the link's namespace's socket for @soft (a linked device): 0 or -errno. */
int soft_net_attach(struct xqp_soft *soft);
void soft_net_detach(struct xqp_soft *soft);
/* A packet of @len bytes (BTH to ICRC) to fill at *@data; NULL: no memory. Any context. */
void *soft_net_alloc(struct xqp_soft *soft, xqp_u32 len, xqp_u8 **data);
/* Adds the UDP and IP headers and the ICRC, sends, frees: 0 or -errno. No lock held. */
int soft_net_xmit(struct xqp_soft *soft, void *pkt, const struct soft_route *rt);
void soft_net_free(void *pkt);
/* The link's netdev takes (@add) or stops taking frames to @mgid's MAC: 0 or -errno. */
int soft_net_mcast(struct xqp_soft *soft, const xqp_u8 mgid[16], int add);

/* ---- wire_recv.c, wire_send.c, wire_resp.c, wire_ack.c ---- */
#define SOFT_WIRE_COUNT(soft, f) __atomic_add_fetch(&(soft)->wire.f, 1, __ATOMIC_RELAXED)
/*
 * A datagram to port 4791 that arrived on @soft's link: @ip its IP header
 * (@ipv6, else IPv4 without options), the UDP header right after, @bth the
 * UDP payload of @len bytes. Context: softirq, RCU read lock held.
 */
void soft_wire_rx(struct xqp_soft *soft, const xqp_u8 *ip, int ipv6,
		  const xqp_u8 *bth, xqp_u32 len);
/* One received packet, parsed, with where it came from. */
struct soft_rx {
	struct soft_pkt pkt;
	const xqp_u8 *payload;
	const xqp_u8 *ip;		/* its IP header, for a UD GRH */
	int ipv6;
	xqp_u8 sgid[16], dgid[16];	/* source and destination GIDs */
};
int soft_wire_qp_init(struct soft_qp *qp);
/* Destroy, once unreachable: its timers stop for good (then soft_sq_stop). */
void soft_wire_qp_stop(struct soft_qp *qp);
void soft_wire_qp_fini(struct soft_qp *qp);
/* To RTR: whether @qp's peer is outside this kernel (on_wire), the PSN
 * expected; RTR to RTS: the PSN to send. */
void soft_wire_connect(struct soft_qp *qp, int old_state, int new_state);
/* A UD destination outside this kernel (or its link's namespace). */
int soft_wire_ud_remote(struct soft_qp *qp, const struct xqp_ah_attr *av);
/* RESET: the requester and responder start afresh. */
void soft_wire_reset(struct soft_qp *qp);
/* The runner's part for a QP on the wire: 1 if work is left. */
int soft_wire_sq_run(struct soft_qp *qp, int budget);
/* A UD send to a GID outside this kernel: the WQE's status. */
int soft_wire_send_ud(struct soft_qp *qp, struct soft_swqe *w);
int soft_wire_route(struct soft_qp *qp, const struct xqp_ah_attr *av, struct soft_route *rt);
/* Sends one packet built from @pkt, its payload read from @seg at @off. */
int soft_wire_emit(struct xqp_soft *soft, const struct soft_route *rt, struct soft_pkt *pkt,
		   struct soft_seg *seg, xqp_u32 nseg, xqp_u64 off);
void soft_wire_respond(struct soft_qp *qp, struct soft_rx *rx);
void soft_wire_resp_work(struct xqp_work *work);
void soft_wire_ack(struct soft_qp *qp, struct soft_rx *rx);
void soft_wire_timer(struct xqp_work *work);
/* The send queue's head WQE (caller holds sq.lock; sq.count > 0). */
static inline struct soft_swqe *soft_head(struct soft_qp *qp)
{
	return (struct soft_swqe *)soft_ring_at(&qp->sq, qp->sq.head);
}

/* wire_send.c, for wire_ack.c; each with sq.lock held */
/* Sends again from @psn: the WQE holding it and those after (a READ whole). */
void soft_wire_rewind(struct soft_qp *qp, xqp_u32 psn);
/* Acknowledgement came: the retry budgets start afresh. */
void soft_wire_progress(struct soft_qp *qp);
/* Takes a retry (@rnr: an RNR one): 1 if one was left or they are endless. */
int soft_wire_take_retry(struct soft_qp *qp, int rnr);
/* Completes the head with @status and drops sq.lock (an error: the QP errs). */
void soft_wire_pop(struct soft_qp *qp, unsigned long flags, int status);
xqp_u32 soft_wire_mtu(struct soft_qp *qp);
/* exec.c's requester completion, for the wire's */
void soft_sq_complete(struct soft_qp *qp, const struct soft_swqe *w, int status,
		      xqp_u32 byte_len);
xqp_u32 soft_timeout_us(xqp_u8 timeout);
xqp_u32 soft_rnr_delay_us(xqp_u8 timer);
/* fabric.c: the linked device on @netdev; RCU read lock held */
struct xqp_soft *soft_fabric_by_netdev(const struct net_device *netdev);
/* fabric.c: whether a device in this kernel (and @net) has @gid */
int soft_fabric_gid_is_local(const xqp_u8 gid[16], const void *net);

#endif /* XQP_SOFT_PRIV_H */
