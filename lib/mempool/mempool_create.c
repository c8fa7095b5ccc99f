/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Pool creation and destruction: the pool structure and its caches in a
 * memzone "MP_<name>", the free objects in a ring "MP_<name>", the objects
 * themselves in chunks of the socket's heap.
 */

#include <string.h>

#include <dvp_errno.h>
#include <dvp_malloc.h>
#include <dvp_memzone.h>

#include "mempool_private.h"

DVP_LOG_REGISTER(dvp_logtype_mempool, "mempool", NOTICE);

unsigned int dvp_mempool_test_max_chunk_objs;
size_t dvp_mempool_test_chunk_gap;

_Static_assert(sizeof(struct mempool_objhdr) <= DVP_CACHE_LINE_SIZE, "debug header fits a line");

/* Here, in a file every program using pools links, so a static link keeps the commands. */
__attribute__((constructor)) static void mempool_telemetry_init(void)
{
	mempool_telemetry_register();
}

static __dvp_cold int mempool_bad_arg(const char *name, const char *what)
{
	MEMPOOL_LOG(ERR, "mempool %s: %s", name ? name : "(null)", what);
	return dvp_err(EINVAL);
}

static int mempool_check_args(const char *name, unsigned int n, unsigned int elt_size,
			      unsigned int cache_size, unsigned int private_data_size,
			      unsigned int flags)
{
	const unsigned int known = DVP_MEMPOOL_F_NO_CACHE_ALIGN | DVP_MEMPOOL_F_SP_PUT |
				   DVP_MEMPOOL_F_SC_GET | DVP_MEMPOOL_F_DEBUG;
	char msg[160];

	if (name == NULL || name[0] == '\0' || strlen(name) >= DVP_MEMPOOL_NAMESIZE) {
		snprintf(msg, sizeof(msg), "the name must have 1 to %d characters",
			 DVP_MEMPOOL_NAMESIZE - 1);
		return mempool_bad_arg(name, msg);
	}
	if (n == 0 || n > (DVP_RING_SZ_MASK >> 1)) {
		snprintf(msg, sizeof(msg), "%u objects is invalid: valid is 1 to %u", n,
			 DVP_RING_SZ_MASK >> 1);
		return mempool_bad_arg(name, msg);
	}
	if (elt_size == 0 || elt_size > (1u << 30)) {
		snprintf(msg, sizeof(msg), "object size %u is invalid: valid is 1 to %u", elt_size,
			 1u << 30);
		return mempool_bad_arg(name, msg);
	}
	if (private_data_size > (1u << 30)) {
		snprintf(msg, sizeof(msg), "private data size %u is invalid: valid is 0 to %u",
			 private_data_size, 1u << 30);
		return mempool_bad_arg(name, msg);
	}
	if (cache_size > DVP_MEMPOOL_CACHE_MAX_SIZE ||
	    DVP_MEMPOOL_CACHE_FLUSHTHRESH(cache_size) > n) {
		snprintf(
			msg, sizeof(msg),
			"cache size %u is invalid: valid is 0 to %u, and at most n / 1.5 = %u for %u objects",
			cache_size, DVP_MEMPOOL_CACHE_MAX_SIZE, n * 2 / 3, n);
		return mempool_bad_arg(name, msg);
	}
	if (flags & ~known) {
		snprintf(
			msg, sizeof(msg),
			"unknown flags 0x%x (valid: NO_CACHE_ALIGN 0x%x, SP_PUT 0x%x, SC_GET 0x%x, DEBUG 0x%x)",
			flags & ~known, DVP_MEMPOOL_F_NO_CACHE_ALIGN, DVP_MEMPOOL_F_SP_PUT,
			DVP_MEMPOOL_F_SC_GET, DVP_MEMPOOL_F_DEBUG);
		return mempool_bad_arg(name, msg);
	}
	return 0;
}

/* Object geometry: header, trailer and stride. */
static void mempool_geometry(struct dvp_mempool *mp)
{
	size_t align = (mp->flags & DVP_MEMPOOL_F_NO_CACHE_ALIGN) ? 8 : DVP_CACHE_LINE_SIZE;

	if (mp->flags & DVP_MEMPOOL_F_DEBUG) {
		mp->header_size = (uint32_t)DVP_ALIGN_CEIL(sizeof(struct mempool_objhdr), align);
		mp->trailer_size = sizeof(uint64_t);
	} else {
		mp->header_size = 0;
		mp->trailer_size = 0;
	}
	mp->total_elt_size = (uint32_t)DVP_ALIGN_CEIL(
		(size_t)mp->header_size + mp->elt_size + mp->trailer_size, align);
}

/*
 * Carve the objects out of chunks of the heap: one chunk if the node has
 * the room in one piece, else halves, quarters... of the objects left.
 */
