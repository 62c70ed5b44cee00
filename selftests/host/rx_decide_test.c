// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * Host unit tests of the receive path's decisions (siw/rx_decide.c, the
 * module's own source): for each opcode, which receive or outstanding
 * Read a segment goes to, the MSN, MO, length, IRD and RTR checks, Send
 * with Invalidate, a Read's completion and the peer's Terminate; and what
 * each decision asks the receiver for, in which order. Prints TAP.
 */
#include <stdio.h>
#include <string.h>

#include "rx_decide.h"
#include "ktap.h"

/* What the receiver would find, and what the decision asked of it. */
struct world {
	bool rqe_posted;
	u64 rqe_len;
	bool orq_have;
	u32 orq_stag;
	u64 orq_to, orq_len, orq_done;
	bool orq_rtr, orq_inv;
	bool orq_sgl;
	bool orq_atomic;
	u32 orq_atomic_id;
	u32 irq_queued, ird, irq_size;
	struct siw_mem_view mem;
	bool inval_ok;

	char asked[8];			/* needs, as letters, in order */
	struct siw_rx_mem mem_req;
	u32 inval_stag, orq_add;
	bool orq_pop, repeated;
};

static const char need_letter[SIW_RX_NEED_NUM] = "-OIRMPV";

/* The receiver's side of the runner, against the world. */
static void fetch(void *ctx, enum siw_rx_need need, const void *decision,
		  struct siw_rx_snap *s)
{
	const struct siw_rx_dec *d = decision;
	const struct siw_rx_end *e = decision;
	struct world *w = ctx;
	size_t n = strlen(w->asked);

	if (n < sizeof(w->asked) - 1)
		w->asked[n] = need_letter[need];
	switch (need) {
	case SIW_RX_NEED_ORQ:
		s->orq.have = w->orq_have;
		s->orq.sink_stag = w->orq_stag;
		s->orq.sink_to = w->orq_to;
		s->orq.len = w->orq_len;
		s->orq.done = w->orq_done;
		s->orq.sgl = w->orq_sgl;
		s->orq.atomic = w->orq_atomic;
		s->orq.atomic_id = w->orq_atomic_id;
		break;
	case SIW_RX_NEED_IRQ:
		s->irq_queued = w->irq_queued;
		s->ird = w->ird;
		s->irq_size = w->irq_size;
		break;
	case SIW_RX_NEED_RQE:
		s->rqe_taken = w->rqe_posted;
		if (w->rqe_posted)
			s->rqe_len = w->rqe_len;
		break;
	case SIW_RX_NEED_MEM:
		w->mem_req = d->mem;
		s->mem = w->mem;
		break;
	case SIW_RX_NEED_ORQ_POP:
		w->orq_add = e->orq_add;
		w->orq_pop = e->orq_pop;
		if (e->orq_pop && w->orq_have) {
			s->read.popped = true;
			s->read.rtr = w->orq_rtr;
			s->read.atomic = w->orq_atomic;
			s->read.local_inv = w->orq_inv;
			s->read.sink_stag = w->orq_stag;
			s->read.len = w->orq_len;
			s->read.done = w->orq_done + e->orq_add;
		}
		break;
	case SIW_RX_NEED_INVAL:
		w->inval_stag = e->inval_stag;
		s->inval_ok = w->inval_ok;
		break;
	default:
		break;
	}
}

static void begin(struct world *w, struct siw_rx_snap *s,
		  const struct siw_hdr *h, struct siw_rx_dec *d)
{
	memset(w->asked, 0, sizeof(w->asked));
	w->repeated = !siw_rx_decide_begin_run(s, h, d, fetch, w);
}

static void end(struct world *w, struct siw_rx_snap *s,
		const struct siw_hdr *h, struct siw_rx_end *e)
{
	memset(w->asked, 0, sizeof(w->asked));
	w->repeated = !siw_rx_decide_end_run(s, h, e, fetch, w);
}

static void snap_init(struct siw_rx_snap *s)
{
	memset(s, 0, sizeof(*s));
	s->state.msn[SIW_QN_SEND] = 5;
	s->state.msn[SIW_QN_RREQ] = 9;
	s->state.msn[SIW_QN_TERM] = 1;
}

static const struct siw_mem_view good_mem = {
	.valid = true, .same_pd = true, .access = true,
	.base = 0x1000, .len = 0x1000,
};

/* Decides the header of h against s and w; returns the code. */
static enum siw_term_code run(struct world *w, struct siw_rx_snap s,
			      const struct siw_hdr *h, struct siw_rx_dec *d)
{
	begin(w, &s, h, d);
	/* Each need asked once, no more than SIW_RX_NEED_MAX of them. */
	if (w->repeated || strlen(w->asked) > SIW_RX_NEED_MAX)
		return SIW_TERM_NEED_MORE;
	return d->code;
}

