/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Receive WQs of the simulated HCA (IBV_WQT_RQ; striding ones through
 * mlx5dv_create_wq) and their RSS indirection tables, with the states verbs
 * gives a WQ. Buffers and doorbell records are sized and laid out as
 * libmlx5 does (mlx5_calc_rwq_size), so mlx5dv_init_obj answers what a
 * ConnectX would. And what the device reads of a WQ's ring: the WQEs its
 * doorbell record says are posted, and room for the next frame.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim_cq.h"
#include "sim_dev.h"
#include "sim_event.h"
#include "sim_obj.h"
#include "sim_wq.h"

struct sim_wq *sim_wq_of(struct ibv_wq *wq, const char *fn)
{
	return SIM_OBJ_OF(struct sim_wq, wq, SIM_MAGIC_WQ, "WQ", fn);
}

struct sim_ind *sim_ind_of(struct ibv_rwq_ind_table *t, const char *fn)
{
	return SIM_OBJ_OF(struct sim_ind, t, SIM_MAGIC_IND, "indirection table", fn);
}

static void wq_free(struct sim_wq *wq)
{
	sim_mem_free(&wq->buf_mem);
	sim_mem_free(&wq->db_mem);
	pthread_mutex_destroy(&wq->ibv.mutex);
	pthread_cond_destroy(&wq->ibv.cond);
	free(wq);
}

