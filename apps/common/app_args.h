/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * What every dvp application does the same way with its own options and
 * signals, after the EAL took its part of the command line.
 */

#ifndef APP_ARGS_H
#define APP_ARGS_H

#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * Why getopt_long() refused an option, into @p buf, naming it by its own
 * name whatever was typed: "--verbose: takes no value (given
 * '--verbose=2')", "--duration: needs a value" (also for an abbreviation,
 * "--dur"), "--r: ambiguous: --rxq, --rxd, --rx-mode", "--bogus: unknown
 * option", "-x: unknown option (long options take two dashes)". @p o is
 * what getopt_long() returned, @p opts the long options it was given.
 * glibc reports a long option's value error with the option's val in
 * optopt, as it reports a short option: the argument it read, when it is
 * that long option, tells the two apart.
 * @return @p buf
 */
const char *app_option_why(char *const *argv, int o, const struct option *opts, char *buf,
			   size_t len);

/*
 * The error line for an option getopt_long() refused (app_option_why()
 * after the program's name; for an unknown option, @p valid lists the
 * valid ones unless NULL), then the hint to --help.
 * @return -EINVAL.
 */
int app_option_refused(const char *prog, char *const *argv, int o, const struct option *opts,
		       const char *valid);

/*
 * Fill @p sigs with SIGINT and SIGTERM and block them in the calling
 * thread. Called before the EAL starts, so every thread it and the
 * application create inherits the mask and main() alone takes the signals
 * (sigwait, or by unblocking @p sigs).
 */
void app_block_stop_signals(sigset_t *sigs);

#endif /* APP_ARGS_H */
