// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * The send queue: posting (a kernel consumer's work requests converted
 * to elements; a user's doorbell), which element the transmitter starts
 * next, marking elements done, completing them in posting order, and the
 * flush.
 *
 * Ownership of a slot follows its VALID flag (uapi/rdma/siw-abi.h): the
 * poster sets it last, siw clears it when the element completed. The
 * transmitter works on its own copy of an element (tx.c). Counters:
 * sq_put (kernel posts), sq_next (the next to start), sq_get (the next
 * to complete); sq_get..sq_next are started and not yet completed. Each
 * slot's completion state (done, status, bytes) is in sq_state[].
 */
#include <rdma/ib_verbs.h>

#include "siw.h"
#include "qp.h"
#include "trace.h"
#include "wr_ops.h"

/*
 * Completes one send queue element and hands its slot back. The slot goes
 * back first: a consumer that sees the completion may post into it at
 * once (a queue of depth one does exactly that).
 */
int siw_sqe_complete(struct siw_qp *qp, struct siw_sqe *sqe, u32 bytes,
		     enum siw_wc_status status)
{
	struct siw_sqe *slot = &qp->sendq[qp->sq_get % qp->num_sqe];
	struct siw_cqe cqe = {};

	smp_store_release(&slot->flags, 0);
	/*
	 * Released after the slot: a lockless reader that sees the ring no
	 * longer full (siw_sq_peek) also sees the slot emptied.
	 */
	smp_store_release(&qp->sq_get, qp->sq_get + 1);
	if (!(sqe->flags & SIW_WQE_SIGNALLED) && !qp->sq_sig_all &&
	    status == SIW_WC_SUCCESS)
		return 0;
	cqe.id = sqe->id;
	cqe.opcode = sqe->opcode;
	cqe.status = status;
	cqe.bytes = bytes;
	if (qp->user)
		cqe.qp_id = qp->base_qp.qp_num;
	else
		cqe.base_qp = &qp->base_qp;
	return siw_cq_add(qp->scq, &cqe, false);
}

/*
 * Flushes the posted send queue elements, at most one lap of the ring: a
 * user QP's ring is mapped into the process, which may keep setting VALID
 * bits (and freeing completions) while we walk it with interrupts off.
 * What it posts meanwhile stays posted, as on any QP in error. Must hold
 * sq_lock.
 */
void siw_sq_flush(struct siw_qp *qp)
{
	unsigned long flags;
	u32 n = 0;

	lockdep_assert_held(&qp->sq_lock);
	/*
	 * The transmitter still reads the buffers of an element it started:
	 * nothing completes before it lets go, which then flushes.
	 */
	if (qp->sq_held) {
		qp->sq_flush_due = true;
		return;
	}
	/* Zero-copy messages still out complete nothing any more. */
	qp->sq_epoch++;
	spin_lock_irqsave(&qp->orq_lock, flags);
	qp->orq_get = qp->orq_put;
	qp->orq_done_bytes = 0;
	spin_unlock_irqrestore(&qp->orq_lock, flags);
	while (n < qp->num_sqe) {
		struct siw_sqe *slot = &qp->sendq[qp->sq_get % qp->num_sqe];
		struct siw_sqe sqe;

		if (!(smp_load_acquire(&slot->flags) & SIW_WQE_VALID))
			break;
		memcpy(&sqe, slot, sizeof(sqe));
		qp->sq_state[qp->sq_get % qp->num_sqe].done = 0;
		if (siw_sqe_complete(qp, &sqe, 0, SIW_WC_WR_FLUSH_ERR))
			break;	/* CQ full: the rest stays posted */
		n++;
	}
	if (n) {
		pr_debug("siw: QP %u: %u send queue elements flushed\n",
			 qp->base_qp.qp_num, n);
		trace_siw_flush(qp, SIW_TRACE_SQ, n);
	}
	/* Nothing started stays behind the flushed part. */
	if ((s32)(qp->sq_get - qp->sq_next) > 0)
		qp->sq_next = qp->sq_get;
}

/*
 * The send queue has new work: start it, or flush it when the QP is in
 * error. Work posted before the connection exists waits for it.
 */
