// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * Completion queues.
 *
 * A CQ is an array of struct siw_cqe followed by struct siw_cq_ctrl, in
 * vmalloc memory that a user CQ's process maps (uapi/rdma/siw-abi.h). The
 * kernel produces: it fills a slot and sets its VALID flag last. The
 * consumer (the provider in user space, siw_poll_cq for kernel CQs) copies
 * the entry and clears the flag. A slot still VALID when the producer comes
 * round again means the CQ overflowed.
 *
 * Arming: the consumer sets SIW_NOTIFY_* bits in siw_cq_ctrl.flags; the
 * producer clears them when it fires the completion handler.
 */
#include <linux/log2.h>
#include <linux/vmalloc.h>

#include "siw.h"
#include "queue.h"
#include "trace.h"
#include "wr_ops.h"

static const enum ib_wc_status siw_to_ib_wc_status[SIW_NUM_WC_STATUS] = {
	[SIW_WC_SUCCESS] = IB_WC_SUCCESS,
	[SIW_WC_LOC_LEN_ERR] = IB_WC_LOC_LEN_ERR,
	[SIW_WC_LOC_PROT_ERR] = IB_WC_LOC_PROT_ERR,
	[SIW_WC_LOC_QP_OP_ERR] = IB_WC_LOC_QP_OP_ERR,
	[SIW_WC_WR_FLUSH_ERR] = IB_WC_WR_FLUSH_ERR,
	[SIW_WC_BAD_RESP_ERR] = IB_WC_BAD_RESP_ERR,
	[SIW_WC_LOC_ACCESS_ERR] = IB_WC_LOC_ACCESS_ERR,
	[SIW_WC_REM_ACCESS_ERR] = IB_WC_REM_ACCESS_ERR,
	[SIW_WC_REM_INV_REQ_ERR] = IB_WC_REM_INV_REQ_ERR,
	[SIW_WC_GENERAL_ERR] = IB_WC_GENERAL_ERR,
};

int siw_create_cq(struct ib_cq *base_cq, const struct ib_cq_init_attr *attr,
		  SIW_CREATE_CQ_UDATA_T *udata_arg)
{
	struct ib_udata *udata = siw_create_cq_udata(udata_arg);
	struct siw_device *sdev = to_siw_dev(base_cq->device);
	struct siw_cq *cq = to_siw_cq(base_cq);
	struct siw_uresp_create_cq uresp = {};
	size_t size;
	int err;

	if (attr->flags || attr->cqe < 1 || attr->cqe > SIW_MAX_CQE)
		return -EINVAL;
	if (atomic_inc_return(&sdev->num_cq) > SIW_MAX_CQ) {
		err = -ENOMEM;
		goto err_count;
	}

	spin_lock_init(&cq->lock);
	spin_lock_init(&cq->poll_lock);
	/* Power of two, like the work queues (see siw_create_qp). */
	cq->num_cqe = roundup_pow_of_two(attr->cqe);
	cq->id = atomic_inc_return(&sdev->next_cq_id);
	size = cq->num_cqe * sizeof(struct siw_cqe) + sizeof(struct siw_cq_ctrl);
	cq->queue = siw_queue_alloc(size);
	if (!cq->queue) {
		err = -ENOMEM;
		goto err_count;
	}
	cq->ctrl = (struct siw_cq_ctrl *)&cq->queue[cq->num_cqe];
	cq->user = !!udata;
	base_cq->cqe = cq->num_cqe;

	if (udata) {
		err = siw_queue_map(udata, cq->queue, size, &cq->umap,
				    &uresp.cq_key);
		if (err)
			goto err_free;
		uresp.cq_id = cq->id;
		uresp.num_cqe = cq->num_cqe;
		if (udata->outlen < sizeof(uresp)) {
			err = -EINVAL;
			goto err_unmap;
		}
		err = ib_copy_to_udata(udata, &uresp, sizeof(uresp));
		if (err)
			goto err_unmap;
	}
	return 0;

err_unmap:
	/* The mapping entry owns the queue memory now. */
	siw_queue_unmap(cq->umap);
	goto err_count;
err_free:
	vfree(cq->queue);
err_count:
	atomic_dec(&sdev->num_cq);
	return err;
}

int siw_destroy_cq(struct ib_cq *base_cq, struct ib_udata *udata)
{
	struct siw_cq *cq = to_siw_cq(base_cq);

	if (cq->umap)
		siw_queue_unmap(cq->umap);
	else
		vfree(cq->queue);
	atomic_dec(&to_siw_dev(base_cq->device)->num_cq);
	return 0;
}

/*
 * Delivers the events siw_cq_add() made due: the consumer's completion
 * handler, and IB_EVENT_CQ_ERR once after an overrun (verbs make an
 * overrun an error of the CQ). The producer calls it after it let go of
 * the QP's sq_lock or rq_lock, under which siw_cq_add() runs: a kernel
 * consumer's handler may poll, or post to the same QP, which takes them.
 * Any context.
 */
void siw_cq_notify(struct siw_cq *cq)
{
	struct ib_cq *base_cq = &cq->base_cq;

	if (atomic_xchg(&cq->err_due, 0) && base_cq->event_handler) {
		struct ib_event ev = {
			.device = base_cq->device,
			.element.cq = base_cq,
			.event = IB_EVENT_CQ_ERR,
		};

		base_cq->event_handler(&ev, base_cq->cq_context);
	}
	if (atomic_xchg(&cq->comp_due, 0) && base_cq->comp_handler)
		base_cq->comp_handler(base_cq, base_cq->cq_context);
}

