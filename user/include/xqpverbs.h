/* SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause) */
/*
 * libxqpverbs: userspace verbs for xqp's shareable XRC target QPs.
 *
 * The API mirrors libibverbs (<infiniband/verbs.h>) with an xqp_ prefix:
 * ibv_open_device() -> xqp_open_device(), struct ibv_qp_open_attr ->
 * struct xqp_qp_open_attr, IBV_QPT_XRC_RECV -> XQP_QPT_XRC_RECV, and so on.
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

struct xqp_device {
	char name[64];		/* the kernel device ("xqp_soft0", "xqp_ref0") */
	char dev_name[64];	/* the char device ("uverbs0") */
	char dev_path[256];	/* "/dev/xqp/uverbs0", "/dev/infiniband/uverbs0" */
	int is_xqp;		/* 1: xqp's char device; 0: Linux's ib_uverbs */
};

/**
 * xqp_get_device_list - list the uverbs devices of this machine.
 * @num_devices: if not NULL, receives the number of devices.
 *
 * Lists xqp's devices (/sys/class/xqp_uverbs) first, then Linux's
 * (/sys/class/infiniband_verbs).
 *
 * Return: a NULL-terminated array, to be freed with xqp_free_device_list(),
 * or NULL with errno set (ENOMEM). An empty list is not an error.
 */
struct xqp_device **xqp_get_device_list(int *num_devices);

/** xqp_free_device_list - free a list from xqp_get_device_list(). */
void xqp_free_device_list(struct xqp_device **list);

/** xqp_get_device_name - the kernel device's name. */
const char *xqp_get_device_name(struct xqp_device *device);

/* ======================================================================
 * Contexts
 * ====================================================================== */

struct xqp_context {
	struct xqp_device *device;
	int cmd_fd;		/* the uverbs char device; raw write()s allowed */
	int async_fd;		/* events: see xqp_get_async_event() */
	int num_comp_vectors;
	struct xqp_device owned_device;	/* for xqp_open_device_path() */
};

/**
 * xqp_open_device - open a device and create its verbs context
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
struct xqp_context *xqp_open_device(struct xqp_device *device);

/**
 * xqp_open_device_path - as xqp_open_device(), for a char device path
 * ("/dev/xqp/uverbs0" or "/dev/infiniband/uverbs0").
 */
struct xqp_context *xqp_open_device_path(const char *path);

/**
 * xqp_close_device - close the context. Objects not destroyed are released
 * by the kernel (dependents first); shared QPs stay alive for the other
 * processes holding them. Return: 0, or errno.
 */
int xqp_close_device(struct xqp_context *context);

