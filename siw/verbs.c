// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * Verbs: user contexts and protection domains.
 *
 * Queue pairs, completion queues, shared receive queues and memory regions
 * come with the data path (MPA/DDP/RDMAP). Until then their verbs refuse
 * with -EOPNOTSUPP, which every consumer reports as "operation not
 * supported"; ib_core requires the entry points to exist before it
 * registers a device.
 */
#include <rdma/ib_user_verbs.h>
#include <rdma/uverbs_ioctl.h>

#include "siw.h"

static int siw_alloc_ucontext(struct ib_ucontext *base_ctx,
			      struct ib_udata *udata)
{
	struct siw_device *sdev = to_siw_dev(base_ctx->device);
	struct siw_uresp_alloc_ctx uresp = {};
	int err;

	if (atomic_inc_return(&sdev->num_ctx) > SIW_MAX_CONTEXT) {
		err = -ENOMEM;
		goto err_count;
	}

	uresp.dev_id = sdev->dev_id;
	if (udata->outlen < sizeof(uresp)) {
		err = -EINVAL;
		goto err_count;
	}
	err = ib_copy_to_udata(udata, &uresp, sizeof(uresp));
	if (err)
		goto err_count;
	return 0;

err_count:
	atomic_dec(&sdev->num_ctx);
	return err;
}

static void siw_dealloc_ucontext(struct ib_ucontext *base_ctx)
{
	atomic_dec(&to_siw_dev(base_ctx->device)->num_ctx);
}

/*
 * Called when the device goes away (link delete, netdev removal, rmmod)
 * while a process still holds the context open. ib_core has destroyed
 * every object of the context already and zaps the mappings it made; there
 * is no other state to take back. Having this entry point is what lets a
 * device be removed without waiting for the process to exit.
 */
static void siw_disassociate_ucontext(struct ib_ucontext *base_ctx)
{
}

/* Nothing is mappable until queues exist. */
static int siw_mmap(struct ib_ucontext *ctx, struct vm_area_struct *vma)
{
	return -EINVAL;
}

static int siw_alloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	struct siw_device *sdev = to_siw_dev(pd->device);

	if (atomic_inc_return(&sdev->num_pd) > SIW_MAX_PD) {
		atomic_dec(&sdev->num_pd);
		return -ENOMEM;
	}
	return 0;
}

static int siw_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	atomic_dec(&to_siw_dev(pd->device)->num_pd);
	return 0;
}

/*
 * Entry points of the data path, not implemented yet. The create verbs
 * fail, so no object exists that the others could be called on; they
 * still answer sensibly if ib_core ever calls them.
 */
static int siw_create_cq(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
			 SIW_CREATE_CQ_UDATA_T *udata_arg)
{
	return -EOPNOTSUPP;
}

static int siw_destroy_cq(struct ib_cq *cq, struct ib_udata *udata)
{
	return 0;
}

static int siw_poll_cq(struct ib_cq *cq, int num_entries, struct ib_wc *wc)
{
	return 0;
}

static int siw_req_notify_cq(struct ib_cq *cq, enum ib_cq_notify_flags flags)
{
	return -EOPNOTSUPP;
}

static int siw_create_qp(struct ib_qp *qp, struct ib_qp_init_attr *attr,
			 struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int siw_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr,
			 int attr_mask, struct ib_udata *udata)
{
	return -EOPNOTSUPP;
}

static int siw_destroy_qp(struct ib_qp *qp, struct ib_udata *udata)
{
	return 0;
}

static int siw_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
			 const struct ib_send_wr **bad_wr)
{
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

static int siw_post_recv(struct ib_qp *qp, const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad_wr)
{
	*bad_wr = wr;
	return -EOPNOTSUPP;
}

static struct ib_mr *siw_get_dma_mr(struct ib_pd *pd, int access)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static struct ib_mr *siw_reg_user_mr(struct ib_pd *pd, u64 start, u64 len,
				     u64 virt, int access,
				     struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static int siw_dereg_mr(struct ib_mr *mr, struct ib_udata *udata)
{
	return 0;
}

const struct ib_device_ops siw_verbs_ops = {
	.alloc_pd = siw_alloc_pd,
	.alloc_ucontext = siw_alloc_ucontext,
	.create_cq = siw_create_cq,
	.create_qp = siw_create_qp,
	.dealloc_pd = siw_dealloc_pd,
	.dealloc_ucontext = siw_dealloc_ucontext,
	.disassociate_ucontext = siw_disassociate_ucontext,
	.dereg_mr = siw_dereg_mr,
	.destroy_cq = siw_destroy_cq,
	.destroy_qp = siw_destroy_qp,
	.get_dma_mr = siw_get_dma_mr,
	.mmap = siw_mmap,
	.modify_qp = siw_modify_qp,
	.poll_cq = siw_poll_cq,
	.post_recv = siw_post_recv,
	.post_send = siw_post_send,
	.reg_user_mr = siw_reg_user_mr,
	.req_notify_cq = siw_req_notify_cq,

	INIT_RDMA_OBJ_SIZE(ib_cq, siw_cq, base_cq),
	INIT_RDMA_OBJ_SIZE(ib_pd, siw_pd, base_pd),
	INIT_RDMA_OBJ_SIZE(ib_qp, siw_qp, base_qp),
	INIT_RDMA_OBJ_SIZE(ib_srq, siw_srq, base_srq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, siw_ucontext, base_ucontext),
};
