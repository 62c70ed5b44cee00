// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * siw_ring_flush: a local user who keeps re-posting into its own mapped
 * queue rings while siw flushes them. Prints TAP.
 *
 *   siw_ring_flush -d DEVICE [-s SECONDS]
 *
 * The send, receive and completion queues of a user QP are memory the
 * process maps (uapi/rdma/siw-abi.h): it can set an element's VALID bit
 * at any time, and free a completion slot by clearing its flags. A flush
 * that walks a ring "until the next element is not VALID" would never
 * end while a thread keeps doing both, with interrupts off in siw.
 *
 * This program finds its QP's rings among its mappings of the uverbs
 * device (by the order siw maps them: CQ, then SQ, then RQ, checked with
 * a receive posted through the provider), starts a thread that sets
 * every ring element VALID and frees every completion it sees, over and
 * over, for at most SECONDS (default 3), and moves the QP to ERR. The
 * flush must complete at most one lap of each ring: the thread counts
 * the completions. A flush that keeps going holds the modify_qp call
 * until the thread gives up, and counts far more than one lap.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include "../uapi/rdma/siw-abi.h"
#include "ktap.h"
#include "util.h"
#include "verbs.h"

/* Depths that are powers of two: siw rounds up to one. */
#define SQ_DEPTH	16
#define RQ_DEPTH	64
#define CQ_DEPTH	256
#define RECV_ID		0xabcdULL


/* One mapping of the uverbs device: where, and its mmap offset. */
struct ring_map {
	uintptr_t start, end;
	unsigned long long off;
};

/* The last three uverbs mappings by offset: CQ, SQ, RQ of the QP. */
static int find_rings(struct ring_map *cq, struct ring_map *sq,
		      struct ring_map *rq)
{
	struct ring_map m[64];
	char line[512];
	FILE *f = fopen("/proc/self/maps", "r");
	int n = 0, i, j;

	if (!f)
		return -1;
	while (n < 64 && fgets(line, sizeof(line), f)) {
		unsigned long start, end;
		unsigned long long off;
		char perms[8];

		if (!strstr(line, "/dev/infiniband/uverbs"))
			continue;
		if (sscanf(line, "%lx-%lx %7s %llx", &start, &end, perms,
			   &off) != 4)
			continue;
		m[n].start = start;
		m[n].end = end;
		m[n].off = off;
		n++;
	}
	fclose(f);
	if (n < 3)
		return -1;
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && m[j - 1].off > m[j].off; j--) {
			struct ring_map t = m[j];

			m[j] = m[j - 1];
			m[j - 1] = t;
		}
	*cq = m[n - 3];
	*sq = m[n - 2];
	*rq = m[n - 1];
	return 0;
}

struct abuser {
	struct siw_sqe *sq;
	struct siw_rqe *rq;
	struct siw_cqe *cq;
	unsigned int seconds;
	volatile int stop;
	unsigned long completions;	/* CQEs seen and freed */
	unsigned long laps;
	int timed_out;			/* it gave up, the flush still going */
};

/* Every element VALID again, every completion freed, until told. */
static void *abuse(void *arg)
{
	struct abuser *a = arg;
	double end = now() + a->seconds;
	unsigned int i;

	while (!a->stop) {
		for (i = 0; i < RQ_DEPTH; i++) {
			struct siw_rqe *e = &a->rq[i];

			if (__atomic_load_n(&e->flags, __ATOMIC_ACQUIRE))
				continue;
			e->id = 0x1000 + i;
			e->num_sge = 0;
			__atomic_store_n(&e->flags, SIW_WQE_VALID,
					 __ATOMIC_RELEASE);
		}
		for (i = 0; i < SQ_DEPTH; i++) {
			struct siw_sqe *e = &a->sq[i];

			if (__atomic_load_n(&e->flags, __ATOMIC_ACQUIRE))
				continue;
			e->id = 0x2000 + i;
			e->opcode = SIW_OP_SEND;
			e->num_sge = 0;
			__atomic_store_n(&e->flags, SIW_WQE_VALID,
					 __ATOMIC_RELEASE);
		}
		for (i = 0; i < CQ_DEPTH; i++) {
			struct siw_cqe *c = &a->cq[i];

			if (!(__atomic_load_n(&c->flags, __ATOMIC_ACQUIRE) &
			      SIW_WQE_VALID))
				continue;
			a->completions++;
			__atomic_store_n(&c->flags, 0, __ATOMIC_RELEASE);
		}
		a->laps++;
		if ((a->laps & 255) == 0 && now() > end) {
			a->timed_out = 1;
			break;
		}
	}
	return NULL;
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s -d DEVICE [-s SECONDS]\n", prog);
}

