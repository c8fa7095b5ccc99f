/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * dvp-perf's latency histogram, its CSV form and its gnuplot drawing.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perf.h"

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

static unsigned int bucket_of(uint64_t v)
{
	unsigned int e;

	if (v < HIST_LINEAR)
		return (unsigned int)v;
	e = 63u - (unsigned int)__builtin_clzll(v); /* >= 7 */
	if (e > HIST_MAX_EXP)
		return HIST_BUCKETS - 1;
	/* The 6 bits below the leading one pick the bucket within [2^e, 2^(e+1)). */
	return HIST_LINEAR + (e - 7) * (1u << HIST_SUB_BITS) +
	       (unsigned int)((v >> (e - HIST_SUB_BITS)) & ((1u << HIST_SUB_BITS) - 1));
}

void hist_bucket_range(unsigned int i, uint64_t *lo, uint64_t *hi)
{
	unsigned int e, sub;

	if (i < HIST_LINEAR) {
		*lo = *hi = i;
		return;
	}
	e = 7 + (i - HIST_LINEAR) / (1u << HIST_SUB_BITS);
	sub = (i - HIST_LINEAR) % (1u << HIST_SUB_BITS);
	*lo = (1ull << e) + ((uint64_t)sub << (e - HIST_SUB_BITS));
	*hi = *lo + (1ull << (e - HIST_SUB_BITS)) - 1;
}

void hist_add(struct hist *h, uint64_t ns)
{
	h->b[bucket_of(ns)]++;
	h->count++;
	h->sum += ns;
	if (ns < h->min)
		h->min = ns;
	if (ns > h->max)
		h->max = ns;
}

uint64_t hist_quantile(const struct hist *h, double q)
{
	uint64_t rank, seen = 0, lo, hi;
	unsigned int i;

	if (h->count == 0)
		return 0;
	if (q <= 0)
		return h->min;
	if (q >= 1)
		return h->max;
	/* The smallest value with at least q of the samples at or below it. */
	rank = (uint64_t)(q * (double)h->count + 0.999999);
	if (rank == 0)
		rank = 1;
	for (i = 0; i < HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= rank) {
			hist_bucket_range(i, &lo, &hi);
			lo = lo + (hi - lo) / 2;
			/* Never outside what was seen. */
			return lo < h->min ? h->min : lo > h->max ? h->max : lo;
		}
	}
	return h->max;
}

/*
 * From bucket *i on, the next that holds samples: its range, and false
 * past the last. The writers below print only those.
 */
static bool next_used(const struct hist *h, unsigned int *i, uint64_t *lo, uint64_t *hi)
{
	while (*i < HIST_BUCKETS && h->b[*i] == 0)
		(*i)++;
	if (*i == HIST_BUCKETS)
		return false;
	hist_bucket_range(*i, lo, hi);
	return true;
}

int hist_write_csv(const struct hist *h, const char *path, const char *label)
{
	uint64_t lo, hi, cum = 0;
	unsigned int i;
	FILE *f = fopen(path, "w");

	if (f == NULL)
		return -errno;
	fprintf(f, "# dvp-perf latency histogram: %s\n", label);
	fprintf(f, "lo_ns,hi_ns,count,cumulative\n");
	for (i = 0; next_used(h, &i, &lo, &hi); i++) {
		cum += h->b[i];
		fprintf(f, "%llu,%llu,%llu,%.6f\n", (unsigned long long)lo, (unsigned long long)hi,
			(unsigned long long)h->b[i], (double)cum / (double)h->count);
	}
	if (fclose(f) != 0)
		return -errno;
	return 0;
}

static bool have_gnuplot(void)
{
	const char *path = getenv("PATH");
	char buf[4096], *dir, *save = NULL;

	if (path == NULL)
		path = "/usr/bin:/bin";
	snprintf(buf, sizeof(buf), "%s", path);
	for (dir = strtok_r(buf, ":", &save); dir != NULL; dir = strtok_r(NULL, ":", &save)) {
		char exe[4200];

		snprintf(exe, sizeof(exe), "%s/gnuplot", dir);
		if (access(exe, X_OK) == 0)
			return true;
	}
	return false;
}

int hist_plot(const struct hist *h, const char *png, const char *title)
{
	uint64_t lo, hi, cum = 0;
	unsigned int i;
	FILE *p;
	int st;

	if (!have_gnuplot())
		return -ENOENT;
	p = popen("gnuplot", "w");
	if (p == NULL)
		return -errno;
	fprintf(p, "set terminal pngcairo size 1000,600 noenhanced\n");
	fprintf(p, "set output '%s'\n", png);
	fprintf(p, "set title '%s'\n", title);
	fprintf(p,
		"set logscale x\nset xlabel 'latency (us)'\nset ylabel 'share of samples per bucket'\n");
	fprintf(p, "set y2label 'cumulative'\nset y2range [0:1]\nset ytics nomirror\nset y2tics\n");
	fprintf(p, "set grid\nset key left top\n");
	fprintf(p,
		"plot '-' using 1:2 with steps title 'density', '-' using 1:2 axes x1y2 with lines lw 2 title 'CDF'\n");
	for (i = 0; next_used(h, &i, &lo, &hi); i++)
		fprintf(p, "%.3f %.6f\n", (double)(lo + hi) / 2000.0,
			(double)h->b[i] / (double)h->count);
	fprintf(p, "e\n");
	for (i = 0; next_used(h, &i, &lo, &hi); i++) {
		cum += h->b[i];
		fprintf(p, "%.3f %.6f\n", (double)hi / 1000.0, (double)cum / (double)h->count);
	}
	fprintf(p, "e\n");
	st = pclose(p);
	if (st == -1)
		return -errno;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -EIO;
}
