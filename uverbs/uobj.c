// SPDX-License-Identifier: GPL-2.0
/*
 * The per-file object table (rdma_core.c's idr class, for the write ABI).
 *
 * Handles are the indices of one xarray per file, allocated lowest-free
 * first across all object types, as ib_uverbs does, so that the same
 * sequence of commands yields the same handle numbers on both. Looking up a
 * handle that is free or not yet committed gives -ENOENT, one of another
 * type -EINVAL, one locked by a concurrent command -EBUSY. An object is in
 * the xarray from its allocation on (one xarray operation per create, where
 * ib_uverbs reserves the slot and stores into it later); lookups skip it
 * until xqp_uobj_commit() marks it committed.
 *
 * Each object is locked for the duration of a command that uses it: shared
 * (usecnt > 0) by commands that only read it, exclusive (usecnt == -1) while
 * it is created or destroyed. Objects are freed an RCU grace period after
 * their last reference, so a lookup under rcu_read_lock() is safe.
 */
#include <linux/cred.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "uverbs.h"

static void uobj_free(struct kref *ref)
{
	kfree_rcu(container_of(ref, struct xqp_uobj, ref), rcu);
}

/**
 * xqp_uobj_alloc - start creating an object: reserve its handle.
 * The object is invisible to lookups until xqp_uobj_commit().
 * Return: the object (zeroed past the common header), or ERR_PTR(-EINVAL
 * without a context, -EIO after device removal, -ENOMEM).
 */
struct xqp_uobj *xqp_uobj_alloc(struct xqp_cmd *cmd, const struct xqp_uobj_class *cls)
{
	struct xqp_uobj *uobj;
	int ret;

	ret = xqp_cmd_need_context(cmd);
	if (ret)
		return ERR_PTR(ret);
	uobj = kzalloc(cls->size, GFP_KERNEL_ACCOUNT);
	if (!uobj)
		return ERR_PTR(-ENOMEM);
	kref_init(&uobj->ref);
	atomic_set(&uobj->usecnt, -1);
	uobj->type = cls->type;
	uobj->cls = cls;
	uobj->ufile = cmd->ufile;
	uobj->owner_pid = task_tgid_nr(current);
	uobj->owner_uid = current_euid();
	/*
	 * The caller's own name, read without task_lock(): it is always
	 * NUL-terminated and at worst torn by a concurrent rename, which only
	 * changes what `xqp res` shows (Linux 6.13's get_task_comm() reads it so).
	 */
	strscpy_pad(uobj->owner_comm, current->comm, sizeof(uobj->owner_comm));
	INIT_LIST_HEAD(&uobj->list);
	ret = xa_alloc(&cmd->ufile->idr, &uobj->id, uobj, xa_limit_32b,
		       GFP_KERNEL_ACCOUNT);
	if (ret) {
		kfree(uobj);
		return ERR_PTR(ret);
	}
	return uobj;
}

/**
 * xqp_uobj_commit - publish a created object under its handle: lookups find
 * it from now on (the release pairs with xqp_uobj_get()'s acquire, so they
 * see it whole).
 */
void xqp_uobj_commit(struct xqp_uobj *uobj)
{
	struct xqp_ufile *ufile = uobj->ufile;

	spin_lock(&ufile->uobjects_lock);
	list_add(&uobj->list, &ufile->uobjects);
	spin_unlock(&ufile->uobjects_lock);
	atomic_set(&uobj->usecnt, 0);
	smp_store_release(&uobj->committed, true);
}

/**
 * xqp_cmd_respond_new - answer a create command, then publish its object.
 * @cmd: the command.
 * @uobj: the object just created, not yet committed.
 * @resp: the response, @len bytes.
 *
 * If the response cannot be written, the object is destroyed again and
 * forgotten (ib_uverbs' uobj_alloc_abort path), so a user who never saw
 * the handle leaves nothing behind. If the driver refuses that destroy,
 * the object is committed under its handle instead, as
 * rdma_alloc_abort_uobject() does: the core still points at it (a QP's
 * handle has it as context and uobject), so it must stay alive and owned;
 * the user may destroy it by handle, and closing the file retries. The
 * command fails all the same.
 * Return: 0, or the error of xqp_cmd_response().
 */
int xqp_cmd_respond_new(struct xqp_cmd *cmd, struct xqp_uobj *uobj,
			const void *resp, size_t len)
{
	int ret = xqp_cmd_response(cmd, resp, len);
	int err;

	if (ret) {
		err = xqp_uobj_destroy_hw(uobj, XQP_REMOVE_ABORT);
		if (err)
			xqp_uobj_keep_refused(uobj, err);
		else
			xqp_uobj_abort(uobj);
		return ret;
	}
	xqp_uobj_commit(uobj);
	return 0;
}

