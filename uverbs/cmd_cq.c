// SPDX-License-Identifier: GPL-2.0
/*
 * CQ commands: CREATE_CQ (with or without a completion channel),
 * DESTROY_CQ, POLL_CQ, REQ_NOTIFY_CQ and RESIZE_CQ, in the order of checks
 * of uverbs_cmd.c.
 */
#include <linux/hrtimer.h>
#include <linux/sched.h>
#include <linux/sched/stat.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "uverbs.h"

/* WCs polled from the core per call; POLL_CQ copies them out in between. */
#define XQP_POLL_BATCH	8

static void xqp_ucq_poll_wake(struct xqp_cq *cq, void *context);

int xqp_cmd_create_cq(struct xqp_cmd *cmd)
{
	struct xqp_cq_init_attr attr = {};
	struct ib_uverbs_create_cq_resp resp;
	struct ib_uverbs_create_cq req;
	struct xqp_ucq *ucq;
	struct xqp_uobj *uobj;
	struct xqp_cq *cq;
	int ret;

	ret = xqp_cmd_request(cmd, &req, sizeof(req));
	if (ret)
		return ret;
	if (req.comp_vector >= XQP_UVERBS_NUM_COMP_VECTORS)
		return -EINVAL;
	/* reserved is not looked at, as Linux */
	uobj = xqp_uobj_alloc(cmd, &xqp_uobj_cq);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	ucq = container_of(uobj, struct xqp_ucq, uevent.uobj);
	INIT_LIST_HEAD(&ucq->comp_entry);
	if (req.comp_channel >= 0) {
		ucq->channel = xqp_comp_channel_get(cmd->ufile, req.comp_channel);
		if (IS_ERR(ucq->channel)) {
			ret = PTR_ERR(ucq->channel);
			ucq->channel = NULL;
			goto err;
		}
	}
	uobj->user_handle = req.user_handle;
	xqp_uevent_init(&ucq->uevent, cmd->ufile);

	attr.cqe = (int)req.cqe;
	attr.comp_handler = xqp_ucq_comp_handler;
	attr.flags = XQP_CQ_COMP_INLINE;	/* it queues an event and wakes */
	attr.event_handler = xqp_uverbs_event_handler;
	attr.event_flags = XQP_EVENT_INLINE;	/* it queues an event and wakes */
	attr.poll_wake = xqp_ucq_poll_wake;
	attr.cq_context = &ucq->uevent;
	cq = xqp_create_cq_attr(cmd->xdev, &attr);
	if (IS_ERR(cq)) {
		ret = PTR_ERR(cq);
		goto err_uevent;
	}
	uobj->object = cq;
	xqp_cq_set_res_owner(cq, uobj);

	memset(&resp, 0, sizeof(resp));
	resp.cq_handle = uobj->id;
	resp.cqe = xqp_cq_cqe(cq);	/* what the driver granted, as ib_uverbs */
	return xqp_cmd_respond_new(cmd, uobj, &resp, sizeof(resp));

err_uevent:
	xqp_uevent_release(&ucq->uevent);
	xqp_ucq_release_comp(ucq);
err:
	xqp_uobj_abort(uobj);
	return ret;
}

/* copy_wc_to_user(): struct xqp_wc as struct ib_uverbs_wc. */
static int wc_to_user(struct ib_uverbs_wc __user *dst, const struct xqp_wc *wc)
{
	struct ib_uverbs_wc u;

	memset(&u, 0, sizeof(u));
	u.wr_id = wc->wr_id;
	u.status = wc->status;
	u.opcode = wc->opcode;
	u.vendor_err = wc->vendor_err;
	u.byte_len = wc->byte_len;
	u.ex.imm_data = (__force __be32)wc->imm_data;	/* big-endian already */
	u.qp_num = wc->qp_num;
	u.src_qp = wc->src_qp;
	u.wc_flags = wc->wc_flags;
	u.pkey_index = wc->pkey_index;
	u.slid = wc->slid;
	u.sl = wc->sl;
	u.dlid_path_bits = wc->dlid_path_bits;
	u.port_num = wc->port_num;
	return copy_to_user(dst, &u, sizeof(u)) ? -EFAULT : 0;
}

