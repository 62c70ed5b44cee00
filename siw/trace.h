/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/*
 * siw's tracepoints, system "siw" (Documentation/debugging.rst). Each one
 * costs a static branch while off; what needs work to compute (addresses,
 * names) is computed in TP_fast_assign, which runs only when the event is
 * enabled, or behind trace_*_enabled() at the call site.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM siw

#if !defined(SIW_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SIW_TRACE_H

#include <linux/tracepoint.h>
#include <linux/in6.h>
#include <rdma/ib_verbs.h>
#include <rdma/siw-abi.h>

#include "proto.h"
#include "wr_ops.h"
#include "cm.h"
#include "siw.h"

/* Names for __print_symbolic(); the values are exported for trace-cmd. */
/* State and opcode names are their lists' (cm.h, qp.h, proto.h, wr_ops.h). */
#define SIW_TRACE_CEP_EM(name)		EM(SIW_CEP_##name, #name)
#define SIW_TRACE_CEP_EMe(name)		EMe(SIW_CEP_##name, #name)
#define SIW_TRACE_CEP_STATES \
	SIW_CEP_STATES(SIW_TRACE_CEP_EM, SIW_TRACE_CEP_EMe)

#define SIW_TRACE_QP_EM(name)		EM(IB_QPS_##name, #name)
#define SIW_TRACE_QP_EMe(name)		EMe(IB_QPS_##name, #name)
#define SIW_TRACE_QP_STATES \
	SIW_QP_STATES(SIW_TRACE_QP_EM, SIW_TRACE_QP_EMe)

#define SIW_TRACE_RDMAP_EM(name, value)		EM(SIW_RDMAP_##name, #name)
#define SIW_TRACE_RDMAP_EMe(name, value)	EMe(SIW_RDMAP_##name, #name)
#define SIW_TRACE_RDMAP_OPS \
	SIW_RDMAP_OPCODES(SIW_TRACE_RDMAP_EM, SIW_TRACE_RDMAP_EMe)

#define SIW_TRACE_WR_EM(name)		EM(SIW_OP_##name, #name)
#define SIW_TRACE_WR_EMe(name)		EMe(SIW_OP_##name, #name)
#define SIW_TRACE_WR_OPS \
	SIW_WR_OPCODES(SIW_TRACE_WR_EM, SIW_TRACE_WR_EMe)

#define SIW_TRACE_WC_STATUS					\
	EM(SIW_WC_SUCCESS, "SUCCESS")				\
	EM(SIW_WC_LOC_LEN_ERR, "LOC_LEN_ERR")			\
	EM(SIW_WC_LOC_PROT_ERR, "LOC_PROT_ERR")			\
	EM(SIW_WC_LOC_QP_OP_ERR, "LOC_QP_OP_ERR")		\
	EM(SIW_WC_WR_FLUSH_ERR, "WR_FLUSH_ERR")			\
	EM(SIW_WC_BAD_RESP_ERR, "BAD_RESP_ERR")			\
	EM(SIW_WC_LOC_ACCESS_ERR, "LOC_ACCESS_ERR")		\
	EM(SIW_WC_REM_ACCESS_ERR, "REM_ACCESS_ERR")		\
	EM(SIW_WC_REM_INV_REQ_ERR, "REM_INV_REQ_ERR")		\
	EMe(SIW_WC_GENERAL_ERR, "GENERAL_ERR")

#define SIW_TRACE_TERM_LAYERS					\
	EM(SIW_TERM_LAYER_RDMAP, "RDMAP")			\
	EM(SIW_TERM_LAYER_DDP, "DDP")				\
	EMe(SIW_TERM_LAYER_LLP, "MPA")

#ifndef SIW_TRACE_TYPES_H	/* once, though this file is read repeatedly */
#define SIW_TRACE_TYPES_H
/* The work queues a work request can be on. */
enum siw_trace_queue {
	SIW_TRACE_SQ,
	SIW_TRACE_RQ,
	SIW_TRACE_SRQ,
	SIW_TRACE_IRQ,		/* inbound Read Requests to answer */
	SIW_TRACE_ORQ,		/* our outstanding Read Requests */
};

