// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * MPA connection setup: the request and reply frames (RFC 5044 section
 * 7.1, RFC 6581 section 7.1) and the decisions a responder and an
 * initiator take on them.
 *
 * A request or reply can lie about its length in these ways, each caught
 * before the byte it concerns is read:
 *   - it is shorter than the fixed 20-byte header;
 *   - PD_Length is above the 512 bytes MPA allows;
 *   - PD_Length is more than the bytes that arrived;
 *   - it claims the enhanced IRD/ORD words (S) with PD_Length under 4.
 *
 * Policy is pure: struct siw_mpa_params in, struct siw_mpa_result out.
 */
#include "proto.h"

static const char *const mpa_err_names[SIW_MPA_E_NUM] = {
	[SIW_MPA_OK]		= "ok",
	[SIW_MPA_E_SHORT_HDR]	= "header incomplete",
	[SIW_MPA_E_SHORT_PD]	= "private data incomplete",
	[SIW_MPA_E_KEY]		= "bad key",
	[SIW_MPA_E_KEY_KIND]	= "request/reply key mismatch",
	[SIW_MPA_E_REVISION]	= "unsupported revision",
	[SIW_MPA_E_RESERVED]	= "reserved bits set",
	[SIW_MPA_E_REJECT_REQ]	= "reject bit in request",
	[SIW_MPA_E_PD_LEN]	= "private data length above 512",
	[SIW_MPA_E_IRD_ORD]	= "enhanced frame without IRD/ORD",
	[SIW_MPA_E_LEGACY]	= "legacy IRD/ORD missing or zero",
	[SIW_MPA_E_NOSPACE]	= "buffer too small",
	[SIW_MPA_E_INVAL]	= "invalid field",
};

const char *siw_mpa_err_name(enum siw_mpa_err e)
{
	if ((unsigned int)e >= SIW_MPA_E_NUM)
		return "unknown";
	return mpa_err_names[e];
}

static const char *const mpa_reason_names[SIW_MPA_R_NUM] = {
	[SIW_MPA_R_NONE]	= "none",
	[SIW_MPA_R_MARKERS]	= "markers requested",
	[SIW_MPA_R_CRC]		= "CRC required",
	[SIW_MPA_R_REVISION]	= "revision",
	[SIW_MPA_R_IRD]		= "insufficient IRD",
	[SIW_MPA_R_RTR]		= "no matching RTR",
	[SIW_MPA_R_PEER_REJECT]	= "rejected by peer",
};

const char *siw_mpa_reason_name(enum siw_mpa_reason r)
{
	if ((unsigned int)r >= SIW_MPA_R_NUM)
		return "unknown";
	return mpa_reason_names[r];
}

static const u8 *mpa_key(enum siw_mpa_kind kind)
{
	return (const u8 *)(kind == SIW_MPA_REQUEST ? SIW_MPA_KEY_REQ :
						      SIW_MPA_KEY_REP);
}

enum siw_mpa_err siw_mpa_parse_hdr(const u8 *buf, size_t len,
				   enum siw_mpa_kind kind, unsigned int flags,
				   struct siw_mpa_info *out)
{
	enum siw_mpa_kind other = kind == SIW_MPA_REQUEST ? SIW_MPA_REPLY :
							    SIW_MPA_REQUEST;
	u8 f, rsvd_mask;

	memset(out, 0, sizeof(*out));
	out->kind = kind;
	out->frame_len = SIW_MPA_RR_HDR_LEN;
	if (len < SIW_MPA_RR_HDR_LEN)
		return SIW_MPA_E_SHORT_HDR;

	if (memcmp(buf, mpa_key(kind), SIW_MPA_KEY_LEN)) {
		if (!memcmp(buf, mpa_key(other), SIW_MPA_KEY_LEN))
			return SIW_MPA_E_KEY_KIND;
		return SIW_MPA_E_KEY;
	}

	f = buf[16];
	out->revision = buf[17];
	out->pd_len = siw_get_be16(buf + 18);
	out->markers = f & SIW_MPA_FLAG_M;
	out->crc = f & SIW_MPA_FLAG_C;
	out->reject = f & SIW_MPA_FLAG_R;
	out->gso = f & SIW_MPA_FLAG_GSO;

	if (out->revision != SIW_MPA_REV_1 && out->revision != SIW_MPA_REV_2)
		return SIW_MPA_E_REVISION;

