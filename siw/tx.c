// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * Transmit: the send queue, Read Responses and Terminate messages, cut
 * into FPDUs sized to the connection's MULPDU and handed to the socket.
 *
 * Runs one instance at a time per QP (qp->tx_lock): in the QP's tx_work, on
 * a work queue of its own, or inline in a user's doorbell for small
 * messages. Sends block while the socket buffer is full. Closing the
 * socket wakes a blocked send with an error.
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

#include "siw.h"
#include "cm.h"
#include "trace.h"

#ifdef CONFIG_HIGHMEM
#error "siw needs a kernel without highmem (64-bit)"
#endif

static struct workqueue_struct *siw_tx_wq;

/*
 * Payload a user's doorbell may transmit itself (see siw_tx_doorbell());
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
 * Sends and Writes of at least this many payload bytes from a user's
 * registered memory go to TCP by reference, completing once the stack
 * let go of the pages (tx_zc.c); 0: every message is copied.
 */
static unsigned int siw_tx_zcopy_bytes = SIW_TX_ZCOPY_BYTES;
module_param_named(tx_zcopy_bytes, siw_tx_zcopy_bytes, uint, 0644);
MODULE_PARM_DESC(tx_zcopy_bytes,
		 "Send/Write payload from which user memory is sent zero-copy over GSO-sized FPDUs, completing when TCP no longer needs it; 0: always copy (default " __stringify(SIW_TX_ZCOPY_BYTES) ")");

/* Where an outgoing message's payload comes from. */
struct siw_tx_piece {
	struct siw_mem *mem;	/* NULL: a kernel buffer at addr */
	u64 addr;
	u32 len;
};

struct siw_tx_src {
	struct siw_tx_piece piece[SIW_MAX_SGE];
	u32 num;
	u32 idx;		/* current piece */
	u32 off;		/* offset in it */
	u32 total;
	/*
	 * Copied under each region's access_lock into pages of the QP's
	 * own (tx_bounce.c): a Read Response's source, which no local work
	 * request owns while it is sent.
	 */
	bool bounce;
};

void siw_tx_schedule(struct siw_qp *qp)
{
	siw_qp_get(qp);
	if (!queue_work(siw_tx_wq, &qp->tx_work))
		siw_qp_put(qp);
}

/*
 * Work for the transmit side was published (a Read Request or Terminate
 * to answer, a freed ORD slot or send queue slot): wake the worker unless
 * a transmit run is going on, which then finds the work itself or, if it
 * looked before, sees tx_kicked at its end (siw_tx_run). The full
 * barriers pair: a kick and a run's end cannot both miss each other.
 */
void siw_tx_kick(struct siw_qp *qp)
{
	WRITE_ONCE(qp->tx_kicked, 1);
	smp_mb();	/* pairs with siw_tx_run()'s, after tx_running = false */
	if (READ_ONCE(qp->tx_running))
		return;
	siw_tx_schedule(qp);
}

