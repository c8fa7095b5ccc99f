/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The glue table of the simulated HCA (mlx5_glue.h): devices and contexts,
 * queries, async events and mlx5dv_init_obj. The objects themselves are in
 * their parts: sim_obj.c (PD, MR), sim_cq.c (CQs, channels), sim_wq.c (WQs,
 * indirection tables), sim_qp.c (QPs) and sim_flow.c.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dvp_errno.h>

#include "sim_cq.h"
#include "sim_dev.h"
#include "sim_event.h"
#include "sim_glue.h"
#include "sim_obj.h"
#include "sim_steer.h"
#include "sim_traffic.h"
#include "sim_uar.h"
#include "sim_wq.h"

static struct ibv_device **sim_get_device_list(int *num)
{
	struct ibv_device **list;
	struct sim_mlx5_dev *dev;
	int n = 0;

	sim_dev_list_lock();
	for (dev = sim_dev_first(); dev != NULL; dev = dev->reg_next)
		n++;
	list = calloc((size_t)n + 1, sizeof(*list));
	if (list != NULL) {
		n = 0;
		for (dev = sim_dev_first(); dev != NULL; dev = dev->reg_next)
			list[n++] = &dev->ibv_dev;
	}
	sim_dev_list_unlock();
	if (list == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	if (num != NULL)
		*num = n;
	return list;
}

static void sim_free_device_list(struct ibv_device **list)
{
	free(list);
}

static const char *sim_get_device_name(struct ibv_device *device)
{
	return device != NULL ? device->name : NULL;
}

static bool sim_dv_is_supported(struct ibv_device *device)
{
	bool ok;

	sim_dev_list_lock();
	ok = device != NULL &&
	     sim_dev_registered(dvp_container_of(device, struct sim_mlx5_dev, ibv_dev));
	sim_dev_list_unlock();
	return ok;
}

static struct ibv_context *sim_open_device(struct ibv_device *device)
{
	struct sim_mlx5_dev *dev = NULL;
	struct sim_ctx *ctx;

	ctx = sim_obj_alloc(true, sizeof(*ctx));
	if (ctx == NULL)
		return NULL;
	if (sim_evq_init(&ctx->async) != 0) {
		free(ctx);
		return NULL;
	}
	/* The list lock keeps the device alive until the context is on it. */
	sim_dev_list_lock();
	if (device != NULL &&
	    sim_dev_registered(dvp_container_of(device, struct sim_mlx5_dev, ibv_dev)))
		dev = dvp_container_of(device, struct sim_mlx5_dev, ibv_dev);
	if (dev == NULL) {
		sim_dev_list_unlock();
		sim_evq_fini(&ctx->async);
		free(ctx);
		DVP_LOG_LINE(ERR, sim_logtype, "",
			     "sim_mlx5: open_device: %s is not a live "
			     "sim_mlx5 device",
			     device != NULL ? device->name : "NULL");
		errno = ENODEV;
		return NULL;
	}
	ctx->magic = SIM_MAGIC_CTX;
	ctx->dev = dev;
	ctx->ibv.device = device;
	ctx->ibv.cmd_fd = -1;
	ctx->ibv.async_fd = ctx->async.fd;
	ctx->ibv.num_comp_vectors = 8;
	pthread_mutex_init(&ctx->ibv.mutex, NULL);
	TAILQ_INIT(&ctx->uars);
	pthread_mutex_lock(&dev->lock);
	TAILQ_INSERT_TAIL(&dev->ctxs, ctx, next);
	pthread_mutex_unlock(&dev->lock);
	sim_dev_list_unlock();
	return &ctx->ibv;
}

static int sim_close_device(struct ibv_context *context)
{
	struct sim_ctx *ctx = sim_ctx_of(context, __func__);
	struct sim_mlx5_dev *dev;

	if (ctx == NULL)
		return EINVAL;
	dev = ctx->dev;
	if (sim_obj_lock_unused(dev, &ctx->objs,
				"object(s); destroy them first (the kernel would reclaim them, "
				"hiding the leak)",
				"close_device: the context") != 0)
		return EBUSY;
	TAILQ_REMOVE(&dev->ctxs, ctx, next);
	sim_uar_free_all(dev, &ctx->uars);
	pthread_mutex_unlock(&dev->lock);
	ctx->magic = SIM_MAGIC_DEAD;
	pthread_mutex_destroy(&ctx->ibv.mutex);
	sim_evq_fini(&ctx->async);
	free(ctx);
	return 0;
}

/*
 * mlx5dv_open_device: a DevX context where the profile has DevX (devx=on),
 * else EOPNOTSUPP as from a kernel without it; flags libmlx5 does not know
 * are refused as it refuses them.
 */
static struct ibv_context *sim_dv_open_device(struct ibv_device *device,
					      struct mlx5dv_context_attr *attr)
{
	struct ibv_context *ibv;
	struct sim_ctx *ctx;