	/* S only means something in revision 2; before, it is reserved. */
	if (out->revision == SIW_MPA_REV_2) {
		out->enhanced = f & SIW_MPA_FLAG_S;
		out->ext = f & SIW_MPA_FLAG_EXT;
		rsvd_mask = SIW_MPA_FLAGS_RSVD_V2;
	} else {
		rsvd_mask = SIW_MPA_FLAGS_RSVD_V1;
	}
	out->rsvd = f & rsvd_mask;
	if (out->rsvd && (flags & SIW_MPA_PARSE_STRICT))
		return SIW_MPA_E_RESERVED;

	if (kind == SIW_MPA_REQUEST && out->reject)
		return SIW_MPA_E_REJECT_REQ;

	/* Lie 2: more private data than MPA allows. */
	if (out->pd_len > SIW_MPA_PD_MAX)
		return SIW_MPA_E_PD_LEN;
	/* Lie 4: the IRD/ORD words cannot fit. */
	if (out->enhanced && out->pd_len < SIW_MPA_V2_CTRL_LEN)
		return SIW_MPA_E_IRD_ORD;

	out->frame_len = SIW_MPA_RR_HDR_LEN + out->pd_len;
	return SIW_MPA_OK;
}

/* The legacy IRD/ORD words ([MS-SMBD] 6.1), at out->ulp_pd. */
static enum siw_mpa_err parse_legacy(struct siw_mpa_info *out)
{
	u32 ird, ord;

	if (out->pd_len >= SIW_MPA_LEGACY_LEN) {
		ird = siw_get_be32(out->ulp_pd);
		ord = siw_get_be32(out->ulp_pd + 4);
	} else {
		ird = 0;
		ord = 0;
	}
	if (!ird || !ord) {
		/* A peer that refuses may not have sent them. */
		return out->reject ? SIW_MPA_OK : SIW_MPA_E_LEGACY;
	}
	out->legacy = true;
	out->ird = ird > SIW_MPA_V2_IRD_ORD_MAX ? SIW_MPA_V2_IRD_ORD_MAX : ird;
	out->ord = ord > SIW_MPA_V2_IRD_ORD_MAX ? SIW_MPA_V2_IRD_ORD_MAX : ord;
	out->ulp_pd += SIW_MPA_LEGACY_LEN;
	out->ulp_pd_len -= SIW_MPA_LEGACY_LEN;
	return SIW_MPA_OK;
}

enum siw_mpa_err siw_mpa_parse(const u8 *buf, size_t len,
			       enum siw_mpa_kind kind, unsigned int flags,
			       struct siw_mpa_info *out)
{
	const u8 *pd = buf + SIW_MPA_RR_HDR_LEN;
	enum siw_mpa_err err;
	u16 ird, ord;

	err = siw_mpa_parse_hdr(buf, len, kind, flags, out);
	if (err)
		return err;
	/* Lie 3: PD_Length beyond the bytes that arrived. */
	if (len < out->frame_len)
		return SIW_MPA_E_SHORT_PD;

	out->ulp_pd = pd;
	out->ulp_pd_len = out->pd_len;
	if (out->revision == SIW_MPA_REV_1 && (flags & SIW_MPA_PARSE_LEGACY))
		return parse_legacy(out);
	if (!out->enhanced)
		return SIW_MPA_OK;

	/* parse_hdr proved pd_len >= 4. */
	ird = siw_get_be16(pd);
	ord = siw_get_be16(pd + 2);
	out->ird = ird & SIW_MPA_V2_IRD_ORD_MAX;
	out->ord = ord & SIW_MPA_V2_IRD_ORD_MAX;
	out->p2p = ird & SIW_MPA_V2_P2P;
	if (ird & SIW_MPA_V2_RTR_SEND)
		out->rtr |= SIW_RTR_SEND;
	if (ord & SIW_MPA_V2_RTR_WRITE)
		out->rtr |= SIW_RTR_WRITE;
	if (ord & SIW_MPA_V2_RTR_READ)
		out->rtr |= SIW_RTR_READ;
	out->ulp_pd = pd + SIW_MPA_V2_CTRL_LEN;
	out->ulp_pd_len = out->pd_len - SIW_MPA_V2_CTRL_LEN;
	return SIW_MPA_OK;
}

