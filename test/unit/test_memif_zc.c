/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * drivers/net/memif's zero-copy client (memif_zc.c) against our copy-mode
 * server, both in this process: traffic both ways with contents checked,
 * chains each way, a dry pool on rx (rx_nombuf, nothing lost), a
 * disconnect with mbufs on both rings, a frame in memory the server cannot
 * see, rx interrupts (a sleeping zero-copy rx queue woken by the server in
 * another thread), and every mbuf back in its pool after each test.
 */

#include "test_port_helpers.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include <dvp_rxwait.h>
#include <dvp_malloc.h>
#include <dvp_memzone.h>
#include <dvp_net_memif.h>

static char sock[64];
static uint16_t srv, cli;

static int setup(void **state)
{
	(void)state;
	return tp_memif_pair_init(sock, sizeof(sock), "zc", "", ",rsize=8,zero-copy=yes", &srv,
				  &cli);
}

static void pair_up_conf(uint16_t nq, const struct dvp_port_conf *conf)
{
	tp_port_up(srv, nq, conf);
	tp_port_up(cli, nq, conf);
	TP_WAIT_FOR(tp_link_is_up(srv) && tp_link_is_up(cli));
}

static void pair_up(uint16_t nq)
{
	tp_port_up(srv, nq, NULL);
	tp_port_up(cli, nq, NULL);
	TP_WAIT_FOR(tp_link_is_up(srv) && tp_link_is_up(cli));
}

static void pair_down(void)
{
	assert_int_equal(dvp_port_stop(cli), 0);
	assert_int_equal(dvp_port_stop(srv), 0);
	assert_int_equal(dvp_port_mbufs_held(cli), 0);
	tp_assert_pool_full();
}

static void test_devargs(void **state)
{
	struct dvp_log_capture cap;

	(void)state;
	dvp_log_capture_begin(&cap);
	assert_true(dvp_vdev_create("net_memif9,zero-copy=maybe") < 0);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "zero-copy");
	dvp_log_capture_free(&cap);
}

/* Both ways on two queues, contents checked; the rings hold mbufs while connected. */
static void test_traffic_both_ways(void **state)
{
	struct dvp_port_stats st_s, st_c;
	struct dvp_mbuf *pkts[64], *m;
	uint16_t q, n, i;

	(void)state;
	pair_up(2);
	/* Every rx slot holds a posted mbuf: 2 rings of 2^8. */
	assert_int_equal(dvp_port_mbufs_held(cli), 512);
	assert_int_equal(dvp_pktmbuf_pool_in_use(tp_pool), 512);
	for (q = 0; q < 2; q++) {
		for (i = 0; i < 40; i++) {
			m = tp_pattern_frame(tp_pool, 60 + i, (uint8_t)(q * 100 + i), 2048);
			assert_int_equal(dvp_tx_burst(cli, q, &m, 1), 1);
			m = tp_pattern_frame(tp_pool, 100 + i, (uint8_t)(q * 50 + i), 2048);
			assert_int_equal(dvp_tx_burst(srv, q, &m, 1), 1);
		}
	}
	/* The client's frames wait on the ring, in their own mbufs. */
	assert_int_equal(dvp_port_mbufs_held(cli), 512 + 80);
	for (q = 0; q < 2; q++) {
		n = dvp_rx_burst(srv, q, pkts, 64);
		assert_int_equal(n, 40);
		for (i = 0; i < n; i++)
			tp_check_pattern(pkts[i], 60 + i, (uint8_t)(q * 100 + i));
		dvp_pktmbuf_free_bulk(pkts, n);
		n = dvp_rx_burst(cli, q, pkts, 64);
		assert_int_equal(n, 40);
		for (i = 0; i < n; i++) {
			assert_int_equal(pkts[i]->port, cli);
			assert_ptr_equal(pkts[i]->pool, tp_pool);
			tp_check_pattern(pkts[i], 100 + i, (uint8_t)(q * 50 + i));
		}
		dvp_pktmbuf_free_bulk(pkts, n);
	}
	/* The next tx burst frees what the server released; rx refilled its slots. */
	tp_send(cli, 0, 1);
	tp_send(cli, 1, 1);
	assert_int_equal(dvp_port_mbufs_held(cli), 512 + 2);
	tp_recv_n(srv, 0, 1);
	tp_recv_n(srv, 1, 1);
	assert_int_equal(dvp_stats_get(srv, &st_s), 0);
	assert_int_equal(dvp_stats_get(cli, &st_c), 0);
	assert_int_equal(st_c.opackets, 82);
	assert_int_equal(st_c.ipackets, 80);
	assert_int_equal(st_s.ipackets, 82);
	assert_int_equal(st_c.obytes, st_s.ibytes);
	assert_int_equal(st_c.ierrors + st_c.oerrors + st_c.rx_nombuf + st_s.ierrors, 0);
	pair_down();
}

