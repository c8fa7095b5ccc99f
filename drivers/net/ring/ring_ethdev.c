/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * net_ring's control path: the vdev (devargs, cabling), ports made from an
 * application's rings, and the port ops. doc/driver-guide.md walks through
 * this file as the model for driver authors.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <dvp_malloc.h>

#include "net_ring_private.h"

DVP_LOG_REGISTER(nr_logtype, "pmd.net.ring", NOTICE);

/* Guards the inbox and port lists and the cabling between ports. */
pthread_mutex_t nr_lock = PTHREAD_MUTEX_INITIALIZER;
static struct nr_inbox *inboxes;
static struct nr_port *nr_ports;

#define NR_DEFAULT_SIZE 1024
#define NR_MAX_SIZE (1u << 20)

static const struct dvp_devargs_key nr_keys[] = {
	{ "queues",
	  "rx and tx queues of the port, 1 to " DVP_STR(DVP_NET_RING_MAX_QUEUES) " (default 1)" },
	{ "size", "entries of each ring, a power of two from 2 to 1048576 (default 1024)" },
	{ "peer", "a net_ring port to cable this one to, back to back (default: loop back)" },
	{ "mac", "the port's MAC address, xx:xx:xx:xx:xx:xx (default 02:70:63:61:70:<port id>)" },
	{ NULL, NULL },
};

struct nr_port *nr_port_of(uint16_t port_id)
{
	struct dvp_port *port = dvp_port_get(port_id);

	if (port == NULL || port->ops != &nr_ops)
		return NULL;
	return port->priv;
}

/* ------------------------------------------------------------------------
 * Inboxes (under nr_lock)
 */

/*
 * A ring of the driver's own, in EAL memory on the port's node (the
 * consumer is always one rx queue; producers are any tx queues).
 */
static struct dvp_ring *ring_new(const char *name, unsigned int size, int socket_id)
{
	ssize_t sz = dvp_ring_get_memsize(size);
	struct dvp_ring *r;

	if (sz < 0) {
		dvp_errno = EINVAL;
		return NULL;
	}
	r = dvp_zmalloc_socket("net_ring ring", (size_t)sz, 2 * DVP_CACHE_LINE_SIZE, socket_id);
	if (r == NULL)
		return NULL;
	if (dvp_ring_init(r, name, size, DVP_RING_F_SC_DEQ) < 0) {
		dvp_free(r);
		dvp_errno = EINVAL;
		return NULL;
	}
	return r;
}

static struct nr_inbox *inbox_new_locked(struct dvp_ring *ring, bool own)
{
	struct nr_inbox *in = calloc(1, sizeof(*in));

	if (in == NULL)
		return NULL;
	in->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (in->efd < 0) {
		NR_LOG(ERR, "ring %s: eventfd: %s", dvp_ring_get_name(ring), dvp_strerror(errno));
		free(in);
		return NULL;
	}
	in->ring = ring;
	in->own_ring = own;
	/* No consumer port yet: the application reads it, so it is open. */
	in->open = 1;
	in->next = inboxes;
	inboxes = in;
	return in;
}

static struct nr_inbox *inbox_of_ring_locked(struct dvp_ring *ring)
{
	struct nr_inbox *in;

	for (in = inboxes; in != NULL; in = in->next)
		if (in->ring == ring)
			return in;
	return inbox_new_locked(ring, false);
}

static void inbox_put_locked(struct nr_inbox *in)
{
	struct nr_inbox **l;

	if (in == NULL || --in->refs > 0)
		return;
	for (l = &inboxes; *l != in; l = &(*l)->next)
		;
	*l = in->next;
	close(in->efd);
	if (in->own_ring) {
		/* The last reference: frames still in the ring go back to their pools. */
		nr_inbox_drain(in);
		dvp_free(in->ring);
	}
	/* An application's ring keeps its frames: the application reads or drains it. */
	free(in);
}

static void inbox_get(struct nr_inbox *in)
{
	in->refs++;
}

/* ------------------------------------------------------------------------
 * Ops
 */

