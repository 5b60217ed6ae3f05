/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * What /dev/xqp/uverbsN offers beyond <rdma/ib_user_verbs.h>.
 *
 * The write ABI itself is exactly ib_uverbs' (struct ib_uverbs_cmd_hdr +
 * command struct, responses through the command's `response` pointer).
 * Two additions:
 *  - the XRC target SRQ number of a send WR, and a memory window bind's
 *    fields (struct xqp_uverbs_send_wr);
 *  - a test hook: ioctls that make the device report an async event on a
 *    QP, CQ or SRQ, as hardware would, so that tests can see events reach
 *    every opener of a shared QP and the owners of CQs and SRQs. Linux's
 *    uverbs fd answers them with ENOTTY.
 */
#ifndef XQP_UAPI_UVERBS_H
#define XQP_UAPI_UVERBS_H

#include <linux/ioctl.h>
#include <linux/types.h>
#include <rdma/ib_user_verbs.h>

/* sysfs: /sys/class/xqp_uverbs/uverbsN/ibdev names the xqp device. */
#define XQP_UVERBS_CLASS	"xqp_uverbs"
#define XQP_UVERBS_DEV_DIR	"/dev/xqp"

/*
 * XQP_UVERBS_IOC_RAISE_QP_EVENT: report @event_type (enum ib_event_type,
 * e.g. 1 = IB_EVENT_QP_FATAL, 4 = IB_EVENT_COMM_EST) on the real QP behind
 * this file's QP handle @qp_handle. For a shared XRC target QP every share
 * of it, in every process, gets its own copy on its own async fd.
 * Only when xqp.ko was loaded with test_hooks=1 (else ENOTTY, as any
 * unknown ioctl). Needs CAP_SYS_ADMIN. Errors: EPERM, EFAULT, EINVAL (event out of range,
 * reserved not zero, handle of another type), ENOENT (no such handle), EIO
 * (device removed), EINVAL before GET_CONTEXT.
 */
struct xqp_uverbs_raise_event {
	union {
		__u32 qp_handle;
		__u32 handle;		/* the CQ or SRQ handle (below) */
	};
	__u32 event_type;
	__u64 reserved;
};

/*
 * POST_SEND's WRs for an XRC_INI QP. struct ib_uverbs_send_wr has no field
 * for the XRC SRQ a message goes to; Linux's POST_SEND accepts a wqe_size
 * larger than struct ib_uverbs_send_wr (and skips the rest), so the number
 * trails it: send wqe_size = sizeof(struct xqp_uverbs_send_wr) and fill
 * xrc_remote_srq_num. xqp reads it when wqe_size covers it and the QP is an
 * XRC_INI QP; an XRC_INI send with a shorter wqe_size fails with EINVAL.
 * @reserved is not looked at (Linux ignores the bytes past its struct).
 */
struct xqp_uverbs_send_wr {
	struct ib_uverbs_send_wr wr;
	__u32 xrc_remote_srq_num;
	__u32 reserved;
	/*
	 * BIND_MW (IB_UVERBS_WR_BIND_MW, types 1 and 2): the window's handle
	 * (of this file), the rkey it gets (its index, a key byte of the
	 * caller's), the MR's lkey, IB access bits (remote read, write,
	 * atomic, zero-based) and the range. A BIND_MW whose wqe_size does
	 * not cover bind_length is -EINVAL. LOCAL_INV and SEND_WITH_INV name
	 * the rkey in wr.ex.invalidate_rkey.
	 */
	__u32 mw_handle;
	__u32 bind_rkey;
	__u32 mr_lkey;
	__u32 bind_access;
	__u64 bind_addr;
	__u64 bind_length;
};

#define XQP_UVERBS_IOC_MAGIC	'X'
#define XQP_UVERBS_IOC_RAISE_QP_EVENT \
	_IOW(XQP_UVERBS_IOC_MAGIC, 0x40, struct xqp_uverbs_raise_event)

/*
 * XQP_UVERBS_IOC_RAISE_CQ_EVENT / XQP_UVERBS_IOC_RAISE_SRQ_EVENT: the same
 * for this file's CQ handle / SRQ handle @handle (e.g. 2 = IB_EVENT_CQ_ERR,
 * 18 = IB_EVENT_SRQ_ERR, 19 = IB_EVENT_SRQ_LIMIT_REACHED). The event reaches
 * the async fd of the file that created the CQ or SRQ, tagged with its
 * user_handle, and counts in DESTROY_CQ's async_events_reported / in
 * DESTROY_SRQ's events_reported once read, as with ib_uverbs. Same errors as
 * XQP_UVERBS_IOC_RAISE_QP_EVENT (EINVAL for a handle of another type).
 */
#define XQP_UVERBS_IOC_RAISE_CQ_EVENT \
	_IOW(XQP_UVERBS_IOC_MAGIC, 0x41, struct xqp_uverbs_raise_event)
#define XQP_UVERBS_IOC_RAISE_SRQ_EVENT \
	_IOW(XQP_UVERBS_IOC_MAGIC, 0x42, struct xqp_uverbs_raise_event)

#endif /* XQP_UAPI_UVERBS_H */
