/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * lib/eal heap with --no-huge: alignment, zeroing, free and reuse, bad
 * input, exhaustion under --socket-limit, growth, and placement checked on
 * touched pages with get_mempolicy() and move_pages().
 */

#include "dvp_test_eal.h"
#include "dvp_test_numa.h"

#include <numa.h>
#include <stdint.h>
#include <unistd.h>

#include <dvp_lcore.h>
#include <dvp_malloc.h>

static int setup(void **state)
{
	(void)state;
	return dvp_test_eal_init("--no-huge", "-m", "32") == 3 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return dvp_eal_cleanup();
}

static void test_alignment_and_sizes(void **state)
{
	static const size_t sizes[] = { 1, 63, 64, 65, 1000, 4096, 100000, 3 << 20 };
	static const unsigned int aligns[] = { 0, 64, 128, 4096, 65536, 1 << 21 };
	size_t i, j;
	void *p;

	(void)state;
	for (i = 0; i < DVP_DIM(sizes); i++) {
		for (j = 0; j < DVP_DIM(aligns); j++) {
			p = dvp_malloc("t", sizes[i], aligns[j]);
			assert_non_null(p);
			assert_int_equal((uintptr_t)p % (aligns[j] ? aligns[j] : 64), 0);
			memset(p, 0xa5, sizes[i]);
			dvp_free(p);
		}
	}
}

static void test_zmalloc_zeroes_reused_memory(void **state)
{
	unsigned char *p, *q;
	size_t i;

	(void)state;
	p = dvp_malloc("dirty", 8192, 0);
	assert_non_null(p);
	memset(p, 0xff, 8192);
	dvp_free(p);
	q = dvp_zmalloc("clean", 8192, 0);
	assert_ptr_equal(p, q); /* first fit gives the same block back */
	for (i = 0; i < 8192; i++)
		assert_int_equal(q[i], 0);
	dvp_free(q);
	q = dvp_calloc("c", 100, 40, 0);
	assert_non_null(q);
	for (i = 0; i < 4000; i++)
		assert_int_equal(q[i], 0);
	dvp_free(q);
}

/* Random allocations and frees against a shadow copy: nothing overlaps, all merges back. */
static void test_no_overlap_and_full_coalescing(void **state)
{
	enum { N = 600 };
	static unsigned char *p[N];
	static size_t sz[N];
	struct dvp_malloc_socket_stats before, after;
	unsigned int seed = 12345, i, k, round;
	int s = dvp_socket_id();

	(void)state;
	assert_int_equal(dvp_malloc_get_socket_stats(s, &before), 0);
	memset(p, 0, sizeof(p));
	for (round = 0; round < 4; round++) {
		for (i = 0; i < N; i++) {
			if (p[i] != NULL && rand_r(&seed) % 2 == 0)
				continue;
			if (p[i] != NULL) {
				for (k = 0; k < sz[i]; k++)
					assert_int_equal(p[i][k], (unsigned char)i);
				dvp_free(p[i]);
			}
			sz[i] = 1 + (size_t)rand_r(&seed) % 20000;
			p[i] = dvp_malloc_socket("shadow", sz[i], 64u << (rand_r(&seed) % 6), s);
			assert_non_null(p[i]);
			memset(p[i], (int)(unsigned char)i, sz[i]);
		}
	}
	for (i = 0; i < N; i++) {
		for (k = 0; k < sz[i]; k++)
			assert_int_equal(p[i][k], (unsigned char)i);
		dvp_free(p[i]);
	}
	assert_int_equal(dvp_malloc_get_socket_stats(s, &after), 0);
	assert_int_equal(after.alloc_count, before.alloc_count);
	assert_int_equal(after.heap_freesz_bytes, before.heap_freesz_bytes);
	assert_int_equal(after.greatest_free_size, before.greatest_free_size);
}

