/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/*
 * siw protocol core: every on-wire structure and protocol constant of the
 * iWARP suite, and the pure functions that build, parse and check them.
 *
 *   MPA   RFC 5044, with RFC 6581 (revision 2, enhanced connection setup)
 *   DDP   RFC 5041
 *   RDMAP RFC 5040 (Terminate codes also registered by RFC 6580), with
 *         RFC 7306's Immediate Data and Atomic messages
 *
 * Nothing here does I/O, allocates, sleeps or locks; nothing here knows a
 * socket, a page or a QP. Parsers take a buffer and a length and prove
 * each length before they read a field; whatever needs connection state
 * (expected MSN, the memory behind an STag) is passed in by value. The same
 * files build into siw.ko and into the host unit tests (proto_platform.h).
 *
 * Multi-byte fields are big-endian on the wire, except the MPA CRC, which
 * goes out least significant byte first like iSCSI's (RFC 3720 B.4). The
 * packed structs below document the layouts and size them; the parsers
 * read bytes through siw_get_be*() so they never depend on alignment.
 *
 * Split by concern:
 *   mpa.c        MPA request/reply frames, and the accept/reject policy
 *   fpdu.c       FPDU sizing, transmit header encoding, MPA CRC framing
 *   ddp_check.c  receive-side DDP/RDMAP header checks -> Terminate codes
 *   rdmap.c      the RDMAP opcode table
 *   term.c       Terminate codes' names; Terminate message build/decode
 */
#ifndef SIW_PROTO_H
#define SIW_PROTO_H

#include "proto_platform.h"

/* Byte access to wire buffers; the caller has proven the length. */

static inline u16 siw_get_be16(const u8 *p)
{
	return (u16)(p[0] << 8 | p[1]);
}

static inline u32 siw_get_be32(const u8 *p)
{
	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}

static inline u64 siw_get_be64(const u8 *p)
{
	return (u64)siw_get_be32(p) << 32 | siw_get_be32(p + 4);
}

