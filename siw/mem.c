// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * Memory regions: the STag table, user memory pinning, the DMA MR, fast
 * registration, invalidation and the access checks every placement and
 * every transmit goes through.
 *
 * An STag is a 24-bit table index and an 8-bit key. Indexes come from an
 * xarray per device; lookups run under RCU and take a reference, so a
 * region deregistered while the data path uses it stays intact until the
 * last user is done.
 */
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/ib_umem.h>

#include "siw.h"
#include "mem.h"
#include "proto.h"

#define SIW_STAG_INDEX_MAX	((1U << 24) - 1)

/*
 * Releases of user regions whose last reference was dropped where one
 * cannot sleep (the receive path, in softirq): unpinning dirties and
 * unlocks pages, which may sleep.
 */
static struct workqueue_struct *siw_mem_wq;

static inline u32 siw_stag_index(u32 stag)
{
	return stag >> 8;
}

int siw_mem_init(void)
{
	/*
	 * Unbound: releasing a region needs no particular CPU, and 7.x
	 * warns about a work queue that says neither per-CPU nor unbound.
	 */
	siw_mem_wq = alloc_workqueue("siw_mem", WQ_UNBOUND, 0);
	return siw_mem_wq ? 0 : -ENOMEM;
}

/*
 * Module exit: no release is left queued, and no RCU callback of ours
 * runs after the module's text is gone.
 */
void siw_mem_exit(void)
{
	destroy_workqueue(siw_mem_wq);
	rcu_barrier();
}

/* A device goes: releases queued for its regions are done. */
void siw_mem_flush(void)
{
	flush_workqueue(siw_mem_wq);
}

int siw_mem_table_init(struct siw_device *sdev)
{
	xa_init_flags(&sdev->mem_xa, XA_FLAGS_ALLOC1);
	return 0;
}

void siw_mem_table_destroy(struct siw_device *sdev)
{
	WARN_ON(!xa_empty(&sdev->mem_xa));
	xa_destroy(&sdev->mem_xa);
}

static void siw_mem_free_rcu(struct rcu_head *rcu)
{
	struct siw_mem *mem = container_of(rcu, struct siw_mem, rcu);

	kvfree(mem->pages);
	kvfree(mem->pbl);
	kvfree(mem->next_pbl);
	kfree(mem);
}

/*
 * Unpins now; the descriptor goes after a grace period. May sleep for a
 * user region only: a kernel region's last reference may go in softirq.
 */
static void siw_mem_unpin_and_free(struct siw_mem *mem)
{
	if (mem->umem) {
		might_sleep();
		ib_umem_release(mem->umem);
	}
	call_rcu(&mem->rcu, siw_mem_free_rcu);
}

static void siw_mem_release_work(struct work_struct *work)
{
	siw_mem_unpin_and_free(container_of(work, struct siw_mem,
					    release_work));
}

static void siw_mem_release(struct kref *ref)
{
	struct siw_mem *mem = container_of(ref, struct siw_mem, ref);

	/*
	 * A region deregistered while a Write or Read Response was being
	 * placed into it loses its last reference in the receive path. The
	 * test is conservative: without preemption counting, preemptible()
	 * is false and every user region's release is queued.
	 */
	if (mem->umem && !preemptible()) {
		INIT_WORK(&mem->release_work, siw_mem_release_work);
		queue_work(siw_mem_wq, &mem->release_work);
		return;
	}
	siw_mem_unpin_and_free(mem);
}

void siw_mem_put(struct siw_mem *mem)
{
	kref_put(&mem->ref, siw_mem_release);
}

/* Returns the region named by stag with a reference, or NULL. */
struct siw_mem *siw_mem_get(struct siw_device *sdev, u32 stag)
{
	struct siw_mem *mem;

	rcu_read_lock();
	mem = xa_load(&sdev->mem_xa, siw_stag_index(stag));
	if (mem && (READ_ONCE(mem->stag) != stag ||
		    !kref_get_unless_zero(&mem->ref)))
		mem = NULL;
	rcu_read_unlock();
	return mem;
}

