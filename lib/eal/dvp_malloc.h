/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * A heap over EAL memory (hugepages, or anonymous memory with --no-huge),
 * one per NUMA node. A request for a node is served from that node or fails:
 * it never falls back silently to another node; DVP_SOCKET_ANY asks for the
 * caller's node first and then any other.
 */

#ifndef DVP_MALLOC_H
#define DVP_MALLOC_H

#include <stddef.h>
#include <stdint.h>

#include <dvp_common.h>
#include <dvp_lcore.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @param type  a name for statistics and debugging, may be NULL
 * @param align 0 for a cache line, else a power of two
 * @return the memory, or NULL with dvp_errno = ENOMEM (the log names the
 *   node and what is free on it) or EINVAL.
 */
void *dvp_malloc_socket(const char *type, size_t size, unsigned int align, int socket_id);
void *dvp_zmalloc_socket(const char *type, size_t size, unsigned int align, int socket_id);
void *dvp_calloc_socket(const char *type, size_t num, size_t size, unsigned int align,
			int socket_id);

/** On the caller's node, or any node if it has no room. */
void *dvp_malloc(const char *type, size_t size, unsigned int align);
void *dvp_zmalloc(const char *type, size_t size, unsigned int align);
void *dvp_calloc(const char *type, size_t num, size_t size, unsigned int align);

/** Release memory from any dvp_*alloc* (NULL is fine). */
void dvp_free(void *ptr);

/** The node @p ptr's memory is on, or -1 for memory not from this heap. */
int dvp_malloc_socket_of(const void *ptr);

struct dvp_malloc_socket_stats {
	size_t heap_totalsz_bytes; /**< memory the heap holds on this node */
	size_t heap_freesz_bytes; /**< of which free */
	size_t greatest_free_size; /**< the largest single free block */
	size_t alloc_count; /**< allocations live */
	size_t hugepage_sz; /**< page size behind it (4 KiB with --no-huge) */
};

/**
 * @return 0 (all zero for a node whose heap has not grown yet), -EINVAL for
 *   a node that does not exist, -E_DVP_NO_INIT before dvp_eal_init().
 */
int dvp_malloc_get_socket_stats(int socket_id, struct dvp_malloc_socket_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* DVP_MALLOC_H */
