// SPDX-License-Identifier: GPL-2.0
/*
 * Completion channels: CREATE_COMP_CHANNEL returns an fd (ib_uverbs'
 * completion event file, uverbs_main.c). A CQ created on it (CREATE_CQ's
 * comp_channel) reports each notification armed by REQ_NOTIFY_CQ there:
 * read() gives one struct ib_uverbs_comp_event_desc{cq_handle = the CQ's
 * user_handle} per call (-EINVAL if the buffer is smaller, -EAGAIN when
 * empty and non-blocking, else it waits), poll() and SIGIO as with
 * ib_uverbs. Events of a destroyed CQ are dropped unread; DESTROY_CQ
 * reports how many were read (comp_events_reported), as Linux.
 *
 * The core calls the comp handler in any context, IRQs possibly off: it
 * takes only the channel's IRQ-safe spinlock and allocates nothing. Linux
 * queues one allocated entry per notification; here each CQ has one entry,
 * linked while its count of unread notifications is not zero, so the queue
 * is bounded by the number of CQs and nothing is ever dropped. A read takes
 * the oldest entry, counts one event, and moves the entry to the back if
 * more are due.
 *
 * References: the fd and every CQ on the channel hold one; the channel holds
 * its file (struct xqp_ufile), so that CREATE_CQ can tell a channel of this
 * file from another's as Linux does (-EBADF). When the file is cleaned up
 * (close, process death, device removal) its CQs are destroyed, then its
 * channels are marked dead: read() -EIO, poll() EPOLLERR, as Linux's
 * destroyed completion file.
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "uverbs.h"

static const struct file_operations xqp_comp_fops;

static void comp_channel_free(struct kref *ref)
{
	struct xqp_comp_channel *ch = container_of(ref, struct xqp_comp_channel, ref);

	xqp_ufile_put(ch->ufile);
	kfree(ch);
}

void xqp_comp_channel_put(struct xqp_comp_channel *ch)
{
	kref_put(&ch->ref, comp_channel_free);
}

/* Unlinks every pending CQ entry; the caller holds ch->lock. */
static void comp_drop_pending(struct xqp_comp_channel *ch)
{
	struct xqp_ucq *ucq, *next;

	list_for_each_entry_safe(ucq, next, &ch->pending, comp_entry) {
		list_del_init(&ucq->comp_entry);
		ucq->comp_count = 0;
	}
}

/**
 * xqp_ucq_comp_handler - the comp handler of every CQ (xqp_cq_init_attr).
 * @cq: the CQ (unused: the context says which).
 * @context: the CQ's struct xqp_uevent_obj.
 *
 * Context: any, IRQs possibly off; never after xqp_destroy_cq() returned.
 */
void xqp_ucq_comp_handler(struct xqp_cq *cq, void *context)
{
	struct xqp_ucq *ucq = container_of(context, struct xqp_ucq, uevent);
	struct xqp_comp_channel *ch = ucq->channel;
	unsigned long flags;

	if (!ch)
		return;
	spin_lock_irqsave(&ch->lock, flags);
	if (ch->is_closed || ch->dead) {
		spin_unlock_irqrestore(&ch->lock, flags);
		return;
	}
	if (ucq->comp_count < U32_MAX)
		ucq->comp_count++;
	if (list_empty(&ucq->comp_entry))
		list_add_tail(&ucq->comp_entry, &ch->pending);
	spin_unlock_irqrestore(&ch->lock, flags);

	wake_up_interruptible(&ch->poll_wait);
	kill_fasync(&ch->async_queue, SIGIO, POLL_IN);
}

/**
 * xqp_ucq_release_comp - the CQ is gone from the core: drop its unread
 * events and its channel reference (ib_uverbs_release_ucq()).
 * @ucq: the CQ; its comp_events_reported stays readable.
 */
