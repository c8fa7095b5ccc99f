/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * drivers/net/memif as a port, both ends in this process (a server port
 * and a client port on one abstract socket): devargs, traffic both ways
 * with contents checked, chained descriptors, fewer rings than queues,
 * stop and reconnect with every mbuf back, stats and xstats, a peer that
 * breaks the ring. Interrupt mode is test_memif_intr.c's, the control
 * sockets test_memif_socket.c's.
 *
 * Results are counts and contents; waits for a connection are bounded
 * (a hung peer fails the test, a slow machine only makes it slower).
 */

#include "test_port_helpers.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <dvp_interrupts.h>
#include <dvp_net_memif.h>
#include <dvp_port_driver.h>

#include "memif_rxtx.h" /* a hostile peer writes the ring's indexes */

static char sock[64];
static uint16_t srv, cli;

static int vdev(const char *fmt, ...) __dvp_format_printf(1, 2);
static int vdev(const char *fmt, ...)
{
	char args[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	return dvp_vdev_create(args);
}

static int setup(void **state)
{
	(void)state;
	return tp_memif_pair_init(sock, sizeof(sock), "port", ",id=3", ",id=3,rsize=8", &srv, &cli);
}

/* ------------------------------------------------------------------------
 * Devargs
 */

static void test_devargs(void **state)
{
	struct dvp_log_capture cap;

	(void)state;
	dvp_log_capture_begin(&cap);
	assert_true(vdev("net_memif9,role=master") < 0);
	assert_true(vdev("net_memif9,rsize=15") < 0);
	assert_true(vdev("net_memif9,bsize=32") < 0);
	assert_true(vdev("net_memif9,secret=0123456789012345678901234") < 0);
	assert_true(vdev("net_memif9,mac=03:00:00:00:00:01") < 0);
	assert_true(vdev("net_memif9,mac=02:00:00:00:01") < 0);
	assert_true(vdev("net_memif9,nb_rx_queues=0") < 0);
	assert_true(vdev("net_memif9,rsise=10") < 0);
	assert_true(vdev("net_memif9,socket-abstract=maybe") < 0);
	/* The same id twice on one socket in one role, a socket in no directory: bad values. */
	assert_int_equal(vdev("net_memif9,role=server,socket=%s,id=3", sock), -EINVAL);
	assert_int_equal(
		vdev("net_memif9,role=server,socket=/nonexistent/m.sock,socket-abstract=no"),
		-EINVAL);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "role");
	assert_contains(cap.buf, "rsize");
	assert_contains(cap.buf, "bsize");
	assert_contains(cap.buf, "secret of 25 bytes: a secret has at most 24");
	assert_contains(cap.buf, "mac=03:00:00:00:00:01 is a multicast address");
	assert_contains(cap.buf, "mac=02:00:00:00:01 is not a MAC address");
	assert_contains(cap.buf, "nb_rx_queues");
	assert_contains(cap.buf, "'rsise'");
	assert_contains(cap.buf, "socket-abstract");
	assert_contains(cap.buf, "id 3 is taken on socket");
	assert_contains(cap.buf, "cannot listen on /nonexistent/m.sock");
	dvp_log_capture_free(&cap);
	/* Nothing was left behind by the failures. */
	assert_int_equal(dvp_port_count(), 2);
}

static void test_info(void **state)
{
	struct dvp_port_info info;

	(void)state;
	assert_int_equal(vdev("net_memif9,socket=%s-info,nb_rx_queues=3,nb_tx_queues=5", sock), 0);
	assert_int_equal(dvp_port_info_get(tp_port("net_memif9"), &info), 0);
	assert_string_equal(info.driver_name, "net_memif");
	assert_int_equal(info.max_rx_queues, 3);
	assert_int_equal(info.max_tx_queues, 5);
	assert_int_equal(info.default_rxq_size, 1024);
	assert_true(info.intr_capa & DVP_PORT_INTR_RXQ);
	assert_true(info.intr_capa & DVP_PORT_INTR_LSC);
	/* More queues than nb_rx_queues: refused by lib/port. */
	assert_true(dvp_port_configure(tp_port("net_memif9"), 4, 1, NULL) < 0);
	assert_int_equal(dvp_dev_remove("net_memif9"), 0);
}

