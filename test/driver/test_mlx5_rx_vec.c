/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The vector rx burst against the scalar one: two sim_mlx5 devices, one
 * port each, the first with rx_vec_en=0 and the second with the vector
 * burst, get the same frames and the same burst sizes; every call must
 * return as many mbufs on both, and each pair must agree on what the PMD
 * writes (lengths, ol_flags, packet_type, hash.rss when the port hashes,
 * data_off, refcnt, nb_segs, the port) and on the data. Frames of several
 * kinds (UDP, TCP, not IP, fragments, bad IP and L4 checksums) in runs and
 * mixed; bursts of every size around the step of eight; rings of 64 so
 * that bursts wrap the CQ and the ring; a pool run dry; an error CQE
 * after good ones.
 */

#include "mlx5_fixture.h"

#include <dvp_port_driver.h>

#include "mlx5_rx.h"
#include "mlx5_rx_vec.h"

#define RING 64

struct pair {
	struct mf f[2]; /* [0] scalar, [1] vector */
	uint64_t seq;
};

/* Frame @p seq of kind @p kind (0..6) and @p len bytes, to @p mac. */
static uint32_t frame_make(uint8_t *buf, uint64_t seq, unsigned int kind, uint32_t len,
			   const uint8_t *mac)
{
	assert_int_equal(sim_mlx5_frame_build(buf, len, (uint32_t)(seq % 7), seq, mac), (int)len);
	switch (kind) {
	case 1: /* IPv4 header checksum wrong */
		buf[24] ^= 0xff;
		break;
	case 2: /* UDP checksum wrong */
		buf[40] ^= 0x5a;
		break;
	case 3: /* not IP */
		buf[12] = 0x88;
		buf[13] = 0xb5;
		break;
	case 4: /* TCP (its IP checksum no longer matches either) */
		buf[23] = 6;
		break;
	case 5: /* a fragment: more fragments, DF off */
		buf[20] = 0x20;
		break;
	default:
		break;
	}
	return len;
}

static bool vec_supported(void)
{
#ifdef MLX5_RX_VEC_SSE
	return __builtin_cpu_supports("sse4.2");
#else
	return false;
#endif
}

static void pair_open(struct pair *p, unsigned int pool_n, bool hash)
{
	struct dvp_port_conf conf;

	memset(p, 0, sizeof(*p));
	memset(&conf, 0, sizeof(conf));
	conf.rxmode.offloads = DVP_RX_OFFLOAD_CHECKSUM | (hash ? DVP_RX_OFFLOAD_RSS_HASH : 0);
	for (int i = 0; i < 2; i++) {
		struct dvp_port *port;

		mf_open(&p->f[i], "ports=1,mode=step,cable=traffic,gen=off", pool_n);
		port = dvp_port_get(p->f[i].port[0]);
		mlx5_priv(port)->dev->cfg.rx_vec_en = i == 1;
		mf_port_start(&p->f[i], 0, 1, 1, &conf, RING);
		if (i == 0 && mlx5_priv(port)->dev->cqe_comp != 0)
			assert_ptr_equal(port->rx_pkt_burst,
					 hash ? mlx5_rx_burst_comp_hash : mlx5_rx_burst_comp);
		else if (i == 0)
			assert_ptr_equal(port->rx_pkt_burst,
					 hash ? mlx5_rx_burst_hash : mlx5_rx_burst);
#ifdef MLX5_RX_VEC_SSE
		else
			assert_ptr_equal(port->rx_pkt_burst,
					 hash ? mlx5_rx_burst_vec_hash : mlx5_rx_burst_vec);
#endif
	}
}

static void pair_close(struct pair *p)
{
	mf_close(&p->f[0]);
	mf_close(&p->f[1]);
}

