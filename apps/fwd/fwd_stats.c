/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * dvp-fwd's counters and the lines it prints while it runs: the ports'
 * counters snapshotted at start, at each stats period and at the end, the
 * sums the summary reads (per lcore, loss per port, busy cycles), frames
 * still in flight for the drain; the configuration lines and one line per
 * port every stats period. Text for people (colour only on a terminal),
 * or JSON objects one per line (fwd_json.c).
 */

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <dvp_cycles.h>

#include "fwd_stats.h"

struct fwd_snaps fwd_snaps;

/* Interrupt counters of the port's rx queues, from its xstats rx_q<N>_intr_*. */
static void intr_counters(uint16_t port_id, struct fwd_port_snap *s)
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

static void snap(struct fwd_run *run, struct fwd_port_snap *out)
{
	unsigned int i, s;

	for (i = 0; i < run->nb_ports; i++) {
		struct fwd_port *fp = &run->ports[i];
		struct fwd_port_snap *ps = &out[i];

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
	memset(&fwd_snaps, 0, sizeof(fwd_snaps));
	snap(run, fwd_snaps.base);
	memcpy(fwd_snaps.prev, fwd_snaps.base, sizeof(fwd_snaps.prev));
	return 0;
}

void fwd_stats_final(struct fwd_run *run)
{
	snap(run, fwd_snaps.last);
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

void fwd_lcore_sum(const struct fwd_lcore *lc, struct fwd_lcore_sum *ls)
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
uint64_t fwd_port_loss(const struct fwd_port *fp, const struct fwd_port_snap *a,
		       const struct fwd_port_snap *b)
{
	struct fwd_drops d = fwd_drops_between(a, b);
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
	static struct fwd_port_snap now[DVP_MAX_PORTS];
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
		seen += fwd_port_loss(&run->ports[i], &fwd_snaps.base[i], &now[i]);
	return v.sent > seen ? v.sent - seen : 0;
}

/*
 * --record-core-cycles: busy cycles over the packets received (sent, for the
 * generators), in testpmd's words so that one parser reads both.
 */
void fwd_cycles_sum(struct fwd_run *run, uint64_t *cycles, uint64_t *pkts)
{
	unsigned int i;

	*cycles = *pkts = 0;
	for (i = 0; i < run->nb_lcores; i++) {
		struct fwd_lcore_sum ls;

		fwd_lcore_sum(&run->lcores[i], &ls);
		*cycles += ls.busy_cycles;
		*pkts += fwd_mode_receives(run->cfg.mode) ? ls.rx : ls.tx;
	}
}

void fwd_stats_period(struct fwd_run *run, double now_s)
{
	struct fwd_port_snap cur[DVP_MAX_PORTS];
	double dt = now_s - fwd_snaps.prev_s;
	unsigned int i;

	snap(run, cur);
	for (i = 0; i < run->nb_ports; i++) {
		struct fwd_port *fp = &run->ports[i];
		const struct fwd_port_snap *a = &fwd_snaps.prev[i], *b = &cur[i];
		struct fwd_drops d;
		uint64_t rx, tx, rxb, txb;

		if (run->cfg.json) {
			fwd_json_stats(run, fp, now_s, dt, a, b);
			continue;
		}
		d = fwd_drops_between(a, b);
		rx = b->st.ipackets - a->st.ipackets;
		tx = b->st.opackets - a->st.opackets;
		rxb = b->st.ibytes - a->st.ibytes;
		txb = b->st.obytes - a->st.obytes;
		fprintf(run->out,
			"%7.1fs port %-2u rx %8.4f Mpps %7.3f Gbit/s | tx %8.4f Mpps %7.3f Gbit/s | "
			"drops: imissed %" PRIu64 " rx_nombuf %" PRIu64 " errors %" PRIu64
			" fwd %" PRIu64,
			now_s, fp->port_id, fwd_mpps(rx, dt), fwd_gbps(rxb, dt), fwd_mpps(tx, dt),
			fwd_gbps(txb, dt), d.imissed, d.nombuf, d.errors, d.fwd);
		if (fp->intr)
			fprintf(run->out, " | %.0f wakeups/s, %.1f%% asleep",
				dt > 0 ? (double)(b->wakeups - a->wakeups) / dt : 0,
				fwd_asleep_pct(a, b, dt));
		fprintf(run->out, "\n");
	}
	fflush(run->out);
	memcpy(fwd_snaps.prev, cur, sizeof(fwd_snaps.prev));
	fwd_snaps.prev_s = now_s;
	fwd_snaps.lines++;
}

void fwd_print_config(struct fwd_run *run)
{
	const struct fwd_config *cfg = &run->cfg;
	unsigned int i;
	char mac[32];

	if (cfg->json) {
		fwd_json_config(run);
		return;
	}
	fprintf(run->out, "%s%s forwarding%s, %u lcore%s, %u stream%s, burst %u, %u mbufs\n",
		fwd_col(run, FWD_C_BOLD), fwd_mode_name(cfg->mode), fwd_col(run, FWD_C_OFF),
		run->nb_lcores, run->nb_lcores == 1 ? "" : "s", run->nb_streams,
		run->nb_streams == 1 ? "" : "s", cfg->burst, run->pool_size);
	for (i = 0; i < run->nb_ports; i++) {
		struct fwd_port *fp = &run->ports[i];
		struct dvp_link link;
		char ls[64] = "link unknown";

		dvp_ether_format_addr(mac, sizeof(mac), &fp->mac);
		if (dvp_link_get_nowait(fp->port_id, &link) == 0) {
			dvp_link_to_str(ls, sizeof(ls), &link);
			__atomic_store_n(&fp->link_shown, (int)link.link_status, __ATOMIC_RELAXED);
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
