/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Queues: setup and release (control thread), breaking and tearing down
 * (by the queue's owner when it breaks), and the hand-over between owners
 * described in verbs_queue.h. Their QPs are made in verbs_qp.c.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <dvp_cycles.h>
#include <dvp_fd.h>
#include <dvp_malloc.h>

#include "verbs_private.h"

void verbs_rxq_kick(struct verbs_rxq *rxq)
{
	if (!rxq->intr_on || !dvp_rxwait_queue_active(&rxq->intr))
		return;
	/* Counted by whoever kicks (any thread): an atomic add, not dvp_counter_add. */
	__atomic_fetch_add(&rxq->st.kicks, 1, __ATOMIC_RELAXED);
	(void)dvp_rxwait_queue_kick(&rxq->intr);
}

/* Any thread (see verbs_idx_set()). */
unsigned int verbs_rxq_held(const struct verbs_rxq *rxq)
{
	return verbs_idx_get(&rxq->tail) - verbs_idx_get(&rxq->head);
}

unsigned int verbs_txq_held(const struct verbs_txq *txq)
{
	unsigned int n = 0;
	uint32_t i;

	uint32_t end = verbs_idx_get(&txq->tail);

	/* Any thread: a slot read while the lcore runs may be a burst old. */
	for (i = verbs_idx_get(&txq->head); i != end; i++)
		n += __atomic_load_n(&txq->ring[i & txq->mask], __ATOMIC_RELAXED) != NULL;
	return n;
}

/* ------------------------------------------------------------------------
 * Breaking and tearing down
 */

static bool qbreak(uint32_t *state, struct dvp_queue_fault *fault, enum dvp_port_event_cause cause)
{
	uint32_t live = VERBS_Q_LIVE;

	/* The first cause stays, for the teardown to report. */
	if (cause != DVP_PORT_CAUSE_NONE)
		(void)dvp_queue_fault_set(fault, cause);
	/*
	 * Seq_cst: for tx queues this store is one half of the Dekker pair
	 * with verbs_tx_burst()'s in_burst (see verbs_txq_try_teardown()); it also
	 * releases the cause to whoever tears down.
	 */
	return __atomic_compare_exchange_n(state, &live, VERBS_Q_BROKEN, false, __ATOMIC_SEQ_CST,
					   __ATOMIC_RELAXED);
}

bool verbs_rxq_break(struct verbs_rxq *rxq, enum dvp_port_event_cause cause)
{
	if (!qbreak(&rxq->state, &rxq->fault, cause))
		return false;
	/* A lcore asleep on the queue must wake up to tear it down. */
	verbs_rxq_kick(rxq);
	return true;
}

bool verbs_txq_break(struct verbs_txq *txq, enum dvp_port_event_cause cause)
{
	return qbreak(&txq->state, &txq->fault, cause);
}

/*
 * @freed: rx, the mbufs freed; tx, the sends that ended (inline ones too).
 * @timeout_ms: not 0 when the tx watchdog broke the queue.
 */
static __dvp_cold void report(struct verbs_port *vp, uint16_t q, bool tx,
			      enum dvp_port_event_cause cause, int wc_status, uint32_t vendor_err,
			      uint32_t timeout_ms, unsigned int freed, uint64_t dropped)
{
	char why[64] = ""; /* the event's reason holds 95 characters */

	if (cause == DVP_PORT_CAUSE_NONE)
		return;
	if (cause == DVP_PORT_CAUSE_DRIVER && wc_status != IBV_WC_SUCCESS)
		snprintf(why, sizeof(why), " (%s, vendor_err 0x%x)",
			 ibv_wc_status_str((enum ibv_wc_status)wc_status), vendor_err);
	else if (timeout_ms != 0)
		snprintf(why, sizeof(why), " (tx timeout: no send completed in %u ms)", timeout_ms);
	dvp_port_queue_error_report(vp->port, q, tx, cause, "rebuilt: %u %s, %llu frames lost%s",
				    freed, tx ? "sends ended" : "mbufs freed",
				    (unsigned long long)dropped, why);
}

/*
 * The CQ of the queue @ctx names, of @size entries, its events to @ch (NULL:
 * none). @return it, or NULL after the error line (@when completes it) with
 * dvp_errno set.
 */
static struct ibv_cq *cq_create(struct verbs_qctx *ctx, uint32_t size, struct ibv_comp_channel *ch,
				const char *when)
{
	struct ibv_cq *cq = ibv_create_cq(ctx->vp->dev->ctx, (int)size, ctx, ch, 0);
	int err;

	if (cq != NULL)
		return cq;
	err = errno ? errno : ENOMEM;
	VERBS_LOG(ERR, "%s %s queue %u: ibv_create_cq(%u)%s: %s", ctx->vp->name,
		  ctx->tx ? "tx" : "rx", ctx->queue_id, size, when, dvp_strerror(err));
	dvp_errno = err;
	return NULL;
}

static void cq_destroy(const struct verbs_qctx *ctx, struct ibv_cq *cq)
{
	int ret = ibv_destroy_cq(cq);

	if (ret != 0)
		VERBS_LOG(ERR, "%s %s queue %u: ibv_destroy_cq: %s", ctx->vp->name,
			  ctx->tx ? "tx" : "rx", ctx->queue_id, dvp_strerror(ret));
}

/*
 * Replace the overrun CQ *@cqp by one of @size entries and clear @cq_dead.
 * On failure *@cqp is NULL and the queue stays down; a later call (the
 * next QP creation) tries again.
 */
static int cq_replace(struct verbs_qctx *ctx, struct ibv_cq **cqp, uint32_t size,
		      struct ibv_comp_channel *ch, uint32_t *cq_dead)
{
	if (*cqp != NULL)
		cq_destroy(ctx, *cqp);
	*cqp = cq_create(ctx, size, ch, " after the overrun (the queue stays down)");
	if (*cqp == NULL)
		return -dvp_errno;
	/* Release: the interrupt thread that sees the flag clear uses the new CQ. */
	__atomic_store_n(cq_dead, 0, __ATOMIC_RELEASE);
	return 0;
}

int verbs_rxq_cq_renew(struct verbs_rxq *rxq)
{
	int ret;

	/* A CQ smaller than the ring overran: the new one can hold every receive. */
	if (rxq->cq_size < rxq->nb_desc) {
		VERBS_LOG(
			WARNING,
			"%s rx queue %u: the CQ of %u entries overran; replaced by one of %u, as many as receives posted",
			rxq->vp->name, rxq->queue_id, rxq->cq_size, rxq->nb_desc);
		rxq->cq_size = rxq->nb_desc;
	}

	/* Destroying a CQ waits for the acks of every event read from it. */
	if (rxq->intr_on)
		dvp_rxwait_queue_ack_flush(&rxq->intr);
	if (rxq->unacked > 0) {
		ibv_ack_cq_events(rxq->cq, rxq->unacked);
		rxq->unacked = 0;
	}
	ret = cq_replace(&rxq->ctx, &rxq->cq, rxq->cq_size, rxq->ch, &rxq->cq_dead);
	if (ret < 0)
		return ret;
	/*
	 * lib/rxwait may think the old CQ armed: an event (the kick) makes it
	 * arm the new one at the next wait.
	 */
	verbs_rxq_kick(rxq);
	return 0;
}

int verbs_txq_cq_renew(struct verbs_txq *txq)
{
	return cq_replace(&txq->ctx, &txq->cq, txq->cq_size, NULL, &txq->cq_dead);
}

void verbs_rxq_teardown(struct verbs_rxq *rxq, bool after_break)
{
	struct ibv_wc wc[VERBS_RX_POLL];
	uint64_t dropped = 0;
	unsigned int freed = 0;
	enum dvp_port_event_cause cause;
	int n, ret, wc_status;

	if (rxq->qp != NULL) {
		ret = ibv_destroy_qp(rxq->qp);
		if (ret != 0)
			VERBS_LOG(ERR, "%s rx queue %u: ibv_destroy_qp: %s", rxq->vp->name,
				  rxq->queue_id, dvp_strerror(ret));
		rxq->qp = NULL;
	}
	/* Frames completed and not taken yet: their buffers go with the ring. */
	for (; rxq->wc_pos < rxq->wc_n; rxq->wc_pos++)
		dropped += rxq->wc[rxq->wc_pos].status == IBV_WC_SUCCESS;
	rxq->wc_pos = rxq->wc_n = 0;
	while (rxq->cq != NULL && (n = ibv_poll_cq(rxq->cq, VERBS_RX_POLL, wc)) > 0)
		while (n-- > 0)
			dropped += wc[n].status == IBV_WC_SUCCESS;
	for (; rxq->head != rxq->tail; verbs_idx_set(&rxq->head, rxq->head + 1), freed++)
		dvp_pktmbuf_free(rxq->ring[rxq->head & rxq->mask]);
	verbs_idx_set(&rxq->head, 0);
	verbs_idx_set(&rxq->tail, 0);
	dvp_counter_add(&rxq->st.dropped_on_reset, dropped);
	dvp_counter_add(&rxq->st.errors, dropped);
	cause = dvp_queue_fault_take(&rxq->fault);
	if (after_break && cause != DVP_PORT_CAUSE_NONE)
		dvp_counter_add(&rxq->st.restarts, 1);
	if (__atomic_load_n(&rxq->cq_dead, __ATOMIC_RELAXED) && rxq->cq != NULL)
		verbs_rxq_cq_renew(rxq);
	wc_status = rxq->wc_status;
	rxq->wc_status = IBV_WC_SUCCESS;
	/* Release: the next owner (the interrupt thread) sees the ring empty and the QP gone. */
	__atomic_store_n(&rxq->state, VERBS_Q_DOWN, __ATOMIC_RELEASE);
	if (after_break)
		report(rxq->vp, rxq->queue_id, false, cause, wc_status, rxq->vendor_err, 0, freed,
		       dropped);
}

/*
 * Drain the send queue before the QP goes, as the kernel's ib_drain_sq():
 * move the QP to the error state, which completes every send still
 * outstanding with a flush error, then post a signaled marker, which
 * completes (in error) after all of them. A send that asked for no
 * completion and was done before the transition gets none; without the
 * marker, nothing tells it from one still in flight, and a clean stop
 * counted up to tx_signal - 1 delivered frames as lost. @return whether
 * the marker was posted (its completion is then worth waiting for).
 */
static bool txq_drain_start(struct verbs_txq *txq)
{
	struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };
	struct ibv_send_wr wr = {
		.wr_id = VERBS_WR_DRAIN,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;
	int ret;

	if (txq->qp == NULL || txq->cq == NULL || txq->head == txq->tail ||
	    __atomic_load_n(&txq->cq_dead, __ATOMIC_RELAXED) || (txq->ud && txq->ah == NULL))
		return false;
	ret = ibv_modify_qp(txq->qp, &attr, IBV_QP_STATE);
	if (ret != 0) {
		VERBS_LOG(DEBUG, "%s tx queue %u: no drain: ibv_modify_qp(ERR): %s", txq->vp->name,
			  txq->queue_id, dvp_strerror(ret));
		return false;
	}
	if (txq->ud) {
		wr.wr.ud.ah = txq->ah;
		wr.wr.ud.remote_qpn = txq->remote_qpn;
		wr.wr.ud.remote_qkey = txq->remote_qkey;
	}
	ret = ibv_post_send(txq->qp, &wr, &bad);
	if (ret != 0) {
		VERBS_LOG(DEBUG, "%s tx queue %u: no drain: ibv_post_send(marker): %s",
			  txq->vp->name, txq->queue_id, dvp_strerror(ret));
		return false;
	}
	return true;
}

void verbs_txq_teardown(struct verbs_txq *txq, bool after_break)
{
	struct ibv_wc wc[VERBS_TX_POLL];
	unsigned int freed = 0, lost = 0;
	enum dvp_port_event_cause cause;
	int n, i, ret, wc_status;
	bool failed, timed_out = txq->timed_out, drained = false, draining = txq_drain_start(txq);
	uint64_t deadline = dvp_rdtsc() + dvp_get_tsc_hz() / 1000 * VERBS_DRAIN_MS;

	/*
	 * Sends that completed free their frames as delivered, up to the
	 * first error: RC completes in order, so what follows an error (the
	 * QP's flushes, and sends that asked for no completion) was not. The
	 * CQ is read before the QP is destroyed: some providers drop a
	 * destroyed QP's completions from its CQ.
	 */
	failed = txq->wc_status != IBV_WC_SUCCESS;
	while (txq->cq != NULL) {
		n = ibv_poll_cq(txq->cq, VERBS_TX_POLL, wc);
		if (n <= 0) {
			if (n < 0 || !draining || dvp_rdtsc() > deadline)
				break;
			usleep(50);
			continue;
		}
		for (i = 0; i < n; i++) {
			uint32_t idx = (uint32_t)wc[i].wr_id;
			bool ours = idx - txq->head < txq->tail - txq->head;

			if (wc[i].wr_id == VERBS_WR_DRAIN) {
				/* Every send before it has completed, one way or the other. */
				draining = false;
				drained = true;
				continue;
			}
			if (wc[i].status != IBV_WC_SUCCESS) {
				/* Only wr_id, status, qp_num and vendor_err are valid here. */
				dvp_counter_add(
					&txq->st.wc_err[verbs_wc_status_index(wc[i].status)], 1);
				if (!failed && ours)
					freed += verbs_txq_free_upto(txq, idx - 1);
				failed = true;
			}
			if (!ours)
				continue;
			if (failed)
				lost += verbs_txq_free_upto(txq, idx);
			else
				freed += verbs_txq_free_upto(txq, idx);
		}
	}
	if (txq->qp != NULL) {
		ret = ibv_destroy_qp(txq->qp);
		if (ret != 0)
			VERBS_LOG(ERR, "%s tx queue %u: ibv_destroy_qp: %s", txq->vp->name,
				  txq->queue_id, dvp_strerror(ret));
		txq->qp = NULL;
	}
	if (txq->ah != NULL) {
		ibv_destroy_ah(txq->ah);
		txq->ah = NULL;
	}
	/*
	 * The marker came back: the sends still held completed before the
	 * error state without asking for a completion, so they were delivered.
	 */
	if (drained && !failed && txq->head != txq->tail)
		freed += verbs_txq_free_upto(txq, txq->tail - 1);
	/* The rest never got an answer: lost on the wire, as far as anyone knows. */
	lost += txq->head != txq->tail ? verbs_txq_free_upto(txq, txq->tail - 1) : 0;
	freed += lost;
	verbs_idx_set(&txq->head, 0);
	verbs_idx_set(&txq->tail, 0);
	txq->unsignaled = 0;
	txq->wd_since = 0;
	txq->timed_out = false;
	dvp_counter_add(&txq->st.dropped_on_reset, lost);
	dvp_counter_add(&txq->st.errors, lost);
	cause = dvp_queue_fault_take(&txq->fault);
	if (after_break && cause != DVP_PORT_CAUSE_NONE)
		dvp_counter_add(&txq->st.restarts, 1);
	if (__atomic_load_n(&txq->cq_dead, __ATOMIC_RELAXED) && txq->cq != NULL)
		verbs_txq_cq_renew(txq);
	wc_status = txq->wc_status;
	txq->wc_status = IBV_WC_SUCCESS;
	/* Release: as for rx. */
	__atomic_store_n(&txq->state, VERBS_Q_DOWN, __ATOMIC_RELEASE);
	if (after_break)
		report(txq->vp, txq->queue_id, true, cause, wc_status, txq->vendor_err,
		       timed_out ? txq->vp->cfg.tx_timeout : 0, freed, lost);
}

bool verbs_txq_try_teardown(struct verbs_txq *txq)
{
	uint32_t broken = VERBS_Q_BROKEN;

	/*
	 * Dekker with verbs_tx_burst(): the break stored state (seq_cst) before
	 * this load; the lcore stores in_burst (seq_cst) before loading the
	 * state. If we see in_burst clear, its next burst sees BROKEN and
	 * leaves the QP alone; if we see it set, that lcore tears down itself
	 * (or we retry from the timer).
	 */
	if (__atomic_load_n(&txq->in_burst, __ATOMIC_SEQ_CST))
		return false;
	/* The lcore may race us to it between bursts: one CAS wins. */
	if (!__atomic_compare_exchange_n(&txq->state, &broken, VERBS_Q_TEARING, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return false;
	verbs_txq_teardown(txq, true);
	return true;
}

/* ------------------------------------------------------------------------
 * Setup and release (control thread, port stopped)
 */

static void rxq_free(struct verbs_rxq *rxq)
{
	if (rxq->cq != NULL)
		cq_destroy(&rxq->ctx, rxq->cq);
	if (rxq->ch != NULL)
		ibv_destroy_comp_channel(rxq->ch);
	dvp_free(rxq->sges);
	dvp_free(rxq->wrs);
	dvp_free(rxq->ring);
	dvp_free(rxq);
}

/* The comp channel, non-blocking: lib/rxwait's reads must never hang the lcore. */
static int rxq_intr_fds(struct verbs_rxq *rxq)
{
	struct verbs_port *vp = rxq->vp;

	rxq->ch = ibv_create_comp_channel(vp->dev->ctx);
	if (rxq->ch == NULL) {
		VERBS_LOG(ERR, "%s rx queue %u: ibv_create_comp_channel: %s", vp->name,
			  rxq->queue_id, dvp_strerror(errno));
		return dvp_err(errno ? errno : ENOMEM);
	}
	if (dvp_fd_set_nonblock(rxq->ch->fd) < 0) {
		VERBS_LOG(ERR, "%s rx queue %u: the completion channel's fd: %s", vp->name,
			  rxq->queue_id, dvp_strerror(errno));
		return dvp_err(errno);
	}
	return 0;
}

int verbs_rxq_setup(struct dvp_port *port, uint16_t q, uint16_t nb_desc, int socket_id,
		    const struct dvp_rxq_conf *conf, struct dvp_mempool *mp)
{
	struct verbs_port *vp = port->priv;
	struct verbs_dev *dev = vp->dev;
	uint32_t size = dvp_align32pow2(nb_desc);
	uint16_t room = dvp_pktmbuf_data_room_size(mp);
	bool solicited = vp->cfg.solicited || port->conf.intr_conf.rxq_solicited;
	struct verbs_rxq *rxq;
	uint32_t i;
	int ret;

	(void)conf;
	if (room <= DVP_PKTMBUF_HEADROOM + 64) {
		VERBS_LOG(
			ERR,
			"%s rx queue %u: mempool %s has %u bytes of data room; frames need more than the %d-byte headroom plus 64 (DVP_MBUF_DEFAULT_BUF_SIZE is usual)",
			vp->name, q, mp->name, room, DVP_PKTMBUF_HEADROOM);
		return dvp_err(EINVAL);
	}
	rxq = dvp_zmalloc_socket("net_verbs rxq", sizeof(*rxq), DVP_CACHE_LINE_SIZE, socket_id);
	if (rxq == NULL)
		return -dvp_errno;
	rxq->vp = vp;
	rxq->queue_id = q;
	rxq->port_id = port->port_id;
	rxq->ctx = (struct verbs_qctx){ .vp = vp, .queue_id = q, .tx = false };
	rxq->mp = mp;
	rxq->nb_desc = nb_desc;
	/* A small ring replaces a quarter at a time, so some are always posted. */
	rxq->idle_refill = DVP_MIN(VERBS_RX_IDLE_REFILL, (uint32_t)nb_desc / 4 + 1);
	rxq->mask = size - 1;
	rxq->grh = vp->cfg.mode == VERBS_MODE_UD ? VERBS_UD_GRH : 0;
	rxq->buf_len = (uint32_t)room - DVP_PKTMBUF_HEADROOM;
	if (vp->cfg.mode == VERBS_MODE_UD)
		rxq->buf_len = DVP_MIN(rxq->buf_len, vp->path_mtu);
	rxq->ring =
		dvp_zmalloc_socket("net_verbs rx ring", size * sizeof(*rxq->ring), 0, socket_id);
	rxq->wrs = dvp_zmalloc_socket("net_verbs rx wrs", size * sizeof(*rxq->wrs), 0, socket_id);
	rxq->sges =
		dvp_zmalloc_socket("net_verbs rx sges", size * sizeof(*rxq->sges), 0, socket_id);
	if (rxq->ring == NULL || rxq->wrs == NULL || rxq->sges == NULL) {
		ret = -dvp_errno;
		goto fail;
	}
	for (i = 0; i < size; i++) {
		rxq->wrs[i].sg_list = &rxq->sges[i];
		rxq->wrs[i].num_sge = 1;
	}
	/* Once per PD and pool: later queues on the same pool find it registered. */
	ret = verbs_mr_register_mempool(dev, mp, vp->name);
	if (ret < 0)
		goto fail;
	rxq->cq_size = vp->cfg.rx_cq_size ? vp->cfg.rx_cq_size : nb_desc;
	if ((int)rxq->cq_size > dev->attr.max_cqe) {
		VERBS_LOG(
			ERR,
			"%s rx queue %u: %u descriptors need a CQ of as many entries; %s offers %d",
			vp->name, q, rxq->cq_size, dev->name, dev->attr.max_cqe);
		ret = dvp_err(EINVAL);
		goto fail;
	}
	if (vp->cfg.rx_cq_size != 0 && vp->cfg.rx_cq_size < nb_desc)
		VERBS_LOG(
			WARNING,
			"%s rx queue %u: rx_cq_size=%u is below the %u receives posted: a slow consumer overruns the CQ (meant for testing recovery)",
			vp->name, q, vp->cfg.rx_cq_size, nb_desc);
	rxq->intr_on = port->conf.intr_conf.rxq;
	if (rxq->intr_on) {
		ret = rxq_intr_fds(rxq);
		if (ret < 0)
			goto fail;
	}
	rxq->cq = cq_create(&rxq->ctx, rxq->cq_size, rxq->ch, "");
	if (rxq->cq == NULL) {
		ret = -dvp_errno;
		goto fail;
	}
	if (rxq->intr_on) {
		struct dvp_rxwait_queue_conf ic = dvp_port_rxq_intr_conf(port, q, rxq->ch->fd);

		ic.solicited = solicited;
		ret = dvp_port_rxq_intr_init(port, q, &rxq->intr, &verbs_intr_ops, rxq, &ic);
		if (ret < 0)
			goto fail;
	}
	port->rxqs[q] = rxq;
	return 0;

fail:
	rxq_free(rxq);
	return ret;
}

void verbs_rxq_release(struct dvp_port *port, uint16_t q)
{
	struct verbs_port *vp = port->priv;
	struct verbs_rxq *rxq = port->rxqs[q];

	pthread_mutex_lock(&vp->lock);
	/* Out of its wait set, every event read acked: the CQ can go. */
	dvp_rxwait_queue_fini(&rxq->intr);
	if (rxq->unacked > 0) {
		ibv_ack_cq_events(rxq->cq, rxq->unacked);
		rxq->unacked = 0;
	}
	verbs_rxq_teardown(rxq, false);
	port->rxqs[q] = NULL;
	port->rxq_intr[q] = NULL;
	pthread_mutex_unlock(&vp->lock);
	rxq_free(rxq);
}

static void txq_free(struct verbs_txq *txq)
{
	if (txq->cq != NULL)
		cq_destroy(&txq->ctx, txq->cq);
	dvp_free(txq->ring);
	dvp_free(txq);
}

int verbs_txq_setup(struct dvp_port *port, uint16_t q, uint16_t nb_desc, int socket_id,
		    const struct dvp_txq_conf *conf)
{
	struct verbs_port *vp = port->priv;
	struct verbs_dev *dev = vp->dev;
	uint32_t size = dvp_align32pow2(nb_desc);
	struct verbs_txq *txq;
	uint32_t i;
	int ret;

	(void)conf;
	txq = dvp_zmalloc_socket("net_verbs txq", sizeof(*txq), DVP_CACHE_LINE_SIZE, socket_id);
	if (txq == NULL)
		return -dvp_errno;
	txq->vp = vp;
	txq->queue_id = q;
	txq->ctx = (struct verbs_qctx){ .vp = vp, .queue_id = q, .tx = true };
	txq->nb_desc = nb_desc;
	txq->mask = size - 1;
	txq->ud = vp->cfg.mode == VERBS_MODE_UD;
	txq->max_sge = DVP_MIN(VERBS_MAX_SGE, (uint32_t)dev->attr.max_sge);
	/* A completion at least every half ring, or the ring could fill with none coming. */
	txq->signal = DVP_MIN(vp->cfg.tx_signal, DVP_MAX(nb_desc / 2u, 1u));
	if (txq->signal != vp->cfg.tx_signal)
		VERBS_LOG(INFO,
			  "%s tx queue %u: tx_signal=%u lowered to %u, half of %u descriptors",
			  vp->name, q, vp->cfg.tx_signal, txq->signal, nb_desc);
	txq->wd_cycles = (uint64_t)vp->cfg.tx_timeout * dvp_get_tsc_hz() / 1000u;
	txq->ring =
		dvp_zmalloc_socket("net_verbs tx ring", size * sizeof(*txq->ring), 0, socket_id);
	if (txq->ring == NULL) {
		ret = -dvp_errno;
		goto fail;
	}
	for (i = 0; i < VERBS_TX_BURST; i++) {
		txq->wrs[i].sg_list = &txq->sges[i * VERBS_MAX_SGE];
		txq->wrs[i].opcode = IBV_WR_SEND;
	}
	/* Every send can complete with an error (each error is reported): room for all. */
	txq->cq_size = nb_desc + 1; /* and the drain's marker */
	if ((int)txq->cq_size > dev->attr.max_cqe) {
		VERBS_LOG(
			ERR,
			"%s tx queue %u: %u descriptors need a CQ of %u entries (one for each and one for the drain); %s offers %d",
			vp->name, q, nb_desc, txq->cq_size, dev->name, dev->attr.max_cqe);
		ret = dvp_err(EINVAL);
		goto fail;
	}
	txq->cq = cq_create(&txq->ctx, txq->cq_size, NULL, "");
	if (txq->cq == NULL) {
		ret = -dvp_errno;
		goto fail;
	}
	port->txqs[q] = txq;
	return 0;

fail:
	txq_free(txq);
	return ret;
}

void verbs_txq_release(struct dvp_port *port, uint16_t q)
{
	struct verbs_port *vp = port->priv;
	struct verbs_txq *txq = port->txqs[q];

	pthread_mutex_lock(&vp->lock);
	verbs_txq_teardown(txq, false);
	port->txqs[q] = NULL;
	pthread_mutex_unlock(&vp->lock);
	txq_free(txq);
}
