/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The mlx5 PMD's rx with CQE compression (rxq_cqe_comp_en) on sim_mlx5:
 * frames received in compressed sessions give the same mbufs (length,
 * content, RSS hash, checksum flags, packet type) as the same frames
 * received one plain CQE each, in the hash and the checksum formats; and
 * the faults: a burst ending inside a session, a session wrapping the CQ
 * inside a mini-CQE array over many passes, a session split at every
 * offset of an array and taken on by the other rx path, an error CQE right after a
 * session, the pool empty in the middle of a session, a stop with a
 * session half taken, a device without compression. Every mbuf is checked
 * and every pool drains to zero in use.
 */

#include "mlx5_fixture.h"

#include <dvp_port_driver.h>

#include "mlx5_rx.h"
#include "mlx5_rx_vec.h"

#define MAXF 256

static unsigned int sim_index;

struct rc {
	struct mf f;
	struct dvp_mbuf *got[MAXF];
	uint8_t frames[MAXF][128];
	const void *fp[MAXF];
	size_t lens[MAXF];
	/* What the same frame gave as a plain CQE. */
	struct {
		uint64_t ol_flags;
		uint32_t ptype, hash;
	} ref[MAXF];
	uint32_t flow[4]; /* flows RSS steers to queue 0 */
};

static struct rc rcs;
static bool eal_up;

/* After a failed test: the EAL down, so the next test can bring its own up. */
static int teardown(void **state)
{
	(void)state;
	if (eal_up)
		dvp_eal_cleanup();
	eal_up = false;
	return 0;
}

/*
 * An EAL with one sim device (@p sim_args) whose port the PMD probes with
 * @p pmd_args; its rx queue of @p nb_desc takes the RSS hash and checksums.
 */
/* The program's argument "rx_vec_en=0" (meson's mlx5_rx_comp_scalar): every port's PMD args. */
static const char *pmd_extra = "";
/* Any other (meson's mlx5_rx_comp_<profile>: "profile=cx5"): every device's arguments. */
static const char *sim_extra = "";

/*
 * The port's rx burst: the vector one where it is picked (it takes
 * sessions itself), else the scalar one that takes
 * compressed CQEs when @p comp, the plain one otherwise.
 */
static void assert_burst(struct rc *r, bool comp)
{
	dvp_rx_burst_fn burst = dvp_port_get(r->f.port[0])->rx_pkt_burst;

#ifdef MLX5_RX_VEC_SSE
	if (strstr(pmd_extra, "rx_vec_en=0") == NULL && __builtin_cpu_supports("sse4.2")) {
		assert_ptr_equal(burst, mlx5_rx_burst_vec_hash);
		return;
	}
#endif
	assert_ptr_equal(burst, comp ? mlx5_rx_burst_comp_hash : mlx5_rx_burst_hash);
}

