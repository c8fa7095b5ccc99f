/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_common.h"

int bench_cmp_u32(const void *a, const void *c)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)c;

	return x < y ? -1 : x > y;
}

int64_t bench_task_run_ns(int tid)
{
	char path[64];
	unsigned long long ns;
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", tid);
	f = fopen(path, "r");
	if (f == NULL)
		return -1;
	ok = fscanf(f, "%llu", &ns) == 1;
	fclose(f);
	return ok ? (int64_t)ns : -1;
}

int64_t bench_process_run_ns(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int64_t sum = 0, t;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		t = bench_task_run_ns(atoi(e->d_name));
		if (t > 0)
			sum += t;
	}
	closedir(d);
	return sum;
}