static void test_bad_input(void **state)
{
	struct dvp_log_capture cap;
	int x;

	(void)state;
	dvp_log_capture_begin(&cap);
	assert_null(dvp_malloc("zero", 0, 0));
	assert_int_equal(dvp_errno, EINVAL);
	assert_null(dvp_malloc("align", 64, 96));
	assert_int_equal(dvp_errno, EINVAL);
	assert_null(dvp_calloc("ovf", SIZE_MAX / 2, 4, 0));
	assert_int_equal(dvp_errno, EINVAL);
	assert_null(dvp_malloc_socket("node", 64, 0, (int)dvp_socket_count()));
	assert_int_equal(dvp_errno, EINVAL);
	dvp_free(&x);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "('zero'): the size is 0");
	assert_contains(cap.buf, "not a power of two");
	assert_contains(cap.buf, "overflows");
	assert_contains(cap.buf, "does not exist");
	assert_contains(cap.buf, "not memory from the EAL heap");
	dvp_log_capture_free(&cap);
	assert_int_equal(dvp_malloc_socket_of(&x), -1);
}

/*
 * Sizes near SIZE_MAX: the end of the block would wrap past the address
 * space. Every one fails (ENOMEM: no heap holds that much) whatever the
 * alignment, for malloc, zmalloc and calloc, and nothing is handed out.
 */
static void test_sizes_near_size_max(void **state)
{
	static const unsigned int aligns[] = { 0, 64, 4096 };
	struct dvp_malloc_socket_stats before, after;
	struct dvp_log_capture cap;
	unsigned int a;
	size_t k, size;
	void *keep;

	(void)state;
	/* A free element in the heap for the wrapped request to be carved from. */
	keep = dvp_malloc("keep", 1 << 20, 0);
	assert_non_null(keep);
	dvp_free(keep);
	assert_int_equal(dvp_malloc_get_socket_stats(dvp_malloc_socket_of(keep), &before), 0);
	dvp_log_capture_begin(&cap);
	for (a = 0; a < DVP_DIM(aligns); a++) {
		for (k = 0; k <= 130; k++) {
			size = SIZE_MAX - k;
			assert_null(dvp_malloc("huge", size, aligns[a]));
			assert_int_equal(dvp_errno, ENOMEM);
			assert_null(dvp_zmalloc("huge", size, aligns[a]));
			assert_int_equal(dvp_errno, ENOMEM);
			assert_null(dvp_calloc("huge", 1, size, aligns[a]));
			assert_int_equal(dvp_errno, ENOMEM);
		}
		assert_null(dvp_malloc("half", DVP_MALLOC_SIZE_MAX + 1, aligns[a]));
		assert_int_equal(dvp_errno, ENOMEM);
	}
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "('huge'): larger than any heap can hold");
	dvp_log_capture_free(&cap);
	assert_int_equal(dvp_malloc_get_socket_stats(dvp_malloc_socket_of(keep), &after), 0);
	assert_int_equal(after.alloc_count, before.alloc_count);
}

static void test_double_free_is_reported(void **state)
{
	struct dvp_log_capture cap;
	void *p = dvp_malloc("df", 256, 0);
	void *guard = dvp_malloc("guard", 256, 0); /* keeps p's block from merging away */

	(void)state;
	assert_non_null(p);
	dvp_free(p);
	dvp_log_capture_begin(&cap);
	dvp_free(p);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "freed twice");
	dvp_log_capture_free(&cap);
	dvp_free(guard);
}

static void test_growth_beyond_start_amount(void **state)
{
	struct dvp_malloc_socket_stats st;
	int s = dvp_socket_id();
	void *big;

	(void)state;
	/* 32 MB were mapped at start; the heap grows for 100 MB on the same node. */
	big = dvp_malloc_socket("big", 100u << 20, 0, s);
	assert_non_null(big);
	assert_int_equal(dvp_malloc_socket_of(big), s);
	assert_int_equal(dvp_malloc_get_socket_stats(s, &st), 0);
	assert_true(st.heap_totalsz_bytes >= (132u << 20));
	assert_int_equal(st.hugepage_sz, (size_t)sysconf(_SC_PAGESIZE));
	/* What a driver rounds a registration to: the segment's pages; 0 outside EAL memory. */
	assert_int_equal(dvp_mem_page_size(big), (size_t)sysconf(_SC_PAGESIZE));
	assert_int_equal(dvp_mem_page_size((char *)big + (100u << 20) - 1),
			 (size_t)sysconf(_SC_PAGESIZE));
	assert_int_equal(dvp_mem_page_size(&st), 0);
	dvp_free(big);
}

