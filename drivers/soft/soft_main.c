// SPDX-License-Identifier: GPL-2.0
/*
 * xqp_soft.ko: the soft device driver module. Creates `devices` devices (one
 * subnet: xqp_soft0 has LID 1, xqp_soft1 LID 2, ...)
 * and, with selftest=1, runs the shared-QP self-test at load (the check used
 * on kernels without KUnit). Unloading it removes its devices, as unplugging
 * an adapter would.
 */
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/module.h>

#include "soft/soft.h"
#include "soft/selftest.h"

#define XQP_MAX_SOFT 8

static unsigned int soft_devices = 1;
module_param_named(devices, soft_devices, uint, 0444);
MODULE_PARM_DESC(devices, "number of soft devices on the subnet (0-8, default 1)");

static bool selftest;
module_param(selftest, bool, 0444);
MODULE_PARM_DESC(selftest, "run the shared-QP self-test at load, narrating each step");

static struct xqp_soft *xqp_softs[XQP_MAX_SOFT];

static void xqp_destroy_softs(unsigned int n)
{
	while (n--)
		xqp_soft_destroy(xqp_softs[n]);
}

static int __init xqp_soft_init(void)
{
	char name[16];
	unsigned int i;
	int ret;

	if (soft_devices > XQP_MAX_SOFT)
		return -EINVAL;
	for (i = 0; i < soft_devices; i++) {
		snprintf(name, sizeof(name), "xqp_soft%u", i);
		xqp_softs[i] = xqp_soft_create(name, NULL);
		if (IS_ERR(xqp_softs[i])) {
			ret = PTR_ERR(xqp_softs[i]);
			goto err_softs;
		}
	}
	if (selftest) {
		ret = xqp_selftest_run();
		if (ret)
			goto err_softs;
	}
	pr_info("xqp_soft: %u device(s)\n", soft_devices);
	return 0;

err_softs:
	xqp_destroy_softs(i);
	return ret;
}

static void __exit xqp_soft_exit(void)
{
	xqp_destroy_softs(soft_devices);
}

module_init(xqp_soft_init);
module_exit(xqp_soft_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("xqp soft device: a software XRC-capable device for xqp");
