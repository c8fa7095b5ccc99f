/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * lib/eal barriers and MMIO writes: dvp_mmio_write64() stores the whole
 * word at the address and nothing around it, whatever the word's bytes.
 */

#include "dvp_test.h"

#include <stdint.h>
#include <string.h>

#include <dvp_barrier.h>

static void test_mmio_write64(void **state)
{
	static const uint64_t values[] = { 0, 1, 0x8000000000000000ull, 0x0123456789abcdefull,
					   UINT64_MAX };
	uint64_t reg[3];

	(void)state;
	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		memset(reg, 0x5a, sizeof(reg));
		dvp_mmio_wc_start();
		dvp_mmio_write64(&reg[1], values[i]);
		dvp_mmio_flush_writes();
		assert_true(reg[1] == values[i]);
		assert_true(reg[0] == 0x5a5a5a5a5a5a5a5aull);
		assert_true(reg[2] == 0x5a5a5a5a5a5a5a5aull);
	}
}

static void test_barriers_compile_and_run(void **state)
{
	volatile uint32_t x = 0;

	(void)state;
	/* Each names an order; on one thread they must simply not change values. */
	x = 1;
	dvp_dma_to_device_barrier();
	x += 1;
	dvp_dma_from_device_barrier();
	x += 1;
	dvp_mmio_flush_writes();
	assert_int_equal(x, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mmio_write64),
		cmocka_unit_test(test_barriers_compile_and_run),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
