/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * lib/ring: geometry, bulk/burst, full/empty, counter wrap, named rings, and
 * two lcores moving millions of values through MP/MC and SP/SC rings (this
 * program is also in suite 'concurrent', run under TSan).
 */

#include "dvp_test_eal.h"

#include <inttypes.h>

#include <dvp_eal.h>
#include <dvp_errno.h>
#include <dvp_lcore.h>
#include <dvp_memzone.h>
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

/*
 * Single-thread calls keep their position in the tail and leave the head
 * behind; multi-thread calls after them must start from the tail. Every mix
 * of the two, on both sides, across the counters' wrap: FIFO order, counts,
 * and a full or empty ring refusing what does not fit.
 */
static void test_single_multi_handover(void **state)
{
	struct dvp_ring *r = ring_alloc(8, 8, 0);
	uintptr_t next_in = 1, next_out = 1;
	unsigned int step, i, n, want, room, avail;
	void *buf[8];
	char *dump = NULL, line[96];
	size_t len = 0;
	FILE *f;

	(void)state;
	dvp_ring_test_set_counters(r, UINT32_MAX - 300);
	for (step = 0; step < 4000; step++) {
		/* periods 7 and 11 steps: every pairing of modes, and long
		 * single-thread runs (several ring sizes) between switches */
		bool sp = (step / 7) % 2, sc = (step / 11) % 2;

		want = 1 + (step * 5) % 8;
		room = 7 - (unsigned int)(next_in - next_out);
		for (i = 0; i < want; i++)
			buf[i] = (void *)(next_in + i);
		if (step % 3 == 0) {
			n = sp ? dvp_ring_sp_enqueue_bulk(r, buf, want, NULL) :
				 dvp_ring_mp_enqueue_bulk(r, buf, want, NULL);
			assert_int_equal(n, want <= room ? want : 0);
		} else {
			n = sp ? dvp_ring_sp_enqueue_burst(r, buf, want, NULL) :
				 dvp_ring_mp_enqueue_burst(r, buf, want, NULL);
			assert_int_equal(n, want <= room ? want : room);
		}
		next_in += n;
		assert_int_equal(dvp_ring_count(r), next_in - next_out);

		want = 1 + (step * 3) % 8;
		avail = (unsigned int)(next_in - next_out);
		n = sc ? dvp_ring_sc_dequeue_burst(r, buf, want, NULL) :
			 dvp_ring_mc_dequeue_burst(r, buf, want, NULL);
		assert_int_equal(n, want <= avail ? want : avail);
		for (i = 0; i < n; i++)
			assert_ptr_equal(buf[i], (void *)next_out++);
	}
	assert_true(next_out > 4000);
	/* a single-thread enqueue leaves the head behind the tail; the dump
	 * shows where the next call of either kind starts */
	assert_int_equal(dvp_ring_sp_enqueue_bulk(r, buf, 1, NULL), 1);
	snprintf(line, sizeof(line), "prod: multi head=%" PRIu32 " tail=%" PRIu32,
		 atomic_load(&r->prod.tail), atomic_load(&r->prod.tail));
	f = open_memstream(&dump, &len);
	dvp_ring_dump(f, r);
	fclose(f);
	assert_contains(dump, line);
	free(dump);
	free(r);
}

