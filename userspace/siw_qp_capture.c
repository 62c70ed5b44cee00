// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * siw_qp_capture: rdma_cm takes the QP to connect by number, and from
 * user space that number is whatever the caller writes into
 * rdma_conn_param.qp_num. Prints TAP.
 *
 *   siw_qp_capture -a ADDR -d SERVER_DEVICE -D CLIENT_DEVICE
 *                  [-S SERVER_NETNS] [-C CLIENT_NETNS]
 *
 * A victim process (forked first) creates a QP on each device (QP
 * numbers are per device: the server's side accepts on one, the client's
 * connects on the other) and tells their numbers. This process then tries to take it over: accepting an incoming
 * connection with the victim's QP number, and connecting with it (no QP
 * of its own on the cm_id). siw must refuse both (EPERM), and the
 * victim's QP must still be unconnected (INIT). Then, with QPs of its
 * own: a connection established, and a second connect and a second
 * accept naming a QP that is already connected are refused (EBUSY).
 * The server side runs in SERVER_NETNS, the client side in CLIENT_NETNS.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>
#include <infiniband/verbs.h>

#include "ktap.h"

#define PORT	7490

static const char *addr, *server_ns, *client_ns, *dev_names[2];
static int home_ns = -1;

static int enter_ns(const char *name)
{
	char path[256];
	int fd, err;

	if (!name)
		return setns(home_ns, CLONE_NEWNET);
	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	err = setns(fd, CLONE_NEWNET);
	close(fd);
	return err;
}

/* The victim's QP on one device. */
struct victim_qp {
	struct ibv_context *verbs;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
};

static uint32_t victim_qp_create(struct victim_qp *v, const char *name)
{
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC };
	struct ibv_device **list = ibv_get_device_list(NULL);
	int i;

	memset(v, 0, sizeof(*v));
	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			v->verbs = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	v->pd = v->verbs ? ibv_alloc_pd(v->verbs) : NULL;
	v->cq = v->pd ? ibv_create_cq(v->verbs, 8, NULL, NULL, 0) : NULL;
	qa.send_cq = v->cq;
	qa.recv_cq = v->cq;
	qa.cap.max_send_wr = 4;
	qa.cap.max_recv_wr = 4;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (v->cq)
		v->qp = ibv_create_qp(v->pd, &qa);
	return v->qp ? v->qp->qp_num : 0;
}

static void victim_qp_destroy(struct victim_qp *v)
{
	if (v->qp)
		ibv_destroy_qp(v->qp);
	if (v->cq)
		ibv_destroy_cq(v->cq);
	if (v->pd)
		ibv_dealloc_pd(v->pd);
	if (v->verbs)
		ibv_close_device(v->verbs);
}

/*
 * The victim: a QP of its own on each device, their numbers on out; then,
 * for each byte on in (the device's index), that QP's state on out; EOF
 * ends it.
 */
static void victim(int in, int out)
{
	struct victim_qp v[2];
	uint32_t qpn[2];
	char c;
	int i;

	for (i = 0; i < 2; i++)
		qpn[i] = victim_qp_create(&v[i], dev_names[i]);
	if (write(out, qpn, sizeof(qpn)) != sizeof(qpn) || !qpn[0] ||
	    !qpn[1])
		_exit(1);
	while (read(in, &c, 1) == 1) {
		struct ibv_qp_attr attr;
		struct ibv_qp_init_attr init;
		int state = -1;

		if ((c == 0 || c == 1) &&
		    !ibv_query_qp(v[(int)c].qp, &attr, IBV_QP_STATE, &init))
			state = attr.qp_state;
		if (write(out, &state, sizeof(state)) != sizeof(state))
			break;
	}
	for (i = 0; i < 2; i++)
		victim_qp_destroy(&v[i]);
	_exit(0);
}

