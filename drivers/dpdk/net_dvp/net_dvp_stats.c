/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Stats and xstats of a net_dvp port: the dvp port's, and net_dvp's own
 * counters of its tx queues. DPDK names the basic counters itself, so the
 * xstats are dvp's others (its per-queue, debug, interrupt and driver
 * counters, the sim's on the sim) and then net_dvp's.
 *
 * The map from ethdev's xstat ids to dvp's is rebuilt when the names are
 * asked for, under the control lock: DPDK's telemetry thread and a
 * secondary's requests (net_dvp_mp.c) read xstats beside the application.
 * Its arrays are libc memory: a secondary's request runs on DPDK's
 * multi-process thread, where growing DPDK's heap would wait for the
 * secondaries' answers that only that thread can read.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dvp_port_counters.h>

#include "net_dvp.h"

static inline struct net_dvp_port *priv_of(struct rte_eth_dev *eth)
{
	return eth->data->dev_private;
}

/* A dvp call failed (it logged why): the op returns its errno. */
static int dvp_ret(int ret)
{
	return ret < 0 ? ret : 0;
}

/* net_dvp's own counter @p which (0 copied, 1 dropped) of @p txq since its reset. */
static uint64_t txq_ctr(const struct net_dvp_txq *txq, unsigned int which)
{
	uint64_t v[2];

	dvp_counters_read(&txq->ctr.copied, &txq->ctr_base.copied, v, 2);
	return v[which];
}

static int stats_get(struct rte_eth_dev *eth, struct rte_eth_stats *st)
{
	struct net_dvp_port *p = priv_of(eth);
	struct dvp_port_stats ds;
	uint16_t i;
	int ret;

	ret = dvp_stats_get(p->dvp_port, &ds);
	if (ret < 0)
		return ret;
	st->ipackets = ds.ipackets;
	st->opackets = ds.opackets;
	st->ibytes = ds.ibytes;
	st->obytes = ds.obytes;
	st->imissed = ds.imissed;
	st->ierrors = ds.ierrors;
	st->oerrors = ds.oerrors;
	/* DPDK filled rx_nombuf from dev->data; dvp's own adds to it. */
	st->rx_nombuf += ds.rx_nombuf;
	for (i = 0; i < eth->data->nb_tx_queues; i++) {
		const struct net_dvp_txq *txq = eth->data->tx_queues[i];

		if (txq != NULL)
			st->oerrors += txq_ctr(txq, 1);
	}
	RTE_BUILD_BUG_ON(RTE_ETHDEV_QUEUE_STAT_CNTRS != DVP_PORT_QUEUE_STAT_CNTRS);
	for (i = 0; i < RTE_ETHDEV_QUEUE_STAT_CNTRS; i++) {
		st->q_ipackets[i] = ds.q_ipackets[i];
		st->q_opackets[i] = ds.q_opackets[i];
		st->q_ibytes[i] = ds.q_ibytes[i];
		st->q_obytes[i] = ds.q_obytes[i];
		st->q_errors[i] = ds.q_errors[i];
	}
	return 0;
}

static int stats_reset(struct rte_eth_dev *eth)
{
	uint16_t i;

	for (i = 0; i < eth->data->nb_tx_queues; i++) {
		struct net_dvp_txq *txq = eth->data->tx_queues[i];

		if (txq != NULL)
			dvp_counters_reset(&txq->ctr.copied, &txq->ctr_base.copied, 2);
	}
	return dvp_ret(dvp_stats_reset(priv_of(eth)->dvp_port));
}

/* The basic counters DPDK names itself for every port; dvp's copies are left out. */
static bool dpdk_names_it(const char *name)
{
	static const char *const basic[] = {
		"rx_good_packets",  "tx_good_packets", "rx_good_bytes", "tx_good_bytes",
		"rx_missed_errors", "rx_errors",       "tx_errors",	"rx_mbuf_allocation_errors",
	};
	unsigned int i, q;
	char rest[16];

	for (i = 0; i < RTE_DIM(basic); i++)
		if (strcmp(name, basic[i]) == 0)
			return true;
	return (sscanf(name, "rx_q%u_%15s", &q, rest) == 2 ||
		sscanf(name, "tx_q%u_%15s", &q, rest) == 2) &&
	       (strcmp(rest, "packets") == 0 || strcmp(rest, "bytes") == 0 ||
		strcmp(rest, "errors") == 0);
}

/* net_dvp's own counters, after dvp's. */
static const char *const own_xstats[] = { "tx_copied", "tx_dropped_too_long" };

