// SPDX-License-Identifier: GPL-2.0
/*
 * The "xqp_res" generic netlink family (uapi/xqp_res.h): the devices and
 * the objects of each, dumped as RDMA netlink dumps its resources, from the
 * core's resource walk (xqp/res.h), with the owners this layer recorded
 * (struct xqp_uobj: the creating process's tgid, euid and comm).
 *
 * Devices: this file is a client of the core (as the char device is), so it
 * knows every device and fences its removal: a dump callback holds
 * devs_mutex while it walks a device, the client's remove() takes it, and
 * the core tears a device's objects down only after remove().
 *
 * Bounded work: each dump callback walks at most RES_BUDGET objects per
 * walk call (the core's device mutex is held for one call only) and stops
 * when the message buffer is full; the cursor (numbers only) is kept in the
 * dump's state between callbacks.
 *
 * Lock order: devs_mutex -> the core's device mutex -> RCU -> a QP's lock.
 * The emit callback runs inside the last two: it only fills the skb.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "uverbs.h"
#include "nl_res.h"
#include "../uapi/xqp_res.h"

#define RES_MAX_DEVICES	32
#define RES_BUDGET	64

struct res_dev {
	struct xqp_device *dev;		/* NULL: free slot */
	u32 index;			/* from 1, never reused */
};

static DEFINE_MUTEX(devs_mutex);
static struct res_dev devs[RES_MAX_DEVICES];	/* devs_mutex */
static u32 last_index;				/* devs_mutex */

static struct genl_family xqp_res_family;

/* The slot of the device with the lowest index >= @from (devs_mutex). */
static struct res_dev *dev_from(u32 from)
{
	struct res_dev *best = NULL;
	int i;

	for (i = 0; i < RES_MAX_DEVICES; i++)
		if (devs[i].dev && devs[i].index >= from &&
		    (!best || devs[i].index < best->index))
			best = &devs[i];
	return best;
}

static void *res_client_add(struct xqp_device *dev)
{
	struct res_dev *slot = NULL;
	int i;

	mutex_lock(&devs_mutex);
	for (i = 0; i < RES_MAX_DEVICES && !slot; i++)
		if (!devs[i].dev)
			slot = &devs[i];
	if (slot) {
		slot->dev = dev;
		slot->index = ++last_index;
	}
	mutex_unlock(&devs_mutex);
	if (!slot)
		pr_warn("xqp_res: no slot for %s: not reported\n", xqp_device_name(dev));
	return slot;
}

static void res_client_remove(struct xqp_device *dev, void *data)
{
	struct res_dev *slot = data;

	mutex_lock(&devs_mutex);	/* waits for a dump walking it */
	slot->dev = NULL;
	mutex_unlock(&devs_mutex);
}

static struct xqp_client res_client = {
	.name = "res",
	.add = res_client_add,
	.remove = res_client_remove,
};

/* ---- requests ------------------------------------------------------------ */

static const struct nla_policy res_policy[XQP_RES_A_MAX + 1] = {
	[XQP_RES_A_DEV_INDEX] = { .type = NLA_U32 },
	[XQP_RES_A_DEV_NAME] = { .type = NLA_NUL_STRING, .len = 63 },
	[XQP_RES_A_TYPE] = NLA_POLICY_MAX(NLA_U32, XQP_RES_OBJ_MAX),
	[XQP_RES_A_FILTER_QPN] = { .type = NLA_U32 },
	[XQP_RES_A_FILTER_PID] = { .type = NLA_U32 },
};

struct res_dump {
	struct xqp_res_entry entry;	/* the walk's scratch (too big for a stack) */
	struct xqp_res_cursor cur;
	u32 dev_index;			/* the device being walked; 0: not started */
	u32 want_index;			/* 0: every device */
	char want_name[64];		/* "": every device */
	enum xqp_res_type type;
	bool has_qpn, has_pid;
	u32 qpn, pid;
	bool finished;			/* every device of the request walked */
	bool admin;			/* CAP_NET_ADMIN: everything, keys included */
	kuid_t uid;			/* otherwise: objects of this euid only */
	/* for emit, during one callback */
	struct sk_buff *skb;
	struct netlink_callback *cb;
	const char *dev_name;
	u32 emitted;
	bool full;
};

