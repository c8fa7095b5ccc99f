/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The send engine: take the send doorbells written to an SQ's UAR register,
 * read WQEs up to the producer index of the SQ's doorbell record, check
 * each one's control segment as the hardware would (index, QPN, ds count),
 * build its frame by its opcode (SEND: sim_engine_send.c, which checks the
 * rest of the WQE and gathers the frame; TSO: sim_engine_lso.c, which cuts
 * the message into frames; ENHANCED_MPSW: sim_engine_empw.c),
 * put it on the port's cable and write the completion it asks for. All
 * under dev->lock.
 *
 * A driver bug is logged and counted (sim_invalid) as well as answered the
 * way the hardware answers it: an error CQE and the SQ in error, or, for a
 * WQE that runs past the producer index, nothing at all.
 */

#include <errno.h>
#include <string.h>

#include "sim_cq.h"
#include "sim_dev.h"
#include "sim_engine.h"
#include "sim_traffic.h"
#include "sim_uar.h"
#include "sim_wq.h"

/* What became of one WQE. */
enum tx_result {
	TX_DONE, /* consumed */
	TX_HOLD, /* the cable is full and flow-controlled: try again next step */
	TX_STOP, /* the SQ went to error, or the driver must ring again */
};

/* Read @p len bytes of the SQ ring from basic block counter @p bb, wrapping. */
static void sq_read(const struct sim_qp *qp, uint32_t bb, uint8_t *dst, uint32_t len)
{
	uint32_t size = qp->wqe_cnt * MLX5_SEND_WQE_BB;
	uint32_t off = (bb & (qp->wqe_cnt - 1)) * MLX5_SEND_WQE_BB;
	uint32_t first = DVP_MIN(len, size - off);

	memcpy(dst, qp->sq_buf + off, first);
	memcpy(dst + first, qp->sq_buf, len - first);
}

/* An error CQE on the SQ's CQ, if there is room (else the CQ overruns). @return false if not written. */
static bool tx_error_cqe(struct sim_qp *qp, uint8_t syndrome, uint8_t opcode, uint16_t idx)
{
	int room = sim_cq_room(qp->cq);

	if (room == 0)
		sim_cq_overrun(qp->cq);
	if (room <= 0)
		return false;
	sim_cq_write_error(qp->cq, &qp->ctx->dev->ports[qp->port], true, syndrome, qp->ibv.qp_num,
			   opcode, idx);
	return true;
}

/*
 * The SQ is in error: every WQE posted from sq_ci up to the doorbell
 * record is flushed (syndrome WR_FLUSH_ERR), in order, none sent. Each
 * writes a CQE by its completion mode (fm_ce_se bits 3:2): none in
 * ONLY_FIRST_ERR unless it asked for one (ALWAYS, CQE_AND_EQE), one in
 * ONLY_ERR, where every error completes. A WQE that runs past the record
 * waits for the rest of it.
 */
void sim_tx_flush(struct sim_qp *qp)
{
	struct sim_mlx5_dev *dev = qp->ctx->dev;
	uint32_t pi = be32toh(__atomic_load_n(&qp->dbrec[MLX5_SND_DBR], __ATOMIC_ACQUIRE)) &
		      MLX5_WQ_INDEX_MASK;
	uint32_t avail = (pi - qp->sq_ci) & MLX5_WQ_INDEX_MASK;

	/* A record more than a ring ahead is garbage: nothing to flush by it. */
	while (avail > 0 && avail <= qp->wqe_cnt) {
		struct mlx5_wqe_ctrl_seg ctrl;
		uint32_t ds, bbs, mode;

		sq_read(qp, qp->sq_ci, (uint8_t *)&ctrl, sizeof(ctrl));
		ds = be32toh(ctrl.qpn_ds) & MLX5_WQE_DS_MASK;
		bbs = ds != 0 ? mlx5_wqe_ds_to_bbs(ds) : 1;
		if (bbs > avail)
			break;
		mode = (ctrl.fm_ce_se & MLX5_COMP_MODE_MASK) >> MLX5_COMP_MODE_SHIFT;
		if (mode != MLX5_COMP_ONLY_FIRST_ERR &&
		    tx_error_cqe(qp, MLX5_CQE_SYNDROME_WR_FLUSH_ERR,
				 (uint8_t)be32toh(ctrl.opmod_idx_opcode), (uint16_t)qp->sq_ci))
			dev->st.flush_cqes++;
		qp->sq_ci = (qp->sq_ci + bbs) & MLX5_WQ_INDEX_MASK;
		avail -= bbs;
	}
}