/*
 * Is [addr, addr + len) inside the region, accessible with 'access' by a
 * QP of protection domain pd? Overflow-safe for any addr and len.
 */
enum siw_access_err siw_mem_check(struct siw_mem *mem, struct ib_pd *pd,
				  int access, u64 addr, u64 len)
{
	if (!READ_ONCE(mem->valid))
		return SIW_ACCESS_INVALID_STAG;
	if (mem->pd && mem->pd != pd)
		return SIW_ACCESS_BAD_PD;
	if ((mem->access & access) != access)
		return SIW_ACCESS_RIGHTS;
	if (addr < mem->va || len > mem->len || addr - mem->va > mem->len - len)
		return SIW_ACCESS_BOUNDS;
	return SIW_ACCESS_OK;
}

/*
 * The memory behind a local lkey, with a reference. Kernel QPs may use the
 * device's local DMA lkey, which names all of kernel memory.
 */
struct siw_mem *siw_mem_get_local(struct siw_device *sdev, bool user,
				  u32 lkey)
{
	if (!user && lkey == sdev->base_dev.local_dma_lkey) {
		kref_get(&sdev->dma_mem->ref);
		return sdev->dma_mem;
	}
	return siw_mem_get(sdev, lkey);
}

/* What the protocol core's checks need to know of a region (NULL: none). */
void siw_mem_view_of(struct siw_mem *mem, struct ib_pd *pd, int access,
		     struct siw_mem_view *view)
{
	memset(view, 0, sizeof(*view));
	if (!mem)
		return;
	view->valid = READ_ONCE(mem->valid);
	view->same_pd = !mem->pd || mem->pd == pd;
	view->access = (mem->access & access) == access;
	view->base = mem->va;
	view->len = mem->len;
}

/*
 * The device's local DMA lkey: all of kernel memory, any PD. Kernel QPs
 * only; never in the STag table, so no peer can name it.
 */
struct siw_mem *siw_dma_mem_alloc(void)
{
	struct siw_mem *mem = kzalloc(sizeof(*mem), GFP_KERNEL);

	if (!mem)
		return NULL;
	kref_init(&mem->ref);
	spin_lock_init(&mem->access_lock);
	mem->type = SIW_MEM_DMA;
	mem->valid = true;
	mem->access = IB_ACCESS_LOCAL_WRITE;
	mem->va = 0;
	mem->len = U64_MAX;
	return mem;
}

/*
 * The piece of [addr, addr + len) that starts at addr and stays within one
 * page. The range must have passed siw_mem_check().
 */
int siw_mem_seg(struct siw_mem *mem, u64 addr, u64 len,
		struct siw_mem_seg *seg)
{
	u64 off, in_page;

	switch (mem->type) {
	case SIW_MEM_DMA:
		/* Virtual DMA: addresses are direct-mapped kernel VAs. */
		seg->page = virt_to_page((void *)(uintptr_t)addr);
		seg->off = offset_in_page(addr);
		break;
	case SIW_MEM_USER:
		off = addr - mem->va + mem->first_off;
		if ((off >> PAGE_SHIFT) >= mem->num_pages)
			return -EFAULT;
		seg->page = mem->pages[off >> PAGE_SHIFT];
		seg->off = offset_in_page(off);
		break;
	case SIW_MEM_FRMR: {
		u64 page_size = 1ULL << mem->page_shift;
		/*
		 * ib_sg_to_pages() hands over page-aligned addresses; where
		 * the region starts in its first page is the iova's offset
		 * (a ULP may rewrite the iova's upper bits, never these).
		 */
		u64 first = mem->va & (page_size - 1);
		u64 kva;

		off = addr - mem->va + first;
		if ((off >> mem->page_shift) >= mem->num_pbl)
			return -EFAULT;
		kva = (mem->pbl[off >> mem->page_shift] & ~(page_size - 1)) +
		      (off & (page_size - 1));
		seg->page = virt_to_page((void *)(uintptr_t)kva);
		seg->off = offset_in_page(kva);
		break;
	}
	default:
		return -EINVAL;
	}
	in_page = PAGE_SIZE - seg->off;
	seg->len = min_t(u64, len, in_page);
	return 0;
}

