/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The mlx5 PMD's VLAN filter on sim_mlx5 (mlx5_vlan.c): with the filter on
 * and VLANs in the table, tagged frames of those VLANs arrive, and neither
 * other VLANs' frames nor untagged ones (as DPDK's mlx5); an empty table or
 * the filter off takes every frame; promiscuous mode overrides the filter;
 * the table lasts across stop and start; a change on a started port loses
 * no frame of the VLANs it keeps (frames injected around every steering
 * call, and the device thread receiving throughout); more than
 * MLX5_VLAN_FILTER_MAX VLANs are refused.
 */

#include "mlx5_fixture.h"
#include "mlx5_steer_probe.h"

#include <time.h>

#include <dvp_byteorder.h>

#include "mlx5.h"

static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/* Inject a source frame to @p dst, tagged with @p tci (-1: untagged). */
static int inject(struct mf *f, const uint8_t *dst, int tci)
{
	static uint64_t seq;
	uint8_t frame[128];
	size_t len = 100;

	assert_int_equal(sim_mlx5_frame_build(frame, len, 0, seq++, dst), (int)len);
	if (tci >= 0) {
		memmove(frame + 16, frame + 12, len - 12);
		dvp_be16_put(frame + 12, 0x8100);
		dvp_be16_put(frame + 14, (uint16_t)tci);
		len += 4;
	}
	return sim_mlx5_inject(f->sim, 0, frame, len);
}

/* Whether a frame to the port's MAC tagged @p tci arrives (and one broadcast alike). */
static bool arrives(struct mf *f, int tci)
{
	struct dvp_ether_addr mac;
	int uc, bc;
	struct dvp_mbuf *m[4];
	uint16_t n;

	assert_int_equal(dvp_macaddr_get(f->port[0], &mac), 0);
	uc = inject(f, mac.addr_bytes, tci);
	bc = inject(f, bcast, tci);
	/* The unicast and multicast rules agree. */
	assert_int_equal(uc, bc);
	n = dvp_rx_burst(f->port[0], 0, m, 4);
	assert_int_equal(n, uc == SIM_MLX5_RX_DELIVERED ? 2 : 0);
	if (n > 0) {
		assert_int_equal(dvp_pktmbuf_data_len(m[0]), tci >= 0 ? 104 : 100);
		dvp_pktmbuf_free_bulk(m, n);
	} else {
		assert_int_equal(uc, SIM_MLX5_RX_NO_FLOW);
	}
	return n > 0;
}

static void start_filtered(struct mf *f, uint16_t nq)
{
	struct dvp_port_conf conf;
	struct dvp_port_info info;

	assert_int_equal(dvp_port_info_get(f->port[0], &info), 0);
	assert_true(info.rx_offload_capa & DVP_RX_OFFLOAD_VLAN_FILTER);
	memset(&conf, 0, sizeof(conf));
	conf.rxmode.offloads = DVP_RX_OFFLOAD_VLAN_FILTER;
	if (nq > 1)
		conf.rss_conf.rss_hf = DVP_RSS_IPV4 | DVP_RSS_NONFRAG_IPV4_UDP;
	mf_port_start(f, 0, nq, 1, &conf, 256);
}

static void test_filter_steering(void **state)
{
	uint16_t p;
	struct mf f;

	(void)state;
	mf_open(&f, "ports=1,mode=step", 512);
	p = f.port[0];
	start_filtered(&f, 1);
	/* An empty table filters nothing. */
	assert_true(arrives(&f, -1));
	assert_true(arrives(&f, 100));
	assert_true(arrives(&f, 200));

	/* VLAN 100 on a started port: its frames only, any priority. */
	assert_int_equal(dvp_port_vlan_filter(p, 100, true), 0);
	assert_true(arrives(&f, 100));
	assert_true(arrives(&f, 0xe000 | 100));
	assert_false(arrives(&f, 200));
	assert_false(arrives(&f, -1));
	/* VLAN 0 takes priority-tagged frames, not untagged ones (the device wants a tag). */
	assert_int_equal(dvp_port_vlan_filter(p, 0, true), 0);
	assert_true(arrives(&f, 0xa000));
	assert_false(arrives(&f, -1));
	assert_int_equal(dvp_port_vlan_filter(p, 0, false), 0);
	assert_false(arrives(&f, 0xa000));

	/* The table lasts across stop and start. */
	assert_int_equal(dvp_port_stop(p), 0);
	assert_int_equal(dvp_port_vlan_filter(p, 4095, true), 0);
	assert_int_equal(dvp_port_start(p), 0);
	assert_true(arrives(&f, 100));
	assert_true(arrives(&f, 4095));
	assert_false(arrives(&f, 200));
	assert_false(arrives(&f, -1));

	/* Promiscuous mode takes everything; off, the filter again. */
	assert_int_equal(dvp_promiscuous_enable(p), 0);
	assert_true(arrives(&f, 200));
	assert_true(arrives(&f, -1));
	assert_int_equal(dvp_promiscuous_disable(p), 0);
	assert_false(arrives(&f, 200));
	assert_true(arrives(&f, 100));

	/* Removed: gone; the filter off: everything, the table kept for later. */
	assert_int_equal(dvp_port_vlan_filter(p, 100, false), 0);
	assert_false(arrives(&f, 100));
	assert_true(arrives(&f, 4095));
	assert_int_equal(dvp_port_vlan_filter_offload_set(p, false), 0);
	assert_true(arrives(&f, 200));
	assert_true(arrives(&f, -1));
	assert_int_equal(dvp_port_vlan_filter_offload_set(p, true), 0);
	assert_false(arrives(&f, 200));
	assert_true(arrives(&f, 4095));
	mf_close(&f);
}

