/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The mempool's control path that is the same in a native build and in one
 * hosted by a DPDK application: dvp_mempool.h includes it once the pool's
 * types are known (dvpmd's own, or DPDK's rte_mempool under dvpmd's names
 * in dvp_mempool_host.h).
 */

#ifndef DVP_MEMPOOL_CTRL_H
#define DVP_MEMPOOL_CTRL_H

#include <stdbool.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

struct dvp_mempool;
struct dvp_mempool_memhdr;

/** Called once per object at creation (after the debug cookies are set). */
typedef void dvp_mempool_obj_cb_t(struct dvp_mempool *mp, void *opaque, void *obj,
				  unsigned int obj_idx);
/** Called once per memory chunk. */
typedef void dvp_mempool_mem_cb_t(struct dvp_mempool *mp, void *opaque,
				  const struct dvp_mempool_memhdr *memhdr, unsigned int mem_idx);

/**
 * Create a pool of @p n objects of @p elt_size bytes on NUMA node
 * @p socket_id, each passed once to @p obj_init (may be NULL).
 *
 * @param name  unique, up to DVP_MEMPOOL_NAMESIZE - 1 characters
 * @param cache_size  objects per lcore cache: 0 for none, else at most
 *   DVP_MEMPOOL_CACHE_MAX_SIZE and such that 1.5 x cache_size <= n. A size
 *   that divides n leaves no object stranded in caches (DPDK's advice).
 * @param elt_size  1 to 2^30 bytes
 * @param private_data_size  bytes the pool's user keeps with the pool
 *   (dvp_mempool_get_priv()), zeroed: 0 to 2^30
 * @param flags  DVP_MEMPOOL_F_*
 * @return the pool, or NULL with dvp_errno set after a log line: EINVAL
 *   (bad argument: the message names it and the valid range), EEXIST (name
 *   taken), ENOMEM (no room on the node), E_DVP_NO_INIT.
 */
struct dvp_mempool *dvp_mempool_create(const char *name, unsigned int n, unsigned int elt_size,
				       unsigned int cache_size, unsigned int private_data_size,
				       dvp_mempool_obj_cb_t *obj_init, void *obj_init_arg,
				       int socket_id, unsigned int flags);

/**
 * Free a pool and its memory (NULL is fine). Objects still in use become
 * invalid: free a pool once its in-use count is 0 (a warning says how many
 * were still out otherwise).
 */
void dvp_mempool_free(struct dvp_mempool *mp);

/** @return the pool named @p name, or NULL with dvp_errno = ENOENT. */
struct dvp_mempool *dvp_mempool_lookup(const char *name);

/**
 * Call @p cb for each memory chunk, in address order.
 * @return the number of chunks.
 */
unsigned int dvp_mempool_mem_iter(struct dvp_mempool *mp, dvp_mempool_mem_cb_t *cb, void *opaque);

/**
 * Call @p cb for each object, free or not, in address order.
 * @return the number of objects.
 */
unsigned int dvp_mempool_obj_iter(struct dvp_mempool *mp, dvp_mempool_obj_cb_t *cb, void *opaque);

/** Whether @p addr lies in one of the pool's memory chunks. */
bool dvp_mempool_contains(const struct dvp_mempool *mp, const void *addr);

/** Print the pool's geometry, counts and caches to @p f. */
void dvp_mempool_dump(FILE *f, const struct dvp_mempool *mp);

#ifdef __cplusplus
}
#endif

#endif /* DVP_MEMPOOL_CTRL_H */
