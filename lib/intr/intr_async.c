/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Async events (ibv_get_async_event(3)): read until EAGAIN on the EAL
 * interrupt thread, ack each, and turn it into an action for each port it
 * concerns. The ack comes before the action: destroying a CQ or QP waits
 * for the acks of its events, and the action may need to wait for a
 * thread that is destroying one (a port being stopped).
 *
 * DEVICE_FATAL can arrive more than once (DPDK's mlx5 saw it twice); each
 * port hears of the removal once.
 */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dvp_interrupts.h>

#include "intr_private.h"

struct async_port {
	uint16_t port_id;
	bool removed; /* removal reported */
};

struct dvp_intr_async {
	char name[64];
	int fd;
	const struct dvp_intr_async_ops *ops;
	void *ctx;
	dvp_intr_async_sink_fn sink;
	void *sink_arg;
	bool started;

	/* Guards ports and the processing itself (one reader at a time). */
	pthread_mutex_t lock;
	unsigned int nports;
	struct async_port ports[DVP_MAX_PORTS];

	/* Set when destroy is called from inside the sink: processing frees it. */
	bool in_process;
	pthread_t process_thread;
	bool doomed;

	struct dvp_intr_async_stats stats; /* written under lock, read relaxed */
};

enum dvp_intr_async_kind dvp_intr_async_kind_of(enum ibv_event_type type)
{
	switch (type) {
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_PORT_ERR:
		return DVP_INTR_ASYNC_LINK;
	case IBV_EVENT_CQ_ERR:
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_WQ_FATAL:
		return DVP_INTR_ASYNC_QUEUE_ERROR;
	case IBV_EVENT_DEVICE_FATAL:
		return DVP_INTR_ASYNC_REMOVAL;
	default:
		/*
		 * COMM_EST, SQ_DRAINED, PATH_MIG*, LID/PKEY/GID/SM changes,
		 * CLIENT_REREGISTER, SRQ events, LAST_WQE_REACHED: nothing an
		 * Ethernet port acts on.
		 */
		return DVP_INTR_ASYNC_NONE;
	}
}

struct dvp_intr_async *dvp_intr_async_create(const char *name, int fd,
					     const struct dvp_intr_async_ops *ops, void *ctx,
					     dvp_intr_async_sink_fn sink, void *sink_arg)
{
	struct dvp_intr_async *src;

	if (ops == NULL || ops->get == NULL || sink == NULL) {
		INTR_LOG(ERR, "async source %s: %s", name ? name : "?",
			 sink == NULL ? "no sink" : "no get hook");
		dvp_errno = EINVAL;
		return NULL;
	}
	src = calloc(1, sizeof(*src));
	if (src == NULL) {
		INTR_LOG(ERR, "async source %s: out of memory", name ? name : "?");
		dvp_errno = ENOMEM;
		return NULL;
	}
	snprintf(src->name, sizeof(src->name), "%s", name ? name : "async");
	src->fd = fd;
	src->ops = ops;
	src->ctx = ctx;
	src->sink = sink;
	src->sink_arg = sink_arg;
	pthread_mutex_init(&src->lock, NULL);
	return src;
}

static struct async_port *port_find_locked(struct dvp_intr_async *src, uint16_t port_id)
{
	unsigned int i;

	for (i = 0; i < src->nports; i++)
		if (src->ports[i].port_id == port_id)
			return &src->ports[i];
	return NULL;
}

int dvp_intr_async_add_port(struct dvp_intr_async *src, uint16_t port_id)
{
	int ret = 0;

	if (src == NULL || port_id >= DVP_MAX_PORTS)
		return dvp_err(EINVAL);
	pthread_mutex_lock(&src->lock);
	if (port_find_locked(src, port_id) != NULL)
		ret = dvp_err(EEXIST);
	else if (src->nports == DVP_DIM(src->ports))
		ret = dvp_err(ENOSPC);
	else
		src->ports[src->nports++] = (struct async_port){ .port_id = port_id };
	pthread_mutex_unlock(&src->lock);
	return ret;
}

int dvp_intr_async_del_port(struct dvp_intr_async *src, uint16_t port_id)
{
	struct async_port *p;
	int ret = 0;

	if (src == NULL)
		return dvp_err(EINVAL);
	/* Under the lock: once this returns, the sink hears nothing more of the port. */
	pthread_mutex_lock(&src->lock);
	p = port_find_locked(src, port_id);
	if (p == NULL)
		ret = dvp_err(ENOENT);
	else
		*p = src->ports[--src->nports];
	pthread_mutex_unlock(&src->lock);
	return ret;
}

static void deliver_locked(struct dvp_intr_async *src, enum dvp_intr_async_kind kind,
			   const struct dvp_intr_async_event *ev, struct async_port *p)
{
	struct dvp_intr_async_action a = {
		.kind = kind,
		.cause = ev->ibv.event_type,
		.port_id = p->port_id,
		.queue_id = ev->queue_id,
		.tx = ev->tx,
	};

	switch (kind) {
	case DVP_INTR_ASYNC_LINK:
		dvp_counter_add(&src->stats.link, 1);
		break;
	case DVP_INTR_ASYNC_QUEUE_ERROR:
		dvp_counter_add(&src->stats.queue_error, 1);
		break;
	case DVP_INTR_ASYNC_REMOVAL:
		if (p->removed) {
			dvp_counter_add(&src->stats.removal_repeated, 1);
			INTR_LOG(DEBUG, "%s: port %u: %s again, removal reported already",
				 src->name, p->port_id, ibv_event_type_str(ev->ibv.event_type));
			return;
		}
		p->removed = true;
		dvp_counter_add(&src->stats.removal, 1);
		break;
	default:
		return;
	}
	src->sink(src->sink_arg, &a);
}

static void dispatch_locked(struct dvp_intr_async *src, const struct dvp_intr_async_event *ev)
{
	enum ibv_event_type type = ev->ibv.event_type;
	enum dvp_intr_async_kind kind = dvp_intr_async_kind_of(type);
	struct async_port *p;
	unsigned int i;

	if (kind == DVP_INTR_ASYNC_NONE) {
		dvp_counter_add(&src->stats.ignored, 1);
		INTR_LOG(INFO, "%s: async event %s (%d): nothing to do for an Ethernet port",
			 src->name, ibv_event_type_str(type), (int)type);
		return;
	}
	if (kind == DVP_INTR_ASYNC_QUEUE_ERROR && !ev->queue_known) {
		dvp_counter_add(&src->stats.unresolved, 1);
		INTR_LOG(
			WARNING,
			"%s: async event %s on a queue the driver could not place: no queue restarted",
			src->name, ibv_event_type_str(type));
		return;
	}
	if (ev->port_id == DVP_INTR_PORT_ALL) {
		for (i = 0; i < src->nports; i++)
			deliver_locked(src, kind, ev, &src->ports[i]);
		return;
	}
	p = port_find_locked(src, ev->port_id);
	if (p == NULL) {
		dvp_counter_add(&src->stats.unresolved, 1);
		INTR_LOG(WARNING,
			 "%s: async event %s for port %u, which is not one of this source's",
			 src->name, ibv_event_type_str(type), ev->port_id);
		return;
	}
	deliver_locked(src, kind, ev, p);
}

int dvp_intr_async_process(struct dvp_intr_async *src)
{
	struct dvp_intr_async_event ev;
	bool doomed;
	int ret, n = 0;

	if (src == NULL)
		return dvp_err(EINVAL);
	pthread_mutex_lock(&src->lock);
	src->process_thread = pthread_self();
	__atomic_store_n(&src->in_process, true, __ATOMIC_RELAXED);
	for (;;) {
		memset(&ev, 0, sizeof(ev));
		ev.port_id = DVP_INTR_PORT_ALL;
		ret = src->ops->get(src->ctx, &ev);
		if (ret == -EAGAIN || ret == -EWOULDBLOCK)
			break;
		if (ret < 0) {
			INTR_LOG(ERR, "%s: reading an async event failed: %s", src->name,
				 dvp_strerror(-ret));
			n = dvp_err(-ret);
			break;
		}
		n++;
		dvp_counter_add(&src->stats.events, 1);
		INTR_LOG(DEBUG, "%s: async event %s, port %u%s", src->name,
			 ibv_event_type_str(ev.ibv.event_type), ev.port_id,
			 ev.queue_known ? (ev.tx ? " (tx queue)" : " (rx queue)") : "");
		/* Ack first (see the top of this file); ev keeps what the action needs. */
		if (src->ops->ack != NULL)
			src->ops->ack(src->ctx, &ev);
		dvp_counter_add(&src->stats.acked, 1);
		dispatch_locked(src, &ev);
		if (src->doomed)
			break;
	}
	__atomic_store_n(&src->in_process, false, __ATOMIC_RELAXED);
	doomed = src->doomed;
	pthread_mutex_unlock(&src->lock);
	if (doomed) {
		pthread_mutex_destroy(&src->lock);
		free(src);
	}
	return n;
}

static void async_intr_cb(int fd, void *arg)
{
	(void)fd;
	dvp_intr_async_process(arg);
}

int dvp_intr_async_start(struct dvp_intr_async *src)
{
	int ret;

	if (src == NULL || src->fd < 0) {
		INTR_LOG(ERR, "async source start: %s", src == NULL ? "no source" : "no fd");
		return dvp_err(EINVAL);
	}
	if (src->started)
		return 0;
	/* Set before the callback can run: registering publishes it to that thread. */
	src->started = true;
	ret = dvp_intr_callback_register(src->fd, async_intr_cb, src);
	if (ret < 0) {
		src->started = false;
		INTR_LOG(ERR, "%s: cannot watch async fd %d on the interrupt thread: %s", src->name,
			 src->fd, dvp_strerror(-ret));
		return ret;
	}
	return 0;
}

void dvp_intr_async_destroy(struct dvp_intr_async *src)
{
	if (src == NULL)
		return;
	/* From another thread this returns once the callback is not running. */
	if (src->started)
		dvp_intr_callback_unregister(src->fd, async_intr_cb, src);
	src->started = false;
	/*
	 * From inside the sink (this thread holds the lock, in process()):
	 * free it when processing unwinds. The check needs no lock: only this
	 * thread can have set in_process with its own id.
	 */
	if (__atomic_load_n(&src->in_process, __ATOMIC_RELAXED) &&
	    pthread_equal(src->process_thread, pthread_self())) {
		src->doomed = true;
		return;
	}
	pthread_mutex_destroy(&src->lock);
	free(src);
}

void dvp_intr_async_stats_get(const struct dvp_intr_async *src, struct dvp_intr_async_stats *stats)
{
	const uint64_t *in = (const uint64_t *)&src->stats;
	uint64_t *out = (uint64_t *)stats;
	size_t i;

	for (i = 0; i < sizeof(*stats) / sizeof(uint64_t); i++)
		out[i] = dvp_counter_read(&in[i]);
}
