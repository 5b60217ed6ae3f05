/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xqp kernel API: Linux's verbs for shareable (XRC target) queue pairs, with
 * an xqp_ prefix. Shapes, enum values and errno rules follow Linux 6.12
 * (include/rdma/ib_verbs.h, drivers/infiniband/core/verbs.c); the deliberate
 * divergences are listed in docs/divergences.md.
 *
 * Pointer-returning calls return ERR_PTR-style values (IS_ERR/PTR_ERR work
 * on them in kernel C). Every object pointer is opaque.
 *
 * Context: all calls may sleep unless stated otherwise; event handlers are
 * called in atomic context and must not sleep.
 */
#ifndef XQP_VERBS_H
#define XQP_VERBS_H

#include "xqp/types.h"

XQP_EXTERN_C_BEGIN

struct xqp_device;
struct xqp_pd;
struct xqp_cq;
struct xqp_srq;
struct xqp_xrcd;
struct xqp_qp;		/* a real QP or a share of a shared XRC_TGT QP */
struct xqp_mr;
struct xqp_mw;
struct xqp_ah;
struct xqp_mem;		/* the memory an MR covers (xqp/driver.h) */

/*
 * Same values as enum ib_qp_type. GSI is QP1 of a port, for kernel callers
 * (ib_core's MAD layer on a linked device's ib_device): UD semantics, one
 * per port; uverbs never creates one (as Linux's, EINVAL).
 */
enum xqp_qp_type {
	XQP_QPT_GSI = 1,
	XQP_QPT_RC = 2,
	XQP_QPT_UC = 3,
	XQP_QPT_UD = 4,
	XQP_QPT_XRC_INI = 9,
	XQP_QPT_XRC_TGT = 10,
};

/* Same values as enum ib_qp_state. */
enum xqp_qp_state {
	XQP_QPS_RESET,
	XQP_QPS_INIT,
	XQP_QPS_RTR,
	XQP_QPS_RTS,
	XQP_QPS_SQD,
	XQP_QPS_SQE,
	XQP_QPS_ERR,
};

/* Same bits as enum ib_qp_attr_mask. */
enum xqp_qp_attr_mask {
	XQP_QP_STATE = 1,
	XQP_QP_CUR_STATE = 1 << 1,
	XQP_QP_EN_SQD_ASYNC_NOTIFY = 1 << 2,
	XQP_QP_ACCESS_FLAGS = 1 << 3,
	XQP_QP_PKEY_INDEX = 1 << 4,
	XQP_QP_PORT = 1 << 5,
	XQP_QP_QKEY = 1 << 6,
	XQP_QP_AV = 1 << 7,
	XQP_QP_PATH_MTU = 1 << 8,
	XQP_QP_TIMEOUT = 1 << 9,
	XQP_QP_RETRY_CNT = 1 << 10,
	XQP_QP_RNR_RETRY = 1 << 11,
	XQP_QP_RQ_PSN = 1 << 12,
	XQP_QP_MAX_QP_RD_ATOMIC = 1 << 13,
	XQP_QP_ALT_PATH = 1 << 14,
	XQP_QP_MIN_RNR_TIMER = 1 << 15,
	XQP_QP_SQ_PSN = 1 << 16,
	XQP_QP_MAX_DEST_RD_ATOMIC = 1 << 17,
	XQP_QP_PATH_MIG_STATE = 1 << 18,
	XQP_QP_CAP = 1 << 19,
	XQP_QP_DEST_QPN = 1 << 20,
	XQP_QP_RATE_LIMIT = 1 << 25,
	XQP_QP_ATTR_STANDARD_BITS = (1 << 21) - 1,
};

/* Same values as enum ib_event_type. */
enum xqp_event_type {
	XQP_EVENT_CQ_ERR,
	XQP_EVENT_QP_FATAL,
	XQP_EVENT_QP_REQ_ERR,
	XQP_EVENT_QP_ACCESS_ERR,
	XQP_EVENT_COMM_EST,
	XQP_EVENT_SQ_DRAINED,
	XQP_EVENT_PATH_MIG,
	XQP_EVENT_PATH_MIG_ERR,
	XQP_EVENT_DEVICE_FATAL,
	XQP_EVENT_PORT_ACTIVE,
	XQP_EVENT_PORT_ERR,
	XQP_EVENT_LID_CHANGE,
	XQP_EVENT_PKEY_CHANGE,
	XQP_EVENT_SM_CHANGE,
	XQP_EVENT_SRQ_ERR,
	XQP_EVENT_SRQ_LIMIT_REACHED,
	XQP_EVENT_QP_LAST_WQE_REACHED,
	XQP_EVENT_CLIENT_REREGISTER,
	XQP_EVENT_GID_CHANGE,
	XQP_EVENT_WQ_FATAL,
};

