/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The mlx5 PMD's enhanced multi-packet send path (mlx5_tx_empw.h) at its
 * edges, on sim_mlx5 (which reports eMPW unless empw=off): a burst larger
 * than a session, and larger than the rings; a session whose segments wrap
 * the end of the SQ; multi-segment, whole-inline and short frames ending a
 * session as SEND WQEs of their own; frames inline in the session, and a
 * malformed inline segment caught; checksum flags that change within a
 * burst; a completion asked every tx_free_thresh packets and the mbufs
 * back at each; the fallback to SEND WQEs when the device has no eMPW,
 * and their WQE index across multiples of 256.
 * The sink checks order and payload of every frame; the sim counts eMPW
 * WQEs, completions and invalid use.
 */

#include "mlx5_fixture.h"

#include <dvp_port_driver.h>
#include <dvp_vect.h>

#include "mlx5_tx.h"
#include "mlx5_tx_empw.h"

static struct sim_mlx5_port_stats port_stats(struct mf *f)
{
	struct sim_mlx5_port_stats ps;

	assert_int_equal(sim_mlx5_port_stats(f->sim, 0, &ps), 0);
	return ps;
}

/* Everything sent so far reached the sink, @p n frames, in order and intact. */
static void expect_sink(struct mf *f, uint64_t n)
{
	struct sim_mlx5_sink_stats snk;

	dvp_tx_burst(f->port[0], 0, NULL, 0);
	sim_mlx5_step_idle(f->sim, 100);
	assert_int_equal(sim_mlx5_sink_stats(f->sim, 0, &snk), 0);
	assert_int_equal(snk.received, n);
	assert_int_equal(snk.lost + snk.corrupt + snk.reordered + snk.duplicates, 0);
}

static struct mlx5_txq *open_port(struct mf *f, const char *args, uint16_t nb_desc,
				  const struct dvp_port_conf *conf)
{
	mf_open(f, args, 2048);
	mf_port_start(f, 0, 1, 1, conf, nb_desc);
	return dvp_port_get(f->port[0])->txqs[0];
}

/* Whether @p f's device has eMPW (a ConnectX-4 Lx profile has none: eMPW tests skip). */
static bool has_empw(struct mf *f)
{
	return mlx5_priv(dvp_port_get(f->port[0]))->dev->empw;
}

/* An eMPW test on a device without it: closed, skipped. */
#define EMPW_OR_SKIP(f)                                                                   \
	do {                                                                              \
		if (!has_empw(f)) {                                                       \
			print_message("the device has no eMPW (its profile): skipped\n"); \
			mf_close(f);                                                      \
			skip();                                                           \
		}                                                                         \
	} while (0)

/* 64 frames in one burst: two sessions of 32; 300 on a ring of 64: what fits. */
static void test_burst_larger_than_session_and_ring(void **state)
{
	struct dvp_mbuf *pkts[300];
	struct sim_mlx5_port_stats ps;
	struct mlx5_txq *txq;
	uint16_t n;
	struct mf f;

	(void)state;
	txq = open_port(&f, "ports=1,mode=step,cable=traffic,gen=off", 64, NULL);
	EMPW_OR_SKIP(&f);
	assert_ptr_equal(dvp_port_get(f.port[0])->tx_pkt_burst, mlx5_tx_burst_empw);
	for (int i = 0; i < 64; i++)
		pkts[i] = mf_frame(&f, 60 + i, 0, (uint64_t)i, 2048);
	assert_int_equal(dvp_tx_burst(f.port[0], 0, pkts, 64), 64);
	/* Two titles of 34 units: 9 blocks each. */
	assert_int_equal(txq->wqe_ci - txq->wqe_tail, 18);
	expect_sink(&f, 64);
	ps = port_stats(&f);
	assert_int_equal(ps.tx_empw_wqes, 2);
	assert_int_equal(ps.tx_frames, 64);
	/* A ring of 64 mbufs takes 64 of 300; the rest go as completions free it. */
	for (int i = 0; i < 300; i++)
		pkts[i] = mf_frame(&f, 100, 0, (uint64_t)(64 + i), 2048);
	n = dvp_tx_burst(f.port[0], 0, pkts, 300);
	assert_true(n > 0 && n <= 64);
	mf_tx_all(&f, f.port[0], 0, pkts + n, (uint16_t)(300 - n));
	expect_sink(&f, 364);
	mf_close(&f);
}

