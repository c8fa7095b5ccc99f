/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The mlx5 PMD's interrupt mode on sim_mlx5 running its device thread: a
 * bursty source, an application that sleeps in dvp_rx_wait() between the
 * bursts and drains its queues when woken, with no packet later than one
 * wake-up; solicited-only arming that never fires for plain receives; and
 * link changes from the async fd reaching the application as events.
 */

#include "mlx5_fixture.h"

#include <time.h>

#include <dvp_rxwait.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define THREAD_FRAMES 20000u
#else
#define THREAD_FRAMES 200000u
#endif

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t drain(struct mf *f, uint16_t nq)
{
	struct dvp_mbuf *pkts[32];
	uint64_t got = 0;
	uint16_t n;

	for (uint16_t q = 0; q < nq; q++) {
		while ((n = dvp_rx_burst(f->port[0], q, pkts, 32)) > 0) {
			dvp_pktmbuf_free_bulk(pkts, n);
			got += n;
		}
	}
	return got;
}

static void test_bursty_sleeping_app(void **state)
{
	struct sim_mlx5_source_conf sc;
	struct sim_mlx5_source_stats src;
	struct dvp_port_conf conf;
	struct dvp_rx_wait_event ev[2];
	struct dvp_rxwait_set *set;
	struct dvp_port_stats st;
	uint64_t got = 0, sleeps = 0, wakeups = 0, v;
	uint64_t deadline;
	struct mf f;

	(void)state;
	memset(&conf, 0, sizeof(conf));
	conf.intr_conf.rxq = 1;
	conf.intr_conf.rxq_ack_batch = 4;
	conf.rss_conf.rss_hf = DVP_RSS_IP | DVP_RSS_NONFRAG_IPV4_UDP;
	mf_open(&f, "ports=1,mode=thread,idle_us=50,cable=traffic,gen=off", 4096);
	mf_port_start(&f, 0, 2, 1, &conf, 512);
	set = dvp_rxwait_set_create(2);
	assert_non_null(set);
	assert_int_equal(dvp_rx_intr_ctl_all(f.port[0], set, DVP_RX_INTR_CTL_ADD), 0);
	memset(&sc, 0, sizeof(sc));
	sc.sizes[0] = 64;
	sc.nsizes = 1;
	sc.flows = 16;
	sc.rate_pps = 100000;
	sc.on_ns = 5000000; /* 5 ms of traffic, 25 ms of silence */
	sc.off_ns = 25000000;
	sc.count = 8000;
	assert_int_equal(sim_mlx5_source_set(f.sim, 0, &sc), 0);
	assert_int_equal(sim_mlx5_source_start(f.sim, 0), 0);
	deadline = now_ns() + 20000000000ull;
	for (;;) {
		uint64_t before;
		int r;

		got += drain(&f, 2);
		assert_int_equal(sim_mlx5_source_stats(f.sim, 0, &src), 0);
		if (src.done && got >= src.sent)
			break;
		assert_true(now_ns() < deadline);
		/* What the source has sent before the wait must be ours after one wake-up. */
		before = src.sent;
		r = dvp_rx_wait(set, ev, 2, 200);
		assert_true(r >= 0);
		sleeps++;
		if (r > 0)
			wakeups++;
		got += drain(&f, 2);
		assert_true(got >= before);
	}
	assert_int_equal(got, 8000);
	/* The device thread writes CQEs while the PMD reads them: never taken for errors. */
	assert_int_equal(dvp_stats_get(f.port[0], &st), 0);
	assert_int_equal(st.ierrors, 0);
	assert_int_equal(st.ipackets, 8000);
	/* The app slept between the bursts: about 4 per second of pattern, and woke for them. */
	assert_true(sleeps >= 5);
	assert_true(wakeups >= 5);
	assert_int_equal(dvp_xstats_get_by_name(f.port[0], "rx_q0_intr_wakeups", &v), 0);
	assert_true(v > 0);
	assert_int_equal(dvp_xstats_get_by_name(f.port[0], "rx_q0_intr_events", &v), 0);
	assert_true(v > 0);
	assert_int_equal(dvp_rx_intr_ctl_all(f.port[0], set, DVP_RX_INTR_CTL_DEL), 0);
	assert_int_equal(dvp_rxwait_set_free(set), 0);
	mf_close(&f);
}

