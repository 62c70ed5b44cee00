// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * Host unit tests of the siw protocol core (siw/proto.h): CRC32c, MPA
 * request/reply frames and negotiation, FPDU sizing and framing, DDP/RDMAP
 * header checks with the exact Terminate code for each violation, tagged
 * bounds, Terminate messages, and a bounded random sweep of every parser.
 *
 * Prints TAP, one line per case; exits non-zero if any case failed. Wire
 * bytes that a test feeds in are written out by hand here, not with the
 * encoders under test, so an encoder and a parser cannot agree on a
 * mistake.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "proto.h"
#include "ktap.h"

static void __attribute__((format(printf, 3, 4)))
eq_u64(u64 got, u64 want, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (!ktap_vok(got == want, fmt, ap))
		printf("#   got 0x%llx, want 0x%llx\n", (unsigned long long)got,
		       (unsigned long long)want);
	va_end(ap);
}

static void __attribute__((format(printf, 3, 4)))
eq_term(enum siw_term_code got, enum siw_term_code want, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (!ktap_vok(got == want, fmt, ap))
		printf("#   got %s (%u/%u/0x%02x), want %s (%u/%u/0x%02x)\n",
		       siw_term_name(got), siw_term_layer(got),
		       siw_term_etype(got), siw_term_ecode(got),
		       siw_term_name(want), siw_term_layer(want),
		       siw_term_etype(want), siw_term_ecode(want));
	va_end(ap);
}

static void __attribute__((format(printf, 3, 4)))
eq_mpa(enum siw_mpa_err got, enum siw_mpa_err want, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (!ktap_vok(got == want, fmt, ap))
		printf("#   got '%s', want '%s'\n", siw_mpa_err_name(got),
		       siw_mpa_err_name(want));
	va_end(ap);
}

/* Deterministic PRNG (xorshift64*) for the sweeps. */
static u64 rng_state = 0x9e3779b97f4a7c15ULL;

static u64 rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

/* ------------------------------------------------------------------ */
/* CRC32c                                                              */
/* ------------------------------------------------------------------ */

static u32 crc32c_std(const void *p, size_t n)
{
	return ~siw_crc32c(~0U, p, n);
}

