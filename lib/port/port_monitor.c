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
		return port_refuse(port_id, EINVAL,
				   "get monitor addr: rx queue %u is not set up (%u configured)",
				   queue_id, port->nb_rx_queues);
	}
	if (port->ops->get_monitor_addr == NULL) {
		return port_refuse(
			port_id, ENOTSUP,
			"get monitor addr: %s has no address to monitor: poll, or sleep on rx interrupts",
			port->driver_name);
	}
	ret = port->ops->get_monitor_addr(port->rxqs[queue_id], pmc);
	if (ret < 0)
		return port_refuse(port_id, -ret, "get monitor addr: rx queue %u: %s refused: %s",
				   queue_id, port->driver_name, dvp_strerror(ret));
	return 0;
}
