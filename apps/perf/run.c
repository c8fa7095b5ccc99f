/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* dvp-perf: the server, the latency and throughput clients, the idle phase. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include <dvp_cycles.h>
#include <dvp_lcore.h>
#include <dvp_mbuf.h>
#include <dvp_port.h>

#include "perf.h"

/* ------------------------------------------------------------------------
 * Server
 */

int run_server(struct perf_end *e)
{
	struct dvp_mbuf *pkts[PERF_BURST_MAX], *ack;
	uint64_t received = 0, expected = 0, errors = 0, linger_ms = 0, end;
	bool done = false;
	int n = 0, i;

	/* The client may start late: the server waits as long as it waits for the link. */
	while (!done) {
		n = recv_some(e, pkts, PERF_BURST_MAX,
			      perf_deadline_in(opt.link_timeout_s + opt.timeout_s));
		if (n < 0)
			return n == -EINTR ? 0 : n;
		if (n == 0) {
			fprintf(stderr, "dvp-perf: server: nothing from the client for %u s\n",
				opt.link_timeout_s + opt.timeout_s);
			return -ETIMEDOUT;
		}
		for (i = 0; i < n; i++) {
			const struct perf_hdr *h = frame_check(pkts[i]);

			if (h == NULL || h->type == FT_DONE_ACK) {
				errors++;
				dvp_pktmbuf_free(pkts[i]);
				continue;
			}
			if (h->type == FT_SYNC) {
				if (send_one(e, pkts[i]) < 0)
					return -ETIMEDOUT;
				continue;
			}
			if (h->type == FT_DONE) {
				linger_ms = h->value;
				dvp_pktmbuf_free(pkts[i]);
				ack = frame_new(e, FT_DONE_ACK, 0, received, errors);
				if (ack == NULL || send_one(e, ack) < 0)
					return -EIO;
				done = true;
				continue;
			}
			received++;
			if (opt.bw) {
				/* The client's sequence restarts after warm-up frames: follow it. */
				if (h->seq != expected)
					errors++;
				expected = h->seq + 1;
				dvp_pktmbuf_free(pkts[i]);
			} else if (send_one(e, pkts[i]) < 0) {
				return -ETIMEDOUT;
			}
		}
	}
	printf("PERF-SERVER test=%s received=%" PRIu64 " errors=%" PRIu64 "\n",
	       opt.bw ? "bw" : "lat", received, errors);
	print_intr_stats(e, "INTR-SERVER");
	/*
	 * Stay connected until the client says bye or its link goes (it may
	 * measure its idle CPU now, and a peer that vanished would have it
	 * reconnecting).
	 */
	end = perf_deadline_in_ms(linger_ms + opt.timeout_s * 1000ull);
	for (done = false; !done && !perf_stopping() && !perf_past(end);) {
		struct dvp_link link;

		n = recv_some(e, pkts, PERF_BURST_MAX, perf_deadline_in(1));
		for (i = 0; i < n; i++) {
			const struct perf_hdr *h = frame_check(pkts[i]);

			done = done || (h != NULL && h->type == FT_BYE);
			dvp_pktmbuf_free(pkts[i]);
		}
		if (n < 0 || dvp_link_get_nowait(e->port, &link) < 0 || !link.link_status)
			break;
	}
	return errors ? -EPROTO : 0;
}

/* ------------------------------------------------------------------------
 * Client
 */

/* DONE, then the server's DONE_ACK. @return 0 with its counts, or a negative errno. */
static int finish(struct perf_end *e, uint64_t *received, uint64_t *errors)
{
	/* The server lingers as long as this client's idle phase lasts. */
	struct dvp_mbuf *pkts[PERF_BURST_MAX],
		*m = frame_new(e, FT_DONE, 0, (uint64_t)(opt.idle_s * 1000), 0);
	uint64_t deadline = perf_deadline_in(opt.timeout_s);
	int n, i, ret = -ETIMEDOUT;

	if (m == NULL || send_one(e, m) < 0)
		return -EIO;
	while (ret == -ETIMEDOUT && (n = recv_some(e, pkts, PERF_BURST_MAX, deadline)) > 0) {
		for (i = 0; i < n; i++) {
			const struct perf_hdr *h = frame_check(pkts[i]);

			if (h != NULL && h->type == FT_DONE_ACK) {
				*received = h->value;
				*errors = h->errors;
				ret = 0;
			}
			dvp_pktmbuf_free(pkts[i]);
		}
	}
	return ret;
}

