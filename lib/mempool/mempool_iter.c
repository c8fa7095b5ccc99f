/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* Walking a pool: its chunks, its objects, its counts. */

#include <inttypes.h>

#include "mempool_private.h"

unsigned int dvp_mempool_mem_iter(struct dvp_mempool *mp, dvp_mempool_mem_cb_t *cb, void *opaque)
{
	unsigned int i;

	if (mp == NULL)
		return 0;
	for (i = 0; i < mp->nb_mem_chunks; i++)
		if (cb != NULL)
			cb(mp, opaque, &mp->mem_chunks[i], i);
	return mp->nb_mem_chunks;
}

unsigned int dvp_mempool_obj_iter(struct dvp_mempool *mp, dvp_mempool_obj_cb_t *cb, void *opaque)
{
	unsigned int c, idx = 0;
	size_t off;

	if (mp == NULL)
		return 0;
	for (c = 0; c < mp->nb_mem_chunks; c++) {
		const struct dvp_mempool_memhdr *ch = &mp->mem_chunks[c];

		for (off = 0; off + mp->total_elt_size <= ch->len; off += mp->total_elt_size) {
			if (cb != NULL)
				cb(mp, opaque, (char *)ch->addr + off + mp->header_size, idx);
			idx++;
		}
	}
	return idx;
}

unsigned int dvp_mempool_avail_count(const struct dvp_mempool *mp)
{
	unsigned int count, i;

	if (mp == NULL)
		return 0;
	count = dvp_ring_count(mp->ring);
	if (mp->local_cache != NULL) {
		/*
		 * Relaxed: each cache's owner writes its length without atomics;
		 * a snapshot is all this can promise while lcores run.
		 */
		for (i = 0; i < DVP_MAX_LCORE; i++)
			count += __atomic_load_n(&mp->local_cache[i].len, __ATOMIC_RELAXED);
	}
	/* Caches read at different moments than the ring: keep it in range. */
	return count > mp->size ? mp->size : count;
}

unsigned int dvp_mempool_in_use_count(const struct dvp_mempool *mp)
{
	if (mp == NULL)
		return 0;
	return mp->size - dvp_mempool_avail_count(mp);
}

bool dvp_mempool_contains(const struct dvp_mempool *mp, const void *addr)
{
	uintptr_t a = (uintptr_t)addr;
	unsigned int i;

	if (mp == NULL)
		return false;
	for (i = 0; i < mp->nb_mem_chunks; i++) {
		uintptr_t lo = (uintptr_t)mp->mem_chunks[i].addr;

		if (a >= lo && a - lo < mp->mem_chunks[i].len)
			return true;
	}
	return false;
}

void dvp_mempool_dump(FILE *f, const struct dvp_mempool *mp)
{
	unsigned int i, cached = 0;

	f = dvp_dump_stream(f, "mempool", mp);
	if (f == NULL)
		return;
	fprintf(f, "mempool <%s>@%p\n", mp->name, (const void *)mp);
	fprintf(f, "  flags=0x%x socket=%d size=%u\n", mp->flags, mp->socket_id, mp->size);
	fprintf(f, "  elt_size=%u header_size=%u trailer_size=%u total_elt_size=%u\n", mp->elt_size,
		mp->header_size, mp->trailer_size, mp->total_elt_size);
	fprintf(f, "  private_data_size=%u cache_size=%u\n", mp->private_data_size, mp->cache_size);
	for (i = 0; i < mp->nb_mem_chunks; i++)
		fprintf(f, "  chunk %u: addr=%p len=%zu\n", i, mp->mem_chunks[i].addr,
			mp->mem_chunks[i].len);
	if (mp->local_cache != NULL) {
		for (i = 0; i < DVP_MAX_LCORE; i++) {
			unsigned int len =
				__atomic_load_n(&mp->local_cache[i].len, __ATOMIC_RELAXED);

			if (len != 0)
				fprintf(f, "  cache lcore %u: len=%u\n", i, len);
			cached += len;
		}
	}
	fprintf(f, "  ring=%u cached=%u avail=%u in_use=%u\n", dvp_ring_count(mp->ring), cached,
		dvp_mempool_avail_count(mp), dvp_mempool_in_use_count(mp));
	if (mp->flags & DVP_MEMPOOL_F_DEBUG)
		fprintf(f, "  debug errors=%" PRIu64 "\n", dvp_mempool_debug_errors(mp));
}
