/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/*
 * rdma_cm as the test programs use it: events waited for with a bound,
 * a listener, a client id resolved up to its route, a QP on an id.
 */
#ifndef SIW_US_CM_H
#define SIW_US_CM_H

#include <stdio.h>
#include <rdma/rdma_cma.h>

/* The next event on ec within ms (-1: no bound): its type, or -1. */
int cm_event(struct rdma_event_channel *ec, int ms,
	     struct rdma_cm_event **evp);

/*
 * The next event on ec within ms, which must be want: 0, with the event
 * in *evp for the caller to ack (evp NULL: acked here). Anything else is
 * acked, said on log as a "#" line, and fails.
 */
int cm_expect(FILE *log, struct rdma_event_channel *ec,
	      enum rdma_cm_event_type want, int ms,
	      struct rdma_cm_event **evp);

/* A listening id on ec (NULL: fails) at sa; errno says why not. */
int cm_listen(struct rdma_event_channel *ec, struct rdma_cm_id **id,
	      struct sockaddr *sa, int backlog);

/*
 * A client id on ec (NULL: fails), in the current network namespace,
 * with its address and route to dst resolved (events: said on log).
 */
int cm_dial(FILE *log, struct rdma_event_channel *ec, struct rdma_cm_id **id,
	    struct sockaddr *dst);

/* An RC QP on id: both queues on cq, depth deep, one SGE each way. */
int cm_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_cq *cq,
	  uint32_t depth);

#endif /* SIW_US_CM_H */
