/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The driver-ops contract: what the core calls on a device. Drivers are C
 * (drivers/soft is the first); the core keeps every core object (shares,
 * XRCD table, refcounts) and hands the driver only its own private pointers.
 *
 * Rules for drivers:
 *  - every op may sleep, and is called without core spinlocks held;
 *  - query_device is called once at registration: its phys_port_cnt is the
 *    device's port count for good (ports 1..phys_port_cnt);
 *  - create/alloc ops return 0 and set *drv, or a negative errno and leave
 *    nothing behind;
 *  - destroy ops may fail (negative errno): the object then stays intact and
 *    the core keeps it usable;
 *  - modify_qp validates the transition with xqp_modify_qp_is_ok(), as Linux
 *    drivers call ib_modify_qp_is_ok();
 *  - async events are reported with xqp_qp_event(), xqp_cq_event() and
 *    xqp_srq_event() from any context (no sleeping), with the core cookie
 *    the create op was given, and never for an object whose destroy op has
 *    returned (none may be in flight then); a create op that fails must not
 *    have reported any.
 */
#ifndef XQP_DRIVER_H
#define XQP_DRIVER_H

#include "xqp/verbs.h"

XQP_EXTERN_C_BEGIN

/* What the driver is asked to create; caps are a wish list. */
struct xqp_drv_qp_create {
	enum xqp_qp_type qp_type;
	struct xqp_qp_cap cap;
	enum xqp_sig_type sq_sig_type;
	xqp_u32 create_flags;
	xqp_u32 port_num;
	void *pd;		/* driver pointers of the related objects, or NULL */
	void *send_cq;
	void *recv_cq;
	void *srq;
	void *xrcd;
	struct xqp_qp *core_qp;	/* cookie for xqp_qp_event() */
};

struct xqp_drv_qp_created {
	void *drv_qp;
	xqp_u32 qp_num;		/* 24 bits */
	struct xqp_qp_cap cap;	/* granted */
};

/*
 * The memory an MR covers, as the caller who registers it provides it:
 * user pages pinned by the char device, or a kernel buffer
 * (xqp_reg_kernel_mr()). The MR owns it from a successful reg_mr on and
 * calls release() once, when the MR is gone.
 *
 * map() returns the address of byte @offset (< length) and stores in *@len
 * how many bytes from there are mapped contiguously (at least 1); unmap()
 * undoes one map(), newest first (kmap_local rules). Both may be called in
 * any context that may not sleep, never with IRQs off.
 */
struct xqp_mem;
struct xqp_mem_ops {
	void *(*map)(struct xqp_mem *mem, xqp_u64 offset, xqp_u64 *len);
	void (*unmap)(struct xqp_mem *mem, void *addr);
	void (*release)(struct xqp_mem *mem);
};
struct xqp_mem {
	const struct xqp_mem_ops *ops;
	xqp_u64 length;
};

struct xqp_device_ops {
	int (*query_device)(void *drv, struct xqp_device_attr *attr);
	/*
	 * Attributes of @port, which the core has checked against the
	 * phys_port_cnt query_device reported at registration; *attr is
	 * zeroed by the core first (as ib_query_port() does).
	 */
	int (*query_port)(void *drv, xqp_u32 port, struct xqp_port_attr *attr);
	int (*alloc_pd)(void *drv, void **drv_pd);
	int (*dealloc_pd)(void *drv, void *drv_pd);
	/*
	 * A CQ of at least @cqe entries. *granted_cqe holds @cqe on entry; a
	 * driver that grants more (rxe rounds up to 2^k - 1) stores its size
	 * there, as a Linux driver sets ib_cq->cqe. xqp_cq_cqe() reports it.
	 * @core_cq is the cookie for xqp_cq_event().
	 */
	int (*create_cq)(void *drv, int cqe, void **drv_cq, int *granted_cqe,
			 struct xqp_cq *core_cq);
	int (*destroy_cq)(void *drv, void *drv_cq);
	int (*alloc_xrcd)(void *drv, void **drv_xrcd);
	int (*dealloc_xrcd)(void *drv, void *drv_xrcd);
	/*
	 * attr->attr is rewritten to what is granted; *srq_num gets the SRQ's
	 * 24-bit number (XRC SRQs: the one senders address; 0 on entry, a
	 * driver that does not number basic SRQs may leave it). @core_srq is
	 * the cookie for xqp_srq_event().
	 */
	int (*create_srq)(void *drv, void *drv_pd, void *drv_xrcd, void *drv_cq,
			  struct xqp_srq_init_attr *attr, void **drv_srq,
			  xqp_u32 *srq_num, struct xqp_srq *core_srq);
	int (*destroy_srq)(void *drv, void *drv_srq);
	int (*create_qp)(void *drv, const struct xqp_drv_qp_create *req,
			 struct xqp_drv_qp_created *out);
	int (*modify_qp)(void *drv, void *drv_qp, const struct xqp_qp_attr *attr,
			 int attr_mask);
	int (*query_qp)(void *drv, void *drv_qp, struct xqp_qp_attr *attr,
			int attr_mask);
	int (*destroy_qp)(void *drv, void *drv_qp);

