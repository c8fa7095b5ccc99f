/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * lib/port against net_ring: lookup and info; every wrong use an error with
 * a line that names it (bad ids, configure and setup out of order or out of
 * range, bursts on a stopped port counted); mbufs all back in their pool
 * after stop and close; stats and xstats; MAC, promiscuous mode, MTU; link
 * and its events; events NEW/DESTROY with callbacks that unregister
 * themselves or are unregistered while running; queue errors restarted and
 * reported; removal reported once; the rx interrupt conf given drivers;
 * no power monitor address where the driver has none.
 */

#include "test_port_helpers.h"

#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include <dvp_interrupts.h>
#include <dvp_port_driver.h>

static uint16_t lo, c1, c2; /* net_ring0 looped back; net_ring1 <-> net_ring2 */

static int setup(void **state)
{
	(void)state;
	if (dvp_test_eal_init("--no-huge", "-m", "32", "-l", "0-1", "--vdev", "net_ring0,queues=4",
			      "--vdev", "net_ring1,queues=2", "--vdev",
			      "net_ring2,queues=2,peer=net_ring1") < 0)
		return -1;
	tp_pool_create();
	lo = tp_port("net_ring0");
	c1 = tp_port("net_ring1");
	c2 = tp_port("net_ring2");
	return 0;
}

static int stop_all(void **state)
{
	uint16_t p;

	(void)state;
	DVP_PORT_FOREACH(p)
		dvp_port_stop(p);
	return 0;
}

/* Wait up to 2 s for @p sem (events come from the interrupt thread). */
static int sem_wait2(sem_t *sem)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 2;
	return sem_timedwait(sem, &ts);
}

/* ------------------------------------------------------------------------ */

static void test_lookup(void **state)
{
	char name[64];
	uint16_t p, n = 0, id;

	(void)state;
	assert_int_equal(dvp_port_count(), 3);
	DVP_PORT_FOREACH(p)
		n++;
	assert_int_equal(n, 3);
	assert_int_equal(dvp_port_get_name(c2, name, sizeof(name)), 0);
	assert_string_equal(name, "net_ring2");
	assert_int_equal(dvp_port_get_by_name("net_ring7", &id), -ENODEV);
	assert_int_equal(dvp_port_get_by_name(NULL, &id), -EINVAL);
	assert_false(dvp_port_is_valid(DVP_MAX_PORTS - 1));
	assert_false(dvp_port_is_valid(UINT16_MAX));
	assert_int_equal(dvp_port_find_next(DVP_MAX_PORTS), DVP_MAX_PORTS);
	/* Any id past the table: none, and the header's DVP_MAX_PORTS says so. */
	assert_int_equal(dvp_port_find_next(DVP_MAX_PORTS + 1), DVP_MAX_PORTS);
	assert_int_equal(dvp_port_find_next(UINT16_MAX), DVP_MAX_PORTS);
}

static void test_info(void **state)
{
	struct dvp_port_info info;
	struct dvp_log_capture cap;

	(void)state;
	assert_int_equal(dvp_port_info_get(lo, &info), 0);
	assert_string_equal(info.driver_name, "net_ring");
	assert_string_equal(info.device_name, "net_ring0");
	assert_int_equal(info.max_rx_queues, 4);
	assert_int_equal(info.max_tx_queues, 4);
	assert_int_equal(info.min_mtu, 68);
	assert_int_equal(info.max_mtu, 9000);
	assert_int_equal(info.intr_capa &
				 (DVP_PORT_INTR_RXQ | DVP_PORT_INTR_LSC | DVP_PORT_INTR_RMV),
			 DVP_PORT_INTR_RXQ | DVP_PORT_INTR_LSC | DVP_PORT_INTR_RMV);
	assert_int_equal(info.intr_capa & DVP_PORT_INTR_RXQ_SOLICITED, 0);
	assert_int_equal(info.default_rxq_size, 1023);

	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_port_info_get(lo, NULL), -EINVAL);
	assert_int_equal(dvp_port_info_get(DVP_MAX_PORTS - 1, &info), -EINVAL);
	assert_int_equal(dvp_errno, EINVAL);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "no info structure given");
	assert_contains(cap.buf, "does not exist (ports in use: ");
	dvp_log_capture_free(&cap);
}

static void test_configure_errors(void **state)
{
	static uint8_t key[40];
	struct dvp_port_conf conf;
	struct dvp_log_capture cap;

	(void)state;
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_port_configure(lo, 0, 0, NULL), -EINVAL);
	assert_int_equal(dvp_port_configure(lo, 5, 1, NULL), -EINVAL);
	assert_int_equal(dvp_port_configure(lo, 1, 9, NULL), -EINVAL);
	memset(&conf, 0, sizeof(conf));
	conf.rxmode.offloads = DVP_RX_OFFLOAD_TIMESTAMP;
	assert_int_equal(dvp_port_configure(lo, 1, 1, &conf), -EINVAL);
	memset(&conf, 0, sizeof(conf));
	conf.txmode.offloads = DVP_TX_OFFLOAD_TCP_TSO;
	assert_int_equal(dvp_port_configure(lo, 1, 1, &conf), -EINVAL);
	memset(&conf, 0, sizeof(conf));
	conf.rss_conf.rss_hf = DVP_RSS_IP;
	assert_int_equal(dvp_port_configure(lo, 2, 2, &conf), -EINVAL);
	memset(&conf, 0, sizeof(conf));
	conf.rss_conf.rss_key = key;
	conf.rss_conf.rss_key_len = sizeof(key);
	assert_int_equal(dvp_port_configure(lo, 2, 2, &conf), -EINVAL);
	memset(&conf, 0, sizeof(conf));
	conf.rxmode.mtu = 20;
	assert_int_equal(dvp_port_configure(lo, 1, 1, &conf), -EINVAL);
	memset(&conf, 0, sizeof(conf));
	conf.intr_conf.rxq = 1;
	conf.intr_conf.rxq_solicited = 1;
	assert_int_equal(dvp_port_configure(lo, 1, 1, &conf), -EINVAL);
	conf.intr_conf.rxq = 0;
	assert_int_equal(dvp_port_configure(lo, 1, 1, &conf), -EINVAL);
	assert_int_equal(dvp_port_configure(DVP_MAX_PORTS, 1, 1, NULL), -EINVAL);
	tp_port_up(lo, 1, NULL);
	assert_int_equal(dvp_port_configure(lo, 1, 1, NULL), -EBUSY);
	assert_int_equal(dvp_errno, EBUSY);
	dvp_log_capture_end(&cap);

	assert_contains(cap.buf, "0 rx and 0 tx queues; a port needs at least one");
	assert_contains(cap.buf, "5 rx queues asked; net_ring offers 1 to 4");
	assert_contains(cap.buf, "9 tx queues asked; net_ring offers 1 to 4");
	assert_contains(cap.buf, "rx offloads 0x4000 not supported; net_ring offers 0x2000");
	assert_contains(cap.buf, "tx offloads 0x20 not supported; net_ring offers 0x8000");
	assert_contains(cap.buf, "RSS hash fields 0xa38c not supported; net_ring hashes on 0x0");
	assert_contains(cap.buf, "an RSS key of 40 bytes; net_ring takes 0");
	assert_contains(cap.buf, "MTU 20 out of range [68, 9000]");
	assert_contains(cap.buf, "intr_conf.rxq_solicited is not supported by this driver");
	assert_contains(cap.buf, "intr_conf.rxq_solicited needs intr_conf.rxq");
	assert_contains(cap.buf, "the port is started; stop it first");
	dvp_log_capture_free(&cap);
	assert_int_equal(dvp_port_stop(lo), 0);
	assert_int_equal(dvp_port_stop(lo), 0); /* stopped already: fine */
}