enum xqp_sig_type { XQP_SIGNAL_ALL_WR, XQP_SIGNAL_REQ_WR };
enum xqp_srq_type { XQP_SRQT_BASIC, XQP_SRQT_XRC };

struct xqp_event {
	struct xqp_device *device;
	union {
		struct xqp_cq *cq;
		struct xqp_qp *qp;
		struct xqp_srq *srq;
		xqp_u32 port_num;
	} element;
	enum xqp_event_type event;
};

typedef void (*xqp_event_handler_t)(struct xqp_event *event, void *context);
/*
 * event_flags of a QP, share, SRQ or CQ: the event_handler only queues or
 * wakes (uverbs' does): it may run where the driver raised the event, the
 * poster's context or a receive softirq included, IRQs possibly off.
 * Without it the handler runs from a work item of its object (process
 * context), as Linux drivers call theirs from a context of their own; it may
 * then post, and destroy the object it is called for (not its own share of
 * an XRC_TGT QP). Unknown bits: -EINVAL.
 */
#define XQP_EVENT_INLINE	0x1

struct xqp_qp_cap {
	xqp_u32 max_send_wr;
	xqp_u32 max_recv_wr;
	xqp_u32 max_send_sge;
	xqp_u32 max_recv_sge;
	xqp_u32 max_inline_data;
};

struct xqp_qp_init_attr {
	xqp_event_handler_t event_handler;
	void *qp_context;
	struct xqp_cq *send_cq;
	struct xqp_cq *recv_cq;
	struct xqp_srq *srq;
	struct xqp_xrcd *xrcd;		/* XRC_TGT only */
	struct xqp_qp_cap cap;		/* in: wish list; out: granted */
	enum xqp_sig_type sq_sig_type;	/* not ALL_WR: REQ_WR; kept, queried */
	enum xqp_qp_type qp_type;
	xqp_u32 create_flags;
	xqp_u32 port_num;
	xqp_u32 event_flags;		/* XQP_EVENT_INLINE */
};

struct xqp_qp_open_attr {
	xqp_event_handler_t event_handler;
	void *qp_context;
	xqp_u32 qp_num;
	enum xqp_qp_type qp_type;
	xqp_u32 event_flags;		/* XQP_EVENT_INLINE */
};

/* Address vector, the subset of struct rdma_ah_attr a soft device keeps. */
struct xqp_ah_attr {
	xqp_u8 dgid[16];
	xqp_u32 flow_label;
	xqp_u16 dlid;
	xqp_u8 sgid_index;
	xqp_u8 hop_limit;
	xqp_u8 traffic_class;
	xqp_u8 sl;
	xqp_u8 src_path_bits;
	xqp_u8 static_rate;
	xqp_u8 port_num;
	xqp_u8 is_global;
};

struct xqp_qp_attr {
	enum xqp_qp_state qp_state;
	enum xqp_qp_state cur_qp_state;
	xqp_u32 path_mtu;
	xqp_u32 path_mig_state;
	xqp_u32 qkey;
	xqp_u32 rq_psn;
	xqp_u32 sq_psn;
	xqp_u32 dest_qp_num;
	xqp_u32 qp_access_flags;
	struct xqp_qp_cap cap;
	struct xqp_ah_attr ah_attr;
	struct xqp_ah_attr alt_ah_attr;
	xqp_u16 pkey_index;
	xqp_u16 alt_pkey_index;
	xqp_u8 en_sqd_async_notify;
	xqp_u8 sq_draining;
	xqp_u8 max_rd_atomic;
	xqp_u8 max_dest_rd_atomic;
	xqp_u8 min_rnr_timer;
	xqp_u8 port_num;
	xqp_u8 timeout;
	xqp_u8 retry_cnt;
	xqp_u8 rnr_retry;
	xqp_u8 alt_port_num;
	xqp_u8 alt_timeout;
	xqp_u32 rate_limit;
};

