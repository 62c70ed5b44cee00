// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * The Terminate message (RFC 5040 section 4.8): the codes' names, and
 * building and decoding it.
 *
 * A received Terminate can lie about its length by announcing, in its
 * M/D/R bits, headers it does not carry: the DDP segment length and the
 * terminated DDP header (D), whose own T flag decides whether it is 14 or
 * 18 bytes, and the 28-byte Read Request (R). Each is checked against the
 * bytes present before it is looked at.
 */
#include "proto.h"

static const struct {
	enum siw_term_code code;
	const char *name;
} term_names[] = {
	{ SIW_TERM_OK,			"no error" },
	{ SIW_TERM_NEED_MORE,		"header incomplete" },
	{ SIW_TERM_RDMAP_CATASTROPHIC,	"RDMAP: local catastrophic" },
	{ SIW_TERM_RDMAP_INVALID_STAG,	"RDMAP: invalid STag" },
	{ SIW_TERM_RDMAP_BASE_BOUNDS,	"RDMAP: base or bounds violation" },
	{ SIW_TERM_RDMAP_ACCESS,	"RDMAP: access rights violation" },
	{ SIW_TERM_RDMAP_STAG_NOT_ASSOC,
	  "RDMAP: STag not associated with RDMAP stream" },
	{ SIW_TERM_RDMAP_TO_WRAP,	"RDMAP: TO wrap" },
	{ SIW_TERM_RDMAP_PROT_INVALIDATE, "RDMAP: STag cannot be invalidated" },
	{ SIW_TERM_RDMAP_PROT_UNSPEC,	"RDMAP: unspecified protection error" },
	{ SIW_TERM_RDMAP_VERSION,	"RDMAP: invalid RDMAP version" },
	{ SIW_TERM_RDMAP_OPCODE,	"RDMAP: unexpected opcode" },
	{ SIW_TERM_RDMAP_CATASTROPHIC_STREAM,
	  "RDMAP: catastrophic error, localized to RDMAP stream" },
	{ SIW_TERM_RDMAP_CATASTROPHIC_GLOBAL,
	  "RDMAP: catastrophic error, global" },
	{ SIW_TERM_RDMAP_OP_INVALIDATE,	"RDMAP: STag cannot be invalidated" },
	{ SIW_TERM_RDMAP_OP_UNSPEC,	"RDMAP: unspecified operation error" },
	{ SIW_TERM_DDP_CATASTROPHIC,	"DDP: local catastrophic" },
	{ SIW_TERM_DDP_T_INVALID_STAG,	"DDP: invalid STag" },
	{ SIW_TERM_DDP_T_BASE_BOUNDS,	"DDP: base or bounds violation" },
	{ SIW_TERM_DDP_T_STAG_NOT_ASSOC,
	  "DDP: STag not associated with DDP stream" },
	{ SIW_TERM_DDP_T_TO_WRAP,	"DDP: TO wrap" },
	{ SIW_TERM_DDP_T_VERSION,	"DDP: invalid DDP version (tagged)" },
	{ SIW_TERM_DDP_UT_INVALID_QN,	"DDP: invalid QN" },
	{ SIW_TERM_DDP_UT_MSN_NO_BUF,	"DDP: invalid MSN, no buffer" },
	{ SIW_TERM_DDP_UT_MSN_RANGE,	"DDP: invalid MSN, out of range" },
	{ SIW_TERM_DDP_UT_INVALID_MO,	"DDP: invalid MO" },
	{ SIW_TERM_DDP_UT_TOO_LONG,	"DDP: message too long for buffer" },
	{ SIW_TERM_DDP_UT_VERSION,	"DDP: invalid DDP version (untagged)" },
	{ SIW_TERM_MPA_LOST,		"MPA: TCP connection lost" },
	{ SIW_TERM_MPA_CRC,		"MPA: CRC error" },
	{ SIW_TERM_MPA_MARKER,		"MPA: marker/ULPDU length mismatch" },
	{ SIW_TERM_MPA_REQ_REP,		"MPA: invalid request or reply frame" },
	{ SIW_TERM_MPA_CATASTROPHIC,	"MPA: local catastrophic" },
	{ SIW_TERM_MPA_IRD,		"MPA: insufficient IRD resources" },
	{ SIW_TERM_MPA_NO_RTR,		"MPA: no matching RTR option" },
};

