/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * The fast path of ports: dvp_rx_burst() and dvp_tx_burst(), inline, over a
 * flat table indexed by port id (as DPDK's rte_eth_fp_ops). Included by
 * dvp_port.h.
 *
 * A burst reads one cache line of the table (the burst function, the queue
 * pointers and the number of queues usable now) and calls the driver: no
 * lock, system call, allocation or log. A stopped port has 0 usable
 * queues, so a burst on it (or on a queue that does not exist) returns 0
 * through an out-of-line function that counts it in the port's debug xstats.
 *
 * The table entry is written only by dvp_port_start() and dvp_port_stop();
 * as with DPDK, the application must not burst on a port while another
 * thread starts or stops it.
 */

#ifndef DVP_PORT_FP_H
#define DVP_PORT_FP_H

#include <stdint.h>

#include <dvp_common.h>
#include <dvp_rxwait.h>
#include <dvp_mbuf.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A driver's rx burst: fill @p pkts with up to @p nb_pkts packets from @p rxq. */
typedef uint16_t (*dvp_rx_burst_fn)(void *rxq, struct dvp_mbuf **pkts, uint16_t nb_pkts);
/** A driver's tx burst: take up to @p nb_pkts packets for sending on @p txq. */
typedef uint16_t (*dvp_tx_burst_fn)(void *txq, struct dvp_mbuf **pkts, uint16_t nb_pkts);

/** One port's entry: what a burst needs, on one cache line. Not API. */
struct dvp_port_fp_ops {
	dvp_rx_burst_fn rx_pkt_burst;
	void *const *rxq_data; /**< [DVP_MAX_QUEUES_PER_PORT] driver rx queues */
	struct dvp_rxwait_queue *const *rxq_intr; /**< [...] their interrupt state, or NULL */
	dvp_tx_burst_fn tx_pkt_burst;
	void *const *txq_data;
	/** Queues usable now: 0 while stopped. Atomic (see dvp_rx_burst()). */
	uint16_t nb_rxq;
	uint16_t nb_txq;
} __dvp_cache_aligned;

extern struct dvp_port_fp_ops dvp_port_fp_ops[DVP_MAX_PORTS];

/* Out of line: count a refused burst (stopped port, bad queue) and return 0. */
__dvp_cold uint16_t __dvp_rx_burst_refused(uint16_t port_id, uint16_t queue_id);
__dvp_cold uint16_t __dvp_tx_burst_refused(uint16_t port_id, uint16_t queue_id);

/**
 * Receive up to @p nb_pkts packets from rx queue @p queue_id of @p port_id.
 * @return the number received (0 also for a stopped port or a bad id).
 */
static __dvp_always_inline uint16_t dvp_rx_burst(uint16_t port_id, uint16_t queue_id,
						 struct dvp_mbuf **rx_pkts, uint16_t nb_pkts)
{
	const struct dvp_port_fp_ops *fp;

	if (dvp_unlikely(port_id >= DVP_MAX_PORTS))
		return __dvp_rx_burst_refused(port_id, queue_id);
	fp = &dvp_port_fp_ops[port_id];
	/*
	 * Acquire pairs with the release store of dvp_port_start(): seeing the
	 * queue count, this lcore also sees the function and queue pointers
	 * written before it. (A plain load on x86.)
	 */
	if (dvp_unlikely(queue_id >= __atomic_load_n(&fp->nb_rxq, __ATOMIC_ACQUIRE)))
		return __dvp_rx_burst_refused(port_id, queue_id);
	return fp->rx_pkt_burst(fp->rxq_data[queue_id], rx_pkts, nb_pkts);
}

/**
 * Send up to @p nb_pkts packets on tx queue @p queue_id of @p port_id. The
 * port takes the mbufs it accepts (it frees them once sent); the caller
 * keeps the others.
 * @return the number accepted (0 also for a stopped port or a bad id).
 */
static __dvp_always_inline uint16_t dvp_tx_burst(uint16_t port_id, uint16_t queue_id,
						 struct dvp_mbuf **tx_pkts, uint16_t nb_pkts)
{
	const struct dvp_port_fp_ops *fp;

	if (dvp_unlikely(port_id >= DVP_MAX_PORTS))
		return __dvp_tx_burst_refused(port_id, queue_id);
	fp = &dvp_port_fp_ops[port_id];
	/* Acquire: as in dvp_rx_burst(). */
	if (dvp_unlikely(queue_id >= __atomic_load_n(&fp->nb_txq, __ATOMIC_ACQUIRE)))
		return __dvp_tx_burst_refused(port_id, queue_id);
	return fp->tx_pkt_burst(fp->txq_data[queue_id], tx_pkts, nb_pkts);
}

/**
 * dvp_rx_burst() accounted to the adaptive governor @p gov of the calling
 * lcore (see dvp_rxwait.h): the loop an lcore in adaptive mode runs.
 */
static __dvp_always_inline uint16_t dvp_rx_burst_adaptive(struct dvp_rxwait_governor *gov,
							  uint16_t port_id, uint16_t queue_id,
							  struct dvp_mbuf **rx_pkts,
							  uint16_t nb_pkts)
{
	uint16_t n = dvp_rx_burst(port_id, queue_id, rx_pkts, nb_pkts);
	struct dvp_rxwait_queue *iq = NULL;

	/* The burst above checked the ids: only a refused one is out of range. */
	if (dvp_likely(port_id < DVP_MAX_PORTS &&
		       queue_id <
			       __atomic_load_n(&dvp_port_fp_ops[port_id].nb_rxq, __ATOMIC_RELAXED)))
		iq = dvp_port_fp_ops[port_id].rxq_intr[queue_id];
	dvp_rxwait_governor_account(gov, iq, n);
	return n;
}

#ifdef __cplusplus
}
#endif

#endif /* DVP_PORT_FP_H */
