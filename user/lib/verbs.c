// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * libxqpverbs: the verbs over the uverbs write ABI. Each call builds one
 * struct ib_uverbs_cmd_hdr + command struct, writes it to the context's
 * char device and reads the response the kernel wrote through the
 * command's `response` pointer. user_handle is the object's address, as
 * libibverbs does, so async events name the process's own object.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "priv.h"
#include "wire.h"

/* ---- command transport -------------------------------------------------- */

int xqpi_write_cmd(struct xqpv_context *ctx, uint32_t command, void *buf,
		   size_t total, size_t resp_len)
{
	int err = xqp_wire_write(ctx->cmd_fd, command, buf, total, resp_len);

	return err ? fail(err) : 0;
}

int xqpi_exec_cmd(struct xqpv_context *ctx, uint32_t command, const void *cmd,
		  size_t cmd_len, size_t resp_len)
{
	unsigned char buf[sizeof(struct ib_uverbs_cmd_hdr) + 512];

	if (cmd_len > 512 || (cmd_len % 4))
		return fail(EINVAL);
	memcpy(buf + sizeof(struct ib_uverbs_cmd_hdr), cmd, cmd_len);
	return xqpi_write_cmd(ctx, command, buf, sizeof(struct ib_uverbs_cmd_hdr) + cmd_len,
			      resp_len);
}

/* ---- devices ------------------------------------------------------------- */

static int read_sysfs(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, len - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

static int add_class(struct xqpv_device ***list, int *n, const char *class_dir,
		     const char *dev_dir, int is_xqp)
{
	DIR *d = opendir(class_dir);
	struct dirent *de;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		char path[512];
		struct xqpv_device *dev, **grown;

		if (strncmp(de->d_name, "uverbs", 6))
			continue;
		dev = calloc(1, sizeof(*dev));
		if (!dev)
			goto nomem;
		snprintf(dev->dev_name, sizeof(dev->dev_name), "%s", de->d_name);
		snprintf(dev->dev_path, sizeof(dev->dev_path), "%s/%s", dev_dir, de->d_name);
		snprintf(path, sizeof(path), "%s/%s/ibdev", class_dir, de->d_name);
		if (read_sysfs(path, dev->name, sizeof(dev->name)))
			snprintf(dev->name, sizeof(dev->name), "%s", de->d_name);
		dev->is_xqp = is_xqp;
		grown = realloc(*list, sizeof(**list) * (size_t)(*n + 2));
		if (!grown) {
			free(dev);
			goto nomem;
		}
		*list = grown;
		(*list)[(*n)++] = dev;
		(*list)[*n] = NULL;
	}
	closedir(d);
	return 0;
nomem:
	closedir(d);
	return ENOMEM;
}

struct xqpv_device **xqpv_get_device_list(int *num_devices)
{
	struct xqpv_device **list = calloc(1, sizeof(*list));
	int n = 0;

	if (!list)
		return fail_ptr(ENOMEM);
	if (add_class(&list, &n, "/sys/class/" XQP_UVERBS_CLASS, XQP_UVERBS_DEV_DIR, 1) ||
	    add_class(&list, &n, "/sys/class/infiniband_verbs", "/dev/infiniband", 0)) {
		xqpv_free_device_list(list);
		return fail_ptr(ENOMEM);
	}
	if (num_devices)
		*num_devices = n;
	return list;
}

void xqpv_free_device_list(struct xqpv_device **list)
{
	struct xqpv_device **p;

	if (!list)
		return;
	for (p = list; *p; p++)
		free(*p);
	free(list);
}

const char *xqpv_get_device_name(struct xqpv_device *device)
{
	return device->name;
}

/* ---- context -------------------------------------------------------------- */