void xqp_ucq_release_comp(struct xqp_ucq *ucq)
{
	struct xqp_comp_channel *ch = ucq->channel;

	if (!ch)
		return;
	spin_lock_irq(&ch->lock);
	list_del_init(&ucq->comp_entry);
	ucq->comp_count = 0;
	spin_unlock_irq(&ch->lock);
	ucq->channel = NULL;
	xqp_comp_channel_put(ch);
}

/**
 * xqp_comp_channel_get - the channel behind an fd, for CREATE_CQ
 * (ib_uverbs_lookup_comp_file()).
 * @ufile: the file the CQ is created in; the channel must be one of its.
 * @fd: the comp_channel fd of the calling process.
 *
 * Return: the channel with a reference the caller owns (the CQ's), or
 * ERR_PTR(-EBADF) for no fd, an fd that is no channel, or a channel of
 * another uverbs file.
 */
struct xqp_comp_channel *xqp_comp_channel_get(struct xqp_ufile *ufile, int fd)
{
	struct xqp_comp_channel *ch = ERR_PTR(-EBADF);
	struct fd f = fdget(fd);

	if (!fd_file(f))
		return ch;
	if (fd_file(f)->f_op == &xqp_comp_fops) {
		struct xqp_comp_channel *found = fd_file(f)->private_data;

		if (found->ufile == ufile) {
			kref_get(&found->ref);
			ch = found;
		}
	}
	fdput(f);
	return ch;
}

/**
 * xqp_comp_channels_disassociate - the file was cleaned up (its CQs are
 * destroyed): its channels answer -EIO from now on, readers wake up.
 * @ufile: the file.
 */
void xqp_comp_channels_disassociate(struct xqp_ufile *ufile)
{
	struct xqp_comp_channel *ch;

	mutex_lock(&ufile->comp_mutex);
	list_for_each_entry(ch, &ufile->comp_channels, list) {
		spin_lock_irq(&ch->lock);
		ch->dead = true;
		comp_drop_pending(ch);
		spin_unlock_irq(&ch->lock);
		wake_up_interruptible(&ch->poll_wait);
		kill_fasync(&ch->async_queue, SIGIO, POLL_ERR);
	}
	mutex_unlock(&ufile->comp_mutex);
}

/* Waits for an event; returns with ch->lock held and one pending, or an error. */
static int comp_wait(struct xqp_comp_channel *ch, struct file *filp)
{
	spin_lock_irq(&ch->lock);
	while (list_empty(&ch->pending)) {
		if (ch->dead) {
			spin_unlock_irq(&ch->lock);
			return -EIO;
		}
		spin_unlock_irq(&ch->lock);
		if (filp->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(ch->poll_wait,
					     !list_empty(&ch->pending) || ch->dead))
			return -ERESTARTSYS;
		spin_lock_irq(&ch->lock);
	}
	return 0;
}

static ssize_t comp_read(struct file *filp, char __user *buf, size_t count,
			 loff_t *pos)
{
	struct xqp_comp_channel *ch = filp->private_data;
	struct ib_uverbs_comp_event_desc desc;
	struct xqp_ucq *ucq;
	int ret;

	ret = comp_wait(ch, filp);
	if (ret)
		return ret;
	if (count < sizeof(desc)) {
		spin_unlock_irq(&ch->lock);
		return -EINVAL;
	}
	ucq = list_first_entry(&ch->pending, struct xqp_ucq, comp_entry);
	desc.cq_handle = ucq->uevent.uobj.user_handle;
	ucq->comp_events_reported++;
	if (--ucq->comp_count)
		list_move_tail(&ucq->comp_entry, &ch->pending);
	else
		list_del_init(&ucq->comp_entry);
	spin_unlock_irq(&ch->lock);

	/* Like Linux, an event that cannot be copied out is consumed. */
	if (copy_to_user(buf, &desc, sizeof(desc)))
		return -EFAULT;
	return sizeof(desc);
}