static int res_parse(struct netlink_callback *cb, struct res_dump *d, bool need_type)
{
	struct nlattr *tb[XQP_RES_A_MAX + 1];
	int ret;

	ret = nlmsg_parse(cb->nlh, GENL_HDRLEN, tb, XQP_RES_A_MAX, res_policy, cb->extack);
	if (ret)
		return ret;
	if (tb[XQP_RES_A_DEV_INDEX])
		d->want_index = nla_get_u32(tb[XQP_RES_A_DEV_INDEX]);
	if (tb[XQP_RES_A_DEV_NAME])
		nla_strscpy(d->want_name, tb[XQP_RES_A_DEV_NAME], sizeof(d->want_name));
	if (need_type) {
		if (!tb[XQP_RES_A_TYPE]) {
			NL_SET_ERR_MSG(cb->extack, "xqp_res: TYPE is required");
			return -EINVAL;
		}
		d->type = (enum xqp_res_type)nla_get_u32(tb[XQP_RES_A_TYPE]);
	}
	if (tb[XQP_RES_A_FILTER_QPN]) {
		d->has_qpn = true;
		d->qpn = nla_get_u32(tb[XQP_RES_A_FILTER_QPN]);
	}
	if (tb[XQP_RES_A_FILTER_PID]) {
		d->has_pid = true;
		d->pid = nla_get_u32(tb[XQP_RES_A_FILTER_PID]);
	}
	d->admin = netlink_capable(cb->skb, CAP_NET_ADMIN);
	d->uid = current_euid();
	return 0;
}

static int res_start(struct netlink_callback *cb, bool need_type)
{
	struct res_dump *d = kzalloc(sizeof(*d), GFP_KERNEL_ACCOUNT);
	int ret;

	if (!d)
		return -ENOMEM;
	ret = res_parse(cb, d, need_type);
	if (ret) {
		kfree(d);
		return ret;
	}
	cb->args[0] = (long)d;
	return 0;
}

static int res_start_dev(struct netlink_callback *cb)
{
	return res_start(cb, false);
}

static int res_start_obj(struct netlink_callback *cb)
{
	return res_start(cb, true);
}

static int res_done(struct netlink_callback *cb)
{
	kfree((void *)cb->args[0]);
	cb->args[0] = 0;
	return 0;
}

/* The next device of the request, by index (devs_mutex held). */
static struct res_dev *res_next_dev(struct res_dump *d, u32 from)
{
	struct res_dev *slot;

	for (slot = dev_from(from); slot; slot = dev_from(slot->index + 1)) {
		if (d->want_index && slot->index != d->want_index)
			continue;
		if (d->want_name[0] && strcmp(d->want_name, xqp_device_name(slot->dev)))
			continue;
		return slot;
	}
	return NULL;
}

static void *res_msg(struct res_dump *d, u8 cmd)
{
	return genlmsg_put(d->skb, NETLINK_CB(d->cb->skb).portid, d->cb->nlh->nlmsg_seq,
			   &xqp_res_family, NLM_F_MULTI, cmd);
}

/* ---- devices ------------------------------------------------------------- */

static int res_dev_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct res_dump *d = (void *)cb->args[0];
	struct res_dev *slot;
	int ret = 0;

	d->skb = skb;
	d->cb = cb;
	mutex_lock(&devs_mutex);
	for (slot = res_next_dev(d, d->dev_index + 1); slot;
	     slot = res_next_dev(d, slot->index + 1)) {
		struct xqp_device_attr attr;
		void *hdr = res_msg(d, XQP_RES_CMD_DEV_GET);

		if (!hdr)
			break;
		if (nla_put_u32(skb, XQP_RES_A_DEV_INDEX, slot->index) ||
		    nla_put_string(skb, XQP_RES_A_DEV_NAME, xqp_device_name(slot->dev)) ||
		    (!xqp_query_device(slot->dev, &attr) &&
		     nla_put_u32(skb, XQP_RES_A_PORTS, attr.phys_port_cnt))) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		d->dev_index = slot->index;
		d->emitted++;
	}
	if (slot && !d->emitted)
		ret = -EMSGSIZE;
	mutex_unlock(&devs_mutex);
	d->emitted = 0;
	return ret ? ret : skb->len;
}

