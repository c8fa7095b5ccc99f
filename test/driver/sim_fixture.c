/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

#include "dvp_test.h"

#include <endian.h>

#include "mlx5_prm.h"
#include "sim_fixture.h"

#define OR(v, def) ((v) != 0 ? (v) : (def))

void sim_fix_open(struct sim_fix *f, const struct sim_fix_conf *c)
{
	struct sc_rxq *qs[SIM_FIX_RXQ_MAX];
	uint32_t rx_wqe = OR(c->rx_wqe, 512u);

	memset(f, 0, sizeof(*f));
	assert_true(c->nrxq <= SIM_FIX_RXQ_MAX);
	sc_open(&f->s, c->args);
	if (c->tx_wqe != 0)
		sc_txq_init(&f->s, &f->tx, c->tx_wqe, 1, OR(c->tx_cq, 1024), c->tx_channel);
	if (c->nrxq == 0)
		return;
	if (!c->rss_all)
		assert_int_equal(sim_mlx5_mac_get(f->s.sim, OR(c->rss_port, 1u) - 1u, f->mac), 0);
	for (unsigned int i = 0; i < c->nrxq; i++) {
		sc_rxq_init_comp(&f->s, &f->rx[i], rx_wqe, OR(c->rx_buf, 2048u),
				 OR(c->rx_cq, (int)rx_wqe * 2), c->rx_channel, c->rx_cqe_comp);
		if (i == 0)
			f->rx_next = f->rx[0].pi;
		sc_rxq_post(&f->s, &f->rx[i], c->rx_post);
		qs[i] = &f->rx[i];
	}
	f->nrxq = c->nrxq;
	sc_rss_init(&f->s, &f->rss, qs, c->nrxq, c->rss_fields, c->rss_key, OR(c->rss_port, 1u),
		    c->rss_all ? NULL : f->mac, c->rss_tag);
}

struct sim_fix_conf sim_fix_loop_conf(const char *args, uint32_t tx_wqe, uint32_t rx_post)
{
	const struct sim_fix_conf c = {
		.args = args,
		.tx_wqe = tx_wqe,
		.nrxq = 1,
		.rx_post = rx_post,
		.rss_port = 2,
		.rss_all = true,
	};

	return c;
}

void sim_fix_close(struct sim_fix *f, bool expect_clean)
{
	if (expect_clean)
		assert_int_equal(sim_mlx5_invalid_total(f->s.sim), 0);
	if (f->nrxq > 0)
		sc_rss_fini(&f->s, &f->rss);
	for (unsigned int i = 0; i < f->nrxq; i++)
		sc_rxq_fini(&f->s, &f->rx[i]);
	if (f->tx.qp != NULL)
		sc_txq_fini(&f->s, &f->tx);
	sc_close(&f->s);
}

void *sim_fix_new(size_t size, const struct sim_fix_conf *conf)
{
	struct sim_fix *f;

	assert_true(size >= sizeof(*f));
	f = calloc(1, size);
	assert_non_null(f);
	sim_fix_open(f, conf);
	return f;
}

void sim_fix_free(struct sim_fix *f, bool expect_clean)
{
	sim_fix_close(f, expect_clean);
	free(f);
}

static void sq_modify(struct sim_fix *f, enum ibv_qp_state state, int mask, int expect)
{
	struct ibv_qp_attr mod;

	memset(&mod, 0, sizeof(mod));
	mod.qp_state = state;
	mod.port_num = 1;
	assert_int_equal(f->s.g->modify_qp(f->tx.qp, &mod, IBV_QP_STATE | mask), expect);
}

void sim_fix_sq_recover(struct sim_fix *f)
{
	sq_modify(f, IBV_QPS_RTS, 0, EINVAL); /* not from ERR */
	sq_modify(f, IBV_QPS_RESET, 0, 0);
	sq_modify(f, IBV_QPS_INIT, IBV_QP_PORT, 0);
	sq_modify(f, IBV_QPS_RTR, 0, 0);
	sq_modify(f, IBV_QPS_RTS, 0, 0);
	f->tx.pi = be32toh(f->tx.dv.dbrec[MLX5_SND_DBR]) & 0xffff;
}

void sim_fix_run(struct sim_fix *f)
{
	sim_mlx5_step_idle(f->s.sim, 1000);
}

struct sim_mlx5_dev_stats sim_fix_stats(struct sim_fix *f)
{
	struct sim_mlx5_dev_stats st;

	assert_int_equal(sim_mlx5_dev_stats(f->s.sim, &st), 0);
	return st;
}

uint64_t sim_fix_invalid(struct sim_fix *f, enum sim_mlx5_invalid kind)
{
	return sim_fix_stats(f).invalid[kind];
}

struct mlx5_cqe64 *sim_fix_tx_cqe(struct sim_fix *f)
{
	struct mlx5_cqe64 *cqe = sc_cq_peek(&f->tx.cq);

	assert_non_null(cqe);
	sc_cq_consume(&f->tx.cq, 1);
	return cqe;
}

struct mlx5_err_cqe *sim_fix_tx_error(struct sim_fix *f, uint32_t idx, uint8_t syndrome)
{
	struct mlx5_err_cqe *err;
	struct mlx5_cqe64 *cqe;

	sc_tx_ring(&f->tx);
	sim_fix_run(f);
	cqe = sim_fix_tx_cqe(f);
	err = (struct mlx5_err_cqe *)(void *)cqe;
	assert_int_equal(mlx5dv_get_cqe_opcode(cqe), MLX5_CQE_REQ_ERR);
	assert_int_equal(err->syndrome, syndrome);
	assert_int_equal(be16toh(err->wqe_counter), idx & 0xffff);
	assert_int_equal(f->tx.qp->state, IBV_QPS_ERR);
	return err;
}

void sim_fix_expect_invalid(struct sim_fix *f, uint32_t idx, enum sim_mlx5_invalid kind)
{
	sim_fix_tx_error(f, idx, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
	assert_int_equal(sim_fix_invalid(f, kind), 1);
	if (f->nrxq > 0)
		assert_null(sc_cq_peek(&f->rx[0].cq));
}
