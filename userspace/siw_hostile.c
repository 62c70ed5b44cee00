// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * siw_hostile: a hostile iWARP peer. One process plays both ends: a siw
 * server through rdma_cm and the stock provider (in SERVER_NETNS), and an
 * attacker on a plain TCP socket (in CLIENT_NETNS) that completes the MPA
 * exchange with the server and then sends crafted frames. Frames are
 * built, and the server's answer decoded, with siw's own protocol core
 * (siw/proto.h), compiled into this program.
 *
 *   siw_hostile -a ADDR [-S SERVER_NETNS] [-C CLIENT_NETNS] [-c] [-1]
 *               [-p RTR [-n]] [-e] [-w | -r] [CASE...]
 *   siw_hostile -a ADDR -k PORT [-C CLIENT_NETNS] [-c] [CASE...]
 *
 * -c asks for MPA CRC, -1 speaks MPA revision 1, -p asks for peer-to-peer
 * mode with one RTR type (the server's device must allow it) and sends
 * the RTR before each case's frames; with -n it sends instead a first
 * frame that is not the RTR (the cases for that mode). For each case the server has registered a 64 KiB
 * region between two guard pages of the same buffer, and posted receives
 * of 1 KiB; its rkey and address travel in the MPA reply's private data.
 * Checked per case, one TAP line each: the server sends a Terminate with
 * the layer/type/code RFC 5040/5041/5044 assign; the server's QP reports
 * the async event; its posted receives complete in error or flushed; no
 * guard byte changed; the server sees the connection end.
 *
 * Without -p, the attacker's first FPDU is a zero-length RDMA Write:
 * siw as responder holds its own first FPDU until the initiator's has
 * arrived (RFC 5044 section 7.1.2, rule 4), mpa/first_fpdu_wait_ms at
 * most, which "speaks-second" checks both ways (not with -c or -e).
 *
 * The read-response cases answer an RDMA Read the server posts (its
 * Read Request is read off the connection first) with a response shorter
 * than asked, or empty: the Read must fail with a local length error and
 * the bytes placed, and no byte after them may change.
 *
 * -e asks for RFC 7306 in the MPA request too: the server's QP is a user
 * QP, for which siw never negotiates it, so the reply must say no and
 * the same cases hold. -k runs the RFC 7306 cases instead, against a
 * kernel QP of selftests/kverbs/siw_kverbs.ko loaded with victim=1 at
 * ADDR:PORT (a kernel QP negotiates it): valid atomics and immediates,
 * and malformed ones, each on a connection of its own. The victim
 * announces its memory in a Send; what it saw is in its kernel log
 * ("# victim N: ..."), and this prints, per case, what it must show
 * ("# expect-victim N ...").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>
#include <netinet/in.h>
#include <rdma/rdma_cma.h>
#include <infiniband/verbs.h>

#include "proto.h"
#include "cm.h"
#include "ktap.h"
#include "net.h"
#include "util.h"
#include "verbs.h"

#define PORT		7480
#define GUARD		4096
#define REGION		65536
#define RECV_LEN	1024
#define NRECV		4
#define GUARD_BYTE	0x5a

static const char *server_ns, *client_ns, *server_addr;
static int use_crc;
/* MPA mode of the attacker: revision, p2p RTR types offered, RTR sent. */
static int mpa_rev = 2, p2p_rtr, skip_rtr;
/* RFC 7306: asked for (-e); the kernel victim's port (-k). */
static int ask_ext, victim_port;
/* The attacker's receive buffer, when it means to keep its window shut. */
static int small_rcvbuf, zero_window, many_windows;
/* -r: only the Read Response whose source is deregistered meanwhile. */
static int read_dereg;
/* The server's region: REGION bytes, but for -r (RD_REGION). */
static size_t region = REGION;

/* The siw end. */
struct server {
	struct rdma_event_channel *ec;
	struct rdma_cm_id *listen_id, *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr, *rmr;
	unsigned char *buf;	/* guard | region | guard */
	unsigned char *rbuf;	/* guard | receives | guard */
};

/* What the attacker learnt from the MPA reply. */
struct target {
	uint32_t rkey;
	uint32_t stale_rkey;	/* of a region deregistered since */
	uint64_t addr;
	int sock;
	int crc;
	u8 rtr;			/* p2p: the RTR type the server chose */
	u32 send_msn;		/* the next MSN on queue 0 and queue 1 */
	u32 rreq_msn;
	/* Read Response cases: the server's Read Request. */
	struct siw_rreq rreq;
	/* -k: the kernel victim's announcement (victim.c). */
	uint32_t grkey;		/* global rkey: no remote atomic access */
	uint64_t gaddr;		/* the target page under it */
	uint32_t len;		/* of the MR at addr */
	uint32_t off;		/* of the 8-byte target in both */
	uint64_t start;		/* the target's first value */
	uint32_t brkey;		/* the big MR: remote read only */
	uint64_t baddr;
	uint32_t blen;
};

/* The server's address: the siw listener's, or -k's kernel victim's. */
static int get_addr(struct sockaddr_storage *ss, socklen_t *len)
{
	return addr_of(server_addr, victim_port ? victim_port : PORT, ss, len);
}

static int server_listen(struct server *s)
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
static int server_accept(struct server *s)
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

static void server_destroy(struct server *s)
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

static int guards_intact(const struct server *s)
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

/* The attacker's TCP connection, from the client namespace. */
static int attacker_socket(struct target *t)
{
	struct sockaddr_storage ss;
	struct timeval tv = { .tv_sec = 5 };
	socklen_t len;

	if (get_addr(&ss, &len) || enter_ns(client_ns))
		return -1;
	t->sock = socket(ss.ss_family, SOCK_STREAM, 0);
	enter_ns(NULL);
	if (t->sock < 0)
		return -1;
	setsockopt(t->sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	set_nodelay(t->sock);
	if (small_rcvbuf)
		setsockopt(t->sock, SOL_SOCKET, SO_RCVBUF, &small_rcvbuf,
			   sizeof(small_rcvbuf));
	return connect(t->sock, (struct sockaddr *)&ss, len);
}

/* TCP connect from the client namespace, MPA request and reply. */
static int attacker_mpa(struct server *s, struct target *t)
{
	struct siw_mpa_params local = { .revision = SIW_MPA_REV_2,
					.ird = 4, .ord = 4, .max_ird = 4 };
	struct siw_mpa_info req, rep;
	unsigned char frame[SIW_MPA_RR_MAX];
	struct siw_mpa_result res;
	size_t n;

	local.crc = use_crc ? SIW_MPA_CRC_REQUIRED : SIW_MPA_CRC_OFF;
	local.revision = mpa_rev == 1 ? SIW_MPA_REV_1 : SIW_MPA_REV_2;
	local.p2p = p2p_rtr != 0;
	local.rtr_types = p2p_rtr;
	local.ext = ask_ext;
	if (attacker_socket(t))
		return -1;
	siw_mpa_request_init(&local, &req);
	if (siw_mpa_build(&req, frame, sizeof(frame), &n) != SIW_MPA_OK ||
	    write_full(t->sock, frame, n))
		return -1;
	if (server_accept(s))
		return -1;
	if (read_full(t->sock, frame, SIW_MPA_RR_HDR_LEN) ||
	    siw_mpa_parse_hdr(frame, SIW_MPA_RR_HDR_LEN, SIW_MPA_REPLY, 0,
			      &rep) != SIW_MPA_OK ||
	    read_full(t->sock, frame + SIW_MPA_RR_HDR_LEN,
		     rep.frame_len - SIW_MPA_RR_HDR_LEN) ||
	    siw_mpa_parse(frame, rep.frame_len, SIW_MPA_REPLY, 0, &rep) !=
	    SIW_MPA_OK || rep.reject || rep.ulp_pd_len < 20)
		return -1;
	siw_mpa_check_reply(&local, &rep, &res);
	if (res.verdict != SIW_MPA_ACCEPT)
		return -1;
	/* siw never negotiates RFC 7306 for a user QP. */
	if (res.ext) {
		fprintf(stderr, "# the user QP's reply granted RFC 7306\n");
		return -1;
	}
	t->crc = rep.crc;
	t->rtr = res.p2p ? res.rtr : 0;
	t->send_msn = SIW_MSN_FIRST;
	t->rreq_msn = SIW_MSN_FIRST;
	t->rkey = siw_get_be32(rep.ulp_pd);
	t->stale_rkey = siw_get_be32(rep.ulp_pd + 16);
	t->addr = (uint64_t)siw_get_be32(rep.ulp_pd + 4) << 32 |
		  siw_get_be32(rep.ulp_pd + 8);
	return 0;
}

/* One FPDU around a header and payload; corrupt_crc flips a CRC bit. */
static size_t fpdu(const struct target *t, const struct siw_hdr *h,
		   const unsigned char *payload, uint32_t plen,
		   unsigned char *out, int corrupt_crc);

/*
 * The initiator's first FPDU without p2p: a zero-length RDMA Write, which
 * touches no memory (siw checks no STag for it, as an RTR needs). siw
 * as responder holds its own first FPDU until then (RFC 5044 section
 * 7.1.2, rule 4), for mpa/first_fpdu_wait_ms at most.
 */
static int open_stream(const struct target *t)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_WRITE, .last = true };
	unsigned char out[SIW_FPDU_HDR_MAX + 8];

	return write_full(t->sock, out, fpdu(t, &h, NULL, 0, out, 0));
}