struct xqp_srq_attr {
	xqp_u32 max_wr;
	xqp_u32 max_sge;
	xqp_u32 srq_limit;
};

struct xqp_srq_init_attr {
	xqp_event_handler_t event_handler;
	void *srq_context;
	struct xqp_srq_attr attr;	/* in: wish list; out: granted */
	enum xqp_srq_type srq_type;
	struct xqp_cq *cq;		/* XRC only */
	struct xqp_xrcd *xrcd;		/* XRC only */
	xqp_u32 event_flags;		/* XQP_EVENT_INLINE */
};

struct xqp_device_attr {
	xqp_u64 device_cap_flags;
	xqp_u32 vendor_id;
	xqp_u32 vendor_part_id;
	xqp_u32 hw_ver;
	xqp_u32 max_qp;
	xqp_u32 max_qp_wr;
	xqp_u32 max_send_sge;
	xqp_u32 max_recv_sge;
	xqp_u32 max_inline_data;
	xqp_u32 max_cq;
	xqp_u32 max_cqe;
	xqp_u32 max_pd;
	xqp_u32 max_xrcd;
	xqp_u32 max_srq;
	xqp_u32 max_srq_wr;
	xqp_u32 max_srq_sge;
	xqp_u32 max_qp_rd_atom;
	xqp_u32 max_qp_init_rd_atom;
	xqp_u64 node_guid;
	xqp_u64 sys_image_guid;
	xqp_u64 max_mr_size;
	xqp_u64 page_size_cap;
	xqp_u16 max_pkeys;
	xqp_u8 phys_port_cnt;
	xqp_u32 max_mr;
	xqp_u32 max_mw;
	xqp_u32 max_ah;			/* the core enforces it (xqp_create_ah()) */
	xqp_u32 max_sge_rd;		/* SGEs of an RDMA READ */
	xqp_u32 max_res_rd_atom;	/* READs and atomics in flight, device-wide */
	xqp_u8 atomic_cap;		/* enum xqp_atomic_cap */
	xqp_u8 local_ca_ack_delay;	/* 4.096 us * 2^value */
	xqp_u32 max_mcast_grp;		/* UD multicast groups */
	xqp_u32 max_mcast_qp_attach;	/* QPs attached to one group */
	xqp_u32 max_total_mcast_qp_attach;	/* attachments, all groups */
};

/* Same values as enum ib_atomic_cap. */
enum xqp_atomic_cap {
	XQP_ATOMIC_NONE,
	XQP_ATOMIC_HCA,		/* atomic against the device's own accesses */
	XQP_ATOMIC_GLOB,	/* ... and against the CPUs' */
};

/* Bits of device_cap_flags, as enum ib_device_cap_flags. */
#define XQP_DEVICE_MEM_WINDOW (1ULL << 17)
#define XQP_DEVICE_XRC (1ULL << 20)
#define XQP_DEVICE_MEM_WINDOW_TYPE_2B (1ULL << 24)

/* Same values as enum ib_port_state. */
enum xqp_port_state {
	XQP_PORT_NOP,
	XQP_PORT_DOWN,
	XQP_PORT_INIT,
	XQP_PORT_ARMED,
	XQP_PORT_ACTIVE,
	XQP_PORT_ACTIVE_DEFER,
};

/* Same values as enum ib_mtu. */
enum xqp_mtu {
	XQP_MTU_256 = 1,
	XQP_MTU_512,
	XQP_MTU_1024,
	XQP_MTU_2048,
	XQP_MTU_4096,
};

/* Same values as enum ib_port_phys_state. */
enum xqp_port_phys_state {
	XQP_PORT_PHYS_STATE_SLEEP = 1,
	XQP_PORT_PHYS_STATE_POLLING,
	XQP_PORT_PHYS_STATE_DISABLED,
	XQP_PORT_PHYS_STATE_PORT_CONFIGURATION_TRAINING,
	XQP_PORT_PHYS_STATE_LINK_UP,
	XQP_PORT_PHYS_STATE_LINK_ERROR_RECOVERY,
	XQP_PORT_PHYS_STATE_PHY_TEST,
};

/* Same values as enum ib_port_width. */
enum xqp_port_width {
	XQP_WIDTH_1X = 1,
	XQP_WIDTH_2X = 16,
	XQP_WIDTH_4X = 2,
	XQP_WIDTH_8X = 4,
	XQP_WIDTH_12X = 8,
};