	/*
	 * The data path. Optional as a group: a device without post_send
	 * answers -EOPNOTSUPP to every data-path verb.
	 *
	 * reg_mr: an MR of @pd over @mem at @iova (access already checked by
	 * the core); the driver uses @mem until dereg_mr returns 0, and calls
	 * no mem op after that (the core releases it).
	 */
	int (*reg_mr)(void *drv, void *drv_pd, struct xqp_mem *mem, xqp_u64 iova,
		      int access, void **drv_mr, xqp_u32 *lkey, xqp_u32 *rkey);
	int (*dereg_mr)(void *drv, void *drv_mr);
	/*
	 * Optional: memory windows of @pd. A bind WR's wr.bind.mw is the
	 * core's window (xqp_mw_drv()); dealloc_mw of a bound window unbinds
	 * it.
	 */
	int (*alloc_mw)(void *drv, void *drv_pd, enum xqp_mw_type type, void **drv_mw,
			xqp_u32 *rkey);
	int (*dealloc_mw)(void *drv, void *drv_mw);
	/*
	 * Posting: validate and queue every WR or stop at the first bad one
	 * (*bad_wr, the queued ones stay); a UD WR's wr.ud.ah is the core's
	 * AH (xqp_ah_get_attr(), xqp_ah_drv_pd()). Any context.
	 */
	int (*post_send)(void *drv, void *drv_qp, const struct xqp_send_wr *wr,
			 const struct xqp_send_wr **bad_wr);
	int (*post_recv)(void *drv, void *drv_qp, const struct xqp_recv_wr *wr,
			 const struct xqp_recv_wr **bad_wr);
	int (*post_srq_recv)(void *drv, void *drv_srq,
			     const struct xqp_recv_wr *wr,
			     const struct xqp_recv_wr **bad_wr);
	int (*poll_cq)(void *drv, void *drv_cq, int num, struct xqp_wc *wc);
	/*
	 * Returns 0, or 1 with REPORT_MISSED_EVENTS when entries are waiting.
	 * With XQP_CQ_ARM_POLL_WAKE in @flags it arms only the next
	 * completion's xqp_cq_poll_wake(), not the comp_handler, and only
	 * when no entry is waiting (then 1: the poller polls, nothing armed
	 * wakes it or another poller later).
	 */
	int (*req_notify_cq)(void *drv, void *drv_cq, int flags);
	/* *granted holds @cqe on entry, as for create_cq. */
	int (*resize_cq)(void *drv, void *drv_cq, int cqe, int *granted);
	int (*modify_srq)(void *drv, void *drv_srq, struct xqp_srq_attr *attr,
			  int mask);
	int (*query_srq)(void *drv, void *drv_srq, struct xqp_srq_attr *attr);
	/*
	 * The port's GID and P_Key tables (gid_tbl_len / pkey_tbl_len entries,
	 * as query_port reports); the core has checked @port. An index past
	 * the table: -EINVAL. May sleep.
	 */
	int (*query_gid)(void *drv, xqp_u32 port, int index, xqp_u8 gid[16]);
	int (*query_pkey)(void *drv, xqp_u32 port, xqp_u16 index, xqp_u16 *pkey);
	/*
	 * Optional: the Ethernet link (a struct net_device in the kernel,
	 * opaque to the core) @port is bound to, or NULL. Any context.
	 */
	struct net_device *(*get_netdev)(void *drv, xqp_u32 port);
	/*
	 * Optional: set entry @index of @port's GID table to @entry, or clear
	 * it (@entry NULL), for a device whose table is kept by someone else
	 * (ib_core's RoCE GID management, through ibdev). Any context.
	 */
	int (*modify_gid)(void *drv, xqp_u32 port, xqp_u32 index,
			  const struct xqp_gid_entry *entry);
	/*
	 * Optional: entry @index of @port's GID table with its type and
	 * netdev; -ENODATA for an empty entry, -EINVAL past the table. Without
	 * it the core reports query_gid's GID as type IB, on no netdev. Any
	 * context.
	 */
	int (*query_gid_entry)(void *drv, xqp_u32 port, int index,
			       struct xqp_gid_entry *entry);
	/*
	 * Optional: @port's counters (ib_core's hw_counters: sysfs and `rdma
	 * statistic`): the first @max of them, their names (static strings,
	 * in an order that never changes) into @names and their values into
	 * @values, either of which may be NULL. Return: how many the port
	 * has. Any context.
	 */
	int (*port_stats)(void *drv, xqp_u32 port, const char **names, xqp_u64 *values,
			  int max);
	/*
	 * Optional: attach a UD QP to, or detach it from, the multicast group
	 * @gid (the core has checked the QP's type, the GID and the LID).
	 * attach: 0, or 1 when already attached (then nothing changed: the
	 * core counts one attachment); -ENOMEM past the device's limits.
	 * detach: -EINVAL when not attached. destroy_qp detaches a QP still
	 * attached (a device's teardown). May sleep.
	 */
	int (*attach_mcast)(void *drv, void *drv_qp, const xqp_u8 gid[16], xqp_u16 lid);
	int (*detach_mcast)(void *drv, void *drv_qp, const xqp_u8 gid[16], xqp_u16 lid);
};

