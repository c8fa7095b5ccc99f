/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * net_dvp: dvpmd's ports as DPDK ethdev ports, inside a DPDK process.
 * What the plugin's files share (not installed).
 *
 * One --vdev net_dvpN,<dvp device>[,<its devargs>] attaches a dvp device
 * on dvpmd's hosted runtime and makes one ethdev port of each dvp port it
 * creates. Each ethdev op calls the dvp port API, as an application would.
 *
 * Mbufs cross as they are (doc/dpdk.md): the plugin's own build of dvpmd
 * lays a dvp mbuf out as DPDK's rte_mbuf and takes DPDK's rte_mempool as
 * its pool (DVP_HOST_DPDK), so a dvp rx queue fills its descriptors from
 * the pool the application gave rx_queue_setup, hands those mbufs up
 * unchanged, and a dvp tx queue takes the application's mbufs and frees
 * them to their own pools. Only an mbuf dvpmd cannot send as it is (an
 * indirect or external buffer, or a pool the device has not registered)
 * is copied, into a pool of the tx queue's (counted as tx_copied).
 */

#ifndef NET_DVP_H
#define NET_DVP_H

#include <stdbool.h>
#include <stdint.h>

#include <ethdev_driver.h>
#include <rte_log.h>
#include <rte_mbuf.h>

#include <dvp_mbuf.h>
#include <dvp_port.h>

extern int net_dvp_logtype;
#define NET_DVP_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, net_dvp_logtype, "net_dvp: " fmt "\n", ##__VA_ARGS__)

/*
 * What each dvp mbuf of net_dvp's pools keeps in its dynamic fields (the
 * second cache line, which tx reads anyway): the external-buffer info an
 * rte_mbuf points at while it carries this buffer, and the buffer's IOVA.
 */
struct net_dvp_rxq {
	/* the dvp queue's burst function and data, as its port's start set them */
	dvp_rx_burst_fn burst;
	void *dvp_q;
	uint16_t dvp_port; /* the dvp port and queue behind it */
	uint16_t queue_id;
	uint16_t eth_port; /* what rx mbufs' port says */
	struct rte_mempool *mp; /* the application's pool: the dvp queue fills from it */
	int kick_fd; /* eventfd: work found right after arming (rx interrupts) */
	int epoll_fd; /* what DPDK waits on: the dvp queue's fd and kick_fd */
} __rte_cache_aligned;

#define NET_DVP_TX_POOLS_OK 4

struct net_dvp_txq {
	dvp_tx_burst_fn burst; /* as for net_dvp_rxq */
	void *dvp_q;
	/*
	 * The running burst's array and count, for its slow path: kept here
	 * and read again after the dvp queue's burst returns, so that the
	 * fast path keeps only the queue in a register across that call
	 * (see net_dvp_tx_burst()).
	 */
	struct rte_mbuf **burst_pkts;
	uint16_t burst_nb;
	uint16_t dvp_port;
	uint16_t queue_id;
	/* the pool of the last direct mbuf: the fast path's one comparison */
	const struct rte_mempool *last_pool;
	struct dvp_mempool *pool; /* what mbufs the queue cannot take are copied into */
	uint32_t max_len; /* the longest packet a copy holds */
	bool needs_mr; /* the device sends only from registered memory (DVP_PORT_DEV_CAPA_MEM_REG) */
	bool multi_seg; /* the dvp queue sends chains (else they are copied) */
	/*
	 * Counted by the queue's lcore (dvp_counter_add()), read and reset by
	 * the baseline rule of dvp_port_counters.h, in this order: the xstats
	 * tx_copied and tx_dropped_too_long.
	 */
	struct net_dvp_txq_ctrs {
		uint64_t copied; /* rte_mbufs copied */
		uint64_t dropped; /* rte_mbufs too long to copy, dropped */
	} ctr, ctr_base;
	/* pools found sendable, for the slow check (this lcore only) */
	const struct rte_mempool *pools_ok[NET_DVP_TX_POOLS_OK];
	unsigned int pools_ok_next;
	uint32_t pools_gen; /* of the sendable pools' table when pools_ok was filled */
} __rte_cache_aligned;

struct net_dvp_pool_ref {
	struct net_dvp_pool_ref *next;
	struct dvp_mempool *pool;
};

