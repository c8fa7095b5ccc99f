/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* lib/eal fd flags: dvp_fd_set_nonblock() sets O_NONBLOCK and keeps the rest. */

#include "dvp_test.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include <dvp_fd.h>

static void test_set_nonblock(void **state)
{
	int p[2], fl;
	char c;

	(void)state;
	assert_int_equal(pipe(p), 0);
	assert_int_equal(fcntl(p[0], F_SETFL, O_APPEND), 0);
	assert_false(fcntl(p[0], F_GETFL) & O_NONBLOCK);
	assert_int_equal(dvp_fd_set_nonblock(p[0]), 0);
	fl = fcntl(p[0], F_GETFL);
	assert_true(fl & O_NONBLOCK);
	assert_true(fl & O_APPEND);
	/* An empty pipe's read now returns at once. */
	assert_int_equal(read(p[0], &c, 1), -1);
	assert_int_equal(errno, EAGAIN);
	/* Again: nothing changes, no error. */
	assert_int_equal(dvp_fd_set_nonblock(p[0]), 0);
	assert_int_equal(fcntl(p[0], F_GETFL), fl);
	/* The other end was not touched. */
	assert_false(fcntl(p[1], F_GETFL) & O_NONBLOCK);
	close(p[0]);
	close(p[1]);
}

static void test_bad_fd(void **state)
{
	(void)state;
	assert_int_equal(dvp_fd_set_nonblock(-1), -EBADF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_nonblock),
		cmocka_unit_test(test_bad_fd),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
