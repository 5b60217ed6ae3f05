// SPDX-License-Identifier: GPL-2.0
/*
 * Memory regions (REG_MR, DEREG_MR), memory windows (ALLOC_MW,
 * DEALLOC_MW) and address handles (CREATE_AH, DESTROY_AH), in the order of
 * checks of uverbs_cmd.c.
 *
 * An MR covers user pages pinned by umem.c; the MR owns them from a
 * successful xqp_reg_mr() on, and the core releases them (unpins) when the
 * MR is deregistered, by DEREG_MR or by the file's teardown.
 */
#include <linux/bits.h>
#include <linux/string.h>

#include "uverbs.h"

/*
 * enum ib_access_flags past the four xqp names, with 6.12's values
 * (include/uapi/rdma/ib_user_ioctl_verbs.h; 6.1's headers lack the flush
 * bits, the ABI is the same).
 */
#define XQP_IB_ACCESS_ON_DEMAND		(1U << 6)
#define XQP_IB_ACCESS_FLUSH_PERSISTENT	(1U << 9)
#define XQP_IB_ACCESS_FLUSH		((1U << 8) | XQP_IB_ACCESS_FLUSH_PERSISTENT)
#define XQP_IB_ACCESS_OPTIONAL		GENMASK(29, 20)
#define XQP_IB_ACCESS_SUPPORTED		(((XQP_IB_ACCESS_FLUSH_PERSISTENT << 1) - 1) | \
					 XQP_IB_ACCESS_OPTIONAL)

/*
 * ib_check_mr_access() on a device without on-demand paging or flush:
 * bits Linux does not know, or remote write/atomic without local write:
 * -EINVAL; ODP and flush: -EOPNOTSUPP. The optional bits (relaxed
 * ordering, ...) are dropped, as drivers that lack them ignore them; the
 * core judges the rest (xqp_check_mr_access()).
 * Return: the access to register with, or a negative errno.
 */
static int mr_access(u32 access)
{
	u32 base = access & ~XQP_IB_ACCESS_OPTIONAL;

	if (access & ~XQP_IB_ACCESS_SUPPORTED)
		return -EINVAL;
	if ((base & (XQP_ACCESS_REMOTE_WRITE | XQP_ACCESS_REMOTE_ATOMIC)) &&
	    !(base & XQP_ACCESS_LOCAL_WRITE))
		return -EINVAL;
	if (base & (XQP_IB_ACCESS_ON_DEMAND | XQP_IB_ACCESS_FLUSH))
		return -EOPNOTSUPP;
	return xqp_check_mr_access(base) ?: (int)base;
}

/* Pins the pages and registers them; on failure nothing is left pinned. */
static struct xqp_mr *reg_user_mr(struct xqp_pd *pd,
				  const struct ib_uverbs_reg_mr *req, int access)
{
	struct xqp_mem *mem;
	struct xqp_mr *mr;

	mem = xqp_umem_get(req->start, req->length, access);
	if (IS_ERR(mem))
		return ERR_CAST(mem);
	mr = xqp_reg_mr(pd, mem, req->hca_va, access);
	if (IS_ERR(mr))
		mem->ops->release(mem);	/* the MR owns it only after success */
	return mr;
}

/* REG_MR (ib_uverbs_reg_mr() + ib_umem_get()). */
int xqp_cmd_reg_mr(struct xqp_cmd *cmd)
{
	struct ib_uverbs_reg_mr_resp resp;
	struct ib_uverbs_reg_mr req;
	struct xqp_uobj *uobj, *pd;
	struct xqp_mr *mr;
	int access, ret;

	ret = xqp_cmd_request(cmd, &req, sizeof(req));
	if (ret)
		return ret;
	if ((req.start & ~PAGE_MASK) != (req.hca_va & ~PAGE_MASK))
		return -EINVAL;
	uobj = xqp_uobj_alloc(cmd, &xqp_uobj_mr);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	access = mr_access(req.access_flags);
	if (access < 0) {
		ret = access;
		goto err;
	}
	pd = xqp_uobj_get(cmd->ufile, XQP_UOBJ_PD, req.pd_handle, XQP_LOOKUP_READ);
	if (IS_ERR(pd)) {
		ret = PTR_ERR(pd);
		goto err;
	}
	mr = reg_user_mr(pd->object, &req, access);
	xqp_uobj_put(pd, XQP_LOOKUP_READ);
	if (IS_ERR(mr)) {
		ret = PTR_ERR(mr);
		goto err;
	}
	uobj->object = mr;
	xqp_mr_set_res_owner(mr, uobj);

	memset(&resp, 0, sizeof(resp));
	resp.mr_handle = uobj->id;
	resp.lkey = xqp_mr_lkey(mr);
	resp.rkey = xqp_mr_rkey(mr);
	return xqp_cmd_respond_new(cmd, uobj, &resp, sizeof(resp));

err:
	xqp_uobj_abort(uobj);
	return ret;
}

/*
 * ALLOC_MW (ib_uverbs_alloc_mw()): the type (1 or 2: -EINVAL), the PD,
 * then the core. Binding is a POST_SEND WR (cmd_post.c).
 */
