/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* Helpers for tests that bring the EAL up: init from a literal argument list. */

#ifndef DVP_TEST_EAL_H
#define DVP_TEST_EAL_H

#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "dvp_test.h"

#include <dvp_eal.h>
#include <dvp_errno.h>

/*
 * Test processes run side by side on the default file prefix, where the
 * telemetry socket of one is "served by another live process" for the
 * next, with a warning that a test counting log lines would trip on. So a
 * test starts no socket unless it asks for one (a --file-prefix or
 * --no-telemetry of its own): --no-telemetry goes in after argv[0], and
 * the count of arguments consumed is the caller's.
 */
static inline int dvp_test_eal_init_argv(const char **args)
{
	/* Static: the EAL may keep argv for /eal/params. */
	static const char *argv[128];
	int n = 0, i, ret;
	bool own = false;

	while (args[n] != NULL) {
		own |= strcmp(args[n], "--no-telemetry") == 0 ||
		       strncmp(args[n], "--file-prefix", 13) == 0;
		n++;
	}
	if (own || n == 0 || n + 2 > (int)DVP_DIM(argv))
		return dvp_eal_init(n, (char **)args);
	argv[0] = args[0];
	argv[1] = "--no-telemetry";
	for (i = 1; i <= n; i++)
		argv[i + 1] = args[i];
	ret = dvp_eal_init(n + 1, (char **)argv);
	return ret > 0 ? ret - 1 : ret;
}

/* dvp_test_eal_init("--no-huge", "-l", "0"): argv[0] is "test". */
#define dvp_test_eal_init(...) dvp_test_eal_init_argv((const char *[]){ "test", __VA_ARGS__, NULL })

/*
 * cmocka group setup and teardown for tests that need the EAL and nothing
 * more: --no-huge on lcores 0-1, logs at notice.
 */
static inline int dvp_test_eal_setup(void **state)
{
	(void)state;
	if (dvp_test_eal_init("--no-huge", "-l", "0-1", "--log-level", "notice") < 0) {
		fprintf(stderr, "dvp_eal_init failed: %s\n", dvp_strerror(dvp_errno));
		return -1;
	}
	return 0;
}

static inline int dvp_test_eal_teardown(void **state)
{
	(void)state;
	return dvp_eal_cleanup();
}

/* Number of lines in @p text. */
static inline int dvp_test_count_lines(const char *text)
{
	int n = 0;

	for (; text != NULL && *text; text++)
		n += *text == '\n';
	return n;
}

/* The first CPU of this process's affinity mask, as a string for -l / --lcores. */
static inline int dvp_test_first_cpu(void)
{
	cpu_set_t set;
	int i;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 0;
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			return i;
	return 0;
}

#endif /* DVP_TEST_EAL_H */
