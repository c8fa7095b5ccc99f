/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* lib/port internals: not installed. */

#ifndef PORT_PRIVATE_H
#define PORT_PRIVATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <dvp_errno.h>
#include <dvp_log.h>
#include <dvp_port_driver.h>

extern int dvp_logtype_port;

#define PORT_LOG(level, fmt, ...) \
	DVP_LOG_LINE(level, dvp_logtype_port, "PORT: ", fmt, ##__VA_ARGS__)

/* A port with what only lib/port sees. */
struct port_slot {
	struct dvp_port port;
	/*
	 * Held around the ops that create, release, start or stop queues, and
	 * by a driver handling a device event (dvp_port_ctrl_lock()): so it
	 * never sees a queue come or go under it.
	 */
	pthread_mutex_t qlock;
	/*
	 * Held from reading the device's link to recording it (and around a
	 * plain dvp_port_link_set()): the interrupt thread and a control
	 * thread both report the link, and an older reading must not land
	 * after a newer one. Innermost: nothing is locked under it but the
	 * event queue's lock.
	 */
	pthread_mutex_t link_lock;
	/*
	 * Its flow rules, oldest first (port_flow.c), and the link a new one
	 * goes into (NULL: &flows), so that adding one does not walk them.
	 */
	struct dvp_flow *flows;
	struct dvp_flow **flows_tail;
};

static inline struct port_slot *port_slot_of(struct dvp_port *port)
{
	return dvp_container_of(port, struct port_slot, port);
}

/*
 * The attached port behind @p port_id, or NULL after a log line naming
 * @p func and the valid ids (dvp_errno = EINVAL).
 */
struct dvp_port *port_get_checked(uint16_t port_id, const char *func);

/*
 * port_get_checked() for a call that writes its result to @p out: NULL
 * also when @p out is NULL, after a log line naming @p func and what is
 * @p missing.
 */
struct dvp_port *port_get_checked_out(uint16_t port_id, const char *func, const void *out,
				      const char *missing);

/* Release every set-up queue (under qlock). */
void port_release_queues(struct dvp_port *port);

/* Take the port out of the fast-path table / put it in. */
void port_fp_unpublish(struct dvp_port *port);
void port_fp_publish(struct dvp_port *port);

/*
 * A control call refused: one ERR line "port N: <why>", then
 * dvp_err(@err). @return -@err.
 */
__dvp_cold int port_refuse(uint16_t port_id, int err, const char *fmt, ...)
	__dvp_format_printf(3, 4);

/* Free the port id and its memory (registry). */
void port_free(struct dvp_port *port);

/*
 * Held for reading by the telemetry commands while they look at a port,
 * for writing by dvp_port_close(): a port is never freed under them.
 */
extern pthread_rwlock_t port_close_lock;

/*
 * port_flow.c, under qlock: create the driver's rules after the start op
 * (on an error, those made are undone and the error returned), destroy
 * them before the stop op; free every rule (close, reset).
 */
int port_flow_start(struct dvp_port *port);
void port_flow_stop(struct dvp_port *port);
void port_flow_release(struct dvp_port *port);

/* port_telemetry.c: register the ports' telemetry commands. */
void port_telemetry_register(void);

/* Event delivery: make sure the dispatcher is on the interrupt thread. */
void port_events_attach(bool first_port);

#endif /* PORT_PRIVATE_H */