int xqp_cmd_alloc_mw(struct xqp_cmd *cmd)
{
	struct ib_uverbs_alloc_mw_resp resp;
	struct ib_uverbs_alloc_mw req;
	struct xqp_uobj *uobj, *pd;
	struct xqp_mw *mw;
	int ret;

	ret = xqp_cmd_request(cmd, &req, sizeof(req));
	if (ret)
		return ret;
	uobj = xqp_uobj_alloc(cmd, &xqp_uobj_mw);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	pd = xqp_uobj_get(cmd->ufile, XQP_UOBJ_PD, req.pd_handle, XQP_LOOKUP_READ);
	if (IS_ERR(pd)) {
		ret = PTR_ERR(pd);
		goto err;
	}
	if (req.mw_type != XQP_MW_TYPE_1 && req.mw_type != XQP_MW_TYPE_2)
		mw = ERR_PTR(-EINVAL);
	else
		mw = xqp_alloc_mw(pd->object, req.mw_type);
	xqp_uobj_put(pd, XQP_LOOKUP_READ);
	if (IS_ERR(mw)) {
		ret = PTR_ERR(mw);
		goto err;
	}
	uobj->object = mw;

	memset(&resp, 0, sizeof(resp));
	resp.mw_handle = uobj->id;
	resp.rkey = xqp_mw_rkey(mw);
	return xqp_cmd_respond_new(cmd, uobj, &resp, sizeof(resp));

err:
	xqp_uobj_abort(uobj);
	return ret;
}

/* The address vector of CREATE_AH; the GRH only when is_global (Linux). */
static void ah_attr_from_user(struct xqp_ah_attr *a, const struct ib_uverbs_ah_attr *u)
{
	memset(a, 0, sizeof(*a));
	a->dlid = u->dlid;
	a->sl = u->sl;
	a->src_path_bits = u->src_path_bits;
	a->static_rate = u->static_rate;
	a->port_num = u->port_num;
	if (u->is_global) {
		a->is_global = 1;
		memcpy(a->dgid, u->grh.dgid, sizeof(a->dgid));
		a->flow_label = u->grh.flow_label;
		a->sgid_index = u->grh.sgid_index;
		a->hop_limit = u->grh.hop_limit;
		a->traffic_class = u->grh.traffic_class;
	}
}

/* rdma_is_port_valid() for the AV's port. */
static int ah_port_check(struct xqp_device *xdev, u8 port)
{
	struct xqp_device_attr dattr;
	int ret = xqp_query_device(xdev, &dattr);

	if (ret)
		return ret;
	return port >= 1 && port <= dattr.phys_port_cnt ? 0 : -EINVAL;
}

/*
 * CREATE_AH (ib_uverbs_create_ah()): context, AV port, PD, then the core.
 * The reserved fields are not looked at, as in Linux.
 */
int xqp_cmd_create_ah(struct xqp_cmd *cmd)
{
	struct ib_uverbs_create_ah_resp resp;
	struct ib_uverbs_create_ah req;
	struct xqp_uobj *uobj, *pd;
	struct xqp_ah_attr attr;
	struct xqp_ah *ah;
	int ret;

	ret = xqp_cmd_request(cmd, &req, sizeof(req));
	if (ret)
		return ret;
	uobj = xqp_uobj_alloc(cmd, &xqp_uobj_ah);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	ret = ah_port_check(cmd->xdev, req.attr.port_num);
	if (ret)
		goto err;
	pd = xqp_uobj_get(cmd->ufile, XQP_UOBJ_PD, req.pd_handle, XQP_LOOKUP_READ);
	if (IS_ERR(pd)) {
		ret = PTR_ERR(pd);
		goto err;
	}
	ah_attr_from_user(&attr, &req.attr);
	ah = xqp_create_ah(pd->object, &attr);
	xqp_uobj_put(pd, XQP_LOOKUP_READ);
	if (IS_ERR(ah)) {
		ret = PTR_ERR(ah);
		goto err;
	}
	uobj->object = ah;
	uobj->user_handle = req.user_handle;

	memset(&resp, 0, sizeof(resp));
	resp.ah_handle = uobj->id;
	return xqp_cmd_respond_new(cmd, uobj, &resp, sizeof(resp));

err:
	xqp_uobj_abort(uobj);
	return ret;
}

/* The core releases the pinned memory (umem.c) with the MR. */
static int umr_destroy_hw(struct xqp_uobj *uobj, enum xqp_remove_reason why)
{
	return xqp_dereg_mr(uobj->object);
}

const struct xqp_uobj_class xqp_uobj_mr = {
	.type = XQP_UOBJ_MR,
	.size = sizeof(struct xqp_uobj),
	.destroy_hw = umr_destroy_hw,
};

static int umw_destroy_hw(struct xqp_uobj *uobj, enum xqp_remove_reason why)
{
	return xqp_dealloc_mw(uobj->object);
}

const struct xqp_uobj_class xqp_uobj_mw = {
	.type = XQP_UOBJ_MW,
	.size = sizeof(struct xqp_uobj),
	.destroy_hw = umw_destroy_hw,
};

static int uah_destroy_hw(struct xqp_uobj *uobj, enum xqp_remove_reason why)
{
	return xqp_destroy_ah(uobj->object);
}

const struct xqp_uobj_class xqp_uobj_ah = {
	.type = XQP_UOBJ_AH,
	.size = sizeof(struct xqp_uobj),
	.destroy_hw = uah_destroy_hw,
};
