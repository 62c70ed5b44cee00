// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * tcp_bench: the raw TCP figures siw is compared with in `make bench`.
 * A plain socket application, the ceiling for anything running over the
 * same TCP stack.
 *
 *   tcp_bench -s [-p PORT]                                    server
 *   tcp_bench -c ADDR [-p PORT] -m stream [-l BYTES] [-t SECS]
 *   tcp_bench -c ADDR [-p PORT] -m rr [-l BYTES] [-n ITERS]
 *   tcp_bench -c ADDR [-p PORT] -m connect [-n CONNS]
 *
 * stream   write BYTES-sized buffers for SECS seconds; the server counts
 *          what it read and reports it back, so the figure is data that
 *          arrived. Prints "mibps=<MiB/s> bytes=<n> secs=<t>".
 * rr       BYTES out, BYTES back, ITERS times, one at a time (TCP_NODELAY).
 *          Prints "lat_us=<median round trip / 2>" like perftest's
 *          t_typical for Send/Write latency, and "rtt_us=<median>".
 * connect  CONNS connections opened at once (non-blocking), each counted
 *          established when the server has accepted it and its greeting
 *          byte has arrived. Prints "conn_per_s=<rate> conns=<n>".
 *
 * The server serves one client run, then exits 0 (or 1 on an error).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net.h"
#include "util.h"

#define DEFAULT_PORT	"18515"
#define MAX_BYTES	(16u << 20)
#define MAX_CONNS	4096
#define HELLO_MAGIC	0x54434221u	/* "TCB!" */

enum { MODE_STREAM = 1, MODE_RR, MODE_CONNECT };

/* What the client asks of the server, first on the first connection. */
struct hello {
	uint32_t magic;
	uint32_t mode;
	uint32_t bytes;
	uint32_t count;
};

static void usage(void)
{
	fprintf(stderr,
		"usage: tcp_bench -s [-p PORT]\n"
		"       tcp_bench -c ADDR [-p PORT] -m stream [-l BYTES] [-t SECS]\n"
		"       tcp_bench -c ADDR [-p PORT] -m rr [-l BYTES] [-n ITERS]\n"
		"       tcp_bench -c ADDR [-p PORT] -m connect [-n CONNS]\n");
	exit(2);
}

/* --- server -------------------------------------------------------------- */