/* ------------------------------------------------------------------------
 * Traffic
 */

/* Both ways on two queues, contents and queue mapping checked, stats counted. */
static void test_traffic_both_ways(void **state)
{
	struct dvp_port_stats st_s, st_c;
	struct dvp_mbuf *pkts[64], *m;
	uint16_t q, n, i;

	(void)state;
	tp_memif_pair_up(srv, cli, 2, 2, NULL);
	assert_int_equal(tp_xstat(cli, "connects"), 1);
	assert_int_equal(tp_xstat(srv, "connects"), 1);
	assert_int_equal(dvp_xstats_reset(srv), 0);
	assert_int_equal(dvp_xstats_reset(cli), 0);
	for (q = 0; q < 2; q++) {
		for (i = 0; i < 40; i++) {
			m = tp_pattern_frame(tp_pool, 60 + i, (uint8_t)(q * 100 + i), 2048);
			assert_int_equal(dvp_tx_burst(cli, q, &m, 1), 1);
			m = tp_pattern_frame(tp_pool, 100 + i, (uint8_t)(q * 50 + i), 2048);
			assert_int_equal(dvp_tx_burst(srv, q, &m, 1), 1);
		}
	}
	for (q = 0; q < 2; q++) {
		n = dvp_rx_burst(srv, q, pkts, 64);
		assert_int_equal(n, 40);
		for (i = 0; i < n; i++) {
			assert_int_equal(pkts[i]->port, srv);
			tp_check_pattern(pkts[i], 60 + i, (uint8_t)(q * 100 + i));
		}
		dvp_pktmbuf_free_bulk(pkts, n);
		n = dvp_rx_burst(cli, q, pkts, 64);
		assert_int_equal(n, 40);
		for (i = 0; i < n; i++) {
			assert_int_equal(pkts[i]->port, cli);
			tp_check_pattern(pkts[i], 100 + i, (uint8_t)(q * 50 + i));
		}
		dvp_pktmbuf_free_bulk(pkts, n);
	}
	assert_int_equal(dvp_stats_get(srv, &st_s), 0);
	assert_int_equal(dvp_stats_get(cli, &st_c), 0);
	assert_int_equal(st_s.ipackets, 80);
	assert_int_equal(st_s.opackets, 80);
	assert_int_equal(st_c.ipackets, 80);
	assert_int_equal(st_c.q_ipackets[1], 40);
	assert_int_equal(st_s.ibytes, 2 * (40 * 60 + 39 * 40 / 2));
	assert_int_equal(st_c.obytes, st_s.ibytes);
	assert_int_equal(st_s.ierrors + st_c.ierrors + st_s.rx_nombuf, 0);
	/* Polling receivers mask their rings: no eventfd write was made. */
	assert_int_equal(tp_xstat(srv, "tx_q0_intr_kicks") + tp_xstat(cli, "tx_q0_intr_kicks"), 0);
	tp_memif_pair_down(srv, cli);
}

/* A full ring refuses the rest (the caller keeps it); the peer's reads make room. */
static void test_ring_full(void **state)
{
	unsigned int sent = 0;
	struct dvp_mbuf *m;

	(void)state;
	tp_memif_pair_up(srv, cli, 1, 1, NULL);
	for (;;) {
		m = tp_frame((uint8_t)sent);
		if (dvp_tx_burst(cli, 0, &m, 1) == 0) {
			dvp_pktmbuf_free(m);
			break;
		}
		sent++;
	}
	assert_int_equal(sent, 256); /* rsize=8 */
	assert_int_equal(dvp_net_memif_tx_pending(cli, 0), 256);
	assert_int_equal(tp_xstat(cli, "tx_q0_ring_full"), 1);
	tp_recv_n(srv, 0, 256);
	assert_int_equal(dvp_net_memif_tx_pending(cli, 0), 0);
	tp_send(cli, 0, 5);
	tp_recv_n(srv, 0, 5);
	tp_memif_pair_down(srv, cli);
}

/*
 * The server's side of a full ring: every buffer the client posted is
 * taken, and each burst that then finds no room, or runs out of it part
 * way, is counted.
 */
