// SPDX-License-Identifier: (GPL-2.0 OR BSD-2-Clause)
/*
 * libxqp-rdmav34.so: registration, device matching, the context, and the
 * control-path verbs (all through libibverbs' ibv_cmd_* helpers, with
 * zeroed command buffers: xqp refuses non-zero reserved words, and the
 * helpers leave some of them as the provider's buffer had them —
 * docs/provider.md 4.5).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "xqp.h"
#include "../wire/wire.h"

/* ---- matching ------------------------------------------------------------ */

/* The last path component of the symlink @rel under the device's sysfs
 * directory, into @out; false if it is no symlink or the name is odd. */
static bool link_name(const struct abi34_sysfs_dev *sd, const char *rel, char *out,
		      size_t size)
{
	char path[IBV_SYSFS_PATH_MAX + 64], target[PATH_MAX];
	const char *base;
	ssize_t n;
	size_t i, len;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", sd->ibdev_path, rel) >= sizeof(path))
		return false;
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return false;
	target[n] = '\0';
	while (n > 1 && target[n - 1] == '/')
		target[--n] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	len = strlen(base);
	if (!len || len >= size)
		return false;
	for (i = 0; i < len; i++) {
		char c = base[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_' || c == '-'))
			return false;
	}
	memcpy(out, base, len + 1);
	return true;
}

/*
 * What the device's parent says: the xqp_uverbs class device's name
 * ("uverbs0") and its dev_t. false unless <ibdev_path>/device is an
 * xqp_uverbs class device with a readable dev.
 */
static bool xprov_parent(struct abi34_sysfs_dev *sd, char *name, size_t size, dev_t *rdev)
{
	char subsys[64], buf[32];
	unsigned int maj, min;
	char tail;

	if (!link_name(sd, "device/subsystem", subsys, sizeof(subsys)) ||
	    strcmp(subsys, XQP_UVERBS_CLASS) != 0)
		return false;
	if (!link_name(sd, "device", name, size))
		return false;
	if (ibv_read_ibdev_sysfs_file(buf, sizeof(buf), sd, "device/dev") <= 0)
		return false;
	if (sscanf(buf, "%u:%u%c", &maj, &min, &tail) != 2)
		return false;
	*rdev = makedev(maj, min);
	return true;
}

static bool xprov_match_device(struct abi34_sysfs_dev *sd)
{
	char name[64];
	dev_t rdev;

	return xprov_parent(sd, name, sizeof(name), &rdev);
}

static struct abi34_device *xprov_alloc_device(struct abi34_sysfs_dev *sd)
{
	const char *dir = secure_getenv(XPROV_DEV_DIR_ENV);
	struct xprov_device *xd;
	char name[64];
	dev_t rdev;

	if (!xprov_parent(sd, name, sizeof(name), &rdev))
		return NULL;
	xd = calloc(1, sizeof(*xd));
	if (!xd)
		return NULL;
	if (!dir || !*dir)
		dir = XPROV_DEFAULT_DEV_DIR;
	if ((size_t)snprintf(xd->node, sizeof(xd->node), "%s/%s", dir, name) >=
	    sizeof(xd->node)) {
		free(xd);
		return NULL;
	}
	xd->rdev = rdev;
	return &xd->vdev;
}

static void xprov_uninit_device(struct abi34_device *vdev)
{
	free(abi34_container_of(vdev, struct xprov_device, vdev));
}

/* ---- context ------------------------------------------------------------- */

static int xprov_query_device_ex(struct ibv_context *ctx,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ib_uverbs_ex_query_device_resp resp;
	size_t resp_size = sizeof(resp);
	uint64_t fw;
	int ret;

	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_query_device_any(ctx, input, attr, attr_size, &resp, &resp_size);
	if (ret)
		return ret;
	/*
	 * libibverbs sets phys_port_cnt_ex only after an extended
	 * QUERY_DEVICE, which xqp answers EOPNOTSUPP: the legacy answer's
	 * count is the whole truth (xqp devices have one port).
	 */
	if (attr_size >= offsetof(struct ibv_device_attr_ex, phys_port_cnt_ex) +
			 sizeof(attr->phys_port_cnt_ex))
		attr->phys_port_cnt_ex = attr->orig_attr.phys_port_cnt;
	fw = resp.base.fw_ver;
	snprintf(attr->orig_attr.fw_ver, sizeof(attr->orig_attr.fw_ver), "%u.%u.%u",
		 (unsigned int)(fw >> 32) & 0xffff, (unsigned int)(fw >> 16) & 0xffff,
		 (unsigned int)fw & 0xffff);
	return 0;
}

static int xprov_query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr)
{
	struct abi34_cmd_query_port cmd;

	memset(&cmd, 0, sizeof(cmd));
	return ibv_cmd_query_port(ctx, port, attr, &cmd, sizeof(cmd));
}

