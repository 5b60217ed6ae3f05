// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl face of /dev/xqp/uverbsN: RDMA_VERBS_IOCTL (ib_uverbs_ioctl())
 * with the two methods libibverbs reads GID tables by, the device object's
 * QUERY_GID_ENTRY (ibv_query_gid(), ibv_query_gid_ex(),
 * ibv_query_gid_type()) and QUERY_GID_TABLE (ibv_query_gid_table()).
 * Without them libibverbs falls back to sysfs, several files per entry:
 * a walk of a linked device's 1,024 entries (perftest's GID choice,
 * libfabric's verbs provider, ibv_devinfo -v) took 18 times rxe's.
 *
 * Every other object or method is EPROTONOSUPPORT, Linux's answer for a
 * method it does not have: libibverbs then keeps write() for that command,
 * and its probe at context set-up (INVOKE_WRITE) keeps write() for every
 * write-ABI command, as before. The header and attributes are checked as
 * ib_uverbs checks them; a method needs GET_CONTEXT first (EINVAL) and a
 * device that is still there (EIO).
 */
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "uverbs.h"

#define XQP_IOCTL_MAX_ATTRS	8	/* the methods here take 4 */

struct xqp_ioctl {
	struct xqp_device *xdev;
	struct ib_uverbs_ioctl_hdr hdr;
	struct ib_uverbs_attr __user *uattrs;
	struct ib_uverbs_attr attrs[XQP_IOCTL_MAX_ATTRS];
};

/* The method's attribute @id, or NULL. */
static struct ib_uverbs_attr *ioctl_attr(struct xqp_ioctl *io, u16 id)
{
	u16 i;

	for (i = 0; i < io->hdr.num_attrs; i++)
		if (io->attrs[i].attr_id == id)
			return &io->attrs[i];
	return NULL;
}

/*
 * A constant or flags attribute (its value inline, 4 or 8 bytes), which
 * the method requires. Flags must be within @allowed.
 */
static int ioctl_get_in(struct xqp_ioctl *io, u16 id, u64 allowed, u64 *val)
{
	struct ib_uverbs_attr *a = ioctl_attr(io, id);

	if (!a || (a->len != sizeof(u32) && a->len != sizeof(u64)) || a->attr_data.reserved)
		return -EINVAL;
	*val = a->len == sizeof(u32) ? (u32)a->data : a->data;
	if (*val & ~allowed)
		return -EINVAL;
	return 0;
}

/* An output attribute the method requires, at least @min_len bytes. */
static struct ib_uverbs_attr *ioctl_out(struct xqp_ioctl *io, u16 id, size_t min_len)
{
	struct ib_uverbs_attr *a = ioctl_attr(io, id);

	if (!a || a->len < min_len || a->attr_data.reserved)
		return NULL;
	return a;
}

/*
 * Writes @size bytes to @len bytes of user memory at @to, zero-filling the
 * rest (uverbs_copy_to_struct_or_zero()'s rule).
 */
static int ioctl_write(u64 to, u32 len, const void *from, size_t size)
{
	void __user *p = u64_to_user_ptr(to);
	size_t n = min_t(size_t, len, size);

	if (copy_to_user(p, from, n))
		return -EFAULT;
	if (len > n && clear_user(p + n, len - n))
		return -EFAULT;
	return 0;
}

/* Output @a was written: UVERBS_ATTR_F_VALID_OUTPUT in the caller's copy. */
static int ioctl_mark(struct xqp_ioctl *io, struct ib_uverbs_attr *a)
{
	a->flags |= UVERBS_ATTR_F_VALID_OUTPUT;
	return put_user(a->flags, &io->uattrs[a - io->attrs].flags) ? -EFAULT : 0;
}

static int ioctl_copy_out(struct xqp_ioctl *io, struct ib_uverbs_attr *a,
			  const void *from, size_t size)
{
	return ioctl_write(a->data, a->len, from, size) ?: ioctl_mark(io, a);
}

