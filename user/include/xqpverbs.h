/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * libxqpverbs: userspace verbs for xqp's shareable XRC target QPs.
 *
 * The API mirrors libibverbs (<infiniband/verbs.h>) with an xqpv_ prefix
 * (XQPV_ for constants): ibv_open_device() -> xqpv_open_device(), struct
 * ibv_qp_open_attr -> struct xqpv_qp_open_attr, IBV_QPT_XRC_RECV ->
 * XQPV_QPT_XRC_RECV, and so on. The xqp_ prefix belongs to the kernel API
 * (core/include/xqp/verbs.h), whose types and calls differ; only the names
 * of the ABI itself (<xqp_uverbs.h>: xqp_uverbs_*, XQP_UVERBS_*) are shared,
 * and they mean the same on both sides.
 * It talks the uverbs write ABI of <rdma/ib_user_verbs.h> to a uverbs
 * character device, so the same program drives /dev/xqp/uverbsN (xqp) and
 * /dev/infiniband/uverbsN (Linux's own ib_uverbs).
 *
 * Conventions (as libibverbs):
 *   - functions returning a pointer return NULL on failure and set errno;
 *   - functions returning int return 0 or a positive errno value (errno is
 *     set too);
 *   - objects are owned by the caller until destroyed; destroying a
 *     context's objects is the caller's job, but closing the device (or
 *     exiting, or being killed) releases everything the kernel holds for it.
 *
 * Thread safety: calls on different objects may run concurrently; an object
 * must not be used while it is being destroyed.
 *
 * Link with -lxqpverbs (pkg-config --libs xqpverbs); static library.
 */
#ifndef XQPVERBS_H
#define XQPVERBS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ======================================================================
 * Devices
 * ====================================================================== */

struct xqpv_device {
	char name[64];		/* the kernel device ("xqp_soft0", "xqp_ref0") */
	char dev_name[64];	/* the char device ("uverbs0") */
	char dev_path[256];	/* "/dev/xqp/uverbs0", "/dev/infiniband/uverbs0" */
	int is_xqp;		/* 1: xqp's char device; 0: Linux's ib_uverbs */
};

/**
 * xqpv_get_device_list - list the uverbs devices of this machine.
 * @num_devices: if not NULL, receives the number of devices.
 *
 * Lists xqp's devices (/sys/class/xqp_uverbs) first, then Linux's
 * (/sys/class/infiniband_verbs).
 *
 * Return: a NULL-terminated array, to be freed with xqpv_free_device_list(),
 * or NULL with errno set (ENOMEM). An empty list is not an error.
 */
struct xqpv_device **xqpv_get_device_list(int *num_devices);

/** xqpv_free_device_list - free a list from xqpv_get_device_list(). */
void xqpv_free_device_list(struct xqpv_device **list);

/** xqpv_get_device_name - the kernel device's name. */
const char *xqpv_get_device_name(struct xqpv_device *device);

/* ======================================================================
 * Contexts
 * ====================================================================== */

struct xqpv_context {
	struct xqpv_device *device;
	int cmd_fd;		/* the uverbs char device; raw write()s allowed */
	int async_fd;		/* events: see xqpv_get_async_event() */
	int num_comp_vectors;
	struct xqpv_device owned_device;	/* for xqpv_open_device_path() */
};

/**
 * xqpv_open_device - open a device and create its verbs context
 * (GET_CONTEXT). Every object created through the context lives in the
 * kernel until destroyed, or until the context's file is closed by every
 * process that has it (fork shares it; see below).
 *
 * Fork: a child inherits the file. Linux refuses commands written by a
 * process whose credentials differ from the opener's (EACCES), and a
 * forked child has its own credentials, so the child should not issue
 * commands on an inherited context: it opens its own. The inherited file
 * keeps the parent's objects alive until the child closes or exits too.
 *
 * Return: the context, or NULL with errno (ENOENT, EACCES, EIO, ...).
 */
struct xqpv_context *xqpv_open_device(struct xqpv_device *device);

/**
 * xqpv_open_device_path - as xqpv_open_device(), for a char device path
 * ("/dev/xqp/uverbs0" or "/dev/infiniband/uverbs0").
 */
struct xqpv_context *xqpv_open_device_path(const char *path);

/**
 * xqpv_close_device - close the context. Objects not destroyed are released
 * by the kernel (dependents first); shared QPs stay alive for the other
 * processes holding them. Return: 0, or errno.
 */
int xqpv_close_device(struct xqpv_context *context);

struct xqpv_device_attr {
	uint64_t node_guid;	/* host byte order */
	uint64_t sys_image_guid;
	uint64_t max_mr_size;
	uint64_t page_size_cap;
	uint32_t vendor_id;
	uint32_t vendor_part_id;
	uint32_t hw_ver;
	int max_qp;
	int max_qp_wr;
	unsigned int device_cap_flags;	/* XQPV_DEVICE_XRC, ... */
	int max_sge;
	int max_cq;
	int max_cqe;
	int max_pd;
	int max_qp_rd_atom;
	int max_qp_init_rd_atom;
	int max_srq;
	int max_srq_wr;
	int max_srq_sge;
	uint16_t max_pkeys;
	uint8_t phys_port_cnt;
};

#define XQPV_DEVICE_XRC	(1U << 20)	/* IBV_DEVICE_XRC */

/** xqpv_query_device - QUERY_DEVICE. Return: 0 or errno. */
int xqpv_query_device(struct xqpv_context *context, struct xqpv_device_attr *attr);

/* The driver's answer to QUERY_PORT, field for field (ibv_port_attr's). */
struct xqpv_port_attr {
	int state;		/* 4 = active */
	int max_mtu;		/* 1..5 = 256..4096 bytes */
	int active_mtu;
	int gid_tbl_len;
	uint32_t port_cap_flags;
	uint32_t max_msg_sz;
	uint16_t pkey_tbl_len;
	uint16_t lid;
	uint8_t link_layer;	/* 1 = InfiniBand, 2 = Ethernet */
	uint8_t phys_state;	/* 5 = LinkUp */
	uint32_t bad_pkey_cntr;
	uint32_t qkey_viol_cntr;
	uint16_t sm_lid;
	uint8_t lmc;
	uint8_t max_vl_num;
	uint8_t sm_sl;
	uint8_t subnet_timeout;
	uint8_t init_type_reply;
	uint8_t active_width;	/* 1 = 1X, 2 = 4X, 4 = 8X, 8 = 12X, 16 = 2X */
	uint8_t active_speed;	/* 1 = SDR, 2 = DDR, 4 = QDR, ... 128 = NDR */
	uint8_t flags;		/* IB_UVERBS_QPF_GRH_REQUIRED */
};

/** xqpv_query_port - QUERY_PORT of port @port_num (1-based). 0 or errno. */
int xqpv_query_port(struct xqpv_context *context, uint8_t port_num,
		   struct xqpv_port_attr *attr);

/* ======================================================================
 * Protection domains, completion queues
 * ====================================================================== */

struct xqpv_pd {
	struct xqpv_context *context;
	uint32_t handle;
};

/** xqpv_alloc_pd - ALLOC_PD. Return: the PD, or NULL with errno. */
struct xqpv_pd *xqpv_alloc_pd(struct xqpv_context *context);

/** xqpv_dealloc_pd - DEALLOC_PD: EBUSY while QPs or SRQs use it. */
int xqpv_dealloc_pd(struct xqpv_pd *pd);

struct xqpv_comp_channel;

struct xqpv_cq {
	struct xqpv_context *context;
	void *cq_context;
	uint32_t handle;
	int cqe;		/* what the driver granted: at least the request */
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	uint32_t async_events_completed;
	struct xqpv_comp_channel *channel;	/* NULL: none */
	uint32_t comp_events_completed;	/* xqpv_ack_cq_events() */
};

/**
 * xqpv_create_cq - CREATE_CQ with at least @cqe entries (ibv_create_cq(3)).
 * @cq_context: returned by xqpv_get_cq_event() for this CQ.
 * @channel: the completion channel that gets this CQ's completion events
 *           (after xqpv_req_notify_cq()), or NULL for none. The channel
 *           cannot be destroyed while the CQ uses it.
 * @comp_vector: completion vector, 0 .. context->num_comp_vectors - 1
 *           (else EINVAL from the kernel).
 * Return: CQ (cq->cqe = the granted size) or NULL + errno (EBADF: @channel
 * is not a completion channel of this device).
 */
struct xqpv_cq *xqpv_create_cq(struct xqpv_context *context, int cqe,
			     void *cq_context, struct xqpv_comp_channel *channel,
			     int comp_vector);

/**
 * xqpv_destroy_cq - DESTROY_CQ: EBUSY while QPs or SRQs use it. Waits until
 * every async event and every completion event of this CQ that was read
 * has been acknowledged (xqpv_ack_async_event(), xqpv_ack_cq_events()).
 */
int xqpv_destroy_cq(struct xqpv_cq *cq);

/* ======================================================================
 * XRC domains (ibv_open_xrcd(3))
 * ====================================================================== */

enum xqpv_xrcd_init_attr_mask {
	XQPV_XRCD_INIT_ATTR_FD = 1 << 0,
	XQPV_XRCD_INIT_ATTR_OFLAGS = 1 << 1,
	XQPV_XRCD_INIT_ATTR_RESERVED = 1 << 2,
};

struct xqpv_xrcd_init_attr {
	uint32_t comp_mask;	/* both FD and OFLAGS are required */
	int fd;			/* -1: a private XRCD; else shared by inode */
	int oflags;		/* O_CREAT, O_EXCL */
};

struct xqpv_xrcd {
	struct xqpv_context *context;
	uint32_t handle;
};

/**
 * xqpv_open_xrcd - open an XRC domain (OPEN_XRCD).
 *
 * With fd = -1 a new private XRCD. Otherwise processes that open the same
 * file (the same inode) on the same device share one XRCD: O_CREAT creates
 * it if needed; without O_CREAT, EAGAIN if it does not exist yet;
 * O_CREAT|O_EXCL: EINVAL if it already exists. A bad fd: EBADF.
 * The XRCD lives until its last opener closes it.
 *
 * Return: the XRCD, or NULL with errno: EOPNOTSUPP for comp_mask bits past
 * XQPV_XRCD_INIT_ATTR_OFLAGS, EINVAL without both FD and OFLAGS, or the
 * kernel's error.
 */
struct xqpv_xrcd *xqpv_open_xrcd(struct xqpv_context *context,
			       struct xqpv_xrcd_init_attr *xrcd_init_attr);

/**
 * xqpv_close_xrcd - CLOSE_XRCD: EBUSY while this context still has QPs,
 * opened QPs or XRC SRQs in it.
 */
int xqpv_close_xrcd(struct xqpv_xrcd *xrcd);

/* ======================================================================
 * Shared receive queues (ibv_create_srq_ex(3))
 * ====================================================================== */

enum xqpv_srq_type {
	XQPV_SRQT_BASIC,
	XQPV_SRQT_XRC,
};

enum xqpv_srq_init_attr_mask {
	XQPV_SRQ_INIT_ATTR_TYPE = 1 << 0,
	XQPV_SRQ_INIT_ATTR_PD = 1 << 1,
	XQPV_SRQ_INIT_ATTR_XRCD = 1 << 2,
	XQPV_SRQ_INIT_ATTR_CQ = 1 << 3,
	XQPV_SRQ_INIT_ATTR_RESERVED = 1 << 4,
};

struct xqpv_srq_attr {
	uint32_t max_wr;
	uint32_t max_sge;
	uint32_t srq_limit;
};

struct xqpv_srq_init_attr_ex {
	void *srq_context;
	struct xqpv_srq_attr attr;	/* in: wanted; out: granted */
	uint32_t comp_mask;
	enum xqpv_srq_type srq_type;
	struct xqpv_pd *pd;
	struct xqpv_xrcd *xrcd;
	struct xqpv_cq *cq;
};

struct xqpv_srq {
	struct xqpv_context *context;
	void *srq_context;
	struct xqpv_pd *pd;
	uint32_t handle;
	uint32_t srq_num;	/* XRC SRQ number (0 where the kernel gives none) */
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	uint32_t events_completed;
};

/**
 * xqpv_create_srq_ex - CREATE_XSRQ. An XRC SRQ needs TYPE, PD, XRCD and CQ
 * in comp_mask (EINVAL otherwise); a basic one needs PD. Unknown bits:
 * EOPNOTSUPP. It counts as a user of its XRCD until destroyed.
 */
struct xqpv_srq *xqpv_create_srq_ex(struct xqpv_context *context,
				  struct xqpv_srq_init_attr_ex *srq_init_attr_ex);

/** xqpv_get_srq_num - the XRC SRQ number. Return: 0 or errno. */
int xqpv_get_srq_num(struct xqpv_srq *srq, uint32_t *srq_num);

/** xqpv_destroy_srq - DESTROY_SRQ: EBUSY while QPs use it. */
int xqpv_destroy_srq(struct xqpv_srq *srq);

/* ======================================================================
 * Queue pairs
 * ====================================================================== */

enum xqpv_qp_type {
	XQPV_QPT_RC = 2,
	XQPV_QPT_UC,
	XQPV_QPT_UD,
	XQPV_QPT_XRC_SEND = 9,	/* XRC initiator (kernel: XRC_INI) */
	XQPV_QPT_XRC_RECV,	/* XRC target (kernel: XRC_TGT): shareable */
	XQPV_QPT_XRC_INI = XQPV_QPT_XRC_SEND,
	XQPV_QPT_XRC_TGT = XQPV_QPT_XRC_RECV,
};

enum xqpv_qp_state {
	XQPV_QPS_RESET,
	XQPV_QPS_INIT,
	XQPV_QPS_RTR,
	XQPV_QPS_RTS,
	XQPV_QPS_SQD,
	XQPV_QPS_SQE,
	XQPV_QPS_ERR,
};

enum xqpv_mtu {
	XQPV_MTU_256 = 1,
	XQPV_MTU_512,
	XQPV_MTU_1024,
	XQPV_MTU_2048,
	XQPV_MTU_4096,
};

enum xqpv_access_flags {
	XQPV_ACCESS_LOCAL_WRITE = 1,
	XQPV_ACCESS_REMOTE_WRITE = 1 << 1,
	XQPV_ACCESS_REMOTE_READ = 1 << 2,
	XQPV_ACCESS_REMOTE_ATOMIC = 1 << 3,
};

struct xqpv_qp_cap {
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
};

enum xqpv_qp_init_attr_mask {
	XQPV_QP_INIT_ATTR_PD = 1 << 0,
	XQPV_QP_INIT_ATTR_XRCD = 1 << 1,
	XQPV_QP_INIT_ATTR_RESERVED = 1 << 2,
};

struct xqpv_qp_init_attr_ex {
	void *qp_context;
	struct xqpv_cq *send_cq;
	struct xqpv_cq *recv_cq;
	struct xqpv_srq *srq;
	struct xqpv_qp_cap cap;		/* in: wanted; out: granted */
	enum xqpv_qp_type qp_type;
	int sq_sig_all;
	uint32_t comp_mask;
	struct xqpv_pd *pd;
	struct xqpv_xrcd *xrcd;
};

struct xqpv_qp {
	struct xqpv_context *context;
	void *qp_context;
	struct xqpv_pd *pd;
	struct xqpv_cq *send_cq;
	struct xqpv_cq *recv_cq;
	struct xqpv_srq *srq;
	struct xqpv_xrcd *xrcd;		/* XRC_RECV created or opened */
	uint32_t handle;
	uint32_t qp_num;
	enum xqpv_qp_state state;
	enum xqpv_qp_type qp_type;
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	uint32_t events_completed;
};

/**
 * xqpv_create_qp_ex - CREATE_QP. An XRC_RECV (target) QP needs
 * XQPV_QP_INIT_ATTR_XRCD and takes no PD, CQ or SRQ: it is created in the
 * XRCD and can be opened by number (xqpv_open_qp()) from any process sharing
 * the XRCD. Other types need XQPV_QP_INIT_ATTR_PD and a send CQ.
 * Return: the QP (attr->cap rewritten to the granted caps), or NULL with
 * errno: EOPNOTSUPP for unknown comp_mask bits, EINVAL for a missing PD or
 * XRCD, or the kernel's error.
 */
struct xqpv_qp *xqpv_create_qp_ex(struct xqpv_context *context,
				struct xqpv_qp_init_attr_ex *qp_init_attr_ex);

enum xqpv_qp_open_attr_mask {
	XQPV_QP_OPEN_ATTR_NUM = 1 << 0,
	XQPV_QP_OPEN_ATTR_XRCD = 1 << 1,
	XQPV_QP_OPEN_ATTR_CONTEXT = 1 << 2,
	XQPV_QP_OPEN_ATTR_TYPE = 1 << 3,
	XQPV_QP_OPEN_ATTR_RESERVED = 1 << 4,
};

struct xqpv_qp_open_attr {
	uint32_t comp_mask;	/* NUM, XRCD and TYPE required; CONTEXT optional */
	uint32_t qp_num;
	struct xqpv_xrcd *xrcd;
	void *qp_context;
	enum xqpv_qp_type qp_type;	/* XQPV_QPT_XRC_RECV */
};

/**
 * xqpv_open_qp - open a shareable (XRC_RECV) QP by number in @attr->xrcd
 * (ibv_open_qp(3)). The creator and every opener hold equal shares of it; each
 * gets its own copy of the QP's async events; the QP lives until the last
 * share is destroyed, in whichever process.
 * Return: the QP, or NULL with errno: EOPNOTSUPP for unknown comp_mask
 * bits, EINVAL without NUM, XRCD and TYPE, EINVAL from the kernel when no
 * such QP is in that XRCD or the type is not XRC_RECV.
 */
struct xqpv_qp *xqpv_open_qp(struct xqpv_context *context,
			   struct xqpv_qp_open_attr *qp_open_attr);

enum xqpv_qp_attr_mask {
	XQPV_QP_STATE = 1 << 0,
	XQPV_QP_CUR_STATE = 1 << 1,
	XQPV_QP_EN_SQD_ASYNC_NOTIFY = 1 << 2,
	XQPV_QP_ACCESS_FLAGS = 1 << 3,
	XQPV_QP_PKEY_INDEX = 1 << 4,
	XQPV_QP_PORT = 1 << 5,
	XQPV_QP_QKEY = 1 << 6,
	XQPV_QP_AV = 1 << 7,
	XQPV_QP_PATH_MTU = 1 << 8,
	XQPV_QP_TIMEOUT = 1 << 9,
	XQPV_QP_RETRY_CNT = 1 << 10,
	XQPV_QP_RNR_RETRY = 1 << 11,
	XQPV_QP_RQ_PSN = 1 << 12,
	XQPV_QP_MAX_QP_RD_ATOMIC = 1 << 13,
	XQPV_QP_ALT_PATH = 1 << 14,
	XQPV_QP_MIN_RNR_TIMER = 1 << 15,
	XQPV_QP_SQ_PSN = 1 << 16,
	XQPV_QP_MAX_DEST_RD_ATOMIC = 1 << 17,
	XQPV_QP_PATH_MIG_STATE = 1 << 18,
	XQPV_QP_CAP = 1 << 19,
	XQPV_QP_DEST_QPN = 1 << 20,
};

struct xqpv_global_route {
	uint8_t dgid[16];
	uint32_t flow_label;
	uint8_t sgid_index;
	uint8_t hop_limit;
	uint8_t traffic_class;
};

struct xqpv_ah_attr {
	struct xqpv_global_route grh;
	uint16_t dlid;
	uint8_t sl;
	uint8_t src_path_bits;
	uint8_t static_rate;
	uint8_t is_global;
	uint8_t port_num;
};

struct xqpv_qp_attr {
	enum xqpv_qp_state qp_state;
	enum xqpv_qp_state cur_qp_state;
	enum xqpv_mtu path_mtu;
	int path_mig_state;
	uint32_t qkey;
	uint32_t rq_psn;
	uint32_t sq_psn;
	uint32_t dest_qp_num;
	unsigned int qp_access_flags;
	struct xqpv_qp_cap cap;
	struct xqpv_ah_attr ah_attr;
	struct xqpv_ah_attr alt_ah_attr;
	uint16_t pkey_index;
	uint16_t alt_pkey_index;
	uint8_t en_sqd_async_notify;
	uint8_t sq_draining;
	uint8_t max_rd_atomic;
	uint8_t max_dest_rd_atomic;
	uint8_t min_rnr_timer;
	uint8_t port_num;
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t alt_port_num;
	uint8_t alt_timeout;
};

struct xqpv_qp_init_attr {
	void *qp_context;
	struct xqpv_qp_cap cap;
	enum xqpv_qp_type qp_type;
	int sq_sig_all;
};

/**
 * xqpv_modify_qp - MODIFY_QP. Through any share of a shared QP it changes
 * the one real QP. Transitions are checked as ib_modify_qp_is_ok() does.
 * Return: 0 or errno (EINVAL for a bad transition or attribute).
 */
int xqpv_modify_qp(struct xqpv_qp *qp, struct xqpv_qp_attr *attr, int attr_mask);

/** xqpv_query_qp - QUERY_QP: the real QP's attributes. 0 or errno. */
int xqpv_query_qp(struct xqpv_qp *qp, struct xqpv_qp_attr *attr, int attr_mask,
		 struct xqpv_qp_init_attr *init_attr);

/**
 * xqpv_destroy_qp - DESTROY_QP. On a shared QP, created or opened, this
 * closes this share; the QP itself goes with its last share. Waits until
 * every async event of this QP that was read has been acknowledged.
 * Return: 0 or errno.
 */
int xqpv_destroy_qp(struct xqpv_qp *qp);

/* ======================================================================
 * Async events (ibv_get_async_event(3))
 * ====================================================================== */

enum xqpv_event_type {
	XQPV_EVENT_CQ_ERR,
	XQPV_EVENT_QP_FATAL,
	XQPV_EVENT_QP_REQ_ERR,
	XQPV_EVENT_QP_ACCESS_ERR,
	XQPV_EVENT_COMM_EST,
	XQPV_EVENT_SQ_DRAINED,
	XQPV_EVENT_PATH_MIG,
	XQPV_EVENT_PATH_MIG_ERR,
	XQPV_EVENT_DEVICE_FATAL,
	XQPV_EVENT_PORT_ACTIVE,
	XQPV_EVENT_PORT_ERR,
	XQPV_EVENT_LID_CHANGE,
	XQPV_EVENT_PKEY_CHANGE,
	XQPV_EVENT_SM_CHANGE,
	XQPV_EVENT_SRQ_ERR,
	XQPV_EVENT_SRQ_LIMIT_REACHED,
	XQPV_EVENT_QP_LAST_WQE_REACHED,
	XQPV_EVENT_CLIENT_REREGISTER,
	XQPV_EVENT_GID_CHANGE,
};

struct xqpv_async_event {
	union {
		struct xqpv_cq *cq;
		struct xqpv_qp *qp;	/* this process's own share */
		struct xqpv_srq *srq;
		int port_num;
	} element;
	enum xqpv_event_type event_type;
};

/**
 * xqpv_get_async_event - wait for the next async event of the context
 * (blocks unless async_fd was made non-blocking: then EAGAIN). For a
 * shared QP, every process holding a share gets its own event, naming
 * its own share. Every event must be acknowledged.
 * Return: 0, or errno (EIO once the device is gone and the queue drained).
 */
int xqpv_get_async_event(struct xqpv_context *context, struct xqpv_async_event *event);

/** xqpv_ack_async_event - acknowledge an event from xqpv_get_async_event(). */
void xqpv_ack_async_event(struct xqpv_async_event *event);

/** xqpv_event_type_str - a name for an event type. */
const char *xqpv_event_type_str(enum xqpv_event_type event);

/* ======================================================================
 * The data path: memory regions, address handles, completion channels,
 * polling, posting (ibv_reg_mr(3), ibv_create_ah(3), ibv_poll_cq(3),
 * ibv_post_send(3), ...). Code: lib/mr.c, lib/cq.c, lib/post.c.
 * ====================================================================== */

/* Access flags beyond those above (enum xqpv_access_flags). */
#define XQPV_ACCESS_MW_BIND	(1 << 4)

struct xqpv_mr {
	struct xqpv_context *context;
	struct xqpv_pd *pd;
	void *addr;		/* as registered */
	size_t length;
	uint64_t iova;		/* the address remote peers use (= addr unless _iova) */
	uint32_t handle;
	uint32_t lkey;		/* local SGEs */
	uint32_t rkey;		/* remote RDMA/atomic access (= lkey on xqp) */
};

/**
 * xqpv_reg_mr - REG_MR: register @length bytes at @addr for access by the
 * device (ibv_reg_mr(3)). The pages are pinned and count against
 * RLIMIT_MEMLOCK (ENOMEM beyond it, unless CAP_IPC_LOCK).
 * @access: XQPV_ACCESS_* bits. REMOTE_WRITE or REMOTE_ATOMIC need
 *          LOCAL_WRITE (EINVAL otherwise), as do receives into the MR and
 *          RDMA READ / atomic results landing in it.
 * The MR holds its PD: xqpv_dealloc_pd() is EBUSY until xqpv_dereg_mr().
 * Return: the MR (lkey, rkey set), or NULL with errno (EINVAL, ENOMEM,
 * EFAULT for memory that is not mapped, ENOENT for a stale PD).
 */
struct xqpv_mr *xqpv_reg_mr(struct xqpv_pd *pd, void *addr, size_t length, int access);

/**
 * xqpv_reg_mr_iova - as xqpv_reg_mr(), but the region's addresses are
 * [@iova, @iova + @length) (ibv_reg_mr_iova(3)): SGEs and remote accesses
 * alike address it by @iova, which must have the same offset within a page
 * as @addr (EINVAL).
 */
struct xqpv_mr *xqpv_reg_mr_iova(struct xqpv_pd *pd, void *addr, size_t length,
			       uint64_t iova, int access);

/** xqpv_dereg_mr - DEREG_MR. Return: 0 or errno. */
int xqpv_dereg_mr(struct xqpv_mr *mr);

struct xqpv_ah {
	struct xqpv_context *context;
	struct xqpv_pd *pd;
	uint32_t handle;
};

/**
 * xqpv_create_ah - CREATE_AH: an address handle for UD sends
 * (ibv_create_ah(3)). @attr->port_num must be a valid port (EINVAL);
 * @attr->dlid (or, with is_global, grh.dgid) names the destination.
 * Return: the AH, or NULL with errno.
 */
struct xqpv_ah *xqpv_create_ah(struct xqpv_pd *pd, struct xqpv_ah_attr *attr);

/** xqpv_destroy_ah - DESTROY_AH. Return: 0 or errno. */
int xqpv_destroy_ah(struct xqpv_ah *ah);

/* ---- completion channels (ibv_create_comp_channel(3)) ------------------ */

struct xqpv_comp_channel {
	struct xqpv_context *context;
	int fd;			/* poll()/O_NONBLOCK as any fd */
	int refcnt;		/* CQs using it */
};

/**
 * xqpv_create_comp_channel - CREATE_COMP_CHANNEL: a file descriptor that
 * becomes readable when a CQ created on it (xqpv_create_cq()) has a
 * completion after xqpv_req_notify_cq(). Return: channel or NULL + errno.
 */
struct xqpv_comp_channel *xqpv_create_comp_channel(struct xqpv_context *context);

/**
 * xqpv_destroy_comp_channel - close the channel. EBUSY while CQs use it.
 */
int xqpv_destroy_comp_channel(struct xqpv_comp_channel *channel);

/**
 * xqpv_get_cq_event - read the next completion event of @channel: the CQ it
 * names (*@cq, the process's own object) and its cq_context. Blocks unless
 * channel->fd is O_NONBLOCK (then EAGAIN). Each event must be acknowledged
 * with xqpv_ack_cq_events(), and the CQ re-armed with xqpv_req_notify_cq()
 * to get another one.
 * Return: 0, or errno (EAGAIN, EINTR, EIO).
 */
int xqpv_get_cq_event(struct xqpv_comp_channel *channel, struct xqpv_cq **cq,
		     void **cq_context);

/** xqpv_ack_cq_events - acknowledge @nevents events of @cq. */
void xqpv_ack_cq_events(struct xqpv_cq *cq, unsigned int nevents);

/* ---- work completions ------------------------------------------------- */

enum xqpv_wc_status {
	XQPV_WC_SUCCESS,
	XQPV_WC_LOC_LEN_ERR,
	XQPV_WC_LOC_QP_OP_ERR,
	XQPV_WC_LOC_EEC_OP_ERR,
	XQPV_WC_LOC_PROT_ERR,
	XQPV_WC_WR_FLUSH_ERR,
	XQPV_WC_MW_BIND_ERR,
	XQPV_WC_BAD_RESP_ERR,
	XQPV_WC_LOC_ACCESS_ERR,
	XQPV_WC_REM_INV_REQ_ERR,
	XQPV_WC_REM_ACCESS_ERR,
	XQPV_WC_REM_OP_ERR,
	XQPV_WC_RETRY_EXC_ERR,
	XQPV_WC_RNR_RETRY_EXC_ERR,
	XQPV_WC_LOC_RDD_VIOL_ERR,
	XQPV_WC_REM_INV_RD_REQ_ERR,
	XQPV_WC_REM_ABORT_ERR,
	XQPV_WC_INV_EECN_ERR,
	XQPV_WC_INV_EEC_STATE_ERR,
	XQPV_WC_FATAL_ERR,
	XQPV_WC_RESP_TIMEOUT_ERR,
	XQPV_WC_GENERAL_ERR,
};

enum xqpv_wc_opcode {
	XQPV_WC_SEND,
	XQPV_WC_RDMA_WRITE,
	XQPV_WC_RDMA_READ,
	XQPV_WC_COMP_SWAP,
	XQPV_WC_FETCH_ADD,
	XQPV_WC_BIND_MW,
	XQPV_WC_LOCAL_INV,
	XQPV_WC_RECV = 1 << 7,		/* any receive: check opcode & XQPV_WC_RECV */
	XQPV_WC_RECV_RDMA_WITH_IMM,
};

/* wc_flags: the kernel's ib_wc_flags, passed through by POLL_CQ. */
enum xqpv_wc_flags {
	XQPV_WC_GRH = 1 << 0,		/* UD: a GRH is in the first 40 bytes */
	XQPV_WC_WITH_IMM = 1 << 1,	/* imm_data is valid */
	XQPV_WC_WITH_INV = 1 << 2,
};

/* One completion: struct ib_uverbs_wc, field for field. */
struct xqpv_wc {
	uint64_t wr_id;
	enum xqpv_wc_status status;
	enum xqpv_wc_opcode opcode;	/* undefined (0 / RECV on xqp) when flushed */
	uint32_t vendor_err;
	uint32_t byte_len;
	uint32_t imm_data;		/* network byte order, as posted */
	uint32_t qp_num;		/* the local QP (XRC: the XRC target QP) */
	uint32_t src_qp;		/* the sender's QP number (receives) */
	unsigned int wc_flags;
	uint16_t pkey_index;
	uint16_t slid;			/* the sender's LID (receives) */
	uint8_t sl;
	uint8_t dlid_path_bits;
	uint8_t port_num;
};

/** xqpv_wc_status_str - a name for a completion status ("success", ...). */
const char *xqpv_wc_status_str(enum xqpv_wc_status status);

/**
 * xqpv_poll_cq - POLL_CQ: take up to @num_entries completions off @cq into
 * @wc, oldest first (ibv_poll_cq(3)). Never blocks.
 * Return: the number taken (0 if the CQ is empty), or a negative errno
 * value (errno set too).
 */
int xqpv_poll_cq(struct xqpv_cq *cq, int num_entries, struct xqpv_wc *wc);

/**
 * xqpv_req_notify_cq - REQ_NOTIFY_CQ: arm @cq so that its next completion
 * (@solicited_only: its next solicited receive completion, or any error
 * completion) sends one event to its completion channel. Completions
 * already queued do not count: poll after arming to close the race.
 * Return: 0 or errno.
 */
int xqpv_req_notify_cq(struct xqpv_cq *cq, int solicited_only);

/**
 * xqpv_resize_cq - RESIZE_CQ to at least @cqe entries (not fewer than are
 * queued now, nor more than max_cqe: EINVAL). cq->cqe is the new size.
 */
int xqpv_resize_cq(struct xqpv_cq *cq, int cqe);

/* ---- work requests ----------------------------------------------------- */

enum xqpv_wr_opcode {
	XQPV_WR_RDMA_WRITE,
	XQPV_WR_RDMA_WRITE_WITH_IMM,
	XQPV_WR_SEND,
	XQPV_WR_SEND_WITH_IMM,
	XQPV_WR_RDMA_READ,
	XQPV_WR_ATOMIC_CMP_AND_SWP,
	XQPV_WR_ATOMIC_FETCH_AND_ADD,
};

enum xqpv_send_flags {
	XQPV_SEND_FENCE = 1 << 0,
	XQPV_SEND_SIGNALED = 1 << 1,	/* a completion even without sq_sig_all */
	XQPV_SEND_SOLICITED = 1 << 2,
	XQPV_SEND_INLINE = 1 << 3,	/* data copied at post time; lkey unused */
};

struct xqpv_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

struct xqpv_send_wr {
	uint64_t wr_id;
	struct xqpv_send_wr *next;
	struct xqpv_sge *sg_list;
	int num_sge;
	enum xqpv_wr_opcode opcode;
	unsigned int send_flags;
	uint32_t imm_data;		/* network byte order */
	union {
		struct {
			uint64_t remote_addr;
			uint32_t rkey;
		} rdma;
		struct {
			uint64_t remote_addr;	/* 8-byte aligned */
			uint64_t compare_add;
			uint64_t swap;
			uint32_t rkey;
		} atomic;
		struct {
			struct xqpv_ah *ah;
			uint32_t remote_qpn;
			uint32_t remote_qkey;
		} ud;
	} wr;
	union {
		struct {
			uint32_t remote_srqn;	/* XRC_SEND: the target's XRC SRQ */
		} xrc;
	} qp_type;
};

struct xqpv_recv_wr {
	uint64_t wr_id;
	struct xqpv_recv_wr *next;
	struct xqpv_sge *sg_list;
	int num_sge;
};

/**
 * xqpv_post_send - POST_SEND the list @wr on @qp (ibv_post_send(3)).
 *
 * The WRs go to the kernel as struct xqp_uverbs_send_wr (uapi/xqp_uverbs.h:
 * struct ib_uverbs_send_wr + the XRC remote SRQ number, taken from
 * wr->qp_type.xrc.remote_srqn). With XQPV_SEND_INLINE the kernel copies the
 * bytes at the SGEs' addresses during the call; the buffers can be reused
 * as soon as it returns.
 *
 * On failure *@bad_wr is the first WR not posted; the ones before it are
 * posted. EINVAL: QP state (RESET, INIT, RTR; bad_wr = @wr), an opcode the
 * QP type does not have, too many SGEs or inline bytes, a UD WR without an
 * AH (checked here), an XRC target QP; ENOMEM: the send queue is full.
 * Return: 0 or errno.
 */
int xqpv_post_send(struct xqpv_qp *qp, struct xqpv_send_wr *wr, struct xqpv_send_wr **bad_wr);

/**
 * xqpv_post_recv - POST_RECV (ibv_post_recv(3)). EINVAL for a QP on an SRQ,
 * XRC QPs, state RESET, too many SGEs; ENOMEM: the receive queue is full.
 * *@bad_wr as for xqpv_post_send(). Return: 0 or errno.
 */
int xqpv_post_recv(struct xqpv_qp *qp, struct xqpv_recv_wr *wr, struct xqpv_recv_wr **bad_wr);

/**
 * xqpv_post_srq_recv - POST_SRQ_RECV (ibv_post_srq_recv(3)). EINVAL: too
 * many SGEs; ENOMEM: the SRQ is full. Return: 0 or errno.
 */
int xqpv_post_srq_recv(struct xqpv_srq *srq, struct xqpv_recv_wr *wr,
		      struct xqpv_recv_wr **bad_wr);

/* ---- SRQ attributes (ibv_modify_srq(3), ibv_query_srq(3)) ------------ */

enum xqpv_srq_attr_mask {
	XQPV_SRQ_MAX_WR = 1 << 0,	/* resize */
	XQPV_SRQ_LIMIT = 1 << 1,		/* arm the limit event */
};

/**
 * xqpv_modify_srq - MODIFY_SRQ. XQPV_SRQ_LIMIT with a non-zero srq_limit
 * arms XQPV_EVENT_SRQ_LIMIT_REACHED: once the SRQ holds fewer WRs than the
 * limit, one event, then the limit is 0 again. XQPV_SRQ_MAX_WR resizes (not
 * below the WRs posted now, not above max_srq_wr). srq_limit > max_wr:
 * EINVAL. Return: 0 or errno.
 */
int xqpv_modify_srq(struct xqpv_srq *srq, struct xqpv_srq_attr *attr, int attr_mask);

/** xqpv_query_srq - QUERY_SRQ: max_wr, max_sge, srq_limit. 0 or errno. */
int xqpv_query_srq(struct xqpv_srq *srq, struct xqpv_srq_attr *attr);

/* ======================================================================
 * xqp extras
 * ====================================================================== */

/**
 * xqpv_raise_qp_event - test hook: make the device report @event on the real
 * QP behind @qp, as hardware would (xqp's char device only; needs
 * CAP_SYS_ADMIN). Return: 0 or errno (ENOTTY on Linux's uverbs).
 */
int xqpv_raise_qp_event(struct xqpv_qp *qp, enum xqpv_event_type event);

/**
 * xqpv_raise_cq_event / xqpv_raise_srq_event - the same test hook for a CQ or
 * an SRQ: the event reaches this context's async fd with element.cq /
 * element.srq set (XQP_UVERBS_IOC_RAISE_CQ_EVENT / _SRQ_EVENT). Return: 0
 * or errno (ENOTTY on Linux's uverbs).
 */
int xqpv_raise_cq_event(struct xqpv_cq *cq, enum xqpv_event_type event);
int xqpv_raise_srq_event(struct xqpv_srq *srq, enum xqpv_event_type event);

#ifdef __cplusplus
}
#endif

#endif /* XQPVERBS_H */
