/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/*
 * Verbs objects the test programs make alike: a device opened by name,
 * RC QPs of one shape, completions and async events waited for.
 */
#ifndef SIW_US_VERBS_H
#define SIW_US_VERBS_H

#include <stdint.h>
#include <infiniband/verbs.h>

/* The device of that name opened; NULL, said on stderr, if none. */
struct ibv_context *open_device(const char *name);

/*
 * An RC QP's attributes: both queues on cq, send_wr and recv_wr deep (an
 * SRQ's QP has no receive queue of its own), sge SGEs each way.
 */
struct ibv_qp_init_attr rc_qp_attr(struct ibv_cq *cq, struct ibv_srq *srq,
				   uint32_t send_wr, uint32_t recv_wr,
				   uint32_t sge);

/* A QP of a device's own: its PD, one CQ for both queues, the QP. */
struct own_qp {
	struct ibv_context *verbs;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
};

/*
 * The PD, a CQ of cqe entries and an RC QP of one SGE each way on verbs
 * (NULL: fails); own_qp_destroy() undoes what was made, verbs too.
 */
int own_qp_create(struct own_qp *q, struct ibv_context *verbs, int cqe,
		  uint32_t send_wr, uint32_t recv_wr);
void own_qp_destroy(struct own_qp *q);

/* Polls cq until n completions arrived or ms passed; returns the count. */
int poll_n_for(struct ibv_cq *cq, struct ibv_wc *wc, int n, int ms);

/* Polls cq for n completions, up to two seconds. */
int poll_n(struct ibv_cq *cq, struct ibv_wc *wc, int n);

/*
 * Async events of type want on obj (a QP, the CQ of a CQ error, or an
 * SRQ) within ms: counted for all of ms, or until one came. Others are
 * skipped, with a "#" line on stderr: on loopback both ends share one
 * device context, so the other end's events come through it too.
 */
int count_events(struct ibv_context *ctx, enum ibv_event_type want,
		 const void *obj, int ms);
int got_event(struct ibv_context *ctx, enum ibv_event_type want,
	      const void *obj, int ms);

/* Waits up to ms for IBV_EVENT_CQ_ERR on cq. */
int got_cq_error(struct ibv_cq *cq, int ms);

#endif /* SIW_US_VERBS_H */