	if (attr != NULL && (attr->flags & ~(uint64_t)MLX5DV_CONTEXT_FLAGS_DEVX)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	ibv = sim_open_device(device);
	if (ibv == NULL || attr == NULL || !(attr->flags & MLX5DV_CONTEXT_FLAGS_DEVX))
		return ibv;
	ctx = dvp_container_of(ibv, struct sim_ctx, ibv);
	if (!ctx->dev->cfg.prof.devx) {
		sim_close_device(ibv);
		errno = EOPNOTSUPP;
		return NULL;
	}
	ctx->devx = true;
	return ibv;
}

static void fill_device_attr(struct sim_mlx5_dev *dev, struct ibv_device_attr *a)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->fw_ver, sizeof(a->fw_ver), "sim_mlx5 %s", "1.0");
	a->node_guid = htobe64(0x0253494d00000000ull | (uint64_t)dev->ports[0].mac[4] << 8);
	a->sys_image_guid = a->node_guid;
	a->max_mr_size = UINT64_MAX;
	a->page_size_cap = 0xfffff000u;
	a->vendor_id = 0x02c9; /* Mellanox */
	a->vendor_part_id = dev->cfg.prof.part_id; /* the PCI device id */
	a->max_qp = 1 << 16;
	a->max_qp_wr = SIM_MAX_WQE;
	a->device_cap_flags = IBV_DEVICE_RAW_IP_CSUM | IBV_DEVICE_PORT_ACTIVE_EVENT;
	a->max_sge = SIM_MAX_SGE;
	a->max_cq = 1 << 16;
	a->max_cqe = (int)(SIM_MAX_CQE - 1);
	a->max_mr = (int)SIM_MAX_MR - 1;
	a->max_pd = 1 << 16;
	a->phys_port_cnt = (uint8_t)dev->nports;
}

static int sim_query_device(struct ibv_context *context, struct ibv_device_attr *attr)
{
	struct sim_ctx *ctx = sim_ctx_of(context, __func__);

	if (ctx == NULL || attr == NULL)
		return EINVAL;
	fill_device_attr(ctx->dev, attr);
	return 0;
}

static int sim_query_device_ex(struct ibv_context *context,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr)
{
	struct sim_ctx *ctx = sim_ctx_of(context, __func__);

	(void)input;
	if (ctx == NULL || attr == NULL)
		return EINVAL;
	memset(attr, 0, sizeof(*attr));
	fill_device_attr(ctx->dev, &attr->orig_attr);
	attr->rss_caps.supported_qpts = 1u << IBV_QPT_RAW_PACKET;
	attr->rss_caps.max_rwq_indirection_tables = 1u << 10;
	attr->rss_caps.max_rwq_indirection_table_size = 1u << SIM_MAX_IND_LOG;
	attr->rss_caps.rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ;
	attr->rss_caps.rx_hash_fields_mask = IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4 |
					     IBV_RX_HASH_SRC_IPV6 | IBV_RX_HASH_DST_IPV6 |
					     IBV_RX_HASH_SRC_PORT_TCP | IBV_RX_HASH_DST_PORT_TCP |
					     IBV_RX_HASH_SRC_PORT_UDP | IBV_RX_HASH_DST_PORT_UDP;
	attr->max_wq_type_rq = 1 << 16;
	attr->tso_caps.max_tso = 1u << SIM_LSO_LOG;
	attr->tso_caps.supported_qpts = 1u << IBV_QPT_RAW_PACKET;
	/* The clock of CQE timestamps: free-running, 64 bits of it (ConnectX-4 and later). */
	attr->hca_core_clock = ctx->dev->cfg.prof.core_clock_khz;
	attr->completion_timestamp_mask = UINT64_MAX;
	if (ctx->dev->cfg.prof.cvlan_strip)
		attr->raw_packet_caps = IBV_RAW_PACKET_CAP_CVLAN_STRIPPING;
	return 0;
}

