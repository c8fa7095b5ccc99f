/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* dvp-perf: an end of the link (its port, pool and rx wait) and its frames. */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <dvp_cycles.h>
#include <dvp_errno.h>
#include <dvp_rxwait.h>
#include <dvp_lcore.h>
#include <dvp_mbuf.h>
#include <dvp_port.h>

#include "perf.h"

uint64_t perf_now_ns(void)
{
	return (uint64_t)((double)dvp_rdtsc() * 1e9 / (double)perf_hz);
}

uint64_t perf_intr_clock(void *arg)
{
	(void)arg;
	return perf_now_ns();
}

static const char *role_name(const struct perf_end *e)
{
	return e->server ? "server" : "client";
}

int end_setup(struct perf_end *e)
{
	struct dvp_port_conf conf = { 0 };
	struct dvp_port_info info;
	char name[64];
	int ret;

	if (!dvp_port_is_valid(e->port)) {
		fprintf(stderr,
			"dvp-perf: port %u does not exist (%u ports; give one with --vdev, e.g. net_verbs0,dev=rxe0,listen=IP:PORT)\n",
			e->port, dvp_port_count());
		perf_usage_error = true;
		return -ENODEV;
	}
	ret = dvp_port_info_get(e->port, &info);
	if (ret < 0)
		return ret;
	dvp_port_get_name(e->port, name, sizeof(name));
	if (info.max_rx_pktlen != 0 && opt.size > info.max_rx_pktlen) {
		fprintf(stderr,
			"dvp-perf: --size %u: port %u (%s, %s) carries frames up to %u bytes\n",
			opt.size, e->port, name, info.driver_name, info.max_rx_pktlen);
		perf_usage_error = true;
		return -EINVAL;
	}
	e->mp = dvp_pktmbuf_pool_create(
		e->pool_name, 4095, 256, 0,
		(uint16_t)DVP_MAX(DVP_MBUF_DEFAULT_BUF_SIZE, opt.size + DVP_PKTMBUF_HEADROOM),
		info.numa_node);
	if (e->mp == NULL)
		return -dvp_errno;
	conf.intr_conf.lsc = (info.intr_capa & DVP_PORT_INTR_LSC) != 0;
	conf.intr_conf.rxq = opt.mode != MODE_POLL;
	if (opt.mode != MODE_POLL && !(info.intr_capa & DVP_PORT_INTR_RXQ)) {
		fprintf(stderr,
			"dvp-perf: --rx-mode %s: %s (%s) has no rx interrupts; use --rx-mode poll\n",
			perf_mode_names[opt.mode], name, info.driver_name);
		perf_usage_error = true;
		return -ENOTSUP;
	}
	ret = dvp_port_configure(e->port, 1, 1, &conf);
	if (ret == 0)
		ret = dvp_rxq_setup(e->port, 0, opt.rxd, DVP_SOCKET_ANY, NULL, e->mp);
	if (ret == 0)
		ret = dvp_txq_setup(e->port, 0, opt.txd, DVP_SOCKET_ANY, NULL);
	if (ret < 0)
		return ret;
	if (opt.mode != MODE_POLL) {
		e->set = dvp_rxwait_set_create(1);
		if (e->set == NULL)
			return -dvp_errno;
		/*
		 * The wait's own timing (its sleep counters, the governor's
		 * pauses) on the TSC: a guest without a stable TSC clocksource
		 * makes every clock_gettime() a system call, four per wake-up.
		 */
		dvp_rxwait_set_clock(e->set, perf_intr_clock, NULL);
		ret = dvp_rx_intr_ctl(e->port, 0, e->set, DVP_RX_INTR_CTL_ADD, NULL);
		if (ret < 0)
			return ret;
		if (opt.mode == MODE_ADAPTIVE) {
			struct dvp_rxwait_governor_conf gc;

			dvp_rxwait_governor_conf_default(&gc);
			gc.clock = perf_intr_clock;
			e->gov = dvp_rxwait_governor_create(e->set, &gc);
			if (e->gov == NULL)
				return -dvp_errno;
		}
	}
	dvp_macaddr_get(e->port, &e->mac);
	return dvp_port_start(e->port);
}

int end_wait_link(struct perf_end *e)
{
	struct dvp_port_info info;
	struct dvp_link link;
	char name[64], lstr[64];
	uint64_t deadline = perf_deadline_in(opt.link_timeout_s);
	int ret;

	dvp_port_get_name(e->port, name, sizeof(name));
	ret = dvp_port_info_get(e->port, &info);
	if (ret < 0)
		return ret;
	do {
		ret = dvp_link_get(e->port, &link);
		if (ret < 0)
			return ret;
	} while (!link.link_status && !perf_stopping() && !perf_past(deadline));
	if (!link.link_status) {
		fprintf(stderr,
			"dvp-perf: port %u (%s): no link within %u s (is the peer running?)\n",
			e->port, name, opt.link_timeout_s);
		return -ETIMEDOUT;
	}
	dvp_link_to_str(lstr, sizeof(lstr), &link);
	if (e->server)
		printf("PERF-CONFIG role=server port=%u name=%s driver=%s rx_mode=%s link=\"%s\"\n",
		       e->port, name, info.driver_name, perf_mode_names[opt.mode], lstr);
	else
		printf("PERF-CONFIG role=client test=%s port=%u name=%s driver=%s size=%u iters=%" PRIu64
		       " rx_mode=%s link=\"%s\"\n",
		       opt.bw ? "bw" : "lat", e->port, name, info.driver_name, opt.size, opt.iters,
		       perf_mode_names[opt.mode], lstr);
	fflush(stdout);
	return 0;
}