/* The state of the victim's QP on device i (0: server's, 1: client's). */
static int victim_state(int to, int from, char i)
{
	int state = -1;

	if (write(to, &i, 1) != 1 || read(from, &state, sizeof(state)) !=
	    sizeof(state))
		return -1;
	return state;
}

static int get_ev(struct rdma_event_channel *ec, int ms,
		  struct rdma_cm_event **evp)
{
	struct pollfd pfd = { .fd = ec->fd, .events = POLLIN };

	if (poll(&pfd, 1, ms) != 1 || rdma_get_cm_event(ec, evp))
		return -1;
	return 0;
}

/* Waits for one event of type want; anything else fails. */
static int wait_ev(struct rdma_event_channel *ec,
		   enum rdma_cm_event_type want, struct rdma_cm_event **evp)
{
	struct rdma_cm_event *ev;

	if (get_ev(ec, 5000, &ev))
		return -1;
	if (ev->event != want) {
		printf("# CM event %s, wanted %s\n", rdma_event_str(ev->event),
		       rdma_event_str(want));
		rdma_ack_cm_event(ev);
		return -1;
	}
	if (evp)
		*evp = ev;
	else
		rdma_ack_cm_event(ev);
	return 0;
}

/* One side of a connection: its event channel, id, and maybe a QP. */
struct side {
	struct rdma_event_channel *ec;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
};

static int make_qp(struct side *s, struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr qa = { .qp_type = IBV_QPT_RC };

	s->pd = ibv_alloc_pd(id->verbs);
	s->cq = s->pd ? ibv_create_cq(id->verbs, 8, NULL, NULL, 0) : NULL;
	if (!s->cq)
		return -1;
	qa.send_cq = s->cq;
	qa.recv_cq = s->cq;
	qa.cap.max_send_wr = 4;
	qa.cap.max_recv_wr = 4;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	return rdma_create_qp(id, s->pd, &qa);
}

static void side_destroy(struct side *s)
{
	if (s->id && s->id->qp)
		rdma_destroy_qp(s->id);
	if (s->id)
		rdma_destroy_id(s->id);
	if (s->cq)
		ibv_destroy_cq(s->cq);
	if (s->pd)
		ibv_dealloc_pd(s->pd);
	if (s->ec)
		rdma_destroy_event_channel(s->ec);
	memset(s, 0, sizeof(*s));
}

static int sockaddr_of(struct sockaddr_storage *ss)
{
	struct addrinfo hints = { .ai_flags = AI_NUMERICHOST }, *res;
	char port[8];

	snprintf(port, sizeof(port), "%d", PORT);
	if (getaddrinfo(addr, port, &hints, &res))
		return -1;
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	return 0;
}

static int listen_on(struct side *srv)
{
	struct sockaddr_storage ss;
	int err;

	memset(srv, 0, sizeof(*srv));
	if (sockaddr_of(&ss) || enter_ns(server_ns))
		return -1;
	srv->ec = rdma_create_event_channel();
	err = !srv->ec ||
	      rdma_create_id(srv->ec, &srv->id, NULL, RDMA_PS_TCP) ||
	      rdma_bind_addr(srv->id, (struct sockaddr *)&ss) ||
	      rdma_listen(srv->id, 4);
	enter_ns(NULL);
	return err ? -1 : 0;
}

/* A client id whose route to the server is resolved; with_qp: and a QP. */
static int client_ready(struct side *cl, int with_qp)
{
	struct sockaddr_storage ss;
	int err;

	memset(cl, 0, sizeof(*cl));
	if (sockaddr_of(&ss) || enter_ns(client_ns))
		return -1;
	cl->ec = rdma_create_event_channel();
	err = !cl->ec ||
	      rdma_create_id(cl->ec, &cl->id, NULL, RDMA_PS_TCP) ||
	      rdma_resolve_addr(cl->id, NULL, (struct sockaddr *)&ss, 2000);
	enter_ns(NULL);
	if (err || wait_ev(cl->ec, RDMA_CM_EVENT_ADDR_RESOLVED, NULL) ||
	    rdma_resolve_route(cl->id, 2000) ||
	    wait_ev(cl->ec, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL))
		return -1;
	return with_qp ? make_qp(cl, cl->id) : 0;
}

