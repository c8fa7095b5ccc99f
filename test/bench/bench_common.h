/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * What the benchmarks share: sorting latency samples for percentiles and
 * reading how long a thread or the process really ran (the idle-CPU
 * figures), from the scheduler's own accounting rather than wall time.
 */

#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <stdint.h>

/* qsort comparator for uint32_t samples, ascending. */
int bench_cmp_u32(const void *a, const void *c);

/* Nanoseconds thread @tid of this process has run
 * (/proc/self/task/<tid>/schedstat), or -1. */
int64_t bench_task_run_ns(int tid);

/* Nanoseconds every thread of this process has run, or -1. */
int64_t bench_process_run_ns(void);

#endif /* BENCH_COMMON_H */
