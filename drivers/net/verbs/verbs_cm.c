/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Connections: one rdma_cm connection per queue, made by the connect= side
 * (it resolves, creates the QP, sends the request) and accepted by the
 * listen= side, on the EAL interrupt thread. The QPs are the driver's own
 * (not rdma_create_qp's): the cm_id only carries the handshake, and the
 * QP is moved INIT -> RTR -> RTS here with rdma_init_qp_attr(), so that a
 * queue's owner can destroy its QP without touching the cm_id.
 *
 * Everything here runs under vp->lock: the cm event channel, the retry
 * timer and the wake-up eventfd (written by lcores that handed a queue
 * back) call progress(), which looks at each connection's state and its
 * queue's, and does the next step: accept a waiting request, connect
 * again after a back-off, close a connection whose queue broke.
 * This file holds a connection's life (up, failed, closed), the cm events
 * and progress; verbs_cm_connect.c the connect= side's steps and
 * verbs_cm_accept.c the listen= side's. verbs_cm_setup.c sets the channel,
 * timer and eventfd up and tears them down.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <dvp_interrupts.h>

#include "verbs_conn.h"

static uint32_t conn_qstate(const struct verbs_conn *c)
{
	/* Acquire: a queue handed back (DOWN) comes with its owner's writes. */
	return c->tx ? __atomic_load_n(&verbs_conn_txq(c)->state, __ATOMIC_ACQUIRE) :
		       __atomic_load_n(&verbs_conn_rxq(c)->state, __ATOMIC_ACQUIRE);
}

const char *verbs_conn_name(const struct verbs_conn *c, char *buf, size_t len)
{
	snprintf(buf, len, "%s %s queue %u", c->vp->name, c->tx ? "tx" : "rx", c->q);
	return buf;
}

void verbs_cm_destroy_id(struct rdma_cm_id **idp)
{
	if (*idp == NULL)
		return;
	/* An established id sends the peer a DREQ as it goes. */
	if (rdma_destroy_id(*idp) != 0)
		VERBS_LOG(WARNING, "rdma_destroy_id: %s", dvp_strerror(errno));
	*idp = NULL;
}

/* Destroy @*idp now, or once the port can carry the DREQ or REJ it sends (see cm_usable). */
void verbs_cm_retire_id(struct verbs_port *vp, struct rdma_cm_id **idp)
{
	if (*idp == NULL)
		return;
	if (!__atomic_load_n(&vp->cm_usable, __ATOMIC_RELAXED) &&
	    vp->nzombies < DVP_DIM(vp->zombies)) {
		(*idp)->context = NULL; /* its events are no one's now */
		vp->zombies[vp->nzombies++] = *idp;
		*idp = NULL;
		return;
	}
	verbs_cm_destroy_id(idp);
}

void verbs_cm_reject_id(struct verbs_port *vp, struct rdma_cm_id *id,
			enum verbs_reject_reason reason)
{
	struct verbs_hello h = { .kind = VERBS_HELLO_REJECT,
				 .reason = (uint8_t)reason,
				 .mode = (uint8_t)vp->cfg.mode };
	uint8_t buf[VERBS_HELLO_LEN];

	verbs_hello_encode(&h, buf);
	if (rdma_reject(id, buf, sizeof(buf)) != 0)
		VERBS_LOG(DEBUG, "%s: rdma_reject: %s", vp->name, dvp_strerror(errno));
	__atomic_fetch_add(&vp->ps.cm_rejects_sent, 1, __ATOMIC_RELAXED);
	verbs_cm_retire_id(vp, &id);
}

void verbs_conn_discard(struct verbs_conn *c)
{
	if (c->tx) {
		struct verbs_txq *txq = verbs_conn_txq(c);

		if (txq->qp != NULL || txq->ah != NULL)
			verbs_txq_teardown(txq, false);
	} else {
		struct verbs_rxq *rxq = verbs_conn_rxq(c);

		if (rxq->qp != NULL)
			verbs_rxq_teardown(rxq, false);
	}
}

void verbs_conn_fail(struct verbs_conn *c)
{
	verbs_conn_discard(c);
	verbs_cm_retire_id(c->vp, &c->id);
	if (c->vp->cfg.role == VERBS_ROLE_CONNECT) {
		c->st = VERBS_CS_BACKOFF;
		c->retry_at = dvp_clock_monotonic_ns() + (uint64_t)c->backoff_ms * 1000000u;
		c->backoff_ms = DVP_MIN(c->backoff_ms * 2, (uint32_t)VERBS_RETRY_MAX_MS);
	} else {
		c->st = VERBS_CS_IDLE;
	}
}

void verbs_conn_warn(struct verbs_conn *c, const char *fmt, const char *detail, const char *detail2)
{
	char name[96];

	verbs_conn_name(c, name, sizeof(name));
	if (!c->warned) {
		VERBS_LOG(WARNING, "%s: %s%s%s (retrying quietly)", name, fmt, detail, detail2);
		c->warned = true;
	} else {
		VERBS_LOG(DEBUG, "%s: %s%s%s", name, fmt, detail, detail2);
	}
}

void verbs_conn_up(struct verbs_conn *c)
{
	char name[96];

	c->st = VERBS_CS_UP;
	c->backoff_ms = VERBS_RETRY_MIN_MS;
	c->attempts = 0;
	c->warned = false;
	c->vp->connected_once = true;
	__atomic_fetch_add(&c->vp->ps.cm_established, 1, __ATOMIC_RELAXED);
	VERBS_LOG(INFO, "%s: connected", verbs_conn_name(c, name, sizeof(name)));
	/* Release: the QP, its posted receives and the tx parameters go to the lcore with it. */
	if (c->tx) {
		__atomic_store_n(&verbs_conn_txq(c)->state, VERBS_Q_LIVE, __ATOMIC_RELEASE);
	} else {
		__atomic_store_n(&verbs_conn_rxq(c)->state, VERBS_Q_LIVE, __ATOMIC_RELEASE);
		/*
		 * Frames may have landed before it went live (a listener's QP
		 * receives from RTR on, before ESTABLISHED): their CQ event, if
		 * any, found nothing to do then and is gone. Wake a lcore
		 * asleep on it, after the store, so that it polls them.
		 */
		verbs_rxq_kick(verbs_conn_rxq(c));
	}
	/* A CQ_ERR that came while connecting: rebuild at once, on a new CQ. */
	if (__atomic_load_n(c->tx ? &verbs_conn_txq(c)->cq_dead : &verbs_conn_rxq(c)->cq_dead,
			    __ATOMIC_RELAXED))
		verbs_conn_close(c, DVP_PORT_CAUSE_CQ_ERROR);
}

void verbs_conn_close(struct verbs_conn *c, enum dvp_port_event_cause cause)
{
	if (c->st != VERBS_CS_UP) {
		verbs_conn_fail(c);
		return;
	}
	verbs_cm_retire_id(c->vp, &c->id);
	c->st = VERBS_CS_CLOSING;
	if (c->tx) {
		verbs_txq_break(verbs_conn_txq(c), cause);
		/* Nobody may be sending: then tear it down from here. */
		verbs_txq_try_teardown(verbs_conn_txq(c));
	} else {
		verbs_rxq_break(verbs_conn_rxq(c), cause);
	}
}

void verbs_cm_queue_broken_locked(struct verbs_port *vp, bool tx, uint16_t q)
{
	struct verbs_conn *c = tx ? &vp->tx_conn[q] : &vp->rx_conn[q];

	if (c->st == VERBS_CS_UP) {
		verbs_cm_retire_id(vp, &c->id);
		c->st = VERBS_CS_CLOSING;
		if (tx)
			verbs_txq_try_teardown(verbs_conn_txq(c));
	}
	verbs_cm_progress_locked(vp);
}

/* ------------------------------------------------------------------------
 * The handshake: what both sides put in it and take from it
 */

void verbs_conn_set_ack_timeout(struct verbs_port *vp, struct rdma_cm_id *id)
{
	uint8_t t = vp->cfg.ack_timeout;

	if (vp->cfg.mode == VERBS_MODE_RC &&
	    rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &t, sizeof(t)) != 0)
		VERBS_LOG(DEBUG, "%s: rdma_set_option(ACK_TIMEOUT): %s; rdma_cm's default applies",
			  vp->name, dvp_strerror(errno));
}

