/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * lib/mempool: creation and its errors, get/put with and without caches,
 * counts, iterators, the debug cookies (checks compiled in here), and two
 * lcores sharing a pool (also in suite 'concurrent').
 */

/* Compile this file's inline gets and puts with the cookie checks. */
#define DVP_MEMPOOL_DEBUG_CHECKS 1

#include "dvp_test_eal.h"

#include <pthread.h>

#include <dvp_eal.h>
#include <dvp_errno.h>
#include <dvp_lcore.h>
#include <dvp_mempool.h>

#include "mempool_private.h"

static void test_create_bad_args(void **state)
{
	struct dvp_log_capture c;

	(void)state;
	dvp_log_capture_begin(&c);
	assert_null(dvp_mempool_create("p", 0, 64, 0, 0, NULL, NULL, DVP_SOCKET_ANY, 0));
	assert_int_equal(dvp_errno, EINVAL);
	assert_null(dvp_mempool_create("p", 100, 0, 0, 0, NULL, NULL, DVP_SOCKET_ANY, 0));
	assert_int_equal(dvp_errno, EINVAL);
	assert_null(dvp_mempool_create("p", 100, 64, 80, 0, NULL, NULL, DVP_SOCKET_ANY, 0));
	assert_int_equal(dvp_errno, EINVAL);
	assert_null(dvp_mempool_create("p", 100000, 64, 513, 0, NULL, NULL, DVP_SOCKET_ANY, 0));
	assert_null(dvp_mempool_create("p", 100, 64, 0, 0, NULL, NULL, DVP_SOCKET_ANY, 0x1));
	assert_null(dvp_mempool_create("a-pool-name-far-too-long-for-it", 100, 64, 0, 0, NULL, NULL,
				       DVP_SOCKET_ANY, 0));
	assert_null(dvp_mempool_create(NULL, 100, 64, 0, 0, NULL, NULL, DVP_SOCKET_ANY, 0));
	/* The largest sizes each field allows: too much memory, never a wrapped size. */
	assert_null(
		dvp_mempool_create("big", 64, 64, 0, UINT32_MAX, NULL, NULL, DVP_SOCKET_ANY, 0));
	assert_int_equal(dvp_errno, EINVAL);
	assert_null(dvp_mempool_create("big", DVP_RING_SZ_MASK >> 1, 1u << 30, 0, 0, NULL, NULL,
				       DVP_SOCKET_ANY, 0));
	assert_true(dvp_errno == ENOMEM || dvp_errno == EINVAL);
	assert_null(dvp_mempool_lookup("big"));
	dvp_log_capture_end(&c);
	assert_contains(c.buf, "mempool p: 0 objects is invalid");
	assert_contains(c.buf, "mempool p: object size 0 is invalid");
	assert_contains(c.buf,
			"cache size 80 is invalid: valid is 0 to 512, and at most n / 1.5 = 66");
	assert_contains(c.buf, "cache size 513 is invalid");
	assert_contains(c.buf, "unknown flags 0x1");
	assert_contains(c.buf, "the name must have 1 to 25 characters");
	assert_contains(c.buf, "mempool big: private data size 4294967295 is invalid");
	dvp_log_capture_free(&c);
}

struct init_seen {
	unsigned int calls;
	unsigned int idx_sum;
	void *arg;
};

static void obj_init_cb(struct dvp_mempool *mp, void *opaque, void *obj, unsigned int idx)
{
	struct init_seen *s = opaque;

	(void)mp;
	s->calls++;
	s->idx_sum += idx;
	memset(obj, 0xab, 40);
	*(unsigned int *)obj = idx;
}