static void test_setup_and_start_errors(void **state)
{
	struct dvp_rxq_conf rxc = { .offloads = DVP_RX_OFFLOAD_VLAN_STRIP };
	struct dvp_log_capture cap;
	uint16_t p9;

	(void)state;
	assert_int_equal(dvp_vdev_create("net_ring9,queues=2"), 0);
	p9 = tp_port("net_ring9");
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_rxq_setup(p9, 0, 0, DVP_SOCKET_ANY, NULL, tp_pool), -EINVAL);
	assert_int_equal(dvp_port_start(p9), -EINVAL);
	assert_int_equal(dvp_port_configure(p9, 2, 2, NULL), 0);
	assert_int_equal(dvp_rxq_setup(p9, 2, 0, DVP_SOCKET_ANY, NULL, tp_pool), -EINVAL);
	assert_int_equal(dvp_txq_setup(p9, 7, 0, DVP_SOCKET_ANY, NULL), -EINVAL);
	assert_int_equal(dvp_rxq_setup(p9, 0, 0, DVP_SOCKET_ANY, NULL, NULL), -EINVAL);
	assert_int_equal(dvp_rxq_setup(p9, 0, 0, DVP_SOCKET_ANY, &rxc, tp_pool), -EINVAL);
	assert_int_equal(dvp_rxq_setup(p9, 0, 0, DVP_SOCKET_ANY, NULL, tp_pool), 0);
	assert_int_equal(dvp_txq_setup(p9, 0, 0, DVP_SOCKET_ANY, NULL), 0);
	assert_int_equal(dvp_txq_setup(p9, 1, 0, DVP_SOCKET_ANY, NULL), 0);
	assert_int_equal(dvp_port_start(p9), -EINVAL);
	assert_int_equal(dvp_rxq_setup(p9, 1, 0, DVP_SOCKET_ANY, NULL, tp_pool), 0);
	/* Set up again: the old queue is released first. */
	assert_int_equal(dvp_rxq_setup(p9, 1, 0, DVP_SOCKET_ANY, NULL, tp_pool), 0);
	assert_int_equal(dvp_port_start(p9), 0);
	assert_int_equal(dvp_port_start(p9), 0);
	assert_int_equal(dvp_port_is_started(p9), 1);
	assert_int_equal(dvp_rxq_setup(p9, 0, 0, DVP_SOCKET_ANY, NULL, tp_pool), -EBUSY);
	assert_int_equal(dvp_txq_setup(p9, 0, 0, DVP_SOCKET_ANY, NULL), -EBUSY);
	assert_int_equal(dvp_port_close(p9), 0);
	assert_int_equal(dvp_port_close(p9), -EINVAL);
	assert_int_equal(dvp_port_stop(p9), -EINVAL);
	assert_int_equal(dvp_port_start(p9), -EINVAL);
	dvp_log_capture_end(&cap);
	assert_contains(
		cap.buf,
		"rx queue setup: the port is not configured; call dvp_port_configure() first");
	assert_contains(cap.buf, "start: the port is not configured");
	assert_contains(cap.buf, "rx queue 2 does not exist; the port has 2 (0 to 1)");
	assert_contains(cap.buf, "tx queue 7 does not exist; the port has 2 (0 to 1)");
	assert_contains(cap.buf, "rx queue 0 setup: no mempool given");
	assert_contains(cap.buf, "rx queue 0 setup: offloads 0x1 not supported");
	assert_contains(cap.buf, "start: rx queue 1 is not set up");
	assert_contains(cap.buf, "rx queue setup: the port is started; stop it first");
	assert_contains(cap.buf, "port close: port");
	dvp_log_capture_free(&cap);
	assert_int_equal(dvp_dev_remove("net_ring9"), 0);
}

/* Bursts on a stopped port, a queue that does not exist, or a port id out of range. */
static void test_burst_refused(void **state)
{
	struct dvp_mbuf *m = tp_frame(1);

	(void)state;
	tp_port_setup(lo, 2, NULL);
	assert_int_equal(dvp_rx_burst(lo, 0, &m, 1), 0);
	assert_int_equal(dvp_tx_burst(lo, 0, &m, 1), 0);
	assert_int_equal(tp_xstat(lo, "dbg_rx_burst_refused"), 1);
	assert_int_equal(tp_xstat(lo, "dbg_tx_burst_refused"), 1);
	assert_int_equal(dvp_port_start(lo), 0);
	assert_int_equal(dvp_tx_burst(lo, 2, &m, 1), 0);
	assert_int_equal(dvp_rx_burst(lo, 3, &m, 1), 0);
	assert_int_equal(dvp_tx_burst(DVP_MAX_PORTS, 0, &m, 1), 0);
	assert_int_equal(dvp_rx_burst(UINT16_MAX, 0, &m, 1), 0);
	assert_int_equal(dvp_rx_burst(DVP_MAX_PORTS - 1, 0, &m, 1), 0);
	assert_int_equal(tp_xstat(lo, "dbg_rx_burst_refused"), 2);
	assert_int_equal(tp_xstat(lo, "dbg_tx_burst_refused"), 2);
	assert_int_equal(dvp_tx_burst(lo, 1, &m, 1), 1); /* the caller still owned it */
	assert_int_equal(dvp_port_stop(lo), 0);
	assert_int_equal(dvp_rx_burst(lo, 1, &m, 1), 0);
	assert_int_equal(tp_xstat(lo, "dbg_rx_burst_refused"), 3);
	tp_assert_pool_full();
	assert_int_equal(dvp_xstats_reset(lo), 0);
	assert_int_equal(tp_xstat(lo, "dbg_rx_burst_refused"), 0);
	/* The reset moved the baseline: counting goes on from it. */
	assert_int_equal(dvp_rx_burst(lo, 1, &m, 1), 0);
	assert_int_equal(tp_xstat(lo, "dbg_rx_burst_refused"), 1);
	assert_int_equal(tp_xstat(lo, "dbg_tx_burst_refused"), 0);
}