/*
 * Forwarding with the device on its own thread, as on hardware: the device
 * writes CQEs while the PMD polls them. No CQE may be taken for an error,
 * and the sink sees every frame.
 */
static void test_forward_device_thread(void **state)
{
	static const uint16_t sizes[] = { 60, 700 };
	struct sim_mlx5_sink_stats snk;
	struct dvp_port_stats st;
	struct dvp_mbuf *pkts[32];
	uint64_t deadline;
	struct mf f;

	(void)state;
	mf_open(&f, "ports=2,mode=thread,idle_us=20,cable=traffic,gen=off", 4096);
	mf_port_start(&f, 0, 1, 1, NULL, 512);
	mf_port_start(&f, 1, 1, 1, NULL, 512);
	mf_source(&f, 0, THREAD_FRAMES, 8, sizes, 2);
	deadline = now_ns() + 20000000000ull;
	do {
		uint16_t n = dvp_rx_burst(f.port[0], 0, pkts, 32), sent = 0;

		while (sent < n) {
			sent += dvp_tx_burst(f.port[1], 0, pkts + sent, (uint16_t)(n - sent));
			assert_true(now_ns() < deadline);
		}
		dvp_tx_burst(f.port[1], 0, pkts, 0);
		assert_int_equal(sim_mlx5_sink_stats(f.sim, 1, &snk), 0);
		assert_true(now_ns() < deadline);
	} while (snk.received < THREAD_FRAMES);
	assert_int_equal(snk.lost + snk.corrupt + snk.reordered + snk.duplicates, 0);
	assert_int_equal(dvp_stats_get(f.port[0], &st), 0);
	assert_int_equal(st.ierrors, 0);
	assert_int_equal(st.ipackets, THREAD_FRAMES);
	mf_close(&f);
}

/* Solicited-only arming: receives are not solicited, so only a timeout ends the wait. */
static void test_solicited_only(void **state)
{
	struct dvp_port_conf conf;
	struct sim_mlx5_dev_stats ds;
	struct dvp_rx_wait_event ev;
	struct dvp_ether_addr mac;
	struct dvp_rxwait_set *set;
	uint8_t frame[64];
	struct mf f;

	(void)state;
	memset(&conf, 0, sizeof(conf));
	conf.intr_conf.rxq = 1;
	conf.intr_conf.rxq_solicited = 1;
	mf_open(&f, "ports=1,mode=thread,idle_us=50", 512);
	mf_port_start(&f, 0, 1, 1, &conf, 64);
	set = dvp_rxwait_set_create(1);
	assert_non_null(set);
	assert_int_equal(dvp_rx_intr_ctl(f.port[0], 0, set, DVP_RX_INTR_CTL_ADD, NULL), 0);
	/* Arms (solicited only), finds nothing, sleeps 20 ms. */
	assert_int_equal(dvp_rx_wait(set, &ev, 1, 20), 0);
	assert_int_equal(dvp_macaddr_get(f.port[0], &mac), 0);
	sim_mlx5_frame_build(frame, 64, 0, 0, mac.addr_bytes);
	/* A plain receive is not solicited: the device raises no event for it. */
	assert_int_equal(sim_mlx5_inject(f.sim, 0, frame, 64), SIM_MLX5_RX_DELIVERED);
	struct timespec ts = { 0, 20000000 };
	nanosleep(&ts, NULL);
	assert_int_equal(sim_mlx5_dev_stats(f.sim, &ds), 0);
	assert_true(ds.arms >= 1);
	assert_int_equal(ds.comp_events, 0);
	/* The poll after arming still finds the packet: the wait returns it at once. */
	assert_int_equal(dvp_rx_wait(set, &ev, 1, 1000), 1);
	assert_int_equal(drain(&f, 1), 1);
	assert_int_equal(dvp_rxwait_set_free(set), 0);
	mf_close(&f);
}

