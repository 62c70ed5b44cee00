// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * Shared receive queues: a ring of struct siw_rqe like a QP's receive
 * queue, consumed by every QP attached to it, with the limit event.
 */
#include <linux/log2.h>
#include <linux/vmalloc.h>
#include <rdma/uverbs_ioctl.h>

#include "siw.h"
#include "qp.h"

int siw_create_srq(struct ib_srq *base_srq, struct ib_srq_init_attr *attr,
		   struct ib_udata *udata)
{
	struct siw_device *sdev = to_siw_dev(base_srq->device);
	struct siw_srq *srq = to_siw_srq(base_srq);
	struct siw_uresp_create_srq uresp = {};
	size_t size;
	int err;

	if (attr->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!attr->attr.max_wr || attr->attr.max_wr > SIW_MAX_SRQ_WR ||
	    attr->attr.max_sge > SIW_MAX_SGE ||
	    attr->attr.srq_limit > attr->attr.max_wr)
		return -EINVAL;
	if (udata && udata->outlen < sizeof(uresp))
		return -EINVAL;
	if (atomic_inc_return(&sdev->num_srq) > SIW_MAX_SRQ) {
		err = -ENOMEM;
		goto err_count;
	}

	spin_lock_init(&srq->lock);
	srq->num_rqe = roundup_pow_of_two(attr->attr.max_wr);
	srq->limit = attr->attr.srq_limit;
	srq->armed = srq->limit != 0;
	srq->user = !!udata;
	size = srq->num_rqe * sizeof(struct siw_rqe);
	srq->recvq = siw_queue_alloc(size);
	if (!srq->recvq) {
		err = -ENOMEM;
		goto err_count;
	}
	if (udata) {
		err = siw_queue_map(udata, srq->recvq, size, &srq->umap,
				    &uresp.srq_key);
		if (err) {
			vfree(srq->recvq);
			goto err_count;
		}
		uresp.num_rqe = srq->num_rqe;
		err = ib_copy_to_udata(udata, &uresp, sizeof(uresp));
		if (err) {
			siw_queue_unmap(srq->umap);
			goto err_count;
		}
	}
	attr->attr.max_wr = srq->num_rqe;
	attr->attr.max_sge = SIW_MAX_SGE;
	return 0;

err_count:
	atomic_dec(&sdev->num_srq);
	return err;
}

int siw_destroy_srq(struct ib_srq *base_srq, struct ib_udata *udata)
{
	struct siw_srq *srq = to_siw_srq(base_srq);

	if (srq->umap)
		siw_queue_unmap(srq->umap);
	else
		vfree(srq->recvq);
	atomic_dec(&to_siw_dev(base_srq->device)->num_srq);
	return 0;
}

int siw_modify_srq(struct ib_srq *base_srq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct siw_srq *srq = to_siw_srq(base_srq);
	unsigned long flags;
	int err = 0;

	/* The queue lives in shared memory: it cannot be resized. */
	if (mask & IB_SRQ_MAX_WR)
		return -EOPNOTSUPP;
	spin_lock_irqsave(&srq->lock, flags);
	if (mask & IB_SRQ_LIMIT) {
		if (attr->srq_limit > srq->num_rqe) {
			err = -EINVAL;
		} else {
			srq->limit = attr->srq_limit;
			srq->armed = attr->srq_limit != 0;
		}
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	return err;
}

int siw_query_srq(struct ib_srq *base_srq, struct ib_srq_attr *attr)
{
	struct siw_srq *srq = to_siw_srq(base_srq);
	unsigned long flags;

	spin_lock_irqsave(&srq->lock, flags);
	attr->max_wr = srq->num_rqe;
	attr->max_sge = SIW_MAX_SGE;
	attr->srq_limit = srq->armed ? srq->limit : 0;
	spin_unlock_irqrestore(&srq->lock, flags);
	return 0;
}

int siw_post_srq_recv(struct ib_srq *base_srq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr)
{
	struct siw_srq *srq = to_siw_srq(base_srq);
	unsigned long flags;
	int err;

	if (srq->user) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&srq->lock, flags);
	err = siw_post_rqes(srq->recvq, srq->num_rqe, &srq->rq_put,
			    SIW_MAX_SGE, wr, bad_wr);
	spin_unlock_irqrestore(&srq->lock, flags);
	return err;
}

/*
 * Takes the next receive element off the SRQ into *rqe, hands the slot
 * back, and fires the limit event when fewer than 'limit' elements remain.
 * Returns false when the SRQ is empty. Any context.
 */
bool siw_srq_take(struct siw_srq *srq, struct siw_rqe *rqe)
{
	struct siw_rqe *slot;
	unsigned long flags;
	bool fire = false;

	spin_lock_irqsave(&srq->lock, flags);
	slot = &srq->recvq[srq->rq_get % srq->num_rqe];
	if (!(smp_load_acquire(&slot->flags) & SIW_WQE_VALID)) {
		spin_unlock_irqrestore(&srq->lock, flags);
		return false;
	}
	memcpy(rqe, slot, sizeof(*rqe));
	smp_store_release(&slot->flags, 0);
	srq->rq_get++;
	if (srq->armed) {
		/* Below the limit when the element 'limit' ahead is unposted. */
		u32 ahead = (srq->rq_get + srq->limit - 1) % srq->num_rqe;

		if (!(READ_ONCE(srq->recvq[ahead].flags) & SIW_WQE_VALID)) {
			srq->armed = false;
			fire = true;
		}
	}
	spin_unlock_irqrestore(&srq->lock, flags);

	if (fire && srq->base_srq.event_handler) {
		struct ib_event ev = {
			.device = srq->base_srq.device,
			.element.srq = &srq->base_srq,
			.event = IB_EVENT_SRQ_LIMIT_REACHED,
		};

		srq->base_srq.event_handler(&ev, srq->base_srq.srq_context);
	}
	return true;
}
