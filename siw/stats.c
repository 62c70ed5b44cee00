// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * Counters through the RDMA core's hardware statistics (stats.h):
 * `rdma statistic show link DEV/1` lists them for the device.
 */
#include <linux/tcp.h>
#include <rdma/ib_verbs.h>

#include "siw.h"
#include "qp.h"
#include "stats.h"

#define SIW_STAT_DESC(id, text)	[SIW_STAT_##id] = { .name = text },
static const struct rdma_stat_desc siw_stat_descs[SIW_STAT_NUM] = {
	SIW_QP_STATS(SIW_STAT_DESC)
	SIW_DEV_STATS(SIW_STAT_DESC)
};

/* The message counters are in enum siw_msg_kind's order (SIW_STAT_MSG_*). */
#define SIW_STAT_KIND_IS(kind)						\
	static_assert(SIW_STAT_MSG_TX(SIW_MSG_##kind) == SIW_STAT_##kind##_TX && \
		      SIW_STAT_MSG_RX(SIW_MSG_##kind) == SIW_STAT_##kind##_RX)
SIW_STAT_KIND_IS(SEND);
SIW_STAT_KIND_IS(WRITE);
SIW_STAT_KIND_IS(READ_REQ);
SIW_STAT_KIND_IS(READ_RESP);
SIW_STAT_KIND_IS(IMM);
SIW_STAT_KIND_IS(ATOMIC_REQ);
SIW_STAT_KIND_IS(ATOMIC_RESP);

const char *siw_stat_name(enum siw_stat idx)
{
	return idx < SIW_STAT_NUM ? siw_stat_descs[idx].name : "unknown";
}

void siw_dev_stat_inc(struct siw_device *sdev, enum siw_stat idx)
{
	if (WARN_ON_ONCE(idx < SIW_STAT_QP_NUM || idx >= SIW_STAT_NUM))
		return;
	atomic64_inc(&sdev->stats_dev[idx - SIW_STAT_QP_NUM]);
}

/* TCP's retransmitted bytes of the QP's socket. Must hold state_lock. */
static u64 siw_qp_sock_retrans(struct siw_qp *qp)
{
	lockdep_assert_held(&qp->state_lock);
	return qp->sock && qp->sock->sk ?
	       READ_ONCE(tcp_sk(qp->sock->sk)->bytes_retrans) : 0;
}

/* One counter of a QP, with what its socket has now. */
u64 siw_qp_stat_read(struct siw_qp *qp, enum siw_stat idx)
{
	unsigned long flags;
	u64 v;

	if (idx >= SIW_STAT_QP_NUM)
		return 0;
	if (idx != SIW_STAT_RETRANS_BYTES)
		return READ_ONCE(qp->stats[idx]);
	/* Under the lock that folds the socket's count in at disconnect. */
	spin_lock_irqsave(&qp->state_lock, flags);
	v = qp->stats[idx] + siw_qp_sock_retrans(qp);
	spin_unlock_irqrestore(&qp->state_lock, flags);
	return v;
}

/*
 * The QP is about to go, its data path quiet: its counts move to the
 * device's retired sum. Must hold qp_xa's lock, under which the QP
 * leaves the xarray, so that readers see it in one sum or the other.
 */
void siw_stats_qp_retire(struct siw_qp *qp)
{
	struct siw_device *sdev = qp->sdev;
	u64 v[SIW_STAT_QP_NUM];
	unsigned long flags;
	int i;

	lockdep_assert_held(&sdev->qp_xa.xa_lock);
	for (i = 0; i < SIW_STAT_QP_NUM; i++)
		v[i] = siw_qp_stat_read(qp, i);
	spin_lock_irqsave(&sdev->stats_lock, flags);
	for (i = 0; i < SIW_STAT_QP_NUM; i++)
		sdev->stats_retired[i] += v[i];
	spin_unlock_irqrestore(&sdev->stats_lock, flags);
}

struct rdma_hw_stats *siw_alloc_hw_port_stats(struct ib_device *ibdev,
					      u32 port)
{
	return rdma_alloc_hw_stats_struct(siw_stat_descs, SIW_STAT_NUM,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

int siw_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		     u32 port, int index)
{
	struct siw_device *sdev = to_siw_dev(ibdev);
	struct siw_qp *qp;
	unsigned long flags, qpn;
	int i;

	/*
	 * Under the xarray's lock a QP is in the xarray or in the retired
	 * sum, never both or neither (siw_stats_qp_retire), and stays.
	 */
	xa_lock(&sdev->qp_xa);
	spin_lock_irqsave(&sdev->stats_lock, flags);
	for (i = 0; i < SIW_STAT_QP_NUM; i++)
		stats->value[i] = sdev->stats_retired[i];
	spin_unlock_irqrestore(&sdev->stats_lock, flags);
	xa_for_each(&sdev->qp_xa, qpn, qp)
		for (i = 0; i < SIW_STAT_QP_NUM; i++)
			stats->value[i] += siw_qp_stat_read(qp, i);
	xa_unlock(&sdev->qp_xa);
	for (i = SIW_STAT_QP_NUM; i < SIW_STAT_NUM; i++)
		stats->value[i] =
			atomic64_read(&sdev->stats_dev[i - SIW_STAT_QP_NUM]);
	return SIW_STAT_NUM;
}