/* Receive on four queues for @p steps steps; @return the frames taken. */
static uint64_t drain(struct mf *f, int steps)
{
	struct dvp_mbuf *m[32];
	uint64_t got = 0;

	for (int i = 0; i < steps; i++) {
		sim_mlx5_step(f->sim);
		for (uint16_t q = 0; q < 4; q++) {
			uint16_t n = dvp_rx_burst(f->port[0], q, m, 32);

			for (uint16_t k = 0; k < n; k++) {
				const uint8_t *p = dvp_pktmbuf_mtod(m[k], const uint8_t *);

				assert_int_equal(dvp_be16_get(p + 12), 0x8100);
				assert_int_equal(dvp_be16_get(p + 14) & 0x0fff, 100);
			}
			got += n;
			dvp_pktmbuf_free_bulk(m, n);
		}
	}
	return got;
}

/*
 * Each RSS class filters: UDP/IPv4 frames of 16 flows on four queues from
 * the traffic source, VLANs 200 and 100 in turn (set by the source's conf,
 * then by the devargs vlan=[...]): only VLAN 100's arrive.
 */
static void test_filter_rss_classes(void **state)
{
	struct sim_mlx5_source_conf sc;
	struct sim_mlx5_port_stats ps;
	struct mf f;

	(void)state;
	mf_open(&f, "ports=1,mode=step,cable=traffic,gen=off", 2048);
	start_filtered(&f, 4);
	assert_int_equal(dvp_port_vlan_filter(f.port[0], 100, true), 0);
	memset(&sc, 0, sizeof(sc));
	sc.sizes[0] = 60;
	sc.nsizes = 1;
	sc.flows = 16;
	sc.count = 200;
	sc.vlan = true;
	sc.vlan_tcis[0] = 200;
	sc.vlan_tcis[1] = 0x2000 | 100;
	sc.nvlan_tcis = 2;
	assert_int_equal(sim_mlx5_source_set(f.sim, 0, &sc), 0);
	assert_int_equal(sim_mlx5_source_start(f.sim, 0), 0);
	assert_int_equal(drain(&f, 5000), 100);
	assert_int_equal(sim_mlx5_port_stats(f.sim, 0, &ps), 0);
	assert_int_equal(ps.rx_no_flow, 100);
	mf_close(&f);

	mf_open(&f, "ports=1,mode=step,cable=traffic,flows=16,count=64,vlan=[100,200]", 2048);
	start_filtered(&f, 4);
	assert_int_equal(dvp_port_vlan_filter(f.port[0], 100, true), 0);
	assert_int_equal(drain(&f, 5000), 32);
	assert_int_equal(sim_mlx5_port_stats(f.sim, 0, &ps), 0);
	assert_int_equal(ps.rx_no_flow, 32);
	mf_close(&f);
}

/* More VLANs than the PMD filters: refused with a line, the table as it was. */
static void test_filter_limit(void **state)
{
	struct dvp_log_capture cap;
	uint16_t p;
	struct mf f;

	(void)state;
	mf_open(&f, "ports=1,mode=step", 512);
	p = f.port[0];
	start_filtered(&f, 1);
	for (uint16_t v = 1; v <= MLX5_VLAN_FILTER_MAX; v++)
		assert_int_equal(dvp_port_vlan_filter(p, v, true), 0);
	assert_true(arrives(&f, MLX5_VLAN_FILTER_MAX));
	/* One already in: no change. */
	assert_int_equal(dvp_port_vlan_filter(p, 1, true), 0);
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_port_vlan_filter(p, 1000, true), -ENOSPC);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "mlx5 filters at most 128");
	dvp_log_capture_free(&cap);
	assert_int_equal(dvp_port_vlan_filter_get(p, 1000), 0);
	assert_false(arrives(&f, 1000));
	assert_int_equal(dvp_port_vlan_filter(p, 1, false), 0);
	assert_int_equal(dvp_port_vlan_filter(p, 1000, true), 0);
	assert_true(arrives(&f, 1000));
	assert_false(arrives(&f, 1));
	mf_close(&f);
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/*
 * The device thread receiving VLAN 100 while other VLANs come and go and
 * promiscuous mode goes on and off: no frame of VLAN 100 meets no rule.
 */
