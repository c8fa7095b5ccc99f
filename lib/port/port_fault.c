/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The queue-fault primitive's control half (dvp_port_fault.h): a fault
 * raised on any thread is recorded for the lcore that polls the queue,
 * reported, and the lcore woken; on a stopped port the driver rebuilds the
 * queue at once.
 */

#include <errno.h>

#include "port_private.h"

void dvp_port_queue_fault_attach(struct dvp_port *port, uint16_t q, bool tx,
				 struct dvp_queue_fault *f)
{
	if (port == NULL || q >= DVP_MAX_QUEUES_PER_PORT)
		return;
	if (tx)
		port->txq_fault[q] = f;
	else
		port->rxq_fault[q] = f;
}

/* Raised on a stopped port: nobody polls the queue, so rebuild it here. */
static int restart_stopped(struct dvp_port *port, uint16_t q, bool tx,
			   enum dvp_port_event_cause cause)
{
	int ret =
		port->ops->queue_restart != NULL ? port->ops->queue_restart(port, q, tx, cause) : 0;

	dvp_port_queue_error_report(port, q, tx, cause, "%s queue rebuilt while stopped%s",
				    tx ? "tx" : "rx", ret < 0 ? " (FAILED)" : "");
	return ret;
}

int dvp_port_queue_fault_raise(struct dvp_port *port, uint16_t q, bool tx,
			       enum dvp_port_event_cause cause)
{
	struct dvp_queue_fault *f;

	if (port == NULL || q >= DVP_MAX_QUEUES_PER_PORT ||
	    (tx ? port->txqs[q] : port->rxqs[q]) == NULL) {
		PORT_LOG(ERR, "queue fault: port %u: %s queue %u is not set up",
			 port != NULL ? port->port_id : DVP_PORT_ID_ALL, tx ? "tx" : "rx", q);
		return dvp_err(EINVAL);
	}
	if (cause <= DVP_PORT_CAUSE_NONE || cause >= DVP_PORT_CAUSE_MAX) {
		PORT_LOG(ERR, "queue fault: port %u: %s queue %u: cause %d is not one of 1..%d",
			 port->port_id, tx ? "tx" : "rx", q, (int)cause, DVP_PORT_CAUSE_MAX - 1);
		return dvp_err(EINVAL);
	}
	f = tx ? port->txq_fault[q] : port->rxq_fault[q];
	if (f == NULL) {
		PORT_LOG(ERR, "queue fault: port %u (%s): %s queue %u has no fault word",
			 port->port_id, port->driver_name, tx ? "tx" : "rx", q);
		return dvp_err(ENOTSUP);
	}
	if (!port->started)
		return restart_stopped(port, q, tx, cause);
	if (!dvp_queue_fault_set(f, cause)) {
		PORT_LOG(DEBUG, "port %u: %s queue %u: %s while a restart is pending already",
			 port->port_id, tx ? "tx" : "rx", q, dvp_port_event_cause_name(cause));
		return 0;
	}
	dvp_port_queue_error_report(port, q, tx, cause,
				    "%s queue broken: rebuilt at its next burst", tx ? "tx" : "rx");
	/*
	 * A broken queue may raise no completion event again: the lcore asleep
	 * on it must wake to burst, and so rebuild it. A tx queue is rebuilt
	 * at its next burst, which needs no wake-up.
	 */
	if (!tx && dvp_rxwait_queue_active(port->rxq_intr[q]))
		dvp_rxwait_queue_kick(port->rxq_intr[q]);
	return 0;
}
