// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * Receive-side checks of DDP segments and the RDMAP messages they carry.
 * Each check returns SIW_TERM_OK or the Terminate the peer gets for it:
 * DDP codes from RFC 5041 section 7, RDMAP codes from RFC 5040 section 7.
 *
 * siw_ddp_check() looks at one header, the order of its checks being the
 * order of the layers: DDP (version, segment length, queue number), then
 * RDMAP (version, opcode, the opcode's queue, single-segment messages and
 * their length). Where no table entry names a violation exactly, the
 * choice is written next to it.
 *
 * A segment can lie about its length in these ways:
 *   - ULPDU_Length is shorter than the DDP header its T flag announces;
 *   - it is shorter than the header its opcode announces (the Read
 *     Request body, the Terminate control word);
 *   - an RDMA Read Request carries more than its 28-byte body.
 * The caller reads at least siw_ddp_hdr_len() bytes; fewer are refused
 * with SIW_TERM_NEED_MORE, never read.
 *
 * The helpers after it take what the QP and the memory layer know by
 * value: the expected MSN and MO, buffer length, the STag's state.
 */
#include "proto.h"

/* The opcode's table entry, if it is valid on this connection. */
static const struct siw_op_info *op_for(u8 opcode, unsigned int flags)
{
	const struct siw_op_info *op = siw_op_info(opcode);

	if (op && op->ext && !(flags & SIW_DDP_EXT))
		return NULL;
	return op;
}

u32 siw_ddp_hdr_len_flags(u8 ddp_ctrl, u8 rdmap_ctrl, unsigned int flags)
{
	const struct siw_op_info *op;
	bool tagged = ddp_ctrl & SIW_DDP_FLAG_T;

	op = op_for(rdmap_ctrl & SIW_RDMAP_OPCODE_MASK, flags);
	if (op && op->tagged == tagged)
		return op->hdr_len;
	return tagged ? SIW_TAGGED_HDR_LEN : SIW_UNTAGGED_HDR_LEN;
}

u32 siw_ddp_hdr_len(u8 ddp_ctrl, u8 rdmap_ctrl)
{
	return siw_ddp_hdr_len_flags(ddp_ctrl, rdmap_ctrl, 0);
}

static void get_rreq(const u8 *b, struct siw_rreq *r)
{
	r->sink_stag = siw_get_be32(b);
	r->sink_to = siw_get_be64(b + 4);
	r->size = siw_get_be32(b + 12);
	r->src_stag = siw_get_be32(b + 16);
	r->src_to = siw_get_be64(b + 20);
}

static void get_atomic_req(const u8 *b, struct siw_atomic_req *a)
{
	u32 w = siw_get_be32(b);

	a->op = w & SIW_ATOMIC_OP_MASK;
	a->op_rsvd = w & ~(u32)SIW_ATOMIC_OP_MASK;
	a->req_id = siw_get_be32(b + 4);
	a->stag = siw_get_be32(b + 8);
	a->to = siw_get_be64(b + 12);
	a->add_swap = siw_get_be64(b + 20);
	a->add_swap_mask = siw_get_be64(b + 28);
	a->compare = siw_get_be64(b + 36);
	a->compare_mask = siw_get_be64(b + 44);
}

/* The DDP header: its version, its length against the ULPDU, its fields. */
static enum siw_term_code check_ddp(const u8 *buf, size_t avail,
				    u32 ulpdu_len, unsigned int flags,
				    struct siw_hdr *out)
{
	u8 ddp = buf[0];
	u32 base = out->tagged ? SIW_TAGGED_HDR_LEN : SIW_UNTAGGED_HDR_LEN;

	if ((ddp & SIW_DDP_DV_MASK) != SIW_DDP_VERSION)
		return out->tagged ? SIW_TERM_DDP_T_VERSION :
				     SIW_TERM_DDP_UT_VERSION;
	/*
	 * Lie 1: no DDP header fits. No code names a runt segment; it is a
	 * malformed RDMAP stream, so "unspecified".
	 */
	if (ulpdu_len < base)
		return SIW_TERM_RDMAP_OP_UNSPEC;
	if (avail < base)
		return SIW_TERM_NEED_MORE;

