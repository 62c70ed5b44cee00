/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/*
 * Inside the transmitter (tx.c, tx_msg.c, responder.c): the message
 * being sent and where its payload comes from. No other file needs these.
 */
#ifndef SIW_TX_H
#define SIW_TX_H

#include "siw.h"

/* Where a piece of an outgoing message's payload comes from. */
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

/* What a message belongs to, and so what its end does (siw_tx_msg_end). */
enum siw_tx_msg_kind {
	SIW_TX_MSG_NONE,	/* no message is being sent */
	SIW_TX_MSG_SQE,		/* a send queue element's */
	SIW_TX_MSG_READ_RESP,	/* the answer to an inbound Read Request */
	SIW_TX_MSG_ATOMIC_RESP,	/* the answer to an inbound Atomic Request */
	SIW_TX_MSG_RTR,		/* the initiator's RTR in peer-to-peer mode */
	SIW_TX_MSG_TERM,	/* the Terminate, pushed while closing */
};

/*
 * A send queue element's second message, after the first went: the Send
 * of a Send with immediate (after its Immediate Data), the Immediate Data
 * of a Write with immediate (after the Write).
 */
enum siw_tx_then {
	SIW_TX_THEN_NONE,
	SIW_TX_THEN_SEND,
	SIW_TX_THEN_IMM,
};

/*
 * The message being sent (qp->tx_msg, under tx_lock). The socket is never
 * waited on: what it has no room for stays here, the transmit run ends,
 * and the socket's write_space starts the next run, which goes on where
 * this one stopped. Nothing of it lives on a stack.
 */
struct siw_tx_msg {
	enum siw_tx_msg_kind kind;
	struct siw_hdr h;	/* MO or TO filled in per FPDU */
	const struct siw_op_info *op;
	struct siw_tx_src src;
	u32 len;		/* payload bytes, from src */
	struct siw_zc *zc;	/* by reference; the element completes later */
	u64 to0;		/* tagged: the first FPDU's TO */
	u32 sent;		/* payload bytes put into batches */
	bool built_last;	/* the batch holds the message's last FPDU */
	/*
	 * The batch: qp->tx_kv[kv_next..kv_num) are still to go, the first
	 * of them maybe in part; more is MSG_MORE for the batch's end.
	 */
	unsigned int kv_next;
	unsigned int kv_num;
	int more;
	/* SIW_TX_MSG_SQE: our copy of the element (inline data too), its slot. */
	struct siw_sqe sqe;
	struct siw_sqe_ext ext;
	u32 pos;
	enum siw_tx_then then;
	bool completes_later;	/* a Read or atomic: with its response */
	/* SIW_TX_MSG_READ_RESP: the request answered. */
	struct siw_rreq rreq;
};

/* What a step of the transmitter did, or why it stopped. */
enum siw_tx_step {
	SIW_TX_SENT,		/* ran one element; go on */
	SIW_TX_EMPTY,		/* no VALID element to start */
	SIW_TX_RING_FULL,	/* every slot started, none completed yet */
	SIW_TX_BLOCKED,		/* waits for a response (ORD, fence) */
				/* ... or the QP failed */
	SIW_TX_DEFER,		/* not in a doorbell: leave it to the worker */
	SIW_TX_WAIT,		/* the socket is full: write_space resumes */
};

/* tx.c */
bool siw_tx_more_queued(struct siw_qp *qp);
struct siw_tx_msg *siw_tx_msg_new(struct siw_qp *qp,
				  enum siw_tx_msg_kind kind);
enum siw_tx_step siw_tx_msg_go(struct siw_qp *qp, int err);
bool siw_tx_doorbell_fits(struct siw_qp *qp, u64 len, u32 *budget);

/* responder.c */
bool siw_irq_peek(struct siw_qp *qp, struct siw_irq_entry *e);
void siw_irq_pop(struct siw_qp *qp);
int siw_tx_inbound_response(struct siw_qp *qp, struct siw_irq_entry *e);
void siw_tx_read_response_end(struct siw_qp *qp, struct siw_tx_msg *m,
			      int err);
enum siw_tx_step siw_tx_doorbell_read_response(struct siw_qp *qp,
					       u32 *budget);

/* tx_msg.c */
void siw_tx_src_release(struct siw_tx_src *src);
int siw_tx_msg_prepare(struct siw_qp *qp, struct siw_tx_msg *m, u32 len);
int siw_tx_msg_push(struct siw_qp *qp, struct siw_tx_msg *m);
int siw_tx_msg_send(struct siw_qp *qp, struct siw_tx_msg *m);

#endif /* SIW_TX_H */