/* ---- owners -------------------------------------------------------------- */

/* The uverbs object behind an event handler's context, or NULL. */
static const struct xqp_uobj *uverbs_of(xqp_event_handler_t handler, void *context)
{
	if (handler != xqp_uverbs_event_handler || !context)
		return NULL;
	return &((struct xqp_uevent_obj *)context)->uobj;
}

static bool visible(const struct res_dump *d, const struct xqp_uobj *u)
{
	return d->admin || (u && uid_eq(u->owner_uid, d->uid));
}

static bool pid_matches(const struct res_dump *d, const struct xqp_uobj *u)
{
	return !d->has_pid || (u && (u32)u->owner_pid == d->pid);
}

/*
 * Who holds an object: the process of its uverbs object @u; else the kernel
 * module @kern; else the kernel, named by its event handler's symbol; for
 * an object nobody needs to hold (@held false), nobody.
 */
static int put_owner(struct sk_buff *skb, const struct xqp_uobj *u, const char *kern,
		     xqp_event_handler_t handler, bool held)
{
	char sym[64];

	if (u)
		return nla_put_u8(skb, XQP_RES_A_OWNER_KIND, XQP_RES_OWNER_USER) ||
		       nla_put_u32(skb, XQP_RES_A_PID, (u32)u->owner_pid) ||
		       nla_put_string(skb, XQP_RES_A_COMM, u->owner_comm) ||
		       nla_put_u32(skb, XQP_RES_A_UHANDLE, u->id);
	/* a symbol name, never an address (%ps prints one without kallsyms) */
	if (!kern && handler && IS_ENABLED(CONFIG_KALLSYMS)) {
		snprintf(sym, sizeof(sym), "%ps", handler);
		kern = sym;
	}
	if (!kern && held)
		kern = "kernel";
	if (!kern)
		return nla_put_u8(skb, XQP_RES_A_OWNER_KIND, XQP_RES_OWNER_NONE);
	return nla_put_u8(skb, XQP_RES_A_OWNER_KIND, XQP_RES_OWNER_KERNEL) ||
	       nla_put_string(skb, XQP_RES_A_KERN_NAME, kern);
}

/* ---- objects ------------------------------------------------------------- */

static int put_u32_nz(struct sk_buff *skb, int type, u32 v)
{
	return v ? nla_put_u32(skb, type, v) : 0;
}

/* A shared QP: visible if one of its shares is; lists the visible ones. */
static int put_tgt(struct res_dump *d, const struct xqp_res_qp *qp)
{
	struct sk_buff *skb = d->skb;
	struct nlattr *list;
	u32 i;

	if (nla_put_u32(skb, XQP_RES_A_XRCDN, qp->xrcd) ||
	    nla_put_u32(skb, XQP_RES_A_XRCD_USECNT, qp->xrcd_usecnt) ||
	    nla_put_u32(skb, XQP_RES_A_SHARE_COUNT, qp->share_count) ||
	    (qp->dying && nla_put_flag(skb, XQP_RES_A_DYING)))
		return -EMSGSIZE;
	if (qp->caller && nla_put_string(skb, XQP_RES_A_KERN_NAME, qp->caller))
		return -EMSGSIZE;
	list = nla_nest_start(skb, XQP_RES_A_SHARES);
	if (!list)
		return -EMSGSIZE;
	for (i = 0; i < qp->nshares; i++) {
		const struct xqp_res_share *h = &qp->shares[i];
		const struct xqp_uobj *u = uverbs_of(h->handler, h->context);
		struct nlattr *one;

		if (!visible(d, u))
			continue;
		one = nla_nest_start(skb, XQP_RES_A_SHARE);
		if (!one || put_owner(skb, u, NULL, h->handler, true))
			return -EMSGSIZE;
		nla_nest_end(skb, one);
	}
	nla_nest_end(skb, list);
	return 0;
}

