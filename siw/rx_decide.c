// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * The receive path's per-segment decisions, over a snapshot of the QP's
 * receive state (rx_decide.h). Part of the protocol core: plain C, built
 * into siw.ko and into the host's unit tests and fuzzers, so that the
 * code the fuzzer drives is the code the module runs.
 *
 * TCP delivers in order, so each untagged queue expects exactly one MSN
 * next, and each Send message's segments arrive at increasing MO; a Read
 * Response belongs to the oldest outstanding Read; a Read Request takes
 * one of the IRD slots agreed until its Response is sent. The checks are
 * the core's (ddp_check.c); this file says which apply to a segment, in
 * which order, and what follows from it.
 */
#include "rx_decide.h"

static bool knows(const struct siw_rx_snap *s, enum siw_rx_need need)
{
	return s->known & SIW_RX_KNOWS(need);
}

/*
 * Responder in peer-to-peer mode: the first FPDU must be the RTR chosen
 * in the MPA reply (RFC 6581 section 8), a one-segment zero-length
 * message. A Read RTR goes on as a Read Request and is answered like one;
 * a Send RTR takes its MSN but no receive element.
 */
static enum siw_term_code check_rtr(const struct siw_rx_snap *s,
				    const struct siw_hdr *h,
				    struct siw_rx_dec *d)
{
	bool ok;

	switch (s->state.rtr_await) {
	case SIW_RTR_WRITE:
		ok = h->opcode == SIW_RDMAP_WRITE && !h->payload_len;
		break;
	case SIW_RTR_READ:
		ok = h->opcode == SIW_RDMAP_READ_REQ && !h->rreq.size;
		break;
	case SIW_RTR_SEND:
		ok = h->opcode == SIW_RDMAP_SEND && !h->payload_len && !h->mo;
		break;
	default:
		ok = false;
	}
	if (!ok || !h->last)
		return SIW_TERM_MPA_NO_RTR;
	d->next.rtr_frame = true;
	if (h->opcode == SIW_RDMAP_SEND)
		return siw_ddp_check_msn(s->state.msn[SIW_QN_SEND], h->msn,
					 true);
	return SIW_TERM_OK;
}

/* Asks for the memory of a tagged access; true once it is known. */
static bool want_mem(const struct siw_rx_snap *s, struct siw_rx_dec *d,
		     enum siw_rx_mem_kind kind, u32 stag, u64 to, u64 len)
{
	d->mem.kind = kind;
	d->mem.stag = stag;
	d->mem.to = to;
	d->mem.len = len;
	if (knows(s, SIW_RX_NEED_MEM))
		return true;
	d->need = SIW_RX_NEED_MEM;
	return false;
}

/*
 * A Send segment. The first segment of a message (MO 0, no element held)
 * takes a receive element, if one is posted, before its MSN is checked.
 * Later segments go to the held element, at the MO that follows the last.
 */
static void decide_send(const struct siw_rx_snap *s, const struct siw_hdr *h,
			struct siw_rx_dec *d)
{
	u32 expect_mo = s->state.mo;

	if (!s->rqe_held) {
		bool got;

		if (h->mo == 0 && !knows(s, SIW_RX_NEED_RQE)) {
			d->need = SIW_RX_NEED_RQE;
			return;
		}
		got = h->mo == 0 && s->rqe_taken;
		d->code = siw_ddp_check_msn(s->state.msn[SIW_QN_SEND], h->msn,
					    got);
		if (d->code != SIW_TERM_OK)
			return;
		d->next.mo = 0;
		expect_mo = 0;
	} else {
		d->code = siw_ddp_check_msn(s->state.msn[SIW_QN_SEND], h->msn,
					    true);
		if (d->code != SIW_TERM_OK)
			return;
	}
	d->code = siw_ddp_check_mo(expect_mo, h->mo);
	if (d->code != SIW_TERM_OK)
		return;
	d->code = siw_ddp_check_untagged_len(s->rqe_len, h->mo, h->payload_len);
	if (d->code == SIW_TERM_OK)
		d->place = SIW_RX_PLACE_RQE;
}

