// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * qp_scale: many RC QPs connected at once, for the scale pass of
 * `make bench` (Documentation/performance.rst, "Scale").
 *
 *   qp_scale -s -a ADDR [-p PORT] [-n CONNS]
 *   qp_scale -c ADDR [-p PORT] -n CONNS [-W WINDOW] [-w FILE]
 *
 * The server accepts every request with a QP of its own, a receive
 * posted before it accepts; it answers each message it receives with
 * the message's bytes inverted, and closes each connection when the
 * client does. With -n it exits 0 once CONNS connections have come and
 * gone.
 *
 * The client connects CONNS QPs, at most WINDOW (default 256) in the
 * making at a time, all on one CQ, and keeps them all; then sends a 64-byte message of
 * its own pattern on each and checks every answer, byte for byte; then,
 * with -w, creates FILE and waits (at most 600 s) until someone removes
 * it, so that the memory of all those QPs can be read meanwhile; then
 * disconnects them all at once. It prints
 * "conns=<n> setup_ms=<ms> exchange_ms=<ms> teardown_ms=<ms>"
 * and exits 0 only if every QP connected and every answer was right.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
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

#define DEFAULT_PORT	"7473"
#define DEFAULT_WINDOW	256
#define MAX_CONNS	16384	/* a siw device's QPs */
#define MSG_LEN		64
#define SLOT		(2 * MSG_LEN)	/* per QP: what it sends, receives */
#define STEP_MS		600000	/* a phase that takes longer has failed */
#define RESOLVE_MS	5000
#define HOLD_MS		600000

static void usage(void)
{
	fprintf(stderr,
		"usage: qp_scale -s -a ADDR [-p PORT] [-n CONNS]\n"
		"       qp_scale -c ADDR [-p PORT] -n CONNS [-W WINDOW] [-w FILE]\n"
		"CONNS 1-%d, WINDOW 1-%d (default %d)\n",
		MAX_CONNS, MAX_CONNS, DEFAULT_WINDOW);
	exit(2);
}

/* One side's QPs, their buffers and what they have done. */
struct side {
	struct rdma_event_channel *ec;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	uint8_t *buf;			/* SLOT bytes per QP */
	struct rdma_cm_id *ids[MAX_CONNS];
	uint32_t n;			/* ids made */
	uint32_t established;
	uint32_t closed;
};

static uint8_t *send_buf(struct side *s, uint32_t i)
{
	return s->buf + (size_t)i * SLOT;
}

static uint8_t *recv_buf(struct side *s, uint32_t i)
{
	return s->buf + (size_t)i * SLOT + MSG_LEN;
}

/* The client's message on QP i: a pattern no other QP sends. */
static uint8_t pattern(uint32_t i, uint32_t j)
{
	return (uint8_t)(i * 131 + j * 7 + (i >> 8));
}

/*
 * The PD, the CQ (room for a send and a receive per QP, at most the
 * device's largest) and the buffers.
 */
static int side_init(struct side *s, struct ibv_context *verbs,
		     uint32_t conns)
{
	size_t len = (size_t)MAX_CONNS * SLOT;
	struct ibv_device_attr attr;
	int cqe = 2 * (int)conns;

	if (ibv_query_device(verbs, &attr)) {
		perror("qp_scale: ibv_query_device");
		return -1;
	}
	if (cqe > attr.max_cqe)
		cqe = attr.max_cqe;
	s->pd = ibv_alloc_pd(verbs);
	s->cq = s->pd ? ibv_create_cq(verbs, cqe, NULL, NULL, 0) : NULL;
	s->buf = calloc(1, len);
	s->mr = s->cq && s->buf ? ibv_reg_mr(s->pd, s->buf, len,
					     IBV_ACCESS_LOCAL_WRITE) : NULL;
	if (!s->mr) {
		perror("qp_scale: PD, CQ or MR");
		return -1;
	}
	return 0;
}

static void side_end(struct side *s)
{
	uint32_t i;

	for (i = 0; i < s->n; i++) {
		if (!s->ids[i])
			continue;
		if (s->ids[i]->qp)
			rdma_destroy_qp(s->ids[i]);
		rdma_destroy_id(s->ids[i]);
	}
	if (s->mr)
		ibv_dereg_mr(s->mr);
	if (s->cq)
		ibv_destroy_cq(s->cq);
	if (s->pd)
		ibv_dealloc_pd(s->pd);
	if (s->ec)
		rdma_destroy_event_channel(s->ec);
	free(s->buf);
}

