// SPDX-License-Identifier: GPL-2.0
/*
 * Links, as rxe has them: `rdma link add NAME type xqp netdev DEV` makes a
 * soft device bound to DEV (drivers/soft/link.c) whose ib_device is a RoCE
 * device on DEV; `rdma link delete NAME`, or DEV's unregistration, removes
 * it again. The soft device is made through xqp.ko's link driver
 * (platform/kernel/link_driver.h), so xqp_soft.ko is no dependency of this
 * module: it is pinned only while a link holds one of its devices. The xqp
 * device keeps its char device (/dev/xqp/uverbsN), its verbs and its
 * provider, like any other; what the link adds is the address: link layer
 * Ethernet, the GIDs ib_core's RoCE GID management makes from DEV's
 * addresses (mirrored into the soft device, which routes by them), the
 * port state and MTU of DEV.
 *
 * Ownership: the link (struct xqp_link) holds DEV, the soft device and a
 * reference on its driver's module; the ib_device is ib_core's once
 * registered (dealloc_driver), so every removal starts by unregistering
 * it, from wherever it comes (dellink, NETDEV_UNREGISTER, module exit).
 * Its dealloc_driver queues the link's teardown (soft device, netdev
 * reference, the link), which cannot run in ib_core's unregistration: it
 * takes the registry lock and the RTNL.
 *
 * Locks, outermost first: xqp_links_lock (a newlink, a teardown) ->
 * the xqp registry lock -> RTNL (ib_core's registration). The netdev
 * notifier runs under the RTNL, so it takes only xqp_links_spin (the list
 * and each link's ib_device pointer); a teardown unlinks under the RTNL,
 * so a notifier that found a link may use it until it returns.
 */
#include <linux/if_vlan.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_netlink.h>

#include <xqp/driver.h>
#include "../../platform/kernel/link_driver.h"
#include "ibdev.h"

/* rxe's: what RoCE v2 headers leave of a link's MTU (RXE_MAX_HDR_LENGTH). */
#define XQP_LINK_HDR_LENGTH	80

struct xqp_link {
	struct list_head node;		/* on xqp_links: xqp_links_lock and _spin */
	const struct xqp_link_driver *drv;	/* its module referenced */
	void *dev;			/* the driver's device, once newlink made it */
	struct net_device *ndev;
	netdevice_tracker tracker;
	struct xqp_ibdev *d;		/* NULL once ib_core frees it: _spin */
	bool registered;		/* its ib_device was registered */
	int add_err;			/* why not, else */
	struct work_struct del_work;
};

static LIST_HEAD(xqp_links);
static DEFINE_MUTEX(xqp_links_lock);
static DEFINE_SPINLOCK(xqp_links_spin);
/* The link newlink is making: the client's add() runs in newlink's thread. */
static struct xqp_link *xqp_link_creating;
static struct workqueue_struct *xqp_link_wq;

static bool link_up(const struct net_device *ndev)
{
	return netif_running(ndev) && netif_carrier_ok(ndev);
}

static enum xqp_mtu link_mtu(const struct net_device *ndev)
{
	return (enum xqp_mtu)ib_mtu_int_to_enum((int)READ_ONCE(ndev->mtu) - XQP_LINK_HDR_LENGTH);
}

/* The link on @ndev; xqp_links_spin held. */
static struct xqp_link *link_of(const struct net_device *ndev)
{
	struct xqp_link *link;

	list_for_each_entry(link, &xqp_links, node)
		if (link->ndev == ndev)
			return link;
	return NULL;
}

/* ---- the ib_device's own ops -------------------------------------------- */

/*
 * ib_core's GID table changed: the soft device routes by the same GIDs and
 * answers libibverbs' GID queries with them, types and netdevs included
 * (ib_gid_type and ib_uverbs' numbers are xqp_gid_type's). ib_core holds
 * the entry's netdev while it adds it.
 */
