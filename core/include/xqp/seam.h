/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The platform seam: the only way the core (and the soft device) reach the
 * kernel. Two implementations: platform/kernel/seam.c (Linux) and
 * platform/host/seam_host.cpp (pthreads + malloc, stricter: poison on free, lock
 * owner and sleep-in-atomic assertions, allocation-failure injection).
 *
 * Locks are embedded in core objects as opaque storage whose size comes from
 * xqp/seam_sizes.h: generated from the kernel's own types at build time
 * (platform/kernel/seam_sizes.c), a fixed file on the host.
 */
#ifndef XQP_SEAM_H
#define XQP_SEAM_H

#include "xqp/types.h"
#include "xqp/seam_sizes.h"

XQP_EXTERN_C_BEGIN

/* ---- memory ----------------------------------------------------------- */
typedef unsigned int xqp_gfp_t;
extern const xqp_gfp_t XQP_GFP_KERNEL;	/* may sleep */
/* May sleep; charged to the calling task's memory cgroup: every object a verb
 * creates (what a user's file causes; a kernel thread charges no group). */
extern const xqp_gfp_t XQP_GFP_KERNEL_ACCOUNT;
extern const xqp_gfp_t XQP_GFP_ATOMIC;	/* never sleeps */

void *xqp_zalloc(xqp_size_t size, xqp_gfp_t gfp);
void xqp_free(void *p);
/*
 * Object caches: a slab cache for each of the core's hot object kinds, a
 * fixed set like the lock classes. The core gives their sizes
 * (xqp_cache_sizes[], constant data: core/qp_share.cpp); xqp_seam_init()
 * creates the caches, xqp_seam_exit() destroys them (every object freed by
 * then). Objects come zeroed and are charged to the allocating task's memory
 * cgroup whatever the gfp (the caches are SLAB_ACCOUNT). An object goes back
 * to the cache it came from.
 */
enum xqp_cache_class {
	XQP_CACHE_SHARE,	/* a share of a shared QP (core/objects.h) */
	XQP_CACHE_CLASSES
};
extern const xqp_size_t xqp_cache_sizes[XQP_CACHE_CLASSES];
void *xqp_cache_zalloc(enum xqp_cache_class cls, xqp_gfp_t gfp);
void xqp_cache_free(enum xqp_cache_class cls, void *p);	/* p may be null */

/* Large zeroed buffers (work queue rings): kvzalloc; may sleep. */
void *xqp_kvzalloc(xqp_size_t size);
void xqp_kvfree(void *p);

/* ---- locks (lockdep classes are per lock kind) ------------------------ */
enum xqp_lock_class {
	XQP_LOCK_DEVICE,	/* device object lists (create/destroy, never hot) */
	XQP_LOCK_DEVICE_CLIENTS,	/* a device's client data, event delivery */
	XQP_LOCK_XRCD,		/* one XRCD's qp_num table writers */
	XQP_LOCK_QP,		/* one real QP's share list and state */
	XQP_LOCK_SOFT,		/* the soft device's own tables */
	XQP_LOCK_SOFT_WQ,	/* one soft send/receive queue or SRQ ring */
	XQP_LOCK_SOFT_CQ,	/* one soft CQ ring */
	XQP_LOCK_SOFT_RESP,	/* one soft QP's wire responder (before the three above) */
	XQP_LOCK_SOFT_MCAST,	/* a soft device's multicast attach/detach (a mutex) */
	XQP_LOCK_CLASSES
};

/* Exactly a spinlock_t's size and alignment (4 bytes without lock debugging). */
struct __attribute__((aligned(XQP_SPINLOCK_ALIGN))) xqp_spinlock {
	unsigned char opaque[XQP_SPINLOCK_BYTES];
};
void xqp_spin_init(struct xqp_spinlock *l, enum xqp_lock_class cls);
/* irqsave flavour: usable from any context, including event reporting. */
unsigned long xqp_spin_lock_irqsave(struct xqp_spinlock *l);
void xqp_spin_unlock_irqrestore(struct xqp_spinlock *l, unsigned long flags);
void xqp_assert_spin_held(struct xqp_spinlock *l);
/*
 * IRQs off on this CPU (local_irq_save), and the plain lock and unlock for
 * use inside such a section only: one IRQ toggle around many acquisitions
 * of locks that are also taken in IRQ context (an event walk's shares).
 */
unsigned long xqp_irq_save(void);
void xqp_irq_restore(unsigned long flags);
void xqp_spin_lock_irqs_off(struct xqp_spinlock *l);
void xqp_spin_unlock_irqs_off(struct xqp_spinlock *l);

struct xqp_mutex {
	unsigned long opaque[XQP_MUTEX_WORDS];
};
void xqp_mutex_init(struct xqp_mutex *m, enum xqp_lock_class cls);
void xqp_mutex_lock(struct xqp_mutex *m);
void xqp_mutex_unlock(struct xqp_mutex *m);
void xqp_mutex_destroy(struct xqp_mutex *m);

