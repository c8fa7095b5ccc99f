/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * dvp-fwd --json: what the text lines say, as one object a line for
 * scripts and tests: the configuration ("type": "config"), each port every
 * stats period ("stats") and the summary with the loss check's verdict
 * ("summary"). Written with the dvp_json writer, which escapes names.
 */

#include <dvp_cycles.h>
#include <dvp_json.h>

#include "fwd_stats.h"

void fwd_json_config(struct fwd_run *run)
{
	const struct fwd_config *cfg = &run->cfg;
	unsigned int i;
	struct dvp_json w;
	char mac[32];

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
			     fp->rx_used ? (fp->intr ? fwd_rx_mode_name(cfg->rx_mode) : "poll") :
					   "none");
		dvp_json_obj_close(&w);
	}
	dvp_json_arr_close(&w);
	dvp_json_obj_close(&w);
	fputc('\n', run->out);
	fflush(run->out);
}

void fwd_json_stats(struct fwd_run *run, const struct fwd_port *fp, double now_s, double dt,
		    const struct fwd_port_snap *a, const struct fwd_port_snap *b)
{
	struct fwd_drops d = fwd_drops_between(a, b);
	uint64_t rx = b->st.ipackets - a->st.ipackets, tx = b->st.opackets - a->st.opackets;
	uint64_t rxb = b->st.ibytes - a->st.ibytes, txb = b->st.obytes - a->st.obytes;
	struct dvp_json w;

	dvp_json_init_file(&w, run->out);
	dvp_json_obj_open(&w, NULL);
	dvp_json_str(&w, "type", "stats");
	dvp_json_fixed(&w, "time", now_s, 3);
	dvp_json_u64(&w, "port", fp->port_id);
	dvp_json_str(&w, "name", fp->name);
	dvp_json_fixed(&w, "rx_mpps", fwd_mpps(rx, dt), 6);
	dvp_json_fixed(&w, "rx_gbps", fwd_gbps(rxb, dt), 6);
	dvp_json_fixed(&w, "tx_mpps", fwd_mpps(tx, dt), 6);
	dvp_json_fixed(&w, "tx_gbps", fwd_gbps(txb, dt), 6);
	dvp_json_u64(&w, "rx_packets", rx);
	dvp_json_u64(&w, "tx_packets", tx);
	dvp_json_u64(&w, "imissed", d.imissed);
	dvp_json_u64(&w, "rx_nombuf", d.nombuf);
	dvp_json_u64(&w, "errors", d.errors);
	dvp_json_u64(&w, "fwd_dropped", d.fwd);
	if (fp->intr) {
		dvp_json_fixed(&w, "wakeups_per_s",
			       dt > 0 ? (double)(b->wakeups - a->wakeups) / dt : 0, 1);
		dvp_json_fixed(&w, "asleep_pct", fwd_asleep_pct(a, b, dt), 1);
	}
	dvp_json_obj_close(&w);
	fputc('\n', run->out);
}

void fwd_json_summary(struct fwd_run *run, double el, const struct fwd_verdict *vd,
		      const struct fwd_result *res)
{
	const struct fwd_sim_verdict *v = &vd->sink;
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
		const struct fwd_port_snap *a = &fwd_snaps.base[i], *b = &fwd_snaps.last[i];
		struct fwd_drops d = fwd_drops_between(a, b);
		uint64_t rx = b->st.ipackets - a->st.ipackets, tx = b->st.opackets - a->st.opackets;

		dvp_json_obj_open(&w, NULL);
		dvp_json_u64(&w, "port", fp->port_id);
		dvp_json_str(&w, "name", fp->name);
		dvp_json_u64(&w, "rx_packets", rx);
		dvp_json_u64(&w, "tx_packets", tx);
		dvp_json_u64(&w, "rx_bytes", b->st.ibytes - a->st.ibytes);
		dvp_json_u64(&w, "tx_bytes", b->st.obytes - a->st.obytes);
		dvp_json_fixed(&w, "rx_mpps", fwd_mpps(rx, el), 6);
		dvp_json_fixed(&w, "tx_mpps", fwd_mpps(tx, el), 6);
		dvp_json_u64(&w, "imissed", d.imissed);
		dvp_json_u64(&w, "rx_nombuf", d.nombuf);
		dvp_json_u64(&w, "errors", d.errors);
		dvp_json_u64(&w, "fwd_dropped", d.fwd);
		dvp_json_u64(&w, "queue_errors",
			     __atomic_load_n(&fp->queue_errors, __ATOMIC_RELAXED));
		if (fp->intr) {
			dvp_json_u64(&w, "wakeups", b->wakeups - a->wakeups);
			dvp_json_fixed(&w, "asleep_pct", fwd_asleep_pct(a, b, el), 1);
		}
		dvp_json_obj_close(&w);
	}
	dvp_json_arr_close(&w);
	dvp_json_arr_open(&w, "lcores");
	for (i = 0; i < run->nb_lcores; i++) {
		struct fwd_lcore *lc = &run->lcores[i];
		struct fwd_lcore_sum ls;

		fwd_lcore_sum(lc, &ls);
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

		fwd_cycles_sum(run, &cycles, &pkts);
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
		dvp_json_u64(&w, "uncounted", vd->uncounted);
		dvp_json_obj_close(&w);
	}
	dvp_json_obj_open(&w, "pool");
	dvp_json_u64(&w, "size", run->pool_size);
	dvp_json_u64(&w, "in_use", res->pool_in_use);
	dvp_json_obj_close(&w);
	dvp_json_bool(&w, "drained", res->drained);
	dvp_json_u64(&w, "lost", vd->loss);
	dvp_json_fixed(&w, "lost_pct", vd->loss_pct, 6);
	dvp_json_double(&w, "max_loss_pct", run->cfg.max_loss_pct);
	dvp_json_u64(&w, "errors", res->errors);
	dvp_json_str(&w, "result", vd->pass ? "pass" : "fail");
	dvp_json_obj_close(&w);
	fputc('\n', run->out);
}
