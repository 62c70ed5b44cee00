/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause */
/*
 * User/kernel ABI of the software iWARP device.
 *
 * The stock rdma-core "siw" provider talks to the kernel through these
 * structures. Their sizes, offsets and constants are a contract with code
 * we do not ship: selftests/host/abi_test.c compares every one of them with
 * the system's copy of <rdma/siw-abi.h> when it is installed. Never change
 * a layout here; add, do not reorder.
 *
 * Queues (send, receive, shared receive, completion) are arrays of the
 * element structures below in memory the kernel allocates and the process
 * maps with mmap() at the offset returned as the queue's "key". The owner
 * of an element is given by its VALID flag: the producer sets it last, the
 * consumer clears it once done.
 */
#ifndef _UAPI_RDMA_SIW_ABI_H
#define _UAPI_RDMA_SIW_ABI_H

#include <linux/types.h>

#define SIW_NODE_DESC_COMMON	"Software iWARP stack"
#define SIW_ABI_VERSION		1
#define SIW_MAX_SGE		6
#define SIW_UOBJ_MAX_KEY	0x08FFFF
#define SIW_INVAL_UOBJ_KEY	(SIW_UOBJ_MAX_KEY + 1)

/* Response to create_cq: the mmap key of the CQE array (and control word). */
struct siw_uresp_create_cq {
	__u32 cq_id;
	__u32 num_cqe;
	__aligned_u64 cq_key;
};

/* Response to create_qp: queue depths and the mmap keys of SQ and RQ. */
struct siw_uresp_create_qp {
	__u32 qp_id;
	__u32 num_sqe;
	__u32 num_rqe;
	__u32 pad;
	__aligned_u64 sq_key;
	__aligned_u64 rq_key;
};

/* Request of reg_mr: the consumer-chosen low byte of the STag. */
struct siw_ureq_reg_mr {
	__u8 stag_key;
	__u8 reserved[3];
	__u32 pad;
};

struct siw_uresp_reg_mr {
	__u32 stag;
	__u32 pad;
};

struct siw_uresp_create_srq {
	__u32 num_rqe;
	__u32 pad;
	__aligned_u64 srq_key;
};

struct siw_uresp_alloc_ctx {
	__u32 dev_id;
	__u32 pad;
};

/* Work request opcodes as they appear in struct siw_sqe.opcode. */
enum siw_opcode {
	SIW_OP_WRITE,
	SIW_OP_READ,
	SIW_OP_READ_LOCAL_INV,
	SIW_OP_SEND,
	SIW_OP_SEND_WITH_IMM,
	SIW_OP_SEND_REMOTE_INV,

	/* Unsupported by the wire protocol we speak; kept for numbering. */
	SIW_OP_FETCH_AND_ADD,
	SIW_OP_COMP_AND_SWAP,

	SIW_OP_RECEIVE,
	/* Kernel-internal: the transmit side of an inbound Read Request. */
	SIW_OP_READ_RESPONSE,
	/* Kernel consumers only: local invalidate and fast registration. */
	SIW_OP_INVAL_STAG,
	SIW_OP_REG_MR,
	SIW_NUM_OPCODES
};

/* Same layout as struct ibv_sge, so the provider may copy it whole. */
struct siw_sge {
	__aligned_u64 laddr;
	__u32 length;
	__u32 lkey;
};

/* Inline payload occupies the room of sge[1] up to sge[SIW_MAX_SGE - 1]. */
#define SIW_MAX_INLINE (sizeof(struct siw_sge) * (SIW_MAX_SGE - 1))
#if SIW_MAX_SGE < 2
#error "inline data needs SIW_MAX_SGE of at least 2"
#endif

/* Bits of siw_sqe.flags and siw_rqe.flags. */
enum siw_wqe_flags {
	SIW_WQE_VALID = 1,
	SIW_WQE_INLINE = (1 << 1),
	SIW_WQE_SIGNALLED = (1 << 2),
	SIW_WQE_SOLICITED = (1 << 3),
	SIW_WQE_READ_FENCE = (1 << 4),
	SIW_WQE_REM_INVAL = (1 << 5),
	SIW_WQE_COMPLETED = (1 << 6)
};

/* Send queue element. Inline data is carried in place of sge[1..]. */
struct siw_sqe {
	__aligned_u64 id;
	__u16 flags;
	__u8 num_sge;
	__u8 opcode;		/* enum siw_opcode */
	__u32 rkey;
	union {
		__aligned_u64 raddr;
		__aligned_u64 base_mr;	/* SIW_OP_REG_MR: the ib_mr */
	};
	union {
		struct siw_sge sge[SIW_MAX_SGE];
		__aligned_u64 access;	/* SIW_OP_REG_MR: access flags */
	};
};

/* Receive queue element (also used for shared receive queues). */
struct siw_rqe {
	__aligned_u64 id;
	__u16 flags;
	__u8 num_sge;
	__u8 opcode;
	__u32 unused;
	struct siw_sge sge[SIW_MAX_SGE];
};

/* Bits of siw_cq_ctrl.flags: how the CQ is armed. */
enum siw_notify_flags {
	SIW_NOTIFY_NOT = (0),
	SIW_NOTIFY_SOLICITED = (1 << 0),
	SIW_NOTIFY_NEXT_COMPLETION = (1 << 1),
	SIW_NOTIFY_MISSED_EVENTS = (1 << 2),
	SIW_NOTIFY_ALL = SIW_NOTIFY_SOLICITED | SIW_NOTIFY_NEXT_COMPLETION |
			 SIW_NOTIFY_MISSED_EVENTS
};

/* Completion status as carried in siw_cqe.status. */
enum siw_wc_status {
	SIW_WC_SUCCESS,
	SIW_WC_LOC_LEN_ERR,
	SIW_WC_LOC_PROT_ERR,
	SIW_WC_LOC_QP_OP_ERR,
	SIW_WC_WR_FLUSH_ERR,
	SIW_WC_BAD_RESP_ERR,
	SIW_WC_LOC_ACCESS_ERR,
	SIW_WC_REM_ACCESS_ERR,
	SIW_WC_REM_INV_REQ_ERR,
	SIW_WC_GENERAL_ERR,
	SIW_NUM_WC_STATUS
};

/* Completion queue element. */
struct siw_cqe {
	__aligned_u64 id;
	__u8 flags;
	__u8 opcode;
	__u16 status;
	__u32 bytes;
	union {
		__aligned_u64 imm_data;
		__u32 inval_stag;
	};
	/* Kernel CQs carry the QP pointer, user CQs the QP number. */
	union {
		struct ib_qp *base_qp;
		__aligned_u64 qp_id;
	};
};

/*
 * Lives right behind the CQE array in the CQ's mapping: the provider sets
 * the arming bits here instead of making a system call.
 */
struct siw_cq_ctrl {
	__u32 flags;
	__u32 pad;
};
#endif
