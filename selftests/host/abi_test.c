// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * Host test: our uapi/rdma/siw-abi.h must be binary-identical to the
 * system's <rdma/siw-abi.h> (rdma-core's copy, the one the stock siw
 * provider is built with). Prints TAP, one line per fact.
 *
 * Built without the system header (HAVE_SYSTEM_ABI undefined), it says so
 * and fails: the ABI is a contract we cannot check without the other side.
 */
#include <stdio.h>
#include <string.h>
#include "abi_table.h"

static int count(const struct abi_fact *t)
{
	int n = 0;

	while (t[n].name)
		n++;
	return n;
}

int main(void)
{
#ifndef HAVE_SYSTEM_ABI
	printf("TAP version 13\n1..1\n");
	printf("not ok 1 - system <rdma/siw-abi.h> not found: install libibverbs-dev\n");
	return 1;
#else
	int n = count(abi_ours), failed = 0, i;

	printf("TAP version 13\n1..%d\n", n + 1);
	if (count(abi_system) != n) {
		printf("not ok 1 - fact tables differ in length (%d vs %d)\n",
		       n, count(abi_system));
		return 1;
	}
	printf("ok 1 - both headers describe %d facts\n", n);
	for (i = 0; i < n; i++) {
		const struct abi_fact *o = &abi_ours[i], *s = &abi_system[i];
		int ok = !strcmp(o->name, s->name) && o->value == s->value;

		if (!ok)
			failed++;
		printf("%sok %d - %s: ours %llu, system %llu\n", ok ? "" : "not ",
		       i + 2, o->name, (unsigned long long)o->value,
		       (unsigned long long)s->value);
	}
	return failed ? 1 : 0;
#endif
}
