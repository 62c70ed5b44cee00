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
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostile.h"

KTAP_STATE_DEFINE;

/* The options, for every file: hostile.h says what each is. */
const char *server_ns, *client_ns, *server_addr, *attacker_addr;
int use_crc;
int mpa_rev = 2, p2p_rtr, skip_rtr;
int ask_ext, victim_port;
int small_rcvbuf;
size_t region = REGION;
/* -w, -W, -r: one case alone. */
static int zero_window, many_windows, read_dereg;

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
	case_list(cases, ncases, sizeof(cases[0]));
	fprintf(stderr, " garbage-request speaks-second\n-k cases:");
	case_list(kcases, nkcases, sizeof(kcases[0]));
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
	/* Every mode's way back from the attacker's namespace. */
	ns_remember_home();
	if (victim_port) {
		int conn = 0;

		unknown = case_unknown(kcases, nkcases, sizeof(kcases[0]), names,
				       nnames);
		if (unknown) {
			fprintf(stderr, "unknown case '%s'\n", unknown);
			usage(argv[0]);
			return 2;
		}
		ktap_header();
		for (i = 0; i < nkcases; i++)
			if (case_wanted(kcases[i].name, names, nnames))
				run_victim_case(&kcases[i], conn++);
		return ktap_finished();
	}
	for (i = 0; i < nnames; i++) {
		if (case_index(cases, ncases, sizeof(cases[0]), names[i]) < 0 &&
		    strcmp(names[i], "garbage-request") &&
		    strcmp(names[i], "speaks-second")) {
			fprintf(stderr, "unknown case '%s'\n", names[i]);
			usage(argv[0]);
			return 2;
		}
	}
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
	for (i = 0; i < ncases; i++) {
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
