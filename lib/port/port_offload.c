/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Rx offloads a port changes at run time (VLAN stripping per queue, as
 * rte_eth_dev_set_vlan_strip_on_queue) and the device clock its rx
 * timestamps count in (as rte_eth_read_clock). Control path.
 */

#include <errno.h>

#include "port_private.h"

int dvp_port_rxq_vlan_strip_set(uint16_t port_id, uint16_t queue_id, bool on)
{
	struct dvp_port *port = port_get_checked(port_id, "vlan strip set");
	int ret;

	if (port == NULL)
		return -EINVAL;
	if (queue_id >= port->nb_rx_queues || port->rxqs[queue_id] == NULL)
		return port_refuse(port_id, EINVAL,
				   "vlan strip set: rx queue %u is not set up (%u configured)",
				   queue_id, port->nb_rx_queues);
	if (port->ops->rxq_vlan_strip_set == NULL)
		return port_refuse(port_id, ENOTSUP, "vlan strip set: %s strips no VLAN tags",
				   port->driver_name);
	ret = port->ops->rxq_vlan_strip_set(port, queue_id, on);
	if (ret < 0)
		return port_refuse(port_id, -ret, "vlan strip set: rx queue %u: %s refused: %s",
				   queue_id, port->driver_name, dvp_strerror(ret));
	return 0;
}

int dvp_port_read_clock(uint16_t port_id, uint64_t *clock)
{
	struct dvp_port *port =
		port_get_checked_out(port_id, "read clock", clock, "no clock to fill");
	int ret;

	if (port == NULL)
		return -EINVAL;
	if (port->ops->read_clock == NULL)
		return port_refuse(port_id, ENOTSUP,
				   "read clock: %s has no device clock (no rx timestamps)",
				   port->driver_name);
	ret = port->ops->read_clock(port, clock);
	if (ret < 0)
		return port_refuse(port_id, -ret, "read clock: %s refused: %s", port->driver_name,
				   dvp_strerror(ret));
	return 0;
}
