/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The control half of dvp_mempool_host.h: dvpmd's pool calls on DPDK's
 * pools, in the build a DPDK application hosts. Only that build compiles
 * this file, in place of the other files of this folder.
 */

#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_mempool.h>

#include <dvp_errno.h>
#include <dvp_mempool.h>

struct dvp_mempool *dvp_mempool_create(const char *name, unsigned int n, unsigned int elt_size,
				       unsigned int cache_size, unsigned int private_data_size,
				       dvp_mempool_obj_cb_t *obj_init, void *obj_init_arg,
				       int socket_id, unsigned int flags)
{
	struct rte_mempool *mp;

	/* The flag values are DPDK's (dvp_mempool_host.h). */
	mp = rte_mempool_create(name, n, elt_size, cache_size, private_data_size, NULL, NULL,
				obj_init, obj_init_arg, socket_id, flags);
	if (mp == NULL)
		dvp_errno = rte_errno;
	return mp;
}

uint32_t dvp_mempool_host_ring_ops;

void dvp_mempool_host_init(void)
{
	/* rte_mempool_ops_table.ops[] is filled by the ops' constructors, never reordered. */
	static const char *const ring_ops[] = { "ring_mp_mc", "ring_sp_sc", "ring_mp_sc",
						"ring_sp_mc" };
	uint32_t mask = 0, i, j;

	for (i = 0; i < rte_mempool_ops_table.num_ops && i < 32; i++)
		for (j = 0; j < RTE_DIM(ring_ops); j++)
			if (strcmp(rte_mempool_ops_table.ops[i].name, ring_ops[j]) == 0)
				mask |= 1u << i;
	__atomic_store_n(&dvp_mempool_host_ring_ops, mask, __ATOMIC_RELAXED);
}

void dvp_mempool_free(struct dvp_mempool *mp)
{
	rte_mempool_free(mp);
}

struct dvp_mempool *dvp_mempool_lookup(const char *name)
{
	struct rte_mempool *mp = rte_mempool_lookup(name);

	if (mp == NULL)
		dvp_errno = ENOENT;
	return mp;
}

struct chunk_list {
	struct rte_mempool_memhdr **hdr;
	unsigned int n;
};

static void chunk_collect(struct rte_mempool *mp, void *opaque, struct rte_mempool_memhdr *memhdr,
			  unsigned int mem_idx)
{
	struct chunk_list *l = opaque;

	(void)mp;
	(void)mem_idx;
	l->hdr[l->n++] = memhdr;
}

static int chunk_cmp(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)(*(struct rte_mempool_memhdr *const *)a)->addr;
	uintptr_t y = (uintptr_t)(*(struct rte_mempool_memhdr *const *)b)->addr;

	return x < y ? -1 : x > y;
}

/*
 * dvpmd promises the chunks in address order (the mlx5 driver's lookup
 * searches them by halves); DPDK lists them in the order it populated them.
 */
unsigned int dvp_mempool_mem_iter(struct dvp_mempool *mp, dvp_mempool_mem_cb_t *cb, void *opaque)
{
	struct chunk_list l = { calloc(mp->nb_mem_chunks + 1, sizeof(*l.hdr)), 0 };
	unsigned int i;

	if (l.hdr == NULL) {
		dvp_errno = ENOMEM;
		return 0;
	}
	rte_mempool_mem_iter(mp, chunk_collect, &l);
	qsort(l.hdr, l.n, sizeof(*l.hdr), chunk_cmp);
	for (i = 0; i < l.n; i++)
		cb(mp, opaque, l.hdr[i], i);
	free(l.hdr);
	return l.n;
}

unsigned int dvp_mempool_obj_iter(struct dvp_mempool *mp, dvp_mempool_obj_cb_t *cb, void *opaque)
{
	return rte_mempool_obj_iter(mp, cb, opaque);
}

struct contains_arg {
	uintptr_t addr;
	bool found;
};

static void contains_one(struct rte_mempool *mp, void *opaque, struct rte_mempool_memhdr *memhdr,
			 unsigned int mem_idx)
{
	struct contains_arg *a = opaque;

	(void)mp;
	(void)mem_idx;
	if (a->addr - (uintptr_t)memhdr->addr < memhdr->len)
		a->found = true;
}

bool dvp_mempool_contains(const struct dvp_mempool *mp, const void *addr)
{
	struct contains_arg a = { (uintptr_t)addr, false };

	rte_mempool_mem_iter((struct rte_mempool *)(uintptr_t)mp, contains_one, &a);
	return a.found;
}

void dvp_mempool_dump(FILE *f, const struct dvp_mempool *mp)
{
	rte_mempool_dump(f, (struct rte_mempool *)(uintptr_t)mp);
}
