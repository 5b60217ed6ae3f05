// SPDX-License-Identifier: GPL-2.0
/*
 * xqp_soft: the software device, control path. It implements the object ops
 * of struct xqp_device_ops the way rxe does: capability checks against the
 * device limits, granted capabilities reported back, QP state changes
 * validated with the IB spec table, attributes kept and queried. The data
 * path lives in fabric.c, mr.c, cq.c, wq.c and exec.c (soft_priv.h).
 *
 * Locking: soft->lock (a spinlock, class XQP_LOCK_SOFT) protects the object
 * counts and the number tables; each QP's own lock protects its state and
 * attributes. The two are never held together. Nothing allocates or frees
 * under a spinlock. Fault injection and call counts use atomics. Events and
 * remote requesters use an object under no soft lock: its refs keep it
 * alive meanwhile, and its destroy op sleeps until they drain after making
 * it unreachable (QPs, SRQs and MRs by number, CQs on soft->cqs).
 *
 * Numbers (QP numbers, SRQ numbers) come from a two-level table covering the
 * 24-bit space: 4096 leaves of 4096 object pointers (32 KiB each), allocated
 * when a number in their range is first handed out and released when their
 * last number is freed (one empty leaf is kept as a spare, so that creating
 * and destroying in a loop allocates nothing). The table maps a number to
 * its object (raise_qp_event looks QPs up by number) and allocation is
 * cursor-based: a search starts after the last number handed out and wraps
 * around, so a freed number comes back only after the cursor has gone round
 * the whole space. Full leaves are skipped whole, so a wrap costs at most
 * one visit per slot: O(1) amortised while the space is not nearly full.
 */
#include "soft_priv.h"
#include "rules/qp_attr.h"

#define SOFT_LEAF_SHIFT		12
#define SOFT_LEAF_SLOTS		(1U << SOFT_LEAF_SHIFT)
#define SOFT_LEAF_MASK		(SOFT_LEAF_SLOTS - 1)
#define SOFT_LEAVES		(SOFT_NUM_SPACE >> SOFT_LEAF_SHIFT)

#define SOFT_GUID_BASE		0x0258515000000000ULL	/* 02:"XQP":... */

struct soft_leaf {
	void *slot[SOFT_LEAF_SLOTS];
};

static unsigned int soft_instances;

/* ---- references that destroy waits out --------------------------------- */

void soft_refs_init(struct soft_refs *r)
{
	r->count = 0;
	xqp_waitq_init(&r->drained);
}

/* Taken only while the object is reachable (under the lock that finds it). */
void soft_refs_get(struct soft_refs *r)
{
	__atomic_add_fetch(&r->count, 1, __ATOMIC_RELAXED);
}

void soft_refs_put(struct soft_refs *r)
{
	xqp_waitq_dec(&r->drained, &r->count);
}

/* Sleeps until every reference taken before the object became unreachable is gone. */
void soft_refs_drain(struct soft_refs *r)
{
	xqp_wait_zero(&r->drained, &r->count);
}

/* ---- fault injection ---------------------------------------------------- */

/* The injected error if this call of @op is the one armed, else 0. */
static int soft_inject_fires(struct xqp_soft *soft, enum xqp_soft_op op)
{
	struct soft_inject *inj = &soft->inject[op];

	if (__atomic_load_n(&inj->countdown, __ATOMIC_ACQUIRE) <= 0)
		return 0;
	if (__atomic_sub_fetch(&inj->countdown, 1, __ATOMIC_ACQ_REL) != 0)
		return 0;
	return __atomic_load_n(&inj->err, __ATOMIC_RELAXED);
}

/*
 * Every op starts here: counts the call and returns the injected error if
 * this is the call xqp_soft_inject() armed, else 0.
 */
int soft_enter(struct xqp_soft *soft, enum xqp_soft_op op)
{
	__atomic_fetch_add(&soft->calls[op], 1, __ATOMIC_RELAXED);
	return soft_inject_fires(soft, op);
}

/*
 * soft_enter() for the ops of the fast path (posting, polling, arming a
 * CQ): while nothing is armed and counting is off it only loads two
 * fields that tests write, so posters and pollers on different CPUs write
 * nothing device-wide here.
 */
int soft_enter_data_path(struct xqp_soft *soft, enum xqp_soft_op op)
{
	if (__atomic_load_n(&soft->count_data_path, __ATOMIC_RELAXED))
		__atomic_fetch_add(&soft->calls[op], 1, __ATOMIC_RELAXED);
	return soft_inject_fires(soft, op);
}

/**
 * xqp_soft_inject - make one future call of an op fail.
 * @soft: the soft device.
 * @op: which op.
 * @err: the negative errno the call returns; 0 disarms a pending injection.
 * @after: how many calls of @op succeed first; the (@after + 1)-th fails.
 *
 * One shot: the call after the failing one behaves normally again. The
 * failing call changes nothing (a failing destroy leaves its object intact).
 * Re-arming replaces a pending injection of the same op.
 *
 * Context: any.
 */
void xqp_soft_inject(struct xqp_soft *soft, enum xqp_soft_op op, int err,
		     unsigned int after)
{
	struct soft_inject *inj;
	int countdown;

	if (XQP_WARN_ON((unsigned int)op >= XQP_SOFT_OP_COUNT))
		return;
	inj = &soft->inject[op];
	countdown = after >= 0x7fffffffU ? 0x7fffffff : (int)after + 1;
	__atomic_store_n(&inj->countdown, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&inj->err, err, __ATOMIC_RELAXED);
	if (err)
		__atomic_store_n(&inj->countdown, countdown, __ATOMIC_RELEASE);
}