static struct ibv_pd *xprov_alloc_pd(struct ibv_context *ctx)
{
	struct abi34_cmd_alloc_pd cmd;
	struct ib_uverbs_alloc_pd_resp resp;
	struct xprov_pd *pd = calloc(1, sizeof(*pd));
	int ret;

	if (!pd)
		return NULL;
	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_alloc_pd(ctx, &pd->pd, &cmd, sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(pd);
		errno = ret;
		return NULL;
	}
	return &pd->pd;
}

static int xprov_dealloc_pd(struct ibv_pd *pd)
{
	int ret = ibv_cmd_dealloc_pd(pd);

	if (!ret)
		free(abi34_container_of(pd, struct xprov_pd, pd));
	return ret;
}

static struct ibv_mr *xprov_reg_mr(struct ibv_pd *pd, void *addr, size_t length,
				 uint64_t hca_va, int access)
{
	struct abi34_cmd_reg_mr cmd;
	struct ib_uverbs_reg_mr_resp resp;
	struct xprov_mr *mr = calloc(1, sizeof(*mr));
	int ret;

	if (!mr)
		return NULL;
	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_reg_mr(pd, addr, length, hca_va, access, &mr->vmr, &cmd, sizeof(cmd),
			     &resp, sizeof(resp));
	if (ret) {
		free(mr);
		errno = ret;
		return NULL;
	}
	return &mr->vmr.ibv_mr;
}

static int xprov_dereg_mr(struct abi34_mr *vmr)
{
	int ret = ibv_cmd_dereg_mr(vmr);

	if (!ret)
		free(abi34_container_of(vmr, struct xprov_mr, vmr));
	return ret;
}

/*
 * Memory windows: ALLOC_MW and DEALLOC_MW written here (the private ABI's
 * ibv_cmd_alloc_mw() would add nothing but a dependency). Binding is a
 * send WR (post.c).
 */
static struct ibv_mw *xprov_alloc_mw(struct ibv_pd *pd, enum ibv_mw_type type)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_alloc_mw cmd;
	} req;
	struct ib_uverbs_alloc_mw_resp resp;
	struct ibv_mw *mw = calloc(1, sizeof(*mw));
	int err;

	if (!mw) {
		errno = ENOMEM;
		return NULL;
	}
	memset(&req, 0, sizeof(req));
	memset(&resp, 0, sizeof(resp));
	req.cmd.response = (uintptr_t)&resp;
	req.cmd.pd_handle = pd->handle;
	req.cmd.mw_type = (uint8_t)type;
	err = xqp_wire_write(pd->context->cmd_fd, IB_USER_VERBS_CMD_ALLOC_MW, &req, sizeof(req),
			     sizeof(resp));
	if (err) {
		free(mw);
		errno = err;
		return NULL;
	}
	mw->context = pd->context;
	mw->pd = pd;
	mw->rkey = resp.rkey;
	mw->handle = resp.mw_handle;
	mw->type = type;
	return mw;
}