void verbs_conn_hello_fill(struct verbs_port *vp, struct verbs_hello *h, uint8_t kind)
{
	memset(h, 0, sizeof(*h));
	h->kind = kind;
	h->mode = (uint8_t)vp->cfg.mode;
	h->nb_rxq = vp->port->nb_rx_queues;
	h->nb_txq = vp->port->nb_tx_queues;
	h->qkey = RDMA_UDP_QKEY;
	h->session = vp->session;
}

void verbs_conn_hello_rx_side(struct verbs_conn *c, struct verbs_hello *h)
{
	struct verbs_rxq *rxq = verbs_conn_rxq(c);

	h->rx_buf_len = rxq->buf_len;
	h->qpn = rxq->qp->qp_num;
	if (rxq->intr.solicited)
		h->flags |= VERBS_HELLO_F_SOLICITED;
}

void verbs_conn_tx_params(struct verbs_conn *c, const struct verbs_hello *h)
{
	struct verbs_txq *txq = verbs_conn_txq(c);

	txq->max_len = h->rx_buf_len;
	if (c->vp->cfg.mode == VERBS_MODE_UD)
		txq->max_len = DVP_MIN(txq->max_len, c->vp->path_mtu);
	txq->solicited = (h->flags & VERBS_HELLO_F_SOLICITED) != 0;
	txq->remote_qpn = h->qpn;
	txq->remote_qkey = h->qkey ? h->qkey : RDMA_UDP_QKEY;
}