/* The ethdev's private data. */
struct net_dvp_port {
	uint16_t dvp_port;
	uint16_t eth_port;
	struct net_dvp_dev *dev; /* the vdev it came from */
	struct net_dvp_pool_ref *pools;
	unsigned int pools_made; /* for unique pool names */
	uint32_t xstats_map_len; /* dvp xstats shown (DPDK makes the basic ones itself) */
	uint32_t *xstats_map; /* ethdev xstat index -> dvp xstat index */
	bool events_on;
	/*
	 * The dvp tx queues stop before an mbuf they cannot send as it is
	 * (DVP_PORT_DEV_CAPA_TX_STOPS): net_dvp_tx_burst() looks only where
	 * they stopped. Others' mbufs are all looked at first.
	 */
	bool tx_stops;
	/*
	 * Started, with the ethdev and dvp port numbers alike: DPDK's
	 * rx_queues[] hold the dvp queues and rx_pkt_burst is the dvp burst;
	 * net_dvp's rx queues wait in rxqs[] (net_dvp_rxq_of()).
	 */
	bool rx_direct;
	struct net_dvp_rxq *rxqs[RTE_MAX_QUEUES_PER_PORT];
};

/* One vdev: the dvp device it attached and the ethdev ports it made. */
struct net_dvp_dev {
	struct net_dvp_dev *next;
	char name[RTE_DEV_NAME_MAX_LEN]; /* "net_dvp0" */
	char dvp_dev[64]; /* the dvp device it attached: "sim_mlx5", "mlx5_0" */
	struct rte_vdev_device *vdev;
	uint16_t nb_ports;
	uint16_t eth_ports[RTE_MAX_ETHPORTS];
	struct net_dvp_pool_ref *pools_left; /* of closed ports, with buffers still out */
};

/* A dvp link state as DPDK's. */
static inline struct rte_eth_link net_dvp_link_of(const struct dvp_link *link)
{
	struct rte_eth_link l = {
		.link_speed = link->link_speed == DVP_LINK_SPEED_UNKNOWN ?
				      RTE_ETH_SPEED_NUM_UNKNOWN :
				      link->link_speed,
		.link_duplex = link->link_duplex,
		.link_autoneg = link->link_autoneg,
		.link_status = link->link_status,
	};

	return l;
}

/* net_dvp's rx queue @p q of @p eth, wherever it is (struct net_dvp_port's rx_direct). */
static inline struct net_dvp_rxq *net_dvp_rxq_of(const struct rte_eth_dev *eth, uint16_t q)
{
	const struct net_dvp_port *p = eth->data->dev_private;

	return p->rx_direct ? p->rxqs[q] : eth->data->rx_queues[q];
}

/* net_dvp_host.c: the hosted runtime, started by the first vdev and stopped by the last */
int net_dvp_runtime_get(void);
void net_dvp_runtime_put(void);

/* net_dvp.c: vdev @p name's ethdev ports (at most @p max); -ENODEV: no such vdev. Under the control lock. */
int net_dvp_dev_ports(const char *name, uint16_t *ports, unsigned int max);

/* net_dvp_ethdev.c */
int net_dvp_port_create(struct net_dvp_dev *dev, uint16_t dvp_port);
extern const struct eth_dev_ops net_dvp_ops;
const uint32_t *net_dvp_ptypes_get(struct rte_eth_dev *eth);

/* net_dvp_stats.c: the ops */
int net_dvp_stats_get(struct rte_eth_dev *eth, struct rte_eth_stats *st);
int net_dvp_stats_reset(struct rte_eth_dev *eth);
int net_dvp_xstats_get_names(struct rte_eth_dev *eth, struct rte_eth_xstat_name *out,
			     unsigned int size);
int net_dvp_xstats_get(struct rte_eth_dev *eth, struct rte_eth_xstat *out, unsigned int n);
int net_dvp_xstats_reset(struct rte_eth_dev *eth);

/*
 * net_dvp_mp.c: a secondary process's requests, served by the primary.
 *
 * The control lock: held by the primary's ops that free or rebuild what a
 * request reads (ports, queues, the xstats map), and by each request while
 * it is served. Recursive.
 */
void net_dvp_ctrl_lock(void);
void net_dvp_ctrl_unlock(void);
/* Primary: whether requests may name ethdev port @p port_id (made, not closing). */
void net_dvp_mp_serve(uint16_t port_id, bool on);
/* Primary: answer secondaries (from the first vdev on) or stop (after the last). */
void net_dvp_mp_start(void);
void net_dvp_mp_stop(void);

#define NET_DVP_MP_NAME "net_dvp_mp"
#define NET_DVP_BUILD_ID_LEN 20

enum net_dvp_mp_op {
	NET_DVP_MP_ATTACH = 1, /* the vdev's ethdev port names */
	NET_DVP_MP_INFOS_GET,
	NET_DVP_MP_LINK_UPDATE,
	NET_DVP_MP_STATS_GET,
	NET_DVP_MP_STATS_RESET,
	NET_DVP_MP_XSTATS_GET_NAMES,
	NET_DVP_MP_XSTATS_GET,
	NET_DVP_MP_XSTATS_RESET,
	NET_DVP_MP_FW_VERSION_GET,
	NET_DVP_MP_RSS_HASH_CONF_GET,
	NET_DVP_MP_RETA_QUERY,
};

