/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The JSON writer (dvp_json.h): escaping, UTF-8, numbers, nesting, keys,
 * and the bounded buffer that drops whole elements and stays valid JSON.
 */

#include "dvp_test.h"
#include "json_check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <dvp_common.h>
#include <dvp_json.h>

/* @p s written as one string value into a large buffer. */
static const char *str_json(const char *s)
{
	static char buf[1024];
	struct dvp_json w;

	dvp_json_init_buf(&w, buf, sizeof(buf));
	dvp_json_str(&w, NULL, s);
	assert_false(dvp_json_failed(&w));
	assert_true(json_valid(buf, dvp_json_len(&w)));
	return buf;
}

static void test_escape(void **state)
{
	(void)state;
	assert_string_equal(str_json("plain"), "\"plain\"");
	assert_string_equal(str_json(""), "\"\"");
	assert_string_equal(str_json("a\"b"), "\"a\\\"b\"");
	assert_string_equal(str_json("back\\slash"), "\"back\\\\slash\"");
	assert_string_equal(str_json("\b\f\n\r\t"), "\"\\b\\f\\n\\r\\t\"");
	assert_string_equal(str_json("\x01\x1f"), "\"\\u0001\\u001f\"");
	/* DEL and '/' need no escape. */
	assert_string_equal(str_json("\x7f/"), "\"\x7f/\"");
}