static struct rc *rc_open(const char *pmd_args, const char *sim_args, uint16_t nb_desc,
			  unsigned int pool_n)
{
	struct rc *r = &rcs;
	struct dvp_port_conf conf;
	char cpu[16], allow[128], vdev[128], name[32];

	memset(r, 0, sizeof(*r));
	snprintf(cpu, sizeof(cpu), "%d", dvp_test_first_cpu());
	snprintf(allow, sizeof(allow), "sim_mlx5_%u%s%s%s%s", sim_index, *pmd_args ? "," : "",
		 pmd_args, *pmd_extra ? "," : "", pmd_extra);
	snprintf(vdev, sizeof(vdev), "sim_mlx5,cable=traffic,gen=off%s%s%s%s%s",
		 strstr(sim_args, "mode=") == NULL ? ",mode=step" : "", *sim_args ? "," : "",
		 sim_args, *sim_extra ? "," : "", sim_extra);
	assert_true(dvp_test_eal_init("--no-huge", "-m", "128", "-l", cpu, "-a", allow, "--vdev",
				      vdev) > 0);
	eal_up = true;
	snprintf(name, sizeof(name), "sim_mlx5_%u", sim_index++);
	r->f.sim = sim_mlx5_find(name);
	assert_non_null(r->f.sim);
	r->f.nports = 1;
	assert_int_equal(dvp_port_get_by_name(name, &r->f.port[0]), 0);
	r->f.mp = dvp_pktmbuf_pool_create("rc_pool", pool_n, 0, 0, DVP_MBUF_DEFAULT_BUF_SIZE,
					  DVP_SOCKET_ANY);
	assert_non_null(r->f.mp);
	memset(&conf, 0, sizeof(conf));
	conf.rxmode.offloads = DVP_RX_OFFLOAD_RSS_HASH | DVP_RX_OFFLOAD_CHECKSUM;
	conf.rss_conf.rss_hf = DVP_RSS_IPV4 | DVP_RSS_NONFRAG_IPV4_UDP;
	/* Two queues, so the port hashes (one queue does not); the tests use queue 0. */
	mf_port_start(&r->f, 0, 2, 1, &conf, nb_desc);
	for (unsigned int i = 0; i < MAXF; i++)
		r->fp[i] = r->frames[i];
	for (uint32_t fl = 0, k = 0; k < 4; fl++) {
		struct dvp_ether_addr mac;
		struct dvp_mbuf *m;

		assert_int_equal(dvp_macaddr_get(r->f.port[0], &mac), 0);
		assert_int_equal(sim_mlx5_frame_build(r->frames[0], 64, fl, 0, mac.addr_bytes), 64);
		assert_int_equal(sim_mlx5_inject(r->f.sim, 0, r->frames[0], 64),
				 SIM_MLX5_RX_DELIVERED);
		if (dvp_rx_burst(r->f.port[0], 0, &m, 1) == 1)
			r->flow[k++] = fl;
		else
			assert_int_equal(dvp_rx_burst(r->f.port[0], 1, &m, 1), 1);
		dvp_pktmbuf_free(m);
	}
	return r;
}

static void rc_close(struct rc *r)
{
	assert_int_equal(dvp_port_close(r->f.port[0]), 0);
	assert_int_equal(sim_mlx5_invalid_total(r->f.sim), 0);
	assert_int_equal(dvp_pktmbuf_pool_in_use(r->f.mp), 0);
	dvp_mempool_free(r->f.mp);
	eal_up = false;
	assert_int_equal(dvp_eal_cleanup(), 0);
}

static struct mlx5_rxq *rxq_of(struct rc *r)
{
	return dvp_port_get(r->f.port[0])->rxqs[0];
}

static uint64_t xstat(struct rc *r, const char *name)
{
	uint64_t v = UINT64_MAX;

	assert_int_equal(dvp_xstats_get_by_name(r->f.port[0], name, &v), 0);
	return v;
}

/*
 * Frame @p i: @p len bytes of flow @p flow to the port's MAC, marked with i;
 * @p bad: with a bad IP header checksum.
 */
static void frame(struct rc *r, unsigned int i, uint32_t len, uint32_t flow, bool bad)
{
	struct dvp_ether_addr mac;

	assert_int_equal(dvp_macaddr_get(r->f.port[0], &mac), 0);
	assert_int_equal(sim_mlx5_frame_build(r->frames[i], len, r->flow[flow], i, mac.addr_bytes),
			 (int)len);
	if (bad)
		r->frames[i][22] ^= 1; /* TTL */
	r->lens[i] = len;
}

/* Check mbuf @p m against frame @p i and its plain-CQE reference, and free it. */
static void check_free(struct rc *r, struct dvp_mbuf *m, unsigned int i)
{
	assert_int_equal(m->pkt_len, r->lens[i]);
	assert_int_equal(m->data_len, r->lens[i]);
	assert_int_equal(m->nb_segs, 1);
	assert_memory_equal(dvp_pktmbuf_mtod(m, const uint8_t *), r->frames[i], r->lens[i]);
	assert_int_equal(m->ol_flags, r->ref[i].ol_flags);
	assert_int_equal(m->packet_type, r->ref[i].ptype);
	assert_int_equal(m->hash.rss, r->ref[i].hash);
	dvp_pktmbuf_free(m);
}

