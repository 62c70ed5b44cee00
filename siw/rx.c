// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * Receive: the byte stream of an established connection, read straight
 * from the socket buffers (tcp_read_sock) in the socket's data_ready
 * callback, cut into FPDUs, checked by the protocol core, and placed into
 * the target memory without an intermediate copy.
 *
 * The framing (MPA length, header, payload, trailer over skbs cut
 * anywhere) is the protocol core's (rx_stream.c), and so is every
 * per-segment decision (rx_decide.c: which receive or outstanding Read a
 * segment belongs to, MSN, MO, length, IRD, RTR, invalidation, what an
 * FPDU completes). This file supplies the stream's callbacks and does
 * only what the core cannot: it takes the locks, looks up memory and
 * queue entries for the decisions (one need at a time, see rx_decide.h),
 * applies them to the QP, and places the bytes.
 *
 * Everything here runs with the socket's lock (softirq, or lock_sock in
 * process context) and sk_callback_lock read-held, so one instance at a
 * time per QP: qp->rx needs no lock of its own.
 *
 * A header or memory access that fails a check ends in a Terminate
 * decision (siw_qp_terminate); after it the rest of the stream is dropped.
 */
#include <linux/skbuff.h>
#include <net/tcp.h>

#include "siw.h"
#include "cm.h"
#include "rx_decide.h"
#include "trace.h"

/* The stream's Terminate decision: log it (rate limited) and send it. */
static void siw_rx_terminate(struct siw_qp *qp, enum siw_term_code code)
{
	struct siw_rx_stream *st = &qp->rx.st;

	pr_info_ratelimited("siw: %s: QP %u: terminating: %s\n",
			    dev_name(&qp->sdev->base_dev.dev),
			    qp->base_qp.qp_num, siw_term_name(code));
	siw_qp_terminate(qp, code, st->hdr, st->hdr_have);
}

/* A violation found at the end of an FPDU, outside the core's loop. */
static void siw_rx_fail(struct siw_qp *qp, enum siw_term_code code)
{
	if (qp->rx.st.dead)
		return;
	qp->rx.st.dead = true;
	siw_rx_terminate(qp, code);
}

/*
 * A flush stopped placement (siw_qp_flush): the QP left RTS and its work
 * requests complete as flushed; the rest of the stream is dropped, with
 * nothing placed or completed and no Terminate.
 */
static void siw_rx_drop(struct siw_qp *qp)
{
	if (!qp->rx.st.dead)
		pr_debug("siw: QP %u: flushed: the rest of the stream is dropped\n",
			 qp->base_qp.qp_num);
	qp->rx.st.dead = true;
}

static void siw_rx_put_mem(struct siw_rx *rx)
{
	if (rx->mem) {
		siw_mem_put(rx->mem);
		rx->mem = NULL;
	}
}

/*
 * One piece of placement into mem: only while the QP is not flushed
 * (-ESHUTDOWN) and the region neither invalidated nor deregistered
 * (-EKEYREVOKED). Holds both locks until siw_rx_piece_end(); no sleeping.
 */
static int siw_rx_piece_begin(struct siw_qp *qp, struct siw_mem *mem,
			      unsigned long *qflags, unsigned long *mflags)
{
	if (!siw_qp_place_begin(qp, qflags))
		return -ESHUTDOWN;
	if (!siw_mem_access_begin(mem, mflags)) {
		siw_qp_place_end(qp, *qflags);
		return -EKEYREVOKED;
	}
	return 0;
}

static void siw_rx_piece_end(struct siw_qp *qp, struct siw_mem *mem,
			     unsigned long qflags, unsigned long mflags)
{
	siw_mem_access_end(mem, mflags);
	siw_qp_place_end(qp, qflags);
}

/*
 * Copies n bytes of the skb at off to [addr, addr + n) of mem, a page at
 * a time, each piece only while the QP is not flushed and the region not
 * invalidated or deregistered (-ESHUTDOWN, -EKEYREVOKED): a flush or an
 * invalidation that returned has no piece in flight.
 */
