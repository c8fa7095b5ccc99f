/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The device side of a CQ: writing CQEs in the order hardware does,
 * honouring the consumer index and the arm doorbell, raising completion
 * events and overruns. All under dev->lock (the engine).
 *
 * Shared-memory protocol with the driver (its side is mlx5_db.h):
 *  - a CQE is written field by field, then op_own with release order, so a
 *    driver that loads op_own with acquire order and sees the owner bit of
 *    the current pass also sees every field and the scattered payload;
 *  - the consumer index is read from the doorbell record with acquire
 *    order, so the driver's reads of the CQEs it returned are done before
 *    the device writes over them;
 *  - the arm doorbell is taken from the UAR register with an acquire
 *    exchange, pairing with the driver's release store, which it made after
 *    its release store of the arm record; the two must agree.
 */

#include <inttypes.h>
#include <string.h>

#include "sim_cq.h"
#include "sim_dev.h"
#include "sim_event.h"
#include "sim_uar.h"

#define INDEX_HALF (1u << 23)

/* Per-slot shadow of the CQEs written, for arm decisions without reading back. */
#define SIM_CQE_SOLICITED 0x1
#define SIM_CQE_ERROR 0x2

/* Free CQE slots, after reading the consumer index; 0: full; -1: in error. */
int sim_cq_room(struct sim_cq *cq)
{
	uint32_t ci, used;

	if (cq->error)
		return -1;
	if (!cq->stall) {
		ci = be32toh(__atomic_load_n(&cq->dbrec[MLX5_CQ_SET_CI], __ATOMIC_ACQUIRE)) &
		     MLX5_CQ_INDEX_MASK;
		used = (cq->pi - ci) & MLX5_CQ_INDEX_MASK;
		if (used > cq->cqe_cnt && used >= INDEX_HALF) {
			if (ci != cq->bad_ci)
				sim_invalid(cq->ctx->dev, SIM_MLX5_INV_CI_AHEAD,
					    "CQ %u: consumer index 0x%06x is past the last CQE "
					    "written (0x%06x)",
					    cq->cqn, ci, (cq->pi - 1) & MLX5_CQ_INDEX_MASK);
			cq->bad_ci = ci;
		} else {
			cq->ci = ci;
		}
	}
	used = (cq->pi - cq->ci) & MLX5_CQ_INDEX_MASK;
	return used >= cq->cqe_cnt ? 0 : (int)(cq->cqe_cnt - used);
}

static void cq_fire(struct sim_cq *cq)
{
	struct sim_mlx5_dev *dev = cq->ctx->dev;
	struct sim_ev ev = { .cq = &cq->ibv };

	cq->armed = false;
	cq->sn = (cq->sn + 1) & MLX5_CQ_ARM_SN_MASK;
	dev->st.comp_events++;
	if (cq->ch != NULL && sim_evq_push(&cq->ch->q, &ev) != 0)
		SIM_LOG(ERR, dev, "CQ %u: completion event lost: out of memory", cq->cqn);
}

/* Whether CQE index @p idx is at or after the armed index. */
static bool at_or_after_arm(const struct sim_cq *cq, uint32_t idx)
{
	return ((idx - cq->arm_ci) & MLX5_CQ_INDEX_MASK) < INDEX_HALF;
}

/* The armed CQ's event, if the CQE just written at @p idx satisfies the arm. */
static void cq_notify(struct sim_cq *cq, uint32_t idx, bool solicited, bool error)
{
	if (!cq->armed || !at_or_after_arm(cq, idx) || (cq->arm_sol && !solicited && !error))
		return;
	/* The event wakes the driver: what it is woken for must be in the ring. */
	sim_cq_comp_close(cq);
	cq_fire(cq);
}

void sim_cq_write(struct sim_cq *cq, struct sim_port *port, struct mlx5_cqe64 *cqe, uint8_t opcode,
		  bool solicited)
{
	uint32_t idx = cq->pi, slot = idx & (cq->cqe_cnt - 1);
	struct mlx5_cqe64 *dst = &cq->buf[slot];
	bool error = opcode == MLX5_CQE_REQ_ERR || opcode == MLX5_CQE_RESP_ERR;
	uint8_t op_own;

	/* An open compressed session comes first: CQEs are written in order. */
	if (cq->sess.n != 0) {
		sim_cq_comp_close(cq);
		idx = cq->pi;
		slot = idx & (cq->cqe_cnt - 1);
		dst = &cq->buf[slot];
	}
	/* Every byte but op_own: the driver reads them only after op_own says it may. */
	memcpy(dst, cqe, offsetof(struct mlx5_cqe64, op_own));
	op_own = (uint8_t)(opcode << 4 | (solicited ? 0x2 : 0) | !!(idx & cq->cqe_cnt));
	/* Release: payload and fields above are visible once op_own hands the CQE over. */
	__atomic_store_n(&dst->op_own, op_own, __ATOMIC_RELEASE);
	cq->slot_flags[slot] =
		(uint8_t)((solicited ? SIM_CQE_SOLICITED : 0) | (error ? SIM_CQE_ERROR : 0));
	cq->pi = (idx + 1) & MLX5_CQ_INDEX_MASK;
	cq->ctx->dev->st.cqes++;
	/* The device writes whole CQEs, whatever of them the driver reads. */
	if (port != NULL)
		port->st.bus_cqe_bytes += sizeof(*dst);
	if (error)
		cq->ctx->dev->st.error_cqes++;
	cq_notify(cq, idx, solicited, error);
}