/**
 * xqp_uobj_keep_refused - a command failed after making its object, and
 * the driver refused to destroy it (@err): the object stays the file's,
 * committed, so its owner may destroy it and the file's close does (Linux
 * would forget it and leak the driver's object).
 */
void xqp_uobj_keep_refused(struct xqp_uobj *uobj, int err)
{
	pr_warn_ratelimited("xqp_uverbs: object %u (type %d) kept: the driver refused its destroy (%d) when its command failed\n",
			    uobj->id, uobj->type, err);
	xqp_uobj_commit(uobj);
}

/** xqp_uobj_abort - forget an object that was never committed. */
void xqp_uobj_abort(struct xqp_uobj *uobj)
{
	xa_erase(&uobj->ufile->idr, uobj->id);
	kref_put(&uobj->ref, uobj_free);
}

static int uobj_try_lock(struct xqp_uobj *uobj, enum xqp_lookup_mode mode)
{
	switch (mode) {
	case XQP_LOOKUP_READ:
		return atomic_fetch_add_unless(&uobj->usecnt, 1, -1) == -1 ? -EBUSY : 0;
	case XQP_LOOKUP_WRITE:
		return atomic_cmpxchg(&uobj->usecnt, 0, -1) == 0 ? 0 : -EBUSY;
	case XQP_LOOKUP_DESTROY:
		return 0;
	}
	return 0;
}

/**
 * xqp_uobj_get - look up a handle of this file and lock the object.
 * Return: the object (pair with xqp_uobj_put() in the same mode), or
 * ERR_PTR(-ENOENT: no such handle; -EINVAL: another type; -EBUSY: locked by
 * a concurrent command).
 */
struct xqp_uobj *xqp_uobj_get(struct xqp_ufile *ufile, enum xqp_uobj_type type,
			      u32 id, enum xqp_lookup_mode mode)
{
	struct xqp_uobj *uobj;
	int ret;

	rcu_read_lock();
	uobj = xa_load(&ufile->idr, id);
	if (!uobj || !smp_load_acquire(&uobj->committed) ||
	    !kref_get_unless_zero(&uobj->ref))
		uobj = ERR_PTR(-ENOENT);
	rcu_read_unlock();
	if (IS_ERR(uobj))
		return uobj;
	ret = uobj->type == type ? uobj_try_lock(uobj, mode) : -EINVAL;
	if (ret) {
		kref_put(&uobj->ref, uobj_free);
		return ERR_PTR(ret);
	}
	return uobj;
}

/* Unlocks an object looked up in @mode; its reference stays (xqp_uobj_unref()). */
void xqp_uobj_unlock(struct xqp_uobj *uobj, enum xqp_lookup_mode mode)
{
	switch (mode) {
	case XQP_LOOKUP_READ:
		atomic_dec(&uobj->usecnt);
		break;
	case XQP_LOOKUP_WRITE:
		atomic_set(&uobj->usecnt, 0);
		break;
	case XQP_LOOKUP_DESTROY:
		break;
	}
}

/*
 * Locks again, in @mode, an object that xqp_uobj_unlock() left referenced:
 * 0 if it is still the live object of its handle, else -EBUSY (locked by a
 * command, or destroyed: a destroyed object stays write-locked) or -ENOENT.
 * Unlike a new lookup by handle, it never finds another object that took
 * the handle meanwhile.
 */
int xqp_uobj_relock(struct xqp_uobj *uobj, enum xqp_lookup_mode mode)
{
	int ret = uobj_try_lock(uobj, mode);

	if (ret)
		return ret;
	if (!READ_ONCE(uobj->object)) {
		xqp_uobj_unlock(uobj, mode);
		return -ENOENT;
	}
	return 0;
}

void xqp_uobj_unref(struct xqp_uobj *uobj)
{
	kref_put(&uobj->ref, uobj_free);
}

void xqp_uobj_put(struct xqp_uobj *uobj, enum xqp_lookup_mode mode)
{
	xqp_uobj_unlock(uobj, mode);
	xqp_uobj_unref(uobj);
}

/* Drops the object from the table and the list; the table's reference goes. */
static void uobj_remove(struct xqp_uobj *uobj)
{
	struct xqp_ufile *ufile = uobj->ufile;

	xa_erase(&ufile->idr, uobj->id);
	spin_lock(&ufile->uobjects_lock);
	list_del_init(&uobj->list);
	spin_unlock(&ufile->uobjects_lock);
	kref_put(&uobj->ref, uobj_free);
}