struct xqp_device_attr {
	uint64_t node_guid;	/* host byte order */
	uint64_t sys_image_guid;
	uint64_t max_mr_size;
	uint64_t page_size_cap;
	uint32_t vendor_id;
	uint32_t vendor_part_id;
	uint32_t hw_ver;
	int max_qp;
	int max_qp_wr;
	unsigned int device_cap_flags;	/* XQP_DEVICE_XRC, ... */
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

#define XQP_DEVICE_XRC	(1U << 20)	/* IBV_DEVICE_XRC */

/** xqp_query_device - QUERY_DEVICE. Return: 0 or errno. */
int xqp_query_device(struct xqp_context *context, struct xqp_device_attr *attr);

/* The driver's answer to QUERY_PORT, field for field (ibv_port_attr's). */
struct xqp_port_attr {
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

/** xqp_query_port - QUERY_PORT of port @port_num (1-based). 0 or errno. */
int xqp_query_port(struct xqp_context *context, uint8_t port_num,
		   struct xqp_port_attr *attr);

/* ======================================================================
 * Protection domains, completion queues
 * ====================================================================== */

struct xqp_pd {
	struct xqp_context *context;
	uint32_t handle;
};

/** xqp_alloc_pd - ALLOC_PD. Return: the PD, or NULL with errno. */
struct xqp_pd *xqp_alloc_pd(struct xqp_context *context);

/** xqp_dealloc_pd - DEALLOC_PD: EBUSY while QPs or SRQs use it. */
int xqp_dealloc_pd(struct xqp_pd *pd);

struct xqp_comp_channel;

struct xqp_cq {
	struct xqp_context *context;
	void *cq_context;
	uint32_t handle;
	int cqe;		/* what the driver granted: at least the request */
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	uint32_t async_events_completed;
	struct xqp_comp_channel *channel;	/* NULL: none */
	uint32_t comp_events_completed;	/* xqp_ack_cq_events() */
};

/**
 * xqp_create_cq - CREATE_CQ with at least @cqe entries (ibv_create_cq(3)).
 * @cq_context: returned by xqp_get_cq_event() for this CQ.
 * @channel: the completion channel that gets this CQ's completion events
 *           (after xqp_req_notify_cq()), or NULL for none. The channel
 *           cannot be destroyed while the CQ uses it.
 * @comp_vector: completion vector, 0 .. context->num_comp_vectors - 1
 *           (else EINVAL from the kernel).
 * Return: CQ (cq->cqe = the granted size) or NULL + errno (EBADF: @channel
 * is not a completion channel of this device).
 */
struct xqp_cq *xqp_create_cq(struct xqp_context *context, int cqe,
			     void *cq_context, struct xqp_comp_channel *channel,
			     int comp_vector);

/**
 * xqp_destroy_cq - DESTROY_CQ: EBUSY while QPs or SRQs use it. Waits until
 * every async event and every completion event of this CQ that was read
 * has been acknowledged (xqp_ack_async_event(), xqp_ack_cq_events()).
 */
int xqp_destroy_cq(struct xqp_cq *cq);

/* ======================================================================
 * XRC domains (ibv_open_xrcd(3))
 * ====================================================================== */

enum xqp_xrcd_init_attr_mask {
	XQP_XRCD_INIT_ATTR_FD = 1 << 0,
	XQP_XRCD_INIT_ATTR_OFLAGS = 1 << 1,
	XQP_XRCD_INIT_ATTR_RESERVED = 1 << 2,
};

struct xqp_xrcd_init_attr {
	uint32_t comp_mask;	/* both FD and OFLAGS are required */
	int fd;			/* -1: a private XRCD; else shared by inode */
	int oflags;		/* O_CREAT, O_EXCL */
};

struct xqp_xrcd {
	struct xqp_context *context;
	uint32_t handle;
};

/**
 * xqp_open_xrcd - open an XRC domain (OPEN_XRCD).
 *
 * With fd = -1 a new private XRCD. Otherwise processes that open the same
 * file (the same inode) on the same device share one XRCD: O_CREAT creates
 * it if needed; without O_CREAT, EAGAIN if it does not exist yet;
 * O_CREAT|O_EXCL: EINVAL if it already exists. A bad fd: EBADF.
 * The XRCD lives until its last opener closes it.
 *
 * Return: the XRCD, or NULL with errno: EOPNOTSUPP for comp_mask bits past
 * XQP_XRCD_INIT_ATTR_OFLAGS, EINVAL without both FD and OFLAGS, or the
 * kernel's error.
 */
struct xqp_xrcd *xqp_open_xrcd(struct xqp_context *context,
			       struct xqp_xrcd_init_attr *xrcd_init_attr);

/**
 * xqp_close_xrcd - CLOSE_XRCD: EBUSY while this context still has QPs,
 * opened QPs or XRC SRQs in it.
 */
int xqp_close_xrcd(struct xqp_xrcd *xrcd);

/* ======================================================================
 * Shared receive queues (ibv_create_srq_ex(3))
 * ====================================================================== */

enum xqp_srq_type {
	XQP_SRQT_BASIC,
	XQP_SRQT_XRC,
};

enum xqp_srq_init_attr_mask {
	XQP_SRQ_INIT_ATTR_TYPE = 1 << 0,
	XQP_SRQ_INIT_ATTR_PD = 1 << 1,
	XQP_SRQ_INIT_ATTR_XRCD = 1 << 2,
	XQP_SRQ_INIT_ATTR_CQ = 1 << 3,
	XQP_SRQ_INIT_ATTR_RESERVED = 1 << 4,
};

struct xqp_srq_attr {
	uint32_t max_wr;
	uint32_t max_sge;
	uint32_t srq_limit;
};

struct xqp_srq_init_attr_ex {
	void *srq_context;
	struct xqp_srq_attr attr;	/* in: wanted; out: granted */
	uint32_t comp_mask;
	enum xqp_srq_type srq_type;
	struct xqp_pd *pd;
	struct xqp_xrcd *xrcd;
	struct xqp_cq *cq;
};

struct xqp_srq {
	struct xqp_context *context;
	void *srq_context;
	struct xqp_pd *pd;
	uint32_t handle;
	uint32_t srq_num;	/* XRC SRQ number (0 where the kernel gives none) */
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	uint32_t events_completed;
};

/**
 * xqp_create_srq_ex - CREATE_XSRQ. An XRC SRQ needs TYPE, PD, XRCD and CQ
 * in comp_mask (EINVAL otherwise); a basic one needs PD. Unknown bits:
 * EOPNOTSUPP. It counts as a user of its XRCD until destroyed.
 */
struct xqp_srq *xqp_create_srq_ex(struct xqp_context *context,
				  struct xqp_srq_init_attr_ex *srq_init_attr_ex);

/** xqp_get_srq_num - the XRC SRQ number. Return: 0 or errno. */
int xqp_get_srq_num(struct xqp_srq *srq, uint32_t *srq_num);

/** xqp_destroy_srq - DESTROY_SRQ: EBUSY while QPs use it. */
int xqp_destroy_srq(struct xqp_srq *srq);

/* ======================================================================
 * Queue pairs
 * ====================================================================== */

enum xqp_qp_type {
	XQP_QPT_RC = 2,
	XQP_QPT_UC,
	XQP_QPT_UD,
	XQP_QPT_XRC_SEND = 9,	/* XRC initiator (kernel: XRC_INI) */
	XQP_QPT_XRC_RECV,	/* XRC target (kernel: XRC_TGT): shareable */
	XQP_QPT_XRC_INI = XQP_QPT_XRC_SEND,
	XQP_QPT_XRC_TGT = XQP_QPT_XRC_RECV,
};

enum xqp_qp_state {
	XQP_QPS_RESET,
	XQP_QPS_INIT,
	XQP_QPS_RTR,
	XQP_QPS_RTS,
	XQP_QPS_SQD,
	XQP_QPS_SQE,
	XQP_QPS_ERR,
};

enum xqp_mtu {
	XQP_MTU_256 = 1,
	XQP_MTU_512,
	XQP_MTU_1024,
	XQP_MTU_2048,
	XQP_MTU_4096,
};

enum xqp_access_flags {
	XQP_ACCESS_LOCAL_WRITE = 1,
	XQP_ACCESS_REMOTE_WRITE = 1 << 1,
	XQP_ACCESS_REMOTE_READ = 1 << 2,
	XQP_ACCESS_REMOTE_ATOMIC = 1 << 3,
};

struct xqp_qp_cap {
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
};

enum xqp_qp_init_attr_mask {
	XQP_QP_INIT_ATTR_PD = 1 << 0,
	XQP_QP_INIT_ATTR_XRCD = 1 << 1,
	XQP_QP_INIT_ATTR_RESERVED = 1 << 2,
};

struct xqp_qp_init_attr_ex {
	void *qp_context;
	struct xqp_cq *send_cq;
	struct xqp_cq *recv_cq;
	struct xqp_srq *srq;
	struct xqp_qp_cap cap;		/* in: wanted; out: granted */
	enum xqp_qp_type qp_type;
	int sq_sig_all;
	uint32_t comp_mask;
	struct xqp_pd *pd;
	struct xqp_xrcd *xrcd;
};

struct xqp_qp {
	struct xqp_context *context;
	void *qp_context;
	struct xqp_pd *pd;
	struct xqp_cq *send_cq;
	struct xqp_cq *recv_cq;
	struct xqp_srq *srq;
	struct xqp_xrcd *xrcd;		/* XRC_RECV created or opened */
	uint32_t handle;
	uint32_t qp_num;
	enum xqp_qp_state state;
	enum xqp_qp_type qp_type;
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	uint32_t events_completed;
};

/**
 * xqp_create_qp_ex - CREATE_QP. An XRC_RECV (target) QP needs
 * XQP_QP_INIT_ATTR_XRCD and takes no PD, CQ or SRQ: it is created in the
 * XRCD and can be opened by number (xqp_open_qp()) from any process sharing
 * the XRCD. Other types need XQP_QP_INIT_ATTR_PD and a send CQ.
 * Return: the QP (attr->cap rewritten to the granted caps), or NULL with
 * errno: EOPNOTSUPP for unknown comp_mask bits, EINVAL for a missing PD or
 * XRCD, or the kernel's error.
 */
struct xqp_qp *xqp_create_qp_ex(struct xqp_context *context,
				struct xqp_qp_init_attr_ex *qp_init_attr_ex);

enum xqp_qp_open_attr_mask {
	XQP_QP_OPEN_ATTR_NUM = 1 << 0,
	XQP_QP_OPEN_ATTR_XRCD = 1 << 1,
	XQP_QP_OPEN_ATTR_CONTEXT = 1 << 2,
	XQP_QP_OPEN_ATTR_TYPE = 1 << 3,
	XQP_QP_OPEN_ATTR_RESERVED = 1 << 4,
};

struct xqp_qp_open_attr {
	uint32_t comp_mask;	/* NUM, XRCD and TYPE required; CONTEXT optional */
	uint32_t qp_num;
	struct xqp_xrcd *xrcd;
	void *qp_context;
	enum xqp_qp_type qp_type;	/* XQP_QPT_XRC_RECV */
};

/**
 * xqp_open_qp - open a shareable (XRC_RECV) QP by number in @attr->xrcd
 * (ibv_open_qp(3)). The creator and every opener hold equal handles; each
 * gets its own copy of the QP's async events; the QP lives until the last
 * handle is destroyed, in whichever process.
 * Return: the QP, or NULL with errno: EOPNOTSUPP for unknown comp_mask
 * bits, EINVAL without NUM, XRCD and TYPE, EINVAL from the kernel when no
 * such QP is in that XRCD or the type is not XRC_RECV.
 */
struct xqp_qp *xqp_open_qp(struct xqp_context *context,
			   struct xqp_qp_open_attr *qp_open_attr);

enum xqp_qp_attr_mask {
	XQP_QP_STATE = 1 << 0,
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
};

struct xqp_global_route {
	uint8_t dgid[16];
	uint32_t flow_label;
	uint8_t sgid_index;
	uint8_t hop_limit;
	uint8_t traffic_class;
};

struct xqp_ah_attr {
	struct xqp_global_route grh;
	uint16_t dlid;
	uint8_t sl;
	uint8_t src_path_bits;
	uint8_t static_rate;
	uint8_t is_global;
	uint8_t port_num;
};

struct xqp_qp_attr {
	enum xqp_qp_state qp_state;
	enum xqp_qp_state cur_qp_state;
	enum xqp_mtu path_mtu;
	int path_mig_state;
	uint32_t qkey;
	uint32_t rq_psn;
	uint32_t sq_psn;
	uint32_t dest_qp_num;
	unsigned int qp_access_flags;
	struct xqp_qp_cap cap;
	struct xqp_ah_attr ah_attr;
	struct xqp_ah_attr alt_ah_attr;
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

struct xqp_qp_init_attr {
	void *qp_context;
	struct xqp_qp_cap cap;
	enum xqp_qp_type qp_type;
	int sq_sig_all;
};

/**
 * xqp_modify_qp - MODIFY_QP. Through any handle of a shared QP it changes
 * the one real QP. Transitions are checked as ib_modify_qp_is_ok() does.
 * Return: 0 or errno (EINVAL for a bad transition or attribute).
 */
int xqp_modify_qp(struct xqp_qp *qp, struct xqp_qp_attr *attr, int attr_mask);

/** xqp_query_qp - QUERY_QP: the real QP's attributes. 0 or errno. */
int xqp_query_qp(struct xqp_qp *qp, struct xqp_qp_attr *attr, int attr_mask,
		 struct xqp_qp_init_attr *init_attr);

/**
 * xqp_destroy_qp - DESTROY_QP. On a shared QP, created or opened, this
 * closes this handle; the QP itself goes with its last handle. Waits until
 * every async event of this QP that was read has been acknowledged.
 * Return: 0 or errno.
 */
int xqp_destroy_qp(struct xqp_qp *qp);

/* ======================================================================
 * Async events (ibv_get_async_event(3))
 * ====================================================================== */

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
};

struct xqp_async_event {
	union {
		struct xqp_cq *cq;
		struct xqp_qp *qp;	/* this process's own handle */
		struct xqp_srq *srq;
		int port_num;
	} element;
	enum xqp_event_type event_type;
};

/**
 * xqp_get_async_event - wait for the next async event of the context
 * (blocks unless async_fd was made non-blocking: then EAGAIN). For a
 * shared QP, every process holding a handle gets its own event, naming
 * its own handle. Every event must be acknowledged.
 * Return: 0, or errno (EIO once the device is gone and the queue drained).
 */
int xqp_get_async_event(struct xqp_context *context, struct xqp_async_event *event);

/** xqp_ack_async_event - acknowledge an event from xqp_get_async_event(). */
void xqp_ack_async_event(struct xqp_async_event *event);

/** xqp_event_type_str - a name for an event type. */
const char *xqp_event_type_str(enum xqp_event_type event);

/* ======================================================================
 * The data path: memory regions, address handles, completion channels,
 * polling, posting (ibv_reg_mr(3), ibv_create_ah(3), ibv_poll_cq(3),
 * ibv_post_send(3), ...). Code: lib/mr.c, lib/cq.c, lib/post.c.
 * ====================================================================== */

/* Access flags beyond those above (enum xqp_access_flags). */
#define XQP_ACCESS_MW_BIND	(1 << 4)

struct xqp_mr {
	struct xqp_context *context;
	struct xqp_pd *pd;
	void *addr;		/* as registered */
	size_t length;
	uint64_t iova;		/* the address remote peers use (= addr unless _iova) */
	uint32_t handle;
	uint32_t lkey;		/* local SGEs */
	uint32_t rkey;		/* remote RDMA/atomic access (= lkey on xqp) */
};

/**
 * xqp_reg_mr - REG_MR: register @length bytes at @addr for access by the
 * device (ibv_reg_mr(3)). The pages are pinned and count against
 * RLIMIT_MEMLOCK (ENOMEM beyond it, unless CAP_IPC_LOCK).
 * @access: XQP_ACCESS_* bits. REMOTE_WRITE or REMOTE_ATOMIC need
 *          LOCAL_WRITE (EINVAL otherwise), as do receives into the MR and
 *          RDMA READ / atomic results landing in it.
 * The MR holds its PD: xqp_dealloc_pd() is EBUSY until xqp_dereg_mr().
 * Return: the MR (lkey, rkey set), or NULL with errno (EINVAL, ENOMEM,
 * EFAULT for memory that is not mapped, ENOENT for a stale PD).
 */
struct xqp_mr *xqp_reg_mr(struct xqp_pd *pd, void *addr, size_t length, int access);

/**
 * xqp_reg_mr_iova - as xqp_reg_mr(), but the region's addresses are
 * [@iova, @iova + @length) (ibv_reg_mr_iova(3)): SGEs and remote accesses
 * alike address it by @iova, which must have the same offset within a page
 * as @addr (EINVAL).
 */
struct xqp_mr *xqp_reg_mr_iova(struct xqp_pd *pd, void *addr, size_t length,
			       uint64_t iova, int access);

/** xqp_dereg_mr - DEREG_MR. Return: 0 or errno. */
int xqp_dereg_mr(struct xqp_mr *mr);

struct xqp_ah {
	struct xqp_context *context;
	struct xqp_pd *pd;
	uint32_t handle;
};

/**
 * xqp_create_ah - CREATE_AH: an address handle for UD sends
 * (ibv_create_ah(3)). @attr->port_num must be a valid port (EINVAL);
 * @attr->dlid (or, with is_global, grh.dgid) names the destination.
 * Return: the AH, or NULL with errno.
 */
struct xqp_ah *xqp_create_ah(struct xqp_pd *pd, struct xqp_ah_attr *attr);

/** xqp_destroy_ah - DESTROY_AH. Return: 0 or errno. */
int xqp_destroy_ah(struct xqp_ah *ah);

/* ---- completion channels (ibv_create_comp_channel(3)) ------------------ */

struct xqp_comp_channel {
	struct xqp_context *context;
	int fd;			/* poll()/O_NONBLOCK as any fd */
	int refcnt;		/* CQs using it */
};

/**
 * xqp_create_comp_channel - CREATE_COMP_CHANNEL: a file descriptor that
 * becomes readable when a CQ created on it (xqp_create_cq()) has a
 * completion after xqp_req_notify_cq(). Return: channel or NULL + errno.
 */
struct xqp_comp_channel *xqp_create_comp_channel(struct xqp_context *context);

/**
 * xqp_destroy_comp_channel - close the channel. EBUSY while CQs use it.
 */
int xqp_destroy_comp_channel(struct xqp_comp_channel *channel);

/**
 * xqp_get_cq_event - read the next completion event of @channel: the CQ it
 * names (*@cq, the process's own object) and its cq_context. Blocks unless
 * channel->fd is O_NONBLOCK (then EAGAIN). Each event must be acknowledged
 * with xqp_ack_cq_events(), and the CQ re-armed with xqp_req_notify_cq()
 * to get another one.
 * Return: 0, or errno (EAGAIN, EINTR, EIO).
 */
int xqp_get_cq_event(struct xqp_comp_channel *channel, struct xqp_cq **cq,
		     void **cq_context);

/** xqp_ack_cq_events - acknowledge @nevents events of @cq. */
void xqp_ack_cq_events(struct xqp_cq *cq, unsigned int nevents);

/* ---- work completions ------------------------------------------------- */

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

enum xqp_wc_opcode {
	XQP_WC_SEND,
	XQP_WC_RDMA_WRITE,
	XQP_WC_RDMA_READ,
	XQP_WC_COMP_SWAP,
	XQP_WC_FETCH_ADD,
	XQP_WC_BIND_MW,
	XQP_WC_LOCAL_INV,
	XQP_WC_RECV = 1 << 7,		/* any receive: check opcode & XQP_WC_RECV */
	XQP_WC_RECV_RDMA_WITH_IMM,
};

/* wc_flags: the kernel's ib_wc_flags, passed through by POLL_CQ. */
enum xqp_wc_flags {
	XQP_WC_GRH = 1 << 0,		/* UD: a GRH is in the first 40 bytes */
	XQP_WC_WITH_IMM = 1 << 1,	/* imm_data is valid */
	XQP_WC_WITH_INV = 1 << 2,
};

/* One completion: struct ib_uverbs_wc, field for field. */
struct xqp_wc {
	uint64_t wr_id;
	enum xqp_wc_status status;
	enum xqp_wc_opcode opcode;	/* undefined (0 / RECV on xqp) when flushed */
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

/** xqp_wc_status_str - a name for a completion status ("success", ...). */
const char *xqp_wc_status_str(enum xqp_wc_status status);

/**
 * xqp_poll_cq - POLL_CQ: take up to @num_entries completions off @cq into
 * @wc, oldest first (ibv_poll_cq(3)). Never blocks.
 * Return: the number taken (0 if the CQ is empty), or a negative errno
 * value (errno set too).
 */
int xqp_poll_cq(struct xqp_cq *cq, int num_entries, struct xqp_wc *wc);

/**
 * xqp_req_notify_cq - REQ_NOTIFY_CQ: arm @cq so that its next completion
 * (@solicited_only: its next solicited receive completion, or any error
 * completion) sends one event to its completion channel. Completions
 * already queued do not count: poll after arming to close the race.
 * Return: 0 or errno.
 */
int xqp_req_notify_cq(struct xqp_cq *cq, int solicited_only);

/**
 * xqp_resize_cq - RESIZE_CQ to at least @cqe entries (not fewer than are
 * queued now, nor more than max_cqe: EINVAL). cq->cqe is the new size.
 */
int xqp_resize_cq(struct xqp_cq *cq, int cqe);

/* ---- work requests ----------------------------------------------------- */

enum xqp_wr_opcode {
	XQP_WR_RDMA_WRITE,
	XQP_WR_RDMA_WRITE_WITH_IMM,
	XQP_WR_SEND,
	XQP_WR_SEND_WITH_IMM,
	XQP_WR_RDMA_READ,
	XQP_WR_ATOMIC_CMP_AND_SWP,
	XQP_WR_ATOMIC_FETCH_AND_ADD,
};

enum xqp_send_flags {
	XQP_SEND_FENCE = 1 << 0,
	XQP_SEND_SIGNALED = 1 << 1,	/* a completion even without sq_sig_all */
	XQP_SEND_SOLICITED = 1 << 2,
	XQP_SEND_INLINE = 1 << 3,	/* data copied at post time; lkey unused */
};

struct xqp_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

struct xqp_send_wr {
	uint64_t wr_id;
	struct xqp_send_wr *next;
	struct xqp_sge *sg_list;
	int num_sge;
	enum xqp_wr_opcode opcode;
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
			struct xqp_ah *ah;
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

struct xqp_recv_wr {
	uint64_t wr_id;
	struct xqp_recv_wr *next;
	struct xqp_sge *sg_list;
	int num_sge;
};

/**
 * xqp_post_send - POST_SEND the list @wr on @qp (ibv_post_send(3)).
 *
 * The WRs go to the kernel as struct xqp_uverbs_send_wr (uapi/xqp_uverbs.h:
 * struct ib_uverbs_send_wr + the XRC remote SRQ number, taken from
 * wr->qp_type.xrc.remote_srqn). With XQP_SEND_INLINE the kernel copies the
 * bytes at the SGEs' addresses during the call; the buffers can be reused
 * as soon as it returns.
 *
 * On failure *@bad_wr is the first WR not posted; the ones before it are
 * posted. EINVAL: QP state (RESET, INIT, RTR; bad_wr = @wr), an opcode the
 * QP type does not have, too many SGEs or inline bytes, a UD WR without an
 * AH (checked here), an XRC target QP; ENOMEM: the send queue is full.
 * Return: 0 or errno.
 */
int xqp_post_send(struct xqp_qp *qp, struct xqp_send_wr *wr, struct xqp_send_wr **bad_wr);

/**
 * xqp_post_recv - POST_RECV (ibv_post_recv(3)). EINVAL for a QP on an SRQ,
 * XRC QPs, state RESET, too many SGEs; ENOMEM: the receive queue is full.
 * *@bad_wr as for xqp_post_send(). Return: 0 or errno.
 */
int xqp_post_recv(struct xqp_qp *qp, struct xqp_recv_wr *wr, struct xqp_recv_wr **bad_wr);

/**
 * xqp_post_srq_recv - POST_SRQ_RECV (ibv_post_srq_recv(3)). EINVAL: too
 * many SGEs; ENOMEM: the SRQ is full. Return: 0 or errno.
 */
int xqp_post_srq_recv(struct xqp_srq *srq, struct xqp_recv_wr *wr,
		      struct xqp_recv_wr **bad_wr);

/* ---- SRQ attributes (ibv_modify_srq(3), ibv_query_srq(3)) ------------ */

enum xqp_srq_attr_mask {
	XQP_SRQ_MAX_WR = 1 << 0,	/* resize */
	XQP_SRQ_LIMIT = 1 << 1,		/* arm the limit event */
};

/**
 * xqp_modify_srq - MODIFY_SRQ. XQP_SRQ_LIMIT with a non-zero srq_limit
 * arms XQP_EVENT_SRQ_LIMIT_REACHED: once the SRQ holds fewer WRs than the
 * limit, one event, then the limit is 0 again. XQP_SRQ_MAX_WR resizes (not
 * below the WRs posted now, not above max_srq_wr). srq_limit > max_wr:
 * EINVAL. Return: 0 or errno.
 */
int xqp_modify_srq(struct xqp_srq *srq, struct xqp_srq_attr *attr, int attr_mask);

/** xqp_query_srq - QUERY_SRQ: max_wr, max_sge, srq_limit. 0 or errno. */
int xqp_query_srq(struct xqp_srq *srq, struct xqp_srq_attr *attr);

/* ======================================================================
 * xqp extras
 * ====================================================================== */

/**
 * xqp_raise_qp_event - test hook: make the device report @event on the real
 * QP behind @qp, as hardware would (xqp's char device only; needs
 * CAP_SYS_ADMIN). Return: 0 or errno (ENOTTY on Linux's uverbs).
 */
int xqp_raise_qp_event(struct xqp_qp *qp, enum xqp_event_type event);

/**
 * xqp_raise_cq_event / xqp_raise_srq_event - the same test hook for a CQ or
 * an SRQ: the event reaches this context's async fd with element.cq /
 * element.srq set (XQP_UVERBS_IOC_RAISE_CQ_EVENT / _SRQ_EVENT). Return: 0
 * or errno (ENOTTY on Linux's uverbs).
 */
int xqp_raise_cq_event(struct xqp_cq *cq, enum xqp_event_type event);
int xqp_raise_srq_event(struct xqp_srq *srq, enum xqp_event_type event);

#ifdef __cplusplus
}
#endif

#endif /* XQPVERBS_H */
