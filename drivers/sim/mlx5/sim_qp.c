/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * QPs of the simulated HCA, the two kinds of raw packet QP: a hashing QP
 * (a TIR), which spreads what steering gives it over an indirection table
 * by its Toeplitz hash and takes traffic from creation, and a send QP (an
 * SQ), with the states verbs gives it. A send queue's ring and doorbell
 * record are sized and laid out as libmlx5 does (mlx5_calc_sq_size), so
 * mlx5dv_init_obj answers what a ConnectX would.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sim_cq.h"
#include "sim_dev.h"
#include "sim_event.h"
#include "sim_obj.h"
#include "sim_uar.h"
#include "sim_wq.h"

struct sim_qp *sim_qp_of(struct ibv_qp *qp, const char *fn)
{
	return SIM_OBJ_OF(struct sim_qp, qp, SIM_MAGIC_QP, "QP", fn);
}

static const char *qp_state_name(enum ibv_qp_state s)
{
	static const char *const names[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };

	return (unsigned int)s < DVP_DIM(names) ? names[s] : "UNKNOWN";
}

static int check_hash_qp(struct sim_mlx5_dev *dev, const struct ibv_qp_init_attr_ex *attr)
{
	const uint64_t fields = IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4 | IBV_RX_HASH_SRC_IPV6 |
				IBV_RX_HASH_DST_IPV6 | IBV_RX_HASH_SRC_PORT_TCP |
				IBV_RX_HASH_DST_PORT_TCP | IBV_RX_HASH_SRC_PORT_UDP |
				IBV_RX_HASH_DST_PORT_UDP;
	const struct ibv_rx_hash_conf *h = &attr->rx_hash_conf;

	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_IND_TABLE) ||
	    !(attr->comp_mask & IBV_QP_INIT_ATTR_RX_HASH)) {
		SIM_LOG(ERR, dev,
			"create_qp_ex: a hashing QP needs both IBV_QP_INIT_ATTR_IND_TABLE "
			"and IBV_QP_INIT_ATTR_RX_HASH");
		return EINVAL;
	}
	if (h->rx_hash_function != IBV_RX_HASH_FUNC_TOEPLITZ ||
	    h->rx_hash_key_len != MLX5_RSS_HASH_KEY_LEN || h->rx_hash_key == NULL) {
		SIM_LOG(ERR, dev,
			"create_qp_ex: RSS needs the Toeplitz function and a %u-byte key "
			"(function 0x%x, key length %u)",
			MLX5_RSS_HASH_KEY_LEN, h->rx_hash_function, h->rx_hash_key_len);
		return EINVAL;
	}
	if (h->rx_hash_fields_mask & ~fields) {
		SIM_LOG(ERR, dev,
			"create_qp_ex: hash fields 0x%" PRIx64 " not supported; valid are "
			"the IPv4/IPv6 addresses and TCP/UDP ports (0x%" PRIx64 ")",
			(uint64_t)h->rx_hash_fields_mask, fields);
		return EOPNOTSUPP;
	}
	/* A TIR's field selector names one L3 and one L4 protocol, as the kernel checks. */
	if ((h->rx_hash_fields_mask & (IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4)) &&
	    (h->rx_hash_fields_mask & (IBV_RX_HASH_SRC_IPV6 | IBV_RX_HASH_DST_IPV6))) {
		SIM_LOG(ERR, dev,
			"create_qp_ex: hash fields 0x%" PRIx64 " name IPv4 and IPv6 addresses; "
			"a hashing QP hashes one L3 protocol",
			(uint64_t)h->rx_hash_fields_mask);
		return EINVAL;
	}
	if ((h->rx_hash_fields_mask & (IBV_RX_HASH_SRC_PORT_TCP | IBV_RX_HASH_DST_PORT_TCP)) &&
	    (h->rx_hash_fields_mask & (IBV_RX_HASH_SRC_PORT_UDP | IBV_RX_HASH_DST_PORT_UDP))) {
		SIM_LOG(ERR, dev,
			"create_qp_ex: hash fields 0x%" PRIx64 " name TCP and UDP ports; a "
			"hashing QP hashes one L4 protocol",
			(uint64_t)h->rx_hash_fields_mask);
		return EINVAL;
	}
	if (attr->cap.max_send_wr || attr->cap.max_recv_wr) {
		SIM_LOG(ERR, dev, "create_qp_ex: a hashing QP has no work requests of its own");
		return EINVAL;
	}
	return 0;
}

