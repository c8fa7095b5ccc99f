/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * net_ring's ports and where they come from: the vdev (devargs, cabling),
 * ports made from an application's rings, and the driver's API
 * (dvp_net_ring.h). The inboxes they share are in ring_inbox.c.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <dvp_malloc.h>

#include "net_ring_private.h"

#define RING_DEFAULT_SIZE 1024
#define RING_MAX_SIZE (1u << 20)

static const struct dvp_devargs_key ring_keys[] = {
	{ "queues",
	  "rx and tx queues of the port, 1 to " DVP_STR(DVP_NET_RING_MAX_QUEUES) " (default 1)" },
	{ "size", "entries of each ring, a power of two from 2 to 1048576 (default 1024)" },
	{ "peer", "a net_ring port to cable this one to, back to back (default: loop back)" },
	{ "mac", "the port's MAC address, xx:xx:xx:xx:xx:xx (default 02:70:63:61:70:<port id>)" },
	{ NULL, NULL },
};

/* ------------------------------------------------------------------------
 * Creating ports
 */

/* Allocate the port and its private part; rings are attached by the caller. */
static struct ring_port *ring_port_new(const char *name, struct dvp_device *dev, int numa_node,
				       const struct dvp_ether_addr *mac)
{
	struct dvp_port *port;
	struct ring_port *np;

	port = dvp_port_allocate(name, RING_DRIVER_NAME, &ring_port_ops, dev, sizeof(*np));
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

/* Undo ring_port_new() and the inbox references taken since (under ring_lock). */
static void ring_port_abort_locked(struct ring_port *np)
{
	unsigned int q;

	for (q = 0; q < DVP_NET_RING_MAX_QUEUES; q++) {
		if (np->rx[q] != NULL && np->rx[q]->consumer == np)
			np->rx[q]->consumer = NULL;
		ring_inbox_put_locked(np->rx[q]);
		ring_inbox_put_locked(np->tx[q]);
	}
	dvp_port_release(np->port);
}

/* Async events, then visible to applications (NEW). */
static int ring_port_finish(struct ring_port *np)
{
	int ret = ring_async_init(np);

	if (ret < 0)
		return ret;
	ret = dvp_port_probing_finish(np->port);
	if (ret < 0) {
		ring_async_fini(np);
		return ret;
	}
	pthread_mutex_lock(&ring_lock);
	np->next = ring_ports;
	ring_ports = np;
	ring_link_update_locked(np, DVP_PORT_CAUSE_NONE);
	pthread_mutex_unlock(&ring_lock);
	return 0;
}

/* Set @slot to @r's inbox with a reference taken (ring_lock held). @return 0 or -ENOMEM. */
static int inbox_take_locked(struct dvp_ring *r, struct ring_inbox **slot)
{
	struct ring_inbox *in = ring_inbox_of_ring_locked(r);

	if (in == NULL)
		return dvp_err(ENOMEM);
	ring_inbox_get(in);
	*slot = in;
	return 0;
}

int dvp_net_ring_create(const char *name, struct dvp_ring *const rx_rings[], unsigned int nb_rx,
			struct dvp_ring *const tx_rings[], unsigned int nb_tx, int numa_node)
{
	struct ring_inbox *in;
	struct ring_port *np;
	unsigned int i;
	int ret;

	if (name == NULL || (nb_rx == 0 && nb_tx == 0) || nb_rx > DVP_NET_RING_MAX_QUEUES ||
	    nb_tx > DVP_NET_RING_MAX_QUEUES || (nb_rx > 0 && rx_rings == NULL) ||
	    (nb_tx > 0 && tx_rings == NULL)) {
		RING_LOG(ERR,
			 "create %s: a name and 0 to %d rx and tx rings (not both 0) are needed",
			 name ? name : "(no name)", DVP_NET_RING_MAX_QUEUES);
		return dvp_err(EINVAL);
	}
	for (i = 0; i < nb_rx + nb_tx; i++) {
		struct dvp_ring *r = i < nb_rx ? rx_rings[i] : tx_rings[i - nb_rx];

		if (r == NULL || dvp_ring_get_esize(r) != sizeof(void *)) {
			RING_LOG(ERR, "create %s: %s ring %u is %s", name, i < nb_rx ? "rx" : "tx",
				 i < nb_rx ? i : i - nb_rx,
				 r == NULL ? "NULL" : "not a ring of pointers");
			return dvp_err(EINVAL);
		}
	}
	if (numa_node != DVP_SOCKET_ANY &&
	    (numa_node < 0 || (unsigned int)numa_node >= dvp_socket_count())) {
		RING_LOG(ERR,
			 "create %s: NUMA node %d does not exist; nodes are 0-%u, or "
			 "DVP_SOCKET_ANY (-1)",
			 name, numa_node, dvp_socket_count() - 1);
		return dvp_err(EINVAL);
	}
	np = ring_port_new(name, NULL, numa_node, NULL);
	if (np == NULL)
		return -dvp_errno;
	pthread_mutex_lock(&ring_lock);
	for (i = 0; i < nb_rx; i++) {
		ret = inbox_take_locked(rx_rings[i], &np->rx[i]);
		if (ret < 0)
			goto fail;
		in = np->rx[i];
		if (in->consumer != NULL) {
			RING_LOG(ERR, "create %s: rx ring %s is read by port %s already", name,
				 dvp_ring_get_name(rx_rings[i]), in->consumer->port->name);
			ret = dvp_err(EBUSY);
			goto fail;
		}
		in->consumer = np;
		in->open = 0; /* until the port starts */
	}
	for (i = 0; i < nb_tx; i++) {
		ret = inbox_take_locked(tx_rings[i], &np->tx[i]);
		if (ret < 0)
			goto fail;
	}
	np->nb_rx_rings = nb_rx;
	np->nb_tx_rings = nb_tx;
	pthread_mutex_unlock(&ring_lock);
	ret = ring_port_finish(np);
	if (ret < 0) {
		pthread_mutex_lock(&ring_lock);
		goto fail;
	}
	return np->port->port_id;

fail:
	ring_port_abort_locked(np);
	pthread_mutex_unlock(&ring_lock);
	return ret;
}

static struct ring_port *ring_find_locked(const char *name)
{
	struct ring_port *np;

	for (np = ring_ports; np != NULL; np = np->next)
		if (strcmp(np->port->name, name) == 0)
			return np;
	return NULL;
}

/* Cable @np to @peer (both vdev ports): each one's tx goes to the other's rx. */
static int cable_locked(struct ring_port *np, struct ring_port *peer)
{
	unsigned int q;

	if (peer->peer != peer) {
		/* The devargs name a taken port: a bad value, as a bad key would be. */
		RING_LOG(ERR, "%s: peer=%s: that port is cabled to another already (to %s)",
			 np->port->name, peer->port->name, peer->peer->port->name);
		return dvp_err(EINVAL);
	}
	if (peer->port->started) {
		RING_LOG(ERR, "%s: peer=%s: that port is started; stop it first", np->port->name,
			 peer->port->name);
		return dvp_err(EBUSY);
	}
	for (q = 0; q < np->nb_tx_rings; q++) {
		ring_inbox_put_locked(np->tx[q]);
		np->tx[q] = peer->rx[q % peer->nb_rx_rings];
		ring_inbox_get(np->tx[q]);
	}
	for (q = 0; q < peer->nb_tx_rings; q++) {
		ring_inbox_put_locked(peer->tx[q]);
		peer->tx[q] = np->rx[q % np->nb_rx_rings];
		ring_inbox_get(peer->tx[q]);
	}
	np->peer = peer;
	peer->peer = np;
	return 0;
}

static int ring_probe(struct dvp_device *dev)
{
	const struct dvp_devargs *da = dev->devargs;
	struct dvp_ether_addr mac, *macp = NULL;
	uint64_t queues, size;
	struct ring_port *np, *peer;
	const char *peer_name, *mac_s;
	struct dvp_ring *r;
	char rname[DVP_RING_NAMESIZE];
	unsigned int q;
	int ret;

	ret = dvp_devargs_get_u64(da, "queues", 1, DVP_NET_RING_MAX_QUEUES, 1, &queues);
	if (ret == 0)
		ret = dvp_devargs_get_u64(da, "size", 2, RING_MAX_SIZE, RING_DEFAULT_SIZE, &size);
	if (ret < 0)
		return ret;
	if (!dvp_is_power_of_2(size)) {
		RING_LOG(ERR, "%s: size=%llu is not a power of two (2, 4, ... 1048576)", dev->name,
			 (unsigned long long)size);
		return dvp_err(EINVAL);
	}
	mac_s = dvp_devargs_get(da, "mac");
	if (mac_s != NULL) {
		ret = dvp_port_devarg_mac(dev->name, "mac", mac_s, &mac);
		if (ret < 0)
			return ret;
		macp = &mac;
	}
	peer_name = dvp_devargs_get(da, "peer");
	np = ring_port_new(dev->name, dev, dev->numa_node, macp);
	if (np == NULL)
		return -dvp_errno;
	pthread_mutex_lock(&ring_lock);
	for (q = 0; q < queues; q++) {
		snprintf(rname, sizeof(rname), "ring_p%u_rx%u", np->port->port_id, q);
		r = ring_inbox_ring_new(rname, (unsigned int)size, dev->numa_node);
		if (r == NULL) {
			ret = -dvp_errno;
			goto fail;
		}
		np->rx[q] = ring_inbox_new_locked(r, true);
		if (np->rx[q] == NULL) {
			dvp_free(r);
			ret = dvp_err(ENOMEM);
			goto fail;
		}
		ring_inbox_get(np->rx[q]);
		np->rx[q]->consumer = np;
		np->rx[q]->open = 0;
		/* Looped back until cabled: tx queue q feeds rx queue q. */
		np->tx[q] = np->rx[q];
		ring_inbox_get(np->tx[q]);
	}
	np->nb_rx_rings = (unsigned int)queues;
	np->nb_tx_rings = (unsigned int)queues;
	np->peer = np;
	if (peer_name != NULL) {
		peer = ring_find_locked(peer_name);
		if (peer == NULL || peer->peer == NULL) {
			RING_LOG(
				ERR,
				"%s: peer=%s: no such net_ring vdev port (create the peer first, without peer=)",
				dev->name, peer_name);
			ret = dvp_err(EINVAL);
			goto fail;
		}
		ret = cable_locked(np, peer);
		if (ret < 0)
			goto fail;
	}
	pthread_mutex_unlock(&ring_lock);
	ret = ring_port_finish(np);
	if (ret < 0) {
		pthread_mutex_lock(&ring_lock);
		goto fail;
	}
	dev->driver_data = np;
	return 0;

fail:
	ring_port_abort_locked(np);
	pthread_mutex_unlock(&ring_lock);
	return ret;
}

static struct dvp_driver ring_driver = {
	.name = RING_DRIVER_NAME,
	.bus = DVP_BUS_VDEV,
	.keys = ring_keys,
	.probe = ring_probe,
	.remove = dvp_port_vdev_remove,
};

DVP_DRIVER_REGISTER(net_ring, ring_driver);

/* ------------------------------------------------------------------------
 * The driver's API (dvp_net_ring.h)
 */

static struct ring_port *api_port(uint16_t port_id, const char *func)
{
	struct ring_port *np = ring_port_of(port_id);

	if (np == NULL) {
		RING_LOG(ERR, "%s: port %u is not a net_ring port", func, port_id);
		dvp_errno = EINVAL;
	}
	return np;
}

/* @return whether @p np has the queue, with the error line naming how many it has otherwise. */
static bool api_queue_ok(const struct ring_port *np, uint16_t port_id, uint16_t queue_id, bool tx,
			 const char *func)
{
	unsigned int nq = tx ? np->nb_tx_rings : np->nb_rx_rings;

	if (queue_id < nq)
		return true;
	RING_LOG(ERR, "%s: port %u has %u %s rings; no queue %u", func, port_id, nq,
		 tx ? "tx" : "rx", queue_id);
	dvp_errno = EINVAL;
	return false;
}

/* @return the inbox of rx queue @p queue_id of a net_ring port, or NULL after the error line. */
static struct ring_inbox *api_rx_inbox(uint16_t port_id, uint16_t queue_id, const char *func)
{
	struct ring_port *np = api_port(port_id, func);

	if (np == NULL || !api_queue_ok(np, port_id, queue_id, false, func))
		return NULL;
	return np->rx[queue_id];
}

int dvp_net_ring_rx_notify(uint16_t port_id, uint16_t queue_id)
{
	struct ring_inbox *in = api_rx_inbox(port_id, queue_id, "rx notify");

	if (in == NULL)
		return -EINVAL;
	ring_inbox_notify(in);
	return 0;
}

int dvp_net_ring_set_link(uint16_t port_id, bool up)
{
	struct ring_async_ev ev = { .cause = up ? DVP_PORT_CAUSE_LINK_UP :
						  DVP_PORT_CAUSE_LINK_DOWN };
	struct ring_port *np = api_port(port_id, "set link"), *peer;
	int ret;

	if (np == NULL)
		return -EINVAL;
	pthread_mutex_lock(&ring_lock);
	peer = np->peer != np ? np->peer : NULL;
	pthread_mutex_unlock(&ring_lock);
	/* A cable has two ends: both see the carrier change. */
	__atomic_store_n(&np->carrier, up, __ATOMIC_RELAXED);
	ret = ring_async_push(np, &ev);
	if (ret == 0 && peer != NULL) {
		__atomic_store_n(&peer->carrier, up, __ATOMIC_RELAXED);
		ret = ring_async_push(peer, &ev);
	}
	return ret;
}

int dvp_net_ring_inject_async(uint16_t port_id, enum dvp_port_event_cause cause, uint16_t queue_id,
			      bool tx)
{
	struct ring_async_ev ev = { .cause = cause, .queue_id = queue_id, .tx = tx };
	struct ring_port *np = api_port(port_id, "inject async");

	if (np == NULL)
		return -EINVAL;
	if (dvp_port_event_cause_name(cause) == NULL) {
		RING_LOG(ERR, "inject async: %d is not an enum dvp_port_event_cause (%d to %d)",
			 (int)cause, DVP_PORT_CAUSE_LINK_DOWN, DVP_PORT_CAUSE_MAX - 1);
		return dvp_err(EINVAL);
	}
	/* A device reports events only on queues it has. */
	if (cause >= DVP_PORT_CAUSE_CQ_ERROR && cause <= DVP_PORT_CAUSE_WQ_FATAL &&
	    !api_queue_ok(np, port_id, queue_id, tx, "inject async"))
		return -EINVAL;
	return ring_async_push(np, &ev);
}

int dvp_net_ring_set_arm_hook(uint16_t port_id, uint16_t queue_id, void (*fn)(void *arg), void *arg)
{
	struct ring_inbox *in = api_rx_inbox(port_id, queue_id, "set arm hook");

	if (in == NULL)
		return -EINVAL;
	in->arm_hook_arg = arg;
	in->arm_hook = fn;
	return 0;
}
