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
 * verbs_cm_setup.c sets the channel, timer and eventfd up and tears them
 * down.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <dvp_interrupts.h>

#include "verbs_private.h"

/* One cm event, copied so that it can be acked before it is acted on. */
struct cm_ev {
	enum rdma_cm_event_type type;
	int status;
	struct rdma_cm_id *id;
	struct rdma_cm_id *listen_id;
	uint8_t pdata[256];
	uint8_t pdata_len;
	struct ibv_ah_attr ah_attr; /* UD */
	uint32_t qpn;
	uint32_t qkey;
};

static void conn_close(struct verbs_conn *c, enum dvp_port_event_cause cause);

/*
 * Tests only (DVP_VERBS_TEST_HOLD_ACCEPT_MS): hold the interrupt thread
 * between the accept of an rx queue (its QP receives) and ESTABLISHED
 * (which makes it live) until its lcore has read a completion event, or
 * that many ms: a first frame then deterministically lands while the
 * queue is not live, with the lcore asleep on it.
 */
static void verbs_cm_test_hold_accept(struct verbs_port *vp, struct verbs_rxq *rxq)
{
	uint64_t end = dvp_clock_monotonic_ns() + (uint64_t)vp->cfg.test_hold_accept_ms * 1000000u;
	struct dvp_rxwait_queue_stats st;
	uint64_t events;

	if (!rxq->intr_on)
		return;
	dvp_rxwait_queue_stats_get(&rxq->intr, &st);
	events = st.events;
	VERBS_LOG(NOTICE, "%s rx queue %u: accepted; held for a test until a completion event",
		  vp->name, rxq->queue_id);
	do {
		usleep(1000);
		dvp_rxwait_queue_stats_get(&rxq->intr, &st);
	} while (st.events == events && dvp_clock_monotonic_ns() < end);
	VERBS_LOG(NOTICE, "%s rx queue %u: released (%s)", vp->name, rxq->queue_id,
		  st.events != events ? "its lcore read an event" : "no event came");
}

static struct verbs_rxq *conn_rxq(struct verbs_conn *c)
{
	return c->tx ? NULL : c->vp->port->rxqs[c->q];
}

static struct verbs_txq *conn_txq(struct verbs_conn *c)
{
	return c->tx ? c->vp->port->txqs[c->q] : NULL;
}

static uint32_t conn_qstate(struct verbs_conn *c)
{
	/* Acquire: a queue handed back (DOWN) comes with its owner's writes. */
	return c->tx ? __atomic_load_n(&conn_txq(c)->state, __ATOMIC_ACQUIRE) :
		       __atomic_load_n(&conn_rxq(c)->state, __ATOMIC_ACQUIRE);
}

static const char *conn_name(const struct verbs_conn *c, char *buf, size_t len)
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

/* Give back what a connection attempt built on its (DOWN) queue. */
static void queue_discard(struct verbs_conn *c)
{
	if (c->tx) {
		struct verbs_txq *txq = conn_txq(c);

		if (txq->qp != NULL || txq->ah != NULL)
			verbs_txq_teardown(txq, false);
	} else {
		struct verbs_rxq *rxq = conn_rxq(c);

		if (rxq->qp != NULL)
			verbs_rxq_teardown(rxq, false);
	}
}

/* A connection attempt failed: clean up, and for the connector, retry later. */
static void conn_fail(struct verbs_conn *c)
{
	queue_discard(c);
	verbs_cm_retire_id(c->vp, &c->id);
	if (c->vp->cfg.role == VERBS_ROLE_CONNECT) {
		c->st = VERBS_CS_BACKOFF;
		c->retry_at = dvp_clock_monotonic_ns() + (uint64_t)c->backoff_ms * 1000000u;
		c->backoff_ms = DVP_MIN(c->backoff_ms * 2, (uint32_t)VERBS_RETRY_MAX_MS);
	} else {
		c->st = VERBS_CS_IDLE;
	}
}

/* Say why once at WARNING, and at DEBUG while it keeps failing the same way. */
static __dvp_cold void conn_warn(struct verbs_conn *c, const char *fmt, const char *detail,
				 const char *detail2)
{
	char name[96];

	conn_name(c, name, sizeof(name));
	if (!c->warned) {
		VERBS_LOG(WARNING, "%s: %s%s%s (retrying quietly)", name, fmt, detail, detail2);
		c->warned = true;
	} else {
		VERBS_LOG(DEBUG, "%s: %s%s%s", name, fmt, detail, detail2);
	}
}

