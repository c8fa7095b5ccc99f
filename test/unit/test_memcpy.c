/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* lib/eal dvp_memcpy(): every length and alignment it copies inline, and past them. */

#include "dvp_test.h"

#include <stdint.h>
#include <string.h>

#include <dvp_memcpy.h>

enum { MAX_LEN = 300, GUARD = 32, ALIGNS = 16 };

/*
 * Each length from 0 to MAX_LEN at each source and destination alignment
 * modulo 16: exactly [dst, dst + n) holds the source's bytes, and the
 * guard bytes on either side are untouched (the inline runs overlap, so an
 * off-by-one would write just outside).
 */
static void test_copies_exactly_n_bytes(void **state)
{
	static uint8_t src[MAX_LEN + 2 * ALIGNS], dst[GUARD + MAX_LEN + ALIGNS + GUARD];
	size_t n, i;
	unsigned int sa, da;

	(void)state;
	for (i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 37 + 11);
	for (n = 0; n <= MAX_LEN; n++) {
		for (sa = 0; sa < ALIGNS; sa += 3) {
			for (da = 0; da < ALIGNS; da += 5) {
				uint8_t *d = dst + GUARD + da;

				memset(dst, 0xa5, sizeof(dst));
				dvp_memcpy(d, src + sa, n);
				assert_memory_equal(d, src + sa, n);
				for (i = 0; i < (size_t)(GUARD + da); i++)
					assert_int_equal(dst[i], 0xa5);
				for (i = GUARD + da + n; i < sizeof(dst); i++)
					assert_int_equal(dst[i], 0xa5);
			}
		}
	}
}

/* A length the compiler knows, as a caller copying a header would pass. */
static void test_constant_lengths(void **state)
{
	uint8_t a[64], b[64];

	(void)state;
	memset(a, 0x3c, sizeof(a));
	memset(b, 0, sizeof(b));
	dvp_memcpy(b, a, 1);
	assert_int_equal(b[0], 0x3c);
	assert_int_equal(b[1], 0);
	dvp_memcpy(b, a, 64);
	assert_memory_equal(a, b, 64);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copies_exactly_n_bytes),
		cmocka_unit_test(test_constant_lengths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
