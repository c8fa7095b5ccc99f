/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * net_ring's port ops: queues, start/stop/close, link, and the queue
 * errors the emulated device reports (counters are in ring_stats.c, ports
 * are made in ring_vdev.c). doc/driver-guide.md walks through the driver
 * as the model for driver authors.
 */

#include <errno.h>
#include <stdio.h>

#include <dvp_malloc.h>

#include "net_ring_private.h"

DVP_LOG_REGISTER(ring_logtype, "pmd.net.ring", NOTICE);

/* Guards the inbox and port lists and the cabling between ports. */
pthread_mutex_t ring_lock = PTHREAD_MUTEX_INITIALIZER;

/* The driver's ports (under ring_lock). */
struct ring_port *ring_ports;

struct ring_port *ring_port_of(uint16_t port_id)
{
	struct dvp_port *port = dvp_port_get(port_id);

	if (port == NULL || port->ops != &ring_port_ops)
		return NULL;
	return port->priv;
}

void ring_port_unlink_locked(struct ring_port *np)
{
	struct ring_port **l;

	for (l = &ring_ports; *l != NULL; l = &(*l)->next) {
		if (*l == np) {
			*l = np->next;
			break;
		}
	}
}

/* ------------------------------------------------------------------------
 * Ops
 */

static int ring_info_get(struct dvp_port *port, struct dvp_port_info *info)
{
	struct ring_port *np = port->priv;
	unsigned int cap =
		dvp_ring_get_capacity(np->rx[0] != NULL ? np->rx[0]->ring : np->tx[0]->ring);

	info->max_rx_queues = (uint16_t)np->nb_rx_rings;
	info->max_tx_queues = (uint16_t)np->nb_tx_rings;
	/* Descriptors are the ring's entries, fixed at creation: any count is taken. */
	info->rx_desc_lim =
		(struct dvp_desc_lim){ .nb_max = UINT16_MAX, .nb_min = 1, .nb_align = 1 };
	info->tx_desc_lim = info->rx_desc_lim;
	info->default_rxq_size = (uint16_t)DVP_MIN(cap, UINT16_MAX);
	info->default_txq_size = info->default_rxq_size;
	info->rx_offload_capa = DVP_RX_OFFLOAD_SCATTER;
	info->tx_offload_capa = DVP_TX_OFFLOAD_MULTI_SEGS;
	info->min_mtu = 68;
	info->max_mtu = 9000;
	info->max_rx_pktlen = 9018;
	info->intr_capa = DVP_PORT_INTR_RXQ | DVP_PORT_INTR_LSC | DVP_PORT_INTR_RMV |
			  DVP_PORT_INTR_QUEUE_ERROR;
	info->speed_capa_mbps = DVP_LINK_SPEED_10G;
	return 0;
}

static int ring_configure(struct dvp_port *port)
{
	/* Nothing to program: lib/port checked the counts against the rings. */
	(void)port;
	return 0;
}

static int ring_rxq_setup(struct dvp_port *port, uint16_t q, uint16_t nb_desc, int socket_id,
			  const struct dvp_rxq_conf *conf, struct dvp_mempool *mp)
{
	struct ring_port *np = port->priv;
	struct ring_rxq *rxq;
	int ret;

	(void)nb_desc;
	(void)conf;
	(void)mp; /* frames come with their own mbufs: net_ring allocates none */
	rxq = dvp_zmalloc_socket("net_ring rxq", sizeof(*rxq), 0, socket_id);
	if (rxq == NULL)
		return -dvp_errno;
	rxq->in = np->rx[q];
	rxq->np = np;
	rxq->port_id = port->port_id;
	rxq->queue_id = q;
	if (port->conf.intr_conf.rxq) {
		struct dvp_rxwait_queue_conf ic = dvp_port_rxq_intr_conf(port, q, rxq->in->efd);

		ret = dvp_port_rxq_intr_init(port, q, &rxq->intr, &ring_intr_ops, rxq, &ic);
		if (ret < 0) {
			dvp_free(rxq);
			return ret;
		}
	}
	port->rxqs[q] = rxq;
	dvp_port_queue_fault_attach(port, q, false, &rxq->fault);
	return 0;
}

