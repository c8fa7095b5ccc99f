/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The port registry (ids, names, allocation by drivers) and the fast-path
 * table the inline bursts read.
 *
 * Slots are published with release stores and read with acquire loads, so
 * a thread that finds a port (by id) sees it whole; allocation and release
 * are serialised by the registry lock.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "port_private.h"

DVP_LOG_REGISTER(dvp_logtype_port, "port", NOTICE);

/* Here, in a file every program links, so a static link keeps the commands. */
__attribute__((constructor)) static void port_telemetry_init(void)
{
	port_telemetry_register();
}

struct dvp_port_fp_ops dvp_port_fp_ops[DVP_MAX_PORTS];

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct port_slot *slots[DVP_MAX_PORTS];
static unsigned int nb_slots; /* under registry_lock */

static struct dvp_port *slot_port(uint16_t port_id)
{
	/* Acquire pairs with the release in dvp_port_allocate(): the port is whole. */
	struct port_slot *s = __atomic_load_n(&slots[port_id], __ATOMIC_ACQUIRE);

	return s == NULL ? NULL : &s->port;
}

static enum dvp_port_state port_state(const struct dvp_port *port)
{
	return __atomic_load_n(&port->state, __ATOMIC_ACQUIRE);
}

struct dvp_port *dvp_port_get(uint16_t port_id)
{
	if (port_id >= DVP_MAX_PORTS)
		return NULL;
	return slot_port(port_id);
}

bool dvp_port_is_valid(uint16_t port_id)
{
	struct dvp_port *port = dvp_port_get(port_id);

	return port != NULL && port_state(port) == DVP_PORT_ATTACHED;
}

uint16_t dvp_port_find_next(uint16_t port_id)
{
	while (port_id < DVP_MAX_PORTS && !dvp_port_is_valid(port_id))
		port_id++;
	/* Past the table (65535 included) there is none: the header's answer. */
	return port_id < DVP_MAX_PORTS ? port_id : DVP_MAX_PORTS;
}

uint16_t dvp_port_count(void)
{
	uint16_t p, n = 0;

	DVP_PORT_FOREACH(p)
		n++;
	return n;
}

static __dvp_cold void log_bad_port(uint16_t port_id, const char *func)
{
	char list[128];
	size_t off = 0;
	uint16_t p;

	list[0] = '\0';
	DVP_PORT_FOREACH(p) {
		if (off < sizeof(list))
			off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%u",
						off ? ", " : "", p);
	}
	PORT_LOG(ERR, "%s: port %u does not exist (ports in use: %s)", func, port_id,
		 off ? list : "none");
}

struct dvp_port *port_get_checked(uint16_t port_id, const char *func)
{
	struct dvp_port *port = dvp_port_get(port_id);

	if (dvp_unlikely(port == NULL || port_state(port) != DVP_PORT_ATTACHED)) {
		log_bad_port(port_id, func);
		dvp_errno = EINVAL;
		return NULL;
	}
	return port;
}

struct dvp_port *port_get_checked_out(uint16_t port_id, const char *func, const void *out,
				      const char *missing)
{
	struct dvp_port *port = port_get_checked(port_id, func);

	if (port != NULL && out == NULL) {
		PORT_LOG(ERR, "%s: port %u: %s", func, port_id, missing);
		dvp_errno = EINVAL;
		return NULL;
	}
	return port;
}

int dvp_port_get_by_name(const char *name, uint16_t *port_id)
{
	uint16_t p;

	if (name == NULL || port_id == NULL)
		return dvp_err(EINVAL);
	DVP_PORT_FOREACH(p) {
		if (strcmp(slot_port(p)->name, name) == 0) {
			*port_id = p;
			return 0;
		}
	}
	return dvp_err(ENODEV);
}

int dvp_port_get_name(uint16_t port_id, char *name, size_t len)
{
	struct dvp_port *port =
		port_get_checked_out(port_id, "port get name", len ? name : NULL, "no buffer");

	if (port == NULL)
		return -EINVAL;
	snprintf(name, len, "%s", port->name);
	return 0;
}

