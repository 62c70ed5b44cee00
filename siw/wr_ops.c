// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * The work-request opcode table (wr_ops.h). RFC 7306's operations are
 * kernel-only: the ABI's element has no room for their immediate or
 * operands (qp.h, struct siw_sqe_ext).
 */
#include <rdma/siw-abi.h>

#include "siw.h"
#include "wr_ops.h"

#define EXT	(SIW_WR_POSTED | SIW_WR_EXT | SIW_WR_KERNEL)

const struct siw_wr_op siw_wr_ops[SIW_NUM_KOPCODES] = {
	[SIW_OP_WRITE] = {
		.kind = SIW_WR_WRITE, .ib_wr = IB_WR_RDMA_WRITE,
		.ib_wc = IB_WC_RDMA_WRITE,
		.flags = SIW_WR_POSTED | SIW_WR_PAYLOAD,
	},
	[SIW_OP_WRITE_WITH_IMM] = {
		.kind = SIW_WR_WRITE, .ib_wr = IB_WR_RDMA_WRITE_WITH_IMM,
		.ib_wc = IB_WC_RDMA_WRITE,
		.flags = EXT | SIW_WR_PAYLOAD | SIW_WR_IMM,
	},
	[SIW_OP_READ] = {
		.kind = SIW_WR_READ, .ib_wr = IB_WR_RDMA_READ,
		.ib_wc = IB_WC_RDMA_READ,
		.flags = SIW_WR_POSTED | SIW_WR_ORD, .max_sge = SIW_MAX_SGE_RD,
	},
	[SIW_OP_READ_LOCAL_INV] = {
		.kind = SIW_WR_READ, .ib_wr = IB_WR_RDMA_READ_WITH_INV,
		.ib_wc = IB_WC_RDMA_READ,
		/* The STag to invalidate is the one sink the wire names. */
		.flags = SIW_WR_POSTED | SIW_WR_ORD, .max_sge = 1,
	},
	[SIW_OP_SEND] = {
		.kind = SIW_WR_SEND, .ib_wr = IB_WR_SEND, .ib_wc = IB_WC_SEND,
		.flags = SIW_WR_POSTED | SIW_WR_PAYLOAD,
	},
	[SIW_OP_SEND_WITH_IMM] = {
		.kind = SIW_WR_SEND, .ib_wr = IB_WR_SEND_WITH_IMM,
		.ib_wc = IB_WC_SEND,
		.flags = EXT | SIW_WR_PAYLOAD | SIW_WR_IMM,
	},
	[SIW_OP_SEND_REMOTE_INV] = {
		.kind = SIW_WR_SEND, .ib_wr = IB_WR_SEND_WITH_INV,
		.ib_wc = IB_WC_SEND,
		.flags = SIW_WR_POSTED | SIW_WR_PAYLOAD | SIW_WR_INV_KEY,
	},
	[SIW_OP_FETCH_AND_ADD] = {
		.kind = SIW_WR_ATOMIC, .ib_wr = IB_WR_ATOMIC_FETCH_AND_ADD,
		.ib_wc = IB_WC_FETCH_ADD, .flags = EXT | SIW_WR_ORD,
	},
	[SIW_OP_COMP_AND_SWAP] = {
		.kind = SIW_WR_ATOMIC, .ib_wr = IB_WR_ATOMIC_CMP_AND_SWP,
		.ib_wc = IB_WC_COMP_SWAP, .flags = EXT | SIW_WR_ORD,
	},
	[SIW_OP_INVAL_STAG] = {
		.kind = SIW_WR_INVAL, .ib_wr = IB_WR_LOCAL_INV,
		.ib_wc = IB_WC_LOCAL_INV,
		.flags = SIW_WR_POSTED | SIW_WR_INV_KEY,
	},
	[SIW_OP_REG_MR] = {
		.kind = SIW_WR_REG_MR, .ib_wr = IB_WR_REG_MR,
		.ib_wc = IB_WC_REG_MR, .flags = SIW_WR_POSTED | SIW_WR_KERNEL,
	},
	/* Completions only. */
	[SIW_OP_RECEIVE] = { .ib_wc = IB_WC_RECV },
	[SIW_OP_RECV_RDMA_IMM] = { .ib_wc = IB_WC_RECV_RDMA_WITH_IMM },
	[SIW_OP_READ_RESPONSE] = { .ib_wc = IB_WC_RDMA_READ },
};

int siw_wr_opcode_of(enum ib_wr_opcode ib_wr)
{
	u8 i;

	for (i = 0; i < ARRAY_SIZE(siw_wr_ops); i++) {
		const struct siw_wr_op *op = &siw_wr_ops[i];

		if ((op->flags & SIW_WR_POSTED) && op->ib_wr == ib_wr)
			return i;
	}
	return -EINVAL;
}
