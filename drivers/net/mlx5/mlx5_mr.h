/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Memory regions of the mlx5 PMD (design contract 4).
 *
 * The device reads and writes only memory registered with its protection
 * domain. Every mbuf pool is registered with each mlx5 device when it is
 * READY (lib/mempool's pool events; the pools made before the first device
 * are walked at its probe) and its registration dropped at DESTROY, before
 * its memory can be reused; rx queues register their pool at setup too,
 * and dvp_pmd_mlx5_mempool_register() serves pools of external memory.
 *
 * A pool is registered by address ranges, not by pool: its memory chunks
 * (any number: DPDK's pools in IOVA-PA mode have a hundred and more) are
 * rounded to their pages and merged where they touch, and each merged range
 * is covered by one MR, reused where one covers it already. Lcores look an
 * address up in a per-queue cache of four ranges (a hit is two compares),
 * on a miss in the device's published snapshot: a sorted array of disjoint
 * intervals, each with an lkey, searched in O(log n).
 *
 * The snapshot is immutable: the control path builds a new one for every
 * change and publishes it with a release store; lcores read it with an
 * acquire load and never take a lock. Old snapshots are kept until the
 * device closes, as an lcore may still be reading one. When a pool goes
 * and an MR is deregistered the device's generation moves on, and tx
 * queues drop what they remembered (cache, simple pool) at their next
 * burst: a new pool at the same address must not meet an old lkey.
 */

#ifndef MLX5_MR_H
#define MLX5_MR_H

#include <stdint.h>

#include <infiniband/verbs.h>

#include <dvp_common.h>
#include <dvp_counter.h>
#include <dvp_mbuf.h>

/* Entries of the per-queue cache. */
#define MLX5_MR_CACHE_N 4u

/* One interval of registered memory: [start, start + len) under lkey_be. */
struct mlx5_mr_range {
	uintptr_t start;
	uintptr_t len;
	uint32_t lkey_be; /* big-endian, as data segments take it */
};

/* A pool registered with the device: its lkey when one MR covers it all. */
struct mlx5_mr_pool_ent {
	const struct dvp_mempool *mp;
	uint32_t lkey_be; /* 0 when its memory lies in several MRs */
};

/* What lcores search: immutable once published. */
struct mlx5_mr_snap {
	struct mlx5_mr_snap *retired_next; /* the control path's list of old ones */
	uint32_t nranges; /* sorted by start, disjoint */
	uint32_t npools; /* sorted by pool address */
	struct mlx5_mr_range *ranges;
	struct mlx5_mr_pool_ent *pools;
};

struct mlx5_mr_reg;
struct mlx5_mr_preg;

/* A device's registrations. */
struct mlx5_mr_table {
	struct mlx5_mr_snap *snap; /* published: acquire loads, release stores */
	uint32_t gen; /* atomic: moves on when an MR is deregistered */
	/* The control path's own, under the registry lock. */
	struct mlx5_mr_snap *retired;
	struct mlx5_mr_reg *regs; /* every MR, unsorted */
	unsigned int nregs, regs_cap;
	struct mlx5_mr_preg *pregs; /* every pool and the ranges it asked for */
	unsigned int npregs, pregs_cap;
};

/* One queue's cache: only the lcore polling the queue touches it. */
struct mlx5_mr_cache {
	struct mlx5_mr_range e[MLX5_MR_CACHE_N]; /* len 0: empty */
	uint32_t next; /* round-robin victim */
	uint32_t gen; /* of the table when the cache was last emptied */
	const struct mlx5_mr_table *tbl;
	uint64_t misses; /* lookups that went to the table (dvp_counter_add) */
};

/* Miss path (mlx5_mr.c): snapshot lookup, cache fill. @return lkey (BE) or MLX5_INVALID_LKEY BE. */
uint32_t mlx5_mr_lookup_miss(struct mlx5_mr_cache *c, uintptr_t addr);

/**
 * The lkey (big-endian) of the MR holding @p m's buffer, or
 * htobe32(MLX5_INVALID_LKEY) when no registered memory holds it.
 */
static __dvp_always_inline uint32_t mlx5_mr_lkey(struct mlx5_mr_cache *c, const struct dvp_mbuf *m)
{
	uintptr_t a = (uintptr_t)m->buf_addr;
	unsigned int i;

	/* One unsigned compare per entry: a - start wraps huge below start. */
	for (i = 0; i < MLX5_MR_CACHE_N; i++)
		if (dvp_likely(a - c->e[i].start < c->e[i].len))
			return c->e[i].lkey_be;
	return mlx5_mr_lookup_miss(c, a);
}

/*
 * Whether an MR was deregistered since the cache was emptied: then what the
 * queue remembers may name memory that is gone. One relaxed load: the
 * generation is only a hint to look again; the snapshot read on the miss
 * path is what synchronises.
 */
static __dvp_always_inline bool mlx5_mr_cache_stale(const struct mlx5_mr_cache *c)
{
	return dvp_unlikely(__atomic_load_n(&c->tbl->gen, __ATOMIC_RELAXED) != c->gen);
}

/* Empty @p c and take the table's generation (the queue's lcore). */
void mlx5_mr_cache_flush(struct mlx5_mr_cache *c);

void mlx5_mr_cache_init(struct mlx5_mr_cache *c, const struct mlx5_mr_table *tbl);

/* The lkey (big-endian) of @p mp when one MR covers it all, else 0 (any thread). */
uint32_t mlx5_mr_pool_lkey(const struct mlx5_mr_table *tbl, const struct dvp_mempool *mp);

/* Whether @p mp is registered with @p tbl's device (any thread, lock-free). */
bool mlx5_mr_pool_registered(const struct mlx5_mr_table *tbl, const struct dvp_mempool *mp);

struct mlx5_dev;

/* Register @p mp with @p dev's PD (no-op when it is already). @return 0 or a negative errno. */
int mlx5_mr_dev_add_pool(struct mlx5_dev *dev, const struct dvp_mempool *mp);
/* Add a new device to the registry and register every pool there is with it. */
void mlx5_mr_dev_attach(struct mlx5_dev *dev);
/* Take @p dev out of the registry and deregister its MRs (at its close). */
void mlx5_mr_dev_detach(struct mlx5_dev *dev);
/* Register @p mp with every mlx5 device. */
int mlx5_mr_register_pool(const struct dvp_mempool *mp);

#endif /* MLX5_MR_H */