/*
 * Adds one completion. Returns -ENOSPC when the CQ is full (the CQ error
 * event due); for a connected QP the caller then terminates it, since
 * the completion is lost. Called in any context; the caller delivers the
 * events with siw_cq_notify() once it holds no QP lock.
 */
int siw_cq_add(struct siw_cq *cq, const struct siw_cqe *src, bool solicited)
{
	struct siw_cqe *cqe;
	unsigned long flags;
	bool notify = false;
	u32 armed;

	spin_lock_irqsave(&cq->lock, flags);
	cqe = &cq->queue[cq->cq_put % cq->num_cqe];
	if (READ_ONCE(cqe->flags) & SIW_WQE_VALID) {
		spin_unlock_irqrestore(&cq->lock, flags);
		if (!atomic_xchg(&cq->overflowed, 1))
			atomic_set(&cq->err_due, 1);
		return -ENOSPC;
	}
	cqe->id = src->id;
	cqe->opcode = src->opcode;
	cqe->status = src->status;
	cqe->bytes = src->bytes;
	/* The union whole: imm_data, or inval_stag in its first bytes. */
	cqe->imm_data = src->imm_data;
	if (cq->user)
		cqe->qp_id = src->qp_id;
	else
		cqe->base_qp = src->base_qp;
	if (trace_siw_cqe_enabled())
		trace_siw_cqe(cq, cq->user ? (u32)src->qp_id :
			      src->base_qp ? src->base_qp->qp_num : 0, src);
	/* The entry's contents before its VALID flag. */
	smp_store_release(&cqe->flags, src->flags | SIW_WQE_VALID);
	cq->cq_put++;

	/*
	 * Store (VALID) then load (the arming): a release orders neither
	 * against the other, and a CPU may read ctrl->flags before the
	 * VALID store is visible. The consumer does the mirror image: it
	 * arms, with a full barrier (the provider's atomic store,
	 * smp_store_mb() in siw_req_notify_cq()), then polls. With a full
	 * barrier on both sides, either we see the arming or it sees this
	 * entry; without ours, both could miss, and a consumer sleeping in
	 * ibv_get_cq_event() never wakes for this completion (seen as an
	 * rping that hung after its peer's link was deleted).
	 */
	smp_mb();
	armed = READ_ONCE(cq->ctrl->flags);
	if ((armed & SIW_NOTIFY_NEXT_COMPLETION) ||
	    ((armed & SIW_NOTIFY_SOLICITED) && solicited)) {
		/* One event per arming, even if the consumer races. */
		notify = cmpxchg(&cq->ctrl->flags, armed, SIW_NOTIFY_NOT) == armed;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	if (notify)
		atomic_set(&cq->comp_due, 1);
	return 0;
}

/* Kernel CQs: the consumer side. */
int siw_poll_cq(struct ib_cq *base_cq, int num_entries, struct ib_wc *wc)
{
	struct siw_cq *cq = to_siw_cq(base_cq);
	unsigned long flags;
	int n;

	spin_lock_irqsave(&cq->poll_lock, flags);
	for (n = 0; n < num_entries; n++, wc++) {
		struct siw_cqe *cqe = &cq->queue[cq->cq_get % cq->num_cqe];
		const struct siw_wr_op *op;

		if (!(smp_load_acquire(&cqe->flags) & SIW_WQE_VALID))
			break;
		memset(wc, 0, sizeof(*wc));
		wc->wr_id = cqe->id;
		wc->status = cqe->status < SIW_NUM_WC_STATUS ?
			     siw_to_ib_wc_status[cqe->status] :
			     IB_WC_GENERAL_ERR;
		op = siw_wr_op(cqe->opcode);
		wc->opcode = op ? op->ib_wc : IB_WC_SEND;
		wc->byte_len = cqe->bytes;
		wc->qp = cqe->base_qp;
		if (cqe->flags & SIW_WQE_REM_INVAL) {
			wc->wc_flags = IB_WC_WITH_INVALIDATE;
			wc->ex.invalidate_rkey = cqe->inval_stag;
		} else if (cqe->flags & SIW_CQE_WITH_IMM) {
			wc->wc_flags = IB_WC_WITH_IMM;
			wc->ex.imm_data = cpu_to_be32((u32)cqe->imm_data);
		}
		/* Done with the entry: hand the slot back. */
		smp_store_release(&cqe->flags, 0);
		cq->cq_get++;
	}
	spin_unlock_irqrestore(&cq->poll_lock, flags);
	return n;
}

int siw_req_notify_cq(struct ib_cq *base_cq, enum ib_cq_notify_flags flags)
{
	struct siw_cq *cq = to_siw_cq(base_cq);
	u32 arm = (flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED ?
		  SIW_NOTIFY_SOLICITED :
		  SIW_NOTIFY_SOLICITED | SIW_NOTIFY_NEXT_COMPLETION;

	smp_store_mb(cq->ctrl->flags, arm);
	if (flags & IB_CQ_REPORT_MISSED_EVENTS) {
		struct siw_cqe *cqe = &cq->queue[cq->cq_get % cq->num_cqe];

		return !!(smp_load_acquire(&cqe->flags) & SIW_WQE_VALID);
	}
	return 0;
}
