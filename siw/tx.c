// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * The transmitter: runs that start send queue elements (sq.c) and answer
 * inbound Read and Atomic Requests (responder.c), the RTR of peer-to-peer
 * mode and the Terminate, each message cut into FPDUs sized to the
 * connection's MULPDU (tx_msg.c) and handed to the socket.
 *
 * Runs one instance at a time per QP (qp->tx_lock): in the QP's tx_work, on
 * a work queue of its own, inline in a user's doorbell for small
 * messages, or in the receive softirq for Read Responses. No run waits
 * for the socket: a message it has no room for stays in qp->tx_msg
 * (tx_msg.c) and the socket's write_space starts the run that goes on
 * with it.
 *
 * siw is built for 64-bit kernels, which map all memory: payload pages are
 * addressed with page_address() and go to the socket as kvecs.
 */
#include <linux/bvec.h>
#include <linux/highmem.h>
#include <linux/net.h>
#include <linux/stringify.h>
#include <linux/uio.h>
#include <linux/slab.h>
#include <linux/delay.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "tx.h"
#include "cm.h"
#include "trace.h"
#include "wr_ops.h"

#ifdef CONFIG_HIGHMEM
#error "siw needs a kernel without highmem (64-bit)"
#endif

static struct workqueue_struct *siw_tx_wq;

/*
 * Payload a user's doorbell may transmit itself (see siw_tx_doorbell_run());
 * 0 leaves all transmit to the worker. Read at every doorbell, so it can
 * be changed at run time. Inline transmit saves a wake-up per message;
 * the worker lets a thread posting to many QPs go on while other CPUs
 * transmit.
 */
static unsigned int siw_tx_inline_bytes = SIW_TX_INLINE_BYTES;
module_param_named(tx_inline_bytes, siw_tx_inline_bytes, uint, 0644);
MODULE_PARM_DESC(tx_inline_bytes,
		 "payload bytes a user's post_send may transmit itself per call before the transmit worker takes over; 0: the worker always (default 8192)");

/*
 * Read Response payload the receive softirq may send itself per run (see
 * siw_tx_from_rx()), at most SIW_TX_SOFTIRQ_MAX; 0 leaves every response
 * to the worker. Read at every run.
 */
static unsigned int siw_tx_softirq_bytes = SIW_TX_SOFTIRQ_BYTES;
module_param_named(tx_softirq_bytes, siw_tx_softirq_bytes, uint, 0644);
MODULE_PARM_DESC(tx_softirq_bytes,
		 "Read Response payload the receive softirq may send itself per run while the socket is idle, rather than wake the transmit worker, at most " __stringify(SIW_TX_SOFTIRQ_MAX) "; 0: the worker always (default " __stringify(SIW_TX_SOFTIRQ_BYTES) ")");

/*
 * Sends and Writes of at least this many payload bytes from a user's
 * registered memory go to TCP by reference, completing once the stack
 * let go of the pages (tx_zc.c); 0: every message is copied.
 */
static unsigned int siw_tx_zcopy_bytes = SIW_TX_ZCOPY_BYTES;
module_param_named(tx_zcopy_bytes, siw_tx_zcopy_bytes, uint, 0644);
MODULE_PARM_DESC(tx_zcopy_bytes,
		 "Send/Write payload from which user memory is sent zero-copy over GSO-sized FPDUs, completing when TCP no longer needs it; 0: always copy (default " __stringify(SIW_TX_ZCOPY_BYTES) ")");

/*
 * Queues a transmit run on the worker, unconditionally (a run already
 * queued absorbs it). The run holds a QP reference. Any context.
 */
void siw_tx_queue_run(struct siw_qp *qp)
{
	siw_qp_get(qp);
	if (!queue_work(siw_tx_wq, &qp->tx_work))
		siw_qp_put(qp);
}

/*
 * Responder: the initiator's first FPDU has arrived, or the wait for it
 * ended; transmit may start. Returns whether it was held. Any context.
 */
bool siw_tx_release(struct siw_qp *qp)
{
	unsigned long flags;
	bool held;

	spin_lock_irqsave(&qp->state_lock, flags);
	held = qp->tx_held;
	WRITE_ONCE(qp->tx_held, false);
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (held)
		siw_tx_queue_run(qp);
	return held;
}

/*
 * tx_hold_work: the initiator sent nothing in mpa/first_fpdu_wait_ms.
 * Counted when something was waiting to go out (its server spoke first);
 * a connection that carries nothing yet is not.
 */
void siw_tx_hold_expired(struct work_struct *work)
{
	struct siw_qp *qp = container_of(to_delayed_work(work), struct siw_qp,
					 tx_hold_work);
	bool waiting = siw_tx_more_queued(qp);	/* before a run takes it */

	if (siw_tx_release(qp) && waiting) {
		pr_debug("siw: QP %u: no FPDU from the initiator yet; transmitting\n",
			 qp->base_qp.qp_num);
		siw_dev_stat_inc(qp->sdev, SIW_STAT_FIRST_FPDU_LATE);
	}
	siw_qp_put(qp);
}

/* Ends the responder's hold after ms unless the first FPDU comes first. */
void siw_tx_hold_arm(struct siw_qp *qp, u32 ms)
{
	siw_qp_get(qp);
	if (!queue_delayed_work(siw_tx_wq, &qp->tx_hold_work,
				msecs_to_jiffies(ms)))
		siw_qp_put(qp);
}

/* The hold's timer, if queued, will not run. Any context. */
void siw_tx_hold_cancel(struct siw_qp *qp)
{
	if (cancel_delayed_work(&qp->tx_hold_work))
		siw_qp_put(qp);
}

/*
 * Neither queued nor running when this returns, so it cannot queue a
 * transmit run behind siw_tx_quiesce() or end a later connection's hold.
 * Process context.
 */
void siw_tx_hold_stop(struct siw_qp *qp)
{
	if (cancel_delayed_work_sync(&qp->tx_hold_work))
		siw_qp_put(qp);
}

/*
 * Work for the transmit side was published (a Read Request or Terminate
 * to answer, a freed ORD slot or send queue slot): queue a run unless
 * one is going on, which then finds the work itself or, if it looked
 * before, sees tx_kicked at its end (siw_tx_run). The full barriers
 * pair: a wake-up and a run's end cannot both miss each other.
 */
void siw_tx_wake(struct siw_qp *qp)
{
	WRITE_ONCE(qp->tx_kicked, 1);
	smp_mb();	/* pairs with siw_tx_run()'s, after tx_running = false */
	if (READ_ONCE(qp->tx_running))
		return;
	siw_tx_queue_run(qp);
}

/* Looks up and checks the local SGEs of a send queue element. */
static enum siw_wc_status siw_tx_src_sges(struct siw_qp *qp,
					  const struct siw_sqe *sqe,
					  struct siw_tx_src *src)
{
	u32 i;

