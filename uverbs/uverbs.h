/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xqp's uverbs character device: /dev/xqp/uverbsN speaks the uverbs write
 * ABI of <rdma/ib_user_verbs.h> on top of the xqp C API. It is a client of
 * the core (as ib_uverbs is an ib_client) and mirrors ib_uverbs' structure:
 *
 *  - one struct xqp_uverbs_device per xqp device, holding the char device,
 *    the SRCU that fences commands against device removal ("disassociate")
 *    and the per-device inode -> XRCD table;
 *  - one struct xqp_ufile per open(): its object table (small integer
 *    handles in one xarray, never pointers), its async event file and the
 *    list of live objects in creation order (torn down newest first, with
 *    retries, on close or device removal);
 *  - one struct xqp_uobj per user object; the xqp object pointer it owns is
 *    never copied out.
 *
 * docs/uverbs.md has the whole story, the errno table and the divergences.
 */
#ifndef XQP_UVERBS_H
#define XQP_UVERBS_H

#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rbtree.h>
#include <linux/rwsem.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/srcu.h>
#include <linux/types.h>
#include <linux/uidgid.h>
#include <linux/wait.h>
#include <linux/xarray.h>
#include <rdma/ib_user_verbs.h>

#include "xqp/driver.h"
#include "xqp/res.h"
#include "compat.h"

/* Linux's values (include/rdma/ib_verbs.h), used on the wire. */
#define XQP_UVERBS_NUM_COMP_VECTORS	1
#define XQP_IB_QP_SET_QKEY		0x80000000U
#define XQP_IB_SRQT_BASIC		0
#define XQP_IB_SRQT_XRC			1
#define XQP_IB_SRQT_TM			2

/*
 * Sizes of Linux's write-method tables for a device like the reference
 * device (every legacy command up to OPEN_QP enabled; extended ones up to
 * EX_MODIFY_QP): a command past them is -EOPNOTSUPP before any length check,
 * one inside them that xqp lacks gets the length check, then -EOPNOTSUPP.
 */
#define XQP_UVERBS_NUM_WRITE		(IB_USER_VERBS_CMD_OPEN_QP + 1)
#define XQP_UVERBS_NUM_WRITE_EX		(IB_USER_VERBS_EX_CMD_MODIFY_QP + 1)

struct xqp_uverbs_device {
	struct device dev;		/* refcount: the files' and ours */
	struct cdev cdev;
	int devnum;
	struct xqp_device __rcu *xdev;	/* NULL once the device is removed */
	struct srcu_struct disassociate_srcu;	/* held by every command */
	struct mutex lists_mutex;
	struct list_head files;		/* struct xqp_ufile.list */
	struct mutex xrcd_tree_mutex;
	struct rb_root xrcd_tree;	/* inode -> struct xqp_xrcd */
	struct mutex parked_mutex;
	struct list_head parked;	/* uobjs a driver would not destroy (uobj.c) */
};

/* The async event file (the fd GET_CONTEXT returns). */
struct xqp_uverbs_event_file {
	struct kref ref;		/* the fd, the ufile, each event object */
	spinlock_t lock;		/* everything below; IRQ-safe */
	struct list_head event_list;
	wait_queue_head_t poll_wait;
	struct fasync_struct *async_queue;
	bool is_closed;			/* the fd was released */
	bool dead;			/* device removed: EIO once drained */
	u32 queued;
	u64 dropped;			/* events lost to the queue bound */
	u64 delivered;
};

struct xqp_ufile {
	struct kref ref;		/* the struct file; device removal */
	struct xqp_uverbs_device *udev;	/* holds a device reference */
	struct list_head list;		/* udev->files, lists_mutex */
	struct mutex ucontext_lock;	/* GET_CONTEXT */
	bool has_context;		/* read with smp_load_acquire */
	struct xqp_uverbs_event_file *async_file;
	struct mutex cleanup_mutex;	/* close vs. device removal */
	struct xarray idr;		/* handle -> struct xqp_uobj */
	spinlock_t uobjects_lock;	/* the list; process context only */
	struct list_head uobjects;	/* newest first */
	struct mutex comp_mutex;
	struct list_head comp_channels;	/* struct xqp_comp_channel.list */
	wait_queue_head_t poll_wq;	/* POLL_CQ's sleepers (cmd_cq.c) */
	atomic_t poll_wakes;		/* completions that woke them so far */
};