static void conn_up(struct verbs_conn *c)
{
	char name[96];

	c->st = VERBS_CS_UP;
	c->backoff_ms = VERBS_RETRY_MIN_MS;
	c->attempts = 0;
	c->warned = false;
	c->vp->connected_once = true;
	__atomic_fetch_add(&c->vp->ps.cm_established, 1, __ATOMIC_RELAXED);
	VERBS_LOG(INFO, "%s: connected", conn_name(c, name, sizeof(name)));
	/* Release: the QP, its posted receives and the tx parameters go to the lcore with it. */
	if (c->tx) {
		__atomic_store_n(&conn_txq(c)->state, VERBS_Q_LIVE, __ATOMIC_RELEASE);
	} else {
		__atomic_store_n(&conn_rxq(c)->state, VERBS_Q_LIVE, __ATOMIC_RELEASE);
		/*
		 * Frames may have landed before it went live (a listener's QP
		 * receives from RTR on, before ESTABLISHED): their CQ event, if
		 * any, found nothing to do then and is gone. Wake a lcore
		 * asleep on it, after the store, so that it polls them.
		 */
		verbs_rxq_kick(conn_rxq(c));
	}
	/* A CQ_ERR that came while connecting: rebuild at once, on a new CQ. */
	if (__atomic_load_n(c->tx ? &conn_txq(c)->cq_dead : &conn_rxq(c)->cq_dead,
			    __ATOMIC_RELAXED))
		conn_close(c, DVP_PORT_CAUSE_CQ_ERROR);
}

/* An UP connection ends (peer gone, or its queue broke): close it, the queue's owner tears down. */
static void conn_close(struct verbs_conn *c, enum dvp_port_event_cause cause)
{
	if (c->st != VERBS_CS_UP) {
		conn_fail(c);
		return;
	}
	verbs_cm_retire_id(c->vp, &c->id);
	c->st = VERBS_CS_CLOSING;
	if (c->tx) {
		verbs_txq_break(conn_txq(c), cause);
		/* Nobody may be sending: then tear it down from here. */
		verbs_txq_try_teardown(conn_txq(c));
	} else {
		verbs_rxq_break(conn_rxq(c), cause);
	}
}

void verbs_cm_queue_broken_locked(struct verbs_port *vp, bool tx, uint16_t q)
{
	struct verbs_conn *c = tx ? &vp->tx_conn[q] : &vp->rx_conn[q];

	if (c->st == VERBS_CS_UP) {
		verbs_cm_retire_id(vp, &c->id);
		c->st = VERBS_CS_CLOSING;
		if (tx)
			verbs_txq_try_teardown(conn_txq(c));
	}
	verbs_cm_progress_locked(vp);
}

/* ------------------------------------------------------------------------
 * Connector
 */

/* RC: the ack timeout the QP gets from rdma_init_qp_attr(RTS). */
static void set_ack_timeout(struct verbs_port *vp, struct rdma_cm_id *id)
{
	uint8_t t = vp->cfg.ack_timeout;

	if (vp->cfg.mode == VERBS_MODE_RC &&
	    rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &t, sizeof(t)) != 0)
		VERBS_LOG(DEBUG, "%s: rdma_set_option(ACK_TIMEOUT): %s; rdma_cm's default applies",
			  vp->name, dvp_strerror(errno));
}

static void conn_connect(struct verbs_conn *c)
{
	struct verbs_port *vp = c->vp;
	enum rdma_port_space ps = vp->cfg.mode == VERBS_MODE_UD ? RDMA_PS_UDP : RDMA_PS_TCP;

	c->attempts++;
	if (rdma_create_id(vp->cm_ch, &c->id, c, ps) != 0) {
		conn_warn(c, "rdma_create_id: ", dvp_strerror(errno), "");
		c->id = NULL;
		conn_fail(c);
		return;
	}
	set_ack_timeout(vp, c->id);
	if (rdma_resolve_addr(c->id, NULL, (struct sockaddr *)&vp->cfg.addr, VERBS_CM_TIMEOUT_MS) !=
	    0) {
		conn_warn(c, "rdma_resolve_addr: ", dvp_strerror(errno), "");
		conn_fail(c);
		return;
	}
	c->st = VERBS_CS_ADDR;
}