static void test_create_lookup_free(void **state)
{
	struct init_seen seen = { 0 };
	struct dvp_log_capture c;
	struct dvp_mempool *mp;
	unsigned int i;

	(void)state;
	mp = dvp_mempool_create("mp_basic", 1000, 40, 32, 24, obj_init_cb, &seen, DVP_SOCKET_ANY,
				0);
	assert_non_null(mp);
	assert_int_equal(seen.calls, 1000);
	assert_int_equal(seen.idx_sum, 999 * 1000 / 2);
	assert_ptr_equal(dvp_mempool_lookup("mp_basic"), mp);
	assert_int_equal(dvp_mempool_avail_count(mp), 1000);
	assert_int_equal(dvp_mempool_in_use_count(mp), 0);
	assert_true(dvp_mempool_full(mp));
	assert_false(dvp_mempool_empty(mp));
	/* the private area is there and zeroed */
	for (i = 0; i < 24; i++)
		assert_int_equal(((char *)dvp_mempool_get_priv(mp))[i], 0);

	dvp_log_capture_begin(&c);
	assert_null(dvp_mempool_create("mp_basic", 10, 8, 0, 0, NULL, NULL, DVP_SOCKET_ANY, 0));
	assert_int_equal(dvp_errno, EEXIST);
	dvp_log_capture_end(&c);
	assert_contains(c.buf, "mempool mp_basic: a pool of that name exists");
	dvp_log_capture_free(&c);

	dvp_mempool_free(mp);
	assert_null(dvp_mempool_lookup("mp_basic"));
	assert_int_equal(dvp_errno, ENOENT);
	assert_null(dvp_mempool_lookup(NULL));
	dvp_mempool_free(NULL);
}

static void test_get_put_no_cache(void **state)
{
	struct dvp_mempool *mp;
	void *objs[100], *extra;
	unsigned int i;

	(void)state;
	mp = dvp_mempool_create("mp_nc", 100, 64, 0, 0, NULL, NULL, DVP_SOCKET_ANY, 0);
	assert_non_null(mp);
	assert_null(dvp_mempool_default_cache(mp, dvp_lcore_id()));
	/* zero-size requests */
	assert_int_equal(dvp_mempool_get_bulk(mp, objs, 0), 0);
	dvp_mempool_put_bulk(mp, objs, 0);
	/* more than the pool: nothing */
	assert_int_equal(dvp_mempool_get_bulk(mp, objs, 100), 0);
	assert_int_equal(dvp_mempool_in_use_count(mp), 100);
	assert_int_equal(dvp_mempool_get(mp, &extra), -ENOENT);
	assert_true(dvp_mempool_empty(mp));
	for (i = 0; i < 100; i++) {
		assert_true((uintptr_t)objs[i] % DVP_CACHE_LINE_SIZE == 0);
		assert_true(dvp_mempool_contains(mp, objs[i]));
		memset(objs[i], i, 64); /* the whole object is ours */
	}
	dvp_mempool_put_bulk(mp, objs, 60);
	assert_int_equal(dvp_mempool_avail_count(mp), 60);
	dvp_mempool_put(mp, objs[60]);
	dvp_mempool_put_bulk(mp, objs + 61, 39);
	assert_int_equal(dvp_mempool_in_use_count(mp), 0);
	assert_int_equal(dvp_mempool_debug_errors(mp), 0);
	dvp_mempool_free(mp);
}