/* Receive frames [0, n) one plain CQE each: their reference mbuf fields. */
static void reference(struct rc *r, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		struct dvp_mbuf *m;

		assert_int_equal(sim_mlx5_inject(r->f.sim, 0, r->frames[i], r->lens[i]),
				 SIM_MLX5_RX_DELIVERED);
		assert_int_equal(dvp_rx_burst(r->f.port[0], 0, &m, 1), 1);
		assert_int_equal(m->pkt_len, r->lens[i]);
		assert_true(m->ol_flags & DVP_MBUF_F_RX_RSS_HASH);
		assert_int_not_equal(m->hash.rss, 0);
		r->ref[i].ol_flags = m->ol_flags;
		r->ref[i].ptype = m->packet_type;
		r->ref[i].hash = m->hash.rss;
		dvp_pktmbuf_free(m);
	}
}

/* Frames [0, n) in one engine pass; take them @p burst at a time, check each. */
static void burst_check(struct rc *r, unsigned int n, uint16_t burst)
{
	unsigned int got = 0;

	assert_int_equal(sim_mlx5_inject_burst(r->f.sim, 0, r->fp, r->lens, n, NULL), (int)n);
	while (got < n) {
		uint16_t k = dvp_rx_burst(r->f.port[0], 0, r->got, burst);

		assert_true(k > 0);
		assert_true(got + k <= n);
		for (uint16_t j = 0; j < k; j++)
			check_free(r, r->got[j], got + j);
		got += k;
	}
	assert_int_equal(dvp_rx_burst(r->f.port[0], 0, r->got, burst), 0);
}

static struct sim_mlx5_dev_stats dev_stats(struct rc *r)
{
	struct sim_mlx5_dev_stats ds;

	assert_int_equal(sim_mlx5_dev_stats(r->f.sim, &ds), 0);
	return ds;
}

/* Four flows in runs, some frames with a bad IP checksum: sessions of many lengths. */
static void mixed_frames(struct rc *r, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		frame(r, i, 60 + (i * 7) % 60, (i / 11) % 4, i % 17 == 5);
}

static void check_format(const char *pmd_args, bool hash_minis)
{
	struct rc *r = rc_open(pmd_args, "", 512, 2048);
	struct sim_mlx5_port_stats ps0, ps1;
	struct sim_mlx5_dev_stats ds;

	assert_burst(r, true);
	assert_int_equal(rxq_of(r)->comp_fmt, hash_minis ? 0 : 1);
	mixed_frames(r, 200);
	reference(r, 200);
	assert_int_equal(dev_stats(r).cqe_sessions, 0);
	assert_int_equal(sim_mlx5_port_stats(r->f.sim, 0, &ps0), 0);
	burst_check(r, 200, 32);
	assert_int_equal(sim_mlx5_port_stats(r->f.sim, 0, &ps1), 0);
	ds = dev_stats(r);
	/* Split by the bad frames, and by flow in the checksum format (its title's hash). */
	assert_int_equal(ds.cqe_sessions, hash_minis ? 13 : 27);
	/* Fewer CQE bytes than a CQE each. */
	assert_true(ps1.bus_cqe_bytes - ps0.bus_cqe_bytes < 200 * 64 / 2);
	assert_int_equal(xstat(r, "rx_q0_nombuf") + xstat(r, "rx_q0_cqe_errors"), 0);
	rc_close(r);
}

static void test_hash_format(void **state)
{
	(void)state;
	check_format("", true);
	check_format("rxq_cqe_comp_en=1", true);
	/* The enhanced layout is not there: the legacy one, same mbufs. */
	check_format("rxq_cqe_comp_en=0x80", true);
}

static void test_csum_format(void **state)
{
	(void)state;
	check_format("rxq_cqe_comp_en=3", false);
}

/* Sessions of 64 taken 1, 5, 32 at a time: every burst but some ends inside one. */
static void test_burst_ends_mid_session(void **state)
{
	static const uint16_t bursts[] = { 1, 5, 32 };
	struct rc *r = rc_open("", "", 512, 2048);

	(void)state;
	for (unsigned int i = 0; i < 192; i++)
		frame(r, i, 64 + i % 50, 1, false);
	reference(r, 192);
	for (unsigned int b = 0; b < 3; b++) {
		uint64_t s0 = dev_stats(r).cqe_sessions;

		burst_check(r, 192, bursts[b]);
		assert_int_equal(dev_stats(r).cqe_sessions - s0, 3);
	}
	assert_int_equal(rxq_of(r)->zip.n, 0);
	rc_close(r);
}

