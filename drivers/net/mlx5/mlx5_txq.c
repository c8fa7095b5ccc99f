/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Transmit queues of the mlx5 PMD: per queue a CQ and a raw packet QP whose
 * send queue the PMD writes directly (mlx5dv_init_obj gives its buffer,
 * doorbell record and BlueFlame register). A completion is asked for every
 * comp_thresh WQEs, so the CQ is small.
 *
 * Life: setup creates CQ and QP (RESET); start moves the QP to RTS; stop
 * drains it (tx_drain()), resets it and frees the packets; release
 * destroys both. After an error CQE the QP is reset and brought back to
 * RTS; a restart (a CQ overrun, an async queue error) builds both anew.
 * Every packet the queue took is sent, or counted in oerrors: those the
 * device had not sent when a stop or a restart gave them up also in
 * dropped_on_reset.
 */

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <dvp_cycles.h>
#include <dvp_errno.h>
#include <dvp_malloc.h>

#include "mlx5.h"
#include "mlx5_tx.h"

static int qp_modify(struct mlx5_txq *txq, enum ibv_qp_state state)
{
	static const char *const names[] = { "RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR" };
	struct ibv_qp_attr a;
	int mask = IBV_QP_STATE, ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = state;
	if (state == IBV_QPS_INIT) {
		a.port_num = txq->priv->port_num;
		mask |= IBV_QP_PORT;
	}
	ret = txq->priv->dev->glue->modify_qp(txq->qp, &a, mask);
	if (ret != 0) {
		MLX5_PLOG(ERR, txq->port, "tx queue %u: modify_qp to %s: %s", txq->owner.queue_id,
			  (unsigned int)state < DVP_DIM(names) ? names[state] : "?",
			  dvp_strerror(ret));
		return dvp_err(ret);
	}
	return 0;
}

/* RESET -> INIT -> RTR -> RTS, then the counters from the record. */
static int qp_ready(struct mlx5_txq *txq)
{
	int ret = qp_modify(txq, IBV_QPS_INIT);

	if (ret == 0)
		ret = qp_modify(txq, IBV_QPS_RTR);
	if (ret == 0)
		ret = qp_modify(txq, IBV_QPS_RTS);
	return ret;
}

/* The send counters restart at the record's value after creation or a reset. */
static void counters_reset(struct mlx5_txq *txq)
{
	uint32_t base = be32toh(__atomic_load_n(&txq->sq_db[MLX5_SND_DBR], __ATOMIC_ACQUIRE)) &
			MLX5_WQ_INDEX_MASK;

	txq->wqe_ci = txq->wqe_tail = txq->comp_wqe = base;
	txq->comp_elts = txq->elts_head;
	txq->comp_pi = txq->cq_ci;
}

/* Drop every CQE software owns (flushes after an error, leftovers at stop). */
static void cq_drain(struct mlx5_txq *txq)
{
	uint32_t n = 0;

	for (;;) {
		const struct mlx5_cqe64 *cqe = mlx5_cqe_slot(txq->cqes, txq->cqe_cnt, txq->cq_ci);

		if (!mlx5_cqe_sw_owned(mlx5_cqe_op_own_load(cqe), txq->cq_ci, txq->cqe_cnt))
			break;
		txq->cq_ci++;
		n++;
	}
	if (n > 0)
		mlx5_cq_set_ci(txq->cq_db, txq->cq_ci);
}

void mlx5_tx_free_elts(struct mlx5_txq *txq, uint32_t upto)
{
	uint32_t tail = txq->elts_tail, n = upto - tail;

	while (n > 0) {
		uint32_t idx = tail & txq->elts_mask, k = DVP_MIN(n, txq->elts_n - idx);

		struct dvp_mbuf **e = &txq->elts[idx];
		struct dvp_mempool *mp = e[0]->pool;
		uint32_t j = 0;

		/*
		 * Straight back to the pool when every one is a lone segment of
		 * the same pool with no other owner (always so with
		 * MBUF_FAST_FREE), else mbuf by mbuf.
		 */
		/*
		 * The fast path saw them lone, unshared segments of simple_pool
		 * when it sent them (a reference count of 1 cannot grow: nobody
		 * else holds the mbuf): straight back. Else check each.
		 */
		if (!txq->fast_free && (int32_t)(tail - txq->last_complex) >= 0 &&
		    mp == txq->simple_pool)
			j = k;
		else if (!txq->fast_free)
			while (j < k && dvp_mbuf_refcnt_read(e[j]) == 1 && e[j]->next == NULL &&
			       e[j]->pool == mp)
				j++;
		if (txq->fast_free || j == k)
			dvp_mempool_put_bulk(mp, (void *const *)e, k);
		else
			dvp_pktmbuf_free_bulk(e, k);
		tail += k;
		n -= k;
	}
	txq->elts_tail = upto;
}

