/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The MR cache (mlx5_mr.h): a registry of the pools the driver knows, each
 * registered once with the PD of every mlx5 device, so that a packet
 * received on one device and sent on another (two ConnectX functions are
 * two devices) finds its lkey on both. Control path only, except
 * mlx5_mr_lookup_miss(), which runs on the lcore whose cache missed.
 */

#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <dvp_errno.h>
#include <dvp_malloc.h>
#include <dvp_mempool.h>

#include "dvp_pmd_mlx5.h"
#include "mlx5.h"

/*
 * The devices, under one lock (control path). A pool is registered with
 * the devices that exist when it is registered: queues are set up after
 * the EAL probed every device, and remembering pools for later devices
 * would keep pointers to pools the application may have freed since.
 */
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mlx5_dev *reg_devs;

void mlx5_mr_cache_init(struct mlx5_mr_cache *c, const struct mlx5_mr_table *tbl)
{
	memset(c, 0, sizeof(*c));
	/* Empty entries match nothing: len 0. */
	c->tbl = tbl;
}

static const struct mlx5_mr_chunk *pool_find_chunk(const struct mlx5_mr_pool *p, uintptr_t a)
{
	unsigned int lo = 0, hi = p->n;

	while (lo < hi) {
		unsigned int mid = (lo + hi) / 2;
		const struct mlx5_mr_chunk *c = &p->chunk[mid];

		if (a < c->start)
			hi = mid;
		else if (a - c->start >= c->len)
			lo = mid + 1;
		else
			return c;
	}
	return NULL;
}

__dvp_noinline uint32_t mlx5_mr_lookup_miss(struct mlx5_mr_cache *c, const struct dvp_mbuf *m)
{
	uintptr_t a = (uintptr_t)m->buf_addr;
	const struct mlx5_mr_chunk *hit = NULL;
	unsigned int h = mlx5_mr_hash(m->pool), k;
	struct mlx5_mr_cache_entry *e;

	dvp_counter_add(&c->misses, 1);
	for (k = 0; k < MLX5_MR_POOLS_MAX && hit == NULL; k++) {
		/* Acquire: pairs with the release publishing a complete pool entry. */
		const struct mlx5_mr_pool *p = __atomic_load_n(
			&c->tbl->slot[(h + k) & (MLX5_MR_POOLS_MAX - 1)], __ATOMIC_ACQUIRE);

		if (p == NULL)
			break;
		if (p->mp == m->pool)
			hit = pool_find_chunk(p, a);
	}
	/* An mbuf whose pool field lies about its memory: look by address alone. */
	for (k = 0; k < MLX5_MR_POOLS_MAX && hit == NULL; k++) {
		const struct mlx5_mr_pool *p = __atomic_load_n(&c->tbl->slot[k], __ATOMIC_ACQUIRE);

		if (p != NULL)
			hit = pool_find_chunk(p, a);
	}
	if (hit == NULL)
		return htobe32(MLX5_INVALID_LKEY);
	e = &c->e[c->next];
	c->next = (c->next + 1) % MLX5_MR_CACHE_N;
	e->start = hit->start;
	e->len = hit->len;
	e->lkey_be = hit->lkey_be;
	return hit->lkey_be;
}

static const struct mlx5_mr_pool *table_find(const struct mlx5_mr_table *t,
					     const struct dvp_mempool *mp)
{
	unsigned int h = mlx5_mr_hash(mp);

	for (unsigned int k = 0; k < MLX5_MR_POOLS_MAX; k++) {
		const struct mlx5_mr_pool *p = t->slot[(h + k) & (MLX5_MR_POOLS_MAX - 1)];

		if (p == NULL)
			return NULL;
		if (p->mp == mp)
			return p;
	}
	return NULL;
}

uint32_t mlx5_mr_pool_lkey(const struct mlx5_mr_table *tbl, const struct dvp_mempool *mp)
{
	const struct mlx5_mr_pool *p = table_find(tbl, mp);

	return p != NULL && p->n == 1 ? p->chunk[0].lkey_be : 0;
}