static int nr_info_get(struct dvp_port *port, struct dvp_port_info *info)
{
	struct nr_port *np = port->priv;
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

static int nr_configure(struct dvp_port *port)
{
	/* Nothing to program: lib/port checked the counts against the rings. */
	(void)port;
	return 0;
}

static int nr_rxq_setup(struct dvp_port *port, uint16_t q, uint16_t nb_desc, int socket_id,
			const struct dvp_rxq_conf *conf, struct dvp_mempool *mp)
{
	struct nr_port *np = port->priv;
	struct nr_rxq *rxq;
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
		struct dvp_intr_queue_conf ic = {
			.fd = rxq->in->efd,
			.ack_batch = port->conf.intr_conf.rxq_ack_batch,
			.solicited = port->conf.intr_conf.rxq_solicited,
			.port_id = port->port_id,
			.queue_id = q,
		};

		ret = dvp_intr_queue_init(&rxq->intr, &nr_intr_ops, rxq, &ic);
		if (ret < 0) {
			dvp_free(rxq);
			return ret;
		}
		port->rxq_intr[q] = &rxq->intr;
	}
	port->rxqs[q] = rxq;
	return 0;
}

static void nr_rxq_release(struct dvp_port *port, uint16_t q)
{
	struct nr_port *np = port->priv;
	struct nr_rxq *rxq = port->rxqs[q];
	uint64_t got, acked;

	/* As before destroying a CQ: out of its wait set, every event acked. */
	dvp_intr_queue_fini(&rxq->intr);
	got = nr_ctr_read(&rxq->events_got);
	acked = nr_ctr_read(&rxq->events_acked);
	if (got != acked) {
		/* With verbs, ibv_destroy_cq() would hang here. */
		__atomic_fetch_add(&np->unacked_at_release, got - acked, __ATOMIC_RELAXED);
		NR_LOG(ERR, "%s rx queue %u: released with %llu of %llu events unacked", port->name,
		       q, (unsigned long long)(got - acked), (unsigned long long)got);
	}
	nr_inbox_drain(rxq->in);
	port->rxqs[q] = NULL;
	port->rxq_intr[q] = NULL;
	dvp_free(rxq);
}

static int nr_txq_setup(struct dvp_port *port, uint16_t q, uint16_t nb_desc, int socket_id,
			const struct dvp_txq_conf *conf)
{
	struct nr_port *np = port->priv;
	struct nr_txq *txq;

	(void)nb_desc;
	(void)conf;
	txq = dvp_zmalloc_socket("net_ring txq", sizeof(*txq), 0, socket_id);
	if (txq == NULL)
		return -dvp_errno;
	txq->np = np;
	txq->queue_id = q;
	port->txqs[q] = txq;
	return 0;
}

static void nr_txq_release(struct dvp_port *port, uint16_t q)
{
	dvp_free(port->txqs[q]);
	port->txqs[q] = NULL;
}

/*
 * Report the link: up when the cable is plugged and both ends run. Under
 * nr_lock, which keeps np->peer alive while we look at it.
 */
static void link_update_locked(struct nr_port *np)
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
	dvp_port_link_set(np->port, &link);
}

/*
 * After a removal the application may reset the port: the emulated device
 * comes back, and a later DEVICE_FATAL is a new removal.
 */
static int nr_reset(struct dvp_port *port)
{
	struct nr_port *np = port->priv;
	int ret;

	ret = dvp_intr_async_del_port(np->async_src, port->port_id);
	if (ret == 0)
		ret = dvp_intr_async_add_port(np->async_src, port->port_id);
	return ret;
}

static int nr_link_update(struct dvp_port *port, bool wait)
{
	(void)wait; /* a ring's link is settled at once */
	pthread_mutex_lock(&nr_lock);
	link_update_locked(port->priv);
	pthread_mutex_unlock(&nr_lock);
	return 0;
}

/* After a start or stop: both ends of the cable re-read their link. */
static void links_update(struct nr_port *np)
{
	pthread_mutex_lock(&nr_lock);
	link_update_locked(np);
	if (np->peer != NULL && np->peer != np)
		link_update_locked(np->peer);
	pthread_mutex_unlock(&nr_lock);
}