/* A Read Response: for the oldest outstanding Read, into its sink. */
static void decide_read_resp(const struct siw_rx_snap *s,
			     const struct siw_hdr *h, struct siw_rx_dec *d)
{
	u64 left;

	if (!knows(s, SIW_RX_NEED_ORQ)) {
		d->need = SIW_RX_NEED_ORQ;
		return;
	}
	/* Done never passes the length; were it to, nothing is left. */
	left = s->orq.done < s->orq.len ? s->orq.len - s->orq.done : 0;
	/* The oldest outstanding request is an atomic: not ours. */
	if (s->orq.have && s->orq.atomic) {
		d->code = SIW_TERM_RDMAP_OPCODE;
		return;
	}
	d->code = siw_check_read_resp(s->orq.have, s->orq.sink_stag,
				      s->orq.sink_to + s->orq.done, left, h);
	if (d->code != SIW_TERM_OK || !h->payload_len)
		return;
	/*
	 * A Read into several SGEs: the offset from the named sink, which
	 * the check above fixed at 'done', picks the SGE; the receiver
	 * checks each SGE's memory as it places into it.
	 */
	if (s->orq.sgl) {
		d->place = SIW_RX_PLACE_READ_SGL;
		d->sgl_off = s->orq.done;
		return;
	}
	if (!want_mem(s, d, SIW_RX_MEM_READ_SINK, h->stag, h->to,
		      h->payload_len))
		return;
	d->code = siw_check_tagged(&s->mem, h->to, h->payload_len,
				   SIW_TAG_SINK);
	if (d->code == SIW_TERM_OK)
		d->place = SIW_RX_PLACE_TAGGED;
}

/*
 * A request on the Read Request queue (a Read's, or RFC 7306's Atomic
 * Request): in sequence, and within the IRD they share. True when it may
 * go on to its memory.
 */
static bool rreq_queue_admits(const struct siw_rx_snap *s,
			      const struct siw_hdr *h, struct siw_rx_dec *d)
{
	u32 ird = s->ird < s->irq_size ? s->ird : s->irq_size;

	d->code = siw_ddp_check_msn(s->state.msn[SIW_QN_RREQ], h->msn, true);
	if (d->code != SIW_TERM_OK)
		return false;
	if (!knows(s, SIW_RX_NEED_IRQ)) {
		d->need = SIW_RX_NEED_IRQ;
		return false;
	}
	d->code = siw_check_ird(s->irq_queued, ird);
	return d->code == SIW_TERM_OK;
}

/* A Read Request: in sequence, within the IRD, from readable memory. */
static void decide_read_req(const struct siw_rx_snap *s,
			    const struct siw_hdr *h, struct siw_rx_dec *d)
{
	if (!rreq_queue_admits(s, h, d) || !h->rreq.size)
		return;
	if (!want_mem(s, d, SIW_RX_MEM_READ_SOURCE, h->rreq.src_stag,
		      h->rreq.src_to, h->rreq.size))
		return;
	d->code = siw_check_tagged(&s->mem, h->rreq.src_to, h->rreq.size,
				   SIW_TAG_SOURCE);
}

/*
 * RFC 7306 Immediate Data, with siw's meaning of its second word: the
 * immediate of the Send that follows (no receive consumed now), or a
 * message that takes a receive of its own (after an RDMA Write, or
 * alone). Nothing may come between an immediate and its Send, and no
 * message starts while a Send is half received.
 */
static void decide_imm(const struct siw_rx_snap *s, const struct siw_hdr *h,
		       struct siw_rx_dec *d)
{
	u32 desc = (u32)h->imm;