static int sim_query_rt_values_ex(struct ibv_context *context, struct ibv_values_ex *values)
{
	struct sim_ctx *ctx = sim_ctx_of(context, __func__);

	if (ctx == NULL || values == NULL)
		return EINVAL;
	if (values->comp_mask & ~(uint32_t)IBV_VALUES_MASK_RAW_CLOCK) {
		SIM_LOG(ERR, ctx->dev,
			"query_rt_values_ex: comp_mask 0x%x; the only value is "
			"IBV_VALUES_MASK_RAW_CLOCK",
			values->comp_mask);
		return EOPNOTSUPP;
	}
	/* As libmlx5: the counter's ticks in tv_nsec, not a time. */
	values->raw_clock.tv_sec = 0;
	values->raw_clock.tv_nsec = (long)sim_ticks(ctx->dev);
	return 0;
}

static int sim_dv_query_device(struct ibv_context *context, struct mlx5dv_context *attr)
{
	struct sim_ctx *ctx = sim_ctx_of(context, __func__);
	const struct sim_profile *prof;
	uint64_t asked;

	if (ctx == NULL || attr == NULL)
		return EINVAL;
	/*
	 * As the profile says: multi-packet send WQEs (legacy MPW alone on a
	 * ConnectX-4 Lx, enhanced as well from ConnectX-5 on), CQE compression
	 * and striding RQs. comp_mask comes in as the extras asked about and
	 * goes out as those answered, as libmlx5 does.
	 */
	prof = &ctx->dev->cfg.prof;
	asked = attr->comp_mask;
	memset(attr, 0, sizeof(*attr));
	if (prof->mpw)
		attr->flags |= MLX5DV_CONTEXT_FLAGS_MPW_ALLOWED;
	if (prof->empw)
		attr->flags |= MLX5DV_CONTEXT_FLAGS_ENHANCED_MPW;
	if (asked & MLX5DV_CONTEXT_MASK_STRIDING_RQ) {
		sim_profile_mprq_caps(prof, &attr->striding_rq_caps);
		attr->comp_mask |= MLX5DV_CONTEXT_MASK_STRIDING_RQ;
	}
	if (asked & MLX5DV_CONTEXT_MASK_CQE_COMPRESION) {
		attr->comp_mask |= MLX5DV_CONTEXT_MASK_CQE_COMPRESION;
		attr->cqe_comp_caps.max_num = prof->cqe_comp_max;
		attr->cqe_comp_caps.supported_format =
			prof->cqe_comp_max != 0 ? prof->cqe_comp_formats : 0;
	}
	return 0;
}

static int sim_query_port(struct ibv_context *context, uint8_t port_num, struct ibv_port_attr *attr)
{
	struct sim_ctx *ctx = sim_ctx_of(context, __func__);
	struct sim_mlx5_dev *dev;
	bool up;

	if (ctx == NULL || attr == NULL)
		return EINVAL;
	dev = ctx->dev;
	if (port_num < 1 || port_num > dev->nports) {
		SIM_LOG(ERR, dev, "query_port: port %u does not exist; valid ports are 1..%u",
			port_num, dev->nports);
		return EINVAL;
	}
	pthread_mutex_lock(&dev->lock);
	up = dev->ports[port_num - 1].link_up && !dev->fatal;
	memset(attr, 0, sizeof(*attr));
	attr->state = up ? IBV_PORT_ACTIVE : IBV_PORT_DOWN;
	attr->max_mtu = IBV_MTU_4096;
	attr->active_mtu = IBV_MTU_4096;
	attr->gid_tbl_len = 1;
	attr->max_msg_sz = 1u << 30;
	attr->pkey_tbl_len = 1;
	attr->active_width = 2; /* 4x */
	attr->active_speed = 32; /* EDR-like 25 Gb/s per lane */
	attr->phys_state = up ? 5 : 3; /* LinkUp : Disabled */
	attr->link_layer = IBV_LINK_LAYER_ETHERNET;
	pthread_mutex_unlock(&dev->lock);
	return 0;
}

