/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Freestanding basics for the core: no libstdc++, no kernel headers.
 * Allocation always names its gfp; objects that hold list heads or locks are
 * pinned (no copy, no move).
 */
#ifndef XQP_UTIL_BASE_H
#define XQP_UTIL_BASE_H

#include "xqp/seam.h"

namespace xqp {

using u8 = xqp_u8;
using u16 = xqp_u16;
using u32 = xqp_u32;
using u64 = xqp_u64;
using size_t = xqp_size_t;

/*
 * An explicit allocation context: `new (Gfp::account()) T(...)` for what a
 * verb creates (charged to the caller's memory cgroup), Gfp::kernel() for
 * the device itself.
 */
struct Gfp {
	xqp_gfp_t flags;
	static Gfp kernel() { return Gfp{XQP_GFP_KERNEL}; }
	static Gfp account() { return Gfp{XQP_GFP_KERNEL_ACCOUNT}; }
	static Gfp atomic() { return Gfp{XQP_GFP_ATOMIC}; }
};

/* Base for heap objects: zeroed allocation with a gfp, freed by xqp_free. */
struct Allocated {
	static void *operator new(size_t size, Gfp gfp) noexcept
	{
		return xqp_zalloc(size, gfp.flags);
	}
	static void operator delete(void *p) { xqp_free(p); }
	static void operator delete(void *p, Gfp) { xqp_free(p); }
};

/* No copy, no move: for anything whose address is published. */
struct Pinned {
	Pinned() = default;
	Pinned(const Pinned &) = delete;
	Pinned &operator=(const Pinned &) = delete;
};

/*
 * The integer a C caller stored in an enum field, whatever its value. C lets
 * any int live there; loading it as the C++ enum type is undefined outside
 * the enumerators' range (UBSan's enum check reports it), so enum fields of
 * caller structs are read through this before they are validated.
 */
template <typename E> inline int enum_int(const E *field)
{
	static_assert(sizeof(E) == sizeof(int), "a C enum is int-sized");
	int v;

	__builtin_memcpy(&v, field, sizeof(v));
	return v;
}

/* ERR_PTR-style results for the C API. */
template <typename T> inline T *err_ptr(int err)
{
	return static_cast<T *>(xqp_err_ptr(err));
}

} // namespace xqp

/* The module's C++ runtime (platform/kernel/cxxrt.cpp, kernel only). */
void *operator new(xqp::size_t size, xqp::Gfp gfp) noexcept;
extern "C" void __cxa_pure_virtual();

#endif