static void test_write(void)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_WRITE, .tagged = true,
			     .last = true, .stag = 0x42, .to = 0x1800,
			     .payload_len = 0x800 };
	struct world w = { .mem = good_mem };
	struct siw_rx_snap s;
	struct siw_rx_dec d;

	snap_init(&s);
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_OK && !strcmp(w.asked, "M") &&
		d.place == SIW_RX_PLACE_TAGGED && d.mem.to == 0x1800 &&
		w.mem_req.kind == SIW_RX_MEM_WRITE_SINK && w.mem_req.stag == 0x42 &&
		w.mem_req.len == 0x800,
		"write: asks for the STag's memory (remote write), placed at TO");
	h.payload_len++;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_DDP_T_BASE_BOUNDS &&
		d.place == SIW_RX_PLACE_NONE,
		"write: one byte past the region: DDP base/bounds, nothing placed");
	w.mem.valid = false;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_DDP_T_INVALID_STAG,
		"write: invalid STag: DDP invalid STag");
	h.payload_len = 0;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_OK && !strcmp(w.asked, "M"),
		"write: zero bytes: the STag is looked up, never checked");
	w.mem = good_mem;
	w.mem.access = false;
	h.payload_len = 1;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_RDMAP_ACCESS,
		"write: no remote write right: RDMAP access violation");
	w.mem = good_mem;
	w.mem.same_pd = false;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_DDP_T_STAG_NOT_ASSOC,
		"write: another PD's STag: DDP STag not associated");
}

static void test_read_resp(void)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_READ_RESP, .tagged = true,
			     .stag = 0x77, .to = 0x1100, .payload_len = 0x100 };
	struct world w = { .mem = good_mem, .orq_have = true,
			   .orq_stag = 0x77, .orq_to = 0x1000,
			   .orq_len = 0x300, .orq_done = 0x100 };
	struct siw_rx_snap s;
	struct siw_rx_dec d;

	snap_init(&s);
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_OK && !strcmp(w.asked, "OM") &&
		d.place == SIW_RX_PLACE_TAGGED &&
		w.mem_req.kind == SIW_RX_MEM_READ_SINK && d.mem.to == 0x1100,
		"read response: the oldest Read's sink at the offset reached, "
		"then its memory (local write)");
	h.to = 0x1000;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_DDP_T_INVALID_STAG &&
		!strcmp(w.asked, "O"),
		"read response: at the sink's start after 256 bytes: invalid "
		"STag, no memory looked up");
	h.to = 0x1100;
	h.payload_len = 0x201;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_DDP_T_BASE_BOUNDS,
		"read response: one byte more than the Read has left: bounds");
	h.stag = 0x78;
	h.payload_len = 0x10;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_DDP_T_INVALID_STAG,
		"read response: another STag than the sink's: invalid STag");
	w.orq_have = false;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_RDMAP_OPCODE,
		"read response: no Read outstanding: unexpected opcode");
	w.orq_have = true;
	h.stag = 0x77;
	h.payload_len = 0;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_OK && !strcmp(w.asked, "O") &&
		d.place == SIW_RX_PLACE_NONE,
		"read response: zero bytes: no memory looked up, nothing placed");
	w.orq_done = 0x400;
	h.payload_len = 1;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_DDP_T_BASE_BOUNDS,
		"read response: done bytes past the Read's length: bounds");

	/* A Read into several SGEs: the receiver places into the list. */
	w.orq_sgl = true;
	w.orq_done = 0x100;
	h.to = 0x1100;
	h.payload_len = 0x100;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_OK && !strcmp(w.asked, "O") &&
		d.place == SIW_RX_PLACE_READ_SGL && d.sgl_off == 0x100,
		"read response, SGE list: placed at the Read's offset 0x100, "
		"no tagged memory looked up");
	h.to = 0x1000;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_DDP_T_INVALID_STAG,
		"read response, SGE list: out of sequence: invalid STag");
	h.to = 0x1100;
	h.payload_len = 0x201;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_DDP_T_BASE_BOUNDS,
		"read response, SGE list: past the Read's whole length: bounds");
}

