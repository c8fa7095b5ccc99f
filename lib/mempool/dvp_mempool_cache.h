/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The lcore cache's put, the same in a native build and in one hosted by a
 * DPDK application: dvpmd's struct dvp_mempool_cache and DPDK's
 * rte_mempool_cache have the fields it uses (len, flushthresh, objs).
 * dvp_mempool.h and dvp_mempool_host.h include it once they have defined
 * __dvp_mempool_backend_put(), the way to the pool's ring in each build.
 */

#if !defined(DVP_MEMPOOL_H) && !defined(DVP_MEMPOOL_HOST_H)
/*
 * Included on its own: the put needs the pool's types and its way to the
 * ring, which the pool's header brings, and that header includes this one
 * again once they are defined.
 */
#include <dvp_mempool.h>
#else

#ifndef DVP_MEMPOOL_CACHE_H
#define DVP_MEMPOOL_CACHE_H

#include <string.h>

#include <dvp_common.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Put @p n objects (at most the flush threshold) in @p cache: on top while
 * the cache stays at or under its threshold; past it, the whole cache goes
 * to the ring first and the objects start it anew, as DPDK's put does.
 */
static __dvp_always_inline void __dvp_mempool_cache_put(struct dvp_mempool *mp,
							struct dvp_mempool_cache *cache,
							void *const *obj_table, unsigned int n)
{
	void **dst;

	if (dvp_likely(cache->len + n <= cache->flushthresh)) {
		dst = &cache->objs[cache->len];
		cache->len += n;
	} else {
		__dvp_mempool_backend_put(mp, cache->objs, cache->len);
		dst = cache->objs;
		cache->len = n;
	}
	memcpy(dst, obj_table, sizeof(void *) * n);
}

#ifdef __cplusplus
}
#endif

#endif /* DVP_MEMPOOL_CACHE_H */
#endif /* included by the pool's header */
