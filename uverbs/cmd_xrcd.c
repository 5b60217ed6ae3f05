// SPDX-License-Identifier: GPL-2.0
/*
 * XRC domains shared by inode, and SRQs (basic and XRC): create, destroy,
 * modify, query.
 *
 * OPEN_XRCD{fd, oflags}: fd = -1 gives a new private XRCD. Otherwise the
 * XRCD is the one this device keyed by the inode of that fd: O_CREAT
 * creates it or joins it; without O_CREAT and none exists: -EAGAIN;
 * O_EXCL and one exists: -EINVAL; a bad fd: -EBADF. The table holds a
 * reference on the inode while the XRCD lives, and every open through an
 * inode counts in the XRCD's usecnt; the last close of the inode frees the
 * XRCD and forgets the inode, so that O_CREAT|O_EXCL succeeds again.
 * CLOSE_XRCD is -EBUSY while this handle still has QPs, opened QPs or XRC
 * SRQs. All of it as ib_uverbs_open_xrcd() / uverbs_free_xrcd().
 */
#include <linux/fcntl.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/slab.h>

#include "uverbs.h"

struct xrcd_entry {
	struct rb_node node;
	struct inode *inode;
	struct xqp_xrcd *xrcd;
};

/* Caller holds udev->xrcd_tree_mutex for all three. */
static struct xrcd_entry *xrcd_find(struct xqp_uverbs_device *udev,
				    struct inode *inode)
{
	struct rb_node *p = udev->xrcd_tree.rb_node;

	while (p) {
		struct xrcd_entry *e = rb_entry(p, struct xrcd_entry, node);

		if (inode < e->inode)
			p = p->rb_left;
		else if (inode > e->inode)
			p = p->rb_right;
		else
			return e;
	}
	return NULL;
}

static int xrcd_insert(struct xqp_uverbs_device *udev, struct inode *inode,
		       struct xqp_xrcd *xrcd)
{
	struct rb_node **p = &udev->xrcd_tree.rb_node, *parent = NULL;
	struct xrcd_entry *e;

	while (*p) {
		struct xrcd_entry *scan = rb_entry(*p, struct xrcd_entry, node);

		parent = *p;
		if (inode < scan->inode)
			p = &(*p)->rb_left;
		else if (inode > scan->inode)
			p = &(*p)->rb_right;
		else
			return -EEXIST;
	}
	e = kmalloc(sizeof(*e), GFP_KERNEL_ACCOUNT);
	if (!e)
		return -ENOMEM;
	e->inode = igrab(inode);
	if (!e->inode) {
		kfree(e);
		return -ENOENT;	/* the inode is being evicted */
	}
	e->xrcd = xrcd;
	rb_link_node(&e->node, parent, p);
	rb_insert_color(&e->node, &udev->xrcd_tree);
	return 0;
}

static void xrcd_delete(struct xqp_uverbs_device *udev, struct inode *inode)
{
	struct xrcd_entry *e = xrcd_find(udev, inode);

	if (!e)
		return;
	rb_erase(&e->node, &udev->xrcd_tree);
	iput(e->inode);
	kfree(e);
}