static void test_send(void)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_SEND, .qn = SIW_QN_SEND,
			     .msn = 5, .mo = 0, .payload_len = 100 };
	struct world w = { .rqe_posted = true, .rqe_len = 300 };
	struct siw_rx_snap s, held;
	struct siw_rx_dec d;

	snap_init(&s);
	s.state.mo = 77;	/* left over from the last message */
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_OK && !strcmp(w.asked, "R") &&
		d.place == SIW_RX_PLACE_RQE && d.next.mo == 0,
		"send: the first segment takes a receive element, MO starts at 0");
	h.msn = 6;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_DDP_UT_MSN_RANGE &&
		!strcmp(w.asked, "R"),
		"send: the next MSN but one: out of range (after the element "
		"was taken)");
	h.msn = 5;
	w.rqe_posted = false;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_DDP_UT_MSN_NO_BUF,
		"send: nothing posted: no buffer");
	h.mo = 100;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_DDP_UT_MSN_NO_BUF &&
		!w.asked[0],
		"send: a middle segment with no message begun: no buffer, no "
		"element taken");
	h.msn = 4;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_DDP_UT_MSN_RANGE,
		"send: a middle segment of an old MSN: out of range");
	h.msn = 5;
	h.mo = 0;
	w.rqe_posted = true;
	h.payload_len = 301;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_DDP_UT_TOO_LONG,
		"send: longer than the element: too long");

	held = s;
	held.rqe_held = true;
	held.rqe_len = 300;
	held.state.mo = 100;
	h.mo = 100;
	h.payload_len = 200;
	ktap_ok(run(&w, held, &h, &d) == SIW_TERM_OK && !w.asked[0] &&
		d.place == SIW_RX_PLACE_RQE && d.next.mo == 100,
		"send: the next segment goes to the held element, none taken");
	h.payload_len = 201;
	ktap_ok(run(&w, held, &h, &d) == SIW_TERM_DDP_UT_TOO_LONG,
		"send: the next segment one byte past the element: too long");
	h.mo = 99;
	h.payload_len = 1;
	ktap_ok(run(&w, held, &h, &d) == SIW_TERM_DDP_UT_INVALID_MO,
		"send: a segment at another MO than the one that follows: "
		"invalid MO");
	h.mo = 100;
	h.msn = 6;
	ktap_ok(run(&w, held, &h, &d) == SIW_TERM_DDP_UT_MSN_RANGE,
		"send: the held message's segment with another MSN: out of range");
}

static void test_read_req(void)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_READ_REQ, .qn = SIW_QN_RREQ,
			     .last = true, .msn = 9,
			     .rreq = { .sink_stag = 1, .size = 0x100,
				       .src_stag = 0x55, .src_to = 0x1f00 } };
	struct world w = { .mem = good_mem, .irq_queued = 1, .ird = 2,
			   .irq_size = 4 };
	struct siw_rx_snap s;
	struct siw_rx_dec d;

	snap_init(&s);
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_OK && !strcmp(w.asked, "IM") &&
		w.mem_req.kind == SIW_RX_MEM_READ_SOURCE &&
		w.mem_req.stag == 0x55 && d.place == SIW_RX_PLACE_NONE,
		"read request: within the IRD, its source checked (remote read)");
	h.msn = 10;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_DDP_UT_MSN_RANGE && !w.asked[0],
		"read request: wrong MSN: out of range, IRD not looked at");
	h.msn = 9;
	w.irq_queued = 2;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_RDMAP_CATASTROPHIC_STREAM &&
		!strcmp(w.asked, "I"),
		"read request: IRD in use: catastrophic, localized to the stream");
	w.irq_queued = 1;
	w.ird = 8;
	w.irq_size = 1;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_RDMAP_CATASTROPHIC_STREAM,
		"read request: the IRD is capped by the queue's slots");
	w.irq_size = 4;
	h.rreq.size = 0x101;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_RDMAP_BASE_BOUNDS,
		"read request: source one byte past the region: RDMAP bounds");
	w.mem.access = false;
	h.rreq.size = 1;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_RDMAP_ACCESS,
		"read request: no remote read right: RDMAP access violation");
	w.mem.valid = false;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_RDMAP_INVALID_STAG,
		"read request: invalid source STag: RDMAP invalid STag");
	h.rreq.size = 0;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_OK && !strcmp(w.asked, "I"),
		"read request: zero bytes: no memory looked up");
}

