/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Rx interrupts as rte_eth_dev_rx_intr_*: each call finds the queue's
 * lib/rxwait state (which the driver set up with the queue) and applies
 * lib/rxwait's rules to it.
 */

#include <errno.h>

#include "port_private.h"

/* The interrupt state of rx queue @p q, or NULL after a log line (dvp_errno set). */
static struct dvp_rxwait_queue *rxq_intr_get(uint16_t port_id, uint16_t q, const char *func)
{
	struct dvp_port *port = port_get_checked(port_id, func);

	if (port == NULL)
		return NULL;
	if (q >= port->nb_rx_queues) {
		PORT_LOG(ERR, "%s: port %u: rx queue %u does not exist; the port has %u", func,
			 port_id, q, port->nb_rx_queues);
		dvp_errno = EINVAL;
		return NULL;
	}
	if (!port->conf.intr_conf.rxq) {
		PORT_LOG(
			ERR,
			"%s: port %u: rx interrupts are off; configure the port with intr_conf.rxq = 1",
			func, port_id);
		dvp_errno = ENOTSUP;
		return NULL;
	}
	if (!dvp_rxwait_queue_active(port->rxq_intr[q])) {
		PORT_LOG(ERR, "%s: port %u: rx queue %u is not set up", func, port_id, q);
		dvp_errno = EINVAL;
		return NULL;
	}
	return port->rxq_intr[q];
}

int dvp_rx_intr_enable(uint16_t port_id, uint16_t queue_id)
{
	struct dvp_rxwait_queue *iq = rxq_intr_get(port_id, queue_id, "rx intr enable");

	if (iq == NULL)
		return -dvp_errno;
	if (!dvp_port_get(port_id)->started) {
		PORT_LOG(ERR,
			 "rx intr enable: port %u is stopped: a stopped queue raises no events",
			 port_id);
		return dvp_err(EIO);
	}
	return dvp_rxwait_queue_arm(iq);
}

int dvp_rx_intr_disable(uint16_t port_id, uint16_t queue_id)
{
	struct dvp_rxwait_queue *iq = rxq_intr_get(port_id, queue_id, "rx intr disable");

	if (iq == NULL)
		return -dvp_errno;
	return dvp_rxwait_queue_consume(iq);
}

int dvp_rx_intr_has_work(uint16_t port_id, uint16_t queue_id)
{
	struct dvp_rxwait_queue *iq = rxq_intr_get(port_id, queue_id, "rx intr has work");

	if (iq == NULL)
		return -dvp_errno;
	return iq->ops->has_work(iq->ctx) ? 1 : 0;
}

int dvp_rx_intr_fd(uint16_t port_id, uint16_t queue_id)
{
	struct dvp_rxwait_queue *iq = rxq_intr_get(port_id, queue_id, "rx intr fd");

	return iq == NULL ? -dvp_errno : iq->fd;
}

int dvp_rx_intr_ctl(uint16_t port_id, uint16_t queue_id, struct dvp_rxwait_set *set,
		    enum dvp_rx_intr_op op, void *data)
{
	struct dvp_rxwait_queue *iq = rxq_intr_get(port_id, queue_id, "rx intr ctl");

	if (iq == NULL)
		return -dvp_errno;
	if (set == NULL) {
		PORT_LOG(ERR, "rx intr ctl: port %u rx queue %u: no wait set given", port_id,
			 queue_id);
		return dvp_err(EINVAL);
	}
	switch (op) {
	case DVP_RX_INTR_CTL_ADD:
		return dvp_rxwait_set_add(set, iq, data);
	case DVP_RX_INTR_CTL_DEL:
		if (iq->set != set) {
			PORT_LOG(ERR, "rx intr ctl: port %u rx queue %u is not in this wait set",
				 port_id, queue_id);
			return dvp_err(ENOENT);
		}
		return dvp_rxwait_set_del(set, iq);
	default:
		PORT_LOG(
			ERR,
			"rx intr ctl: op %d; valid: DVP_RX_INTR_CTL_ADD (1), DVP_RX_INTR_CTL_DEL (2)",
			(int)op);
		return dvp_err(EINVAL);
	}
}

int dvp_rx_intr_ctl_all(uint16_t port_id, struct dvp_rxwait_set *set, enum dvp_rx_intr_op op)
{
	struct dvp_port *port = port_get_checked(port_id, "rx intr ctl all");
	uint16_t q;
	int ret;

	if (port == NULL)
		return -EINVAL;
	for (q = 0; q < port->nb_rx_queues; q++) {
		ret = dvp_rx_intr_ctl(port_id, q, set, op, NULL);
		if (ret < 0)
			return ret;
	}
	return 0;
}