/* A session whose title is the last block of the SQ: its segments wrap to block 0. */
static void test_ring_wrap_inside_session(void **state)
{
	struct dvp_mbuf *pkts[32];
	struct mlx5_txq *txq;
	uint64_t seq = 0;
	struct mf f;

	(void)state;
	txq = open_port(&f, "ports=1,mode=step,cable=traffic,gen=off", 64, NULL);
	EMPW_OR_SKIP(&f);
	for (int round = 0; round < 3; round++) {
		/* One-packet sessions (one block each) up to the ring's last block. */
		while ((txq->wqe_ci & txq->wqe_mask) != txq->wqe_mask) {
			pkts[0] = mf_frame(&f, 80, 0, seq++, 2048);
			mf_tx_all(&f, f.port[0], 0, pkts, 1);
			sim_mlx5_step(f.sim);
		}
		for (int i = 0; i < 32; i++)
			pkts[i] = mf_frame(&f, 60 + (uint32_t)i * 40, 0, seq++, 2048);
		sim_mlx5_step_idle(f.sim, 10);
		dvp_tx_burst(f.port[0], 0, NULL, 0); /* completions: room for the whole session */
		assert_int_equal(dvp_tx_burst(f.port[0], 0, pkts, 32), 32);
		/* 34 units from the last block: 2 there, 32 in the 8 blocks after the wrap. */
		assert_int_equal(txq->wqe_ci & txq->wqe_mask, 8);
		expect_sink(&f, seq);
	}
	mf_close(&f);
}

/*
 * Frames a session cannot take end it and go as SEND WQEs of their own:
 * several segments, and too short for any WQE (dropped, counted). With
 * txqs_min_inline tx queues a short frame goes inline inside the session.
 */
static void test_frames_that_end_a_session(void **state)
{
	struct dvp_port_conf conf;
	struct dvp_mbuf *pkts[12];
	struct sim_mlx5_port_stats before, ps;
	struct dvp_port_stats st;
	uint64_t seq = 0, inlined;
	struct mf f;

	(void)state;
	memset(&conf, 0, sizeof(conf));
	conf.txmode.offloads = DVP_TX_OFFLOAD_MULTI_SEGS;
	mf_open(&f, "ports=1,mode=step,cable=traffic,gen=off", 2048);
	/* Eight tx queues: frames up to 268 bytes go inline in the session. */
	mf_port_start(&f, 0, 1, 8, &conf, 256);
	EMPW_OR_SKIP(&f);
	before = port_stats(&f);
	for (int round = 0; round < 10; round++) {
		uint16_t n = 0;

		for (int i = 0; i < 3; i++)
			pkts[n++] = mf_frame(&f, 400, 0, seq++, 2048);
		pkts[n++] = mf_frame(&f, 1000, 0, seq++, 300); /* four segments */
		for (int i = 0; i < 3; i++)
			pkts[n++] = mf_frame(&f, 500, 0, seq++, 2048);
		pkts[n++] = mf_frame(&f, 100, 0, seq++, 2048); /* inline in the session */
		pkts[n++] = mf_frame(&f, 700, 0, seq++, 2048);
		mf_tx_all(&f, f.port[0], 0, pkts, n);
		sim_mlx5_step(f.sim);
	}
	expect_sink(&f, seq);
	ps = port_stats(&f);
	/* Per round: sessions of 3 and 5 (one inline), around a SEND of four segments. */
	assert_int_equal(ps.tx_empw_wqes - before.tx_empw_wqes, 20);
	assert_int_equal(ps.tx_frames - before.tx_frames, seq);
	assert_int_equal(dvp_xstats_get_by_name(f.port[0], "tx_q0_inlined", &inlined), 0);
	assert_int_equal(inlined, 10);
	/* Too short for any Ethernet frame: dropped and counted, the session around it goes. */
	pkts[0] = mf_frame(&f, 300, 0, seq++, 2048);
	pkts[1] = dvp_pktmbuf_alloc(f.mp);
	assert_non_null(dvp_pktmbuf_append(pkts[1], 10));
	pkts[2] = mf_frame(&f, 300, 0, seq++, 2048);
	assert_int_equal(dvp_tx_burst(f.port[0], 0, pkts, 3), 3);
	expect_sink(&f, seq);
	assert_int_equal(dvp_stats_get(f.port[0], &st), 0);
	assert_int_equal(st.oerrors, 1);
	mf_close(&f);
}

