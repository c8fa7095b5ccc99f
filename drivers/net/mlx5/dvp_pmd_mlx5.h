/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * Extra API of the mlx5 PMD (as DPDK's rte_pmd_mlx5.h): memory
 * registration for pools the PMD would not otherwise know. See doc/mlx5.md.
 */

#ifndef DVP_PMD_MLX5_H
#define DVP_PMD_MLX5_H

#include <stdbool.h>
#include <stdint.h>

#include <dvp_common.h>
#include <dvp_mempool.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Register @p mp with every mlx5 device, so mbufs of that pool can be sent
 * on any mlx5 port. The pools of mlx5 rx queues are registered when the
 * queue is set up; a packet whose buffer lies in no registered pool is
 * dropped by tx_burst (counted in oerrors and the xstat tx_q<N>_mr_miss),
 * since the fast path registers nothing itself. Registration pins the
 * pool's memory (one MR per memory chunk) until the device closes.
 * @return 0, or a negative errno after a log line (-EINVAL for a NULL pool,
 *   -ENOSPC when a device holds 64 pools, or reg_mr's error).
 */
__dvp_export int dvp_pmd_mlx5_mempool_register(struct dvp_mempool *mp);

/** Whether @p mp is registered with the device of mlx5 port @p port_id. */
__dvp_export bool dvp_pmd_mlx5_mempool_registered(uint16_t port_id, const struct dvp_mempool *mp);

#ifdef __cplusplus
}
#endif

#endif /* DVP_PMD_MLX5_H */
