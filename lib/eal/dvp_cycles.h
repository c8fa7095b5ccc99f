/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * Time stamp counter, the monotonic clock and delays.
 */

#ifndef DVP_CYCLES_H
#define DVP_CYCLES_H

#include <stdint.h>

#include <dvp_common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The CPU's time stamp counter: cheap, monotonic on invariant-TSC CPUs. */
static inline uint64_t dvp_rdtsc(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
#error "dvpmd: no cycle counter for this architecture"
#endif
}

/** Ticks per second of dvp_rdtsc(): from the kernel where it says, else measured once. */
uint64_t dvp_get_tsc_hz(void);

static inline uint64_t dvp_get_timer_cycles(void)
{
	return dvp_rdtsc();
}

static inline uint64_t dvp_get_timer_hz(void)
{
	return dvp_get_tsc_hz();
}

/**
 * CLOCK_MONOTONIC in nanoseconds: the clock of timerfds, poll timeouts and
 * other processes, which the TSC is not (its zero and rate are this
 * machine's). A vDSO read on Linux where the clocksource allows, else a
 * system call: not for the fast path.
 */
uint64_t dvp_clock_monotonic_ns(void);

/** Busy-wait for @p us microseconds (no sleep: for short waits on an lcore). */
void dvp_delay_us(unsigned int us);

static inline void dvp_delay_ms(unsigned int ms)
{
	dvp_delay_us(ms * 1000u);
}

#ifdef __cplusplus
}
#endif

#endif /* DVP_CYCLES_H */
