/* SPDX-License-Identifier: GPL-2.0 */
/* Atomics on GCC builtins (the same primitives the kernel's atomics compile to). */
#ifndef XQP_UTIL_ATOMIC_H
#define XQP_UTIL_ATOMIC_H

#include "util/base.h"

namespace xqp {

template <typename T> class Atomic {
public:
	constexpr Atomic() : v_() {}
	constexpr explicit Atomic(T v) : v_(v) {}
	Atomic(const Atomic &) = delete;
	Atomic &operator=(const Atomic &) = delete;

	T load() const { return __atomic_load_n(&v_, __ATOMIC_ACQUIRE); }
	T load_relaxed() const { return __atomic_load_n(&v_, __ATOMIC_RELAXED); }
	void store(T v) { __atomic_store_n(&v_, v, __ATOMIC_RELEASE); }
	T inc() { return __atomic_add_fetch(&v_, 1, __ATOMIC_SEQ_CST); }
	T exchange(T v) { return __atomic_exchange_n(&v_, v, __ATOMIC_ACQ_REL); }
	T dec() { return __atomic_sub_fetch(&v_, 1, __ATOMIC_SEQ_CST); }
	/*
	 * Sets @desired if the value is @expected (acquire on success); else
	 * puts the value found in @expected. True when it set it.
	 */
	bool cmpxchg(T &expected, T desired)
	{
		return __atomic_compare_exchange_n(&v_, &expected, desired, false,
						   __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
	}
	/* Increments unless zero; true when it did (refcount_inc_not_zero). */
	bool inc_not_zero()
	{
		T cur = load_relaxed();
		do {
			if (cur == 0)
				return false;
		} while (!__atomic_compare_exchange_n(&v_, &cur, cur + 1, true,
						      __ATOMIC_SEQ_CST,
						      __ATOMIC_RELAXED));
		return true;
	}

private:
	T v_;
};

/* rcu_assign_pointer / rcu_dereference for plain pointer fields. */
template <typename T> inline void rcu_assign(T *&slot, T *v)
{
	__atomic_store_n(&slot, v, __ATOMIC_RELEASE);
}
template <typename T> inline T *rcu_deref(T *const &slot)
{
	return __atomic_load_n(&slot, __ATOMIC_ACQUIRE);
}

} // namespace xqp

#endif