static struct xqpv_context *open_path(const char *path, struct xqpv_device *device)
{
	struct ib_uverbs_get_context_resp resp;
	struct ib_uverbs_get_context cmd;
	struct xqpv_context *ctx;
	int err;

	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return fail_ptr(ENOMEM);
	if (device) {
		ctx->device = device;
	} else {
		const char *slash = strrchr(path, '/');

		snprintf(ctx->owned_device.dev_path, sizeof(ctx->owned_device.dev_path),
			 "%s", path);
		snprintf(ctx->owned_device.dev_name, sizeof(ctx->owned_device.dev_name),
			 "%s", slash ? slash + 1 : path);
		snprintf(ctx->owned_device.name, sizeof(ctx->owned_device.name), "%s",
			 ctx->owned_device.dev_name);
		ctx->owned_device.is_xqp = !strncmp(path, XQP_UVERBS_DEV_DIR "/",
						    strlen(XQP_UVERBS_DEV_DIR) + 1);
		ctx->device = &ctx->owned_device;
	}
	ctx->async_fd = -1;
	ctx->cmd_fd = open(path, O_RDWR | O_CLOEXEC);
	if (ctx->cmd_fd < 0) {
		err = errno;
		free(ctx);
		return fail_ptr(err);
	}
	memset(&cmd, 0, sizeof(cmd));
	err = exec_resp(ctx, IB_USER_VERBS_CMD_GET_CONTEXT, &cmd, &resp);
	if (err) {
		close(ctx->cmd_fd);
		free(ctx);
		return fail_ptr(err);
	}
	ctx->async_fd = (int)resp.async_fd;
	ctx->num_comp_vectors = (int)resp.num_comp_vectors;
	return ctx;
}

struct xqpv_context *xqpv_open_device(struct xqpv_device *device)
{
	return open_path(device->dev_path, device);
}

struct xqpv_context *xqpv_open_device_path(const char *path)
{
	return open_path(path, NULL);
}

int xqpv_close_device(struct xqpv_context *context)
{
	if (context->async_fd >= 0)
		close(context->async_fd);
	close(context->cmd_fd);
	free(context);
	return 0;
}

int xqpv_query_device(struct xqpv_context *ctx, struct xqpv_device_attr *attr)
{
	struct ib_uverbs_query_device_resp resp;
	struct ib_uverbs_query_device cmd;
	int err;

	memset(&cmd, 0, sizeof(cmd));
	err = exec_resp(ctx, IB_USER_VERBS_CMD_QUERY_DEVICE, &cmd, &resp);
	if (err)
		return err;
	memset(attr, 0, sizeof(*attr));
	attr->node_guid = __builtin_bswap64(resp.node_guid);
	attr->sys_image_guid = __builtin_bswap64(resp.sys_image_guid);
	attr->max_mr_size = resp.max_mr_size;
	attr->page_size_cap = resp.page_size_cap;
	attr->vendor_id = resp.vendor_id;
	attr->vendor_part_id = resp.vendor_part_id;
	attr->hw_ver = resp.hw_ver;
	attr->max_qp = (int)resp.max_qp;
	attr->max_qp_wr = (int)resp.max_qp_wr;
	attr->device_cap_flags = resp.device_cap_flags;
	attr->max_sge = (int)resp.max_sge;
	attr->max_cq = (int)resp.max_cq;
	attr->max_cqe = (int)resp.max_cqe;
	attr->max_pd = (int)resp.max_pd;
	attr->max_qp_rd_atom = (int)resp.max_qp_rd_atom;
	attr->max_qp_init_rd_atom = (int)resp.max_qp_init_rd_atom;
	attr->max_srq = (int)resp.max_srq;
	attr->max_srq_wr = (int)resp.max_srq_wr;
	attr->max_srq_sge = (int)resp.max_srq_sge;
	attr->max_pkeys = resp.max_pkeys;
	attr->phys_port_cnt = resp.phys_port_cnt;
	return 0;
}

int xqpv_query_port(struct xqpv_context *ctx, uint8_t port_num, struct xqpv_port_attr *attr)
{
	struct ib_uverbs_query_port_resp resp;
	struct ib_uverbs_query_port cmd;
	int err;

	memset(&cmd, 0, sizeof(cmd));
	cmd.port_num = port_num;
	err = exec_resp(ctx, IB_USER_VERBS_CMD_QUERY_PORT, &cmd, &resp);
	if (err)
		return err;
	memset(attr, 0, sizeof(*attr));
	attr->state = resp.state;
	attr->max_mtu = resp.max_mtu;
	attr->active_mtu = resp.active_mtu;
	attr->gid_tbl_len = (int)resp.gid_tbl_len;
	attr->port_cap_flags = resp.port_cap_flags;
	attr->max_msg_sz = resp.max_msg_sz;
	attr->pkey_tbl_len = resp.pkey_tbl_len;
	attr->lid = resp.lid;
	attr->link_layer = resp.link_layer;
	attr->phys_state = resp.phys_state;
	attr->bad_pkey_cntr = resp.bad_pkey_cntr;
	attr->qkey_viol_cntr = resp.qkey_viol_cntr;
	attr->sm_lid = resp.sm_lid;
	attr->lmc = resp.lmc;
	attr->max_vl_num = resp.max_vl_num;
	attr->sm_sl = resp.sm_sl;
	attr->subnet_timeout = resp.subnet_timeout;
	attr->init_type_reply = resp.init_type_reply;
	attr->active_width = resp.active_width;
	attr->active_speed = resp.active_speed;
	attr->flags = resp.flags;
	return 0;
}

