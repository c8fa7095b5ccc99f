/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Doorbells and UAR pages of the simulated HCA: a page per CQ (its arm
 * doorbell at +MLX5_CQ_DOORBELL) and per SQ (its two send doorbell
 * registers from +MLX5_BF_OFFSET), kept until their context closes
 * (sim_uar.c). The live doorbells are taken by their queue's engine.
 */

#ifndef SIM_UAR_H
#define SIM_UAR_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include "sim_dev.h"

/* Bytes of each of an SQ's two send doorbell registers (BlueFlame buffers), one after the other. */
#define SIM_BF_SIZE 256u

/* A UAR page: CQ arm doorbell at +MLX5_CQ_DOORBELL, send doorbells at +MLX5_BF_OFFSET. */
struct sim_uar {
	uint8_t *page;
	uint32_t num; /* the CQN or SQN it belongs to */
	bool is_sq;
	bool dead; /* its object is destroyed: any write is invalid use */
	TAILQ_ENTRY(sim_uar) ctx_next;
	TAILQ_ENTRY(sim_uar) dead_next;
};

/* The 64-bit doorbell register at @p off of a UAR page (the page is page-aligned). */
static inline uint64_t *sim_uar_reg(const struct sim_uar *uar, uint32_t off)
{
	return (uint64_t *)(void *)(uar->page + off);
}

/* sim_uar.c */
struct sim_uar *sim_uar_alloc(struct sim_uar_list *uars, bool is_sq, uint32_t num);
void sim_uar_kill(struct sim_mlx5_dev *dev, struct sim_uar *uar);
void sim_uar_free_all(struct sim_mlx5_dev *dev, struct sim_uar_list *uars);
int sim_uar_poll_dead(struct sim_mlx5_dev *dev);

#endif /* SIM_UAR_H */
