/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

#include "dvp_test.h"

#include <endian.h>

#include "mlx5_prm.h"
#include "sim_loop.h"

void sc_loop_open(struct sc_loop *l, const char *args, uint32_t tx_wqe, uint32_t rx_post)
{
	struct sc_rxq *qs[1];

	sc_open(&l->s, args);
	sc_txq_init(&l->s, &l->tx, tx_wqe, 1, 1024, false);
	sc_rxq_init(&l->s, &l->rx, 512, 2048, 1024, false);
	l->rx_next = l->rx.pi;
	sc_rxq_post(&l->s, &l->rx, rx_post);
	qs[0] = &l->rx;
	sc_rss_init(&l->s, &l->rss, qs, 1, 0, NULL, 2, NULL, 0);
}

void sc_loop_close(struct sc_loop *l, bool expect_clean)
{
	if (expect_clean)
		assert_int_equal(sim_mlx5_invalid_total(l->s.sim), 0);
	sc_rss_fini(&l->s, &l->rss);
	sc_rxq_fini(&l->s, &l->rx);
	if (l->tx.qp != NULL)
		sc_txq_fini(&l->s, &l->tx);
	sc_close(&l->s);
}

void sc_loop_run(struct sc_loop *l)
{
	sim_mlx5_step_idle(l->s.sim, 1000);
}

uint64_t sc_loop_invalid(struct sc_loop *l, enum sim_mlx5_invalid kind)
{
	struct sim_mlx5_dev_stats st;

	assert_int_equal(sim_mlx5_dev_stats(l->s.sim, &st), 0);
	return st.invalid[kind];
}

struct mlx5_cqe64 *sc_loop_tx_cqe(struct sc_loop *l)
{
	struct mlx5_cqe64 *cqe = sc_cq_peek(&l->tx.cq);

	assert_non_null(cqe);
	sc_cq_consume(&l->tx.cq, 1);
	return cqe;
}

void sc_loop_expect_invalid(struct sc_loop *l, uint32_t idx, enum sim_mlx5_invalid kind)
{
	struct mlx5_cqe64 *cqe;

	sc_tx_ring(&l->tx);
	sc_loop_run(l);
	assert_int_equal(sc_loop_invalid(l, kind), 1);
	cqe = sc_loop_tx_cqe(l);
	assert_int_equal(mlx5dv_get_cqe_opcode(cqe), MLX5_CQE_REQ_ERR);
	assert_int_equal(((struct mlx5_err_cqe *)(void *)cqe)->syndrome,
			 MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
	assert_int_equal(be16toh(cqe->wqe_counter), idx & 0xffff);
	assert_int_equal(l->tx.qp->state, IBV_QPS_ERR);
	assert_null(sc_cq_peek(&l->rx.cq));
}
