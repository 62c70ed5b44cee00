// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * The receive byte stream cut into FPDUs: MPA length, DDP/RDMAP header,
 * payload, pad and CRC, arriving in pieces of any size. Part of the
 * protocol core (plain C, built for the host too): it owns the framing
 * and the checks of siw_ddp_check(); the receiver supplies, through
 * struct siw_rx_ops, where bytes come from, the checks against its own
 * state (memory, queues) and the placement.
 *
 * Every violation ends in exactly one Terminate decision (ops->fail);
 * after it the rest of the stream is consumed and dropped.
 */
#include "proto.h"

/* Takes the Terminate decision once; the stream is dead after it. */
static void siw_rx_stream_fail(struct siw_rx_stream *s,
			       const struct siw_rx_ops *ops, void *ctx,
			       enum siw_term_code code)
{
	if (s->dead)
		return;
	s->dead = true;
	ops->fail(ctx, s, code);
}

/* The header is complete: check it and set up its payload and trailer. */
static void siw_rx_stream_header(struct siw_rx_stream *s,
				 const struct siw_rx_ops *ops, void *ctx)
{
	enum siw_term_code code;

	s->ulpdu_len = siw_get_be16(s->hdr);
	code = siw_ddp_check(s->hdr + SIW_MPA_LEN_LEN,
			     s->hdr_have - SIW_MPA_LEN_LEN, s->ulpdu_len,
			     s->ddp_flags, &s->h);
	if (code == SIW_TERM_OK)
		code = ops->begin(ctx, s);
	if (code != SIW_TERM_OK) {
		siw_rx_stream_fail(s, ops, ctx, code);
		return;
	}
	/* Without a negotiated CRC no byte is summed, not even the header. */
	if (s->crc_on)
		s->crc = siw_mpa_crc_update(siw_mpa_crc_init(), s->hdr,
					    s->hdr_have);
	s->data_left = s->h.payload_len;
	s->trailer_len = siw_mpa_pad(s->ulpdu_len) + SIW_MPA_CRC_LEN;
	s->trailer_have = 0;
	s->phase = s->data_left ? SIW_RX_DATA : SIW_RX_TRAILER;
}

/* The trailer is complete: check the CRC and finish the FPDU. */
static void siw_rx_stream_trailer(struct siw_rx_stream *s,
				  const struct siw_rx_ops *ops, void *ctx)
{
	if (s->crc_on) {
		u32 pad = s->trailer_len - SIW_MPA_CRC_LEN;
		u32 crc = siw_mpa_crc_final(siw_mpa_crc_update(s->crc,
							       s->trailer,
							       pad));

		if (crc != siw_mpa_crc_get(s->trailer + pad)) {
			/* The header is not to be trusted, nor echoed. */
			s->hdr_have = 0;
			siw_rx_stream_fail(s, ops, ctx, SIW_TERM_MPA_CRC);
			return;
		}
	}
	ops->end(ctx, s);
	s->phase = SIW_RX_HDR;
	s->hdr_have = 0;
}

u32 siw_rx_stream_feed(struct siw_rx_stream *s, const struct siw_rx_ops *ops,
		       void *ctx, void *src, u32 off, u32 len)
{
	u32 left = len;

	while (left && !s->dead) {
		u32 n, want;

		switch (s->phase) {
		case SIW_RX_HDR:
			/* The length and both control bytes tell the rest. */
			want = s->hdr_have < 4 ? 4 :
			       SIW_MPA_LEN_LEN +
			       siw_ddp_hdr_len_flags(s->hdr[2], s->hdr[3],
						     s->ddp_flags);
			if (want > sizeof(s->hdr) ||
			    (s->hdr_have >= 4 && want <= s->hdr_have)) {
				siw_rx_stream_fail(s, ops, ctx,
						   SIW_TERM_RDMAP_OPCODE);
				break;
			}
			n = want - s->hdr_have < left ? want - s->hdr_have :
							left;
			if (ops->copy(src, off, s->hdr + s->hdr_have, n))
				goto fault;
			s->hdr_have += n;
			off += n;
			left -= n;
			if (s->hdr_have == want && want > 4)
				siw_rx_stream_header(s, ops, ctx);
			break;

		case SIW_RX_DATA:
			n = s->data_left < left ? s->data_left : left;
			if (ops->place(ctx, s, src, off, n)) {
				siw_rx_stream_fail(s, ops, ctx,
					SIW_TERM_RDMAP_CATASTROPHIC_STREAM);
				break;
			}
			off += n;
			left -= n;
			s->data_left -= n;
			if (!s->data_left)
				s->phase = SIW_RX_TRAILER;
			break;

		case SIW_RX_TRAILER:
			n = s->trailer_len - s->trailer_have;
			if (n > left)
				n = left;
			if (ops->copy(src, off, s->trailer + s->trailer_have,
				      n))
				goto fault;
			s->trailer_have += n;
			off += n;
			left -= n;
			if (s->trailer_have == s->trailer_len)
				siw_rx_stream_trailer(s, ops, ctx);
			break;
		}
	}
	/* After a Terminate decision the rest of the stream is dropped. */
	return len;

fault:
	siw_rx_stream_fail(s, ops, ctx, SIW_TERM_RDMAP_CATASTROPHIC_STREAM);
	return len;
}

void siw_rx_stream_reset(struct siw_rx_stream *s, bool crc_on)
{
	memset(s, 0, sizeof(*s));
	s->crc_on = crc_on;
}