/*
 * WQE @p idx (at sq_ci, @p bbs basic blocks) failed: its error CQE, the SQ
 * in error, then every WQE behind it flushed.
 */
static enum tx_result tx_error(struct sim_qp *qp, uint8_t syndrome, uint8_t opcode, uint16_t idx,
			       uint32_t bbs)
{
	tx_error_cqe(qp, syndrome, opcode, idx);
	qp->ibv.state = IBV_QPS_ERR;
	qp->rung = false;
	qp->empw_sent = 0;
	qp->empw_bad_lkey = false;
	qp->wqe_fetched = false;
	SIM_LOG(DEBUG, qp->ctx->dev, "SQ %u: error CQE, syndrome 0x%02x, WQE 0x%04x",
		qp->ibv.qp_num, syndrome, idx);
	qp->sq_ci = (qp->sq_ci + bbs) & MLX5_WQ_INDEX_MASK;
	sim_tx_flush(qp);
	return TX_STOP;
}

static enum tx_result tx_one(struct sim_qp *qp, uint32_t avail, uint32_t *bbs)
{
	struct sim_mlx5_dev *dev = qp->ctx->dev;
	struct sim_port *port = &dev->ports[qp->port];
	uint8_t wqe[MLX5_WQE_MAX_DS * MLX5_WSEG_SIZE];
	struct mlx5_wqe_ctrl_seg ctrl;
	uint32_t w0, w1, ds, idx, qpn, len = 0;
	uint8_t opcode, synd = 0;