/* ---- destroying; the async-event bookkeeping of CQs, QPs and SRQs --------- */

_Static_assert(sizeof(struct ib_uverbs_close_xrcd) == sizeof(struct ib_uverbs_dealloc_pd) &&
	       offsetof(struct ib_uverbs_close_xrcd, xrcd_handle) ==
	       offsetof(struct ib_uverbs_dealloc_pd, pd_handle),
	       "DEALLOC_PD and CLOSE_XRCD share one layout");
_Static_assert(sizeof(struct ib_uverbs_dereg_mr) == sizeof(struct ib_uverbs_dealloc_pd) &&
	       sizeof(struct ib_uverbs_destroy_ah) == sizeof(struct ib_uverbs_dealloc_pd),
	       "DEREG_MR and DESTROY_AH: one handle, as DEALLOC_PD");

/* No response, no events. */
int xqpi_destroy_plain(struct xqpv_context *ctx, uint32_t command, uint32_t handle, void *obj)
{
	struct ib_uverbs_dealloc_pd cmd;	/* CLOSE_XRCD's: the same */
	int err;

	memset(&cmd, 0, sizeof(cmd));
	cmd.pd_handle = handle;
	err = destroy_err(xqpi_exec_cmd(ctx, command, &cmd, sizeof(cmd), 0));
	if (err)
		return fail(err);
	free(obj);
	return 0;
}

static struct event_acks qp_acks(struct xqpv_qp *qp)
{
	return (struct event_acks){ &qp->mutex, &qp->cond, &qp->events_completed };
}

static struct event_acks srq_acks(struct xqpv_srq *srq)
{
	return (struct event_acks){ &srq->mutex, &srq->cond, &srq->events_completed };
}

/*
 * The three destroy commands are {response, handle, reserved}. Their
 * responses differ: DESTROY_CQ's has the completion events' count first
 * and the async events' second; DESTROY_QP's and DESTROY_SRQ's have the
 * async events' count alone.
 */
_Static_assert(sizeof(struct ib_uverbs_destroy_cq) == sizeof(struct ib_uverbs_destroy_qp) &&
	       sizeof(struct ib_uverbs_destroy_srq) == sizeof(struct ib_uverbs_destroy_qp) &&
	       offsetof(struct ib_uverbs_destroy_cq, cq_handle) ==
	       offsetof(struct ib_uverbs_destroy_qp, qp_handle) &&
	       offsetof(struct ib_uverbs_destroy_srq, srq_handle) ==
	       offsetof(struct ib_uverbs_destroy_qp, qp_handle),
	       "DESTROY_CQ, DESTROY_QP and DESTROY_SRQ share one layout");
_Static_assert(sizeof(struct ib_uverbs_destroy_srq_resp) ==
	       sizeof(struct ib_uverbs_destroy_qp_resp) &&
	       offsetof(struct ib_uverbs_destroy_srq_resp, events_reported) ==
	       offsetof(struct ib_uverbs_destroy_qp_resp, events_reported),
	       "DESTROY_SRQ and DESTROY_QP answer alike");

/*
 * As libibverbs does, waits until the user acknowledged every event the
 * kernel says it reported for the object. EIO: the device is gone and the
 * object with it (destroy_err()); no count comes back, so what was
 * acknowledged so far counts as all.
 */
int xqpi_destroy_acked(struct xqpv_context *ctx, uint32_t command, uint32_t handle,
		       struct event_acks acks, uint32_t *comp_completed)
{
	struct ib_uverbs_destroy_qp cmd;	/* the CQ's and SRQ's: the same */
	union {
		struct ib_uverbs_destroy_cq_resp cq;
		struct ib_uverbs_destroy_qp_resp qp;	/* the SRQ's: the same */
	} resp;
	int is_cq = command == IB_USER_VERBS_CMD_DESTROY_CQ;
	uint32_t reported, comp_reported = 0;
	int err;

	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	cmd.response = RESP(&resp);
	cmd.qp_handle = handle;
	err = xqpi_exec_cmd(ctx, command, &cmd, sizeof(cmd),
			    is_cq ? sizeof(resp.cq) : sizeof(resp.qp));
	pthread_mutex_lock(acks.mutex);
	if (err == EIO) {
		reported = *acks.completed;
		comp_reported = comp_completed ? *comp_completed : 0;
	} else if (err) {
		pthread_mutex_unlock(acks.mutex);
		return err;
	} else {
		reported = is_cq ? resp.cq.async_events_reported : resp.qp.events_reported;
		comp_reported = is_cq ? resp.cq.comp_events_reported : 0;
	}
	while (*acks.completed != reported ||
	       (comp_completed && *comp_completed != comp_reported))
		pthread_cond_wait(acks.cond, acks.mutex);
	pthread_mutex_unlock(acks.mutex);
	pthread_cond_destroy(acks.cond);
	pthread_mutex_destroy(acks.mutex);
	return 0;
}

