/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * What dvp-fwd prints: the configuration, one line per port every stats
 * period, and at the end a summary per port and per lcore, the sink's
 * verdict and the loss check that decides the exit status. Text for
 * people (colour only on a terminal), or JSON objects one per line.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <dvp_cycles.h>
#include <dvp_json.h>

#include "fwd.h"

struct port_snap {
	struct dvp_port_stats st;
	uint64_t wakeups, asleep_ns; /* summed over the port's rx queues */
	unsigned int intr_queues; /* rx queues with interrupt counters */
	uint64_t fwd_dropped; /* by the streams sending on the port */
};

static struct {
	struct port_snap base[DVP_MAX_PORTS]; /* at start */
	struct port_snap prev[DVP_MAX_PORTS]; /* at the last stats line */
	struct port_snap last[DVP_MAX_PORTS]; /* at the end */
	double prev_s;
	unsigned int lines;
} S;

#define C_BOLD "\033[1m"
#define C_RED "\033[31m"
#define C_GREEN "\033[32m"
#define C_OFF "\033[0m"

static const char *col(const struct fwd_run *run, const char *c)
{
	return run->color ? c : "";
}

/* Interrupt counters of the port's rx queues, from its xstats rx_q<N>_intr_*. */
static void intr_counters(uint16_t port_id, struct port_snap *s)
{
	struct dvp_xstat_name *names = NULL;
	struct dvp_xstat *vals = NULL;
	int n, i;

	n = dvp_xstats_get_names(port_id, NULL, 0);
	if (n <= 0)
		return;
	names = calloc((size_t)n, sizeof(*names));
	vals = calloc((size_t)n, sizeof(*vals));
	if (names == NULL || vals == NULL)
		goto out;
	if (dvp_xstats_get_names(port_id, names, (unsigned int)n) != n ||
	    dvp_xstats_get(port_id, vals, (unsigned int)n) != n)
		goto out;
	for (i = 0; i < n; i++) {
		const char *nm = names[vals[i].id < (uint64_t)n ? vals[i].id : (uint64_t)i].name;
		const char *f;

		if (strncmp(nm, "rx_q", 4) != 0 || (f = strstr(nm, "_intr_")) == NULL)
			continue;
		f += 6;
		if (strcmp(f, "wakeups") == 0) {
			s->wakeups += vals[i].value;
			s->intr_queues++;
		} else if (strcmp(f, "asleep_ns") == 0) {
			s->asleep_ns += vals[i].value;
		}
	}
out:
	free(names);
	free(vals);
}

static void snap(struct fwd_run *run, struct port_snap *out)
{
	unsigned int i, s;

	for (i = 0; i < run->nb_ports; i++) {
		struct fwd_port *fp = &run->ports[i];
		struct port_snap *ps = &out[i];

		memset(ps, 0, sizeof(*ps));
		dvp_stats_get(fp->port_id, &ps->st);
		if (fp->intr)
			intr_counters(fp->port_id, ps);
		for (s = 0; s < run->nb_streams; s++)
			if (run->streams[s].tx_port == fp->port_id)
				ps->fwd_dropped += __atomic_load_n(&run->streams[s].st.fwd_dropped,
								   __ATOMIC_RELAXED);
	}
}

int fwd_stats_init(struct fwd_run *run)
{
	memset(&S, 0, sizeof(S));
	snap(run, S.base);
	memcpy(S.prev, S.base, sizeof(S.prev));
	return 0;
}

void fwd_stats_final(struct fwd_run *run)
{
	snap(run, S.last);
}

/* Packets received and sent so far on every port: what a drain watches. */
uint64_t fwd_stats_moved(struct fwd_run *run)
{
	struct dvp_port_stats st;
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < run->nb_ports; i++)
		if (dvp_stats_get(run->ports[i].port_id, &st) == 0)
			n += st.ipackets + st.opackets + st.imissed;
	return n;
}

static double mpps(uint64_t pkts, double s)
{
	return s > 0 ? (double)pkts / s / 1e6 : 0;
}

static double gbps(uint64_t bytes, double s)
{
	return s > 0 ? (double)bytes * 8 / s / 1e9 : 0;
}

