// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * siw_conn_test: connected cases through rdma_cm and the stock provider,
 * with both ends in this one process, so every case checks both sides.
 * Prints TAP, one line per check.
 *
 *   siw_conn_test -a ADDR [-S SERVER_NETNS] [-C CLIENT_NETNS]
 *                 [-x CMD] [-r|-R] [-p PORT] [-o IRD,ORD] [CASE...]
 *
 * ADDR is the server's address (IPv4 or IPv6). The rdma_cm IDs of each
 * side are created inside the named network namespaces (/run/netns/NAME),
 * so one process can play both ends of a veth pair.
 *
 * The "mpa" case is for runs between devices with different MPA settings:
 * -x CMD runs the shell command CMD while its connection is up (it checks
 * what was negotiated, e.g. with `rdma resource show qp -dd`) and counts
 * its exit status as a check; -r expects the connection to be refused;
 * -R, refused by the client's siw after the server accepted.
 * The "overwrite" case runs CMD too, after its transfer, before the
 * connection ends (to check how the QPs sent, for instance), and so do
 * "walk" and "walkerr" after their RDMA Read, "reject" after the client
 * got REJECTED and "disconnect" after the flushed receives.
 *
 * -p PORT: the server's port (default 7471). -o IRD,ORD: the responder
 * resources and initiator depth the server accepts with (default 16,16,
 * what the client connects with).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>
#include <infiniband/verbs.h>

#include "cm.h"
#include "ktap.h"
#include "net.h"
#include "util.h"
#include "verbs.h"

#define BUF_SIZE	(1 << 20)
static int srv_port = 7471;
static int srv_ird = 16, srv_ord = 16;

static const char *server_ns, *client_ns, *server_addr;
static const char *verify_cmd;
static int expect_refused, expect_refused_late;

/* One end of a connection. */
struct end {
	struct rdma_event_channel *ec;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_comp_channel *chan;
	struct ibv_srq *srq;
	struct ibv_mr *mr;
	char *buf;
};

struct pair {
	struct end srv, cli;
	struct rdma_cm_id *listen_id;
	/* With pair_opts.pdata: each side got the other's private data. */
	int srv_got_pd, cli_got_pd;
};

/* Private data of the largest size rdma_cm carries (a u8 length). */
#define PDATA_MAX	255

/* The next CM event on ec, which must be want, within 5 s. */
static int expect_event(struct rdma_event_channel *ec, int want,
			struct rdma_cm_event **evp)
{
	return cm_expect(stderr, ec, want, 5000, evp);
}

/* PD, CQ (with channel), buffer and MR, and the QP on id. */
static int end_setup(struct end *e, struct rdma_cm_id *id, int use_srq,
		     int mr_access, int cqe)
{
	struct ibv_qp_init_attr qa;

	e->id = id;
	e->pd = ibv_alloc_pd(id->verbs);
	e->chan = ibv_create_comp_channel(id->verbs);
	e->cq = e->chan ? ibv_create_cq(id->verbs, cqe ? cqe : 256, NULL, e->chan, 0) : NULL;
	e->buf = aligned_alloc(4096, BUF_SIZE);
	if (!e->pd || !e->cq || !e->buf)
		return -1;
	memset(e->buf, 0, BUF_SIZE);
	e->mr = ibv_reg_mr(e->pd, e->buf, BUF_SIZE, mr_access);
	if (!e->mr)
		return -1;
	if (use_srq) {
		struct ibv_srq_init_attr sa = { .attr = { .max_wr = 64,
							  .max_sge = 6 } };

		e->srq = ibv_create_srq(e->pd, &sa);
		if (!e->srq)
			return -1;
	}
	qa = rc_qp_attr(e->cq, e->srq, 64, 64, 6);
	qa.cap.max_inline_data = 64;
	return rdma_create_qp(id, e->pd, &qa);
}

static void end_destroy(struct end *e)
{
	if (e->id && e->id->qp)
		rdma_destroy_qp(e->id);
	if (e->mr)
		ibv_dereg_mr(e->mr);
	if (e->srq)
		ibv_destroy_srq(e->srq);
	if (e->cq)
		ibv_destroy_cq(e->cq);
	if (e->chan)
		ibv_destroy_comp_channel(e->chan);
	if (e->pd)
		ibv_dealloc_pd(e->pd);
	if (e->id)
		rdma_destroy_id(e->id);
	if (e->ec)
		rdma_destroy_event_channel(e->ec);
	free(e->buf);
	memset(e, 0, sizeof(*e));
}

static int post_recv(struct end *e, uint64_t id, uint64_t off, uint32_t len)
{
	struct ibv_sge sge = { (uintptr_t)e->buf + off, len, e->mr->lkey };
	struct ibv_recv_wr wr = { .wr_id = id, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	if (e->srq)
		return ibv_post_srq_recv(e->srq, &wr, &bad);
	return ibv_post_recv(e->id->qp, &wr, &bad);
}

/*
 * Listens on the server side, connects the client, accepts. The server
 * posts 'recvs' receives of 4 KiB before accepting. Options: an SRQ on
 * the server, the MR access of each side, private data for the reject
 * case (reject != NULL: the server rejects with it).
 */
struct pair_opts {
	int srv_srq;
	int srv_access, cli_access;
	int recvs;
	const char *reject;
	int refused;	/* the client is to get REJECTED from siw itself */
	/* ... only after the server accepted (the reply is refused) */
	int refused_late;
	int pdata;	/* both sides send PDATA_MAX bytes of private data */
	int srv_cqe;	/* entries of the server's CQ (0: 256) */
	/*
	 * Before connecting, a plain TCP socket listens on the client's
	 * address and the source port rdma_cm picked (its fd, or -1, in
	 * busy_fd; busy_errno when that failed).
	 */
	int busy_src_port;
	int busy_fd, busy_errno;
};

static void pdata_fill(unsigned char *pd, unsigned char seed)
{
	int i;

	for (i = 0; i < PDATA_MAX; i++)
		pd[i] = (unsigned char)(seed + i * 3);
}

static int pdata_is(const struct rdma_conn_param *c, unsigned char seed)
{
	unsigned char want[PDATA_MAX];

	pdata_fill(want, seed);
	return c->private_data_len >= PDATA_MAX &&
	       !memcmp(c->private_data, want, PDATA_MAX);
}

/*
 * A plain TCP listener on the address and source port rdma_cm picked for
 * id: siw's own socket cannot bind that port then (a listener conflicts
 * even with SO_REUSEADDR).
 */
static void busy_src_port(struct rdma_cm_id *id, struct pair_opts *o)
{
	struct sockaddr *src = rdma_get_local_addr(id);
	socklen_t len = src->sa_family == AF_INET6 ?
			sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);

	o->busy_errno = 0;
	o->busy_fd = socket(src->sa_family, SOCK_STREAM, 0);
	if (o->busy_fd < 0 || bind(o->busy_fd, src, len) ||
	    listen(o->busy_fd, 1)) {
		o->busy_errno = errno;
		if (o->busy_fd >= 0)
			close(o->busy_fd);
		o->busy_fd = -1;
	}
}