/* ---- PD ------------------------------------------------------------------ */

struct xqpv_pd *xqpv_alloc_pd(struct xqpv_context *ctx)
{
	struct ib_uverbs_alloc_pd_resp resp;
	struct ib_uverbs_alloc_pd cmd;
	struct xqpv_pd *pd;

	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return fail_ptr(ENOMEM);
	memset(&cmd, 0, sizeof(cmd));
	if (free_on_err(pd, exec_resp(ctx, IB_USER_VERBS_CMD_ALLOC_PD, &cmd, &resp)))
		return NULL;
	pd->context = ctx;
	pd->handle = resp.pd_handle;
	return pd;
}

int xqpv_dealloc_pd(struct xqpv_pd *pd)
{
	return xqpi_destroy_plain(pd->context, IB_USER_VERBS_CMD_DEALLOC_PD, pd->handle, pd);
}

/* ---- XRCD --------------------------------------------------------------------- */

struct xqpv_xrcd *xqpv_open_xrcd(struct xqpv_context *ctx, struct xqpv_xrcd_init_attr *attr)
{
	struct ib_uverbs_open_xrcd_resp resp;
	struct ib_uverbs_open_xrcd cmd;
	struct xqpv_xrcd *xrcd;

	if (attr->comp_mask >= XQPV_XRCD_INIT_ATTR_RESERVED)
		return fail_ptr(EOPNOTSUPP);
	if (!(attr->comp_mask & XQPV_XRCD_INIT_ATTR_FD) ||
	    !(attr->comp_mask & XQPV_XRCD_INIT_ATTR_OFLAGS))
		return fail_ptr(EINVAL);
	xrcd = calloc(1, sizeof(*xrcd));
	if (!xrcd)
		return fail_ptr(ENOMEM);
	memset(&cmd, 0, sizeof(cmd));
	cmd.fd = (uint32_t)attr->fd;
	cmd.oflags = (uint32_t)attr->oflags;
	if (free_on_err(xrcd, exec_resp(ctx, IB_USER_VERBS_CMD_OPEN_XRCD, &cmd, &resp)))
		return NULL;
	xrcd->context = ctx;
	xrcd->handle = resp.xrcd_handle;
	return xrcd;
}

int xqpv_close_xrcd(struct xqpv_xrcd *xrcd)
{
	return xqpi_destroy_plain(xrcd->context, IB_USER_VERBS_CMD_CLOSE_XRCD, xrcd->handle, xrcd);
}

/* ---- SRQ ------------------------------------------------------------------------ */

struct xqpv_srq *xqpv_create_srq_ex(struct xqpv_context *ctx, struct xqpv_srq_init_attr_ex *a)
{
	struct ib_uverbs_create_srq_resp resp;
	struct ib_uverbs_create_xsrq cmd;
	enum xqpv_srq_type type = XQPV_SRQT_BASIC;
	struct xqpv_srq *srq;

	if (a->comp_mask >= XQPV_SRQ_INIT_ATTR_RESERVED)
		return fail_ptr(EOPNOTSUPP);
	if (a->comp_mask & XQPV_SRQ_INIT_ATTR_TYPE)
		type = a->srq_type;
	if (!(a->comp_mask & XQPV_SRQ_INIT_ATTR_PD) || !a->pd)
		return fail_ptr(EINVAL);
	if (type == XQPV_SRQT_XRC &&
	    (!(a->comp_mask & XQPV_SRQ_INIT_ATTR_XRCD) || !a->xrcd ||
	     !(a->comp_mask & XQPV_SRQ_INIT_ATTR_CQ) || !a->cq))
		return fail_ptr(EINVAL);
	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return fail_ptr(ENOMEM);
	memset(&cmd, 0, sizeof(cmd));
	cmd.user_handle = RESP(srq);
	cmd.srq_type = type;
	cmd.pd_handle = a->pd->handle;
	cmd.max_wr = a->attr.max_wr;
	cmd.max_sge = a->attr.max_sge;
	cmd.srq_limit = a->attr.srq_limit;
	if (type == XQPV_SRQT_XRC) {
		cmd.xrcd_handle = a->xrcd->handle;
		cmd.cq_handle = a->cq->handle;
	}
	if (free_on_err(srq, exec_resp(ctx, IB_USER_VERBS_CMD_CREATE_XSRQ, &cmd, &resp)))
		return NULL;
	srq->context = ctx;
	srq->srq_context = a->srq_context;
	srq->pd = a->pd;
	srq->handle = resp.srq_handle;
	srq->srq_num = resp.srqn;
	a->attr.max_wr = resp.max_wr;
	a->attr.max_sge = resp.max_sge;
	acks_init(srq_acks(srq));
	return srq;
}

