/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * What a forwarded packet costs end to end natively: dvp-fwd's io
 * forwarding (fwd_io_pass() of apps/fwd/fwd_engine.c, compiled in: the
 * rx_pass() its poll loop inlines) between ports 0 and 1 of a sim_mlx5 in
 * step mode, burst 32, 1024 rx and tx descriptors, a pool of 8192 mbufs
 * with a 256-mbuf lcore cache (dvp-fwd's).
 *
 *   bench_fwd_e2e fwd|cal [frames per port]
 *
 * Each port's traffic source sends the frames (60 bytes, one flow, the
 * sim's defaults); each port's sink takes what the port sends. Every
 * iteration runs sim_mlx5_step() (the device's work: the sends of the last
 * pass, their completions, the sources' next frames) and then one
 * forwarding pass over both streams; only the pass is measured (TSC cycles
 * natively, instructions under callgrind --collect-atstart=no, which
 * collects only between the toggles around it). "cal" runs the same
 * iterations with the harness alone (the TSC reads and the toggles), for
 * bench_fwd_e2e.sh to subtract.
 *
 * Full bursts: before the first pass the device is stepped until the rx
 * rings are full (flow control holds back what they have no room for),
 * and each step after a pass offers 64 frames a port where the pass took
 * 32, so every pass receives 32 on each port until the sources are done
 * and the rings drain, 32 a pass, to the last frame (the count is rounded
 * up to a multiple of 32). A pass that brings fewer than 64 fails the
 * run: no empty or short poll is in the figure.
 *
 * After each run every sink must have all its port's frames, intact and in
 * order; after the last, the ports are closed and the pool must have every
 * mbuf back. Prints "packets=<n> cycles_x1000=<n>" (natively the best of
 * five runs after a warm-up; under callgrind one run).
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

#include "fwd.h"

#define BURST 32
#define RING 1024
#define NB_MBUFS 8192
#define MBUF_CACHE 256

struct bench {
	struct sim_mlx5_dev *sim;
	struct dvp_mempool *mp;
	uint16_t port[2];
	unsigned int sim_port[2];
	struct fwd_stream fs[2];
	struct fwd_stream *streams[2];
	struct fwd_lcore lc;
};

static void die(const char *what)
{
	fprintf(stderr, "bench_fwd_e2e: %s failed\n", what);
	exit(1);
}

static void setup(struct bench *b)
{
	struct dvp_port_conf conf;
	unsigned int n = 0;
	uint16_t p;

	if (sim_mlx5_create("ports=2,mode=step,cable=traffic,gen=off", &b->sim) != 0)
		die("sim_mlx5_create");
	DVP_PORT_FOREACH(p) {
		struct sim_mlx5_dev *dev;
		unsigned int sp;

		if (sim_mlx5_port_of(p, &dev, &sp) == 0 && dev == b->sim && n < 2) {
			b->port[n] = p;
			b->sim_port[n++] = sp;
		}
	}
	if (n != 2)
		die("finding the sim's two ports");
	b->mp = dvp_pktmbuf_pool_create("bench_e2e", NB_MBUFS, MBUF_CACHE, 0,
					DVP_MBUF_DEFAULT_BUF_SIZE, 0);
	if (b->mp == NULL)
		die("pool");
	memset(&conf, 0, sizeof(conf));
	for (unsigned int i = 0; i < 2; i++)
		if (dvp_port_configure(b->port[i], 1, 1, &conf) != 0 ||
		    dvp_rxq_setup(b->port[i], 0, RING, DVP_SOCKET_ANY, NULL, b->mp) != 0 ||
		    dvp_txq_setup(b->port[i], 0, RING, DVP_SOCKET_ANY, NULL) != 0 ||
		    dvp_port_start(b->port[i]) != 0)
			die("port setup");
	/* Two io streams, 0 -> 1 and 1 -> 0, on one lcore, as dvp-fwd sets them up. */
	for (unsigned int i = 0; i < 2; i++) {
		struct fwd_stream *fs = &b->fs[i];

		fs->rx_port = b->port[i];
		fs->tx_port = b->port[1 - i];
		fs->burst = BURST;
		fs->mode = FWD_MODE_IO;
		fs->tx_retry = FWD_TX_RETRY_FOREVER;
		fs->pool = b->mp;
		b->streams[i] = fs;
	}
	b->lc.nb_streams = 2;
	b->lc.streams = b->streams;
	b->lc.rx_mode = FWD_RX_POLL;
}

static void sources_start(struct bench *b, uint64_t frames)
{
	struct sim_mlx5_source_conf sc = { .sizes = { 60 }, .nsizes = 1, .flows = 1 };

	sc.count = frames;
	for (unsigned int i = 0; i < 2; i++)
		if (sim_mlx5_sink_reset(b->sim, b->sim_port[i]) != 0 ||
		    sim_mlx5_source_set(b->sim, b->sim_port[i], &sc) != 0 ||
		    sim_mlx5_source_start(b->sim, b->sim_port[i]) != 0)
			die("source start");
}

/* Every frame of each source forwarded and at the other port's sink, intact. */
static void check_sinks(struct bench *b, uint64_t frames)
{
	sim_mlx5_step_idle(b->sim, 1000);
	for (unsigned int i = 0; i < 2; i++) {
		struct sim_mlx5_sink_stats k;

		if (sim_mlx5_sink_stats(b->sim, b->sim_port[i], &k) != 0 || k.received != frames ||
		    k.lost != 0 || k.reordered != 0 || k.duplicates != 0 || k.corrupt != 0 ||
		    k.foreign != 0) {
			fprintf(stderr,
				"bench_fwd_e2e: sink %u: %" PRIu64 " of %" PRIu64 " frames\n", i,
				k.received, frames);
			die("sink check");
		}
	}
}

/* One run of @p frames per port; @return the TSC cycles of the passes. */
static uint64_t run(struct bench *b, uint64_t frames, bool cal, uint64_t *pkts_out)
{
	uint64_t cycles = 0, total = 0, want = 2 * frames;

	if (!cal) {
		sources_start(b, frames);
		/* Fill the rx rings: stepping stops doing work once flow control holds the rest. */
		sim_mlx5_step_idle(b->sim, 4 * RING);
	}
	while (total < want) {
		uint64_t t0, t1;
		uint32_t got;

		if (!cal)
			sim_mlx5_step(b->sim);
		CALLGRIND_TOGGLE_COLLECT;
		t0 = dvp_rdtsc();
		if (cal) {
			__asm__ volatile("" ::: "memory");
			got = 2 * BURST;
		} else {
			got = fwd_io_pass(&b->lc);
		}
		t1 = dvp_rdtsc();
		CALLGRIND_TOGGLE_COLLECT;
		if (got != 2 * BURST) {
			fprintf(stderr, "bench_fwd_e2e: a pass brought %u packets, not %u\n", got,
				2 * BURST);
			die("full bursts");
		}
		cycles += t1 - t0;
		total += got;
	}
	if (!cal)
		check_sinks(b, frames);
	*pkts_out = total;
	return cycles;
}

int main(int argc, char **argv)
{
	char cpu[16], *eal[] = { argv[0], "--no-huge", "-m", "256", "-l", cpu, NULL };
	bool cal = argc > 1 && strcmp(argv[1], "cal") == 0;
	uint64_t frames = argc > 2 ? strtoull(argv[2], NULL, 10) : 32768;
	uint64_t cycles, pkts = 0, best = UINT64_MAX;
	/* Static: the streams and the lcore are cache-aligned, as dvp-fwd allocates them. */
	static struct bench b;

	if (argc < 2 || (!cal && strcmp(argv[1], "fwd") != 0) || frames == 0) {
		fprintf(stderr, "usage: %s fwd|cal [frames per port]\n", argv[0]);
		return 2;
	}
	frames = DVP_ALIGN_CEIL(frames, BURST);
	snprintf(cpu, sizeof(cpu), "%d", bench_first_cpu());
	if (dvp_eal_init(6, eal) < 0)
		die("dvp_eal_init");
	setup(&b);
	/*
	 * Under callgrind one run, every instruction of the passes counted;
	 * natively a warm-up run, then the best of five (the machine is shared).
	 */
	for (int k = RUNNING_ON_VALGRIND ? 1 : 0; k < (RUNNING_ON_VALGRIND ? 2 : 6); k++) {
		cycles = run(&b, frames, cal, &pkts);
		if (k > 0)
			best = DVP_MIN(best, cycles * 1000 / pkts);
	}
	printf("packets=%" PRIu64 " cycles_x1000=%" PRIu64 "\n", pkts, best);
	for (unsigned int i = 0; i < 2; i++)
		if (dvp_port_stop(b.port[i]) != 0 || dvp_port_close(b.port[i]) != 0)
			die("port close");
	if (sim_mlx5_invalid_total(b.sim) != 0)
		die("the device's validity checks");
	sim_mlx5_destroy(b.sim);
	if (dvp_pktmbuf_pool_in_use(b.mp) != 0) {
		fprintf(stderr, "bench_fwd_e2e: %u mbufs not back in the pool\n",
			dvp_pktmbuf_pool_in_use(b.mp));
		die("mbufs back");
	}
	dvp_mempool_free(b.mp);
	dvp_eal_cleanup();
	return 0;
}
