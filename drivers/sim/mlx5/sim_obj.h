/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The verbs objects every part of the simulated HCA builds on: a context,
 * a PD, an MR; the check every call makes of the objects it is given, the
 * steps every create and destroy share, and the buffers a queue shares
 * with its driver (sim_obj.c). Each other object is its part's own: CQs
 * and channels in sim_cq.h, WQs, tables and QPs in sim_wq.h, flows in
 * sim_steer.h.
 */

#ifndef SIM_OBJ_H
#define SIM_OBJ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "sim_dev.h"
#include "sim_event.h"

/*
 * The sim object of @p type behind the verbs object @p ptr (its member
 * ibv) if it is one of ours and alive (its magic is @p member_magic), or
 * NULL after a line naming the call @p fn and what was expected.
 */
#define SIM_OBJ_OF(type, ptr, member_magic, what, fn)                                          \
	({                                                                                     \
		type *o_ = NULL;                                                               \
		if ((ptr) == NULL)                                                             \
			DVP_LOG_LINE(ERR, sim_logtype, "", "sim_mlx5: %s: NULL %s", fn, what); \
		else {                                                                         \
			o_ = dvp_container_of((ptr), type, ibv);                               \
			if (o_->magic != (member_magic)) {                                     \
				DVP_LOG_LINE(ERR, sim_logtype, "",                             \
					     "sim_mlx5: %s: %p is not a live sim_mlx5 %s", fn, \
					     (void *)(ptr), what);                             \
				o_ = NULL;                                                     \
			}                                                                      \
		}                                                                              \
		o_;                                                                            \
	})

/* Object magics: every glue call checks the object is one of ours and alive. */
enum {
	SIM_MAGIC_CTX = 0x53430001,
	SIM_MAGIC_PD,
	SIM_MAGIC_MR,
	SIM_MAGIC_CHANNEL,
	SIM_MAGIC_CQ,
	SIM_MAGIC_WQ,
	SIM_MAGIC_IND,
	SIM_MAGIC_QP,
	SIM_MAGIC_FLOW,
	SIM_MAGIC_COUNTERS,
	SIM_MAGIC_MATCHER,
	SIM_MAGIC_DEAD = 0x64656164,
};

/*
 * A queue buffer or doorbell record: from the application's allocator when
 * it set one (mlx5dv_set_context_attr, MLX5DV_CTX_ATTR_BUF_ALLOCATORS, as
 * DPDK does to place rings on the device's node), else from the sim.
 */
struct sim_mem {
	void *addr;
	void (*free)(void *ptr, void *priv); /* NULL: the sim's own (free()) */
	void *priv;
};

struct sim_ctx {
	struct ibv_context ibv;
	uint32_t magic;
	struct sim_mlx5_dev *dev;
	struct mlx5dv_ctx_allocators alloc; /* from dv_set_context_attr, or all NULL */
	bool devx; /* opened by dv_open_device with MLX5DV_CONTEXT_FLAGS_DEVX */
	struct sim_evq async;
	struct sim_uar_list uars; /* freed at close: late doorbells stay detectable */
	unsigned int objs;
	TAILQ_ENTRY(sim_ctx) next;
};

struct sim_pd {
	struct ibv_pd ibv;
	uint32_t magic;
	struct sim_ctx *ctx;
	unsigned int users;
};

struct sim_mr {
	struct ibv_mr ibv;
	uint32_t magic;
	struct sim_pd *pd;
	int access;
	uint32_t index;
};

/* sim_obj.c */
struct sim_ctx *sim_ctx_of(struct ibv_context *ibv, const char *fn);
/*
 * A create call's new object: zeroed @p size bytes when the call's
 * arguments are @p valid. NULL with errno EINVAL (not valid) or ENOMEM.
 */
void *sim_obj_alloc(bool valid, size_t size);
/*
 * A destroy call's start: take dev->lock and return 0 if no object uses this
 * one (@p users, read under the lock). Else drop the lock, log "<@p fmt> is
 * still used by <count> <@p by>" and return EBUSY, as libibverbs refuses.
 */
int sim_obj_lock_unused(struct sim_mlx5_dev *dev, const unsigned int *users, const char *by,
			const char *fmt, ...) __dvp_format_printf(4, 5);
/*
 * A destroy call's check, dev->lock held: whether the @p got async events
 * of the object named @p what and @p num are all acked (@p completed, under
 * @p mutex). If not, drop the lock, count the invalid use and return EBUSY
 * (libibverbs would wait for them forever); else 0.
 */
int sim_obj_unacked(struct sim_mlx5_dev *dev, const uint32_t *got, pthread_mutex_t *mutex,
		    const uint32_t *completed, const char *what, uint32_t num);
/*
 * A create call's commit: take dev->lock unless the device has had a fatal
 * error (then errno EIO and return EIO, as the driver's commands fail; the
 * caller frees its object); 0 with the lock held.
 */
int sim_dev_lock_alive(struct sim_mlx5_dev *dev);
bool sim_obj_same_ctx(struct sim_ctx *ctx, const struct sim_ctx *pd_ctx,
		      const struct sim_ctx *cq_ctx, const char *fn);
/* A create call's end, dev->lock held: the object counts in @p ctx; drop the lock. */
void sim_obj_add(struct sim_ctx *ctx);
/*
 * A destroy call's end, dev->lock held: the object (its @p magic) leaves
 * @p ctx's count and is dead to every later call; drop the lock.
 */
void sim_obj_drop(struct sim_ctx *ctx, uint32_t *magic);
void *sim_buf_alloc(size_t size);
void *sim_mem_alloc(struct sim_ctx *ctx, size_t size, struct sim_mem *m);
void sim_mem_free(struct sim_mem *m);
struct sim_mr *sim_mr_lookup(struct sim_mlx5_dev *dev, uint32_t lkey);
struct sim_pd *sim_pd_of(struct ibv_pd *pd, const char *fn);
struct ibv_pd *sim_alloc_pd(struct ibv_context *context);
int sim_dealloc_pd(struct ibv_pd *pd);
struct ibv_mr *sim_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access);
int sim_dereg_mr(struct ibv_mr *mr);

#endif /* SIM_OBJ_H */