static int mempool_populate(struct dvp_mempool *mp, dvp_mempool_obj_cb_t *obj_init,
			    void *obj_init_arg)
{
	struct dvp_mempool_memhdr chunks[64];
	unsigned int nchunks = 0, left = mp->size, per_chunk, idx = 0, i, ngaps = 0;
	void *gaps[64];
	size_t len;
	char *base;

	per_chunk = left;
	if (dvp_mempool_test_max_chunk_objs != 0)
		per_chunk = DVP_MIN(per_chunk, dvp_mempool_test_max_chunk_objs);
	while (left > 0) {
		per_chunk = DVP_MIN(per_chunk, left);
		len = (size_t)per_chunk * mp->total_elt_size;
		base = nchunks < DVP_DIM(chunks) ?
			       dvp_malloc_socket("mempool", len, DVP_CACHE_LINE_SIZE,
						 mp->socket_id) :
			       NULL;
		if (base == NULL) {
			if (per_chunk > 1 && nchunks < DVP_DIM(chunks)) {
				per_chunk = (per_chunk + 1) / 2;
				continue;
			}
			MEMPOOL_LOG(
				ERR,
				"mempool %s: no room for %u objects of %u bytes on socket %d (%u placed in %u chunks)",
				mp->name, mp->size, mp->total_elt_size, mp->socket_id,
				mp->size - left, nchunks);
			goto fail;
		}
		chunks[nchunks].addr = base;
		chunks[nchunks].len = len;
		nchunks++;
		if (dvp_mempool_test_chunk_gap != 0 && ngaps < DVP_DIM(gaps))
			gaps[ngaps++] = dvp_malloc_socket("mempool gap", dvp_mempool_test_chunk_gap,
							  0, mp->socket_id);
		for (i = 0; i < per_chunk; i++, idx++) {
			void *obj = base + (size_t)i * mp->total_elt_size + mp->header_size;

			if (mp->flags & DVP_MEMPOOL_F_DEBUG)
				mempool_debug_init_obj(mp, obj);
			if (obj_init != NULL)
				obj_init(mp, obj_init_arg, obj, idx);
			/* The only user of the ring so far: single-producer is safe. */
			(void)dvp_ring_sp_enqueue_bulk(mp->ring, &obj, 1, NULL);
		}
		left -= per_chunk;
	}
	mp->mem_chunks =
		dvp_malloc_socket("mempool", nchunks * sizeof(chunks[0]), 0, mp->socket_id);
	if (mp->mem_chunks == NULL) {
		MEMPOOL_LOG(ERR, "mempool %s: no room for its chunk list on socket %d", mp->name,
			    mp->socket_id);
		goto fail;
	}
	/* Address order, as the iterators promise (the heap may hand out any order). */
	for (i = 1; i < nchunks; i++) {
		struct dvp_mempool_memhdr t = chunks[i];
		unsigned int j = i;

		for (; j > 0 && (uintptr_t)chunks[j - 1].addr > (uintptr_t)t.addr; j--)
			chunks[j] = chunks[j - 1];
		chunks[j] = t;
	}
	memcpy(mp->mem_chunks, chunks, nchunks * sizeof(chunks[0]));
	mp->nb_mem_chunks = nchunks;
	while (ngaps > 0)
		dvp_free(gaps[--ngaps]);
	return 0;

fail:
	while (ngaps > 0)
		dvp_free(gaps[--ngaps]);
	while (nchunks > 0)
		dvp_free(chunks[--nchunks].addr);
	return dvp_err(ENOMEM);
}