/* The port's drops between @a and @b: imissed, rx_nombuf, errors, fwd. */
struct drops {
	uint64_t imissed, nombuf, errors, fwd;
};

static struct drops drops_between(const struct port_snap *a, const struct port_snap *b)
{
	struct drops d = {
		.imissed = b->st.imissed - a->st.imissed,
		.nombuf = b->st.rx_nombuf - a->st.rx_nombuf,
		.errors = b->st.ierrors - a->st.ierrors + b->st.oerrors - a->st.oerrors,
		.fwd = b->fwd_dropped - a->fwd_dropped,
	};
	return d;
}

static double asleep_pct(const struct port_snap *a, const struct port_snap *b, double s)
{
	unsigned int q = DVP_MAX(b->intr_queues, 1u);
	double pct = s > 0 ? (double)(b->asleep_ns - a->asleep_ns) / 1e9 / s / q * 100 : 0;

	return DVP_MIN(pct, 100.0);
}

void fwd_stats_period(struct fwd_run *run, double now_s)
{
	struct port_snap cur[DVP_MAX_PORTS];
	double dt = now_s - S.prev_s;
	unsigned int i;

	snap(run, cur);
	for (i = 0; i < run->nb_ports; i++) {
		struct fwd_port *fp = &run->ports[i];
		const struct port_snap *a = &S.prev[i], *b = &cur[i];
		struct drops d = drops_between(a, b);
		uint64_t rx = b->st.ipackets - a->st.ipackets, tx = b->st.opackets - a->st.opackets;
		uint64_t rxb = b->st.ibytes - a->st.ibytes, txb = b->st.obytes - a->st.obytes;

		if (run->cfg.json) {
			struct dvp_json w;

			dvp_json_init_file(&w, run->out);
			dvp_json_obj_open(&w, NULL);
			dvp_json_str(&w, "type", "stats");
			dvp_json_fixed(&w, "time", now_s, 3);
			dvp_json_u64(&w, "port", fp->port_id);
			dvp_json_str(&w, "name", fp->name);
			dvp_json_fixed(&w, "rx_mpps", mpps(rx, dt), 6);
			dvp_json_fixed(&w, "rx_gbps", gbps(rxb, dt), 6);
			dvp_json_fixed(&w, "tx_mpps", mpps(tx, dt), 6);
			dvp_json_fixed(&w, "tx_gbps", gbps(txb, dt), 6);
			dvp_json_u64(&w, "rx_packets", rx);
			dvp_json_u64(&w, "tx_packets", tx);
			dvp_json_u64(&w, "imissed", d.imissed);
			dvp_json_u64(&w, "rx_nombuf", d.nombuf);
			dvp_json_u64(&w, "errors", d.errors);
			dvp_json_u64(&w, "fwd_dropped", d.fwd);
			if (fp->intr) {
				dvp_json_fixed(&w, "wakeups_per_s",
					       dt > 0 ? (double)(b->wakeups - a->wakeups) / dt : 0,
					       1);
				dvp_json_fixed(&w, "asleep_pct", asleep_pct(a, b, dt), 1);
			}
			dvp_json_obj_close(&w);
			fputc('\n', run->out);
			continue;
		}
		fprintf(run->out,
			"%7.1fs port %-2u rx %8.4f Mpps %7.3f Gbit/s | tx %8.4f Mpps %7.3f Gbit/s | "
			"drops: imissed %" PRIu64 " rx_nombuf %" PRIu64 " errors %" PRIu64
			" fwd %" PRIu64,
			now_s, fp->port_id, mpps(rx, dt), gbps(rxb, dt), mpps(tx, dt),
			gbps(txb, dt), d.imissed, d.nombuf, d.errors, d.fwd);
		if (fp->intr)
			fprintf(run->out, " | %.0f wakeups/s, %.1f%% asleep",
				dt > 0 ? (double)(b->wakeups - a->wakeups) / dt : 0,
				asleep_pct(a, b, dt));
		fprintf(run->out, "\n");
	}
	fflush(run->out);
	memcpy(S.prev, cur, sizeof(S.prev));
	S.prev_s = now_s;
	S.lines++;
}

