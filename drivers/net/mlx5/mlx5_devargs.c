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
#include <stddef.h>
#include <string.h>

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

/*
 * The keys that are a plain number or a boolean: their range, their default
 * and the field they set. Absent keys leave the default, so the same walk
 * sets the defaults when there are no devargs at all. mprq_log_stride_size
 * has no fixed default (it follows the MTU): "unset" until the queue sets up;
 * the mprq log values are checked against the device there.
 */
static const struct {
	const char *key;
	uint32_t min, max, def;
	size_t off;
} u32_keys[] = {
	/* Checked below as well: 0 is for devices without an inline requirement. */
	{ "txq_inline_min", 0, 256, MLX5_ESEG_MIN_INLINE_SIZE,
	  offsetof(struct mlx5_cfg, txq_inline_min) },
	{ "txq_inline_max", 0, MLX5_TXQ_INLINE_MAX_LIMIT, 290,
	  offsetof(struct mlx5_cfg, txq_inline_max) },
	{ "txqs_min_inline", 0, DVP_MAX_QUEUES_PER_PORT, 8,
	  offsetof(struct mlx5_cfg, txqs_min_inline) },
	{ "txq_inline_mpw", 0, MLX5_EMPW_INLINE_MAX_LIMIT, MLX5_EMPW_INLINE_DEFAULT,
	  offsetof(struct mlx5_cfg, txq_inline_mpw) },
	{ "mprq_log_stride_num", 0, 31, MLX5_MPRQ_DEFAULT_LOG_STRIDE_NUM,
	  offsetof(struct mlx5_cfg, mprq_log_stride_num) },
	{ "mprq_log_stride_size", 0, 31, MLX5_MPRQ_LOG_STRIDE_SIZE_UNSET,
	  offsetof(struct mlx5_cfg, mprq_log_stride_size) },
	{ "mprq_max_memcpy_len", 0, UINT16_MAX, MLX5_MPRQ_DEFAULT_MEMCPY_LEN,
	  offsetof(struct mlx5_cfg, mprq_max_memcpy_len) },
	{ "rxqs_min_mprq", 0, UINT16_MAX, MLX5_MPRQ_DEFAULT_MIN_RXQS,
	  offsetof(struct mlx5_cfg, rxqs_min_mprq) },
};

static const struct {
	const char *key;
	bool def;
	size_t off;
} bool_keys[] = {
	{ "mprq_en", false, offsetof(struct mlx5_cfg, mprq_en) },
	{ "rx_vec_en", true, offsetof(struct mlx5_cfg, rx_vec_en) },
	{ "txq_mpw_en", true, offsetof(struct mlx5_cfg, txq_mpw_en) },
};

/* rxq_cqe_comp_en: DPDK's mini-CQE format in bits 0..6, the enhanced layout in bit 7. */
static int cqe_comp_parse(const struct dvp_devargs *da, const char *devname, struct mlx5_cfg *cfg)
{
	uint32_t v;
	int ret;

	ret = dvp_devargs_get_u32(da, "rxq_cqe_comp_en", 0, UINT32_MAX, 1 /* DPDK's default */, &v);
	if (ret < 0)
		return ret;
	if ((v & ~0x80u) > MLX5_MINI_CQE_L34H_STRIDX) {
		MLX5_LOG(ERR,
			 "%s: rxq_cqe_comp_en=%" PRIu32 ": no such CQE compression format; valid "
			 "are 0 (off), 1 (hash), 2 (flow tag), 3 (checksum), 4 (L3/L4 header), "
			 "each optionally | 0x80 (enhanced layout)",
			 devname, v);
		return dvp_err(EINVAL);
	}
	cfg->cqe_comp = v != 0;
	cfg->cqe_comp_fmt = v & ~0x80u;
	cfg->cqe_comp_enh = (v & 0x80) != 0;
	return 0;
}

int mlx5_devargs_parse(const struct dvp_devargs *da, const char *devname, struct mlx5_cfg *cfg)
{
	char *base = (char *)cfg;
	uint32_t v;
	size_t i;
	bool b;
	int ret;

	for (i = 0; i < DVP_DIM(u32_keys); i++) {
		ret = dvp_devargs_get_u32(da, u32_keys[i].key, u32_keys[i].min, u32_keys[i].max,
					  u32_keys[i].def, &v);
		if (ret < 0)
			return ret;
		memcpy(base + u32_keys[i].off, &v, sizeof(v));
	}
	for (i = 0; i < DVP_DIM(bool_keys); i++) {
		ret = dvp_devargs_get_bool(da, bool_keys[i].key, bool_keys[i].def, &b);
		if (ret < 0)
			return ret;
		memcpy(base + bool_keys[i].off, &b, sizeof(b));
	}
	if (cfg->txq_inline_min != 0 && cfg->txq_inline_min < MLX5_ESEG_MIN_INLINE_SIZE) {
		MLX5_LOG(ERR,
			 "%s: txq_inline_min=%" PRIu32 " would split the L2 header; valid are 0 "
			 "(ConnectX-5 and later without an inline requirement) or 18..256",
			 devname, cfg->txq_inline_min);
		return dvp_err(EINVAL);
	}
	cfg->txq_inline_min_set = dvp_devargs_get(da, "txq_inline_min") != NULL;
	return cqe_comp_parse(da, devname, cfg);
}
