/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Statistics and extended statistics. The xstats are, in this order:
 * the basic counters under DPDK's names, the per-queue ones, lib/port's
 * debug counters, each rx queue's interrupt counters (lib/rxwait), then the
 * driver's own. Names and values are produced by the same walk, so ids
 * match as long as the port is not reconfigured in between.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dvp_port_counters.h>

#include "port_private.h"

static int stats_read(struct dvp_port *port, struct dvp_port_stats *st)
{
	memset(st, 0, sizeof(*st));
	return port->ops->stats_get(port, st);
}

/* The per-queue basic counters: rx_q<N>_packets, ... (DPDK's names). */
static const char *const rxq_basic[] = { "packets", "bytes", "errors" };
static const char *const txq_basic[] = { "packets", "bytes" };

static const char *const dbg_names[] = {
	"dbg_rx_burst_refused",
	"dbg_tx_burst_refused",
	"dbg_mbufs_leaked",
	"dbg_queue_errors",
};
_Static_assert(sizeof(struct dvp_port_dbg) == DVP_DIM(dbg_names) * sizeof(uint64_t),
	       "a name for every counter of struct dvp_port_dbg");

/* Everything but the driver's xstats. */
static int walk_port(struct dvp_port *port, struct dvp_xstats_out *w)
{
	struct dvp_rxwait_queue_stats is;
	struct dvp_port_stats st;
	char name[DVP_XSTATS_NAMESIZE];
	uint64_t dbg[DVP_DIM(dbg_names)];
	uint16_t q, nq;
	unsigned int i;
	int ret;

	ret = stats_read(port, &st);
	if (ret < 0)
		return ret;
	dvp_xstats_out_put(w, "rx_good_packets", st.ipackets);
	dvp_xstats_out_put(w, "tx_good_packets", st.opackets);
	dvp_xstats_out_put(w, "rx_good_bytes", st.ibytes);
	dvp_xstats_out_put(w, "tx_good_bytes", st.obytes);
	dvp_xstats_out_put(w, "rx_missed_errors", st.imissed);
	dvp_xstats_out_put(w, "rx_errors", st.ierrors);
	dvp_xstats_out_put(w, "tx_errors", st.oerrors);
	dvp_xstats_out_put(w, "rx_mbuf_allocation_errors", st.rx_nombuf);
	nq = DVP_MIN(port->nb_rx_queues, DVP_PORT_QUEUE_STAT_CNTRS);
	for (q = 0; q < nq; q++)
		dvp_xstats_out_queue(
			w, false, q, rxq_basic,
			(const uint64_t[]){ st.q_ipackets[q], st.q_ibytes[q], st.q_errors[q] },
			DVP_DIM(rxq_basic));
	nq = DVP_MIN(port->nb_tx_queues, DVP_PORT_QUEUE_STAT_CNTRS);
	for (q = 0; q < nq; q++)
		dvp_xstats_out_queue(w, true, q, txq_basic,
				     (const uint64_t[]){ st.q_opackets[q], st.q_obytes[q] },
				     DVP_DIM(txq_basic));
	dvp_counters_read((const uint64_t *)&port->dbg, (const uint64_t *)&port->dbg_base, dbg,
			  DVP_DIM(dbg));
	dvp_xstats_out_table(w, dbg_names, dbg, DVP_DIM(dbg));
	for (q = 0; q < port->nb_rx_queues; q++) {
		const uint64_t *v = (const uint64_t *)&is;

		if (!dvp_rxwait_queue_active(port->rxq_intr[q]))
			continue;
		dvp_rxwait_queue_stats_get(port->rxq_intr[q], &is);
		for (i = 0; i < DVP_RXWAIT_QUEUE_STATS_N; i++) {
			snprintf(name, sizeof(name), "rx_q%u_intr_%s", q,
				 dvp_rxwait_queue_stats_names[i]);
			dvp_xstats_out_put(w, name, v[i]);
		}
	}
	return 0;
}

/* The driver's xstats, after the port's, into the same output. */
static int walk_driver(struct dvp_port *port, struct dvp_xstats_out *w)
{
	return port->ops->xstats != NULL ? port->ops->xstats(port, w) : 0;
}

static int xstats_walk(uint16_t port_id, struct dvp_xstats_out *w, const char *func)
{
	struct dvp_port *port = port_get_checked(port_id, func);
	int ret;

	if (port == NULL)
		return -EINVAL;
	ret = walk_port(port, w);
	if (ret == 0)
		ret = walk_driver(port, w);
	if (ret < 0) {
		PORT_LOG(ERR, "%s: port %u: %s failed: %s", func, port_id, port->driver_name,
			 dvp_strerror(-ret));
		return dvp_err(-ret);
	}
	return (int)w->n;
}

int dvp_xstats_get_names(uint16_t port_id, struct dvp_xstat_name *names, unsigned int size)
{
	struct dvp_xstats_out w = { .names = names, .size = names ? size : 0 };

	return xstats_walk(port_id, &w, "xstats get names");
}