int xqpv_get_srq_num(struct xqpv_srq *srq, uint32_t *srq_num)
{
	*srq_num = srq->srq_num;
	return 0;
}

int xqpv_destroy_srq(struct xqpv_srq *srq)
{
	int err = xqpi_destroy_acked(srq->context, IB_USER_VERBS_CMD_DESTROY_SRQ, srq->handle,
				     srq_acks(srq), NULL);

	if (err)
		return err;
	free(srq);
	return 0;
}

/* ---- QP ---------------------------------------------------------------------------- */

struct xqpv_qp *xqpv_create_qp_ex(struct xqpv_context *ctx, struct xqpv_qp_init_attr_ex *a)
{
	struct ib_uverbs_create_qp_resp resp;
	struct ib_uverbs_create_qp cmd;
	struct xqpv_qp *qp;

	if (a->comp_mask >= XQPV_QP_INIT_ATTR_RESERVED)
		return fail_ptr(EOPNOTSUPP);
	if (a->qp_type == XQPV_QPT_XRC_RECV) {
		if (!(a->comp_mask & XQPV_QP_INIT_ATTR_XRCD) || !a->xrcd)
			return fail_ptr(EINVAL);
	} else if (!(a->comp_mask & XQPV_QP_INIT_ATTR_PD) || !a->pd || !a->send_cq) {
		return fail_ptr(EINVAL);
	}
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return fail_ptr(ENOMEM);
	memset(&cmd, 0, sizeof(cmd));
	cmd.user_handle = RESP(qp);
	if (a->qp_type == XQPV_QPT_XRC_RECV) {
		cmd.pd_handle = a->xrcd->handle;
	} else {
		cmd.pd_handle = a->pd->handle;
		cmd.send_cq_handle = a->send_cq->handle;
		cmd.recv_cq_handle = a->recv_cq ? a->recv_cq->handle : a->send_cq->handle;
		if (a->srq) {
			cmd.srq_handle = a->srq->handle;
			cmd.is_srq = 1;
		}
	}
	cmd.max_send_wr = a->cap.max_send_wr;
	cmd.max_recv_wr = a->cap.max_recv_wr;
	cmd.max_send_sge = a->cap.max_send_sge;
	cmd.max_recv_sge = a->cap.max_recv_sge;
	cmd.max_inline_data = a->cap.max_inline_data;
	cmd.sq_sig_all = !!a->sq_sig_all;
	cmd.qp_type = (uint8_t)a->qp_type;
	if (free_on_err(qp, exec_resp(ctx, IB_USER_VERBS_CMD_CREATE_QP, &cmd, &resp)))
		return NULL;
	qp->context = ctx;
	qp->qp_context = a->qp_context;
	qp->pd = a->qp_type == XQPV_QPT_XRC_RECV ? NULL : a->pd;
	qp->send_cq = a->qp_type == XQPV_QPT_XRC_RECV ? NULL : a->send_cq;
	qp->recv_cq = a->qp_type == XQPV_QPT_XRC_RECV ? NULL :
		      (a->recv_cq ? a->recv_cq : a->send_cq);
	qp->srq = a->qp_type == XQPV_QPT_XRC_RECV ? NULL : a->srq;
	qp->xrcd = a->qp_type == XQPV_QPT_XRC_RECV ? a->xrcd : NULL;
	qp->handle = resp.qp_handle;
	qp->qp_num = resp.qpn;
	qp->qp_type = a->qp_type;
	qp->state = XQPV_QPS_RESET;
	a->cap.max_send_wr = resp.max_send_wr;
	a->cap.max_recv_wr = resp.max_recv_wr;
	a->cap.max_send_sge = resp.max_send_sge;
	a->cap.max_recv_sge = resp.max_recv_sge;
	a->cap.max_inline_data = resp.max_inline_data;
	acks_init(qp_acks(qp));
	return qp;
}