/*
 * A 64-WQE queue (a CQ of 128) whose CQ starts 5 below its end: the first
 * session wraps inside its second array; then sessions of every length
 * fall everywhere over some 40 passes. A stale array or hole slot taken
 * for a CQE would give a wrong mbuf.
 */
static void test_wrap_mid_array(void **state)
{
	struct rc *r = rc_open("", "cq_start=119", 64, 1024); /* 4 probe CQEs: at 123 */
	uint32_t ci0 = rxq_of(r)->cq_ci;

	(void)state;
	assert_int_equal(rxq_of(r)->cqe_cnt, 128);
	assert_int_equal(ci0, 123);
	for (unsigned int round = 0; round < 200; round++) {
		/* At most 45: the ring keeps 49 of its 64 WQEs posted. */
		unsigned int n = round == 0 ? 20 : 1 + (round * 29) % 45;

		mixed_frames(r, n);
		reference(r, n);
		burst_check(r, n, round % 2 ? 32 : 7);
	}
	assert_true(rxq_of(r)->cq_ci - ci0 > 128 * 40);
	rc_close(r);
}

/*
 * The rx burst of the other path than the port's on @p rxq: the scalar
 * compressed one beside the vector one and the other way round (where
 * there is no vector burst, the port's own).
 */
static uint16_t other_burst(struct rc *r, struct dvp_mbuf **pkts, uint16_t n)
{
#ifdef MLX5_RX_VEC_SSE
	if (__builtin_cpu_supports("sse4.2"))
		return dvp_port_get(r->f.port[0])->rx_pkt_burst == mlx5_rx_burst_vec_hash ?
			       mlx5_rx_burst_comp_hash(rxq_of(r), pkts, n) :
			       mlx5_rx_burst_vec_hash(rxq_of(r), pkts, n);
#endif
	return dvp_rx_burst(r->f.port[0], 0, pkts, n);
}

/*
 * Sessions of 40 on a 64-WQE queue whose CQ starts 5 below its end (so
 * they fall across the CQ's and the ring's ends over the rounds), split
 * into three bursts: the first ends at every offset 0..7 of the first
 * three arrays, the second, by the other path, takes 9 from there, the
 * port's burst the rest. Each path continues the session the other left
 * open; every mbuf is the plain CQE's.
 */
static void test_split_every_offset(void **state)
{
	struct rc *r = rc_open("", "cq_start=119", 64, 1024);

	(void)state;
	for (unsigned int i = 0; i < 40; i++)
		frame(r, i, 64 + (i * 13) % 60, 2, false);
	reference(r, 40);
	for (unsigned int round = 0; round < 48; round++) {
		const unsigned int first = 1 + round % 24;
		uint64_t s0 = dev_stats(r).cqe_sessions;
		unsigned int got;

		assert_int_equal(sim_mlx5_inject_burst(r->f.sim, 0, r->fp, r->lens, 40, NULL), 40);
		assert_int_equal(dev_stats(r).cqe_sessions - s0, 1);
		assert_int_equal(dvp_rx_burst(r->f.port[0], 0, r->got, (uint16_t)first), first);
		assert_int_equal(rxq_of(r)->zip.n, 40);
		assert_int_equal(rxq_of(r)->zip.ai, first);
		assert_int_equal(other_burst(r, r->got + first, 9), 9);
		assert_int_equal(rxq_of(r)->zip.ai, first + 9);
		got = first + 9;
		while (got < 40) {
			uint16_t k = dvp_rx_burst(r->f.port[0], 0, r->got + got, 32);

			assert_true(k > 0);
			got += k;
		}
		assert_int_equal(got, 40);
		assert_int_equal(rxq_of(r)->zip.n, 0);
		for (unsigned int j = 0; j < 40; j++)
			check_free(r, r->got[j], j);
		assert_int_equal(dvp_rx_burst(r->f.port[0], 0, r->got, 32), 0);
	}
	rc_close(r);
}

