// SPDX-License-Identifier: GPL-2.0
/*
 * GET_CONTEXT, QUERY_DEVICE, QUERY_PORT and ALLOC_PD/DEALLOC_PD, in the
 * order of checks of uverbs_cmd.c (CQs: cmd_cq.c).
 */
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/string.h>
#include <rdma/ib_user_ioctl_verbs.h>

#include "uverbs.h"

int xqp_cmd_get_context(struct xqp_cmd *cmd)
{
	struct xqp_ufile *file = cmd->ufile;
	struct ib_uverbs_get_context_resp resp;
	struct ib_uverbs_get_context req;
	struct xqp_uverbs_event_file *ev;
	struct file *filp;
	int fd, ret;

	ret = xqp_cmd_request(cmd, &req, sizeof(req));
	if (ret)
		return ret;

	ev = xqp_event_file_alloc();
	if (!ev)
		return -ENOMEM;
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		ret = fd;
		goto err_ev;
	}
	filp = xqp_event_file_open(ev);
	if (IS_ERR(filp)) {
		ret = PTR_ERR(filp);
		goto err_fd;
	}

	memset(&resp, 0, sizeof(resp));
	resp.async_fd = fd;
	resp.num_comp_vectors = XQP_UVERBS_NUM_COMP_VECTORS;
	ret = xqp_cmd_response(cmd, &resp, sizeof(resp));
	if (ret)
		goto err_file;

	mutex_lock(&file->ucontext_lock);
	if (smp_load_acquire(&file->has_context) || file->async_file) {
		/* One context per file, as ib_init_ucontext(). */
		mutex_unlock(&file->ucontext_lock);
		ret = -EINVAL;
		goto err_file;
	}
	file->async_file = ev;		/* takes over our reference */
	smp_store_release(&file->has_context, true);
	mutex_unlock(&file->ucontext_lock);

	fd_install(fd, filp);
	return 0;

err_file:
	fput(filp);	/* drops the file's reference on ev */
err_fd:
	put_unused_fd(fd);
err_ev:
	xqp_event_file_put(ev);
	return ret;
}

/* The two queries' start: a context first (Linux's), then the request. */
static int query_request(struct xqp_cmd *cmd, void *req, size_t req_len)
{
	int ret = xqp_cmd_need_context(cmd);

	return ret ? ret : xqp_cmd_request(cmd, req, req_len);
}

int xqp_cmd_query_device(struct xqp_cmd *cmd)
{
	struct ib_uverbs_query_device_resp resp;
	struct ib_uverbs_query_device req;
	struct xqp_device_attr attr;
	int ret;

	ret = query_request(cmd, &req, sizeof(req));
	if (ret)
		return ret;
	ret = xqp_query_device(cmd->xdev, &attr);
	if (ret)
		return ret;

	memset(&resp, 0, sizeof(resp));
	resp.node_guid = cpu_to_be64(attr.node_guid);
	resp.sys_image_guid = cpu_to_be64(attr.sys_image_guid);
	resp.max_mr_size = attr.max_mr_size;
	resp.page_size_cap = attr.page_size_cap;
	resp.vendor_id = attr.vendor_id;
	resp.vendor_part_id = attr.vendor_part_id;
	resp.hw_ver = attr.hw_ver;
	resp.max_qp = attr.max_qp;
	resp.max_qp_wr = attr.max_qp_wr;
	resp.device_cap_flags = lower_32_bits(attr.device_cap_flags);
	resp.max_sge = min(attr.max_send_sge, attr.max_recv_sge);
	resp.max_cq = attr.max_cq;
	resp.max_cqe = attr.max_cqe;
	resp.max_pd = attr.max_pd;
	resp.max_qp_rd_atom = attr.max_qp_rd_atom;
	resp.max_qp_init_rd_atom = attr.max_qp_init_rd_atom;
	resp.max_srq = attr.max_srq;
	resp.max_srq_wr = attr.max_srq_wr;
	resp.max_srq_sge = attr.max_srq_sge;
	resp.max_pkeys = attr.max_pkeys;
	resp.phys_port_cnt = attr.phys_port_cnt;
	resp.max_sge_rd = attr.max_sge_rd;
	resp.max_mr = attr.max_mr;
	resp.max_mw = attr.max_mw;
	resp.max_ah = attr.max_ah;
	resp.max_res_rd_atom = attr.max_res_rd_atom;
	resp.atomic_cap = attr.atomic_cap;
	resp.local_ca_ack_delay = attr.local_ca_ack_delay;
	resp.max_mcast_grp = attr.max_mcast_grp;
	resp.max_mcast_qp_attach = attr.max_mcast_qp_attach;
	resp.max_total_mcast_qp_attach = attr.max_total_mcast_qp_attach;
	/* no EE contexts or raw QPs: 0 */
	return xqp_cmd_response(cmd, &resp, sizeof(resp));
}

