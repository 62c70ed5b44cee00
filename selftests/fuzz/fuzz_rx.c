// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * libFuzzer target: the receive path on an arbitrary byte stream, cut into
 * arbitrary pieces, against a model of registered memory and queues.
 *
 * The framing is the module's own (siw/rx_stream.c, with siw_ddp_check()
 * and the other core checks); the callbacks model what siw/rx.c does with
 * a QP: two registered regions (one remotely writable and readable, one
 * local only, as a Read's sink and a receive's buffer), four posted
 * receives of two SGEs, two outstanding RDMA Reads, and the IRD.
 *
 * Input: CFG_LEN bytes of configuration (CRC on or off, region bases and
 * lengths, receive SGEs, Read sinks, the IRD, the piece sizes), then the
 * stream. Checked:
 *   - nothing is written outside a registered region: every placement is
 *     checked against the region it targets (and the regions are exact
 *     allocations between guard bytes, under AddressSanitizer);
 *   - the parser never reads outside the piece it was handed;
 *   - every error ends in exactly one Terminate decision, with a valid
 *     Terminate code, and nothing completes or is placed after it;
 *   - every piece is consumed whole;
 *   - an FPDU ends only after all its payload was placed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

#define NREGION		2
#define GUARD		64
#define GUARD_BYTE	0xa5
#define NRQE		4
#define NSGE		2
#define NORQ		2
#define CFG_LEN		32

struct region {
	u32 stag;
	u64 base;		/* tagged offset of its first byte */
	u32 len;
	bool remote;		/* remote write and read allowed */
	u8 *mem;		/* GUARD + len + GUARD bytes */
};

struct sge {
	u32 stag;
	u64 to;
	u32 len;
};

struct model {
	struct region r[NREGION];
	struct sge rq[NRQE][NSGE];
	u32 rq_get;
	struct { u32 stag; u64 to; u32 size; } orq[NORQ];
	u32 orq_get, orq_done;
	u32 ird, irq_queued;
	u32 msn_send, msn_rreq, mo;
	bool have_rqe;
	u32 sge_idx, sge_off;	/* Send placement cursor */
	struct region *target;	/* tagged placement */
	u64 to;
	u32 placed;		/* payload bytes of this FPDU placed */
	int fails;
};

/* One piece of the stream, as an skb would be. */
struct piece {
	const u8 *p;
	u32 len;
};

static struct region *region_of(struct model *m, u32 stag)
{
	int i;

	for (i = 0; i < NREGION; i++)
		if (m->r[i].stag == stag)
			return &m->r[i];
	return NULL;
}

static void view_of(const struct region *r, bool remote,
		    struct siw_mem_view *v)
{
	memset(v, 0, sizeof(*v));
	if (!r)
		return;
	v->valid = true;
	v->same_pd = true;
	v->access = !remote || r->remote;
	v->base = r->base;
	v->len = r->len;
}

static int op_copy(void *src, u32 off, void *dst, u32 n)
{
	struct piece *pc = src;

	CHECK(off <= pc->len && n <= pc->len - off);
	memcpy(dst, pc->p + off, n);
	return 0;
}

static u64 rqe_len(const struct model *m)
{
	const struct sge *s = m->rq[m->rq_get % NRQE];

	return (u64)s[0].len + s[1].len;
}

static enum siw_term_code op_begin(void *ctx, struct siw_rx_stream *s)
{
	struct model *m = ctx;
	const struct siw_hdr *h = &s->h;
	struct siw_mem_view v;
	enum siw_term_code code;