void fwd_print_config(struct fwd_run *run)
{
	const struct fwd_config *cfg = &run->cfg;
	unsigned int i;
	char mac[32];

	if (cfg->json) {
		struct dvp_json w;

		dvp_json_init_file(&w, run->out);
		dvp_json_obj_open(&w, NULL);
		dvp_json_str(&w, "type", "config");
		dvp_json_str(&w, "forward_mode", fwd_mode_name(cfg->mode));
		dvp_json_str(&w, "rx_mode", fwd_rx_mode_name(cfg->rx_mode));
		dvp_json_u64(&w, "lcores", run->nb_lcores);
		dvp_json_u64(&w, "streams", run->nb_streams);
		dvp_json_u64(&w, "burst", cfg->burst);
		dvp_json_u64(&w, "mbufs", run->pool_size);
		dvp_json_arr_open(&w, "ports");
		for (i = 0; i < run->nb_ports; i++) {
			struct fwd_port *fp = &run->ports[i];

			dvp_ether_format_addr(mac, sizeof(mac), &fp->mac);
			dvp_json_obj_open(&w, NULL);
			dvp_json_u64(&w, "port", fp->port_id);
			dvp_json_str(&w, "name", fp->name);
			dvp_json_str(&w, "driver", fp->info.driver_name);
			dvp_json_str(&w, "mac", mac);
			dvp_json_u64(&w, "peer", fp->peer);
			dvp_json_u64(&w, "rxq", cfg->nb_rxq);
			dvp_json_u64(&w, "txq", cfg->nb_txq);
			dvp_json_u64(&w, "rxd", fp->nb_rxd);
			dvp_json_u64(&w, "txd", fp->nb_txd);
			dvp_json_str(&w, "rx_mode",
				     fp->rx_used ?
					     (fp->intr ? fwd_rx_mode_name(cfg->rx_mode) : "poll") :
					     "none");
			dvp_json_obj_close(&w);
		}
		dvp_json_arr_close(&w);
		dvp_json_obj_close(&w);
		fputc('\n', run->out);
		fflush(run->out);
		return;
	}
	fprintf(run->out, "%s%s forwarding%s, %u lcore%s, %u stream%s, burst %u, %u mbufs\n",
		col(run, C_BOLD), fwd_mode_name(cfg->mode), col(run, C_OFF), run->nb_lcores,
		run->nb_lcores == 1 ? "" : "s", run->nb_streams, run->nb_streams == 1 ? "" : "s",
		cfg->burst, run->pool_size);
	for (i = 0; i < run->nb_ports; i++) {
		struct fwd_port *fp = &run->ports[i];
		struct dvp_link link;
		char ls[64] = "link unknown";

		dvp_ether_format_addr(mac, sizeof(mac), &fp->mac);
		if (dvp_link_get_nowait(fp->port_id, &link) == 0) {
			dvp_link_to_str(ls, sizeof(ls), &link);
			fp->link_shown = link.link_status;
		}
		fprintf(run->out,
			"  port %u: %s (%s, node %d) %s%s, %s; %u rxq x %u, %u txq x %u; -> port %u; "
			"rx %s\n",
			fp->port_id, fp->name, fp->info.driver_name, fp->info.numa_node, mac,
			dvp_promiscuous_get(fp->port_id) == 1 ? " promiscuous" : "", ls,
			cfg->nb_rxq, fp->nb_rxd, cfg->nb_txq, fp->nb_txd, fp->peer,
			!fp->rx_used ? "unused" :
			fp->intr     ? fwd_rx_mode_name(cfg->rx_mode) :
				       "poll");
	}
	for (i = 0; i < run->nb_lcores; i++) {
		struct fwd_lcore *lc = &run->lcores[i];
		unsigned int s;

		fprintf(run->out, "  lcore %u (CPU %d, %s):", lc->lcore_id,
			dvp_lcore_to_cpu_id(lc->lcore_id),
			fwd_mode_receives(cfg->mode) ? fwd_rx_mode_name(lc->rx_mode) : "generate");
		for (s = 0; s < lc->nb_streams; s++) {
			struct fwd_stream *fs = lc->streams[s];

			if (fwd_mode_receives(cfg->mode) && cfg->mode != FWD_MODE_RXONLY)
				fprintf(run->out, " %u.%u->%u.%u", fs->rx_port, fs->rx_queue,
					fs->tx_port, fs->tx_queue);
			else if (cfg->mode == FWD_MODE_RXONLY)
				fprintf(run->out, " rx %u.%u", fs->rx_port, fs->rx_queue);
			else
				fprintf(run->out, " tx %u.%u", fs->tx_port, fs->tx_queue);
		}
		fprintf(run->out, "\n");
	}
	fflush(run->out);
}

