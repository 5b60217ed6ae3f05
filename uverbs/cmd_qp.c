// SPDX-License-Identifier: GPL-2.0
/*
 * QP commands: CREATE_QP (RC, UC, UD, XRC_INI, XRC_TGT), OPEN_QP,
 * QUERY_QP, MODIFY_QP, DESTROY_QP, in the order of checks of uverbs_cmd.c.
 *
 * An XRC_TGT QP is always held through a share (core/objects.h), named in
 * the file by a QP handle: CREATE_QP returns the creator's share, OPEN_QP a
 * new one, and DESTROY_QP on either closes that share; the real QP goes with
 * its last share, in whichever process.
 */
#include <linux/capability.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "uverbs.h"

/* Linux's values of the types xqp's devices do not have. */
#define XQP_IB_QPT_RAW_PACKET	8
#define XQP_IB_QPT_DRIVER	0xff

/* create_qp()'s type check: 0, -EINVAL, or -EPERM (raw packet, unprivileged). */
static int qp_type_check(u8 t)
{
	switch (t) {
	case XQP_IB_QPT_RAW_PACKET:
		return capable(CAP_NET_RAW) ? 0 : -EPERM;
	case XQP_QPT_RC:
	case XQP_QPT_UC:
	case XQP_QPT_UD:
	case XQP_QPT_XRC_INI:
	case XQP_QPT_XRC_TGT:
	case XQP_IB_QPT_DRIVER:
		return 0;
	}
	return -EINVAL;
}

/* Lookups a QP creation holds (READ) until it is done. */
struct qp_deps {
	struct xqp_uobj *xrcd, *pd, *scq, *rcq, *srq;
};

static void qp_deps_put(struct qp_deps *d)
{
	struct xqp_uobj *u[] = { d->xrcd, d->pd, d->scq, d->rcq, d->srq };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(u); i++)
		if (u[i])
			xqp_uobj_put(u[i], XQP_LOOKUP_READ);
}

static int qp_dep_get(struct xqp_ufile *ufile, enum xqp_uobj_type type, u32 id,
		      struct xqp_uobj **out)
{
	struct xqp_uobj *uobj = xqp_uobj_get(ufile, type, id, XQP_LOOKUP_READ);

	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	*out = uobj;
	return 0;
}

