/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/*
 * KTAP output (the kernel's Documentation/dev-tools/ktap.rst) for the host
 * tests and the test programs of userspace/: one "ok N DESC" or
 * "not ok N DESC" line per case, numbered from 1, "# " diagnostics, and
 * kselftest's exit codes.
 *
 *	ktap_header();
 *	ktap_ok(len == 20, "mpa: a frame of %u bytes", len);
 *	return ktap_finished();
 *
 * A program that knows its number of cases states it with ktap_plan()
 * after the header; otherwise ktap_finished() prints the plan last, so
 * that a program that died halfway has none and its runner can tell
 * (tap_prog in selftests/tests/lib.sh).
 */
#ifndef SIW_KTAP_H
#define SIW_KTAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

/* kselftest's exit codes */
#define KTAP_EXIT_PASS	0
#define KTAP_EXIT_FAIL	1
#define KTAP_EXIT_SKIP	4

struct ktap_state {
	unsigned int cases, failed, skipped;
	bool planned;
};

/*
 * One count per program: a program of several files defines KTAP_SHARED
 * before it includes this, in each file, and KTAP_STATE_DEFINE; in one.
 */
#ifdef KTAP_SHARED
extern struct ktap_state ktap;
#define KTAP_STATE_DEFINE	struct ktap_state ktap
#else
static struct ktap_state ktap;
#endif

/*
 * Every line goes out at once: a crash or a kill must not take the cases
 * before it along, and a forked child must not print them twice.
 */
static inline void ktap_line_end(void)
{
	putchar('\n');
	fflush(stdout);
}

static inline void ktap_header(void)
{
	printf("KTAP version 1");
	ktap_line_end();
}

static inline void ktap_plan(unsigned int cases)
{
	printf("1..%u", cases);
	ktap_line_end();
	ktap.planned = true;
}

/* One case, passed when cond holds; returns cond. */
static inline bool ktap_vok(bool cond, const char *fmt, va_list ap)
{
	ktap.cases++;
	if (!cond)
		ktap.failed++;
	printf("%sok %u ", cond ? "" : "not ", ktap.cases);
	vprintf(fmt, ap);
	ktap_line_end();
	return cond;
}

static inline bool __attribute__((format(printf, 2, 3)))
ktap_ok(bool cond, const char *fmt, ...)
{
	va_list ap;
	bool r;

	va_start(ap, fmt);
	r = ktap_vok(cond, fmt, ap);
	va_end(ap);
	return r;
}

/* A case not run, with why; it counts as neither passed nor failed. */
static inline void __attribute__((format(printf, 2, 3)))
ktap_skip(const char *reason, const char *fmt, ...)
{
	va_list ap;

	ktap.cases++;
	ktap.skipped++;
	printf("ok %u ", ktap.cases);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(" # SKIP %s", reason);
	ktap_line_end();
}

static inline void __attribute__((format(printf, 1, 2)))
ktap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	ktap_line_end();
}

/* How many cases failed so far. */
static inline unsigned int ktap_failures(void)
{
	return ktap.failed;
}

/*
 * The plan, unless stated before, and the exit code: a failure fails,
 * cases all skipped are a skip.
 */
static inline int ktap_finished(void)
{
	if (!ktap.planned)
		ktap_plan(ktap.cases);
	if (ktap.failed)
		return KTAP_EXIT_FAIL;
	if (ktap.cases && ktap.skipped == ktap.cases)
		return KTAP_EXIT_SKIP;
	return KTAP_EXIT_PASS;
}

#endif /* SIW_KTAP_H */
