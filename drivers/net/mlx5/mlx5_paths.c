/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Which datapaths an mlx5 port runs (dvp_pmd_mlx5_paths(), dvp_pmd_mlx5.h):
 * its rx and tx bursts by name, and what its device required of them, so
 * that the first-contact check (dvp-info --check) says per path what it
 * exercised.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <dvp_errno.h>

#include "dvp_pmd_mlx5.h"
#include "mlx5.h"
#include "mlx5_rx.h"
#include "mlx5_rx_mprq.h"
#include "mlx5_rx_vec.h"
#include "mlx5_tx.h"

static const char *rx_name(dvp_rx_burst_fn fn, bool comp)
{
	if (fn == NULL)
		return "none";
	if (fn == mlx5_rx_burst_mprq || fn == mlx5_rx_burst_mprq_hash)
		return "multi-packet";
	if (fn == mlx5_rx_burst_sg || fn == mlx5_rx_burst_sg_hash)
		return comp ? "scatter, compressed CQEs" : "scatter";
	if (fn == mlx5_rx_burst_comp || fn == mlx5_rx_burst_comp_hash)
		return "scalar, compressed CQEs";
#ifdef MLX5_RX_VEC_SSE
	if (fn == mlx5_rx_burst_vec || fn == mlx5_rx_burst_vec_hash)
		return comp ? "vector (SSE4.2), compressed CQEs" : "vector (SSE4.2)";
#else
	(void)comp;
#endif
	return "scalar";
}

static const char *tx_name(dvp_tx_burst_fn fn)
{
	if (fn == NULL)
		return "none";
	if (fn == mlx5_tx_burst || fn == mlx5_tx_burst_cs || fn == mlx5_tx_burst_off)
		return "SEND";
	if (fn == mlx5_tx_burst_empw || fn == mlx5_tx_burst_empw_cs || fn == mlx5_tx_burst_empw_off)
		return "eMPW";
#ifdef MLX5_TX_AVX2
	if (fn == mlx5_tx_burst_empw_inl_avx2 || fn == mlx5_tx_burst_empw_inl_avx2_cs ||
	    fn == mlx5_tx_burst_empw_inl_avx2_off)
		return "eMPW with inline frames (AVX2)";
#endif
	return "eMPW with inline frames (SSE)";
}

int dvp_pmd_mlx5_paths(uint16_t port_id, struct dvp_pmd_mlx5_paths *paths)
{
	struct dvp_port *port = dvp_port_get(port_id);
	const struct mlx5_dev *dev;

	if (port == NULL || paths == NULL || strcmp(port->driver_name, MLX5_DRIVER_NAME) != 0) {
		MLX5_LOG(ERR, "paths: port %u is not an mlx5 port", port_id);
		return dvp_err(EINVAL);
	}
	dev = mlx5_priv(port)->dev;
	memset(paths, 0, sizeof(*paths));
	paths->rx_comp = dev->cqe_comp != 0;
	for (uint16_t q = 0; q < port->nb_rx_queues; q++)
		paths->mprq |= port->rxqs[q] != NULL &&
			       ((const struct mlx5_rxq *)port->rxqs[q])->mprq != NULL;
	paths->rx = rx_name(port->rx_pkt_burst, paths->rx_comp);
	paths->tx = tx_name(port->tx_pkt_burst);
	paths->empw = dev->empw;
	paths->devx = dev->caps.devx;
	paths->inline_mode = mlx5_inline_mode_name(dev->caps.inline_mode);
	paths->inline_bytes = dev->txq_inline_min;
	paths->part_id = dev->caps.part_id;
	snprintf(paths->ifname, sizeof(paths->ifname), "%s", mlx5_priv(port)->net.ifname);
	return 0;
}
