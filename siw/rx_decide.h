/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/*
 * The receive path's decisions (rx_decide.c), part of the protocol core:
 * which receive or outstanding Read a segment belongs to, the MSN, MO and
 * length checks, the IRD, the peer-to-peer RTR, Send with Invalidate, a
 * Read's completion and the peer's Terminate, as pure functions over a
 * snapshot of the QP's receive state.
 *
 * The receiver (siw/rx.c in the module, the fuzzer and unit tests on the
 * host) keeps a struct siw_rx_state, puts it into a struct siw_rx_snap,
 * runs a decision, and applies it: the decision's next state replaces its
 * own. What the snapshot lacks is asked for one need at a time (enum
 * siw_rx_need): siw_rx_decide_begin_run() and siw_rx_decide_end_run()
 * call the receiver's fetch, which takes the lock it needs, looks the
 * thing up or does it and records the result in the snapshot; the runner
 * marks it known and asks again. A decision never asks for the same thing
 * twice, so the loop ends after at most SIW_RX_NEED_MAX rounds, and what
 * is asked for, and in which order, is what rx.c used to take locks for:
 * nothing is looked up that the segment does not need.
 */
#ifndef SIW_RX_DECIDE_H
#define SIW_RX_DECIDE_H

#include "proto.h"

/* What a decision needs to know or have done before it can be taken. */
enum siw_rx_need {
	SIW_RX_NEED_NONE,	/* the decision is complete */
	/* siw_rx_decide_begin() */
	SIW_RX_NEED_ORQ,	/* the oldest outstanding Read: snap.orq */
	SIW_RX_NEED_IRQ,	/* Read Requests not yet answered: snap.irq_* */
	SIW_RX_NEED_RQE,	/* take a receive element: snap.rqe_taken */
	SIW_RX_NEED_MEM,	/* look up dec.mem: snap.mem */
	/* siw_rx_decide_end() */
	SIW_RX_NEED_ORQ_POP,	/* account end.orq_add, pop if end.orq_pop */
	SIW_RX_NEED_INVAL,	/* invalidate end.inval_stag: snap.inval_ok */
	SIW_RX_NEED_NUM
};

#define SIW_RX_KNOWS(need)	(1U << (need))
#define SIW_RX_NEED_MAX		2	/* needs of one decision, at most */

/* The memory a tagged access needs, and the rights asked of it. */
enum siw_rx_mem_kind {
	SIW_RX_MEM_WRITE_SINK,	/* RDMA Write: STag, remote write */
	SIW_RX_MEM_READ_SINK,	/* Read Response: local key, local write */
	SIW_RX_MEM_READ_SOURCE,	/* Read Request: STag, remote read */
	SIW_RX_MEM_ATOMIC,	/* Atomic Request: STag, remote atomic */
};

/* Where the payload of an accepted FPDU goes. */
enum siw_rx_place {
	SIW_RX_PLACE_NONE,	/* none comes (Read Request, zero length) */
	SIW_RX_PLACE_TAGGED,	/* into dec.mem from dec.mem.to on */
	SIW_RX_PLACE_READ_SGL,	/* into the Read's SGE list at dec.sgl_off */
	SIW_RX_PLACE_RQE,	/* into the held receive element at h->mo */
	SIW_RX_PLACE_TERM,	/* a peer's Terminate: kept for the log */
};

/* Completion status of a work request, as the decision sees it. */
enum siw_rx_wc {
	SIW_RX_WC_SUCCESS,
	SIW_RX_WC_LOC_PROT_ERR,		/* Read with Invalidate: cannot */
	SIW_RX_WC_REM_ACCESS_ERR,	/* the peer terminated the Read */
	SIW_RX_WC_REM_INV_REQ_ERR,	/* Send with Invalidate: cannot */
	SIW_RX_WC_LOC_LEN_ERR,		/* a Read answered short */
};

/* The solicited flag of a completed receive. */
enum siw_rx_se {
	SIW_RX_SE_KEEP,		/* as posted */
	SIW_RX_SE_CLEAR,
	SIW_RX_SE_SET,
};

/*
 * The receive protocol state: kept by the receiver (struct siw_rx in the
 * module), read by every decision, and replaced whole by the next state
 * a decision returns.
 */
struct siw_rx_state {
	u32 msn[SIW_QN_NUM];	/* next MSN expected per untagged queue */
	u32 mo;			/* next MO of the Send being received */
	u8 rtr_await;		/* p2p responder: SIW_RTR_* still awaited */
	bool rtr_frame;		/* the current FPDU is that RTR */
	/* RFC 7306: an immediate waiting for its Send (SIW_IMM_FOR_SEND). */
	bool imm_pending;
	u32 imm_pending_val;
	/*
	 * Bytes of the RDMA Write message arriving, and of the last one;
	 * whether the last FPDU ended one (SIW_IMM_FOR_WRITE needs it).
	 */
	u64 write_acc;
	u64 write_last_len;
	bool write_ended;
};

/* The QP's receive state, by value. */
struct siw_rx_snap {
	/* Always filled in: the receiver's own state, no lock needed. */
	struct siw_rx_state state;
	bool rqe_held;		/* a receive element is held for the Send */
	u64 rqe_len;		/* held or taken: the element's length */
	bool flushed;		/* the QP left RTS: nothing more is taken */

