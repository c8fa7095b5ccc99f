/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* lib/eal devargs: the syntax, key checks and typed getters, good and bad. */

#include "dvp_test.h"

#include <dvp_devargs.h>
#include <dvp_errno.h>

static void test_parse_good(void **state)
{
	struct dvp_devargs da;

	(void)state;
	assert_int_equal(dvp_devargs_parse("net_ring0", &da), 0);
	assert_string_equal(da.name, "net_ring0");
	assert_int_equal(da.count, 0);
	assert_null(da.args);
	dvp_devargs_free(&da);

	assert_int_equal(dvp_devargs_parse("mlx5_0,rxq_cqe_comp_en=0,txqs=[0,2-3],mode=fast", &da),
			 0);
	assert_string_equal(da.name, "mlx5_0");
	assert_string_equal(da.args, "rxq_cqe_comp_en=0,txqs=[0,2-3],mode=fast");
	assert_int_equal(da.count, 3);
	assert_string_equal(dvp_devargs_get(&da, "rxq_cqe_comp_en"), "0");
	assert_string_equal(dvp_devargs_get(&da, "txqs"), "0,2-3");
	assert_string_equal(dvp_devargs_get(&da, "mode"), "fast");
	assert_null(dvp_devargs_get(&da, "absent"));
	dvp_devargs_free(&da);

	assert_int_equal(dvp_devargs_parse("0000:03:00.0,a=b", &da), 0);
	assert_string_equal(da.name, "0000:03:00.0");
	dvp_devargs_free(&da);
	/* A trailing comma is no pair, as in DPDK's kvargs. */
	assert_int_equal(dvp_devargs_parse("sim_mlx5,ports=2,", &da), 0);
	assert_string_equal(da.name, "sim_mlx5");
	assert_string_equal(da.args, "ports=2");
	assert_int_equal(da.count, 1);
	assert_string_equal(dvp_devargs_get(&da, "ports"), "2");
	dvp_devargs_free(&da);
	assert_int_equal(dvp_devargs_parse("net_ring0,", &da), 0);
	assert_string_equal(da.name, "net_ring0");
	assert_int_equal(da.count, 0);
	assert_null(da.args);
	dvp_devargs_free(&da);
	assert_int_equal(dvp_devargs_parse("dev,k=[1,2],", &da), 0);
	assert_string_equal(dvp_devargs_get(&da, "k"), "1,2");
	dvp_devargs_free(&da);

	/* Freeing twice, or a zeroed struct, is harmless. */
	dvp_devargs_free(&da);
}

static void expect_parse_error(const char *str, const char *needle)
{
	struct dvp_log_capture cap;
	struct dvp_devargs da;

	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_devargs_parse(str, &da), -EINVAL);
	dvp_log_capture_end(&cap);
	assert_int_equal(dvp_errno, EINVAL);
	assert_contains(cap.buf, needle);
	assert_int_equal(da.count, 0);
	assert_null(da.args);
	dvp_log_capture_free(&cap);
}

static void test_parse_bad(void **state)
{
	char longname[100];

	(void)state;
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	expect_parse_error("", "empty device string");
	expect_parse_error(",a=1", "no device name before ','");
	expect_parse_error(longname, "longer than 63");
	expect_parse_error("net x", "bad character ' ' in device name");
	expect_parse_error("dev,key", "'key' has no value; expected key=VALUE");
	expect_parse_error("dev,=1", "empty key in '=1'");
	expect_parse_error("dev,k=", "key 'k' has an empty value");
	expect_parse_error("dev,k=1,,j=2", "empty KEY=VALUE pair");
	expect_parse_error("dev,,", "empty KEY=VALUE pair");
	expect_parse_error("dev,k=1,,", "empty KEY=VALUE pair");
	expect_parse_error("dev,k=1,k=2", "key 'k' is given twice");
	expect_parse_error("dev,k=[1,2", "'[' is not closed by ']'");
	expect_parse_error("dev,k=1]", "']' without a matching '['");
	expect_parse_error("dev,k=[[1]]", "cannot be nested");
	expect_parse_error("dev,k=[]", "empty list '[]'");
	expect_parse_error("dev,k=[1]x", "does not end with ']'");
	expect_parse_error("dev,k y=1", "bad character ' ' in key");
}

static void test_too_many_pairs(void **state)
{
	char buf[1024] = "dev";
	unsigned int i;

	(void)state;
	for (i = 0; i <= DVP_DEVARGS_MAX_PAIRS; i++)
		sprintf(buf + strlen(buf), ",k%u=1", i);
	expect_parse_error(buf, "more than 32 KEY=VALUE pairs");
}

static const struct dvp_devargs_key keys[] = {
	{ "size", "ring size" },
	{ "mode", "fast or safe" },
	{ NULL, NULL },
};

static void test_check_keys(void **state)
{
	struct dvp_log_capture cap;
	struct dvp_devargs da;
	static const struct dvp_devargs_key none[] = { { NULL, NULL } };

	(void)state;
	assert_int_equal(dvp_devargs_parse("net_ring0,size=4,mode=fast", &da), 0);
	assert_int_equal(dvp_devargs_check_keys(&da, keys), 0);
	dvp_devargs_free(&da);

	assert_int_equal(dvp_devargs_parse("net_ring0,sise=4", &da), 0);
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_devargs_check_keys(&da, keys), -EINVAL);
	assert_int_equal(dvp_devargs_check_keys(&da, none), -EINVAL);
	assert_int_equal(dvp_devargs_check_keys(&da, NULL), -EINVAL);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "net_ring0: unknown devargs key 'sise'; valid keys: size, mode\n");
	assert_contains(cap.buf,
			"net_ring0: unknown devargs key 'sise'; this device takes no keys");
	dvp_log_capture_free(&cap);
	dvp_devargs_free(&da);
}

