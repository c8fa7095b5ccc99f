/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * CQs of the simulated HCA: made by verbs, with their completion channels
 * (sim_cq.c); written by the device in the order hardware writes them,
 * their consumer index, arm doorbell, events and overrun (sim_cqe.c);
 * compressing receive completions into sessions (sim_cq_comp.c). The
 * sessions' add and close are for sim_cqe.c only; the other parts write
 * CQEs through sim_cqe.c.
 */

#ifndef SIM_CQ_H
#define SIM_CQ_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "mlx5_prm.h"
#include "sim_dev.h"
#include "sim_event.h"
#include "sim_obj.h"

struct sim_channel {
	struct ibv_comp_channel ibv;
	uint32_t magic;
	struct sim_ctx *ctx;
	struct sim_evq q;
	unsigned int cqs;
};

struct sim_pkt;
struct sim_wq;

/*
 * The compressed CQE session a CQ is writing (sim_cq_comp.c): its slots
 * [start, start + n) are taken from the ring as its completions come, and
 * written, title last, when it closes. Open only inside one engine pass.
 */
struct sim_cq_sess {
	uint32_t n; /* completions in it; 0: none open */
	uint32_t start; /* CQ index of its first slot (the title) */
	uint16_t counter; /* WQE counter of its first completion */
	const struct sim_wq *wq;
	struct sim_port *port;
	struct mlx5_cqe64 title; /* its first completion's CQE */
	struct mlx5_mini_cqe8 mini[SIM_CQE_COMP_MAX];
};

struct sim_cq {
	union {
		struct ibv_cq ibv;
		struct ibv_cq_ex ibv_ex; /* dv_create_cq's view (its poll functions unset) */
	};
	uint32_t magic;
	struct sim_ctx *ctx;
	struct sim_channel *ch;
	uint32_t cqn;
	uint32_t cqe_cnt;
	struct mlx5_cqe64 *buf;
	__be32 *dbrec;
	struct sim_mem buf_mem, db_mem;
	struct sim_uar *uar;
	uint8_t *slot_flags; /* per slot: how its CQE was written (sim_cqe.c) */
	uint32_t pi; /* 24-bit index of the next CQE the device writes */
	uint32_t ci; /* consumer index as last read from the record */
	uint32_t bad_ci; /* last invalid consumer index reported */
	bool armed, arm_sol;
	uint32_t arm_ci;
	uint32_t sn; /* the arm sn the device accepts: events raised, mod 4 */
	bool error; /* overrun: no more CQEs */
	bool stall;
	unsigned int users; /* WQs and QPs on it */
	/* Written by the application's threads (get/ack), read at destroy. */
	uint32_t events_got; /* acks: ibv.comp_events_completed, as libibverbs */
	uint32_t async_got; /* acks: ibv.async_events_completed */
	/* CQE compression asked at creation (dv_create_cq); comp_max 0: off. */
	uint32_t comp_max;
	uint8_t comp_fmt; /* enum mlx5_mini_cqe_format: MLX5_MINI_CQE_HASH or _CSUM */
	struct sim_cq_sess sess;
	TAILQ_ENTRY(sim_cq) next;
};

/* sim_cq.c */
struct sim_cq *sim_cq_of(struct ibv_cq *cq, const char *fn);
struct ibv_comp_channel *sim_create_comp_channel(struct ibv_context *context);
int sim_destroy_comp_channel(struct ibv_comp_channel *channel);
struct ibv_cq *sim_create_cq(struct ibv_context *context, int cqe, void *cq_context,
			     struct ibv_comp_channel *channel, int comp_vector);
struct ibv_cq_ex *sim_dv_create_cq(struct ibv_context *context, struct ibv_cq_init_attr_ex *attr,
				   struct mlx5dv_cq_init_attr *dv_attr);
int sim_destroy_cq(struct ibv_cq *cq);
int sim_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context);
void sim_ack_cq_events(struct ibv_cq *cq, unsigned int nevents);

/* sim_cqe.c: the device side of a CQ (dev->lock held). */
int sim_cq_room(struct sim_cq *cq);
/* @p port: whose queue completes (its bus counters). */
void sim_cq_write(struct sim_cq *cq, struct sim_port *port, struct mlx5_cqe64 *cqe, uint8_t opcode,
		  bool solicited);
void sim_cq_write_error(struct sim_cq *cq, struct sim_port *port, bool send, uint8_t syndrome,
			uint32_t qpn, uint8_t wqe_opcode, uint16_t wqe_counter);
/*
 * A receive completion of @p wq on @p port: into the CQ's compressed
 * session when it has them (sim_cq_comp.c), else as its own CQE.
 */
void sim_cq_write_rx(struct sim_cq *cq, struct sim_port *port, const struct sim_wq *wq,
		     struct mlx5_cqe64 *cqe, const struct sim_pkt *pkt);
void sim_cq_overrun(struct sim_cq *cq);
int sim_cq_poll_arm(struct sim_cq *cq);

/* sim_cq_comp.c: compressed CQE sessions (dev->lock held). */
/*
 * A receive completion of @p wq on @p port, in the next slot: into the
 * CQ's open session when it matches, else into a new one. A session closes
 * when full.
 */
void sim_cq_comp_add(struct sim_cq *cq, struct sim_port *port, const struct sim_wq *wq,
		     const struct mlx5_cqe64 *cqe, const struct sim_pkt *pkt);
/* Write the CQ's open session, if any (a single completion as a plain CQE). */
void sim_cq_comp_close(struct sim_cq *cq);
/* Close every open session of the device: the engine goes idle. */
void sim_cq_comp_close_all(struct sim_mlx5_dev *dev);

#endif /* SIM_CQ_H */