	memset(src, 0, sizeof(*src));
	if (sqe->flags & SIW_WQE_INLINE) {
		if (sqe->sge[0].length > SIW_MAX_INLINE)
			return SIW_WC_LOC_LEN_ERR;
		src->piece[0].addr = (uintptr_t)&sqe->sge[1];
		src->piece[0].len = sqe->sge[0].length;
		src->num = 1;
		src->total = sqe->sge[0].length;
		return SIW_WC_SUCCESS;
	}
	if (sqe->num_sge > SIW_MAX_SGE)
		return SIW_WC_LOC_QP_OP_ERR;
	for (i = 0; i < sqe->num_sge; i++) {
		const struct siw_sge *sge = &sqe->sge[i];
		struct siw_mem *mem;

		if (!sge->length)
			continue;
		if (sge->length > SIW_MAX_MSG_SIZE - src->total)
			goto len_err;
		mem = siw_mem_get_local(qp->sdev, qp->user, sge->lkey);
		if (!mem)
			goto prot_err;
		src->piece[src->num].mem = mem;
		src->piece[src->num].addr = sge->laddr;
		src->piece[src->num].len = sge->length;
		src->num++;
		if (siw_mem_check(mem, qp->base_qp.pd, 0, sge->laddr,
				  sge->length))
			goto prot_err;
		src->total += sge->length;
	}
	return SIW_WC_SUCCESS;

len_err:
	siw_tx_src_release(src);
	return SIW_WC_LOC_LEN_ERR;
prot_err:
	siw_tx_src_release(src);
	return SIW_WC_LOC_PROT_ERR;
}

/*
 * More to transmit right behind this message: a VALID send queue element
 * or a Read Request to answer. Then the message's end goes to TCP with
 * MSG_MORE, so back-to-back small messages share segments; siw_tx_run()
 * pushes what is left when it stops.
 */
bool siw_tx_more_queued(struct siw_qp *qp)
{
	return siw_sq_startable(qp) ||
	       READ_ONCE(qp->irq_get) != READ_ONCE(qp->irq_put);
}

/* The QP may transmit: connected and not in error. */
static bool siw_tx_may_run(struct siw_qp *qp)
{
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&qp->state_lock, flags);
	ok = qp->connected && qp->sock && !qp->tx_held &&
	     (qp->state == IB_QPS_RTS || qp->state == IB_QPS_SQD ||
	      qp->state == IB_QPS_RTR || qp->state == IB_QPS_INIT);
	spin_unlock_irqrestore(&qp->state_lock, flags);
	return ok;
}

/*
 * The QP's message slot (tx_msg.c), empty: the transmitter starts a new
 * message only once the last one went, or was let go.
 */
struct siw_tx_msg *siw_tx_msg_new(struct siw_qp *qp,
					 enum siw_tx_msg_kind kind)
{
	struct siw_tx_msg *m = qp->tx_msg;

	lockdep_assert_held(&qp->tx_lock);
	WARN_ON_ONCE(m->kind != SIW_TX_MSG_NONE);
	memset(m, 0, sizeof(*m));
	m->kind = kind;
	return m;
}

/* The Read Request of the element in m. */
static int siw_tx_read_request(struct siw_qp *qp, struct siw_tx_msg *m)
{
	const struct siw_sqe *sqe = &m->sqe;
	struct siw_hdr *h = &m->h;
	struct siw_orq_entry *e;
	unsigned long flags;
	u64 len = siw_sqe_sge_len(sqe);

	/*
	 * More than one SGE: the wire names the first as the sink, with
	 * the length of all; the responses, addressed to that sink's
	 * offsets, are scattered over the list (rx.c).
	 */
	if (sqe->num_sge > siw_wr_op(sqe->opcode)->max_sge || len > U32_MAX)
		return -EINVAL;
	h->opcode = SIW_RDMAP_READ_REQ;
	h->msn = qp->tx_msn[SIW_QN_RREQ]++;
	h->rreq.src_stag = sqe->rkey;
	h->rreq.src_to = sqe->raddr;
	if (sqe->num_sge) {
		h->rreq.sink_stag = sqe->sge[0].lkey;
		h->rreq.sink_to = sqe->sge[0].laddr;
		h->rreq.size = len;
	}
	spin_lock_irqsave(&qp->orq_lock, flags);
	e = &qp->orq[qp->orq_put % qp->orq_size];
	memcpy(&e->sqe, sqe, sizeof(*sqe));
	e->sq_pos = m->pos;
	e->kind = SIW_ORQ_READ;
	qp->orq_put++;
	spin_unlock_irqrestore(&qp->orq_lock, flags);
	trace_siw_read_request(qp, SIW_TRACE_ORQ, &h->rreq);
	m->completes_later = true;
	return siw_tx_msg_prepare(qp, m, 0);
}

/*
 * Initiator in peer-to-peer mode (RFC 6581 section 8): the RTR message,
 * before anything else. A zero-length Read Request takes an ORQ slot like
 * any Read, so ORD holds; its response completes no work request.
 */
static int siw_tx_rtr(struct siw_qp *qp, u8 type)
{
	struct siw_tx_msg *m = siw_tx_msg_new(qp, SIW_TX_MSG_RTR);
	struct siw_hdr *h = &m->h;
	struct siw_orq_entry *e;
	unsigned long flags;

	switch (type) {
	case SIW_RTR_WRITE:
		h->opcode = SIW_RDMAP_WRITE;
		break;
	case SIW_RTR_SEND:
		h->opcode = SIW_RDMAP_SEND;
		h->msn = qp->tx_msn[SIW_QN_SEND]++;
		break;
	case SIW_RTR_READ:
		h->opcode = SIW_RDMAP_READ_REQ;
		h->msn = qp->tx_msn[SIW_QN_RREQ]++;
		spin_lock_irqsave(&qp->orq_lock, flags);
		e = &qp->orq[qp->orq_put % qp->orq_size];
		memset(e, 0, sizeof(*e));
		e->kind = SIW_ORQ_RTR;
		qp->orq_put++;
		spin_unlock_irqrestore(&qp->orq_lock, flags);
		break;
	default:
		return -EINVAL;
	}
	pr_debug("siw: QP %u: sending RTR (%s)\n", qp->base_qp.qp_num,
		 siw_op_name(h->opcode));
	siw_qp_stat_add(qp, SIW_STAT_RTR_TX, 1);
	if (h->opcode == SIW_RDMAP_READ_REQ)
		trace_siw_read_request(qp, SIW_TRACE_ORQ, &h->rreq);
	return siw_tx_msg_prepare(qp, m, 0);
}

