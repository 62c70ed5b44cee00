// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * libFuzzer target: what the receive path asks the protocol core about a
 * segment (siw/ddp_check.c, siw/rdmap.c, the module's own source).
 *
 * Input: 8 bytes of a registered region model (base, length, state and
 * rights), 2 bytes of MPA length, then the segment's bytes as they came.
 * Checked: the header check reads no byte past the ones handed in; a
 * header it accepts describes a segment that fits the MPA length; a
 * tagged placement it allows lies inside the modelled region (nothing is
 * written outside registered memory), and every refusal is a Terminate
 * code; a Terminate built for a refused header decodes back to the same
 * code; a received Terminate decodes without reading past its bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

#define CHECK(c) do { if (!(c)) abort(); } while (0)

static bool is_term(enum siw_term_code c)
{
	return c & SIW_TERM_VALID;
}

static void region_model(const uint8_t *m, struct siw_mem_view *v)
{
	v->valid = m[0] & 1;
	v->same_pd = m[0] & 2;
	v->access = m[0] & 4;
	/* Bases near the top of the address space exercise wrap checks. */
	v->base = (m[0] & 8) ? ~0ULL - ((u64)m[1] << 16) : (u64)m[1] << 12;
	v->len = (u64)(m[2] | m[3] << 8 | m[4] << 16) << (m[5] & 0x1f);
	if (m[6] & 1)
		v->len = ~0ULL - v->base + 1;	/* to the very end */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	u8 term[SIW_TERM_ULPDU_MAX], fpdu_hdr[SIW_FPDU_HDR_MAX];
	struct siw_mem_view view;
	struct siw_term_msg msg;
	enum siw_term_code code;
	struct siw_hdr h;
	unsigned int flags;
	u32 ulpdu_len, n;
	uint8_t *seg;
	size_t len;

	if (size < 10)
		return 0;
	region_model(data, &view);
	flags = (data[7] & 1) ? SIW_DDP_STRICT : 0;
	if (data[7] & 2)
		flags |= SIW_DDP_EXT;
	ulpdu_len = data[8] << 8 | data[9];
	data += 10;
	size -= 10;
	seg = malloc(size ? size : 1);
	if (!seg)
		return 0;
	memcpy(seg, data, size);

	/* The length the receive path reads before checking. */
	if (size >= 2) {
		n = siw_ddp_hdr_len_flags(seg[0], seg[1], flags);
		CHECK(n <= SIW_HDR_MAX);
	}
	code = siw_ddp_check(seg, size, ulpdu_len, flags, &h);
	CHECK(code == SIW_TERM_OK || code == SIW_TERM_NEED_MORE ||
	      is_term(code));
	if (code == SIW_TERM_NEED_MORE)
		CHECK(h.hdr_len > size);
	if (code == SIW_TERM_OK) {
		CHECK(h.hdr_len <= size && h.hdr_len <= ulpdu_len);
		CHECK(h.hdr_len + h.payload_len == ulpdu_len);
		CHECK(siw_op_info(h.opcode) != NULL);
		/* RFC 7306's opcodes only where negotiated, as one segment. */
		if (siw_op_info(h.opcode)->ext)
			CHECK((flags & SIW_DDP_EXT) && h.last && !h.mo);
		if (siw_op_info(h.opcode)->exact)
			CHECK(!h.payload_len);
		if (h.opcode == SIW_RDMAP_ATOMIC_REQ) {
			code = siw_check_atomic(&view, &h.atomic);
			CHECK(code == SIW_TERM_OK || is_term(code));
			/* Allowed: 8 aligned bytes inside the region. */
			if (code == SIW_TERM_OK) {
				CHECK(!(h.atomic.to & 7));
				CHECK(h.atomic.to >= view.base);
				CHECK(8 <= view.len - (h.atomic.to - view.base));
				CHECK(h.atomic.op == SIW_ATOMIC_FETCH_ADD ||
				      h.atomic.op == SIW_ATOMIC_CMP_SWAP);
			}
			/* Full masks: the verbs' compare-and-swap. */
			if (h.atomic.op == SIW_ATOMIC_CMP_SWAP &&
			    h.atomic.compare_mask == ~0ULL &&
			    h.atomic.add_swap_mask == ~0ULL)
				CHECK(siw_atomic_result(&h.atomic, view.base) ==
				      (view.base == h.atomic.compare ?
				       h.atomic.add_swap : view.base));
			if (h.atomic.op == SIW_ATOMIC_FETCH_ADD &&
			    !h.atomic.add_swap_mask)
				CHECK(siw_atomic_result(&h.atomic, view.len) ==
				      view.len + h.atomic.add_swap);
		}
		if (h.tagged) {
			code = siw_check_tagged(&view, h.to, h.payload_len,
						SIW_TAG_SINK);
			CHECK(code == SIW_TERM_OK || is_term(code));
			/* Allowed: every byte inside the region. */
			if (code == SIW_TERM_OK && h.payload_len) {
				CHECK(view.valid && view.same_pd && view.access);
				CHECK(h.to >= view.base);
				CHECK(h.to - view.base <= view.len);
				CHECK(h.payload_len <= view.len -
						       (h.to - view.base));
			}
		}
		if (h.opcode == SIW_RDMAP_READ_REQ) {
			code = siw_check_tagged(&view, h.rreq.src_to,
						h.rreq.size, SIW_TAG_SOURCE);
			if (code == SIW_TERM_OK && h.rreq.size) {
				CHECK(h.rreq.src_to >= view.base);
				CHECK(h.rreq.size <= view.len -
						     (h.rreq.src_to - view.base));
			}
		}
		code = siw_ddp_check_untagged_len(data[0] * 100ULL, h.mo,
						  h.payload_len);
		if (code == SIW_TERM_OK)
			CHECK((u64)h.mo + h.payload_len <= data[0] * 100ULL);
	} else if (is_term(code)) {
		/* Terminate for it, echoing what the receive path read. */
		len = size < SIW_HDR_MAX ? size : SIW_HDR_MAX;
		siw_put_be16(fpdu_hdr, ulpdu_len);
		memcpy(fpdu_hdr + SIW_MPA_LEN_LEN, seg, len);
		n = siw_term_build(1, code, fpdu_hdr, SIW_MPA_LEN_LEN + len,
				   term, sizeof(term));
		CHECK(n >= SIW_TERM_HDR_LEN && n <= sizeof(term));
		CHECK(siw_term_decode(term + SIW_UNTAGGED_HDR_LEN,
				      n - SIW_UNTAGGED_HDR_LEN, &msg));
		CHECK(msg.code == code);
	}

	/* The same bytes as a received Terminate's payload. */
	if (siw_term_decode(seg, size, &msg)) {
		if (msg.ddp_hdr)
			CHECK(msg.ddp_hdr >= seg &&
			      msg.ddp_hdr + msg.ddp_hdr_len <= seg + size);
		if (msg.rdma_hdr)
			CHECK(msg.rdma_hdr >= seg &&
			      msg.rdma_hdr + SIW_RREQ_BODY_LEN <= seg + size);
	}
	free(seg);
	return 0;
}
