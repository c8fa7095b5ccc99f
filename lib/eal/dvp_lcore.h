/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * Logical cores: threads the EAL pins to CPUs, and launching work on them.
 *
 * The main lcore is the thread that called dvp_eal_init(); each worker lcore
 * is a thread named "dvp-worker-N" pinned per the -l/--lcores map, waiting
 * for a function to run.
 */

#ifndef DVP_LCORE_H
#define DVP_LCORE_H

#include <stdbool.h>
#include <stdint.h>

#include <dvp_common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** lcore id of a thread the EAL did not create. */
#define DVP_LCORE_ID_ANY UINT32_MAX
/** Any NUMA node: only where the caller says so explicitly. */
#define DVP_SOCKET_ANY (-1)

/*
 * Per-thread variables, as RTE_DEFINE_PER_LCORE, under names of dvpmd's
 * own: where a DPDK application hosts dvpmd (net_dvp), DPDK's
 * per_lcore__lcore_id is a different variable, and a plugin defining one of
 * that name would read its own in place of DPDK's in every DPDK inline it
 * calls (rte_lcore_id(), so no mempool cache).
 */
#define DVP_DEFINE_PER_LCORE(type, name) __thread __typeof__(type) dvp_per_lcore_##name
#define DVP_DECLARE_PER_LCORE(type, name) extern __thread __typeof__(type) dvp_per_lcore_##name
#define DVP_PER_LCORE(name) (dvp_per_lcore_##name)

DVP_DECLARE_PER_LCORE(unsigned int, _lcore_id);

/** The calling thread's lcore id, or DVP_LCORE_ID_ANY for a non-EAL thread. Cheap. */
static inline unsigned int dvp_lcore_id(void)
{
	return DVP_PER_LCORE(_lcore_id);
}

unsigned int dvp_get_main_lcore(void);
/** Number of enabled lcores, main included. */
unsigned int dvp_lcore_count(void);
bool dvp_lcore_is_enabled(unsigned int lcore_id);
/** The NUMA node of the CPUs @p lcore_id runs on (0 without NUMA). */
int dvp_lcore_to_socket_id(unsigned int lcore_id);
/** The first CPU of @p lcore_id's CPU set, or -1. */
int dvp_lcore_to_cpu_id(unsigned int lcore_id);
/** The NUMA node the calling thread runs on (its lcore's, or the CPU's now). */
int dvp_socket_id(void);
/** Number of NUMA nodes the system has (1 without NUMA). */
unsigned int dvp_socket_count(void);

/**
 * The next enabled lcore after @p i (start with i = -1 as unsigned).
 * @return DVP_MAX_LCORE when there is none (or, with @p wrap, the first again).
 */
unsigned int dvp_get_next_lcore(unsigned int i, bool skip_main, bool wrap);

#define DVP_LCORE_FOREACH(i)                                                   \
	for ((i) = dvp_get_next_lcore(-1u, false, false); (i) < DVP_MAX_LCORE; \
	     (i) = dvp_get_next_lcore((i), false, false))

#define DVP_LCORE_FOREACH_WORKER(i)                                           \
	for ((i) = dvp_get_next_lcore(-1u, true, false); (i) < DVP_MAX_LCORE; \
	     (i) = dvp_get_next_lcore((i), true, false))

typedef int (*dvp_lcore_function_t)(void *arg);

enum dvp_lcore_state {
	DVP_LCORE_WAIT, /**< idle, ready for a function */
	DVP_LCORE_RUNNING, /**< running a function */
};

/**
 * Run @p f(@p arg) on worker @p worker_id.
 * @return 0, -EBUSY if it is still running something, -EINVAL for a bad id.
 */
int dvp_eal_remote_launch(dvp_lcore_function_t f, void *arg, unsigned int worker_id);

enum dvp_call_main { DVP_SKIP_MAIN = 0, DVP_CALL_MAIN };

/**
 * Run @p f on every worker, and on the main lcore too with DVP_CALL_MAIN
 * (the call then returns when the main's run returns).
 * @return 0, or -EBUSY if any worker is busy (nothing is launched then).
 */
int dvp_eal_mp_remote_launch(dvp_lcore_function_t f, void *arg, enum dvp_call_main call_main);

/** Wait for @p worker_id to finish. @return its function's return value, 0 if idle. */
int dvp_eal_wait_lcore(unsigned int worker_id);

/** Wait for every worker to finish. */
void dvp_eal_mp_wait_lcore(void);

enum dvp_lcore_state dvp_eal_get_lcore_state(unsigned int lcore_id);

#ifdef __cplusplus
}
#endif

#endif /* DVP_LCORE_H */