static int pair_connect(struct pair *p, const struct pair_opts *o)
{
	struct rdma_conn_param cp = { .responder_resources = 16,
				      .initiator_depth = 16,
				      .retry_count = 7 };
	unsigned char cli_pd[PDATA_MAX], srv_pd[PDATA_MAX];
	struct sockaddr_storage dst;
	struct rdma_cm_event *ev;
	struct rdma_cm_id *sid;
	int i;

	memset(p, 0, sizeof(*p));
	pdata_fill(cli_pd, 1);
	pdata_fill(srv_pd, 2);
	if (addr_of(server_addr, srv_port, &dst, NULL))
		return -1;

	if (enter_ns(server_ns))
		return -1;
	p->srv.ec = rdma_create_event_channel();
	if (cm_listen(p->srv.ec, &p->listen_id, (struct sockaddr *)&dst, 4)) {
		fprintf(stderr, "# server listen: %s\n", strerror(errno));
		return -1;
	}

	if (enter_ns(client_ns))
		return -1;
	p->cli.ec = rdma_create_event_channel();
	if (cm_dial(stderr, p->cli.ec, &p->cli.id, (struct sockaddr *)&dst)) {
		fprintf(stderr, "# client resolve: %s\n", strerror(errno));
		return -1;
	}
	if (end_setup(&p->cli, p->cli.id, 0, o->cli_access, 0)) {
		fprintf(stderr, "# client setup: %s\n", strerror(errno));
		return -1;
	}
	if (o->busy_src_port)
		busy_src_port(p->cli.id, (struct pair_opts *)o);
	enter_ns(NULL);
	if (o->pdata) {
		cp.private_data = cli_pd;
		cp.private_data_len = PDATA_MAX;
	}
	if (rdma_connect(p->cli.id, &cp))
		return -1;
	if (o->refused) {
		/* The MPA exchange fails: no request reaches the server. */
		if (expect_event(p->cli.ec, RDMA_CM_EVENT_REJECTED, &ev))
			return -1;
		rdma_ack_cm_event(ev);
		return cm_event(p->srv.ec, 500, &ev) < 0 ? 2 : -1;
	}

	if (expect_event(p->srv.ec, RDMA_CM_EVENT_CONNECT_REQUEST, &ev))
		return -1;
	sid = ev->id;
	p->srv_got_pd = pdata_is(&ev->param.conn, 1);
	rdma_ack_cm_event(ev);
	if (o->reject) {
		rdma_reject(sid, o->reject, strlen(o->reject) + 1);
		rdma_destroy_id(sid);
		return 1;
	}
	if (end_setup(&p->srv, sid, o->srv_srq, o->srv_access,
		      o->srv_cqe)) {
		fprintf(stderr, "# server setup: %s\n", strerror(errno));
		return -1;
	}
	for (i = 0; i < o->recvs; i++)
		if (post_recv(&p->srv, 1000 + i, (uint64_t)i * 4096, 4096))
			return -1;
	if (o->pdata)
		cp.private_data = srv_pd;
	cp.responder_resources = srv_ird;
	cp.initiator_depth = srv_ord;
	if (rdma_accept(sid, &cp))
		return -1;
	if (o->refused_late) {
		/* The client's siw refuses the reply: REJECTED, no ESTABLISHED. */
		int got = cm_event(p->cli.ec, 5000, &ev);

		if (got >= 0)
			rdma_ack_cm_event(ev);
		fprintf(stderr, "# client: %s\n",
			got >= 0 ? rdma_event_str(got) : "no CM event");
		return got == RDMA_CM_EVENT_REJECTED ? 2 : -1;
	}
	if (expect_event(p->srv.ec, RDMA_CM_EVENT_ESTABLISHED, NULL) ||
	    expect_event(p->cli.ec, RDMA_CM_EVENT_ESTABLISHED, &ev))
		return -1;
	p->cli_got_pd = pdata_is(&ev->param.conn, 2);
	rdma_ack_cm_event(ev);
	return 0;
}

static void pair_destroy(struct pair *p)
{
	struct rdma_event_channel *sec = p->srv.ec;

	if (p->cli.id)
		rdma_disconnect(p->cli.id);
	/* The server's channel also carries the listener. */
	p->srv.ec = NULL;
	end_destroy(&p->cli);
	end_destroy(&p->srv);
	if (p->listen_id)
		rdma_destroy_id(p->listen_id);
	if (sec)
		rdma_destroy_event_channel(sec);
}

static int got_async_event(struct ibv_qp *qp, enum ibv_event_type want,
			   int ms)
{
	return got_event(qp->context, want, qp, ms);
}

static void fill(char *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (char)(seed * 131 + i * 7 + (i >> 8));
}

static int send_wr(struct end *e, enum ibv_wr_opcode op, struct ibv_sge *sg,
		   int nsge, int flags, uint64_t raddr, uint32_t rkey,
		   uint64_t id)
{
	struct ibv_send_wr wr = {
		.wr_id = id, .sg_list = sg, .num_sge = nsge, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED | flags,
	}, *bad;

	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	return ibv_post_send(e->id->qp, &wr, &bad);
}

#define DEFAULT_ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
			IBV_ACCESS_REMOTE_READ)

/* Sends with several SGEs on both sides, inline, and of length zero. */
static void case_send(void)
{
	struct pair_opts o = { .srv_access = DEFAULT_ACCESS,
			       .cli_access = DEFAULT_ACCESS, .recvs = 0 };
	struct ibv_wc wc[4];
	struct ibv_recv_wr rwr, *bad;
	struct ibv_sge rs[4], ss[3];
	struct pair p;
	int i, ok;

	if (pair_connect(&p, &o)) {
		ktap_ok(0, "send: connect");
		goto out;
	}
	/* Receive: 4 SGEs of 1000 bytes at scattered places. */
	for (i = 0; i < 4; i++)
		rs[i] = (struct ibv_sge){ (uintptr_t)p.srv.buf + 8192 * i + 3,
					  1000, p.srv.mr->lkey };
	rwr = (struct ibv_recv_wr){ .wr_id = 1, .sg_list = rs, .num_sge = 4 };
	ibv_post_recv(p.srv.id->qp, &rwr, &bad);
	/* Send: 3 SGEs, 3000 bytes. */
	fill(p.cli.buf, 3000, 1);
	for (i = 0; i < 3; i++)
		ss[i] = (struct ibv_sge){ (uintptr_t)p.cli.buf + 1000 * i,
					  1000, p.cli.mr->lkey };
	send_wr(&p.cli, IBV_WR_SEND, ss, 3, 0, 0, 0, 11);
	ok = poll_n(p.cli.cq, wc, 1) == 1 && wc[0].status == IBV_WC_SUCCESS &&
	     wc[0].opcode == IBV_WC_SEND && wc[0].wr_id == 11;
	ktap_ok(ok, "send: 3-SGE send completes at the sender");
	ok = poll_n(p.srv.cq, wc, 1) == 1 && wc[0].status == IBV_WC_SUCCESS &&
	     wc[0].opcode == IBV_WC_RECV && wc[0].byte_len == 3000;
	for (i = 0; ok && i < 3; i++)
		ok = !memcmp(p.srv.buf + 8192 * i + 3, p.cli.buf + 1000 * i,
			     1000);
	ktap_ok(ok, "send: 4-SGE receive gets 3000 bytes, scattered correctly");

	/* Inline. */
	rs[0] = (struct ibv_sge){ (uintptr_t)p.srv.buf, 4096, p.srv.mr->lkey };
	rwr = (struct ibv_recv_wr){ .wr_id = 2, .sg_list = rs, .num_sge = 1 };
	ibv_post_recv(p.srv.id->qp, &rwr, &bad);
	fill(p.cli.buf + 65536, 64, 2);
	ss[0] = (struct ibv_sge){ (uintptr_t)p.cli.buf + 65536, 64, 0 };
	send_wr(&p.cli, IBV_WR_SEND, ss, 1, IBV_SEND_INLINE, 0, 0, 12);
	/* The buffer may change at once: the data went inline. */
	memset(p.cli.buf + 65536, 0, 64);
	poll_n(p.cli.cq, wc, 1);
	ok = poll_n(p.srv.cq, wc, 1) == 1 && wc[0].status == IBV_WC_SUCCESS &&
	     wc[0].byte_len == 64;
	fill(p.cli.buf + 65536, 64, 2);
	ktap_ok(ok && !memcmp(p.srv.buf, p.cli.buf + 65536, 64),
		"send: 64-byte inline send arrives intact");

	/* Zero length. */
	rwr = (struct ibv_recv_wr){ .wr_id = 3, .sg_list = rs, .num_sge = 1 };
	ibv_post_recv(p.srv.id->qp, &rwr, &bad);
	send_wr(&p.cli, IBV_WR_SEND, NULL, 0, 0, 0, 0, 13);
	ok = poll_n(p.cli.cq, wc, 1) == 1 && wc[0].status == IBV_WC_SUCCESS;
	ok = ok && poll_n(p.srv.cq, wc, 1) == 1 &&
	     wc[0].status == IBV_WC_SUCCESS && wc[0].byte_len == 0;
	ktap_ok(ok, "send: zero-length send completes on both sides");
out:
	pair_destroy(&p);
}

/* RDMA Write and Read, multi-SGE, zero length, many Reads outstanding. */
/*
 * RDMA Reads scattered over 1 to max_sge_rd SGEs of odd sizes at odd
 * offsets, with gaps between them, some large enough to take several
 * Read Response segments each: every SGE holds its piece of the source,
 * the gaps stay untouched, the completion counts every byte. One SGE more
 * than max_sge_rd is refused at post time.
 */
