/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* lib/ring on one thread: geometry, bulk/burst, full/empty, counter wrap. */

#include "dvp_test.h"

#include <dvp_errno.h>
#include <dvp_ring.h>

#include "ring_private.h"

static struct dvp_ring *ring_alloc(unsigned int count, unsigned int esize, unsigned int flags)
{
	ssize_t sz = dvp_ring_get_memsize_elem(count, esize);
	struct dvp_ring *r;

	assert_true(sz > 0);
	r = aligned_alloc(2 * DVP_CACHE_LINE_SIZE, DVP_ALIGN_CEIL((size_t)sz, 128));
	assert_non_null(r);
	assert_int_equal(dvp_ring_init_elem(r, "t", count, esize, flags), 0);
	return r;
}

static void test_init_geometry(void **state)
{
	struct dvp_ring *r;

	(void)state;
	r = ring_alloc(64, 8, 0);
	assert_int_equal(dvp_ring_get_size(r), 64);
	assert_int_equal(dvp_ring_get_capacity(r), 63);
	assert_int_equal(dvp_ring_count(r), 0);
	assert_int_equal(dvp_ring_free_count(r), 63);
	assert_true(dvp_ring_empty(r));
	assert_false(dvp_ring_full(r));
	free(r);

	r = ring_alloc(100, 8, DVP_RING_F_EXACT_SZ);
	assert_int_equal(dvp_ring_get_size(r), 128);
	assert_int_equal(dvp_ring_get_capacity(r), 100);
	free(r);
}

static void test_init_bad_args(void **state)
{
	struct dvp_log_capture c;
	struct dvp_ring *r;

	(void)state;
	r = ring_alloc(8, 8, 0);
	dvp_log_capture_begin(&c);
	assert_int_equal(dvp_ring_init(r, "t", 100, 0), -EINVAL);
	assert_int_equal(dvp_errno, EINVAL);
	assert_int_equal(dvp_ring_init(r, "t", 0, DVP_RING_F_EXACT_SZ), -EINVAL);
	assert_int_equal(dvp_ring_init_elem(r, "t", 8, 6, 0), -EINVAL);
	assert_int_equal(dvp_ring_init(r, "t", 8, 0x80), -EINVAL);
	assert_int_equal(dvp_ring_init(r, "", 8, 0), -EINVAL);
	assert_int_equal(dvp_ring_init(r, "a-name-that-is-far-too-long-for-a-ring", 8, 0), -EINVAL);
	dvp_log_capture_end(&c);
	assert_contains(c.buf, "count 100 is invalid: it must be a power of two");
	assert_contains(c.buf, "element size 6 is invalid");
	assert_contains(c.buf, "unknown flags 0x80");
	assert_contains(c.buf, "ring name '' is invalid");
	dvp_log_capture_free(&c);
	free(r);
}

static void test_bulk_burst_pointers(void **state)
{
	struct dvp_ring *r = ring_alloc(16, 8, 0);
	void *in[32], *out[32];
	unsigned int i, fs, av;

	(void)state;
	for (i = 0; i < 32; i++)
		in[i] = (void *)(uintptr_t)(i + 1);
	/* bulk larger than the ring: nothing */
	assert_int_equal(dvp_ring_enqueue_bulk(r, in, 16, &fs), 0);
	assert_int_equal(fs, 15);
	assert_int_equal(dvp_ring_enqueue_bulk(r, in, 10, &fs), 10);
	assert_int_equal(fs, 5);
	assert_int_equal(dvp_ring_mp_enqueue_bulk(r, in + 10, 6, &fs), 0);
	assert_int_equal(dvp_ring_sp_enqueue_burst(r, in + 10, 6, &fs), 5);
	assert_int_equal(fs, 0);
	assert_true(dvp_ring_full(r));
	assert_int_equal(dvp_ring_enqueue(r, in[0]), -ENOBUFS);
	/* zero-size requests */
	assert_int_equal(dvp_ring_enqueue_burst(r, in, 0, &fs), 0);
	assert_int_equal(dvp_ring_dequeue_bulk(r, out, 0, &av), 0);
	assert_int_equal(av, 15);
	assert_int_equal(dvp_ring_mc_dequeue_bulk(r, out, 16, &av), 0);
	assert_int_equal(av, 15);
	assert_int_equal(dvp_ring_sc_dequeue_bulk(r, out, 4, &av), 4);
	assert_int_equal(av, 11);
	assert_int_equal(dvp_ring_mc_dequeue_burst(r, out + 4, 32, &av), 11);
	assert_int_equal(av, 0);
	for (i = 0; i < 15; i++)
		assert_ptr_equal(out[i], in[i]);
	assert_true(dvp_ring_empty(r));
	assert_int_equal(dvp_ring_dequeue(r, &out[0]), -ENOENT);
	assert_int_equal(dvp_ring_sc_dequeue_burst(r, out, 4, NULL), 0);
	free(r);
}

static void test_elem_sizes(void **state)
{
	static const unsigned int sizes[] = { 4, 8, 12, 16, 20, 64 };
	unsigned int s, i, k;

	(void)state;
	for (s = 0; s < DVP_DIM(sizes); s++) {
		unsigned int esize = sizes[s];
		struct dvp_ring *r = ring_alloc(8, esize, DVP_RING_F_SP_ENQ | DVP_RING_F_SC_DEQ);
		uint8_t in[7 * 64], out[7 * 64];

		assert_int_equal(dvp_ring_get_esize(r), esize);
		/* several rounds so the copies wrap at every offset */
		for (k = 0; k < 20; k++) {
			unsigned int n = 1 + k % 7;

			for (i = 0; i < n * esize; i++)
				in[i] = (uint8_t)(k * 31 + i);
			assert_int_equal(dvp_ring_enqueue_bulk_elem(r, in, esize, n, NULL), n);
			memset(out, 0, sizeof(out));
			assert_int_equal(dvp_ring_dequeue_burst_elem(r, out, esize, 8, NULL), n);
			assert_memory_equal(in, out, n * esize);
		}
		free(r);
	}
}

/* Counters started just below 2^32 wrap during the test: FIFO order and counts hold. */
static void test_counter_wrap(void **state)
{
	struct dvp_ring *r = ring_alloc(32, 8, 0);
	uintptr_t next_in = 1, next_out = 1;
	void *buf[32];
	unsigned int round, i, n;

	(void)state;
	dvp_ring_test_set_counters(r, UINT32_MAX - 40);
	for (round = 0; round < 200; round++) {
		n = 1 + round % 31;
		for (i = 0; i < n; i++)
			buf[i] = (void *)next_in++;
		n = dvp_ring_mp_enqueue_burst(r, buf, n, NULL);
		next_in -= (1 + round % 31) - n;
		assert_true(dvp_ring_count(r) <= 31);
		n = dvp_ring_mc_dequeue_burst(r, buf, 1 + (round * 7) % 31, NULL);
		for (i = 0; i < n; i++)
			assert_ptr_equal(buf[i], (void *)next_out++);
	}
	n = dvp_ring_dequeue_burst(r, buf, 32, NULL);
	for (i = 0; i < n; i++)
		assert_ptr_equal(buf[i], (void *)next_out++);
	assert_int_equal(next_in, next_out);
	assert_true(dvp_ring_empty(r));
	/* the counters did cross zero */
	assert_true(atomic_load(&r->prod.tail) < UINT32_MAX - 40);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_geometry),	    cmocka_unit_test(test_init_bad_args),
		cmocka_unit_test(test_bulk_burst_pointers), cmocka_unit_test(test_elem_sizes),
		cmocka_unit_test(test_counter_wrap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
