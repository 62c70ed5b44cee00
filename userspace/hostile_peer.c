// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * siw_hostile's attacker: a plain TCP socket that speaks MPA and sends
 * FPDUs built with siw's protocol core, and reads what siw sends back.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "hostile.h"

/* The attacker's TCP connection, from the client namespace. */
int attacker_socket(struct target *t)
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
int attacker_mpa(struct server *s, struct target *t)
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

/*
 * The initiator's first FPDU without p2p: a zero-length RDMA Write, which
 * touches no memory (siw checks no STag for it, as an RTR needs). siw
 * as responder holds its own first FPDU until then (RFC 5044 section
 * 7.1.2, rule 4), for mpa/first_fpdu_wait_ms at most.
 */
int open_stream(const struct target *t)
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
int attacker_connect(struct server *s, struct target *t)
{
	if (attacker_mpa(s, t))
		return -1;
	return p2p_rtr ? 0 : open_stream(t);
}

size_t fpdu(const struct target *t, const struct siw_hdr *h,
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
int read_fpdu(int fd, unsigned char *buf, uint32_t *ulpdu)
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
enum siw_term_code read_terminate(const struct target *t)
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
 * Reads the server's FPDUs until the connection ends: the Read Response
 * payload bytes (*resp), how many of them are @mark (*marked), and the
 * first Terminate's code (SIW_TERM_OK if none).
 */
enum siw_term_code read_responses(const struct target *t,
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

/*
 * For the host's independent decode of a capture (selftests/wire-check.sh):
 * the attacker's TCP port, so its connection can be found, and the
 * Terminate that must be on it, as layer, error type and code.
 */
void print_expectation(const struct target *t,
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

/*
 * -k: the kernel victim. Connect, ask for RFC 7306 (and CRC with -c),
 * and read the victim's announcement: its first FPDU, a Send.
 */
int victim_connect(struct target *t)
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
