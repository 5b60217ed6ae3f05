/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The char device is written against the 6.12 kernel API. This header
 * gives it what it uses on the older kernels xqp supports (Debian 12's 6.1),
 * and is empty on 6.12. Only the char device needs it: the core reaches the
 * kernel through its seam, and the soft device uses nothing that changed.
 */
#ifndef XQP_UVERBS_COMPAT_H
#define XQP_UVERBS_COMPAT_H

#include <linux/file.h>
#include <linux/version.h>

/* fd_file() and EMPTY_FD came with 6.12's struct fd rework; before, .file. */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 12, 0)
#define fd_file(f)	((f).file)
#define EMPTY_FD	((struct fd){ .file = NULL, .flags = 0 })
#endif

/*
 * Since 6.4 the driver core takes the class as const everywhere
 * (class_register(), struct device.class, class attribute callbacks), so
 * 6.12 code defines its class const, in .rodata. Before 6.4 the core writes
 * into the class (class_register() sets its private part): it must not be
 * const there.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#define XQP_CLASS_CONST	const
#else
#define XQP_CLASS_CONST
#endif

/* struct class.devnode() takes a const device since 6.2. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define XQP_DEVNODE_CONST	const
#else
#define XQP_DEVNODE_CONST
#endif

#endif /* XQP_UVERBS_COMPAT_H */
