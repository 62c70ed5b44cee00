// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "verbs.h"

struct ibv_context *open_device(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *verbs = NULL;
	int i;

	if (!list) {
		perror("ibv_get_device_list");
		return NULL;
	}
	for (i = 0; list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			verbs = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (!verbs)
		fprintf(stderr, "# device %s not found or not openable\n", name);
	return verbs;
}

struct ibv_qp_init_attr rc_qp_attr(struct ibv_cq *cq, struct ibv_srq *srq,
				   uint32_t send_wr, uint32_t recv_wr,
				   uint32_t sge)
{
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RC, .send_cq = cq, .recv_cq = cq,
		.srq = srq,
		.cap = { .max_send_wr = send_wr,
			 .max_recv_wr = srq ? 0 : recv_wr,
			 .max_send_sge = sge, .max_recv_sge = sge },
	};

	return qa;
}

int own_qp_create(struct own_qp *q, struct ibv_context *verbs, int cqe,
		  uint32_t send_wr, uint32_t recv_wr)
{
	struct ibv_qp_init_attr qa;

	memset(q, 0, sizeof(*q));
	q->verbs = verbs;
	q->pd = verbs ? ibv_alloc_pd(verbs) : NULL;
	q->cq = q->pd ? ibv_create_cq(verbs, cqe, NULL, NULL, 0) : NULL;
	qa = rc_qp_attr(q->cq, NULL, send_wr, recv_wr, 1);
	if (q->cq)
		q->qp = ibv_create_qp(q->pd, &qa);
	return q->qp ? 0 : -1;
}

void own_qp_destroy(struct own_qp *q)
{
	if (q->qp)
		ibv_destroy_qp(q->qp);
	if (q->cq)
		ibv_destroy_cq(q->cq);
	if (q->pd)
		ibv_dealloc_pd(q->pd);
	if (q->verbs)
		ibv_close_device(q->verbs);
	memset(q, 0, sizeof(*q));
}

int poll_n_for(struct ibv_cq *cq, struct ibv_wc *wc, int n, int ms)
{
	int got = 0;

	for (; got < n && ms > 0; ms--) {
		int r = ibv_poll_cq(cq, n - got, wc + got);

		if (r < 0)
			return r;
		got += r;
		if (got < n)
			usleep(1000);
	}
	return got;
}

int poll_n(struct ibv_cq *cq, struct ibv_wc *wc, int n)
{
	return poll_n_for(cq, wc, n, 2000);
}

/* The object an async event is about: its CQ, SRQ or QP. */
static const void *event_obj(const struct ibv_async_event *aev)
{
	switch (aev->event_type) {
	case IBV_EVENT_CQ_ERR:
		return aev->element.cq;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		return aev->element.srq;
	default:
		return aev->element.qp;
	}
}

/* Counts want on obj for up to ms, stopping once 'enough' came (0: never). */
static int count_events_until(struct ibv_context *ctx,
			      enum ibv_event_type want, const void *obj,
			      int ms, int enough)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event aev;
	int step = 50, n = 0;

	fcntl(pfd.fd, F_SETFL, fcntl(pfd.fd, F_GETFL) | O_NONBLOCK);
	for (; ms > 0 && (!enough || n < enough); ms -= step) {
		if (poll(&pfd, 1, step) != 1)
			continue;
		while ((!enough || n < enough) &&
		       !ibv_get_async_event(ctx, &aev)) {
			if (aev.event_type == want && event_obj(&aev) == obj)
				n++;
			else
				fprintf(stderr, "# skipped async event %s\n",
					ibv_event_type_str(aev.event_type));
			ibv_ack_async_event(&aev);
		}
	}
	return n;
}

int count_events(struct ibv_context *ctx, enum ibv_event_type want,
		 const void *obj, int ms)
{
	return count_events_until(ctx, want, obj, ms, 0);
}

int got_event(struct ibv_context *ctx, enum ibv_event_type want,
	      const void *obj, int ms)
{
	return count_events_until(ctx, want, obj, ms, 1) == 1;
}

int got_cq_error(struct ibv_cq *cq, int ms)
{
	return got_event(cq->context, IBV_EVENT_CQ_ERR, cq, ms);
}