void siw_sq_posted(struct siw_qp *qp)
{
	unsigned long flags;
	bool error, connected;

	spin_lock_irqsave(&qp->state_lock, flags);
	error = siw_qp_in_error(qp);
	connected = qp->connected;
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (error)
		siw_qp_flush(qp);
	else if (connected && qp->user)
		siw_tx_doorbell_run(qp);	/* a syscall: may transmit inline */
	else if (connected)
		siw_tx_queue_run(qp);	/* kernel posters may be atomic */
}

/* What the work request names beyond its SGEs, by the opcode's kind. */
static int siw_wr_fields(const struct siw_wr_op *op, const struct ib_send_wr *wr,
			 struct siw_sqe *sqe, struct siw_sqe_ext *ext)
{
	switch (op->kind) {
	case SIW_WR_ATOMIC:
		/* One 8-byte result buffer; an 8-byte aligned target. */
		if (wr->num_sge != 1 ||
		    wr->sg_list[0].length < SIW_ATOMIC_LEN ||
		    (atomic_wr(wr)->remote_addr & (SIW_ATOMIC_LEN - 1)) ||
		    (wr->send_flags & IB_SEND_INLINE))
			return -EINVAL;
		sqe->raddr = atomic_wr(wr)->remote_addr;
		sqe->rkey = atomic_wr(wr)->rkey;
		ext->compare_add = atomic_wr(wr)->compare_add;
		ext->swap = atomic_wr(wr)->swap;
		return 0;
	case SIW_WR_READ:
		if (wr->num_sge > op->max_sge)
			return -EINVAL;
		fallthrough;
	case SIW_WR_WRITE:
		sqe->raddr = rdma_wr(wr)->remote_addr;
		sqe->rkey = rdma_wr(wr)->rkey;
		break;
	case SIW_WR_REG_MR:
		sqe->base_mr = (uintptr_t)reg_wr(wr)->mr;
		sqe->rkey = reg_wr(wr)->key;
		sqe->access = reg_wr(wr)->access;
		return 0;
	default:
		break;
	}
	if (op->flags & SIW_WR_INV_KEY)
		sqe->rkey = wr->ex.invalidate_rkey;
	if (op->flags & SIW_WR_IMM)
		ext->imm = be32_to_cpu(wr->ex.imm_data);
	return 0;
}

/* The work request's SGEs, or their bytes inline. */
static int siw_wr_sges(struct siw_qp *qp, const struct siw_wr_op *op,
		       const struct ib_send_wr *wr, struct siw_sqe *sqe)
{
	u32 bytes = 0;
	int i;

	if (!(wr->send_flags & IB_SEND_INLINE)) {
		if (wr->num_sge > qp->max_send_sge)
			return -EINVAL;
		for (i = 0; i < wr->num_sge; i++) {
			sqe->sge[i].laddr = wr->sg_list[i].addr;
			sqe->sge[i].length = wr->sg_list[i].length;
			sqe->sge[i].lkey = wr->sg_list[i].lkey;
		}
		sqe->num_sge = wr->num_sge;
		return 0;
	}
	if (!(op->flags & SIW_WR_PAYLOAD))
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++) {
		u32 len = wr->sg_list[i].length;

		if (len > qp->max_inline - bytes)
			return -EINVAL;
		memcpy((char *)&sqe->sge[1] + bytes,
		       (void *)(uintptr_t)wr->sg_list[i].addr, len);
		bytes += len;
	}
	sqe->sge[0].length = bytes;
	sqe->num_sge = 1;
	sqe->flags |= SIW_WQE_INLINE;
	return 0;
}

static int siw_wr_to_sqe(struct siw_qp *qp, const struct ib_send_wr *wr,
			 struct siw_sqe *sqe, struct siw_sqe_ext *ext)
{
	int opcode = siw_wr_opcode_of(wr->opcode);
	const struct siw_wr_op *op;
	int err;

