/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Frames arriving in the middle of a steering change. The probe swaps a
 * port's glue for one whose creates and destroys of flows, QPs and
 * indirection tables run the test's injection before and after the real
 * call. The PMD holds its steering lock, not the device's, so each
 * injection is what a wire would do at that moment of the change; a test
 * that changes the steering under the probe then checks that every frame
 * met a rule (steering_probe_check()).
 *
 * Included by one test program each, after mlx5_fixture.h.
 */

#ifndef MLX5_STEER_PROBE_H
#define MLX5_STEER_PROBE_H

#include "mlx5_fixture.h"

struct steer_probe {
	/* The test's frames around one call: steer_probe_inject() each. */
	void (*inject)(struct steer_probe *sp);
	struct mf *f;
	uint8_t mac[6]; /* port 0's, for the frames */
	uint64_t seq; /* the test's frame counter */
	unsigned int injections; /* two per steering call */
	unsigned int delivered, no_rule, other;
	unsigned int got; /* what the test's injections took off the queues */

	struct mlx5_priv *priv;
	const struct mlx5_glue *real;
	struct mlx5_glue glue;
};

/* The glue's functions take no context: the probe installed. */
static struct steer_probe *steer_probe_active;

static inline void steer_probe_around(void)
{
	steer_probe_active->inject(steer_probe_active);
	steer_probe_active->injections++;
}

static inline int steer_probe_destroy_flow(struct ibv_flow *flow)
{
	int r;

	steer_probe_around();
	r = steer_probe_active->real->destroy_flow(flow);
	steer_probe_around();
	return r;
}

static inline int steer_probe_destroy_qp(struct ibv_qp *qp)
{
	int r;

	steer_probe_around();
	r = steer_probe_active->real->destroy_qp(qp);
	steer_probe_around();
	return r;
}

static inline int steer_probe_destroy_rwq_ind_table(struct ibv_rwq_ind_table *t)
{
	int r;

	steer_probe_around();
	r = steer_probe_active->real->destroy_rwq_ind_table(t);
	steer_probe_around();
	return r;
}

static inline struct ibv_flow *steer_probe_create_flow(struct ibv_qp *qp,
						       struct ibv_flow_attr *attr)
{
	struct ibv_flow *r;

	steer_probe_around();
	r = steer_probe_active->real->create_flow(qp, attr);
	steer_probe_around();
	return r;
}

static inline struct ibv_qp *steer_probe_create_qp_ex(struct ibv_context *ctx,
						      struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_qp *r;

	steer_probe_around();
	r = steer_probe_active->real->create_qp_ex(ctx, attr);
	steer_probe_around();
	return r;
}

static inline void steer_probe_install(struct steer_probe *sp, struct mf *f, uint16_t port,
				       void (*inject)(struct steer_probe *sp))
{
	memset(sp, 0, sizeof(*sp));
	sp->inject = inject;
	sp->f = f;
	assert_int_equal(sim_mlx5_mac_get(f->sim, 0, sp->mac), 0);
	sp->priv = mlx5_priv(dvp_port_get(port));
	sp->real = sp->priv->dev->glue;
	sp->glue = *sp->real;
	sp->glue.destroy_flow = steer_probe_destroy_flow;
	sp->glue.destroy_qp = steer_probe_destroy_qp;
	sp->glue.destroy_rwq_ind_table = steer_probe_destroy_rwq_ind_table;
	sp->glue.create_flow = steer_probe_create_flow;
	sp->glue.create_qp_ex = steer_probe_create_qp_ex;
	steer_probe_active = sp;
	sp->priv->dev->glue = &sp->glue;
}

static inline void steer_probe_remove(struct steer_probe *sp)
{
	sp->priv->dev->glue = sp->real;
	steer_probe_active = NULL;
}

/* Receive one frame on port 0 of the sim now and count what became of it. */
static inline void steer_probe_inject(struct steer_probe *sp, const void *frame, size_t len)
{
	int r = sim_mlx5_inject(sp->f->sim, 0, frame, len);

	if (r == SIM_MLX5_RX_DELIVERED)
		sp->delivered++;
	else if (r == SIM_MLX5_RX_NO_FLOW)
		sp->no_rule++;
	else
		sp->other++;
}

/* Take what the rx queues 0..@nq - 1 of @port hold, so that they keep room: @return frames. */
static inline unsigned int steer_probe_drain(uint16_t port, uint16_t nq)
{
	struct dvp_mbuf *pkts[32];
	unsigned int got = 0;

	for (uint16_t q = 0; q < nq; q++) {
		uint16_t n;

		while ((n = dvp_rx_burst(port, q, pkts, 32)) > 0) {
			got += n;
			dvp_pktmbuf_free_bulk(pkts, n);
		}
	}
	return got;
}

/*
 * After the changes: many calls probed, every frame met a rule and went to
 * a queue, and @received (what the test drained besides sp->got) is all of
 * what was delivered.
 */
static inline void steer_probe_check(const struct steer_probe *sp, unsigned int received)
{
	print_message("%u steering calls, %u frames around them: %u received, %u met no rule, "
		      "%u other\n",
		      sp->injections / 2, sp->delivered + sp->no_rule + sp->other, sp->delivered,
		      sp->no_rule, sp->other);
	assert_true(sp->injections > 100);
	assert_int_equal(sp->no_rule, 0);
	assert_int_equal(sp->other, 0);
	assert_int_equal(received + sp->got, sp->delivered);
}

#endif /* MLX5_STEER_PROBE_H */