static int nr_start(struct dvp_port *port)
{
	struct nr_port *np = port->priv;
	uint16_t q;

	pthread_mutex_lock(&nr_lock);
	for (q = 0; q < port->nb_tx_queues; q++) {
		struct nr_txq *txq = port->txqs[q];

		txq->out = np->tx[q];
		__atomic_store_n(&txq->error, 0, __ATOMIC_RELAXED);
	}
	for (q = 0; q < port->nb_rx_queues; q++) {
		struct nr_rxq *rxq = port->rxqs[q];

		__atomic_store_n(&rxq->error, 0, __ATOMIC_RELAXED);
		/* Seq_cst: pairs with the producers' check (nr_tx_burst()). */
		__atomic_store_n(&rxq->in->open, 1, __ATOMIC_SEQ_CST);
	}
	pthread_mutex_unlock(&nr_lock);
	port->rx_pkt_burst = nr_rx_burst;
	port->tx_pkt_burst = nr_tx_burst;
	__atomic_store_n(&np->running, 1, __ATOMIC_RELAXED);
	links_update(np);
	return 0;
}

static int nr_stop(struct dvp_port *port)
{
	struct nr_port *np = port->priv;
	unsigned int q;

	/* Every inbox this port reads: shut, wait for producers, give the frames back. */
	for (q = 0; q < np->nb_rx_rings; q++) {
		if (np->rx[q] == NULL || np->rx[q]->consumer != np)
			continue;
		nr_inbox_close(np->rx[q]);
		nr_inbox_drain(np->rx[q]);
	}
	__atomic_store_n(&np->running, 0, __ATOMIC_RELAXED);
	links_update(np);
	return 0;
}

static unsigned int nr_mbufs_held(struct dvp_port *port)
{
	struct nr_port *np = port->priv;
	unsigned int q, n = 0;

	for (q = 0; q < np->nb_rx_rings; q++)
		if (np->rx[q] != NULL && np->rx[q]->consumer == np)
			n += dvp_ring_count(np->rx[q]->ring);
	return n;
}

static int nr_close(struct dvp_port *port)
{
	struct nr_port *np = port->priv;
	struct nr_port **l, *peer = NULL;
	unsigned int q;

	nr_async_fini(np);
	pthread_mutex_lock(&nr_lock);
	for (l = &nr_ports; *l != NULL; l = &(*l)->next) {
		if (*l == np) {
			*l = np->next;
			break;
		}
	}
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
		inbox_put_locked(np->rx[q]);
		np->rx[q] = NULL;
	}
	for (q = 0; q < np->nb_tx_rings; q++) {
		inbox_put_locked(np->tx[q]);
		np->tx[q] = NULL;
	}
	if (peer != NULL)
		link_update_locked(peer);
	pthread_mutex_unlock(&nr_lock);
	return 0;
}

static int nr_promisc(struct dvp_port *port)
{
	/* Every frame in the ring is for this port: nothing to change. */
	(void)port;
	return 0;
}

static int nr_mac_addr_set(struct dvp_port *port, const struct dvp_ether_addr *mac)
{
	(void)port;
	(void)mac;
	return 0;
}

static int nr_mtu_set(struct dvp_port *port, uint16_t mtu)
{
	(void)port;
	(void)mtu;
	return 0;
}

static void qstats_read(const struct nr_qstats *st, const struct nr_qstats *base,
			struct nr_qstats *out)
{
	out->packets = nr_ctr_read(&st->packets) - nr_ctr_read(&base->packets);
	out->bytes = nr_ctr_read(&st->bytes) - nr_ctr_read(&base->bytes);
	out->errors = nr_ctr_read(&st->errors) - nr_ctr_read(&base->errors);
}

static void qstats_reset(const struct nr_qstats *st, struct nr_qstats *base)
{
	/* The lcore owns the counters: move the zero (see lib/intr's stats reset). */
	__atomic_store_n(&base->packets, nr_ctr_read(&st->packets), __ATOMIC_RELAXED);
	__atomic_store_n(&base->bytes, nr_ctr_read(&st->bytes), __ATOMIC_RELAXED);
	__atomic_store_n(&base->errors, nr_ctr_read(&st->errors), __ATOMIC_RELAXED);
}