/**
 * xqp_register_device - make a driver's device known to the core.
 * @name: device name ("xqp_soft0"); copied.
 * @ops: the driver's ops; must outlive the device.
 * @drv: the driver's private pointer, passed back to every op.
 *
 * Return: the device, or ERR_PTR(-ENOMEM / -EINVAL).
 */
struct xqp_device *xqp_register_device(const char *name,
				       const struct xqp_device_ops *ops,
				       void *drv);

/**
 * xqp_unregister_device - tear down every object on the device and free it.
 * Later calls on objects of the device fail with -EIO (see the divergences).
 */
void xqp_unregister_device(struct xqp_device *dev);

/*
 * Clients (like ib_client): told of every device added and removed. The
 * uverbs char device is one. add() returns the client's data for the device
 * (NULL or ERR_PTR: the client skips that device); remove() is called before
 * the device's objects are torn down, so a client can destroy what its users
 * still hold through the ordinary calls. Both may sleep.
 */
struct xqp_client {
	const char *name;
	void *(*add)(struct xqp_device *dev);
	void (*remove)(struct xqp_device *dev, void *client_data);
	/* Optional: a device event (xqp_device_event()); may sleep. */
	void (*event)(struct xqp_device *dev, void *client_data, struct xqp_event *ev);
	int id;		/* core-private */
};
#define XQP_MAX_CLIENTS 4
int xqp_register_client(struct xqp_client *client);	/* 0, -ENOSPC */
void xqp_unregister_client(struct xqp_client *client);
void *xqp_get_client_data(struct xqp_device *dev, struct xqp_client *client);
void xqp_device_event(struct xqp_device *dev, enum xqp_event_type type, xqp_u32 port);

/* Async events from the driver; callable from any context (no sleeping). */
void xqp_qp_event(struct xqp_qp *core_qp, enum xqp_event_type type);
void xqp_cq_event(struct xqp_cq *core_cq, enum xqp_event_type type);
void xqp_srq_event(struct xqp_srq *core_srq, enum xqp_event_type type);
/*
 * A CQ armed with req_notify_cq got a completion it was armed for: the
 * comp_handler of xqp_create_cq_attr(), if any, is called (from the CQ's
 * work item, or here with XQP_CQ_COMP_INLINE). Any context, no sleeping;
 * never for a CQ whose destroy_cq has returned.
 */
void xqp_cq_comp(struct xqp_cq *core_cq);
/*
 * req_notify_cq's flag for xqp_cq_arm_poll_wake() (never a user's): the
 * next completion queued on the CQ, whatever its kind, is followed by one
 * xqp_cq_poll_wake(). Any context, no sleeping; never for a CQ whose
 * destroy_cq has returned.
 */
#define XQP_CQ_ARM_POLL_WAKE	0x8
void xqp_cq_poll_wake(struct xqp_cq *core_cq);
/* The driver pointer of the PD an AH was created on. Any context. */
void *xqp_ah_drv_pd(const struct xqp_ah *ah);
/* The driver's window of a core window, NULL once detached. Any context. */
void *xqp_mw_drv(const struct xqp_mw *mw);

XQP_EXTERN_C_END

#endif /* XQP_DRIVER_H */