static void test_ring_full_server(void **state)
{
	struct dvp_mbuf *pkts[4], *m;
	unsigned int i;

	(void)state;
	tp_memif_pair_up(srv, cli, 1, 1, NULL);
	/* Two short of full, then a burst of 4 that sends 2. */
	tp_send(srv, 0, 254); /* rsize=8: the client posted 256 buffers */
	for (i = 0; i < 4; i++)
		pkts[i] = tp_frame((uint8_t)i);
	assert_int_equal(dvp_tx_burst(srv, 0, pkts, 4), 2);
	assert_int_equal(tp_xstat(srv, "tx_q0_ring_full"), 1);
	/* Full: nothing sent, counted again. */
	assert_int_equal(dvp_tx_burst(srv, 0, pkts + 2, 2), 0);
	assert_int_equal(tp_xstat(srv, "tx_q0_ring_full"), 2);
	dvp_pktmbuf_free_bulk(pkts + 2, 2);
	tp_recv_n(cli, 0, 256);
	m = tp_frame(0);
	assert_int_equal(dvp_tx_burst(srv, 0, &m, 1), 1);
	tp_recv_n(cli, 0, 1);
	assert_int_equal(tp_xstat(srv, "tx_q0_ring_full"), 2);
	tp_memif_pair_down(srv, cli);
}

struct reader {
	uint16_t port;
	unsigned int want;
	unsigned int got;
};

/* Receive until @want frames came or 10 s passed. */
static void *read_frames(void *arg)
{
	struct reader *rd = arg;
	unsigned int i;

	for (i = 0; i < 100000 && __atomic_load_n(&rd->got, __ATOMIC_RELAXED) < rd->want; i++) {
		unsigned int k = tp_recv_all(rd->port, 0);

		__atomic_fetch_add(&rd->got, k, __ATOMIC_RELAXED);
		if (k == 0)
			usleep(100);
	}
	return NULL;
}

/*
 * Frames still on the client's tx ring when it stops: a server that keeps
 * reading gets every one (the stop waits while it takes them); from one
 * that does not read, the stop gives up and counts them lost
 * (tx_q0_lost_on_ring, in oerrors), with a line.
 */
static void test_stop_with_frames_on_ring(void **state)
{
	struct reader rd = { .want = 200 };
	struct dvp_log_capture cap;
	struct dvp_port_stats st;
	pthread_t t;

	(void)state;
	tp_memif_pair_up(srv, cli, 1, 1, NULL);
	assert_int_equal(dvp_xstats_reset(cli), 0);
	assert_int_equal(dvp_stats_reset(cli), 0);
	rd.port = srv;
	assert_int_equal(pthread_create(&t, NULL, read_frames, &rd), 0);
	tp_send(cli, 0, 200);
	assert_int_equal(dvp_port_stop(cli), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(rd.got, 200);
	assert_int_equal(tp_xstat(cli, "tx_q0_lost_on_ring"), 0);

	assert_int_equal(dvp_port_start(cli), 0);
	TP_WAIT_FOR(tp_link_is_up(srv) && tp_link_is_up(cli));
	tp_send(cli, 0, 30);
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_port_stop(cli), 0);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "tx queue 0: 30 frames the peer had not taken when the "
				 "connection went down: counted in tx_q0_lost_on_ring and oerrors");
	dvp_log_capture_free(&cap);
	assert_int_equal(tp_xstat(cli, "tx_q0_lost_on_ring"), 30);
	assert_int_equal(dvp_stats_get(cli, &st), 0);
	assert_int_equal(st.opackets, 230);
	assert_int_equal(st.oerrors, 30);
	assert_int_equal(dvp_port_stop(srv), 0);
	tp_assert_pool_full();
}

/*
 * Frames of @lens from client @c to server @s and back, each sent in
 * @seg-byte segments: every one arrives intact, and in @rx_seg-byte
 * segments when @rx_seg is not 0 (an mbuf's data room).
 */