static int objs_create(struct mlx5_txq *txq)
{
	const struct mlx5_glue *g = txq->priv->dev->glue;
	struct ibv_context *ctx = txq->priv->dev->ctx;
	struct ibv_qp_init_attr_ex qa;
	struct mlx5dv_obj obj;
	int ret;

	/* The rings of this queue's objects on its node (mlx5_probe.c's allocator). */
	txq->priv->dev->alloc_socket = txq->socket;
	errno = 0;
	txq->cq = g->create_cq(ctx, (int)txq->cqe_req, &txq->owner, NULL, 0);
	if (txq->cq == NULL) {
		ret = errno ? errno : ENOMEM;
		MLX5_PLOG(ERR, txq->port, "tx queue %u: create_cq of %u entries: %s",
			  txq->owner.queue_id, txq->cqe_req, dvp_strerror(ret));
		return dvp_err(ret);
	}
	memset(&qa, 0, sizeof(qa));
	qa.qp_context = &txq->owner;
	qa.send_cq = txq->cq;
	qa.recv_cq = txq->cq;
	qa.qp_type = IBV_QPT_RAW_PACKET;
	qa.cap.max_send_wr = txq->nb_desc;
	qa.cap.max_send_sge = 1;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD;
	qa.pd = txq->priv->dev->pd;
	txq->qp = g->create_qp_ex(ctx, &qa);
	if (txq->qp == NULL) {
		ret = errno ? errno : ENOMEM;
		MLX5_PLOG(ERR, txq->port, "tx queue %u: create_qp_ex (raw packet, %u WQEs): %s%s",
			  txq->owner.queue_id, txq->nb_desc, dvp_strerror(ret),
			  ret == EPERM ? " (raw packet QPs need CAP_NET_RAW)" : "");
		goto err_cq;
	}
	memset(&obj, 0, sizeof(obj));
	obj.cq.in = txq->cq;
	obj.cq.out = &txq->dv_cq;
	obj.qp.in = txq->qp;
	obj.qp.out = &txq->dv_qp;
	ret = g->dv_init_obj(&obj, MLX5DV_OBJ_CQ | MLX5DV_OBJ_QP);
	if (ret != 0) {
		MLX5_PLOG(ERR, txq->port, "tx queue %u: mlx5dv_init_obj: %s", txq->owner.queue_id,
			  dvp_strerror(ret));
		goto err_qp;
	}
	if (txq->dv_cq.cqe_size != MLX5_CQE_SIZE || txq->dv_qp.sq.stride != MLX5_SEND_WQE_BB ||
	    !dvp_is_power_of_2(txq->dv_qp.sq.wqe_cnt) || txq->dv_qp.sq.wqe_cnt < txq->nb_desc ||
	    txq->dv_qp.sq.wqe_cnt / txq->comp_thresh + 2 > txq->dv_cq.cqe_cnt) {
		MLX5_PLOG(ERR, txq->port,
			  "tx queue %u: the device gave %u-byte CQEs (%u) and %u send blocks of %u "
			  "bytes; the datapath takes 64-byte CQEs and 64-byte blocks",
			  txq->owner.queue_id, txq->dv_cq.cqe_size, txq->dv_cq.cqe_cnt,
			  txq->dv_qp.sq.wqe_cnt, txq->dv_qp.sq.stride);
		ret = ENOTSUP;
		goto err_qp;
	}
	txq->cqes = txq->dv_cq.buf;
	txq->cq_db = txq->dv_cq.dbrec;
	txq->cqe_cnt = txq->dv_cq.cqe_cnt;
	txq->cq_ci = be32toh(txq->cq_db[MLX5_CQ_SET_CI]) & MLX5_CQ_INDEX_MASK;
	txq->sq = txq->dv_qp.sq.buf;
	txq->sq_db = txq->dv_qp.dbrec;
	txq->bf_reg = txq->dv_qp.bf.reg;
	txq->wqe_n = txq->dv_qp.sq.wqe_cnt;
	txq->comp_wqe_thresh = DVP_MAX(txq->comp_thresh, txq->wqe_n / MLX5_TX_COMP_WQE_DIV);
	txq->wqe_mask = txq->wqe_n - 1;
	txq->sqn = txq->qp->qp_num;
	txq->qpn_ds_fast = htobe32(txq->sqn << MLX5_WQE_QPN_SHIFT | 4);
	counters_reset(txq);
	return 0;
err_qp:
	g->destroy_qp(txq->qp);
	txq->qp = NULL;
err_cq:
	g->destroy_cq(txq->cq);
	txq->cq = NULL;
	return dvp_err(ret);
}

