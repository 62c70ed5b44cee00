// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * Receive: the byte stream of an established connection, read straight
 * from the socket buffers (tcp_read_sock) in the socket's data_ready
 * callback, cut into FPDUs, checked by the protocol core, and placed into
 * the target memory without an intermediate copy.
 *
 * The framing (MPA length, header, payload, trailer over skbs cut
 * anywhere) is the protocol core's (rx_stream.c); this file supplies its
 * callbacks: the checks against QP state and memory, and the placement.
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

static void siw_rx_put_mem(struct siw_rx *rx)
{
	if (rx->mem) {
		siw_mem_put(rx->mem);
		rx->mem = NULL;
	}
}

/* Copies n bytes of the skb at off to [addr, addr + n) of mem. */
static int siw_rx_copy(struct siw_qp *qp, struct siw_mem *mem, u64 addr,
		       const struct sk_buff *skb, unsigned int off, u32 n)
{
	while (n) {
		struct siw_mem_seg seg;
		u8 *dst;

		if (siw_mem_seg(mem, addr, n, &seg))
			return -EFAULT;
		dst = page_address(seg.page) + seg.off;
		if (skb_copy_bits(skb, off, dst, seg.len))
			return -EFAULT;
		if (qp->rx.st.crc_on)
			qp->rx.st.crc = siw_mpa_crc_update(qp->rx.st.crc, dst,
							   seg.len);
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
	unsigned long flags;
	bool ok = false;

	if (qp->srq) {
		ok = siw_srq_take(qp->srq, &rx->rqe);
	} else {
		struct siw_rqe *slot;

		spin_lock_irqsave(&qp->rq_lock, flags);
		slot = &qp->recvq[qp->rq_get % qp->num_rqe];
		if (smp_load_acquire(&slot->flags) & SIW_WQE_VALID) {
			memcpy(&rx->rqe, slot, sizeof(rx->rqe));
			/* The slot stays VALID until it completes. */
			rx->rqe_pos = qp->rq_get++;
			qp->rq_held = true;
			ok = true;
		}
		spin_unlock_irqrestore(&qp->rq_lock, flags);
	}
	if (!ok)
		return false;
	if (rx->rqe.num_sge > SIW_MAX_SGE)
		rx->rqe.num_sge = SIW_MAX_SGE;
	rx->have_rqe = true;
	rx->rqe_bytes = 0;
	rx->rqe_sge = 0;
	rx->rqe_sge_off = 0;
	return true;
}

static u64 siw_rqe_len(const struct siw_rqe *rqe)
{
	u64 len = 0;
	u32 i;

	for (i = 0; i < rqe->num_sge; i++)
		len += rqe->sge[i].length;
	return len;
}

/* Completes the held receive element and hands its slot back. */
static void siw_rx_complete_rqe(struct siw_qp *qp, u32 inval,
				enum siw_wc_status status)
{
	struct siw_rx *rx = &qp->rx;

	unsigned long flags;
	int err;

	if (!rx->have_rqe)
		return;
	rx->have_rqe = false;
	if (qp->srq) {
		err = siw_rqe_complete(qp, &rx->rqe, rx->rqe_bytes, inval,
				       status);
	} else {
		/* The slot goes back before its completion shows. */
		smp_store_release(&qp->recvq[rx->rqe_pos % qp->num_rqe].flags,
				  0);
		err = siw_rqe_complete(qp, &rx->rqe, rx->rqe_bytes, inval,
				       status);
		/* Only now may a flush complete younger elements. */
		spin_lock_irqsave(&qp->rq_lock, flags);
		qp->rq_held = false;
		spin_unlock_irqrestore(&qp->rq_lock, flags);
	}
	if (err)
		siw_qp_terminate(qp, SIW_TERM_RDMAP_CATASTROPHIC, NULL, 0);
}

/*
 * Responder in peer-to-peer mode: the first FPDU must be the RTR we chose
 * in the MPA reply (RFC 6581 section 8), a one-segment zero-length
 * message. A Read RTR goes on as a Read Request and is answered like one;
 * a Send RTR takes its MSN but no receive element.
 */
static enum siw_term_code siw_rx_check_rtr(struct siw_qp *qp)
{
	struct siw_rx *rx = &qp->rx;
	const struct siw_hdr *h = &rx->st.h;
	bool ok;

	switch (rx->rtr_await) {
	case SIW_RTR_WRITE:
		ok = h->opcode == SIW_RDMAP_WRITE && !h->payload_len;
		break;
	case SIW_RTR_READ:
		ok = h->opcode == SIW_RDMAP_READ_REQ && !h->rreq.size;
		break;
	case SIW_RTR_SEND:
		ok = h->opcode == SIW_RDMAP_SEND && !h->payload_len &&
		     !h->mo;
		break;
	default:
		ok = false;
	}
	if (!ok || !h->last)
		return SIW_TERM_MPA_NO_RTR;
	rx->rtr_frame = true;
	if (h->opcode == SIW_RDMAP_SEND)
		return siw_ddp_check_msn(rx->msn[SIW_QN_SEND], h->msn, true);
	return SIW_TERM_OK;
}

/* Checks a new FPDU against QP state and prepares its placement. */
static enum siw_term_code siw_rx_begin(struct siw_qp *qp)
{
	struct siw_rx *rx = &qp->rx;
	struct siw_hdr *h = &rx->st.h;
	struct siw_mem_view view;
	enum siw_term_code code;
	unsigned long flags;

	if (rx->rtr_await && h->opcode != SIW_RDMAP_TERMINATE) {
		code = siw_rx_check_rtr(qp);
		if (code != SIW_TERM_OK || h->opcode != SIW_RDMAP_READ_REQ)
			return code;
	}

	switch (h->opcode) {
	case SIW_RDMAP_WRITE:
		rx->mem = siw_mem_get(qp->sdev, h->stag);
		siw_mem_view_of(rx->mem, qp->base_qp.pd,
				IB_ACCESS_REMOTE_WRITE, &view);
		rx->to = h->to;
		return siw_check_tagged(&view, h->to, h->payload_len,
					SIW_TAG_SINK);

	case SIW_RDMAP_READ_RESP: {
		struct siw_orq_entry *e;
		u32 sink_stag = 0;
		u64 sink_to = 0, size = 0;
		bool have;

		spin_lock_irqsave(&qp->orq_lock, flags);
		have = qp->orq_get != qp->orq_put;
		if (have) {
			e = &qp->orq[qp->orq_get % qp->orq_size];
			sink_stag = e->sqe.sge[0].lkey;
			sink_to = e->sqe.sge[0].laddr + qp->orq_done_bytes;
			size = e->sqe.num_sge ? e->sqe.sge[0].length : 0;
			size -= qp->orq_done_bytes;
		}
		spin_unlock_irqrestore(&qp->orq_lock, flags);
		code = siw_check_read_resp(have, sink_stag, sink_to, size, h);
		if (code != SIW_TERM_OK || !h->payload_len)
			return code;
		rx->mem = siw_mem_get_local(qp->sdev, qp->user, h->stag);
		siw_mem_view_of(rx->mem, qp->base_qp.pd, IB_ACCESS_LOCAL_WRITE,
				&view);
		rx->to = h->to;
		return siw_check_tagged(&view, h->to, h->payload_len,
					SIW_TAG_SINK);
	}

	case SIW_RDMAP_SEND:
	case SIW_RDMAP_SEND_INV:
	case SIW_RDMAP_SEND_SE:
	case SIW_RDMAP_SEND_SE_INV:
		if (!rx->have_rqe) {
			bool got = h->mo == 0 && siw_rx_take_rqe(qp);

			code = siw_ddp_check_msn(rx->msn[SIW_QN_SEND], h->msn,
						 got);
			if (code != SIW_TERM_OK)
				return code;
			if (!got)
				return SIW_TERM_DDP_UT_MSN_NO_BUF;
			rx->mo = 0;
		} else {
			code = siw_ddp_check_msn(rx->msn[SIW_QN_SEND], h->msn,
						 true);
			if (code != SIW_TERM_OK)
				return code;
		}
		code = siw_ddp_check_mo(rx->mo, h->mo);
		if (code != SIW_TERM_OK)
			return code;
		return siw_ddp_check_untagged_len(siw_rqe_len(&rx->rqe), h->mo,
						  h->payload_len);

	case SIW_RDMAP_READ_REQ: {
		struct siw_mem *mem;
		u32 queued;

		code = siw_ddp_check_msn(rx->msn[SIW_QN_RREQ], h->msn, true);
		if (code != SIW_TERM_OK)
			return code;
		spin_lock_irqsave(&qp->irq_lock, flags);
		queued = qp->irq_put - qp->irq_get;
		spin_unlock_irqrestore(&qp->irq_lock, flags);
		code = siw_check_ird(queued, min(qp->ird, qp->irq_size));
		if (code != SIW_TERM_OK)
			return code;
		if (h->rreq.size) {
			mem = siw_mem_get(qp->sdev, h->rreq.src_stag);
			siw_mem_view_of(mem, qp->base_qp.pd,
					IB_ACCESS_REMOTE_READ, &view);
			if (mem)
				siw_mem_put(mem);
			code = siw_check_tagged(&view, h->rreq.src_to,
						h->rreq.size, SIW_TAG_SOURCE);
			if (code != SIW_TERM_OK)
				return code;
		}
		return SIW_TERM_OK;
	}

	case SIW_RDMAP_TERMINATE: {
		/* Its control word came with the header: keep body whole. */
		u32 at = SIW_MPA_LEN_LEN + SIW_UNTAGGED_HDR_LEN;

		rx->term_have = min_t(u32, rx->st.hdr_have > at ?
				      rx->st.hdr_have - at : 0,
				      sizeof(rx->term_body));
		memcpy(rx->term_body, rx->st.hdr + at, rx->term_have);
		return SIW_TERM_OK;
	}

	default:
		return SIW_TERM_RDMAP_OPCODE;
	}
}

/* Places n payload bytes of a Send into the held receive element. */
static int siw_rx_place_send(struct siw_qp *qp, const struct sk_buff *skb,
			     unsigned int off, u32 n)
{
	struct siw_rx *rx = &qp->rx;

	while (n) {
		struct siw_sge *sge;
		u32 take;

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
		if (siw_rx_copy(qp, rx->mem, sge->laddr + rx->rqe_sge_off, skb,
				off, take))
			return -EFAULT;
		rx->rqe_sge_off += take;
		rx->rqe_bytes += take;
		off += take;
		n -= take;
	}
	return 0;
}

static int siw_rx_place(struct siw_qp *qp, const struct sk_buff *skb,
			unsigned int off, u32 n)
{
	struct siw_rx *rx = &qp->rx;

	switch (rx->st.h.opcode) {
	case SIW_RDMAP_WRITE:
	case SIW_RDMAP_READ_RESP:
		if (siw_rx_copy(qp, rx->mem, rx->to, skb, off, n))
			return -EFAULT;
		rx->to += n;
		return 0;
	case SIW_RDMAP_SEND:
	case SIW_RDMAP_SEND_INV:
	case SIW_RDMAP_SEND_SE:
	case SIW_RDMAP_SEND_SE_INV:
		return siw_rx_place_send(qp, skb, off, n);
	case SIW_RDMAP_TERMINATE: {
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
static void siw_rx_got_terminate(struct siw_qp *qp)
{
	struct siw_orq_entry *e;
	struct siw_term_msg msg;
	unsigned long flags;
	u32 pos = 0;
	bool read_waits;

	if (siw_term_decode(qp->rx.term_body, qp->rx.term_have, &msg))
		pr_info_ratelimited("siw: %s: QP %u: peer sent Terminate: %s\n",
				    dev_name(&qp->sdev->base_dev.dev),
				    qp->base_qp.qp_num, siw_term_name(msg.code));
	else
		pr_info_ratelimited("siw: %s: QP %u: peer sent a malformed Terminate\n",
				    dev_name(&qp->sdev->base_dev.dev),
				    qp->base_qp.qp_num);
	spin_lock_irqsave(&qp->orq_lock, flags);
	read_waits = qp->orq_get != qp->orq_put;
	if (read_waits) {
		e = &qp->orq[qp->orq_get % qp->orq_size];
		pos = e->sq_pos;
		read_waits = !e->rtr;
		qp->orq_get++;
	}
	spin_unlock_irqrestore(&qp->orq_lock, flags);
	if (read_waits)
		siw_sq_mark_done(qp, pos, SIW_WC_REM_ACCESS_ERR, 0);
	qp->rx.st.dead = true;
	siw_qp_fatal(qp, IB_EVENT_QP_FATAL);
}

/* The FPDU is complete and its CRC good: finish what it ends. */
static void siw_rx_end(struct siw_qp *qp)
{
	struct siw_rx *rx = &qp->rx;
	struct siw_hdr *h = &rx->st.h;
	struct siw_orq_entry e;
	unsigned long flags;
	u32 inval = 0;

	siw_rx_put_mem(rx);
	if (rx->rtr_frame) {
		rx->rtr_frame = false;
		rx->rtr_await = 0;
		pr_debug("siw: QP %u: RTR received (%s)\n",
			 qp->base_qp.qp_num, siw_op_name(h->opcode));
		siw_qp_rtr_received(qp);
		if (h->opcode == SIW_RDMAP_SEND) {
			rx->msn[SIW_QN_SEND]++;
			return;
		}
		/* A Read RTR is answered like any Read Request, below. */
		if (h->opcode != SIW_RDMAP_READ_REQ)
			return;
	}
	switch (h->opcode) {
	case SIW_RDMAP_READ_RESP:
		spin_lock_irqsave(&qp->orq_lock, flags);
		qp->orq_done_bytes += h->payload_len;
		if (!h->last) {
			spin_unlock_irqrestore(&qp->orq_lock, flags);
			return;
		}
		e = qp->orq[qp->orq_get % qp->orq_size];
		qp->orq_get++;
		qp->orq_done_bytes = 0;
		spin_unlock_irqrestore(&qp->orq_lock, flags);
		if (e.rtr) {
			pr_debug("siw: QP %u: RTR answered\n",
				 qp->base_qp.qp_num);
		} else {
			enum siw_wc_status status = SIW_WC_SUCCESS;

			/*
			 * Read with local invalidate invalidates the sink's
			 * STag, as iWARP RNICs do; ib_core's rdma_rw relies on
			 * it (its ex.invalidate_rkey is the key from before
			 * the registration's increment). A sink that cannot
			 * be invalidated fails the Read.
			 */
			if (e.sqe.opcode == SIW_OP_READ_LOCAL_INV &&
			    siw_mem_invalidate(qp->sdev, e.sqe.sge[0].lkey,
					       qp->base_qp.pd))
				status = SIW_WC_LOC_PROT_ERR;
			siw_sq_mark_done(qp, e.sq_pos, status,
					 e.sqe.num_sge ? e.sqe.sge[0].length : 0);
			if (status != SIW_WC_SUCCESS) {
				siw_qp_fatal(qp, IB_EVENT_QP_FATAL);
				return;
			}
		}
		/* An ORD slot is free: the send queue may go on. */
		siw_tx_schedule(qp);
		return;

	case SIW_RDMAP_SEND:
	case SIW_RDMAP_SEND_INV:
	case SIW_RDMAP_SEND_SE:
	case SIW_RDMAP_SEND_SE_INV:
		rx->mo += h->payload_len;
		if (!h->last)
			return;
		rx->msn[SIW_QN_SEND]++;
		if (h->opcode == SIW_RDMAP_SEND_INV ||
		    h->opcode == SIW_RDMAP_SEND_SE_INV) {
			inval = h->rsvd_ulp;
			if (siw_mem_invalidate(qp->sdev, inval, qp->base_qp.pd)) {
				siw_rx_complete_rqe(qp, 0, SIW_WC_REM_INV_REQ_ERR);
				siw_rx_fail(qp, SIW_TERM_RDMAP_PROT_INVALIDATE);
				return;
			}
		}
		if (h->opcode == SIW_RDMAP_SEND_SE ||
		    h->opcode == SIW_RDMAP_SEND_SE_INV)
			rx->rqe.flags |= SIW_WQE_SOLICITED;
		else
			rx->rqe.flags &= ~SIW_WQE_SOLICITED;
		siw_rx_complete_rqe(qp, inval, SIW_WC_SUCCESS);
		return;

	case SIW_RDMAP_READ_REQ:
		rx->msn[SIW_QN_RREQ]++;
		spin_lock_irqsave(&qp->irq_lock, flags);
		qp->irq[qp->irq_put % qp->irq_size].rreq = h->rreq;
		qp->irq_put++;
		spin_unlock_irqrestore(&qp->irq_lock, flags);
		siw_tx_schedule(qp);
		return;

	case SIW_RDMAP_TERMINATE:
		siw_rx_got_terminate(qp);
		return;
	default:
		return;
	}
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
	return siw_rx_begin(qp);
}

static int siw_rx_op_place(void *ctx, struct siw_rx_stream *s, void *src,
			   u32 off, u32 n)
{
	struct siw_qp *qp = ctx;

	if (!siw_rx_place(qp, src, off, n))
		return 0;
	/* A receive being filled ends with a local protection error. */
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
	for (i = 0; i < SIW_QN_NUM; i++)
		rx->msn[i] = SIW_MSN_FIRST;
}

/* After the connection ended: nothing may stay half received. */
void siw_rx_release(struct siw_qp *qp)
{
	siw_rx_put_mem(&qp->rx);
	siw_rx_complete_rqe(qp, 0, SIW_WC_WR_FLUSH_ERR);
}