static void ring_rxq_release(struct dvp_port *port, uint16_t q)
{
	struct ring_port *np = port->priv;
	struct ring_rxq *rxq = port->rxqs[q];
	uint64_t got, acked;

	/* As before destroying a CQ: out of its wait set, every event acked. */
	dvp_rxwait_queue_fini(&rxq->intr);
	got = dvp_counter_read(&rxq->events_got);
	acked = dvp_counter_read(&rxq->events_acked);
	if (got != acked) {
		/* With verbs, ibv_destroy_cq() would hang here. */
		__atomic_fetch_add(&np->ps.unacked_at_release, got - acked, __ATOMIC_RELAXED);
		RING_LOG(ERR, "%s rx queue %u: released with %llu of %llu events unacked",
			 port->name, q, (unsigned long long)(got - acked), (unsigned long long)got);
	}
	ring_inbox_drain(rxq->in);
	port->rxqs[q] = NULL;
	port->rxq_intr[q] = NULL;
	dvp_free(rxq);
}

static int ring_txq_setup(struct dvp_port *port, uint16_t q, uint16_t nb_desc, int socket_id,
			  const struct dvp_txq_conf *conf)
{
	struct ring_port *np = port->priv;
	struct ring_txq *txq;

	(void)nb_desc;
	(void)conf;
	txq = dvp_zmalloc_socket("net_ring txq", sizeof(*txq), 0, socket_id);
	if (txq == NULL)
		return -dvp_errno;
	txq->np = np;
	txq->queue_id = q;
	port->txqs[q] = txq;
	dvp_port_queue_fault_attach(port, q, true, &txq->fault);
	return 0;
}

static void ring_txq_release(struct dvp_port *port, uint16_t q)
{
	dvp_free(port->txqs[q]);
	port->txqs[q] = NULL;
}

/*
 * Report the link: up when the cable is plugged and both ends run. Under
 * ring_lock, which keeps np->peer alive while we look at it.
 */
void ring_link_update_locked(struct ring_port *np, enum dvp_port_event_cause cause)
{
	struct dvp_link link = {
		.link_speed = DVP_LINK_SPEED_10G,
		.link_duplex = DVP_LINK_FULL_DUPLEX,
		.link_autoneg = DVP_LINK_FIXED,
	};
	bool up = __atomic_load_n(&np->running, __ATOMIC_RELAXED) &&
		  __atomic_load_n(&np->carrier, __ATOMIC_RELAXED);

	if (np->port->device != NULL && np->peer == NULL)
		up = false; /* a vdev whose peer was closed: the cable hangs loose */
	else if (up && np->peer != NULL && np->peer != np)
		up = __atomic_load_n(&np->peer->running, __ATOMIC_RELAXED);
	link.link_status = up ? DVP_LINK_UP : DVP_LINK_DOWN;
	if (!up)
		link.link_speed = DVP_LINK_SPEED_NONE;
	dvp_port_link_set(np->port, &link, cause);
}

/*
 * After a removal the application may reset the port: the emulated device
 * comes back at once (lib/port forgets the removal), and a later
 * DEVICE_FATAL is a new removal.
 */
static int ring_reset(struct dvp_port *port)
{
	(void)port;
	return 0;
}

static int ring_link_update(struct dvp_port *port, bool wait)
{
	(void)wait; /* a ring's link is settled at once */
	pthread_mutex_lock(&ring_lock);
	ring_link_update_locked(port->priv, DVP_PORT_CAUSE_NONE);
	pthread_mutex_unlock(&ring_lock);
	return 0;
}

/* After a start or stop: both ends of the cable re-read their link. */
static void links_update(struct ring_port *np)
{
	pthread_mutex_lock(&ring_lock);
	ring_link_update_locked(np, DVP_PORT_CAUSE_NONE);
	if (np->peer != NULL && np->peer != np)
		ring_link_update_locked(np->peer, DVP_PORT_CAUSE_NONE);
	pthread_mutex_unlock(&ring_lock);
}

