// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/xqp/uverbsN: one character device per xqp device, a client of the
 * core (ib_uverbs is an ib_client). This file holds the device side (client
 * add/remove, the char device, disassociation on removal) and the file side
 * (open, close, the write() dispatcher with ib_uverbs' header rules).
 */
#include <linux/cred.h>
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <rdma/rdma_user_ioctl_cmds.h>

#include "uverbs.h"
#include "export.h"
#include "../uapi/xqp_uverbs.h"

#define XQP_UVERBS_MAX_DEVICES	32

static dev_t xqp_uverbs_base;
static DEFINE_IDA(xqp_uverbs_ida);

/* ---- the write() dispatcher -------------------------------------------- */

struct xqp_write_method {
	int (*handler)(struct xqp_cmd *cmd);
	/* or: the command destroys a uobject of this class (xqp_cmd_destroy()) */
	const struct xqp_uobj_class *destroys;
	u8 handle_off;	/* where its handle is in the request */
	u16 req_size;
	u16 resp_size;
	u8 has_udata;	/* driver data may follow request and response */
	u8 has_resp;	/* the request starts with the u64 response pointer */
	u8 is_ex;	/* extended header (struct ib_uverbs_ex_cmd_hdr) */
};

#define W_IO(fn, req, resp, udata) \
	{ .handler = fn, .req_size = sizeof(struct req), \
	  .resp_size = sizeof(struct resp), .has_udata = udata, .has_resp = 1 }
#define W_I(fn, req) \
	{ .handler = fn, .req_size = sizeof(struct req) }
/*
 * The destroy commands: the class destroyed, the request's handle field.
 * Their sizes must fit xqp_cmd_destroy()'s buffers: checked at build time.
 */
#define W_DESTROY_REQ(req, field) \
	.handle_off = offsetof(struct req, field), \
	.req_size = sizeof(struct req) + \
		    BUILD_BUG_ON_ZERO(sizeof(struct req) > XQP_DESTROY_REQ_MAX || \
				      offsetofend(struct req, field) > sizeof(struct req) || \
				      sizeof_field(struct req, field) != sizeof(u32))
#define W_DESTROY(req, field, cls) \
	{ .destroys = &cls, W_DESTROY_REQ(req, field) }
#define W_DESTROY_O(req, field, cls, resp) \
	{ .destroys = &cls, W_DESTROY_REQ(req, field), .has_resp = 1, \
	  .resp_size = sizeof(struct resp) + \
		       BUILD_BUG_ON_ZERO(sizeof(struct resp) > XQP_DESTROY_RESP_MAX) }
#define W_I_UDATA(fn, req) \
	{ .handler = fn, .req_size = sizeof(struct req), .has_udata = 1 }

/*
 * Linux's uverbs_def_write_intf, for the commands xqp implements; a slot
 * without a handler is Linux's notsupp method (no size of its own).
 */
static const struct xqp_write_method xqp_write_methods[XQP_UVERBS_NUM_WRITE] = {
	[IB_USER_VERBS_CMD_GET_CONTEXT] = W_IO(xqp_cmd_get_context,
		ib_uverbs_get_context, ib_uverbs_get_context_resp, 1),
	[IB_USER_VERBS_CMD_QUERY_DEVICE] = W_IO(xqp_cmd_query_device,
		ib_uverbs_query_device, ib_uverbs_query_device_resp, 0),
	[IB_USER_VERBS_CMD_QUERY_PORT] = W_IO(xqp_cmd_query_port,
		ib_uverbs_query_port, ib_uverbs_query_port_resp, 0),
	[IB_USER_VERBS_CMD_ALLOC_PD] = W_IO(xqp_cmd_alloc_pd,
		ib_uverbs_alloc_pd, ib_uverbs_alloc_pd_resp, 1),
	[IB_USER_VERBS_CMD_DEALLOC_PD] = W_DESTROY(ib_uverbs_dealloc_pd, pd_handle, xqp_uobj_pd),
	[IB_USER_VERBS_CMD_CREATE_AH] = W_IO(xqp_cmd_create_ah,
		ib_uverbs_create_ah, ib_uverbs_create_ah_resp, 1),
	[IB_USER_VERBS_CMD_DESTROY_AH] = W_DESTROY(ib_uverbs_destroy_ah, ah_handle, xqp_uobj_ah),
	[IB_USER_VERBS_CMD_REG_MR] = W_IO(xqp_cmd_reg_mr,
		ib_uverbs_reg_mr, ib_uverbs_reg_mr_resp, 1),
	[IB_USER_VERBS_CMD_DEREG_MR] = W_DESTROY(ib_uverbs_dereg_mr, mr_handle, xqp_uobj_mr),
	[IB_USER_VERBS_CMD_ALLOC_MW] = W_IO(xqp_cmd_alloc_mw,
		ib_uverbs_alloc_mw, ib_uverbs_alloc_mw_resp, 1),
	[IB_USER_VERBS_CMD_DEALLOC_MW] = W_DESTROY(ib_uverbs_dealloc_mw, mw_handle, xqp_uobj_mw),
	[IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL] = W_IO(xqp_cmd_create_comp_channel,
		ib_uverbs_create_comp_channel, ib_uverbs_create_comp_channel_resp, 0),
	[IB_USER_VERBS_CMD_CREATE_CQ] = W_IO(xqp_cmd_create_cq,
		ib_uverbs_create_cq, ib_uverbs_create_cq_resp, 1),
	[IB_USER_VERBS_CMD_RESIZE_CQ] = W_IO(xqp_cmd_resize_cq,
		ib_uverbs_resize_cq, ib_uverbs_resize_cq_resp, 1),
	[IB_USER_VERBS_CMD_DESTROY_CQ] = W_DESTROY_O(ib_uverbs_destroy_cq, cq_handle,
		xqp_uobj_cq, ib_uverbs_destroy_cq_resp),
	[IB_USER_VERBS_CMD_POLL_CQ] = W_IO(xqp_cmd_poll_cq,
		ib_uverbs_poll_cq, ib_uverbs_poll_cq_resp, 0),
	[IB_USER_VERBS_CMD_REQ_NOTIFY_CQ] = W_I(xqp_cmd_req_notify_cq,
		ib_uverbs_req_notify_cq),
	[IB_USER_VERBS_CMD_CREATE_QP] = W_IO(xqp_cmd_create_qp,
		ib_uverbs_create_qp, ib_uverbs_create_qp_resp, 1),
	[IB_USER_VERBS_CMD_QUERY_QP] = W_IO(xqp_cmd_query_qp,
		ib_uverbs_query_qp, ib_uverbs_query_qp_resp, 0),
	[IB_USER_VERBS_CMD_MODIFY_QP] = W_I(xqp_cmd_modify_qp, ib_uverbs_modify_qp),
	[IB_USER_VERBS_CMD_DESTROY_QP] = W_DESTROY_O(ib_uverbs_destroy_qp, qp_handle,
		xqp_uobj_qp, ib_uverbs_destroy_qp_resp),
	[IB_USER_VERBS_CMD_ATTACH_MCAST] = W_I(xqp_cmd_attach_mcast, ib_uverbs_attach_mcast),
	[IB_USER_VERBS_CMD_DETACH_MCAST] = W_I(xqp_cmd_detach_mcast, ib_uverbs_detach_mcast),
	[IB_USER_VERBS_CMD_POST_SEND] = W_IO(xqp_cmd_post_send,
		ib_uverbs_post_send, ib_uverbs_post_send_resp, 0),
	[IB_USER_VERBS_CMD_POST_RECV] = W_IO(xqp_cmd_post_recv,
		ib_uverbs_post_recv, ib_uverbs_post_recv_resp, 0),
	[IB_USER_VERBS_CMD_CREATE_SRQ] = W_IO(xqp_cmd_create_srq,
		ib_uverbs_create_srq, ib_uverbs_create_srq_resp, 1),
	[IB_USER_VERBS_CMD_MODIFY_SRQ] = W_I_UDATA(xqp_cmd_modify_srq,
		ib_uverbs_modify_srq),
	[IB_USER_VERBS_CMD_QUERY_SRQ] = W_IO(xqp_cmd_query_srq,
		ib_uverbs_query_srq, ib_uverbs_query_srq_resp, 0),
	[IB_USER_VERBS_CMD_DESTROY_SRQ] = W_DESTROY_O(ib_uverbs_destroy_srq, srq_handle,
		xqp_uobj_srq, ib_uverbs_destroy_srq_resp),
	[IB_USER_VERBS_CMD_POST_SRQ_RECV] = W_IO(xqp_cmd_post_srq_recv,
		ib_uverbs_post_srq_recv, ib_uverbs_post_srq_recv_resp, 0),
	[IB_USER_VERBS_CMD_OPEN_XRCD] = W_IO(xqp_cmd_open_xrcd,
		ib_uverbs_open_xrcd, ib_uverbs_open_xrcd_resp, 1),
	[IB_USER_VERBS_CMD_CLOSE_XRCD] = W_DESTROY(ib_uverbs_close_xrcd, xrcd_handle, xqp_uobj_xrcd),
	[IB_USER_VERBS_CMD_CREATE_XSRQ] = W_IO(xqp_cmd_create_xsrq,
		ib_uverbs_create_xsrq, ib_uverbs_create_srq_resp, 1),
	[IB_USER_VERBS_CMD_OPEN_QP] = W_IO(xqp_cmd_open_qp,
		ib_uverbs_open_qp, ib_uverbs_create_qp_resp, 1),
};

/*
 * No extended command is implemented. The four Linux offers on a device
 * like ours keep their header rules, then answer -EOPNOTSUPP; the others
 * are Linux's notsupp method (legacy rules). Like Linux, an extended method
 * has no minimum sizes at the header check (uapi_create_write() records
 * sizes for legacy methods only).
 */
static const struct xqp_write_method xqp_write_ex_methods[XQP_UVERBS_NUM_WRITE_EX] = {
	[IB_USER_VERBS_EX_CMD_QUERY_DEVICE] = { .is_ex = 1 },
	[IB_USER_VERBS_EX_CMD_CREATE_CQ] = { .is_ex = 1 },
	[IB_USER_VERBS_EX_CMD_CREATE_QP] = { .is_ex = 1 },
	[IB_USER_VERBS_EX_CMD_MODIFY_QP] = { .is_ex = 1 },
};

/* uapi_get_method(): which method a command number selects. */
static const struct xqp_write_method *get_method(u32 command)
{
	u32 idx = command & IB_USER_VERBS_CMD_COMMAND_MASK;

	if (command & ~(u32)(IB_USER_VERBS_CMD_FLAG_EXTENDED |
			     IB_USER_VERBS_CMD_COMMAND_MASK))
		return ERR_PTR(-EINVAL);
	if (command & IB_USER_VERBS_CMD_FLAG_EXTENDED)
		return idx < XQP_UVERBS_NUM_WRITE_EX ? &xqp_write_ex_methods[idx] :
						       ERR_PTR(-EOPNOTSUPP);
	return idx < XQP_UVERBS_NUM_WRITE ? &xqp_write_methods[idx] :
					    ERR_PTR(-EOPNOTSUPP);
}

/* verify_hdr(): the lengths and the response of the extended header. */
static int verify_ex_hdr(struct ib_uverbs_cmd_hdr *hdr,
			 struct ib_uverbs_ex_cmd_hdr *ex, size_t count,
			 const struct xqp_write_method *m)
{
	count -= sizeof(*hdr) + sizeof(*ex);
	if (((size_t)hdr->in_words + ex->provider_in_words) * 8 != count)
		return -EINVAL;
	if ((size_t)hdr->in_words * 8 < m->req_size)
		return -ENOSPC;
	if (ex->cmd_hdr_reserved)
		return -EINVAL;
	if (ex->response) {
		if (!hdr->out_words && !ex->provider_out_words)
			return -EINVAL;
		if ((size_t)hdr->out_words * 8 < m->resp_size)
			return -ENOSPC;
		if (!access_ok(u64_to_user_ptr(ex->response),
			       ((size_t)hdr->out_words + ex->provider_out_words) * 8))
			return -EFAULT;
	} else if (hdr->out_words || ex->provider_out_words) {
		return -EINVAL;
	}
	return 0;
}

/* verify_hdr() for a legacy (not extended) method. */
static int verify_hdr(struct ib_uverbs_cmd_hdr *hdr, size_t count,
		      const struct xqp_write_method *m)
{
	if ((size_t)hdr->in_words * 4 != count)
		return -EINVAL;
	if (count < m->req_size + sizeof(*hdr)) {
		/* rdma-core v18/v19 sent DESTROY_CQ in 16 bytes; Linux allows it. */
		if (hdr->command == IB_USER_VERBS_CMD_DESTROY_CQ && count == 16) {
			hdr->in_words = 6;
			return 0;
		}
		return -ENOSPC;
	}
	if ((size_t)hdr->out_words * 4 < m->resp_size)
		return -ENOSPC;
	return 0;
}

static ssize_t xqp_uverbs_write(struct file *filp, const char __user *buf,
				size_t count, loff_t *pos)
{
	struct xqp_ufile *file = filp->private_data;
	struct xqp_uverbs_device *udev = file->udev;
	const struct xqp_write_method *m;
	struct ib_uverbs_cmd_hdr hdr;
	struct xqp_cmd cmd = { .ufile = file };
	int srcu_key;
	int ret;

	/* ib_safe_file_access(): only the opener's credentials may write. */
	if (filp->f_cred != current_cred()) {
		pr_err_once("xqp_uverbs: process %d (%s) changed security contexts after opening the file, this is not allowed\n",
			    task_tgid_vnr(current), current->comm);
		return -EACCES;
	}
	if (count < sizeof(hdr))
		return -EINVAL;
	if (copy_from_user(&hdr, buf, sizeof(hdr)))
		return -EFAULT;
	m = get_method(hdr.command);
	if (IS_ERR(m))
		return PTR_ERR(m);
	if (m->is_ex) {
		struct ib_uverbs_ex_cmd_hdr ex;

		if (count < sizeof(hdr) + sizeof(ex))
			return -EINVAL;
		if (copy_from_user(&ex, buf + sizeof(hdr), sizeof(ex)))
			return -EFAULT;
		ret = verify_ex_hdr(&hdr, &ex, count, m);
	} else {
		ret = verify_hdr(&hdr, count, m);
	}
	if (ret)
		return ret;
	if (!m->handler && !m->destroys)
		return -EOPNOTSUPP;	/* ib_uverbs_notsupp() */

	srcu_key = srcu_read_lock(&udev->disassociate_srcu);
	cmd.xdev = srcu_dereference(udev->xdev, &udev->disassociate_srcu);
	if (!cmd.xdev) {
		ret = -EIO;
		goto out;
	}
	cmd.inbuf = buf + sizeof(hdr);
	cmd.inlen = (size_t)hdr.in_words * 4 - sizeof(hdr);
	cmd.outlen = (size_t)hdr.out_words * 4;
	if (m->has_udata)
		cmd.inlen = m->req_size;	/* the driver data is not used */
	if (m->has_resp) {
		u64 response;

		if (get_user(response, (const u64 __user *)cmd.inbuf)) {
			ret = -EFAULT;
			goto out;
		}
		cmd.outbuf = u64_to_user_ptr(response);
		if (m->has_udata)
			cmd.outlen = m->resp_size;
	} else {
		cmd.outlen = 0;
	}
	if (m->destroys)
		ret = xqp_cmd_destroy(&cmd, m->destroys, m->req_size, m->handle_off,
				      m->resp_size);
	else
		ret = m->handler(&cmd);
out:
	srcu_read_unlock(&udev->disassociate_srcu, srcu_key);
	return ret ? ret : (ssize_t)count;
}

/* ---- the test hook ioctl ----------------------------------------------- */

/*
 * The event-raising ioctls exist for the acceptance suite only: off by
 * default, so a production load has no test entry point (the ioctls then
 * answer ENOTTY, like any other).
 */
static bool test_hooks;
module_param(test_hooks, bool, 0444);
MODULE_PARM_DESC(test_hooks,
		 "enable the event-raising test ioctls on /dev/xqp/uverbsN (CAP_SYS_ADMIN; default off)");

static long xqp_uverbs_ioctl(struct file *filp, unsigned int ioc, unsigned long arg)
{
	struct xqp_ufile *file = filp->private_data;
	struct xqp_uverbs_device *udev = file->udev;
	struct xqp_uverbs_raise_event req;
	struct xqp_uobj *uobj;
	unsigned long flags;
	enum xqp_uobj_type type;
	int srcu_key;
	long ret;

	if (ioc == RDMA_VERBS_IOCTL)
		return xqp_uverbs_verbs_ioctl(file, (struct ib_uverbs_ioctl_hdr __user *)arg);
	switch (ioc) {
	case XQP_UVERBS_IOC_RAISE_QP_EVENT:
		type = XQP_UOBJ_QP;
		break;
	case XQP_UVERBS_IOC_RAISE_CQ_EVENT:
		type = XQP_UOBJ_CQ;
		break;
	case XQP_UVERBS_IOC_RAISE_SRQ_EVENT:
		type = XQP_UOBJ_SRQ;
		break;
	default:
		return -ENOTTY;
	}
	if (!test_hooks)
		return -ENOTTY;
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (copy_from_user(&req, (void __user *)arg, sizeof(req)))
		return -EFAULT;
	if (req.reserved || req.event_type > XQP_EVENT_WQ_FATAL)
		return -EINVAL;

	srcu_key = srcu_read_lock(&udev->disassociate_srcu);
	if (!srcu_dereference(udev->xdev, &udev->disassociate_srcu)) {
		ret = -EIO;
		goto out;
	}
	if (!smp_load_acquire(&file->has_context)) {
		ret = -EINVAL;
		goto out;
	}
	uobj = xqp_uobj_get(file, type, req.handle, XQP_LOOKUP_READ);
	if (IS_ERR(uobj)) {
		ret = PTR_ERR(uobj);
		goto out;
	}
	/*
	 * As a device would: from atomic context; for a QP, to every share of
	 * it. The read lookup keeps the object from being destroyed meanwhile.
	 */
	local_irq_save(flags);
	if (type == XQP_UOBJ_QP)
		xqp_qp_event(xqp_qp_real(uobj->object), req.event_type);
	else if (type == XQP_UOBJ_CQ)
		xqp_cq_event(uobj->object, req.event_type);
	else
		xqp_srq_event(uobj->object, req.event_type);
	local_irq_restore(flags);
	xqp_uobj_put(uobj, XQP_LOOKUP_READ);
	ret = 0;
out:
	srcu_read_unlock(&udev->disassociate_srcu, srcu_key);
	return ret;
}

/* ---- open / close ------------------------------------------------------ */

static void ufile_free(struct kref *ref)
{
	struct xqp_ufile *file = container_of(ref, struct xqp_ufile, ref);

	xqp_ufile_release_idr(file);
	if (file->async_file)
		xqp_event_file_put(file->async_file);
	put_device(&file->udev->dev);
	mutex_destroy(&file->comp_mutex);
	kfree(file);
}

/**
 * xqp_ufile_put - drop a reference on a file (a completion channel's).
 * @ufile: the file; freed with its last reference.
 */
void xqp_ufile_put(struct xqp_ufile *ufile)
{
	kref_put(&ufile->ref, ufile_free);
}

static int xqp_uverbs_open(struct inode *inode, struct file *filp)
{
	struct xqp_uverbs_device *udev =
		container_of(inode->i_cdev, struct xqp_uverbs_device, cdev);
	struct xqp_ufile *file;
	int srcu_key;
	int ret;

	get_device(&udev->dev);
	srcu_key = srcu_read_lock(&udev->disassociate_srcu);
	mutex_lock(&udev->lists_mutex);
	if (!srcu_dereference(udev->xdev, &udev->disassociate_srcu)) {
		ret = -EIO;
		goto err;
	}
	file = kzalloc(sizeof(*file), GFP_KERNEL_ACCOUNT);
	if (!file) {
		ret = -ENOMEM;
		goto err;
	}
	kref_init(&file->ref);
	file->udev = udev;
	mutex_init(&file->ucontext_lock);
	mutex_init(&file->cleanup_mutex);
	xa_init_flags(&file->idr, XA_FLAGS_ALLOC);
	spin_lock_init(&file->uobjects_lock);
	INIT_LIST_HEAD(&file->uobjects);
	mutex_init(&file->comp_mutex);
	INIT_LIST_HEAD(&file->comp_channels);
	init_waitqueue_head(&file->poll_wq);
	list_add_tail(&file->list, &udev->files);
	mutex_unlock(&udev->lists_mutex);
	srcu_read_unlock(&udev->disassociate_srcu, srcu_key);

	filp->private_data = file;
	return stream_open(inode, filp);

err:
	mutex_unlock(&udev->lists_mutex);
	srcu_read_unlock(&udev->disassociate_srcu, srcu_key);
	put_device(&udev->dev);
	return ret;
}

/*
 * Last close of the file (every process that shared it, fork included, has
 * closed it or died): destroy everything it holds. Other files' shares of
 * the same shared QPs keep those QPs alive.
 */
static int xqp_uverbs_close(struct inode *inode, struct file *filp)
{
	struct xqp_ufile *file = filp->private_data;
	struct xqp_uverbs_device *udev = file->udev;

	/* Still on the device's list: a removal in progress waits for this. */
	xqp_ufile_cleanup(file, XQP_REMOVE_CLOSE);
	mutex_lock(&udev->lists_mutex);
	list_del_init(&file->list);
	mutex_unlock(&udev->lists_mutex);
	kref_put(&file->ref, ufile_free);
	return 0;
}

static const struct file_operations xqp_uverbs_fops = {
	.owner = THIS_MODULE,
	.write = xqp_uverbs_write,
	.open = xqp_uverbs_open,
	.release = xqp_uverbs_close,
	.unlocked_ioctl = xqp_uverbs_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
};

/* ---- the device side --------------------------------------------------- */

static ssize_t ibdev_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%s\n", (const char *)dev_get_drvdata(dev));
}
static DEVICE_ATTR_RO(ibdev);

