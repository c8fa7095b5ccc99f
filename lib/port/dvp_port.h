/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * Ports: the device API applications use, modelled on DPDK's rte_ethdev.
 *
 * Life of a port:
 *
 *     dvp_port_info_get()                      what the device can do
 *     dvp_port_configure(nb_rxq, nb_txq, conf) queue counts, offloads, RSS, MTU, interrupts
 *     dvp_rxq_setup() / dvp_txq_setup()        each queue
 *     dvp_port_start()                         bursts work from here on
 *     dvp_rx_burst() / dvp_tx_burst()          dvp_port_fp.h: inline, lock-free
 *     dvp_port_stop()                          every mbuf the port holds goes back to its pool
 *     dvp_port_close()                         queues released, port id freed
 *
 * Wrong use is an error, never a crash: a bad port or queue id is -EINVAL,
 * setup or configure of a started port is -EBUSY, both with a log line
 * naming what was wrong; a burst on a stopped port (or a queue that does
 * not exist) returns 0 and is counted in the xstats dbg_rx_burst_refused /
 * dbg_tx_burst_refused.
 *
 * Control functions may be called from any thread but not concurrently on
 * the same port, and not while an lcore bursts on it (as with DPDK: stop
 * the lcores first), but for the RSS changes, made while traffic flows.
 * Events are delivered on the EAL interrupt thread.
 */

#ifndef DVP_PORT_H
#define DVP_PORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <dvp_common.h>
#include <dvp_devargs.h>
#include <dvp_rxwait.h>
#include <dvp_mbuf.h>
#include <dvp_mempool.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Queues per direction a port may have. */
#define DVP_MAX_QUEUES_PER_PORT 128
/** Per-queue counters kept in struct dvp_port_stats (as RTE_ETHDEV_QUEUE_STAT_CNTRS). */
#define DVP_PORT_QUEUE_STAT_CNTRS 16
/** "Every port" for event registration. */
#define DVP_PORT_ID_ALL UINT16_MAX
/** Longest xstat name, NUL included. */
#define DVP_XSTATS_NAMESIZE 64
/** Longest RSS key. */
#define DVP_RSS_KEY_MAX_LEN 64
/** VLAN ids: 0..DVP_VLAN_ID_MAX (12 bits). */
#define DVP_VLAN_ID_MAX 4095

/* ------------------------------------------------------------------------
 * Offloads and RSS fields (DPDK's bit values, so habits and masks carry over)
 */

#define DVP_RX_OFFLOAD_VLAN_STRIP (1ULL << 0)
#define DVP_RX_OFFLOAD_IPV4_CKSUM (1ULL << 1)
#define DVP_RX_OFFLOAD_UDP_CKSUM (1ULL << 2)
#define DVP_RX_OFFLOAD_TCP_CKSUM (1ULL << 3)
/** Receive only the VLANs in the port's table (dvp_port_vlan_filter()). */
#define DVP_RX_OFFLOAD_VLAN_FILTER (1ULL << 9)
#define DVP_RX_OFFLOAD_SCATTER (1ULL << 13)
#define DVP_RX_OFFLOAD_TIMESTAMP (1ULL << 14)
#define DVP_RX_OFFLOAD_KEEP_CRC (1ULL << 16)
#define DVP_RX_OFFLOAD_RSS_HASH (1ULL << 19)
#define DVP_RX_OFFLOAD_CHECKSUM \
	(DVP_RX_OFFLOAD_IPV4_CKSUM | DVP_RX_OFFLOAD_UDP_CKSUM | DVP_RX_OFFLOAD_TCP_CKSUM)

#define DVP_TX_OFFLOAD_VLAN_INSERT (1ULL << 0)
#define DVP_TX_OFFLOAD_IPV4_CKSUM (1ULL << 1)
#define DVP_TX_OFFLOAD_UDP_CKSUM (1ULL << 2)
#define DVP_TX_OFFLOAD_TCP_CKSUM (1ULL << 3)
#define DVP_TX_OFFLOAD_TCP_TSO (1ULL << 5)
#define DVP_TX_OFFLOAD_MT_LOCKFREE (1ULL << 14)
#define DVP_TX_OFFLOAD_MULTI_SEGS (1ULL << 15)
#define DVP_TX_OFFLOAD_MBUF_FAST_FREE (1ULL << 16)