/* A receive WQ, striding when @p mprq is not NULL (its values already checked). */
static struct ibv_wq *wq_create(struct ibv_context *context, struct ibv_wq_init_attr *attr,
				const struct mlx5dv_striding_rq_init_attr *mprq)
{
	struct sim_ctx *ctx = sim_ctx_of(context, __func__);
	struct sim_mlx5_dev *dev;
	struct sim_pd *pd;
	struct sim_cq *cq;
	struct sim_wq *wq;
	uint32_t stride, cnt;
	bool strip;

	if (ctx == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	dev = ctx->dev;
	if (attr->wq_type != IBV_WQT_RQ)
		return sim_refuse(dev, EINVAL, "create_wq: type %d; only IBV_WQT_RQ exists",
				  attr->wq_type);
	if (attr->max_wr < 1 || attr->max_wr > SIM_MAX_WQE || attr->max_sge < 1 ||
	    attr->max_sge > SIM_MAX_SGE)
		return sim_refuse(dev, EINVAL,
				  "create_wq: max_wr %u, max_sge %u; valid are 1..%u and 1..%u",
				  attr->max_wr, attr->max_sge, SIM_MAX_WQE, SIM_MAX_SGE);
	if ((attr->comp_mask & IBV_WQ_INIT_ATTR_FLAGS) &&
	    (attr->create_flags & ~(uint32_t)IBV_WQ_FLAGS_CVLAN_STRIPPING) != 0)
		return sim_refuse(dev, EOPNOTSUPP,
				  "create_wq: create_flags 0x%x not supported (VLAN stripping "
				  "alone, no FCS scatter or padding)",
				  attr->create_flags);
	strip = (attr->comp_mask & IBV_WQ_INIT_ATTR_FLAGS) &&
		(attr->create_flags & IBV_WQ_FLAGS_CVLAN_STRIPPING);
	if (strip && !dev->cfg.prof.cvlan_strip)
		return sim_refuse(dev, EOPNOTSUPP,
				  "create_wq: IBV_WQ_FLAGS_CVLAN_STRIPPING on a device whose "
				  "raw_packet_caps lack CVLAN_STRIPPING (vlan_strip=off)");
	pd = sim_pd_of(attr->pd, __func__);
	cq = sim_cq_of(attr->cq, __func__);
	if (pd == NULL || cq == NULL || !sim_obj_same_ctx(ctx, pd->ctx, cq->ctx, __func__)) {
		errno = EINVAL;
		return NULL;
	}
	wq = sim_obj_alloc(true, sizeof(*wq));
	if (wq == NULL)
		return NULL;
	/* A striding WQE starts with a next segment (libmlx5's mlx5_calc_rwq_size). */
	stride = dvp_align32pow2(
		attr->max_sge * (uint32_t)sizeof(struct mlx5_wqe_data_seg) +
		(mprq != NULL ? (uint32_t)sizeof(struct mlx5_wqe_srq_next_seg) : 0));
	cnt = dvp_align32pow2(attr->max_wr);
	if (cnt * stride < MLX5_SEND_WQE_BB)
		cnt = MLX5_SEND_WQE_BB / stride;
	wq->stride = stride;
	wq->wqe_cnt = cnt;
	wq->max_sge = mprq != NULL ? 1 : stride / (uint32_t)sizeof(struct mlx5_wqe_data_seg);
	wq->cvlan_strip = strip;
	if (mprq != NULL) {
		wq->log_stride_sz = mprq->single_stride_log_num_of_bytes;
		wq->log_stride_num = mprq->single_wqe_log_num_of_strides;
	}
	wq->buf = sim_mem_alloc(ctx, (size_t)cnt * stride, &wq->buf_mem);
	wq->dbrec = sim_mem_alloc(ctx, 64, &wq->db_mem);
	pthread_mutex_init(&wq->ibv.mutex, NULL);
	pthread_cond_init(&wq->ibv.cond, NULL);
	if (wq->buf == NULL || wq->dbrec == NULL) {
		wq_free(wq);
		errno = ENOMEM;
		return NULL;
	}
	if (sim_dev_lock_alive(dev) != 0) {
		wq_free(wq);
		return NULL;
	}
	wq->magic = SIM_MAGIC_WQ;
	wq->ctx = ctx;
	wq->pd = pd;
	wq->cq = cq;
	wq->ci = dev->cfg.wq_start;
	wq->last_pi = wq->ci;
	wq->dbrec[MLX5_RCV_DBR] = htobe32(wq->ci);
	wq->ibv.context = context;
	wq->ibv.wq_context = attr->wq_context;
	wq->ibv.pd = attr->pd;
	wq->ibv.cq = attr->cq;
	wq->ibv.wq_num = dev->next_qpn++ & MLX5_CQE_QPN_MASK;
	wq->ibv.handle = wq->ibv.wq_num;
	wq->ibv.state = IBV_WQS_RESET;
	wq->ibv.wq_type = IBV_WQT_RQ;
	attr->max_wr = cnt;
	attr->max_sge = wq->max_sge;
	pd->users++;
	cq->users++;
	sim_obj_add(ctx);
	return &wq->ibv;
}

struct ibv_wq *sim_create_wq(struct ibv_context *context, struct ibv_wq_init_attr *attr)
{
	return wq_create(context, attr, NULL);
}

struct ibv_wq *sim_dv_create_wq(struct ibv_context *context, struct ibv_wq_init_attr *attr,
				struct mlx5dv_wq_init_attr *dv_attr)
{
	struct sim_ctx *ctx = sim_ctx_of(context, __func__);
	const struct mlx5dv_striding_rq_init_attr *s;
	struct mlx5dv_striding_rq_caps caps;

	if (ctx == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (dv_attr == NULL || dv_attr->comp_mask == 0)
		return wq_create(context, attr, NULL);
	if (dv_attr->comp_mask & ~(uint64_t)MLX5DV_WQ_INIT_ATTR_MASK_STRIDING_RQ)
		return sim_refuse(ctx->dev, EINVAL,
				  "dv_create_wq: comp_mask 0x%llx; the only one known is "
				  "MLX5DV_WQ_INIT_ATTR_MASK_STRIDING_RQ",
				  (unsigned long long)dv_attr->comp_mask);
	s = &dv_attr->striding_rq_attrs;
	sim_profile_mprq_caps(&ctx->dev->cfg.prof, &caps);
	if (s->single_stride_log_num_of_bytes < caps.min_single_stride_log_num_of_bytes ||
	    s->single_stride_log_num_of_bytes > caps.max_single_stride_log_num_of_bytes ||
	    s->single_wqe_log_num_of_strides < caps.min_single_wqe_log_num_of_strides ||
	    s->single_wqe_log_num_of_strides > caps.max_single_wqe_log_num_of_strides)
		return sim_refuse(
			ctx->dev, EINVAL,
			"dv_create_wq: striding RQ of 2^%u-byte strides, 2^%u per WQE; valid are "
			"%u..%u and %u..%u (striding_rq_caps)",
			s->single_stride_log_num_of_bytes, s->single_wqe_log_num_of_strides,
			caps.min_single_stride_log_num_of_bytes,
			caps.max_single_stride_log_num_of_bytes,
			caps.min_single_wqe_log_num_of_strides,
			caps.max_single_wqe_log_num_of_strides);
	if (s->two_byte_shift_en)
		return sim_refuse(ctx->dev, EOPNOTSUPP,
				  "dv_create_wq: two_byte_shift_en is not modelled; give 0");
	if (attr->max_sge != 1)
		return sim_refuse(
			ctx->dev, EINVAL,
			"dv_create_wq: a striding WQE has one data segment over its strides: "
			"max_sge %u, valid is 1",
			attr->max_sge);
	return wq_create(context, attr, s);
}

static const char *wq_state_name(enum ibv_wq_state s)
{
	static const char *const names[] = {
		[IBV_WQS_RESET] = "RESET", [IBV_WQS_RDY] = "RDY", [IBV_WQS_ERR] = "ERR"
	};

	return (unsigned int)s < DVP_DIM(names) ? names[s] : "UNKNOWN";
}

/* ibv_modify_wq's IBV_WQ_ATTR_FLAGS: VLAN stripping on or off, as the device can. */
static int wq_flags_modify(struct sim_wq *wq, uint32_t flags, uint32_t mask)
{
	struct sim_mlx5_dev *dev = wq->ctx->dev;

	if (mask & ~(uint32_t)IBV_WQ_FLAGS_CVLAN_STRIPPING) {
		SIM_LOG(ERR, dev,
			"modify_wq: flags_mask 0x%x; the only flag that changes is "
			"IBV_WQ_FLAGS_CVLAN_STRIPPING",
			mask);
		return EOPNOTSUPP;
	}
	if ((mask & flags & IBV_WQ_FLAGS_CVLAN_STRIPPING) && !dev->cfg.prof.cvlan_strip) {
		sim_refuse(dev, EOPNOTSUPP,
			   "modify_wq: IBV_WQ_FLAGS_CVLAN_STRIPPING on a device whose "
			   "raw_packet_caps lack CVLAN_STRIPPING (vlan_strip=off)");
		return EOPNOTSUPP;
	}
	if (mask & IBV_WQ_FLAGS_CVLAN_STRIPPING) {
		/* Under the lock: the receive engine reads it per frame. */
		pthread_mutex_lock(&dev->lock);
		wq->cvlan_strip = (flags & IBV_WQ_FLAGS_CVLAN_STRIPPING) != 0;
		pthread_mutex_unlock(&dev->lock);
	}
	return 0;
}

int sim_modify_wq(struct ibv_wq *ibv, struct ibv_wq_attr *attr)
{
	struct sim_wq *wq = sim_wq_of(ibv, __func__);
	enum ibv_wq_state cur, next;
	struct sim_mlx5_dev *dev;
	bool ok;

	if (wq == NULL || attr == NULL)
		return EINVAL;
	dev = wq->ctx->dev;
	if (attr->attr_mask &
	    ~(uint32_t)(IBV_WQ_ATTR_STATE | IBV_WQ_ATTR_CURR_STATE | IBV_WQ_ATTR_FLAGS)) {
		SIM_LOG(ERR, dev, "modify_wq: only the state and flags can change (attr_mask 0x%x)",
			attr->attr_mask);
		return EOPNOTSUPP;
	}
	if (attr->attr_mask & IBV_WQ_ATTR_FLAGS) {
		int ret = wq_flags_modify(wq, attr->flags, attr->flags_mask);

		if (ret != 0)
			return ret;
	}
	if (!(attr->attr_mask & IBV_WQ_ATTR_STATE))
		return 0;
	pthread_mutex_lock(&dev->lock);
	cur = wq->ibv.state;
	next = attr->wq_state;
	if ((attr->attr_mask & IBV_WQ_ATTR_CURR_STATE) && attr->curr_wq_state != cur) {
		pthread_mutex_unlock(&dev->lock);
		SIM_LOG(ERR, dev, "modify_wq: WQ %u is %s, not %s as given", wq->ibv.wq_num,
			wq_state_name(cur), wq_state_name(attr->curr_wq_state));
		return EINVAL;
	}
	ok = next == IBV_WQS_RESET || (next == IBV_WQS_RDY && cur != IBV_WQS_ERR) ||
	     (next == IBV_WQS_ERR && cur != IBV_WQS_RESET);
	if (!ok || dev->fatal) {
		pthread_mutex_unlock(&dev->lock);
		if (dev->fatal)
			return EIO;
		SIM_LOG(ERR, dev,
			"modify_wq: WQ %u cannot go from %s to %s (RESET -> RDY -> ERR "
			"-> RESET)",
			wq->ibv.wq_num, wq_state_name(cur), wq_state_name(next));
		return EINVAL;
	}
	/*
	 * Into error, the device flushes what is posted; out of it by RESET,
	 * it has flushed what was posted meanwhile (the command waits for it).
	 */
	if ((next == IBV_WQS_ERR && cur == IBV_WQS_RDY) ||
	    (next == IBV_WQS_RESET && cur == IBV_WQS_ERR))
		sim_wq_flush(NULL, wq);
	if (cur == IBV_WQS_RESET && next == IBV_WQS_RDY) {
		/* As libmlx5: counters restart, the record says where. */
		wq->ci = dev->cfg.wq_start;
		wq->last_pi = wq->ci;
		wq->strd_ci = 0;
		wq->wqe_fetched = false;
		/* Atomic like every access to a record; release, as the driver reads it next. */
		__atomic_store_n(&wq->dbrec[MLX5_RCV_DBR], htobe32(wq->ci), __ATOMIC_RELEASE);
	}
	wq->ibv.state = next;
	pthread_mutex_unlock(&dev->lock);
	return 0;
}

int sim_destroy_wq(struct ibv_wq *ibv)
{
	struct sim_wq *wq = sim_wq_of(ibv, __func__);
	struct sim_mlx5_dev *dev;

	if (wq == NULL)
		return EINVAL;
	dev = wq->ctx->dev;
	if (sim_obj_lock_unused(dev, &wq->ind_refs, "indirection table(s)", "destroy_wq: WQ %u",
				wq->ibv.wq_num) != 0)
		return EBUSY;
	if (sim_obj_unacked(dev, &wq->async_got, &wq->ibv.mutex, &wq->ibv.events_completed,
			    "destroy_wq: WQ", wq->ibv.wq_num) != 0)
		return EBUSY;
	sim_evq_remove(&wq->ctx->async, &wq->ibv);
	wq->pd->users--;
	wq->cq->users--;
	sim_obj_drop(wq->ctx, &wq->magic);
	wq_free(wq);
	return 0;
}

struct ibv_rwq_ind_table *sim_create_rwq_ind_table(struct ibv_context *context,
						   struct ibv_rwq_ind_table_init_attr *attr)
{
	struct sim_ctx *ctx = sim_ctx_of(context, __func__);
	struct sim_mlx5_dev *dev;
	struct sim_ind *ind;
	uint32_t n;

	if (ctx == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	dev = ctx->dev;
	if (attr->log_ind_tbl_size > SIM_MAX_IND_LOG || attr->ind_tbl == NULL)
		return sim_refuse(dev, EINVAL,
				  "create_rwq_ind_table: log size %u; valid is 0..%u with a table",
				  attr->log_ind_tbl_size, SIM_MAX_IND_LOG);
	n = 1u << attr->log_ind_tbl_size;
	ind = calloc(1, sizeof(*ind));
	if (ind != NULL)
		ind->wqs = calloc(n, sizeof(*ind->wqs));
	if (ind == NULL || ind->wqs == NULL) {
		free(ind);
		errno = ENOMEM;
		return NULL;
	}
	for (uint32_t i = 0; i < n; i++) {
		ind->wqs[i] = sim_wq_of(attr->ind_tbl[i], __func__);
		if (ind->wqs[i] == NULL || ind->wqs[i]->ctx != ctx) {
			if (ind->wqs[i] != NULL)
				sim_invalid(dev, SIM_MLX5_INV_BAD_OBJECT,
					    "create_rwq_ind_table: entry %u is a WQ of another "
					    "context",
					    i);
			free(ind->wqs);
			free(ind);
			errno = EINVAL;
			return NULL;
		}
	}
	pthread_mutex_lock(&dev->lock);
	ind->magic = SIM_MAGIC_IND;
	ind->ctx = ctx;
	ind->size = n;
	ind->ibv.context = context;
	ind->ibv.ind_tbl_num = dev->next_qpn++ & MLX5_CQE_QPN_MASK;
	ind->ibv.ind_tbl_handle = (int)ind->ibv.ind_tbl_num;
	for (uint32_t i = 0; i < n; i++)
		ind->wqs[i]->ind_refs++;
	sim_obj_add(ctx);
	return &ind->ibv;
}

int sim_destroy_rwq_ind_table(struct ibv_rwq_ind_table *t)
{
	struct sim_ind *ind = sim_ind_of(t, __func__);

	if (ind == NULL)
		return EINVAL;
	if (sim_obj_lock_unused(ind->ctx->dev, &ind->users, "hashing QP(s)",
				"destroy_rwq_ind_table: table %u", ind->ibv.ind_tbl_num) != 0)
		return EBUSY;
	for (uint32_t i = 0; i < ind->size; i++)
		ind->wqs[i]->ind_refs--;
	sim_obj_drop(ind->ctx, &ind->magic);
	free(ind->wqs);
	free(ind);
	return 0;
}

/* --- What the device reads of a WQ's ring ------------------------------- */

/*
 * WQEs the driver has posted and the device not consumed; -1 when the
 * record is garbage. @p port (NULL: none) counts the record's reads.
 */
static int wq_posted(struct sim_port *port, struct sim_wq *wq)
{
	/* Acquire: the data segments written before the record are visible. */
	uint32_t pi = be32toh(__atomic_load_n(&wq->dbrec[MLX5_RCV_DBR], __ATOMIC_ACQUIRE)) &
		      MLX5_WQ_INDEX_MASK;
	uint32_t n = (pi - wq->ci) & MLX5_WQ_INDEX_MASK;

	if (pi != wq->last_pi) {
		if (port != NULL)
			port->st.bus_dbrec_updates++;
		wq->last_pi = pi;
	}
	if (n > wq->wqe_cnt) {
		if (pi != wq->bad_pi)
			sim_invalid(wq->ctx->dev, SIM_MLX5_INV_RING_OVERRUN,
				    "WQ %u: producer counter 0x%04x is %u WQEs ahead of the device "
				    "(0x%04x) in a ring of %u",
				    wq->ibv.wq_num, pi, n, wq->ci, wq->wqe_cnt);
		wq->bad_pi = pi;
		return -1;
	}
	return (int)n;
}

int sim_wq_room(struct sim_port *port, struct sim_wq *wq, bool hold_ok)
{
	int posted = wq_posted(port, wq), room;

	if (posted < 0) {
		port->st.rx_dropped++;
		return SIM_MLX5_RX_QUEUE_DOWN;
	}
	if (posted == 0) {
		if (hold_ok && port->pause)
			return SIM_RX_HOLD;
		port->st.rx_out_of_buffer++;
		return SIM_MLX5_RX_NO_WQE;
	}
	room = sim_cq_room(wq->cq);
	if (room <= 0) {
		if (room == 0)
			sim_cq_overrun(wq->cq);
		wq->ibv.state = IBV_WQS_ERR;
		port->st.rx_dropped++;
		return SIM_MLX5_RX_CQ_OVERRUN;
	}
	return SIM_MLX5_RX_DELIVERED;
}

void sim_wq_flush(struct sim_port *port, struct sim_wq *wq)
{
	struct sim_mlx5_dev *dev = wq->ctx->dev;
	int posted = wq_posted(port, wq);

	/* A striding WQE the device had started on is flushed as well. */
	if (wq->log_stride_num != 0 && wq->strd_ci != 0)
		posted = DVP_MAX(posted, 1);
	for (; posted > 0; posted--) {
		int room = sim_cq_room(wq->cq);

		if (room == 0)
			sim_cq_overrun(wq->cq);
		if (room > 0) {
			sim_cq_write_error(wq->cq, port, false, MLX5_CQE_SYNDROME_WR_FLUSH_ERR,
					   wq->ibv.wq_num, 0, (uint16_t)wq->ci);
			dev->st.flush_cqes++;
		}
		wq->ci = (wq->ci + 1) & MLX5_WQ_INDEX_MASK;
		wq->strd_ci = 0;
		wq->wqe_fetched = false;
		wq->wqe_addr = NULL;
	}
}
