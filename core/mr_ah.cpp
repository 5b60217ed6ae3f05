// SPDX-License-Identifier: GPL-2.0
/*
 * Memory regions and address handles. An MR holds its PD and owns the
 * memory it covers (struct xqp_mem) from a successful registration on; an
 * AH holds its PD and keeps the address, which drivers read at post time.
 */
#include "objects.h"

using namespace xqp;

namespace {

constexpr int kAccessKnown = XQP_ACCESS_LOCAL_WRITE | XQP_ACCESS_REMOTE_WRITE |
			     XQP_ACCESS_REMOTE_READ | XQP_ACCESS_REMOTE_ATOMIC |
			     XQP_ACCESS_MW_BIND;

/* Kernel memory: one contiguous, always-mapped buffer. */
struct KernelMem : Allocated {
	xqp_mem mem;
	char *addr;

	static KernelMem *from(xqp_mem *m)
	{
		return reinterpret_cast<KernelMem *>(reinterpret_cast<char *>(m) -
						     __builtin_offsetof(KernelMem, mem));
	}
};

struct DmaMem : Allocated, xqp_mem {};

void *kernel_mem_map(xqp_mem *m, u64 offset, u64 *len)
{
	*len = m->length - offset;
	return KernelMem::from(m)->addr + offset;
}

void kernel_mem_unmap(xqp_mem *, void *) {}

void kernel_mem_release(xqp_mem *m)
{
	delete KernelMem::from(m);
}

constexpr xqp_mem_ops kernel_mem_ops = {
	.map = kernel_mem_map,
	.unmap = kernel_mem_unmap,
	.release = kernel_mem_release,
};

/* All of the kernel's address space, addressed by itself (xqp_get_dma_mr()). */
void *dma_mem_map(xqp_mem *m, u64 offset, u64 *len)
{
	*len = m->length - offset;
	return reinterpret_cast<void *>(static_cast<xqp_uintptr_t>(offset));
}

void dma_mem_release(xqp_mem *m)
{
	delete static_cast<DmaMem *>(m);
}

constexpr xqp_mem_ops dma_mem_ops = {
	.map = dma_mem_map,
	.unmap = kernel_mem_unmap,
	.release = dma_mem_release,
};

bool has_data_path(const xqp_device *dev)
{
	return dev->ops->post_send && dev->ops->reg_mr && dev->ops->dereg_mr;
}

} // namespace

/**
 * xqp_check_mr_access - IB's rule for MR access flags (ib_check_mr_access).
 * @access: XQP_ACCESS_* bits.
 *
 * Remote write and remote atomic need local write: the HCA writes the
 * memory on the remote side's behalf.
 *
 * Context: any.
 * Return: 0, or -EINVAL for unknown bits or remote write/atomic without
 * local write.
 */
