/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/*
 * siw's counters (stats.c), for `rdma statistic show link DEV/1` through
 * the RDMA core's hardware-statistics interface, and per QP for
 * `rdma resource show qp -dd`.
 *
 * The counters of the data path live in each QP, written by one context
 * at a time: the transmit side's under the QP's tx_lock, the receive
 * side's by the socket's receive path, which runs once at a time per
 * socket. Readers add them up without locks (a 64-bit read is whole on
 * the 64-bit machines siw is built for). A destroyed QP's counts move to
 * the device's "retired" sum. Connection events are rare and per device:
 * atomics.
 */
#ifndef SIW_STATS_H
#define SIW_STATS_H

#include <linux/types.h>

struct siw_qp;
struct siw_device;
struct ib_device;
struct rdma_hw_stats;

/*
 * Every counter once: X(NAME, "name shown by rdma statistic"). The QP's
 * counters come first; SIW_STAT_QP_NUM ends them.
 */
#define SIW_QP_STATS(X)							\
	/* Transmit side (tx_lock). */					\
	X(FPDU_TX,		"fpdus_sent")				\
	X(BYTES_TX,		"payload_bytes_sent")	/* of those */	\
	/* Messages by enum siw_msg_kind, in its order (SIW_STAT_MSG_TX). */ \
	X(SEND_TX,		"sends_sent")				\
	X(WRITE_TX,		"writes_sent")				\
	X(READ_REQ_TX,		"read_requests_sent")			\
	X(READ_RESP_TX,		"read_responses_sent")			\
	X(IMM_TX,		"immediate_data_sent")			\
	X(ATOMIC_REQ_TX,	"atomic_requests_sent")			\
	X(ATOMIC_RESP_TX,	"atomic_responses_sent")		\
	/* Terminates, by layer. */					\
	X(TERM_TX_RDMAP,	"terminates_sent_rdmap")		\
	X(TERM_TX_DDP,		"terminates_sent_ddp")			\
	X(TERM_TX_MPA,		"terminates_sent_mpa")			\
	X(RTR_TX,		"rtrs_sent")				\
	X(TX_WORKER_RUNS,	"tx_worker_runs")			\
	X(TX_INLINE_RUNS,	"tx_inline_runs")	/* in a doorbell */ \
	/* Read Responses sent from the receive softirq */		\
	X(TX_SOFTIRQ_RUNS,	"tx_softirq_runs")			\
	/* Receive side (the socket's receive path). */			\
	X(FPDU_RX,		"fpdus_received")			\
	X(BYTES_RX,		"payload_bytes_received")		\
	X(SEND_RX,		"sends_received")			\
	X(WRITE_RX,		"writes_received")			\
	X(READ_REQ_RX,		"read_requests_received")		\
	X(READ_RESP_RX,		"read_responses_received")		\
	X(IMM_RX,		"immediate_data_received")		\
	X(ATOMIC_REQ_RX,	"atomic_requests_received")		\
	X(ATOMIC_RESP_RX,	"atomic_responses_received")		\
	X(CRC_ERR,		"crc_errors")				\
	X(TERM_RX_RDMAP,	"terminates_received_rdmap")		\
	X(TERM_RX_DDP,		"terminates_received_ddp")		\
	X(TERM_RX_MPA,		"terminates_received_mpa")		\
	X(RTR_RX,		"rtrs_received")			\
	/* Taken from the socket when it goes, and when read. */	\
	X(RETRANS_BYTES,	"tcp_retransmitted_bytes")

/* The device's (atomics). */
#define SIW_DEV_STATS(X)						\
	X(CONN_ESTABLISHED,	"connections_established")		\
	/* by either side's ULP, or MPA */				\
	X(CONN_REJECTED,	"connections_rejected")			\
	/* the MPA exchange ran out of time */				\
	X(CONN_TIMEOUT,		"connections_timed_out")		\
	/* TCP or MPA failed while connecting */			\
	X(CONN_RESET,		"connections_reset")			\
	/* established connections by revision and CRC mode */		\
	X(MPA_REV1,		"mpa_rev1_connections")			\
	X(MPA_REV2,		"mpa_rev2_connections")			\
	X(MPA_CRC_ON,		"mpa_crc_connections")			\
	X(MPA_CRC_OFF,		"mpa_no_crc_connections")		\
	/* a responder's hold delayed a send */				\
	X(FIRST_FPDU_LATE,	"first_fpdu_waits_expired")

#define SIW_STAT_ENUM_ENTRY(id, name)	SIW_STAT_##id,
enum siw_stat {
	SIW_QP_STATS(SIW_STAT_ENUM_ENTRY)
	SIW_STAT_QP_NUM,
	/* The device's follow, the first numbered SIW_STAT_QP_NUM. */
	SIW_STAT_DEV_BEFORE = SIW_STAT_QP_NUM - 1,
	SIW_DEV_STATS(SIW_STAT_ENUM_ENTRY)
	SIW_STAT_NUM
};
#undef SIW_STAT_ENUM_ENTRY

/* The counter of messages of enum siw_msg_kind k sent or received. */
#define SIW_STAT_MSG_TX(k)	(SIW_STAT_SEND_TX + (k))
#define SIW_STAT_MSG_RX(k)	(SIW_STAT_SEND_RX + (k))

#define SIW_STAT_DEV_NUM	(SIW_STAT_NUM - SIW_STAT_QP_NUM)

/* Adds n to a QP counter: only from the context that owns it (above). */
#define siw_qp_stat_add(qp, idx, n) \
	WRITE_ONCE((qp)->stats[idx], (qp)->stats[idx] + (n))

void siw_dev_stat_inc(struct siw_device *sdev, enum siw_stat idx);
void siw_stats_qp_retire(struct siw_qp *qp);
u64 siw_qp_stat_read(struct siw_qp *qp, enum siw_stat idx);
const char *siw_stat_name(enum siw_stat idx);

struct rdma_hw_stats *siw_alloc_hw_port_stats(struct ib_device *ibdev,
					      u32 port);
int siw_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		     u32 port, int index);

#endif /* SIW_STATS_H */
