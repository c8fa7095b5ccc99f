/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The ethdev ops of a net_dvp port: each maps onto the dvp port API.
 * Offload, RSS and link-speed bits have DPDK's values in dvpmd, so they
 * pass through unchanged.
 */

#include <assert.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bus_vdev_driver.h>
#include <rte_malloc.h>

#include <dvp_eal.h>

#include "net_dvp.h"

static inline struct net_dvp_port *priv_of(struct rte_eth_dev *eth)
{
	return eth->data->dev_private;
}

/*
 * The tx offload bits pass between DPDK's API and dvpmd's as they are
 * (capabilities, port and queue offloads); so do the mbuf flags and
 * tx_offload lengths they act on (net_dvp_rxtx.c).
 */
#define NET_DVP_SAME_TX_OFFLOAD(name)                                     \
	static_assert(DVP_TX_OFFLOAD_##name == RTE_ETH_TX_OFFLOAD_##name, \
		      "TX_OFFLOAD_" #name " differs")
NET_DVP_SAME_TX_OFFLOAD(VLAN_INSERT);
NET_DVP_SAME_TX_OFFLOAD(IPV4_CKSUM);
NET_DVP_SAME_TX_OFFLOAD(UDP_CKSUM);
NET_DVP_SAME_TX_OFFLOAD(TCP_CKSUM);
NET_DVP_SAME_TX_OFFLOAD(TCP_TSO);
NET_DVP_SAME_TX_OFFLOAD(MT_LOCKFREE);
NET_DVP_SAME_TX_OFFLOAD(MULTI_SEGS);
NET_DVP_SAME_TX_OFFLOAD(MBUF_FAST_FREE);

/* A dvp call failed (it logged why): the ethdev op returns its errno. */
static int dvp_ret(int ret)
{
	return ret < 0 ? ret : 0;
}

static int configure(struct rte_eth_dev *eth)
{
	struct net_dvp_port *p = priv_of(eth);
	const struct rte_eth_conf *c = &eth->data->dev_conf;
	struct dvp_port_conf conf = { 0 };
	int ret;

	conf.rxmode.mtu = c->rxmode.mtu;
	conf.rxmode.offloads = c->rxmode.offloads;
	conf.txmode.offloads = c->txmode.offloads;
	if (eth->data->nb_rx_queues > 1 || c->rx_adv_conf.rss_conf.rss_hf != 0) {
		conf.rss_conf.rss_key = c->rx_adv_conf.rss_conf.rss_key;
		conf.rss_conf.rss_key_len = c->rx_adv_conf.rss_conf.rss_key_len;
		conf.rss_conf.rss_hf = c->rx_adv_conf.rss_conf.rss_hf;
	}
	conf.intr_conf.lsc = c->intr_conf.lsc;
	conf.intr_conf.rmv = c->intr_conf.rmv;
	conf.intr_conf.rxq = c->intr_conf.rxq;
	ret = dvp_port_configure(p->dvp_port, eth->data->nb_rx_queues, eth->data->nb_tx_queues,
				 &conf);
	return dvp_ret(ret);
}

static uint32_t speed_capa(uint32_t mbps)
{
	static const struct {
		uint32_t mbps;
		uint32_t flag;
	} speeds[] = {
		{ 1000, RTE_ETH_LINK_SPEED_1G },     { 10000, RTE_ETH_LINK_SPEED_10G },
		{ 25000, RTE_ETH_LINK_SPEED_25G },   { 40000, RTE_ETH_LINK_SPEED_40G },
		{ 50000, RTE_ETH_LINK_SPEED_50G },   { 100000, RTE_ETH_LINK_SPEED_100G },
		{ 200000, RTE_ETH_LINK_SPEED_200G },
	};
	uint32_t capa = 0;
	unsigned int i;

	for (i = 0; i < RTE_DIM(speeds); i++)
		if (speeds[i].mbps <= mbps)
			capa |= speeds[i].flag;
	return capa;
}

/*
 * Values only, no pointer: a secondary's request runs this on a copy of
 * the secondary's info (net_dvp_mp.c), where a pointer of the primary's
 * would point at nothing.
 */
static int net_dvp_infos_get(struct rte_eth_dev *eth, struct rte_eth_dev_info *info)
{
	struct net_dvp_port *p = priv_of(eth);
	struct dvp_port_info di;
	int ret;

	ret = dvp_port_info_get(p->dvp_port, &di);
	if (ret < 0)
		return ret;
	info->max_rx_queues = di.max_rx_queues;
	info->max_tx_queues = di.max_tx_queues;
	info->max_mac_addrs = 1;
	info->max_rx_pktlen = di.max_rx_pktlen;
	info->min_mtu = di.min_mtu;
	info->max_mtu = di.max_mtu;
	info->min_rx_bufsize = RTE_PKTMBUF_HEADROOM + 64;
	info->rx_desc_lim.nb_max = di.rx_desc_lim.nb_max;
	info->rx_desc_lim.nb_min = di.rx_desc_lim.nb_min;
	info->rx_desc_lim.nb_align = di.rx_desc_lim.nb_align;
	info->tx_desc_lim.nb_max = di.tx_desc_lim.nb_max;
	info->tx_desc_lim.nb_min = di.tx_desc_lim.nb_min;
	info->tx_desc_lim.nb_align = di.tx_desc_lim.nb_align;
	info->default_rxportconf.ring_size = di.default_rxq_size;
	info->default_txportconf.ring_size = di.default_txq_size;
	info->rx_offload_capa = di.rx_offload_capa;
	/* The VLAN filter is the port's, as in DPDK's drivers. */
	info->rx_queue_offload_capa = di.rx_offload_capa & ~RTE_ETH_RX_OFFLOAD_VLAN_FILTER;
	/* Multi-segment sends the device cannot take are copied into one buffer when they fit. */
	info->tx_offload_capa = di.tx_offload_capa | RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	info->flow_type_rss_offloads = di.rss_hf_capa;
	info->hash_key_size = di.hash_key_size;
	info->reta_size = di.reta_size;
	info->speed_capa = speed_capa(di.speed_capa_mbps);
	return 0;
}

const uint32_t *net_dvp_ptypes_get(struct rte_eth_dev *eth)
{
	/* What dvpmd's rx paths classify (mlx5's CQE fields; the others say UNKNOWN). */
	static const uint32_t ptypes[] = {
		RTE_PTYPE_L2_ETHER,
		RTE_PTYPE_L3_IPV4_EXT_UNKNOWN,
		RTE_PTYPE_L3_IPV6_EXT_UNKNOWN,
		RTE_PTYPE_L4_TCP,
		RTE_PTYPE_L4_UDP,
		RTE_PTYPE_UNKNOWN,
	};

	(void)eth;
	return ptypes;
}

static int net_dvp_start(struct rte_eth_dev *eth)
{
	struct net_dvp_port *p = priv_of(eth);
	struct dvp_link link;
	uint16_t i;
	int ret;

	ret = dvp_port_start(p->dvp_port);
	if (ret < 0)
		return ret;
	ret = net_dvp_intr_setup(eth);
	if (ret < 0) {
		dvp_port_stop(p->dvp_port);
		return ret;
	}
	net_dvp_bursts_set(eth);
	if (dvp_link_get_nowait(p->dvp_port, &link) == 0) {
		struct rte_eth_link l = net_dvp_link_of(&link);

		rte_eth_linkstatus_set(eth, &l);
	}
	for (i = 0; i < eth->data->nb_rx_queues; i++)
		eth->data->rx_queue_state[i] = RTE_ETH_QUEUE_STATE_STARTED;
	for (i = 0; i < eth->data->nb_tx_queues; i++)
		eth->data->tx_queue_state[i] = RTE_ETH_QUEUE_STATE_STARTED;
	return 0;
}

static int net_dvp_stop(struct rte_eth_dev *eth)
{
	struct net_dvp_port *p = priv_of(eth);
	uint16_t i;
	int ret;

	net_dvp_bursts_unset(eth);
	ret = dvp_port_stop(p->dvp_port);
	net_dvp_intr_teardown(eth);
	for (i = 0; i < eth->data->nb_rx_queues; i++)
		eth->data->rx_queue_state[i] = RTE_ETH_QUEUE_STATE_STOPPED;
	for (i = 0; i < eth->data->nb_tx_queues; i++)
		eth->data->tx_queue_state[i] = RTE_ETH_QUEUE_STATE_STOPPED;
	return dvp_ret(ret);
}

static void net_dvp_rxq_release(struct rte_eth_dev *eth, uint16_t qid)
{
	/* Its dvp queue lives until the port is configured again or closed. */
	net_dvp_ctrl_lock();
	rte_free(eth->data->rx_queues[qid]);
	eth->data->rx_queues[qid] = NULL;
	net_dvp_ctrl_unlock();
}

static void net_dvp_txq_release(struct rte_eth_dev *eth, uint16_t qid)
{
	net_dvp_ctrl_lock();
	rte_free(eth->data->tx_queues[qid]);
	eth->data->tx_queues[qid] = NULL;
	net_dvp_ctrl_unlock();
}

static int net_dvp_close(struct rte_eth_dev *eth)
{
	struct net_dvp_port *p = priv_of(eth);
	uint16_t i;
	int ret;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return 0;
	/* Secondaries' requests name it no more; DPDK frees its private data after this. */
	net_dvp_mp_serve(eth->data->port_id, false);
	net_dvp_bursts_unset(eth);
	/* Waits for an event callback running on DPDK's interrupt thread: not under the lock. */
	net_dvp_events_off(eth);
	net_dvp_intr_teardown(eth);
	net_dvp_ctrl_lock();
	ret = dvp_port_close(p->dvp_port);
	for (i = 0; i < eth->data->nb_rx_queues; i++)
		net_dvp_rxq_release(eth, i);
	for (i = 0; i < eth->data->nb_tx_queues; i++)
		net_dvp_txq_release(eth, i);
	net_dvp_pools_free(p);
	free(p->xstats_map);
	p->xstats_map = NULL;
	net_dvp_ctrl_unlock();
	return dvp_ret(ret);
}

static int net_dvp_reset(struct rte_eth_dev *eth)
{
	int ret;

	net_dvp_ctrl_lock();
	ret = dvp_port_reset(priv_of(eth)->dvp_port);
	net_dvp_ctrl_unlock();
	return dvp_ret(ret);
}

static int rxq_setup(struct rte_eth_dev *eth, uint16_t qid, uint16_t nb_desc, unsigned int socket,
		     const struct rte_eth_rxconf *conf, struct rte_mempool *mp)
{
	struct net_dvp_port *p = priv_of(eth);
	struct dvp_rxq_conf dconf = { .offloads = conf != NULL ? conf->offloads : 0 };
	struct net_dvp_rxq *rxq;
	uint16_t room = rte_pktmbuf_data_room_size(mp);
	int ret;

	if (rte_pktmbuf_priv_size(mp) % 8 != 0 || room <= RTE_PKTMBUF_HEADROOM) {
		NET_DVP_LOG(
			ERR,
			"port %u rx queue %u: pool %s has a data room of %u: it must be above the %u-byte headroom",
			p->eth_port, qid, mp->name, room, RTE_PKTMBUF_HEADROOM);
		return -EINVAL;
	}
	if (rte_pktmbuf_priv_flags(mp) & RTE_PKTMBUF_POOL_F_PINNED_EXT_BUF) {
		/* dvpmd's mbufs own their buffers; such a pool's mbufs point elsewhere. */
		NET_DVP_LOG(
			ERR,
			"port %u rx queue %u: pool %s has pinned external buffers: give a pool made by rte_pktmbuf_pool_create()",
			p->eth_port, qid, mp->name);
		return -EINVAL;
	}
	ret = net_dvp_rx_timestamp_prepare(eth, qid, dconf.offloads);
	if (ret < 0)
		return ret;
	if (eth->data->rx_queues[qid] != NULL)
		net_dvp_rxq_release(eth, qid);
	rxq = rte_zmalloc_socket("net_dvp_rxq", sizeof(*rxq), RTE_CACHE_LINE_SIZE, (int)socket);
	if (rxq == NULL)
		return -ENOMEM;
	rxq->dvp_port = p->dvp_port;
	rxq->queue_id = qid;
	rxq->eth_port = p->eth_port;
	rxq->mp = mp;
	rxq->kick_fd = -1;
	rxq->epoll_fd = -1;
	/* The application's pool is a dvp pool in this build (net_dvp.h). */
	ret = dvp_rxq_setup(p->dvp_port, qid, nb_desc, (int)socket, &dconf,
			    (struct dvp_mempool *)mp);
	if (ret < 0) {
		rte_free(rxq);
		return ret;
	}
	eth->data->rx_queues[qid] = rxq;
	return 0;
}

static int txq_setup(struct rte_eth_dev *eth, uint16_t qid, uint16_t nb_desc, unsigned int socket,
		     const struct rte_eth_txconf *conf)
{
	struct net_dvp_port *p = priv_of(eth);
	struct dvp_txq_conf dconf = { 0 };
	struct net_dvp_txq *txq;
	struct dvp_port_info di;
	uint16_t room;
	int ret;

	ret = dvp_port_info_get(p->dvp_port, &di);
	if (ret < 0)
		return ret;
	if (conf != NULL) {
		/* Chains the dvp queue cannot send are copied into one buffer. */
		dconf.offloads = conf->offloads;
		if (!(di.tx_offload_capa & DVP_TX_OFFLOAD_MULTI_SEGS))
			dconf.offloads &= ~RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
		dconf.tx_free_thresh = conf->tx_free_thresh;
	}
	if (eth->data->tx_queues[qid] != NULL)
		net_dvp_txq_release(eth, qid);
	txq = rte_zmalloc_socket("net_dvp_txq", sizeof(*txq), RTE_CACHE_LINE_SIZE, (int)socket);
	if (txq == NULL)
		return -ENOMEM;
	txq->dvp_port = p->dvp_port;
	txq->queue_id = qid;
	txq->needs_mr = (di.dev_capa & DVP_PORT_DEV_CAPA_MEM_REG) != 0;
	/* DPDK passes only the queue's own offloads here: the port's hold as well. */
	txq->multi_seg = ((dconf.offloads | eth->data->dev_conf.txmode.offloads) &
			  di.tx_offload_capa & DVP_TX_OFFLOAD_MULTI_SEGS) != 0;
	/* Copies hold a whole frame of the port's largest size. */
	room = (uint16_t)RTE_MIN(RTE_MAX(di.max_rx_pktlen, 1518u) + RTE_PKTMBUF_HEADROOM, 65535u);
	txq->max_len = room - RTE_PKTMBUF_HEADROOM;
	txq->pool = net_dvp_pool_create(p, "tx", (unsigned int)nb_desc * 2 + 64, room, (int)socket);
	if (txq->pool == NULL) {
		rte_free(txq);
		return -ENOMEM;
	}
	/* A pool that goes is forgotten by the tx queues (its copies' pool is registered when made). */
	net_dvp_pool_events_on();
	ret = dvp_txq_setup(p->dvp_port, qid, nb_desc, (int)socket, &dconf);
	if (ret < 0) {
		rte_free(txq);
		return ret;
	}
	eth->data->tx_queues[qid] = txq;
	return 0;
}

/*
 * The ops that free or rebuild a port's queues hold the control lock: a
 * secondary's request (net_dvp_mp.c) or DPDK's telemetry thread may be
 * reading them.
 */
static int net_dvp_configure(struct rte_eth_dev *eth)
{
	int ret;

	net_dvp_ctrl_lock();
	ret = configure(eth);
	net_dvp_ctrl_unlock();
	return ret;
}

static int net_dvp_rxq_setup(struct rte_eth_dev *eth, uint16_t qid, uint16_t nb_desc,
			     unsigned int socket, const struct rte_eth_rxconf *conf,
			     struct rte_mempool *mp)
{
	int ret;

	net_dvp_ctrl_lock();
	ret = rxq_setup(eth, qid, nb_desc, socket, conf, mp);
	net_dvp_ctrl_unlock();
	return ret;
}

static int net_dvp_txq_setup(struct rte_eth_dev *eth, uint16_t qid, uint16_t nb_desc,
			     unsigned int socket, const struct rte_eth_txconf *conf)
{
	int ret;

	net_dvp_ctrl_lock();
	ret = txq_setup(eth, qid, nb_desc, socket, conf);
	net_dvp_ctrl_unlock();
	return ret;
}

static int net_dvp_link_update(struct rte_eth_dev *eth, int wait)
{
	struct net_dvp_port *p = priv_of(eth);
	struct rte_eth_link l;
	struct dvp_link link;
	int ret;

	ret = wait ? dvp_link_get(p->dvp_port, &link) : dvp_link_get_nowait(p->dvp_port, &link);
	if (ret < 0)
		return ret;
	l = net_dvp_link_of(&link);
	return rte_eth_linkstatus_set(eth, &l);
}

static int net_dvp_promisc_enable(struct rte_eth_dev *eth)
{
	return dvp_ret(dvp_promiscuous_enable(priv_of(eth)->dvp_port));
}

static int net_dvp_promisc_disable(struct rte_eth_dev *eth)
{
	return dvp_ret(dvp_promiscuous_disable(priv_of(eth)->dvp_port));
}

/* Multicast frames are not filtered by dvpmd's ports: all-multicast is always on. */
static int net_dvp_allmulti_enable(struct rte_eth_dev *eth)
{
	(void)eth;
	return 0;
}

static int net_dvp_allmulti_disable(struct rte_eth_dev *eth)
{
	(void)eth;
	return -ENOTSUP;
}

static int net_dvp_mac_set(struct rte_eth_dev *eth, struct rte_ether_addr *mac)
{
	struct dvp_ether_addr a;

	memcpy(a.addr_bytes, mac->addr_bytes, sizeof(a.addr_bytes));
	return dvp_ret(dvp_macaddr_set(priv_of(eth)->dvp_port, &a));
}

static int net_dvp_mtu_set(struct rte_eth_dev *eth, uint16_t mtu)
{
	return dvp_ret(dvp_port_mtu_set(priv_of(eth)->dvp_port, mtu));
}

static int net_dvp_fw_version_get(struct rte_eth_dev *eth, char *buf, size_t size)
{
	struct dvp_port_info di;
	int n;

	if (dvp_port_info_get(priv_of(eth)->dvp_port, &di) < 0)
		return -EIO;
	n = snprintf(buf, size, "%s %s", dvp_version(), di.driver_name);
	return n < 0 ? -EIO : ((size_t)n + 1 > size ? n + 1 : 0);
}

/*
 * RSS: the dvp port has the four calls when its driver hashes, and says
 * -ENOTSUP with a line when not; its key size and table size are in
 * infos_get. The table's entries are DPDK's in layout.
 */
static_assert(sizeof(struct dvp_rss_reta_entry64) == sizeof(struct rte_eth_rss_reta_entry64) &&
		      offsetof(struct dvp_rss_reta_entry64, reta) ==
			      offsetof(struct rte_eth_rss_reta_entry64, reta) &&
		      DVP_RETA_GROUP_SIZE == RTE_ETH_RETA_GROUP_SIZE,
	      "dvp_rss_reta_entry64 is not rte_eth_rss_reta_entry64");

static int net_dvp_rss_conf_get(struct rte_eth_dev *eth, struct rte_eth_rss_conf *conf)
{
	struct dvp_port_rss_conf rc = { .rss_key = conf->rss_key,
					.rss_key_len = conf->rss_key_len };
	int ret = dvp_port_rss_hash_conf_get(priv_of(eth)->dvp_port, &rc);

	if (ret < 0)
		return ret;
	conf->rss_hf = rc.rss_hf;
	conf->rss_key_len = rc.rss_key_len;
	return 0;
}

/* RSS fields cross as they are: dvp's bits are ethdev's. */
_Static_assert(DVP_RSS_IP == RTE_ETH_RSS_IP && DVP_RSS_TCP == RTE_ETH_RSS_TCP &&
		       DVP_RSS_UDP == RTE_ETH_RSS_UDP && DVP_RSS_IPV4 == RTE_ETH_RSS_IPV4 &&
		       DVP_RSS_FRAG_IPV4 == RTE_ETH_RSS_FRAG_IPV4 &&
		       DVP_RSS_NONFRAG_IPV4_TCP == RTE_ETH_RSS_NONFRAG_IPV4_TCP &&
		       DVP_RSS_NONFRAG_IPV4_UDP == RTE_ETH_RSS_NONFRAG_IPV4_UDP &&
		       DVP_RSS_NONFRAG_IPV4_OTHER == RTE_ETH_RSS_NONFRAG_IPV4_OTHER &&
		       DVP_RSS_IPV6 == RTE_ETH_RSS_IPV6 &&
		       DVP_RSS_FRAG_IPV6 == RTE_ETH_RSS_FRAG_IPV6 &&
		       DVP_RSS_NONFRAG_IPV6_TCP == RTE_ETH_RSS_NONFRAG_IPV6_TCP &&
		       DVP_RSS_NONFRAG_IPV6_UDP == RTE_ETH_RSS_NONFRAG_IPV6_UDP &&
		       DVP_RSS_NONFRAG_IPV6_OTHER == RTE_ETH_RSS_NONFRAG_IPV6_OTHER &&
		       DVP_RSS_L2_PAYLOAD == RTE_ETH_RSS_L2_PAYLOAD &&
		       DVP_RSS_IPV6_EX == RTE_ETH_RSS_IPV6_EX &&
		       DVP_RSS_IPV6_TCP_EX == RTE_ETH_RSS_IPV6_TCP_EX &&
		       DVP_RSS_IPV6_UDP_EX == RTE_ETH_RSS_IPV6_UDP_EX &&
		       DVP_RSS_L3_SRC_ONLY == RTE_ETH_RSS_L3_SRC_ONLY &&
		       DVP_RSS_L3_DST_ONLY == RTE_ETH_RSS_L3_DST_ONLY &&
		       DVP_RSS_L4_SRC_ONLY == RTE_ETH_RSS_L4_SRC_ONLY &&
		       DVP_RSS_L4_DST_ONLY == RTE_ETH_RSS_L4_DST_ONLY,
	       "a DVP_RSS_* bit is not the RTE_ETH_RSS_* bit of its name");

/* ethdev has checked the fields against flow_type_rss_offloads, lib/port checks all again. */
static int net_dvp_rss_update(struct rte_eth_dev *eth, struct rte_eth_rss_conf *conf)
{
	struct dvp_port_rss_conf rc = { .rss_key = conf->rss_key,
					.rss_key_len = conf->rss_key_len,
					.rss_hf = conf->rss_hf };

	/* A key of length 0 keeps the key, as DPDK's drivers read it. */
	if (rc.rss_key_len == 0)
		rc.rss_key = NULL;
	return dvp_ret(dvp_port_rss_hash_update(priv_of(eth)->dvp_port, &rc));
}

static int net_dvp_reta_query(struct rte_eth_dev *eth, struct rte_eth_rss_reta_entry64 *reta,
			      uint16_t size)
{
	return dvp_ret(dvp_port_rss_reta_query(priv_of(eth)->dvp_port,
					       (struct dvp_rss_reta_entry64 *)reta, size));
}

static int net_dvp_reta_update(struct rte_eth_dev *eth, struct rte_eth_rss_reta_entry64 *reta,
			       uint16_t size)
{
	return dvp_ret(dvp_port_rss_reta_update(priv_of(eth)->dvp_port,
						(const struct dvp_rss_reta_entry64 *)reta, size));
}

const struct eth_dev_ops net_dvp_ops = {
	.dev_configure = net_dvp_configure,
	.dev_infos_get = net_dvp_infos_get,
	.dev_supported_ptypes_get = net_dvp_ptypes_get,
	.dev_start = net_dvp_start,
	.dev_stop = net_dvp_stop,
	.dev_close = net_dvp_close,
	.dev_reset = net_dvp_reset,
	.rx_queue_setup = net_dvp_rxq_setup,
	.tx_queue_setup = net_dvp_txq_setup,
	.rx_queue_release = net_dvp_rxq_release,
	.tx_queue_release = net_dvp_txq_release,
	.rx_queue_intr_enable = net_dvp_rx_intr_enable,
	.rx_queue_intr_disable = net_dvp_rx_intr_disable,
	.link_update = net_dvp_link_update,
	.promiscuous_enable = net_dvp_promisc_enable,
	.promiscuous_disable = net_dvp_promisc_disable,
	.allmulticast_enable = net_dvp_allmulti_enable,
	.allmulticast_disable = net_dvp_allmulti_disable,
	.mac_addr_set = net_dvp_mac_set,
	.mtu_set = net_dvp_mtu_set,
	.stats_get = net_dvp_stats_get,
	.stats_reset = net_dvp_stats_reset,
	.xstats_get = net_dvp_xstats_get,
	.xstats_get_names = net_dvp_xstats_get_names,
	.xstats_reset = net_dvp_xstats_reset,
	.rss_hash_update = net_dvp_rss_update,
	.rss_hash_conf_get = net_dvp_rss_conf_get,
	.reta_update = net_dvp_reta_update,
	.reta_query = net_dvp_reta_query,
	.fw_version_get = net_dvp_fw_version_get,
	.get_monitor_addr = net_dvp_get_monitor_addr,
	.flow_ops_get = net_dvp_flow_ops_get,
	.vlan_offload_set = net_dvp_vlan_offload_set,
	.vlan_filter_set = net_dvp_vlan_filter_set,
	.vlan_strip_queue_set = net_dvp_vlan_strip_queue_set,
	.read_clock = net_dvp_read_clock,
};

int net_dvp_port_create(struct net_dvp_dev *dev, uint16_t dvp_port)
{
	struct rte_eth_dev *eth;
	struct net_dvp_port *p;
	struct dvp_ether_addr mac;
	char name[RTE_ETH_NAME_MAX_LEN], dvp_name[64];
	int socket = dev->vdev->device.numa_node;
	struct dvp_port_info di;

	if (dvp_port_get_name(dvp_port, dvp_name, sizeof(dvp_name)) < 0 ||
	    dvp_port_info_get(dvp_port, &di) < 0)
		return -ENODEV;
	if (di.numa_node >= 0)
		socket = di.numa_node;
	if (snprintf(name, sizeof(name), "%s_%.*s", dev->name, (int)(sizeof(name) / 2), dvp_name) >=
	    (int)sizeof(name))
		return -ENAMETOOLONG;
	eth = rte_eth_dev_allocate(name);
	if (eth == NULL) {
		NET_DVP_LOG(ERR, "%s: cannot allocate an ethdev port named %s", dev->name, name);
		return -ENOMEM;
	}
	p = rte_zmalloc_socket(name, sizeof(*p), RTE_CACHE_LINE_SIZE, socket);
	eth->data->mac_addrs = rte_zmalloc_socket(name, sizeof(struct rte_ether_addr), 0, socket);
	if (p == NULL || eth->data->mac_addrs == NULL) {
		rte_free(p);
		rte_eth_dev_release_port(eth);
		return -ENOMEM;
	}
	p->dvp_port = dvp_port;
	p->eth_port = eth->data->port_id;
	p->dev = dev;
	p->tx_stops = (di.dev_capa & DVP_PORT_DEV_CAPA_TX_STOPS) != 0;
	if (dvp_macaddr_get(dvp_port, &mac) == 0)
		memcpy(eth->data->mac_addrs[0].addr_bytes, mac.addr_bytes, RTE_ETHER_ADDR_LEN);
	eth->data->dev_private = p;
	eth->data->numa_node = socket;
	/* testpmd and others ask for what the flags offer: offer what the dvp port has. */
	eth->data->dev_flags |= RTE_ETH_DEV_AUTOFILL_QUEUE_XSTATS;
	if (di.intr_capa & DVP_PORT_INTR_LSC)
		eth->data->dev_flags |= RTE_ETH_DEV_INTR_LSC;
	if (di.intr_capa & DVP_PORT_INTR_RMV)
		eth->data->dev_flags |= RTE_ETH_DEV_INTR_RMV;
	eth->device = &dev->vdev->device;
	eth->dev_ops = &net_dvp_ops;
	eth->rx_pkt_burst = net_dvp_rx_burst;
	eth->tx_pkt_burst = net_dvp_tx_burst;
	eth->intr_handle = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_SHARED);
	if (eth->intr_handle == NULL || rte_intr_type_set(eth->intr_handle, RTE_INTR_HANDLE_EXT)) {
		rte_intr_instance_free(eth->intr_handle);
		eth->intr_handle = NULL;
		rte_eth_dev_release_port(eth);
		return -ENOMEM;
	}
	dev->eth_ports[dev->nb_ports++] = p->eth_port;
	net_dvp_events_on(eth);
	rte_eth_dev_probing_finish(eth);
	net_dvp_mp_serve(p->eth_port, true);
	NET_DVP_LOG(INFO, "%s: port %u is dvp port %u (%s, %s)", dev->name, p->eth_port, dvp_port,
		    dvp_name, di.driver_name);
	return 0;
}