	CHECK(m->fails == 0);
	m->placed = 0;
	m->target = NULL;
	switch (h->opcode) {
	case SIW_RDMAP_WRITE:
		m->target = region_of(m, h->stag);
		view_of(m->target, true, &v);
		m->to = h->to;
		return siw_check_tagged(&v, h->to, h->payload_len,
					SIW_TAG_SINK);

	case SIW_RDMAP_READ_RESP: {
		bool have = m->orq_get < NORQ;
		u32 stag = have ? m->orq[m->orq_get].stag : 0;
		u64 to = have ? m->orq[m->orq_get].to + m->orq_done : 0;
		u64 left = have ? m->orq[m->orq_get].size - m->orq_done : 0;

		code = siw_check_read_resp(have, stag, to, left, h);
		if (code != SIW_TERM_OK || !h->payload_len)
			return code;
		m->target = region_of(m, h->stag);
		view_of(m->target, false, &v);
		m->to = h->to;
		return siw_check_tagged(&v, h->to, h->payload_len,
					SIW_TAG_SINK);
	}

	case SIW_RDMAP_SEND:
	case SIW_RDMAP_SEND_INV:
	case SIW_RDMAP_SEND_SE:
	case SIW_RDMAP_SEND_SE_INV:
		if (!m->have_rqe) {
			bool got = h->mo == 0 && m->rq_get < NRQE;

			code = siw_ddp_check_msn(m->msn_send, h->msn, got);
			if (code != SIW_TERM_OK)
				return code;
			if (!got)
				return SIW_TERM_DDP_UT_MSN_NO_BUF;
			m->have_rqe = true;
			m->sge_idx = 0;
			m->sge_off = 0;
			m->mo = 0;
		} else {
			code = siw_ddp_check_msn(m->msn_send, h->msn, true);
			if (code != SIW_TERM_OK)
				return code;
		}
		code = siw_ddp_check_mo(m->mo, h->mo);
		if (code != SIW_TERM_OK)
			return code;
		return siw_ddp_check_untagged_len(rqe_len(m), h->mo,
						  h->payload_len);

	case SIW_RDMAP_READ_REQ:
		code = siw_ddp_check_msn(m->msn_rreq, h->msn, true);
		if (code != SIW_TERM_OK)
			return code;
		code = siw_check_ird(m->irq_queued, m->ird);
		if (code != SIW_TERM_OK)
			return code;
		if (!h->rreq.size)
			return SIW_TERM_OK;
		view_of(region_of(m, h->rreq.src_stag), true, &v);
		return siw_check_tagged(&v, h->rreq.src_to, h->rreq.size,
					SIW_TAG_SOURCE);

	case SIW_RDMAP_TERMINATE:
		return SIW_TERM_OK;
	default:
		return SIW_TERM_RDMAP_OPCODE;
	}
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

static int op_place(void *ctx, struct siw_rx_stream *s, void *src, u32 off,
		    u32 n)
{
	struct model *m = ctx;
	struct piece *pc = src;
	const u8 *p;

	CHECK(m->fails == 0);
	CHECK(off <= pc->len && n <= pc->len - off && n);
	CHECK(n <= s->h.payload_len - m->placed);
	p = pc->p + off;
	m->placed += n;
	switch (s->h.opcode) {
	case SIW_RDMAP_WRITE:
	case SIW_RDMAP_READ_RESP:
		put(s, m->target, m->to, p, n);
		m->to += n;
		return 0;
	case SIW_RDMAP_SEND:
	case SIW_RDMAP_SEND_INV:
	case SIW_RDMAP_SEND_SE:
	case SIW_RDMAP_SEND_SE_INV:
		/* As siw_rx_place_send: SGE by SGE, each checked whole. */
		while (n) {
			const struct sge *g;
			struct siw_mem_view v;
			u32 take;

			CHECK(m->have_rqe);
			if (m->sge_idx >= NSGE)
				return -1;
			g = &m->rq[m->rq_get % NRQE][m->sge_idx];
			if (m->sge_off == g->len) {
				m->sge_idx++;
				m->sge_off = 0;
				continue;
			}
			view_of(region_of(m, g->stag), false, &v);
			if (siw_check_tagged(&v, g->to, g->len, SIW_TAG_SINK))
				return -1;
			take = g->len - m->sge_off < n ? g->len - m->sge_off :
							 n;
			put(s, region_of(m, g->stag), g->to + m->sge_off, p,
			    take);
			m->sge_off += take;
			p += take;
			n -= take;
		}
		return 0;
	case SIW_RDMAP_TERMINATE:
		if (s->crc_on)
			s->crc = siw_mpa_crc_update(s->crc, p, n);
		return 0;
	default:
		/* begin() refused every other opcode. */
		CHECK(0);
		return -1;
	}
}

static void op_end(void *ctx, struct siw_rx_stream *s)
{
	struct model *m = ctx;
	const struct siw_hdr *h = &s->h;

	CHECK(m->fails == 0);
	CHECK(m->placed == h->payload_len);
	switch (h->opcode) {
	case SIW_RDMAP_READ_RESP:
		m->orq_done += h->payload_len;
		if (h->last) {
			m->orq_get++;
			m->orq_done = 0;
		}
		break;
	case SIW_RDMAP_SEND:
	case SIW_RDMAP_SEND_INV:
	case SIW_RDMAP_SEND_SE:
	case SIW_RDMAP_SEND_SE_INV:
		m->mo += h->payload_len;
		if (h->last) {
			m->msn_send++;
			m->have_rqe = false;
			m->rq_get++;
		}
		break;
	case SIW_RDMAP_READ_REQ:
		/* No response goes out here: the queue only fills. */
		m->msn_rreq++;
		m->irq_queued++;
		break;
	case SIW_RDMAP_TERMINATE:
		/* As siw_rx_got_terminate: the stream is over. */
		s->dead = true;
		break;
	default:
		break;
	}
}

static void op_fail(void *ctx, struct siw_rx_stream *s,
		    enum siw_term_code code)
{
	struct model *m = ctx;