static int xqp_link_add_gid(const struct ib_gid_attr *attr, void **context)
{
	struct xqp_gid_entry e = {
		.gid_type = attr->gid_type,
		.ndev_ifindex = attr->ndev ? attr->ndev->ifindex : 0,
	};

	memcpy(e.gid, attr->gid.raw, sizeof(e.gid));
	return xqp_modify_gid(to_ibdev(attr->device)->xdev, attr->port_num, attr->index, &e);
}

static int xqp_link_del_gid(const struct ib_gid_attr *attr, void **context)
{
	return xqp_modify_gid(to_ibdev(attr->device)->xdev, attr->port_num, attr->index, NULL);
}
static_assert((int)IB_GID_TYPE_IB == (int)XQP_GID_TYPE_IB &&
	      (int)IB_GID_TYPE_ROCE == (int)XQP_GID_TYPE_ROCE_V1 &&
	      (int)IB_GID_TYPE_ROCE_UDP_ENCAP == (int)XQP_GID_TYPE_ROCE_V2);

/*
 * The port's counters (the wire's: packets, drops by cause, duplicates,
 * retransmissions, NAKs) as ib_core's hw_counters, in sysfs
 * (ports/1/hw_counters/) and `rdma statistic`, as rxe has its own.
 */
#define XQP_LINK_MAX_STATS 64

static struct rdma_hw_stats *xqp_link_alloc_port_stats(struct ib_device *ibdev, u32 port)
{
	struct xqp_ibdev *d = to_ibdev(ibdev);
	const char *names[XQP_LINK_MAX_STATS];
	int i, n = xqp_port_stats(d->xdev, port, names, NULL, ARRAY_SIZE(names));

