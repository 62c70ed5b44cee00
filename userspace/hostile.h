/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/*
 * What the files of siw_hostile share: its options, the siw end (server),
 * the attacker's view of a connection (target), the cases' description,
 * and the functions one file offers the others.
 *
 *   siw_hostile.c      options, usage, which cases run
 *   hostile_server.c   the siw end: listener, guarded memory, what it saw
 *   hostile_peer.c     the attacker: TCP, MPA, FPDUs out and in
 *   hostile_cases.c    the cases of one crafted frame each, and their run
 *   hostile_streams.c  the cases over a whole connection's life
 *   hostile_kernel.c   -k: the RFC 7306 cases against a kernel QP
 */
#ifndef SIW_HOSTILE_H
#define SIW_HOSTILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <rdma/rdma_cma.h>
#include <infiniband/verbs.h>

#include "proto.h"
#include "cm.h"
#include "net.h"
#include "util.h"
#include "verbs.h"

/* One KTAP count for all the files (siw_hostile.c holds it). */
#define KTAP_SHARED
#include "ktap.h"

#define PORT		7480
#define GUARD		4096
#define REGION		65536
#define RECV_LEN	1024
#define NRECV		4
#define GUARD_BYTE	0x5a

/* The options (siw_hostile.c). */
extern const char *server_ns, *client_ns, *server_addr;
extern int use_crc;
/* MPA mode of the attacker: revision, p2p RTR types offered, RTR sent. */
extern int mpa_rev, p2p_rtr, skip_rtr;
/* RFC 7306: asked for (-e); the kernel victim's port (-k). */
extern int ask_ext, victim_port;
/* -A: where the attacker listens, siw being the initiator. */
extern const char *attacker_addr;
/* The attacker's receive buffer, when it means to keep its window shut. */
extern int small_rcvbuf;
/* The server's region: REGION bytes, but for -r (RD_REGION). */
extern size_t region;

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

/* Requests in one burst: more than any IRD siw grants. */
#define READ_BURST	65

extern const struct hostile_case cases[];
extern const int ncases;

/* hostile_server.c */
int get_addr(struct sockaddr_storage *ss, socklen_t *len);
int server_listen(struct server *s);
int server_accept(struct server *s);
void server_destroy(struct server *s);
int guards_intact(const struct server *s);
int server_saw_error(struct server *s, int *flushed, struct ibv_wc *read_wc);
void server_saw_flush(struct server *s, int *flushed, struct ibv_wc *read_wc,
		      int ok_recvs);
int server_mid(struct server *s, int mid);
int server_read(struct server *s, struct target *t);
int set_first_fpdu_wait(const struct server *s, int ms, int *old);

/* hostile_peer.c */
int attacker_socket(struct target *t);
int attacker_mpa(struct server *s, struct target *t);
int open_stream(const struct target *t);
int attacker_connect(struct server *s, struct target *t);
/* One FPDU around a header and payload; corrupt_crc flips a CRC bit. */
size_t fpdu(const struct target *t, const struct siw_hdr *h,
	    const unsigned char *payload, uint32_t plen, unsigned char *out,
	    int corrupt_crc);
int read_fpdu(int fd, unsigned char *buf, uint32_t *ulpdu);
enum siw_term_code read_terminate(const struct target *t);
enum siw_term_code read_responses(const struct target *t, unsigned char mark,
				  size_t *resp, size_t *marked);
void print_expectation(const struct target *t, const struct hostile_case *c,
		       const char *mode);
int victim_connect(struct target *t);

/* hostile_cases.c */
void run_case(const struct hostile_case *c);

/* hostile_streams.c */
void run_garbage_request(void);
void run_zero_window(void);
void run_many_shut_windows(void);
void run_speaks_second(void);
void run_split_reply(void);
void run_read_source_deregistered(void);

/* hostile_kernel.c */
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

extern const struct victim_case kcases[];
extern const int nkcases;
void run_victim_case(const struct victim_case *c, int conn);

#endif /* SIW_HOSTILE_H */
