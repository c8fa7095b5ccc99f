/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * Copying a packet's bytes on the fast path.
 *
 * Drivers that copy frames (memif's copy mode) mostly copy 64 to 128
 * bytes, a length known only at run time. The C library's
 * memcpy() is then a call through the PLT into a routine that dispatches
 * on the length: about as much work as the copy itself. dvp_memcpy()
 * copies up to 128 bytes inline as two possibly overlapping runs of
 * 16-byte moves, one from each end, with no loop and no byte tail, and
 * leaves larger copies to memcpy(), which is faster for them.
 */

#ifndef DVP_MEMCPY_H
#define DVP_MEMCPY_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <dvp_common.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Copy @p size bytes from both ends of [s, s + n) (size <= n <= 2 * size): constant sizes, so moves. */
#define DVP_MEMCPY_ENDS_(d, s, n, size)                                 \
	do {                                                            \
		memcpy((d), (s), (size));                               \
		memcpy((d) + (n) - (size), (s) + (n) - (size), (size)); \
	} while (0)

/**
 * Copy @p n bytes from @p src to @p dst, which must not overlap, as
 * memcpy() does: inline for up to 128 bytes.
 */
static __dvp_always_inline void dvp_memcpy(void *dst, const void *src, size_t n)
{
	uint8_t *d = (uint8_t *)dst;
	const uint8_t *s = (const uint8_t *)src;

	if (dvp_likely(n > 16)) {
		if (n <= 32)
			DVP_MEMCPY_ENDS_(d, s, n, 16);
		else if (n <= 64)
			DVP_MEMCPY_ENDS_(d, s, n, 32);
		else if (n <= 128)
			DVP_MEMCPY_ENDS_(d, s, n, 64);
		else
			memcpy(d, s, n);
		return;
	}
	if (n >= 8)
		DVP_MEMCPY_ENDS_(d, s, n, 8);
	else if (n >= 4)
		DVP_MEMCPY_ENDS_(d, s, n, 4);
	else if (n >= 2)
		DVP_MEMCPY_ENDS_(d, s, n, 2);
	else if (n == 1)
		*d = *s;
}

#ifdef __cplusplus
}
#endif

#endif /* DVP_MEMCPY_H */