	if (n <= 0)
		return NULL;
	n = min_t(int, n, ARRAY_SIZE(names));
	if (!d->stat_descs) {	/* one port: made once, freed with the device */
		d->stat_descs = kcalloc(n, sizeof(*d->stat_descs), GFP_KERNEL);
		if (!d->stat_descs)
			return NULL;
		for (i = 0; i < n; i++)
			d->stat_descs[i].name = names[i];
	}
	return rdma_alloc_hw_stats_struct(d->stat_descs, n, RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

static int xqp_link_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats, u32 port,
				 int index)
{
	int n;

	BUILD_BUG_ON(sizeof(xqp_u64) != sizeof(*stats->value));
	n = xqp_port_stats(to_ibdev(ibdev)->xdev, port, NULL, (xqp_u64 *)stats->value,
			   stats->num_counters);
	return n < 0 ? n : min_t(int, n, stats->num_counters);
}

/*
 * ib_core is done with the ib_device (its unregistration, under its
 * locks): the rest of the link goes in a work. Not for a device whose
 * registration failed: newlink unwinds that one itself.
 */
static void xqp_link_dealloc_driver(struct ib_device *ibdev)
{
	struct xqp_ibdev *d = to_ibdev(ibdev);
	struct xqp_link *link = d->link;

	kfree(d->stat_descs);
	d->stat_descs = NULL;
	put_device(d->parent);
	if (!d->registered)
		return;
	spin_lock(&xqp_links_spin);
	link->d = NULL;
	spin_unlock(&xqp_links_spin);
	queue_work(xqp_link_wq, &link->del_work);
}

const struct ib_device_ops xqp_link_ops = {
	.add_gid = xqp_link_add_gid,
	.del_gid = xqp_link_del_gid,
	.alloc_hw_port_stats = xqp_link_alloc_port_stats,
	.get_hw_stats = xqp_link_get_hw_stats,
	.dealloc_driver = xqp_link_dealloc_driver,
};

/* ---- the client's hooks -------------------------------------------------- */

/* The ib_device of a linked xqp device newlink is making. */
void *xqp_link_add(struct xqp_device *xdev)
{
	struct xqp_link *link = xqp_link_creating;
	struct xqp_ibdev *d;
	int err;

	lockdep_assert_held(&xqp_links_lock);
	if (WARN_ON(!link || link->ndev != xqp_device_netdev(xdev, 1)))
		return ERR_PTR(-EINVAL);
	d = xqp_ibdev_alloc(xdev);
	if (IS_ERR(d)) {
		link->add_err = PTR_ERR(d);
		return d;
	}
	d->link = link;
	ib_set_device_ops(&d->ibdev, &xqp_link_ops);
	ib_set_device_ops(&d->ibdev, &xqp_kverbs_ops);
	err = ib_device_set_netdev(&d->ibdev, link->ndev, 1);
	if (!err) {
		spin_lock(&xqp_links_spin);
		link->d = d;
		spin_unlock(&xqp_links_spin);
		err = xqp_ibdev_register(d);
	}
	if (err) {
		spin_lock(&xqp_links_spin);
		link->d = NULL;
		spin_unlock(&xqp_links_spin);
		link->add_err = err;
		ib_dealloc_device(&d->ibdev);	/* dealloc_driver puts the parent */
		return ERR_PTR(err);
	}
	link->registered = true;
	return link;
}

/* PORT_ACTIVE and PORT_ERR reach ib_core's clients too; GID_CHANGE it raises itself. */
void xqp_link_event(struct xqp_link *link, struct xqp_event *ev)
{
	struct ib_event ibev = {};
	struct xqp_ibdev *d;

	if (ev->event != XQP_EVENT_PORT_ACTIVE && ev->event != XQP_EVENT_PORT_ERR)
		return;
	spin_lock(&xqp_links_spin);
	d = link->d;
	if (d && !ib_device_try_get(&d->ibdev))
		d = NULL;
	spin_unlock(&xqp_links_spin);
	if (!d)
		return;
	ibev.device = &d->ibdev;
	ibev.element.port_num = ev->element.port_num;
	ibev.event = (enum ib_event_type)ev->event;
	ib_dispatch_event(&ibev);
	ib_device_put(&d->ibdev);
}

/* ---- link add, delete, teardown ---------------------------------------- */

/* The teardown once the ib_device is gone: soft device, netdev, link. */
static void xqp_link_del_work(struct work_struct *work)
{
	struct xqp_link *link = container_of(work, struct xqp_link, del_work);

	mutex_lock(&xqp_links_lock);	/* a newlink still finishing it */
	rtnl_lock();
	spin_lock(&xqp_links_spin);
	list_del(&link->node);
	spin_unlock(&xqp_links_spin);
	rtnl_unlock();
	mutex_unlock(&xqp_links_lock);

	link->drv->destroy(link->dev);	/* its files: EIO, DEVICE_FATAL */
	xqp_link_driver_put(link->drv);
	netdev_put(link->ndev, &link->tracker);
	kfree(link);
}

/* rdma_link_ops.newlink: nldev_newlink() holds a reference on @ndev. */
static int xqp_newlink(const char *ibdev_name, struct net_device *ndev)
{
	struct xqp_link *link;
	void *dev;
	int err;

	if (is_vlan_dev(ndev)) {
		pr_err("xqp: links go on a real device, not on VLAN %s (as rxe's)\n", ndev->name);
		return -EPERM;
	}
	/*
	 * A link deleted just before (its ib_device gone, `rdma link delete`
	 * returned) may still be in its teardown work, holding its netdev and
	 * its char device: `rdma link delete; rdma link add` on the same
	 * netdev must not find it (EEXIST), as rxe's does not. The work takes
	 * xqp_links_lock and the RTNL; neither is held here.
	 */
	flush_workqueue(xqp_link_wq);
	mutex_lock(&xqp_links_lock);
	spin_lock(&xqp_links_spin);
	link = link_of(ndev);
	spin_unlock(&xqp_links_spin);
	if (link) {
		pr_err("xqp: %s already has a link\n", ndev->name);
		err = -EEXIST;
		goto out;
	}
	link = kzalloc(sizeof(*link), GFP_KERNEL);
	if (!link) {
		err = -ENOMEM;
		goto out;
	}
	link->drv = xqp_link_driver_get();
	if (!link->drv) {
		request_module("xqp_soft");
		link->drv = xqp_link_driver_get();
	}
	if (!link->drv) {
		pr_err("xqp: no driver of linked devices (xqp_soft.ko)\n");
		err = -EOPNOTSUPP;
		goto err_free;
	}
	link->ndev = ndev;
	netdev_hold(ndev, &link->tracker, GFP_KERNEL);
	INIT_WORK(&link->del_work, xqp_link_del_work);

	xqp_link_creating = link;
	dev = link->drv->create(ibdev_name, ndev, link_up(ndev), link_mtu(ndev));
	xqp_link_creating = NULL;
	if (IS_ERR(dev)) {
		err = PTR_ERR(dev);
		goto err_link;
	}
	if (!link->registered) {
		/* the char device or the ib_device could not be made */
		err = link->add_err ?: -ENODEV;
		pr_err("xqp: no ib_device %s on %s: %d\n", ibdev_name, ndev->name, err);
		link->drv->destroy(dev);
		goto err_link;
	}
	link->dev = dev;
	spin_lock(&xqp_links_spin);
	list_add_tail(&link->node, &xqp_links);
	spin_unlock(&xqp_links_spin);
	/* what the netdev did while it was not listed yet */
	link->drv->update(dev, link_up(ndev), link_mtu(ndev));
	mutex_unlock(&xqp_links_lock);
	return 0;

err_link:
	netdev_put(ndev, &link->tracker);
	xqp_link_driver_put(link->drv);
err_free:
	kfree(link);
out:
	mutex_unlock(&xqp_links_lock);
	return err;
}

static struct rdma_link_ops xqp_rdma_link_ops = {
	.type = "xqp",
	.newlink = xqp_newlink,
};

/* rxe_notify()'s rules: the port follows the netdev; its unregistration removes the link. */
static int xqp_link_notify(struct notifier_block *nb, unsigned long event, void *arg)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(arg);
	struct ib_device *ibdev = NULL;
	struct xqp_link *link;

