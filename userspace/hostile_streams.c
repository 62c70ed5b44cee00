// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * siw_hostile's peers over a whole connection's life: garbage instead of
 * MPA, windows that stay shut, the responder's hold on its first FPDU,
 * siw as the initiator against a dripped reply, and a Read Response's
 * source deregistered while it waits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "hostile.h"

/*
 * Garbage where the MPA request belongs: siw closes the TCP connection
 * and the server application never hears of it.
 */
void run_garbage_request(void)
{
	static const char junk[] = "GET / HTTP/1.0\r\nHost: siw\r\n\r\n";
	struct sockaddr_storage ss;
	struct timeval tv = { .tv_sec = 15 };
	struct rdma_cm_event *ev;
	struct server s;
	unsigned char buf[64];
	socklen_t len;
	int fd = -1, ok, got;
	ssize_t r;

	if (server_listen(&s) || get_addr(&ss, &len) || enter_ns(client_ns)) {
		ktap_ok(0, "garbage-request: listen");
		goto out;
	}
	fd = socket(ss.ss_family, SOCK_STREAM, 0);
	enter_ns(NULL);
	if (fd < 0 || connect(fd, (struct sockaddr *)&ss, len) ||
	    write_full(fd, junk, sizeof(junk))) {
		ktap_ok(0, "garbage-request: connect and send");
		goto out;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	r = read(fd, buf, sizeof(buf));
	ktap_ok(r == 0 || (r < 0 && errno == ECONNRESET),
		"garbage-request: siw closes the connection without a reply (read %zd%s%s)",
		r, r < 0 ? ", " : "", r < 0 ? strerror(errno) : "");
	got = cm_event(s.ec, 500, &ev);
	if (got >= 0)
		rdma_ack_cm_event(ev);
	ok = got != RDMA_CM_EVENT_CONNECT_REQUEST;
	ktap_ok(ok, "garbage-request: the server application hears nothing");
out:
	if (fd >= 0)
		close(fd);
	server_destroy(&s);
}

/* Listen, and connect an attacker whose receive buffer is 4 KiB. */
static int connect_slow_reader(struct server *s, struct target *t)
{
	int err;

	small_rcvbuf = 4096;
	err = server_listen(s) || attacker_connect(s, t);
	small_rcvbuf = 0;
	return err;
}

/*
 * A peer that completes the MPA exchange, then never reads: its receive
 * window stays shut while it answers TCP's window probes. The server
 * posts RDMA Writes toward it; its device's mpa/user_timeout_ms (set low
 * by the test) must end the connection: every Write completes, the
 * server sees the connection end. Without a bound, nothing ever would.
 */
#define ZW_WRITES	8
#define ZW_WAIT_S	30
void run_zero_window(void)
{
	struct target t = { .sock = -1 };
	struct rdma_cm_event *ev;
	struct server s;
	struct ibv_wc wc[ZW_WRITES + NRECV];
	int i, got = 0, writes = 0, ended = 0, n, ms;
	struct timeval t0, t1;

	if (connect_slow_reader(&s, &t)) {
		ktap_ok(0, "zero-window: connect and MPA exchange");
		goto out;
	}
	for (i = 0; i < ZW_WRITES; i++) {
		struct ibv_sge sge = { (uintptr_t)s.buf + GUARD, REGION,
				       s.mr->lkey };
		struct ibv_send_wr wr = { .wr_id = 200 + i, .sg_list = &sge,
					  .num_sge = 1,
					  .opcode = IBV_WR_RDMA_WRITE,
					  .send_flags = IBV_SEND_SIGNALED },
				   *bad;

		wr.wr.rdma.remote_addr = 0x100000;
		wr.wr.rdma.rkey = 0x4242;
		if (ibv_post_send(s.id->qp, &wr, &bad))
			break;
	}
	ktap_ok(i == ZW_WRITES, "zero-window: the server posts %d RDMA Writes of %d KiB toward a peer that never reads",
		ZW_WRITES, REGION / 1024);
	gettimeofday(&t0, NULL);
	/* Everything completes, and the connection ends, in bounded time. */
	while (!ended || writes < i) {
		struct pollfd pfd = { .fd = s.ec->fd, .events = POLLIN };

		gettimeofday(&t1, NULL);
		if (t1.tv_sec - t0.tv_sec > ZW_WAIT_S)
			break;
		n = ibv_poll_cq(s.cq, ZW_WRITES + NRECV - got, wc + got);
		for (; n > 0; n--, got++)
			writes += wc[got].wr_id >= 200;
		if (!ended && poll(&pfd, 1, 100) == 1 &&
		    !rdma_get_cm_event(s.ec, &ev)) {
			ended = ev->event == RDMA_CM_EVENT_DISCONNECTED;
			rdma_ack_cm_event(ev);
		} else if (ended) {
			usleep(100000);
		}
	}
	gettimeofday(&t1, NULL);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_usec - t0.tv_usec) / 1000;
	ktap_ok(ended, "zero-window: the server sees the connection end (after %d ms; at most %d s)",
		ms, ZW_WAIT_S);
	ktap_ok(writes == i, "zero-window: all %d Writes complete (%d did)", i,
		writes);
out:
	if (t.sock >= 0)
		close(t.sock);
	server_destroy(&s);
}

