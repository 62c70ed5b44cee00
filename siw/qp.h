/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/*
 * Queue pairs, shared receive queues and completion queues: the objects
 * and the rules for who may touch which queue index.
 */
#ifndef SIW_QP_H
#define SIW_QP_H

#include <linux/completion.h>
#include <linux/lockdep.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/wait_bit.h>
#include <linux/workqueue.h>

#include "queue.h"
#include "proto.h"
#include "rx_decide.h"
#include "wr_ops.h"

struct siw_cep;
struct siw_mem;

/*
 * The QP states siw uses, ib_core's (enum ib_qp_state), once: their names
 * for the log and the tracepoints come from here. X(NAME), XL() last.
 */
#define SIW_QP_STATES(X, XL)	\
	X(RESET)		\
	X(INIT)			\
	X(RTR)			\
	X(RTS)			\
	X(SQD)			\
	X(SQE)			\
	XL(ERR)

/*
 * What the ABI's send queue element has no room for, per slot of a
 * kernel QP (user QPs cannot post these): the immediate, and an atomic's
 * operands. Written by post_send before the slot turns VALID.
 */
struct siw_sqe_ext {
	u32 imm;		/* as ib_send_wr.ex.imm_data, in host order */
	u64 compare_add;	/* CmpSwap: compare; FetchAdd: add */
	u64 swap;
};

/* siw_cqe.flags, kernel CQs only: imm_data holds an immediate. */
#define SIW_CQE_WITH_IMM	0x80

/* What an outstanding ORQ entry waits for. */
enum siw_orq_kind {
	SIW_ORQ_READ,		/* Read Responses into sqe's SGEs */
	SIW_ORQ_RTR,		/* the p2p RTR: no work request behind it */
	SIW_ORQ_ATOMIC,		/* an Atomic Response, 8 bytes to sge[0] */
};

/*
 * A Read or Atomic Request we sent (they share the ORD), and the send
 * queue slot it completes.
 */
struct siw_orq_entry {
	struct siw_sqe sqe;
	u32 sq_pos;
	u8 kind;		/* enum siw_orq_kind */
	u32 atomic_id;		/* SIW_ORQ_ATOMIC: the Request Identifier, */
	u32 sq_epoch;		/* ... and qp->sq_epoch when it was sent */
};

/* Per send queue slot, kernel-private: may it complete, and how. */
struct siw_sq_state {
	u8 done;
	u8 status;		/* enum siw_wc_status */
	u32 bytes;
};

/*
 * Transmit batching: up to SIW_TX_BATCH FPDUs, at most SIW_TX_BATCH_BYTES
 * on the wire, go to the socket in one kernel_sendmsg(), as up to
 * SIW_TX_KV_MAX pieces (header, payload pieces, trailer per FPDU).
 */
#define SIW_TX_BATCH		16
#define SIW_TX_BATCH_BYTES	(64 * 1024)
#define SIW_TX_KV_MAX		128
#define SIW_TX_TRAILER_MAX	(3 + SIW_MPA_CRC_LEN)	/* pad and CRC */
/*
 * What a user's doorbell may transmit itself before the worker takes over
 * (SIW_TX_INLINE_BYTES: the default of the tx_inline_bytes parameter).
 * Measured (selftests/bench/inline.sh, performance.rst): messages up to
 * 8 KiB go faster inline; from 16 KiB the worker is as fast or faster,
 * by more the more QPs one thread drives, as it copies while the poster
 * goes on.
 */
#define SIW_TX_INLINE_BYTES	(8 * 1024)
#define SIW_TX_INLINE_SQES	16

/*
 * Read Response payload the receive softirq sends itself per run
 * (SIW_TX_SOFTIRQ_BYTES: the default of the tx_softirq_bytes parameter).
 */
#define SIW_TX_SOFTIRQ_BYTES	65536
#define SIW_TX_SOFTIRQ_MAX	262144	/* bounds the time in one softirq */
/*
 * Sends and Writes from user memory of at least this many bytes go to
 * TCP by reference (tx_zc.c; the tx_zcopy_bytes parameter). Off by
 * default, as measured (performance.rst, "Zero-copy transmit"): a peer
 * on the same host copies the pages on receipt anyway, and the later
 * completion and extra socket calls made siw slower there.
 */
#define SIW_TX_ZCOPY_BYTES	0
#define SIW_TX_ZCOPY_MIN_FPDU	(16 * 1024)	/* and FPDUs this large */

