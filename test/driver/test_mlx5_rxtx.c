/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The mlx5 PMD's datapath on sim_mlx5: forwarding a source's stream from
 * one port to the other's sink with zero loss and corruption, every burst
 * size 1..64, ring wraps and the 24-bit consumer-index wrap (the sim's
 * near-wrap start), multi-segment and inline sends, checksum offloads both
 * ways, and the receive flags and packet types. Every test ends with the
 * sim having seen no invalid use and every mbuf back in its pool.
 */

#include "mlx5_fixture.h"

#include <dvp_port_driver.h>

#include "dvp_pmd_mlx5.h"
#include "mlx5_rx.h"
#include "mlx5_tx.h"

#if defined(__SANITIZE_ADDRESS__)
#define FWD_FRAMES (256u * 1024u)
#else
#define FWD_FRAMES (2u * 1024u * 1024u)
#endif

static struct mf f_oob;

/* Forward port 0 -> port 1 until port 1's sink has @p expect frames. */
static void forward(struct mf *f, uint16_t burst, uint64_t expect)
{
	struct dvp_mbuf *pkts[64];
	struct sim_mlx5_sink_stats snk;
	unsigned int idle = 0;

	for (;;) {
		int work = sim_mlx5_step(f->sim);
		uint16_t n = dvp_rx_burst(f->port[0], 0, pkts, burst);

		if (n > 0)
			mf_tx_all(f, f->port[1], 0, pkts, n);
		if (work == 0 && n == 0) {
			/* Push what is still in the tx ring out, with a zero-length burst. */
			dvp_tx_burst(f->port[1], 0, pkts, 0);
			assert_int_equal(sim_mlx5_sink_stats(f->sim, 1, &snk), 0);
			if (snk.received >= expect)
				break;
			assert_true(++idle < 1000);
		} else {
			idle = 0;
		}
	}
}

static void check_sink(struct mf *f, uint64_t frames)
{
	struct sim_mlx5_sink_stats snk;
	struct sim_mlx5_source_stats src;

	assert_int_equal(sim_mlx5_source_stats(f->sim, 0, &src), 0);
	assert_int_equal(sim_mlx5_sink_stats(f->sim, 1, &snk), 0);
	assert_int_equal(src.sent, frames);
	assert_int_equal(snk.received, frames);
	assert_int_equal(snk.bytes, src.bytes);
	assert_int_equal(snk.lost, 0);
	assert_int_equal(snk.corrupt, 0);
	assert_int_equal(snk.reordered, 0);
	assert_int_equal(snk.duplicates, 0);
	assert_int_equal(snk.foreign, 0);
}

static void test_forward_stream(void **state)
{
	static const uint16_t sizes[] = { 60, 1514, 128, 60, 300 };
	struct dvp_port_stats st0, st1;
	struct mf f;

	(void)state;
	mf_open(&f, "ports=2,mode=step,cable=traffic,gen=off", 8192);
	mf_port_start(&f, 0, 1, 1, NULL, 1024);
	mf_port_start(&f, 1, 1, 1, NULL, 1024);
	mf_source(&f, 0, FWD_FRAMES, 64, sizes, DVP_DIM(sizes));
	forward(&f, 32, FWD_FRAMES);
	check_sink(&f, FWD_FRAMES);
	assert_int_equal(dvp_stats_get(f.port[0], &st0), 0);
	assert_int_equal(dvp_stats_get(f.port[1], &st1), 0);
	assert_int_equal(st0.ipackets, FWD_FRAMES);
	assert_int_equal(st1.opackets, FWD_FRAMES);
	assert_int_equal(st0.ierrors + st1.oerrors + st0.rx_nombuf, 0);
	assert_int_equal(st0.ibytes, st1.obytes);
	mf_close(&f);
}

/*
 * Receive completions with another responder opcode than RESP_SEND
 * (RESP_WR_IMM, RESP_SEND_IMM, RESP_SEND_INV: the sim's rx_opcode=) are
 * receives all the same, as DPDK's check_cqe takes every opcode but the
 * error ones: every frame forwarded intact, in order, on every rx path
 * (compressed sessions and the vector burst included), no error counted,
 * no queue reset.
 */
