// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * Transmit framing: how much of a message goes into one FPDU, what its
 * DDP/RDMAP header says, and the MPA pad and CRC that close it.
 *
 * Sizing. Without markers an FPDU is 2 + ULPDU + pad + 4 bytes, and pad
 * rounds 2 + ULPDU up to a multiple of 4, so every FPDU length is a
 * multiple of 4. The largest one that fits an effective MSS is therefore
 * EMSS rounded down to a multiple of 4, and its ULPDU is 6 bytes shorter:
 *
 *	MULPDU = EMSS - (6 + EMSS mod 4)
 *
 * which is RFC 5044's formula with the marker term dropped. The ULPDU is
 * one DDP segment, header included, so each FPDU carries MULPDU - hdr_len
 * payload bytes, the last one what is left. MULPDU is capped at the
 * 16-bit ULPDU_Length field, 65535.
 */
#include "proto.h"

u32 siw_mpa_mulpdu(u32 emss)
{
	u32 overhead = SIW_MPA_LEN_LEN + SIW_MPA_CRC_LEN + (emss & 3);

	if (emss <= overhead)
		return 0;
	if (emss - overhead > SIW_MPA_ULPDU_MAX)
		return SIW_MPA_ULPDU_MAX;
	return emss - overhead;
}

/*
 * With GSO-sized FPDUs (both ends set SIW_MPA_FLAG_GSO), the effective
 * MSS is as many whole MSS as one GSO packet of the socket holds once TCP
 * and IP headers (hdr_room) are taken off: an FPDU then goes to the NIC,
 * or the GSO code, as one super-packet. At least one MSS.
 */
u32 siw_gso_emss(u32 mss, u32 gso_max_size, u32 gso_max_segs, u32 hdr_room)
{
	u32 segs = 1;

	if (!mss)
		return 0;
	if (gso_max_size > hdr_room)
		segs = (gso_max_size - hdr_room) / mss;
	if (segs > gso_max_segs)
		segs = gso_max_segs;
	if (segs < 1)
		segs = 1;
	/* No FPDU is longer than the 16-bit ULPDU length allows anyway. */
	if ((u64)mss * segs > SIW_MPA_ULPDU_MAX + 6)
		segs = (SIW_MPA_ULPDU_MAX + 6) / mss ? : 1;
	return mss * segs;
}

bool siw_fpdu_plan(u32 mulpdu, u32 hdr_len, u32 remaining,
		   struct siw_fpdu *f)
{
	u32 room, take;

	memset(f, 0, sizeof(*f));
	if (mulpdu > SIW_MPA_ULPDU_MAX)
		mulpdu = SIW_MPA_ULPDU_MAX;
	if (hdr_len > mulpdu)
		return false;
	room = mulpdu - hdr_len;
	if (!room && remaining)
		return false;

	take = remaining < room ? remaining : room;
	f->payload = take;
	f->ulpdu_len = hdr_len + take;
	f->pad = siw_mpa_pad(f->ulpdu_len);
	f->wire_len = siw_fpdu_wire_len(f->ulpdu_len);
	f->last = take == remaining;
	return true;
}

u32 siw_fpdu_count(u32 mulpdu, u32 hdr_len, u32 msg_len)
{
	u32 room;

	if (mulpdu > SIW_MPA_ULPDU_MAX)
		mulpdu = SIW_MPA_ULPDU_MAX;
	if (hdr_len > mulpdu)
		return 0;
	room = mulpdu - hdr_len;
	if (!msg_len)
		return 1;
	if (!room)
		return 0;
	/* Round up without msg_len + room - 1 overflowing. */
	return msg_len / room + (msg_len % room ? 1 : 0);
}

static void put_ctrl(u8 *buf, const struct siw_op_info *op, u8 opcode,
		     bool last)
{
	u8 ddp = SIW_DDP_VERSION;

	if (op->tagged)
		ddp |= SIW_DDP_FLAG_T;
	if (last)
		ddp |= SIW_DDP_FLAG_L;
	buf[0] = ddp;
	buf[1] = SIW_RDMAP_VERSION << SIW_RDMAP_RV_SHIFT | opcode;
}