/*
 * Many peers that each ask for Read Responses and then never read: the
 * server's sends to each wait for a window that stays shut. Transmit is
 * one work queue for every siw QP on the host, which runs at most 256
 * work items at once; a send that slept on its peer's window would hold
 * one, and past 256 such peers nothing of any other QP would go out until
 * mpa/user_timeout_ms ended them. One more peer, which reads, must get
 * its whole Read Response at once.
 */
#define MW_PEERS	300
#define MW_READS	4	/* the server's IRD: 256 KiB per peer */
#define MW_WAIT_MS	10000

/* @n Read Requests for the whole region, each answered with REGION bytes. */
static int send_reads(struct target *t, int n)
{
	unsigned char out[MW_READS * 64];
	size_t len = 0;
	int i;

	for (i = 0; i < n; i++) {
		struct siw_hdr h = { .opcode = SIW_RDMAP_READ_REQ,
				     .last = true, .msn = t->rreq_msn++ };

		h.rreq = (struct siw_rreq){ .sink_stag = 0x1234 + i,
					    .size = REGION,
					    .src_stag = t->rkey,
					    .src_to = t->addr };
		len += fpdu(t, &h, NULL, 0, out + len, 0);
	}
	return write_full(t->sock, out, len);
}

static long ms_since(const struct timeval *t0)
{
	struct timeval t1;

	gettimeofday(&t1, NULL);
	return (t1.tv_sec - t0->tv_sec) * 1000 +
	       (t1.tv_usec - t0->tv_usec) / 1000;
}

void run_many_shut_windows(void)
{
	static unsigned char buf[2 + 65535 + 7];
	struct server *s = calloc(MW_PEERS + 1, sizeof(*s));
	struct target *t = calloc(MW_PEERS + 1, sizeof(*t));
	struct target *reader = &t[MW_PEERS];
	size_t resp = 0, marked = 0;
	int i, up = 0, ok;
	struct timeval t0;
	long ms;

	if (!s || !t) {
		ktap_ok(0, "many-shut-windows: memory");
		goto out;
	}
	for (i = 0; i <= MW_PEERS; i++)
		t[i].sock = -1;
	if (server_listen(&s[0])) {
		ktap_ok(0, "many-shut-windows: listen");
		goto out;
	}
	gettimeofday(&t0, NULL);
	for (i = 0; i < MW_PEERS; i++) {
		if (i)
			s[i].ec = s[0].ec;
		small_rcvbuf = 4096;
		ok = !attacker_connect(&s[i], &t[i]) &&
		     !send_reads(&t[i], MW_READS);
		small_rcvbuf = 0;
		if (!ok)
			break;
		up++;
	}
	ktap_ok(up == MW_PEERS,
		"many-shut-windows: %d peers connected, each asked for %d Read Responses of %d KiB and reads none (%d did, in %ld ms)",
		MW_PEERS, MW_READS, REGION / 1024, up, ms_since(&t0));
	/* Their responses fill their windows and the server's buffers. */
	usleep(2000000);
	s[MW_PEERS].ec = s[0].ec;
	if (attacker_connect(&s[MW_PEERS], reader) || send_reads(reader, 1)) {
		ktap_ok(0, "many-shut-windows: one more peer connects and asks for a Read Response of %d KiB",
			REGION / 1024);
		goto out;
	}
	gettimeofday(&t0, NULL);
	while (resp < REGION && ms_since(&t0) < MW_WAIT_MS) {
		uint32_t ulpdu, plen, k;

		if (read_fpdu(reader->sock, buf, &ulpdu))
			break;
		if ((buf[3] & SIW_RDMAP_OPCODE_MASK) != SIW_RDMAP_READ_RESP ||
		    ulpdu < SIW_TAGGED_HDR_LEN)
			break;
		plen = ulpdu - SIW_TAGGED_HDR_LEN;
		resp += plen;
		for (k = 0; k < plen; k++)
			marked += buf[2 + SIW_TAGGED_HDR_LEN + k] == GUARD_BYTE;
	}
	ms = ms_since(&t0);
	ktap_ok(resp == REGION && marked == REGION,
		"many-shut-windows: the peer that reads gets its whole Read Response while %d others wait (%zu of %d bytes, %zu of them the region's, in %ld ms)",
		up, resp, REGION, marked, ms);
out:
	for (i = 0; t && i <= MW_PEERS; i++)
		if (t[i].sock >= 0)
			close(t[i].sock);
	for (i = MW_PEERS; s && i >= 0; i--) {
		if (i) {
			s[i].ec = NULL;
			s[i].listen_id = NULL;
		}
		server_destroy(&s[i]);
	}
	free(s);
	free(t);
}

