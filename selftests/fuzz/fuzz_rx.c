// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * libFuzzer target: the receive path on an arbitrary byte stream, cut into
 * arbitrary pieces, against a QP whose state evolves segment by segment.
 *
 * The code under test is the module's own: the framing and header checks
 * (siw/rx_stream.c, siw/ddp_check.c) and every per-segment decision
 * (siw/rx_decide.c: which receive or outstanding Read a segment belongs
 * to, MSN, MO and length, the IRD, the RTR, Send with Invalidate, a
 * Read's completion, the peer's Terminate). What this file supplies is
 * what siw/rx.c supplies in the module, over a model instead of a QP:
 * looking things up for the decisions, applying them, placing bytes. The
 * model: three registered regions (remotely writable and readable; local
 * only, the sink of Reads and receives; a fast-register MR that may be
 * invalidated, maybe of another PD), up to four posted receives of two
 * SGEs, up to three outstanding Reads (any of them our RTR, or with local
 * invalidate), the IRD, Read Requests answered now and then, and a p2p
 * RTR awaited or not.
 *
 * Checked, besides what AddressSanitizer and UBSan see:
 *   - nothing is written outside a registered region or past a receive
 *     element, and a Send accepted as fitting always fits its SGEs;
 *   - an untagged segment is accepted only with the MSN its queue
 *     expects, at the MO that follows, inside its element;
 *   - a tagged segment is accepted only inside a valid region of the PD
 *     with the right access; a Read Response only for the oldest Read, at
 *     the offset reached, within its length;
 *   - Read Requests in the queue never exceed the IRD;
 *   - a decision asks for each thing at most once, and only for what its
 *     opcode needs;
 *   - state never goes backwards: MSNs grow by one per message, MO by the
 *     bytes received, the RTR once awaited is never awaited again;
 *   - each receive and each Read completes at most once, only when held
 *     or outstanding;
 *   - every error ends in exactly one Terminate decision, whose code is a
 *     valid layer/type/code of RFC 5040 section 7 / RFC 5041 section 7 /
 *     RFC 5044 and 6581, a DDP tagged error only for a tagged header and
 *     an untagged one only for an untagged header; nothing is placed,
 *     decided or completed after it or after the peer's Terminate;
 *   - every piece is consumed whole; an FPDU ends only after all its
 *     payload was placed;
 *   - after a flush (the QP left RTS, between any two pieces) nothing is
 *     taken from the queues, placed, decided or completed, and no
 *     Terminate follows.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rx_decide.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

#define NREGION		3
#define GUARD		64
#define GUARD_BYTE	0xa5
#define NRQE		4
#define NSGE		2
#define NORQ		3
#define NPIECE		7
#define CFG_LEN		43

struct region {
	u32 stag;
	u64 base;		/* tagged offset of its first byte */
	u32 len;
	bool remote;		/* remote write and read allowed */
	bool other_pd;
	bool frmr;		/* may be invalidated */
	bool valid;
	u8 *mem;		/* GUARD + len + GUARD bytes */
};

struct sge {
	u32 stag;
	u64 to;
	u32 len;
};

struct rqe {
	struct sge sge[NSGE];
	bool completed;
};

struct orq_entry {
	u32 stag;
	u64 to;
	u32 len;
	bool rtr;
	bool local_inv;
	bool completed;
	bool sgl;	/* a Read into several SGEs: the receiver places */
	bool atomic;	/* an RFC 7306 Atomic Request, its identifier: */
	u32 atomic_id;
};

/* The QP, as far as the receive path sees it. */
struct qp {
	struct region r[NREGION];
	struct rqe rq[NRQE];
	u32 rq_posted, rq_get;
	struct orq_entry orq[NORQ];
	u32 orq_put, orq_get, orq_done;
	u32 ird, irq_size, irq_put, irq_get;
	u32 drain_every;
	u32 flush_at;		/* flush after that many pieces; 0: never */
	bool flushed;
	bool ext;		/* RFC 7306 negotiated */

	/* As struct siw_rx. */
	struct siw_rx_state state;
	bool have_rqe;
	u32 rqe;		/* index of the held element */
	u32 rqe_bytes, sge_idx, sge_off;
	struct region *mem;	/* placement target */
	u64 to;

	/* Bookkeeping of the checks. */
	const struct siw_hdr *h;	/* of the FPDU being decided */
	int rounds;		/* needs fetched for its decision */
	enum siw_rx_place place;
	u32 placed;		/* payload bytes of this FPDU placed */
	u64 rqe_len;		/* of the held element */
	int fails;
	bool peer_term, fatal;
};

/* One piece of the stream, as an skb would be. */
struct piece {
	const u8 *p;
	u32 len;
};

static struct region *region_of(struct qp *q, u32 stag)
{
	int i;

	for (i = 0; i < NREGION; i++)
		if (q->r[i].stag == stag)
			return &q->r[i];
	return NULL;
}