static void test_rx_other_opcodes(void **state)
{
	static const uint16_t sizes[] = { 60, 1514, 128 };
	static const char *const args[] = {
		"ports=2,mode=step,cable=traffic,gen=off,rx_opcode=1",
		"ports=2,mode=step,cable=traffic,gen=off,rx_opcode=3",
		"ports=2,mode=step,cable=traffic,gen=off,rx_opcode=4",
	};

	(void)state;
	for (unsigned int c = 0; c < DVP_DIM(args); c++) {
		struct sim_mlx5_dev_stats ds;
		struct dvp_port_stats st;
		uint64_t restarts = 1;
		struct mf f;

		mf_open(&f, args[c], 2048);
		mf_port_start(&f, 0, 1, 1, NULL, 256);
		mf_port_start(&f, 1, 1, 1, NULL, 256);
		mf_source(&f, 0, 3000, 8, sizes, DVP_DIM(sizes));
		forward(&f, 32, 3000);
		check_sink(&f, 3000);
		assert_int_equal(dvp_stats_get(f.port[0], &st), 0);
		assert_int_equal(st.ipackets, 3000);
		assert_int_equal(st.ierrors, 0);
		assert_int_equal(dvp_xstats_get_by_name(f.port[0], "rx_q0_restarts", &restarts), 0);
		assert_int_equal(restarts, 0);
		/* Compressed sessions among them (rxq_cqe_comp_en's default). */
		assert_int_equal(sim_mlx5_dev_stats(f.sim, &ds), 0);
		assert_true(ds.cqe_sessions > 0);
		mf_close(&f);
	}
}

/*
 * An rx queue that is not polled runs out of posted WQEs: the device drops
 * what comes next (out_of_buffer) and the PMD reports each drop as imissed,
 * read from the device through the glue. Received + imissed = sent.
 */
static void test_imissed_out_of_buffer(void **state)
{
	static const uint16_t sizes[] = { 60 };
	struct sim_mlx5_source_stats src;
	struct sim_mlx5_port_stats ps;
	struct dvp_port_stats st;
	struct dvp_mbuf *pkts[64];
	uint64_t got = 0;
	uint16_t n;

	(void)state;
	/* pause=off: a full queue drops, as a port without flow control does. */
	mf_open(&f_oob, "ports=1,mode=step,cable=traffic,gen=off,pause=off", 2048);
	mf_port_start(&f_oob, 0, 1, 1, NULL, 256);
	mf_source(&f_oob, 0, 1000, 1, sizes, DVP_DIM(sizes));
	sim_mlx5_step_idle(f_oob.sim, 100000);
	assert_int_equal(sim_mlx5_source_stats(f_oob.sim, 0, &src), 0);
	assert_int_equal(src.sent, 1000);
	assert_int_equal(sim_mlx5_port_stats(f_oob.sim, 0, &ps), 0);
	assert_true(ps.rx_out_of_buffer > 0);
	assert_int_equal(dvp_stats_get(f_oob.port[0], &st), 0);
	assert_int_equal(st.imissed, ps.rx_out_of_buffer);
	while ((n = dvp_rx_burst(f_oob.port[0], 0, pkts, 64)) > 0) {
		got += n;
		dvp_pktmbuf_free_bulk(pkts, n);
	}
	assert_int_equal(dvp_stats_get(f_oob.port[0], &st), 0);
	assert_int_equal(st.ipackets, got);
	assert_int_equal(st.ipackets + st.imissed, 1000);
	/*
	 * A reset starts imissed from the device's count now, and the queue's
	 * counters from a baseline: it never writes them (their lcore may be
	 * bursting), reads subtract it.
	 */
	assert_int_equal(dvp_stats_reset(f_oob.port[0]), 0);
	assert_int_equal(dvp_stats_get(f_oob.port[0], &st), 0);
	assert_int_equal(st.imissed, 0);
	assert_int_equal(st.ipackets + st.ibytes + st.q_ipackets[0], 0);
	assert_int_equal(((struct mlx5_rxq *)dvp_port_get(f_oob.port[0])->rxqs[0])->st.packets,
			 got);
	mf_close(&f_oob);
}