/* Same values as enum ib_port_speed. */
enum xqp_port_speed {
	XQP_SPEED_SDR = 1,
	XQP_SPEED_DDR = 2,
	XQP_SPEED_QDR = 4,
	XQP_SPEED_FDR10 = 8,
	XQP_SPEED_FDR = 16,
	XQP_SPEED_EDR = 32,
	XQP_SPEED_HDR = 64,
	XQP_SPEED_NDR = 128,
	XQP_SPEED_XDR = 256,
};

/* Same values as enum rdma_link_layer. */
enum xqp_link_layer {
	XQP_LINK_LAYER_UNSPECIFIED,
	XQP_LINK_LAYER_INFINIBAND,
	XQP_LINK_LAYER_ETHERNET,
};

/*
 * A port's attributes: the part of struct ib_port_attr that uverbs reports
 * (struct ib_uverbs_query_port_resp), and the link layer (Linux asks the
 * driver's get_link_layer for it). Plain integers, named by the enums above,
 * so that whatever a driver stores is a value. LIDs are 16-bit IB LIDs.
 */
/* A GID's type, as ib_uverbs numbers them (enum ib_uverbs_gid_type). */
enum xqp_gid_type {
	XQP_GID_TYPE_IB = 0,
	XQP_GID_TYPE_ROCE_V1 = 1,
	XQP_GID_TYPE_ROCE_V2 = 2,
};

/* One entry of a port's GID table: what ib_uverbs' QUERY_GID_ENTRY returns. */
struct xqp_gid_entry {
	xqp_u8 gid[16];			/* network order */
	xqp_u32 gid_type;		/* enum xqp_gid_type */
	xqp_u32 ndev_ifindex;		/* the entry's netdev, 0 if none */
};

struct xqp_port_attr {
	xqp_u32 state;			/* enum xqp_port_state */
	xqp_u32 max_mtu;		/* enum xqp_mtu */
	xqp_u32 active_mtu;		/* enum xqp_mtu */
	xqp_u32 gid_tbl_len;
	xqp_u32 port_cap_flags;		/* PortInfo:CapabilityMask */
	xqp_u32 max_msg_sz;
	xqp_u32 bad_pkey_cntr;
	xqp_u32 qkey_viol_cntr;
	xqp_u16 pkey_tbl_len;
	xqp_u16 lid;
	xqp_u16 sm_lid;
	xqp_u16 active_speed;		/* enum xqp_port_speed */
	xqp_u8 lmc;
	xqp_u8 max_vl_num;
	xqp_u8 sm_sl;
	xqp_u8 subnet_timeout;
	xqp_u8 init_type_reply;
	xqp_u8 active_width;		/* enum xqp_port_width */
	xqp_u8 phys_state;		/* enum xqp_port_phys_state */
	xqp_u8 link_layer;		/* enum xqp_link_layer */
};

/* Opaque user-data buffers passed through to the driver (NULL in kernel use). */
struct xqp_udata {
	const void *inbuf;
	void *outbuf;
	xqp_size_t inlen;
	xqp_size_t outlen;
};

/* ---- devices ---------------------------------------------------------- */
int xqp_query_device(struct xqp_device *dev, struct xqp_device_attr *attr);
int xqp_query_port(struct xqp_device *dev, xqp_u32 port, struct xqp_port_attr *attr);
const char *xqp_device_name(const struct xqp_device *dev);
struct net_device;
struct net_device *xqp_device_netdev(struct xqp_device *dev, xqp_u32 port);
int xqp_port_stats(struct xqp_device *dev, xqp_u32 port, const char **names, xqp_u64 *values,
		   int max);
int xqp_modify_gid(struct xqp_device *dev, xqp_u32 port, xqp_u32 index,
		   const struct xqp_gid_entry *entry);
int xqp_query_gid(struct xqp_device *dev, xqp_u32 port, int index, xqp_u8 gid[16]);
int xqp_query_gid_entry(struct xqp_device *dev, xqp_u32 port, int index,
			struct xqp_gid_entry *entry);
int xqp_query_pkey(struct xqp_device *dev, xqp_u32 port, xqp_u16 index, xqp_u16 *pkey);

/* ---- PD / CQ ---------------------------------------------------------- */
struct xqp_pd *xqp_alloc_pd(struct xqp_device *dev);
int xqp_dealloc_pd(struct xqp_pd *pd);
struct xqp_cq *xqp_create_cq(struct xqp_device *dev, int cqe,
			     xqp_event_handler_t event_handler, void *cq_context);