/* As siw_mem_view_of(): what the core may know of a region. */
static void view_of(const struct region *r, bool remote,
		    struct siw_mem_view *v)
{
	memset(v, 0, sizeof(*v));
	if (!r)
		return;
	v->valid = r->valid;
	v->same_pd = !r->other_pd;
	v->access = !remote || r->remote;
	v->base = r->base;
	v->len = r->len;
}

static u64 rqe_len(const struct rqe *e)
{
	u64 len = 0;
	int i;

	for (i = 0; i < NSGE; i++)
		len += e->sge[i].len;
	return len;
}

/* A valid Terminate code: one that RFC 5040/5041/5044/6581 define. */
static bool term_valid(enum siw_term_code c)
{
	if (!siw_term_is_code(c) || (c & ~0x1ffff))
		return false;
	if (!strcmp(siw_term_name(c), "unknown"))
		return false;
	switch (siw_term_layer(c)) {
	case SIW_TERM_LAYER_RDMAP:
	case SIW_TERM_LAYER_DDP:
		return siw_term_etype(c) <= 2;
	case SIW_TERM_LAYER_LLP:
		return siw_term_etype(c) == SIW_LLP_ET_MPA;
	default:
		return false;
	}
}

/* Every Terminate decision, from the stream or from the decisions. */
static void terminated(struct qp *q, const struct siw_rx_stream *s,
		       enum siw_term_code code)
{
	CHECK(term_valid(code));
	CHECK(s->hdr_have <= sizeof(s->hdr));
	/* A DDP buffer error names the kind of buffer the header named. */
	if (siw_term_layer(code) == SIW_TERM_LAYER_DDP && s->hdr_have >= 3) {
		bool tagged = s->hdr[2] & SIW_DDP_FLAG_T;

		if (siw_term_etype(code) == SIW_DDP_ET_TAGGED)
			CHECK(tagged);
		if (siw_term_etype(code) == SIW_DDP_ET_UNTAGGED)
			CHECK(!tagged);
	}
	q->fails++;
	CHECK(q->fails == 1);
}

static int op_copy(void *src, u32 off, void *dst, u32 n)
{
	struct piece *pc = src;

	CHECK(off <= pc->len && n <= pc->len - off);
	memcpy(dst, pc->p + off, n);
	return 0;
}

static void snap_init(const struct qp *q, struct siw_rx_snap *s)
{
	memset(s, 0, sizeof(*s));
	s->state = q->state;
	s->rqe_held = q->have_rqe;
	if (q->have_rqe)
		s->rqe_len = rqe_len(&q->rq[q->rqe]);
	s->flushed = q->flushed;
}

/* As siw_rx_take_rqe(). */
static bool take_rqe(struct qp *q)
{
	if (q->rq_get >= q->rq_posted)
		return false;
	q->rqe = q->rq_get++;
	q->have_rqe = true;
	q->rqe_bytes = 0;
	q->sge_idx = 0;
	q->sge_off = 0;
	q->rqe_len = rqe_len(&q->rq[q->rqe]);
	return true;
}

/* As siw_rx_fetch_begin(). */
static void fetch_begin(void *ctx, enum siw_rx_need need,
			const void *decision, struct siw_rx_snap *s)
{
	const struct siw_rx_dec *d = decision;
	struct qp *q = ctx;
	const struct siw_hdr *h = q->h;
	struct region *r;

	/* The runner refuses a need asked twice; no more than two, either. */
	CHECK(++q->rounds <= SIW_RX_NEED_MAX);
	switch (need) {
	case SIW_RX_NEED_ORQ:
		CHECK(h->opcode == SIW_RDMAP_READ_RESP ||
		      h->opcode == SIW_RDMAP_ATOMIC_RESP);
		s->orq.have = q->orq_get != q->orq_put;
		if (s->orq.have) {
			const struct orq_entry *e = &q->orq[q->orq_get];

			s->orq.atomic = e->atomic;
			s->orq.atomic_id = e->atomic_id;
			s->orq.sink_stag = e->stag;
			s->orq.sink_to = e->to;
			s->orq.len = e->len;
			s->orq.done = q->orq_done;
			s->orq.sgl = e->sgl;
		}
		break;
	case SIW_RX_NEED_IRQ:
		CHECK(h->opcode == SIW_RDMAP_READ_REQ ||
		      h->opcode == SIW_RDMAP_ATOMIC_REQ);
		s->irq_queued = q->irq_put - q->irq_get;
		s->ird = q->ird;
		s->irq_size = q->irq_size;
		break;
	case SIW_RX_NEED_RQE:
		CHECK(!q->have_rqe && h->mo == 0);
		CHECK((h->opcode >= SIW_RDMAP_SEND &&
		       h->opcode <= SIW_RDMAP_SEND_SE_INV) ||
		      h->opcode == SIW_RDMAP_IMM ||
		      h->opcode == SIW_RDMAP_IMM_SE);
		s->rqe_taken = take_rqe(q);
		if (s->rqe_taken)
			s->rqe_len = q->rqe_len;
		break;
	case SIW_RX_NEED_MEM:
		r = region_of(q, d->mem.stag);
		switch (d->mem.kind) {
		case SIW_RX_MEM_WRITE_SINK:
			CHECK(h->opcode == SIW_RDMAP_WRITE);
			q->mem = r;
			view_of(r, true, &s->mem);
			break;
		case SIW_RX_MEM_READ_SINK:
			CHECK(h->opcode == SIW_RDMAP_READ_RESP);
			q->mem = r;
			view_of(r, false, &s->mem);
			break;
		case SIW_RX_MEM_READ_SOURCE:
			CHECK(h->opcode == SIW_RDMAP_READ_REQ);
			view_of(r, true, &s->mem);
			break;
		case SIW_RX_MEM_ATOMIC:
			CHECK(h->opcode == SIW_RDMAP_ATOMIC_REQ);
			view_of(r, true, &s->mem);
			break;
		default:
			CHECK(0);
		}
		break;
	default:
		/* Only the end's decision asks for the others. */
		CHECK(0);
	}
}