/* net_ring has no address to monitor: -ENOTSUP; bad arguments -EINVAL, before the driver. */
static void test_monitor_addr(void **state)
{
	struct dvp_power_monitor_cond pmc;

	(void)state;
	tp_port_setup(lo, 2, NULL);
	assert_int_equal(dvp_get_monitor_addr(lo, 0, &pmc), -ENOTSUP);
	assert_int_equal(dvp_errno, ENOTSUP);
	assert_int_equal(dvp_get_monitor_addr(lo, 2, &pmc), -EINVAL);
	assert_int_equal(dvp_get_monitor_addr(lo, 0, NULL), -EINVAL);
	assert_int_equal(dvp_get_monitor_addr(DVP_MAX_PORTS, 0, &pmc), -EINVAL);
}

/* Stop gives every mbuf back: looped back, cabled, and with a stopped or closed peer. */
static void test_stop_returns_mbufs(void **state)
{
	uint16_t p9;

	(void)state;
	tp_port_up(lo, 2, NULL);
	tp_send(lo, 0, 100);
	tp_send(lo, 1, 50);
	assert_int_equal(dvp_port_mbufs_held(lo), 150);
	assert_int_equal(dvp_pktmbuf_pool_in_use(tp_pool), 150);
	assert_int_equal(dvp_port_stop(lo), 0);
	assert_int_equal(dvp_port_mbufs_held(lo), 0);
	tp_assert_pool_full();

	tp_port_up(c1, 2, NULL);
	tp_port_up(c2, 2, NULL);
	tp_send(c1, 0, 70);
	tp_send(c1, 1, 30);
	assert_int_equal(dvp_port_mbufs_held(c2), 100);
	assert_int_equal(dvp_port_mbufs_held(c1), 0);
	assert_int_equal(dvp_port_stop(c2), 0);
	tp_assert_pool_full();
	/* The peer is stopped: frames sent to it are lost on the wire, and freed. */
	tp_send(c1, 0, 10);
	assert_int_equal(tp_xstat(c1, "tx_q0_peer_stopped_drops"), 10);
	tp_assert_pool_full();
	assert_int_equal(dvp_port_start(c2), 0);
	tp_send(c1, 0, 5);
	assert_int_equal(tp_recv_all(c2, 0), 5);
	assert_int_equal(dvp_port_stop(c1), 0);
	assert_int_equal(dvp_port_stop(c2), 0);

	/* Closing with frames in flight. */
	assert_int_equal(dvp_vdev_create("net_ring9,queues=1"), 0);
	p9 = tp_port("net_ring9");
	tp_port_up(p9, 1, NULL);
	tp_send(p9, 0, 20);
	assert_int_equal(dvp_pktmbuf_pool_in_use(tp_pool), 20);
	assert_int_equal(dvp_port_close(p9), 0);
	tp_assert_pool_full();
	assert_int_equal(dvp_dev_remove("net_ring9"), 0);
}

static void test_stats_xstats(void **state)
{
	struct dvp_port_stats st;
	struct dvp_xstat_name *names;
	struct dvp_xstat *xs;
	struct dvp_log_capture cap;
	uint64_t v;
	int n, i, found = 0;

	(void)state;
	tp_port_up_intr(lo, 2, 0);
	tp_send(lo, 0, 10);
	tp_send(lo, 1, 5);
	assert_int_equal(tp_recv_all(lo, 0), 10);
	assert_int_equal(tp_recv_all(lo, 1), 5);
	assert_int_equal(dvp_stats_get(lo, &st), 0);
	assert_int_equal(st.ipackets, 15);
	assert_int_equal(st.opackets, 15);
	assert_int_equal(st.ibytes, 15 * 60);
	assert_int_equal(st.obytes, 15 * 60);
	assert_int_equal(st.q_ipackets[0], 10);
	assert_int_equal(st.q_ipackets[1], 5);
	assert_int_equal(st.q_opackets[1], 5);
	assert_int_equal(st.q_obytes[0], 600);
	assert_int_equal(st.ierrors + st.oerrors + st.imissed + st.rx_nombuf, 0);

	n = dvp_xstats_get_names(lo, NULL, 0);
	assert_true(n > 20);
	names = calloc((size_t)n, sizeof(*names));
	xs = calloc((size_t)n, sizeof(*xs));
	assert_int_equal(dvp_xstats_get_names(lo, names, (unsigned int)n), n);
	assert_int_equal(dvp_xstats_get(lo, xs, (unsigned int)n), n);
	for (i = 0; i < n; i++) {
		assert_int_equal(xs[i].id, i);
		if (strcmp(names[i].name, "rx_good_packets") == 0) {
			assert_int_equal(xs[i].value, 15);
			found |= 1;
		} else if (strcmp(names[i].name, "rx_q1_bytes") == 0) {
			assert_int_equal(xs[i].value, 300);
			found |= 2;
		} else if (strcmp(names[i].name, "rx_q1_intr_arms") == 0) {
			found |= 4;
		} else if (strcmp(names[i].name, "queue_restarts") == 0) {
			found |= 8; /* the driver's own, last */
			assert_int_equal(i, n - 4);
		}
	}
	assert_int_equal(found, 15);
	/* Too small an array: what fits, and the count. */
	assert_int_equal(dvp_xstats_get_names(lo, names, 3), n);
	assert_string_equal(names[2].name, "rx_good_bytes");
	assert_int_equal(dvp_xstats_get(lo, xs, 1), n);
	assert_int_equal(xs[0].value, 15);
	free(names);
	free(xs);

	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_xstats_get_by_name(lo, "rx_godo_packets", &v), -ENOENT);
	assert_int_equal(dvp_stats_get(lo, NULL), -EINVAL);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "has no xstat 'rx_godo_packets'");
	dvp_log_capture_free(&cap);

	assert_int_equal(dvp_xstats_reset(lo), 0);
	assert_int_equal(dvp_stats_get(lo, &st), 0);
	assert_int_equal(st.ipackets + st.opackets + st.q_ipackets[0], 0);
	assert_int_equal(tp_xstat(lo, "tx_good_bytes"), 0);
	tp_send(lo, 1, 2);
	assert_int_equal(tp_recv_all(lo, 1), 2);
	assert_int_equal(tp_xstat(lo, "rx_q1_packets"), 2);
	assert_int_equal(dvp_port_stop(lo), 0);
}

/* Six bytes of two hex digits, colons between, nothing else. */
static void test_ether_unformat_addr(void **state)
{
	static const char *const bad[] = {
		"",
		"02:00:00:00:00",
		"02:00:00:00:00:01:",
		"02:00:00:00:00:01 ",
		" 02:00:00:00:00:01",
		"02:00:00:00:00:100",
		"02-00-00-00-00-01",
		"0x2:0:0:0:0:1",
		"+2:0:0:0:0:1",
		"02:00:00:00:00:0g",
		"020000000001",
		"02:0:00:00:00:001",
		"02:00:00:00:00:01\n",
	};
	struct dvp_ether_addr mac, was = { { 0x02, 9, 9, 9, 9, 9 } };
	char buf[18];
	size_t i;

	(void)state;
	assert_int_equal(dvp_ether_unformat_addr("02:aB:cd:00:05:Ff", &mac), 0);
	dvp_ether_format_addr(buf, sizeof(buf), &mac);
	assert_string_equal(buf, "02:ab:cd:00:05:ff");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		mac = was;
		assert_int_equal(dvp_ether_unformat_addr(bad[i], &mac), -EINVAL);
		assert_memory_equal(&mac, &was, sizeof(mac)); /* untouched */
	}
	assert_int_equal(dvp_ether_unformat_addr(NULL, &mac), -EINVAL);
	assert_int_equal(dvp_ether_unformat_addr("02:00:00:00:00:01", NULL), -EINVAL);
	/* Its neighbour refuses NULL; formatting does not crash on it either. */
	dvp_ether_format_addr(buf, sizeof(buf), NULL);
	assert_string_equal(buf, "(no address)");
	dvp_ether_format_addr(NULL, 18, &mac);
	buf[0] = 'x';
	dvp_ether_format_addr(buf, 0, &mac);
	assert_int_equal(buf[0], 'x');
}

