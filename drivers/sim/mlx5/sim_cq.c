/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * CQs as verbs make them: create_cq, mlx5dv_create_cq (compressing receive
 * completions when asked) and destroy_cq, as libibverbs + libmlx5 present
 * them, with the CQ's buffer, doorbell record and UAR page in the mlx5
 * layouts; and completion channels, with the events the application gets
 * and acks. What the device does with a CQ is in sim_cqe.c.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim_cq.h"
#include "sim_dev.h"
#include "sim_event.h"
#include "sim_obj.h"
#include "sim_uar.h"

/* Every CQE invalid with the owner bit set; the indexes at @p start (cq_start). */
static void ring_init(struct sim_cq *cq, uint32_t start)
{
	for (uint32_t i = 0; i < cq->cqe_cnt; i++) {
		struct mlx5_cqe64 *cqe = &cq->buf[i];

		memset(cqe, 0, sizeof(*cqe));
		cqe->op_own = MLX5_CQE_OP_OWN_INIT;
	}
	cq->pi = cq->ci = start & MLX5_CQ_INDEX_MASK;
	cq->dbrec[MLX5_CQ_SET_CI] = htobe32(cq->pi);
	cq->dbrec[MLX5_CQ_ARM_DB] = 0;
	cq->sn = 0;
	cq->armed = false;
}

struct sim_cq *sim_cq_of(struct ibv_cq *cq, const char *fn)
{
	return SIM_OBJ_OF(struct sim_cq, cq, SIM_MAGIC_CQ, "CQ", fn);
}

static struct sim_channel *channel_of(struct ibv_comp_channel *ch, const char *fn)
{
	return SIM_OBJ_OF(struct sim_channel, ch, SIM_MAGIC_CHANNEL, "completion channel", fn);
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
	ring_init(cq, dev->cfg.cq_start);
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
		const struct sim_profile *prof = &ctx->dev->cfg.prof;
		uint8_t f = dv_attr->cqe_comp_res_format;
		uint32_t offered = prof->cqe_comp_max != 0 ? prof->cqe_comp_formats : 0;

		/* One format, among those dv_query_device reports (as libmlx5 checks). */
		if (f == 0 || (f & (f - 1)) != 0 || (f & ~offered) != 0)
			return sim_refuse(
				ctx->dev, EINVAL,
				"dv_create_cq: compressed CQEs of format 0x%x; valid is "
				"one of 0x%x (MLX5DV_CQE_RES_FORMAT_HASH 0x1, _CSUM 0x2)%s",
				f, offered,
				offered == 0 ? ", none on this device (cqe_comp=0)" : "");
		comp_max = prof->cqe_comp_max;
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
