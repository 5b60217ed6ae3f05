// SPDX-License-Identifier: GPL-2.0
/*
 * Memory regions of the soft device, and moving bytes between them.
 *
 * An MR has one key for local and remote use (like rxe): its index in
 * soft->mrns shifted left by 8, plus a generation byte, so a key of a
 * deregistered MR does not name its successor at once. Memory windows take
 * their keys from the same table (mw.c): a remote key names either. Users
 * look an MR up by key and hold a reference while they copy; dereg makes
 * the key unreachable first and then sleeps until those references drain,
 * so the memory is never touched after dereg_mr returns. An MR with
 * windows bound to it is not deregistered (-EINVAL, as rxe: IBA 10.6.7.2.6).
 *
 * Copying maps both sides a chunk at a time through the MR's struct
 * xqp_mem (kmap_local of pinned pages for user memory), never under a
 * spinlock and never with IRQs off.
 */
#include "soft_priv.h"

#define SOFT_COPY_RESCHED	(64U << 10)	/* a scheduling point this often */

int soft_reg_mr(void *drv, void *drv_pd, struct xqp_mem *mem, xqp_u64 iova,
		int access, void **drv_mr, xqp_u32 *lkey, xqp_u32 *rkey)
{
	struct xqp_soft *soft = drv;
	struct soft_mr *mr;
	xqp_u32 index;
	int err;

	err = soft_enter_obj(soft, XQP_SOFT_OP_REG_MR, drv_pd);
	if (err)
		return err;
	mr = xqp_zalloc(sizeof(*mr), XQP_GFP_KERNEL_ACCOUNT);
	if (!mr)
		return -XQP_ENOMEM;
	mr->k.obj.soft = soft;
	mr->access = access;
	mr->iova = iova;
	mr->length = mem->length;
	mr->pd = drv_pd;
	mr->mem = mem;
	soft_refs_init(&mr->refs);
	err = soft_numtab_insert(soft, &soft->mrns, &soft->counts.mr,
				 soft->lim.max_mr, mr, &index);
	if (err) {
		xqp_free(mr);
		return err;
	}
	mr->k.key = soft_key_make(soft, index);
	*drv_mr = mr;
	*lkey = mr->k.key;
	*rkey = mr->k.key;
	return 0;
}

int soft_dereg_mr(void *drv, void *drv_mr)
{
	struct xqp_soft *soft = drv;
	struct soft_mr *mr = drv_mr;
	int err;

	err = soft_enter_obj(soft, XQP_SOFT_OP_DEREG_MR, mr);
	if (err)
		return err;
	/* not while windows are bound to it (they count under soft->lock) */
	err = soft_numtab_delete_unused(soft, &soft->mrns, &soft->counts.mr,
					mr->k.key >> SOFT_KEY_SHIFT, &mr->num_mw);
	if (err)
		return -XQP_EINVAL;
	soft_refs_drain(&mr->refs);
	xqp_free(mr);
	return 0;
}

xqp_u32 soft_key_make(struct xqp_soft *soft, xqp_u32 index)
{
	return (index << SOFT_KEY_SHIFT) |
	       (__atomic_add_fetch(&soft->key_gen, 1, __ATOMIC_RELAXED) & 0xff);
}

struct soft_keyed *soft_keyed_find(struct xqp_soft *soft, xqp_u32 key)
{
	struct soft_keyed *k = soft_numtab_lookup(&soft->mrns, key >> SOFT_KEY_SHIFT);

	return k && k->key == key ? k : NULL;
}

struct soft_mr *soft_mr_find(struct xqp_soft *soft, xqp_u32 key)
{
	struct soft_keyed *k = soft_keyed_find(soft, key);

	return k && !k->is_mw ? (struct soft_mr *)k : NULL;
}

/* The MR @key names on @soft, referenced; NULL if none. */
static struct soft_mr *soft_mr_get(struct xqp_soft *soft, xqp_u32 key)
{
	struct soft_mr *mr;
	unsigned long flags;

	flags = xqp_spin_lock_irqsave(&soft->lock);
	mr = soft_mr_find(soft, key);
	if (mr)
		soft_refs_get(&mr->refs);
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
	return mr;
}

