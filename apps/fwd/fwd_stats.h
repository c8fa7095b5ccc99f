/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * What dvp-fwd's reports share: the snapshots of the ports' counters and
 * what is derived from them (fwd_stats.c, which also prints the lines of
 * the run), read by the summary and its loss check (fwd_summary.c) and by
 * the JSON forms of all three (fwd_json.c).
 */

#ifndef DVP_FWD_STATS_H
#define DVP_FWD_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "fwd.h"

/* One port's counters at one instant. */
struct fwd_port_snap {
	struct dvp_port_stats st;
	uint64_t wakeups, asleep_ns; /* summed over the port's rx queues */
	unsigned int intr_queues; /* rx queues with interrupt counters */
	uint64_t fwd_dropped; /* by the streams sending on the port */
};

/* The snapshots of every port in use, by run->ports index. */
struct fwd_snaps {
	struct fwd_port_snap base[DVP_MAX_PORTS]; /* at start */
	struct fwd_port_snap prev[DVP_MAX_PORTS]; /* at the last stats line */
	struct fwd_port_snap last[DVP_MAX_PORTS]; /* at the end */
	double prev_s;
	unsigned int lines;
};

/* The main lcore's: only it takes and reads them. */
extern struct fwd_snaps fwd_snaps;

/* A port's drops between two snapshots. */
struct fwd_drops {
	uint64_t imissed, nombuf, errors, fwd;
};

/* One lcore's streams and loop, summed. */
struct fwd_lcore_sum {
	uint64_t rx, tx, fwd_dropped, stop_dropped, nombuf;
	uint64_t rounds, empty, pauses, sleeps, wakeups, timeouts;
	uint64_t busy_cycles;
	double asleep_s;
};

/* The loss check's outcome, which the text and the JSON summary both give. */
struct fwd_verdict {
	struct fwd_sim_verdict sink;
	uint64_t uncounted; /* frames the sink misses that no counter saw */
	uint64_t loss;
	double loss_pct;
	bool pass;
};

#define FWD_C_BOLD "\033[1m"
#define FWD_C_RED "\033[31m"
#define FWD_C_GREEN "\033[32m"
#define FWD_C_OFF "\033[0m"

/* @c, or nothing when the output is not a terminal. */
static inline const char *fwd_col(const struct fwd_run *run, const char *c)
{
	return run->color ? c : "";
}

static inline double fwd_mpps(uint64_t pkts, double s)
{
	return s > 0 ? (double)pkts / s / 1e6 : 0;
}

static inline double fwd_gbps(uint64_t bytes, double s)
{
	return s > 0 ? (double)bytes * 8 / s / 1e9 : 0;
}

static inline struct fwd_drops fwd_drops_between(const struct fwd_port_snap *a,
						 const struct fwd_port_snap *b)
{
	struct fwd_drops d = {
		.imissed = b->st.imissed - a->st.imissed,
		.nombuf = b->st.rx_nombuf - a->st.rx_nombuf,
		.errors = b->st.ierrors - a->st.ierrors + b->st.oerrors - a->st.oerrors,
		.fwd = b->fwd_dropped - a->fwd_dropped,
	};
	return d;
}

/* The share of @s its rx queues slept between @a and @b, per queue, in percent. */
static inline double fwd_asleep_pct(const struct fwd_port_snap *a, const struct fwd_port_snap *b,
				    double s)
{
	unsigned int q = DVP_MAX(b->intr_queues, 1u);
	double pct = s > 0 ? (double)(b->asleep_ns - a->asleep_ns) / 1e9 / s / q * 100 : 0;

	return DVP_MIN(pct, 100.0);
}

/* fwd_stats.c */
void fwd_lcore_sum(const struct fwd_lcore *lc, struct fwd_lcore_sum *ls);
/* Packets lost on a port between @a and @b, by its counters and the app's drops. */
uint64_t fwd_port_loss(const struct fwd_port *fp, const struct fwd_port_snap *a,
		       const struct fwd_port_snap *b);
/* --record-core-cycles: busy cycles, and the packets received (sent, by generators). */
void fwd_cycles_sum(struct fwd_run *run, uint64_t *cycles, uint64_t *pkts);

/* fwd_json.c: one object a line. */
void fwd_json_config(struct fwd_run *run);
void fwd_json_stats(struct fwd_run *run, const struct fwd_port *fp, double now_s, double dt,
		    const struct fwd_port_snap *a, const struct fwd_port_snap *b);
void fwd_json_summary(struct fwd_run *run, double el, const struct fwd_verdict *v,
		      const struct fwd_result *res);

#endif /* DVP_FWD_STATS_H */