/**
 * xqp_soft_op_calls - how many times an op has been called.
 * @soft: the soft device.
 * @op: which op.
 *
 * Counts every call since the device was created, failed ones included;
 * for post_send, post_recv, post_srq_recv, poll_cq and req_notify_cq only
 * the calls made while xqp_soft_count_data_path() was on.
 *
 * Context: any.
 * Return: the count.
 */
xqp_u64 xqp_soft_op_calls(struct xqp_soft *soft, enum xqp_soft_op op)
{
	if (XQP_WARN_ON((unsigned int)op >= XQP_SOFT_OP_COUNT))
		return 0;
	return __atomic_load_n(&soft->calls[op], __ATOMIC_RELAXED);
}

/**
 * xqp_soft_count_data_path - count the fast data-path ops' calls too.
 * @soft: the soft device.
 * @on: nonzero to count post_send, post_recv, post_srq_recv, poll_cq and
 *	req_notify_cq calls from now on, 0 to stop (the default: a device is
 *	created with it off, so its fast path writes no device-wide counter).
 *
 * Every other op is always counted. Injection works either way.
 *
 * Context: any.
 */
void xqp_soft_count_data_path(struct xqp_soft *soft, int on)
{
	__atomic_store_n(&soft->count_data_path, !!on, __ATOMIC_RELAXED);
}

/* ---- number tables ------------------------------------------------------ */

static int soft_numtab_init(struct soft_numtab *tab, xqp_u32 first)
{
	tab->first = first;
	tab->cursor = first;
	tab->spare = NULL;
	tab->leaf = xqp_zalloc(SOFT_LEAVES * sizeof(*tab->leaf), XQP_GFP_KERNEL);
	if (!tab->leaf)
		goto err;
	tab->used = xqp_zalloc(SOFT_LEAVES * sizeof(*tab->used), XQP_GFP_KERNEL);
	if (!tab->used)
		goto err_free_leaf;
	return 0;

err_free_leaf:
	xqp_free(tab->leaf);
	tab->leaf = NULL;
err:
	return -XQP_ENOMEM;
}

/* Frees the table; objects still in it are not the table's to free. */
static void soft_numtab_free(struct soft_numtab *tab)
{
	xqp_u32 i;

	for (i = 0; i < SOFT_LEAVES; i++)
		if (tab->leaf[i])
			xqp_free(tab->leaf[i]);
	if (tab->spare)
		xqp_free(tab->spare);
	xqp_free(tab->used);
	xqp_free(tab->leaf);
}

/*
 * Hands out the first free number at or after the cursor, wrapping from the
 * top of the space to tab->first, and maps it to @obj (non-NULL). A number in
 * an absent leaf needs tab->spare. Caller holds soft->lock.
 *
 * Return: 0 and *@num; -EAGAIN if a spare leaf is needed; -ENOSPC if full.
 */
static int soft_numtab_alloc(struct soft_numtab *tab, void *obj, xqp_u32 *num)
{
	xqp_u32 n = tab->cursor;
	xqp_u32 left = SOFT_NUM_SPACE;
	struct soft_leaf *leaf;
	xqp_u32 li, off, step;

	while (left) {
		if (n >= SOFT_NUM_SPACE)
			n = tab->first;
		li = n >> SOFT_LEAF_SHIFT;
		off = n & SOFT_LEAF_MASK;
		step = SOFT_LEAF_SLOTS - off;
		leaf = tab->leaf[li];
		if (!leaf) {
			if (!tab->spare)
				return -XQP_EAGAIN;
			leaf = tab->spare;
			tab->spare = NULL;
			tab->leaf[li] = leaf;
			goto found;
		}
		if (tab->used[li] < SOFT_LEAF_SLOTS) {
			for (; off < SOFT_LEAF_SLOTS; off++)
				if (!leaf->slot[off])
					goto found;
		}
		n += step;
		left -= soft_min(step, left);
	}
	return -XQP_ENOSPC;

found:
	leaf->slot[off] = obj;
	tab->used[li]++;
	*num = (li << SOFT_LEAF_SHIFT) | off;
	tab->cursor = *num + 1;
	return 0;
}

void *soft_numtab_lookup(struct soft_numtab *tab, xqp_u32 num)
{
	struct soft_leaf *leaf;

	if (num >= SOFT_NUM_SPACE)
		return NULL;
	leaf = tab->leaf[num >> SOFT_LEAF_SHIFT];
	return leaf ? leaf->slot[num & SOFT_LEAF_MASK] : NULL;
}

/*
 * Unmaps @num. Caller holds soft->lock.
 * Return: a leaf the caller must free after unlocking, or NULL.
 */
static struct soft_leaf *soft_numtab_remove(struct soft_numtab *tab, xqp_u32 num)
{
	xqp_u32 li = num >> SOFT_LEAF_SHIFT;
	struct soft_leaf *leaf = tab->leaf[li];

	if (XQP_WARN_ON(!leaf || !leaf->slot[num & SOFT_LEAF_MASK]))
		return NULL;
	leaf->slot[num & SOFT_LEAF_MASK] = NULL;
	if (--tab->used[li])
		return NULL;
	tab->leaf[li] = NULL;
	if (!tab->spare) {
		tab->spare = leaf;
		return NULL;
	}
	return leaf;
}