/* "addr:port -> addr:port" for siw_cep_state, "-" for an unknown end. */
#define SIW_TRACE_ADDRS_LEN	112
static inline bool siw_trace_addr_known(const struct sockaddr_storage *a)
{
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_port != 0;
	if (a->ss_family == AF_INET6)
		return ((const struct sockaddr_in6 *)a)->sin6_port != 0;
	return false;
}

static inline void siw_trace_addrs(char *buf,
				   const struct sockaddr_storage *l,
				   const struct sockaddr_storage *r)
{
	int n = 0;

	if (siw_trace_addr_known(l))
		n = scnprintf(buf, SIW_TRACE_ADDRS_LEN, "%pISpc", l);
	else
		n = scnprintf(buf, SIW_TRACE_ADDRS_LEN, "-");
	if (siw_trace_addr_known(r))
		scnprintf(buf + n, SIW_TRACE_ADDRS_LEN - n, " -> %pISpc", r);
	else
		scnprintf(buf + n, SIW_TRACE_ADDRS_LEN - n, " -> -");
}
#endif

#define SIW_TRACE_QUEUES					\
	EM(SIW_TRACE_SQ, "SQ")					\
	EM(SIW_TRACE_RQ, "RQ")					\
	EM(SIW_TRACE_SRQ, "SRQ")				\
	EM(SIW_TRACE_IRQ, "IRQ")				\
	EMe(SIW_TRACE_ORQ, "ORQ")

#undef EM
#undef EMe
#define EM(a, b)	TRACE_DEFINE_ENUM(a);
#define EMe(a, b)	TRACE_DEFINE_ENUM(a);
SIW_TRACE_CEP_STATES
SIW_TRACE_QP_STATES
SIW_TRACE_RDMAP_OPS
SIW_TRACE_WR_OPS
SIW_TRACE_WC_STATUS
SIW_TRACE_QUEUES
/* The Terminate layers are plain numbers (#defines): nothing to export. */
#undef EM
#undef EMe
#define EM(a, b)	{ a, b },
#define EMe(a, b)	{ a, b }

#define siw_show_cep_state(s)	__print_symbolic(s, SIW_TRACE_CEP_STATES)
#define siw_show_qp_state(s)	__print_symbolic(s, SIW_TRACE_QP_STATES)
#define siw_show_rdmap_op(o)	__print_symbolic(o, SIW_TRACE_RDMAP_OPS)
#define siw_show_wr_op(o)	__print_symbolic(o, SIW_TRACE_WR_OPS)
#define siw_show_wc_status(s)	__print_symbolic(s, SIW_TRACE_WC_STATUS)
#define siw_show_term_layer(l)	__print_symbolic(l, SIW_TRACE_TERM_LAYERS)
#define siw_show_queue(q)	__print_symbolic(q, SIW_TRACE_QUEUES)

/* Connection endpoint state changes, with both ends' addresses. */
TRACE_EVENT(siw_cep_state,
	TP_PROTO(const struct siw_cep *cep, u32 qpn, int old, int new,
		 const struct sockaddr_storage *laddr,
		 const struct sockaddr_storage *raddr),
	TP_ARGS(cep, qpn, old, new, laddr, raddr),
	TP_STRUCT__entry(
		__string(dev, dev_name(&cep->sdev->base_dev.dev))
		__field(u32, cep_id)
		__field(u32, qpn)
		__field(int, old)
		__field(int, new)
		__array(char, addrs, SIW_TRACE_ADDRS_LEN)
	),
	TP_fast_assign(
		siw_assign_str(dev, dev_name(&cep->sdev->base_dev.dev));
		__entry->cep_id = cep->id;
		__entry->qpn = qpn;
		__entry->old = old;
		__entry->new = new;
		siw_trace_addrs(__entry->addrs, laddr, raddr);
	),
	TP_printk("%s cep %u qp %u %s -> %s %s",
		  __get_str(dev),
		  __entry->cep_id, __entry->qpn,
		  siw_show_cep_state(__entry->old),
		  siw_show_cep_state(__entry->new), __entry->addrs)
);