static void exchange_frames(uint16_t s, uint16_t c, const uint32_t *lens, uint16_t count,
			    uint16_t seg, uint32_t rx_seg)
{
	struct dvp_mbuf *pkts[16], *m;
	uint16_t n, i, dir;

	assert_true(count <= DVP_DIM(pkts));
	for (dir = 0; dir < 2; dir++) {
		uint16_t from = dir ? s : c, to = dir ? c : s;

		for (i = 0; i < count; i++) {
			m = tp_pattern_frame(tp_pool, lens[i], (uint8_t)(7 * i + dir), seg);
			assert_int_equal(dvp_tx_burst(from, 0, &m, 1), 1);
		}
		n = dvp_rx_burst(to, 0, pkts, DVP_DIM(pkts));
		assert_int_equal(n, count);
		for (i = 0; i < n; i++) {
			tp_check_pattern(pkts[i], lens[i], (uint8_t)(7 * i + dir));
			if (rx_seg != 0)
				assert_int_equal(pkts[i]->nb_segs, (lens[i] + rx_seg - 1) / rx_seg);
		}
		dvp_pktmbuf_free_bulk(pkts, n);
	}
}

/* bsize=64: frames of many buffers both ways, mbuf chains in and out. */
static void test_chained(void **state)
{
	uint32_t lens[] = { 1, 63, 64, 65, 1000, 9000 };
	struct dvp_mbuf *m;
	uint16_t s, c;

	(void)state;
	assert_int_equal(vdev("net_memif_s1,role=server,socket=%s-ch", sock), 0);
	assert_int_equal(vdev("net_memif_c1,role=client,socket=%s-ch,bsize=64,rsize=9", sock), 0);
	s = tp_port("net_memif_s1");
	c = tp_port("net_memif_c1");
	tp_memif_pair_up(s, c, 1, 1, NULL);
	/* Sent as chains of 100-byte segments. */
	exchange_frames(s, c, lens, DVP_DIM(lens), 100, 0);
	/* A frame bigger than the ring's buffers: refused, kept by the caller. */
	m = tp_pattern_frame(tp_pool, 64 * 512 + 1, 0, 2048);
	assert_int_equal(dvp_tx_burst(c, 0, &m, 1), 0);
	dvp_pktmbuf_free(m);
	tp_memif_pair_down(s, c);
	assert_int_equal(dvp_dev_remove("net_memif_s1"), 0);
	assert_int_equal(dvp_dev_remove("net_memif_c1"), 0);
}

/*
 * bsize=16384: each frame in one buffer, whatever its length. Lengths
 * around the inline copy's steps (16, 32, 64, 128 bytes) and an mbuf's
 * data room (2048), sent in 2048-byte segments: the bursts' one-segment
 * path for the short ones; a single buffer larger than an mbuf (a jumbo
 * frame) arrives as a chain.
 */
static void test_one_buffer_any_length(void **state)
{
	uint32_t lens[] = { 1, 16, 17, 33, 64, 65, 128, 129, 2047, 2048, 2049, 9000 };
	uint16_t s, c;

	(void)state;
	assert_int_equal(vdev("net_memif_s2,role=server,socket=%s-big", sock), 0);
	assert_int_equal(vdev("net_memif_c2,role=client,socket=%s-big,bsize=16384,rsize=5", sock),
			 0);
	s = tp_port("net_memif_s2");
	c = tp_port("net_memif_c2");
	tp_memif_pair_up(s, c, 1, 1, NULL);
	exchange_frames(s, c, lens, DVP_DIM(lens), 2048, 2048);
	tp_memif_pair_down(s, c);
	assert_int_equal(dvp_dev_remove("net_memif_s2"), 0);
	assert_int_equal(dvp_dev_remove("net_memif_c2"), 0);
	tp_assert_pool_full();
}

/* The client asks for one ring each way; the server's second queue stays idle. */
static void test_fewer_rings_than_queues(void **state)
{
	struct dvp_mbuf *m;

	(void)state;
	tp_memif_pair_up(srv, cli, 2, 1, NULL);
	tp_send(cli, 0, 3);
	tp_recv_n(srv, 0, 3);
	assert_int_equal(tp_recv_all(srv, 1), 0);
	m = tp_frame(1);
	assert_int_equal(dvp_tx_burst(srv, 1, &m, 1), 0);
	dvp_pktmbuf_free(m);
	tp_send(srv, 0, 2);
	tp_recv_n(cli, 0, 2);
	tp_memif_pair_down(srv, cli);
}

static unsigned int link_events;

static void on_lsc(uint16_t port_id, enum dvp_port_event event,
		   const struct dvp_port_event_info *info, void *arg)
{
	(void)port_id;
	(void)event;
	(void)info;
	(void)arg;
	__atomic_fetch_add(&link_events, 1, __ATOMIC_RELAXED);
}