/*
 * RFC 7306 Atomic Request for a FetchAdd or CmpSwap element: it takes an
 * ORD slot like a Read, and completes with its Atomic Response (rx.c),
 * which is matched by the Request Identifier.
 */
/*
 * The 8-byte result buffer of an atomic, checked before the request goes
 * out: the target must not change for a request that cannot complete.
 */
static enum siw_wc_status siw_tx_atomic_check(struct siw_qp *qp,
					      const struct siw_sqe *sqe)
{
	const struct siw_sge *sge = &sqe->sge[0];
	enum siw_wc_status status = SIW_WC_SUCCESS;
	struct siw_mem *mem;

	if (sqe->num_sge != 1 || sge->length < SIW_ATOMIC_LEN)
		return SIW_WC_LOC_LEN_ERR;
	mem = siw_mem_get_local(qp->sdev, qp->user, sge->lkey);
	if (!mem || siw_mem_check(mem, qp->base_qp.pd, IB_ACCESS_LOCAL_WRITE,
				  sge->laddr, SIW_ATOMIC_LEN))
		status = SIW_WC_LOC_PROT_ERR;
	if (mem)
		siw_mem_put(mem);
	return status;
}

static int siw_tx_atomic_request(struct siw_qp *qp, struct siw_tx_msg *m)
{
	const struct siw_sqe *sqe = &m->sqe;
	struct siw_atomic_req *a = &m->h.atomic;
	struct siw_orq_entry *e;
	unsigned long flags;
	u32 epoch;

	lockdep_assert_held(&qp->tx_lock);
	m->h.opcode = SIW_RDMAP_ATOMIC_REQ;
	m->h.msn = qp->tx_msn[SIW_QN_RREQ]++;
	a->req_id = qp->tx_atomic_id++;
	a->stag = sqe->rkey;
	a->to = sqe->raddr;
	if (sqe->opcode == SIW_OP_FETCH_AND_ADD) {
		a->op = SIW_ATOMIC_FETCH_ADD;
		a->add_swap = m->ext.compare_add;
		/* No field boundaries: one 64-bit add. */
		a->add_swap_mask = 0;
		/* RFC 7306 section 5.2.1: unused by FetchAdd, all ones. */
		a->compare = 0;
		a->compare_mask = ~0ULL;
	} else {
		a->op = SIW_ATOMIC_CMP_SWAP;
		a->add_swap = m->ext.swap;
		a->add_swap_mask = ~0ULL;
		a->compare = m->ext.compare_add;
		a->compare_mask = ~0ULL;
	}
	spin_lock_irqsave(&qp->sq_lock, flags);
	epoch = qp->sq_epoch;
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	spin_lock_irqsave(&qp->orq_lock, flags);
	e = &qp->orq[qp->orq_put % qp->orq_size];
	memcpy(&e->sqe, sqe, sizeof(*sqe));
	e->sq_pos = m->pos;
	e->kind = SIW_ORQ_ATOMIC;
	e->atomic_id = a->req_id;
	e->sq_epoch = epoch;
	qp->orq_put++;
	spin_unlock_irqrestore(&qp->orq_lock, flags);
	m->completes_later = true;
	return siw_tx_msg_prepare(qp, m, 0);
}

/*
 * RFC 7306 Immediate Data carrying a verbs immediate (siw's use of its 8
 * bytes, protocol.rst) as m's next message: for the Send that follows, or
 * ending an RDMA Write. The Solicited Event flag of the work request goes
 * with the message that completes the receive. m->src stays as it is.
 */
static int siw_tx_immediate(struct siw_qp *qp, struct siw_tx_msg *m,
			    u32 desc, bool se)
{
	lockdep_assert_held(&qp->tx_lock);
	memset(&m->h, 0, sizeof(m->h));
	m->h.opcode = se ? SIW_RDMAP_IMM_SE : SIW_RDMAP_IMM;
	m->h.msn = qp->tx_msn[SIW_QN_SEND]++;
	m->h.imm = siw_imm_word(m->ext.imm, desc);
	return siw_tx_msg_prepare(qp, m, 0);
}

/*
 * The pending Terminate, once, as an FPDU in buf (at least
 * SIW_TX_TERM_MAX bytes); returns its length, 0 if none is due.
 */
#define SIW_TX_TERM_MAX	(SIW_MPA_LEN_LEN + SIW_TERM_ULPDU_MAX + 8)
static u32 siw_tx_terminate_build(struct siw_qp *qp, u8 *buf)
{
	struct siw_hdr th = { .opcode = SIW_RDMAP_TERMINATE, .last = true,
			      .qn = SIW_QN_TERM };
	enum siw_term_code code;
	unsigned long flags;
	u32 ulen, pad, crc = 0, len;

	lockdep_assert_held(&qp->tx_lock);
	spin_lock_irqsave(&qp->state_lock, flags);
	code = qp->term_code;
	if (code == SIW_TERM_OK || qp->term_sent) {
		spin_unlock_irqrestore(&qp->state_lock, flags);
		return 0;
	}
	qp->term_sent = true;
	spin_unlock_irqrestore(&qp->state_lock, flags);

	th.msn = qp->tx_msn[SIW_QN_TERM];
	ulen = siw_term_build(qp->tx_msn[SIW_QN_TERM]++, code,
			      qp->term_hdr_len ? qp->term_hdr : NULL,
			      qp->term_hdr_len, buf + SIW_MPA_LEN_LEN,
			      SIW_TERM_ULPDU_MAX);
	if (!ulen)
		return 0;
	siw_fpdu_put_len(buf, ulen);
	pad = siw_mpa_pad(ulen);
	if (qp->crc) {
		struct siw_frag none;

		crc = siw_fpdu_crc(buf, SIW_MPA_LEN_LEN + ulen, &none, 0, pad);
	}
	len = SIW_MPA_LEN_LEN + ulen;
	len += siw_fpdu_trailer(buf + len, pad, crc);
	trace_siw_fpdu_tx(qp, &th, ulen - SIW_TERM_HDR_LEN);
	siw_qp_stat_add(qp, SIW_STAT_FPDU_TX, 1);
	siw_qp_stat_add(qp, siw_term_layer(code) == SIW_TERM_LAYER_RDMAP ?
			SIW_STAT_TERM_TX_RDMAP :
			siw_term_layer(code) == SIW_TERM_LAYER_DDP ?
			SIW_STAT_TERM_TX_DDP : SIW_STAT_TERM_TX_MPA, 1);
	if (trace_siw_terminate_enabled())
		trace_siw_terminate(qp, true,
				    siw_term_layer(code), siw_term_etype(code),
				    siw_term_ecode(code), siw_term_name(code),
				    qp->term_hdr, qp->term_hdr_len);
	return len;
}

