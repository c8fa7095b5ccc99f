/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The async events of net_ring's emulated device: a queue of ibv-style
 * events behind a non-blocking eventfd, read through lib/intr on the EAL
 * interrupt thread exactly as a verbs driver reads ibv_get_async_event().
 * Cable pulls (dvp_net_ring_set_link) and injected faults come this way,
 * so the whole async path -- map, ack, link re-read, queue restart,
 * removal once -- runs as it does for hardware.
 */

#include <errno.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "net_ring_private.h"

static int nr_async_get(void *ctx, struct dvp_intr_async_event *ev)
{
	struct nr_port *np = ctx;
	struct nr_async_ev e;
	eventfd_t cnt;

	pthread_mutex_lock(&np->async_lock);
	if (np->async_len == 0) {
		/* Empty: clear the fd's count so epoll stops reporting it. */
		(void)eventfd_read(np->async_fd, &cnt);
		pthread_mutex_unlock(&np->async_lock);
		return -EAGAIN;
	}
	e = np->async_q[np->async_head];
	np->async_head = (np->async_head + 1) % NR_ASYNC_DEPTH;
	np->async_len--;
	pthread_mutex_unlock(&np->async_lock);

	ev->ibv.event_type = e.type;
	ev->ibv.element.port_num = 1;
	ev->port_id = e.port_id;
	ev->queue_id = e.queue_id;
	ev->tx = e.tx;
	ev->queue_known = e.queue;
	return 0;
}

static void nr_async_ack(void *ctx, struct dvp_intr_async_event *ev)
{
	struct nr_port *np = ctx;

	(void)ev;
	__atomic_fetch_add(&np->async_acked, 1, __ATOMIC_RELAXED);
}

static const struct dvp_intr_async_ops nr_async_ops = {
	.get = nr_async_get,
	.ack = nr_async_ack,
};

int nr_async_init(struct nr_port *np)
{
	char name[DVP_DEV_NAME_MAX_LEN + 8];
	int ret;

	pthread_mutex_init(&np->async_lock, NULL);
	np->async_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (np->async_fd < 0) {
		ret = -errno;
		NR_LOG(ERR, "%s: eventfd for async events: %s", np->port->name, dvp_strerror(-ret));
		return ret;
	}
	snprintf(name, sizeof(name), "%s async", np->port->name);
	np->async_src = dvp_intr_async_create(name, np->async_fd, &nr_async_ops, np,
					      dvp_port_async_sink, NULL);
	if (np->async_src == NULL) {
		ret = -dvp_errno;
		goto fail;
	}
	ret = dvp_intr_async_add_port(np->async_src, np->port->port_id);
	if (ret == 0)
		ret = dvp_intr_async_start(np->async_src);
	if (ret < 0)
		goto fail_src;
	return 0;

fail_src:
	dvp_intr_async_destroy(np->async_src);
	np->async_src = NULL;
fail:
	close(np->async_fd);
	np->async_fd = -1;
	return ret;
}

void nr_async_fini(struct nr_port *np)
{
	/* Returns once the interrupt thread is not reading it. */
	dvp_intr_async_destroy(np->async_src);
	np->async_src = NULL;
	if (np->async_fd >= 0)
		close(np->async_fd);
	np->async_fd = -1;
	pthread_mutex_destroy(&np->async_lock);
}

int nr_async_push(struct nr_port *np, const struct nr_async_ev *ev)
{
	pthread_mutex_lock(&np->async_lock);
	if (np->async_len == NR_ASYNC_DEPTH) {
		pthread_mutex_unlock(&np->async_lock);
		NR_LOG(ERR, "%s: %d async events are waiting to be read already", np->port->name,
		       NR_ASYNC_DEPTH);
		return dvp_err(ENOSPC);
	}
	np->async_q[(np->async_head + np->async_len) % NR_ASYNC_DEPTH] = *ev;
	np->async_len++;
	(void)eventfd_write(np->async_fd, 1);
	pthread_mutex_unlock(&np->async_lock);
	return 0;
}