/* ------------------------------------------------------------------------
 * Summary and verdict
 */

struct lcore_sum {
	uint64_t rx, tx, fwd_dropped, stop_dropped, nombuf;
	uint64_t rounds, empty, pauses, sleeps, wakeups, timeouts;
	uint64_t busy_cycles;
	double asleep_s;
};

static void lcore_sum(const struct fwd_lcore *lc, struct lcore_sum *ls)
{
	unsigned int s;

	memset(ls, 0, sizeof(*ls));
	for (s = 0; s < lc->nb_streams; s++) {
		const struct fwd_stream_stats *st = &lc->streams[s]->st;

		ls->rx += st->rx_packets;
		ls->tx += st->tx_packets;
		ls->fwd_dropped += st->fwd_dropped;
		ls->stop_dropped += st->stop_dropped;
		ls->nombuf += st->tx_nombuf;
		ls->busy_cycles += st->busy_cycles;
	}
	ls->rounds = lc->st.rounds;
	ls->empty = lc->st.empty_rounds;
	if (lc->gov != NULL) {
		struct dvp_rxwait_governor_stats g;

		dvp_rxwait_governor_stats_get(lc->gov, &g);
		ls->pauses = g.pauses;
		ls->sleeps = g.sleeps;
		ls->wakeups = g.wakeups;
		ls->timeouts = g.timeouts;
		ls->asleep_s = (double)g.asleep_ns / 1e9;
	} else {
		ls->sleeps = lc->st.sleeps;
		ls->wakeups = lc->st.wakeups;
		ls->timeouts = lc->st.timeouts;
		ls->asleep_s = (double)lc->st.asleep_cycles / (double)dvp_get_timer_hz();
	}
}

/* Packets lost on the ports, by their counters and the app's drops. */
static uint64_t port_loss(const struct fwd_port *fp, const struct port_snap *a,
			  const struct port_snap *b)
{
	struct drops d = drops_between(a, b);
	uint64_t loss = d.fwd;

	if (fp->rx_used)
		loss += d.imissed + d.nombuf + (b->st.ierrors - a->st.ierrors);
	if (fp->tx_used)
		loss += b->st.oerrors - a->st.oerrors;
	return loss;
}

/*
 * Frames the source sent that neither reached the sink (intact or
 * corrupt) nor are counted lost by now: still on their way, in a device,
 * a ring or an lcore. 0 when no sink checks the forwarded frames.
 */
uint64_t fwd_stats_in_flight(struct fwd_run *run)
{
	static struct port_snap now[DVP_MAX_PORTS];
	struct fwd_sim_verdict v;
	uint64_t seen;
	unsigned int i;

	if (!fwd_mode_receives(run->cfg.mode) || run->cfg.mode == FWD_MODE_RXONLY)
		return 0;
	fwd_sim_verdict(run, &v);
	if (!v.used)
		return 0;
	snap(run, now);
	seen = v.received + v.corrupt + v.wire_drops;
	for (i = 0; i < run->nb_ports; i++)
		seen += port_loss(&run->ports[i], &S.base[i], &now[i]);
	return v.sent > seen ? v.sent - seen : 0;
}

