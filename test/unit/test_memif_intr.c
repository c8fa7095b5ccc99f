/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * drivers/net/memif's rx interrupts, both ends in this process (a server
 * port and a client port on one abstract socket), by lib/rxwait's rules: a
 * producer thread waking a sleeping consumer, a packet already there when
 * arming, a spurious event, a waiter armed while the link was down, a
 * waiter asleep on a ring its peer replaces by reconnecting.
 *
 * Results are counts; every wait is bounded (a lost wake-up fails the test,
 * a slow machine only makes it slower).
 */

#include "test_port_helpers.h"

#include <pthread.h>

#include <dvp_rxwait.h>

static char sock[64];
static uint16_t srv, cli;

static int setup(void **state)
{
	(void)state;
	return tp_memif_pair_init(sock, sizeof(sock), "intr", ",id=3", ",id=3,rsize=8", &srv, &cli);
}

struct sender {
	uint16_t port;
	unsigned int n;
	unsigned int delay_us;
	uint16_t start_port; /* UINT16_MAX: none; else start it first */
};

static void *sender_main(void *arg)
{
	struct sender *sd = arg;
	struct dvp_mbuf *m;
	unsigned int i;

	if (sd->start_port != UINT16_MAX) {
		assert_int_equal(dvp_port_start(sd->start_port), 0);
		while (!tp_link_is_up(sd->port))
			usleep(100);
	}
	for (i = 0; i < sd->n; i++) {
		usleep(sd->delay_us);
		m = tp_frame((uint8_t)i);
		while (dvp_tx_burst(sd->port, 0, &m, 1) == 0)
			usleep(10);
	}
	return NULL;
}

/* Wait on @set until @n packets came on (@port, 0); each wait returns the queue. */
static void wait_and_recv(struct dvp_rxwait_set *set, uint16_t port, unsigned int n)
{
	struct dvp_rx_wait_event ev[1];
	unsigned int got = 0;
	int waits = 0;

	while (got < n) {
		unsigned int k = tp_recv_all(port, 0);

		got += k;
		if (got >= n)
			break;
		if (k == 0) {
			int r = dvp_rx_wait(set, ev, 1, 10000);

			assert_true(r >= 0);
			if (r == 0)
				fail_msg("no wake-up in 10 s after %u of %u packets", got, n);
			assert_int_equal(ev[0].port_id, port);
			waits++;
		}
	}
	assert_int_equal(got, n);
	assert_true(waits > 0);
}

/* Each role's rx queue sleeps and is woken by a producer in another thread. */
static void test_intr_wakeups(void **state)
{
	struct dvp_port_conf conf = { 0 };
	struct sender sd = { .n = 20, .delay_us = 2000, .start_port = UINT16_MAX };
	struct dvp_rxwait_set *set;
	uint16_t role, rx, tx;
	pthread_t t;

	(void)state;
	conf.intr_conf.rxq = 1;
	tp_memif_pair_up(srv, cli, 1, 1, &conf);
	for (role = 0; role < 2; role++) {
		rx = role == 0 ? cli : srv;
		tx = role == 0 ? srv : cli;
		set = dvp_rxwait_set_create(4);
		assert_non_null(set);
		assert_int_equal(dvp_rx_intr_ctl(rx, 0, set, DVP_RX_INTR_CTL_ADD, NULL), 0);
		assert_int_equal(dvp_xstats_reset(rx), 0);
		assert_int_equal(dvp_xstats_reset(tx), 0);
		/* Polling: the producer does not write the eventfd. */
		tp_send(tx, 0, 3);
		tp_recv_n(rx, 0, 3);
		assert_int_equal(tp_xstat(tx, "tx_q0_intr_kicks"), 0);
		sd.port = tx;
		assert_int_equal(pthread_create(&t, NULL, sender_main, &sd), 0);
		wait_and_recv(set, rx, sd.n);
		assert_int_equal(pthread_join(t, NULL), 0);
		/* It slept, and a producer that saw the unmasked ring woke it. */
		assert_true(tp_qintr(rx, 0, "sleeps") >= 1);
		assert_true(tp_qintr(rx, 0, "wakeups") >= 1);
		assert_true(tp_xstat(tx, "tx_q0_intr_kicks") >= 1);
		assert_int_equal(dvp_rx_intr_ctl(rx, 0, set, DVP_RX_INTR_CTL_DEL, NULL), 0);
		assert_int_equal(dvp_rxwait_set_free(set), 0);
	}
	tp_memif_pair_down(srv, cli);
}