static void test_utf8(void **state)
{
	(void)state;
	/* Valid UTF-8 of each length passes through as it is. */
	assert_string_equal(str_json("caf\xc3\xa9"), "\"caf\xc3\xa9\"");
	assert_string_equal(str_json("\xe2\x82\xac"), "\"\xe2\x82\xac\"");
	assert_string_equal(str_json("\xf0\x9f\x98\x80"), "\"\xf0\x9f\x98\x80\"");
	/* Anything else becomes U+FFFD, a byte at a time. */
	assert_string_equal(str_json("a\xffz"), "\"a\\ufffdz\"");
	assert_string_equal(str_json("\x80"), "\"\\ufffd\"");
	assert_string_equal(str_json("\xc3"), "\"\\ufffd\""); /* cut short */
	assert_string_equal(str_json("\xc0\xaf"), "\"\\ufffd\\ufffd\""); /* overlong '/' */
	assert_string_equal(str_json("\xe0\x80\xaf"), "\"\\ufffd\\ufffd\\ufffd\"");
	assert_string_equal(str_json("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\""); /* surrogate */
	assert_string_equal(str_json("\xf4\x90\x80\x80"),
			    "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* past U+10FFFF */
}

static void test_values(void **state)
{
	char buf[512];
	struct dvp_json w;

	(void)state;
	dvp_json_init_buf(&w, buf, sizeof(buf));
	dvp_json_obj_open(&w, NULL);
	dvp_json_u64(&w, "u", UINT64_MAX);
	dvp_json_i64(&w, "i", INT64_MIN);
	dvp_json_bool(&w, "t", true);
	dvp_json_bool(&w, "f", false);
	dvp_json_null(&w, "n");
	dvp_json_str(&w, "s", NULL);
	dvp_json_fixed(&w, "x", 1.23456, 2);
	dvp_json_fixed(&w, "nan", NAN, 2);
	dvp_json_double(&w, "inf", INFINITY);
	dvp_json_double(&w, "d", 0.5);
	dvp_json_arr_open(&w, "a");
	dvp_json_i64(&w, NULL, -1);
	dvp_json_obj_open(&w, NULL);
	dvp_json_obj_close(&w);
	dvp_json_arr_open(&w, NULL);
	dvp_json_arr_close(&w);
	dvp_json_arr_close(&w);
	dvp_json_str(&w, "k\"ey", "v");
	dvp_json_obj_close(&w);
	assert_false(dvp_json_failed(&w));
	assert_true(dvp_json_complete(&w));
	assert_false(dvp_json_truncated(&w));
	assert_string_equal(buf, "{\"u\":18446744073709551615,\"i\":-9223372036854775808,"
				 "\"t\":true,\"f\":false,\"n\":null,\"s\":null,\"x\":1.23,"
				 "\"nan\":null,\"inf\":null,\"d\":0.5,\"a\":[-1,{},[]],"
				 "\"k\\\"ey\":\"v\"}");
	assert_int_equal(dvp_json_len(&w), strlen(buf));
	assert_true(json_valid(buf, strlen(buf)));
}

/* A table of members of every size, in an object of its own or the one open. */
struct fields_probe {
	uint8_t b;
	uint16_t h;
	uint32_t u;
	uint64_t q;
	int pad;
};

static void test_fields(void **state)
{
	static const struct dvp_json_field fields[] = {
		DVP_JSON_FIELD(struct fields_probe, q),
		DVP_JSON_FIELD(struct fields_probe, b),
		DVP_JSON_FIELD_AS("half", struct fields_probe, h),
		DVP_JSON_FIELD(struct fields_probe, u),
	};
	const struct dvp_json_field bad = { "pad", offsetof(struct fields_probe, pad), 3 };
	const struct fields_probe p = { 255, 65535, 4000000000u, UINT64_MAX, 0 };
	char buf[256];
	struct dvp_json w;

	(void)state;
	dvp_json_init_buf(&w, buf, sizeof(buf));
	dvp_json_obj_open(&w, NULL);
	dvp_json_fields(&w, "in", &p, fields, DVP_DIM(fields));
	dvp_json_fields(&w, NULL, &p, fields, 1);
	dvp_json_obj_close(&w);
	assert_false(dvp_json_failed(&w));
	assert_string_equal(buf, "{\"in\":{\"q\":18446744073709551615,\"b\":255,\"half\":65535,"
				 "\"u\":4000000000},\"q\":18446744073709551615}");
	dvp_json_init_buf(&w, buf, sizeof(buf));
	dvp_json_fields(&w, "x", &p, &bad, 1);
	assert_true(dvp_json_failed(&w));
}

static void test_keys(void **state)
{
	char buf[128];
	struct dvp_json w;

	(void)state;
	/* The pending key goes to the next value given none, once. */
	dvp_json_init_buf(&w, buf, sizeof(buf));
	dvp_json_obj_open(&w, NULL);
	dvp_json_set_key(&w, "/cmd");
	dvp_json_arr_open(&w, NULL);
	dvp_json_arr_close(&w);
	dvp_json_obj_close(&w);
	assert_false(dvp_json_failed(&w));
	assert_string_equal(buf, "{\"/cmd\":[]}");

	/* A member without a key is misuse, and so is a close of nothing or of the wrong kind. */
	dvp_json_init_buf(&w, buf, sizeof(buf));
	dvp_json_obj_open(&w, NULL);
	dvp_json_u64(&w, NULL, 1);
	assert_true(dvp_json_failed(&w));
	dvp_json_init_buf(&w, buf, sizeof(buf));
	dvp_json_arr_close(&w);
	assert_true(dvp_json_failed(&w));
	dvp_json_init_buf(&w, buf, sizeof(buf));
	dvp_json_obj_open(&w, NULL);
	dvp_json_arr_close(&w);
	assert_true(dvp_json_failed(&w));
}

static void test_depth(void **state)
{
	char buf[256];
	struct dvp_json w;
	unsigned int i;

	(void)state;
	dvp_json_init_buf(&w, buf, sizeof(buf));
	for (i = 0; i < DVP_JSON_MAX_DEPTH; i++)
		dvp_json_arr_open(&w, NULL);
	assert_false(dvp_json_failed(&w));
	dvp_json_arr_open(&w, NULL);
	assert_true(dvp_json_failed(&w));
}

/* Every buffer size from 1 up: the text is valid JSON (or empty), complete, and a prefix of the full one's elements. */
static void test_bounded(void **state)
{
	char full[2048], buf[2048];
	size_t full_len = 0;
	struct dvp_json w;
	size_t cap, n;
	unsigned int i;

	(void)state;
	for (cap = 0; cap == 0 || cap <= full_len + 2; cap++) {
		char *b = cap == 0 ? full : buf;
		size_t c = cap == 0 ? sizeof(full) : cap;

		dvp_json_init_buf(&w, b, c);
		dvp_json_obj_open(&w, NULL);
		dvp_json_str(&w, "name", "a \"quoted\" name\n");
		dvp_json_arr_open(&w, "list");
		for (i = 0; i < 20; i++) {
			dvp_json_obj_open(&w, NULL);
			dvp_json_u64(&w, "i", i * 1000003ull);
			dvp_json_str(&w, "s", "\xe2\x82\xac\x01");
			dvp_json_obj_close(&w);
		}
		dvp_json_arr_close(&w);
		dvp_json_u64(&w, "last", 42);
		dvp_json_obj_close(&w);
		assert_false(dvp_json_failed(&w));
		assert_true(dvp_json_complete(&w));
		n = dvp_json_len(&w);
		assert_true(n < c);
		assert_int_equal(strlen(b), n);
		if (cap == 0) {
			assert_false(dvp_json_truncated(&w));
			assert_true(json_valid(full, n));
			full_len = n;
			continue;
		}
		if (n > 0 && !json_valid(b, n))
			fail_msg("cap %zu: not JSON: %s", cap, b);
		if (!dvp_json_truncated(&w)) {
			assert_string_equal(b, full);
			continue;
		}
		/* What was kept is the full text's start, then its closing brackets. */
		while (n > 0 && (b[n - 1] == '}' || b[n - 1] == ']'))
			n--;
		assert_memory_equal(b, full, n);
	}
}

static void test_file(void **state)
{
	char *text = NULL;
	size_t len = 0;
	struct dvp_json w;
	FILE *f = open_memstream(&text, &len);

	(void)state;
	assert_non_null(f);
	dvp_json_init_file(&w, f);
	dvp_json_obj_open(&w, NULL);
	dvp_json_str(&w, "a", "x\ty");
	dvp_json_fixed(&w, "t", 2.5, 3);
	dvp_json_obj_close(&w);
	assert_false(dvp_json_failed(&w));
	assert_int_equal(dvp_json_len(&w), 0);
	fclose(f);
	assert_string_equal(text, "{\"a\":\"x\\ty\",\"t\":2.500}");
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape), cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_values), cmocka_unit_test(test_keys),
		cmocka_unit_test(test_depth),  cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_file),   cmocka_unit_test(test_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