static void test_rtr(void)
{
	struct siw_hdr wr = { .opcode = SIW_RDMAP_WRITE, .tagged = true,
			      .last = true, .stag = 0xdead };
	struct siw_hdr rd = { .opcode = SIW_RDMAP_READ_REQ, .qn = SIW_QN_RREQ,
			      .last = true, .msn = 9 };
	struct siw_hdr sd = { .opcode = SIW_RDMAP_SEND, .qn = SIW_QN_SEND,
			      .last = true, .msn = 5 };
	struct siw_hdr tm = { .opcode = SIW_RDMAP_TERMINATE,
			      .qn = SIW_QN_TERM, .last = true, .msn = 1 };
	struct world w = { .ird = 1, .irq_size = 1 };
	struct siw_rx_snap s;
	struct siw_rx_dec d;

	snap_init(&s);
	s.state.rtr_await = SIW_RTR_WRITE;
	ktap_ok(run(&w, s, &wr, &d) == SIW_TERM_OK && d.next.rtr_frame &&
		!w.asked[0],
		"rtr: the awaited zero-length Write, no STag looked up");
	wr.last = false;
	ktap_ok(run(&w, s, &wr, &d) == SIW_TERM_MPA_NO_RTR,
		"rtr: a Write RTR without L: no matching RTR");
	wr.last = true;
	wr.payload_len = 1;
	ktap_ok(run(&w, s, &wr, &d) == SIW_TERM_MPA_NO_RTR,
		"rtr: a Write RTR with a byte: no matching RTR");
	ktap_ok(run(&w, s, &sd, &d) == SIW_TERM_MPA_NO_RTR && !w.asked[0],
		"rtr: a Send when a Write is awaited: no matching RTR");
	ktap_ok(run(&w, s, &tm, &d) == SIW_TERM_OK &&
		d.place == SIW_RX_PLACE_TERM && !d.next.rtr_frame,
		"rtr: a Terminate is taken while an RTR is awaited");
	s.state.rtr_await = SIW_RTR_READ;
	ktap_ok(run(&w, s, &rd, &d) == SIW_TERM_OK && d.next.rtr_frame &&
		!strcmp(w.asked, "I"),
		"rtr: the awaited zero-length Read goes on as a Read Request");
	w.irq_queued = 1;
	ktap_ok(run(&w, s, &rd, &d) == SIW_TERM_RDMAP_CATASTROPHIC_STREAM,
		"rtr: a Read RTR counts against the IRD");
	rd.rreq.size = 1;
	ktap_ok(run(&w, s, &rd, &d) == SIW_TERM_MPA_NO_RTR,
		"rtr: a Read RTR of one byte: no matching RTR");
	s.state.rtr_await = SIW_RTR_SEND;
	ktap_ok(run(&w, s, &sd, &d) == SIW_TERM_OK && d.next.rtr_frame &&
		!w.asked[0] && d.place == SIW_RX_PLACE_NONE,
		"rtr: the awaited zero-length Send takes no receive element");
	sd.msn = 6;
	ktap_ok(run(&w, s, &sd, &d) == SIW_TERM_DDP_UT_MSN_RANGE,
		"rtr: a Send RTR with the wrong MSN: out of range");
	sd.msn = 5;
	sd.mo = 4;
	ktap_ok(run(&w, s, &sd, &d) == SIW_TERM_MPA_NO_RTR,
		"rtr: a Send RTR at MO 4: no matching RTR");
}

static void test_other(void)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_TERMINATE, .qn = SIW_QN_TERM,
			     .last = true, .msn = 1, .payload_len = 12 };
	struct world w = { 0 };
	struct siw_rx_snap s;
	struct siw_rx_dec d;

	snap_init(&s);
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_OK && d.place == SIW_RX_PLACE_TERM &&
		!w.asked[0], "terminate: kept, nothing looked up");
	h.opcode = 0xc;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_RDMAP_OPCODE,
		"a reserved opcode: unexpected opcode");
	ktap_ok(!strcmp(siw_rx_need_name(SIW_RX_NEED_INVAL), "invalidation") &&
		!strcmp(siw_rx_need_name(SIW_RX_NEED_NUM), "?"),
		"need names, and none past the last");
}

static void test_end_send(void)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_SEND, .qn = SIW_QN_SEND,
			     .msn = 5, .mo = 100, .payload_len = 50 };
	struct world w = { .inval_ok = true };
	struct siw_rx_snap s;
	struct siw_rx_end e;

	snap_init(&s);
	s.rqe_held = true;
	s.state.mo = 100;
	end(&w, &s, &h, &e);
	ktap_ok(e.next.mo == 150 && e.next.msn[SIW_QN_SEND] == 5 &&
		!e.rqe_complete && !w.asked[0],
		"send end: a middle segment moves MO on, no more");
	h.last = true;
	snap_init(&s);
	s.rqe_held = true;
	s.state.mo = 100;
	end(&w, &s, &h, &e);
	ktap_ok(e.next.msn[SIW_QN_SEND] == 6 && e.rqe_complete &&
		e.rqe_status == SIW_RX_WC_SUCCESS && e.rqe_se == SIW_RX_SE_CLEAR &&
		!e.rqe_inval && e.code == SIW_TERM_OK && !w.asked[0],
		"send end: the last segment completes the receive, MSN + 1");
	h.opcode = SIW_RDMAP_SEND_SE;
	end(&w, &s, &h, &e);
	ktap_ok(e.rqe_complete && e.rqe_se == SIW_RX_SE_SET,
		"send end: with SE the completion is solicited");
	h.opcode = SIW_RDMAP_SEND_SE_INV;
	h.rsvd_ulp = 0xabcd;
	end(&w, &s, &h, &e);
	ktap_ok(!strcmp(w.asked, "V") && w.inval_stag == 0xabcd &&
		e.rqe_complete && e.rqe_status == SIW_RX_WC_SUCCESS &&
		e.rqe_inval == 0xabcd && e.rqe_se == SIW_RX_SE_SET,
		"send end: with Invalidate the STag goes first and is reported");
	w.inval_ok = false;
	s.known = 0;
	end(&w, &s, &h, &e);
	ktap_ok(e.rqe_complete && e.rqe_status == SIW_RX_WC_REM_INV_REQ_ERR &&
		!e.rqe_inval && e.rqe_se == SIW_RX_SE_KEEP &&
		e.code == SIW_TERM_RDMAP_PROT_INVALIDATE &&
		e.next.msn[SIW_QN_SEND] == 6,
		"send end: an STag that cannot be invalidated fails the receive "
		"and terminates (protection, STag cannot be invalidated)");
	h.last = false;
	s.known = 0;
	end(&w, &s, &h, &e);
	ktap_ok(!w.asked[0] && !e.rqe_complete,
		"send end: invalidation waits for the last segment");
}