static struct attribute *xqp_uverbs_dev_attrs[] = {
	&dev_attr_ibdev.attr,
	NULL,
};
ATTRIBUTE_GROUPS(xqp_uverbs_dev);

static ssize_t abi_version_show(XQP_CLASS_CONST struct class *class,
				XQP_CLASS_CONST struct class_attribute *attr,
				char *buf)
{
	return sysfs_emit(buf, "%d\n", IB_USER_VERBS_ABI_VERSION);
}
static CLASS_ATTR_RO(abi_version);

static struct attribute *xqp_uverbs_class_attrs[] = {
	&class_attr_abi_version.attr,
	NULL,
};
ATTRIBUTE_GROUPS(xqp_uverbs_class);

static char *xqp_uverbs_devnode(XQP_DEVNODE_CONST struct device *dev,
				umode_t *mode)
{
	if (mode)
		*mode = 0666;
	return kasprintf(GFP_KERNEL, "xqp/%s", dev_name(dev));
}

static XQP_CLASS_CONST struct class xqp_uverbs_class = {
	.name = XQP_UVERBS_CLASS,
	.devnode = xqp_uverbs_devnode,
	.class_groups = xqp_uverbs_class_groups,
};

struct xqp_uverbs_dev_alloc {
	struct xqp_uverbs_device udev;
	char name[64];
};

