/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* lib/eal byte order: big-endian put and get at any alignment. */

#include "dvp_test.h"

#include <stdint.h>
#include <string.h>

#include <dvp_byteorder.h>

static void test_put_most_significant_first(void **state)
{
	static const uint8_t want[] = { 0xaa, 0x12, 0x34, 0x89, 0xab, 0xcd, 0xef, 0x01,
					0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xbb };
	uint8_t buf[sizeof(want)];

	(void)state;
	memset(buf, 0, sizeof(buf));
	buf[0] = 0xaa;
	buf[15] = 0xbb;
	/* Odd offsets: the helpers must not assume alignment. */
	dvp_be16_put(buf + 1, 0x1234);
	dvp_be32_put(buf + 3, 0x89abcdef);
	dvp_be64_put(buf + 7, 0x0123456789abcdefull);
	assert_memory_equal(buf, want, sizeof(want));
}

static void test_get_reads_what_put_wrote(void **state)
{
	static const uint8_t bytes[] = { 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10, 0x0f };

	(void)state;
	assert_int_equal(dvp_be16_get(bytes + 1), 0xdcba);
	assert_int_equal(dvp_be32_get(bytes + 1), 0xdcba9876u);
	assert_true(dvp_be64_get(bytes + 1) == 0xdcba98765432100full);
	for (uint32_t v = 1; v != 0; v <<= 3) {
		uint8_t b[9];

		dvp_be32_put(b + 1, v);
		assert_int_equal(dvp_be32_get(b + 1), v);
		dvp_be16_put(b + 5, (uint16_t)v);
		assert_int_equal(dvp_be16_get(b + 5), (uint16_t)v);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_most_significant_first),
		cmocka_unit_test(test_get_reads_what_put_wrote),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