#define DVP_RSS_IPV4 (1ULL << 2)
#define DVP_RSS_FRAG_IPV4 (1ULL << 3)
#define DVP_RSS_NONFRAG_IPV4_TCP (1ULL << 4)
#define DVP_RSS_NONFRAG_IPV4_UDP (1ULL << 5)
#define DVP_RSS_NONFRAG_IPV4_OTHER (1ULL << 7)
#define DVP_RSS_IPV6 (1ULL << 8)
#define DVP_RSS_FRAG_IPV6 (1ULL << 9)
#define DVP_RSS_NONFRAG_IPV6_TCP (1ULL << 10)
#define DVP_RSS_NONFRAG_IPV6_UDP (1ULL << 11)
#define DVP_RSS_NONFRAG_IPV6_OTHER (1ULL << 13)
#define DVP_RSS_L2_PAYLOAD (1ULL << 14)
/** IPv6 with its extension headers (the home address, the routing header's destination) */
#define DVP_RSS_IPV6_EX (1ULL << 15)
#define DVP_RSS_IPV6_TCP_EX (1ULL << 16)
#define DVP_RSS_IPV6_UDP_EX (1ULL << 17)
#define DVP_RSS_L4_DST_ONLY (1ULL << 60)
#define DVP_RSS_L4_SRC_ONLY (1ULL << 61)
#define DVP_RSS_L3_DST_ONLY (1ULL << 62)
#define DVP_RSS_L3_SRC_ONLY (1ULL << 63)
/* The sets of DPDK's RTE_ETH_RSS_IP, _TCP and _UDP, with the same bits. */
#define DVP_RSS_IP                                                                      \
	(DVP_RSS_IPV4 | DVP_RSS_FRAG_IPV4 | DVP_RSS_NONFRAG_IPV4_OTHER | DVP_RSS_IPV6 | \
	 DVP_RSS_FRAG_IPV6 | DVP_RSS_NONFRAG_IPV6_OTHER | DVP_RSS_IPV6_EX)
#define DVP_RSS_TCP (DVP_RSS_NONFRAG_IPV4_TCP | DVP_RSS_NONFRAG_IPV6_TCP | DVP_RSS_IPV6_TCP_EX)
#define DVP_RSS_UDP (DVP_RSS_NONFRAG_IPV4_UDP | DVP_RSS_NONFRAG_IPV6_UDP | DVP_RSS_IPV6_UDP_EX)

/** Interrupt capabilities (struct dvp_port_info::intr_capa). */
#define DVP_PORT_INTR_RXQ (1u << 0) /**< rx queue interrupts */
#define DVP_PORT_INTR_RXQ_SOLICITED (1u << 1) /**< solicited-only arming */
#define DVP_PORT_INTR_LSC (1u << 2) /**< link status change events */
#define DVP_PORT_INTR_RMV (1u << 3) /**< removal events */
#define DVP_PORT_INTR_QUEUE_ERROR (1u << 4) /**< queue error events */

/* ------------------------------------------------------------------------
 * Port information and configuration
 */

struct dvp_ether_addr {
	uint8_t addr_bytes[6];
} __dvp_aligned(2);

struct dvp_desc_lim {
	uint16_t nb_max;
	uint16_t nb_min;
	uint16_t nb_align; /**< descriptor counts must be a multiple of this */
};

struct dvp_port_info {
	const char *driver_name; /**< "net_ring", "net_mlx5" */
	char device_name[64]; /**< the device: "net_ring0", "mlx5_0" */
	int numa_node; /**< of the device, or -1 when unknown */
	uint16_t max_rx_queues;
	uint16_t max_tx_queues;
	uint16_t nb_rx_queues; /**< as configured */
	uint16_t nb_tx_queues;
	struct dvp_desc_lim rx_desc_lim;
	struct dvp_desc_lim tx_desc_lim;
	uint16_t default_rxq_size; /**< what setup uses for nb_desc 0 */
	uint16_t default_txq_size;
	uint64_t rx_offload_capa; /**< DVP_RX_OFFLOAD_* */
	uint64_t tx_offload_capa; /**< DVP_TX_OFFLOAD_* */
	uint64_t rss_hf_capa; /**< DVP_RSS_* the device can hash on */
	uint8_t hash_key_size; /**< RSS key bytes (0: no RSS) */
	uint16_t reta_size; /**< RSS indirection entries */
	uint16_t min_mtu;
	uint16_t max_mtu;
	uint32_t max_rx_pktlen;
	uint32_t intr_capa; /**< DVP_PORT_INTR_* */
	uint32_t speed_capa_mbps; /**< the fastest link speed, Mb/s */
	uint64_t dev_capa; /**< DVP_PORT_DEV_CAPA_*: how the device treats what it is given */
};

/**
 * The device sends only from memory registered with it (an RDMA device's
 * protection domain): dvp_port_mempool_sendable() says which pools it can
 * send from. Its driver registers every pool it can as the pool becomes
 * ready.
 */
