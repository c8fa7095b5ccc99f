/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Port events: raised from any thread, delivered on the EAL interrupt
 * thread. A raise queues the event and writes an eventfd the interrupt
 * thread watches; the dispatcher there runs the matching callbacks one at
 * a time without holding the lock, so a callback may register, unregister
 * (itself too), stop or close ports. An unregister from another thread
 * waits until the callback is not running, so its argument can be freed.
 *
 * Also here: what drivers report (queue errors, removal; link changes in
 * port_link.c), each with its cause: a driver handling a device event
 * reports it here, and the application hears of it from here.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <dvp_interrupts.h>

#include "port_private.h"

struct ev_cb {
	struct ev_cb *next;
	uint16_t port_id;
	enum dvp_port_event event;
	dvp_port_event_cb cb;
	void *arg;
	bool removed; /* unregistered while running: the dispatcher frees it */
};

struct ev_pending {
	struct ev_pending *next;
	struct dvp_port_event_info info;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t done; /* broadcast when a callback returns */
	struct ev_cb *cbs;
	const struct ev_cb *running;
	struct ev_pending *head, **tail;
	int efd;
	bool warned;
} ev = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.done = PTHREAD_COND_INITIALIZER,
	.tail = &ev.head,
	.efd = -1,
};

static const char *const cause_names[DVP_PORT_CAUSE_MAX] = {
	[DVP_PORT_CAUSE_LINK_DOWN] = "LINK_DOWN",
	[DVP_PORT_CAUSE_LINK_UP] = "LINK_UP",
	[DVP_PORT_CAUSE_CQ_ERROR] = "CQ_ERROR",
	[DVP_PORT_CAUSE_QP_FATAL] = "QP_FATAL",
	[DVP_PORT_CAUSE_QP_REQ_ERROR] = "QP_REQ_ERROR",
	[DVP_PORT_CAUSE_QP_ACCESS_ERROR] = "QP_ACCESS_ERROR",
	[DVP_PORT_CAUSE_WQ_FATAL] = "WQ_FATAL",
	[DVP_PORT_CAUSE_DEVICE_FATAL] = "DEVICE_FATAL",
	[DVP_PORT_CAUSE_DRIVER] = "DRIVER",
};

const char *dvp_port_event_cause_name(enum dvp_port_event_cause cause)
{
	return (int)cause > 0 && cause < DVP_PORT_CAUSE_MAX ? cause_names[cause] : NULL;
}

static const char *const event_names[DVP_PORT_EVENT_MAX] = {
	[DVP_PORT_EVENT_LINK_STATUS_CHANGE] = "LINK_STATUS_CHANGE",
	[DVP_PORT_EVENT_REMOVAL] = "REMOVAL",
	[DVP_PORT_EVENT_QUEUE_ERROR] = "QUEUE_ERROR",
	[DVP_PORT_EVENT_NEW] = "NEW",
	[DVP_PORT_EVENT_DESTROY] = "DESTROY",
};

const char *dvp_port_event_name(enum dvp_port_event event)
{
	return (unsigned int)event < DVP_PORT_EVENT_MAX ? event_names[event] : "unknown";
}

static void dispatch(int fd, void *unused);

void port_events_attach(bool first_port)
{
	int fd;

	pthread_mutex_lock(&ev.lock);
	if (ev.efd < 0)
		ev.efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	fd = ev.efd;
	pthread_mutex_unlock(&ev.lock);
	if (fd < 0) {
		PORT_LOG(ERR, "port events: eventfd: %s; events will not be delivered",
			 dvp_strerror(errno));
		return;
	}
	/*
	 * The EAL drops every registration at cleanup, so the first port of
	 * a (re)initialised EAL registers afresh; with ports alive the
	 * registration stands (-EEXIST).
	 */
	if (first_port)
		dvp_intr_callback_unregister(fd, dispatch, NULL);
	if (dvp_intr_callback_register(fd, dispatch, NULL) < 0 && dvp_errno != EEXIST) {
		PORT_LOG(
			WARNING,
			"port events: the EAL interrupt thread is not running (%s); events wait until it is",
			dvp_strerror(dvp_errno));
		return;
	}
	/* Deliver what was raised meanwhile. */
	pthread_mutex_lock(&ev.lock);
	if (ev.head != NULL && eventfd_write(fd, 1) != 0)
		PORT_LOG(WARNING, "port events: eventfd write: %s", dvp_strerror(errno));
	pthread_mutex_unlock(&ev.lock);
}

