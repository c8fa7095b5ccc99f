/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * For drivers (installed with dvp_port_driver.h): the per-queue counter
 * block every driver keeps, the one reset rule, and the xstats made from a
 * driver's tables of counter names.
 *
 * A queue's counters are a struct of uint64_t that begins with the four of
 * struct dvp_port_qstats (packets, bytes, errors, nombuf; DVP_PORT_QCTRS_CHECK
 * says so at compile time), then the driver's own. The lcore polling the
 * queue is their one writer (dvp_counter_add() from the burst functions);
 * any thread reads them. Beside them the queue keeps a baseline of the same
 * struct, and reads and resets follow the one reset rule of dvp_counter.h
 * (dvp_counters_read(), dvp_counters_reset()): a reset records a
 * baseline, never writes a counter, so it is safe while bursts run.
 */

#ifndef DVP_PORT_COUNTERS_H
#define DVP_PORT_COUNTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dvp_counter.h>
#include <dvp_port_driver.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The four counters every queue's block begins with (struct dvp_port_qstats). */
#define DVP_PORT_QCTRS_STD 4

/**
 * Check at compile time that @p type (a queue's counter struct) begins with
 * packets, bytes, errors, nombuf and that @p names names each of its counters.
 */
#define DVP_PORT_QCTRS_CHECK(type, names)                                                      \
	_Static_assert(offsetof(type, packets) == 0 && offsetof(type, bytes) == 8 &&           \
			       offsetof(type, errors) == 16 && offsetof(type, nombuf) == 24 && \
			       sizeof(type) == sizeof(names) / sizeof((names)[0]) * 8,         \
		       #type " begins with packets, bytes, errors, nombuf and " #names         \
			     " has a name for each of its counters")

/**
 * Where a driver's queues keep their counters, and their xstat names: each
 * queue is a struct whose pointer is in port->rxqs[] (or txqs[]), with the
 * counters at @c ctr_off and their baseline at @c base_off.
 */
struct dvp_port_qctrs {
	/**
	 * [n]: the xstat name of each counter, rx_q<N>_<name> or tx_q<N>_<name>;
	 * NULL for one not shown (packets, bytes and errors are lib/port's
	 * rx_q<N>_packets, ...).
	 */
	const char *const *names;
	unsigned int n; /**< counters in the block */
	size_t ctr_off;
	size_t base_off;
};

/**
 * Define @p var, a static struct dvp_port_qctrs for queue type @p qtype
 * whose counters are member @p st and baseline member @p base, named by
 * the array @p names_; and check the layout (DVP_PORT_QCTRS_CHECK).
 */
#define DVP_PORT_QCTRS_DEFINE(var, qtype, st, base, names_)         \
	DVP_PORT_QCTRS_CHECK(__typeof__(((qtype *)0)->st), names_); \
	static const struct dvp_port_qctrs var = {                  \
		.names = (names_),                                  \
		.n = sizeof(names_) / sizeof((names_)[0]),          \
		.ctr_off = offsetof(qtype, st),                     \
		.base_off = offsetof(qtype, base),                  \
	}

/**
 * Read rx (@p tx false) or tx queue @p q's counters since the baseline into
 * @p out (@p qc->n values; zeros for a queue not set up).
 */
void dvp_port_qctrs_read(const struct dvp_port *port, const struct dvp_port_qctrs *qc, bool tx,
			 uint16_t q, uint64_t *out);

/**
 * For a driver's stats_get: add every queue's first four counters to
 * @p stats with dvp_port_stats_add_queue(). @p rx or @p tx may be NULL.
 */
void dvp_port_qctrs_stats_get(const struct dvp_port *port, const struct dvp_port_qctrs *rx,
			      const struct dvp_port_qctrs *tx, struct dvp_port_stats *stats);

/** For a driver's stats_reset: every queue's counters become its baseline. */
void dvp_port_qctrs_reset(struct dvp_port *port, const struct dvp_port_qctrs *rx,
			  const struct dvp_port_qctrs *tx);

/**
 * Where xstats go: names (or NULL), values (or NULL), room for @c size;
 * @c n counts every one put, written or not. A driver writes its
 * xstats_get_names and xstats_get as one function over this, so names and
 * values come out of the same walk and their ids match.
 */
struct dvp_xstats_out {
	struct dvp_xstat_name *names;
	uint64_t *values;
	unsigned int size;
	unsigned int n;
};

/** One xstat. */
void dvp_xstats_out_put(struct dvp_xstats_out *o, const char *name, uint64_t value);

/**
 * A table: @p names[i] with @p values[i] (@p values may be NULL when only
 * names are wanted), skipping NULL names. For counters that are not per
 * queue (connections, async events, ...).
 */
void dvp_xstats_out_table(struct dvp_xstats_out *o, const char *const *names,
			  const uint64_t *values, unsigned int n);

/**
 * Queue @p q's row: rx_q<q>_<names[i]> (or tx_q...) with @p values[i]
 * (@p values may be NULL when only names are wanted), NULL names skipped.
 */
void dvp_xstats_out_queue(struct dvp_xstats_out *o, bool tx, uint16_t q, const char *const *names,
			  const uint64_t *values, unsigned int n);

/**
 * Every rx queue's named counters as rx_q<N>_<name>, then every tx
 * queue's as tx_q<N>_<name> (DPDK's naming), since the baseline.
 */
void dvp_xstats_out_queues(struct dvp_xstats_out *o, const struct dvp_port *port,
			   const struct dvp_port_qctrs *rx, const struct dvp_port_qctrs *tx);

#ifdef __cplusplus
}
#endif

#endif /* DVP_PORT_COUNTERS_H */