	sq_read(qp, qp->sq_ci, (uint8_t *)&ctrl, sizeof(ctrl));
	w0 = be32toh(ctrl.opmod_idx_opcode);
	w1 = be32toh(ctrl.qpn_ds);
	opcode = (uint8_t)w0;
	idx = (w0 >> MLX5_WQE_IDX_SHIFT) & MLX5_WQ_INDEX_MASK;
	ds = w1 & MLX5_WQE_DS_MASK;
	qpn = w1 >> MLX5_WQE_QPN_SHIFT;
	if (idx != (qp->sq_ci & MLX5_WQ_INDEX_MASK) || qpn != qp->ibv.qp_num) {
		sim_invalid(dev, SIM_MLX5_INV_WQE_CTRL,
			    "SQ %u: the WQE at counter 0x%04x says index 0x%04x, QP %u",
			    qp->ibv.qp_num, qp->sq_ci, idx, qpn);
		return tx_error(qp, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR, opcode, (uint16_t)qp->sq_ci,
				1);
	}
	if (ds == 0) {
		sim_invalid(dev, SIM_MLX5_INV_DS, "SQ %u: WQE 0x%04x has ds 0", qp->ibv.qp_num,
			    idx);
		return tx_error(qp, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR, opcode, (uint16_t)idx, 1);
	}
	*bbs = mlx5_wqe_ds_to_bbs(ds);
	if (*bbs > avail) {
		sim_invalid(dev, SIM_MLX5_INV_WQE_PAST_PI,
			    "SQ %u: WQE 0x%04x spans %u basic blocks but the producer index "
			    "covers %u",
			    qp->ibv.qp_num, idx, *bbs, avail);
		qp->rung = false;
		return TX_STOP;
	}
	if ((opcode == MLX5_OPCODE_SEND || opcode == MLX5_OPCODE_TSO) && sim_cable_holds(port))
		return TX_HOLD;
	sq_read(qp, qp->sq_ci, wqe, ds * MLX5_WSEG_SIZE);
	/* Fetched in whole basic blocks, once: an eMPW WQE resumed after a hold is not again. */
	if (!qp->wqe_fetched)
		port->st.bus_wqe_bytes += *bbs * MLX5_SEND_WQE_BB;
	qp->wqe_fetched = true;
	if (opcode == MLX5_OPCODE_SEND) {
		synd = sim_tx_send_build(qp, wqe, ds, &len);
	} else if (opcode == MLX5_OPCODE_TSO) {
		unsigned int r = sim_tx_lso(qp, wqe, ds, &len); /* its frames are on the cable */

		if (r == SIM_EMPW_HOLD)
			return TX_HOLD;
		synd = (uint8_t)r;
	} else if (opcode == MLX5_OPCODE_ENHANCED_MPSW && dev->cfg.prof.empw) {
		unsigned int r = sim_tx_empw(qp, wqe, ds, (uint16_t)idx, &len);

		if (r == SIM_EMPW_HOLD)
			return TX_HOLD;
		synd = (uint8_t)r;
	} else if (opcode != MLX5_OPCODE_NOP) {
		sim_invalid(
			dev, SIM_MLX5_INV_WQE_CTRL,
			"SQ %u: WQE 0x%04x has opcode 0x%02x; a raw packet SQ takes SEND (0x0a), "
			"TSO (0x0e), NOP (0x00)%s",
			qp->ibv.qp_num, idx, opcode,
			dev->cfg.prof.empw ? " and ENHANCED_MPSW (0x29)" :
					     " (enhanced multi-packet send is off: empw=off)");
		synd = MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
	}
	if (synd != 0)
		return tx_error(qp, synd, opcode, (uint16_t)idx, *bbs);
	if (opcode == MLX5_OPCODE_SEND)
		sim_cable_send(port, dev->frame, len);
	else if (opcode == MLX5_OPCODE_ENHANCED_MPSW)
		port->st.tx_empw_wqes++;
	if (ctrl.fm_ce_se & MLX5_WQE_CTRL_CQ_UPDATE) {
		struct mlx5_cqe64 cqe;
		int room = sim_cq_room(qp->cq);

		if (room <= 0) {
			if (room == 0)
				sim_cq_overrun(qp->cq);
			qp->ibv.state = IBV_QPS_ERR;
			qp->rung = false;
			return TX_STOP;
		}
		memset(&cqe, 0, sizeof(cqe));
		cqe.wqe_counter = htobe16((uint16_t)idx);
		cqe.sop_drop_qpn = htobe32((uint32_t)opcode << MLX5_CQE_WQE_OPCODE_SHIFT | qpn);
		cqe.byte_cnt = htobe32(len);
		cqe.timestamp = htobe64(sim_ticks(dev));
		sim_cq_write(qp->cq, port, &cqe, MLX5_CQE_REQ,
			     ctrl.fm_ce_se & MLX5_WQE_CTRL_SOLICITED);
		port->st.tx_completions++;
	}
	return TX_DONE;
}

/*
 * Take a send doorbell from one of the two registers of the SQ's UAR page
 * (libmlx5 alternates between them) and check the record was written first.
 */