/*
 * attacker_mpa(), then the first FPDU as a well-behaved initiator sends
 * it, so that the server's answers need not wait for the hold to end; in
 * p2p mode each case sends the RTR (or, -n, another first frame) itself.
 */
static int attacker_connect(struct server *s, struct target *t)
{
	if (attacker_mpa(s, t))
		return -1;
	return p2p_rtr ? 0 : open_stream(t);
}

static size_t fpdu(const struct target *t, const struct siw_hdr *h,
		   const unsigned char *payload, uint32_t plen,
		   unsigned char *out, int corrupt_crc)
{
	unsigned char hdr[SIW_FPDU_HDR_MAX];
	struct siw_frag frag = { payload, plen };
	uint32_t hl, ulpdu, pad, crc = 0;
	size_t n;

	hl = siw_hdr_encode(h, hdr + SIW_MPA_LEN_LEN, SIW_HDR_MAX);
	ulpdu = hl + plen;
	siw_fpdu_put_len(hdr, ulpdu);
	pad = siw_mpa_pad(ulpdu);
	if (t->crc)
		crc = siw_fpdu_crc(hdr, SIW_MPA_LEN_LEN + hl, &frag,
				   plen ? 1 : 0, pad);
	if (corrupt_crc)
		crc ^= 0x10;
	memcpy(out, hdr, SIW_MPA_LEN_LEN + hl);
	n = SIW_MPA_LEN_LEN + hl;
	memcpy(out + n, payload, plen);
	n += plen;
	n += siw_fpdu_trailer(out + n, pad, crc);
	return n;
}

/*
 * Reads one FPDU into buf (at least 2 + 65535 + 7 bytes): its MPA length
 * in *ulpdu, the ULPDU at buf + 2, then pad and CRC. 0, or -1 at the end
 * of the connection.
 */
static int read_fpdu(int fd, unsigned char *buf, uint32_t *ulpdu)
{
	if (read_full(fd, buf, 2))
		return -1;
	*ulpdu = siw_get_be16(buf);
	return read_full(fd, buf + 2,
			*ulpdu + siw_mpa_pad(*ulpdu) + SIW_MPA_CRC_LEN);
}

/*
 * Reads the server's FPDUs until the connection ends; returns the code of
 * the first Terminate, SIW_TERM_OK if none came.
 */
static enum siw_term_code read_terminate(const struct target *t)
{
	unsigned char buf[2 + 65535 + 7];
	enum siw_term_code code = SIW_TERM_OK;

	for (;;) {
		struct siw_term_msg msg;
		uint32_t ulpdu;

		if (read_fpdu(t->sock, buf, &ulpdu))
			return code;
		if (code == SIW_TERM_OK && ulpdu >= SIW_TERM_HDR_LEN &&
		    (buf[3] & SIW_RDMAP_OPCODE_MASK) == SIW_RDMAP_TERMINATE &&
		    siw_term_decode(buf + 2 + SIW_UNTAGGED_HDR_LEN,
				    ulpdu - SIW_UNTAGGED_HDR_LEN, &msg))
			code = msg.code;
	}
}

/*
 * A case: the bytes to send, and what they must draw: a Terminate with
 * code want, or (want SIW_TERM_OK) none. With a chunk size the bytes go
 * out in pieces of that size, each its own TCP segment; close_after sends
 * the attacker's FIN right behind them; data_at says where a valid frame's
 * payload (DATA_LEN bytes of DATA_BYTE) must have landed.
 */
#define DATA_LEN	64
#define DATA_BYTE	0xc3

struct hostile_case {
	const char *name;
	enum siw_term_code want;
	size_t (*build)(const struct target *t, unsigned char *out);
	unsigned int chunk;
	int close_after;
	int check_data;
	int no_rtr;
	int reset;		/* end with a TCP reset, not a FIN */
	unsigned int data_len;	/* with check_data: bytes placed (0: DATA_LEN) */
	/*
	 * The server first posts an RDMA Read of READ_LEN bytes toward the
	 * attacker, whose answer is the case's frames; the Read must fail
	 * with a local length error reporting read_placed bytes, which are
	 * in its sink, and nothing after them.
	 */
	int read;
	unsigned int read_placed;
	enum ibv_wc_status read_status;	/* 0: IBV_WC_LOC_LEN_ERR */
	/*
	 * Mid-frame: the first 'split' bytes go out, the server then does
	 * 'mid' (deregisters its region, or moves its QP to ERR), and the
	 * rest follows. Of a Write's BIG_LEN bytes only the first 'placed'
	 * may be in the region (check_tail), and nothing after.
	 */
	unsigned int split;
	int mid;
	unsigned int placed;
	int check_tail;
	/* The Read succeeds; one Send of DATA_LEN bytes lands in a receive. */
	int read_ok;
};

enum { MID_NONE, MID_DEREG, MID_FLUSH };

/* The server's Read: into the region at READ_AT, READ_LEN bytes. */
#define READ_AT		8192
#define READ_LEN	4096
#define READ_WR_ID	77

static size_t c_bad_crc(const struct target *t, unsigned char *out)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_WRITE, .last = true,
			     .stag = t->rkey, .to = t->addr };
	unsigned char data[64] = { 1 };

	return fpdu(t, &h, data, sizeof(data), out, 1);
}

static size_t c_write_bad_stag(const struct target *t, unsigned char *out)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_WRITE, .last = true,
			     .stag = t->rkey ^ 0xffffff00, .to = t->addr };
	unsigned char data[64] = { 2 };

	return fpdu(t, &h, data, sizeof(data), out, 0);
}

static size_t c_write_past_end(const struct target *t, unsigned char *out)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_WRITE, .last = true,
			     .stag = t->rkey, .to = t->addr + REGION - 32 };
	unsigned char data[64] = { 3 };

	return fpdu(t, &h, data, sizeof(data), out, 0);
}

static size_t c_write_before_start(const struct target *t, unsigned char *out)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_WRITE, .last = true,
			     .stag = t->rkey, .to = t->addr - 16 };
	unsigned char data[64] = { 4 };

	return fpdu(t, &h, data, sizeof(data), out, 0);
}

static size_t c_write_wrap(const struct target *t, unsigned char *out)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_WRITE, .last = true,
			     .stag = t->rkey, .to = ~0ULL - 15 };
	unsigned char data[64] = { 5 };

	return fpdu(t, &h, data, sizeof(data), out, 0);
}

static size_t c_read_past_end(const struct target *t, unsigned char *out)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_READ_REQ, .last = true,
			     .msn = t->rreq_msn };

	h.rreq = (struct siw_rreq){ .sink_stag = 0x1234, .sink_to = 0,
				    .size = 4096, .src_stag = t->rkey,
				    .src_to = t->addr + REGION - 100 };
	return fpdu(t, &h, NULL, 0, out, 0);
}

static size_t c_send_too_long(const struct target *t, unsigned char *out)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_SEND, .last = true,
			     .msn = t->send_msn };
	static unsigned char data[RECV_LEN + 64];

	return fpdu(t, &h, data, sizeof(data), out, 0);
}