static int siw_rx_copy(struct siw_qp *qp, struct siw_mem *mem, u64 addr,
		       const struct sk_buff *skb, unsigned int off, u32 n)
{
	while (n) {
		unsigned long qflags, mflags;
		struct siw_mem_seg seg;
		u8 *dst;
		int err;

		err = siw_rx_piece_begin(qp, mem, &qflags, &mflags);
		if (err)
			return err;
		if (siw_mem_seg(mem, addr, n, &seg)) {
			err = -EFAULT;
			goto end;
		}
		dst = page_address(seg.page) + seg.off;
		if (skb_copy_bits(skb, off, dst, seg.len)) {
			err = -EFAULT;
			goto end;
		}
		if (qp->rx.st.crc_on)
			qp->rx.st.crc = siw_mpa_crc_update(qp->rx.st.crc, dst,
							   seg.len);
end:
		siw_rx_piece_end(qp, mem, qflags, mflags);
		if (err)
			return err;
		addr += seg.len;
		off += seg.len;
		n -= seg.len;
	}
	return 0;
}

/* Takes the receive queue element for a new Send message. */
static bool siw_rx_take_rqe(struct siw_qp *qp)
{
	struct siw_rx *rx = &qp->rx;

	if (!siw_rq_take(qp, &rx->rqe, &rx->rqe_pos))
		return false;
	rx->have_rqe = true;
	rx->rqe_bytes = 0;
	rx->rqe_sge = 0;
	rx->rqe_sge_off = 0;
	return true;
}

/* Completes the held receive element and hands its slot back. */
static void siw_rx_complete_rqe(struct siw_qp *qp, u32 inval,
				enum siw_wc_status status)
{
	struct siw_rx *rx = &qp->rx;
	struct siw_rqe_done done = {
		.bytes = rx->rqe_bytes,
		.inval_stag = inval,
		.imm = rx->rqe_imm,
		.imm_data = rx->rqe_imm_val,
		.rdma_imm = rx->rqe_rdma_imm,
	};

	if (!rx->have_rqe)
		return;
	rx->have_rqe = false;
	rx->rqe_imm = false;
	rx->rqe_rdma_imm = false;
	if (siw_rq_complete_held(qp, &rx->rqe, rx->rqe_pos, &done, status))
		siw_qp_terminate(qp, SIW_TERM_RDMAP_CATASTROPHIC, NULL, 0);
}

/*
 * An Atomic Response: the original value goes to the request's result
 * buffer (res, 8 bytes, in host order as any verbs consumer reads it),
 * then the request completes; a buffer that cannot take it fails the
 * request and the QP.
 */