struct dvp_port *dvp_port_allocate(const char *name, const char *driver_name,
				   const struct dvp_port_ops *ops, struct dvp_device *dev,
				   size_t priv_size)
{
	struct port_slot *s = NULL;
	struct dvp_port *port;
	bool first;
	uint16_t id, i;

	if (name == NULL || name[0] == '\0' || strlen(name) >= DVP_DEV_NAME_MAX_LEN) {
		PORT_LOG(ERR, "port allocate: a name of 1 to %d characters is needed",
			 DVP_DEV_NAME_MAX_LEN - 1);
		dvp_errno = EINVAL;
		return NULL;
	}
	if (ops == NULL || ops->info_get == NULL || ops->configure == NULL ||
	    ops->rxq_setup == NULL || ops->rxq_release == NULL || ops->txq_setup == NULL ||
	    ops->txq_release == NULL || ops->start == NULL || ops->stop == NULL ||
	    ops->stats_get == NULL || ops->mbufs_held == NULL) {
		PORT_LOG(ERR, "port allocate %s: the driver's ops table lacks a required op", name);
		dvp_errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&registry_lock);
	for (i = 0; i < DVP_MAX_PORTS; i++) {
		if (slots[i] != NULL && strcmp(slots[i]->port.name, name) == 0) {
			pthread_mutex_unlock(&registry_lock);
			PORT_LOG(ERR, "port allocate: a port named %s exists already (port %u)",
				 name, i);
			dvp_errno = EEXIST;
			return NULL;
		}
	}
	for (id = 0; id < DVP_MAX_PORTS && slots[id] != NULL; id++)
		;
	if (id == DVP_MAX_PORTS) {
		pthread_mutex_unlock(&registry_lock);
		PORT_LOG(ERR, "port allocate %s: all %d ports are in use (build option max_ports)",
			 name, DVP_MAX_PORTS);
		dvp_errno = ENOSPC;
		return NULL;
	}
	if (posix_memalign((void **)&s, DVP_CACHE_LINE_SIZE, sizeof(*s)) != 0)
		s = NULL;
	if (s != NULL) {
		memset(s, 0, sizeof(*s));
		if (priv_size > 0 && posix_memalign(&s->port.priv, DVP_CACHE_LINE_SIZE,
						    DVP_CACHE_LINE_ROUNDUP(priv_size)) != 0) {
			free(s);
			s = NULL;
		}
	}
	if (s == NULL) {
		pthread_mutex_unlock(&registry_lock);
		PORT_LOG(ERR, "port allocate %s: out of memory", name);
		dvp_errno = ENOMEM;
		return NULL;
	}
	port = &s->port;
	if (port->priv != NULL)
		memset(port->priv, 0, priv_size);
	pthread_mutex_init(&s->qlock, NULL);
	pthread_mutex_init(&s->link_lock, NULL);
	port->port_id = id;
	port->state = DVP_PORT_PROBING;
	snprintf(port->name, sizeof(port->name), "%s", name);
	port->driver_name = driver_name != NULL ? driver_name : "unknown";
	port->ops = ops;
	port->device = dev;
	port->numa_node = dev != NULL ? dev->numa_node : -1;
	port->mtu = 1500;
	port->link.link_speed = DVP_LINK_SPEED_NONE;
	first = nb_slots++ == 0;
	memset(&dvp_port_fp_ops[id], 0, sizeof(dvp_port_fp_ops[id]));
	/* Release: whoever loads the slot sees the port initialised. */
	__atomic_store_n(&slots[id], s, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&registry_lock);
	port_events_attach(first);
	return port;
}

int dvp_port_probing_finish(struct dvp_port *port)
{
	struct dvp_port_event_info info = { .event = DVP_PORT_EVENT_NEW,
					    .cause = DVP_PORT_CAUSE_NONE };

	if (port == NULL || port_state(port) != DVP_PORT_PROBING) {
		PORT_LOG(ERR, "port probing finish: %s",
			 port == NULL ? "no port" : "the port is not being probed");
		return dvp_err(EINVAL);
	}
	__atomic_store_n(&port->state, DVP_PORT_ATTACHED, __ATOMIC_RELEASE);
	info.port_id = port->port_id;
	PORT_LOG(INFO, "port %u: %s (driver %s)", port->port_id, port->name, port->driver_name);
	dvp_port_event_raise(port->port_id, &info);
	return 0;
}

void port_free(struct dvp_port *port)
{
	struct port_slot *s = port_slot_of(port);
	uint16_t id = port->port_id;

	pthread_mutex_lock(&registry_lock);
	__atomic_store_n(&port->state, DVP_PORT_UNUSED, __ATOMIC_RELEASE);
	__atomic_store_n(&slots[id], NULL, __ATOMIC_RELEASE);
	nb_slots--;
	pthread_mutex_unlock(&registry_lock);
	pthread_mutex_destroy(&s->qlock);
	pthread_mutex_destroy(&s->link_lock);
	free(port->priv);
	free(s);
}

