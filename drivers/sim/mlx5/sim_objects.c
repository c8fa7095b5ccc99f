/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Protection domains, memory regions, completion channels and CQs of the
 * simulated HCA, as libibverbs + libmlx5 present them: verbs structs filled
 * as the library fills them, errors returned as it returns them (NULL with
 * errno, or a positive errno), and the CQ's buffer, doorbell record and UAR
 * page in the mlx5 layouts.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_mlx5.h"

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

struct sim_pd *sim_pd_of(struct ibv_pd *pd, const char *fn)
{
	return SIM_OBJ_OF(struct sim_pd, pd, SIM_MAGIC_PD, "protection domain", fn);
}

struct sim_cq *sim_cq_of(struct ibv_cq *cq, const char *fn)
{
	return SIM_OBJ_OF(struct sim_cq, cq, SIM_MAGIC_CQ, "CQ", fn);
}

struct sim_wq *sim_wq_of(struct ibv_wq *wq, const char *fn)
{
	return SIM_OBJ_OF(struct sim_wq, wq, SIM_MAGIC_WQ, "WQ", fn);
}

struct sim_qp *sim_qp_of(struct ibv_qp *qp, const char *fn)
{
	return SIM_OBJ_OF(struct sim_qp, qp, SIM_MAGIC_QP, "QP", fn);
}

static struct sim_channel *channel_of(struct ibv_comp_channel *ch, const char *fn)
{
	return SIM_OBJ_OF(struct sim_channel, ch, SIM_MAGIC_CHANNEL, "completion channel", fn);
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

struct ibv_comp_channel *sim_create_comp_channel(struct ibv_context *context)
{
	struct sim_ctx *ctx = sim_ctx_of(context, __func__);
	struct sim_channel *ch;

	ch = sim_obj_alloc(ctx != NULL, sizeof(*ch));
	if (ch == NULL)
		return NULL;
	if (sim_evq_init(&ch->q) != 0) {
		free(ch);
		return NULL;
	}
	ch->magic = SIM_MAGIC_CHANNEL;
	ch->ctx = ctx;
	ch->ibv.context = context;
	ch->ibv.fd = ch->q.fd;
	pthread_mutex_lock(&ctx->dev->lock);
	sim_obj_add(ctx);
	return &ch->ibv;
}

int sim_destroy_comp_channel(struct ibv_comp_channel *ibv)
{
	struct sim_channel *ch = channel_of(ibv, __func__);

	if (ch == NULL)
		return EINVAL;
	if (sim_obj_lock_unused(ch->ctx->dev, &ch->cqs, "CQ(s)", "destroy_comp_channel: channel %d",
				ch->ibv.fd) != 0)
		return EBUSY;
	sim_obj_drop(ch->ctx, &ch->magic);
	sim_evq_fini(&ch->q);
	free(ch);
	return 0;
}

static void cq_free(struct sim_cq *cq)
{
	sim_mem_free(&cq->buf_mem);
	sim_mem_free(&cq->db_mem);
	free(cq->slot_flags);
	pthread_mutex_destroy(&cq->ibv.mutex);
	pthread_cond_destroy(&cq->ibv.cond);
	free(cq);
}

/* create_cq and dv_create_cq: @p comp_max 0 or the compressed sessions' length, of @p fmt. */
static struct sim_cq *cq_create(struct ibv_context *context, int cqe, void *cq_context,
				struct ibv_comp_channel *channel, int comp_vector,
				uint32_t comp_max, uint8_t fmt)
{
	struct sim_ctx *ctx = sim_ctx_of(context, "create_cq");
	struct sim_channel *ch = NULL;
	struct sim_mlx5_dev *dev;
	struct sim_cq *cq;
	uint32_t cnt;

	if (ctx == NULL) {
		errno = EINVAL;
		return NULL;
	}
	dev = ctx->dev;
	if (cqe < 1 || (uint32_t)cqe > SIM_MAX_CQE - 1)
		return sim_refuse(dev, EINVAL, "create_cq: %d CQEs asked; valid is 1..%u", cqe,
				  SIM_MAX_CQE - 1);
	if (comp_vector < 0 || comp_vector >= context->num_comp_vectors)
		return sim_refuse(dev, EINVAL, "create_cq: completion vector %d; valid is 0..%d",
				  comp_vector, context->num_comp_vectors - 1);
	if (channel != NULL) {
		ch = channel_of(channel, "create_cq");
		if (ch == NULL || ch->ctx != ctx) {
			if (ch != NULL)
				sim_invalid(dev, SIM_MLX5_INV_BAD_OBJECT,
					    "create_cq with a channel of another context");
			errno = EINVAL;
			return NULL;
		}
	}
	cq = sim_obj_alloc(true, sizeof(*cq));
	if (cq == NULL)
		return NULL;
	/* As libmlx5: a power of two above the count asked, one slot kept empty. */
	cnt = dvp_align32pow2((uint32_t)cqe + 1);
	cq->cqe_cnt = cnt;
	cq->buf = sim_mem_alloc(ctx, (size_t)cnt * MLX5_CQE_SIZE, &cq->buf_mem);
	cq->dbrec = sim_mem_alloc(ctx, 64, &cq->db_mem);
	cq->slot_flags = calloc(cnt, 1);
	pthread_mutex_init(&cq->ibv.mutex, NULL);
	pthread_cond_init(&cq->ibv.cond, NULL);
	if (cq->buf == NULL || cq->dbrec == NULL || cq->slot_flags == NULL) {
		cq_free(cq);
		errno = ENOMEM;
		return NULL;
	}
	if (sim_dev_lock_alive(dev) != 0) {
		cq_free(cq);
		return NULL;
	}
	cq->cqn = dev->next_cqn++ & MLX5_CQ_INDEX_MASK;
	cq->uar = sim_uar_alloc(&ctx->uars, false, cq->cqn);
	if (cq->uar == NULL) {
		pthread_mutex_unlock(&dev->lock);
		cq_free(cq);
		errno = ENOMEM;
		return NULL;
	}
	cq->magic = SIM_MAGIC_CQ;
	cq->ctx = ctx;
	cq->ch = ch;
	cq->ibv.context = context;
	cq->ibv.channel = channel;
	cq->ibv.cq_context = cq_context;
	cq->ibv.handle = cq->cqn;
	cq->ibv.cqe = (int)cnt - 1;
	cq->stall = dev->cfg.cq_stall_cqn == cq->cqn;
	cq->comp_max = comp_max;
	cq->comp_fmt = fmt;
	sim_cq_init_ring(cq, dev->cfg.cq_start);
	TAILQ_INSERT_TAIL(&dev->cqs, cq, next);
	if (ch != NULL) {
		ch->cqs++;
		channel->refcnt++;
	}
	sim_obj_add(ctx);
	return cq;
}

struct ibv_cq *sim_create_cq(struct ibv_context *context, int cqe, void *cq_context,
			     struct ibv_comp_channel *channel, int comp_vector)
{
	struct sim_cq *cq = cq_create(context, cqe, cq_context, channel, comp_vector, 0, 0);