/*
 * Bytes of a send queue element (our copy): what it sends, or for a Read
 * what it asks for.
 */
static u64 siw_sqe_bytes(const struct siw_sqe *sqe)
{
	const struct siw_wr_op *op = siw_wr_op(sqe->opcode);
	u64 total = 0;
	u32 i;

	if (op && op->kind == SIW_WR_READ)
		return siw_sqe_sge_len(sqe);
	if (!op || !(op->flags & SIW_WR_PAYLOAD))
		return 0;
	if (sqe->flags & SIW_WQE_INLINE)
		return sqe->sge[0].length;
	for (i = 0; i < min_t(u32, sqe->num_sge, SIW_MAX_SGE); i++)
		total += sqe->sge[i].length;
	return total;
}

/*
 * May a doorbell send a message of @len payload bytes itself? Only if it
 * fits the budget and the socket can take all of it now, so that the
 * user's system call does not wait for the peer (and no signal can
 * interrupt a half-sent FPDU). Charges the budget if so.
 */
bool siw_tx_doorbell_fits(struct siw_qp *qp, u64 len, u32 *budget)
{
	struct sock *sk = qp->sock->sk;
	u64 wire;

	if (len > *budget)
		return false;
	/* Each FPDU adds at most a header, pad and CRC. */
	wire = len + (u64)siw_fpdu_count(qp->mulpdu, SIW_HDR_MAX, (u32)len) *
		     (SIW_FPDU_HDR_MAX + SIW_TX_TRAILER_MAX);
	if (!sk_stream_memory_free(sk) || wire > sk_stream_wspace(sk))
		return false;
	*budget -= len;
	return true;
}

/* The same for a send queue element. */
static bool siw_tx_doorbell_may_send(struct siw_qp *qp,
				     const struct siw_sqe *sqe, u32 *budget)
{
	const struct siw_wr_op *op = siw_wr_op(sqe->opcode);

	/* A Read Request's bytes come back; it sends none. */
	return siw_tx_doorbell_fits(qp, op && op->kind == SIW_WR_READ ? 0 :
				    siw_sqe_bytes(sqe), budget);
}

/*
 * Zero-copy for this message? Large enough, and every piece in pinned
 * user pages (kernel consumers' buffers may be slab memory, which must
 * not go to the stack by reference).
 */
static bool siw_tx_zc_wanted(const struct siw_qp *qp,
			     const struct siw_tx_src *src)
{
	u32 min = READ_ONCE(siw_tx_zcopy_bytes), i;

	/*
	 * With FPDUs of one TCP segment, a message would take two socket
	 * calls per FPDU (headers are copied, payload not): only GSO-sized
	 * FPDUs pay.
	 */
	if (!min || !qp->user || src->total < min ||
	    qp->mulpdu < SIW_TX_ZCOPY_MIN_FPDU)
		return false;
	for (i = 0; i < src->num; i++)
		if (!src->piece[i].mem ||
		    src->piece[i].mem->type != SIW_MEM_USER)
			return false;
	return true;
}

/* The element's Send or Write: zero-copy if siw_tx_zc_wanted(), else copied. */
static int siw_tx_payload_message(struct siw_qp *qp, struct siw_tx_msg *m)
{
	if (siw_tx_zc_wanted(qp, &m->src))
		m->zc = siw_zc_start(qp, m->pos, m->src.total);
	if (m->zc)
		WRITE_ONCE(qp->tx_zc_msgs, qp->tx_zc_msgs + 1);
	return siw_tx_msg_prepare(qp, m, m->src.total);
}

/* The header of the element's Send. */
static void siw_tx_send_hdr(struct siw_qp *qp, struct siw_tx_msg *m)
{
	bool se = m->sqe.flags & SIW_WQE_SOLICITED;

	memset(&m->h, 0, sizeof(m->h));
	if (siw_wr_op(m->sqe.opcode)->flags & SIW_WR_INV_KEY) {
		m->h.opcode = se ? SIW_RDMAP_SEND_SE_INV : SIW_RDMAP_SEND_INV;
		m->h.rsvd_ulp = m->sqe.rkey;
	} else {
		m->h.opcode = se ? SIW_RDMAP_SEND_SE : SIW_RDMAP_SEND;
	}
	m->h.msn = qp->tx_msn[SIW_QN_SEND]++;
}

/*
 * The end of the element's last message (err: how it went), or of an
 * element that sent none (status). A zero-copy message's slot is marked
 * done when the stack lets go of its pages (siw_sq_zc_done), not here.
 */
static enum siw_tx_step siw_tx_sqe_end(struct siw_qp *qp, struct siw_tx_msg *m,
				       int err, enum siw_wc_status status)
{
	struct siw_zc *zc = m->zc;

	lockdep_assert_held(&qp->tx_lock);
	m->kind = SIW_TX_MSG_NONE;
	siw_tx_src_release(&m->src);
	if (!err && status == SIW_WC_SUCCESS && m->completes_later) {
		siw_sq_release_held(qp);
		return SIW_TX_SENT;	/* completes with its response */
	}
	/*
	 * The connection went away under the send (the peer closed or
	 * reset it, or we are tearing it down): nothing local failed, the
	 * request is flushed like those behind it, and the connection
	 * manager reports the disconnect; no QP_FATAL event.
	 */
	if (err == -EPIPE || err == -ECONNRESET || err == -ENOTCONN ||
	    err == -ESHUTDOWN) {
		siw_sq_mark_done(qp, m->pos, SIW_WC_WR_FLUSH_ERR, 0);
		siw_sq_release_held(qp);
		pr_debug("siw: QP %u: connection lost while sending (%d)\n",
			 qp->base_qp.qp_num, err);
		siw_qp_fatal(qp, 0);
		goto failed;
	}
	if (err)
		status = SIW_WC_GENERAL_ERR;
	if (zc && status == SIW_WC_SUCCESS) {
		/* Done when the stack lets go of the pages, maybe now. */
		siw_zc_end(zc, status);
		siw_sq_release_held(qp);
		return SIW_TX_SENT;
	}
	siw_sq_mark_done(qp, m->pos, status, m->src.total);
	siw_sq_release_held(qp);
	if (status != SIW_WC_SUCCESS) {
		pr_info_ratelimited("siw: %s: QP %u: work request (opcode %u) failed: status %u, error %d\n",
				    dev_name(&qp->sdev->base_dev.dev),
				    qp->base_qp.qp_num, m->sqe.opcode, status,
				    err);
		siw_qp_fatal(qp, IB_EVENT_QP_FATAL);
		goto failed;
	}
	return SIW_TX_SENT;

failed:
	/*
	 * The slot completed in error and the queue was flushed: a zero-copy
	 * message ending now or later finds its token stale.
	 */
	if (zc)
		siw_zc_end(zc, SIW_WC_GENERAL_ERR);
	return SIW_TX_BLOCKED;
}