	if (desc != SIW_IMM_PLAIN && desc != SIW_IMM_FOR_SEND &&
	    desc != SIW_IMM_FOR_WRITE) {
		d->code = SIW_TERM_RDMAP_OP_UNSPEC;
		return;
	}
	if (s->state.imm_pending || s->rqe_held) {
		d->code = SIW_TERM_RDMAP_OPCODE;
		return;
	}
	/* Kind 2 comes right behind the RDMA Write it ends. */
	if (desc == SIW_IMM_FOR_WRITE && !s->state.write_ended) {
		d->code = SIW_TERM_RDMAP_OPCODE;
		return;
	}
	if (desc == SIW_IMM_FOR_SEND) {
		d->code = siw_ddp_check_msn(s->state.msn[SIW_QN_SEND], h->msn,
					    true);
		return;
	}
	if (!knows(s, SIW_RX_NEED_RQE)) {
		d->need = SIW_RX_NEED_RQE;
		return;
	}
	d->code = siw_ddp_check_msn(s->state.msn[SIW_QN_SEND], h->msn,
				    s->rqe_taken);
}

/*
 * RFC 7306 Atomic Request: on the Read Request queue, within the IRD it
 * shares with Reads, on 8 aligned bytes of memory open to remote atomics.
 */
static void decide_atomic_req(const struct siw_rx_snap *s,
			      const struct siw_hdr *h, struct siw_rx_dec *d)
{
	if (!rreq_queue_admits(s, h, d))
		return;
	if (!want_mem(s, d, SIW_RX_MEM_ATOMIC, h->atomic.stag, h->atomic.to,
		      SIW_ATOMIC_LEN))
		return;
	d->code = siw_check_atomic(&s->mem, &h->atomic);
}

/* RFC 7306 Atomic Response: for the oldest outstanding request, an atomic. */
static void decide_atomic_resp(const struct siw_rx_snap *s,
			       const struct siw_hdr *h, struct siw_rx_dec *d)
{
	d->code = siw_ddp_check_msn(s->state.msn[SIW_QN_ATOMIC_RESP], h->msn,
				    true);
	if (d->code != SIW_TERM_OK)
		return;
	if (!knows(s, SIW_RX_NEED_ORQ)) {
		d->need = SIW_RX_NEED_ORQ;
		return;
	}
	/* A response nobody asked for, or one before a Read's. */
	if (!s->orq.have || !s->orq.atomic)
		d->code = SIW_TERM_RDMAP_OPCODE;
	else if (h->atomic_resp.req_id != s->orq.atomic_id)
		d->code = SIW_TERM_RDMAP_OP_UNSPEC;
}

void siw_rx_decide_begin(const struct siw_rx_snap *s, const struct siw_hdr *h,
			 struct siw_rx_dec *d)
{
	const struct siw_op_info *op = siw_op_info(h->opcode);

	memset(d, 0, sizeof(*d));
	d->code = SIW_TERM_OK;
	d->next = s->state;
	/* Set again if this FPDU is the RTR awaited (check_rtr()). */
	d->next.rtr_frame = false;

	/*
	 * A flush completed the QP's work requests: nothing is taken from
	 * its queues or placed any more, whatever the peer sends.
	 */
	if (s->flushed) {
		d->drop = true;
		return;
	}

	/*
	 * An immediate for a Send (SIW_IMM_FOR_SEND) is followed by that
	 * Send, a plain one: nothing else may come between.
	 */
	if (s->state.imm_pending && h->opcode != SIW_RDMAP_TERMINATE &&
	    (!op || op->kind != SIW_MSG_SEND || op->inval)) {
		d->code = SIW_TERM_RDMAP_OPCODE;
		return;
	}

	if (s->state.rtr_await && h->opcode != SIW_RDMAP_TERMINATE) {
		d->code = check_rtr(s, h, d);
		if (d->code != SIW_TERM_OK || h->opcode != SIW_RDMAP_READ_REQ)
			return;
	}