/* The one global lock: device and client registration (never on a verb path). */
void xqp_registry_lock(void);
void xqp_registry_unlock(void);

/* ---- RCU -------------------------------------------------------------- */
struct xqp_rcu_head {
	void *opaque[3];	/* a struct rcu_head + the callback */
};
typedef void (*xqp_rcu_callback_t)(struct xqp_rcu_head *head);
void xqp_rcu_read_lock(void);
void xqp_rcu_read_unlock(void);
void xqp_call_rcu(struct xqp_rcu_head *head, xqp_rcu_callback_t func);
void xqp_synchronize_rcu(void);
void xqp_rcu_barrier(void);	/* waits for every queued callback */

/* ---- deferred work ---------------------------------------------------- */
/*
 * A work item runs its function in process context (a kernel worker; a
 * host thread), at most once per queueing; queueing an item already queued
 * does nothing. cancel_sync waits for a running call to finish. The
 * function may free its own item (nothing touches it after it returns).
 */
struct xqp_work;
typedef void (*xqp_work_fn_t)(struct xqp_work *work);
struct xqp_work {
	unsigned long opaque[XQP_WORK_WORDS];
	xqp_work_fn_t fn;
};
void xqp_work_init(struct xqp_work *work, xqp_work_fn_t fn);
/* Runs @work after at least @delay_us microseconds (0: as soon as possible). */
void xqp_work_queue(struct xqp_work *work, xqp_u32 delay_us);
/* Runs @work as soon as possible, also when it waits for a delay now. */
void xqp_work_expedite(struct xqp_work *work);
/* Runs @work after @delay_us from now, queued or not (its old delay is gone). */
void xqp_work_reschedule(struct xqp_work *work, xqp_u32 delay_us);
void xqp_work_cancel_sync(struct xqp_work *work);
/*
 * Takes @work off its queue if it waits there; does not wait for a call
 * running (its own function may call it, then free it).
 */
void xqp_work_cancel(struct xqp_work *work);
/* 1 when called from @work's own function (current_work()), else 0. */
int xqp_work_is_current(const struct xqp_work *work);
/* Waits until every work item queued so far has run. */
void xqp_work_flush_all(void);
/*
 * Test hook of the failure sweeps: the @nth allocation that deferred work
 * makes from now on fails, once (0 disarms). Counted over work items in the
 * order they run; an item that runs while another holds the count runs
 * unarmed. Work runs on kernel workers, which a test task's own fail-nth
 * never reaches. In the kernel it needs fault injection
 * (CONFIG_FAULT_INJECTION: the worker's fail-nth; without it nothing
 * fails); on the host, the host seam's allocator.
 * xqp_work_fail_fired(): 1 once an allocation failed since it was armed.
 */
void xqp_work_fail_nth(unsigned int nth);
int xqp_work_fail_fired(void);

/* ---- waiting for a count to drain ---------------------------------------- */
/*
 * "Until this counter is zero": the waiter sleeps. Increments are atomic
 * (only while the object can still be found); decrements and the waiter's
 * check also hold the wait queue's own lock, so once xqp_wait_zero() has
 * returned no decrementer touches the object any more and it may be freed.
 */
struct xqp_waitq {
	unsigned long opaque[XQP_WAITQ_WORDS];
};
void xqp_waitq_init(struct xqp_waitq *wq);
void xqp_wait_zero(struct xqp_waitq *wq, int *counter);	/* may sleep */
void xqp_waitq_dec(struct xqp_waitq *wq, int *counter);	/* any context */
/* May the caller sleep (not atomic, IRQs on)? */
int xqp_may_sleep(void);

/* Set up and tear down what the seam itself needs (the work queue). */
int xqp_seam_init(void);
void xqp_seam_exit(void);

/* ---- misc ------------------------------------------------------------- */
void xqp_might_sleep(void);
void xqp_cond_resched(void);	/* a scheduling point in long process-context work */
void xqp_cpu_relax(void);
/*
 * The reflected CRC-32 (polynomial 0xedb88320) of @len bytes at @p, from
 * @crc, without the customary inversions (Linux's crc32_le()): RoCE's ICRC.
 */
xqp_u32 xqp_crc32_le(xqp_u32 crc, const void *p, xqp_size_t len);
__attribute__((noreturn)) void xqp_bug(const char *file, int line, const char *what);
void xqp_warn(const char *file, int line, const char *what);
__attribute__((format(printf, 1, 2))) void xqp_log(const char *fmt, ...);

#define XQP_BUG_ON(c) \
	do { if (__builtin_expect(!!(c), 0)) xqp_bug(__FILE__, __LINE__, #c); } while (0)
#define XQP_WARN_ON(c) \
	({ int __w = !!(c); if (__builtin_expect(__w, 0)) xqp_warn(__FILE__, __LINE__, #c); __w; })

XQP_EXTERN_C_END

#endif /* XQP_SEAM_H */