/* What the end of the QP's message does; err: how it went. */
static enum siw_tx_step siw_tx_msg_end(struct siw_qp *qp, int err)
{
	struct siw_tx_msg *m = qp->tx_msg;
	enum siw_tx_msg_kind kind = m->kind;

	lockdep_assert_held(&qp->tx_lock);
	m->kind = SIW_TX_MSG_NONE;
	switch (kind) {
	case SIW_TX_MSG_SQE:
		return siw_tx_sqe_end(qp, m, err, SIW_WC_SUCCESS);
	case SIW_TX_MSG_READ_RESP:
		siw_tx_read_response_end(qp, m, err);
		break;
	case SIW_TX_MSG_RTR:
		if (err)
			siw_qp_fatal(qp, IB_EVENT_QP_FATAL);
		break;
	default:
		break;
	}
	return err ? SIW_TX_BLOCKED : SIW_TX_SENT;
}

/*
 * Sends the QP's message on (err: it could not even be made); after a
 * Send or Write with immediate's first message, its second. SIW_TX_WAIT:
 * the socket is full, the message stays and write_space resumes it;
 * otherwise the message ended (siw_tx_msg_end).
 */
enum siw_tx_step siw_tx_msg_go(struct siw_qp *qp, int err)
{
	struct siw_tx_msg *m = qp->tx_msg;

	lockdep_assert_held(&qp->tx_lock);
	while (!err) {
		enum siw_tx_then then = m->then;

		err = siw_tx_msg_send(qp, m);
		if (err == -EAGAIN)
			return SIW_TX_WAIT;
		if (err || then == SIW_TX_THEN_NONE)
			break;
		m->then = SIW_TX_THEN_NONE;
		if (then == SIW_TX_THEN_IMM) {
			err = siw_tx_immediate(qp, m, SIW_IMM_FOR_WRITE,
					       m->sqe.flags & SIW_WQE_SOLICITED);
		} else {
			siw_tx_send_hdr(qp, m);
			err = siw_tx_payload_message(qp, m);
		}
	}
	return siw_tx_msg_end(qp, err);
}

/*
 * Lets go of the QP's message, whatever is left of it: the connection is
 * ending. Its element completes as flushed, and the flush it held back
 * follows.
 */
static void siw_tx_msg_abandon(struct siw_qp *qp)
{
	struct siw_tx_msg *m = qp->tx_msg;
	enum siw_tx_msg_kind kind = m->kind;

	lockdep_assert_held(&qp->tx_lock);
	m->kind = SIW_TX_MSG_NONE;
	switch (kind) {
	case SIW_TX_MSG_SQE:
		siw_tx_src_release(&m->src);
		siw_sq_mark_done(qp, m->pos, SIW_WC_WR_FLUSH_ERR, 0);
		if (m->zc)
			siw_zc_end(m->zc, SIW_WC_GENERAL_ERR);
		siw_sq_release_held(qp);
		break;
	case SIW_TX_MSG_READ_RESP:
		siw_tx_read_response_end(qp, m, -ECONNABORTED);
		break;
	default:
		break;
	}
}

/*
 * May the element start now? Not while ORD is used up (a Read or Atomic
 * waits for a response to complete), nor with a read fence while any
 * is outstanding.
 */
static bool siw_tx_sqe_may_start(struct siw_qp *qp, const struct siw_wr_op *op,
				 const struct siw_sqe *sqe)
{
	bool ord = op && (op->flags & SIW_WR_ORD);
	unsigned long flags;
	bool busy;

	if (!ord && !(sqe->flags & SIW_WQE_READ_FENCE))
		return true;
	spin_lock_irqsave(&qp->orq_lock, flags);
	if (ord)
		busy = qp->orq_put - qp->orq_get >= min(qp->ord, qp->orq_size);
	else
		busy = qp->orq_put != qp->orq_get;
	spin_unlock_irqrestore(&qp->orq_lock, flags);
	return !busy;
}

/* The started element's first message, by what it does (op->kind). */
static enum siw_tx_step siw_tx_sqe_go(struct siw_qp *qp, struct siw_tx_msg *m,
				      const struct siw_wr_op *op)
{
	enum siw_wc_status status = SIW_WC_SUCCESS;
	struct ib_mr *mr;

	/*
	 * RFC 7306 work requests, and fast registration: kernel QPs only (a
	 * user's element naming one is refused); the former only on a
	 * connection that negotiated them.
	 */
	if (!op || ((op->flags & SIW_WR_KERNEL) && qp->user) ||
	    ((op->flags & SIW_WR_EXT) && !qp->ext))
		return siw_tx_sqe_end(qp, m, 0, SIW_WC_LOC_QP_OP_ERR);

	switch (op->kind) {
	case SIW_WR_ATOMIC:
		status = siw_tx_atomic_check(qp, &m->sqe);
		if (status)
			break;
		return siw_tx_msg_go(qp, siw_tx_atomic_request(qp, m));
	case SIW_WR_SEND:
		status = siw_tx_src_sges(qp, &m->sqe, &m->src);
		if (status)
			break;
		/* The immediate first: the Send's end completes both. */
		if (op->flags & SIW_WR_IMM) {
			m->then = SIW_TX_THEN_SEND;
			return siw_tx_msg_go(qp, siw_tx_immediate(qp, m,
						 SIW_IMM_FOR_SEND, false));
		}
		siw_tx_send_hdr(qp, m);
		return siw_tx_msg_go(qp, siw_tx_payload_message(qp, m));
	case SIW_WR_WRITE:
		status = siw_tx_src_sges(qp, &m->sqe, &m->src);
		if (status)
			break;
		m->h.opcode = SIW_RDMAP_WRITE;
		m->h.stag = m->sqe.rkey;
		m->h.to = m->sqe.raddr;
		/* The immediate behind the Write's last byte. */
		if (op->flags & SIW_WR_IMM)
			m->then = SIW_TX_THEN_IMM;
		return siw_tx_msg_go(qp, siw_tx_payload_message(qp, m));
	case SIW_WR_READ:
		return siw_tx_msg_go(qp, siw_tx_read_request(qp, m));
	case SIW_WR_REG_MR:
		mr = (struct ib_mr *)(uintptr_t)m->sqe.base_mr;
		if (siw_mem_fast_reg(to_siw_mr(mr)->mem, mr, m->sqe.rkey,
				     (int)m->sqe.access))
			status = SIW_WC_LOC_QP_OP_ERR;
		break;
	case SIW_WR_INVAL:
		if (siw_mem_invalidate(qp->sdev, m->sqe.rkey, qp->base_qp.pd))
			status = SIW_WC_LOC_PROT_ERR;
		break;
	default:
		status = SIW_WC_LOC_QP_OP_ERR;
	}
	return siw_tx_sqe_end(qp, m, 0, status);
}

