/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * net_af_xdp counters. The queues' own (dvp_port_counters.h) are counted
 * by the bursts; the kernel's (XDP_STATISTICS, per socket) are read with
 * getsockopt(2) when asked, and carried over when a socket closes at stop,
 * so they run on across stop and start as every other counter does.
 *
 * What the kernel counts completes the port's sums, so that every frame
 * the netdev gave the socket is in one of them: received (ipackets), or
 * dropped for want of a fill buffer or too long for one (rx_dropped) or
 * for a full rx ring (rx_ring_full), both imissed. Fill ring entries and
 * tx descriptors the kernel refused (a driver bug if ever) are ierrors and
 * oerrors. Every one of them is also an xstat of its queue.
 */

#include <string.h>

#include <dvp_port_counters.h>

#include "af_xdp_port.h"

static const char *const rxq_names[] = {
	NULL, NULL, NULL, NULL, "fill_wakeups", "busy_polls", "restart_drops", "fill_short",
};
static const char *const txq_names[] = {
	NULL,	     NULL,	    NULL,     NULL,	  "kicks",	"kick_again",
	"kick_busy", "kick_errors", "copied", "too_long", "copy_drops", "ring_full",
};
DVP_PORT_QCTRS_DEFINE(rxq_ctrs, struct af_xdp_rxq, st, st_base, rxq_names);
DVP_PORT_QCTRS_DEFINE(txq_ctrs, struct af_xdp_txq, st, st_base, txq_names);

#define XDP_N (sizeof(struct af_xdp_xdp_ctrs) / sizeof(uint64_t))

/* The kernel's counters on the rx row of a queue, then on its tx row. */
static const char *const xdp_rx_names[XDP_N] = {
	[0] = "xdp_dropped",
	[1] = "xdp_invalid_descs",
	[3] = "xdp_ring_full",
	[4] = "xdp_fill_ring_empty",
};
static const char *const xdp_tx_names[XDP_N] = {
	[2] = "xdp_invalid_descs",
	[5] = "xdp_ring_empty",
};

static const char *const port_names[] = { "link_events" };

/* Rx queue @rxq's kernel counters since the baseline (caller holds xdp_lock). */
static void xdp_read_locked(const struct af_xdp_rxq *rxq, uint64_t *out)
{
	struct af_xdp_xdp_ctrs live;
	const uint64_t *l = (const uint64_t *)&live;
	const uint64_t *c = (const uint64_t *)&rxq->xdp_carry;
	const uint64_t *b = (const uint64_t *)&rxq->xdp_base;
	unsigned int i;

	af_xdp_xsk_stats(rxq, &live);
	for (i = 0; i < XDP_N; i++)
		out[i] = c[i] + l[i] - b[i];
}

void af_xdp_stats_carry(struct af_xdp_port *xp, struct af_xdp_rxq *rxq)
{
	struct af_xdp_xdp_ctrs live;
	uint64_t *c = (uint64_t *)&rxq->xdp_carry;
	const uint64_t *l = (const uint64_t *)&live;
	unsigned int i;

	(void)xp; /* its xdp_lock is held */
	af_xdp_xsk_stats(rxq, &live);
	for (i = 0; i < XDP_N; i++)
		c[i] += l[i];
}

int af_xdp_stats_get(struct dvp_port *port, struct dvp_port_stats *stats)
{
	struct af_xdp_port *xp = port->priv;
	uint64_t v[XDP_N];
	uint16_t q;

	dvp_port_qctrs_stats_get(port, &rxq_ctrs, &txq_ctrs, stats);
	pthread_mutex_lock(&xp->xdp_lock);
	for (q = 0; q < port->nb_rx_queues; q++) {
		if (port->rxqs[q] == NULL)
			continue;
		xdp_read_locked(port->rxqs[q], v);
		stats->imissed += v[0] + v[3];
		stats->ierrors += v[1];
		stats->oerrors += v[2];
	}
	pthread_mutex_unlock(&xp->xdp_lock);
	return 0;
}

int af_xdp_stats_reset(struct dvp_port *port)
{
	struct af_xdp_port *xp = port->priv;
	uint16_t q;

	dvp_port_qctrs_reset(port, &rxq_ctrs, &txq_ctrs);
	/* The kernel's counters, by the same rule: now is their baseline. */
	pthread_mutex_lock(&xp->xdp_lock);
	for (q = 0; q < port->nb_rx_queues; q++) {
		struct af_xdp_rxq *rxq = port->rxqs[q];
		struct af_xdp_xdp_ctrs live;
		uint64_t *b, *c, *l;
		unsigned int i;

		if (rxq == NULL)
			continue;
		af_xdp_xsk_stats(rxq, &live);
		b = (uint64_t *)&rxq->xdp_base;
		c = (uint64_t *)&rxq->xdp_carry;
		l = (uint64_t *)&live;
		for (i = 0; i < XDP_N; i++)
			b[i] = c[i] + l[i];
	}
	pthread_mutex_unlock(&xp->xdp_lock);
	return 0;
}

int af_xdp_xstats(struct dvp_port *port, struct dvp_xstats_out *o)
{
	struct af_xdp_port *xp = port->priv;
	uint64_t v[XDP_N], pv[DVP_DIM(port_names)];
	uint64_t link = __atomic_load_n(&xp->link_events, __ATOMIC_RELAXED);
	uint16_t q;

	dvp_xstats_out_queues(o, port, &rxq_ctrs, &txq_ctrs);
	pthread_mutex_lock(&xp->xdp_lock);
	for (q = 0; q < port->nb_rx_queues; q++) {
		memset(v, 0, sizeof(v));
		if (port->rxqs[q] != NULL)
			xdp_read_locked(port->rxqs[q], v);
		dvp_xstats_out_queue(o, false, q, xdp_rx_names, v, XDP_N);
		if (q < port->nb_tx_queues)
			dvp_xstats_out_queue(o, true, q, xdp_tx_names, v, XDP_N);
	}
	pthread_mutex_unlock(&xp->xdp_lock);
	dvp_counters_read(&link, &xp->link_events_base, pv, DVP_DIM(pv));
	dvp_xstats_out_table(o, port_names, pv, DVP_DIM(pv));
	return 0;
}

int af_xdp_xstats_reset(struct dvp_port *port)
{
	struct af_xdp_port *xp = port->priv;
	uint64_t link = __atomic_load_n(&xp->link_events, __ATOMIC_RELAXED);

	/* The queues' and the kernel's counters were reset by stats_reset (called first). */
	dvp_counters_reset(&link, &xp->link_events_base, 1);
	return 0;
}