/* RFC 3720 appendix B.4: the iSCSI SCSI Read (10) command PDU. */
static const u8 iscsi_read_pdu[48] = {
	0x01, 0xc0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x14, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00,
	0x00, 0x00, 0x00, 0x14, 0x00, 0x00, 0x00, 0x18,
	0x28, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static void test_crc32c(void)
{
	u8 buf[32], wire[4];
	const u8 want_wire[4] = { 0xaa, 0x36, 0x91, 0x8a };
	struct siw_frag frags[3];
	bool all_split = true;
	u32 whole, part;
	size_t i;

	memset(buf, 0, sizeof(buf));
	eq_u64(crc32c_std(buf, 32), 0x8a9136aa,
	       "crc32c: RFC 3720 B.4, 32 bytes of zeros");
	memset(buf, 0xff, sizeof(buf));
	eq_u64(crc32c_std(buf, 32), 0x62a8ab43,
	       "crc32c: RFC 3720 B.4, 32 bytes of ones");
	for (i = 0; i < 32; i++)
		buf[i] = i;
	eq_u64(crc32c_std(buf, 32), 0x46dd794e,
	       "crc32c: RFC 3720 B.4, 32 incrementing bytes");
	for (i = 0; i < 32; i++)
		buf[i] = 31 - i;
	eq_u64(crc32c_std(buf, 32), 0x113fdb5c,
	       "crc32c: RFC 3720 B.4, 32 decrementing bytes");
	eq_u64(crc32c_std(iscsi_read_pdu, 48), 0xd9963a56,
	       "crc32c: RFC 3720 B.4, iSCSI read command PDU");
	eq_u64(crc32c_std("123456789", 9), 0xe3069283,
	       "crc32c: check value of \"123456789\"");
	eq_u64(siw_crc32c(0x1234, buf, 0), 0x1234,
	       "crc32c: zero bytes leave the register alone");

	memset(buf, 0, sizeof(buf));
	siw_mpa_crc_put(wire, siw_mpa_crc_final(siw_mpa_crc_update(
				siw_mpa_crc_init(), buf, 32)));
	ktap_ok(!memcmp(wire, want_wire, 4),
		"crc32c: MPA CRC goes out as RFC 3720 B.4 lists it (aa 36 91 8a)");
	eq_u64(siw_mpa_crc_get(wire), 0x8a9136aa,
	       "crc32c: MPA CRC field reads back");

	whole = crc32c_std(iscsi_read_pdu, 48);
	for (i = 0; i <= 48; i++) {
		part = siw_mpa_crc_update(siw_mpa_crc_init(), iscsi_read_pdu,
					  i);
		part = siw_mpa_crc_update(part, iscsi_read_pdu + i, 48 - i);
		if (siw_mpa_crc_final(part) != whole)
			all_split = false;
	}
	ktap_ok(all_split, "crc32c: incremental equals one-shot at every split");

	/* 6 header bytes, fragments 10 + 0 + 29, and the vector's last 3
	 * bytes are zero, so they can stand in for pad. */
	frags[0].base = iscsi_read_pdu + 6;
	frags[0].len = 10;
	frags[1].base = NULL;
	frags[1].len = 0;
	frags[2].base = iscsi_read_pdu + 16;
	frags[2].len = 29;
	eq_u64(siw_fpdu_crc(iscsi_read_pdu, 6, frags, 3, 3), whole,
	       "crc32c: fragment list plus zero pad equals flat buffer");
}

/* ------------------------------------------------------------------ */
/* MPA request/reply frames                                            */
/* ------------------------------------------------------------------ */

/* A frame written by hand: key, flags, revision, PD_Length, then pd. */
static size_t mk_rr(u8 *b, const char *key, u8 flags, u8 rev, u16 pd_len,
		    const u8 *pd, size_t pd_have)
{
	memcpy(b, key, 16);
	b[16] = flags;
	b[17] = rev;
	b[18] = pd_len >> 8;
	b[19] = pd_len & 0xff;
	if (pd_have)
		memcpy(b + 20, pd, pd_have);
	return 20 + pd_have;
}

static void test_mpa_parse(void)
{
	u8 b[SIW_MPA_RR_MAX + 64], pd[SIW_MPA_PD_MAX + 8];
	struct siw_mpa_info in;
	enum siw_mpa_err e;
	bool all_short = true;
	size_t n, i;

	for (i = 0; i < sizeof(pd); i++)
		pd[i] = i * 7;

	n = mk_rr(b, "MPA ID Req Frame", 0, 1, 5, (const u8 *)"hello", 5);
	e = siw_mpa_parse(b, n, SIW_MPA_REQUEST, 0, &in);
	eq_mpa(e, SIW_MPA_OK, "mpa: rev 1 request with 5 bytes private data");
	ktap_ok(in.revision == 1 && !in.crc && !in.markers && !in.reject &&
		!in.enhanced && in.ulp_pd_len == 5 && in.ulp_pd == b + 20 &&
		in.frame_len == 25,
		"mpa: rev 1 request fields");

	n = mk_rr(b, "MPA ID Req Frame", 0x40, 1, 0, NULL, 0);
	e = siw_mpa_parse(b, n, SIW_MPA_REQUEST, 0, &in);
	ktap_ok(e == SIW_MPA_OK && in.crc && !in.markers, "mpa: C flag");
	n = mk_rr(b, "MPA ID Req Frame", 0x80, 1, 0, NULL, 0);
	e = siw_mpa_parse(b, n, SIW_MPA_REQUEST, 0, &in);
	ktap_ok(e == SIW_MPA_OK && in.markers && !in.crc,
		"mpa: M flag parses (policy refuses it)");

	n = mk_rr(b, "MPA ID Rep Frame", 0x60, 1, 0, NULL, 0);
	e = siw_mpa_parse(b, n, SIW_MPA_REPLY, 0, &in);
	ktap_ok(e == SIW_MPA_OK && in.reject && in.crc && in.kind == SIW_MPA_REPLY,
		"mpa: reply with R and C");
	n = mk_rr(b, "MPA ID Req Frame", 0x20, 1, 0, NULL, 0);
	eq_mpa(siw_mpa_parse(b, n, SIW_MPA_REQUEST, 0, &in),
	       SIW_MPA_E_REJECT_REQ, "mpa: R in a request");

	/* keys */
	n = mk_rr(b, "MPA ID Rep Frame", 0, 1, 0, NULL, 0);
	eq_mpa(siw_mpa_parse(b, n, SIW_MPA_REQUEST, 0, &in),
	       SIW_MPA_E_KEY_KIND, "mpa: reply key where a request belongs");
	n = mk_rr(b, "MPA ID Req Frame", 0, 1, 0, NULL, 0);
	eq_mpa(siw_mpa_parse(b, n, SIW_MPA_REPLY, 0, &in),
	       SIW_MPA_E_KEY_KIND, "mpa: request key where a reply belongs");
	n = mk_rr(b, "MPA ID Req Fram3", 0, 1, 0, NULL, 0);
	eq_mpa(siw_mpa_parse(b, n, SIW_MPA_REQUEST, 0, &in), SIW_MPA_E_KEY,
	       "mpa: key with last byte wrong");
	n = mk_rr(b, "mpa id req frame", 0, 1, 0, NULL, 0);
	eq_mpa(siw_mpa_parse(b, n, SIW_MPA_REQUEST, 0, &in), SIW_MPA_E_KEY,
	       "mpa: key in lower case");
	n = mk_rr(b, "GET / HTTP/1.1\r\n", 0, 1, 0, NULL, 0);
	eq_mpa(siw_mpa_parse(b, n, SIW_MPA_REQUEST, 0, &in), SIW_MPA_E_KEY,
	       "mpa: something else entirely");

	/* revisions */
	n = mk_rr(b, "MPA ID Req Frame", 0, 0, 0, NULL, 0);
	eq_mpa(siw_mpa_parse(b, n, SIW_MPA_REQUEST, 0, &in),
	       SIW_MPA_E_REVISION, "mpa: revision 0");
	n = mk_rr(b, "MPA ID Req Frame", 0, 3, 0, NULL, 0);
	eq_mpa(siw_mpa_parse(b, n, SIW_MPA_REQUEST, 0, &in),
	       SIW_MPA_E_REVISION, "mpa: revision 3");
	n = mk_rr(b, "MPA ID Rep Frame", 0, 0xff, 0, NULL, 0);
	eq_mpa(siw_mpa_parse(b, n, SIW_MPA_REPLY, 0, &in),
	       SIW_MPA_E_REVISION, "mpa: revision 255");

	/* reserved bits: reported; an error only when strict */
	n = mk_rr(b, "MPA ID Req Frame", 0x11, 1, 0, NULL, 0);
	e = siw_mpa_parse(b, n, SIW_MPA_REQUEST, 0, &in);
	ktap_ok(e == SIW_MPA_OK && in.rsvd == 0x11 && !in.enhanced,
		"mpa: rev 1 reserved bits (S included) reported, not fatal");
	eq_mpa(siw_mpa_parse(b, n, SIW_MPA_REQUEST, SIW_MPA_PARSE_STRICT, &in),
	       SIW_MPA_E_RESERVED, "mpa: rev 1 reserved bits, strict");
	n = mk_rr(b, "MPA ID Req Frame", 0x02, 2, 0, NULL, 0);
	e = siw_mpa_parse(b, n, SIW_MPA_REQUEST, 0, &in);
	ktap_ok(e == SIW_MPA_OK && in.rsvd == 0x02 && !in.enhanced,
		"mpa: rev 2 reserved bit reported, not fatal");
	eq_mpa(siw_mpa_parse(b, n, SIW_MPA_REQUEST, SIW_MPA_PARSE_STRICT, &in),
	       SIW_MPA_E_RESERVED, "mpa: rev 2 reserved bit, strict");
	n = mk_rr(b, "MPA ID Req Frame", 0xc0, 2, 0, NULL, 0);
	eq_mpa(siw_mpa_parse(b, n, SIW_MPA_REQUEST, SIW_MPA_PARSE_STRICT, &in),
	       SIW_MPA_OK, "mpa: M and C are not reserved, strict");

	/* private data lengths */
	n = mk_rr(b, "MPA ID Req Frame", 0, 1, 0, NULL, 0);
	e = siw_mpa_parse(b, n, SIW_MPA_REQUEST, 0, &in);
	ktap_ok(e == SIW_MPA_OK && in.ulp_pd_len == 0 && in.frame_len == 20,
		"mpa: private data length 0");
	n = mk_rr(b, "MPA ID Req Frame", 0, 1, 1, pd, 1);
	e = siw_mpa_parse(b, n, SIW_MPA_REQUEST, 0, &in);
	ktap_ok(e == SIW_MPA_OK && in.ulp_pd_len == 1 && in.ulp_pd[0] == pd[0],
		"mpa: private data length 1");
	n = mk_rr(b, "MPA ID Req Frame", 0, 1, 512, pd, 512);
	e = siw_mpa_parse(b, n, SIW_MPA_REQUEST, 0, &in);
	ktap_ok(e == SIW_MPA_OK && in.ulp_pd_len == 512 &&
		!memcmp(in.ulp_pd, pd, 512) && in.frame_len == 532,
		"mpa: private data length 512");
	n = mk_rr(b, "MPA ID Req Frame", 0, 1, 513, pd, 513);
	eq_mpa(siw_mpa_parse(b, n, SIW_MPA_REQUEST, 0, &in), SIW_MPA_E_PD_LEN,
	       "mpa: private data length 513");
	n = mk_rr(b, "MPA ID Req Frame", 0, 2, 0xffff, NULL, 0);
	eq_mpa(siw_mpa_parse_hdr(b, n, SIW_MPA_REQUEST, 0, &in),
	       SIW_MPA_E_PD_LEN, "mpa: private data length 65535, header only");
	n = mk_rr(b, "MPA ID Req Frame", 0, 1, 10, pd, 5);
	e = siw_mpa_parse(b, n, SIW_MPA_REQUEST, 0, &in);
	ktap_ok(e == SIW_MPA_E_SHORT_PD && in.frame_len == 30,
		"mpa: private data length 10 with 5 present: need 30 bytes");
	e = siw_mpa_parse_hdr(b, 20, SIW_MPA_REQUEST, 0, &in);
	ktap_ok(e == SIW_MPA_OK && in.frame_len == 30,
		"mpa: header alone tells the frame length");
	e = siw_mpa_parse(b, 19, SIW_MPA_REQUEST, 0, &in);
	ktap_ok(e == SIW_MPA_E_SHORT_HDR && in.frame_len == 20,
		"mpa: 19 bytes: header incomplete");
	eq_mpa(siw_mpa_parse(b, 0, SIW_MPA_REQUEST, 0, &in),
	       SIW_MPA_E_SHORT_HDR, "mpa: 0 bytes: header incomplete");

	n = mk_rr(b, "MPA ID Req Frame", 0, 1, 3, pd, 3);
	memset(b + n, 0xee, 40);
	e = siw_mpa_parse(b, n + 40, SIW_MPA_REQUEST, 0, &in);
	ktap_ok(e == SIW_MPA_OK && in.frame_len == 23 && in.ulp_pd_len == 3,
		"mpa: bytes after the frame are not part of it");

	/* every truncation of a complete rev 2 frame asks for more */
	{
		u8 v2pd[12] = { 0x80, 0x10, 0xc0, 0x08, 'p', 'r', 'i', 'v' };

		n = mk_rr(b, "MPA ID Req Frame", 0x50, 2, 8, v2pd, 8);
		for (i = 0; i < n; i++) {
			e = siw_mpa_parse(b, i, SIW_MPA_REQUEST, 0, &in);
			if (e != (i < 20 ? SIW_MPA_E_SHORT_HDR :
					   SIW_MPA_E_SHORT_PD))
				all_short = false;
		}
		ktap_ok(all_short, "mpa: every truncation of a frame is incomplete");
	}
}

static void test_mpa_v2(void)
{
	u8 b[SIW_MPA_RR_MAX + 8], out[SIW_MPA_RR_MAX + 8];
	u8 pd[8] = { 0x80, 0x10, 0xc0, 0x08, 'd', 'a', 't', 'a' };
	struct siw_mpa_info in, enc;
	enum siw_mpa_err e;
	size_t n, len;
	int k;

	n = mk_rr(b, "MPA ID Req Frame", 0x50, 2, 8, pd, 8);
	e = siw_mpa_parse(b, n, SIW_MPA_REQUEST, 0, &in);
	eq_mpa(e, SIW_MPA_OK, "mpa v2: enhanced request parses");
	ktap_ok(in.enhanced && in.crc && in.ird == 16 && in.ord == 8 && in.p2p &&
		in.rtr == (SIW_RTR_WRITE | SIW_RTR_READ),
		"mpa v2: IRD 16, ORD 8, P2P, RTR write+read");
	ktap_ok(in.ulp_pd_len == 4 && !memcmp(in.ulp_pd, "data", 4) &&
		in.pd_len == 8,
		"mpa v2: ULP private data follows the IRD/ORD words");

	pd[0] = 0x40;	/* B only: zero-length Send RTR, no P2P */
	pd[1] = 0x00;
	pd[2] = 0x3f;
	pd[3] = 0xff;
	n = mk_rr(b, "MPA ID Rep Frame", 0x10, 2, 4, pd, 4);
	e = siw_mpa_parse(b, n, SIW_MPA_REPLY, 0, &in);
	ktap_ok(e == SIW_MPA_OK && !in.p2p && in.rtr == SIW_RTR_SEND &&
		in.ird == 0 && in.ord == 0x3fff && in.ulp_pd_len == 0,
		"mpa v2: B bit is the Send RTR; 14-bit ORD 0x3fff");

	for (k = 0; k < 4; k++) {
		n = mk_rr(b, "MPA ID Req Frame", 0x10, 2, k, pd, k);
		eq_mpa(siw_mpa_parse(b, n, SIW_MPA_REQUEST, 0, &in),
		       SIW_MPA_E_IRD_ORD,
		       "mpa v2: enhanced with private data length %d", k);
	}
	n = mk_rr(b, "MPA ID Req Frame", 0x00, 2, 4, pd, 4);
	e = siw_mpa_parse(b, n, SIW_MPA_REQUEST, 0, &in);
	ktap_ok(e == SIW_MPA_OK && !in.enhanced && in.ulp_pd_len == 4,
		"mpa v2: without S the private data is all the ULP's");

	/* encoder, checked byte by byte */
	memset(&enc, 0, sizeof(enc));
	enc.kind = SIW_MPA_REQUEST;
	enc.revision = 2;
	enc.crc = true;
	enc.enhanced = true;
	enc.ird = 16;
	enc.ord = 8;
	enc.p2p = true;
	enc.rtr = SIW_RTR_WRITE | SIW_RTR_READ;
	enc.ulp_pd = (const u8 *)"data";
	enc.ulp_pd_len = 4;
	e = siw_mpa_build(&enc, out, sizeof(out), &len);
	pd[0] = 0x80;
	pd[1] = 0x10;
	pd[2] = 0xc0;
	pd[3] = 0x08;
	n = mk_rr(b, "MPA ID Req Frame", 0x50, 2, 8, pd, 8);
	ktap_ok(e == SIW_MPA_OK && len == n && !memcmp(out, b, n),
		"mpa v2: encoder writes the same bytes as by hand");

	enc.rtr = SIW_RTR_SEND;
	enc.p2p = false;
	enc.ird = 0x3fff;
	enc.ord = 0;
	e = siw_mpa_build(&enc, out, sizeof(out), &len);
	ktap_ok(e == SIW_MPA_OK && out[20] == 0x7f && out[21] == 0xff &&
		out[22] == 0 && out[23] == 0,
		"mpa v2: encoder puts the Send RTR bit in the IRD word");

	enc.ird = 0x4000;
	eq_mpa(siw_mpa_build(&enc, out, sizeof(out), &len), SIW_MPA_E_INVAL,
	       "mpa build: IRD above 14 bits");
	enc.ird = 1;
	enc.rtr = 0x8;
	eq_mpa(siw_mpa_build(&enc, out, sizeof(out), &len), SIW_MPA_E_INVAL,
	       "mpa build: unknown RTR bit");
	enc.rtr = 0;
	enc.revision = 1;
	eq_mpa(siw_mpa_build(&enc, out, sizeof(out), &len), SIW_MPA_E_INVAL,
	       "mpa build: enhanced needs revision 2");
	enc.revision = 2;
	enc.reject = true;
	eq_mpa(siw_mpa_build(&enc, out, sizeof(out), &len), SIW_MPA_E_INVAL,
	       "mpa build: no reject bit in a request");
	enc.reject = false;
	enc.ulp_pd = b;
	enc.ulp_pd_len = 508;
	e = siw_mpa_build(&enc, out, sizeof(out), &len);
	ktap_ok(e == SIW_MPA_OK && len == 532,
		"mpa build: 508 bytes of ULP data plus IRD/ORD is 512");
	enc.ulp_pd_len = 509;
	eq_mpa(siw_mpa_build(&enc, out, sizeof(out), &len), SIW_MPA_E_INVAL,
	       "mpa build: 509 bytes plus IRD/ORD is over 512");
	enc.enhanced = false;
	enc.ulp_pd_len = 512;
	e = siw_mpa_build(&enc, out, sizeof(out), &len);
	ktap_ok(e == SIW_MPA_OK && len == 532, "mpa build: 512 bytes, not enhanced");
	eq_mpa(siw_mpa_build(&enc, out, 531, &len), SIW_MPA_E_NOSPACE,
	       "mpa build: buffer one byte short");
	enc.ulp_pd_len = 0;
	enc.enhanced = true;
	enc.revision = 2;
	enc.kind = SIW_MPA_REPLY;
	enc.reject = true;
	enc.markers = true;
	e = siw_mpa_build(&enc, out, sizeof(out), &len);
	ktap_ok(e == SIW_MPA_OK && !memcmp(out, "MPA ID Rep Frame", 16) &&
		out[16] == 0xf0 && out[17] == 2 && out[18] == 0 && out[19] == 4,
		"mpa build: reply key, M C R S flags, PD_Length 4");
	e = siw_mpa_parse(out, len, SIW_MPA_REPLY, SIW_MPA_PARSE_STRICT, &in);
	ktap_ok(e == SIW_MPA_OK && in.reject && in.markers && in.crc &&
		in.enhanced && in.ird == 1 && in.ord == 0,
		"mpa build: what is built parses back, strictly");
}

static void default_params(struct siw_mpa_params *p)
{
	memset(p, 0, sizeof(*p));
	p->revision = 2;
	p->crc = SIW_MPA_CRC_OFFERED;
	p->ird = 4;
	p->ord = 4;
	p->max_ird = 16;
}

static void req_of(const struct siw_mpa_params *p, struct siw_mpa_info *req)
{
	siw_mpa_request_init(p, req);
}

static void test_mpa_respond(void)
{
	static const char *const pol[] = { "off", "offered", "required" };
	struct siw_mpa_params local, peer;
	struct siw_mpa_info req, rep;
	struct siw_mpa_result res;
	int c, q;

	default_params(&local);
	default_params(&peer);

	req_of(&peer, &req);
	req.markers = true;
	siw_mpa_respond(&local, &req, &res);
	ktap_ok(res.verdict == SIW_MPA_REJECT && res.reason == SIW_MPA_R_MARKERS,
		"respond: markers requested -> reject");
	siw_mpa_reply_init(&res, &rep);
	ktap_ok(rep.reject && !rep.markers && rep.kind == SIW_MPA_REPLY,
		"respond: the reject reply has R and no M");

	for (q = 0; q < 2; q++)
		for (c = SIW_MPA_CRC_OFF; c <= SIW_MPA_CRC_REQUIRED; c++) {
			local.crc = c;
			req_of(&peer, &req);
			req.crc = q;
			siw_mpa_respond(&local, &req, &res);
			ktap_ok(res.verdict == SIW_MPA_ACCEPT &&
				res.crc == (q || c != SIW_MPA_CRC_OFF),
				"respond: request C=%d, local CRC %s -> CRC %s", q,
				pol[c], q || c != SIW_MPA_CRC_OFF ? "on" : "off");
		}
	local.crc = SIW_MPA_CRC_OFFERED;

	peer.revision = 1;
	req_of(&peer, &req);
	siw_mpa_respond(&local, &req, &res);
	ktap_ok(res.verdict == SIW_MPA_ACCEPT && res.revision == 1 &&
		!res.enhanced && res.ird == 4 && res.ord == 4,
		"respond: rev 1 request -> rev 1, IRD/ORD as configured");
	peer.revision = 2;
	local.revision = 1;
	req_of(&peer, &req);
	siw_mpa_respond(&local, &req, &res);
	siw_mpa_reply_init(&res, &rep);
	ktap_ok(res.revision == 1 && !res.enhanced && rep.revision == 1 &&
		!rep.enhanced,
		"respond: rev 2 request to a rev 1 responder -> rev 1 reply");
	local.revision = 2;

	peer.ird = 2;
	peer.ord = 8;
	req_of(&peer, &req);
	siw_mpa_respond(&local, &req, &res);
	ktap_ok(res.enhanced && res.ord == 2 && res.ird == 8,
		"respond: ORD cut to peer IRD 2, IRD grown to peer ORD 8");
	peer.ord = 32;
	req_of(&peer, &req);
	siw_mpa_respond(&local, &req, &res);
	ktap_ok(res.verdict == SIW_MPA_ACCEPT && res.ird == 16,
		"respond: IRD grows no further than max_ird");
	peer.ird = 4;
	peer.ord = 4;

	local.p2p_accept = true;
	local.rtr_types = SIW_RTR_ALL;
	peer.p2p = true;
	peer.rtr_types = SIW_RTR_ALL;
	req_of(&peer, &req);
	siw_mpa_respond(&local, &req, &res);
	siw_mpa_reply_init(&res, &rep);
	ktap_ok(res.p2p && res.rtr == SIW_RTR_WRITE && rep.p2p &&
		rep.rtr == SIW_RTR_WRITE,
		"respond: P2P, all RTRs offered -> zero-length Write");
	local.rtr_types = SIW_RTR_READ;
	peer.rtr_types = SIW_RTR_READ | SIW_RTR_SEND;
	req_of(&peer, &req);
	siw_mpa_respond(&local, &req, &res);
	ktap_ok(res.p2p && res.rtr == SIW_RTR_READ,
		"respond: P2P, only Read in common -> zero-length Read");
	local.rtr_types = SIW_RTR_SEND;
	req_of(&peer, &req);
	siw_mpa_respond(&local, &req, &res);
	ktap_ok(res.p2p && res.rtr == SIW_RTR_SEND,
		"respond: P2P, only Send in common -> zero-length Send");
	local.rtr_types = SIW_RTR_WRITE;
	peer.rtr_types = SIW_RTR_SEND;
	req_of(&peer, &req);
	siw_mpa_respond(&local, &req, &res);
	ktap_ok(res.verdict == SIW_MPA_REJECT && res.reason == SIW_MPA_R_RTR,
		"respond: P2P, no RTR in common -> reject");
	local.rtr_types = SIW_RTR_SEND;
	local.p2p = false;
	req_of(&peer, &req);
	siw_mpa_respond(&local, &req, &res);
	ktap_ok(res.p2p && res.rtr == SIW_RTR_SEND,
		"respond: P2P answered although we would not ask for it");
	local.p2p = true;
	local.p2p_accept = false;
	req_of(&peer, &req);
	siw_mpa_respond(&local, &req, &res);
	siw_mpa_reply_init(&res, &rep);
	ktap_ok(res.verdict == SIW_MPA_ACCEPT && !res.p2p && !res.rtr && !rep.p2p,
		"respond: P2P refused (p2p_accept off) -> reply without P");
}

static void test_mpa_initiator(void)
{
	struct siw_mpa_params local;
	struct siw_mpa_info rep;
	struct siw_mpa_result res;

	default_params(&local);
	memset(&rep, 0, sizeof(rep));
	rep.kind = SIW_MPA_REPLY;
	rep.revision = 2;
	rep.crc = true;
	rep.enhanced = true;
	rep.ird = 4;
	rep.ord = 4;

	siw_mpa_check_reply(&local, &rep, &res);
	ktap_ok(res.verdict == SIW_MPA_ACCEPT && res.crc && res.enhanced &&
		res.ird == 4 && res.ord == 4,
		"initiator: plain rev 2 reply accepted");

	rep.reject = true;
	siw_mpa_check_reply(&local, &rep, &res);
	ktap_ok(res.verdict == SIW_MPA_REJECT &&
		res.reason == SIW_MPA_R_PEER_REJECT,
		"initiator: R -> rejected by peer");
	rep.reject = false;

	local.revision = 1;
	siw_mpa_check_reply(&local, &rep, &res);
	ktap_ok(res.verdict == SIW_MPA_ABORT && res.reason == SIW_MPA_R_REVISION,
		"initiator: rev 2 reply to a rev 1 request -> abort");
	local.revision = 2;

	rep.markers = true;
	siw_mpa_check_reply(&local, &rep, &res);
	ktap_ok(res.verdict == SIW_MPA_ABORT && res.reason == SIW_MPA_R_MARKERS &&
		res.term == SIW_TERM_OK,
		"initiator: M in reply -> abort, no Terminate");
	rep.markers = false;

	rep.crc = false;
	local.crc = SIW_MPA_CRC_REQUIRED;
	siw_mpa_check_reply(&local, &rep, &res);
	ktap_ok(res.verdict == SIW_MPA_ABORT && res.reason == SIW_MPA_R_CRC,
		"initiator: CRC required, reply without C -> abort");
	local.crc = SIW_MPA_CRC_OFFERED;
	siw_mpa_check_reply(&local, &rep, &res);
	ktap_ok(res.verdict == SIW_MPA_ACCEPT && !res.crc,
		"initiator: CRC offered, reply without C -> no CRC");
	local.crc = SIW_MPA_CRC_OFF;
	rep.crc = true;
	siw_mpa_check_reply(&local, &rep, &res);
	ktap_ok(res.verdict == SIW_MPA_ACCEPT && res.crc,
		"initiator: CRC off, responder sets C -> CRC");
	local.crc = SIW_MPA_CRC_OFFERED;

	rep.ord = 8;
	siw_mpa_check_reply(&local, &rep, &res);
	ktap_ok(res.verdict == SIW_MPA_ACCEPT && res.ird == 8,
		"initiator: responder ORD 8 > IRD 4 -> IRD grows to 8");
	rep.ord = 17;
	siw_mpa_check_reply(&local, &rep, &res);
	ktap_ok(res.verdict == SIW_MPA_ABORT && res.reason == SIW_MPA_R_IRD,
		"initiator: responder ORD 17 > max IRD 16 -> abort");
	eq_term(res.term, SIW_TERM_MPA_IRD,
		"initiator: ... with Terminate insufficient IRD (2/0/0x06)");
	rep.ord = 4;
	rep.ird = 2;
	siw_mpa_check_reply(&local, &rep, &res);
	ktap_ok(res.verdict == SIW_MPA_ACCEPT && res.ord == 2,
		"initiator: responder IRD 2 -> our ORD 4 drops to 2");
	rep.ird = 4;

	rep.p2p = true;
	rep.rtr = SIW_RTR_WRITE;
	siw_mpa_check_reply(&local, &rep, &res);
	ktap_ok(res.verdict == SIW_MPA_ABORT && res.reason == SIW_MPA_R_RTR,
		"initiator: P2P reply to a request without P2P -> abort");
	eq_term(res.term, SIW_TERM_MPA_NO_RTR,
		"initiator: ... with Terminate no matching RTR (2/0/0x07)");
	local.p2p = true;
	local.rtr_types = SIW_RTR_READ | SIW_RTR_SEND;
	siw_mpa_check_reply(&local, &rep, &res);
	ktap_ok(res.verdict == SIW_MPA_ABORT && res.term == SIW_TERM_MPA_NO_RTR,
		"initiator: reply picks an RTR we did not offer -> abort");
	rep.rtr = SIW_RTR_SEND;
	siw_mpa_check_reply(&local, &rep, &res);
	ktap_ok(res.verdict == SIW_MPA_ACCEPT && res.p2p &&
		res.rtr == SIW_RTR_SEND,
		"initiator: reply picks the Send RTR we offered");
	rep.p2p = false;
	rep.rtr = 0;
	siw_mpa_check_reply(&local, &rep, &res);
	ktap_ok(res.verdict == SIW_MPA_ACCEPT && !res.p2p,
		"initiator: responder declines P2P -> go on without RTR");

	rep.revision = 1;
	rep.enhanced = false;
	siw_mpa_check_reply(&local, &rep, &res);
	ktap_ok(res.verdict == SIW_MPA_ACCEPT && res.revision == 1 &&
		!res.enhanced && !res.p2p && res.ird == 4 && res.ord == 4,
		"initiator: rev 1 reply to rev 2 request -> rev 1, no P2P");
}

/* Both sides, through bytes, agree on the outcome. */
static void test_mpa_exchange(void)
{
	struct siw_mpa_params ini, rsp;
	struct siw_mpa_info req, rep, req_rx, rep_rx;
	struct siw_mpa_result r_res, i_res;
	u8 wire[SIW_MPA_RR_MAX], wire2[SIW_MPA_RR_MAX];
	const char ulp[] = "rdma_cm private";
	size_t len, len2;
	bool good;

	default_params(&ini);
	default_params(&rsp);
	ini.p2p = true;
	ini.rtr_types = SIW_RTR_ALL;
	ini.ird = 8;
	ini.ord = 16;
	rsp.p2p_accept = true;
	rsp.rtr_types = SIW_RTR_READ | SIW_RTR_SEND;
	rsp.crc = SIW_MPA_CRC_OFF;
	rsp.ird = 2;
	rsp.max_ird = 10;
	rsp.ord = 32;

	siw_mpa_request_init(&ini, &req);
	req.ulp_pd = (const u8 *)ulp;
	req.ulp_pd_len = sizeof(ulp);
	good = siw_mpa_build(&req, wire, sizeof(wire), &len) == SIW_MPA_OK &&
	       siw_mpa_parse(wire, len, SIW_MPA_REQUEST, SIW_MPA_PARSE_STRICT,
			     &req_rx) == SIW_MPA_OK;
	ktap_ok(good && req_rx.ulp_pd_len == sizeof(ulp) &&
		!memcmp(req_rx.ulp_pd, ulp, sizeof(ulp)),
		"exchange: request through the wire, ULP data intact");

	siw_mpa_respond(&rsp, &req_rx, &r_res);
	siw_mpa_reply_init(&r_res, &rep);
	good = siw_mpa_build(&rep, wire2, sizeof(wire2), &len2) ==
		       SIW_MPA_OK &&
	       siw_mpa_parse(wire2, len2, SIW_MPA_REPLY, SIW_MPA_PARSE_STRICT,
			     &rep_rx) == SIW_MPA_OK;
	ktap_ok(good, "exchange: reply through the wire");
	siw_mpa_check_reply(&ini, &rep_rx, &i_res);

	ktap_ok(r_res.verdict == SIW_MPA_ACCEPT && i_res.verdict == SIW_MPA_ACCEPT,
		"exchange: both accept");
	ktap_ok(r_res.crc && i_res.crc, "exchange: CRC on both sides");
	ktap_ok(r_res.p2p && i_res.p2p && r_res.rtr == SIW_RTR_READ &&
		i_res.rtr == SIW_RTR_READ,
		"exchange: both settle on the zero-length Read RTR");
	ktap_ok(i_res.ord <= r_res.ird && r_res.ord <= i_res.ird,
		"exchange: each ORD fits the other's IRD (%u<=%u, %u<=%u)",
		i_res.ord, r_res.ird, r_res.ord, i_res.ird);
	ktap_ok(r_res.ird == 10 && i_res.ord == 10 && r_res.ord == 8 &&
		i_res.ird == 8,
		"exchange: responder IRD 2->10 (max), initiator ORD 16->10");
}

/* Upstream siw's GSO flag: parsed, built, negotiated only by both. */
static void test_mpa_gso(void)
{
	struct siw_mpa_params ini, rsp;
	struct siw_mpa_info req, rep, in;
	struct siw_mpa_result r_res, i_res;
	u8 b[SIW_MPA_RR_MAX];
	size_t len;
	bool good;

	len = mk_rr(b, "MPA ID Req Frame", 0x08, 2, 0, NULL, 0);
	ktap_ok(siw_mpa_parse(b, len, SIW_MPA_REQUEST, SIW_MPA_PARSE_STRICT, &in) ==
			SIW_MPA_OK && in.gso && !in.rsvd,
		"gso: flag 0x08 of a rev 2 request parsed, not reserved");
	len = mk_rr(b, "MPA ID Rep Frame", 0x08, 1, 0, NULL, 0);
	ktap_ok(siw_mpa_parse(b, len, SIW_MPA_REPLY, SIW_MPA_PARSE_STRICT, &in) ==
			SIW_MPA_OK && in.gso && !in.rsvd,
		"gso: flag 0x08 of a rev 1 reply parsed (older upstream siw)");

	default_params(&ini);
	default_params(&rsp);
	ini.gso = true;
	rsp.gso = true;
	siw_mpa_request_init(&ini, &req);
	good = siw_mpa_build(&req, b, sizeof(b), &len) == SIW_MPA_OK;
	ktap_ok(good && req.gso && (b[16] & 0x08),
		"gso: a rev 2 request of a GSO device carries 0x08");
	ini.revision = 1;
	siw_mpa_request_init(&ini, &req);
	good = siw_mpa_build(&req, b, sizeof(b), &len) == SIW_MPA_OK;
	ktap_ok(good && !req.gso && !(b[16] & 0x08),
		"gso: a rev 1 request never carries it (the peer may be hardware)");
	ini.revision = 2;

	siw_mpa_request_init(&ini, &req);
	siw_mpa_respond(&rsp, &req, &r_res);
	siw_mpa_reply_init(&r_res, &rep);
	siw_mpa_check_reply(&ini, &rep, &i_res);
	ktap_ok(r_res.gso && rep.gso && i_res.gso,
		"gso: both offer: the reply carries it, both use it");

	rsp.gso = false;
	siw_mpa_respond(&rsp, &req, &r_res);
	siw_mpa_reply_init(&r_res, &rep);
	siw_mpa_check_reply(&ini, &rep, &i_res);
	ktap_ok(!r_res.gso && !rep.gso && !i_res.gso,
		"gso: responder's knob off: neither uses it");
	rsp.gso = true;

	ini.gso = false;
	siw_mpa_request_init(&ini, &req);
	siw_mpa_respond(&rsp, &req, &r_res);
	siw_mpa_reply_init(&r_res, &rep);
	ktap_ok(!req.gso && !r_res.gso && !rep.gso,
		"gso: initiator does not offer it: the responder does not use it");

	/* A reply with the flag to a request without it. */
	rep.gso = true;
	siw_mpa_check_reply(&ini, &rep, &i_res);
	ktap_ok(i_res.verdict == SIW_MPA_ACCEPT && !i_res.gso,
		"gso: an unasked reply flag is ignored");

	ini.gso = true;
	siw_mpa_request_init(&ini, &req);
	req.markers = true;
	siw_mpa_respond(&rsp, &req, &r_res);
	siw_mpa_reply_init(&r_res, &rep);
	ktap_ok(rep.reject && !rep.gso, "gso: a reject does not carry it");

	eq_u64(siw_gso_emss(1448, 65536, 65535, 320), 1448 * 45,
	       "gso emss: MTU 1500, 64 KiB GSO: 45 segments");
	eq_u64(siw_gso_emss(65483, 65536, 65535, 320), 65483,
	       "gso emss: loopback's MSS: one segment");
	eq_u64(siw_gso_emss(1448, 65536, 2, 320), 2896,
	       "gso emss: gso_max_segs 2");
	eq_u64(siw_gso_emss(1448, 100, 65535, 320), 1448,
	       "gso emss: GSO size below the header room: one MSS");
	eq_u64(siw_gso_emss(9000, 524288, 65535, 320), 63000,
	       "gso emss: BIG TCP's 512 KiB: capped below 64 KiB FPDUs");
	eq_u64(siw_gso_emss(0, 65536, 65535, 320), 0, "gso emss: MSS 0");
	ktap_ok(siw_mpa_mulpdu(siw_gso_emss(1448, 65536, 65535, 320)) == 65154,
		"gso: MULPDU 65154 on MTU 1500");
}

/* ------------------------------------------------------------------ */
/* FPDU sizing and framing                                             */
/* ------------------------------------------------------------------ */

/* Revision 1 with [MS-SMBD] 6.1's IRD/ORD words. */
static void test_mpa_legacy(void)
{
	u8 pd[12] = { 0, 0, 0, 16, 0, 0, 0, 4, 'u', 'l', 'p', '!' };
	u8 b[SIW_MPA_RR_MAX], out[SIW_MPA_RR_MAX];
	struct siw_mpa_params ini, rsp;
	struct siw_mpa_info in, req, rep, rq, rp;
	struct siw_mpa_result r_res, i_res;
	size_t n, len;
	int k;

	n = mk_rr(b, "MPA ID Req Frame", 0x40, 1, 12, pd, 12);
	ktap_ok(siw_mpa_parse(b, n, SIW_MPA_REQUEST, SIW_MPA_PARSE_LEGACY, &in) ==
		SIW_MPA_OK && in.legacy && in.ird == 16 && in.ord == 4 &&
		in.ulp_pd_len == 4 && !memcmp(in.ulp_pd, "ulp!", 4),
		"mpa legacy: IRD 16, ORD 4 as 32-bit words, then the ULP's data");
	ktap_ok(siw_mpa_parse(b, n, SIW_MPA_REQUEST, 0, &in) == SIW_MPA_OK &&
		!in.legacy && in.ulp_pd_len == 12,
		"mpa legacy: not asked for, all 12 bytes are the ULP's");
	for (k = 0; k < 8; k++) {
		n = mk_rr(b, "MPA ID Req Frame", 0x40, 1, k, pd, k);
		eq_mpa(siw_mpa_parse(b, n, SIW_MPA_REQUEST,
				     SIW_MPA_PARSE_LEGACY, &in),
		       SIW_MPA_E_LEGACY,
		       "mpa legacy: private data of %d bytes", k);
	}
	pd[3] = 0;
	n = mk_rr(b, "MPA ID Req Frame", 0x40, 1, 8, pd, 8);
	eq_mpa(siw_mpa_parse(b, n, SIW_MPA_REQUEST, SIW_MPA_PARSE_LEGACY, &in),
	       SIW_MPA_E_LEGACY, "mpa legacy: IRD 0 is malformed");
	n = mk_rr(b, "MPA ID Rep Frame", 0x60, 1, 4, (const u8 *)"nope", 4);
	ktap_ok(siw_mpa_parse(b, n, SIW_MPA_REPLY, SIW_MPA_PARSE_LEGACY, &in) ==
		SIW_MPA_OK && in.reject && !in.legacy && in.ulp_pd_len == 4,
		"mpa legacy: a reject without the words is taken, data intact");
	pd[3] = 0xff;
	pd[0] = 0x01;	/* IRD 0x010000ff: above 14 bits, capped */
	n = mk_rr(b, "MPA ID Req Frame", 0x40, 1, 8, pd, 8);
	ktap_ok(siw_mpa_parse(b, n, SIW_MPA_REQUEST, SIW_MPA_PARSE_LEGACY, &in) ==
		SIW_MPA_OK && in.ird == SIW_MPA_V2_IRD_ORD_MAX,
		"mpa legacy: a huge IRD is capped at 0x3fff");
	pd[0] = 0;
	pd[3] = 16;
	n = mk_rr(b, "MPA ID Req Frame", 0x40, 2, 12, pd, 12);
	ktap_ok(siw_mpa_parse(b, n, SIW_MPA_REQUEST, SIW_MPA_PARSE_LEGACY, &in) ==
		SIW_MPA_OK && !in.legacy && in.ulp_pd_len == 12,
		"mpa legacy: revision 2 frames never carry the words");

	/* The encoder, byte by byte. */
	memset(&req, 0, sizeof(req));
	req.kind = SIW_MPA_REQUEST;
	req.revision = 1;
	req.crc = true;
	req.legacy = true;
	req.ird = 16;
	req.ord = 4;
	req.ulp_pd = (const u8 *)"ulp!";
	req.ulp_pd_len = 4;
	n = mk_rr(b, "MPA ID Req Frame", 0x40, 1, 12, pd, 12);
	ktap_ok(siw_mpa_build(&req, out, sizeof(out), &len) == SIW_MPA_OK &&
		len == n && !memcmp(out, b, n),
		"mpa legacy: the encoder writes the same bytes as by hand");
	req.revision = 2;
	eq_mpa(siw_mpa_build(&req, out, sizeof(out), &len), SIW_MPA_E_INVAL,
	       "mpa legacy: not in revision 2");
	req.revision = 1;
	req.ord = 0;
	eq_mpa(siw_mpa_build(&req, out, sizeof(out), &len), SIW_MPA_E_INVAL,
	       "mpa legacy: not with ORD 0");

	/* Both ends configured for it: IRD/ORD negotiated as with S. */
	default_params(&ini);
	default_params(&rsp);
	ini.revision = 1;
	ini.legacy = true;
	ini.ird = 16;
	ini.ord = 16;
	rsp.revision = 1;
	rsp.legacy = true;
	rsp.ird = 2;
	rsp.ord = 4;
	rsp.max_ird = 2;
	siw_mpa_request_init(&ini, &req);
	ktap_ok(req.legacy && !req.enhanced && req.ird == 16 && req.ord == 16,
		"mpa legacy: the request carries IRD 16 and ORD 16");
	ktap_ok(siw_mpa_build(&req, out, sizeof(out), &len) == SIW_MPA_OK &&
		siw_mpa_parse(out, len, SIW_MPA_REQUEST, SIW_MPA_PARSE_LEGACY,
			      &rq) == SIW_MPA_OK && rq.legacy,
		"mpa legacy: the request goes through the wire");
	siw_mpa_respond(&rsp, &rq, &r_res);
	siw_mpa_reply_init(&r_res, &rep);
	ktap_ok(r_res.verdict == SIW_MPA_ACCEPT && r_res.legacy &&
		!r_res.enhanced && r_res.ird == 2 && r_res.ord == 4 && rep.legacy,
		"mpa legacy: responder keeps IRD 2 (max_ird 2), ORD 4 fits IRD 16");
	ktap_ok(siw_mpa_build(&rep, out, sizeof(out), &len) == SIW_MPA_OK &&
		siw_mpa_parse(out, len, SIW_MPA_REPLY, SIW_MPA_PARSE_LEGACY,
			      &rp) == SIW_MPA_OK && rp.legacy,
		"mpa legacy: the reply goes through the wire");
	siw_mpa_check_reply(&ini, &rp, &i_res);
	ktap_ok(i_res.verdict == SIW_MPA_ACCEPT && i_res.legacy &&
		i_res.ord == 2 && i_res.ird == 16,
		"mpa legacy: initiator's ORD drops to the responder's IRD 2");
	rsp.legacy = false;
	siw_mpa_build(&req, out, sizeof(out), &len);
	siw_mpa_parse(out, len, SIW_MPA_REQUEST, 0, &rq);
	siw_mpa_respond(&rsp, &rq, &r_res);
	ktap_ok(r_res.verdict == SIW_MPA_ACCEPT && !r_res.legacy &&
		r_res.ird == 2 && r_res.ord == 4,
		"mpa legacy: a responder not configured for it exchanges nothing");
	ini.revision = 2;
	siw_mpa_request_init(&ini, &req);
	ktap_ok(!req.legacy && req.enhanced,
		"mpa legacy: a revision 2 initiator uses S instead");
}

static void test_fpdu_sizes(void)
{
	struct siw_fpdu f;
	bool good = true;
	u32 emss, m, room, total, sent, n, hdr;
	int step;

	eq_u64(siw_mpa_mulpdu(1460), 1454, "mulpdu: EMSS 1460 (mod 4 = 0)");
	eq_u64(siw_mpa_mulpdu(1461), 1454, "mulpdu: EMSS 1461 (mod 4 = 1)");
	eq_u64(siw_mpa_mulpdu(1462), 1454, "mulpdu: EMSS 1462 (mod 4 = 2)");
	eq_u64(siw_mpa_mulpdu(1463), 1454, "mulpdu: EMSS 1463 (mod 4 = 3)");
	eq_u64(siw_mpa_mulpdu(8948), 8942, "mulpdu: EMSS 8948 (9000 MTU)");
	eq_u64(siw_mpa_mulpdu(6), 0, "mulpdu: EMSS 6 leaves nothing");
	eq_u64(siw_mpa_mulpdu(0), 0, "mulpdu: EMSS 0");
	eq_u64(siw_mpa_mulpdu(1 << 20), 65535,
	       "mulpdu: capped at the 16-bit length field");
	for (emss = 8; emss < 70000; emss++) {
		m = siw_mpa_mulpdu(emss);
		if (!m || siw_fpdu_wire_len(m) > emss ||
		    siw_fpdu_wire_len(m) % 4 ||
		    (m < 65535 && siw_fpdu_wire_len(m + 1) <= emss))
			good = false;
	}
	ktap_ok(good, "mulpdu: for EMSS 8..69999 the largest FPDU that fits");
	eq_u64(siw_mpa_mulpdu(7), 0, "mulpdu: EMSS 7 fits no ULPDU byte");

	good = true;
	for (n = 0; n < 8; n++)
		if ((2 + n + siw_mpa_pad(n)) % 4 || siw_mpa_pad(n) > 3)
			good = false;
	ktap_ok(good && siw_mpa_pad(0) == 2 && siw_mpa_pad(1) == 1 &&
		siw_mpa_pad(2) == 0 && siw_mpa_pad(3) == 3,
		"pad: ULPDU 0..7 padded with length field to 4");

	/* A Send over EMSS 1460: MULPDU 1454, 18-byte header, room 1436. */
	m = 1454;
	hdr = SIW_UNTAGGED_HDR_LEN;
	room = m - hdr;
	{
		static const u32 sizes[] = { 0, 1, 2, 3, 4, 1435, 1436, 1437,
					     1453, 1454, 1455, 1 << 20 };
		size_t i;

		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			u32 len = sizes[i], want = len < room ? len : room;
			bool fine;

			fine = siw_fpdu_plan(m, hdr, len, &f) &&
			       f.payload == want && f.ulpdu_len == hdr + want &&
			       f.pad == siw_mpa_pad(hdr + want) &&
			       f.wire_len == 2 + hdr + want + f.pad + 4 &&
			       f.wire_len % 4 == 0 && f.wire_len <= 1460 &&
			       f.last == (len <= room);
			ktap_ok(fine,
				"fpdu: Send of %u bytes: first FPDU %u, pad %u, wire %u%s",
				len, f.payload, f.pad, f.wire_len,
				f.last ? ", last" : "");
		}
	}
	ktap_ok(siw_fpdu_plan(m, hdr, 0, &f) && f.payload == 0 &&
		f.ulpdu_len == 18 && f.pad == 0 && f.wire_len == 24 && f.last,
		"fpdu: zero-length Send is one 24-byte FPDU");
	ktap_ok(siw_fpdu_plan(m, SIW_RREQ_HDR_LEN, 0, &f) && f.ulpdu_len == 46 &&
		f.pad == 0 && f.wire_len == 52,
		"fpdu: Read Request is one 52-byte FPDU");
	ktap_ok(siw_fpdu_plan(m, SIW_TAGGED_HDR_LEN, 1, &f) && f.ulpdu_len == 15 &&
		f.pad == 3 && f.wire_len == 24,
		"fpdu: 1-byte Write: ULPDU 15, pad 3, 24 on the wire");
	ktap_ok(siw_fpdu_plan(m, SIW_TAGGED_HDR_LEN, 2, &f) && f.ulpdu_len == 16 &&
		f.pad == 2 && f.wire_len == 24,
		"fpdu: 2-byte Write: ULPDU 16, pad 2, 24 on the wire");
	ktap_ok(!siw_fpdu_plan(18, 18, 1, &f),
		"fpdu: no room for payload behind the header");
	ktap_ok(siw_fpdu_plan(18, 18, 0, &f) && f.last,
		"fpdu: ... but a zero-length message still fits");
	ktap_ok(!siw_fpdu_plan(10, 14, 0, &f), "fpdu: header longer than MULPDU");

	eq_u64(siw_fpdu_count(m, hdr, 0), 1, "fpdu count: empty message");
	eq_u64(siw_fpdu_count(m, hdr, room), 1, "fpdu count: exactly full");
	eq_u64(siw_fpdu_count(m, hdr, room + 1), 2, "fpdu count: one over");
	eq_u64(siw_fpdu_count(m, hdr, 0xffffffff), 0xffffffffULL / room + 1,
	       "fpdu count: 4 GiB - 1 without overflow");
	eq_u64(siw_fpdu_count(18, 18, 5), 0, "fpdu count: no room");

	/* Walk a whole message; the pieces must add up and end once. */
	for (step = 0; step < 3; step++) {
		static const u32 msgs[] = { 100000, 1436 * 7, 1 };

		total = msgs[step];
		sent = 0;
		n = 0;
		good = true;
		do {
			if (!siw_fpdu_plan(m, hdr, total - sent, &f)) {
				good = false;
				break;
			}
			if (!f.last && f.payload != room)
				good = false;
			sent += f.payload;
			n++;
		} while (!f.last);
		ktap_ok(good && sent == total &&
			n == siw_fpdu_count(m, hdr, total),
			"fpdu: %u-byte message in %u FPDUs, all full but the last",
			total, n);
	}
}