/*
 * Counts a new object of a kind limited to @max and gives it a number in
 * @tab. Allocates a leaf (outside the lock) when the table needs one.
 */
int soft_numtab_insert(struct xqp_soft *soft, struct soft_numtab *tab,
		       xqp_u32 *count, xqp_u32 max, void *obj, xqp_u32 *num)
{
	struct soft_leaf *leaf = NULL;
	unsigned long flags;
	int err;

	for (;;) {
		flags = xqp_spin_lock_irqsave(&soft->lock);
		if (leaf && !tab->spare) {
			tab->spare = leaf;
			leaf = NULL;
		}
		if (*count >= max)
			err = -XQP_ENOMEM;
		else
			err = soft_numtab_alloc(tab, obj, num);
		if (!err)
			(*count)++;
		xqp_spin_unlock_irqrestore(&soft->lock, flags);

		if (err != -XQP_EAGAIN)
			break;
		if (!leaf) {
			leaf = xqp_zalloc(sizeof(*leaf), XQP_GFP_KERNEL_ACCOUNT);
			if (!leaf)
				return -XQP_ENOMEM;
		}
	}
	if (leaf)
		xqp_free(leaf);
	return err;
}

void soft_numtab_delete(struct xqp_soft *soft, struct soft_numtab *tab,
			xqp_u32 *count, xqp_u32 num)
{
	struct soft_leaf *leaf;
	unsigned long flags;

	flags = xqp_spin_lock_irqsave(&soft->lock);
	leaf = soft_numtab_remove(tab, num);
	XQP_WARN_ON(!*count);
	(*count)--;
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
	if (leaf)
		xqp_free(leaf);
}

/*
 * The object numbered @num in @tab with a reference taken (under soft->lock,
 * so that destroy, which unmaps first and drains second, waits for it).
 */
static void *soft_num_get(struct xqp_soft *soft, struct soft_numtab *tab,
			  xqp_u32 num, xqp_size_t refs_offset)
{
	unsigned long flags;
	void *obj;

	flags = xqp_spin_lock_irqsave(&soft->lock);
	obj = soft_numtab_lookup(tab, num);
	if (obj)
		soft_refs_get((struct soft_refs *)((char *)obj + refs_offset));
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
	return obj;
}

/* A QP by number, referenced (soft_refs_put(&qp->refs)); NULL if none. */
struct soft_qp *soft_qp_get(struct xqp_soft *soft, xqp_u32 qp_num)
{
	return soft_num_get(soft, &soft->qpns, qp_num,
			    __builtin_offsetof(struct soft_qp, refs));
}

/* An SRQ by number, referenced; NULL if none. */
struct soft_srq *soft_srq_get(struct xqp_soft *soft, xqp_u32 srq_num)
{
	return soft_num_get(soft, &soft->srqns, srq_num,
			    __builtin_offsetof(struct soft_srq, refs));
}

/* ---- counted objects without numbers (PD, CQ, XRCD) --------------------- */

static void *soft_obj_new(struct xqp_soft *soft, xqp_size_t size,
			  xqp_u32 *count, xqp_u32 max)
{
	struct soft_obj *obj;
	unsigned long flags;
	int err = 0;

	obj = xqp_zalloc(size, XQP_GFP_KERNEL_ACCOUNT);
	if (!obj)
		return xqp_err_ptr(-XQP_ENOMEM);

	flags = xqp_spin_lock_irqsave(&soft->lock);
	if (*count >= max)
		err = -XQP_ENOMEM;
	else
		(*count)++;
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
	if (err) {
		xqp_free(obj);
		return xqp_err_ptr(err);
	}
	obj->soft = soft;
	return obj;
}

static void soft_obj_del(struct xqp_soft *soft, void *p, xqp_u32 *count)
{
	unsigned long flags;

	flags = xqp_spin_lock_irqsave(&soft->lock);
	XQP_WARN_ON(!*count);
	(*count)--;
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
	xqp_free(p);
}

/* Is @p an object of this device? Catches pointers from another driver. */
int soft_owns(struct xqp_soft *soft, const void *p)
{
	const struct soft_obj *obj = p;

	return !XQP_WARN_ON(!obj || obj->soft != soft);
}

/* ---- device ------------------------------------------------------------- */

static int soft_query_device(void *drv, struct xqp_device_attr *attr)
{
	struct xqp_soft *soft = drv;
	const struct xqp_soft_limits *lim = &soft->lim;
	int err;

	err = soft_enter(soft, XQP_SOFT_OP_QUERY_DEVICE);
	if (err)
		return err;

	*attr = (struct xqp_device_attr) {
		XQP_RULES_DEVICE_ATTRS(lim),
		.device_cap_flags	= XQP_DEVICE_XRC,
		.vendor_part_id		= 0,
		.hw_ver			= 0,
		.max_inline_data	= lim->max_inline,
		.max_xrcd		= lim->max_xrcd,
		.node_guid		= soft->node_guid,
		.sys_image_guid		= soft->node_guid,
		.phys_port_cnt		= SOFT_PORT_CNT,
	};
	return 0;
}

static int soft_port_ok(xqp_u32 port)
{
	return port >= 1 && port <= SOFT_PORT_CNT;
}