static void case_read_sgl(void)
{
	struct pair_opts o = { .srv_access = DEFAULT_ACCESS,
			       .cli_access = DEFAULT_ACCESS };
	struct ibv_device_attr da;
	struct ibv_sge sg[16];
	struct ibv_wc wc = { 0 };
	struct pair p;
	int n, k, ok, err, max = 0;

	if (pair_connect(&p, &o)) {
		ktap_ok(0, "readsgl: connect");
		goto out;
	}
	ok = !ibv_query_device(p.cli.id->verbs, &da);
	if (ok)
		max = da.max_sge_rd;
	ktap_ok(ok && max >= 2 && max <= da.max_sge && max < 16,
		"readsgl: max_sge_rd %d (max_sge %d)", max, ok ? da.max_sge : -1);
	if (max > 15)
		max = 15;	/* sg[] has room for max + 1 */
	fill(p.srv.buf, 256 * 1024, 11);
	for (n = 1; n <= max && n < 16; n++) {
		size_t at = 7, len = 0, want_at = 0;

		memset(p.cli.buf, 0xa5, 512 * 1024);
		for (k = 0; k < n; k++) {
			/* Odd sizes; every third spans several segments. */
			uint32_t piece = k % 3 == 2 ? 20011 + 977 * k : 1 + 331 * k;

			sg[k] = (struct ibv_sge){ (uintptr_t)p.cli.buf + at, piece,
						  p.cli.mr->lkey };
			at += piece + 3 + k;
			len += piece;
		}
		memset(&wc, 0, sizeof(wc));
		err = send_wr(&p.cli, IBV_WR_RDMA_READ, sg, n, 0,
			      (uintptr_t)p.srv.buf + 5, p.srv.mr->rkey, 700 + n);
		ok = !err && poll_n(p.cli.cq, &wc, 1) == 1 &&
		     wc.status == IBV_WC_SUCCESS && wc.wr_id == (uint64_t)(700 + n) &&
		     wc.opcode == IBV_WC_RDMA_READ && wc.byte_len == len;
		for (k = 0; ok && k < n; k++) {
			const char *got = (const char *)(uintptr_t)sg[k].addr;
			int g;

			ok = !memcmp(got, p.srv.buf + 5 + want_at, sg[k].length);
			for (g = 0; ok && g < 3 + k; g++)
				ok = (unsigned char)got[sg[k].length + g] == 0xa5;
			want_at += sg[k].length;
		}
		ok = ok && (unsigned char)p.cli.buf[6] == 0xa5;
		ktap_ok(ok, "readsgl: a Read of %zu bytes into %d SGEs: each holds its piece, the gaps untouched (post %d, status %s, byte_len %u)",
			len, n, err, ibv_wc_status_str(wc.status), wc.byte_len);
	}
	for (k = 0; k < 16; k++)
		sg[k] = (struct ibv_sge){ (uintptr_t)p.cli.buf + 64 * k, 64,
					  p.cli.mr->lkey };
	err = send_wr(&p.cli, IBV_WR_RDMA_READ, sg, max + 1, 0,
		      (uintptr_t)p.srv.buf, p.srv.mr->rkey, 799);
	ktap_ok(err != 0 && poll_n_for(p.cli.cq, &wc, 1, 300) == 0,
		"readsgl: a Read of max_sge_rd + 1 SGEs is refused at post (%s), nothing completes",
		strerror(err > 0 ? err : -err));
out:
	pair_destroy(&p);
}

static void case_rdma(void)
{
	struct pair_opts o = { .srv_access = DEFAULT_ACCESS,
			       .cli_access = DEFAULT_ACCESS };
	struct ibv_wc wc[32];
	struct ibv_sge sg[6];
	struct pair p;
	uint64_t raddr;
	uint32_t rkey;
	int i, n, ok;

	if (pair_connect(&p, &o)) {
		ktap_ok(0, "rdma: connect");
		goto out;
	}
	raddr = (uintptr_t)p.srv.buf;
	rkey = p.srv.mr->rkey;

	fill(p.cli.buf, 6 * 5000, 3);
	for (i = 0; i < 6; i++)
		sg[i] = (struct ibv_sge){ (uintptr_t)p.cli.buf + 5000 * i, 5000,
					  p.cli.mr->lkey };
	send_wr(&p.cli, IBV_WR_RDMA_WRITE, sg, 6, 0, raddr + 100, rkey, 21);
	ok = poll_n(p.cli.cq, wc, 1) == 1 && wc[0].status == IBV_WC_SUCCESS &&
	     wc[0].opcode == IBV_WC_RDMA_WRITE;
	/* The write completed locally; a read behind it sees its data. */
	memset(p.cli.buf + 200000, 0, 30000);
	sg[0] = (struct ibv_sge){ (uintptr_t)p.cli.buf + 200000, 30000,
				  p.cli.mr->lkey };
	send_wr(&p.cli, IBV_WR_RDMA_READ, sg, 1, 0, raddr + 100, rkey, 22);
	ok = ok && poll_n(p.cli.cq, wc, 1) == 1 &&
	     wc[0].status == IBV_WC_SUCCESS && wc[0].opcode == IBV_WC_RDMA_READ;
	ktap_ok(ok && !memcmp(p.srv.buf + 100, p.cli.buf, 30000) &&
		!memcmp(p.cli.buf + 200000, p.cli.buf, 30000),
		"rdma: 6-SGE write lands, read returns it");

	send_wr(&p.cli, IBV_WR_RDMA_WRITE, NULL, 0, 0, raddr, rkey, 23);
	send_wr(&p.cli, IBV_WR_RDMA_READ, NULL, 0, 0, raddr, rkey, 24);
	n = poll_n(p.cli.cq, wc, 2);
	ktap_ok(n == 2 && wc[0].status == IBV_WC_SUCCESS &&
		wc[1].status == IBV_WC_SUCCESS && wc[0].wr_id == 23 &&
		wc[1].wr_id == 24, "rdma: zero-length write and read complete");

	/* 32 reads of 16 KiB outstanding at once (bounded by the ORD). */
	fill(p.srv.buf, BUF_SIZE / 2, 4);
	memset(p.cli.buf + BUF_SIZE / 2, 0, BUF_SIZE / 2);
	for (i = 0; i < 32; i++) {
		sg[0] = (struct ibv_sge){ (uintptr_t)p.cli.buf + BUF_SIZE / 2 +
					  16384 * i, 16384, p.cli.mr->lkey };
		send_wr(&p.cli, IBV_WR_RDMA_READ, sg, 1, 0,
			raddr + 16384 * i, rkey, 100 + i);
	}
	n = poll_n(p.cli.cq, wc, 32);
	ok = n == 32;
	for (i = 0; ok && i < 32; i++)
		ok = wc[i].status == IBV_WC_SUCCESS &&
		     wc[i].wr_id == (uint64_t)(100 + i);
	ktap_ok(ok && !memcmp(p.srv.buf, p.cli.buf + BUF_SIZE / 2, 32 * 16384),
		"rdma: 32 outstanding reads complete in order with the right data (%d)",
		n);

	/*
	 * Reads both ways at once: each side's post finds the other's Read
	 * Requests pending, which its doorbell may answer itself.
	 */
	fill(p.srv.buf, 16 * 8192, 5);
	fill(p.cli.buf, 16 * 8192, 6);
	memset(p.srv.buf + BUF_SIZE / 2, 0, 16 * 8192);
	memset(p.cli.buf + BUF_SIZE / 2, 0, 16 * 8192);
	for (i = 0; i < 16; i++) {
		sg[0] = (struct ibv_sge){ (uintptr_t)p.cli.buf + BUF_SIZE / 2 +
					  8192 * i, 8192, p.cli.mr->lkey };
		send_wr(&p.cli, IBV_WR_RDMA_READ, sg, 1, 0,
			raddr + 8192 * i, rkey, 200 + i);
		sg[0] = (struct ibv_sge){ (uintptr_t)p.srv.buf + BUF_SIZE / 2 +
					  8192 * i, 8192, p.srv.mr->lkey };
		send_wr(&p.srv, IBV_WR_RDMA_READ, sg, 1, 0,
			(uintptr_t)p.cli.buf + 8192 * i, p.cli.mr->rkey,
			300 + i);
	}
	n = poll_n(p.cli.cq, wc, 16);
	ok = n == 16;
	for (i = 0; ok && i < 16; i++)
		ok = wc[i].status == IBV_WC_SUCCESS &&
		     wc[i].wr_id == (uint64_t)(200 + i);
	n = ok ? poll_n(p.srv.cq, wc, 16) : 0;
	ok = ok && n == 16;
	for (i = 0; ok && i < 16; i++)
		ok = wc[i].status == IBV_WC_SUCCESS &&
		     wc[i].wr_id == (uint64_t)(300 + i);
	ktap_ok(ok && !memcmp(p.srv.buf, p.cli.buf + BUF_SIZE / 2, 16 * 8192) &&
		!memcmp(p.cli.buf, p.srv.buf + BUF_SIZE / 2, 16 * 8192),
		"rdma: 16 reads each way at once return the right data");
out:
	pair_destroy(&p);
}

/* A shared receive queue on the server, and solicited events. */
static void case_srq_solicited(void)
{
	struct pair_opts o = { .srv_srq = 1, .srv_access = DEFAULT_ACCESS,
			       .cli_access = DEFAULT_ACCESS, .recvs = 8 };
	struct ibv_cq *ev_cq;
	struct ibv_wc wc[8];
	struct ibv_sge sg;
	struct pollfd pfd;
	struct pair p;
	void *ctx;
	int ok;

	if (pair_connect(&p, &o)) {
		ktap_ok(0, "srq: connect");
		goto out;
	}
	fill(p.cli.buf, 100, 5);
	sg = (struct ibv_sge){ (uintptr_t)p.cli.buf, 100, p.cli.mr->lkey };
	ibv_req_notify_cq(p.srv.cq, 1);	/* solicited only */
	send_wr(&p.cli, IBV_WR_SEND, &sg, 1, 0, 0, 0, 31);
	ok = poll_n(p.srv.cq, wc, 1) == 1 && wc[0].status == IBV_WC_SUCCESS &&
	     wc[0].wr_id == 1000 && !memcmp(p.srv.buf, p.cli.buf, 100);
	ktap_ok(ok, "srq: a send lands in the first SRQ receive");
	pfd = (struct pollfd){ .fd = p.srv.chan->fd, .events = POLLIN };
	ktap_ok(poll(&pfd, 1, 300) == 0,
		"solicited: an unsolicited send raises no event on a solicited-only CQ");
	send_wr(&p.cli, IBV_WR_SEND, &sg, 1, IBV_SEND_SOLICITED, 0, 0, 32);
	ok = poll(&pfd, 1, 2000) == 1 &&
	     !ibv_get_cq_event(p.srv.chan, &ev_cq, &ctx);
	if (ok)
		ibv_ack_cq_events(ev_cq, 1);
	ktap_ok(ok, "solicited: a solicited send raises the event");
	ok = poll_n(p.srv.cq, wc, 1) == 1 && wc[0].wr_id == 1001;
	ktap_ok(ok, "srq: the second send takes the second SRQ receive");
	poll_n(p.cli.cq, wc, 2);
out:
	pair_destroy(&p);
}