static void ioctl_gid_entry(struct ib_uverbs_gid_entry *out, u32 port, u32 index,
			    const struct xqp_gid_entry *e)
{
	memset(out, 0, sizeof(*out));
	memcpy(out->gid, e->gid, sizeof(out->gid));
	out->gid_index = index;
	out->port_num = port;
	out->gid_type = e->gid_type;
	out->netdev_ifindex = e->ndev_ifindex;
}

/* UVERBS_METHOD_QUERY_GID_ENTRY: one entry; ENODATA when it is empty. */
static int ioctl_query_gid_entry(struct xqp_ioctl *io)
{
	struct ib_uverbs_gid_entry out;
	struct ib_uverbs_attr *resp;
	struct xqp_gid_entry e;
	u64 port, index, flags;
	int ret;

	ret = ioctl_get_in(io, UVERBS_ATTR_QUERY_GID_ENTRY_FLAGS, 0, &flags) ?:
	      ioctl_get_in(io, UVERBS_ATTR_QUERY_GID_ENTRY_PORT, U32_MAX, &port) ?:
	      ioctl_get_in(io, UVERBS_ATTR_QUERY_GID_ENTRY_GID_INDEX, INT_MAX, &index);
	if (ret)
		return ret;
	resp = ioctl_out(io, UVERBS_ATTR_QUERY_GID_ENTRY_RESP_ENTRY,
			 offsetofend(struct ib_uverbs_gid_entry, netdev_ifindex));
	if (!resp)
		return -EINVAL;
	ret = xqp_query_gid_entry(io->xdev, port, index, &e);
	if (ret)
		return ret;
	ioctl_gid_entry(&out, port, index, &e);
	return ioctl_copy_out(io, resp, &out, sizeof(out));
}

/*
 * UVERBS_METHOD_QUERY_GID_TABLE: every valid entry of every port, each at
 * the caller's entry size (truncated or zero-filled), at most as many as
 * the output holds (EINVAL if there are more), and their count.
 */
static int ioctl_query_gid_table(struct xqp_ioctl *io)
{
	struct ib_uverbs_attr *resp, *count;
	struct ib_uverbs_gid_entry out;
	struct xqp_device_attr dattr;
	struct xqp_port_attr pattr;
	u64 entry_size, flags, max, n = 0;
	struct xqp_gid_entry e;
	u32 port, i;
	int ret;

	/* the flags are optional here, as in ib_uverbs */
	flags = 0;
	ret = ioctl_get_in(io, UVERBS_ATTR_QUERY_GID_TABLE_ENTRY_SIZE, U16_MAX, &entry_size);
	if (!ret && ioctl_attr(io, UVERBS_ATTR_QUERY_GID_TABLE_FLAGS))
		ret = ioctl_get_in(io, UVERBS_ATTR_QUERY_GID_TABLE_FLAGS, 0, &flags);
	if (ret)
		return ret;
	resp = ioctl_out(io, UVERBS_ATTR_QUERY_GID_TABLE_RESP_ENTRIES, 1);
	count = ioctl_out(io, UVERBS_ATTR_QUERY_GID_TABLE_RESP_NUM_ENTRIES, sizeof(u64));
	if (!resp || !count || !entry_size || resp->len % entry_size)
		return -EINVAL;
	max = resp->len / entry_size;
	ret = xqp_query_device(io->xdev, &dattr);
	for (port = 1; port <= dattr.phys_port_cnt && !ret; port++) {
		ret = xqp_query_port(io->xdev, port, &pattr);
		for (i = 0; i < pattr.gid_tbl_len && !ret; i++) {
			ret = xqp_query_gid_entry(io->xdev, port, i, &e);
			if (ret == -ENODATA) {
				ret = 0;
				continue;
			}
			if (!ret && n == max)
				ret = -EINVAL;	/* more entries than room */
			if (ret)
				break;
			ioctl_gid_entry(&out, port, i, &e);
			ret = ioctl_write(resp->data + n * entry_size, entry_size, &out, sizeof(out));
			n++;
		}
	}
	return ret ?: ioctl_mark(io, resp) ?: ioctl_copy_out(io, count, &n, sizeof(n));
}