/*
 * Its one port: an active InfiniBand port, 1X SDR, 4096-byte MTU, the LID
 * the fabric gave the device, the subnet's SM at LID 1, VL0 only, one GID,
 * the device's P_Keys, rxe's message size limit (8 MiB). No capability bits
 * (no CM, no SM on the port) and no error counters.
 */
static int soft_query_port(void *drv, xqp_u32 port, struct xqp_port_attr *attr)
{
	struct xqp_soft *soft = drv;
	int err;

	err = soft_enter(soft, XQP_SOFT_OP_QUERY_PORT);
	if (err)
		return err;
	if (!soft_port_ok(port))
		return -XQP_EINVAL;

	*attr = (struct xqp_port_attr) {
		.state		= XQP_PORT_ACTIVE,
		.max_mtu	= XQP_MTU_4096,
		.active_mtu	= XQP_MTU_4096,
		.gid_tbl_len	= SOFT_GID_TBL_LEN,
		.port_cap_flags	= 0,
		.max_msg_sz	= SOFT_MAX_MSG_SZ,
		.pkey_tbl_len	= soft->lim.max_pkeys,
		.lid		= soft->lid,
		.sm_lid		= 1,
		.lmc		= 0,
		.max_vl_num	= 1,		/* VL0 */
		.active_width	= XQP_WIDTH_1X,
		.active_speed	= XQP_SPEED_SDR,
		.phys_state	= XQP_PORT_PHYS_STATE_LINK_UP,
		.link_layer	= XQP_LINK_LAYER_INFINIBAND,
	};
	return 0;
}

/* ---- PD ----------------------------------------------------------------- */

static int soft_alloc_pd(void *drv, void **drv_pd)
{
	struct xqp_soft *soft = drv;
	struct soft_obj *pd;
	int err;

	err = soft_enter(soft, XQP_SOFT_OP_ALLOC_PD);
	if (err)
		return err;
	pd = soft_obj_new(soft, sizeof(*pd), &soft->counts.pd, soft->lim.max_pd);
	if (xqp_is_err(pd))
		return (int)xqp_ptr_err(pd);
	*drv_pd = pd;
	return 0;
}

static int soft_dealloc_pd(void *drv, void *drv_pd)
{
	struct xqp_soft *soft = drv;
	int err;

	err = soft_enter(soft, XQP_SOFT_OP_DEALLOC_PD);
	if (err)
		return err;
	if (!soft_owns(soft, drv_pd))
		return -XQP_EINVAL;
	soft_obj_del(soft, drv_pd, &soft->counts.pd);
	return 0;
}

/* ---- CQ ----------------------------------------------------------------- */

/* A ring of 2^k - 1 >= @cqe entries (up to max_cqe), as rxe_cq_from_init(). */
static int soft_create_cq(void *drv, int cqe, void **drv_cq, int *granted_cqe,
			  struct xqp_cq *core_cq)
{
	struct xqp_soft *soft = drv;
	struct soft_cq *cq;
	unsigned long flags;
	int err;

	err = soft_enter(soft, XQP_SOFT_OP_CREATE_CQ);
	if (err)
		return err;
	if (!xqp_rules_cqe_ok(&soft->lim, cqe))
		return -XQP_EINVAL;
	cq = soft_obj_new(soft, sizeof(*cq), &soft->counts.cq, soft->lim.max_cq);
	if (xqp_is_err(cq))
		return (int)xqp_ptr_err(cq);
	err = soft_cq_init(cq, (int)xqp_rules_grant_wr((xqp_u32)cqe, soft->lim.max_cqe));
	if (err) {
		soft_obj_del(soft, cq, &soft->counts.cq);
		return err;
	}
	cq->core_cq = core_cq;
	flags = xqp_spin_lock_irqsave(&soft->lock);
	cq->next = soft->cqs;
	if (cq->next)
		cq->next->pprev = &cq->next;
	cq->pprev = &soft->cqs;
	soft->cqs = cq;
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
	*drv_cq = cq;
	*granted_cqe = cq->cqe;
	return 0;
}

static int soft_destroy_cq(void *drv, void *drv_cq)
{
	struct xqp_soft *soft = drv;
	struct soft_cq *cq = drv_cq;
	unsigned long flags;
	int err;

	err = soft_enter(soft, XQP_SOFT_OP_DESTROY_CQ);
	if (err)
		return err;
	if (!soft_owns(soft, drv_cq))
		return -XQP_EINVAL;
	/* Unreachable for raise_cq_event; then wait out events on their way. */
	flags = xqp_spin_lock_irqsave(&soft->lock);
	*cq->pprev = cq->next;
	if (cq->next)
		cq->next->pprev = cq->pprev;
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
	soft_refs_drain(&cq->refs);
	soft_cq_fini(cq);
	soft_obj_del(soft, drv_cq, &soft->counts.cq);
	return 0;
}

/* ---- XRCD --------------------------------------------------------------- */

static int soft_alloc_xrcd(void *drv, void **drv_xrcd)
{
	struct xqp_soft *soft = drv;
	struct soft_obj *xrcd;
	int err;

	err = soft_enter(soft, XQP_SOFT_OP_ALLOC_XRCD);
	if (err)
		return err;
	xrcd = soft_obj_new(soft, sizeof(*xrcd), &soft->counts.xrcd,
			    soft->lim.max_xrcd);
	if (xqp_is_err(xrcd))
		return (int)xqp_ptr_err(xrcd);
	*drv_xrcd = xrcd;
	return 0;
}