static void objs_destroy(struct mlx5_txq *txq)
{
	const struct mlx5_glue *g = txq->priv->dev->glue;
	uint16_t q = txq->owner.queue_id;

	if (txq->qp != NULL) {
		mlx5_queue_destroyed(txq->port, true, q, "destroy_qp", g->destroy_qp(txq->qp));
		txq->qp = NULL;
	}
	if (txq->cq != NULL) {
		mlx5_queue_destroyed(txq->port, true, q, "destroy_cq", g->destroy_cq(txq->cq));
		txq->cq = NULL;
	}
}

/*
 * Packets of the eMPW WQE at basic block @p bb of @p ds units: one per
 * pointer segment, one per inline segment (of its own length, padded to
 * 16; 0 bytes is padding), its units read across the end of the ring.
 */
static uint32_t empw_pkts(const struct mlx5_txq *txq, uint32_t bb, uint32_t ds)
{
	uint32_t n = 0, u = MLX5_EMPW_TITLE_DS;

	while (u < ds) {
		const uint8_t *seg = mlx5_tx_wqe(txq, bb + u / 4) + (u % 4) * MLX5_WSEG_SIZE;
		uint32_t bc;

		memcpy(&bc, seg, sizeof(bc));
		bc = be32toh(bc);
		if (bc & MLX5_INLINE_SEG) {
			bc &= ~MLX5_INLINE_SEG;
			n += bc != 0;
			u += (4 + bc + MLX5_WSEG_SIZE - 1) / MLX5_WSEG_SIZE;
		} else {
			n++;
			u++;
		}
	}
	return n;
}

/*
 * Packets of the WQEs from basic block @p from up to wqe_ci, walking their
 * control segments: one per SEND, one per data segment of an eMPW WQE.
 */
static uint32_t pkts_between(const struct mlx5_txq *txq, uint32_t from)
{
	uint32_t n = 0, bb = from, wqes = 0;

	while (bb != txq->wqe_ci && wqes++ <= txq->wqe_n) {
		const struct mlx5_wqe_ctrl_seg *c = (const void *)mlx5_tx_wqe(txq, bb);
		unsigned int ds = be32toh(c->qpn_ds) & MLX5_WQE_DS_MASK;
		uint8_t opcode = (uint8_t)be32toh(c->opmod_idx_opcode);

		if (opcode == MLX5_OPCODE_ENHANCED_MPSW)
			n += empw_pkts(txq, bb, ds);
		else if (opcode != MLX5_OPCODE_NOP) /* a stop's drain marker carries no packet */
			n++;
		bb += ds ? mlx5_wqe_ds_to_bbs(ds) : 1;
	}
	return n;
}

/* Count @p n packets the queue gave up unsent (stop, restart). */
static void dropped_on_reset(struct mlx5_txq *txq, uint32_t n)
{
	dvp_counter_add(&txq->st.errors, n);
	dvp_counter_add(&txq->st.dropped_on_reset, n);
}

