/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* dvp-perf internals: the latency histogram (hist.c). */

#ifndef PERF_H
#define PERF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/*
 * A log-linear histogram of nanosecond values: exact below 128 ns, then
 * 64 buckets per power of two (at most 1/64 = 1.6% relative error), up to
 * 2^41 ns (36 minutes). Percentiles are read from it, as HdrHistogram does.
 */
#define HIST_SUB_BITS 6
#define HIST_LINEAR 128u
#define HIST_MAX_EXP 41
#define HIST_BUCKETS (HIST_LINEAR + (HIST_MAX_EXP - 7 + 1) * (1u << HIST_SUB_BITS))

struct hist {
	uint64_t count;
	uint64_t sum;
	uint64_t min;
	uint64_t max;
	uint64_t b[HIST_BUCKETS];
};

void hist_init(struct hist *h);
void hist_add(struct hist *h, uint64_t ns);
/* The value at quantile @q (0 to 1): the middle of its bucket, exact for min and max. */
uint64_t hist_quantile(const struct hist *h, double q);
/* Bucket @i covers [lo, hi]. */
void hist_bucket_range(unsigned int i, uint64_t *lo, uint64_t *hi);
/* Every non-empty bucket: lo_ns,hi_ns,count,cumulative fraction. @return 0 or -errno. */
int hist_write_csv(const struct hist *h, const char *path, const char *label);
/*
 * Draw the latency distribution (density and CDF, log x axis) into a PNG
 * with gnuplot. @return 0, -ENOENT when gnuplot is not installed, or
 * another negative errno.
 */
int hist_plot(const struct hist *h, const char *png, const char *title);

#endif /* PERF_H */