/* An MPA request or reply (a reject is a reply with R) on the wire. */
TRACE_EVENT(siw_mpa_frame,
	TP_PROTO(const struct siw_cep *cep, bool sent,
		 const struct siw_mpa_info *f),
	TP_ARGS(cep, sent, f),
	TP_STRUCT__entry(
		__string(dev, dev_name(&cep->sdev->base_dev.dev))
		__field(u32, cep_id)
		__field(bool, sent)
		__field(bool, reply)
		__field(u8, rev)
		__field(bool, markers)
		__field(bool, crc)
		__field(bool, reject)
		__field(bool, enhanced)
		__field(bool, gso)
		__field(bool, p2p)
		__field(u8, rtr)
		__field(u16, ird)
		__field(u16, ord)
		__field(u16, pd_len)
	),
	TP_fast_assign(
		siw_assign_str(dev, dev_name(&cep->sdev->base_dev.dev));
		__entry->cep_id = cep->id;
		__entry->sent = sent;
		__entry->reply = f->kind == SIW_MPA_REPLY;
		__entry->rev = f->revision;
		__entry->markers = f->markers;
		__entry->crc = f->crc;
		__entry->reject = f->reject;
		__entry->enhanced = f->enhanced;
		__entry->gso = f->gso;
		__entry->p2p = f->p2p;
		__entry->rtr = f->rtr;
		__entry->ird = f->ird;
		__entry->ord = f->ord;
		__entry->pd_len = f->ulp_pd_len;
	),
	TP_printk("%s cep %u %s MPA %s rev %u M %u C %u S %u gso %u p2p %u rtr 0x%x ird %u ord %u pdata %u",
		  __get_str(dev),
		  __entry->cep_id, __entry->sent ? "sent" : "received",
		  __entry->reply ? (__entry->reject ? "reject" : "reply") :
				   "request",
		  __entry->rev, __entry->markers, __entry->crc,
		  __entry->enhanced, __entry->gso, __entry->p2p,
		  __entry->rtr, __entry->ird, __entry->ord, __entry->pd_len)
);

/* What a connection negotiated, when it hands the stream to the QP. */
TRACE_EVENT(siw_cm_established,
	TP_PROTO(const struct siw_cep *cep, u32 qpn,
		 const struct siw_mpa_result *r, u32 mulpdu),
	TP_ARGS(cep, qpn, r, mulpdu),
	TP_STRUCT__entry(
		__string(dev, dev_name(&cep->sdev->base_dev.dev))
		__field(u32, cep_id)
		__field(u32, qpn)
		__field(u8, rev)
		__field(bool, crc)
		__field(bool, p2p)
		__field(u8, rtr)
		__field(u16, ird)
		__field(u16, ord)
		__field(bool, gso)
		__field(u32, mulpdu)
	),
	TP_fast_assign(
		siw_assign_str(dev, dev_name(&cep->sdev->base_dev.dev));
		__entry->cep_id = cep->id;
		__entry->qpn = qpn;
		__entry->rev = r->revision;
		__entry->crc = r->crc;
		__entry->p2p = r->p2p;
		__entry->rtr = r->rtr;
		__entry->ird = r->ird;
		__entry->ord = r->ord;
		__entry->gso = r->gso;
		__entry->mulpdu = mulpdu;
	),
	TP_printk("%s cep %u qp %u rev %u crc %u p2p %u rtr 0x%x ird %u ord %u gso %u mulpdu %u",
		  __get_str(dev),
		  __entry->cep_id, __entry->qpn, __entry->rev, __entry->crc,
		  __entry->p2p, __entry->rtr, __entry->ird, __entry->ord,
		  __entry->gso, __entry->mulpdu)
);

/* A work request taken up: a send queue element starts, a receive fills. */
TRACE_EVENT(siw_wqe_start,
	TP_PROTO(const struct siw_qp *qp, enum siw_trace_queue q, u32 pos,
		 u64 wr_id, u8 opcode, u64 len),
	TP_ARGS(qp, q, pos, wr_id, opcode, len),
	TP_STRUCT__entry(
		__string(dev, dev_name(&qp->sdev->base_dev.dev))
		__field(u32, qpn)
		__field(int, q)
		__field(u32, pos)
		__field(u64, wr_id)
		__field(u8, opcode)
		__field(u64, len)
	),
	TP_fast_assign(
		siw_assign_str(dev, dev_name(&qp->sdev->base_dev.dev));
		__entry->qpn = qp->base_qp.qp_num;
		__entry->q = q;
		__entry->pos = pos;
		__entry->wr_id = wr_id;
		__entry->opcode = opcode;
		__entry->len = len;
	),
	TP_printk("%s qp %u %s[%u] wr_id 0x%llx %s len %llu",
		  __get_str(dev),
		  __entry->qpn, siw_show_queue(__entry->q), __entry->pos,
		  __entry->wr_id, siw_show_wr_op(__entry->opcode),
		  __entry->len)
);

