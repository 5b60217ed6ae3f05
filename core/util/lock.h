/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Locks that own what they protect, reachable only through a guard
 * (after Rust-for-Linux's Lock<T>/Guard), on the seam's spinlock and mutex.
 */
#ifndef XQP_UTIL_LOCK_H
#define XQP_UTIL_LOCK_H

#include "util/base.h"

namespace xqp {

/* IRQs off on this CPU for the scope (local_irq_save). */
class [[nodiscard]] IrqsOff {
public:
	IrqsOff() : flags_(xqp_irq_save()) {}
	~IrqsOff() { xqp_irq_restore(flags_); }
	IrqsOff(const IrqsOff &) = delete;
	IrqsOff &operator=(const IrqsOff &) = delete;

private:
	unsigned long flags_;
};

/* irqsave spinlock owning a T. */
template <typename T> class SpinLock : Pinned {
public:
	/* Held inside an IrqsOff section: no IRQ toggle of its own. */
	class [[nodiscard]] IrqsOffGuard {
	public:
		explicit IrqsOffGuard(SpinLock &l) : l_(l) { xqp_spin_lock_irqs_off(&l.raw_); }
		~IrqsOffGuard() { xqp_spin_unlock_irqs_off(&l_.raw_); }
		T *operator->() { return &l_.data_; }
		T &operator*() { return l_.data_; }
		IrqsOffGuard(const IrqsOffGuard &) = delete;
		IrqsOffGuard &operator=(const IrqsOffGuard &) = delete;

	private:
		SpinLock &l_;
	};

	class [[nodiscard]] Guard {
	public:
		explicit Guard(SpinLock &l) : l_(l), flags_(xqp_spin_lock_irqsave(&l.raw_)) {}
		~Guard() { xqp_spin_unlock_irqrestore(&l_.raw_, flags_); }
		T *operator->() { return &l_.data_; }
		T &operator*() { return l_.data_; }
		Guard(const Guard &) = delete;
		Guard &operator=(const Guard &) = delete;

	private:
		SpinLock &l_;
		unsigned long flags_;
	};

	explicit SpinLock(xqp_lock_class cls) { xqp_spin_init(&raw_, cls); }
	Guard lock() { return Guard(*this); }
	/* The caller's IrqsOff proves IRQs are off for the guard's life. */
	IrqsOffGuard lock(const IrqsOff &) { return IrqsOffGuard(*this); }
	/* For RCU readers of fields the writers publish with rcu_assign(). */
	const T &rcu_view() const { return data_; }
	/* Racy read for statistics and asserts only. */
	const T &unlocked_peek() const { return data_; }

private:
	xqp_spinlock raw_;
	T data_{};
};

/* Sleeping mutex owning a T. */
template <typename T> class Mutex : Pinned {
public:
	class [[nodiscard]] Guard {
	public:
		explicit Guard(Mutex &m) : m_(m) { xqp_mutex_lock(&m.raw_); }
		~Guard() { xqp_mutex_unlock(&m_.raw_); }
		T *operator->() { return &m_.data_; }
		T &operator*() { return m_.data_; }
		Guard(const Guard &) = delete;
		Guard &operator=(const Guard &) = delete;

	private:
		Mutex &m_;
	};

	explicit Mutex(xqp_lock_class cls) { xqp_mutex_init(&raw_, cls); }
	~Mutex() { xqp_mutex_destroy(&raw_); }
	Guard lock() { return Guard(*this); }
	/* For RCU readers of fields the writers publish with rcu_assign(). */
	const T &rcu_view() const { return data_; }

private:
	xqp_mutex raw_;
	T data_{};
};

/* RCU read-side critical section. */
class [[nodiscard]] RcuReadGuard {
public:
	RcuReadGuard() { xqp_rcu_read_lock(); }
	~RcuReadGuard() { xqp_rcu_read_unlock(); }
	RcuReadGuard(const RcuReadGuard &) = delete;
	RcuReadGuard &operator=(const RcuReadGuard &) = delete;
};

} // namespace xqp

#endif