/* ------------------------------------------------------------------------
 * Events, progress, timer
 */

static void on_event(struct verbs_port *vp, const struct verbs_cm_event *e)
{
	struct verbs_conn *c;
	char name[96];

	if (e->type == RDMA_CM_EVENT_CONNECT_REQUEST) {
		verbs_cm_on_request(vp, e);
		return;
	}
	c = e->id != NULL ? e->id->context : NULL;
	if (c == NULL) {
		VERBS_LOG(DEBUG, "%s: %s on an id being retired", vp->name,
			  rdma_event_str(e->type));
		return;
	}
	if (c->pending == e->id) {
		/* The peer gave up on a request still waiting for its queue. */
		VERBS_LOG(DEBUG, "%s: %s on a waiting request", vp->name, rdma_event_str(e->type));
		verbs_cm_retire_id(vp, &c->pending);
		return;
	}
	if (c == NULL || c->id != e->id) {
		VERBS_LOG(DEBUG, "%s: %s on an id no longer in use", vp->name,
			  rdma_event_str(e->type));
		return;
	}
	verbs_conn_name(c, name, sizeof(name));
	switch (e->type) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (c->st == VERBS_CS_ADDR)
			verbs_conn_on_addr(c);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		if (c->st == VERBS_CS_ROUTE)
			verbs_conn_on_route(c);
		break;
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
		if (c->st == VERBS_CS_CONNECTING)
			verbs_conn_on_accepted(c, e);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		if (c->st == VERBS_CS_ACCEPTING)
			verbs_conn_up(c);
		else if (c->st == VERBS_CS_CONNECTING && vp->cfg.mode == VERBS_MODE_UD)
			verbs_conn_on_accepted(c, e);
		break;
	case RDMA_CM_EVENT_REJECTED:
		verbs_conn_on_rejected(c, e);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		__atomic_fetch_add(&vp->ps.cm_errors, 1, __ATOMIC_RELAXED);
		verbs_conn_warn(c, rdma_event_str(e->type), " status ",
				dvp_strerror(abs(e->status)));
		verbs_conn_fail(c);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		__atomic_fetch_add(&vp->ps.cm_disconnects, 1, __ATOMIC_RELAXED);
		VERBS_LOG(NOTICE, "%s: the peer disconnected", name);
		verbs_conn_close(c, DVP_PORT_CAUSE_NONE);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		VERBS_LOG(ERR, "%s: the device was removed", name);
		verbs_conn_close(c, DVP_PORT_CAUSE_NONE);
		dvp_port_removal_report(vp->port, DVP_PORT_CAUSE_NONE);
		break;
	default:
		VERBS_LOG(DEBUG, "%s: %s", name, rdma_event_str(e->type));
		break;
	}
}