/* A completion written to a CQ. */
TRACE_EVENT(siw_cqe,
	TP_PROTO(const struct siw_cq *cq, u32 qpn, const struct siw_cqe *c),
	TP_ARGS(cq, qpn, c),
	TP_STRUCT__entry(
		__string(dev, dev_name(&cq->base_cq.device->dev))
		__field(u32, cq_id)
		__field(u32, qpn)
		__field(u64, wr_id)
		__field(u8, opcode)
		__field(u16, status)
		__field(u32, bytes)
	),
	TP_fast_assign(
		siw_assign_str(dev, dev_name(&cq->base_cq.device->dev));
		__entry->cq_id = cq->id;
		__entry->qpn = qpn;
		__entry->wr_id = c->id;
		__entry->opcode = c->opcode;
		__entry->status = c->status;
		__entry->bytes = c->bytes;
	),
	TP_printk("%s cq %u qp %u wr_id 0x%llx %s %s bytes %u",
		  __get_str(dev),
		  __entry->cq_id, __entry->qpn, __entry->wr_id,
		  siw_show_wr_op(__entry->opcode),
		  siw_show_wc_status(__entry->status), __entry->bytes)
);

/* One FPDU at the DDP level, as sent or as received (header checked). */
DECLARE_EVENT_CLASS(siw_fpdu_class,
	TP_PROTO(const struct siw_qp *qp, const struct siw_hdr *h, u32 payload),
	TP_ARGS(qp, h, payload),
	TP_STRUCT__entry(
		__string(dev, dev_name(&qp->sdev->base_dev.dev))
		__field(u32, qpn)
		__field(u8, opcode)
		__field(bool, tagged)
		__field(bool, last)
		__field(u32, stag)
		__field(u64, to)
		__field(u32, qn)
		__field(u32, msn)
		__field(u32, mo)
		__field(u32, payload)
	),
	TP_fast_assign(
		siw_assign_str(dev, dev_name(&qp->sdev->base_dev.dev));
		__entry->qpn = qp->base_qp.qp_num;
		__entry->opcode = h->opcode;
		__entry->tagged = h->tagged;
		__entry->last = h->last;
		__entry->stag = h->stag;
		__entry->to = h->to;
		__entry->qn = h->qn;
		__entry->msn = h->msn;
		__entry->mo = h->mo;
		__entry->payload = payload;
	),
	TP_printk("%s qp %u %s %s stag 0x%08x to 0x%llx qn %u msn %u mo %u len %u%s",
		  __get_str(dev),
		  __entry->qpn, siw_show_rdmap_op(__entry->opcode),
		  __entry->tagged ? "tagged" : "untagged",
		  __entry->tagged ? __entry->stag : 0,
		  __entry->tagged ? __entry->to : 0,
		  __entry->tagged ? 0 : __entry->qn,
		  __entry->tagged ? 0 : __entry->msn,
		  __entry->tagged ? 0 : __entry->mo,
		  __entry->payload, __entry->last ? " L" : "")
);

DEFINE_EVENT(siw_fpdu_class, siw_fpdu_tx,
	TP_PROTO(const struct siw_qp *qp, const struct siw_hdr *h, u32 payload),
	TP_ARGS(qp, h, payload)
);

DEFINE_EVENT(siw_fpdu_class, siw_fpdu_rx,
	TP_PROTO(const struct siw_qp *qp, const struct siw_hdr *h, u32 payload),
	TP_ARGS(qp, h, payload)
);