struct chunk_collect {
	struct mlx5_mr_pool *p;
};

static void collect_chunk(struct dvp_mempool *mp, void *opaque,
			  const struct dvp_mempool_memhdr *memhdr, unsigned int idx)
{
	struct chunk_collect *cc = opaque;

	(void)mp;
	if (idx < MLX5_MR_CHUNKS_MAX) {
		cc->p->chunk[idx].start = (uintptr_t)memhdr->addr;
		cc->p->chunk[idx].len = memhdr->len;
	}
}

static void pool_free(struct mlx5_dev *dev, struct mlx5_mr_pool *p)
{
	for (unsigned int i = 0; i < p->n; i++) {
		int ret;

		if (p->chunk[i].mr == NULL)
			continue;
		ret = dev->glue->dereg_mr(p->chunk[i].mr);
		if (ret != 0)
			MLX5_LOG(WARNING, "%s: dereg_mr of pool %s chunk %u: %s", dev->name,
				 p->mp->name, i, dvp_strerror(ret));
	}
	free(p);
}

/* Whether @p p still describes @p mp's memory (and not a freed pool's). */
static bool pool_matches(const struct mlx5_mr_pool *p, const struct dvp_mempool *mp)
{
	if (p->n != mp->nb_mem_chunks)
		return false;
	for (unsigned int i = 0; i < p->n; i++)
		if (!dvp_mempool_contains(mp, (const void *)p->chunk[i].start) ||
		    !dvp_mempool_contains(mp,
					  (const void *)(p->chunk[i].start + p->chunk[i].len - 1)))
			return false;
	return true;
}

static __dvp_cold void reg_mr_failed(struct mlx5_dev *dev, const struct dvp_mempool *mp,
				     const struct mlx5_mr_chunk *c, int err)
{
	struct rlimit rl;
	char lim[32] = "unknown";

	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
		if (rl.rlim_cur == RLIM_INFINITY)
			snprintf(lim, sizeof(lim), "unlimited");
		else
			snprintf(lim, sizeof(lim), "%" PRIu64 " KiB", (uint64_t)rl.rlim_cur / 1024);
	}
	MLX5_LOG(ERR,
		 "%s: cannot register %zu bytes of pool %s with the device (reg_mr: %s); "
		 "registered memory is pinned and counts against the memlock limit (now %s): "
		 "raise it (ulimit -l unlimited, LimitMEMLOCK=infinity) or grant CAP_IPC_LOCK",
		 dev->name, (size_t)c->len, mp->name, dvp_strerror(err), lim);
}

