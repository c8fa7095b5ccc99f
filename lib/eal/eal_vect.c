/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

#include "dvp_vect.h"
#include "eal_private.h"

#ifdef DVP_HOST_DPDK
#include <rte_vect.h>
#endif

uint16_t dvp_vect_get_max_simd_bitwidth(void)
{
#ifdef DVP_HOST_DPDK
	/* Inside a DPDK application: its --force-max-simd-bitwidth. */
	return rte_vect_get_max_simd_bitwidth();
#else
	return eal_cfg.max_simd_bitwidth != 0 ? eal_cfg.max_simd_bitwidth : DVP_VECT_SIMD_256;
#endif
}
