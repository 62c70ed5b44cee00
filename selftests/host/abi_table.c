// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * One table of ABI facts. Built twice: with ABI_TABLE=abi_ours against
 * uapi/rdma/siw-abi.h, and with ABI_TABLE=abi_system against the system's
 * <rdma/siw-abi.h>. The two headers cannot share a unit: they define the
 * same structures.
 */
#include <stddef.h>
#include <stdint.h>
#include <rdma/siw-abi.h>
#include "abi_table.h"

const struct abi_fact ABI_TABLE[] = {
#define FACT(name, value) { name, (uint64_t)(value) },
#include "abi_facts.h"
#undef FACT
	{ NULL, 0 }
};
