/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * lib/port's per-queue counter block (dvp_port_counters.h): reads subtract
 * the baseline a reset recorded; the basic stats and the rx_q<N>_<name> /
 * tx_q<N>_<name> xstats made from a driver's tables; reset while another
 * thread writes the counters, alone and through net_ring's bursts (this
 * test runs under TSan with suite concurrent).
 */

#include "test_port_helpers.h"

#include <pthread.h>
#include <stdatomic.h>

#include <dvp_port_counters.h>

/* A driver's queue, as a driver declares one. */
struct fake_ctrs {
	uint64_t packets, bytes, errors, nombuf;
	uint64_t restarts;
	uint64_t hidden;
};

struct fake_q {
	int other; /* the counters need not come first */
	struct fake_ctrs st;
	struct fake_ctrs base;
};

static const char *const fake_rx_names[] = { NULL, NULL, NULL, "nombuf", "restarts", NULL };
static const char *const fake_tx_names[] = { NULL, NULL, NULL, NULL, "restarts", NULL };
DVP_PORT_QCTRS_DEFINE(fake_rx, struct fake_q, st, base, fake_rx_names);
DVP_PORT_QCTRS_DEFINE(fake_tx, struct fake_q, st, base, fake_tx_names);

static struct dvp_port fake_port;
static struct fake_q rxq[2], txq;

static void fake_port_init(void)
{
	memset(&fake_port, 0, sizeof(fake_port));
	memset(rxq, 0, sizeof(rxq));
	memset(&txq, 0, sizeof(txq));
	fake_port.nb_rx_queues = 3; /* queue 1 not set up: zeros */
	fake_port.nb_tx_queues = 1;
	fake_port.rxqs[0] = &rxq[0];
	fake_port.rxqs[2] = &rxq[1];
	fake_port.txqs[0] = &txq;
}

static void test_baseline(void **state)
{
	struct dvp_port_stats st;
	uint64_t v[6];

	(void)state;
	fake_port_init();
	dvp_counter_add(&rxq[0].st.packets, 10);
	dvp_counter_add(&rxq[0].st.bytes, 600);
	dvp_counter_add(&rxq[1].st.errors, 2);
	dvp_counter_add(&rxq[1].st.nombuf, 3);
	dvp_counter_add(&txq.st.packets, 7);
	dvp_counter_add(&txq.st.nombuf, 99); /* tx has none: not summed */
	memset(&st, 0, sizeof(st));
	dvp_port_qctrs_stats_get(&fake_port, &fake_rx, &fake_tx, &st);
	assert_int_equal(st.ipackets, 10);
	assert_int_equal(st.ibytes, 600);
	assert_int_equal(st.ierrors, 2);
	assert_int_equal(st.rx_nombuf, 3);
	assert_int_equal(st.opackets, 7);
	assert_int_equal(st.q_ipackets[0], 10);
	assert_int_equal(st.q_errors[2], 2);

	/* Reset writes the baseline, never the counters. */
	dvp_port_qctrs_reset(&fake_port, &fake_rx, &fake_tx);
	assert_int_equal(rxq[0].st.packets, 10);
	assert_int_equal(rxq[0].base.packets, 10);
	memset(&st, 0, sizeof(st));
	dvp_port_qctrs_stats_get(&fake_port, &fake_rx, &fake_tx, &st);
	assert_int_equal(st.ipackets + st.ibytes + st.ierrors + st.rx_nombuf + st.opackets, 0);
	dvp_counter_add(&rxq[0].st.packets, 4);
	dvp_counter_add(&rxq[0].st.restarts, 1);
	dvp_port_qctrs_read(&fake_port, &fake_rx, false, 0, v);
	assert_int_equal(v[0], 4);
	assert_int_equal(v[4], 1);
	dvp_port_qctrs_read(&fake_port, &fake_rx, false, 1, v);
	assert_int_equal(v[0] + v[4], 0);

	/* The same rule for a block that is not per queue. */
	dvp_counters_reset(&txq.st.packets, &txq.base.packets, 1);
	dvp_counter_add(&txq.st.packets, 5);
	dvp_counters_read(&txq.st.packets, &txq.base.packets, v, 1);
	assert_int_equal(v[0], 5);
}