/* Checksum flags change within a burst: one session per run of equal flags. */
static void test_checksum_flags_split_sessions(void **state)
{
	struct dvp_port_conf conf;
	struct dvp_mbuf *pkts[16];
	struct sim_mlx5_port_stats before, ps;
	struct mf f;

	(void)state;
	memset(&conf, 0, sizeof(conf));
	conf.txmode.offloads = DVP_TX_OFFLOAD_IPV4_CKSUM | DVP_TX_OFFLOAD_UDP_CKSUM;
	open_port(&f, "ports=1,mode=step,cable=traffic,gen=off", 256, &conf);
	EMPW_OR_SKIP(&f);
	assert_ptr_equal(dvp_port_get(f.port[0])->tx_pkt_burst, mlx5_tx_burst_empw_cs);
	before = port_stats(&f);
	for (int i = 0; i < 16; i++) {
		uint8_t *p;

		pkts[i] = mf_frame(&f, 100, 0, (uint64_t)i, 2048);
		if (i / 4 % 2 == 0)
			continue; /* checksums right already, none asked */
		p = dvp_pktmbuf_mtod(pkts[i], uint8_t *);
		memset(p + 24, 0, 2); /* IPv4 header checksum */
		memset(p + 40, 0xa5, 2); /* UDP checksum, wrong */
		pkts[i]->ol_flags =
			DVP_MBUF_F_TX_IPV4 | DVP_MBUF_F_TX_IP_CKSUM | DVP_MBUF_F_TX_UDP_CKSUM;
		pkts[i]->tx.l2_len = 14;
		pkts[i]->tx.l3_len = 20;
	}
	assert_int_equal(dvp_tx_burst(f.port[0], 0, pkts, 16), 16);
	expect_sink(&f, 16);
	ps = port_stats(&f);
	assert_int_equal(ps.tx_empw_wqes - before.tx_empw_wqes, 4);
	mf_close(&f);
}

/* A completion every tx_free_thresh packets, whatever the bursts; mbufs back at each. */
static void test_completion_every_n(void **state)
{
	struct dvp_txq_conf tconf;
	struct dvp_port_conf conf;
	struct dvp_mbuf *pkts[8];
	struct sim_mlx5_port_stats ps;
	uint64_t seq = 0;
	struct mf f;

	(void)state;
	memset(&conf, 0, sizeof(conf));
	memset(&tconf, 0, sizeof(tconf));
	tconf.tx_free_thresh = 16;
	mf_open(&f, "ports=1,mode=step,cable=traffic,gen=off", 1024);
	assert_int_equal(dvp_port_configure(f.port[0], 1, 1, &conf), 0);
	assert_int_equal(dvp_rxq_setup(f.port[0], 0, 256, DVP_SOCKET_ANY, NULL, f.mp), 0);
	assert_int_equal(dvp_txq_setup(f.port[0], 0, 256, DVP_SOCKET_ANY, &tconf), 0);
	assert_int_equal(dvp_port_start(f.port[0]), 0);
	for (int burst = 0; burst < 40; burst++) {
		unsigned int in_use;

		for (int i = 0; i < 8; i++)
			pkts[i] = mf_frame(&f, 200, 0, seq++, 2048);
		assert_int_equal(dvp_tx_burst(f.port[0], 0, pkts, 8), 8);
		sim_mlx5_step_idle(f.sim, 10);
		ps = port_stats(&f);
		/* Every second burst of 8 asks for one. */
		assert_int_equal(ps.tx_completions, (uint64_t)(burst + 1) / 2);
		/* The next burst frees what completed: at most the 8 after the last request. */
		dvp_tx_burst(f.port[0], 0, NULL, 0);
		in_use = dvp_pktmbuf_pool_in_use(f.mp) - 256; /* the rx ring holds 256 */
		assert_int_equal(in_use, burst % 2 == 0 ? 8 : 0);
	}
	assert_int_equal(ps.tx_empw_wqes, has_empw(&f) ? 40 : 0);
	expect_sink(&f, seq);
	mf_close(&f);
}

