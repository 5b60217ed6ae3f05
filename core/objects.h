/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The core's objects behind the opaque C types of xqp/verbs.h.
 *
 * Ownership and lifetime (docs/design.md has the full story):
 *  - xqp_device: refcounted by the objects on it; the driver's reference is
 *    dropped by xqp_unregister_device().
 *  - xqp_pd / xqp_cq / xqp_srq / xqp_xrcd: owned by their creator; usecnt
 *    counts the objects that use them (destroy is -EBUSY while non-zero).
 *  - RealQp: the driver QP. A non-XRC one is owned by its creator. An XRC_TGT
 *    one is owned by the core: it lives in its XRCD's table while it has
 *    shares (or until destroyed) and is freed an RCU grace period after the
 *    driver destroyed it.
 *  - Share: what one holder of an XRC_TGT QP holds, its creator or each
 *    xqp_open_qp() caller (Linux's per-opener struct ib_qp from
 *    __ib_open_qp(), which ib_core calls a handle; "handle" in xqp means
 *    only a uverbs object's number): compact, points at the RealQp, linked
 *    in its share list; from its own object cache, freed when closed, or by
 *    the last event walk in progress on its QP then.
 */
#ifndef XQP_OBJECTS_H
#define XQP_OBJECTS_H

#include "xqp/driver.h"
#include "events.h"
#include "qp_table.h"
#include "util/lock.h"
#include "util/rcu_list.h"

namespace xqp {
struct RealQp;
struct Share;
}

/* Common header of a real QP and a share: what an xqp_qp pointer points at. */
struct xqp_qp {
	enum class Kind : xqp::u8 { real = 0x51, share = 0x53 } kind;
};

/*
 * Top-level objects a device tears down when it is unregistered. strays:
 * XRC_TGT QPs whose publication failed and that the driver then refused to
 * destroy (qp_create.cpp); nobody holds them, the core asks the driver again
 * when their XRCD is deallocated and at unregistration.
 */
struct xqp_device_objects {
	xqp::RcuList pds, cqs, srqs, xrcds, qps, mrs, mws, ahs, strays;
	xqp::u32 count;
	xqp::u32 last_res_id;	/* res.cpp: ids given by track(), increasing */
};

struct xqp_client_slots {
	void *data[XQP_MAX_CLIENTS];
};

struct xqp_device : xqp::Allocated, xqp::Pinned {
	const xqp_device_ops *ops;
	void *drv;
	char name[64];
	xqp::u8 phys_port_cnt;	/* from query_device at registration */
	xqp::u32 max_ah;	/* likewise; ah_count stays at most this */
	xqp::Atomic<xqp::u32> ah_count;
	xqp::Atomic<xqp::u32> refs{1};
	xqp::Atomic<xqp::u32> dead;
	xqp::Mutex<xqp_device_objects> objects{XQP_LOCK_DEVICE};
	xqp_device *next_registered;		/* registry lock */
	/*
	 * Each client's data: set and cleared under the registry lock and
	 * this mutex, read under either. Device events are delivered under
	 * this mutex alone, so that a driver may raise one under locks a
	 * client's add() takes (the RTNL, in ibdev) without the registry lock.
	 */
	xqp::Mutex<xqp_client_slots> clients{XQP_LOCK_DEVICE_CLIENTS};

	bool alive() const { return !dead.load(); }
	void get() { refs.inc(); }
	void put();
	/*
	 * Lists @n; first gives *@res_id the object's resource id (res.h:
	 * device-unique, increasing), under the lock a walk holds.
	 */
	void track(xqp::ListNode *n, xqp::RcuList xqp_device_objects::*list,
		   xqp::u32 *res_id = nullptr);
	void untrack(xqp::ListNode *n);
};

namespace xqp {

/*
 * What a device keeps of each of its top-level objects with a driver
 * object (PD, CQ, SRQ, XRCD, MR): the device and the driver's object, the
 * node on the device's list (torn down at unregistration; make_tracked()
 * in object_life.h), and what `xqp res` reports (res.cpp).
 */
struct Tracked {
	xqp_device *dev;
	void *drv;		/* null once the device has detached it */
	ListNode dev_node;
	u32 res_id;		/* from xqp_device::track() */
	void *res_owner;	/* res.cpp, atomically */
};

} // namespace xqp

struct xqp_pd : xqp::Allocated, xqp::Pinned {
	xqp::Tracked t;
	xqp::Atomic<xqp::u32> usecnt;
};

struct xqp_cq : xqp::Allocated, xqp::Pinned {
	xqp::Tracked t;
	int cqe;		/* granted by the driver */
	xqp_comp_handler_t comp_handler;
	xqp_comp_handler_t poll_wake;		/* inline, xqp_cq_arm_poll_wake() */
	xqp_event_handler_t handler;
	void *context;
	xqp::OwnedEventBox events;		/* without XQP_EVENT_INLINE */
	xqp::Atomic<xqp::u32> usecnt;
	bool comp_inline;			/* XQP_CQ_COMP_INLINE */
	xqp::Atomic<xqp::u32> comp_fires;	/* comp_handler calls owed: */
	xqp_work comp_work;			/*   made by this (pd_cq.cpp) */
};

struct xqp_srq : xqp::Allocated, xqp::Pinned {
	xqp::Tracked t;
	xqp_pd *pd;
	xqp_cq *cq;
	xqp_xrcd *xrcd;
	xqp_srq_type type;
	xqp::u32 srq_num;
	xqp_event_handler_t handler;
	void *context;
	xqp::OwnedEventBox events;	/* without XQP_EVENT_INLINE */
	xqp::Atomic<xqp::u32> usecnt;
};

struct xqp_xrcd : xqp::Allocated, xqp::Pinned {
	xqp::Tracked t;
	/* real XRC_TGT QPs + XRC SRQs + inode users */
	xqp::Atomic<xqp::u32> usecnt;
	xqp::Mutex<xqp::QpTable> table{XQP_LOCK_XRCD};
	xqp::u64 res_ino;		/* res.cpp, atomically */
};

/* A memory region: the driver's MR over memory the MR owns from then on. */
struct xqp_mr : xqp::Allocated, xqp::Pinned {
	xqp::Tracked t;
	xqp_pd *pd;
	xqp_mem *mem;		/* released once off the device's list; null after detach */
	xqp::u32 lkey;
	xqp::u32 rkey;
};

/* A memory window: the driver keeps its state; the core, its PD. */
struct xqp_mw : xqp::Allocated, xqp::Pinned {
	xqp::Tracked t;
	xqp_pd *pd;
	xqp::u32 rkey;		/* as allocated */
	enum xqp_mw_type type;
};

/*
 * An address handle: the core keeps the address and drivers read it when a
 * UD WR is posted (they copy what they need then, so destroying an AH with
 * WRs still queued is safe). No driver object.
 */
struct xqp_ah : xqp::Allocated, xqp::Pinned {
	xqp_device *dev;
	xqp_pd *pd;
	xqp_ah_attr attr;
	xqp::ListNode dev_node;	/* unless made with XQP_AH_NO_SLEEP */
	bool listed;
};

namespace xqp {

enum class Life : u8 { live, dying };

/*
 * What a real QP's lock protects. Event walks read the share list without
 * the lock (the RcuList reader protocol) and are counted in walks: a share
 * closed while none runs is freed at once; one closed during a walk waits
 * out a delivery to it (its state), goes on retired, and the last walk
 * frees it, so a walker never reads freed memory.
 */
struct QpShared {
	RcuList shares;
	u32 share_count;
	u32 walks;		/* event walks in progress on this QP */
	Share *retired;	/* closed during a walk, linked by next_retired */
	Life life;
};

struct RealQp : Allocated, Pinned {
	xqp_qp base;
	xqp_device *dev;
	void *drv;
	u32 qp_num;
	xqp_qp_type type;
	xqp_sig_type sq_sig_type;	/* as created (XQP_SIGNAL_ALL_WR or REQ_WR) */
	xqp_pd *pd;
	xqp_cq *send_cq;
	xqp_cq *recv_cq;
	xqp_srq *srq;
	xqp_xrcd *xrcd;		/* XRC_TGT only */
	xqp_event_handler_t handler;	/* non-XRC_TGT only */
	void *context;
	/*
	 * Non-XRC_TGT: the creator's handler without XQP_EVENT_INLINE. An
	 * XRC_TGT QP's from the first such share, kept until it is freed.
	 */
	OwnedEventBox events;
	void *uobj;
	const char *caller;	/* the kernel module that created it, or null */
	Atomic<u32> mcast;	/* multicast attachments (UD): destroy is -EBUSY */
	SpinLock<QpShared> shared{XQP_LOCK_QP};
	ListNode dev_node;	/* non-XRC_TGT: on the device's list; a stray: on strays */
	u32 res_id;		/* non-XRC_TGT: from track() */
	xqp_rcu_head rcu;

	static RealQp *from(xqp_qp *qp) { return reinterpret_cast<RealQp *>(qp); }
	xqp_qp *c() { return &base; }
	bool is_xrc_tgt() const { return type == XQP_QPT_XRC_TGT; }
	/* Retires its event box (may sleep), then frees it after a grace period. */
	void free_after_grace();
};

/*
 * A share: 56 bytes on every kernel, having no lock (xqp_object_sizes()),
 * from the share cache (XQP_CACHE_SHARE), zeroed.
 */
struct Share {
	xqp_qp base;
	/*
	 * Which walk runs its handler: none (no handler), the raiser's
	 * (XQP_EVENT_INLINE) or its event box's. One byte compared per share
	 * of a walk (qp_event.cpp), set at its creation.
	 */
	enum class Walk : u8 { none, raiser, box };
	Walk walk;
	/*
	 * OPEN, or DELIVERING while one walker runs its handler, or CLOSED by
	 * a close during a walk (qp_event.cpp): taken with one compare-and-
	 * swap, inline, where a lock would cost two calls into the seam.
	 */
	enum : u32 { OPEN, DELIVERING, CLOSED };
	Atomic<u32> state;
	ListNode node;		/* on real->shared.shares */
	union {
		RealQp *real;		/* while open */
		Share *next_retired;	/* once closed during a walk (real's lock) */
	};
	xqp_event_handler_t handler;
	void *context;
	void *uobj;

	static void *operator new(size_t, Gfp gfp) noexcept
	{
		return xqp_cache_zalloc(XQP_CACHE_SHARE, gfp.flags);
	}
	static void operator delete(void *p) { xqp_cache_free(XQP_CACHE_SHARE, p); }
	static void operator delete(void *p, Gfp) { xqp_cache_free(XQP_CACHE_SHARE, p); }

	static Share *from(xqp_qp *qp) { return reinterpret_cast<Share *>(qp); }
	static Share *from_node(ListNode *n)
	{
		return reinterpret_cast<Share *>(reinterpret_cast<char *>(n) -
						  __builtin_offsetof(Share, node));
	}
	xqp_qp *c() { return &base; }

	static Share *create(RealQp *real, xqp_event_handler_t handler,
			      void *context, u32 event_flags);
	/* Link into real's list; real->shared must be locked by the caller. */
	void link(QpShared &s);
	/*
	 * Unlinks from real's list (@s: real->shared, locked by the caller).
	 * No handler call for it starts after this returns, and none is in
	 * progress. Returns the share when the caller frees it (delete, once
	 * the lock is dropped); null when a walk is in progress on the QP: the
	 * last walk frees it then.
	 */
	[[nodiscard]] Share *unlink(QpShared &s);
};

/* Device registry (registry.cpp): clients hear of devices coming and going. */
void registry_add(xqp_device *dev);
void registry_remove(xqp_device *dev);

/* An event box's delivery for a real QP (qp_event.cpp). */
void deliver_qp_event(void *real, xqp_event_type type);

/* Drops what an ordinary QP took on its PD, CQs and SRQ at creation. */
void qp_uses_put(RealQp *qp);

/* Destroys the strays of @xrcd (qp_destroy.cpp): 0, or the driver's error. */
int reap_strays(xqp_xrcd *xrcd);
/* The first stray of @xrcd (of any XRCD if null); the device mutex held. */
RealQp *first_stray(xqp_device_objects &objs, xqp_xrcd *xrcd);

inline bool is_share(const xqp_qp *qp) { return qp->kind == xqp_qp::Kind::share; }

/* The real QP behind a QP or share: what modify, query and events act on. */
inline RealQp *real_of(xqp_qp *qp)
{
	return is_share(qp) ? Share::from(qp)->real : RealQp::from(qp);
}

/* Object lookup helpers for code that walks the device lists. */
/* Where an object's node on its device's list is. */
template <typename T> constexpr size_t dev_node_offset()
{
	return __builtin_offsetof(T, t.dev_node);
}
template <> constexpr size_t dev_node_offset<RealQp>()
{
	return __builtin_offsetof(RealQp, dev_node);
}
template <> constexpr size_t dev_node_offset<xqp_ah>()
{
	return __builtin_offsetof(xqp_ah, dev_node);
}

/* A listed object's driver object and resource id (RealQp keeps its own). */
template <typename T> inline void *&drv_of(T *obj) { return obj->t.drv; }
inline void *&drv_of(RealQp *qp) { return qp->drv; }
template <typename T> inline u32 res_id_of(const T *obj) { return obj->t.res_id; }
inline u32 res_id_of(const RealQp *qp) { return qp->res_id; }

template <typename T> inline T *from_dev_node(ListNode *n)
{
	return reinterpret_cast<T *>(reinterpret_cast<char *>(n) - dev_node_offset<T>());
}

} // namespace xqp

#endif
