/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Striding (multi-packet) receive queues of the simulated HCA: created by
 * mlx5dv_create_wq with MLX5DV_WQ_INIT_ATTR_MASK_STRIDING_RQ (sim_wq.c),
 * filled as the PRM says and DPDK's mlx5_rx_burst_mprq reads (doc/sim.md, "Striding RQ").
 *
 * Each WQE is 32 bytes (struct mlx5_mprq_wqe: a next segment, then one
 * data segment over all its strides), fetched once when the device starts
 * on it and checked then against the MRs. A frame lands at the next free
 * stride of the current WQE and takes ceil(len / stride) strides; its CQE
 * packs the length, the strides taken and the filler flag into byte_cnt,
 * gives the first stride's index in wqe_counter and the WQE counter in
 * wqe_id. A frame that does not fit in the strides left gets a filler CQE
 * first, which takes the rest of the WQE; the device then moves on to the
 * next one. A frame longer than a whole WQE is dropped and counted. The
 * doorbell record counts WQEs, as for a plain RQ.
 */

#include <string.h>

#include "sim_cq.h"
#include "sim_dev.h"
#include "sim_engine.h"
#include "sim_obj.h"
#include "sim_pkt.h"
#include "sim_wq.h"

/* The WQE at wq->ci is done with: the next one starts at stride 0. */
static void wqe_next(struct sim_wq *wq)
{
	wq->ci = (wq->ci + 1) & MLX5_WQ_INDEX_MASK;
	wq->strd_ci = 0;
	wq->wqe_fetched = false;
	wq->wqe_addr = NULL;
}

/*
 * Read the WQE at wq->ci (32 bytes over the bus, once per WQE): its data
 * segment must cover all its strides, in an MR of the WQ's PD the device
 * may write. @return 0 or the error syndrome.
 */
static uint8_t wqe_fetch(struct sim_port *port, struct sim_wq *wq)
{
	const uint8_t *w = wq->buf + (size_t)(wq->ci & (wq->wqe_cnt - 1)) * wq->stride;
	size_t need = (size_t)1 << (wq->log_stride_sz + wq->log_stride_num);
	struct mlx5_wqe_data_seg ds;
	struct sim_mr *mr;
	uintptr_t addr, lo, hi;

	memcpy(&ds, w + sizeof(struct mlx5_wqe_srq_next_seg), sizeof(ds));
	port->st.bus_wqe_bytes += wq->stride;
	wq->wqe_fetched = true;
	if (be32toh(ds.byte_count) < need)
		return MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR;
	mr = sim_mr_lookup(wq->ctx->dev, be32toh(ds.lkey));
	if (mr == NULL || mr->pd != wq->pd || !(mr->access & IBV_ACCESS_LOCAL_WRITE))
		return MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
	addr = (uintptr_t)be64toh(ds.addr);
	lo = (uintptr_t)mr->ibv.addr;
	hi = lo + mr->ibv.length;
	if (addr < lo || addr > hi || need > hi - addr)
		return MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
	wq->wqe_addr = (uint8_t *)addr;
	return 0;
}

/* An error CQE for the WQE at wq->ci, the WQEs behind it flushed; the WQ stops until reset. */
static int wq_error(struct sim_port *port, struct sim_wq *wq, uint8_t synd)
{
	sim_cq_write_error(wq->cq, port, false, synd, wq->ibv.wq_num, 0, (uint16_t)wq->ci);
	wq->ibv.state = IBV_WQS_ERR;
	wqe_next(wq);
	sim_wq_flush(port, wq);
	SIM_LOG(DEBUG, wq->ctx->dev, "striding WQ %u: error CQE, syndrome 0x%02x", wq->ibv.wq_num,
		synd);
	return SIM_MLX5_RX_ERROR_CQE;
}

/*
 * A WQE to write into, fetched, and a CQE slot for it.
 * @return SIM_MLX5_RX_DELIVERED when both are there, else what became of the frame.
 */
static int wqe_ready(struct sim_port *port, struct sim_wq *wq, bool hold_ok)
{
	int ret = sim_wq_room(port, wq, hold_ok);
	uint8_t synd;

	if (ret != SIM_MLX5_RX_DELIVERED)
		return ret;
	if (!wq->wqe_fetched) {
		synd = wqe_fetch(port, wq);
		if (synd != 0)
			return wq_error(port, wq, synd);
	}
	return SIM_MLX5_RX_DELIVERED;
}

/* The strides left in the current WQE go unused: a filler CQE says how many. */
static void filler(struct sim_port *port, struct sim_wq *wq)
{
	uint32_t left = (1u << wq->log_stride_num) - wq->strd_ci;
	struct mlx5_cqe64 cqe;

	memset(&cqe, 0, sizeof(cqe));
	cqe.byte_cnt = htobe32(MLX5_MPRQ_FILLER_MASK | left << MLX5_MPRQ_STRIDE_NUM_SHIFT);
	cqe.wqe_counter = htobe16((uint16_t)wq->strd_ci);
	cqe.wqe_id = htobe16((uint16_t)wq->ci);
	sim_cq_write(wq->cq, port, &cqe, wq->ctx->dev->cfg.rx_opcode, false);
	port->st.rx_mprq_fillers++;
	wqe_next(wq);
}

int sim_rx_to_mprq(struct sim_port *port, struct sim_wq *wq, struct mlx5_cqe64 *cqe,
		   const struct sim_pkt *pkt, bool hold_ok)
{
	const uint32_t strd_n = 1u << wq->log_stride_num;
	uint32_t need = (pkt->len + (1u << wq->log_stride_sz) - 1) >> wq->log_stride_sz, start;
	int ret;

	if (need > strd_n) {
		port->st.rx_dropped++;
		port->st.rx_mprq_oversize++;
		return SIM_MLX5_RX_OVERSIZE;
	}
	for (;;) {
		ret = wqe_ready(port, wq, hold_ok);
		if (ret != SIM_MLX5_RX_DELIVERED)
			return ret;
		if (need <= strd_n - wq->strd_ci)
			break;
		filler(port, wq);
	}
	if (sim_fault_bad_lkey_take(wq->ctx->dev, wq->ibv.wq_num))
		return wq_error(port, wq, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	start = wq->strd_ci;
	memcpy(wq->wqe_addr + ((size_t)start << wq->log_stride_sz), pkt->data, pkt->len);
	cqe->byte_cnt = htobe32(pkt->len | need << MLX5_MPRQ_STRIDE_NUM_SHIFT);
	cqe->wqe_counter = htobe16((uint16_t)start);
	cqe->wqe_id = htobe16((uint16_t)wq->ci);
	sim_cq_write(wq->cq, port, cqe, wq->ctx->dev->cfg.rx_opcode, false);
	port->st.rx_frames++;
	port->st.rx_bytes += pkt->len;
	port->st.bus_data_wr_bytes += pkt->len;
	wq->strd_ci += need;
	if (wq->strd_ci == strd_n)
		wqe_next(wq);
	return SIM_MLX5_RX_DELIVERED;
}