int xqp_destroy_cq(struct xqp_cq *cq);
int xqp_cq_cqe(const struct xqp_cq *cq);	/* granted size, >= the request */

/* ---- XRC domains ------------------------------------------------------ */
struct xqp_xrcd *xqp_alloc_xrcd(struct xqp_device *dev);
int xqp_dealloc_xrcd(struct xqp_xrcd *xrcd);
xqp_u32 xqp_xrcd_usecnt(const struct xqp_xrcd *xrcd);
/* Inode opens (the char device keys XRCDs by inode): each counts in usecnt. */
void xqp_xrcd_get_user(struct xqp_xrcd *xrcd);
void xqp_xrcd_put_user(struct xqp_xrcd *xrcd);

/* ---- SRQ -------------------------------------------------------------- */
struct xqp_srq *xqp_create_srq(struct xqp_pd *pd, struct xqp_srq_init_attr *attr);
int xqp_destroy_srq(struct xqp_srq *srq);
xqp_u32 xqp_srq_num(const struct xqp_srq *srq);	/* the driver's number */

/* ---- QPs -------------------------------------------------------------- */
struct xqp_qp *xqp_create_qp_user(struct xqp_device *dev, struct xqp_pd *pd,
				  struct xqp_qp_init_attr *attr,
				  struct xqp_udata *udata, void *uobj,
				  const char *caller);
struct xqp_qp *xqp_open_qp(struct xqp_xrcd *xrcd,
			   const struct xqp_qp_open_attr *open_attr);
int xqp_close_qp(struct xqp_qp *qp);
int xqp_destroy_qp(struct xqp_qp *qp);
int xqp_modify_qp(struct xqp_qp *qp, struct xqp_qp_attr *attr, int attr_mask);
int xqp_query_qp(struct xqp_qp *qp, struct xqp_qp_attr *attr, int attr_mask,
		 struct xqp_qp_init_attr *init_attr);

/* Accessors: a share answers for its real QP. */
xqp_u32 xqp_qp_num(const struct xqp_qp *qp);
enum xqp_qp_type xqp_qp_get_type(const struct xqp_qp *qp);
struct xqp_qp *xqp_qp_real(struct xqp_qp *qp);	/* itself for a real QP */
int xqp_qp_is_share(const struct xqp_qp *qp);
void *xqp_qp_context(const struct xqp_qp *qp);
void *xqp_qp_uobject(const struct xqp_qp *qp);
xqp_u32 xqp_qp_share_count(const struct xqp_qp *qp);	/* of the real QP */
struct xqp_xrcd *xqp_qp_xrcd(const struct xqp_qp *qp);


/* ---- the data path: shapes and values of include/rdma/ib_verbs.h ------- */

/* Same bits as enum ib_access_flags. */
enum xqp_access_flags {
	XQP_ACCESS_LOCAL_WRITE = 1,
	XQP_ACCESS_REMOTE_WRITE = 1 << 1,
	XQP_ACCESS_REMOTE_READ = 1 << 2,
	XQP_ACCESS_REMOTE_ATOMIC = 1 << 3,
	XQP_ACCESS_MW_BIND = 1 << 4,		/* MRs: windows may be bound to it */
	XQP_ACCESS_ZERO_BASED = 1 << 5,		/* windows: addressed from 0 */
};

/* Same values as enum ib_wr_opcode (the ones a soft device executes). */
enum xqp_wr_opcode {
	XQP_WR_RDMA_WRITE = 0,
	XQP_WR_RDMA_WRITE_WITH_IMM = 1,
	XQP_WR_SEND = 2,
	XQP_WR_SEND_WITH_IMM = 3,
	XQP_WR_RDMA_READ = 4,
	XQP_WR_ATOMIC_CMP_AND_SWP = 5,
	XQP_WR_ATOMIC_FETCH_AND_ADD = 6,
	XQP_WR_LOCAL_INV = 7,		/* a type 2 window's rkey (wr.invalidate_rkey) */
	XQP_WR_BIND_MW = 8,		/* wr.bind */
	XQP_WR_SEND_WITH_INV = 9,	/* a SEND that invalidates a window at its target */
	/* IB opcodes the devices do not execute: a post is -XQP_EOPNOTSUPP */
	XQP_WR_LSO = 10,
	XQP_WR_RDMA_READ_WITH_INV = 11,
	XQP_WR_MASKED_ATOMIC_CMP_AND_SWP = 12,
	XQP_WR_MASKED_ATOMIC_FETCH_AND_ADD = 13,
	XQP_WR_FLUSH = 14,
	XQP_WR_ATOMIC_WRITE = 15,
};