static int soft_dealloc_xrcd(void *drv, void *drv_xrcd)
{
	struct xqp_soft *soft = drv;
	int err;

	err = soft_enter(soft, XQP_SOFT_OP_DEALLOC_XRCD);
	if (err)
		return err;
	if (!soft_owns(soft, drv_xrcd))
		return -XQP_EINVAL;
	soft_obj_del(soft, drv_xrcd, &soft->counts.xrcd);
	return 0;
}

/* ---- SRQ ---------------------------------------------------------------- */

static int soft_check_srq(struct xqp_soft *soft, void *drv_pd, void *drv_xrcd,
			  void *drv_cq, const struct xqp_srq_init_attr *init)
{
	const struct xqp_srq_attr *attr = &init->attr;

	switch (init->srq_type) {
	case XQP_SRQT_BASIC:
		break;
	case XQP_SRQT_XRC:
		if (!drv_xrcd || !drv_cq)
			return -XQP_EINVAL;
		if (!soft_owns(soft, drv_xrcd) || !soft_owns(soft, drv_cq))
			return -XQP_EINVAL;
		break;
	default:
		return -XQP_EINVAL;
	}
	if (!drv_pd || !soft_owns(soft, drv_pd))
		return -XQP_EINVAL;
	if (!xqp_rules_srq_ok(&soft->lim, attr->max_wr, attr->max_sge))
		return -XQP_EINVAL;
	return 0;
}

static int soft_create_srq(void *drv, void *drv_pd, void *drv_xrcd,
			   void *drv_cq, struct xqp_srq_init_attr *init,
			   void **drv_srq, xqp_u32 *srq_num,
			   struct xqp_srq *core_srq)
{
	struct xqp_soft *soft = drv;
	struct soft_srq *srq;
	xqp_u32 num;
	int err;

	err = soft_enter(soft, XQP_SOFT_OP_CREATE_SRQ);
	if (err)
		return err;
	err = soft_check_srq(soft, drv_pd, drv_xrcd, drv_cq, init);
	if (err)
		return err;

	srq = xqp_zalloc(sizeof(*srq), XQP_GFP_KERNEL_ACCOUNT);
	if (!srq)
		return -XQP_ENOMEM;
	srq->obj.soft = soft;
	srq->core_srq = core_srq;
	srq->type = init->srq_type;
	srq->pd = drv_pd;
	if (init->srq_type == XQP_SRQT_XRC) {
		srq->xrcd = drv_xrcd;
		srq->cq = drv_cq;
	}
	soft_refs_init(&srq->refs);
	srq->attr = init->attr;
	xqp_rules_grant_srq(&soft->lim, &srq->attr.max_wr, &srq->attr.max_sge);
	err = soft_srq_ring_init(srq);
	if (err)
		goto err_free;

	err = soft_numtab_insert(soft, &soft->srqns, &soft->counts.srq,
			      soft->lim.max_srq, srq, &num);
	if (err)
		goto err_free;
	srq->srq_num = num;

	init->attr = srq->attr;
	*drv_srq = srq;
	if (srq_num)
		*srq_num = num;
	return 0;

err_free:
	soft_ring_free(&srq->ring);
	xqp_free(srq);
	return err;
}

static int soft_destroy_srq(void *drv, void *drv_srq)
{
	struct xqp_soft *soft = drv;
	struct soft_srq *srq = drv_srq;
	int err;

	err = soft_enter(soft, XQP_SOFT_OP_DESTROY_SRQ);
	if (err)
		return err;
	if (!soft_owns(soft, srq))
		return -XQP_EINVAL;
	/* Unreachable by number; then wait out events already on their way. */
	soft_numtab_delete(soft, &soft->srqns, &soft->counts.srq, srq->srq_num);
	soft_refs_drain(&srq->refs);
	soft_ring_free(&srq->ring);
	xqp_free(srq);
	return 0;
}

/* ---- QP ----------------------------------------------------------------- */

static int soft_create_qp(void *drv, const struct xqp_drv_qp_create *req,
			  struct xqp_drv_qp_created *out)
{
	struct xqp_soft *soft = drv;
	struct xqp_qp_cap cap = req->cap;
	struct soft_qp *qp;
	xqp_u32 qpn;
	int err;

	err = soft_enter(soft, XQP_SOFT_OP_CREATE_QP);
	if (err)
		return err;
	if (!XQP_RULES_QP_TYPE_OK(XQP_QPT_, req->qp_type) || req->create_flags)
		return -XQP_EOPNOTSUPP;
	err = XQP_RULES_GRANT_QP_CAP(&soft->lim, &cap, !!req->srq);
	if (err)
		return err;

	qp = xqp_zalloc(sizeof(*qp), XQP_GFP_KERNEL_ACCOUNT);
	if (!qp)
		return -XQP_ENOMEM;
	qp->obj.soft = soft;
	qp->type = req->qp_type;
	qp->sq_sig_type = req->sq_sig_type;
	qp->core_qp = req->core_qp;
	qp->pd = req->pd;
	qp->send_cq = req->send_cq;
	qp->recv_cq = req->recv_cq;
	qp->srq = req->srq;
	qp->xrcd = req->xrcd;
	soft_refs_init(&qp->refs);
	xqp_spin_init(&qp->lock, XQP_LOCK_SOFT);
	qp->attr.qp_state = XQP_QPS_RESET;
	qp->attr.cur_qp_state = XQP_QPS_RESET;
	qp->state = XQP_QPS_RESET;
	qp->attr.cap = cap;
	qp->attr.port_num = (xqp_u8)req->port_num;
	err = soft_qp_queues_init(soft, qp);
	if (err)
		goto err_free;