/*
 * An empty poll lets a task waiting for this CPU run first. A hardware
 * CQ (and rxe's) is polled in user memory, where the kernel never hears
 * of it; xqp's poll is this command, the one moment a spinning poller is
 * in the kernel. Two pollers on one CPU (a pingpong's two ends placed on
 * one vCPU) otherwise take turns at the scheduler tick's pace, milliseconds
 * an iteration. So when another task wants the CPU (single_task_running(),
 * as the network stack's busy polling asks; a poller alone on its CPU pays
 * that one check), the poller sleeps until the next completion queued on
 * the CQ it polled (xqp_cq_arm_poll_wake(), which leaves req_notify's
 * arming alone): the other task runs at once, and the poller is back as
 * soon as there is something to poll. The bound, about one slice of the
 * scheduler's, serves a program whose completion comes to another CQ than
 * the one it sleeps on, or to none (a peer that answers through memory):
 * it loses the CPU no longer than a spinner preempted by the other task
 * would. A shorter bound fires while the other task is still working
 * (50 us did, under TCG), and the two then take turns at the timer's pace.
 */
#define XQP_POLL_SLEEP_US	1000

/* Every CQ's poll_wake: a completion came to a CQ a poller may sleep on. */
static void xqp_ucq_poll_wake(struct xqp_cq *cq, void *context)
{
	struct xqp_uevent_obj *uevent = context;
	struct xqp_ufile *ufile = uevent->uobj.ufile;

	atomic_inc(&ufile->poll_wakes);
	wake_up(&ufile->poll_wq);
}

/*
 * The CQ was found empty: arm its wake if the CPU is wanted. Returns the
 * file's wake count to sleep on, or -1 (do not sleep: the CPU is ours, or
 * a completion came in the meantime, or the CQ could not be armed).
 */
static int xqp_poll_empty_arm(struct xqp_uobj *uobj)
{
	int seen;

	if (single_task_running())
		return -1;
	seen = atomic_read(&uobj->ufile->poll_wakes) & INT_MAX;
	return xqp_cq_arm_poll_wake(uobj->object) ? -1 : seen;
}

/*
 * Sleeps while no completion woke the file since @seen, at most the bound.
 * Returns true when a completion woke it (the CQ is worth polling again).
 */
static bool xqp_poll_empty_sleep(struct xqp_ufile *ufile, int seen)
{
	ktime_t until = XQP_POLL_SLEEP_US * NSEC_PER_USEC;
	DEFINE_WAIT(wait);

	prepare_to_wait(&ufile->poll_wq, &wait, TASK_INTERRUPTIBLE);
	if ((atomic_read(&ufile->poll_wakes) & INT_MAX) == seen)
		schedule_hrtimeout_range(&until, until / 4, HRTIMER_MODE_REL);
	finish_wait(&ufile->poll_wq, &wait);
	return (atomic_read(&ufile->poll_wakes) & INT_MAX) != seen;
}

/*
 * Up to @ne WCs of the CQ to @data, their number in @count. Bound: at most
 * the CQ's size (more cannot be queued at once).
 */
static int xqp_poll_to_user(struct xqp_uobj *uobj, struct ib_uverbs_wc __user *data,
			    u32 ne, u32 *count)
{
	struct xqp_wc wc[XQP_POLL_BATCH];
	u32 want = min_t(u32, ne, max(xqp_cq_cqe(uobj->object), 1)), ask;
	int ret, n, i;

	*count = 0;
	while (*count < want) {
		ask = min_t(u32, want - *count, XQP_POLL_BATCH);
		n = xqp_poll_cq(uobj->object, ask, wc);
		if (n < 0)
			return n;
		for (i = 0; i < n; i++) {
			ret = wc_to_user(data + *count, &wc[i]);
			if (ret)
				return ret;
			(*count)++;
		}
		if (n < ask)
			break;	/* the CQ is empty */
	}
	return 0;
}

/*
 * POLL_CQ (ib_uverbs_poll_cq()): up to ne WCs written after the response
 * header, then the header with their count. As in Linux the WCs go to the
 * user's buffer whatever out_words says (libibverbs sizes it for ne), and
 * WCs polled before a fault are lost. An empty CQ may sleep (above), with
 * the CQ unlocked but referenced; woken by a completion, the command locks
 * it again and polls once more, so the poller has it without asking again.
 * A CQ destroyed meanwhile (or locked by another command) is not polled:
 * the command answers what it had, none; never another CQ that took its
 * handle.
 */