	/* Filled in on demand; a bit SIW_RX_KNOWS(need) says so. */
	u32 known;
	struct {			/* SIW_RX_NEED_ORQ */
		bool have;		/* a Read is outstanding */
		u32 sink_stag;
		u64 sink_to;		/* its sink's first byte */
		u64 len;		/* its length */
		u64 done;		/* response bytes placed so far */
		bool sgl;		/* its sink is a list of SGEs */
		bool atomic;		/* an Atomic Request, not a Read */
		u32 atomic_id;		/* its Request Identifier */
	} orq;
	u32 irq_queued;		/* SIW_RX_NEED_IRQ: Requests not answered */
	u32 ird;		/* the IRD agreed */
	u32 irq_size;		/* slots for Requests */
	bool rqe_taken;		/* SIW_RX_NEED_RQE: one was (rqe_len set) */
	struct siw_mem_view mem;	/* SIW_RX_NEED_MEM */
	struct {			/* SIW_RX_NEED_ORQ_POP */
		bool popped;		/* an entry was taken off the ORQ */
		bool rtr;		/* it was the p2p RTR, no request */
		bool atomic;		/* it was an Atomic Request */
		bool local_inv;		/* Read with local invalidate */
		u32 sink_stag;
		u64 len;
		u64 done;		/* response bytes placed, this FPDU's too */
	} read;
	bool inval_ok;		/* SIW_RX_NEED_INVAL: it was invalidated */
};

/* A tagged access the decision needs checked. */
struct siw_rx_mem {
	enum siw_rx_mem_kind kind;
	u32 stag;
	u64 to;
	u64 len;
};

/* The decision on a new FPDU's header. */
struct siw_rx_dec {
	enum siw_rx_need need;
	enum siw_term_code code;	/* SIW_TERM_OK, or the Terminate */
	enum siw_rx_place place;
	struct siw_rx_mem mem;		/* NEED_MEM, PLACE_TAGGED */
	u64 sgl_off;			/* PLACE_READ_SGL */
	struct siw_rx_state next;	/* to store, unless drop */
	bool drop;			/* flushed: drop the rest, no Terminate */
};

/* The decision at the end of an FPDU whose CRC was good. */
struct siw_rx_end {
	enum siw_rx_need need;
	struct siw_rx_state next;	/* to store, unless drop */
	/* The oldest outstanding Read: add bytes done, pop it (NEED_ORQ_POP). */
	u32 orq_add;
	bool orq_pop;
	u32 inval_stag;			/* NEED_INVAL */
	/* What to do, in this order: */
	bool rtr_received;		/* the QP may transmit now */
	bool peer_term;			/* the peer sent a Terminate */
	bool rtr_answered;		/* the popped Read was our RTR */
	bool read_complete;		/* complete the popped Read's request */
	enum siw_rx_wc read_status;
	u32 read_bytes;
	bool atomic_complete;		/* the popped one was an atomic: */
	u64 atomic_orig;		/* place this, then complete it */
	bool rqe_complete;		/* complete the held receive element */
	enum siw_rx_wc rqe_status;
	u32 rqe_inval;			/* the STag it invalidated, or 0 */
	enum siw_rx_se rqe_se;
	bool rqe_imm;			/* it carries an immediate: */
	u32 rqe_imm_val;
	bool rqe_rdma_imm;		/* ... ending an RDMA Write */
	u32 rqe_bytes;			/* which wrote this many bytes */
	enum siw_term_code code;	/* a Terminate to send, or OK */
	bool irq_push;			/* queue the Request for its Response */
	bool irq_atomic;		/* ... an Atomic Request */
	bool stream_dead;		/* nothing more is received */
	bool drop;			/* flushed: nothing done, no Terminate */
	bool fatal;			/* the QP goes to error */
	bool tx_schedule;		/* the send queue may go on */
};

/*
 * A new FPDU whose header passed siw_ddp_check(): is it acceptable, and
 * where does its payload go? Until d->need is SIW_RX_NEED_NONE, fill in
 * what it asks for, set its bit in s->known, and call again.
 */
void siw_rx_decide_begin(const struct siw_rx_snap *s, const struct siw_hdr *h,
			 struct siw_rx_dec *d);

/* The FPDU ended: what it completes and which state follows. Same loop. */
void siw_rx_decide_end(const struct siw_rx_snap *s, const struct siw_hdr *h,
		       struct siw_rx_end *e);

/*
 * The receiver's side of the loop: fills in what need asks for, in s.
 * decision is the one that asks: a struct siw_rx_dec for the needs of
 * siw_rx_decide_begin(), a struct siw_rx_end for siw_rx_decide_end()'s.
 */
typedef void (*siw_rx_fetch_fn)(void *ctx, enum siw_rx_need need,
				const void *decision, struct siw_rx_snap *s);

/*
 * Run the decision on h to its end, fetching each need through
 * fetch(ctx, ...). False if a need is asked for twice: a bug of the
 * decision, for which the receiver ends the stream.
 */
bool siw_rx_decide_begin_run(struct siw_rx_snap *s, const struct siw_hdr *h,
			     struct siw_rx_dec *d, siw_rx_fetch_fn fetch,
			     void *ctx);
bool siw_rx_decide_end_run(struct siw_rx_snap *s, const struct siw_hdr *h,
			   struct siw_rx_end *e, siw_rx_fetch_fn fetch,
			   void *ctx);

const char *siw_rx_need_name(enum siw_rx_need need);

#endif /* SIW_RX_DECIDE_H */