int dvp_port_event_raise(uint16_t port_id, const struct dvp_port_event_info *info)
{
	struct ev_pending *p;

	if (info == NULL || (unsigned int)info->event >= DVP_PORT_EVENT_MAX)
		return dvp_err(EINVAL);
	p = malloc(sizeof(*p));
	if (p == NULL) {
		PORT_LOG(ERR, "port %u: out of memory: event %s lost", port_id,
			 dvp_port_event_name(info->event));
		return dvp_err(ENOMEM);
	}
	p->next = NULL;
	p->info = *info;
	p->info.port_id = port_id;
	pthread_mutex_lock(&ev.lock);
	*ev.tail = p;
	ev.tail = &p->next;
	if (ev.efd >= 0 && eventfd_write(ev.efd, 1) != 0 && !ev.warned) {
		ev.warned = true;
		PORT_LOG(WARNING, "port events: eventfd write: %s", dvp_strerror(errno));
	}
	pthread_mutex_unlock(&ev.lock);
	return 0;
}

static void run_callbacks_locked(const struct dvp_port_event_info *info)
{
	struct ev_cb *c, **l;

	for (c = ev.cbs; c != NULL; c = c->next) {
		if (c->removed || c->event != info->event ||
		    (c->port_id != DVP_PORT_ID_ALL && c->port_id != info->port_id))
			continue;
		ev.running = c;
		pthread_mutex_unlock(&ev.lock);
		c->cb(info->port_id, info->event, info, c->arg);
		pthread_mutex_lock(&ev.lock);
		ev.running = NULL;
		pthread_cond_broadcast(&ev.done);
	}
	for (l = &ev.cbs; (c = *l) != NULL;) {
		if (c->removed) {
			*l = c->next;
			free(c);
		} else {
			l = &c->next;
		}
	}
}

static void dispatch(int fd, void *unused)
{
	struct ev_pending *p;
	eventfd_t cnt;

	(void)unused;
	(void)eventfd_read(fd, &cnt);
	pthread_mutex_lock(&ev.lock);
	while ((p = ev.head) != NULL) {
		ev.head = p->next;
		if (ev.head == NULL)
			ev.tail = &ev.head;
		run_callbacks_locked(&p->info);
		free(p);
	}
	pthread_mutex_unlock(&ev.lock);
}

int dvp_port_event_register(uint16_t port_id, enum dvp_port_event event, dvp_port_event_cb cb,
			    void *cb_arg)
{
	struct ev_cb *c, **l;

	if ((unsigned int)event >= DVP_PORT_EVENT_MAX || cb == NULL) {
		PORT_LOG(ERR, "event register: %s",
			 cb == NULL ? "no callback" :
				      "unknown event (valid: 0 to DVP_PORT_EVENT_MAX - 1)");
		return dvp_err(EINVAL);
	}
	if (port_id != DVP_PORT_ID_ALL && port_get_checked(port_id, "event register") == NULL)
		return -EINVAL;
	pthread_mutex_lock(&ev.lock);
	for (l = &ev.cbs; (c = *l) != NULL; l = &c->next) {
		if (!c->removed && c->port_id == port_id && c->event == event && c->cb == cb &&
		    c->arg == cb_arg) {
			pthread_mutex_unlock(&ev.lock);
			return dvp_err(EEXIST);
		}
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		pthread_mutex_unlock(&ev.lock);
		PORT_LOG(ERR, "event register: out of memory");
		return dvp_err(ENOMEM);
	}
	c->port_id = port_id;
	c->event = event;
	c->cb = cb;
	c->arg = cb_arg;
	*l = c;
	pthread_mutex_unlock(&ev.lock);
	return 0;
}