static void test_end_read(void)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_READ_RESP, .tagged = true,
			     .stag = 0x77, .payload_len = 64 };
	struct world w = { .orq_have = true, .orq_stag = 0x77,
			   .orq_len = 128, .inval_ok = true };
	struct siw_rx_snap s;
	struct siw_rx_end e;

	snap_init(&s);
	end(&w, &s, &h, &e);
	ktap_ok(!strcmp(w.asked, "P") && w.orq_add == 64 && !w.orq_pop &&
		!e.read_complete && !e.tx_schedule,
		"read end: a middle segment adds its bytes to the Read");
	h.last = true;
	w.orq_done = 64;
	snap_init(&s);
	end(&w, &s, &h, &e);
	ktap_ok(w.orq_pop && e.read_complete && e.read_bytes == 128 &&
		e.read_status == SIW_RX_WC_SUCCESS && e.tx_schedule && !e.fatal &&
		e.code == SIW_TERM_OK,
		"read end: the last segment completes the Read, the SQ goes on");
	w.orq_inv = true;
	snap_init(&s);
	end(&w, &s, &h, &e);
	ktap_ok(!strcmp(w.asked, "PV") && w.inval_stag == 0x77 &&
		e.read_status == SIW_RX_WC_SUCCESS,
		"read end: Read with local invalidate invalidates the sink");
	w.inval_ok = false;
	snap_init(&s);
	end(&w, &s, &h, &e);
	ktap_ok(e.read_complete && e.read_status == SIW_RX_WC_LOC_PROT_ERR &&
		e.fatal && !e.tx_schedule,
		"read end: a sink that cannot be invalidated fails Read and QP");
	w.inval_ok = true;
	/* Answered short: half of it, then nothing at all. */
	w.orq_done = 0;
	snap_init(&s);
	end(&w, &s, &h, &e);
	ktap_ok(!strcmp(w.asked, "P") && e.read_complete &&
		e.read_status == SIW_RX_WC_LOC_LEN_ERR && e.read_bytes == 64 &&
		e.code == SIW_TERM_DDP_T_BASE_BOUNDS && !e.tx_schedule,
		"read end: a response of half the length fails the Read with the "
		"bytes placed, terminates (DDP base or bounds), invalidates nothing");
	h.payload_len = 0;
	snap_init(&s);
	end(&w, &s, &h, &e);
	ktap_ok(e.read_complete && e.read_status == SIW_RX_WC_LOC_LEN_ERR &&
		e.read_bytes == 0 && e.code == SIW_TERM_DDP_T_BASE_BOUNDS,
		"read end: an empty last segment of a Read of 128 bytes fails it");
	w.orq_done = 127;
	h.payload_len = 0;
	snap_init(&s);
	end(&w, &s, &h, &e);
	ktap_ok(e.read_complete && e.read_status == SIW_RX_WC_LOC_LEN_ERR &&
		e.read_bytes == 127 && e.code == SIW_TERM_DDP_T_BASE_BOUNDS,
		"read end: one byte missing fails it");
	w.orq_inv = false;
	w.orq_done = 0;
	w.orq_len = 0;
	snap_init(&s);
	end(&w, &s, &h, &e);
	ktap_ok(e.read_complete && e.read_status == SIW_RX_WC_SUCCESS &&
		!e.read_bytes && e.code == SIW_TERM_OK && e.tx_schedule,
		"read end: a zero-length Read answered empty completes");
	w.orq_len = 128;
	h.payload_len = 64;
	w.orq_rtr = true;
	snap_init(&s);
	end(&w, &s, &h, &e);
	ktap_ok(!e.read_complete && e.rtr_answered && e.tx_schedule,
		"read end: our RTR answered completes nothing");
}