/*
 * An inbound RDMA Read or Atomic Request waiting for its response to be
 * sent; they share the IRD and are answered in the order they came.
 */
struct siw_irq_entry {
	bool atomic;
	struct siw_rreq rreq;		/* !atomic */
	struct siw_atomic_req areq;	/* atomic */
};

/*
 * Receive state of a QP: the stream's framing, the protocol state (whose
 * fields the core's decisions document, rx_decide.h) and what it places.
 */
struct siw_rx {
	struct siw_rx_stream st;
	struct siw_rx_state state;	/* what the decisions read and replace */

	/* Placement of the current FPDU's payload: where it goes. */
	enum siw_rx_place place;
	struct siw_mem *mem;	/* tagged sink, or NULL */
	u64 to;			/* next tagged address */

	/*
	 * The oldest outstanding Read, when it scatters into more than one
	 * SGE: its list, and where in it the current Read Response goes.
	 */
	u32 rd_nsge;
	u64 rd_off;		/* bytes of the Read before this one */
	struct siw_sge rd_sge[SIW_MAX_SGE_RD];

	/* The untagged Send message being received. */
	bool have_rqe;
	struct siw_rqe rqe;
	bool rqe_imm;		/* it completes with an immediate, */
	u32 rqe_imm_val;
	bool rqe_rdma_imm;	/* ... after an RDMA Write */
	u32 rqe_pos;		/* its receive queue slot (not SRQ) */
	u32 rqe_bytes;		/* placed so far */
	u32 rqe_sge;		/* SGE being filled */
	u32 rqe_sge_off;	/* offset in it */

	u8 term_body[SIW_TERM_BODY_MAX];	/* a received Terminate */
	u32 term_have;
	/* An FPDU left the transmitter work: siw_tx_from_rx() at the end. */
	bool tx_wanted;
};

struct siw_cq {
	struct ib_cq base_cq;
	/*
	 * Producer side: cq_put and writing entries. Any context; taken
	 * under a QP's sq_lock or rq_lock. Lock order and contexts of all
	 * of siw's locks: Documentation/architecture.rst, Locking.
	 */
	spinlock_t lock;
	/* Consumer side of kernel CQs: cq_get. Any context; a leaf. */
	spinlock_t poll_lock;
	struct siw_cqe *queue;
	struct siw_cq_ctrl *ctrl;	/* right behind the last entry */
	struct siw_umap *umap;		/* user CQs: the mapping */
	u32 num_cqe;
	u32 cq_put;
	u32 cq_get;
	u32 id;
	bool user;
	/* Set once the CQ overflowed: its error event goes out once. */
	atomic_t overflowed;
	/*
	 * The completion event and the error event due to the consumer,
	 * delivered by siw_cq_notify() once the producer let go of the
	 * QP's locks: a handler may post to the same QP. Atomic, no lock.
	 */
	atomic_t comp_due;
	atomic_t err_due;
};

struct siw_srq {
	struct ib_srq base_srq;
	/* rq_get, rq_put (kernel SRQs), limit and armed. Any context; a leaf. */
	spinlock_t lock;
	struct siw_rqe *recvq;
	struct siw_umap *umap;
	u32 num_rqe;
	u32 rq_get;
	u32 rq_put;
	u32 limit;
	bool armed;
	bool user;
};

/*
 * The transmit lock: bit 0 of a word, and a map for lockdep. Process
 * context sleeps until it is free (siw_tx_lock); the receive softirq may
 * only try it (siw_tx_trylock), which a mutex does not allow there. A
 * try waits for nothing, so lockdep records it neither as softirq use
 * nor as a dependency: the softirq's order (socket spinlock, then this)
 * against process context's (this, then lock_sock) cannot deadlock.
 * lockdep_assert_held(&qp->tx_lock) works as on any lock.
 */
struct siw_tx_bitlock {
	unsigned long bit;
#ifdef CONFIG_LOCKDEP
	struct lockdep_map dep_map;
#endif
};

struct siw_qp {
	struct ib_qp base_qp;
	struct siw_device *sdev;

	/*
	 * References held by the connection manager and the data path;
	 * destroy_qp waits until they are all dropped.
	 */
	refcount_t ref;
	struct completion released;