static int ring_start(struct dvp_port *port)
{
	struct ring_port *np = port->priv;
	uint16_t q;

	pthread_mutex_lock(&ring_lock);
	for (q = 0; q < port->nb_tx_queues; q++) {
		struct ring_txq *txq = port->txqs[q];

		txq->out = np->tx[q];
		/* A fault left from before the stop: the stop emptied what it broke. */
		(void)dvp_queue_fault_take(&txq->fault);
	}
	for (q = 0; q < port->nb_rx_queues; q++) {
		struct ring_rxq *rxq = port->rxqs[q];

		(void)dvp_queue_fault_take(&rxq->fault);
		/* Seq_cst: pairs with the producers' check (ring_tx_burst()). */
		__atomic_store_n(&rxq->in->open, 1, __ATOMIC_SEQ_CST);
	}
	pthread_mutex_unlock(&ring_lock);
	port->rx_pkt_burst = ring_rx_burst;
	port->tx_pkt_burst = ring_tx_burst;
	__atomic_store_n(&np->running, 1, __ATOMIC_RELAXED);
	links_update(np);
	return 0;
}

static int ring_stop(struct dvp_port *port)
{
	struct ring_port *np = port->priv;
	unsigned int q;

	/* Every inbox this port reads: shut, wait for producers, give the frames back. */
	for (q = 0; q < np->nb_rx_rings; q++) {
		if (np->rx[q] == NULL || np->rx[q]->consumer != np)
			continue;
		ring_inbox_close(np->rx[q]);
		ring_inbox_drain(np->rx[q]);
	}
	__atomic_store_n(&np->running, 0, __ATOMIC_RELAXED);
	links_update(np);
	return 0;
}

static unsigned int ring_mbufs_held(struct dvp_port *port)
{
	struct ring_port *np = port->priv;
	unsigned int q, n = 0;

	for (q = 0; q < np->nb_rx_rings; q++)
		if (np->rx[q] != NULL && np->rx[q]->consumer == np)
			n += dvp_ring_count(np->rx[q]->ring);
	return n;
}

static int ring_close(struct dvp_port *port)
{
	struct ring_port *np = port->priv;
	struct ring_port *peer = NULL;
	unsigned int q;

	ring_async_fini(np);
	pthread_mutex_lock(&ring_lock);
	ring_port_unlink_locked(np);
	if (np->peer != NULL && np->peer != np) {
		peer = np->peer;
		peer->peer = NULL;
	}
	for (q = 0; q < np->nb_rx_rings; q++) {
		if (np->rx[q]->consumer == np) {
			np->rx[q]->consumer = NULL;
			/* No reader any more: the peer's frames are lost on the wire. */
			__atomic_store_n(&np->rx[q]->open, 0, __ATOMIC_SEQ_CST);
		}
		ring_inbox_put_locked(np->rx[q]);
		np->rx[q] = NULL;
	}
	for (q = 0; q < np->nb_tx_rings; q++) {
		ring_inbox_put_locked(np->tx[q]);
		np->tx[q] = NULL;
	}
	if (peer != NULL)
		ring_link_update_locked(peer, DVP_PORT_CAUSE_NONE);
	pthread_mutex_unlock(&ring_lock);
	return 0;
}

/* The queue_restart op: a fault raised while the port is stopped. */
int ring_queue_restart(struct dvp_port *port, uint16_t q, bool tx, enum dvp_port_event_cause cause)
{
	(void)cause; /* reported by lib/port */
	if (tx)
		ring_txq_restart(port->txqs[q]);
	else
		ring_rxq_restart(port->rxqs[q]);
	return 0;
}

const struct dvp_port_ops ring_port_ops = {
	.info_get = ring_info_get,
	.configure = ring_configure,
	.rxq_setup = ring_rxq_setup,
	.rxq_release = ring_rxq_release,
	.txq_setup = ring_txq_setup,
	.txq_release = ring_txq_release,
	.start = ring_start,
	.stop = ring_stop,
	.close = ring_close,
	.queue_restart = ring_queue_restart,
	.reset = ring_reset,
	.link_update = ring_link_update,
	/* Every frame in the ring is for this port, whatever its size. */
	.promiscuous_enable = dvp_port_op_promisc_nop,
	.promiscuous_disable = dvp_port_op_promisc_nop,
	.mac_addr_set = dvp_port_op_mac_addr_set_nop,
	.mtu_set = dvp_port_op_mtu_set_nop,
	.stats_get = ring_stats_get,
	.stats_reset = ring_stats_reset,
	.xstats = ring_xstats,
	.xstats_reset = ring_xstats_reset,
	.mbufs_held = ring_mbufs_held,
};