static int xprov_dealloc_mw(struct ibv_mw *mw)
{
	struct {
		struct ib_uverbs_cmd_hdr hdr;
		struct ib_uverbs_dealloc_mw cmd;
	} req;
	int err;

	memset(&req, 0, sizeof(req));
	req.cmd.mw_handle = mw->handle;
	err = xqp_wire_write(mw->context->cmd_fd, IB_USER_VERBS_CMD_DEALLOC_MW, &req, sizeof(req), 0);
	if (!err)
		free(mw);
	return err;
}

static struct ibv_ah *xprov_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	struct ib_uverbs_create_ah_resp resp;
	struct xprov_ah *ah = calloc(1, sizeof(*ah));
	int ret;

	if (!ah)
		return NULL;
	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_create_ah(pd, &ah->ah, attr, &resp, sizeof(resp));
	if (ret) {
		free(ah);
		errno = ret;
		return NULL;
	}
	return &ah->ah;
}

static int xprov_destroy_ah(struct ibv_ah *ah)
{
	int ret = ibv_cmd_destroy_ah(ah);

	if (!ret)
		free(abi34_container_of(ah, struct xprov_ah, ah));
	return ret;
}

static struct ibv_xrcd *xprov_open_xrcd(struct ibv_context *ctx, struct ibv_xrcd_init_attr *attr)
{
	struct abi34_cmd_open_xrcd cmd;
	struct ib_uverbs_open_xrcd_resp resp;
	struct xprov_xrcd *x = calloc(1, sizeof(*x));
	int ret;

	if (!x)
		return NULL;
	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_open_xrcd(ctx, &x->vxrcd, sizeof(x->vxrcd), attr, &cmd, sizeof(cmd),
				&resp, sizeof(resp));
	if (ret) {
		free(x);
		errno = ret;
		return NULL;
	}
	return &x->vxrcd.xrcd;
}

static int xprov_close_xrcd(struct ibv_xrcd *xrcd)
{
	struct abi34_xrcd *vx = abi34_container_of(xrcd, struct abi34_xrcd, xrcd);
	int ret = ibv_cmd_close_xrcd(vx);

	if (!ret)
		free(abi34_container_of(vx, struct xprov_xrcd, vxrcd));
	return ret;
}

/* ---- SRQs ---------------------------------------------------------------- */

static struct ibv_srq *xprov_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	struct abi34_cmd_create_srq cmd;
	struct ib_uverbs_create_srq_resp resp;
	struct xprov_srq *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return NULL;
	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_create_srq(pd, &s->vsrq.srq, attr, &cmd, sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(s);
		errno = ret;
		return NULL;
	}
	return &s->vsrq.srq;
}

static struct ibv_srq *xprov_create_srq_ex(struct ibv_context *ctx,
					 struct ibv_srq_init_attr_ex *attr)
{
	const uint32_t known = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_PD |
			       IBV_SRQ_INIT_ATTR_XRCD | IBV_SRQ_INIT_ATTR_CQ;
	struct abi34_cmd_create_xsrq cmd;
	struct ib_uverbs_create_srq_resp resp;
	struct xprov_srq *s;
	int ret;

	if ((attr->comp_mask & ~known) ||
	    ((attr->comp_mask & IBV_SRQ_INIT_ATTR_TYPE) &&
	     attr->srq_type != IBV_SRQT_BASIC && attr->srq_type != IBV_SRQT_XRC)) {
		errno = EOPNOTSUPP;	/* tag matching, and whatever comes later */
		return NULL;
	}
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_create_srq_ex(ctx, &s->vsrq, attr, &cmd, sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		free(s);
		errno = ret;
		return NULL;
	}
	/* ibv_create_srq() sets these itself; the extended path leaves them. */
	s->vsrq.srq.srq_context = attr->srq_context;
	s->vsrq.srq.pd = attr->pd;
	return &s->vsrq.srq;
}