static void test_mac_promisc_mtu(void **state)
{
	struct dvp_ether_addr mac, mc = { { 0x01, 0, 0x5e, 0, 0, 1 } }, zero = { { 0 } };
	struct dvp_ether_addr set = { { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 } };
	struct dvp_log_capture cap;
	char buf[18];
	uint16_t mtu, p9;

	(void)state;
	assert_int_equal(dvp_macaddr_get(lo, &mac), 0);
	assert_int_equal(mac.addr_bytes[0], 0x02);
	assert_int_equal(mac.addr_bytes[5], lo);
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_macaddr_set(lo, &mc), -EINVAL);
	assert_int_equal(dvp_macaddr_set(lo, &zero), -EINVAL);
	assert_int_equal(dvp_macaddr_get(lo, NULL), -EINVAL);
	assert_int_equal(dvp_port_mtu_set(lo, 9001), -EINVAL);
	assert_int_equal(dvp_vdev_create("net_ring9,mac=01:02:03:04:05:06"), -EINVAL);
	assert_int_equal(dvp_vdev_create("net_ring9,mac=02:02:03:04:05"), -EINVAL);
	assert_int_equal(dvp_vdev_create("net_ring9,mac=00:00:00:00:00:00"), -EINVAL);
	dvp_log_capture_end(&cap);
	assert_contains(
		cap.buf,
		"01:00:5e:00:00:01 is a multicast address; a port address must be a non-zero unicast address");
	assert_contains(cap.buf, "00:00:00:00:00:00 is zero");
	assert_contains(cap.buf, "MTU set: 9001 out of range [68, 9000]");
	assert_contains(cap.buf, "mac=01:02:03:04:05:06 is a multicast address");
	assert_contains(cap.buf,
			"mac=02:02:03:04:05 is not a MAC address; write it as xx:xx:xx:xx:xx:xx");
	assert_contains(cap.buf,
			"net_ring9: mac=00:00:00:00:00:00 is zero; a port needs a non-zero");
	dvp_log_capture_free(&cap);

	assert_int_equal(dvp_macaddr_set(lo, &set), 0);
	assert_int_equal(dvp_macaddr_get(lo, &mac), 0);
	dvp_ether_format_addr(buf, sizeof(buf), &mac);
	assert_string_equal(buf, "02:11:22:33:44:55");
	assert_int_equal(dvp_vdev_create("net_ring9,mac=02:aa:bb:cc:dd:ee"), 0);
	p9 = tp_port("net_ring9");
	assert_int_equal(dvp_macaddr_get(p9, &mac), 0);
	dvp_ether_format_addr(buf, sizeof(buf), &mac);
	assert_string_equal(buf, "02:aa:bb:cc:dd:ee");
	assert_int_equal(dvp_dev_remove("net_ring9"), 0);

	assert_int_equal(dvp_promiscuous_get(lo), 0);
	assert_int_equal(dvp_promiscuous_enable(lo), 0);
	assert_int_equal(dvp_promiscuous_get(lo), 1);
	assert_int_equal(dvp_promiscuous_disable(lo), 0);
	assert_int_equal(dvp_promiscuous_get(lo), 0);
	assert_int_equal(dvp_port_mtu_set(lo, 4000), 0);
	assert_int_equal(dvp_port_mtu_get(lo, &mtu), 0);
	assert_int_equal(mtu, 4000);
	assert_int_equal(dvp_port_mtu_set(lo, 1500), 0);
}

/* ------------------------------------------------------------------------
 * Events
 */

#define MAX_SEEN 16

struct ev_log {
	sem_t sem;
	atomic_int n;
	struct dvp_port_event_info seen[MAX_SEEN];
	atomic_bool on_intr;
	atomic_int sleep_ms;
	atomic_bool unregister_self;
	atomic_bool running;
	atomic_int unregister_ret;
	int consumed; /* events the test has looked at */
};

static void ev_log_init(struct ev_log *l)
{
	memset(l, 0, sizeof(*l));
	sem_init(&l->sem, 0, 0);
}

static void on_event(uint16_t port_id, enum dvp_port_event event,
		     const struct dvp_port_event_info *info, void *arg)
{
	struct ev_log *l = arg;
	int n = atomic_load(&l->n), ms;

	atomic_store(&l->running, true);
	if (n < MAX_SEEN)
		l->seen[n] = *info;
	(void)port_id;
	(void)event;
	atomic_store(&l->on_intr, dvp_thread_is_intr());
	ms = atomic_load(&l->sleep_ms);
	if (ms)
		usleep((useconds_t)ms * 1000);
	if (atomic_load(&l->unregister_self))
		atomic_store(&l->unregister_ret,
			     dvp_port_event_unregister(DVP_PORT_ID_ALL, event, on_event, arg));
	atomic_store(&l->n, n + 1);
	atomic_store(&l->running, false);
	sem_post(&l->sem);
}

/* Wait for the next event, which must be @p event on @p port. */
static const struct dvp_port_event_info *expect(struct ev_log *l, enum dvp_port_event event,
						uint16_t port)
{
	const struct dvp_port_event_info *e;

	if (sem_wait2(&l->sem) != 0)
		fail_msg("no %s event for port %u within 2 s", dvp_port_event_name(event), port);
	/* The callback may have run again since: take the events in order. */
	assert_true(l->consumed < MAX_SEEN);
	e = &l->seen[l->consumed++];
	assert_int_equal(e->event, event);
	assert_int_equal(e->port_id, port);
	assert_true(atomic_load(&l->on_intr));
	return e;
}

/* The next two events, for @p a and @p b in either order, with link @p status. */
static void expect_both(struct ev_log *l, enum dvp_port_event event, uint16_t a, uint16_t b,
			int status)
{
	const struct dvp_port_event_info *e;
	unsigned int seen = 0;
	int i;

	for (i = 0; i < 2; i++) {
		if (sem_wait2(&l->sem) != 0)
			fail_msg("no %s event within 2 s", dvp_port_event_name(event));
		assert_true(l->consumed < MAX_SEEN);
		e = &l->seen[l->consumed++];
		assert_int_equal(e->event, event);
		assert_int_equal(e->link.link_status, status);
		/* Reported while lib/port handled the async event: it names it. */
		assert_int_equal(e->cause, status == DVP_LINK_UP ? DVP_PORT_CAUSE_LINK_UP :
								   DVP_PORT_CAUSE_LINK_DOWN);
		seen |= e->port_id == a ? 1u : e->port_id == b ? 2u : 4u;
	}
	assert_int_equal(seen, 3);
}