static int nr_stats_get(struct dvp_port *port, struct dvp_port_stats *stats)
{
	struct nr_qstats s;
	uint16_t q;

	for (q = 0; q < port->nb_rx_queues; q++) {
		struct nr_rxq *rxq = port->rxqs[q];

		if (rxq == NULL)
			continue;
		qstats_read(&rxq->st, &rxq->base, &s);
		stats->ipackets += s.packets;
		stats->ibytes += s.bytes;
		stats->ierrors += s.errors;
		if (q < DVP_PORT_QUEUE_STAT_CNTRS) {
			stats->q_ipackets[q] = s.packets;
			stats->q_ibytes[q] = s.bytes;
			stats->q_errors[q] = s.errors;
		}
	}
	for (q = 0; q < port->nb_tx_queues; q++) {
		struct nr_txq *txq = port->txqs[q];

		if (txq == NULL)
			continue;
		qstats_read(&txq->st, &txq->base, &s);
		stats->opackets += s.packets;
		stats->obytes += s.bytes;
		stats->oerrors += s.errors;
		if (q < DVP_PORT_QUEUE_STAT_CNTRS) {
			stats->q_opackets[q] = s.packets;
			stats->q_obytes[q] = s.bytes;
		}
	}
	return 0;
}

static int nr_stats_reset(struct dvp_port *port)
{
	uint16_t q;

	for (q = 0; q < port->nb_rx_queues; q++) {
		struct nr_rxq *rxq = port->rxqs[q];

		if (rxq != NULL)
			qstats_reset(&rxq->st, &rxq->base);
	}
	for (q = 0; q < port->nb_tx_queues; q++) {
		struct nr_txq *txq = port->txqs[q];

		if (txq != NULL)
			qstats_reset(&txq->st, &txq->base);
	}
	return 0;
}

static const char *const nr_xstat_names[] = {
	"tx_peer_stopped_drops",      "queue_restarts",
	"async_events_acked",	      "rx_intr_events_written",
	"rx_intr_unacked_at_release",
};

static int nr_xstats_get_names(struct dvp_port *port, struct dvp_xstat_name *names,
			       unsigned int size)
{
	unsigned int i;

	(void)port;
	for (i = 0; i < size && i < DVP_DIM(nr_xstat_names); i++)
		snprintf(names[i].name, sizeof(names[i].name), "%s", nr_xstat_names[i]);
	return DVP_DIM(nr_xstat_names);
}

static int nr_xstats_get(struct dvp_port *port, uint64_t *values, unsigned int size)
{
	struct nr_port *np = port->priv;
	uint64_t v[DVP_DIM(nr_xstat_names)] = { 0 };
	unsigned int i;
	uint16_t q;

	for (q = 0; q < port->nb_tx_queues; q++)
		if (port->txqs[q] != NULL)
			v[0] += nr_ctr_read(&((struct nr_txq *)port->txqs[q])->peer_stopped_drops);
	v[1] = __atomic_load_n(&np->queue_restarts, __ATOMIC_RELAXED);
	v[2] = __atomic_load_n(&np->async_acked, __ATOMIC_RELAXED);
	for (q = 0; q < np->nb_rx_rings; q++)
		if (np->rx[q] != NULL && np->rx[q]->consumer == np)
			v[3] += __atomic_load_n(&np->rx[q]->events_written, __ATOMIC_RELAXED);
	v[4] = __atomic_load_n(&np->unacked_at_release, __ATOMIC_RELAXED);
	for (i = 0; i < size && i < DVP_DIM(v); i++)
		values[i] = v[i];
	return DVP_DIM(v);
}

static int nr_xstats_reset(struct dvp_port *port)
{
	struct nr_port *np = port->priv;
	uint16_t q;

	for (q = 0; q < port->nb_tx_queues; q++)
		if (port->txqs[q] != NULL)
			__atomic_store_n(&((struct nr_txq *)port->txqs[q])->peer_stopped_drops, 0,
					 __ATOMIC_RELAXED);
	__atomic_store_n(&np->queue_restarts, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&np->async_acked, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&np->unacked_at_release, 0, __ATOMIC_RELAXED);
	for (q = 0; q < np->nb_rx_rings; q++)
		if (np->rx[q] != NULL && np->rx[q]->consumer == np)
			__atomic_store_n(&np->rx[q]->events_written, 0, __ATOMIC_RELAXED);
	return 0;
}