int main(int argc, char **argv)
{
	struct ibv_qp_attr attr = {};
	struct ring_map cqm, sqm, rqm;
	struct abuser a = { .seconds = 3 };
	struct own_qp q = {};
	struct ibv_context *verbs;
	struct ibv_recv_wr wr = { .wr_id = RECV_ID }, *bad;
	static unsigned char buf[64];
	struct ibv_mr *mr = NULL;
	struct ibv_sge sge;
	const char *dev = NULL;
	unsigned long max;
	pthread_t th;
	double t0, t1;
	int opt, i, err;

	while ((opt = getopt(argc, argv, "d:s:h")) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		case 's':
			a.seconds = atoi(optarg);
			if (a.seconds < 1 || a.seconds > 15) {
				usage(argv[0]);
				return 2;
			}
			break;
		default:
			usage(argv[0]);
			return 2;
		}
	}
	if (!dev || optind != argc) {
		usage(argv[0]);
		return 2;
	}
	ktap_header();
	verbs = open_device(dev);
	if (!verbs) {
		ktap_ok(0, "open %s", dev);
		goto out;
	}
	if (own_qp_create(&q, verbs, CQ_DEPTH, SQ_DEPTH, RQ_DEPTH)) {
		ktap_ok(0, "a PD, a CQ of %d, a QP of %d/%d (%s)", CQ_DEPTH,
			SQ_DEPTH, RQ_DEPTH, strerror(errno));
		goto out;
	}
	attr.qp_state = IBV_QPS_INIT;
	err = ibv_modify_qp(q.qp, &attr, IBV_QP_STATE);
	if (err) {
		ktap_ok(0, "modify_qp to INIT (%s)", strerror(err));
		goto out;
	}
	/* Through the provider: slot 0 of the RQ shows it. */
	mr = ibv_reg_mr(q.pd, buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	if (!mr) {
		ktap_ok(0, "register a receive buffer (%s)", strerror(errno));
		goto out;
	}
	sge.addr = (uintptr_t)buf;
	sge.length = sizeof(buf);
	sge.lkey = mr->lkey;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	err = ibv_post_recv(q.qp, &wr, &bad);
	if (err) {
		ktap_ok(0, "post a receive (%s)", strerror(err));
		goto out;
	}
	if (find_rings(&cqm, &sqm, &rqm)) {
		ktap_ok(0, "the QP's rings among the uverbs mappings");
		goto out;
	}
	a.cq = (struct siw_cqe *)cqm.start;
	a.sq = (struct siw_sqe *)sqm.start;
	a.rq = (struct siw_rqe *)rqm.start;
	ktap_ok(rqm.end - rqm.start >= RQ_DEPTH * sizeof(struct siw_rqe) &&
		sqm.end - sqm.start >= SQ_DEPTH * sizeof(struct siw_sqe) &&
		cqm.end - cqm.start >= CQ_DEPTH * sizeof(struct siw_cqe) &&
		a.rq[0].id == RECV_ID && (a.rq[0].flags & SIW_WQE_VALID),
		"the QP's rings found among the uverbs mappings (RQ slot 0 holds the receive posted)");
	if (ktap_failures())
		goto out;
	if (pthread_create(&th, NULL, abuse, &a)) {
		ktap_ok(0, "start the thread that re-posts");
		goto out;
	}
	usleep(100000);
	attr.qp_state = IBV_QPS_ERR;
	t0 = now();
	err = ibv_modify_qp(q.qp, &attr, IBV_QP_STATE);
	t1 = now();
	a.stop = 1;
	pthread_join(th, NULL);
	/* What the thread did not get to. */
	for (i = 0; i < CQ_DEPTH; i++)
		if (a.cq[i].flags & SIW_WQE_VALID)
			a.completions++;
	ktap_ok(!err, "modify_qp to ERR while another thread re-posts (%s)",
		err ? strerror(err) : "ok");
	printf("# modify_qp took %.3f s; the thread made %lu laps, saw %lu completions%s\n",
	       t1 - t0, a.laps, a.completions,
	       a.timed_out ? ", and gave up before modify_qp returned" : "");
	max = SQ_DEPTH + RQ_DEPTH;
	ktap_ok(a.completions <= max && !a.timed_out,
		"the flush completed at most one lap of each ring: %lu completions, at most %lu",
		a.completions, max);
out:
	if (mr)
		ibv_dereg_mr(mr);
	own_qp_destroy(&q);
	return ktap_finished();
}
