// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * RDMAP messages: what each opcode's segments look like (RFC 5040
 * sections 4 and 5, RFC 7306 sections 4 and 5) and what the message does.
 */
#include "proto.h"

const struct siw_op_info siw_op_table[SIW_RDMAP_NUM] = {
	[SIW_RDMAP_WRITE] = {
		.kind = SIW_MSG_WRITE, .tagged = 1,
		.hdr_len = SIW_TAGGED_HDR_LEN,
	},
	[SIW_RDMAP_READ_REQ] = {
		.kind = SIW_MSG_READ_REQ, .qn = SIW_QN_RREQ,
		.hdr_len = SIW_RREQ_HDR_LEN, .single = 1, .exact = 1,
	},
	[SIW_RDMAP_READ_RESP] = {
		.kind = SIW_MSG_READ_RESP, .tagged = 1,
		.hdr_len = SIW_TAGGED_HDR_LEN,
	},
	[SIW_RDMAP_SEND] = {
		.kind = SIW_MSG_SEND, .qn = SIW_QN_SEND,
		.hdr_len = SIW_UNTAGGED_HDR_LEN,
	},
	[SIW_RDMAP_SEND_INV] = {
		.kind = SIW_MSG_SEND, .qn = SIW_QN_SEND,
		.hdr_len = SIW_UNTAGGED_HDR_LEN, .inval = 1,
	},
	[SIW_RDMAP_SEND_SE] = {
		.kind = SIW_MSG_SEND, .qn = SIW_QN_SEND,
		.hdr_len = SIW_UNTAGGED_HDR_LEN, .se = 1,
	},
	[SIW_RDMAP_SEND_SE_INV] = {
		.kind = SIW_MSG_SEND, .qn = SIW_QN_SEND,
		.hdr_len = SIW_UNTAGGED_HDR_LEN, .inval = 1, .se = 1,
	},
	[SIW_RDMAP_TERMINATE] = {
		.kind = SIW_MSG_TERMINATE, .qn = SIW_QN_TERM,
		.hdr_len = SIW_TERM_HDR_LEN, .single = 1,
	},
	[SIW_RDMAP_IMM] = {
		.kind = SIW_MSG_IMM, .qn = SIW_QN_SEND,
		.hdr_len = SIW_IMM_HDR_LEN, .single = 1, .ext = 1, .exact = 1,
	},
	[SIW_RDMAP_IMM_SE] = {
		.kind = SIW_MSG_IMM, .qn = SIW_QN_SEND,
		.hdr_len = SIW_IMM_HDR_LEN, .single = 1, .ext = 1, .exact = 1,
		.se = 1,
	},
	[SIW_RDMAP_ATOMIC_REQ] = {
		.kind = SIW_MSG_ATOMIC_REQ, .qn = SIW_QN_RREQ,
		.hdr_len = SIW_ATOMIC_REQ_HDR_LEN, .single = 1, .ext = 1,
		.exact = 1,
	},
	[SIW_RDMAP_ATOMIC_RESP] = {
		.kind = SIW_MSG_ATOMIC_RESP, .qn = SIW_QN_ATOMIC_RESP,
		.hdr_len = SIW_ATOMIC_RESP_HDR_LEN, .single = 1, .ext = 1,
		.exact = 1,
	},
};

#define SIW_RDMAP_NAME(name, value)	[value] = #name,
static const char *const op_names[SIW_RDMAP_NUM] = {
	SIW_RDMAP_OPCODES(SIW_RDMAP_NAME, SIW_RDMAP_NAME)
};

const char *siw_op_name(u8 opcode)
{
	return opcode < SIW_RDMAP_NUM ? op_names[opcode] : "RESERVED";
}
