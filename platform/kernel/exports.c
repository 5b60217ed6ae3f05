// SPDX-License-Identifier: GPL-2.0
/*
 * Exports of the core's C API (defined in C++; EXPORT_SYMBOL is a kernel
 * header macro, so the exports live here, in C).
 */
#include <linux/export.h>

#include "xqp/driver.h"

EXPORT_SYMBOL_GPL(xqp_register_device);
EXPORT_SYMBOL_GPL(xqp_unregister_device);
EXPORT_SYMBOL_GPL(xqp_qp_event);
EXPORT_SYMBOL_GPL(xqp_cq_event);
EXPORT_SYMBOL_GPL(xqp_srq_event);
EXPORT_SYMBOL_GPL(xqp_query_device);
EXPORT_SYMBOL_GPL(xqp_query_port);
EXPORT_SYMBOL_GPL(xqp_query_gid);
EXPORT_SYMBOL_GPL(xqp_query_pkey);
EXPORT_SYMBOL_GPL(xqp_device_name);
EXPORT_SYMBOL_GPL(xqp_device_netdev);
EXPORT_SYMBOL_GPL(xqp_port_stats);
EXPORT_SYMBOL_GPL(xqp_modify_gid);
EXPORT_SYMBOL_GPL(xqp_device_event);
EXPORT_SYMBOL_GPL(xqp_alloc_pd);
EXPORT_SYMBOL_GPL(xqp_dealloc_pd);
EXPORT_SYMBOL_GPL(xqp_create_cq);
EXPORT_SYMBOL_GPL(xqp_destroy_cq);
EXPORT_SYMBOL_GPL(xqp_cq_cqe);
EXPORT_SYMBOL_GPL(xqp_alloc_xrcd);
EXPORT_SYMBOL_GPL(xqp_dealloc_xrcd);
EXPORT_SYMBOL_GPL(xqp_xrcd_usecnt);
EXPORT_SYMBOL_GPL(xqp_xrcd_get_user);
EXPORT_SYMBOL_GPL(xqp_xrcd_put_user);
EXPORT_SYMBOL_GPL(xqp_create_srq);
EXPORT_SYMBOL_GPL(xqp_destroy_srq);
EXPORT_SYMBOL_GPL(xqp_srq_num);
EXPORT_SYMBOL_GPL(xqp_create_qp_user);
EXPORT_SYMBOL_GPL(xqp_open_qp);
EXPORT_SYMBOL_GPL(xqp_close_qp);
EXPORT_SYMBOL_GPL(xqp_destroy_qp);
EXPORT_SYMBOL_GPL(xqp_modify_qp);
EXPORT_SYMBOL_GPL(xqp_query_qp);
EXPORT_SYMBOL_GPL(xqp_qp_num);
EXPORT_SYMBOL_GPL(xqp_qp_get_type);
EXPORT_SYMBOL_GPL(xqp_qp_real);
EXPORT_SYMBOL_GPL(xqp_qp_is_share);
EXPORT_SYMBOL_GPL(xqp_qp_context);
EXPORT_SYMBOL_GPL(xqp_qp_uobject);
EXPORT_SYMBOL_GPL(xqp_qp_share_count);
EXPORT_SYMBOL_GPL(xqp_qp_xrcd);
EXPORT_SYMBOL_GPL(xqp_modify_qp_is_ok);
EXPORT_SYMBOL_GPL(xqp_object_sizes);
EXPORT_SYMBOL_GPL(xqp_register_client);
EXPORT_SYMBOL_GPL(xqp_unregister_client);
EXPORT_SYMBOL_GPL(xqp_get_client_data);
/* The data path (core/mr_ah.cpp, core/post.cpp, core/pd_cq.cpp). */
EXPORT_SYMBOL_GPL(xqp_check_mr_access);
EXPORT_SYMBOL_GPL(xqp_reg_mr);
EXPORT_SYMBOL_GPL(xqp_reg_kernel_mr);
EXPORT_SYMBOL_GPL(xqp_get_dma_mr);
EXPORT_SYMBOL_GPL(xqp_dereg_mr);
EXPORT_SYMBOL_GPL(xqp_mr_lkey);
EXPORT_SYMBOL_GPL(xqp_mr_rkey);
EXPORT_SYMBOL_GPL(xqp_alloc_mw);	/* core/mw.cpp */
EXPORT_SYMBOL_GPL(xqp_dealloc_mw);
EXPORT_SYMBOL_GPL(xqp_attach_mcast);
EXPORT_SYMBOL_GPL(xqp_detach_mcast);
EXPORT_SYMBOL_GPL(xqp_gid_is_multicast);
EXPORT_SYMBOL_GPL(xqp_mw_rkey);
EXPORT_SYMBOL_GPL(xqp_mw_get_type);
EXPORT_SYMBOL_GPL(xqp_mw_drv);
EXPORT_SYMBOL_GPL(xqp_create_ah);
EXPORT_SYMBOL_GPL(xqp_create_ah_flags);
EXPORT_SYMBOL_GPL(xqp_destroy_ah);
EXPORT_SYMBOL_GPL(xqp_ah_get_attr);
EXPORT_SYMBOL_GPL(xqp_ah_drv_pd);
EXPORT_SYMBOL_GPL(xqp_create_cq_attr);
EXPORT_SYMBOL_GPL(xqp_cq_comp);
EXPORT_SYMBOL_GPL(xqp_cq_poll_wake);
EXPORT_SYMBOL_GPL(xqp_poll_cq);
EXPORT_SYMBOL_GPL(xqp_req_notify_cq);
EXPORT_SYMBOL_GPL(xqp_cq_arm_poll_wake);
EXPORT_SYMBOL_GPL(xqp_resize_cq);
EXPORT_SYMBOL_GPL(xqp_post_send);
EXPORT_SYMBOL_GPL(xqp_post_recv);
EXPORT_SYMBOL_GPL(xqp_post_srq_recv);
EXPORT_SYMBOL_GPL(xqp_modify_srq);
EXPORT_SYMBOL_GPL(xqp_query_srq);