/* What an accepted header must satisfy, whatever the decision's path. */
static void check_accepted(const struct qp *q, const struct siw_rx_snap *s,
			   const struct siw_hdr *h, const struct siw_rx_dec *d)
{
	const struct siw_mem_view *v = &s->mem;

	if (s->state.rtr_await && h->opcode != SIW_RDMAP_TERMINATE) {
		CHECK(d->next.rtr_frame && h->last);
		CHECK((s->state.rtr_await == SIW_RTR_WRITE &&
		       h->opcode == SIW_RDMAP_WRITE && !h->payload_len) ||
		      (s->state.rtr_await == SIW_RTR_READ &&
		       h->opcode == SIW_RDMAP_READ_REQ && !h->rreq.size) ||
		      (s->state.rtr_await == SIW_RTR_SEND &&
		       h->opcode == SIW_RDMAP_SEND && !h->payload_len));
	} else {
		CHECK(!d->next.rtr_frame);
	}
	/* An immediate for a Send: only a plain Send may follow. */
	if (s->state.imm_pending)
		CHECK(h->opcode == SIW_RDMAP_SEND ||
		      h->opcode == SIW_RDMAP_SEND_SE ||
		      h->opcode == SIW_RDMAP_TERMINATE);
	switch (h->opcode) {
	case SIW_RDMAP_WRITE:
		if (d->next.rtr_frame)
			break;
		CHECK(d->place == SIW_RX_PLACE_TAGGED && d->mem.to == h->to);
		if (!h->payload_len)
			break;
		CHECK(v->valid && v->same_pd && v->access);
		CHECK(h->to >= v->base && h->to - v->base <= v->len &&
		      h->payload_len <= v->len - (h->to - v->base));
		break;
	case SIW_RDMAP_READ_RESP:
		CHECK(s->orq.have && !s->orq.atomic);
		CHECK(s->orq.done <= s->orq.len &&
		      h->payload_len <= s->orq.len - s->orq.done);
		if (!h->payload_len)
			break;
		CHECK(h->stag == s->orq.sink_stag &&
		      h->to == s->orq.sink_to + s->orq.done);
		if (s->orq.sgl) {
			/* No memory asked for: the receiver checks it. */
			CHECK(d->place == SIW_RX_PLACE_READ_SGL &&
			      d->sgl_off == s->orq.done);
			break;
		}
		CHECK(d->place == SIW_RX_PLACE_TAGGED);
		CHECK(v->valid && v->same_pd && v->access);
		CHECK(h->to >= v->base && h->to - v->base <= v->len &&
		      h->payload_len <= v->len - (h->to - v->base));
		break;
	case SIW_RDMAP_SEND:
	case SIW_RDMAP_SEND_INV:
	case SIW_RDMAP_SEND_SE:
	case SIW_RDMAP_SEND_SE_INV:
		CHECK(h->msn == s->state.msn[SIW_QN_SEND]);
		if (d->next.rtr_frame)
			break;
		CHECK(q->have_rqe && d->place == SIW_RX_PLACE_RQE);
		CHECK(h->mo == (s->rqe_held ? s->state.mo : 0) &&
		      h->mo == d->next.mo);
		/* The placement cursor agrees with the MO. */
		CHECK(q->rqe_bytes == h->mo);
		CHECK((u64)h->mo + h->payload_len <= q->rqe_len);
		break;
	case SIW_RDMAP_READ_REQ:
		CHECK(h->msn == s->state.msn[SIW_QN_RREQ]);
		CHECK(s->known & SIW_RX_KNOWS(SIW_RX_NEED_IRQ));
		CHECK(s->irq_queued < s->ird && s->irq_queued < s->irq_size);
		if (!h->rreq.size)
			break;
		CHECK(v->valid && v->same_pd && v->access);
		CHECK(h->rreq.src_to >= v->base &&
		      h->rreq.src_to - v->base <= v->len &&
		      h->rreq.size <= v->len - (h->rreq.src_to - v->base));
		break;
	case SIW_RDMAP_TERMINATE:
		CHECK(d->place == SIW_RX_PLACE_TERM);
		break;
	case SIW_RDMAP_IMM:
	case SIW_RDMAP_IMM_SE:
		CHECK(q->ext && d->place == SIW_RX_PLACE_NONE);
		CHECK(h->msn == s->state.msn[SIW_QN_SEND] &&
		      !s->state.imm_pending && !s->rqe_held);
		CHECK((u32)h->imm <= SIW_IMM_FOR_WRITE);
		/* Kind 2 right behind the end of an RDMA Write. */
		if ((u32)h->imm == SIW_IMM_FOR_WRITE)
			CHECK(s->state.write_ended);
		/* Only the immediate of a Send takes no receive. */
		CHECK(q->have_rqe == ((u32)h->imm != SIW_IMM_FOR_SEND));
		break;
	case SIW_RDMAP_ATOMIC_REQ:
		CHECK(q->ext && d->place == SIW_RX_PLACE_NONE);
		CHECK(h->msn == s->state.msn[SIW_QN_RREQ]);
		CHECK(s->irq_queued < s->ird && s->irq_queued < s->irq_size);
		CHECK(v->valid && v->same_pd && v->access);
		CHECK(!(h->atomic.to & 7) && h->atomic.to >= v->base &&
		      h->atomic.to - v->base <= v->len &&
		      8 <= v->len - (h->atomic.to - v->base));
		CHECK(h->atomic.op == SIW_ATOMIC_FETCH_ADD ||
		      h->atomic.op == SIW_ATOMIC_CMP_SWAP);
		break;
	case SIW_RDMAP_ATOMIC_RESP:
		CHECK(q->ext && d->place == SIW_RX_PLACE_NONE);
		CHECK(h->msn == s->state.msn[SIW_QN_ATOMIC_RESP]);
		CHECK(s->orq.have && s->orq.atomic &&
		      s->orq.atomic_id == h->atomic_resp.req_id);
		break;
	default:
		CHECK(0);
	}
}

