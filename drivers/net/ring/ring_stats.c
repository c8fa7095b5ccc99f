/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* net_ring's counters: stats and xstats of its ports. */

#include <stdio.h>

#include "net_ring_private.h"

/* The per-queue xstats, tx_q<N>_peer_stopped_drops: DPDK's naming. */
static const char *const rxq_names[] = { NULL, NULL, NULL, NULL, NULL };
static const char *const txq_names[] = { NULL, NULL, NULL, NULL, "peer_stopped_drops" };
DVP_PORT_QCTRS_DEFINE(rxq_ctrs, struct ring_rxq, st, base, rxq_names);
DVP_PORT_QCTRS_DEFINE(txq_ctrs, struct ring_txq, st, base, txq_names);

int ring_stats_get(struct dvp_port *port, struct dvp_port_stats *stats)
{
	dvp_port_qctrs_stats_get(port, &rxq_ctrs, &txq_ctrs, stats);
	return 0;
}

int ring_stats_reset(struct dvp_port *port)
{
	dvp_port_qctrs_reset(port, &rxq_ctrs, &txq_ctrs);
	return 0;
}

/* The port's own, after the queues'. */
static const char *const ring_xstat_names[] = {
	"queue_restarts",
	"async_events_acked",
	"rx_intr_events_written",
	"rx_intr_unacked_at_release",
};

int ring_xstats(struct dvp_port *port, struct dvp_xstats_out *o)
{
	struct ring_port *np = port->priv;
	uint64_t v[DVP_DIM(ring_xstat_names)] = { 0 };
	uint16_t q;

	dvp_xstats_out_queues(o, port, &rxq_ctrs, &txq_ctrs);
	v[0] = __atomic_load_n(&np->queue_restarts, __ATOMIC_RELAXED);
	v[1] = __atomic_load_n(&np->async_acked, __ATOMIC_RELAXED);
	for (q = 0; q < np->nb_rx_rings; q++)
		if (np->rx[q] != NULL && np->rx[q]->consumer == np)
			v[2] += __atomic_load_n(&np->rx[q]->events_written, __ATOMIC_RELAXED);
	v[3] = __atomic_load_n(&np->unacked_at_release, __ATOMIC_RELAXED);
	dvp_xstats_out_table(o, ring_xstat_names, v, DVP_DIM(v));
	return 0;
}

/*
 * The queues' counters were reset by stats_reset (lib/port calls it first).
 * These are written by several threads (atomic adds), so a store of 0 loses
 * nothing a baseline would keep.
 */
int ring_xstats_reset(struct dvp_port *port)
{
	struct ring_port *np = port->priv;
	uint16_t q;

	__atomic_store_n(&np->queue_restarts, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&np->async_acked, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&np->unacked_at_release, 0, __ATOMIC_RELAXED);
	for (q = 0; q < np->nb_rx_rings; q++)
		if (np->rx[q] != NULL && np->rx[q]->consumer == np)
			__atomic_store_n(&np->rx[q]->events_written, 0, __ATOMIC_RELAXED);
	return 0;
}
