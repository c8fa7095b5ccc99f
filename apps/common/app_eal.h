/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * What every dvp application does first: start the EAL, and when that
 * fails say why in the same words and exit with the same codes.
 */

#ifndef APP_EAL_H
#define APP_EAL_H

/* Exit codes of the applications. */
#define APP_EXIT_OK 0
#define APP_EXIT_FAIL 1
#define APP_EXIT_USAGE 2 /* a bad argument */

/*
 * dvp_eal_init() for the program @prog. On failure print what follows
 * (after the EAL's --help: where the application's options go; after a
 * bad EAL argument: where help is; else the error) and set *@exit_code to
 * what main() returns: APP_EXIT_OK, APP_EXIT_USAGE or APP_EXIT_FAIL.
 * @return the number of arguments the EAL took (argv[that] is the
 *   program name again, the application's options follow), or -1.
 */
int app_eal_init(const char *prog, int argc, char **argv, int *exit_code);

#endif /* APP_EAL_H */