static void siw_tx_src_release(struct siw_tx_src *src)
{
	u32 i;

	for (i = 0; i < src->num; i++)
		if (src->piece[i].mem)
			siw_mem_put(src->piece[i].mem);
	src->num = 0;
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
 * The next 'bytes' of the source as kvecs after kv[*nkv], and as CRC
 * fragments. Returns 0, or -EFAULT if memory went away; for a bounced
 * source also -EKEYREVOKED (the region was invalidated meanwhile) or
 * -ENOMEM.
 */
static int siw_tx_src_take(struct siw_qp *qp, struct siw_tx_src *src,
			   u32 bytes, struct kvec *kv, unsigned int *nkv,
			   struct siw_frag *frags, unsigned int *nfrags)
{
	while (bytes) {
		struct siw_tx_piece *p = &src->piece[src->idx];
		u32 n = min(bytes, p->len - src->off);
		void *base;

		if (*nkv >= SIW_TX_KV_MAX - 1)
			return -EFAULT;
		if (p->mem && src->bounce) {
			int r = siw_tx_bounce_copy(qp, p->mem,
						   p->addr + src->off, n,
						   &base);

			if (r < 0)
				return r;
			n = r;
		} else if (p->mem) {
			struct siw_mem_seg seg;

			if (siw_mem_seg(p->mem, p->addr + src->off, n, &seg))
				return -EFAULT;
			n = seg.len;
			base = page_address(seg.page) + seg.off;
		} else {
			base = (u8 *)(uintptr_t)p->addr + src->off;
		}
		kv[*nkv].iov_base = base;
		kv[*nkv].iov_len = n;
		frags[*nfrags].base = base;
		frags[*nfrags].len = n;
		(*nkv)++;
		(*nfrags)++;
		bytes -= n;
		src->off += n;
		if (src->off == p->len) {
			src->idx++;
			src->off = 0;
		}
	}
	return 0;
}

/* What the send queue holds next (siw_sq_peek), or what siw_tx_sqe() did. */
enum siw_tx_step {
	SIW_TX_READY,		/* a new VALID element waits to start */
	SIW_TX_SENT,		/* ran one element; go on */
	SIW_TX_EMPTY,		/* no VALID element to start */
	SIW_TX_RING_FULL,	/* every slot started, none completed yet */
	SIW_TX_BLOCKED,		/* waits for a Read Response (ORD, fence), or
				 * the QP failed */
	SIW_TX_DEFER,		/* not in a doorbell: leave it to the worker */
};

/* The slot after the last started one: a new element, nothing, or no room. */
static enum siw_tx_step siw_sq_peek(struct siw_qp *qp)
{
	const struct siw_sqe *slot = &qp->sendq[qp->sq_next % qp->num_sqe];

	/*
	 * sq_get..sq_next are started, not yet completed, and still VALID:
	 * with the ring full, the next slot is one of them, not a new one.
	 */
	if (qp->sq_next - smp_load_acquire(&qp->sq_get) >= qp->num_sqe)
		return SIW_TX_RING_FULL;
	if (!(smp_load_acquire(&slot->flags) & SIW_WQE_VALID))
		return SIW_TX_EMPTY;
	return SIW_TX_READY;
}

static bool siw_sq_startable(struct siw_qp *qp)
{
	return siw_sq_peek(qp) == SIW_TX_READY;
}

/*
 * More to transmit right behind this message: a VALID send queue element
 * or a Read Request to answer. Then the message's end goes to TCP with
 * MSG_MORE, so back-to-back small messages share segments; siw_tx_run()
 * pushes what is left when it stops.
 */
static bool siw_tx_more_queued(struct siw_qp *qp)
{
	return siw_sq_startable(qp) ||
	       READ_ONCE(qp->irq_get) != READ_ONCE(qp->irq_put);
}

/*
 * kvecs one more FPDU of @payload bytes may need: its header and trailer,
 * and per SGE it touches a piece per page plus one for a page boundary;
 * copied into pages of our own, the pieces split at their boundaries too.
 */
static unsigned int siw_tx_fpdu_kv_need(u32 payload, bool bounce)
{
	u32 pieces = (payload >> PAGE_SHIFT) + 2 * SIW_MAX_SGE;

	return 2 + (bounce ? 2 * pieces : pieces);
}

/*
 * Sends one message: header template h (opcode and the fields of the
 * message), payload from src. Fills in MO or TO per FPDU. FPDUs go to the
 * socket in batches (SIW_TX_BATCH): one socket call per batch, not per
 * FPDU, which over an MTU of 1500 means one call per ~23 KiB instead of
 * one per 1.4 KiB.
 */
/* Is base one of the QP's own header or trailer buffers? */
static bool siw_tx_own_buf(const struct siw_qp *qp, const void *base)
{
	const u8 *p = base;

	return (p >= qp->tx_hdr && p < qp->tx_hdr + SIW_TX_BATCH * SIW_FPDU_HDR_MAX) ||
	       (p >= qp->tx_trailer &&
		p < qp->tx_trailer + SIW_TX_BATCH * SIW_TX_TRAILER_MAX);
}

/*
 * kv[0..n), each within one page, as qp->tx_bv for a send by reference;
 * *len is their sum. The pages are pinned user pages (zero-copy) or
 * siw's own (tx_bounce.c), never slab: one that sendpage_ok() refuses
 * is a bug, and fails the send (the CVE-2024-53094 class).
 */
int siw_tx_fill_bvec(struct siw_qp *qp, const struct kvec *kv,
		     unsigned int n, size_t *len)
{
	unsigned int i;

	lockdep_assert_held(&qp->tx_lock);
	if (WARN_ON_ONCE(!qp->tx_bv || n > SIW_TX_KV_MAX))
		return -EFAULT;
	*len = 0;
	for (i = 0; i < n; i++) {
		struct page *page = virt_to_page(kv[i].iov_base);

		if (WARN_ON_ONCE(!sendpage_ok(page)))
			return -EFAULT;
		bvec_set_page(&qp->tx_bv[i], page, kv[i].iov_len,
			      offset_in_page(kv[i].iov_base));
		*len += kv[i].iov_len;
	}
	return 0;
}

/*
 * One zero-copy send: the payload pieces kv[0..n) (each within one page
 * of user memory) by reference. Returns what the socket took.
 */
static int siw_tx_zc_send(struct siw_qp *qp, const struct kvec *kv,
			  unsigned int n, int flags, struct siw_zc *zc)
{
	struct msghdr msg = { .msg_flags = flags | MSG_ZEROCOPY,
			      .msg_ubuf = siw_zc_ubuf(zc) };
	size_t len;
	int err = siw_tx_fill_bvec(qp, kv, n, &len);

	if (err)
		return err;
	iov_iter_bvec(&msg.msg_iter, ITER_SOURCE, qp->tx_bv, n, len);
	return sock_sendmsg(qp->sock, &msg);
}

/*
 * One batch to the socket: copied, or for zc in runs, the payload's by
 * reference and the headers' and trailers' copied (a trailer and the
 * next header share a run). Headers stay copies: handing them over by
 * reference too, from a page of the QP's own, corrupted skbs on 6.1
 * (performance.rst, "Zero-copy transmit").
 */
static int siw_tx_batch(struct siw_qp *qp, struct msghdr *msg,
			unsigned int nkv, size_t total, struct siw_zc *zc,
			bool bounce)
{
	unsigned int i = 0;
	int sent = 0;

	if (!zc && !bounce)
		return kernel_sendmsg(qp->sock, msg, qp->tx_kv, nkv, total);
	while (i < nkv) {
		bool own = siw_tx_own_buf(qp, qp->tx_kv[i].iov_base);
		unsigned int j = i;
		size_t len = 0;
		int flags, r;

		while (j < nkv &&
		       siw_tx_own_buf(qp, qp->tx_kv[j].iov_base) == own)
			len += qp->tx_kv[j++].iov_len;
		/* Only the batch's last run goes without MSG_MORE. */
		flags = j == nkv ? msg->msg_flags : msg->msg_flags | MSG_MORE;
		if (!len) {
			r = 0;
		} else if (own) {
			struct msghdr m = { .msg_flags = flags };

			r = kernel_sendmsg(qp->sock, &m, &qp->tx_kv[i], j - i,
					   len);
		} else if (bounce) {
			r = siw_tx_bounce_send(qp, &qp->tx_kv[i], j - i, flags);
		} else {
			r = siw_tx_zc_send(qp, &qp->tx_kv[i], j - i, flags, zc);
		}
		if (r != len)
			return r < 0 ? r : -EPIPE;
		sent += r;
		i = j;
	}
	return sent;
}

/* A message's RDMAP opcode, in the QP's counters. Must hold tx_lock. */
static void siw_tx_count_message(struct siw_qp *qp, u8 opcode)
{
	static const u8 stat[SIW_RDMAP_NUM] = {
		[SIW_RDMAP_WRITE] = SIW_STAT_WRITE_TX,
		[SIW_RDMAP_READ_REQ] = SIW_STAT_READ_REQ_TX,
		[SIW_RDMAP_READ_RESP] = SIW_STAT_READ_RESP_TX,
		[SIW_RDMAP_SEND] = SIW_STAT_SEND_TX,
		[SIW_RDMAP_SEND_INV] = SIW_STAT_SEND_TX,
		[SIW_RDMAP_SEND_SE] = SIW_STAT_SEND_TX,
		[SIW_RDMAP_SEND_SE_INV] = SIW_STAT_SEND_TX,
		[SIW_RDMAP_TERMINATE] = SIW_STAT_QP_NUM,	/* not here */
		[SIW_RDMAP_IMM] = SIW_STAT_IMM_TX,
		[SIW_RDMAP_IMM_SE] = SIW_STAT_IMM_TX,
		[SIW_RDMAP_ATOMIC_REQ] = SIW_STAT_ATOMIC_REQ_TX,
		[SIW_RDMAP_ATOMIC_RESP] = SIW_STAT_ATOMIC_RESP_TX,
	};

	lockdep_assert_held(&qp->tx_lock);
	if (opcode < SIW_RDMAP_NUM && stat[opcode] < SIW_STAT_QP_NUM)
		siw_qp_stat_add(qp, stat[opcode], 1);
}

static int siw_tx_message(struct siw_qp *qp, struct siw_hdr *h,
			  struct siw_tx_src *src, struct siw_zc *zc)
{
	/* One FPDU's payload pieces, for its CRC: at most 29 (64 KiB). */
	struct siw_frag frags[SIW_TX_KV_MAX / 2];
	const struct siw_op_info *op = siw_op_info(h->opcode);
	u64 to0 = h->to;
	u32 sent = 0;

	lockdep_assert_held(&qp->tx_lock);
	if (!op)
		return -EINVAL;
	/* What the encoder takes from the opcode, for the tracepoint. */
	h->tagged = op->tagged;
	h->qn = op->qn;
	siw_tx_count_message(qp, h->opcode);
	do {
		struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
		unsigned int nkv = 0, batched = 0;
		size_t total = 0;
		struct siw_fpdu f;
		int n;

		do {
			u8 *hdr = qp->tx_hdr + batched * SIW_FPDU_HDR_MAX;
			u8 *trl = qp->tx_trailer + batched * SIW_TX_TRAILER_MAX;
			unsigned int nfrags = 0;
			u32 hlen, tlen, crc = 0;

			if (!siw_fpdu_plan(qp->mulpdu, op->hdr_len,
					   src->total - sent, &f))
				return -EMSGSIZE;
			if (nkv + siw_tx_fpdu_kv_need(f.payload, src->bounce) >
			    SIW_TX_KV_MAX ||
			    (src->bounce && !siw_tx_bounce_room(qp, f.payload)))
				break;	/* into the next batch */
			h->last = f.last;
			if (op->tagged)
				h->to = to0 + sent;
			else
				h->mo = sent;
			hlen = siw_fpdu_put_hdr(h, f.ulpdu_len, hdr,
						SIW_FPDU_HDR_MAX);
			if (!hlen)
				return -EINVAL;
			trace_siw_fpdu_tx(qp, h, f.payload);
			siw_qp_stat_add(qp, SIW_STAT_FPDU_TX, 1);
			siw_qp_stat_add(qp, SIW_STAT_BYTES_TX, f.payload);
			qp->tx_kv[nkv].iov_base = hdr;
			qp->tx_kv[nkv].iov_len = hlen;
			nkv++;
			n = siw_tx_src_take(qp, src, f.payload, qp->tx_kv,
					    &nkv, frags, &nfrags);
			if (n)
				return n;
			if (qp->crc)
				crc = siw_fpdu_crc(hdr, hlen, frags, nfrags,
						   f.pad);
			tlen = siw_fpdu_trailer(trl, f.pad, crc);
			qp->tx_kv[nkv].iov_base = trl;
			qp->tx_kv[nkv].iov_len = tlen;
			nkv++;
			total += hlen + f.payload + tlen;
			sent += f.payload;
			batched++;
		} while (!f.last && batched < SIW_TX_BATCH &&
			 total < SIW_TX_BATCH_BYTES);
		if (!batched)
			return -EFAULT;	/* cannot happen: kv need is bounded */
		if (!f.last || sent < src->total)
			msg.msg_flags |= MSG_MORE;
		else if (siw_tx_more_queued(qp))
			msg.msg_flags |= MSG_MORE;
		n = siw_tx_batch(qp, &msg, nkv, total, zc, src->bounce);
		if (src->bounce)
			siw_tx_bounce_drop(qp);
		if (n != total)
			return n < 0 ? n : -EPIPE;
		qp->tx_corked = msg.msg_flags & MSG_MORE;
	} while (sent < src->total);
	return 0;
}

/* The QP may transmit: connected and not in error. */
static bool siw_tx_may_run(struct siw_qp *qp)
{
	unsigned long flags;
	bool ok;

	spin_lock_irqsave(&qp->state_lock, flags);
	ok = qp->connected && qp->sock && !qp->rtr_wait &&
	     (qp->state == IB_QPS_RTS || qp->state == IB_QPS_SQD ||
	      qp->state == IB_QPS_RTR || qp->state == IB_QPS_INIT);
	spin_unlock_irqrestore(&qp->state_lock, flags);
	return ok;
}

/*
 * Marks send queue slot pos ready to complete, then completes in order.
 * A slot a flush completed meanwhile (no longer between sq_get and
 * sq_next) stays as the flush left it: a done bit set there would
 * complete whatever is posted into the slot next, after a reconnect.
 */
/* Is slot pos started and not yet completed? Must hold sq_lock. */
static bool siw_sq_slot_live(struct siw_qp *qp, u32 pos)
{
	lockdep_assert_held(&qp->sq_lock);
	return (s32)(pos - qp->sq_get) >= 0 && (s32)(qp->sq_next - pos) > 0;
}

void siw_sq_mark_done(struct siw_qp *qp, u32 pos,
			     enum siw_wc_status status, u32 bytes)
{
	struct siw_sq_state *st = &qp->sq_state[pos % qp->num_sqe];
	unsigned long flags;
	bool live;

	spin_lock_irqsave(&qp->sq_lock, flags);
	live = siw_sq_slot_live(qp, pos);
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
		siw_tx_kick(qp);
}

static int siw_tx_read_request(struct siw_qp *qp, const struct siw_sqe *sqe,
			       u32 pos)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_READ_REQ };
	struct siw_tx_src src = {};
	struct siw_orq_entry *e;
	unsigned long flags;

	u64 len = siw_sqe_sge_len(sqe);

	/*
	 * More than one SGE: the wire names the first as the sink, with
	 * the length of all; the responses, addressed to that sink's
	 * offsets, are scattered over the list (rx.c).
	 */
	if (sqe->num_sge > SIW_MAX_SGE_RD || len > U32_MAX ||
	    (sqe->opcode == SIW_OP_READ_LOCAL_INV && sqe->num_sge > 1))
		return -EINVAL;
	h.msn = qp->tx_msn[SIW_QN_RREQ]++;
	h.rreq.src_stag = sqe->rkey;
	h.rreq.src_to = sqe->raddr;
	if (sqe->num_sge) {
		h.rreq.sink_stag = sqe->sge[0].lkey;
		h.rreq.sink_to = sqe->sge[0].laddr;
		h.rreq.size = len;
	}
	spin_lock_irqsave(&qp->orq_lock, flags);
	e = &qp->orq[qp->orq_put % qp->orq_size];
	memcpy(&e->sqe, sqe, sizeof(*sqe));
	e->sq_pos = pos;
	e->kind = SIW_ORQ_READ;
	qp->orq_put++;
	spin_unlock_irqrestore(&qp->orq_lock, flags);
	trace_siw_read_request(qp, SIW_TRACE_ORQ, &h.rreq);
	return siw_tx_message(qp, &h, &src, NULL);
}