static int sim_port_out_of_buffer(struct ibv_context *context, uint8_t port_num, uint64_t *count)
{
	struct sim_ctx *ctx = sim_ctx_of(context, __func__);
	struct sim_mlx5_dev *dev;

	if (ctx == NULL || count == NULL)
		return EINVAL;
	dev = ctx->dev;
	if (port_num < 1 || port_num > dev->nports) {
		SIM_LOG(ERR, dev,
			"port_out_of_buffer: port %u does not exist; valid ports are 1..%u",
			port_num, dev->nports);
		return EINVAL;
	}
	pthread_mutex_lock(&dev->lock);
	*count = dev->ports[port_num - 1].st.rx_out_of_buffer;
	pthread_mutex_unlock(&dev->lock);
	return 0;
}

/*
 * Set the port's netdev MTU (what ip link set mtu does on a ConnectX): from
 * the next frame, frames longer than it + 18 are dropped on arrival and
 * counted (rx_oversize), and sends longer are refused.
 */
static int sim_set_port_mtu(struct ibv_context *context, uint8_t port_num, uint32_t mtu)
{
	struct sim_ctx *ctx = sim_ctx_of(context, __func__);
	struct sim_mlx5_dev *dev;

	if (ctx == NULL)
		return EINVAL;
	dev = ctx->dev;
	if (port_num < 1 || port_num > dev->nports || mtu < SIM_MTU_MIN || mtu > SIM_MTU_MAX) {
		SIM_LOG(ERR, dev, "set_port_mtu: port %u, MTU %u; valid: ports 1..%u, MTU %u..%u",
			port_num, mtu, dev->nports, SIM_MTU_MIN, SIM_MTU_MAX);
		return EINVAL;
	}
	pthread_mutex_lock(&dev->lock);
	dev->ports[port_num - 1].mtu = mtu;
	pthread_mutex_unlock(&dev->lock);
	SIM_LOG(INFO, dev, "port %u: MTU %u", port_num, mtu);
	return 0;
}

static int sim_port_rx_length_errors(struct ibv_context *context, uint8_t port_num, uint64_t *count)
{
	struct sim_ctx *ctx = sim_ctx_of(context, __func__);

	if (ctx == NULL || count == NULL || port_num < 1 || port_num > ctx->dev->nports)
		return EINVAL;
	pthread_mutex_lock(&ctx->dev->lock);
	*count = ctx->dev->ports[port_num - 1].st.rx_oversize;
	pthread_mutex_unlock(&ctx->dev->lock);
	return 0;
}

/*
 * The port's counters as device counters: what the wire and the traffic
 * source and sink of the port saw, so that a user reads the sink's verdict
 * among the port's xstats (testpmd's `show port xstats` too).
 */
static const char *const sim_counter_names[] = {
	"sim_source_sent",    "sim_sink_received",     "sim_sink_lost",
	"sim_sink_reordered", "sim_sink_duplicates",   "sim_sink_corrupt",
	"sim_sink_foreign",   "sim_rx_out_of_buffer",  "sim_rx_wire_drops",
	"sim_rx_dropped",     "sim_rx_oversize",       "sim_bus_cqe_bytes",
	"sim_bus_wqe_bytes",  "sim_bus_data_rd_bytes", "sim_bus_data_wr_bytes",
	"sim_bus_doorbells",  "sim_bus_dbrec_updates", "sim_sink_vlan",
	"sim_sink_vlan_tci",
};

#define SIM_COUNTERS_N (sizeof(sim_counter_names) / sizeof(sim_counter_names[0]))