/*
 * After an error CQE (at cq_ci, naming WQE @p failed) the QP is in error:
 * the failed WQE and those behind it were not sent (counted as oerrors;
 * of an eMPW WQE every packet, though those before the failing one may
 * have left: the CQE names the WQE only),
 * every packet the queue holds goes back to its pool, and the QP goes
 * through RESET back to RTS.
 */
static int recover(struct mlx5_txq *txq, uint16_t failed)
{
	uint32_t from = txq->wqe_tail, dropped;
	int ret;

	/* The WQE named by the CQE, searched from the oldest not completed. */
	while (from != txq->wqe_ci && (from & MLX5_WQ_INDEX_MASK) != failed) {
		const struct mlx5_wqe_ctrl_seg *c = (const void *)mlx5_tx_wqe(txq, from);
		unsigned int ds = be32toh(c->qpn_ds) & MLX5_WQE_DS_MASK;

		from += ds ? mlx5_wqe_ds_to_bbs(ds) : 1;
	}
	dropped = pkts_between(txq, from);
	dvp_counter_add(&txq->st.errors, dropped);
	ret = qp_modify(txq, IBV_QPS_RESET);
	cq_drain(txq);
	mlx5_tx_free_elts(txq, txq->elts_head);
	if (ret == 0)
		ret = qp_ready(txq);
	counters_reset(txq);
	dvp_counter_add(&txq->st.restarts, 1);
	return ret;
}

int mlx5_txq_recover(struct mlx5_txq *txq)
{
	const struct mlx5_cqe64 *cqe = mlx5_cqe_slot(txq->cqes, txq->cqe_cnt, txq->cq_ci);
	uint16_t failed = be16toh(cqe->wqe_counter);

	txq->cq_ci++;
	mlx5_cq_set_ci(txq->cq_db, txq->cq_ci);
	return recover(txq, failed);
}

int mlx5_txq_restart(struct mlx5_txq *txq)
{
	int ret;

	/* The CQ broke: nothing says which of the packets not completed left. */
	if (txq->qp != NULL)
		dropped_on_reset(txq, pkts_between(txq, txq->wqe_tail));
	objs_destroy(txq);
	mlx5_tx_free_elts(txq, txq->elts_head);
	ret = objs_create(txq);
	if (ret == 0 && txq->started)
		ret = qp_ready(txq);
	if (ret == 0)
		counters_reset(txq);
	dvp_counter_add(&txq->st.restarts, 1);
	return ret;
}

static void cs_tbl_build(struct mlx5_txq *txq)
{
	for (unsigned int i = 0; i < 8; i++) {
		uint8_t cs = 0;
		uint64_t l4 = ((uint64_t)i << 52) & DVP_MBUF_F_TX_L4_MASK;

		if ((i & 4) && (txq->offloads & DVP_TX_OFFLOAD_IPV4_CKSUM))
			cs |= MLX5_ETH_WQE_L3_CSUM;
		if ((l4 == DVP_MBUF_F_TX_TCP_CKSUM && (txq->offloads & DVP_TX_OFFLOAD_TCP_CKSUM)) ||
		    (l4 == DVP_MBUF_F_TX_UDP_CKSUM && (txq->offloads & DVP_TX_OFFLOAD_UDP_CKSUM)))
			cs |= MLX5_ETH_WQE_L4_CSUM;
		txq->cs_tbl[i] = cs;
	}
}

/*
 * The lengths the bursts go by, from the port's MTU and the devargs: the
 * longest frame, what goes inline, where the fast paths start.
 */