/* Whether a shared QP passes the request's filters. */
static bool tgt_wanted(const struct res_dump *d, const struct xqp_res_qp *qp)
{
	bool seen = false, pid = !d->has_pid;
	u32 i;

	for (i = 0; i < qp->nshares; i++) {
		const struct xqp_uobj *u = uverbs_of(qp->shares[i].handler,
						     qp->shares[i].context);

		seen |= visible(d, u);
		pid |= pid_matches(d, u) && visible(d, u);
	}
	return seen && pid;
}

static int put_qp(struct res_dump *d, const struct xqp_res_entry *e,
		  const struct xqp_uobj *u)
{
	struct sk_buff *skb = d->skb;
	const struct xqp_res_qp *qp = &e->qp;

	if (nla_put_u32(skb, XQP_RES_A_QPN, qp->qp_num) ||
	    nla_put_u8(skb, XQP_RES_A_QP_TYPE, (u8)qp->type))
		return -EMSGSIZE;
	if (qp->type == XQP_QPT_XRC_TGT)
		return put_tgt(d, qp);
	return put_u32_nz(skb, XQP_RES_A_PDN, qp->pd) ||
	       put_u32_nz(skb, XQP_RES_A_SCQN, qp->send_cq) ||
	       put_u32_nz(skb, XQP_RES_A_RCQN, qp->recv_cq) ||
	       put_u32_nz(skb, XQP_RES_A_SRQN, qp->srq) ||
	       put_owner(skb, u, qp->caller, e->handler, true);
}

static int put_fields(struct res_dump *d, const struct xqp_res_entry *e,
		      const struct xqp_uobj *u)
{
	struct sk_buff *skb = d->skb;

	if (e->type == XQP_RES_QP)
		return put_qp(d, e, u);
	if (put_owner(skb, u, NULL, NULL, false))
		return -EMSGSIZE;
	switch (e->type) {
	case XQP_RES_PD:
		return nla_put_u32(skb, XQP_RES_A_USECNT, e->usecnt);
	case XQP_RES_CQ:
		return nla_put_u32(skb, XQP_RES_A_USECNT, e->usecnt) ||
		       nla_put_u32(skb, XQP_RES_A_CQE, (u32)e->cq.cqe);
	case XQP_RES_SRQ:
		return nla_put_u32(skb, XQP_RES_A_USECNT, e->usecnt) ||
		       nla_put_u32(skb, XQP_RES_A_SRQ_NUM, e->srq.srq_num) ||
		       nla_put_u8(skb, XQP_RES_A_SRQ_TYPE, (u8)e->srq.type) ||
		       put_u32_nz(skb, XQP_RES_A_PDN, e->srq.pd) ||
		       put_u32_nz(skb, XQP_RES_A_SCQN, e->srq.cq) ||
		       put_u32_nz(skb, XQP_RES_A_XRCDN, e->srq.xrcd);
	case XQP_RES_XRCD:
		return nla_put_u32(skb, XQP_RES_A_USECNT, e->usecnt) ||
		       (e->xrcd.inode && nla_put_u64_64bit(skb, XQP_RES_A_INODE,
							   e->xrcd.inode, XQP_RES_A_PAD));
	case XQP_RES_MR:
		return put_u32_nz(skb, XQP_RES_A_PDN, e->mr.pd) ||
		       nla_put_u64_64bit(skb, XQP_RES_A_MR_LEN, e->mr.length, XQP_RES_A_PAD) ||
		       (d->admin && (nla_put_u32(skb, XQP_RES_A_LKEY, e->mr.lkey) ||
				     nla_put_u32(skb, XQP_RES_A_RKEY, e->mr.rkey)));
	default:
		return -EINVAL;
	}
}

/* The owner a report names for an entry (QPs: see put_qp()). */
static const struct xqp_uobj *entry_owner(const struct xqp_res_entry *e)
{
	if (e->type == XQP_RES_QP)
		return uverbs_of(e->handler, e->context);
	return e->owner;	/* only this layer sets owners: a struct xqp_uobj */
}

/* The walk's emit: filters, then one message; under the core's locks. */
static enum xqp_res_emit res_emit(void *arg, const struct xqp_res_entry *e)
{
	struct res_dump *d = arg;
	const struct xqp_uobj *u = entry_owner(e);
	bool tgt = e->type == XQP_RES_QP && e->qp.type == XQP_QPT_XRC_TGT;
	void *hdr;