static void test_cache(void **state)
{
	static void *all[1024];
	struct dvp_mempool_cache *cache;
	struct dvp_mempool *mp;
	void *objs[512];
	unsigned int i;

	(void)state;
	mp = dvp_mempool_create("mp_cache", 1024, 64, 64, 0, NULL, NULL, DVP_SOCKET_ANY, 0);
	assert_non_null(mp);
	cache = dvp_mempool_default_cache(mp, dvp_lcore_id());
	assert_non_null(cache);
	assert_int_equal(cache->size, 64);
	assert_int_equal(cache->flushthresh, 96);
	assert_null(dvp_mempool_default_cache(mp, DVP_LCORE_ID_ANY));

	/* a small get fills the cache from the ring: size + n in one go */
	assert_int_equal(dvp_mempool_get_bulk(mp, objs, 8), 0);
	assert_int_equal(cache->len, 64);
	assert_int_equal(dvp_mempool_in_use_count(mp), 8);
	assert_int_equal(dvp_ring_count(mp->ring), 1024 - 72);
	/* the last put comes out first */
	{
		void *p = objs[3], *q = NULL;

		dvp_mempool_put(mp, p);
		assert_int_equal(dvp_mempool_get(mp, &q), 0);
		assert_ptr_equal(q, p);
	}
	dvp_mempool_put_bulk(mp, objs, 8);
	assert_int_equal(cache->len, 72);

	/* a get at least the cache size bypasses it */
	assert_int_equal(dvp_mempool_get_bulk(mp, objs, 64), 0);
	assert_int_equal(cache->len, 72);
	/* puts up to the threshold stay in the cache */
	dvp_mempool_put_bulk(mp, objs, 24);
	assert_int_equal(cache->len, 96);
	/* one more and the whole cache goes back to the ring first */
	dvp_mempool_put_bulk(mp, objs + 24, 1);
	assert_int_equal(cache->len, 1);
	dvp_mempool_put_bulk(mp, objs + 25, 39);
	assert_int_equal(cache->len, 40);
	assert_int_equal(dvp_mempool_in_use_count(mp), 0);

	/* a put larger than the threshold goes to the ring directly */
	assert_int_equal(dvp_mempool_get_bulk(mp, objs, 512), 0);
	assert_int_equal(cache->len, 40);
	dvp_mempool_put_bulk(mp, objs, 100);
	assert_int_equal(cache->len, 40);
	dvp_mempool_put_bulk(mp, objs + 100, 412);
	assert_int_equal(dvp_mempool_in_use_count(mp), 0);
	dvp_mempool_cache_flush(cache, mp);
	dvp_mempool_cache_flush(NULL, mp);
	assert_int_equal(cache->len, 0);
	assert_int_equal(dvp_ring_count(mp->ring), 1024);

	/* cache and ring together: every object can be taken, 32 at a time */
	for (i = 0; i < 1024 / 32; i++)
		assert_int_equal(dvp_mempool_get_bulk(mp, all + i * 32, 32), 0);
	assert_int_equal(dvp_mempool_in_use_count(mp), 1024);
	assert_int_equal(dvp_mempool_get_bulk(mp, objs, 1), -ENOENT);
	dvp_mempool_put_bulk(mp, all, 1024);
	assert_int_equal(dvp_mempool_in_use_count(mp), 0);
	dvp_mempool_free(mp);
}

/*
 * The zero-copy get: objects taken off the top of the cache (refilled from
 * the ring when short), read in place; NULL, nothing taken, for a request
 * the cache cannot serve, a pool run dry, or a pool that checks its objects.
 */
static void test_cache_zc_get(void **state)
{
	struct dvp_mempool_cache *cache;
	struct dvp_mempool *mp, *dbg;
	void *objs[64], **zc;

	(void)state;
	mp = dvp_mempool_create("mp_zc", 128, 64, 64, 0, NULL, NULL, DVP_SOCKET_ANY, 0);
	assert_non_null(mp);
	cache = dvp_mempool_default_cache(mp, dvp_lcore_id());
	/* An empty cache: refilled to its size plus the request, then taken. */
	zc = dvp_mempool_cache_zc_get_bulk(mp, 16);
	assert_non_null(zc);
	assert_int_equal(cache->len, 64);
	assert_ptr_equal(zc, &cache->objs[64]);
	assert_int_equal(dvp_mempool_in_use_count(mp), 16);
	memcpy(objs, zc, 16 * sizeof(*zc));
	/* The last put comes out first, in place. */
	dvp_mempool_put_bulk(mp, objs, 16);
	zc = dvp_mempool_cache_zc_get_bulk(mp, 16);
	assert_non_null(zc);
	assert_memory_equal(zc, objs, 16 * sizeof(*zc));
	dvp_mempool_put_bulk(mp, objs, 16);
	/* Not below the cache's size: the caller gets them the ordinary way. */
	assert_null(dvp_mempool_cache_zc_get_bulk(mp, 64));
	assert_int_equal(dvp_mempool_in_use_count(mp), 0);
	/* Run dry: all 128 out, then NULL with nothing taken. */
	assert_int_equal(dvp_mempool_get_bulk(mp, objs, 60), 0);
	zc = dvp_mempool_cache_zc_get_bulk(mp, 60);
	assert_non_null(zc);
	memcpy(objs + 60, zc, 4 * sizeof(*zc));
	assert_int_equal(dvp_mempool_in_use_count(mp), 120);
	assert_null(dvp_mempool_cache_zc_get_bulk(mp, 9));
	assert_int_equal(dvp_mempool_in_use_count(mp), 120);
	assert_non_null(dvp_mempool_cache_zc_get_bulk(mp, 8));
	assert_int_equal(dvp_mempool_in_use_count(mp), 128);
	dvp_mempool_free(mp);
	/* A checked pool keeps its bookkeeping: no zero-copy get. */
	dbg = dvp_mempool_create("mp_zc_dbg", 64, 40, 8, 0, NULL, NULL, DVP_SOCKET_ANY,
				 DVP_MEMPOOL_F_DEBUG);
	assert_non_null(dbg);
#if DVP_MEMPOOL_DEBUG_INLINE
	assert_null(dvp_mempool_cache_zc_get_bulk(dbg, 4));
#endif
	dvp_mempool_free(dbg);
}