	/*
	 * state, connected, cep, sock, tx_held and the pending Terminate.
	 * Any context; a leaf (Documentation/architecture.rst, Locking).
	 */
	spinlock_t state_lock;
	enum ib_qp_state state;
	bool connected;
	bool cm_bound;		/* an endpoint holds it (siw_qp_cm_bind) */
	/*
	 * References taken by iw_get_qp for iw_cm, each taken over by the
	 * iw_add_ref that follows it (cm.c, siw_get_qp). Atomic, no lock.
	 */
	atomic_t cm_lookup_refs;

	u32 num_sqe;
	u32 num_rqe;
	u32 max_send_sge;
	u32 max_recv_sge;
	u32 max_inline;
	u32 ird;		/* inbound Read Requests we accept */
	u32 ord;		/* Read Requests we may have outstanding */
	int access;		/* IB_ACCESS_REMOTE_* the peer may use */
	bool sq_sig_all;
	bool user;
	struct pid *owner;	/* a user QP's creating process, or NULL */

	/*
	 * Send queue. sq_lock: sq_get, sq_put (kernel QPs), flushing. Any
	 * context; taken before orq_lock and the send CQ's lock.
	 */
	spinlock_t sq_lock;
	struct siw_sqe *sendq;
	struct siw_umap *sq_umap;
	u32 sq_get;
	u32 sq_put;
	/*
	 * The transmitter holds the element it is sending (tx.c): a flush
	 * meanwhile completes nothing, only notes that it is due, and the
	 * transmitter runs it once it lets go (siw_sq_release_held).
	 */
	bool sq_held;
	bool sq_flush_due;

	/*
	 * Receive queue, unless the QP uses an SRQ. rq_lock: likewise, and
	 * rq_held, which is cleared only after the held element completed,
	 * so that a flush never completes younger elements before it. Any
	 * context; taken before the receive CQ's lock.
	 */
	spinlock_t rq_lock;
	struct siw_rqe *recvq;
	struct siw_umap *rq_umap;
	u32 rq_get;
	u32 rq_put;
	bool rq_held;		/* rx holds the element at rq_get - 1 */
	struct siw_srq *srq;

	struct siw_cq *scq;
	struct siw_cq *rcq;

	/*
	 * The connection, from the MPA exchange until the QP goes down. The
	 * QP holds a reference; others read it under state_lock and take
	 * their own before using it (siw_qp_disconnected drops the QP's).
	 */
	struct siw_cep *cep;
	struct socket *sock;
	bool crc;		/* MPA CRC negotiated */
	u8 mpa_rev;		/* MPA revision negotiated */
	bool gso;		/* GSO-sized FPDUs negotiated */
	u8 rtr;			/* p2p RTR type negotiated, 0: none */
	/*
	 * RFC 7306 negotiated (Immediate Data, atomics): set when connected,
	 * read by post_send without a lock (READ_ONCE).
	 */
	bool ext;
	/*
	 * Responder: no FPDU out before the initiator's first has arrived
	 * and passed its checks (RFC 5044 section 7.1.2, rule 4). In p2p
	 * mode that FPDU is the RTR, and the hold has no end; otherwise
	 * tx_hold_work ends it after mpa/first_fpdu_wait_ms. Written under
	 * state_lock; the receive path peeks at it with READ_ONCE().
	 */
	bool tx_held;
	/* Ends a hold without p2p; holds a QP reference while queued. */
	struct delayed_work tx_hold_work;
	u32 mulpdu;		/* largest ULPDU we send */