int mlx5_mr_dev_add_pool(struct mlx5_dev *dev, const struct dvp_mempool *mp)
{
	const struct mlx5_mr_pool *old;
	struct chunk_collect cc;
	struct mlx5_mr_pool *p;
	unsigned int n, h, k;

	old = table_find(&dev->mr, mp);
	if (old != NULL && pool_matches(old, mp))
		return 0;
	if (old != NULL && dev->mr.nretired == MLX5_MR_POOLS_MAX) {
		MLX5_LOG(ERR, "%s: cannot register pool %s again: too many pools replaced",
			 dev->name, mp->name);
		return dvp_err(ENOSPC);
	}
	n = mp->nb_mem_chunks;
	if (n == 0 || n > MLX5_MR_CHUNKS_MAX) {
		MLX5_LOG(ERR, "%s: pool %s has %u memory chunks; the driver takes 1..%u", dev->name,
			 mp->name, n, MLX5_MR_CHUNKS_MAX);
		return dvp_err(EINVAL);
	}
	p = calloc(1, sizeof(*p) + n * sizeof(p->chunk[0]));
	if (p == NULL)
		return dvp_err(ENOMEM);
	p->mp = mp;
	cc.p = p;
	/* In address order, as the binary search wants them. */
	dvp_mempool_mem_iter((struct dvp_mempool *)(uintptr_t)mp, collect_chunk, &cc);
	for (unsigned int i = 0; i < n; i++) {
		struct mlx5_mr_chunk *c = &p->chunk[i];

		c->mr = dev->glue->reg_mr(dev->pd, (void *)c->start, c->len,
					  IBV_ACCESS_LOCAL_WRITE);
		if (c->mr == NULL) {
			int err = errno ? errno : ENOMEM;

			reg_mr_failed(dev, mp, c, err);
			p->n = i;
			pool_free(dev, p);
			return dvp_err(err);
		}
		c->lkey_be = htobe32(c->mr->lkey);
		p->n = i + 1;
	}
	h = mlx5_mr_hash(mp);
	for (k = 0; k < MLX5_MR_POOLS_MAX; k++) {
		struct mlx5_mr_pool **slot = &dev->mr.slot[(h + k) & (MLX5_MR_POOLS_MAX - 1)];

		if (old != NULL && *slot == old) {
			/*
			 * A pool freed and another created at its address: the
			 * new entry replaces the old, which an lcore may still be
			 * reading, so the old one is retired until the device closes.
			 */
			dev->mr.retired[dev->mr.nretired++] = *slot;
			__atomic_store_n(slot, p, __ATOMIC_RELEASE);
			return 0;
		}
		if (old == NULL && *slot == NULL) {
			/* Release: the entry is complete before a reader can find it. */
			__atomic_store_n(slot, p, __ATOMIC_RELEASE);
			MLX5_LOG(DEBUG, "%s: pool %s registered (%u MR(s))", dev->name, mp->name,
				 n);
			return 0;
		}
	}
	pool_free(dev, p);
	MLX5_LOG(ERR, "%s: cannot register pool %s: the device holds %u pools already", dev->name,
		 mp->name, MLX5_MR_POOLS_MAX);
	return dvp_err(ENOSPC);
}

void mlx5_mr_dev_attach(struct mlx5_dev *dev)
{
	pthread_mutex_lock(&reg_lock);
	dev->next = reg_devs;
	reg_devs = dev;
	pthread_mutex_unlock(&reg_lock);
}

void mlx5_mr_dev_detach(struct mlx5_dev *dev)
{
	struct mlx5_dev **pp;

	pthread_mutex_lock(&reg_lock);
	for (pp = &reg_devs; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == dev) {
			*pp = dev->next;
			break;
		}
	}
	pthread_mutex_unlock(&reg_lock);
	for (unsigned int k = 0; k < MLX5_MR_POOLS_MAX; k++) {
		if (dev->mr.slot[k] != NULL)
			pool_free(dev, dev->mr.slot[k]);
		dev->mr.slot[k] = NULL;
	}
	while (dev->mr.nretired > 0)
		pool_free(dev, dev->mr.retired[--dev->mr.nretired]);
}

int mlx5_mr_register_pool(const struct dvp_mempool *mp)
{
	struct mlx5_dev *dev;
	int ret = 0;

	pthread_mutex_lock(&reg_lock);
	for (dev = reg_devs; dev != NULL && ret == 0; dev = dev->next)
		ret = mlx5_mr_dev_add_pool(dev, mp);
	pthread_mutex_unlock(&reg_lock);
	return ret;
}

int dvp_pmd_mlx5_mempool_register(struct dvp_mempool *mp)
{
	if (mp == NULL) {
		MLX5_LOG(ERR, "mempool_register: NULL pool");
		return dvp_err(EINVAL);
	}
	return mlx5_mr_register_pool(mp);
}

bool dvp_pmd_mlx5_mempool_registered(uint16_t port_id, const struct dvp_mempool *mp)
{
	struct dvp_port *port = dvp_port_get(port_id);
	bool found;

	if (port == NULL || mp == NULL || port->driver_name == NULL ||
	    strcmp(port->driver_name, MLX5_DRIVER_NAME) != 0)
		return false;
	pthread_mutex_lock(&reg_lock);
	found = table_find(&mlx5_priv(port)->dev->mr, mp) != NULL;
	pthread_mutex_unlock(&reg_lock);
	return found;
}
