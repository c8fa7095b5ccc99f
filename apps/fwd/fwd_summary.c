/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * dvp-fwd's summary at the end of a run: per port and per lcore, busy
 * cycles, the non-zero xstats with -v, the sink's verdict, and the loss
 * check that decides the exit status; as text or as one JSON object
 * (fwd_json.c).
 */

#include <inttypes.h>
#include <stdlib.h>

#include <dvp_cycles.h>

#include "fwd_stats.h"

static void print_ports_text(struct fwd_run *run, double el)
{
	unsigned int i;

	fprintf(run->out, "%s%-5s %-16s %14s %14s %9s %9s %9s %9s %9s %9s %9s %7s%s\n",
		fwd_col(run, FWD_C_BOLD), "port", "name", "rx-packets", "tx-packets", "rx-Mpps",
		"tx-Mpps", "imissed", "rx_nombuf", "errors", "fwd-drop", "wakeups", "asleep",
		fwd_col(run, FWD_C_OFF));
	for (i = 0; i < run->nb_ports; i++) {
		struct fwd_port *fp = &run->ports[i];
		const struct fwd_port_snap *a = &fwd_snaps.base[i], *b = &fwd_snaps.last[i];
		struct fwd_drops d = fwd_drops_between(a, b);
		uint64_t rx = b->st.ipackets - a->st.ipackets, tx = b->st.opackets - a->st.opackets;
		char wake[24] = "-", asleep[16] = "-";

		if (fp->intr) {
			snprintf(wake, sizeof(wake), "%" PRIu64, b->wakeups - a->wakeups);
			snprintf(asleep, sizeof(asleep), "%.1f%%", fwd_asleep_pct(a, b, el));
		}
		fprintf(run->out,
			"%-5u %-16.16s %14" PRIu64 " %14" PRIu64 " %9.4f %9.4f %9" PRIu64
			" %9" PRIu64 " %9" PRIu64 " %9" PRIu64 " %9s %7s\n",
			fp->port_id, fp->name, rx, tx, fwd_mpps(rx, el), fwd_mpps(tx, el),
			d.imissed, d.nombuf, d.errors, d.fwd, wake, asleep);
	}
}