static void nr_queue_error(struct dvp_port *port, uint16_t q, bool tx, enum ibv_event_type cause)
{
	uint32_t mark = (uint32_t)cause + 1;

	if (!port->started) {
		/* Nobody polls it: restart it here. */
		if (tx)
			nr_txq_restart(port->txqs[q], (int)cause);
		else
			nr_rxq_restart(port->rxqs[q], (int)cause);
		return;
	}
	if (tx) {
		__atomic_store_n(&((struct nr_txq *)port->txqs[q])->error, mark, __ATOMIC_RELAXED);
		return;
	}
	__atomic_store_n(&((struct nr_rxq *)port->rxqs[q])->error, mark, __ATOMIC_RELAXED);
	/* Wake a sleeping consumer so that it polls and restarts the queue. */
	__atomic_fetch_add(&((struct nr_rxq *)port->rxqs[q])->in->events_written, 1,
			   __ATOMIC_RELAXED);
	(void)eventfd_write(((struct nr_rxq *)port->rxqs[q])->in->efd, 1);
}

const struct dvp_port_ops nr_ops = {
	.info_get = nr_info_get,
	.configure = nr_configure,
	.rxq_setup = nr_rxq_setup,
	.rxq_release = nr_rxq_release,
	.txq_setup = nr_txq_setup,
	.txq_release = nr_txq_release,
	.start = nr_start,
	.stop = nr_stop,
	.close = nr_close,
	.reset = nr_reset,
	.link_update = nr_link_update,
	.promiscuous_enable = nr_promisc,
	.promiscuous_disable = nr_promisc,
	.mac_addr_set = nr_mac_addr_set,
	.mtu_set = nr_mtu_set,
	.stats_get = nr_stats_get,
	.stats_reset = nr_stats_reset,
	.xstats_get_names = nr_xstats_get_names,
	.xstats_get = nr_xstats_get,
	.xstats_reset = nr_xstats_reset,
	.mbufs_held = nr_mbufs_held,
	.queue_error = nr_queue_error,
};

/* ------------------------------------------------------------------------
 * Creating ports
 */

/* Allocate the port and its private part; rings are attached by the caller. */
static struct nr_port *nr_port_new(const char *name, struct dvp_device *dev, int numa_node,
				   const struct dvp_ether_addr *mac)
{
	struct dvp_port *port;
	struct nr_port *np;

	port = dvp_port_allocate(name, NR_DRIVER_NAME, &nr_ops, dev, sizeof(*np));
	if (port == NULL)
		return NULL;
	np = port->priv;
	np->port = port;
	np->async_fd = -1;
	np->carrier = 1;
	port->numa_node = numa_node;
	if (mac != NULL) {
		port->mac = *mac;
	} else {
		/* Locally administered: 02:70:63:61:70 is "pcap"-ish ASCII, then the port id. */
		port->mac = (struct dvp_ether_addr){ { 0x02, 0x70, 0x63, 0x61, 0x70,
						       (uint8_t)port->port_id } };
	}
	return np;
}

/* Undo nr_port_new() and the inbox references taken since (under nr_lock). */
static void nr_port_abort_locked(struct nr_port *np)
{
	unsigned int q;

	for (q = 0; q < DVP_NET_RING_MAX_QUEUES; q++) {
		if (np->rx[q] != NULL && np->rx[q]->consumer == np)
			np->rx[q]->consumer = NULL;
		inbox_put_locked(np->rx[q]);
		inbox_put_locked(np->tx[q]);
	}
	dvp_port_release(np->port);
}

/* Async events, then visible to applications (NEW). */
static int nr_port_finish(struct nr_port *np)
{
	int ret = nr_async_init(np);

	if (ret < 0)
		return ret;
	ret = dvp_port_probing_finish(np->port);
	if (ret < 0) {
		nr_async_fini(np);
		return ret;
	}
	pthread_mutex_lock(&nr_lock);
	np->next = nr_ports;
	nr_ports = np;
	link_update_locked(np);
	pthread_mutex_unlock(&nr_lock);
	return 0;
}