static void conn_param(struct rdma_conn_param *cp, uint32_t qpn)
{
	memset(cp, 0, sizeof(*cp));
	cp->responder_resources = 1;
	cp->initiator_depth = 1;
	cp->qp_num = qpn;
}

/* Accepting an incoming connection with the victim's QP. */
static void case_accept_other(uint32_t vqpn, int to_v, int from_v)
{
	struct side srv, cl, child = {};
	struct rdma_conn_param cp;
	struct rdma_cm_event *ev;
	int ret, err;

	if (listen_on(&srv) || client_ready(&cl, 1)) {
		ktap_ok(0, "accept with another process's QP: set up");
		goto out;
	}
	conn_param(&cp, 0);
	if (rdma_connect(cl.id, &cp) ||
	    wait_ev(srv.ec, RDMA_CM_EVENT_CONNECT_REQUEST, &ev)) {
		ktap_ok(0, "accept with another process's QP: a connect request arrives");
		goto out;
	}
	child.id = ev->id;
	rdma_ack_cm_event(ev);
	conn_param(&cp, vqpn);
	ret = rdma_accept(child.id, &cp);
	err = errno;
	ktap_ok(ret && err == EPERM,
		"accept naming the victim's QP %u is refused with EPERM (%s)",
		vqpn, ret ? strerror(err) : "accepted");
	ktap_ok(victim_state(to_v, from_v, 0) == IBV_QPS_INIT,
		"... and the victim's QP is still unconnected (INIT)");
	if (!ret)
		rdma_disconnect(child.id);
	else
		rdma_reject(child.id, NULL, 0);
out:
	side_destroy(&child);
	side_destroy(&cl);
	side_destroy(&srv);
}

/* Connecting with the victim's QP, none of our own on the id. */
static void case_connect_other(uint32_t vqpn, int to_v, int from_v)
{
	struct side srv, cl;
	struct rdma_conn_param cp;
	int ret, err;

	if (listen_on(&srv) || client_ready(&cl, 0)) {
		ktap_ok(0, "connect with another process's QP: set up");
		goto out;
	}
	conn_param(&cp, vqpn);
	ret = rdma_connect(cl.id, &cp);
	err = errno;
	ktap_ok(ret && err == EPERM,
		"connect naming the victim's QP %u is refused with EPERM (%s)",
		vqpn, ret ? strerror(err) : "sent");
	ktap_ok(victim_state(to_v, from_v, 1) == IBV_QPS_INIT,
		"... and the victim's QP is still unconnected (INIT)");
out:
	side_destroy(&cl);
	side_destroy(&srv);
}

