/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Rx scatter (DVP_RX_OFFLOAD_SCATTER, doc/mlx5.md): a queue whose mbufs are
 * shorter than the port's frames posts WQEs of 2^sges_log data segments,
 * one mbuf each, and a frame the device writes across several of them
 * arrives as a chain. The ring counts segments (mlx5_rx.h), so posting,
 * replenishing, stopping and recovering are the plain queue's code; what
 * differs is here: a completion takes a whole WQE, the segments the frame
 * filled make the chain and the others go back to the pool, and the
 * replenish posts whole WQEs again.
 *
 * Compressed sessions and plain CQEs go through mlx5_rx_comp_loop(), so the
 * burst serves a queue whose CQ compresses and one whose CQ does not; the
 * loop marks a run's heads, sg_take() a session's (flow rules' MARK). The
 * vector burst takes no such queue (as DPDK's mlx5 turns it off for
 * scattered queues); a multi-packet RQ chains its copies itself
 * (mlx5_rx_mprq.c).
 */

#include "mlx5.h"
#include "mlx5_rx.h"
#include "mlx5_rx_comp.h"

/*
 * The packet of @p len bytes in the WQE whose first segment is at ring
 * position @p seg, its head filled already from the CQE: the segments it
 * filled chained behind the head, the rest of the WQE's mbufs back to the
 * pool (the replenish posts fresh ones in every slot of the WQE).
 */
static __dvp_always_inline void sg_chain(struct mlx5_rxq *rxq, uint32_t seg, struct dvp_mbuf *head,
					 uint32_t len)
{
	struct dvp_mbuf **e = &rxq->elts[seg & rxq->wqe_mask];
	const uint32_t room = rxq->buf_len, segs = 1u << rxq->sges_log;
	const uint32_t used = len <= room ? 1 : (len + room - 1) / room;
	struct dvp_mbuf *prev = head;

	head->data_len = (uint16_t)DVP_MIN(len, room);
	head->nb_segs = (uint16_t)used;
	for (uint32_t j = 1; j < used; j++) {
		struct dvp_mbuf *m = e[j];

		m->rearm_data = rxq->mbuf_rearm;
		m->ol_flags = 0;
		m->data_len = (uint16_t)DVP_MIN(len - j * room, room);
		prev->next = m;
		prev = m;
	}
	prev->next = NULL;
	if (used < segs)
		dvp_mempool_put_bulk(rxq->mp, (void *const *)&e[used], segs - used);
}

/*
 * mlx5_rx_run() for a scattering queue: up to @p run CQEs from @p ci, the
 * packet of CQE i in the WQE at segment @p rq_ci + i 2^sges_log. Each CQE's
 * slot is computed, so a run may cross the CQ's end.
 */
static uint32_t sg_run(struct mlx5_rxq *rxq, uint32_t ci, uint32_t rq_ci, struct dvp_mbuf **out,
		       uint32_t run, uint32_t *bytes, bool *slow, bool hash)
{
	const uint32_t cqe_cnt = rxq->cqe_cnt, shift = rxq->sges_log;
	uint32_t k, sum = 0;
	uint8_t op_own = 0, own = 0;

	for (k = 0; k < run; k++) {
		const struct mlx5_cqe64 *cqe = mlx5_cqe_slot(rxq->cqes, cqe_cnt, ci + k);
		const uint32_t seg = rq_ci + (k << shift);
		struct dvp_mbuf *m;
		uint32_t len;

		own = MLX5_CQE_RESP_SEND << 4 | !!((ci + k) & cqe_cnt);
		op_own = mlx5_cqe_op_own_load(cqe);
		if ((op_own ^ own) & MLX5_OP_OWN_CHECK_MASK)
			break;
		/* The rest of the CQE after its ownership (udma_from_device_barrier). */
		dvp_dma_from_device_barrier();
		m = rxq->elts[seg & rxq->wqe_mask];
		len = be32toh(cqe->byte_cnt);
		mlx5_rx_mbuf_fill(m, cqe, len, rxq->mbuf_rearm, rxq->cqe_flags, rxq->cqe_ptype,
				  hash);
		sg_chain(rxq, seg, m, len);
		out[k] = m;
		sum += len;
	}
	/* As mlx5_rx_run(): ours but not a plain receive is the slow path's (a title, an error). */
	if (k < run)
		*slow = ((op_own >> 4) != MLX5_CQE_INVALID) &
			!((op_own ^ own) & MLX5_CQE_OWNER_MASK);
	*bytes += sum;
	if (dvp_unlikely(mlx5_rx_ofl(rxq) != 0) && k > 0)
		mlx5_rx_ofl_run(rxq, mlx5_rx_ofl(rxq), ci, out, k);
	return k;
}

/* mlx5_rx_zip_take() for a scattering queue: each packet of the session takes a WQE. */
static uint32_t sg_take(struct mlx5_rxq *rxq, uint32_t *ci, uint32_t *rq_ci, struct dvp_mbuf **out,
			uint32_t max, uint32_t *bytes, bool hash)
{
	struct mlx5_rxq_zip *z = &rxq->zip;
	const uint32_t t = *ci, ai = z->ai, k = DVP_MIN(max, z->n - ai), shift = rxq->sges_log;
	const bool mini_hash = rxq->comp_fmt == MLX5_MINI_CQE_HASH;
	uint32_t sum = 0, i, wqes;

	for (i = 0; i < k; i++) {
		const struct mlx5_mini_cqe8 *mc = mlx5_rx_zip_mini(rxq, t, ai + i);
		const uint32_t seg = *rq_ci + (i << shift), len = be32toh(mc->byte_cnt);
		struct dvp_mbuf *m = rxq->elts[seg & rxq->wqe_mask];

		m->rearm_data = rxq->mbuf_rearm;
		m->ol_flags = z->ol_flags;
		m->packet_type = z->ptype;
		m->pkt_len = len;
		if (hash)
			m->hash.rss = mini_hash ? be32toh(mc->rx_hash_result) : z->hash;
		sg_chain(rxq, seg, m, len);
		out[i] = m;
		sum += len;
	}
	/* A session shares its title's flow tag, as in mlx5_rx_zip_take(). */
	if (dvp_unlikely(mlx5_rx_marking(rxq)))
		mlx5_rx_mark_same(out, k, mlx5_cqe_slot(rxq->cqes, rxq->cqe_cnt, t)->sop_drop_qpn);
	*bytes += sum;
	/* mlx5_rx_zip_taken() moves the ring by packets: here each is 2^shift segments. */
	wqes = *rq_ci;
	mlx5_rx_zip_taken(rxq, ci, &wqes, k);
	*rq_ci += k << shift;
	return k;
}

static void sg_replenish(struct mlx5_rxq *rxq)
{
	mlx5_rx_replenish(rxq);
}

static const struct mlx5_rx_comp_ops sg_ops = {
	.take = sg_take,
	.run = sg_run,
	.replenish = sg_replenish,
	.sg = true,
};

static __dvp_always_inline uint16_t sg_burst(struct mlx5_rxq *rxq, struct dvp_mbuf **pkts,
					     uint16_t n, bool hash)
{
	if (!mlx5_rx_burst_begin(rxq))
		return 0;
	/* An error CQE at cq_ci shows as a stop with slow set: the loop's end takes it. */
	return mlx5_rx_comp_loop(rxq, pkts, n, 0, 0, rxq->cq_ci, rxq->rq_ci, false, hash, &sg_ops);
}

uint16_t mlx5_rx_burst_sg(void *rxq, struct dvp_mbuf **pkts, uint16_t n)
{
	return sg_burst(rxq, pkts, n, false);
}

uint16_t mlx5_rx_burst_sg_hash(void *rxq, struct dvp_mbuf **pkts, uint16_t n)
{
	return sg_burst(rxq, pkts, n, true);
}
