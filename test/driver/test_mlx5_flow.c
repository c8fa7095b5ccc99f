/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The mlx5 PMD's steering on sim_mlx5: RSS spreading a source's flows over
 * four queues, each packet on the queue its Toeplitz hash names (checked
 * against the sim's Toeplitz with the default and a user key), the hash in
 * the mbuf, RSS field choices (addresses only, source address only), and
 * the MAC, multicast and promiscuous rules.
 */

#include "mlx5_fixture.h"

#include <arpa/inet.h>

#define NQ 4

static const uint8_t ms_key[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
	0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
	0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

/* The hash the device must give a source frame of @p flow under @p key and fields. */
static uint32_t expect_hash(const uint8_t *key, uint32_t flow, bool ports, bool src_only)
{
	uint8_t in[12];
	uint32_t sip = htonl(0xc6120000u + flow), dip = htonl(0xc6130001u);
	uint16_t sp = htons((uint16_t)(0xc000u | flow)), dp = htons(9);
	size_t n = 0;

	memcpy(in + n, &sip, 4);
	n += 4;
	if (!src_only) {
		memcpy(in + n, &dip, 4);
		n += 4;
	}
	if (ports) {
		memcpy(in + n, &sp, 2);
		memcpy(in + n + 2, &dp, 2);
		n += 4;
	}
	return sim_mlx5_toeplitz(key, 40, in, n);
}

/* Run @p frames of @p flows through 4 queues; check hash and queue of each; @return per-queue counts. */
static void spread(struct mf *f, uint8_t *key, uint64_t hf, bool ports, bool src_only,
		   uint32_t flows, uint64_t frames, uint64_t *per_q)
{
	static const uint16_t sizes[] = { 60 };
	struct dvp_port_conf conf;
	struct dvp_mbuf *pkts[32];
	uint64_t got = 0;

	memset(&conf, 0, sizeof(conf));
	conf.rss_conf.rss_hf = hf;
	conf.rss_conf.rss_key = key;
	conf.rss_conf.rss_key_len = key != NULL ? 40 : 0;
	mf_port_start(f, 0, NQ, 1, &conf, 256);
	mf_source(f, 0, frames, flows, sizes, 1);
	for (int i = 0; i < 100000 && got < frames; i++) {
		sim_mlx5_step(f->sim);
		for (uint16_t q = 0; q < NQ; q++) {
			uint16_t n = dvp_rx_burst(f->port[0], q, pkts, 32);

			for (uint16_t k = 0; k < n; k++) {
				const uint8_t *p = dvp_pktmbuf_mtod(pkts[k], const uint8_t *);
				uint32_t flow = (uint32_t)(p[28] << 8 | p[29]);
				uint32_t h = expect_hash(key != NULL ? key : ms_key, flow, ports,
							 src_only);

				assert_true(pkts[k]->ol_flags & DVP_MBUF_F_RX_RSS_HASH);
				assert_int_equal(pkts[k]->hash.rss, h);
				/* 512 entries, entry i -> queue i % 4. */
				assert_int_equal(q, (h & 511) % NQ);
			}
			per_q[q] += n;
			got += n;
			dvp_pktmbuf_free_bulk(pkts, n);
		}
	}
	assert_int_equal(got, frames);
}

static void test_rss_spreads(void **state)
{
	uint64_t per_q[NQ] = { 0 };
	struct mf f;

	(void)state;
	mf_open(&f, "ports=1,mode=step,cable=traffic,gen=off", 2048);
	spread(&f, NULL, DVP_RSS_IP | DVP_RSS_NONFRAG_IPV4_UDP, true, false, 64, 6400, per_q);
	for (int q = 0; q < NQ; q++) {
		assert_true(per_q[q] > 6400 / NQ / 3);
		assert_true(per_q[q] < 6400 / 2);
	}
	mf_close(&f);
}

static void test_rss_user_key_and_fields(void **state)
{
	uint8_t key[40];
	uint64_t per_q[NQ] = { 0 };
	struct mf f;

	(void)state;
	for (int i = 0; i < 40; i++)
		key[i] = (uint8_t)(i * 37 + 11);
	mf_open(&f, "ports=1,mode=step,cable=traffic,gen=off", 2048);
	/* Addresses only: the UDP class is not asked for. */
	spread(&f, key, DVP_RSS_IPV4, false, false, 32, 1000, per_q);
	assert_int_equal(dvp_port_stop(f.port[0]), 0);
	/* The source address alone. */
	spread(&f, key, DVP_RSS_IPV4 | DVP_RSS_L3_SRC_ONLY, false, true, 32, 1000, per_q);
	mf_close(&f);
}

static void test_rss_refused(void **state)
{
	struct dvp_port_conf conf;
	struct mf f;

	(void)state;
	mf_open(&f, "ports=1,mode=step", 0);
	memset(&conf, 0, sizeof(conf));
	/* L2 payload is not hashed (see doc/mlx5.md): refused by lib/port from info. */
	conf.rss_conf.rss_hf = DVP_RSS_L2_PAYLOAD;
	assert_int_equal(dvp_port_configure(f.port[0], 4, 1, &conf), -EINVAL);
	mf_close(&f);
}

/* Unicast to the port's MAC, broadcast and multicast are taken; others not, until promiscuous. */
static void test_mac_rules(void **state)
{
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t mcast[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };
	static const uint8_t other[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
	struct dvp_ether_addr mac, newmac = { { 0x02, 0xaa, 0, 0, 0, 1 } };
	uint8_t frame[128];
	struct dvp_mbuf *m[8];
	struct mf f;

	(void)state;
	mf_open(&f, "ports=1,mode=step", 512);
	mf_port_start(&f, 0, 2, 1, NULL, 64);
	assert_int_equal(dvp_macaddr_get(f.port[0], &mac), 0);
	sim_mlx5_frame_build(frame, 100, 0, 0, mac.addr_bytes);
	assert_int_equal(sim_mlx5_inject(f.sim, 0, frame, 100), SIM_MLX5_RX_DELIVERED);
	sim_mlx5_frame_build(frame, 100, 0, 1, bcast);
	assert_int_equal(sim_mlx5_inject(f.sim, 0, frame, 100), SIM_MLX5_RX_DELIVERED);
	sim_mlx5_frame_build(frame, 100, 0, 2, mcast);
	assert_int_equal(sim_mlx5_inject(f.sim, 0, frame, 100), SIM_MLX5_RX_DELIVERED);
	sim_mlx5_frame_build(frame, 100, 0, 3, other);
	assert_int_equal(sim_mlx5_inject(f.sim, 0, frame, 100), SIM_MLX5_RX_NO_FLOW);
	/* Without RSS fields every frame lands on queue 0. */
	assert_int_equal(dvp_rx_burst(f.port[0], 1, m, 8), 0);
	assert_int_equal(dvp_rx_burst(f.port[0], 0, m, 8), 3);
	dvp_pktmbuf_free_bulk(m, 3);
	/* A new MAC: the rule follows it. */
	assert_int_equal(dvp_macaddr_set(f.port[0], &newmac), 0);
	sim_mlx5_frame_build(frame, 100, 0, 4, mac.addr_bytes);
	assert_int_equal(sim_mlx5_inject(f.sim, 0, frame, 100), SIM_MLX5_RX_NO_FLOW);
	sim_mlx5_frame_build(frame, 100, 0, 5, newmac.addr_bytes);
	assert_int_equal(sim_mlx5_inject(f.sim, 0, frame, 100), SIM_MLX5_RX_DELIVERED);
	assert_int_equal(dvp_promiscuous_enable(f.port[0]), 0);
	sim_mlx5_frame_build(frame, 100, 0, 6, other);
	assert_int_equal(sim_mlx5_inject(f.sim, 0, frame, 100), SIM_MLX5_RX_DELIVERED);
	assert_int_equal(dvp_rx_burst(f.port[0], 0, m, 8), 2);
	dvp_pktmbuf_free_bulk(m, 2);
	mf_close(&f);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rss_spreads),
		cmocka_unit_test(test_rss_user_key_and_fields),
		cmocka_unit_test(test_rss_refused),
		cmocka_unit_test(test_mac_rules),
	};

	mf_args(argc, argv);
	return cmocka_run_group_tests(tests, mf_eal_init, mf_eal_cleanup);
}
