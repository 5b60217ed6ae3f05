/* SPDX-License-Identifier: GPL-2.0 */
/* Host sizes of the seam's opaque lock storage (platform/host/seam_host.cpp). */
#ifndef XQP_SEAM_SIZES_H
#define XQP_SEAM_SIZES_H
#define XQP_SPINLOCK_BYTES 64	/* pthread_mutex_t (40) + owner + class */
#define XQP_SPINLOCK_ALIGN 8
#define XQP_MUTEX_WORDS 8
#define XQP_WORK_WORDS 8	/* deadline, queued/running state, list links */
#define XQP_WAITQ_WORDS 12	/* pthread_cond_t (48) + mutex (40) */
#endif