static size_t c_wrong_qn(const struct target *t, unsigned char *out)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_SEND, .last = true,
			     .msn = 1 };
	unsigned char data[16] = { 6 };
	size_t n = fpdu(t, &h, data, sizeof(data), out, 0);

	/* QN lives at bytes 6..9 of the untagged header, after the length. */
	siw_put_be32(out + SIW_MPA_LEN_LEN + 6, 7);
	if (t->crc) {
		struct siw_frag f = { data, sizeof(data) };
		uint32_t hl = SIW_UNTAGGED_HDR_LEN;
		uint32_t pad = siw_mpa_pad(hl + sizeof(data));

		siw_mpa_crc_put(out + n - SIW_MPA_CRC_LEN,
				siw_fpdu_crc(out, SIW_MPA_LEN_LEN + hl, &f, 1,
					     pad));
	}
	return n;
}

static size_t c_msn_out_of_window(const struct target *t, unsigned char *out)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_SEND, .last = true,
			     .msn = 1000 };
	unsigned char data[16] = { 7 };

	return fpdu(t, &h, data, sizeof(data), out, 0);
}

static size_t c_read_resp_unasked(const struct target *t, unsigned char *out)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_READ_RESP, .last = true,
			     .stag = t->rkey, .to = t->addr };
	unsigned char data[32] = { 8 };

	return fpdu(t, &h, data, sizeof(data), out, 0);
}

/* A Read Response for the server's Read of len bytes, L set. */
static size_t read_response(const struct target *t, uint32_t len,
			    unsigned char *out)
{
	static unsigned char data[READ_LEN];
	struct siw_hdr h = { .opcode = SIW_RDMAP_READ_RESP, .last = true,
			     .stag = t->rreq.sink_stag,
			     .to = t->rreq.sink_to };

	memset(data, DATA_BYTE, sizeof(data));
	return fpdu(t, &h, data, len, out, 0);
}

/* Half the bytes asked for, or none, each as the whole response. */
static size_t c_read_resp_half(const struct target *t, unsigned char *out)
{
	return read_response(t, READ_LEN / 2, out);
}

static size_t c_read_resp_empty(const struct target *t, unsigned char *out)
{
	return read_response(t, 0, out);
}

/* The whole response in one FPDU (sent in two parts by the case). */
static size_t c_read_resp_full(const struct target *t, unsigned char *out)
{
	return read_response(t, READ_LEN, out);
}

/*
 * A Send between the two segments of the Read's response: messages of
 * different queues may come between a message's segments (RFC 5041); the
 * Read completes whole, the Send lands in a receive.
 */
static size_t c_read_resp_send_between(const struct target *t,
				       unsigned char *out)
{
	static unsigned char data[READ_LEN];
	struct siw_hdr h = { .opcode = SIW_RDMAP_READ_RESP,
			     .stag = t->rreq.sink_stag,
			     .to = t->rreq.sink_to };
	struct siw_hdr sd = { .opcode = SIW_RDMAP_SEND, .last = true,
			      .msn = t->send_msn };
	size_t n;

	memset(data, DATA_BYTE, sizeof(data));
	n = fpdu(t, &h, data, READ_LEN / 2, out, 0);
	n += fpdu(t, &sd, data, DATA_LEN, out + n, 0);
	h.last = true;
	h.to += READ_LEN / 2;
	n += fpdu(t, &h, data, READ_LEN / 2, out + n, 0);
	return n;
}

/* Where the mid-frame cases cut: the header and 2 KiB of payload. */
#define SPLIT_PLACED	2048
#define SPLIT_AT	(SIW_MPA_LEN_LEN + SIW_TAGGED_HDR_LEN + SPLIT_PLACED)

/* A header field the encoder would not produce: patched afterwards. */
static size_t patched(const struct target *t, unsigned char *out,
		      unsigned int byte, unsigned char and, unsigned char or)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_WRITE, .last = true,
			     .stag = t->rkey, .to = t->addr };
	unsigned char data[16] = { 9 };
	size_t n = fpdu(t, &h, data, sizeof(data), out, 0);

	out[SIW_MPA_LEN_LEN + byte] = (out[SIW_MPA_LEN_LEN + byte] & and) | or;
	if (t->crc) {
		struct siw_frag f = { data, sizeof(data) };
		uint32_t hl = SIW_TAGGED_HDR_LEN;

		siw_mpa_crc_put(out + n - SIW_MPA_CRC_LEN,
				siw_fpdu_crc(out, SIW_MPA_LEN_LEN + hl, &f, 1,
					     siw_mpa_pad(hl + sizeof(data))));
	}
	return n;
}

static size_t c_ddp_version(const struct target *t, unsigned char *out)
{
	return patched(t, out, 0, (unsigned char)~SIW_DDP_DV_MASK, 2);
}

static size_t c_rdmap_version(const struct target *t, unsigned char *out)
{
	return patched(t, out, 1, (unsigned char)~SIW_RDMAP_RV_MASK,
		       2 << SIW_RDMAP_RV_SHIFT);
}

static size_t c_reserved_opcode(const struct target *t, unsigned char *out)
{
	return patched(t, out, 1, (unsigned char)~SIW_RDMAP_OPCODE_MASK, 0xc);
}

/*
 * RFC 7306's messages, well formed, to a connection that did not
 * negotiate them: unexpected opcodes; QN 3 is not a queue there.
 */
static size_t c_imm_unasked(const struct target *t, unsigned char *out)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_IMM, .msn = t->send_msn,
			     .imm = siw_imm_word(0x1234, SIW_IMM_PLAIN) };

	return fpdu(t, &h, NULL, 0, out, 0);
}

static size_t c_atomic_unasked(const struct target *t, unsigned char *out)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_ATOMIC_REQ,
			     .msn = t->rreq_msn };

	h.atomic = (struct siw_atomic_req){ .op = SIW_ATOMIC_FETCH_ADD,
					    .stag = t->rkey, .to = t->addr,
					    .add_swap = 1 };
	return fpdu(t, &h, NULL, 0, out, 0);
}

static size_t c_atomic_resp_unasked(const struct target *t,
				    unsigned char *out)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_ATOMIC_RESP, .msn = 1 };

	return fpdu(t, &h, NULL, 0, out, 0);
}

static size_t c_write_stale_stag(const struct target *t, unsigned char *out)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_WRITE, .last = true,
			     .stag = t->stale_rkey, .to = t->addr };
	unsigned char data[64] = { 11 };

	return fpdu(t, &h, data, sizeof(data), out, 0);
}

/* A valid Write of DATA_LEN bytes at offset 256 of the region. */
static size_t c_valid_write(const struct target *t, unsigned char *out)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_WRITE, .last = true,
			     .stag = t->rkey, .to = t->addr + 256 };
	unsigned char data[DATA_LEN];

	memset(data, DATA_BYTE, sizeof(data));
	return fpdu(t, &h, data, sizeof(data), out, 0);
}

/*
 * A valid Write of BIG_LEN bytes in one FPDU, far past the MULPDU siw's
 * side of the connection uses (RFC 5044 bounds what a sender puts in an
 * FPDU, not what a receiver may take): accepted and placed.
 */
#define BIG_LEN		16384
static size_t c_big_write(const struct target *t, unsigned char *out)
{
	static unsigned char data[BIG_LEN];
	struct siw_hdr h = { .opcode = SIW_RDMAP_WRITE, .last = true,
			     .stag = t->rkey, .to = t->addr + 256 };

	memset(data, DATA_BYTE, sizeof(data));
	return fpdu(t, &h, data, sizeof(data), out, 0);
}

/*
 * More Read Requests in one burst than any IRD siw grants, each for the
 * whole region: they arrive in one segment, faster than the responses can
 * go out, so the responder's queue of inbound Reads fills and the request
 * past the IRD is a stream-fatal error.
 */
#define READ_BURST	65
static size_t c_reads_past_ird(const struct target *t, unsigned char *out)
{
	size_t n = 0;
	int i;

	for (i = 0; i < READ_BURST; i++) {
		struct siw_hdr h = { .opcode = SIW_RDMAP_READ_REQ,
				     .last = true, .msn = t->rreq_msn + i };

		h.rreq = (struct siw_rreq){ .sink_stag = 0x1234, .size = REGION,
					    .src_stag = t->rkey,
					    .src_to = t->addr };
		n += fpdu(t, &h, NULL, 0, out + n, 0);
	}
	return n;
}

/* Half of a valid FPDU; the attacker then closes. */
static size_t c_truncated(const struct target *t, unsigned char *out)
{
	return c_valid_write(t, out) / 2;
}

/* MPA length shorter than a tagged header: a runt segment. */
static size_t c_runt(const struct target *t, unsigned char *out)
{
	size_t n = c_valid_write(t, out);

	(void)n;
	/*
	 * Length 6: the ULPDU ends inside the 14-byte header. siw reads a
	 * whole header before judging it, so zero bytes follow.
	 */
	siw_put_be16(out, 6);
	memset(out + 2 + 6, 0, 4 + 16);
	return 2 + 6 + 4 + 16;
}