/*
 * Starts the next send queue element. @budget: NULL in the worker; in a
 * doorbell, the payload it may still send, which this charges. The
 * element is held (sq_held) until its last message went or was let go:
 * a flush meanwhile waits, so that no buffer it names is read after its
 * owner saw it complete.
 */
static enum siw_tx_step siw_tx_sqe(struct siw_qp *qp, u32 *budget)
{
	struct siw_sqe *slot = &qp->sendq[qp->sq_next % qp->num_sqe];
	enum siw_sq_next next = siw_sq_peek(qp);
	const struct siw_wr_op *op;
	u32 pos = qp->sq_next;
	struct siw_tx_msg *m;

	lockdep_assert_held(&qp->tx_lock);
	/* Nothing to start; a full ring resumes as elements complete. */
	if (next == SIW_SQ_EMPTY)
		return SIW_TX_EMPTY;
	if (next == SIW_SQ_FULL)
		return SIW_TX_RING_FULL;
	/* From here on only our copy counts. */
	m = siw_tx_msg_new(qp, SIW_TX_MSG_NONE);
	memcpy(&m->sqe, slot, sizeof(m->sqe));
	/* Written by post_send before the slot turned VALID (kernel QPs). */
	if (qp->sq_ext)
		m->ext = qp->sq_ext[pos % qp->num_sqe];
	if (budget && !siw_tx_doorbell_may_send(qp, &m->sqe, budget))
		return SIW_TX_DEFER;
	pr_debug("siw: QP %u: sqe %u opcode %u flags 0x%x num_sge %u\n",
		 qp->base_qp.qp_num, pos, m->sqe.opcode, m->sqe.flags,
		 m->sqe.num_sge);
	op = siw_wr_op(m->sqe.opcode);
	if (!siw_tx_sqe_may_start(qp, op, &m->sqe))
		return SIW_TX_BLOCKED;	/* until a response completes */

	/* A flush completed the slot since we looked: nothing to start. */
	if (!siw_sq_start(qp, pos))
		return SIW_TX_BLOCKED;
	m->kind = SIW_TX_MSG_SQE;
	m->pos = pos;
	/* Started: not before, where ORD or a fence may hold it back. */
	if (trace_siw_wqe_start_enabled())
		trace_siw_wqe_start(qp, SIW_TRACE_SQ, pos, m->sqe.id,
				    m->sqe.opcode, siw_sqe_bytes(&m->sqe));
	return siw_tx_sqe_go(qp, m, op);
}

/*
 * Waits, at most @timeout, until the peer has acknowledged everything we
 * sent, the Terminate included. Closing at once loses it when the peer
 * still sends: data arriving at a closed socket draws a reset, and over
 * loopback that reset can overtake the Terminate (segments sent from
 * different CPUs keep no order), so the peer saw only a reset.
 */
static void siw_tx_wait_acked(struct sock *sk, unsigned long timeout)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	unsigned long end = jiffies + timeout;

	while (READ_ONCE(tp->snd_una) != READ_ONCE(tp->write_seq) &&
	       READ_ONCE(sk->sk_state) == TCP_ESTABLISHED &&
	       time_before(jiffies, end))
		usleep_range(200, 1000);
}

/*
 * Pushes what is left of the QP's batch, waiting for room at most until
 * @end: the connection is closing, and a Terminate must follow whole
 * FPDUs. True if all of it went.
 */
static bool siw_tx_push_for_close(struct siw_qp *qp, unsigned long end)
{
	int err;

	for (;;) {
		err = siw_tx_msg_push(qp, qp->tx_msg);
		if (err != -EAGAIN)
			return !err;
		if (time_after(jiffies, end))
			return false;
		usleep_range(200, 1000);
	}
}

/*
 * A Terminate decision: send it, then end the connection. The Terminate
 * goes after the rest of the batch the socket had no room for (its
 * element is still held, so its buffers are still ours), each waiting for
 * room at most SIW_TERM_ACK_WAIT_MS: a peer that keeps its window shut
 * gets no Terminate, only the close.
 */
static void siw_tx_terminate_and_close(struct siw_qp *qp)
{
	unsigned long end = jiffies + msecs_to_jiffies(SIW_TERM_ACK_WAIT_MS);
	struct siw_tx_msg *m = qp->tx_msg;
	u8 term[SIW_TX_TERM_MAX];
	struct siw_cep *cep = NULL;
	struct sock *sk = NULL;
	unsigned long flags;
	bool framed = true;
	u32 len;

	lockdep_assert_held(&qp->tx_lock);
	spin_lock_irqsave(&qp->state_lock, flags);
	if (qp->connected && qp->cep) {
		cep = qp->cep;
		kref_get(&cep->ref);
		/* The socket may be released meanwhile; its sock stays. */
		if (qp->sock) {
			sk = qp->sock->sk;
			sock_hold(sk);
		}
	}
	spin_unlock_irqrestore(&qp->state_lock, flags);
	if (!cep)
		return;
	if (m->kind != SIW_TX_MSG_NONE) {
		framed = sk && siw_tx_push_for_close(qp, end);
		siw_tx_msg_abandon(qp);
	}
	len = framed && sk ? siw_tx_terminate_build(qp, term) : 0;
	if (len) {
		m->kind = SIW_TX_MSG_TERM;
		m->zc = NULL;
		m->src.bounce = false;
		m->more = 0;
		qp->tx_kv[0].iov_base = term;
		qp->tx_kv[0].iov_len = len;
		m->kv_next = 0;
		m->kv_num = 1;
		siw_tx_push_for_close(qp, end);
		m->kind = SIW_TX_MSG_NONE;	/* term[] is on this stack */
		m->kv_num = 0;
	}
	if (sk) {
		siw_tx_wait_acked(sk, msecs_to_jiffies(SIW_TERM_ACK_WAIT_MS));
		sock_put(sk);
	}
	siw_cm_qp_down(cep, false);
	siw_cep_put(cep);
}

/*
 * A run leaves work to the worker: queued once the run let go of tx_lock
 * (siw_tx_unlock_and_queue). Queued while holding it, the worker would
 * wake up only to wait for the lock, and a bit lock's waiter sleeps: a
 * second wake-up per message (Write at 64 KiB over loopback, 0.83 times
 * as fast, every doorbell handing its large message to the worker).
 */
static void siw_tx_run_later(struct siw_qp *qp)
{
	lockdep_assert_held(&qp->tx_lock);
	qp->tx_run_later = true;
}