/* Pool empty except for part of the cache: a get larger than the cache holds takes from the ring. */
static void test_cache_short_ring(void **state)
{
	struct dvp_mempool_cache *cache;
	struct dvp_mempool *mp;
	void *objs[60];

	(void)state;
	mp = dvp_mempool_create("mp_short", 48, 64, 32, 0, NULL, NULL, DVP_SOCKET_ANY, 0);
	assert_non_null(mp);
	cache = dvp_mempool_default_cache(mp, dvp_lcore_id());
	assert_int_equal(dvp_mempool_get_bulk(mp, objs, 40), 0); /* bypasses: 40 >= 32 */
	dvp_mempool_put_bulk(mp, objs, 4); /* cache: 4, ring: 8 */
	assert_int_equal(cache->len, 4);
	/* a refill (20 + 32 - 4) and then just the lack (16) both exceed the ring's 8 */
	assert_int_equal(dvp_mempool_get_bulk(mp, objs + 40, 20), -ENOENT);
	assert_int_equal(cache->len, 4);
	/* 10 = 4 from the cache + the 6 it lacks from the ring */
	assert_int_equal(dvp_mempool_get_bulk(mp, objs + 40, 10), 0);
	assert_int_equal(cache->len, 0);
	assert_int_equal(dvp_mempool_avail_count(mp), 2);
	dvp_mempool_put_bulk(mp, objs + 4, 46);
	assert_int_equal(dvp_mempool_in_use_count(mp), 0);
	dvp_mempool_free(mp);
}

static void *no_cache_thread(void *arg)
{
	struct dvp_mempool *mp = arg;
	void *o[4];

	/* not an lcore: no cache, straight to the ring */
	if (dvp_lcore_id() != DVP_LCORE_ID_ANY || dvp_mempool_default_cache(mp, dvp_lcore_id()))
		return (void *)1;
	if (dvp_mempool_get_bulk(mp, o, 4) != 0)
		return (void *)2;
	dvp_mempool_put_bulk(mp, o, 4);
	return NULL;
}

static void test_non_eal_thread(void **state)
{
	struct dvp_mempool *mp;
	pthread_t t;
	void *ret;

	(void)state;
	mp = dvp_mempool_create("mp_thr", 64, 64, 16, 0, NULL, NULL, DVP_SOCKET_ANY, 0);
	assert_non_null(mp);
	assert_int_equal(pthread_create(&t, NULL, no_cache_thread, mp), 0);
	assert_int_equal(pthread_join(t, &ret), 0);
	assert_null(ret);
	assert_int_equal(dvp_ring_count(mp->ring), 64);
	dvp_mempool_free(mp);
}

struct chunk_seen {
	unsigned int n;
	uintptr_t last_end;
	size_t total;
	bool ordered;
};

static void chunk_cb(struct dvp_mempool *mp, void *opaque, const struct dvp_mempool_memhdr *mh,
		     unsigned int idx)
{
	struct chunk_seen *s = opaque;

	(void)mp;
	if (idx != s->n || (uintptr_t)mh->addr < s->last_end)
		s->ordered = false;
	s->n++;
	s->last_end = (uintptr_t)mh->addr + mh->len;
	s->total += mh->len;
}