static void test_fpdu_frame(void)
{
	u8 fpdu[64], want[64], tr[8];
	struct siw_hdr h, rx;
	struct siw_fpdu f;
	struct siw_frag frag = { "abc", 3 };
	u32 hl, crc, n;

	memset(&h, 0, sizeof(h));
	h.opcode = SIW_RDMAP_SEND;
	h.last = true;
	h.msn = 7;
	h.mo = 0x10;
	h.rsvd_ulp = 0xdeadbeef;	/* not Send with Invalidate: dropped */
	ktap_ok(siw_fpdu_plan(1454, SIW_UNTAGGED_HDR_LEN, 3, &f) && f.pad == 1,
		"frame: Send of 3 bytes needs 1 pad byte");
	hl = siw_fpdu_put_hdr(&h, f.ulpdu_len, fpdu, sizeof(fpdu)) - 2;
	memcpy(fpdu + 2 + hl, "abc", 3);
	crc = siw_fpdu_crc(fpdu, 2 + hl, &frag, 1, f.pad);
	n = 2 + hl + 3;
	n += siw_fpdu_trailer(fpdu + n, f.pad, crc);

	memset(want, 0, sizeof(want));
	want[1] = 21;			/* ULPDU_Length */
	want[2] = 0x41;			/* L, DV 1 */
	want[3] = 0x43;			/* RV 1, Send */
	want[11] = 0;			/* QN 0 (bytes 8..11) */
	want[15] = 7;			/* MSN */
	want[19] = 0x10;		/* MO */
	memcpy(want + 20, "abc", 3);	/* pad byte 23 stays 0 */
	siw_mpa_crc_put(want + 24, crc32c_std(want, 24));
	ktap_ok(hl == 18 && n == 28 && n == f.wire_len && !memcmp(fpdu, want, 28),
		"frame: Send FPDU byte for byte, CRC over length+ULPDU+pad");

	ktap_ok(siw_ddp_check(fpdu + 2, 18, 21, SIW_DDP_STRICT, &rx) ==
			SIW_TERM_OK &&
		rx.opcode == SIW_RDMAP_SEND && rx.last && rx.qn == 0 &&
		rx.msn == 7 && rx.mo == 0x10 && rx.payload_len == 3 &&
		rx.hdr_len == 18,
		"frame: the receive check reads it back");
	ktap_ok(siw_mpa_crc_final(siw_mpa_crc_update(siw_mpa_crc_init(), fpdu,
						      24)) ==
		siw_mpa_crc_get(fpdu + 24),
		"frame: the receiver's CRC matches the trailer");

	memset(tr, 0xee, sizeof(tr));
	ktap_ok(siw_fpdu_trailer(tr, 3, 0) == 7 && !memcmp(tr, "\0\0\0\0\0\0\0", 7),
		"frame: CRC off: pad and an all-zero CRC field");

	memset(&h, 0, sizeof(h));
	h.opcode = SIW_RDMAP_WRITE;
	h.last = false;
	h.stag = 0x11223344;
	h.to = 0x0102030405060708ULL;
	hl = siw_hdr_encode(&h, fpdu, sizeof(fpdu));
	ktap_ok(hl == 14 && fpdu[0] == 0x81 && fpdu[1] == 0x40 &&
		!memcmp(fpdu + 2, "\x11\x22\x33\x44\x01\x02\x03\x04\x05\x06\x07\x08",
			12),
		"encode: RDMA Write header, T set, L clear");

	memset(&h, 0, sizeof(h));
	h.opcode = SIW_RDMAP_SEND_SE_INV;
	h.last = true;
	h.rsvd_ulp = 0xcafe0001;
	h.msn = 1;
	hl = siw_hdr_encode(&h, fpdu, sizeof(fpdu));
	ktap_ok(hl == 18 && fpdu[1] == 0x46 && fpdu[2] == 0xca && fpdu[5] == 0x01,
		"encode: Send with SE and Invalidate carries the STag");

	memset(&h, 0, sizeof(h));
	h.opcode = SIW_RDMAP_READ_REQ;
	h.msn = 3;
	h.mo = 99;		/* ignored: a Read Request has MO 0 */
	h.rreq.sink_stag = 0xa1a2a3a4;
	h.rreq.sink_to = 0xb1b2b3b4b5b6b7b8ULL;
	h.rreq.size = 0x10000;
	h.rreq.src_stag = 0xc1c2c3c4;
	h.rreq.src_to = 0xd1d2d3d4d5d6d7d8ULL;
	hl = siw_hdr_encode(&h, fpdu, sizeof(fpdu));
	ktap_ok(hl == 46 && fpdu[0] == 0x41 && fpdu[9] == 1 && fpdu[17] == 0 &&
		fpdu[18] == 0xa1 && fpdu[22] == 0xb1 && fpdu[30] == 0x00 &&
		fpdu[31] == 0x01 && fpdu[34] == 0xc1 && fpdu[38] == 0xd1 &&
		fpdu[45] == 0xd8,
		"encode: Read Request on QN 1, L set, MO 0, body in order");
	ktap_ok(siw_ddp_check(fpdu, 46, 46, SIW_DDP_STRICT, &rx) == SIW_TERM_OK &&
		rx.rreq.sink_stag == h.rreq.sink_stag &&
		rx.rreq.sink_to == h.rreq.sink_to &&
		rx.rreq.size == h.rreq.size &&
		rx.rreq.src_stag == h.rreq.src_stag &&
		rx.rreq.src_to == h.rreq.src_to && rx.msn == 3,
		"encode: Read Request reads back");

	ktap_ok(siw_fpdu_put_hdr(&h, 45, fpdu, sizeof(fpdu)) == 0,
		"encode: MPA length shorter than the header refused");
	ktap_ok(siw_fpdu_put_hdr(&h, 46, fpdu, sizeof(fpdu)) == 48 &&
		fpdu[0] == 0 && fpdu[1] == 46 && fpdu[2] == 0x41,
		"encode: MPA length field, then the header");

	memset(fpdu, 0xee, sizeof(fpdu));
	memset(&h, 0, sizeof(h));
	h.opcode = SIW_RDMAP_TERMINATE;
	h.msn = 1;
	ktap_ok(siw_hdr_encode(&h, fpdu, sizeof(fpdu)) == 22 &&
		!memcmp(fpdu + 18, "\0\0\0\0", 4),
		"encode: Terminate header with a zeroed control word");

	h.opcode = 0xc;
	ktap_ok(siw_hdr_encode(&h, fpdu, sizeof(fpdu)) == 0,
		"encode: reserved opcode refused");
	h.opcode = SIW_RDMAP_READ_REQ;
	ktap_ok(siw_hdr_encode(&h, fpdu, 45) == 0,
		"encode: buffer shorter than the header refused");
}

