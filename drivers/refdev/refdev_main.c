// SPDX-License-Identifier: GPL-2.0
/*
 * xqp_refdev.ko: the reference device module. With devices=N it registers N
 * persistent reference devices at load (xqp_ref0...), for userspace through
 * /dev/infiniband/uverbsN; the KUnit differential suite makes its own, one
 * per scenario, with xqp_refdev_create(). Unloading removes the persistent
 * ones (ib_uverbs keeps the module pinned while a process holds one open).
 * Every device, persistent or not, gets the debugfs event hook
 * /sys/kernel/debug/xqp_refdev/<ibdev name>/raise_{qp,srq,cq}_event (see refdev.c).
 */
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/module.h>

#include "refdev.h"

#define XQP_REFDEV_MAX_PERSISTENT 8

static unsigned int devices;
module_param(devices, uint, 0444);
MODULE_PARM_DESC(devices, "number of reference devices to register at load (0-8, default 0)");

static struct xqp_refdev *refdevs[XQP_REFDEV_MAX_PERSISTENT];

static void refdev_destroy_persistent(unsigned int n)
{
	while (n--) {
		xqp_refdev_destroy(refdevs[n]);
		refdevs[n] = NULL;
	}
}

static int __init xqp_refdev_init(void)
{
	unsigned int i;
	int ret;

	if (devices > XQP_REFDEV_MAX_PERSISTENT)
		return -EINVAL;
	xqp_refdev_debugfs_init();
	for (i = 0; i < devices; i++) {
		refdevs[i] = xqp_refdev_create();
		if (IS_ERR(refdevs[i])) {
			ret = PTR_ERR(refdevs[i]);
			refdevs[i] = NULL;
			refdev_destroy_persistent(i);
			xqp_refdev_debugfs_exit();
			return ret;
		}
		pr_info("xqp_refdev: registered %s\n",
			dev_name(&xqp_refdev_ibdev(refdevs[i])->dev));
	}
	return 0;
}

static void __exit xqp_refdev_exit(void)
{
	refdev_destroy_persistent(devices);
	xqp_refdev_debugfs_exit();
}

module_init(xqp_refdev_init);
module_exit(xqp_refdev_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("xqp reference device: a minimal XRC-capable ib_device for Linux's ib_core");
