// SPDX-License-Identifier: GPL-2.0
/*
 * The async event file: the fd GET_CONTEXT returns. read() gives one
 * struct ib_uverbs_async_event_desc per call, tagged with the user_handle
 * the reader's own file gave the object (for a shared QP: the share this
 * file created or opened, so each opener gets its own copy); poll() and
 * SIGIO work as with ib_uverbs.
 *
 * The core calls the event handlers in atomic context: an event is queued
 * with GFP_ATOMIC under an IRQ-safe spinlock, and nothing here sleeps.
 * Linux's queue is unbounded; this one holds at most uverbs_async_queue_max
 * events per file and counts what it drops (shown in /proc/PID/fdinfo/FD).
 * Events of an object that is destroyed are dropped from the queue, and the
 * object's DESTROY response reports how many of its events were read, both
 * as Linux does.
 *
 * Device removal queues IB_EVENT_DEVICE_FATAL (element 0), as ib_uverbs
 * does; once the queue is drained, read() fails with -EIO and poll() reports
 * EPOLLERR instead of blocking forever.
 */
#include <linux/anon_inodes.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "uverbs.h"

static unsigned int uverbs_async_queue_max = 4096;
module_param(uverbs_async_queue_max, uint, 0644);
MODULE_PARM_DESC(uverbs_async_queue_max,
		 "async events queued per uverbs file before new ones are dropped (default 4096)");

struct xqp_uverbs_event {
	struct ib_uverbs_async_event_desc desc;
	struct list_head list;		/* ev->event_list */
	struct list_head obj_list;	/* the object's event_list, or empty */
	u32 *counter;			/* the object's events_reported */
};

struct xqp_uverbs_event_file *xqp_event_file_alloc(void)
{
	struct xqp_uverbs_event_file *ev = kzalloc(sizeof(*ev), GFP_KERNEL_ACCOUNT);

	if (!ev)
		return NULL;
	kref_init(&ev->ref);
	spin_lock_init(&ev->lock);
	INIT_LIST_HEAD(&ev->event_list);
	init_waitqueue_head(&ev->poll_wait);
	return ev;
}

static void event_file_free(struct kref *ref)
{
	struct xqp_uverbs_event_file *ev =
		container_of(ref, struct xqp_uverbs_event_file, ref);
	struct xqp_uverbs_event *e, *tmp;

	list_for_each_entry_safe(e, tmp, &ev->event_list, list)
		kfree(e);
	kfree(ev);
}

void xqp_event_file_put(struct xqp_uverbs_event_file *ev)
{
	kref_put(&ev->ref, event_file_free);
}

/* Queues one event; @force ignores the bound (DEVICE_FATAL). Any context. */
static void queue_event(struct xqp_uverbs_event_file *ev, u64 element, u32 event,
			struct list_head *obj_list, u32 *counter, bool force)
{
	struct xqp_uverbs_event *e;
	unsigned long flags;

	spin_lock_irqsave(&ev->lock, flags);
	if (ev->is_closed || (ev->dead && !force)) {
		spin_unlock_irqrestore(&ev->lock, flags);
		return;
	}
	if (!force && ev->queued >= READ_ONCE(uverbs_async_queue_max)) {
		ev->dropped++;
		spin_unlock_irqrestore(&ev->lock, flags);
		return;
	}
	e = kmalloc(sizeof(*e), GFP_ATOMIC);
	if (!e) {
		ev->dropped++;
		spin_unlock_irqrestore(&ev->lock, flags);
		return;
	}
	e->desc.element = element;
	e->desc.event_type = event;
	e->desc.reserved = 0;
	e->counter = counter;
	list_add_tail(&e->list, &ev->event_list);
	if (obj_list)
		list_add_tail(&e->obj_list, obj_list);
	else
		INIT_LIST_HEAD(&e->obj_list);
	ev->queued++;
	spin_unlock_irqrestore(&ev->lock, flags);

	wake_up_interruptible(&ev->poll_wait);
	kill_fasync(&ev->async_queue, SIGIO, POLL_IN);
}

void xqp_async_event(struct xqp_uverbs_event_file *ev, u64 element, u32 event,
		     struct list_head *obj_list, u32 *counter)
{
	if (ev)
		queue_event(ev, element, event, obj_list, counter, false);
}

/*
 * The handler the char device gives the core for QPs, CQs and SRQs; the
 * context is the object's xqp_uevent_obj. Atomic context.
 */
void xqp_uverbs_event_handler(struct xqp_event *event, void *context)
{
	struct xqp_uevent_obj *eobj = context;

	xqp_async_event(eobj->ev_file, eobj->uobj.user_handle, event->event,
			&eobj->event_list, &eobj->events_reported);
}

/* An event object reports to its file's async fd (if GET_CONTEXT made one). */
void xqp_uevent_init(struct xqp_uevent_obj *eobj, struct xqp_ufile *ufile)
{
	INIT_LIST_HEAD(&eobj->event_list);
	eobj->ev_file = ufile->async_file;
	if (eobj->ev_file)
		kref_get(&eobj->ev_file->ref);
}

/* The object is gone from the core: no handler call can come any more. */
void xqp_uevent_release(struct xqp_uevent_obj *eobj)
{
	struct xqp_uverbs_event_file *ev = eobj->ev_file;
	struct xqp_uverbs_event *e, *tmp;

	if (!ev)
		return;
	spin_lock_irq(&ev->lock);
	list_for_each_entry_safe(e, tmp, &eobj->event_list, obj_list) {
		list_del(&e->list);
		list_del(&e->obj_list);
		ev->queued--;
		kfree(e);
	}
	spin_unlock_irq(&ev->lock);
	eobj->ev_file = NULL;
	xqp_event_file_put(ev);
}