	err = soft_numtab_insert(soft, &soft->qpns, &soft->counts.qp,
			      soft->lim.max_qp, qp, &qpn);
	if (err)
		goto err_queues;
	qp->qp_num = qpn;

	out->drv_qp = qp;
	out->qp_num = qpn;
	out->cap = cap;
	return 0;

err_queues:
	soft_qp_queues_fini(qp);
err_free:
	xqp_free(qp);
	return err;
}

/*
 * The checks of modify_qp that do not depend on the QP's state (the shared
 * rules, rules/qp_attr.h); *@cap gets the capabilities granted for XQP_QP_CAP.
 */
static int soft_check_qp_attr(struct xqp_soft *soft, struct soft_qp *qp,
			      const struct xqp_qp_attr *attr, int mask,
			      struct xqp_qp_cap *cap)
{
	if (XQP_RULES_QP_ATTR_BAD(XQP_QP_, attr, mask, &soft->lim))
		return -XQP_EINVAL;
	if (mask & XQP_QP_CAP) {
		*cap = attr->cap;
		return XQP_RULES_GRANT_QP_CAP(&soft->lim, cap, !!qp->srq);
	}
	return 0;
}

/* An address vector is kept as given. */
static void soft_keep_ah(struct xqp_ah_attr *dst, const struct xqp_ah_attr *src)
{
	*dst = *src;
}

/* Keeps every attribute in @mask (rules/qp_attr.h). Caller holds qp->lock. */
static void soft_store_qp_attr(struct soft_qp *qp, const struct xqp_qp_attr *attr,
			       int mask, const struct xqp_qp_cap *cap)
{
	XQP_RULES_QP_ATTR_KEEP(XQP_QP_, &qp->attr, attr, mask, soft_keep_ah);
	if (mask & XQP_QP_CAP)
		qp->attr.cap = *cap;
}

static int soft_modify_qp(void *drv, void *drv_qp, const struct xqp_qp_attr *attr,
			  int mask)
{
	struct xqp_soft *soft = drv;
	struct soft_qp *qp = drv_qp;
	enum xqp_qp_state old, cur, next;
	struct xqp_qp_cap cap;
	unsigned long flags;
	int sqd_notify;
	int err;

	err = soft_enter(soft, XQP_SOFT_OP_MODIFY_QP);
	if (err)
		return err;
	if (!soft_owns(soft, qp))
		return -XQP_EINVAL;
	err = soft_check_qp_attr(soft, qp, attr, mask, &cap);
	if (err)
		return err;

	flags = xqp_spin_lock_irqsave(&qp->lock);
	old = qp->attr.qp_state;
	cur = (mask & XQP_QP_CUR_STATE) ? attr->cur_qp_state : old;
	next = (mask & XQP_QP_STATE) ? attr->qp_state : cur;
	if (!xqp_modify_qp_is_ok(cur, next, qp->type, mask)) {
		err = -XQP_EINVAL;
	} else {
		qp->attr.qp_state = next;
		__atomic_store_n(&qp->state, next, __ATOMIC_RELEASE);
		soft_store_qp_attr(qp, attr, mask, &cap);
	}
	sqd_notify = qp->attr.en_sqd_async_notify;
	xqp_spin_unlock_irqrestore(&qp->lock, flags);
	if (!err)
		soft_qp_state_changed(qp, old, next, sqd_notify);
	return err;
}

static int soft_query_qp(void *drv, void *drv_qp, struct xqp_qp_attr *attr,
			 int attr_mask)
{
	struct xqp_soft *soft = drv;
	struct soft_qp *qp = drv_qp;
	unsigned long flags;
	int err;

	(void)attr_mask;	/* like rxe, everything is reported */
	err = soft_enter(soft, XQP_SOFT_OP_QUERY_QP);
	if (err)
		return err;
	if (!soft_owns(soft, qp))
		return -XQP_EINVAL;

	flags = xqp_spin_lock_irqsave(&qp->lock);
	*attr = qp->attr;
	xqp_spin_unlock_irqrestore(&qp->lock, flags);
	attr->cur_qp_state = attr->qp_state;
	return 0;
}

static int soft_destroy_qp(void *drv, void *drv_qp)
{
	struct xqp_soft *soft = drv;
	struct soft_qp *qp = drv_qp;
	int err;

	err = soft_enter(soft, XQP_SOFT_OP_DESTROY_QP);
	if (err)
		return err;
	if (!soft_owns(soft, qp))
		return -XQP_EINVAL;
	/* Unreachable by number; then wait out events already on their way. */
	soft_numtab_delete(soft, &soft->qpns, &soft->counts.qp, qp->qp_num);
	soft_refs_drain(&qp->refs);
	soft_sq_stop(qp);
	soft_qp_queues_fini(qp);
	xqp_free(qp);
	return 0;
}

