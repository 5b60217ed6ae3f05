// SPDX-License-Identifier: GPL-2.0
/*
 * The resource walk of xqp/res.h: a device's objects, one type per walk,
 * resumable by a cursor of numbers.
 *
 * Locks: the device's mutex (the device lists and the XRCD list cannot
 * change, no tracked object is freed), inside it an RCU read-side section
 * (an XRCD's QP table is read as xqp_open_qp() reads it; a real QP found
 * there is freed only after a grace period), inside that one QP's spinlock
 * at a time for its share list. The XRCD's table mutex is not taken:
 * creating and opening shared QPs never waits for a report.
 */
#include "objects.h"
#include "xqp/res.h"

using namespace xqp;

/* The lowest-numbered stored QP >= @from: skips absent nodes whole. */
RealQp *QpTable::next_from(u32 from) const
{
	u32 n = from;

	while (n <= kMaxQpNum) {
		Mid *mid = rcu_deref(root_[n >> 16]);
		if (!mid) {
			n = ((n >> 16) + 1) << 16;
			continue;
		}
		Leaf *leaf = rcu_deref(mid->leaf[(n >> 8) & 0xff]);
		if (!leaf) {
			n = ((n >> 8) + 1) << 8;
			continue;
		}
		RealQp *qp = rcu_deref(leaf->slot[n & 0xff]);
		if (qp)
			return qp;
		n++;
	}
	return nullptr;
}

namespace {

/* The report fields are written after publication, from any context. */
template <typename T> T load(const T &v) { return __atomic_load_n(&v, __ATOMIC_ACQUIRE); }
template <typename T> void store(T &v, T x) { __atomic_store_n(&v, x, __ATOMIC_RELEASE); }

struct Walk {
	xqp_res_cursor *cur;
	xqp_res_entry *e;
	u32 budget;
	xqp_res_emit_t emit;
	void *arg;
	bool stopped = false;

	/* Fresh entry of @type for the next object. */
	xqp_res_entry *fresh(xqp_res_type type)
	{
		__builtin_memset(e, 0, sizeof(*e));
		e->type = type;
		return e;
	}
	/* Offers the filled entry; false when the walk must stop before it. */
	bool offer()
	{
		if (emit(arg, e) == XQP_RES_FULL) {
			stopped = true;
			return false;
		}
		budget--;
		return true;
	}
	bool out_of_budget()
	{
		if (budget == 0)
			stopped = true;
		return stopped;
	}
};

/* The resource id of a tracked object, 0 for none. */
template <typename T> u32 id_of(const T *obj) { return obj ? obj->t.res_id : 0; }

void fill(xqp_res_entry *e, xqp_pd *pd)
{
	e->usecnt = pd->usecnt.load();
	e->owner = load(pd->t.res_owner);
}

void fill(xqp_res_entry *e, xqp_cq *cq)
{
	e->usecnt = cq->usecnt.load();
	e->owner = load(cq->t.res_owner);
	e->handler = cq->handler;
	e->context = cq->context;
	e->cq.cqe = cq->cqe;
}

void fill(xqp_res_entry *e, xqp_srq *srq)
{
	e->usecnt = srq->usecnt.load();
	e->owner = load(srq->t.res_owner);
	e->handler = srq->handler;
	e->context = srq->context;
	e->srq.srq_num = srq->srq_num;
	e->srq.type = srq->type;
	e->srq.pd = id_of(srq->pd);
	e->srq.cq = id_of(srq->cq);
	e->srq.xrcd = id_of(srq->xrcd);
}

void fill(xqp_res_entry *e, xqp_xrcd *x)
{
	e->usecnt = x->usecnt.load();
	e->owner = load(x->t.res_owner);
	e->xrcd.inode = load(x->res_ino);
}

void fill(xqp_res_entry *e, xqp_mr *mr)
{
	e->owner = load(mr->t.res_owner);
	e->mr.lkey = mr->lkey;
	e->mr.rkey = mr->rkey;
	e->mr.pd = id_of(mr->pd);
	e->mr.length = mr->mem ? mr->mem->length : 0;
}

void fill(xqp_res_entry *e, RealQp *qp)
{
	e->owner = qp->uobj;
	e->handler = qp->handler;
	e->context = qp->context;
	e->qp.qp_num = qp->qp_num;
	e->qp.type = qp->type;
	e->qp.pd = id_of(qp->pd);
	e->qp.send_cq = id_of(qp->send_cq);
	e->qp.recv_cq = id_of(qp->recv_cq);
	e->qp.srq = id_of(qp->srq);
	e->qp.caller = qp->caller;
}

/* An XRC_TGT QP and a snapshot of its shares, under its lock. */
void fill_tgt(xqp_res_entry *e, RealQp *qp)
{
	fill(e, qp);
	e->qp.xrcd = id_of(qp->xrcd);
	e->qp.xrcd_usecnt = qp->xrcd->usecnt.load();

	auto s = qp->shared.lock();
	e->qp.share_count = s->share_count;
	e->qp.dying = s->life == Life::dying;
	s->shares.for_each([&](ListNode *n) {
		if (e->qp.nshares == XQP_RES_SHARES_MAX)
			return;
		Share *h = Share::from_node(n);
		xqp_res_share &out = e->qp.shares[e->qp.nshares++];
		out.handler = h->handler;
		out.context = h->context;
		out.uobj = h->uobj;
	});
}

/*
 * One device list, newest first; resumes below the last id visited. Returns
 * true when the list is finished.
 */
template <typename T>
bool walk_list(Walk &w, const RcuList &list, xqp_res_type type)
{
	list.for_each([&](ListNode *n) {
		if (w.stopped)
			return;
		T *obj = from_dev_node<T>(n);
		if (w.cur->started && res_id_of(obj) >= w.cur->id)
			return;
		if (w.out_of_budget())
			return;
		xqp_res_entry *e = w.fresh(type);
		e->id = res_id_of(obj);
		{
			RcuReadGuard rcu;
			fill(e, obj);
			if (!w.offer())
				return;
		}
		w.cur->started = 1;
		w.cur->id = res_id_of(obj);
	});
	return !w.stopped;
}

/* The QPs of one XRCD's table, by number, from w.cur->qp_num. */
bool walk_table(Walk &w, xqp_xrcd *x)
{
	RcuReadGuard rcu;
	const QpTable &table = x->table.rcu_view();

	while (RealQp *qp = table.next_from(w.cur->qp_num)) {
		if (w.out_of_budget())
			return false;
		xqp_res_entry *e = w.fresh(XQP_RES_QP);
		fill_tgt(e, qp);
		if (!w.offer())
			return false;
		w.cur->qp_num = qp->qp_num + 1;
	}
	return true;
}

/* Phase 1 of a QP walk: XRC_TGT QPs, XRCD by XRCD, newest XRCD first. */
bool walk_tgt(Walk &w, const RcuList &xrcds)
{
	xrcds.for_each([&](ListNode *n) {
		if (w.stopped)
			return;
		xqp_xrcd *x = from_dev_node<xqp_xrcd>(n);
		if (w.cur->started && x->t.res_id > w.cur->id)
			return;
		if (!w.cur->started || x->t.res_id < w.cur->id) {
			w.cur->started = 1;
			w.cur->id = x->t.res_id;
			w.cur->qp_num = 0;
		}
		walk_table(w, x);
	});
	return !w.stopped;
}

bool walk_qps(Walk &w, xqp_device_objects &objs)
{
	if (w.cur->phase == 0) {
		if (!walk_list<RealQp>(w, objs.qps, XQP_RES_QP))
			return false;
		w.cur->phase = 1;
		w.cur->started = 0;
		w.cur->id = 0;
		w.cur->qp_num = 0;
	}
	return walk_tgt(w, objs.xrcds);
}

} // namespace