/*
 * The WQE after a session of 5 fails (bad lkey): the session is taken,
 * over two bursts, then the error CQE recovers the queue; what comes next
 * is received in sessions again.
 */
static void test_error_after_session(void **state)
{
	struct rc *r = rc_open("", "", 256, 2048);
	int res[5];

	(void)state;
	for (unsigned int i = 0; i < 10; i++)
		frame(r, i, 70 + i, 2, false);
	reference(r, 10);
	assert_int_equal(sim_mlx5_inject_burst(r->f.sim, 0, r->fp, r->lens, 5, NULL), 5);
	assert_int_equal(sim_mlx5_fault_bad_lkey(r->f.sim, rxq_of(r)->wq->wq_num, 1), 0);
	assert_int_equal(sim_mlx5_inject_burst(r->f.sim, 0, r->fp + 5, r->lens + 5, 5, res), 0);
	assert_int_equal(res[0], SIM_MLX5_RX_ERROR_CQE);
	assert_int_equal(res[1], SIM_MLX5_RX_QUEUE_DOWN);
	assert_int_equal(dvp_rx_burst(r->f.port[0], 0, r->got, 3), 3);
	assert_int_equal(rxq_of(r)->zip.n, 5);
	for (unsigned int j = 0; j < 3; j++)
		check_free(r, r->got[j], j);
	/* The rest of the session, then the error CQE: recovery. */
	assert_int_equal(dvp_rx_burst(r->f.port[0], 0, r->got, 32), 2);
	for (unsigned int j = 0; j < 2; j++)
		check_free(r, r->got[j], 3 + j);
	assert_int_equal(xstat(r, "rx_q0_cqe_errors"), 1);
	assert_int_equal(xstat(r, "rx_q0_restarts"), 1);
	burst_check(r, 10, 32);
	rc_close(r);
}

/*
 * The pool is empty while a session of 40 is taken: the 32 mbufs handed
 * out leave their slots empty (nombuf), the other 8 come on the next
 * burst, none is lost; once mbufs are back the ring fills again.
 */
static void test_pool_empty_mid_session(void **state)
{
	struct rc *r = rc_open("", "", 64, 130); /* queue 1 holds 64, queue 0 64: 2 spare */
	struct dvp_mbuf *more[8];

	(void)state;
	for (unsigned int i = 0; i < 40; i++)
		frame(r, i, 90, 3, false);
	/* The reference without mbufs to spare: one at a time. */
	reference(r, 40);
	assert_int_equal(sim_mlx5_inject_burst(r->f.sim, 0, r->fp, r->lens, 40, NULL), 40);
	assert_int_equal(dvp_rx_burst(r->f.port[0], 0, r->got, 32), 32);
	assert_true(xstat(r, "rx_q0_nombuf") > 0);
	assert_int_equal(rxq_of(r)->zip.n, 40);
	assert_int_equal(dvp_rx_burst(r->f.port[0], 0, more, 8), 8);
	assert_int_equal(rxq_of(r)->zip.n, 0);
	for (unsigned int j = 0; j < 32; j++)
		check_free(r, r->got[j], j);
	for (unsigned int j = 0; j < 8; j++)
		check_free(r, more[j], 32 + j);
	assert_int_equal(dvp_rx_burst(r->f.port[0], 0, r->got, 32), 0);
	burst_check(r, 40, 32);
	rc_close(r);
}

/* A stop with a session half taken counts the rest as dropped_on_reset. */
static void test_stop_mid_session(void **state)
{
	struct rc *r = rc_open("", "", 256, 2048);
	struct dvp_port_stats st;

	(void)state;
	for (unsigned int i = 0; i < 40; i++)
		frame(r, i, 80, 1, false);
	reference(r, 40);
	assert_int_equal(sim_mlx5_inject_burst(r->f.sim, 0, r->fp, r->lens, 40, NULL), 40);
	assert_int_equal(dvp_rx_burst(r->f.port[0], 0, r->got, 10), 10);
	for (unsigned int j = 0; j < 10; j++)
		check_free(r, r->got[j], j);
	assert_int_equal(dvp_port_stop(r->f.port[0]), 0);
	assert_int_equal(xstat(r, "rx_q0_dropped_on_reset"), 30);
	assert_int_equal(dvp_stats_get(r->f.port[0], &st), 0);
	assert_int_equal(st.ierrors, 30);
	assert_int_equal(rxq_of(r)->zip.n, 0);
	/* Started again: a clean queue, sessions as before. */
	assert_int_equal(dvp_port_start(r->f.port[0]), 0);
	burst_check(r, 40, 32);
	rc_close(r);
}