int xqp_cmd_open_xrcd(struct xqp_cmd *cmd)
{
	struct xqp_uverbs_device *udev = cmd->ufile->udev;
	struct ib_uverbs_open_xrcd_resp resp;
	struct ib_uverbs_open_xrcd req;
	struct xqp_xrcd *xrcd = NULL;
	struct inode *inode = NULL;
	struct xqp_uxrcd *uxrcd;
	struct xqp_uobj *uobj;
	struct fd f = EMPTY_FD;
	bool new_xrcd = false;
	int ret, err;

	ret = xqp_cmd_request(cmd, &req, sizeof(req));
	if (ret)
		return ret;

	mutex_lock(&udev->xrcd_tree_mutex);
	if (req.fd != (u32)-1) {
		struct xrcd_entry *e;

		f = fdget(req.fd);
		if (!fd_file(f)) {
			ret = -EBADF;
			goto err_unlock;
		}
		inode = file_inode(fd_file(f));
		e = xrcd_find(udev, inode);
		xrcd = e ? e->xrcd : NULL;
		if (!xrcd && !(req.oflags & O_CREAT)) {
			ret = -EAGAIN;
			goto err_unlock;
		}
		if (xrcd && (req.oflags & O_EXCL)) {
			ret = -EINVAL;
			goto err_unlock;
		}
	}

	uobj = xqp_uobj_alloc(cmd, &xqp_uobj_xrcd);
	if (IS_ERR(uobj)) {
		ret = PTR_ERR(uobj);
		goto err_unlock;
	}
	uxrcd = container_of(uobj, struct xqp_uxrcd, uobj);
	if (!xrcd) {
		xrcd = xqp_alloc_xrcd(cmd->xdev);
		if (IS_ERR(xrcd)) {
			ret = PTR_ERR(xrcd);
			goto err_abort;
		}
		new_xrcd = true;
	}
	atomic_set(&uxrcd->refcnt, 0);
	uobj->object = xrcd;
	if (new_xrcd)
		xqp_xrcd_set_res_owner(xrcd, uobj);
	if (inode) {
		if (new_xrcd) {
			ret = xrcd_insert(udev, inode, xrcd);
			if (ret)
				goto err_dealloc;
			xqp_xrcd_set_res_inode(xrcd, inode->i_ino);
		}
		xqp_xrcd_get_user(xrcd);
		uxrcd->inode = inode;
	}
	if (fd_file(f))
		fdput(f);
	mutex_unlock(&udev->xrcd_tree_mutex);

	memset(&resp, 0, sizeof(resp));
	resp.xrcd_handle = uobj->id;
	return xqp_cmd_respond_new(cmd, uobj, &resp, sizeof(resp));

err_dealloc:
	err = xqp_dealloc_xrcd(xrcd);
	if (err) {
		/* refused (a driver's error): the file keeps it, no inode's */
		xqp_uobj_keep_refused(uobj, err);
		goto err_unlock;
	}
err_abort:
	xqp_uobj_abort(uobj);
err_unlock:
	if (fd_file(f))
		fdput(f);
	mutex_unlock(&udev->xrcd_tree_mutex);
	return ret;
}

/* The XRCD type's destroy (uverbs_free_xrcd + ib_uverbs_dealloc_xrcd). */
static int uxrcd_destroy_hw(struct xqp_uobj *uobj, enum xqp_remove_reason why)
{
	struct xqp_uxrcd *uxrcd = container_of(uobj, struct xqp_uxrcd, uobj);
	struct xqp_uverbs_device *udev = uxrcd->uobj.ufile->udev;
	struct xqp_xrcd *xrcd = uxrcd->uobj.object;
	struct inode *inode = uxrcd->inode;
	int ret;

	if (atomic_read(&uxrcd->refcnt))
		return -EBUSY;

	mutex_lock(&udev->xrcd_tree_mutex);
	if (inode) {
		/*
		 * Other opens of the inode keep it; nobody can raise usecnt
		 * from zero without this mutex (an inode open) or without
		 * holding an inode open already (a QP, an SRQ).
		 */
		xqp_xrcd_put_user(xrcd);
		if (xqp_xrcd_usecnt(xrcd)) {
			/* it lives on for the others: this file owns it no more */
			xqp_xrcd_clear_res_owner(xrcd, &uxrcd->uobj);
			mutex_unlock(&udev->xrcd_tree_mutex);
			return 0;
		}
	}
	ret = xqp_dealloc_xrcd(xrcd);
	if (ret) {
		if (inode)
			xqp_xrcd_get_user(xrcd);
		mutex_unlock(&udev->xrcd_tree_mutex);
		return ret;
	}
	if (inode)
		xrcd_delete(udev, inode);
	mutex_unlock(&udev->xrcd_tree_mutex);
	return 0;
}

/* ---- SRQs ---------------------------------------------------------------- */

