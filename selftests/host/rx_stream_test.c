// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * Host unit tests of the receive stream parser (siw/rx_stream.c, the
 * module's own source) and the Read Response check: FPDUs cut into
 * pieces anywhere, the CRC, and the one Terminate decision per stream.
 * Prints TAP.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "ktap.h"

/* What the callbacks saw. */
struct rec {
	int begins, ends, fails, places;
	enum siw_term_code code;	/* of the fail */
	u32 fail_hdr_have;
	enum siw_term_code refuse;	/* begin() answers this */
	bool place_error;		/* place() fails */
	u8 sink[256];
	u32 sink_at;
};

struct piece {
	const u8 *p;
	u32 len;
};

static int r_copy(void *src, u32 off, void *dst, u32 n)
{
	struct piece *pc = src;

	if (off > pc->len || n > pc->len - off)
		return -1;
	memcpy(dst, pc->p + off, n);
	return 0;
}

static enum siw_term_code r_begin(void *ctx, struct siw_rx_stream *s)
{
	struct rec *r = ctx;

	(void)s;
	r->begins++;
	return r->refuse;
}

static int r_place(void *ctx, struct siw_rx_stream *s, void *src, u32 off,
		   u32 n)
{
	struct rec *r = ctx;
	struct piece *pc = src;

	r->places++;
	if (r->place_error || r->sink_at + n > sizeof(r->sink) ||
	    off + n > pc->len)
		return -1;
	memcpy(r->sink + r->sink_at, pc->p + off, n);
	if (s->crc_on)
		s->crc = siw_mpa_crc_update(s->crc, pc->p + off, n);
	r->sink_at += n;
	return 0;
}

static void r_end(void *ctx, struct siw_rx_stream *s)
{
	struct rec *r = ctx;

	(void)s;
	r->ends++;
}

static void r_fail(void *ctx, struct siw_rx_stream *s,
		   enum siw_term_code code)
{
	struct rec *r = ctx;

	r->fails++;
	r->code = code;
	r->fail_hdr_have = s->hdr_have;
}

static const struct siw_rx_ops ops = {
	.copy = r_copy, .begin = r_begin, .place = r_place, .end = r_end,
	.fail = r_fail,
};

/* A Write of len bytes (0x40 + i) as one FPDU at out; returns its size. */
static u32 write_fpdu(u32 len, bool crc, u8 *out)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_WRITE, .last = true,
			     .stag = 0x1234, .to = 0x1000 };
	u8 payload[200];
	struct siw_frag f = { payload, len };
	u32 hl, pad, c = 0, i;

	for (i = 0; i < len; i++)
		payload[i] = (u8)(0x40 + i);
	hl = siw_hdr_encode(&h, out + SIW_MPA_LEN_LEN, SIW_HDR_MAX);
	siw_fpdu_put_len(out, hl + len);
	memcpy(out + SIW_MPA_LEN_LEN + hl, payload, len);
	pad = siw_mpa_pad(hl + len);
	if (crc)
		c = siw_fpdu_crc(out, SIW_MPA_LEN_LEN + hl, &f, 1, pad);
	return SIW_MPA_LEN_LEN + hl + len +
	       siw_fpdu_trailer(out + SIW_MPA_LEN_LEN + hl + len, pad, c);
}

/* Feeds [b, b + n) of buf as its own piece, at an offset of 3. */
static bool feed(struct siw_rx_stream *s, struct rec *r, const u8 *b, u32 n)
{
	u8 *copy = malloc(n + 3);
	struct piece pc = { copy, n + 3 };
	u32 got;

	memset(copy, 0xee, 3);
	memcpy(copy + 3, b, n);
	got = siw_rx_stream_feed(s, &ops, r, &pc, 3, n);
	free(copy);
	return got == n;
}

static bool payload_ok(const struct rec *r, u32 len)
{
	u32 i;

	for (i = 0; i < len; i++)
		if (r->sink[i] != (u8)(0x40 + i))
			return false;
	return r->sink_at == len;
}

/* A valid FPDU cut into three pieces at every pair of places. */
static void test_splits(bool crc)
{
	u8 f[300];
	u32 n = write_fpdu(37, crc, f), i, j;
	bool all = true;

	for (i = 0; i <= n; i++)
		for (j = i; j <= n; j++) {
			struct siw_rx_stream s;
			struct rec r = { 0 };

			siw_rx_stream_reset(&s, crc);
			all &= feed(&s, &r, f, i) && feed(&s, &r, f + i, j - i) &&
			       feed(&s, &r, f + j, n - j);
			all &= r.begins == 1 && r.ends == 1 && !r.fails &&
			       payload_ok(&r, 37) && !s.dead &&
			       s.phase == SIW_RX_HDR && s.hdr_have == 0;
		}
	ktap_ok(all, "rx stream: a Write FPDU (CRC %s, %u bytes) cut in three anywhere, its CRC included, is accepted whole",
		crc ? "on" : "off", n);
}

/* Two FPDUs, then a third, a byte at a time. */
static void test_drip(void)
{
	u8 f[900];
	u32 n = 0, i;
	struct siw_rx_stream s;
	struct rec r = { 0 };
	bool fed = true;

	n += write_fpdu(0, true, f + n);
	n += write_fpdu(1, true, f + n);
	n += write_fpdu(199, true, f + n);
	siw_rx_stream_reset(&s, true);
	for (i = 0; i < n; i++)
		fed &= feed(&s, &r, f + i, 1);
	ktap_ok(fed && r.ends == 3 && !r.fails && r.places == 200,
		"rx stream: FPDUs of 0, 1 and 199 bytes a byte at a time: three ends, every byte placed once (%d places)",
		r.places);
}