/* A Read Request whose MPA length claims more than its 28-byte body. */
static size_t c_read_req_too_long(const struct target *t, unsigned char *out)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_READ_REQ, .last = true,
			     .msn = t->rreq_msn };
	unsigned char extra[8] = { 0 };

	h.rreq = (struct siw_rreq){ .sink_stag = 0x1234, .size = 16,
				    .src_stag = t->rkey, .src_to = t->addr };
	return fpdu(t, &h, extra, sizeof(extra), out, 0);
}

/* The RTR of peer-to-peer mode: a zero-length message of type t->rtr. */
static size_t rtr_frame(struct target *t, unsigned char *out)
{
	struct siw_hdr h = { .last = true };

	switch (t->rtr) {
	case SIW_RTR_WRITE:
		h.opcode = SIW_RDMAP_WRITE;
		break;
	case SIW_RTR_READ:
		h.opcode = SIW_RDMAP_READ_REQ;
		h.msn = t->rreq_msn++;
		break;
	default:
		h.opcode = SIW_RDMAP_SEND;
		h.msn = t->send_msn++;
		break;
	}
	return fpdu(t, &h, NULL, 0, out, 0);
}

/* P2P without the RTR: a zero-length message of a type not agreed. */
static size_t c_wrong_rtr(const struct target *t, unsigned char *out)
{
	struct siw_hdr h = { .last = true, .msn = 1 };

	h.opcode = t->rtr == SIW_RTR_SEND ? SIW_RDMAP_WRITE : SIW_RDMAP_SEND;
	return fpdu(t, &h, NULL, 0, out, 0);
}

static size_t c_send_first(const struct target *t, unsigned char *out)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_SEND, .last = true,
			     .msn = 1 };
	unsigned char data[16] = { 10 };

	return fpdu(t, &h, data, sizeof(data), out, 0);
}

#define TERM(n, code, fn)	{ .name = n, .want = code, .build = fn }
/* Only in p2p mode without the RTR (-n): a first frame that is not it. */
#define NO_RTR(n, code, fn) \
	{ .name = n, .want = code, .build = fn, .no_rtr = 1 }
#define QUIET(n, fn, ch, data) \
	{ .name = n, .build = fn, .chunk = ch, .close_after = 1, \
	  .check_data = data }

static const struct hostile_case cases[] = {
	TERM("bad-crc", SIW_TERM_MPA_CRC, c_bad_crc),
	TERM("write-bad-stag", SIW_TERM_DDP_T_INVALID_STAG, c_write_bad_stag),
	TERM("write-deregistered-stag", SIW_TERM_DDP_T_INVALID_STAG,
	     c_write_stale_stag),
	TERM("write-past-end", SIW_TERM_DDP_T_BASE_BOUNDS, c_write_past_end),
	TERM("write-before-start", SIW_TERM_DDP_T_BASE_BOUNDS,
	     c_write_before_start),
	TERM("write-to-wraps", SIW_TERM_DDP_T_TO_WRAP, c_write_wrap),
	TERM("read-past-end", SIW_TERM_RDMAP_BASE_BOUNDS, c_read_past_end),
	TERM("send-too-long", SIW_TERM_DDP_UT_TOO_LONG, c_send_too_long),
	TERM("wrong-qn", SIW_TERM_DDP_UT_INVALID_QN, c_wrong_qn),
	TERM("msn-out-of-window", SIW_TERM_DDP_UT_MSN_RANGE,
	     c_msn_out_of_window),
	TERM("read-response-unasked", SIW_TERM_RDMAP_OPCODE,
	     c_read_resp_unasked),
	TERM("ddp-version", SIW_TERM_DDP_T_VERSION, c_ddp_version),
	TERM("rdmap-version", SIW_TERM_RDMAP_VERSION, c_rdmap_version),
	TERM("reserved-opcode", SIW_TERM_RDMAP_OPCODE, c_reserved_opcode),
	TERM("runt-segment", SIW_TERM_RDMAP_OP_UNSPEC, c_runt),
	TERM("read-request-too-long", SIW_TERM_DDP_UT_TOO_LONG,
	     c_read_req_too_long),
	TERM("reads-past-ird", SIW_TERM_RDMAP_CATASTROPHIC_STREAM,
	     c_reads_past_ird),
	TERM("immediate-not-negotiated", SIW_TERM_RDMAP_OPCODE, c_imm_unasked),
	TERM("atomic-not-negotiated", SIW_TERM_RDMAP_OPCODE, c_atomic_unasked),
	TERM("atomic-response-not-negotiated", SIW_TERM_DDP_UT_INVALID_QN,
	     c_atomic_resp_unasked),
	QUIET("truncated-then-close", c_truncated, 0, 0),
	{ .name = "reset-mid-frame", .build = c_truncated, .reset = 1 },
	QUIET("valid-write-drip", c_valid_write, 1, 1),
	QUIET("valid-write-in-3-byte-pieces", c_valid_write, 3, 1),
	QUIET("valid-write-in-7-byte-pieces", c_valid_write, 7, 1),
	{ .name = "valid-write-past-mulpdu", .build = c_big_write,
	  .close_after = 1, .check_data = 1, .data_len = BIG_LEN },
	{ .name = "read-response-half", .want = SIW_TERM_DDP_T_BASE_BOUNDS,
	  .build = c_read_resp_half, .read = 1, .read_placed = READ_LEN / 2 },
	{ .name = "read-response-empty", .want = SIW_TERM_DDP_T_BASE_BOUNDS,
	  .build = c_read_resp_empty, .read = 1, .read_placed = 0 },
	{ .name = "send-between-read-response-segments",
	  .build = c_read_resp_send_between, .read = 1, .read_ok = 1,
	  .read_placed = READ_LEN, .close_after = 1 },
	{ .name = "write-then-deregister", .want = SIW_TERM_DDP_T_INVALID_STAG,
	  .build = c_big_write, .split = SPLIT_AT, .mid = MID_DEREG,
	  .placed = SPLIT_PLACED, .check_tail = 1 },
	{ .name = "write-then-flush", .build = c_big_write,
	  .split = SPLIT_AT, .mid = MID_FLUSH, .placed = SPLIT_PLACED,
	  .check_tail = 1 },
	{ .name = "read-response-then-flush", .build = c_read_resp_full,
	  .read = 1, .split = SPLIT_AT, .mid = MID_FLUSH,
	  .read_placed = SPLIT_PLACED, .read_status = IBV_WC_WR_FLUSH_ERR },
	NO_RTR("first-frame-a-write", SIW_TERM_MPA_NO_RTR, c_valid_write),
	NO_RTR("first-frame-a-send", SIW_TERM_MPA_NO_RTR, c_send_first),
	NO_RTR("first-frame-wrong-rtr-type", SIW_TERM_MPA_NO_RTR,
	       c_wrong_rtr),
	NO_RTR("first-frame-bad-ddp-version", SIW_TERM_DDP_T_VERSION,
	       c_ddp_version),
};

#define NCASES (int)(sizeof(cases) / sizeof(cases[0]))

static void server_saw_flush(struct server *s, int *flushed,
			     struct ibv_wc *read_wc, int ok_recvs);

/*
 * For the host's independent decode of a capture (selftests/wire-check.sh):
 * the attacker's TCP port, so its connection can be found, and the
 * Terminate that must be on it, as layer, error type and code.
 */
static void print_expectation(const struct target *t,
			      const struct hostile_case *c, const char *mode)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(t->sock, (struct sockaddr *)&ss, &len))
		return;
	printf("# expect-terminate port %u layer %u etype %u code %u case %s %s\n",
	       port_of(&ss), siw_term_layer(c->want), siw_term_etype(c->want),
	       siw_term_ecode(c->want), mode, c->name);
	fflush(stdout);
}