/* __uverbs_create_xsrq(): lookups in Linux's order, then the core. */
static int create_xsrq(struct xqp_cmd *cmd, struct ib_uverbs_create_xsrq *req)
{
	struct xqp_uobj *xrcd_uobj = NULL, *cq_uobj = NULL, *pd_uobj;
	struct ib_uverbs_create_srq_resp resp;
	struct xqp_srq_init_attr attr = {};
	struct xqp_uevent_obj *eobj;
	struct xqp_usrq *usrq;
	struct xqp_uobj *uobj;
	struct xqp_srq *srq;
	int ret;

	uobj = xqp_uobj_alloc(cmd, &xqp_uobj_srq);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	eobj = container_of(uobj, struct xqp_uevent_obj, uobj);
	usrq = container_of(eobj, struct xqp_usrq, uevent);

	if (req->srq_type == XQP_IB_SRQT_XRC) {
		xrcd_uobj = xqp_uobj_get(cmd->ufile, XQP_UOBJ_XRCD, req->xrcd_handle,
					 XQP_LOOKUP_READ);
		if (IS_ERR(xrcd_uobj)) {
			ret = -EINVAL;
			goto err;
		}
		usrq->uxrcd = container_of(xrcd_uobj, struct xqp_uxrcd, uobj);
		atomic_inc(&usrq->uxrcd->refcnt);
		attr.xrcd = xrcd_uobj->object;
	}
	if (req->srq_type == XQP_IB_SRQT_XRC || req->srq_type == XQP_IB_SRQT_TM) {
		cq_uobj = xqp_uobj_get(cmd->ufile, XQP_UOBJ_CQ, req->cq_handle,
				       XQP_LOOKUP_READ);
		if (IS_ERR(cq_uobj)) {
			ret = PTR_ERR(cq_uobj);
			cq_uobj = NULL;
			goto err_put_xrcd;
		}
		attr.cq = cq_uobj->object;
	}
	pd_uobj = xqp_uobj_get(cmd->ufile, XQP_UOBJ_PD, req->pd_handle, XQP_LOOKUP_READ);
	if (IS_ERR(pd_uobj)) {
		ret = PTR_ERR(pd_uobj);
		goto err_put_cq;
	}

	uobj->user_handle = req->user_handle;
	xqp_uevent_init(eobj, cmd->ufile);
	attr.event_handler = xqp_uverbs_event_handler;
	attr.event_flags = XQP_EVENT_INLINE;	/* it queues an event and wakes */
	attr.srq_context = eobj;
	/*
	 * Any value, as Linux passes it on: the core reads it as an integer and
	 * answers EOPNOTSUPP for types other than basic and XRC (tag matching,
	 * unknown ones), as the reference device does.
	 */
	attr.srq_type = req->srq_type;
	attr.attr.max_wr = req->max_wr;
	attr.attr.max_sge = req->max_sge;
	attr.attr.srq_limit = req->srq_limit;
	srq = xqp_create_srq(pd_uobj->object, &attr);
	xqp_uobj_put(pd_uobj, XQP_LOOKUP_READ);
	if (IS_ERR(srq)) {
		ret = PTR_ERR(srq);
		xqp_uevent_release(eobj);
		goto err_put_cq;
	}
	uobj->object = srq;
	xqp_srq_set_res_owner(srq, uobj);
	if (cq_uobj)
		xqp_uobj_put(cq_uobj, XQP_LOOKUP_READ);
	if (xrcd_uobj)
		xqp_uobj_put(xrcd_uobj, XQP_LOOKUP_READ);

	memset(&resp, 0, sizeof(resp));
	resp.srq_handle = uobj->id;
	resp.max_wr = attr.attr.max_wr;
	resp.max_sge = attr.attr.max_sge;
	if (req->srq_type == XQP_IB_SRQT_XRC)	/* only then, as ib_uverbs */
		resp.srqn = xqp_srq_num(srq);
	return xqp_cmd_respond_new(cmd, uobj, &resp, sizeof(resp));

err_put_cq:
	if (cq_uobj)
		xqp_uobj_put(cq_uobj, XQP_LOOKUP_READ);
err_put_xrcd:
	if (xrcd_uobj) {
		atomic_dec(&usrq->uxrcd->refcnt);
		xqp_uobj_put(xrcd_uobj, XQP_LOOKUP_READ);
	}
err:
	xqp_uobj_abort(uobj);
	return ret;
}

