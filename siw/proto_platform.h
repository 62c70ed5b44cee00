/* SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause */
/*
 * The one shim between the protocol core (proto.h, mpa.c, fpdu.c,
 * ddp_check.c, rdmap.c, term.c, rx_stream.c, rx_decide.c) and whatever it
 * is built into.
 *
 * The core is plain C: it takes bytes and lengths, returns values, and does
 * no I/O, no allocation and no locking. All it needs from its host is:
 *
 *   u8 u16 u32 u64, __be16 __be32 __be64, bool, size_t   integer types
 *   memcpy memcmp memset                                  from <string.h>
 *   cpu_to_be16/32/64, be16/32/64_to_cpu                  byte order
 *   __packed, static_assert(expr, msg)                    layout checks
 *   siw_crc32c(seed, p, n)                                CRC32c update
 *
 * In the kernel (__KERNEL__ defined by kbuild) these come from the kernel
 * headers and siw_crc32c() is crc32c() from libcrc32c, so siw.ko depends on
 * libcrc32c. Anywhere else (the host unit tests) they come from libc, and
 * siw_crc32c() is implemented by selftests/host/crc32c_host.c. Host builds
 * need nothing but the include path: -I<top>/siw. No macro selects the host
 * side; the absence of __KERNEL__ does.
 *
 * siw_crc32c() has the kernel crc32c() semantics on both sides: it feeds
 * n bytes into a reflected CRC32c (Castagnoli, 0x82f63b78) register whose
 * current value is seed and returns the new register value. It neither
 * inverts the seed nor the result; the MPA CRC is ~siw_crc32c(~0, ...), see
 * siw_mpa_crc_*() in proto.h.
 */
#ifndef SIW_PROTO_PLATFORM_H
#define SIW_PROTO_PLATFORM_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/string.h>
#include <linux/build_bug.h>
#include <linux/compiler.h>
#include <linux/limits.h>
#include <asm/byteorder.h>
#include <linux/crc32c.h>

static inline u32 siw_crc32c(u32 seed, const void *p, size_t n)
{
	const u8 *b = p;

	/* crc32c() takes an unsigned int length. */
	while (n > UINT_MAX) {
		seed = crc32c(seed, b, UINT_MAX);
		b += UINT_MAX;
		n -= UINT_MAX;
	}
	return crc32c(seed, b, n);
}

#else /* host */

#include <assert.h>
#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
/* __be16/32/64 as the kernel's uapi headers give them to user space too. */
#include <linux/types.h>

#ifndef __packed
#define __packed __attribute__((__packed__))
#endif

#define cpu_to_be16(x) htobe16(x)
#define cpu_to_be32(x) htobe32(x)
#define cpu_to_be64(x) htobe64(x)
#define be16_to_cpu(x) be16toh(x)
#define be32_to_cpu(x) be32toh(x)
#define be64_to_cpu(x) be64toh(x)

#ifndef U32_MAX
#define U32_MAX ((u32)~0U)
#endif

/* selftests/host/crc32c_host.c */
u32 siw_crc32c(u32 seed, const void *p, size_t n);

#endif /* __KERNEL__ */

#endif /* SIW_PROTO_PLATFORM_H */
