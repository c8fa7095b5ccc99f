/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * Pools of fixed-size objects in EAL memory, with per-lcore caches, as
 * DPDK's rte_mempool.
 *
 * A pool holds @c n objects of @c elt_size bytes laid out cache-aligned in
 * one or more memory chunks on one NUMA node. Free objects live in a dvp
 * ring (the backing store) and, when the pool has a cache, in a per-lcore
 * cache of up to 1.5 x cache_size pointers in front of it: gets and puts of
 * an lcore touch only its own cache most of the time. A thread that is not
 * an EAL lcore has no cache and goes to the ring directly.
 *
 * Counts: dvp_mempool_avail_count() is the ring's entries plus every cache's
 * length, and dvp_mempool_in_use_count() is the rest. Both are exact while
 * no other thread uses the pool (a worker's cache length is read without
 * stopping it).
 *
 * Drivers register each memory chunk with their protection domain
 * (dvp_mempool_mem_iter()) so every object lies in a registered region.
 *
 * Debugging: a pool created with DVP_MEMPOOL_F_DEBUG (every pool, in a build
 * with -Dmempool_debug=true) has a cookie before and after each object. Gets
 * and puts compiled with the checks on (that build, or a file that defines
 * DVP_MEMPOOL_DEBUG_CHECKS before including this header) verify them: a
 * double free, an object from another pool or a foreign pointer is logged
 * with the pool's name and the object's address and not put back; an
 * overrun past the object's end is logged and the cookie repaired. Each
 * error is counted (dvp_mempool_debug_errors()).
 */

#ifndef DVP_MEMPOOL_H
#define DVP_MEMPOOL_H

#ifdef DVP_HOST_DPDK
/* Inside a DPDK application, dvpmd's pools are DPDK's. */
#include "dvp_mempool_host.h"
#else

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <dvp_common.h>
#include <dvp_lcore.h>
#include <dvp_memzone.h>
#include <dvp_ring.h>

#include "dvp_mempool_ctrl.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Longest pool name, terminating NUL included: the pool's ring is named
 * "MP_<name>" and must fit in a ring name.
 */
#define DVP_MEMPOOL_NAMESIZE (DVP_RING_NAMESIZE - 3)
#define DVP_MEMPOOL_MZ_PREFIX "MP_"

/** Largest per-lcore cache size (objects) a pool may ask for. */
#define DVP_MEMPOOL_CACHE_MAX_SIZE 512
/** A cache is flushed to the ring when it would pass 1.5 x its size. */
#define DVP_MEMPOOL_CACHE_FLUSHTHRESH(size) ((size)*3 / 2)

/** Creation flags. */
/** Objects are aligned to 8 bytes only, not to a cache line. */
#define DVP_MEMPOOL_F_NO_CACHE_ALIGN 0x0002u
/** Puts to the ring are single-producer (one thread only puts). */
#define DVP_MEMPOOL_F_SP_PUT 0x0004u
/** Gets from the ring are single-consumer (one thread only gets). */
#define DVP_MEMPOOL_F_SC_GET 0x0008u
/** Cookies around each object (implied by a -Dmempool_debug=true build). */
#define DVP_MEMPOOL_F_DEBUG 0x0100u

/** Whether this file's inline gets and puts verify the debug cookies. */
#if DVP_MEMPOOL_DEBUG || defined(DVP_MEMPOOL_DEBUG_CHECKS)
#define DVP_MEMPOOL_DEBUG_INLINE 1
#else
#define DVP_MEMPOOL_DEBUG_INLINE 0
#endif

/**
 * A per-lcore cache. Only its lcore touches it (and dvp_mempool_cache_flush()
 * called by that lcore, or by anyone while that lcore is idle).
 */
struct dvp_mempool_cache {
	uint32_t size; /**< target length, as created */
	uint32_t flushthresh; /**< flush to the ring beyond this length */
	uint32_t len; /**< objects in objs[] */
	uint32_t pad_;
	/** Room for a refill on top of a full cache (n < size, len <= 1.5 size). */
	void *objs[DVP_MEMPOOL_CACHE_MAX_SIZE * 2] __dvp_cache_aligned;
} __dvp_cache_aligned;

