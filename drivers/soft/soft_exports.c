// SPDX-License-Identifier: GPL-2.0
/* Exports of the soft device's API, for the KUnit module and later drivers. */
#include <linux/export.h>

#include "soft/soft.h"

EXPORT_SYMBOL_GPL(xqp_soft_default_limits);
EXPORT_SYMBOL_GPL(xqp_soft_create);
EXPORT_SYMBOL_GPL(xqp_soft_create_linked);
EXPORT_SYMBOL_GPL(xqp_soft_link_update);
EXPORT_SYMBOL_GPL(xqp_soft_destroy);
EXPORT_SYMBOL_GPL(xqp_soft_device);
EXPORT_SYMBOL_GPL(xqp_soft_ops);
EXPORT_SYMBOL_GPL(xqp_soft_counts);
EXPORT_SYMBOL_GPL(xqp_soft_inject);
EXPORT_SYMBOL_GPL(xqp_soft_op_calls);
EXPORT_SYMBOL_GPL(xqp_soft_op_name);
EXPORT_SYMBOL_GPL(xqp_soft_op_lookup);
EXPORT_SYMBOL_GPL(xqp_soft_raise_qp_event);
EXPORT_SYMBOL_GPL(xqp_soft_raise_srq_event);
EXPORT_SYMBOL_GPL(xqp_soft_raise_cq_event);
EXPORT_SYMBOL_GPL(xqp_soft_set_qpn_cursor);
EXPORT_SYMBOL_GPL(xqp_soft_lid);
EXPORT_SYMBOL_GPL(xqp_soft_cq_overruns);
EXPORT_SYMBOL_GPL(xqp_soft_count_data_path);
