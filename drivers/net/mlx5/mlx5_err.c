/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * What runs out of line when a queue of the mlx5 PMD goes wrong, in both
 * directions: error CQEs, which the polling lcore mends by resetting the
 * work queue (mlx5_rxq_recover(), mlx5_txq_recover()), and faults raised
 * where the lcore cannot see them (an async CQ or QP error, a reset that
 * failed), which it answers by rebuilding the queue (lib/port's
 * queue-fault primitive, dvp_port_fault.h). These paths may call the
 * device and log: they run once per fault, never per packet.
 */

#include <errno.h>

#include <dvp_errno.h>

#include "mlx5.h"
#include "mlx5_rx.h"
#include "mlx5_tx.h"

/*
 * A fault raised on another thread was reported when it came
 * (dvp_port_queue_fault_raise()); the lcore's own finding (a reset that
 * failed, cause DRIVER) and a rebuild that failed are reported here.
 */
static bool restart_reported(enum dvp_port_event_cause cause, int ret)
{
	return ret < 0 || cause == DVP_PORT_CAUSE_DRIVER;
}

static void rx_restart(struct mlx5_rxq *rxq, enum dvp_port_event_cause cause)
{
	int ret = mlx5_rxq_restart(rxq);

	if (restart_reported(cause, ret))
		dvp_port_queue_error_report(
			rxq->port, rxq->owner.queue_id, false, cause,
			"rx queue rebuilt (CQ and WQ)%s, its %u mbufs posted again",
			ret < 0 ? " FAILED" : "", rxq->rq_pi - rxq->rq_ci);
	else
		MLX5_PLOG(NOTICE, rxq->port,
			  "rx queue %u rebuilt (CQ and WQ), its %u mbufs posted again",
			  rxq->owner.queue_id, rxq->rq_pi - rxq->rq_ci);
}

static void tx_restart(struct mlx5_txq *txq, enum dvp_port_event_cause cause)
{
	uint32_t held = txq->elts_head - txq->elts_tail;
	int ret = mlx5_txq_restart(txq);

	if (restart_reported(cause, ret))
		dvp_port_queue_error_report(
			txq->port, txq->owner.queue_id, true, cause,
			"tx queue rebuilt (CQ and QP)%s; %u packets not completed freed",
			ret < 0 ? " FAILED" : "", held);
	else
		MLX5_PLOG(NOTICE, txq->port,
			  "tx queue %u rebuilt (CQ and QP); %u packets not completed freed",
			  txq->owner.queue_id, held);
}

/* The queue_restart op: a fault raised while the port is stopped. */
int mlx5_queue_restart(struct dvp_port *port, uint16_t q, bool tx, enum dvp_port_event_cause cause)
{
	(void)cause; /* reported by lib/port */
	return tx ? mlx5_txq_restart(port->txqs[q]) : mlx5_rxq_restart(port->rxqs[q]);
}

__dvp_cold void mlx5_rx_slow(struct mlx5_rxq *rxq)
{
	enum dvp_port_event_cause cause = dvp_queue_fault_take(&rxq->fault);
	const struct mlx5_err_cqe *err;
	struct mlx5_cqe64 *cqe;
	uint8_t op_own, opcode;
	uint16_t counter;
	uint32_t held;
	int ret;

	if (cause != DVP_PORT_CAUSE_NONE) {
		rx_restart(rxq, cause);
		return;
	}
	cqe = mlx5_cqe_get(rxq->cqes, rxq->cqe_cnt, rxq->cq_ci);
	if (cqe == NULL)
		return;
	op_own = mlx5_cqe_op_own_load(cqe);
	opcode = op_own >> 4;
	if (opcode != MLX5_CQE_RESP_ERR && opcode != MLX5_CQE_REQ_ERR) {
		/*
		 * Not an error: a receive whatever its opcode, as DPDK's
		 * check_cqe takes every opcode but the two error ones. The
		 * fast paths compare op_own with RESP_SEND's in one go: the
		 * opcode becomes that, format and owner bit kept, and the next
		 * burst takes it. Software owns the CQE until the consumer
		 * index passes it, and writes op_own anyway when it takes a
		 * compressed session.
		 */
		if (opcode != MLX5_CQE_RESP_SEND)
			cqe->op_own = (uint8_t)(MLX5_CQE_RESP_SEND << 4 | (op_own & 0x0f));
		return;
	}
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
		dvp_queue_fault_set(&rxq->fault, DVP_PORT_CAUSE_DRIVER);
		return;
	}
	dvp_port_queue_error_report(
		rxq->port, rxq->owner.queue_id, false, DVP_PORT_CAUSE_DRIVER,
		"error CQE (opcode 0x%x), syndrome 0x%02x (%s), for WQE 0x%04x: "
		"WQ reset, its %u mbufs posted again",
		opcode, err->syndrome, mlx5_syndrome_str(err->syndrome), counter, held);
}

__dvp_cold void mlx5_tx_slow(struct mlx5_txq *txq)
{
	enum dvp_port_event_cause cause = dvp_queue_fault_take(&txq->fault);

	if (cause != DVP_PORT_CAUSE_NONE)
		tx_restart(txq, cause);
}

__dvp_cold void mlx5_tx_cqe_error(struct mlx5_txq *txq)
{
	struct mlx5_cqe64 *cqe = mlx5_cqe_get(txq->cqes, txq->cqe_cnt, txq->cq_ci);
	const struct mlx5_err_cqe *err = (const void *)cqe;
	uint32_t held, before;
	uint8_t opcode;
	uint16_t counter;
	int ret;

	if (cqe == NULL)
		return;
	opcode = mlx5_cqe_op_own_load(cqe) >> 4;
	/* A send completion (format 0): the next burst takes it. */
	if ((mlx5_cqe_op_own_load(cqe) & 0xfc) == MLX5_CQE_REQ << 4)
		return;
	counter = be16toh(cqe->wqe_counter);
	if (opcode == MLX5_CQE_REQ_ERR && err->syndrome == MLX5_CQE_SYNDROME_WR_FLUSH_ERR) {
		txq->cq_ci++;
		mlx5_cq_set_ci(txq->cq_db, txq->cq_ci);
		return;
	}
	dvp_counter_add(&txq->st.cqe_errors, 1);
	held = txq->elts_head - txq->elts_tail;
	before = (uint32_t)txq->st.errors;
	ret = mlx5_txq_recover(txq);
	if (ret < 0) {
		/* The SQ could not be reset: build it anew on the next burst. */
		dvp_queue_fault_set(&txq->fault, DVP_PORT_CAUSE_DRIVER);
		return;
	}
	dvp_port_queue_error_report(txq->port, txq->owner.queue_id, true, DVP_PORT_CAUSE_DRIVER,
				    "%s CQE, syndrome 0x%02x (%s), for WQE 0x%04x: %u packet(s) "
				    "dropped, %u freed, SQ reset",
				    opcode == MLX5_CQE_REQ_ERR ? "error" : "unexpected",
				    err->syndrome, mlx5_syndrome_str(err->syndrome), counter,
				    (uint32_t)txq->st.errors - before, held);
}