/* Chains each way: our segments as descriptors, the server's chains as mbuf chains. */
static void test_chained(void **state)
{
	static const uint32_t lens[] = { 1, 99, 100, 101, 1000, 2047, 2048, 2049, 9000 };
	struct dvp_mbuf *pkts[16], *m;
	uint16_t n, i;

	(void)state;
	pair_up(1);
	for (i = 0; i < DVP_DIM(lens); i++) {
		m = tp_pattern_frame(tp_pool, lens[i], (uint8_t)(3 * i), 100);
		assert_int_equal(dvp_tx_burst(cli, 0, &m, 1), 1);
		m = tp_pattern_frame(tp_pool, lens[i], (uint8_t)(5 * i), 2048);
		assert_int_equal(dvp_tx_burst(srv, 0, &m, 1), 1);
	}
	n = dvp_rx_burst(srv, 0, pkts, 16);
	assert_int_equal(n, DVP_DIM(lens));
	for (i = 0; i < n; i++)
		tp_check_pattern(pkts[i], lens[i], (uint8_t)(3 * i));
	dvp_pktmbuf_free_bulk(pkts, n);
	n = dvp_rx_burst(cli, 0, pkts, 16);
	assert_int_equal(n, DVP_DIM(lens));
	for (i = 0; i < n; i++) {
		tp_check_pattern(pkts[i], lens[i], (uint8_t)(5 * i));
		/* Each mbuf has 2048 bytes of room: 9000 bytes came in 5. */
		assert_int_equal(pkts[i]->nb_segs, (lens[i] + 2047) / 2048);
	}
	dvp_pktmbuf_free_bulk(pkts, n);
	/* A chain longer than the ring: refused, kept by the caller. */
	m = tp_pattern_frame(tp_pool, 257 * 8, 0, 8);
	assert_int_equal(dvp_tx_burst(cli, 0, &m, 1), 0);
	assert_true(tp_xstat(cli, "tx_q0_ring_full") >= 1);
	dvp_pktmbuf_free(m);
	pair_down();
}

