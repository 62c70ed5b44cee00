// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * siw_hostile -k: the RFC 7306 cases against a kernel QP (siw_kverbs.ko
 * victim=1), valid atomics and immediates and malformed ones, each on a
 * connection of its own.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hostile.h"

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

#define KTERM(n, code, fn)	{ .name = n, .want = code, .build = fn }

const struct victim_case kcases[] = {
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

const int nkcases = ARRAY_SIZE(kcases);

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

void run_victim_case(const struct victim_case *c, int conn)
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