/*
 * The device thread beside the polling lcore (TSan's suite 'concurrent'):
 * its source sends 20000 frames of two sizes as fast as the queue takes
 * them (flow control: none dropped), sessions close at the end of each of
 * its passes; every frame comes, intact by its checksum verdicts.
 */
static void test_device_thread(void **state)
{
	static const uint16_t sizes[] = { 60, 200 };
	struct rc *r = rc_open("", "mode=thread", 512, 4096);
	uint64_t got = 0;

	(void)state;
	mf_source(&r->f, 0, 20000, 1, sizes, 2);
	for (uint64_t polls = 0; got < 20000 && polls < 200000000; polls++) {
		uint16_t k = dvp_rx_burst(r->f.port[0], 0, r->got, 32);

		for (uint16_t j = 0; j < k; j++) {
			struct dvp_mbuf *m = r->got[j];

			assert_true(m->pkt_len == 60 || m->pkt_len == 200);
			assert_int_equal(m->ol_flags & (DVP_MBUF_F_RX_IP_CKSUM_GOOD |
							DVP_MBUF_F_RX_L4_CKSUM_GOOD),
					 DVP_MBUF_F_RX_IP_CKSUM_GOOD | DVP_MBUF_F_RX_L4_CKSUM_GOOD);
			dvp_pktmbuf_free(m);
		}
		got += k;
	}
	assert_int_equal(got, 20000);
	assert_true(dev_stats(r).cqe_sessions > 0);
	rc_close(r);
}

/* rxq_cqe_comp_en=0, or a device without compression: plain CQEs, the plain burst. */
static void test_off(void **state)
{
	static const char *const pmd[] = { "rxq_cqe_comp_en=0", "", "rxq_cqe_comp_en=4" };
	static const char *const sim[] = { "", "cqe_comp=0", "" };

	(void)state;
	for (unsigned int k = 0; k < 3; k++) {
		struct dvp_log_capture cap;
		struct rc *r;

		dvp_log_capture_begin(&cap);
		r = rc_open(pmd[k], sim[k], 256, 2048);
		dvp_log_capture_end(&cap);
		if (k == 1)
			assert_contains(cap.buf, "does not have the hash mini-CQE format: CQE "
						 "compression is off");
		if (k == 2)
			assert_contains(
				cap.buf,
				"L3/L4 header mini-CQE format needs a CQ created through DevX");
		dvp_log_capture_free(&cap);
		assert_burst(r, false);
		mixed_frames(r, 100);
		reference(r, 100);
		burst_check(r, 100, 32);
		assert_int_equal(dev_stats(r).cqe_sessions, 0);
		rc_close(r);
	}
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_hash_format, teardown),
		cmocka_unit_test_teardown(test_csum_format, teardown),
		cmocka_unit_test_teardown(test_burst_ends_mid_session, teardown),
		cmocka_unit_test_teardown(test_wrap_mid_array, teardown),
		cmocka_unit_test_teardown(test_split_every_offset, teardown),
		cmocka_unit_test_teardown(test_error_after_session, teardown),
		cmocka_unit_test_teardown(test_pool_empty_mid_session, teardown),
		cmocka_unit_test_teardown(test_stop_mid_session, teardown),
		cmocka_unit_test_teardown(test_off, teardown),
		cmocka_unit_test_teardown(test_device_thread, teardown),
	};

	if (argc > 1 && strncmp(argv[1], "rx_vec_en=", 10) == 0)
		pmd_extra = argv[1];
	else if (argc > 1)
		sim_extra = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