	memset(sqe, 0, sizeof(*sqe));
	memset(ext, 0, sizeof(*ext));
	if (opcode < 0)
		return opcode;
	op = siw_wr_op(opcode);
	/*
	 * RFC 7306: only on a connection whose peer said it takes them (a
	 * siw peer, mpa_rfc7306); with any other, nothing goes on the wire.
	 */
	if ((op->flags & SIW_WR_EXT) && !READ_ONCE(qp->ext))
		return -EOPNOTSUPP;
	sqe->id = wr->wr_id;
	sqe->opcode = opcode;
	err = siw_wr_fields(op, wr, sqe, ext);
	if (err)
		return err;
	if (wr->send_flags & IB_SEND_SIGNALED)
		sqe->flags |= SIW_WQE_SIGNALLED;
	if (wr->send_flags & IB_SEND_SOLICITED)
		sqe->flags |= SIW_WQE_SOLICITED;
	if (wr->send_flags & IB_SEND_FENCE)
		sqe->flags |= SIW_WQE_READ_FENCE;
	/* Registration and invalidation name no buffers. */
	if (op->kind == SIW_WR_REG_MR || op->kind == SIW_WR_INVAL)
		return 0;
	return siw_wr_sges(qp, op, wr, sqe);
}

/*
 * Kernel consumers post work requests here. User consumers write their
 * elements into the mapped queue themselves and call here with no work
 * request: the doorbell.
 */
