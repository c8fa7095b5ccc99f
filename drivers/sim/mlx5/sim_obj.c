/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * What every verbs object of the simulated HCA shares: its check on each
 * call, its creation and destruction (errors returned as libibverbs
 * returns them: NULL with errno, or a positive errno), the buffers it
 * shares with the driver; and protection domains and memory regions,
 * their structs filled as the library fills them.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_dev.h"
#include "sim_obj.h"

void *sim_obj_alloc(bool valid, size_t size)
{
	void *p;

	if (!valid) {
		errno = EINVAL;
		return NULL;
	}
	p = calloc(1, size);
	if (p == NULL)
		errno = ENOMEM;
	return p;
}

int sim_obj_lock_unused(struct sim_mlx5_dev *dev, const unsigned int *users, const char *by,
			const char *fmt, ...)
{
	unsigned int n;
	char what[128];
	va_list ap;

	pthread_mutex_lock(&dev->lock);
	n = *users;
	if (n == 0)
		return 0;
	pthread_mutex_unlock(&dev->lock);
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	SIM_LOG(ERR, dev, "%s is still used by %u %s", what, n, by);
	return EBUSY;
}

int sim_obj_unacked(struct sim_mlx5_dev *dev, const uint32_t *got, pthread_mutex_t *mutex,
		    const uint32_t *completed, const char *what, uint32_t num)
{
	/*
	 * Relaxed: a count of the application's own get calls, which a
	 * correct caller has finished (on this thread or joined) before it
	 * destroys the object.
	 */
	uint32_t g = __atomic_load_n(got, __ATOMIC_RELAXED), acked;

	pthread_mutex_lock(mutex);
	acked = *completed;
	pthread_mutex_unlock(mutex);
	if (g == acked)
		return 0;
	pthread_mutex_unlock(&dev->lock);
	sim_invalid(dev, SIM_MLX5_INV_DESTROY_UNACKED, "%s %u has %u async event(s) not acked",
		    what, num, g - acked);
	return EBUSY;
}

/*
 * Whether the PD and CQ a create call was given (their contexts @p pd_ctx
 * and @p cq_ctx; NULL for one not given) are of its context @p ctx: a mix
 * is the driver's bug.
 */
bool sim_obj_same_ctx(struct sim_ctx *ctx, const struct sim_ctx *pd_ctx,
		      const struct sim_ctx *cq_ctx, const char *fn)
{
	if ((pd_ctx != NULL && pd_ctx != ctx) || (cq_ctx != NULL && cq_ctx != ctx)) {
		sim_invalid(ctx->dev, SIM_MLX5_INV_BAD_OBJECT,
			    "%s: a PD or CQ of another context was given", fn);
		return false;
	}
	return true;
}

int sim_dev_lock_alive(struct sim_mlx5_dev *dev)
{
	pthread_mutex_lock(&dev->lock);
	if (!dev->fatal)
		return 0;
	pthread_mutex_unlock(&dev->lock);
	errno = EIO;
	return EIO;
}

void sim_obj_add(struct sim_ctx *ctx)
{
	ctx->objs++;
	pthread_mutex_unlock(&ctx->dev->lock);
}

void sim_obj_drop(struct sim_ctx *ctx, uint32_t *magic)
{
	ctx->objs--;
	*magic = SIM_MAGIC_DEAD;
	pthread_mutex_unlock(&ctx->dev->lock);
}

void *sim_buf_alloc(size_t size)
{
	void *p = NULL;

	size = DVP_ALIGN_CEIL(size, (size_t)64);
	if (posix_memalign(&p, SIM_PAGE_SIZE, size) != 0)
		return NULL;
	memset(p, 0, size);
	return p;
}

void *sim_mem_alloc(struct sim_ctx *ctx, size_t size, struct sim_mem *m)
{
	const struct mlx5dv_ctx_allocators *a = &ctx->alloc;

	memset(m, 0, sizeof(*m));
	size = DVP_ALIGN_CEIL(size, (size_t)64);
	if (a->alloc == NULL) {
		m->addr = sim_buf_alloc(size);
		return m->addr;
	}
	m->addr = a->alloc(size, a->data);
	if (m->addr == NULL)
		return NULL;
	m->free = a->free;
	m->priv = a->data;
	if ((uintptr_t)m->addr & 63) {
		SIM_LOG(ERR, ctx->dev,
			"the application's buffer allocator returned %p, not "
			"64-byte aligned; CQEs and WQEs need it",
			m->addr);
		sim_mem_free(m);
		return NULL;
	}
	memset(m->addr, 0, size);
	return m->addr;
}

void sim_mem_free(struct sim_mem *m)
{
	if (m->addr == NULL)
		return;
	if (m->free != NULL)
		m->free(m->addr, m->priv);
	else
		free(m->addr);
	m->addr = NULL;
}