enum siw_mpa_err siw_mpa_build(const struct siw_mpa_info *in, u8 *buf,
			       size_t buflen, size_t *written)
{
	u32 pd_len = in->ulp_pd_len;
	u8 *p = buf;
	u8 f = 0;

	*written = 0;
	if (in->revision != SIW_MPA_REV_1 && in->revision != SIW_MPA_REV_2)
		return SIW_MPA_E_INVAL;
	if (in->enhanced && in->revision != SIW_MPA_REV_2)
		return SIW_MPA_E_INVAL;
	if (in->legacy && (in->revision != SIW_MPA_REV_1 || !in->ird ||
			   !in->ord))
		return SIW_MPA_E_INVAL;
	if (in->kind == SIW_MPA_REQUEST && in->reject)
		return SIW_MPA_E_INVAL;
	if (!in->enhanced && (in->p2p || in->rtr))
		return SIW_MPA_E_INVAL;
	if (in->ird > SIW_MPA_V2_IRD_ORD_MAX ||
	    in->ord > SIW_MPA_V2_IRD_ORD_MAX || (in->rtr & ~SIW_RTR_ALL))
		return SIW_MPA_E_INVAL;
	if (in->ulp_pd_len && !in->ulp_pd)
		return SIW_MPA_E_INVAL;
	if (in->enhanced)
		pd_len += SIW_MPA_V2_CTRL_LEN;
	if (in->legacy)
		pd_len += SIW_MPA_LEGACY_LEN;
	if (pd_len > SIW_MPA_PD_MAX)
		return SIW_MPA_E_INVAL;
	if (buflen < SIW_MPA_RR_HDR_LEN + pd_len)
		return SIW_MPA_E_NOSPACE;

	if (in->markers)
		f |= SIW_MPA_FLAG_M;
	if (in->crc)
		f |= SIW_MPA_FLAG_C;
	if (in->reject)
		f |= SIW_MPA_FLAG_R;
	if (in->enhanced)
		f |= SIW_MPA_FLAG_S;
	if (in->gso)
		f |= SIW_MPA_FLAG_GSO;
	if (in->ext) {
		if (in->revision != SIW_MPA_REV_2)
			return SIW_MPA_E_INVAL;
		f |= SIW_MPA_FLAG_EXT;
	}

	memcpy(p, mpa_key(in->kind), SIW_MPA_KEY_LEN);
	p[16] = f;
	p[17] = in->revision;
	siw_put_be16(p + 18, pd_len);
	p += SIW_MPA_RR_HDR_LEN;

	if (in->enhanced) {
		u16 ird = in->ird, ord = in->ord;

		if (in->p2p)
			ird |= SIW_MPA_V2_P2P;
		if (in->rtr & SIW_RTR_SEND)
			ird |= SIW_MPA_V2_RTR_SEND;
		if (in->rtr & SIW_RTR_WRITE)
			ord |= SIW_MPA_V2_RTR_WRITE;
		if (in->rtr & SIW_RTR_READ)
			ord |= SIW_MPA_V2_RTR_READ;
		siw_put_be16(p, ird);
		siw_put_be16(p + 2, ord);
		p += SIW_MPA_V2_CTRL_LEN;
	}
	if (in->legacy) {
		siw_put_be32(p, in->ird);
		siw_put_be32(p + 4, in->ord);
		p += SIW_MPA_LEGACY_LEN;
	}
	if (in->ulp_pd_len)
		memcpy(p, in->ulp_pd, in->ulp_pd_len);

	*written = SIW_MPA_RR_HDR_LEN + pd_len;
	return SIW_MPA_OK;
}

static u16 min_u16(u16 a, u16 b)
{
	return a < b ? a : b;
}

/*
 * Pick one RTR type out of a set. A zero-length RDMA Write is preferred:
 * it consumes nothing at the receiver. Then a zero-length Read, then a
 * zero-length Send, which uses up a receive buffer.
 */
static u8 rtr_pick(u8 set)
{
	if (set & SIW_RTR_WRITE)
		return SIW_RTR_WRITE;
	if (set & SIW_RTR_READ)
		return SIW_RTR_READ;
	if (set & SIW_RTR_SEND)
		return SIW_RTR_SEND;
	return 0;
}

/* [MS-SMBD] 6.1 wants both words above zero. */
static u16 legacy_word(u16 v)
{
	v = min_u16(v, SIW_MPA_V2_IRD_ORD_MAX);
	return v ? v : 1;
}

static bool want_crc(const struct siw_mpa_params *local)
{
	return local->crc != SIW_MPA_CRC_OFF;
}

