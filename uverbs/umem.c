// SPDX-License-Identifier: GPL-2.0
/*
 * User memory for REG_MR: a struct xqp_mem (xqp/driver.h) over user pages
 * pinned long-term, with the rules of ib_umem_get() / ib_umem_release()
 * (drivers/infiniband/core/umem.c):
 *  - start + length must not wrap, nor its page-aligned end: -EINVAL;
 *    a region of no page (length 0) or of more than UINT_MAX pages: -EINVAL;
 *  - can_do_mlock() or -EPERM;
 *  - the pages count in the owning mm's pinned_vm, against RLIMIT_MEMLOCK
 *    unless the caller has CAP_IPC_LOCK: -ENOMEM past it;
 *  - pinned with FOLL_LONGTERM, and FOLL_WRITE when the access lets anyone
 *    write the memory (ib_access_writable()), in chunks of at most a page
 *    of page pointers per pin_user_pages_fast() call;
 *  - released: unpinned (dirtied if writable), unaccounted, the mm dropped.
 * The MR's offsets count from @start: offset 0 is the byte at @start.
 */
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "uverbs.h"

/* Bits of enum ib_access_flags that let someone write the memory. */
#define XQP_IB_ACCESS_MW_BIND	(1 << 4)
#define XQP_UMEM_WRITE_ACCESS	(XQP_ACCESS_LOCAL_WRITE | XQP_ACCESS_REMOTE_WRITE | \
				 XQP_ACCESS_REMOTE_ATOMIC | XQP_IB_ACCESS_MW_BIND)

/* Pages pinned per pin_user_pages_fast() call (Linux: one page of pointers). */
#define XQP_UMEM_PIN_CHUNK	(PAGE_SIZE / sizeof(struct page *))

struct xqp_umem {
	struct xqp_mem mem;
	struct mm_struct *owning_mm;	/* mmgrab()bed: pinned_vm is its */
	struct page **pages;		/* room for cap; the first holds @start */
	unsigned long cap;
	unsigned long npages;		/* accounted in pinned_vm */
	unsigned long pinned;		/* pages[0..pinned) hold a pin */
	unsigned int first_offset;	/* @start's offset in its page */
	bool writable;
};

static struct xqp_umem *to_umem(struct xqp_mem *mem)
{
	return container_of(mem, struct xqp_umem, mem);
}

/* xqp_mem_ops.map: the page holding byte @offset, to the end of it. */
static void *umem_map(struct xqp_mem *mem, xqp_u64 offset, xqp_u64 *len)
{
	struct xqp_umem *umem = to_umem(mem);
	u64 pos = umem->first_offset + offset;
	unsigned long in_page = pos & ~PAGE_MASK;

	*len = min_t(xqp_u64, PAGE_SIZE - in_page, mem->length - offset);
	return kmap_local_page(umem->pages[pos >> PAGE_SHIFT]) + in_page;
}

static void umem_unmap(struct xqp_mem *mem, void *addr)
{
	kunmap_local(addr);
}

/* Unpins what was pinned and gives the accounting back; may sleep. */
static void umem_free(struct xqp_umem *umem, bool dirty)
{
	unpin_user_pages_dirty_lock(umem->pages, umem->pinned,
				    dirty && umem->writable);
	atomic64_sub(umem->npages, &umem->owning_mm->pinned_vm);
	mmdrop(umem->owning_mm);
	kvfree(umem->pages);
	kfree(umem);
}

/* xqp_mem_ops.release: the MR is gone (ib_umem_release()). */
static void umem_release(struct xqp_mem *mem)
{
	umem_free(to_umem(mem), true);
}

static const struct xqp_mem_ops xqp_umem_ops = {
	.map = umem_map,
	.unmap = umem_unmap,
	.release = umem_release,
};