int xqp_cmd_create_qp(struct xqp_cmd *cmd)
{
	struct xqp_ufile *ufile = cmd->ufile;
	struct ib_uverbs_create_qp_resp resp;
	struct xqp_qp_init_attr attr = {};
	struct ib_uverbs_create_qp req;
	struct qp_deps d = {};
	struct xqp_uqp *uqp;
	struct xqp_uobj *uobj;
	struct xqp_qp *qp;
	int ret;

	ret = xqp_cmd_request(cmd, &req, sizeof(req));
	if (ret)
		return ret;
	ret = qp_type_check(req.qp_type);
	if (ret)
		return ret;
	/* reserved is not looked at, as Linux */
	uobj = xqp_uobj_alloc(cmd, &xqp_uobj_qp);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	uqp = container_of(uobj, struct xqp_uqp, uevent.uobj);
	xqp_uqp_mcast_init(uqp);
	uobj->user_handle = req.user_handle;

	if (req.qp_type == XQP_QPT_XRC_TGT) {
		/*
		 * The XRCD handle travels in pd_handle; like Linux, the CQ and
		 * SRQ fields are not looked at, the QP gets none.
		 */
		if (qp_dep_get(ufile, XQP_UOBJ_XRCD, req.pd_handle, &d.xrcd)) {
			ret = -EINVAL;
			goto err;
		}
		attr.xrcd = d.xrcd->object;
	} else {
		if (req.qp_type == XQP_QPT_XRC_INI) {
			req.max_recv_wr = 0;
			req.max_recv_sge = 0;
		} else {
			if (req.is_srq) {
				ret = qp_dep_get(ufile, XQP_UOBJ_SRQ, req.srq_handle, &d.srq);
				if (ret)
					goto err;
				attr.srq = d.srq->object;
				if (container_of(d.srq, struct xqp_usrq, uevent.uobj)->uxrcd) {
					ret = -EINVAL;	/* an XRC SRQ */
					goto err;
				}
			}
			if (req.recv_cq_handle != req.send_cq_handle) {
				ret = qp_dep_get(ufile, XQP_UOBJ_CQ, req.recv_cq_handle, &d.rcq);
				if (ret)
					goto err;
			}
		}
		ret = qp_dep_get(ufile, XQP_UOBJ_CQ, req.send_cq_handle, &d.scq);
		if (ret)
			goto err;
		attr.send_cq = d.scq->object;
		if (req.qp_type != XQP_QPT_XRC_INI)
			attr.recv_cq = d.rcq ? d.rcq->object : d.scq->object;
		ret = qp_dep_get(ufile, XQP_UOBJ_PD, req.pd_handle, &d.pd);
		if (ret)
			goto err;
	}

	/* Types Linux knows and leaves to the driver: xqp's devices have none. */
	if (req.qp_type == XQP_IB_QPT_RAW_PACKET || req.qp_type == XQP_IB_QPT_DRIVER) {
		ret = -EOPNOTSUPP;
		goto err;
	}

	xqp_uevent_init(&uqp->uevent, ufile);
	attr.event_handler = xqp_uverbs_event_handler;
	attr.event_flags = XQP_EVENT_INLINE;	/* it queues an event and wakes */
	attr.qp_context = &uqp->uevent;
	attr.sq_sig_type = req.sq_sig_all ? XQP_SIGNAL_ALL_WR : XQP_SIGNAL_REQ_WR;
	attr.qp_type = req.qp_type;
	attr.cap.max_send_wr = req.max_send_wr;
	attr.cap.max_recv_wr = req.max_recv_wr;
	attr.cap.max_send_sge = req.max_send_sge;
	attr.cap.max_recv_sge = req.max_recv_sge;
	attr.cap.max_inline_data = req.max_inline_data;

	qp = xqp_create_qp_user(cmd->xdev, d.pd ? d.pd->object : NULL, &attr, NULL,
				uobj, NULL);
	if (IS_ERR(qp)) {
		ret = PTR_ERR(qp);
		xqp_uevent_release(&uqp->uevent);
		goto err;
	}
	uobj->object = qp;
	uqp->max_inline_data = attr.cap.max_inline_data;	/* POST_SEND's bound */
	if (d.xrcd) {
		uqp->uxrcd = container_of(d.xrcd, struct xqp_uxrcd, uobj);
		atomic_inc(&uqp->uxrcd->refcnt);
	}
	qp_deps_put(&d);

	memset(&resp, 0, sizeof(resp));
	resp.qpn = xqp_qp_num(qp);
	resp.qp_handle = uobj->id;
	resp.max_recv_sge = attr.cap.max_recv_sge;
	resp.max_send_sge = attr.cap.max_send_sge;
	resp.max_recv_wr = attr.cap.max_recv_wr;
	resp.max_send_wr = attr.cap.max_send_wr;
	resp.max_inline_data = attr.cap.max_inline_data;
	return xqp_cmd_respond_new(cmd, uobj, &resp, sizeof(resp));

err:
	qp_deps_put(&d);
	xqp_uobj_abort(uobj);
	return ret;
}

int xqp_cmd_open_qp(struct xqp_cmd *cmd)
{
	struct ib_uverbs_create_qp_resp resp;
	struct xqp_qp_open_attr attr = {};
	struct ib_uverbs_open_qp req;
	struct xqp_uobj *xrcd_uobj;
	struct xqp_uobj *uobj;
	struct xqp_uqp *uqp;
	struct xqp_qp *qp;
	int ret;

	ret = xqp_cmd_request(cmd, &req, sizeof(req));
	if (ret)
		return ret;
	/* reserved is not looked at, as Linux (libibverbs leaves it as the
	 * provider's buffer had it) */
	uobj = xqp_uobj_alloc(cmd, &xqp_uobj_qp);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	uqp = container_of(uobj, struct xqp_uqp, uevent.uobj);
	xqp_uqp_mcast_init(uqp);

	xrcd_uobj = xqp_uobj_get(cmd->ufile, XQP_UOBJ_XRCD, req.pd_handle,
				 XQP_LOOKUP_READ);
	if (IS_ERR(xrcd_uobj)) {
		ret = -EINVAL;
		goto err;
	}

	uobj->user_handle = req.user_handle;
	xqp_uevent_init(&uqp->uevent, cmd->ufile);
	attr.event_handler = xqp_uverbs_event_handler;
	attr.event_flags = XQP_EVENT_INLINE;	/* it queues an event and wakes */
	attr.qp_context = &uqp->uevent;
	attr.qp_num = req.qpn;
	attr.qp_type = req.qp_type;	/* any value: the core checks it (ib_open_qp) */
	qp = xqp_open_qp(xrcd_uobj->object, &attr);
	if (IS_ERR(qp)) {
		ret = PTR_ERR(qp);
		xqp_uevent_release(&uqp->uevent);
		xqp_uobj_put(xrcd_uobj, XQP_LOOKUP_READ);
		goto err;
	}
	uobj->object = qp;
	uqp->uxrcd = container_of(xrcd_uobj, struct xqp_uxrcd, uobj);
	atomic_inc(&uqp->uxrcd->refcnt);
	xqp_uobj_put(xrcd_uobj, XQP_LOOKUP_READ);

	memset(&resp, 0, sizeof(resp));
	resp.qpn = xqp_qp_num(qp);
	resp.qp_handle = uobj->id;
	return xqp_cmd_respond_new(cmd, uobj, &resp, sizeof(resp));

err:
	xqp_uobj_abort(uobj);
	return ret;
}