/*
 * The port took the inline eMPW burst: the AVX2 one where the CPU has it,
 * unless --force-max-simd-bitwidth holds the bursts to SSE.
 */
static void expect_inline_burst(struct mf *f)
{
	dvp_tx_burst_fn fn = dvp_port_get(f->port[0])->tx_pkt_burst;

	assert_ptr_equal(fn, mlx5_tx_burst_inl_pick(false, false));
	if (dvp_vect_get_max_simd_bitwidth() < DVP_VECT_SIMD_256)
		assert_ptr_equal(fn, mlx5_tx_burst_empw_inl);
#ifdef MLX5_TX_AVX2
	else if (__builtin_cpu_supports("avx2"))
		assert_ptr_equal(fn, mlx5_tx_burst_empw_inl_avx2);
#endif
}

/*
 * Bursts of 32 short frames (60 to 64 bytes: segments of 64 and 80 bytes)
 * through fast sessions only, on an SQ of 256 blocks that they go round
 * many times: a session stops at the SQ's end instead of wrapping it. Each
 * burst's mbufs are back in the pool when dvp_tx_burst() returns (the
 * device reads only the WQEs: no data read at all); every frame reaches
 * the sink intact and counts as inlined.
 */
static void test_inline_fast_sessions(void **state)
{
	struct sim_mlx5_port_stats before, ps;
	struct dvp_mbuf *pkts[32];
	uint64_t seq = 0, inlined;
	struct mf f;

	(void)state;
	mf_open(&f, "ports=1,mode=step,cable=traffic,gen=off", 2048);
	mf_port_start(&f, 0, 1, 8, NULL, 256);
	EMPW_OR_SKIP(&f);
	expect_inline_burst(&f);
	before = port_stats(&f);
	for (int round = 0; round < 200; round++) {
		unsigned int in_use = dvp_pktmbuf_pool_in_use(f.mp);

		for (int i = 0; i < 32; i++)
			pkts[i] = mf_frame(&f, 60 + (uint32_t)(round + i) % 5, 0, seq++, 2048);
		assert_int_equal(dvp_tx_burst(f.port[0], 0, pkts, 32), 32);
		assert_int_equal(dvp_pktmbuf_pool_in_use(f.mp), in_use);
		sim_mlx5_step(f.sim);
	}
	expect_sink(&f, seq);
	ps = port_stats(&f);
	assert_int_equal(ps.tx_frames - before.tx_frames, seq);
	assert_int_equal(ps.bus_data_rd_bytes - before.bus_data_rd_bytes, 0);
	assert_int_equal(dvp_xstats_get_by_name(f.port[0], "tx_q0_inlined", &inlined), 0);
	assert_int_equal(inlined, seq);
	mf_close(&f);
}

/*
 * Fast frames with others among them: a shared mbuf (another reference
 * held), a long frame (by pointer), a chain of two segments (a SEND of its
 * own), a frame of 65 bytes (inline, but not fast). All arrive in order,
 * and every mbuf is back in the pool at the end: the shared ones once
 * both references are dropped.
 */
static void test_inline_fast_and_others(void **state)
{
	struct dvp_mbuf *pkts[40], *shared;
	uint64_t seq = 0;
	struct mf f;

	(void)state;
	mf_open(&f, "ports=1,mode=step,cable=traffic,gen=off", 2048);
	mf_port_start(&f, 0, 1, 8, NULL, 256);
	EMPW_OR_SKIP(&f);
	for (int round = 0; round < 20; round++) {
		for (int i = 0; i < 40; i++) {
			uint32_t len = 64, seg = 2048;

			if (i == 7)
				len = 300;
			else if (i == 19)
				seg = 40;
			else if (i == 29)
				len = 65;
			pkts[i] = mf_frame(&f, len, 0, seq++, seg);
		}
		shared = pkts[13];
		dvp_mbuf_refcnt_update(shared, 1);
		mf_tx_all(&f, f.port[0], 0, pkts, 40);
		sim_mlx5_step(f.sim);
		/* Ours, and the queue's until its completion: dropped here, freed there. */
		assert_true(dvp_mbuf_refcnt_read(shared) >= 1);
		dvp_pktmbuf_free(shared);
	}
	expect_sink(&f, seq);
	mf_close(&f);
}

