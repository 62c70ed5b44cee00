// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * libFuzzer target: the MPA request/reply parser and the negotiation
 * policy of the protocol core (siw/mpa.c, the module's own source).
 *
 * Input: byte 0 picks the frame kind and the parse flags, byte 1 and 2
 * the local settings of the side that parses; the rest is the frame as
 * it came off the socket. Checked: the parser never reads past the bytes
 * handed in (AddressSanitizer), a frame it accepts encodes back to the
 * same bytes and parses to the same fields, and every decision keeps
 * IRD/ORD within the local limits and picks an RTR type both sides allow.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

static void local_params(uint8_t a, uint8_t b, struct siw_mpa_params *p)
{
	memset(p, 0, sizeof(*p));
	p->revision = (a & 1) ? SIW_MPA_REV_2 : SIW_MPA_REV_1;
	p->crc = (enum siw_mpa_crc_policy)((a >> 1) % 3);
	p->p2p = a & 0x8;
	p->p2p_accept = a & 0x80;
	p->rtr_types = (a >> 4) & SIW_RTR_ALL;
	p->ird = b & 0x7f;
	p->ord = (b >> 1) & 0x3f;
	p->max_ird = p->ird + ((b & 0x80) ? 64 : 0);
}

static void check_result(const struct siw_mpa_params *local,
			 const struct siw_mpa_result *res, u8 offered_rtr)
{
	if (res->verdict != SIW_MPA_ACCEPT)
		return;
	CHECK(res->revision == SIW_MPA_REV_1 || res->revision == SIW_MPA_REV_2);
	CHECK(res->revision <= local->revision);
	if (!res->enhanced)
		CHECK(!res->p2p);
	CHECK(res->ird <= SIW_MPA_V2_IRD_ORD_MAX);
	CHECK(res->ord <= local->ord || !res->enhanced);
	if (res->p2p) {
		/* Exactly one type, one that both sides accept. */
		CHECK(res->rtr == SIW_RTR_SEND || res->rtr == SIW_RTR_WRITE ||
		      res->rtr == SIW_RTR_READ);
		CHECK(res->rtr & local->rtr_types);
		CHECK(res->rtr & offered_rtr);
	}
	if (local->crc == SIW_MPA_CRC_REQUIRED)
		CHECK(res->crc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct siw_mpa_info info, again, rep;
	struct siw_mpa_params local;
	struct siw_mpa_result res;
	enum siw_mpa_kind kind;
	unsigned int flags;
	u8 out[SIW_MPA_RR_MAX];
	size_t len;
	uint8_t *frame;

	if (size < 3)
		return 0;
	kind = (data[0] & 1) ? SIW_MPA_REPLY : SIW_MPA_REQUEST;
	flags = (data[0] & 2) ? SIW_MPA_PARSE_STRICT : 0;
	local_params(data[1], data[2], &local);
	/* As cm.c: a device set for legacy IRD/ORD parses with the flag. */
	local.legacy = data[0] & 4;
	if (local.legacy)
		flags |= SIW_MPA_PARSE_LEGACY;
	local.ext = data[0] & 8;
	data += 3;
	size -= 3;
	/* A copy of exactly size bytes: ASan sees any read past the end. */
	frame = malloc(size ? size : 1);
	if (!frame)
		return 0;
	memcpy(frame, data, size);

	if (siw_mpa_parse_hdr(frame, size, kind, flags, &info) == SIW_MPA_OK)
		CHECK(info.frame_len >= SIW_MPA_RR_HDR_LEN);
	if (siw_mpa_parse(frame, size, kind, flags, &info) != SIW_MPA_OK)
		goto out;
	CHECK(info.frame_len <= size);
	CHECK(info.frame_len == SIW_MPA_RR_HDR_LEN + info.pd_len);
	CHECK(info.ulp_pd_len <= info.pd_len);
	if (info.ulp_pd_len)
		CHECK(info.ulp_pd >= frame &&
		      info.ulp_pd + info.ulp_pd_len <= frame + info.frame_len);

	if (info.legacy) {
		CHECK(info.revision == SIW_MPA_REV_1 && !info.enhanced);
		CHECK(info.ird && info.ord &&
		      info.ird <= SIW_MPA_V2_IRD_ORD_MAX &&
		      info.ord <= SIW_MPA_V2_IRD_ORD_MAX);
		CHECK(info.ulp_pd_len == info.pd_len - SIW_MPA_LEGACY_LEN);
	}

	/*
	 * Round trip: what parsed must encode to the same bytes, unless it
	 * carried reserved bits or fields the encoder never writes (legacy
	 * words above 14 bits, which parsing caps).
	 */
	if (!info.rsvd &&
	    !(info.legacy &&
	      (siw_get_be32(frame + SIW_MPA_RR_HDR_LEN) != info.ird ||
	       siw_get_be32(frame + SIW_MPA_RR_HDR_LEN + 4) != info.ord)) &&
	    siw_mpa_build(&info, out, sizeof(out), &len) == SIW_MPA_OK) {
		CHECK(len == info.frame_len);
		CHECK(!memcmp(out, frame, len));
		CHECK(siw_mpa_parse(out, len, kind, flags, &again) ==
		      SIW_MPA_OK);
		CHECK(again.revision == info.revision &&
		      again.crc == info.crc && again.markers == info.markers &&
		      again.enhanced == info.enhanced &&
		      again.ext == info.ext &&
		      again.ulp_pd_len == info.ulp_pd_len);
	}

	if (kind == SIW_MPA_REQUEST) {
		siw_mpa_respond(&local, &info, &res);
		check_result(&local, &res, info.rtr);
		/* A responder answers P only if it takes P2P requests. */
		if (res.p2p)
			CHECK(local.p2p_accept && info.p2p);
		if (info.markers)
			CHECK(res.verdict == SIW_MPA_REJECT);
		siw_mpa_reply_init(&res, &rep);
		CHECK(siw_mpa_build(&rep, out, sizeof(out), &len) ==
		      SIW_MPA_OK);
		/* The initiator parses with the flag if it sent the words. */
		CHECK(siw_mpa_parse(out, len, SIW_MPA_REPLY,
				    info.legacy ? SIW_MPA_PARSE_LEGACY : 0,
				    &again) == SIW_MPA_OK);
		if (res.legacy)
			CHECK(again.legacy && info.legacy);
		/* RFC 7306 only when both said it; the reply says so. */
		CHECK(res.ext == (local.ext && info.ext &&
				  res.revision == SIW_MPA_REV_2));
		CHECK(again.ext == (res.ext && res.verdict == SIW_MPA_ACCEPT));
	} else {
		struct siw_mpa_info req;

		siw_mpa_request_init(&local, &req);
		siw_mpa_check_reply(&local, &info, &res);
		check_result(&local, &res, req.rtr);
		if (info.markers && !info.reject)
			CHECK(res.verdict != SIW_MPA_ACCEPT);
		if (res.ext)
			CHECK(local.ext && req.ext && info.ext);
	}
out:
	free(frame);
	return 0;
}