/*
 * Sends n messages of 100 + i bytes (seed i) to the server's SRQ, from
 * 'from' on, and checks each lands whole in receive 1000 + i at offset
 * i * 4096 (the receives pair_connect posted, taken in order).
 */
static int srq_feed(struct pair *p, int from, int n)
{
	struct ibv_wc wc;
	struct ibv_sge sg;
	int i;

	for (i = from; i < from + n; i++) {
		char *src = p->cli.buf + (size_t)i * 4096;

		fill(src, 100 + i, (unsigned int)i);
		sg = (struct ibv_sge){ (uintptr_t)src, 100 + i,
				       p->cli.mr->lkey };
		if (send_wr(&p->cli, IBV_WR_SEND, &sg, 1, 0, 0, 0, 500 + i) ||
		    poll_n(p->cli.cq, &wc, 1) != 1 ||
		    wc.status != IBV_WC_SUCCESS ||
		    poll_n(p->srv.cq, &wc, 1) != 1 ||
		    wc.status != IBV_WC_SUCCESS ||
		    wc.wr_id != (uint64_t)(1000 + i) ||
		    wc.byte_len != (uint32_t)(100 + i) ||
		    memcmp(p->srv.buf + (size_t)i * 4096, src, 100 + i)) {
			fprintf(stderr, "# srq_feed: message %d\n", i);
			return -1;
		}
	}
	return 0;
}

/*
 * The SRQ limit event: armed with a limit, it fires once when a receive
 * taken leaves fewer than the limit posted, and disarms itself. The stock
 * siw provider has no query_srq (ibv_query_srq fails with EOPNOTSUPP), so
 * the disarming shows as the absence of a second event.
 */
static void case_srq_limit(void)
{
	struct pair_opts o = { .srv_srq = 1, .srv_access = DEFAULT_ACCESS,
			       .cli_access = DEFAULT_ACCESS, .recvs = 16 };
	struct ibv_srq_attr sa = { .srq_limit = 4 };
	struct ibv_context *ctx;
	struct ibv_srq *srq;
	struct pair p;
	int i, ok;

	if (pair_connect(&p, &o)) {
		ktap_ok(0, "srqlimit: connect");
		goto out;
	}
	srq = p.srv.srq;
	ctx = srq->context;
	sa.srq_limit = 100000;
	i = ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT);
	ktap_ok(i == EINVAL || (i == -1 && errno == EINVAL),
		"srqlimit: a limit above the SRQ's size is refused with EINVAL");
	sa.srq_limit = 4;
	ktap_ok(!ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT),
		"srqlimit: armed at 4 with 16 receives posted");
	ok = !srq_feed(&p, 0, 12);
	ktap_ok(ok, "srqlimit: 12 sends land in receives 0-11, data checked");
	ktap_ok(ok && count_events(ctx, IBV_EVENT_SRQ_LIMIT_REACHED, srq, 300) == 0,
		"srqlimit: 4 receives left: no event yet");
	ok = ok && !srq_feed(&p, 12, 1);
	i = ok ? count_events(ctx, IBV_EVENT_SRQ_LIMIT_REACHED, srq, 1000) :
		 -1;
	ktap_ok(i == 1, "srqlimit: the 13th leaves 3, below 4: one SRQ_LIMIT_REACHED (%d)",
		i);
	ok = ok && !srq_feed(&p, 13, 3);
	ktap_ok(ok && count_events(ctx, IBV_EVENT_SRQ_LIMIT_REACHED, srq, 300) == 0,
		"srqlimit: the last 3 taken, disarmed: no second event");

	/* Re-armed: it fires again. */
	for (i = 16; i < 24 && ok; i++)
		ok = !post_recv(&p.srv, 1000 + i, (uint64_t)i * 4096, 4096);
	sa.srq_limit = 8;
	ok = ok && !ibv_modify_srq(srq, &sa, IBV_SRQ_LIMIT);
	ktap_ok(ok && count_events(ctx, IBV_EVENT_SRQ_LIMIT_REACHED, srq, 300) == 0,
		"srqlimit: 8 more posted, re-armed at 8: not below it, no event");
	ok = ok && !srq_feed(&p, 16, 1);
	ktap_ok(ok && count_events(ctx, IBV_EVENT_SRQ_LIMIT_REACHED, srq, 1000) == 1,
		"srqlimit: one taken, 7 left: the event again");
	ok = ok && !srq_feed(&p, 17, 2);
	ktap_ok(ok && count_events(ctx, IBV_EVENT_SRQ_LIMIT_REACHED, srq, 300) == 0,
		"srqlimit: two more taken: disarmed again, no event");
out:
	pair_destroy(&p);
}

/*
 * Remote access violations: each ends in a Terminate, the offending READ
 * completes with a remote access error, and both QPs go to error.
 */
static void case_access(void)
{
	static const struct {
		const char *name;
		int bad;
	} kinds[] = {
		{ "invalid STag", 0 }, { "out of bounds", 1 },
		{ "no remote read right", 2 }, { "STag of another PD", 3 },
	};
	unsigned int k;

	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		struct pair_opts o = { .srv_access = DEFAULT_ACCESS,
				       .cli_access = DEFAULT_ACCESS,
				       .recvs = 2 };
		struct ibv_pd *pd2 = NULL;
		struct ibv_mr *mr2 = NULL;
		struct ibv_wc wc[4];
		struct ibv_sge sg;
		struct pair p;
		uint64_t raddr;
		uint32_t rkey;
		int n, ok;

		if (pair_connect(&p, &o)) {
			ktap_ok(0, "access %s: connect", kinds[k].name);
			pair_destroy(&p);
			continue;
		}
		raddr = (uintptr_t)p.srv.buf;
		rkey = p.srv.mr->rkey;
		switch (kinds[k].bad) {
		case 0:
			rkey ^= 0x5a5a00;
			break;
		case 1:
			raddr += BUF_SIZE - 100;
			break;
		case 2:
			mr2 = ibv_reg_mr(p.srv.pd, p.srv.buf, 4096,
					 IBV_ACCESS_LOCAL_WRITE);
			rkey = mr2 ? mr2->rkey : 0;
			break;
		case 3:
			pd2 = ibv_alloc_pd(p.srv.id->verbs);
			mr2 = pd2 ? ibv_reg_mr(pd2, p.srv.buf, 4096,
					       DEFAULT_ACCESS) : NULL;
			rkey = mr2 ? mr2->rkey : 0;
			break;
		}
		sg = (struct ibv_sge){ (uintptr_t)p.cli.buf, 4096,
				       p.cli.mr->lkey };
		send_wr(&p.cli, IBV_WR_RDMA_READ, &sg, 1, 0, raddr, rkey, 41);
		send_wr(&p.cli, IBV_WR_SEND, &sg, 1, 0, 0, 0, 42);
		n = poll_n(p.cli.cq, wc, 2);
		ok = n == 2 && wc[0].wr_id == 41 &&
		     wc[0].status == IBV_WC_REM_ACCESS_ERR &&
		     wc[1].wr_id == 42 && wc[1].status == IBV_WC_WR_FLUSH_ERR;
		ktap_ok(ok, "access %s: READ completes REM_ACCESS_ERR, the next WR flushed (%d: %s, %s)",
			kinds[k].name, n, n > 0 ? ibv_wc_status_str(wc[0].status) : "-",
			n > 1 ? ibv_wc_status_str(wc[1].status) : "-");
		n = poll_n(p.srv.cq, wc, 2);
		ok = n == 2 && wc[0].status == IBV_WC_WR_FLUSH_ERR &&
		     wc[1].status == IBV_WC_WR_FLUSH_ERR;
		ktap_ok(ok, "access %s: the target's receives are flushed (%d)",
			kinds[k].name, n);
		ok = got_async_event(p.srv.id->qp, IBV_EVENT_QP_ACCESS_ERR,
				     2000);
		ktap_ok(ok, "access %s: the target gets IBV_EVENT_QP_ACCESS_ERR",
			kinds[k].name);
		if (mr2)
			ibv_dereg_mr(mr2);
		if (pd2)
			ibv_dealloc_pd(pd2);
		pair_destroy(&p);
	}
}