/* Our own QPs, connected; then each named again for another connection. */
static void case_bound_twice(void)
{
	struct side srv, cl, child = {}, cl2 = {}, child2 = {};
	struct rdma_conn_param cp;
	struct rdma_cm_event *ev;
	int ret, err;

	if (listen_on(&srv) || client_ready(&cl, 1)) {
		ktap_ok(0, "a QP bound twice: set up");
		goto out;
	}
	conn_param(&cp, 0);
	ret = rdma_connect(cl.id, &cp) ||
	      wait_ev(srv.ec, RDMA_CM_EVENT_CONNECT_REQUEST, &ev);
	if (!ret) {
		child.id = ev->id;
		rdma_ack_cm_event(ev);
		ret = make_qp(&child, child.id) || rdma_accept(child.id, &cp) ||
		      wait_ev(cl.ec, RDMA_CM_EVENT_ESTABLISHED, NULL) ||
		      wait_ev(srv.ec, RDMA_CM_EVENT_ESTABLISHED, NULL);
	}
	ktap_ok(!ret, "a connection between two QPs of ours is established");
	if (ret)
		goto out;
	if (client_ready(&cl2, 0)) {
		ktap_ok(0, "a QP bound twice: a second client id");
		goto out;
	}
	conn_param(&cp, cl.id->qp->qp_num);
	ret = rdma_connect(cl2.id, &cp);
	err = errno;
	ktap_ok(ret && err == EBUSY,
		"a second connect naming our connected QP %u is refused with EBUSY (%s)",
		cl.id->qp->qp_num, ret ? strerror(err) : "sent");
	/* The server's QP, named for a second incoming connection. */
	side_destroy(&cl2);
	if (client_ready(&cl2, 1)) {
		ktap_ok(0, "a QP bound twice: a third client");
		goto out;
	}
	conn_param(&cp, 0);
	if (rdma_connect(cl2.id, &cp) ||
	    wait_ev(srv.ec, RDMA_CM_EVENT_CONNECT_REQUEST, &ev)) {
		ktap_ok(0, "a QP bound twice: the third client's request arrives");
		goto out;
	}
	child2.id = ev->id;
	rdma_ack_cm_event(ev);
	conn_param(&cp, child.id->qp->qp_num);
	ret = rdma_accept(child2.id, &cp);
	err = errno;
	ktap_ok(ret && err == EBUSY,
		"accepting with our connected server QP %u is refused with EBUSY (%s)",
		child.id->qp->qp_num, ret ? strerror(err) : "accepted");
	if (ret)
		rdma_reject(child2.id, NULL, 0);
	rdma_disconnect(cl.id);
	wait_ev(cl.ec, RDMA_CM_EVENT_DISCONNECTED, NULL);
out:
	side_destroy(&child2);
	side_destroy(&cl2);
	side_destroy(&child);
	side_destroy(&cl);
	side_destroy(&srv);
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s -a ADDR -d SERVER_DEVICE -D CLIENT_DEVICE [-S SERVER_NETNS] [-C CLIENT_NETNS]\n",
		prog);
}

int main(int argc, char **argv)
{
	int to_v[2], from_v[2], opt, status;
	uint32_t vqpn[2] = { 0, 0 };
	pid_t pid;

	while ((opt = getopt(argc, argv, "a:d:D:S:C:h")) != -1) {
		switch (opt) {
		case 'a':
			addr = optarg;
			break;
		case 'd':
			dev_names[0] = optarg;
			break;
		case 'D':
			dev_names[1] = optarg;
			break;
		case 'S':
			server_ns = optarg;
			break;
		case 'C':
			client_ns = optarg;
			break;
		default:
			usage(argv[0]);
			return 2;
		}
	}
	if (!addr || !dev_names[0] || !dev_names[1] || optind != argc) {
		usage(argv[0]);
		return 2;
	}
	home_ns = open("/proc/self/ns/net", O_RDONLY);
	ktap_header();
	if (pipe(to_v) || pipe(from_v)) {
		ktap_ok(0, "pipes to the victim");
		goto out;
	}
	pid = fork();
	if (pid == 0) {
		close(to_v[1]);
		close(from_v[0]);
		victim(to_v[0], from_v[1]);
	}
	close(to_v[0]);
	close(from_v[1]);
	if (pid > 0 && read(from_v[0], vqpn, sizeof(vqpn)) != sizeof(vqpn))
		vqpn[0] = vqpn[1] = 0;
	ktap_ok(pid > 0 && vqpn[0] && vqpn[1],
		"the victim process created QP %u on %s and QP %u on %s",
		vqpn[0], dev_names[0], vqpn[1], dev_names[1]);
	if (!vqpn[0] || !vqpn[1])
		goto reap;
	case_accept_other(vqpn[0], to_v[1], from_v[0]);
	case_connect_other(vqpn[1], to_v[1], from_v[0]);
	case_bound_twice();
reap:
	close(to_v[1]);
	ktap_ok(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
		WEXITSTATUS(status) == 0, "the victim process ends cleanly");
	close(from_v[0]);
out:
	return ktap_finished();
}
