// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#include <poll.h>

#include "cm.h"
#include "verbs.h"

/* What rdma_cm may take to resolve, and what we wait for any event. */
#define RESOLVE_MS	2000
#define EVENT_MS	5000

int cm_event(struct rdma_event_channel *ec, int ms,
	     struct rdma_cm_event **evp)
{
	struct pollfd pfd = { .fd = ec->fd, .events = POLLIN };

	if (poll(&pfd, 1, ms) != 1)
		return -1;
	if (rdma_get_cm_event(ec, evp))
		return -1;
	return (*evp)->event;
}

int cm_expect(FILE *log, struct rdma_event_channel *ec,
	      enum rdma_cm_event_type want, int ms,
	      struct rdma_cm_event **evp)
{
	struct rdma_cm_event *ev;
	int got = cm_event(ec, ms, &ev);

	if (got < 0) {
		fprintf(log, "# no CM event (wanted %s)\n",
			rdma_event_str(want));
		return -1;
	}
	if (got != (int)want) {
		fprintf(log, "# CM event %s (status %d), wanted %s\n",
			rdma_event_str(got), ev->status, rdma_event_str(want));
		rdma_ack_cm_event(ev);
		return -1;
	}
	if (evp)
		*evp = ev;
	else
		rdma_ack_cm_event(ev);
	return 0;
}

int cm_listen(struct rdma_event_channel *ec, struct rdma_cm_id **id,
	      struct sockaddr *sa, int backlog)
{
	if (!ec || rdma_create_id(ec, id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(*id, sa) || rdma_listen(*id, backlog))
		return -1;
	return 0;
}

int cm_dial(FILE *log, struct rdma_event_channel *ec, struct rdma_cm_id **id,
	    struct sockaddr *dst)
{
	if (!ec || rdma_create_id(ec, id, NULL, RDMA_PS_TCP) ||
	    rdma_resolve_addr(*id, NULL, dst, RESOLVE_MS) ||
	    cm_expect(log, ec, RDMA_CM_EVENT_ADDR_RESOLVED, EVENT_MS, NULL) ||
	    rdma_resolve_route(*id, RESOLVE_MS) ||
	    cm_expect(log, ec, RDMA_CM_EVENT_ROUTE_RESOLVED, EVENT_MS, NULL))
		return -1;
	return 0;
}

int cm_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_cq *cq,
	  uint32_t depth)
{
	struct ibv_qp_init_attr qa = rc_qp_attr(cq, NULL, depth, depth, 1);

	return rdma_create_qp(id, pd, &qa);
}
