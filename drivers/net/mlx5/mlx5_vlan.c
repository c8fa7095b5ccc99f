/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The VLAN filter of the mlx5 PMD (DVP_RX_OFFLOAD_VLAN_FILTER), as DPDK's
 * mlx5 does it: the port's own steering (mlx5_flow.c) matches the VLAN id
 * of the ETH spec, one unicast and one multicast rule per class and VLAN
 * id in the table lib/port keeps. So with the filter on and a VLAN in the
 * table, the port takes tagged frames of its VLANs only: neither other
 * VLANs' frames nor untagged ones. With the filter off or the table empty
 * it takes every frame of its addresses, tagged or not; promiscuous mode
 * takes every frame whatever the filter. The application's flow rules are
 * not filtered. A change on a started port rebuilds the steering beside
 * the old (mlx5_steering_rebuild()): frames of the VLANs in both tables
 * keep arriving throughout.
 */

#include <errno.h>

#include <dvp_errno.h>

#include "mlx5.h"

unsigned int mlx5_vlan_steer_ids(const struct dvp_port *port, uint16_t *ids)
{
	unsigned int n = 0;

	if (!(port->conf.rxmode.offloads & DVP_RX_OFFLOAD_VLAN_FILTER) || port->promiscuous)
		return 0;
	for (uint16_t w = 0; w < DVP_DIM(port->vlan_filter); w++) {
		uint64_t bits = port->vlan_filter[w];

		while (bits != 0 && n < MLX5_VLAN_FILTER_MAX) {
			ids[n++] = (uint16_t)(w * 64 + (uint16_t)__builtin_ctzll(bits));
			bits &= bits - 1;
		}
	}
	return n;
}

int mlx5_vlan_filter_set(struct dvp_port *port, uint16_t vlan_id, bool on)
{
	unsigned int n = dvp_port_vlan_filter_count(port);

	/* lib/port has put the id in the table: count it there. */
	if (on && n > MLX5_VLAN_FILTER_MAX) {
		MLX5_PLOG(
			ERR, port,
			"VLAN filter: VLAN %u would be VLAN %u of the table; mlx5 filters at most "
			"%u (remove one first)",
			vlan_id, n, MLX5_VLAN_FILTER_MAX);
		return dvp_err(ENOSPC);
	}
	return mlx5_steering_refresh(port);
}

int mlx5_vlan_filter_offload_set(struct dvp_port *port, bool on)
{
	(void)on;
	return mlx5_steering_refresh(port);
}