static void test_every_burst_size(void **state)
{
	static const uint16_t sizes[] = { 60, 200 };
	uint64_t total = 0;
	struct mf f;

	(void)state;
	mf_open(&f, "ports=2,mode=step,cable=traffic,gen=off", 2048);
	mf_port_start(&f, 0, 1, 1, NULL, 256);
	mf_port_start(&f, 1, 1, 1, NULL, 256);
	for (uint16_t b = 1; b <= 64; b++) {
		uint64_t n = 5u * b + 300; /* more than a ring: every size wraps it */

		assert_int_equal(sim_mlx5_sink_reset(f.sim, 1), 0);
		mf_source(&f, 0, n, 3, sizes, DVP_DIM(sizes));
		forward(&f, b, n);
		check_sink(&f, n);
		total += n;
	}
	mf_close(&f);
	assert_true(total > 64 * 300);
}

/* The CQs start 64 below 2^24 and the WQs 64 below 2^16: both wrap early in the run. */
static void test_index_wrap(void **state)
{
	static const uint16_t sizes[] = { 60 };
	struct mlx5_rxq *rxq;
	struct mlx5_txq *txq;
	struct mf f;

	(void)state;
	mf_open(&f, "ports=2,mode=step,cable=traffic,gen=off,near_wrap=24", 2048);
	mf_port_start(&f, 0, 1, 1, NULL, 128);
	mf_port_start(&f, 1, 1, 1, NULL, 128);
	rxq = dvp_port_get(f.port[0])->rxqs[0];
	txq = dvp_port_get(f.port[1])->txqs[0];
	assert_int_equal(rxq->cq_ci, 0xffffc0);
	assert_int_equal(rxq->rq_ci & 0xffff, 0xffc0);
	mf_source(&f, 0, 20000, 8, sizes, 1);
	forward(&f, 32, 20000);
	check_sink(&f, 20000);
	/* The 32-bit counters went past the device's 24 and 16 bits. */
	assert_true(rxq->cq_ci > 0x1000000);
	assert_true(rxq->rq_ci > 0x10000);
	assert_true(txq->wqe_ci > 0x10000);
	mf_close(&f);
}

/* Send frames on port 0 to its own sink: single, chained, inlined whole (the default 290). */
static void test_multiseg_and_inline(void **state)
{
	struct dvp_port_conf conf;
	struct sim_mlx5_sink_stats snk;
	struct dvp_mbuf *pkts[16];
	uint64_t inlined, seq = 0;
	struct mf f;

	(void)state;
	memset(&conf, 0, sizeof(conf));
	conf.txmode.offloads = DVP_TX_OFFLOAD_MULTI_SEGS;
	mf_open(&f, "ports=1,mode=step,cable=traffic,gen=off", 4096);
	/* Eight tx queues: txqs_min_inline's default, so frames up to 290 bytes go inline. */
	mf_port_start(&f, 0, 1, 8, &conf, 256);
	for (int round = 0; round < 200; round++) {
		static const uint32_t lens[] = { 60, 128, 129, 1514, 600, 64, 1000, 61 };
		static const uint32_t segs[] = { 2048, 2048, 2048, 2048, 100, 10, 333, 16 };
		uint16_t n = 0;

		for (unsigned int i = 0; i < DVP_DIM(lens); i++)
			pkts[n++] = mf_frame(&f, lens[i], 0, seq++, segs[i]);
		mf_tx_all(&f, f.port[0], 0, pkts, n);
		sim_mlx5_step(f.sim);
	}
	dvp_tx_burst(f.port[0], 0, pkts, 0);
	sim_mlx5_step_idle(f.sim, 100);
	assert_int_equal(sim_mlx5_sink_stats(f.sim, 0, &snk), 0);
	assert_int_equal(snk.received, seq);
	assert_int_equal(snk.lost + snk.corrupt + snk.reordered + snk.duplicates, 0);
	assert_int_equal(dvp_xstats_get_by_name(f.port[0], "tx_q0_inlined", &inlined), 0);
	assert_int_equal(inlined, 5 * 200); /* 60, 128, 129, 64 and 61 bytes, whole */
	mf_close(&f);
}