extern "C" int xqp_check_mr_access(int access)
{
	if (access & ~kAccessKnown)
		return -XQP_EINVAL;
	if ((access & (XQP_ACCESS_REMOTE_WRITE | XQP_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & XQP_ACCESS_LOCAL_WRITE))
		return -XQP_EINVAL;
	return 0;
}

/**
 * xqp_reg_mr - register memory with a PD.
 * @pd: the protection domain.
 * @mem: what the MR covers; owned by the MR once this succeeds (released
 *	 when it is deregistered or its device goes away), still the
 *	 caller's when it fails.
 * @iova: the address the MR's users name its first byte by.
 * @access: XQP_ACCESS_* bits.
 *
 * Context: may sleep.
 * Return: the MR, or ERR_PTR(-EINVAL for bad access bits or an empty
 * region, -EIO, -EOPNOTSUPP, -ENOMEM, the driver's error).
 */
extern "C" struct xqp_mr *xqp_reg_mr(struct xqp_pd *pd, struct xqp_mem *mem,
				     xqp_u64 iova, int access)
{
	xqp_device *dev = pd->t.dev;

	if (!dev->alive())
		return err_ptr<xqp_mr>(-XQP_EIO);
	if (!has_data_path(dev))
		return err_ptr<xqp_mr>(-XQP_EOPNOTSUPP);
	if (xqp_check_mr_access(access) || !mem || !mem->length ||
	    iova + mem->length < iova)
		return err_ptr<xqp_mr>(-XQP_EINVAL);
	auto *mr = new (Gfp::account()) xqp_mr;
	if (!mr)
		return err_ptr<xqp_mr>(-XQP_ENOMEM);
	int ret = dev->ops->reg_mr(dev->drv, pd->t.drv, mem, iova, access, &mr->t.drv,
				   &mr->lkey, &mr->rkey);
	if (ret) {
		delete mr;
		return err_ptr<xqp_mr>(ret);
	}
	mr->t.dev = dev;
	mr->pd = pd;
	mr->mem = mem;
	pd->usecnt.inc();
	dev->get();
	dev->track(&mr->t.dev_node, &xqp_device_objects::mrs, &mr->t.res_id);
	return mr;
}

/**
 * xqp_reg_kernel_mr - register a kernel buffer (for kernel clients).
 * @pd: the protection domain.
 * @addr: the buffer: kmalloc'd, vmalloc'd or static; it must stay valid
 *	  until the MR is deregistered. Its address is the MR's iova.
 * @length: its size in bytes.
 * @access: XQP_ACCESS_* bits.
 *
 * Context: may sleep.
 * Return: as xqp_reg_mr().
 */
extern "C" struct xqp_mr *xqp_reg_kernel_mr(struct xqp_pd *pd, void *addr,
					    xqp_u64 length, int access)
{
	if (!addr || !length)
		return err_ptr<xqp_mr>(-XQP_EINVAL);
	auto *km = new (Gfp::account()) KernelMem;
	if (!km)
		return err_ptr<xqp_mr>(-XQP_ENOMEM);
	km->mem.ops = &kernel_mem_ops;
	km->mem.length = length;
	km->addr = static_cast<char *>(addr);
	xqp_mr *mr = xqp_reg_mr(pd, &km->mem, reinterpret_cast<xqp_uintptr_t>(addr),
				access);
	if (xqp_is_err(mr))
		delete km;
	return mr;
}

/**
 * xqp_get_dma_mr - an MR of all kernel memory, as ib_get_dma_mr() (for
 * ib_core's PDs: their local_dma_lkey). Its iova is the kernel virtual
 * address, which is what a DMA address is on a device without DMA
 * (ib_uses_virt_dma()).
 * @pd: the protection domain.
 * @access: XQP_ACCESS_LOCAL_WRITE or 0. Remote access to all of the
 *	    kernel's memory (IB_PD_UNSAFE_GLOBAL_RKEY) is never given.
 *
 * Context: may sleep.
 * Return: as xqp_reg_mr(), or ERR_PTR(-EOPNOTSUPP) for remote access.
 */
extern "C" struct xqp_mr *xqp_get_dma_mr(struct xqp_pd *pd, int access)
{
	if (access & ~XQP_ACCESS_LOCAL_WRITE)
		return err_ptr<xqp_mr>(-XQP_EOPNOTSUPP);
	auto *dm = new (Gfp::account()) DmaMem;
	if (!dm)
		return err_ptr<xqp_mr>(-XQP_ENOMEM);
	dm->ops = &dma_mem_ops;
	dm->length = ~0ULL;
	xqp_mr *mr = xqp_reg_mr(pd, dm, 0, access);
	if (xqp_is_err(mr))
		delete dm;
	return mr;
}

/**
 * xqp_dereg_mr - deregister an MR and release its memory.
 * @mr: the MR.
 *
 * WRs still queued that name the MR fail their access checks from then on
 * (the driver looks keys up at execution).
 *
 * Context: may sleep.
 * Return: 0, or the driver's error (the MR is then intact).
 */
extern "C" int xqp_dereg_mr(struct xqp_mr *mr)
{
	xqp_device *dev = mr->t.dev;

	if (mr->t.drv) {
		int ret = dev->ops->dereg_mr(dev->drv, mr->t.drv);
		if (ret)
			return ret;
	}
	/* Off the device's list first: a resource walk reads the memory's length. */
	dev->untrack(&mr->t.dev_node);
	if (mr->mem)
		mr->mem->ops->release(mr->mem);
	mr->pd->usecnt.dec();
	delete mr;
	dev->put();
	return 0;
}

extern "C" xqp_u32 xqp_mr_lkey(const struct xqp_mr *mr)
{
	return mr->lkey;
}

extern "C" xqp_u32 xqp_mr_rkey(const struct xqp_mr *mr)
{
	return mr->rkey;
}

/**
 * xqp_create_ah_flags - an address handle for UD sends.
 * @pd: the protection domain (a UD QP may use AHs of its own PD only).
 * @attr: the address: a DLID, or a DGID with is_global; the port must be
 *	  one of the device's.
 * @flags: XQP_AH_NO_SLEEP: for a caller that may not sleep (ib_core's
 *	   rdma_create_ah() without RDMA_CREATE_AH_SLEEPABLE). Such an AH
 *	   is not on the device's lists: not in `xqp res`, and not destroyed
 *	   by the device's unregistration; its creator destroys it first.
 *
 * Context: may sleep, unless XQP_AH_NO_SLEEP.
 * Return: the AH, or ERR_PTR(-EINVAL for a bad port or flag, -EIO,
 * -EOPNOTSUPP for a device without a data path, -ENOMEM: no memory, or
 * the device's max_ah AHs exist).
 */
extern "C" struct xqp_ah *xqp_create_ah_flags(struct xqp_pd *pd,
					      const struct xqp_ah_attr *attr, int flags)
{
	xqp_device *dev = pd->t.dev;

	if (!dev->alive())
		return err_ptr<xqp_ah>(-XQP_EIO);
	if (!has_data_path(dev))
		return err_ptr<xqp_ah>(-XQP_EOPNOTSUPP);
	if (attr->port_num < 1 || attr->port_num > dev->phys_port_cnt ||
	    (flags & ~XQP_AH_NO_SLEEP))
		return err_ptr<xqp_ah>(-XQP_EINVAL);
	if (dev->ah_count.inc() > dev->max_ah) {
		dev->ah_count.dec();
		return err_ptr<xqp_ah>(-XQP_ENOMEM);
	}
	bool listed = !(flags & XQP_AH_NO_SLEEP);
	auto *ah = new (listed ? Gfp::account() : Gfp::atomic()) xqp_ah;
	if (!ah) {
		dev->ah_count.dec();
		return err_ptr<xqp_ah>(-XQP_ENOMEM);
	}
	ah->dev = dev;
	ah->pd = pd;
	ah->attr = *attr;
	ah->listed = listed;
	pd->usecnt.inc();
	dev->get();
	if (listed)
		dev->track(&ah->dev_node, &xqp_device_objects::ahs);
	return ah;
}

extern "C" struct xqp_ah *xqp_create_ah(struct xqp_pd *pd,
					const struct xqp_ah_attr *attr)
{
	return xqp_create_ah_flags(pd, attr, 0);
}

/**
 * xqp_destroy_ah - destroy an address handle.
 * @ah: the AH; UD WRs already posted with it are not affected.
 *
 * Context: may sleep; one made with XQP_AH_NO_SLEEP: any.
 * Return: 0.
 */
extern "C" int xqp_destroy_ah(struct xqp_ah *ah)
{
	xqp_device *dev = ah->dev;

	if (ah->listed)
		dev->untrack(&ah->dev_node);
	ah->pd->usecnt.dec();
	delete ah;
	dev->ah_count.dec();
	dev->put();
	return 0;
}

extern "C" const struct xqp_ah_attr *xqp_ah_get_attr(const struct xqp_ah *ah)
{
	return &ah->attr;
}

/* For drivers: the driver's PD of @ah (a UD QP may use its own PD's AHs only). */
extern "C" void *xqp_ah_drv_pd(const struct xqp_ah *ah)
{
	return ah->pd->t.drv;
}
