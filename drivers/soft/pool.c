// SPDX-License-Identifier: GPL-2.0
/*
 * xqp_soft: the object pool, as rxe_pool.c is rxe's. References that destroy
 * waits out; the number tables (QP, SRQ and MR numbers); the counted
 * objects without numbers (PD, CQ, XRCD).
 *
 * Numbers come from a two-level table covering the 24-bit space: 4096
 * leaves of 4096 object pointers (32 KiB each), allocated when a number in
 * their range is first handed out and released when their last number is
 * freed (one empty leaf is kept as a spare, so that creating and destroying
 * in a loop allocates nothing). The table maps a number to its object
 * (raise_qp_event looks QPs up by number) and allocation is cursor-based: a
 * search starts after the last number handed out and wraps around, so a
 * freed number comes back only after the cursor has gone round the whole
 * space. Full leaves are skipped whole, so a wrap costs at most one visit
 * per slot: O(1) amortised while the space is not nearly full.
 *
 * Locking: soft->lock protects the counts and the tables.
 */
#include "soft_priv.h"

#define SOFT_LEAF_SHIFT		12
#define SOFT_LEAF_SLOTS		(1U << SOFT_LEAF_SHIFT)
#define SOFT_LEAF_MASK		(SOFT_LEAF_SLOTS - 1)
#define SOFT_LEAVES		(SOFT_NUM_SPACE >> SOFT_LEAF_SHIFT)

struct soft_leaf {
	void *slot[SOFT_LEAF_SLOTS];
};

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

/* ---- number tables ------------------------------------------------------ */

int soft_numtab_init(struct soft_numtab *tab, xqp_u32 first)
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
void soft_numtab_free(struct soft_numtab *tab)
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

/* Leaf @li, absent so far, made of the spare; NULL when there is none. */
static struct soft_leaf *soft_numtab_spare_leaf(struct soft_numtab *tab, xqp_u32 li)
{
	struct soft_leaf *leaf = tab->spare;

	if (leaf) {
		tab->spare = NULL;
		tab->leaf[li] = leaf;
	}
	return leaf;
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
		if (!tab->leaf[li]) {
			leaf = soft_numtab_spare_leaf(tab, li);
			if (!leaf)
				return -XQP_EAGAIN;
			goto found;
		}
		leaf = tab->leaf[li];
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

/*
 * Maps exactly @num (below tab->first: a reserved number, like QP1) to
 * @obj. Caller holds soft->lock.
 *
 * Return: 0; -EAGAIN if a spare leaf is needed; -EBUSY if @num is taken.
 */
static int soft_numtab_claim(struct soft_numtab *tab, void *obj, xqp_u32 num)
{
	xqp_u32 li = num >> SOFT_LEAF_SHIFT;
	struct soft_leaf *leaf = tab->leaf[li] ?: soft_numtab_spare_leaf(tab, li);

	if (!leaf)
		return -XQP_EAGAIN;
	if (leaf->slot[num & SOFT_LEAF_MASK])
		return -XQP_EBUSY;
	leaf->slot[num & SOFT_LEAF_MASK] = obj;
	tab->used[li]++;
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

/* The object numbered *@num or the first above it, and its number; NULL if none. */
static void *soft_numtab_next(struct soft_numtab *tab, xqp_u32 *num)
{
	struct soft_leaf *leaf;
	xqp_u32 n;

	for (n = *num; n < SOFT_NUM_SPACE; n++) {
		leaf = tab->leaf[n >> SOFT_LEAF_SHIFT];
		if (!leaf) {
			n |= SOFT_LEAF_MASK;	/* the next leaf */
			continue;
		}
		if (leaf->slot[n & SOFT_LEAF_MASK]) {
			*num = n;
			return leaf->slot[n & SOFT_LEAF_MASK];
		}
	}
	return NULL;
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
 * @tab: the next free one, or with @fixed exactly *@num. Allocates a leaf
 * (outside the lock) when the table needs one.
 */
static int soft_numtab_add(struct xqp_soft *soft, struct soft_numtab *tab,
			   xqp_u32 *count, xqp_u32 max, void *obj, xqp_u32 *num,
			   int fixed)
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
		else if (fixed)
			err = soft_numtab_claim(tab, obj, *num);
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

int soft_numtab_insert(struct xqp_soft *soft, struct soft_numtab *tab,
		       xqp_u32 *count, xqp_u32 max, void *obj, xqp_u32 *num)
{
	return soft_numtab_add(soft, tab, count, max, obj, num, 0);
}

/* As soft_numtab_insert(), for the reserved number @num: -EBUSY if taken. */
int soft_numtab_insert_at(struct xqp_soft *soft, struct soft_numtab *tab,
			  xqp_u32 *count, xqp_u32 max, void *obj, xqp_u32 num)
{
	return soft_numtab_add(soft, tab, count, max, obj, &num, 1);
}

int soft_numtab_delete_unused(struct xqp_soft *soft, struct soft_numtab *tab,
			      xqp_u32 *count, xqp_u32 num, const xqp_u32 *users)
{
	struct soft_leaf *leaf;
	unsigned long flags;

	flags = xqp_spin_lock_irqsave(&soft->lock);
	if (users && *users) {
		xqp_spin_unlock_irqrestore(&soft->lock, flags);
		return -XQP_EBUSY;
	}
	leaf = soft_numtab_remove(tab, num);
	XQP_WARN_ON(!*count);
	(*count)--;
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
	if (leaf)
		xqp_free(leaf);
	return 0;
}

void soft_numtab_delete(struct xqp_soft *soft, struct soft_numtab *tab,
			xqp_u32 *count, xqp_u32 num)
{
	soft_numtab_delete_unused(soft, tab, count, num, (const xqp_u32 *)0);
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

struct soft_qp *soft_qp_get_next(struct xqp_soft *soft, xqp_u32 *qp_num)
{
	struct soft_qp *qp;
	unsigned long flags;

	flags = xqp_spin_lock_irqsave(&soft->lock);
	qp = (struct soft_qp *)soft_numtab_next(&soft->qpns, qp_num);
	if (qp)
		soft_refs_get(&qp->refs);
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
	return qp;
}

/* An SRQ by number, referenced; NULL if none. */
struct soft_srq *soft_srq_get(struct xqp_soft *soft, xqp_u32 srq_num)
{
	return soft_num_get(soft, &soft->srqns, srq_num,
			    __builtin_offsetof(struct soft_srq, refs));
}

/* ---- counted objects without numbers (PD, CQ, XRCD) --------------------- */

void *soft_obj_new(struct xqp_soft *soft, xqp_size_t size,
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

void soft_obj_del(struct xqp_soft *soft, void *p, xqp_u32 *count)
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