/** One memory chunk of a pool: objects lie within [addr, addr + len). */
struct dvp_mempool_memhdr {
	void *addr;
	size_t len;
};

/**
 * A pool. The first cache line is what the fast path reads; the fields are
 * visible for the inline functions and are not API.
 */
struct dvp_mempool {
	struct dvp_ring *ring; /**< free objects not in a cache */
	struct dvp_mempool_cache *local_cache; /**< [DVP_MAX_LCORE], NULL without a cache */
	uint32_t cache_size;
	unsigned int flags; /**< DVP_MEMPOOL_F_* */
	uint32_t size; /**< objects in the pool */
	uint32_t elt_size; /**< bytes of an object as asked for */
	uint32_t header_size; /**< bytes before each object (debug cookie) */
	uint32_t trailer_size; /**< bytes after it (debug cookie) */
	uint32_t total_elt_size; /**< stride between objects */
	int socket_id;

	char name[DVP_MEMPOOL_NAMESIZE] __dvp_cache_aligned;
	const struct dvp_memzone *mz; /**< holds this structure, found by name */
	void *priv; /**< private_data_size bytes for the pool's user */
	uint32_t private_data_size;
	unsigned int nb_mem_chunks;
	struct dvp_mempool_memhdr *mem_chunks; /**< [nb_mem_chunks] */
	uint64_t debug_errors; /**< cookie errors seen (atomic) */
};

/* ------------------------------------------------------------------------
 * Control path (the rest of it: dvp_mempool_ctrl.h)
 */

/**
 * Call @p fn for each pool (created, not being freed), as rte_mempool_walk.
 * The memzone lock is held meanwhile: @p fn must not create or free pools,
 * rings or memzones.
 */
void dvp_mempool_walk(void (*fn)(struct dvp_mempool *mp, void *arg), void *arg);

/** What happened to a pool, for dvp_mempool_event_callback_register(). */
enum dvp_mempool_event {
	DVP_MEMPOOL_EVENT_READY = 0, /**< created and populated: its memory will not change */
	DVP_MEMPOOL_EVENT_DESTROY, /**< about to be freed: its memory goes next */
};

/** Called on @p event for @p mp, with the @p arg given at registration. */
typedef void dvp_mempool_event_cb_t(enum dvp_mempool_event event, struct dvp_mempool *mp,
				    void *arg);

/**
 * Call @p cb on every pool event from now on (DPDK's
 * rte_mempool_event_callback_register()): a driver that must register a
 * pool's memory with its device before it can send from it does so when
 * the pool is READY, and drops the registration at DESTROY, before the
 * memory can be reused. Pools made before the call are not announced:
 * dvp_mempool_walk() finds them. Callbacks run on the thread that creates
 * or frees the pool, without a lock of the pool library held; they must
 * not create or free pools. At most DVP_MEMPOOL_EVENT_CBS_MAX at a time.
 * @return 0, or -EINVAL (NULL @p cb), -EEXIST (registered already with
 *   @p arg), -ENOSPC, with dvp_errno set.
 */
int dvp_mempool_event_callback_register(dvp_mempool_event_cb_t *cb, void *arg);

/** Stop calling @p cb with @p arg. @return 0 or -ENOENT. */
int dvp_mempool_event_callback_unregister(dvp_mempool_event_cb_t *cb, void *arg);

#define DVP_MEMPOOL_EVENT_CBS_MAX 16

/* dvpmd's own pools are all for device I/O (DPDK may mark some as not). */
static inline bool dvp_mempool_is_non_io(const struct dvp_mempool *mp)
{
	(void)mp;
	return false;
}

/** Free objects: in the ring and in every lcore cache. */
unsigned int dvp_mempool_avail_count(const struct dvp_mempool *mp);

/** Objects taken and not yet put back. */
unsigned int dvp_mempool_in_use_count(const struct dvp_mempool *mp);

static inline bool dvp_mempool_full(const struct dvp_mempool *mp)
{
	return dvp_mempool_avail_count(mp) == mp->size;
}