struct xqpv_qp *xqpv_open_qp(struct xqpv_context *ctx, struct xqpv_qp_open_attr *a)
{
	struct ib_uverbs_create_qp_resp resp;
	struct ib_uverbs_open_qp cmd;
	struct xqpv_qp *qp;

	if (a->comp_mask >= XQPV_QP_OPEN_ATTR_RESERVED)
		return fail_ptr(EOPNOTSUPP);
	if (!(a->comp_mask & XQPV_QP_OPEN_ATTR_XRCD) ||
	    !(a->comp_mask & XQPV_QP_OPEN_ATTR_NUM) ||
	    !(a->comp_mask & XQPV_QP_OPEN_ATTR_TYPE) || !a->xrcd)
		return fail_ptr(EINVAL);
	qp = calloc(1, sizeof(*qp));
	if (!qp)
		return fail_ptr(ENOMEM);
	memset(&cmd, 0, sizeof(cmd));
	cmd.user_handle = RESP(qp);
	cmd.pd_handle = a->xrcd->handle;
	cmd.qpn = a->qp_num;
	cmd.qp_type = (uint8_t)a->qp_type;
	if (free_on_err(qp, exec_resp(ctx, IB_USER_VERBS_CMD_OPEN_QP, &cmd, &resp)))
		return NULL;
	qp->context = ctx;
	qp->qp_context = (a->comp_mask & XQPV_QP_OPEN_ATTR_CONTEXT) ? a->qp_context : NULL;
	qp->xrcd = a->xrcd;
	qp->handle = resp.qp_handle;
	qp->qp_num = resp.qpn;
	qp->qp_type = a->qp_type;
	qp->state = XQPV_QPS_RESET;
	acks_init(qp_acks(qp));
	return qp;
}

static void dest_to_kernel(struct ib_uverbs_qp_dest *d, const struct xqpv_ah_attr *a)
{
	memcpy(d->dgid, a->grh.dgid, sizeof(d->dgid));
	d->flow_label = a->grh.flow_label;
	d->sgid_index = a->grh.sgid_index;
	d->hop_limit = a->grh.hop_limit;
	d->traffic_class = a->grh.traffic_class;
	d->dlid = a->dlid;
	d->sl = a->sl;
	d->src_path_bits = a->src_path_bits;
	d->static_rate = a->static_rate;
	d->is_global = a->is_global;
	d->port_num = a->port_num;
}

static void dest_from_kernel(struct xqpv_ah_attr *a, const struct ib_uverbs_qp_dest *d)
{
	memcpy(a->grh.dgid, d->dgid, sizeof(a->grh.dgid));
	a->grh.flow_label = d->flow_label;
	a->grh.sgid_index = d->sgid_index;
	a->grh.hop_limit = d->hop_limit;
	a->grh.traffic_class = d->traffic_class;
	a->dlid = d->dlid;
	a->sl = d->sl;
	a->src_path_bits = d->src_path_bits;
	a->static_rate = d->static_rate;
	a->is_global = d->is_global;
	a->port_num = d->port_num;
}

int xqpv_modify_qp(struct xqpv_qp *qp, struct xqpv_qp_attr *a, int mask)
{
	struct ib_uverbs_modify_qp cmd;
	int err;

	memset(&cmd, 0, sizeof(cmd));
	cmd.qp_handle = qp->handle;
	cmd.attr_mask = (uint32_t)mask;
	cmd.qkey = a->qkey;
	cmd.rq_psn = a->rq_psn;
	cmd.sq_psn = a->sq_psn;
	cmd.dest_qp_num = a->dest_qp_num;
	cmd.qp_access_flags = a->qp_access_flags;
	cmd.pkey_index = a->pkey_index;
	cmd.alt_pkey_index = a->alt_pkey_index;
	cmd.qp_state = (uint8_t)a->qp_state;
	cmd.cur_qp_state = (uint8_t)a->cur_qp_state;
	cmd.path_mtu = (uint8_t)a->path_mtu;
	cmd.path_mig_state = (uint8_t)a->path_mig_state;
	cmd.en_sqd_async_notify = a->en_sqd_async_notify;
	cmd.max_rd_atomic = a->max_rd_atomic;
	cmd.max_dest_rd_atomic = a->max_dest_rd_atomic;
	cmd.min_rnr_timer = a->min_rnr_timer;
	cmd.port_num = a->port_num;
	cmd.timeout = a->timeout;
	cmd.retry_cnt = a->retry_cnt;
	cmd.rnr_retry = a->rnr_retry;
	cmd.alt_port_num = a->alt_port_num;
	cmd.alt_timeout = a->alt_timeout;
	dest_to_kernel(&cmd.dest, &a->ah_attr);
	dest_to_kernel(&cmd.alt_dest, &a->alt_ah_attr);
	err = xqpi_exec_cmd(qp->context, IB_USER_VERBS_CMD_MODIFY_QP, &cmd, sizeof(cmd), 0);
	if (err)
		return err;
	if (mask & XQPV_QP_STATE)
		qp->state = a->qp_state;
	return 0;
}