static void ah_to_user(struct ib_uverbs_qp_dest *u, const struct xqp_ah_attr *a)
{
	u->dlid = a->dlid;
	u->sl = a->sl;
	u->src_path_bits = a->src_path_bits;
	u->static_rate = a->static_rate;
	u->is_global = a->is_global;
	if (a->is_global) {
		memcpy(u->dgid, a->dgid, sizeof(u->dgid));
		u->flow_label = a->flow_label;
		u->sgid_index = a->sgid_index;
		u->hop_limit = a->hop_limit;
		u->traffic_class = a->traffic_class;
	}
	u->port_num = a->port_num;
}

int xqp_cmd_query_qp(struct xqp_cmd *cmd)
{
	struct ib_uverbs_query_qp_resp resp;
	struct xqp_qp_init_attr init;
	struct ib_uverbs_query_qp req;
	struct xqp_qp_attr *attr;
	struct xqp_uobj *uobj;
	int ret;

	ret = xqp_cmd_request(cmd, &req, sizeof(req));
	if (ret)
		return ret;
	attr = kzalloc(sizeof(*attr), GFP_KERNEL_ACCOUNT);
	if (!attr)
		return -ENOMEM;
	uobj = xqp_uobj_get(cmd->ufile, XQP_UOBJ_QP, req.qp_handle, XQP_LOOKUP_READ);
	if (IS_ERR(uobj)) {
		ret = PTR_ERR(uobj);
		goto out;
	}
	ret = xqp_query_qp(uobj->object, attr, (int)req.attr_mask, &init);
	if (ret) {
		xqp_uobj_put(uobj, XQP_LOOKUP_READ);
		goto out;
	}

	memset(&resp, 0, sizeof(resp));
	resp.qp_state = attr->qp_state;
	resp.cur_qp_state = attr->cur_qp_state;
	resp.path_mtu = attr->path_mtu;
	resp.path_mig_state = attr->path_mig_state;
	resp.qkey = attr->qkey;
	resp.rq_psn = attr->rq_psn;
	resp.sq_psn = attr->sq_psn;
	resp.dest_qp_num = attr->dest_qp_num;
	resp.qp_access_flags = attr->qp_access_flags;
	resp.pkey_index = attr->pkey_index;
	resp.alt_pkey_index = attr->alt_pkey_index;
	resp.sq_draining = attr->sq_draining;
	resp.max_rd_atomic = attr->max_rd_atomic;
	resp.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	resp.min_rnr_timer = attr->min_rnr_timer;
	resp.port_num = attr->port_num;
	resp.timeout = attr->timeout;
	resp.retry_cnt = attr->retry_cnt;
	resp.rnr_retry = attr->rnr_retry;
	resp.alt_port_num = attr->alt_port_num;
	resp.alt_timeout = attr->alt_timeout;
	ah_to_user(&resp.dest, &attr->ah_attr);
	ah_to_user(&resp.alt_dest, &attr->alt_ah_attr);
	resp.max_send_wr = init.cap.max_send_wr;
	resp.max_recv_wr = init.cap.max_recv_wr;
	resp.max_send_sge = init.cap.max_send_sge;
	resp.max_recv_sge = init.cap.max_recv_sge;
	resp.max_inline_data = init.cap.max_inline_data;
	resp.sq_sig_all = init.sq_sig_type == XQP_SIGNAL_ALL_WR;	/* the real QP's */
	xqp_uobj_put(uobj, XQP_LOOKUP_READ);
	ret = xqp_cmd_response(cmd, &resp, sizeof(resp));
out:
	kfree(attr);
	return ret;
}

