/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The vector rx burst of the mlx5 PMD (x86-64, SSE4.2) and its choice at
 * port start. It takes eight CQEs a step and gives the same mbufs as the
 * scalar burst of mlx5_rx.h; at the first CQE that is not a plain receive
 * of the current pass (not ours yet, an error, a compressed title) it
 * hands the rest of the burst to the scalar code, which decides.
 */

#ifndef MLX5_RX_VEC_H
#define MLX5_RX_VEC_H

#include <dvp_port_driver.h>

#include "mlx5_rx.h"

#if defined(__x86_64__)
#define MLX5_RX_VEC_SSE 1
/* mlx5_rx_vec_sse.c: call only where the CPU has SSE4.2. */
uint16_t mlx5_rx_burst_vec(void *rxq, struct dvp_mbuf **pkts, uint16_t n);
uint16_t mlx5_rx_burst_vec_hash(void *rxq, struct dvp_mbuf **pkts, uint16_t n);
#endif

/* Fill rxq->vec_tbl from the queue's rearm template, cqe_flags and cqe_ptype. */
void mlx5_rxq_vec_init(struct mlx5_rxq *rxq);

/*
 * Why @p port's queues take the scalar burst (rx_vec_en=0, no SSE4.2, a
 * queue the vector burst does not handle), or NULL when they can take
 * the vector one.
 */
const char *mlx5_rx_vec_unsupported(const struct dvp_port *port);

/* The rx burst for a started @p port: vector where it can, scalar otherwise. */
dvp_rx_burst_fn mlx5_rx_burst_select(struct dvp_port *port);

#endif /* MLX5_RX_VEC_H */
