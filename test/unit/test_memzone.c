/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* lib/eal memzones: reserve, lookup, walk, free, alignment and bad input. */

#include "dvp_test_eal.h"

#include <unistd.h>

#include <dvp_lcore.h>
#include <dvp_malloc.h>
#include <dvp_memzone.h>

static int setup(void **state)
{
	(void)state;
	return dvp_test_eal_init("--no-huge", "-m", "16") == 3 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return dvp_eal_cleanup();
}

static void count_zone(const struct dvp_memzone *mz, void *arg)
{
	(void)mz;
	(*(int *)arg)++;
}

static void test_reserve_lookup_free(void **state)
{
	const struct dvp_memzone *a, *b;
	int n = 0;

	(void)state;
	a = dvp_memzone_reserve("mz_a", 1000, dvp_socket_id(), 0);
	assert_non_null(a);
	assert_string_equal(a->name, "mz_a");
	assert_int_equal(a->len, 1024); /* rounded to cache lines */
	assert_int_equal((uintptr_t)a->addr % DVP_CACHE_LINE_SIZE, 0);
	assert_int_equal(a->socket_id, dvp_socket_id());
	assert_int_equal(a->hugepage_sz, (size_t)sysconf(_SC_PAGESIZE));
	memset(a->addr, 1, a->len);
	b = dvp_memzone_reserve_aligned("mz_b", 5000, DVP_SOCKET_ANY, 0, 1 << 20);
	assert_non_null(b);
	assert_int_equal((uintptr_t)b->addr % (1 << 20), 0);
	assert_ptr_equal(dvp_memzone_lookup("mz_a"), a);
	assert_ptr_equal(dvp_memzone_lookup("mz_b"), b);
	dvp_memzone_walk(count_zone, &n);
	assert_int_equal(n, 2);
	assert_int_equal(dvp_memzone_free(a), 0);
	assert_null(dvp_memzone_lookup("mz_a"));
	assert_int_equal(dvp_errno, ENOENT);
	assert_int_equal(dvp_memzone_free(b), 0);
	n = 0;
	dvp_memzone_walk(count_zone, &n);
	assert_int_equal(n, 0);
}

static void test_errors(void **state)
{
	struct dvp_log_capture cap;
	const struct dvp_memzone *a;
	size_t k;

	(void)state;
	a = dvp_memzone_reserve("dup", 64, DVP_SOCKET_ANY, 0);
	assert_non_null(a);
	dvp_log_capture_begin(&cap);
	assert_null(dvp_memzone_reserve("dup", 64, DVP_SOCKET_ANY, 0));
	assert_int_equal(dvp_errno, EEXIST);
	assert_null(dvp_memzone_reserve("0123456789012345678901234567890123", 64, 0, 0));
	assert_int_equal(dvp_errno, EINVAL);
	assert_null(dvp_memzone_reserve("zero", 0, 0, 0));
	assert_int_equal(dvp_errno, EINVAL);
	assert_null(dvp_memzone_reserve_aligned("odd", 64, 0, 0, 48));
	assert_int_equal(dvp_errno, EINVAL);
	assert_null(dvp_memzone_reserve("flags", 64, 0, 0x100));
	assert_int_equal(dvp_errno, EINVAL);
	assert_null(dvp_memzone_reserve("nonode", 64, (int)dvp_socket_count(), 0));
	assert_int_equal(dvp_errno, EINVAL);
	/* Lengths whose rounding to a cache line would wrap: refused, nothing reserved. */
	for (k = 0; k <= 70; k++) {
		assert_null(dvp_memzone_reserve("huge", SIZE_MAX - k, DVP_SOCKET_ANY, 0));
		assert_int_equal(dvp_errno, ENOMEM);
		assert_null(dvp_memzone_lookup("huge"));
	}
	/* --no-huge memory sits on small pages: a 2 MB page zone fails unless a hint. */
	assert_null(dvp_memzone_reserve("on2mb", 64, 0, DVP_MEMZONE_2MB));
	assert_int_equal(dvp_errno, ENOMEM);
	assert_int_equal(dvp_memzone_free(a), 0);
	assert_int_equal(dvp_memzone_free(a), -EINVAL);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "memzone 'dup' (64 bytes): a memzone of this name exists");
	assert_contains(cap.buf, "1 to 31 characters");
	assert_contains(cap.buf, "the length is 0");
	assert_contains(cap.buf, "not a power of two");
	assert_contains(cap.buf, "unknown flags");
	assert_contains(cap.buf, "('nonode')");
	assert_contains(cap.buf,
			"memzone 'huge' (18446744073709551615 bytes): larger than any heap");
	assert_contains(cap.buf, "DVP_MEMZONE_SIZE_HINT_ONLY");
	assert_contains(cap.buf, "freed twice");
	dvp_log_capture_free(&cap);

	a = dvp_memzone_reserve("hint", 64, 0, DVP_MEMZONE_2MB | DVP_MEMZONE_SIZE_HINT_ONLY);
	assert_non_null(a);
	assert_int_equal(dvp_memzone_free(a), 0);
}

static void test_name_reusable_and_dump(void **state)
{
	const struct dvp_memzone *a;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	a = dvp_memzone_reserve("again", 128, 0, 0);
	assert_non_null(a);
	f = open_memstream(&buf, &len);
	dvp_memzone_dump(f);
	fclose(f);
	assert_contains(buf, "memzone 'again'");
	free(buf);
	assert_int_equal(dvp_memzone_free(a), 0);
	a = dvp_memzone_reserve("again", 128, 0, 0);
	assert_non_null(a);
	assert_int_equal(dvp_memzone_free(a), 0);
}

static void test_cleanup_forgets_zones(void **state)
{
	(void)state;
	assert_non_null(dvp_memzone_reserve("left", 64, 0, 0));
	assert_int_equal(dvp_eal_cleanup(), 0);
	assert_null(dvp_memzone_lookup("left"));
	assert_null(dvp_memzone_reserve("early", 64, 0, 0));
	assert_int_equal(dvp_errno, E_DVP_NO_INIT);
	assert_int_equal(dvp_test_eal_init("--no-huge", "-m", "16"), 3);
	assert_null(dvp_memzone_lookup("left"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reserve_lookup_free),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_name_reusable_and_dump),
		cmocka_unit_test(test_cleanup_forgets_zones),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