/* Linux's modify_qp_mask(): attributes a type ignores are dropped. */
static int modify_qp_mask(enum xqp_qp_type type, int mask)
{
	switch (type) {
	case XQP_QPT_XRC_INI:
		return mask & ~(XQP_QP_MAX_DEST_RD_ATOMIC | XQP_QP_MIN_RNR_TIMER);
	case XQP_QPT_XRC_TGT:
		return mask & ~(XQP_QP_MAX_QP_RD_ATOMIC | XQP_QP_RETRY_CNT |
				XQP_QP_RNR_RETRY);
	default:
		return mask;
	}
}

static void ah_from_user(struct xqp_ah_attr *a, const struct ib_uverbs_qp_dest *u)
{
	memset(a, 0, sizeof(*a));
	if (u->is_global) {
		a->is_global = 1;
		memcpy(a->dgid, u->dgid, sizeof(a->dgid));
		a->flow_label = u->flow_label;
		a->sgid_index = u->sgid_index;
		a->hop_limit = u->hop_limit;
		a->traffic_class = u->traffic_class;
	}
	a->dlid = u->dlid;
	a->sl = u->sl;
	a->src_path_bits = u->src_path_bits;
	a->static_rate = u->static_rate;
	a->port_num = u->port_num;
}

static bool port_ok(u32 port, u8 nports)
{
	return port >= 1 && port <= nports;	/* rdma_is_port_valid() */
}