	/*
	 * Transmit runs one at a time per QP, under tx_lock: in tx_work,
	 * inline in a user's doorbell (siw_tx_doorbell_run), or in the
	 * receive softirq for Read Responses (siw_tx_from_rx). The fields
	 * below up to tx_corked are the transmitter's and need no lock of
	 * their own (siw_qp_connected sets them before any run can start).
	 * Process context takes it under the endpoint's lock, before the
	 * socket lock and every spinlock; the softirq only tries it, under
	 * the socket's spinlock (struct siw_tx_bitlock).
	 */
	struct siw_tx_bitlock tx_lock;
	bool tx_in_softirq;	/* the run holding tx_lock is the softirq's */
	bool tx_run_later;	/* queue a worker run once tx_lock is let go */
	struct work_struct tx_work;
	u32 sq_next;		/* next element to start; sq_get..sq_next run */
	u8 rtr_send;		/* initiator in p2p mode: the RTR to send first */
	struct siw_sq_state *sq_state;	/* per slot; sq_lock */
	struct siw_sqe_ext *sq_ext;	/* per slot, kernel QPs; see there */
	u32 tx_atomic_id;	/* the next Atomic Request's identifier */
	bool sq_failed;		/* a work request completed in error; sq_lock */
	/*
	 * Counts flushes; with a slot's position, the token of a zero-copy
	 * message that completes later (tx_zc.c). sq_lock.
	 */
	u32 sq_epoch;
	u32 tx_msn[SIW_QN_NUM];	/* next MSN we send per untagged queue */
	u8 *tx_hdr;		/* SIW_TX_BATCH FPDU length fields and headers */
	u8 *tx_trailer;		/* and their pads and CRCs */
	struct kvec *tx_kv;	/* SIW_TX_KV_MAX pieces of one batch */
	/* The message being sent, kept while the socket has no room (tx.h). */
	struct siw_tx_msg *tx_msg;
	bool tx_corked;		/* the last send had MSG_MORE: push at the end */
	/* Zero-copy transmit (tx_zc.c), set up on its first message. */
	struct siw_zc_hub *zc_hub;
	struct bio_vec *tx_bv;	/* SIW_TX_KV_MAX pieces of one batch */
	/* Read Response payload copied out of its region (tx_bounce.c). */
	struct siw_tx_bounce *tx_bounce;
	u64 tx_zc_msgs;		/* messages sent zero-copy (rdma resource) */
	u64 tx_db_read_resps;	/* Read Responses sent in a doorbell (same) */
	/* Counters (stats.h): each written by the one context that owns it. */
	u64 stats[SIW_STAT_QP_NUM];
	bool dying;		/* being destroyed: lookups fail. qp_xa's lock */
	/*
	 * Lockless, paired by full barriers (siw_tx_wake, siw_tx_run): a
	 * transmit run is going on; work for it appeared since it last
	 * looked. A kick during a run is left to that run, not a wake-up.
	 */
	bool tx_running;
	unsigned int tx_kicked;	/* 0 or 1; int-sized for xchg() */

	/* Outstanding Read Requests we sent, oldest first. orq_lock: a leaf. */
	spinlock_t orq_lock;
	struct siw_orq_entry *orq;
	u32 orq_size;
	u32 orq_get;
	u32 orq_put;
	u32 orq_done_bytes;	/* of the oldest: response bytes placed */

	/* Inbound Read Requests to answer. irq_lock (a leaf): rx adds, tx takes. */
	spinlock_t irq_lock;
	struct siw_irq_entry *irq;
	u32 irq_size;
	u32 irq_get;
	u32 irq_put;

	/* A Terminate to send (SIW_TERM_OK: none). Under state_lock. */
	enum siw_term_code term_code;
	u8 term_hdr[SIW_FPDU_HDR_MAX];
	u32 term_hdr_len;
	bool term_sent;

	struct siw_rx rx;	/* only touched by the socket's rx path */
	/*
	 * place_lock: held by the receive path across each piece of
	 * placement into memory (and an atomic's result), and to set
	 * place_stopped. A flush sets it before it completes anything, so
	 * no byte lands in a buffer whose work request completed. Any
	 * context; taken before siw_mem.access_lock.
	 */
	spinlock_t place_lock;
	bool place_stopped;	/* the QP left RTS: place nothing more */
};

/* The bytes a send queue element's SGEs hold (a Read: what it reads). */
static inline u64 siw_sqe_sge_len(const struct siw_sqe *sqe)
{
	u32 i, n = min_t(u32, sqe->num_sge, SIW_MAX_SGE);
	u64 len = 0;

	for (i = 0; i < n; i++)
		len += sqe->sge[i].length;
	return len;
}

static inline struct siw_qp *to_siw_qp(struct ib_qp *qp)
{
	return container_of(qp, struct siw_qp, base_qp);
}

static inline struct siw_cq *to_siw_cq(struct ib_cq *cq)
{
	return container_of(cq, struct siw_cq, base_cq);
}

static inline struct siw_srq *to_siw_srq(struct ib_srq *srq)
{
	return container_of(srq, struct siw_srq, base_srq);
}

static inline void siw_qp_get(struct siw_qp *qp)
{
	refcount_inc(&qp->ref);
}

static inline void siw_qp_put(struct siw_qp *qp)
{
	if (refcount_dec_and_test(&qp->ref))
		complete(&qp->released);
}

/* Must hold the QP's state_lock. */
static inline bool siw_qp_in_error(struct siw_qp *qp)
{
	lockdep_assert_held(&qp->state_lock);
	return qp->state == IB_QPS_ERR;
}

