/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The ops every driver must have (dvp_port_allocate() checks them), inert,
 * for tests that make a driver to drive one part of lib/port: queues that
 * exist but hold nothing, bursts that move nothing, no counters.
 * TP_MOCK_INERT_OPS fills those fields of a struct dvp_port_ops.
 */

#ifndef TEST_PORT_MOCK_H
#define TEST_PORT_MOCK_H

#include <dvp_port_driver.h>

/* What a set-up queue points at: lib/port only checks it is not NULL. */
static int tp_mock_queue;

static inline int tp_mock_rxq_setup(struct dvp_port *port, uint16_t q, uint16_t nb_desc,
				    int socket_id, const struct dvp_rxq_conf *conf,
				    struct dvp_mempool *pool)
{
	(void)nb_desc;
	(void)socket_id;
	(void)conf;
	(void)pool;
	port->rxqs[q] = &tp_mock_queue;
	return 0;
}

static inline int tp_mock_txq_setup(struct dvp_port *port, uint16_t q, uint16_t nb_desc,
				    int socket_id, const struct dvp_txq_conf *conf)
{
	(void)nb_desc;
	(void)socket_id;
	(void)conf;
	port->txqs[q] = &tp_mock_queue;
	return 0;
}

static inline void tp_mock_q_release(struct dvp_port *port, uint16_t q)
{
	(void)port;
	(void)q;
}

static inline uint16_t tp_mock_burst(void *q, struct dvp_mbuf **pkts, uint16_t n)
{
	(void)q;
	(void)pkts;
	(void)n;
	return 0;
}

static inline int tp_mock_start(struct dvp_port *port)
{
	port->rx_pkt_burst = tp_mock_burst;
	port->tx_pkt_burst = tp_mock_burst;
	return 0;
}

static inline int tp_mock_stop(struct dvp_port *port)
{
	(void)port;
	return 0;
}

static inline int tp_mock_stats(struct dvp_port *port, struct dvp_port_stats *st)
{
	(void)port;
	(void)st;
	return 0;
}

static inline unsigned int tp_mock_held(struct dvp_port *port)
{
	(void)port;
	return 0;
}

#define TP_MOCK_INERT_OPS                                                                         \
	.rxq_setup = tp_mock_rxq_setup, .rxq_release = tp_mock_q_release,                         \
	.txq_setup = tp_mock_txq_setup, .txq_release = tp_mock_q_release, .start = tp_mock_start, \
	.stop = tp_mock_stop, .stats_get = tp_mock_stats, .mbufs_held = tp_mock_held

#endif /* TEST_PORT_MOCK_H */