/* Device removal: tell the reader, then let it drain and see -EIO. */
void xqp_event_file_disassociate(struct xqp_uverbs_event_file *ev)
{
	queue_event(ev, 0, XQP_EVENT_DEVICE_FATAL, NULL, NULL, true);
	spin_lock_irq(&ev->lock);
	ev->dead = true;
	spin_unlock_irq(&ev->lock);
	wake_up_interruptible(&ev->poll_wait);
	kill_fasync(&ev->async_queue, SIGIO, POLL_ERR);
}

static ssize_t event_read(struct file *filp, char __user *buf, size_t count,
			  loff_t *pos)
{
	struct xqp_uverbs_event_file *ev = filp->private_data;
	const size_t eventsz = sizeof(struct ib_uverbs_async_event_desc);
	struct xqp_uverbs_event *e;
	ssize_t ret;

	spin_lock_irq(&ev->lock);
	while (list_empty(&ev->event_list)) {
		if (ev->is_closed || ev->dead) {
			spin_unlock_irq(&ev->lock);
			return -EIO;
		}
		spin_unlock_irq(&ev->lock);
		if (filp->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(ev->poll_wait,
					     !list_empty(&ev->event_list) ||
					     ev->is_closed || ev->dead))
			return -ERESTARTSYS;
		spin_lock_irq(&ev->lock);
	}

	if (eventsz > count) {
		spin_unlock_irq(&ev->lock);
		return -EINVAL;
	}
	e = list_first_entry(&ev->event_list, struct xqp_uverbs_event, list);
	list_del(&e->list);
	list_del(&e->obj_list);
	if (e->counter)
		++(*e->counter);
	ev->queued--;
	ev->delivered++;
	spin_unlock_irq(&ev->lock);

	ret = copy_to_user(buf, &e->desc, eventsz) ? -EFAULT : (ssize_t)eventsz;
	kfree(e);
	return ret;
}

static __poll_t event_poll(struct file *filp, struct poll_table_struct *wait)
{
	struct xqp_uverbs_event_file *ev = filp->private_data;
	__poll_t mask = 0;

	poll_wait(filp, &ev->poll_wait, wait);
	spin_lock_irq(&ev->lock);
	if (!list_empty(&ev->event_list))
		mask = EPOLLIN | EPOLLRDNORM;
	else if (ev->is_closed || ev->dead)
		mask = EPOLLERR;
	spin_unlock_irq(&ev->lock);
	return mask;
}

static int event_fasync(int fd, struct file *filp, int on)
{
	struct xqp_uverbs_event_file *ev = filp->private_data;

	return fasync_helper(fd, filp, on, &ev->async_queue);
}

static int event_release(struct inode *inode, struct file *filp)
{
	struct xqp_uverbs_event_file *ev = filp->private_data;
	struct xqp_uverbs_event *e, *tmp;

	spin_lock_irq(&ev->lock);
	ev->is_closed = true;
	/* Objects still alive keep their (now empty) lists valid. */
	list_for_each_entry_safe(e, tmp, &ev->event_list, list) {
		list_del(&e->list);
		list_del(&e->obj_list);
		kfree(e);
	}
	ev->queued = 0;
	spin_unlock_irq(&ev->lock);
	xqp_event_file_put(ev);
	return 0;
}

static void event_show_fdinfo(struct seq_file *m, struct file *filp)
{
	struct xqp_uverbs_event_file *ev = filp->private_data;

	spin_lock_irq(&ev->lock);
	seq_printf(m, "xqp-queued:\t%u\nxqp-delivered:\t%llu\nxqp-dropped:\t%llu\n",
		   ev->queued, ev->delivered, ev->dropped);
	spin_unlock_irq(&ev->lock);
}

static const struct file_operations xqp_async_event_fops = {
	.owner = THIS_MODULE,
	.read = event_read,
	.poll = event_poll,
	.release = event_release,
	.fasync = event_fasync,
	.show_fdinfo = event_show_fdinfo,
};

/* A struct file for @ev; the file owns the reference it takes. */
struct file *xqp_event_file_open(struct xqp_uverbs_event_file *ev)
{
	struct file *filp;

	kref_get(&ev->ref);
	filp = anon_inode_getfile("[xqp_async_event]", &xqp_async_event_fops, ev,
				  O_RDONLY);
	if (IS_ERR(filp))
		xqp_event_file_put(ev);
	return filp;
}

/**
 * xqp_uevent_destroyed - the core has destroyed @eobj's QP or SRQ: what
 * this layer held for it goes, its XRCD handle's count (@uxrcd, NULL for
 * none) and its queued events.
 */
void xqp_uevent_destroyed(struct xqp_uevent_obj *eobj, struct xqp_uxrcd *uxrcd)
{
	if (uxrcd)
		atomic_dec(&uxrcd->refcnt);
	xqp_uevent_release(eobj);
}

static_assert(sizeof(struct ib_uverbs_destroy_qp_resp) ==
	      sizeof(struct ib_uverbs_destroy_srq_resp) &&
	      offsetof(struct ib_uverbs_destroy_qp_resp, events_reported) ==
	      offsetof(struct ib_uverbs_destroy_srq_resp, events_reported));

/*
 * DESTROY_QP's and DESTROY_SRQ's response (one layout): the async events
 * the user read. Their requests' reserved fields are not looked at, as
 * in Linux.
 */
void xqp_uevent_destroy_resp(struct xqp_uobj *uobj, void *resp)
{
	struct ib_uverbs_destroy_qp_resp *r = resp;

	r->events_reported = container_of(uobj, struct xqp_uevent_obj, uobj)->events_reported;
}
