/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Receive with CQE compression, inline (doc/mlx5.md, "CQE compression"):
 * the legacy layout's session of N packets is a title at T (format 3,
 * byte_cnt N) and mini-CQE arrays at T + 1, T + 8, T + 16...; the state of
 * the session being taken is rxq->zip (mlx5_rx.h). Plain CQEs between
 * sessions go through mlx5_rx_run() as on a queue without compression.
 * Same rules as mlx5_rx.h: no system call, lock, allocation or log.
 */

#ifndef MLX5_RX_COMP_H
#define MLX5_RX_COMP_H

#include "mlx5_rx.h"

/* The mini-CQE of packet @p ai of the session whose title is at @p t. */
static __dvp_always_inline const struct mlx5_mini_cqe8 *mlx5_rx_zip_mini(const struct mlx5_rxq *rxq,
									 uint32_t t, uint32_t ai)
{
	const struct mlx5_mini_cqe8 *a = (const struct mlx5_mini_cqe8 *)(const void *)mlx5_cqe_slot(
		rxq->cqes, rxq->cqe_cnt, t + (ai < MLX5_MINI_CQE_PER_CQE ? 1 : ai & ~7u));

	return a + (ai & 7u);
}

/*
 * Write the invalid opcode over the session's slots after its title (its
 * arrays and holes), as DPDK does: a slot the device leaves unwritten on
 * the next pass would otherwise pass the owner check on the pass after.
 * Done before the consumer index moves past them (mlx5_cq_set_ci orders).
 * In at most two stretches, the ring's end between them.
 */
static __dvp_always_inline void mlx5_rx_zip_invalidate(struct mlx5_rxq *rxq, uint32_t t, uint32_t n)
{
	const uint32_t cnt = rxq->cqe_cnt;
	uint32_t s = (t + 1) & (cnt - 1), left = n - 1;

	while (left > 0) {
		uint32_t run = DVP_MIN(left, cnt - s);
		struct mlx5_cqe64 *c = mlx5_cqe_slot(rxq->cqes, cnt, s);

#pragma GCC unroll 8
		for (uint32_t x = 0; x < run; x++)
			c[x].op_own = MLX5_CQE_INVALID << 4;
		left -= run;
		s = 0;
	}
}

/*
 * Open the session whose title is at @p t: the CQE there is software's
 * (its op_own loaded with acquire order by mlx5_rx_run()). @return false
 * if it is not a compressed receive title (an error CQE: the slow path).
 */
static __dvp_always_inline bool mlx5_rx_zip_open(struct mlx5_rxq *rxq, uint32_t t)
{
	const struct mlx5_cqe64 *cqe = mlx5_cqe_slot(rxq->cqes, rxq->cqe_cnt, t);
	uint8_t op_own = mlx5_cqe_op_own_load(cqe);
	unsigned int idx;
	uint32_t n;

	if ((op_own & 0xfc) != (MLX5_CQE_RESP_SEND << 4 | MLX5_CQE_FORMAT_MASK))
		return false;
	/* The title's fields after its ownership. */
	dvp_dma_from_device_barrier();
	n = be32toh(cqe->byte_cnt);
	if (dvp_unlikely(n < 2 || n > rxq->cqe_cnt))
		return false;
	idx = ((unsigned int)cqe->l4_hdr_type_etc & 0xfcu) << 1 |
	      ((unsigned int)cqe->hds_ip_ext & (MLX5_CQE_L3_OK | MLX5_CQE_L4_OK));
	rxq->zip.n = n;
	rxq->zip.ai = 0;
	rxq->zip.ol_flags = rxq->cqe_flags[idx];
	rxq->zip.ptype = rxq->cqe_ptype[idx];
	rxq->zip.hash = mlx5_cqe_rx_hash(cqe);
	return true;
}

/*
 * @p k more packets of the open session (title at *@p ci) are delivered:
 * move *@p rq_ci on; at the session's end invalidate its slots and move
 * *@p ci past them. The end of every path's take.
 */