/*
 * A snapshot for the post verbs, which run per work request: the answer
 * may be stale as soon as it is read, with or without state_lock, so the
 * lock round trip would buy nothing.
 */
static inline bool siw_qp_in_reset(struct siw_qp *qp)
{
	return READ_ONCE(qp->state) == IB_QPS_RESET;
}

/* cq.c */
int siw_cq_add(struct siw_cq *cq, const struct siw_cqe *cqe, bool solicited);
void siw_cq_notify(struct siw_cq *cq);
int siw_create_cq(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
		  SIW_CREATE_CQ_UDATA_T *udata_arg);
int siw_destroy_cq(struct ib_cq *cq, struct ib_udata *udata);
int siw_poll_cq(struct ib_cq *cq, int num_entries, struct ib_wc *wc);
int siw_req_notify_cq(struct ib_cq *cq, enum ib_cq_notify_flags flags);

/* qp.c */
int siw_create_qp(struct ib_qp *qp, struct ib_qp_init_attr *attr,
		  struct ib_udata *udata);
int siw_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata);
int siw_query_qp(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init_attr);
int siw_destroy_qp(struct ib_qp *qp, struct ib_udata *udata);
const char *siw_qp_state_name(enum ib_qp_state s);
struct siw_qp *siw_qp_lookup(struct siw_device *sdev, u32 qpn);
int siw_qp_cm_bind(struct siw_qp *qp);
void siw_qp_cm_unbind(struct siw_qp *qp);
bool siw_qp_place_begin(struct siw_qp *qp, unsigned long *flags);
void siw_qp_place_end(struct siw_qp *qp, unsigned long flags);
void siw_qp_to_error(struct siw_qp *qp);
void siw_qp_flush(struct siw_qp *qp);
void siw_qp_fatal(struct siw_qp *qp, enum ib_event_type event);
void siw_qp_terminate(struct siw_qp *qp, enum siw_term_code code,
		      const u8 *hdr, u32 hdr_len);
int siw_qp_connected(struct siw_qp *qp, struct siw_cep *cep,
		     struct socket *sock, const struct siw_mpa_result *res,
		     bool initiator);
void siw_qp_disconnected(struct siw_qp *qp);

/* sq.c */
/* The slot after the last started one (siw_sq_peek). */
enum siw_sq_next {
	SIW_SQ_READY,		/* a new VALID element waits to start */
	SIW_SQ_EMPTY,		/* no VALID element to start */
	SIW_SQ_FULL,		/* every slot started, none completed yet */
};
int siw_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad_wr);
void siw_sq_posted(struct siw_qp *qp);
enum siw_sq_next siw_sq_peek(struct siw_qp *qp);
bool siw_sq_startable(struct siw_qp *qp);
bool siw_sq_start(struct siw_qp *qp, u32 pos);
void siw_sq_release_held(struct siw_qp *qp);
void siw_sq_mark_done(struct siw_qp *qp, u32 pos, enum siw_wc_status status,
		      u32 bytes);
void siw_sq_zc_done(struct siw_qp *qp, u32 pos, u32 epoch,
		    enum siw_wc_status status, u32 bytes);
void siw_sq_complete_ready(struct siw_qp *qp);
int siw_sqe_complete(struct siw_qp *qp, struct siw_sqe *sqe, u32 bytes,
		     enum siw_wc_status status);
void siw_sq_flush(struct siw_qp *qp);

/* rq.c */
/* How a receive ended, beyond its status. */
struct siw_rqe_done {
	u32 bytes;
	u32 inval_stag;		/* invalidated by Send with Invalidate, or 0 */
	bool imm;		/* an immediate came with it (RFC 7306) */
	u32 imm_data;		/* host order */
	bool rdma_imm;		/* it ended an RDMA Write with immediate */
};
int siw_post_recv(struct ib_qp *qp, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad_wr);
int siw_post_rqes(struct siw_rqe *ring, u32 num, u32 *put, u32 max_sge,
		  const struct ib_recv_wr *wr, const struct ib_recv_wr **bad_wr);
u64 siw_rqe_len(const struct siw_rqe *rqe);
bool siw_rq_take(struct siw_qp *qp, struct siw_rqe *rqe, u32 *pos);
int siw_rq_complete_held(struct siw_qp *qp, struct siw_rqe *rqe, u32 pos,
			 const struct siw_rqe_done *done,
			 enum siw_wc_status status);
