// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * The receive queue of a QP without a shared one (srq.c has that):
 * posting, taking an element for an arriving Send, completing it, and
 * the flush. Receive completions of both kinds are made here.
 *
 * The receive path holds at most one element at a time (rq_held), from
 * the Send's first segment to its last; the slot stays VALID until the
 * element completes, and a flush waits for it.
 */
#include <rdma/ib_verbs.h>

#include "siw.h"
#include "qp.h"
#include "trace.h"

/* Completes one receive queue element. */
int siw_rqe_complete_done(struct siw_qp *qp, struct siw_rqe *rqe,
			  const struct siw_rqe_done *done,
			  enum siw_wc_status status)
{
	struct siw_cqe cqe = {
		.id = rqe->id,
		.opcode = SIW_OP_RECEIVE,
		.status = status,
		.bytes = done->bytes,
	};

	if (done->inval_stag) {
		cqe.flags = SIW_WQE_REM_INVAL;
		cqe.inval_stag = done->inval_stag;
	} else if (done->imm && status == SIW_WC_SUCCESS) {
		/* Only kernel QPs negotiate RFC 7306 (cm.c). */
		cqe.flags = SIW_CQE_WITH_IMM;
		cqe.imm_data = done->imm_data;
		if (done->rdma_imm)
			cqe.opcode = SIW_OP_RECV_RDMA_IMM;
	}
	if (qp->user)
		cqe.qp_id = qp->base_qp.qp_num;
	else
		cqe.base_qp = &qp->base_qp;
	return siw_cq_add(qp->rcq, &cqe, rqe->flags & SIW_WQE_SOLICITED);
}

int siw_rqe_complete(struct siw_qp *qp, struct siw_rqe *rqe, u32 bytes,
		     u32 inval_stag, enum siw_wc_status status)
{
	struct siw_rqe_done done = { .bytes = bytes, .inval_stag = inval_stag };

	return siw_rqe_complete_done(qp, rqe, &done, status);
}

/*
 * Flushes the posted receive queue elements, at most one lap of the ring
 * (see siw_sq_flush). Must hold rq_lock.
 */
void siw_rq_flush(struct siw_qp *qp)
{
	u32 n = 0;

	lockdep_assert_held(&qp->rq_lock);
	/*
	 * The receive path holds an older element: it completes first, and
	 * the connection's end (siw_qp_disconnected) flushes the rest.
	 */
	if (qp->rq_held)
		return;
	while (qp->recvq && n < qp->num_rqe) {
		struct siw_rqe *slot = &qp->recvq[qp->rq_get % qp->num_rqe];
		struct siw_rqe rqe;

		if (!(smp_load_acquire(&slot->flags) & SIW_WQE_VALID))
			break;
		memcpy(&rqe, slot, sizeof(rqe));
		rqe.flags = 0;
		/* The slot goes back before its completion shows. */
		smp_store_release(&slot->flags, 0);
		qp->rq_get++;
		if (siw_rqe_complete(qp, &rqe, 0, 0, SIW_WC_WR_FLUSH_ERR))
			break;
		n++;
	}
	if (n) {
		pr_debug("siw: QP %u: %u receives flushed\n",
			 qp->base_qp.qp_num, n);
		trace_siw_flush(qp, SIW_TRACE_RQ, n);
	}
}

/* Writes kernel receive work requests into a receive queue ring. */
int siw_post_rqes(struct siw_rqe *ring, u32 num, u32 *put, u32 max_sge,
		  const struct ib_recv_wr *wr, const struct ib_recv_wr **bad_wr)
{
	int err = 0, i;

	for (; wr; wr = wr->next) {
		struct siw_rqe *slot = &ring[*put % num];

		if (READ_ONCE(slot->flags) & SIW_WQE_VALID) {
			err = -ENOMEM;
			break;
		}
		if (wr->num_sge > max_sge) {
			err = -EINVAL;
			break;
		}
		slot->id = wr->wr_id;
		slot->num_sge = wr->num_sge;
		slot->opcode = SIW_OP_RECEIVE;
		for (i = 0; i < wr->num_sge; i++) {
			slot->sge[i].laddr = wr->sg_list[i].addr;
			slot->sge[i].length = wr->sg_list[i].length;
			slot->sge[i].lkey = wr->sg_list[i].lkey;
		}
		smp_store_release(&slot->flags, SIW_WQE_VALID);
		(*put)++;
	}
	if (err)
		*bad_wr = wr;
	return err;
}