static enum siw_term_code op_begin(void *ctx, struct siw_rx_stream *st)
{
	struct qp *q = ctx;
	const struct siw_hdr *h = &st->h;
	struct siw_rx_snap s;
	struct siw_rx_dec d;

	CHECK(!q->fails && !st->dead && !q->peer_term);
	CHECK(!q->mem);
	q->placed = 0;
	q->place = SIW_RX_PLACE_NONE;
	q->h = h;
	q->rounds = 0;
	snap_init(q, &s);
	CHECK(siw_rx_decide_begin_run(&s, h, &d, fetch_begin, q));
	/* Flushed: nothing asked for, nothing taken; the stream is dropped. */
	if (q->flushed) {
		CHECK(d.drop && !s.known && d.place == SIW_RX_PLACE_NONE &&
		      d.code == SIW_TERM_OK);
		st->dead = true;
		return SIW_TERM_OK;
	}
	CHECK(!d.drop);
	q->state = d.next;
	if (d.code != SIW_TERM_OK) {
		CHECK(d.place == SIW_RX_PLACE_NONE);
		return d.code;
	}
	check_accepted(q, &s, h, &d);
	q->place = d.place;
	if (d.place == SIW_RX_PLACE_TAGGED)
		q->to = d.mem.to;
	if (d.place == SIW_RX_PLACE_READ_SGL) {
		/* The model's list is its sink region, one piece. */
		const struct orq_entry *o = &q->orq[q->orq_get];

		q->mem = region_of(q, o->stag);
		q->to = o->to + d.sgl_off;
	}
	return SIW_TERM_OK;
}

/* Writes n bytes at tagged offset to of r: only ever inside it. */
static void put(struct siw_rx_stream *s, struct region *r, u64 to,
		const u8 *src, u32 n)
{
	CHECK(r && to >= r->base && to - r->base <= r->len &&
	      n <= r->len - (to - r->base));
	memcpy(r->mem + GUARD + (to - r->base), src, n);
	if (s->crc_on)
		s->crc = siw_mpa_crc_update(s->crc, src, n);
}

/* As siw_rx_place_send(): SGE by SGE, each checked whole. */
static int place_send(struct qp *q, struct siw_rx_stream *s, const u8 *p,
		      u32 n)
{
	while (n) {
		const struct sge *g;
		struct siw_mem_view v;
		u32 take;

		CHECK(q->have_rqe);
		/* The decision said it fits: the SGEs never run out. */
		CHECK(q->sge_idx < NSGE);
		g = &q->rq[q->rqe].sge[q->sge_idx];
		if (q->sge_off == g->len) {
			q->sge_idx++;
			q->sge_off = 0;
			q->mem = NULL;
			continue;
		}
		if (!q->mem) {
			q->mem = region_of(q, g->stag);
			view_of(q->mem, false, &v);
			if (siw_check_tagged(&v, g->to, g->len, SIW_TAG_SINK))
				return -1;
		}
		take = g->len - q->sge_off < n ? g->len - q->sge_off : n;
		put(s, q->mem, g->to + q->sge_off, p, take);
		q->sge_off += take;
		q->rqe_bytes += take;
		CHECK(q->rqe_bytes <= q->rqe_len);
		p += take;
		n -= take;
	}
	return 0;
}