int dvp_net_ring_create(const char *name, struct dvp_ring *const rx_rings[], unsigned int nb_rx,
			struct dvp_ring *const tx_rings[], unsigned int nb_tx, int numa_node)
{
	struct nr_inbox *in;
	struct nr_port *np;
	unsigned int i;
	int ret;

	if (name == NULL || (nb_rx == 0 && nb_tx == 0) || nb_rx > DVP_NET_RING_MAX_QUEUES ||
	    nb_tx > DVP_NET_RING_MAX_QUEUES || (nb_rx > 0 && rx_rings == NULL) ||
	    (nb_tx > 0 && tx_rings == NULL)) {
		NR_LOG(ERR, "create %s: a name and 0 to %d rx and tx rings (not both 0) are needed",
		       name ? name : "(no name)", DVP_NET_RING_MAX_QUEUES);
		return dvp_err(EINVAL);
	}
	for (i = 0; i < nb_rx + nb_tx; i++) {
		struct dvp_ring *r = i < nb_rx ? rx_rings[i] : tx_rings[i - nb_rx];

		if (r == NULL || dvp_ring_get_esize(r) != sizeof(void *)) {
			NR_LOG(ERR, "create %s: %s ring %u is %s", name, i < nb_rx ? "rx" : "tx",
			       i < nb_rx ? i : i - nb_rx,
			       r == NULL ? "NULL" : "not a ring of pointers");
			return dvp_err(EINVAL);
		}
	}
	np = nr_port_new(name, NULL, numa_node, NULL);
	if (np == NULL)
		return -dvp_errno;
	pthread_mutex_lock(&nr_lock);
	for (i = 0; i < nb_rx; i++) {
		in = inbox_of_ring_locked(rx_rings[i]);
		if (in == NULL) {
			ret = dvp_err(ENOMEM);
			goto fail;
		}
		inbox_get(in);
		np->rx[i] = in;
		if (in->consumer != NULL) {
			NR_LOG(ERR, "create %s: rx ring %s is read by port %s already", name,
			       dvp_ring_get_name(rx_rings[i]), in->consumer->port->name);
			ret = dvp_err(EBUSY);
			goto fail;
		}
		in->consumer = np;
		in->open = 0; /* until the port starts */
	}
	for (i = 0; i < nb_tx; i++) {
		in = inbox_of_ring_locked(tx_rings[i]);
		if (in == NULL) {
			ret = dvp_err(ENOMEM);
			goto fail;
		}
		inbox_get(in);
		np->tx[i] = in;
	}
	np->nb_rx_rings = nb_rx;
	np->nb_tx_rings = nb_tx;
	pthread_mutex_unlock(&nr_lock);
	ret = nr_port_finish(np);
	if (ret < 0) {
		pthread_mutex_lock(&nr_lock);
		goto fail;
	}
	return np->port->port_id;

fail:
	nr_port_abort_locked(np);
	pthread_mutex_unlock(&nr_lock);
	return ret;
}

static int parse_mac(const char *dev, const char *s, struct dvp_ether_addr *mac)
{
	unsigned int b[6];
	char end;
	int i;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &end) != 6)
		goto bad;
	for (i = 0; i < 6; i++) {
		if (b[i] > 0xff)
			goto bad;
		mac->addr_bytes[i] = (uint8_t)b[i];
	}
	if (mac->addr_bytes[0] & 1) {
		NR_LOG(ERR, "%s: mac=%s is a multicast address; a port needs a unicast one", dev,
		       s);
		return dvp_err(EINVAL);
	}
	return 0;
bad:
	NR_LOG(ERR, "%s: mac=%s is not a MAC address; write it as xx:xx:xx:xx:xx:xx", dev, s);
	return dvp_err(EINVAL);
}

static struct nr_port *nr_find_locked(const char *name)
{
	struct nr_port *np;

	for (np = nr_ports; np != NULL; np = np->next)
		if (strcmp(np->port->name, name) == 0)
			return np;
	return NULL;
}

