/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * CQE compression in the mlx5 PMD (doc/mlx5.md, "CQE compression"): which
 * mini-CQE format a device's rx CQs ask for (rxq_cqe_comp_en against what
 * mlx5dv_query_device reports), the rx bursts of queues whose CQ
 * compresses (bodies inline in mlx5_rx_comp.h), and dropping a session
 * when a queue stops or recovers.
 */

#include <string.h>

#include <dvp_errno.h>

#include "mlx5.h"
#include "mlx5_rx_comp.h"

uint16_t mlx5_rx_burst_comp(void *rxq, struct dvp_mbuf **pkts, uint16_t n)
{
	return mlx5_rx_burst_comp_tmpl(rxq, pkts, n, false);
}

uint16_t mlx5_rx_burst_comp_hash(void *rxq, struct dvp_mbuf **pkts, uint16_t n)
{
	return mlx5_rx_burst_comp_tmpl(rxq, pkts, n, true);
}

/* The scalar path's parts of the loop (plain static: the loop's calls fold to these). */
static uint32_t comp_take(struct mlx5_rxq *rxq, uint32_t *ci, uint32_t *rq_ci,
			  struct dvp_mbuf **out, uint32_t max, uint32_t *bytes, bool hash)
{
	return mlx5_rx_zip_take(rxq, ci, rq_ci, out, max, bytes, hash);
}

static uint32_t comp_run(struct mlx5_rxq *rxq, uint32_t ci, uint32_t rq_ci, struct dvp_mbuf **out,
			 uint32_t run, uint32_t *bytes, bool *slow, bool hash)
{
	return mlx5_rx_run(rxq, ci, rq_ci, out, run, bytes, slow, hash);
}

static void comp_replenish(struct mlx5_rxq *rxq)
{
	mlx5_rx_replenish(rxq);
}

static const struct mlx5_rx_comp_ops comp_ops = {
	.take = comp_take,
	.run = comp_run,
	.replenish = comp_replenish,
};

__dvp_noinline uint16_t mlx5_rx_comp_more(struct mlx5_rxq *rxq, struct dvp_mbuf **pkts, uint32_t n,
					  uint32_t k, uint32_t bytes, uint32_t ci, uint32_t rq_ci,
					  bool slow)
{
	return mlx5_rx_comp_loop(rxq, pkts, n, k, bytes, ci, rq_ci, slow, false, &comp_ops);
}

__dvp_noinline uint16_t mlx5_rx_comp_more_hash(struct mlx5_rxq *rxq, struct dvp_mbuf **pkts,
					       uint32_t n, uint32_t k, uint32_t bytes, uint32_t ci,
					       uint32_t rq_ci, bool slow)
{
	return mlx5_rx_comp_loop(rxq, pkts, n, k, bytes, ci, rq_ci, slow, true, &comp_ops);
}

uint32_t mlx5_rx_zip_drop(struct mlx5_rxq *rxq, const struct mlx5_cqe64 *cqe, uint32_t *frames)
{
	uint32_t n = be32toh(cqe->byte_cnt);

	if (n < 2 || n > rxq->cqe_cnt)
		n = 1; /* not a title the device could write: step over the one slot */
	*frames += n - (rxq->zip.n != 0 ? rxq->zip.ai : 0);
	mlx5_rx_zip_invalidate(rxq, rxq->cq_ci, n);
	rxq->zip.n = 0;
	rxq->zip.ai = 0;
	return n;
}

static const char *const fmt_names[] = {
	[MLX5_MINI_CQE_HASH] = "hash",
	[MLX5_MINI_CQE_CSUM] = "checksum",
	[MLX5_MINI_CQE_FTAG_STRIDX] = "flow tag",
	[MLX5_MINI_CQE_CSUM_STRIDX] = "checksum with stride index",
	[MLX5_MINI_CQE_L34H_STRIDX] = "L3/L4 header",
};

/*
 * rxq_cqe_comp_en's format (DPDK's numbers) -> the mini-CQE format the rx
 * CQs ask mlx5dv_create_cq for. 0 and 1 are the default, hash, as DPDK
 * takes them on a queue that is not striding; 3, the checksum format, is
 * MLX5DV_CQE_RES_FORMAT_CSUM (the stride index means nothing without a
 * striding RQ); 2 and 4 exist only for CQs created through DevX, which dvpmd
 * does not create (it asks DevX questions only: mlx5_caps.c).
 */
void mlx5_cqe_comp_choose(struct mlx5_dev *mdev)
{
	const struct mlx5_cfg *cfg = &mdev->cfg;
	struct mlx5dv_context dv;
	uint8_t want, mini;
	int ret;

	mdev->cqe_comp = 0;
	if (!cfg->cqe_comp)
		return;
	if (cfg->cqe_comp_enh)
		MLX5_LOG(WARNING,
			 "%s: rxq_cqe_comp_en=0x%x asks for the enhanced compression layout (bit "
			 "7), which mlx5dv_create_cq cannot ask for: the legacy layout is used",
			 mdev->name, cfg->cqe_comp_fmt | 0x80u);
	switch (cfg->cqe_comp_fmt) {
	case MLX5_MINI_CQE_HASH:
	case MLX5_MINI_CQE_CSUM:
		want = MLX5DV_CQE_RES_FORMAT_HASH;
		mini = MLX5_MINI_CQE_HASH;
		break;
	case MLX5_MINI_CQE_CSUM_STRIDX:
		want = MLX5DV_CQE_RES_FORMAT_CSUM;
		mini = MLX5_MINI_CQE_CSUM;
		break;
	default:
		MLX5_LOG(WARNING,
			 "%s: rxq_cqe_comp_en=%u: the %s mini-CQE format needs a CQ created "
			 "through DevX, which this driver does not do: CQE compression is off (0, "
			 "1: hash; 3: checksum)",
			 mdev->name, cfg->cqe_comp_fmt, fmt_names[cfg->cqe_comp_fmt]);
		return;
	}
	memset(&dv, 0, sizeof(dv));
	dv.comp_mask = MLX5DV_CONTEXT_MASK_CQE_COMPRESION;
	ret = mdev->glue->dv_query_device(mdev->ctx, &dv);
	if (ret != 0 || !(dv.comp_mask & MLX5DV_CONTEXT_MASK_CQE_COMPRESION) ||
	    dv.cqe_comp_caps.max_num == 0 || !(dv.cqe_comp_caps.supported_format & want)) {
		MLX5_LOG(WARNING,
			 "%s: rxq_cqe_comp_en=%u: the device %s the %s mini-CQE format: CQE "
			 "compression is off",
			 mdev->name, cfg->cqe_comp_fmt,
			 ret != 0 ? "cannot be asked whether it has" : "does not have",
			 fmt_names[mini]);
		return;
	}
	mdev->cqe_comp = want;
	mdev->cqe_comp_mini = mini;
	MLX5_LOG(INFO, "%s: rx CQE compression: %s mini-CQEs, up to %u per session", mdev->name,
		 fmt_names[mini], dv.cqe_comp_caps.max_num);
}