/* As siw_rx_complete_rqe(). */
static void complete_rqe(struct qp *q)
{
	if (!q->have_rqe)
		return;
	CHECK(!q->rq[q->rqe].completed);
	q->rq[q->rqe].completed = true;
	q->have_rqe = false;
}

static int op_place(void *ctx, struct siw_rx_stream *s, void *src, u32 off,
		    u32 n)
{
	struct qp *q = ctx;
	struct piece *pc = src;
	const u8 *p;

	CHECK(!q->fails && !s->dead && !q->peer_term);
	CHECK(off <= pc->len && n <= pc->len - off && n);
	CHECK(n <= s->h.payload_len - q->placed);
	/* As siw_rx_copy() after a flush: nothing placed, the stream dropped. */
	if (q->flushed) {
		s->dead = true;
		return 0;
	}
	p = pc->p + off;
	q->placed += n;
	switch (s->h.opcode) {
	case SIW_RDMAP_READ_RESP:
		if (q->place == SIW_RX_PLACE_READ_SGL) {
			struct region *r = q->mem;

			/* As rx.c: memory that cannot take it fails the Read. */
			if (!r || q->to < r->base || q->to - r->base > r->len ||
			    n > r->len - (q->to - r->base))
				return -1;
			put(s, r, q->to, p, n);
			q->to += n;
			return 0;
		}
		/* fall through */
	case SIW_RDMAP_WRITE:
		CHECK(q->place == SIW_RX_PLACE_TAGGED);
		put(s, q->mem, q->to, p, n);
		q->to += n;
		return 0;
	case SIW_RDMAP_SEND:
	case SIW_RDMAP_SEND_INV:
	case SIW_RDMAP_SEND_SE:
	case SIW_RDMAP_SEND_SE_INV:
		CHECK(q->place == SIW_RX_PLACE_RQE);
		if (!place_send(q, s, p, n))
			return 0;
		complete_rqe(q);
		return -1;
	case SIW_RDMAP_TERMINATE:
		CHECK(q->place == SIW_RX_PLACE_TERM);
		if (s->crc_on)
			s->crc = siw_mpa_crc_update(s->crc, p, n);
		return 0;
	default:
		/* begin() refused every other opcode. */
		CHECK(0);
		return -1;
	}
}

/* As siw_rx_fetch_end(). */
static void fetch_end(void *ctx, enum siw_rx_need need, const void *decision,
		      struct siw_rx_snap *s)
{
	const struct siw_rx_end *e = decision;
	struct qp *q = ctx;
	const struct siw_hdr *h = q->h;
	struct region *r;

	/* The runner refuses a need asked twice; no more than two, either. */
	CHECK(++q->rounds <= SIW_RX_NEED_MAX);
	switch (need) {
	case SIW_RX_NEED_ORQ_POP:
		CHECK(h->opcode == SIW_RDMAP_READ_RESP ||
		      h->opcode == SIW_RDMAP_ATOMIC_RESP ||
		      h->opcode == SIW_RDMAP_TERMINATE);
		q->orq_done += e->orq_add;
		if (q->orq_get != q->orq_put) {
			const struct orq_entry *o = &q->orq[q->orq_get];

			/* A Read never takes more than its length. */
			CHECK(q->orq_done <= o->len);
			if (!e->orq_pop)
				break;
			s->read.popped = true;
			s->read.rtr = o->rtr;
			s->read.atomic = o->atomic;
			s->read.local_inv = o->local_inv;
			s->read.sink_stag = o->stag;
			s->read.len = o->len;
			s->read.done = q->orq_done;
			q->orq_get++;
			q->orq_done = 0;
		} else {
			CHECK(h->opcode == SIW_RDMAP_TERMINATE);
		}
		break;
	case SIW_RX_NEED_INVAL:
		/* As siw_mem_invalidate(): exists, our PD, a fast-reg MR. */
		r = region_of(q, e->inval_stag);
		s->inval_ok = r && !r->other_pd && r->frmr;
		if (s->inval_ok)
			r->valid = false;
		break;
	default:
		CHECK(0);
	}
}

