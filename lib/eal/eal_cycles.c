/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The TSC frequency: what the CPU or the kernel says when they say it,
 * else measured once against CLOCK_MONOTONIC_RAW. The monotonic clock in
 * ns, and busy-wait delays.
 */

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "dvp_cycles.h"
#include "eal_private.h"

static pthread_once_t tsc_once = PTHREAD_ONCE_INIT;
/* Written once under pthread_once, which orders it before every later read. */
static uint64_t tsc_hz;
static const char *tsc_source = "unknown";

static uint64_t hz_from_cpu(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned int a, b, c, d;

	/* Leaf 0x15: TSC = crystal * ebx / eax; ecx is the crystal in Hz when reported. */
	if (__get_cpuid_max(0, NULL) < 0x15)
		return 0;
	__cpuid(0x15, a, b, c, d);
	(void)d;
	if (a == 0 || b == 0 || c == 0)
		return 0;
	return (uint64_t)c * b / a;
#elif defined(__aarch64__)
	uint64_t f;

	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(f));
	return f;
#else
	return 0;
#endif
}

static uint64_t hz_from_kernel(void)
{
	/* Present when the kernel (or the tsc_freq_khz module) exports it. */
	FILE *f = fopen("/sys/devices/system/cpu/cpu0/tsc_freq_khz", "r");
	unsigned long long khz = 0;

	if (f == NULL)
		return 0;
	if (fscanf(f, "%llu", &khz) != 1)
		khz = 0;
	fclose(f);
	return khz * 1000;
}

static uint64_t ns_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t hz_measured(void)
{
	struct timespec d = { .tv_sec = 0, .tv_nsec = 50 * 1000 * 1000 };
	uint64_t t0, c0, t1, c1, hz;

	t0 = ns_now();
	c0 = dvp_rdtsc();
	nanosleep(&d, NULL);
	c1 = dvp_rdtsc();
	t1 = ns_now();
	hz = (uint64_t)((double)(c1 - c0) * 1e9 / (double)(t1 - t0));
	/* Round to 1 MHz: the measurement is not finer than that. */
	return (hz + 500000) / 1000000 * 1000000;
}

static void tsc_init(void)
{
	tsc_hz = hz_from_cpu();
	tsc_source = "CPU";
	if (tsc_hz == 0) {
		tsc_hz = hz_from_kernel();
		tsc_source = "kernel";
	}
	if (tsc_hz == 0) {
		tsc_hz = hz_measured();
		tsc_source = "measured";
	}
}

uint64_t dvp_get_tsc_hz(void)
{
	pthread_once(&tsc_once, tsc_init);
	return tsc_hz;
}

uint64_t dvp_clock_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void dvp_delay_us(unsigned int us)
{
	uint64_t start = dvp_rdtsc();
	uint64_t ticks = dvp_get_tsc_hz() / 1000000 * us;

	while (dvp_rdtsc() - start < ticks)
		dvp_pause();
}

void eal_cycles_init(void)
{
	uint64_t hz = dvp_get_tsc_hz();

	EAL_LOG(DEBUG, "TSC frequency %llu.%03llu MHz (%s)", (unsigned long long)(hz / 1000000),
		(unsigned long long)(hz / 1000 % 1000), tsc_source);
}
