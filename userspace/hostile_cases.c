// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * siw_hostile's cases over one MPA connection each: the crafted frames,
 * the table of what each must draw, and the run that checks it.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hostile.h"

/*
 * An RDMA Write of 64 bytes of FILL at (stag, to), its CRC spoiled when
 * bad_crc: the frames of the placement checks differ only there.
 */
static size_t write_at(const struct target *t, unsigned char *out,
		       uint32_t stag, uint64_t to, unsigned char fill,
		       int bad_crc)
{
	struct siw_hdr h = { .opcode = SIW_RDMAP_WRITE, .last = true,
			     .stag = stag, .to = to };
	unsigned char data[64] = { fill };

	return fpdu(t, &h, data, sizeof(data), out, bad_crc);
}

/* The frame's CRC again, after a header field was patched in place. */
static void recrc(const struct target *t, unsigned char *out, size_t n)
{
	if (t->crc)
		siw_mpa_crc_put(out + n - SIW_MPA_CRC_LEN,
				siw_fpdu_crc(out, n - SIW_MPA_CRC_LEN, NULL,
					     0, 0));
}

static size_t c_bad_crc(const struct target *t, unsigned char *out)
{
	return write_at(t, out, t->rkey, t->addr, 1, 1);
}

static size_t c_write_bad_stag(const struct target *t, unsigned char *out)
{
	return write_at(t, out, t->rkey ^ 0xffffff00, t->addr, 2, 0);
}

static size_t c_write_past_end(const struct target *t, unsigned char *out)
{
	return write_at(t, out, t->rkey, t->addr + REGION - 32, 3, 0);
}

static size_t c_write_before_start(const struct target *t, unsigned char *out)
{
	return write_at(t, out, t->rkey, t->addr - 16, 4, 0);
}

static size_t c_write_wrap(const struct target *t, unsigned char *out)
{
	return write_at(t, out, t->rkey, ~0ULL - 15, 5, 0);
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
	recrc(t, out, n);
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
	recrc(t, out, n);
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
	return write_at(t, out, t->stale_rkey, t->addr, 11, 0);
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
size_t rtr_frame(struct target *t, unsigned char *out)
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

const struct hostile_case cases[] = {
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

const int ncases = ARRAY_SIZE(cases);

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

void run_case(const struct hostile_case *c)
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