	CHECK(code & SIW_TERM_VALID);
	CHECK(s->hdr_have <= sizeof(s->hdr));
	m->fails++;
	CHECK(m->fails == 1);
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
 *  0     bit 0: CRC on; bits 1-2: IRD - 1
 *  1-4   region 0 base (tagged offset, shifted left 8)
 *  5-6   region 0 length (1..4096 after masking)
 *  7-10  region 1 base
 *  11-12 region 1 length
 *  13-20 receive SGEs: per receive, two bytes of SGE lengths (times 16)
 *  21-24 Read sinks: per outstanding Read, offset (times 16), size (x 64)
 *  25-31 piece sizes, used in turn (0 means 1)
 */
static void setup(struct model *m, const u8 *c)
{
	int i, j;

	memset(m, 0, sizeof(*m));
	m->msn_send = SIW_MSN_FIRST;
	m->msn_rreq = SIW_MSN_FIRST;
	m->ird = ((c[0] >> 1) & 3) + 1;
	for (i = 0; i < NREGION; i++) {
		struct region *r = &m->r[i];
		const u8 *rc = c + 1 + 6 * i;

		r->stag = 0x100 * (i + 1) + 0x42;
		r->remote = i == 0;
		r->base = (u64)get32(rc) << 8;
		if (rc[0] & 0x80)	/* near the top: wrap checks */
			r->base = ~0ULL - (((u64)get32(rc) & 0xffff) << 4);
		r->len = ((rc[4] << 8 | rc[5]) & 0xfff) + 1;
		r->mem = malloc(r->len + 2 * GUARD);
		CHECK(r->mem);
		memset(r->mem, GUARD_BYTE, r->len + 2 * GUARD);
	}
	/* Receives into region 1, the sink of Reads too. */
	for (i = 0; i < NRQE; i++)
		for (j = 0; j < NSGE; j++) {
			struct sge *g = &m->rq[i][j];

			g->stag = m->r[1].stag;
			g->len = (u32)c[13 + 2 * i + j] * 16;
			g->to = m->r[1].base + ((i * 97 + j * 31) % m->r[1].len);
		}
	for (i = 0; i < NORQ; i++) {
		m->orq[i].stag = m->r[1].stag;
		m->orq[i].to = m->r[1].base + (u64)c[21 + 2 * i] * 16;
		m->orq[i].size = (u32)c[22 + 2 * i] * 64;
	}
}

static void teardown(struct model *m)
{
	int i;
	u32 k;

	for (i = 0; i < NREGION; i++) {
		struct region *r = &m->r[i];

		for (k = 0; k < GUARD; k++) {
			CHECK(r->mem[k] == GUARD_BYTE);
			CHECK(r->mem[GUARD + r->len + k] == GUARD_BYTE);
		}
		free(r->mem);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const u8 *piece_sizes = data + 25;
	struct siw_rx_stream st;
	struct model m;
	size_t pos = 0;
	int turn = 0;

	if (size < CFG_LEN)
		return 0;
	setup(&m, data);
	siw_rx_stream_reset(&st, data[0] & 1);
	data += CFG_LEN;
	size -= CFG_LEN;
	while (pos < size) {
		u32 n = piece_sizes[turn % 7], lead = turn % 3;
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
		CHECK(siw_rx_stream_feed(&st, &ops, &m, &pc, lead, n) == n);
		free(copy);
		pos += n;
		turn++;
	}
	/* A Terminate decision kills the stream; nothing else counts twice. */
	CHECK(m.fails <= 1);
	CHECK(!m.fails || st.dead);
	teardown(&m);
	return 0;
}