static void expect_none(struct ev_log *l)
{
	usleep(50000);
	assert_int_equal(sem_trywait(&l->sem), -1);
}

static void test_link_and_lsc(void **state)
{
	struct dvp_port_conf conf = { 0 };
	const struct dvp_port_event_info *e;
	struct dvp_link link;
	static struct ev_log l;
	char buf[64];

	(void)state;
	ev_log_init(&l);
	conf.intr_conf.lsc = 1;
	tp_port_setup(c1, 1, &conf);
	tp_port_setup(c2, 1, &conf);
	assert_int_equal(dvp_port_event_register(DVP_PORT_ID_ALL, DVP_PORT_EVENT_LINK_STATUS_CHANGE,
						 on_event, &l),
			 0);
	assert_int_equal(dvp_port_event_register(DVP_PORT_ID_ALL, DVP_PORT_EVENT_LINK_STATUS_CHANGE,
						 on_event, &l),
			 -EEXIST);
	assert_int_equal(dvp_link_get_nowait(c1, &link), 0);
	assert_int_equal(link.link_status, DVP_LINK_DOWN);

	/* One end up: still down (the peer is not running). */
	assert_int_equal(dvp_port_start(c1), 0);
	assert_int_equal(dvp_link_get(c1, &link), 0);
	assert_int_equal(link.link_status, DVP_LINK_DOWN);
	expect_none(&l);
	/* Both: both ends up (the one that started reports first). */
	assert_int_equal(dvp_port_start(c2), 0);
	e = expect(&l, DVP_PORT_EVENT_LINK_STATUS_CHANGE, c2);
	assert_int_equal(e->link.link_status, DVP_LINK_UP);
	assert_int_equal(e->cause,
			 DVP_PORT_CAUSE_NONE); /* found by the driver, not an async event */
	e = expect(&l, DVP_PORT_EVENT_LINK_STATUS_CHANGE, c1);
	assert_int_equal(e->link.link_status, DVP_LINK_UP);
	assert_int_equal(dvp_link_get(c2, &link), 0);
	assert_int_equal(link.link_status, DVP_LINK_UP);
	assert_int_equal(link.link_speed, DVP_LINK_SPEED_10G);
	assert_int_equal(link.link_duplex, DVP_LINK_FULL_DUPLEX);
	dvp_link_to_str(buf, sizeof(buf), &link);
	assert_string_equal(buf, "Link up at 10000 Mbps FDX Fixed");

	/* The cable pulled: PORT_ERR on each end's async path, both go down. */
	assert_int_equal(dvp_xstats_reset(c1), 0);
	assert_int_equal(dvp_net_ring_set_link(c1, false), 0);
	expect_both(&l, DVP_PORT_EVENT_LINK_STATUS_CHANGE, c1, c2, DVP_LINK_DOWN);
	assert_int_equal(dvp_net_ring_set_link(c1, true), 0);
	expect_both(&l, DVP_PORT_EVENT_LINK_STATUS_CHANGE, c1, c2, DVP_LINK_UP);
	assert_int_equal(tp_xstat(c1, "async_events_acked"), 2);

	/* A port stopped: both see it. */
	assert_int_equal(dvp_port_stop(c2), 0);
	expect(&l, DVP_PORT_EVENT_LINK_STATUS_CHANGE, c2);
	expect(&l, DVP_PORT_EVENT_LINK_STATUS_CHANGE, c1);
	dvp_link_to_str(buf, sizeof(buf), &l.seen[l.consumed - 1].link);
	assert_string_equal(buf, "Link down");

	/* Without intr_conf.lsc no event, though the state changes. */
	assert_int_equal(dvp_port_stop(c1), 0);
	tp_port_setup(c1, 1, NULL);
	tp_port_setup(c2, 1, NULL);
	assert_int_equal(dvp_port_start(c1), 0);
	assert_int_equal(dvp_port_start(c2), 0);
	expect_none(&l);
	assert_int_equal(dvp_link_get_nowait(c1, &link), 0);
	assert_int_equal(link.link_status, DVP_LINK_UP);
	assert_int_equal(dvp_port_event_unregister(DVP_PORT_ID_ALL,
						   DVP_PORT_EVENT_LINK_STATUS_CHANGE, on_event, &l),
			 0);
	assert_int_equal(dvp_port_event_unregister(DVP_PORT_ID_ALL,
						   DVP_PORT_EVENT_LINK_STATUS_CHANGE, on_event, &l),
			 -ENOENT);
	sem_destroy(&l.sem);
}

static void test_new_destroy_and_unregister(void **state)
{
	struct dvp_log_capture cap;
	static struct ev_log l, d;
	uint16_t p9;

	(void)state;
	ev_log_init(&l);
	ev_log_init(&d);
	assert_int_equal(dvp_port_event_register(DVP_PORT_ID_ALL, DVP_PORT_EVENT_NEW, on_event, &l),
			 0);
	assert_int_equal(
		dvp_port_event_register(DVP_PORT_ID_ALL, DVP_PORT_EVENT_DESTROY, on_event, &d), 0);
	/* The NEW callback unregisters itself: it runs once for two new ports. */
	atomic_store(&l.unregister_self, true);
	assert_int_equal(dvp_vdev_create("net_ring9"), 0);
	p9 = tp_port("net_ring9");
	expect(&l, DVP_PORT_EVENT_NEW, p9);
	assert_int_equal(atomic_load(&l.unregister_ret), 0);
	assert_int_equal(dvp_vdev_create("net_ring8"), 0);
	expect_none(&l);

	assert_int_equal(dvp_port_close(p9), 0);
	expect(&d, DVP_PORT_EVENT_DESTROY, p9);

	/* Unregistered from another thread while it runs: returns once it has finished. */
	atomic_store(&d.sleep_ms, 200);
	assert_int_equal(dvp_port_close(tp_port("net_ring8")), 0);
	while (!atomic_load(&d.running))
		usleep(1000);
	assert_int_equal(dvp_port_event_unregister(DVP_PORT_ID_ALL, DVP_PORT_EVENT_DESTROY,
						   on_event, (void *)-1),
			 0);
	assert_false(atomic_load(&d.running));
	assert_int_equal(atomic_load(&d.n), 2);

	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_port_event_register(lo, DVP_PORT_EVENT_MAX, on_event, &l), -EINVAL);
	assert_int_equal(dvp_port_event_register(lo, DVP_PORT_EVENT_NEW, NULL, &l), -EINVAL);
	assert_int_equal(
		dvp_port_event_register(DVP_MAX_PORTS - 1, DVP_PORT_EVENT_NEW, on_event, &l),
		-EINVAL);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "event register: unknown event");
	assert_contains(cap.buf, "event register: no callback");
	dvp_log_capture_free(&cap);
	assert_string_equal(dvp_port_event_name(DVP_PORT_EVENT_QUEUE_ERROR), "QUEUE_ERROR");
	assert_int_equal(dvp_dev_remove("net_ring9"), 0);
	assert_int_equal(dvp_dev_remove("net_ring8"), 0);
	sem_destroy(&l.sem);
	sem_destroy(&d.sem);
}