static void siw_rx_atomic_done(struct siw_qp *qp, u32 pos, u32 epoch,
			       const struct siw_sge *res, u64 orig)
{
	enum siw_wc_status status = SIW_WC_SUCCESS;
	struct siw_mem_seg seg[2];
	const u8 *src = (const u8 *)&orig;
	unsigned long flags;
	struct siw_mem *mem;
	u32 done = 0, n = 0, i;

	mem = siw_mem_get_local(qp->sdev, qp->user, res->lkey);
	if (!mem || res->length < SIW_ATOMIC_LEN ||
	    siw_mem_check(mem, qp->base_qp.pd, IB_ACCESS_LOCAL_WRITE,
			  res->laddr, SIW_ATOMIC_LEN))
		status = SIW_WC_LOC_PROT_ERR;
	/* The buffer need not be aligned: it may cross a page. */
	while (status == SIW_WC_SUCCESS && done < SIW_ATOMIC_LEN) {
		if (n == ARRAY_SIZE(seg) ||
		    siw_mem_seg(mem, res->laddr + done,
				SIW_ATOMIC_LEN - done, &seg[n])) {
			status = SIW_WC_LOC_PROT_ERR;
			break;
		}
		done += seg[n++].len;
	}
	/*
	 * Not into a buffer whose work request a flush completed meanwhile
	 * (siw_sq_flush() counts flushes in sq_epoch): its consumer may
	 * have reused it.
	 */
	spin_lock_irqsave(&qp->sq_lock, flags);
	if (status == SIW_WC_SUCCESS && epoch == qp->sq_epoch) {
		unsigned long qflags, mflags;
		int err = siw_rx_piece_begin(qp, mem, &qflags, &mflags);

		if (err) {
			status = err == -ESHUTDOWN ? SIW_WC_WR_FLUSH_ERR :
						     SIW_WC_LOC_PROT_ERR;
		} else {
			for (i = 0, done = 0; i < n; done += seg[i++].len)
				memcpy(page_address(seg[i].page) + seg[i].off,
				       src + done, seg[i].len);
			siw_rx_piece_end(qp, mem, qflags, mflags);
		}
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (mem)
		siw_mem_put(mem);
	siw_sq_mark_done(qp, pos, status, SIW_ATOMIC_LEN);
	if (status != SIW_WC_SUCCESS)
		siw_qp_fatal(qp, IB_EVENT_QP_FATAL);
}

/* The receiver's own state, for the core's decisions (rx_decide.c). */
static void siw_rx_snap_init(struct siw_qp *qp, struct siw_rx_snap *s)
{
	struct siw_rx *rx = &qp->rx;

	memset(s, 0, sizeof(*s));
	s->state = rx->state;
	s->rqe_held = rx->have_rqe;
	if (rx->have_rqe)
		s->rqe_len = siw_rqe_len(&rx->rqe);
	s->flushed = READ_ONCE(qp->place_stopped);
}

/* Looks up the memory of a tagged access; a sink stays referenced. */
static void siw_rx_get_mem(struct siw_qp *qp, const struct siw_rx_mem *m,
			   struct siw_mem_view *view)
{
	struct siw_mem *mem;

	switch (m->kind) {
	case SIW_RX_MEM_WRITE_SINK:
		qp->rx.mem = siw_mem_get(qp->sdev, m->stag);
		siw_mem_view_of(qp->rx.mem, qp->base_qp.pd,
				IB_ACCESS_REMOTE_WRITE, view);
		break;
	case SIW_RX_MEM_READ_SINK:
		qp->rx.mem = siw_mem_get_local(qp->sdev, qp->user, m->stag);
		siw_mem_view_of(qp->rx.mem, qp->base_qp.pd,
				IB_ACCESS_LOCAL_WRITE, view);
		break;
	case SIW_RX_MEM_READ_SOURCE:
	case SIW_RX_MEM_ATOMIC:
		mem = siw_mem_get(qp->sdev, m->stag);
		siw_mem_view_of(mem, qp->base_qp.pd,
				m->kind == SIW_RX_MEM_ATOMIC ?
				IB_ACCESS_REMOTE_ATOMIC : IB_ACCESS_REMOTE_READ,
				view);
		if (mem)
			siw_mem_put(mem);
		break;
	}
}

/* Fills in what a header's decision asks for; ctx: the QP. */
static void siw_rx_fetch_begin(void *ctx, enum siw_rx_need need,
			       const void *decision, struct siw_rx_snap *s)
{
	const struct siw_rx_dec *d = decision;
	struct siw_qp *qp = ctx;
	struct siw_orq_entry *e;
	unsigned long flags;

	switch (need) {
	case SIW_RX_NEED_ORQ:
		spin_lock_irqsave(&qp->orq_lock, flags);
		s->orq.have = qp->orq_get != qp->orq_put;
		if (s->orq.have) {
			e = &qp->orq[qp->orq_get % qp->orq_size];
			s->orq.atomic = e->kind == SIW_ORQ_ATOMIC;
			s->orq.atomic_id = e->atomic_id;
			s->orq.sink_stag = e->sqe.sge[0].lkey;
			s->orq.sink_to = e->sqe.sge[0].laddr;
			s->orq.len = siw_sqe_sge_len(&e->sqe);
			s->orq.done = qp->orq_done_bytes;
			/* tx.c sent no Read of more than SIW_MAX_SGE_RD. */
			s->orq.sgl = e->kind == SIW_ORQ_READ &&
				     e->sqe.num_sge > 1;
			if (s->orq.sgl) {
				qp->rx.rd_nsge = min_t(u32, e->sqe.num_sge,
						       SIW_MAX_SGE_RD);
				memcpy(qp->rx.rd_sge, e->sqe.sge,
				       qp->rx.rd_nsge * sizeof(struct siw_sge));
			}
		}
		spin_unlock_irqrestore(&qp->orq_lock, flags);
		break;
	case SIW_RX_NEED_IRQ:
		spin_lock_irqsave(&qp->irq_lock, flags);
		s->irq_queued = qp->irq_put - qp->irq_get;
		spin_unlock_irqrestore(&qp->irq_lock, flags);
		s->ird = qp->ird;
		s->irq_size = qp->irq_size;
		break;
	case SIW_RX_NEED_RQE:
		s->rqe_taken = siw_rx_take_rqe(qp);
		if (s->rqe_taken)
			s->rqe_len = siw_rqe_len(&qp->rx.rqe);
		break;
	case SIW_RX_NEED_MEM:
		siw_rx_get_mem(qp, &d->mem, &s->mem);
		break;
	default:
		break;
	}
}

/* A Terminate from the peer: its control word came with the header. */
static void siw_rx_keep_term_hdr(struct siw_rx *rx)
{
	u32 at = SIW_MPA_LEN_LEN + SIW_UNTAGGED_HDR_LEN;

	rx->term_have = min_t(u32, rx->st.hdr_have > at ?
			      rx->st.hdr_have - at : 0, sizeof(rx->term_body));
	memcpy(rx->term_body, rx->st.hdr + at, rx->term_have);
}

/* Checks a new FPDU against QP state and prepares its placement. */
static enum siw_term_code siw_rx_begin(struct siw_qp *qp)
{
	struct siw_rx *rx = &qp->rx;
	struct siw_rx_snap s;
	struct siw_rx_dec d;

	siw_rx_snap_init(qp, &s);
	/* Each need is asked for once: anything else is our bug. */
	if (!siw_rx_decide_begin_run(&s, &rx->st.h, &d, siw_rx_fetch_begin, qp))
		return SIW_TERM_RDMAP_CATASTROPHIC;
	if (d.drop) {
		siw_rx_drop(qp);
		return SIW_TERM_OK;
	}
	rx->state = d.next;
	if (d.code != SIW_TERM_OK)
		return d.code;
	rx->place = d.place;
	if (d.place == SIW_RX_PLACE_TAGGED)
		rx->to = d.mem.to;
	else if (d.place == SIW_RX_PLACE_READ_SGL)
		rx->rd_off = d.sgl_off;
	else if (d.place == SIW_RX_PLACE_TERM)
		siw_rx_keep_term_hdr(rx);
	return SIW_TERM_OK;
}

/* Places n payload bytes of a Send into the held receive element. */
static int siw_rx_place_send(struct siw_qp *qp, const struct sk_buff *skb,
			     unsigned int off, u32 n)
{
	struct siw_rx *rx = &qp->rx;

	while (n) {
		struct siw_sge *sge;
		u32 take;
		int err;

		if (rx->rqe_sge >= rx->rqe.num_sge)
			return -EMSGSIZE;
		sge = &rx->rqe.sge[rx->rqe_sge];
		if (rx->rqe_sge_off == sge->length) {
			rx->rqe_sge++;
			rx->rqe_sge_off = 0;
			siw_rx_put_mem(rx);
			continue;
		}
		if (!rx->mem) {
			rx->mem = siw_mem_get_local(qp->sdev, qp->user, sge->lkey);
			if (!rx->mem ||
			    siw_mem_check(rx->mem, qp->base_qp.pd,
					  IB_ACCESS_LOCAL_WRITE, sge->laddr,
					  sge->length))
				return -EACCES;
		}
		take = min(n, sge->length - rx->rqe_sge_off);
		err = siw_rx_copy(qp, rx->mem, sge->laddr + rx->rqe_sge_off,
				  skb, off, take);
		if (err)
			return err;
		rx->rqe_sge_off += take;
		rx->rqe_bytes += take;
		off += take;
		n -= take;
	}
	return 0;
}

/*
 * Places n bytes of a Read Response into a Read's list of SGEs, from byte
 * rx->rd_off of the Read on. Each SGE's memory is looked up and checked
 * (local write, the QP's PD, its bounds) as it is reached, as a Send's
 * receive element's are.
 */
static int siw_rx_place_read_sgl(struct siw_qp *qp, const struct sk_buff *skb,
				 unsigned int off, u32 n)
{
	struct siw_rx *rx = &qp->rx;

	while (n) {
		u64 at = rx->rd_off;
		struct siw_sge *sge = NULL;
		struct siw_mem *mem;
		u32 i, take;
		int err = 0;

		for (i = 0; i < rx->rd_nsge; i++) {
			if (at < rx->rd_sge[i].length) {
				sge = &rx->rd_sge[i];
				break;
			}
			at -= rx->rd_sge[i].length;
		}
		if (!sge)
			return -EMSGSIZE;
		take = min_t(u64, n, sge->length - at);
		mem = siw_mem_get_local(qp->sdev, qp->user, sge->lkey);
		if (!mem || siw_mem_check(mem, qp->base_qp.pd,
					  IB_ACCESS_LOCAL_WRITE, sge->laddr,
					  sge->length))
			err = -EACCES;
		else
			err = siw_rx_copy(qp, mem, sge->laddr + at, skb, off,
					  take);
		if (mem)
			siw_mem_put(mem);
		if (err)
			return err;
		rx->rd_off += take;
		off += take;
		n -= take;
	}
	return 0;
}

static int siw_rx_place(struct siw_qp *qp, const struct sk_buff *skb,
			unsigned int off, u32 n)
{
	struct siw_rx *rx = &qp->rx;
	int err;

	switch (rx->place) {
	case SIW_RX_PLACE_READ_SGL:
		return siw_rx_place_read_sgl(qp, skb, off, n);
	case SIW_RX_PLACE_TAGGED:
		err = siw_rx_copy(qp, rx->mem, rx->to, skb, off, n);
		if (err)
			return err;
		rx->to += n;
		return 0;
	case SIW_RX_PLACE_RQE:
		return siw_rx_place_send(qp, skb, off, n);
	case SIW_RX_PLACE_TERM: {
		/* Keep what fits for the log; the CRC covers all of it. */
		u32 keep = min_t(u32, n, sizeof(rx->term_body) - rx->term_have);
		u8 scratch[64];
		u32 done = 0;

		if (keep && skb_copy_bits(skb, off, rx->term_body +
					  rx->term_have, keep))
			return -EFAULT;
		if (rx->st.crc_on && keep)
			rx->st.crc = siw_mpa_crc_update(rx->st.crc,
							rx->term_body +
							rx->term_have, keep);
		rx->term_have += keep;
		for (done = keep; done < n; ) {
			u32 c = min_t(u32, n - done, sizeof(scratch));

			if (skb_copy_bits(skb, off + done, scratch, c))
				return -EFAULT;
			if (rx->st.crc_on)
				rx->st.crc = siw_mpa_crc_update(rx->st.crc,
								scratch, c);
			done += c;
		}
		return 0;
	}
	default:
		return -EPROTO;
	}
}

/* A Terminate from the peer: the connection is over. */
static void siw_rx_log_peer_term(struct siw_qp *qp)
{
	struct siw_term_msg msg;

	if (siw_term_decode(qp->rx.term_body, qp->rx.term_have, &msg)) {
		pr_info_ratelimited("siw: %s: QP %u: peer sent Terminate: %s\n",
				    dev_name(&qp->sdev->base_dev.dev),
				    qp->base_qp.qp_num, siw_term_name(msg.code));
		siw_qp_stat_add(qp, siw_term_layer(msg.code) ==
				SIW_TERM_LAYER_RDMAP ? SIW_STAT_TERM_RX_RDMAP :
				siw_term_layer(msg.code) == SIW_TERM_LAYER_DDP ?
				SIW_STAT_TERM_RX_DDP : SIW_STAT_TERM_RX_MPA, 1);
		if (trace_siw_terminate_enabled())
			trace_siw_terminate(qp, false,
					    siw_term_layer(msg.code),
					    siw_term_etype(msg.code),
					    siw_term_ecode(msg.code),
					    siw_term_name(msg.code), msg.ddp_hdr,
					    msg.ddp_hdr ? msg.ddp_hdr_len : 0);
	} else {
		pr_info_ratelimited("siw: %s: QP %u: peer sent a malformed Terminate\n",
				    dev_name(&qp->sdev->base_dev.dev),
				    qp->base_qp.qp_num);
	}
}

/* What an FPDU's end takes off the ORQ, for what it completes. */
struct siw_rx_popped {
	struct siw_qp *qp;
	u32 pos;		/* the Read's or atomic's send queue slot */
	struct siw_sge res;	/* an atomic's result buffer */
	u32 epoch;		/* the send queue's flush count when sent */
};

/* Fills in what an FPDU's end asks for; ctx: a struct siw_rx_popped. */
static void siw_rx_fetch_end(void *ctx, enum siw_rx_need need,
			     const void *decision, struct siw_rx_snap *s)
{
	const struct siw_rx_end *e = decision;
	struct siw_rx_popped *p = ctx;
	struct siw_qp *qp = p->qp;
	struct siw_orq_entry *o;
	unsigned long flags;

	switch (need) {
	case SIW_RX_NEED_ORQ_POP:
		spin_lock_irqsave(&qp->orq_lock, flags);
		qp->orq_done_bytes += e->orq_add;
		if (e->orq_pop && qp->orq_get != qp->orq_put) {
			o = &qp->orq[qp->orq_get % qp->orq_size];
			s->read.popped = true;
			s->read.rtr = o->kind == SIW_ORQ_RTR;
			s->read.atomic = o->kind == SIW_ORQ_ATOMIC;
			p->res = o->sqe.sge[0];
			p->epoch = o->sq_epoch;
			s->read.local_inv = o->sqe.opcode == SIW_OP_READ_LOCAL_INV;
			s->read.sink_stag = o->sqe.sge[0].lkey;
			s->read.len = siw_sqe_sge_len(&o->sqe);
			s->read.done = qp->orq_done_bytes;
			p->pos = o->sq_pos;
			qp->orq_get++;
			qp->orq_done_bytes = 0;
		}
		spin_unlock_irqrestore(&qp->orq_lock, flags);
		break;
	case SIW_RX_NEED_INVAL:
		s->inval_ok = !siw_mem_invalidate(qp->sdev, e->inval_stag,
						  qp->base_qp.pd);
		break;
	default:
		break;
	}
}

static enum siw_wc_status siw_rx_wc_status(enum siw_rx_wc wc)
{
	switch (wc) {
	case SIW_RX_WC_SUCCESS:
		return SIW_WC_SUCCESS;
	case SIW_RX_WC_LOC_PROT_ERR:
		return SIW_WC_LOC_PROT_ERR;
	case SIW_RX_WC_REM_ACCESS_ERR:
		return SIW_WC_REM_ACCESS_ERR;
	case SIW_RX_WC_REM_INV_REQ_ERR:
		return SIW_WC_REM_INV_REQ_ERR;
	case SIW_RX_WC_LOC_LEN_ERR:
		return SIW_WC_LOC_LEN_ERR;
	}
	return SIW_WC_GENERAL_ERR;
}

/*
 * A complete FPDU, and the message it ends, in the QP's counters by its
 * kind; a Terminate's bytes and message are counted by layer.
 */
static void siw_rx_count_fpdu(struct siw_qp *qp, const struct siw_hdr *h)
{
	const struct siw_op_info *op = siw_op_info(h->opcode);

	siw_qp_stat_add(qp, SIW_STAT_FPDU_RX, 1);
	if (!op || op->kind == SIW_MSG_TERMINATE)
		return;
	siw_qp_stat_add(qp, SIW_STAT_BYTES_RX, h->payload_len);
	if (h->last)
		siw_qp_stat_add(qp, SIW_STAT_MSG_RX(op->kind), 1);
}

/* The FPDU is complete and its CRC good: finish what it ends. */
static void siw_rx_end(struct siw_qp *qp)
{
	struct siw_rx *rx = &qp->rx;
	const struct siw_hdr *h = &rx->st.h;
	struct siw_rx_popped p = { .qp = qp };
	struct siw_rx_snap s;
	struct siw_rx_end e;

	siw_rx_put_mem(rx);
	siw_rx_snap_init(qp, &s);
	if (!siw_rx_decide_end_run(&s, h, &e, siw_rx_fetch_end, &p)) {
		siw_rx_fail(qp, SIW_TERM_RDMAP_CATASTROPHIC);
		return;
	}
	/* Flushed meanwhile: its work requests completed as flushed. */
	if (e.drop) {
		siw_rx_drop(qp);
		return;
	}

	siw_rx_count_fpdu(qp, h);
	rx->state = e.next;
	if (e.rtr_received) {
		pr_debug("siw: QP %u: RTR received (%s)\n",
			 qp->base_qp.qp_num, siw_op_name(h->opcode));
		siw_qp_stat_add(qp, SIW_STAT_RTR_RX, 1);
		siw_tx_release(qp);
	} else if (unlikely(READ_ONCE(qp->tx_held)) && !qp->rtr &&
		   e.code == SIW_TERM_OK) {
		/* Without p2p: the initiator's first FPDU, whatever it is. */
		siw_tx_hold_cancel(qp);
		siw_tx_release(qp);
	}
	if (e.peer_term)
		siw_rx_log_peer_term(qp);
	if (e.rtr_answered)
		pr_debug("siw: QP %u: RTR answered\n", qp->base_qp.qp_num);
	if (e.read_complete)
		siw_sq_mark_done(qp, p.pos, siw_rx_wc_status(e.read_status),
				 e.read_bytes);
	if (e.atomic_complete)
		siw_rx_atomic_done(qp, p.pos, p.epoch, &p.res, e.atomic_orig);
	if (e.rqe_complete) {
		if (e.rqe_se == SIW_RX_SE_SET)
			rx->rqe.flags |= SIW_WQE_SOLICITED;
		else if (e.rqe_se == SIW_RX_SE_CLEAR)
			rx->rqe.flags &= ~SIW_WQE_SOLICITED;
		rx->rqe_imm = e.rqe_imm;
		rx->rqe_imm_val = e.rqe_imm_val;
		rx->rqe_rdma_imm = e.rqe_rdma_imm;
		if (e.rqe_rdma_imm)
			rx->rqe_bytes = e.rqe_bytes;
		siw_rx_complete_rqe(qp, e.rqe_inval,
				    siw_rx_wc_status(e.rqe_status));
	}
	if (e.code != SIW_TERM_OK)
		siw_rx_fail(qp, e.code);
	if (e.irq_push)
		siw_irq_push(qp, h, e.irq_atomic);
	if (e.stream_dead)
		rx->st.dead = true;
	if (e.fatal)
		siw_qp_fatal(qp, IB_EVENT_QP_FATAL);
	if (e.tx_schedule)
		qp->rx.tx_wanted = true;	/* siw_rx_sock, at the end */
}

/* The callbacks of the core's stream parser, on a QP and skbs. */
static int siw_rx_op_copy(void *src, u32 off, void *dst, u32 n)
{
	return skb_copy_bits(src, off, dst, n);
}

static enum siw_term_code siw_rx_op_begin(void *ctx, struct siw_rx_stream *s)
{
	struct siw_qp *qp = ctx;

	pr_debug("siw: QP %u: rx fpdu ulpdu %u ctrl %02x%02x\n",
		 qp->base_qp.qp_num, s->ulpdu_len, s->hdr[2], s->hdr[3]);
	trace_siw_fpdu_rx(qp, &s->h, s->h.payload_len);
	return siw_rx_begin(qp);
}

/* Ends the oldest outstanding Read with a local protection error. */
static void siw_rx_fail_read(struct siw_qp *qp)
{
	unsigned long flags;
	bool have;
	u32 pos = 0;

	spin_lock_irqsave(&qp->orq_lock, flags);
	have = qp->orq_get != qp->orq_put;
	if (have) {
		pos = qp->orq[qp->orq_get % qp->orq_size].sq_pos;
		qp->orq_get++;
		qp->orq_done_bytes = 0;
	}
	spin_unlock_irqrestore(&qp->orq_lock, flags);
	if (have)
		siw_sq_mark_done(qp, pos, SIW_WC_LOC_PROT_ERR, 0);
}

static int siw_rx_op_place(void *ctx, struct siw_rx_stream *s, void *src,
			   u32 off, u32 n)
{
	struct siw_qp *qp = ctx;
	int err;

	err = siw_rx_place(qp, src, off, n);
	if (!err)
		return 0;
	if (err == -ESHUTDOWN) {
		siw_rx_drop(qp);
		return 0;	/* the stream is dead: nothing more is fed */
	}
	/* The peer's STag was invalidated or deregistered under its Write. */
	if (err == -EKEYREVOKED && s->h.opcode == SIW_RDMAP_WRITE)
		siw_rx_fail(qp, SIW_TERM_DDP_T_INVALID_STAG);
	/*
	 * The Read whose sink, or the receive whose element, could not take
	 * the bytes ends with a local protection error. A Write's failure
	 * completes nothing: a receive held by a Send half received is
	 * flushed when the connection ends (siw_rx_release).
	 */
	if (s->h.opcode == SIW_RDMAP_READ_RESP)
		siw_rx_fail_read(qp);
	else if (s->h.opcode >= SIW_RDMAP_SEND &&
		 s->h.opcode <= SIW_RDMAP_SEND_SE_INV)
		siw_rx_complete_rqe(qp, 0, SIW_WC_LOC_PROT_ERR);
	return -EFAULT;
}

static void siw_rx_op_end(void *ctx, struct siw_rx_stream *s)
{
	siw_rx_end(ctx);
}

static void siw_rx_op_fail(void *ctx, struct siw_rx_stream *s,
			   enum siw_term_code code)
{
	if (code == SIW_TERM_MPA_CRC)
		siw_qp_stat_add((struct siw_qp *)ctx, SIW_STAT_CRC_ERR, 1);
	siw_rx_terminate(ctx, code);
}

static const struct siw_rx_ops siw_rx_ops = {
	.copy = siw_rx_op_copy,
	.begin = siw_rx_op_begin,
	.place = siw_rx_op_place,
	.end = siw_rx_op_end,
	.fail = siw_rx_op_fail,
};

/* tcp_read_sock actor: consumes the whole skb. */
static int siw_rx_actor(read_descriptor_t *desc, struct sk_buff *skb,
			unsigned int off, size_t len)
{
	struct siw_qp *qp = desc->arg.data;

	return siw_rx_stream_feed(&qp->rx.st, &siw_rx_ops, qp, skb, off, len);
}

static void siw_rx_sock(struct siw_qp *qp, struct sock *sk)
{
	read_descriptor_t desc = { .arg.data = qp, .count = 1 };

	tcp_read_sock(sk, &desc, siw_rx_actor);
	/* Once for all the FPDUs read: the transmitter has work. */
	if (qp->rx.tx_wanted) {
		qp->rx.tx_wanted = false;
		siw_tx_from_rx(qp, sk);
	}
}

/* sk_data_ready of an established connection. Softirq. */
void siw_rx_data_ready(struct sock *sk)
{
	struct siw_cep *cep;

	read_lock(&sk->sk_callback_lock);
	cep = sk->sk_user_data;
	if (cep && cep->qp && READ_ONCE(cep->qp->sock))
		siw_rx_sock(cep->qp, sk);
	read_unlock(&sk->sk_callback_lock);
}

/* Reads what arrived before the QP took the socket over. */
int siw_rx_read(struct siw_qp *qp)
{
	struct sock *sk = qp->sock->sk;

	lock_sock(sk);
	read_lock_bh(&sk->sk_callback_lock);
	siw_rx_sock(qp, sk);
	read_unlock_bh(&sk->sk_callback_lock);
	release_sock(sk);
	return 0;
}

void siw_rx_reset(struct siw_qp *qp)
{
	struct siw_rx *rx = &qp->rx;
	u32 i;

	memset(rx, 0, sizeof(*rx));
	siw_rx_stream_reset(&rx->st, qp->crc);
	rx->st.ddp_flags = qp->ext ? SIW_DDP_EXT : 0;
	for (i = 0; i < SIW_QN_NUM; i++)
		rx->state.msn[i] = SIW_MSN_FIRST;
}

/* After the connection ended: nothing may stay half received. */
void siw_rx_release(struct siw_qp *qp)
{
	siw_rx_put_mem(&qp->rx);
	siw_rx_complete_rqe(qp, 0, SIW_WC_WR_FLUSH_ERR);
}
