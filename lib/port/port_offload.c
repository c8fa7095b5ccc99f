/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Rx offloads a port changes at run time (VLAN stripping per queue, as
 * rte_eth_dev_set_vlan_strip_on_queue; the VLAN filter and its table, as
 * rte_eth_dev_vlan_filter) and the device clock its rx timestamps count
 * in (as rte_eth_read_clock). Control path.
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

static void vlan_bit_set(struct dvp_port *port, uint16_t vlan_id, bool on)
{
	uint64_t bit = 1ULL << (vlan_id % 64);

	if (on)
		port->vlan_filter[vlan_id / 64] |= bit;
	else
		port->vlan_filter[vlan_id / 64] &= ~bit;
}

unsigned int dvp_port_vlan_filter_count(const struct dvp_port *port)
{
	unsigned int n = 0;

	for (size_t i = 0; i < DVP_DIM(port->vlan_filter); i++)
		n += (unsigned int)__builtin_popcountll(port->vlan_filter[i]);
	return n;
}

int dvp_port_vlan_filter(uint16_t port_id, uint16_t vlan_id, bool on)
{
	struct dvp_port *port = port_get_checked(port_id, "VLAN filter");
	bool was;
	int ret;

	if (port == NULL)
		return -EINVAL;
	if (vlan_id > DVP_VLAN_ID_MAX)
		return port_refuse(port_id, EINVAL, "VLAN filter: VLAN id %u out of range [0, %u]",
				   vlan_id, DVP_VLAN_ID_MAX);
	if (port->ops->vlan_filter_set == NULL)
		return port_refuse(port_id, ENOTSUP, "VLAN filter: %s filters no VLANs",
				   port->driver_name);
	/* Before configure the table may be filled for it (as testpmd does through ethdev). */
	if (port->configured && !(port->conf.rxmode.offloads & DVP_RX_OFFLOAD_VLAN_FILTER))
		return port_refuse(port_id, ENOSYS,
				   "VLAN filter: DVP_RX_OFFLOAD_VLAN_FILTER is off; configure the "
				   "port with it or turn it on (dvp_port_vlan_filter_offload_set)");
	was = dvp_port_vlan_filter_has(port, vlan_id);
	/* The driver reads the table as it is to be. */
	vlan_bit_set(port, vlan_id, on);
	ret = port->ops->vlan_filter_set(port, vlan_id, on);
	if (ret < 0) {
		vlan_bit_set(port, vlan_id, was);
		return port_refuse(port_id, -ret, "VLAN filter %s VLAN %u: %s refused: %s",
				   on ? "add" : "remove", vlan_id, port->driver_name,
				   dvp_strerror(-ret));
	}
	return 0;
}

int dvp_port_vlan_filter_offload_set(uint16_t port_id, bool on)
{
	struct dvp_port *port = port_get_checked(port_id, "VLAN filter offload");
	struct dvp_port_info info;
	uint64_t was;
	int ret;

	if (port == NULL)
		return -EINVAL;
	if (!port->configured)
		return port_refuse(port_id, EINVAL,
				   "VLAN filter offload: the port is not configured");
	ret = dvp_port_info_get(port_id, &info);
	if (ret < 0)
		return ret;
	if (on && !(info.rx_offload_capa & DVP_RX_OFFLOAD_VLAN_FILTER))
		return port_refuse(port_id, ENOTSUP, "VLAN filter offload: %s filters no VLANs",
				   port->driver_name);
	was = port->conf.rxmode.offloads;
	if (on)
		port->conf.rxmode.offloads |= DVP_RX_OFFLOAD_VLAN_FILTER;
	else
		port->conf.rxmode.offloads &= ~DVP_RX_OFFLOAD_VLAN_FILTER;
	if (port->conf.rxmode.offloads == was || port->ops->vlan_filter_offload_set == NULL)
		return 0;
	ret = port->ops->vlan_filter_offload_set(port, on);
	if (ret < 0) {
		port->conf.rxmode.offloads = was;
		return port_refuse(port_id, -ret, "VLAN filter offload %s: %s refused: %s",
				   on ? "on" : "off", port->driver_name, dvp_strerror(-ret));
	}
	return 0;
}

int dvp_port_vlan_filter_get(uint16_t port_id, uint16_t vlan_id)
{
	struct dvp_port *port = port_get_checked(port_id, "VLAN filter get");

	if (port == NULL)
		return -EINVAL;
	if (vlan_id > DVP_VLAN_ID_MAX)
		return port_refuse(port_id, EINVAL,
				   "VLAN filter get: VLAN id %u out of range [0, %u]", vlan_id,
				   DVP_VLAN_ID_MAX);
	return dvp_port_vlan_filter_has(port, vlan_id);
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