static void tx_limits(struct mlx5_txq *txq)
{
	const struct dvp_port *port = txq->port;
	const struct mlx5_cfg *cfg = &txq->priv->dev->cfg;

	txq->frame_max = port->mtu + 18u;
	txq->inline_min = txq->priv->dev->txq_inline_min;
	txq->inline_max = port->nb_tx_queues >= cfg->txqs_min_inline ? cfg->txq_inline_max : 0;
	txq->inline_max = DVP_MIN(txq->inline_max, txq->frame_max);
	/* As DPDK: eMPW inlines under the same queue-count rule as SEND does. */
	txq->inline_mpw = port->nb_tx_queues >= cfg->txqs_min_inline && txq->priv->dev->empw ?
				  DVP_MIN(cfg->txq_inline_mpw, txq->frame_max) :
				  0;
	txq->fast_lo = txq->inline_min == MLX5_ESEG_MIN_INLINE_SIZE ?
			       DVP_MAX(txq->inline_min, txq->inline_max) :
			       txq->frame_max;
	/*
	 * eMPW carries no inline header: any frame from 18 bytes on goes by
	 * pointer; shorter ones leave for the general path, which drops them.
	 */
	txq->empw_lo = DVP_MAX(MLX5_ESEG_MIN_INLINE_SIZE - 1u, txq->inline_max);
	/* No frame shorter than 18 bytes is sent: nothing to inline below that. */
	if (txq->inline_mpw < MLX5_ESEG_MIN_INLINE_SIZE)
		txq->inline_mpw = 0;
}

int mlx5_txq_setup(struct dvp_port *port, uint16_t q, uint16_t nb_desc, int socket_id,
		   const struct dvp_txq_conf *conf)
{
	struct mlx5_priv *priv = mlx5_priv(port);
	struct mlx5_txq *txq;
	uint32_t n = dvp_align32pow2(nb_desc), thresh;
	int ret;

	if (socket_id == DVP_SOCKET_ANY)
		socket_id = port->numa_node;
	if (n != nb_desc)
		MLX5_PLOG(NOTICE, port, "tx queue %u: %u descriptors rounded up to %u", q, nb_desc,
			  n);
	thresh = conf != NULL && conf->tx_free_thresh != 0 ? conf->tx_free_thresh :
							     MLX5_TX_COMP_THRESH;
	thresh = DVP_MIN(thresh, n / 2);
	txq = dvp_zmalloc_socket("mlx5_txq", sizeof(*txq), DVP_CACHE_LINE_SIZE, socket_id);
	if (txq == NULL)
		return dvp_err(ENOMEM);
	txq->owner = (struct mlx5_owner){ port->port_id, q, true };
	txq->port = port;
	txq->priv = priv;
	txq->socket = socket_id;
	txq->nb_desc = n;
	txq->elts_n = n;
	txq->elts_mask = n - 1;
	txq->comp_thresh = thresh;
	txq->cqe_req = n / thresh + 4;
	txq->offloads = port->conf.txmode.offloads | (conf != NULL ? conf->offloads : 0);
	txq->fast_free = (txq->offloads & DVP_TX_OFFLOAD_MBUF_FAST_FREE) &&
			 !(txq->offloads & DVP_TX_OFFLOAD_MULTI_SEGS);
	tx_limits(txq);
	cs_tbl_build(txq);
	txq->off_flags = ((txq->offloads & DVP_TX_OFFLOAD_VLAN_INSERT) ? DVP_MBUF_F_TX_VLAN : 0) |
			 ((txq->offloads & DVP_TX_OFFLOAD_TCP_TSO) ? DVP_MBUF_F_TX_TCP_SEG : 0);
	txq->tso_max = priv->dev->caps.tso_max;
	txq->vlan_hw = priv->dev->caps.vlan_insert;
	mlx5_mr_cache_init(&txq->mr, &priv->dev->mr);
	txq->elts = dvp_calloc_socket("mlx5_txq", n, sizeof(*txq->elts), 0, socket_id);
	if (txq->elts == NULL) {
		ret = dvp_err(ENOMEM);
		goto err;
	}
	ret = objs_create(txq);
	if (ret < 0)
		goto err;
	txq->comps = dvp_calloc_socket("mlx5_txq", txq->cqe_cnt, sizeof(*txq->comps), 0, socket_id);
	if (txq->comps == NULL) {
		objs_destroy(txq);
		ret = dvp_err(ENOMEM);
		goto err;
	}
	port->txqs[q] = txq;
	dvp_port_queue_fault_attach(port, q, true, &txq->fault);
	return 0;
err:
	dvp_free(txq->elts);
	dvp_free(txq);
	return ret;
}