static int xprov_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr, int mask)
{
	struct abi34_cmd_modify_srq cmd;

	memset(&cmd, 0, sizeof(cmd));
	return ibv_cmd_modify_srq(srq, attr, mask, &cmd, sizeof(cmd));
}

static int xprov_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct abi34_cmd_query_srq cmd;

	memset(&cmd, 0, sizeof(cmd));
	return ibv_cmd_query_srq(srq, attr, &cmd, sizeof(cmd));
}

static int xprov_destroy_srq(struct ibv_srq *srq)
{
	int ret = ibv_cmd_destroy_srq(srq);

	if (!ret)
		free(abi34_container_of(srq, struct xprov_srq, vsrq.srq));
	return ret;
}

static int xprov_get_srq_num(struct ibv_srq *srq, uint32_t *num)
{
	struct abi34_srq *vs = abi34_container_of(srq, struct abi34_srq, srq);

	if (vs->srq_type != IBV_SRQT_XRC)
		return EINVAL;
	*num = vs->srq_num;
	return 0;
}

static int xprov_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr,
			     struct ibv_recv_wr **bad_wr)
{
	return ibv_cmd_post_srq_recv(srq, wr, bad_wr);
}

/* ---- QPs ----------------------------------------------------------------- */

static void xprov_qp_free(struct xprov_qp *qp)
{
	xprov_qp_ex_free(qp);
	pthread_mutex_destroy(&qp->wr_lock);
	free(qp);
}

static struct xprov_qp *xprov_qp_alloc(void)
{
	struct xprov_qp *qp = calloc(1, sizeof(*qp));

	if (qp)
		pthread_mutex_init(&qp->wr_lock, NULL);
	return qp;
}

static struct ibv_qp *xprov_create_qp_ex(struct ibv_context *ctx,
				       struct ibv_qp_init_attr_ex *attr)
{
	uint32_t mask = attr->comp_mask;
	struct abi34_cmd_create_qp cmd;
	struct ib_uverbs_create_qp_resp resp;
	struct xprov_qp *qp;
	int ret;

	/* No creation flags of any kind; an empty CREATE_FLAGS is harmless. */
	if ((mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) && !attr->create_flags)
		mask &= ~IBV_QP_INIT_ATTR_CREATE_FLAGS;
	if (mask & ~(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_XRCD |
		     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if ((mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) &&
	    ((attr->send_ops_flags & ~(uint64_t)XPROV_SUPPORTED_SEND_OPS) ||
	     attr->qp_type == IBV_QPT_XRC_RECV)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	qp = xprov_qp_alloc();
	if (!qp)
		return NULL;
	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	{
		uint32_t saved = attr->comp_mask;

		attr->comp_mask = mask;
		ret = ibv_cmd_create_qp_ex(ctx, &qp->vqp, attr, &cmd, sizeof(cmd), &resp,
					   sizeof(resp));
		attr->comp_mask = saved;
	}
	if (ret) {
		xprov_qp_free(qp);
		errno = ret;
		return NULL;
	}
	qp->type = attr->qp_type;
	qp->max_inline = attr->cap.max_inline_data;
	qp->max_send_sge = attr->cap.max_send_sge;
	if (mask & IBV_QP_INIT_ATTR_SEND_OPS_FLAGS) {
		qp->send_ops = attr->send_ops_flags;
		xprov_qp_ex_init(qp);
		qp->vqp.comp_mask |= ABI34_QP_EX;
	}
	return &qp->vqp.qp;
}

static struct ibv_qp *xprov_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct ibv_qp_init_attr_ex ax;
	struct ibv_qp *qp;

	memset(&ax, 0, sizeof(ax));
	ax.qp_context = attr->qp_context;
	ax.send_cq = attr->send_cq;
	ax.recv_cq = attr->recv_cq;
	ax.srq = attr->srq;
	ax.cap = attr->cap;
	ax.qp_type = attr->qp_type;
	ax.sq_sig_all = attr->sq_sig_all;
	ax.comp_mask = IBV_QP_INIT_ATTR_PD;
	ax.pd = pd;
	qp = xprov_create_qp_ex(pd->context, &ax);
	if (qp)
		attr->cap = ax.cap;
	return qp;
}

static struct ibv_qp *xprov_open_qp(struct ibv_context *ctx, struct ibv_qp_open_attr *attr)
{
	struct abi34_cmd_open_qp cmd;
	struct ib_uverbs_create_qp_resp resp;
	struct xprov_qp *qp = xprov_qp_alloc();
	int ret;

	if (!qp)
		return NULL;
	memset(&cmd, 0, sizeof(cmd));	/* libibverbs leaves reserved[] to us */
	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_open_qp(ctx, &qp->vqp, sizeof(qp->vqp), attr, &cmd, sizeof(cmd), &resp,
			      sizeof(resp));
	if (ret) {
		xprov_qp_free(qp);
		errno = ret;
		return NULL;
	}
	qp->type = qp->vqp.qp.qp_type;
	return &qp->vqp.qp;
}

static int xprov_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask,
			struct ibv_qp_init_attr *init_attr)
{
	struct abi34_cmd_query_qp cmd;

