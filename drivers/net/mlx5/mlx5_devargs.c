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
	  "0..4, | 0x80 (1): rx CQE compression: 0 off; 1 on, hash mini-CQEs; 3 checksum "
	  "mini-CQEs; 2, 4 (DevX formats) off; bit 7 (enhanced layout) taken as legacy" },
	{ "txq_inline_min", "0 or 18..256 (18): bytes of every frame inlined in its send WQE" },
	{ "txq_inline_max", "0..960 (290): frames up to this length are sent inline, whole" },
	{ "txqs_min_inline", "0..128 (8): whole-frame inlining needs this many tx queues" },
	{ "txq_mpw_en", "0|1 (1): enhanced multi-packet send WQEs (eMPW) where the device has "
			"them; 0: one SEND WQE per packet" },
	{ "txq_inline_mpw", "0..924 (268): frames up to this length go inline in an eMPW session "
			    "(with txqs_min_inline tx queues), longer ones by pointer" },
	{ "mprq_en", "0|1 (0): multi-packet (striding) RQs, with rxqs_min_mprq rx queues and more "
		     "descriptors than strides per WQE; every packet is copied to an mbuf" },
	{ "mprq_log_stride_num", "0..31 (6): log2 of the strides per WQE (outside the device's "
				 "range: the default within it, with a warning)" },
	{ "mprq_log_stride_size", "0..31 (log2 of MTU + 18 + headroom): log2 of a stride's bytes "
				  "(outside the device's range: 11 within it, with a warning)" },
	{ "mprq_max_memcpy_len", "0..65535 (128): DPDK copies packets up to this length and "
				 "attaches longer ones; here every packet is copied" },
	{ "rxqs_min_mprq", "0..65535 (12): mprq_en takes effect on ports with at least this many "
			   "rx queues" },
	{ "rx_vec_en", "0|1 (1): the vector rx burst (SSE4.2 on x86-64) where the CPU and the "
		       "queues allow it; 0: the scalar one" },
	{ NULL, NULL },
};

/* The multi-packet RQ keys; log values are checked against the device at queue setup. */
static int mprq_parse(const struct dvp_devargs *da, struct mlx5_cfg *cfg)
{
	uint64_t v;
	int ret;

	ret = dvp_devargs_get_bool(da, "mprq_en", false, &cfg->mprq_en);
	if (ret < 0)
		return ret;
	ret = dvp_devargs_get_u64(da, "mprq_log_stride_num", 0, 31,
				  MLX5_MPRQ_DEFAULT_LOG_STRIDE_NUM, &v);
	if (ret < 0)
		return ret;
	cfg->mprq_log_stride_num = (uint32_t)v;
	if (dvp_devargs_get(da, "mprq_log_stride_size") != NULL) {
		ret = dvp_devargs_get_u64(da, "mprq_log_stride_size", 0, 31, 0, &v);
		if (ret < 0)
			return ret;
		cfg->mprq_log_stride_size = (uint32_t)v;
	}
	ret = dvp_devargs_get_u64(da, "mprq_max_memcpy_len", 0, UINT16_MAX,
				  MLX5_MPRQ_DEFAULT_MEMCPY_LEN, &v);
	if (ret < 0)
		return ret;
	cfg->mprq_max_memcpy_len = (uint32_t)v;
	ret = dvp_devargs_get_u64(da, "rxqs_min_mprq", 0, UINT16_MAX, MLX5_MPRQ_DEFAULT_MIN_RXQS,
				  &v);
	if (ret < 0)
		return ret;
	cfg->rxqs_min_mprq = (uint32_t)v;
	return 0;
}

int mlx5_devargs_parse(const struct dvp_devargs *da, const char *devname, struct mlx5_cfg *cfg)
{
	uint64_t v;
	int ret;

	cfg->cqe_comp = true;
	cfg->cqe_comp_fmt = MLX5_MINI_CQE_CSUM; /* DPDK's default 1 */
	cfg->cqe_comp_enh = false;
	cfg->txq_inline_min = MLX5_ESEG_MIN_INLINE_SIZE;
	cfg->txq_inline_max = 290;
	cfg->txqs_min_inline = 8;
	cfg->txq_mpw_en = true;
	cfg->txq_inline_min_set = false;
	cfg->txq_inline_mpw = MLX5_EMPW_INLINE_DEFAULT;
	cfg->mprq_en = false;
	cfg->mprq_log_stride_num = MLX5_MPRQ_DEFAULT_LOG_STRIDE_NUM;
	cfg->mprq_log_stride_size = MLX5_MPRQ_LOG_STRIDE_SIZE_UNSET;
	cfg->mprq_max_memcpy_len = MLX5_MPRQ_DEFAULT_MEMCPY_LEN;
	cfg->rxqs_min_mprq = MLX5_MPRQ_DEFAULT_MIN_RXQS;
	cfg->rx_vec_en = true;
	if (da == NULL)
		return 0;
	ret = mprq_parse(da, cfg);
	if (ret < 0)
		return ret;
	ret = dvp_devargs_get_u64(da, "rxq_cqe_comp_en", 0, UINT32_MAX, 1, &v);
	if (ret < 0)
		return ret;
	if ((v & ~(uint64_t)0x80) > MLX5_MINI_CQE_L34H_STRIDX) {
		MLX5_LOG(ERR,
			 "%s: rxq_cqe_comp_en=%" PRIu64 ": no such CQE compression format; valid "
			 "are 0 (off), 1 (hash), 2 (flow tag), 3 (checksum), 4 (L3/L4 header), "
			 "each optionally | 0x80 (enhanced layout)",
			 devname, v);
		return dvp_err(EINVAL);
	}
	cfg->cqe_comp = v != 0;
	cfg->cqe_comp_fmt = (uint32_t)(v & ~(uint64_t)0x80);
	cfg->cqe_comp_enh = (v & 0x80) != 0;
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