static void take_doorbell(struct sim_qp *qp, uint32_t off)
{
	uint64_t *reg = sim_uar_reg(qp->uar, off);
	uint32_t w[2], idx, qpn, pi, base;
	uint64_t v;

	/* Relaxed peek: most steps find no doorbell. */
	if (__atomic_load_n(reg, __ATOMIC_RELAXED) == 0)
		return;
	/* Acquire: pairs with the driver's release store, made after the record's. */
	v = __atomic_exchange_n(reg, 0, __ATOMIC_ACQUIRE);
	memcpy(w, &v, sizeof(w));
	idx = (be32toh(w[0]) >> MLX5_WQE_IDX_SHIFT) & MLX5_WQ_INDEX_MASK;
	qpn = be32toh(w[1]) >> MLX5_WQE_QPN_SHIFT;
	if (qpn != qp->ibv.qp_num) {
		sim_invalid(qp->ctx->dev, SIM_MLX5_INV_WQE_CTRL,
			    "send doorbell for QP %u written to the register of SQ %u", qpn,
			    qp->ibv.qp_num);
		return;
	}
	pi = be32toh(__atomic_load_n(&qp->dbrec[MLX5_SND_DBR], __ATOMIC_ACQUIRE)) &
	     MLX5_WQ_INDEX_MASK;
	/*
	 * The WQE rung must be below the record's producer index. Counted from
	 * a ring before the device's position, so WQEs the device already took
	 * (it reads up to the record, which may run ahead of the doorbells)
	 * still compare right.
	 */
	base = (qp->sq_ci - qp->wqe_cnt) & MLX5_WQ_INDEX_MASK;
	if (((idx - base) & MLX5_WQ_INDEX_MASK) >= ((pi - base) & MLX5_WQ_INDEX_MASK))
		sim_invalid(qp->ctx->dev, SIM_MLX5_INV_DB_ORDER,
			    "SQ %u: doorbell rung for WQE 0x%04x while the doorbell record says "
			    "0x%04x; write the record before the doorbell",
			    qp->ibv.qp_num, idx, pi);
	qp->ctx->dev->ports[qp->port].st.bus_doorbells++;
	qp->rung = true;
}

/* Run one SQ: its doorbells, then its WQEs. @return WQEs consumed (+1 per doorbell). */
int sim_tx_poll(struct sim_qp *qp)
{
	bool was = qp->rung;
	uint32_t pi, avail;
	int n = 0;

	take_doorbell(qp, MLX5_BF_OFFSET);
	take_doorbell(qp, MLX5_BF_OFFSET + SIM_BF_SIZE);
	n += qp->rung && !was;
	if (!qp->rung)
		return n;
	if (qp->ibv.state == IBV_QPS_ERR) {
		/* WQEs posted to a queue in error are flushed, not sent. */
		sim_tx_flush(qp);
		qp->rung = false;
		return n;
	}
	if (qp->ibv.state != IBV_QPS_RTS) {
		/* Doorbells of a queue not ready to send are ignored, as by the hardware. */
		qp->rung = false;
		return n;
	}
	pi = be32toh(__atomic_load_n(&qp->dbrec[MLX5_SND_DBR], __ATOMIC_ACQUIRE)) &
	     MLX5_WQ_INDEX_MASK;
	avail = (pi - qp->sq_ci) & MLX5_WQ_INDEX_MASK;
	if (pi != qp->last_pi) {
		qp->ctx->dev->ports[qp->port].st.bus_dbrec_updates++;
		qp->last_pi = pi;
	}
	if (avail > qp->wqe_cnt) {
		if (pi != qp->bad_pi)
			sim_invalid(
				qp->ctx->dev, SIM_MLX5_INV_RING_OVERRUN,
				"SQ %u: producer counter 0x%04x is %u basic blocks ahead of the "
				"device (0x%04x) in a ring of %u",
				qp->ibv.qp_num, pi, avail, qp->sq_ci, qp->wqe_cnt);
		qp->bad_pi = pi;
		qp->rung = false;
		return n;
	}
	while (avail > 0 && n < 256) {
		uint32_t bbs = 0;
		enum tx_result r = tx_one(qp, avail, &bbs);

		if (r != TX_DONE)
			return n;
		qp->sq_ci = (qp->sq_ci + bbs) & MLX5_WQ_INDEX_MASK;
		qp->wqe_fetched = false;
		avail -= bbs;
		n++;
	}
	/* WQEs left for the next step, or a new doorbell brings more. */
	qp->rung = avail > 0;
	return n;
}