/*
 * The pair up with rx interrupts, @rx's queue 0 alone in a new wait set,
 * both ports' counters zeroed.
 */
static struct dvp_rxwait_set *intr_pair_up(uint16_t rx)
{
	struct dvp_port_conf conf = { 0 };
	struct dvp_rxwait_set *set;

	conf.intr_conf.rxq = 1;
	tp_memif_pair_up(srv, cli, 1, 1, &conf);
	set = dvp_rxwait_set_create(1);
	assert_non_null(set);
	assert_int_equal(dvp_rx_intr_ctl(rx, 0, set, DVP_RX_INTR_CTL_ADD, NULL), 0);
	assert_int_equal(dvp_xstats_reset(srv), 0);
	assert_int_equal(dvp_xstats_reset(cli), 0);
	return set;
}

/* A packet already in the ring when arming: the final poll finds it, no sleep. */
static void test_intr_packet_before_arm(void **state)
{
	struct dvp_rx_wait_event ev[1];
	struct dvp_rxwait_set *set;

	(void)state;
	set = intr_pair_up(cli);
	tp_send(srv, 0, 1);
	assert_int_equal(dvp_rx_wait(set, ev, 1, 10000), 1);
	assert_int_equal(tp_qintr(cli, 0, "sleeps"), 0);
	tp_recv_n(cli, 0, 1);
	assert_int_equal(dvp_rxwait_set_free(set), 0);
	tp_memif_pair_down(srv, cli);
}

/*
 * Armed, a packet comes and kicks, the lcore takes it by polling before it
 * reads the event: the next wait finds an event with nothing behind it,
 * counts it spurious, re-arms and sleeps on until its timeout.
 */
static void test_intr_spurious(void **state)
{
	struct dvp_rx_wait_event ev[1];
	struct dvp_rxwait_set *set;

	(void)state;
	set = intr_pair_up(srv);
	assert_int_equal(dvp_rx_intr_enable(srv, 0), 0);
	tp_send(cli, 0, 1);
	assert_int_equal(tp_xstat(cli, "tx_q0_intr_kicks"), 1);
	tp_recv_n(srv, 0, 1);
	assert_int_equal(dvp_rx_wait(set, ev, 1, 20), 0);
	assert_int_equal(tp_qintr(srv, 0, "spurious"), 1);
	assert_int_equal(tp_qintr(srv, 0, "wakeups"), 0);
	assert_int_equal(dvp_rxwait_set_free(set), 0);
	tp_memif_pair_down(srv, cli);
}

/*
 * The client's rx queue is armed while the link is down (nothing to
 * unmask); the server then starts and sends. Connecting kicks the waiter,
 * which arms the new ring, so the packet wakes it: one wait, no timeout.
 */
static void test_intr_armed_while_down(void **state)
{
	struct dvp_port_conf conf = { 0 };
	struct sender sd = { .port = 0, .n = 1, .delay_us = 0 };
	struct dvp_rx_wait_event ev[1];
	struct dvp_rxwait_set *set;
	pthread_t t;

	(void)state;
	conf.intr_conf.rxq = 1;
	tp_port_setup(srv, 1, &conf);
	tp_port_up(cli, 1, &conf);
	set = dvp_rxwait_set_create(1);
	assert_non_null(set);
	assert_int_equal(dvp_rx_intr_ctl(cli, 0, set, DVP_RX_INTR_CTL_ADD, NULL), 0);
	assert_false(tp_link_is_up(cli));
	sd.port = srv;
	sd.start_port = srv;
	assert_int_equal(pthread_create(&t, NULL, sender_main, &sd), 0);
	/* Without the kick at connect this wait would sleep its whole 10 s and return 0. */
	assert_int_equal(dvp_rx_wait(set, ev, 1, 10000), 1);
	assert_int_equal(pthread_join(t, NULL), 0);
	tp_recv_n(cli, 0, 1);
	assert_true(tp_qintr(cli, 0, "sleeps") >= 1);
	assert_int_equal(dvp_rxwait_set_free(set), 0);
	tp_memif_pair_down(srv, cli);
}

