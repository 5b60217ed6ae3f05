// SPDX-License-Identifier: GPL-2.0
/*
 * The platform seam, kernel side: core/include/xqp/seam.h on Linux
 * primitives. Lock classes are per kind (one lockdep key each), so lockdep
 * tells the XRCD, QP and share locks apart. Exported for drivers built on
 * the seam (drivers/soft).
 */
#include <linux/bug.h>
#include <linux/crc32.h>
#include <linux/debugfs.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/printk.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/preempt.h>
#include <linux/irqflags.h>
#include <linux/sched.h>

#include "xqp/seam.h"

const xqp_gfp_t XQP_GFP_KERNEL = (__force xqp_gfp_t)GFP_KERNEL;
const xqp_gfp_t XQP_GFP_ATOMIC = (__force xqp_gfp_t)GFP_ATOMIC;
const xqp_gfp_t XQP_GFP_KERNEL_ACCOUNT = (__force xqp_gfp_t)GFP_KERNEL_ACCOUNT;
EXPORT_SYMBOL_GPL(XQP_GFP_KERNEL);
EXPORT_SYMBOL_GPL(XQP_GFP_KERNEL_ACCOUNT);
EXPORT_SYMBOL_GPL(XQP_GFP_ATOMIC);

static_assert(sizeof(struct xqp_spinlock) >= sizeof(spinlock_t));
static_assert(__alignof__(struct xqp_spinlock) >= __alignof__(spinlock_t));
static_assert(sizeof(struct xqp_mutex) >= sizeof(struct mutex));

/* xqp_rcu_head as the kernel sees it. */
struct xqp_kernel_rcu_head {
	struct rcu_head rh;
	xqp_rcu_callback_t func;
};
static_assert(sizeof(struct xqp_rcu_head) == sizeof(struct xqp_kernel_rcu_head));

static struct lock_class_key xqp_lock_keys[XQP_LOCK_CLASSES];
static const char *const xqp_lock_names[XQP_LOCK_CLASSES] = {
	[XQP_LOCK_DEVICE] = "xqp_device",
	[XQP_LOCK_DEVICE_CLIENTS] = "xqp_device_clients",
	[XQP_LOCK_XRCD] = "xqp_xrcd_table",
	[XQP_LOCK_QP] = "xqp_qp",
	[XQP_LOCK_SOFT] = "xqp_soft",
	[XQP_LOCK_SOFT_WQ] = "xqp_soft_wq",
	[XQP_LOCK_SOFT_CQ] = "xqp_soft_cq",
	[XQP_LOCK_SOFT_RESP] = "xqp_soft_resp",
	[XQP_LOCK_SOFT_MCAST] = "xqp_soft_mcast",
};

/*
 * Live allocations made through the seam (the core's objects and the soft
 * device's): debugfs xqp/allocations, read by the kill -9 rounds
 * (scripts/kill-rounds) to see every object gone after a round. Counted
 * per CPU and summed only when read, so the allocation path never touches a
 * cacheline shared by all CPUs.
 */
static DEFINE_PER_CPU(long, xqp_live_allocs);

void *xqp_zalloc(xqp_size_t size, xqp_gfp_t gfp)
{
	void *p = kzalloc(size, (__force gfp_t)gfp);

	if (p)
		this_cpu_inc(xqp_live_allocs);
	return p;
}
EXPORT_SYMBOL_GPL(xqp_zalloc);

void xqp_free(void *p)
{
	if (p)
		this_cpu_dec(xqp_live_allocs);
	kfree(p);
}
EXPORT_SYMBOL_GPL(xqp_free);

void *xqp_kvzalloc(xqp_size_t size)
{
	void *p = kvzalloc(size, GFP_KERNEL_ACCOUNT);

	if (p)
		this_cpu_inc(xqp_live_allocs);
	return p;
}
EXPORT_SYMBOL_GPL(xqp_kvzalloc);

void xqp_kvfree(void *p)
{
	if (p)
		this_cpu_dec(xqp_live_allocs);
	kvfree(p);
}
EXPORT_SYMBOL_GPL(xqp_kvfree);

