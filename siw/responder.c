// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * The responder side: inbound RDMA Read and Atomic Requests, queued by
 * the receive path in the order they came (qp->irq, at most IRD of them)
 * and answered by the transmitter, one at a time, before the send queue
 * goes on: a Read Response from the named source, an Atomic Response
 * after executing the operation on its target.
 *
 * The receive path checks a request when it arrives (rx_decide.c); the
 * target is checked again here, as it may have been invalidated since.
 */
#include <linux/mm.h>

#include "tx.h"
#include "trace.h"

/*
 * Executes an inbound Atomic Request on its target and sends the Atomic
 * Response with the value found. It runs here, in the order the requests
 * came, after every Read Request that came before it was answered, as
 * Reads are. The target was checked when the request arrived (rx.c); it
 * is checked again, as it may have been invalidated since.
 */
static int siw_tx_atomic_response(struct siw_qp *qp,
				  const struct siw_atomic_req *a)
{
	struct siw_device *sdev = qp->sdev;
	enum siw_term_code code;
	struct siw_mem_view view;
	struct siw_mem_seg seg;
	struct siw_tx_msg *m;
	struct siw_mem *mem;
	unsigned long flags;
	u64 *target, orig = 0;

	lockdep_assert_held(&qp->tx_lock);
	mem = siw_mem_get(sdev, a->stag);
	siw_mem_view_of(mem, qp->base_qp.pd, IB_ACCESS_REMOTE_ATOMIC, &view);
	code = siw_check_atomic(&view, a);
	/*
	 * Aligned, so the 8 bytes never cross a page; and the kernel address
	 * too, which follows the tagged offset only as the MR maps it.
	 */
	if (code == SIW_TERM_OK &&
	    (siw_mem_seg(mem, a->to, SIW_ATOMIC_LEN, &seg) ||
	     seg.len < SIW_ATOMIC_LEN))
		code = SIW_TERM_RDMAP_BASE_BOUNDS;
	else if (code == SIW_TERM_OK && (seg.off & (SIW_ATOMIC_LEN - 1)))
		code = SIW_TERM_RDMAP_CATASTROPHIC_STREAM;	/* as in rx */
	if (code != SIW_TERM_OK) {
		if (mem)
			siw_mem_put(mem);
		siw_qp_terminate(qp, code, NULL, 0);
		return -EACCES;
	}
	target = page_address(seg.page) + seg.off;
	spin_lock(&sdev->atomic_lock);
	/* Not once the region was invalidated or deregistered meanwhile. */
	if (siw_mem_access_begin(mem, &flags)) {
		orig = READ_ONCE(*target);
		WRITE_ONCE(*target, siw_atomic_result(a, orig));
		siw_mem_access_end(mem, flags);
	} else {
		view.valid = false;
		code = siw_check_atomic(&view, a);
	}
	spin_unlock(&sdev->atomic_lock);
	siw_mem_put(mem);
	if (code != SIW_TERM_OK) {
		siw_qp_terminate(qp, code, NULL, 0);
		return -EACCES;
	}

	m = siw_tx_msg_new(qp, SIW_TX_MSG_ATOMIC_RESP);
	m->h.opcode = SIW_RDMAP_ATOMIC_RESP;
	m->h.msn = qp->tx_msn[SIW_QN_ATOMIC_RESP]++;
	m->h.atomic_resp.req_id = a->req_id;
	m->h.atomic_resp.orig = orig;
	return siw_tx_msg_prepare(qp, m, 0);
}

/* The answer to the oldest inbound Read Request, as the QP's message. */
static int siw_tx_read_response(struct siw_qp *qp, struct siw_irq_entry *e)
{
	struct siw_tx_msg *m = siw_tx_msg_new(qp, SIW_TX_MSG_READ_RESP);
	enum siw_term_code code = SIW_TERM_OK;
	struct siw_tx_src *src = &m->src;

	lockdep_assert_held(&qp->tx_lock);
	m->rreq = e->rreq;
	m->h.opcode = SIW_RDMAP_READ_RESP;
	m->h.stag = e->rreq.sink_stag;
	m->h.to = e->rreq.sink_to;
	if (e->rreq.size) {
		struct siw_mem_view view;
		struct siw_mem *mem;

		mem = siw_mem_get(qp->sdev, e->rreq.src_stag);
		siw_mem_view_of(mem, qp->base_qp.pd, IB_ACCESS_REMOTE_READ,
				&view);
		code = siw_check_tagged(&view, e->rreq.src_to, e->rreq.size,
					SIW_TAG_SOURCE);
		if (code != SIW_TERM_OK) {
			if (mem)
				siw_mem_put(mem);
			m->kind = SIW_TX_MSG_NONE;
			siw_qp_terminate(qp, code, NULL, 0);
			return -EACCES;
		}
		src->piece[0].mem = mem;
		src->piece[0].addr = e->rreq.src_to;
		src->piece[0].len = e->rreq.size;
		src->num = 1;
		src->total = e->rreq.size;
		src->bounce = true;
	}
	return siw_tx_msg_prepare(qp, m, src->total);
}

