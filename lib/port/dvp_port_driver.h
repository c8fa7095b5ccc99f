/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * For drivers only (as DPDK's ethdev_driver.h): the port structure, the
 * operations a driver implements, and what lib/port offers drivers. It is
 * installed so that drivers can be built outside the tree, but it is not
 * an application API: applications use dvp_port.h.
 *
 * How a driver fits in (doc/driver-guide.md walks through drivers/net/ring):
 *
 *  - probe: dvp_port_allocate(), fill mac, mtu, numa_node, then
 *    dvp_port_probing_finish() (the port becomes visible; NEW event);
 *  - lib/port checks every argument against what info_get reports before
 *    calling an op, so ops see only valid ids, counts and offloads, and
 *    only in the states that allow them (setup while stopped, ...);
 *  - rxq_setup stores the driver's queue in port->rxqs[q] and, when
 *    port->conf.intr_conf.rxq is set, initialises a struct dvp_rxwait_queue
 *    in it (dvp_rxwait_driver.h) and stores it in port->rxq_intr[q]
 *    (dvp_port_rxq_intr_conf() and dvp_port_rxq_intr_init() do both);
 *    txq_setup stores port->txqs[q];
 *  - start sets port->rx_pkt_burst and port->tx_pkt_burst; lib/port then
 *    publishes them in the fast-path table;
 *  - stop returns every mbuf the port holds to its pool: after it,
 *    mbufs_held must answer 0 (lib/port checks and reports a leak);
 *  - rxq_release calls dvp_rxwait_queue_fini() before destroying the CQ;
 *  - link changes: dvp_port_link_set(); a device gone:
 *    dvp_port_removal_report(); a queue broken where its polling lcore
 *    cannot see it: dvp_port_queue_fault_raise() (dvp_port_fault.h: the
 *    queue registers its struct dvp_queue_fault at setup with
 *    dvp_port_queue_fault_attach(), its bursts take the fault and run the
 *    driver's restart, the queue_restart op serves a stopped port); an
 *    error the lcore itself finds and mends (an error completion):
 *    dvp_port_queue_error_report(). Each takes the cause (enum
 *    dvp_port_event_cause) and raises the application's event.
 *
 * Ops run on the control thread (the caller of the dvp_port_* function),
 * one at a time per port. A driver handling a device event on the EAL
 * interrupt thread (drivers/common/ib does for RDMA devices) takes
 * dvp_port_ctrl_lock() around it: then no op creates, releases, starts or
 * stops queues under it. It must not wait on the interrupt thread itself,
 * and the queue ops must not either (stop reading events in close).
 */

#ifndef DVP_PORT_DRIVER_H
#define DVP_PORT_DRIVER_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include <dvp_bus.h>
#include <dvp_rxwait_driver.h>
#include <dvp_flow.h>
#include <dvp_port.h>
#include <dvp_port_fault.h>

#ifdef __cplusplus
extern "C" {
#endif

struct dvp_port;
struct dvp_xstats_out;

/** The bits of struct dvp_flow_rule's items and actions. */
#define DVP_FLOW_RULE_BIT(t) (1u << (t))

/**
 * A flow rule as lib/port gives it to a driver (dvp_flow.h), checked and
 * laid flat: each item present has its bit in @p items and its spec and
 * mask (zeros where the application gave none: a zero mask matches
 * anything), each action its bit in @p actions. lib/port has checked the
 * order of the items, that there is one fate, that MARK and FLAG are not
 * together nor with DROP, and that the queue exists.
 */
struct dvp_flow_rule {
	uint32_t priority;
	uint32_t items; /**< DVP_FLOW_RULE_BIT(DVP_FLOW_ITEM_*) */
	uint32_t actions; /**< DVP_FLOW_RULE_BIT(DVP_FLOW_ACTION_*) */
	struct dvp_flow_item_eth eth, eth_mask;
	struct dvp_flow_item_vlan vlan, vlan_mask;
	struct dvp_flow_item_ipv4 ipv4, ipv4_mask;
	struct dvp_flow_item_ipv6 ipv6, ipv6_mask;
	struct dvp_flow_item_l4 l4, l4_mask; /**< of UDP or TCP, whichever is in items */
	uint16_t queue; /**< QUEUE's */
	uint32_t mark; /**< MARK's id */
	uint64_t rss_types; /**< RSS's DVP_RSS_*; 0: the port's */
	uint16_t rss_queue_num; /**< RSS's number of queues */
	/** RSS's queues are 0..rss_queue_num - 1 in that order (key: the port's) */
	bool rss_in_order;
};

/**
 * What a driver implements. Ops marked (required) must be set; for the
 * others NULL means "not supported" (-ENOTSUP to the application) or, where
 * said, a default.
 */
struct dvp_port_ops {
	/**
	 * (required) Fill the capabilities: queue and descriptor limits,
	 * offloads, RSS, MTU range, intr_capa. lib/port fills the names, node
	 * and current queue counts.
	 */
	int (*info_get)(struct dvp_port *port, struct dvp_port_info *info);
	/** (required) Apply port->conf (validated against info_get). */
	int (*configure)(struct dvp_port *port);
	/** (required) Create rx queue @p q: set port->rxqs[q] (and rxq_intr[q]). */
	int (*rxq_setup)(struct dvp_port *port, uint16_t q, uint16_t nb_desc, int socket_id,
			 const struct dvp_rxq_conf *conf, struct dvp_mempool *mp);
	/** (required) Free rx queue @p q and every mbuf it holds; clear the pointers. */
	void (*rxq_release)(struct dvp_port *port, uint16_t q);
	/** (required) Same for tx queues. */
	int (*txq_setup)(struct dvp_port *port, uint16_t q, uint16_t nb_desc, int socket_id,
			 const struct dvp_txq_conf *conf);
	void (*txq_release)(struct dvp_port *port, uint16_t q);
	/** (required) Start: set port->rx_pkt_burst and port->tx_pkt_burst. */
	int (*start)(struct dvp_port *port);
	/**
	 * (required) Stop: no burst runs (lib/port has emptied the fast-path
	 * entry); return every mbuf to its pool, keep the queues.
	 */
	int (*stop)(struct dvp_port *port);
	/** Release the device's resources (queues are released already). */
	int (*close)(struct dvp_port *port);
	/** Re-initialise the device after an error; the port is stopped. */
	int (*reset)(struct dvp_port *port);
	/**
	 * Rebuild queue @p q (@p tx: a tx queue) after a fault with @p cause,
	 * returning what it held to its pool and counting what was lost.
	 * lib/port calls it from dvp_port_queue_fault_raise() on a stopped
	 * port (nobody polls the queue); the driver's bursts call their own
	 * restart when dvp_queue_fault_take() returns a cause. NULL: faults
	 * are only reported (the driver has no queue to rebuild).
	 * @return 0 or a negative errno (logged by the driver).
	 */
	int (*queue_restart)(struct dvp_port *port, uint16_t q, bool tx,
			     enum dvp_port_event_cause cause);
	/**
	 * Read the link state and report it with dvp_port_link_set(); with
	 * @p wait, wait (up to 9 s) for a link that is coming up.
	 * NULL: the link is whatever the driver last set.
	 */
	int (*link_update)(struct dvp_port *port, bool wait);
	int (*promiscuous_enable)(struct dvp_port *port);
	int (*promiscuous_disable)(struct dvp_port *port);
	int (*mac_addr_set)(struct dvp_port *port, const struct dvp_ether_addr *mac);
	int (*mtu_set)(struct dvp_port *port, uint16_t mtu);
	/*
	 * RSS at run time, on a configured port, started or not, while lcores
	 * may burst on its queues (the driver's own lock keeps a queue restart
	 * out). lib/port has checked every argument against info_get; NULL:
	 * the driver has no RSS (-ENOTSUP). On an error the old hash or table
	 * stays in force.
	 */
	/**
	 * Hash on @p conf->rss_hf and, when @p conf->rss_key is set, with that
	 * key (the current one otherwise). lib/port records both in
	 * port->conf after success.
	 */
	int (*rss_hash_update)(struct dvp_port *port, const struct dvp_port_rss_conf *conf);
	/**
	 * The fields in use into @p conf->rss_hf and, when @p conf->rss_key is
	 * set (room for info.hash_key_size bytes), the key in use into it.
	 */
	int (*rss_hash_conf_get)(struct dvp_port *port, struct dvp_port_rss_conf *conf);
	/** Write the entries whose mask bits are set (@p reta_size is info.reta_size). */
	int (*reta_update)(struct dvp_port *port, const struct dvp_rss_reta_entry64 *reta,
			   uint16_t reta_size);
	/** Read the entries whose mask bits are set. */
	int (*reta_query)(struct dvp_port *port, struct dvp_rss_reta_entry64 *reta,
			  uint16_t reta_size);
	/** (required) Basic counters, per queue included. */
	int (*stats_get)(struct dvp_port *port, struct dvp_port_stats *stats);
	int (*stats_reset)(struct dvp_port *port);
	/**
	 * The driver's own xstats, put into @p out (dvp_port_counters.h) by
	 * one walk that serves both names and values, so their ids match.
	 * @return 0 or a negative errno.
	 */
	int (*xstats)(struct dvp_port *port, struct dvp_xstats_out *out);
	int (*xstats_reset)(struct dvp_port *port);
	/**
	 * Whether the device can send mbufs of @p mp as they are (its memory
	 * registered). Any thread, lock-free. NULL: every pool.
	 */
	bool (*mempool_sendable)(struct dvp_port *port, const struct dvp_mempool *mp);
	/**
	 * Where rx queue @p rxq (port->rxqs[q]) will be written by the device
	 * next, and the check of the value there (dvp_get_monitor_addr()). On
	 * the queue's lcore, between bursts: no lock, log or system call.
	 * NULL: -ENOTSUP.
	 */
	int (*get_monitor_addr)(void *rxq, struct dvp_power_monitor_cond *pmc);
	/*
	 * Flow rules (dvp_flow.h). NULL flow_validate: the driver has none
	 * (-ENOTSUP). lib/port keeps the rules and calls flow_create for each
	 * at start (after the start op) and when one is added to a started
	 * port, flow_destroy for each before the stop op and when one goes:
	 * a driver's rule lives only on a started port.
	 */
	/** Whether the driver takes @p rule; any state. 0, or -errno after one log line. */
	int (*flow_validate)(struct dvp_port *port, const struct dvp_flow_rule *rule);
	/** Put @p rule in force; its handle into *@p handle. 0, or -errno after a log line. */
	int (*flow_create)(struct dvp_port *port, const struct dvp_flow_rule *rule, void **handle);
	/** Undo flow_create (a failure is logged; the rule is gone for lib/port). */
	void (*flow_destroy)(struct dvp_port *port, void *handle);
	/** COUNT's counts of a rule since its flow_create. */
	int (*flow_query)(struct dvp_port *port, void *handle, uint64_t *hits, uint64_t *bytes);
	/**
	 * Whether the driver can isolate the port (dvp_flow_isolate()): asked
	 * on a stopped port before lib/port sets port->flow_isolated, which the
	 * driver reads at start. NULL: it cannot (on refused with -ENOTSUP).
	 * 0, or -errno after a log line.
	 */
	int (*flow_isolate)(struct dvp_port *port, bool on);
	/**
	 * VLAN stripping on rx queue @p q (port->rxqs[q]) on or off, while
	 * lcores may burst on it. NULL: -ENOTSUP. @return 0 or a negative
	 * errno (logged by the driver).
	 */
	int (*rxq_vlan_strip_set)(struct dvp_port *port, uint16_t q, bool on);
	/**
	 * VLAN @p vlan_id has just been added to port->vlan_filter (@p on) or
	 * taken out: apply the table, on a started port at once. Called only
	 * while DVP_RX_OFFLOAD_VLAN_FILTER is on in port->conf.rxmode.offloads.
	 * On an error lib/port puts the bit back. NULL: -ENOTSUP.
	 * @return 0 or a negative errno (logged by the driver).
	 */
	int (*vlan_filter_set)(struct dvp_port *port, uint16_t vlan_id, bool on);
	/**
	 * DVP_RX_OFFLOAD_VLAN_FILTER has just been set in (or cleared from)
	 * port->conf.rxmode.offloads of a configured port: apply it, on a
	 * started port at once. On an error lib/port puts the offloads back.
	 * NULL: the driver applies it at its next start only.
	 * @return 0 or a negative errno (logged by the driver).
	 */
	int (*vlan_filter_offload_set)(struct dvp_port *port, bool on);
	/** The device clock (dvp_port_read_clock()). NULL: -ENOTSUP. */
	int (*read_clock)(struct dvp_port *port, uint64_t *clock);
	/**
	 * (required) Mbufs the port holds now: posted to rx rings, received and
	 * not yet taken, accepted for tx and not yet freed. Must be 0 after
	 * stop (contract 5). Not called concurrently with bursts.
	 */
	unsigned int (*mbufs_held)(struct dvp_port *port);
};

enum dvp_port_state {
	DVP_PORT_UNUSED = 0,
	DVP_PORT_PROBING, /**< allocated, not visible yet */
	DVP_PORT_ATTACHED, /**< visible to applications */
};

/** lib/port's own counters of a port: the xstats dbg_*, in this order. */
struct dvp_port_dbg {
	uint64_t rx_burst_refused; /**< bursts on a stopped port or a bad queue */
	uint64_t tx_burst_refused;
	uint64_t mbufs_leaked; /**< held by the driver after a stop */
	uint64_t queue_errors; /**< queue errors reported */
};

/**
 * A port. The driver sets the fields marked (driver); lib/port owns the
 * rest, which drivers may read.
 */
struct dvp_port {
	uint16_t port_id;
	enum dvp_port_state state;
	char name[DVP_DEV_NAME_MAX_LEN];
	const char *driver_name; /**< (driver, at allocate) */
	const struct dvp_port_ops *ops;
	struct dvp_device *device; /**< the bus device, or NULL for an API-created port */
	void *priv; /**< (driver) its private data, priv_size bytes, zeroed */
	int numa_node; /**< (driver) */
	struct dvp_ether_addr mac; /**< (driver at probe; then lib/port) */
	uint16_t mtu; /**< (driver at probe: the initial MTU; then lib/port) */

	/** (driver, by start) The burst functions published at start. */
	dvp_rx_burst_fn rx_pkt_burst;
	dvp_tx_burst_fn tx_pkt_burst;
	/** (driver, by setup) Queues; NULL when not set up. */
	void *rxqs[DVP_MAX_QUEUES_PER_PORT];
	void *txqs[DVP_MAX_QUEUES_PER_PORT];
	/** (driver, by rxq_setup with intr_conf.rxq) Interrupt state of rx queues. */
	struct dvp_rxwait_queue *rxq_intr[DVP_MAX_QUEUES_PER_PORT];
	/** (driver, by dvp_port_queue_fault_attach()) Fault words of the queues. */
	struct dvp_queue_fault *rxq_fault[DVP_MAX_QUEUES_PER_PORT];
	struct dvp_queue_fault *txq_fault[DVP_MAX_QUEUES_PER_PORT];

	/* lib/port's, readable by the driver. */
	struct dvp_port_conf conf; /**< as configured (rss_key points to rss_key below) */
	uint8_t rss_key[DVP_RSS_KEY_MAX_LEN];
	uint16_t nb_rx_queues;
	uint16_t nb_tx_queues;
	bool configured;
	bool started;
	bool promiscuous;
	bool flow_isolated; /**< only flow rules steer to the rx queues (dvp_flow_isolate()) */
	bool removed; /**< a removal was reported */
	/**
	 * The VLAN filter table (dvp_port_vlan_filter()): bit v % 64 of word
	 * v / 64 for VLAN id v. Kept until close.
	 */
	uint64_t vlan_filter[(DVP_VLAN_ID_MAX + 1) / 64];
	struct dvp_link link; /**< access with dvp_port_link_set / _get_nowait */

	/* lib/port's only. */
	uint32_t event_flags; /**< atomic: DVP_PORT_INTR_LSC / _RMV events to raise */
	struct dvp_port_dbg dbg; /**< atomic adds, from any thread */
	struct dvp_port_dbg dbg_base; /**< their baseline (dvp_port_counters.h) */
};

/**
 * Allocate a port named @p name (unique among ports) for a driver.
 * @param dev  the bus device, or NULL for a port created through a
 *   driver's API (dvp_net_ring_create())
 * @param priv_size  bytes of zeroed private data at port->priv
 * @return the port (state PROBING), or NULL with dvp_errno set after a log
 *   line: EINVAL, EEXIST (name taken), ENOSPC (DVP_MAX_PORTS in use), ENOMEM.
 */
struct dvp_port *dvp_port_allocate(const char *name, const char *driver_name,
				   const struct dvp_port_ops *ops, struct dvp_device *dev,
				   size_t priv_size);

/** Make the port visible to applications and raise NEW. @return 0 or -EINVAL. */
int dvp_port_probing_finish(struct dvp_port *port);

/**
 * Undo dvp_port_allocate() for a port whose probe failed (no op is
 * called, no event raised); for a visible port use dvp_port_close().
 */
void dvp_port_release(struct dvp_port *port);

/** The port behind @p port_id (probing or attached), or NULL. */
struct dvp_port *dvp_port_get(uint16_t port_id);

/** Call @p fn for each port (probing or attached) whose device is @p dev. */
void dvp_port_foreach_of_device(const struct dvp_device *dev,
				void (*fn)(struct dvp_port *port, void *arg), void *arg);

/** Close every attached port of @p dev: what a virtual driver's remove does first. */
void dvp_port_close_of_device(const struct dvp_device *dev);

/**
 * A virtual driver's remove: close every attached port of @p dev and clear
 * dev->driver_data. @return 0.
 */
int dvp_port_vdev_remove(struct dvp_device *dev);

/*
 * Ops for a device that filters nothing (a point-to-point link, a ring):
 * every frame is for the port whatever its address or promiscuous mode,
 * and any MTU lib/port accepted (within info_get's range) fits. lib/port
 * records the new value. Each returns 0.
 */
int dvp_port_op_promisc_nop(struct dvp_port *port);
int dvp_port_op_mac_addr_set_nop(struct dvp_port *port, const struct dvp_ether_addr *mac);
int dvp_port_op_mtu_set_nop(struct dvp_port *port, uint16_t mtu);

/** Whether VLAN @p vlan_id (0..DVP_VLAN_ID_MAX) is in port->vlan_filter. */
static inline bool dvp_port_vlan_filter_has(const struct dvp_port *port, uint16_t vlan_id)
{
	return (port->vlan_filter[vlan_id / 64] >> (vlan_id % 64)) & 1;
}

/** VLAN ids in port->vlan_filter. */
unsigned int dvp_port_vlan_filter_count(const struct dvp_port *port);

/**
 * The interrupt conf rxq_setup gives dvp_rxwait_queue_init() for rx queue
 * @p q waking on @p fd: ack batch and solicited as port->conf.intr_conf
 * asks, the port and queue ids as labels, no extra fds. The driver may
 * change fields before the init (a devarg forcing solicited, extra fds).
 */
struct dvp_rxwait_queue_conf dvp_port_rxq_intr_conf(const struct dvp_port *port, uint16_t q,
						    int fd);

/**
 * rxq_setup's interrupt step for rx queue @p q: dvp_rxwait_queue_init(@p iq,
 * @p ops, @p ctx, @p conf), then on success port->rxq_intr[q] = @p iq.
 * @return what dvp_rxwait_queue_init() returns.
 */
int dvp_port_rxq_intr_init(struct dvp_port *port, uint16_t q, struct dvp_rxwait_queue *iq,
			   const struct dvp_rxwait_queue_ops *ops, void *ctx,
			   const struct dvp_rxwait_queue_conf *conf);

/**
 * A port address given as devarg @p key=@p value of device @p dev (at
 * probe). @return 0 with @p mac set, or -EINVAL after one log line naming
 * the device and what is wrong: not an address, a multicast or a zero one.
 */
int dvp_port_devarg_mac(const char *dev, const char *key, const char *value,
			struct dvp_ether_addr *mac);

/**
 * Record the link state. If it changed and the port was configured with
 * intr_conf.lsc, a LINK_STATUS_CHANGE event follows, naming @p cause (what
 * the device said; DVP_PORT_CAUSE_NONE for a state the driver polled).
 * Any thread. @return 1 when it changed, 0 when not.
 */
int dvp_port_link_set(struct dvp_port *port, const struct dvp_link *link,
		      enum dvp_port_event_cause cause);

/**
 * Read the device's link state for dvp_port_link_report(): fill @p link
 * (zeroed before the call) and, if the reading says more than the caller
 * knew, @p cause (given the caller's). @return 0, or a negative errno to
 * record nothing. Must not report the link itself.
 */
typedef int (*dvp_port_link_read_t)(struct dvp_port *port, struct dvp_link *link,
				    enum dvp_port_event_cause *cause, void *arg);

/**
 * Read the link with @p read and record it as dvp_port_link_set() does,
 * both under the port's link lock: when the interrupt thread (a device
 * event) and a control thread (dvp_link_get()) report at once, the reading
 * recorded last is the one made last, so a stale state never stays.
 * Any thread, cold path; @p read may sleep briefly (a netlink or verbs
 * query) but takes no lock a caller of dvp_port_link_set() may hold.
 * @return 1 when the link changed, 0 when not, or the negative errno of @p read.
 */
int dvp_port_link_report(struct dvp_port *port, dvp_port_link_read_t read, void *arg,
			 enum dvp_port_event_cause cause);

/**
 * Queue @p info for delivery to the callbacks registered for it, on the EAL
 * interrupt thread. Any thread; never blocks on a callback.
 * @return 0 or -ENOMEM (after a log line).
 */
int dvp_port_event_raise(uint16_t port_id, const struct dvp_port_event_info *info);

/**
 * Report that queue @p q was mended after an error (@p cause: what the
 * device said, or DVP_PORT_CAUSE_DRIVER for one the driver found itself,
 * such as an error completion): logs a line and raises QUEUE_ERROR. Any
 * thread, cold path. A fault the queue's lcore must mend is raised with
 * dvp_port_queue_fault_raise() instead, which reports it.
 */
void dvp_port_queue_error_report(struct dvp_port *port, uint16_t q, bool tx,
				 enum dvp_port_event_cause cause, const char *fmt, ...)
	__dvp_format_printf(5, 6);

/**
 * Register @p f as the fault word of queue @p q (@p tx: a tx queue), from
 * the queue's setup: dvp_port_queue_fault_raise() records faults there.
 * lib/port forgets it when the queue is released.
 */
void dvp_port_queue_fault_attach(struct dvp_port *port, uint16_t q, bool tx,
				 struct dvp_queue_fault *f);

/**
 * Queue @p q (@p tx: a tx queue) is broken, for @p cause (what the device
 * said, or DVP_PORT_CAUSE_DRIVER): on a started port, record the cause in
 * the queue's fault word for the lcore that polls it (dvp_queue_fault_take()
 * at its next burst, then the driver's restart), report QUEUE_ERROR now (a
 * broken queue may never wake its lcore again, and the application must
 * hear of it) and kick a lcore asleep on the rx queue; a fault already
 * pending absorbs this one (logged, not reported twice). On a stopped port,
 * rebuild it now with the queue_restart op and report that.
 *
 * From the EAL interrupt thread or another control thread, under
 * dvp_port_ctrl_lock() (so the queue is not released meanwhile), as
 * drivers/common/ib calls it.
 * @return 0; -EINVAL for a queue not set up or a cause out of range;
 *   -ENOTSUP when the queue has no fault word; the restart's error.
 */
int dvp_port_queue_fault_raise(struct dvp_port *port, uint16_t q, bool tx,
			       enum dvp_port_event_cause cause);

/** One queue's counters as a driver's stats_get reads them. */
struct dvp_port_qstats {
	uint64_t packets;
	uint64_t bytes;
	uint64_t errors;
	uint64_t nombuf; /**< rx only: no mbuf to replenish with */
};

/**
 * Add rx (@p tx false) or tx queue @p q's counters to @p stats: the port's
 * sums, and the queue's own slots when @p q < DVP_PORT_QUEUE_STAT_CNTRS
 * (q_errors counts rx errors only, as DPDK's). For a driver's stats_get.
 */
void dvp_port_stats_add_queue(struct dvp_port_stats *stats, uint16_t q, bool tx,
			      const struct dvp_port_qstats *qs);

/**
 * Report that the device of @p port is gone (@p cause: what the device
 * said, DVP_PORT_CAUSE_NONE if nothing): bursts keep returning 0 until the
 * application closes or resets the port, and a REMOVAL event follows (with
 * intr_conf.rmv), once however often it is called.
 */
void dvp_port_removal_report(struct dvp_port *port, enum dvp_port_event_cause cause);

/**
 * Serialise a driver's handling of a device event with the ops that
 * create, release, start or stop queues (which lib/port runs under the same
 * per-port lock). Not from inside an op.
 */
void dvp_port_ctrl_lock(struct dvp_port *port);
void dvp_port_ctrl_unlock(struct dvp_port *port);

#ifdef __cplusplus
}
#endif

#endif /* DVP_PORT_DRIVER_H */