static void print_ports_text(struct fwd_run *run, double el)
{
	unsigned int i;

	fprintf(run->out, "%s%-5s %-16s %14s %14s %9s %9s %9s %9s %9s %9s %9s %7s%s\n",
		col(run, C_BOLD), "port", "name", "rx-packets", "tx-packets", "rx-Mpps", "tx-Mpps",
		"imissed", "rx_nombuf", "errors", "fwd-drop", "wakeups", "asleep", col(run, C_OFF));
	for (i = 0; i < run->nb_ports; i++) {
		struct fwd_port *fp = &run->ports[i];
		const struct port_snap *a = &S.base[i], *b = &S.last[i];
		struct drops d = drops_between(a, b);
		uint64_t rx = b->st.ipackets - a->st.ipackets, tx = b->st.opackets - a->st.opackets;
		char wake[24] = "-", asleep[16] = "-";

		if (fp->intr) {
			snprintf(wake, sizeof(wake), "%" PRIu64, b->wakeups - a->wakeups);
			snprintf(asleep, sizeof(asleep), "%.1f%%", asleep_pct(a, b, el));
		}
		fprintf(run->out,
			"%-5u %-16.16s %14" PRIu64 " %14" PRIu64 " %9.4f %9.4f %9" PRIu64
			" %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9s %7s\n",
			fp->port_id, fp->name, rx, tx, mpps(rx, el), mpps(tx, el), d.imissed,
			d.nombuf, d.errors, d.fwd, wake, asleep);
	}
}

static void print_lcores_text(struct fwd_run *run, double el)
{
	unsigned int i;

	fprintf(run->out, "%s%-5s %-8s %14s %14s %9s %12s %7s %9s %9s %9s %9s %7s%s\n",
		col(run, C_BOLD), "lcore", "rx-mode", "rx-packets", "tx-packets", "fwd-drop",
		"rounds", "empty", "pauses", "sleeps", "wakeups", "timeouts", "asleep",
		col(run, C_OFF));
	for (i = 0; i < run->nb_lcores; i++) {
		struct fwd_lcore *lc = &run->lcores[i];
		struct lcore_sum ls;
		char asleep[16] = "-";

		lcore_sum(lc, &ls);
		if (lc->rx_mode != FWD_RX_POLL && el > 0)
			snprintf(asleep, sizeof(asleep), "%.1f%%",
				 DVP_MIN(ls.asleep_s / el * 100, 100.0));
		fprintf(run->out,
			"%-5u %-8s %14" PRIu64 " %14" PRIu64 " %9" PRIu64 " %12" PRIu64
			" %6.1f%% %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %7s\n",
			lc->lcore_id,
			fwd_mode_receives(run->cfg.mode) ? fwd_rx_mode_name(lc->rx_mode) :
							   "generate",
			ls.rx, ls.tx, ls.fwd_dropped, ls.rounds,
			ls.rounds ? (double)ls.empty / (double)ls.rounds * 100 : 0.0, ls.pauses,
			ls.sleeps, ls.wakeups, ls.timeouts, asleep);
	}
}

/*
 * --record-core-cycles: busy cycles over the packets received (sent, for the
 * generators), in testpmd's words so that one parser reads both.
 */
static void cycles_sum(struct fwd_run *run, uint64_t *cycles, uint64_t *pkts)
{
	unsigned int i;

	*cycles = *pkts = 0;
	for (i = 0; i < run->nb_lcores; i++) {
		struct lcore_sum ls;

		lcore_sum(&run->lcores[i], &ls);
		*cycles += ls.busy_cycles;
		*pkts += fwd_mode_receives(run->cfg.mode) ? ls.rx : ls.tx;
	}
}

static void print_cycles_text(struct fwd_run *run)
{
	uint64_t cycles, pkts;

	cycles_sum(run, &cycles, &pkts);
	fprintf(run->out,
		"CPU cycles/packet=%.2f (total cycles=%" PRIu64 " / total %s packets=%" PRIu64
		") at %" PRIu64 " MHz Clock\n\n",
		pkts ? (double)cycles / (double)pkts : 0.0, cycles, fwd_mode_name(run->cfg.mode),
		pkts, dvp_get_tsc_hz() / 1000000);
}

