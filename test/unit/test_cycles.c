/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * lib/eal cycles: the TSC frequency agrees with the kernel's clock, the
 * monotonic clock is the kernel's CLOCK_MONOTONIC, delays last.
 */

#include "dvp_test.h"

#include <time.h>

#include <dvp_cycles.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void test_tsc_hz_matches_clock(void **state)
{
	struct timespec d = { 0, 200 * 1000 * 1000 };
	uint64_t hz = dvp_get_tsc_hz(), c0, c1, t0, t1;
	double measured;

	(void)state;
	assert_true(hz > 1000000);
	assert_int_equal(dvp_get_timer_hz(), hz);
	/* Both counters see the same interval; preemption shifts both alike. */
	t0 = now_ns();
	c0 = dvp_rdtsc();
	nanosleep(&d, NULL);
	c1 = dvp_rdtsc();
	t1 = now_ns();
	measured = (double)(c1 - c0) * 1e9 / (double)(t1 - t0);
	if (measured < (double)hz * 0.95 || measured > (double)hz * 1.05)
		fail_msg("TSC runs at %.0f Hz by the clock, dvp_get_tsc_hz() says %llu", measured,
			 (unsigned long long)hz);
}

static void test_delay_lasts_at_least(void **state)
{
	uint64_t t0 = now_ns();

	(void)state;
	dvp_delay_us(20000);
	assert_true(now_ns() - t0 >= 19000000ull);
	t0 = now_ns();
	dvp_delay_ms(5);
	assert_true(now_ns() - t0 >= 4900000ull);
	assert_true(dvp_get_timer_cycles() > 0);
}

/* The same clock as CLOCK_MONOTONIC (timerfds are armed with it), in ns, never going back. */
static void test_clock_monotonic_ns(void **state)
{
	struct timespec d = { 0, 2 * 1000 * 1000 };
	uint64_t t0, a, t1, prev, cur;
	int i;

	(void)state;
	t0 = now_ns();
	a = dvp_clock_monotonic_ns();
	t1 = now_ns();
	/* Read between two kernel readings: within them, so not another clock or unit. */
	assert_true(a >= t0);
	assert_true(a <= t1);
	nanosleep(&d, NULL);
	/* Nanoseconds, not micro: 2 ms of sleep is at least 2e6 of them. */
	assert_true(dvp_clock_monotonic_ns() - a >= 2000000ull);
	prev = dvp_clock_monotonic_ns();
	for (i = 0; i < 100000; i++) {
		cur = dvp_clock_monotonic_ns();
		assert_true(cur >= prev);
		prev = cur;
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tsc_hz_matches_clock),
		cmocka_unit_test(test_delay_lasts_at_least),
		cmocka_unit_test(test_clock_monotonic_ns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