/**
 * xqp_soft_raise_qp_event - report an async event on a QP, as hardware would.
 * @soft: the soft device.
 * @qp_num: the QP's number.
 * @type: the event.
 *
 * Calls xqp_qp_event() with the core's cookie for the QP. No soft lock is
 * held meanwhile, but the QP cannot go away: destroy_qp waits for events
 * already on their way, so once it has returned no event for the QP is in
 * flight and none can start.
 *
 * Context: any; xqp_qp_event() runs the handlers in atomic context.
 * Return: 0, or -EINVAL if no QP has that number.
 */
int xqp_soft_raise_qp_event(struct xqp_soft *soft, xqp_u32 qp_num,
			    enum xqp_event_type type)
{
	struct soft_qp *qp = soft_qp_get(soft, qp_num);

	if (!qp)
		return -XQP_EINVAL;
	if (qp->core_qp)
		xqp_qp_event(qp->core_qp, type);
	soft_refs_put(&qp->refs);
	return 0;
}

/**
 * xqp_soft_raise_srq_event - report an async event on an SRQ, as hardware would.
 * @soft: the soft device.
 * @srq_num: the SRQ's number (xqp_srq_num()).
 * @type: the event (XQP_EVENT_SRQ_ERR, XQP_EVENT_SRQ_LIMIT_REACHED).
 *
 * Calls xqp_srq_event() with the core's cookie for the SRQ, under no soft
 * lock; destroy_srq waits for events already on their way, as destroy_qp
 * does, so none is in flight once it has returned.
 *
 * Context: any; xqp_srq_event() runs the handler in atomic context.
 * Return: 0, or -EINVAL if no SRQ has that number.
 */
int xqp_soft_raise_srq_event(struct xqp_soft *soft, xqp_u32 srq_num,
			     enum xqp_event_type type)
{
	struct soft_srq *srq = soft_srq_get(soft, srq_num);

	if (!srq)
		return -XQP_EINVAL;
	if (srq->core_srq)
		xqp_srq_event(srq->core_srq, type);
	soft_refs_put(&srq->refs);
	return 0;
}

/**
 * xqp_soft_raise_cq_event - report an async event on a CQ, as hardware would.
 * @soft: the soft device.
 * @core_cq: the core CQ (soft CQs have no number; this is the test handle).
 * @type: the event (XQP_EVENT_CQ_ERR).
 *
 * Looks @core_cq up among the device's live CQs under the soft lock (the
 * pointer is only compared, never followed, until it is found) and calls
 * xqp_cq_event() under no soft lock; destroy_cq waits for events already on
 * their way, so a stale or destroyed pointer gets -EINVAL, never a call.
 *
 * Context: any; xqp_cq_event() runs the handler in atomic context.
 * Return: 0, or -EINVAL if @core_cq is no live CQ of @soft.
 */
int xqp_soft_raise_cq_event(struct xqp_soft *soft, struct xqp_cq *core_cq,
			    enum xqp_event_type type)
{
	struct soft_cq *cq;
	unsigned long flags;

	flags = xqp_spin_lock_irqsave(&soft->lock);
	for (cq = soft->cqs; cq; cq = cq->next)
		if (core_cq && cq->core_cq == core_cq)
			break;
	if (cq)
		soft_refs_get(&cq->refs);
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
	if (!cq)
		return -XQP_EINVAL;

	xqp_cq_event(cq->core_cq, type);
	soft_refs_put(&cq->refs);
	return 0;
}

/**
 * xqp_soft_set_qpn_cursor - move the QP number allocator, for tests.
 * @soft: the soft device.
 * @next: where the next search for a free QP number starts; numbers below
 *	  2 or above 2^24 - 1 make it start over at 2.
 *
 * Lets a test reach the wrap-around of the 24-bit space without creating
 * 2^24 QPs.
 *
 * Context: any.
 */
void xqp_soft_set_qpn_cursor(struct xqp_soft *soft, xqp_u32 next)
{
	unsigned long flags;

	if (next < soft->qpns.first || next >= SOFT_NUM_SPACE)
		next = soft->qpns.first;
	flags = xqp_spin_lock_irqsave(&soft->lock);
	soft->qpns.cursor = next;
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
}

/* ---- the device --------------------------------------------------------- */

static const struct xqp_device_ops soft_ops = {
	.query_device	= soft_query_device,
	.query_port	= soft_query_port,
	.query_gid	= soft_query_gid,
	.query_pkey	= soft_query_pkey,
	.alloc_pd	= soft_alloc_pd,
	.dealloc_pd	= soft_dealloc_pd,
	.create_cq	= soft_create_cq,
	.destroy_cq	= soft_destroy_cq,
	.alloc_xrcd	= soft_alloc_xrcd,
	.dealloc_xrcd	= soft_dealloc_xrcd,
	.create_srq	= soft_create_srq,
	.destroy_srq	= soft_destroy_srq,
	.create_qp	= soft_create_qp,
	.modify_qp	= soft_modify_qp,
	.query_qp	= soft_query_qp,
	.destroy_qp	= soft_destroy_qp,
	.reg_mr		= soft_reg_mr,
	.dereg_mr	= soft_dereg_mr,
	.post_send	= soft_post_send,
	.post_recv	= soft_post_recv,
	.post_srq_recv	= soft_post_srq_recv,
	.poll_cq	= soft_poll_cq,
	.req_notify_cq	= soft_req_notify_cq,
	.resize_cq	= soft_resize_cq,
	.modify_srq	= soft_modify_srq,
	.query_srq	= soft_query_srq,
};

