/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/*
 * Memory: the STag table, memory regions and their access checks.
 */
#ifndef SIW_MEM_H
#define SIW_MEM_H

#include <linux/kref.h>
#include <linux/workqueue.h>
#include <rdma/ib_umem.h>

struct siw_device;

enum siw_mem_type {
	SIW_MEM_USER,	/* pinned user pages (reg_user_mr) */
	SIW_MEM_DMA,	/* all of kernel memory, addresses are kernel VAs */
	SIW_MEM_FRMR,	/* fast-register MR: a page list set by IB_WR_REG_MR */
};

/*
 * What an STag names. Looked up under RCU from the data path and held by a
 * reference while in use; the MR verbs own the first reference.
 */
struct siw_mem {
	struct kref ref;
	struct rcu_head rcu;
	/* Unpins a user region whose last reference went in atomic context. */
	struct work_struct release_work;
	struct siw_device *sdev;
	struct ib_pd *pd;
	enum siw_mem_type type;
	u32 stag;		/* index << 8 | key */
	/*
	 * access_lock: held across each access to the region's pages by
	 * placement (rx.c) and the atomic responder (responder.c), and to clear
	 * valid (invalidation, deregistration) or touch an FRMR's page
	 * lists. Once valid is false under it, no such access is in flight
	 * and none starts: the owner may reuse the pages. Any context; a
	 * leaf, taken inside the QP's place_lock and the device's
	 * atomic_lock.
	 */
	spinlock_t access_lock;
	bool valid;		/* false once invalidated or deregistered */
	int access;		/* IB_ACCESS_* */
	u64 va;			/* first address of the region */
	u64 len;

	/* SIW_MEM_USER */
	struct ib_umem *umem;
	struct page **pages;
	unsigned long num_pages;
	unsigned int first_off;	/* offset of va in pages[0] */

	/*
	 * SIW_MEM_FRMR. pbl is the registered page list, read under
	 * access_lock while valid. map_mr_sg writes next_pbl instead: ULPs
	 * map the next I/O's pages while the MR is still registered (its
	 * IB_WR_LOCAL_INV posted, not yet executed), and the registration
	 * in force must not change under the peer's accesses. IB_WR_REG_MR
	 * swaps the two lists when next_staged says a new mapping waits;
	 * otherwise it registers the last mapping again.
	 */
	u64 *pbl;		/* page addresses (kernel VAs) */
	u64 *next_pbl;
	unsigned int max_pbl;
	unsigned int num_pbl;
	unsigned int num_next_pbl;
	bool next_staged;
	unsigned int page_shift;
};

struct siw_mr {
	struct ib_mr base_mr;
	struct siw_mem *mem;
};

static inline struct siw_mr *to_siw_mr(struct ib_mr *mr)
{
	return container_of(mr, struct siw_mr, base_mr);
}

/* Why an access to memory was refused; mapped to Terminate codes. */
enum siw_access_err {
	SIW_ACCESS_OK = 0,
	SIW_ACCESS_INVALID_STAG,	/* no such STag, or invalidated */
	SIW_ACCESS_BAD_PD,		/* STag of another protection domain */
	SIW_ACCESS_RIGHTS,		/* access flags do not allow it */
	SIW_ACCESS_BOUNDS,		/* range outside the region */
};

/* A piece of memory within one page. */
struct siw_mem_seg {
	struct page *page;
	unsigned int off;
	unsigned int len;
};

struct siw_mem_view;
void siw_mem_view_of(struct siw_mem *mem, struct ib_pd *pd, int access,
		     struct siw_mem_view *view);
struct siw_mem *siw_dma_mem_alloc(void);

int siw_mem_init(void);
void siw_mem_exit(void);
void siw_mem_flush(void);
int siw_mem_table_init(struct siw_device *sdev);
void siw_mem_table_destroy(struct siw_device *sdev);

struct siw_mem *siw_mem_get(struct siw_device *sdev, u32 stag);
struct siw_mem *siw_mem_get_local(struct siw_device *sdev, bool user,
				  u32 lkey);
void siw_mem_put(struct siw_mem *mem);

enum siw_access_err siw_mem_check(struct siw_mem *mem, struct ib_pd *pd,
				  int access, u64 addr, u64 len);
int siw_mem_seg(struct siw_mem *mem, u64 addr, u64 len,
		struct siw_mem_seg *seg);
bool siw_mem_access_begin(struct siw_mem *mem, unsigned long *flags);
void siw_mem_access_end(struct siw_mem *mem, unsigned long flags);
int siw_mem_invalidate(struct siw_device *sdev, u32 stag, struct ib_pd *pd);
int siw_mem_fast_reg(struct siw_mem *mem, struct ib_mr *mr, u32 key,
		     int access);

/* ib_device_ops */
struct ib_mr *siw_get_dma_mr(struct ib_pd *pd, int access);
struct ib_mr *siw_reg_user_mr(struct ib_pd *pd, u64 start, u64 len, u64 virt,
			      int access, SIW_REG_USER_MR_DMAH
			      struct ib_udata *udata);
struct ib_mr *siw_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			   u32 max_sg);
int siw_map_mr_sg(struct ib_mr *mr, struct scatterlist *sg, int nents,
		  unsigned int *sg_off);
int siw_dereg_mr(struct ib_mr *mr, struct ib_udata *udata);

#endif /* SIW_MEM_H */