/* A CRC bit flipped, in each CRC byte: one decision, header not echoed. */
static void test_bad_crc(void)
{
	u8 f[300];
	u32 n = write_fpdu(10, true, f), k;
	bool all = true;

	for (k = n - 4; k < n; k++) {
		struct siw_rx_stream s;
		struct rec r = { 0 };

		siw_rx_stream_reset(&s, true);
		f[k] ^= 0x08;
		all &= feed(&s, &r, f, n) && r.fails == 1 && !r.ends &&
		       r.code == SIW_TERM_MPA_CRC && r.fail_hdr_have == 0 &&
		       s.dead;
		/* Whatever follows is dropped, without a callback. */
		all &= feed(&s, &r, f, n) && r.fails == 1 && r.begins == 1;
		f[k] ^= 0x08;
	}
	ktap_ok(all, "rx stream: a bad CRC is one MPA CRC Terminate, the header not echoed, the rest dropped");

	/* With CRC off the field is not looked at. */
	{
		struct siw_rx_stream s;
		struct rec r = { 0 };

		n = write_fpdu(10, false, f);
		f[n - 1] = 0x55;
		siw_rx_stream_reset(&s, false);
		ktap_ok(feed(&s, &r, f, n) && r.ends == 1 && !r.fails,
			"rx stream: without CRC the CRC field is not checked");
	}
}

/* The core's header check and the receiver's begin() decide. */
static void test_refusals(void)
{
	u8 f[300];
	u32 n = write_fpdu(10, false, f);
	struct siw_rx_stream s;
	struct rec r = { 0 };
	bool fed;

	/* MPA length 6: the ULPDU ends inside the 14-byte header. */
	siw_put_be16(f, 6);
	siw_rx_stream_reset(&s, false);
	fed = feed(&s, &r, f, n);
	ktap_ok(fed && r.fails == 1 && !r.begins && !r.places &&
		(r.code & SIW_TERM_VALID) && r.fail_hdr_have > 0,
		"rx stream: an MPA length shorter than the header is refused before begin(), its header echoed (%s)",
		siw_term_name(r.code));

	n = write_fpdu(10, false, f);
	memset(&r, 0, sizeof(r));
	r.refuse = SIW_TERM_DDP_T_INVALID_STAG;
	siw_rx_stream_reset(&s, false);
	ktap_ok(feed(&s, &r, f, n) && r.fails == 1 && r.begins == 1 &&
		!r.places && !r.ends && r.code == SIW_TERM_DDP_T_INVALID_STAG,
		"rx stream: begin()'s refusal is the Terminate; nothing is placed");

	memset(&r, 0, sizeof(r));
	r.place_error = true;
	siw_rx_stream_reset(&s, false);
	ktap_ok(feed(&s, &r, f, n) && r.fails == 1 && !r.ends &&
		r.code == SIW_TERM_RDMAP_CATASTROPHIC_STREAM,
		"rx stream: a placement that fails ends the stream (catastrophic)");

	/* A reserved opcode: the header is read, then refused. */
	n = write_fpdu(10, false, f);
	f[3] = (f[3] & ~SIW_RDMAP_OPCODE_MASK) | 0x0d;
	memset(&r, 0, sizeof(r));
	siw_rx_stream_reset(&s, false);
	ktap_ok(feed(&s, &r, f, n) && r.fails == 1 && !r.begins &&
		r.code == SIW_TERM_RDMAP_OPCODE,
		"rx stream: a reserved opcode is an RDMAP opcode Terminate");
}

static void test_read_resp(void)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_READ_RESP, .last = true,
			     .stag = 7, .to = 100, .payload_len = 50 };

	ktap_ok(siw_check_read_resp(false, 7, 100, 50, &h) ==
		SIW_TERM_RDMAP_OPCODE, "read response: none outstanding: opcode");
	ktap_ok(siw_check_read_resp(true, 7, 100, 49, &h) ==
		SIW_TERM_DDP_T_BASE_BOUNDS,
		"read response: one byte past the sink: base/bounds");
	ktap_ok(siw_check_read_resp(true, 8, 100, 50, &h) ==
		SIW_TERM_DDP_T_INVALID_STAG,
		"read response: another STag than the sink's: invalid STag");
	ktap_ok(siw_check_read_resp(true, 7, 101, 50, &h) ==
		SIW_TERM_DDP_T_INVALID_STAG,
		"read response: not at the offset reached: invalid STag");
	ktap_ok(siw_check_read_resp(true, 7, 100, 50, &h) == SIW_TERM_OK,
		"read response: exactly the sink: accepted");
	h.payload_len = 0;
	ktap_ok(siw_check_read_resp(true, 9, 0, 0, &h) == SIW_TERM_OK,
		"read response: zero length to a zero-length Read: accepted");
}

int main(void)
{
	ktap_header();
	test_splits(true);
	test_splits(false);
	test_drip();
	test_bad_crc();
	test_refusals();
	test_read_resp();
	return ktap_finished();
}