void siw_mpa_request_init(const struct siw_mpa_params *local,
			  struct siw_mpa_info *req)
{
	memset(req, 0, sizeof(*req));
	req->kind = SIW_MPA_REQUEST;
	req->revision = local->revision >= SIW_MPA_REV_2 ? SIW_MPA_REV_2 :
							   SIW_MPA_REV_1;
	req->crc = want_crc(local);
	if (req->revision == SIW_MPA_REV_2) {
		/* Only in revision 2, as upstream siw: 1 may be hardware. */
		req->gso = local->gso;
		req->ext = local->ext;
		req->enhanced = true;
		req->ird = min_u16(local->ird, SIW_MPA_V2_IRD_ORD_MAX);
		req->ord = min_u16(local->ord, SIW_MPA_V2_IRD_ORD_MAX);
		if (local->p2p && (local->rtr_types & SIW_RTR_ALL)) {
			req->p2p = true;
			req->rtr = local->rtr_types & SIW_RTR_ALL;
		}
	} else if (local->legacy) {
		req->legacy = true;
		req->ird = legacy_word(local->ird);
		req->ord = legacy_word(local->ord);
	}
}

/*
 * Responder: our ORD never exceeds the initiator's IRD; our IRD grows up
 * to max_ird to take the initiator's ORD. If it cannot, we reply with what
 * we have and the initiator lowers its ORD.
 */
static void respond_ird_ord(const struct siw_mpa_params *local,
			    const struct siw_mpa_info *req,
			    struct siw_mpa_result *res)
{
	res->ord = min_u16(local->ord, req->ird);
	if (res->ird < req->ord) {
		u16 cap = local->max_ird > local->ird ? local->max_ird :
							local->ird;

		res->ird = min_u16(req->ord, cap);
	}
	res->ird = min_u16(res->ird, SIW_MPA_V2_IRD_ORD_MAX);
}

/*
 * Responder (RFC 5044 section 7.1, RFC 6581 sections 6 and 7):
 *  - Markers requested: we never insert markers, so reject.
 *  - Revision: the lower of ours and the initiator's.
 *  - CRC: on if the initiator asked for it (the responder must then agree)
 *    or if we ask for it ourselves; the reply's C decides for both ways.
 *  - IRD/ORD (enhanced only): our ORD never exceeds the initiator's IRD;
 *    our IRD grows up to max_ird to take the initiator's ORD. If it cannot,
 *    we reply with what we have and the initiator lowers its ORD.
 *  - Peer-to-peer (enhanced only): if the initiator asks for it and we
 *    answer such requests (p2p_accept, on by default), pick one RTR type
 *    both accept, or reject. With p2p_accept off we reply without A; an
 *    initiator that can do without (siw) goes on without an RTR exchange,
 *    others (iw_cxgb4) close. Our own p2p setting is what we ask for as
 *    initiator; it plays no part here.
 *  - GSO-sized FPDUs: only if the initiator offered them and we allow
 *    them; the reply then carries the flag, and both ends use them.
 *  - RFC 7306 (siw's EXT flag, revision 2): the same way as GSO.
 *  - Legacy IRD/ORD (revision 1, both configured for it): as enhanced.
 */
void siw_mpa_respond(const struct siw_mpa_params *local,
		     const struct siw_mpa_info *req,
		     struct siw_mpa_result *res)
{
	u8 common;

	memset(res, 0, sizeof(*res));
	res->verdict = SIW_MPA_ACCEPT;
	res->revision = req->revision < local->revision ? req->revision :
							  local->revision;
	if (res->revision != SIW_MPA_REV_2)
		res->revision = SIW_MPA_REV_1;
	res->crc = req->crc || want_crc(local);
	res->ird = local->ird;
	res->ord = local->ord;
	res->gso = req->gso && local->gso;
	res->ext = req->ext && local->ext && res->revision == SIW_MPA_REV_2;

	if (req->markers) {
		res->verdict = SIW_MPA_REJECT;
		res->reason = SIW_MPA_R_MARKERS;
		return;
	}
	if (res->revision == SIW_MPA_REV_1 && req->legacy && local->legacy) {
		res->legacy = true;
		respond_ird_ord(local, req, res);
		return;
	}
	if (res->revision != SIW_MPA_REV_2 || !req->enhanced)
		return;

	res->enhanced = true;
	respond_ird_ord(local, req, res);

