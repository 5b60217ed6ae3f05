/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fixed-width types shared by the core (C++, no kernel headers), the kernel
 * C code and the host tests. Built on compiler-provided macros only.
 */
#ifndef XQP_TYPES_H
#define XQP_TYPES_H

typedef __UINT8_TYPE__ xqp_u8;
typedef __UINT16_TYPE__ xqp_u16;
typedef __UINT32_TYPE__ xqp_u32;
typedef __UINT64_TYPE__ xqp_u64;
typedef __INT32_TYPE__ xqp_s32;
typedef __SIZE_TYPE__ xqp_size_t;
typedef __UINTPTR_TYPE__ xqp_uintptr_t;

#ifdef __cplusplus
#define XQP_EXTERN_C_BEGIN extern "C" {
#define XQP_EXTERN_C_END }
#else
#define XQP_EXTERN_C_BEGIN
#define XQP_EXTERN_C_END
#endif

/* Errno values used by the core (Linux's numbers, identical on the host). */
enum {
	XQP_EPERM = 1,
	XQP_ENOENT = 2,
	XQP_EIO = 5,
	XQP_EBADF = 9,
	XQP_EAGAIN = 11,
	XQP_ENOMEM = 12,
	XQP_EFAULT = 14,
	XQP_EBUSY = 16,
	XQP_EEXIST = 17,
	XQP_ENODEV = 19,
	XQP_EINVAL = 22,
	XQP_ENOSPC = 28,
	XQP_ERANGE = 34,
	XQP_ENODATA = 61,
	XQP_EOPNOTSUPP = 95,
};

/* ERR_PTR encoding, bit-identical to the kernel's <linux/err.h>. */
#define XQP_MAX_ERRNO 4095
static inline void *xqp_err_ptr(long err) { return (void *)err; }
static inline long xqp_ptr_err(const void *p) { return (long)p; }
static inline int xqp_is_err(const void *p)
{
	return (unsigned long)p >= (unsigned long)-XQP_MAX_ERRNO;
}

#endif /* XQP_TYPES_H */
