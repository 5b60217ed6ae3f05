// SPDX-License-Identifier: GPL-2.0
/*
 * The platform seam on the host, stricter than the kernel (after OpenZFS's
 * libzpool): allocations carry a header and are poisoned on free, double
 * frees abort, allocation failures can be injected, a spinlock records its
 * owner and unlocking someone else's aborts, and anything that may sleep
 * aborts when called under a spinlock or in an RCU read-side section.
 *
 * RCU: readers take a shared rwlock (outermost section only); a grace period
 * is taking it exclusively; call_rcu callbacks run on a helper thread after
 * a grace period.
 */
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <vector>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <new>
#include <pthread.h>
#include <sched.h>
#include <thread>
#include <utility>

#include "seam_host.h"
#include "xqp/seam.h"

const xqp_gfp_t XQP_GFP_KERNEL = 0xcc0;
const xqp_gfp_t XQP_GFP_ATOMIC = 0x820;
const xqp_gfp_t XQP_GFP_KERNEL_ACCOUNT = 0x400cc0;

namespace {

constexpr unsigned long kMagicLive = 0x58515061u;	/* "XQPa" */
constexpr unsigned long kMagicFreed = 0x58515066u;	/* "XQPf" */
constexpr unsigned char kPoison = 0x6b;

struct AllocHeader {
	unsigned long magic;
	std::size_t size;
	int cache;		/* its xqp_cache_class, or -1: xqp_zalloc */
	alignas(16) unsigned char data[];
};

std::atomic<long> live_allocs{0};
std::atomic<long> live_bytes{0};
std::atomic<long> alloc_calls{0};
std::atomic<long> fail_after{-1};
/* xqp_work_fail_nth(): the count between work items, and in the item running here */
std::atomic<int> work_nth{0};
std::atomic<int> work_fired{0};
thread_local int work_nth_here;
std::atomic<long> warn_count{0};

/* Per-thread atomic-context depth: spinlocks held + RCU read nesting. */
thread_local int spin_depth;
thread_local int rcu_depth;
/* Per-thread xqp_irq_save() nesting ("IRQs off": atomic context too). */
thread_local int irqs_off;
constexpr unsigned long kIrqFlags = 0x300;

[[noreturn]] void die(const char *what)
{
	std::fprintf(stderr, "xqp host seam: %s\n", what);
	std::abort();
}

void check_may_sleep(const char *what)
{
	if (spin_depth)
		die(what);
	if (rcu_depth)
		die(what);
}

/* owner: the holding thread, 0 when free; read racily by the recursion
 * check, hence atomic. */
struct HostSpin {
	pthread_mutex_t m;
	std::atomic<pthread_t> owner;
	int cls;
};
static_assert(sizeof(HostSpin) <= sizeof(xqp_spinlock));

struct HostMutex {
	pthread_mutex_t m;
	std::atomic<pthread_t> owner;
	int cls;
};
static_assert(sizeof(HostMutex) <= sizeof(xqp_mutex));

pthread_rwlock_t rcu_lock = PTHREAD_RWLOCK_INITIALIZER;

struct Callback {
	xqp_rcu_head *head;
	xqp_rcu_callback_t func;
};

struct RcuWorker {
	std::mutex m;
	std::condition_variable cv;
	std::condition_variable idle;
	std::deque<Callback> pending;
	bool busy = false;
	std::once_flag started;
};
RcuWorker *worker;

void rcu_worker_loop()
{
	for (;;) {
		std::deque<Callback> batch;
		{
			std::unique_lock<std::mutex> l(worker->m);
			worker->cv.wait(l, [] { return !worker->pending.empty(); });
			batch.swap(worker->pending);
			worker->busy = true;
		}
		xqp_synchronize_rcu();
		for (Callback &c : batch)
			c.func(c.head);
		std::lock_guard<std::mutex> l(worker->m);
		worker->busy = false;
		if (worker->pending.empty())
			worker->idle.notify_all();
	}
}

void rcu_worker_start()
{
	static std::once_flag once;
	std::call_once(once, [] {
		worker = new RcuWorker;
		std::thread(rcu_worker_loop).detach();
	});
}

/*
 * Deferred work: two worker threads over one deadline-ordered queue. An
 * item never runs on two workers at once (as the kernel's workqueues). The
 * items running are known by address in the pool, so a function may free
 * its own item, as in the kernel.
 */
using Clock = std::chrono::steady_clock;
struct HostWork {
	Clock::time_point due;
	bool pending;
	bool canceling;		/* queueing is refused meanwhile */
};
static_assert(sizeof(HostWork) <= sizeof(((xqp_work *)0)->opaque));

struct WorkPool {
	std::mutex m;
	std::condition_variable cv;	/* queue changed */
	std::condition_variable done;	/* an item finished */
	std::vector<xqp_work *> queue;
	std::vector<const xqp_work *> running;	/* by address only */
};
WorkPool *pool;

HostWork *hw(xqp_work *w) { return reinterpret_cast<HostWork *>(w->opaque); }
thread_local const xqp_work *work_here;	/* the item this worker runs */

bool is_running(const xqp_work *w)
{
	return std::find(pool->running.begin(), pool->running.end(), w) != pool->running.end();
}

/* The first queued item that is due and not running, or the next deadline. */
xqp_work *pick(Clock::time_point now, Clock::time_point *next)
{
	*next = Clock::time_point::max();
	for (auto it = pool->queue.begin(); it != pool->queue.end(); ++it) {
		HostWork *h = hw(*it);
		if (is_running(*it))
			continue;
		if (h->due <= now) {
			xqp_work *w = *it;
			pool->queue.erase(it);
			return w;
		}
		*next = std::min(*next, h->due);
	}
	return nullptr;
}

/* As the kernel seam: the item runs with the armed count as its own fail-nth. */
void run_work_item(xqp_work *w)
{
	int armed = work_nth.exchange(0);

	work_nth_here = armed > 0 ? armed : 0;
	work_here = w;
	w->fn(w);	/* may free w */
	work_here = nullptr;
	if (armed > 0) {
		if (work_nth_here) {	/* not reached: armed for the next item */
			int zero = 0;
			work_nth.compare_exchange_strong(zero, work_nth_here);
		} else {
			work_fired.store(1);
		}
	}
	work_nth_here = 0;
}

void work_loop()
{
	std::unique_lock<std::mutex> l(pool->m);
	for (;;) {
		Clock::time_point next;
		xqp_work *w = pick(Clock::now(), &next);
		if (!w) {
			if (next == Clock::time_point::max())
				pool->cv.wait(l);
			else
				pool->cv.wait_until(l, next);
			continue;
		}
		hw(w)->pending = false;
		pool->running.push_back(w);
		l.unlock();
		run_work_item(w);
		l.lock();
		pool->running.erase(std::find(pool->running.begin(), pool->running.end(), w));
		pool->done.notify_all();
		pool->cv.notify_all();
	}
}

void work_pool_start()
{
	static std::once_flag once;
	std::call_once(once, [] {
		pool = new WorkPool;
		for (int i = 0; i < 2; i++)
			std::thread(work_loop).detach();
	});
}

struct HostWaitq {
	std::mutex m;
	std::condition_variable cv;
};
static_assert(sizeof(HostWaitq) <= sizeof(xqp_waitq));

} // namespace