static int serve_stream(int fd, const struct hello *h)
{
	char *buf = malloc(h->bytes);
	uint64_t total = 0;
	ssize_t n;

	if (!buf)
		return -1;
	while ((n = read(fd, buf, h->bytes)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		total += n;
	}
	free(buf);
	/* The client half-closed: report what arrived. */
	return n == 0 ? write_full(fd, &total, sizeof(total)) : -1;
}

static int serve_rr(int fd, const struct hello *h)
{
	char *buf = malloc(h->bytes);
	uint32_t i;
	int err = 0;

	if (!buf)
		return -1;
	set_nodelay(fd);
	for (i = 0; i < h->count && !err; i++)
		err = read_full(fd, buf, h->bytes) ||
		      write_full(fd, buf, h->bytes);
	free(buf);
	return err ? -1 : 0;
}

/* The first connection carried the hello; accept count more. */
static int serve_connect(int lfd, int first, const struct hello *h)
{
	static int fds[MAX_CONNS + 1];
	uint32_t i;
	char c = 1;
	int err = 0;

	fds[0] = first;
	if (write_full(first, &c, 1))
		return -1;
	for (i = 1; i <= h->count; i++) {
		fds[i] = accept(lfd, NULL, NULL);
		if (fds[i] < 0 || write_full(fds[i], &c, 1)) {
			err = -1;
			break;
		}
	}
	/* Hold them until the client closes the first one: it is done. */
	if (!err)
		err = read(first, &c, 1) == 0 ? 0 : -1;
	while (i > 1)
		close(fds[--i]);
	return err;
}

static int server(const char *port)
{
	struct addrinfo *ai = resolve("tcp_bench", NULL, port, 0);
	struct hello h;
	int lfd, fd, err, zero = 0, one = 1;

	if (!ai)
		exit(1);
	lfd = socket(ai->ai_family, SOCK_STREAM, 0);
	if (lfd < 0)
		goto err_sys;
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(lfd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (bind(lfd, ai->ai_addr, ai->ai_addrlen) || listen(lfd, MAX_CONNS))
		goto err_sys;
	freeaddrinfo(ai);
	fd = accept(lfd, NULL, NULL);
	if (fd < 0)
		goto err_sys;
	if (read_full(fd, &h, sizeof(h)) || h.magic != HELLO_MAGIC ||
	    h.bytes > MAX_BYTES || !h.bytes || h.count > MAX_CONNS * 1024u) {
		fprintf(stderr, "tcp_bench: bad request from the client\n");
		return 1;
	}
	switch (h.mode) {
	case MODE_STREAM:
		err = serve_stream(fd, &h);
		break;
	case MODE_RR:
		err = serve_rr(fd, &h);
		break;
	case MODE_CONNECT:
		err = h.count <= MAX_CONNS ? serve_connect(lfd, fd, &h) : -1;
		break;
	default:
		err = -1;
	}
	close(fd);
	close(lfd);
	if (err)
		fprintf(stderr, "tcp_bench: server: the run failed\n");
	return err ? 1 : 0;

err_sys:
	perror("tcp_bench: server");
	return 1;
}

/* --- client -------------------------------------------------------------- */

static int dial(struct addrinfo *ai, int flags)
{
	int fd = socket(ai->ai_family, SOCK_STREAM | flags, 0);

	if (fd < 0)
		return -1;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	return fd;
}

static int run_stream(int fd, uint32_t bytes, double secs)
{
	char *buf = malloc(bytes);
	uint64_t sent = 0, got;
	double t0, t1;

	if (!buf)
		return -1;
	memset(buf, 0x5a, bytes);
	t0 = now();
	do {
		if (write_full(fd, buf, bytes))
			goto err;
		sent += bytes;
	} while (now() - t0 < secs);
	shutdown(fd, SHUT_WR);
	if (read_full(fd, &got, sizeof(got)))
		goto err;
	t1 = now();
	free(buf);
	if (got != sent) {
		fprintf(stderr, "tcp_bench: sent %llu bytes, server read %llu\n",
			(unsigned long long)sent, (unsigned long long)got);
		return -1;
	}
	printf("mibps=%.2f bytes=%llu secs=%.3f\n", got / (t1 - t0) / 1048576,
	       (unsigned long long)got, t1 - t0);
	return 0;
err:
	free(buf);
	return -1;
}

static int run_rr(int fd, uint32_t bytes, uint32_t iters)
{
	char *buf = malloc(bytes);
	double *rtt = calloc(iters, sizeof(*rtt));
	uint32_t i;
	int err = -1;

	if (!buf || !rtt)
		goto out;
	memset(buf, 0xa5, bytes);
	set_nodelay(fd);
	for (i = 0; i < iters; i++) {
		double t0 = now();

		if (write_full(fd, buf, bytes) || read_full(fd, buf, bytes))
			goto out;
		rtt[i] = (now() - t0) * 1e6;
	}
	qsort(rtt, iters, sizeof(*rtt), cmp_double);
	printf("lat_us=%.2f rtt_us=%.2f iters=%u\n", rtt[iters / 2] / 2,
	       rtt[iters / 2], iters);
	err = 0;
out:
	free(buf);
	free(rtt);
	return err;
}

/* Waits until every fd in @fds has @events; -1 after 30 s. */
static int wait_all(struct pollfd *fds, uint32_t n, short events)
{
	double deadline = now() + 30;
	uint32_t left = n, i;

	for (i = 0; i < n; i++)
		fds[i].events = events;
	while (left) {
		int r = poll(fds, n, 1000);

		if (r < 0 && errno != EINTR)
			return -1;
		if (now() > deadline)
			return -1;
		for (i = 0; i < n && r > 0; i++) {
			if (fds[i].fd < 0 || !fds[i].revents)
				continue;
			if (fds[i].revents & (POLLERR | POLLHUP))
				return -1;
			fds[i].fd = -fds[i].fd - 1;	/* done: poll skips it */
			left--;
		}
	}
	for (i = 0; i < n; i++)
		fds[i].fd = -fds[i].fd - 1;
	return 0;
}

/*
 * The first connection is already established and carried the hello;
 * @conns more are opened together, as cmtime opens its rdma_cm ones.
 */
static int run_connect(int first, struct addrinfo *ai, uint32_t conns)
{
	static struct pollfd fds[MAX_CONNS];
	uint32_t i, opened = 0;
	double t0, t1;
	int err = -1;
	char c;

	if (read_full(first, &c, 1))
		return -1;
	t0 = now();
	for (; opened < conns; opened++) {
		fds[opened].fd = dial(ai, SOCK_NONBLOCK);
		if (fds[opened].fd < 0)
			goto out;
	}
	/* Established on our side, then accepted on the server's. */
	if (wait_all(fds, conns, POLLOUT) || wait_all(fds, conns, POLLIN))
		goto out;
	for (i = 0; i < conns; i++)
		if (read(fds[i].fd, &c, 1) != 1)
			goto out;
	t1 = now();
	printf("conn_per_s=%.1f conns=%u secs=%.3f\n", conns / (t1 - t0),
	       conns, t1 - t0);
	err = 0;
out:
	for (i = 0; i < opened; i++)
		close(fds[i].fd);
	return err;
}

static int client(const char *host, const char *port, int mode,
		  uint32_t bytes, uint32_t count, double secs)
{
	struct addrinfo *ai = resolve("tcp_bench", host, port, 0);
	struct hello h = {
		.magic = HELLO_MAGIC, .mode = mode, .bytes = bytes,
		.count = count,
	};
	int fd, err;

	if (!ai)
		exit(1);
	fd = dial(ai, 0);
	if (fd < 0 || write_full(fd, &h, sizeof(h))) {
		perror("tcp_bench: connect");
		return 1;
	}
	switch (mode) {
	case MODE_STREAM:
		err = run_stream(fd, bytes, secs);
		break;
	case MODE_RR:
		err = run_rr(fd, bytes, count);
		break;
	default:
		err = run_connect(fd, ai, count);
		break;
	}
	close(fd);
	freeaddrinfo(ai);
	if (err)
		fprintf(stderr, "tcp_bench: the run failed\n");
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	const char *host = NULL, *port = DEFAULT_PORT;
	uint32_t bytes = 0, count = 0;
	int is_server = 0, mode = 0, opt;
	double secs = 5;

	while ((opt = getopt(argc, argv, "sc:p:m:l:n:t:")) != -1) {
		switch (opt) {
		case 's':
			is_server = 1;
			break;
		case 'c':
			host = optarg;
			break;
		case 'p':
			port = optarg;
			break;
		case 'm':
			if (!strcmp(optarg, "stream"))
				mode = MODE_STREAM;
			else if (!strcmp(optarg, "rr"))
				mode = MODE_RR;
			else if (!strcmp(optarg, "connect"))
				mode = MODE_CONNECT;
			else
				usage();
			break;
		case 'l':
			bytes = number("tcp_bench", optarg, 0, 1, MAX_BYTES,
				       usage);
			break;
		case 'n':
			count = number("tcp_bench", optarg, 0, 1, 10000000,
				       usage);
			break;
		case 't':
			secs = number("tcp_bench", optarg, 0, 1, 3600, usage);
			break;
		default:
			usage();
		}
	}
	if (optind != argc || is_server == !!host)
		usage();
	if (is_server)
		return mode || bytes || count ? (usage(), 2) : server(port);
	if (!mode)
		usage();
	if (!bytes)
		bytes = mode == MODE_STREAM ? 65536 : 8;
	if (!count)
		count = mode == MODE_RR ? 10000 : 100;
	if (mode == MODE_CONNECT && count > MAX_CONNS)
		usage();
	return client(host, port, mode, bytes, count, secs);
}
