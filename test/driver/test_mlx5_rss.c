/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The mlx5 PMD's RSS at run time (mlx5_rss.c) on sim_mlx5: the indirection
 * table, the hash fields and the key changed on a started port while the
 * source sends. With the device stepped, every frame steered after a change
 * lands on the queue the new table names for its Toeplitz hash under the
 * new key and fields, and every frame before on the old one's; with the
 * device thread running, no frame meets no rule during the changes, none
 * is lost, and every frame the source made after a change follows it. The
 * queues keep their buffers through a change; RSS turned on and off while
 * running; a change on a stopped port taken at start; configure resets the
 * table; arguments out of the device's info refused; IPv6 TCP, UDP and
 * other frames hashed by their classes' fields.
 */

#include "mlx5_fixture.h"
#include "mlx5_steer_probe.h"

#include <time.h>

#include <dvp_byteorder.h>

#define NQ 4
#define RETA 512u
#define FLOWS 64u

static const uint8_t ms_key[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3,
	0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3,
	0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

/* What the port hashes with, as the test set it: the model each frame is checked against. */
struct model {
	uint8_t key[40];
	uint64_t hf;
	uint16_t reta[RETA];
};

/* The Toeplitz hash of source frame @p p under @p m (a UDP/IPv4 frame of the source). */
static uint32_t model_hash(const struct model *m, const uint8_t *p)
{
	bool l3 = m->hf & (DVP_RSS_IPV4 | DVP_RSS_NONFRAG_IPV4_UDP);
	bool l4 = m->hf & DVP_RSS_NONFRAG_IPV4_UDP;
	uint8_t in[12];
	size_t n = 0;

	if (l3 && !(m->hf & DVP_RSS_L3_DST_ONLY))
		memcpy(in + n, p + 26, 4), n += 4;
	if (l3 && !(m->hf & DVP_RSS_L3_SRC_ONLY))
		memcpy(in + n, p + 30, 4), n += 4;
	if (l4)
		memcpy(in + n, p + 34, 4), n += 4;
	return n == 0 ? 0 : sim_mlx5_toeplitz(m->key, sizeof(m->key), in, n);
}

static uint16_t model_queue(const struct model *m, const uint8_t *p)
{
	return m->reta[model_hash(m, p) % RETA];
}

static void model_init(struct model *m, const uint8_t *key, uint64_t hf)
{
	memcpy(m->key, key != NULL ? key : ms_key, sizeof(m->key));
	m->hf = hf;
	for (unsigned int i = 0; i < RETA; i++)
		m->reta[i] = (uint16_t)(i % NQ);
}

/* The whole table of @p m written to the port, every entry's mask bit set. */
static void reta_write(uint16_t port, const struct model *m)
{
	struct dvp_rss_reta_entry64 reta[RETA / 64];

	for (unsigned int i = 0; i < RETA; i++) {
		reta[i / 64].mask = UINT64_MAX;
		reta[i / 64].reta[i % 64] = m->reta[i];
	}
	assert_int_equal(dvp_port_rss_reta_update(port, reta, RETA), 0);
}

/* The port's table equals @p m's. */
static void reta_check(uint16_t port, const struct model *m)
{
	struct dvp_rss_reta_entry64 reta[RETA / 64];

	memset(reta, 0, sizeof(reta));
	for (unsigned int g = 0; g < RETA / 64; g++)
		reta[g].mask = UINT64_MAX;
	assert_int_equal(dvp_port_rss_reta_query(port, reta, RETA), 0);
	for (unsigned int i = 0; i < RETA; i++)
		assert_int_equal(reta[i / 64].reta[i % 64], m->reta[i]);
}

static void hash_update(uint16_t port, uint8_t *key, uint64_t hf)
{
	struct dvp_port_rss_conf conf = { .rss_key = key,
					  .rss_key_len = key ? 40 : 0,
					  .rss_hf = hf };

	assert_int_equal(dvp_port_rss_hash_update(port, &conf), 0);
}

/* Port 0 with NQ queues hashing on @p hf, and a source of @p count frames of FLOWS flows (0: none). */
static void rss_open(struct mf *f, const char *mode, uint64_t hf, uint64_t count)
{
	static const uint16_t sizes[] = { 64 };
	struct dvp_port_conf conf;
	char args[128];

	snprintf(args, sizeof(args), "ports=1,%s,cable=traffic,gen=off", mode);
	mf_open(f, args, 4096);
	memset(&conf, 0, sizeof(conf));
	conf.rss_conf.rss_hf = hf;
	mf_port_start(f, 0, NQ, 1, &conf, 256);
	if (count != 0)
		mf_source(f, 0, count, FLOWS, sizes, 1);
}

/*
 * Step the device and take every frame it delivers until @p want more came
 * (or it stops giving any): each one on the queue @p m names, with the hash
 * @p m gives in the mbuf. @return the frames taken.
 */
static uint64_t take_exact(struct mf *f, const struct model *m, uint64_t want, uint64_t *per_q)
{
	struct dvp_mbuf *pkts[32];
	uint64_t got = 0;
	int idle = 0;

	while (got < want && idle < 1000) {
		uint64_t before = got;

		sim_mlx5_step(f->sim);
		for (uint16_t q = 0; q < NQ; q++) {
			uint16_t n;

			/* Drained: whatever comes next was steered after this point. */
			while ((n = dvp_rx_burst(f->port[0], q, pkts, 32)) > 0) {
				for (uint16_t k = 0; k < n; k++) {
					const uint8_t *p =
						dvp_pktmbuf_mtod(pkts[k], const uint8_t *);

					assert_true(pkts[k]->ol_flags & DVP_MBUF_F_RX_RSS_HASH);
					assert_int_equal(pkts[k]->hash.rss, model_hash(m, p));
					assert_int_equal(q, model_queue(m, p));
				}
				if (per_q != NULL)
					per_q[q] += n;
				got += n;
				dvp_pktmbuf_free_bulk(pkts, n);
			}
		}
		idle = got == before ? idle + 1 : 0;
	}
	return got;
}

static void assert_no_loss(struct mf *f, uint64_t sent)
{
	struct sim_mlx5_port_stats ps;
	struct sim_mlx5_source_stats ss;

	assert_int_equal(sim_mlx5_source_stats(f->sim, 0, &ss), 0);
	assert_int_equal(ss.sent, sent);
	assert_int_equal(sim_mlx5_port_stats(f->sim, 0, &ps), 0);
	assert_int_equal(ps.rx_frames, sent);
	assert_int_equal(ps.rx_no_flow, 0);
	assert_int_equal(ps.rx_dropped, 0);
	assert_int_equal(ps.rx_out_of_buffer, 0);
}

/* A new table, whole and then in part, on a started port in the middle of the traffic. */
static void test_reta_update_started(void **state)
{
	const uint64_t hf = DVP_RSS_IPV4 | DVP_RSS_NONFRAG_IPV4_UDP;
	uint64_t per_q[NQ] = { 0 };
	struct dvp_rss_reta_entry64 part[RETA / 64];
	struct model m;
	struct mf f;
	int held;

	(void)state;
	rss_open(&f, "mode=step", hf, 3000);
	model_init(&m, NULL, hf);
	reta_check(f.port[0], &m);
	assert_true(take_exact(&f, &m, 1000, NULL) >= 1000);
	/* Everything to queues 3 and 2: queues 0 and 1 get nothing from here on. */
	for (unsigned int i = 0; i < RETA; i++)
		m.reta[i] = (uint16_t)(3 - i % 2);
	held = dvp_port_mbufs_held(f.port[0]);
	reta_write(f.port[0], &m);
	assert_int_equal(dvp_port_mbufs_held(f.port[0]), held);
	reta_check(f.port[0], &m);
	assert_true(take_exact(&f, &m, 1000, per_q) >= 1000);
	assert_int_equal(per_q[0] + per_q[1], 0);
	assert_true(per_q[2] > 0 && per_q[3] > 0);
	/* A part: entries 0..63 to queue 0, the rest stays. */
	memset(part, 0, sizeof(part));
	part[0].mask = UINT64_MAX;
	for (unsigned int i = 0; i < 64; i++)
		part[0].reta[i] = m.reta[i] = 0;
	assert_int_equal(dvp_port_rss_reta_update(f.port[0], part, RETA), 0);
	reta_check(f.port[0], &m);
	take_exact(&f, &m, UINT64_MAX, NULL);
	assert_no_loss(&f, 3000);
	mf_close(&f);
}

/* Key and fields on a started port: hashes and queues follow the new ones from the next frame. */
static void test_hash_update_started(void **state)
{
	uint8_t key[40], got_key[40];
	struct dvp_port_rss_conf conf;
	struct model m;
	struct mf f;

	(void)state;
	for (int i = 0; i < 40; i++)
		key[i] = (uint8_t)(i * 37 + 11);
	rss_open(&f, "mode=step", DVP_RSS_IPV4 | DVP_RSS_NONFRAG_IPV4_UDP, 4000);
	model_init(&m, NULL, DVP_RSS_IPV4 | DVP_RSS_NONFRAG_IPV4_UDP);
	assert_true(take_exact(&f, &m, 800, NULL) >= 800);
	/* A new key, addresses only. */
	hash_update(f.port[0], key, DVP_RSS_IPV4);
	memcpy(m.key, key, sizeof(key));
	m.hf = DVP_RSS_IPV4;
	assert_true(take_exact(&f, &m, 800, NULL) >= 800);
	memset(&conf, 0, sizeof(conf));
	conf.rss_key = got_key;
	conf.rss_key_len = sizeof(got_key);
	assert_int_equal(dvp_port_rss_hash_conf_get(f.port[0], &conf), 0);
	assert_memory_equal(got_key, key, sizeof(key));
	assert_int_equal(conf.rss_hf, DVP_RSS_IPV4);
	assert_int_equal(conf.rss_key_len, 40);
	/* The source address alone, the key kept. */
	hash_update(f.port[0], NULL, DVP_RSS_IPV4 | DVP_RSS_L3_SRC_ONLY);
	m.hf = DVP_RSS_IPV4 | DVP_RSS_L3_SRC_ONLY;
	assert_true(take_exact(&f, &m, 800, NULL) >= 800);
	/* Nothing hashed: every frame to entry 0's queue, hash 0. */
	hash_update(f.port[0], NULL, 0);
	m.hf = 0;
	assert_true(take_exact(&f, &m, 800, NULL) >= 800);
	/* And on again, with ports. */
	hash_update(f.port[0], NULL, DVP_RSS_IPV4 | DVP_RSS_NONFRAG_IPV4_UDP);
	m.hf = DVP_RSS_IPV4 | DVP_RSS_NONFRAG_IPV4_UDP;
	take_exact(&f, &m, UINT64_MAX, NULL);
	assert_no_loss(&f, 4000);
	mf_close(&f);
}

/* Configured without fields, RSS turned on while running: the hash is in the mbufs too. */
static void test_rss_turned_on(void **state)
{
	uint64_t per_q[NQ] = { 0 };
	struct model m;
	struct mf f;

	(void)state;
	rss_open(&f, "mode=step", 0, 2000);
	model_init(&m, NULL, 0);
	assert_true(take_exact(&f, &m, 500, per_q) >= 500);
	assert_int_equal(per_q[1] + per_q[2] + per_q[3], 0);
	hash_update(f.port[0], NULL, DVP_RSS_IPV4 | DVP_RSS_NONFRAG_IPV4_UDP);
	m.hf = DVP_RSS_IPV4 | DVP_RSS_NONFRAG_IPV4_UDP;
	memset(per_q, 0, sizeof(per_q));
	take_exact(&f, &m, UINT64_MAX, per_q);
	for (int q = 0; q < NQ; q++)
		assert_true(per_q[q] > 0);
	assert_no_loss(&f, 2000);
	mf_close(&f);
}

/* On a stopped port the change waits for the start; configure sets the queues in turn again. */
static void test_stopped_and_configure(void **state)
{
	const uint64_t hf = DVP_RSS_IPV4 | DVP_RSS_NONFRAG_IPV4_UDP;
	struct model m;
	struct mf f;

	(void)state;
	rss_open(&f, "mode=step", hf, 1000);
	assert_int_equal(dvp_port_stop(f.port[0]), 0);
	model_init(&m, NULL, hf);
	for (unsigned int i = 0; i < RETA; i++)
		m.reta[i] = (uint16_t)((i * 7 + 1) % NQ);
	reta_write(f.port[0], &m);
	hash_update(f.port[0], NULL, DVP_RSS_IPV4);
	m.hf = DVP_RSS_IPV4;
	reta_check(f.port[0], &m);
	assert_int_equal(dvp_port_start(f.port[0]), 0);
	take_exact(&f, &m, UINT64_MAX, NULL);
	assert_no_loss(&f, 1000);
	assert_int_equal(dvp_port_stop(f.port[0]), 0);
	mf_port_start(&f, 0, NQ, 1, NULL, 256);
	model_init(&m, NULL, 0);
	reta_check(f.port[0], &m);
	mf_close(&f);
}

/* What the device's info does not allow is refused before the driver sees it. */
static void test_refused(void **state)
{
	struct dvp_rss_reta_entry64 reta[RETA / 64];
	struct dvp_port_rss_conf conf = { .rss_hf = DVP_RSS_L2_PAYLOAD };
	struct dvp_port_info info;
	struct mf f;

	(void)state;
	rss_open(&f, "mode=step", DVP_RSS_IPV4, 1);
	assert_int_equal(dvp_port_info_get(f.port[0], &info), 0);
	assert_int_equal(info.reta_size, RETA);
	assert_int_equal(info.hash_key_size, 40);
	assert_int_equal(dvp_port_rss_hash_update(f.port[0], &conf), -EINVAL);
	memset(reta, 0, sizeof(reta));
	reta[0].mask = 1;
	assert_int_equal(dvp_port_rss_reta_update(f.port[0], reta, 128), -EINVAL);
	reta[0].reta[0] = NQ;
	assert_int_equal(dvp_port_rss_reta_update(f.port[0], reta, RETA), -EINVAL);
	mf_close(&f);
}

/*
 * The hash of frame @p p (IPv4 or IPv6) under @p key and @p hf, as the
 * port's classes give it: the addresses of its IP version when @p hf has a
 * type of that version, and its ports when @p hf has its protocol's type
 * of that version (IPv6's _EX types as IPv6's); 0 when nothing is hashed.
 */
static uint32_t class_hash(const uint8_t *key, uint64_t hf, const uint8_t *p)
{
	const uint64_t tcp6 = DVP_RSS_NONFRAG_IPV6_TCP | DVP_RSS_IPV6_TCP_EX;
	const uint64_t udp6 = DVP_RSS_NONFRAG_IPV6_UDP | DVP_RSS_IPV6_UDP_EX;
	const uint64_t v4 = DVP_RSS_IPV4 | DVP_RSS_FRAG_IPV4 | DVP_RSS_NONFRAG_IPV4_OTHER |
			    DVP_RSS_NONFRAG_IPV4_TCP | DVP_RSS_NONFRAG_IPV4_UDP;
	const uint64_t v6 = DVP_RSS_IPV6 | DVP_RSS_FRAG_IPV6 | DVP_RSS_NONFRAG_IPV6_OTHER |
			    DVP_RSS_IPV6_EX | tcp6 | udp6;
	bool ip6 = p[12] == 0x86 && p[13] == 0xdd;
	uint8_t proto = ip6 ? p[20] : p[23];
	size_t l3 = ip6 ? 22 : 26, alen = ip6 ? 16 : 4, l4 = ip6 ? 54 : 34;
	uint64_t l4t = proto == 6  ? (ip6 ? tcp6 : DVP_RSS_NONFRAG_IPV4_TCP) :
		       proto == 17 ? (ip6 ? udp6 : DVP_RSS_NONFRAG_IPV4_UDP) :
				     0;
	uint8_t in[36];
	size_t n = 0;

	if (!(hf & (ip6 ? v6 : v4)))
		return 0;
	if (!(hf & DVP_RSS_L3_DST_ONLY))
		memcpy(in + n, p + l3, alen), n += alen;
	if (!(hf & DVP_RSS_L3_SRC_ONLY))
		memcpy(in + n, p + l3 + alen, alen), n += alen;
	if (hf & l4t) {
		if (!(hf & DVP_RSS_L4_DST_ONLY))
			memcpy(in + n, p + l4, 2), n += 2;
		if (!(hf & DVP_RSS_L4_SRC_ONLY))
			memcpy(in + n, p + l4 + 2, 2), n += 2;
	}
	return sim_mlx5_toeplitz(key, 40, in, n);
}

/*
 * IPv6 in the port's RSS: TCP and UDP over both IP versions asked for
 * together (DPDK's RTE_ETH_RSS_IP | TCP | UDP, _EX types included) are
 * taken at configure; then, under each set of types, every frame (IPv4
 * UDP and TCP, IPv6 UDP, TCP and ICMPv6) lands on the queue of the hash
 * class_hash() gives it, and carries that hash.
 */
static void test_ipv6_classes(void **state)
{
	static const uint64_t hfs[] = {
		DVP_RSS_IP | DVP_RSS_TCP | DVP_RSS_UDP,
		DVP_RSS_IPV6 | DVP_RSS_NONFRAG_IPV6_TCP | DVP_RSS_L3_SRC_ONLY | DVP_RSS_L4_DST_ONLY,
		DVP_RSS_IPV4 | DVP_RSS_IPV6_UDP_EX,
		DVP_RSS_NONFRAG_IPV6_UDP | DVP_RSS_L4_SRC_ONLY,
	};
	static const uint8_t protos[] = { 17, 6, 58 };
	unsigned int used, n;
	uint8_t frame[100], mac[6];
	struct dvp_mbuf *m[4];
	struct mf f;

	(void)state;
	rss_open(&f, "mode=step", hfs[0], 0);
	assert_int_equal(sim_mlx5_mac_get(f.sim, 0, mac), 0);
	for (unsigned int h = 0; h < DVP_DIM(hfs); h++) {
		if (h > 0)
			hash_update(f.port[0], NULL, hfs[h]);
		used = n = 0;
		for (uint32_t flow = 0; flow < 24; flow++) {
			for (unsigned int k = 0; k < 5; k++) {
				uint16_t got = 0, q;
				uint32_t want;

				if (k < 2) {
					assert_int_equal(
						sim_mlx5_frame_build(frame, 100, flow, 0, mac),
						100);
					frame[23] = protos[k];
				} else {
					mf_frame6(frame, 100, flow * 7919u, protos[k - 2], mac);
				}
				want = class_hash(ms_key, hfs[h], frame);
				assert_int_equal(sim_mlx5_inject(f.sim, 0, frame, 100),
						 SIM_MLX5_RX_DELIVERED);
				for (q = 0; q < NQ && got == 0; q++)
					got = dvp_rx_burst(f.port[0], q, m, 4);
				assert_int_equal(got, 1);
				assert_true(m[0]->ol_flags & DVP_MBUF_F_RX_RSS_HASH);
				assert_int_equal(m[0]->hash.rss, want);
				assert_int_equal(q - 1, (want % RETA) % NQ);
				used |= 1u << (q - 1);
				n++;
				dvp_pktmbuf_free_bulk(m, got);
			}
		}
		print_message("types 0x%llx: %u frames over queues 0x%x\n",
			      (unsigned long long)hfs[h], n, used);
		assert_int_equal(used, (1u << NQ) - 1);
	}
	mf_close(&f);
}

/* Seconds since @p t0 (a bound on a hung run, not a measure). */
static double seconds_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

#define CHANGES 4

/*
 * The device thread steering while the table and the key change: no frame
 * meets no rule and none is lost; a frame the source made after change k
 * returned lands where the rules of change k or a later one put it, and
 * one made after the last change where the last rules put it.
 */
static void test_changes_while_thread_runs(void **state)
{
	const uint64_t total = 40000, hf = DVP_RSS_IPV4 | DVP_RSS_NONFRAG_IPV4_UDP;
	struct model models[CHANGES + 1];
	uint64_t made_from[CHANGES + 1] = { 0 }, got = 0;
	struct dvp_mbuf *pkts[32];
	unsigned int changes = 0;
	struct timespec t0;
	uint8_t key[40];
	struct mf f;

	(void)state;
	memcpy(key, ms_key, sizeof(key));
	rss_open(&f, "mode=thread,idle_us=20", hf, total);
	model_init(&models[0], NULL, hf);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (got < total && seconds_since(&t0) < 100) {
		struct sim_mlx5_source_stats ss;
		struct model *next;

		for (uint16_t q = 0; q < NQ; q++) {
			uint16_t n = dvp_rx_burst(f.port[0], q, pkts, 32);

			for (uint16_t k = 0; k < n; k++) {
				const uint8_t *p = dvp_pktmbuf_mtod(pkts[k], const uint8_t *);
				uint64_t idx = dvp_be64_get(p + 50) * FLOWS + dvp_be32_get(p + 46);
				unsigned int from = changes;
				bool ok = false;

				while (made_from[from] > idx)
					from--;
				for (unsigned int j = from; j <= changes; j++)
					ok |= q == model_queue(&models[j], p);
				assert_true(ok);
			}
			got += n;
			dvp_pktmbuf_free_bulk(pkts, n);
		}
		if (changes == CHANGES || got < (changes + 1) * total / (CHANGES + 2))
			continue;
		next = &models[changes + 1];
		*next = models[changes];
		if (changes % 2 == 0) {
			for (unsigned int i = 0; i < RETA; i++)
				next->reta[i] = (uint16_t)((i + changes + 1) % NQ);
			reta_write(f.port[0], next);
		} else {
			key[0] ^= (uint8_t)(0x11 * changes);
			memcpy(next->key, key, sizeof(key));
			hash_update(f.port[0], key, hf);
		}
		/* Frames the source makes from here meet the new rules. */
		assert_int_equal(sim_mlx5_source_stats(f.sim, 0, &ss), 0);
		made_from[++changes] = ss.sent;
	}
	assert_int_equal(changes, CHANGES);
	assert_int_equal(got, total);
	assert_no_loss(&f, total);
	mf_close(&f);
}

/*
 * Around every steering call: a UDP/IPv4 frame, an IPv4 frame of another
 * protocol, a non-IP one and a UDP/IPv6 one, one for each kind of class of
 * rule.
 */
static void rss_probe_frames(struct steer_probe *sp)
{
	uint8_t frames[4][80];
	static const size_t lens[4] = { 64, 64, 64, 80 };

	assert_int_equal(sim_mlx5_frame_build(frames[0], 64, (uint32_t)(sp->seq % FLOWS),
					      sp->seq / FLOWS, sp->mac),
			 64);
	sp->seq++;
	memcpy(frames[1], frames[0], 64);
	frames[1][23] = 47; /* GRE */
	memcpy(frames[2], frames[0], 64);
	frames[2][12] = 0x08; /* ARP */
	frames[2][13] = 0x06;
	mf_frame6(frames[3], 80, (uint32_t)sp->seq, 17, sp->mac); /* IPv6/UDP */
	for (int i = 0; i < 4; i++)
		steer_probe_inject(sp, frames[i], lens[i]);
}

/*
 * Frames arriving at every step of the changes of table, fields (which
 * classes of rules exist) and key, of promiscuous mode too: every one
 * meets a rule and is received, none is handed to no queue.
 */
static void test_no_frame_without_rule(void **state)
{
	static const uint64_t hfs[] = { DVP_RSS_IPV4 | DVP_RSS_NONFRAG_IPV4_UDP,
					0,
					DVP_RSS_IPV4,
					DVP_RSS_IP | DVP_RSS_TCP | DVP_RSS_UDP,
					DVP_RSS_IPV6 | DVP_RSS_NONFRAG_IPV6_UDP,
					DVP_RSS_IPV4 | DVP_RSS_NONFRAG_IPV4_UDP };
	struct steer_probe probe;
	unsigned int got = 0;
	uint8_t key[40];
	struct model m;
	struct mf f;

	(void)state;
	memcpy(key, ms_key, sizeof(key));
	rss_open(&f, "mode=step", DVP_RSS_IPV4 | DVP_RSS_NONFRAG_IPV4_UDP, 0);
	model_init(&m, NULL, 0);
	steer_probe_install(&probe, &f, f.port[0], rss_probe_frames);
	for (unsigned int i = 0; i < DVP_DIM(hfs); i++) {
		key[i] ^= 0x5a;
		hash_update(f.port[0], key, hfs[i]);
		got += steer_probe_drain(f.port[0], NQ);
		for (unsigned int e = 0; e < RETA; e++)
			m.reta[e] = (uint16_t)((e + i + 1) % NQ);
		reta_write(f.port[0], &m);
		got += steer_probe_drain(f.port[0], NQ);
	}
	assert_int_equal(dvp_promiscuous_enable(f.port[0]), 0);
	got += steer_probe_drain(f.port[0], NQ);
	assert_int_equal(dvp_promiscuous_disable(f.port[0]), 0);
	got += steer_probe_drain(f.port[0], NQ);
	steer_probe_remove(&probe);
	steer_probe_check(&probe, got);
	mf_close(&f);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reta_update_started),
		cmocka_unit_test(test_hash_update_started),
		cmocka_unit_test(test_rss_turned_on),
		cmocka_unit_test(test_stopped_and_configure),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_ipv6_classes),
		cmocka_unit_test(test_changes_while_thread_runs),
		cmocka_unit_test(test_no_frame_without_rule),
	};

	mf_args(argc, argv);
	return cmocka_run_group_tests(tests, mf_eal_init, mf_eal_cleanup);
}