const char *siw_term_name(enum siw_term_code c)
{
	size_t i;

	for (i = 0; i < sizeof(term_names) / sizeof(term_names[0]); i++)
		if (term_names[i].code == c)
			return term_names[i].name;
	return "unknown";
}

bool siw_term_decode(const u8 *body, size_t len, struct siw_term_msg *out)
{
	const u8 *p = body, *end = body + len;
	u32 ctrl;

	memset(out, 0, sizeof(*out));
	if (len < SIW_TERM_CTRL_LEN)
		return false;
	ctrl = siw_get_be32(p);
	p += SIW_TERM_CTRL_LEN;

	out->code = (enum siw_term_code)(SIW_TERM_VALID | ctrl >> 16);
	out->seg_len_valid = ctrl & SIW_TERM_CTRL_M;
	out->rsvd_set = ctrl & SIW_TERM_CTRL_RSVD;

	if (ctrl & SIW_TERM_CTRL_D) {
		u8 hl;

		/* The length field and the DDP header's first byte. */
		if (end - p < SIW_MPA_LEN_LEN + 1)
			return false;
		out->seg_len = siw_get_be16(p);
		p += SIW_MPA_LEN_LEN;
		hl = p[0] & SIW_DDP_FLAG_T ? SIW_TAGGED_HDR_LEN :
					     SIW_UNTAGGED_HDR_LEN;
		if (end - p < hl)
			return false;
		out->ddp_hdr = p;
		out->ddp_hdr_len = hl;
		p += hl;
	}
	if (ctrl & SIW_TERM_CTRL_R) {
		if (end - p < SIW_RREQ_BODY_LEN)
			return false;
		out->rdma_hdr = p;
	}
	return true;
}

u32 siw_term_build(u32 msn, enum siw_term_code code, const u8 *fpdu_hdr,
		   size_t fpdu_hdr_len, u8 *buf, size_t buflen)
{
	struct siw_hdr h = {
		.opcode = SIW_RDMAP_TERMINATE,
		.last = true,
		.msn = msn,
	};
	u32 ctrl = (u32)(code & 0xffff) << 16;
	u8 *p = buf + SIW_TERM_HDR_LEN;

	if (buflen < SIW_TERM_ULPDU_MAX)
		return 0;
	if (!siw_hdr_encode(&h, buf, buflen))
		return 0;

	if (fpdu_hdr && fpdu_hdr_len >= SIW_MPA_LEN_LEN + 1) {
		const u8 *ddp = fpdu_hdr + SIW_MPA_LEN_LEN;
		size_t have = fpdu_hdr_len - SIW_MPA_LEN_LEN;
		u8 hl = ddp[0] & SIW_DDP_FLAG_T ? SIW_TAGGED_HDR_LEN :
						  SIW_UNTAGGED_HDR_LEN;

		if (have >= hl) {
			ctrl |= SIW_TERM_CTRL_M | SIW_TERM_CTRL_D;
			memcpy(p, fpdu_hdr, SIW_MPA_LEN_LEN + hl);
			p += SIW_MPA_LEN_LEN + hl;

			/* An untagged Read Request: echo its body too. */
			if (hl == SIW_UNTAGGED_HDR_LEN &&
			    (ddp[1] & SIW_RDMAP_OPCODE_MASK) ==
			    SIW_RDMAP_READ_REQ &&
			    have >= SIW_RREQ_HDR_LEN) {
				ctrl |= SIW_TERM_CTRL_R;
				memcpy(p, ddp + hl, SIW_RREQ_BODY_LEN);
				p += SIW_RREQ_BODY_LEN;
			}
		}
	}
	siw_put_be32(buf + SIW_UNTAGGED_HDR_LEN, ctrl);
	return p - buf;
}