	if (e->type == XQP_RES_QP && d->has_qpn && e->qp.qp_num != d->qpn)
		return XQP_RES_TAKEN;
	if (tgt ? !tgt_wanted(d, &e->qp) : !visible(d, u) || !pid_matches(d, u))
		return XQP_RES_TAKEN;

	hdr = res_msg(d, XQP_RES_CMD_RES_GET);
	if (!hdr)
		goto full;
	if (nla_put_u32(d->skb, XQP_RES_A_DEV_INDEX, d->dev_index) ||
	    nla_put_string(d->skb, XQP_RES_A_DEV_NAME, d->dev_name) ||
	    nla_put_u32(d->skb, XQP_RES_A_TYPE, (u32)e->type) ||
	    put_u32_nz(d->skb, XQP_RES_A_ID, e->id) ||
	    put_fields(d, e, u)) {
		genlmsg_cancel(d->skb, hdr);
		goto full;
	}
	genlmsg_end(d->skb, hdr);
	d->emitted++;
	return XQP_RES_TAKEN;
full:
	d->full = true;
	return XQP_RES_FULL;
}

/*
 * One callback: walks on from the cursor until the buffer is full or every
 * device of the request is done. Filtered-out objects cost budget, not
 * room: the walk is called again (the device mutex is dropped in between)
 * until something was reported, so the dump does not end early.
 */
static int res_obj_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct res_dump *d = (void *)cb->args[0];
	struct res_dev *slot;
	int ret = 0;

	d->skb = skb;
	d->cb = cb;
	d->emitted = 0;
	d->full = false;
	if (d->finished)
		return 0;
	mutex_lock(&devs_mutex);
	slot = res_next_dev(d, d->dev_index ? d->dev_index : 1);
	while (slot) {
		if (slot->index != d->dev_index) {
			d->dev_index = slot->index;
			memset(&d->cur, 0, sizeof(d->cur));
		}
		d->dev_name = xqp_device_name(slot->dev);
		ret = xqp_res_walk(slot->dev, d->type, &d->cur, &d->entry, RES_BUDGET,
				   res_emit, d);
		if (ret < 0 && ret != -EIO)
			break;
		if (ret == 1) {
			ret = 0;
			if (d->full)
				break;
			mutex_unlock(&devs_mutex);
			cond_resched();
			mutex_lock(&devs_mutex);
			slot = res_next_dev(d, d->dev_index);
			continue;
		}
		ret = 0;
		slot = res_next_dev(d, d->dev_index + 1);
	}
	d->finished = !slot && !ret;
	mutex_unlock(&devs_mutex);
	if (ret)
		return ret;
	/* An entry that does not fit an empty buffer would stall the dump. */
	if (d->full && !d->emitted)
		return -EMSGSIZE;
	return skb->len;
}

static const struct genl_ops res_ops[] = {
	{
		.cmd = XQP_RES_CMD_DEV_GET,
		.start = res_start_dev,
		.dumpit = res_dev_dumpit,
		.done = res_done,
	},
	{
		.cmd = XQP_RES_CMD_RES_GET,
		.start = res_start_obj,
		.dumpit = res_obj_dumpit,
		.done = res_done,
	},
};

static struct genl_family xqp_res_family = {
	.name = XQP_RES_GENL_NAME,
	.version = XQP_RES_GENL_VERSION,
	.maxattr = XQP_RES_A_MAX,
	.policy = res_policy,
	.netnsok = false,
	.module = THIS_MODULE,
	.ops = res_ops,
	.n_ops = ARRAY_SIZE(res_ops),
	.resv_start_op = XQP_RES_CMD_DEV_GET,
};

int xqp_nl_res_init(void)
{
	int ret;

	ret = xqp_register_client(&res_client);
	if (ret)
		return ret;
	ret = genl_register_family(&xqp_res_family);
	if (ret)
		xqp_unregister_client(&res_client);
	return ret;
}

void xqp_nl_res_exit(void)
{
	genl_unregister_family(&xqp_res_family);
	xqp_unregister_client(&res_client);
}
