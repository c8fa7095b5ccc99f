/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Memory regions of the mlx5 PMD (design contract 4).
 *
 * Every mempool whose mbufs a port may post or send is registered with the
 * protection domain of each mlx5 device once, one MR per memory chunk
 * (mlx5_mr.c): the pools of rx queues when the queue is set up (with every
 * mlx5 device then, so forwarding between two devices finds its lkeys),
 * others through dvp_pmd_mlx5_mempool_register(). A device keeps them in a
 * table of fixed size, hashed by pool, that readers walk without a lock.
 *
 * On the fast path the lkey of an mbuf's buffer comes from a small
 * per-queue cache of address ranges (a hit is two compares), and on a miss
 * from the device table: the pool of the mbuf hashed to its slot, then a
 * binary search over that pool's chunks (at most 64). Both are O(1) in the
 * number of pools and mbufs.
 */

#ifndef MLX5_MR_H
#define MLX5_MR_H

#include <stdint.h>

#include <infiniband/verbs.h>

#include <dvp_common.h>
#include <dvp_counter.h>
#include <dvp_mbuf.h>

/* Pools a device can hold (hash slots, a power of two). */
#define MLX5_MR_POOLS_MAX 64u
/* Chunks a pool may have (dvp_mempool carves at most this many). */
#define MLX5_MR_CHUNKS_MAX 64u
/* Entries of the per-queue cache. */
#define MLX5_MR_CACHE_N 4u

struct mlx5_mr_chunk {
	uintptr_t start;
	uintptr_t len;
	uint32_t lkey_be; /* big-endian, as data segments take it */
	struct ibv_mr *mr;
};

/* One pool registered with one PD. Immutable once published. */
struct mlx5_mr_pool {
	const struct dvp_mempool *mp;
	unsigned int n; /* chunks, sorted by start */
	struct mlx5_mr_chunk chunk[];
};

/*
 * A device's pools. Written only by the control path (under the driver's
 * registry lock); read by any lcore: a slot is published with a release
 * store after its pool entry is complete, and read with acquire.
 */
struct mlx5_mr_table {
	struct mlx5_mr_pool *slot[MLX5_MR_POOLS_MAX];
	/* Entries replaced while readers may hold them: freed at device close. */
	struct mlx5_mr_pool *retired[MLX5_MR_POOLS_MAX];
	unsigned int nretired;
};

struct mlx5_mr_cache_entry {
	uintptr_t start;
	uintptr_t len;
	uint32_t lkey_be;
};

/* One queue's cache: only the lcore polling the queue touches it. */
struct mlx5_mr_cache {
	struct mlx5_mr_cache_entry e[MLX5_MR_CACHE_N];
	uint32_t next; /* round-robin victim */
	const struct mlx5_mr_table *tbl;
	uint64_t misses; /* lookups that went to the table (dvp_counter_add) */
};

/* The hash slot of @p mp's first probe. */
static inline unsigned int mlx5_mr_hash(const struct dvp_mempool *mp)
{
	uint64_t h = (uint64_t)(uintptr_t)mp * 0x9e3779b97f4a7c15ull;

	return (unsigned int)(h >> 58) & (MLX5_MR_POOLS_MAX - 1);
}

/* Miss path (mlx5_mr.c): table lookup, cache fill. @return lkey (BE) or MLX5_INVALID_LKEY BE. */
uint32_t mlx5_mr_lookup_miss(struct mlx5_mr_cache *c, const struct dvp_mbuf *m);

/**
 * The lkey (big-endian) of the MR holding @p m's buffer, or
 * htobe32(MLX5_INVALID_LKEY) when no registered pool holds it.
 */
static __dvp_always_inline uint32_t mlx5_mr_lkey(struct mlx5_mr_cache *c, const struct dvp_mbuf *m)
{
	uintptr_t a = (uintptr_t)m->buf_addr;
	unsigned int i;

	/* One unsigned compare per entry: a - start wraps huge below start. */
	for (i = 0; i < MLX5_MR_CACHE_N; i++)
		if (dvp_likely(a - c->e[i].start < c->e[i].len))
			return c->e[i].lkey_be;
	return mlx5_mr_lookup_miss(c, m);
}

void mlx5_mr_cache_init(struct mlx5_mr_cache *c, const struct mlx5_mr_table *tbl);
/* The lkey (big-endian) of @p mp in @p tbl when the pool is one MR, else 0. */
uint32_t mlx5_mr_pool_lkey(const struct mlx5_mr_table *tbl, const struct dvp_mempool *mp);

struct mlx5_dev;

/* Register @p mp with @p dev's PD (no-op when it is already). @return 0 or a negative errno. */
int mlx5_mr_dev_add_pool(struct mlx5_dev *dev, const struct dvp_mempool *mp);
/* Add a new device to the registry. */
void mlx5_mr_dev_attach(struct mlx5_dev *dev);
/* Take @p dev out of the registry and deregister its MRs (at its close). */
void mlx5_mr_dev_detach(struct mlx5_dev *dev);
/* Register @p mp with every mlx5 device. */
int mlx5_mr_register_pool(const struct dvp_mempool *mp);

#endif /* MLX5_MR_H */