/* ------------------------------------------------------------------ */
/* DDP/RDMAP receive checks                                            */
/* ------------------------------------------------------------------ */

static void mk_untagged(u8 *b, u8 ddp, u8 rdmap, u32 rsvd, u32 qn, u32 msn,
			u32 mo)
{
	memset(b, 0, SIW_HDR_MAX);
	b[0] = ddp;
	b[1] = rdmap;
	siw_put_be32(b + 2, rsvd);
	siw_put_be32(b + 6, qn);
	siw_put_be32(b + 10, msn);
	siw_put_be32(b + 14, mo);
}

static void mk_tagged(u8 *b, u8 ddp, u8 rdmap, u32 stag, u64 to)
{
	memset(b, 0, SIW_HDR_MAX);
	b[0] = ddp;
	b[1] = rdmap;
	siw_put_be32(b + 2, stag);
	siw_put_be64(b + 6, to);
}

#define DDP_UT_L	0x41	/* untagged, last, DV 1 */
#define DDP_UT		0x01
#define DDP_T_L		0xc1
#define RDMAP(op)	(0x40 | (op))

static void test_ddp_valid(void)
{
	u8 b[SIW_HDR_MAX];
	struct siw_hdr h;
	enum siw_term_code t;

	mk_untagged(b, DDP_UT, RDMAP(SIW_RDMAP_SEND), 0, 0, 5, 1000);
	t = siw_ddp_check(b, 18, 118, 0, &h);
	ktap_ok(t == SIW_TERM_OK && h.opcode == SIW_RDMAP_SEND && !h.tagged &&
		!h.last && h.qn == 0 && h.msn == 5 && h.mo == 1000 &&
		h.payload_len == 100 && !h.rsvd_set,
		"ddp: Send, middle segment");
	mk_untagged(b, DDP_UT_L, RDMAP(SIW_RDMAP_SEND_INV), 0x12345678, 0, 1, 0);
	t = siw_ddp_check(b, 18, 18, SIW_DDP_STRICT, &h);
	ktap_ok(t == SIW_TERM_OK && h.last && h.rsvd_ulp == 0x12345678 &&
		!h.rsvd_set && h.payload_len == 0,
		"ddp: Send with Invalidate carries its STag, strict");
	mk_untagged(b, DDP_UT_L, RDMAP(SIW_RDMAP_SEND_SE), 0, 0, 1, 0);
	ktap_ok(siw_ddp_check(b, 18, 20, SIW_DDP_STRICT, &h) == SIW_TERM_OK,
		"ddp: Send with SE");
	mk_untagged(b, DDP_UT_L, RDMAP(SIW_RDMAP_SEND_SE_INV), 9, 0, 1, 0);
	ktap_ok(siw_ddp_check(b, 18, 20, SIW_DDP_STRICT, &h) == SIW_TERM_OK &&
		h.rsvd_ulp == 9,
		"ddp: Send with SE and Invalidate");
	mk_tagged(b, DDP_T_L, RDMAP(SIW_RDMAP_WRITE), 0xabcdef01,
		  0xfffffffffffffff0ULL);
	t = siw_ddp_check(b, 14, 14 + 16, SIW_DDP_STRICT, &h);
	ktap_ok(t == SIW_TERM_OK && h.tagged && h.stag == 0xabcdef01 &&
		h.to == 0xfffffffffffffff0ULL && h.payload_len == 16 &&
		h.hdr_len == 14,
		"ddp: RDMA Write");
	mk_tagged(b, DDP_T_L, RDMAP(SIW_RDMAP_READ_RESP), 1, 2);
	ktap_ok(siw_ddp_check(b, 14, 14, SIW_DDP_STRICT, &h) == SIW_TERM_OK,
		"ddp: RDMA Read Response, zero length");
	mk_untagged(b, DDP_UT_L, RDMAP(SIW_RDMAP_READ_REQ), 0, 1, 1, 0);
	ktap_ok(siw_ddp_check(b, 46, 46, SIW_DDP_STRICT, &h) == SIW_TERM_OK &&
		h.hdr_len == 46 && h.payload_len == 0,
		"ddp: RDMA Read Request");
	mk_untagged(b, DDP_UT_L, RDMAP(SIW_RDMAP_TERMINATE), 0, 2, 1, 0);
	ktap_ok(siw_ddp_check(b, 22, 60, SIW_DDP_STRICT, &h) == SIW_TERM_OK &&
		h.hdr_len == 22 && h.payload_len == 38,
		"ddp: Terminate");

	eq_u64(siw_ddp_hdr_len(DDP_T_L, RDMAP(SIW_RDMAP_WRITE)), 14,
	       "hdr len: Write");
	eq_u64(siw_ddp_hdr_len(DDP_UT, RDMAP(SIW_RDMAP_SEND)), 18,
	       "hdr len: Send");
	eq_u64(siw_ddp_hdr_len(DDP_UT_L, RDMAP(SIW_RDMAP_READ_REQ)), 46,
	       "hdr len: Read Request with its body");
	eq_u64(siw_ddp_hdr_len(DDP_UT_L, RDMAP(SIW_RDMAP_TERMINATE)), 22,
	       "hdr len: Terminate with its control word");
	eq_u64(siw_ddp_hdr_len(DDP_UT_L, RDMAP(0xf)), 18,
	       "hdr len: reserved opcode, untagged: the DDP header");
	eq_u64(siw_ddp_hdr_len(DDP_T_L, RDMAP(SIW_RDMAP_READ_REQ)), 14,
	       "hdr len: untagged opcode with T: the tagged DDP header");
}