static __dvp_always_inline void mlx5_rx_zip_taken(struct mlx5_rxq *rxq, uint32_t *ci,
						  uint32_t *rq_ci, uint32_t k)
{
	struct mlx5_rxq_zip *z = &rxq->zip;
	const uint32_t t = *ci;

	*rq_ci += k;
	z->ai += k;
	if (z->ai == z->n) {
		mlx5_rx_zip_invalidate(rxq, t, z->n);
		*ci = t + z->n;
		z->n = 0;
		z->ai = 0;
	}
}

/*
 * Deliver up to @p max packets of the open session (title at *@p ci, next
 * WQE *@p rq_ci): length and, in the hash format, the RSS hash from each
 * mini-CQE, the rest from the title. At the session's end invalidate its
 * slots and move *@p ci past them. @return the packets delivered.
 */
static __dvp_always_inline uint32_t mlx5_rx_zip_take(struct mlx5_rxq *rxq, uint32_t *ci,
						     uint32_t *rq_ci, struct dvp_mbuf **out,
						     uint32_t max, uint32_t *bytes, bool hash)
{
	struct mlx5_rxq_zip *z = &rxq->zip;
	const uint32_t t = *ci, ai = z->ai, k = DVP_MIN(max, z->n - ai), mask = rxq->wqe_mask;
	const uint64_t rearm = rxq->mbuf_rearm, flags = z->ol_flags;
	const uint32_t ptype = z->ptype, rq = *rq_ci;
	const bool mini_hash = rxq->comp_fmt == MLX5_MINI_CQE_HASH;
	uint32_t sum = 0;

	/* An array (eight minis in one slot) at a time. */
	for (uint32_t i = 0; i < k;) {
		const struct mlx5_mini_cqe8 *mc = mlx5_rx_zip_mini(rxq, t, ai + i);
		const uint32_t end = i + DVP_MIN(k - i, MLX5_MINI_CQE_PER_CQE - ((ai + i) & 7u));

		for (; i < end; i++, mc++) {
			struct dvp_mbuf *m = rxq->elts[(rq + i) & mask];
			uint32_t len = be32toh(mc->byte_cnt);

			m->rearm_data = rearm;
			m->ol_flags = flags;
			m->packet_type = ptype;
			m->pkt_len = len;
			m->data_len = (uint16_t)len;
			if (hash)
				m->hash.rss = mini_hash ? be32toh(mc->rx_hash_result) : z->hash;
			out[i] = m;
			sum += len;
		}
	}
	if (dvp_unlikely(mlx5_rx_marking(rxq)))
		mlx5_rx_mark_same(out, k, mlx5_cqe_slot(rxq->cqes, rxq->cqe_cnt, t)->sop_drop_qpn);
	*bytes += sum;
	mlx5_rx_zip_taken(rxq, ci, rq_ci, k);
	return k;
}

/*
 * How a path takes a session's packets, a stretch of plain CQEs and
 * refills the ring: the scalar code or the vector one. Constants of an
 * inline loop, so the calls are direct.
 */
struct mlx5_rx_comp_ops {
	uint32_t (*take)(struct mlx5_rxq *rxq, uint32_t *ci, uint32_t *rq_ci, struct dvp_mbuf **out,
			 uint32_t max, uint32_t *bytes, bool hash);
	uint32_t (*run)(struct mlx5_rxq *rxq, uint32_t ci, uint32_t rq_ci, struct dvp_mbuf **out,
			uint32_t run, uint32_t *bytes, bool *slow, bool hash);
	void (*replenish)(struct mlx5_rxq *rxq);
	/* A packet takes a whole WQE of 2^sges_log segments (rx scatter, mlx5_rx_sg.c). */
	bool sg;
};

/*
 * The general loop of a compressing queue's burst, from @p k packets taken
 * (@p bytes of them) and the CQ at @p ci, the WQ at @p rq_ci: the open
 * session first, then plain CQEs (mlx5_rx_run()) until a title, which
 * opens the next session, and so on until the burst is full or the CQ has
 * nothing more (or *@p slow: an error CQE). Then the same end as
 * mlx5_rx_burst_tmpl(). The consumer index stays at an open session's
 * title, so the device keeps its slots.
 */
