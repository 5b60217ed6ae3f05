/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-2-Clause) */
/*
 * The "xqp_res" generic netlink family: xqp's devices and their objects,
 * for `xqp dev show` / `xqp res show` (user/tools/xqp-res.c), shaped after
 * RDMA netlink's nldev resource dumps. docs/res.md has the whole story.
 *
 * Requests (NLM_F_REQUEST | NLM_F_DUMP, genl version XQP_RES_GENL_VERSION):
 *   XQP_RES_CMD_DEV_GET  one message per device: DEV_INDEX, DEV_NAME,
 *                        PORTS. Optional filter: DEV_INDEX or DEV_NAME.
 *   XQP_RES_CMD_RES_GET  one message per object of TYPE (required), every
 *                        device or the one of DEV_INDEX / DEV_NAME;
 *                        optional filters FILTER_QPN (QPs), FILTER_PID.
 * Every reply carries DEV_INDEX and DEV_NAME.
 *
 * Who sees what: with CAP_NET_ADMIN, every object. Without it, only the
 * objects created through /dev/xqp/uverbsN by processes of the caller's
 * effective uid; for a shared QP, only the caller's own shares are
 * listed (HANDLE_COUNT still counts all), and keys (LKEY, RKEY) are not
 * reported. PIDs are thread-group ids in the initial pid namespace.
 *
 * An object is named by its resource id (ID: device-unique, never reused
 * while the device lives; rdma's pdn, cqn, ...); an XRC target QP, which
 * belongs to no process, by its QP number. No kernel pointer is reported.
 */
#ifndef XQP_UAPI_RES_H
#define XQP_UAPI_RES_H

#define XQP_RES_GENL_NAME	"xqp_res"
#define XQP_RES_GENL_VERSION	1

enum {
	XQP_RES_CMD_UNSPEC,
	XQP_RES_CMD_DEV_GET,
	XQP_RES_CMD_RES_GET,
	__XQP_RES_CMD_MAX,
};
#define XQP_RES_CMD_MAX (__XQP_RES_CMD_MAX - 1)

/* XQP_RES_A_TYPE */
enum xqp_res_obj_type {
	XQP_RES_OBJ_PD,
	XQP_RES_OBJ_CQ,
	XQP_RES_OBJ_XRCD,
	XQP_RES_OBJ_SRQ,
	XQP_RES_OBJ_QP,
	XQP_RES_OBJ_MR,
	XQP_RES_OBJ_MAX = XQP_RES_OBJ_MR,
};

/* XQP_RES_A_OWNER_KIND */
enum xqp_res_owner_kind {
	XQP_RES_OWNER_NONE,	/* nobody holds it now (a shared XRCD's creator left) */
	XQP_RES_OWNER_USER,	/* PID, COMM, UHANDLE */
	XQP_RES_OWNER_KERNEL,	/* KERN_NAME */
};

enum xqp_res_attr {
	XQP_RES_A_UNSPEC,
	XQP_RES_A_DEV_INDEX,	/* u32, from 1 */
	XQP_RES_A_DEV_NAME,	/* string */
	XQP_RES_A_PORTS,	/* u32 */
	XQP_RES_A_TYPE,		/* u32, enum xqp_res_obj_type */
	XQP_RES_A_FILTER_QPN,	/* u32 */
	XQP_RES_A_FILTER_PID,	/* u32 */
	XQP_RES_A_ID,		/* u32 resource id; absent for an XRC target QP */
	XQP_RES_A_USECNT,	/* u32: PD, CQ, SRQ, XRCD */
	XQP_RES_A_OWNER_KIND,	/* u8, enum xqp_res_owner_kind */
	XQP_RES_A_PID,		/* u32 */
	XQP_RES_A_COMM,		/* string */
	XQP_RES_A_UHANDLE,	/* u32: the object's handle in its process's uverbs file */
	XQP_RES_A_KERN_NAME,	/* string: the kernel module or handler */
	XQP_RES_A_QPN,		/* u32 */
	XQP_RES_A_QP_TYPE,	/* u8, enum ib_qp_type (2 RC, 3 UC, 4 UD, 9 XRC_INI, 10 XRC_TGT) */
	XQP_RES_A_PDN,		/* u32 resource ids of the objects it uses */
	XQP_RES_A_SCQN,
	XQP_RES_A_RCQN,
	XQP_RES_A_SRQN,
	XQP_RES_A_XRCDN,
	XQP_RES_A_XRCD_USECNT,	/* u32: an XRC target QP's XRCD */
	XQP_RES_A_DYING,	/* flag: its last share is being destroyed */
	XQP_RES_A_SHARE_COUNT,	/* u32: every share of a shared QP */
	XQP_RES_A_SHARES,	/* nest of XQP_RES_A_SHARE (at most 32) */
	XQP_RES_A_SHARE,	/* nest: OWNER_KIND, PID, COMM, UHANDLE, KERN_NAME */
	XQP_RES_A_CQE,		/* u32 */
	XQP_RES_A_SRQ_NUM,	/* u32 */
	XQP_RES_A_SRQ_TYPE,	/* u8: 0 basic, 1 XRC */
	XQP_RES_A_INODE,	/* u64: the file's inode an XRCD is shared through */
	XQP_RES_A_LKEY,		/* u32 (CAP_NET_ADMIN only) */
	XQP_RES_A_RKEY,		/* u32 (CAP_NET_ADMIN only) */
	XQP_RES_A_MR_LEN,	/* u64 */
	XQP_RES_A_PAD,		/* for 64-bit attributes */
	__XQP_RES_A_MAX,
};
#define XQP_RES_A_MAX (__XQP_RES_A_MAX - 1)

#endif /* XQP_UAPI_RES_H */