static void test_ddp_errors(void)
{
	u8 b[SIW_HDR_MAX];
	struct siw_hdr h;
	unsigned int v, op;

	for (v = 0; v < 4; v++) {
		if (v == 1)
			continue;
		mk_tagged(b, 0xc0 | v, RDMAP(SIW_RDMAP_WRITE), 1, 0);
		eq_term(siw_ddp_check(b, 14, 14, 0, &h), SIW_TERM_DDP_T_VERSION,
			"ddp: tagged, DDP version %u -> 1/1/0x04", v);
		mk_untagged(b, 0x40 | v, RDMAP(SIW_RDMAP_SEND), 0, 0, 1, 0);
		eq_term(siw_ddp_check(b, 18, 18, 0, &h),
			SIW_TERM_DDP_UT_VERSION,
			"ddp: untagged, DDP version %u -> 1/2/0x06", v);
	}
	for (v = 0; v < 4; v++) {
		if (v == 1)
			continue;
		mk_untagged(b, DDP_UT_L, v << 6 | SIW_RDMAP_SEND, 0, 0, 1, 0);
		eq_term(siw_ddp_check(b, 18, 18, 0, &h), SIW_TERM_RDMAP_VERSION,
			"ddp: RDMAP version %u -> 0/2/0x05", v);
	}
	for (op = 8; op < 16; op++) {
		mk_untagged(b, DDP_UT_L, RDMAP(op), 0, 0, 1, 0);
		eq_term(siw_ddp_check(b, 18, 18, 0, &h), SIW_TERM_RDMAP_OPCODE,
			"ddp: reserved opcode 0x%x untagged -> 0/2/0x06", op);
	}
	mk_tagged(b, DDP_T_L, RDMAP(0xb), 1, 0);
	eq_term(siw_ddp_check(b, 14, 14, 0, &h), SIW_TERM_RDMAP_OPCODE,
		"ddp: reserved opcode 0xb tagged -> 0/2/0x06");

	mk_untagged(b, DDP_UT_L, RDMAP(SIW_RDMAP_WRITE), 0, 0, 1, 0);
	eq_term(siw_ddp_check(b, 18, 18, 0, &h), SIW_TERM_RDMAP_OPCODE,
		"ddp: RDMA Write without T -> 0/2/0x06");
	mk_untagged(b, DDP_UT_L, RDMAP(SIW_RDMAP_READ_RESP), 0, 0, 1, 0);
	eq_term(siw_ddp_check(b, 18, 18, 0, &h), SIW_TERM_RDMAP_OPCODE,
		"ddp: Read Response without T -> 0/2/0x06");
	mk_tagged(b, DDP_T_L, RDMAP(SIW_RDMAP_SEND), 1, 0);
	eq_term(siw_ddp_check(b, 14, 14, 0, &h), SIW_TERM_RDMAP_OPCODE,
		"ddp: Send with T -> 0/2/0x06");
	mk_tagged(b, DDP_T_L, RDMAP(SIW_RDMAP_TERMINATE), 1, 0);
	eq_term(siw_ddp_check(b, 14, 14, 0, &h), SIW_TERM_RDMAP_OPCODE,
		"ddp: Terminate with T -> 0/2/0x06");

	mk_untagged(b, DDP_UT_L, RDMAP(SIW_RDMAP_SEND), 0, 3, 1, 0);
	eq_term(siw_ddp_check(b, 18, 18, 0, &h), SIW_TERM_DDP_UT_INVALID_QN,
		"ddp: QN 3 -> 1/2/0x01");
	mk_untagged(b, DDP_UT_L, RDMAP(SIW_RDMAP_SEND), 0, 0xffffffff, 1, 0);
	eq_term(siw_ddp_check(b, 18, 18, 0, &h), SIW_TERM_DDP_UT_INVALID_QN,
		"ddp: QN 0xffffffff -> 1/2/0x01");
	mk_untagged(b, DDP_UT_L, RDMAP(SIW_RDMAP_SEND), 0, 1, 1, 0);
	eq_term(siw_ddp_check(b, 18, 18, 0, &h), SIW_TERM_DDP_UT_INVALID_QN,
		"ddp: Send on QN 1 -> 1/2/0x01");
	mk_untagged(b, DDP_UT_L, RDMAP(SIW_RDMAP_READ_REQ), 0, 0, 1, 0);
	eq_term(siw_ddp_check(b, 46, 46, 0, &h), SIW_TERM_DDP_UT_INVALID_QN,
		"ddp: Read Request on QN 0 -> 1/2/0x01");
	mk_untagged(b, DDP_UT_L, RDMAP(SIW_RDMAP_TERMINATE), 0, 1, 1, 0);
	eq_term(siw_ddp_check(b, 22, 22, 0, &h), SIW_TERM_DDP_UT_INVALID_QN,
		"ddp: Terminate on QN 1 -> 1/2/0x01");

	mk_untagged(b, DDP_UT_L, RDMAP(SIW_RDMAP_READ_REQ), 0, 1, 1, 4);
	eq_term(siw_ddp_check(b, 46, 46, 0, &h), SIW_TERM_DDP_UT_INVALID_MO,
		"ddp: Read Request with MO 4 -> 1/2/0x04");
	mk_untagged(b, DDP_UT, RDMAP(SIW_RDMAP_READ_REQ), 0, 1, 1, 0);
	eq_term(siw_ddp_check(b, 46, 46, 0, &h), SIW_TERM_DDP_UT_TOO_LONG,
		"ddp: Read Request without L -> 1/2/0x05");
	mk_untagged(b, DDP_UT_L, RDMAP(SIW_RDMAP_READ_REQ), 0, 1, 1, 0);
	eq_term(siw_ddp_check(b, 46, 47, 0, &h), SIW_TERM_DDP_UT_TOO_LONG,
		"ddp: Read Request 47 bytes long -> 1/2/0x05");
	eq_term(siw_ddp_check(b, 46, 45, 0, &h), SIW_TERM_RDMAP_OP_UNSPEC,
		"ddp: Read Request 45 bytes long -> 0/2/0xff");
	mk_untagged(b, DDP_UT, RDMAP(SIW_RDMAP_TERMINATE), 0, 2, 1, 0);
	eq_term(siw_ddp_check(b, 22, 22, 0, &h), SIW_TERM_DDP_UT_TOO_LONG,
		"ddp: Terminate without L -> 1/2/0x05");
	mk_untagged(b, DDP_UT_L, RDMAP(SIW_RDMAP_TERMINATE), 0, 2, 1, 8);
	eq_term(siw_ddp_check(b, 22, 22, 0, &h), SIW_TERM_DDP_UT_INVALID_MO,
		"ddp: Terminate with MO 8 -> 1/2/0x04");
	mk_untagged(b, DDP_UT_L, RDMAP(SIW_RDMAP_TERMINATE), 0, 2, 1, 0);
	eq_term(siw_ddp_check(b, 22, 21, 0, &h), SIW_TERM_RDMAP_OP_UNSPEC,
		"ddp: Terminate without its control word -> 0/2/0xff");

	mk_tagged(b, DDP_T_L, RDMAP(SIW_RDMAP_WRITE), 1, 0);
	eq_term(siw_ddp_check(b, 14, 13, 0, &h), SIW_TERM_RDMAP_OP_UNSPEC,
		"ddp: tagged segment of 13 bytes -> 0/2/0xff");
	mk_untagged(b, DDP_UT_L, RDMAP(SIW_RDMAP_SEND), 0, 0, 1, 0);
	eq_term(siw_ddp_check(b, 18, 17, 0, &h), SIW_TERM_RDMAP_OP_UNSPEC,
		"ddp: untagged segment of 17 bytes -> 0/2/0xff");
	eq_term(siw_ddp_check(b, 18, 0, 0, &h), SIW_TERM_RDMAP_OP_UNSPEC,
		"ddp: empty segment -> 0/2/0xff");

	eq_term(siw_ddp_check(b, 1, 100, 0, &h), SIW_TERM_NEED_MORE,
		"ddp: 1 byte handed in -> need more");
	eq_term(siw_ddp_check(b, 10, 100, 0, &h), SIW_TERM_NEED_MORE,
		"ddp: 10 of 18 header bytes -> need more");
	mk_untagged(b, DDP_UT_L, RDMAP(SIW_RDMAP_READ_REQ), 0, 1, 1, 0);
	ktap_ok(siw_ddp_check(b, 18, 46, 0, &h) == SIW_TERM_NEED_MORE &&
		h.hdr_len == 46,
		"ddp: Read Request with 18 bytes -> need 46");

	mk_untagged(b, DDP_UT_L | 0x04, RDMAP(SIW_RDMAP_SEND), 0, 0, 1, 0);
	ktap_ok(siw_ddp_check(b, 18, 18, 0, &h) == SIW_TERM_OK && h.rsvd_set,
		"ddp: DDP reserved bit: reported, accepted");
	eq_term(siw_ddp_check(b, 18, 18, SIW_DDP_STRICT, &h),
		SIW_TERM_RDMAP_OP_UNSPEC,
		"ddp: DDP reserved bit, strict -> 0/2/0xff");
	mk_untagged(b, DDP_UT_L, RDMAP(SIW_RDMAP_SEND) | 0x10, 0, 0, 1, 0);
	ktap_ok(siw_ddp_check(b, 18, 18, 0, &h) == SIW_TERM_OK && h.rsvd_set,
		"ddp: RDMAP reserved bit: reported, accepted");
	eq_term(siw_ddp_check(b, 18, 18, SIW_DDP_STRICT, &h),
		SIW_TERM_RDMAP_OP_UNSPEC,
		"ddp: RDMAP reserved bit, strict -> 0/2/0xff");
	mk_untagged(b, DDP_UT_L, RDMAP(SIW_RDMAP_SEND), 1, 0, 1, 0);
	ktap_ok(siw_ddp_check(b, 18, 18, 0, &h) == SIW_TERM_OK && h.rsvd_set,
		"ddp: RsvdULP set on a plain Send: reported, accepted");
	eq_term(siw_ddp_check(b, 18, 18, SIW_DDP_STRICT, &h),
		SIW_TERM_RDMAP_OP_UNSPEC,
		"ddp: RsvdULP set on a plain Send, strict -> 0/2/0xff");
}

