/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The power monitor of rx queues, as rte_eth_get_monitor_addr: the address
 * an lcore may sleep on (UMONITOR/UMWAIT, MONITORX) until the device
 * writes it, from the driver. Asked before each sleep, so no lock: the
 * caller polls the queue and does not reconfigure the port meanwhile.
 */

#include <errno.h>

#include "port_private.h"

int dvp_get_monitor_addr(uint16_t port_id, uint16_t queue_id, struct dvp_power_monitor_cond *pmc)
{
	struct dvp_port *port =
		port_get_checked_out(port_id, "get monitor addr", pmc, "no condition to fill");
	int ret;

	if (port == NULL)
		return -EINVAL;
	if (queue_id >= port->nb_rx_queues || port->rxqs[queue_id] == NULL) {
		PORT_LOG(ERR,
			 "get monitor addr: port %u: rx queue %u is not set up (%u configured)",
			 port_id, queue_id, port->nb_rx_queues);
		return dvp_err(EINVAL);
	}
	if (port->ops->get_monitor_addr == NULL) {
		PORT_LOG(
			ERR,
			"get monitor addr: port %u: %s has no address to monitor: poll, or sleep on rx interrupts",
			port_id, port->driver_name);
		return dvp_err(ENOTSUP);
	}
	ret = port->ops->get_monitor_addr(port->rxqs[queue_id], pmc);
	return ret < 0 ? dvp_err(-ret) : 0;
}
