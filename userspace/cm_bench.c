// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * cm_bench: the rdma_cm connect rate of `make bench`, the twin of
 * tcp_bench's connect mode. It needs nothing but the rdma_cm port: no
 * side channel (rdma-core's cmtime opens a TCP socket on the port its
 * rdma_cm listener uses, which an iWARP listener holds already).
 *
 *   cm_bench -s -a ADDR [-p PORT] [-n CONNS]
 *   cm_bench -c ADDR [-p PORT] [-n CONNS] [-r ROUNDS | -t SECS]
 *
 * The server accepts every request, each with an RC QP of its own, and
 * closes each connection when the client does; with -n it exits 0 once
 * CONNS connections have come and gone, else it serves until killed.
 * The client, per round: resolves the address and route of CONNS
 * rdma_cm ids and gives each a QP, then times the connect step alone
 * (every rdma_connect() at once, until the last ESTABLISHED), then
 * disconnects and destroys them all. It prints the median round:
 * "conn_per_s=<rate> conns=<n> connect_ms=<ms> rounds=<r>". -t repeats
 * rounds for SECS seconds (at least one), for profiling.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>

#include "cm.h"
#include "net.h"
#include "util.h"

#define DEFAULT_PORT	"7472"
#define DEFAULT_CONNS	100
#define MAX_CONNS	4096
#define MAX_ROUNDS	10000
#define STEP_MS		60000	/* a step that takes longer has failed */
#define RESOLVE_MS	5000

static void usage(void)
{
	fprintf(stderr,
		"usage: cm_bench -s -a ADDR [-p PORT] [-n CONNS]\n"
		"       cm_bench -c ADDR [-p PORT] [-n CONNS] [-r ROUNDS | -t SECS]\n"
		"CONNS 1-%d (default %d), ROUNDS 1-%d (default 1)\n",
		MAX_CONNS, DEFAULT_CONNS, MAX_ROUNDS);
	exit(2);
}

/* The next event of ec within ms (-1: no limit); NULL if none came. */
static struct rdma_cm_event *next_event(struct rdma_event_channel *ec,
					int ms)
{
	struct pollfd pfd = { .fd = ec->fd, .events = POLLIN };
	struct rdma_cm_event *ev;

	if (poll(&pfd, 1, ms) != 1) {
		fprintf(stderr, "cm_bench: no rdma_cm event in %d ms\n", ms);
		return NULL;
	}
	if (rdma_get_cm_event(ec, &ev)) {
		perror("cm_bench: rdma_get_cm_event");
		return NULL;
	}
	return ev;
}

/* n events of type want, each on an id of ours; anything else fails. */
static int wait_all(struct rdma_event_channel *ec, uint32_t n,
		    enum rdma_cm_event_type want)
{
	double end = now() + STEP_MS / 1000.0;
	uint32_t got = 0;

	while (got < n) {
		int left = (int)((end - now()) * 1000);
		struct rdma_cm_event *ev = next_event(ec, left > 0 ? left : 0);

		if (!ev)
			break;
		if (ev->event != want) {
			fprintf(stderr,
				"cm_bench: %s (status %d) while waiting for %s (%u of %u)\n",
				rdma_event_str(ev->event), ev->status,
				rdma_event_str(want), got, n);
			rdma_ack_cm_event(ev);
			return -1;
		}
		rdma_ack_cm_event(ev);
		got++;
	}
	if (got < n)
		fprintf(stderr, "cm_bench: %u of %u %s\n", got, n,
			rdma_event_str(want));
	return got == n ? 0 : -1;
}

struct round {
	struct rdma_event_channel *ec;
	struct rdma_cm_id *ids[MAX_CONNS];
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	uint32_t n;		/* ids created */
};

static void round_end(struct round *r)
{
	uint32_t i;

	for (i = 0; i < r->n; i++) {
		if (r->ids[i]->qp)
			rdma_destroy_qp(r->ids[i]);
		rdma_destroy_id(r->ids[i]);
	}
	if (r->cq)
		ibv_destroy_cq(r->cq);
	if (r->pd)
		ibv_dealloc_pd(r->pd);
	if (r->ec)
		rdma_destroy_event_channel(r->ec);
	memset(r, 0, sizeof(*r));
}

/* One client round; the connect step's seconds in *secs. */
static int client_round(const struct addrinfo *ai, uint32_t conns,
			double *secs)
{
	static struct round r;
	struct rdma_conn_param cp = { .responder_resources = 1,
				      .initiator_depth = 1 };
	int err = -1;
	uint32_t i;
	double t0;

	r.ec = rdma_create_event_channel();
	if (!r.ec) {
		perror("cm_bench: rdma_create_event_channel");
		return -1;
	}
	for (; r.n < conns; r.n++) {
		if (rdma_create_id(r.ec, &r.ids[r.n], NULL, RDMA_PS_TCP)) {
			perror("cm_bench: rdma_create_id");
			goto out;
		}
		if (rdma_resolve_addr(r.ids[r.n], NULL, ai->ai_addr,
				      RESOLVE_MS)) {
			perror("cm_bench: rdma_resolve_addr");
			r.n++;
			goto out;
		}
	}
	if (wait_all(r.ec, conns, RDMA_CM_EVENT_ADDR_RESOLVED))
		goto out;
	for (i = 0; i < conns; i++)
		if (rdma_resolve_route(r.ids[i], RESOLVE_MS)) {
			perror("cm_bench: rdma_resolve_route");
			goto out;
		}
	if (wait_all(r.ec, conns, RDMA_CM_EVENT_ROUTE_RESOLVED))
		goto out;
	r.pd = ibv_alloc_pd(r.ids[0]->verbs);
	r.cq = ibv_create_cq(r.ids[0]->verbs, 2 * conns, NULL, NULL, 0);
	if (!r.pd || !r.cq) {
		perror("cm_bench: PD or CQ");
		goto out;
	}
	for (i = 0; i < conns; i++)
		if (cm_qp(r.ids[i], r.pd, r.cq, 1)) {
			perror("cm_bench: rdma_create_qp");
			goto out;
		}
	t0 = now();
	for (i = 0; i < conns; i++)
		if (rdma_connect(r.ids[i], &cp)) {
			perror("cm_bench: rdma_connect");
			goto out;
		}
	if (wait_all(r.ec, conns, RDMA_CM_EVENT_ESTABLISHED))
		goto out;
	*secs = now() - t0;
	for (i = 0; i < conns; i++)
		if (rdma_disconnect(r.ids[i])) {
			perror("cm_bench: rdma_disconnect");
			goto out;
		}
	err = wait_all(r.ec, conns, RDMA_CM_EVENT_DISCONNECTED);
out:
	round_end(&r);
	return err;
}