static void test_end_other(void)
{
	struct siw_hdr rq = { .opcode = SIW_RDMAP_READ_REQ, .qn = SIW_QN_RREQ,
			      .last = true, .msn = 9 };
	struct siw_hdr tm = { .opcode = SIW_RDMAP_TERMINATE,
			      .qn = SIW_QN_TERM, .last = true, .msn = 1 };
	struct siw_hdr wr = { .opcode = SIW_RDMAP_WRITE, .tagged = true,
			      .last = true, .payload_len = 9 };
	struct siw_hdr sd = { .opcode = SIW_RDMAP_SEND, .qn = SIW_QN_SEND,
			      .last = true, .msn = 5 };
	struct world w = { .orq_have = true, .orq_len = 8 };
	struct siw_rx_snap s;
	struct siw_rx_end e;

	snap_init(&s);
	end(&w, &s, &wr, &e);
	ktap_ok(!w.asked[0] && !e.tx_schedule && !e.fatal &&
		e.next.mo == s.state.mo &&
		!memcmp(e.next.msn, s.state.msn, sizeof(e.next.msn)),
		"write end: nothing completes, no state moves");
	end(&w, &s, &rq, &e);
	ktap_ok(e.next.msn[SIW_QN_RREQ] == 10 && e.irq_push && e.tx_schedule,
		"read request end: MSN + 1, queued for its Response");
	end(&w, &s, &tm, &e);
	ktap_ok(!strcmp(w.asked, "P") && w.orq_pop && !w.orq_add &&
		e.peer_term && e.read_complete &&
		e.read_status == SIW_RX_WC_REM_ACCESS_ERR && !e.read_bytes &&
		e.stream_dead && e.fatal,
		"terminate end: the oldest Read fails (remote access), the QP "
		"and the stream end");
	w.orq_have = false;
	snap_init(&s);
	end(&w, &s, &tm, &e);
	ktap_ok(e.peer_term && !e.read_complete && e.fatal,
		"terminate end: no Read outstanding, none completed");
	w.orq_have = true;
	w.orq_rtr = true;
	snap_init(&s);
	end(&w, &s, &tm, &e);
	ktap_ok(!e.read_complete && e.fatal,
		"terminate end: the RTR Read has no request to complete");

	snap_init(&s);
	s.state.rtr_await = SIW_RTR_SEND;
	s.state.rtr_frame = true;
	end(&w, &s, &sd, &e);
	ktap_ok(e.rtr_received && !e.next.rtr_await &&
		e.next.msn[SIW_QN_SEND] == 6 && !e.rqe_complete,
		"rtr end: a Send RTR takes its MSN, completes no receive");
	s.state.rtr_await = SIW_RTR_WRITE;
	wr.payload_len = 0;
	end(&w, &s, &wr, &e);
	ktap_ok(e.rtr_received && !e.next.rtr_await && !e.tx_schedule,
		"rtr end: a Write RTR only lets the QP transmit");
	s.state.rtr_await = SIW_RTR_READ;
	end(&w, &s, &rq, &e);
	ktap_ok(e.rtr_received && e.irq_push && e.next.msn[SIW_QN_RREQ] == 10,
		"rtr end: a Read RTR is queued for its Response");
}