	/* siw_ddp_check() lets known opcodes through only. */
	if (!op) {
		d->code = SIW_TERM_RDMAP_OPCODE;
		return;
	}
	switch (op->kind) {
	case SIW_MSG_WRITE:
		/* The STag is looked up even for zero bytes, never checked. */
		if (!want_mem(s, d, SIW_RX_MEM_WRITE_SINK, h->stag, h->to,
			      h->payload_len))
			return;
		d->code = siw_check_tagged(&s->mem, h->to, h->payload_len,
					   SIW_TAG_SINK);
		if (d->code == SIW_TERM_OK)
			d->place = SIW_RX_PLACE_TAGGED;
		return;
	case SIW_MSG_READ_RESP:
		decide_read_resp(s, h, d);
		return;
	case SIW_MSG_SEND:
		decide_send(s, h, d);
		return;
	case SIW_MSG_READ_REQ:
		decide_read_req(s, h, d);
		return;
	case SIW_MSG_TERMINATE:
		d->place = SIW_RX_PLACE_TERM;
		return;
	case SIW_MSG_IMM:
		decide_imm(s, h, d);
		return;
	case SIW_MSG_ATOMIC_REQ:
		decide_atomic_req(s, h, d);
		return;
	case SIW_MSG_ATOMIC_RESP:
		decide_atomic_resp(s, h, d);
		return;
	}
}

/*
 * The last segment of a Read Response arrived: the Read completes, unless
 * it was our own RTR (no work request behind it). It completes only if
 * the response placed exactly the bytes asked for (RFC 5040 section
 * 5.2.2 lets the Data Sink validate the length; a shorter or empty
 * response would otherwise report bytes that never came): else it fails
 * with the bytes placed, and the stream ends in a Terminate. A Read with
 * local invalidate invalidates its sink's STag first, as iWARP RNICs do
 * (ib_core's rdma_rw relies on it); a sink that cannot be invalidated
 * fails the Read and the QP.
 */
static void end_read_resp(const struct siw_rx_snap *s, const struct siw_hdr *h,
			  struct siw_rx_end *e)
{
	e->orq_add = h->payload_len;
	e->orq_pop = h->last;
	if (!knows(s, SIW_RX_NEED_ORQ_POP)) {
		e->need = SIW_RX_NEED_ORQ_POP;
		return;
	}
	if (!s->read.popped)
		return;
	if (s->read.rtr) {
		e->rtr_answered = true;
		e->tx_schedule = true;
		return;
	}
	if (s->read.done != s->read.len) {
		e->read_complete = true;
		e->read_status = SIW_RX_WC_LOC_LEN_ERR;
		e->read_bytes = s->read.done;
		e->code = SIW_TERM_DDP_T_BASE_BOUNDS;
		return;
	}
	if (s->read.local_inv) {
		e->inval_stag = s->read.sink_stag;
		if (!knows(s, SIW_RX_NEED_INVAL)) {
			e->need = SIW_RX_NEED_INVAL;
			return;
		}
	}
	e->read_complete = true;
	e->read_bytes = s->read.len;
	if (s->read.local_inv && !s->inval_ok) {
		e->read_status = SIW_RX_WC_LOC_PROT_ERR;
		e->fatal = true;
		return;
	}
	e->read_status = SIW_RX_WC_SUCCESS;
	/* An ORD slot is free: the send queue may go on. */
	e->tx_schedule = true;
}

/*
 * A Send segment ended: the MO moves on; the last segment completes the
 * message. With Invalidate, the named STag is invalidated first; one that
 * cannot be (RFC 5040 section 5.3) fails the receive and the stream.
 */
static void end_send(const struct siw_rx_snap *s, const struct siw_hdr *h,
		     struct siw_rx_end *e)
{
	const struct siw_op_info *op = siw_op_info(h->opcode);

	e->next.mo = s->state.mo + h->payload_len;
	if (!h->last)
		return;
	e->next.msn[SIW_QN_SEND]++;
	e->rqe_complete = true;
	/* The immediate that came before it (SIW_IMM_FOR_SEND). */
	if (s->state.imm_pending) {
		e->rqe_imm = true;
		e->rqe_imm_val = s->state.imm_pending_val;
		e->next.imm_pending = false;
	}
	if (op->inval) {
		e->inval_stag = h->rsvd_ulp;
		if (!knows(s, SIW_RX_NEED_INVAL)) {
			e->need = SIW_RX_NEED_INVAL;
			return;
		}
		if (!s->inval_ok) {
			e->rqe_status = SIW_RX_WC_REM_INV_REQ_ERR;
			e->rqe_se = SIW_RX_SE_KEEP;
			e->code = SIW_TERM_RDMAP_PROT_INVALIDATE;
			return;
		}
		e->rqe_inval = h->rsvd_ulp;
	}
	e->rqe_status = SIW_RX_WC_SUCCESS;
	e->rqe_se = op->se ? SIW_RX_SE_SET : SIW_RX_SE_CLEAR;
}

