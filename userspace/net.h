/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/*
 * Network namespaces and addresses, for the test programs that play both
 * ends of a veth pair from one process and for the benchmark tools. No
 * RDMA library needed.
 */
#ifndef SIW_US_NET_H
#define SIW_US_NET_H

#include <netdb.h>
#include <sys/socket.h>

/*
 * Remembers the namespace the program started in, for enter_ns(NULL);
 * without it, going back fails.
 */
void ns_remember_home(void);

/* Enters network namespace name (/run/netns/NAME; NULL: home). */
int enter_ns(const char *name);

/*
 * getaddrinfo() for a stream socket; host NULL: [::] to listen on. On a
 * failure, says so (with prog in front, unless prog is NULL) and returns
 * NULL.
 */
struct addrinfo *resolve(const char *prog, const char *host,
			 const char *port, int flags);

/* The numeric address host and port into ss (its length into len). */
int addr_of(const char *host, int port, struct sockaddr_storage *ss,
	    socklen_t *len);

/* The port of a socket address, IPv4 or IPv6. */
unsigned int port_of(const struct sockaddr_storage *ss);

void set_nodelay(int fd);

#endif /* SIW_US_NET_H */