/* A disconnect flushes what the other side has posted. */
static void case_disconnect(void)
{
	struct pair_opts o = { .srv_access = DEFAULT_ACCESS,
			       .cli_access = DEFAULT_ACCESS, .recvs = 5 };
	struct rdma_cm_event *ev;
	struct ibv_wc wc[8];
	struct pair p;
	int n, ok, i;

	if (pair_connect(&p, &o)) {
		ktap_ok(0, "disconnect: connect");
		goto out;
	}
	rdma_disconnect(p.cli.id);
	ok = !expect_event(p.srv.ec, RDMA_CM_EVENT_DISCONNECTED, &ev);
	if (ok)
		rdma_ack_cm_event(ev);
	ktap_ok(ok, "disconnect: the server sees DISCONNECTED");
	n = poll_n(p.srv.cq, wc, 5);
	ok = n == 5;
	for (i = 0; ok && i < 5; i++)
		ok = wc[i].status == IBV_WC_WR_FLUSH_ERR &&
		     wc[i].wr_id == (uint64_t)(1000 + i);
	ktap_ok(ok, "disconnect: its 5 receives complete flushed, in order (%d)", n);
	if (verify_cmd) {
		int rc = system(verify_cmd);

		ktap_ok(rc == 0, "disconnect: %s", verify_cmd);
	}
	/*
	 * The server disconnects too, after the fact, as applications do on
	 * DISCONNECTED: librdmacm moves its QP (in ERR by now) to SQD first.
	 */
	errno = 0;
	ok = rdma_disconnect(p.srv.id) == 0;
	ktap_ok(ok, "disconnect: the server's own rdma_disconnect then succeeds (%s)",
		ok ? "0" : strerror(errno));
	ok = post_recv(&p.srv, 77, 0, 16) == 0;
	/* The stock provider gives no doorbell for receives: nothing more. */
	ktap_ok(ok, "disconnect: posting after the disconnect still succeeds");
out:
	pair_destroy(&p);
}

/*
 * rdma_cm picks an active side's source port from its own port space,
 * which knows nothing of plain TCP sockets. When such a socket holds the
 * port, siw must still connect (from another port) rather than fail.
 */
static void case_srcport(void)
{
	struct pair_opts o = { .srv_access = DEFAULT_ACCESS,
			       .cli_access = DEFAULT_ACCESS, .recvs = 1,
			       .busy_src_port = 1, .busy_fd = -1 };
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct pair p;
	int ok;

	ok = pair_connect(&p, &o) == 0;
	ktap_ok(o.busy_fd >= 0, "srcport: a TCP listener holds the client's source port (%s)",
		o.busy_fd >= 0 ? "ok" : strerror(o.busy_errno));
	ktap_ok(ok, "srcport: the connection is established all the same");
	if (!ok)
		goto out;
	fill(p.cli.buf, 4096, 7);
	sge = (struct ibv_sge){ (uintptr_t)p.cli.buf, 4096, p.cli.mr->lkey };
	send_wr(&p.cli, IBV_WR_SEND, &sge, 1, 0, 0, 0, 21);
	ok = poll_n(p.cli.cq, &wc, 1) == 1 && wc.status == IBV_WC_SUCCESS;
	ok = ok && poll_n(p.srv.cq, &wc, 1) == 1 &&
	     wc.status == IBV_WC_SUCCESS && wc.byte_len == 4096 &&
	     !memcmp(p.srv.buf, p.cli.buf, 4096);
	ktap_ok(ok, "srcport: a 4 KiB send arrives intact");
out:
	if (o.busy_fd >= 0)
		close(o.busy_fd);
	pair_destroy(&p);
}

/* A reject delivers the server's private data to the client. */
/*
 * Wildcard listeners on one port for IPv4 and for IPv6 with AF_INET6
 * only, side by side, as knfsd opens them for NFS over RDMA: both listens
 * succeed (siw's IPv6 socket must be v6-only before it binds).
 */
static void case_dualstack(void)
{
	struct sockaddr_in v4 = { .sin_family = AF_INET,
				  .sin_port = htons(srv_port + 1) };
	struct sockaddr_in6 v6 = { .sin6_family = AF_INET6,
				   .sin6_port = htons(srv_port + 1),
				   .sin6_addr = IN6ADDR_ANY_INIT };
	struct rdma_event_channel *ec = NULL;
	struct rdma_cm_id *id4 = NULL, *id6 = NULL;
	int one = 1, ok;

	ok = !enter_ns(server_ns) && (ec = rdma_create_event_channel()) &&
	     !rdma_create_id(ec, &id4, NULL, RDMA_PS_TCP) &&
	     !rdma_create_id(ec, &id6, NULL, RDMA_PS_TCP) &&
	     !rdma_set_option(id6, RDMA_OPTION_ID, RDMA_OPTION_ID_AFONLY,
			      &one, sizeof(one));
	ktap_ok(ok, "dualstack: two rdma_cm IDs, the IPv6 one AF-only");
	ok = ok && !rdma_bind_addr(id4, (struct sockaddr *)&v4) &&
	     !rdma_listen(id4, 8);
	ktap_ok(ok, "dualstack: listen on 0.0.0.0:%d (%s)", srv_port + 1,
		ok ? "ok" : strerror(errno));
	ok = ok && !rdma_bind_addr(id6, (struct sockaddr *)&v6) &&
	     !rdma_listen(id6, 8);
	ktap_ok(ok, "dualstack: and on [::]:%d beside it (%s)", srv_port + 1,
		ok ? "ok" : strerror(errno));
	if (id6)
		rdma_destroy_id(id6);
	if (id4)
		rdma_destroy_id(id4);
	if (ec)
		rdma_destroy_event_channel(ec);
	enter_ns(NULL);
}

static void case_reject(void)
{
	struct pair_opts o = { .srv_access = DEFAULT_ACCESS,
			       .cli_access = DEFAULT_ACCESS,
			       .reject = "siw-reject-private-data" };
	struct rdma_cm_event *ev;
	struct pair p;
	int r, ok;

	r = pair_connect(&p, &o);
	ktap_ok(r == 1, "reject: the server rejects the request");
	ok = r == 1 && !expect_event(p.cli.ec, RDMA_CM_EVENT_REJECTED, &ev);
	if (ok) {
		ok = ev->param.conn.private_data_len >= strlen(o.reject) + 1 &&
		     !memcmp(ev->param.conn.private_data, o.reject,
			     strlen(o.reject) + 1);
		rdma_ack_cm_event(ev);
	}
	ktap_ok(ok, "reject: the client gets REJECTED with the private data");
	if (verify_cmd) {
		int rc = system(verify_cmd);

		ktap_ok(rc == 0, "reject: %s", verify_cmd);
	}
	pair_destroy(&p);
}

/*
 * Send with Invalidate naming a plain MR, which only its owner may
 * invalidate (remote invalidation is for fast-register MRs and windows):
 * the server's receive completes with a remote invalidate request error,
 * the server sends a Terminate, and the client's later work is flushed.
 * The valid case needs a fast-register MR, which only kernel users have.
 */
static void case_sendinv(void)
{
	struct pair_opts o = { .srv_access = DEFAULT_ACCESS,
			       .cli_access = DEFAULT_ACCESS, .recvs = 1 };
	struct ibv_send_wr wr = { 0 }, *bad;
	struct ibv_wc wc[4];
	struct ibv_sge sg;
	struct pair p;
	int ok, n;

	if (pair_connect(&p, &o)) {
		ktap_ok(0, "sendinv: connect");
		goto out;
	}
	fill(p.cli.buf, 100, 9);
	sg = (struct ibv_sge){ (uintptr_t)p.cli.buf, 100, p.cli.mr->lkey };
	wr = (struct ibv_send_wr){ .wr_id = 41, .sg_list = &sg, .num_sge = 1,
				   .opcode = IBV_WR_SEND_WITH_INV,
				   .send_flags = IBV_SEND_SIGNALED };
	wr.invalidate_rkey = p.srv.mr->rkey;
	ok = ibv_post_send(p.cli.id->qp, &wr, &bad) == 0;
	ok = ok && poll_n(p.cli.cq, wc, 1) == 1 && wc[0].wr_id == 41 &&
	     wc[0].opcode == IBV_WC_SEND;
	ktap_ok(ok, "sendinv: the send with invalidate leaves the client");
	ok = poll_n(p.srv.cq, wc, 1) == 1 &&
	     wc[0].status == IBV_WC_REM_INV_REQ_ERR && wc[0].wr_id == 1000;
	ktap_ok(ok, "sendinv: invalidating a plain MR fails the receive with a remote invalidate request error (status %d)",
		wc[0].status);
	/* The Terminate reaches the client: its QP goes to error. */
	ok = got_async_event(p.cli.id->qp, IBV_EVENT_QP_FATAL, 5000);
	ktap_ok(ok, "sendinv: the client gets IBV_EVENT_QP_FATAL from the Terminate");
	send_wr(&p.cli, IBV_WR_SEND, &sg, 1, 0, 0, 0, 42);
	n = poll_n(p.cli.cq, wc, 1);
	ktap_ok(n == 1 && wc[0].wr_id == 42 && wc[0].status == IBV_WC_WR_FLUSH_ERR,
		"sendinv: the client's next send is flushed (status %d)",
		n == 1 ? (int)wc[0].status : -1);
out:
	pair_destroy(&p);
}