static void on_addr(struct verbs_conn *c)
{
	if (rdma_resolve_route(c->id, VERBS_CM_TIMEOUT_MS) != 0) {
		conn_warn(c, "rdma_resolve_route: ", dvp_strerror(errno), "");
		conn_fail(c);
		return;
	}
	c->st = VERBS_CS_ROUTE;
}

static void hello_fill(struct verbs_port *vp, struct verbs_hello *h, uint8_t kind)
{
	memset(h, 0, sizeof(*h));
	h->kind = kind;
	h->mode = (uint8_t)vp->cfg.mode;
	h->nb_rxq = vp->port->nb_rx_queues;
	h->nb_txq = vp->port->nb_tx_queues;
	h->qkey = RDMA_UDP_QKEY;
	h->session = vp->session;
}

/* What our rx queue tells its sender. */
static void hello_rx_side(struct verbs_conn *c, struct verbs_hello *h)
{
	struct verbs_rxq *rxq = conn_rxq(c);

	h->rx_buf_len = rxq->buf_len;
	h->qpn = rxq->qp->qp_num;
	if (rxq->intr.solicited)
		h->flags |= VERBS_HELLO_F_SOLICITED;
}

/* What our tx queue learns from its receiver. */
static void tx_params(struct verbs_conn *c, const struct verbs_hello *h)
{
	struct verbs_txq *txq = conn_txq(c);

	txq->max_len = h->rx_buf_len;
	if (c->vp->cfg.mode == VERBS_MODE_UD)
		txq->max_len = DVP_MIN(txq->max_len, c->vp->path_mtu);
	txq->solicited = (h->flags & VERBS_HELLO_F_SOLICITED) != 0;
	txq->remote_qpn = h->qpn;
	txq->remote_qkey = h->qkey ? h->qkey : RDMA_UDP_QKEY;
}

static void on_route(struct verbs_conn *c)
{
	struct verbs_port *vp = c->vp;
	struct rdma_conn_param cp = { .retry_count = VERBS_RETRY_CNT,
				      .rnr_retry_count = VERBS_RNR_RETRY };
	uint8_t buf[VERBS_HELLO_LEN];
	struct verbs_hello h;
	struct ibv_qp *qp;
	int ret;

	ret = c->tx ? verbs_txq_qp_create(conn_txq(c), c->id) :
		      verbs_rxq_qp_create(conn_rxq(c), c->id);
	if (ret < 0) {
		conn_fail(c);
		return;
	}
	qp = c->tx ? conn_txq(c)->qp : conn_rxq(c)->qp;
	/* UD needs no peer to be ready to send: straight to RTS. */
	if (vp->cfg.mode == VERBS_MODE_UD && verbs_qp_ready(vp, qp, c->id) < 0) {
		conn_fail(c);
		return;
	}
	hello_fill(vp, &h, VERBS_HELLO_REQ);
	h.queue = c->q;
	if (c->tx)
		h.flags |= VERBS_HELLO_F_TX;
	else
		hello_rx_side(c, &h);
	cp.private_data = buf;
	cp.private_data_len = (uint8_t)verbs_hello_encode(&h, buf);
	cp.qp_num = qp->qp_num;
	if (rdma_connect(c->id, &cp) != 0) {
		conn_warn(c, "rdma_connect: ", dvp_strerror(errno), "");
		conn_fail(c);
		return;
	}
	c->st = VERBS_CS_CONNECTING;
}

/* The listener accepted (RC: CONNECT_RESPONSE; UD: ESTABLISHED with its QP and address). */
static void on_accepted(struct verbs_conn *c, const struct cm_ev *e)
{
	struct verbs_port *vp = c->vp;
	char why[160];
	struct verbs_hello h;

	if (verbs_hello_decode(e->pdata, e->pdata_len, &h, why, sizeof(why)) < 0 ||
	    h.kind != VERBS_HELLO_ACCEPT) {
		conn_warn(c, "the listener's accept is not a net_verbs handshake: ",
			  h.kind != VERBS_HELLO_ACCEPT && why[0] == '\0' ? "wrong kind" : why, "");
		conn_fail(c);
		return;
	}
	if (c->tx) {
		struct verbs_txq *txq = conn_txq(c);

		tx_params(c, &h);
		if (vp->cfg.mode == VERBS_MODE_UD) {
			txq->ah = ibv_create_ah(vp->dev->pd, (struct ibv_ah_attr *)&e->ah_attr);
			if (txq->ah == NULL) {
				conn_warn(c, "ibv_create_ah to the listener: ", dvp_strerror(errno),
					  "");
				conn_fail(c);
				return;
			}
			txq->remote_qpn = e->qpn;
			txq->remote_qkey = e->qkey;
		}
	}
	if (vp->cfg.mode == VERBS_MODE_RC) {
		struct ibv_qp *qp = c->tx ? conn_txq(c)->qp : conn_rxq(c)->qp;

		if (verbs_qp_ready(vp, qp, c->id) < 0 || rdma_establish(c->id) != 0) {
			conn_warn(c, "completing the connection: ", dvp_strerror(errno), "");
			conn_fail(c);
			return;
		}
	}
	conn_up(c);
}