/*
 * Frames of two pools interleaved, some shared with the application (a
 * reference count of 2): each comes back to its own pool, the shared ones
 * only when the application drops its reference too.
 */
static void test_tx_shared_and_two_pools(void **state)
{
	struct sim_mlx5_sink_stats snk;
	struct dvp_mbuf *pkts[32], *kept[400];
	struct dvp_mempool *other;
	unsigned int nkept = 0;
	uint64_t seq = 0;
	struct mf f;

	(void)state;
	mf_open(&f, "ports=1,mode=step,cable=traffic,gen=off", 1024);
	mf_port_start(&f, 0, 1, 1, NULL, 256);
	other = dvp_pktmbuf_pool_create("other2", 1024, 64, 0, DVP_MBUF_DEFAULT_BUF_SIZE,
					DVP_SOCKET_ANY);
	assert_non_null(other);
	assert_int_equal(dvp_pmd_mlx5_mempool_register(other), 0);
	for (int round = 0; round < 100; round++) {
		for (uint16_t i = 0; i < 32; i++) {
			struct dvp_mempool *mp = (round + i / 8) % 3 == 0 ? other : f.mp;
			uint8_t dst[6] = { 0x02, 0, 0, 0, 0, 9 };

			pkts[i] = dvp_pktmbuf_alloc(mp);
			assert_non_null(pkts[i]);
			sim_mlx5_frame_build(dvp_pktmbuf_append(pkts[i], 200), 200, 0, seq++, dst);
			if ((round * 32 + i) % 13 == 0 && nkept < DVP_DIM(kept)) {
				dvp_mbuf_refcnt_update(pkts[i], 1);
				kept[nkept++] = pkts[i];
			}
		}
		mf_tx_all(&f, f.port[0], 0, pkts, 32);
		sim_mlx5_step(f.sim);
	}
	dvp_tx_burst(f.port[0], 0, pkts, 0);
	sim_mlx5_step_idle(f.sim, 100);
	assert_int_equal(sim_mlx5_sink_stats(f.sim, 0, &snk), 0);
	assert_int_equal(snk.received, seq);
	assert_int_equal(snk.corrupt + snk.lost, 0);
	assert_int_equal(dvp_port_stop(f.port[0]), 0);
	/* The port gave back its references; the application still holds these. */
	assert_int_equal(dvp_pktmbuf_pool_in_use(f.mp) + dvp_pktmbuf_pool_in_use(other), nkept);
	for (unsigned int k = 0; k < nkept; k++) {
		assert_int_equal(dvp_mbuf_refcnt_read(kept[k]), 1);
		dvp_pktmbuf_free(kept[k]);
	}
	assert_int_equal(dvp_pktmbuf_pool_in_use(other), 0);
	mf_close(&f);
	dvp_mempool_free(other);
}