struct obj_seen {
	unsigned int n;
	bool ok;
};

static void obj_cb(struct dvp_mempool *mp, void *opaque, void *obj, unsigned int idx)
{
	struct obj_seen *s = opaque;

	if (idx != s->n || !dvp_mempool_contains(mp, obj) ||
	    (uintptr_t)obj % DVP_CACHE_LINE_SIZE != 0 || *(unsigned int *)obj >= 100)
		s->ok = false;
	s->n++;
}

static void test_iterators_several_chunks(void **state)
{
	struct init_seen seen = { 0 };
	struct chunk_seen cs = { .ordered = true };
	struct obj_seen os = { .ok = true };
	struct dvp_mempool *mp;
	void *objs[100];
	unsigned int i;

	(void)state;
	dvp_mempool_test_max_chunk_objs = 30;
	mp = dvp_mempool_create("mp_chunks", 100, 200, 0, 0, obj_init_cb, &seen, DVP_SOCKET_ANY, 0);
	dvp_mempool_test_max_chunk_objs = 0;
	assert_non_null(mp);
	assert_int_equal(dvp_mempool_mem_iter(mp, chunk_cb, &cs), 4);
	assert_int_equal(cs.n, 4);
	assert_true(cs.ordered);
	assert_int_equal(cs.total, 100 * (size_t)mp->total_elt_size);
	assert_int_equal(dvp_mempool_obj_iter(mp, obj_cb, &os), 100);
	assert_true(os.ok);
	assert_int_equal(dvp_mempool_mem_iter(mp, NULL, NULL), 4);
	/* every object handed out lies in a chunk */
	assert_int_equal(dvp_mempool_get_bulk(mp, objs, 100), 0);
	for (i = 0; i < 100; i++)
		assert_true(dvp_mempool_contains(mp, objs[i]));
	assert_false(dvp_mempool_contains(mp, &i));
	dvp_mempool_put_bulk(mp, objs, 100);
	dvp_mempool_free(mp);
}

struct ev_seen {
	unsigned int ready, destroy;
	struct dvp_mempool *last;
	unsigned int last_chunks; /* what the pool had when it was announced */
};

static void on_pool_event(enum dvp_mempool_event event, struct dvp_mempool *mp, void *arg)
{
	struct ev_seen *seen = arg;

	if (event == DVP_MEMPOOL_EVENT_READY)
		seen->ready++;
	else if (event == DVP_MEMPOOL_EVENT_DESTROY)
		seen->destroy++;
	seen->last = mp;
	seen->last_chunks = mp->nb_mem_chunks;
}

/* READY once a pool is populated, DESTROY before its memory goes; registration errors. */
static void test_events(void **state)
{
	struct ev_seen seen = { 0 }, other = { 0 };
	struct dvp_mempool *mp;

	(void)state;
	assert_int_equal(dvp_mempool_event_callback_register(on_pool_event, &seen), 0);
	assert_int_equal(dvp_mempool_event_callback_register(on_pool_event, &seen), -EEXIST);
	assert_int_equal(dvp_mempool_event_callback_register(NULL, &seen), -EINVAL);
	assert_int_equal(dvp_mempool_event_callback_register(on_pool_event, &other), 0);
	mp = dvp_mempool_create("ev", 100, 64, 0, 0, NULL, NULL, DVP_SOCKET_ANY, 0);
	assert_non_null(mp);
	assert_int_equal(seen.ready, 1);
	assert_ptr_equal(seen.last, mp);
	assert_true(seen.last_chunks >= 1);
	assert_int_equal(other.ready, 1);
	assert_int_equal(dvp_mempool_event_callback_unregister(on_pool_event, &other), 0);
	assert_int_equal(dvp_mempool_event_callback_unregister(on_pool_event, &other), -ENOENT);
	dvp_mempool_free(mp);
	/* Told while its memory is still there. */
	assert_int_equal(seen.destroy, 1);
	assert_ptr_equal(seen.last, mp);
	assert_true(seen.last_chunks >= 1);
	assert_int_equal(other.destroy, 0);
	/* A pool that fails to be made is never announced. */
	assert_null(dvp_mempool_create("ev", 0, 64, 0, 0, NULL, NULL, DVP_SOCKET_ANY, 0));
	assert_int_equal(seen.ready, 1);
	assert_int_equal(dvp_mempool_event_callback_unregister(on_pool_event, &seen), 0);
}

