/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * lib/port against net_ring: lookup and info; every wrong use an error with
 * a line that names it (bad ids, configure and setup out of order or out of
 * range, bursts on a stopped port counted); mbufs all back in their pool
 * after stop and close; stats and xstats; MAC, promiscuous mode, MTU; the
 * rx interrupt conf given drivers; no power monitor address where the
 * driver has none. Events and faults: test_port_event.c; the VLAN filter:
 * test_port_offload.c.
 */

#include "test_port_helpers.h"

#include <dvp_port_driver.h>

static uint16_t lo, c1, c2; /* net_ring0 looped back; net_ring1 <-> net_ring2 */

static int setup(void **state)
{
	(void)state;
	return tp_ring_trio_init(&lo, &c1, &c2);
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
		cmocka_unit_test_setup(test_configure_errors, tp_stop_all),
		cmocka_unit_test(test_setup_and_start_errors),
		cmocka_unit_test_setup(test_burst_refused, tp_stop_all),
		cmocka_unit_test_setup(test_monitor_addr, tp_stop_all),
		cmocka_unit_test_setup(test_stop_returns_mbufs, tp_stop_all),
		cmocka_unit_test_setup(test_stats_xstats, tp_stop_all),
		cmocka_unit_test(test_ether_unformat_addr),
		cmocka_unit_test_setup(test_mac_promisc_mtu, tp_stop_all),
		cmocka_unit_test(test_rxq_intr_conf),
	};

	return cmocka_run_group_tests(tests, setup, tp_teardown);
}
