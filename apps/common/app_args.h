/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * What every dvp application does the same way with its own options and
 * signals, after the EAL took its part of the command line.
 */

#ifndef APP_ARGS_H
#define APP_ARGS_H

#include <signal.h>
#include <stddef.h>

/*
 * The option getopt_long() just refused, for an error line: an unknown
 * short option may sit in a group ("-xv"), where argv[optind - 1] is the
 * argument before it (or the program), so it is named by optopt, written
 * to @p buf; an unknown long one is its argument.
 */
const char *app_unknown_option(char *const *argv, char *buf, size_t len);

/*
 * The error line for an option getopt_long() refused, then the hint to
 * --help. @p o is what getopt_long() returned: ':' (an optstring that
 * starts with ':') for an option without its value, anything else for an
 * unknown option, which @p valid (NULL: none) lists the valid ones after;
 * a short one is reminded that long options take two dashes.
 * @return -EINVAL.
 */
int app_option_refused(const char *prog, char *const *argv, int o, const char *valid);

/*
 * Fill @p sigs with SIGINT and SIGTERM and block them in the calling
 * thread. Called before the EAL starts, so every thread it and the
 * application create inherits the mask and main() alone takes the signals
 * (sigwait, or by unblocking @p sigs).
 */
void app_block_stop_signals(sigset_t *sigs);

#endif /* APP_ARGS_H */
