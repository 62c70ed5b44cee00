// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * siw_hostile's siw end: the server application on the stock provider,
 * its guarded memory and posted receives, and what it sees of an attack.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hostile.h"

/* The server's address: the siw listener's, or -k's kernel victim's. */
int get_addr(struct sockaddr_storage *ss, socklen_t *len)
{
	return addr_of(server_addr, victim_port ? victim_port : PORT, ss, len);
}

int server_listen(struct server *s)
{
	struct sockaddr_storage ss;
	socklen_t len;

	memset(s, 0, sizeof(*s));
	if (get_addr(&ss, &len) || enter_ns(server_ns))
		return -1;
	s->ec = rdma_create_event_channel();
	if (cm_listen(s->ec, &s->listen_id, (struct sockaddr *)&ss, 2)) {
		fprintf(stderr, "# listen: %s\n", strerror(errno));
		enter_ns(NULL);
		return -1;
	}
	return enter_ns(NULL);
}

/* The request arrived: QP, guarded memory, receives, accept. */
int server_accept(struct server *s)
{
	struct rdma_conn_param cp = { .responder_resources = 4,
				      .initiator_depth = 4 };
	struct rdma_cm_event *ev;
	unsigned char pd[20];
	struct ibv_mr *stale;
	uint64_t a;
	int i;

	if (cm_expect(stderr, s->ec, RDMA_CM_EVENT_CONNECT_REQUEST, 5000, &ev))
		return -1;
	s->id = ev->id;
	rdma_ack_cm_event(ev);
	s->pd = ibv_alloc_pd(s->id->verbs);
	s->cq = ibv_create_cq(s->id->verbs, 64, NULL, NULL, 0);
	s->buf = aligned_alloc(4096, GUARD + region + GUARD);
	s->rbuf = aligned_alloc(4096, GUARD + NRECV * RECV_LEN + GUARD);
	if (!s->pd || !s->cq || !s->buf || !s->rbuf)
		return -1;
	memset(s->buf, GUARD_BYTE, GUARD + region + GUARD);
	memset(s->rbuf, GUARD_BYTE, GUARD + NRECV * RECV_LEN + GUARD);
	s->mr = ibv_reg_mr(s->pd, s->buf + GUARD, region,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ);
	s->rmr = ibv_reg_mr(s->pd, s->rbuf + GUARD, NRECV * RECV_LEN,
			    IBV_ACCESS_LOCAL_WRITE);
	if (!s->mr || !s->rmr || cm_qp(s->id, s->pd, s->cq, 8))
		return -1;
	for (i = 0; i < NRECV; i++) {
		struct ibv_sge sge = { (uintptr_t)s->rbuf + GUARD + i * RECV_LEN,
				       RECV_LEN, s->rmr->lkey };
		struct ibv_recv_wr wr = { .wr_id = 100 + i, .sg_list = &sge,
					  .num_sge = 1 }, *bad;

		if (ibv_post_recv(s->id->qp, &wr, &bad))
			return -1;
	}
	a = (uintptr_t)s->buf + GUARD;
	siw_put_be32(pd, s->mr->rkey);
	siw_put_be32(pd + 4, a >> 32);
	siw_put_be32(pd + 8, (uint32_t)a);
	siw_put_be32(pd + 12, region);
	/* An STag that existed: registered, announced, deregistered. */
	stale = ibv_reg_mr(s->pd, s->buf + GUARD, 4096,
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!stale)
		return -1;
	siw_put_be32(pd + 16, stale->rkey);
	if (ibv_dereg_mr(stale))
		return -1;
	cp.private_data = pd;
	cp.private_data_len = sizeof(pd);
	if (rdma_accept(s->id, &cp))
		return -1;
	return cm_expect(stderr, s->ec, RDMA_CM_EVENT_ESTABLISHED, 5000, NULL);
}

void server_destroy(struct server *s)
{
	if (s->id && s->id->qp)
		rdma_destroy_qp(s->id);
	if (s->mr)
		ibv_dereg_mr(s->mr);
	if (s->rmr)
		ibv_dereg_mr(s->rmr);
	if (s->cq)
		ibv_destroy_cq(s->cq);
	if (s->pd)
		ibv_dealloc_pd(s->pd);
	if (s->id)
		rdma_destroy_id(s->id);
	if (s->listen_id)
		rdma_destroy_id(s->listen_id);
	if (s->ec)
		rdma_destroy_event_channel(s->ec);
	free(s->buf);
	free(s->rbuf);
	memset(s, 0, sizeof(*s));
}

int guards_intact(const struct server *s)
{
	size_t i;

	for (i = 0; i < GUARD; i++)
		if (s->buf[i] != GUARD_BYTE ||
		    s->buf[GUARD + region + i] != GUARD_BYTE ||
		    s->rbuf[i] != GUARD_BYTE ||
		    s->rbuf[GUARD + NRECV * RECV_LEN + i] != GUARD_BYTE)
			return 0;
	return 1;
}