#define DVP_PORT_DEV_CAPA_MEM_REG (1ull << 0)
/**
 * The tx bursts stop at an mbuf the device cannot send as it is (memory
 * not registered with it; an indirect or external buffer in a build hosted
 * by DPDK) and return the count before it, instead of dropping it: the
 * caller may send that one another way (a copy) and go on from there.
 */
#define DVP_PORT_DEV_CAPA_TX_STOPS (1ull << 1)

/**
 * An RSS configuration, as DPDK's rte_eth_rss_conf: given to configure and
 * dvp_port_rss_hash_update(), filled by dvp_port_rss_hash_conf_get(), which
 * writes the key into rss_key (hence not const).
 */
struct dvp_port_rss_conf {
	uint8_t *rss_key; /**< NULL: the driver's default key (configure), the key kept (update) */
	uint8_t rss_key_len; /**< must be info.hash_key_size when a key is given */
	uint64_t rss_hf; /**< DVP_RSS_*; 0 hashes nothing: every frame takes table entry 0 */
};

struct dvp_port_intr_conf {
	uint32_t lsc : 1; /**< deliver LINK_STATUS_CHANGE events */
	uint32_t rmv : 1; /**< deliver REMOVAL events */
	uint32_t rxq : 1; /**< rx queues can be armed and waited on */
	uint32_t rxq_solicited : 1; /**< arm for solicited completions only */
	uint32_t reserved : 28;
	/** Events acked per call in lib/rxwait (0: DVP_RXWAIT_ACK_BATCH_DEFAULT). */
	uint32_t rxq_ack_batch;
};

struct dvp_port_conf {
	struct {
		uint32_t mtu; /**< 0: keep the current MTU (1500 at first) */
		uint64_t offloads; /**< DVP_RX_OFFLOAD_* for every queue */
	} rxmode;
	struct {
		uint64_t offloads; /**< DVP_TX_OFFLOAD_* for every queue */
	} txmode;
	struct dvp_port_rss_conf rss_conf; /**< used with more than one rx queue */
	struct dvp_port_intr_conf intr_conf;
};

struct dvp_rxq_conf {
	uint64_t offloads; /**< added to the port's for this queue */
};

struct dvp_txq_conf {
	uint64_t offloads;
	uint16_t tx_free_thresh; /**< free completed mbufs beyond this (0: driver default) */
};

/* ------------------------------------------------------------------------
 * Ports: lookup and information
 */

/** Ports in use (probed and not closed). */
uint16_t dvp_port_count(void);

/** Whether @p port_id names a port in use. */
bool dvp_port_is_valid(uint16_t port_id);

/** The next port in use at or after @p port_id, or DVP_MAX_PORTS. */
uint16_t dvp_port_find_next(uint16_t port_id);

#define DVP_PORT_FOREACH(p) \
	for ((p) = dvp_port_find_next(0); (p) < DVP_MAX_PORTS; (p) = dvp_port_find_next((p) + 1))

/**
 * Find a port by name ("net_ring0").
 * @return 0 with *@p port_id set, or -ENODEV (no log line: looking is not wrong),
 *   -EINVAL for NULL arguments.
 */
int dvp_port_get_by_name(const char *name, uint16_t *port_id);

/** Copy the port's name into @p name (@p len bytes). @return 0 or -EINVAL. */
int dvp_port_get_name(uint16_t port_id, char *name, size_t len);

/** @return 0 or -EINVAL (bad id, NULL @p info). */
int dvp_port_info_get(uint16_t port_id, struct dvp_port_info *info);

/**
 * Whether the device of @p port_id can send mbufs of @p mp as they are
 * (DVP_PORT_DEV_CAPA_MEM_REG: the pool's memory is registered with it).
 * Any thread, without a lock: a sender that met a new pool may ask on its
 * slow path, and remember the answer until the pool goes.
 * @return 1, 0, or -EINVAL (bad id, NULL pool).
 */
int dvp_port_mempool_sendable(uint16_t port_id, const struct dvp_mempool *mp);

/**
 * Set queue counts, offloads, RSS, MTU and interrupt use. A port may be
 * reconfigured while stopped; queues beyond the new counts are released.
 * @return 0, or a negative errno after a log line naming the field: -EINVAL
 *   (bad id, counts above the driver's maximum or both 0, an offload, RSS
 *   field or interrupt the driver lacks, a key of the wrong length, an MTU
 *   out of range), -EBUSY (started), or the driver's error.
 */
int dvp_port_configure(uint16_t port_id, uint16_t nb_rx_queues, uint16_t nb_tx_queues,
		       const struct dvp_port_conf *conf);

