// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#define _GNU_SOURCE
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "net.h"

static int home_ns = -1;

void ns_remember_home(void)
{
	home_ns = open("/proc/self/ns/net", O_RDONLY);
}

int enter_ns(const char *name)
{
	char path[256];
	int fd, err;

	if (!name)
		return setns(home_ns, CLONE_NEWNET);
	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	err = setns(fd, CLONE_NEWNET);
	close(fd);
	return err;
}

struct addrinfo *resolve(const char *prog, const char *host,
			 const char *port, int flags)
{
	struct addrinfo hints = {
		.ai_socktype = SOCK_STREAM,
		.ai_flags = flags | (host ? 0 : AI_PASSIVE),
		.ai_family = host ? AF_UNSPEC : AF_INET6,
	};
	struct addrinfo *ai;
	int err = getaddrinfo(host, port, &hints, &ai);

	if (err) {
		if (prog)
			fprintf(stderr, "%s: %s: %s\n", prog,
				host ? host : "[::]", gai_strerror(err));
		return NULL;
	}
	return ai;
}

int addr_of(const char *host, int port, struct sockaddr_storage *ss,
	    socklen_t *len)
{
	struct addrinfo *ai;
	char p[8];

	snprintf(p, sizeof(p), "%d", port);
	ai = resolve(NULL, host, p, AI_NUMERICHOST);
	if (!ai)
		return -1;
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	if (len)
		*len = ai->ai_addrlen;
	freeaddrinfo(ai);
	return 0;
}

unsigned int port_of(const struct sockaddr_storage *ss)
{
	return ntohs(ss->ss_family == AF_INET6 ?
		     ((const struct sockaddr_in6 *)ss)->sin6_port :
		     ((const struct sockaddr_in *)ss)->sin_port);
}

void set_nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}