/* The server's QP: an async event, and no receive left posted. */
static int server_saw_error(struct server *s, int *flushed,
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
static void server_saw_flush(struct server *s, int *flushed,
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
static int server_mid(struct server *s, int mid)
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
static int server_read(struct server *s, struct target *t)
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

/* The Read failed with the bytes placed, which are in its sink, no more. */
static void check_read(const struct server *s, const struct hostile_case *c,
		       const struct ibv_wc *wc, const char *mode)
{
	const unsigned char *sink = s->buf + GUARD + READ_AT;
	unsigned int i, bad = 0;

	enum ibv_wc_status want = c->read_ok ? IBV_WC_SUCCESS :
				  c->read_status ? c->read_status :
						   IBV_WC_LOC_LEN_ERR;

	/* A flushed Read reports no length. */
	ktap_ok(wc->wr_id == READ_WR_ID && wc->status == want &&
		(want == IBV_WC_WR_FLUSH_ERR || wc->byte_len == c->read_placed),
		"%s %s: the Read completes with %s, %u bytes (got %s, %u bytes)",
		mode, c->name, ibv_wc_status_str(want), c->read_placed,
		wc->wr_id == READ_WR_ID ? ibv_wc_status_str(wc->status) :
					  "no completion",
		wc->byte_len);
	for (i = 0; i < READ_LEN; i++)
		if (sink[i] != (i < c->read_placed ? DATA_BYTE : GUARD_BYTE))
			bad++;
	ktap_ok(!bad, "%s %s: its sink holds the %u bytes placed and nothing else (%u bytes differ)",
		mode, c->name, c->read_placed, bad);
}

static void run_case(const struct hostile_case *c)
{
	static unsigned char frame[2 + 65535 + 7];
	char mode[64];
	struct rdma_cm_event *ev;
	struct target t = { .sock = -1 };
	struct ibv_wc read_wc;
	struct server s;
	enum siw_term_code got;
	int flushed, ok;
	size_t n;

	snprintf(mode, sizeof(mode), "rev%d %s%s%s", mpa_rev,
		 use_crc ? "crc" : "no-crc",
		 p2p_rtr ? (skip_rtr ? " p2p-no-rtr" : " p2p") : "",
		 p2p_rtr ? (p2p_rtr == SIW_RTR_WRITE ? "-write" :
			    p2p_rtr == SIW_RTR_READ ? "-read" : "-send") : "");
	if (server_listen(&s) || attacker_connect(&s, &t)) {
		ktap_ok(0, "%s %s: connect and MPA exchange", mode, c->name);
		goto out;
	}
	if (t.rtr && !skip_rtr) {
		n = rtr_frame(&t, frame);
		if (write_full(t.sock, frame, n)) {
			ktap_ok(0, "%s %s: send the RTR", mode, c->name);
			goto out;
		}
	}
	if (c->read && server_read(&s, &t)) {
		ktap_ok(0, "%s %s: the server's Read Request arrives", mode,
			c->name);
		goto out;
	}
	n = c->build(&t, frame);
	if (c->split) {
		ok = write_full(t.sock, frame, c->split) == 0;
		usleep(300000);		/* placed by now */
		if (ok && server_mid(&s, c->mid)) {
			ktap_ok(0, "%s %s: the server's move mid-frame", mode,
				c->name);
			goto out;
		}
		/*
		 * At once: a flush closes the connection only when the
		 * connection manager's work gets to it, and what arrives
		 * before must not be placed either. The close may come
		 * first (EPIPE): what matters is what was placed.
		 */
		if (ok)
			write_full(t.sock, frame + c->split, n - c->split);
	} else if (c->chunk) {
		size_t off;

		ok = 1;
		for (off = 0; ok && off < n; off += c->chunk) {
			ok = write_full(t.sock, frame + off,
				       n - off < c->chunk ? n - off :
							    c->chunk) == 0;
			usleep(2000);	/* one TCP segment each */
		}
	} else {
		ok = write_full(t.sock, frame, n) == 0;
	}
	if (ok && c->close_after) {
		usleep(200000);
		shutdown(t.sock, SHUT_WR);
	}
	if (ok && c->reset) {
		struct linger lg = { .l_onoff = 1, .l_linger = 0 };

		usleep(200000);
		setsockopt(t.sock, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		close(t.sock);
		t.sock = -1;
		ktap_ok(1, "%s %s: the attacker resets the connection", mode,
			c->name);
		goto quiet;
	}
	got = ok ? read_terminate(&t) : SIW_TERM_OK;
	if (c->want)
		print_expectation(&t, c, mode);
	ktap_ok(ok && got == c->want, "%s %s: %s%s (got %s)", mode, c->name,
		c->want ? "Terminate " : "no Terminate",
		c->want ? siw_term_name(c->want) : "",
		got ? siw_term_name(got) : "none");
	if (c->check_tail) {
		const unsigned char *r = s.buf + GUARD + 256;
		unsigned int i, head = 0, tail = 0;

		for (i = 0; i < BIG_LEN; i++) {
			if (i < c->placed && r[i] != DATA_BYTE)
				head++;
			if (i >= c->placed && r[i] != GUARD_BYTE)
				tail++;
		}
		ktap_ok(!head && !tail,
			"%s %s: the first %u bytes were placed, none of the %u after the server's move (%u and %u differ)",
			mode, c->name, c->placed, BIG_LEN - c->placed, head, tail);
	}
	if (c->check_data) {
		static unsigned char want[BIG_LEN];
		unsigned int len = c->data_len ? c->data_len : DATA_LEN;

		memset(want, DATA_BYTE, len);
		ktap_ok(!memcmp(s.buf + GUARD + 256, want, len),
			"%s %s: the frame (%u bytes of data) was accepted and placed",
			mode, c->name, len);
	}
	if (!c->want) {
		/* The peer closed: flushed receives, the connection ends. */
		int flushed;

quiet:
		flushed = 0;
		server_saw_flush(&s, &flushed, c->read ? &read_wc : NULL,
				 c->read_ok);
		ktap_ok(flushed, "%s %s: its %d receives are flushed%s", mode,
			c->name, NRECV - c->read_ok,
			c->read_ok ? ", the Send's completes with its data" : "");
		if (c->read)
			check_read(&s, c, &read_wc, mode);
		goto tail;
	}
	ktap_ok(server_saw_error(&s, &flushed, c->read ? &read_wc : NULL),
		"%s %s: the server's QP reports an async error event", mode,
		c->name);
	ktap_ok(flushed, "%s %s: its %d receives complete, none successfully",
		mode, c->name, NRECV);
	if (c->read)
		check_read(&s, c, &read_wc, mode);
tail:
	ktap_ok(guards_intact(&s), "%s %s: guard bytes around the memory intact",
		mode, c->name);
	ok = !cm_expect(stderr, s.ec, RDMA_CM_EVENT_DISCONNECTED, 5000, &ev);
	if (ok)
		rdma_ack_cm_event(ev);
	ktap_ok(ok, "%s %s: the server sees the connection end", mode, c->name);
out:
	if (t.sock >= 0)
		close(t.sock);
	server_destroy(&s);
}

/*
 * Garbage where the MPA request belongs: siw closes the TCP connection
 * and the server application never hears of it.
 */
static void run_garbage_request(void)
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
static void run_zero_window(void)
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

static void run_many_shut_windows(void)
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
 * The server's device's mpa/first_fpdu_wait_ms: the old value into *old
 * (unless NULL), then ms. The listener is bound to the device already.
 */
static int set_first_fpdu_wait(const struct server *s, int ms, int *old)
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

static void run_speaks_second(void)
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
static const char *attacker_addr;	/* -A: where the attacker listens */

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

static void run_split_reply(void)
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

/*
 * Reads the server's FPDUs until the connection ends: the Read Response
 * payload bytes (*resp), how many of them are @mark (*marked), and the
 * first Terminate's code (SIW_TERM_OK if none).
 */
static enum siw_term_code read_responses(const struct target *t,
					 unsigned char mark, size_t *resp,
					 size_t *marked)
{
	static unsigned char buf[2 + 65535 + 7];
	enum siw_term_code code = SIW_TERM_OK;
	uint32_t i;

	*resp = 0;
	*marked = 0;
	for (;;) {
		struct siw_term_msg msg;
		uint32_t ulpdu, plen;
		unsigned char op;

		if (read_fpdu(t->sock, buf, &ulpdu))
			return code;
		op = buf[3] & SIW_RDMAP_OPCODE_MASK;
		if (op == SIW_RDMAP_READ_RESP && ulpdu >= SIW_TAGGED_HDR_LEN) {
			plen = ulpdu - SIW_TAGGED_HDR_LEN;
			*resp += plen;
			for (i = 0; i < plen; i++)
				*marked += buf[2 + SIW_TAGGED_HDR_LEN + i] ==
					   mark;
		} else if (op == SIW_RDMAP_TERMINATE && code == SIW_TERM_OK &&
			   ulpdu >= SIW_TERM_HDR_LEN &&
			   siw_term_decode(buf + 2 + SIW_UNTAGGED_HDR_LEN,
					   ulpdu - SIW_UNTAGGED_HDR_LEN, &msg)) {
			code = msg.code;
		}
	}
}

static void run_read_source_deregistered(void)
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

/*
 * -k: the kernel victim. Connect, ask for RFC 7306 (and CRC with -c),
 * and read the victim's announcement: its first FPDU, a Send.
 */
static int victim_connect(struct target *t)
{
	struct siw_mpa_params local = { .revision = SIW_MPA_REV_2,
					.ird = 4, .ord = 4, .max_ird = 4,
					.ext = true };
	unsigned char frame[SIW_MPA_RR_MAX], *b = frame;
	struct siw_mpa_info req, rep;
	struct siw_mpa_result res;
	struct siw_hdr h;
	size_t n;
	uint32_t ulpdu;

	local.crc = use_crc ? SIW_MPA_CRC_REQUIRED : SIW_MPA_CRC_OFF;
	if (attacker_socket(t))
		return -1;
	siw_mpa_request_init(&local, &req);
	if (siw_mpa_build(&req, frame, sizeof(frame), &n) != SIW_MPA_OK ||
	    write_full(t->sock, frame, n) ||
	    read_full(t->sock, frame, SIW_MPA_RR_HDR_LEN) ||
	    siw_mpa_parse_hdr(frame, SIW_MPA_RR_HDR_LEN, SIW_MPA_REPLY, 0,
			      &rep) != SIW_MPA_OK ||
	    read_full(t->sock, frame + SIW_MPA_RR_HDR_LEN,
		     rep.frame_len - SIW_MPA_RR_HDR_LEN) ||
	    siw_mpa_parse(frame, rep.frame_len, SIW_MPA_REPLY, 0, &rep) !=
	    SIW_MPA_OK)
		return -1;
	siw_mpa_check_reply(&local, &rep, &res);
	if (res.verdict != SIW_MPA_ACCEPT || !res.ext) {
		fprintf(stderr, "# the kernel QP did not negotiate RFC 7306\n");
		return -1;
	}
	t->crc = res.crc;
	t->send_msn = SIW_MSN_FIRST;
	t->rreq_msn = SIW_MSN_FIRST;
	/* The announcement: one Send of 56 bytes (victim.c), once ours is in. */
	if (open_stream(t) || read_full(t->sock, frame, 2))
		return -1;
	ulpdu = siw_get_be16(frame);
	if (ulpdu != SIW_UNTAGGED_HDR_LEN + 56 ||
	    read_full(t->sock, frame + 2,
		     ulpdu + siw_mpa_pad(ulpdu) + SIW_MPA_CRC_LEN) ||
	    siw_ddp_check(frame + 2, ulpdu, ulpdu, SIW_DDP_EXT, &h) !=
	    SIW_TERM_OK || h.opcode != SIW_RDMAP_SEND) {
		fprintf(stderr, "# no announcement from the victim\n");
		return -1;
	}
	b = frame + 2 + SIW_UNTAGGED_HDR_LEN;
	t->rkey = siw_get_be32(b);
	t->addr = (uint64_t)siw_get_be32(b + 4) << 32 | siw_get_be32(b + 8);
	t->len = siw_get_be32(b + 12);
	t->grkey = siw_get_be32(b + 16);
	t->gaddr = (uint64_t)siw_get_be32(b + 20) << 32 |
		   siw_get_be32(b + 24);
	t->off = siw_get_be32(b + 28);
	t->start = (uint64_t)siw_get_be32(b + 32) << 32 |
		   siw_get_be32(b + 36);
	t->brkey = siw_get_be32(b + 40);
	t->baddr = (uint64_t)siw_get_be32(b + 44) << 32 |
		   siw_get_be32(b + 48);
	t->blen = siw_get_be32(b + 52);
	return 0;
}

/* An Atomic Request of op on 8 bytes at to of stag. */
static size_t atomic_frame(const struct target *t, u32 msn, u8 op, u32 stag,
			   u64 to, u64 add_swap, u64 compare, u32 id,
			   unsigned char *out)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_ATOMIC_REQ, .msn = msn };

	h.atomic = (struct siw_atomic_req){ .op = op, .req_id = id,
					    .stag = stag, .to = to,
					    .add_swap = add_swap,
					    .add_swap_mask =
						op == SIW_ATOMIC_FETCH_ADD ?
						0 : ~0ULL,
					    .compare = compare,
					    .compare_mask = ~0ULL };
	return fpdu(t, &h, NULL, 0, out, 0);
}

static size_t imm_frame(const struct target *t, u32 msn, u32 imm, u32 desc,
			unsigned char *out)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_IMM, .msn = msn,
			     .imm = siw_imm_word(imm, desc) };

	return fpdu(t, &h, NULL, 0, out, 0);
}

