/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/*
 * What every program of userspace/ may use, RDMA or not (tcp_bench links
 * no RDMA library): time, numbers from the command line, whole reads and
 * writes, and the table of cases a test program runs by name.
 */
#ifndef SIW_US_UTIL_H
#define SIW_US_UTIL_H

#include <stddef.h>

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* Seconds on the monotonic clock. */
double now(void);

/* For qsort() of doubles, ascending. */
int cmp_double(const void *a, const void *b);

/*
 * s as a number in min..max, read by strtoul() in base; else says so,
 * with prog in front, and calls usage(), which must not return.
 */
unsigned long number(const char *prog, const char *s, int base,
		     unsigned long min, unsigned long max,
		     void (*usage)(void));

/* All of len bytes, or -1 at EOF, on an error or at a socket timeout. */
int read_full(int fd, void *buf, size_t len);
int write_full(int fd, const void *buf, size_t len);

/*
 * A table of cases is an array of structs that each begin with the case's
 * name (const char *): these look names up in it by that first member.
 */
#define CASES(table)	(table), ARRAY_SIZE(table), sizeof((table)[0])

/* The index of name in the table, or -1. */
int case_index(const void *table, size_t n, size_t size, const char *name);

/* The first of names[0..count) that is not in the table, or NULL. */
const char *case_unknown(const void *table, size_t n, size_t size,
			 char *const *names, int count);

/* Whether name is asked for: no names at all, or among them. */
int case_wanted(const char *name, char *const *names, int count);

/* " name" for each case of the table, on stderr (for usage lines). */
void case_list(const void *table, size_t n, size_t size);

#endif /* SIW_US_UTIL_H */