/*
 * Begins an access to the region's pages (a piece of placement, or an
 * atomic): false, and nothing held, if the region was invalidated or
 * deregistered. The range was checked before (siw_mem_check); the access
 * ends with siw_mem_access_end() and must not sleep.
 */
bool siw_mem_access_begin(struct siw_mem *mem, unsigned long *flags)
	__acquires(&mem->access_lock)
{
	spin_lock_irqsave(&mem->access_lock, *flags);
	if (READ_ONCE(mem->valid))
		return true;
	spin_unlock_irqrestore(&mem->access_lock, *flags);
	return false;
}

void siw_mem_access_end(struct siw_mem *mem, unsigned long flags)
	__releases(&mem->access_lock)
{
	spin_unlock_irqrestore(&mem->access_lock, flags);
}

/* Makes the region unusable once no access is in flight. */
static void siw_mem_disable(struct siw_mem *mem)
{
	unsigned long flags;

	spin_lock_irqsave(&mem->access_lock, flags);
	WRITE_ONCE(mem->valid, false);
	spin_unlock_irqrestore(&mem->access_lock, flags);
}

static struct siw_mem *siw_mem_alloc(struct ib_pd *pd, enum siw_mem_type type)
{
	struct siw_device *sdev = to_siw_dev(pd->device);
	struct siw_mem *mem;
	u32 index, next;
	int err;

	if (atomic_inc_return(&sdev->num_mr) > SIW_MAX_MR) {
		err = -ENOMEM;
		goto err_count;
	}
	mem = kzalloc(sizeof(*mem), GFP_KERNEL);
	if (!mem) {
		err = -ENOMEM;
		goto err_count;
	}
	kref_init(&mem->ref);
	spin_lock_init(&mem->access_lock);
	mem->sdev = sdev;
	mem->pd = pd;
	mem->type = type;

	/*
	 * The index and the key both random: a peer cannot guess another
	 * region's STag from its own (sequential indices would leave only
	 * the 8-bit key to guess), and a stale STag is unlikely to name the
	 * new region. The search goes on from a random index to the first
	 * free one.
	 */
	next = 1 + get_random_u32_below(SIW_STAG_INDEX_MAX);
	err = xa_alloc_cyclic(&sdev->mem_xa, &index, NULL,
			      XA_LIMIT(1, SIW_STAG_INDEX_MAX), &next,
			      GFP_KERNEL);
	if (err < 0)
		goto err_free;
	mem->stag = index << 8 | get_random_u32_below(256);
	return mem;

err_free:
	kfree(mem);
err_count:
	atomic_dec(&sdev->num_mr);
	return ERR_PTR(err);
}

/* Makes mem visible to the data path under its STag. */
static void siw_mem_publish(struct siw_mem *mem)
{
	xa_store(&mem->sdev->mem_xa, siw_stag_index(mem->stag), mem,
		 GFP_KERNEL);
}

/*
 * Deregistration: no placement into it goes on once this returns, though
 * a QP may still hold a reference (user pages stay pinned until then).
 */
static void siw_mem_destroy(struct siw_mem *mem)
{
	struct siw_device *sdev = mem->sdev;

	siw_mem_disable(mem);
	xa_erase(&sdev->mem_xa, siw_stag_index(mem->stag));
	atomic_dec(&sdev->num_mr);
	siw_mem_put(mem);
}

static struct ib_mr *siw_mr_create(struct siw_mem *mem)
{
	struct siw_mr *mr = kzalloc(sizeof(*mr), GFP_KERNEL);

	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->mem = mem;
	mr->base_mr.lkey = mem->stag;
	mr->base_mr.rkey = mem->stag;
	mr->base_mr.iova = mem->va;
	mr->base_mr.length = mem->len;
	siw_mem_publish(mem);
	return &mr->base_mr;
}