static int check_send_qp(struct sim_mlx5_dev *dev, const struct ibv_qp_init_attr_ex *attr)
{
	if (attr->comp_mask & ~(uint32_t)IBV_QP_INIT_ATTR_PD) {
		SIM_LOG(ERR, dev,
			"create_qp_ex: comp_mask 0x%x not supported for a send queue "
			"(no TSO, no send ops flags)",
			attr->comp_mask);
		return EOPNOTSUPP;
	}
	if (attr->cap.max_recv_wr || attr->srq != NULL) {
		SIM_LOG(ERR, dev,
			"create_qp_ex: a raw packet QP receives through WQs; give "
			"max_recv_wr 0 and no SRQ");
		return EOPNOTSUPP;
	}
	if (attr->cap.max_send_wr < 1 || attr->cap.max_send_wr > SIM_MAX_WQE ||
	    attr->cap.max_send_sge > SIM_MAX_SGE || attr->cap.max_inline_data > 512) {
		SIM_LOG(ERR, dev,
			"create_qp_ex: max_send_wr %u, max_send_sge %u, max_inline_data "
			"%u; valid are 1..%u, 0..%u and 0..512",
			attr->cap.max_send_wr, attr->cap.max_send_sge, attr->cap.max_inline_data,
			SIM_MAX_WQE, SIM_MAX_SGE);
		return EINVAL;
	}
	return 0;
}

static void qp_free(struct sim_qp *qp)
{
	sim_mem_free(&qp->buf_mem);
	sim_mem_free(&qp->db_mem);
	pthread_mutex_destroy(&qp->ibv.mutex);
	pthread_cond_destroy(&qp->ibv.cond);
	free(qp);
}

/* Size the send queue as libmlx5 does for a raw packet QP. */
static int sq_setup(struct sim_ctx *ctx, struct sim_qp *qp, struct ibv_qp_init_attr_ex *attr)
{
	const uint32_t overhead =
		sizeof(struct mlx5_wqe_ctrl_seg) + sizeof(struct mlx5_wqe_eth_seg);
	uint32_t size = overhead + attr->cap.max_send_sge * MLX5_WSEG_SIZE;
	uint32_t inl = overhead + DVP_ALIGN_CEIL(4u + attr->cap.max_inline_data, MLX5_WSEG_SIZE);
	uint32_t wqe = DVP_ALIGN_CEIL(DVP_MAX(size, inl), MLX5_SEND_WQE_BB);
	uint32_t bytes = dvp_align32pow2(attr->cap.max_send_wr * wqe);

	qp->wqe_cnt = bytes / MLX5_SEND_WQE_BB;
	qp->max_inline = wqe - overhead - 4u;
	qp->sq_buf = sim_mem_alloc(ctx, bytes, &qp->buf_mem);
	qp->dbrec = sim_mem_alloc(ctx, 64, &qp->db_mem);
	if (qp->sq_buf == NULL || qp->dbrec == NULL)
		return ENOMEM;
	attr->cap.max_send_wr = bytes / wqe;
	attr->cap.max_inline_data = qp->max_inline;
	return 0;
}

struct ibv_qp *sim_create_qp_ex(struct ibv_context *context, struct ibv_qp_init_attr_ex *attr)
{
	struct sim_ctx *ctx = sim_ctx_of(context, __func__);
	struct sim_ind *ind = NULL;
	struct sim_cq *cq = NULL;
	struct sim_mlx5_dev *dev;
	struct sim_pd *pd;
	struct sim_qp *qp;
	bool hash;
	int ret;