/* Cable @np to @peer (both vdev ports): each one's tx goes to the other's rx. */
static int cable_locked(struct nr_port *np, struct nr_port *peer)
{
	unsigned int q;

	if (peer->peer != peer || peer->port->started) {
		NR_LOG(ERR, "%s: peer=%s: %s", np->port->name, peer->port->name,
		       peer->port->started ? "that port is started; stop it first" :
					     "that port is cabled to another already");
		return dvp_err(EBUSY);
	}
	for (q = 0; q < np->nb_tx_rings; q++) {
		inbox_put_locked(np->tx[q]);
		np->tx[q] = peer->rx[q % peer->nb_rx_rings];
		inbox_get(np->tx[q]);
	}
	for (q = 0; q < peer->nb_tx_rings; q++) {
		inbox_put_locked(peer->tx[q]);
		peer->tx[q] = np->rx[q % np->nb_rx_rings];
		inbox_get(peer->tx[q]);
	}
	np->peer = peer;
	peer->peer = np;
	return 0;
}

static int nr_probe(struct dvp_device *dev)
{
	const struct dvp_devargs *da = dev->devargs;
	struct dvp_ether_addr mac, *macp = NULL;
	uint64_t queues, size;
	struct nr_port *np, *peer;
	const char *peer_name, *mac_s;
	struct dvp_ring *r;
	char rname[DVP_RING_NAMESIZE];
	unsigned int q;
	int ret;

	ret = dvp_devargs_get_u64(da, "queues", 1, DVP_NET_RING_MAX_QUEUES, 1, &queues);
	if (ret == 0)
		ret = dvp_devargs_get_u64(da, "size", 2, NR_MAX_SIZE, NR_DEFAULT_SIZE, &size);
	if (ret < 0)
		return ret;
	if (!dvp_is_power_of_2(size)) {
		NR_LOG(ERR, "%s: size=%llu is not a power of two (2, 4, ... 1048576)", dev->name,
		       (unsigned long long)size);
		return dvp_err(EINVAL);
	}
	mac_s = dvp_devargs_get(da, "mac");
	if (mac_s != NULL) {
		ret = parse_mac(dev->name, mac_s, &mac);
		if (ret < 0)
			return ret;
		macp = &mac;
	}
	peer_name = dvp_devargs_get(da, "peer");
	np = nr_port_new(dev->name, dev, dev->numa_node, macp);
	if (np == NULL)
		return -dvp_errno;
	pthread_mutex_lock(&nr_lock);
	for (q = 0; q < queues; q++) {
		snprintf(rname, sizeof(rname), "nr_p%u_rx%u", np->port->port_id, q);
		r = ring_new(rname, (unsigned int)size, dev->numa_node);
		if (r == NULL) {
			ret = -dvp_errno;
			goto fail;
		}
		np->rx[q] = inbox_new_locked(r, true);
		if (np->rx[q] == NULL) {
			dvp_free(r);
			ret = dvp_err(ENOMEM);
			goto fail;
		}
		inbox_get(np->rx[q]);
		np->rx[q]->consumer = np;
		np->rx[q]->open = 0;
		/* Looped back until cabled: tx queue q feeds rx queue q. */
		np->tx[q] = np->rx[q];
		inbox_get(np->tx[q]);
	}
	np->nb_rx_rings = (unsigned int)queues;
	np->nb_tx_rings = (unsigned int)queues;
	np->peer = np;
	if (peer_name != NULL) {
		peer = nr_find_locked(peer_name);
		if (peer == NULL || peer->peer == NULL) {
			NR_LOG(ERR,
			       "%s: peer=%s: no such net_ring vdev port (create the peer first, without peer=)",
			       dev->name, peer_name);
			ret = dvp_err(ENODEV);
			goto fail;
		}
		ret = cable_locked(np, peer);
		if (ret < 0)
			goto fail;
	}
	pthread_mutex_unlock(&nr_lock);
	ret = nr_port_finish(np);
	if (ret < 0) {
		pthread_mutex_lock(&nr_lock);
		goto fail;
	}
	dev->driver_data = np;
	return 0;

fail:
	nr_port_abort_locked(np);
	pthread_mutex_unlock(&nr_lock);
	return ret;
}