/* -v: every xstat of every port that is not zero. */
static void print_xstats(struct fwd_run *run)
{
	unsigned int i;

	for (i = 0; i < run->nb_ports; i++) {
		uint16_t p = run->ports[i].port_id;
		struct dvp_xstat_name *names;
		struct dvp_xstat *vals;
		int n = dvp_xstats_get_names(p, NULL, 0), k;

		if (n <= 0)
			continue;
		names = calloc((size_t)n, sizeof(*names));
		vals = calloc((size_t)n, sizeof(*vals));
		if (names != NULL && vals != NULL &&
		    dvp_xstats_get_names(p, names, (unsigned int)n) == n &&
		    dvp_xstats_get(p, vals, (unsigned int)n) == n) {
			fprintf(run->out, "port %u xstats (not zero):", p);
			for (k = 0; k < n; k++)
				if (vals[k].value != 0 && vals[k].id < (uint64_t)n)
					fprintf(run->out, " %s=%" PRIu64, names[vals[k].id].name,
						vals[k].value);
			fprintf(run->out, "\n");
		}
		free(names);
		free(vals);
	}
}

static void print_json(struct fwd_run *run, double el, const struct fwd_sim_verdict *v,
		       uint64_t uncounted, uint64_t loss, double loss_pct,
		       const struct fwd_result *res, bool pass)
{
	struct dvp_json w;
	unsigned int i;

	dvp_json_init_file(&w, run->out);
	dvp_json_obj_open(&w, NULL);
	dvp_json_str(&w, "type", "summary");
	dvp_json_fixed(&w, "elapsed", el, 3);
	dvp_json_str(&w, "forward_mode", fwd_mode_name(run->cfg.mode));
	dvp_json_arr_open(&w, "ports");
	for (i = 0; i < run->nb_ports; i++) {
		struct fwd_port *fp = &run->ports[i];
		const struct port_snap *a = &S.base[i], *b = &S.last[i];
		struct drops d = drops_between(a, b);
		uint64_t rx = b->st.ipackets - a->st.ipackets, tx = b->st.opackets - a->st.opackets;

		dvp_json_obj_open(&w, NULL);
		dvp_json_u64(&w, "port", fp->port_id);
		dvp_json_str(&w, "name", fp->name);
		dvp_json_u64(&w, "rx_packets", rx);
		dvp_json_u64(&w, "tx_packets", tx);
		dvp_json_u64(&w, "rx_bytes", b->st.ibytes - a->st.ibytes);
		dvp_json_u64(&w, "tx_bytes", b->st.obytes - a->st.obytes);
		dvp_json_fixed(&w, "rx_mpps", mpps(rx, el), 6);
		dvp_json_fixed(&w, "tx_mpps", mpps(tx, el), 6);
		dvp_json_u64(&w, "imissed", d.imissed);
		dvp_json_u64(&w, "rx_nombuf", d.nombuf);
		dvp_json_u64(&w, "errors", d.errors);
		dvp_json_u64(&w, "fwd_dropped", d.fwd);
		dvp_json_u64(&w, "queue_errors",
			     __atomic_load_n(&fp->queue_errors, __ATOMIC_RELAXED));
		if (fp->intr) {
			dvp_json_u64(&w, "wakeups", b->wakeups - a->wakeups);
			dvp_json_fixed(&w, "asleep_pct", asleep_pct(a, b, el), 1);
		}
		dvp_json_obj_close(&w);
	}
	dvp_json_arr_close(&w);
	dvp_json_arr_open(&w, "lcores");
	for (i = 0; i < run->nb_lcores; i++) {
		struct fwd_lcore *lc = &run->lcores[i];
		struct lcore_sum ls;

		lcore_sum(lc, &ls);
		dvp_json_obj_open(&w, NULL);
		dvp_json_u64(&w, "lcore", lc->lcore_id);
		dvp_json_str(&w, "rx_mode", fwd_rx_mode_name(lc->rx_mode));
		dvp_json_u64(&w, "streams", lc->nb_streams);
		dvp_json_u64(&w, "rx_packets", ls.rx);
		dvp_json_u64(&w, "tx_packets", ls.tx);
		dvp_json_u64(&w, "fwd_dropped", ls.fwd_dropped);
		dvp_json_u64(&w, "stop_dropped", ls.stop_dropped);
		dvp_json_u64(&w, "rounds", ls.rounds);
		dvp_json_u64(&w, "empty_rounds", ls.empty);
		dvp_json_u64(&w, "pauses", ls.pauses);
		dvp_json_u64(&w, "sleeps", ls.sleeps);
		dvp_json_u64(&w, "wakeups", ls.wakeups);
		dvp_json_u64(&w, "timeouts", ls.timeouts);
		dvp_json_fixed(&w, "asleep_s", ls.asleep_s, 3);
		dvp_json_obj_close(&w);
	}
	dvp_json_arr_close(&w);
	if (run->cfg.record_cycles) {
		uint64_t cycles, pkts;

		cycles_sum(run, &cycles, &pkts);
		dvp_json_u64(&w, "busy_cycles", cycles);
		dvp_json_u64(&w, "cycles_packets", pkts);
		dvp_json_fixed(&w, "cycles_per_packet", pkts ? (double)cycles / (double)pkts : 0.0,
			       2);
		dvp_json_u64(&w, "tsc_hz", dvp_get_tsc_hz());
	}
	if (v->used) {
		dvp_json_obj_open(&w, "sink");
		dvp_json_u64(&w, "sent", v->sent);
		dvp_json_u64(&w, "received", v->received);
		dvp_json_u64(&w, "lost", v->lost);
		dvp_json_u64(&w, "missing", v->sent > v->received ? v->sent - v->received : 0);
		dvp_json_u64(&w, "reordered", v->reordered);
		dvp_json_u64(&w, "duplicates", v->duplicates);
		dvp_json_u64(&w, "corrupt", v->corrupt);
		dvp_json_u64(&w, "foreign", v->foreign);
		dvp_json_u64(&w, "wire_drops", v->wire_drops);
		dvp_json_u64(&w, "uncounted", uncounted);
		dvp_json_obj_close(&w);
	}
	dvp_json_obj_open(&w, "pool");
	dvp_json_u64(&w, "size", run->pool_size);
	dvp_json_u64(&w, "in_use", res->pool_in_use);
	dvp_json_obj_close(&w);
	dvp_json_bool(&w, "drained", res->drained);
	dvp_json_u64(&w, "lost", loss);
	dvp_json_fixed(&w, "lost_pct", loss_pct, 6);
	dvp_json_double(&w, "max_loss_pct", run->cfg.max_loss_pct);
	dvp_json_u64(&w, "errors", res->errors);
	dvp_json_str(&w, "result", pass ? "pass" : "fail");
	dvp_json_obj_close(&w);
	fputc('\n', run->out);
}