/*
 * RFC 5044 section 7.1.2, rule 4: an MPA responder sends no FPDU before it
 * has received and checked one from the initiator; an initiator may refuse
 * bytes that follow the MPA reply at once (upstream siw's does). Without
 * p2p siw holds its first FPDU for mpa/first_fpdu_wait_ms at most. The
 * server posts an RDMA Write as soon as it is connected. With first, the
 * attacker sends its first FPDU after quiet_ms and the Write must follow
 * within 5 s, long before the hold of hold_ms ends; without, the Write
 * must come when the hold ends. Nothing may come in the first quiet_ms,
 * which start later than the hold (after the reply and the post).
 */
#define SS_LEN		64
#define SS_WR_ID	300
static void speaks_second(int hold_ms, int quiet_ms, int first)
{
	static unsigned char frame[2 + 65535 + 7];
	const char *what = first ? "speaks-second" : "speaks-second-late";
	struct target t = { .sock = -1 };
	struct pollfd pfd;
	struct timeval t0;
	struct server s;
	struct ibv_wc wc;
	struct siw_hdr h;
	uint32_t ulpdu;
	int old = -1, n, i, done = 0;

	if (server_listen(&s) || set_first_fpdu_wait(&s, hold_ms, &old) ||
	    attacker_mpa(&s, &t)) {
		ktap_ok(0, "%s: connect and MPA exchange", what);
		goto out;
	}
	struct ibv_sge sge = { (uintptr_t)s.buf + GUARD, SS_LEN, s.mr->lkey };
	struct ibv_send_wr wr = { .wr_id = SS_WR_ID, .sg_list = &sge,
				  .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;

	/* The attacker never checks the target. */
	wr.wr.rdma.remote_addr = 0x100000;
	wr.wr.rdma.rkey = 0x4242;
	if (ibv_post_send(s.id->qp, &wr, &bad)) {
		ktap_ok(0, "%s: the server posts an RDMA Write at once", what);
		goto out;
	}
	gettimeofday(&t0, NULL);
	pfd = (struct pollfd){ .fd = t.sock, .events = POLLIN };
	n = poll(&pfd, 1, quiet_ms);
	ktap_ok(n == 0, "%s: nothing from the server for %d ms after its MPA reply while the initiator has sent no FPDU (hold %d ms; poll: %d)",
		what, quiet_ms, hold_ms, n);
	if (first && open_stream(&t)) {
		ktap_ok(0, "%s: the attacker sends its first FPDU", what);
		goto out;
	}
	if (!first)
		printf("# expect-first-fpdu-wait-expired\n");
	pfd.revents = 0;
	n = poll(&pfd, 1, first ? 5000 : hold_ms + 10000) == 1 &&
	    !read_fpdu(t.sock, frame, &ulpdu) &&
	    siw_ddp_check(frame + 2, ulpdu, ulpdu, 0, &h) == SIW_TERM_OK &&
	    h.opcode == SIW_RDMAP_WRITE && h.payload_len == SS_LEN;
	ktap_ok(n, "%s: the server's RDMA Write of %d bytes arrives %s (%ld ms after it was posted)",
		what, SS_LEN, first ? "once the initiator's first FPDU is in" :
		"when the hold ends", ms_since(&t0));
	for (i = 0; i < 50 && !done; i++) {
		if (ibv_poll_cq(s.cq, 1, &wc) == 1)
			done = wc.wr_id == SS_WR_ID &&
			       wc.status == IBV_WC_SUCCESS;
		else
			usleep(100000);
	}
	ktap_ok(done, "%s: the Write completes successfully at the server", what);
out:
	if (old >= 0 && set_first_fpdu_wait(&s, old, NULL))
		ktap_ok(0, "%s: mpa/first_fpdu_wait_ms set back to %d", what, old);
	if (t.sock >= 0)
		close(t.sock);
	server_destroy(&s);
}

void run_speaks_second(void)
{
	speaks_second(20000, 1000, 1);
	speaks_second(4000, 700, 0);
}

/*
 * siw as the initiator, against a passive peer that drips its MPA reply a
 * byte per TCP segment (the class of CVE-2022-50136, where a reply read in
 * pieces was reported as a second connect reply). The connection must come
 * up once: one ESTABLISHED with the reply's private data, no other CM
 * event, and it must carry a Send.
 */
#define SR_PORT		7481
#define SR_DRIP_US	20000

/* The siw side's connect: resolved, QP made, rdma_connect() called. */
static int split_reply_connect(struct server *c, struct sockaddr *dst)
{
	struct rdma_conn_param cp = { .responder_resources = 4,
				      .initiator_depth = 4 };
	static const char req_pd[] = "siw-split-reply";

	memset(c, 0, sizeof(*c));
	if (enter_ns(server_ns))
		return -1;
	c->ec = rdma_create_event_channel();
	if (cm_dial(stderr, c->ec, &c->id, dst))
		goto fail;
	c->pd = ibv_alloc_pd(c->id->verbs);
	c->cq = ibv_create_cq(c->id->verbs, 16, NULL, NULL, 0);
	c->buf = aligned_alloc(4096, GUARD + region + GUARD);
	if (!c->pd || !c->cq || !c->buf)
		goto fail;
	memset(c->buf, DATA_BYTE, GUARD + region + GUARD);
	c->mr = ibv_reg_mr(c->pd, c->buf + GUARD, region,
			   IBV_ACCESS_LOCAL_WRITE);
	if (!c->mr || cm_qp(c->id, c->pd, c->cq, 4))
		goto fail;
	cp.private_data = req_pd;
	cp.private_data_len = sizeof(req_pd);
	if (rdma_connect(c->id, &cp))
		goto fail;
	return enter_ns(NULL);
fail:
	fprintf(stderr, "# split-reply: connect: %s\n", strerror(errno));
	enter_ns(NULL);
	return -1;
}

/* The attacker's side: the MPA request in, the reply out a byte at a time. */
static int split_reply_answer(int fd, int *crc, size_t *reply_len)
{
	struct siw_mpa_params local = { .revision = SIW_MPA_REV_2,
					.ird = 4, .ord = 4, .max_ird = 4 };
	static const unsigned char rep_pd[] = "attacker-reply";
	unsigned char frame[SIW_MPA_RR_MAX];
	struct siw_mpa_info req, rep;
	struct siw_mpa_result res;
	size_t n, i;

	local.crc = use_crc ? SIW_MPA_CRC_REQUIRED : SIW_MPA_CRC_OFF;
	if (read_full(fd, frame, SIW_MPA_RR_HDR_LEN) ||
	    siw_mpa_parse_hdr(frame, SIW_MPA_RR_HDR_LEN, SIW_MPA_REQUEST, 0,
			      &req) != SIW_MPA_OK ||
	    read_full(fd, frame + SIW_MPA_RR_HDR_LEN,
		     req.frame_len - SIW_MPA_RR_HDR_LEN) ||
	    siw_mpa_parse(frame, req.frame_len, SIW_MPA_REQUEST, 0, &req) !=
	    SIW_MPA_OK)
		return -1;
	siw_mpa_respond(&local, &req, &res);
	if (res.verdict != SIW_MPA_ACCEPT)
		return -1;
	siw_mpa_reply_init(&res, &rep);
	rep.ulp_pd = rep_pd;
	rep.ulp_pd_len = sizeof(rep_pd);
	if (siw_mpa_build(&rep, frame, sizeof(frame), &n) != SIW_MPA_OK)
		return -1;
	*crc = res.crc;
	*reply_len = n;
	for (i = 0; i < n; i++) {
		if (write_full(fd, frame + i, 1))
			return -1;
		usleep(SR_DRIP_US);
	}
	return 0;
}

void run_split_reply(void)
{
	static unsigned char buf[2 + 65535 + 7];
	struct sockaddr_storage ss;
	socklen_t sslen;
	struct timeval tv = { .tv_sec = 5 };
	struct pollfd pfd = { .events = POLLIN };
	struct rdma_cm_event *ev = NULL;
	int lfd = -1, fd = -1, one = 1, crc = 0, ok, got_send = 0;
	struct ibv_send_wr wr = { .wr_id = 7, .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED }, *bad;
	struct ibv_sge sge;
	struct ibv_wc wc;
	struct server c;
	size_t reply_len = 0;
	uint32_t ulpdu;
	int i;

	memset(&c, 0, sizeof(c));
	if (addr_of(attacker_addr, SR_PORT, &ss, &sslen) ||
	    enter_ns(client_ns)) {
		ktap_ok(0, "split-reply: the attacker's address");
		goto out;
	}
	lfd = socket(ss.ss_family, SOCK_STREAM, 0);
	enter_ns(NULL);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&ss, sslen) ||
	    listen(lfd, 1)) {
		ktap_ok(0, "split-reply: the attacker listens on %s port %d",
			attacker_addr, SR_PORT);
		goto out;
	}
	if (split_reply_connect(&c, (struct sockaddr *)&ss)) {
		ktap_ok(0, "split-reply: siw connects to the attacker");
		goto out;
	}
	pfd.fd = lfd;
	if (poll(&pfd, 1, 5000) != 1 || (fd = accept(lfd, NULL, NULL)) < 0) {
		ktap_ok(0, "split-reply: siw's TCP connection arrives");
		goto out;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	set_nodelay(fd);
	ok = !split_reply_answer(fd, &crc, &reply_len);
	ktap_ok(ok, "split-reply: siw's MPA request read, the reply (%zu bytes) sent one byte per segment",
		reply_len);
	if (!ok)
		goto out;
	ok = !cm_expect(stderr, c.ec, RDMA_CM_EVENT_ESTABLISHED, 5000, &ev);
	ktap_ok(ok && ev->param.conn.private_data_len >= 15 &&
		!memcmp(ev->param.conn.private_data, "attacker-reply", 15),
		"split-reply: siw's side is ESTABLISHED, with the reply's private data");
	if (ok)
		rdma_ack_cm_event(ev);
	pfd.fd = c.ec->fd;
	ok = poll(&pfd, 1, 1000) == 0;
	if (!ok && !rdma_get_cm_event(c.ec, &ev)) {
		fprintf(stderr, "# split-reply: then %s\n",
			rdma_event_str(ev->event));
		rdma_ack_cm_event(ev);
	}
	ktap_ok(ok, "split-reply: no other connection event follows");
	sge = (struct ibv_sge){ (uintptr_t)c.buf + GUARD, DATA_LEN,
				c.mr->lkey };
	wr.sg_list = &sge;
	if (ibv_post_send(c.id->qp, &wr, &bad) == 0 &&
	    read_fpdu(fd, buf, &ulpdu) == 0 &&
	    (buf[3] & SIW_RDMAP_OPCODE_MASK) == SIW_RDMAP_SEND &&
	    ulpdu == SIW_UNTAGGED_HDR_LEN + DATA_LEN) {
		got_send = 1;
		for (i = 0; i < DATA_LEN; i++)
			if (buf[2 + SIW_UNTAGGED_HDR_LEN + i] != DATA_BYTE)
				got_send = 0;
	}
	ktap_ok(got_send, "split-reply: a Send of %d bytes comes over the connection%s",
		DATA_LEN, crc ? " (CRC on)" : "");
	for (i = 0, ok = 0; i < 500 && !ok; i++) {
		ok = ibv_poll_cq(c.cq, 1, &wc);
		if (!ok)
			usleep(10000);
	}
	ktap_ok(ok == 1 && wc.wr_id == 7 && wc.status == IBV_WC_SUCCESS,
		"split-reply: the Send completes successfully");
	close(fd);
	fd = -1;
	ok = !cm_expect(stderr, c.ec, RDMA_CM_EVENT_DISCONNECTED, 5000, &ev);
	if (ok)
		rdma_ack_cm_event(ev);
	ktap_ok(ok, "split-reply: the attacker's close is siw's DISCONNECTED");
out:
	if (fd >= 0)
		close(fd);
	if (lfd >= 0)
		close(lfd);
	server_destroy(&c);
}

