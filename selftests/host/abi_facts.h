/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/*
 * Every fact of the siw user ABI that binary compatibility depends on:
 * structure sizes, member offsets and sizes, and constants. Included twice,
 * once in a unit built against the system's <rdma/siw-abi.h> and once in a
 * unit built against ours, with FACT() defined to record a value.
 */
#define MEMBER(type, m)                                                  \
	FACT(#type "." #m " offset", offsetof(struct type, m))           \
	FACT(#type "." #m " size", sizeof(((struct type *)0)->m))

FACT("SIW_ABI_VERSION", SIW_ABI_VERSION)
FACT("SIW_MAX_SGE", SIW_MAX_SGE)
FACT("SIW_MAX_INLINE", SIW_MAX_INLINE)
FACT("SIW_UOBJ_MAX_KEY", SIW_UOBJ_MAX_KEY)
FACT("SIW_INVAL_UOBJ_KEY", SIW_INVAL_UOBJ_KEY)
FACT("sizeof(SIW_NODE_DESC_COMMON)", sizeof(SIW_NODE_DESC_COMMON))

FACT("sizeof siw_uresp_create_cq", sizeof(struct siw_uresp_create_cq))
MEMBER(siw_uresp_create_cq, cq_id)
MEMBER(siw_uresp_create_cq, num_cqe)
MEMBER(siw_uresp_create_cq, cq_key)

FACT("sizeof siw_uresp_create_qp", sizeof(struct siw_uresp_create_qp))
MEMBER(siw_uresp_create_qp, qp_id)
MEMBER(siw_uresp_create_qp, num_sqe)
MEMBER(siw_uresp_create_qp, num_rqe)
MEMBER(siw_uresp_create_qp, sq_key)
MEMBER(siw_uresp_create_qp, rq_key)

FACT("sizeof siw_ureq_reg_mr", sizeof(struct siw_ureq_reg_mr))
MEMBER(siw_ureq_reg_mr, stag_key)
FACT("sizeof siw_uresp_reg_mr", sizeof(struct siw_uresp_reg_mr))
MEMBER(siw_uresp_reg_mr, stag)

FACT("sizeof siw_uresp_create_srq", sizeof(struct siw_uresp_create_srq))
MEMBER(siw_uresp_create_srq, num_rqe)
MEMBER(siw_uresp_create_srq, srq_key)

FACT("sizeof siw_uresp_alloc_ctx", sizeof(struct siw_uresp_alloc_ctx))
MEMBER(siw_uresp_alloc_ctx, dev_id)

FACT("SIW_OP_WRITE", SIW_OP_WRITE)
FACT("SIW_OP_READ", SIW_OP_READ)
FACT("SIW_OP_READ_LOCAL_INV", SIW_OP_READ_LOCAL_INV)
FACT("SIW_OP_SEND", SIW_OP_SEND)
FACT("SIW_OP_SEND_WITH_IMM", SIW_OP_SEND_WITH_IMM)
FACT("SIW_OP_SEND_REMOTE_INV", SIW_OP_SEND_REMOTE_INV)
FACT("SIW_OP_FETCH_AND_ADD", SIW_OP_FETCH_AND_ADD)
FACT("SIW_OP_COMP_AND_SWAP", SIW_OP_COMP_AND_SWAP)
FACT("SIW_OP_RECEIVE", SIW_OP_RECEIVE)
FACT("SIW_OP_READ_RESPONSE", SIW_OP_READ_RESPONSE)
FACT("SIW_OP_INVAL_STAG", SIW_OP_INVAL_STAG)
FACT("SIW_OP_REG_MR", SIW_OP_REG_MR)
FACT("SIW_NUM_OPCODES", SIW_NUM_OPCODES)

FACT("sizeof siw_sge", sizeof(struct siw_sge))
MEMBER(siw_sge, laddr)
MEMBER(siw_sge, length)
MEMBER(siw_sge, lkey)

FACT("SIW_WQE_VALID", SIW_WQE_VALID)
FACT("SIW_WQE_INLINE", SIW_WQE_INLINE)
FACT("SIW_WQE_SIGNALLED", SIW_WQE_SIGNALLED)
FACT("SIW_WQE_SOLICITED", SIW_WQE_SOLICITED)
FACT("SIW_WQE_READ_FENCE", SIW_WQE_READ_FENCE)
FACT("SIW_WQE_REM_INVAL", SIW_WQE_REM_INVAL)
FACT("SIW_WQE_COMPLETED", SIW_WQE_COMPLETED)

FACT("sizeof siw_sqe", sizeof(struct siw_sqe))
MEMBER(siw_sqe, id)
MEMBER(siw_sqe, flags)
MEMBER(siw_sqe, num_sge)
MEMBER(siw_sqe, opcode)
MEMBER(siw_sqe, rkey)
MEMBER(siw_sqe, raddr)
MEMBER(siw_sqe, base_mr)
MEMBER(siw_sqe, sge)
MEMBER(siw_sqe, access)

FACT("sizeof siw_rqe", sizeof(struct siw_rqe))
MEMBER(siw_rqe, id)
MEMBER(siw_rqe, flags)
MEMBER(siw_rqe, num_sge)
MEMBER(siw_rqe, opcode)
MEMBER(siw_rqe, sge)

FACT("SIW_NOTIFY_NOT", SIW_NOTIFY_NOT)
FACT("SIW_NOTIFY_SOLICITED", SIW_NOTIFY_SOLICITED)
FACT("SIW_NOTIFY_NEXT_COMPLETION", SIW_NOTIFY_NEXT_COMPLETION)
FACT("SIW_NOTIFY_MISSED_EVENTS", SIW_NOTIFY_MISSED_EVENTS)
FACT("SIW_NOTIFY_ALL", SIW_NOTIFY_ALL)

FACT("SIW_WC_SUCCESS", SIW_WC_SUCCESS)
FACT("SIW_WC_LOC_LEN_ERR", SIW_WC_LOC_LEN_ERR)
FACT("SIW_WC_LOC_PROT_ERR", SIW_WC_LOC_PROT_ERR)
FACT("SIW_WC_LOC_QP_OP_ERR", SIW_WC_LOC_QP_OP_ERR)
FACT("SIW_WC_WR_FLUSH_ERR", SIW_WC_WR_FLUSH_ERR)
FACT("SIW_WC_BAD_RESP_ERR", SIW_WC_BAD_RESP_ERR)
FACT("SIW_WC_LOC_ACCESS_ERR", SIW_WC_LOC_ACCESS_ERR)
FACT("SIW_WC_REM_ACCESS_ERR", SIW_WC_REM_ACCESS_ERR)
FACT("SIW_WC_REM_INV_REQ_ERR", SIW_WC_REM_INV_REQ_ERR)
FACT("SIW_WC_GENERAL_ERR", SIW_WC_GENERAL_ERR)
FACT("SIW_NUM_WC_STATUS", SIW_NUM_WC_STATUS)

FACT("sizeof siw_cqe", sizeof(struct siw_cqe))
MEMBER(siw_cqe, id)
MEMBER(siw_cqe, flags)
MEMBER(siw_cqe, opcode)
MEMBER(siw_cqe, status)
MEMBER(siw_cqe, bytes)
MEMBER(siw_cqe, imm_data)
MEMBER(siw_cqe, inval_stag)
MEMBER(siw_cqe, base_qp)
MEMBER(siw_cqe, qp_id)

FACT("sizeof siw_cq_ctrl", sizeof(struct siw_cq_ctrl))
MEMBER(siw_cq_ctrl, flags)

#undef MEMBER
