/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * af_xdp_restart: a net_af_xdp port stopped and started again under
 * traffic, as an application does it through lib/port. Each start opens
 * new sockets; each stop must give every mbuf back (the fill ring's, the
 * rx ring's, those in flight on tx) and keep the counters running.
 *
 *   af_xdp_restart [EAL args] --vdev net_af_xdp0,iface=IF,... -- CYCLES
 *
 * The port is configured once (rx interrupts on, one queue pair, the
 * queue asleep in a wait set between frames); per cycle: start, receive
 * until 200 frames came and send each back out, stop, then check that the
 * port holds no mbuf and the pool is full. The frames come from the kernel's side (af_xdp_peer, run by
 * af_xdp_veth.sh). It prints one RESULT line and exits 0 when every cycle
 * did all that and the port's received count only grew across them.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <dvp_eal.h>
#include <dvp_errno.h>
#include <dvp_mbuf.h>
#include <dvp_port.h>
#include <dvp_rxwait.h>

#define PROG "af_xdp_restart"
#define PER_CYCLE 200

static int fail(const char *what, int ret)
{
	fprintf(stderr, PROG ": %s: %s\n", what, dvp_strerror(ret < 0 ? -ret : dvp_errno));
	return 1;
}

int main(int argc, char **argv)
{
	struct dvp_port_conf conf = { .intr_conf = { .rxq = 1 } };
	struct dvp_rx_wait_event ev[1];
	struct dvp_mempool *mp;
	struct dvp_rxwait_set *set;
	uint64_t last_rx = 0, total = 0;
	unsigned int cycles, c;
	uint16_t port;
	int n, ret;

	n = dvp_eal_init(argc, argv);
	if (n < 0)
		return fail("EAL init", n);
	if (argc - n != 2) {
		fprintf(stderr, "usage: " PROG " [EAL args] -- CYCLES\n");
		return 2;
	}
	cycles = (unsigned int)strtoul(argv[n + 1], NULL, 0);
	mp = dvp_pktmbuf_pool_create("restart", 8191, 0, 0, DVP_MBUF_DEFAULT_BUF_SIZE,
				     DVP_SOCKET_ANY);
	set = dvp_rxwait_set_create(1);
	if (mp == NULL || set == NULL || dvp_port_get_by_name("net_af_xdp0", &port) != 0)
		return fail("pool, wait set or port", -dvp_errno);
	if ((ret = dvp_port_configure(port, 1, 1, &conf)) != 0)
		return fail("configure", ret);
	if ((ret = dvp_rxq_setup(port, 0, 1024, DVP_SOCKET_ANY, NULL, mp)) != 0 ||
	    (ret = dvp_txq_setup(port, 0, 1024, DVP_SOCKET_ANY, NULL)) != 0)
		return fail("queue setup", ret);
	if ((ret = dvp_rx_intr_ctl(port, 0, set, DVP_RX_INTR_CTL_ADD, NULL)) != 0)
		return fail("rx interrupt set", ret);
	for (c = 0; c < cycles; c++) {
		struct dvp_port_stats st;
		time_t deadline = time(NULL) + 60;
		unsigned int got = 0;

		if ((ret = dvp_port_start(port)) != 0)
			return fail("start", ret);
		while (got < PER_CYCLE && time(NULL) < deadline) {
			struct dvp_mbuf *pkts[32];
			uint16_t k = dvp_rx_burst(port, 0, pkts, 32), sent;

			if (k == 0) {
				dvp_rx_wait(set, ev, 1, 100);
				continue;
			}
			got += k;
			/* Back out: some are in flight on tx when the stop comes. */
			sent = dvp_tx_burst(port, 0, pkts, k);
			dvp_pktmbuf_free_bulk(pkts + sent, k - sent);
		}
		if (got < PER_CYCLE) {
			fprintf(stderr, PROG ": cycle %u: %u frames in 60 s\n", c, got);
			return 1;
		}
		ret = dvp_port_stop(port);
		if (ret != 0)
			return fail("stop (mbufs still held?)", ret);
		if (dvp_port_mbufs_held(port) != 0 || dvp_pktmbuf_pool_in_use(mp) != 0) {
			fprintf(stderr,
				PROG ": cycle %u: the port holds %d mbufs, %u not in the pool\n", c,
				dvp_port_mbufs_held(port), dvp_pktmbuf_pool_in_use(mp));
			return 1;
		}
		if (dvp_stats_get(port, &st) != 0 || st.ipackets < last_rx + got) {
			fprintf(stderr,
				PROG ": cycle %u: ipackets %" PRIu64 " after %" PRIu64 " + %u\n", c,
				st.ipackets, last_rx, got);
			return 1;
		}
		last_rx = st.ipackets;
		total += got;
	}
	printf("RESULT cycles=%u received=%" PRIu64 " mbufs_back=yes\n", cycles, total);
	dvp_port_close(port);
	dvp_rxwait_set_free(set);
	dvp_mempool_free(mp);
	dvp_eal_cleanup();
	return 0;
}