static void xqp_uverbs_dev_release(struct device *dev)
{
	struct xqp_uverbs_device *udev =
		container_of(dev, struct xqp_uverbs_device, dev);

	cleanup_srcu_struct(&udev->disassociate_srcu);
	mutex_destroy(&udev->lists_mutex);
	mutex_destroy(&udev->xrcd_tree_mutex);
	mutex_destroy(&udev->parked_mutex);
	kfree(container_of(udev, struct xqp_uverbs_dev_alloc, udev));
}

/* A device was registered with the core: give it /dev/xqp/uverbsN. */
static void *xqp_uverbs_add(struct xqp_device *xdev)
{
	struct xqp_uverbs_dev_alloc *a;
	struct xqp_uverbs_device *udev;
	int ret;

	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return ERR_PTR(-ENOMEM);
	udev = &a->udev;
	strscpy(a->name, xqp_device_name(xdev), sizeof(a->name));
	ret = init_srcu_struct(&udev->disassociate_srcu);
	if (ret) {
		kfree(a);
		return ERR_PTR(ret);
	}
	udev->devnum = ida_alloc_max(&xqp_uverbs_ida, XQP_UVERBS_MAX_DEVICES - 1,
				     GFP_KERNEL);
	if (udev->devnum < 0) {
		ret = udev->devnum;
		cleanup_srcu_struct(&udev->disassociate_srcu);
		kfree(a);
		return ERR_PTR(ret);
	}
	RCU_INIT_POINTER(udev->xdev, xdev);
	mutex_init(&udev->lists_mutex);
	INIT_LIST_HEAD(&udev->files);
	mutex_init(&udev->xrcd_tree_mutex);
	udev->xrcd_tree = RB_ROOT;
	mutex_init(&udev->parked_mutex);
	INIT_LIST_HEAD(&udev->parked);

	device_initialize(&udev->dev);
	udev->dev.class = &xqp_uverbs_class;
	udev->dev.devt = MKDEV(MAJOR(xqp_uverbs_base), udev->devnum);
	udev->dev.release = xqp_uverbs_dev_release;
	udev->dev.groups = xqp_uverbs_dev_groups;
	dev_set_drvdata(&udev->dev, a->name);
	ret = dev_set_name(&udev->dev, "uverbs%d", udev->devnum);
	if (ret)
		goto err;
	cdev_init(&udev->cdev, &xqp_uverbs_fops);
	udev->cdev.owner = THIS_MODULE;
	ret = cdev_device_add(&udev->cdev, &udev->dev);
	if (ret)
		goto err;
	dev_info(&udev->dev, "/dev/xqp/%s for %s\n", dev_name(&udev->dev), a->name);
	return udev;

err:
	ida_free(&xqp_uverbs_ida, udev->devnum);
	put_device(&udev->dev);
	return ERR_PTR(ret);
}