int xqpv_query_qp(struct xqpv_qp *qp, struct xqpv_qp_attr *a, int mask,
		 struct xqpv_qp_init_attr *init)
{
	struct ib_uverbs_query_qp_resp resp;
	struct ib_uverbs_query_qp cmd;
	int err;

	memset(&cmd, 0, sizeof(cmd));
	cmd.qp_handle = qp->handle;
	cmd.attr_mask = (uint32_t)mask;
	err = exec_resp(qp->context, IB_USER_VERBS_CMD_QUERY_QP, &cmd, &resp);
	if (err)
		return err;
	memset(a, 0, sizeof(*a));
	a->qp_state = resp.qp_state;
	a->cur_qp_state = resp.cur_qp_state;
	a->path_mtu = resp.path_mtu;
	a->path_mig_state = resp.path_mig_state;
	a->qkey = resp.qkey;
	a->rq_psn = resp.rq_psn;
	a->sq_psn = resp.sq_psn;
	a->dest_qp_num = resp.dest_qp_num;
	a->qp_access_flags = resp.qp_access_flags;
	a->pkey_index = resp.pkey_index;
	a->alt_pkey_index = resp.alt_pkey_index;
	a->sq_draining = resp.sq_draining;
	a->max_rd_atomic = resp.max_rd_atomic;
	a->max_dest_rd_atomic = resp.max_dest_rd_atomic;
	a->min_rnr_timer = resp.min_rnr_timer;
	a->port_num = resp.port_num;
	a->timeout = resp.timeout;
	a->retry_cnt = resp.retry_cnt;
	a->rnr_retry = resp.rnr_retry;
	a->alt_port_num = resp.alt_port_num;
	a->alt_timeout = resp.alt_timeout;
	a->cap.max_send_wr = resp.max_send_wr;
	a->cap.max_recv_wr = resp.max_recv_wr;
	a->cap.max_send_sge = resp.max_send_sge;
	a->cap.max_recv_sge = resp.max_recv_sge;
	a->cap.max_inline_data = resp.max_inline_data;
	dest_from_kernel(&a->ah_attr, &resp.dest);
	dest_from_kernel(&a->alt_ah_attr, &resp.alt_dest);
	qp->state = a->qp_state;
	if (init) {
		memset(init, 0, sizeof(*init));
		init->qp_context = qp->qp_context;
		init->cap = a->cap;
		init->qp_type = qp->qp_type;
		init->sq_sig_all = resp.sq_sig_all;
	}
	return 0;
}

int xqpv_destroy_qp(struct xqpv_qp *qp)
{
	int err = xqpi_destroy_acked(qp->context, IB_USER_VERBS_CMD_DESTROY_QP, qp->handle,
				     qp_acks(qp), NULL);

	if (err)
		return err;
	free(qp);
	return 0;
}

/* ---- async events --------------------------------------------------------------- */

enum event_element {
	ELEMENT_PORT,
	ELEMENT_CQ,
	ELEMENT_QP,
	ELEMENT_SRQ,
};

/* What an event of @type names: which member of xqpv_async_event.element. */
static enum event_element event_element(enum xqpv_event_type type)
{
	switch (type) {
	case XQPV_EVENT_CQ_ERR:
		return ELEMENT_CQ;
	case XQPV_EVENT_QP_FATAL:
	case XQPV_EVENT_QP_REQ_ERR:
	case XQPV_EVENT_QP_ACCESS_ERR:
	case XQPV_EVENT_COMM_EST:
	case XQPV_EVENT_SQ_DRAINED:
	case XQPV_EVENT_PATH_MIG:
	case XQPV_EVENT_PATH_MIG_ERR:
	case XQPV_EVENT_QP_LAST_WQE_REACHED:
		return ELEMENT_QP;
	case XQPV_EVENT_SRQ_ERR:
	case XQPV_EVENT_SRQ_LIMIT_REACHED:
		return ELEMENT_SRQ;
	default:
		return ELEMENT_PORT;
	}
}