/* ib_uverbs_query_port(): the driver's attributes (copy_port_attr_to_resp()). */
int xqp_cmd_query_port(struct xqp_cmd *cmd)
{
	struct ib_uverbs_query_port_resp resp;
	struct ib_uverbs_query_port req;
	struct xqp_port_attr attr;
	int ret;

	ret = query_request(cmd, &req, sizeof(req));
	if (ret)
		return ret;
	/* reserved is not looked at, as Linux */
	/* -EINVAL outside 1..phys_port_cnt, as rdma_is_port_valid() */
	ret = xqp_query_port(cmd->xdev, req.port_num, &attr);
	if (ret)
		return ret;

	memset(&resp, 0, sizeof(resp));
	resp.state = attr.state;
	resp.max_mtu = attr.max_mtu;
	resp.active_mtu = attr.active_mtu;
	resp.gid_tbl_len = attr.gid_tbl_len;
	/* make_port_cap_flags(): bit 26 means IP-based GIDs, which xqp has not */
	resp.port_cap_flags = attr.port_cap_flags & ~(u32)IB_UVERBS_PCF_IP_BASED_GIDS;
	resp.max_msg_sz = attr.max_msg_sz;
	resp.bad_pkey_cntr = attr.bad_pkey_cntr;
	resp.qkey_viol_cntr = attr.qkey_viol_cntr;
	resp.pkey_tbl_len = attr.pkey_tbl_len;
	resp.lid = attr.lid;
	resp.sm_lid = attr.sm_lid;
	resp.lmc = attr.lmc;
	resp.max_vl_num = attr.max_vl_num;
	resp.sm_sl = attr.sm_sl;
	resp.subnet_timeout = attr.subnet_timeout;
	resp.init_type_reply = attr.init_type_reply;
	resp.active_width = attr.active_width;
	/* the ABI's byte holds speeds up to NDR, as Linux clamps */
	resp.active_speed = min_t(u16, attr.active_speed, XQP_SPEED_NDR);
	resp.phys_state = attr.phys_state;
	resp.link_layer = attr.link_layer;
	return xqp_cmd_response(cmd, &resp, sizeof(resp));
}

int xqp_cmd_alloc_pd(struct xqp_cmd *cmd)
{
	struct ib_uverbs_alloc_pd_resp resp;
	struct ib_uverbs_alloc_pd req;
	struct xqp_uobj *uobj;
	struct xqp_pd *pd;
	int ret;

	ret = xqp_cmd_request(cmd, &req, sizeof(req));
	if (ret)
		return ret;
	uobj = xqp_uobj_alloc(cmd, &xqp_uobj_pd);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	pd = xqp_alloc_pd(cmd->xdev);
	if (IS_ERR(pd)) {
		ret = PTR_ERR(pd);
		goto err;
	}
	uobj->object = pd;
	xqp_pd_set_res_owner(pd, uobj);

	memset(&resp, 0, sizeof(resp));
	resp.pd_handle = uobj->id;
	return xqp_cmd_respond_new(cmd, uobj, &resp, sizeof(resp));
err:
	xqp_uobj_abort(uobj);
	return ret;
}

static int upd_destroy_hw(struct xqp_uobj *uobj, enum xqp_remove_reason why)
{
	return xqp_dealloc_pd(uobj->object);
}

const struct xqp_uobj_class xqp_uobj_pd = {
	.type = XQP_UOBJ_PD,
	.size = sizeof(struct xqp_uobj),
	.destroy_hw = upd_destroy_hw,
};
