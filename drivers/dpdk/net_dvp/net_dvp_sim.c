/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * A net_dvp port on the simulated HCA also shows the sim's view of its
 * wire as xstats: what the port's traffic source sent and what its sink
 * received (lost, reordered, duplicated, corrupt), so that a DPDK user of
 * testpmd reads the verdict dvp-fwd prints with `show port xstats`. The
 * sim is found through its public API (dvp_sim_mlx5.h), as dvp-fwd does.
 */

#include <string.h>

#include <dvp_sim_mlx5.h>

#include "net_dvp.h"

static const char *const sim_names[] = {
	"sim_source_sent",	 "sim_sink_received",	  "sim_sink_lost",
	"sim_sink_reordered",	 "sim_sink_duplicates",	  "sim_sink_corrupt",
	"sim_sink_foreign",	 "sim_rx_out_of_buffer",  "sim_rx_wire_drops",
	"sim_rx_dropped",	 "sim_bus_cqe_bytes",	  "sim_bus_wqe_bytes",
	"sim_bus_data_rd_bytes", "sim_bus_data_wr_bytes", "sim_bus_doorbells",
	"sim_bus_dbrec_updates",
};

void net_dvp_sim_attach(struct net_dvp_port *p)
{
	struct dvp_port_info di;
	struct dvp_ether_addr mac;
	struct sim_mlx5_dev *dev;
	uint8_t sim_mac[6];
	unsigned int sp;

	p->sim_dev = NULL;
	if (dvp_port_info_get(p->dvp_port, &di) < 0 || dvp_macaddr_get(p->dvp_port, &mac) < 0)
		return;
	dev = sim_mlx5_find(di.device_name);
	if (dev == NULL)
		return;
	for (sp = 0; sp < sim_mlx5_nports(dev); sp++) {
		if (sim_mlx5_mac_get(dev, sp, sim_mac) == 0 &&
		    memcmp(sim_mac, mac.addr_bytes, sizeof(sim_mac)) == 0) {
			p->sim_dev = dev;
			p->sim_port = sp;
			return;
		}
	}
}

unsigned int net_dvp_sim_xstats_count(const struct net_dvp_port *p)
{
	return p->sim_dev != NULL ? RTE_DIM(sim_names) : 0;
}

const char *net_dvp_sim_xstat_name(unsigned int i)
{
	return i < RTE_DIM(sim_names) ? sim_names[i] : "";
}

void net_dvp_sim_xstats_get(const struct net_dvp_port *p, uint64_t *values)
{
	struct sim_mlx5_source_stats src = { 0 };
	struct sim_mlx5_sink_stats sink = { 0 };
	struct sim_mlx5_port_stats ps = { 0 };

	if (p->sim_dev == NULL)
		return;
	sim_mlx5_source_stats(p->sim_dev, p->sim_port, &src);
	sim_mlx5_sink_stats(p->sim_dev, p->sim_port, &sink);
	sim_mlx5_port_stats(p->sim_dev, p->sim_port, &ps);
	values[0] = src.sent;
	values[1] = sink.received;
	values[2] = sink.lost;
	values[3] = sink.reordered;
	values[4] = sink.duplicates;
	values[5] = sink.corrupt;
	values[6] = sink.foreign;
	values[7] = ps.rx_out_of_buffer;
	values[8] = ps.rx_wire_drops;
	values[9] = ps.rx_dropped;
	values[10] = ps.bus_cqe_bytes;
	values[11] = ps.bus_wqe_bytes;
	values[12] = ps.bus_data_rd_bytes;
	values[13] = ps.bus_data_wr_bytes;
	values[14] = ps.bus_doorbells;
	values[15] = ps.bus_dbrec_updates;
}
