// SPDX-License-Identifier: GPL-2.0
/*
 * UD multicast: ATTACH_MCAST and DETACH_MCAST, as uverbs_cmd.c has them.
 * Each QP handle keeps the (GID, LID) pairs its file attached: a pair
 * attached again is 0 without the device, a pair not attached is -EINVAL
 * on detach, DESTROY_QP of a QP with any is -EBUSY, and the file's teardown
 * detaches them (ib_uverbs_detach_umcast()). Unlike Linux, a pair whose
 * detach the device refused (not -EINVAL) stays to be detached again.
 */
#include <linux/slab.h>
#include <linux/string.h>

#include "uverbs.h"

struct xqp_umcast {
	struct list_head node;		/* uqp->mcast_list */
	u8 gid[16];
	u16 lid;
};

void xqp_uqp_mcast_init(struct xqp_uqp *uqp)
{
	mutex_init(&uqp->mcast_lock);
	INIT_LIST_HEAD(&uqp->mcast_list);
}

static struct xqp_umcast *umcast_find(struct xqp_uqp *uqp, const u8 gid[16], u16 lid)
{
	struct xqp_umcast *m;

	list_for_each_entry(m, &uqp->mcast_list, node)
		if (m->lid == lid && !memcmp(m->gid, gid, 16))
			return m;
	return NULL;
}

/*
 * Detaches @m's pair and drops it, unless the device refused for a reason
 * that may pass (an injected fault, no memory): then it stays, so that a
 * later DETACH_MCAST, or the file's teardown retrying, can detach it.
 * Linux drops it first whatever happens, and a QP whose detach failed can
 * then never be destroyed. -EINVAL (not attached there) and -EIO (the
 * device is gone, its groups with it) leave nothing to retry.
 */
static int umcast_detach(struct xqp_uqp *uqp, struct xqp_umcast *m)
{
	int ret = xqp_detach_mcast(uqp->uevent.uobj.object, m->gid, m->lid);

	if (ret && ret != -EINVAL && ret != -EIO)
		return ret;
	list_del(&m->node);
	kfree(m);
	return ret;
}

/* The request and its QP (READ-locked); the QP's handle-side state. */
static struct xqp_uobj *mcast_request(struct xqp_cmd *cmd, struct ib_uverbs_attach_mcast *req,
				      struct xqp_uqp **uqp)
{
	struct xqp_uobj *uobj;
	int ret = xqp_cmd_request(cmd, req, sizeof(*req));

	if (ret)
		return ERR_PTR(ret);
	uobj = xqp_uobj_get(cmd->ufile, XQP_UOBJ_QP, req->qp_handle, XQP_LOOKUP_READ);
	if (IS_ERR(uobj))
		return ERR_PTR(-EINVAL);	/* uobj_get_obj_read()'s NULL */
	*uqp = container_of(uobj, struct xqp_uqp, uevent.uobj);
	return uobj;
}

int xqp_cmd_attach_mcast(struct xqp_cmd *cmd)
{
	struct ib_uverbs_attach_mcast req;
	struct xqp_umcast *m;
	struct xqp_uobj *uobj;
	struct xqp_uqp *uqp;
	int ret = 0;

	uobj = mcast_request(cmd, &req, &uqp);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	mutex_lock(&uqp->mcast_lock);
	if (umcast_find(uqp, req.gid, req.mlid))
		goto unlock;	/* attached already: 0 */
	m = kmalloc(sizeof(*m), GFP_KERNEL_ACCOUNT);
	if (!m) {
		ret = -ENOMEM;
		goto unlock;
	}
	memcpy(m->gid, req.gid, 16);
	m->lid = req.mlid;
	ret = xqp_attach_mcast(uobj->object, req.gid, req.mlid);
	if (ret)
		kfree(m);
	else
		list_add_tail(&m->node, &uqp->mcast_list);
unlock:
	mutex_unlock(&uqp->mcast_lock);
	xqp_uobj_put(uobj, XQP_LOOKUP_READ);
	return ret;
}

int xqp_cmd_detach_mcast(struct xqp_cmd *cmd)
{
	struct ib_uverbs_detach_mcast req;
	struct xqp_umcast *m;
	struct xqp_uobj *uobj;
	struct xqp_uqp *uqp;
	int ret;

	BUILD_BUG_ON(sizeof(req) != sizeof(struct ib_uverbs_attach_mcast));
	uobj = mcast_request(cmd, (struct ib_uverbs_attach_mcast *)&req, &uqp);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	mutex_lock(&uqp->mcast_lock);
	m = umcast_find(uqp, req.gid, req.mlid);
	ret = m ? umcast_detach(uqp, m) : -EINVAL;
	mutex_unlock(&uqp->mcast_lock);
	xqp_uobj_put(uobj, XQP_LOOKUP_READ);
	return ret;
}

/**
 * xqp_uqp_mcast_release - before a QP handle's destroy: -EBUSY if the user
 * asks while it is attached; any other teardown detaches it first (a pair
 * the device refused stays, with its error: the destroy is retried).
 * @uqp: the QP's handle.
 * @why: why it is destroyed.
 */
int xqp_uqp_mcast_release(struct xqp_uqp *uqp, enum xqp_remove_reason why)
{
	struct xqp_umcast *m, *next;
	int ret = 0, err;

	mutex_lock(&uqp->mcast_lock);
	if (why == XQP_REMOVE_DESTROY) {
		if (!list_empty(&uqp->mcast_list))
			ret = -EBUSY;
	} else {
		list_for_each_entry_safe(m, next, &uqp->mcast_list, node) {
			err = umcast_detach(uqp, m);
			if (err && err != -EINVAL && err != -EIO)
				ret = err;	/* kept: the teardown tries again */
		}
	}
	mutex_unlock(&uqp->mcast_lock);
	return ret;
}
