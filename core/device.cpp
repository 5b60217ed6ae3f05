// SPDX-License-Identifier: GPL-2.0
/* Device registration, refcount, queries and teardown at unregistration. */
#include "objects.h"

using namespace xqp;

void xqp_device::put()
{
	if (refs.dec() == 0)
		delete this;
}

void xqp_device::track(ListNode *n, RcuList xqp_device_objects::*list, u32 *res_id)
{
	auto objs = objects.lock();
	objs->last_res_id++;
	if (res_id)
		*res_id = objs->last_res_id;
	((*objs).*list).add_head(n);
	objs->count++;
}

void xqp_device::untrack(ListNode *n)
{
	auto objs = objects.lock();
	RcuList::del(n);
	objs->count--;
}

extern "C" struct xqp_device *xqp_register_device(const char *name,
						  const struct xqp_device_ops *ops,
						  void *drv)
{
	if (!name || !ops || !ops->create_qp || !ops->destroy_qp)
		return err_ptr<xqp_device>(-XQP_EINVAL);
	auto *dev = new (Gfp::kernel()) xqp_device;
	if (!dev)
		return err_ptr<xqp_device>(-XQP_ENOMEM);
	dev->ops = ops;
	dev->drv = drv;
	size_t i = 0;
	for (; name[i] && i < sizeof(dev->name) - 1; i++)
		dev->name[i] = name[i];
	dev->name[i] = '\0';
	xqp_device_attr attr = {};
	if (ops->query_device && !ops->query_device(drv, &attr)) {
		dev->phys_port_cnt = attr.phys_port_cnt;
		dev->max_ah = attr.max_ah;
	} else {
		dev->phys_port_cnt = 1;
	}
	registry_add(dev);
	return dev;
}

extern "C" const char *xqp_device_name(const struct xqp_device *dev)
{
	return dev->name;
}

/**
 * xqp_query_device - the device's attributes (ib_query_device).
 * @dev: the device.
 * @attr: filled by the driver (zeroed first).
 *
 * Return: 0, -EIO for a removed device, -EOPNOTSUPP, or the driver's error.
 */
extern "C" int xqp_query_device(struct xqp_device *dev, struct xqp_device_attr *attr)
{
	if (!dev->alive())
		return -XQP_EIO;
	*attr = xqp_device_attr{};
	if (!dev->ops->query_device)
		return -XQP_EOPNOTSUPP;
	return dev->ops->query_device(dev->drv, attr);
}

/* Destroys the driver side of every object on @list, keeping the core side. */
template <typename T>
static void detach_list(xqp_device *dev, RcuList &list, int (*destroy)(void *, void *))
{
	list.for_each([&](ListNode *n) {
		T *obj = from_dev_node<T>(n);
		XQP_WARN_ON(destroy(dev->drv, drv_of(obj)));
		drv_of(obj) = nullptr;
	});
}

/* MRs: the driver's side goes, and with it the memory (pages unpinned). */
static void detach_mrs(xqp_device *dev, RcuList &list)
{
	list.for_each([&](ListNode *n) {
		xqp_mr *mr = from_dev_node<xqp_mr>(n);
		if (XQP_WARN_ON(dev->ops->dereg_mr(dev->drv, mr->t.drv)))
			return;
		mr->mem->ops->release(mr->mem);
		mr->mem = nullptr;	/* under the lock a resource walk takes */
		mr->t.drv = nullptr;
	});
}

/* XRC_TGT QPs live in their XRCD's table, not on the device's list. */
static void detach_xrc_tgt(xqp_device *dev, xqp_xrcd *xrcd)
{
	auto table = xrcd->table.lock();
	table->for_each([&](RealQp *qp) {
		XQP_WARN_ON(dev->ops->destroy_qp(dev->drv, qp->drv));
		qp->drv = nullptr;
		/* A QP whose shares were all closed has no owner left. */
		if (qp->shared.lock()->share_count == 0) {
			table->erase(qp->qp_num, qp);
			xrcd->usecnt.dec();
			qp->free_after_grace();
		}
	});
}

/*
 * Strays (objects.h) have no owner: they go with their driver side. One at
 * a time, off the list before it is freed (a walk would read the freed
 * node's next: no RCU read side is held here, the driver may sleep).
 */
static void detach_strays(xqp_device *dev, xqp_device_objects &objs)
{
	while (RealQp *qp = first_stray(objs, nullptr)) {
		XQP_WARN_ON(dev->ops->destroy_qp(dev->drv, qp->drv));
		qp->drv = nullptr;
		RcuList::del(&qp->dev_node);
		objs.count--;
		qp->free_after_grace();
	}
}

/*
 * Detach every driver object, dependents first: QPs (the XRC_TGT ones through
 * their XRCD tables, and the strays), SRQs, MWs, MRs, CQs, XRCDs, PDs (AHs have
 * no driver side). The core objects stay allocated for their owners, whose
 * later calls get -EIO, and whose destroy/close/dealloc frees them (strays
 * have no owner: they are freed here). The caller guarantees no verb runs
 * concurrently.
 */
static void detach_all(xqp_device *dev)
{
	auto objs = dev->objects.lock();
	const xqp_device_ops *ops = dev->ops;

	detach_list<RealQp>(dev, objs->qps, ops->destroy_qp);
	objs->xrcds.for_each([&](ListNode *n) { detach_xrc_tgt(dev, from_dev_node<xqp_xrcd>(n)); });
	detach_strays(dev, *objs);
	detach_list<xqp_srq>(dev, objs->srqs, ops->destroy_srq);
	detach_list<xqp_mw>(dev, objs->mws, ops->dealloc_mw);	/* before their MRs */
	detach_mrs(dev, objs->mrs);
	detach_list<xqp_cq>(dev, objs->cqs, ops->destroy_cq);
	detach_list<xqp_xrcd>(dev, objs->xrcds, ops->dealloc_xrcd);
	detach_list<xqp_pd>(dev, objs->pds, ops->dealloc_pd);
}

extern "C" void xqp_unregister_device(struct xqp_device *dev)
{
	registry_remove(dev);	/* clients destroy what their users hold */
	dev->dead.store(1);
	detach_all(dev);
	/* Handles may still be in their RCU grace period: let them go first. */
	xqp_rcu_barrier();
	dev->put();
}