/*
 * A peer that asks for its Read Responses and reads them slowly: while
 * siw's send of the responses waits for the peer's window, the server
 * deregisters the source region and writes new bytes into the memory.
 * Those bytes must never leave (siw reads a response's source only while
 * its STag is valid: tx_bounce.c); the first response stops short, and
 * a Terminate says the STag is invalid. A Read of the whole region (1 MiB
 * here) is far more than the server's socket buffer and the peer's window
 * hold, so the send is still waiting, mid-response, when the region goes.
 */
#define RD_READS	2
#define RD_REGION	(1024 * 1024)
#define RD_NEW_BYTE	0xee

void run_read_source_deregistered(void)
{
	unsigned char out[RD_READS * 64];
	struct target t = { .sock = -1 };
	enum siw_term_code code;
	size_t n = 0, resp, fresh, i;
	struct server s;
	int flushed;

	region = RD_REGION;
	if (connect_slow_reader(&s, &t)) {
		ktap_ok(0, "read-source-deregistered: connect and MPA exchange");
		goto out;
	}
	for (i = 0; i < RD_READS; i++) {
		struct siw_hdr h = { .opcode = SIW_RDMAP_READ_REQ,
				     .last = true, .msn = t.rreq_msn++ };

		h.rreq = (struct siw_rreq){ .sink_stag = 0x1234 + i,
					    .size = RD_REGION,
					    .src_stag = t.rkey,
					    .src_to = t.addr };
		n += fpdu(&t, &h, NULL, 0, out + n, 0);
	}
	if (write_full(t.sock, out, n)) {
		ktap_ok(0, "read-source-deregistered: %d Read Requests sent", RD_READS);
		goto out;
	}
	/* The responses fill the window and the server's socket buffer. */
	usleep(500000);
	ktap_ok(!ibv_dereg_mr(s.mr),
		"read-source-deregistered: the server deregisters its region while %d Read Responses of %d KiB wait for the peer's window",
		RD_READS, RD_REGION / 1024);
	s.mr = NULL;
	memset(s.buf + GUARD, RD_NEW_BYTE, RD_REGION);
	/* Now read all of it, until the connection ends. */
	code = read_responses(&t, RD_NEW_BYTE, &resp, &fresh);
	ktap_ok(fresh == 0,
		"read-source-deregistered: no byte written after ibv_dereg_mr() returned left in a Read Response (%zu of %zu bytes did)",
		fresh, resp);
	ktap_ok(resp < RD_REGION,
		"read-source-deregistered: the first response stopped short (%zu of %d bytes sent)",
		resp, RD_REGION);
	ktap_ok(code == SIW_TERM_RDMAP_INVALID_STAG,
		"read-source-deregistered: Terminate RDMAP %u/%u/0x%02x, invalid STag (got %s)",
		siw_term_layer(SIW_TERM_RDMAP_INVALID_STAG),
		siw_term_etype(SIW_TERM_RDMAP_INVALID_STAG),
		siw_term_ecode(SIW_TERM_RDMAP_INVALID_STAG),
		code == SIW_TERM_OK ? "none" : siw_term_name(code));
	ktap_ok(server_saw_error(&s, &flushed, NULL),
		"read-source-deregistered: the server's QP reports the error");
	ktap_ok(guards_intact(&s), "read-source-deregistered: guard bytes intact");
out:
	if (t.sock >= 0)
		close(t.sock);
	server_destroy(&s);
}