/* The server's QP: an async event, and no receive left posted. */
int server_saw_error(struct server *s, int *flushed,
			    struct ibv_wc *read_wc)
{
	struct ibv_context *ctx = s->id->verbs;
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event aev;
	int tries, event = 0;

	fcntl(pfd.fd, F_SETFL, fcntl(pfd.fd, F_GETFL) | O_NONBLOCK);
	for (tries = 0; tries < 50 && !event; tries++) {
		if (poll(&pfd, 1, 100) != 1)
			continue;
		while (!ibv_get_async_event(ctx, &aev)) {
			if (aev.element.qp == s->id->qp &&
			    (aev.event_type == IBV_EVENT_QP_FATAL ||
			     aev.event_type == IBV_EVENT_QP_ACCESS_ERR))
				event = 1;
			ibv_ack_async_event(&aev);
		}
	}
	server_saw_flush(s, flushed, read_wc, 0);
	return event;
}

/*
 * All posted receives complete, none successfully but ok_recvs (each of
 * DATA_LEN bytes of DATA_BYTE); with read_wc, the server's Read
 * completes too (its completion copied there; wr_id 0 if it never came).
 */
void server_saw_flush(struct server *s, int *flushed,
			     struct ibv_wc *read_wc, int ok_recvs)
{
	struct ibv_wc wc[NRECV + 1];
	int want = NRECV + (read_wc ? 1 : 0), got = 0, recvs = 0, n, tries;

	if (read_wc)
		memset(read_wc, 0, sizeof(*read_wc));
	for (tries = 0; tries < 500 && got < want; tries++) {
		n = ibv_poll_cq(s->cq, want - got, wc + got);
		if (n < 0)
			break;
		got += n;
		if (got < want)
			usleep(10000);
	}
	*flushed = 1;
	for (n = 0; n < got; n++) {
		if (read_wc && wc[n].wr_id == READ_WR_ID) {
			*read_wc = wc[n];
			continue;
		}
		recvs++;
		if (wc[n].status == IBV_WC_SUCCESS) {
			const unsigned char *b = s->rbuf + GUARD +
				(wc[n].wr_id - 100) * RECV_LEN;
			unsigned int i;

			if (!ok_recvs-- || wc[n].byte_len != DATA_LEN)
				*flushed = 0;
			for (i = 0; i < DATA_LEN; i++)
				if (b[i] != DATA_BYTE)
					*flushed = 0;
		}
	}
	if (recvs != NRECV || ok_recvs > 0)
		*flushed = 0;
}

/* The server's move while a frame is half sent. */
int server_mid(struct server *s, int mid)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };

	switch (mid) {
	case MID_DEREG:
		if (ibv_dereg_mr(s->mr))
			return -1;
		s->mr = NULL;
		return 0;
	case MID_FLUSH:
		return ibv_modify_qp(s->id->qp, &attr, IBV_QP_STATE);
	}
	return 0;
}

/* The server posts its Read; the attacker reads the Read Request. */
int server_read(struct server *s, struct target *t)
{
	struct ibv_sge sge = { (uintptr_t)s->buf + GUARD + READ_AT, READ_LEN,
			       s->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = READ_WR_ID, .sg_list = &sge,
				  .num_sge = 1, .opcode = IBV_WR_RDMA_READ,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	unsigned char buf[2 + 64 + 7];
	int i;

	wr.wr.rdma.remote_addr = 0x100000;
	wr.wr.rdma.rkey = 0x4242;
	if (ibv_post_send(s->id->qp, &wr, &bad))
		return -1;
	for (i = 0; i < 4; i++) {
		struct siw_hdr h;
		uint32_t ulpdu, rest;

		if (read_full(t->sock, buf, 2))
			return -1;
		ulpdu = siw_get_be16(buf);
		rest = ulpdu + siw_mpa_pad(ulpdu) + SIW_MPA_CRC_LEN;
		if (rest > sizeof(buf) - 2 || read_full(t->sock, buf + 2, rest))
			return -1;
		if (siw_ddp_check(buf + 2, ulpdu, ulpdu, 0, &h) !=
		    SIW_TERM_OK)
			return -1;
		if (h.opcode == SIW_RDMAP_READ_REQ) {
			if (h.rreq.size != READ_LEN)
				return -1;
			t->rreq = h.rreq;
			return 0;
		}
	}
	return -1;
}

/*
 * The server's device's mpa/first_fpdu_wait_ms: the old value into *old
 * (unless NULL), then ms. The listener is bound to the device already.
 */
int set_first_fpdu_wait(const struct server *s, int ms, int *old)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/class/infiniband/%s/mpa/first_fpdu_wait_ms",
		 ibv_get_device_name(s->listen_id->verbs->device));
	if (old) {
		f = fopen(path, "r");
		if (!f || fscanf(f, "%d", old) != 1) {
			fprintf(stderr, "# cannot read %s\n", path);
			if (f)
				fclose(f);
			return -1;
		}
		fclose(f);
	}
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "%d\n", ms);
	return fclose(f);
}