int mlx5_txq_start(struct dvp_port *port, uint16_t q)
{
	struct mlx5_txq *txq = port->txqs[q];
	int ret;

	/* The MTU may have changed since the setup (mlx5_mtu_set()). */
	tx_limits(txq);
	if (dvp_queue_fault_take(&txq->fault) != DVP_PORT_CAUSE_NONE) {
		ret = mlx5_txq_restart(txq);
		if (ret < 0)
			return ret;
	}
	ret = qp_ready(txq);
	if (ret < 0) {
		qp_modify(txq, IBV_QPS_RESET);
		return ret;
	}
	counters_reset(txq);
	txq->started = true;
	return 0;
}

/* Post a NOP that asks for a completion, behind every WQE written. */
static void nop_post(struct mlx5_txq *txq)
{
	struct mlx5_wqe_ctrl_seg *c = (void *)mlx5_tx_wqe(txq, txq->wqe_ci);
	struct mlx5_txq_comp *comp = &txq->comps[txq->comp_pi & (txq->cqe_cnt - 1)];

	mlx5_wqe_ctrl_fill(c, txq->wqe_ci, MLX5_OPCODE_NOP, txq->sqn, 1, MLX5_WQE_CTRL_CQ_UPDATE);
	txq->wqe_ci++;
	/* Its completion covers everything: mlx5_tx_complete() frees up to here. */
	comp->elts = txq->elts_head;
	comp->wqe = txq->wqe_ci;
	txq->comp_pi++;
	txq->comp_wqe = txq->wqe_ci;
	txq->comp_elts = txq->elts_head;
	mlx5_sq_db(txq->sq_db, txq->bf_reg, txq->wqe_ci, c, true);
}

/*
 * Before a stop resets the SQ: a completion is asked only every
 * comp_thresh WQEs, so the WQEs after the last one are sent or not, and
 * nothing tells which. A NOP asking for a completion, posted behind them,
 * completes once the device is done with all of them (it works in order):
 * completions are polled as by tx_burst until it comes, at most
 * MLX5_TX_DRAIN_MS (first to make room for it when the ring is full).
 * What is still not completed then (the device stalled, the link held,
 * the device failed) was not sent: counted. Only for a queue that runs on
 * a device not removed: after an async error its CQ cannot be trusted.
 */
static void tx_drain(struct mlx5_txq *txq)
{
	uint64_t deadline = dvp_rdtsc() + dvp_get_tsc_hz() / 1000 * MLX5_TX_DRAIN_MS;
	bool posted = false;

	/*
	 * Not on a removed device (a fatal error): it completes nothing more,
	 * and what its CQ holds is not to be trusted.
	 */
	if (txq->started && txq->qp != NULL && !dvp_queue_fault_pending(&txq->fault) &&
	    !__atomic_load_n(&txq->port->removed, __ATOMIC_ACQUIRE)) {
		for (;;) {
			mlx5_tx_complete(txq);
			if (txq->wqe_tail == txq->wqe_ci)
				break; /* all completed, or an error CQE recovered them */
			if (!posted && txq->wqe_ci - txq->wqe_tail < txq->wqe_n) {
				nop_post(txq);
				posted = true;
				continue;
			}
			if (dvp_rdtsc() > deadline)
				break;
			usleep(50);
		}
	}
	dropped_on_reset(txq, pkts_between(txq, txq->wqe_tail));
}

void mlx5_txq_stop(struct dvp_port *port, uint16_t q)
{
	struct mlx5_txq *txq = port->txqs[q];

	if (txq == NULL)
		return;
	if (txq->qp != NULL && txq->cq != NULL)
		tx_drain(txq);
	/* After a device fatal error this fails; the packets come back all the same. */
	if (txq->qp != NULL)
		qp_modify(txq, IBV_QPS_RESET);
	if (txq->cq != NULL)
		cq_drain(txq);
	mlx5_tx_free_elts(txq, txq->elts_head);
	if (txq->qp != NULL)
		counters_reset(txq);
	txq->started = false;
}

void mlx5_txq_release(struct dvp_port *port, uint16_t q)
{
	struct mlx5_txq *txq = port->txqs[q];

	if (txq == NULL)
		return;
	mlx5_tx_free_elts(txq, txq->elts_head);
	objs_destroy(txq);
	dvp_free(txq->comps);
	dvp_free(txq->elts);
	dvp_free(txq);
	port->txqs[q] = NULL;
}