/*
 * Initiator in peer-to-peer mode (RFC 6581 section 8): the RTR message,
 * before anything else. A zero-length Read Request takes an ORQ slot like
 * any Read, so ORD holds; its response completes no work request.
 */
static int siw_tx_rtr(struct siw_qp *qp, u8 type)
{
	struct siw_hdr h = {};
	struct siw_tx_src src = {};
	struct siw_orq_entry *e;
	unsigned long flags;

	lockdep_assert_held(&qp->tx_lock);
	switch (type) {
	case SIW_RTR_WRITE:
		h.opcode = SIW_RDMAP_WRITE;
		break;
	case SIW_RTR_SEND:
		h.opcode = SIW_RDMAP_SEND;
		h.msn = qp->tx_msn[SIW_QN_SEND]++;
		break;
	case SIW_RTR_READ:
		h.opcode = SIW_RDMAP_READ_REQ;
		h.msn = qp->tx_msn[SIW_QN_RREQ]++;
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
		 siw_op_name(h.opcode));
	siw_qp_stat_add(qp, SIW_STAT_RTR_TX, 1);
	if (h.opcode == SIW_RDMAP_READ_REQ)
		trace_siw_read_request(qp, SIW_TRACE_ORQ,
				       &h.rreq);
	return siw_tx_message(qp, &h, &src, NULL);
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

static int siw_tx_atomic_request(struct siw_qp *qp, const struct siw_sqe *sqe,
				 const struct siw_sqe_ext *ext, u32 pos)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_ATOMIC_REQ };
	struct siw_atomic_req *a = &h.atomic;
	struct siw_tx_src src = {};
	struct siw_orq_entry *e;
	unsigned long flags;
	u32 epoch;

	lockdep_assert_held(&qp->tx_lock);
	h.msn = qp->tx_msn[SIW_QN_RREQ]++;
	a->req_id = qp->tx_atomic_id++;
	a->stag = sqe->rkey;
	a->to = sqe->raddr;
	if (sqe->opcode == SIW_OP_FETCH_AND_ADD) {
		a->op = SIW_ATOMIC_FETCH_ADD;
		a->add_swap = ext->compare_add;
		/* No field boundaries: one 64-bit add. */
		a->add_swap_mask = 0;
		/* RFC 7306 section 5.2.1: unused by FetchAdd, all ones. */
		a->compare = 0;
		a->compare_mask = ~0ULL;
	} else {
		a->op = SIW_ATOMIC_CMP_SWAP;
		a->add_swap = ext->swap;
		a->add_swap_mask = ~0ULL;
		a->compare = ext->compare_add;
		a->compare_mask = ~0ULL;
	}
	spin_lock_irqsave(&qp->sq_lock, flags);
	epoch = qp->sq_epoch;
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	spin_lock_irqsave(&qp->orq_lock, flags);
	e = &qp->orq[qp->orq_put % qp->orq_size];
	memcpy(&e->sqe, sqe, sizeof(*sqe));
	e->sq_pos = pos;
	e->kind = SIW_ORQ_ATOMIC;
	e->atomic_id = a->req_id;
	e->sq_epoch = epoch;
	qp->orq_put++;
	spin_unlock_irqrestore(&qp->orq_lock, flags);
	return siw_tx_message(qp, &h, &src, NULL);
}

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
	struct siw_hdr h = { .opcode = SIW_RDMAP_ATOMIC_RESP };
	struct siw_device *sdev = qp->sdev;
	struct siw_tx_src src = {};
	enum siw_term_code code;
	struct siw_mem_view view;
	struct siw_mem_seg seg;
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

	h.msn = qp->tx_msn[SIW_QN_ATOMIC_RESP]++;
	h.atomic_resp.req_id = a->req_id;
	h.atomic_resp.orig = orig;
	return siw_tx_message(qp, &h, &src, NULL);
}