/* The largest private data rdma_cm carries, both ways. */
static void case_pdata(void)
{
	struct pair_opts o = { .srv_access = DEFAULT_ACCESS,
			       .cli_access = DEFAULT_ACCESS, .pdata = 1 };
	struct pair p;

	if (pair_connect(&p, &o)) {
		ktap_ok(0, "pdata: connect");
		goto out;
	}
	ktap_ok(p.srv_got_pd, "pdata: the server gets the client's %d bytes of private data",
		PDATA_MAX);
	ktap_ok(p.cli_got_pd, "pdata: the client gets the server's %d bytes of private data",
		PDATA_MAX);
out:
	pair_destroy(&p);
}

/*
 * One connection between devices with whatever MPA settings the caller
 * gave them: a Send, a Write and a Read, each with its data checked, then
 * the caller's check of what was negotiated (-x), or with -r a refusal.
 */
static void case_mpa(void)
{
	struct pair_opts o = { .srv_access = DEFAULT_ACCESS,
			       .cli_access = DEFAULT_ACCESS, .recvs = 1,
			       .refused = expect_refused,
			       .refused_late = expect_refused_late };
	struct ibv_wc wc[2];
	struct ibv_sge sg;
	struct pair p;
	uint64_t raddr;
	int r, ok;

	r = pair_connect(&p, &o);
	if (expect_refused || expect_refused_late) {
		ktap_ok(r == 2, "mpa: the connection is refused%s",
			expect_refused_late ? " after the server accepted" : "");
		goto out;
	}
	if (r) {
		ktap_ok(0, "mpa: connect");
		goto out;
	}
	fill(p.cli.buf, 3000, 5);
	sg = (struct ibv_sge){ (uintptr_t)p.cli.buf, 3000, p.cli.mr->lkey };
	send_wr(&p.cli, IBV_WR_SEND, &sg, 1, 0, 0, 0, 51);
	ok = poll_n(p.cli.cq, wc, 1) == 1 && wc[0].status == IBV_WC_SUCCESS;
	ok = ok && poll_n(p.srv.cq, wc, 1) == 1 &&
	     wc[0].status == IBV_WC_SUCCESS && wc[0].byte_len == 3000 &&
	     !memcmp(p.srv.buf, p.cli.buf, 3000);
	ktap_ok(ok, "mpa: a send arrives intact");

	raddr = (uintptr_t)p.srv.buf + 65536;
	fill(p.cli.buf + 65536, 65536, 6);
	sg = (struct ibv_sge){ (uintptr_t)p.cli.buf + 65536, 65536,
			       p.cli.mr->lkey };
	send_wr(&p.cli, IBV_WR_RDMA_WRITE, &sg, 1, 0, raddr, p.srv.mr->rkey,
		52);
	ok = poll_n(p.cli.cq, wc, 1) == 1 && wc[0].status == IBV_WC_SUCCESS;
	sg = (struct ibv_sge){ (uintptr_t)p.cli.buf + 262144, 65536,
			       p.cli.mr->lkey };
	send_wr(&p.cli, IBV_WR_RDMA_READ, &sg, 1, 0, raddr, p.srv.mr->rkey,
		53);
	ok = ok && poll_n(p.cli.cq, wc, 1) == 1 &&
	     wc[0].status == IBV_WC_SUCCESS && wc[0].wr_id == 53;
	ktap_ok(ok && !memcmp(p.srv.buf + 65536, p.cli.buf + 65536, 65536) &&
		!memcmp(p.cli.buf + 262144, p.cli.buf + 65536, 65536),
		"mpa: a 64 KiB write lands and a read returns it");
	if (verify_cmd) {
		r = system(verify_cmd);
		ktap_ok(r == 0, "mpa: %s", verify_cmd);
	}
out:
	pair_destroy(&p);
}

/*
 * A CQ that overflows under traffic: the server's CQ holds 8 entries and
 * is never polled while 32 sends arrive. The ninth completion does not
 * fit: the CQ's owner gets the CQ error, the 8 entries stay intact, the
 * server's QP fails and terminates the connection, and every send of the
 * client completes (successfully or flushed); nothing hangs.
 */
#define OVF_SENDS	32
#define OVF_CQE		8
static void case_cq_overflow(void)
{
	struct pair_opts o = { .srv_access = DEFAULT_ACCESS,
			       .cli_access = DEFAULT_ACCESS,
			       .recvs = OVF_SENDS, .srv_cqe = OVF_CQE };
	struct ibv_wc wc[OVF_SENDS + 1];
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr qa;
	struct ibv_sge sg;
	struct pair p;
	int i, n, ok, bad = 0;

	if (pair_connect(&p, &o)) {
		ktap_ok(0, "cqoverflow: connect");
		goto out;
	}
	fill(p.cli.buf, OVF_SENDS * 4096, 9);
	for (i = 0; i < OVF_SENDS; i++) {
		sg = (struct ibv_sge){ (uintptr_t)p.cli.buf + 4096 * i, 4096,
				       p.cli.mr->lkey };
		if (send_wr(&p.cli, IBV_WR_SEND, &sg, 1, 0, 0, 0, 500 + i))
			bad++;
	}
	ktap_ok(!bad, "cqoverflow: %d sends of 4 KiB posted", OVF_SENDS);
	ktap_ok(got_cq_error(p.srv.cq, 10000),
		"cqoverflow: the server's CQ reports IBV_EVENT_CQ_ERR");
	n = poll_n_for(p.cli.cq, wc, OVF_SENDS, 10000);
	ok = n == OVF_SENDS;
	for (i = 0; ok && i < OVF_SENDS; i++)
		ok = wc[i].wr_id == (uint64_t)(500 + i) &&
		     (wc[i].status == IBV_WC_SUCCESS ||
		      wc[i].status == IBV_WC_WR_FLUSH_ERR);
	ktap_ok(ok, "cqoverflow: all %d sends complete at the client, in order, successful or flushed (%d)",
		OVF_SENDS, n);
	n = ibv_poll_cq(p.srv.cq, OVF_SENDS + 1, wc);
	ok = n == OVF_CQE;
	for (i = 0; ok && i < OVF_CQE; i++)
		ok = wc[i].status == IBV_WC_SUCCESS &&
		     wc[i].opcode == IBV_WC_RECV &&
		     wc[i].wr_id == (uint64_t)(1000 + i) &&
		     wc[i].byte_len == 4096 &&
		     !memcmp(p.srv.buf + 4096 * i, p.cli.buf + 4096 * i, 4096);
	ktap_ok(ok, "cqoverflow: the server's CQ holds the %d receives that fit, intact and in order (%d)",
		OVF_CQE, n);
	ok = !ibv_query_qp(p.srv.id->qp, &qa, IBV_QP_STATE, &ia) &&
	     qa.qp_state == IBV_QPS_ERR;
	ktap_ok(ok, "cqoverflow: the server's QP is in the error state");
	ktap_ok(got_async_event(p.srv.id->qp, IBV_EVENT_QP_FATAL, 5000),
		"cqoverflow: the server's QP reports IBV_EVENT_QP_FATAL");
out:
	pair_destroy(&p);
}

/*
 * Memory registration churn with traffic running: 8 RDMA Writes stay in
 * flight, each followed by a small RDMA Read of the same target (a Write
 * completes once sent; the Read's completion says it was placed). As a
 * Read completes, the write's data is checked at the target and both MRs
 * (source and target) are deregistered and registered anew over another
 * range, mostly unaligned, before the next write.
 */
#define CHURN_SLOTS	8
#define CHURN_ROUNDS	2000
#define CHURN_SLOT	(BUF_SIZE / CHURN_SLOTS)
#define CHURN_LEN	(CHURN_SLOT / 2)

struct churn {
	struct pair *p;
	struct ibv_mr *src_mr[CHURN_SLOTS], *dst_mr[CHURN_SLOTS];
	unsigned int shift[CHURN_SLOTS];
	char sink[CHURN_SLOTS][64];	/* where each Read lands */
	struct ibv_mr *sink_mr;
	int posted, bad_reg, bad_post;
};