static size_t k_fetch_add(const struct target *t, unsigned char *out)
{
	return atomic_frame(t, t->rreq_msn, SIW_ATOMIC_FETCH_ADD, t->rkey,
			    t->addr + t->off, 5, 0, 0x51, out);
}

static size_t k_cmp_swap(const struct target *t, unsigned char *out)
{
	return atomic_frame(t, t->rreq_msn, SIW_ATOMIC_CMP_SWAP, t->rkey,
			    t->addr + t->off, 0xfeed, t->start, 0x52, out);
}

static size_t k_cmp_swap_unequal(const struct target *t, unsigned char *out)
{
	return atomic_frame(t, t->rreq_msn, SIW_ATOMIC_CMP_SWAP, t->rkey,
			    t->addr + t->off, 0xfeed, t->start + 1, 0x53,
			    out);
}

/* A Write of DATA_LEN bytes, then the immediate that ends it. */
static size_t k_write_imm(const struct target *t, unsigned char *out)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_WRITE, .last = true,
			     .stag = t->rkey, .to = t->addr + 256 };
	unsigned char data[DATA_LEN];
	size_t n;

	memset(data, DATA_BYTE, sizeof(data));
	n = fpdu(t, &h, data, sizeof(data), out, 0);
	return n + imm_frame(t, t->send_msn, 0xbeef, SIW_IMM_FOR_WRITE,
			     out + n);
}

static size_t k_misaligned(const struct target *t, unsigned char *out)
{
	return atomic_frame(t, t->rreq_msn, SIW_ATOMIC_FETCH_ADD, t->rkey,
			    t->addr + t->off + 4, 1, 0, 1, out);
}

static size_t k_unknown_op(const struct target *t, unsigned char *out)
{
	return atomic_frame(t, t->rreq_msn, 1, t->rkey, t->addr + t->off, 1, 0,
			    1, out);
}

static size_t k_bad_stag(const struct target *t, unsigned char *out)
{
	return atomic_frame(t, t->rreq_msn, SIW_ATOMIC_FETCH_ADD,
			    t->rkey ^ 0xffffff00, t->addr + t->off, 1, 0, 1,
			    out);
}

static size_t k_no_atomic_access(const struct target *t, unsigned char *out)
{
	return atomic_frame(t, t->rreq_msn, SIW_ATOMIC_FETCH_ADD, t->grkey,
			    t->gaddr + t->off, 1, 0, 1, out);
}

static size_t k_past_end(const struct target *t, unsigned char *out)
{
	return atomic_frame(t, t->rreq_msn, SIW_ATOMIC_FETCH_ADD, t->rkey,
			    t->addr + t->len, 1, 0, 1, out);
}

static size_t k_atomic_too_long(const struct target *t, unsigned char *out)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_ATOMIC_REQ,
			     .msn = t->rreq_msn };
	unsigned char extra[8] = { 0 };

	h.atomic = (struct siw_atomic_req){ .op = SIW_ATOMIC_FETCH_ADD,
					    .stag = t->rkey,
					    .to = t->addr + t->off };
	return fpdu(t, &h, extra, sizeof(extra), out, 0);
}

/* Adding 0 past the IRD (4): the target keeps its value. */
static size_t k_past_ird(const struct target *t, unsigned char *out)
{
	size_t n = 0;
	int i;

	for (i = 0; i < READ_BURST; i++)
		n += atomic_frame(t, t->rreq_msn + i, SIW_ATOMIC_FETCH_ADD,
				  t->rkey, t->addr + t->off, 0, 0, i, out + n);
	return n;
}