static __dvp_always_inline uint16_t mlx5_rx_comp_loop(struct mlx5_rxq *rxq, struct dvp_mbuf **pkts,
						      uint32_t n, uint32_t k, uint32_t bytes,
						      uint32_t ci, uint32_t rq_ci, bool slow,
						      bool hash, const struct mlx5_rx_comp_ops *ops)
{
	for (;;) {
		uint32_t run, j;

		if (slow) {
			/* Stopped on a CQE of ours that is not plain: a title, or an error. */
			if (!mlx5_rx_zip_open(rxq, ci))
				break;
			slow = false;
		}
		if (rxq->zip.n != 0)
			k += ops->take(rxq, &ci, &rq_ci, pkts + k, n - k, &bytes, hash);
		if (k == n)
			break;
		run = mlx5_rx_stretch(rxq, ci, rq_ci, n - k);
		j = ops->run(rxq, ci, rq_ci, pkts + k, run, &bytes, &slow, hash);
		if (dvp_unlikely(mlx5_rx_marking(rxq)) && j != 0)
			mlx5_rx_mark(rxq, ci, pkts + k, j);
		ci += j;
		rq_ci += ops->sg ? j << rxq->sges_log : j;
		k += j;
		if (j < run && !slow)
			break;
	}
	if (ci != rxq->cq_ci) {
		rxq->cq_ci = ci;
		/* Every field of the CQEs above is read, and their slots invalidated. */
		mlx5_cq_set_ci(rxq->cq_db, ci);
	}
	if (k > 0) {
		rxq->rq_ci = rq_ci;
		dvp_counter_add(&rxq->st.packets, k);
		dvp_counter_add(&rxq->st.bytes, bytes);
	}
	ops->replenish(rxq);
	if (dvp_unlikely(slow))
		mlx5_rx_slow(rxq);
	return (uint16_t)k;
}

/* Out of line (mlx5_rx_comp.c): mlx5_rx_comp_loop() without and with the hash. */
uint16_t mlx5_rx_comp_more(struct mlx5_rxq *rxq, struct dvp_mbuf **pkts, uint32_t n, uint32_t k,
			   uint32_t bytes, uint32_t ci, uint32_t rq_ci, bool slow);
uint16_t mlx5_rx_comp_more_hash(struct mlx5_rxq *rxq, struct dvp_mbuf **pkts, uint32_t n,
				uint32_t k, uint32_t bytes, uint32_t ci, uint32_t rq_ci, bool slow);

/*
 * rx_burst of a queue whose CQ compresses. Plain CQEs that neither wrap
 * nor end on a title take the same path as mlx5_rx_burst_tmpl(); an open
 * session, a title, a wrap or an error go to mlx5_rx_comp_loop(), out of
 * line, once per burst. @p hash: as in mlx5_rx_burst_tmpl().
 */
static __dvp_always_inline uint16_t mlx5_rx_burst_comp_tmpl(struct mlx5_rxq *rxq,
							    struct dvp_mbuf **pkts, uint16_t n,
							    bool hash)
{
	uint32_t ci = rxq->cq_ci, rq_ci = rxq->rq_ci, bytes = 0, run, k;
	bool slow = false;

	if (!mlx5_rx_burst_begin(rxq))
		return 0;
	if (dvp_unlikely(rxq->zip.n != 0))
		return hash ? mlx5_rx_comp_more_hash(rxq, pkts, n, 0, 0, ci, rq_ci, false) :
			      mlx5_rx_comp_more(rxq, pkts, n, 0, 0, ci, rq_ci, false);
	run = mlx5_rx_stretch(rxq, ci, rq_ci, n);
	k = mlx5_rx_run(rxq, ci, rq_ci, pkts, run, &bytes, &slow, hash);
	if (dvp_unlikely(slow || (k == run && run < n)))
		return hash ? mlx5_rx_comp_more_hash(rxq, pkts, n, k, bytes, ci + k, rq_ci + k,
						     slow) :
			      mlx5_rx_comp_more(rxq, pkts, n, k, bytes, ci + k, rq_ci + k, slow);
	if (dvp_unlikely(mlx5_rx_marking(rxq)) && k != 0)
		mlx5_rx_mark(rxq, ci, pkts, k);
	mlx5_rx_done(rxq, ci, rq_ci, k, bytes);
	mlx5_rx_replenish(rxq);
	return (uint16_t)k;
}

#endif /* MLX5_RX_COMP_H */