enum xqp_uobj_type {
	XQP_UOBJ_PD = 1,
	XQP_UOBJ_CQ,
	XQP_UOBJ_QP,
	XQP_UOBJ_SRQ,
	XQP_UOBJ_XRCD,
	XQP_UOBJ_MR,
	XQP_UOBJ_AH,
	XQP_UOBJ_MW,
};

/* Why an object is destroyed (Linux's enum rdma_remove_reason). */
enum xqp_remove_reason {
	XQP_REMOVE_DESTROY,	/* the user asked */
	XQP_REMOVE_CLOSE,	/* the file is closed (or its process died) */
	XQP_REMOVE_DRIVER,	/* the device goes away */
	XQP_REMOVE_ABORT,	/* creation failed after the object was made */
};

/* Lock modes on one object, as uverbs_try_lock_object(). */
enum xqp_lookup_mode {
	XQP_LOOKUP_READ,	/* shared: usecnt > 0 */
	XQP_LOOKUP_WRITE,	/* exclusive: usecnt == -1 */
	XQP_LOOKUP_DESTROY,	/* reference only; destroy takes WRITE */
};

struct xqp_uobj;

/*
 * A uobject type, as Linux's uverbs_obj_idr_type: what the generic code
 * (uobj.c) needs of it, defined beside the type's commands; uobj.c calls
 * its hooks and knows no type.
 */
struct xqp_uobj_class {
	enum xqp_uobj_type type;
	size_t size;			/* of the structure embedding struct xqp_uobj */
	/*
	 * Undo what creation did in the core, release what the object holds
	 * in this layer. On error nothing changed (the object stays).
	 */
	int (*destroy_hw)(struct xqp_uobj *uobj, enum xqp_remove_reason why);
	/* The destroy command's response (its counters); NULL: none. */
	void (*destroy_resp)(struct xqp_uobj *uobj, void *resp);
};

extern const struct xqp_uobj_class xqp_uobj_pd, xqp_uobj_cq, xqp_uobj_qp, xqp_uobj_srq,
	xqp_uobj_xrcd, xqp_uobj_mr, xqp_uobj_ah, xqp_uobj_mw;

struct xqp_uobj {
	struct kref ref;
	atomic_t usecnt;		/* -1: write-locked, >0: readers */
	u32 id;				/* the handle */
	enum xqp_uobj_type type;
	const struct xqp_uobj_class *cls;
	bool committed;			/* lookups find it (xqp_uobj_commit()) */
	u64 user_handle;
	struct xqp_ufile *ufile;
	void *object;			/* the xqp object; NULL once destroyed */
	struct list_head list;		/* ufile->uobjects once committed */
	struct rcu_head rcu;
	/* The creating process, as rdma_restrack records it (nl_res.c). */
	pid_t owner_pid;		/* its tgid, in the initial pid namespace */
	kuid_t owner_uid;		/* its effective uid */
	char owner_comm[TASK_COMM_LEN];
};

/* Objects that report async events to the file's event fd. */
struct xqp_uevent_obj {
	struct xqp_uobj uobj;
	struct xqp_uverbs_event_file *ev_file;
	struct list_head event_list;	/* its queued events, ev_file->lock */
	u32 events_reported;		/* read by the user, ev_file->lock */
};

struct xqp_uxrcd {
	struct xqp_uobj uobj;
	atomic_t refcnt;		/* QPs, opened QPs, XRC SRQs of this handle */
	struct inode *inode;		/* NULL for a private (fd = -1) XRCD */
};

struct xqp_uqp {
	struct xqp_uevent_obj uevent;
	struct xqp_uxrcd *uxrcd;	/* XRC_TGT created or opened */
	u32 max_inline_data;		/* granted at CREATE_QP; 0 if opened */
	struct mutex mcast_lock;	/* mcast_list */
	struct list_head mcast_list;	/* multicast attachments (cmd_mcast.c) */
};

/* cmd_mcast.c */
void xqp_uqp_mcast_init(struct xqp_uqp *uqp);
int xqp_uqp_mcast_release(struct xqp_uqp *uqp, enum xqp_remove_reason why);