typedef int (*xqp_ioctl_method_t)(struct xqp_ioctl *io);

/*
 * The methods xqp has, or NULL. Asked before anything else, so that
 * libibverbs' probe (INVOKE_WRITE) and its ioctl forms of write-ABI
 * commands (GET_CONTEXT, before any context) get EPROTONOSUPPORT and use
 * write().
 */
static xqp_ioctl_method_t ioctl_method(const struct ib_uverbs_ioctl_hdr *hdr)
{
	if (hdr->object_id != UVERBS_OBJECT_DEVICE)
		return NULL;
	switch (hdr->method_id) {
	case UVERBS_METHOD_QUERY_GID_ENTRY:
		return ioctl_query_gid_entry;
	case UVERBS_METHOD_QUERY_GID_TABLE:
		return ioctl_query_gid_table;
	}
	return NULL;
}

/* Checks the attributes as ib_uverbs does, and runs @method. */
static long ioctl_dispatch(struct xqp_ioctl *io, xqp_ioctl_method_t method)
{
	u16 i, j;

	for (i = 0; i < io->hdr.num_attrs; i++) {
		if (io->attrs[i].flags & ~(UVERBS_ATTR_F_MANDATORY | UVERBS_ATTR_F_VALID_OUTPUT))
			return -EINVAL;
		for (j = 0; j < i; j++)
			if (io->attrs[j].attr_id == io->attrs[i].attr_id)
				return -EINVAL;
	}
	return method(io);
}

/**
 * xqp_uverbs_verbs_ioctl - RDMA_VERBS_IOCTL on a file of /dev/xqp/uverbsN.
 * @file: the file.
 * @uhdr: the caller's header, its attributes following it.
 *
 * Context: process; may sleep.
 * Return: 0, or a negative errno (above; EPROTONOSUPPORT for a method xqp
 * does not have).
 */
long xqp_uverbs_verbs_ioctl(struct xqp_ufile *file, struct ib_uverbs_ioctl_hdr __user *uhdr)
{
	struct xqp_uverbs_device *udev = file->udev;
	xqp_ioctl_method_t method;
	struct xqp_ioctl *io;
	int srcu_key;
	long ret;

	io = kzalloc(sizeof(*io), GFP_KERNEL_ACCOUNT);
	if (!io)
		return -ENOMEM;
	ret = -EFAULT;
	if (copy_from_user(&io->hdr, uhdr, sizeof(io->hdr)))
		goto out;
	ret = -EINVAL;
	if (io->hdr.length != struct_size(&io->hdr, attrs, io->hdr.num_attrs))
		goto out;
	method = ioctl_method(&io->hdr);
	ret = -EPROTONOSUPPORT;	/* reserved: as ib_uverbs, neither is in use yet */
	if (io->hdr.reserved1 || io->hdr.reserved2 || !method)
		goto out;
	ret = -EINVAL;
	if (io->hdr.num_attrs > XQP_IOCTL_MAX_ATTRS)
		goto out;
	io->uattrs = uhdr->attrs;
	ret = -EFAULT;
	if (copy_from_user(io->attrs, io->uattrs, io->hdr.num_attrs * sizeof(io->attrs[0])))
		goto out;

	srcu_key = srcu_read_lock(&udev->disassociate_srcu);
	io->xdev = srcu_dereference(udev->xdev, &udev->disassociate_srcu);
	if (!io->xdev)
		ret = -EIO;
	else if (!smp_load_acquire(&file->has_context))
		ret = -EINVAL;
	else
		ret = ioctl_dispatch(io, method);
	srcu_read_unlock(&udev->disassociate_srcu, srcu_key);
out:
	kfree(io);
	return ret;
}
