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

#define RING_PSTATS_N (sizeof(struct ring_pstats) / sizeof(uint64_t))

/* The inboxes this port reads: each counts the events written to wake it. */
static bool reads_inbox(const struct ring_port *np, uint16_t q)
{
	return np->rx[q] != NULL && np->rx[q]->consumer == np;
}

int ring_xstats(struct dvp_port *port, struct dvp_xstats_out *o)
{
	struct ring_port *np = port->priv;
	uint64_t ps[RING_PSTATS_N], events = 0, v;
	uint16_t q;

	dvp_xstats_out_queues(o, port, &rxq_ctrs, &txq_ctrs);
	dvp_counters_read((const uint64_t *)&np->ps, (const uint64_t *)&np->ps_base, ps,
			  RING_PSTATS_N);
	for (q = 0; q < np->nb_rx_rings; q++) {
		if (reads_inbox(np, q)) {
			dvp_counters_read(&np->rx[q]->events_written, &np->rx[q]->events_base, &v,
					  1);
			events += v;
		}
	}
	dvp_xstats_out_table(o, ring_xstat_names, (const uint64_t[]){ ps[0], ps[1], events, ps[2] },
			     DVP_DIM(ring_xstat_names));
	return 0;
}

/*
 * By the baseline rule of dvp_port_counters.h, as the queues' counters
 * (which stats_reset has reset: lib/port calls it first).
 */
int ring_xstats_reset(struct dvp_port *port)
{
	struct ring_port *np = port->priv;
	uint16_t q;

	dvp_counters_reset((const uint64_t *)&np->ps, (uint64_t *)&np->ps_base, RING_PSTATS_N);
	for (q = 0; q < np->nb_rx_rings; q++)
		if (reads_inbox(np, q))
			dvp_counters_reset(&np->rx[q]->events_written, &np->rx[q]->events_base, 1);
	return 0;
}
