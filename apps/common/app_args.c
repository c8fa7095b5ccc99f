/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

#include <getopt.h>
#include <pthread.h>
#include <stdio.h>

#include "app_args.h"

const char *app_unknown_option(char *const *argv, char *buf, size_t len)
{
	if (optopt > 0 && optopt < 256) {
		snprintf(buf, len, "-%c", optopt);
		return buf;
	}
	return argv[optind - 1];
}

void app_block_stop_signals(sigset_t *sigs)
{
	sigemptyset(sigs);
	sigaddset(sigs, SIGINT);
	sigaddset(sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, sigs, NULL);
}