/* A pool that runs dry: rx_nombuf counted, the slots refilled later, nothing lost. */
static void test_rx_nombuf(void **state)
{
	struct dvp_mbuf *held[300], *m;
	struct dvp_mempool *small;
	struct dvp_port_stats st;
	unsigned int got = 0, i;
	uint16_t n;
	int spins;

	(void)state;
	/* 256 posted at connect, 8 to spare. */
	small = dvp_pktmbuf_pool_create("zc_small", 264, 0, 0, DVP_MBUF_DEFAULT_BUF_SIZE,
					DVP_SOCKET_ANY);
	assert_non_null(small);
	tp_port_up(srv, 1, NULL);
	assert_int_equal(dvp_port_configure(cli, 1, 1, NULL), 0);
	assert_int_equal(dvp_rxq_setup(cli, 0, 0, DVP_SOCKET_ANY, NULL, small), 0);
	assert_int_equal(dvp_txq_setup(cli, 0, 0, DVP_SOCKET_ANY, NULL), 0);
	assert_int_equal(dvp_port_start(cli), 0);
	TP_WAIT_FOR(tp_link_is_up(srv) && tp_link_is_up(cli));
	assert_int_equal(dvp_pktmbuf_pool_in_use(small), 256);
	assert_int_equal(dvp_stats_reset(cli), 0);
	/* The server fills 200 slots; we keep every mbuf we receive. */
	for (i = 0; i < 200; i++) {
		m = tp_pattern_frame(tp_pool, 64, (uint8_t)i, 2048);
		assert_int_equal(dvp_tx_burst(srv, 0, &m, 1), 1);
	}
	while (got < 200) {
		n = dvp_rx_burst(cli, 0, &held[got], 32);
		assert_true(n > 0);
		for (i = 0; i < n; i++)
			tp_check_pattern(held[got + i], 64, (uint8_t)(got + i));
		got += n;
	}
	/* 8 spare slots' worth was posted, then the pool was dry. */
	assert_int_equal(dvp_stats_get(cli, &st), 0);
	assert_true(st.rx_nombuf >= 1);
	assert_int_equal(dvp_pktmbuf_pool_in_use(small), 264);
	assert_int_equal(dvp_port_mbufs_held(cli), 256 - 200 + 8);
	/* The server has room for exactly what was posted. */
	for (i = 0; i < 70; i++) {
		m = tp_pattern_frame(tp_pool, 64, (uint8_t)i, 2048);
		if (dvp_tx_burst(srv, 0, &m, 1) == 0) {
			dvp_pktmbuf_free(m);
			break;
		}
	}
	assert_int_equal(i, 64);
	/* Mbufs back in the pool: the next bursts post them and take the 64. */
	dvp_pktmbuf_free_bulk(held, got);
	got = 0;
	for (spins = 0; got < 64 && spins < 1000; spins++) {
		n = dvp_rx_burst(cli, 0, held, 32);
		dvp_pktmbuf_free_bulk(held, n);
		got += n;
	}
	assert_int_equal(got, 64);
	assert_int_equal(dvp_rx_burst(cli, 0, held, 32), 0);
	assert_int_equal(dvp_port_mbufs_held(cli), 256);
	tp_send(srv, 0, 10);
	tp_recv_n(cli, 0, 10);
	assert_int_equal(dvp_port_stop(cli), 0);
	assert_int_equal(dvp_port_stop(srv), 0);
	assert_int_equal(dvp_pktmbuf_pool_in_use(small), 0);
	tp_assert_pool_full();
	/* Queues set up again on tp_pool before the small pool goes. */
	tp_port_setup(cli, 1, NULL);
	dvp_mempool_free(small);
}

/* The server leaves with mbufs on both rings: all of them come back; the client reconnects. */
static void test_disconnect_in_flight(void **state)
{
	(void)state;
	pair_up(1);
	tp_send(cli, 0, 100); /* the server does not read them */
	tp_send(srv, 0, 50); /* we do not read them */
	assert_int_equal(dvp_port_mbufs_held(cli), 256 + 100);
	assert_int_equal(dvp_net_memif_tx_pending(cli, 0), 100);
	assert_int_equal(dvp_port_stop(srv), 0);
	TP_WAIT_FOR(!tp_link_is_up(cli));
	assert_int_equal(dvp_port_mbufs_held(cli), 0);
	tp_assert_pool_full();
	/* Back again: a whole ring posted, traffic both ways. */
	assert_int_equal(dvp_port_start(srv), 0);
	TP_WAIT_FOR(tp_link_is_up(cli) && tp_link_is_up(srv));
	assert_int_equal(dvp_port_mbufs_held(cli), 256);
	tp_send(cli, 0, 7);
	tp_recv_n(srv, 0, 7);
	tp_send(srv, 0, 4);
	tp_recv_n(cli, 0, 4);
	/* And we stop first, with frames in flight again. */
	tp_send(cli, 0, 20);
	tp_send(srv, 0, 30);
	pair_down();
}