static int xqp_live_allocs_get(void *data, u64 *val)
{
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(xqp_live_allocs, cpu);
	*val = sum;
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(xqp_live_allocs_fops, xqp_live_allocs_get, NULL, "%llu\n");

/* debugfs xqp/ (an error pointer without debugfs: no file, nothing else lost). */
static struct dentry *xqp_debugfs_root;

void xqp_spin_init(struct xqp_spinlock *l, enum xqp_lock_class cls)
{
	spinlock_t *s = (spinlock_t *)l;

	spin_lock_init(s);
	lockdep_set_class_and_name(s, &xqp_lock_keys[cls], xqp_lock_names[cls]);
}
EXPORT_SYMBOL_GPL(xqp_spin_init);

unsigned long xqp_spin_lock_irqsave(struct xqp_spinlock *l)
{
	unsigned long flags;

	spin_lock_irqsave((spinlock_t *)l, flags);
	return flags;
}
EXPORT_SYMBOL_GPL(xqp_spin_lock_irqsave);

void xqp_spin_unlock_irqrestore(struct xqp_spinlock *l, unsigned long flags)
{
	spin_unlock_irqrestore((spinlock_t *)l, flags);
}
EXPORT_SYMBOL_GPL(xqp_spin_unlock_irqrestore);

unsigned long xqp_irq_save(void)
{
	unsigned long flags;

	local_irq_save(flags);
	return flags;
}
EXPORT_SYMBOL_GPL(xqp_irq_save);

void xqp_irq_restore(unsigned long flags)
{
	local_irq_restore(flags);
}
EXPORT_SYMBOL_GPL(xqp_irq_restore);

void xqp_spin_lock_irqs_off(struct xqp_spinlock *l)
{
	lockdep_assert_irqs_disabled();
	spin_lock((spinlock_t *)l);
}
EXPORT_SYMBOL_GPL(xqp_spin_lock_irqs_off);

void xqp_spin_unlock_irqs_off(struct xqp_spinlock *l)
{
	spin_unlock((spinlock_t *)l);
}
EXPORT_SYMBOL_GPL(xqp_spin_unlock_irqs_off);

void xqp_assert_spin_held(struct xqp_spinlock *l)
{
	lockdep_assert_held((spinlock_t *)l);
}
EXPORT_SYMBOL_GPL(xqp_assert_spin_held);

void xqp_mutex_init(struct xqp_mutex *m, enum xqp_lock_class cls)
{
	struct mutex *mx = (struct mutex *)m;

	mutex_init(mx);
	lockdep_set_class_and_name(mx, &xqp_lock_keys[cls], xqp_lock_names[cls]);
}
EXPORT_SYMBOL_GPL(xqp_mutex_init);

void xqp_mutex_lock(struct xqp_mutex *m)
{
	mutex_lock((struct mutex *)m);
}
EXPORT_SYMBOL_GPL(xqp_mutex_lock);

void xqp_mutex_unlock(struct xqp_mutex *m)
{
	mutex_unlock((struct mutex *)m);
}
EXPORT_SYMBOL_GPL(xqp_mutex_unlock);

void xqp_mutex_destroy(struct xqp_mutex *m)
{
	mutex_destroy((struct mutex *)m);
}
EXPORT_SYMBOL_GPL(xqp_mutex_destroy);

static DEFINE_MUTEX(xqp_registry_mutex);

void xqp_registry_lock(void)
{
	mutex_lock(&xqp_registry_mutex);
}
EXPORT_SYMBOL_GPL(xqp_registry_lock);

void xqp_registry_unlock(void)
{
	mutex_unlock(&xqp_registry_mutex);
}
EXPORT_SYMBOL_GPL(xqp_registry_unlock);

void xqp_rcu_read_lock(void)
{
	rcu_read_lock();
}
EXPORT_SYMBOL_GPL(xqp_rcu_read_lock);

void xqp_rcu_read_unlock(void)
{
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(xqp_rcu_read_unlock);

static void xqp_rcu_trampoline(struct rcu_head *rh)
{
	struct xqp_kernel_rcu_head *h = container_of(rh, struct xqp_kernel_rcu_head, rh);

	h->func((struct xqp_rcu_head *)h);
}

void xqp_call_rcu(struct xqp_rcu_head *head, xqp_rcu_callback_t func)
{
	struct xqp_kernel_rcu_head *h = (struct xqp_kernel_rcu_head *)head;

	h->func = func;
	call_rcu(&h->rh, xqp_rcu_trampoline);
}
EXPORT_SYMBOL_GPL(xqp_call_rcu);

void xqp_synchronize_rcu(void)
{
	synchronize_rcu();
}
EXPORT_SYMBOL_GPL(xqp_synchronize_rcu);

void xqp_rcu_barrier(void)
{
	rcu_barrier();
}
EXPORT_SYMBOL_GPL(xqp_rcu_barrier);

void xqp_might_sleep(void)
{
	might_sleep();
}
EXPORT_SYMBOL_GPL(xqp_might_sleep);

void xqp_cond_resched(void)
{
	cond_resched();
}
EXPORT_SYMBOL_GPL(xqp_cond_resched);

void xqp_cpu_relax(void)
{
	cpu_relax();
}
EXPORT_SYMBOL_GPL(xqp_cpu_relax);

xqp_u32 xqp_crc32_le(xqp_u32 crc, const void *p, xqp_size_t len)
{
	return crc32_le(crc, p, len);
}
EXPORT_SYMBOL_GPL(xqp_crc32_le);

void xqp_bug(const char *file, int line, const char *what)
{
	pr_crit("xqp: BUG at %s:%d: %s\n", file, line, what);
	BUG();
}
EXPORT_SYMBOL_GPL(xqp_bug);

void xqp_warn(const char *file, int line, const char *what)
{
	WARN(1, "xqp: %s:%d: %s\n", file, line, what);
}
EXPORT_SYMBOL_GPL(xqp_warn);

void xqp_log(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintk(fmt, ap);
	va_end(ap);
}
EXPORT_SYMBOL_GPL(xqp_log);

/* ---- object caches (xqp/seam.h) ------------------------------------------- */

static struct kmem_cache *xqp_caches[XQP_CACHE_CLASSES];
static const char *const xqp_cache_names[XQP_CACHE_CLASSES] = {
	[XQP_CACHE_SHARE] = "xqp_share",
};

void *xqp_cache_zalloc(enum xqp_cache_class cls, xqp_gfp_t gfp)
{
	return kmem_cache_zalloc(xqp_caches[cls], (__force gfp_t)gfp);
}
EXPORT_SYMBOL_GPL(xqp_cache_zalloc);

void xqp_cache_free(enum xqp_cache_class cls, void *p)
{
	if (p)
		kmem_cache_free(xqp_caches[cls], p);
}
EXPORT_SYMBOL_GPL(xqp_cache_free);

static void xqp_caches_destroy(void)
{
	int i;

	/* nothing may still be on its way back through an RCU callback */
	rcu_barrier();
	for (i = XQP_CACHE_CLASSES - 1; i >= 0; i--) {
		kmem_cache_destroy(xqp_caches[i]);
		xqp_caches[i] = NULL;
	}
}

static int xqp_caches_create(void)
{
	int i;

	for (i = 0; i < XQP_CACHE_CLASSES; i++) {
		xqp_caches[i] = kmem_cache_create(xqp_cache_names[i], xqp_cache_sizes[i],
						  0, SLAB_ACCOUNT, NULL);
		if (!xqp_caches[i]) {
			xqp_caches_destroy();
			return -ENOMEM;
		}
	}
	return 0;
}

/* ---- deferred work: one unbound workqueue of the module ---------------- */

static_assert(sizeof(((struct xqp_work *)0)->opaque) >= sizeof(struct delayed_work));

static struct workqueue_struct *xqp_wq;

/* xqp_work_fail_nth(): what is left of the count between items; fired */
static atomic_t xqp_work_nth = ATOMIC_INIT(0);
static atomic_t xqp_work_fired = ATOMIC_INIT(0);

void xqp_work_fail_nth(unsigned int nth)
{
	atomic_set(&xqp_work_fired, 0);
	atomic_set(&xqp_work_nth, (int)nth);
}
EXPORT_SYMBOL_GPL(xqp_work_fail_nth);

int xqp_work_fail_fired(void)
{
	return atomic_read(&xqp_work_fired);
}
EXPORT_SYMBOL_GPL(xqp_work_fail_fired);

/* debugfs xqp/work_fail_nth: writing N arms it, reading says whether it fired */
static int xqp_work_fail_get(void *data, u64 *val)
{
	*val = (u64)xqp_work_fail_fired();
	return 0;
}

static int xqp_work_fail_set(void *data, u64 val)
{
	if (val > INT_MAX)
		return -EINVAL;
	xqp_work_fail_nth((unsigned int)val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(xqp_work_fail_fops, xqp_work_fail_get, xqp_work_fail_set, "%llu\n");

/* Runs @work->fn with the worker's fail-nth set to the count, if armed. */
static void xqp_work_run(struct xqp_work *work)
{
#ifdef CONFIG_FAULT_INJECTION
	int nth = atomic_xchg(&xqp_work_nth, 0);

	if (nth > 0) {
		current->fail_nth = nth;
		work->fn(work);
		nth = current->fail_nth;
		current->fail_nth = 0;
		if (nth)
			atomic_cmpxchg(&xqp_work_nth, 0, nth);
		else
			atomic_set(&xqp_work_fired, 1);
		return;
	}
#endif
	work->fn(work);
}

static void xqp_work_trampoline(struct work_struct *w)
{
	struct delayed_work *dw = to_delayed_work(w);

	xqp_work_run(container_of((void *)dw, struct xqp_work, opaque));
}

void xqp_work_init(struct xqp_work *work, xqp_work_fn_t fn)
{
	work->fn = fn;
	INIT_DELAYED_WORK((struct delayed_work *)work->opaque, xqp_work_trampoline);
}
EXPORT_SYMBOL_GPL(xqp_work_init);

void xqp_work_queue(struct xqp_work *work, xqp_u32 delay_us)
{
	unsigned long delay = delay_us ? usecs_to_jiffies(delay_us) : 0;

	queue_delayed_work(xqp_wq, (struct delayed_work *)work->opaque, delay);
}
EXPORT_SYMBOL_GPL(xqp_work_queue);

void xqp_work_expedite(struct xqp_work *work)
{
	mod_delayed_work(xqp_wq, (struct delayed_work *)work->opaque, 0);
}
EXPORT_SYMBOL_GPL(xqp_work_expedite);

void xqp_work_reschedule(struct xqp_work *work, xqp_u32 delay_us)
{
	unsigned long delay = delay_us ? usecs_to_jiffies(delay_us) : 0;

	mod_delayed_work(xqp_wq, (struct delayed_work *)work->opaque, delay);
}
EXPORT_SYMBOL_GPL(xqp_work_reschedule);

void xqp_work_cancel_sync(struct xqp_work *work)
{
	cancel_delayed_work_sync((struct delayed_work *)work->opaque);
}
EXPORT_SYMBOL_GPL(xqp_work_cancel_sync);

void xqp_work_cancel(struct xqp_work *work)
{
	cancel_delayed_work((struct delayed_work *)work->opaque);
}
EXPORT_SYMBOL_GPL(xqp_work_cancel);

int xqp_work_is_current(const struct xqp_work *work)
{
	return current_work() == &((const struct delayed_work *)work->opaque)->work;
}
EXPORT_SYMBOL_GPL(xqp_work_is_current);

void xqp_work_flush_all(void)
{
	flush_workqueue(xqp_wq);
}
EXPORT_SYMBOL_GPL(xqp_work_flush_all);

int xqp_seam_init(void)
{
	int err = xqp_caches_create();

	if (err)
		return err;
	xqp_wq = alloc_workqueue("xqp", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!xqp_wq) {
		xqp_caches_destroy();
		return -ENOMEM;
	}
	xqp_debugfs_root = debugfs_create_dir("xqp", NULL);
	debugfs_create_file_unsafe("allocations", 0400, xqp_debugfs_root, NULL,
				   &xqp_live_allocs_fops);
	if (IS_ENABLED(CONFIG_FAULT_INJECTION))
		debugfs_create_file_unsafe("work_fail_nth", 0600, xqp_debugfs_root, NULL,
					   &xqp_work_fail_fops);
	return 0;
}

void xqp_seam_exit(void)
{
	debugfs_remove(xqp_debugfs_root);
	destroy_workqueue(xqp_wq);
	xqp_caches_destroy();
}

/* ---- waiting for a count to drain ---------------------------------------- */

struct xqp_kernel_waitq {
	wait_queue_head_t wq;
	spinlock_t lock;	/* the counter's last decrement vs the check */
};
static_assert(sizeof(((struct xqp_waitq *)0)->opaque) >= sizeof(struct xqp_kernel_waitq));

void xqp_waitq_init(struct xqp_waitq *wq)
{
	struct xqp_kernel_waitq *k = (struct xqp_kernel_waitq *)wq->opaque;

	init_waitqueue_head(&k->wq);
	spin_lock_init(&k->lock);
}
EXPORT_SYMBOL_GPL(xqp_waitq_init);

void xqp_wait_zero(struct xqp_waitq *wq, int *counter)
{
	struct xqp_kernel_waitq *k = (struct xqp_kernel_waitq *)wq->opaque;

	spin_lock_irq(&k->lock);
	wait_event_lock_irq(k->wq, __atomic_load_n(counter, __ATOMIC_ACQUIRE) == 0, k->lock);
	spin_unlock_irq(&k->lock);
}
EXPORT_SYMBOL_GPL(xqp_wait_zero);

void xqp_waitq_dec(struct xqp_waitq *wq, int *counter)
{
	struct xqp_kernel_waitq *k = (struct xqp_kernel_waitq *)wq->opaque;
	unsigned long flags;

	spin_lock_irqsave(&k->lock, flags);
	if (__atomic_sub_fetch(counter, 1, __ATOMIC_ACQ_REL) == 0)
		wake_up_all(&k->wq);
	spin_unlock_irqrestore(&k->lock, flags);
}
EXPORT_SYMBOL_GPL(xqp_waitq_dec);

int xqp_may_sleep(void)
{
	return preemptible() && !irqs_disabled() && !rcu_preempt_depth();
}
EXPORT_SYMBOL_GPL(xqp_may_sleep);