static void test_dump(void **state)
{
	struct dvp_mempool *mp;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	void *o;

	(void)state;
	mp = dvp_mempool_create("mp_dump", 64, 100, 8, 0, NULL, NULL, DVP_SOCKET_ANY, 0);
	assert_non_null(mp);
	assert_int_equal(dvp_mempool_get(mp, &o), 0);
	f = open_memstream(&buf, &len);
	dvp_mempool_dump(f, mp);
	fclose(f);
	assert_contains(buf, "mempool <mp_dump>");
	assert_contains(buf, "elt_size=100");
	assert_contains(buf, "in_use=1");
	free(buf);
	dvp_mempool_put(mp, o);
	dvp_mempool_free(mp);
}

static void test_free_with_objects_out_warns(void **state)
{
	struct dvp_log_capture c;
	struct dvp_mempool *mp;
	void *o[3];

	(void)state;
	mp = dvp_mempool_create("mp_leak", 16, 8, 0, 0, NULL, NULL, DVP_SOCKET_ANY, 0);
	assert_non_null(mp);
	assert_int_equal(dvp_mempool_get_bulk(mp, o, 3), 0);
	dvp_log_capture_begin(&c);
	dvp_mempool_free(mp);
	dvp_log_capture_end(&c);
	assert_contains(c.buf, "mempool mp_leak: freed with 3 of its 16 objects still in use");
	dvp_log_capture_free(&c);
}

/* ---------------------------------------------------------------------------
 * Debug cookies
 */

static void test_debug_double_free(void **state)
{
	struct dvp_log_capture c;
	struct dvp_mempool *mp;
	void *o[4];

	(void)state;
	mp = dvp_mempool_create("mp_dbg", 64, 40, 8, 0, NULL, NULL, DVP_SOCKET_ANY,
				DVP_MEMPOOL_F_DEBUG);
	assert_non_null(mp);
	assert_true(mp->header_size >= 16 && mp->trailer_size == 8);
	assert_int_equal(dvp_mempool_get_bulk(mp, o, 4), 0);
	dvp_mempool_put(mp, o[1]);
	dvp_log_capture_begin(&c);
	dvp_mempool_put(mp, o[1]);
	dvp_log_capture_end(&c);
	assert_contains(c.buf, "mempool mp_dbg: double free of object");
	dvp_log_capture_free(&c);
	assert_int_equal(dvp_mempool_debug_errors(mp), 1);
	/* the second put was dropped: the counts still add up */
	assert_int_equal(dvp_mempool_in_use_count(mp), 3);
	/* the same object twice in one call: put back once */
	o[1] = o[3];
	dvp_log_capture_begin(&c);
	dvp_mempool_put_bulk(mp, o, 4);
	dvp_log_capture_end(&c);
	assert_contains(c.buf, "double free of object");
	dvp_log_capture_free(&c);
	assert_int_equal(dvp_mempool_debug_errors(mp), 2);
	assert_int_equal(dvp_mempool_in_use_count(mp), 0);
	dvp_mempool_free(mp);
}

/* A large checked put (past the checker's small bitmap) behaves as an unchecked one. */
static void test_debug_large_put(void **state)
{
	static void *o[700];
	struct dvp_mempool *mp;

	(void)state;
	mp = dvp_mempool_create("mp_dbg_big", 1024, 16, 64, 0, NULL, NULL, DVP_SOCKET_ANY,
				DVP_MEMPOOL_F_DEBUG);
	assert_non_null(mp);
	assert_int_equal(dvp_mempool_get_bulk(mp, o, 700), 0);
	dvp_mempool_put_bulk(mp, o, 700);
	/* more than the flush threshold: straight to the ring, cache untouched */
	assert_int_equal(dvp_mempool_default_cache(mp, dvp_lcore_id())->len, 0);
	assert_int_equal(dvp_ring_count(mp->ring), 1024);
	assert_int_equal(dvp_mempool_debug_errors(mp), 0);
	dvp_mempool_free(mp);
}

