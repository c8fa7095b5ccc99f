/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * A port's cable: what it is plugged into (a peer port, its traffic source
 * and sink, or nothing) and its link; what becomes of a frame the port
 * sends (capture, a link down, the wire's faults, then the sink or the
 * peer's FIFO); flow control, which holds a sender while the peer pauses
 * and its FIFO is full; and the frames waiting in a port's FIFO, handed to
 * the receive engine. A FIFO has one producer, the sending device's engine,
 * and one consumer, the receiving device's engine.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dvp_errno.h>

#include "sim_dev.h"
#include "sim_event.h"
#include "sim_traffic.h"
#include "sim_wq.h"

/* --- The FIFO of a port's receive wire ---------------------------------- */

int sim_fifo_init(struct sim_fifo *f, uint32_t depth, uint32_t frame_max)
{
	f->depth = depth;
	f->slot_size = DVP_ALIGN_CEIL(4u + frame_max, 64u);
	f->slots = malloc((size_t)depth * f->slot_size);
	f->head = f->tail = 0;
	return f->slots != NULL ? 0 : -ENOMEM;
}

void sim_fifo_fini(struct sim_fifo *f)
{
	free(f->slots);
	f->slots = NULL;
}

static bool fifo_full(struct sim_fifo *f)
{
	/* Acquire on head: the consumer is done with the slot before it is reused. */
	return __atomic_load_n(&f->tail, __ATOMIC_RELAXED) -
		       __atomic_load_n(&f->head, __ATOMIC_ACQUIRE) ==
	       f->depth;
}

/* @return 0, or -ENOSPC when full. */
static int fifo_put(struct sim_fifo *f, const uint8_t *frame, uint32_t len)
{
	uint32_t tail = __atomic_load_n(&f->tail, __ATOMIC_RELAXED);
	uint8_t *slot;

	if (fifo_full(f))
		return -ENOSPC;
	if (len + 4u > f->slot_size)
		len = f->slot_size - 4u; /* longer than the receiver's MRU: it drops it anyway */
	slot = f->slots + (size_t)(tail & (f->depth - 1)) * f->slot_size;
	memcpy(slot, &len, 4);
	memcpy(slot + 4, frame, len);
	/* Release: the frame is in the slot before the consumer can see it. */
	__atomic_store_n(&f->tail, tail + 1, __ATOMIC_RELEASE);
	return 0;
}

/* Whether the port's cable can take a frame now (flow control holds the sender). */
static bool fifo_has_room(struct sim_fifo *f)
{
	return !fifo_full(f);
}

/* --- Plugging ----------------------------------------------------------- */

/* Unplug @p p and its peer; both devices' locks held (or the peer is on @p p's device). */
static void unplug_locked(struct sim_port *p)
{
	if (p->cable == SIM_CABLE_PORT && p->peer != NULL) {
		p->peer->cable = SIM_CABLE_NONE;
		p->peer->peer = NULL;
	}
	p->cable = SIM_CABLE_NONE;
	p->peer = NULL;
	p->source.running = false;
}

/* Lock two devices in address order (once if the same). */
static void lock_pair(struct sim_mlx5_dev *a, struct sim_mlx5_dev *b)
{
	if (a == b) {
		pthread_mutex_lock(&a->lock);
		return;
	}
	pthread_mutex_lock(a < b ? &a->lock : &b->lock);
	pthread_mutex_lock(a < b ? &b->lock : &a->lock);
}

static void unlock_pair(struct sim_mlx5_dev *a, struct sim_mlx5_dev *b)
{
	pthread_mutex_unlock(&a->lock);
	if (a != b)
		pthread_mutex_unlock(&b->lock);
}

/* Unplug @p p from whatever it is cabled to, locking what that takes. */
void sim_cable_unplug(struct sim_port *p)
{
	struct sim_mlx5_dev *dev = p->dev, *other;

	for (;;) {
		pthread_mutex_lock(&dev->lock);
		other = p->cable == SIM_CABLE_PORT ? p->peer->dev : dev;
		if (other == dev) {
			unplug_locked(p);
			pthread_mutex_unlock(&dev->lock);
			return;
		}
		pthread_mutex_unlock(&dev->lock);
		lock_pair(dev, other);
		/* The cable may have changed while unlocked: check it is the same. */
		if (p->cable == SIM_CABLE_PORT && p->peer->dev == other) {
			unplug_locked(p);
			unlock_pair(dev, other);
			return;
		}
		unlock_pair(dev, other);
	}
}

int sim_mlx5_cable(struct sim_mlx5_dev *a, unsigned int pa, struct sim_mlx5_dev *b, unsigned int pb)
{
	struct sim_port *x = sim_port_get(a, pa, __func__);
	struct sim_port *y = sim_port_get(b, pb, __func__);

	if (x == NULL || y == NULL)
		return -dvp_errno;
	if (x == y) {
		SIM_LOG(ERR, a, "cannot cable port %u to itself", pa);
		return dvp_err(EINVAL);
	}
	sim_cable_unplug(x);
	sim_cable_unplug(y);
	lock_pair(a, b);
	x->cable = y->cable = SIM_CABLE_PORT;
	x->peer = y;
	y->peer = x;
	unlock_pair(a, b);
	return 0;
}

int sim_mlx5_cable_traffic(struct sim_mlx5_dev *dev, unsigned int port)
{
	struct sim_port *p = sim_port_get(dev, port, __func__);
	int ret;

	if (p == NULL)
		return -dvp_errno;
	sim_cable_unplug(p);
	pthread_mutex_lock(&dev->lock);
	ret = sim_traffic_init(p);
	if (ret == 0)
		p->cable = SIM_CABLE_TRAFFIC;
	pthread_mutex_unlock(&dev->lock);
	return ret < 0 ? dvp_err(-ret) : 0;
}

int sim_mlx5_uncable(struct sim_mlx5_dev *dev, unsigned int port)
{
	struct sim_port *p = sim_port_get(dev, port, __func__);

	if (p == NULL)
		return -dvp_errno;
	sim_cable_unplug(p);
	return 0;
}

int sim_mlx5_link_set(struct sim_mlx5_dev *dev, unsigned int port, bool up)
{
	struct sim_port *p = sim_port_get(dev, port, __func__);

	if (p == NULL)
		return -dvp_errno;
	pthread_mutex_lock(&dev->lock);
	sim_link_change(p, up);
	pthread_mutex_unlock(&dev->lock);
	return 0;
}

/* --- Frames across the cable -------------------------------------------- */

bool sim_cable_holds(const struct sim_port *port)
{
	return port->link_up &&
	       (port->tx_held || (port->cable == SIM_CABLE_PORT && port->peer->pause &&
				  !fifo_has_room(&port->peer->fifo)));
}

/* A frame leaves @p port: capture, link, cable. */
void sim_cable_send(struct sim_port *port, uint8_t *frame, uint32_t len)
{
	struct sim_port *peer = port->peer;

	port->st.tx_frames++;
	port->st.tx_bytes += len;
	if (port->cap.depth)
		sim_capture_frame(port, frame, len);
	if (!port->link_up || port->cable == SIM_CABLE_NONE) {
		port->st.tx_dropped++;
		return;
	}
	if (port->cable == SIM_CABLE_TRAFFIC) {
		sim_sink_frame(port, frame, len);
		return;
	}
	if (!sim_wire_pass(port->dev, peer, frame, len))
		return;
	if (fifo_put(&peer->fifo, frame, len) != 0) {
		/* Without flow control a full receiver loses the frame (relaxed: a counter). */
		__atomic_fetch_add(&peer->wire_drops, 1, __ATOMIC_RELAXED);
	}
}

/* Frames waiting on the port's cable. @return how many were taken. */
int sim_cable_poll(struct sim_port *port)
{
	struct sim_fifo *f = &port->fifo;
	uint32_t head = __atomic_load_n(&f->head, __ATOMIC_RELAXED);
	int n = 0;

	/* Acquire on tail: the producer's frame is in the slot. */
	while (n < 256 && head != __atomic_load_n(&f->tail, __ATOMIC_ACQUIRE)) {
		const uint8_t *slot = f->slots + (size_t)(head & (f->depth - 1)) * f->slot_size;
		uint32_t len;

		memcpy(&len, slot, 4);
		if (sim_rx_frame(port, slot + 4, len, true) == SIM_RX_HOLD)
			break;
		head++;
		/* Release: done reading the slot before the producer may refill it. */
		__atomic_store_n(&f->head, head, __ATOMIC_RELEASE);
		n++;
	}
	return n;
}
