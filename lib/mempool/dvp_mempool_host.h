/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * dvp_mempool.h in a build hosted by a DPDK application (DVP_HOST_DPDK:
 * drivers/dpdk/net_dvp). A dvp pool is DPDK's rte_mempool there: the pool an
 * application gives rx_queue_setup goes to the dvp queue as it is, the
 * queue fills its descriptors from it, and an mbuf DPDK frees returns
 * where the dvp queue took it. DPDK's per-lcore caches key on DPDK's lcore
 * ids, which are dvpmd's in a hosted runtime. The struct names are DPDK's
 * (the fields dvpmd reads, name, size, nb_mem_chunks and the memory
 * chunks' addr and len, have the same names in both), the functions
 * dvpmd's. Not installed: only the hosted build sees it.
 */

#ifndef DVP_MEMPOOL_HOST_H
#define DVP_MEMPOOL_HOST_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <rte_lcore.h>
#include <rte_mempool.h>
#include <rte_ring.h>

/* What dvp_mempool.h brings along, for the files that rely on it. */
#include <dvp_common.h>
#include <dvp_errno.h>
#include <dvp_lcore.h>
#include <dvp_memzone.h>
#include <dvp_ring.h>

#define dvp_mempool rte_mempool
#define dvp_mempool_memhdr rte_mempool_memhdr
#define dvp_mempool_cache rte_mempool_cache

#define DVP_MEMPOOL_NAMESIZE RTE_MEMPOOL_NAMESIZE
#define DVP_MEMPOOL_CACHE_MAX_SIZE RTE_MEMPOOL_CACHE_MAX_SIZE
#define DVP_MEMPOOL_F_NO_CACHE_ALIGN RTE_MEMPOOL_F_NO_CACHE_ALIGN
#define DVP_MEMPOOL_F_SP_PUT RTE_MEMPOOL_F_SP_PUT
#define DVP_MEMPOOL_F_SC_GET RTE_MEMPOOL_F_SC_GET

#include "dvp_mempool_ctrl.h"

/* Pool events are DPDK's (same values, same callback shape): see dvp_mempool.h. */
#define dvp_mempool_event rte_mempool_event
#define DVP_MEMPOOL_EVENT_READY RTE_MEMPOOL_EVENT_READY
#define DVP_MEMPOOL_EVENT_DESTROY RTE_MEMPOOL_EVENT_DESTROY
typedef rte_mempool_event_callback dvp_mempool_event_cb_t;

static inline int dvp_mempool_event_callback_register(dvp_mempool_event_cb_t *cb, void *arg)
{
	int ret = rte_mempool_event_callback_register(cb, arg);

	if (ret < 0)
		dvp_errno = -ret;
	return ret;
}

static inline int dvp_mempool_event_callback_unregister(dvp_mempool_event_cb_t *cb, void *arg)
{
	int ret = rte_mempool_event_callback_unregister(cb, arg);

	if (ret < 0)
		dvp_errno = -ret;
	return ret;
}

/* Every pool of the process: DPDK's list. */
static inline void dvp_mempool_walk(void (*fn)(struct dvp_mempool *mp, void *arg), void *arg)
{
	rte_mempool_walk(fn, arg);
}

/* Pools DPDK marks as not for device I/O (no IOVA behind them). */
static inline bool dvp_mempool_is_non_io(const struct dvp_mempool *mp)
{
	return (mp->flags & RTE_MEMPOOL_F_NON_IO) != 0;
}

static inline unsigned int dvp_mempool_avail_count(const struct dvp_mempool *mp)
{
	return rte_mempool_avail_count(mp);
}

static inline unsigned int dvp_mempool_in_use_count(const struct dvp_mempool *mp)
{
	return rte_mempool_in_use_count(mp);
}

static inline bool dvp_mempool_full(const struct dvp_mempool *mp)
{
	return rte_mempool_full(mp) != 0;
}

static inline bool dvp_mempool_empty(const struct dvp_mempool *mp)
{
	return rte_mempool_empty(mp) != 0;
}

static inline void *dvp_mempool_get_priv(struct dvp_mempool *mp)
{
	return rte_mempool_get_priv(mp);
}

/* DPDK's debug build has its own cookies; dvpmd counts none here. */
static inline uint64_t dvp_mempool_debug_errors(const struct dvp_mempool *mp)
{
	(void)mp;
	return 0;
}

/*
 * DPDK's mempool ops whose pools keep their free objects in a plain
 * rte_ring (pool_data, one pointer a slot): bit i for the ops at index i
 * of rte_mempool_ops_table. Set by dvp_mempool_host_init() when the
 * hosted runtime starts; a pool of other ops goes through its ops.
 */
extern uint32_t dvp_mempool_host_ring_ops;

/* Find DPDK's ring ops (by name) for the ring paths below. Idempotent. */
void dvp_mempool_host_init(void);

/*
 * The ring's own head and tail moves (DPDK's, for its MT and ST rings),
 * the slots copied with memcpy in between, where DPDK's ring copies a
 * pointer at a time: @return 0, or -ENOENT with nothing taken.
 */
static __dvp_always_inline int __dvp_mempool_ring_get(struct rte_ring *r, void **obj,
						      unsigned int n)
{
	void *const *slots = (void *const *)(void *)(r + 1);
	uint32_t head, next, avail, idx, first;

	if (__rte_ring_move_cons_head(r, r->cons.single, n, RTE_RING_QUEUE_FIXED, &head, &next,
				      &avail) == 0)
		return -ENOENT;
	idx = head & r->mask;
	first = RTE_MIN(n, r->size - idx);
	memcpy(obj, &slots[idx], sizeof(void *) * first);
	if (dvp_unlikely(first < n))
		memcpy(obj + first, slots, sizeof(void *) * (n - first));
	__rte_ring_update_tail(&r->cons, head, next, r->cons.single, 0);
	return 0;
}

static __dvp_always_inline void __dvp_mempool_ring_put(struct rte_ring *r, void *const *obj,
						       unsigned int n)
{
	void **slots = (void **)(void *)(r + 1);
	uint32_t head, next, room, idx, first;

	/* Cannot fail: the ring holds every object of its pool. */
	if (__rte_ring_move_prod_head(r, r->prod.single, n, RTE_RING_QUEUE_FIXED, &head, &next,
				      &room) == 0)
		return;
	idx = head & r->mask;
	first = RTE_MIN(n, r->size - idx);
	memcpy(&slots[idx], obj, sizeof(void *) * first);
	if (dvp_unlikely(first < n))
		memcpy(slots, obj + first, sizeof(void *) * (n - first));
	__rte_ring_update_tail(&r->prod, head, next, r->prod.single, 1);
}

/* The pool's ring behind the cache, when the ring paths above can take it, else NULL. */
static __dvp_always_inline struct rte_ring *__dvp_mempool_plain_ring(const struct dvp_mempool *mp)
{
	struct rte_ring *r = mp->pool_data;

	if (!((__atomic_load_n(&dvp_mempool_host_ring_ops, __ATOMIC_RELAXED) >> mp->ops_index) & 1))
		return NULL;
	if (r->prod.sync_type > RTE_RING_SYNC_ST || r->cons.sync_type > RTE_RING_SYNC_ST)
		return NULL;
	return r;
}

static __dvp_always_inline int __dvp_mempool_backend_get(struct dvp_mempool *mp, void **obj,
							 unsigned int n)
{
	struct rte_ring *r = __dvp_mempool_plain_ring(mp);

	return dvp_likely(r != NULL) ? __dvp_mempool_ring_get(r, obj, n) :
				       rte_mempool_ops_dequeue_bulk(mp, obj, n);
}

static __dvp_always_inline void __dvp_mempool_backend_put(struct dvp_mempool *mp, void *const *obj,
							  unsigned int n)
{
	struct rte_ring *r = __dvp_mempool_plain_ring(mp);

	if (dvp_likely(r != NULL))
		__dvp_mempool_ring_put(r, obj, n);
	else
		rte_mempool_ops_enqueue_bulk(mp, obj, n);
}

#include "dvp_mempool_cache.h"

/*
 * The dvp queues' gets and puts: through the calling lcore's DPDK cache by
 * DPDK's rules (its lcore id, the most recently put objects out first, the
 * flush threshold, the pool's ring or ops behind it), but copied with memcpy
 * where DPDK's inline get copies one pointer at a time, backwards; a cache
 * that runs short is refilled to its size plus the request in one ring
 * access, as DPDK's does, and a request larger than the cache goes to the
 * ring alone. Anything else (no cache, a ring that cannot give what is
 * asked) is left to DPDK's functions.
 */
static __dvp_always_inline void dvp_mempool_put_bulk(struct dvp_mempool *mp, void *const *obj_table,
						     unsigned int n)
{
	struct rte_mempool_cache *c = rte_mempool_default_cache(mp, rte_lcore_id());

	if (dvp_unlikely(c == NULL)) {
		rte_mempool_put_bulk(mp, obj_table, n);
		return;
	}
	if (dvp_unlikely(n > c->flushthresh)) {
		/* More than the cache takes: straight to the ring, as DPDK's put. */
		__dvp_mempool_backend_put(mp, obj_table, n);
		return;
	}
	__dvp_mempool_cache_put(mp, c, obj_table, n);
}

static __dvp_always_inline void dvp_mempool_put(struct dvp_mempool *mp, void *obj)
{
	rte_mempool_put(mp, obj);
}

/* All or none; -ENOENT as dvpmd's (DPDK says -ENOBUFS). */
static __dvp_always_inline int dvp_mempool_get_bulk(struct dvp_mempool *mp, void **obj_table,
						    unsigned int n)
{
	struct rte_mempool_cache *c = rte_mempool_default_cache(mp, rte_lcore_id());
	unsigned int len;

	if (dvp_unlikely(c == NULL))
		goto dpdk;
	if (dvp_unlikely(n > c->size)) {
		/* More than the cache holds: straight from the ring. */
		if (__dvp_mempool_backend_get(mp, obj_table, n) == 0)
			return 0;
		goto dpdk;
	}
	len = c->len;
	if (dvp_unlikely(len < n)) {
		/* At most twice the cache's size: objs[] holds that many. */
		unsigned int req = c->size + n - len;

		if (__dvp_mempool_backend_get(mp, &c->objs[len], req) < 0)
			goto dpdk; /* the ring is short: DPDK's get takes what there is */
		len += req;
	}
	len -= n;
	memcpy(obj_table, &c->objs[len], sizeof(void *) * n);
	c->len = len;
	return 0;
dpdk:
	return rte_mempool_get_bulk(mp, obj_table, n) == 0 ? 0 : -ENOENT;
}

static __dvp_always_inline int dvp_mempool_get(struct dvp_mempool *mp, void **obj_p)
{
	return dvp_mempool_get_bulk(mp, obj_p, 1);
}

/*
 * dvp_mempool.h's zero-copy get on DPDK's cache (DPDK 22.11 has none of
 * its own): @p n objects taken off the top of the calling lcore's cache,
 * refilled first as dvp_mempool_get_bulk() does, and read where they lie.
 * NULL, nothing taken, with no cache, @p n not below the cache's size or
 * the ring short: the caller then gets them the copying way, which leaves
 * a short ring to DPDK's get.
 */
static __dvp_always_inline void **dvp_mempool_cache_zc_get_bulk(struct dvp_mempool *mp,
								unsigned int n)
{
	struct rte_mempool_cache *c = rte_mempool_default_cache(mp, rte_lcore_id());
	unsigned int len;

	if (dvp_unlikely(c == NULL || n >= c->size))
		return NULL;
	len = c->len;
	if (dvp_unlikely(len < n)) {
		unsigned int req = c->size + n - len;

		if (__dvp_mempool_backend_get(mp, &c->objs[len], req) < 0)
			return NULL;
		len += req;
	}
	c->len = len - n;
	return &c->objs[len - n];
}

#endif /* DVP_MEMPOOL_HOST_H */
