/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * The Environment Abstraction Layer: what every dvpmd process starts with.
 *
 * dvp_eal_init() takes DPDK's EAL arguments (see doc/eal.md or `-h`), maps
 * memory, starts one pinned thread per worker lcore and the interrupt thread,
 * scans the buses and probes the devices it finds or is given.
 */

#ifndef DVP_EAL_H
#define DVP_EAL_H

#include <stdbool.h>
#include <stdio.h>

#include <dvp_common.h>
#include <dvp_errno.h>
#include <dvp_log.h>
#include <dvp_lcore.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Initialise the EAL from the command line.
 *
 * Arguments are taken from argv[1] up to the first "--" (which is consumed)
 * or the first argument that is not an EAL option, as rte_eal_init does;
 * argv[0] is the program name used in messages.
 *
 * @return the number of EAL arguments consumed ("--" included, argv[0] not),
 *   as rte_eal_init: argv[ret] is set to the program name, so after
 *   `argc -= ret; argv += ret;` the application parses its own options
 *   with getopt as usual; or -1 with dvp_errno set, after one
 *   log line naming the bad argument and what would be valid. `-h` and `-v`
 *   print and return -1 with dvp_eal_init_status() ==
 *   DVP_EAL_INIT_HELP_SHOWN, so the application can exit with status 0.
 *   Never calls exit().
 */
int dvp_eal_init(int argc, char **argv);

/** What the last dvp_eal_init() call did, for the caller to act on. */
enum dvp_eal_init_status {
	DVP_EAL_INIT_NONE = 0, /**< not called, or cleaned up */
	DVP_EAL_INIT_DONE, /**< initialised */
	DVP_EAL_INIT_HELP_SHOWN, /**< -h/--help or -v printed; nothing initialised */
	DVP_EAL_INIT_FAILED, /**< failed; dvp_errno says why */
};
enum dvp_eal_init_status dvp_eal_init_status(void);

/**
 * Undo dvp_eal_init(): stop worker and interrupt threads, remove devices,
 * unmap memory and remove hugepage files. Ports must be closed first.
 * Call it from the main lcore (or a thread the EAL did not create) once
 * the workers' functions have returned: from a worker lcore, or from an
 * interrupt callback (the EAL interrupt thread), it would wait for its own
 * thread or free the state that thread runs on, so it is refused there
 * and changes nothing.
 * @return 0, or a negative errno (with a log line): -E_DVP_NO_INIT when
 *   not initialised, -EDEADLK from a worker lcore or the EAL interrupt
 *   thread, or the error of a part that could not be released.
 */
int dvp_eal_cleanup(void);

/** Print the EAL's usage text (every option with its meaning) to @p f. */
void dvp_eal_usage(FILE *f, const char *prgname);

/** Whether datapath memory is backed by hugepages (false with --no-huge). */
bool dvp_eal_has_hugepages(void);

/** The --file-prefix in effect. */
const char *dvp_eal_file_prefix(void);

/** "dvpmd 0.1.0" */
const char *dvp_version(void);

#ifdef __cplusplus
}
#endif

#endif /* DVP_EAL_H */