/* The server goes away and comes back: the client's link follows, it reconnects. */
static void test_reconnect(void **state)
{
	struct dvp_port_conf conf = { 0 };

	(void)state;
	conf.intr_conf.lsc = 1;
	assert_int_equal(
		dvp_port_event_register(cli, DVP_PORT_EVENT_LINK_STATUS_CHANGE, on_lsc, NULL), 0);
	__atomic_store_n(&link_events, 0, __ATOMIC_RELAXED);
	tp_memif_pair_up(srv, cli, 1, 1, &conf);
	TP_WAIT_FOR(__atomic_load_n(&link_events, __ATOMIC_RELAXED) == 1);
	assert_int_equal(dvp_xstats_reset(cli), 0);
	tp_send(cli, 0, 10);
	assert_int_equal(dvp_port_stop(srv), 0);
	TP_WAIT_FOR(!tp_link_is_up(cli));
	TP_WAIT_FOR(__atomic_load_n(&link_events, __ATOMIC_RELAXED) == 2);
	/* What was in the rings went with the connection: nothing held, nothing leaked. */
	assert_int_equal(dvp_port_mbufs_held(cli), 0);
	tp_assert_pool_full();
	assert_int_equal(tp_xstat(cli, "disconnects"), 1);
	/* The server left with our 10 frames unread on the ring: counted lost. */
	TP_WAIT_FOR(tp_xstat(cli, "tx_q0_lost_on_ring") == 10);
	assert_int_equal(dvp_port_start(srv), 0);
	TP_WAIT_FOR(tp_link_is_up(cli) && tp_link_is_up(srv));
	TP_WAIT_FOR(__atomic_load_n(&link_events, __ATOMIC_RELAXED) == 3);
	assert_int_equal(tp_xstat(cli, "connects"), 1);
	tp_send(cli, 0, 7);
	tp_recv_n(srv, 0, 7);
	tp_send(srv, 0, 4);
	tp_recv_n(cli, 0, 4);
	tp_memif_pair_down(srv, cli);
	assert_int_equal(
		dvp_port_event_unregister(cli, DVP_PORT_EVENT_LINK_STATUS_CHANGE, on_lsc, NULL), 0);
}

/* A wrong secret: refused with the reason on both sides, no connection. */
static void test_bad_secret(void **state)
{
	struct dvp_log_capture cap;
	uint16_t s, c;

	(void)state;
	assert_int_equal(vdev("net_memif_s2,role=server,socket=%s-sec,secret=right", sock), 0);
	assert_int_equal(vdev("net_memif_c2,role=client,socket=%s-sec,secret=wrong", sock), 0);
	s = tp_port("net_memif_s2");
	c = tp_port("net_memif_c2");
	dvp_log_capture_begin(&cap);
	tp_port_up(s, 1, NULL);
	tp_port_up(c, 1, NULL);
	TP_WAIT_FOR(tp_xstat(c, "handshakes_refused") >= 1 &&
		    tp_xstat(s, "handshakes_refused") >= 1);
	assert_int_equal(dvp_port_stop(c), 0);
	assert_int_equal(dvp_port_stop(s), 0);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "closing the control channel: Incorrect secret");
	assert_contains(cap.buf, "connection refused: Incorrect secret (said the peer)");
	dvp_log_capture_free(&cap);
	assert_int_equal(tp_xstat(c, "connects"), 0);
	assert_int_equal(dvp_dev_remove("net_memif_s2"), 0);
	assert_int_equal(dvp_dev_remove("net_memif_c2"), 0);
}

static unsigned int count_of(const char *hay, const char *needle)
{
	unsigned int n = 0;

	for (hay = strstr(hay, needle); hay != NULL; hay = strstr(hay + 1, needle))
		n++;
	return n;
}

/* Holds the EAL interrupt thread (where memif disconnects) until released. */
static int intr_hold_state; /* 1: the callback runs and waits, 0: released */

static void intr_hold_cb(int fd, void *arg)
{
	uint64_t v;

	(void)arg;
	(void)read(fd, &v, sizeof(v));
	__atomic_store_n(&intr_hold_state, 1, __ATOMIC_RELEASE);
	while (__atomic_load_n(&intr_hold_state, __ATOMIC_ACQUIRE) == 1)
		usleep(100);
}