static inline bool dvp_mempool_empty(const struct dvp_mempool *mp)
{
	return dvp_mempool_avail_count(mp) == 0;
}

/** The pool's private area (private_data_size bytes). */
static inline void *dvp_mempool_get_priv(struct dvp_mempool *mp)
{
	return mp->priv;
}

/** Cookie errors seen on this pool (double frees, overruns, foreign objects). */
uint64_t dvp_mempool_debug_errors(const struct dvp_mempool *mp);

/* Out-of-line halves of the debug checks (see the file comment). */
void __dvp_mempool_debug_put(struct dvp_mempool *mp, void *const *obj_table, unsigned int n,
			     struct dvp_mempool_cache *cache);
void __dvp_mempool_debug_got(struct dvp_mempool *mp, void **obj_table, unsigned int n);

/* ------------------------------------------------------------------------
 * Fast path
 */

/**
 * The cache of lcore @p lcore_id, or NULL when the pool has no cache or the
 * id is not an lcore (DVP_LCORE_ID_ANY).
 */
static __dvp_always_inline struct dvp_mempool_cache *
dvp_mempool_default_cache(struct dvp_mempool *mp, unsigned int lcore_id)
{
	if (mp->local_cache == NULL || lcore_id >= DVP_MAX_LCORE)
		return NULL;
	return &mp->local_cache[lcore_id];
}

/* The pool's backend: its ring. */
static __dvp_always_inline void __dvp_mempool_backend_put(struct dvp_mempool *mp,
							  void *const *obj_table, unsigned int n)
{
	/*
	 * Cannot fail: the ring holds every object of the pool. (A pointer put
	 * twice could overflow it; the debug checks catch that.)
	 */
	(void)dvp_ring_enqueue_bulk(mp->ring, obj_table, n, NULL);
}

#include "dvp_mempool_cache.h"

/* The put without debug checks. */
static __dvp_always_inline void __dvp_mempool_do_put(struct dvp_mempool *mp, void *const *obj_table,
						     unsigned int n,
						     struct dvp_mempool_cache *cache)
{
	if (cache == NULL || dvp_unlikely(n > cache->flushthresh))
		__dvp_mempool_backend_put(mp, obj_table, n);
	else
		__dvp_mempool_cache_put(mp, cache, obj_table, n);
}

/*
 * Take @p n objects off the top of @p cache (the most recently put, still
 * warm in this core's caches), refilling it from the ring first when it
 * holds fewer. @return where they lie in the cache (valid until it is next
 * used), or NULL when the ring is short too.
 */
static __dvp_always_inline void **__dvp_mempool_cache_take(struct dvp_mempool *mp, unsigned int n,
							   struct dvp_mempool_cache *cache)
{
	uint32_t len = cache->len;

	if (dvp_unlikely(len < n)) {
		/* Refill to the cache's size plus this request in one ring access. */
		uint32_t req = n + (cache->size - len);

		if (dvp_ring_dequeue_bulk(mp->ring, &cache->objs[len], req, NULL) == 0) {
			/* The ring is short: take just what this request lacks. */
			req = n - len;
			if (dvp_ring_dequeue_bulk(mp->ring, &cache->objs[len], req, NULL) == 0)
				return NULL;
		}
		len += req;
	}
	cache->len = len - n;
	return &cache->objs[len - n];
}

/* The get without debug checks. */
static __dvp_always_inline int __dvp_mempool_do_get(struct dvp_mempool *mp, void **obj_table,
						    unsigned int n, struct dvp_mempool_cache *cache)
{
	void **objs;

	if (cache == NULL || dvp_unlikely(n >= cache->size))
		goto ring;
	objs = __dvp_mempool_cache_take(mp, n, cache);
	if (objs == NULL)
		return -ENOENT;
	memcpy(obj_table, objs, sizeof(void *) * n);
	return 0;
ring:
	return dvp_ring_dequeue_bulk(mp->ring, obj_table, n, NULL) == n ? 0 : -ENOENT;
}

/**
 * Put @p n objects back through @p cache (NULL: straight to the ring).
 * Never fails.
 */