	if (out->tagged) {
		out->stag = siw_get_be32(buf + 2);
		out->to = siw_get_be64(buf + 6);
		return SIW_TERM_OK;
	}
	out->rsvd_ulp = siw_get_be32(buf + 2);
	out->qn = siw_get_be32(buf + 6);
	out->msn = siw_get_be32(buf + 10);
	out->mo = siw_get_be32(buf + 14);
	if (out->qn >= (flags & SIW_DDP_EXT ? SIW_QN_NUM : SIW_QN_NUM_BASE))
		return SIW_TERM_DDP_UT_INVALID_QN;
	return SIW_TERM_OK;
}

/* The RDMAP opcode against the DDP header it came in, and the lengths. */
static enum siw_term_code check_rdmap(const struct siw_op_info *op,
				      u8 rdmap, u32 ulpdu_len,
				      struct siw_hdr *out)
{
	if ((rdmap & SIW_RDMAP_RV_MASK) >> SIW_RDMAP_RV_SHIFT !=
	    SIW_RDMAP_VERSION)
		return SIW_TERM_RDMAP_VERSION;
	/*
	 * Reserved opcodes, RFC 7306's where it was not negotiated, and
	 * tagged opcodes arriving untagged or back.
	 */
	if (!op || op->tagged != out->tagged)
		return SIW_TERM_RDMAP_OPCODE;
	/* A known untagged opcode on another opcode's queue. */
	if (!op->tagged && out->qn != op->qn)
		return SIW_TERM_DDP_UT_INVALID_QN;
	/*
	 * Read Request, Terminate and RFC 7306's messages are one segment
	 * each. A later segment (MO not 0) is an invalid MO; a first one
	 * that is not also the last announces a message longer than the
	 * single buffer it can have.
	 */
	if (op->single) {
		if (out->mo)
			return SIW_TERM_DDP_UT_INVALID_MO;
		if (!out->last)
			return SIW_TERM_DDP_UT_TOO_LONG;
	}
	/* Lie 2: the opcode's header does not fit ("unspecified" again). */
	if (ulpdu_len < op->hdr_len)
		return SIW_TERM_RDMAP_OP_UNSPEC;
	/*
	 * Lie 3: a Read Request is its 28-byte body, nothing more; so are
	 * RFC 7306's messages their bodies.
	 */
	if (op->exact && ulpdu_len > op->hdr_len)
		return SIW_TERM_DDP_UT_TOO_LONG;
	return SIW_TERM_OK;
}

/* The body after the DDP header, by what the message is. */
static enum siw_term_code get_body(const struct siw_op_info *op,
				   const u8 *body, unsigned int flags,
				   struct siw_hdr *out)
{
	switch (op->kind) {
	case SIW_MSG_READ_REQ:
		get_rreq(body, &out->rreq);
		break;
	case SIW_MSG_IMM:
		out->imm = siw_get_be64(body);
		break;
	case SIW_MSG_ATOMIC_REQ:
		get_atomic_req(body, &out->atomic);
		/* The 28 bits before AtomicOp are reserved. */
		if (out->atomic.op_rsvd) {
			out->rsvd_set = true;
			if (flags & SIW_DDP_STRICT)
				return SIW_TERM_RDMAP_OP_UNSPEC;
		}
		break;
	case SIW_MSG_ATOMIC_RESP:
		out->atomic_resp.req_id = siw_get_be32(body);
		out->atomic_resp.orig = siw_get_be64(body + 4);
		break;
	default:
		break;
	}
	return SIW_TERM_OK;
}