/* Registers slot i's two MRs over a new range and posts its write. */
static void churn_post(struct churn *c, int i)
{
	unsigned int sh = (c->posted * 4099u) % (CHURN_SLOT - CHURN_LEN);
	char *src = c->p->cli.buf + i * CHURN_SLOT + sh;
	char *dst = c->p->srv.buf + i * CHURN_SLOT + sh;
	struct ibv_send_wr wr[2] = {}, *bad;
	struct ibv_sge sg[2];

	c->shift[i] = sh;
	c->src_mr[i] = ibv_reg_mr(c->p->cli.pd, src, CHURN_LEN,
				  IBV_ACCESS_LOCAL_WRITE);
	c->dst_mr[i] = ibv_reg_mr(c->p->srv.pd, dst, CHURN_LEN,
				  IBV_ACCESS_LOCAL_WRITE |
				  IBV_ACCESS_REMOTE_WRITE |
				  IBV_ACCESS_REMOTE_READ);
	if (!c->src_mr[i] || !c->dst_mr[i]) {
		c->bad_reg++;
		return;
	}
	fill(src, CHURN_LEN, c->posted);
	memset(c->sink[i], 0, sizeof(c->sink[i]));
	sg[0] = (struct ibv_sge){ (uintptr_t)src, CHURN_LEN,
				  c->src_mr[i]->lkey };
	sg[1] = (struct ibv_sge){ (uintptr_t)c->sink[i], sizeof(c->sink[i]),
				  c->sink_mr->lkey };
	wr[0] = (struct ibv_send_wr){ .wr_id = i, .sg_list = &sg[0],
				      .num_sge = 1, .next = &wr[1],
				      .opcode = IBV_WR_RDMA_WRITE };
	wr[0].wr.rdma.remote_addr = (uintptr_t)dst;
	wr[0].wr.rdma.rkey = c->dst_mr[i]->rkey;
	/* The Read fetches the written range's last 64 bytes. */
	wr[1] = (struct ibv_send_wr){ .wr_id = i, .sg_list = &sg[1],
				      .num_sge = 1,
				      .opcode = IBV_WR_RDMA_READ,
				      .send_flags = IBV_SEND_SIGNALED };
	wr[1].wr.rdma.remote_addr = (uintptr_t)dst + CHURN_LEN -
				    sizeof(c->sink[i]);
	wr[1].wr.rdma.rkey = c->dst_mr[i]->rkey;
	if (ibv_post_send(c->p->cli.id->qp, wr, &bad))
		c->bad_post++;
	c->posted++;
}

/* Deregisters slot i's MRs; returns non-zero on failure. */
static int churn_release(struct churn *c, int i)
{
	int r = 0;

	if (c->src_mr[i])
		r |= ibv_dereg_mr(c->src_mr[i]);
	if (c->dst_mr[i])
		r |= ibv_dereg_mr(c->dst_mr[i]);
	c->src_mr[i] = c->dst_mr[i] = NULL;
	return r;
}

static void case_mr_churn(void)
{
	struct pair_opts o = { .srv_access = DEFAULT_ACCESS,
			       .cli_access = DEFAULT_ACCESS };
	struct churn c = { 0 };
	int done = 0, bad_data = 0, bad_wc = 0;
	struct ibv_wc wc;
	struct pair p;
	int i;

	if (pair_connect(&p, &o)) {
		ktap_ok(0, "mrchurn: connect");
		goto out;
	}
	c.p = &p;
	c.sink_mr = ibv_reg_mr(p.cli.pd, c.sink, sizeof(c.sink),
			       IBV_ACCESS_LOCAL_WRITE);
	if (!c.sink_mr) {
		ktap_ok(0, "mrchurn: register the read sink");
		goto out;
	}
	for (i = 0; i < CHURN_SLOTS; i++)
		churn_post(&c, i);
	while (done < c.posted && !c.bad_reg && !c.bad_post && !bad_wc) {
		if (poll_n_for(p.cli.cq, &wc, 1, 10000) != 1) {
			bad_wc++;
			break;
		}
		done++;
		i = (int)wc.wr_id;
		if (i < 0 || i >= CHURN_SLOTS || wc.status != IBV_WC_SUCCESS) {
			fprintf(stderr, "# write %d: status %s\n", done,
				ibv_wc_status_str(wc.status));
			bad_wc++;
			break;
		}
		if (memcmp(p.srv.buf + i * CHURN_SLOT + c.shift[i],
			   p.cli.buf + i * CHURN_SLOT + c.shift[i], CHURN_LEN) ||
		    memcmp(c.sink[i], p.cli.buf + i * CHURN_SLOT + c.shift[i] +
			   CHURN_LEN - sizeof(c.sink[i]), sizeof(c.sink[i])))
			bad_data++;
		if (churn_release(&c, i))
			c.bad_reg++;
		if (c.posted < CHURN_ROUNDS)
			churn_post(&c, i);
	}
	ktap_ok(!c.bad_reg, "mrchurn: %d MRs registered and deregistered",
		2 * c.posted);
	ktap_ok(done == CHURN_ROUNDS && !bad_wc && !c.bad_post,
		"mrchurn: all %d writes and reads complete successfully (%d done)",
		CHURN_ROUNDS, done);
	ktap_ok(!bad_data,
		"mrchurn: every write's data arrived intact, and reads return it (%d bad)",
		bad_data);
out:
	for (i = 0; i < CHURN_SLOTS; i++)
		churn_release(&c, i);
	if (c.sink_mr)
		ibv_dereg_mr(c.sink_mr);
	pair_destroy(&p);
}

/*
 * Buffers reused right after their completion. The client sends OW_ROUNDS
 * messages of OW_LEN bytes, alternately a Send and an RDMA Write followed
 * by an 8-byte inline Send naming it, from OW_SLOTS source buffers; as
 * soon as a message completes, its buffer is overwritten. The server
 * checks every message against the pattern it had when posted. A driver
 * that completes before the network stack let go of the pages (zero-copy
 * transmit done wrong) fails here once a segment must be sent again: run
 * it with loss and reordering on the link (tc netem).
 */
#define OW_SLOTS	4
#define OW_LEN		(128 * 1024)
#define OW_ROUNDS	400
#define OW_SEED(k)	(1000u + (unsigned int)(k))

struct ow {
	struct pair *p;
	char *expect;
	int posted, verified, bad_post, bad_data, bad_wc;
};

/* Posts message k from source slot k % OW_SLOTS. */
static void ow_post(struct ow *w, int k)
{
	int s = k % OW_SLOTS;
	char *src = w->p->cli.buf + s * OW_LEN;
	struct ibv_sge sg = { (uintptr_t)src, OW_LEN, w->p->cli.mr->lkey };
	struct ibv_send_wr wr[2] = {}, *bad;
	uint64_t marker = (uint64_t)k;
	struct ibv_sge msg = { (uintptr_t)&marker, sizeof(marker), 0 };

	fill(src, OW_LEN, OW_SEED(k));
	wr[0] = (struct ibv_send_wr){ .wr_id = (uint64_t)k, .sg_list = &sg,
				      .num_sge = 1,
				      .send_flags = IBV_SEND_SIGNALED };
	if (k % 2 == 0) {
		wr[0].opcode = IBV_WR_SEND;
	} else {
		/* Into the server's Write area, slot k % OW_SLOTS. */
		wr[0].opcode = IBV_WR_RDMA_WRITE;
		wr[0].wr.rdma.remote_addr = (uintptr_t)w->p->srv.buf +
					    (OW_SLOTS + s) * OW_LEN;
		wr[0].wr.rdma.rkey = w->p->srv.mr->rkey;
		wr[0].next = &wr[1];
		wr[1] = (struct ibv_send_wr){ .wr_id = ~0ull, .sg_list = &msg,
					      .num_sge = 1,
					      .opcode = IBV_WR_SEND,
					      .send_flags = IBV_SEND_INLINE };
	}
	if (ibv_post_send(w->p->cli.id->qp, wr, &bad))
		w->bad_post++;
	w->posted++;
}

/* The server got message k in receive buffer b: check it, repost b. */
static void ow_check(struct ow *w, int k, int b, const struct ibv_wc *wc)
{
	const char *got;
	uint64_t marker;

	if (k % 2 == 0) {
		got = w->p->srv.buf + b * OW_LEN;
		if (wc->byte_len != OW_LEN)
			w->bad_data++;
	} else {
		memcpy(&marker, w->p->srv.buf + b * OW_LEN, sizeof(marker));
		if (wc->byte_len != sizeof(marker) || marker != (uint64_t)k)
			w->bad_data++;
		got = w->p->srv.buf + (OW_SLOTS + k % OW_SLOTS) * OW_LEN;
	}
	fill(w->expect, OW_LEN, OW_SEED(k));
	if (memcmp(got, w->expect, OW_LEN)) {
		if (w->bad_data++ < 3)
			fprintf(stderr, "# message %d (%s) differs from what was posted\n",
				k, k % 2 ? "Write" : "Send");
	}
	if (post_recv(&w->p->srv, (uint64_t)b, (uint64_t)b * OW_LEN, OW_LEN))
		w->bad_post++;
	w->verified++;
}