/* Is [addr, addr + len) inside @mr? */
static int soft_mr_covers(const struct soft_mr *mr, xqp_u64 addr, xqp_u64 len)
{
	return addr >= mr->iova && len <= mr->length &&
	       addr - mr->iova <= mr->length - len;
}

/*
 * Resolves one range of @mr into @seg, or drops the reference: the MR must
 * belong to @pd, cover the range and allow @access.
 */
static int soft_seg_set(struct soft_mr *mr, void *pd, xqp_u64 addr, xqp_u32 len,
			int access, struct soft_seg *seg)
{
	if (!mr)
		return 0;
	if (mr->pd != pd || !soft_mr_covers(mr, addr, len) ||
	    (mr->access & access) != access) {
		soft_refs_put(&mr->refs);
		return 0;
	}
	seg->mr = mr;
	seg->buf = NULL;
	seg->offset = addr - mr->iova;
	seg->length = len;
	return 1;
}

int soft_sges_get(struct xqp_soft *soft, void *pd, const struct xqp_sge *sge,
		  xqp_u32 n, int access, struct soft_seg *seg, xqp_u64 *total)
{
	xqp_u32 i, used = 0;

	*total = 0;
	for (i = 0; i < n; i++) {
		if (!sge[i].length)
			continue;
		if (!soft_seg_set(soft_mr_get(soft, sge[i].lkey), pd, sge[i].addr,
				  sge[i].length, access, &seg[used])) {
			soft_segs_put(seg, used);
			return XQP_WC_LOC_PROT_ERR;
		}
		*total += sge[i].length;
		used++;
	}
	for (; used < n; used++)	/* zero-length SGEs: empty segments */
		seg[used] = (struct soft_seg){ .mr = NULL, .buf = NULL, .length = 0 };
	return XQP_WC_SUCCESS;
}

int soft_recv_range_get(struct xqp_soft *soft, void *pd, const struct xqp_sge *sge,
			xqp_u32 n, xqp_u64 off, xqp_u64 len, struct soft_seg *seg)
{
	xqp_u64 pos = 0, room = 0, end = off + len;
	xqp_u32 i;

	for (i = 0; i < n; i++)
		room += sge[i].length;
	if (room < end)
		return XQP_WC_LOC_LEN_ERR;
	for (i = 0; i < n; pos += sge[i].length, i++) {
		xqp_u64 from = off > pos ? off : pos;
		xqp_u64 to = end < pos + sge[i].length ? end : pos + sge[i].length;

		seg[i] = (struct soft_seg){ .mr = NULL, .buf = NULL, .length = 0 };
		if (from >= to)
			continue;	/* no byte of the range here: not looked at */
		if (!soft_seg_set(soft_mr_get(soft, sge[i].lkey), pd, sge[i].addr + (from - pos),
				  (xqp_u32)(to - from), XQP_ACCESS_LOCAL_WRITE, &seg[i])) {
			soft_segs_put(seg, i);
			return XQP_WC_LOC_PROT_ERR;
		}
	}
	return XQP_WC_SUCCESS;
}

/*
 * The MR behind @rkey for [*@addr, + @len) with @access, referenced, and
 * *@mr_access: the access its MR must allow (a window's access is its own;
 * *@addr becomes the MR's address for a window). NULL if none.
 */
static struct soft_mr *soft_rkey_mr(struct xqp_soft *soft, void *pd, xqp_u32 qpn,
				    xqp_u32 rkey, xqp_u64 *addr, xqp_u32 len, int access,
				    int *mr_access)
{
	struct soft_keyed *k;
	struct soft_mr *mr;
	unsigned long flags;

	*mr_access = access;
	flags = xqp_spin_lock_irqsave(&soft->lock);
	k = soft_keyed_find(soft, rkey);
	if (k && k->is_mw) {
		mr = soft_mw_target(k, pd, qpn, addr, len, access);
		*mr_access = 0;
	} else {
		mr = (struct soft_mr *)k;
	}
	if (mr)
		soft_refs_get(&mr->refs);
	xqp_spin_unlock_irqrestore(&soft->lock, flags);
	return mr;
}