/* A request: in rte_mp_msg's param. */
struct net_dvp_mp_req {
	uint8_t build_id[NET_DVP_BUILD_ID_LEN]; /* the plugin's: both processes load the same */
	uint32_t op; /* enum net_dvp_mp_op */
	uint16_t port_id; /* the ethdev port */
	uint32_t
		arg; /* LINK_UPDATE: wait; XSTATS_*: entries; FW_VERSION_GET: bytes; RETA_QUERY: size */
	uint64_t buf; /* what the op reads and writes, in DPDK's shared memory, or 0 */
	uint64_t len; /* its bytes */
	char name[RTE_DEV_NAME_MAX_LEN]; /* ATTACH: the vdev */
};

struct net_dvp_mp_rep {
	int32_t ret; /* the op's return */
};

/* RSS_HASH_CONF_GET's buffer: the conf and room for its key. */
struct net_dvp_mp_rss {
	struct rte_eth_rss_conf conf; /* rss_key != NULL: the key too, into key[] */
	uint8_t key[DVP_RSS_KEY_MAX_LEN];
};

/*
 * Secondary: run @p op on the primary's ethdev port @p port_id, on a copy
 * of @p data (@p len bytes) in DPDK's shared memory, copied back when it
 * succeeds. @return the op's return, or -EIO after a line when the
 * primary did not answer, -EPROTO (another build of net_dvp), -ENOMEM.
 */
int net_dvp_mp_request(enum net_dvp_mp_op op, uint16_t port_id, uint32_t arg, const char *name,
		       void *data, size_t len);

/* net_dvp_secondary.c: the vdev in a secondary process: the primary's ports attached */
int net_dvp_secondary_probe(struct rte_vdev_device *vdev);
int net_dvp_secondary_remove(struct rte_vdev_device *vdev);

/* net_dvp_rxtx.c */
/* Take the dvp queues' burst functions and data: after the dvp port started. */
void net_dvp_bursts_set(struct rte_eth_dev *eth);
/* net_dvp's rx queues back in DPDK's rx_queues[]: before the port stops or closes. */
void net_dvp_bursts_unset(struct rte_eth_dev *eth);
uint16_t net_dvp_rx_burst(void *rxq, struct rte_mbuf **pkts, uint16_t nb_pkts);
uint16_t net_dvp_tx_burst(void *txq, struct rte_mbuf **pkts, uint16_t nb_pkts);
/* Whether the port's device can send from @p mp as it is (remembered when so). */
bool net_dvp_tx_pool_ok(struct net_dvp_txq *txq, const struct rte_mempool *mp);
/* Watch DPDK's pool events: a pool that goes is forgotten by the tx queues. */
void net_dvp_pool_events_on(void);
void net_dvp_pool_events_off(void);
struct dvp_mempool *net_dvp_pool_create(struct net_dvp_port *p, const char *what, unsigned int n,
					uint16_t data_room, int socket);
void net_dvp_pools_free(struct net_dvp_port *p);
void net_dvp_dev_pools_free(struct net_dvp_dev *dev);

/* net_dvp_intr.c: rx interrupts and port events */
int net_dvp_intr_setup(struct rte_eth_dev *eth);
void net_dvp_intr_teardown(struct rte_eth_dev *eth);
int net_dvp_rx_intr_enable(struct rte_eth_dev *eth, uint16_t queue_id);
int net_dvp_rx_intr_disable(struct rte_eth_dev *eth, uint16_t queue_id);
void net_dvp_events_on(struct rte_eth_dev *eth);
void net_dvp_events_off(struct rte_eth_dev *eth);
/* The get_monitor_addr op: what the dvp port's driver says to watch. */
int net_dvp_get_monitor_addr(void *rxq, struct rte_power_monitor_cond *pmc);

/* net_dvp_flow.c: the ethdev op giving rte_flow's ops over dvp_flow (dvp_flow.h). */
struct rte_flow_ops;
int net_dvp_flow_ops_get(struct rte_eth_dev *eth, const struct rte_flow_ops **ops);

/*
 * net_dvp_offload.c: VLAN stripping and rx timestamps. Before rx queue
 * @p qid's setup with @p offloads (its own): DPDK's timestamp dynfield
 * registered and given to dvpmd when the queue or the port asks for them.
 */
int net_dvp_rx_timestamp_prepare(struct rte_eth_dev *eth, uint16_t qid, uint64_t offloads);
int net_dvp_vlan_offload_set(struct rte_eth_dev *eth, int mask);
int net_dvp_vlan_filter_set(struct rte_eth_dev *eth, uint16_t vlan_id, int on);
void net_dvp_vlan_strip_queue_set(struct rte_eth_dev *eth, uint16_t q, int on);
int net_dvp_read_clock(struct rte_eth_dev *eth, uint64_t *clock);

#endif /* NET_DVP_H */