static void test_debug_overrun(void **state)
{
	struct dvp_log_capture c;
	struct dvp_mempool *mp;
	void *o;

	(void)state;
	/* 41 bytes: the trailer is not even aligned */
	mp = dvp_mempool_create("mp_ovr", 16, 41, 0, 0, NULL, NULL, DVP_SOCKET_ANY,
				DVP_MEMPOOL_F_DEBUG);
	assert_non_null(mp);
	assert_int_equal(dvp_mempool_get(mp, &o), 0);
	memset(o, 0, 41); /* fine */
	dvp_mempool_put(mp, o);
	assert_int_equal(dvp_mempool_debug_errors(mp), 0);
	assert_int_equal(dvp_mempool_get(mp, &o), 0);
	memset(o, 0, 43); /* two bytes too many */
	dvp_log_capture_begin(&c);
	dvp_mempool_put(mp, o);
	dvp_log_capture_end(&c);
	assert_contains(c.buf, "overrun: object");
	assert_contains(c.buf, "was written past its 41 bytes");
	dvp_log_capture_free(&c);
	assert_int_equal(dvp_mempool_debug_errors(mp), 1);
	/* repaired and back in the pool */
	assert_int_equal(dvp_mempool_in_use_count(mp), 0);
	dvp_mempool_free(mp);
}

static void test_debug_foreign_objects(void **state)
{
	struct dvp_mempool *a, *b;
	struct dvp_log_capture c;
	char local[64];
	void *oa, *ob;

	(void)state;
	a = dvp_mempool_create("mp_a", 16, 64, 0, 0, NULL, NULL, DVP_SOCKET_ANY,
			       DVP_MEMPOOL_F_DEBUG);
	b = dvp_mempool_create("mp_b", 16, 64, 0, 0, NULL, NULL, DVP_SOCKET_ANY,
			       DVP_MEMPOOL_F_DEBUG);
	assert_non_null(a);
	assert_non_null(b);
	assert_int_equal(dvp_mempool_get(a, &oa), 0);
	assert_int_equal(dvp_mempool_get(b, &ob), 0);
	dvp_log_capture_begin(&c);
	dvp_mempool_put(a, ob); /* wrong pool */
	dvp_mempool_put(a, local); /* not a pool object at all */
	dvp_mempool_put(a, (char *)oa + 8); /* inside an object */
	dvp_log_capture_end(&c);
	assert_contains(c.buf, "mempool mp_a: put of");
	assert_contains(c.buf, "which is not an object of this pool");
	dvp_log_capture_free(&c);
	assert_int_equal(dvp_mempool_debug_errors(a), 3);
	assert_int_equal(dvp_mempool_in_use_count(a), 1);
	dvp_mempool_put(a, oa);
	dvp_mempool_put(b, ob);
	assert_int_equal(dvp_mempool_in_use_count(a), 0);
	assert_int_equal(dvp_mempool_in_use_count(b), 0);
	dvp_mempool_free(a);
	dvp_mempool_free(b);
}

static void test_debug_write_while_free(void **state)
{
	struct dvp_log_capture c;
	struct dvp_mempool *mp;
	void *o, *o2;

	(void)state;
	mp = dvp_mempool_create("mp_uaf", 1, 32, 0, 0, NULL, NULL, DVP_SOCKET_ANY,
				DVP_MEMPOOL_F_DEBUG);
	assert_non_null(mp);
	assert_int_equal(dvp_mempool_get(mp, &o), 0);
	dvp_mempool_put(mp, o);
	memset(o, 0x55, 40); /* use after free, past the end too */
	dvp_log_capture_begin(&c);
	assert_int_equal(dvp_mempool_get(mp, &o2), 0);
	dvp_log_capture_end(&c);
	assert_ptr_equal(o, o2);
	assert_contains(c.buf,
			"damaged trailer cookie: it was written past its 32 bytes while free");
	dvp_log_capture_free(&c);
	assert_int_equal(dvp_mempool_debug_errors(mp), 1);
	dvp_mempool_put(mp, o2);
	dvp_mempool_free(mp);
}