static void print_lcores_text(struct fwd_run *run, double el)
{
	unsigned int i;

	fprintf(run->out, "%s%-5s %-8s %14s %14s %9s %12s %7s %9s %9s %9s %9s %7s%s\n",
		fwd_col(run, FWD_C_BOLD), "lcore", "rx-mode", "rx-packets", "tx-packets",
		"fwd-drop", "rounds", "empty", "pauses", "sleeps", "wakeups", "timeouts", "asleep",
		fwd_col(run, FWD_C_OFF));
	for (i = 0; i < run->nb_lcores; i++) {
		struct fwd_lcore *lc = &run->lcores[i];
		struct fwd_lcore_sum ls;
		char asleep[16] = "-";

		fwd_lcore_sum(lc, &ls);
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

static void print_cycles_text(struct fwd_run *run)
{
	uint64_t cycles, pkts;

	fwd_cycles_sum(run, &cycles, &pkts);
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
		struct fwd_lcore_sum ls;

		fwd_lcore_sum(&run->lcores[i], &ls);
		seen += ls.stop_dropped;
	}
	return missing > seen ? missing - seen : 0;
}

/*
 * The loss check: what the ports' counters and the app's drops say was
 * lost, or what the sink missed when it is larger; the run passes when
 * that is within --max-loss, no lcore or teardown failed and the pool is
 * full.
 */
static void loss_check(struct fwd_run *run, const struct fwd_result *res, struct fwd_verdict *vd)
{
	const struct fwd_sim_verdict *v = &vd->sink;
	uint64_t loss = 0, handled = 0, missing;
	unsigned int i;

	fwd_sim_verdict(run, &vd->sink);
	for (i = 0; i < run->nb_ports; i++) {
		const struct fwd_port_snap *a = &fwd_snaps.base[i], *b = &fwd_snaps.last[i];

		loss += fwd_port_loss(&run->ports[i], a, b);
		handled += run->ports[i].rx_used ? b->st.ipackets - a->st.ipackets :
						   b->st.opackets - a->st.opackets;
	}
	vd->uncounted = sink_uncounted(run, v, loss);
	handled += loss;
	if (v->used && v->sent != 0 && fwd_mode_receives(run->cfg.mode) &&
	    run->cfg.mode != FWD_MODE_RXONLY) {
		/*
		 * The sink sees the same packets end to end: what the source
		 * sent and the sink never received (after the drain) is lost,
		 * whichever counter saw it on the way, so take the larger count.
		 */
		missing = v->sent > v->received ? v->sent - v->received : 0;
		loss = DVP_MAX(loss, missing);
		handled = DVP_MAX(handled, v->sent);
	}
	vd->loss = loss;
	vd->loss_pct = handled ? (double)loss / (double)handled * 100 : 0;
	vd->pass =
		res->errors == 0 && res->pool_in_use == 0 &&
		(loss == 0 || (run->cfg.max_loss_pct > 0 && vd->loss_pct <= run->cfg.max_loss_pct));
}

static void print_sink_text(struct fwd_run *run, const struct fwd_verdict *vd)
{
	const struct fwd_sim_verdict *v = &vd->sink;
	uint64_t missing = v->sent > v->received ? v->sent - v->received : 0;

	if (!fwd_mode_receives(run->cfg.mode))
		fprintf(run->out,
			"sink: %" PRIu64 " frames of dvp-fwd's own (foreign to its checks), "
			"corrupt %" PRIu64 "\n",
			v->foreign, v->corrupt);
	else if (run->cfg.mode == FWD_MODE_RXONLY)
		fprintf(run->out,
			"sink: source sent %" PRIu64 "; rxonly forwards nothing to the sink\n",
			v->sent);
	else
		fprintf(run->out,
			"sink: source sent %" PRIu64 ", sink received %" PRIu64
			" intact: missing %" PRIu64 " (gaps %" PRIu64 "), reordered %" PRIu64
			", duplicates %" PRIu64 ", corrupt %" PRIu64 ", foreign %" PRIu64
			"; wire drops %" PRIu64 ", seen by no counter %" PRIu64 "\n",
			v->sent, v->received, missing, v->lost, v->reordered, v->duplicates,
			v->corrupt, v->foreign, v->wire_drops, vd->uncounted);
}

static void print_result_text(struct fwd_run *run, const struct fwd_verdict *vd,
			      const struct fwd_result *res)
{
	if (vd->pass)
		fprintf(run->out, "result: %sPASS%s: %" PRIu64 " packets lost (%.4f%%)%s\n",
			fwd_col(run, FWD_C_GREEN), fwd_col(run, FWD_C_OFF), vd->loss, vd->loss_pct,
			vd->loss ? ", within --max-loss" : "");
	else if (vd->loss != 0 &&
		 !(run->cfg.max_loss_pct > 0 && vd->loss_pct <= run->cfg.max_loss_pct))
		fprintf(run->out,
			"result: %sFAIL%s: %" PRIu64 " packets lost (%.4f%%), more than --max-loss "
			"%g%%\n",
			fwd_col(run, FWD_C_RED), fwd_col(run, FWD_C_OFF), vd->loss, vd->loss_pct,
			run->cfg.max_loss_pct);
	else
		fprintf(run->out, "result: %sFAIL%s: %u error%s during the run (see above)\n",
			fwd_col(run, FWD_C_RED), fwd_col(run, FWD_C_OFF), res->errors,
			res->errors == 1 ? "" : "s");
}

/* Print the summary; @return the exit status the loss check decides. */
int fwd_summary(struct fwd_run *run, double el, const struct fwd_result *res)
{
	struct fwd_verdict vd;

	loss_check(run, res, &vd);
	if (run->cfg.json) {
		fwd_json_summary(run, el, &vd, res);
		fflush(run->out);
		return vd.pass ? FWD_EXIT_OK : FWD_EXIT_FAIL;
	}
	fprintf(run->out, "\n%sSummary%s after %.1f s: %s forwarding\n", fwd_col(run, FWD_C_BOLD),
		fwd_col(run, FWD_C_OFF), el, fwd_mode_name(run->cfg.mode));
	print_ports_text(run, el);
	fprintf(run->out, "\n");
	print_lcores_text(run, el);
	fprintf(run->out, "\n");
	if (run->cfg.record_cycles)
		print_cycles_text(run);
	if (run->cfg.verbose)
		print_xstats(run);
	if (vd.sink.used)
		print_sink_text(run, &vd);
	if (!res->drained)
		fprintf(run->out,
			"drain: traffic was still moving or in flight when the run stopped\n");
	fprintf(run->out, "pool: %u of %u mbufs back%s\n", run->pool_size - res->pool_in_use,
		run->pool_size, res->pool_in_use ? " (mbufs were lost!)" : "");
	print_result_text(run, &vd, res);
	fflush(run->out);
	return vd.pass ? FWD_EXIT_OK : FWD_EXIT_FAIL;
}