/* A frame in memory the server was not given (a pool made after connect): dropped, counted. */
static void test_unexported_memory_dropped(void **state)
{
	struct dvp_malloc_socket_stats ms;
	const struct dvp_memzone *mz;
	struct dvp_mempool *late;
	struct dvp_port_stats st;
	struct dvp_mbuf *m[2];
	int sock_id;

	(void)state;
	pair_up(1);
	/* Take the heap's free space so that the next pool needs a new segment. */
	sock_id = dvp_malloc_socket_of(tp_pool);
	assert_true(sock_id >= 0);
	assert_int_equal(dvp_malloc_get_socket_stats(sock_id, &ms), 0);
	mz = dvp_memzone_reserve("zc_fill", ms.greatest_free_size - 4096, sock_id, 0);
	assert_non_null(mz);
	late = dvp_pktmbuf_pool_create("zc_late", 63, 0, 0, DVP_MBUF_DEFAULT_BUF_SIZE, sock_id);
	assert_non_null(late);
	assert_int_equal(dvp_stats_reset(cli), 0);
	m[0] = tp_pattern_frame(late, 60, 1, 2048);
	m[1] = tp_pattern_frame(tp_pool, 60, 2, 2048);
	/* Both taken: the first dropped, the second sent. */
	assert_int_equal(dvp_tx_burst(cli, 0, m, 2), 2);
	assert_int_equal(dvp_pktmbuf_pool_in_use(late), 0);
	assert_int_equal(tp_xstat(cli, "tx_q0_zc_unexported"), 1);
	assert_int_equal(dvp_stats_get(cli, &st), 0);
	assert_int_equal(st.oerrors, 1);
	assert_int_equal(st.opackets, 1);
	tp_recv_n(srv, 0, 1);
	pair_down();
	dvp_mempool_free(late);
	assert_int_equal(dvp_memzone_free(mz), 0);
}

/* The server sends 20 frames 2 ms apart from another thread. */
static void *server_sender(void *arg)
{
	struct dvp_mbuf *m;
	unsigned int i;

	(void)arg;
	for (i = 0; i < 20; i++) {
		usleep(2000);
		m = tp_frame((uint8_t)i);
		while (dvp_tx_burst(srv, 0, &m, 1) == 0)
			usleep(10);
	}
	return NULL;
}

/* The zero-copy rx queue in interrupt mode sleeps and is woken by the server's kicks. */
static void test_rx_interrupts(void **state)
{
	struct dvp_port_conf conf = { 0 };
	struct dvp_rx_wait_event ev[1];
	struct dvp_rxwait_set *set;
	unsigned int got = 0;
	pthread_t t;

	(void)state;
	conf.intr_conf.rxq = 1;
	pair_up_conf(1, &conf);
	set = dvp_rxwait_set_create(1);
	assert_non_null(set);
	assert_int_equal(dvp_rx_intr_ctl(cli, 0, set, DVP_RX_INTR_CTL_ADD, NULL), 0);
	assert_int_equal(dvp_xstats_reset(cli), 0);
	assert_int_equal(dvp_xstats_reset(srv), 0);
	assert_int_equal(pthread_create(&t, NULL, server_sender, NULL), 0);
	while (got < 20) {
		unsigned int k = tp_recv_all(cli, 0);

		got += k;
		if (got < 20 && k == 0) {
			int r = dvp_rx_wait(set, ev, 1, 10000);

			assert_true(r >= 0);
			if (r == 0)
				fail_msg("no wake-up in 10 s after %u of 20 packets", got);
		}
	}
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(got, 20);
	assert_true(tp_xstat(cli, "rx_q0_intr_sleeps") >= 1);
	assert_true(tp_xstat(srv, "tx_q0_intr_kicks") >= 1);
	assert_int_equal(dvp_rx_intr_ctl(cli, 0, set, DVP_RX_INTR_CTL_DEL, NULL), 0);
	assert_int_equal(dvp_rxwait_set_free(set), 0);
	pair_down();
	/* Back to polling queues for the tests after this one. */
	tp_port_setup(srv, 1, NULL);
	tp_port_setup(cli, 1, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_devargs),
		cmocka_unit_test(test_traffic_both_ways),
		cmocka_unit_test(test_chained),
		cmocka_unit_test(test_rx_nombuf),
		cmocka_unit_test(test_disconnect_in_flight),
		cmocka_unit_test(test_unexported_memory_dropped),
		cmocka_unit_test(test_rx_interrupts),
	};

	return cmocka_run_group_tests(tests, setup, tp_teardown);
}