/*
 * RFC 7306 Immediate Data carrying a verbs immediate (siw's use of its 8
 * bytes, protocol.rst): for the Send that follows, or ending an RDMA
 * Write. The Solicited Event flag of the work request goes with the
 * message that completes the receive.
 */
static int siw_tx_immediate(struct siw_qp *qp, u32 imm, u32 desc, bool se)
{
	struct siw_hdr h = { .opcode = se ? SIW_RDMAP_IMM_SE : SIW_RDMAP_IMM };
	struct siw_tx_src src = {};

	lockdep_assert_held(&qp->tx_lock);
	h.msn = qp->tx_msn[SIW_QN_SEND]++;
	h.imm = siw_imm_word(imm, desc);
	return siw_tx_message(qp, &h, &src, NULL);
}

/* Answers the oldest inbound Read Request. Returns 0 or an error. */
static int siw_tx_read_response(struct siw_qp *qp, struct siw_irq_entry *e)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_READ_RESP };
	struct siw_tx_src src = {};
	enum siw_term_code code = SIW_TERM_OK;
	struct siw_mem *mem = NULL;
	int err;

	lockdep_assert_held(&qp->tx_lock);
	h.stag = e->rreq.sink_stag;
	h.to = e->rreq.sink_to;
	if (e->rreq.size) {
		struct siw_mem_view view;

		mem = siw_mem_get(qp->sdev, e->rreq.src_stag);
		siw_mem_view_of(mem, qp->base_qp.pd, IB_ACCESS_REMOTE_READ,
				&view);
		code = siw_check_tagged(&view, e->rreq.src_to, e->rreq.size,
					SIW_TAG_SOURCE);
		if (code != SIW_TERM_OK) {
			if (mem)
				siw_mem_put(mem);
			siw_qp_terminate(qp, code, NULL, 0);
			return -EACCES;
		}
		src.piece[0].mem = mem;
		src.piece[0].addr = e->rreq.src_to;
		src.piece[0].len = e->rreq.size;
		src.num = 1;
		src.total = e->rreq.size;
		src.bounce = true;
	}
	err = siw_tx_message(qp, &h, &src, NULL);
	siw_tx_bounce_drop(qp);
	siw_tx_src_release(&src);
	/*
	 * Invalidated or deregistered while the response went out: the rest
	 * is not sent, and the Read Request is answered as if it had named
	 * an invalid STag from the start (its first bytes left while valid).
	 */
	if (err == -EKEYREVOKED) {
		struct siw_mem_view view = {};

		code = siw_check_tagged(&view, e->rreq.src_to, e->rreq.size,
					SIW_TAG_SOURCE);
		siw_qp_terminate(qp, code, NULL, 0);
	}
	return err;
}

