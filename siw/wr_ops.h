/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/*
 * Work-request opcodes: the opcode of a send queue element, a receive and
 * a completion (enum siw_opcode of uapi/rdma/siw-abi.h, then the kernel's
 * own in qp.h). One table (wr_ops.c) says what each is posted as, what it
 * does and how it completes; every other place reads it.
 */
#ifndef SIW_WR_OPS_H
#define SIW_WR_OPS_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <rdma/siw-abi.h>

/*
 * Every opcode once, X(NAME) for SIW_OP_NAME, XL() for the last (a
 * tracepoint's symbol list must not end in a comma): the tracepoints'
 * names come from here.
 */
#define SIW_WR_OPCODES(X, XL)	\
	X(WRITE)		\
	X(READ)			\
	X(READ_LOCAL_INV)	\
	X(SEND)			\
	X(SEND_WITH_IMM)	\
	X(SEND_REMOTE_INV)	\
	X(FETCH_AND_ADD)	\
	X(COMP_AND_SWAP)	\
	X(RECEIVE)		\
	X(READ_RESPONSE)	\
	X(INVAL_STAG)		\
	X(REG_MR)		\
	X(WRITE_WITH_IMM)	\
	XL(RECV_RDMA_IMM)

/*
 * Kernel-internal work request opcodes, after the ABI's: a user QP's
 * element naming one fails (tx.c). RDMA Write with immediate (RFC 7306),
 * and the receive completion it causes at the target.
 */
enum siw_kopcode {
	SIW_OP_WRITE_WITH_IMM = SIW_NUM_OPCODES,
	SIW_OP_RECV_RDMA_IMM,
	SIW_NUM_KOPCODES
};

/* What a send queue element does when the transmitter starts it. */
enum siw_wr_kind {
	SIW_WR_NONE,		/* not a send queue element's: fails */
	SIW_WR_SEND,
	SIW_WR_WRITE,
	SIW_WR_READ,
	SIW_WR_ATOMIC,		/* RFC 7306 Atomic Request */
	SIW_WR_REG_MR,		/* fast registration, nothing on the wire */
	SIW_WR_INVAL,		/* local invalidate, nothing on the wire */
};

/* Flags of an opcode. */
#define SIW_WR_POSTED	BIT(0)	/* a kernel consumer posts it as .ib_wr */
#define SIW_WR_PAYLOAD	BIT(1)	/* sends its SGEs' bytes; may be inline */
#define SIW_WR_EXT	BIT(2)	/* RFC 7306: only where negotiated */
#define SIW_WR_KERNEL	BIT(3)	/* kernel QPs only: a user's element fails */
#define SIW_WR_ORD	BIT(4)	/* holds an ORD slot until its response */
#define SIW_WR_IMM	BIT(5)	/* carries wr->ex.imm_data */
#define SIW_WR_INV_KEY	BIT(6)	/* names wr->ex.invalidate_rkey */

struct siw_wr_op {
	u8 kind;	/* enum siw_wr_kind */
	u8 ib_wr;	/* enum ib_wr_opcode, with SIW_WR_POSTED */
	u8 ib_wc;	/* enum ib_wc_opcode of its completion */
	u8 flags;
	u8 max_sge;	/* a Read's sink SGEs at most (0: qp->max_send_sge) */
};

/* The table, one row per opcode (wr_ops.c); read it through siw_wr_op. */
extern const struct siw_wr_op siw_wr_ops[SIW_NUM_KOPCODES];

/* The opcode's entry; NULL for a number no table row has. */
static inline const struct siw_wr_op *siw_wr_op(u8 opcode)
{
	return opcode < SIW_NUM_KOPCODES ? &siw_wr_ops[opcode] : NULL;
}

/* The element opcode a kernel work request posts, or -EINVAL. */
int siw_wr_opcode_of(enum ib_wr_opcode ib_wr);

#endif /* SIW_WR_OPS_H */