/*
 * Immediate Data ended: it is kept for the Send that follows, or it
 * completes the receive it took, as a receive with immediate data; after
 * an RDMA Write, with the Write's length. The peer chose that length by
 * the segments it sent: one past what a completion reports (32 bits)
 * fails the receive and ends the stream, as a message too long for it.
 */
static void end_imm(const struct siw_rx_snap *s, const struct siw_hdr *h,
		    struct siw_rx_end *e)
{
	u32 desc = (u32)h->imm;

	e->next.msn[SIW_QN_SEND]++;
	if (desc == SIW_IMM_FOR_SEND) {
		e->next.imm_pending = true;
		e->next.imm_pending_val = h->imm >> 32;
		return;
	}
	e->rqe_complete = true;
	e->rqe_status = SIW_RX_WC_SUCCESS;
	e->rqe_se = siw_op_info(h->opcode)->se ? SIW_RX_SE_SET :
						 SIW_RX_SE_CLEAR;
	e->rqe_imm = true;
	e->rqe_imm_val = h->imm >> 32;
	if (desc == SIW_IMM_FOR_WRITE) {
		e->rqe_rdma_imm = true;
		e->next.write_last_len = 0;
		if (s->state.write_last_len > U32_MAX) {
			e->rqe_status = SIW_RX_WC_LOC_LEN_ERR;
			e->rqe_bytes = 0;
			e->code = SIW_TERM_DDP_UT_TOO_LONG;
			return;
		}
		e->rqe_bytes = s->state.write_last_len;
	}
}

/* The Atomic Response arrived: its request completes with its value. */
static void end_atomic_resp(const struct siw_rx_snap *s,
			    const struct siw_hdr *h, struct siw_rx_end *e)
{
	e->next.msn[SIW_QN_ATOMIC_RESP]++;
	e->orq_pop = true;
	if (!knows(s, SIW_RX_NEED_ORQ_POP)) {
		e->need = SIW_RX_NEED_ORQ_POP;
		return;
	}
	/* siw_rx_decide_begin() saw it there; only this path takes it. */
	if (!s->read.popped || !s->read.atomic)
		return;
	e->atomic_complete = true;
	e->atomic_orig = h->atomic_resp.orig;
	e->read_status = SIW_RX_WC_SUCCESS;
	e->read_bytes = SIW_ATOMIC_LEN;
	/* An ORD slot is free: the send queue may go on. */
	e->tx_schedule = true;
}

/* A Write segment ended: count its message's bytes (SIW_IMM_FOR_WRITE). */
static void end_write(const struct siw_rx_snap *s, const struct siw_hdr *h,
		      struct siw_rx_end *e)
{
	e->next.write_acc = s->state.write_acc + h->payload_len;
	if (h->last) {
		e->next.write_last_len = e->next.write_acc;
		e->next.write_acc = 0;
		e->next.write_ended = true;
	}
}

/*
 * The peer's Terminate ends the connection. A Read still outstanding will
 * never be answered: the oldest completes with a remote access error.
 */
static void end_terminate(const struct siw_rx_snap *s, struct siw_rx_end *e)
{
	e->peer_term = true;
	e->orq_pop = true;
	if (!knows(s, SIW_RX_NEED_ORQ_POP)) {
		e->need = SIW_RX_NEED_ORQ_POP;
		return;
	}
	if (s->read.popped && !s->read.rtr) {
		e->read_complete = true;
		e->read_status = SIW_RX_WC_REM_ACCESS_ERR;
		e->read_bytes = 0;
	}
	e->stream_dead = true;
	e->fatal = true;
}

void siw_rx_decide_end(const struct siw_rx_snap *s, const struct siw_hdr *h,
		       struct siw_rx_end *e)
{
	const struct siw_op_info *op = siw_op_info(h->opcode);

