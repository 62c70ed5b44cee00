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
#include "ktap.h"

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
	ktap_header();
	ktap_plan(1);
	ktap_ok(false, "system <rdma/siw-abi.h> not found: install libibverbs-dev");
	return ktap_finished();
#else
	int n = count(abi_ours), i;

	ktap_header();
	ktap_plan(n + 1);
	if (count(abi_system) != n) {
		ktap_ok(false, "fact tables differ in length (%d vs %d)", n,
			count(abi_system));
		return ktap_finished();
	}
	ktap_ok(true, "both headers describe %d facts", n);
	for (i = 0; i < n; i++) {
		const struct abi_fact *o = &abi_ours[i], *s = &abi_system[i];

		ktap_ok(!strcmp(o->name, s->name) && o->value == s->value,
			"%s: ours %llu, system %llu", o->name,
			(unsigned long long)o->value,
			(unsigned long long)s->value);
	}
	return ktap_finished();
#endif
}