void dvp_port_release(struct dvp_port *port)
{
	if (port == NULL)
		return;
	if (port_state(port) != DVP_PORT_PROBING) {
		PORT_LOG(ERR, "port release: port %u is attached; close it with dvp_port_close()",
			 port->port_id);
		return;
	}
	port_free(port);
}

void dvp_port_foreach_of_device(const struct dvp_device *dev,
				void (*fn)(struct dvp_port *port, void *arg), void *arg)
{
	struct dvp_port *port;
	uint16_t id;

	for (id = 0; id < DVP_MAX_PORTS; id++) {
		port = slot_port(id);
		if (port != NULL && port->device == dev && dev != NULL)
			fn(port, arg);
	}
}

static void close_attached(struct dvp_port *port, void *arg)
{
	(void)arg;
	if (port->state == DVP_PORT_ATTACHED)
		dvp_port_close(port->port_id);
}

void dvp_port_close_of_device(const struct dvp_device *dev)
{
	dvp_port_foreach_of_device(dev, close_attached, NULL);
}

int dvp_port_vdev_remove(struct dvp_device *dev)
{
	dvp_port_close_of_device(dev);
	dev->driver_data = NULL;
	return 0;
}

int dvp_port_op_promisc_nop(struct dvp_port *port)
{
	(void)port;
	return 0;
}

int dvp_port_op_mac_addr_set_nop(struct dvp_port *port, const struct dvp_ether_addr *mac)
{
	(void)port;
	(void)mac;
	return 0;
}

int dvp_port_op_mtu_set_nop(struct dvp_port *port, uint16_t mtu)
{
	(void)port;
	(void)mtu;
	return 0;
}

struct dvp_rxwait_queue_conf dvp_port_rxq_intr_conf(const struct dvp_port *port, uint16_t q, int fd)
{
	struct dvp_rxwait_queue_conf ic = {
		.fd = fd,
		.ack_batch = port->conf.intr_conf.rxq_ack_batch,
		.solicited = port->conf.intr_conf.rxq_solicited,
		.port_id = port->port_id,
		.queue_id = q,
	};

	return ic;
}

int dvp_port_rxq_intr_init(struct dvp_port *port, uint16_t q, struct dvp_rxwait_queue *iq,
			   const struct dvp_rxwait_queue_ops *ops, void *ctx,
			   const struct dvp_rxwait_queue_conf *conf)
{
	int ret = dvp_rxwait_queue_init(iq, ops, ctx, conf);

	if (ret == 0)
		port->rxq_intr[q] = iq;
	return ret;
}

/* ------------------------------------------------------------------------
 * The fast-path table
 */

void port_fp_publish(struct dvp_port *port)
{
	struct dvp_port_fp_ops *fp = &dvp_port_fp_ops[port->port_id];

	fp->rx_pkt_burst = port->rx_pkt_burst;
	fp->rxq_data = port->rxqs;
	fp->rxq_intr = port->rxq_intr;
	fp->tx_pkt_burst = port->tx_pkt_burst;
	fp->txq_data = port->txqs;
	/* Release: a burst that sees the counts sees the pointers above (dvp_rx_burst()). */
	__atomic_store_n(&fp->nb_rxq, port->nb_rx_queues, __ATOMIC_RELEASE);
	__atomic_store_n(&fp->nb_txq, port->nb_tx_queues, __ATOMIC_RELEASE);
}

void port_fp_unpublish(struct dvp_port *port)
{
	struct dvp_port_fp_ops *fp = &dvp_port_fp_ops[port->port_id];

	/*
	 * Relaxed: bursts that start after this see 0 queues; one already
	 * running is the application's race (stop the lcores first), which
	 * no order here could fix.
	 */
	__atomic_store_n(&fp->nb_rxq, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&fp->nb_txq, 0, __ATOMIC_RELAXED);
}

/* No log on the fast path: a counter the user can read (xstats). */
static uint16_t burst_refused(uint16_t port_id, bool tx)
{
	struct dvp_port *port = dvp_port_get(port_id);

	if (port != NULL)
		__atomic_fetch_add(tx ? &port->dbg.tx_burst_refused : &port->dbg.rx_burst_refused,
				   1, __ATOMIC_RELAXED);
	return 0;
}

uint16_t __dvp_rx_burst_refused(uint16_t port_id, uint16_t queue_id)
{
	(void)queue_id;
	return burst_refused(port_id, false);
}

uint16_t __dvp_tx_burst_refused(uint16_t port_id, uint16_t queue_id)
{
	(void)queue_id;
	return burst_refused(port_id, true);
}