enum siw_term_code siw_ddp_check(const u8 *buf, size_t avail, u32 ulpdu_len,
				 unsigned int flags, struct siw_hdr *out)
{
	const struct siw_op_info *op;
	enum siw_term_code code;
	u8 ddp, rdmap;
	bool rsvd;

	memset(out, 0, sizeof(*out));
	out->hdr_len = SIW_TAGGED_HDR_LEN;
	if (avail < sizeof(struct siw_ctrl))
		return SIW_TERM_NEED_MORE;

	ddp = buf[0];
	rdmap = buf[1];
	out->tagged = ddp & SIW_DDP_FLAG_T;
	out->last = ddp & SIW_DDP_FLAG_L;
	out->opcode = rdmap & SIW_RDMAP_OPCODE_MASK;
	out->hdr_len = siw_ddp_hdr_len_flags(ddp, rdmap, flags);
	rsvd = (ddp & SIW_DDP_RSVD_MASK) || (rdmap & SIW_RDMAP_RSVD_MASK);

	code = check_ddp(buf, avail, ulpdu_len, flags, out);
	if (code != SIW_TERM_OK)
		return code;
	op = op_for(out->opcode, flags);
	code = check_rdmap(op, rdmap, ulpdu_len, out);
	if (code != SIW_TERM_OK)
		return code;
	if (!op->tagged && !op->inval && out->rsvd_ulp)
		rsvd = true;
	/*
	 * RFC 5040/5041 reserve these bits as zero on transmit, not checked
	 * on receive; strict checking reports them as "unspecified".
	 */
	out->rsvd_set = rsvd;
	if (rsvd && (flags & SIW_DDP_STRICT))
		return SIW_TERM_RDMAP_OP_UNSPEC;

	if (avail < op->hdr_len)
		return SIW_TERM_NEED_MORE;
	code = get_body(op, buf + SIW_UNTAGGED_HDR_LEN, flags, out);
	if (code != SIW_TERM_OK)
		return code;
	out->payload_len = ulpdu_len - op->hdr_len;
	return SIW_TERM_OK;
}

/*
 * TCP delivers in order, so each untagged message carries exactly the MSN
 * its queue expects next; any other is outside the valid range. The right
 * MSN with no buffer posted for it is "no buffer available".
 */
enum siw_term_code siw_ddp_check_msn(u32 expected, u32 got, bool have_buf)
{
	if (got != expected)
		return SIW_TERM_DDP_UT_MSN_RANGE;
	if (!have_buf)
		return SIW_TERM_DDP_UT_MSN_NO_BUF;
	return SIW_TERM_OK;
}

enum siw_term_code siw_ddp_check_mo(u32 expected, u32 got)
{
	return got == expected ? SIW_TERM_OK : SIW_TERM_DDP_UT_INVALID_MO;
}

enum siw_term_code siw_ddp_check_untagged_len(u64 buf_len, u32 mo,
					      u32 seg_len)
{
	if (mo > buf_len || seg_len > buf_len - mo)
		return SIW_TERM_DDP_UT_TOO_LONG;
	return SIW_TERM_OK;
}

enum siw_term_code siw_check_tagged_bounds(u64 base, u64 len, u64 to, u64 n,
					   enum siw_tag_ctx ctx)
{
	bool sink = ctx == SIW_TAG_SINK;

	/* The last byte, to + n - 1, must not pass 2^64 - 1. */
	if (n && n - 1 > ~(u64)0 - to)
		return sink ? SIW_TERM_DDP_T_TO_WRAP : SIW_TERM_RDMAP_TO_WRAP;
	/* to >= base and to + n <= base + len, neither sum formed. */
	if (to < base || to - base > len || n > len - (to - base))
		return sink ? SIW_TERM_DDP_T_BASE_BOUNDS :
			      SIW_TERM_RDMAP_BASE_BOUNDS;
	return SIW_TERM_OK;
}

/*
 * A zero-length access touches no memory and passes whatever its STag:
 * zero-length RDMA Writes and Reads are how peers send RTRs (RFC 6581).
 * DDP has no code for access rights, so a sink without remote write
 * permission gets RDMAP's "access rights violation" too.
 */
enum siw_term_code siw_check_tagged(const struct siw_mem_view *m, u64 to,
				    u64 n, enum siw_tag_ctx ctx)
{
	bool sink = ctx == SIW_TAG_SINK;

	if (!n)
		return SIW_TERM_OK;
	if (!m->valid)
		return sink ? SIW_TERM_DDP_T_INVALID_STAG :
			      SIW_TERM_RDMAP_INVALID_STAG;
	if (!m->same_pd)
		return sink ? SIW_TERM_DDP_T_STAG_NOT_ASSOC :
			      SIW_TERM_RDMAP_STAG_NOT_ASSOC;
	if (!m->access)
		return SIW_TERM_RDMAP_ACCESS;
	return siw_check_tagged_bounds(m->base, m->len, to, n, ctx);
}