/*
 * An async queue error (lib/port's queue-fault primitive): QUEUE_ERROR is
 * raised when it comes, and the polling lcore restarts the queue at its
 * next burst, counting what the restart dropped.
 */
static void test_queue_error(void **state)
{
	const struct dvp_port_event_info *e;
	struct dvp_port_stats st;
	static struct ev_log l;
	struct dvp_mbuf *m;

	(void)state;
	ev_log_init(&l);
	assert_int_equal(dvp_port_event_register(lo, DVP_PORT_EVENT_QUEUE_ERROR, on_event, &l), 0);
	tp_port_up(lo, 2, NULL);
	assert_int_equal(dvp_xstats_reset(lo), 0);
	tp_send(lo, 0, 7);
	assert_int_equal(dvp_net_ring_inject_async(lo, DVP_PORT_CAUSE_QP_FATAL, 0, false), 0);
	/* Reported on arrival: the lcore may be asleep and never burst. */
	e = expect(&l, DVP_PORT_EVENT_QUEUE_ERROR, lo);
	assert_int_equal(e->queue.queue_id, 0);
	assert_false(e->queue.tx);
	assert_int_equal(e->cause, DVP_PORT_CAUSE_QP_FATAL);
	assert_string_equal(e->queue.reason, "rx queue broken: rebuilt at its next burst");
	/*
	 * A second fault before the restart is absorbed by the first: no
	 * event. The device reads its events in order, so the next event
	 * reported is the one of tx queue 1 behind it.
	 */
	assert_int_equal(dvp_net_ring_inject_async(lo, DVP_PORT_CAUSE_CQ_ERROR, 0, false), 0);
	assert_int_equal(dvp_net_ring_inject_async(lo, DVP_PORT_CAUSE_QP_FATAL, 1, true), 0);
	e = expect(&l, DVP_PORT_EVENT_QUEUE_ERROR, lo);
	assert_true(e->queue.tx);
	assert_int_equal(e->queue.queue_id, 1);
	assert_int_equal(tp_xstat(lo, "queue_restarts"), 0);
	/* The bursts restart the queues: the 7 frames on the rx ring are dropped and counted. */
	assert_int_equal(dvp_rx_burst(lo, 0, &m, 1), 0);
	assert_int_equal(dvp_tx_burst(lo, 1, NULL, 0), 0);
	expect_none(&l);
	assert_int_equal(tp_xstat(lo, "queue_restarts"), 2);
	assert_int_equal(dvp_stats_get(lo, &st), 0);
	assert_int_equal(st.ierrors, 7);
	assert_int_equal(st.q_errors[0], 7);
	tp_assert_pool_full();
	tp_send(lo, 0, 1);
	assert_int_equal(tp_recv_all(lo, 0), 1);

	/* A tx queue of a stopped port: restarted at once, on the interrupt thread. */
	assert_int_equal(dvp_port_stop(lo), 0);
	assert_int_equal(dvp_net_ring_inject_async(lo, DVP_PORT_CAUSE_CQ_ERROR, 1, true), 0);
	e = expect(&l, DVP_PORT_EVENT_QUEUE_ERROR, lo);
	assert_int_equal(e->queue.queue_id, 1);
	assert_true(e->queue.tx);
	assert_int_equal(e->cause, DVP_PORT_CAUSE_CQ_ERROR);
	/* A queue that is not set up: ignored, no event. */
	assert_int_equal(dvp_net_ring_inject_async(lo, DVP_PORT_CAUSE_WQ_FATAL, 3, false), 0);
	expect_none(&l);
	assert_int_equal(tp_xstat(lo, "dbg_queue_errors"), 3);
	assert_int_equal(tp_xstat(lo, "queue_restarts"), 3);
	assert_non_null(strstr(e->queue.reason, "rebuilt while stopped"));
	assert_int_equal(dvp_port_event_unregister(lo, DVP_PORT_EVENT_QUEUE_ERROR, on_event, &l),
			 0);
	sem_destroy(&l.sem);
}

struct fault_sleeper {
	struct dvp_rxwait_set *set;
	int ready;
	uint16_t queue_id;
};

static void *fault_sleeper_run(void *arg)
{
	struct fault_sleeper *s = arg;
	struct dvp_rx_wait_event ev[2];

	/* Long enough that only the fault's kick can end it within the test. */
	s->ready = dvp_rx_wait(s->set, ev, 2, 20000);
	if (s->ready > 0)
		s->queue_id = ev[0].queue_id;
	return NULL;
}

