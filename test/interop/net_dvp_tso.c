/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * TSO and VLAN insertion through DPDK's API over net_dvp (run by
 * net_dvp_app.sh, case tso): two net_dvp ports on a simulated HCA whose
 * ports are cabled to each other. TCP/IPv4 messages of several sizes, in
 * chains of rte_mbufs with RTE_MBUF_F_TX_TCP_SEG, tso_segsz and the
 * header lengths (some with RTE_MBUF_F_TX_VLAN), go out of port 0; port
 * 1 receives their segments, each compared byte for byte with the frame
 * built here for it (headers rewritten, checksums right, the tag in
 * place). Every mbuf goes back to its pool.
 */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_pause.h>

#define CHECK(cond, ...)                              \
	do {                                          \
		if (!(cond)) {                        \
			printf("FAIL: " __VA_ARGS__); \
			printf("\n");                 \
			exit(1);                      \
		}                                     \
	} while (0)

#define TX_OFFLOADS                                                     \
	(RTE_ETH_TX_OFFLOAD_TCP_TSO | RTE_ETH_TX_OFFLOAD_VLAN_INSERT |  \
	 RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_TCP_CKSUM | \
	 RTE_ETH_TX_OFFLOAD_MULTI_SEGS)

struct tcp_desc {
	bool vlan;
	uint16_t tci;
	uint16_t ip_id;
	uint32_t seq;
	uint8_t flags;
};

static uint8_t msg[70000], want[2048];

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* An Ethernet (tagged or not) / IPv4 / TCP frame, payload bytes @p off.. of every message. */
static uint32_t tcp_frame(uint8_t *b, const struct tcp_desc *d, uint32_t off, uint32_t n)
{
	static const uint8_t macs[12] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 2, 0, 0, 0, 0, 1 };
	uint32_t l3 = d->vlan ? 18 : 14, l4 = l3 + 20, sum;

	memcpy(b, macs, 12);
	if (d->vlan) {
		put16(b + 12, 0x8100);
		put16(b + 14, d->tci);
	}
	put16(b + l3 - 2, 0x0800);
	memset(b + l3, 0, 40);
	b[l3] = 0x45;
	put16(b + l3 + 2, (uint16_t)(40 + n));
	put16(b + l3 + 4, d->ip_id);
	b[l3 + 8] = 64;
	b[l3 + 9] = 6;
	b[l3 + 12] = 10;
	b[l3 + 15] = 1;
	b[l3 + 16] = 10;
	b[l3 + 19] = 2;
	put16(b + l3 + 10, csum_fold(csum_add(0, b + l3, 20)));
	put16(b + l4, 40000);
	put16(b + l4 + 2, 80);
	b[l4 + 4] = (uint8_t)(d->seq >> 24);
	b[l4 + 5] = (uint8_t)(d->seq >> 16);
	b[l4 + 6] = (uint8_t)(d->seq >> 8);
	b[l4 + 7] = (uint8_t)d->seq;
	b[l4 + 12] = 0x50;
	b[l4 + 13] = d->flags;
	put16(b + l4 + 14, 0xffff);
	for (uint32_t i = 0; i < n; i++)
		b[l4 + 20 + i] = (uint8_t)((off + i) * 13u + 5u);
	sum = csum_add(6u + 20u + n, b + l3 + 12, 8);
	put16(b + l4 + 16, csum_fold(csum_add(sum, b + l4, 20 + n)));
	return l4 + 20 + n;
}

/*
 * A message of @p payload bytes asking for TSO at @p mss: its first
 * @p first bytes in one mbuf (the headers may end in the next), then 2000
 * bytes per mbuf.
 */
static struct rte_mbuf *message(struct rte_mempool *mp, const struct tcp_desc *d, uint32_t payload,
				uint16_t mss, uint32_t first)
{
	struct tcp_desc untagged = *d;
	struct rte_mbuf *head = NULL;
	uint32_t len, off;

	untagged.vlan = false;
	len = tcp_frame(msg, &untagged, 0, payload);
	for (off = 0; off < len; off += RTE_MIN(off == 0 ? first : 2000u, len - off)) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
		uint32_t n = RTE_MIN(off == 0 ? first : 2000u, len - off);

		CHECK(m != NULL, "the pool is dry");
		memcpy(rte_pktmbuf_append(m, (uint16_t)n), msg + off, n);
		if (head == NULL)
			head = m;
		else
			CHECK(rte_pktmbuf_chain(head, m) == 0, "rte_pktmbuf_chain");
	}
	head->ol_flags = RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM |
			 RTE_MBUF_F_TX_TCP_CKSUM | (d->vlan ? RTE_MBUF_F_TX_VLAN : 0);
	head->vlan_tci = d->tci;
	head->l2_len = 14;
	head->l3_len = 20;
	head->l4_len = 20;
	head->tso_segsz = mss;
	return head;
}

/* The non-zero xstats of both ports, for a failure's report. */
static void dump_xstats(void)
{
	for (uint16_t p = 0; p < 2; p++) {
		struct rte_eth_xstat_name names[256];
		struct rte_eth_xstat xs[256];
		int n = rte_eth_xstats_get_names(p, names, 256);

		n = RTE_MIN(n, rte_eth_xstats_get(p, xs, 256));
		for (int i = 0; i < n; i++)
			if (xs[i].value != 0)
				printf("port %u %s: %llu\n", p, names[xs[i].id].name,
				       (unsigned long long)xs[i].value);
	}
}