struct ib_mr *siw_get_dma_mr(struct ib_pd *pd, int access)
{
	struct siw_mem *mem;
	struct ib_mr *mr;

	mem = siw_mem_alloc(pd, SIW_MEM_DMA);
	if (IS_ERR(mem))
		return ERR_CAST(mem);
	mem->va = 0;
	mem->len = U64_MAX;
	mem->access = access;
	mem->valid = true;
	mr = siw_mr_create(mem);
	if (IS_ERR(mr))
		siw_mem_destroy(mem);
	return mr;
}

struct ib_mr *siw_reg_user_mr(struct ib_pd *pd, u64 start, u64 len, u64 virt,
			      int access, SIW_REG_USER_MR_DMAH
			      struct ib_udata *udata)
{
	struct siw_uresp_reg_mr uresp = {};
	struct sg_page_iter piter;
	struct siw_mem *mem;
	struct ib_mr *mr;
	unsigned long i = 0;
	int err;

	/* No device memory to place a region near (a DMA handle). */
	if (siw_reg_user_mr_dmah(dmah))
		return ERR_PTR(-EOPNOTSUPP);
	if (!len || len > SIW_MAX_MR_SIZE)
		return ERR_PTR(-EINVAL);

	mem = siw_mem_alloc(pd, SIW_MEM_USER);
	if (IS_ERR(mem))
		return ERR_CAST(mem);

	mem->umem = siw_umem_get(pd->device, start, len, access);
	if (IS_ERR(mem->umem)) {
		err = PTR_ERR(mem->umem);
		mem->umem = NULL;
		goto err_destroy;
	}
	mem->num_pages = ib_umem_num_pages(mem->umem);
	mem->pages = kvcalloc(mem->num_pages, sizeof(*mem->pages), GFP_KERNEL);
	if (!mem->pages) {
		err = -ENOMEM;
		goto err_destroy;
	}
	for_each_sgtable_page(&mem->umem->sgt_append.sgt, &piter, 0) {
		if (i >= mem->num_pages)
			break;
		mem->pages[i++] = sg_page_iter_page(&piter);
	}
	if (i != mem->num_pages) {
		err = -EFAULT;
		goto err_destroy;
	}
	mem->first_off = ib_umem_offset(mem->umem);
	mem->va = virt;
	mem->len = len;
	mem->access = access;
	mem->valid = true;

	if (udata && udata->outlen >= sizeof(uresp)) {
		uresp.stag = mem->stag;
		err = ib_copy_to_udata(udata, &uresp, sizeof(uresp));
		if (err)
			goto err_destroy;
	}
	mr = siw_mr_create(mem);
	if (IS_ERR(mr)) {
		err = PTR_ERR(mr);
		goto err_destroy;
	}
	return mr;

err_destroy:
	siw_mem_destroy(mem);
	return ERR_PTR(err);
}

struct ib_mr *siw_alloc_mr(struct ib_pd *pd, enum ib_mr_type type, u32 max_sg)
{
	struct siw_mem *mem;
	struct ib_mr *mr;

	if (type != IB_MR_TYPE_MEM_REG || !max_sg ||
	    max_sg > SIW_MAX_FRMR_PAGES)
		return ERR_PTR(-EINVAL);

	mem = siw_mem_alloc(pd, SIW_MEM_FRMR);
	if (IS_ERR(mem))
		return ERR_CAST(mem);
	mem->pbl = kvcalloc(max_sg, sizeof(*mem->pbl), GFP_KERNEL);
	mem->next_pbl = kvcalloc(max_sg, sizeof(*mem->next_pbl), GFP_KERNEL);
	if (!mem->pbl || !mem->next_pbl) {
		siw_mem_destroy(mem);
		return ERR_PTR(-ENOMEM);
	}
	mem->max_pbl = max_sg;
	/* Invalid until registered by IB_WR_REG_MR. */
	mem->valid = false;
	mr = siw_mr_create(mem);
	if (IS_ERR(mr))
		siw_mem_destroy(mem);
	return mr;
}