/* Counts @npages in the mm's pinned_vm, within RLIMIT_MEMLOCK. */
static int umem_account(struct mm_struct *mm, unsigned long npages)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	u64 pinned = atomic64_add_return(npages, &mm->pinned_vm);

	if (pinned > limit && !capable(CAP_IPC_LOCK)) {
		atomic64_sub(npages, &mm->pinned_vm);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Makes room for @more page pointers after the pinned ones. The array grows
 * (doubling) as pages get pinned, so that its size follows what is really
 * pinned, not what a bogus length asks for.
 */
static int umem_grow(struct xqp_umem *umem, unsigned long more)
{
	unsigned long cap = umem->cap;
	struct page **pages;

	if (umem->pinned + more <= cap)
		return 0;
	cap = min(umem->npages, max(2 * cap, umem->pinned + more));
	pages = kvmalloc_array(cap, sizeof(*pages), GFP_KERNEL_ACCOUNT | __GFP_NOWARN);
	if (!pages)
		return -ENOMEM;
	if (umem->pinned)
		memcpy(pages, umem->pages, umem->pinned * sizeof(*pages));
	kvfree(umem->pages);
	umem->pages = pages;
	umem->cap = cap;
	return 0;
}

/* Pins every page of the region, a chunk at a time. */
static int umem_pin(struct xqp_umem *umem, unsigned long base)
{
	unsigned int flags = FOLL_LONGTERM | (umem->writable ? FOLL_WRITE : 0);

	while (umem->pinned < umem->npages) {
		unsigned long n = min_t(unsigned long, XQP_UMEM_PIN_CHUNK,
					umem->npages - umem->pinned);
		int got;

		cond_resched();
		got = umem_grow(umem, n);
		if (got)
			return got;
		got = pin_user_pages_fast(base + umem->pinned * PAGE_SIZE, n, flags,
					  umem->pages + umem->pinned);
		if (got < 0)
			return got;
		if (!got)
			return -EFAULT;	/* no progress: never loop forever */
		umem->pinned += got;
	}
	return 0;
}

/**
 * xqp_umem_get - pin [@start, @start + @length) of the caller's memory.
 * @start: the user address of the region's first byte.
 * @length: its size in bytes.
 * @access: the MR's access (enum ib_access_flags), already checked.
 *
 * Context: process context of the registering task; sleeps.
 * Return: the memory (the caller owns it until an MR takes it over, and
 * calls ->release() if none does), or ERR_PTR(-EINVAL, -EPERM, -ENOMEM, the
 * pinning's error).
 */
struct xqp_mem *xqp_umem_get(u64 start, u64 length, int access)
{
	struct xqp_umem *umem;
	unsigned long npages;
	int ret;

	if (start + length < start || PAGE_ALIGN(start + length) < start + length)
		return ERR_PTR(-EINVAL);
	if (!can_do_mlock())
		return ERR_PTR(-EPERM);
	npages = (PAGE_ALIGN(start + length) - (start & PAGE_MASK)) >> PAGE_SHIFT;
	if (!length || !npages || npages > UINT_MAX)
		return ERR_PTR(-EINVAL);

	umem = kzalloc(sizeof(*umem), GFP_KERNEL_ACCOUNT);
	if (!umem)
		return ERR_PTR(-ENOMEM);
	umem->mem.ops = &xqp_umem_ops;
	umem->mem.length = length;
	umem->first_offset = start & ~PAGE_MASK;
	umem->writable = access & XQP_UMEM_WRITE_ACCESS;
	umem->npages = npages;
	umem->owning_mm = current->mm;
	mmgrab(umem->owning_mm);
	ret = umem_account(umem->owning_mm, npages);
	if (ret)
		goto err_mm;
	ret = umem_pin(umem, start & PAGE_MASK);
	if (ret)
		goto err_pinned;
	return &umem->mem;

err_pinned:
	umem_free(umem, false);	/* unpins, unaccounts, drops the mm */
	return ERR_PTR(ret);
err_mm:
	mmdrop(umem->owning_mm);
	kfree(umem);
	return ERR_PTR(ret);
}
