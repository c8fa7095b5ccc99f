/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* lib/eal logging: level names, --log-level forms, patterns, bad input. */

#include "dvp_test.h"

#include <dvp_errno.h>

static void test_parse_level_names_and_numbers(void **state)
{
	(void)state;
	assert_int_equal(dvp_log_parse_level("debug"), DVP_LOG_DEBUG);
	assert_int_equal(dvp_log_parse_level("DEBUG"), DVP_LOG_DEBUG);
	assert_int_equal(dvp_log_parse_level("emergency"), DVP_LOG_EMERG);
	assert_int_equal(dvp_log_parse_level("emerg"), DVP_LOG_EMERG);
	assert_int_equal(dvp_log_parse_level("crit"), DVP_LOG_CRIT);
	assert_int_equal(dvp_log_parse_level("error"), DVP_LOG_ERR);
	assert_int_equal(dvp_log_parse_level("warn"), DVP_LOG_WARNING);
	assert_int_equal(dvp_log_parse_level("notice"), DVP_LOG_NOTICE);
	/* DPDK takes the start of a name, the most severe level first. */
	assert_int_equal(dvp_log_parse_level("deb"), DVP_LOG_DEBUG);
	assert_int_equal(dvp_log_parse_level("inf"), DVP_LOG_INFO);
	assert_int_equal(dvp_log_parse_level("e"), DVP_LOG_EMERG);
	assert_int_equal(dvp_log_parse_level("er"), DVP_LOG_ERR);
	assert_int_equal(dvp_log_parse_level("debugx"), -EINVAL);
	assert_int_equal(dvp_log_parse_level("1"), 1);
	assert_int_equal(dvp_log_parse_level("8"), 8);
	assert_int_equal(dvp_log_parse_level("0"), -EINVAL);
	assert_int_equal(dvp_log_parse_level("9"), -EINVAL);
	assert_int_equal(dvp_log_parse_level("8x"), -EINVAL);
	assert_int_equal(dvp_log_parse_level("verbose"), -EINVAL);
	assert_int_equal(dvp_log_parse_level(""), -EINVAL);
	assert_int_equal(dvp_log_parse_level(NULL), -EINVAL);
	assert_string_equal(dvp_log_level_name(DVP_LOG_WARNING), "warning");
	assert_string_equal(dvp_log_level_name(42), "unknown");
}

static void test_register_is_idempotent(void **state)
{
	int a, b;

	(void)state;
	a = dvp_log_register("test.idem", DVP_LOG_NOTICE);
	assert_true(a >= 0);
	b = dvp_log_register("test.idem", DVP_LOG_DEBUG);
	assert_int_equal(a, b);
	assert_int_equal(dvp_log_get_level((uint32_t)a), DVP_LOG_NOTICE);
	assert_int_equal(dvp_log_lookup("test.idem"), a);
	assert_string_equal(dvp_log_type_name((uint32_t)a), "test.idem");
	assert_int_equal(dvp_log_lookup("test.absent"), -ENOENT);
	assert_int_equal(dvp_log_register("", DVP_LOG_INFO), -EINVAL);
	assert_int_equal(dvp_log_register("bad name", DVP_LOG_INFO), -EINVAL);
	assert_int_equal(dvp_log_register("test.badlevel", 0), -EINVAL);
	assert_null(dvp_log_type_name(100000));
}

static void test_builtin_types(void **state)
{
	(void)state;
	assert_int_equal(dvp_log_lookup("eal"), dvp_logtype_eal);
	assert_int_equal(dvp_log_lookup("user"), dvp_logtype_user);
}

static void test_glob_applies_now_and_later(void **state)
{
	int early, later, other;

	(void)state;
	early = dvp_log_register("pmd.net.early", DVP_LOG_NOTICE);
	other = dvp_log_register("pmd.common.x", DVP_LOG_NOTICE);
	assert_int_equal(dvp_log_apply_arg("pmd.net.*:debug"), 0);
	assert_int_equal(dvp_log_get_level((uint32_t)early), DVP_LOG_DEBUG);
	assert_int_equal(dvp_log_get_level((uint32_t)other), DVP_LOG_NOTICE);

	/* A driver registered after the argument was parsed obeys it too. */
	later = dvp_log_register("pmd.net.later", DVP_LOG_NOTICE);
	assert_int_equal(dvp_log_get_level((uint32_t)later), DVP_LOG_DEBUG);
}

static void test_regex_form(void **state)
{
	int a, b;

	(void)state;
	a = dvp_log_register("rx.alpha", DVP_LOG_INFO);
	b = dvp_log_register("rxalpha", DVP_LOG_INFO);
	assert_int_equal(dvp_log_apply_arg("^rx\\..*,3"), 0);
	assert_int_equal(dvp_log_get_level((uint32_t)a), DVP_LOG_CRIT);
	/* The escaped dot matches only a dot. */
	assert_int_equal(dvp_log_get_level((uint32_t)b), DVP_LOG_INFO);
}