	return cq != NULL ? &cq->ibv : NULL;
}

/*
 * mlx5dv_create_cq: as create_cq, with CQE compression when asked
 * (MLX5DV_CQ_INIT_ATTR_MASK_COMPRESSED_CQE and one format the device
 * reports), refused with EINVAL otherwise as libmlx5 refuses it. The
 * ibv_cq_ex it gives is for ibv_cq_ex_to_cq(): its poll functions are unset.
 */
struct ibv_cq_ex *sim_dv_create_cq(struct ibv_context *context, struct ibv_cq_init_attr_ex *attr,
				   struct mlx5dv_cq_init_attr *dv_attr)
{
	const uint64_t known =
		MLX5DV_CQ_INIT_ATTR_MASK_COMPRESSED_CQE | MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE;
	struct sim_ctx *ctx = sim_ctx_of(context, __func__);
	uint32_t comp_max = 0;
	struct sim_cq *cq;
	uint8_t fmt = 0;

	if (ctx == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (attr->wc_flags != 0 || attr->comp_mask != 0 || attr->flags != 0)
		return sim_refuse(
			ctx->dev, EOPNOTSUPP,
			"dv_create_cq: wc_flags 0x%llx, comp_mask 0x%x, flags 0x%x: the simulator "
			"gives no ibv_cq_ex polling; valid is 0 for each (poll the CQ through "
			"mlx5dv_init_obj)",
			(unsigned long long)attr->wc_flags, attr->comp_mask, attr->flags);
	if (dv_attr != NULL && (dv_attr->comp_mask & ~known) != 0)
		return sim_refuse(
			ctx->dev, EOPNOTSUPP,
			"dv_create_cq: comp_mask 0x%llx; the simulator takes COMPRESSED_CQE and "
			"CQE_SIZE (64)",
			(unsigned long long)dv_attr->comp_mask);
	if (dv_attr != NULL && (dv_attr->comp_mask & MLX5DV_CQ_INIT_ATTR_MASK_CQE_SIZE) &&
	    dv_attr->cqe_size != MLX5_CQE_SIZE)
		return sim_refuse(ctx->dev, EINVAL, "dv_create_cq: %u-byte CQEs; valid is 64",
				  dv_attr->cqe_size);
	if (dv_attr != NULL && (dv_attr->comp_mask & MLX5DV_CQ_INIT_ATTR_MASK_COMPRESSED_CQE)) {
		uint8_t f = dv_attr->cqe_comp_res_format;

		/* One format, among those dv_query_device reports (as libmlx5 checks). */
		if (ctx->dev->cfg.cqe_comp_max == 0 || f == 0 || (f & (f - 1)) != 0 ||
		    (f & ~SIM_CQE_COMP_FORMATS) != 0)
			return sim_refuse(
				ctx->dev, EINVAL,
				"dv_create_cq: compressed CQEs of format 0x%x; valid is one of "
				"0x%x (MLX5DV_CQE_RES_FORMAT_HASH 0x1, _CSUM 0x2)%s",
				f, ctx->dev->cfg.cqe_comp_max != 0 ? SIM_CQE_COMP_FORMATS : 0,
				ctx->dev->cfg.cqe_comp_max == 0 ?
					", none on this device (cqe_comp=0)" :
					"");
		comp_max = ctx->dev->cfg.cqe_comp_max;
		fmt = f == MLX5DV_CQE_RES_FORMAT_HASH ? MLX5_MINI_CQE_HASH : MLX5_MINI_CQE_CSUM;
	}
	cq = cq_create(context, (int)DVP_MIN(attr->cqe, (uint32_t)INT32_MAX), attr->cq_context,
		       attr->channel, (int)DVP_MIN(attr->comp_vector, (uint32_t)INT32_MAX),
		       comp_max, fmt);
	return cq != NULL ? &cq->ibv_ex : NULL;
}

int sim_destroy_cq(struct ibv_cq *ibv)
{
	struct sim_cq *cq = sim_cq_of(ibv, __func__);
	uint32_t got, acked, agot, aacked;
	struct sim_mlx5_dev *dev;

	if (cq == NULL)
		return EINVAL;
	dev = cq->ctx->dev;
	if (sim_obj_lock_unused(dev, &cq->users, "WQ(s) or QP(s)", "destroy_cq: CQ %u", cq->cqn) !=
	    0)
		return EBUSY;
	/*
	 * Relaxed: counts of the application's own get calls, which a correct
	 * caller has finished (on this thread or joined) before destroying.
	 */
	got = __atomic_load_n(&cq->events_got, __ATOMIC_RELAXED);
	pthread_mutex_lock(&cq->ibv.mutex);
	acked = cq->ibv.comp_events_completed;
	aacked = cq->ibv.async_events_completed;
	pthread_mutex_unlock(&cq->ibv.mutex);
	agot = __atomic_load_n(&cq->async_got, __ATOMIC_RELAXED);
	if (got != acked || agot != aacked) {
		pthread_mutex_unlock(&dev->lock);
		sim_invalid(dev, SIM_MLX5_INV_DESTROY_UNACKED,
			    "destroy_cq: CQ %u has %u completion and %u async event(s) got but not "
			    "acked; libibverbs would wait for them forever",
			    cq->cqn, got - acked, agot - aacked);
		return EBUSY;
	}
	/* Events raised but not yet read vanish with the CQ, as the kernel drops them. */
	if (cq->ch != NULL) {
		sim_evq_remove(&cq->ch->q, &cq->ibv);
		cq->ch->cqs--;
		cq->ch->ibv.refcnt--;
	}
	sim_evq_remove(&cq->ctx->async, &cq->ibv);
	TAILQ_REMOVE(&dev->cqs, cq, next);
	sim_uar_kill(dev, cq->uar);
	sim_obj_drop(cq->ctx, &cq->magic);
	cq_free(cq);
	return 0;
}

int sim_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cqp, void **cq_context)
{
	struct sim_channel *ch = channel_of(channel, __func__);
	struct sim_cq *cq;
	struct sim_ev ev;

	if (ch == NULL || cqp == NULL || cq_context == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (sim_evq_pop(&ch->q, &ev) != 0)
		return -1;
	cq = dvp_container_of(ev.cq, struct sim_cq, ibv);
	*cqp = &cq->ibv;
	*cq_context = cq->ibv.cq_context;
	/* Relaxed: compared with the acks only by destroy_cq, on the application's side. */
	__atomic_fetch_add(&cq->events_got, 1, __ATOMIC_RELAXED);
	return 0;
}

/* As libibverbs: the ack count is kept in the verbs CQ under its mutex. */
void sim_ack_cq_events(struct ibv_cq *ibv, unsigned int nevents)
{
	struct sim_cq *cq = sim_cq_of(ibv, __func__);

	if (cq == NULL || nevents == 0)
		return;
	pthread_mutex_lock(&cq->ibv.mutex);
	cq->ibv.comp_events_completed += nevents;
	pthread_cond_signal(&cq->ibv.cond);
	pthread_mutex_unlock(&cq->ibv.mutex);
}