static void siw_tx_unlock_and_queue(struct siw_qp *qp)
{
	bool later = qp->tx_run_later;

	lockdep_assert_held(&qp->tx_lock);
	qp->tx_run_later = false;
	siw_tx_unlock(qp);
	if (later)
		siw_tx_queue_run(qp);
}

/* Where a transmit run runs, which decides what it may do. */
enum siw_tx_ctx {
	SIW_TX_IN_WORKER,	/* tx_work: everything */
	SIW_TX_IN_DOORBELL,	/* a user's post_send: small messages */
	SIW_TX_IN_SOFTIRQ,	/* the receive softirq: Read Responses */
};

/*
 * One step of an inline run (doorbell or receive softirq): a Read Response
 * first, as the worker does, then, from the doorbell only, one send queue
 * element. SIW_TX_SENT: the run may go on.
 */
static enum siw_tx_step siw_tx_inline_step(struct siw_qp *qp, bool in_softirq,
					   u32 *budget)
{
	enum siw_tx_step step;

	step = siw_tx_doorbell_read_response(qp, budget);
	switch (step) {
	case SIW_TX_DEFER:
		siw_tx_run_later(qp);
		return step;
	case SIW_TX_SENT:
	case SIW_TX_BLOCKED:
	case SIW_TX_WAIT:
		return step;
	default:
		break;
	}
	/* The send queue is the worker's and the doorbell's. */
	if (in_softirq)
		return step;
	step = siw_tx_sqe(qp, budget);
	if (step == SIW_TX_DEFER)
		siw_tx_run_later(qp);
	return step;
}

/*
 * The transmit loop. Must hold tx_lock. In the worker it runs until
 * nothing is left. Inline in a doorbell it sends only send queue
 * elements and Read Responses, at most SIW_TX_INLINE_SQES of them and
 * tx_inline_bytes of payload in all; in the receive softirq only Read
 * Responses, within tx_softirq_bytes. Inline, each goes only if the
 * socket can take it at once, so the call returns soon; the rest, Atomic
 * Responses in the softirq, and a Terminate go to the worker. Returns
 * the last step: SIW_TX_EMPTY if it stopped because there was nothing
 * more it may start.
 */
static enum siw_tx_step siw_tx_run_queue(struct siw_qp *qp,
					 enum siw_tx_ctx ctx)
{
	bool in_softirq = ctx == SIW_TX_IN_SOFTIRQ;
	bool inline_run = ctx != SIW_TX_IN_WORKER;
	u32 budget = in_softirq ? min_t(u32, READ_ONCE(siw_tx_softirq_bytes),
					SIW_TX_SOFTIRQ_MAX) :
				  READ_ONCE(siw_tx_inline_bytes);
	enum siw_tx_step step = SIW_TX_BLOCKED;
	u32 sqes = 0;

	lockdep_assert_held(&qp->tx_lock);
	for (;;) {
		struct siw_irq_entry e;

		/*
		 * Kicks before this are answered by what follows: the xchg()
		 * orders our look at the queues after the kicker's publishing.
		 */
		xchg(&qp->tx_kicked, 0);
		if (!siw_tx_may_run(qp)) {
			/*
			 * What a closing QP still has to do (its Terminate,
			 * a message to let go of) is the worker's: an inline
			 * run must not swallow the kick that asked for it.
			 */
			if (inline_run &&
			    (READ_ONCE(qp->term_code) != SIW_TERM_OK ||
			     qp->tx_msg->kind != SIW_TX_MSG_NONE))
				siw_tx_run_later(qp);
			break;
		}
		if (READ_ONCE(qp->term_code) != SIW_TERM_OK) {
			if (inline_run)
				siw_tx_run_later(qp);
			else
				siw_tx_terminate_and_close(qp);
			return SIW_TX_BLOCKED;
		}
		/*
		 * A message the socket had no room for: the worker goes on
		 * with it. An inline run leaves it to the worker, which it
		 * wakes: the kick it took above may have been write_space's.
		 */
		if (qp->tx_msg->kind != SIW_TX_MSG_NONE) {
			if (inline_run) {
				siw_tx_run_later(qp);
				return SIW_TX_WAIT;
			}
			step = siw_tx_msg_go(qp, 0);
			if (step != SIW_TX_SENT)
				return step;
			continue;
		}
		if (qp->rtr_send) {
			u8 type = qp->rtr_send;

			if (in_softirq) {
				siw_tx_run_later(qp);
				return SIW_TX_DEFER;
			}
			qp->rtr_send = 0;
			step = siw_tx_msg_go(qp, siw_tx_rtr(qp, type));
			if (step != SIW_TX_SENT)
				return step;
			continue;
		}
		if (inline_run) {
			if (sqes++ == SIW_TX_INLINE_SQES) {
				siw_tx_run_later(qp);
				return SIW_TX_DEFER;
			}
			step = siw_tx_inline_step(qp, in_softirq, &budget);
			if (step != SIW_TX_SENT)
				return step;
			continue;
		}
		if (siw_irq_peek(qp, &e)) {
			siw_irq_pop(qp);
			step = siw_tx_msg_go(qp, siw_tx_inbound_response(qp, &e));
			if (step != SIW_TX_SENT)
				return step;
			continue;
		}
		step = siw_tx_sqe(qp, NULL);
		if (step != SIW_TX_SENT)
			return step;
	}
	return SIW_TX_BLOCKED;
}

/*
 * siw_tx_run_queue(), flagged as running (siw_sq_complete_ready() then
 * leaves the next element to it), and a push of what it left corked.
 */