static __poll_t comp_poll(struct file *filp, struct poll_table_struct *wait)
{
	struct xqp_comp_channel *ch = filp->private_data;
	__poll_t mask = 0;

	poll_wait(filp, &ch->poll_wait, wait);
	spin_lock_irq(&ch->lock);
	if (!list_empty(&ch->pending))
		mask = EPOLLIN | EPOLLRDNORM;
	else if (ch->dead)
		mask = EPOLLERR;
	spin_unlock_irq(&ch->lock);
	return mask;
}

static int comp_fasync(int fd, struct file *filp, int on)
{
	struct xqp_comp_channel *ch = filp->private_data;

	return fasync_helper(fd, filp, on, &ch->async_queue);
}

/* The fd is closed: CQs on the channel live on and report nothing more. */
static int comp_release(struct inode *inode, struct file *filp)
{
	struct xqp_comp_channel *ch = filp->private_data;
	struct xqp_ufile *ufile = ch->ufile;

	mutex_lock(&ufile->comp_mutex);
	list_del_init(&ch->list);
	mutex_unlock(&ufile->comp_mutex);

	spin_lock_irq(&ch->lock);
	ch->is_closed = true;
	comp_drop_pending(ch);
	spin_unlock_irq(&ch->lock);
	xqp_comp_channel_put(ch);
	return 0;
}

static const struct file_operations xqp_comp_fops = {
	.owner = THIS_MODULE,
	.read = comp_read,
	.poll = comp_poll,
	.release = comp_release,
	.fasync = comp_fasync,
};

static struct xqp_comp_channel *comp_channel_alloc(struct xqp_ufile *ufile)
{
	struct xqp_comp_channel *ch = kzalloc(sizeof(*ch), GFP_KERNEL_ACCOUNT);

	if (!ch)
		return NULL;
	kref_init(&ch->ref);
	kref_get(&ufile->ref);
	ch->ufile = ufile;
	INIT_LIST_HEAD(&ch->list);
	spin_lock_init(&ch->lock);
	INIT_LIST_HEAD(&ch->pending);
	init_waitqueue_head(&ch->poll_wait);
	return ch;
}

/*
 * CREATE_COMP_CHANNEL (ib_uverbs_create_comp_channel()): needs a context
 * (-EINVAL before GET_CONTEXT); the fd is O_CLOEXEC and installed only once
 * the response is written.
 */
int xqp_cmd_create_comp_channel(struct xqp_cmd *cmd)
{
	struct ib_uverbs_create_comp_channel_resp resp;
	struct ib_uverbs_create_comp_channel req;
	struct xqp_ufile *ufile = cmd->ufile;
	struct xqp_comp_channel *ch;
	struct file *filp;
	int fd, ret;

	ret = xqp_cmd_request(cmd, &req, sizeof(req));
	if (ret)
		return ret;
	ret = xqp_cmd_need_context(cmd);
	if (ret)
		return ret;

	ch = comp_channel_alloc(ufile);
	if (!ch)
		return -ENOMEM;
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		ret = fd;
		goto err_ch;
	}
	filp = anon_inode_getfile("[xqp_comp_event]", &xqp_comp_fops, ch, O_RDONLY);
	if (IS_ERR(filp)) {
		ret = PTR_ERR(filp);
		goto err_fd;
	}
	/* From here the file owns the channel's first reference. */

	memset(&resp, 0, sizeof(resp));
	resp.fd = fd;
	ret = xqp_cmd_response(cmd, &resp, sizeof(resp));
	if (ret)
		goto err_file;

	mutex_lock(&ufile->comp_mutex);
	list_add_tail(&ch->list, &ufile->comp_channels);
	mutex_unlock(&ufile->comp_mutex);
	fd_install(fd, filp);
	return 0;

err_file:
	fput(filp);	/* comp_release() drops the channel */
	put_unused_fd(fd);
	return ret;
err_fd:
	put_unused_fd(fd);
err_ch:
	xqp_comp_channel_put(ch);
	return ret;
}
