/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The widest SIMD registers the drivers may use, as DPDK's rte_vect.h has
 * it: a driver with vector bursts picks one no wider than this, and only
 * where the CPU has the instructions. --force-max-simd-bitwidth sets it
 * (64: no vector burst at all), so that every path can be run on one
 * machine; inside a DPDK application it is DPDK's own setting.
 */

#ifndef DVP_VECT_H
#define DVP_VECT_H

#include <stdint.h>

enum dvp_vect_simd_bitwidth {
	DVP_VECT_SIMD_DISABLED = 64, /* scalar bursts only */
	DVP_VECT_SIMD_128 = 128, /* SSE4.2 */
	DVP_VECT_SIMD_256 = 256, /* AVX2 */
	DVP_VECT_SIMD_512 = 512,
	DVP_VECT_SIMD_MAX = 1 << 15, /* no limit of its own */
};

/* What the drivers may use: the option's value, DVP_VECT_SIMD_256 by default (as DPDK on x86). */
uint16_t dvp_vect_get_max_simd_bitwidth(void);

#endif /* DVP_VECT_H */