int run_lat(struct perf_end *e)
{
	struct dvp_mbuf *pkts[PERF_BURST_MAX], *m, *echo = NULL;
	uint64_t i, total = opt.warmup + opt.iters, t0, t1, rcv = 0, err = 0;
	struct hist *hs = &e->hist;
	double ns_per_tick = 1e9 / (double)perf_hz;
	bool got;
	int n, k, ret;

	hist_init(hs);
	for (i = 0; i < total && !perf_stopping(); i++) {
		/* The echo goes out again, as perftest sends one buffer over and over. */
		if (echo != NULL) {
			m = echo;
			echo = NULL;
			((struct perf_hdr *)frame_check(m))->seq = i;
		} else {
			m = frame_new(e, FT_DATA, i, 0, 0);
			if (m == NULL)
				return -ENOBUFS;
		}
		/* Raw TSC inside the round trip; converted outside it. */
		t0 = dvp_rdtsc();
		if (send_one(e, m) < 0)
			return -ETIMEDOUT;
		for (got = false; !got;) {
			n = recv_some(e, pkts, PERF_BURST_MAX, perf_deadline_in(opt.timeout_s));
			if (n <= 0) {
				if (n == 0)
					fprintf(stderr,
						"dvp-perf: no echo of frame %" PRIu64
						" within %u s: the peer or the link is gone\n",
						i, opt.timeout_s);
				return n == 0 ? -ETIMEDOUT : n;
			}
			t1 = dvp_rdtsc();
			for (k = 0; k < n; k++) {
				const struct perf_hdr *h = frame_check(pkts[k]);

				if (h != NULL && h->type == FT_DATA && h->seq == i && !got &&
				    pkts[k]->data_len == opt.size && pkts[k]->nb_segs == 1) {
					got = true;
					echo = pkts[k];
					continue;
				}
				dvp_pktmbuf_free(pkts[k]);
			}
		}
		/* One way: half the round trip, as perftest's ib_send_lat reports. */
		if (i >= opt.warmup)
			hist_add(hs, (uint64_t)((double)(t1 - t0) * ns_per_tick / 2));
	}
	if (echo != NULL)
		dvp_pktmbuf_free(echo);
	if (perf_stopping())
		return -EINTR;
	ret = finish(e, &rcv, &err);
	if (ret < 0)
		return ret;
	printf("LAT size=%u rx_mode=%s iters=%" PRIu64
	       " min_us=%.2f p50_us=%.2f p90_us=%.2f p99_us=%.2f p999_us=%.2f max_us=%.2f avg_us=%.2f\n",
	       opt.size, perf_mode_names[opt.mode], hs->count, hs->min / 1e3,
	       hist_quantile(hs, 0.5) / 1e3, hist_quantile(hs, 0.9) / 1e3,
	       hist_quantile(hs, 0.99) / 1e3, hist_quantile(hs, 0.999) / 1e3, hs->max / 1e3,
	       (double)hs->sum / (double)hs->count / 1e3);
	return 0;
}

/*
 * One round trip before a bw run, untimed: the server is in its receive
 * loop when the clock starts, as perftest's ends are after the handshake
 * that precedes its run.
 */
static int sync_server(struct perf_end *e)
{
	struct dvp_mbuf *pkts[PERF_BURST_MAX], *m = frame_new(e, FT_SYNC, 0, 0, 0);
	uint64_t deadline = perf_deadline_in(opt.timeout_s);
	int n = 0, i, ret = -ETIMEDOUT;

	if (m == NULL || send_one(e, m) < 0)
		return -EIO;
	while (ret == -ETIMEDOUT && (n = recv_some(e, pkts, PERF_BURST_MAX, deadline)) > 0) {
		for (i = 0; i < n; i++) {
			const struct perf_hdr *h = frame_check(pkts[i]);

			if (h != NULL && h->type == FT_SYNC)
				ret = 0;
			dvp_pktmbuf_free(pkts[i]);
		}
	}
	if (ret < 0)
		fprintf(stderr, "dvp-perf: the server did not answer before the run (%s)\n",
			n < 0 ? strerror(-n) : "silent");
	return ret;
}