static int client(const char *host, const char *port, uint32_t conns,
		  uint32_t rounds, double secs)
{
	static double took[MAX_ROUNDS];
	struct addrinfo *ai = resolve("cm_bench", host, port, AI_NUMERICHOST);
	double end = now() + secs, med;
	uint32_t done = 0;

	if (!ai)
		return 1;
	while (done < MAX_ROUNDS && (done < rounds || now() < end)) {
		if (client_round(ai, conns, &took[done])) {
			fprintf(stderr, "cm_bench: round %u failed\n",
				done + 1);
			freeaddrinfo(ai);
			return 1;
		}
		done++;
	}
	freeaddrinfo(ai);
	qsort(took, done, sizeof(took[0]), cmp_double);
	med = took[(done - 1) / 2];
	printf("conn_per_s=%.1f conns=%u connect_ms=%.1f rounds=%u\n",
	       conns / med, conns, med * 1000, done);
	return 0;
}

static int server(const char *host, const char *port, uint32_t conns)
{
	struct rdma_conn_param cp = { .responder_resources = 1,
				      .initiator_depth = 1 };
	struct addrinfo *ai = resolve("cm_bench", host, port, AI_NUMERICHOST);
	struct rdma_event_channel *ec = rdma_create_event_channel();
	struct rdma_cm_id *listen_id = NULL;
	struct ibv_pd *pd = NULL;
	struct ibv_cq *cq = NULL;
	uint32_t closed = 0;
	int err = 1;

	if (!ai || !ec)
		goto out;
	if (cm_listen(ec, &listen_id, ai->ai_addr, MAX_CONNS)) {
		perror("cm_bench: listen");
		goto out;
	}
	while (!conns || closed < conns) {
		struct rdma_cm_event *ev = next_event(ec, -1);
		struct rdma_cm_id *id;

		if (!ev)
			goto out;
		id = ev->id;
		switch (ev->event) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			if (!pd) {
				pd = ibv_alloc_pd(id->verbs);
				cq = ibv_create_cq(id->verbs, 2 * MAX_CONNS,
						   NULL, NULL, 0);
				if (!pd || !cq) {
					perror("cm_bench: PD or CQ");
					rdma_ack_cm_event(ev);
					goto out;
				}
			}
			rdma_ack_cm_event(ev);
			if (cm_qp(id, pd, cq, 1)) {
				perror("cm_bench: rdma_create_qp");
				perror("cm_bench: accept");
				goto out;
			}
			if (rdma_accept(id, &cp)) {
				perror("cm_bench: accept");
				goto out;
			}
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			rdma_ack_cm_event(ev);
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			rdma_ack_cm_event(ev);
			rdma_destroy_qp(id);
			rdma_destroy_id(id);
			closed++;
			break;
		default:
			fprintf(stderr, "cm_bench: server: %s (status %d)\n",
				rdma_event_str(ev->event), ev->status);
			rdma_ack_cm_event(ev);
			goto out;
		}
	}
	err = 0;
out:
	/* After a failure the process exits; the kernel takes the rest. */
	if (listen_id)
		rdma_destroy_id(listen_id);
	if (!err) {
		if (cq)
			ibv_destroy_cq(cq);
		if (pd)
			ibv_dealloc_pd(pd);
		rdma_destroy_event_channel(ec);
	}
	if (ai)
		freeaddrinfo(ai);
	return err;
}

int main(int argc, char **argv)
{
	const char *listen_at = NULL, *connect_to = NULL, *port = DEFAULT_PORT;
	uint32_t conns = 0, rounds = 0;
	double secs = 0;
	int opt, is_server = 0;

	while ((opt = getopt(argc, argv, "sa:c:p:n:r:t:")) != -1) {
		switch (opt) {
		case 's':
			is_server = 1;
			break;
		case 'a':
			listen_at = optarg;
			break;
		case 'c':
			connect_to = optarg;
			break;
		case 'p':
			port = optarg;
			number("cm_bench", optarg, 10, 1, 65535, usage);
			break;
		case 'n':
			conns = number("cm_bench", optarg, 10, 1, MAX_CONNS,
				       usage);
			break;
		case 'r':
			rounds = number("cm_bench", optarg, 10, 1, MAX_ROUNDS,
					 usage);
			break;
		case 't':
			secs = number("cm_bench", optarg, 10, 1, 3600, usage);
			break;
		default:
			usage();
		}
	}
	if (optind != argc || (rounds && secs) ||
	    (is_server ? !listen_at || connect_to || rounds || secs :
			 !connect_to || listen_at))
		usage();
	if (is_server)
		return server(listen_at, port, conns);
	return client(connect_to, port, conns ? conns : DEFAULT_CONNS,
		      rounds ? rounds : 1, secs);
}
