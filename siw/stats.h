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

enum siw_stat {
	/* Per QP, transmit side (tx_lock). */
	SIW_STAT_FPDU_TX,
	SIW_STAT_BYTES_TX,		/* payload bytes of those FPDUs */
	SIW_STAT_SEND_TX,		/* messages, by RDMAP opcode */
	SIW_STAT_WRITE_TX,
	SIW_STAT_READ_REQ_TX,
	SIW_STAT_READ_RESP_TX,
	SIW_STAT_IMM_TX,		/* RFC 7306 Immediate Data */
	SIW_STAT_ATOMIC_REQ_TX,
	SIW_STAT_ATOMIC_RESP_TX,
	SIW_STAT_TERM_TX_RDMAP,		/* Terminates sent, by layer */
	SIW_STAT_TERM_TX_DDP,
	SIW_STAT_TERM_TX_MPA,
	SIW_STAT_RTR_TX,
	SIW_STAT_TX_WORKER_RUNS,	/* transmit runs of the worker */
	SIW_STAT_TX_INLINE_RUNS,	/* and in a user's doorbell */
	/* Per QP, receive side (the socket's receive path). */
	SIW_STAT_FPDU_RX,
	SIW_STAT_BYTES_RX,
	SIW_STAT_SEND_RX,
	SIW_STAT_WRITE_RX,
	SIW_STAT_READ_REQ_RX,
	SIW_STAT_READ_RESP_RX,
	SIW_STAT_IMM_RX,
	SIW_STAT_ATOMIC_REQ_RX,
	SIW_STAT_ATOMIC_RESP_RX,
	SIW_STAT_CRC_ERR,
	SIW_STAT_TERM_RX_RDMAP,
	SIW_STAT_TERM_RX_DDP,
	SIW_STAT_TERM_RX_MPA,
	SIW_STAT_RTR_RX,
	/* Per QP, taken from the socket when it goes, and when read. */
	SIW_STAT_RETRANS_BYTES,
	SIW_STAT_QP_NUM,
	/* Per device (atomics). */
	SIW_STAT_CONN_ESTABLISHED = SIW_STAT_QP_NUM,
	SIW_STAT_CONN_REJECTED,		/* by either side's ULP, or MPA */
	SIW_STAT_CONN_TIMEOUT,		/* the MPA exchange ran out of time */
	SIW_STAT_CONN_RESET,		/* TCP or MPA failed while connecting */
	SIW_STAT_MPA_REV1,		/* established connections by revision */
	SIW_STAT_MPA_REV2,
	SIW_STAT_MPA_CRC_ON,		/* and CRC mode */
	SIW_STAT_MPA_CRC_OFF,
	SIW_STAT_FIRST_FPDU_LATE,	/* a responder's hold delayed a send */
	SIW_STAT_NUM
};

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