void verbs_cm_event_cb(int fd, void *arg)
{
	struct verbs_port *vp = arg;
	struct rdma_cm_event *ev;
	struct verbs_cm_event e;
	const void *pd;

	(void)fd;
	pthread_mutex_lock(&vp->lock);
	for (;;) {
		if (rdma_get_cm_event(vp->cm_ch, &ev) != 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				VERBS_LOG(ERR, "%s: rdma_get_cm_event: %s", vp->name,
					  dvp_strerror(errno));
			break;
		}
		memset(&e, 0, sizeof(e));
		e.type = ev->event;
		e.status = ev->status;
		e.id = ev->id;
		e.listen_id = ev->listen_id;
		if (vp->cfg.mode == VERBS_MODE_UD) {
			pd = ev->param.ud.private_data;
			e.pdata_len = ev->param.ud.private_data_len;
			e.ah_attr = ev->param.ud.ah_attr;
			e.qpn = ev->param.ud.qp_num;
			e.qkey = ev->param.ud.qkey;
		} else {
			pd = ev->param.conn.private_data;
			e.pdata_len = ev->param.conn.private_data_len;
		}
		if (pd == NULL)
			e.pdata_len = 0;
		memcpy(e.pdata, pd, e.pdata_len);
		/* Ack before acting: destroying an id waits for its events' acks. */
		rdma_ack_cm_event(ev);
		on_event(vp, &e);
	}
	verbs_cm_progress_locked(vp);
	pthread_mutex_unlock(&vp->lock);
	verbs_link_update(vp);
}

void verbs_cm_timer_arm(struct verbs_port *vp, uint64_t at_ns)
{
	struct itimerspec its = { 0 };

	if (at_ns != UINT64_MAX) {
		/* 0 would disarm: an instant already past is the next ns. */
		its.it_value.tv_sec = (time_t)(at_ns / 1000000000u);
		its.it_value.tv_nsec = (long)(at_ns % 1000000000u);
		if (at_ns == 0)
			its.it_value.tv_nsec = 1;
	}
	if (timerfd_settime(vp->timer_fd, TFD_TIMER_ABSTIME, &its, NULL) != 0)
		VERBS_LOG(ERR, "%s: timerfd_settime: %s", vp->name, dvp_strerror(errno));
}

/*
 * A connect= side whose tx queue broke on its own (its sends went
 * unacknowledged: retries exhausted, or the tx watchdog) makes every
 * connection of the port again, in a new session. The path to the peer
 * failed, and whatever the peer tore down meanwhile may never have been
 * said: a DREQ sent across a partitioned network is lost, and RC has no
 * keepalive, so our end of a queue that only receives would stay up
 * forever while the peer's end of it is gone (its tx queue down, its link
 * with it). The first request of the new session makes the listener close
 * whatever it still had of the old one (verbs_cm_on_request()).
 */
static void session_renew(struct verbs_port *vp, const struct verbs_conn *broken)
{
	struct verbs_conn *c;
	char name[96];
	uint16_t i;

	verbs_cm_session_new(vp);
	__atomic_fetch_add(&vp->ps.cm_sessions_renewed, 1, __ATOMIC_RELAXED);
	VERBS_LOG(NOTICE, "%s: broken by the path to the peer; connecting every queue again",
		  verbs_conn_name(broken, name, sizeof(name)));
	for (i = 0; i < 2 * VERBS_MAX_QUEUES; i++) {
		c = i < VERBS_MAX_QUEUES ? &vp->rx_conn[i] : &vp->tx_conn[i - VERBS_MAX_QUEUES];
		if (c == broken)
			continue;
		if (c->st == VERBS_CS_UP)
			verbs_conn_close(c, DVP_PORT_CAUSE_NONE);
		else if (c->st == VERBS_CS_ADDR || c->st == VERBS_CS_ROUTE ||
			 c->st == VERBS_CS_CONNECTING)
			verbs_conn_fail(c); /* its request carries the old session */
	}
}