static void test_ddp_sweep(void)
{
	u8 b[SIW_HDR_MAX];
	struct siw_hdr h;
	enum siw_term_code t;
	const struct siw_op_info *op;
	bool good = true;
	unsigned int c, lens[] = { 0, 13, 14, 18, 22, 45, 46, 47, 1000 };
	size_t i;

	/* Every control field, every critical length: OK only if sound. */
	for (c = 0; c < 0x10000; c++) {
		for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
			memset(b, 0, sizeof(b));
			b[0] = c >> 8;
			b[1] = c;
			b[9] = (c >> 8) & SIW_DDP_FLAG_T ? 0 :
				siw_op_info(c & 0xf) ?
				siw_op_info(c & 0xf)->qn : 0;
			t = siw_ddp_check(b, sizeof(b), lens[i], 0, &h);
			if (t == SIW_TERM_NEED_MORE ||
			    (t != SIW_TERM_OK && !siw_term_is_code(t))) {
				good = false;
				continue;
			}
			if (t != SIW_TERM_OK)
				continue;
			op = siw_op_info(h.opcode);
			if (!op || op->tagged != h.tagged ||
			    (b[0] & 3) != 1 || (b[1] >> 6) != 1 ||
			    lens[i] < op->hdr_len ||
			    h.payload_len != lens[i] - op->hdr_len ||
			    (op->single && !h.last))
				good = false;
		}
	}
	ktap_ok(good,
		"ddp: all 65536 control fields at 9 lengths: OK only when sound");
}

/* RFC 7306: Immediate Data, Atomic Request and Response, siw's EXT flag. */
static void test_rfc7306(void)
{
	struct siw_mpa_params ini, rsp;
	struct siw_mpa_info req, rep, in;
	struct siw_mpa_result r_res, i_res;
	struct siw_mem_view mv = { .valid = true, .same_pd = true,
				   .access = true, .base = 0x1000,
				   .len = 0x100 };
	struct siw_atomic_req a = { 0 };
	struct siw_hdr h, rx;
	u8 b[SIW_MPA_RR_MAX], f[SIW_HDR_MAX + 8];
	unsigned int c, i;
	size_t len;
	bool good;
	u32 n;

	/* MPA: the flag, in revision 2 only, negotiated like GSO. */
	len = mk_rr(b, "MPA ID Req Frame", 0x04, 2, 0, NULL, 0);
	ktap_ok(siw_mpa_parse(b, len, SIW_MPA_REQUEST, SIW_MPA_PARSE_STRICT, &in) ==
			SIW_MPA_OK && in.ext && !in.rsvd,
		"rfc7306: flag 0x04 of a rev 2 request parsed, not reserved");
	len = mk_rr(b, "MPA ID Req Frame", 0x04, 1, 0, NULL, 0);
	ktap_ok(siw_mpa_parse(b, len, SIW_MPA_REQUEST, 0, &in) == SIW_MPA_OK &&
		!in.ext && in.rsvd == 0x04,
		"rfc7306: 0x04 in rev 1 is a reserved bit, not the flag");
	default_params(&ini);
	default_params(&rsp);
	ini.ext = rsp.ext = true;
	siw_mpa_request_init(&ini, &req);
	good = siw_mpa_build(&req, b, sizeof(b), &len) == SIW_MPA_OK;
	ktap_ok(good && (b[16] & 0x04), "rfc7306: a rev 2 request carries 0x04");
	siw_mpa_respond(&rsp, &req, &r_res);
	siw_mpa_reply_init(&r_res, &rep);
	siw_mpa_check_reply(&ini, &rep, &i_res);
	ktap_ok(r_res.ext && rep.ext && i_res.ext,
		"rfc7306: both say it: both use it");
	rsp.ext = false;
	siw_mpa_respond(&rsp, &req, &r_res);
	siw_mpa_reply_init(&r_res, &rep);
	siw_mpa_check_reply(&ini, &rep, &i_res);
	ktap_ok(!r_res.ext && !rep.ext && !i_res.ext,
		"rfc7306: responder off: the reply has no flag, neither uses it");
	rsp.ext = true;
	ini.ext = false;
	siw_mpa_request_init(&ini, &req);
	siw_mpa_respond(&rsp, &req, &r_res);
	siw_mpa_reply_init(&r_res, &rep);
	ktap_ok(!req.ext && !r_res.ext && !rep.ext,
		"rfc7306: initiator off (any other peer): nothing in the reply");
	rep.ext = true;
	siw_mpa_check_reply(&ini, &rep, &i_res);
	ktap_ok(i_res.verdict == SIW_MPA_ACCEPT && !i_res.ext,
		"rfc7306: an unasked reply flag is ignored");
	ini.ext = true;
	ini.revision = 1;
	siw_mpa_request_init(&ini, &req);
	good = siw_mpa_build(&req, b, sizeof(b), &len) == SIW_MPA_OK;
	ktap_ok(good && !req.ext && !(b[16] & 0x04),
		"rfc7306: never in a rev 1 request");
	req.ext = true;
	eq_mpa(siw_mpa_build(&req, b, sizeof(b), &len), SIW_MPA_E_INVAL,
	       "rfc7306: encoding it in rev 1 refused");

	/* Immediate Data: encode, then check with and without the flag. */
	memset(&h, 0, sizeof(h));
	h.opcode = SIW_RDMAP_IMM_SE;
	h.msn = 9;
	h.imm = siw_imm_word(0xa1b2c3d4, SIW_IMM_FOR_WRITE);
	n = siw_hdr_encode(&h, f, sizeof(f));
	ktap_ok(n == SIW_IMM_HDR_LEN && f[0] == 0x41 && f[1] == 0x49 &&
		siw_get_be32(f + 6) == SIW_QN_SEND && siw_get_be32(f + 14) == 0 &&
		siw_get_be32(f + 18) == 0xa1b2c3d4 &&
		siw_get_be32(f + 22) == SIW_IMM_FOR_WRITE,
		"rfc7306: Immediate Data with SE encoded: QN 0, L, MO 0, 8 bytes");
	eq_term(siw_ddp_check(f, n, n, SIW_DDP_STRICT | SIW_DDP_EXT, &rx),
		SIW_TERM_OK, "rfc7306: Immediate Data accepted where negotiated");
	ktap_ok(rx.opcode == SIW_RDMAP_IMM_SE && rx.msn == 9 && rx.imm == h.imm &&
		!rx.payload_len, "rfc7306: Immediate Data decoded");
	eq_term(siw_ddp_check(f, n, n, 0, &rx), SIW_TERM_RDMAP_OPCODE,
		"rfc7306: Immediate Data without the flag: unexpected opcode");
	eq_u64(siw_ddp_hdr_len(f[0], f[1]), SIW_UNTAGGED_HDR_LEN,
	       "rfc7306: header length without the flag: the DDP header's");
	eq_u64(siw_ddp_hdr_len_flags(f[0], f[1], SIW_DDP_EXT), SIW_IMM_HDR_LEN,
	       "rfc7306: header length with it: 26");
	eq_term(siw_ddp_check(f, n, n + 1, SIW_DDP_EXT, &rx),
		SIW_TERM_DDP_UT_TOO_LONG,
		"rfc7306: Immediate Data with payload: too long");
	eq_term(siw_ddp_check(f, n, n - 1, SIW_DDP_EXT, &rx),
		SIW_TERM_RDMAP_OP_UNSPEC,
		"rfc7306: Immediate Data cut short: unspecified");
	eq_term(siw_ddp_check(f, n - 1, n, SIW_DDP_EXT, &rx),
		SIW_TERM_NEED_MORE, "rfc7306: Immediate Data header incomplete");
	f[0] = 0x01;
	eq_term(siw_ddp_check(f, n, n, SIW_DDP_EXT, &rx),
		SIW_TERM_DDP_UT_TOO_LONG,
		"rfc7306: Immediate Data without L: too long");
	f[0] = 0x41;
	siw_put_be32(f + 14, 8);
	eq_term(siw_ddp_check(f, n, n, SIW_DDP_EXT, &rx),
		SIW_TERM_DDP_UT_INVALID_MO, "rfc7306: Immediate Data at MO 8");
	siw_put_be32(f + 14, 0);
	siw_put_be32(f + 6, SIW_QN_RREQ);
	eq_term(siw_ddp_check(f, n, n, SIW_DDP_EXT, &rx),
		SIW_TERM_DDP_UT_INVALID_QN,
		"rfc7306: Immediate Data on QN 1: invalid QN");

	/* Atomic Request */
	memset(&h, 0, sizeof(h));
	h.opcode = SIW_RDMAP_ATOMIC_REQ;
	h.msn = 3;
	h.atomic.op = SIW_ATOMIC_CMP_SWAP;
	h.atomic.req_id = 0x77;
	h.atomic.stag = 0x1234;
	h.atomic.to = 0x1008;
	h.atomic.add_swap = 0x1111;
	h.atomic.add_swap_mask = ~0ULL;
	h.atomic.compare = 0x2222;
	h.atomic.compare_mask = 0xff;
	n = siw_hdr_encode(&h, f, sizeof(f));
	ktap_ok(n == SIW_ATOMIC_REQ_HDR_LEN && f[1] == 0x4a &&
		siw_get_be32(f + 6) == SIW_QN_RREQ && siw_get_be32(f + 18) == 2 &&
		siw_get_be32(f + 22) == 0x77 && siw_get_be32(f + 26) == 0x1234 &&
		siw_get_be64(f + 30) == 0x1008 && siw_get_be64(f + 38) == 0x1111 &&
		siw_get_be64(f + 46) == ~0ULL && siw_get_be64(f + 54) == 0x2222 &&
		siw_get_be64(f + 62) == 0xff,
		"rfc7306: Atomic Request encoded: QN 1, the 52-byte body in order");
	eq_term(siw_ddp_check(f, n, n, SIW_DDP_STRICT | SIW_DDP_EXT, &rx),
		SIW_TERM_OK, "rfc7306: Atomic Request accepted");
	ktap_ok(!memcmp(&rx.atomic, &h.atomic, sizeof(h.atomic)) && rx.msn == 3,
		"rfc7306: Atomic Request decoded");
	eq_term(siw_ddp_check(f, n, n + 4, SIW_DDP_EXT, &rx),
		SIW_TERM_DDP_UT_TOO_LONG, "rfc7306: Atomic Request with payload");
	f[18] = 0x80;
	eq_term(siw_ddp_check(f, n, n, SIW_DDP_EXT, &rx), SIW_TERM_OK,
		"rfc7306: Atomic Request, reserved bits of its opcode word: reported");
	ktap_ok(rx.rsvd_set && rx.atomic.op == SIW_ATOMIC_CMP_SWAP,
		"rfc7306: ... as reserved, the opcode still read");
	eq_term(siw_ddp_check(f, n, n, SIW_DDP_STRICT | SIW_DDP_EXT, &rx),
		SIW_TERM_RDMAP_OP_UNSPEC,
		"rfc7306: ... and refused when strict");
	f[18] = 0;

	/* Atomic Response */
	memset(&h, 0, sizeof(h));
	h.opcode = SIW_RDMAP_ATOMIC_RESP;
	h.msn = 1;
	h.atomic_resp.req_id = 0x77;
	h.atomic_resp.orig = 0x0102030405060708ULL;
	n = siw_hdr_encode(&h, f, sizeof(f));
	ktap_ok(n == SIW_ATOMIC_RESP_HDR_LEN && f[1] == 0x4b &&
		siw_get_be32(f + 6) == SIW_QN_ATOMIC_RESP &&
		siw_get_be32(f + 18) == 0x77 &&
		siw_get_be64(f + 22) == 0x0102030405060708ULL,
		"rfc7306: Atomic Response encoded: QN 3, identifier, value");
	eq_term(siw_ddp_check(f, n, n, SIW_DDP_STRICT | SIW_DDP_EXT, &rx),
		SIW_TERM_OK, "rfc7306: Atomic Response accepted");
	ktap_ok(rx.atomic_resp.req_id == 0x77 &&
		rx.atomic_resp.orig == 0x0102030405060708ULL,
		"rfc7306: Atomic Response decoded");
	eq_term(siw_ddp_check(f, n, n, 0, &rx), SIW_TERM_DDP_UT_INVALID_QN,
		"rfc7306: QN 3 without the flag: invalid QN");
	mk_untagged(f, DDP_UT_L, RDMAP(SIW_RDMAP_SEND), 0, SIW_QN_ATOMIC_RESP,
		    1, 0);
	eq_term(siw_ddp_check(f, 18, 18, SIW_DDP_EXT, &rx),
		SIW_TERM_DDP_UT_INVALID_QN,
		"rfc7306: a Send on QN 3: invalid QN");
	mk_untagged(f, DDP_UT_L, RDMAP(0xc), 0, 0, 1, 0);
	eq_term(siw_ddp_check(f, 18, 18, SIW_DDP_EXT, &rx),
		SIW_TERM_RDMAP_OPCODE, "rfc7306: opcode 0xc stays reserved");
	mk_tagged(f, DDP_T_L, RDMAP(SIW_RDMAP_ATOMIC_REQ), 1, 0);
	eq_term(siw_ddp_check(f, 14, 14, SIW_DDP_EXT, &rx),
		SIW_TERM_RDMAP_OPCODE,
		"rfc7306: Atomic Request with T: unexpected opcode");

	/* The checks of the target. */
	a.op = SIW_ATOMIC_FETCH_ADD;
	a.to = 0x1008;
	eq_term(siw_check_atomic(&mv, &a), SIW_TERM_OK,
		"rfc7306: atomic on 8 aligned bytes within the memory");
	a.to = 0x1004;
	eq_term(siw_check_atomic(&mv, &a), SIW_TERM_RDMAP_CATASTROPHIC_STREAM,
		"rfc7306: misaligned target: catastrophic, localized to the stream (section 8.2)");
	a.to = 0x10f8;
	eq_term(siw_check_atomic(&mv, &a), SIW_TERM_OK,
		"rfc7306: the last 8 bytes of the memory");
	a.to = 0x1100;
	eq_term(siw_check_atomic(&mv, &a), SIW_TERM_RDMAP_BASE_BOUNDS,
		"rfc7306: past the memory: base or bounds");
	a.to = 0x1008;
	a.op = 1;
	eq_term(siw_check_atomic(&mv, &a), SIW_TERM_RDMAP_OPCODE,
		"rfc7306: AtomicOp 1 (not ours): unexpected opcode");
	a.op = SIW_ATOMIC_CMP_SWAP;
	mv.access = false;
	eq_term(siw_check_atomic(&mv, &a), SIW_TERM_RDMAP_ACCESS,
		"rfc7306: no remote atomic access: access rights");
	mv.access = true;
	mv.valid = false;
	eq_term(siw_check_atomic(&mv, &a), SIW_TERM_RDMAP_INVALID_STAG,
		"rfc7306: invalid STag");
	mv.valid = true;
	mv.same_pd = false;
	eq_term(siw_check_atomic(&mv, &a), SIW_TERM_RDMAP_STAG_NOT_ASSOC,
		"rfc7306: STag of another PD");
	mv.same_pd = true;

	/* The results. */
	memset(&a, 0, sizeof(a));
	a.op = SIW_ATOMIC_FETCH_ADD;
	a.add_swap = 5;
	eq_u64(siw_atomic_result(&a, ~0ULL), 4,
	       "rfc7306: FetchAdd without a mask wraps at 64 bits");
	a.add_swap = 0x0000000100000001ULL;
	a.add_swap_mask = 0x8000000080000000ULL;
	eq_u64(siw_atomic_result(&a, 0x00000000ffffffffULL),
	       0x0000000100000000ULL,
	       "rfc7306: FetchAdd, two 32-bit fields: no carry between them");
	eq_u64(siw_atomic_result(&a, 0x7fffffff00000001ULL),
	       0x8000000000000002ULL,
	       "rfc7306: FetchAdd, two fields: carry into a field's top bit");
	a.op = SIW_ATOMIC_CMP_SWAP;
	a.compare = 0x1234;
	a.compare_mask = ~0ULL;
	a.add_swap = 0x9999;
	a.add_swap_mask = ~0ULL;
	eq_u64(siw_atomic_result(&a, 0x1234), 0x9999,
	       "rfc7306: CmpSwap, equal: swapped");
	eq_u64(siw_atomic_result(&a, 0x1235), 0x1235,
	       "rfc7306: CmpSwap, not equal: unchanged");
	a.compare_mask = 0xff00;
	a.add_swap_mask = 0x00ff;
	eq_u64(siw_atomic_result(&a, 0x12ab), 0x1299,
	       "rfc7306: CmpSwap, masks: compare some bits, swap others");
	a.op = 7;
	eq_u64(siw_atomic_result(&a, 0x55), 0x55,
	       "rfc7306: an unknown operation changes nothing");
	/* Against a bit-by-bit model of masked addition. */
	good = true;
	a.op = SIW_ATOMIC_FETCH_ADD;
	for (c = 0; c < 2000; c++) {
		u64 x = rnd(), y = rnd(), m = rnd() & rnd(), r = 0;
		unsigned int carry = 0;

		a.add_swap = y;
		a.add_swap_mask = m;
		for (i = 0; i < 64; i++) {
			unsigned int s = (x >> i & 1) + (y >> i & 1) + carry;

			r |= (u64)(s & 1) << i;
			carry = (m >> i & 1) ? 0 : s >> 1;
		}
		good &= siw_atomic_result(&a, x) == r;
	}
	ktap_ok(good, "rfc7306: masked FetchAdd equals a bit-by-bit model (2000)");

	/* Every control field with the flag: OK only when sound. */
	good = true;
	for (c = 0; c < 0x10000; c++) {
		static const unsigned int lens[] = { 18, 25, 26, 27, 30, 46,
						     69, 70, 71 };

		for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
			const struct siw_op_info *op;
			enum siw_term_code t;

			memset(f, 0, sizeof(f));
			f[0] = c >> 8;
			f[1] = c;
			op = siw_op_info(c & 0xf);
			f[9] = (c >> 8) & SIW_DDP_FLAG_T || !op ? 0 : op->qn;
			t = siw_ddp_check(f, sizeof(f), lens[i], SIW_DDP_EXT,
					  &rx);
			if (t == SIW_TERM_NEED_MORE ||
			    (t != SIW_TERM_OK && !siw_term_is_code(t))) {
				good = false;
				continue;
			}
			if (t != SIW_TERM_OK)
				continue;
			op = siw_op_info(rx.opcode);
			if (!op || op->tagged != rx.tagged ||
			    lens[i] < op->hdr_len ||
			    (op->exact && lens[i] != op->hdr_len) ||
			    rx.payload_len != lens[i] - op->hdr_len ||
			    (op->single && !rx.last))
				good = false;
		}
	}
	ktap_ok(good, "rfc7306: all 65536 control fields with the flag: OK only when sound");
}

