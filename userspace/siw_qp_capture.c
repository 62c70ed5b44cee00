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
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>
#include <infiniband/verbs.h>

#include "cm.h"
#include "ktap.h"
#include "net.h"
#include "verbs.h"

#define PORT	7490

static const char *addr, *server_ns, *client_ns, *dev_names[2];

/*
 * The victim: a QP of its own on each device, their numbers on out; then,
 * for each byte on in (the device's index), that QP's state on out; EOF
 * ends it.
 */
static void victim(int in, int out)
{
	struct own_qp v[2];
	uint32_t qpn[2];
	char c;
	int i;

	for (i = 0; i < 2; i++) {
		qpn[i] = 0;
		if (!own_qp_create(&v[i], open_device(dev_names[i]), 8, 4, 4))
			qpn[i] = v[i].qp->qp_num;
	}
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
		own_qp_destroy(&v[i]);
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

/* One side of a connection: its event channel, id, and maybe a QP. */
struct side {
	struct rdma_event_channel *ec;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
};

/* A PD, a CQ and a QP of 4 of our own on id. */
static int make_qp(struct side *s, struct rdma_cm_id *id)
{
	s->pd = ibv_alloc_pd(id->verbs);
	s->cq = s->pd ? ibv_create_cq(id->verbs, 8, NULL, NULL, 0) : NULL;
	if (!s->cq)
		return -1;
	return cm_qp(id, s->pd, s->cq, 4);
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

static int listen_on(struct side *srv)
{
	struct sockaddr_storage ss;
	int err;

	memset(srv, 0, sizeof(*srv));
	if (addr_of(addr, PORT, &ss, NULL) || enter_ns(server_ns))
		return -1;
	srv->ec = rdma_create_event_channel();
	err = cm_listen(srv->ec, &srv->id, (struct sockaddr *)&ss, 4);
	enter_ns(NULL);
	return err ? -1 : 0;
}

/* A client id whose route to the server is resolved; with_qp: and a QP. */
static int client_ready(struct side *cl, int with_qp)
{
	struct sockaddr_storage ss;
	int err;

	memset(cl, 0, sizeof(*cl));
	if (addr_of(addr, PORT, &ss, NULL) || enter_ns(client_ns))
		return -1;
	cl->ec = rdma_create_event_channel();
	err = cm_dial(stdout, cl->ec, &cl->id, (struct sockaddr *)&ss);
	enter_ns(NULL);
	if (err)
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
	    cm_expect(stdout, srv.ec, RDMA_CM_EVENT_CONNECT_REQUEST, 5000,
		      &ev)) {
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
	      cm_expect(stdout, srv.ec, RDMA_CM_EVENT_CONNECT_REQUEST, 5000,
			&ev);
	if (!ret) {
		child.id = ev->id;
		rdma_ack_cm_event(ev);
		ret = make_qp(&child, child.id) || rdma_accept(child.id, &cp) ||
		      cm_expect(stdout, cl.ec, RDMA_CM_EVENT_ESTABLISHED, 5000,
				NULL) ||
		      cm_expect(stdout, srv.ec, RDMA_CM_EVENT_ESTABLISHED, 5000,
				NULL);
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
	    cm_expect(stdout, srv.ec, RDMA_CM_EVENT_CONNECT_REQUEST, 5000,
		      &ev)) {
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
	cm_expect(stdout, cl.ec, RDMA_CM_EVENT_DISCONNECTED, 5000, NULL);
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
	ns_remember_home();
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