static inline void siw_put_be16(u8 *p, u16 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static inline void siw_put_be32(u8 *p, u32 v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static inline void siw_put_be64(u8 *p, u64 v)
{
	siw_put_be32(p, v >> 32);
	siw_put_be32(p + 4, (u32)v);
}

/*
 * ------------------------------------------------------------------------
 * MPA request and reply frames (RFC 5044 section 7.1)
 *
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |  Key: 16 bytes "MPA ID Req Frame" or "MPA ID Rep Frame"       |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |M|C|R|S| Res   |     Rev       |          PD_Length            |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |  Private data, PD_Length bytes, at most 512                   |
 *
 * S is the RFC 6581 "enhanced" flag, reserved in revision 1: the private
 * data then starts with the IRD/ORD words below, counted in PD_Length.
 * ------------------------------------------------------------------------
 */
#define SIW_MPA_KEY_LEN		16
#define SIW_MPA_KEY_REQ		"MPA ID Req Frame"
#define SIW_MPA_KEY_REP		"MPA ID Rep Frame"

struct siw_mpa_rr_hdr {
	u8 key[SIW_MPA_KEY_LEN];
	u8 flags;
	u8 revision;
	__be16 pd_len;
} __packed;

#define SIW_MPA_RR_HDR_LEN	20
#define SIW_MPA_PD_MAX		512
#define SIW_MPA_RR_MAX		(SIW_MPA_RR_HDR_LEN + SIW_MPA_PD_MAX)

#define SIW_MPA_FLAG_M		0x80	/* sender wants markers toward it */
#define SIW_MPA_FLAG_C		0x40	/* CRC */
#define SIW_MPA_FLAG_R		0x20	/* reply only: connection rejected */
#define SIW_MPA_FLAG_S		0x10	/* rev 2: enhanced, IRD/ORD present */
/*
 * The highest of RFC 5044's reserved bits, which upstream siw uses (its
 * try_gso option, MPA_RR_FLAG_GSO_EXP) to say "send me FPDUs as large as
 * your socket's GSO size, not MULPDU": both ends then do. Peers that do
 * not know it send zero and ignore it, as RFC 5044 asks of reserved bits.
 */
#define SIW_MPA_FLAG_GSO	0x08
/*
 * siw's own, in revision 2 only: the sender speaks RFC 7306 (Immediate
 * Data, Atomic Request and Response) and takes them from its peer. Both
 * ends must say so; a peer that does not know the bit sends zero and
 * ignores it, as RFC 5044 asks of reserved bits (protocol.rst).
 */
#define SIW_MPA_FLAG_EXT	0x04
#define SIW_MPA_FLAGS_RSVD_V1	0x17
#define SIW_MPA_FLAGS_RSVD_V2	0x03

#define SIW_MPA_REV_1		1
#define SIW_MPA_REV_2		2

/*
 * RFC 6581 section 7.1: the first four bytes of the private data of an
 * enhanced (S) frame.
 *
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |A|B|           IRD             |C|D|           ORD             |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * A peer-to-peer mode; B, C, D the ready-to-receive (RTR) message types:
 * zero-length Send, zero-length RDMA Write, zero-length RDMA Read. In a
 * request they list what the initiator can send; in a reply the responder
 * picks the one the initiator must send.
 */
struct siw_mpa_v2_ctrl {
	__be16 ird;
	__be16 ord;
} __packed;

#define SIW_MPA_V2_CTRL_LEN	4
#define SIW_MPA_V2_P2P		0x8000	/* A, in the IRD word */
#define SIW_MPA_V2_RTR_SEND	0x4000	/* B, in the IRD word */
#define SIW_MPA_V2_RTR_WRITE	0x8000	/* C, in the ORD word */
#define SIW_MPA_V2_RTR_READ	0x4000	/* D, in the ORD word */
#define SIW_MPA_V2_IRD_ORD_MAX	0x3fff

/* RTR types as one bit set, independent of where they sit on the wire. */
#define SIW_RTR_SEND		0x1
#define SIW_RTR_WRITE		0x2
#define SIW_RTR_READ		0x4
#define SIW_RTR_ALL		(SIW_RTR_SEND | SIW_RTR_WRITE | SIW_RTR_READ)

/*
 * ------------------------------------------------------------------------
 * MPA FPDU framing (RFC 5044 section 4): markers are never used (we refuse
 * them at connection setup), so an FPDU is
 *
 *   ULPDU_Length (2) | ULPDU (ULPDU_Length bytes) | PAD (0-3) | CRC (4)
 *
 * PAD makes length field + ULPDU + PAD a multiple of 4. The CRC covers
 * length field, ULPDU and PAD; it is always present and all-zero when CRC
 * was not negotiated. The ULPDU is one DDP segment.
 * ------------------------------------------------------------------------
 */
#define SIW_MPA_LEN_LEN		2
#define SIW_MPA_CRC_LEN		4
#define SIW_MPA_ALIGN		4
#define SIW_MPA_ULPDU_MAX	0xffff

/* Pad bytes after a ULPDU of ulpdu_len bytes. */
static inline u32 siw_mpa_pad(u32 ulpdu_len)
{
	return (SIW_MPA_ALIGN - ((ulpdu_len + SIW_MPA_LEN_LEN) & 3)) & 3;
}

/* Bytes on the wire for an FPDU carrying ulpdu_len bytes of ULPDU. */
static inline u32 siw_fpdu_wire_len(u32 ulpdu_len)
{
	return SIW_MPA_LEN_LEN + ulpdu_len + siw_mpa_pad(ulpdu_len) +
	       SIW_MPA_CRC_LEN;
}

/*
 * MPA CRC: CRC32c over length field, ULPDU and pad, seeded with all ones
 * and inverted at the end (the iSCSI construction), put on the wire least
 * significant byte first. Incremental, so a receiver can fold it in while
 * it copies data out of socket buffers.
 */
static inline u32 siw_mpa_crc_init(void)
{
	return ~0U;
}

static inline u32 siw_mpa_crc_update(u32 state, const void *p, size_t n)
{
	return siw_crc32c(state, p, n);
}

static inline u32 siw_mpa_crc_final(u32 state)
{
	return ~state;
}

static inline void siw_mpa_crc_put(u8 *p, u32 crc)
{
	p[0] = crc;
	p[1] = crc >> 8;
	p[2] = crc >> 16;
	p[3] = crc >> 24;
}

static inline u32 siw_mpa_crc_get(const u8 *p)
{
	return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

/*
 * ------------------------------------------------------------------------
 * DDP segment headers (RFC 5041 section 4) carrying the RDMAP control
 * field (RFC 5040 section 4) in the DDP RsvdULP byte.
 *
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |T|L| Rsvd  | DV| RV|Rsv| Opcode|
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * Tagged (T=1):   ctrl (2) | STag (4) | TO (8)                  14 bytes
 * Untagged (T=0): ctrl (2) | RsvdULP (4) | QN (4) | MSN (4) | MO (4)
 *                                                               18 bytes
 * RDMAP puts the STag to invalidate of Send with Invalidate into the
 * untagged RsvdULP word; for every other untagged message it is reserved.
 * ------------------------------------------------------------------------
 */
#define SIW_DDP_FLAG_T		0x80
#define SIW_DDP_FLAG_L		0x40
#define SIW_DDP_RSVD_MASK	0x3c
#define SIW_DDP_DV_MASK		0x03
#define SIW_DDP_VERSION		1

#define SIW_RDMAP_RV_MASK	0xc0
#define SIW_RDMAP_RV_SHIFT	6
#define SIW_RDMAP_RSVD_MASK	0x30
#define SIW_RDMAP_OPCODE_MASK	0x0f
#define SIW_RDMAP_VERSION	1

struct siw_ctrl {
	u8 ddp;
	u8 rdmap;
} __packed;

struct siw_tagged_hdr {
	struct siw_ctrl ctrl;
	__be32 stag;
	__be64 to;
} __packed;

struct siw_untagged_hdr {
	struct siw_ctrl ctrl;
	__be32 rsvd_ulp;
	__be32 qn;
	__be32 msn;
	__be32 mo;
} __packed;

/* RFC 5040 section 4.4: RDMA Read Request, carried as untagged payload. */
struct siw_rreq_body {
	__be32 sink_stag;
	__be64 sink_to;
	__be32 size;
	__be32 src_stag;
	__be64 src_to;
} __packed;

struct siw_rreq_hdr {
	struct siw_untagged_hdr ddp;
	struct siw_rreq_body body;
} __packed;

/*
 * RFC 7306: Immediate Data (with or without Solicited Event) carries 8
 * bytes after an untagged header on the Send queue (QN 0), one segment.
 * The Atomic Request goes on the Read Request queue (QN 1), sharing its
 * MSNs and the IRD/ORD limits; the Atomic Response on QN 3. Each is one
 * segment whose body is all of its payload.
 *
 * Atomic Request body:
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |                 Reserved (28 bits)                    |AtomicOp|
 * |                     Request Identifier                        |
 * |                     Remote STag                               |
 * |                     Remote Tagged Offset (64 bits)            |
 * |                     Add or Swap Data (64 bits)                |
 * |                     Add or Swap Mask (64 bits)                |
 * |                     Compare Data (64 bits)                    |
 * |                     Compare Mask (64 bits)                    |
 *
 * Atomic Response body: Original Request Identifier (32 bits), Original
 * Remote Data Value (64 bits).
 */
struct siw_atomic_req_body {
	__be32 op;
	__be32 req_id;
	__be32 stag;
	__be64 to;
	__be64 add_swap;
	__be64 add_swap_mask;
	__be64 compare;
	__be64 compare_mask;
} __packed;

struct siw_atomic_resp_body {
	__be32 req_id;
	__be64 orig;
} __packed;

#define SIW_IMM_LEN		8
#define SIW_ATOMIC_REQ_BODY_LEN	52
#define SIW_ATOMIC_RESP_BODY_LEN 12
#define SIW_IMM_HDR_LEN		(SIW_UNTAGGED_HDR_LEN + SIW_IMM_LEN)
#define SIW_ATOMIC_REQ_HDR_LEN	(SIW_UNTAGGED_HDR_LEN + SIW_ATOMIC_REQ_BODY_LEN)
#define SIW_ATOMIC_RESP_HDR_LEN	(SIW_UNTAGGED_HDR_LEN + \
				 SIW_ATOMIC_RESP_BODY_LEN)

/*
 * siw's use of Immediate Data's 8 bytes (protocol.rst): the 32-bit
 * immediate of the verbs, then what the message is for.
 */
#define SIW_IMM_PLAIN		0	/* a message of its own */
#define SIW_IMM_FOR_SEND	1	/* belongs to the Send that follows */
#define SIW_IMM_FOR_WRITE	2	/* ends an RDMA Write with immediate */

static inline u64 siw_imm_word(u32 imm, u32 desc)
{
	return (u64)imm << 32 | desc;
}

/* The AtomicOp field: the low 4 bits of the first word. */
#define SIW_ATOMIC_OP_MASK	0xf
#define SIW_ATOMIC_FETCH_ADD	0x0
#define SIW_ATOMIC_CMP_SWAP	0x2
/* The operand an atomic works on: 8 bytes, 8-byte aligned. */
#define SIW_ATOMIC_LEN		8

/*
 * RFC 5040 section 4.8: Terminate, carried as untagged payload on QN 2.
 *
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * | Layr | EType |  Error Code   |M|D|R|        Reserved         |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |  DDP Segment Length (if D)    | Terminated DDP header (if D)  |
 * +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 * |  ... 14 or 18 bytes, by its T flag; then, if R, the 28-byte   |
 * |  RDMA Read Request body of the terminated message             |
 *
 * M: the segment length is valid; D: the DDP header is included; R: the
 * RDMA (Read Request) header is included.
 */
struct siw_term_hdr {
	struct siw_untagged_hdr ddp;
	__be32 ctrl;
} __packed;

#define SIW_TERM_CTRL_M		0x00008000
#define SIW_TERM_CTRL_D		0x00004000
#define SIW_TERM_CTRL_R		0x00002000
#define SIW_TERM_CTRL_RSVD	0x00001fff

#define SIW_TAGGED_HDR_LEN	14
#define SIW_UNTAGGED_HDR_LEN	18
#define SIW_RREQ_BODY_LEN	28
#define SIW_RREQ_HDR_LEN	(SIW_UNTAGGED_HDR_LEN + SIW_RREQ_BODY_LEN)
#define SIW_TERM_CTRL_LEN	4
#define SIW_TERM_HDR_LEN	(SIW_UNTAGGED_HDR_LEN + SIW_TERM_CTRL_LEN)
/* Terminate payload after the DDP header: control, length, DDP, RDMA. */
#define SIW_TERM_BODY_MAX	(SIW_TERM_CTRL_LEN + SIW_MPA_LEN_LEN + \
				 SIW_UNTAGGED_HDR_LEN + SIW_RREQ_BODY_LEN)
/* Longest header any segment starts with, and with its MPA length. */
#define SIW_HDR_MAX		SIW_ATOMIC_REQ_HDR_LEN
#define SIW_FPDU_HDR_MAX	(SIW_MPA_LEN_LEN + SIW_HDR_MAX)

static_assert(sizeof(struct siw_mpa_rr_hdr) == SIW_MPA_RR_HDR_LEN,
	      "MPA request/reply header");
static_assert(sizeof(struct siw_mpa_v2_ctrl) == SIW_MPA_V2_CTRL_LEN,
	      "MPA v2 IRD/ORD");
static_assert(sizeof(struct siw_tagged_hdr) == SIW_TAGGED_HDR_LEN,
	      "DDP tagged header");
static_assert(sizeof(struct siw_untagged_hdr) == SIW_UNTAGGED_HDR_LEN,
	      "DDP untagged header");
static_assert(sizeof(struct siw_rreq_body) == SIW_RREQ_BODY_LEN,
	      "RDMA Read Request body");
static_assert(sizeof(struct siw_rreq_hdr) == SIW_RREQ_HDR_LEN,
	      "RDMA Read Request header");
static_assert(sizeof(struct siw_term_hdr) == SIW_TERM_HDR_LEN,
	      "Terminate header");
static_assert(sizeof(struct siw_atomic_req_body) == SIW_ATOMIC_REQ_BODY_LEN,
	      "Atomic Request body");
static_assert(sizeof(struct siw_atomic_resp_body) == SIW_ATOMIC_RESP_BODY_LEN,
	      "Atomic Response body");

/*
 * RDMAP opcodes (RFC 5040 section 4.2; 0x8-0xb from RFC 7306, used only
 * on connections that negotiated them); 0xc-0xf are reserved. One list,
 * X(NAME, value) with XL() for the last entry (a tracepoint's symbol list
 * must not end in a comma): it makes the enum, siw_op_name() and the
 * tracepoints' names, so an opcode has one spelling everywhere.
 */
#define SIW_RDMAP_OPCODES(X, XL)	\
	X(WRITE,	0x0)		\
	X(READ_REQ,	0x1)		\
	X(READ_RESP,	0x2)		\
	X(SEND,		0x3)		\
	X(SEND_INV,	0x4)		\
	X(SEND_SE,	0x5)		\
	X(SEND_SE_INV,	0x6)		\
	X(TERMINATE,	0x7)		\
	X(IMM,		0x8)		\
	X(IMM_SE,	0x9)		\
	X(ATOMIC_REQ,	0xa)		\
	XL(ATOMIC_RESP,	0xb)

#define SIW_RDMAP_ENUM_ENTRY(name, value)	SIW_RDMAP_##name = (value),
enum siw_rdmap_opcode {
	SIW_RDMAP_OPCODES(SIW_RDMAP_ENUM_ENTRY, SIW_RDMAP_ENUM_ENTRY)
	SIW_RDMAP_NUM
};
#undef SIW_RDMAP_ENUM_ENTRY

/*
 * What a message does, whatever its variant (Solicited Event, Invalidate):
 * the receiver's decision and the counters go by it. The order is that of
 * the per-message counters (stats.h); Terminates are counted by layer.
 */
enum siw_msg_kind {
	SIW_MSG_SEND,
	SIW_MSG_WRITE,
	SIW_MSG_READ_REQ,
	SIW_MSG_READ_RESP,
	SIW_MSG_IMM,		/* RFC 7306 Immediate Data */
	SIW_MSG_ATOMIC_REQ,
	SIW_MSG_ATOMIC_RESP,
	SIW_MSG_TERMINATE,
	SIW_MSG_KIND_NUM
};

/* Untagged queue numbers (RFC 5040 section 5.1) */
#define SIW_QN_SEND		0
#define SIW_QN_RREQ		1
#define SIW_QN_TERM		2
#define SIW_QN_ATOMIC_RESP	3	/* RFC 7306 */
#define SIW_QN_NUM		4
/* Queues of a connection without RFC 7306. */
#define SIW_QN_NUM_BASE		3

/* The first message on each untagged queue has MSN 1 (RFC 5041). */
#define SIW_MSN_FIRST		1

/* What every segment of a message of one opcode looks like (rdmap.c). */
struct siw_op_info {
	u8 kind;	/* enum siw_msg_kind */
	u8 tagged;	/* T flag */
	u8 qn;		/* untagged: the queue it travels on */
	u8 hdr_len;	/* header bytes at the start of each segment */
	u8 single;	/* one segment only: MO 0 and L set */
	u8 inval;	/* RsvdULP carries the STag to invalidate */
	u8 se;		/* Solicited Event: the receive completes solicited */
	u8 ext;		/* RFC 7306: only where negotiated (SIW_DDP_EXT) */
	u8 exact;	/* the header is the whole segment: no payload */
};

/* The table, one row per opcode (rdmap.c); read it through siw_op_info. */
extern const struct siw_op_info siw_op_table[SIW_RDMAP_NUM];

/* NULL for an opcode we do not know (0xc-0xf). */
static inline const struct siw_op_info *siw_op_info(u8 opcode)
{
	return opcode < SIW_RDMAP_NUM ? &siw_op_table[opcode] : NULL;
}

/* The enum's name ("READ_REQ"); "RESERVED" for 0xc-0xf. */
const char *siw_op_name(u8 opcode);

/*
 * ------------------------------------------------------------------------
 * Terminate codes: layer, error type and error code as one value.
 * RDMAP: RFC 5040 section 7; DDP: RFC 5041 section 7; LLP (MPA): RFC 5044
 * codes 0x01-0x04, RFC 6581 codes 0x05-0x07. All registered in RFC 6580.
 *
 * SIW_TERM() sets bit 16 so that every real code differs from SIW_TERM_OK,
 * including RDMAP local catastrophic error, which is 0/0/0 on the wire.
 * ------------------------------------------------------------------------
 */
#define SIW_TERM_VALID		0x10000
#define SIW_TERM(layer, etype, ecode) \
	(SIW_TERM_VALID | (layer) << 12 | (etype) << 8 | (ecode))

#define SIW_TERM_LAYER_RDMAP	0
#define SIW_TERM_LAYER_DDP	1
#define SIW_TERM_LAYER_LLP	2

#define SIW_RDMAP_ET_CATASTROPHIC	0
#define SIW_RDMAP_ET_PROTECTION		1	/* remote protection error */
#define SIW_RDMAP_ET_OPERATION		2	/* remote operation error */
#define SIW_DDP_ET_CATASTROPHIC		0
#define SIW_DDP_ET_TAGGED		1	/* tagged buffer error */
#define SIW_DDP_ET_UNTAGGED		2	/* untagged buffer error */
#define SIW_LLP_ET_MPA			0

enum siw_term_code {
	SIW_TERM_OK = 0,
	/*
	 * Not a Terminate: the header is longer than the bytes handed in;
	 * read up to siw_hdr.hdr_len and call again.
	 */
	SIW_TERM_NEED_MORE = 1,

	SIW_TERM_RDMAP_CATASTROPHIC	= SIW_TERM(0, 0, 0x00),
	SIW_TERM_RDMAP_INVALID_STAG	= SIW_TERM(0, 1, 0x00),
	SIW_TERM_RDMAP_BASE_BOUNDS	= SIW_TERM(0, 1, 0x01),
	SIW_TERM_RDMAP_ACCESS		= SIW_TERM(0, 1, 0x02),
	SIW_TERM_RDMAP_STAG_NOT_ASSOC	= SIW_TERM(0, 1, 0x03),
	SIW_TERM_RDMAP_TO_WRAP		= SIW_TERM(0, 1, 0x04),
	SIW_TERM_RDMAP_PROT_INVALIDATE	= SIW_TERM(0, 1, 0x09),
	SIW_TERM_RDMAP_PROT_UNSPEC	= SIW_TERM(0, 1, 0xff),
	SIW_TERM_RDMAP_VERSION		= SIW_TERM(0, 2, 0x05),
	SIW_TERM_RDMAP_OPCODE		= SIW_TERM(0, 2, 0x06),
	SIW_TERM_RDMAP_CATASTROPHIC_STREAM = SIW_TERM(0, 2, 0x07),
	SIW_TERM_RDMAP_CATASTROPHIC_GLOBAL = SIW_TERM(0, 2, 0x08),
	SIW_TERM_RDMAP_OP_INVALIDATE	= SIW_TERM(0, 2, 0x09),
	SIW_TERM_RDMAP_OP_UNSPEC	= SIW_TERM(0, 2, 0xff),

	SIW_TERM_DDP_CATASTROPHIC	= SIW_TERM(1, 0, 0x00),
	SIW_TERM_DDP_T_INVALID_STAG	= SIW_TERM(1, 1, 0x00),
	SIW_TERM_DDP_T_BASE_BOUNDS	= SIW_TERM(1, 1, 0x01),
	SIW_TERM_DDP_T_STAG_NOT_ASSOC	= SIW_TERM(1, 1, 0x02),
	SIW_TERM_DDP_T_TO_WRAP		= SIW_TERM(1, 1, 0x03),
	SIW_TERM_DDP_T_VERSION		= SIW_TERM(1, 1, 0x04),
	SIW_TERM_DDP_UT_INVALID_QN	= SIW_TERM(1, 2, 0x01),
	SIW_TERM_DDP_UT_MSN_NO_BUF	= SIW_TERM(1, 2, 0x02),
	SIW_TERM_DDP_UT_MSN_RANGE	= SIW_TERM(1, 2, 0x03),
	SIW_TERM_DDP_UT_INVALID_MO	= SIW_TERM(1, 2, 0x04),
	SIW_TERM_DDP_UT_TOO_LONG	= SIW_TERM(1, 2, 0x05),
	SIW_TERM_DDP_UT_VERSION		= SIW_TERM(1, 2, 0x06),

	SIW_TERM_MPA_LOST		= SIW_TERM(2, 0, 0x01),
	SIW_TERM_MPA_CRC		= SIW_TERM(2, 0, 0x02),
	SIW_TERM_MPA_MARKER		= SIW_TERM(2, 0, 0x03),
	SIW_TERM_MPA_REQ_REP		= SIW_TERM(2, 0, 0x04),
	SIW_TERM_MPA_CATASTROPHIC	= SIW_TERM(2, 0, 0x05),
	SIW_TERM_MPA_IRD		= SIW_TERM(2, 0, 0x06),
	SIW_TERM_MPA_NO_RTR		= SIW_TERM(2, 0, 0x07),
};

static inline bool siw_term_is_code(enum siw_term_code c)
{
	return c & SIW_TERM_VALID;
}

static inline u8 siw_term_layer(enum siw_term_code c)
{
	return (c >> 12) & 0xf;
}

static inline u8 siw_term_etype(enum siw_term_code c)
{
	return (c >> 8) & 0xf;
}

static inline u8 siw_term_ecode(enum siw_term_code c)
{
	return c & 0xff;
}

/* Short description for logs; "unknown" for combinations not listed. */
const char *siw_term_name(enum siw_term_code c);

/*
 * ------------------------------------------------------------------------
 * mpa.c: MPA request/reply frames and connection setup policy
 * ------------------------------------------------------------------------
 */
enum siw_mpa_kind {
	SIW_MPA_REQUEST,
	SIW_MPA_REPLY,
};

/* One request or reply frame, decoded or to be encoded. */
struct siw_mpa_info {
	enum siw_mpa_kind kind;
	u8 revision;
	bool markers;		/* M */
	bool crc;		/* C */
	bool reject;		/* R: replies only */
	bool enhanced;		/* S: revision 2 only, IRD/ORD words present */
	bool gso;		/* SIW_MPA_FLAG_GSO: large FPDUs welcome */
	bool ext;		/* SIW_MPA_FLAG_EXT: RFC 7306 (revision 2) */
	u8 rsvd;		/* reserved flag bits as received */
	/*
	 * Revision 1 only: IRD and ORD as two 32-bit words at the start of
	 * the private data, as [MS-SMBD] section 6.1 has SMB Direct's iWARP
	 * peers send them (SIW_MPA_LEGACY_LEN bytes).
	 */
	bool legacy;
	/* Valid when enhanced or legacy: */
	u16 ird;
	u16 ord;
	bool p2p;		/* A */
	u8 rtr;			/* SIW_RTR_* from B, C, D */
	/* Private data of the ULP: after the IRD/ORD words if any. */
	const u8 *ulp_pd;
	u16 ulp_pd_len;
	/* Decoded only: */
	u16 pd_len;		/* PD_Length as on the wire */
	u32 frame_len;		/* header plus private data */
};

enum siw_mpa_err {
	SIW_MPA_OK = 0,
	SIW_MPA_E_SHORT_HDR,	/* under 20 bytes: read up to frame_len */
	SIW_MPA_E_SHORT_PD,	/* private data incomplete: up to frame_len */
	SIW_MPA_E_KEY,		/* neither the request nor the reply key */
	SIW_MPA_E_KEY_KIND,	/* the other key than expected */
	SIW_MPA_E_REVISION,	/* revision other than 1 and 2 */
	SIW_MPA_E_RESERVED,	/* reserved flag bits (strict parsing) */
	SIW_MPA_E_REJECT_REQ,	/* R set in a request */
	SIW_MPA_E_PD_LEN,	/* PD_Length above 512 */
	SIW_MPA_E_IRD_ORD,	/* enhanced, but PD_Length under 4 */
	SIW_MPA_E_LEGACY,	/* legacy IRD/ORD expected: short, or a 0 */
	SIW_MPA_E_NOSPACE,	/* encoder: output buffer too small */
	SIW_MPA_E_INVAL,	/* encoder: a field out of range */
	SIW_MPA_E_NUM
};

/* Reserved flag bits are an error, not merely reported in ->rsvd. */
#define SIW_MPA_PARSE_STRICT	0x1
/*
 * A revision 1 frame begins its private data with the legacy IRD/ORD
 * words (->legacy); without them, or with a zero in one, it is malformed.
 * A reply with R set may come without them.
 */
#define SIW_MPA_PARSE_LEGACY	0x2

/* [MS-SMBD] 6.1: a 32-bit IRD, then a 32-bit ORD, network byte order. */
#define SIW_MPA_LEGACY_LEN	8

const char *siw_mpa_err_name(enum siw_mpa_err e);

/*
 * Decode the 20-byte header only, to learn how much private data follows
 * (->frame_len). On SIW_MPA_E_SHORT_HDR, ->frame_len is the header size.
 */
enum siw_mpa_err siw_mpa_parse_hdr(const u8 *buf, size_t len,
				   enum siw_mpa_kind kind, unsigned int flags,
				   struct siw_mpa_info *out);

/*
 * Decode a whole frame. ->ulp_pd points into buf. Bytes beyond
 * ->frame_len are not looked at. On SIW_MPA_E_SHORT_PD, ->frame_len says
 * how many bytes the whole frame needs.
 */
enum siw_mpa_err siw_mpa_parse(const u8 *buf, size_t len,
			       enum siw_mpa_kind kind, unsigned int flags,
			       struct siw_mpa_info *out);

/* Encode a frame; on SIW_MPA_OK *written is its length. */
enum siw_mpa_err siw_mpa_build(const struct siw_mpa_info *in, u8 *buf,
			       size_t buflen, size_t *written);

enum siw_mpa_crc_policy {
	SIW_MPA_CRC_OFF,	/* do not ask; use it if the peer asks */
	SIW_MPA_CRC_OFFERED,	/* ask; go without if a peer ignores it */
	SIW_MPA_CRC_REQUIRED,	/* ask; fail without it */
};

/* Local configuration for connection setup. */
struct siw_mpa_params {
	u8 revision;		/* highest revision we speak: 1 or 2 */
	enum siw_mpa_crc_policy crc;
	bool p2p;		/* initiator: ask for peer-to-peer mode */
	bool p2p_accept;	/* responder: answer a peer-to-peer request */
	u8 rtr_types;		/* SIW_RTR_* we offer or accept for p2p */
	u16 ird;		/* inbound RDMA Reads we accept */
	u16 ord;		/* outbound RDMA Reads we want */
	u16 max_ird;		/* ird may grow up to this to suit a peer */
	bool gso;		/* offer and accept GSO-sized FPDUs */
	bool legacy;		/* revision 1: exchange IRD/ORD ([MS-SMBD]) */
	bool ext;		/* offer and accept RFC 7306 (siw peers) */
};

enum siw_mpa_verdict {
	SIW_MPA_ACCEPT,		/* go to RTS with the result below */
	SIW_MPA_REJECT,		/* responder: send a reply with R set;
				 * initiator: the peer rejected us */
	SIW_MPA_ABORT,		/* initiator: send ->term if set, close */
};

enum siw_mpa_reason {
	SIW_MPA_R_NONE,
	SIW_MPA_R_MARKERS,	/* peer wants markers: never supported */
	SIW_MPA_R_CRC,		/* CRC required here, peer went without */
	SIW_MPA_R_REVISION,	/* reply revision above ours */
	SIW_MPA_R_IRD,		/* peer reads more than we can take */
	SIW_MPA_R_RTR,		/* no RTR type both sides accept */
	SIW_MPA_R_PEER_REJECT,	/* reply had R set */
	SIW_MPA_R_NUM
};

const char *siw_mpa_reason_name(enum siw_mpa_reason r);

/* The outcome of connection setup, for one side. */
struct siw_mpa_result {
	enum siw_mpa_verdict verdict;
	enum siw_mpa_reason reason;
	enum siw_term_code term;	/* ABORT: Terminate to send, or OK */
	u8 revision;
	bool crc;			/* CRC in both directions */
	bool enhanced;			/* IRD/ORD were exchanged (S) */
	bool legacy;			/* ... in revision 1's legacy words */
	bool p2p;			/* initiator sends an RTR first */
	u8 rtr;				/* the one SIW_RTR_* it sends */
	u16 ird;			/* to program into the local QP */
	u16 ord;
	bool gso;			/* both said GSO: large FPDUs both ways */
	bool ext;			/* both said RFC 7306 */
};

/* Initiator: the request for our configuration (no ULP data yet). */
void siw_mpa_request_init(const struct siw_mpa_params *local,
			  struct siw_mpa_info *req);

/* Responder: decide on a parsed request. */
void siw_mpa_respond(const struct siw_mpa_params *local,
		     const struct siw_mpa_info *req,
		     struct siw_mpa_result *res);

/* Responder: the reply (accept or reject) for a decision. */
void siw_mpa_reply_init(const struct siw_mpa_result *res,
			struct siw_mpa_info *rep);

/* Initiator: decide on a parsed reply to siw_mpa_request_init(local). */
void siw_mpa_check_reply(const struct siw_mpa_params *local,
			 const struct siw_mpa_info *rep,
			 struct siw_mpa_result *res);

/*
 * ------------------------------------------------------------------------
 * fpdu.c: transmit framing
 * ------------------------------------------------------------------------
 */

/* Largest ULPDU whose FPDU fits an effective MSS (RFC 5044 section 4). */
u32 siw_mpa_mulpdu(u32 emss);
u32 siw_gso_emss(u32 mss, u32 gso_max_size, u32 gso_max_segs, u32 hdr_room);

/* One FPDU of a message. */
struct siw_fpdu {
	u32 payload;		/* payload bytes it carries */
	u16 ulpdu_len;		/* MPA length field: header + payload */
	u8 pad;			/* 0-3 zero bytes after the ULPDU */
	u32 wire_len;		/* length field + ULPDU + pad + CRC */
	bool last;		/* ends the message: set L */
};

/*
 * Plan the next FPDU of a message with `remaining` payload bytes left.
 * False if no payload byte would fit (mulpdu <= hdr_len) although some
 * remain. A zero-length message is one FPDU with no payload.
 */
bool siw_fpdu_plan(u32 mulpdu, u32 hdr_len, u32 remaining,
		   struct siw_fpdu *f);

/* How many FPDUs a message of msg_len payload bytes takes; 0 if none fit. */
u32 siw_fpdu_count(u32 mulpdu, u32 hdr_len, u32 msg_len);

/* The RDMA Read Request fields (RFC 5040 section 4.4). */
struct siw_rreq {
	u32 sink_stag;
	u64 sink_to;
	u32 size;
	u32 src_stag;
	u64 src_to;
};

/* RFC 7306 Atomic Request and Response fields. */
struct siw_atomic_req {
	u8 op;			/* SIW_ATOMIC_* */
	u32 op_rsvd;		/* the 28 reserved bits, as received */
	u32 req_id;
	u32 stag;
	u64 to;
	u64 add_swap;
	u64 add_swap_mask;
	u64 compare;
	u64 compare_mask;
};

struct siw_atomic_resp {
	u32 req_id;
	u64 orig;
};

/*
 * One segment's DDP/RDMAP header. Encoding reads the fields the opcode
 * uses; checking a received header fills them all in.
 */
struct siw_hdr {
	u8 opcode;
	bool tagged;		/* rx: T; tx: follows the opcode */
	bool last;		/* L */
	u32 stag;		/* tagged */
	u64 to;
	u32 rsvd_ulp;		/* untagged: Invalidate STag for SEND_*INV */
	u32 qn;			/* rx: as received; tx: follows the opcode */
	u32 msn;
	u32 mo;
	struct siw_rreq rreq;	/* READ_REQ */
	u64 imm;		/* IMM, IMM_SE: the 8 bytes, big-endian */
	struct siw_atomic_req atomic;	/* ATOMIC_REQ */
	struct siw_atomic_resp atomic_resp;	/* ATOMIC_RESP */
	/* Received only: */
	u16 hdr_len;		/* header bytes for this opcode */
	u32 payload_len;	/* ULPDU bytes after the header */
	bool rsvd_set;		/* reserved bits seen (ignored unless strict) */
};

/*
 * Write the header for h->opcode into buf; returns its length, or 0 for
 * a reserved opcode or a buffer shorter than the header.
 */
u32 siw_hdr_encode(const struct siw_hdr *h, u8 *buf, size_t buflen);

/* Write the MPA length field. */
static inline void siw_fpdu_put_len(u8 *buf, u16 ulpdu_len)
{
	siw_put_be16(buf, ulpdu_len);
}

/*
 * Write the MPA length field (ulpdu_len, from siw_fpdu_plan()) and the
 * header after it; returns the bytes written (2 + header length), or 0 if
 * the header cannot be encoded or is longer than ulpdu_len.
 */
u32 siw_fpdu_put_hdr(const struct siw_hdr *h, u16 ulpdu_len, u8 *buf,
		     size_t buflen);

/* A piece of payload; the kernel passes kmapped page fragments. */
struct siw_frag {
	const void *base;
	size_t len;
};

/*
 * MPA CRC of one FPDU: hdr is the length field plus DDP/RDMAP header
 * (hdr_len bytes), then the payload fragments, then pad zero bytes.
 */
u32 siw_fpdu_crc(const u8 *hdr, size_t hdr_len, const struct siw_frag *frags,
		 unsigned int nfrags, u32 pad);

/*
 * Write pad zero bytes and the CRC field (crc 0 when CRC is off) into
 * buf, at least 7 bytes; returns pad + 4.
 */
u32 siw_fpdu_trailer(u8 *buf, u32 pad, u32 crc);

/*
 * ------------------------------------------------------------------------
 * ddp_check.c: receive-side checks; each returns SIW_TERM_OK or the
 * Terminate to send.
 * ------------------------------------------------------------------------
 */

/* Reserved bits are an error, not merely reported in ->rsvd_set. */
#define SIW_DDP_STRICT		0x1
/* RFC 7306 was negotiated: its opcodes and QN 3 are valid. */
#define SIW_DDP_EXT		0x2

/*
 * Header bytes to read for a segment whose first two bytes are these. For
 * an unknown opcode, the plain DDP header length for the T flag, so the
 * whole header can be echoed in the Terminate.
 */
u32 siw_ddp_hdr_len(u8 ddp_ctrl, u8 rdmap_ctrl);
/* The same, with RFC 7306's opcodes known if flags has SIW_DDP_EXT. */
u32 siw_ddp_hdr_len_flags(u8 ddp_ctrl, u8 rdmap_ctrl, unsigned int flags);

/*
 * Check the header of a DDP segment (ULPDU) of ulpdu_len bytes, of which
 * the first avail are in buf, and decode it into *out.
 */
enum siw_term_code siw_ddp_check(const u8 *buf, size_t avail, u32 ulpdu_len,
				 unsigned int flags, struct siw_hdr *out);

/* Untagged: the MSN the queue expects next, and whether a buffer waits. */
enum siw_term_code siw_ddp_check_msn(u32 expected, u32 got, bool have_buf);

/* Untagged: segments of a message arrive in order, so MO is known. */
enum siw_term_code siw_ddp_check_mo(u32 expected, u32 got);

/* Untagged: does a segment at mo with seg_len bytes fit a buf_len buffer? */
enum siw_term_code siw_ddp_check_untagged_len(u64 buf_len, u32 mo,
					      u32 seg_len);

/* Who checks a tagged access: DDP placing data, or RDMAP reading it. */
enum siw_tag_ctx {
	SIW_TAG_SINK,		/* RDMA Write, Read Response: DDP codes */
	SIW_TAG_SOURCE,		/* Read Request source: RDMAP codes */
};

/* What the memory layer knows about an STag, by value. */
struct siw_mem_view {
	bool valid;		/* exists and is in the valid state */
	bool same_pd;		/* belongs to this QP's protection domain */
	bool access;		/* grants the remote access asked for */
	u64 base;		/* first addressable tagged offset */
	u64 len;		/* bytes from base */
};

/* [to, to + n) against [base, base + len), without overflow. */
enum siw_term_code siw_check_tagged_bounds(u64 base, u64 len, u64 to, u64 n,
					   enum siw_tag_ctx ctx);

/* STag state, access rights, wrap and bounds; n == 0 always passes. */
enum siw_term_code siw_check_tagged(const struct siw_mem_view *m, u64 to,
				    u64 n, enum siw_tag_ctx ctx);

/*
 * A Read Response against the oldest outstanding Read (have): its sink
 * STag and the offset reached, and the bytes it has left.
 */
enum siw_term_code siw_check_read_resp(bool have, u32 sink_stag, u64 sink_to,
				       u64 left, const struct siw_hdr *h);

/* Send with Invalidate: may this STag be invalidated by the peer? */
enum siw_term_code siw_check_invalidate(const struct siw_mem_view *m,
					bool invalidatable);

/* A new RDMA Read Request with `outstanding` already queued. */
enum siw_term_code siw_check_ird(u32 outstanding, u32 ird);

/*
 * RFC 7306 Atomic Request: a known operation on 8 aligned bytes of memory
 * m (remote atomic access asked), within it.
 */
enum siw_term_code siw_check_atomic(const struct siw_mem_view *m,
				    const struct siw_atomic_req *a);

/* The value an atomic leaves in memory that held orig (RFC 7306). */
u64 siw_atomic_result(const struct siw_atomic_req *a, u64 orig);

/*
 * ------------------------------------------------------------------------
 * term.c: Terminate messages
 * ------------------------------------------------------------------------
 */

/* A received Terminate, after its DDP header. */
struct siw_term_msg {
	enum siw_term_code code;	/* from the layer/type/code bytes */
	bool seg_len_valid;		/* M */
	u16 seg_len;
	const u8 *ddp_hdr;		/* D: terminated DDP header, or NULL */
	u8 ddp_hdr_len;
	const u8 *rdma_hdr;		/* R: 28-byte Read Request, or NULL */
	bool rsvd_set;
};

/*
 * Decode a Terminate's payload (body, len bytes after the 18-byte DDP
 * header). False if it is shorter than what its flags announce.
 */
bool siw_term_decode(const u8 *body, size_t len, struct siw_term_msg *out);

#define SIW_TERM_ULPDU_MAX	(SIW_UNTAGGED_HDR_LEN + SIW_TERM_BODY_MAX)

/*
 * Build a complete Terminate ULPDU (DDP header and payload) for the
 * Terminate queue's next MSN into buf, at least SIW_TERM_ULPDU_MAX bytes.
 * fpdu_hdr, if not NULL, is the offending FPDU from its MPA length field
 * on, fpdu_hdr_len bytes of it: its DDP header (M, D), and the Read
 * Request body if it was one (R), are echoed where complete. Pass NULL
 * where the header cannot be trusted (MPA CRC errors). Returns the ULPDU
 * length, 0 if buf is too short.
 */
u32 siw_term_build(u32 msn, enum siw_term_code code, const u8 *fpdu_hdr,
		   size_t fpdu_hdr_len, u8 *buf, size_t buflen);

/*
 * ------------------------------------------------------------------------
 * The receive byte stream (rx_stream.c): FPDU framing over pieces of any
 * size, with the receiver's own checks and placement as callbacks.
 */

/* Where in the byte stream the next byte belongs. */
enum siw_rx_phase {
	SIW_RX_HDR,		/* MPA length and DDP/RDMAP header */
	SIW_RX_DATA,		/* payload of the current FPDU */
	SIW_RX_TRAILER,		/* pad and CRC */
};

struct siw_rx_stream {
	enum siw_rx_phase phase;
	u8 hdr[SIW_FPDU_HDR_MAX];
	u32 hdr_have;
	u32 ulpdu_len;		/* MPA length field of this FPDU */
	struct siw_hdr h;	/* decoded header */
	u32 data_left;		/* payload bytes of this FPDU still to come */
	u8 trailer[SIW_MPA_CRC_LEN + 3];
	u32 trailer_have;
	u32 trailer_len;
	u32 crc;		/* running CRC: place() adds the payload */
	bool crc_on;		/* CRC negotiated: the trailer is checked */
	unsigned int ddp_flags;	/* SIW_DDP_* for siw_ddp_check() */
	bool dead;		/* a Terminate decision was taken */
};

/*
 * What the receiver supplies. src is the caller's opaque source of bytes
 * (an skb in the module), off an offset in it.
 */
struct siw_rx_ops {
	/* Copies n bytes at off of src to dst; non-zero on failure. */
	int (*copy)(void *src, u32 off, void *dst, u32 n);
	/*
	 * A header (s->h) passed the core's checks: check it against the
	 * receiver's state (memory, queues, RTR) and prepare placement.
	 */
	enum siw_term_code (*begin)(void *ctx, struct siw_rx_stream *s);
	/*
	 * Places n payload bytes at off of src where begin() said, adding
	 * them to s->crc when s->crc_on. Non-zero: they cannot be placed
	 * (a local protection error: the stream ends).
	 */
	int (*place)(void *ctx, struct siw_rx_stream *s, void *src, u32 off,
		     u32 n);
	/* The FPDU is complete and its CRC good. */
	void (*end)(void *ctx, struct siw_rx_stream *s);
	/*
	 * The one Terminate decision of the stream; s->hdr holds
	 * s->hdr_have bytes of the offending FPDU (0: do not echo them).
	 */
	void (*fail)(void *ctx, struct siw_rx_stream *s,
		     enum siw_term_code code);
};

/* Feeds len bytes at off of src; always consumes all of them. */
u32 siw_rx_stream_feed(struct siw_rx_stream *s, const struct siw_rx_ops *ops,
		       void *ctx, void *src, u32 off, u32 len);

void siw_rx_stream_reset(struct siw_rx_stream *s, bool crc_on);

#endif /* SIW_PROTO_H */
