// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * Zero-copy transmit: the payload of a large Send or Write goes to TCP by
 * reference to the user's registered pages (MSG_ZEROCOPY with a ubuf_info
 * of siw's own in msg_ubuf), and its work request completes only when the
 * network stack has let go of every skb that points at them: after the
 * peer acknowledged the bytes, or after a device or local delivery
 * copied them. A user who reuses the buffer right after the completion
 * can therefore never change what a retransmission sends.
 *
 * One struct siw_zc per message. Its reference count is the ubuf_info's:
 * one for the sender while it hands the message to the socket, one per
 * skb that carries its pages (the stack takes and drops those). The last
 * one marks the send queue slot done, through the QP's hub.
 *
 * The hub outlives the QP as long as a message does: a closed socket may
 * keep skbs for minutes (retransmissions to a peer gone quiet), and
 * destroy_qp must not wait for that. destroy_qp detaches the QP from the
 * hub; a message ending afterwards finds no QP and only frees itself.
 * The slot's token (the QP's sq_epoch and the slot's position) makes a
 * message that ends after its slot was flushed do nothing.
 *
 * The stack calls siw_zc_complete(), module code, whenever it frees the
 * last skb of a message, which may be long after the QP and the device
 * are gone: each message holds a reference to the module, so siw cannot
 * be unloaded (rmmod says it is in use) while the stack still holds one.
 *
 * FPDU headers and trailers are copied as usual (tx_msg.c, siw_tx_batch_build).
 */
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/skbuff.h>
#include <linux/slab.h>

#include "siw.h"

/* Ties messages to their QP; see above. */
struct siw_zc_hub {
	refcount_t ref;
	/* qp: set until destroy_qp detaches it. Any context; a leaf. */
	spinlock_t lock;
	struct siw_qp *qp;
};

struct siw_zc {
	struct ubuf_info ubuf;	/* refcnt counts sender + skbs */
	struct siw_zc_hub *hub;
	u32 pos;		/* the send queue slot */
	u32 epoch;		/* qp->sq_epoch when it started */
	u32 bytes;		/* payload, for the completion */
	u8 status;		/* enum siw_wc_status */
};

static void siw_zc_hub_put(struct siw_zc_hub *hub)
{
	if (refcount_dec_and_test(&hub->ref))
		kfree(hub);
}

/* The last reference to a message went: complete its slot. */
static void siw_zc_done(struct siw_zc *zc)
{
	struct siw_zc_hub *hub = zc->hub;
	struct siw_qp *qp;
	unsigned long flags;

	spin_lock_irqsave(&hub->lock, flags);
	qp = hub->qp;
	/* A detached hub has no QP; an attached one's QP is alive. */
	if (qp)
		siw_qp_get(qp);
	spin_unlock_irqrestore(&hub->lock, flags);
	if (qp) {
		siw_sq_zc_done(qp, zc->pos, zc->epoch, zc->status, zc->bytes);
		siw_qp_put(qp);
	}
	siw_zc_hub_put(hub);
	kfree(zc);
	/* Last: only the return to the stack is left. */
	module_put(THIS_MODULE);
}

/*
 * The stack's callback, and ours: drops one reference (an skb's, or
 * the sender's when skb is NULL). Runs in any context but hard IRQ.
 */
static void siw_zc_complete(struct sk_buff *skb, struct ubuf_info *uarg,
			    bool zerocopy_success)
{
	struct siw_zc *zc = container_of(uarg, struct siw_zc, ubuf);

	if (refcount_dec_and_test(&uarg->refcnt))
		siw_zc_done(zc);
}

SIW_DEFINE_UBUF_OPS(siw_zc_ops, siw_zc_complete);

/* The hub and the batch's bio_vecs, on a QP's first zero-copy message. */
static int siw_zc_qp_init(struct siw_qp *qp)
{
	struct siw_zc_hub *hub;

	lockdep_assert_held(&qp->tx_lock);
	if (qp->zc_hub)
		return 0;
	/* Read Responses may have made tx_bv already (tx_bounce.c). */
	if (!qp->tx_bv)
		qp->tx_bv = kcalloc(SIW_TX_KV_MAX, sizeof(*qp->tx_bv),
				    GFP_KERNEL);
	if (!qp->tx_bv)
		return -ENOMEM;
	hub = kzalloc(sizeof(*hub), GFP_KERNEL);
	if (!hub)
		return -ENOMEM;
	refcount_set(&hub->ref, 1);
	spin_lock_init(&hub->lock);
	hub->qp = qp;
	qp->zc_hub = hub;
	return 0;
}

/*
 * destroy_qp, once no transmit runs: messages still held by the stack
 * end without the QP from now on.
 */
void siw_zc_qp_release(struct siw_qp *qp)
{
	struct siw_zc_hub *hub = qp->zc_hub;
	unsigned long flags;

	if (hub) {
		spin_lock_irqsave(&hub->lock, flags);
		hub->qp = NULL;
		spin_unlock_irqrestore(&hub->lock, flags);
		siw_zc_hub_put(hub);
		qp->zc_hub = NULL;
	}
	kfree(qp->tx_bv);
	qp->tx_bv = NULL;
}

/*
 * A zero-copy message for send queue slot pos of @bytes payload, or NULL
 * (no memory: the caller copies instead). Must hold tx_lock.
 */
struct siw_zc *siw_zc_start(struct siw_qp *qp, u32 pos, u32 bytes)
{
	struct siw_zc *zc;
	unsigned long flags;

	lockdep_assert_held(&qp->tx_lock);
	if (siw_zc_qp_init(qp))
		return NULL;
	zc = kzalloc(sizeof(*zc), GFP_KERNEL);
	if (!zc)
		return NULL;
	__module_get(THIS_MODULE);	/* siw_zc_done() drops it */
	siw_ubuf_set_ops(&zc->ubuf, siw_zc_ops);
	refcount_set(&zc->ubuf.refcnt, 1);
	/*
	 * As MSG_ZEROCOPY's own: a clone of the skb (TCP transmits clones)
	 * or a forward to another device keeps the pages, no copy; only
	 * local delivery copies (skb_orphan_frags_rx), then lets go.
	 */
	zc->ubuf.flags = SKBFL_ZEROCOPY_FRAG | SKBFL_DONT_ORPHAN;
	refcount_inc(&qp->zc_hub->ref);
	zc->hub = qp->zc_hub;
	zc->pos = pos;
	zc->bytes = bytes;
	zc->status = SIW_WC_SUCCESS;
	spin_lock_irqsave(&qp->sq_lock, flags);
	zc->epoch = qp->sq_epoch;
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	return zc;
}

struct ubuf_info *siw_zc_ubuf(struct siw_zc *zc)
{
	return &zc->ubuf;
}

/*
 * The sender is done with the message (status: how the hand-over went):
 * drops its reference. If the stack holds none, the slot is marked done
 * right here.
 */
void siw_zc_end(struct siw_zc *zc, enum siw_wc_status status)
{
	zc->status = status;
	siw_zc_complete(NULL, &zc->ubuf, true);
}