/**
 * Set up rx queue @p queue_id with @p nb_desc descriptors (0: the driver's
 * default) on NUMA node @p socket_id (DVP_SOCKET_ANY: the port's), filled
 * from @p mp. Setting up a queue again releases the old one first.
 * @param conf  NULL for defaults
 * @return 0, or -EINVAL (bad id or queue, NULL @p mp, @p nb_desc outside
 *   the limits, offloads the driver lacks), -EBUSY (started), -ENOMEM, or
 *   the driver's error, after a log line.
 */
int dvp_rxq_setup(uint16_t port_id, uint16_t queue_id, uint16_t nb_desc, int socket_id,
		  const struct dvp_rxq_conf *conf, struct dvp_mempool *mp);

/** Same for tx queue @p queue_id. */
int dvp_txq_setup(uint16_t port_id, uint16_t queue_id, uint16_t nb_desc, int socket_id,
		  const struct dvp_txq_conf *conf);

/**
 * Start the port: every configured queue must be set up.
 * @return 0 (also when already started), -EINVAL (bad id, not configured,
 *   a queue not set up: the log names it), or the driver's error.
 */
int dvp_port_start(uint16_t port_id);

/**
 * Stop the port: bursts return 0 from now on, and every mbuf the port holds
 * (posted for receive, received and not yet taken, sent and not yet
 * completed) goes back to its pool. Queues stay set up (and in their wait
 * sets); a stopped queue raises no events.
 * @return 0 (also when already stopped), -EINVAL (bad id), -EIO when the
 *   driver still holds mbufs afterwards (a driver bug; the log says how many).
 */
int dvp_port_stop(uint16_t port_id);

/**
 * Stop if needed, release every queue and the device's resources, and free
 * the port id (a DESTROY event follows). @return 0 or -EINVAL.
 */
int dvp_port_close(uint16_t port_id);

/**
 * Stop the port and re-initialise the device (after a removal or an error
 * the driver could not recover); the port must be configured again.
 * @return 0, -EINVAL, -ENOTSUP (the driver cannot), or the driver's error.
 */
int dvp_port_reset(uint16_t port_id);

/** Whether the port is started. @return 1, 0, or -EINVAL. */
int dvp_port_is_started(uint16_t port_id);

/**
 * Mbufs the port holds now (rx rings, received and not taken, tx not
 * completed). 0 after dvp_port_stop(). @return the count or -EINVAL.
 */
int dvp_port_mbufs_held(uint16_t port_id);

/* ------------------------------------------------------------------------
 * RSS at run time (as rte_eth_dev_rss_hash_update / _conf_get and
 * rte_eth_dev_rss_reta_update / _query). Unlike the other control
 * functions these may run while lcores burst on the port's queues, as DPDK
 * applications change RSS while they forward; not concurrently with
 * another control function on the same port.
 */

/** Indirection table entries per struct dvp_rss_reta_entry64 (RTE_ETH_RETA_GROUP_SIZE). */
#define DVP_RETA_GROUP_SIZE 64

/**
 * Entries i * 64 .. i * 64 + 63 of the indirection table, as DPDK's
 * rte_eth_rss_reta_entry64: an update writes, a query reads, the entries
 * whose bit is set in @p mask.
 */
struct dvp_rss_reta_entry64 {
	uint64_t mask;
	uint16_t reta[DVP_RETA_GROUP_SIZE]; /**< rx queue ids */
};

/**
 * Change the RSS hash fields to conf->rss_hf and, when conf->rss_key is
 * given, the key, on a configured port, started or not. A started port
 * hashes the frames it takes after the return by the new ones and loses
 * none in the change; the queues keep their mbufs. port->conf follows.
 * @return 0, -EINVAL (bad id, NULL @p conf, not configured, fields the
 *   driver lacks, a key not info.hash_key_size bytes long), -ENOTSUP (the
 *   driver has no RSS), or the driver's error (the old hash stays), after a
 *   log line.
 */
int dvp_port_rss_hash_update(uint16_t port_id, const struct dvp_port_rss_conf *conf);

/**
 * The RSS hash fields in use into conf->rss_hf and, when conf->rss_key is
 * given, the key in use (the driver's default if none was given) into it,
 * with its length into conf->rss_key_len, which must say at least
 * info.hash_key_size bytes of room.
 * @return 0, -EINVAL (bad id, NULL @p conf, a key buffer too short),
 *   -ENOTSUP (the driver has no RSS).
 */
int dvp_port_rss_hash_conf_get(uint16_t port_id, struct dvp_port_rss_conf *conf);

/**
 * Write the entries of the RSS indirection table whose mask bits are set
 * in @p reta (reta_size / 64 groups, rounded up), on a configured port,
 * started or not; the others keep their queues. @p reta_size must be
 * info.reta_size and every entry written an rx queue of the port. A
 * started port spreads the frames it takes after the return by the new
 * table and loses none in the change. Configure sets the table to the
 * queues in turn (entry i -> queue i mod nb_rx_queues).
 * @return 0, -EINVAL (bad id, NULL @p reta, not configured, a size not
 *   info.reta_size, no mask bit set, a queue id the port lacks: the log
 *   names the entry), -ENOTSUP (the driver has no RSS), or the driver's
 *   error (the old table stays), after a log line.
 */