	memset(e, 0, sizeof(*e));
	e->code = SIW_TERM_OK;
	e->next = s->state;
	/* The next FPDU is another: only its header can be the RTR. */
	e->next.rtr_frame = false;
	/* Only an RDMA Write's last segment sets it again (end_write()). */
	e->next.write_ended = false;

	/* Flushed while the FPDU arrived: it completes nothing. */
	if (s->flushed) {
		e->drop = true;
		e->stream_dead = true;
		return;
	}

	if (s->state.rtr_frame) {
		e->next.rtr_await = 0;
		e->rtr_received = true;
		if (h->opcode == SIW_RDMAP_SEND) {
			e->next.msn[SIW_QN_SEND]++;
			return;
		}
		/* A Read RTR is answered like any Read Request, below. */
		if (h->opcode != SIW_RDMAP_READ_REQ)
			return;
	}

	if (!op)
		return;
	switch (op->kind) {
	case SIW_MSG_READ_RESP:
		end_read_resp(s, h, e);
		return;
	case SIW_MSG_SEND:
		end_send(s, h, e);
		return;
	case SIW_MSG_READ_REQ:
		e->next.msn[SIW_QN_RREQ]++;
		e->irq_push = true;
		e->tx_schedule = true;
		return;
	case SIW_MSG_TERMINATE:
		end_terminate(s, e);
		return;
	case SIW_MSG_IMM:
		end_imm(s, h, e);
		return;
	case SIW_MSG_ATOMIC_REQ:
		e->next.msn[SIW_QN_RREQ]++;
		e->irq_push = true;
		e->irq_atomic = true;
		e->tx_schedule = true;
		return;
	case SIW_MSG_ATOMIC_RESP:
		end_atomic_resp(s, h, e);
		return;
	case SIW_MSG_WRITE:
		/* A Write places its bytes and completes nothing. */
		end_write(s, h, e);
		return;
	}
}

/*
 * Ask; while something is needed, fetch it, mark it known, ask again.
 * Exactly one of d and e is the decision to run. A need asked for twice
 * would be asked for ever: stop there.
 */
static bool decide_run(struct siw_rx_snap *s, const struct siw_hdr *h,
		       struct siw_rx_dec *d, struct siw_rx_end *e,
		       siw_rx_fetch_fn fetch, void *ctx)
{
	const void *decision = d ? (const void *)d : e;
	enum siw_rx_need need;

	for (;;) {
		if (d) {
			siw_rx_decide_begin(s, h, d);
			need = d->need;
		} else {
			siw_rx_decide_end(s, h, e);
			need = e->need;
		}
		if (need == SIW_RX_NEED_NONE)
			return true;
		if (knows(s, need))
			return false;
		fetch(ctx, need, decision, s);
		s->known |= SIW_RX_KNOWS(need);
	}
}

bool siw_rx_decide_begin_run(struct siw_rx_snap *s, const struct siw_hdr *h,
			     struct siw_rx_dec *d, siw_rx_fetch_fn fetch,
			     void *ctx)
{
	return decide_run(s, h, d, NULL, fetch, ctx);
}

bool siw_rx_decide_end_run(struct siw_rx_snap *s, const struct siw_hdr *h,
			   struct siw_rx_end *e, siw_rx_fetch_fn fetch,
			   void *ctx)
{
	return decide_run(s, h, NULL, e, fetch, ctx);
}

const char *siw_rx_need_name(enum siw_rx_need need)
{
	static const char * const names[SIW_RX_NEED_NUM] = {
		[SIW_RX_NEED_NONE] = "none",
		[SIW_RX_NEED_ORQ] = "outstanding Read",
		[SIW_RX_NEED_IRQ] = "Read Requests queued",
		[SIW_RX_NEED_RQE] = "receive element",
		[SIW_RX_NEED_MEM] = "memory",
		[SIW_RX_NEED_ORQ_POP] = "outstanding Read done",
		[SIW_RX_NEED_INVAL] = "invalidation",
	};

	return (unsigned int)need < SIW_RX_NEED_NUM ? names[need] : "?";
}
