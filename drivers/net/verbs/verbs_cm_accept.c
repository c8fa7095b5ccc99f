/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The listen= side of a connection: a request is checked (a net_verbs
 * handshake, our mode, matching queue counts, a queue that exists, a peer
 * that restarted has its old connections closed) and kept on the
 * connection it names until progress finds that queue DOWN; then it is
 * accepted with our half of the handshake (a UD tx queue makes its
 * address handle from the route), or rejected with the reason the
 * connector logs.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "verbs_conn.h"

/*
 * Tests only (DVP_VERBS_TEST_HOLD_ACCEPT_MS): hold the interrupt thread
 * between the accept of an rx queue (its QP receives) and ESTABLISHED
 * (which makes it live) until its lcore has read a completion event, or
 * that many ms: a first frame then deterministically lands while the
 * queue is not live, with the lcore asleep on it.
 */
static void test_hold_accept(struct verbs_port *vp, struct verbs_rxq *rxq)
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

/* The peer's return address for a UD listener's tx queue. */
static int ud_ah_from_route(struct verbs_conn *c, struct rdma_cm_id *id)
{
	struct verbs_port *vp = c->vp;
	struct verbs_txq *txq = verbs_conn_txq(c);
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

void verbs_conn_accept(struct verbs_conn *c)
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
	verbs_conn_set_ack_timeout(vp, id);
	ret = c->tx ? verbs_txq_qp_create(verbs_conn_txq(c), id) :
		      verbs_rxq_qp_create(verbs_conn_rxq(c), id);
	if (ret == -EAGAIN) {
		/* Its CQ is being replaced: the request waits for the lcore's wake-up. */
		c->pending = id;
		return;
	}
	if (ret < 0)
		goto refuse;
	qp = c->tx ? verbs_conn_txq(c)->qp : verbs_conn_rxq(c)->qp;
	verbs_conn_hello_fill(vp, &ours, VERBS_HELLO_ACCEPT);
	ours.queue = c->q;
	if (c->tx) {
		verbs_conn_tx_params(c, &h);
		if (vp->cfg.mode == VERBS_MODE_UD && ud_ah_from_route(c, id) < 0)
			goto refuse_discard;
	} else {
		verbs_conn_hello_rx_side(c, &ours);
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
		verbs_conn_discard(c);
		verbs_cm_retire_id(vp, &id);
		c->st = VERBS_CS_IDLE;
		return;
	}
	c->id = id;
	if (vp->cfg.mode == VERBS_MODE_UD) {
		verbs_conn_up(c); /* no establishment follows a UD accept */
		return;
	}
	c->st = VERBS_CS_ACCEPTING;
	if (!c->tx && vp->cfg.test_hold_accept_ms != 0)
		test_hold_accept(vp, verbs_conn_rxq(c));
	return;

refuse_discard:
	verbs_conn_discard(c);
refuse:
	verbs_cm_reject_id(vp, id, VERBS_REJ_RESOURCES);
	c->st = VERBS_CS_IDLE;
}

void verbs_cm_on_request(struct verbs_port *vp, const struct verbs_cm_event *e)
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
		/*
		 * A new peer, the old one restarted, or one that renewed its
		 * session after its path to us broke: its old connections are dead.
		 */
		for (i = 0; i < VERBS_MAX_QUEUES; i++) {
			if (vp->rx_conn[i].st == VERBS_CS_UP ||
			    vp->rx_conn[i].st == VERBS_CS_ACCEPTING)
				verbs_conn_close(&vp->rx_conn[i], DVP_PORT_CAUSE_NONE);
			if (vp->tx_conn[i].st == VERBS_CS_UP ||
			    vp->tx_conn[i].st == VERBS_CS_ACCEPTING)
				verbs_conn_close(&vp->tx_conn[i], DVP_PORT_CAUSE_NONE);
		}
		if (vp->peer_session != 0)
			VERBS_LOG(
				NOTICE,
				"%s: the peer at %s restarted or renewed its session; connecting its queues afresh",
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
		verbs_conn_close(
			c, DVP_PORT_CAUSE_NONE); /* the peer redoes a connection we thought up */
	VERBS_LOG(DEBUG, "%s: request for %s queue %u from %s", vp->name, c->tx ? "tx" : "rx", c->q,
		  addr);
}