/* Same bits as enum ib_send_flags. */
enum xqp_send_flags {
	XQP_SEND_FENCE = 1,
	XQP_SEND_SIGNALED = 1 << 1,
	XQP_SEND_SOLICITED = 1 << 2,
	XQP_SEND_INLINE = 1 << 3,
};

/* Same values as enum ib_wc_status. */
enum xqp_wc_status {
	XQP_WC_SUCCESS,
	XQP_WC_LOC_LEN_ERR,
	XQP_WC_LOC_QP_OP_ERR,
	XQP_WC_LOC_EEC_OP_ERR,
	XQP_WC_LOC_PROT_ERR,
	XQP_WC_WR_FLUSH_ERR,
	XQP_WC_MW_BIND_ERR,
	XQP_WC_BAD_RESP_ERR,
	XQP_WC_LOC_ACCESS_ERR,
	XQP_WC_REM_INV_REQ_ERR,
	XQP_WC_REM_ACCESS_ERR,
	XQP_WC_REM_OP_ERR,
	XQP_WC_RETRY_EXC_ERR,
	XQP_WC_RNR_RETRY_EXC_ERR,
	XQP_WC_LOC_RDD_VIOL_ERR,
	XQP_WC_REM_INV_RD_REQ_ERR,
	XQP_WC_REM_ABORT_ERR,
	XQP_WC_INV_EECN_ERR,
	XQP_WC_INV_EEC_STATE_ERR,
	XQP_WC_FATAL_ERR,
	XQP_WC_RESP_TIMEOUT_ERR,
	XQP_WC_GENERAL_ERR,
};

/* Same values as enum ib_wc_opcode. */
enum xqp_wc_opcode {
	XQP_WC_SEND = 0,
	XQP_WC_RDMA_WRITE = 1,
	XQP_WC_RDMA_READ = 2,
	XQP_WC_COMP_SWAP = 3,
	XQP_WC_FETCH_ADD = 4,
	XQP_WC_BIND_MW = 5,
	XQP_WC_LOCAL_INV = 6,
	XQP_WC_RECV = 1 << 7,
	XQP_WC_RECV_RDMA_WITH_IMM = (1 << 7) + 1,
};

/* Same bits as enum ib_wc_flags. */
enum xqp_wc_flags {
	XQP_WC_GRH = 1,
	XQP_WC_WITH_IMM = 1 << 1,
	XQP_WC_WITH_INVALIDATE = 1 << 2,	/* wc.invalidate_rkey was invalidated */
};

/* Same bits as enum ib_cq_notify_flags. */
enum xqp_cq_notify_flags {
	XQP_CQ_SOLICITED = 1,
	XQP_CQ_NEXT_COMP = 2,
	XQP_CQ_SOLICITED_MASK = 3,
	XQP_CQ_REPORT_MISSED_EVENTS = 4,
};

/* Same bits as enum ib_srq_attr_mask. */
enum xqp_srq_attr_mask {
	XQP_SRQ_MAX_WR = 1,
	XQP_SRQ_LIMIT = 2,
};

/* A scatter/gather element: @length bytes at @addr of the MR @lkey names. */
struct xqp_sge {
	xqp_u64 addr;
	xqp_u32 length;
	xqp_u32 lkey;
};

/*
 * A send work request, as struct ib_send_wr with its rdma/atomic/ud
 * extensions folded into one union. With XQP_SEND_INLINE the SGEs' addr
 * are kernel addresses of the caller's data, copied at post time (lkey is
 * not looked at). @imm_data is the big-endian immediate, passed as is.
 * @xrc_remote_srq_num: the XRC SRQ an XRC_INI QP's message goes to
 * (libibverbs' ibv_send_wr.qp_type.xrc.remote_srqn); ignored otherwise.
 * @invalidate_rkey: the window LOCAL_INV and SEND_WITH_INV invalidate.
 * @wr.bind (BIND_MW): binds @mw (the caller's, of the QP's PD) to
 * [@addr, @addr + @length) of the MR @mr_lkey names, with @access
 * (XQP_ACCESS_REMOTE_*, ZERO_BASED), under the new rkey @rkey: @mw's
 * index (rkey >> 8) with a key byte of the caller's choosing. A type 1
 * window with @length 0 is unbound. The device looks @mw and the MR up
 * when the WR executes.
 */