/* Stops the peer, waits for the link to go down, starts it again and sends @n. */
struct flapper {
	uint16_t peer; /* the port that goes away and comes back */
	uint16_t rx; /* the port whose lcore sleeps */
	unsigned int n;
};

static void *flapper_main(void *arg)
{
	struct flapper *f = arg;
	struct dvp_mbuf *m;
	unsigned int i;

	usleep(20000); /* the waiter is asleep on the armed ring by now, or soon */
	assert_int_equal(dvp_port_stop(f->peer), 0);
	while (tp_link_is_up(f->rx))
		usleep(100);
	assert_int_equal(dvp_port_start(f->peer), 0);
	while (!tp_link_is_up(f->peer) || !tp_link_is_up(f->rx))
		usleep(100);
	for (i = 0; i < f->n; i++) {
		m = tp_frame((uint8_t)i);
		while (dvp_tx_burst(f->peer, 0, &m, 1) == 0)
			usleep(10);
	}
	return NULL;
}

/*
 * Each role's rx queue is armed and asleep when its peer leaves; the peer
 * comes back on a new ring and sends. The new ring is masked at connect
 * and what lib/rxwait remembers arming was the old one: only the queue's
 * kick at connect makes the sleeping lcore wake, poll and arm the new ring.
 * Without it this wait sleeps its whole 10 s and returns 0.
 */
static void test_intr_reconnect_while_asleep(void **state)
{
	struct dvp_port_conf conf = { 0 };
	struct dvp_rx_wait_event ev[1];
	struct dvp_rxwait_set *set;
	struct flapper f = { .n = 3 };
	unsigned int got;
	uint16_t role;
	pthread_t t;
	int r;

	(void)state;
	conf.intr_conf.rxq = 1;
	tp_memif_pair_up(srv, cli, 1, 1, &conf);
	for (role = 0; role < 2; role++) {
		f.rx = role == 0 ? cli : srv;
		f.peer = role == 0 ? srv : cli;
		set = dvp_rxwait_set_create(1);
		assert_non_null(set);
		assert_int_equal(dvp_rx_intr_ctl(f.rx, 0, set, DVP_RX_INTR_CTL_ADD, NULL), 0);
		/* Armed on this connection's ring, with nothing in it. */
		assert_int_equal(dvp_rx_wait(set, ev, 1, 0), 0);
		assert_int_equal(pthread_create(&t, NULL, flapper_main, &f), 0);
		got = 0;
		while (got < f.n) {
			r = dvp_rx_wait(set, ev, 1, 10000);
			assert_true(r >= 0);
			if (r == 0)
				fail_msg("role %u: no wake-up in 10 s after a reconnect (%u of %u)",
					 role, got, f.n);
			got += tp_recv_all(f.rx, 0);
		}
		assert_int_equal(pthread_join(t, NULL), 0);
		assert_int_equal(got, f.n);
		assert_int_equal(dvp_rx_intr_ctl(f.rx, 0, set, DVP_RX_INTR_CTL_DEL, NULL), 0);
		assert_int_equal(dvp_rxwait_set_free(set), 0);
	}
	tp_memif_pair_down(srv, cli);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_intr_wakeups),
		cmocka_unit_test(test_intr_packet_before_arm),
		cmocka_unit_test(test_intr_spurious),
		cmocka_unit_test(test_intr_armed_while_down),
		cmocka_unit_test(test_intr_reconnect_while_asleep),
	};

	return cmocka_run_group_tests(tests, setup, tp_teardown);
}