/* RFC 7306: Immediate Data, Atomic Request and Response. */
static void test_rfc7306(void)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_IMM, .qn = SIW_QN_SEND,
			     .last = true, .msn = 5 };
	struct world w = { .rqe_posted = true, .rqe_len = 64 };
	struct siw_rx_snap s;
	struct siw_rx_dec d;
	struct siw_rx_end e;

	snap_init(&s);
	h.imm = siw_imm_word(0xabcd, SIW_IMM_FOR_SEND);
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_OK && !w.asked[0] &&
		d.place == SIW_RX_PLACE_NONE,
		"imm for a Send: no receive taken, nothing placed");
	end(&w, &s, &h, &e);
	ktap_ok(e.next.imm_pending && e.next.imm_pending_val == 0xabcd &&
		!e.rqe_complete && e.next.msn[SIW_QN_SEND] == 6,
		"imm for a Send: kept for it, its MSN used");
	s.state.msn[SIW_QN_SEND] = 6;
	s.state.imm_pending = true;
	s.state.imm_pending_val = 0xabcd;
	h.msn = 6;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_RDMAP_OPCODE,
		"imm while one waits for its Send: unexpected opcode");
	{
		struct siw_hdr sh = { .opcode = SIW_RDMAP_SEND_SE,
				      .qn = SIW_QN_SEND, .last = true,
				      .msn = 6, .payload_len = 10 };

		s.rqe_held = true;
		s.rqe_len = 64;
		end(&w, &s, &sh, &e);
		ktap_ok(e.rqe_complete && e.rqe_imm && e.rqe_imm_val == 0xabcd &&
			!e.rqe_rdma_imm && !e.next.imm_pending &&
			e.rqe_se == SIW_RX_SE_SET,
			"the Send after it completes with the immediate");
		s.rqe_held = false;
	}
	snap_init(&s);
	h.msn = 5;
	h.opcode = SIW_RDMAP_IMM_SE;
	h.imm = siw_imm_word(0x77, SIW_IMM_FOR_WRITE);
	s.state.write_last_len = 3000;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_RDMAP_OPCODE && !w.asked[0],
		"imm ending a Write, but no Write just ended: unexpected opcode");
	s.state.write_ended = true;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_OK && !strcmp(w.asked, "R"),
		"imm ending a Write: takes a receive");
	s.rqe_held = true;
	end(&w, &s, &h, &e);
	ktap_ok(e.rqe_complete && e.rqe_imm && e.rqe_imm_val == 0x77 &&
		e.rqe_rdma_imm && e.rqe_bytes == 3000 &&
		e.rqe_se == SIW_RX_SE_SET && e.next.msn[SIW_QN_SEND] == 6 &&
		!e.next.write_last_len && !e.next.write_ended,
		"imm ending a Write: completes it with the Write's length, SE; the length is used up");
	s.state.write_last_len = 0x100000000ULL + 3000;
	end(&w, &s, &h, &e);
	ktap_ok(e.rqe_complete && e.rqe_rdma_imm &&
		e.rqe_status == SIW_RX_WC_LOC_LEN_ERR && !e.rqe_bytes &&
		e.code == SIW_TERM_DDP_UT_TOO_LONG && !e.next.write_last_len,
		"imm ending a Write of 4 GiB + 3000 bytes: no wrapped length, the "
		"receive fails and the stream ends (too long)");
	s.state.write_last_len = 3000;
	s.rqe_held = false;
	w.rqe_posted = false;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_DDP_UT_MSN_NO_BUF,
		"imm ending a Write, no receive posted: no buffer");
	w.rqe_posted = true;
	h.imm = siw_imm_word(0x77, SIW_IMM_PLAIN);
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_OK && !strcmp(w.asked, "R"),
		"plain imm: takes a receive");
	h.imm = siw_imm_word(0x77, 3);
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_RDMAP_OP_UNSPEC && !w.asked[0],
		"imm of an unknown kind: unspecified, nothing taken");
	h.imm = siw_imm_word(0x77, SIW_IMM_PLAIN);
	s.rqe_held = true;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_RDMAP_OPCODE,
		"imm while a Send is half received: unexpected opcode");
	s.rqe_held = false;
	h.msn = 7;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_DDP_UT_MSN_RANGE,
		"imm with the wrong MSN: out of range");

	/* A Write's length, for the imm after it. */
	{
		struct siw_hdr wh = { .opcode = SIW_RDMAP_WRITE, .tagged = true,
				      .payload_len = 1000 };

		snap_init(&s);
		end(&w, &s, &wh, &e);
		s.state.write_acc = e.next.write_acc;
		ktap_ok(!e.next.write_ended,
			"a Write's first segment: no Write ended");
		wh.last = true;
		wh.payload_len = 24;
		end(&w, &s, &wh, &e);
		ktap_ok(!e.next.write_acc && e.next.write_last_len == 1024 &&
			e.next.write_ended,
			"a Write of two segments: 1024 bytes counted, it ended");
		s.state.write_acc = 0xffffffffULL;
		end(&w, &s, &wh, &e);
		ktap_ok(e.next.write_last_len == 0xffffffffULL + 24,
			"a Write past 4 GiB is counted without wrapping");
		s.state.write_acc = 1000;
		s.state.write_ended = true;
		wh.opcode = SIW_RDMAP_READ_RESP;
		end(&w, &s, &wh, &e);
		ktap_ok(!e.next.write_ended &&
			e.next.write_last_len == s.state.write_last_len,
			"any other FPDU after it: no Write just ended any more");
	}

	/* While an immediate waits for its Send, only a plain Send. */
	{
		static const u8 others[] = {
			SIW_RDMAP_WRITE, SIW_RDMAP_READ_REQ,
			SIW_RDMAP_READ_RESP, SIW_RDMAP_SEND_INV,
			SIW_RDMAP_SEND_SE_INV, SIW_RDMAP_ATOMIC_REQ,
			SIW_RDMAP_ATOMIC_RESP,
		};
		struct siw_hdr oh = { .last = true };
		bool all = true;
		size_t i;

		snap_init(&s);
		s.state.imm_pending = true;
		for (i = 0; i < sizeof(others); i++) {
			oh.opcode = others[i];
			oh.tagged = others[i] == SIW_RDMAP_WRITE ||
				    others[i] == SIW_RDMAP_READ_RESP;
			all &= run(&w, s, &oh, &d) == SIW_TERM_RDMAP_OPCODE &&
			       !w.asked[0];
		}
		ktap_ok(all, "an immediate waits for its Send: Writes, Reads, Sends with Invalidate, atomics are unexpected opcodes");
		oh.opcode = SIW_RDMAP_TERMINATE;
		oh.tagged = false;
		ktap_ok(run(&w, s, &oh, &d) == SIW_TERM_OK,
			"an immediate waits for its Send: a Terminate still counts");
	}

	/* Atomic Request */
	memset(&h, 0, sizeof(h));
	h.opcode = SIW_RDMAP_ATOMIC_REQ;
	h.qn = SIW_QN_RREQ;
	h.last = true;
	h.msn = 9;
	h.atomic.op = SIW_ATOMIC_FETCH_ADD;
	h.atomic.stag = 0x55;
	h.atomic.to = 0x1010;
	snap_init(&s);
	w.ird = w.irq_size = 4;
	w.irq_queued = 3;
	w.mem = good_mem;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_OK && !strcmp(w.asked, "IM") &&
		w.mem_req.kind == SIW_RX_MEM_ATOMIC && w.mem_req.stag == 0x55 &&
		w.mem_req.to == 0x1010 && w.mem_req.len == 8,
		"atomic request: IRD, then the target (remote atomic, 8 bytes)");
	end(&w, &s, &h, &e);
	ktap_ok(e.irq_push && e.irq_atomic && e.tx_schedule &&
		e.next.msn[SIW_QN_RREQ] == 10,
		"atomic request: queued for its response, Read Request MSN used");
	w.irq_queued = 4;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_RDMAP_CATASTROPHIC_STREAM,
		"atomic request over the IRD it shares with Reads");
	w.irq_queued = 0;
	h.atomic.to = 0x1014;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_RDMAP_CATASTROPHIC_STREAM,
		"atomic request, misaligned: catastrophic, localized to the stream");
	h.atomic.to = 0x1010;
	w.mem.access = false;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_RDMAP_ACCESS,
		"atomic request without remote atomic access: access rights");
	w.mem = good_mem;
	h.msn = 8;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_DDP_UT_MSN_RANGE && !w.asked[0],
		"atomic request with the wrong MSN: out of range");

	/* Atomic Response */
	memset(&h, 0, sizeof(h));
	h.opcode = SIW_RDMAP_ATOMIC_RESP;
	h.qn = SIW_QN_ATOMIC_RESP;
	h.last = true;
	h.msn = 1;
	h.atomic_resp.req_id = 12;
	h.atomic_resp.orig = 0x99;
	snap_init(&s);
	s.state.msn[SIW_QN_ATOMIC_RESP] = 1;
	w.orq_have = true;
	w.orq_atomic = true;
	w.orq_atomic_id = 12;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_OK && !strcmp(w.asked, "O"),
		"atomic response for the oldest request, an atomic");
	end(&w, &s, &h, &e);
	ktap_ok(e.atomic_complete && e.atomic_orig == 0x99 && e.read_bytes == 8 &&
		e.tx_schedule && e.next.msn[SIW_QN_ATOMIC_RESP] == 2 &&
		w.orq_pop,
		"atomic response: the request taken off and completed");
	w.orq_atomic_id = 13;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_RDMAP_OP_UNSPEC,
		"atomic response with another identifier: unspecified");
	w.orq_atomic = false;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_RDMAP_OPCODE,
		"atomic response while a Read is the oldest: unexpected opcode");
	w.orq_have = false;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_RDMAP_OPCODE,
		"atomic response nobody asked for: unexpected opcode");
	w.orq_have = true;
	w.orq_atomic = true;
	h.msn = 2;
	ktap_ok(run(&w, s, &h, &d) == SIW_TERM_DDP_UT_MSN_RANGE && !w.asked[0],
		"atomic response with the wrong MSN: out of range");
	{
		struct siw_hdr rh = { .opcode = SIW_RDMAP_READ_RESP,
				      .tagged = true, .last = true,
				      .payload_len = 8 };

		ktap_ok(run(&w, s, &rh, &d) == SIW_TERM_RDMAP_OPCODE,
			"a Read Response while an atomic is the oldest: unexpected opcode");
	}
	w.orq_atomic = false;
	w.orq_have = false;
}