struct xqp_send_wr {
	struct xqp_send_wr *next;
	xqp_u64 wr_id;
	struct xqp_sge *sg_list;
	int num_sge;
	enum xqp_wr_opcode opcode;
	int send_flags;
	union {
		xqp_u32 imm_data;
		xqp_u32 invalidate_rkey;
	};
	union {
		struct {
			xqp_u64 remote_addr;
			xqp_u32 rkey;
		} rdma;
		struct {
			xqp_u64 remote_addr;
			xqp_u64 compare_add;
			xqp_u64 swap;
			xqp_u32 rkey;
		} atomic;
		struct {
			struct xqp_ah *ah;
			xqp_u32 remote_qpn;
			xqp_u32 remote_qkey;
		} ud;
		struct {
			struct xqp_mw *mw;
			xqp_u32 rkey;
			xqp_u32 mr_lkey;
			xqp_u64 addr;
			xqp_u64 length;
			int access;
		} bind;
	} wr;
	xqp_u32 xrc_remote_srq_num;
};

struct xqp_recv_wr {
	struct xqp_recv_wr *next;
	xqp_u64 wr_id;
	struct xqp_sge *sg_list;
	int num_sge;
};

/*
 * A work completion: the fields of struct ib_uverbs_wc (Linux's ib_wc has a
 * QP pointer; xqp reports the number: for XRC receives it is the XRC_TGT
 * QP's, whichever share the caller holds).
 */
struct xqp_wc {
	xqp_u64 wr_id;
	enum xqp_wc_status status;
	enum xqp_wc_opcode opcode;
	xqp_u32 vendor_err;
	xqp_u32 byte_len;
	union {
		xqp_u32 imm_data;	/* big-endian, as sent */
		xqp_u32 invalidate_rkey;	/* with XQP_WC_WITH_INVALIDATE */
	};
	xqp_u32 qp_num;
	xqp_u32 src_qp;
	int wc_flags;
	xqp_u16 pkey_index;
	xqp_u16 slid;
	xqp_u8 sl;
	xqp_u8 dlid_path_bits;
	xqp_u8 port_num;
};

/* What xqp_create_cq_attr() creates (ib_create_cq()'s arguments). */
typedef void (*xqp_comp_handler_t)(struct xqp_cq *cq, void *cq_context);
struct xqp_cq_init_attr {
	int cqe;
	xqp_comp_handler_t comp_handler;	/* after REQ_NOTIFY: xqp_create_cq_attr() */
	xqp_event_handler_t event_handler;
	void *cq_context;
	xqp_u32 flags;				/* XQP_CQ_COMP_INLINE */
	xqp_u32 event_flags;			/* XQP_EVENT_INLINE */
	xqp_comp_handler_t poll_wake;		/* after xqp_cq_arm_poll_wake() */
};
/*
 * The comp_handler only wakes a waiter (uverbs' does): it may run where the
 * completion was made, the poster's context included. Without it the
 * handler runs from a work item of the CQ, as Linux drivers call theirs from
 * a context of their own.
 */
#define XQP_CQ_COMP_INLINE	0x1
/*
 * poll_wake, if given, is called once after xqp_cq_arm_poll_wake(), where
 * the next completion is made (the poster's context, a softirq): it may
 * only wake a waiter. Independent of req_notify's arming and of the
 * comp_handler: a poller that waits with it causes no completion event.
 */

/* ---- memory regions ----------------------------------------------------- */
struct xqp_mr *xqp_reg_mr(struct xqp_pd *pd, struct xqp_mem *mem,
			  xqp_u64 iova, int access);
struct xqp_mr *xqp_reg_kernel_mr(struct xqp_pd *pd, void *addr, xqp_u64 length,
				 int access);
struct xqp_mr *xqp_get_dma_mr(struct xqp_pd *pd, int access);
int xqp_dereg_mr(struct xqp_mr *mr);
xqp_u32 xqp_mr_lkey(const struct xqp_mr *mr);
xqp_u32 xqp_mr_rkey(const struct xqp_mr *mr);
/* IB's rule (ib_check_mr_access): 0 or -EINVAL. */
int xqp_check_mr_access(int access);

