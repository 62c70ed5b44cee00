/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
#ifndef ABI_TABLE_H
#define ABI_TABLE_H
#include <stdint.h>

struct abi_fact {
	const char *name;
	uint64_t value;
};

extern const struct abi_fact abi_ours[];
extern const struct abi_fact abi_system[];
#endif
