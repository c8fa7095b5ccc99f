/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* lib/mempool internals: not installed. */

#ifndef MEMPOOL_PRIVATE_H
#define MEMPOOL_PRIVATE_H

#include <dvp_log.h>
#include <dvp_mempool.h>

extern int dvp_logtype_mempool;

#define MEMPOOL_LOG(level, fmt, ...) \
	DVP_LOG_LINE(level, dvp_logtype_mempool, "MEMPOOL: ", fmt, ##__VA_ARGS__)

/* Set once the pool is complete: lookups ignore a pool still being built. */
#define MEMPOOL_F_CREATED 0x80000000u

/* Debug layout: this header sits right before each object... */
struct mempool_objhdr {
	struct dvp_mempool *mp;
	uint64_t cookie;
};

/* ...with one of these cookies... */
#define MEMPOOL_COOKIE_FREE 0xf4ee0b1ec7f4ee00ULL
#define MEMPOOL_COOKIE_ALLOC 0xa110c8edb10c4a11ULL
/* ...and this one right after its elt_size bytes. */
#define MEMPOOL_COOKIE_TRAILER 0x7a11c00c1e7a11edULL

static inline struct mempool_objhdr *mempool_hdr(void *obj)
{
	return (struct mempool_objhdr *)(void *)((char *)obj - sizeof(struct mempool_objhdr));
}

/* Lay the debug cookies of a fresh (free) object. */
void mempool_debug_init_obj(struct dvp_mempool *mp, void *obj);

/*
 * Test hook: at most this many objects per memory chunk (0: no limit), so
 * tests see pools of several chunks. Read at creation.
 */
extern unsigned int dvp_mempool_test_max_chunk_objs;

/*
 * Test hook: bytes of heap left between consecutive chunks (0: none), so
 * tests see chunks that neither touch nor share a page. Read at creation.
 */
extern size_t dvp_mempool_test_chunk_gap;

/* mempool_event.c: call the registered callbacks on @p event for @p mp. */
void mempool_event_notify(enum dvp_mempool_event event, struct dvp_mempool *mp);

/* mempool_telemetry.c: register /mempool/list and /mempool/info. */
void mempool_telemetry_register(void);

#endif /* MEMPOOL_PRIVATE_H */