/* ---- memory windows (types 1 and 2B, as rxe's) -------------------------- */
enum xqp_mw_type {
	XQP_MW_TYPE_1 = 1,
	XQP_MW_TYPE_2 = 2,
};
struct xqp_mw *xqp_alloc_mw(struct xqp_pd *pd, enum xqp_mw_type type);
int xqp_dealloc_mw(struct xqp_mw *mw);
/* The rkey the window was allocated with (a bind changes its key byte). */
xqp_u32 xqp_mw_rkey(const struct xqp_mw *mw);
enum xqp_mw_type xqp_mw_get_type(const struct xqp_mw *mw);

/* ---- UD multicast (ib_attach_mcast, ib_detach_mcast) --------------------- */
/*
 * Attach a UD QP to the multicast group @gid (an IPv6 multicast address,
 * or an IPv4-mapped one, as rdma_is_multicast_addr()); @lid is the group's
 * LID, checked against the IB multicast range unless the port is RoCE. An
 * attached QP receives every message sent to the group with QP number
 * 0xffffff (its own included) whose Q_Key is its own; it cannot be
 * destroyed (-EBUSY) until it is detached from every group.
 * Return: 0 (attaching twice is one attachment), -EINVAL (not UD, not a
 * multicast GID, a bad LID; detach: not attached), -ENOMEM (the device's
 * group or attachment limits), -EOPNOTSUPP, -EIO.
 */
#define XQP_MULTICAST_QPN	0xffffffU
int xqp_attach_mcast(struct xqp_qp *qp, const xqp_u8 gid[16], xqp_u16 lid);
int xqp_detach_mcast(struct xqp_qp *qp, const xqp_u8 gid[16], xqp_u16 lid);
/* Whether @gid is a multicast address (rdma_is_multicast_addr()). */
int xqp_gid_is_multicast(const xqp_u8 gid[16]);

/* ---- address handles (UD) ------------------------------------------------ */
struct xqp_ah *xqp_create_ah(struct xqp_pd *pd, const struct xqp_ah_attr *attr);
#define XQP_AH_NO_SLEEP	1	/* xqp_create_ah_flags(): any context */
struct xqp_ah *xqp_create_ah_flags(struct xqp_pd *pd, const struct xqp_ah_attr *attr,
				   int flags);
int xqp_destroy_ah(struct xqp_ah *ah);
const struct xqp_ah_attr *xqp_ah_get_attr(const struct xqp_ah *ah);

/* ---- completion queues ----------------------------------------------------- */
struct xqp_cq *xqp_create_cq_attr(struct xqp_device *dev,
				  const struct xqp_cq_init_attr *attr);
int xqp_poll_cq(struct xqp_cq *cq, int num_entries, struct xqp_wc *wc);
int xqp_req_notify_cq(struct xqp_cq *cq, int flags);
int xqp_cq_arm_poll_wake(struct xqp_cq *cq);
int xqp_resize_cq(struct xqp_cq *cq, int cqe);

/* ---- posting ------------------------------------------------------------- */
int xqp_post_send(struct xqp_qp *qp, const struct xqp_send_wr *wr,
		  const struct xqp_send_wr **bad_wr);
int xqp_post_recv(struct xqp_qp *qp, const struct xqp_recv_wr *wr,
		  const struct xqp_recv_wr **bad_wr);
int xqp_post_srq_recv(struct xqp_srq *srq, const struct xqp_recv_wr *wr,
		      const struct xqp_recv_wr **bad_wr);
int xqp_modify_srq(struct xqp_srq *srq, struct xqp_srq_attr *attr, int mask);
int xqp_query_srq(struct xqp_srq *srq, struct xqp_srq_attr *attr);

/* The IB spec's transition table, as ib_modify_qp_is_ok(). Returns 1 if ok. */
int xqp_modify_qp_is_ok(enum xqp_qp_state cur, enum xqp_qp_state next,
			enum xqp_qp_type type, int mask);

/* Sizes of the core's objects, for reports and benchmarks. */
struct xqp_object_sizes {
	xqp_size_t share;
	xqp_size_t real_qp;
	xqp_size_t xrcd;
};
void xqp_object_sizes(struct xqp_object_sizes *sizes);

XQP_EXTERN_C_END

#endif /* XQP_VERBS_H */
