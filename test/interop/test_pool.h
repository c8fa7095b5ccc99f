/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * An mbuf pool for memif_peer until lib/mempool's dvp_pktmbuf_pool_create()
 * is implemented: real mbufs in one allocation, their free list a real
 * dvp_ring, got and put through lib/mempool's own inline fast path (a pool
 * without per-lcore caches). The in-use count is exact: the pool's size
 * less what its ring holds. Replace with dvp_pktmbuf_pool_create() when it
 * lands.
 */

#ifndef TEST_POOL_H
#define TEST_POOL_H

#include <stdlib.h>
#include <string.h>

#include <dvp_mbuf.h>
#include <dvp_mempool.h>
#include <dvp_ring.h>

struct test_pool {
	struct dvp_mempool *mp;
	struct dvp_pktmbuf_pool_private priv;
	struct dvp_ring *ring;
	void *mem;
	unsigned int n;
};

static inline int test_pool_create(struct test_pool *tp, unsigned int n, uint16_t buf_size)
{
	size_t elt = DVP_CACHE_LINE_ROUNDUP(sizeof(struct dvp_mbuf) + buf_size);
	ssize_t rsz = dvp_ring_get_memsize(dvp_align32pow2(n + 1));
	unsigned int i;

	memset(tp, 0, sizeof(*tp));
	tp->n = n;
	tp->mp = aligned_alloc(DVP_CACHE_LINE_SIZE, DVP_CACHE_LINE_ROUNDUP(sizeof(*tp->mp)));
	tp->ring = aligned_alloc(128, DVP_ALIGN_CEIL((size_t)rsz, 128));
	tp->mem = aligned_alloc(DVP_CACHE_LINE_SIZE, elt * n);
	if (tp->mp == NULL || tp->ring == NULL || tp->mem == NULL || rsz < 0)
		return -1;
	memset(tp->mp, 0, sizeof(*tp->mp));
	if (dvp_ring_init(tp->ring, "test_pool", dvp_align32pow2(n + 1), 0) < 0)
		return -1;
	tp->priv.mbuf_data_room_size = buf_size;
	tp->mp->ring = tp->ring;
	tp->mp->size = n;
	tp->mp->elt_size = (uint32_t)elt;
	tp->mp->total_elt_size = (uint32_t)elt;
	tp->mp->priv = &tp->priv;
	tp->mp->private_data_size = sizeof(tp->priv);
	snprintf(tp->mp->name, sizeof(tp->mp->name), "test_pool");
	for (i = 0; i < n; i++) {
		struct dvp_mbuf *m = (struct dvp_mbuf *)(void *)((char *)tp->mem + i * elt);

		memset(m, 0, sizeof(*m));
		m->buf_addr = (char *)m + sizeof(*m);
		m->buf_len = buf_size;
		m->pool = tp->mp;
		m->refcnt = 1;
		m->nb_segs = 1;
		m->port = DVP_MBUF_PORT_INVALID;
		dvp_pktmbuf_reset_headroom(m);
		if (dvp_ring_enqueue(tp->ring, m) < 0)
			return -1;
	}
	return 0;
}

static inline unsigned int test_pool_in_use(const struct test_pool *tp)
{
	return tp->n - dvp_ring_count(tp->ring);
}

static inline void test_pool_free(struct test_pool *tp)
{
	free(tp->mem);
	free(tp->ring);
	free(tp->mp);
}

#endif /* TEST_POOL_H */