int xqp_cmd_create_xsrq(struct xqp_cmd *cmd)
{
	struct ib_uverbs_create_xsrq req;
	int ret;

	ret = xqp_cmd_request(cmd, &req, sizeof(req));
	if (ret)
		return ret;
	return create_xsrq(cmd, &req);
}

int xqp_cmd_create_srq(struct xqp_cmd *cmd)
{
	struct ib_uverbs_create_xsrq xreq;
	struct ib_uverbs_create_srq req;
	int ret;

	ret = xqp_cmd_request(cmd, &req, sizeof(req));
	if (ret)
		return ret;
	memset(&xreq, 0, sizeof(xreq));
	xreq.response = req.response;
	xreq.user_handle = req.user_handle;
	xreq.srq_type = XQP_IB_SRQT_BASIC;
	xreq.pd_handle = req.pd_handle;
	xreq.max_wr = req.max_wr;
	xreq.max_sge = req.max_sge;
	xreq.srq_limit = req.srq_limit;
	return create_xsrq(cmd, &xreq);
}

/* MODIFY_SRQ (ib_uverbs_modify_srq()): the mask goes to the core as is. */
int xqp_cmd_modify_srq(struct xqp_cmd *cmd)
{
	struct ib_uverbs_modify_srq req;
	struct xqp_srq_attr attr = {};
	struct xqp_uobj *uobj;
	int ret;

	uobj = xqp_cmd_request_obj(cmd, &req, sizeof(req), &req.srq_handle, XQP_UOBJ_SRQ,
				   XQP_LOOKUP_READ);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	attr.max_wr = req.max_wr;
	attr.srq_limit = req.srq_limit;
	ret = xqp_modify_srq(uobj->object, &attr, (int)req.attr_mask);
	xqp_uobj_put(uobj, XQP_LOOKUP_READ);
	return ret;
}

/* QUERY_SRQ (ib_uverbs_query_srq()); reserved is not looked at, as Linux. */
int xqp_cmd_query_srq(struct xqp_cmd *cmd)
{
	struct ib_uverbs_query_srq_resp resp;
	struct ib_uverbs_query_srq req;
	struct xqp_srq_attr attr;
	struct xqp_uobj *uobj;
	int ret;

	uobj = xqp_cmd_request_obj(cmd, &req, sizeof(req), &req.srq_handle, XQP_UOBJ_SRQ,
				   XQP_LOOKUP_READ);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	ret = xqp_query_srq(uobj->object, &attr);
	xqp_uobj_put(uobj, XQP_LOOKUP_READ);
	if (ret)
		return ret;

	memset(&resp, 0, sizeof(resp));
	resp.max_wr = attr.max_wr;
	resp.max_sge = attr.max_sge;
	resp.srq_limit = attr.srq_limit;
	return xqp_cmd_response(cmd, &resp, sizeof(resp));
}

const struct xqp_uobj_class xqp_uobj_xrcd = {
	.type = XQP_UOBJ_XRCD,
	.size = sizeof(struct xqp_uxrcd),
	.destroy_hw = uxrcd_destroy_hw,
};

static int usrq_destroy_hw(struct xqp_uobj *uobj, enum xqp_remove_reason why)
{
	struct xqp_usrq *usrq = container_of(uobj, struct xqp_usrq, uevent.uobj);
	int ret = xqp_destroy_srq(uobj->object);

	if (!ret)
		xqp_uevent_destroyed(&usrq->uevent, usrq->uxrcd);
	return ret;
}

const struct xqp_uobj_class xqp_uobj_srq = {
	.type = XQP_UOBJ_SRQ,
	.size = sizeof(struct xqp_usrq),
	.destroy_hw = usrq_destroy_hw,
	.destroy_resp = xqp_uevent_destroy_resp,
};