static void test_create_lookup_free(void **state)
{
	struct dvp_ring *r, *r2;
	struct dvp_log_capture c;

	(void)state;
	r = dvp_ring_create("t_named", 1024, DVP_SOCKET_ANY, DVP_RING_F_SP_ENQ);
	assert_non_null(r);
	assert_ptr_equal(dvp_ring_lookup("t_named"), r);
	assert_string_equal(dvp_ring_get_name(r), "t_named");
	assert_int_equal(dvp_ring_get_capacity(r), 1023);
	assert_true(r->prod.single);
	assert_false(r->cons.single);
	assert_true((uintptr_t)r % 128 == 0);
	/* the slot array lies within the zone */
	assert_true((char *)__dvp_ring_slots(r) + 1024 * 8 <=
		    (char *)r->memzone->addr + r->memzone->len);

	dvp_log_capture_begin(&c);
	r2 = dvp_ring_create("t_named", 64, DVP_SOCKET_ANY, 0);
	assert_null(r2);
	assert_int_equal(dvp_errno, EEXIST);
	assert_null(dvp_ring_create("t_bad", 1000, DVP_SOCKET_ANY, 0));
	assert_int_equal(dvp_errno, EINVAL);
	assert_null(dvp_ring_create_elem("t_bad", 64, 3, DVP_SOCKET_ANY, 0));
	assert_int_equal(dvp_errno, EINVAL);
	assert_null(dvp_ring_create(NULL, 64, DVP_SOCKET_ANY, 0));
	assert_int_equal(dvp_errno, EINVAL);
	dvp_log_capture_end(&c);
	assert_contains(c.buf, "ring t_named: a ring of that name exists");
	assert_contains(c.buf, "count 1000 is invalid");
	assert_contains(c.buf, "element size 3 is invalid");
	dvp_log_capture_free(&c);

	dvp_ring_free(r);
	assert_null(dvp_ring_lookup("t_named"));
	assert_int_equal(dvp_errno, ENOENT);
	assert_null(dvp_ring_lookup(NULL));
	dvp_ring_free(NULL);

	/* exact size, elements of 16 bytes */
	r = dvp_ring_create_elem("t_exact", 1000, 16, DVP_SOCKET_ANY, DVP_RING_F_EXACT_SZ);
	assert_non_null(r);
	assert_int_equal(dvp_ring_get_capacity(r), 1000);
	assert_int_equal(dvp_ring_get_size(r), 1024);
	{
		uint64_t v[2] = { 1, 2 }, o[2];
		unsigned int i;

		for (i = 0; i < 1000; i++)
			assert_int_equal(dvp_ring_enqueue_elem(r, v, 16), 0);
		assert_int_equal(dvp_ring_enqueue_elem(r, v, 16), -ENOBUFS);
		assert_true(dvp_ring_full(r));
		assert_int_equal(dvp_ring_dequeue_elem(r, o, 16), 0);
		assert_int_equal(o[1], 2);
	}
	dvp_ring_reset(r);
	assert_true(dvp_ring_empty(r));
	dvp_ring_free(r);
}

static void test_free_of_init_ring_is_refused(void **state)
{
	struct dvp_ring *r = ring_alloc(8, 8, 0);
	struct dvp_log_capture c;

	(void)state;
	dvp_log_capture_begin(&c);
	dvp_ring_free(r);
	dvp_log_capture_end(&c);
	assert_contains(c.buf, "free that memory instead");
	dvp_log_capture_free(&c);
	free(r);
}

static void test_dump(void **state)
{
	struct dvp_ring *r = ring_alloc(8, 8, DVP_RING_F_SC_DEQ);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_int_equal(dvp_ring_enqueue(r, (void *)1), 0);
	dvp_ring_dump(f, r);
	fclose(f);
	assert_contains(buf, "ring <t>");
	assert_contains(buf, "size=8 capacity=7");
	assert_contains(buf, "cons: single");
	assert_contains(buf, "used=1 avail=6");
	free(buf);
	free(r);
	/* No ring: a line that says so. */
	f = open_memstream(&buf, &len);
	dvp_ring_dump(f, NULL);
	fclose(f);
	assert_string_equal(buf, "ring: (null)\n");
	free(buf);
}

/* ---------------------------------------------------------------------------
 * Two lcores. Values are (producer << 56 | sequence); checksums are sums.
 */

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define CONC_VALUES (200u * 1000u) /* sanitizers are 5-20x slower */
#else
#define CONC_VALUES (4u * 1000u * 1000u)
#endif

struct conc {
	struct dvp_ring *r;
	bool mp; /* both lcores produce and consume; else lcore 1 produces, main consumes */
	uint64_t produced[2], consumed[2]; /* counts */
	uint64_t sum_in[2], sum_out[2]; /* checksums */
	uint64_t order_errors[2];
	_Atomic unsigned int producers_done;
};

static void conc_consume(struct conc *c, unsigned int me, void **buf, unsigned int n,
			 uint64_t last_seq[2])
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		uint64_t v = (uint64_t)(uintptr_t)buf[i];
		unsigned int prod = (unsigned int)(v >> 56);
		uint64_t seq = v & ((1ull << 56) - 1);

		/* FIFO: each consumer sees each producer's values in order */
		if (prod > 1 || seq <= last_seq[prod])
			c->order_errors[me]++;
		last_seq[prod] = seq;
		c->sum_out[me] += v;
	}
	c->consumed[me] += n;
}