/**
 * xqp_soft_ops - the soft device's ops, for tests that call them directly.
 *
 * The driver pointer to pass to them is the struct xqp_soft itself.
 *
 * Return: the ops table.
 */
const struct xqp_device_ops *xqp_soft_ops(void)
{
	return &soft_ops;
}

/**
 * xqp_soft_default_limits - fill @lim with the soft device's defaults.
 * @lim: the limits to fill.
 *
 * The shared rules' defaults (XQP_RULES_DEFAULT_LIMITS, rules/limits.h),
 * which the reference device has too.
 */
void xqp_soft_default_limits(struct xqp_soft_limits *lim)
{
	*lim = (struct xqp_soft_limits) XQP_RULES_DEFAULT_LIMITS;
}

/**
 * xqp_soft_create - create a soft device and register it with the core.
 * @name: the device name, e.g. "xqp_soft0"; copied by the core.
 * @lim: the device's limits, or NULL for xqp_soft_default_limits().
 *
 * Context: may sleep.
 * Return: the soft device, or ERR_PTR(-EINVAL) for impossible limits,
 * ERR_PTR(-ENOMEM), or the error of xqp_register_device(). Nothing is left
 * allocated on failure.
 */
struct xqp_soft *xqp_soft_create(const char *name,
				 const struct xqp_soft_limits *lim)
{
	struct xqp_soft *soft;
	struct xqp_device *dev;
	xqp_u64 instance;
	int err;

	if (lim && !xqp_rules_limits_ok(lim))
		return xqp_err_ptr(-XQP_EINVAL);

	soft = xqp_zalloc(sizeof(*soft), XQP_GFP_KERNEL);
	if (!soft)
		return xqp_err_ptr(-XQP_ENOMEM);
	if (lim)
		soft->lim = *lim;
	else
		xqp_soft_default_limits(&soft->lim);
	instance = __atomic_add_fetch(&soft_instances, 1, __ATOMIC_RELAXED);
	soft->node_guid = SOFT_GUID_BASE | (instance & 0xffffffffULL);
	xqp_spin_init(&soft->lock, XQP_LOCK_SOFT);

	err = soft_numtab_init(&soft->qpns, XQP_SOFT_QPN_RESERVED);
	if (err)
		goto err_free_soft;
	err = soft_numtab_init(&soft->srqns, 1);
	if (err)
		goto err_free_qpns;
	err = soft_numtab_init(&soft->mrns, 1);
	if (err)
		goto err_free_srqns;
	err = soft_fabric_join(soft);
	if (err)
		goto err_free_mrns;

	dev = xqp_register_device(name, &soft_ops, soft);
	if (xqp_is_err(dev)) {
		err = (int)xqp_ptr_err(dev);
		goto err_leave;
	}
	soft->dev = dev;
	return soft;

err_leave:
	soft_fabric_leave(soft);
err_free_mrns:
	soft_numtab_free(&soft->mrns);
err_free_srqns:
	soft_numtab_free(&soft->srqns);
err_free_qpns:
	soft_numtab_free(&soft->qpns);
err_free_soft:
	xqp_free(soft);
	return xqp_err_ptr(err);
}

/**
 * xqp_soft_device - the core device of a soft device.
 * @soft: the soft device.
 *
 * Return: the device xqp_soft_create() registered.
 */
struct xqp_device *xqp_soft_device(struct xqp_soft *soft)
{
	return soft->dev;
}

/**
 * xqp_soft_counts - read the numbers of live driver objects.
 * @soft: the soft device.
 * @counts: filled with one snapshot of the counts.
 *
 * Context: any.
 */
void xqp_soft_counts(struct xqp_soft *soft, struct xqp_soft_counts *counts)
{
	unsigned long flags;

	flags = xqp_spin_lock_irqsave(&soft->lock);
	*counts = soft->counts;
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
}

/**
 * xqp_soft_destroy - unregister a soft device and free it.
 * @soft: the soft device; NULL and error pointers are ignored.
 *
 * The core destroys every object left on the device during unregistration;
 * driver objects still alive after that are a bug (WARN) and are leaked,
 * since whoever holds them may still use them.
 *
 * Context: may sleep.
 */
void xqp_soft_destroy(struct xqp_soft *soft)
{
	struct xqp_soft_counts *c;

	if (!soft || xqp_is_err(soft))
		return;
	xqp_unregister_device(soft->dev);
	soft_fabric_leave(soft);

	c = &soft->counts;
	if (XQP_WARN_ON(c->pd || c->cq || c->xrcd || c->srq || c->qp || c->mr))
		xqp_log("xqp_soft: leaking %u PDs, %u CQs, %u XRCDs, %u SRQs, %u QPs, %u MRs\n",
			c->pd, c->cq, c->xrcd, c->srq, c->qp, c->mr);
	soft_numtab_free(&soft->mrns);
	soft_numtab_free(&soft->srqns);
	soft_numtab_free(&soft->qpns);
	xqp_free(soft);
}

/**
 * xqp_soft_lid - the LID the subnet gave a soft device.
 * @soft: the soft device.
 *
 * Return: 1 for the first device made, then the lowest free LID.
 */
xqp_u16 xqp_soft_lid(struct xqp_soft *soft)
{
	return soft->lid;
}
