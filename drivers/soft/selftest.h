/* SPDX-License-Identifier: GPL-2.0 */
#ifndef XQP_SELFTEST_H
#define XQP_SELFTEST_H
/* Runs the narrated shared-QP scenario on a private soft device; 0 if all passed. */
int xqp_selftest_run(void);
#endif
