// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * Mapping queue memory into user space through ib_core's mmap entries:
 * each queue gets an entry whose offset is the "key" the provider passes
 * to mmap().
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <rdma/uverbs_ioctl.h>

#include "siw.h"
#include "queue.h"

/* Zeroed, page-granular memory that remap_vmalloc_range() accepts. */
void *siw_queue_alloc(size_t size)
{
	return vmalloc_user(PAGE_ALIGN(size));
}

int siw_queue_map(struct ib_udata *udata, void *vaddr, size_t size,
		  struct siw_umap **umap, __u64 *key)
{
	struct siw_ucontext *uctx = rdma_udata_to_drv_context(udata,
				struct siw_ucontext, base_ucontext);
	struct siw_umap *entry;
	int err;

	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return -ENOMEM;
	entry->vaddr = vaddr;
	entry->size = PAGE_ALIGN(size);
	/*
	 * The stock provider takes SIW_INVAL_UOBJ_KEY as "no queue": keep
	 * every offset above it.
	 */
	err = rdma_user_mmap_entry_insert_range(&uctx->base_ucontext,
						&entry->rdma, entry->size,
						(SIW_INVAL_UOBJ_KEY >> PAGE_SHIFT) + 1,
						U32_MAX);
	if (err) {
		kfree(entry);
		return err;
	}
	*umap = entry;
	*key = rdma_user_mmap_get_offset(&entry->rdma);
	return 0;
}

/* No new mappings; the memory goes with the last existing one. */
void siw_queue_unmap(struct siw_umap *umap)
{
	rdma_user_mmap_entry_remove(&umap->rdma);
}

int siw_mmap(struct ib_ucontext *ctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *rdma;
	struct siw_umap *entry;
	int err;

	rdma = rdma_user_mmap_entry_get(ctx, vma);
	if (!rdma)
		return -EINVAL;
	entry = container_of(rdma, struct siw_umap, rdma);
	if (vma->vm_end - vma->vm_start > entry->size) {
		err = -EINVAL;
		goto out;
	}
	err = remap_vmalloc_range(vma, entry->vaddr, 0);
out:
	rdma_user_mmap_entry_put(rdma);
	return err;
}

void siw_mmap_free(struct rdma_user_mmap_entry *rdma)
{
	struct siw_umap *entry = container_of(rdma, struct siw_umap, rdma);

	vfree(entry->vaddr);
	kfree(entry);
}