static void test_placement_on_every_node(void **state)
{
	unsigned int n;
	void *p;

	(void)state;
	if (numa_available() < 0)
		skip();
	for (n = 0; n < dvp_socket_count(); n++) {
		if (!numa_bitmask_isbitset(numa_all_nodes_ptr, n))
			continue;
		p = dvp_malloc_socket("placed", 64 * 4096, 4096, (int)n);
		assert_non_null(p);
		assert_int_equal(dvp_malloc_socket_of(p), (int)n);
		dvp_test_assert_pages_on(p, 64 * 4096, (size_t)sysconf(_SC_PAGESIZE), (int)n);
		dvp_free(p);
	}
}

static void test_exhaustion_under_socket_limit(void **state)
{
	struct dvp_log_capture cap;
	char limit[128] = "", start[128] = "";
	void *blocks[64];
	unsigned int i, n;
	int s;

	(void)state;
	assert_int_equal(dvp_eal_cleanup(), 0);
	for (i = 0; i < dvp_socket_count(); i++) {
		strcat(limit, i ? ",8" : "8");
		strcat(start, i ? ",4" : "4");
	}
	assert_int_equal(
		dvp_test_eal_init("--no-huge", "--socket-mem", start, "--socket-limit", limit), 5);
	s = dvp_socket_id();
	dvp_log_capture_begin(&cap);
	assert_null(dvp_malloc_socket("huge", 16u << 20, 0, s));
	dvp_log_capture_end(&cap);
	assert_int_equal(dvp_errno, ENOMEM);
	assert_contains(cap.buf, "('huge') on node");
	assert_contains(cap.buf, "--socket-limit allows 8 MB");
	dvp_log_capture_free(&cap);

	/* Fill the node in 512 KB blocks: growth stops at the limit. */
	dvp_log_capture_begin(&cap);
	for (n = 0; n < DVP_DIM(blocks); n++) {
		blocks[n] = dvp_malloc_socket("fill", 512u << 10, 0, s);
		if (blocks[n] == NULL)
			break;
	}
	dvp_log_capture_end(&cap);
	dvp_log_capture_free(&cap);
	assert_true(n >= 12 && n < 16);
	/* Freed blocks are reused. */
	for (i = 0; i < n; i++)
		dvp_free(blocks[i]);
	for (i = 0; i < n; i++) {
		blocks[i] = dvp_malloc_socket("again", 512u << 10, 0, s);
		assert_non_null(blocks[i]);
	}
	for (i = 0; i < n; i++)
		dvp_free(blocks[i]);
	assert_int_equal(dvp_eal_cleanup(), 0);
	assert_int_equal(dvp_test_eal_init("--no-huge", "-m", "32"), 3);
}

static void test_not_initialised(void **state)
{
	(void)state;
	assert_int_equal(dvp_eal_cleanup(), 0);
	assert_null(dvp_malloc("early", 64, 0));
	assert_int_equal(dvp_errno, E_DVP_NO_INIT);
	assert_int_equal(dvp_mem_page_size(&state), 0);
	assert_int_equal(dvp_test_eal_init("--no-huge", "-m", "32"), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alignment_and_sizes),
		cmocka_unit_test(test_zmalloc_zeroes_reused_memory),
		cmocka_unit_test(test_no_overlap_and_full_coalescing),
		cmocka_unit_test(test_bad_input),
		cmocka_unit_test(test_sizes_near_size_max),
		cmocka_unit_test(test_double_free_is_reported),
		cmocka_unit_test(test_growth_beyond_start_amount),
		cmocka_unit_test(test_placement_on_every_node),
		cmocka_unit_test(test_exhaustion_under_socket_limit),
		cmocka_unit_test(test_not_initialised),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
