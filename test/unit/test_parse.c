/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The number parser of options and devargs (dvp_parse.h): decimal or 0x,
 * no octal, no sign or space, the range checked on 64 bits before any
 * cast; reals finite, no NaN, infinity or hex float.
 */

#include "dvp_test.h"

#include <errno.h>
#include <float.h>
#include <stdint.h>

#include <dvp_errno.h>
#include <dvp_parse.h>

static void test_u64(void **state)
{
	uint64_t v = 7;
	const char *end;

	(void)state;
	assert_int_equal(dvp_parse_u64("0", 0, 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(dvp_parse_u64("42", 0, 100, &v), 0);
	assert_int_equal(v, 42);
	/* A leading zero is decimal: 010 is ten, and 08 and 09 are numbers too. */
	assert_int_equal(dvp_parse_u64("010", 0, 100, &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(dvp_parse_u64("08", 0, 100, &v), 0);
	assert_int_equal(v, 8);
	assert_int_equal(dvp_parse_u64("0x1F", 0, 100, &v), 0);
	assert_int_equal(v, 31);
	assert_int_equal(dvp_parse_u64("0XfF", 0, 1000, &v), 0);
	assert_int_equal(v, 255);
	assert_int_equal(dvp_parse_u64("18446744073709551615", 0, UINT64_MAX, &v), 0);
	assert_true(v == UINT64_MAX);
	assert_int_equal(dvp_parse_u64("0xffffffffffffffff", 0, UINT64_MAX, &v), 0);
	assert_true(v == UINT64_MAX);

	/* Out of range, checked on the whole value: 2^32 + 1 is not 1. */
	v = 7;
	assert_int_equal(dvp_parse_u64("4294967297", 0, 8, &v), -ERANGE);
	assert_int_equal(dvp_errno, ERANGE);
	assert_int_equal(dvp_parse_u64("18446744073709551616", 0, UINT64_MAX, &v), -ERANGE);
	assert_int_equal(dvp_parse_u64("0x10000000000000000", 0, UINT64_MAX, &v), -ERANGE);
	assert_int_equal(dvp_parse_u64("99999999999999999999999", 0, UINT64_MAX, &v), -ERANGE);
	assert_int_equal(dvp_parse_u64("0", 1, 10, &v), -ERANGE);
	assert_int_equal(v, 7);

	/* Not numbers. */
	static const char *const bad[] = { "",	  " 1", "1 ",  "+1",  "-1",  "1x",  "0x",
					   "0xg", "x1", "1.5", "1e3", "nan", "inf", "1,2" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (dvp_parse_u64(bad[i], 0, UINT64_MAX, &v) != -EINVAL)
			fail_msg("'%s' was taken as a number", bad[i]);
		assert_int_equal(v, 7);
	}
	assert_int_equal(dvp_parse_u64(NULL, 0, 1, &v), -EINVAL);

	/* The prefix form stops at a unit or a separator. */
	assert_int_equal(dvp_parse_u64_prefix("64k", &v, &end), 0);
	assert_int_equal(v, 64);
	assert_string_equal(end, "k");
	assert_int_equal(dvp_parse_u64_prefix("0x10,2", &v, &end), 0);
	assert_int_equal(v, 16);
	assert_string_equal(end, ",2");
	assert_int_equal(dvp_parse_u64_prefix("k", &v, &end), -EINVAL);
}

static void test_double(void **state)
{
	const char *end;
	double d = 7;

	(void)state;
	assert_int_equal(dvp_parse_double("0.5", 0, 1, &d), 0);
	assert_true(d == 0.5);
	assert_int_equal(dvp_parse_double("10", 0, 100, &d), 0);
	assert_true(d == 10);
	assert_int_equal(dvp_parse_double(".25", 0, 1, &d), 0);
	assert_true(d == 0.25);
	assert_int_equal(dvp_parse_double("1e3", 0, 1e4, &d), 0);
	assert_true(d == 1000);
	assert_int_equal(dvp_parse_double("-2", -5, 5, &d), 0);
	assert_true(d == -2);

	d = 7;
	static const char *const bad[] = { "",	   "nan",      "NaN",	"-nan", "inf",
					   "-inf", "infinity", "0x1p3", " 1",	"1 ",
					   "1.5x", ".",	       "e3",	"--1",	"+-1" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (dvp_parse_double(bad[i], -DBL_MAX, DBL_MAX, &d) != -EINVAL)
			fail_msg("'%s' was taken as a number", bad[i]);
		assert_true(d == 7);
	}
	assert_int_equal(dvp_parse_double("1e400", 0, DBL_MAX, &d), -ERANGE);
	assert_int_equal(dvp_parse_double("101", 0, 100, &d), -ERANGE);
	assert_int_equal(dvp_parse_double("-0.1", 0, 100, &d), -ERANGE);
	assert_true(d == 7);

	/* The prefix form leaves the unit. */
	assert_int_equal(dvp_parse_double_prefix("1.5ms", 0, 1e9, &d, &end), 0);
	assert_true(d == 1.5);
	assert_string_equal(end, "ms");
	assert_int_equal(dvp_parse_double_prefix("infs", 0, 1e9, &d, &end), -EINVAL);
	assert_int_equal(dvp_parse_double_prefix("1e300s", 0, 1e9, &d, &end), -ERANGE);
	assert_string_equal(end, "s");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u64),
		cmocka_unit_test(test_double),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