int xqp_cmd_modify_qp(struct xqp_cmd *cmd)
{
	struct ib_uverbs_modify_qp req;
	struct xqp_device_attr dattr;
	struct xqp_qp_attr *attr, *cur;
	struct xqp_uobj *uobj;
	int mask, ret;

	ret = xqp_cmd_request(cmd, &req, sizeof(req));
	if (ret)
		return ret;
	if (req.attr_mask & ~XQP_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	/* reserved is not looked at, as Linux */

	attr = kzalloc(2 * sizeof(*attr), GFP_KERNEL_ACCOUNT);
	if (!attr)
		return -ENOMEM;
	cur = attr + 1;
	uobj = xqp_uobj_get(cmd->ufile, XQP_UOBJ_QP, req.qp_handle, XQP_LOOKUP_READ);
	if (IS_ERR(uobj)) {
		ret = PTR_ERR(uobj);
		goto out;
	}
	ret = xqp_query_device(cmd->xdev, &dattr);
	if (ret)
		goto release;
	mask = req.attr_mask;

	ret = -EINVAL;
	if ((mask & XQP_QP_PORT) && !port_ok(req.port_num, dattr.phys_port_cnt))
		goto release;
	if (mask & XQP_QP_AV) {
		if (!port_ok(req.dest.port_num, dattr.phys_port_cnt))
			goto release;
		if ((mask & XQP_QP_STATE) && req.qp_state == XQP_QPS_RTR) {
			/* INIT->RTR: the AV's port must be the QP's port. */
			ret = xqp_query_qp(uobj->object, cur, XQP_QP_PORT, NULL);
			if (ret)
				goto release;
			ret = -EINVAL;
			if (req.dest.port_num != cur->port_num)
				goto release;
		} else {
			/* SQD->SQD: a new primary AV moves the primary port. */
			if ((mask & (XQP_QP_AV | XQP_QP_PORT)) == (XQP_QP_AV | XQP_QP_PORT) &&
			    req.port_num != req.dest.port_num)
				goto release;
			if ((mask & (XQP_QP_AV | XQP_QP_PORT)) == XQP_QP_AV) {
				mask |= XQP_QP_PORT;
				req.port_num = req.dest.port_num;
			}
		}
	}
	if ((mask & XQP_QP_ALT_PATH) &&
	    (!port_ok(req.alt_port_num, dattr.phys_port_cnt) ||
	     !port_ok(req.alt_dest.port_num, dattr.phys_port_cnt) ||
	     req.alt_port_num != req.alt_dest.port_num))
		goto release;
	if (((mask & XQP_QP_CUR_STATE) && req.cur_qp_state > XQP_QPS_ERR) ||
	    ((mask & XQP_QP_STATE) && req.qp_state > XQP_QPS_ERR))
		goto release;

	if (mask & XQP_QP_STATE)
		attr->qp_state = req.qp_state;
	if (mask & XQP_QP_CUR_STATE)
		attr->cur_qp_state = req.cur_qp_state;
	if (mask & XQP_QP_PATH_MTU)
		attr->path_mtu = req.path_mtu;
	if (mask & XQP_QP_PATH_MIG_STATE)
		attr->path_mig_state = req.path_mig_state;
	if (mask & XQP_QP_QKEY) {
		/*
		 * rdma_nl_get_privileged_qkey(): CAP_NET_RAW (Linux's netlink
		 * switch to allow everyone has no counterpart here).
		 */
		if ((req.qkey & XQP_IB_QP_SET_QKEY) && !capable(CAP_NET_RAW)) {
			ret = -EPERM;
			goto release;
		}
		attr->qkey = req.qkey;
	}
	if (mask & XQP_QP_RQ_PSN)
		attr->rq_psn = req.rq_psn & 0xffffff;
	if (mask & XQP_QP_SQ_PSN)
		attr->sq_psn = req.sq_psn & 0xffffff;
	if (mask & XQP_QP_DEST_QPN)
		attr->dest_qp_num = req.dest_qp_num;
	if (mask & XQP_QP_ACCESS_FLAGS)
		attr->qp_access_flags = req.qp_access_flags;
	if (mask & XQP_QP_PKEY_INDEX)
		attr->pkey_index = req.pkey_index;
	if (mask & XQP_QP_EN_SQD_ASYNC_NOTIFY)
		attr->en_sqd_async_notify = req.en_sqd_async_notify;
	if (mask & XQP_QP_MAX_QP_RD_ATOMIC)
		attr->max_rd_atomic = req.max_rd_atomic;
	if (mask & XQP_QP_MAX_DEST_RD_ATOMIC)
		attr->max_dest_rd_atomic = req.max_dest_rd_atomic;
	if (mask & XQP_QP_MIN_RNR_TIMER)
		attr->min_rnr_timer = req.min_rnr_timer;
	if (mask & XQP_QP_PORT)
		attr->port_num = req.port_num;
	if (mask & XQP_QP_TIMEOUT)
		attr->timeout = req.timeout;
	if (mask & XQP_QP_RETRY_CNT)
		attr->retry_cnt = req.retry_cnt;
	if (mask & XQP_QP_RNR_RETRY)
		attr->rnr_retry = req.rnr_retry;
	if (mask & XQP_QP_ALT_PATH) {
		attr->alt_port_num = req.alt_port_num;
		attr->alt_timeout = req.alt_timeout;
		attr->alt_pkey_index = req.alt_pkey_index;
		ah_from_user(&attr->alt_ah_attr, &req.alt_dest);
	}
	if (mask & XQP_QP_AV)
		ah_from_user(&attr->ah_attr, &req.dest);

	ret = xqp_modify_qp(uobj->object, attr,
			    modify_qp_mask(xqp_qp_get_type(uobj->object), mask));
release:
	xqp_uobj_put(uobj, XQP_LOOKUP_READ);
out:
	kfree(attr);
	return ret;
}

static int uqp_destroy_hw(struct xqp_uobj *uobj, enum xqp_remove_reason why)
{
	struct xqp_uqp *uqp = container_of(uobj, struct xqp_uqp, uevent.uobj);
	int ret = xqp_uqp_mcast_release(uqp, why);

	if (ret)
		return ret;
	ret = xqp_destroy_qp(uobj->object);
	if (!ret)
		xqp_uevent_destroyed(&uqp->uevent, uqp->uxrcd);
	return ret;
}

const struct xqp_uobj_class xqp_uobj_qp = {
	.type = XQP_UOBJ_QP,
	.size = sizeof(struct xqp_uqp),
	.destroy_hw = uqp_destroy_hw,
	.destroy_resp = xqp_uevent_destroy_resp,
};