static void test_changes_lose_nothing(void **state)
{
	const uint64_t total = 20000;
	struct sim_mlx5_source_conf sc;
	struct sim_mlx5_port_stats ps;
	struct dvp_mbuf *m[32];
	unsigned int changes = 0;
	struct timespec t0;
	uint64_t got = 0;
	struct mf f;

	(void)state;
	mf_open(&f, "ports=1,mode=thread,idle_us=20,cable=traffic,gen=off", 4096);
	start_filtered(&f, 4);
	assert_int_equal(dvp_port_vlan_filter(f.port[0], 100, true), 0);
	memset(&sc, 0, sizeof(sc));
	sc.sizes[0] = 60;
	sc.nsizes = 1;
	sc.flows = 16;
	sc.count = total;
	sc.vlan = true;
	sc.vlan_tci = 100;
	assert_int_equal(sim_mlx5_source_set(f.sim, 0, &sc), 0);
	assert_int_equal(sim_mlx5_source_start(f.sim, 0), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (got < total && seconds_since(&t0) < 60) {
		for (uint16_t q = 0; q < 4; q++) {
			uint16_t n = dvp_rx_burst(f.port[0], q, m, 32);

			got += n;
			dvp_pktmbuf_free_bulk(m, n);
		}
		if (changes < 12 && got >= (changes + 1) * total / 16) {
			uint16_t v = (uint16_t)(200 + changes / 2);

			if (changes % 4 == 3)
				assert_int_equal(changes % 8 == 3 ?
							 dvp_promiscuous_enable(f.port[0]) :
							 dvp_promiscuous_disable(f.port[0]),
						 0);
			else
				assert_int_equal(
					dvp_port_vlan_filter(f.port[0], v, changes % 2 == 0), 0);
			changes++;
		}
	}
	assert_int_equal(changes, 12);
	assert_int_equal(got, total);
	assert_int_equal(sim_mlx5_port_stats(f.sim, 0, &ps), 0);
	assert_int_equal(ps.rx_no_flow, 0);
	mf_close(&f);
}

/*
 * Around every steering call: frames of VLAN 100, a UDP/IPv4 frame, an
 * IPv4 frame of another protocol and a non-IP one (a rule class each), to
 * the port's MAC and broadcast; then the lcore takes what arrived, so the
 * queues keep room (bursts take no steering lock).
 */
static void vlan_probe_frames(struct steer_probe *sp)
{
	uint8_t frames[3][68];

	for (int d = 0; d < 2; d++) {
		assert_int_equal(sim_mlx5_frame_build(frames[0], 64, (uint32_t)(sp->seq % 16),
						      sp->seq / 16, d == 0 ? sp->mac : bcast),
				 64);
		sp->seq++;
		memmove(frames[0] + 16, frames[0] + 12, 64 - 12);
		dvp_be16_put(frames[0] + 12, 0x8100);
		dvp_be16_put(frames[0] + 14, 100);
		memcpy(frames[1], frames[0], 68);
		frames[1][27] = 47; /* GRE */
		memcpy(frames[2], frames[0], 68);
		dvp_be16_put(frames[2] + 16, 0x0806); /* ARP */
		for (int i = 0; i < 3; i++)
			steer_probe_inject(sp, frames[i], 68);
	}
	sp->got += steer_probe_drain(sp->f->port[0], 4);
}

/*
 * Frames arriving at every step while other VLANs come and go, promiscuous
 * mode and the filter go off and on: each meets a rule and is received,
 * none is handed to no queue.
 */
static void test_no_frame_without_rule(void **state)
{
	struct steer_probe probe;
	unsigned int got = 0;
	uint16_t p;
	struct mf f;

	(void)state;
	mf_open(&f, "ports=1,mode=step", 4096);
	start_filtered(&f, 4);
	p = f.port[0];
	assert_int_equal(dvp_port_vlan_filter(p, 100, true), 0);
	steer_probe_install(&probe, &f, p, vlan_probe_frames);
	for (uint16_t v = 200; v < 204; v++) {
		assert_int_equal(dvp_port_vlan_filter(p, v, true), 0);
		got += steer_probe_drain(p, 4);
		if (v % 2 == 1) {
			assert_int_equal(dvp_port_vlan_filter(p, v, false), 0);
			got += steer_probe_drain(p, 4);
		}
	}
	assert_int_equal(dvp_promiscuous_enable(p), 0);
	got += steer_probe_drain(p, 4);
	assert_int_equal(dvp_promiscuous_disable(p), 0);
	got += steer_probe_drain(p, 4);
	assert_int_equal(dvp_port_vlan_filter_offload_set(p, false), 0);
	got += steer_probe_drain(p, 4);
	assert_int_equal(dvp_port_vlan_filter_offload_set(p, true), 0);
	got += steer_probe_drain(p, 4);
	steer_probe_remove(&probe);
	steer_probe_check(&probe, got);
	mf_close(&f);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filter_steering),
		cmocka_unit_test(test_filter_rss_classes),
		cmocka_unit_test(test_filter_limit),
		cmocka_unit_test(test_changes_lose_nothing),
		cmocka_unit_test(test_no_frame_without_rule),
	};

	mf_args(argc, argv);
	return cmocka_run_group_tests(tests, mf_eal_init, mf_eal_cleanup);
}