/* Inject @p n frames into both; @return how many of them each device took. */
static unsigned int inject(struct pair *p, unsigned int n, unsigned int mix)
{
	unsigned int took = 0;
	uint8_t buf[1600];

	for (unsigned int i = 0; i < n; i++, p->seq++) {
		/* Runs of one kind (a whole step of eight alike), or every frame its own. */
		unsigned int kind =
			mix ? (unsigned int)(p->seq * 5 % 7) : (unsigned int)(p->seq / 11 % 7);
		uint32_t len = 60 + (uint32_t)(p->seq * 37 % 1400);
		int r[2];

		for (int d = 0; d < 2; d++) {
			struct dvp_ether_addr mac;

			assert_int_equal(dvp_macaddr_get(p->f[d].port[0], &mac), 0);
			frame_make(buf, p->seq, kind, len, mac.addr_bytes);
			r[d] = sim_mlx5_inject(p->f[d].sim, 0, buf, len);
		}
		assert_int_equal(r[0], r[1]);
		took += r[0] == SIM_MLX5_RX_DELIVERED;
	}
	return took;
}

static void same_mbuf(const struct pair *p, const struct dvp_mbuf *a, const struct dvp_mbuf *b,
		      bool hash)
{
	assert_int_equal(a->pkt_len, b->pkt_len);
	assert_int_equal(a->data_len, b->data_len);
	assert_int_equal(a->ol_flags, b->ol_flags);
	assert_int_equal(a->packet_type, b->packet_type);
	if (hash) {
		assert_true(a->ol_flags & DVP_MBUF_F_RX_RSS_HASH);
		assert_int_equal(a->hash.rss, b->hash.rss);
	}
	assert_int_equal(a->data_off, b->data_off);
	assert_int_equal(a->refcnt, 1);
	assert_int_equal(b->refcnt, 1);
	assert_int_equal(a->nb_segs, 1);
	assert_int_equal(b->nb_segs, 1);
	assert_null(a->next);
	assert_null(b->next);
	assert_int_equal(a->port, p->f[0].port[0]);
	assert_int_equal(b->port, p->f[1].port[0]);
	/* The frames differ only in their destination: each device's own MAC. */
	assert_memory_equal(dvp_pktmbuf_mtod(a, const uint8_t *) + 6,
			    dvp_pktmbuf_mtod(b, const uint8_t *) + 6, a->data_len - 6u);
}

/*
 * One burst of @p n on both, compared; the mbufs go to @p keep (when not
 * NULL, room for @p n more at *@p kept) or back to their pools.
 * @return the mbufs each got.
 */
static uint16_t burst(struct pair *p, uint16_t n, bool hash, struct dvp_mbuf **keep,
		      unsigned int *kept)
{
	struct dvp_mbuf *a[128], *b[128];
	uint16_t na = dvp_rx_burst(p->f[0].port[0], 0, a, n);
	uint16_t nb = dvp_rx_burst(p->f[1].port[0], 0, b, n);

	assert_int_equal(na, nb);
	for (uint16_t i = 0; i < na; i++)
		same_mbuf(p, a[i], b[i], hash);
	if (keep != NULL) {
		memcpy(keep + *kept, a, na * sizeof(*a));
		memcpy(keep + *kept + na, b, na * sizeof(*b));
		*kept += 2u * na;
	} else {
		dvp_pktmbuf_free_bulk(a, na);
		dvp_pktmbuf_free_bulk(b, na);
	}
	return na;
}

/* The counters both ports must agree on. */
static void same_counters(struct pair *p)
{
	struct dvp_port_stats s[2];

	for (int d = 0; d < 2; d++)
		assert_int_equal(dvp_stats_get(p->f[d].port[0], &s[d]), 0);
	assert_int_equal(s[0].ipackets, s[1].ipackets);
	assert_int_equal(s[0].ibytes, s[1].ibytes);
	assert_int_equal(s[0].ierrors, s[1].ierrors);
	assert_int_equal(s[0].rx_nombuf, s[1].rx_nombuf);
}

static const uint16_t sizes[] = {
	1, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 23, 31, 32, 33, 40, 64, 100
};