static int siw_set_page(struct ib_mr *base_mr, u64 addr)
{
	struct siw_mem *mem = to_siw_mr(base_mr)->mem;

	if (mem->num_next_pbl >= mem->max_pbl)
		return -ENOMEM;
	mem->next_pbl[mem->num_next_pbl++] = addr;
	return 0;
}

/*
 * The page list of the FRMR's next registration, staged beside the one in
 * force (see struct siw_mem): valid or not, the region the peer can reach
 * changes only when IB_WR_REG_MR executes, in send queue order. The list
 * is written outside access_lock, which placement into the registered
 * region takes per page: with next_staged cleared first, a registration
 * running meanwhile leaves next_pbl alone.
 */
int siw_map_mr_sg(struct ib_mr *base_mr, struct scatterlist *sg, int nents,
		  unsigned int *sg_off)
{
	struct siw_mem *mem = to_siw_mr(base_mr)->mem;
	unsigned long flags;
	int n;

	spin_lock_irqsave(&mem->access_lock, flags);
	mem->next_staged = false;
	spin_unlock_irqrestore(&mem->access_lock, flags);
	mem->num_next_pbl = 0;
	n = ib_sg_to_pages(base_mr, sg, nents, sg_off, siw_set_page);
	spin_lock_irqsave(&mem->access_lock, flags);
	mem->next_staged = true;
	spin_unlock_irqrestore(&mem->access_lock, flags);
	return n;
}

/*
 * IB_WR_REG_MR: the MR takes the iova, length and page size ib_core set in
 * map_mr_sg, the new key and the given access rights, and becomes valid.
 */
int siw_mem_fast_reg(struct siw_mem *mem, struct ib_mr *mr, u32 key,
		     int access)
{
	unsigned long flags;
	int err = 0;

	if (mem->type != SIW_MEM_FRMR)
		return -EINVAL;
	if (mr->page_size < PAGE_SIZE || !is_power_of_2(mr->page_size))
		return -EINVAL;
	spin_lock_irqsave(&mem->access_lock, flags);
	if (READ_ONCE(mem->valid)) {
		err = -EINVAL;
		goto out;
	}
	if (mem->next_staged) {
		swap(mem->pbl, mem->next_pbl);
		swap(mem->num_pbl, mem->num_next_pbl);
		mem->next_staged = false;
	}
	if (!mem->num_pbl) {
		err = -EINVAL;
		goto out;
	}
	mem->page_shift = ilog2(mr->page_size);
	mem->va = mr->iova;
	mem->len = mr->length;
	mem->access = access;
	WRITE_ONCE(mem->stag, (mem->stag & ~0xffU) | (key & 0xff));
	/* Everything above before the region becomes usable. */
	smp_store_release(&mem->valid, true);
out:
	spin_unlock_irqrestore(&mem->access_lock, flags);
	return err;
}

/*
 * Local or remote invalidation. Only fast-register MRs can be invalidated;
 * for anything else, or an STag of another PD, the caller reports an error.
 * Once it returns, no placement into the region is in flight.
 */
int siw_mem_invalidate(struct siw_device *sdev, u32 stag, struct ib_pd *pd)
{
	struct siw_mem *mem = siw_mem_get(sdev, stag);
	int err = 0;

	if (!mem)
		return -ENOENT;
	if (mem->pd != pd)
		err = -EACCES;
	else if (mem->type != SIW_MEM_FRMR)
		err = -EINVAL;
	else
		siw_mem_disable(mem);
	siw_mem_put(mem);
	return err;
}

int siw_dereg_mr(struct ib_mr *base_mr, struct ib_udata *udata)
{
	struct siw_mr *mr = to_siw_mr(base_mr);

	siw_mem_destroy(mr->mem);
	kfree(mr);
	return 0;
}