static void test_xstats_names(void **state)
{
	static const char *const want[] = { "rx_q0_nombuf",   "rx_q0_restarts", "rx_q1_nombuf",
					    "rx_q1_restarts", "rx_q2_nombuf",	"rx_q2_restarts",
					    "tx_q0_restarts", "conn_up",	"conn_down" };
	static const char *const port_names[] = { "conn_up", NULL, "conn_down" };
	const uint64_t port_values[] = { 1, 2, 3 };
	struct dvp_xstat_name names[16];
	uint64_t values[16];
	struct dvp_xstats_out o = { .names = names, .values = values, .size = 16 };
	unsigned int i;

	(void)state;
	fake_port_init();
	dvp_counter_add(&rxq[1].st.restarts, 4);
	dvp_counter_add(&txq.st.restarts, 2);
	dvp_xstats_out_queues(&o, &fake_port, &fake_rx, &fake_tx);
	dvp_xstats_out_table(&o, port_names, port_values, 3);
	assert_int_equal(o.n, DVP_DIM(want));
	for (i = 0; i < DVP_DIM(want); i++)
		assert_string_equal(names[i].name, want[i]);
	assert_int_equal(values[1], 0);
	assert_int_equal(values[3], 0); /* queue 1 was never set up */
	assert_int_equal(values[5], 4);
	assert_int_equal(values[6], 2);
	assert_int_equal(values[8], 3);

	/* Counting only, and too small an array: what fits, and the count. */
	o = (struct dvp_xstats_out){ .names = names, .size = 2 };
	memset(names, 0, sizeof(names));
	dvp_xstats_out_queues(&o, &fake_port, &fake_rx, &fake_tx);
	assert_int_equal(o.n, 7);
	assert_string_equal(names[1].name, "rx_q0_restarts");
	assert_string_equal(names[2].name, "");
}

/* ------------------------------------------------------------------------
 * Reset while the counters' writer runs.
 */

#define WRITES 200000u

static atomic_bool writer_done;

static void *fake_writer(void *arg)
{
	unsigned int i;

	(void)arg;
	for (i = 0; i < WRITES; i++) {
		dvp_counter_add(&rxq[0].st.packets, 1);
		dvp_counter_add(&rxq[0].st.bytes, 60);
	}
	atomic_store(&writer_done, true);
	return NULL;
}

static void test_reset_while_writing(void **state)
{
	struct dvp_port_stats st;
	unsigned int resets = 0;
	pthread_t t;

	(void)state;
	fake_port_init();
	atomic_store(&writer_done, false);
	assert_int_equal(pthread_create(&t, NULL, fake_writer, NULL), 0);
	while (!atomic_load(&writer_done) || resets < 2) {
		dvp_port_qctrs_reset(&fake_port, &fake_rx, &fake_tx);
		resets++;
		memset(&st, 0, sizeof(st));
		dvp_port_qctrs_stats_get(&fake_port, &fake_rx, &fake_tx, &st);
		/* A read across a reset is never below zero (it would wrap). */
		assert_true(st.ipackets <= WRITES);
		assert_true(st.ibytes <= 60ull * WRITES);
	}
	assert_int_equal(pthread_join(t, NULL), 0);
	/* No write was lost: the counter holds every one, reset or not. */
	assert_int_equal(dvp_counter_read(&rxq[0].st.packets), WRITES);
	dvp_port_qctrs_reset(&fake_port, &fake_rx, &fake_tx);
	dvp_counter_add(&rxq[0].st.packets, 3);
	memset(&st, 0, sizeof(st));
	dvp_port_qctrs_stats_get(&fake_port, &fake_rx, &fake_tx, &st);
	assert_int_equal(st.ipackets, 3);
}

