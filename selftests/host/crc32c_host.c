// SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
/*
 * CRC32c for host builds of the protocol core, with the semantics of the
 * kernel's crc32c(): the register starts at seed, absorbs the bytes, and
 * is returned as is: no inversion on the way in or out.
 *
 * Castagnoli polynomial 0x1edc6f41, processed reflected (0x82f63b78), one
 * byte per step through a 256-entry table built on first use.
 */
#include "proto_platform.h"

#define CRC32C_POLY_REFLECTED 0x82f63b78U

static u32 table[256];
static bool table_ready;

static void table_init(void)
{
	u32 i, bit, c;

	for (i = 0; i < 256; i++) {
		c = i;
		for (bit = 0; bit < 8; bit++)
			c = c & 1 ? (c >> 1) ^ CRC32C_POLY_REFLECTED : c >> 1;
		table[i] = c;
	}
	table_ready = true;
}

u32 siw_crc32c(u32 seed, const void *p, size_t n)
{
	const u8 *b = p;

	if (!table_ready)
		table_init();
	while (n--)
		seed = table[(seed ^ *b++) & 0xff] ^ (seed >> 8);
	return seed;
}
