/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * Memzones: named, contiguous areas of EAL memory on a NUMA node, found by
 * name (rings and pools shared between components are reserved here).
 */

#ifndef DVP_MEMZONE_H
#define DVP_MEMZONE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <dvp_common.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DVP_MEMZONE_NAMESIZE 32

/** Flags for dvp_memzone_reserve*: the page size the zone must sit on. */
#define DVP_MEMZONE_2MB 0x0002u
#define DVP_MEMZONE_1GB 0x0004u
/** Give a zone on another page size if the one asked for is exhausted. */
#define DVP_MEMZONE_SIZE_HINT_ONLY 0x0008u

struct dvp_memzone {
	char name[DVP_MEMZONE_NAMESIZE];
	void *addr;
	size_t len;
	size_t hugepage_sz; /**< page size of the memory behind it (4 KiB with --no-huge) */
	int socket_id;
	unsigned int flags;
};

/**
 * Reserve @p len bytes named @p name on node @p socket_id (DVP_SOCKET_ANY
 * for any node), aligned to a cache line.
 * @return the zone, or NULL with dvp_errno: EEXIST (name taken), ENOMEM
 *   (no room on that node: the log says how much is free), EINVAL.
 */
const struct dvp_memzone *dvp_memzone_reserve(const char *name, size_t len, int socket_id,
					      unsigned int flags);

/** Same, aligned to @p align (a power of two). */
const struct dvp_memzone *dvp_memzone_reserve_aligned(const char *name, size_t len, int socket_id,
						      unsigned int flags, unsigned int align);

/** @return 0, or -EINVAL for NULL or a zone already freed. */
int dvp_memzone_free(const struct dvp_memzone *mz);

/** @return the zone named @p name, or NULL with dvp_errno = ENOENT. */
const struct dvp_memzone *dvp_memzone_lookup(const char *name);

/** Call @p fn for each zone (the zone list is locked meanwhile: do not reserve in @p fn). */
void dvp_memzone_walk(void (*fn)(const struct dvp_memzone *mz, void *arg), void *arg);

void dvp_memzone_dump(FILE *f);

#ifdef __cplusplus
}
#endif

#endif /* DVP_MEMZONE_H */