/* A fault raised while the lcore sleeps on the queue wakes it, and its burst rebuilds the queue. */
static void test_queue_fault_wakes_sleeper(void **state)
{
	struct fault_sleeper s = { .ready = -1 };
	struct dvp_mbuf *m;
	pthread_t th;

	(void)state;
	tp_port_up_intr(lo, 2, 0);
	assert_int_equal(dvp_xstats_reset(lo), 0);
	s.set = dvp_rxwait_set_create(4);
	assert_non_null(s.set);
	assert_int_equal(dvp_rx_intr_ctl(lo, 1, s.set, DVP_RX_INTR_CTL_ADD, NULL), 0);
	assert_int_equal(pthread_create(&th, NULL, fault_sleeper_run, &s), 0);
	usleep(20000); /* most likely asleep by now; if not, it finds the fault when it arms */
	assert_int_equal(dvp_net_ring_inject_async(lo, DVP_PORT_CAUSE_WQ_FATAL, 1, false), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(s.ready, 1);
	assert_int_equal(s.queue_id, 1);
	assert_int_equal(dvp_rx_burst(lo, 1, &m, 1), 0);
	assert_int_equal(tp_xstat(lo, "queue_restarts"), 1);
	assert_int_equal(dvp_rx_intr_ctl(lo, 1, s.set, DVP_RX_INTR_CTL_DEL, NULL), 0);
	assert_int_equal(dvp_rxwait_set_free(s.set), 0);
}

/* The primitive itself: first cause wins, take clears; raise refuses what it cannot serve. */
static void test_queue_fault_primitive(void **state)
{
	static struct dvp_port port = { .port_id = 9, .started = true };
	struct dvp_queue_fault f = { 0 };
	int dummy_queue;

	(void)state;
	assert_false(dvp_queue_fault_pending(&f));
	assert_int_equal(dvp_queue_fault_take(&f), DVP_PORT_CAUSE_NONE);
	assert_true(dvp_queue_fault_set(&f, DVP_PORT_CAUSE_CQ_ERROR));
	assert_false(dvp_queue_fault_set(&f, DVP_PORT_CAUSE_QP_FATAL));
	assert_true(dvp_queue_fault_pending(&f));
	assert_int_equal(dvp_queue_fault_take(&f), DVP_PORT_CAUSE_CQ_ERROR);
	assert_int_equal(dvp_queue_fault_take(&f), DVP_PORT_CAUSE_NONE);
	assert_string_equal(dvp_port_event_cause_name(DVP_PORT_CAUSE_DRIVER), "DRIVER");

	port.driver_name = "test";
	port.rxqs[0] = &dummy_queue;
	assert_int_equal(dvp_port_queue_fault_raise(&port, 0, false, DVP_PORT_CAUSE_CQ_ERROR),
			 -ENOTSUP);
	assert_int_equal(dvp_port_queue_fault_raise(&port, 1, false, DVP_PORT_CAUSE_CQ_ERROR),
			 -EINVAL);
	assert_int_equal(dvp_port_queue_fault_raise(&port, DVP_MAX_QUEUES_PER_PORT, false,
						    DVP_PORT_CAUSE_CQ_ERROR),
			 -EINVAL);
	dvp_port_queue_fault_attach(&port, 0, false, &f);
	assert_ptr_equal(port.rxq_fault[0], &f);
	assert_int_equal(dvp_port_queue_fault_raise(&port, 0, false, DVP_PORT_CAUSE_NONE), -EINVAL);
	assert_int_equal(dvp_port_queue_fault_raise(&port, 0, false, DVP_PORT_CAUSE_MAX), -EINVAL);
	assert_false(dvp_queue_fault_pending(&f));
}

/* DEVICE_FATAL twice: one removal; bursts stop; reset brings the port back. */
static void test_removal_once(void **state)
{
	struct dvp_port_conf conf = { 0 };
	struct dvp_log_capture cap;
	static struct ev_log l;
	struct dvp_mbuf *m;

	(void)state;
	ev_log_init(&l);
	conf.intr_conf.rmv = 1;
	tp_port_up(lo, 1, &conf);
	assert_int_equal(dvp_xstats_reset(lo), 0);
	tp_send(lo, 0, 3);
	assert_int_equal(dvp_port_event_register(lo, DVP_PORT_EVENT_REMOVAL, on_event, &l), 0);
	assert_int_equal(dvp_net_ring_inject_async(lo, DVP_PORT_CAUSE_DEVICE_FATAL, 0, false), 0);
	assert_int_equal(dvp_net_ring_inject_async(lo, DVP_PORT_CAUSE_DEVICE_FATAL, 0, false), 0);
	assert_int_equal(expect(&l, DVP_PORT_EVENT_REMOVAL, lo)->cause,
			 DVP_PORT_CAUSE_DEVICE_FATAL);
	expect_none(&l);
	assert_int_equal(dvp_rx_burst(lo, 0, &m, 1), 0);
	assert_int_equal(tp_xstat(lo, "dbg_rx_burst_refused"), 1);
	assert_int_equal(tp_xstat(lo, "async_events_acked"), 2);
	assert_int_equal(dvp_port_stop(lo), 0);
	tp_assert_pool_full();
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_port_start(lo), -EIO);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "the device was removed; close or reset the port");
	dvp_log_capture_free(&cap);

	assert_int_equal(dvp_port_reset(lo), 0);
	assert_int_equal(dvp_port_start(lo), -EINVAL); /* must be configured again */
	tp_port_up(lo, 1, &conf);
	tp_send(lo, 0, 1);
	assert_int_equal(tp_recv_all(lo, 0), 1);
	/* A new removal after the reset is reported again. */
	assert_int_equal(dvp_net_ring_inject_async(lo, DVP_PORT_CAUSE_DEVICE_FATAL, 0, false), 0);
	expect(&l, DVP_PORT_EVENT_REMOVAL, lo);
	assert_int_equal(dvp_port_event_unregister(lo, DVP_PORT_EVENT_REMOVAL, on_event, &l), 0);
	assert_int_equal(dvp_port_reset(lo), 0);
	sem_destroy(&l.sem);
}

/*
 * The VLAN filter: a driver that has one, as net_ring's ops with a VLAN
 * filter beside them (the test's own), recording what lib/port asks.
 */
static struct dvp_port_ops vf_ops;
static const struct dvp_port_ops *vf_ring_ops;
static int vf_calls, vf_last_id, vf_last_on, vf_fail, vf_offload_calls;
static bool vf_seen_in_table;

static int vf_info_get(struct dvp_port *port, struct dvp_port_info *info)
{
	int ret = vf_ring_ops->info_get(port, info);

	info->rx_offload_capa |= DVP_RX_OFFLOAD_VLAN_FILTER;
	return ret;
}

static int vf_filter_set(struct dvp_port *port, uint16_t vlan_id, bool on)
{
	vf_calls++;
	vf_last_id = vlan_id;
	vf_last_on = on;
	/* The table is as it is to be when the driver applies it. */
	vf_seen_in_table = dvp_port_vlan_filter_has(port, vlan_id) == on;
	return vf_fail;
}

static int vf_offload_set(struct dvp_port *port, bool on)
{
	vf_offload_calls++;
	assert_int_equal((port->conf.rxmode.offloads & DVP_RX_OFFLOAD_VLAN_FILTER) != 0, on);
	return vf_fail;
}