static int conc_worker(struct conc *c, unsigned int me)
{
	void *buf[48];
	uint64_t seq = 0, last_seq[2] = { 0, 0 };
	unsigned int i, n, want, burst = 1;
	bool produce = c->mp || me == 1, consume = c->mp || me == 0;

	while ((produce && seq < CONC_VALUES) || consume) {
		burst = burst % 47 + 1; /* every size from 1 to 47 */
		if (produce && seq < CONC_VALUES) {
			want = (unsigned int)DVP_MIN((uint64_t)burst, CONC_VALUES - seq);
			for (i = 0; i < want; i++)
				buf[i] = (void *)(uintptr_t)((uint64_t)me << 56 | (seq + 1 + i));
			if (burst & 1)
				n = c->mp ? dvp_ring_mp_enqueue_bulk(c->r, buf, want, NULL) :
					    dvp_ring_sp_enqueue_bulk(c->r, buf, want, NULL);
			else
				n = c->mp ? dvp_ring_mp_enqueue_burst(c->r, buf, want, NULL) :
					    dvp_ring_sp_enqueue_burst(c->r, buf, want, NULL);
			for (i = 0; i < n; i++)
				c->sum_in[me] += (uint64_t)(uintptr_t)buf[i];
			seq += n;
			c->produced[me] += n;
			if (seq == CONC_VALUES)
				atomic_fetch_add(&c->producers_done, 1);
		}
		if (consume) {
			if (burst & 2)
				n = c->mp ? dvp_ring_mc_dequeue_bulk(c->r, buf, burst, NULL) :
					    dvp_ring_sc_dequeue_bulk(c->r, buf, burst, NULL);
			else
				n = c->mp ? dvp_ring_mc_dequeue_burst(c->r, buf, burst, NULL) :
					    dvp_ring_sc_dequeue_burst(c->r, buf, burst, NULL);
			conc_consume(c, me, buf, n, last_seq);
			if (n == 0 && atomic_load(&c->producers_done) == (c->mp ? 2u : 1u)) {
				/* producers are done: drain what is left, then stop */
				n = c->mp ? dvp_ring_mc_dequeue_burst(c->r, buf, 48, NULL) :
					    dvp_ring_sc_dequeue_burst(c->r, buf, 48, NULL);
				conc_consume(c, me, buf, n, last_seq);
				if (n == 0)
					consume = false;
			}
		}
	}
	return 0;
}

static int conc_lcore1(void *arg)
{
	return conc_worker(arg, 1);
}

static void run_concurrent(unsigned int flags, bool mp)
{
	struct conc c;
	uint64_t expect_sum = 0, k;
	unsigned int p;

	memset(&c, 0, sizeof(c));
	c.mp = mp;
	c.r = dvp_ring_create("t_conc", 512, DVP_SOCKET_ANY, flags);
	assert_non_null(c.r);
	/* wrap the 32-bit counters while both lcores are at it */
	dvp_ring_test_set_counters(c.r, UINT32_MAX - 100000);
	assert_int_equal(dvp_eal_remote_launch(conc_lcore1, &c, 1), 0);
	conc_worker(&c, 0);
	assert_int_equal(dvp_eal_wait_lcore(1), 0);

	for (p = 0; p < (mp ? 2u : 1u); p++)
		for (k = 1; k <= CONC_VALUES; k++)
			expect_sum += (uint64_t)(mp ? p : 1) << 56 | k;
	assert_int_equal(c.produced[0] + c.produced[1], (uint64_t)CONC_VALUES * (mp ? 2 : 1));
	assert_int_equal(c.consumed[0] + c.consumed[1], c.produced[0] + c.produced[1]);
	assert_int_equal(c.sum_in[0] + c.sum_in[1], expect_sum);
	assert_int_equal(c.sum_out[0] + c.sum_out[1], expect_sum);
	assert_int_equal(c.order_errors[0] + c.order_errors[1], 0);
	assert_true(dvp_ring_empty(c.r));
	dvp_ring_free(c.r);
}

static void test_concurrent_mp_mc(void **state)
{
	(void)state;
	run_concurrent(0, true);
}

static void test_concurrent_sp_sc(void **state)
{
	(void)state;
	run_concurrent(DVP_RING_F_SP_ENQ | DVP_RING_F_SC_DEQ, false);
}

int main(void)
{
	const struct CMUnitTest alone[] = {
		cmocka_unit_test(test_init_geometry),
		cmocka_unit_test(test_init_bad_args),
		cmocka_unit_test(test_bulk_burst_pointers),
		cmocka_unit_test(test_elem_sizes),
		cmocka_unit_test(test_counter_wrap),
		cmocka_unit_test(test_single_multi_handover),
		cmocka_unit_test(test_dump),
	};
	const struct CMUnitTest with_eal[] = {
		cmocka_unit_test(test_create_lookup_free),
		cmocka_unit_test(test_free_of_init_ring_is_refused),
		cmocka_unit_test(test_concurrent_mp_mc),
		cmocka_unit_test(test_concurrent_sp_sc),
	};
	int fails;

	fails = cmocka_run_group_tests_name("ring", alone, NULL, NULL);
	fails += cmocka_run_group_tests_name("ring_eal", with_eal, dvp_test_eal_setup,
					     dvp_test_eal_teardown);
	return fails;
}
