// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * One message on the wire: cut into FPDUs sized to the connection's
 * MULPDU, built a batch at a time (SIW_TX_BATCH) and handed to the socket
 * without ever waiting for it.
 *
 * A peer that keeps its window shut must not hold anything but its own
 * QP: every QP transmits in work items of one work queue (or in a
 * doorbell, or the receive softirq, which may not sleep at all), and a
 * send that slept on one peer's window would hold a worker, so a few hundred
 * such peers would stop transmit for every QP on the host. So each socket
 * call is MSG_DONTWAIT. When the socket has no room, the rest of the
 * batch stays in the QP (struct siw_tx_msg and qp->tx_kv), the transmit
 * run ends with SIW_TX_WAIT, and the socket's write_space callback
 * (siw_tx_write_space) starts a run that goes on from there. TCP sets
 * SOCK_NOSPACE whenever it answers -EAGAIN, so that callback comes once
 * it has room again, or the connection ends (mpa/user_timeout_ms bounds
 * a peer that never opens its window) and the QP lets go of the message.
 */
#include <linux/bvec.h>
#include <linux/net.h>
#include <linux/uio.h>
#include <net/sock.h>

#include "tx.h"
#include "trace.h"

void siw_tx_src_release(struct siw_tx_src *src)
{
	u32 i;

	for (i = 0; i < src->num; i++)
		if (src->piece[i].mem)
			siw_mem_put(src->piece[i].mem);
	src->num = 0;
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

/*
 * kvecs one more FPDU of @payload bytes may need: its header and trailer,
 * and per SGE it touches a piece per page plus one for a page boundary;
 * copied into pages of our own, the pieces, the header and the trailer
 * split at their boundaries too.
 */
static unsigned int siw_tx_fpdu_kv_need(u32 payload, bool bounce)
{
	u32 pieces = (payload >> PAGE_SHIFT) + 2 * SIW_MAX_SGE;

	return bounce ? 4 + 2 * pieces : 2 + pieces;
}

/*
 * An FPDU's header or trailer (in the QP's own buffers) as kvecs after
 * kv[*nkv]: itself, or for a bounced batch its copy in the batch's pages.
 */
static int siw_tx_put_framing(struct siw_qp *qp, bool bounce, u8 *buf,
			      u32 len, unsigned int *nkv)
{
	while (bounce && len) {
		void *base;
		int n = siw_tx_bounce_bytes(qp, buf, len, &base);

		if (n < 0)
			return n;
		qp->tx_kv[*nkv].iov_base = base;
		qp->tx_kv[*nkv].iov_len = n;
		(*nkv)++;
		buf += n;
		len -= n;
	}
	if (!bounce) {
		qp->tx_kv[*nkv].iov_base = buf;
		qp->tx_kv[*nkv].iov_len = len;
		(*nkv)++;
	}
	return 0;
}

/* Is base in one of the QP's own header or trailer buffers? */
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
 * Copied: kv[0..n), @len bytes in all. From the receive softirq through
 * tcp_sendmsg_locked() under the socket's spinlock (siw_tx_from_rx), as
 * no process owns the socket then; otherwise kernel_sendmsg() locks it.
 */
static int siw_tx_send_copied(struct siw_qp *qp, struct kvec *kv,
			      unsigned int n, size_t len, int flags)
{
	struct msghdr msg = { .msg_flags = flags };

	if (!qp->tx_in_softirq)
		return kernel_sendmsg(qp->sock, &msg, kv, n, len);
	iov_iter_kvec(&msg.msg_iter, ITER_SOURCE, kv, n, len);
	return tcp_sendmsg_locked(qp->sock->sk, &msg, len);
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
	int err;

	/* The softirq sends Read Responses only, never user memory. */
	if (WARN_ON_ONCE(qp->tx_in_softirq))
		return -EFAULT;
	err = siw_tx_fill_bvec(qp, kv, n, &len);
	if (err)
		return err;
	iov_iter_bvec(&msg.msg_iter, ITER_SOURCE, qp->tx_bv, n, len);
	return sock_sendmsg(qp->sock, &msg);
}

/* A message, in the QP's counters by its kind. Must hold tx_lock. */
static void siw_tx_count_message(struct siw_qp *qp,
				 const struct siw_op_info *op)
{
	lockdep_assert_held(&qp->tx_lock);
	/* Terminates are counted by layer (siw_tx_terminate_build). */
	if (op->kind != SIW_MSG_TERMINATE)
		siw_qp_stat_add(qp, SIW_STAT_MSG_TX(op->kind), 1);
}

/*
 * Readies m, whose header template (opcode and the message's fields) the
 * caller filled in, for its first batch: @len payload bytes from m->src
 * (0: a message of its header alone; m->src may then hold the payload of
 * the element's next message).
 */
int siw_tx_msg_prepare(struct siw_qp *qp, struct siw_tx_msg *m, u32 len)
{
	lockdep_assert_held(&qp->tx_lock);
	m->len = len;
	m->op = siw_op_info(m->h.opcode);
	if (!m->op)
		return -EINVAL;
	/* What the encoder takes from the opcode, for the tracepoint. */
	m->h.tagged = m->op->tagged;
	m->h.qn = m->op->qn;
	m->to0 = m->h.to;
	m->sent = 0;
	m->built_last = false;
	m->kv_next = 0;
	m->kv_num = 0;
	siw_tx_count_message(qp, m->op);
	return 0;
}

/*
 * The message's end goes with MSG_MORE if more follows it in this run.
 * The softirq sends only Read Responses, and leaves what it corked for
 * the worker to push: only another Read Request counts there.
 */
static bool siw_tx_more_behind(struct siw_qp *qp)
{
	if (qp->tx_in_softirq)
		return READ_ONCE(qp->irq_get) != READ_ONCE(qp->irq_put);
	return siw_tx_more_queued(qp);
}

/*
 * The message's next batch into qp->tx_kv: up to SIW_TX_BATCH FPDUs or
 * SIW_TX_BATCH_BYTES, so that one socket call carries ~23 KiB over an
 * MTU of 1500 rather than 1.4 KiB. Fills in MO or TO per FPDU.
 */
static int siw_tx_batch_build(struct siw_qp *qp, struct siw_tx_msg *m)
{
	/* One FPDU's payload pieces, for its CRC: at most 29 (64 KiB). */
	struct siw_frag frags[SIW_TX_KV_MAX / 2];
	const struct siw_op_info *op = m->op;
	struct siw_tx_src *src = &m->src;
	struct siw_hdr *h = &m->h;
	unsigned int nkv = 0, batched = 0;
	size_t total = 0;
	struct siw_fpdu f;
	int err;

	do {
		u8 *hdr = qp->tx_hdr + batched * SIW_FPDU_HDR_MAX;
		u8 *trl = qp->tx_trailer + batched * SIW_TX_TRAILER_MAX;
		unsigned int nfrags = 0;
		u32 hlen, tlen, crc = 0;

		if (!siw_fpdu_plan(qp->mulpdu, op->hdr_len,
				   m->len - m->sent, &f))
			return -EMSGSIZE;
		if (nkv + siw_tx_fpdu_kv_need(f.payload, src->bounce) >
		    SIW_TX_KV_MAX ||
		    (src->bounce &&
		     !siw_tx_bounce_room(qp, f.payload + SIW_FPDU_HDR_MAX +
					 SIW_TX_TRAILER_MAX)))
			break;	/* into the next batch */
		h->last = f.last;
		if (op->tagged)
			h->to = m->to0 + m->sent;
		else
			h->mo = m->sent;
		hlen = siw_fpdu_put_hdr(h, f.ulpdu_len, hdr, SIW_FPDU_HDR_MAX);
		if (!hlen)
			return -EINVAL;
		trace_siw_fpdu_tx(qp, h, f.payload);
		siw_qp_stat_add(qp, SIW_STAT_FPDU_TX, 1);
		siw_qp_stat_add(qp, SIW_STAT_BYTES_TX, f.payload);
		err = siw_tx_put_framing(qp, src->bounce, hdr, hlen, &nkv);
		if (err)
			return err;
		err = siw_tx_src_take(qp, src, f.payload, qp->tx_kv, &nkv,
				      frags, &nfrags);
		if (err)
			return err;
		if (qp->crc)
			crc = siw_fpdu_crc(hdr, hlen, frags, nfrags, f.pad);
		tlen = siw_fpdu_trailer(trl, f.pad, crc);
		err = siw_tx_put_framing(qp, src->bounce, trl, tlen, &nkv);
		if (err)
			return err;
		total += hlen + f.payload + tlen;
		m->sent += f.payload;
		batched++;
		m->built_last = f.last;
	} while (!f.last && batched < SIW_TX_BATCH &&
		 total < SIW_TX_BATCH_BYTES);
	if (!batched)
		return -EFAULT;	/* cannot happen: kv need is bounded */
	m->kv_next = 0;
	m->kv_num = nkv;
	/*
	 * More of this message, or more queued right behind it: the end
	 * goes with MSG_MORE, so back-to-back small messages share segments;
	 * siw_tx_run() pushes what is left when it stops.
	 */
	m->more = !m->built_last || siw_tx_more_behind(qp) ? MSG_MORE : 0;
	return 0;
}

/* The socket took @n more bytes from the front of the batch. */
static void siw_tx_batch_advance(struct siw_qp *qp, struct siw_tx_msg *m,
				 size_t n)
{
	while (m->kv_next < m->kv_num) {
		struct kvec *kv = &qp->tx_kv[m->kv_next];

		if (n < kv->iov_len) {
			kv->iov_base += n;
			kv->iov_len -= n;
			return;
		}
		n -= kv->iov_len;
		m->kv_next++;
	}
}

/*
 * Hands what is left of the batch to the socket: copied; or, bounced (a
 * Read Response, framing included), by reference in one run; or, zero-copy,
 * in runs, the payload's by reference and the headers' and trailers'
 * copied (a trailer and the next header share a run). A zero-copy batch's
 * headers stay copies: handing them over by reference too, from a page of
 * the QP's own that was written again, corrupted skbs on 6.1
 * (performance.rst, "Zero-copy transmit"). Returns 0 once the socket took all of it, -EAGAIN when it
 * has no room (it takes what fits first), or another error.
 */
int siw_tx_msg_push(struct siw_qp *qp, struct siw_tx_msg *m)
{
	bool by_ref = m->zc || m->src.bounce;
	struct kvec *kv = qp->tx_kv;

	lockdep_assert_held(&qp->tx_lock);
	if (m->kv_next == m->kv_num)
		return 0;
	while (m->kv_next < m->kv_num) {
		unsigned int i = m->kv_next, j = i;
		bool own = !by_ref || siw_tx_own_buf(qp, kv[i].iov_base);
		int flags = MSG_NOSIGNAL | MSG_DONTWAIT;
		size_t len = 0;
		int r;

		while (j < m->kv_num &&
		       (!by_ref || siw_tx_own_buf(qp, kv[j].iov_base) == own))
			len += kv[j++].iov_len;
		/* Only the batch's last run may go without MSG_MORE. */
		flags |= j == m->kv_num ? m->more : MSG_MORE;
		if (!len) {
			r = 0;
		} else if (own) {
			r = siw_tx_send_copied(qp, &kv[i], j - i, len, flags);
		} else if (m->src.bounce) {
			r = siw_tx_bounce_send(qp, &kv[i], j - i, flags);
		} else {
			r = siw_tx_zc_send(qp, &kv[i], j - i, flags, m->zc);
		}
		if (r < 0)
			return r;
		/*
		 * TCP answers a full socket with -EAGAIN, never with 0: a
		 * send that took nothing and said nothing would leave no
		 * write_space to come back on.
		 */
		if (!r && len)
			return -EPIPE;
		siw_tx_batch_advance(qp, m, r);
	}
	qp->tx_corked = m->more;
	return 0;
}

/*
 * Sends the message on from where it stopped: the rest of its batch, then
 * batch after batch until its last FPDU went. Returns 0 then, -EAGAIN
 * when the socket is full (the rest stays in m), or another error.
 */
int siw_tx_msg_send(struct siw_qp *qp, struct siw_tx_msg *m)
{
	int err;

	lockdep_assert_held(&qp->tx_lock);
	for (;;) {
		err = siw_tx_msg_push(qp, m);
		if (err)
			return err;
		/* The stack holds what it still needs of the pages. */
		if (m->src.bounce)
			siw_tx_bounce_drop(qp);
		if (m->built_last)
			return 0;
		/*
		 * The softirq cannot allocate on demand: it reserves the
		 * batch's pages first, and leaves the message to the worker
		 * (as if the socket were full) if it cannot.
		 */
		if (m->src.bounce && qp->tx_in_softirq &&
		    siw_tx_bounce_reserve(qp, m->len - m->sent))
			return -EAGAIN;
		err = siw_tx_batch_build(qp, m);
		if (err)
			return err;
	}
}