/* Answers the oldest inbound Read or Atomic Request. */
static int siw_tx_inbound_response(struct siw_qp *qp, struct siw_irq_entry *e)
{
	if (e->atomic)
		return siw_tx_atomic_response(qp, &e->areq);
	return siw_tx_read_response(qp, e);
}

/* Sends the pending Terminate, once. */
static void siw_tx_terminate(struct siw_qp *qp)
{
	struct siw_hdr th = { .opcode = SIW_RDMAP_TERMINATE, .last = true,
			      .qn = SIW_QN_TERM };
	u8 buf[SIW_MPA_LEN_LEN + SIW_TERM_ULPDU_MAX + 8];
	struct kvec kv;
	struct msghdr msg = { .msg_flags = MSG_NOSIGNAL | MSG_DONTWAIT };
	enum siw_term_code code;
	unsigned long flags;
	u32 ulen, pad, crc = 0, len;

	lockdep_assert_held(&qp->tx_lock);
	spin_lock_irqsave(&qp->state_lock, flags);
	code = qp->term_code;
	if (code == SIW_TERM_OK || qp->term_sent) {
		spin_unlock_irqrestore(&qp->state_lock, flags);
		return;
	}
	qp->term_sent = true;
	spin_unlock_irqrestore(&qp->state_lock, flags);

	th.msn = qp->tx_msn[SIW_QN_TERM];
	ulen = siw_term_build(qp->tx_msn[SIW_QN_TERM]++, code,
			      qp->term_hdr_len ? qp->term_hdr : NULL,
			      qp->term_hdr_len, buf + SIW_MPA_LEN_LEN,
			      SIW_TERM_ULPDU_MAX);
	if (!ulen)
		return;
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
	kv.iov_base = buf;
	kv.iov_len = len;
	kernel_sendmsg(qp->sock, &msg, &kv, 1, len);
}

