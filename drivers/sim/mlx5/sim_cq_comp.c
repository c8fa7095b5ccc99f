/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Compressed CQE sessions (the PRM's legacy layout, doc/sim.md "CQE
 * compression"), on CQs created with dv_create_cq and
 * MLX5DV_CQ_INIT_ATTR_MASK_COMPRESSED_CQE. Consecutive receive completions
 * of one WQ that agree on every field the title carries for all of them
 * (header types, checksum verdicts, flow tag; the RSS hash too unless the
 * mini-CQEs carry it) share one session of N: the title at slot T (format
 * 3, byte_cnt N, wqe_counter of the first), mini-CQE arrays of eight at
 * T + 1, T + 8, T + 16 ..., the other slots of [T, T + N) left as they were.
 *
 * A session takes its slots as its completions come (room, overruns and
 * arm indexes count them as CQEs) and is written when it closes: full, a
 * completion that does not match or is not a receive, an arm or event
 * that must see it, or the engine going idle (the end of each engine pass,
 * of sim_mlx5_inject() and sim_mlx5_inject_burst()), which stands for the
 * hardware's compression timeout. So no session outlives dev->lock. A
 * session of one is written as the plain CQE it was.
 */

#include <string.h>

#include "sim_cq.h"
#include "sim_dev.h"
#include "sim_pkt.h"

/* Slot of mini-CQE array @p k of a session whose title is at @p start. */
static uint32_t array_slot(uint32_t start, uint32_t k)
{
	return start + (k == 0 ? 1 : k * MLX5_MINI_CQE_PER_CQE);
}

/* Whether @p cqe of @p wq on @p port can join the open session. */
static bool sess_match(const struct sim_cq *cq, const struct sim_port *port,
		       const struct sim_wq *wq, const struct mlx5_cqe64 *cqe)
{
	const struct sim_cq_sess *s = &cq->sess;
	const struct mlx5_cqe64 *t = &s->title;

	if (s->n == 0 || s->n >= cq->comp_max || s->wq != wq || s->port != port ||
	    be16toh(cqe->wqe_counter) != (uint16_t)(s->counter + s->n) ||
	    cqe->hds_ip_ext != t->hds_ip_ext || cqe->l4_hdr_type_etc != t->l4_hdr_type_etc ||
	    cqe->vlan_info != t->vlan_info || cqe->sop_drop_qpn != t->sop_drop_qpn)
		return false;
	/* The checksum format leaves the hash to the title: all must share it. */
	return cq->comp_fmt == MLX5_MINI_CQE_HASH || mlx5_cqe_rx_hash(cqe) == mlx5_cqe_rx_hash(t);
}

/*
 * The checksum a CSUM mini-CQE carries: the 16-bit ones' complement sum of
 * the frame after its Ethernet header, folded (what Linux's mlx5e takes as
 * CHECKSUM_COMPLETE). Drivers of the sim take the verdicts from the title.
 */
static uint16_t mini_csum(const struct sim_pkt *pkt)
{
	return pkt->len > 14 ? sim_csum_fold(sim_csum_add(0, pkt->data + 14, pkt->len - 14)) : 0;
}

void sim_cq_comp_close(struct sim_cq *cq)
{
	struct sim_cq_sess *s = &cq->sess;
	struct mlx5_cqe64 *title;
	uint32_t n = s->n, arrays, mask = cq->cqe_cnt - 1;
	uint8_t op_own;

	if (n == 0)
		return;
	s->n = 0;
	title = &cq->buf[s->start & mask];
	if (n == 1) {
		/* One completion: the plain CQE it was, its mini-CQE unused. */
		memcpy(title, &s->title, offsetof(struct mlx5_cqe64, op_own));
		op_own = (uint8_t)(cq->ctx->dev->cfg.rx_opcode << 4 | !!(s->start & cq->cqe_cnt));
		__atomic_store_n(&title->op_own, op_own, __ATOMIC_RELEASE);
		s->port->st.bus_cqe_bytes += MLX5_CQE_SIZE;
		return;
	}
	arrays = (n + MLX5_MINI_CQE_PER_CQE - 1) / MLX5_MINI_CQE_PER_CQE;
	for (uint32_t k = 0; k < arrays; k++) {
		struct mlx5_mini_cqe8 *dst =
			(struct mlx5_mini_cqe8 *)(void *)&cq->buf[array_slot(s->start, k) & mask];
		uint32_t first = k * MLX5_MINI_CQE_PER_CQE,
			 cnt = DVP_MIN(n - first, MLX5_MINI_CQE_PER_CQE);

		/* All 64 bytes: no owner byte of their own; unused minis are zero. */
		memcpy(dst, &s->mini[first], cnt * sizeof(*dst));
		memset(dst + cnt, 0, (MLX5_MINI_CQE_PER_CQE - cnt) * sizeof(*dst));
	}
	s->title.byte_cnt = htobe32(n);
	s->title.wqe_counter = htobe16(s->counter);
	memcpy(title, &s->title, offsetof(struct mlx5_cqe64, op_own));
	/* Release: the arrays above are in the ring once the title is the driver's. */
	op_own = (uint8_t)(cq->ctx->dev->cfg.rx_opcode << 4 |
			   MLX5_CQE_FORMAT_COMPRESSED << MLX5_CQE_FORMAT_SHIFT |
			   !!(s->start & cq->cqe_cnt));
	__atomic_store_n(&title->op_own, op_own, __ATOMIC_RELEASE);
	s->port->st.bus_cqe_bytes += (uint64_t)MLX5_CQE_SIZE * (1 + arrays);
	cq->ctx->dev->st.cqe_sessions++;
	cq->ctx->dev->st.cqe_minis += n;
}

void sim_cq_comp_close_all(struct sim_mlx5_dev *dev)
{
	struct sim_cq *cq;

	TAILQ_FOREACH(cq, &dev->cqs, next)
		sim_cq_comp_close(cq);
}

void sim_cq_comp_add(struct sim_cq *cq, struct sim_port *port, const struct sim_wq *wq,
		     const struct mlx5_cqe64 *cqe, const struct sim_pkt *pkt)
{
	struct sim_cq_sess *s = &cq->sess;
	struct mlx5_mini_cqe8 *m;
	uint32_t idx = cq->pi;

	if (!sess_match(cq, port, wq, cqe)) {
		sim_cq_comp_close(cq);
		s->start = idx;
		s->counter = be16toh(cqe->wqe_counter);
		s->wq = wq;
		s->port = port;
		s->title = *cqe;
	}
	m = &s->mini[s->n++];
	memset(m, 0, sizeof(*m));
	if (cq->comp_fmt == MLX5_MINI_CQE_HASH)
		memcpy(&m->rx_hash_result, (const uint8_t *)cqe + MLX5_CQE_RX_HASH_RES_OFF,
		       sizeof(m->rx_hash_result));
	else
		m->checksum = htobe16(mini_csum(pkt));
	m->byte_cnt = cqe->byte_cnt;
	cq->slot_flags[idx & (cq->cqe_cnt - 1)] = 0;
	cq->pi = (idx + 1) & MLX5_CQ_INDEX_MASK;
	cq->ctx->dev->st.cqes++;
	if (s->n == cq->comp_max)
		sim_cq_comp_close(cq);
}
