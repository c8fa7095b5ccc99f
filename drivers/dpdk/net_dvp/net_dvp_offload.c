/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Rx offloads DPDK changes or reads through their own ops: VLAN stripping
 * (vlan_offload_set, vlan_strip_queue_set: testpmd's `vlan set strip`),
 * the VLAN filter (vlan_offload_set, vlan_filter_set: testpmd's `vlan set
 * filter` and `rx_vlan add|rm`; dvpmd's lib/port keeps its own table as
 * ethdev keeps DPDK's) and rx timestamps (DPDK's timestamp dynfield and
 * dynflag, registered when a queue asks for them and given to dvpmd's mbuf
 * layer, and read_clock). The offload bits are DPDK's in dvpmd, so the
 * rest passes through configure and queue setup as it is.
 */

#include <errno.h>

#include <rte_mbuf_dyn.h>

#include "net_dvp.h"

static_assert(DVP_RX_OFFLOAD_VLAN_STRIP == RTE_ETH_RX_OFFLOAD_VLAN_STRIP, "VLAN_STRIP differs");
static_assert(DVP_RX_OFFLOAD_TIMESTAMP == RTE_ETH_RX_OFFLOAD_TIMESTAMP, "TIMESTAMP differs");
static_assert(DVP_RX_OFFLOAD_VLAN_FILTER == RTE_ETH_RX_OFFLOAD_VLAN_FILTER, "VLAN_FILTER differs");

int net_dvp_rx_timestamp_prepare(struct rte_eth_dev *eth, uint16_t qid, uint64_t offloads)
{
	int off, ret;
	uint64_t flag;

	if (!((offloads | eth->data->dev_conf.rxmode.offloads) & RTE_ETH_RX_OFFLOAD_TIMESTAMP))
		return 0;
	/* Registered once per process: DPDK gives the same field to every caller. */
	ret = rte_mbuf_dyn_rx_timestamp_register(&off, &flag);
	if (ret < 0) {
		NET_DVP_LOG(ERR, "port %u rx queue %u: rx timestamp dynfield: %s",
			    eth->data->port_id, qid, rte_strerror(rte_errno));
		return -rte_errno;
	}
	dvp_mbuf_rx_timestamp_set(off, flag);
	return 0;
}

static int strip_set(struct rte_eth_dev *eth, uint16_t q, bool on)
{
	struct net_dvp_port *p = eth->data->dev_private;

	return dvp_port_rxq_vlan_strip_set(p->dvp_port, q, on);
}

static int strip_all(struct rte_eth_dev *eth)
{
	bool on = (eth->data->dev_conf.rxmode.offloads & RTE_ETH_RX_OFFLOAD_VLAN_STRIP) != 0;
	int ret = 0;

	/* Queues not set up yet take it from the port's offloads at their setup. */
	for (uint16_t q = 0; q < eth->data->nb_rx_queues && ret == 0; q++)
		if (eth->data->rx_queues[q] != NULL)
			ret = strip_set(eth, q, on);
	return ret;
}

/* ethdev has put the new setting into dev_conf.rxmode.offloads already. */
int net_dvp_vlan_offload_set(struct rte_eth_dev *eth, int mask)
{
	struct net_dvp_port *p = eth->data->dev_private;
	int ret = 0;

	net_dvp_ctrl_lock();
	if (mask & RTE_ETH_VLAN_STRIP_MASK)
		ret = strip_all(eth);
	/* Before configure, dev_conf holds it for configure to pass on (testpmd's order). */
	if (ret == 0 && (mask & RTE_ETH_VLAN_FILTER_MASK) && eth->data->dev_configured)
		ret = dvp_port_vlan_filter_offload_set(p->dvp_port,
						       (eth->data->dev_conf.rxmode.offloads &
							RTE_ETH_RX_OFFLOAD_VLAN_FILTER) != 0);
	net_dvp_ctrl_unlock();
	return ret < 0 ? ret : 0;
}

/* ethdev has checked the id and that the filter is on; it keeps its table after success. */
int net_dvp_vlan_filter_set(struct rte_eth_dev *eth, uint16_t vlan_id, int on)
{
	struct net_dvp_port *p = eth->data->dev_private;
	int ret;

	net_dvp_ctrl_lock();
	ret = dvp_port_vlan_filter(p->dvp_port, vlan_id, on != 0);
	net_dvp_ctrl_unlock();
	return ret < 0 ? ret : 0;
}

void net_dvp_vlan_strip_queue_set(struct rte_eth_dev *eth, uint16_t q, int on)
{
	net_dvp_ctrl_lock();
	/* No return value in DPDK's op: a refusal is dvpmd's log line. */
	if (q < eth->data->nb_rx_queues && eth->data->rx_queues[q] != NULL)
		strip_set(eth, q, on != 0);
	net_dvp_ctrl_unlock();
}

int net_dvp_read_clock(struct rte_eth_dev *eth, uint64_t *clock)
{
	struct net_dvp_port *p = eth->data->dev_private;
	int ret = dvp_port_read_clock(p->dvp_port, clock);

	return ret < 0 ? ret : 0;
}