/* Payload bytes of a send queue element (our copy). */
static u64 siw_sqe_payload(const struct siw_sqe *sqe)
{
	u64 total = 0;
	u32 i;

	switch (sqe->opcode) {
	case SIW_OP_SEND:
	case SIW_OP_SEND_REMOTE_INV:
	case SIW_OP_WRITE:
	case SIW_OP_SEND_WITH_IMM:
	case SIW_OP_WRITE_WITH_IMM:
		break;
	default:
		return 0;
	}
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
static bool siw_tx_doorbell_fits(struct siw_qp *qp, u64 len, u32 *budget)
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
	return siw_tx_doorbell_fits(qp, siw_sqe_payload(sqe), budget);
}

/*
 * The oldest inbound Read Request still to answer, copied to *e; false
 * when there is none. Only a tx_lock holder takes entries (siw_irq_pop),
 * so what it peeks stays the oldest until it pops it.
 */
static bool siw_irq_peek(struct siw_qp *qp, struct siw_irq_entry *e)
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
static void siw_irq_pop(struct siw_qp *qp)
{
	unsigned long flags;

	lockdep_assert_held(&qp->tx_lock);
	spin_lock_irqsave(&qp->irq_lock, flags);
	qp->irq_get++;
	spin_unlock_irqrestore(&qp->irq_lock, flags);
}

/*
 * In a doorbell: answers the oldest inbound Read Request if its response
 * fits (siw_tx_doorbell_fits), so a QP that both reads and is read from
 * answers in its user's system call rather than waking the worker.
 * SIW_TX_EMPTY: none pending; SIW_TX_DEFER: one that does not fit.
 */