/*
 * The device goes away (called before the core tears its objects down):
 * fence off running commands, then destroy what every open file holds
 * through the ordinary calls. The files stay open: later commands get -EIO,
 * async readers get IB_EVENT_DEVICE_FATAL then -EIO, close works.
 */
static void xqp_uverbs_remove(struct xqp_device *xdev, void *client_data)
{
	struct xqp_uverbs_device *udev = client_data;
	struct xqp_ufile *file;

	rcu_assign_pointer(udev->xdev, NULL);
	synchronize_srcu(&udev->disassociate_srcu);
	cdev_device_del(&udev->cdev, &udev->dev);
	ida_free(&xqp_uverbs_ida, udev->devnum);

	mutex_lock(&udev->lists_mutex);
	while (!list_empty(&udev->files)) {
		file = list_first_entry(&udev->files, struct xqp_ufile, list);
		list_del_init(&file->list);
		kref_get(&file->ref);
		mutex_unlock(&udev->lists_mutex);

		xqp_ufile_cleanup(file, XQP_REMOVE_DRIVER);
		kref_put(&file->ref, ufile_free);

		mutex_lock(&udev->lists_mutex);
	}
	mutex_unlock(&udev->lists_mutex);
	/* What drivers refused at earlier closes: once more, then reported. */
	xqp_uverbs_retry_parked(udev, XQP_REMOVE_DRIVER, true);
	put_device(&udev->dev);
}