/*
 * A Read Response for the oldest outstanding Read, if any (have): it must
 * go to that Read's sink, at the offset reached so far (sink_stag,
 * sink_to), and fit the left bytes. The sink memory itself is checked by
 * the caller, as for any tagged placement.
 */
enum siw_term_code siw_check_read_resp(bool have, u32 sink_stag, u64 sink_to,
				       u64 left, const struct siw_hdr *h)
{
	/* A response nobody asked for. */
	if (!have)
		return SIW_TERM_RDMAP_OPCODE;
	if (h->payload_len > left)
		return SIW_TERM_DDP_T_BASE_BOUNDS;
	if (!h->payload_len)
		return SIW_TERM_OK;
	/* Not for what we asked. */
	if (h->stag != sink_stag || h->to != sink_to)
		return SIW_TERM_DDP_T_INVALID_STAG;
	return SIW_TERM_OK;
}

/*
 * Send with Invalidate names an STag that does not exist, is not ours, or
 * may not be invalidated remotely (RFC 5040 section 5.3): all of these are
 * "STag cannot be invalidated", reported as a remote protection error.
 */
enum siw_term_code siw_check_invalidate(const struct siw_mem_view *m,
					bool invalidatable)
{
	if (!m->valid || !m->same_pd || !invalidatable)
		return SIW_TERM_RDMAP_PROT_INVALIDATE;
	return SIW_TERM_OK;
}

/*
 * More RDMA Read Requests than the IRD we advertised: the peer broke the
 * negotiated limit, which ends the stream ("catastrophic error, localized
 * to RDMAP stream").
 */
enum siw_term_code siw_check_ird(u32 outstanding, u32 ird)
{
	return outstanding < ird ? SIW_TERM_OK :
				   SIW_TERM_RDMAP_CATASTROPHIC_STREAM;
}

/*
 * RFC 7306 Atomic Request. An operation we do not know is an unexpected
 * opcode. The memory checks are a Read Request source's (RDMAP codes),
 * with remote atomic access asked. The 8 bytes must be 8-byte aligned: an
 * operand that straddles its natural boundary cannot be updated as one,
 * so a misaligned offset is reported as a base or bounds violation.
 */
enum siw_term_code siw_check_atomic(const struct siw_mem_view *m,
				    const struct siw_atomic_req *a)
{
	enum siw_term_code code;

	if (a->op != SIW_ATOMIC_FETCH_ADD && a->op != SIW_ATOMIC_CMP_SWAP)
		return SIW_TERM_RDMAP_OPCODE;
	code = siw_check_tagged(m, a->to, SIW_ATOMIC_LEN, SIW_TAG_SOURCE);
	if (code != SIW_TERM_OK)
		return code;
	/*
	 * RFC 7306 section 8.2: a target that is not 64-bit aligned is a
	 * Remote Operation Error, "catastrophic error, localized to RDMAP
	 * stream".
	 */
	if (a->to & (SIW_ATOMIC_LEN - 1))
		return SIW_TERM_RDMAP_CATASTROPHIC_STREAM;
	return SIW_TERM_OK;
}

/*
 * FetchAdd adds Add Data; a bit set in Add Mask ends a field, so no carry
 * leaves that bit: adding with the field-ending bits taken out of both
 * operands, then putting their sum bit (a XOR b XOR the carry that came
 * in) back, drops exactly those carries. An all-zero mask is a plain
 * 64-bit add.
 *
 * CmpSwap compares the bits of Compare Mask; if they equal Compare Data,
 * the bits of Swap Mask take Swap Data's. All-ones masks are the verbs'
 * plain compare-and-swap.
 */
u64 siw_atomic_result(const struct siw_atomic_req *a, u64 orig)
{
	u64 m;

	switch (a->op) {
	case SIW_ATOMIC_FETCH_ADD:
		m = a->add_swap_mask;
		return ((orig & ~m) + (a->add_swap & ~m)) ^
		       ((orig ^ a->add_swap) & m);
	case SIW_ATOMIC_CMP_SWAP:
		if ((orig ^ a->compare) & a->compare_mask)
			return orig;
		m = a->add_swap_mask;
		return (orig & ~m) | (a->add_swap & m);
	default:
		return orig;
	}
}