long xqp_host_live_allocs() { return live_allocs.load(); }
long xqp_host_live_bytes() { return live_bytes.load(); }
void xqp_host_fail_alloc_after(long n) { fail_after.store(n); }

long xqp_host_alloc_calls() { return alloc_calls.load(); }
long xqp_host_warn_count() { return warn_count.load(); }

extern "C" {

void xqp_work_fail_nth(unsigned int nth)
{
	work_fired.store(0);
	work_nth.store((int)nth);
}

int xqp_work_fail_fired(void) { return work_fired.load(); }

static void *host_zalloc(xqp_size_t size, xqp_gfp_t gfp, int cache);
static void host_free(void *p, int cache);

void *xqp_zalloc(xqp_size_t size, xqp_gfp_t gfp)
{
	return host_zalloc(size, gfp, -1);
}

void xqp_free(void *p)
{
	host_free(p, -1);
}

void *xqp_cache_zalloc(enum xqp_cache_class cls, xqp_gfp_t gfp)
{
	if (cls < 0 || cls >= XQP_CACHE_CLASSES)
		die("allocation from an unknown cache");
	return host_zalloc(xqp_cache_sizes[cls], gfp, cls);
}

void xqp_cache_free(enum xqp_cache_class cls, void *p)
{
	if (cls < 0 || cls >= XQP_CACHE_CLASSES)
		die("free to an unknown cache");
	host_free(p, cls);
}

static void *host_zalloc(xqp_size_t size, xqp_gfp_t gfp, int cache)
{
	if (gfp == XQP_GFP_KERNEL || gfp == XQP_GFP_KERNEL_ACCOUNT)
		check_may_sleep("GFP_KERNEL allocation in atomic context");
	else if (gfp != XQP_GFP_ATOMIC)
		die("allocation with an unknown gfp");
	alloc_calls++;
	if (work_nth_here > 0 && --work_nth_here == 0)
		return nullptr;
	long f = fail_after.load();
	if (f >= 0 && fail_after.fetch_sub(1) == 0)
		return nullptr;
	auto *h = static_cast<AllocHeader *>(std::calloc(1, sizeof(AllocHeader) + size));
	if (!h)
		return nullptr;
	h->magic = kMagicLive;
	h->size = size;
	h->cache = cache;
	live_allocs++;
	live_bytes += static_cast<long>(size);
	return h->data;
}

static void host_free(void *p, int cache)
{
	if (!p)
		return;
	auto *h = reinterpret_cast<AllocHeader *>(static_cast<unsigned char *>(p) -
						  offsetof(AllocHeader, data));
	if (h->magic == kMagicFreed)
		die("double free");
	if (h->magic != kMagicLive)
		die("free of memory not from xqp_zalloc");
	if (h->cache != cache)
		die(cache < 0 ? "xqp_free of a cache object" : "object freed to the wrong cache");
	h->magic = kMagicFreed;
	std::memset(h->data, kPoison, h->size);
	live_allocs--;
	live_bytes -= static_cast<long>(h->size);
	std::free(h);
}

void *xqp_kvzalloc(xqp_size_t size)
{
	return xqp_zalloc(size, XQP_GFP_KERNEL);
}

void xqp_kvfree(void *p)
{
	xqp_free(p);
}

void xqp_spin_init(struct xqp_spinlock *l, enum xqp_lock_class cls)
{
	auto *s = reinterpret_cast<HostSpin *>(l);
	pthread_mutex_init(&s->m, nullptr);
	new (&s->owner) std::atomic<pthread_t>(0);
	s->cls = cls;
}

unsigned long xqp_spin_lock_irqsave(struct xqp_spinlock *l)
{
	auto *s = reinterpret_cast<HostSpin *>(l);
	if (s->owner.load() == pthread_self())
		die("spinlock recursion");
	pthread_mutex_lock(&s->m);
	s->owner.store(pthread_self());
	spin_depth++;
	return 0x200;
}

void xqp_spin_unlock_irqrestore(struct xqp_spinlock *l, unsigned long flags)
{
	auto *s = reinterpret_cast<HostSpin *>(l);
	if (flags != 0x200)
		die("spin_unlock_irqrestore with foreign flags");
	if (s->owner.load() != pthread_self())
		die("spin_unlock by a thread that does not hold it");
	s->owner.store(0);
	spin_depth--;
	pthread_mutex_unlock(&s->m);
}

unsigned long xqp_irq_save(void)
{
	irqs_off++;
	spin_depth++;
	return kIrqFlags;
}

void xqp_irq_restore(unsigned long flags)
{
	if (flags != kIrqFlags || irqs_off <= 0)
		die("irq_restore without a matching irq_save");
	irqs_off--;
	spin_depth--;
}

void xqp_spin_lock_irqs_off(struct xqp_spinlock *l)
{
	if (!irqs_off)
		die("spin_lock_irqs_off with IRQs on");
	xqp_spin_lock_irqsave(l);
}

void xqp_spin_unlock_irqs_off(struct xqp_spinlock *l)
{
	if (!irqs_off)
		die("spin_unlock_irqs_off with IRQs on");
	xqp_spin_unlock_irqrestore(l, 0x200);
}

void xqp_assert_spin_held(struct xqp_spinlock *l)
{
	auto *s = reinterpret_cast<HostSpin *>(l);
	if (s->owner.load() != pthread_self())
		die("spinlock not held");
}

void xqp_mutex_init(struct xqp_mutex *m, enum xqp_lock_class cls)
{
	auto *x = reinterpret_cast<HostMutex *>(m);
	pthread_mutex_init(&x->m, nullptr);
	new (&x->owner) std::atomic<pthread_t>(0);
	x->cls = cls;
}

void xqp_mutex_lock(struct xqp_mutex *m)
{
	auto *x = reinterpret_cast<HostMutex *>(m);
	check_may_sleep("mutex_lock in atomic context");
	if (x->owner.load() == pthread_self())
		die("mutex recursion");
	pthread_mutex_lock(&x->m);
	x->owner.store(pthread_self());
}

void xqp_mutex_unlock(struct xqp_mutex *m)
{
	auto *x = reinterpret_cast<HostMutex *>(m);
	if (x->owner.load() != pthread_self())
		die("mutex_unlock by a thread that does not hold it");
	x->owner.store(0);
	pthread_mutex_unlock(&x->m);
}

void xqp_mutex_destroy(struct xqp_mutex *m)
{
	auto *x = reinterpret_cast<HostMutex *>(m);
	if (x->owner.load())
		die("destroying a held mutex");
	pthread_mutex_destroy(&x->m);
}

static pthread_mutex_t registry_mutex = PTHREAD_MUTEX_INITIALIZER;

void xqp_registry_lock(void)
{
	check_may_sleep("registry lock in atomic context");
	pthread_mutex_lock(&registry_mutex);
}

void xqp_registry_unlock(void)
{
	pthread_mutex_unlock(&registry_mutex);
}

void xqp_rcu_read_lock(void)
{
	if (rcu_depth++ == 0)
		pthread_rwlock_rdlock(&rcu_lock);
}

void xqp_rcu_read_unlock(void)
{
	if (rcu_depth <= 0)
		die("rcu_read_unlock without lock");
	if (--rcu_depth == 0)
		pthread_rwlock_unlock(&rcu_lock);
}

void xqp_synchronize_rcu(void)
{
	check_may_sleep("synchronize_rcu in atomic context");
	pthread_rwlock_wrlock(&rcu_lock);
	pthread_rwlock_unlock(&rcu_lock);
}

void xqp_call_rcu(struct xqp_rcu_head *head, xqp_rcu_callback_t func)
{
	rcu_worker_start();
	std::lock_guard<std::mutex> l(worker->m);
	worker->pending.push_back(Callback{head, func});
	worker->cv.notify_one();
}

void xqp_rcu_barrier(void)
{
	check_may_sleep("rcu_barrier in atomic context");
	rcu_worker_start();
	std::unique_lock<std::mutex> l(worker->m);
	worker->idle.wait(l, [] { return worker->pending.empty() && !worker->busy; });
}

void xqp_might_sleep(void)
{
	check_may_sleep("might_sleep in atomic context");
}

void xqp_cond_resched(void)
{
	check_may_sleep("cond_resched in atomic context");
	sched_yield();
}

int xqp_may_sleep(void)
{
	return !spin_depth && !rcu_depth;
}

int xqp_seam_init(void)
{
	return 0;
}

void xqp_seam_exit(void)
{
}

void xqp_work_init(struct xqp_work *work, xqp_work_fn_t fn)
{
	work->fn = fn;
	new (work->opaque) HostWork{Clock::now(), false, false};
}

void xqp_work_queue(struct xqp_work *work, xqp_u32 delay_us)
{
	work_pool_start();
	std::lock_guard<std::mutex> l(pool->m);
	HostWork *h = hw(work);
	if (h->pending || h->canceling)
		return;
	h->pending = true;
	h->due = Clock::now() + std::chrono::microseconds(delay_us);
	pool->queue.push_back(work);
	pool->cv.notify_all();
}

void xqp_work_expedite(struct xqp_work *work)
{
	xqp_work_reschedule(work, 0);
}

void xqp_work_reschedule(struct xqp_work *work, xqp_u32 delay_us)
{
	work_pool_start();
	std::lock_guard<std::mutex> l(pool->m);
	HostWork *h = hw(work);
	if (h->canceling)
		return;
	h->due = Clock::now() + std::chrono::microseconds(delay_us);
	if (!h->pending) {
		h->pending = true;
		pool->queue.push_back(work);
	}
	pool->cv.notify_all();
}

void xqp_work_cancel_sync(struct xqp_work *work)
{
	check_may_sleep("cancel_work_sync in atomic context");
	work_pool_start();
	std::unique_lock<std::mutex> l(pool->m);
	HostWork *h = hw(work);
	h->canceling = true;
	auto it = std::find(pool->queue.begin(), pool->queue.end(), work);
	if (it != pool->queue.end())
		pool->queue.erase(it);
	h->pending = false;
	pool->done.wait(l, [work] { return !is_running(work); });
	h->canceling = false;
}

void xqp_work_cancel(struct xqp_work *work)
{
	work_pool_start();
	std::lock_guard<std::mutex> l(pool->m);
	auto it = std::find(pool->queue.begin(), pool->queue.end(), work);
	if (it != pool->queue.end())
		pool->queue.erase(it);
	hw(work)->pending = false;
}

int xqp_work_is_current(const struct xqp_work *work)
{
	return work_here == work;
}

void xqp_work_flush_all(void)
{
	check_may_sleep("flush_workqueue in atomic context");
	work_pool_start();
	std::unique_lock<std::mutex> l(pool->m);
	pool->done.wait(l, [] {
		Clock::time_point now = Clock::now();
		for (xqp_work *w : pool->queue)
			if (hw(w)->due <= now)
				return false;
		return pool->running.empty();
	});
}

void xqp_waitq_init(struct xqp_waitq *wq)
{
	new (wq->opaque) HostWaitq;
}

void xqp_wait_zero(struct xqp_waitq *wq, int *counter)
{
	auto *w = reinterpret_cast<HostWaitq *>(wq->opaque);
	check_may_sleep("wait_event in atomic context");
	std::unique_lock<std::mutex> l(w->m);
	w->cv.wait(l, [counter] { return __atomic_load_n(counter, __ATOMIC_ACQUIRE) == 0; });
}

void xqp_waitq_dec(struct xqp_waitq *wq, int *counter)
{
	auto *w = reinterpret_cast<HostWaitq *>(wq->opaque);
	std::lock_guard<std::mutex> l(w->m);
	if (__atomic_sub_fetch(counter, 1, __ATOMIC_ACQ_REL) == 0)
		w->cv.notify_all();
}

void xqp_cpu_relax(void)
{
	sched_yield();
}

/* Bit by bit: the host's copy is for tests, not speed. */
xqp_u32 xqp_crc32_le(xqp_u32 crc, const void *p, xqp_size_t len)
{
	const unsigned char *b = static_cast<const unsigned char *>(p);

	while (len--) {
		crc ^= *b++;
		for (int i = 0; i < 8; i++)
			crc = (crc >> 1) ^ (0xedb88320U & (0U - (crc & 1)));
	}
	return crc;
}

void xqp_bug(const char *file, int line, const char *what)
{
	std::fprintf(stderr, "xqp: BUG at %s:%d: %s\n", file, line, what);
	std::abort();
}

void xqp_warn(const char *file, int line, const char *what)
{
	warn_count++;
	std::fprintf(stderr, "xqp: WARNING at %s:%d: %s\n", file, line, what);
}

void xqp_log(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	std::vfprintf(stderr, fmt, ap);
	va_end(ap);
}

} // extern "C"
