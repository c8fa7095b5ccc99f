/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Steering in the simulated HCA: flow rules on a port, each sending what
 * it matches to a hashing QP or dropping it (sim_flow.c), and the Toeplitz
 * hash by which a hashing QP spreads it over its indirection table
 * (sim_rss.c).
 */

#ifndef SIM_STEER_H
#define SIM_STEER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <infiniband/verbs.h>

#include "mlx5_fte.h"

#include "sim_dev.h"

struct sim_pkt;
struct sim_qp;

/*
 * A rule's filter, verbs specs and mlx5dv matchers alike: a value and a
 * mask in the layout of fte_match_param's outer headers (mlx5_fte.h),
 * compared with the same fields read from a frame (sim_flow_headers()).
 */
struct sim_match {
	uint8_t val[MLX5_FTE_PART_SIZE];
	uint8_t mask[MLX5_FTE_PART_SIZE];
};

/* An mlx5dv flow matcher: the priority and mask its flows share. */
struct sim_matcher {
	uint32_t magic;
	struct sim_ctx *ctx;
	uint16_t priority;
	unsigned int port; /* 0-based: misc source_port's, or the device's one port */
	unsigned int flows; /* no destroy while it has flows */
	uint8_t mask[MLX5_FTE_MATCH_PARAM_SIZE];
};

/* Counter values of a counters object (ibv_read_counters indexes). */
#define SIM_COUNTERS_MAX 8u

struct sim_counters {
	struct ibv_counters ibv;
	uint32_t magic;
	struct sim_ctx *ctx;
	unsigned int flows; /* bound to this many flows: no attach, no destroy */
	unsigned int npoints;
	enum ibv_counter_description desc[SIM_COUNTERS_MAX];
	uint32_t index[SIM_COUNTERS_MAX];
	uint64_t values[SIM_COUNTERS_MAX];
};

struct sim_flow {
	struct ibv_flow ibv;
	uint32_t magic;
	struct sim_ctx *ctx;
	struct sim_qp *qp; /* NULL for an mlx5dv DROP flow */
	struct sim_matcher *matcher; /* an mlx5dv flow's, or NULL */
	unsigned int port;
	uint16_t priority;
	int type; /* enum ibv_flow_attr_type */
	uint64_t seq;
	struct sim_match m;
	bool has_tag, drop;
	uint32_t tag;
	struct sim_counters *ctr; /* ACTION_COUNT's, or NULL */
	TAILQ_ENTRY(sim_flow) next;
};

/* sim_flow.c */
struct ibv_flow *sim_create_flow(struct ibv_qp *qp, struct ibv_flow_attr *attr);
int sim_destroy_flow(struct ibv_flow *flow);
struct sim_flow *sim_flow_match(struct sim_port *port, const struct sim_pkt *pkt);
/* Put @p f (filled but for its seq and handle) on its port's list, then drop dev->lock. */
void sim_flow_insert(struct sim_mlx5_dev *dev, struct sim_flow *f);
/* @p c as live counters with a point attached, or NULL after a log line naming @p fn. */
struct sim_counters *sim_flow_counters(struct sim_mlx5_dev *dev, struct ibv_counters *c,
				       const char *fn);

/* sim_flow_dv.c */
struct mlx5dv_flow_matcher *sim_dv_create_flow_matcher(struct ibv_context *ctx,
						       struct mlx5dv_flow_matcher_attr *attr);
int sim_dv_destroy_flow_matcher(struct mlx5dv_flow_matcher *matcher);
struct ibv_flow *sim_dv_create_flow(struct mlx5dv_flow_matcher *matcher,
				    struct mlx5dv_flow_match_parameters *value, size_t num_actions,
				    struct mlx5dv_flow_action_attr actions[]);

/* sim_counters.c */
struct ibv_counters *sim_create_counters(struct ibv_context *ctx,
					 struct ibv_counters_init_attr *attr);
int sim_destroy_counters(struct ibv_counters *c);
int sim_attach_counters_point_flow(struct ibv_counters *c, struct ibv_counter_attach_attr *attr,
				   struct ibv_flow *flow);
int sim_read_counters(struct ibv_counters *c, uint64_t *values, uint32_t n, uint32_t flags);
/* A frame of @p len bytes taken by a flow bound to @p c; dev->lock held. */
void sim_counters_hit(struct sim_counters *c, uint32_t len);

/* sim_rss.c */
uint32_t sim_rss_hash(const struct sim_qp *qp, const struct sim_pkt *p);

#endif /* SIM_STEER_H */
