/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * Big-endian fields of wire formats and frames, at any alignment: put and
 * get a 16-, 32- or 64-bit value in network byte order at a byte pointer.
 */

#ifndef DVP_BYTEORDER_H
#define DVP_BYTEORDER_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Store @p v at @p p, most significant byte first. */
static inline void dvp_be16_put(void *p, uint16_t v)
{
	v = htobe16(v);
	memcpy(p, &v, sizeof(v));
}

/** Store @p v at @p p, most significant byte first. */
static inline void dvp_be32_put(void *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, sizeof(v));
}

/** Store @p v at @p p, most significant byte first. */
static inline void dvp_be64_put(void *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, sizeof(v));
}

/** The 16-bit value at @p p, most significant byte first. */
static inline uint16_t dvp_be16_get(const void *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return be16toh(v);
}

/** The 32-bit value at @p p, most significant byte first. */
static inline uint32_t dvp_be32_get(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return be32toh(v);
}

/** The 64-bit value at @p p, most significant byte first. */
static inline uint64_t dvp_be64_get(const void *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return be64toh(v);
}

#ifdef __cplusplus
}
#endif

#endif /* DVP_BYTEORDER_H */