struct dvp_mempool *dvp_mempool_create(const char *name, unsigned int n, unsigned int elt_size,
				       unsigned int cache_size, unsigned int private_data_size,
				       dvp_mempool_obj_cb_t *obj_init, void *obj_init_arg,
				       int socket_id, unsigned int flags)
{
	char mz_name[DVP_MEMZONE_NAMESIZE], ring_name[DVP_RING_NAMESIZE];
	size_t priv_off, cache_off, mz_len;
	const struct dvp_memzone *mz;
	struct dvp_mempool *mp;
	unsigned int ring_flags, i;
	int err;

	if (mempool_check_args(name, n, elt_size, cache_size, private_data_size, flags) < 0)
		return NULL;
	if (DVP_MEMPOOL_DEBUG)
		flags |= DVP_MEMPOOL_F_DEBUG;

	priv_off = DVP_CACHE_LINE_ROUNDUP(sizeof(struct dvp_mempool));
	cache_off = priv_off + DVP_CACHE_LINE_ROUNDUP(private_data_size);
	mz_len = cache_off + (cache_size ? DVP_MAX_LCORE * sizeof(struct dvp_mempool_cache) : 0);
	snprintf(mz_name, sizeof(mz_name), "%s%s", DVP_MEMPOOL_MZ_PREFIX, name);
	mz = dvp_memzone_reserve(mz_name, mz_len, socket_id, 0);
	if (mz == NULL) {
		err = dvp_errno;
		if (err == EEXIST)
			MEMPOOL_LOG(ERR, "mempool %s: a pool of that name exists", name);
		else
			MEMPOOL_LOG(ERR, "mempool %s: cannot reserve %zu bytes on socket %d: %s",
				    name, mz_len, socket_id, dvp_strerror(err));
		dvp_errno = err;
		return NULL;
	}
	mp = mz->addr;
	memset(mp, 0, mz_len);
	snprintf(mp->name, sizeof(mp->name), "%s", name);
	mp->mz = mz;
	mp->flags = flags;
	mp->size = n;
	mp->elt_size = elt_size;
	mp->cache_size = cache_size;
	mp->socket_id = mz->socket_id;
	mp->private_data_size = private_data_size;
	mp->priv = (char *)mp + priv_off;
	mempool_geometry(mp);
	if (cache_size) {
		mp->local_cache = (struct dvp_mempool_cache *)(void *)((char *)mp + cache_off);
		for (i = 0; i < DVP_MAX_LCORE; i++) {
			mp->local_cache[i].size = cache_size;
			mp->local_cache[i].flushthresh = DVP_MEMPOOL_CACHE_FLUSHTHRESH(cache_size);
		}
	}

	ring_flags = DVP_RING_F_EXACT_SZ;
	if (flags & DVP_MEMPOOL_F_SP_PUT)
		ring_flags |= DVP_RING_F_SP_ENQ;
	if (flags & DVP_MEMPOOL_F_SC_GET)
		ring_flags |= DVP_RING_F_SC_DEQ;
	snprintf(ring_name, sizeof(ring_name), "%s%s", DVP_MEMPOOL_MZ_PREFIX, name);
	mp->ring = dvp_ring_create(ring_name, n, mp->socket_id, ring_flags);
	if (mp->ring == NULL) {
		err = dvp_errno;
		MEMPOOL_LOG(ERR, "mempool %s: cannot create its ring: %s", name, dvp_strerror(err));
		goto free_mz;
	}
	if (mempool_populate(mp, obj_init, obj_init_arg) < 0) {
		err = dvp_errno;
		goto free_ring;
	}
	/* Release: lookups that see the flag see a complete pool. */
	__atomic_or_fetch(&mp->flags, MEMPOOL_F_CREATED, __ATOMIC_RELEASE);
	mempool_event_notify(DVP_MEMPOOL_EVENT_READY, mp);
	return mp;

free_ring:
	dvp_ring_free(mp->ring);
free_mz:
	dvp_memzone_free(mz);
	dvp_errno = err;
	return NULL;
}

void dvp_mempool_free(struct dvp_mempool *mp)
{
	unsigned int in_use, i;

	if (mp == NULL)
		return;
	/* Before its memory goes: a device must stop using it first. */
	mempool_event_notify(DVP_MEMPOOL_EVENT_DESTROY, mp);
	/* Walks (telemetry) skip it from here: its ring and chunks go next. */
	__atomic_and_fetch(&mp->flags, ~MEMPOOL_F_CREATED, __ATOMIC_RELEASE);
	in_use = dvp_mempool_in_use_count(mp);
	if (in_use != 0)
		MEMPOOL_LOG(WARNING, "mempool %s: freed with %u of its %u objects still in use",
			    mp->name, in_use, mp->size);
	for (i = 0; i < mp->nb_mem_chunks; i++)
		dvp_free(mp->mem_chunks[i].addr);
	dvp_free(mp->mem_chunks);
	dvp_ring_free(mp->ring);
	dvp_memzone_free(mp->mz);
}

struct dvp_mempool *dvp_mempool_lookup(const char *name)
{
	char mz_name[DVP_MEMZONE_NAMESIZE];
	const struct dvp_memzone *mz;
	struct dvp_mempool *mp;

	if (name == NULL || name[0] == '\0' || strlen(name) >= DVP_MEMPOOL_NAMESIZE)
		goto none;
	snprintf(mz_name, sizeof(mz_name), "%s%s", DVP_MEMPOOL_MZ_PREFIX, name);
	mz = dvp_memzone_lookup(mz_name);
	if (mz == NULL)
		goto none;
	mp = mz->addr;
	/* Acquire: pairs with the release that completes creation. */
	if (!(__atomic_load_n(&mp->flags, __ATOMIC_ACQUIRE) & MEMPOOL_F_CREATED))
		goto none;
	return mp;
none:
	dvp_errno = ENOENT;
	return NULL;
}