/*
 * A device event (a port's state, its GID table): every file with a
 * context gets it on its async fd, the element the port number, as each
 * ucontext's ib_uverbs_event_handler() queues it in Linux.
 */
static void xqp_uverbs_device_event(struct xqp_device *xdev, void *client_data,
				    struct xqp_event *event)
{
	struct xqp_uverbs_device *udev = client_data;
	struct xqp_ufile *file;

	mutex_lock(&udev->lists_mutex);
	list_for_each_entry(file, &udev->files, list)
		if (smp_load_acquire(&file->has_context))
			xqp_async_event(file->async_file, event->element.port_num,
					event->event, NULL, NULL);
	mutex_unlock(&udev->lists_mutex);
}

struct xqp_client xqp_uverbs_client = {
	.name = "uverbs",
	.add = xqp_uverbs_add,
	.remove = xqp_uverbs_remove,
	.event = xqp_uverbs_device_event,
};

/**
 * xqp_uverbs_get_device - the device behind /dev/xqp/uverbsN, referenced.
 * @xdev: an xqp device.
 *
 * For another client's add() (clients are added in registration order, so
 * the char device exists by then) and anything it holds until its remove()
 * (called before this client's).
 *
 * Context: may sleep.
 * Return: the struct device (put_device() it), or NULL if @xdev has no
 * char device.
 */
struct device *xqp_uverbs_get_device(struct xqp_device *xdev)
{
	struct xqp_uverbs_device *udev = xqp_get_client_data(xdev, &xqp_uverbs_client);

	return udev ? get_device(&udev->dev) : NULL;
}
EXPORT_SYMBOL_GPL(xqp_uverbs_get_device);

int xqp_uverbs_init(void)
{
	int ret;

	ret = alloc_chrdev_region(&xqp_uverbs_base, 0, XQP_UVERBS_MAX_DEVICES,
				  XQP_UVERBS_CLASS);
	if (ret)
		return ret;
	ret = class_register(&xqp_uverbs_class);
	if (ret)
		goto err_region;
	ret = xqp_register_client(&xqp_uverbs_client);
	if (ret)
		goto err_class;
	return 0;

err_class:
	class_unregister(&xqp_uverbs_class);
err_region:
	unregister_chrdev_region(xqp_uverbs_base, XQP_UVERBS_MAX_DEVICES);
	return ret;
}

void xqp_uverbs_exit(void)
{
	xqp_unregister_client(&xqp_uverbs_client);
	class_unregister(&xqp_uverbs_class);
	unregister_chrdev_region(xqp_uverbs_base, XQP_UVERBS_MAX_DEVICES);
}
