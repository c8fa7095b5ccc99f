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
#include "mlx5_rx_comp.h"

uint16_t mlx5_rx_burst(void *rxq, struct dvp_mbuf **pkts, uint16_t n)
{
	return mlx5_rx_burst_tmpl(rxq, pkts, n, false);
}

/* For ports that hash: RSS over several queues, or DVP_RX_OFFLOAD_RSS_HASH. */
uint16_t mlx5_rx_burst_hash(void *rxq, struct dvp_mbuf **pkts, uint16_t n)
{
	return mlx5_rx_burst_tmpl(rxq, pkts, n, true);
}

/* Out of line: only queues with MLX5_RXQ_OFL_* come here, once a run. */
void mlx5_rx_ofl_run(const struct mlx5_rxq *rxq, uint8_t ofl, uint32_t ci,
		     struct dvp_mbuf *const *out, uint32_t k)
{
	for (uint32_t j = 0; j < k; j++)
		mlx5_rx_ofl_one(rxq, ofl, out[j], mlx5_cqe_slot(rxq->cqes, rxq->cqe_cnt, ci + j));
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

void mlx5_rx_mark(const struct mlx5_rxq *rxq, uint32_t ci, struct dvp_mbuf **out, uint32_t k)
{
	for (uint32_t i = 0; i < k; i++) {
		const struct mlx5_cqe64 *cqe = mlx5_cqe_slot(rxq->cqes, rxq->cqe_cnt, ci + i);

		mlx5_rx_mark_one(out[i], be32toh(cqe->sop_drop_qpn) & MLX5_CQE_FLOW_TAG_MASK);
	}
}

void mlx5_rx_mark_same(struct dvp_mbuf **out, uint32_t k, __be32 sop_drop_qpn)
{
	uint32_t tag = be32toh(sop_drop_qpn) & MLX5_CQE_FLOW_TAG_MASK;

	for (uint32_t i = 0; i < k; i++)
		mlx5_rx_mark_one(out[i], tag);
}

uint16_t mlx5_rx_burst_marked(struct mlx5_rxq *rxq, struct dvp_mbuf **pkts, uint16_t n, bool hash)
{
	if (rxq->comp_fmt != MLX5_RX_COMP_OFF)
		return hash ? mlx5_rx_burst_comp_hash(rxq, pkts, n) :
			      mlx5_rx_burst_comp(rxq, pkts, n);
	return hash ? mlx5_rx_burst_hash(rxq, pkts, n) : mlx5_rx_burst(rxq, pkts, n);
}
