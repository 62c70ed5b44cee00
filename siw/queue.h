/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/*
 * Queue memory shared with user space: CQs, SQs, RQs and SRQs live in
 * vmalloc memory that the owning process maps with mmap().
 */
#ifndef SIW_QUEUE_H
#define SIW_QUEUE_H

#include <rdma/ib_verbs.h>

/*
 * A mappable queue. Once mapped, the entry owns the memory: it is freed in
 * mmap_free, after the queue's verb object is gone and the last mapping of
 * it closed, so a process that keeps a mapping never sees freed pages.
 */
struct siw_umap {
	struct rdma_user_mmap_entry rdma;
	void *vaddr;
	size_t size;
};

void *siw_queue_alloc(size_t size);
int siw_queue_map(struct ib_udata *udata, void *vaddr, size_t size,
		  struct siw_umap **umap, __u64 *key);
void siw_queue_unmap(struct siw_umap *umap);

int siw_mmap(struct ib_ucontext *ctx, struct vm_area_struct *vma);
void siw_mmap_free(struct rdma_user_mmap_entry *entry);

#endif /* SIW_QUEUE_H */
