/* SPDX-License-Identifier: GPL-2.0 */
/* Host sizes of the seam's opaque lock storage (tests/host/seam_host.cpp). */
#ifndef XQP_SEAM_SIZES_H
#define XQP_SEAM_SIZES_H
#define XQP_SPINLOCK_WORDS 8	/* pthread_mutex_t (40) + owner + flags */
#define XQP_MUTEX_WORDS 8
#endif