int siw_post_recv(struct ib_qp *base_qp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr)
{
	struct siw_qp *qp = to_siw_qp(base_qp);
	unsigned long flags;
	bool error;
	int err;

	if (qp->user || qp->srq || siw_qp_in_reset(qp)) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->rq_lock, flags);
	err = siw_post_rqes(qp->recvq, qp->num_rqe, &qp->rq_put,
			    qp->max_recv_sge, wr, bad_wr);
	spin_unlock_irqrestore(&qp->rq_lock, flags);

	spin_lock_irqsave(&qp->state_lock, flags);
	error = siw_qp_in_error(qp);
	spin_unlock_irqrestore(&qp->state_lock, flags);
	/* Receives posted to a QP in error complete at once, flushed. */
	if (error)
		siw_qp_flush(qp);
	return err;
}

/* The bytes an element's SGEs take. */
u64 siw_rqe_len(const struct siw_rqe *rqe)
{
	u64 len = 0;
	u32 i;

	for (i = 0; i < min_t(u32, rqe->num_sge, SIW_MAX_SGE); i++)
		len += rqe->sge[i].length;
	return len;
}

/*
 * Takes the next receive element, from the shared receive queue if the
 * QP has one, into *rqe (our copy; at most SIW_MAX_SGE SGEs) and its slot
 * into *pos. The slot stays VALID, and the element held, until
 * siw_rq_complete_held(). The receive path's context.
 */
bool siw_rq_take(struct siw_qp *qp, struct siw_rqe *rqe, u32 *pos)
{
	unsigned long flags;
	bool ok = false;

	if (qp->srq) {
		ok = siw_srq_take(qp->srq, rqe);
		*pos = 0;
	} else {
		struct siw_rqe *slot;

		spin_lock_irqsave(&qp->rq_lock, flags);
		slot = &qp->recvq[qp->rq_get % qp->num_rqe];
		if (smp_load_acquire(&slot->flags) & SIW_WQE_VALID) {
			memcpy(rqe, slot, sizeof(*rqe));
			*pos = qp->rq_get++;
			qp->rq_held = true;
			ok = true;
		}
		spin_unlock_irqrestore(&qp->rq_lock, flags);
	}
	if (!ok)
		return false;
	if (rqe->num_sge > SIW_MAX_SGE)
		rqe->num_sge = SIW_MAX_SGE;
	if (trace_siw_wqe_start_enabled())
		trace_siw_wqe_start(qp, qp->srq ? SIW_TRACE_SRQ : SIW_TRACE_RQ,
				    *pos, rqe->id, SIW_OP_RECEIVE,
				    siw_rqe_len(rqe));
	return true;
}

/*
 * Completes the element siw_rq_take() gave, and lets go of it: only
 * now may a flush complete younger elements. Non-zero if the completion
 * queue overflowed.
 */
int siw_rq_complete_held(struct siw_qp *qp, struct siw_rqe *rqe, u32 pos,
			 const struct siw_rqe_done *done,
			 enum siw_wc_status status)
{
	unsigned long flags;
	int err;

	if (qp->srq) {
		err = siw_rqe_complete_done(qp, rqe, done, status);
	} else {
		/* The slot goes back before its completion shows. */
		smp_store_release(&qp->recvq[pos % qp->num_rqe].flags, 0);
		err = siw_rqe_complete_done(qp, rqe, done, status);
		spin_lock_irqsave(&qp->rq_lock, flags);
		qp->rq_held = false;
		spin_unlock_irqrestore(&qp->rq_lock, flags);
	}
	siw_cq_notify(qp->rcq);
	return err;
}