u32 siw_hdr_encode(const struct siw_hdr *h, u8 *buf, size_t buflen)
{
	const struct siw_op_info *op = siw_op_info(h->opcode);
	bool last;

	if (!op || buflen < op->hdr_len)
		return 0;
	/* Single-segment messages always end where they start. */
	last = op->single ? true : h->last;
	put_ctrl(buf, op, h->opcode, last);

	if (op->tagged) {
		siw_put_be32(buf + 2, h->stag);
		siw_put_be64(buf + 6, h->to);
		return op->hdr_len;
	}

	siw_put_be32(buf + 2, op->inval ? h->rsvd_ulp : 0);
	siw_put_be32(buf + 6, op->qn);
	siw_put_be32(buf + 10, h->msn);
	siw_put_be32(buf + 14, op->single ? 0 : h->mo);

	if (h->opcode == SIW_RDMAP_READ_REQ) {
		u8 *b = buf + SIW_UNTAGGED_HDR_LEN;

		siw_put_be32(b, h->rreq.sink_stag);
		siw_put_be64(b + 4, h->rreq.sink_to);
		siw_put_be32(b + 12, h->rreq.size);
		siw_put_be32(b + 16, h->rreq.src_stag);
		siw_put_be64(b + 20, h->rreq.src_to);
	}
	if (h->opcode == SIW_RDMAP_IMM || h->opcode == SIW_RDMAP_IMM_SE)
		siw_put_be64(buf + SIW_UNTAGGED_HDR_LEN, h->imm);
	if (h->opcode == SIW_RDMAP_ATOMIC_REQ) {
		const struct siw_atomic_req *a = &h->atomic;
		u8 *b = buf + SIW_UNTAGGED_HDR_LEN;

		siw_put_be32(b, a->op & SIW_ATOMIC_OP_MASK);
		siw_put_be32(b + 4, a->req_id);
		siw_put_be32(b + 8, a->stag);
		siw_put_be64(b + 12, a->to);
		siw_put_be64(b + 20, a->add_swap);
		siw_put_be64(b + 28, a->add_swap_mask);
		siw_put_be64(b + 36, a->compare);
		siw_put_be64(b + 44, a->compare_mask);
	}
	if (h->opcode == SIW_RDMAP_ATOMIC_RESP) {
		siw_put_be32(buf + SIW_UNTAGGED_HDR_LEN, h->atomic_resp.req_id);
		siw_put_be64(buf + SIW_UNTAGGED_HDR_LEN + 4,
			     h->atomic_resp.orig);
	}
	/* A Terminate's control word is filled in by siw_term_build(). */
	if (h->opcode == SIW_RDMAP_TERMINATE)
		memset(buf + SIW_UNTAGGED_HDR_LEN, 0, SIW_TERM_CTRL_LEN);
	return op->hdr_len;
}

u32 siw_fpdu_put_hdr(const struct siw_hdr *h, u16 ulpdu_len, u8 *buf,
		     size_t buflen)
{
	u32 hl;

	if (buflen < SIW_MPA_LEN_LEN)
		return 0;
	hl = siw_hdr_encode(h, buf + SIW_MPA_LEN_LEN, buflen - SIW_MPA_LEN_LEN);
	if (!hl || ulpdu_len < hl)
		return 0;
	siw_fpdu_put_len(buf, ulpdu_len);
	return SIW_MPA_LEN_LEN + hl;
}

static const u8 zero_pad[SIW_MPA_ALIGN];

u32 siw_fpdu_crc(const u8 *hdr, size_t hdr_len, const struct siw_frag *frags,
		 unsigned int nfrags, u32 pad)
{
	u32 crc = siw_mpa_crc_init();
	unsigned int i;

	crc = siw_mpa_crc_update(crc, hdr, hdr_len);
	for (i = 0; i < nfrags; i++)
		crc = siw_mpa_crc_update(crc, frags[i].base, frags[i].len);
	crc = siw_mpa_crc_update(crc, zero_pad, pad & 3);
	return siw_mpa_crc_final(crc);
}

u32 siw_fpdu_trailer(u8 *buf, u32 pad, u32 crc)
{
	pad &= 3;
	memset(buf, 0, pad);
	siw_mpa_crc_put(buf + pad, crc);
	return pad + SIW_MPA_CRC_LEN;
}