static void same_traffic(bool hash)
{
	struct pair p;
	uint64_t total = 0, got = 0;
	unsigned int s = 0;

	if (!vec_supported())
		skip();
	pair_open(&p, 1024, hash);
	for (unsigned int round = 0; round < 120; round++) {
		/* Up to the whole ring at once, so that bursts cross its end. */
		total += inject(&p, 1 + round * 7 % RING, round % 3 == 2);
		for (uint16_t n;
		     (n = burst(&p, sizes[s++ % DVP_DIM(sizes)], hash, NULL, NULL)) > 0;)
			got += n;
	}
	assert_int_equal(got, total);
	assert_true(total > 20u * RING);
	same_counters(&p);
	pair_close(&p);
}

static void test_same_mbufs(void **state)
{
	(void)state;
	same_traffic(false);
}

static void test_same_mbufs_hash(void **state)
{
	(void)state;
	same_traffic(true);
}

/*
 * The pool runs dry while the mbufs received are held: both ports stop
 * posting buffers at the same point and count the same rx_nombuf; once
 * the mbufs are back, both go on alike.
 */
static void test_pool_empty(void **state)
{
	struct dvp_mbuf *held[2048];
	unsigned int kept = 0, s = 0;
	struct pair p;

	(void)state;
	if (!vec_supported())
		skip();
	/* The ring's 64, and 96 more: a few refills of the ring, then none. */
	pair_open(&p, RING + 96, false);
	for (unsigned int round = 0; round < 12; round++) {
		inject(&p, RING, false);
		while (burst(&p, sizes[s++ % DVP_DIM(sizes)], false, held, &kept) > 0)
			;
	}
	same_counters(&p);
	{
		struct dvp_port_stats st;

		assert_int_equal(dvp_stats_get(p.f[1].port[0], &st), 0);
		assert_true(st.rx_nombuf > 0);
	}
	dvp_pktmbuf_free_bulk(held, kept);
	for (unsigned int round = 0; round < 12; round++) {
		inject(&p, RING, round & 1);
		while (burst(&p, sizes[s++ % DVP_DIM(sizes)], false, NULL, NULL) > 0)
			;
	}
	same_counters(&p);
	pair_close(&p);
}

/*
 * An error CQE after 19 good ones (inside the third step of eight): both
 * return the 19, recover the queue the same way, count one CQE error, and
 * go on receiving alike.
 */
static void test_error_cqe(void **state)
{
	struct dvp_port_stats st;
	unsigned int s = 0;
	struct pair p;

	(void)state;
	if (!vec_supported())
		skip();
	pair_open(&p, 1024, false);
	for (int round = 0; round < 3; round++) {
		assert_int_equal(inject(&p, 19, false), 19);
		for (int d = 0; d < 2; d++) {
			struct mlx5_rxq *rxq = dvp_port_get(p.f[d].port[0])->rxqs[0];

			assert_int_equal(sim_mlx5_fault_bad_lkey(p.f[d].sim, rxq->wq->wq_num, 1),
					 0);
		}
		/* The bad one; the next ones find the WQ in error until it is recovered. */
		assert_int_equal(inject(&p, 5, false), 0);
		assert_int_equal(burst(&p, 32, false, NULL, NULL), 19);
		assert_int_equal(burst(&p, 32, false, NULL, NULL), 0);
		/* Recovered: traffic flows again. */
		assert_int_equal(inject(&p, 40, round == 1), 40);
		while (burst(&p, sizes[s++ % DVP_DIM(sizes)], false, NULL, NULL) > 0)
			;
	}
	same_counters(&p);
	assert_int_equal(dvp_stats_get(p.f[1].port[0], &st), 0);
	assert_int_equal(st.ipackets, 3 * (19 + 40));
	assert_int_equal(st.ierrors, 3);
	pair_close(&p);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_mbufs),
		cmocka_unit_test(test_same_mbufs_hash),
		cmocka_unit_test(test_pool_empty),
		cmocka_unit_test(test_error_cqe),
	};

	mf_args(argc, argv);
	return cmocka_run_group_tests(tests, mf_eal_init, mf_eal_cleanup);
}
