/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What xqp.ko's char device offers other modules: the struct device behind
 * /dev/xqp/uverbsN (class "xqp_uverbs"), for xqp_ibdev.ko to parent its
 * ib_device on, so that libibverbs' provider can find the xqp node from
 * /sys/class/infiniband/<ibdev>/device.
 */
#ifndef XQP_UVERBS_EXPORT_H
#define XQP_UVERBS_EXPORT_H

#include <xqp/verbs.h>

struct device;

struct device *xqp_uverbs_get_device(struct xqp_device *xdev);

#endif
