/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* net_ring's counters: stats and xstats of its ports. */

#include <stdio.h>

#include "net_ring_private.h"

static void qstats_read(const struct nr_qstats *st, const struct nr_qstats *base,
			struct nr_qstats *out)
{
	out->packets = dvp_counter_read(&st->packets) - dvp_counter_read(&base->packets);
	out->bytes = dvp_counter_read(&st->bytes) - dvp_counter_read(&base->bytes);
	out->errors = dvp_counter_read(&st->errors) - dvp_counter_read(&base->errors);
}

static void qstats_reset(const struct nr_qstats *st, struct nr_qstats *base)
{
	/* The lcore owns the counters: move the zero (see lib/intr's stats reset). */
	__atomic_store_n(&base->packets, dvp_counter_read(&st->packets), __ATOMIC_RELAXED);
	__atomic_store_n(&base->bytes, dvp_counter_read(&st->bytes), __ATOMIC_RELAXED);
	__atomic_store_n(&base->errors, dvp_counter_read(&st->errors), __ATOMIC_RELAXED);
}

int nr_stats_get(struct dvp_port *port, struct dvp_port_stats *stats)
{
	struct nr_qstats s;
	uint16_t q;

	for (q = 0; q < port->nb_rx_queues; q++) {
		struct nr_rxq *rxq = port->rxqs[q];

		if (rxq == NULL)
			continue;
		qstats_read(&rxq->st, &rxq->base, &s);
		dvp_port_stats_add_queue(
			stats, q, false,
			&(struct dvp_port_qstats){ s.packets, s.bytes, s.errors, 0 });
	}
	for (q = 0; q < port->nb_tx_queues; q++) {
		struct nr_txq *txq = port->txqs[q];

		if (txq == NULL)
			continue;
		qstats_read(&txq->st, &txq->base, &s);
		dvp_port_stats_add_queue(
			stats, q, true,
			&(struct dvp_port_qstats){ s.packets, s.bytes, s.errors, 0 });
	}
	return 0;
}

int nr_stats_reset(struct dvp_port *port)
{
	uint16_t q;

	for (q = 0; q < port->nb_rx_queues; q++) {
		struct nr_rxq *rxq = port->rxqs[q];

		if (rxq != NULL)
			qstats_reset(&rxq->st, &rxq->base);
	}
	for (q = 0; q < port->nb_tx_queues; q++) {
		struct nr_txq *txq = port->txqs[q];

		if (txq != NULL)
			qstats_reset(&txq->st, &txq->base);
	}
	return 0;
}

static const char *const nr_xstat_names[] = {
	"tx_peer_stopped_drops",      "queue_restarts",
	"async_events_acked",	      "rx_intr_events_written",
	"rx_intr_unacked_at_release",
};

int nr_xstats_get_names(struct dvp_port *port, struct dvp_xstat_name *names, unsigned int size)
{
	unsigned int i;

	(void)port;
	for (i = 0; i < size && i < DVP_DIM(nr_xstat_names); i++)
		snprintf(names[i].name, sizeof(names[i].name), "%s", nr_xstat_names[i]);
	return DVP_DIM(nr_xstat_names);
}

int nr_xstats_get(struct dvp_port *port, uint64_t *values, unsigned int size)
{
	struct nr_port *np = port->priv;
	uint64_t v[DVP_DIM(nr_xstat_names)] = { 0 };
	unsigned int i;
	uint16_t q;

	for (q = 0; q < port->nb_tx_queues; q++)
		if (port->txqs[q] != NULL)
			v[0] += dvp_counter_read(
				&((struct nr_txq *)port->txqs[q])->peer_stopped_drops);
	v[1] = __atomic_load_n(&np->queue_restarts, __ATOMIC_RELAXED);
	v[2] = __atomic_load_n(&np->async_acked, __ATOMIC_RELAXED);
	for (q = 0; q < np->nb_rx_rings; q++)
		if (np->rx[q] != NULL && np->rx[q]->consumer == np)
			v[3] += __atomic_load_n(&np->rx[q]->events_written, __ATOMIC_RELAXED);
	v[4] = __atomic_load_n(&np->unacked_at_release, __ATOMIC_RELAXED);
	for (i = 0; i < size && i < DVP_DIM(v); i++)
		values[i] = v[i];
	return DVP_DIM(v);
}

int nr_xstats_reset(struct dvp_port *port)
{
	struct nr_port *np = port->priv;
	uint16_t q;

	for (q = 0; q < port->nb_tx_queues; q++)
		if (port->txqs[q] != NULL)
			__atomic_store_n(&((struct nr_txq *)port->txqs[q])->peer_stopped_drops, 0,
					 __ATOMIC_RELAXED);
	__atomic_store_n(&np->queue_restarts, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&np->async_acked, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&np->unacked_at_release, 0, __ATOMIC_RELAXED);
	for (q = 0; q < np->nb_rx_rings; q++)
		if (np->rx[q] != NULL && np->rx[q]->consumer == np)
			__atomic_store_n(&np->rx[q]->events_written, 0, __ATOMIC_RELAXED);
	return 0;
}