int xqp_cmd_poll_cq(struct xqp_cmd *cmd)
{
	struct ib_uverbs_wc __user *data = cmd->outbuf +
					   sizeof(struct ib_uverbs_poll_cq_resp);
	struct ib_uverbs_poll_cq_resp resp;
	struct ib_uverbs_poll_cq req;
	struct xqp_uobj *uobj;
	int ret, seen = -1;

	uobj = xqp_cmd_request_obj(cmd, &req, sizeof(req), &req.cq_handle, XQP_UOBJ_CQ,
				   XQP_LOOKUP_READ);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	memset(&resp, 0, sizeof(resp));
	ret = xqp_poll_to_user(uobj, data, req.ne, &resp.count);
	if (!ret && !resp.count)
		seen = xqp_poll_empty_arm(uobj);
	xqp_uobj_unlock(uobj, XQP_LOOKUP_READ);
	if (seen >= 0 && xqp_poll_empty_sleep(cmd->ufile, seen) &&
	    !xqp_uobj_relock(uobj, XQP_LOOKUP_READ)) {
		ret = xqp_poll_to_user(uobj, data, req.ne, &resp.count);
		xqp_uobj_unlock(uobj, XQP_LOOKUP_READ);
	}
	xqp_uobj_unref(uobj);
	if (ret)
		return ret;
	return copy_to_user(cmd->outbuf, &resp, sizeof(resp)) ? -EFAULT : 0;
}

/* REQ_NOTIFY_CQ: the core's answer is not reported, as in Linux. */
int xqp_cmd_req_notify_cq(struct xqp_cmd *cmd)
{
	struct ib_uverbs_req_notify_cq req;
	struct xqp_uobj *uobj;

	uobj = xqp_cmd_request_obj(cmd, &req, sizeof(req), &req.cq_handle, XQP_UOBJ_CQ,
				   XQP_LOOKUP_READ);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	xqp_req_notify_cq(uobj->object, req.solicited_only ? XQP_CQ_SOLICITED :
							     XQP_CQ_NEXT_COMP);
	xqp_uobj_put(uobj, XQP_LOOKUP_READ);
	return 0;
}

/* RESIZE_CQ: the response holds the size the driver granted. */
int xqp_cmd_resize_cq(struct xqp_cmd *cmd)
{
	struct ib_uverbs_resize_cq_resp resp;
	struct ib_uverbs_resize_cq req;
	struct xqp_uobj *uobj;
	int ret;

	uobj = xqp_cmd_request_obj(cmd, &req, sizeof(req), &req.cq_handle, XQP_UOBJ_CQ,
				   XQP_LOOKUP_READ);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	ret = xqp_resize_cq(uobj->object, (int)req.cqe);
	if (!ret) {
		memset(&resp, 0, sizeof(resp));
		resp.cqe = xqp_cq_cqe(uobj->object);
		ret = xqp_cmd_response(cmd, &resp, sizeof(resp));
	}
	xqp_uobj_put(uobj, XQP_LOOKUP_READ);
	return ret;
}

static int ucq_destroy_hw(struct xqp_uobj *uobj, enum xqp_remove_reason why)
{
	struct xqp_ucq *ucq = container_of(uobj, struct xqp_ucq, uevent.uobj);
	int ret = xqp_destroy_cq(uobj->object);

	if (ret)
		return ret;
	xqp_ucq_release_comp(ucq);
	xqp_uevent_release(&ucq->uevent);
	return 0;
}

/*
 * DESTROY_CQ's counters. Its request's reserved field is not checked: the
 * 16-byte DESTROY_CQ of rdma-core v18/v19 that Linux still accepts leaves
 * it to whatever follows in memory.
 */
static void ucq_destroy_resp(struct xqp_uobj *uobj, void *resp)
{
	struct xqp_ucq *ucq = container_of(uobj, struct xqp_ucq, uevent.uobj);
	struct ib_uverbs_destroy_cq_resp *r = resp;

	r->comp_events_reported = ucq->comp_events_reported;
	r->async_events_reported = ucq->uevent.events_reported;
}

const struct xqp_uobj_class xqp_uobj_cq = {
	.type = XQP_UOBJ_CQ,
	.size = sizeof(struct xqp_ucq),
	.destroy_hw = ucq_destroy_hw,
	.destroy_resp = ucq_destroy_resp,
};