int soft_rkey_get(struct xqp_soft *soft, void *pd, xqp_u32 qpn, xqp_u32 rkey,
		  xqp_u64 addr, xqp_u32 len, int access, struct soft_seg *seg)
{
	struct soft_mr *mr;
	int mr_access;

	if (!len) {
		*seg = (struct soft_seg){ .mr = NULL, .buf = NULL, .length = 0 };
		return XQP_WC_SUCCESS;
	}
	mr = soft_rkey_mr(soft, pd, qpn, rkey, &addr, len, access, &mr_access);
	if (!soft_seg_set(mr, pd, addr, len, mr_access, seg))
		return XQP_WC_REM_ACCESS_ERR;
	return XQP_WC_SUCCESS;
}

void soft_segs_put(struct soft_seg *seg, xqp_u32 n)
{
	xqp_u32 i;

	for (i = 0; i < n; i++) {
		if (seg[i].mr)
			soft_refs_put(&seg[i].mr->refs);
		seg[i].mr = NULL;
	}
}

int soft_segs_skip(struct soft_seg *seg, xqp_u32 n, xqp_u32 skip)
{
	xqp_u32 i;

	for (i = 0; i < n && skip; i++) {
		xqp_u32 k = soft_min(skip, seg[i].length);

		seg[i].offset += k;
		if (!seg[i].mr)
			seg[i].buf += k;
		seg[i].length -= k;
		skip -= k;
	}
	return skip == 0;
}

/* Maps @pos bytes into @seg; *@avail gets the contiguous bytes there. */
static char *soft_seg_map(struct soft_seg *seg, xqp_u64 pos, xqp_u64 *avail)
{
	xqp_u64 left = seg->length - pos;
	char *p;

	if (!seg->mr) {
		*avail = left;
		return seg->buf + pos;
	}
	p = seg->mr->mem->ops->map(seg->mr->mem, seg->offset + pos, avail);
	if (*avail > left)
		*avail = left;
	return p;
}

static void soft_seg_unmap(struct soft_seg *seg, char *p)
{
	if (seg->mr)
		seg->mr->mem->ops->unmap(seg->mr->mem, p);
}

xqp_u64 soft_segs_copy(struct soft_seg *dst, xqp_u32 ndst, struct soft_seg *src,
		       xqp_u32 nsrc, xqp_u64 len)
{
	xqp_u32 di = 0, si = 0;
	xqp_u64 dpos = 0, spos = 0, done = 0, since = 0;

	while (done < len) {
		xqp_u64 davail, savail, n;
		char *d, *s;

		while (di < ndst && dpos == dst[di].length) {
			di++;
			dpos = 0;
		}
		while (si < nsrc && spos == src[si].length) {
			si++;
			spos = 0;
		}
		if (di == ndst || si == nsrc)
			break;
		s = soft_seg_map(&src[si], spos, &savail);
		d = soft_seg_map(&dst[di], dpos, &davail);
		n = savail < davail ? savail : davail;
		if (n > len - done)
			n = len - done;
		__builtin_memcpy(d, s, n);
		soft_seg_unmap(&dst[di], d);
		soft_seg_unmap(&src[si], s);
		dpos += n;
		spos += n;
		done += n;
		since += n;
		if (since >= SOFT_COPY_RESCHED && xqp_may_sleep()) {
			xqp_cond_resched();
			since = 0;
		}
	}
	return done;
}

/*
 * The 8-byte atomic at @seg's start; *@old gets the value before. Refused
 * (-EINVAL, memory untouched) where that memory is not 8-byte aligned, as
 * rxe refuses it: an MR whose memory is not congruent to its iova mod 8
 * (a kernel MR on an odd address) maps an aligned iova there, and those 8
 * bytes may even cross a page.
 */
int soft_seg_atomic(struct soft_seg *seg, int cmp_swap, xqp_u64 compare_add,
		    xqp_u64 swap, xqp_u64 *old)
{
	xqp_u64 avail;
	char *p = soft_seg_map(seg, 0, &avail);
	xqp_u64 *v = (xqp_u64 *)p;

	if (avail < 8 || ((unsigned long)p & 7)) {
		soft_seg_unmap(seg, p);
		return -XQP_EINVAL;
	}
	if (cmp_swap) {
		*old = compare_add;
		__atomic_compare_exchange_n(v, old, swap, 0, __ATOMIC_SEQ_CST,
					    __ATOMIC_SEQ_CST);
	} else {
		*old = __atomic_fetch_add(v, compare_add, __ATOMIC_SEQ_CST);
	}
	soft_seg_unmap(seg, p);
	return 0;
}
