// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * siw_test: verbs cases the stock tools do not cover, through the stock
 * libibverbs and its siw provider. Prints TAP, one line per case.
 *
 *   siw_test -d DEVICE [CASE...]
 *
 * Without CASE names every case runs. Exit status 0 only when every case
 * passed.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "ktap.h"
#include "util.h"
#include "verbs.h"

/* One device context and the objects most cases need. */
struct ctx {
	struct ibv_context *verbs;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_comp_channel *chan;
};

static struct ibv_qp *make_qp(struct ctx *c, struct ibv_srq *srq,
			      uint32_t wr, uint32_t sge)
{
	struct ibv_qp_init_attr attr = rc_qp_attr(c->cq, srq, wr, wr, sge);

	return ibv_create_qp(c->pd, &attr);
}

static int to_state(struct ibv_qp *qp, enum ibv_qp_state state)
{
	struct ibv_qp_attr attr = { .qp_state = state };
	int mask = IBV_QP_STATE;

	if (state == IBV_QPS_INIT) {
		attr.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				       IBV_ACCESS_REMOTE_READ;
		attr.port_num = 1;
		mask |= IBV_QP_ACCESS_FLAGS | IBV_QP_PORT;
	}
	return ibv_modify_qp(qp, &attr, mask);
}

/* The objects a QP needs, their limits, and the mapped queues. */
static void case_objects(struct ctx *c)
{
	struct ibv_device_attr dattr;
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	char *buf;

	ktap_ok(!ibv_query_device(c->verbs, &dattr) && dattr.max_sge == 6,
		"objects: query_device reports max_sge 6");

	cq = ibv_create_cq(c->verbs, 0, NULL, NULL, 0);
	ktap_ok(!cq, "objects: a CQ of 0 entries is refused");
	if (cq)
		ibv_destroy_cq(cq);
	cq = ibv_create_cq(c->verbs, dattr.max_cqe + 1, NULL, NULL, 0);
	ktap_ok(!cq, "objects: a CQ beyond max_cqe is refused");
	if (cq)
		ibv_destroy_cq(cq);

	qp = make_qp(c, NULL, 16, 7);
	ktap_ok(!qp && errno == EINVAL, "objects: a QP with 7 SGEs is refused (EINVAL)");
	if (qp)
		ibv_destroy_qp(qp);
	qp = make_qp(c, NULL, dattr.max_qp_wr + 1, 1);
	ktap_ok(!qp, "objects: a QP deeper than max_qp_wr is refused");
	if (qp)
		ibv_destroy_qp(qp);

	qp = make_qp(c, NULL, 64, 6);
	ktap_ok(qp != NULL, "objects: an RC QP with 64 WRs and 6 SGEs");
	if (qp) {
		struct ibv_qp_attr qattr;
		struct ibv_qp_init_attr init;

		ktap_ok(!to_state(qp, IBV_QPS_INIT), "objects: QP to INIT");
		ktap_ok(!ibv_query_qp(qp, &qattr, IBV_QP_STATE, &init) &&
			qattr.qp_state == IBV_QPS_INIT &&
			init.cap.max_send_wr == 64,
			"objects: query_qp reports INIT and the depth");
		ktap_ok(!ibv_destroy_qp(qp), "objects: destroy QP");
	}

	buf = aligned_alloc(4096, 1 << 20);
	mr = ibv_reg_mr(c->pd, buf, 1 << 20, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	ktap_ok(mr && mr->lkey == mr->rkey && mr->lkey != 0,
		"objects: register 1 MiB, lkey == rkey");
	if (mr)
		ktap_ok(!ibv_dereg_mr(mr), "objects: deregister it");
	mr = ibv_reg_mr(c->pd, buf + 100, 5000, IBV_ACCESS_LOCAL_WRITE);
	ktap_ok(mr != NULL, "objects: register an unaligned range");
	if (mr)
		ibv_dereg_mr(mr);
	mr = ibv_reg_mr(c->pd, (void *)8, 4096, IBV_ACCESS_LOCAL_WRITE);
	ktap_ok(!mr, "objects: registering unmapped memory fails");
	if (mr)
		ibv_dereg_mr(mr);
	mr = ibv_reg_mr(c->pd, buf, 4096, IBV_ACCESS_REMOTE_WRITE);
	ktap_ok(!mr && errno == EINVAL,
		"objects: remote write without local write is refused (EINVAL)");
	if (mr)
		ibv_dereg_mr(mr);
	free(buf);
}

/* Work requests posted to a QP that goes to error complete, flushed. */
static void case_flush(struct ctx *c)
{
	enum { N = 8 };
	struct ibv_wc wc[2 * N + 1];
	struct ibv_sge sge;
	struct ibv_mr *mr;
	struct ibv_qp *qp;
	char buf[4096];
	int i, n, ok, r;

	qp = make_qp(c, NULL, N, 1);
	mr = ibv_reg_mr(c->pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	if (!qp || !mr) {
		ktap_ok(0, "flush: setup (QP %p, MR %p): %s", (void *)qp,
			(void *)mr, strerror(errno));
		goto out;
	}
	to_state(qp, IBV_QPS_INIT);
	sge = (struct ibv_sge){ (uintptr_t)buf, sizeof(buf), mr->lkey };
	for (i = 0; i < N; i++) {
		struct ibv_recv_wr rwr = { .wr_id = 100 + i, .sg_list = &sge,
					   .num_sge = 1 }, *bad;
		if (ibv_post_recv(qp, &rwr, &bad))
			break;
	}
	ktap_ok(i == N, "flush: %d receives posted", N);
	{
		struct ibv_recv_wr rwr = { .wr_id = 999, .sg_list = &sge,
					   .num_sge = 1 }, *bad;

		int r = ibv_post_recv(qp, &rwr, &bad);

		/* The stock provider returns ENOMEM negated here. */
		ktap_ok((r == ENOMEM || r == -ENOMEM) && bad == &rwr,
			"flush: a receive beyond the queue depth fails with ENOMEM (%d)",
			r);
	}
	ktap_ok(!to_state(qp, IBV_QPS_ERR), "flush: QP to ERROR");
	n = poll_n(c->cq, wc, N);
	ok = n == N;
	for (i = 0; ok && i < N; i++)
		ok = wc[i].status == IBV_WC_WR_FLUSH_ERR &&
		     wc[i].wr_id == (uint64_t)(100 + i) &&
		     wc[i].opcode == IBV_WC_RECV &&
		     wc[i].qp_num == qp->qp_num;
	ktap_ok(ok, "flush: %d of %d receives completed in order, FLUSH_ERR, RECV",
		n, N);

	for (i = 0, r = 0; i < N / 2; i++) {
		struct ibv_send_wr swr = {
			.wr_id = 200 + i, .sg_list = &sge, .num_sge = 1,
			.opcode = i & 1 ? IBV_WR_RDMA_WRITE : IBV_WR_SEND,
			.send_flags = i == 0 ? IBV_SEND_SIGNALED : 0,
		}, *bad;

		r = ibv_post_send(qp, &swr, &bad);
		if (r)
			break;
	}
	ktap_ok(i == N / 2, "flush: sends posted to the QP in error (%d: %d)", i, r);
	n = poll_n(c->cq, wc, N / 2);
	ok = n == N / 2;
	for (i = 0; ok && i < N / 2; i++)
		ok = wc[i].status == IBV_WC_WR_FLUSH_ERR &&
		     wc[i].wr_id == (uint64_t)(200 + i);
	ktap_ok(ok, "flush: every send completes at once, flushed, even unsignalled (%d)",
		n);
	ktap_ok(ibv_poll_cq(c->cq, 1, wc) == 0, "flush: nothing more on the CQ");
out:
	if (qp)
		ibv_destroy_qp(qp);
	if (mr)
		ibv_dereg_mr(mr);
}

/* A completion on an armed CQ raises one event on its channel. */
static void case_cq_event(struct ctx *c)
{
	struct ibv_cq *cq, *ev_cq;
	struct ibv_qp_init_attr attr;
	struct ibv_wc wc;
	struct ibv_qp *qp;
	struct pollfd pfd;
	void *ev_ctx;
	int ok_ev;

	cq = ibv_create_cq(c->verbs, 4, NULL, c->chan, 0);
	if (!cq) {
		ktap_ok(0, "cq_event: create CQ with channel: %s", strerror(errno));
		return;
	}
	attr = rc_qp_attr(cq, NULL, 2, 2, 1);
	qp = ibv_create_qp(c->pd, &attr);
	if (!qp) {
		ktap_ok(0, "cq_event: create QP: %s", strerror(errno));
		goto out_cq;
	}
	ktap_ok(!ibv_req_notify_cq(cq, 0), "cq_event: arm the CQ");
	{
		/* The stock provider wants at least one SGE per receive. */
		struct ibv_sge sge = { 0, 0, 0 };
		struct ibv_recv_wr rwr = { .wr_id = 7, .sg_list = &sge,
					   .num_sge = 1 }, *bad;

		ktap_ok(!ibv_post_recv(qp, &rwr, &bad), "cq_event: post a receive");
	}
	to_state(qp, IBV_QPS_ERR);
	pfd = (struct pollfd){ .fd = c->chan->fd, .events = POLLIN };
	if (poll(&pfd, 1, 2000) == 1) {
		ok_ev = !ibv_get_cq_event(c->chan, &ev_cq, &ev_ctx) &&
			ev_cq == cq;
		if (ok_ev)
			ibv_ack_cq_events(cq, 1);
		ktap_ok(ok_ev, "cq_event: one event on the channel, naming the CQ");
	} else {
		ktap_ok(0, "cq_event: one event on the channel, naming the CQ (none in 2 s)");
	}
	ktap_ok(ibv_poll_cq(cq, 1, &wc) == 1 && wc.wr_id == 7,
		"cq_event: the completion is there");
	ibv_destroy_qp(qp);
out_cq:
	ibv_destroy_cq(cq);
}

/*
 * A CQ smaller than the work posted overflows: no entry is overwritten and
 * the CQ's owner gets the CQ error event.
 */
static void case_cq_overflow(struct ctx *c)
{
	struct ibv_qp_init_attr attr;
	struct ibv_wc wc[8];
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	int i, n;

	cq = ibv_create_cq(c->verbs, 2, NULL, NULL, 0);
	attr = rc_qp_attr(cq, NULL, 1, 4, 1);
	attr.cap.max_send_sge = 0;	/* nothing is sent */
	qp = cq ? ibv_create_qp(c->pd, &attr) : NULL;
	if (!qp) {
		ktap_ok(0, "cq_overflow: setup: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < 4; i++) {
		struct ibv_sge sge = { 0, 0, 0 };
		struct ibv_recv_wr rwr = { .wr_id = i, .sg_list = &sge,
					   .num_sge = 1 }, *bad;

		ibv_post_recv(qp, &rwr, &bad);
	}
	to_state(qp, IBV_QPS_ERR);
	n = poll_n(cq, wc, 2);
	ktap_ok(n == 2 && wc[0].wr_id == 0 && wc[1].wr_id == 1,
		"cq_overflow: the two entries that fit are intact and in order");
	ktap_ok(ibv_poll_cq(cq, 8, wc) == 0,
		"cq_overflow: the rest did not overwrite them");
	ktap_ok(got_cq_error(cq, 2000),
		"cq_overflow: IBV_EVENT_CQ_ERR reports the CQ");
	ibv_destroy_qp(qp);
out:
	if (cq)
		ibv_destroy_cq(cq);
}

/* SRQ creation, limits, and a QP attached to it. */
static void case_srq(struct ctx *c)
{
	struct ibv_srq_init_attr sattr = { .attr = { .max_wr = 16,
						     .max_sge = 1 } };
	struct ibv_srq_attr q;
	struct ibv_srq *srq;
	struct ibv_qp *qp;
	int i;

	srq = ibv_create_srq(c->pd, &sattr);
	ktap_ok(srq != NULL, "srq: create an SRQ of 16");
	if (!srq)
		return;
	for (i = 0; i < 16; i++) {
		struct ibv_sge sge = { 0, 0, 0 };
		struct ibv_recv_wr rwr = { .wr_id = i, .sg_list = &sge,
					   .num_sge = 1 }, *bad;

		if (ibv_post_srq_recv(srq, &rwr, &bad))
			break;
	}
	ktap_ok(i == 16, "srq: 16 receives posted");
	q.srq_limit = 4;
	ktap_ok(!ibv_modify_srq(srq, &q, IBV_SRQ_LIMIT), "srq: arm the limit at 4");
	memset(&q, 0, sizeof(q));
	i = ibv_query_srq(srq, &q);
	/* rdma-core's siw provider has no query_srq: libibverbs says so. */
	ktap_ok(i == EOPNOTSUPP || (!i && q.srq_limit == 4 && q.max_wr == 16),
		"srq: query_srq reports limit and depth, or EOPNOTSUPP from the provider (%d)",
		i);
	q.srq_limit = 17;
	ktap_ok(ibv_modify_srq(srq, &q, IBV_SRQ_LIMIT) == EINVAL,
		"srq: a limit above the depth is refused");
	qp = make_qp(c, srq, 4, 1);
	ktap_ok(qp != NULL, "srq: a QP on the SRQ");
	if (qp)
		ibv_destroy_qp(qp);
	ktap_ok(!ibv_destroy_srq(srq), "srq: destroy");
}

static const struct {
	const char *name;
	void (*run)(struct ctx *c);
} cases[] = {
	{ "objects", case_objects },
	{ "flush", case_flush },
	{ "cq_event", case_cq_event },
	{ "cq_overflow", case_cq_overflow },
	{ "srq", case_srq },
};

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s -d DEVICE [CASE...]\ncases:", prog);
	case_list(CASES(cases));
	fprintf(stderr, "\n");
}

int main(int argc, char **argv)
{
	const char *dev = NULL, *unknown;
	struct ctx c = { 0 };
	size_t i;
	int opt;

	while ((opt = getopt(argc, argv, "d:h")) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		default:
			usage(argv[0]);
			return 2;
		}
	}
	if (!dev) {
		usage(argv[0]);
		return 2;
	}
	unknown = case_unknown(CASES(cases), argv + optind, argc - optind);
	if (unknown) {
		fprintf(stderr, "unknown case '%s'\n", unknown);
		usage(argv[0]);
		return 2;
	}

	ktap_header();
	c.verbs = open_device(dev);
	if (!c.verbs) {
		ktap_ok(0, "open device %s", dev);
		goto done;
	}
	c.pd = ibv_alloc_pd(c.verbs);
	c.chan = ibv_create_comp_channel(c.verbs);
	c.cq = ibv_create_cq(c.verbs, 64, NULL, NULL, 0);
	ktap_ok(c.pd && c.chan && c.cq, "setup: PD, completion channel, CQ of 64");
	if (!c.pd || !c.chan || !c.cq)
		goto done;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		if (case_wanted(cases[i].name, argv + optind, argc - optind))
			cases[i].run(&c);
	ktap_ok(!ibv_destroy_cq(c.cq) && !ibv_destroy_comp_channel(c.chan) &&
		!ibv_dealloc_pd(c.pd) && !ibv_close_device(c.verbs),
		"teardown: CQ, channel, PD, device");
done:
	return ktap_finished();
}