/* After a flush: nothing asked for, taken, placed or completed. */
static void test_flushed(void)
{
	struct siw_hdr sd = { .opcode = SIW_RDMAP_SEND, .qn = SIW_QN_SEND,
			      .last = true, .msn = 5, .payload_len = 8 };
	struct siw_hdr rr = { .opcode = SIW_RDMAP_READ_RESP, .tagged = true,
			      .last = true, .stag = 0x77, .payload_len = 128 };
	struct world w = { .orq_have = true, .orq_stag = 0x77,
			   .orq_len = 128, .rqe_posted = true };
	struct siw_rx_snap s;
	struct siw_rx_dec d;
	struct siw_rx_end e;

	snap_init(&s);
	s.flushed = true;
	ktap_ok(run(&w, s, &sd, &d) == SIW_TERM_OK && d.drop && !w.asked[0] &&
		d.place == SIW_RX_PLACE_NONE,
		"flushed: a Send takes no receive and places nothing, no Terminate");
	ktap_ok(run(&w, s, &rr, &d) == SIW_TERM_OK && d.drop && !w.asked[0] &&
		d.place == SIW_RX_PLACE_NONE,
		"flushed: a Read Response finds no Read and places nothing");
	s.rqe_held = true;
	end(&w, &s, &sd, &e);
	ktap_ok(e.drop && e.stream_dead && !w.asked[0] && !e.rqe_complete &&
		e.next.msn[SIW_QN_SEND] == s.state.msn[SIW_QN_SEND] &&
		e.code == SIW_TERM_OK,
		"flushed while a Send arrived: it completes nothing, no MSN moves");
	end(&w, &s, &rr, &e);
	ktap_ok(e.drop && !w.asked[0] && !e.read_complete && !e.fatal,
		"flushed while a Read Response arrived: the Read is not completed by it");
}

int main(void)
{
	ktap_header();
	test_write();
	test_read_resp();
	test_send();
	test_read_req();
	test_rtr();
	test_other();
	test_end_send();
	test_end_read();
	test_end_other();
	test_rfc7306();
	test_flushed();
	return ktap_finished();
}