/* Zeroed checksums, filled by the device on request: the sink sees them right. */
static void test_tx_checksum_offload(void **state)
{
	struct dvp_port_conf conf;
	struct sim_mlx5_sink_stats snk;
	struct dvp_mbuf *pkts[32];
	struct mf f;

	(void)state;
	memset(&conf, 0, sizeof(conf));
	conf.txmode.offloads = DVP_TX_OFFLOAD_IPV4_CKSUM | DVP_TX_OFFLOAD_UDP_CKSUM;
	mf_open(&f, "ports=1,mode=step,cable=traffic,gen=off", 1024);
	mf_port_start(&f, 0, 1, 1, &conf, 256);
	for (uint16_t i = 0; i < 32; i++) {
		uint8_t *p;

		pkts[i] = mf_frame(&f, 100, 1, i, 2048);
		p = dvp_pktmbuf_mtod(pkts[i], uint8_t *);
		memset(p + 24, 0, 2); /* IPv4 header checksum */
		memset(p + 40, 0xa5, 2); /* UDP checksum, wrong */
		pkts[i]->ol_flags =
			DVP_MBUF_F_TX_IPV4 | DVP_MBUF_F_TX_IP_CKSUM | DVP_MBUF_F_TX_UDP_CKSUM;
		pkts[i]->tx.l2_len = 14;
		pkts[i]->tx.l3_len = 20;
	}
	mf_tx_all(&f, f.port[0], 0, pkts, 32);
	sim_mlx5_step_idle(f.sim, 100);
	assert_int_equal(sim_mlx5_sink_stats(f.sim, 0, &snk), 0);
	assert_int_equal(snk.received, 32);
	assert_int_equal(snk.corrupt, 0);
	mf_close(&f);
}

/* Receive flags: checksum verdicts, packet types, RSS hash flag, port, lengths. */
static void test_rx_flags(void **state)
{
	struct dvp_port_conf conf;
	struct dvp_ether_addr mac;
	struct dvp_mbuf *m[5];
	uint8_t frame[256];
	struct mf f;

	(void)state;
	memset(&conf, 0, sizeof(conf));
	conf.rxmode.offloads = DVP_RX_OFFLOAD_CHECKSUM;
	mf_open(&f, "ports=1,mode=step", 256);
	mf_port_start(&f, 0, 1, 1, &conf, 64);
	assert_int_equal(dvp_macaddr_get(f.port[0], &mac), 0);
	assert_int_equal(sim_mlx5_frame_build(frame, 200, 2, 7, mac.addr_bytes), 200);
	assert_int_equal(sim_mlx5_inject(f.sim, 0, frame, 200), SIM_MLX5_RX_DELIVERED);
	frame[24] ^= 0xff; /* bad IPv4 header checksum */
	assert_int_equal(sim_mlx5_inject(f.sim, 0, frame, 200), SIM_MLX5_RX_DELIVERED);
	frame[24] ^= 0xff;
	frame[100] ^= 0x01; /* bad UDP checksum */
	assert_int_equal(sim_mlx5_inject(f.sim, 0, frame, 200), SIM_MLX5_RX_DELIVERED);
	frame[100] ^= 0x01;
	/* No UDP checksum, as IPv4 allows: a good frame the device verifies nothing of. */
	frame[40] = frame[41] = 0;
	assert_int_equal(sim_mlx5_inject(f.sim, 0, frame, 200), SIM_MLX5_RX_DELIVERED);
	frame[0] = 0x02; /* another unicast address: no rule takes it */
	frame[5] ^= 0x55;
	assert_int_equal(sim_mlx5_inject(f.sim, 0, frame, 200), SIM_MLX5_RX_NO_FLOW);
	assert_int_equal(dvp_rx_burst(f.port[0], 0, m, 5), 4);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(m[i]->pkt_len, 200);
		assert_int_equal(m[i]->data_len, 200);
		assert_int_equal(m[i]->nb_segs, 1);
		assert_int_equal(m[i]->port, f.port[0]);
		assert_null(m[i]->next);
		assert_int_equal(m[i]->packet_type, DVP_PTYPE_L2_ETHER |
							    DVP_PTYPE_L3_IPV4_EXT_UNKNOWN |
							    DVP_PTYPE_L4_UDP);
		assert_int_equal(dvp_pktmbuf_mtod(m[i], uint8_t *)[0], mac.addr_bytes[0]);
	}
	/*
	 * A verdict the CQE gives (L3_OK, L4_OK) is GOOD; a clear bit says the
	 * device did not vouch for it, which is UNKNOWN, never BAD (DPDK's
	 * rxq_cq_to_ol_flags, mlx5e's CHECKSUM_NONE): the software checks it.
	 */
	assert_int_equal(m[0]->ol_flags, DVP_MBUF_F_RX_IP_CKSUM_GOOD | DVP_MBUF_F_RX_L4_CKSUM_GOOD);
	assert_int_equal(m[1]->ol_flags & DVP_MBUF_F_RX_IP_CKSUM_MASK,
			 DVP_MBUF_F_RX_IP_CKSUM_UNKNOWN);
	assert_int_equal(m[2]->ol_flags,
			 DVP_MBUF_F_RX_IP_CKSUM_GOOD | DVP_MBUF_F_RX_L4_CKSUM_UNKNOWN);
	assert_int_equal(m[3]->ol_flags,
			 DVP_MBUF_F_RX_IP_CKSUM_GOOD | DVP_MBUF_F_RX_L4_CKSUM_UNKNOWN);
	dvp_pktmbuf_free_bulk(m, 4);
	/* Promiscuous: the foreign frame is taken now. */
	assert_int_equal(dvp_promiscuous_enable(f.port[0]), 0);
	assert_int_equal(sim_mlx5_inject(f.sim, 0, frame, 200), SIM_MLX5_RX_DELIVERED);
	assert_int_equal(dvp_rx_burst(f.port[0], 0, m, 5), 1);
	dvp_pktmbuf_free(m[0]);
	assert_int_equal(dvp_promiscuous_disable(f.port[0]), 0);
	assert_int_equal(sim_mlx5_inject(f.sim, 0, frame, 200), SIM_MLX5_RX_NO_FLOW);
	mf_close(&f);
}