int xqpv_get_async_event(struct xqpv_context *ctx, struct xqpv_async_event *event)
{
	struct ib_uverbs_async_event_desc desc;
	ssize_t n;

	n = read(ctx->async_fd, &desc, sizeof(desc));
	if (n < 0)
		return fail(errno);
	if (n != sizeof(desc))
		return fail(EIO);
	memset(event, 0, sizeof(*event));
	event->event_type = (enum xqpv_event_type)desc.event_type;
	switch (event_element(event->event_type)) {
	case ELEMENT_CQ:
		event->element.cq = (struct xqpv_cq *)(uintptr_t)desc.element;
		break;
	case ELEMENT_QP:
		event->element.qp = (struct xqpv_qp *)(uintptr_t)desc.element;
		break;
	case ELEMENT_SRQ:
		event->element.srq = (struct xqpv_srq *)(uintptr_t)desc.element;
		break;
	case ELEMENT_PORT:
		event->element.port_num = (int)desc.element;
		break;
	}
	return 0;
}

void xqpv_ack_async_event(struct xqpv_async_event *event)
{
	switch (event_element(event->event_type)) {
	case ELEMENT_CQ:
		acks_add(cq_acks(event->element.cq), 1);
		break;
	case ELEMENT_QP:
		acks_add(qp_acks(event->element.qp), 1);
		break;
	case ELEMENT_SRQ:
		acks_add(srq_acks(event->element.srq), 1);
		break;
	case ELEMENT_PORT:
		break;
	}
}

const char *xqpv_event_type_str(enum xqpv_event_type event)
{
	static const char *const names[] = {
		[XQPV_EVENT_CQ_ERR] = "CQ error",
		[XQPV_EVENT_QP_FATAL] = "local work queue catastrophic error",
		[XQPV_EVENT_QP_REQ_ERR] = "invalid request local work queue error",
		[XQPV_EVENT_QP_ACCESS_ERR] = "local access violation work queue error",
		[XQPV_EVENT_COMM_EST] = "communication established",
		[XQPV_EVENT_SQ_DRAINED] = "send queue drained",
		[XQPV_EVENT_PATH_MIG] = "path migrated",
		[XQPV_EVENT_PATH_MIG_ERR] = "path migration request error",
		[XQPV_EVENT_DEVICE_FATAL] = "local catastrophic error",
		[XQPV_EVENT_PORT_ACTIVE] = "port active",
		[XQPV_EVENT_PORT_ERR] = "port error",
		[XQPV_EVENT_LID_CHANGE] = "LID change",
		[XQPV_EVENT_PKEY_CHANGE] = "P_key change",
		[XQPV_EVENT_SM_CHANGE] = "SM change",
		[XQPV_EVENT_SRQ_ERR] = "SRQ catastrophic error",
		[XQPV_EVENT_SRQ_LIMIT_REACHED] = "SRQ limit reached",
		[XQPV_EVENT_QP_LAST_WQE_REACHED] = "last WQE reached",
		[XQPV_EVENT_CLIENT_REREGISTER] = "client reregistration",
		[XQPV_EVENT_GID_CHANGE] = "GID table change",
	};

	if ((unsigned int)event < sizeof(names) / sizeof(names[0]) && names[event])
		return names[event];
	return "unknown";
}

/* The test hook ioctl @ioc on @handle of @ctx. */
static int raise_event(struct xqpv_context *ctx, unsigned long ioc, uint32_t handle,
		       enum xqpv_event_type event)
{
	struct xqp_uverbs_raise_event req;

	memset(&req, 0, sizeof(req));
	req.handle = handle;
	req.event_type = (uint32_t)event;
	if (ioctl(ctx->cmd_fd, ioc, &req))
		return fail(errno);
	return 0;
}

int xqpv_raise_qp_event(struct xqpv_qp *qp, enum xqpv_event_type event)
{
	return raise_event(qp->context, XQP_UVERBS_IOC_RAISE_QP_EVENT, qp->handle, event);
}

int xqpv_raise_cq_event(struct xqpv_cq *cq, enum xqpv_event_type event)
{
	return raise_event(cq->context, XQP_UVERBS_IOC_RAISE_CQ_EVENT, cq->handle, event);
}

int xqpv_raise_srq_event(struct xqpv_srq *srq, enum xqpv_event_type event)
{
	return raise_event(srq->context, XQP_UVERBS_IOC_RAISE_SRQ_EVENT, srq->handle, event);
}
