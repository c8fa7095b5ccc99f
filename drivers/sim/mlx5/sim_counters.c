/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Flow counters (ibv_create_counters): points (packets or bytes, at an
 * index) attached statically, before a flow binds the object through an
 * IBV_FLOW_SPEC_ACTION_COUNT spec; frames the flow takes (delivered or
 * dropped) count from then on. As libibverbs and mlx5: no attach once
 * bound (EBUSY), no dynamic attach to a live flow, no destroy while a
 * flow uses it. Values change under dev->lock.
 */

#include <errno.h>
#include <stdlib.h>

#include "sim_dev.h"
#include "sim_obj.h"
#include "sim_steer.h"

static struct sim_counters *counters_of(struct ibv_counters *ibv, const char *fn)
{
	struct sim_counters *c;

	if (ibv == NULL)
		return NULL;
	c = dvp_container_of(ibv, struct sim_counters, ibv);
	if (c->magic != SIM_MAGIC_COUNTERS) {
		DVP_LOG_LINE(ERR, sim_logtype, "", "sim_mlx5: %s: %p is not live counters", fn,
			     (void *)ibv);
		return NULL;
	}
	return c;
}

struct ibv_counters *sim_create_counters(struct ibv_context *ibv,
					 struct ibv_counters_init_attr *attr)
{
	struct sim_ctx *ctx = sim_ctx_of(ibv, __func__);
	struct sim_counters *c;

	if (ctx == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (attr != NULL && attr->comp_mask != 0)
		return sim_refuse(ctx->dev, EOPNOTSUPP,
				  "create_counters: comp_mask 0x%x not supported; valid is 0",
				  attr->comp_mask);
	c = sim_obj_alloc(true, sizeof(*c));
	if (c == NULL)
		return NULL;
	c->ibv.context = ibv;
	c->ctx = ctx;
	if (sim_dev_lock_alive(ctx->dev) != 0) {
		free(c);
		return NULL;
	}
	c->magic = SIM_MAGIC_COUNTERS;
	sim_obj_add(ctx);
	return &c->ibv;
}

int sim_destroy_counters(struct ibv_counters *ibv)
{
	struct sim_counters *c = counters_of(ibv, __func__);

	if (c == NULL)
		return EINVAL;
	if (sim_obj_lock_unused(c->ctx->dev, &c->flows, "flow(s)", "destroy_counters") != 0)
		return EBUSY;
	sim_obj_drop(c->ctx, &c->magic);
	free(c);
	return 0;
}

int sim_attach_counters_point_flow(struct ibv_counters *ibv, struct ibv_counter_attach_attr *attr,
				   struct ibv_flow *flow)
{
	struct sim_counters *c = counters_of(ibv, __func__);
	struct sim_mlx5_dev *dev;
	int ret = 0;

	if (c == NULL || attr == NULL)
		return EINVAL;
	dev = c->ctx->dev;
	if (flow != NULL) {
		SIM_LOG(ERR, dev,
			"attach_counters_point_flow: only a static attach (flow NULL) is supported");
		return EOPNOTSUPP;
	}
	if (attr->counter_desc != IBV_COUNTER_PACKETS && attr->counter_desc != IBV_COUNTER_BYTES) {
		SIM_LOG(ERR, dev,
			"attach_counters_point_flow: counter_desc %d not supported; valid are "
			"PACKETS and BYTES",
			(int)attr->counter_desc);
		return EOPNOTSUPP;
	}
	if (attr->index >= SIM_COUNTERS_MAX || attr->comp_mask != 0) {
		SIM_LOG(ERR, dev,
			"attach_counters_point_flow: index %u, comp_mask 0x%x; valid are 0..%u, 0",
			attr->index, attr->comp_mask, SIM_COUNTERS_MAX - 1);
		return EINVAL;
	}
	pthread_mutex_lock(&dev->lock);
	if (c->flows > 0) {
		SIM_LOG(ERR, dev, "attach_counters_point_flow: the counters are bound to a flow");
		ret = EBUSY;
	} else if (c->npoints == SIM_COUNTERS_MAX) {
		SIM_LOG(ERR, dev, "attach_counters_point_flow: %u points already",
			SIM_COUNTERS_MAX);
		ret = ENOMEM;
	} else {
		c->desc[c->npoints] = attr->counter_desc;
		c->index[c->npoints] = attr->index;
		c->npoints++;
	}
	pthread_mutex_unlock(&dev->lock);
	return ret;
}

int sim_read_counters(struct ibv_counters *ibv, uint64_t *values, uint32_t n, uint32_t flags)
{
	struct sim_counters *c = counters_of(ibv, __func__);

	if (c == NULL || (values == NULL && n != 0) ||
	    (flags & ~(uint32_t)IBV_READ_COUNTERS_ATTR_PREFER_CACHED) != 0)
		return EINVAL;
	pthread_mutex_lock(&c->ctx->dev->lock);
	for (uint32_t i = 0; i < n; i++)
		values[i] = i < SIM_COUNTERS_MAX ? c->values[i] : 0;
	pthread_mutex_unlock(&c->ctx->dev->lock);
	return 0;
}

void sim_counters_hit(struct sim_counters *c, uint32_t len)
{
	for (unsigned int i = 0; i < c->npoints; i++)
		c->values[c->index[i]] += c->desc[i] == IBV_COUNTER_PACKETS ? 1 : len;
}