static void case_overwrite(void)
{
	struct pair_opts o = { .srv_access = DEFAULT_ACCESS,
			       .cli_access = DEFAULT_ACCESS };
	struct ow w = { 0 };
	struct ibv_wc wc;
	int b, idle_ms = 0, done = 0;
	struct pair p;

	if (pair_connect(&p, &o)) {
		ktap_ok(0, "overwrite: connect");
		goto out;
	}
	w.p = &p;
	w.expect = malloc(OW_LEN);
	if (!w.expect)
		goto out;
	for (b = 0; b < OW_SLOTS; b++)
		if (post_recv(&p.srv, (uint64_t)b, (uint64_t)b * OW_LEN, OW_LEN))
			w.bad_post++;
	/*
	 * A source slot is posted again only after its last message
	 * completed, and a receive buffer or Write area only after the
	 * server checked what was in it.
	 */
	while ((w.verified < OW_ROUNDS || done < OW_ROUNDS) && !w.bad_post &&
	       !w.bad_wc && idle_ms < 30000) {
		int progress = 0;

		while (w.posted < OW_ROUNDS && w.posted < done + OW_SLOTS &&
		       w.posted < w.verified + OW_SLOTS) {
			ow_post(&w, w.posted);
			progress = 1;
		}
		while (ibv_poll_cq(p.cli.cq, 1, &wc) == 1) {
			progress = 1;
			if (wc.status != IBV_WC_SUCCESS) {
				fprintf(stderr, "# client: %s\n",
					ibv_wc_status_str(wc.status));
				w.bad_wc++;
				break;
			}
			/* Completed: overwrite its buffer at once. */
			memset(p.cli.buf + (wc.wr_id % OW_SLOTS) * OW_LEN, 0x5a,
			       OW_LEN);
			done++;
		}
		while (ibv_poll_cq(p.srv.cq, 1, &wc) == 1) {
			progress = 1;
			if (wc.status != IBV_WC_SUCCESS) {
				fprintf(stderr, "# server: %s\n",
					ibv_wc_status_str(wc.status));
				w.bad_wc++;
				break;
			}
			ow_check(&w, w.verified, (int)wc.wr_id, &wc);
		}
		if (progress) {
			idle_ms = 0;
		} else {
			usleep(1000);
			idle_ms++;
		}
	}
	ktap_ok(done == OW_ROUNDS && w.verified == OW_ROUNDS && !w.bad_wc &&
		!w.bad_post,
		"overwrite: %d messages of %d KiB complete at both ends (%d sent, %d received)",
		OW_ROUNDS, OW_LEN / 1024, done, w.verified);
	ktap_ok(!w.bad_data && w.verified == OW_ROUNDS,
		"overwrite: each arrived as posted, with its buffer overwritten right after its completion (%d differ)",
		w.bad_data);
	if (verify_cmd) {
		int r = system(verify_cmd);

		ktap_ok(r == 0, "overwrite: %s", verify_cmd);
	}
out:
	free(w.expect);
	pair_destroy(&p);
}

/*
 * One RDMA Read of 4 KiB and nothing else on the connection: the traffic
 * Documentation/protocol.rst walks through (selftests/tests/81-walkthrough
 * captures it with the tracepoints on). CMD runs once the Read completed,
 * before the disconnect (to stop the trace there).
 */
#define WALK_LEN	4096
#define WALK_WR_ID	0x77

static void case_walk(void)
{
	struct pair_opts o = { .srv_access = DEFAULT_ACCESS,
			       .cli_access = DEFAULT_ACCESS };
	struct ibv_sge sg;
	struct ibv_wc wc;
	struct pair p;

	if (pair_connect(&p, &o)) {
		ktap_ok(0, "walk: connect");
		goto out;
	}
	fill(p.srv.buf, WALK_LEN, 9);
	sg = (struct ibv_sge){ (uintptr_t)p.cli.buf, WALK_LEN, p.cli.mr->lkey };
	if (send_wr(&p.cli, IBV_WR_RDMA_READ, &sg, 1, 0,
		    (uintptr_t)p.srv.buf, p.srv.mr->rkey, WALK_WR_ID)) {
		ktap_ok(0, "walk: ibv_post_send of the RDMA Read");
		goto out;
	}
	ktap_ok(poll_n(p.cli.cq, &wc, 1) == 1 && wc.status == IBV_WC_SUCCESS &&
		wc.opcode == IBV_WC_RDMA_READ && wc.wr_id == WALK_WR_ID &&
		!memcmp(p.cli.buf, p.srv.buf, WALK_LEN),
		"walk: one RDMA Read of %d bytes completes with the server's data",
		WALK_LEN);
	ktap_ok(poll_n_for(p.srv.cq, &wc, 1, 100) == 0,
		"walk: nothing completes at the responder");
	if (verify_cmd) {
		int r = system(verify_cmd);

		ktap_ok(r == 0, "walk: %s", verify_cmd);
	}
out:
	pair_destroy(&p);
}

/*
 * The same Read with a wrong STag, the server having posted 2 receives:
 * the first worked example of Documentation/debugging.rst. CMD runs once
 * both sides' completions are in.
 */
static void case_walk_error(void)
{
	struct pair_opts o = { .srv_access = DEFAULT_ACCESS,
			       .cli_access = DEFAULT_ACCESS, .recvs = 2 };
	struct ibv_wc wc[2];
	struct ibv_sge sg;
	struct pair p;

	if (pair_connect(&p, &o)) {
		ktap_ok(0, "walkerr: connect");
		goto out;
	}
	sg = (struct ibv_sge){ (uintptr_t)p.cli.buf, WALK_LEN, p.cli.mr->lkey };
	if (send_wr(&p.cli, IBV_WR_RDMA_READ, &sg, 1, 0, (uintptr_t)p.srv.buf,
		    p.srv.mr->rkey ^ 0x5a5a00, WALK_WR_ID)) {
		ktap_ok(0, "walkerr: ibv_post_send of the RDMA Read");
		goto out;
	}
	ktap_ok(poll_n(p.cli.cq, wc, 1) == 1 &&
		wc[0].status == IBV_WC_REM_ACCESS_ERR && wc[0].wr_id == WALK_WR_ID,
		"walkerr: the Read with a wrong STag completes REM_ACCESS_ERR");
	ktap_ok(poll_n(p.srv.cq, wc, 2) == 2 &&
		wc[0].status == IBV_WC_WR_FLUSH_ERR &&
		wc[1].status == IBV_WC_WR_FLUSH_ERR,
		"walkerr: the server's 2 receives complete flushed");
	if (verify_cmd) {
		int rc = system(verify_cmd);

		ktap_ok(rc == 0, "walkerr: %s", verify_cmd);
	}
out:
	pair_destroy(&p);
}

static const struct {
	const char *name;
	void (*run)(void);
} cases[] = {
	{ "send", case_send },
	{ "rdma", case_rdma },
	{ "readsgl", case_read_sgl },
	{ "srq", case_srq_solicited },
	{ "srqlimit", case_srq_limit },
	{ "access", case_access },
	{ "disconnect", case_disconnect },
	{ "reject", case_reject },
	{ "dualstack", case_dualstack },
	{ "srcport", case_srcport },
	{ "sendinv", case_sendinv },
	{ "pdata", case_pdata },
	{ "mpa", case_mpa },
	{ "cqoverflow", case_cq_overflow },
	{ "mrchurn", case_mr_churn },
	{ "overwrite", case_overwrite },
	{ "walk", case_walk },
	{ "walkerr", case_walk_error },
};

#define NCASES (int)(sizeof(cases) / sizeof(cases[0]))

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s -a SERVER_ADDR [-S SERVER_NETNS] [-C CLIENT_NETNS] [-x CMD] [-r|-R] [-p PORT] [-o IRD,ORD] [CASE...]\ncases:",
		prog);
	case_list(CASES(cases));
	fprintf(stderr, "\n");
}

int main(int argc, char **argv)
{
	const char *unknown;
	int opt, i;

	while ((opt = getopt(argc, argv, "a:S:C:x:rRp:o:h")) != -1) {
		switch (opt) {
		case 'a':
			server_addr = optarg;
			break;
		case 'S':
			server_ns = optarg;
			break;
		case 'C':
			client_ns = optarg;
			break;
		case 'x':
			verify_cmd = optarg;
			break;
		case 'r':
			expect_refused = 1;
			break;
		case 'R':
			expect_refused_late = 1;
			break;
		case 'p':
			srv_port = atoi(optarg);
			if (srv_port < 1 || srv_port > 65534) {
				usage(argv[0]);
				return 2;
			}
			break;
		case 'o':
			if (sscanf(optarg, "%d,%d", &srv_ird, &srv_ord) != 2 ||
			    srv_ird < 0 || srv_ird > 255 || srv_ord < 0 ||
			    srv_ord > 255) {
				usage(argv[0]);
				return 2;
			}
			break;
		default:
			usage(argv[0]);
			return 2;
		}
	}
	if (!server_addr) {
		usage(argv[0]);
		return 2;
	}
	unknown = case_unknown(CASES(cases), argv + optind, argc - optind);
	if (unknown) {
		fprintf(stderr, "unknown case '%s'\n", unknown);
		usage(argv[0]);
		return 2;
	}
	ns_remember_home();
	ktap_header();
	for (i = 0; i < NCASES; i++)
		if (case_wanted(cases[i].name, argv + optind, argc - optind))
			cases[i].run();
	return ktap_finished();
}