static void test_get_u64(void **state)
{
	struct dvp_log_capture cap;
	struct dvp_devargs da;
	uint64_t v;

	(void)state;
	assert_int_equal(
		dvp_devargs_parse("d,a=64,b=0x40,c=2k,d=1M,e=1g,f=-1,g=12x,h=99,i=1kk", &da), 0);
	assert_int_equal(dvp_devargs_get_u64(&da, "a", 0, 100, 0, &v), 0);
	assert_int_equal(v, 64);
	assert_int_equal(dvp_devargs_get_u64(&da, "b", 0, 100, 0, &v), 0);
	assert_int_equal(v, 64);
	assert_int_equal(dvp_devargs_get_u64(&da, "c", 0, UINT64_MAX, 0, &v), 0);
	assert_int_equal(v, 2048);
	assert_int_equal(dvp_devargs_get_u64(&da, "d", 0, UINT64_MAX, 0, &v), 0);
	assert_int_equal(v, 1 << 20);
	assert_int_equal(dvp_devargs_get_u64(&da, "e", 0, UINT64_MAX, 0, &v), 0);
	assert_int_equal(v, 1 << 30);
	assert_int_equal(dvp_devargs_get_u64(&da, "absent", 0, 10, 7, &v), 0);
	assert_int_equal(v, 7);
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_devargs_get_u64(&da, "f", 0, 100, 0, &v), -EINVAL);
	assert_int_equal(dvp_devargs_get_u64(&da, "g", 0, 100, 0, &v), -EINVAL);
	assert_int_equal(dvp_devargs_get_u64(&da, "h", 0, 10, 0, &v), -EINVAL);
	assert_int_equal(dvp_devargs_get_u64(&da, "i", 0, UINT64_MAX, 0, &v), -EINVAL);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "d: devargs f=-1: expected a number from 0 to 100");
	assert_contains(cap.buf, "devargs g=12x");
	assert_contains(cap.buf, "devargs h=99: expected a number from 0 to 10");
	dvp_log_capture_free(&cap);
	dvp_devargs_free(&da);
}

/* A 32-bit setting: the range check stands in front of the narrowing. */
static void test_get_u32(void **state)
{
	struct dvp_log_capture cap;
	struct dvp_devargs da;
	uint32_t v = 0;

	(void)state;
	assert_int_equal(dvp_devargs_parse("d,a=4g,b=0xffffffff,c=0x100000000", &da), 0);
	assert_int_equal(dvp_devargs_get_u32(&da, "b", 0, UINT32_MAX, 0, &v), 0);
	assert_int_equal(v, UINT32_MAX);
	/* A default outside the range marks "not given". */
	assert_int_equal(dvp_devargs_get_u32(&da, "absent", 0, 31, UINT32_MAX, &v), 0);
	assert_int_equal(v, UINT32_MAX);
	v = 5;
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_devargs_get_u32(&da, "a", 0, UINT32_MAX, 0, &v), -EINVAL);
	assert_int_equal(dvp_devargs_get_u32(&da, "c", 0, UINT32_MAX, 0, &v), -EINVAL);
	assert_int_equal(dvp_devargs_get_u32(&da, "b", 0, UINT32_MAX, 0, NULL), -EINVAL);
	dvp_log_capture_end(&cap);
	assert_int_equal(v, 5);
	assert_contains(cap.buf, "d: devargs a=4g: expected a number from 0 to 4294967295");
	assert_contains(cap.buf, "devargs c=0x100000000: expected a number from 0 to 4294967295");
	dvp_log_capture_free(&cap);
	dvp_devargs_free(&da);
}

static void test_get_bool_and_choice(void **state)
{
	static const char *const modes[] = { "fast", "safe", NULL };
	struct dvp_log_capture cap;
	struct dvp_devargs da;
	unsigned int idx;
	bool b;

	(void)state;
	assert_int_equal(dvp_devargs_parse("d,a=yes,b=OFF,c=1,d=maybe,m=safe,n=slow", &da), 0);
	assert_int_equal(dvp_devargs_get_bool(&da, "a", false, &b), 0);
	assert_true(b);
	assert_int_equal(dvp_devargs_get_bool(&da, "b", true, &b), 0);
	assert_false(b);
	assert_int_equal(dvp_devargs_get_bool(&da, "c", false, &b), 0);
	assert_true(b);
	assert_int_equal(dvp_devargs_get_bool(&da, "zz", true, &b), 0);
	assert_true(b);
	assert_int_equal(dvp_devargs_get_choice(&da, "m", modes, 0, &idx), 0);
	assert_int_equal(idx, 1);
	assert_int_equal(dvp_devargs_get_choice(&da, "zz", modes, 0, &idx), 0);
	assert_int_equal(idx, 0);
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_devargs_get_bool(&da, "d", false, &b), -EINVAL);
	assert_int_equal(dvp_devargs_get_choice(&da, "n", modes, 0, &idx), -EINVAL);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "devargs d=maybe: expected a boolean");
	assert_contains(cap.buf, "devargs n=slow: expected one of: fast, safe");
	dvp_log_capture_free(&cap);
	dvp_devargs_free(&da);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_too_many_pairs),
		cmocka_unit_test(test_check_keys),
		cmocka_unit_test(test_get_u64),
		cmocka_unit_test(test_get_u32),
		cmocka_unit_test(test_get_bool_and_choice),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
