// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * gen_seeds DIR: writes the seed corpora of the fuzz targets, valid
 * inputs built with the protocol core's own encoders, into
 * DIR/fuzz_mpa/, DIR/fuzz_ddp/ and DIR/fuzz_rx/. The committed corpus came from here;
 * rerun it after changing an input layout of a target.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"

static const char *dir;
static int n_mpa, n_ddp, n_rx;

static void put(const char *target, int n, const u8 *a, size_t alen,
		const u8 *b, size_t blen)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/seed-%03d", dir, target, n);
	f = fopen(path, "wb");
	if (!f || fwrite(a, 1, alen, f) != alen ||
	    (blen && fwrite(b, 1, blen, f) != blen) || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* fuzz_mpa: kind/flags byte, two local-settings bytes, the frame. */
static void mpa_seed(struct siw_mpa_info *info, u8 local_a, u8 local_b)
{
	u8 frame[SIW_MPA_RR_MAX], pre[3];
	size_t len;

	if (siw_mpa_build(info, frame, sizeof(frame), &len) != SIW_MPA_OK) {
		fprintf(stderr, "gen_seeds: cannot build an MPA frame\n");
		exit(1);
	}
	pre[0] = info->kind == SIW_MPA_REPLY;
	pre[1] = local_a;
	pre[2] = local_b;
	put("fuzz_mpa", n_mpa++, pre, 3, frame, len);
}

/* fuzz_ddp: region model (8), MPA length (2), the segment. */
static void ddp_seed(const struct siw_hdr *h, u32 payload, u8 model0,
		     u8 flags)
{
	u8 seg[SIW_HDR_MAX + 64], pre[10] = { model0, 1, 0, 0x10, 0, 0, 0,
					      flags };
	u32 hl = siw_hdr_encode(h, seg, sizeof(seg));
	u32 ulpdu = hl + payload;

	if (!hl || payload > 64) {
		fprintf(stderr, "gen_seeds: cannot encode a header\n");
		exit(1);
	}
	memset(seg + hl, 0xa5, payload);
	pre[8] = ulpdu >> 8;
	pre[9] = ulpdu;
	put("fuzz_ddp", n_ddp++, pre, sizeof(pre), seg, hl + payload);
}

/* One whole FPDU of the ULPDU [ulpdu, ulpdu + len) at out; its size. */
static u32 rx_fpdu(const u8 *ulpdu, u32 len, int crc, u8 *out)
{
	struct siw_frag f = { ulpdu, len };
	u32 pad = siw_mpa_pad(len), c = 0;

	siw_fpdu_put_len(out, len);
	memcpy(out + SIW_MPA_LEN_LEN, ulpdu, len);
	if (crc)
		c = siw_fpdu_crc(out, SIW_MPA_LEN_LEN, &f, 1, pad);
	return SIW_MPA_LEN_LEN + len +
	       siw_fpdu_trailer(out + SIW_MPA_LEN_LEN + len, pad, c);
}

/* A header and payload bytes of value fill as one FPDU at out. */
static u32 rx_msg(const struct siw_hdr *h, u32 payload, int crc, u8 *out)
{
	u8 ulpdu[SIW_HDR_MAX + 512];
	u32 hl = siw_hdr_encode(h, ulpdu, sizeof(ulpdu));

	if (!hl || payload > 512) {
		fprintf(stderr, "gen_seeds: cannot encode a header\n");
		exit(1);
	}
	memset(ulpdu + hl, 0x3c, payload);
	return rx_fpdu(ulpdu, hl + payload, crc, out);
}

/* fuzz_rx: the configuration (see fuzz_rx.c). */
#define RX_CFG_LEN	43

static void rx_cfg(u8 *cfg, u8 flags, u8 counts, u8 orq_flags,
		   const u8 *pieces)
{
	static const u8 base[RX_CFG_LEN] = {
		0,
		0, 0, 0x10, 0, 0x0f, 0xff,	/* region 0: 0x100000, 4 KiB */
		0, 0, 0x20, 0, 0x0f, 0xff,	/* region 1: 0x200000, 4 KiB */
		0, 0, 0x30, 0, 0x0f, 0xff,	/* region 2: 0x300000, 4 KiB */
		0,
		16, 16, 16, 16, 16, 16, 16, 16,	/* receive SGEs of 256 bytes */
		0, 1, 8, 1, 16, 2,		/* Reads: 64 at 0, 64 at 128,
						 * 128 at 256 */
	};

	memcpy(cfg, base, RX_CFG_LEN);
	cfg[0] = flags;
	cfg[19] = counts;
	cfg[34] = orq_flags;
	memcpy(cfg + 35, pieces, 7);
	cfg[42] = 0;		/* never flushed */
}

static struct siw_hdr rx_hdr(u8 opcode, bool last, u32 msn, u32 mo)
{
	struct siw_hdr h;

	memset(&h, 0, sizeof(h));
	h.opcode = opcode;
	h.last = last;
	h.msn = msn;
	h.mo = mo;
	return h;
}

static u32 rx_term(int crc, u8 *out)
{
	u8 term[SIW_TERM_ULPDU_MAX];
	u32 tl = siw_term_build(SIW_MSN_FIRST, SIW_TERM_RDMAP_ACCESS, NULL, 0,
				term, sizeof(term));

	if (!tl) {
		fprintf(stderr, "gen_seeds: cannot build a Terminate\n");
		exit(1);
	}
	return rx_fpdu(term, tl, crc, out);
}

/*
 * A valid stream that touches every placement: a Write, a Send, a Read
 * Request, the Read Response for the first Read, and a Terminate.
 */
static void rx_seed(int crc, const u8 *pieces, u8 flush_at)
{
	u8 cfg[RX_CFG_LEN], stream[4096];
	struct siw_hdr h;
	u32 n = 0;

	/* CRC, IRD 3; 4 receives, 2 Reads, 4 IRQ slots. */
	rx_cfg(cfg, (u8)(crc | 2 << 1), 4 | 2 << 3 | 3 << 5, 0, pieces);
	cfg[42] = flush_at;
	h = rx_hdr(SIW_RDMAP_WRITE, true, 0, 0);
	h.stag = 0x142;
	h.to = 0x100010;
	n += rx_msg(&h, 100, crc, stream + n);
	h = rx_hdr(SIW_RDMAP_SEND, true, SIW_MSN_FIRST, 0);
	n += rx_msg(&h, 200, crc, stream + n);
	h = rx_hdr(SIW_RDMAP_READ_REQ, true, SIW_MSN_FIRST, 0);
	h.rreq = (struct siw_rreq){ .sink_stag = 0x999, .size = 64,
				    .src_stag = 0x142, .src_to = 0x100000 };
	n += rx_msg(&h, 0, crc, stream + n);
	h = rx_hdr(SIW_RDMAP_READ_RESP, true, 0, 0);
	h.stag = 0x242;
	h.to = 0x200000;
	n += rx_msg(&h, 64, crc, stream + n);
	n += rx_term(crc, stream + n);
	put("fuzz_rx", n_rx++, cfg, sizeof(cfg), stream, n);
}

/*
 * RFC 7306 negotiated: an immediate and the Send it belongs to, a Write
 * of two segments and the immediate ending it, an Atomic Request, the
 * Read Responses of the two Reads outstanding and the Atomic Response of
 * the third request, an atomic.
 */
static void rx_seed_ext(int crc, const u8 *pieces)
{
	u8 cfg[RX_CFG_LEN], stream[4096];
	struct siw_hdr h;
	u32 n = 0;

	/* IRD 3; 4 receives, 3 requests outstanding, 4 IRQ slots, EXT. */
	rx_cfg(cfg, (u8)(crc | 2 << 1), 4 | 3 << 3 | 3 << 5 | 0x80, 0, pieces);
	h = rx_hdr(SIW_RDMAP_IMM, true, SIW_MSN_FIRST, 0);
	h.imm = siw_imm_word(0x1234, SIW_IMM_FOR_SEND);
	n += rx_msg(&h, 0, crc, stream + n);
	h = rx_hdr(SIW_RDMAP_SEND_SE, true, SIW_MSN_FIRST + 1, 0);
	n += rx_msg(&h, 100, crc, stream + n);
	h = rx_hdr(SIW_RDMAP_WRITE, false, 0, 0);
	h.stag = 0x142;
	h.to = 0x100000;
	n += rx_msg(&h, 64, crc, stream + n);
	h.last = true;
	h.to += 64;
	n += rx_msg(&h, 36, crc, stream + n);
	h = rx_hdr(SIW_RDMAP_IMM_SE, true, SIW_MSN_FIRST + 2, 0);
	h.imm = siw_imm_word(0x5678, SIW_IMM_FOR_WRITE);
	n += rx_msg(&h, 0, crc, stream + n);
	h = rx_hdr(SIW_RDMAP_ATOMIC_REQ, true, SIW_MSN_FIRST, 0);
	h.atomic = (struct siw_atomic_req){ .op = SIW_ATOMIC_FETCH_ADD,
					    .req_id = 7, .stag = 0x142,
					    .to = 0x100008, .add_swap = 1 };
	n += rx_msg(&h, 0, crc, stream + n);
	h = rx_hdr(SIW_RDMAP_READ_RESP, true, 0, 0);
	h.stag = 0x242;
	h.to = 0x200000;
	n += rx_msg(&h, 64, crc, stream + n);
	h.to = 0x200080;
	n += rx_msg(&h, 64, crc, stream + n);
	h = rx_hdr(SIW_RDMAP_ATOMIC_RESP, true, SIW_MSN_FIRST, 0);
	h.atomic_resp.req_id = 0x42;
	h.atomic_resp.orig = 99;
	n += rx_msg(&h, 0, crc, stream + n);
	n += rx_term(crc, stream + n);
	put("fuzz_rx", n_rx++, cfg, sizeof(cfg), stream, n);
}

/*
 * Messages of several segments and the decisions at their ends: a Send
 * in three segments, a Read Response, one in two segments with local
 * invalidate of its sink (region 2), Send with SE and Invalidate of
 * region 2, Read Requests up to the IRD (answered every piece), a Send
 * with Invalidate of a plain MR, and a Terminate with a Read still
 * outstanding.
 */
static void rx_seed_multi(int crc, u8 other_pd, const u8 *pieces)
{
	u8 cfg[RX_CFG_LEN], stream[4096];
	struct siw_hdr h;
	u32 n = 0, i;

	/* IRD 3, answered every piece; 3 receives, 3 Reads; 4 IRQ slots. */
	rx_cfg(cfg, (u8)(crc | 2 << 1 | other_pd | 1 << 6),
	       3 | 3 << 3 | 3 << 5, 0x02 | 0x10, pieces);
	h = rx_hdr(SIW_RDMAP_SEND, false, SIW_MSN_FIRST, 0);
	n += rx_msg(&h, 100, crc, stream + n);
	h = rx_hdr(SIW_RDMAP_SEND, false, SIW_MSN_FIRST, 100);
	n += rx_msg(&h, 200, crc, stream + n);
	h = rx_hdr(SIW_RDMAP_SEND, true, SIW_MSN_FIRST, 300);
	n += rx_msg(&h, 212, crc, stream + n);
	h = rx_hdr(SIW_RDMAP_READ_RESP, true, 0, 0);
	h.stag = 0x242;
	h.to = 0x200000;
	n += rx_msg(&h, 64, crc, stream + n);
	h.last = false;
	h.stag = 0x342;
	h.to = 0x300080;
	n += rx_msg(&h, 32, crc, stream + n);
	h.last = true;
	h.to += 32;
	n += rx_msg(&h, 32, crc, stream + n);
	h = rx_hdr(SIW_RDMAP_SEND_SE_INV, true, SIW_MSN_FIRST + 1, 0);
	h.rsvd_ulp = 0x342;
	n += rx_msg(&h, 8, crc, stream + n);
	for (i = 0; i < 3; i++) {
		h = rx_hdr(SIW_RDMAP_READ_REQ, true, SIW_MSN_FIRST + i, 0);
		h.rreq = (struct siw_rreq){ .sink_stag = 0x999, .size = 16,
					    .src_stag = 0x142,
					    .src_to = 0x100000 + 16 * i };
		n += rx_msg(&h, 0, crc, stream + n);
	}
	h = rx_hdr(SIW_RDMAP_SEND_INV, true, SIW_MSN_FIRST + 2, 0);
	h.rsvd_ulp = 0x142;	/* a plain MR: cannot be invalidated */
	n += rx_msg(&h, 4, crc, stream + n);
	n += rx_term(crc, stream + n);
	put("fuzz_rx", n_rx++, cfg, sizeof(cfg), stream, n);
}

/* Peer-to-peer: the awaited RTR of each type, then a Write. */
static void rx_seed_rtr(int crc, u8 rtr_sel, const u8 *pieces)
{
	u8 cfg[RX_CFG_LEN], stream[1024];
	struct siw_hdr h;
	u32 n = 0;

	/* The first Read is our own RTR. */
	rx_cfg(cfg, (u8)(crc | 1 << 1 | rtr_sel << 3), 2 | 1 << 3 | 1 << 5,
	       0x40, pieces);
	switch (rtr_sel) {
	case 1:
		h = rx_hdr(SIW_RDMAP_SEND, true, SIW_MSN_FIRST, 0);
		break;
	case 2:
		h = rx_hdr(SIW_RDMAP_WRITE, true, 0, 0);
		h.stag = 0xdead;
		break;
	default:
		h = rx_hdr(SIW_RDMAP_READ_REQ, true, SIW_MSN_FIRST, 0);
		h.rreq.sink_stag = 0x77;
		break;
	}
	n += rx_msg(&h, 0, crc, stream + n);
	h = rx_hdr(SIW_RDMAP_READ_RESP, true, 0, 0);
	h.stag = 0x242;
	n += rx_msg(&h, 0, crc, stream + n);
	h = rx_hdr(SIW_RDMAP_WRITE, true, 0, 0);
	h.stag = 0x142;
	h.to = 0x100000;
	n += rx_msg(&h, 48, crc, stream + n);
	put("fuzz_rx", n_rx++, cfg, sizeof(cfg), stream, n);
}

int main(int argc, char **argv)
{
	static const u8 pd[] = "private data of the ULP";
	struct siw_mpa_info info;
	struct siw_hdr h;
	u8 term[SIW_TERM_ULPDU_MAX], pre[10] = { 7, 1, 0, 0x10 };
	u32 n;
	int rev, crc, rtr;

	if (argc != 2) {
		fprintf(stderr, "usage: gen_seeds DIR\n");
		return 2;
	}
	dir = argv[1];

	for (rev = 1; rev <= 2; rev++)
		for (crc = 0; crc <= 1; crc++)
			for (rtr = 0; rtr <= SIW_RTR_ALL; rtr += 3) {
				memset(&info, 0, sizeof(info));
				info.kind = rtr & 1 ? SIW_MPA_REPLY :
						      SIW_MPA_REQUEST;
				info.revision = rev;
				info.crc = crc;
				info.enhanced = rev == 2;
				info.ird = 16;
				info.ord = 8;
				info.p2p = rev == 2 && rtr;
				info.rtr = info.p2p ? rtr : 0;
				info.ulp_pd = pd;
				info.ulp_pd_len = rtr & 2 ? sizeof(pd) : 0;
				mpa_seed(&info, 0xf1 ^ (u8)rtr << 4, 0x90);
			}

	memset(&h, 0, sizeof(h));
	h.opcode = SIW_RDMAP_WRITE;
	h.last = true;
	h.stag = 0x100;
	h.to = 0x1000;
	ddp_seed(&h, 32, 7, 0);
	h.opcode = SIW_RDMAP_READ_RESP;
	ddp_seed(&h, 16, 7, 0);
	memset(&h, 0, sizeof(h));
	h.opcode = SIW_RDMAP_SEND;
	h.msn = 1;
	ddp_seed(&h, 24, 7, 0);
	h.last = true;
	h.opcode = SIW_RDMAP_SEND_SE_INV;
	h.rsvd_ulp = 0x200;
	ddp_seed(&h, 0, 7, 0);
	memset(&h, 0, sizeof(h));
	h.opcode = SIW_RDMAP_READ_REQ;
	h.last = true;
	h.msn = 1;
	h.rreq = (struct siw_rreq){ 0x300, 0x2000, 64, 0x100, 0x1000 };
	ddp_seed(&h, 0, 7, 0);

	/* RFC 7306's messages, with the flag that lets them in (bit 1). */
	memset(&h, 0, sizeof(h));
	h.opcode = SIW_RDMAP_IMM_SE;
	h.msn = 2;
	h.imm = siw_imm_word(0xabcd, SIW_IMM_FOR_WRITE);
	ddp_seed(&h, 0, 7, 2);
	memset(&h, 0, sizeof(h));
	h.opcode = SIW_RDMAP_ATOMIC_REQ;
	h.msn = 2;
	h.atomic = (struct siw_atomic_req){ .op = SIW_ATOMIC_CMP_SWAP,
					    .req_id = 1, .stag = 0x100,
					    .to = 0x1008, .add_swap = 5,
					    .add_swap_mask = ~0ULL,
					    .compare = 0x1000,
					    .compare_mask = ~0ULL };
	ddp_seed(&h, 0, 7, 2);
	memset(&h, 0, sizeof(h));
	h.opcode = SIW_RDMAP_ATOMIC_RESP;
	h.msn = 1;
	h.atomic_resp.req_id = 1;
	h.atomic_resp.orig = 0x1000;
	ddp_seed(&h, 0, 7, 2);
	memset(&h, 0, sizeof(h));
	h.opcode = SIW_RDMAP_READ_REQ;
	h.last = true;
	h.msn = 1;
	h.rreq = (struct siw_rreq){ 0x300, 0x2000, 64, 0x100, 0x1000 };

	/* A Terminate echoing a Read Request's header. */
	{
		u8 hdr[SIW_FPDU_HDR_MAX];
		u32 hl = siw_fpdu_put_hdr(&h, SIW_RREQ_HDR_LEN, hdr,
					  sizeof(hdr));

		n = siw_term_build(1, SIW_TERM_RDMAP_ACCESS, hdr, hl, term,
				   sizeof(term));
		if (!hl || !n) {
			fprintf(stderr, "gen_seeds: cannot build a Terminate\n");
			return 1;
		}
		pre[8] = n >> 8;
		pre[9] = n;
		put("fuzz_ddp", n_ddp++, pre, sizeof(pre), term, n);
	}
	rx_seed(0, (const u8 *)"\xff\xff\xff\xff\xff\xff\xff", 0);
	rx_seed(1, (const u8 *)"\xff\xff\xff\xff\xff\xff\xff", 0);
	rx_seed(0, (const u8 *)"\x07\x01\xc8\x0d\x40\x03\xff", 0);
	rx_seed(1, (const u8 *)"\x01\x01\x01\x01\x01\x01\x01", 0);
	/* The same stream, flushed inside the Write, then inside the Send. */
	rx_seed(0, (const u8 *)"\x40\x40\x40\x40\x40\x40\x40", 1);
	rx_seed(1, (const u8 *)"\x40\x40\x40\x40\x40\x40\x40", 3);
	rx_seed_multi(0, 0, (const u8 *)"\xff\xff\xff\xff\xff\xff\xff");
	rx_seed_multi(1, 0x20, (const u8 *)"\x05\x30\x01\x77\x02\xa0\x11");
	for (rtr = 1; rtr <= 3; rtr++)
		rx_seed_rtr(rtr == 2, (u8)rtr,
			    (const u8 *)"\xff\xff\xff\xff\xff\xff\xff");
	rx_seed_ext(0, (const u8 *)"\xff\xff\xff\xff\xff\xff\xff");
	rx_seed_ext(1, (const u8 *)"\x03\x1b\x02\x40\x05\x09\x11");
	printf("gen_seeds: %d fuzz_mpa, %d fuzz_ddp and %d fuzz_rx seeds in %s\n",
	       n_mpa, n_ddp, n_rx, dir);
	return 0;
}