static int xstats_map_build(struct net_dvp_port *p, struct dvp_xstat_name **names_out)
{
	struct dvp_xstat_name *names;
	uint32_t i, n;
	int ret;

	ret = dvp_xstats_get_names(p->dvp_port, NULL, 0);
	if (ret < 0)
		return ret;
	n = (uint32_t)ret;
	names = calloc(n + 1, sizeof(*names));
	free(p->xstats_map);
	p->xstats_map_len = 0;
	p->xstats_map = calloc(n + 1, sizeof(*p->xstats_map));
	if (names == NULL || p->xstats_map == NULL) {
		free(names);
		return -ENOMEM;
	}
	ret = dvp_xstats_get_names(p->dvp_port, names, n);
	if (ret < 0) {
		free(names);
		return ret;
	}
	p->xstats_map_len = 0;
	for (i = 0; i < n && i < (uint32_t)ret; i++)
		if (!dpdk_names_it(names[i].name))
			p->xstats_map[p->xstats_map_len++] = i;
	*names_out = names;
	return 0;
}

static uint64_t own_xstat(struct rte_eth_dev *eth, unsigned int which)
{
	uint64_t v = 0;
	uint16_t i;

	for (i = 0; i < eth->data->nb_tx_queues; i++) {
		const struct net_dvp_txq *txq = eth->data->tx_queues[i];

		if (txq != NULL)
			v += txq_ctr(txq, which);
	}
	return v;
}

static int xstats_get_names(struct rte_eth_dev *eth, struct rte_eth_xstat_name *out,
			    unsigned int size)
{
	struct net_dvp_port *p = priv_of(eth);
	struct dvp_xstat_name *names = NULL;
	unsigned int i, total;
	int ret;

	ret = xstats_map_build(p, &names);
	if (ret < 0)
		return ret;
	total = p->xstats_map_len + RTE_DIM(own_xstats);
	if (out != NULL && size >= total) {
		unsigned int k = 0;

		for (i = 0; i < p->xstats_map_len; i++)
			snprintf(out[k++].name, sizeof(out[0].name), "%s",
				 names[p->xstats_map[i]].name);
		for (i = 0; i < RTE_DIM(own_xstats); i++)
			snprintf(out[k++].name, sizeof(out[0].name), "%s", own_xstats[i]);
	}
	free(names);
	return (int)total;
}

static int xstats_get(struct rte_eth_dev *eth, struct rte_eth_xstat *out, unsigned int n)
{
	struct net_dvp_port *p = priv_of(eth);
	struct dvp_xstat *vals;
	unsigned int i, total;
	int ret;

	if (p->xstats_map == NULL) {
		struct dvp_xstat_name *names = NULL;

		ret = xstats_map_build(p, &names);
		free(names);
		if (ret < 0)
			return ret;
	}
	total = p->xstats_map_len + RTE_DIM(own_xstats);
	if (out == NULL || n < total)
		return (int)total;
	ret = dvp_xstats_get(p->dvp_port, NULL, 0);
	if (ret < 0)
		return ret;
	vals = calloc((size_t)ret + 1, sizeof(*vals));
	if (vals == NULL)
		return -ENOMEM;
	ret = dvp_xstats_get(p->dvp_port, vals, (unsigned int)ret);
	if (ret < 0) {
		free(vals);
		return ret;
	}
	for (i = 0; i < p->xstats_map_len; i++) {
		out[i].id = i;
		out[i].value = p->xstats_map[i] < (uint32_t)ret ? vals[p->xstats_map[i]].value : 0;
	}
	for (i = 0; i < RTE_DIM(own_xstats); i++)
		out[p->xstats_map_len + i].value = own_xstat(eth, i);
	for (i = 0; i < total; i++)
		out[i].id = i;
	free(vals);
	return (int)total;
}

/* The ops: each under the control lock (the file's head says why). */
int net_dvp_stats_get(struct rte_eth_dev *eth, struct rte_eth_stats *st)
{
	int ret;

	net_dvp_ctrl_lock();
	ret = stats_get(eth, st);
	net_dvp_ctrl_unlock();
	return ret;
}

int net_dvp_stats_reset(struct rte_eth_dev *eth)
{
	int ret;

	net_dvp_ctrl_lock();
	ret = stats_reset(eth);
	net_dvp_ctrl_unlock();
	return ret;
}

int net_dvp_xstats_get_names(struct rte_eth_dev *eth, struct rte_eth_xstat_name *out,
			     unsigned int size)
{
	int ret;

	net_dvp_ctrl_lock();
	ret = xstats_get_names(eth, out, size);
	net_dvp_ctrl_unlock();
	return ret;
}

int net_dvp_xstats_get(struct rte_eth_dev *eth, struct rte_eth_xstat *out, unsigned int n)
{
	int ret;

	net_dvp_ctrl_lock();
	ret = xstats_get(eth, out, n);
	net_dvp_ctrl_unlock();
	return ret;
}

int net_dvp_xstats_reset(struct rte_eth_dev *eth)
{
	int ret;

	net_dvp_ctrl_lock();
	stats_reset(eth);
	ret = dvp_ret(dvp_xstats_reset(priv_of(eth)->dvp_port));
	net_dvp_ctrl_unlock();
	return ret;
}