int dvp_xstats_get(uint16_t port_id, struct dvp_xstat *xstats, unsigned int size)
{
	struct dvp_xstats_out w = { .size = xstats ? size : 0 };
	unsigned int i;
	int n;

	if (w.size > 0) {
		w.values = calloc(w.size, sizeof(*w.values));
		if (w.values == NULL) {
			PORT_LOG(ERR, "xstats get: port %u: out of memory", port_id);
			return dvp_err(ENOMEM);
		}
	}
	n = xstats_walk(port_id, &w, "xstats get");
	for (i = 0; n > 0 && i < w.size && i < (unsigned int)n; i++) {
		xstats[i].id = i;
		xstats[i].value = w.values[i];
	}
	free(w.values);
	return n;
}

int dvp_xstats_get_by_name(uint16_t port_id, const char *name, uint64_t *value)
{
	struct dvp_xstat_name *names = NULL;
	struct dvp_xstat *vals = NULL;
	int n, m, i, ret = -ENOENT;

	if (name == NULL || value == NULL) {
		PORT_LOG(ERR, "xstats get by name: port %u: %s is NULL", port_id,
			 name == NULL ? "the name" : "the value");
		return dvp_err(EINVAL);
	}
	n = dvp_xstats_get_names(port_id, NULL, 0);
	if (n < 0)
		return n;
	names = calloc((size_t)n + 1, sizeof(*names));
	vals = calloc((size_t)n + 1, sizeof(*vals));
	if (names == NULL || vals == NULL) {
		ret = dvp_err(ENOMEM);
		goto out;
	}
	m = dvp_xstats_get_names(port_id, names, (unsigned int)n);
	if (m != n || dvp_xstats_get(port_id, vals, (unsigned int)n) != n) {
		ret = dvp_err(EAGAIN);
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (strcmp(names[i].name, name) == 0) {
			*value = vals[i].value;
			ret = 0;
			goto out;
		}
	}
	PORT_LOG(
		ERR,
		"xstats get by name: port %u has no xstat '%s' (dvp_xstats_get_names lists the %d it has)",
		port_id, name, n);
	dvp_errno = ENOENT;
out:
	free(names);
	free(vals);
	return ret;
}

void dvp_port_stats_add_queue(struct dvp_port_stats *stats, uint16_t q, bool tx,
			      const struct dvp_port_qstats *qs)
{
	if (tx) {
		stats->opackets += qs->packets;
		stats->obytes += qs->bytes;
		stats->oerrors += qs->errors;
		if (q < DVP_PORT_QUEUE_STAT_CNTRS) {
			stats->q_opackets[q] = qs->packets;
			stats->q_obytes[q] = qs->bytes;
		}
		return;
	}
	stats->ipackets += qs->packets;
	stats->ibytes += qs->bytes;
	stats->ierrors += qs->errors;
	stats->rx_nombuf += qs->nombuf;
	if (q < DVP_PORT_QUEUE_STAT_CNTRS) {
		stats->q_ipackets[q] = qs->packets;
		stats->q_ibytes[q] = qs->bytes;
		stats->q_errors[q] = qs->errors;
	}
}

int dvp_stats_get(uint16_t port_id, struct dvp_port_stats *stats)
{
	struct dvp_port *port =
		port_get_checked_out(port_id, "stats get", stats, "nowhere to put them");
	int ret;

	if (port == NULL)
		return -EINVAL;
	ret = stats_read(port, stats);
	return ret < 0 ? dvp_err(-ret) : 0;
}

int dvp_stats_reset(uint16_t port_id)
{
	struct dvp_port *port = port_get_checked(port_id, "stats reset");
	int ret;

	if (port == NULL)
		return -EINVAL;
	if (port->ops->stats_reset == NULL) {
		PORT_LOG(ERR, "stats reset: port %u: %s cannot reset its counters", port_id,
			 port->driver_name);
		return dvp_err(ENOTSUP);
	}
	ret = port->ops->stats_reset(port);
	return ret < 0 ? dvp_err(-ret) : 0;
}

int dvp_xstats_reset(uint16_t port_id)
{
	struct dvp_port *port = port_get_checked(port_id, "xstats reset");
	uint16_t q;
	int ret;

	if (port == NULL)
		return -EINVAL;
	ret = dvp_stats_reset(port_id);
	if (ret < 0 && ret != -ENOTSUP)
		return ret;
	dvp_counters_reset((const uint64_t *)&port->dbg, (uint64_t *)&port->dbg_base,
			   DVP_DIM(dbg_names));
	for (q = 0; q < port->nb_rx_queues; q++)
		if (dvp_rxwait_queue_active(port->rxq_intr[q]))
			dvp_rxwait_queue_stats_reset(port->rxq_intr[q]);
	if (port->ops->xstats_reset != NULL) {
		ret = port->ops->xstats_reset(port);
		if (ret < 0)
			return dvp_err(-ret);
	}
	return 0;
}