static __dvp_always_inline void dvp_mempool_generic_put(struct dvp_mempool *mp,
							void *const *obj_table, unsigned int n,
							struct dvp_mempool_cache *cache)
{
#if DVP_MEMPOOL_DEBUG_INLINE
	if (mp->flags & DVP_MEMPOOL_F_DEBUG) {
		__dvp_mempool_debug_put(mp, obj_table, n, cache);
		return;
	}
#endif
	__dvp_mempool_do_put(mp, obj_table, n, cache);
}

/**
 * Get @p n objects through @p cache (NULL: straight from the ring): all of
 * them or none.
 * @return 0, or -ENOENT when the pool (this cache and the ring) has fewer
 *   than @p n free. dvp_errno is not set: running dry is not an error.
 */
static __dvp_always_inline int dvp_mempool_generic_get(struct dvp_mempool *mp, void **obj_table,
						       unsigned int n,
						       struct dvp_mempool_cache *cache)
{
	int ret = __dvp_mempool_do_get(mp, obj_table, n, cache);

#if DVP_MEMPOOL_DEBUG_INLINE
	if (ret == 0 && (mp->flags & DVP_MEMPOOL_F_DEBUG))
		__dvp_mempool_debug_got(mp, obj_table, n);
#endif
	return ret;
}

/** Put @p n objects back, through the calling lcore's cache. */
static __dvp_always_inline void dvp_mempool_put_bulk(struct dvp_mempool *mp, void *const *obj_table,
						     unsigned int n)
{
	dvp_mempool_generic_put(mp, obj_table, n, dvp_mempool_default_cache(mp, dvp_lcore_id()));
}

static __dvp_always_inline void dvp_mempool_put(struct dvp_mempool *mp, void *obj)
{
	dvp_mempool_put_bulk(mp, &obj, 1);
}

/** Get @p n objects, through the calling lcore's cache: all or none (-ENOENT). */
static __dvp_always_inline int dvp_mempool_get_bulk(struct dvp_mempool *mp, void **obj_table,
						    unsigned int n)
{
	return dvp_mempool_generic_get(mp, obj_table, n,
				       dvp_mempool_default_cache(mp, dvp_lcore_id()));
}

/**
 * Get @p n objects without copying them (as DPDK's
 * rte_mempool_cache_zc_get_bulk): they are taken from the calling lcore's
 * cache and read where they lie, for a caller that writes them elsewhere
 * anyway (a driver's ring and its descriptors in one pass).
 * @return their table, valid until the pool is next used on this lcore;
 *   NULL, nothing taken, when the lcore has no cache, @p n is not below
 *   the cache's size, the pool is short, or the pool checks its objects
 *   (DVP_MEMPOOL_F_DEBUG): dvp_mempool_get_bulk() then does it all.
 */
static __dvp_always_inline void **dvp_mempool_cache_zc_get_bulk(struct dvp_mempool *mp,
								unsigned int n)
{
	struct dvp_mempool_cache *cache = dvp_mempool_default_cache(mp, dvp_lcore_id());

#if DVP_MEMPOOL_DEBUG_INLINE
	if (mp->flags & DVP_MEMPOOL_F_DEBUG)
		return NULL;
#endif
	if (cache == NULL || dvp_unlikely(n >= cache->size))
		return NULL;
	return __dvp_mempool_cache_take(mp, n, cache);
}

static __dvp_always_inline int dvp_mempool_get(struct dvp_mempool *mp, void **obj_p)
{
	return dvp_mempool_get_bulk(mp, obj_p, 1);
}

/**
 * Return every object of @p cache to the ring. Call it from the cache's own
 * lcore, or while that lcore runs nothing that uses the pool.
 * @p cache may be NULL (nothing to do).
 */
static inline void dvp_mempool_cache_flush(struct dvp_mempool_cache *cache, struct dvp_mempool *mp)
{
	if (cache == NULL || cache->len == 0)
		return;
	__dvp_mempool_backend_put(mp, cache->objs, cache->len);
	cache->len = 0;
}

#ifdef __cplusplus
}
#endif

#endif /* DVP_HOST_DPDK */
#endif /* DVP_MEMPOOL_H */