/*
 * Frames inline in eMPW sessions (txq_inline_mpw, 268 by default, with
 * eight tx queues): frames of 14 to 400 bytes, inline up to 268 and by
 * pointer above, mixed in sessions that fill their 60 units and wrap the
 * end of the SQ (some inline segments across it). Every frame reaches the
 * sink intact; the device reads data only behind the pointer ones.
 */
static void test_inline_in_session(void **state)
{
	struct sim_mlx5_port_stats before, ps;
	struct dvp_mbuf *pkts[32];
	uint64_t seq = 0, inl = 0, ptr_bytes = 0, inlined;
	struct mf f;

	(void)state;
	mf_open(&f, "ports=1,mode=step,cable=traffic,gen=off", 2048);
	mf_port_start(&f, 0, 1, 8, NULL, 256);
	EMPW_OR_SKIP(&f);
	expect_inline_burst(&f);
	before = port_stats(&f);
	for (int round = 0; round < 60; round++) {
		for (int i = 0; i < 32; i++) {
			uint32_t len = 14u + (uint32_t)((round * 32 + i) * 37 % 387);

			if (len < 60)
				len = 60 + (uint32_t)i; /* the sink's frames carry a header */
			pkts[i] = mf_frame(&f, len, 0, seq++, 2048);
			if (len <= 268)
				inl++;
			else
				ptr_bytes += len;
		}
		mf_tx_all(&f, f.port[0], 0, pkts, 32);
		sim_mlx5_step(f.sim);
	}
	expect_sink(&f, seq);
	ps = port_stats(&f);
	assert_int_equal(ps.tx_frames - before.tx_frames, seq);
	assert_int_equal(dvp_xstats_get_by_name(f.port[0], "tx_q0_inlined", &inlined), 0);
	assert_int_equal(inlined, inl);
	/* Inline frames cost the device no data read: only the pointer ones do. */
	assert_int_equal(ps.bus_data_rd_bytes - before.bus_data_rd_bytes, ptr_bytes);
	assert_true(ps.bus_wqe_bytes - before.bus_wqe_bytes >= (seq - inl) * 16);
	mf_close(&f);
}

/*
 * A malformed inline segment (its byte count runs past the WQE's ds) is
 * caught by the device: an error CQE, counted by the PMD as cqe_errors and
 * oerrors, the queue restarted, every mbuf back; frames sent after it
 * arrive.
 */