/* What an FPDU's end may decide, against the state before it. */
static void check_end(const struct qp *q, const struct siw_rx_snap *s,
		      const struct siw_hdr *h, const struct siw_rx_end *e)
{
	bool send = h->opcode >= SIW_RDMAP_SEND &&
		    h->opcode <= SIW_RDMAP_SEND_SE_INV;
	bool imm = h->opcode == SIW_RDMAP_IMM || h->opcode == SIW_RDMAP_IMM_SE;
	const struct siw_rx_state *was = &s->state, *next = &e->next;
	int i, moved = 0;

	for (i = 0; i < SIW_QN_NUM; i++) {
		if (next->msn[i] == was->msn[i])
			continue;
		/* One more, for the last segment of a message on it. */
		CHECK(next->msn[i] == was->msn[i] + 1 && h->last);
		CHECK(i == (int)h->qn && !h->tagged);
		moved++;
	}
	CHECK(moved <= 1);
	if (send && !was->rtr_frame)
		CHECK(next->mo == was->mo + h->payload_len);
	else
		CHECK(next->mo == was->mo);
	if (h->opcode == SIW_RDMAP_WRITE && !was->rtr_frame)
		CHECK(h->last ? next->write_last_len ==
				was->write_acc + h->payload_len &&
				!next->write_acc :
				next->write_acc ==
				was->write_acc + h->payload_len);
	CHECK(next->rtr_await == was->rtr_await ||
	      (was->rtr_frame && !next->rtr_await));
	CHECK(e->rtr_received == was->rtr_frame);
	if (e->read_complete)
		CHECK(s->read.popped && !s->read.rtr);
	/* A Read succeeds only with exactly its length placed. */
	if (e->read_complete && e->read_status == SIW_RX_WC_SUCCESS &&
	    h->opcode == SIW_RDMAP_READ_RESP)
		CHECK(s->read.done == s->read.len && e->read_bytes == s->read.len);
	/* One answered short fails with the bytes placed, and a Terminate. */
	if (e->read_complete && e->read_status == SIW_RX_WC_LOC_LEN_ERR)
		CHECK(h->opcode == SIW_RDMAP_READ_RESP && h->last &&
		      s->read.done != s->read.len &&
		      e->read_bytes == s->read.done &&
		      e->code == SIW_TERM_DDP_T_BASE_BOUNDS);
	if (s->read.popped && !s->read.rtr && !s->read.atomic &&
	    h->opcode == SIW_RDMAP_READ_RESP && s->read.done != s->read.len)
		CHECK(e->read_complete &&
		      e->read_status == SIW_RX_WC_LOC_LEN_ERR);
	if (e->atomic_complete)
		CHECK(s->read.popped && s->read.atomic && !e->read_complete &&
		      h->opcode == SIW_RDMAP_ATOMIC_RESP &&
		      e->atomic_orig == h->atomic_resp.orig);
	if (s->read.popped && s->read.atomic &&
	    h->opcode == SIW_RDMAP_READ_RESP)
		CHECK(0);
	if (e->rqe_complete)
		CHECK(q->have_rqe && (send || imm) && h->last);
	/* An immediate goes with exactly one completed receive. */
	if (e->rqe_imm)
		CHECK(e->rqe_complete &&
		      (imm || (send && was->imm_pending &&
			       e->rqe_imm_val == was->imm_pending_val)));
	if (send && h->last && was->imm_pending)
		CHECK(e->rqe_imm && !next->imm_pending);
	if (next->imm_pending && !was->imm_pending)
		CHECK(imm && (u32)h->imm == SIW_IMM_FOR_SEND);
	if (e->rqe_rdma_imm)
		CHECK(imm && was->write_ended &&
		      (was->write_last_len <= U32_MAX ?
		       e->rqe_bytes == was->write_last_len &&
		       e->rqe_status == SIW_RX_WC_SUCCESS :
		       e->rqe_status == SIW_RX_WC_LOC_LEN_ERR &&
		       e->code == SIW_TERM_DDP_UT_TOO_LONG));
	CHECK(next->write_ended == (h->opcode == SIW_RDMAP_WRITE && h->last &&
				    !was->rtr_frame));
	if (e->irq_push)
		CHECK(h->opcode == SIW_RDMAP_READ_REQ ||
		      h->opcode == SIW_RDMAP_ATOMIC_REQ);
	CHECK(e->irq_atomic == (h->opcode == SIW_RDMAP_ATOMIC_REQ));
	if (e->code != SIW_TERM_OK)
		CHECK(e->code == SIW_TERM_RDMAP_PROT_INVALIDATE ||
		      (e->code == SIW_TERM_DDP_T_BASE_BOUNDS &&
		       e->read_status == SIW_RX_WC_LOC_LEN_ERR) ||
		      (e->code == SIW_TERM_DDP_UT_TOO_LONG &&
		       e->rqe_rdma_imm &&
		       e->rqe_status == SIW_RX_WC_LOC_LEN_ERR));
	if (s->known & SIW_RX_KNOWS(SIW_RX_NEED_INVAL)) {
		if (send)
			CHECK(h->last && e->inval_stag == h->rsvd_ulp &&
			      siw_op_info(h->opcode)->inval);
		else
			CHECK(s->read.local_inv &&
			      e->inval_stag == s->read.sink_stag);
	}
	if (e->rqe_inval)
		CHECK(s->inval_ok && e->rqe_inval == h->rsvd_ulp);
	CHECK(e->peer_term == (h->opcode == SIW_RDMAP_TERMINATE));
	CHECK(e->fatal == (e->peer_term ||
			   (e->read_complete &&
			    e->read_status == SIW_RX_WC_LOC_PROT_ERR)));
}

