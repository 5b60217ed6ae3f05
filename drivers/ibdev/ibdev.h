/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xqp_ibdev.ko's files: ibdev.c registers an ib_device for every xqp
 * device (the discovery face libibverbs lists); link.c makes linked
 * devices, `rdma link add NAME type xqp netdev DEV`, whose ib_device is a
 * RoCE device on that netdev and is owned by ib_core (dealloc_driver);
 * kverbs.c gives a linked device's ib_device kernel verbs (rdma_cm).
 */
#ifndef XQP_IBDEV_H
#define XQP_IBDEV_H

#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include <xqp/verbs.h>

struct xqp_link;

struct xqp_ibdev {
	struct ib_device ibdev;		/* first: ib_alloc_device() */
	struct xqp_device *xdev;
	struct device *parent;		/* the char device, referenced */
	struct xqp_link *link;		/* a linked device's link, else NULL */
	struct xarray kqps;		/* kernel QPs by number (kverbs.c) */
	struct rdma_stat_desc *stat_descs; /* a link's hw_counters (link.c) */
	bool registered;		/* ib_register_device() succeeded */
};

static inline struct xqp_ibdev *to_ibdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct xqp_ibdev, ibdev);
}

/* ibdev.c: an ib_device for @xdev, filled but not registered. */
struct xqp_ibdev *xqp_ibdev_alloc(struct xqp_device *xdev);
/* ibdev.c: undoes xqp_ibdev_alloc() of a device never registered. */
void xqp_ibdev_free(struct xqp_ibdev *d);
/* ibdev.c: registers @d under the xqp device's name. */
int xqp_ibdev_register(struct xqp_ibdev *d);

/* link.c: the client's hooks for linked devices. */
void *xqp_link_add(struct xqp_device *xdev);
void xqp_link_event(struct xqp_link *link, struct xqp_event *ev);
/* kverbs.c: kernel verbs, which a linked device's ib_device has. */
extern const struct ib_device_ops xqp_kverbs_ops;
/* link.c: the ib_device ops only a linked device has. */
extern const struct ib_device_ops xqp_link_ops;
int xqp_link_init(void);
void xqp_link_exit(void);

#endif
