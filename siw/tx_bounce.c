// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * Read Response payload, copied out under the region's lock.
 *
 * A Read Response's source is memory the peer named by STag; no local
 * work request owns it while it is sent, only the STag's validity says
 * its pages still belong to the region. So the responder reads them only
 * under the region's access_lock, as placement writes (mem.h), each piece
 * copied into a page of siw's own, and those pages go to TCP by
 * reference. However long a send then waits for the peer's window, no
 * byte of the region is read once invalidation or deregistration has
 * returned; the next piece finds the STag invalid and the QP terminates.
 *
 * The batch's FPDU headers and trailers are copied into the same pages,
 * so the whole batch goes to TCP in one call by reference and is cut into
 * segments as one stream, as a copied batch is. A batch's pages are new
 * (never slab, never written again once handed over); the QP drops its
 * references after the batch, and the stack frees each page when it lets
 * go of its last skb. One copy per byte, as when TCP copies from a kvec.
 */
#include <linux/bvec.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/uio.h>

#include "siw.h"

/*
 * A batch carries at most SIW_TX_BATCH_BYTES plus one FPDU of payload;
 * an FPDU's payload is below 64 KiB (its MPA length is 16 bits).
 */
#define SIW_TX_BOUNCE_PAGES	(2 * SIW_TX_BATCH_BYTES / PAGE_SIZE + 1)

/*
 * The current batch's pages. Only under the QP's tx_lock. The receive
 * softirq, which may not sleep, reserves a batch's pages before it
 * builds it (siw_tx_bounce_reserve): spare[], used before any new page
 * and freed with the batch.
 */
struct siw_tx_bounce {
	struct page *page[SIW_TX_BOUNCE_PAGES];
	unsigned int num;	/* pages in page[] */
	unsigned int off;	/* bytes used of page[num - 1] */
	struct page *spare[SIW_TX_BOUNCE_PAGES];
	unsigned int spares;	/* pages in spare[] */
};

/* The QP's bounce state and bio_vecs, made on its first Read Response. */
static struct siw_tx_bounce *siw_tx_bounce_of(struct siw_qp *qp)
{
	lockdep_assert_held(&qp->tx_lock);
	if (!qp->tx_bv) {
		qp->tx_bv = kcalloc(SIW_TX_KV_MAX, sizeof(*qp->tx_bv),
				    GFP_KERNEL);
		if (!qp->tx_bv)
			return NULL;
	}
	if (!qp->tx_bounce)
		qp->tx_bounce = kzalloc(sizeof(*qp->tx_bounce), GFP_KERNEL);
	return qp->tx_bounce;
}

/* May the current batch take @bytes more? */
bool siw_tx_bounce_room(struct siw_qp *qp, u32 bytes)
{
	const struct siw_tx_bounce *b = qp->tx_bounce;
	u64 room;

	lockdep_assert_held(&qp->tx_lock);
	if (!b)
		return bytes <= SIW_TX_BOUNCE_PAGES * PAGE_SIZE;
	/* The softirq has only the pages it reserved. */
	if (qp->tx_in_softirq)
		room = (u64)min_t(unsigned int, SIW_TX_BOUNCE_PAGES - b->num,
					 b->spares) *
		       PAGE_SIZE;
	else
		room = (u64)(SIW_TX_BOUNCE_PAGES - b->num) * PAGE_SIZE;
	if (b->num)
		room += PAGE_SIZE - b->off;
	return bytes <= room;
}

/*
 * Room for up to @len bytes in the batch's current page, a new one if it
 * is full: *dst and the bytes that fit, or -ENOMEM, or -EFAULT.
 */
static int siw_tx_bounce_space(struct siw_qp *qp, struct siw_tx_bounce *b,
			       u32 len, void **dst)
{
	if (!b->num || b->off == PAGE_SIZE) {
		struct page *page;

		if (b->num == SIW_TX_BOUNCE_PAGES)
			return -EFAULT;	/* siw_tx_bounce_room() said no */
		if (b->spares) {
			page = b->spare[--b->spares];
		} else {
			/* The softirq's room is its spares (the same). */
			if (qp->tx_in_softirq)
				return -EFAULT;
			page = alloc_page(GFP_KERNEL | __GFP_NOWARN);
			if (!page)
				return -ENOMEM;
		}
		b->page[b->num++] = page;
		b->off = 0;
	}
	*dst = page_address(b->page[b->num - 1]) + b->off;
	return min_t(u32, len, PAGE_SIZE - b->off);
}

/*
 * The receive softirq: pages for the next batch of a response with
 * @left payload bytes still to build, allocated now without sleeping,
 * so that the batch is never cut short half built. Returns 0, or
 * -ENOMEM if the pages could not all be had (the worker then goes on
 * with the message, allocating as it goes).
 */
