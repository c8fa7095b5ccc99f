/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * sim_mlx5's RSS: the Toeplitz hash against the vectors of Microsoft's RSS
 * verification suite (IPv4 and IPv6, with and without TCP ports), the same
 * vectors end to end through a hashing QP (hash in the CQE, queue picked
 * by the indirection table), the spreading of many flows over 4 queues, and
 * a new table, key and fields taking over from the next frame.
 */

#include "dvp_test.h"

#include <arpa/inet.h>
#include <endian.h>

#include "mlx5_prm.h"
#include "sim_fixture.h"

static const uint8_t ms_key[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
	0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
	0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

struct vec {
	const char *dst, *src;
	uint16_t dport, sport;
	uint32_t ip_only, with_tcp;
};

static const struct vec v4[] = {
	{ "161.142.100.80", "66.9.149.187", 1766, 2794, 0x323e8fc2, 0x51ccc178 },
	{ "65.69.140.83", "199.92.111.2", 4739, 14230, 0xd718262a, 0xc626b0ea },
	{ "12.22.207.184", "24.19.198.95", 38024, 12898, 0xd2d0a5de, 0x5c2b394a },
	{ "209.142.163.6", "38.27.205.30", 2217, 48228, 0x82989176, 0xafc7327f },
	{ "202.188.127.2", "153.39.163.191", 1303, 44251, 0x5d1809c5, 0x10e828a2 },
};

static const struct vec v6[] = {
	{ "3ffe:2501:200:3::1", "3ffe:2501:200:1fff::7", 1766, 2794, 0x2cc18cd5, 0x40207d3d },
	{ "ff02::1", "3ffe:501:8::260:97ff:fe40:efab", 4739, 14230, 0x0f0c461c, 0xdde51bbf },
	{ "fe80::200:f8ff:fe21:67cf", "3ffe:1900:4545:3:200:f8ff:fe21:67cf", 38024, 44251,
	  0x4b61e985, 0x02d1feef },
};

/* Hash input in Microsoft's order: source, destination, source port, destination port. */
static size_t tuple(const struct vec *v, int af, bool ports, uint8_t *in)
{
	size_t alen = af == AF_INET ? 4 : 16;

	assert_int_equal(inet_pton(af, v->src, in), 1);
	assert_int_equal(inet_pton(af, v->dst, in + alen), 1);
	if (!ports)
		return 2 * alen;
	in[2 * alen] = (uint8_t)(v->sport >> 8);
	in[2 * alen + 1] = (uint8_t)v->sport;
	in[2 * alen + 2] = (uint8_t)(v->dport >> 8);
	in[2 * alen + 3] = (uint8_t)v->dport;
	return 2 * alen + 4;
}

static void test_toeplitz_vectors(void **state)
{
	uint8_t in[36];
	size_t n;

	(void)state;
	for (unsigned int i = 0; i < DVP_DIM(v4); i++) {
		n = tuple(&v4[i], AF_INET, false, in);
		assert_int_equal(sim_mlx5_toeplitz(ms_key, 40, in, n), v4[i].ip_only);
		n = tuple(&v4[i], AF_INET, true, in);
		assert_int_equal(sim_mlx5_toeplitz(ms_key, 40, in, n), v4[i].with_tcp);
	}
	for (unsigned int i = 0; i < DVP_DIM(v6); i++) {
		n = tuple(&v6[i], AF_INET6, false, in);
		assert_int_equal(sim_mlx5_toeplitz(ms_key, 40, in, n), v6[i].ip_only);
		n = tuple(&v6[i], AF_INET6, true, in);
		assert_int_equal(sim_mlx5_toeplitz(ms_key, 40, in, n), v6[i].with_tcp);
	}
}

struct fix {
	struct sim_fix x; /* first: sim_fix_new() allocates the whole */
	uint8_t frame[256];
};

static struct fix *fix_open(uint64_t fields, const uint8_t *key, uint32_t nwqe)
{
	const struct sim_fix_conf c = {
		.args = "mode=step",
		.nrxq = 4,
		.rx_wqe = nwqe,
		.rx_buf = 128,
		.rx_post = nwqe,
		.rss_fields = fields,
		.rss_key = key,
	};
	return sim_fix_new(sizeof(struct fix), &c);
}

static void fix_close(struct fix *f)
{
	sim_fix_free(&f->x, true);
}

/* A TCP frame of the vector's tuple (checksums do not matter to RSS). */
static uint32_t vec_frame(struct fix *f, const struct vec *v, int af)
{
	uint8_t *p = f->frame;
	uint32_t l3 = af == AF_INET ? 20 : 40, len = 14 + l3 + 20;

	memset(p, 0, sizeof(f->frame));
	memcpy(p, f->x.mac, 6);
	if (af == AF_INET) {
		p[12] = 0x08;
		p[14] = 0x45;
		p[17] = (uint8_t)(l3 + 20);
		p[23] = 6;
		assert_int_equal(inet_pton(af, v->src, p + 26), 1);
		assert_int_equal(inet_pton(af, v->dst, p + 30), 1);
	} else {
		p[12] = 0x86;
		p[13] = 0xdd;
		p[14] = 0x60;
		p[19] = 20;
		p[20] = 6;
		assert_int_equal(inet_pton(af, v->src, p + 22), 1);
		assert_int_equal(inet_pton(af, v->dst, p + 38), 1);
	}
	p[14 + l3] = (uint8_t)(v->sport >> 8);
	p[15 + l3] = (uint8_t)v->sport;
	p[16 + l3] = (uint8_t)(v->dport >> 8);
	p[17 + l3] = (uint8_t)v->dport;
	p[26 + l3] = 5 << 4;
	return len;
}

/* Receive @p len bytes; @return the queue it landed on and its CQE's hash. */
static int land(struct fix *f, uint32_t len, uint32_t *hash)
{
	assert_int_equal(sim_mlx5_inject(f->x.s.sim, 0, f->frame, len), SIM_MLX5_RX_DELIVERED);
	for (int i = 0; i < 4; i++) {
		struct mlx5_cqe64 *cqe = sc_cq_peek(&f->x.rx[i].cq);

		if (cqe == NULL)
			continue;
		*hash = mlx5_cqe_rx_hash(cqe);
		sc_cq_consume(&f->x.rx[i].cq, 1);
		sc_rxq_post(&f->x.s, &f->x.rx[i], 1);
		return i;
	}
	fail_msg("no CQE on any queue");
	return -1;
}

static void test_rss_end_to_end(void **state)
{
	const uint64_t tcp4 = IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4 |
			      IBV_RX_HASH_SRC_PORT_TCP | IBV_RX_HASH_DST_PORT_TCP;
	const uint64_t tcp6 = IBV_RX_HASH_SRC_IPV6 | IBV_RX_HASH_DST_IPV6 |
			      IBV_RX_HASH_SRC_PORT_TCP | IBV_RX_HASH_DST_PORT_TCP;
	struct fix *f = fix_open(tcp4, ms_key, 16);
	uint32_t hash;
	int q;

	(void)state;
	for (unsigned int i = 0; i < DVP_DIM(v4); i++) {
		q = land(f, vec_frame(f, &v4[i], AF_INET), &hash);
		assert_int_equal(hash, v4[i].with_tcp);
		assert_int_equal(q, (int)(v4[i].with_tcp & 3));
	}
	/* A hashing QP hashes one IP version (the kernel refuses both): one for IPv6. */
	fix_close(f);
	f = fix_open(tcp6, ms_key, 16);
	for (unsigned int i = 0; i < DVP_DIM(v6); i++) {
		q = land(f, vec_frame(f, &v6[i], AF_INET6), &hash);
		assert_int_equal(hash, v6[i].with_tcp);
		assert_int_equal(q, (int)(v6[i].with_tcp & 3));
	}
	/* Not IP: no field to hash, queue 0. */
	memset(f->frame + 12, 0, 2);
	f->frame[12] = 0x08;
	f->frame[13] = 0x06;
	assert_int_equal(land(f, 60, &hash), 0);
	assert_int_equal(hash, 0);
	fix_close(f);
}

static void test_rss_addresses_only(void **state)
{
	struct fix *f = fix_open(IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4, ms_key, 16);
	uint32_t hash;

	(void)state;
	for (unsigned int i = 0; i < DVP_DIM(v4); i++) {
		assert_int_equal(land(f, vec_frame(f, &v4[i], AF_INET), &hash),
				 (int)(v4[i].ip_only & 3));
		assert_int_equal(hash, v4[i].ip_only);
	}
	fix_close(f);
}

static void test_rss_spreading(void **state)
{
	const uint64_t udp4 = IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4 |
			      IBV_RX_HASH_SRC_PORT_UDP | IBV_RX_HASH_DST_PORT_UDP;
	const unsigned int flows = 4096;
	struct fix *f = fix_open(udp4, ms_key, 2048);
	unsigned int count[4] = { 0 };
	uint32_t hash;

	(void)state;
	for (unsigned int k = 0; k < flows; k++) {
		assert_int_equal(sim_mlx5_frame_build(f->frame, 60, k, 0, f->x.mac), 60);
		count[land(f, 60, &hash)]++;
	}
	for (int i = 0; i < 4; i++) {
		print_message("queue %d: %u of %u flows\n", i, count[i], flows);
		assert_in_range(count[i], flows / 4 - flows / 20, flows / 4 + flows / 20);
	}
	fix_close(f);
}

/*
 * A second table, hashing QP and rule made beside the first, as a driver
 * changing RSS on a live port does: the older rule of the same priority
 * keeps the frames while it lives, and the very next frame after it is
 * destroyed is hashed by the new QP's key and fields and spread by the new
 * table (here the queues in reverse).
 */
static void test_rss_new_rules_from_the_next_frame(void **state)
{
	const uint64_t tcp4 = IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4 |
			      IBV_RX_HASH_SRC_PORT_TCP | IBV_RX_HASH_DST_PORT_TCP;
	struct fix *f = fix_open(tcp4, ms_key, 16);
	struct sc_rxq *rev[4] = { &f->x.rx[3], &f->x.rx[2], &f->x.rx[1], &f->x.rx[0] };
	struct sc_rss next, old;
	uint8_t key[40], in[36];
	uint32_t hash, want;
	size_t n;

	(void)state;
	for (int i = 0; i < 40; i++)
		key[i] = (uint8_t)(i * 29 + 7);
	sc_rss_init(&f->x.s, &next, rev, 4, IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4, key, 1,
		    f->x.mac, 0);
	for (unsigned int i = 0; i < DVP_DIM(v4); i++) {
		assert_int_equal(land(f, vec_frame(f, &v4[i], AF_INET), &hash),
				 (int)(v4[i].with_tcp & 3));
		assert_int_equal(hash, v4[i].with_tcp);
	}
	old = f->x.rss;
	f->x.rss = next;
	sc_rss_fini(&f->x.s, &old);
	for (unsigned int i = 0; i < DVP_DIM(v4); i++) {
		n = tuple(&v4[i], AF_INET, false, in);
		want = sim_mlx5_toeplitz(key, sizeof(key), in, n);
		assert_int_equal(land(f, vec_frame(f, &v4[i], AF_INET), &hash),
				 (int)(3 - (want & 3)));
		assert_int_equal(hash, want);
	}
	fix_close(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_toeplitz_vectors),
		cmocka_unit_test(test_rss_end_to_end),
		cmocka_unit_test(test_rss_addresses_only),
		cmocka_unit_test(test_rss_spreading),
		cmocka_unit_test(test_rss_new_rules_from_the_next_frame),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