/*
 * A completion channel (CREATE_COMP_CHANNEL): an fd whose read() gives one
 * struct ib_uverbs_comp_event_desc per notification of a CQ created on it.
 * Not in the object table (Linux's channel is an fd object: its "handle" is
 * the fd and takes no number from the table).
 */
struct xqp_comp_channel {
	struct kref ref;		/* the fd, each CQ on it */
	struct xqp_ufile *ufile;	/* holds a reference; CREATE_CQ checks it */
	struct list_head list;		/* ufile->comp_channels, comp_mutex */
	spinlock_t lock;		/* everything below; IRQ-safe */
	struct list_head pending;	/* struct xqp_ucq.comp_entry */
	wait_queue_head_t poll_wait;
	struct fasync_struct *async_queue;
	bool is_closed;			/* the fd was released */
	bool dead;			/* the file was cleaned up: -EIO */
};

/*
 * A CQ: async events as every event object, completion events on its
 * channel. Linux queues one allocated entry per notification; xqp keeps one
 * entry per CQ with a count (no allocation where the handler runs).
 */
struct xqp_ucq {
	struct xqp_uevent_obj uevent;
	struct xqp_comp_channel *channel;	/* NULL: none */
	struct list_head comp_entry;	/* channel->pending while comp_count */
	u32 comp_count;			/* notifications not yet read */
	u32 comp_events_reported;	/* read by the user */
};

struct xqp_usrq {
	struct xqp_uevent_obj uevent;
	struct xqp_uxrcd *uxrcd;	/* XRC SRQ */
};

/* One write() being executed. */
struct xqp_cmd {
	struct xqp_ufile *ufile;
	struct xqp_device *xdev;	/* alive for the whole command (SRCU) */
	const void __user *inbuf;	/* the command struct, after the header */
	size_t inlen;
	void __user *outbuf;		/* the response */
	size_t outlen;
};

/* main.c */
extern struct xqp_client xqp_uverbs_client;
int xqp_uverbs_init(void);
void xqp_uverbs_exit(void);
void xqp_ufile_put(struct xqp_ufile *ufile);

/* uobj.c: the per-file object table */
struct xqp_uobj *xqp_uobj_alloc(struct xqp_cmd *cmd, const struct xqp_uobj_class *cls);
void xqp_uobj_commit(struct xqp_uobj *uobj);
void xqp_uobj_abort(struct xqp_uobj *uobj);
void xqp_uobj_keep_refused(struct xqp_uobj *uobj, int err);
struct xqp_uobj *xqp_uobj_get(struct xqp_ufile *ufile, enum xqp_uobj_type type,
			      u32 id, enum xqp_lookup_mode mode);
void xqp_uobj_put(struct xqp_uobj *uobj, enum xqp_lookup_mode mode);
void xqp_uobj_unlock(struct xqp_uobj *uobj, enum xqp_lookup_mode mode);
int xqp_uobj_relock(struct xqp_uobj *uobj, enum xqp_lookup_mode mode);
void xqp_uobj_unref(struct xqp_uobj *uobj);
struct xqp_uobj *xqp_uobj_get_destroy(struct xqp_ufile *ufile,
				      enum xqp_uobj_type type, u32 id);
int xqp_uobj_destroy_hw(struct xqp_uobj *uobj, enum xqp_remove_reason why);
int xqp_cmd_destroy(struct xqp_cmd *cmd, const struct xqp_uobj_class *cls, size_t req_size,
		    size_t handle_off, size_t resp_size);
void xqp_ufile_cleanup(struct xqp_ufile *ufile, enum xqp_remove_reason why);
void xqp_uverbs_retry_parked(struct xqp_uverbs_device *udev,
			     enum xqp_remove_reason why, bool last);
void xqp_ufile_release_idr(struct xqp_ufile *ufile);

/* event.c: the async event file */
struct xqp_uverbs_event_file *xqp_event_file_alloc(void);
void xqp_event_file_put(struct xqp_uverbs_event_file *ev);
struct file *xqp_event_file_open(struct xqp_uverbs_event_file *ev);
void xqp_async_event(struct xqp_uverbs_event_file *ev, u64 element, u32 event,
		     struct list_head *obj_list, u32 *counter);
