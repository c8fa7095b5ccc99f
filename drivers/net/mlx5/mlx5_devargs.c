/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Devargs of the mlx5 PMD: DPDK net_mlx5's keys where they mean the same
 * thing (`-a mlx5_0,txq_inline_max=128`). The EAL refuses unknown keys with
 * the list below before probe runs; this file checks the values.
 */

#include <errno.h>
#include <inttypes.h>

#include <dvp_errno.h>

#include "mlx5.h"

const struct dvp_devargs_key mlx5_devargs_keys[] = {
	{ "rxq_cqe_comp_en",
	  "0|1: CQE compression (accepted for DPDK command lines; always off, see doc/mlx5.md)" },
	{ "txq_inline_min", "0 or 18..256 (18): bytes of every frame inlined in its send WQE" },
	{ "txq_inline_max", "0..960 (290): frames up to this length are sent inline, whole" },
	{ "txqs_min_inline", "0..128 (8): whole-frame inlining needs this many tx queues" },
	{ "txq_mpw_en", "0|1 (1): enhanced multi-packet send WQEs (eMPW) where the device has "
			"them; 0: one SEND WQE per packet" },
	{ "txq_inline_mpw", "0..924 (268): frames up to this length go inline in an eMPW session "
			    "(with txqs_min_inline tx queues), longer ones by pointer" },
	{ "rx_vec_en", "0|1 (1): the vector rx burst (SSE4.2 on x86-64) where the CPU and the "
		       "queues allow it; 0: the scalar one" },
	{ NULL, NULL },
};

int mlx5_devargs_parse(const struct dvp_devargs *da, const char *devname, struct mlx5_cfg *cfg)
{
	uint64_t v;
	bool b;
	int ret;

	cfg->cqe_comp = false;
	cfg->txq_inline_min = MLX5_ESEG_MIN_INLINE_SIZE;
	cfg->txq_inline_max = 290;
	cfg->txqs_min_inline = 8;
	cfg->txq_mpw_en = true;
	cfg->txq_inline_min_set = false;
	cfg->txq_inline_mpw = MLX5_EMPW_INLINE_DEFAULT;
	cfg->rx_vec_en = true;
	if (da == NULL)
		return 0;
	ret = dvp_devargs_get_bool(da, "rxq_cqe_comp_en", false, &b);
	if (ret < 0)
		return ret;
	if (b)
		MLX5_LOG(WARNING,
			 "%s: rxq_cqe_comp_en=1: the datapath does not take compressed CQEs; "
			 "CQE compression stays off",
			 devname);
	ret = dvp_devargs_get_u64(da, "txq_inline_min", 0, 256, MLX5_ESEG_MIN_INLINE_SIZE, &v);
	if (ret < 0)
		return ret;
	if (v != 0 && v < MLX5_ESEG_MIN_INLINE_SIZE) {
		MLX5_LOG(ERR,
			 "%s: txq_inline_min=%" PRIu64 " would split the L2 header; valid are 0 "
			 "(ConnectX-5 and later without an inline requirement) or 18..256",
			 devname, v);
		return dvp_err(EINVAL);
	}
	cfg->txq_inline_min = (uint32_t)v;
	cfg->txq_inline_min_set = dvp_devargs_get(da, "txq_inline_min") != NULL;
	ret = dvp_devargs_get_u64(da, "txq_inline_max", 0, MLX5_TXQ_INLINE_MAX_LIMIT, 290, &v);
	if (ret < 0)
		return ret;
	cfg->txq_inline_max = (uint32_t)v;
	ret = dvp_devargs_get_u64(da, "txqs_min_inline", 0, DVP_MAX_QUEUES_PER_PORT, 8, &v);
	if (ret < 0)
		return ret;
	cfg->txqs_min_inline = (uint32_t)v;
	ret = dvp_devargs_get_u64(da, "txq_inline_mpw", 0, MLX5_EMPW_INLINE_MAX_LIMIT,
				  MLX5_EMPW_INLINE_DEFAULT, &v);
	if (ret < 0)
		return ret;
	cfg->txq_inline_mpw = (uint32_t)v;
	ret = dvp_devargs_get_bool(da, "rx_vec_en", true, &cfg->rx_vec_en);
	if (ret < 0)
		return ret;
	return dvp_devargs_get_bool(da, "txq_mpw_en", true, &cfg->txq_mpw_en);
}