int siw_rqe_complete_done(struct siw_qp *qp, struct siw_rqe *rqe,
			  const struct siw_rqe_done *done,
			  enum siw_wc_status status);
int siw_rqe_complete(struct siw_qp *qp, struct siw_rqe *rqe, u32 bytes,
		     u32 inval_stag, enum siw_wc_status status);
void siw_rq_flush(struct siw_qp *qp);

/* restrack.c */
int siw_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *base_qp);

/* responder.c */
void siw_irq_push(struct siw_qp *qp, const struct siw_hdr *h, bool atomic);

/* The transmit lock (struct siw_tx_bitlock), made with the QP. */
void siw_tx_bitlock_init(struct siw_tx_bitlock *lock);

/* Process context: sleeps until the lock is free. */
static inline void siw_tx_lock(struct siw_qp *qp)
{
	might_sleep();
	lock_map_acquire(&qp->tx_lock.dep_map);
	wait_on_bit_lock(&qp->tx_lock.bit, 0, TASK_UNINTERRUPTIBLE);
}

/* Any context: true if it took the lock. */
static inline bool siw_tx_trylock(struct siw_qp *qp)
{
	if (test_and_set_bit_lock(0, &qp->tx_lock.bit))
		return false;
	lock_map_acquire_try(&qp->tx_lock.dep_map);
	return true;
}

static inline void siw_tx_unlock(struct siw_qp *qp)
{
	lock_map_release(&qp->tx_lock.dep_map);
	clear_and_wake_up_bit(0, &qp->tx_lock.bit);
}

/* tx.c */
void siw_tx_work(struct work_struct *work);
void siw_tx_from_rx(struct siw_qp *qp, struct sock *sk);
void siw_tx_doorbell_run(struct siw_qp *qp);
void siw_tx_queue_run(struct siw_qp *qp);
void siw_tx_wake(struct siw_qp *qp);
void siw_tx_quiesce(struct siw_qp *qp);
void siw_tx_hold_expired(struct work_struct *work);
void siw_tx_hold_arm(struct siw_qp *qp, u32 ms);
void siw_tx_hold_cancel(struct siw_qp *qp);
void siw_tx_hold_stop(struct siw_qp *qp);
bool siw_tx_release(struct siw_qp *qp);
void siw_tx_write_space(struct sock *sk);
void *siw_tx_msg_alloc(void);
int siw_tx_init(void);
void siw_tx_exit(void);

/* tx_msg.c */
int siw_tx_fill_bvec(struct siw_qp *qp, const struct kvec *kv,
		     unsigned int n, size_t *len);

/* tx_zc.c */
struct siw_zc;
struct siw_zc *siw_zc_start(struct siw_qp *qp, u32 pos, u32 bytes);
struct ubuf_info *siw_zc_ubuf(struct siw_zc *zc);
void siw_zc_end(struct siw_zc *zc, enum siw_wc_status status);
void siw_zc_qp_release(struct siw_qp *qp);

/* tx_bounce.c */
struct siw_mem;
bool siw_tx_bounce_room(struct siw_qp *qp, u32 bytes);
int siw_tx_bounce_reserve(struct siw_qp *qp, u32 left);
int siw_tx_bounce_copy(struct siw_qp *qp, struct siw_mem *mem, u64 addr,
		       u32 len, void **base);
int siw_tx_bounce_bytes(struct siw_qp *qp, const void *src, u32 len,
			void **base);
int siw_tx_bounce_send(struct siw_qp *qp, const struct kvec *kv,
		       unsigned int n, int flags);
void siw_tx_bounce_drop(struct siw_qp *qp);
void siw_tx_bounce_free(struct siw_qp *qp);

/* rx.c */
void siw_rx_data_ready(struct sock *sk);
void siw_rx_reset(struct siw_qp *qp);
void siw_rx_release(struct siw_qp *qp);
int siw_rx_read(struct siw_qp *qp);

/* srq.c */
int siw_create_srq(struct ib_srq *srq, struct ib_srq_init_attr *attr,
		   struct ib_udata *udata);
int siw_modify_srq(struct ib_srq *srq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata);
int siw_query_srq(struct ib_srq *srq, struct ib_srq_attr *attr);
int siw_destroy_srq(struct ib_srq *srq, struct ib_udata *udata);
int siw_post_srq_recv(struct ib_srq *srq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr);
bool siw_srq_take(struct siw_srq *srq, struct siw_rqe *rqe);

#endif /* SIW_QP_H */