static unsigned int sim_port_counters(struct ibv_context *context, uint8_t port_num,
				      const char **names, uint64_t *values, unsigned int n)
{
	struct sim_ctx *ctx = sim_ctx_of(context, __func__);
	struct sim_mlx5_source_stats src = { 0 };
	struct sim_mlx5_sink_stats sink = { 0 };
	struct sim_mlx5_port_stats ps = { 0 };
	unsigned int sp, i;

	if (ctx == NULL || port_num < 1 || port_num > ctx->dev->nports)
		return 0;
	sp = port_num - 1u;
	if (values != NULL) {
		sim_traffic_totals(&ctx->dev->ports[sp], &src, &sink);
		(void)sim_mlx5_port_stats(ctx->dev, sp, &ps);
	}
	const uint64_t v[SIM_COUNTERS_N] = {
		src.sent,	  sink.received,	sink.lost,
		sink.reordered,	  sink.duplicates,	sink.corrupt,
		sink.foreign,	  ps.rx_out_of_buffer,	ps.rx_wire_drops,
		ps.rx_dropped,	  ps.rx_oversize,	ps.bus_cqe_bytes,
		ps.bus_wqe_bytes, ps.bus_data_rd_bytes, ps.bus_data_wr_bytes,
		ps.bus_doorbells, ps.bus_dbrec_updates, sink.vlan,
		sink.vlan_tci,
	};

	for (i = 0; i < SIM_COUNTERS_N && i < n; i++) {
		if (names != NULL)
			names[i] = sim_counter_names[i];
		if (values != NULL)
			values[i] = v[i];
	}
	return SIM_COUNTERS_N;
}

static const char *sim_port_state_str(enum ibv_port_state state)
{
	static const char *const names[] = {
		[IBV_PORT_NOP] = "NOP",	      [IBV_PORT_DOWN] = "DOWN",
		[IBV_PORT_INIT] = "INIT",     [IBV_PORT_ARMED] = "ARMED",
		[IBV_PORT_ACTIVE] = "ACTIVE", [IBV_PORT_ACTIVE_DEFER] = "ACTIVE_DEFER"
	};

	return (unsigned int)state < DVP_DIM(names) ? names[state] : "invalid state";
}

static int sim_get_port_net(struct ibv_context *context, uint8_t port_num,
			    struct mlx5_glue_port_net *net)
{
	struct sim_ctx *ctx = sim_ctx_of(context, __func__);
	struct sim_port *p;

	if (ctx == NULL || net == NULL)
		return EINVAL;
	if (port_num < 1 || port_num > ctx->dev->nports) {
		SIM_LOG(ERR, ctx->dev,
			"get_port_net: port %u does not exist; valid ports are 1..%u", port_num,
			ctx->dev->nports);
		return EINVAL;
	}
	p = &ctx->dev->ports[port_num - 1];
	memset(net, 0, sizeof(*net));
	pthread_mutex_lock(&ctx->dev->lock);
	memcpy(net->mac, p->mac, 6);
	net->mtu = p->mtu;
	net->max_mtu = SIM_MTU_MAX;
	net->link_up = p->link_up && !ctx->dev->fatal;
	net->speed_mbps = net->link_up ? 100000 : 0;
	pthread_mutex_unlock(&ctx->dev->lock);
	return 0;
}

/*
 * The object an async event is about, if any: its count of events got (the
 * sim's) and the verbs fields that count acks (libibverbs'), which destroy
 * compares.
 */
struct async_obj {
	uint32_t *got;
	uint32_t *acked;
	pthread_mutex_t *mutex;
	pthread_cond_t *cond;
};

static bool async_obj_of(struct ibv_async_event *ev, struct async_obj *o)
{
	switch (ev->event_type) {
	case IBV_EVENT_CQ_ERR: {
		struct sim_cq *cq = dvp_container_of(ev->element.cq, struct sim_cq, ibv);

		*o = (struct async_obj){ &cq->async_got, &cq->ibv.async_events_completed,
					 &cq->ibv.mutex, &cq->ibv.cond };
		return true;
	}
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR: {
		struct sim_qp *qp = dvp_container_of(ev->element.qp, struct sim_qp, ibv);

		*o = (struct async_obj){ &qp->async_got, &qp->ibv.events_completed, &qp->ibv.mutex,
					 &qp->ibv.cond };
		return true;
	}
	case IBV_EVENT_WQ_FATAL: {
		struct sim_wq *wq = dvp_container_of(ev->element.wq, struct sim_wq, ibv);

		*o = (struct async_obj){ &wq->async_got, &wq->ibv.events_completed, &wq->ibv.mutex,
					 &wq->ibv.cond };
		return true;
	}
	default:
		return false;
	}
}