static void op_end(void *ctx, struct siw_rx_stream *st)
{
	struct qp *q = ctx;
	const struct siw_hdr *h = &st->h;
	struct siw_rx_snap s;
	struct siw_rx_end e;

	CHECK(!q->fails && !st->dead && !q->peer_term);
	CHECK(q->placed == h->payload_len);
	q->mem = NULL;
	q->h = h;
	q->rounds = 0;
	snap_init(q, &s);
	CHECK(siw_rx_decide_end_run(&s, h, &e, fetch_end, q));
	/* Flushed meanwhile: nothing completes, no state moves. */
	if (q->flushed) {
		CHECK(e.drop && e.stream_dead && !s.known && !e.read_complete &&
		      !e.rqe_complete && !e.atomic_complete && !e.irq_push &&
		      !e.peer_term && !e.fatal && e.code == SIW_TERM_OK &&
		      !memcmp(e.next.msn, q->state.msn, sizeof(e.next.msn)));
		st->dead = true;
		return;
	}
	CHECK(!e.drop);
	check_end(q, &s, h, &e);

	q->state = e.next;
	if (e.atomic_complete) {
		struct orq_entry *o = &q->orq[q->orq_get - 1];

		CHECK(!o->completed && o->atomic);
		o->completed = true;
	}
	if (e.peer_term)
		q->peer_term = true;
	if (e.read_complete) {
		struct orq_entry *o = &q->orq[q->orq_get - 1];

		CHECK(!o->completed);
		o->completed = true;
	}
	if (e.rqe_complete)
		complete_rqe(q);
	if (e.code != SIW_TERM_OK && !st->dead) {
		st->dead = true;
		terminated(q, st, e.code);
	}
	if (e.irq_push) {
		CHECK(q->irq_put - q->irq_get < q->ird &&
		      q->irq_put - q->irq_get < q->irq_size);
		q->irq_put++;
	}
	if (e.stream_dead)
		st->dead = true;
	if (e.fatal)
		q->fatal = true;
}

static void op_fail(void *ctx, struct siw_rx_stream *s,
		    enum siw_term_code code)
{
	terminated(ctx, s, code);
}

static const struct siw_rx_ops ops = {
	.copy = op_copy,
	.begin = op_begin,
	.place = op_place,
	.end = op_end,
	.fail = op_fail,
};

static u32 get32(const u8 *p)
{
	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}

/*
 * Configuration bytes:
 *  0     bit 0: CRC on; bits 1-2: IRD - 1; bits 3-4: RTR awaited (none,
 *        Send, Write, Read); bit 5: region 2 of another PD; bits 6-7:
 *        a Read Request is answered every that many pieces (0: never)
 *  1-18  per region: base (4, shifted left 8; top bit: near 2^64),
 *        length (2, 1..4096 after masking)
 *  19    bits 0-2: receives posted (up to 4); bits 3-4: Reads
 *        outstanding (up to 3); bits 5-6: IRQ slots - 1; bit 7: RFC
 *        7306 negotiated (then the third outstanding request is an
 *        Atomic Request, identifier 0x42)
 *  20-27 receive SGE lengths, times 16
 *  28-33 per Read: sink offset (times 16), length (times 64)
 *  34    per Read i: bit i its sink is region 2, bit 3 + i local
 *        invalidate; bit 6: the first Read is our RTR
 *  35-41 piece sizes, used in turn (0 means 1)
 *  42    the QP is flushed after that many pieces (0: never)
 */
static const u8 rtr_of[4] = { 0, SIW_RTR_SEND, SIW_RTR_WRITE, SIW_RTR_READ };