int siw_tx_bounce_reserve(struct siw_qp *qp, u32 left)
{
	struct siw_tx_bounce *b = qp->tx_bounce;
	u32 bytes, fpdus;
	unsigned int want;

	lockdep_assert_held(&qp->tx_lock);
	if (!b)
		return -ENOMEM;
	/*
	 * A batch: at most SIW_TX_BATCH FPDUs and about SIW_TX_BATCH_BYTES,
	 * each FPDU with a header and trailer of at most the sizes that
	 * siw_tx_bounce_room() is asked for. A batch starts on a new page.
	 */
	bytes = min3(left, (u32)SIW_TX_BATCH_BYTES, SIW_TX_BATCH * qp->mulpdu);
	fpdus = min_t(u32, siw_fpdu_count(qp->mulpdu, SIW_HDR_MAX, bytes),
		      SIW_TX_BATCH);
	bytes += fpdus * (SIW_FPDU_HDR_MAX + SIW_TX_TRAILER_MAX);
	want = min_t(unsigned int, DIV_ROUND_UP(bytes, PAGE_SIZE),
		     SIW_TX_BOUNCE_PAGES - b->num);
	while (b->spares < want) {
		/* No emergency reserves: the worker can wait for memory. */
		struct page *page = alloc_page(GFP_NOWAIT | __GFP_NOWARN);

		if (!page)
			return -ENOMEM;
		b->spare[b->spares++] = page;
	}
	return 0;
}

/*
 * Copies up to @len bytes from @src (an FPDU's header or trailer) into the
 * batch's pages, so that the whole batch goes to TCP by reference in one
 * call and is cut into segments as one stream. Returns the bytes copied
 * (fewer at a page boundary), -ENOMEM or -EFAULT; *base is where.
 */
int siw_tx_bounce_bytes(struct siw_qp *qp, const void *src, u32 len,
			void **base)
{
	struct siw_tx_bounce *b = siw_tx_bounce_of(qp);
	int n;

	if (!b)
		return -ENOMEM;
	n = siw_tx_bounce_space(qp, b, len, base);
	if (n < 0)
		return n;
	memcpy(*base, src, n);
	b->off += n;
	return n;
}

/*
 * Copies up to @len bytes of @mem at @addr into the batch's pages while
 * the region is valid; *base is where they are. Returns the bytes copied
 * (fewer at a page boundary, on either side), -EKEYREVOKED once the
 * region was invalidated or deregistered, -ENOMEM, or -EFAULT.
 */
int siw_tx_bounce_copy(struct siw_qp *qp, struct siw_mem *mem, u64 addr,
		       u32 len, void **base)
{
	struct siw_tx_bounce *b = siw_tx_bounce_of(qp);
	struct siw_mem_seg seg;
	unsigned long flags;
	void *dst;
	int err;

	if (!b)
		return -ENOMEM;
	err = siw_tx_bounce_space(qp, b, len, &dst);
	if (err < 0)
		return err;
	len = err;
	if (!siw_mem_access_begin(mem, &flags))
		return -EKEYREVOKED;
	err = siw_mem_seg(mem, addr, len, &seg);
	if (!err) {
		len = min(len, seg.len);
		memcpy(dst, page_address(seg.page) + seg.off, len);
	}
	siw_mem_access_end(mem, flags);
	if (err)
		return -EFAULT;
	b->off += len;
	*base = dst;
	return len;
}

/*
 * Sends kv[0..n), each within one of the batch's pages, by reference.
 * Returns what the socket took.
 */
int siw_tx_bounce_send(struct siw_qp *qp, const struct kvec *kv,
		       unsigned int n, int flags)
{
	size_t len;
	int err = siw_tx_fill_bvec(qp, kv, n, &len);

	if (err)
		return err;
	/* From the receive softirq: under the socket's spinlock (tx.c). */
	return siw_send_pages(qp->sock, qp->tx_bv, n, len, flags,
			      qp->tx_in_softirq);
}

/* Drops the QP's references to the batch's pages. */
static void siw_tx_bounce_put(struct siw_tx_bounce *b)
{
	while (b->num)
		put_page(b->page[--b->num]);
	b->off = 0;
	while (b->spares)
		put_page(b->spare[--b->spares]);
}

/*
 * The batch went (or failed): the stack holds what it still needs. Spare
 * pages go too: a QP keeps no memory between batches.
 */
void siw_tx_bounce_drop(struct siw_qp *qp)
{
	lockdep_assert_held(&qp->tx_lock);
	if (qp->tx_bounce)
		siw_tx_bounce_put(qp->tx_bounce);
}

/* destroy_qp, once no transmit runs. */
void siw_tx_bounce_free(struct siw_qp *qp)
{
	if (qp->tx_bounce) {
		siw_tx_bounce_put(qp->tx_bounce);
		kfree(qp->tx_bounce);
		qp->tx_bounce = NULL;
	}
}
