/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * Extra API of the mlx5 PMD (as DPDK's rte_pmd_mlx5.h): memory
 * registration for pools the PMD would not otherwise know, and the
 * datapaths a port runs (for dvp-info --check). See doc/mlx5.md.
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

/** What an mlx5 port runs and what its device told the PMD (dvp_pmd_mlx5_paths()). */
struct dvp_pmd_mlx5_paths {
	/**
	 * The rx burst: "scalar", "scalar, compressed CQEs", "vector (SSE4.2)",
	 * "vector (SSE4.2), compressed CQEs", "scatter", "scatter, compressed
	 * CQEs", "multi-packet"; "none" before
	 * the port starts.
	 */
	const char *rx;
	/** The tx burst: "SEND", "eMPW", "eMPW with inline frames (AVX2)", "... (SSE)", "none". */
	const char *tx;
	bool rx_comp; /**< the rx CQs compress (CQE compression) */
	bool mprq; /**< an rx queue is multi-packet (striding) */
	bool empw; /**< the device takes enhanced multi-packet send WQEs and the PMD uses them */
	bool devx; /**< the device answered DevX: its inline requirement was read through it */
	/** Headers every send WQE must carry inline: "none", "L2", "IP", "TCP/UDP", "inner ...". */
	const char *inline_mode;
	uint32_t inline_bytes; /**< bytes of them each SEND WQE inlines */
	uint32_t part_id; /**< PCI device id (ibv_device_attr.vendor_part_id) */
	char ifname[16]; /**< the port's netdev ("" for a simulated port) */
};

/**
 * The datapaths mlx5 port @p port_id runs (its bursts are chosen at start)
 * and what its device requires. @return 0, or -EINVAL (not an mlx5 port,
 * @p paths NULL).
 */
__dvp_export int dvp_pmd_mlx5_paths(uint16_t port_id, struct dvp_pmd_mlx5_paths *paths);

#ifdef __cplusplus
}
#endif

#endif /* DVP_PMD_MLX5_H */
