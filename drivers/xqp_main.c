// SPDX-License-Identifier: GPL-2.0
/*
 * xqp.ko: the core (C++), its kernel seam and the C API exports. Drivers
 * (xqp_soft.ko first) register devices with it; clients hear of them.
 */
#include <linux/module.h>
#include <linux/rcupdate.h>

static int __init xqp_init(void)
{
	pr_info("xqp: core loaded\n");
	return 0;
}

static void __exit xqp_exit(void)
{
	/* Handles and QPs are freed by RCU callbacks that live in this module. */
	rcu_barrier();
}

module_init(xqp_init);
module_exit(xqp_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("xqp: shareable (XRC target) queue pairs with a freestanding C++ core");