int dvp_port_rss_reta_update(uint16_t port_id, const struct dvp_rss_reta_entry64 *reta,
			     uint16_t reta_size);

/**
 * Read the entries of the indirection table whose mask bits are set in
 * @p reta. @p reta_size must be info.reta_size.
 * @return 0, -EINVAL (bad id, NULL @p reta, a size not info.reta_size, no
 *   mask bit set), -ENOTSUP (the driver has no RSS).
 */
int dvp_port_rss_reta_query(uint16_t port_id, struct dvp_rss_reta_entry64 *reta,
			    uint16_t reta_size);

/* ------------------------------------------------------------------------
 * MAC address, promiscuous mode, MTU
 */

int dvp_macaddr_get(uint16_t port_id, struct dvp_ether_addr *mac);
/** @return 0, -EINVAL (bad id, a multicast or zero address), -ENOTSUP. */
int dvp_macaddr_set(uint16_t port_id, const struct dvp_ether_addr *mac);
/**
 * Format @p mac as "02:00:00:00:00:01" into @p buf (at least 18 bytes; a
 * shorter one gets a cut, terminated string). A NULL @p buf (or @p len 0)
 * is left alone; a NULL @p mac is written as "(no address)".
 */
void dvp_ether_format_addr(char *buf, size_t len, const struct dvp_ether_addr *mac);
/**
 * Parse @p s, six bytes of two hex digits each separated by colons
 * ("02:00:5E:00:00:01", either case), into @p mac. @return 0, or -EINVAL for anything else (nothing
 * logged: the caller knows where the text came from).
 */
int dvp_ether_unformat_addr(const char *s, struct dvp_ether_addr *mac);

int dvp_promiscuous_enable(uint16_t port_id);
int dvp_promiscuous_disable(uint16_t port_id);
/** @return 1, 0, or -EINVAL. */
int dvp_promiscuous_get(uint16_t port_id);

/** @return 0, -EINVAL (bad id, outside [min_mtu, max_mtu]), -ENOTSUP. */
int dvp_port_mtu_set(uint16_t port_id, uint16_t mtu);
int dvp_port_mtu_get(uint16_t port_id, uint16_t *mtu);

/* ------------------------------------------------------------------------
 * Statistics
 */

struct dvp_port_stats {
	uint64_t ipackets; /**< packets received */
	uint64_t opackets; /**< packets sent */
	uint64_t ibytes;
	uint64_t obytes;
	uint64_t imissed; /**< dropped by the device: no room in an rx queue */
	uint64_t ierrors; /**< bad packets received */
	uint64_t oerrors; /**< packets that failed to be sent */
	uint64_t rx_nombuf; /**< rx buffer allocations that failed */
	uint64_t q_ipackets[DVP_PORT_QUEUE_STAT_CNTRS];
	uint64_t q_opackets[DVP_PORT_QUEUE_STAT_CNTRS];
	uint64_t q_ibytes[DVP_PORT_QUEUE_STAT_CNTRS];
	uint64_t q_obytes[DVP_PORT_QUEUE_STAT_CNTRS];
	uint64_t q_errors[DVP_PORT_QUEUE_STAT_CNTRS]; /**< rx errors per queue */
};

/** @return 0, -EINVAL, or the driver's error. */
int dvp_stats_get(uint16_t port_id, struct dvp_port_stats *stats);

/**
 * Start the basic stats, and every per-queue counter of the driver's
 * xstats, from zero. The counters themselves are never written: the reset
 * records their current values as a baseline and every read subtracts it.
 * So it is safe while bursts run on any lcore (a read then shows the counts
 * since this reset or since the one before, never less than zero), and from
 * any thread. @return 0, -EINVAL, -ENOTSUP, or the driver's error.
 */
int dvp_stats_reset(uint16_t port_id);

struct dvp_xstat_name {
	char name[DVP_XSTATS_NAMESIZE];
};

struct dvp_xstat {
	uint64_t id; /**< index in the names array */
	uint64_t value;
};

/**
 * Names of the extended statistics: the basic ones (rx_good_packets, ...,
 * rx_q0_packets, ...), the port's debug counters (dbg_*), each rx queue's
 * interrupt counters (rx_q0_intr_sleeps, ...), then the driver's own.
 * @return the number of xstats; when above @p size nothing past @p size
 *   is written (call with NULL, 0 to size the array). -EINVAL for a bad id.
 */