static void on_rejected(struct verbs_conn *c, const struct cm_ev *e)
{
	char addr[80], why[160], msg[160];
	struct verbs_hello h;

	__atomic_fetch_add(&c->vp->ps.cm_rejects_received, 1, __ATOMIC_RELAXED);
	if (verbs_hello_decode(e->pdata, e->pdata_len, &h, why, sizeof(why)) == 0 &&
	    h.kind == VERBS_HELLO_REJECT)
		snprintf(msg, sizeof(msg), "the net_verbs port at %s refused: %s",
			 verbs_addr_str((struct sockaddr *)&c->vp->cfg.addr, addr, sizeof(addr)),
			 verbs_reject_reason_str(h.reason));
	else
		snprintf(msg, sizeof(msg), "nothing accepts at %s (reject status %d)",
			 verbs_addr_str((struct sockaddr *)&c->vp->cfg.addr, addr, sizeof(addr)),
			 e->status);
	conn_warn(c, msg, "", "");
	conn_fail(c);
}

/* ------------------------------------------------------------------------
 * Listener
 */

/* The peer's return address for a UD listener's tx queue. */
static int ud_ah_from_route(struct verbs_conn *c, struct rdma_cm_id *id)
{
	struct verbs_port *vp = c->vp;
	struct verbs_txq *txq = conn_txq(c);
	struct ibv_ah_attr a = c->pending_ah;
	union ibv_gid gid;
	int i;

	if (!a.is_global) {
		/* The request carried no path back: build it from the route's GIDs. */
		memset(&a, 0, sizeof(a));
		a.is_global = 1;
		a.port_num = id->port_num;
		a.grh.dgid = id->route.addr.addr.ibaddr.dgid;
		a.grh.hop_limit = 64;
		a.grh.sgid_index = 0;
		for (i = 0; i < 1024; i++) {
			if (ibv_query_gid(vp->dev->ctx, id->port_num, i, &gid) != 0)
				break;
			if (memcmp(&gid, &id->route.addr.addr.ibaddr.sgid, sizeof(gid)) == 0) {
				a.grh.sgid_index = (uint8_t)i;
				break;
			}
		}
	}
	txq->ah = ibv_create_ah(vp->dev->pd, &a);
	if (txq->ah == NULL) {
		VERBS_LOG(ERR, "%s tx queue %u: ibv_create_ah to the peer: %s", vp->name, c->q,
			  dvp_strerror(errno));
		return dvp_err(errno ? errno : EINVAL);
	}
	return 0;
}