static void test_vlan_filter(void **state)
{
	struct dvp_port_conf conf = { .rxmode.offloads = DVP_RX_OFFLOAD_VLAN_FILTER };
	struct dvp_port *port = dvp_port_get(c1);
	struct dvp_log_capture cap;
	struct dvp_port_info info;

	(void)state;
	/* net_ring filters nothing: refused with one line, nothing kept. */
	tp_port_setup(c1, 1, NULL);
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_port_vlan_filter(c1, 100, true), -ENOTSUP);
	assert_int_equal(dvp_port_vlan_filter_offload_set(c1, true), -ENOTSUP);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "VLAN filter: net_ring filters no VLANs");
	assert_contains(cap.buf, "VLAN filter offload: net_ring filters no VLANs");
	dvp_log_capture_free(&cap);
	assert_int_equal(dvp_port_vlan_filter_get(c1, 100), 0);

	vf_ring_ops = port->ops;
	vf_ops = *port->ops;
	vf_ops.info_get = vf_info_get;
	vf_ops.vlan_filter_set = vf_filter_set;
	vf_ops.vlan_filter_offload_set = vf_offload_set;
	port->ops = &vf_ops;
	assert_int_equal(dvp_port_info_get(c1, &info), 0);
	assert_true(info.rx_offload_capa & DVP_RX_OFFLOAD_VLAN_FILTER);

	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_port_vlan_filter(c1, 4096, true), -EINVAL);
	assert_int_equal(dvp_port_vlan_filter_get(c1, 4096), -EINVAL);
	/* Configured without the offload: as DPDK, no table change. */
	assert_int_equal(dvp_port_vlan_filter(c1, 100, true), -ENOSYS);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "VLAN filter: VLAN id 4096 out of range [0, 4095]");
	assert_contains(cap.buf, "VLAN filter: DVP_RX_OFFLOAD_VLAN_FILTER is off");
	dvp_log_capture_free(&cap);
	assert_int_equal(vf_calls, 0);

	/* Turned on at run time; then 0 and 4095, the ends of the range. */
	assert_int_equal(dvp_port_vlan_filter_offload_set(c1, true), 0);
	assert_int_equal(vf_offload_calls, 1);
	assert_int_equal(dvp_port_vlan_filter_offload_set(c1, true), 0);
	assert_int_equal(vf_offload_calls, 1);
	assert_int_equal(dvp_port_vlan_filter(c1, 0, true), 0);
	assert_int_equal(dvp_port_vlan_filter(c1, 4095, true), 0);
	assert_int_equal(dvp_port_vlan_filter(c1, 100, true), 0);
	assert_int_equal(vf_calls, 3);
	assert_int_equal(vf_last_id, 100);
	assert_int_equal(vf_last_on, 1);
	assert_true(vf_seen_in_table);
	assert_int_equal(dvp_port_vlan_filter_get(c1, 0), 1);
	assert_int_equal(dvp_port_vlan_filter_get(c1, 4095), 1);
	assert_int_equal(dvp_port_vlan_filter_get(c1, 100), 1);
	assert_int_equal(dvp_port_vlan_filter_get(c1, 101), 0);
	assert_int_equal(dvp_port_vlan_filter_count(port), 3);
	assert_int_equal(dvp_port_vlan_filter(c1, 0, false), 0);
	assert_true(vf_seen_in_table);
	assert_int_equal(dvp_port_vlan_filter_get(c1, 0), 0);

	/* A refusal leaves the table and the offloads as they were. */
	vf_fail = -ENOSPC;
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_port_vlan_filter(c1, 200, true), -ENOSPC);
	assert_int_equal(dvp_port_vlan_filter(c1, 100, false), -ENOSPC);
	assert_int_equal(dvp_port_vlan_filter_offload_set(c1, false), -ENOSPC);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "VLAN filter add VLAN 200: net_ring refused");
	dvp_log_capture_free(&cap);
	vf_fail = 0;
	assert_int_equal(dvp_port_vlan_filter_get(c1, 200), 0);
	assert_int_equal(dvp_port_vlan_filter_get(c1, 100), 1);
	assert_true(port->conf.rxmode.offloads & DVP_RX_OFFLOAD_VLAN_FILTER);

	/* The table lasts across start, stop and a new configure. */
	assert_int_equal(dvp_port_start(c1), 0);
	assert_int_equal(dvp_port_vlan_filter(c1, 300, true), 0);
	assert_int_equal(dvp_port_stop(c1), 0);
	tp_port_setup(c1, 1, &conf);
	assert_int_equal(dvp_port_vlan_filter_get(c1, 100), 1);
	assert_int_equal(dvp_port_vlan_filter_get(c1, 300), 1);
	assert_int_equal(dvp_port_vlan_filter_get(c1, 4095), 1);
	assert_int_equal(dvp_port_vlan_filter_count(port), 3);
	assert_int_equal(dvp_port_vlan_filter_offload_set(c1, false), 0);
	assert_false(port->conf.rxmode.offloads & DVP_RX_OFFLOAD_VLAN_FILTER);
	assert_int_equal(dvp_port_vlan_filter(c1, 300, false), -ENOSYS);
	port->ops = vf_ring_ops;
	memset(port->vlan_filter, 0, sizeof(port->vlan_filter));

	/* A port not configured yet takes the table; the offload waits for configure. */
	{
		struct dvp_port *p8;
		uint16_t id8;

		assert_int_equal(dvp_vdev_create("net_ring8"), 0);
		id8 = tp_port("net_ring8");
		p8 = dvp_port_get(id8);
		p8->ops = &vf_ops;
		assert_int_equal(dvp_port_vlan_filter(id8, 100, true), 0);
		assert_int_equal(dvp_port_vlan_filter_get(id8, 100), 1);
		dvp_log_capture_begin(&cap);
		assert_int_equal(dvp_port_vlan_filter_offload_set(id8, true), -EINVAL);
		dvp_log_capture_end(&cap);
		assert_contains(cap.buf, "VLAN filter offload: the port is not configured");
		dvp_log_capture_free(&cap);
		tp_port_setup(id8, 1, &conf);
		assert_int_equal(dvp_port_vlan_filter_get(id8, 100), 1);
		assert_int_equal(dvp_port_vlan_filter(id8, 100, false), 0);
		p8->ops = vf_ring_ops;
		assert_int_equal(dvp_dev_remove("net_ring8"), 0);
	}
}

/* What lib/port gives drivers for rxq_setup: the interrupt conf asked. */
static void test_rxq_intr_conf(void **state)
{
	struct dvp_port port = { .port_id = 7 };
	struct dvp_rxwait_queue_conf ic;

	(void)state;
	port.conf.intr_conf.rxq_ack_batch = 16;
	port.conf.intr_conf.rxq_solicited = true;
	ic = dvp_port_rxq_intr_conf(&port, 3, 42);
	assert_int_equal(ic.fd, 42);
	assert_int_equal(ic.ack_batch, 16);
	assert_true(ic.solicited);
	assert_int_equal(ic.port_id, 7);
	assert_int_equal(ic.queue_id, 3);
	assert_int_equal(ic.nb_extra_fds, 0);
	/* A failed init leaves the port without the queue's interrupt state. */
	{
		static const struct dvp_rxwait_queue_ops no_hooks;
		struct dvp_rxwait_queue iq = { 0 };

		assert_int_equal(dvp_port_rxq_intr_init(&port, 3, &iq, &no_hooks, NULL, &ic),
				 -EINVAL);
		assert_null(port.rxq_intr[3]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lookup),
		cmocka_unit_test(test_info),
		cmocka_unit_test_setup(test_configure_errors, stop_all),
		cmocka_unit_test(test_setup_and_start_errors),
		cmocka_unit_test_setup(test_burst_refused, stop_all),
		cmocka_unit_test_setup(test_monitor_addr, stop_all),
		cmocka_unit_test_setup(test_stop_returns_mbufs, stop_all),
		cmocka_unit_test_setup(test_stats_xstats, stop_all),
		cmocka_unit_test(test_ether_unformat_addr),
		cmocka_unit_test_setup(test_mac_promisc_mtu, stop_all),
		cmocka_unit_test_setup(test_link_and_lsc, stop_all),
		cmocka_unit_test(test_new_destroy_and_unregister),
		cmocka_unit_test_setup(test_queue_error, stop_all),
		cmocka_unit_test_setup(test_queue_fault_wakes_sleeper, stop_all),
		cmocka_unit_test(test_queue_fault_primitive),
		cmocka_unit_test_setup(test_removal_once, stop_all),
		cmocka_unit_test(test_rxq_intr_conf),
		cmocka_unit_test_setup(test_vlan_filter, stop_all),
	};

	return cmocka_run_group_tests(tests, setup, tp_teardown);
}