int dvp_xstats_get_names(uint16_t port_id, struct dvp_xstat_name *names, unsigned int size);

/** Values in the same order. Same return convention. */
int dvp_xstats_get(uint16_t port_id, struct dvp_xstat *xstats, unsigned int size);

/**
 * Find one xstat by name. @return 0 with *@p value set, -ENOENT (with a log
 * line: asking for a name that does not exist is a mistake), -EINVAL.
 */
int dvp_xstats_get_by_name(uint16_t port_id, const char *name, uint64_t *value);

/**
 * Reset every xstat: the basic stats (as dvp_stats_reset()), the debug and
 * interrupt counters and the driver's own, all by the same baseline rule,
 * so safe while bursts run.
 */
int dvp_xstats_reset(uint16_t port_id);

/* ------------------------------------------------------------------------
 * Link
 */

#define DVP_LINK_SPEED_NONE 0
#define DVP_LINK_SPEED_10G 10000
#define DVP_LINK_SPEED_25G 25000
#define DVP_LINK_SPEED_100G 100000
#define DVP_LINK_SPEED_UNKNOWN UINT32_MAX

#define DVP_LINK_HALF_DUPLEX 0
#define DVP_LINK_FULL_DUPLEX 1
#define DVP_LINK_DOWN 0
#define DVP_LINK_UP 1
#define DVP_LINK_FIXED 0
#define DVP_LINK_AUTONEG 1

/** Link state: 8 bytes, read and written whole (atomically). */
struct dvp_link {
	uint32_t link_speed; /**< Mb/s, DVP_LINK_SPEED_UNKNOWN when not known */
	uint16_t link_duplex : 1; /**< DVP_LINK_*_DUPLEX */
	uint16_t link_autoneg : 1; /**< DVP_LINK_FIXED / AUTONEG */
	uint16_t link_status : 1; /**< DVP_LINK_DOWN / UP */
	uint16_t reserved : 13;
	uint16_t reserved2;
} __dvp_aligned(8);

/**
 * Ask the driver for the link state, waiting up to 9 s for a link that is
 * coming up to complete (as rte_eth_link_get). @return 0 or a negative errno.
 */
int dvp_link_get(uint16_t port_id, struct dvp_link *link);

/** The last state the driver reported, without asking it. Lock-free. */
int dvp_link_get_nowait(uint16_t port_id, struct dvp_link *link);

/** "Link up at 10 Gbps FDX Autoneg" / "Link down" into @p buf. */
int dvp_link_to_str(char *buf, size_t len, const struct dvp_link *link);

/* ------------------------------------------------------------------------
 * Events (callbacks run on the EAL interrupt thread)
 */

enum dvp_port_event {
	DVP_PORT_EVENT_LINK_STATUS_CHANGE = 0, /**< needs intr_conf.lsc */
	DVP_PORT_EVENT_REMOVAL, /**< the device is gone; needs intr_conf.rmv */
	DVP_PORT_EVENT_QUEUE_ERROR, /**< a queue was restarted after an error */
	DVP_PORT_EVENT_NEW, /**< a port was probed */
	DVP_PORT_EVENT_DESTROY, /**< a port was closed */
	DVP_PORT_EVENT_MAX,
};

/**
 * What the device said behind an event (an RDMA device's async event, in
 * dvpmd's words); DVP_PORT_CAUSE_DRIVER for a queue error the driver found
 * itself (an error completion, a queue it could not reset); and
 * DVP_PORT_CAUSE_NONE when nothing is behind it (a polled link state).
 * NONE is 0, so that a zeroed field says "no cause".
 */
enum dvp_port_event_cause {
	DVP_PORT_CAUSE_NONE = 0,
	DVP_PORT_CAUSE_LINK_DOWN = 1, /**< the port went down (IBV_EVENT_PORT_ERR) */
	DVP_PORT_CAUSE_LINK_UP, /**< the port came up (IBV_EVENT_PORT_ACTIVE) */
	DVP_PORT_CAUSE_CQ_ERROR, /**< queue error: its completion queue overran or broke */
	DVP_PORT_CAUSE_QP_FATAL, /**< queue error: its queue pair is in error */
	DVP_PORT_CAUSE_QP_REQ_ERROR, /**< queue error: a request the device refused */
	DVP_PORT_CAUSE_QP_ACCESS_ERROR, /**< queue error: a memory access the device refused */
	DVP_PORT_CAUSE_WQ_FATAL, /**< queue error: its receive work queue is in error */
	DVP_PORT_CAUSE_DEVICE_FATAL, /**< the device failed: every queue stops (removal) */
	DVP_PORT_CAUSE_DRIVER, /**< queue error: found by the driver (an error completion ...) */
	DVP_PORT_CAUSE_MAX,
};

