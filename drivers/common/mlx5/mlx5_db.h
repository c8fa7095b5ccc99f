/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * The software side of the mlx5 completion and doorbell protocol, inline:
 * CQE ownership, consumer-index update, CQ arm, RQ doorbell record and the
 * send doorbell. The mlx5 PMD's datapath and the test consumer of the
 * simulated HCA both use these, so the one sequence is checked against the
 * simulator and runs against the hardware.
 *
 * Memory orders. Toward a real HCA the dvp_barrier.h device barriers do the
 * work (rdma-core's udma_barrier.h rules). Toward the simulated HCA, which
 * is another CPU thread, the shared words are also accessed with C11
 * acquire/release atomics: on x86_64 these compile to the same plain moves
 * (so they cost nothing next to the device barriers), on arm64 to ldar/stlr,
 * and they let ThreadSanitizer see the happens-before edges the protocol
 * relies on. Each helper says which writes its order publishes.
 */

#ifndef MLX5_DB_H
#define MLX5_DB_H

#include <endian.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <dvp_barrier.h>
#include <dvp_common.h>

#include "mlx5_prm.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The CQE slot for consumer index @p ci of a CQ of @p cqe_cnt (a power of two) 64-byte CQEs. */
static __dvp_always_inline struct mlx5_cqe64 *mlx5_cqe_slot(void *buf, uint32_t cqe_cnt,
							    uint32_t ci)
{
	return (struct mlx5_cqe64 *)(void *)((uint8_t *)buf +
					     ((size_t)(ci & (cqe_cnt - 1)) << MLX5_CQE_SIZE_SHIFT));
}

/**
 * Load op_own of @p cqe. Acquire: the device writes op_own last, with
 * release order, so every other field of the CQE (and the received payload)
 * is visible once the ownership check below passes.
 */
static __dvp_always_inline uint8_t mlx5_cqe_op_own_load(const struct mlx5_cqe64 *cqe)
{
	return __atomic_load_n(&cqe->op_own, __ATOMIC_ACQUIRE);
}

/**
 * Whether software owns the CQE whose op_own is @p op_own at consumer index
 * @p ci: its opcode is not MLX5_CQE_INVALID and its owner bit is the parity
 * of the pass over the ring that @p ci is on (rdma-core get_sw_cqe).
 */
static __dvp_always_inline bool mlx5_cqe_sw_owned(uint8_t op_own, uint32_t ci, uint32_t cqe_cnt)
{
	return (op_own >> 4) != MLX5_CQE_INVALID &&
	       (op_own & MLX5_CQE_OWNER_MASK) == !!(ci & cqe_cnt);
}

/**
 * The CQE at @p ci if software owns it, else NULL. Issues the read barrier
 * that must separate the ownership check from reading the other fields
 * (lfence on x86_64, dmb oshld on arm64). A burst may instead check several
 * op_own bytes and issue one dvp_dma_from_device_barrier() for all of them.
 */
static __dvp_always_inline struct mlx5_cqe64 *mlx5_cqe_get(void *buf, uint32_t cqe_cnt, uint32_t ci)
{
	struct mlx5_cqe64 *cqe = mlx5_cqe_slot(buf, cqe_cnt, ci);

	if (!mlx5_cqe_sw_owned(mlx5_cqe_op_own_load(cqe), ci, cqe_cnt))
		return NULL;
	dvp_dma_from_device_barrier();
	return cqe;
}

/**
 * Give CQEs up to (not including) @p ci back to the device. Release: every
 * read of the CQEs being returned is done before the device may overwrite
 * them (the device reads this record with acquire order). The index is 24
 * bits: a narrower counter makes the device see a CQ that is always full.
 */
static __dvp_always_inline void mlx5_cq_set_ci(volatile __be32 *dbrec, uint32_t ci)
{
	dvp_dma_to_device_barrier();
	__atomic_store_n(&dbrec[MLX5_CQ_SET_CI], htobe32(ci & MLX5_CQ_INDEX_MASK),
			 __ATOMIC_RELEASE);
}

/** The arm doorbell word of rdma-core's mlx5_arm_cq: [29:28] sn, [24] solicited, [23:0] ci. */
static __dvp_always_inline uint32_t mlx5_cq_arm_word(uint32_t sn, uint32_t ci, bool solicited)
{
	return (sn & MLX5_CQ_ARM_SN_MASK) << MLX5_CQ_ARM_SN_SHIFT |
	       (solicited ? MLX5_CQ_DB_REQ_NOT_SOL : MLX5_CQ_DB_REQ_NOT) |
	       (ci & MLX5_CQ_INDEX_MASK);
}

/**
 * Arm a CQ for one completion event: the next CQE at or after @p ci (the
 * next index software will poll), or with @p solicited only a solicited or
 * error CQE. @p sn is the caller's arm sequence number, advanced once per
 * event received (never arm a CQ polled this way with ibv_req_notify_cq).
 *
 * Order: the doorbell record first (release: the device may read it as soon
 * as it sees the UAR write), then the write-combining start barrier, then
 * one 64-bit UAR store of the same word with the CQ number, then a flush so
 * the doorbell leaves the write-combining buffer now.
 */
static __dvp_always_inline void mlx5_cq_arm(volatile __be32 *dbrec, void *cq_uar, uint32_t cqn,
					    uint32_t sn, uint32_t ci, bool solicited)
{
	uint32_t hi = mlx5_cq_arm_word(sn, ci, solicited);
	uint64_t db = htobe64((uint64_t)hi << 32 | cqn);

	__atomic_store_n(&dbrec[MLX5_CQ_ARM_DB], htobe32(hi), __ATOMIC_RELEASE);
	dvp_mmio_wc_start();
	dvp_mmio_write64((uint8_t *)cq_uar + MLX5_CQ_DOORBELL, db);
	dvp_mmio_flush_writes();
}

/**
 * Publish receive WQEs up to (not including) counter @p pi. Release: the
 * WQEs' data segments are written before the device may fetch them.
 */
static __dvp_always_inline void mlx5_rq_db(volatile __be32 *dbrec, uint32_t pi)
{
	dvp_dma_to_device_barrier();
	__atomic_store_n(&dbrec[MLX5_RCV_DBR], htobe32(pi & MLX5_WQ_INDEX_MASK), __ATOMIC_RELEASE);
}

/**
 * Ring the send doorbell after writing WQEs up to (not including) basic
 * block counter @p pi, @p last_wqe being the last of them (DPDK's
 * mlx5_doorbell_ring): the record (release, after the WQEs), the barrier
 * that keeps it before the doorbell, then one 64-bit store of the last
 * WQE's first 8 bytes to the UAR register @p reg. @p wc_flush: the register
 * is a write-combining mapping, flush it out now.
 */
static __dvp_always_inline void mlx5_sq_db(volatile __be32 *dbrec, void *reg, uint32_t pi,
					   const void *last_wqe, bool wc_flush)
{
	uint64_t first8;

	memcpy(&first8, last_wqe, sizeof(first8));
	dvp_dma_to_device_barrier();
	__atomic_store_n(&dbrec[MLX5_SND_DBR], htobe32(pi & MLX5_WQ_INDEX_MASK), __ATOMIC_RELEASE);
	dvp_mmio_wc_start();
	dvp_mmio_write64(reg, first8);
	if (wc_flush)
		dvp_mmio_flush_writes();
}

/** Fill the control segment of a send WQE at basic block counter @p pi. */
static __dvp_always_inline void mlx5_wqe_ctrl_fill(struct mlx5_wqe_ctrl_seg *ctrl, uint32_t pi,
						   uint8_t opcode, uint32_t sqn, unsigned int ds,
						   uint8_t fm_ce_se)
{
	ctrl->opmod_idx_opcode = htobe32((pi & MLX5_WQ_INDEX_MASK) << MLX5_WQE_IDX_SHIFT | opcode);
	ctrl->qpn_ds = htobe32(sqn << MLX5_WQE_QPN_SHIFT | (ds & MLX5_WQE_DS_MASK));
	ctrl->signature = 0;
	ctrl->dci_stream_channel_id = 0;
	ctrl->fm_ce_se = fm_ce_se;
	ctrl->imm = 0;
}

#ifdef __cplusplus
}
#endif

#endif /* MLX5_DB_H */