	ASSERT_RTNL();
	spin_lock(&xqp_links_spin);
	link = link_of(ndev);
	if (link && event == NETDEV_UNREGISTER && link->d &&
	    ib_device_try_get(&link->d->ibdev))
		ibdev = &link->d->ibdev;
	spin_unlock(&xqp_links_spin);
	if (!link)
		return NOTIFY_OK;
	switch (event) {
	case NETDEV_UNREGISTER:
		if (ibdev) {
			ib_unregister_device_queued(ibdev);
			ib_device_put(ibdev);
		}
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_CHANGEMTU:
		/* unlinked only under the RTNL: the soft device is there */
		link->drv->update(link->dev, link_up(ndev), link_mtu(ndev));
		break;
	default:
		break;
	}
	return NOTIFY_OK;
}

static struct notifier_block xqp_link_nb = {
	.notifier_call = xqp_link_notify,
};

int xqp_link_init(void)
{
	int err;

	xqp_link_wq = alloc_workqueue("xqp_link", WQ_UNBOUND, 0);
	if (!xqp_link_wq)
		return -ENOMEM;
	err = register_netdevice_notifier(&xqp_link_nb);
	if (err) {
		destroy_workqueue(xqp_link_wq);
		return err;
	}
	rdma_link_register(&xqp_rdma_link_ops);
	return 0;
}

/*
 * No new link (rdma_link_unregister() waits out a newlink in progress);
 * then each link's ib_device is unregistered, which queues its teardown,
 * and the teardowns are waited for. A device another path is already
 * unregistering is waited for the same way (ib_unregister_device() fences).
 */
void xqp_link_exit(void)
{
	struct xqp_ibdev *d;
	struct xqp_link *link;

	rdma_link_unregister(&xqp_rdma_link_ops);
	for (;;) {
		d = NULL;
		spin_lock(&xqp_links_spin);
		list_for_each_entry(link, &xqp_links, node) {
			if (link->d) {
				d = link->d;
				get_device(&d->ibdev.dev);
				break;
			}
		}
		spin_unlock(&xqp_links_spin);
		if (!d)
			break;
		ib_unregister_device(&d->ibdev);
		put_device(&d->ibdev.dev);
	}
	flush_workqueue(xqp_link_wq);
	WARN_ON(!list_empty(&xqp_links));
	unregister_netdevice_notifier(&xqp_link_nb);
	destroy_workqueue(xqp_link_wq);
}