/** "LINK_DOWN", "CQ_ERROR", ...; NULL for DVP_PORT_CAUSE_NONE or an unknown value. */
const char *dvp_port_event_cause_name(enum dvp_port_event_cause cause);

struct dvp_port_event_info {
	enum dvp_port_event event;
	uint16_t port_id;
	/** Why: what the device said (LINK_DOWN behind a link going down, ...). */
	enum dvp_port_event_cause cause;
	union {
		struct dvp_link link; /**< LINK_STATUS_CHANGE: the new state */
		struct {
			uint16_t queue_id;
			bool tx;
			char reason[96]; /**< what happened, in words */
		} queue; /**< QUEUE_ERROR */
	};
};

typedef void (*dvp_port_event_cb)(uint16_t port_id, enum dvp_port_event event,
				  const struct dvp_port_event_info *info, void *cb_arg);

/**
 * Call @p cb(@p port_id, @p event, info, @p cb_arg) on the EAL interrupt
 * thread whenever @p event happens on @p port_id (DVP_PORT_ID_ALL: any port).
 * @return 0, -EINVAL (bad id or event, NULL @p cb), -EEXIST (same
 *   port, event, cb and arg), -ENOMEM.
 */
int dvp_port_event_register(uint16_t port_id, enum dvp_port_event event, dvp_port_event_cb cb,
			    void *cb_arg);

/**
 * Remove a callback registered with the same four values (@p cb_arg
 * (void *)-1 matches any). Safe from inside a callback (the callback may
 * remove itself); from another thread it returns once the callback is not
 * running, so @p cb_arg may be freed then.
 * @return 0, -ENOENT (none matched), -EINVAL.
 */
int dvp_port_event_unregister(uint16_t port_id, enum dvp_port_event event, dvp_port_event_cb cb,
			      void *cb_arg);

/** "LINK_STATUS_CHANGE", ... */
const char *dvp_port_event_name(enum dvp_port_event event);

/* ------------------------------------------------------------------------
 * Rx interrupts (as rte_eth_dev_rx_intr_*), over lib/rxwait
 */

/**
 * Arm rx queue @p queue_id: one event at its next packet (one-shot). Poll
 * the queue once more after this before sleeping.
 * @return 0, -EINVAL (bad id, queue), -ENOTSUP (intr_conf.rxq not set),
 *   -EIO (stopped), or the driver's error.
 */
int dvp_rx_intr_enable(uint16_t port_id, uint16_t queue_id);

/**
 * Read (and ack, batched) the queue's pending events without blocking.
 * @return the number read, or as above.
 */
int dvp_rx_intr_disable(uint16_t port_id, uint16_t queue_id);

/**
 * Whether an rx burst on the queue would return something now, without
 * taking it: for a caller that arms and then sleeps without polling once
 * more (as DPDK's rx interrupt API allows), to find a packet that landed
 * before the arm. Call it on the lcore that polls the queue.
 * @return 1, 0, or as above.
 */
int dvp_rx_intr_has_work(uint16_t port_id, uint16_t queue_id);

/** The queue's event fd, for an application's own epoll. @return it, or as above. */
int dvp_rx_intr_fd(uint16_t port_id, uint16_t queue_id);

enum dvp_rx_intr_op {
	DVP_RX_INTR_CTL_ADD = 1, /**< add the queue to the set */
	DVP_RX_INTR_CTL_DEL, /**< remove it */
};

/**
 * Add rx queue @p queue_id of @p port_id to @p set (its dvp_rx_wait()
 * results carry @p data) or remove it. The queue must be set up (started
 * or not); releasing it (close, configure, setup again) removes it.
 * @return 0, -EINVAL, -ENOTSUP, -EEXIST, -ENOENT, -ENOSPC.
 */
int dvp_rx_intr_ctl(uint16_t port_id, uint16_t queue_id, struct dvp_rxwait_set *set,
		    enum dvp_rx_intr_op op, void *data);

/** Every rx queue of the port, to @p set (data: NULL). */
int dvp_rx_intr_ctl_all(uint16_t port_id, struct dvp_rxwait_set *set, enum dvp_rx_intr_op op);

/* ------------------------------------------------------------------------
 * Power monitor (as rte_eth_get_monitor_addr)
 */

#define DVP_POWER_MONITOR_OPAQUE_SZ 4

/**
 * Whether an lcore about to sleep on a monitored address should not:
 * called with the @c size bytes last read at the address and the
 * condition's @p opaque. @return 0: sleep (the queue has nothing yet);
 * non-zero (-1): do not, the queue has work.
 */
typedef int (*dvp_power_monitor_clb_t)(const uint64_t val,
				       const uint64_t opaque[DVP_POWER_MONITOR_OPAQUE_SZ]);

