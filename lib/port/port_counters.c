/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The per-queue counter block and the xstats made from drivers' name
 * tables (dvp_port_counters.h): one reset rule, a baseline, for every
 * driver.
 */

#include <stdio.h>
#include <string.h>

#include <dvp_port_counters.h>

static void *queue_of(const struct dvp_port *port, bool tx, uint16_t q)
{
	return tx ? port->txqs[q] : port->rxqs[q];
}

/* The counters (or baseline) at @p off in queue @p qp: the driver aligned them. */
static uint64_t *at(const char *qp, size_t off)
{
	return (uint64_t *)(void *)(uintptr_t)(qp + off);
}

void dvp_port_qctrs_read(const struct dvp_port *port, const struct dvp_port_qctrs *qc, bool tx,
			 uint16_t q, uint64_t *out)
{
	const char *qp = queue_of(port, tx, q);

	if (qp == NULL) {
		memset(out, 0, qc->n * sizeof(*out));
		return;
	}
	dvp_counters_read(at(qp, qc->ctr_off), at(qp, qc->base_off), out, qc->n);
}

static void stats_add(const struct dvp_port *port, const struct dvp_port_qctrs *qc, bool tx,
		      uint16_t nq, struct dvp_port_stats *stats)
{
	struct dvp_port_qstats s;
	uint16_t q;

	if (qc == NULL)
		return;
	for (q = 0; q < nq; q++) {
		const char *qp = queue_of(port, tx, q);

		if (qp == NULL)
			continue;
		/* The block begins with the four of struct dvp_port_qstats. */
		dvp_counters_read(at(qp, qc->ctr_off), at(qp, qc->base_off), (uint64_t *)&s,
				  DVP_PORT_QCTRS_STD);
		if (tx)
			s.nombuf = 0;
		dvp_port_stats_add_queue(stats, q, tx, &s);
	}
}

_Static_assert(sizeof(struct dvp_port_qstats) == DVP_PORT_QCTRS_STD * sizeof(uint64_t),
	       "struct dvp_port_qstats is the four counters every queue's block begins with");

void dvp_port_qctrs_stats_get(const struct dvp_port *port, const struct dvp_port_qctrs *rx,
			      const struct dvp_port_qctrs *tx, struct dvp_port_stats *stats)
{
	stats_add(port, rx, false, port->nb_rx_queues, stats);
	stats_add(port, tx, true, port->nb_tx_queues, stats);
}

static void reset(struct dvp_port *port, const struct dvp_port_qctrs *qc, bool tx, uint16_t nq)
{
	uint16_t q;

	if (qc == NULL)
		return;
	for (q = 0; q < nq; q++) {
		char *qp = queue_of(port, tx, q);

		if (qp != NULL)
			dvp_counters_reset(at(qp, qc->ctr_off), at(qp, qc->base_off), qc->n);
	}
}

void dvp_port_qctrs_reset(struct dvp_port *port, const struct dvp_port_qctrs *rx,
			  const struct dvp_port_qctrs *tx)
{
	reset(port, rx, false, port->nb_rx_queues);
	reset(port, tx, true, port->nb_tx_queues);
}

void dvp_xstats_out_put(struct dvp_xstats_out *o, const char *name, uint64_t value)
{
	if (o->n < o->size) {
		if (o->names != NULL)
			snprintf(o->names[o->n].name, sizeof(o->names[o->n].name), "%s", name);
		if (o->values != NULL)
			o->values[o->n] = value;
	}
	o->n++;
}

void dvp_xstats_out_table(struct dvp_xstats_out *o, const char *const *names,
			  const uint64_t *values, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (names[i] != NULL)
			dvp_xstats_out_put(o, names[i], values != NULL ? values[i] : 0);
}

void dvp_xstats_out_queue(struct dvp_xstats_out *o, bool tx, uint16_t q, const char *const *names,
			  const uint64_t *values, unsigned int n)
{
	char name[DVP_XSTATS_NAMESIZE];
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (names[i] == NULL)
			continue;
		snprintf(name, sizeof(name), "%s_q%u_%s", tx ? "tx" : "rx", q, names[i]);
		dvp_xstats_out_put(o, name, values != NULL ? values[i] : 0);
	}
}

static void out_queues(struct dvp_xstats_out *o, const struct dvp_port *port,
		       const struct dvp_port_qctrs *qc, bool tx, uint16_t nq)
{
	unsigned int i;
	uint16_t q;

	for (q = 0; q < nq; q++) {
		const char *qp = queue_of(port, tx, q);

		for (i = 0; i < qc->n; i++) {
			uint64_t v = 0;

			if (qc->names[i] != NULL && o->values != NULL && qp != NULL)
				dvp_counters_read(at(qp, qc->ctr_off) + i, at(qp, qc->base_off) + i,
						  &v, 1);
			dvp_xstats_out_queue(o, tx, q, &qc->names[i], &v, 1);
		}
	}
}

void dvp_xstats_out_queues(struct dvp_xstats_out *o, const struct dvp_port *port,
			   const struct dvp_port_qctrs *rx, const struct dvp_port_qctrs *tx)
{
	if (rx != NULL)
		out_queues(o, port, rx, false, port->nb_rx_queues);
	if (tx != NULL)
		out_queues(o, port, tx, true, port->nb_tx_queues);
}
