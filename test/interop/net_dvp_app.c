/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * A DPDK application of our own over net_dvp, for what testpmd cannot show:
 *
 *  - a received rte_mbuf's data is where the device wrote it: the mbuf is
 *    from the application's pool, its buffer is external (not in that pool)
 *    and is the dvp buffer the rx queue posted, and the frame in it is the
 *    sim source's, intact;
 *  - rx interrupts by DPDK's API: the lcore sleeps in rte_epoll_wait on the
 *    queue's fd and wakes for the next burst of the source;
 *  - every rte_mbuf is back in the application's pool after close.
 *
 * Usage: net_dvp_app <EAL args: -d PLUGIN --vdev net_dvp0,sim_mlx5,...> -- [--intr]
 * Exit 0 pass, 1 fail.
 */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_interrupts.h>
#include <rte_mbuf.h>

#define NB_MBUF 4096
#define BURST 32

static struct rte_mempool *mp;

#define CHECK(cond, ...)                                                   \
	do {                                                               \
		if (!(cond)) {                                             \
			fprintf(stderr, "FAIL: " __VA_ARGS__);             \
			fprintf(stderr, " (%s:%d)\n", __FILE__, __LINE__); \
			exit(1);                                           \
		}                                                          \
	} while (0)

struct range_check {
	const void *p;
	bool inside;
};

static void in_chunk(struct rte_mempool *m, void *opaque, struct rte_mempool_memhdr *hdr,
		     unsigned int idx)
{
	struct range_check *rc = opaque;

	(void)m;
	(void)idx;
	if ((const char *)rc->p >= (const char *)hdr->addr &&
	    (const char *)rc->p < (const char *)hdr->addr + hdr->len)
		rc->inside = true;
}

static bool in_pool(const void *p)
{
	struct range_check rc = { p, false };

	rte_mempool_mem_iter(mp, in_chunk, &rc);
	return rc.inside;
}

/* A sim source frame: Ethernet, IPv4, UDP (drivers/sim/mlx5/sim_pkt.c). */
static bool looks_like_source_frame(const struct rte_mbuf *m)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);

	return m->data_len >= 60 && d[12] == 0x08 && d[13] == 0x00 && (d[14] >> 4) == 4 &&
	       d[23] == 17;
}

static void check_received(struct rte_mbuf *m)
{
	const struct rte_mbuf_ext_shared_info *shinfo = m->shinfo;

	CHECK(m->pool == mp, "an rx mbuf from pool %s, not the application's",
	      m->pool ? m->pool->name : "?");
	CHECK(RTE_MBUF_HAS_EXTBUF(m), "an rx mbuf without an external buffer: data was copied");
	CHECK(!in_pool(m->buf_addr), "the rx buffer lies in the application's pool");
	CHECK(shinfo != NULL && shinfo->free_cb != NULL && rte_mbuf_ext_refcnt_read(shinfo) == 1,
	      "the external buffer has no owner info");
	CHECK(m->buf_iova != RTE_BAD_IOVA && m->buf_iova != 0, "no IOVA for the rx buffer");
	CHECK(rte_pktmbuf_mtod(m, char *) >= (char *)m->buf_addr &&
		      rte_pktmbuf_mtod(m, char *) + m->data_len <= (char *)m->buf_addr + m->buf_len,
	      "data outside its buffer");
	CHECK(looks_like_source_frame(m), "not the source's frame (len %u)", m->data_len);
	CHECK(m->pkt_len == m->data_len && m->nb_segs == 1, "bad lengths %u/%u", m->pkt_len,
	      m->data_len);
}

int main(int argc, char **argv)
{
	struct rte_eth_conf conf = { 0 };
	struct rte_mbuf *pkts[BURST];
	struct rte_epoll_event ev[1];
	uint64_t got = 0, wakeups = 0;
	bool intr = false;
	uint16_t port = 0, n, i;
	int ret, spins;

	ret = rte_eal_init(argc, argv);
	CHECK(ret >= 0, "rte_eal_init: %s", rte_strerror(rte_errno));
	argc -= ret;
	argv += ret;
	intr = argc > 1 && strcmp(argv[1], "--intr") == 0;
	CHECK(rte_eth_dev_count_avail() >= 1, "no ethdev port: the plugin made none");

	mp = rte_pktmbuf_pool_create("app_pool", NB_MBUF, 128, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				     (int)rte_socket_id());
	CHECK(mp != NULL, "pool: %s", rte_strerror(rte_errno));
	conf.intr_conf.rxq = intr;
	CHECK(rte_eth_dev_configure(port, 1, 1, &conf) == 0, "configure");
	CHECK(rte_eth_rx_queue_setup(port, 0, 512, rte_eth_dev_socket_id(port), NULL, mp) == 0,
	      "rx queue setup");
	CHECK(rte_eth_tx_queue_setup(port, 0, 512, rte_eth_dev_socket_id(port), NULL) == 0,
	      "tx queue setup");
	CHECK(rte_eth_dev_start(port) == 0, "start");
	/* As with DPDK's own drivers, the queues' fds exist once the port is started. */
	if (intr)
		CHECK(rte_eth_dev_rx_intr_ctl_q(port, 0, RTE_EPOLL_PER_THREAD, RTE_INTR_EVENT_ADD,
						NULL) == 0,
		      "rx_intr_ctl_q: %s", rte_strerror(rte_errno));

	/* The source sends its bursts; poll each dry, then sleep on the interrupt. */
	for (spins = 0; spins < 2000000 && got < 2000; spins++) {
		n = rte_eth_rx_burst(port, 0, pkts, BURST);
		for (i = 0; i < n; i++)
			check_received(pkts[i]);
		rte_pktmbuf_free_bulk(pkts, n);
		got += n;
		if (n != 0 || !intr)
			continue;
		/* As l3fwd-power: arm, then sleep with no poll in between. */
		CHECK(rte_eth_dev_rx_intr_enable(port, 0) == 0, "rx_intr_enable");
		ret = rte_epoll_wait(RTE_EPOLL_PER_THREAD, ev, 1, 5000);
		CHECK(ret == 1,
		      "rte_epoll_wait returned %d after %llu packets: no wake-up within 5 s", ret,
		      (unsigned long long)got);
		rte_eth_dev_rx_intr_disable(port, 0);
		wakeups++;
	}
	CHECK(got >= 2000, "received %llu packets, expected 2000", (unsigned long long)got);
	if (intr)
		CHECK(wakeups >= 3, "only %llu wake-ups: the lcore never slept between bursts",
		      (unsigned long long)wakeups);
	CHECK(rte_eth_dev_stop(port) == 0, "stop");
	CHECK(rte_eth_dev_close(port) == 0, "close");
	CHECK(rte_mempool_in_use_count(mp) == 0, "%u rte_mbufs not back in the pool",
	      rte_mempool_in_use_count(mp));
	printf("PASS: %llu packets received zero-copy in rte_mbufs of the application's pool%s%llu wake-ups; every mbuf back\n",
	       (unsigned long long)got, intr ? ", interrupt mode: " : "; ",
	       (unsigned long long)wakeups);
	rte_mempool_free(mp);
	rte_eal_cleanup();
	return 0;
}