static void test_msn_mo_len(void)
{
	eq_term(siw_ddp_check_msn(5, 5, true), SIW_TERM_OK, "msn: expected");
	eq_term(siw_ddp_check_msn(5, 6, true), SIW_TERM_DDP_UT_MSN_RANGE,
		"msn: one ahead -> 1/2/0x03");
	eq_term(siw_ddp_check_msn(5, 4, true), SIW_TERM_DDP_UT_MSN_RANGE,
		"msn: one behind -> 1/2/0x03");
	eq_term(siw_ddp_check_msn(5, 5, false), SIW_TERM_DDP_UT_MSN_NO_BUF,
		"msn: expected, nothing posted -> 1/2/0x02");
	eq_term(siw_ddp_check_msn(0, 0, true), SIW_TERM_OK,
		"msn: 0 after 2^32 - 1 wraps");
	eq_term(siw_ddp_check_mo(4096, 4096), SIW_TERM_OK, "mo: expected");
	eq_term(siw_ddp_check_mo(4096, 4095), SIW_TERM_DDP_UT_INVALID_MO,
		"mo: not where the last segment ended -> 1/2/0x04");
	eq_term(siw_ddp_check_untagged_len(100, 0, 100), SIW_TERM_OK,
		"len: segment fills the buffer");
	eq_term(siw_ddp_check_untagged_len(100, 50, 51),
		SIW_TERM_DDP_UT_TOO_LONG, "len: one byte over -> 1/2/0x05");
	eq_term(siw_ddp_check_untagged_len(100, 101, 0),
		SIW_TERM_DDP_UT_TOO_LONG, "len: MO past the end -> 1/2/0x05");
	eq_term(siw_ddp_check_untagged_len(0, 0, 0), SIW_TERM_OK,
		"len: empty into empty");
	eq_term(siw_ddp_check_untagged_len(0xffffffff, 0xffffffff, 0xffffffff),
		SIW_TERM_DDP_UT_TOO_LONG,
		"len: MO + length past 2^32 -> 1/2/0x05");
}

static void test_tagged(void)
{
	const u64 max = ~(u64)0;
	struct siw_mem_view m = {
		.valid = true, .same_pd = true, .access = true,
		.base = 0x1000, .len = 0x1000,
	};

	eq_term(siw_check_tagged_bounds(0x1000, 0x1000, 0x1000, 0x1000,
					SIW_TAG_SINK),
		SIW_TERM_OK, "bounds: the whole region");
	eq_term(siw_check_tagged_bounds(0x1000, 0x1000, 0x1001, 0x1000,
					SIW_TAG_SINK),
		SIW_TERM_DDP_T_BASE_BOUNDS,
		"bounds: one past the end, sink -> 1/1/0x01");
	eq_term(siw_check_tagged_bounds(0x1000, 0x1000, 0x1001, 0x1000,
					SIW_TAG_SOURCE),
		SIW_TERM_RDMAP_BASE_BOUNDS,
		"bounds: one past the end, source -> 0/1/0x01");
	eq_term(siw_check_tagged_bounds(0x1000, 0x1000, 0xfff, 1,
					SIW_TAG_SINK),
		SIW_TERM_DDP_T_BASE_BOUNDS, "bounds: one before the base");
	eq_term(siw_check_tagged_bounds(0x1000, 0x1000, 0x2000, 0,
					SIW_TAG_SINK),
		SIW_TERM_OK, "bounds: empty at the end");
	eq_term(siw_check_tagged_bounds(0x1000, 0x1000, 0x2001, 0,
					SIW_TAG_SINK),
		SIW_TERM_DDP_T_BASE_BOUNDS, "bounds: empty past the end");
	eq_term(siw_check_tagged_bounds(0, max, max, 2, SIW_TAG_SINK),
		SIW_TERM_DDP_T_TO_WRAP,
		"wrap: TO 2^64-1 + 2, sink -> 1/1/0x03");
	eq_term(siw_check_tagged_bounds(0, max, max, 2, SIW_TAG_SOURCE),
		SIW_TERM_RDMAP_TO_WRAP,
		"wrap: TO 2^64-1 + 2, source -> 0/1/0x04");
	eq_term(siw_check_tagged_bounds(max, 1, max, 1, SIW_TAG_SINK),
		SIW_TERM_OK, "wrap: last byte of the address space is no wrap");
	eq_term(siw_check_tagged_bounds(max - 4, 100, max - 4, 5,
					SIW_TAG_SINK),
		SIW_TERM_OK,
		"wrap: region whose base+len overflows, in bounds");
	eq_term(siw_check_tagged_bounds(max - 4, 100, max - 4, 6,
					SIW_TAG_SINK),
		SIW_TERM_DDP_T_TO_WRAP, "wrap: ... one byte more wraps");
	eq_term(siw_check_tagged_bounds(0, max, 1, max, SIW_TAG_SINK),
		SIW_TERM_DDP_T_BASE_BOUNDS,
		"bounds: TO 1 + 2^64-1 bytes ends at 2^64: bounds, not wrap");
	eq_term(siw_check_tagged_bounds(0, max, 0, max, SIW_TAG_SINK),
		SIW_TERM_OK, "bounds: 2^64-1 bytes from 0");
	eq_term(siw_check_tagged_bounds(0x1000, 0, 0x1000, 1, SIW_TAG_SINK),
		SIW_TERM_DDP_T_BASE_BOUNDS, "bounds: empty region");

	eq_term(siw_check_tagged(&m, 0x1800, 0x800, SIW_TAG_SINK), SIW_TERM_OK,
		"stag: valid sink access");
	m.valid = false;
	eq_term(siw_check_tagged(&m, 0x1800, 1, SIW_TAG_SINK),
		SIW_TERM_DDP_T_INVALID_STAG, "stag: invalid, sink -> 1/1/0x00");
	eq_term(siw_check_tagged(&m, 0x1800, 1, SIW_TAG_SOURCE),
		SIW_TERM_RDMAP_INVALID_STAG,
		"stag: invalid, source -> 0/1/0x00");
	eq_term(siw_check_tagged(&m, 0x1800, 0, SIW_TAG_SINK), SIW_TERM_OK,
		"stag: zero-length access is not checked");
	m.valid = true;
	m.same_pd = false;
	eq_term(siw_check_tagged(&m, 0x1800, 1, SIW_TAG_SINK),
		SIW_TERM_DDP_T_STAG_NOT_ASSOC,
		"stag: other PD, sink -> 1/1/0x02");
	eq_term(siw_check_tagged(&m, 0x1800, 1, SIW_TAG_SOURCE),
		SIW_TERM_RDMAP_STAG_NOT_ASSOC,
		"stag: other PD, source -> 0/1/0x03");
	m.same_pd = true;
	m.access = false;
	eq_term(siw_check_tagged(&m, 0x1800, 1, SIW_TAG_SINK),
		SIW_TERM_RDMAP_ACCESS, "stag: no access, sink -> 0/1/0x02");
	eq_term(siw_check_tagged(&m, 0x1800, 1, SIW_TAG_SOURCE),
		SIW_TERM_RDMAP_ACCESS, "stag: no access, source -> 0/1/0x02");
	m.access = true;
	eq_term(siw_check_tagged(&m, 0x1800, 0x801, SIW_TAG_SOURCE),
		SIW_TERM_RDMAP_BASE_BOUNDS, "stag: read past the end");

	eq_term(siw_check_invalidate(&m, true), SIW_TERM_OK,
		"invalidate: allowed");
	eq_term(siw_check_invalidate(&m, false), SIW_TERM_RDMAP_PROT_INVALIDATE,
		"invalidate: not invalidatable -> 0/1/0x09");
	m.valid = false;
	eq_term(siw_check_invalidate(&m, true), SIW_TERM_RDMAP_PROT_INVALIDATE,
		"invalidate: no such STag -> 0/1/0x09");

	eq_term(siw_check_ird(3, 4), SIW_TERM_OK, "ird: room for one more");
	eq_term(siw_check_ird(4, 4), SIW_TERM_RDMAP_CATASTROPHIC_STREAM,
		"ird: exceeded -> 0/2/0x07");
}

