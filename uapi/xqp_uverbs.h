/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * What /dev/xqp/uverbsN offers beyond <rdma/ib_user_verbs.h>.
 *
 * The write ABI itself is exactly ib_uverbs' (struct ib_uverbs_cmd_hdr +
 * command struct, responses through the command's `response` pointer). The
 * only addition is a test hook: an ioctl that makes the device report an
 * async event on a QP, as hardware would, so that tests can see events reach
 * every opener of a shared QP. Linux's uverbs fd answers it with ENOTTY.
 */
#ifndef XQP_UAPI_UVERBS_H
#define XQP_UAPI_UVERBS_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* sysfs: /sys/class/xqp_uverbs/uverbsN/ibdev names the xqp device. */
#define XQP_UVERBS_CLASS	"xqp_uverbs"
#define XQP_UVERBS_DEV_DIR	"/dev/xqp"

/*
 * XQP_UVERBS_IOC_RAISE_QP_EVENT: report @event_type (enum ib_event_type,
 * e.g. 1 = IB_EVENT_QP_FATAL, 4 = IB_EVENT_COMM_EST) on the real QP behind
 * this file's QP handle @qp_handle. For a shared XRC target QP every handle
 * on it, in every process, gets its own copy on its own async fd.
 * Needs CAP_SYS_ADMIN. Errors: EPERM, EFAULT, EINVAL (event out of range,
 * reserved not zero, handle of another type), ENOENT (no such handle), EIO
 * (device removed), EINVAL before GET_CONTEXT.
 */
struct xqp_uverbs_raise_event {
	__u32 qp_handle;
	__u32 event_type;
	__u64 reserved;
};

#define XQP_UVERBS_IOC_MAGIC	'X'
#define XQP_UVERBS_IOC_RAISE_QP_EVENT \
	_IOW(XQP_UVERBS_IOC_MAGIC, 0x40, struct xqp_uverbs_raise_event)

#endif /* XQP_UAPI_UVERBS_H */