static void test_inline_malformed(void **state)
{
	struct dvp_mbuf *pkts[4];
	struct sim_mlx5_dev_stats ds;
	struct sim_mlx5_sink_stats snk;
	struct dvp_port_stats st;
	struct mlx5_txq *txq;
	uint64_t errs, seq = 0;
	uint32_t bc, wqe;
	struct mf f;

	(void)state;
	mf_open(&f, "ports=1,mode=step,cable=traffic,gen=off", 2048);
	mf_port_start(&f, 0, 1, 8, NULL, 256);
	EMPW_OR_SKIP(&f);
	txq = dvp_port_get(f.port[0])->txqs[0];
	wqe = txq->wqe_ci;
	for (int i = 0; i < 4; i++)
		pkts[i] = mf_frame(&f, 64, 0, seq++, 2048);
	assert_int_equal(dvp_tx_burst(f.port[0], 0, pkts, 4), 4);
	/* The last packet's inline segment: 4 units from unit 2 + 3 * 5; claim 200 bytes. */
	bc = htobe32(200u | MLX5_INLINE_SEG);
	memcpy(mlx5_tx_wqe(txq, wqe) + (2 + 3 * 5) * MLX5_WSEG_SIZE, &bc, sizeof(bc));
	sim_mlx5_step_idle(f.sim, 10);
	assert_int_equal(sim_mlx5_dev_stats(f.sim, &ds), 0);
	assert_int_equal(ds.invalid[SIM_MLX5_INV_DS], 1);
	assert_int_equal(ds.error_cqes, 1);
	/* The error CQE is seen, counted, the queue restarted at the next burst. */
	for (int i = 0; i < 100 && __atomic_load_n(&txq->st.cqe_errors, __ATOMIC_RELAXED) == 0;
	     i++) {
		dvp_tx_burst(f.port[0], 0, NULL, 0);
		sim_mlx5_step(f.sim);
	}
	assert_int_equal(dvp_xstats_get_by_name(f.port[0], "tx_q0_cqe_errors", &errs), 0);
	assert_int_equal(errs, 1);
	for (int i = 0; i < 100; i++) {
		dvp_tx_burst(f.port[0], 0, NULL, 0);
		sim_mlx5_step(f.sim);
	}
	assert_int_equal(dvp_stats_get(f.port[0], &st), 0);
	assert_int_equal(sim_mlx5_sink_stats(f.sim, 0, &snk), 0);
	/* Packets before the bad one may have left: nothing is lost unseen. */
	assert_int_equal(snk.received + st.oerrors, 4);
	for (int i = 0; i < 4; i++)
		pkts[i] = mf_frame(&f, 64, 0, seq++, 2048);
	mf_tx_all(&f, f.port[0], 0, pkts, 4);
	for (int i = 0; i < 100; i++) {
		dvp_tx_burst(f.port[0], 0, NULL, 0);
		sim_mlx5_step(f.sim);
	}
	assert_int_equal(sim_mlx5_sink_stats(f.sim, 0, &snk), 0);
	assert_int_equal(snk.received + st.oerrors, 8);
	assert_int_equal(dvp_port_stop(f.port[0]), 0);
	assert_int_equal(dvp_port_mbufs_held(f.port[0]), 0);
	/* The one invalid use is this test's: the device goes without mf_close's check. */
	assert_int_equal(sim_mlx5_invalid_total(f.sim), 1);
	assert_int_equal(sim_mlx5_destroy(f.sim), 0);
	assert_int_equal(dvp_pktmbuf_pool_in_use(f.mp), 0);
	dvp_mempool_free(f.mp);
}

/* No eMPW on the device (empw=off): SEND WQEs only, the same frames delivered. */
/*
 * A frame of @p len bytes (14 and more) that is only an Ethernet header and
 * filler: to 02:00:00:00:00:09, EtherType 0x88b5 (local experimental).
 */
static struct dvp_mbuf *short_frame(struct mf *f, uint32_t len)
{
	struct dvp_mbuf *m = dvp_pktmbuf_alloc(f->mp);
	uint8_t *d;

	assert_non_null(m);
	d = (uint8_t *)dvp_pktmbuf_append(m, (uint16_t)len);
	memset(d, (int)len, len);
	memcpy(d, "\x02\x00\x00\x00\x00\x09\x02\x53\x47\x45\x4e\x00\x88\xb5", 14);
	return m;
}

/*
 * Frames of 14 to 17 bytes, shorter than Ethernet and a VLAN tag: no send
 * WQE takes them (DPDK refuses them, the sim answers them with an error
 * CQE): dropped and counted in oerrors, their mbufs back, on every tx path
 * (eMPW by pointer, eMPW with inline frames, SEND); from 18 bytes on they
 * leave. No error CQE comes back, and the frames around them go.
 */
