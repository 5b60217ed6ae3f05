/* SPDX-License-Identifier: GPL-2.0 */
/* Host-only controls of the strict host seam (platform/host/seam_host.cpp). */
#ifndef XQP_SEAM_HOST_H
#define XQP_SEAM_HOST_H

#include <cstddef>

/* Live allocations made through xqp_zalloc and not yet freed. */
long xqp_host_live_allocs();
/* Bytes requested by those live allocations. */
long xqp_host_live_bytes();
/* Make the n-th next xqp_zalloc fail (0 = the next one); -1 disables. */
void xqp_host_fail_alloc_after(long n);
/* Allocations attempted so far (for failure sweeps). */
long xqp_host_alloc_calls();
/* Warnings reported through xqp_warn since start. */
long xqp_host_warn_count();

#endif