void xqp_uevent_init(struct xqp_uevent_obj *eobj, struct xqp_ufile *ufile);
void xqp_uevent_release(struct xqp_uevent_obj *eobj);
void xqp_uevent_destroyed(struct xqp_uevent_obj *eobj, struct xqp_uxrcd *uxrcd);
void xqp_uevent_destroy_resp(struct xqp_uobj *uobj, void *resp);
void xqp_event_file_disassociate(struct xqp_uverbs_event_file *ev);
void xqp_uverbs_event_handler(struct xqp_event *event, void *context);

/* comp.c: completion channels */
struct xqp_comp_channel *xqp_comp_channel_get(struct xqp_ufile *ufile, int fd);
void xqp_comp_channel_put(struct xqp_comp_channel *ch);
void xqp_ucq_comp_handler(struct xqp_cq *cq, void *context);
void xqp_ucq_release_comp(struct xqp_ucq *ucq);
void xqp_comp_channels_disassociate(struct xqp_ufile *ufile);

/* umem.c: user memory pinned for an MR */
struct xqp_mem *xqp_umem_get(u64 start, u64 length, int access);

/* cmd_*.c: the handlers */
int xqp_cmd_get_context(struct xqp_cmd *cmd);
int xqp_cmd_query_device(struct xqp_cmd *cmd);
int xqp_cmd_query_port(struct xqp_cmd *cmd);
/* cmd_ioctl.c: RDMA_VERBS_IOCTL (the device's GID queries; else EPROTONOSUPPORT). */
struct ib_uverbs_ioctl_hdr;
long xqp_uverbs_verbs_ioctl(struct xqp_ufile *file, struct ib_uverbs_ioctl_hdr __user *uhdr);
int xqp_cmd_alloc_pd(struct xqp_cmd *cmd);
int xqp_cmd_create_comp_channel(struct xqp_cmd *cmd);
int xqp_cmd_create_cq(struct xqp_cmd *cmd);
int xqp_cmd_poll_cq(struct xqp_cmd *cmd);
int xqp_cmd_req_notify_cq(struct xqp_cmd *cmd);
int xqp_cmd_resize_cq(struct xqp_cmd *cmd);
int xqp_cmd_reg_mr(struct xqp_cmd *cmd);
int xqp_cmd_alloc_mw(struct xqp_cmd *cmd);
int xqp_cmd_create_ah(struct xqp_cmd *cmd);
int xqp_cmd_post_send(struct xqp_cmd *cmd);
int xqp_cmd_post_recv(struct xqp_cmd *cmd);
int xqp_cmd_post_srq_recv(struct xqp_cmd *cmd);
int xqp_cmd_create_qp(struct xqp_cmd *cmd);
int xqp_cmd_open_qp(struct xqp_cmd *cmd);
int xqp_cmd_query_qp(struct xqp_cmd *cmd);
int xqp_cmd_modify_qp(struct xqp_cmd *cmd);
int xqp_cmd_attach_mcast(struct xqp_cmd *cmd);
int xqp_cmd_detach_mcast(struct xqp_cmd *cmd);
int xqp_cmd_open_xrcd(struct xqp_cmd *cmd);
int xqp_cmd_create_srq(struct xqp_cmd *cmd);
int xqp_cmd_create_xsrq(struct xqp_cmd *cmd);
int xqp_cmd_modify_srq(struct xqp_cmd *cmd);
int xqp_cmd_query_srq(struct xqp_cmd *cmd);

/* cmd_common.c: request/response copying with Linux's rules */
/* The largest request and response of a destroy command (xqp_cmd_destroy()). */
#define XQP_DESTROY_REQ_MAX	16
#define XQP_DESTROY_RESP_MAX	8
int xqp_cmd_request(struct xqp_cmd *cmd, void *req, size_t req_len);
int xqp_cmd_user_cleared(const void __user *p, size_t len);
struct xqp_uobj *xqp_cmd_request_obj(struct xqp_cmd *cmd, void *req, size_t req_len,
				     const u32 *handle, enum xqp_uobj_type type,
				     enum xqp_lookup_mode mode);
int xqp_cmd_response(struct xqp_cmd *cmd, const void *resp, size_t resp_len);
int xqp_cmd_respond_new(struct xqp_cmd *cmd, struct xqp_uobj *uobj,
			const void *resp, size_t len);
int xqp_cmd_need_context(struct xqp_cmd *cmd);

#endif /* XQP_UVERBS_H */
