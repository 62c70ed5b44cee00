// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * Verbs: user contexts and protection domains, and the table of every
 * verb the device implements (the objects live in cq.c, qp.c with sq.c
 * and rq.c, srq.c and mem.c).
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

const struct ib_device_ops siw_verbs_ops = {
	.alloc_mr = siw_alloc_mr,
	.alloc_pd = siw_alloc_pd,
	.alloc_ucontext = siw_alloc_ucontext,
	.create_cq = siw_create_cq,
	.create_qp = siw_create_qp,
	.create_srq = siw_create_srq,
	.dealloc_pd = siw_dealloc_pd,
	.dealloc_ucontext = siw_dealloc_ucontext,
	.dereg_mr = siw_dereg_mr,
	.destroy_cq = siw_destroy_cq,
	.destroy_qp = siw_destroy_qp,
	.destroy_srq = siw_destroy_srq,
	.disassociate_ucontext = siw_disassociate_ucontext,
	.fill_res_qp_entry = siw_fill_res_qp_entry,
	.get_dma_mr = siw_get_dma_mr,
	.map_mr_sg = siw_map_mr_sg,
	.mmap = siw_mmap,
	.mmap_free = siw_mmap_free,
	.modify_qp = siw_modify_qp,
	.modify_srq = siw_modify_srq,
	.poll_cq = siw_poll_cq,
	.post_recv = siw_post_recv,
	.post_send = siw_post_send,
	.post_srq_recv = siw_post_srq_recv,
	.query_qp = siw_query_qp,
	.query_srq = siw_query_srq,
	.reg_user_mr = siw_reg_user_mr,
	.req_notify_cq = siw_req_notify_cq,

	INIT_RDMA_OBJ_SIZE(ib_cq, siw_cq, base_cq),
	INIT_RDMA_OBJ_SIZE(ib_pd, siw_pd, base_pd),
	INIT_RDMA_OBJ_SIZE(ib_qp, siw_qp, base_qp),
	INIT_RDMA_OBJ_SIZE(ib_srq, siw_srq, base_srq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, siw_ucontext, base_ucontext),
};