static size_t k_resp_unasked(const struct target *t, unsigned char *out)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_ATOMIC_RESP, .msn = 1 };

	return fpdu(t, &h, NULL, 0, out, 0);
}

static size_t k_imm_unknown(const struct target *t, unsigned char *out)
{
	return imm_frame(t, t->send_msn, 1, 7, out);
}

static size_t k_imm_twice(const struct target *t, unsigned char *out)
{
	size_t n = imm_frame(t, t->send_msn, 1, SIW_IMM_FOR_SEND, out);

	return n + imm_frame(t, t->send_msn + 1, 2, SIW_IMM_FOR_SEND, out + n);
}

/* One more immediate than the victim posted receives (4). */
static size_t k_imm_no_receive(const struct target *t, unsigned char *out)
{
	size_t n = 0;
	u32 i;

	for (i = 0; i < NRECV + 1; i++)
		n += imm_frame(t, t->send_msn + i, i, SIW_IMM_PLAIN, out + n);
	return n;
}

static size_t k_imm_too_long(const struct target *t, unsigned char *out)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_IMM, .msn = t->send_msn };
	unsigned char extra[4] = { 0 };

	return fpdu(t, &h, extra, sizeof(extra), out, 0);
}

/*
 * A case against the victim: its frames, the Terminate they draw (or
 * none), for a valid atomic the Atomic Response's identifier and value,
 * and what the victim's target holds afterwards (relative to its start).
 */
struct victim_case {
	const char *name;
	enum siw_term_code want;
	size_t (*build)(const struct target *t, unsigned char *out);
	u32 resp_id;		/* an Atomic Response with it, or 0 */
	int64_t target;		/* the target's value minus start; or: */
	uint64_t target_abs;	/* ... this value, if set */
	int read_inval;		/* run_victim_read_inval() instead */
};

#define KTERM(n, code, fn)	{ .name = n, .want = code, .build = fn }

static const struct victim_case kcases[] = {
	{ .name = "atomic-fetch-add", .build = k_fetch_add, .resp_id = 0x51,
	  .target = 5 },
	{ .name = "atomic-cmp-swap", .build = k_cmp_swap, .resp_id = 0x52,
	  .target_abs = 0xfeed },
	{ .name = "atomic-cmp-swap-unequal", .build = k_cmp_swap_unequal,
	  .resp_id = 0x53 },
	{ .name = "immediate-after-write", .build = k_write_imm },
	KTERM("atomic-misaligned", SIW_TERM_RDMAP_CATASTROPHIC_STREAM,
	      k_misaligned),
	KTERM("atomic-unknown-operation", SIW_TERM_RDMAP_OPCODE, k_unknown_op),
	KTERM("atomic-bad-stag", SIW_TERM_RDMAP_INVALID_STAG, k_bad_stag),
	KTERM("atomic-without-atomic-access", SIW_TERM_RDMAP_ACCESS,
	      k_no_atomic_access),
	KTERM("atomic-past-end", SIW_TERM_RDMAP_BASE_BOUNDS, k_past_end),
	KTERM("atomic-request-too-long", SIW_TERM_DDP_UT_TOO_LONG,
	      k_atomic_too_long),
	KTERM("atomics-past-ird", SIW_TERM_RDMAP_CATASTROPHIC_STREAM,
	      k_past_ird),
	KTERM("atomic-response-unasked", SIW_TERM_RDMAP_OPCODE, k_resp_unasked),
	KTERM("immediate-unknown-kind", SIW_TERM_RDMAP_OP_UNSPEC,
	      k_imm_unknown),
	KTERM("immediate-twice-for-one-send", SIW_TERM_RDMAP_OPCODE,
	      k_imm_twice),
	KTERM("immediate-without-receive", SIW_TERM_DDP_UT_MSN_NO_BUF,
	      k_imm_no_receive),
	KTERM("immediate-too-long", SIW_TERM_DDP_UT_TOO_LONG, k_imm_too_long),
	{ .name = "read-source-invalidated", .read_inval = 1 },
};

#define NKCASES (int)(sizeof(kcases) / sizeof(kcases[0]))

/*
 * Reads the victim's FPDUs until the connection ends: the first
 * Terminate's code, and whether an Atomic Response with id came, with
 * which value.
 */
static enum siw_term_code read_victim(const struct target *t, u32 id,
				      int *resp, uint64_t *orig)
{
	static unsigned char buf[2 + 65535 + 7];
	enum siw_term_code code = SIW_TERM_OK;

	*resp = 0;
	for (;;) {
		struct siw_term_msg msg;
		struct siw_hdr h;
		uint32_t ulpdu;

		if (read_fpdu(t->sock, buf, &ulpdu))
			return code;
		if (siw_ddp_check(buf + 2, ulpdu, ulpdu, SIW_DDP_EXT, &h) !=
		    SIW_TERM_OK)
			continue;
		if (h.opcode == SIW_RDMAP_ATOMIC_RESP &&
		    h.atomic_resp.req_id == id) {
			*resp = 1;
			*orig = h.atomic_resp.orig;
		}
		if (code == SIW_TERM_OK && h.opcode == SIW_RDMAP_TERMINATE &&
		    siw_term_decode(buf + 2 + SIW_UNTAGGED_HDR_LEN,
				    ulpdu - SIW_UNTAGGED_HDR_LEN, &msg))
			code = msg.code;
	}
}

/*
 * The kernel half of read-source-deregistered (-r): two Reads of the
 * victim's big fast-register MR (1 MiB each) toward a peer whose window
 * is small, then, while siw's send of the first response waits, a Send
 * with Invalidate of that MR; on its receive the victim poisons the
 * pages and frees them (victim.c). No poisoned byte may arrive, the
 * response stops short with a Terminate (invalid STag), and on a KASAN
 * kernel nothing reads the freed pages.
 */
#define KRD_POISON	0xee
static void run_victim_read_inval(const struct victim_case *c, int conn)
{
	const char *mode = use_crc ? "rfc7306 crc" : "rfc7306 no-crc";
	struct target t = { .sock = -1 };
	struct hostile_case hc = { .name = c->name,
				   .want = SIW_TERM_RDMAP_INVALID_STAG };
	enum siw_term_code code;
	unsigned char out[3 * 64];
	struct siw_hdr sd = { .opcode = SIW_RDMAP_SEND_INV, .last = true };
	unsigned char data[16] = { 0 };
	size_t n = 0, resp, poison, i;

	small_rcvbuf = 4096;
	if (victim_connect(&t)) {
		small_rcvbuf = 0;
		ktap_ok(0, "%s %s: connect, MPA exchange with RFC 7306, the victim's announcement",
			mode, c->name);
		printf("# expect-victim %d none\n", conn);
		goto out;
	}
	small_rcvbuf = 0;
	for (i = 0; i < 2; i++) {
		struct siw_hdr h = { .opcode = SIW_RDMAP_READ_REQ,
				     .last = true, .msn = t.rreq_msn++ };

		h.rreq = (struct siw_rreq){ .sink_stag = 0x1234 + i,
					    .size = t.blen,
					    .src_stag = t.brkey,
					    .src_to = t.baddr };
		n += fpdu(&t, &h, NULL, 0, out + n, 0);
	}
	if (write_full(t.sock, out, n)) {
		ktap_ok(0, "%s %s: the Read Requests", mode, c->name);
		goto out;
	}
	/* The first response fills the window and the socket buffer. */
	usleep(500000);
	sd.msn = t.send_msn++;
	sd.rsvd_ulp = t.brkey;
	n = fpdu(&t, &sd, data, sizeof(data), out, 0);
	ktap_ok(!write_full(t.sock, out, n),
		"%s %s: a Send with Invalidate of the big MR while %u KiB Read Responses wait for the window",
		mode, c->name, t.blen / 1024);
	/* The victim poisons and frees the pages on that receive. */
	usleep(500000);
	code = read_responses(&t, KRD_POISON, &resp, &poison);
	/*
	 * No "# expect-terminate" for the host's tshark: over a stream
	 * held at a 4 KiB window (zero-window probes, a megabyte of
	 * responses) tshark lost the FPDU boundaries in the CRC mode and
	 * found no Terminate; the attacker decodes it itself, above.
	 */
	ktap_ok(poison == 0,
		"%s %s: no byte of the freed, poisoned pages left in a Read Response (%zu of %zu did)",
		mode, c->name, poison, resp);
	ktap_ok(resp < t.blen,
		"%s %s: the first response stopped short (%zu of %u bytes)",
		mode, c->name, resp, t.blen);
	ktap_ok(code == hc.want, "%s %s: Terminate %s (got %s)", mode, c->name,
		siw_term_name(hc.want),
		code == SIW_TERM_OK ? "none" : siw_term_name(code));
	printf("# expect-victim %d target 0x%llx fatal 1 case %s\n", conn,
	       (unsigned long long)t.start, c->name);
	fflush(stdout);
out:
	if (t.sock >= 0)
		close(t.sock);
}

