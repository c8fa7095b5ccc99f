/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The rx burst functions of the mlx5 PMD (their bodies are inline in
 * mlx5_rx.h) and the replenish of pools of several MRs. What runs when a
 * queue goes wrong is in mlx5_err.c.
 */

#include <dvp_errno.h>

#include "mlx5.h"
#include "mlx5_rx.h"

uint16_t mlx5_rx_burst(void *rxq, struct dvp_mbuf **pkts, uint16_t n)
{
	return mlx5_rx_burst_tmpl(rxq, pkts, n, false);
}

/* For ports that hash: RSS over several queues, or DVP_RX_OFFLOAD_RSS_HASH. */
uint16_t mlx5_rx_burst_hash(void *rxq, struct dvp_mbuf **pkts, uint16_t n)
{
	return mlx5_rx_burst_tmpl(rxq, pkts, n, true);
}

/* Data segments of a pool of several MRs: each buffer's own lkey. */
void mlx5_rx_replenish_multi(struct mlx5_rxq *rxq, uint32_t idx, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		struct dvp_mbuf *m = rxq->elts[idx + i];
		struct mlx5_wqe_data_seg *w = mlx5_rx_wqe(rxq, idx + i);

		w->lkey = mlx5_mr_lkey(&rxq->mr, m);
		w->addr = htobe64((uintptr_t)m->buf_addr + rxq->data_off);
	}
}
