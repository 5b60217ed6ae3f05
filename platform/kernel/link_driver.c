// SPDX-License-Identifier: GPL-2.0
/* The one driver of linked devices (link_driver.h), as xqp.ko holds it. */
#include <linux/module.h>
#include <linux/mutex.h>

#include "link_driver.h"

static DEFINE_MUTEX(xqp_link_driver_lock);
static const struct xqp_link_driver *xqp_link_driver;

int xqp_link_driver_register(const struct xqp_link_driver *drv)
{
	int err = 0;

	mutex_lock(&xqp_link_driver_lock);
	if (xqp_link_driver)
		err = -EBUSY;
	else
		xqp_link_driver = drv;
	mutex_unlock(&xqp_link_driver_lock);
	return err;
}
EXPORT_SYMBOL_GPL(xqp_link_driver_register);

/* Its module is going: no link holds it (each holds a module reference). */
void xqp_link_driver_unregister(const struct xqp_link_driver *drv)
{
	mutex_lock(&xqp_link_driver_lock);
	if (xqp_link_driver == drv)
		xqp_link_driver = NULL;
	mutex_unlock(&xqp_link_driver_lock);
}
EXPORT_SYMBOL_GPL(xqp_link_driver_unregister);

const struct xqp_link_driver *xqp_link_driver_get(void)
{
	const struct xqp_link_driver *drv;

	mutex_lock(&xqp_link_driver_lock);
	drv = xqp_link_driver;
	if (drv && !try_module_get(drv->owner))
		drv = NULL;	/* its module is on its way out */
	mutex_unlock(&xqp_link_driver_lock);
	return drv;
}
EXPORT_SYMBOL_GPL(xqp_link_driver_get);

void xqp_link_driver_put(const struct xqp_link_driver *drv)
{
	module_put(drv->owner);
}
EXPORT_SYMBOL_GPL(xqp_link_driver_put);
