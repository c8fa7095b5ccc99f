/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The rx burst functions of the mlx5 PMD (their bodies are inline in
 * mlx5_rx.h) and what runs out of line when an rx queue goes wrong: error
 * CQEs, and restarts asked for by async events. Those cold paths may call
 * the device (to reset or rebuild a queue) and log: they run once per
 * fault, never per packet.
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

__dvp_cold void mlx5_rx_slow(struct mlx5_rxq *rxq)
{
	/* Relaxed: see mlx5_queue_error(). */
	uint32_t flag = __atomic_exchange_n(&rxq->restart, 0, __ATOMIC_RELAXED);
	const struct mlx5_err_cqe *err;
	struct mlx5_cqe64 *cqe;
	uint8_t op_own, opcode;
	uint16_t counter;
	uint32_t held;
	int ret;

	if (flag != 0) {
		ret = mlx5_rxq_restart(rxq);
		/* An async cause was reported when it came (mlx5_queue_error()). */
		if (ret < 0 || mlx5_restart_cause(flag) == DVP_PORT_CAUSE_NONE)
			dvp_port_queue_error_report(
				rxq->port, rxq->owner.queue_id, false, mlx5_restart_cause(flag),
				"rx queue rebuilt (CQ and WQ)%s, its %u mbufs posted again",
				ret < 0 ? " FAILED" : "", rxq->rq_pi - rxq->rq_ci);
		else
			MLX5_PLOG(NOTICE, rxq->port,
				  "rx queue %u rebuilt (CQ and WQ), its %u mbufs posted again",
				  rxq->owner.queue_id, rxq->rq_pi - rxq->rq_ci);
		return;
	}
	cqe = mlx5_cqe_get(rxq->cqes, rxq->cqe_cnt, rxq->cq_ci);
	if (cqe == NULL)
		return;
	op_own = mlx5_cqe_op_own_load(cqe);
	opcode = op_own >> 4;
	/* A plain receive (format 0): nothing wrong, the next burst takes it. */
	if ((op_own & 0xfc) == MLX5_CQE_RESP_SEND << 4)
		return;
	err = (const struct mlx5_err_cqe *)(const void *)cqe;
	counter = be16toh(cqe->wqe_counter);
	rxq->cq_ci++;
	mlx5_cq_set_ci(rxq->cq_db, rxq->cq_ci);
	if (opcode == MLX5_CQE_RESP_ERR && err->syndrome == MLX5_CQE_SYNDROME_WR_FLUSH_ERR)
		return; /* a WQE flushed by an earlier error: recovery reposts its mbuf */
	dvp_counter_add(&rxq->st.cqe_errors, 1);
	dvp_counter_add(&rxq->st.errors, 1);
	ret = mlx5_rxq_recover(rxq);
	held = rxq->rq_pi - rxq->rq_ci;
	if (ret < 0) {
		/* The WQ could not be reset: build it anew on the next burst. */
		__atomic_store_n(&rxq->restart, 1, __ATOMIC_RELAXED);
		return;
	}
	dvp_port_queue_error_report(
		rxq->port, rxq->owner.queue_id, false, DVP_PORT_CAUSE_NONE,
		"%s CQE, syndrome 0x%02x (%s), for WQE 0x%04x: WQ reset, its %u "
		"mbufs posted again",
		opcode == MLX5_CQE_RESP_ERR ? "error" : "unexpected", err->syndrome,
		mlx5_syndrome_str(err->syndrome), counter, held);
}