static int post_recv(struct side *s, uint32_t i)
{
	struct ibv_sge sge = { .addr = (uintptr_t)recv_buf(s, i),
			       .length = MSG_LEN, .lkey = s->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(s->ids[i]->qp, &wr, &bad);
}

static int post_send(struct side *s, uint32_t i)
{
	struct ibv_sge sge = { .addr = (uintptr_t)send_buf(s, i),
			       .length = MSG_LEN, .lkey = s->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad;

	return ibv_post_send(s->ids[i]->qp, &wr, &bad);
}

/* A QP for id i, with its receive posted. */
static int make_qp(struct side *s, uint32_t i)
{
	s->ids[i]->context = (void *)(uintptr_t)i;
	if (cm_qp(s->ids[i], s->pd, s->cq, 1)) {
		perror("qp_scale: rdma_create_qp");
		return -1;
	}
	if (post_recv(s, i)) {
		perror("qp_scale: ibv_post_recv");
		return -1;
	}
	return 0;
}

/* The next event within ms, or NULL (with why on stderr). */
static struct rdma_cm_event *next_event(struct side *s, int ms)
{
	struct rdma_cm_event *ev;

	if (cm_event(s->ec, ms, &ev) < 0) {
		fprintf(stderr, "qp_scale: no rdma_cm event in %d ms\n", ms);
		return NULL;
	}
	return ev;
}

static uint32_t id_index(const struct rdma_cm_id *id)
{
	return (uint32_t)(uintptr_t)id->context;
}

/* Client: CONNS QPs connected, at most window of them in the making. */
static int client_connect(struct side *s, const struct addrinfo *ai,
			  uint32_t conns, uint32_t window)
{
	struct rdma_conn_param cp = { .responder_resources = 1,
				      .initiator_depth = 1 };
	double end = now() + STEP_MS / 1000.0;

	while (s->established < conns) {
		struct rdma_cm_event *ev;
		struct rdma_cm_id *id;
		uint32_t i;

		while (s->n < conns && s->n - s->established < window) {
			i = s->n;
			if (rdma_create_id(s->ec, &s->ids[i],
					   (void *)(uintptr_t)i, RDMA_PS_TCP)) {
				perror("qp_scale: rdma_create_id");
				return -1;
			}
			s->n++;
			if (rdma_resolve_addr(s->ids[i], NULL, ai->ai_addr,
					      RESOLVE_MS)) {
				perror("qp_scale: rdma_resolve_addr");
				return -1;
			}
		}
		ev = next_event(s, (int)((end - now()) * 1000));
		if (!ev)
			return -1;
		id = ev->id;
		i = id_index(id);
		switch (ev->event) {
		case RDMA_CM_EVENT_ADDR_RESOLVED:
			rdma_ack_cm_event(ev);
			if (rdma_resolve_route(id, RESOLVE_MS)) {
				perror("qp_scale: rdma_resolve_route");
				return -1;
			}
			break;
		case RDMA_CM_EVENT_ROUTE_RESOLVED:
			rdma_ack_cm_event(ev);
			if (!s->pd && side_init(s, id->verbs, conns))
				return -1;
			if (make_qp(s, i))
				return -1;
			if (rdma_connect(id, &cp)) {
				perror("qp_scale: rdma_connect");
				return -1;
			}
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			rdma_ack_cm_event(ev);
			s->established++;
			break;
		default:
			fprintf(stderr,
				"qp_scale: QP %u: %s (status %d) with %u of %u connected\n",
				i, rdma_event_str(ev->event), ev->status,
				s->established, conns);
			rdma_ack_cm_event(ev);
			return -1;
		}
	}
	return 0;
}

/*
 * Client: a message on every QP, every answer checked: the message's
 * bytes inverted, on the QP it was sent on.
 */
static int client_exchange(struct side *s)
{
	double end = now() + STEP_MS / 1000.0;
	uint32_t i, j, sent = 0, answered = 0;
	struct ibv_wc wc[64];

	for (i = 0; i < s->n; i++) {
		for (j = 0; j < MSG_LEN; j++)
			send_buf(s, i)[j] = pattern(i, j);
		if (post_send(s, i)) {
			perror("qp_scale: ibv_post_send");
			return -1;
		}
	}
	while (sent < s->n || answered < s->n) {
		int k, got = ibv_poll_cq(s->cq, 64, wc);

		if (got < 0 || now() > end) {
			fprintf(stderr, "qp_scale: %u of %u sent, %u answered\n",
				sent, s->n, answered);
			return -1;
		}
		for (k = 0; k < got; k++) {
			i = (uint32_t)wc[k].wr_id;
			if (wc[k].status != IBV_WC_SUCCESS || i >= s->n) {
				fprintf(stderr, "qp_scale: QP %u: %s %s\n", i,
					wc[k].opcode & IBV_WC_RECV ?
					"receive" : "send",
					ibv_wc_status_str(wc[k].status));
				return -1;
			}
			if (!(wc[k].opcode & IBV_WC_RECV)) {
				sent++;
				continue;
			}
			if (wc[k].byte_len != MSG_LEN) {
				fprintf(stderr, "qp_scale: QP %u: answer of %u bytes\n",
					i, wc[k].byte_len);
				return -1;
			}
			for (j = 0; j < MSG_LEN; j++) {
				uint8_t want = (uint8_t)~pattern(i, j);

				if (recv_buf(s, i)[j] != want) {
					fprintf(stderr,
						"qp_scale: QP %u: answer byte %u is 0x%02x, want 0x%02x\n",
						i, j, recv_buf(s, i)[j], want);
					return -1;
				}
			}
			answered++;
		}
	}
	return 0;
}

/* Client: FILE made, then waited on until someone removes it. */
static int client_hold(const char *file)
{
	double end = now() + HOLD_MS / 1000.0;
	int fd = open(file, O_WRONLY | O_CREAT | O_EXCL, 0644);

	if (fd < 0) {
		perror("qp_scale: the hold file");
		return -1;
	}
	close(fd);
	while (access(file, F_OK) == 0) {
		if (now() > end) {
			fprintf(stderr, "qp_scale: %s still there after %d s\n",
				file, HOLD_MS / 1000);
			unlink(file);
			return -1;
		}
		usleep(50000);
	}
	return 0;
}

/* Client: every QP disconnected at once, until every one is down. */
static int client_teardown(struct side *s)
{
	double end = now() + STEP_MS / 1000.0;
	uint32_t i, down = 0;

	for (i = 0; i < s->n; i++)
		if (rdma_disconnect(s->ids[i])) {
			perror("qp_scale: rdma_disconnect");
			return -1;
		}
	while (down < s->n) {
		struct rdma_cm_event *ev = next_event(s, (int)((end - now()) * 1000));

		if (!ev)
			return -1;
		if (ev->event != RDMA_CM_EVENT_DISCONNECTED) {
			fprintf(stderr, "qp_scale: %s (status %d) while disconnecting\n",
				rdma_event_str(ev->event), ev->status);
			rdma_ack_cm_event(ev);
			return -1;
		}
		rdma_ack_cm_event(ev);
		down++;
	}
	for (i = 0; i < s->n; i++) {
		rdma_destroy_qp(s->ids[i]);
		rdma_destroy_id(s->ids[i]);
		s->ids[i] = NULL;
	}
	return 0;
}

static int client(const char *host, const char *port, uint32_t conns,
		  uint32_t window, const char *hold)
{
	static struct side s;
	struct addrinfo *ai = resolve("qp_scale", host, port, AI_NUMERICHOST);
	double t0, t1, t2, t3, t4;
	int err = 1;

	s.ec = rdma_create_event_channel();
	if (!ai || !s.ec)
		goto out;
	t0 = now();
	if (client_connect(&s, ai, conns, window))
		goto out;
	t1 = now();
	if (client_exchange(&s))
		goto out;
	t2 = now();
	if (hold && client_hold(hold))
		goto out;
	t3 = now();
	if (client_teardown(&s))
		goto out;
	t4 = now();
	printf("conns=%u setup_ms=%.1f exchange_ms=%.1f teardown_ms=%.1f\n",
	       conns, (t1 - t0) * 1000, (t2 - t1) * 1000, (t4 - t3) * 1000);
	err = 0;
out:
	if (err)
		fprintf(stderr, "qp_scale: failed with %u of %u QPs connected\n",
			s.established, conns);
	side_end(&s);
	if (ai)
		freeaddrinfo(ai);
	return err;
}

/* Server: the answer to QP i's message, its bytes inverted. */
static int server_answer(struct side *s, uint32_t i)
{
	uint32_t j;

	for (j = 0; j < MSG_LEN; j++)
		send_buf(s, i)[j] = (uint8_t)~recv_buf(s, i)[j];
	if (post_send(s, i)) {
		perror("qp_scale: ibv_post_send");
		return -1;
	}
	return 0;
}

static int server_poll_cq(struct side *s)
{
	struct ibv_wc wc[64];
	int k, got;

	if (!s->cq)
		return 0;
	got = ibv_poll_cq(s->cq, 64, wc);
	if (got < 0)
		return -1;
	for (k = 0; k < got; k++) {
		uint32_t i = (uint32_t)wc[k].wr_id;

		/* A flushed receive of a QP going down is no failure. */
		if (wc[k].status == IBV_WC_WR_FLUSH_ERR)
			continue;
		if (wc[k].status != IBV_WC_SUCCESS) {
			fprintf(stderr, "qp_scale: server: QP %u: %s\n", i,
				ibv_wc_status_str(wc[k].status));
			return -1;
		}
		if ((wc[k].opcode & IBV_WC_RECV) && server_answer(s, i))
			return -1;
	}
	return 0;
}

static int server_event(struct side *s, struct rdma_cm_event *ev,
			uint32_t conns)
{
	struct rdma_conn_param cp = { .responder_resources = 1,
				      .initiator_depth = 1 };
	struct rdma_cm_id *id = ev->id;
	enum rdma_cm_event_type type = ev->event;
	int status = ev->status;
	uint32_t i;

	rdma_ack_cm_event(ev);
	switch (type) {
	case RDMA_CM_EVENT_CONNECT_REQUEST:
		if (s->n == MAX_CONNS) {
			fprintf(stderr, "qp_scale: server: more than %d requests\n",
				MAX_CONNS);
			return -1;
		}
		if (!s->pd && side_init(s, id->verbs, conns ? conns : MAX_CONNS))
			return -1;
		i = s->n++;
		s->ids[i] = id;
		if (make_qp(s, i) || rdma_accept(id, &cp)) {
			perror("qp_scale: server: accept");
			return -1;
		}
		return 0;
	case RDMA_CM_EVENT_ESTABLISHED:
		s->established++;
		return 0;
	case RDMA_CM_EVENT_DISCONNECTED:
		i = id_index(id);
		rdma_destroy_qp(id);
		rdma_destroy_id(id);
		s->ids[i] = NULL;
		s->closed++;
		return 0;
	default:
		fprintf(stderr, "qp_scale: server: %s (status %d)\n",
			rdma_event_str(type), status);
		return -1;
	}
}

static int server(const char *host, const char *port, uint32_t conns)
{
	static struct side s;
	struct addrinfo *ai = resolve("qp_scale", host, port, AI_NUMERICHOST);
	struct rdma_cm_id *listen_id = NULL;
	int err = 1;

	s.ec = rdma_create_event_channel();
	if (!ai || !s.ec)
		goto out;
	if (cm_listen(s.ec, &listen_id, ai->ai_addr, 1024)) {
		perror("qp_scale: listen");
		goto out;
	}
	/* Events and completions in one loop: the channel does not block. */
	if (fcntl(s.ec->fd, F_SETFL, fcntl(s.ec->fd, F_GETFL) | O_NONBLOCK)) {
		perror("qp_scale: fcntl");
		goto out;
	}
	while (!conns || s.closed < conns) {
		struct pollfd pfd = { .fd = s.ec->fd, .events = POLLIN };
		struct rdma_cm_event *ev;

		poll(&pfd, 1, 1);
		while (!rdma_get_cm_event(s.ec, &ev))
			if (server_event(&s, ev, conns))
				goto out;
		if (errno != EAGAIN) {
			perror("qp_scale: rdma_get_cm_event");
			goto out;
		}
		if (server_poll_cq(&s))
			goto out;
	}
	err = 0;
out:
	if (listen_id)
		rdma_destroy_id(listen_id);
	side_end(&s);
	if (ai)
		freeaddrinfo(ai);
	return err;
}

int main(int argc, char **argv)
{
	const char *listen_at = NULL, *connect_to = NULL, *hold = NULL;
	const char *port = DEFAULT_PORT;
	uint32_t conns = 0, window = DEFAULT_WINDOW;
	int opt, is_server = 0;

	while ((opt = getopt(argc, argv, "sa:c:p:n:W:w:")) != -1) {
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
			number("qp_scale", optarg, 10, 1, 65535, usage);
			break;
		case 'n':
			conns = number("qp_scale", optarg, 10, 1, MAX_CONNS,
				       usage);
			break;
		case 'W':
			window = number("qp_scale", optarg, 10, 1, MAX_CONNS,
					usage);
			break;
		case 'w':
			hold = optarg;
			break;
		default:
			usage();
		}
	}
	if (optind != argc ||
	    (is_server ? !listen_at || connect_to || hold :
			 !connect_to || listen_at || !conns))
		usage();
	if (is_server)
		return server(listen_at, port, conns);
	return client(connect_to, port, conns, window, hold);
}
