/* SPDX-License-Identifier: GPL-2.0 */
/* The "xqp_res" generic netlink family (nl_res*.c, uapi/xqp_res.h). */
#ifndef XQP_NL_RES_H
#define XQP_NL_RES_H

int xqp_nl_res_init(void);
void xqp_nl_res_exit(void);

#endif
