/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Debug cookies: a header cookie before each object says whether it is free
 * or allocated (and which pool owns it), a trailer cookie after its last
 * byte catches writes past the end. Checked on every get and put compiled
 * with DVP_MEMPOOL_DEBUG_INLINE.
 */

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mempool_private.h"

static uint64_t trailer_read(const struct dvp_mempool *mp, const void *obj)
{
	uint64_t v;

	/* elt_size need not be a multiple of 8: the trailer may be unaligned. */
	memcpy(&v, (const char *)obj + mp->elt_size, sizeof(v));
	return v;
}

static void trailer_write(const struct dvp_mempool *mp, void *obj)
{
	uint64_t v = MEMPOOL_COOKIE_TRAILER;

	memcpy((char *)obj + mp->elt_size, &v, sizeof(v));
}

/*
 * Put @p obj's trailer cookie back (the same value when it is intact).
 * @return the value it replaced, for the check that reports an overrun.
 */
static uint64_t trailer_repair(const struct dvp_mempool *mp, void *obj)
{
	uint64_t old = trailer_read(mp, obj);

	trailer_write(mp, obj);
	return old;
}

void mempool_debug_init_obj(struct dvp_mempool *mp, void *obj)
{
	struct mempool_objhdr *h = mempool_hdr(obj);

	h->mp = mp;
	h->cookie = MEMPOOL_COOKIE_FREE;
	trailer_write(mp, obj);
}

uint64_t dvp_mempool_debug_errors(const struct dvp_mempool *mp)
{
	return mp ? __atomic_load_n(&mp->debug_errors, __ATOMIC_RELAXED) : 0;
}

static __dvp_cold void debug_error(struct dvp_mempool *mp, const char *fmt, ...)
	__dvp_format_printf(2, 3);

/* Log one misuse the checks found, on a line naming @p mp, and count it. */
static void debug_error(struct dvp_mempool *mp, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	MEMPOOL_LOG(ERR, "mempool %s: %s", mp->name, msg);
	/* Relaxed: a statistic. */
	__atomic_fetch_add(&mp->debug_errors, 1, __ATOMIC_RELAXED);
}

/* Whether @obj is the start of one of @mp's objects (so its header is ours to read). */
static bool debug_is_object(const struct dvp_mempool *mp, const void *obj)
{
	uintptr_t a = (uintptr_t)obj;
	unsigned int i;

	for (i = 0; i < mp->nb_mem_chunks; i++) {
		uintptr_t lo = (uintptr_t)mp->mem_chunks[i].addr + mp->header_size;

		if (a >= lo && a - lo < mp->mem_chunks[i].len)
			return (a - lo) % mp->total_elt_size == 0;
	}
	return false;
}

/* Check one object being put back. @return whether it may go back to the pool. */
static bool debug_check_put(struct dvp_mempool *mp, void *obj)
{
	struct mempool_objhdr *h;
	uint64_t trailer;

	if (!debug_is_object(mp, obj)) {
		debug_error(
			mp,
			"put of %p, which is not an object of this pool (a pointer from another pool, or into the middle of an object?); not put back",
			obj);
		return false;
	}
	h = mempool_hdr(obj);
	if (h->cookie == MEMPOOL_COOKIE_FREE) {
		debug_error(mp, "double free of object %p: it is already free; not put back again",
			    obj);
		return false;
	}
	if (h->cookie != MEMPOOL_COOKIE_ALLOC || h->mp != mp) {
		debug_error(mp,
			    "object %p has a damaged header cookie 0x%016" PRIx64
			    " (something wrote before its start); repaired and put back",
			    obj, h->cookie);
		h->mp = mp;
	}
	trailer = trailer_repair(mp, obj);
	if (trailer != MEMPOOL_COOKIE_TRAILER)
		debug_error(
			mp,
			"overrun: object %p was written past its %u bytes (trailer cookie 0x%016" PRIx64
			"); repaired and put back",
			obj, mp->elt_size, trailer);
	h->cookie = MEMPOOL_COOKIE_FREE;
	return true;
}

/* Put back the objects of @obj_table not marked in @bad, in batches. */
static __dvp_cold void debug_put_valid(struct dvp_mempool *mp, void *const *obj_table,
				       unsigned int n, const uint64_t *bad,
				       struct dvp_mempool_cache *cache)
{
	void *ok[64];
	unsigned int i, nok = 0;

	for (i = 0; i < n; i++) {
		if (bad[i / 64] & (1ULL << (i % 64)))
			continue;
		ok[nok++] = obj_table[i];
		if (nok == DVP_DIM(ok)) {
			__dvp_mempool_do_put(mp, ok, nok, cache);
			nok = 0;
		}
	}
	if (nok != 0)
		__dvp_mempool_do_put(mp, ok, nok, cache);
}

void __dvp_mempool_debug_put(struct dvp_mempool *mp, void *const *obj_table, unsigned int n,
			     struct dvp_mempool_cache *cache)
{
	uint64_t small[8] = { 0 }, *bad = small;
	size_t words = ((size_t)n + 63) / 64;
	unsigned int i, nbad = 0;

	if (words > DVP_DIM(small)) {
		bad = calloc(words, sizeof(*bad));
		if (bad == NULL) {
			MEMPOOL_LOG(
				ERR,
				"mempool %s: no memory to check a put of %u objects; put unchecked",
				mp->name, n);
			__dvp_mempool_do_put(mp, obj_table, n, cache);
			return;
		}
	}
	/* Checking marks each good object free, so a pointer given twice in
	 * one call is caught at its second place. */
	for (i = 0; i < n; i++) {
		if (!debug_check_put(mp, obj_table[i])) {
			bad[i / 64] |= 1ULL << (i % 64);
			nbad++;
		}
	}
	/* All good: one batch, so the cache behaves as without the checks. */
	if (nbad == 0)
		__dvp_mempool_do_put(mp, obj_table, n, cache);
	else
		debug_put_valid(mp, obj_table, n, bad, cache);
	if (bad != small)
		free(bad);
}

void __dvp_mempool_debug_got(struct dvp_mempool *mp, void **obj_table, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		void *obj = obj_table[i];
		struct mempool_objhdr *h = mempool_hdr(obj);

		if (h->cookie != MEMPOOL_COOKIE_FREE || h->mp != mp) {
			debug_error(
				mp,
				"object %p handed out was not marked free (header cookie 0x%016" PRIx64
				"): it was put twice, or written while free",
				obj, h->cookie);
			h->mp = mp;
		}
		if (trailer_repair(mp, obj) != MEMPOOL_COOKIE_TRAILER)
			debug_error(
				mp,
				"object %p handed out has a damaged trailer cookie: it was written past its %u bytes while free",
				obj, mp->elt_size);
		h->cookie = MEMPOOL_COOKIE_ALLOC;
	}
}
