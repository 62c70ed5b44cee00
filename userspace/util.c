// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

unsigned long number(const char *prog, const char *s, int base,
		     unsigned long min, unsigned long max,
		     void (*usage)(void))
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, base);
	if (errno || end == s || *end || v < min || v > max) {
		fprintf(stderr, "%s: %s: not a number in %lu..%lu\n", prog, s,
			min, max);
		usage();
	}
	return v;
}

/* Retried on EINTR; a socket's SO_RCVTIMEO still ends it (EAGAIN). */
static int io_full(int fd, void *buf, size_t len, int writing)
{
	char *p = buf;

	while (len) {
		ssize_t n = writing ? write(fd, p, len) : read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

int read_full(int fd, void *buf, size_t len)
{
	return io_full(fd, buf, len, 0);
}

int write_full(int fd, const void *buf, size_t len)
{
	return io_full(fd, (void *)buf, len, 1);
}

static const char *case_name(const void *table, size_t size, size_t i)
{
	return *(const char *const *)((const char *)table + i * size);
}

int case_index(const void *table, size_t n, size_t size, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(case_name(table, size, i), name))
			return (int)i;
	return -1;
}

const char *case_unknown(const void *table, size_t n, size_t size,
			 char *const *names, int count)
{
	int a;

	for (a = 0; a < count; a++)
		if (case_index(table, n, size, names[a]) < 0)
			return names[a];
	return NULL;
}

int case_wanted(const char *name, char *const *names, int count)
{
	int a, want = !count;

	for (a = 0; a < count; a++)
		want |= !strcmp(names[a], name);
	return want;
}

void case_list(const void *table, size_t n, size_t size)
{
	size_t i;

	for (i = 0; i < n; i++)
		fprintf(stderr, " %s", case_name(table, size, i));
}
