// SPDX-License-Identifier: GPL-2.0
/*
 * The C++ runtime the module provides, and nothing more: allocation always
 * names its gfp, delete goes to the seam, a pure virtual call is a bug.
 * Deliberately absent (modpost fails if ever needed): plain operator
 * new(size_t), __cxa_atexit, __dso_handle, __cxa_guard_*, the personality
 * routine and unwinder, typeinfo.
 */
#include "util/base.h"

void *operator new(xqp::size_t size, xqp::Gfp gfp) noexcept
{
	return xqp_zalloc(size, gfp.flags);
}

void operator delete(void *p) noexcept
{
	xqp_free(p);
}

void operator delete(void *p, xqp::size_t) noexcept
{
	xqp_free(p);
}

extern "C" void __cxa_pure_virtual()
{
	xqp_bug(__FILE__, __LINE__, "pure virtual call");
}
