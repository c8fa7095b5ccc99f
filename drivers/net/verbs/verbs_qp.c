/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * A queue's QP: created by the interrupt thread when a connection is made
 * (an rx queue's receives posted from INIT on), moved to RTR and RTS with
 * rdma_cm's attributes or, for UD, the few a datagram QP takes. Destroyed
 * with the queue's teardown (verbs_queue.c).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <dvp_malloc.h>

#include "verbs_private.h"

static const char *qp_state_name(enum ibv_qp_state st)
{
	switch (st) {
	case IBV_QPS_INIT:
		return "INIT";
	case IBV_QPS_RTR:
		return "RTR";
	case IBV_QPS_RTS:
		return "RTS";
	default:
		return "another state";
	}
}

static int qp_modify(struct verbs_port *vp, struct ibv_qp *qp, struct rdma_cm_id *id,
		     enum ibv_qp_state st)
{
	struct ibv_qp_attr attr = { .qp_state = st };
	int mask = 0, ret;

	if (vp->cfg.mode == VERBS_MODE_UD && st != IBV_QPS_INIT) {
		/* What librdmacm does for UD: no path to program. */
		mask = IBV_QP_STATE | (st == IBV_QPS_RTS ? IBV_QP_SQ_PSN : 0);
		attr.sq_psn = 0;
	} else if (rdma_init_qp_attr(id, &attr, &mask) != 0) {
		ret = errno;
		VERBS_LOG(ERR, "%s: rdma_init_qp_attr(%s): %s", vp->name, qp_state_name(st),
			  dvp_strerror(ret));
		return dvp_err(ret);
	}
	/*
	 * The CM gives RTR a min_rnr_timer of 0, which means 655 ms: a sender
	 * that found no receive posted would wait that long before trying
	 * again. 0.64 ms (as perftest) lets a receiver that fell behind catch
	 * up without stalling the link.
	 */
	if (st == IBV_QPS_RTR && (mask & IBV_QP_MIN_RNR_TIMER))
		attr.min_rnr_timer = VERBS_MIN_RNR_TIMER;
	ret = ibv_modify_qp(qp, &attr, mask);
	if (ret != 0) {
		VERBS_LOG(ERR, "%s: ibv_modify_qp to %s: %s", vp->name, qp_state_name(st),
			  dvp_strerror(ret));
		return dvp_err(ret);
	}
	return 0;
}

int verbs_qp_ready(struct verbs_port *vp, struct ibv_qp *qp, struct rdma_cm_id *id)
{
	int ret = qp_modify(vp, qp, id, IBV_QPS_RTR);
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a;

	ret = ret < 0 ? ret : qp_modify(vp, qp, id, IBV_QPS_RTS);
	if (ret == 0 && dvp_log_can_log((uint32_t)verbs_logtype, DVP_LOG_DEBUG) &&
	    ibv_query_qp(qp, &a,
			 IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_PATH_MTU,
			 &ia) == 0)
		VERBS_LOG(DEBUG,
			  "%s: QP %u ready: ack timeout %u, retry %u, rnr_retry %u, path MTU %u",
			  vp->name, qp->qp_num, a.timeout, a.retry_cnt, a.rnr_retry,
			  128u << a.path_mtu);
	return ret;
}

static struct ibv_qp *qp_create(struct verbs_port *vp, struct verbs_qctx *ctx, struct ibv_cq *cq,
				uint32_t send_wr, uint32_t recv_wr, uint32_t send_sge,
				uint32_t inline_len, struct rdma_cm_id *id)
{
	struct ibv_qp_init_attr a = {
		.qp_context = ctx,
		.send_cq = cq,
		.recv_cq = cq,
		.cap = {
			.max_send_wr = send_wr,
			.max_recv_wr = recv_wr,
			.max_send_sge = send_sge,
			.max_recv_sge = 1,
			.max_inline_data = inline_len,
		},
		.qp_type = vp->cfg.mode == VERBS_MODE_UD ? IBV_QPT_UD : IBV_QPT_RC,
		.sq_sig_all = 0,
	};
	struct ibv_qp *qp;

	if (id->verbs != vp->dev->ctx) {
		VERBS_LOG(
			ERR,
			"%s: %s is reached through device %s, not dev=%s; give the address of an interface of %s",
			vp->name, vp->cfg.addr_str,
			id->verbs ? ibv_get_device_name(id->verbs->device) : "(none)", vp->cfg.dev,
			vp->cfg.dev);
		dvp_errno = EXDEV;
		return NULL;
	}
	if (cq == NULL) {
		VERBS_LOG(ERR, "%s %s queue %u: no CQ (it could not be recreated)", vp->name,
			  ctx->tx ? "tx" : "rx", ctx->queue_id);
		dvp_errno = EIO;
		return NULL;
	}
	qp = ibv_create_qp(vp->dev->pd, &a);
	if (qp == NULL && inline_len > 0) {
		/* Some providers refuse inline data outright: without it, then. */
		a.cap.max_inline_data = 0;
		qp = ibv_create_qp(vp->dev->pd, &a);
	}
	if (qp == NULL) {
		VERBS_LOG(ERR, "%s %s queue %u: ibv_create_qp (%u send, %u receive WRs): %s",
			  vp->name, ctx->tx ? "tx" : "rx", ctx->queue_id, send_wr, recv_wr,
			  dvp_strerror(errno));
		dvp_errno = errno ? errno : ENOMEM;
		return NULL;
	}
	if (qp_modify(vp, qp, id, IBV_QPS_INIT) < 0) {
		ibv_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

int verbs_rxq_qp_create(struct verbs_rxq *rxq, struct rdma_cm_id *id)
{
	struct verbs_port *vp = rxq->vp;

	/* Acquire: pairs with verbs_rxq_cq_renew(). */
	if (__atomic_load_n(&rxq->cq_dead, __ATOMIC_ACQUIRE)) {
		/*
		 * The CQ is its lcore's to replace (it acks its events): hand
		 * the queue over (release: no QP of ours uses the CQ) and wake
		 * it; it hands the queue back and wakes us.
		 */
		uint32_t down = VERBS_Q_DOWN;

		VERBS_LOG(DEBUG, "%s rx queue %u: its CQ overran: its lcore replaces it first",
			  vp->name, rxq->queue_id);
		if (__atomic_compare_exchange_n(&rxq->state, &down, VERBS_Q_RENEW, false,
						__ATOMIC_RELEASE, __ATOMIC_RELAXED))
			verbs_rxq_kick(rxq);
		return dvp_err(EAGAIN);
	}
	rxq->qp = qp_create(vp, &rxq->ctx, rxq->cq, 1, rxq->nb_desc, 1, 0, id);
	if (rxq->qp == NULL)
		return -dvp_errno;
	(void)dvp_queue_fault_take(&rxq->fault); /* a new QP: nothing of the old one's */
	rxq->wc_status = IBV_WC_SUCCESS;
	/* Receives may be posted from INIT on; the peer's first SEND finds them. */
	verbs_rxq_refill(rxq, rxq->nb_desc);
	if (rxq->tail == rxq->head) {
		VERBS_LOG(ERR, "%s rx queue %u: mempool %s has no free mbuf to post a receive with",
			  vp->name, rxq->queue_id, rxq->mp->name);
		ibv_destroy_qp(rxq->qp);
		rxq->qp = NULL;
		return dvp_err(ENOBUFS);
	}
	return 0;
}

int verbs_txq_qp_create(struct verbs_txq *txq, struct rdma_cm_id *id)
{
	struct verbs_port *vp = txq->vp;
	struct ibv_qp_attr attr;
	struct ibv_qp_init_attr init;

	/* A DOWN tx queue is ours, CQ included: replace one that overran. */
	if (__atomic_load_n(&txq->cq_dead, __ATOMIC_RELAXED) && verbs_txq_cq_renew(txq) < 0)
		return -dvp_errno;
	/* One send more than the ring holds: the drain's marker (txq_drain_start()). */
	txq->qp = qp_create(vp, &txq->ctx, txq->cq, txq->nb_desc + 1, 0, txq->max_sge,
			    vp->cfg.tx_inline, id);
	if (txq->qp == NULL)
		return -dvp_errno;
	/* The provider says what it really gave. */
	txq->max_inline = 0;
	if (vp->cfg.tx_inline > 0 && ibv_query_qp(txq->qp, &attr, IBV_QP_CAP, &init) == 0)
		txq->max_inline = DVP_MIN(attr.cap.max_inline_data, vp->cfg.tx_inline);
	verbs_idx_set(&txq->head, 0);
	verbs_idx_set(&txq->tail, 0);
	txq->unsignaled = 0;
	txq->wd_since = 0;
	txq->timed_out = false;
	txq->wc_status = IBV_WC_SUCCESS;
	(void)dvp_queue_fault_take(&txq->fault);
	return 0;
}