/* The end of a Read Response, sent or not. */
void siw_tx_read_response_end(struct siw_qp *qp, struct siw_tx_msg *m,
				     int err)
{
	siw_tx_bounce_drop(qp);
	siw_tx_src_release(&m->src);
	/*
	 * Invalidated or deregistered while the response went out: the rest
	 * is not sent, and the Read Request is answered as if it had named
	 * an invalid STag from the start (its first bytes left while valid).
	 */
	if (err == -EKEYREVOKED) {
		struct siw_mem_view view = {};

		siw_qp_terminate(qp, siw_check_tagged(&view, m->rreq.src_to,
						      m->rreq.size,
						      SIW_TAG_SOURCE),
				 NULL, 0);
	}
}

/* Answers the oldest inbound Read or Atomic Request. */
int siw_tx_inbound_response(struct siw_qp *qp, struct siw_irq_entry *e)
{
	if (e->atomic)
		return siw_tx_atomic_response(qp, &e->areq);
	return siw_tx_read_response(qp, e);
}

/*
 * The oldest inbound Read Request still to answer, copied to *e; false
 * when there is none. Only a tx_lock holder takes entries (siw_irq_pop),
 * so what it peeks stays the oldest until it pops it.
 */
bool siw_irq_peek(struct siw_qp *qp, struct siw_irq_entry *e)
{
	unsigned long flags;
	bool have = false;

	lockdep_assert_held(&qp->tx_lock);
	spin_lock_irqsave(&qp->irq_lock, flags);
	if (qp->irq_get != qp->irq_put) {
		*e = qp->irq[qp->irq_get % qp->irq_size];
		have = true;
	}
	spin_unlock_irqrestore(&qp->irq_lock, flags);
	return have;
}

/* Frees the slot of the entry siw_irq_peek() returned. */
void siw_irq_pop(struct siw_qp *qp)
{
	unsigned long flags;

	lockdep_assert_held(&qp->tx_lock);
	spin_lock_irqsave(&qp->irq_lock, flags);
	qp->irq_get++;
	spin_unlock_irqrestore(&qp->irq_lock, flags);
}

/*
 * In a doorbell or the receive softirq: answers the oldest inbound Read
 * Request if its response fits (siw_tx_doorbell_fits), so it leaves from
 * the user's system call or the softirq that received the request
 * rather than from the worker, woken for it.
 * SIW_TX_EMPTY: none pending; SIW_TX_DEFER: one that does not fit.
 */
enum siw_tx_step siw_tx_doorbell_read_response(struct siw_qp *qp,
						      u32 *budget)
{
	enum siw_tx_step step;
	struct siw_irq_entry e;

	if (!siw_irq_peek(qp, &e))
		return SIW_TX_EMPTY;
	/* sdev->atomic_lock is a process-context lock: not in softirq. */
	if (e.atomic && qp->tx_in_softirq)
		return SIW_TX_DEFER;
	if (!siw_tx_doorbell_fits(qp, e.atomic ? 0 : e.rreq.size, budget))
		return SIW_TX_DEFER;
	siw_irq_pop(qp);
	step = siw_tx_msg_go(qp, siw_tx_inbound_response(qp, &e));
	if (step != SIW_TX_BLOCKED && !qp->tx_in_softirq)
		WRITE_ONCE(qp->tx_db_read_resps, qp->tx_db_read_resps + 1);
	return step;
}

/*
 * Queues an inbound Read or Atomic Request (h) for its response. The
 * receive path checked it against the IRD. Receive context.
 */
void siw_irq_push(struct siw_qp *qp, const struct siw_hdr *h, bool atomic)
{
	struct siw_irq_entry *ie;
	unsigned long flags;

	if (!atomic)
		trace_siw_read_request(qp, SIW_TRACE_IRQ, &h->rreq);
	spin_lock_irqsave(&qp->irq_lock, flags);
	ie = &qp->irq[qp->irq_put % qp->irq_size];
	ie->atomic = atomic;
	if (atomic)
		ie->areq = h->atomic;
	else
		ie->rreq = h->rreq;
	qp->irq_put++;
	spin_unlock_irqrestore(&qp->irq_lock, flags);
}