int end_teardown(struct perf_end *e)
{
	unsigned int in_use;
	int ret = 0;

	if (dvp_port_is_valid(e->port)) {
		if (dvp_port_stop(e->port) < 0)
			ret = -EIO;
		dvp_port_close(e->port);
	}
	dvp_rxwait_governor_free(e->gov);
	dvp_rxwait_set_free(e->set);
	e->gov = NULL;
	e->set = NULL;
	if (e->mp != NULL) {
		in_use = dvp_mempool_in_use_count(e->mp);
		if (in_use != 0) {
			fprintf(stderr, "dvp-perf: %s: %u mbufs did not come back to the pool\n",
				role_name(e), in_use);
			ret = -EIO;
		}
		dvp_mempool_free(e->mp);
		e->mp = NULL;
	}
	return ret;
}

void end_kick(struct perf_end *e)
{
	if (e->set != NULL)
		dvp_rx_wait_kick(e->set); /* async-signal safe: one write(2) */
}

/* ------------------------------------------------------------------------
 * Frames
 */

struct dvp_mbuf *frame_new(struct perf_end *e, uint8_t type, uint64_t seq, uint64_t value,
			   uint64_t errors)
{
	struct dvp_mbuf *m = dvp_pktmbuf_alloc(e->mp);
	uint8_t *p;
	struct perf_hdr *h;
	uint16_t et = (uint16_t)(PERF_ETHERTYPE >> 8 | (PERF_ETHERTYPE & 0xff) << 8);

	if (m == NULL)
		return NULL;
	p = (uint8_t *)dvp_pktmbuf_append(m, (uint16_t)(type == FT_DATA ? opt.size : FRAME_MIN));
	if (p == NULL) {
		dvp_pktmbuf_free(m);
		return NULL;
	}
	memset(p, 0xff, 6);
	memcpy(p + 6, e->mac.addr_bytes, 6);
	memcpy(p + 12, &et, 2);
	h = (struct perf_hdr *)(p + 14);
	h->magic = PERF_MAGIC;
	h->type = type;
	h->seq = seq;
	h->value = value;
	h->errors = errors;
	return m;
}

int send_one(struct perf_end *e, struct dvp_mbuf *m)
{
	uint64_t deadline = 0;

	while (dvp_tx_burst(e->port, 0, &m, 1) == 0) {
		if (deadline == 0)
			deadline = perf_deadline_in(opt.timeout_s);
		if (perf_past(deadline) || perf_stopping()) {
			dvp_pktmbuf_free(m);
			return -ETIMEDOUT;
		}
	}
	return 0;
}

int recv_some(struct perf_end *e, struct dvp_mbuf **pkts, uint16_t max, uint64_t deadline)
{
	struct dvp_rx_wait_event ev;
	int n, ret;

	for (;;) {
		if (opt.mode == MODE_ADAPTIVE)
			n = dvp_rx_burst_adaptive(e->gov, e->port, 0, pkts, max);
		else
			n = dvp_rx_burst(e->port, 0, pkts, max);
		if (n > 0)
			return n;
		if (perf_stopping())
			return -EINTR;
		if (perf_past(deadline))
			return 0;
		if (opt.mode == MODE_INTR) {
			/* No timeout: the ticker's kicks bring it back (perf_ticker_start()). */
			ret = dvp_rx_wait(e->set, &ev, 1, -1);
			if (ret < 0)
				return ret;
		} else if (opt.mode == MODE_ADAPTIVE) {
			ret = dvp_rxwait_governor_idle(e->gov);
			if (ret < 0)
				return ret;
		}
	}
}

/* ------------------------------------------------------------------------
 * Ticker (--rx-mode intr)
 */

/*
 * dvp_rx_wait() with a timeout reads CLOCK_MONOTONIC twice per sleep for
 * it, and in a VM whose clocksource is not the TSC (the Soft-RoCE guest's
 * is the HPET) each read is a system call on the path of every wake-up.
 * So the waits sleep with no timeout, and this thread kicks them every
 * 100 ms: a wait still comes back that often to check its deadline and
 * the stop flag.
 */
#define TICK_NS 100000000L

static pthread_t ticker;
static bool ticker_running;
static atomic_int ticker_stop;
static struct perf_end *ticker_ends[2];

static void *ticker_main(void *arg)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = TICK_NS };
	unsigned int i;

	(void)arg;
	/* Relaxed: a flag that ends the loop, publishing no data (join orders the rest). */
	while (!atomic_load_explicit(&ticker_stop, memory_order_relaxed)) {
		nanosleep(&ts, NULL);
		for (i = 0; i < DVP_DIM(ticker_ends); i++)
			if (ticker_ends[i] != NULL)
				end_kick(ticker_ends[i]);
	}
	return NULL;
}

int perf_ticker_start(struct perf_end *a, struct perf_end *b)
{
	int ret;

	if (opt.mode != MODE_INTR)
		return 0;
	ticker_ends[0] = a;
	ticker_ends[1] = b;
	atomic_store_explicit(&ticker_stop, 0, memory_order_relaxed);
	ret = pthread_create(&ticker, NULL, ticker_main, NULL);
	if (ret != 0) {
		fprintf(stderr, "dvp-perf: cannot start the wait ticker thread: %s\n",
			strerror(ret));
		return -ret;
	}
	ticker_running = true;
	return 0;
}

void perf_ticker_stop(void)
{
	if (!ticker_running)
		return;
	atomic_store_explicit(&ticker_stop, 1, memory_order_relaxed);
	pthread_join(ticker, NULL);
	ticker_running = false;
}
