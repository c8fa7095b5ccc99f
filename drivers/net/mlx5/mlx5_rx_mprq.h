/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Multi-packet (striding) receive queues of the mlx5 PMD (mprq_en, doc/mlx5.md).
 *
 * Each WQE of such a queue is one buffer of 2^log_strd_num strides of
 * 2^log_strd_sz bytes, in EAL memory on the queue's node, registered as one
 * MR and written into its 32-byte WQE once, at creation: WQE slot i always
 * points at buffer i. The device puts several packets into a WQE, each
 * from a stride boundary; rx_burst copies each into an mbuf of the
 * application's pool (dvp_mbuf has no external-buffer attach, DPDK's other
 * way) and, once every stride of a WQE is consumed, hands the WQE back by
 * counting it in the RQ doorbell record. The queue holds no mbuf between
 * bursts: rq_ci == rq_pi of struct mlx5_rxq always, and wq_ci / wq_pi
 * below count WQEs.
 *
 * The queue shares everything else with a plain one (mlx5_rxq.c): CQ,
 * error recovery, restart, interrupts, stop and counters; the few places
 * that differ call the functions below.
 */

#ifndef MLX5_RX_MPRQ_H
#define MLX5_RX_MPRQ_H

#include <stdbool.h>
#include <stdint.h>

#include "mlx5_rx.h"

/* Longest packet copied in 32-byte units inline, when the mbufs hold that much. */
#define MLX5_MPRQ_INLINE_COPY 128u

struct mlx5_mprq {
	/* Hot: every burst. */
	uint8_t *bufs; /* WQE slot i's strides at bufs + (i << log_wqe_sz) */
	uint32_t log_strd_sz;
	uint32_t log_wqe_sz; /* log_strd_sz + log_strd_num */
	uint32_t strd_n; /* strides per WQE */
	uint32_t strd_ci; /* strides of the WQE at wq_ci that CQEs have consumed */
	uint32_t wq_ci; /* counter of the WQE the device fills */
	uint32_t wq_pi; /* WQEs posted: the RQ doorbell record's value */
	uint32_t inline_copy; /* packets up to this length are copied inline (mprq_burst) */
	/* Cold. */
	uint32_t log_strd_num;
	uint32_t max_memcpy_len; /* mprq_max_memcpy_len, capped at the mbuf room: informative */
	size_t size; /* of bufs */
	struct ibv_mr *mr;
};

/* A CQE of a multi-packet RQ that delivers no packet (its strides are skipped). */
static inline bool mlx5_mprq_cqe_filler(const struct mlx5_cqe64 *cqe)
{
	return (be32toh(cqe->byte_cnt) & MLX5_MPRQ_FILLER_MASK) != 0;
}

/* Fast path (mlx5_rx_mprq.c). */
uint16_t mlx5_rx_burst_mprq(void *rxq, struct dvp_mbuf **pkts, uint16_t n);
uint16_t mlx5_rx_burst_mprq_hash(void *rxq, struct dvp_mbuf **pkts, uint16_t n);

/*
 * At rx queue setup, after the plain queue's fields: make @p rxq a
 * multi-packet RQ when mprq_en asks and the port, the device and
 * @p nb_desc allow it (warnings say why not, as DPDK's). @return 0 (either
 * way) or a negative errno.
 */
int mlx5_mprq_setup(struct mlx5_rxq *rxq, uint32_t nb_desc);
/* The striding WQ (dv_create_wq) over @p wa. NULL with errno set. */
struct ibv_wq *mlx5_mprq_wq_create(struct mlx5_rxq *rxq, struct ibv_wq_init_attr *wa);
/* Write every WQE of a new WQ: slot i over buffer i. */
void mlx5_mprq_wqes_init(struct mlx5_rxq *rxq);
/* Post every WQE from counter @p base (the WQ's record after a move to ready). */
void mlx5_mprq_post_all(struct mlx5_rxq *rxq, uint32_t base);
/* Deregister and free the buffers. */
void mlx5_mprq_free(struct mlx5_rxq *rxq);

#endif /* MLX5_RX_MPRQ_H */
