/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * UAR pages: one per CQ (its arm doorbell) and one per SQ (its two send
 * doorbell registers), so every doorbell register has one writer and the
 * device can take each write whole. A page lives as long as its context:
 * a doorbell rung after its object is destroyed stays detectable, and each
 * step reports the ones written on the pages of destroyed objects. The
 * live doorbells are taken by their queue's engine (sim_cq.c, the send
 * engine). All under dev->lock.
 */

#include <stdlib.h>

#include "mlx5_prm.h"
#include "sim_dev.h"
#include "sim_obj.h"
#include "sim_uar.h"

/* A page for CQ or SQ @p num, kept on its context's list @p uars. */
struct sim_uar *sim_uar_alloc(struct sim_uar_list *uars, bool is_sq, uint32_t num)
{
	struct sim_uar *uar = calloc(1, sizeof(*uar));

	if (uar == NULL)
		return NULL;
	uar->page = sim_buf_alloc(SIM_PAGE_SIZE);
	if (uar->page == NULL) {
		free(uar);
		return NULL;
	}
	uar->is_sq = is_sq;
	uar->num = num;
	TAILQ_INSERT_TAIL(uars, uar, ctx_next);
	return uar;
}

/* The object is gone: its page stays mapped and watched until its context closes. */
void sim_uar_kill(struct sim_mlx5_dev *dev, struct sim_uar *uar)
{
	uar->dead = true;
	TAILQ_INSERT_TAIL(&dev->dead_uars, uar, dead_next);
}

/* A context closes: its pages go, those of destroyed objects no longer watched. */
void sim_uar_free_all(struct sim_mlx5_dev *dev, struct sim_uar_list *uars)
{
	struct sim_uar *uar;

	while ((uar = TAILQ_FIRST(uars)) != NULL) {
		TAILQ_REMOVE(uars, uar, ctx_next);
		if (uar->dead)
			TAILQ_REMOVE(&dev->dead_uars, uar, dead_next);
		free(uar->page);
		free(uar);
	}
}

/* Doorbells written to the UAR page of a destroyed CQ or SQ. */
int sim_uar_poll_dead(struct sim_mlx5_dev *dev)
{
	struct sim_uar *uar;
	int n = 0;

	TAILQ_FOREACH(uar, &dev->dead_uars, dead_next) {
		const uint32_t offs[] = { MLX5_CQ_DOORBELL, MLX5_BF_OFFSET,
					  MLX5_BF_OFFSET + SIM_BF_SIZE };

		for (unsigned int i = uar->is_sq ? 1 : 0; i < (uar->is_sq ? 3u : 1u); i++) {
			uint64_t *reg = sim_uar_reg(uar, offs[i]);

			if (__atomic_load_n(reg, __ATOMIC_RELAXED) == 0)
				continue;
			__atomic_exchange_n(reg, 0, __ATOMIC_ACQUIRE);
			sim_invalid(dev, SIM_MLX5_INV_DESTROYED_DB,
				    "%s %u was destroyed, but its %s doorbell was written",
				    uar->is_sq ? "SQ" : "CQ", uar->num,
				    uar->is_sq ? "send" : "arm");
			n++;
		}
	}
	return n;
}