static void test_short_frames(void **state)
{
	static const char *const args[] = {
		"ports=1,mode=step,cable=traffic,gen=off",
		"ports=1,mode=step,cable=traffic,gen=off",
		"ports=1,mode=step,cable=traffic,gen=off,empw=off",
	};
	static const uint32_t lens[] = { 14, 60, 15, 16, 18, 17, 19, 100 };
	uint8_t got[128];

	(void)state;
	for (unsigned int c = 0; c < DVP_DIM(args); c++) {
		struct dvp_mbuf *pkts[DVP_DIM(lens)];
		struct sim_mlx5_port_stats ps;
		struct dvp_port_stats st;
		uint64_t cqe_errors;
		struct mf f;
		int n = 0;

		mf_open(&f, args[c], 512);
		/* Eight tx queues: the inline eMPW burst, frames up to 268 bytes inline. */
		mf_port_start(&f, 0, 1, c == 1 ? 8 : 1, NULL, 256);
		if (c == 1 && has_empw(&f))
			expect_inline_burst(&f);
		assert_int_equal(sim_mlx5_capture(f.sim, 0, 16), 0);
		for (unsigned int i = 0; i < DVP_DIM(lens); i++)
			pkts[i] = short_frame(&f, lens[i]);
		assert_int_equal(dvp_tx_burst(f.port[0], 0, pkts, DVP_DIM(lens)), DVP_DIM(lens));
		dvp_tx_burst(f.port[0], 0, NULL, 0);
		sim_mlx5_step_idle(f.sim, 100);
		dvp_tx_burst(f.port[0], 0, NULL, 0);
		assert_int_equal(dvp_stats_get(f.port[0], &st), 0);
		assert_int_equal(st.oerrors, 4);
		assert_int_equal(dvp_xstats_get_by_name(f.port[0], "tx_q0_cqe_errors", &cqe_errors),
				 0);
		assert_int_equal(cqe_errors, 0);
		ps = port_stats(&f);
		assert_int_equal(ps.tx_frames, 4);
		for (int len; (len = sim_mlx5_capture_pop(f.sim, 0, got, sizeof(got))) > 0; n++) {
			static const int want[] = { 60, 18, 19, 100 };

			assert_int_equal(len, want[n]);
		}
		assert_int_equal(n, 4);
		mf_close(&f);
	}
}

static void test_fallback_send(void **state)
{
	struct dvp_mbuf *pkts[64];
	struct sim_mlx5_port_stats ps;
	struct mf f;

	(void)state;
	open_port(&f, "ports=1,mode=step,cable=traffic,gen=off,empw=off", 256, NULL);
	assert_ptr_equal(dvp_port_get(f.port[0])->tx_pkt_burst, mlx5_tx_burst);
	for (int i = 0; i < 64; i++)
		pkts[i] = mf_frame(&f, 60 + i * 20, 0, (uint64_t)i, 2048);
	assert_int_equal(dvp_tx_burst(f.port[0], 0, pkts, 64), 64);
	expect_sink(&f, 64);
	ps = port_stats(&f);
	assert_int_equal(ps.tx_empw_wqes, 0);
	assert_int_equal(ps.tx_frames, 64);
	mf_close(&f);
}

/*
 * Without eMPW, bursts of 7 one-block SEND WQEs: their runs reach across
 * multiples of 256 of the WQE index, whose low byte the fast path counts
 * up within a run (the sim checks each WQE's index).
 */
static void test_send_index_past_256(void **state)
{
	struct dvp_mbuf *pkts[7];
	uint64_t seq = 0;
	struct mf f;

	(void)state;
	open_port(&f, "ports=1,mode=step,cable=traffic,gen=off,empw=off", 1024, NULL);
	for (int b = 0; b < 150; b++) {
		for (int i = 0; i < 7; i++)
			pkts[i] = mf_frame(&f, 64, 0, seq++, 2048);
		assert_int_equal(dvp_tx_burst(f.port[0], 0, pkts, 7), 7);
		sim_mlx5_step(f.sim);
	}
	expect_sink(&f, seq);
	assert_int_equal(port_stats(&f).tx_frames, seq);
	mf_close(&f);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_burst_larger_than_session_and_ring),
		cmocka_unit_test(test_ring_wrap_inside_session),
		cmocka_unit_test(test_frames_that_end_a_session),
		cmocka_unit_test(test_checksum_flags_split_sessions),
		cmocka_unit_test(test_completion_every_n),
		cmocka_unit_test(test_inline_fast_sessions),
		cmocka_unit_test(test_inline_fast_and_others),
		cmocka_unit_test(test_inline_in_session),
		cmocka_unit_test(test_inline_malformed),
		cmocka_unit_test(test_short_frames),
		cmocka_unit_test(test_fallback_send),
		cmocka_unit_test(test_send_index_past_256),
	};

	mf_args(argc, argv);
	return cmocka_run_group_tests(tests, mf_eal_init, mf_eal_cleanup);
}