static void siw_tx_run(struct siw_qp *qp, enum siw_tx_ctx ctx)
{
	static const enum siw_stat runs[] = {
		[SIW_TX_IN_WORKER] = SIW_STAT_TX_WORKER_RUNS,
		[SIW_TX_IN_DOORBELL] = SIW_STAT_TX_INLINE_RUNS,
		[SIW_TX_IN_SOFTIRQ] = SIW_STAT_TX_SOFTIRQ_RUNS,
	};
	enum siw_tx_step step;
	struct socket *sock;

	lockdep_assert_held(&qp->tx_lock);
	siw_qp_stat_add(qp, runs[ctx], 1);
	WRITE_ONCE(qp->tx_running, true);
	smp_mb();	/* kickers that miss it are seen by the xchg() below */
	step = siw_tx_run_queue(qp, ctx);
	/*
	 * The last message went out with MSG_MORE, expecting company that
	 * did not come (or must wait, for ORD or the worker): push it. Not
	 * in the softirq, where the socket cannot be locked: the worker,
	 * which takes what the softirq left, pushes it then.
	 */
	sock = qp->sock;
	if (qp->tx_corked && sock) {
		if (ctx == SIW_TX_IN_SOFTIRQ) {
			siw_tx_run_later(qp);
		} else {
			qp->tx_corked = false;
			tcp_sock_set_cork(sock->sk, false);
		}
	}
	/*
	 * No room with nothing in flight: TCP is short of memory, not of
	 * window, and called write_space already (so we were kicked); no
	 * ACK will come to make room. Pause before the next try rather than
	 * spin, as a blocking send would have (sk_stream_wait_memory).
	 */
	if (step == SIW_TX_WAIT && ctx == SIW_TX_IN_WORKER && sock &&
	    tcp_rtx_and_write_queues_empty(sock->sk))
		usleep_range(1000, 2000);
	/*
	 * A response the softirq began but could not finish (no pages, no
	 * room): the worker goes on with it.
	 */
	if (ctx == SIW_TX_IN_SOFTIRQ && qp->tx_msg->kind != SIW_TX_MSG_NONE)
		siw_tx_run_later(qp);
	WRITE_ONCE(qp->tx_running, false);
	smp_mb();	/* pairs with siw_tx_wake()'s, after tx_kicked = 1 */
	/* Kicked after our last look at the queues (siw_tx_wake). */
	if (READ_ONCE(qp->tx_kicked)) {
		siw_tx_run_later(qp);
		return;
	}
	/*
	 * A user who saw an older element still VALID skips the doorbell: if
	 * we stopped at an empty slot or a full ring, look once more. The
	 * softirq starts no element: what it found queued is the worker's.
	 */
	if ((step == SIW_TX_EMPTY || step == SIW_TX_RING_FULL) &&
	    siw_sq_startable(qp))
		siw_tx_run_later(qp);
}

void siw_tx_work(struct work_struct *work)
{
	struct siw_qp *qp = container_of(work, struct siw_qp, tx_work);

	siw_tx_lock(qp);
	if (READ_ONCE(qp->term_code) != SIW_TERM_OK)
		siw_tx_terminate_and_close(qp);
	else
		siw_tx_run(qp, SIW_TX_IN_WORKER);
	siw_tx_unlock_and_queue(qp);
	siw_qp_put(qp);
}

/*
 * A user's doorbell (post_send, process context): transmit right here
 * rather than wake the worker, which saves a context switch per message.
 * If a run is going on already, it or the worker picks the work up.
 */
void siw_tx_doorbell_run(struct siw_qp *qp)
{
	if (!READ_ONCE(siw_tx_inline_bytes) || !siw_tx_trylock(qp)) {
		siw_tx_queue_run(qp);
		return;
	}
	siw_tx_run(qp, SIW_TX_IN_DOORBELL);
	siw_tx_unlock_and_queue(qp);
}

/*
 * The receive path left the transmitter work (siw_rx_sock), most often a
 * Read Request to answer. In the receive softirq, with the socket's
 * spinlock held, no process owning the socket and nothing queued on it,
 * answer Read Requests right here (tx_softirq_bytes at most): the
 * response leaves without a worker's wake-up, most of a small Read's
 * round trip. A socket with data queued is left to the worker, which
 * then sends more per call; so is everything else. TCP may be called
 * from softirq under the socket's spinlock when no process owns it, as
 * long as it does not sleep or use the task's memory
 * (siw_sock_atomic_begin).
 */
void siw_tx_from_rx(struct siw_qp *qp, struct sock *sk)
{
	struct siw_sock_saved saved;

	if (!READ_ONCE(siw_tx_softirq_bytes) || !in_serving_softirq() ||
	    sock_owned_by_user(sk) || !tcp_rtx_and_write_queues_empty(sk) ||
	    READ_ONCE(qp->irq_get) == READ_ONCE(qp->irq_put) ||
	    !siw_tx_trylock(qp)) {
		siw_tx_wake(qp);
		return;
	}
	/* The QP's first Read Response sets up its pages (GFP_KERNEL). */
	if (!qp->tx_bounce || !qp->tx_bv) {
		siw_tx_unlock(qp);
		siw_tx_wake(qp);
		return;
	}
	lockdep_assert_held(&sk->sk_lock.slock);
	siw_sock_atomic_begin(sk, &saved);
	qp->tx_in_softirq = true;
	siw_tx_run(qp, SIW_TX_IN_SOFTIRQ);
	qp->tx_in_softirq = false;
	siw_sock_atomic_end(sk, &saved);
	siw_tx_unlock_and_queue(qp);
}

void siw_tx_bitlock_init(struct siw_tx_bitlock *lock)
{
	static struct lock_class_key key;

	lock->bit = 0;
	/* A sleeping lock to lockdep's wait-context checks, as a mutex. */
	lockdep_init_map_wait(&lock->dep_map, "&qp->tx_lock", &key, 0,
			      LD_WAIT_SLEEP);
}

/*
 * No transmit run is queued or running when this returns, and no message
 * is left half sent (its element completes as flushed); a run started
 * afterwards sees what the caller changed under state_lock before. For a
 * QP whose connection is ending.
 */
void siw_tx_quiesce(struct siw_qp *qp)
{
	if (cancel_work_sync(&qp->tx_work))
		siw_qp_put(qp);
	siw_tx_lock(qp);
	siw_tx_msg_abandon(qp);
	/* Nothing to push: a later run must not touch the socket. */
	qp->tx_corked = false;
	siw_tx_unlock(qp);
}

/*
 * sk_write_space of an established connection: the socket has room again
 * (TCP calls it only after a send met a full socket, SOCK_NOSPACE). A
 * run that stopped there (SIW_TX_WAIT) goes on. Softirq, or process
 * context on release_sock().
 */
void siw_tx_write_space(struct sock *sk)
{
	struct siw_cep *cep;

	read_lock_bh(&sk->sk_callback_lock);
	cep = sk->sk_user_data;
	if (cep) {
		/* TCP's own first: it clears SOCK_NOSPACE once writeable. */
		if (cep->saved_write_space)
			cep->saved_write_space(sk);
		if (cep->qp && sk_stream_is_writeable(sk))
			siw_tx_wake(cep->qp);
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

/* The QP's message slot (tx_msg.c), made with the QP. */
void *siw_tx_msg_alloc(void)
{
	return kzalloc(sizeof(struct siw_tx_msg), GFP_KERNEL);
}

int siw_tx_init(void)
{
	/*
	 * High priority: a user's process busy-polling its completion queue
	 * would otherwise get an equal share of the CPU that the worker
	 * needs to send what that process waits for (Read Responses, and
	 * whatever did not fit a doorbell).
	 */
	siw_tx_wq = alloc_workqueue("siw_tx",
				    WQ_UNBOUND | WQ_HIGHPRI | WQ_MEM_RECLAIM, 0);
	return siw_tx_wq ? 0 : -ENOMEM;
}

void siw_tx_exit(void)
{
	destroy_workqueue(siw_tx_wq);
}