extern "C" int xqp_res_walk(struct xqp_device *dev, enum xqp_res_type type,
			    struct xqp_res_cursor *cur, struct xqp_res_entry *scratch,
			    xqp_u32 budget, xqp_res_emit_t emit, void *arg)
{
	if (!budget || !emit || enum_int(&type) < 0 || enum_int(&type) >= XQP_RES_NR_TYPES)
		return -XQP_EINVAL;

	Walk w{cur, scratch, budget, emit, arg};
	auto objs = dev->objects.lock();
	if (!dev->alive())
		return -XQP_EIO;

	bool done = false;
	switch (type) {
	case XQP_RES_PD:
		done = walk_list<xqp_pd>(w, objs->pds, type);
		break;
	case XQP_RES_CQ:
		done = walk_list<xqp_cq>(w, objs->cqs, type);
		break;
	case XQP_RES_XRCD:
		done = walk_list<xqp_xrcd>(w, objs->xrcds, type);
		break;
	case XQP_RES_SRQ:
		done = walk_list<xqp_srq>(w, objs->srqs, type);
		break;
	case XQP_RES_MR:
		done = walk_list<xqp_mr>(w, objs->mrs, type);
		break;
	case XQP_RES_QP:
		done = walk_qps(w, *objs);
		break;
	case XQP_RES_NR_TYPES:
		break;
	}
	return done ? 0 : 1;
}

extern "C" void xqp_pd_set_res_owner(struct xqp_pd *pd, void *owner)
{
	store(pd->t.res_owner, owner);
}

extern "C" void xqp_cq_set_res_owner(struct xqp_cq *cq, void *owner)
{
	store(cq->t.res_owner, owner);
}

extern "C" void xqp_srq_set_res_owner(struct xqp_srq *srq, void *owner)
{
	store(srq->t.res_owner, owner);
}

extern "C" void xqp_xrcd_set_res_owner(struct xqp_xrcd *xrcd, void *owner)
{
	store(xrcd->t.res_owner, owner);
}

extern "C" void xqp_mr_set_res_owner(struct xqp_mr *mr, void *owner)
{
	store(mr->t.res_owner, owner);
}

extern "C" void xqp_xrcd_clear_res_owner(struct xqp_xrcd *xrcd, void *owner)
{
	__atomic_compare_exchange_n(&xrcd->t.res_owner, &owner, nullptr, false,
				    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED);
}

extern "C" void xqp_xrcd_set_res_inode(struct xqp_xrcd *xrcd, xqp_u64 ino)
{
	store(xrcd->res_ino, ino);
}

extern "C" xqp_u32 xqp_pd_res_id(const struct xqp_pd *pd)
{
	return pd->t.res_id;
}

extern "C" xqp_u32 xqp_xrcd_res_id(const struct xqp_xrcd *xrcd)
{
	return xrcd->t.res_id;
}
