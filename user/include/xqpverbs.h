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

struct xqp_cq {
	struct xqp_context *context;
	void *cq_context;
	uint32_t handle;
	int cqe;		/* what the driver granted: at least the request */
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	uint32_t async_events_completed;
};

/**
 * xqp_create_cq - CREATE_CQ with at least @cqe entries. Completion channels
 * are not supported: @channel must be NULL. Return: CQ or NULL + errno.
 */
struct xqp_cq *xqp_create_cq(struct xqp_context *context, int cqe,
			     void *cq_context, void *channel, int comp_vector);

/** xqp_destroy_cq - DESTROY_CQ: EBUSY while QPs or SRQs use it. */
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
