/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * A heap over EAL memory (hugepages, or memfds of ordinary pages with --no-huge),
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

/** Largest size a heap may be asked for; above it every call fails with ENOMEM. */
#define DVP_MALLOC_SIZE_MAX (SIZE_MAX / 2)

/**
 * @param type  a name for statistics and debugging, may be NULL
 * @param align 0 for a cache line, else a power of two
 * @return the memory, or NULL with dvp_errno = ENOMEM (the log names the
 *   node and what is free on it; also for a size above DVP_MALLOC_SIZE_MAX)
 *   or EINVAL (size 0, a bad alignment or node; calloc's num * size
 *   overflowing).
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

/** One segment of EAL memory, as dvp_memseg_walk() shows it. */
struct dvp_memseg_info {
	void *addr; /**< first byte, page aligned */
	size_t len; /**< bytes, a multiple of page_sz */
	size_t page_sz; /**< hugepage size, or the system page size with --no-huge */
	int socket_id; /**< NUMA node the pages are bound to */
	/**
	 * A file descriptor of the memory behind [addr, addr + len): a
	 * hugepage file or memfd, or with --no-huge a memfd (sealed against
	 * shrinking). The EAL owns it: do not close it; dup() it (or pass it
	 * over a socket) to share the memory with another process.
	 */
	int fd;
	uint64_t offset; /**< where addr lies in the file of fd (0 today) */
};

/**
 * Call @p fn on every segment of EAL memory (the heaps of every node,
 * hence every mempool and memzone), stopping at the first call that
 * returns non-zero. The heaps are locked meanwhile: @p fn must not
 * allocate or free EAL memory. A heap may grow after the walk (a new
 * segment), never shrink while the EAL is up.
 * DPDK's counterparts: rte_memseg_walk() and rte_memseg_get_fd_thread_unsafe().
 *
 * @return 0 after every segment, the first non-zero value of @p fn, or
 *   -E_DVP_NO_INIT before dvp_eal_init() and -EINVAL for a NULL @p fn
 *   (dvp_errno set too).
 */
int dvp_memseg_walk(int (*fn)(const struct dvp_memseg_info *ms, void *arg), void *arg);

/**
 * The size of the pages behind @p addr: those of the EAL segment holding
 * it, or in a hosted runtime those of the host's memory (its pools, its
 * external memory). A driver rounds what it registers with a device to
 * them, so that neighbouring pieces of one pool make one region.
 * Control path (it walks the segments under the heaps' locks).
 * @return the page size, or 0 for memory neither the EAL nor the host
 *   knows (the caller then assumes the system page size).
 */
size_t dvp_mem_page_size(const void *addr);

#ifdef __cplusplus
}
#endif

#endif /* DVP_MALLOC_H */