/* Stop and start again with traffic in flight: nothing leaks, traffic resumes. */
static void test_restart_port(void **state)
{
	static const uint16_t sizes[] = { 64 };
	struct dvp_mbuf *pkts[32];
	struct mf f;

	(void)state;
	mf_open(&f, "ports=2,mode=step,cable=traffic,gen=off", 2048);
	mf_port_start(&f, 0, 1, 1, NULL, 256);
	mf_port_start(&f, 1, 1, 1, NULL, 256);
	mf_source(&f, 0, 0, 4, sizes, 1);
	for (int i = 0; i < 50; i++) {
		uint16_t n;

		sim_mlx5_step(f.sim);
		n = dvp_rx_burst(f.port[0], 0, pkts, 32);
		if (n)
			mf_tx_all(&f, f.port[1], 0, pkts, n);
	}
	for (int k = 0; k < 3; k++) {
		assert_int_equal(dvp_port_stop(f.port[0]), 0);
		assert_int_equal(dvp_port_stop(f.port[1]), 0);
		assert_int_equal(dvp_pktmbuf_pool_in_use(f.mp), 0);
		assert_int_equal(dvp_port_start(f.port[0]), 0);
		assert_int_equal(dvp_port_start(f.port[1]), 0);
		for (int i = 0; i < 50; i++) {
			uint16_t n;

			sim_mlx5_step(f.sim);
			n = dvp_rx_burst(f.port[0], 0, pkts, 32);
			if (n)
				mf_tx_all(&f, f.port[1], 0, pkts, n);
		}
	}
	assert_int_equal(sim_mlx5_source_stop(f.sim, 0), 0);
	mf_close(&f);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rx_flags),
		cmocka_unit_test(test_forward_stream),
		cmocka_unit_test(test_rx_other_opcodes),
		cmocka_unit_test(test_imissed_out_of_buffer),
		cmocka_unit_test(test_every_burst_size),
		cmocka_unit_test(test_index_wrap),
		cmocka_unit_test(test_multiseg_and_inline),
		cmocka_unit_test(test_tx_checksum_offload),
		cmocka_unit_test(test_tx_shared_and_two_pools),
		cmocka_unit_test(test_restart_port),
	};

	mf_args(argc, argv);
	return cmocka_run_group_tests(tests, mf_eal_init, mf_eal_cleanup);
}