static void conn_accept(struct verbs_conn *c)
{
	struct verbs_port *vp = c->vp;
	struct rdma_cm_id *id = c->pending;
	struct verbs_hello h = c->pending_hello, ours;
	struct rdma_conn_param cp = { .retry_count = VERBS_RETRY_CNT,
				      .rnr_retry_count = VERBS_RNR_RETRY };
	uint8_t buf[VERBS_HELLO_LEN];
	struct ibv_qp *qp;
	int ret;

	c->pending = NULL;
	set_ack_timeout(vp, id);
	ret = c->tx ? verbs_txq_qp_create(conn_txq(c), id) : verbs_rxq_qp_create(conn_rxq(c), id);
	if (ret == -EAGAIN) {
		/* Its CQ is being replaced: the request waits for the lcore's wake-up. */
		c->pending = id;
		return;
	}
	if (ret < 0)
		goto refuse;
	qp = c->tx ? conn_txq(c)->qp : conn_rxq(c)->qp;
	hello_fill(vp, &ours, VERBS_HELLO_ACCEPT);
	ours.queue = c->q;
	if (c->tx) {
		tx_params(c, &h);
		if (vp->cfg.mode == VERBS_MODE_UD && ud_ah_from_route(c, id) < 0)
			goto refuse_discard;
	} else {
		hello_rx_side(c, &ours);
	}
	if (verbs_qp_ready(vp, qp, id) < 0)
		goto refuse_discard;
	cp.private_data = buf;
	cp.private_data_len = (uint8_t)verbs_hello_encode(&ours, buf);
	cp.qp_num = qp->qp_num;
	id->context = c;
	if (rdma_accept(id, &cp) != 0) {
		VERBS_LOG(WARNING, "%s %s queue %u: rdma_accept: %s", vp->name, c->tx ? "tx" : "rx",
			  c->q, dvp_strerror(errno));
		queue_discard(c);
		verbs_cm_retire_id(vp, &id);
		c->st = VERBS_CS_IDLE;
		return;
	}
	c->id = id;
	if (vp->cfg.mode == VERBS_MODE_UD) {
		conn_up(c); /* no establishment follows a UD accept */
		return;
	}
	c->st = VERBS_CS_ACCEPTING;
	if (!c->tx && vp->cfg.test_hold_accept_ms != 0)
		verbs_cm_test_hold_accept(vp, conn_rxq(c));
	return;

refuse_discard:
	queue_discard(c);
refuse:
	verbs_cm_reject_id(vp, id, VERBS_REJ_RESOURCES);
	c->st = VERBS_CS_IDLE;
}

static void on_request(struct verbs_port *vp, const struct cm_ev *e)
{
	struct rdma_cm_id *id = e->id;
	struct verbs_hello h;
	struct verbs_conn *c;
	char why[160], addr[80];
	unsigned int i;

	verbs_addr_str(rdma_get_peer_addr(id), addr, sizeof(addr));
	if (verbs_hello_decode(e->pdata, e->pdata_len, &h, why, sizeof(why)) < 0 ||
	    h.kind != VERBS_HELLO_REQ) {
		VERBS_LOG(WARNING,
			  "%s: a connection request from %s is not a net_verbs handshake: %s",
			  vp->name, addr,
			  h.kind != VERBS_HELLO_REQ && why[0] == '\0' ? "wrong kind" : why);
		verbs_cm_reject_id(vp, id, VERBS_REJ_BAD_HELLO);
		return;
	}
	if (!vp->started) {
		VERBS_LOG(DEBUG, "%s: request from %s while stopped: refused", vp->name, addr);
		verbs_cm_reject_id(vp, id, VERBS_REJ_STOPPED);
		return;
	}
	if (h.mode != vp->cfg.mode) {
		VERBS_LOG(WARNING, "%s: %s connects in mode=%s; this port has mode=%s: refused",
			  vp->name, addr, h.mode == VERBS_MODE_UD ? "ud" : "rc",
			  vp->cfg.mode == VERBS_MODE_UD ? "ud" : "rc");
		verbs_cm_reject_id(vp, id, VERBS_REJ_MODE);
		return;
	}
	if (h.nb_txq != vp->port->nb_rx_queues || h.nb_rxq != vp->port->nb_tx_queues) {
		VERBS_LOG(
			WARNING,
			"%s: %s has %u rx and %u tx queues; this port %u rx and %u tx, and each rx queue needs a tx queue on the other side: refused",
			vp->name, addr, h.nb_rxq, h.nb_txq, vp->port->nb_rx_queues,
			vp->port->nb_tx_queues);
		verbs_cm_reject_id(vp, id, VERBS_REJ_QUEUES);
		return;
	}
	/* The connector's tx queue feeds our rx queue, and the other way round. */
	if ((h.flags & VERBS_HELLO_F_TX) ? h.queue >= vp->port->nb_rx_queues :
					   h.queue >= vp->port->nb_tx_queues) {
		verbs_cm_reject_id(vp, id, VERBS_REJ_QUEUE);
		return;
	}
	c = (h.flags & VERBS_HELLO_F_TX) ? &vp->rx_conn[h.queue] : &vp->tx_conn[h.queue];
	if (!vp->cfg.reconnect && c->attempts > 0) {
		verbs_cm_reject_id(vp, id, VERBS_REJ_NO_RECONNECT);
		return;
	}
	if (h.session != vp->peer_session) {
		/* A new peer (or the old one restarted): its old connections are dead. */
		for (i = 0; i < VERBS_MAX_QUEUES; i++) {
			if (vp->rx_conn[i].st == VERBS_CS_UP ||
			    vp->rx_conn[i].st == VERBS_CS_ACCEPTING)
				conn_close(&vp->rx_conn[i], DVP_PORT_CAUSE_NONE);
			if (vp->tx_conn[i].st == VERBS_CS_UP ||
			    vp->tx_conn[i].st == VERBS_CS_ACCEPTING)
				conn_close(&vp->tx_conn[i], DVP_PORT_CAUSE_NONE);
		}
		if (vp->peer_session != 0)
			VERBS_LOG(NOTICE,
				  "%s: the peer at %s restarted; connecting its queues afresh",
				  vp->name, addr);
		vp->peer_session = h.session;
	}
	if (c->pending != NULL) {
		/* An older request for the same queue: the peer gave up on it. */
		verbs_cm_reject_id(vp, c->pending, VERBS_REJ_RESOURCES);
		c->pending = NULL;
	}
	id->context = c;
	c->pending = id;
	c->pending_hello = h;
	c->pending_ah = e->ah_attr;
	c->attempts++;
	if (c->st == VERBS_CS_UP || c->st == VERBS_CS_ACCEPTING)
		conn_close(c, DVP_PORT_CAUSE_NONE); /* the peer redoes a connection we thought up */
	VERBS_LOG(DEBUG, "%s: request for %s queue %u from %s", vp->name, c->tx ? "tx" : "rx", c->q,
		  addr);
}