/* DPDK's names for dvpmd's types do what a DPDK user means. */
static void test_dpdk_type_names(void **state)
{
	int port, intr, mp, own;

	(void)state;
	assert_int_equal(dvp_log_lookup("lib.eal"), dvp_logtype_eal);
	assert_int_equal(dvp_log_lookup("user1"), dvp_logtype_user);
	port = dvp_log_register("port", DVP_LOG_NOTICE);
	assert_true(port >= 0);
	assert_int_equal(dvp_log_lookup("lib.ethdev"), port);

	assert_int_equal(dvp_log_apply_arg("lib.eal:debug"), 0);
	assert_int_equal(dvp_log_get_level((uint32_t)dvp_logtype_eal), DVP_LOG_DEBUG);
	assert_int_equal(dvp_log_get_level((uint32_t)port), DVP_LOG_NOTICE);
	assert_int_equal(dvp_log_apply_arg("lib.eal:info"), 0);
	assert_int_equal(dvp_log_get_level((uint32_t)dvp_logtype_eal), DVP_LOG_INFO);

	/* A regular expression on DPDK's name, and a type registered after it. */
	assert_int_equal(dvp_log_apply_arg("^lib\\.ethdev$,warning"), 0);
	assert_int_equal(dvp_log_get_level((uint32_t)port), DVP_LOG_WARNING);
	intr = dvp_log_register("rxwait", DVP_LOG_NOTICE);
	assert_int_equal(dvp_log_get_level((uint32_t)intr), DVP_LOG_WARNING);

	/* dvpmd's own names keep working. */
	assert_int_equal(dvp_log_apply_arg("port:debug"), 0);
	assert_int_equal(dvp_log_get_level((uint32_t)port), DVP_LOG_DEBUG);
	assert_int_equal(dvp_log_get_level((uint32_t)intr), DVP_LOG_WARNING);

	/* Registering DPDK's name itself makes a type of its own. */
	mp = dvp_log_register("mempool", DVP_LOG_NOTICE);
	assert_int_equal(dvp_log_lookup("lib.mempool"), mp);
	own = dvp_log_register("lib.mempool", DVP_LOG_NOTICE);
	assert_true(own >= 0);
	assert_int_not_equal(own, mp);
	assert_int_equal(dvp_log_lookup("lib.mempool"), own);
	assert_string_equal(dvp_log_type_name((uint32_t)own), "lib.mempool");
}

static void test_later_pattern_wins(void **state)
{
	int t;

	(void)state;
	assert_int_equal(dvp_log_apply_arg("order.*:info"), 0);
	assert_int_equal(dvp_log_apply_arg("order.b*:error"), 0);
	t = dvp_log_register("order.beta", DVP_LOG_NOTICE);
	assert_int_equal(dvp_log_get_level((uint32_t)t), DVP_LOG_ERR);
	t = dvp_log_register("order.alpha", DVP_LOG_NOTICE);
	assert_int_equal(dvp_log_get_level((uint32_t)t), DVP_LOG_INFO);
}

static void expect_bad_arg(const char *arg, const char *named)
{
	struct dvp_log_capture cap;

	dvp_errno = 0;
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_log_apply_arg(arg), -EINVAL);
	dvp_log_capture_end(&cap);
	assert_int_equal(dvp_errno, EINVAL);
	assert_contains(cap.buf, named);
	assert_contains(cap.buf, "emergency, alert, critical");
	dvp_log_capture_free(&cap);
}

static void test_bad_arguments_name_the_token(void **state)
{
	(void)state;
	expect_bad_arg("verbose", "unknown level 'verbose'");
	expect_bad_arg("pmd.*:loud", "unknown level 'loud'");
	expect_bad_arg("pmd.*,99", "unknown level '99'");
	expect_bad_arg(":debug", "no log type pattern");
	expect_bad_arg("pmd[,8", "invalid regular expression 'pmd['");
	expect_bad_arg("", "empty value");
}

static void test_filtering_and_stream(void **state)
{
	struct dvp_log_capture cap;
	int t;

	(void)state;
	t = dvp_log_register("filter.me", DVP_LOG_WARNING);
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_log(DVP_LOG_INFO, (uint32_t)t, "hidden\n"), 0);
	assert_true(dvp_log(DVP_LOG_ERR, (uint32_t)t, "shown %d\n", 7) > 0);
	DVP_LOG_LINE(WARNING, t, "FILTER: ", "line %s", "two");
	dvp_log_capture_end(&cap);
	assert_string_equal(cap.buf, "shown 7\nFILTER: line two\n");
	dvp_log_capture_free(&cap);

	assert_false(dvp_log_can_log((uint32_t)t, DVP_LOG_NOTICE));
	assert_true(dvp_log_can_log((uint32_t)t, DVP_LOG_WARNING));
	assert_false(dvp_log_can_log(100000, DVP_LOG_EMERG));
}