void sim_cq_write_error(struct sim_cq *cq, struct sim_port *port, bool send, uint8_t syndrome,
			uint32_t qpn, uint8_t wqe_opcode, uint16_t wqe_counter)
{
	union {
		struct mlx5_cqe64 cqe;
		struct mlx5_err_cqe err;
	} u;

	memset(&u, 0, sizeof(u));
	u.err.syndrome = syndrome;
	u.err.s_wqe_opcode_qpn = htobe32((uint32_t)wqe_opcode << MLX5_CQE_WQE_OPCODE_SHIFT |
					 (qpn & MLX5_CQE_QPN_MASK));
	u.err.wqe_counter = htobe16(wqe_counter);
	sim_cq_write(cq, port, &u.cqe, send ? MLX5_CQE_REQ_ERR : MLX5_CQE_RESP_ERR, false);
}

void sim_cq_write_rx(struct sim_cq *cq, struct sim_port *port, const struct sim_wq *wq,
		     struct mlx5_cqe64 *cqe, const struct sim_pkt *pkt)
{
	uint32_t idx = cq->pi;

	if (cq->comp_max == 0) {
		sim_cq_write(cq, port, cqe, cq->ctx->dev->cfg.rx_opcode, false);
		return;
	}
	sim_cq_comp_add(cq, port, wq, cqe, pkt);
	cq_notify(cq, idx, false, false);
}

void sim_cq_overrun(struct sim_cq *cq)
{
	struct sim_mlx5_dev *dev = cq->ctx->dev;
	struct ibv_async_event ev;

	if (cq->error)
		return;
	/* The completions before the overrun are written. */
	sim_cq_comp_close(cq);
	cq->error = true;
	cq->armed = false;
	dev->st.cq_overruns++;
	SIM_LOG(WARNING, dev,
		"CQ %u overrun (%u CQEs, consumer index 0x%06x%s): "
		"IBV_EVENT_CQ_ERR",
		cq->cqn, cq->cqe_cnt, cq->ci, cq->stall ? ", stalled" : "");
	memset(&ev, 0, sizeof(ev));
	ev.event_type = IBV_EVENT_CQ_ERR;
	ev.element.cq = &cq->ibv;
	sim_async_event(cq->ctx, &ev);
}

/* Whether a CQE that satisfies the arm already sits in [arm_ci, pi). */
static bool arm_satisfied_now(const struct sim_cq *cq)
{
	uint32_t n = (cq->pi - cq->arm_ci) & MLX5_CQ_INDEX_MASK;

	if (n == 0 || n >= INDEX_HALF)
		return false;
	if (!cq->arm_sol)
		return true;
	for (uint32_t k = n > cq->cqe_cnt ? n - cq->cqe_cnt : 0; k < n; k++)
		if (cq->slot_flags[(cq->arm_ci + k) & (cq->cqe_cnt - 1)])
			return true;
	return false;
}

/* Take an arm doorbell written to the CQ's UAR register, if any. @return 1 if one was. */
int sim_cq_poll_arm(struct sim_cq *cq)
{
	struct sim_mlx5_dev *dev = cq->ctx->dev;
	uint64_t *reg = sim_uar_reg(cq->uar, MLX5_CQ_DOORBELL);
	uint32_t hi, rec, cqn;
	uint64_t db;

	/* Relaxed peek first: most steps find no doorbell, and this is a plain load. */
	if (__atomic_load_n(reg, __ATOMIC_RELAXED) == 0)
		return 0;
	/* Acquire: pairs with the driver's release store, after its arm record store. */
	db = be64toh(__atomic_exchange_n(reg, 0, __ATOMIC_ACQUIRE));
	hi = (uint32_t)(db >> 32);
	cqn = (uint32_t)db & MLX5_CQ_INDEX_MASK;
	if (cqn != cq->cqn) {
		sim_invalid(dev, SIM_MLX5_INV_ARM_ORDER,
			    "arm doorbell for CQ %u written to the register of CQ %u", cqn,
			    cq->cqn);
		return 1;
	}
	rec = be32toh(__atomic_load_n(&cq->dbrec[MLX5_CQ_ARM_DB], __ATOMIC_ACQUIRE));
	if (rec != hi)
		sim_invalid(dev, SIM_MLX5_INV_ARM_ORDER,
			    "CQ %u: arm doorbell 0x%08x rung while the arm record holds 0x%08x; "
			    "write the record first",
			    cq->cqn, hi, rec);
	if (cq->error)
		return 1;
	if (((hi >> MLX5_CQ_ARM_SN_SHIFT) & MLX5_CQ_ARM_SN_MASK) != cq->sn) {
		/* An arm from before the last event: the driver will see that event. */
		dev->st.arms_stale++;
		return 1;
	}
	dev->st.arms++;
	cq->armed = true;
	cq->arm_sol = (hi & MLX5_CQ_ARM_CMD_MASK) == MLX5_CQ_DB_REQ_NOT_SOL;
	cq->arm_ci = hi & MLX5_CQ_INDEX_MASK;
	if (((cq->pi - cq->arm_ci) & MLX5_CQ_INDEX_MASK) >= INDEX_HALF)
		sim_invalid(dev, SIM_MLX5_INV_CI_AHEAD,
			    "CQ %u armed at index 0x%06x, past the last CQE written (0x%06x): "
			    "the event would come late or never",
			    cq->cqn, cq->arm_ci, (cq->pi - 1) & MLX5_CQ_INDEX_MASK);
	/* A session open now must be seen by the driver this arm may wake (the timeout). */
	sim_cq_comp_close(cq);
	if (arm_satisfied_now(cq))
		cq_fire(cq);
	return 1;
}