	memset(&cmd, 0, sizeof(cmd));
	return ibv_cmd_query_qp(qp, attr, mask, init_attr, &cmd, sizeof(cmd));
}

static int xprov_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	struct abi34_cmd_modify_qp cmd;

	memset(&cmd, 0, sizeof(cmd));	/* unselected fields go out as they are */
	return ibv_cmd_modify_qp(qp, attr, mask, &cmd, sizeof(cmd));
}

static int xprov_destroy_qp(struct ibv_qp *qp)
{
	int ret = ibv_cmd_destroy_qp(qp);

	if (!ret)
		xprov_qp_free(to_xqp(qp));
	return ret;
}

static int xprov_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	return ibv_cmd_post_recv(qp, wr, bad_wr);
}

static int xprov_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	return ibv_cmd_req_notify_cq(cq, solicited_only);
}

static int xprov_resize_cq(struct ibv_cq *cq, int cqe)
{
	struct abi34_cmd_resize_cq cmd;
	struct ib_uverbs_resize_cq_resp resp;

	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	return ibv_cmd_resize_cq(cq, cqe, &cmd, sizeof(cmd), &resp, sizeof(resp));
}

static void xprov_free_context(struct ibv_context *ibctx)
{
	struct xprov_context *ctx = abi34_container_of(ibctx, struct xprov_context, vctx.context);

	verbs_uninit_context(&ctx->vctx);
	free(ctx);
}

/*
 * Everything not listed stays libibverbs' dummy: EOPNOTSUPP (device memory, flows, WQs, RSS, counters, TDs and parent
 * domains, ECE, import, rereg_mr, modify_cq, ...); the list is
 * in docs/provider.md.
 */
static const struct abi34_context_ops xprov_ctx_ops = {
	.alloc_mw = xprov_alloc_mw,
	.alloc_pd = xprov_alloc_pd,
	.attach_mcast = ibv_cmd_attach_mcast,	/* as rxe's */
	.bind_mw = xprov_bind_mw,
	.close_xrcd = xprov_close_xrcd,
	.create_ah = xprov_create_ah,
	.create_cq = xprov_create_cq,
	.create_cq_ex = xprov_create_cq_ex,
	.create_qp = xprov_create_qp,
	.create_qp_ex = xprov_create_qp_ex,
	.create_srq = xprov_create_srq,
	.create_srq_ex = xprov_create_srq_ex,
	.dealloc_mw = xprov_dealloc_mw,
	.dealloc_pd = xprov_dealloc_pd,
	.dereg_mr = xprov_dereg_mr,
	.destroy_ah = xprov_destroy_ah,
	.destroy_cq = xprov_destroy_cq,
	.destroy_qp = xprov_destroy_qp,
	.destroy_srq = xprov_destroy_srq,
	.detach_mcast = ibv_cmd_detach_mcast,
	.free_context = xprov_free_context,
	.get_srq_num = xprov_get_srq_num,
	.modify_qp = xprov_modify_qp,
	.modify_srq = xprov_modify_srq,
	.open_qp = xprov_open_qp,
	.open_xrcd = xprov_open_xrcd,
	.poll_cq = xprov_poll_cq,
	.post_recv = xprov_post_recv,
	.post_send = xprov_post_send,
	.post_srq_recv = xprov_post_srq_recv,
	.query_device_ex = xprov_query_device_ex,
	.query_port = xprov_query_port,
	.query_qp = xprov_query_qp,
	.query_srq = xprov_query_srq,
	.reg_mr = xprov_reg_mr,
	.req_notify_cq = xprov_req_notify_cq,
	.resize_cq = xprov_resize_cq,
};