int main(int argc, char **argv)
{
	static const struct {
		uint32_t payload;
		uint16_t mss;
		uint32_t first; /* bytes in the first mbuf */
		bool vlan;
	} cases[] = {
		{ 4000, 1000, 2000, false },  { 4001, 1000, 30, true },
		{ 500, 1000, 600, true },     { 10000, 1448, 1000, false },
		{ 60000, 1460, 2000, false },
	};
	struct rte_eth_conf conf = { 0 };
	struct rte_eth_dev_info info;
	struct rte_mempool *mp;
	uint64_t frames = 0;
	int ret;

	ret = rte_eal_init(argc, argv);
	CHECK(ret >= 0, "rte_eal_init: %s", rte_strerror(rte_errno));
	CHECK(rte_eth_dev_count_avail() == 2, "%u ports, not the sim's 2",
	      rte_eth_dev_count_avail());
	CHECK(rte_eth_dev_info_get(0, &info) == 0, "dev_info_get");
	CHECK((info.tx_offload_capa & TX_OFFLOADS) == TX_OFFLOADS,
	      "port 0 offers tx offloads 0x%llx, not all of 0x%llx",
	      (unsigned long long)info.tx_offload_capa, (unsigned long long)TX_OFFLOADS);
	mp = rte_pktmbuf_pool_create("tso", 4095, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				     (int)rte_socket_id());
	CHECK(mp != NULL, "pool: %s", rte_strerror(rte_errno));
	for (uint16_t p = 0; p < 2; p++) {
		conf.txmode.offloads = p == 0 ? TX_OFFLOADS : 0;
		CHECK(rte_eth_dev_configure(p, 1, 1, &conf) == 0, "configure port %u", p);
		CHECK(rte_eth_rx_queue_setup(p, 0, 1024, (unsigned int)rte_socket_id(), NULL, mp) ==
			      0,
		      "rx queue of port %u", p);
		CHECK(rte_eth_tx_queue_setup(p, 0, 1024, (unsigned int)rte_socket_id(), NULL) == 0,
		      "tx queue of port %u", p);
		CHECK(rte_eth_dev_start(p) == 0, "start port %u", p);
	}
	for (unsigned int c = 0; c < RTE_DIM(cases); c++) {
		struct tcp_desc d = { .vlan = cases[c].vlan,
				      .tci = 0x0064,
				      .ip_id = (uint16_t)(0xfffe + c),
				      .seq = 0xffffff00u + c,
				      .flags = 0x19 };
		struct rte_mbuf *m =
			message(mp, &d, cases[c].payload, cases[c].mss, cases[c].first);
		uint32_t nseg = (cases[c].payload + cases[c].mss - 1) / cases[c].mss, got = 0;

		for (int tries = 0; rte_eth_tx_burst(0, 0, &m, 1) == 0; tries++) {
			CHECK(tries < 1000000, "case %u: port 0 takes no message", c);
			rte_pause();
		}
		for (uint64_t spins = 0; got < nseg; spins++) {
			struct rte_mbuf *rx[32];
			uint16_t n = rte_eth_rx_burst(1, 0, rx, 32);

			if (spins == 200000000ull)
				dump_xstats();
			CHECK(spins < 200000000ull, "case %u: port 1 received %u of %u segments", c,
			      got, nseg);
			rte_eth_tx_burst(0, 0, NULL, 0); /* completions */
			for (uint16_t i = 0; i < n; i++, got++) {
				struct tcp_desc s = d;
				uint32_t off = got * cases[c].mss, len;
				uint32_t k =
					RTE_MIN((uint32_t)cases[c].mss, cases[c].payload - off);

				CHECK(got < nseg, "case %u: more segments than %u", c, nseg);
				s.ip_id = (uint16_t)(d.ip_id + got);
				s.seq = d.seq + off;
				if (got + 1 < nseg)
					s.flags &= (uint8_t)~0x09u;
				len = tcp_frame(want, &s, off, k);
				CHECK(rx[i]->pkt_len == len && rx[i]->nb_segs == 1 &&
					      memcmp(rte_pktmbuf_mtod(rx[i], const void *), want,
						     len) == 0,
				      "case %u: segment %u of %u (%u bytes) is not the frame expected "
				      "(%u bytes)",
				      c, got, nseg, rx[i]->pkt_len, len);
				rte_pktmbuf_free(rx[i]);
			}
		}
		frames += got;
	}
	for (uint16_t p = 0; p < 2; p++) {
		struct rte_eth_stats st;

		CHECK(rte_eth_stats_get(p, &st) == 0 && st.oerrors == 0, "port %u: oerrors", p);
		CHECK(rte_eth_dev_stop(p) == 0, "stop port %u", p);
		CHECK(rte_eth_dev_close(p) == 0, "close port %u", p);
	}
	CHECK(rte_mempool_in_use_count(mp) == 0, "%u mbufs not back in the pool",
	      rte_mempool_in_use_count(mp));
	rte_mempool_free(mp);
	rte_eal_cleanup();
	printf("PASS: %u TSO messages (%llu segments, two with a VLAN tag inserted) sent through "
	       "net_dvp, every segment received byte for byte as expected, every mbuf back\n",
	       (unsigned int)RTE_DIM(cases), (unsigned long long)frames);
	return 0;
}
