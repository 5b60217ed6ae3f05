/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What makes linked devices (`rdma link add ... type xqp`), offered by the
 * driver that has them (xqp_soft.ko) to the module that owns the links
 * (xqp_ibdev.ko), through xqp.ko, so that neither module needs the
 * other's symbols: xqp_soft.ko stays unloadable while xqp_ibdev.ko is
 * loaded, and is pinned only while a link holds one of its devices.
 */
#ifndef XQP_LINK_DRIVER_H
#define XQP_LINK_DRIVER_H

#include <xqp/verbs.h>

struct module;
struct net_device;

struct xqp_link_driver {
	struct module *owner;
	/* A registered device bound to @ndev (opaque to the caller), or an ERR_PTR. */
	void *(*create)(const char *name, struct net_device *ndev, int up, enum xqp_mtu mtu);
	int (*update)(void *link_dev, int up, enum xqp_mtu mtu);
	void (*destroy)(void *link_dev);
};

int xqp_link_driver_register(const struct xqp_link_driver *drv);	/* 0, -EBUSY */
void xqp_link_driver_unregister(const struct xqp_link_driver *drv);
/* The driver with its module referenced, or NULL; put it when done. */
const struct xqp_link_driver *xqp_link_driver_get(void);
void xqp_link_driver_put(const struct xqp_link_driver *drv);

#endif
