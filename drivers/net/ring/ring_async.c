/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The device events of net_ring's emulated device: a queue of events
 * behind a non-blocking eventfd, read on the EAL interrupt thread as a
 * hardware driver reads its device's, each handled by the driver and
 * reported to lib/port with its cause (driver -> lib/port -> application).
 * Cable pulls (dvp_net_ring_set_link) and injected faults come this way,
 * so the whole path -- link re-read, queue restart, removal once -- runs
 * as it does for hardware.
 */

#include <errno.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <dvp_interrupts.h>

#include "net_ring_private.h"

static bool ring_async_pop(struct ring_port *np, struct ring_async_ev *ev)
{
	eventfd_t cnt;
	bool got = false;

	pthread_mutex_lock(&np->async_lock);
	if (np->async_len == 0) {
		/* Empty: clear the fd's count so epoll stops reporting it. */
		(void)eventfd_read(np->async_fd, &cnt);
	} else {
		*ev = np->async_q[np->async_head];
		np->async_head = (np->async_head + 1) % RING_ASYNC_DEPTH;
		np->async_len--;
		got = true;
	}
	pthread_mutex_unlock(&np->async_lock);
	return got;
}

static void ring_async_handle(struct ring_port *np, const struct ring_async_ev *ev)
{
	struct dvp_port *port = np->port;
	uint16_t nq;

	/* No queue comes or goes under us; ring_lock keeps the peer alive. */
	dvp_port_ctrl_lock(port);
	switch (ev->cause) {
	case DVP_PORT_CAUSE_LINK_DOWN:
	case DVP_PORT_CAUSE_LINK_UP:
		pthread_mutex_lock(&ring_lock);
		ring_link_update_locked(np, ev->cause);
		pthread_mutex_unlock(&ring_lock);
		break;
	case DVP_PORT_CAUSE_DEVICE_FATAL:
		dvp_port_removal_report(port, ev->cause);
		break;
	default:
		nq = ev->tx ? port->nb_tx_queues : port->nb_rx_queues;
		if (ev->queue_id >= nq ||
		    (ev->tx ? port->txqs : port->rxqs)[ev->queue_id] == NULL) {
			RING_LOG(WARNING, "%s: %s on %s queue %u, which is not set up: ignored",
				 port->name, dvp_port_event_cause_name(ev->cause),
				 ev->tx ? "tx" : "rx", ev->queue_id);
			break;
		}
		(void)dvp_port_queue_fault_raise(port, ev->queue_id, ev->tx, ev->cause);
		break;
	}
	dvp_port_ctrl_unlock(port);
}

static void ring_async_cb(int fd, void *arg)
{
	struct ring_port *np = arg;
	struct ring_async_ev ev;

	(void)fd;
	while (ring_async_pop(np, &ev)) {
		__atomic_fetch_add(&np->ps.async_acked, 1, __ATOMIC_RELAXED);
		ring_async_handle(np, &ev);
	}
}

int ring_async_init(struct ring_port *np)
{
	int ret;

	pthread_mutex_init(&np->async_lock, NULL);
	np->async_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (np->async_fd < 0) {
		ret = -errno;
		RING_LOG(ERR, "%s: eventfd for device events: %s", np->port->name,
			 dvp_strerror(-ret));
		pthread_mutex_destroy(&np->async_lock);
		return ret;
	}
	ret = dvp_intr_callback_register(np->async_fd, ring_async_cb, np);
	if (ret < 0) {
		RING_LOG(ERR, "%s: cannot watch device events on the interrupt thread: %s",
			 np->port->name, dvp_strerror(-ret));
		close(np->async_fd);
		np->async_fd = -1;
		pthread_mutex_destroy(&np->async_lock);
		return ret;
	}
	np->async_watched = true;
	return 0;
}

void ring_async_fini(struct ring_port *np)
{
	/* Returns once the interrupt thread is not reading it. */
	if (np->async_watched)
		dvp_intr_callback_unregister(np->async_fd, ring_async_cb, np);
	np->async_watched = false;
	if (np->async_fd >= 0)
		close(np->async_fd);
	np->async_fd = -1;
	pthread_mutex_destroy(&np->async_lock);
}

int ring_async_push(struct ring_port *np, const struct ring_async_ev *ev)
{
	pthread_mutex_lock(&np->async_lock);
	if (np->async_len == RING_ASYNC_DEPTH) {
		pthread_mutex_unlock(&np->async_lock);
		RING_LOG(ERR, "%s: %d device events are waiting to be read already", np->port->name,
			 RING_ASYNC_DEPTH);
		return dvp_err(ENOSPC);
	}
	np->async_q[(np->async_head + np->async_len) % RING_ASYNC_DEPTH] = *ev;
	np->async_len++;
	(void)eventfd_write(np->async_fd, 1);
	pthread_mutex_unlock(&np->async_lock);
	return 0;
}