/* ------------------------------------------------------------------ */
/* Terminate                                                           */
/* ------------------------------------------------------------------ */

static void test_term_codes(void)
{
	static const struct {
		enum siw_term_code c;
		u8 l, t, e;
	} tab[] = {
		{ SIW_TERM_RDMAP_CATASTROPHIC, 0, 0, 0x00 },
		{ SIW_TERM_RDMAP_INVALID_STAG, 0, 1, 0x00 },
		{ SIW_TERM_RDMAP_BASE_BOUNDS, 0, 1, 0x01 },
		{ SIW_TERM_RDMAP_ACCESS, 0, 1, 0x02 },
		{ SIW_TERM_RDMAP_STAG_NOT_ASSOC, 0, 1, 0x03 },
		{ SIW_TERM_RDMAP_TO_WRAP, 0, 1, 0x04 },
		{ SIW_TERM_RDMAP_PROT_INVALIDATE, 0, 1, 0x09 },
		{ SIW_TERM_RDMAP_PROT_UNSPEC, 0, 1, 0xff },
		{ SIW_TERM_RDMAP_VERSION, 0, 2, 0x05 },
		{ SIW_TERM_RDMAP_OPCODE, 0, 2, 0x06 },
		{ SIW_TERM_RDMAP_CATASTROPHIC_STREAM, 0, 2, 0x07 },
		{ SIW_TERM_RDMAP_CATASTROPHIC_GLOBAL, 0, 2, 0x08 },
		{ SIW_TERM_RDMAP_OP_INVALIDATE, 0, 2, 0x09 },
		{ SIW_TERM_RDMAP_OP_UNSPEC, 0, 2, 0xff },
		{ SIW_TERM_DDP_CATASTROPHIC, 1, 0, 0x00 },
		{ SIW_TERM_DDP_T_INVALID_STAG, 1, 1, 0x00 },
		{ SIW_TERM_DDP_T_BASE_BOUNDS, 1, 1, 0x01 },
		{ SIW_TERM_DDP_T_STAG_NOT_ASSOC, 1, 1, 0x02 },
		{ SIW_TERM_DDP_T_TO_WRAP, 1, 1, 0x03 },
		{ SIW_TERM_DDP_T_VERSION, 1, 1, 0x04 },
		{ SIW_TERM_DDP_UT_INVALID_QN, 1, 2, 0x01 },
		{ SIW_TERM_DDP_UT_MSN_NO_BUF, 1, 2, 0x02 },
		{ SIW_TERM_DDP_UT_MSN_RANGE, 1, 2, 0x03 },
		{ SIW_TERM_DDP_UT_INVALID_MO, 1, 2, 0x04 },
		{ SIW_TERM_DDP_UT_TOO_LONG, 1, 2, 0x05 },
		{ SIW_TERM_DDP_UT_VERSION, 1, 2, 0x06 },
		{ SIW_TERM_MPA_LOST, 2, 0, 0x01 },
		{ SIW_TERM_MPA_CRC, 2, 0, 0x02 },
		{ SIW_TERM_MPA_MARKER, 2, 0, 0x03 },
		{ SIW_TERM_MPA_REQ_REP, 2, 0, 0x04 },
		{ SIW_TERM_MPA_CATASTROPHIC, 2, 0, 0x05 },
		{ SIW_TERM_MPA_IRD, 2, 0, 0x06 },
		{ SIW_TERM_MPA_NO_RTR, 2, 0, 0x07 },
	};
	bool good = true, named = true;
	size_t i;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		if (!siw_term_is_code(tab[i].c) ||
		    siw_term_layer(tab[i].c) != tab[i].l ||
		    siw_term_etype(tab[i].c) != tab[i].t ||
		    siw_term_ecode(tab[i].c) != tab[i].e) {
			printf("# %s is not %u/%u/0x%02x\n",
			       siw_term_name(tab[i].c), tab[i].l, tab[i].t,
			       tab[i].e);
			good = false;
		}
		if (!strcmp(siw_term_name(tab[i].c), "unknown"))
			named = false;
	}
	ktap_ok(good, "term: %zu codes carry the RFC layer/type/code",
		sizeof(tab) / sizeof(tab[0]));
	ktap_ok(named, "term: every code has a name");
	ktap_ok(!siw_term_is_code(SIW_TERM_OK) &&
		!siw_term_is_code(SIW_TERM_NEED_MORE) &&
		!strcmp(siw_term_name((enum siw_term_code)SIW_TERM(3, 3, 3)),
			"unknown"),
		"term: OK and NEED_MORE are not codes; strangers are unknown");
}

static void test_term_msg(void)
{
	u8 seg[SIW_MPA_LEN_LEN + SIW_HDR_MAX], out[SIW_TERM_ULPDU_MAX + 8];
	struct siw_term_msg tm;
	struct siw_hdr h;
	u32 n;

	/* Echo a Send: length field + 18-byte header. */
	seg[0] = 0;
	seg[1] = 30;
	mk_untagged(seg + 2, DDP_UT_L, RDMAP(SIW_RDMAP_SEND), 0, 1, 9, 0);
	n = siw_term_build(4, SIW_TERM_DDP_UT_INVALID_QN, seg, 20, out,
			   sizeof(out));
	ktap_ok(n == 42 && out[0] == 0x41 && out[1] == 0x47 && out[9] == 2 &&
		out[13] == 4 && out[17] == 0,
		"term build: Terminate on QN 2, MSN 4, L set, 42 bytes");
	ktap_ok(out[18] == 0x12 && out[19] == 0x01 && out[20] == 0xc0 &&
		out[21] == 0x00,
		"term build: control word 1/2/0x01 with M and D");
	ktap_ok(!memcmp(out + 22, seg, 20),
		"term build: segment length and header echoed");
	ktap_ok(siw_ddp_check(out, n, n, SIW_DDP_STRICT, &h) == SIW_TERM_OK &&
		h.opcode == SIW_RDMAP_TERMINATE && h.msn == 4 && h.payload_len == 20,
		"term build: the Terminate passes the receive check");
	ktap_ok(siw_term_decode(out + 18, n - 18, &tm) &&
		tm.code == SIW_TERM_DDP_UT_INVALID_QN && tm.seg_len_valid &&
		tm.seg_len == 30 && tm.ddp_hdr == out + 24 &&
		tm.ddp_hdr_len == 18 && !tm.rdma_hdr && !tm.rsvd_set,
		"term decode: code, segment length, DDP header");

	/* Echo a Read Request: header and body. */
	seg[1] = 46;
	mk_untagged(seg + 2, DDP_UT_L, RDMAP(SIW_RDMAP_READ_REQ), 0, 1, 2, 0);
	memset(seg + 20, 0x5a, 28);
	n = siw_term_build(1, SIW_TERM_RDMAP_INVALID_STAG, seg, 48, out,
			   sizeof(out));
	ktap_ok(n == 70 && out[18] == 0x01 && out[20] == 0xe0 &&
		!memcmp(out + 22, seg, 48),
		"term build: Read Request echoed with R, 70 bytes");
	ktap_ok(siw_term_decode(out + 18, n - 18, &tm) && tm.rdma_hdr == out + 42 &&
		tm.code == SIW_TERM_RDMAP_INVALID_STAG,
		"term decode: Read Request body found");
	ktap_ok(!siw_term_decode(out + 18, n - 19, &tm),
		"term decode: R announced, body one byte short -> refused");
	n = siw_term_build(1, SIW_TERM_RDMAP_INVALID_STAG, seg, 40, out,
			   sizeof(out));
	ktap_ok(n == 42 && out[20] == 0xc0,
		"term build: incomplete Read Request body is not echoed");

	/* Echo a Write: 14-byte header. */
	seg[1] = 100;
	mk_tagged(seg + 2, DDP_T_L, RDMAP(SIW_RDMAP_WRITE), 7, 0);
	n = siw_term_build(1, SIW_TERM_DDP_T_BASE_BOUNDS, seg, 16, out,
			   sizeof(out));
	ktap_ok(n == 38 && siw_term_decode(out + 18, n - 18, &tm) &&
		tm.ddp_hdr_len == 14 && tm.code == SIW_TERM_DDP_T_BASE_BOUNDS,
		"term: Write echoed with its 14-byte header");
	ktap_ok(!siw_term_decode(out + 18, n - 19, &tm),
		"term decode: D announced, header one byte short -> refused");

	n = siw_term_build(1, SIW_TERM_MPA_CRC, NULL, 0, out, sizeof(out));
	ktap_ok(n == 22 && out[18] == 0x20 && out[19] == 0x02 && out[20] == 0 &&
		siw_term_decode(out + 18, 4, &tm) && !tm.ddp_hdr &&
		tm.code == SIW_TERM_MPA_CRC,
		"term: CRC error without headers, 22 bytes");
	n = siw_term_build(1, SIW_TERM_DDP_T_BASE_BOUNDS, seg, 10, out,
			   sizeof(out));
	ktap_ok(n == 22 && out[20] == 0,
		"term build: a partial DDP header is not echoed");
	ktap_ok(siw_term_build(1, SIW_TERM_MPA_CRC, NULL, 0, out,
			       SIW_TERM_ULPDU_MAX - 1) == 0,
		"term build: short buffer refused");
	ktap_ok(!siw_term_decode(out + 18, 3, &tm),
		"term decode: 3 bytes refused");
	out[20] = 0x1f;
	out[21] = 0xff;
	ktap_ok(siw_term_decode(out + 18, 4, &tm) && tm.rsvd_set,
		"term decode: reserved bits reported");
}

/* ------------------------------------------------------------------ */
/* Random sweep: no parser reads outside its buffer (run under ASan)    */
/* ------------------------------------------------------------------ */

static void test_random(void)
{
	enum { ROUNDS = 200000 };
	struct siw_mpa_info in;
	struct siw_term_msg tm;
	struct siw_hdr h;
	bool good = true;
	unsigned int r;

	for (r = 0; r < ROUNDS; r++) {
		size_t len = rnd() % (SIW_MPA_RR_MAX + 8), i;
		u8 *b = malloc(len ? len : 1);
		u64 x = rnd();
		enum siw_mpa_err e;
		enum siw_term_code t;

		if (!b)
			abort();
		for (i = 0; i < len; i++)
			b[i] = rnd();
		/* Make the interesting paths likely. */
		if (len >= 20 && (x & 1)) {
			memcpy(b, x & 2 ? SIW_MPA_KEY_REQ : SIW_MPA_KEY_REP,
			       16);
			b[17] = 1 + ((x >> 2) & 1);
			b[18] = (x >> 3) & 3;
		}
		e = siw_mpa_parse(b, len, x & 2 ? SIW_MPA_REQUEST :
					       SIW_MPA_REPLY,
				  x & 4 ? SIW_MPA_PARSE_STRICT : 0, &in);
		if (e == SIW_MPA_OK &&
		    (in.frame_len > len ||
		     in.ulp_pd + in.ulp_pd_len > b + in.frame_len))
			good = false;

		if (len >= 2 && (x & 8)) {
			b[0] = (b[0] & ~3) | 1;
			b[1] = (b[1] & 0x3f) | 0x40;
		}
		t = siw_ddp_check(b, len, rnd() % 2000, x & 16, &h);
		if (t == SIW_TERM_OK && h.hdr_len > len)
			good = false;
		if (siw_term_decode(b, len, &tm) &&
		    ((tm.ddp_hdr && tm.ddp_hdr + tm.ddp_hdr_len > b + len) ||
		     (tm.rdma_hdr && tm.rdma_hdr + 28 > b + len)))
			good = false;
		free(b);
	}
	ktap_ok(good, "random: %u random frames through every parser", ROUNDS);
}

int main(void)
{
	ktap_header();
	test_crc32c();
	test_mpa_parse();
	test_mpa_v2();
	test_mpa_respond();
	test_mpa_initiator();
	test_mpa_exchange();
	test_mpa_gso();
	test_mpa_legacy();
	test_fpdu_sizes();
	test_fpdu_frame();
	test_ddp_valid();
	test_ddp_errors();
	test_ddp_sweep();
	test_rfc7306();
	test_msn_mo_len();
	test_tagged();
	test_term_codes();
	test_term_msg();
	test_random();
	return ktap_finished();
}