/* The type's destroy (its class's hook); on error nothing changed. */
int xqp_uobj_destroy_hw(struct xqp_uobj *uobj, enum xqp_remove_reason why)
{
	int ret = uobj->cls->destroy_hw(uobj, why);

	if (!ret)
		uobj->object = NULL;
	return ret;
}

/**
 * xqp_uobj_get_destroy - destroy the object behind a handle (DESTROY_*,
 * DEALLOC_*, CLOSE_XRCD). The handle is free when this returns.
 * Return: the object, still referenced so that the caller can read its
 * counters (then xqp_uobj_put(uobj, XQP_LOOKUP_DESTROY)), or ERR_PTR(the
 * lookup's error, -EBUSY while in use, the core's error).
 */
struct xqp_uobj *xqp_uobj_get_destroy(struct xqp_ufile *ufile,
				      enum xqp_uobj_type type, u32 id)
{
	struct xqp_uobj *uobj;
	int ret;

	uobj = xqp_uobj_get(ufile, type, id, XQP_LOOKUP_DESTROY);
	if (IS_ERR(uobj))
		return uobj;
	ret = uobj_try_lock(uobj, XQP_LOOKUP_WRITE);
	if (!ret) {
		ret = xqp_uobj_destroy_hw(uobj, XQP_REMOVE_DESTROY);
		if (ret)
			atomic_set(&uobj->usecnt, 0);
		else
			uobj_remove(uobj);	/* stays write-locked */
	}
	if (ret) {
		xqp_uobj_put(uobj, XQP_LOOKUP_DESTROY);
		return ERR_PTR(ret);
	}
	return uobj;
}

/* The largest destroy request and response (DESTROY_CQ's, 16 and 8 bytes). */
/**
 * xqp_cmd_destroy - the one destroy command (DESTROY_*, DEALLOC_*,
 * CLOSE_XRCD, DEREG_MR), as Linux's uobj_perform_destroy(): the request of
 * @req_size bytes, the handle at @handle_off in it, the object of @cls
 * behind it destroyed, then the class's response of @resp_size bytes.
 * Bytes of a request the command does not look at (reserved fields) are
 * not checked, as in Linux. The write table's W_DESTROY() checks at build
 * time that the sizes fit XQP_DESTROY_REQ_MAX and XQP_DESTROY_RESP_MAX.
 *
 * Return: 0, or the request's, the lookup's or the destroy's error.
 */
int xqp_cmd_destroy(struct xqp_cmd *cmd, const struct xqp_uobj_class *cls, size_t req_size,
		    size_t handle_off, size_t resp_size)
{
	u8 req[XQP_DESTROY_REQ_MAX] __aligned(8), resp[XQP_DESTROY_RESP_MAX] __aligned(8);
	struct xqp_uobj *uobj;
	u32 handle;
	int ret;

	ret = xqp_cmd_request(cmd, req, req_size);
	if (ret)
		return ret;
	memcpy(&handle, req + handle_off, sizeof(handle));
	uobj = xqp_uobj_get_destroy(cmd->ufile, cls->type, handle);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	memset(resp, 0, sizeof(resp));
	if (cls->destroy_resp)
		cls->destroy_resp(uobj, resp);
	xqp_uobj_put(uobj, XQP_LOOKUP_DESTROY);
	return resp_size ? xqp_cmd_response(cmd, resp, resp_size) : 0;
}

/* One pass over the file's objects, newest first. True if any went. */
static bool cleanup_pass(struct xqp_ufile *ufile, enum xqp_remove_reason why)
{
	struct xqp_uobj *uobj, *next;
	bool progress = false;

	/*
	 * No command runs on this file (closing: no fd is left; device
	 * removal: SRCU fenced them), so the list is stable but for our own
	 * removals.
	 */
	list_for_each_entry_safe(uobj, next, &ufile->uobjects, list) {
		if (WARN_ON(atomic_cmpxchg(&uobj->usecnt, 0, -1) != 0))
			continue;
		if (xqp_uobj_destroy_hw(uobj, why)) {
			atomic_set(&uobj->usecnt, 0);
			continue;
		}
		uobj_remove(uobj);
		progress = true;
	}
	return progress;
}

/*
 * Objects a driver would not destroy when their file was cleaned up. They
 * cannot be freed: the core still has them (a QP's handles point at their
 * uobj as context and uobject, events keep coming), and what they hold
 * (the XRCD of their handle, its inode entry) must wait for them. So they
 * move, still owned, with a reference on their file, from the file's list
 * to the device's parked list; their handles are freed (nobody can name
 * them any more). Later cleanups (the next file closed on the device, the
 * device's removal) try again, until the driver lets them go.
 * Linux frees such objects anyway at the end (RDMA_REMOVE_DRIVER_FAILURE),
 * dangling them under whatever still points at them.
 */