static void run_victim_case(const struct victim_case *c, int conn)
{
	static unsigned char frame[2 + 65535 + 7];
	const char *mode = use_crc ? "rfc7306 crc" : "rfc7306 no-crc";
	struct target t = { .sock = -1 };
	enum siw_term_code got;
	uint64_t orig = 0, want;
	int resp;
	size_t n;

	if (c->read_inval) {
		run_victim_read_inval(c, conn);
		return;
	}
	if (victim_connect(&t)) {
		ktap_ok(0, "%s %s: connect, MPA exchange with RFC 7306, the victim's announcement",
			mode, c->name);
		printf("# expect-victim %d none\n", conn);
		goto out;
	}
	n = c->build(&t, frame);
	if (write_full(t.sock, frame, n)) {
		ktap_ok(0, "%s %s: send", mode, c->name);
		goto out;
	}
	if (!c->want) {
		usleep(200000);
		shutdown(t.sock, SHUT_WR);
	}
	got = read_victim(&t, c->resp_id, &resp, &orig);
	if (c->want) {
		struct hostile_case hc = { .name = c->name, .want = c->want };

		print_expectation(&t, &hc, mode);
	}
	ktap_ok(got == c->want, "%s %s: %s%s (got %s)", mode, c->name,
		c->want ? "Terminate " : "no Terminate",
		c->want ? siw_term_name(c->want) : "",
		got ? siw_term_name(got) : "none");
	if (c->resp_id) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);

		/* For the host's decode of the capture (wire-check.sh). */
		if (!getsockname(t.sock, (struct sockaddr *)&ss, &len))
			printf("# expect-atomic-response port %u id %u value %llu op %u case %s %s\n",
			       port_of(&ss),
			       c->resp_id, (unsigned long long)t.start,
			       c->build == k_fetch_add ? SIW_ATOMIC_FETCH_ADD :
			       SIW_ATOMIC_CMP_SWAP, mode, c->name);
		ktap_ok(resp && orig == t.start,
			"%s %s: an Atomic Response with its identifier and the value before (%s, 0x%llx)",
			mode, c->name, resp ? "came" : "none",
			(unsigned long long)orig);
	}
	want = c->target_abs ? c->target_abs : t.start + c->target;
	printf("# expect-victim %d target 0x%llx fatal %d case %s\n", conn,
	       (unsigned long long)want, c->want ? 1 : 0, c->name);
	fflush(stdout);
out:
	if (t.sock >= 0)
		close(t.sock);
}

static void usage(const char *prog)
{
	fprintf(stderr, "usage: %s -a SERVER_ADDR [-S SERVER_NETNS] [-C CLIENT_NETNS] [-c] [-1] [-p RTR [-n]] [-e] [-w | -W | -r | -A ATTACKER_ADDR] [CASE...]\n"
		"       %s -a SERVER_ADDR -k PORT [-C CLIENT_NETNS] [-c] [CASE...]\n"
		"  -c      ask for MPA CRC\n"
		"  -1      speak MPA revision 1\n"
		"  -p RTR  peer-to-peer mode offering RTR type 1 (Send), 2 (Write) or 4 (Read)\n"
		"  -n      ... but send a first frame that is not the RTR\n"
		"  -e      ask for RFC 7306 too (a user QP's server must refuse it)\n"
		"  -w      only the zero-window case: a peer that never reads (the server's\n"
		"          device's mpa/user_timeout_ms must end the connection)\n"
		"  -W      only the many peers that keep their windows shut: one more peer, which\n"
		"          reads, must get its Read Response at once\n"
		"  -A ADDR only siw as the initiator: the attacker listens at ADDR (in\n"
		"          CLIENT_NETNS) and drips its MPA reply a byte per segment\n"
		"  -r      only the Read Responses whose source region the server deregisters\n"
		"          while they wait for the peer's window\n"
		"  -k PORT the RFC 7306 cases against siw_kverbs.ko victim=1 at PORT\n"
		"cases:", prog, prog);
	case_list(CASES(cases));
	fprintf(stderr, " garbage-request speaks-second\n-k cases:");
	case_list(CASES(kcases));
	fprintf(stderr, "\n");
}

int main(int argc, char **argv)
{
	const char *unknown;
	char **names;
	int opt, i, nnames;

	while ((opt = getopt(argc, argv, "a:S:C:c1p:nek:wWrA:h")) != -1) {
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
		case 'c':
			use_crc = 1;
			break;
		case '1':
			mpa_rev = 1;
			break;
		case 'p':
			p2p_rtr = atoi(optarg);
			if (p2p_rtr != SIW_RTR_SEND && p2p_rtr != SIW_RTR_WRITE &&
			    p2p_rtr != SIW_RTR_READ) {
				usage(argv[0]);
				return 2;
			}
			break;
		case 'n':
			skip_rtr = 1;
			break;
		case 'e':
			ask_ext = 1;
			break;
		case 'w':
			zero_window = 1;
			break;
		case 'W':
			many_windows = 1;
			break;
		case 'A':
			attacker_addr = optarg;
			break;
		case 'r':
			read_dereg = 1;
			break;
		case 'k':
			victim_port = atoi(optarg);
			if (victim_port <= 0 || victim_port > 65535) {
				usage(argv[0]);
				return 2;
			}
			break;
		default:
			usage(argv[0]);
			return 2;
		}
	}
	if (!server_addr ||
	    (victim_port && (mpa_rev != 2 || p2p_rtr || ask_ext || server_ns))) {
		usage(argv[0]);
		return 2;
	}
	names = argv + optind;
	nnames = argc - optind;
	/* siw may close a connection while the attacker still writes. */
	signal(SIGPIPE, SIG_IGN);
	if (victim_port) {
		int conn = 0;

		unknown = case_unknown(CASES(kcases), names, nnames);
		if (unknown) {
			fprintf(stderr, "unknown case '%s'\n", unknown);
			usage(argv[0]);
			return 2;
		}
		ktap_header();
		for (i = 0; i < NKCASES; i++)
			if (case_wanted(kcases[i].name, names, nnames))
				run_victim_case(&kcases[i], conn++);
		return ktap_finished();
	}
	for (i = 0; i < nnames; i++) {
		if (case_index(CASES(cases), names[i]) < 0 &&
		    strcmp(names[i], "garbage-request") &&
		    strcmp(names[i], "speaks-second")) {
			fprintf(stderr, "unknown case '%s'\n", names[i]);
			usage(argv[0]);
			return 2;
		}
	}
	ns_remember_home();
	ktap_header();
	/* -w: the zero-window case alone. */
	if (zero_window) {
		run_zero_window();
		return ktap_finished();
	}
	/* -A: siw the initiator, the MPA reply dripped. */
	if (attacker_addr) {
		run_split_reply();
		return ktap_finished();
	}
	/* -W: many peers whose windows stay shut, and one that reads. */
	if (many_windows) {
		run_many_shut_windows();
		return ktap_finished();
	}
	/* -r: the Read Response from a region deregistered meanwhile. */
	if (read_dereg) {
		run_read_source_deregistered();
		return ktap_finished();
	}
	for (i = 0; i < NCASES; i++) {
		if (!case_wanted(cases[i].name, names, nnames))
			continue;
		if (!use_crc && cases[i].want == SIW_TERM_MPA_CRC)
			continue;	/* no CRC to get wrong */
		/* Without the RTR only first-frame cases make sense. */
		if (cases[i].no_rtr != (p2p_rtr && skip_rtr))
			continue;
		run_case(&cases[i]);
	}
	/* The responder's hold, without p2p: revisions 2 and 1. */
	if (!p2p_rtr && !use_crc && !ask_ext &&
	    (optind == argc || !strcmp(argv[optind], "speaks-second")))
		run_speaks_second();
	/* Before any MPA exchange: once, in the plain mode. */
	if (!p2p_rtr && !use_crc && mpa_rev == 2 &&
	    (optind == argc || !strcmp(argv[optind], "garbage-request")))
		run_garbage_request();
	return ktap_finished();
}