/* ---------------------------------------------------------------------------
 * Two lcores share a pool with caches: no object is ever held twice, and
 * every object comes back.
 */

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define CONC_ROUNDS 20000u
#else
#define CONC_ROUNDS 500000u
#endif

struct conc_obj {
	_Atomic unsigned int owner; /* 0: free; else lcore id + 1 */
	unsigned int pad;
	uint64_t uses;
};

struct conc {
	struct dvp_mempool *mp;
	uint64_t gets[2], fails[2], double_owner[2];
};

static void conc_obj_init(struct dvp_mempool *mp, void *opaque, void *obj, unsigned int idx)
{
	(void)mp;
	(void)opaque;
	(void)idx;
	memset(obj, 0, sizeof(struct conc_obj));
}

static int conc_worker(void *arg)
{
	struct conc *c = arg;
	unsigned int me = dvp_lcore_id(), r, i, n;
	void *held[64];

	for (r = 0; r < CONC_ROUNDS; r++) {
		n = 1 + (r * 7 + me) % 40;
		if (dvp_mempool_get_bulk(c->mp, held, n) < 0) {
			c->fails[me]++;
			continue;
		}
		for (i = 0; i < n; i++) {
			struct conc_obj *o = held[i];
			unsigned int expect = 0;

			if (!atomic_compare_exchange_strong(&o->owner, &expect, me + 1))
				c->double_owner[me]++;
			o->uses++;
		}
		for (i = 0; i < n; i++)
			atomic_store(&((struct conc_obj *)held[i])->owner, 0);
		dvp_mempool_put_bulk(c->mp, held, n);
		c->gets[me] += n;
	}
	/* leave nothing in this lcore's cache */
	dvp_mempool_cache_flush(dvp_mempool_default_cache(c->mp, me), c->mp);
	return 0;
}

static void test_concurrent_two_lcores(void **state)
{
	struct conc c;

	(void)state;
	memset(&c, 0, sizeof(c));
	/* tight: 2 x (1.5 x 32 cached + 40 held) > 128, so lcores steal from each other */
	c.mp = dvp_mempool_create("mp_conc", 128, sizeof(struct conc_obj), 32, 0, conc_obj_init,
				  NULL, DVP_SOCKET_ANY, DVP_MEMPOOL_F_DEBUG);
	assert_non_null(c.mp);
	assert_int_equal(dvp_eal_remote_launch(conc_worker, &c, 1), 0);
	conc_worker(&c);
	assert_int_equal(dvp_eal_wait_lcore(1), 0);
	assert_int_equal(c.double_owner[0] + c.double_owner[1], 0);
	assert_true(c.gets[0] > 0 && c.gets[1] > 0);
	assert_int_equal(dvp_mempool_in_use_count(c.mp), 0);
	assert_int_equal(dvp_ring_count(c.mp->ring), 128);
	assert_int_equal(dvp_mempool_debug_errors(c.mp), 0);
	dvp_mempool_free(c.mp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create_bad_args),
		cmocka_unit_test(test_create_lookup_free),
		cmocka_unit_test(test_get_put_no_cache),
		cmocka_unit_test(test_cache),
		cmocka_unit_test(test_cache_short_ring),
		cmocka_unit_test(test_cache_zc_get),
		cmocka_unit_test(test_non_eal_thread),
		cmocka_unit_test(test_iterators_several_chunks),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_dump),
		cmocka_unit_test(test_free_with_objects_out_warns),
		cmocka_unit_test(test_debug_double_free),
		cmocka_unit_test(test_debug_large_put),
		cmocka_unit_test(test_debug_overrun),
		cmocka_unit_test(test_debug_foreign_objects),
		cmocka_unit_test(test_debug_write_while_free),
		cmocka_unit_test(test_concurrent_two_lcores),
	};

	return cmocka_run_group_tests_name("mempool", tests, dvp_test_eal_setup,
					   dvp_test_eal_teardown);
}