/**
 * What an lcore can sleep on until an rx queue has work: the address the
 * device writes when the next packet arrives (for x86's UMONITOR/UMWAIT or
 * AMD's MONITORX), and the check of what is there. DPDK's struct
 * rte_power_monitor_cond, field for field.
 */
struct dvp_power_monitor_cond {
	volatile void *addr; /**< watch this: the device writes it */
	uint8_t size; /**< bytes to read at addr: 1, 2, 4 or 8 */
	dvp_power_monitor_clb_t fn; /**< non-zero for the value read: do not sleep */
	uint64_t opaque[DVP_POWER_MONITOR_OPAQUE_SZ]; /**< fn's arguments */
};

/**
 * Where rx queue @p queue_id of @p port_id will be written by its device
 * next, and how to tell from the value there whether it has work (mlx5:
 * the ownership byte of the next CQE). Valid until the next burst on the
 * queue: ask again after each burst that returned nothing, on the lcore
 * that polls the queue (as DPDK's power management does before each
 * sleep). No lock, system call or allocation; a log line only on error.
 * @return 0; -EINVAL (bad id, a queue not set up, @p pmc NULL), -ENOTSUP
 *   (the driver has no such address), or the driver's error.
 */
int dvp_get_monitor_addr(uint16_t port_id, uint16_t queue_id, struct dvp_power_monitor_cond *pmc);

/* ------------------------------------------------------------------------
 * Rx offloads at run time, the device clock
 */

/**
 * Turn VLAN stripping (DVP_RX_OFFLOAD_VLAN_STRIP) on or off on rx queue
 * @p queue_id of a configured port, started or not, as DPDK's
 * rte_eth_dev_set_vlan_strip_on_queue: packets received after it come
 * with the tag stripped (DVP_MBUF_F_RX_VLAN | DVP_MBUF_F_RX_VLAN_STRIPPED,
 * vlan_tci) or as they were.
 * @return 0; -EINVAL (bad id, a queue not set up), -ENOTSUP (the driver or
 *   the queue cannot: one log line says why), or the driver's error.
 */
int dvp_port_rxq_vlan_strip_set(uint16_t port_id, uint16_t queue_id, bool on);

/**
 * Add VLAN @p vlan_id (0..4095) to the port's VLAN filter table (@p on)
 * or take it out, as DPDK's rte_eth_dev_vlan_filter. A configured port
 * must have DVP_RX_OFFLOAD_VLAN_FILTER on (dvp_port_configure() or
 * dvp_port_vlan_filter_offload_set()); it may be started or not; one not
 * configured yet takes the table for the configure to come. lib/port
 * keeps the table (4096 bits, as DPDK's ethdev), so it lasts across stop
 * and start (the driver applies it again at each start) and until the
 * port is closed. What the filter lets through is the driver's (DPDK's
 * drivers differ too): doc/features.md and the driver's page say.
 * @return 0; -EINVAL (bad port or VLAN id), -ENOSYS (configured with the
 *   offload off),
 *   -ENOTSUP (the driver has no VLAN filter), or the driver's error (the
 *   table is then as it was). One log line on each error.
 */
int dvp_port_vlan_filter(uint16_t port_id, uint16_t vlan_id, bool on);

/**
 * Turn DVP_RX_OFFLOAD_VLAN_FILTER on or off on a configured port, started
 * or not, as DPDK's rte_eth_dev_set_vlan_offload with
 * RTE_ETH_VLAN_FILTER_OFFLOAD: the port's offloads record it and the
 * driver applies it (with the table kept) at once on a started port.
 * @return 0; -EINVAL (bad port, not configured), -ENOTSUP (the driver
 *   lacks the offload), or the driver's error (nothing changed).
 */
int dvp_port_vlan_filter_offload_set(uint16_t port_id, bool on);

/**
 * Whether VLAN @p vlan_id is in the port's VLAN filter table.
 * @return 1, 0, or -EINVAL (bad port or VLAN id).
 */
int dvp_port_vlan_filter_get(uint16_t port_id, uint16_t vlan_id);

/**
 * The device's clock now, in the units of the rx timestamps it gives
 * (DVP_RX_OFFLOAD_TIMESTAMP), as rte_eth_read_clock: on mlx5 the
 * free-running counter, ticks of the device's core clock. Two reads a
 * known time apart give its frequency. Control path (a system call on
 * hardware).
 * @return 0; -EINVAL, -ENOTSUP (the driver has no clock), or the driver's error.
 */
int dvp_port_read_clock(uint16_t port_id, uint64_t *clock);

#ifdef __cplusplus
}
#endif

#include <dvp_port_fp.h>

#endif /* DVP_PORT_H */