	if (ctx == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	dev = ctx->dev;
	if (attr->qp_type != IBV_QPT_RAW_PACKET || !(attr->comp_mask & IBV_QP_INIT_ATTR_PD))
		return sim_refuse(dev, EOPNOTSUPP,
				  "create_qp_ex: only IBV_QPT_RAW_PACKET QPs with a PD "
				  "(IBV_QP_INIT_ATTR_PD) exist here (qp_type %d)",
				  attr->qp_type);
	hash = attr->comp_mask & (IBV_QP_INIT_ATTR_IND_TABLE | IBV_QP_INIT_ATTR_RX_HASH);
	ret = hash ? check_hash_qp(dev, attr) : check_send_qp(dev, attr);
	if (ret != 0) {
		errno = ret;
		return NULL;
	}
	pd = sim_pd_of(attr->pd, __func__);
	if (hash)
		ind = sim_ind_of(attr->rwq_ind_tbl, __func__);
	else
		cq = sim_cq_of(attr->send_cq, __func__);
	if (pd == NULL || (hash ? ind == NULL : cq == NULL) ||
	    !sim_obj_same_ctx(ctx, pd->ctx, cq != NULL ? cq->ctx : NULL, __func__) ||
	    (ind != NULL && ind->ctx != ctx) ||
	    (!hash && attr->recv_cq != NULL && attr->recv_cq != attr->send_cq)) {
		if (!hash && attr->recv_cq != NULL && attr->recv_cq != attr->send_cq)
			SIM_LOG(ERR, dev,
				"create_qp_ex: a send queue's recv_cq must be NULL or "
				"its send_cq");
		errno = EINVAL;
		return NULL;
	}
	qp = sim_obj_alloc(true, sizeof(*qp));
	if (qp == NULL)
		return NULL;
	pthread_mutex_init(&qp->ibv.mutex, NULL);
	pthread_cond_init(&qp->ibv.cond, NULL);
	qp->hash = hash;
	if (!hash && sq_setup(ctx, qp, attr) != 0) {
		qp_free(qp);
		errno = ENOMEM;
		return NULL;
	}
	if (sim_dev_lock_alive(dev) != 0) {
		qp_free(qp);
		return NULL;
	}
	qp->ibv.qp_num = dev->next_qpn++ & MLX5_CQE_QPN_MASK;
	if (!hash) {
		qp->uar = sim_uar_alloc(&ctx->uars, true, qp->ibv.qp_num);
		if (qp->uar == NULL) {
			pthread_mutex_unlock(&dev->lock);
			qp_free(qp);
			errno = ENOMEM;
			return NULL;
		}
		qp->cq = cq;
		qp->sq_ci = dev->cfg.wq_start;
		qp->last_pi = qp->sq_ci;
		qp->wqe_fetched = false;
		qp->dbrec[MLX5_SND_DBR] = htobe32(qp->sq_ci);
		cq->users++;
		TAILQ_INSERT_TAIL(&dev->sqs, qp, sq_next);
	} else {
		qp->ind = ind;
		qp->key_len = attr->rx_hash_conf.rx_hash_key_len;
		memcpy(qp->key, attr->rx_hash_conf.rx_hash_key, qp->key_len);
		qp->fields = attr->rx_hash_conf.rx_hash_fields_mask;
		ind->users++;
	}
	qp->magic = SIM_MAGIC_QP;
	qp->ctx = ctx;
	qp->pd = pd;
	qp->ibv.context = context;
	qp->ibv.qp_context = attr->qp_context;
	qp->ibv.pd = attr->pd;
	qp->ibv.send_cq = hash ? NULL : attr->send_cq;
	qp->ibv.recv_cq = hash ? NULL : attr->recv_cq;
	qp->ibv.handle = qp->ibv.qp_num;
	qp->ibv.state = IBV_QPS_RESET;
	qp->ibv.qp_type = IBV_QPT_RAW_PACKET;
	pd->users++;
	sim_obj_add(ctx);
	return &qp->ibv;
}

int sim_modify_qp(struct ibv_qp *ibv, struct ibv_qp_attr *attr, int mask)
{
	struct sim_qp *qp = sim_qp_of(ibv, __func__);
	enum ibv_qp_state cur, next;
	struct sim_mlx5_dev *dev;
	bool ok;

	if (qp == NULL || attr == NULL)
		return EINVAL;
	dev = qp->ctx->dev;
	if (qp->hash) {
		SIM_LOG(ERR, dev,
			"modify_qp: hashing QP %u takes traffic from creation and has "
			"no states to move through",
			qp->ibv.qp_num);
		return EINVAL;
	}
	if (!(mask & IBV_QP_STATE) || (mask & ~(IBV_QP_STATE | IBV_QP_CUR_STATE | IBV_QP_PORT))) {
		SIM_LOG(ERR, dev,
			"modify_qp: attr_mask 0x%x; a raw packet SQ takes IBV_QP_STATE, "
			"IBV_QP_CUR_STATE and IBV_QP_PORT",
			mask);
		return EINVAL;
	}
	pthread_mutex_lock(&dev->lock);
	cur = qp->ibv.state;
	next = attr->qp_state;
	if ((mask & IBV_QP_CUR_STATE) && attr->cur_qp_state != cur) {
		pthread_mutex_unlock(&dev->lock);
		SIM_LOG(ERR, dev, "modify_qp: QP %u is %s, not %s as given", qp->ibv.qp_num,
			qp_state_name(cur), qp_state_name(attr->cur_qp_state));
		return EINVAL;
	}
	ok = next == IBV_QPS_RESET || next == IBV_QPS_ERR ||
	     (next == IBV_QPS_INIT && (cur == IBV_QPS_RESET || cur == IBV_QPS_INIT)) ||
	     (next == IBV_QPS_RTR && cur == IBV_QPS_INIT) ||
	     (next == IBV_QPS_RTS && (cur == IBV_QPS_RTR || cur == IBV_QPS_RTS));
	if (ok && cur == IBV_QPS_RESET && next == IBV_QPS_INIT &&
	    (!(mask & IBV_QP_PORT) || attr->port_num < 1 || attr->port_num > dev->nports)) {
		pthread_mutex_unlock(&dev->lock);
		SIM_LOG(ERR, dev, "modify_qp: RESET -> INIT needs IBV_QP_PORT with a port 1..%u",
			dev->nports);
		return EINVAL;
	}
	if (!ok || dev->fatal) {
		pthread_mutex_unlock(&dev->lock);
		if (dev->fatal)
			return EIO;
		SIM_LOG(ERR, dev,
			"modify_qp: QP %u cannot go from %s to %s (RESET -> INIT -> RTR "
			"-> RTS, any -> ERR or RESET)",
			qp->ibv.qp_num, qp_state_name(cur), qp_state_name(next));
		return EINVAL;
	}
	if (mask & IBV_QP_PORT)
		qp->port = attr->port_num - 1u;
	/*
	 * Into error, the device flushes what is posted; out of it by RESET,
	 * it has flushed what was posted meanwhile (the command waits for it).
	 */
	if ((next == IBV_QPS_ERR && cur != IBV_QPS_ERR && cur != IBV_QPS_RESET) ||
	    (next == IBV_QPS_RESET && cur == IBV_QPS_ERR)) {
		qp->ibv.state = IBV_QPS_ERR;
		sim_tx_flush(qp);
	}
	if (next == IBV_QPS_RESET) {
		/* As libmlx5 and the hardware: counters restart, the record says where. */
		qp->sq_ci = dev->cfg.wq_start;
		qp->last_pi = qp->sq_ci;
		qp->wqe_fetched = false;
		qp->rung = false;
		qp->empw_sent = 0;
		qp->empw_bad_lkey = false;
		__atomic_store_n(&qp->dbrec[MLX5_SND_DBR], htobe32(qp->sq_ci), __ATOMIC_RELEASE);
		/* Relaxed: doorbells of the queue before reset are dropped; nothing rides on them. */
		__atomic_store_n(sim_uar_reg(qp->uar, MLX5_BF_OFFSET), 0, __ATOMIC_RELAXED);
		__atomic_store_n(sim_uar_reg(qp->uar, MLX5_BF_OFFSET + SIM_BF_SIZE), 0,
				 __ATOMIC_RELAXED);
	}
	qp->ibv.state = next;
	pthread_mutex_unlock(&dev->lock);
	return 0;
}

int sim_destroy_qp(struct ibv_qp *ibv)
{
	struct sim_qp *qp = sim_qp_of(ibv, __func__);
	struct sim_mlx5_dev *dev;

	if (qp == NULL)
		return EINVAL;
	dev = qp->ctx->dev;
	if (sim_obj_lock_unused(dev, &qp->flows, "flow rule(s)", "destroy_qp: QP %u",
				qp->ibv.qp_num) != 0)
		return EBUSY;
	if (sim_obj_unacked(dev, &qp->async_got, &qp->ibv.mutex, &qp->ibv.events_completed,
			    "destroy_qp: QP", qp->ibv.qp_num) != 0)
		return EBUSY;
	sim_evq_remove(&qp->ctx->async, &qp->ibv);
	if (qp->hash) {
		qp->ind->users--;
	} else {
		qp->cq->users--;
		TAILQ_REMOVE(&dev->sqs, qp, sq_next);
		sim_uar_kill(dev, qp->uar);
	}
	qp->pd->users--;
	sim_obj_drop(qp->ctx, &qp->magic);
	qp_free(qp);
	return 0;
}
