/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

#include <stdio.h>

#include <dvp_eal.h>
#include <dvp_errno.h>

#include "app_eal.h"

int app_eal_init(const char *prog, int argc, char **argv, int *exit_code)
{
	int n = dvp_eal_init(argc, argv);

	if (n >= 0)
		return n;
	if (dvp_eal_init_status() == DVP_EAL_INIT_HELP_SHOWN) {
		printf("\nApplication options go after '--': %s -- --help\n", prog);
		*exit_code = APP_EXIT_OK;
	} else if (dvp_errno == E_DVP_BAD_ARG) {
		fprintf(stderr,
			"Try '%s -h' for the EAL options, '%s -- --help' for the application's.\n",
			prog, prog);
		*exit_code = APP_EXIT_USAGE;
	} else {
		fprintf(stderr, "%s: cannot initialise the EAL: %s\n", prog,
			dvp_strerror(dvp_errno));
		*exit_code = APP_EXIT_FAIL;
	}
	return -1;
}