static void progress_conn(struct verbs_conn *c, uint64_t now, uint64_t *next)
{
	struct verbs_port *vp = c->vp;
	uint32_t qs = conn_qstate(c);

	if (c->st == VERBS_CS_UP && qs != VERBS_Q_LIVE) {
		/* Its lcore found the queue broken (an error completion): tell the peer. */
		verbs_cm_retire_id(vp, &c->id);
		c->st = VERBS_CS_CLOSING;
		if (c->tx && vp->cfg.role == VERBS_ROLE_CONNECT)
			session_renew(vp, c);
	}
	if (c->st == VERBS_CS_CLOSING) {
		if (c->tx && qs == VERBS_Q_BROKEN && !verbs_txq_try_teardown(verbs_conn_txq(c))) {
			/* An lcore is inside a burst: look again shortly. */
			*next = DVP_MIN(*next, now + 10000000u);
			return;
		}
		if (conn_qstate(c) != VERBS_Q_DOWN)
			return; /* its lcore tears it down and wakes us */
		c->st = VERBS_CS_IDLE;
		if (vp->cfg.role == VERBS_ROLE_CONNECT) {
			c->st = VERBS_CS_BACKOFF;
			c->retry_at = now + (uint64_t)VERBS_RETRY_MIN_MS * 1000000u;
		}
	}
	/*
	 * Only a DOWN queue is ours to connect (RENEW: its lcore is replacing
	 * the CQ), and only while the port can carry CM messages: when it
	 * comes up, link_update wakes us.
	 */
	if (!vp->started || conn_qstate(c) != VERBS_Q_DOWN ||
	    !__atomic_load_n(&vp->cm_usable, __ATOMIC_RELAXED))
		return;
	if (c->st == VERBS_CS_IDLE && c->pending != NULL)
		verbs_conn_accept(c);
	else if (c->st == VERBS_CS_IDLE && vp->cfg.role == VERBS_ROLE_CONNECT &&
		 (vp->cfg.reconnect || c->attempts == 0))
		verbs_conn_connect(c);
	else if (c->st == VERBS_CS_BACKOFF && (vp->cfg.reconnect || !vp->connected_once)) {
		if (now >= c->retry_at)
			verbs_conn_connect(c);
		else
			*next = DVP_MIN(*next, c->retry_at);
	}
}

static bool port_usable(struct verbs_port *vp)
{
	struct ibv_port_attr pa;

	return ibv_query_port(vp->dev->ctx, vp->ib_port, &pa) == 0 && pa.state == IBV_PORT_ACTIVE &&
	       verbs_netdev_running(vp->netdev);
}

void verbs_cm_progress_locked(struct verbs_port *vp)
{
	uint64_t now = dvp_clock_monotonic_ns(), next = UINT64_MAX;
	bool usable = port_usable(vp);
	uint16_t q;

	__atomic_store_n(&vp->cm_usable, usable, __ATOMIC_RELAXED);
	while (usable && vp->nzombies > 0)
		verbs_cm_destroy_id(&vp->zombies[--vp->nzombies]);

	for (q = 0; q < vp->port->nb_rx_queues && vp->port->rxqs[q] != NULL; q++)
		progress_conn(&vp->rx_conn[q], now, &next);
	for (q = 0; q < vp->port->nb_tx_queues && vp->port->txqs[q] != NULL; q++)
		progress_conn(&vp->tx_conn[q], now, &next);
	verbs_cm_timer_arm(vp, next);
}

void verbs_cm_timer_cb(int fd, void *arg)
{
	struct verbs_port *vp = arg;
	uint64_t n;

	if (read(fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		VERBS_LOG(DEBUG, "%s: timerfd read: %s", vp->name, dvp_strerror(errno));
	pthread_mutex_lock(&vp->lock);
	verbs_cm_progress_locked(vp);
	pthread_mutex_unlock(&vp->lock);
	verbs_link_update(vp);
}

void verbs_cm_wake_cb(int fd, void *arg)
{
	struct verbs_port *vp = arg;
	eventfd_t n;

	(void)eventfd_read(fd, &n);
	pthread_mutex_lock(&vp->lock);
	verbs_cm_progress_locked(vp);
	pthread_mutex_unlock(&vp->lock);
	verbs_link_update(vp);
}