int siw_post_send(struct ib_qp *base_qp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr)
{
	struct siw_qp *qp = to_siw_qp(base_qp);
	unsigned long flags;
	int err = 0;

	if (qp->user) {
		if (wr) {
			*bad_wr = wr;
			return -EINVAL;
		}
		siw_sq_posted(qp);
		return 0;
	}
	/* A QP in RESET has no queues to post to: an immediate error. */
	if (siw_qp_in_reset(qp)) {
		*bad_wr = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&qp->sq_lock, flags);
	for (; wr; wr = wr->next) {
		struct siw_sqe *slot = &qp->sendq[qp->sq_put % qp->num_sqe];
		struct siw_sqe_ext ext;
		struct siw_sqe sqe;

		if (READ_ONCE(slot->flags) & SIW_WQE_VALID) {
			err = -ENOMEM;
			break;
		}
		err = siw_wr_to_sqe(qp, wr, &sqe, &ext);
		if (err)
			break;
		qp->sq_ext[qp->sq_put % qp->num_sqe] = ext;
		memcpy(slot, &sqe, sizeof(sqe));
		smp_store_release(&slot->flags, sqe.flags | SIW_WQE_VALID);
		qp->sq_put++;
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (err)
		*bad_wr = wr;
	siw_sq_posted(qp);
	return err;
}

/* The slot after the last started one: a new element, nothing, or no room. */
enum siw_sq_next siw_sq_peek(struct siw_qp *qp)
{
	const struct siw_sqe *slot = &qp->sendq[qp->sq_next % qp->num_sqe];

	/*
	 * sq_get..sq_next are started, not yet completed, and still VALID:
	 * with the ring full, the next slot is one of them, not a new one.
	 */
	if (qp->sq_next - smp_load_acquire(&qp->sq_get) >= qp->num_sqe)
		return SIW_SQ_FULL;
	if (!(smp_load_acquire(&slot->flags) & SIW_WQE_VALID))
		return SIW_SQ_EMPTY;
	return SIW_SQ_READY;
}

bool siw_sq_startable(struct siw_qp *qp)
{
	return siw_sq_peek(qp) == SIW_SQ_READY;
}

/*
 * The transmitter starts slot pos, which it copied: held (sq_held) until
 * it lets go (siw_sq_release_held), so a flush meanwhile waits. False if
 * a flush completed the slot since it looked.
 */
bool siw_sq_start(struct siw_qp *qp, u32 pos)
{
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&qp->sq_lock, flags);
	ok = qp->sq_next == pos;
	if (ok) {
		qp->sq_next++;
		qp->sq_held = true;
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	return ok;
}

/* Is slot pos started and not yet completed? Must hold sq_lock. */
static bool siw_sq_slot_live(struct siw_qp *qp, u32 pos)
{
	lockdep_assert_held(&qp->sq_lock);
	return (s32)(pos - qp->sq_get) >= 0 && (s32)(qp->sq_next - pos) > 0;
}

/*
 * Slot pos is done with status and bytes, unless it is no longer live;
 * with @epoch_checked also unless the send queue was flushed since
 * @epoch or the slot is done already. Then completes in order.
 */
static void siw_sq_mark(struct siw_qp *qp, u32 pos, bool epoch_checked,
			u32 epoch, enum siw_wc_status status, u32 bytes)
{
	struct siw_sq_state *st = &qp->sq_state[pos % qp->num_sqe];
	unsigned long flags;
	bool live;

	spin_lock_irqsave(&qp->sq_lock, flags);
	live = siw_sq_slot_live(qp, pos) &&
	       (!epoch_checked || (epoch == qp->sq_epoch && !st->done));
	if (live) {
		st->status = status;
		st->bytes = bytes;
		st->done = 1;
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (live)
		siw_sq_complete_ready(qp);
}

/*
 * Marks send queue slot pos ready to complete, then completes in order.
 * A slot a flush completed meanwhile (no longer between sq_get and
 * sq_next) stays as the flush left it: a done bit set there would
 * complete whatever is posted into the slot next, after a reconnect.
 */
void siw_sq_mark_done(struct siw_qp *qp, u32 pos,
		      enum siw_wc_status status, u32 bytes)
{
	siw_sq_mark(qp, pos, false, 0, status, bytes);
}

/*
 * Completes every element at the head of the send queue that may complete,
 * in posting order. Afterwards looks at the next unstarted slot: a user
 * who saw our last slot still VALID did not ring the doorbell.
 */
void siw_sq_complete_ready(struct siw_qp *qp)
{
	unsigned long flags;
	bool more, overflow = false;

	spin_lock_irqsave(&qp->sq_lock, flags);
	while ((s32)(qp->sq_next - qp->sq_get) > 0) {
		struct siw_sq_state *st = &qp->sq_state[qp->sq_get % qp->num_sqe];
		struct siw_sqe sqe;

		if (!st->done)
			break;
		st->done = 0;
		memcpy(&sqe, &qp->sendq[qp->sq_get % qp->num_sqe], sizeof(sqe));
		pr_debug("siw: QP %u: complete sqe %u status %u\n",
			 qp->base_qp.qp_num, qp->sq_get, st->status);
		/* After one work request failed, the rest are flushed. */
		if (qp->sq_failed && st->status == SIW_WC_SUCCESS)
			st->status = SIW_WC_WR_FLUSH_ERR;
		if (st->status != SIW_WC_SUCCESS)
			qp->sq_failed = true;
		/* Failing the QP flushes the queue: not under sq_lock. */
		if (siw_sqe_complete(qp, &sqe, st->bytes, st->status))
			overflow = true;
	}
	more = siw_sq_startable(qp);
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	siw_cq_notify(qp->scq);
	pr_debug("siw: QP %u: sq_get %u sq_next %u more %d\n",
		 qp->base_qp.qp_num, qp->sq_get, qp->sq_next, more);
	if (overflow) {
		siw_qp_terminate(qp, SIW_TERM_RDMAP_CATASTROPHIC, NULL, 0);
		return;
	}
	if (more)
		siw_tx_wake(qp);
}

/*
 * The transmitter lets go of the element it started (siw_tx_sqe). A flush
 * that came meanwhile left the send queue alone (siw_sq_flush): the
 * element's buffers were still being read. It is done now.
 */
void siw_sq_release_held(struct siw_qp *qp)
{
	unsigned long flags;
	bool flush;

	spin_lock_irqsave(&qp->sq_lock, flags);
	qp->sq_held = false;
	flush = qp->sq_flush_due;
	qp->sq_flush_due = false;
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (flush)
		siw_qp_flush(qp);
}

/*
 * The last reference to a zero-copy message went (tx_zc.c): slot pos is
 * done, unless the send queue was flushed since the message started
 * (epoch) or the slot completed otherwise. Any context but hard IRQ.
 */
void siw_sq_zc_done(struct siw_qp *qp, u32 pos, u32 epoch,
		    enum siw_wc_status status, u32 bytes)
{
	siw_sq_mark(qp, pos, true, epoch, status, bytes);
}