static enum siw_tx_step siw_tx_doorbell_read_response(struct siw_qp *qp,
						      u32 *budget)
{
	struct siw_irq_entry e;

	if (!siw_irq_peek(qp, &e))
		return SIW_TX_EMPTY;
	if (!siw_tx_doorbell_fits(qp, e.atomic ? 0 : e.rreq.size, budget))
		return SIW_TX_DEFER;
	siw_irq_pop(qp);
	if (siw_tx_inbound_response(qp, &e))
		return SIW_TX_BLOCKED;
	WRITE_ONCE(qp->tx_db_read_resps, qp->tx_db_read_resps + 1);
	return SIW_TX_SENT;
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

/* Send or Write: zero-copy if siw_tx_zc_wanted(), else copied. */
static int siw_tx_payload_message(struct siw_qp *qp, struct siw_hdr *h,
				  struct siw_tx_src *src, u32 pos,
				  struct siw_zc **zcp)
{
	if (siw_tx_zc_wanted(qp, src))
		*zcp = siw_zc_start(qp, pos, src->total);
	if (*zcp)
		WRITE_ONCE(qp->tx_zc_msgs, qp->tx_zc_msgs + 1);
	return siw_tx_message(qp, h, src, *zcp);
}

/*
 * Runs one send queue element. @budget: NULL in the worker; in a
 * doorbell, the payload it may still send, which this charges. A
 * zero-copy message's slot is marked done when the stack lets go of its
 * pages (siw_sq_zc_done), not here.
 */
static enum siw_tx_step siw_tx_sqe(struct siw_qp *qp, u32 *budget)
{
	struct siw_sqe *slot = &qp->sendq[qp->sq_next % qp->num_sqe];
	enum siw_wc_status status = SIW_WC_SUCCESS;
	struct siw_tx_src src = {};
	struct siw_zc *zc = NULL;
	struct siw_sqe_ext ext = {};
	struct siw_hdr h = {};
	struct siw_sqe sqe;
	unsigned long flags;
	enum siw_tx_step next = siw_sq_peek(qp);
	u32 pos = qp->sq_next;
	int err = 0;

	lockdep_assert_held(&qp->tx_lock);
	/* Nothing to start; a full ring resumes as elements complete. */
	if (next != SIW_TX_READY)
		return next;
	/* From here on only our copy counts. */
	memcpy(&sqe, slot, sizeof(sqe));
	/* Written by post_send before the slot turned VALID (kernel QPs). */
	if (qp->sq_ext)
		ext = qp->sq_ext[pos % qp->num_sqe];
	if (budget && !siw_tx_doorbell_may_send(qp, &sqe, budget))
		return SIW_TX_DEFER;
	pr_debug("siw: QP %u: sqe %u opcode %u flags 0x%x num_sge %u\n",
		 qp->base_qp.qp_num, pos, sqe.opcode, sqe.flags, sqe.num_sge);

	if (sqe.opcode == SIW_OP_READ || sqe.opcode == SIW_OP_READ_LOCAL_INV ||
	    sqe.opcode == SIW_OP_FETCH_AND_ADD ||
	    sqe.opcode == SIW_OP_COMP_AND_SWAP) {
		spin_lock_irqsave(&qp->orq_lock, flags);
		err = qp->orq_put - qp->orq_get >= min(qp->ord, qp->orq_size);
		spin_unlock_irqrestore(&qp->orq_lock, flags);
		if (err)
			return SIW_TX_BLOCKED;	/* until a response completes */
	} else if (sqe.flags & SIW_WQE_READ_FENCE) {
		spin_lock_irqsave(&qp->orq_lock, flags);
		err = qp->orq_put != qp->orq_get;
		spin_unlock_irqrestore(&qp->orq_lock, flags);
		if (err)
			return SIW_TX_BLOCKED;
	}

	spin_lock_irqsave(&qp->sq_lock, flags);
	qp->sq_next++;
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	/* Started: not before, where ORD or a fence may hold it back. */
	if (trace_siw_wqe_start_enabled())
		trace_siw_wqe_start(qp, SIW_TRACE_SQ, pos,
				    sqe.id, sqe.opcode,
				    (sqe.opcode == SIW_OP_READ ||
				     sqe.opcode == SIW_OP_READ_LOCAL_INV) ?
				    siw_sqe_sge_len(&sqe) :
				    siw_sqe_payload(&sqe));

	/*
	 * RFC 7306 work requests: kernel QPs only (a user's element naming
	 * one is refused), on a connection that negotiated them.
	 */
	switch (sqe.opcode) {
	case SIW_OP_SEND_WITH_IMM:
	case SIW_OP_WRITE_WITH_IMM:
	case SIW_OP_FETCH_AND_ADD:
	case SIW_OP_COMP_AND_SWAP:
		if (qp->user || !qp->ext) {
			status = SIW_WC_LOC_QP_OP_ERR;
			goto done;
		}
		break;
	default:
		break;
	}

	switch (sqe.opcode) {
	case SIW_OP_FETCH_AND_ADD:
	case SIW_OP_COMP_AND_SWAP:
		status = siw_tx_atomic_check(qp, &sqe);
		if (status)
			break;
		err = siw_tx_atomic_request(qp, &sqe, &ext, pos);
		if (!err)
			return SIW_TX_SENT;	/* completes with its response */
		break;
	case SIW_OP_SEND:
	case SIW_OP_SEND_REMOTE_INV:
	case SIW_OP_SEND_WITH_IMM:
		status = siw_tx_src_sges(qp, &sqe, &src);
		if (status)
			break;
		/* The immediate first: the Send's end completes both. */
		if (sqe.opcode == SIW_OP_SEND_WITH_IMM) {
			err = siw_tx_immediate(qp, ext.imm, SIW_IMM_FOR_SEND,
					       false);
			if (err) {
				siw_tx_src_release(&src);
				break;
			}
		}
		if (sqe.opcode == SIW_OP_SEND_REMOTE_INV) {
			h.opcode = sqe.flags & SIW_WQE_SOLICITED ?
				   SIW_RDMAP_SEND_SE_INV : SIW_RDMAP_SEND_INV;
			h.rsvd_ulp = sqe.rkey;
		} else {
			h.opcode = sqe.flags & SIW_WQE_SOLICITED ?
				   SIW_RDMAP_SEND_SE : SIW_RDMAP_SEND;
		}
		h.msn = qp->tx_msn[SIW_QN_SEND]++;
		err = siw_tx_payload_message(qp, &h, &src, pos, &zc);
		siw_tx_src_release(&src);
		break;
	case SIW_OP_WRITE:
	case SIW_OP_WRITE_WITH_IMM:
		status = siw_tx_src_sges(qp, &sqe, &src);
		if (status)
			break;
		h.opcode = SIW_RDMAP_WRITE;
		h.stag = sqe.rkey;
		h.to = sqe.raddr;
		err = siw_tx_payload_message(qp, &h, &src, pos, &zc);
		/* The immediate behind the Write's last byte. */
		if (!err && sqe.opcode == SIW_OP_WRITE_WITH_IMM)
			err = siw_tx_immediate(qp, ext.imm, SIW_IMM_FOR_WRITE,
					       sqe.flags & SIW_WQE_SOLICITED);
		siw_tx_src_release(&src);
		break;
	case SIW_OP_READ:
	case SIW_OP_READ_LOCAL_INV:
		err = siw_tx_read_request(qp, &sqe, pos);
		if (!err)
			return SIW_TX_SENT;	/* completes with its response */
		break;
	case SIW_OP_REG_MR:
		if (qp->user) {
			status = SIW_WC_LOC_QP_OP_ERR;
		} else {
			struct ib_mr *mr = (struct ib_mr *)(uintptr_t)sqe.base_mr;

			if (siw_mem_fast_reg(to_siw_mr(mr)->mem, mr, sqe.rkey,
					     (int)sqe.access))
				status = SIW_WC_LOC_QP_OP_ERR;
		}
		break;
	case SIW_OP_INVAL_STAG:
		if (siw_mem_invalidate(qp->sdev, sqe.rkey, qp->base_qp.pd))
			status = SIW_WC_LOC_PROT_ERR;
		break;
	default:
		status = SIW_WC_LOC_QP_OP_ERR;
	}
done:
	/*
	 * The connection went away under the send (the peer closed or
	 * reset it, or we are tearing it down): nothing local failed, the
	 * request is flushed like those behind it, and the connection
	 * manager reports the disconnect; no QP_FATAL event.
	 */
	if (err == -EPIPE || err == -ECONNRESET || err == -ENOTCONN ||
	    err == -ESHUTDOWN) {
		siw_sq_mark_done(qp, pos, SIW_WC_WR_FLUSH_ERR, 0);
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
		return SIW_TX_SENT;
	}
	siw_sq_mark_done(qp, pos, status, src.total);
	if (status != SIW_WC_SUCCESS) {
		pr_info_ratelimited("siw: %s: QP %u: work request (opcode %u) failed: status %u, error %d\n",
				    dev_name(&qp->sdev->base_dev.dev),
				    qp->base_qp.qp_num, sqe.opcode, status, err);
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

/*
 * The last reference to a zero-copy message went (tx_zc.c): slot pos is
 * done, unless the send queue was flushed since the message started
 * (epoch) or the slot completed otherwise. Any context but hard IRQ.
 */
void siw_sq_zc_done(struct siw_qp *qp, u32 pos, u32 epoch,
		    enum siw_wc_status status, u32 bytes)
{
	struct siw_sq_state *st = &qp->sq_state[pos % qp->num_sqe];
	unsigned long flags;
	bool live;

	spin_lock_irqsave(&qp->sq_lock, flags);
	live = epoch == qp->sq_epoch && siw_sq_slot_live(qp, pos) &&
	       !st->done;
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

/* A Terminate decision: send it, then end the connection. */
static void siw_tx_terminate_and_close(struct siw_qp *qp)
{
	struct siw_cep *cep = NULL;
	struct sock *sk = NULL;
	unsigned long flags;

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
	siw_tx_terminate(qp);
	if (sk) {
		siw_tx_wait_acked(sk, msecs_to_jiffies(SIW_TERM_ACK_WAIT_MS));
		sock_put(sk);
	}
	siw_cm_qp_down(cep, false);
	siw_cep_put(cep);
}

/*
 * The transmit loop. Must hold tx_lock. In the worker it runs until
 * nothing is left. Inline in a doorbell it sends only send queue
 * elements, at most SIW_TX_INLINE_SQES of them and tx_inline_bytes of
 * payload in all, each only if the socket can take it at once, so the
 * user's call returns soon; the rest, Read Responses and a Terminate go
 * to the worker. Returns the last step: SIW_TX_EMPTY if it stopped
 * because the send queue had nothing more to start.
 */
static enum siw_tx_step siw_tx_run_queue(struct siw_qp *qp,
					 bool in_doorbell)
{
	u32 budget = READ_ONCE(siw_tx_inline_bytes), sqes = 0;
	enum siw_tx_step step = SIW_TX_BLOCKED;

	lockdep_assert_held(&qp->tx_lock);
	for (;;) {
		struct siw_irq_entry e;

		/*
		 * Kicks before this are answered by what follows: the xchg()
		 * orders our look at the queues after the kicker's publishing.
		 */
		xchg(&qp->tx_kicked, 0);
		if (!siw_tx_may_run(qp))
			break;
		if (READ_ONCE(qp->term_code) != SIW_TERM_OK) {
			if (in_doorbell)
				siw_tx_schedule(qp);
			else
				siw_tx_terminate_and_close(qp);
			return SIW_TX_BLOCKED;
		}
		if (qp->rtr_send) {
			u8 type = qp->rtr_send;

			qp->rtr_send = 0;
			if (siw_tx_rtr(qp, type)) {
				siw_qp_fatal(qp, IB_EVENT_QP_FATAL);
				return SIW_TX_BLOCKED;
			}
			continue;
		}
		if (in_doorbell) {
			if (sqes++ == SIW_TX_INLINE_SQES) {
				siw_tx_schedule(qp);
				return SIW_TX_DEFER;
			}
			/* Read Requests first, as the worker does. */
			switch (siw_tx_doorbell_read_response(qp, &budget)) {
			case SIW_TX_SENT:
				continue;
			case SIW_TX_DEFER:
				siw_tx_schedule(qp);
				return SIW_TX_DEFER;
			case SIW_TX_BLOCKED:
				return SIW_TX_BLOCKED;
			default:
				break;
			}
			step = siw_tx_sqe(qp, &budget);
			if (step == SIW_TX_DEFER)
				siw_tx_schedule(qp);
			if (step != SIW_TX_SENT)
				return step;
			continue;
		}
		if (siw_irq_peek(qp, &e)) {
			siw_irq_pop(qp);
			if (siw_tx_inbound_response(qp, &e))
				return SIW_TX_BLOCKED;
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
static void siw_tx_run(struct siw_qp *qp, bool in_doorbell)
{
	enum siw_tx_step step;

	lockdep_assert_held(&qp->tx_lock);
	siw_qp_stat_add(qp, in_doorbell ? SIW_STAT_TX_INLINE_RUNS :
			SIW_STAT_TX_WORKER_RUNS, 1);
	WRITE_ONCE(qp->tx_running, true);
	smp_mb();	/* kickers that miss it are seen by the xchg() below */
	step = siw_tx_run_queue(qp, in_doorbell);
	/*
	 * The last message went out with MSG_MORE, expecting company that
	 * did not come (or must wait, for ORD or the worker): push it.
	 */
	if (qp->tx_corked && qp->sock) {
		qp->tx_corked = false;
		tcp_sock_set_cork(qp->sock->sk, false);
	}
	WRITE_ONCE(qp->tx_running, false);
	smp_mb();	/* pairs with siw_tx_kick()'s, after tx_kicked = 1 */
	/* Kicked after our last look at the queues (siw_tx_kick). */
	if (READ_ONCE(qp->tx_kicked)) {
		siw_tx_schedule(qp);
		return;
	}
	/*
	 * A user who saw an older element still VALID skips the doorbell: if
	 * we stopped at an empty slot or a full ring, look once more.
	 */
	if ((step == SIW_TX_EMPTY || step == SIW_TX_RING_FULL) &&
	    siw_sq_startable(qp))
		siw_tx_schedule(qp);
}

void siw_tx_work(struct work_struct *work)
{
	struct siw_qp *qp = container_of(work, struct siw_qp, tx_work);

	mutex_lock(&qp->tx_lock);
	if (READ_ONCE(qp->term_code) != SIW_TERM_OK)
		siw_tx_terminate_and_close(qp);
	else
		siw_tx_run(qp, false);
	mutex_unlock(&qp->tx_lock);
	siw_qp_put(qp);
}

/*
 * A user's doorbell (post_send, process context): transmit right here
 * rather than wake the worker, which saves a context switch per message.
 * If a run is going on already, it or the worker picks the work up.
 */
void siw_tx_doorbell(struct siw_qp *qp)
{
	if (!READ_ONCE(siw_tx_inline_bytes) || !mutex_trylock(&qp->tx_lock)) {
		siw_tx_schedule(qp);
		return;
	}
	siw_tx_run(qp, true);
	mutex_unlock(&qp->tx_lock);
}

/*
 * No transmit run is queued or running when this returns; one started
 * afterwards sees what the caller changed under state_lock before.
 */
void siw_tx_quiesce(struct siw_qp *qp)
{
	if (cancel_work_sync(&qp->tx_work))
		siw_qp_put(qp);
	mutex_lock(&qp->tx_lock);
	mutex_unlock(&qp->tx_lock);
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
