/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The choice of a port's rx burst at start (multi-packet, vector, scalar,
 * with or without compressed CQEs), and the table the vector burst reads.
 * Control path only.
 */

#include <string.h>

#include <dvp_vect.h>

#include "mlx5.h"
#include "mlx5_rx.h"
#include "mlx5_rx_mprq.h"
#include "mlx5_rx_vec.h"

void mlx5_rxq_vec_init(struct mlx5_rxq *rxq)
{
	for (unsigned int i = 0; i < DVP_DIM(rxq->vec_tbl); i++) {
		struct mlx5_rx_vec_ent *e = &rxq->vec_tbl[i];

		memset(e, 0, sizeof(*e));
		e->rearm = rxq->mbuf_rearm;
		e->ol_flags = rxq->cqe_flags[i];
		e->packet_type = rxq->cqe_ptype[i];
	}
	/* Header word 0 is entry 0. */
	memset(rxq->vec_last, 0, sizeof(rxq->vec_last));
	rxq->vec_ent = &rxq->vec_tbl[0];
	for (unsigned int pass = 0; pass < 2; pass++)
		for (unsigned int b = 0; b < 16; b++)
			rxq->vec_own[pass][b] =
				b & 1 ? (uint8_t)(MLX5_CQE_RESP_SEND << 4 | pass) : 0;
}

/*
 * The device-wide reasons against the vector burst. Of what DPDK's
 * mlx5_rxq_check_vec_support refuses per queue, this PMD builds only
 * scattered WQEs (rx scatter), which mlx5_rx_burst_select() sends to the
 * scatter burst; no LRO, no shared queues.
 */
const char *mlx5_rx_vec_unsupported(const struct dvp_port *port)
{
	if (!mlx5_priv(port)->dev->cfg.rx_vec_en)
		return "rx_vec_en=0";
#ifdef MLX5_RX_VEC_SSE
	if (dvp_vect_get_max_simd_bitwidth() < DVP_VECT_SIMD_128)
		return "SIMD limited to 64 bits (--force-max-simd-bitwidth)";
	if (!__builtin_cpu_supports("sse4.2"))
		return "the CPU has no SSE4.2";
	return NULL;
#else
	return "no vector rx burst for this architecture (x86-64 only)";
#endif
}

dvp_rx_burst_fn mlx5_rx_burst_select(struct dvp_port *port)
{
	const char *why = mlx5_rx_vec_unsupported(port);
	bool hash = false, mprq = false, sg = false, comp = mlx5_priv(port)->dev->cqe_comp != 0;

	for (uint16_t q = 0; q < port->nb_rx_queues; q++) {
		const struct mlx5_rxq *rxq = port->rxqs[q];

		hash |= rxq->hash;
		mprq |= rxq->mprq != NULL;
		sg |= rxq->sges_log != 0;
	}
	/* Its burst takes a queue MPRQ did not take as a plain one (mlx5_rx_mprq.c). */
	if (mprq) {
		MLX5_PLOG(DEBUG, port, "multi-packet rx burst");
		return hash ? mlx5_rx_burst_mprq_hash : mlx5_rx_burst_mprq;
	}
	/* As DPDK's mlx5: no vector burst where a WQE scatters; compressed or not. */
	if (sg) {
		MLX5_PLOG(DEBUG, port, "scatter rx burst%s", comp ? " (compressed CQEs)" : "");
		return hash ? mlx5_rx_burst_sg_hash : mlx5_rx_burst_sg;
	}
	if (why != NULL) {
		MLX5_PLOG(DEBUG, port, "scalar rx burst%s: %s", comp ? " (compressed CQEs)" : "",
			  why);
		if (comp)
			return hash ? mlx5_rx_burst_comp_hash : mlx5_rx_burst_comp;
		return hash ? mlx5_rx_burst_hash : mlx5_rx_burst;
	}
#ifdef MLX5_RX_VEC_SSE
	/* Compressed sessions go on in the scalar loop from inside it. */
	MLX5_PLOG(DEBUG, port, "vector rx burst (SSE4.2)");
	return hash ? mlx5_rx_burst_vec_hash : mlx5_rx_burst_vec;
#else
	return hash ? mlx5_rx_burst_hash : mlx5_rx_burst;
#endif
}