/*
 * Print the summary and decide the exit status: FWD_EXIT_FAIL when more
 * was lost than --max-loss allows, when an lcore or the teardown failed, or
 * when the pool is not full.
 */
/*
 * Frames the sink misses that no counter saw: not the ports' loss
 * counters, not the lcores' drops at the stop, not the sim's wire. A
 * driver that loses frames uncounted shows here (sent = received + every
 * loss counter).
 */
static uint64_t sink_uncounted(struct fwd_run *run, const struct fwd_sim_verdict *v,
			       uint64_t port_losses)
{
	uint64_t missing = v->sent > v->received ? v->sent - v->received : 0;
	uint64_t seen = port_losses + v->wire_drops;
	unsigned int i;

	for (i = 0; i < run->nb_lcores; i++) {
		struct lcore_sum ls;

		lcore_sum(&run->lcores[i], &ls);
		seen += ls.stop_dropped;
	}
	return missing > seen ? missing - seen : 0;
}

int fwd_summary(struct fwd_run *run, double el, const struct fwd_result *res)
{
	struct fwd_sim_verdict v;
	uint64_t loss = 0, handled = 0, missing, uncounted;
	double loss_pct;
	unsigned int i;
	bool pass;

	fwd_sim_verdict(run, &v);
	for (i = 0; i < run->nb_ports; i++) {
		const struct port_snap *a = &S.base[i], *b = &S.last[i];

		loss += port_loss(&run->ports[i], a, b);
		handled += run->ports[i].rx_used ? b->st.ipackets - a->st.ipackets :
						   b->st.opackets - a->st.opackets;
	}
	uncounted = sink_uncounted(run, &v, loss);
	handled += loss;
	if (v.used && v.sent != 0 && fwd_mode_receives(run->cfg.mode) &&
	    run->cfg.mode != FWD_MODE_RXONLY) {
		/*
		 * The sink sees the same packets end to end: what the source
		 * sent and the sink never received (after the drain) is lost,
		 * whichever counter saw it on the way, so take the larger count.
		 */
		missing = v.sent > v.received ? v.sent - v.received : 0;
		loss = DVP_MAX(loss, missing);
		handled = DVP_MAX(handled, v.sent);
	}
	loss_pct = handled ? (double)loss / (double)handled * 100 : 0;
	pass = res->errors == 0 && res->pool_in_use == 0 &&
	       (loss == 0 || (run->cfg.max_loss_pct > 0 && loss_pct <= run->cfg.max_loss_pct));
	if (run->cfg.json) {
		print_json(run, el, &v, uncounted, loss, loss_pct, res, pass);
		fflush(run->out);
		return pass ? FWD_EXIT_OK : FWD_EXIT_FAIL;
	}
	fprintf(run->out, "\n%sSummary%s after %.1f s: %s forwarding\n", col(run, C_BOLD),
		col(run, C_OFF), el, fwd_mode_name(run->cfg.mode));
	print_ports_text(run, el);
	fprintf(run->out, "\n");
	print_lcores_text(run, el);
	fprintf(run->out, "\n");
	if (run->cfg.record_cycles)
		print_cycles_text(run);
	if (run->cfg.verbose)
		print_xstats(run);
	if (v.used) {
		missing = v.sent > v.received ? v.sent - v.received : 0;
		if (!fwd_mode_receives(run->cfg.mode))
			fprintf(run->out,
				"sink: %" PRIu64
				" frames of dvp-fwd's own (foreign to its checks), "
				"corrupt %" PRIu64 "\n",
				v.foreign, v.corrupt);
		else if (run->cfg.mode == FWD_MODE_RXONLY)
			fprintf(run->out,
				"sink: source sent %" PRIu64
				"; rxonly forwards nothing to the sink\n",
				v.sent);
		else
			fprintf(run->out,
				"sink: source sent %" PRIu64 ", sink received %" PRIu64
				" intact: missing %" PRIu64 " (gaps %" PRIu64
				"), reordered %" PRIu64 ", duplicates %" PRIu64 ", corrupt %" PRIu64
				", foreign %" PRIu64 "; wire drops %" PRIu64
				", seen by no counter %" PRIu64 "\n",
				v.sent, v.received, missing, v.lost, v.reordered, v.duplicates,
				v.corrupt, v.foreign, v.wire_drops, uncounted);
	}
	if (!res->drained)
		fprintf(run->out,
			"drain: traffic was still moving or in flight when the run stopped\n");
	fprintf(run->out, "pool: %u of %u mbufs back%s\n", run->pool_size - res->pool_in_use,
		run->pool_size, res->pool_in_use ? " (mbufs were lost!)" : "");
	if (pass)
		fprintf(run->out, "result: %sPASS%s: %" PRIu64 " packets lost (%.4f%%)%s\n",
			col(run, C_GREEN), col(run, C_OFF), loss, loss_pct,
			loss ? ", within --max-loss" : "");
	else if (loss != 0 && !(run->cfg.max_loss_pct > 0 && loss_pct <= run->cfg.max_loss_pct))
		fprintf(run->out,
			"result: %sFAIL%s: %" PRIu64 " packets lost (%.4f%%), more than --max-loss "
			"%g%%\n",
			col(run, C_RED), col(run, C_OFF), loss, loss_pct, run->cfg.max_loss_pct);
	else
		fprintf(run->out, "result: %sFAIL%s: %u error%s during the run (see above)\n",
			col(run, C_RED), col(run, C_OFF), res->errors, res->errors == 1 ? "" : "s");
	fflush(run->out);
	return pass ? FWD_EXIT_OK : FWD_EXIT_FAIL;
}