static void close_port(struct dvp_port *port, void *arg)
{
	(void)arg;
	if (port->state == DVP_PORT_ATTACHED)
		dvp_port_close(port->port_id);
}

static int nr_remove(struct dvp_device *dev)
{
	dvp_port_foreach_of_device(dev, close_port, NULL);
	dev->driver_data = NULL;
	return 0;
}

static struct dvp_driver nr_driver = {
	.name = NR_DRIVER_NAME,
	.bus = DVP_BUS_VDEV,
	.keys = nr_keys,
	.probe = nr_probe,
	.remove = nr_remove,
};

DVP_DRIVER_REGISTER(net_ring, nr_driver);

/* ------------------------------------------------------------------------
 * The driver's API (dvp_net_ring.h)
 */

static struct nr_port *api_port(uint16_t port_id, const char *func)
{
	struct nr_port *np = nr_port_of(port_id);

	if (np == NULL) {
		NR_LOG(ERR, "%s: port %u is not a net_ring port", func, port_id);
		dvp_errno = EINVAL;
	}
	return np;
}

int dvp_net_ring_rx_notify(uint16_t port_id, uint16_t queue_id)
{
	struct nr_port *np = api_port(port_id, "rx notify");

	if (np == NULL)
		return -EINVAL;
	if (queue_id >= np->nb_rx_rings) {
		NR_LOG(ERR, "rx notify: port %u has %u rx rings; no queue %u", port_id,
		       np->nb_rx_rings, queue_id);
		return dvp_err(EINVAL);
	}
	nr_inbox_notify(np->rx[queue_id]);
	return 0;
}

int dvp_net_ring_set_link(uint16_t port_id, bool up)
{
	struct nr_async_ev ev = { .type = up ? IBV_EVENT_PORT_ACTIVE : IBV_EVENT_PORT_ERR };
	struct nr_port *np = api_port(port_id, "set link"), *peer;
	int ret;

	if (np == NULL)
		return -EINVAL;
	pthread_mutex_lock(&nr_lock);
	peer = np->peer != np ? np->peer : NULL;
	pthread_mutex_unlock(&nr_lock);
	/* A cable has two ends: both see the carrier change. */
	__atomic_store_n(&np->carrier, up, __ATOMIC_RELAXED);
	ev.port_id = port_id;
	ret = nr_async_push(np, &ev);
	if (ret == 0 && peer != NULL) {
		__atomic_store_n(&peer->carrier, up, __ATOMIC_RELAXED);
		ev.port_id = peer->port->port_id;
		ret = nr_async_push(peer, &ev);
	}
	return ret;
}

int dvp_net_ring_inject_async(uint16_t port_id, enum ibv_event_type type, uint16_t queue_id,
			      bool tx)
{
	struct nr_async_ev ev = {
		.type = type, .port_id = port_id, .queue_id = queue_id, .tx = tx
	};
	struct nr_port *np = api_port(port_id, "inject async");

	if (np == NULL)
		return -EINVAL;
	if ((unsigned int)type > IBV_EVENT_WQ_FATAL) {
		NR_LOG(ERR, "inject async: %d is not an enum ibv_event_type", (int)type);
		return dvp_err(EINVAL);
	}
	if (dvp_intr_async_kind_of(type) == DVP_INTR_ASYNC_QUEUE_ERROR) {
		ev.queue = true;
	} else if (type == IBV_EVENT_DEVICE_FATAL) {
		/* Device-wide, as the hardware reports it. */
		ev.port_id = DVP_INTR_PORT_ALL;
	}
	return nr_async_push(np, &ev);
}

int dvp_net_ring_set_arm_hook(uint16_t port_id, uint16_t queue_id, void (*fn)(void *arg), void *arg)
{
	struct nr_port *np = api_port(port_id, "set arm hook");

	if (np == NULL)
		return -EINVAL;
	if (queue_id >= np->nb_rx_rings) {
		NR_LOG(ERR, "set arm hook: port %u has %u rx rings; no queue %u", port_id,
		       np->nb_rx_rings, queue_id);
		return dvp_err(EINVAL);
	}
	np->rx[queue_id]->arm_hook_arg = arg;
	np->rx[queue_id]->arm_hook = fn;
	return 0;
}