/*
 * libibverbs opened /dev/infiniband/uverbsK of the discovery ib_device and
 * hands it to us; every verb goes to the xqp device's own node instead.
 * The swap happens before _verbs_init_and_alloc_context(), which probes
 * the ioctl interface on the fd it is given (xqp: ENOTTY, so write()).
 */
static struct verbs_context *xprov_alloc_context(struct ibv_device *ibdev, int cmd_fd,
					       void *private_data)
{
	struct xprov_device *xd = to_xdev(ibdev);
	struct abi34_cmd_get_context cmd;
	struct ib_uverbs_get_context_resp resp;
	struct xprov_context *ctx;
	struct stat st;
	int fd, ret;

	(void)private_data;
	if (cmd_fd >= 0)
		close(cmd_fd);
	fd = open(xd->node, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISCHR(st.st_mode) || st.st_rdev != xd->rdev) {
		close(fd);
		errno = ENODEV;	/* not the node sysfs names: renumbered, or foreign */
		return NULL;
	}
	ctx = _verbs_init_and_alloc_context(ibdev, fd, sizeof(*ctx),
					    (struct verbs_context *)offsetof(struct xprov_context,
									     vctx),
					    0 /* RDMA_DRIVER_UNKNOWN */);
	if (!ctx)
		return NULL;	/* fd closed by libibverbs */
	memset(&cmd, 0, sizeof(cmd));
	memset(&resp, 0, sizeof(resp));
	ret = ibv_cmd_get_context(&ctx->vctx, &cmd, sizeof(cmd), &resp, sizeof(resp));
	if (ret) {
		verbs_uninit_context(&ctx->vctx);
		free(ctx);
		errno = ret;
		return NULL;
	}
	verbs_set_ops(&ctx->vctx, &xprov_ctx_ops);
	return &ctx->vctx;
}

/*
 * No device matches by table: xprov_match_device() decides. The table is
 * still there, empty: libibverbs (init.c: try_drivers(), both 44.0 and
 * 56.1) walks every registered provider's match_table without a NULL
 * check whenever a device has a netlink driver id (rxe, mlx5, ...), so a
 * NULL table crashed any program that enumerates such a device with xqp's
 * provider registered before that device's own (RDMAV_DRIVERS=xqp, or the
 * order of /etc/libibverbs.d).
 */
static const struct abi34_match_ent xprov_match_table[] = {
	{ .kind = ABI34_MATCH_END },
};

const struct abi34_device_ops xprov_device_ops = {
	.name = "xqp",
	.match_min_abi_version = XQP_PROVIDER_ABI,
	.match_max_abi_version = XQP_PROVIDER_ABI,
	.match_table = xprov_match_table,
	.match_device = xprov_match_device,
	.alloc_context = xprov_alloc_context,
	.alloc_device = xprov_alloc_device,
	.uninit_device = xprov_uninit_device,
};

__attribute__((constructor)) static void xprov_register(void)
{
	verbs_register_driver_34(&xprov_device_ops);
}