static uint32_t lsc_events, lsc_last_status;

static void lsc_cb(uint16_t port_id, enum dvp_port_event event,
		   const struct dvp_port_event_info *info, void *arg)
{
	(void)port_id;
	(void)event;
	(void)arg;
	/* Relaxed: the test polls the count; the status is read after it. */
	__atomic_store_n(&lsc_last_status, info->link.link_status, __ATOMIC_RELAXED);
	__atomic_fetch_add(&lsc_events, 1, __ATOMIC_RELEASE);
}

static bool wait_count(uint32_t *c, uint32_t want)
{
	for (int i = 0; i < 400; i++) {
		if (__atomic_load_n(c, __ATOMIC_ACQUIRE) >= want)
			return true;
		struct timespec ts = { 0, 5000000 };

		nanosleep(&ts, NULL);
	}
	return false;
}

static void test_link_events(void **state)
{
	struct dvp_port_conf conf;
	struct dvp_link link;
	struct mf f;

	(void)state;
	memset(&conf, 0, sizeof(conf));
	conf.intr_conf.lsc = 1;
	mf_open(&f, "ports=2,mode=step", 512);
	assert_int_equal(
		dvp_port_event_register(f.port[1], DVP_PORT_EVENT_LINK_STATUS_CHANGE, lsc_cb, NULL),
		0);
	/* Starting finds the link up: the first event. */
	mf_port_start(&f, 1, 1, 1, &conf, 64);
	assert_true(wait_count(&lsc_events, 1));
	assert_int_equal(__atomic_load_n(&lsc_last_status, __ATOMIC_RELAXED), DVP_LINK_UP);
	assert_int_equal(dvp_link_get_nowait(f.port[1], &link), 0);
	assert_int_equal(link.link_status, DVP_LINK_UP);
	/* Port 1 of the device (0-based) is the PMD's second port. */
	assert_int_equal(sim_mlx5_link_set(f.sim, 1, false), 0);
	assert_true(wait_count(&lsc_events, 2));
	assert_int_equal(__atomic_load_n(&lsc_last_status, __ATOMIC_RELAXED), DVP_LINK_DOWN);
	assert_int_equal(dvp_link_get_nowait(f.port[1], &link), 0);
	assert_int_equal(link.link_status, DVP_LINK_DOWN);
	assert_int_equal(sim_mlx5_link_set(f.sim, 1, true), 0);
	assert_true(wait_count(&lsc_events, 3));
	assert_int_equal(__atomic_load_n(&lsc_last_status, __ATOMIC_RELAXED), DVP_LINK_UP);
	/* The other port's link is not this port's business. */
	assert_int_equal(sim_mlx5_link_set(f.sim, 0, false), 0);
	struct timespec ts = { 0, 50000000 };
	nanosleep(&ts, NULL);
	assert_int_equal(__atomic_load_n(&lsc_events, __ATOMIC_ACQUIRE), 3);
	assert_int_equal(dvp_port_event_unregister(f.port[1], DVP_PORT_EVENT_LINK_STATUS_CHANGE,
						   lsc_cb, NULL),
			 0);
	mf_close(&f);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forward_device_thread),
		cmocka_unit_test(test_solicited_only),
		cmocka_unit_test(test_bursty_sleeping_app),
		cmocka_unit_test(test_link_events),
	};

	mf_args(argc, argv);
	return cmocka_run_group_tests(tests, mf_eal_init, mf_eal_cleanup);
}