static void test_global_level_caps_every_type(void **state)
{
	int t;

	(void)state;
	t = dvp_log_register("global.cap", DVP_LOG_DEBUG);
	dvp_log_set_global_level(DVP_LOG_ERR);
	assert_false(dvp_log_can_log((uint32_t)t, DVP_LOG_WARNING));
	assert_true(dvp_log_can_log((uint32_t)t, DVP_LOG_ERR));
	dvp_log_set_global_level(DVP_LOG_DEBUG);
	assert_true(dvp_log_can_log((uint32_t)t, DVP_LOG_DEBUG));
}

static void test_plain_level_sets_everything(void **state)
{
	int before, after;

	(void)state;
	before = dvp_log_register("plain.before", DVP_LOG_ERR);
	assert_int_equal(dvp_log_apply_arg("notice"), 0);
	after = dvp_log_register("plain.after", DVP_LOG_ERR);
	assert_int_equal(dvp_log_get_level((uint32_t)before), DVP_LOG_NOTICE);
	assert_int_equal(dvp_log_get_level((uint32_t)after), DVP_LOG_NOTICE);
	assert_int_equal(dvp_log_get_global_level(), DVP_LOG_NOTICE);
	assert_int_equal(dvp_log_apply_arg("8"), 0);
	assert_int_equal(dvp_log_get_global_level(), DVP_LOG_DEBUG);
}

static void test_long_line_is_cut_whole(void **state)
{
	struct dvp_log_capture cap;
	char big[3000];

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	dvp_log_capture_begin(&cap);
	dvp_log(DVP_LOG_ERR, (uint32_t)dvp_logtype_user, "%s\n", big);
	dvp_log_capture_end(&cap);
	assert_int_equal(cap.len, 1023);
	assert_int_equal(cap.buf[cap.len - 1], '\n');
	dvp_log_capture_free(&cap);
}

static void test_dump_lists_types(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int t = dvp_log_register("dump.me", DVP_LOG_ALERT);

	(void)state;
	/* Earlier tests saved patterns that also apply to new types. */
	assert_int_equal(dvp_log_set_level((uint32_t)t, DVP_LOG_ALERT), 0);
	dvp_log_dump(f);
	fclose(f);
	assert_contains(buf, "dump.me, level is alert");
	assert_contains(buf, "eal, level is");
	assert_contains(buf, "(DPDK's lib.eal)");
	free(buf);
}

static void test_dump_stream(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int obj;

	(void)state;
	/* An object: the stream to write to, nothing written yet. */
	assert_ptr_equal(dvp_dump_stream(f, "thing", &obj), f);
	assert_ptr_equal(dvp_dump_stream(NULL, "thing", &obj), stdout);
	fflush(f);
	assert_int_equal(len, 0);
	/* None: one line that says so, and no stream. */
	assert_null(dvp_dump_stream(f, "thing", NULL));
	fclose(f);
	assert_string_equal(buf, "thing: (null)\n");
	free(buf);
}

static void test_strerror(void **state)
{
	(void)state;
	assert_string_equal(dvp_strerror(ENOMEM), "Cannot allocate memory");
	assert_string_equal(dvp_strerror(-ENOMEM), "Cannot allocate memory");
	assert_string_equal(dvp_strerror(E_DVP_NO_HUGEPAGES), "not enough hugepages");
	assert_int_equal(dvp_err(EBUSY), -EBUSY);
	assert_int_equal(dvp_errno, EBUSY);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_level_names_and_numbers),
		cmocka_unit_test(test_register_is_idempotent),
		cmocka_unit_test(test_builtin_types),
		cmocka_unit_test(test_glob_applies_now_and_later),
		cmocka_unit_test(test_regex_form),
		cmocka_unit_test(test_dpdk_type_names),
		cmocka_unit_test(test_later_pattern_wins),
		cmocka_unit_test(test_bad_arguments_name_the_token),
		cmocka_unit_test(test_filtering_and_stream),
		cmocka_unit_test(test_global_level_caps_every_type),
		cmocka_unit_test(test_plain_level_sets_everything),
		cmocka_unit_test(test_long_line_is_cut_whole),
		cmocka_unit_test(test_dump_lists_types),
		cmocka_unit_test(test_dump_stream),
		cmocka_unit_test(test_strerror),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