static void park_leftovers(struct xqp_ufile *ufile)
{
	struct xqp_uverbs_device *udev = ufile->udev;
	struct xqp_uobj *uobj, *next;

	mutex_lock(&udev->parked_mutex);
	list_for_each_entry_safe(uobj, next, &ufile->uobjects, list) {
		pr_warn_ratelimited("xqp_uverbs: object %u (type %d) not destroyed by its driver: kept, retried later\n",
				    uobj->id, uobj->type);
		xa_erase(&ufile->idr, uobj->id);	/* the list keeps the table's reference */
		spin_lock(&ufile->uobjects_lock);
		list_move_tail(&uobj->list, &udev->parked);
		spin_unlock(&ufile->uobjects_lock);
		kref_get(&ufile->ref);
	}
	mutex_unlock(&udev->parked_mutex);
}

/* One pass over the parked objects; true if any went. parked_mutex held. */
static bool parked_pass(struct xqp_uverbs_device *udev, enum xqp_remove_reason why)
{
	struct xqp_uobj *uobj, *next;
	bool progress = false;

	list_for_each_entry_safe(uobj, next, &udev->parked, list) {
		struct xqp_ufile *ufile = uobj->ufile;

		if (xqp_uobj_destroy_hw(uobj, why))
			continue;
		list_del_init(&uobj->list);
		kref_put(&uobj->ref, uobj_free);
		xqp_ufile_put(ufile);	/* the caller holds the device */
		progress = true;
	}
	return progress;
}

/**
 * xqp_uverbs_retry_parked - try again to destroy what drivers refused
 * when files were cleaned up (park_leftovers()).
 * @udev: the device; the caller holds a reference on it.
 * @why: the cleanup that retries.
 * @last: the device is going away: report what is still refused (it stays
 *	  parked, leaked, as the core's detach warns about the driver too).
 */
void xqp_uverbs_retry_parked(struct xqp_uverbs_device *udev,
			     enum xqp_remove_reason why, bool last)
{
	struct xqp_uobj *uobj;

	mutex_lock(&udev->parked_mutex);
	while (!list_empty(&udev->parked) && parked_pass(udev, why))
		;
	if (last)
		list_for_each_entry(uobj, &udev->parked, list)
			pr_err("xqp_uverbs: object %u (type %d) still not destroyed at device removal: leaked\n",
			       uobj->id, uobj->type);
	mutex_unlock(&udev->parked_mutex);
}

/**
 * xqp_ufile_cleanup - destroy everything a file holds (close, process
 * death, device removal), dependents first: objects go newest first, and
 * one that is still busy (an XRCD whose QPs are not gone yet, a PD with
 * QPs) is retried after the others, as __uverbs_cleanup_ufile() does.
 * Shared QPs other files hold stay alive: destroying a handle never takes
 * the real QP from another holder. What this file's teardown may have
 * unblocked among the objects other files left parked is retried next;
 * what the driver still refuses here is parked in turn.
 *
 * Lock order: cleanup_mutex -> the device's parked_mutex -> xrcd_tree_mutex.
 */
void xqp_ufile_cleanup(struct xqp_ufile *ufile, enum xqp_remove_reason why)
{
	mutex_lock(&ufile->cleanup_mutex);
	while (!list_empty(&ufile->uobjects) && cleanup_pass(ufile, why))
		;
	xqp_uverbs_retry_parked(ufile->udev, why, false);
	/* Only a driver that refuses to destroy leaves objects here. */
	if (!list_empty(&ufile->uobjects))
		park_leftovers(ufile);
	/* The CQs are gone: channel readers get -EIO, as Linux's destroyed ones. */
	xqp_comp_channels_disassociate(ufile);
	if (smp_load_acquire(&ufile->has_context) && why == XQP_REMOVE_DRIVER &&
	    ufile->async_file)
		xqp_event_file_disassociate(ufile->async_file);
	smp_store_release(&ufile->has_context, false);
	mutex_unlock(&ufile->cleanup_mutex);
}

/* Final release of a file: no object is left (parked ones hold the file). */
void xqp_ufile_release_idr(struct xqp_ufile *ufile)
{
	struct xqp_uobj *uobj;
	unsigned long id;

	xa_for_each(&ufile->idr, id, uobj)
		kref_put(&uobj->ref, uobj_free);
	xa_destroy(&ufile->idr);
}
