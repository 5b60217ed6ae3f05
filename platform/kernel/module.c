// SPDX-License-Identifier: GPL-2.0
/*
 * xqp.ko: the core (C++), its kernel seam and the C API exports. Drivers
 * (xqp_soft.ko first) register devices with it; clients hear of them. The
 * first client is the uverbs character device (uverbs/), which gives
 * every device a /dev/xqp/uverbsN.
 */
#include <linux/module.h>
#include <linux/rcupdate.h>

#include "../../uverbs/nl_res.h"
#include "../../uverbs/uverbs.h"
#include "xqp/seam.h"

static int __init xqp_init(void)
{
	int ret;

	ret = xqp_seam_init();
	if (ret)
		return ret;
	ret = xqp_uverbs_init();
	if (ret) {
		pr_err("xqp: uverbs char device: error %d\n", ret);
		xqp_seam_exit();
		return ret;
	}
	ret = xqp_nl_res_init();
	if (ret) {
		pr_err("xqp: xqp_res netlink family: error %d\n", ret);
		xqp_uverbs_exit();
		xqp_seam_exit();
		return ret;
	}
	pr_info("xqp: core loaded\n");
	return 0;
}

static void __exit xqp_exit(void)
{
	xqp_nl_res_exit();
	xqp_uverbs_exit();
	xqp_seam_exit();
	/* Handles, QPs and uverbs objects are freed by RCU callbacks in here. */
	rcu_barrier();
}

module_init(xqp_init);
module_exit(xqp_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("xqp: shareable (XRC target) queue pairs with a freestanding C++ core");
