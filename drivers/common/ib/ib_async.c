/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Async events (ibv_get_async_event(3)): read until EAGAIN on the EAL
 * interrupt thread, ack each, and hand it, as a dvp cause, to the driver's
 * handler for each port it concerns (removal straight to lib/port). The
 * ack comes before the handler: destroying a CQ or QP waits for the acks
 * of its events, and the handler may need to wait for a thread that is
 * destroying one (a port being stopped).
 *
 * DEVICE_FATAL can arrive more than once (DPDK's mlx5 saw it twice); each
 * port hears of the removal once.
 */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dvp_errno.h>
#include <dvp_counter.h>
#include <dvp_interrupts.h>
#include <dvp_log.h>

#include "ib_async.h"

DVP_LOG_REGISTER(ib_common_logtype, "pmd.common.ib", NOTICE);
#define IB_LOG(level, fmt, ...) \
	DVP_LOG_LINE(level, ib_common_logtype, "COMMON_IB: ", fmt, ##__VA_ARGS__)

struct async_port {
	uint16_t port_id;
	bool removed; /* removal reported */
};

struct ib_async {
	char name[64];
	int fd;
	const struct ib_async_ops *ops;
	void *ctx;
	bool started;

	/* Guards ports and the processing itself (one reader at a time). */
	pthread_mutex_t lock;
	unsigned int nports;
	struct async_port ports[DVP_MAX_PORTS];

	/* Set when destroy is called from inside a handler: processing frees it. */
	bool in_process;
	pthread_t process_thread;
	bool doomed;

	struct ib_async_stats stats; /* written under lock, read relaxed */
};

enum ib_async_kind ib_async_kind_of(enum ibv_event_type type)
{
	switch (type) {
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_PORT_ERR:
		return IB_ASYNC_LINK;
	case IBV_EVENT_CQ_ERR:
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_WQ_FATAL:
		return IB_ASYNC_QUEUE_ERROR;
	case IBV_EVENT_DEVICE_FATAL:
		return IB_ASYNC_REMOVAL;
	default:
		/*
		 * COMM_EST, SQ_DRAINED, PATH_MIG*, LID/PKEY/GID/SM changes,
		 * CLIENT_REREGISTER, SRQ events, LAST_WQE_REACHED: nothing an
		 * Ethernet port acts on.
		 */
		return IB_ASYNC_NONE;
	}
}

enum dvp_port_event_cause ib_async_cause_of(enum ibv_event_type type)
{
	switch (type) {
	case IBV_EVENT_PORT_ACTIVE:
		return DVP_PORT_CAUSE_LINK_UP;
	case IBV_EVENT_PORT_ERR:
		return DVP_PORT_CAUSE_LINK_DOWN;
	case IBV_EVENT_CQ_ERR:
		return DVP_PORT_CAUSE_CQ_ERROR;
	case IBV_EVENT_QP_FATAL:
		return DVP_PORT_CAUSE_QP_FATAL;
	case IBV_EVENT_QP_REQ_ERR:
		return DVP_PORT_CAUSE_QP_REQ_ERROR;
	case IBV_EVENT_QP_ACCESS_ERR:
		return DVP_PORT_CAUSE_QP_ACCESS_ERROR;
	case IBV_EVENT_WQ_FATAL:
		return DVP_PORT_CAUSE_WQ_FATAL;
	case IBV_EVENT_DEVICE_FATAL:
		return DVP_PORT_CAUSE_DEVICE_FATAL;
	default:
		return DVP_PORT_CAUSE_NONE;
	}
}

void *ib_async_element(const struct ibv_async_event *e, unsigned int *port_num)
{
	*port_num = 0;
	switch (e->event_type) {
	case IBV_EVENT_CQ_ERR:
		return e->element.cq->cq_context;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
		return e->element.qp->qp_context;
	case IBV_EVENT_WQ_FATAL:
		return e->element.wq->wq_context;
	case IBV_EVENT_PORT_ACTIVE:
	case IBV_EVENT_PORT_ERR:
	case IBV_EVENT_LID_CHANGE:
	case IBV_EVENT_PKEY_CHANGE:
	case IBV_EVENT_SM_CHANGE:
	case IBV_EVENT_CLIENT_REREGISTER:
	case IBV_EVENT_GID_CHANGE:
		*port_num = (unsigned int)e->element.port_num;
		return NULL;
	default:
		/* DEVICE_FATAL, SRQ events: the device, or nothing a port has. */
		return NULL;
	}
}

struct ib_async *ib_async_create(const char *name, int fd, const struct ib_async_ops *ops,
				 void *ctx)
{
	struct ib_async *src;

	if (ops == NULL || ops->get == NULL) {
		IB_LOG(ERR, "async source %s: no get hook", name ? name : "?");
		dvp_errno = EINVAL;
		return NULL;
	}
	src = calloc(1, sizeof(*src));
	if (src == NULL) {
		IB_LOG(ERR, "async source %s: out of memory", name ? name : "?");
		dvp_errno = ENOMEM;
		return NULL;
	}
	snprintf(src->name, sizeof(src->name), "%s", name ? name : "async");
	src->fd = fd;
	src->ops = ops;
	src->ctx = ctx;
	pthread_mutex_init(&src->lock, NULL);
	return src;
}

static struct async_port *port_find_locked(struct ib_async *src, uint16_t port_id)
{
	unsigned int i;

	for (i = 0; i < src->nports; i++)
		if (src->ports[i].port_id == port_id)
			return &src->ports[i];
	return NULL;
}

int ib_async_add_port(struct ib_async *src, uint16_t port_id)
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

int ib_async_del_port(struct ib_async *src, uint16_t port_id)
{
	struct async_port *p;
	int ret = 0;

	if (src == NULL)
		return dvp_err(EINVAL);
	/* Under the lock: once this returns, no handler hears more of the port. */
	pthread_mutex_lock(&src->lock);
	p = port_find_locked(src, port_id);
	if (p == NULL)
		ret = dvp_err(ENOENT);
	else
		*p = src->ports[--src->nports];
	pthread_mutex_unlock(&src->lock);
	return ret;
}

static void handle(struct ib_async *src, enum ib_async_kind kind, enum dvp_port_event_cause cause,
		   const struct ib_async_event *ev, struct dvp_port *port)
{
	uint16_t nq;

	dvp_port_ctrl_lock(port);
	switch (kind) {
	case IB_ASYNC_LINK:
		/* The driver reads the state rather than trust the event (PORT_ACTIVE != running). */
		if (src->ops->link != NULL)
			src->ops->link(src->ctx, port, cause);
		break;
	case IB_ASYNC_QUEUE_ERROR:
		nq = ev->tx ? port->nb_tx_queues : port->nb_rx_queues;
		if (ev->queue_id >= nq ||
		    (ev->tx ? port->txqs : port->rxqs)[ev->queue_id] == NULL) {
			IB_LOG(WARNING,
			       "%s: port %u: %s on %s queue %u, which is not set up: ignored",
			       src->name, port->port_id, ibv_event_type_str(ev->ibv.event_type),
			       ev->tx ? "tx" : "rx", ev->queue_id);
			break;
		}
		if (src->ops->queue_error != NULL)
			src->ops->queue_error(src->ctx, port, ev->queue_id, ev->tx, cause);
		else
			(void)dvp_port_queue_fault_raise(port, ev->queue_id, ev->tx, cause);
		break;
	case IB_ASYNC_REMOVAL:
		dvp_port_removal_report(port, cause);
		break;
	default:
		break;
	}
	dvp_port_ctrl_unlock(port);
}

static void deliver_locked(struct ib_async *src, enum ib_async_kind kind,
			   const struct ib_async_event *ev, struct async_port *p)
{
	struct dvp_port *port;

	switch (kind) {
	case IB_ASYNC_LINK:
		dvp_counter_add(&src->stats.link, 1);
		break;
	case IB_ASYNC_QUEUE_ERROR:
		dvp_counter_add(&src->stats.queue_error, 1);
		break;
	case IB_ASYNC_REMOVAL:
		if (p->removed) {
			dvp_counter_add(&src->stats.removal_repeated, 1);
			IB_LOG(DEBUG, "%s: port %u: %s again, removal reported already", src->name,
			       p->port_id, ibv_event_type_str(ev->ibv.event_type));
			return;
		}
		p->removed = true;
		dvp_counter_add(&src->stats.removal, 1);
		break;
	default:
		return;
	}
	port = dvp_port_get(p->port_id);
	if (port == NULL) {
		dvp_counter_add(&src->stats.unresolved, 1);
		IB_LOG(WARNING, "%s: async event %s for port %u, which does not exist", src->name,
		       ibv_event_type_str(ev->ibv.event_type), p->port_id);
		return;
	}
	handle(src, kind, ib_async_cause_of(ev->ibv.event_type), ev, port);
}

static void dispatch_locked(struct ib_async *src, const struct ib_async_event *ev)
{
	enum ibv_event_type type = ev->ibv.event_type;
	enum ib_async_kind kind = ib_async_kind_of(type);
	struct async_port *p;
	unsigned int i;

	if (kind == IB_ASYNC_NONE) {
		dvp_counter_add(&src->stats.ignored, 1);
		IB_LOG(INFO, "%s: async event %s (%d): nothing to do for an Ethernet port",
		       src->name, ibv_event_type_str(type), (int)type);
		return;
	}
	if (kind == IB_ASYNC_QUEUE_ERROR && !ev->queue_known) {
		dvp_counter_add(&src->stats.unresolved, 1);
		IB_LOG(WARNING,
		       "%s: async event %s on a queue the driver could not place: no queue restarted",
		       src->name, ibv_event_type_str(type));
		return;
	}
	if (ev->port_id == IB_ASYNC_PORT_ALL) {
		for (i = 0; i < src->nports; i++)
			deliver_locked(src, kind, ev, &src->ports[i]);
		return;
	}
	p = port_find_locked(src, ev->port_id);
	if (p == NULL) {
		dvp_counter_add(&src->stats.unresolved, 1);
		IB_LOG(WARNING, "%s: async event %s for port %u, which is not one of this source's",
		       src->name, ibv_event_type_str(type), ev->port_id);
		return;
	}
	deliver_locked(src, kind, ev, p);
}

int ib_async_process(struct ib_async *src)
{
	struct ib_async_event ev;
	bool doomed;
	int ret, n = 0;

	if (src == NULL)
		return dvp_err(EINVAL);
	pthread_mutex_lock(&src->lock);
	src->process_thread = pthread_self();
	__atomic_store_n(&src->in_process, true, __ATOMIC_RELAXED);
	for (;;) {
		memset(&ev, 0, sizeof(ev));
		ev.port_id = IB_ASYNC_PORT_ALL;
		ret = src->ops->get(src->ctx, &ev);
		if (ret == -EAGAIN || ret == -EWOULDBLOCK)
			break;
		if (ret < 0) {
			IB_LOG(ERR, "%s: reading an async event failed: %s", src->name,
			       dvp_strerror(-ret));
			n = dvp_err(-ret);
			break;
		}
		n++;
		dvp_counter_add(&src->stats.events, 1);
		IB_LOG(DEBUG, "%s: async event %s, port %u%s", src->name,
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
	ib_async_process(arg);
}

int ib_async_start(struct ib_async *src)
{
	int ret;

	if (src == NULL || src->fd < 0) {
		IB_LOG(ERR, "async source start: %s", src == NULL ? "no source" : "no fd");
		return dvp_err(EINVAL);
	}
	if (src->started)
		return 0;
	/* Set before the callback can run: registering publishes it to that thread. */
	src->started = true;
	ret = dvp_intr_callback_register(src->fd, async_intr_cb, src);
	if (ret < 0) {
		src->started = false;
		IB_LOG(ERR, "%s: cannot watch async fd %d on the interrupt thread: %s", src->name,
		       src->fd, dvp_strerror(-ret));
		return ret;
	}
	return 0;
}

void ib_async_destroy(struct ib_async *src)
{
	if (src == NULL)
		return;
	/* From another thread this returns once the callback is not running. */
	if (src->started)
		dvp_intr_callback_unregister(src->fd, async_intr_cb, src);
	src->started = false;
	/*
	 * From inside a handler (this thread holds the lock, in process()):
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

void ib_async_stats_get(const struct ib_async *src, struct ib_async_stats *stats)
{
	const uint64_t *in = (const uint64_t *)&src->stats;
	uint64_t *out = (uint64_t *)stats;
	size_t i;

	for (i = 0; i < sizeof(*stats) / sizeof(uint64_t); i++)
		out[i] = dvp_counter_read(&in[i]);
}
