/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * net_dvp in a DPDK secondary process (dpdk-proc-info, dpdk-dumpcap,
 * --proc-type=secondary): the vdev's probe attaches the ethdev ports the
 * primary made for it, by name (rte_eth_dev_attach_secondary()), with ops
 * of this process.
 *
 * What a secondary reads of a port, the primary answers (net_dvp_mp.c):
 * info, link, stats and xstats (and their resets), firmware version, RSS
 * configuration. Everything else is the primary's: the ops that configure
 * a port are not there, so DPDK's ethdev layer answers -ENOTSUP before it
 * touches the port's shared data; and the bursts are refused. The dvp
 * queues belong to the primary's lcores and to dvpmd's runtime, which runs
 * in the primary only: an mlx5 tx queue rings a doorbell page mapped in
 * the primary (a secondary would need its own mapping, through the verbs
 * command fd, as DPDK's mlx5 does) and reclaims its completions there, and
 * an rx queue is refilled by its lcore. So rx and tx bursts return 0 with
 * one line per port and direction (the mbufs stay the caller's), and
 * count what they refused in this process's xstats of the port
 * (rx_secondary_refused: bursts, tx_secondary_refused: packets).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bus_vdev_driver.h>
#include <rte_cycles.h>
#include <rte_malloc.h>

#include "net_dvp.h"

/* This process's count of refused bursts, per ethdev port (the ports' own queues are the primary's). */
struct sec_port {
	uint64_t rx_refused; /* bursts */
	uint64_t tx_refused; /* packets */
	bool rx_said, tx_said; /* the one line was written */
};

static struct sec_port sec_ports[RTE_MAX_ETHPORTS];

static const struct eth_dev_ops net_dvp_sec_ops;

static const char *const sec_xstats[] = { "rx_secondary_refused", "tx_secondary_refused" };

/*
 * The secondary's port whose queue @p q is (@p tx: a tx queue), by the
 * primary's queue pointers in the shared port data, compared, never read
 * through. RTE_MAX_ETHPORTS when none is (the primary changed them).
 */
static uint16_t port_of_queue(const void *q, bool tx)
{
	uint16_t pid, i;

	for (pid = 0; pid < RTE_MAX_ETHPORTS; pid++) {
		const struct rte_eth_dev *eth = &rte_eth_devices[pid];
		uint16_t n;

		if (eth->dev_ops != &net_dvp_sec_ops || eth->data == NULL)
			continue;
		n = tx ? eth->data->nb_tx_queues : eth->data->nb_rx_queues;
		for (i = 0; i < n; i++)
			if ((tx ? eth->data->tx_queues : eth->data->rx_queues)[i] == q)
				return pid;
	}
	return RTE_MAX_ETHPORTS;
}

static __rte_noinline __rte_cold void refused(const void *q, bool tx, uint16_t nb_pkts)
{
	uint16_t pid = port_of_queue(q, tx);
	struct sec_port *sp;
	bool *said;

	if (pid == RTE_MAX_ETHPORTS)
		return;
	sp = &sec_ports[pid];
	said = tx ? &sp->tx_said : &sp->rx_said;
	if (tx)
		__atomic_fetch_add(&sp->tx_refused, nb_pkts, __ATOMIC_RELAXED);
	else
		__atomic_fetch_add(&sp->rx_refused, 1, __ATOMIC_RELAXED);
	if (__atomic_exchange_n(said, true, __ATOMIC_RELAXED))
		return;
	if (tx)
		NET_DVP_LOG(
			ERR,
			"port %u: tx_burst in a secondary process: refused, the mbufs stay the caller's (the tx queues are the primary's: its dvp queues, their doorbells and completions); counted in tx_secondary_refused",
			pid);
	else
		NET_DVP_LOG(
			ERR,
			"port %u: rx_burst in a secondary process: refused (the rx queues are the primary's: its lcores poll and refill them); counted in rx_secondary_refused",
			pid);
}

static uint16_t sec_rx_burst(void *q, struct rte_mbuf **pkts, uint16_t nb_pkts)
{
	(void)pkts;
	refused(q, false, nb_pkts);
	return 0;
}

static uint16_t sec_tx_burst(void *q, struct rte_mbuf **pkts, uint16_t nb_pkts)
{
	(void)pkts;
	refused(q, true, nb_pkts);
	return 0;
}

static int sec_infos_get(struct rte_eth_dev *eth, struct rte_eth_dev_info *info)
{
	/* ethdev's defaults and this process's pointers go there and back untouched. */
	return net_dvp_mp_request(NET_DVP_MP_INFOS_GET, eth->data->port_id, 0, NULL, info,
				  sizeof(*info));
}

/*
 * The primary answers at once: its multi-process thread serves every
 * secondary's requests (and pdump's), and must not sit in a 9 s wait for
 * one of them. The wait for a link coming up, as dvp_link_get()'s, is
 * ours: ask again every 100 ms.
 */
static int sec_link_update(struct rte_eth_dev *eth, int wait)
{
	enum { POLL_MS = 100, WAIT_MS = 9000 };
	int ret, waited = 0;

	for (;;) {
		ret = net_dvp_mp_request(NET_DVP_MP_LINK_UPDATE, eth->data->port_id, 0, NULL, NULL,
					 0);
		if (ret < 0 && ret != -1)
			return ret;
		if (!wait || eth->data->dev_link.link_status == RTE_ETH_LINK_UP ||
		    waited >= WAIT_MS)
			return ret;
		rte_delay_us_sleep(POLL_MS * 1000);
		waited += POLL_MS;
	}
}

static int sec_stats_get(struct rte_eth_dev *eth, struct rte_eth_stats *st)
{
	return net_dvp_mp_request(NET_DVP_MP_STATS_GET, eth->data->port_id, 0, NULL, st,
				  sizeof(*st));
}

static int sec_stats_reset(struct rte_eth_dev *eth)
{
	return net_dvp_mp_request(NET_DVP_MP_STATS_RESET, eth->data->port_id, 0, NULL, NULL, 0);
}

/* The primary's xstats of the port, then this process's refusals. */
static int sec_xstats_get_names(struct rte_eth_dev *eth, struct rte_eth_xstat_name *out,
				unsigned int size)
{
	unsigned int room =
		out != NULL && size > RTE_DIM(sec_xstats) ? size - RTE_DIM(sec_xstats) : 0;
	int n = net_dvp_mp_request(NET_DVP_MP_XSTATS_GET_NAMES, eth->data->port_id, room, NULL,
				   room ? out : NULL, room * sizeof(*out));
	unsigned int i;

	if (n < 0)
		return n;
	if (out != NULL && size >= (unsigned int)n + RTE_DIM(sec_xstats))
		for (i = 0; i < RTE_DIM(sec_xstats); i++)
			snprintf(out[n + i].name, sizeof(out[0].name), "%s", sec_xstats[i]);
	return n + (int)RTE_DIM(sec_xstats);
}

static int sec_xstats_get(struct rte_eth_dev *eth, struct rte_eth_xstat *out, unsigned int size)
{
	const struct sec_port *sp = &sec_ports[eth->data->port_id];
	unsigned int room =
		out != NULL && size > RTE_DIM(sec_xstats) ? size - RTE_DIM(sec_xstats) : 0;
	int n = net_dvp_mp_request(NET_DVP_MP_XSTATS_GET, eth->data->port_id, room, NULL,
				   room ? out : NULL, room * sizeof(*out));

	if (n < 0)
		return n;
	if (out != NULL && size >= (unsigned int)n + RTE_DIM(sec_xstats)) {
		out[n].id = (uint64_t)n;
		out[n].value = __atomic_load_n(&sp->rx_refused, __ATOMIC_RELAXED);
		out[n + 1].id = (uint64_t)n + 1;
		out[n + 1].value = __atomic_load_n(&sp->tx_refused, __ATOMIC_RELAXED);
	}
	return n + (int)RTE_DIM(sec_xstats);
}

static int sec_xstats_reset(struct rte_eth_dev *eth)
{
	struct sec_port *sp = &sec_ports[eth->data->port_id];

	__atomic_store_n(&sp->rx_refused, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&sp->tx_refused, 0, __ATOMIC_RELAXED);
	return net_dvp_mp_request(NET_DVP_MP_XSTATS_RESET, eth->data->port_id, 0, NULL, NULL, 0);
}

static int sec_fw_version_get(struct rte_eth_dev *eth, char *buf, size_t size)
{
	if (size > UINT32_MAX)
		size = UINT32_MAX;
	return net_dvp_mp_request(NET_DVP_MP_FW_VERSION_GET, eth->data->port_id, (uint32_t)size,
				  NULL, buf, size);
}

static int sec_rss_conf_get(struct rte_eth_dev *eth, struct rte_eth_rss_conf *conf)
{
	struct net_dvp_mp_rss rss = { .conf = *conf };
	int ret;

	ret = net_dvp_mp_request(NET_DVP_MP_RSS_HASH_CONF_GET, eth->data->port_id, 0, NULL, &rss,
				 sizeof(rss));
	if (ret < 0)
		return ret;
	conf->rss_hf = rss.conf.rss_hf;
	if (conf->rss_key != NULL && rss.conf.rss_key != NULL) {
		conf->rss_key_len = RTE_MIN(conf->rss_key_len, rss.conf.rss_key_len);
		memcpy(conf->rss_key, rss.key, conf->rss_key_len);
	}
	return ret;
}

static int sec_reta_query(struct rte_eth_dev *eth, struct rte_eth_rss_reta_entry64 *reta,
			  uint16_t size)
{
	return net_dvp_mp_request(NET_DVP_MP_RETA_QUERY, eth->data->port_id, size, NULL, reta,
				  RTE_ALIGN_CEIL(size, RTE_ETH_RETA_GROUP_SIZE) /
					  RTE_ETH_RETA_GROUP_SIZE * sizeof(*reta));
}

static int sec_monitor_addr(void *rxq, struct rte_power_monitor_cond *pmc)
{
	static bool said;

	(void)rxq;
	(void)pmc;
	if (!__atomic_exchange_n(&said, true, __ATOMIC_RELAXED))
		NET_DVP_LOG(
			ERR,
			"power monitor in a secondary process: refused (the rx queues are the primary's)");
	return -ENOTSUP;
}

/* This process's view goes; the port is the primary's (DPDK frees nothing of its data here). */
static int sec_close(struct rte_eth_dev *eth)
{
	const struct sec_port *sp = &sec_ports[eth->data->port_id];

	if (sp->rx_refused != 0 || sp->tx_refused != 0)
		NET_DVP_LOG(NOTICE,
			    "port %u: this secondary process was refused %" PRIu64
			    " rx bursts and %" PRIu64 " tx packets",
			    eth->data->port_id, sp->rx_refused, sp->tx_refused);
	memset(&sec_ports[eth->data->port_id], 0, sizeof(sec_ports[0]));
	return 0;
}

static const struct eth_dev_ops net_dvp_sec_ops = {
	.dev_infos_get = sec_infos_get,
	.dev_supported_ptypes_get = net_dvp_ptypes_get,
	.dev_close = sec_close,
	.link_update = sec_link_update,
	.stats_get = sec_stats_get,
	.stats_reset = sec_stats_reset,
	.xstats_get = sec_xstats_get,
	.xstats_get_names = sec_xstats_get_names,
	.xstats_reset = sec_xstats_reset,
	.fw_version_get = sec_fw_version_get,
	.rss_hash_conf_get = sec_rss_conf_get,
	.reta_query = sec_reta_query,
	.get_monitor_addr = sec_monitor_addr,
};

/* Release this process's view of the @p n ports it attached so far. */
static void release(const uint16_t *ports, unsigned int n)
{
	while (n-- > 0) {
		struct rte_eth_dev *eth = &rte_eth_devices[ports[n]];

		if (eth->state != RTE_ETH_DEV_UNUSED && eth->dev_ops == &net_dvp_sec_ops)
			rte_eth_dev_close(ports[n]);
	}
}

int net_dvp_secondary_probe(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);
	char(*names)[RTE_ETH_NAME_MAX_LEN];
	uint16_t ports[RTE_MAX_ETHPORTS];
	unsigned int i;
	int n;

	names = calloc(RTE_MAX_ETHPORTS, sizeof(*names));
	if (names == NULL)
		return -ENOMEM;
	n = net_dvp_mp_request(NET_DVP_MP_ATTACH, RTE_MAX_ETHPORTS, 0, name, names,
			       RTE_MAX_ETHPORTS * sizeof(*names));
	if (n <= 0) {
		if (n == 0 || n == -ENODEV)
			NET_DVP_LOG(ERR, "%s: the primary process has no ports of %s", name, name);
		free(names);
		return n == 0 ? -ENODEV : n;
	}
	for (i = 0; i < (unsigned int)n; i++) {
		struct rte_eth_dev *eth = rte_eth_dev_attach_secondary(names[i]);

		if (eth == NULL) {
			NET_DVP_LOG(ERR, "%s: cannot attach the primary's port %s", name, names[i]);
			release(ports, i);
			free(names);
			return -ENODEV;
		}
		eth->dev_ops = &net_dvp_sec_ops;
		eth->rx_pkt_burst = sec_rx_burst;
		eth->tx_pkt_burst = sec_tx_burst;
		eth->device = &vdev->device;
		memset(&sec_ports[eth->data->port_id], 0, sizeof(sec_ports[0]));
		rte_eth_dev_probing_finish(eth);
		ports[i] = eth->data->port_id;
	}
	NET_DVP_LOG(INFO, "%s: %d port(s) of the primary process attached (%s%s)", name, n,
		    names[0], n > 1 ? ", ..." : "");
	free(names);
	return 0;
}

int net_dvp_secondary_remove(struct rte_vdev_device *vdev)
{
	uint16_t pid;

	/* The ports this process attached for @p vdev and has not closed. */
	for (pid = 0; pid < RTE_MAX_ETHPORTS; pid++) {
		struct rte_eth_dev *eth = &rte_eth_devices[pid];

		if (eth->state != RTE_ETH_DEV_UNUSED && eth->dev_ops == &net_dvp_sec_ops &&
		    eth->device == &vdev->device)
			rte_eth_dev_close(pid);
	}
	return 0;
}
