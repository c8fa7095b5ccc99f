/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "app_args.h"

const char *app_unknown_option(char *const *argv, char *buf, size_t len)
{
	if (optopt > 0 && optopt < 256) {
		snprintf(buf, len, "-%c", optopt);
		return buf;
	}
	return argv[optind - 1];
}

int app_option_refused(const char *prog, char *const *argv, int o, const char *valid)
{
	char sopt[4];
	const char *what;

	if (o == ':') {
		fprintf(stderr, "%s: %s: needs a value\n", prog, argv[optind - 1]);
	} else {
		what = app_unknown_option(argv, sopt, sizeof(sopt));
		fprintf(stderr, "%s: %s: unknown option%s%s%s\n", prog, what,
			strncmp(what, "--", 2) == 0 ? "" : " (long options take two dashes)",
			valid != NULL ? "; valid: " : "", valid != NULL ? valid : "");
	}
	fprintf(stderr, "Try '%s -- --help' for more information.\n", prog);
	return -EINVAL;
}

void app_block_stop_signals(sigset_t *sigs)
{
	sigemptyset(sigs);
	sigaddset(sigs, SIGINT);
	sigaddset(sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, sigs, NULL);
}