struct sim_ctx *sim_ctx_of(struct ibv_context *ibv, const char *fn)
{
	return SIM_OBJ_OF(struct sim_ctx, ibv, SIM_MAGIC_CTX, "context", fn);
}

struct sim_pd *sim_pd_of(struct ibv_pd *pd, const char *fn)
{
	return SIM_OBJ_OF(struct sim_pd, pd, SIM_MAGIC_PD, "protection domain", fn);
}

static struct sim_mr *mr_of(struct ibv_mr *mr, const char *fn)
{
	return SIM_OBJ_OF(struct sim_mr, mr, SIM_MAGIC_MR, "memory region", fn);
}

struct ibv_pd *sim_alloc_pd(struct ibv_context *context)
{
	struct sim_ctx *ctx = sim_ctx_of(context, __func__);
	struct sim_pd *pd;

	pd = sim_obj_alloc(ctx != NULL, sizeof(*pd));
	if (pd == NULL)
		return NULL;
	pd->magic = SIM_MAGIC_PD;
	pd->ctx = ctx;
	pd->ibv.context = context;
	pthread_mutex_lock(&ctx->dev->lock);
	pd->ibv.handle = ctx->dev->next_key++;
	sim_obj_add(ctx);
	return &pd->ibv;
}

int sim_dealloc_pd(struct ibv_pd *ibv)
{
	struct sim_pd *pd = sim_pd_of(ibv, __func__);

	if (pd == NULL)
		return EINVAL;
	if (sim_obj_lock_unused(pd->ctx->dev, &pd->users, "MR(s), WQ(s) or QP(s)",
				"dealloc_pd: PD %u", pd->ibv.handle) != 0)
		return EBUSY;
	sim_obj_drop(pd->ctx, &pd->magic);
	free(pd);
	return 0;
}

struct ibv_mr *sim_reg_mr(struct ibv_pd *ibv, void *addr, size_t length, int access)
{
	struct sim_pd *pd = sim_pd_of(ibv, __func__);
	struct sim_mlx5_dev *dev;
	struct sim_mr *mr;
	uint32_t idx, tries;

	if (pd == NULL) {
		errno = EINVAL;
		return NULL;
	}
	dev = pd->ctx->dev;
	if (addr == NULL || length == 0)
		return sim_refuse(dev, EINVAL, "reg_mr: empty region (addr %p, length %zu)", addr,
				  length);
	if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IBV_ACCESS_LOCAL_WRITE))
		return sim_refuse(
			dev, EINVAL,
			"reg_mr: remote write or atomic access needs IBV_ACCESS_LOCAL_WRITE");
	mr = sim_obj_alloc(true, sizeof(*mr));
	if (mr == NULL)
		return NULL;
	pthread_mutex_lock(&dev->lock);
	/* Index 0 unused; lkey = index << 8 | a nonzero variant, never MLX5_INVALID_LKEY. */
	for (tries = 0, idx = 0; tries < SIM_MAX_MR; tries++) {
		idx = dev->next_key++ % SIM_MAX_MR;
		if (idx != 0 && dev->mrs[idx] == NULL)
			break;
	}
	if (tries == SIM_MAX_MR) {
		pthread_mutex_unlock(&dev->lock);
		free(mr);
		SIM_LOG(ERR, dev, "reg_mr: all %u memory regions in use", SIM_MAX_MR - 1);
		errno = ENOMEM;
		return NULL;
	}
	mr->magic = SIM_MAGIC_MR;
	mr->pd = pd;
	mr->access = access;
	mr->index = idx;
	mr->ibv.context = pd->ibv.context;
	mr->ibv.pd = ibv;
	mr->ibv.addr = addr;
	mr->ibv.length = length;
	mr->ibv.handle = idx;
	mr->ibv.lkey = idx << 8 | (1u + (dev->next_key % 255u));
	mr->ibv.rkey = mr->ibv.lkey;
	dev->mrs[idx] = mr;
	pd->users++;
	sim_obj_add(pd->ctx);
	return &mr->ibv;
}

int sim_dereg_mr(struct ibv_mr *ibv)
{
	struct sim_mr *mr = mr_of(ibv, __func__);
	struct sim_mlx5_dev *dev;

	if (mr == NULL)
		return EINVAL;
	dev = mr->pd->ctx->dev;
	pthread_mutex_lock(&dev->lock);
	dev->mrs[mr->index] = NULL;
	mr->pd->users--;
	sim_obj_drop(mr->pd->ctx, &mr->magic);
	free(mr);
	return 0;
}

/* dev->lock held: the engine looks keys up on every data segment. */
struct sim_mr *sim_mr_lookup(struct sim_mlx5_dev *dev, uint32_t lkey)
{
	uint32_t idx = lkey >> 8;
	struct sim_mr *mr;

	if (idx >= SIM_MAX_MR)
		return NULL;
	mr = dev->mrs[idx];
	return mr != NULL && mr->ibv.lkey == lkey ? mr : NULL;
}