int dvp_port_event_unregister(uint16_t port_id, enum dvp_port_event event, dvp_port_event_cb cb,
			      void *cb_arg)
{
	struct ev_cb *c, **l;
	int n = 0;

	if ((unsigned int)event >= DVP_PORT_EVENT_MAX || cb == NULL) {
		PORT_LOG(ERR, "event unregister: %s", cb == NULL ? "no callback" : "unknown event");
		return dvp_err(EINVAL);
	}
	pthread_mutex_lock(&ev.lock);
	for (l = &ev.cbs; (c = *l) != NULL;) {
		if (c->removed || c->port_id != port_id || c->event != event || c->cb != cb ||
		    (cb_arg != (void *)-1 && c->arg != cb_arg)) {
			l = &c->next;
			continue;
		}
		n++;
		if (c == ev.running) {
			c->removed = true;
			if (dvp_thread_is_intr()) {
				/* From the callback itself (or another on this thread). */
				l = &c->next;
				continue;
			}
			while (ev.running == c)
				pthread_cond_wait(&ev.done, &ev.lock);
			/* The dispatcher freed it; the list may have changed: start over. */
			l = &ev.cbs;
			continue;
		}
		*l = c->next;
		free(c);
	}
	pthread_mutex_unlock(&ev.lock);
	return n > 0 ? 0 : dvp_err(ENOENT);
}

/* ------------------------------------------------------------------------
 * What drivers report
 */

void dvp_port_queue_error_report(struct dvp_port *port, uint16_t q, bool tx,
				 enum dvp_port_event_cause cause, const char *fmt, ...)
{
	struct dvp_port_event_info info = { .event = DVP_PORT_EVENT_QUEUE_ERROR };
	va_list ap;

	info.queue.queue_id = q;
	info.queue.tx = tx;
	info.cause = cause;
	va_start(ap, fmt);
	vsnprintf(info.queue.reason, sizeof(info.queue.reason), fmt, ap);
	va_end(ap);
	__atomic_fetch_add(&port->dbg.queue_errors, 1, __ATOMIC_RELAXED);
	/* A device's word is named; the driver's own finding is in the reason. */
	if (cause == DVP_PORT_CAUSE_DRIVER || dvp_port_event_cause_name(cause) == NULL)
		PORT_LOG(WARNING, "port %u: %s queue %u: %s", port->port_id, tx ? "tx" : "rx", q,
			 info.queue.reason);
	else
		PORT_LOG(WARNING, "port %u: %s queue %u: %s after %s", port->port_id,
			 tx ? "tx" : "rx", q, info.queue.reason, dvp_port_event_cause_name(cause));
	dvp_port_event_raise(port->port_id, &info);
}

void dvp_port_removal_report(struct dvp_port *port, enum dvp_port_event_cause cause)
{
	struct dvp_port_event_info info = { .event = DVP_PORT_EVENT_REMOVAL, .cause = cause };

	if (__atomic_exchange_n(&port->removed, true, __ATOMIC_ACQ_REL))
		return;
	/* Bursts stop touching a device that is gone (they return 0, counted). */
	port_fp_unpublish(port);
	PORT_LOG(ERR, "port %u (%s): the device was removed; close or reset the port",
		 port->port_id, port->name);
	if (__atomic_load_n(&port->event_flags, __ATOMIC_RELAXED) & DVP_PORT_INTR_RMV)
		dvp_port_event_raise(port->port_id, &info);
}

void dvp_port_ctrl_lock(struct dvp_port *port)
{
	pthread_mutex_lock(&port_slot_of(port)->qlock);
}

void dvp_port_ctrl_unlock(struct dvp_port *port)
{
	pthread_mutex_unlock(&port_slot_of(port)->qlock);
}
