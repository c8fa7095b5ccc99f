/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The mlx5 PMD's rx_burst and tx_burst alone, at a burst of 32, on a
 * sim_mlx5 device in step mode: the device runs only between the measured
 * calls (filling the rx CQ by injecting frames, taking the sent WQEs and
 * writing their completions), so what is measured is the PMD's own work.
 *
 *   bench_mlx5_burst rx|rxh|rxvec|rxcomp|rxveccomp|rxmprq|tx|txff|txinl|txinlsse|txsend|cal
 *                    [rounds]
 *
 * rx and rxh: the scalar burst (rx_vec_en=0); rxvec: the vector one (the
 * default where the CPU has SSE4.2); rxh: with DVP_RX_OFFLOAD_RSS_HASH
 * (the hash copied into each mbuf). Each receives one frame per engine
 * pass, so plain CQEs. rxcomp (scalar) and rxveccomp (vector): the device
 * receives each round's frames in one engine pass (sim_mlx5_inject_burst),
 * so it writes compressed CQE sessions of 64 (rxq_cqe_comp_en's default
 * hash format), which the burst decompresses.
 * txff: with DVP_TX_OFFLOAD_MBUF_FAST_FREE; tx and txff take the enhanced
 * multi-packet send path the device reports; txinl: the same with frames
 * inline in the session (txqs_min_inline=0, so txq_inline_mpw's default
 * 268 holds with one queue; the AVX2 burst where the CPU has it);
 * txinlsse: the same held to SSE (--force-max-simd-bitwidth=128); txsend:
 * a device without it (empw=off), so
 * one SEND WQE per packet; rxmprq: a multi-packet RQ (mprq_en=1,
 * rxqs_min_mprq=1: 16 WQEs of 64 strides of 2048 bytes), each frame copied
 * into an mbuf.
 *
 * "cal" runs the measuring harness alone (the TSC reads and callgrind's
 * toggles, as many times as a run's bursts), for the script to subtract.
 *
 * Natively it measures TSC cycles of the burst calls; under callgrind
 * (valgrind --tool=callgrind --collect-atstart=no) it turns collection on
 * only around those calls, so the run's total Ir is the PMD's instructions.
 * It prints "packets=<n> cycles=<n> bus_bytes=<n>" (the device's CQE and
 * WQE bytes over the whole run, from its bus counters);
 * bench_mlx5_burst.sh turns both runs into `PERF rx_burst
 * instr_per_pkt=<n> cycles_per_pkt=<n> bus_bytes_per_pkt=<n>`.
 */

#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <valgrind/callgrind.h>

#include <dvp_cycles.h>
#include <dvp_eal.h>
#include <dvp_lcore.h>
#include <dvp_mbuf.h>
#include <dvp_port.h>
#include <dvp_sim_mlx5.h>

#include "bench_common.h"

#define BURST 32
#define RING 1024
#define VDEV_NAME "sim_mlx5_0"

static void die(const char *what)
{
	fprintf(stderr, "bench_mlx5_burst: %s failed\n", what);
	exit(1);
}

/* What the device moved over its bus for the port: CQEs written, WQEs fetched. */
static uint64_t bus_bytes(struct sim_mlx5_dev *sim)
{
	struct sim_mlx5_port_stats ps;

	if (sim_mlx5_port_stats(sim, 0, &ps) != 0)
		die("sim_mlx5_port_stats");
	return ps.bus_cqe_bytes + ps.bus_wqe_bytes;
}

static uint16_t port_open(struct sim_mlx5_dev **sim, struct dvp_mempool **mp, bool fast_free,
			  bool hash, bool send, bool vdev)
{
	struct dvp_port_conf conf;
	uint16_t port;

	/* The device of --vdev (txinl: the PMD's devargs come with it), else made here. */
	if (vdev)
		*sim = sim_mlx5_find(VDEV_NAME);
	else if (sim_mlx5_create(send ? "ports=1,mode=step,cable=traffic,gen=off,empw=off" :
					"ports=1,mode=step,cable=traffic,gen=off",
				 sim) != 0)
		*sim = NULL;
	if (*sim == NULL)
		die("sim_mlx5_create");
	if (dvp_port_get_by_name(sim_mlx5_name(*sim), &port) != 0)
		die("port lookup");
	*mp = dvp_pktmbuf_pool_create("bench", 8192, 256, 0, DVP_MBUF_DEFAULT_BUF_SIZE, 0);
	if (*mp == NULL)
		die("pool");
	memset(&conf, 0, sizeof(conf));
	if (fast_free)
		conf.txmode.offloads = DVP_TX_OFFLOAD_MBUF_FAST_FREE;
	if (hash)
		conf.rxmode.offloads = DVP_RX_OFFLOAD_RSS_HASH;
	if (dvp_port_configure(port, 1, 1, &conf) != 0 ||
	    dvp_rxq_setup(port, 0, RING, DVP_SOCKET_ANY, NULL, *mp) != 0 ||
	    dvp_txq_setup(port, 0, RING, DVP_SOCKET_ANY, NULL) != 0 || dvp_port_start(port) != 0)
		die("port setup");
	return port;
}

/* What the device wrote of CQEs for the port. */
static uint64_t cqe_bytes(struct sim_mlx5_dev *sim)
{
	struct sim_mlx5_port_stats ps;

	if (sim_mlx5_port_stats(sim, 0, &ps) != 0)
		die("sim_mlx5_port_stats");
	return ps.bus_cqe_bytes;
}

/*
 * Rx: each round the device writes RING completions (@p comp: in one pass,
 * so in compressed sessions); the PMD takes them 32 at a time.
 */
static uint64_t bench_rx(uint16_t port, struct sim_mlx5_dev *sim, unsigned int rounds, bool comp,
			 uint64_t *pkts_out)
{
	static const void *frames[RING];
	static size_t lens[RING];
	struct dvp_ether_addr mac;
	struct dvp_mbuf *pkts[BURST];
	uint8_t frame[64];
	uint64_t cycles = 0, total = 0;

	dvp_macaddr_get(port, &mac);
	sim_mlx5_frame_build(frame, 64, 0, 0, mac.addr_bytes);
	for (unsigned int i = 0; i < RING; i++) {
		frames[i] = frame;
		lens[i] = 64;
	}
	for (unsigned int r = 0; r < rounds; r++) {
		if (comp && sim_mlx5_inject_burst(sim, 0, frames, lens, RING, NULL) != RING)
			die("inject_burst");
		for (unsigned int i = 0; !comp && i < RING; i++)
			if (sim_mlx5_inject(sim, 0, frame, 64) != SIM_MLX5_RX_DELIVERED)
				die("inject");
		for (unsigned int b = 0; b < RING / BURST; b++) {
			uint64_t t0, t1;
			uint16_t n;

			CALLGRIND_TOGGLE_COLLECT;
			t0 = dvp_rdtsc();
			n = dvp_rx_burst(port, 0, pkts, BURST);
			t1 = dvp_rdtsc();
			CALLGRIND_TOGGLE_COLLECT;
			if (n != BURST)
				die("rx_burst short");
			cycles += t1 - t0;
			total += n;
			dvp_pktmbuf_free_bulk(pkts, n);
		}
	}
	*pkts_out = total;
	return cycles;
}

/* Tx: 32 frames per call; the device takes them and completes between calls. */
static uint64_t bench_tx(uint16_t port, struct sim_mlx5_dev *sim, struct dvp_mempool *mp,
			 unsigned int rounds, uint64_t *pkts_out)
{
	static const uint8_t dst[6] = { 0x02, 0, 0, 0, 0, 1 };
	struct dvp_mbuf *pkts[BURST];
	uint64_t cycles = 0, total = 0;

	for (unsigned int r = 0; r < rounds; r++) {
		for (unsigned int b = 0; b < RING / BURST; b++) {
			uint64_t t0, t1;
			uint16_t n;

			if (dvp_pktmbuf_alloc_bulk(mp, pkts, BURST) != 0)
				die("alloc");
			for (unsigned int i = 0; i < BURST; i++)
				sim_mlx5_frame_build(dvp_pktmbuf_append(pkts[i], 64), 64, 0, i,
						     dst);
			CALLGRIND_TOGGLE_COLLECT;
			t0 = dvp_rdtsc();
			n = dvp_tx_burst(port, 0, pkts, BURST);
			t1 = dvp_rdtsc();
			CALLGRIND_TOGGLE_COLLECT;
			if (n != BURST)
				die("tx_burst short");
			cycles += t1 - t0;
			total += n;
			sim_mlx5_step(sim);
		}
	}
	*pkts_out = total;
	return cycles;
}

/* The harness without a burst: what the script subtracts from the others. */
static uint64_t bench_cal(unsigned int rounds, uint64_t *pkts_out)
{
	uint64_t cycles = 0;

	for (unsigned int r = 0; r < rounds; r++) {
		for (unsigned int b = 0; b < RING / BURST; b++) {
			uint64_t t0, t1;

			CALLGRIND_TOGGLE_COLLECT;
			t0 = dvp_rdtsc();
			__asm__ volatile("" ::: "memory");
			t1 = dvp_rdtsc();
			CALLGRIND_TOGGLE_COLLECT;
			cycles += t1 - t0;
		}
	}
	*pkts_out = (uint64_t)rounds * RING;
	return cycles;
}

int main(int argc, char **argv)
{
	char cpu[16], allow[96] = VDEV_NAME ",txqs_min_inline=0",
		      vdev_args[] = "sim_mlx5,ports=1,mode=step,cable=traffic,gen=off",
		      *eal[] = { argv[0], "--no-huge", "-m",	 "256",	    "-l", cpu,
				 "-a",	  allow,       "--vdev", vdev_args, NULL, NULL };
	unsigned int rounds = argc > 2 ? (unsigned int)atoi(argv[2]) : 200;
	bool rxh = argc > 1 && strcmp(argv[1], "rxh") == 0;
	bool vec = argc > 1 && strcmp(argv[1], "rxvec") == 0;
	bool veccomp = argc > 1 && strcmp(argv[1], "rxveccomp") == 0;
	bool comp = veccomp || (argc > 1 && strcmp(argv[1], "rxcomp") == 0);
	bool mprq = argc > 1 && strcmp(argv[1], "rxmprq") == 0;
	bool rx = rxh || vec || comp || mprq || (argc > 1 && strcmp(argv[1], "rx") == 0);
	bool ff = argc > 1 && strcmp(argv[1], "txff") == 0;
	bool cal = argc > 1 && strcmp(argv[1], "cal") == 0;
	bool send = argc > 1 && strcmp(argv[1], "txsend") == 0;
	bool inl_sse = argc > 1 && strcmp(argv[1], "txinlsse") == 0;
	bool inl = inl_sse || (argc > 1 && strcmp(argv[1], "txinl") == 0);
	struct sim_mlx5_dev *sim;
	struct dvp_mempool *mp;
	uint64_t cycles, pkts = 0, best = UINT64_MAX, all_pkts = 0, bus0, cqe0;
	uint16_t port;

	if (argc < 2 || (!rx && !ff && !cal && !send && !inl && strcmp(argv[1], "tx") != 0)) {
		fprintf(stderr,
			"usage: %s rx|rxh|rxvec|rxcomp|rxveccomp|rxmprq|tx|txff|txinl|txinlsse|txsend|cal "
			"[rounds]\n",
			argv[0]);
		return 2;
	}
	snprintf(cpu, sizeof(cpu), "%d", bench_first_cpu());
	/* The device of --vdev takes the PMD's devargs of -a: the rx path's, or txinl's. */
	if (mprq)
		snprintf(allow, sizeof(allow), VDEV_NAME ",mprq_en=1,rxqs_min_mprq=1");
	else if (rx)
		snprintf(allow, sizeof(allow), VDEV_NAME ",rx_vec_en=%d", vec || veccomp);
	/* txinlsse: the inline burst with SSE moves, where the CPU has AVX2 too. */
	if (inl_sse)
		eal[10] = "--force-max-simd-bitwidth=128";
	if (dvp_eal_init(inl || rx ? 10 + inl_sse : 6, eal) < 0)
		die("dvp_eal_init");
	port = port_open(&sim, &mp, ff, rxh, send, inl || rx);
	bus0 = bus_bytes(sim);
	cqe0 = cqe_bytes(sim);
	/*
	 * Under callgrind one run, every instruction of it counted; natively a
	 * warm-up round, then the best of five runs (the machine is shared).
	 */
	for (int k = RUNNING_ON_VALGRIND ? 1 : 0; k < (RUNNING_ON_VALGRIND ? 2 : 6); k++) {
		unsigned int nr = k == 0 ? 1 : rounds;

		cycles = cal ? bench_cal(nr, &pkts) :
			 rx  ? bench_rx(port, sim, nr, comp, &pkts) :
			       bench_tx(port, sim, mp, nr, &pkts);
		if (k > 0)
			best = DVP_MIN(best, cycles * 1000 / pkts);
		all_pkts += pkts;
	}
	printf("packets=%" PRIu64 " cycles_x1000=%" PRIu64 " bus_bytes_x1000=%" PRIu64
	       " cqe_bytes_x1000=%" PRIu64 "\n",
	       pkts, best, cal ? 0 : (bus_bytes(sim) - bus0) * 1000 / all_pkts,
	       cal ? 0 : (cqe_bytes(sim) - cqe0) * 1000 / all_pkts);
	if (dvp_port_close(port) != 0 || sim_mlx5_invalid_total(sim) != 0)
		die("close");
	if (!inl && !rx)
		sim_mlx5_destroy(sim); /* a --vdev's device goes with the EAL */
	if (dvp_pktmbuf_pool_in_use(mp) != 0)
		die("mbufs back");
	dvp_mempool_free(mp);
	dvp_eal_cleanup();
	return 0;
}