/*
 * The client moves its head more than a ring past the server's index (the
 * server's rx ring in shared memory): the server counts it once however
 * many bursts see it before the disconnect, logs one line naming the
 * index, disconnects with that reason, the client hears it, reconnects on
 * new rings and traffic flows again.
 */
static void test_peer_breaks_ring(void **state)
{
	struct memif_queue *q;
	struct dvp_log_capture cap;
	char want[160];
	unsigned int ring, i, got = 0;
	uint64_t one = 1, index_errors, errors;
	int hold;

	(void)state;
	tp_memif_pair_up(srv, cli, 1, 1, NULL);
	assert_int_equal(dvp_xstats_reset(srv), 0);
	assert_int_equal(dvp_xstats_reset(cli), 0);
	tp_send(cli, 0, 2);
	tp_recv_n(srv, 0, 2);
	q = dvp_port_get(srv)->rxqs[0];
	ring = q->ring_size;
	/* The disconnect waits: bursts keep seeing the broken index meanwhile. */
	hold = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	assert_true(hold >= 0);
	assert_int_equal(dvp_intr_callback_register(hold, intr_hold_cb, NULL), 0);
	assert_int_equal(write(hold, &one, sizeof(one)), (ssize_t)sizeof(one));
	TP_WAIT_FOR(__atomic_load_n(&intr_hold_state, __ATOMIC_ACQUIRE) == 1);
	dvp_log_capture_begin(&cap);
	__atomic_store_n(&q->ring->head, (uint16_t)(q->last + q->ring_size + 3), __ATOMIC_RELEASE);
	for (i = 0; i < 100; i++)
		got += tp_recv_all(srv, 0);
	index_errors = tp_xstat(srv, "rx_q0_peer_index_errors");
	errors = tp_xstat(srv, "rx_q0_errors");
	/* Released before any assert: a failed one must not leave the thread held. */
	__atomic_store_n(&intr_hold_state, 0, __ATOMIC_RELEASE);
	assert_int_equal(got, 0);
	/* One violation, one count: counters count events, not polls. */
	assert_int_equal(index_errors, 1);
	assert_int_equal(errors, 1);
	TP_WAIT_FOR(tp_xstat(srv, "disconnects") == 1 && tp_xstat(cli, "disconnects") == 1);
	TP_WAIT_FOR(tp_link_is_up(srv) && tp_link_is_up(cli));
	dvp_log_capture_end(&cap);
	snprintf(want, sizeof(want),
		 "net_memif_s0: disconnecting: Ring protocol broken: rx queue 0: peer head %u vs "
		 "ours 2 (ring %u)",
		 (uint16_t)(2 + ring + 3), ring);
	assert_contains(cap.buf, want);
	/* One line on the server's side however many bursts saw it; the client is told. */
	assert_int_equal(count_of(cap.buf, "disconnecting: Ring protocol broken"), 1);
	assert_contains(cap.buf, "net_memif_c0: disconnected: Ring protocol broken: rx queue 0");
	dvp_log_capture_free(&cap);
	assert_int_equal(tp_xstat(srv, "rx_q0_peer_index_errors"), 1);
	assert_true(dvp_intr_callback_unregister(hold, intr_hold_cb, NULL) >= 0);
	close(hold);
	tp_send(cli, 0, 5);
	tp_recv_n(srv, 0, 5);
	tp_send(srv, 0, 3);
	tp_recv_n(cli, 0, 3);
	tp_memif_pair_down(srv, cli);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_devargs),
		cmocka_unit_test(test_info),
		cmocka_unit_test(test_traffic_both_ways),
		cmocka_unit_test(test_ring_full),
		cmocka_unit_test(test_ring_full_server),
		cmocka_unit_test(test_stop_with_frames_on_ring),
		cmocka_unit_test(test_chained),
		cmocka_unit_test(test_one_buffer_any_length),
		cmocka_unit_test(test_fewer_rings_than_queues),
		cmocka_unit_test(test_reconnect),
		cmocka_unit_test(test_bad_secret),
		cmocka_unit_test(test_peer_breaks_ring),
	};

	return cmocka_run_group_tests(tests, setup, tp_teardown);
}