	if (!req->p2p || !local->p2p_accept)
		return;
	common = req->rtr & local->rtr_types & SIW_RTR_ALL;
	if (!common) {
		res->verdict = SIW_MPA_REJECT;
		res->reason = SIW_MPA_R_RTR;
		return;
	}
	res->p2p = true;
	res->rtr = rtr_pick(common);
}

void siw_mpa_reply_init(const struct siw_mpa_result *res,
			struct siw_mpa_info *rep)
{
	memset(rep, 0, sizeof(*rep));
	rep->kind = SIW_MPA_REPLY;
	rep->revision = res->revision;
	rep->crc = res->crc;
	rep->reject = res->verdict != SIW_MPA_ACCEPT;
	rep->enhanced = res->enhanced;
	rep->gso = res->gso && !rep->reject;
	rep->ext = res->ext && !rep->reject;
	if (res->enhanced) {
		rep->ird = res->ird;
		rep->ord = res->ord;
		rep->p2p = res->p2p;
		rep->rtr = res->p2p ? res->rtr : 0;
	}
	if (res->legacy) {
		rep->legacy = true;
		rep->ird = legacy_word(res->ird);
		rep->ord = legacy_word(res->ord);
	}
}

static void abort_with(struct siw_mpa_result *res, enum siw_mpa_reason why,
		       enum siw_term_code term)
{
	res->verdict = SIW_MPA_ABORT;
	res->reason = why;
	res->term = term;
}

/*
 * Initiator, on the reply to the request siw_mpa_request_init(local) made:
 *  - R set: the peer rejected us.
 *  - A revision above the one we sent is a broken reply.
 *  - M set: the peer wants markers toward it; we cannot frame them, so
 *    not even a Terminate could reach it: close.
 *  - C clear although we asked: RFC 5044 says the responder must agree.
 *    OFFERED goes on without CRC, REQUIRED closes.
 *  - IRD/ORD (enhanced): the responder may not read more than our IRD;
 *    we grow it up to max_ird or send Terminate "insufficient IRD". Our
 *    ORD shrinks to the responder's IRD.
 *  - P2P: the chosen RTR must be one we offered; a responder asking for
 *    an RTR we never offered gets Terminate "no matching RTR".
 *  - Legacy IRD/ORD (revision 1): IRD and ORD as with enhanced. A reply
 *    without them was refused by siw_mpa_parse() (SIW_MPA_PARSE_LEGACY).
 */
void siw_mpa_check_reply(const struct siw_mpa_params *local,
			 const struct siw_mpa_info *rep,
			 struct siw_mpa_result *res)
{
	struct siw_mpa_info req;
	u8 chosen;

	siw_mpa_request_init(local, &req);
	memset(res, 0, sizeof(*res));
	res->verdict = SIW_MPA_ACCEPT;
	res->revision = rep->revision;
	res->crc = rep->crc;
	res->ird = local->ird;
	res->ord = local->ord;
	res->gso = req.gso && rep->gso;
	res->ext = req.ext && rep->ext && rep->revision == SIW_MPA_REV_2;

	if (rep->reject) {
		res->verdict = SIW_MPA_REJECT;
		res->reason = SIW_MPA_R_PEER_REJECT;
		return;
	}
	if (rep->revision > req.revision) {
		abort_with(res, SIW_MPA_R_REVISION, SIW_TERM_OK);
		return;
	}
	if (rep->markers) {
		abort_with(res, SIW_MPA_R_MARKERS, SIW_TERM_OK);
		return;
	}
	if (req.crc && !rep->crc && local->crc == SIW_MPA_CRC_REQUIRED) {
		abort_with(res, SIW_MPA_R_CRC, SIW_TERM_OK);
		return;
	}
	if (req.legacy && rep->legacy)
		res->legacy = true;
	else if (req.enhanced && rep->enhanced)
		res->enhanced = true;
	else
		return;

	if (rep->ord > res->ird) {
		if (rep->ord > local->max_ird) {
			abort_with(res, SIW_MPA_R_IRD, SIW_TERM_MPA_IRD);
			return;
		}
		res->ird = rep->ord;
	}
	res->ord = min_u16(res->ord, rep->ird);

	if (!res->enhanced || !rep->p2p)
		return;
	chosen = rep->rtr & req.rtr;
	if (!req.p2p || !chosen) {
		abort_with(res, SIW_MPA_R_RTR, SIW_TERM_MPA_NO_RTR);
		return;
	}
	res->p2p = true;
	res->rtr = rtr_pick(chosen);
}