/* ------------------------------------------------------------------------
 * Events, progress, timer
 */

static void on_event(struct verbs_port *vp, const struct cm_ev *e)
{
	struct verbs_conn *c;
	char name[96];

	if (e->type == RDMA_CM_EVENT_CONNECT_REQUEST) {
		on_request(vp, e);
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
	conn_name(c, name, sizeof(name));
	switch (e->type) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (c->st == VERBS_CS_ADDR)
			on_addr(c);
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		if (c->st == VERBS_CS_ROUTE)
			on_route(c);
		break;
	case RDMA_CM_EVENT_CONNECT_RESPONSE:
		if (c->st == VERBS_CS_CONNECTING)
			on_accepted(c, e);
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		if (c->st == VERBS_CS_ACCEPTING)
			conn_up(c);
		else if (c->st == VERBS_CS_CONNECTING && vp->cfg.mode == VERBS_MODE_UD)
			on_accepted(c, e);
		break;
	case RDMA_CM_EVENT_REJECTED:
		on_rejected(c, e);
		break;
	case RDMA_CM_EVENT_ADDR_ERROR:
	case RDMA_CM_EVENT_ROUTE_ERROR:
	case RDMA_CM_EVENT_UNREACHABLE:
	case RDMA_CM_EVENT_CONNECT_ERROR:
		__atomic_fetch_add(&vp->ps.cm_errors, 1, __ATOMIC_RELAXED);
		conn_warn(c, rdma_event_str(e->type), " status ", dvp_strerror(abs(e->status)));
		conn_fail(c);
		break;
	case RDMA_CM_EVENT_DISCONNECTED:
		__atomic_fetch_add(&vp->ps.cm_disconnects, 1, __ATOMIC_RELAXED);
		VERBS_LOG(NOTICE, "%s: the peer disconnected", name);
		conn_close(c, DVP_PORT_CAUSE_NONE);
		break;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		VERBS_LOG(ERR, "%s: the device was removed", name);
		conn_close(c, DVP_PORT_CAUSE_NONE);
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
	struct cm_ev e;
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

static void progress_conn(struct verbs_conn *c, uint64_t now, uint64_t *next)
{
	struct verbs_port *vp = c->vp;
	uint32_t qs = conn_qstate(c);

	if (c->st == VERBS_CS_UP && qs != VERBS_Q_LIVE) {
		/* Its lcore found the queue broken (an error completion): tell the peer. */
		verbs_cm_retire_id(vp, &c->id);
		c->st = VERBS_CS_CLOSING;
	}
	if (c->st == VERBS_CS_CLOSING) {
		if (c->tx && qs == VERBS_Q_BROKEN && !verbs_txq_try_teardown(conn_txq(c))) {
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
		conn_accept(c);
	else if (c->st == VERBS_CS_IDLE && vp->cfg.role == VERBS_ROLE_CONNECT &&
		 (vp->cfg.reconnect || c->attempts == 0))
		conn_connect(c);
	else if (c->st == VERBS_CS_BACKOFF && (vp->cfg.reconnect || !vp->connected_once)) {
		if (now >= c->retry_at)
			conn_connect(c);
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