/* An RDMA Read Request, sent (ORQ) or received (IRQ). */
TRACE_EVENT(siw_read_request,
	TP_PROTO(const struct siw_qp *qp, enum siw_trace_queue q,
		 const struct siw_rreq *r),
	TP_ARGS(qp, q, r),
	TP_STRUCT__entry(
		__string(dev, dev_name(&qp->sdev->base_dev.dev))
		__field(u32, qpn)
		__field(int, q)
		__field(u32, sink_stag)
		__field(u64, sink_to)
		__field(u32, src_stag)
		__field(u64, src_to)
		__field(u32, size)
	),
	TP_fast_assign(
		siw_assign_str(dev, dev_name(&qp->sdev->base_dev.dev));
		__entry->qpn = qp->base_qp.qp_num;
		__entry->q = q;
		__entry->sink_stag = r->sink_stag;
		__entry->sink_to = r->sink_to;
		__entry->src_stag = r->src_stag;
		__entry->src_to = r->src_to;
		__entry->size = r->size;
	),
	TP_printk("%s qp %u %s size %u src 0x%08x:0x%llx sink 0x%08x:0x%llx",
		  __get_str(dev),
		  __entry->qpn,
		  __entry->q == SIW_TRACE_ORQ ? "sent" : "received",
		  __entry->size, __entry->src_stag, __entry->src_to,
		  __entry->sink_stag, __entry->sink_to)
);

/* A Terminate sent or received, with the header it echoes. */
TRACE_EVENT(siw_terminate,
	TP_PROTO(const struct siw_qp *qp, bool sent, u8 layer, u8 etype,
		 u8 ecode, const char *name, const u8 *hdr, u32 hdr_len),
	TP_ARGS(qp, sent, layer, etype, ecode, name, hdr, hdr_len),
	TP_STRUCT__entry(
		__string(dev, dev_name(&qp->sdev->base_dev.dev))
		__field(u32, qpn)
		__field(bool, sent)
		__field(u8, layer)
		__field(u8, etype)
		__field(u8, ecode)
		__string(name, name)
		__field(u32, hdr_len)
		__array(u8, hdr, SIW_FPDU_HDR_MAX)
	),
	TP_fast_assign(
		siw_assign_str(dev, dev_name(&qp->sdev->base_dev.dev));
		__entry->qpn = qp->base_qp.qp_num;
		__entry->sent = sent;
		__entry->layer = layer;
		__entry->etype = etype;
		__entry->ecode = ecode;
		siw_assign_str(name, name);
		__entry->hdr_len = min_t(u32, hdr_len, SIW_FPDU_HDR_MAX);
		memset(__entry->hdr, 0, SIW_FPDU_HDR_MAX);
		if (hdr)
			memcpy(__entry->hdr, hdr, __entry->hdr_len);
	),
	TP_printk("%s qp %u %s %s type %u code 0x%02x (%s) hdr %s",
		  __get_str(dev),
		  __entry->qpn, __entry->sent ? "sent" : "received",
		  siw_show_term_layer(__entry->layer), __entry->etype,
		  __entry->ecode, __get_str(name),
		  __print_hex_str(__entry->hdr, __entry->hdr_len))
);

/* A QP state change, and what caused it. */
TRACE_EVENT(siw_qp_state,
	TP_PROTO(const struct siw_qp *qp, int old, int new, const char *cause),
	TP_ARGS(qp, old, new, cause),
	TP_STRUCT__entry(
		__string(dev, dev_name(&qp->sdev->base_dev.dev))
		__field(u32, qpn)
		__field(int, old)
		__field(int, new)
		__string(cause, cause)
	),
	TP_fast_assign(
		siw_assign_str(dev, dev_name(&qp->sdev->base_dev.dev));
		__entry->qpn = qp->base_qp.qp_num;
		__entry->old = old;
		__entry->new = new;
		siw_assign_str(cause, cause);
	),
	TP_printk("%s qp %u %s -> %s (%s)",
		  __get_str(dev), __entry->qpn,
		  siw_show_qp_state(__entry->old),
		  siw_show_qp_state(__entry->new), __get_str(cause))
);

/* Work requests flushed from a queue. */
TRACE_EVENT(siw_flush,
	TP_PROTO(const struct siw_qp *qp, enum siw_trace_queue q, u32 count),
	TP_ARGS(qp, q, count),
	TP_STRUCT__entry(
		__string(dev, dev_name(&qp->sdev->base_dev.dev))
		__field(u32, qpn)
		__field(int, q)
		__field(u32, count)
	),
	TP_fast_assign(
		siw_assign_str(dev, dev_name(&qp->sdev->base_dev.dev));
		__entry->qpn = qp->base_qp.qp_num;
		__entry->q = q;
		__entry->count = count;
	),
	TP_printk("%s qp %u %s: %u flushed",
		  __get_str(dev), __entry->qpn,
		  siw_show_queue(__entry->q), __entry->count)
);

#endif /* SIW_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