/* net_ring0 looped back: a thread sends and receives while stats reset. */
static uint16_t lo;
static atomic_bool burst_stop;
static atomic_uint bursts_sent;

static void *burst_loop(void *arg)
{
	struct dvp_mbuf *pkts[8];
	uint16_t n, i;

	(void)arg;
	while (!atomic_load(&burst_stop)) {
		for (i = 0; i < 8; i++)
			pkts[i] = tp_frame((uint8_t)i);
		n = dvp_tx_burst(lo, 0, pkts, 8);
		if (n < 8)
			dvp_pktmbuf_free_bulk(&pkts[n], 8u - n);
		atomic_fetch_add(&bursts_sent, n);
		while ((n = dvp_rx_burst(lo, 0, pkts, 8)) > 0)
			dvp_pktmbuf_free_bulk(pkts, n);
	}
	return NULL;
}

/* The EAL and net_ring0, up with one queue, for the test below. */
static int ring_up(void **state)
{
	int ret = dvp_test_eal_init("--no-huge", "-m", "32", "-l", "0-1", "--vdev",
				    "net_ring0,queues=1");

	(void)state;
	if (ret >= 0) {
		tp_pool_create();
		lo = tp_port("net_ring0");
		/* With rx interrupts: lib/rxwait's counters follow the same rule. */
		tp_port_up_intr(lo, 1, 0);
	}
	return ret < 0 ? -1 : 0;
}

static int ring_down(void **state)
{
	if (dvp_port_stop(lo) != 0)
		return -1;
	return tp_teardown(state);
}

static void test_reset_during_bursts(void **state)
{
	uint64_t max_out = 0, max_in = 0, max_bytes = 0;
	struct dvp_port_stats st;
	unsigned int resets;
	pthread_t t;

	(void)state;
	atomic_store(&burst_stop, false);
	assert_int_equal(pthread_create(&t, NULL, burst_loop, NULL), 0);
	for (resets = 0; resets < 200 || atomic_load(&bursts_sent) < 1000; resets++) {
		struct dvp_xstat xs[128];
		int nx;

		assert_int_equal(dvp_stats_reset(lo), 0);
		assert_int_equal(dvp_stats_get(lo, &st), 0);
		max_out = DVP_MAX(max_out, st.opackets);
		max_in = DVP_MAX(max_in, st.ipackets);
		max_bytes = DVP_MAX(max_bytes, st.q_obytes[0]);
		/* Every xstat (queues', lib/port's, lib/rxwait's, the driver's) read and reset. */
		nx = dvp_xstats_get(lo, xs, 128);
		assert_true(nx > 0 && nx <= 128);
		for (int i = 0; i < nx; i++)
			assert_true(xs[i].value < (1ull << 62)); /* no read below zero */
		assert_int_equal(dvp_xstats_reset(lo), 0);
	}
	atomic_store(&burst_stop, true);
	assert_int_equal(pthread_join(t, NULL), 0);
	/* What a read since a reset shows is never above all that was sent: no wrap. */
	assert_true(max_out <= atomic_load(&bursts_sent));
	assert_true(max_in <= atomic_load(&bursts_sent));
	assert_true(max_bytes <= 60ull * atomic_load(&bursts_sent));
	tp_recv_all(lo, 0);
	/* After the last reset, exactly what was sent since. */
	assert_int_equal(dvp_stats_reset(lo), 0);
	tp_send(lo, 0, 3);
	assert_int_equal(tp_recv_all(lo, 0), 3);
	assert_int_equal(dvp_stats_get(lo, &st), 0);
	assert_int_equal(st.opackets, 3);
	assert_int_equal(st.ipackets, 3);
	assert_int_equal(st.q_ibytes[0], 180);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reset_during_bursts, ring_up, ring_down),
		cmocka_unit_test(test_baseline),
		cmocka_unit_test(test_xstats_names),
		cmocka_unit_test(test_reset_while_writing),
	};

	return cmocka_run_group_tests_name("port_counters", tests, NULL, NULL);
}
