/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/*
 * siw_kverbs: a test module for siw's kernel verbs. Shared objects of its
 * three parts: the report (main.c), connections and work requests
 * (conn.c), and the cases (cases_*.c).
 */
#ifndef SIW_KVERBS_H
#define SIW_KVERBS_H

#include <linux/completion.h>
#include <linux/in.h>
#include <linux/mutex.h>
#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_cm.h>

/* How long a completion or a connection step may take (TCG is slow). */
#define KV_WAIT_MS		15000
/* How long "nothing more completes" is watched. */
#define KV_QUIET_MS		300
/* Work requests a connection tracks; enough for ORD Reads at once. */
#define KV_MAX_WR		300

struct kv_side;

/* One tracked work request; its completion is copied here. */
struct kv_wr {
	struct ib_cqe cqe;
	struct completion done;
	struct ib_wc wc;
	struct kv_side *side;	/* whose CQ it completes on */
	atomic_t times;		/* completions seen: must end at 1 */
	int seq;		/* its place among the side's completions */
};

/* One end of a connection. */
struct kv_side {
	const char *name;	/* "client" or "server" */
	struct kv_pair *pair;
	struct rdma_cm_id *id;
	struct ib_cq *cq;	/* send and receive completions */
	enum ib_poll_context poll_ctx;
	/* The awaited connection manager step: its event and status. */
	struct completion cm_done;
	int cm_event;
	int cm_status;
	bool established;
	unsigned long qp_events;	/* bit per enum ib_event_type seen */
	atomic_t completions;		/* work completions of this side */
};

/* What a connection is made with; zeroes mean the defaults. */
struct kv_pair_opts {
	u32 send_wr;
	u32 recv_wr;
	u32 send_sge;
	u32 recv_sge;
	u8 initiator_depth;
	u8 responder_resources;
};

/* Two connected RC QPs on the device, client and server. */
struct kv_pair {
	struct kv_ctx *kv;
	struct kv_side cli;
	struct kv_side srv;
	struct kv_pair_opts opts;
	struct kv_wr *wr;	/* KV_MAX_WR of them */
	unsigned int next_wr;
};

/* A buffer in kernel memory, mapped for the device. */
struct kv_buf {
	u8 *va;
	u64 dma;
	size_t len;
};

/* The whole run: device, listener, PD, and the report. */
struct kv_ctx {
	struct ib_device *dev;
	struct rdma_cm_id *listen_id;
	struct ib_pd *pd;	/* with an unsafe global rkey: a DMA MR */
	struct sockaddr_in addr;

	/* The connection the next connect request belongs to. */
	spinlock_t pending_lock;
	struct kv_pair *pending;

	/* The current case. */
	char case_name[256];
	bool case_failed;
	char case_detail[200];

	int cases;
	int passed;
	int failed;
};

/* main.c: the report */
__printf(2, 3) void kv_begin(struct kv_ctx *kv, const char *fmt, ...);
__printf(3, 4) bool kv_expect(struct kv_ctx *kv, bool cond,
			      const char *fmt, ...);
void kv_end(struct kv_ctx *kv);

/* conn.c: buffers */
int kv_buf_alloc(struct kv_ctx *kv, struct kv_buf *b, size_t len);
void kv_buf_free(struct kv_ctx *kv, struct kv_buf *b);
void kv_fill(void *buf, size_t len, u8 seed);
long kv_pattern_diff(const void *buf, size_t len, u8 seed);
long kv_const_diff(const void *buf, size_t len, u8 val);

/* conn.c: connections */
int kv_listen(struct kv_ctx *kv);
struct kv_pair *kv_pair_connect(struct kv_ctx *kv, enum ib_poll_context ctx,
				const struct kv_pair_opts *opts);
void kv_pair_destroy(struct kv_pair *p);
bool kv_qp_state_is(struct ib_qp *qp, enum ib_qp_state state,
		    unsigned int ms);
bool kv_qp_event_seen(struct kv_side *s, unsigned int ms);
const char *kv_poll_name(enum ib_poll_context ctx);

/* conn.c: work requests */
struct kv_wr *kv_wr_get(struct kv_pair *p, struct kv_side *s);
bool kv_wait(struct kv_wr *w, unsigned int ms);
void kv_process(struct kv_side *s);
const char *kv_wc_status(const struct kv_wr *w);
struct kv_wr *kv_post_rdma(struct kv_pair *p, struct kv_side *s,
			   enum ib_wr_opcode op, u64 laddr, u32 lkey, u32 len,
			   u64 raddr, u32 rkey, u32 inv_rkey);
struct kv_wr *kv_post_recv(struct kv_pair *p, struct kv_side *s, u64 addr,
			   u32 lkey, u32 len);
struct kv_wr *kv_post_send(struct kv_pair *p, struct kv_side *s, u64 addr,
			   u32 lkey, u32 len, u32 inv_rkey);
bool kv_expect_wc(struct kv_ctx *kv, struct kv_wr *w,
		  enum ib_wc_status status, enum ib_wc_opcode opcode,
		  const char *what);
bool kv_expect_quiet(struct kv_ctx *kv, struct kv_wr *w, const char *what);

static inline struct ib_qp *kv_qp(struct kv_side *s)
{
	return s->id->qp;
}

/* cases_basic.c */
void kv_cases_attrs(struct kv_ctx *kv);
void kv_case_cq_ctx(struct kv_ctx *kv, enum ib_poll_context ctx);
void kv_cases_post_errors(struct kv_ctx *kv);
void kv_cases_drain(struct kv_ctx *kv);
void kv_cases_rd_atom(struct kv_ctx *kv);

/* A fast-register MR over blocks of 2^order pages, and its SG list. */
#define KV_FRMR_BLOCKS	4
struct kv_frmr {
	struct ib_mr *mr;
	struct page *block[KV_FRMR_BLOCKS];
	struct scatterlist sg[KV_FRMR_BLOCKS];
	unsigned int nblocks;
	unsigned int order;
	bool mapped;
	size_t len;
};

/* cases_mr.c */
bool kv_frmr_create(struct kv_ctx *kv, struct kv_frmr *f,
		    unsigned int nblocks, unsigned int order,
		    size_t first_off, size_t len);
void kv_frmr_free(struct kv_ctx *kv, struct kv_frmr *f);
bool kv_frmr_reg(struct kv_ctx *kv, struct kv_pair *p, struct kv_side *s,
		 struct kv_frmr *f, int access, bool new_key);
void kv_cases_frmr(struct kv_ctx *kv);
void kv_cases_invalidate(struct kv_ctx *kv);

/* cases_ext.c */
void kv_cases_rfc7306(struct kv_ctx *kv);
void kv_cases_rfc7306_off(struct kv_ctx *kv);

/* victim.c */
int kv_victim_start(struct kv_ctx *kv);
void kv_victim_stop(struct kv_ctx *kv);

#endif /* SIW_KVERBS_H */