static int sim_get_async_event(struct ibv_context *context, struct ibv_async_event *event)
{
	struct sim_ctx *ctx = sim_ctx_of(context, __func__);
	struct async_obj o;
	struct sim_ev ev;

	if (ctx == NULL || event == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (sim_evq_pop(&ctx->async, &ev) != 0)
		return -1;
	*event = ev.async;
	/* Relaxed: only destroy compares it with the acks, on the application's side. */
	if (async_obj_of(event, &o))
		__atomic_fetch_add(o.got, 1, __ATOMIC_RELAXED);
	return 0;
}

static void sim_ack_async_event(struct ibv_async_event *event)
{
	struct async_obj o;

	if (event == NULL || !async_obj_of(event, &o))
		return;
	pthread_mutex_lock(o.mutex);
	(*o.acked)++;
	pthread_cond_signal(o.cond);
	pthread_mutex_unlock(o.mutex);
}

static int sim_dv_set_context_attr(struct ibv_context *context, enum mlx5dv_set_ctx_attr_type type,
				   void *attr)
{
	struct sim_ctx *ctx = sim_ctx_of(context, __func__);
	const struct mlx5dv_ctx_allocators *a = attr;

	if (ctx == NULL)
		return EINVAL;
	if (type != MLX5DV_CTX_ATTR_BUF_ALLOCATORS) {
		SIM_LOG(ERR, ctx->dev,
			"dv_set_context_attr: type %d not supported; valid is "
			"MLX5DV_CTX_ATTR_BUF_ALLOCATORS",
			(int)type);
		return EOPNOTSUPP;
	}
	if (a == NULL || (a->alloc == NULL) != (a->free == NULL)) {
		SIM_LOG(ERR, ctx->dev, "dv_set_context_attr: give both alloc and free, or neither");
		return EINVAL;
	}
	pthread_mutex_lock(&ctx->dev->lock);
	ctx->alloc = *a;
	pthread_mutex_unlock(&ctx->dev->lock);
	return 0;
}

static int init_cq(struct mlx5dv_obj *obj)
{
	struct sim_cq *cq = sim_cq_of(obj->cq.in, "dv_init_obj");
	struct mlx5dv_cq *out = obj->cq.out;

	if (cq == NULL || out == NULL)
		return EINVAL;
	out->buf = cq->buf;
	out->dbrec = cq->dbrec;
	out->cqe_cnt = cq->cqe_cnt;
	out->cqe_size = MLX5_CQE_SIZE;
	out->cq_uar = cq->uar->page;
	out->cqn = cq->cqn;
	out->comp_mask = 0;
	return 0;
}

static int init_qp(struct mlx5dv_obj *obj)
{
	struct sim_qp *qp = sim_qp_of(obj->qp.in, "dv_init_obj");
	struct mlx5dv_qp *out = obj->qp.out;
	uint64_t asked;

	if (qp == NULL || out == NULL)
		return EINVAL;
	asked = out->comp_mask;
	memset(out, 0, sizeof(*out));
	if (!qp->hash) {
		out->dbrec = qp->dbrec;
		out->sq.buf = qp->sq_buf;
		out->sq.wqe_cnt = qp->wqe_cnt;
		out->sq.stride = MLX5_SEND_WQE_BB;
		out->bf.reg = qp->uar->page + MLX5_BF_OFFSET;
		out->bf.size = SIM_BF_SIZE;
	}
	if (asked & MLX5DV_QP_MASK_RAW_QP_HANDLES) {
		out->comp_mask |= MLX5DV_QP_MASK_RAW_QP_HANDLES;
		if (qp->hash)
			out->tirn = qp->ibv.qp_num;
		else
			out->sqn = out->tisn = qp->ibv.qp_num;
	}
	return 0;
}

static int init_rwq(struct mlx5dv_obj *obj)
{
	struct sim_wq *wq = sim_wq_of(obj->rwq.in, "dv_init_obj");
	struct mlx5dv_rwq *out = obj->rwq.out;

	if (wq == NULL || out == NULL)
		return EINVAL;
	out->buf = wq->buf;
	out->dbrec = wq->dbrec;
	out->wqe_cnt = wq->wqe_cnt;
	out->stride = wq->stride;
	out->comp_mask = 0;
	return 0;
}

static int sim_dv_init_obj(struct mlx5dv_obj *obj, uint64_t type)
{
	const uint64_t known = MLX5DV_OBJ_CQ | MLX5DV_OBJ_QP | MLX5DV_OBJ_RWQ;
	int ret = 0;

	if (obj == NULL)
		return EINVAL;
	if (type & ~known) {
		DVP_LOG_LINE(ERR, sim_logtype, "",
			     "sim_mlx5: dv_init_obj: object types 0x%" PRIx64
			     " not supported; the simulator gives CQ, QP and RWQ",
			     type & ~known);
		return EOPNOTSUPP;
	}
	if (type & MLX5DV_OBJ_CQ)
		ret = init_cq(obj);
	if (ret == 0 && (type & MLX5DV_OBJ_QP))
		ret = init_qp(obj);
	if (ret == 0 && (type & MLX5DV_OBJ_RWQ))
		ret = init_rwq(obj);
	return ret;
}

const struct mlx5_glue sim_glue_ops = {
	.name = "sim_mlx5",
	.get_device_list = sim_get_device_list,
	.free_device_list = sim_free_device_list,
	.get_device_name = sim_get_device_name,
	.dv_is_supported = sim_dv_is_supported,
	.open_device = sim_open_device,
	.dv_open_device = sim_dv_open_device,
	.close_device = sim_close_device,
	.query_device = sim_query_device,
	.query_device_ex = sim_query_device_ex,
	.dv_query_device = sim_dv_query_device,
	.dv_devx_general_cmd = sim_devx_general_cmd,
	.query_port = sim_query_port,
	.port_out_of_buffer = sim_port_out_of_buffer,
	.port_rx_length_errors = sim_port_rx_length_errors,
	.set_port_mtu = sim_set_port_mtu,
	.port_counters = sim_port_counters,
	.port_state_str = sim_port_state_str,
	.get_port_net = sim_get_port_net,
	.alloc_pd = sim_alloc_pd,
	.dealloc_pd = sim_dealloc_pd,
	.reg_mr = sim_reg_mr,
	.dereg_mr = sim_dereg_mr,
	.create_comp_channel = sim_create_comp_channel,
	.destroy_comp_channel = sim_destroy_comp_channel,
	.create_cq = sim_create_cq,
	.dv_create_cq = sim_dv_create_cq,
	.destroy_cq = sim_destroy_cq,
	.get_cq_event = sim_get_cq_event,
	.ack_cq_events = sim_ack_cq_events,
	.create_wq = sim_create_wq,
	.modify_wq = sim_modify_wq,
	.destroy_wq = sim_destroy_wq,
	.dv_create_wq = sim_dv_create_wq,
	.create_rwq_ind_table = sim_create_rwq_ind_table,
	.destroy_rwq_ind_table = sim_destroy_rwq_ind_table,
	.create_qp_ex = sim_create_qp_ex,
	.modify_qp = sim_modify_qp,
	.destroy_qp = sim_destroy_qp,
	.create_flow = sim_create_flow,
	.destroy_flow = sim_destroy_flow,
	.create_counters = sim_create_counters,
	.destroy_counters = sim_destroy_counters,
	.attach_counters_point_flow = sim_attach_counters_point_flow,
	.read_counters = sim_read_counters,
	.dv_create_flow_matcher = sim_dv_create_flow_matcher,
	.dv_destroy_flow_matcher = sim_dv_destroy_flow_matcher,
	.dv_create_flow = sim_dv_create_flow,
	.dv_set_context_attr = sim_dv_set_context_attr,
	.dv_init_obj = sim_dv_init_obj,
	.get_async_event = sim_get_async_event,
	.ack_async_event = sim_ack_async_event,
	.query_rt_values_ex = sim_query_rt_values_ex,
};

const struct mlx5_glue *sim_mlx5_glue(void)
{
	return &sim_glue_ops;
}

/* The PMD knows the sim's devices by their glue table, registered with drivers/common/mlx5. */
__dvp_constructor(DVP_PRIO_DRIVER) static void sim_glue_register(void)
{
	mlx5_glue_register(&sim_glue_ops);
}