int run_bw(struct perf_end *e)
{
	struct dvp_mbuf *burst[PERF_BURST_MAX];
	uint64_t seq = 0, t0, t1, rcv = 0, err = 0, deadline = 0;
	uint16_t n, k, sent;
	double secs;
	int ret;

	ret = sync_server(e);
	if (ret < 0)
		return ret;
	t0 = perf_now_ns();
	while (seq < opt.iters && !perf_stopping()) {
		n = (uint16_t)DVP_MIN((uint64_t)opt.burst, opt.iters - seq);
		for (k = 0; k < n; k++) {
			burst[k] = frame_new(e, FT_DATA, seq + k, 0, 0);
			if (burst[k] == NULL) {
				dvp_pktmbuf_free_bulk(burst, k);
				return -ENOBUFS;
			}
		}
		sent = dvp_tx_burst(e->port, 0, burst, n);
		if (sent < n)
			dvp_pktmbuf_free_bulk(burst + sent, n - sent);
		if (sent == 0) {
			/* The queue is full: completions come from the peer's acks. */
			if (deadline == 0)
				deadline = perf_deadline_in(opt.timeout_s);
			else if (perf_past(deadline))
				return -ETIMEDOUT;
			continue;
		}
		deadline = 0;
		seq += sent;
	}
	if (perf_stopping())
		return -EINTR;
	ret = finish(e, &rcv, &err);
	t1 = perf_now_ns();
	if (ret < 0) {
		fprintf(stderr, "dvp-perf: the server did not answer the end of the run\n");
		return ret;
	}
	secs = (double)(t1 - t0) / 1e9;
	printf("BW size=%u rx_mode=%s frames=%" PRIu64 " received=%" PRIu64
	       " mb_s=%.2f mpps=%.4f seconds=%.3f\n",
	       opt.size, perf_mode_names[opt.mode], opt.iters, rcv,
	       (double)opt.iters * opt.size / secs / (1 << 20), (double)opt.iters / secs / 1e6,
	       secs);
	if (rcv != opt.iters || err != 0) {
		fprintf(stderr,
			"dvp-perf: the server received %" PRIu64 " of %" PRIu64 " frames, %" PRIu64
			" out of sequence\n",
			rcv, opt.iters, err);
		return -EPROTO;
	}
	return 0;
}

/*
 * CPU time of the process: the EAL interrupt thread's share of waiting
 * counts too (with --role pair, both ends' threads, both idle).
 */
static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	       ru.ru_stime.tv_usec / 1e6;
}

/* The rx queue's interrupt counter NAME (sleeps, wakeups...), 0 when the port has none. */
/* Rx queue 0's interrupt counter @name (lib/rxwait's xstat): 0 or a negative errno. */
static int intr_counter_get(struct perf_end *e, const char *name, uint64_t *v)
{
	char xname[64];

	snprintf(xname, sizeof(xname), "rx_q0_intr_%s", name);
	return dvp_xstats_get_by_name(e->port, xname, v);
}

/* The same, 0 where the port has no such counter. */
static uint64_t intr_counter(struct perf_end *e, const char *name)
{
	uint64_t v;

	return intr_counter_get(e, name, &v) == 0 ? v : 0;
}

void run_idle(struct perf_end *e)
{
	struct dvp_mbuf *pkts[PERF_BURST_MAX];
	uint64_t t0 = perf_now_ns(), end = perf_deadline_in_ms((uint64_t)(opt.idle_s * 1000));
	uint64_t sleeps0 = intr_counter(e, "sleeps");
	double c0 = cpu_seconds(), wall;
	char sleeps[40] = "";
	int n;

	while (!perf_stopping() && !perf_past(end)) {
		n = recv_some(e, pkts, PERF_BURST_MAX, end);
		if (n > 0)
			dvp_pktmbuf_free_bulk(pkts, (unsigned int)n);
		else if (n < 0)
			break;
	}
	wall = (double)(perf_now_ns() - t0) / 1e9;
	if (opt.mode != MODE_POLL)
		snprintf(sleeps, sizeof(sleeps), " sleeps=%" PRIu64,
			 intr_counter(e, "sleeps") - sleeps0);
	printf("IDLE rx_mode=%s seconds=%.2f cpu_pct=%.2f%s\n", perf_mode_names[opt.mode], wall,
	       100.0 * (cpu_seconds() - c0) / wall, sleeps);
}

void check_tx_errors(struct perf_end *e)
{
	struct dvp_port_stats st;

	if (dvp_stats_get(e->port, &st) == 0 && st.oerrors > 0)
		fprintf(stderr,
			"dvp-perf: port %u counted %" PRIu64
			" tx errors (dvp-info or xstats say which); is --size within what the peer takes (give the server the same --size)?\n",
			e->port, st.oerrors);
}

void print_intr_stats(struct perf_end *e, const char *tag)
{
	static const char *const names[] = { "sleeps", "wakeups", "spurious", "arms" };
	char line[256];
	uint64_t v;
	unsigned int i;
	int n;

	if (opt.mode == MODE_POLL)
		return;
	/* One printf: with --role pair the other end prints from another thread. */
	n = snprintf(line, sizeof(line), "%s rx_mode=%s", tag, perf_mode_names[opt.mode]);
	for (i = 0; i < DVP_DIM(names); i++) {
		if (intr_counter_get(e, names[i], &v) == 0)
			n += snprintf(line + n, sizeof(line) - (size_t)n, " %s=%" PRIu64, names[i],
				      v);
	}
	printf("%s\n", line);
}