static void setup(struct qp *q, const u8 *c)
{
	int i, j;

	memset(q, 0, sizeof(*q));
	for (i = 0; i < SIW_QN_NUM; i++)
		q->state.msn[i] = SIW_MSN_FIRST;
	q->ird = ((c[0] >> 1) & 3) + 1;
	q->state.rtr_await = rtr_of[(c[0] >> 3) & 3];
	q->drain_every = c[0] >> 6;
	q->flush_at = c[42];
	q->irq_size = ((c[19] >> 5) & 3) + 1;
	q->ext = c[19] & 0x80;
	for (i = 0; i < NREGION; i++) {
		struct region *r = &q->r[i];
		const u8 *rc = c + 1 + 6 * i;

		r->stag = 0x100 * (i + 1) + 0x42;
		r->remote = i != 1;
		r->frmr = i == 2;
		r->other_pd = i == 2 && (c[0] & 0x20);
		r->valid = true;
		r->base = (u64)get32(rc) << 8;
		if (rc[0] & 0x80)	/* near the top: wrap checks */
			r->base = ~0ULL - (((u64)get32(rc) & 0xffff) << 4);
		r->len = ((rc[4] << 8 | rc[5]) & 0xfff) + 1;
		r->mem = malloc(r->len + 2 * GUARD);
		CHECK(r->mem);
		memset(r->mem, GUARD_BYTE, r->len + 2 * GUARD);
	}
	q->rq_posted = c[19] & 7;
	if (q->rq_posted > NRQE)
		q->rq_posted = NRQE;
	/* Receives into region 1, the sink of Reads too. */
	for (i = 0; i < NRQE; i++)
		for (j = 0; j < NSGE; j++) {
			struct sge *g = &q->rq[i].sge[j];

			g->stag = q->r[1].stag;
			g->len = (u32)c[20 + 2 * i + j] * 16;
			g->to = q->r[1].base + ((i * 97 + j * 31) % q->r[1].len);
		}
	q->orq_put = (c[19] >> 3) & 3;
	for (i = 0; i < NORQ; i++) {
		struct orq_entry *o = &q->orq[i];
		const struct region *r = &q->r[c[34] & (1 << i) ? 2 : 1];

		o->stag = r->stag;
		o->to = r->base + (u64)c[28 + 2 * i] * 16;
		o->len = (u32)c[29 + 2 * i] * 64;
		o->local_inv = c[34] & (8 << i);
		o->rtr = i == 0 && (c[34] & 0x40);
		o->sgl = i == 1 && (c[34] & 0x80);
		/* With RFC 7306 the last is an Atomic Request. */
		o->atomic = q->ext && i == NORQ - 1;
		o->atomic_id = 0x40 + i;
		if (o->atomic)
			o->rtr = o->sgl = o->local_inv = false;
	}
}

/*
 * As siw_qp_flush(): placement stops, every outstanding Read and posted
 * receive not taken completes flushed (the held one when the connection
 * ends, as siw_rx_release()).
 */
static void flush(struct qp *q)
{
	u32 i;

	q->flushed = true;
	for (i = q->orq_get; i < q->orq_put; i++) {
		CHECK(!q->orq[i].completed);
		q->orq[i].completed = true;
	}
	q->orq_get = q->orq_put;
	q->orq_done = 0;
	for (i = q->rq_get; i < q->rq_posted; i++) {
		CHECK(!q->rq[i].completed);
		q->rq[i].completed = true;
	}
	q->rq_get = q->rq_posted;
}

static void teardown(struct qp *q)
{
	int i;
	u32 k;

	for (i = 0; i < NREGION; i++) {
		struct region *r = &q->r[i];

		for (k = 0; k < GUARD; k++) {
			CHECK(r->mem[k] == GUARD_BYTE);
			CHECK(r->mem[GUARD + r->len + k] == GUARD_BYTE);
		}
		free(r->mem);
	}
	/* Nothing outstanding completed that was not taken off. */
	for (i = 0; i < NORQ; i++)
		CHECK(!q->orq[i].completed || (u32)i < q->orq_get);
	for (i = 0; i < NRQE; i++)
		CHECK(!q->rq[i].completed || (u32)i < q->rq_get);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const u8 *piece_sizes = data + 35;
	struct siw_rx_stream st;
	struct qp q;
	size_t pos = 0;
	int turn = 0;

	if (size < CFG_LEN)
		return 0;
	setup(&q, data);
	siw_rx_stream_reset(&st, data[0] & 1);
	st.ddp_flags = q.ext ? SIW_DDP_EXT : 0;
	data += CFG_LEN;
	size -= CFG_LEN;
	while (pos < size) {
		u32 n = piece_sizes[turn % NPIECE], lead = turn % 3;
		struct piece pc;
		u8 *copy;

		n = n ? n : 1;
		if (n > size - pos)
			n = size - pos;
		/*
		 * Its own allocation, the bytes at an offset as in an skb: a
		 * read outside them is a sanitizer report.
		 */
		copy = malloc(lead + n);
		CHECK(copy);
		memset(copy, 0xee, lead);
		memcpy(copy + lead, data + pos, n);
		pc.p = copy;
		pc.len = lead + n;
		CHECK(siw_rx_stream_feed(&st, &ops, &q, &pc, lead, n) == n);
		free(copy);
		pos += n;
		turn++;
		/* As siw_qp_flush(): everything posted completes, flushed. */
		if (q.flush_at && turn == (int)q.flush_at)
			flush(&q);
		/* The transmitter answers a Read Request now and then. */
		if (q.drain_every && turn % q.drain_every == 0 &&
		    q.irq_get != q.irq_put)
			q.irq_get++;
	}
	/* A Terminate decision kills the stream; nothing else counts twice. */
	CHECK(q.fails <= 1);
	CHECK(!q.fails || st.dead);
	CHECK(!q.peer_term || (st.dead && q.fatal));
	/* The held receive, flushed when the connection ends. */
	if (q.flushed)
		complete_rqe(&q);
	teardown(&q);
	return 0;
}
