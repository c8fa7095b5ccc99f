/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * What the benchmarks share: sorting latency samples for percentiles, the
 * median and spread of a bench's trials, and
 * reading how long a thread or the process really ran (the idle-CPU
 * figures), from the scheduler's own accounting rather than wall time, and
 * counting the system calls a thread makes (the wake-up figures).
 */

#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* The first CPU the calling thread may run on (0 when none can be read). */
int bench_first_cpu(void);

/* qsort comparator for uint32_t samples, ascending. */
int bench_cmp_u32(const void *a, const void *c);

/*
 * A comparison of trials is trusted only when they agree: a side's trials,
 * or the trials' ratios, whose spread exceeds this say "too-noisy".
 */
#define BENCH_SPREAD_MAX 0.20

/* The median of the @n trials @v (sorted here, ascending). */
double bench_median(double *v, unsigned int n);

/*
 * How far the trials stray: the interquartile range of @v (sorted by
 * bench_median()) over its median @med.
 */
double bench_spread(const double *v, unsigned int n, double med);

/* Nanoseconds thread @tid of this process has run
 * (/proc/self/task/<tid>/schedstat), or -1. */
int64_t bench_task_run_ns(int tid);

/* Nanoseconds every thread of this process has run, or -1. */
int64_t bench_process_run_ns(void);

/*
 * A counter of the system calls the calling thread makes from now on: the
 * raw_syscalls:sys_enter tracepoint through perf_event_open(2), exact and
 * unaffected by load. Needs tracefs (mounted at /sys/kernel/tracing if no
 * tracefs is, which takes root) and the right to count tracepoints.
 * @return the counter's fd, or -1 with a line in @p why saying what is
 * missing.
 */
int bench_syscalls_open(char *why, size_t len);

/* The system calls counted so far, or -1; the fd is closed by close(2). */
int64_t bench_syscalls_read(int fd);

#endif /* BENCH_COMMON_H */
