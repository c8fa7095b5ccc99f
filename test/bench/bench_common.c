/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench_common.h"

int bench_first_cpu(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return 0;
	for (int i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			return i;
	return 0;
}

int bench_cmp_u32(const void *a, const void *c)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)c;

	return x < y ? -1 : x > y;
}

static int cmp_double(const void *a, const void *c)
{
	double x = *(const double *)a, y = *(const double *)c;

	return x < y ? -1 : x > y;
}

double bench_median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double bench_spread(const double *v, unsigned int n, double med)
{
	return med > 0 ? (v[(3 * n) / 4] - v[n / 4]) / med : 0;
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

/* The id of raw_syscalls:sys_enter, from whichever tracefs is mounted. */
static long sys_enter_id(void)
{
	static const char *const paths[] = {
		"/sys/kernel/tracing/events/raw_syscalls/sys_enter/id",
		"/sys/kernel/debug/tracing/events/raw_syscalls/sys_enter/id",
	};
	unsigned int i;
	long id = -1;
	FILE *f;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]) && id < 0; i++) {
		f = fopen(paths[i], "r");
		if (f == NULL)
			continue;
		if (fscanf(f, "%ld", &id) != 1)
			id = -1;
		fclose(f);
	}
	return id;
}

int bench_syscalls_open(char *why, size_t len)
{
	struct perf_event_attr attr;
	long id = sys_enter_id();
	int fd;

	/* perf(1) mounts tracefs the same way when it is missing. */
	if (id < 0 && mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0)
		id = sys_enter_id();
	if (id < 0) {
		snprintf(
			why, len,
			"no tracefs with raw_syscalls (mount -t tracefs nodev /sys/kernel/tracing as root)");
		return -1;
	}
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.size = sizeof(attr);
	attr.config = (uint64_t)id;
	fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		snprintf(why, len,
			 "perf_event_open(raw_syscalls:sys_enter): %s (root or CAP_PERFMON)",
			 strerror(errno));
	return fd;
}

int64_t bench_syscalls_read(int fd)
{
	uint64_t v;

	if (fd < 0 || read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return -1;
	return (int64_t)v;
}
