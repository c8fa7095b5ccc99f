/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * memif rx in interrupt mode: wake-up latency and the idle CPU of a
 * sleeping port, which DPDK's memif cannot offer (it masks its rings'
 * interrupts and answers rx_intr_enable with -ENOTSUP).
 *
 * Both ends in this process on one socket: net_memif_s (server) receives
 * on its rx queue 0 in interrupt mode on the main lcore (CPU 0), and
 * net_memif_c (client) sends from lcore 1 (CPU 1).
 *
 * Wake-up latency: the producer waits until the consumer took the previous
 * frame, then 30 us (the consumer finds its ring empty, arms and sleeps in
 * dvp_rx_wait()), reads the TSC, writes it into a 64-byte frame and sends
 * it: the tx burst sees the unmasked ring and writes the ring's eventfd.
 * The latency runs to the consumer's TSC read after the rx burst that
 * returned the frame: the eventfd write, the epoll wake-up, the scheduler
 * and the copy out of the ring.
 *
 * Idle CPU: lcore 1 runs the interrupt-mode loop on the connected, silent
 * server port for DVP_BENCH_IDLE_S seconds (5): an rx burst, and when it
 * is empty dvp_rx_wait() with a 100 ms timeout (as an application checking
 * a stop flag). Its CPU time is the task's run time from
 * /proc/self/task/<tid>/schedstat.
 *
 * Output:
 *   MEMIF intr wakeup_p50_ns=<> wakeup_p99_ns=<> wakeup_max_ns=<> samples=<>
 *         slept=<> idle_cpu_pct=<> idle_s=<> target_pct=1
 * slept: wake-ups after a sleep (the port's rx_q0_intr_wakeups), so that a
 * figure measured while polling cannot pass for one.
 *
 * DVP_BENCH_SAMPLES=N sets the sample count (20000).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <dvp_cycles.h>
#include <dvp_eal.h>
#include <dvp_rxwait.h>
#include <dvp_lcore.h>
#include <dvp_mbuf.h>
#include <dvp_port.h>

#include "bench_common.h"

#define GAP_NS 30000

static struct {
	unsigned int samples;
	uint64_t gap; /* cycles */
	atomic_uint done; /* frames the consumer has taken */
	atomic_bool stop;
	atomic_int worker_tid;
	uint16_t srv, cli;
	struct dvp_mempool *pool;
	struct dvp_rxwait_set *set;
	uint32_t *lat; /* cycles */
} b;

static int producer(void *arg)
{
	struct dvp_mbuf *m;
	uint64_t t;
	unsigned int i;

	(void)arg;
	for (i = 0; i < b.samples; i++) {
		while (atomic_load_explicit(&b.done, memory_order_acquire) != i)
			dvp_pause();
		t = dvp_rdtsc() + b.gap;
		while (dvp_rdtsc() < t)
			dvp_pause();
		m = dvp_pktmbuf_alloc(b.pool);
		if (m == NULL || dvp_pktmbuf_append(m, 64) == NULL)
			return -1;
		t = dvp_rdtsc();
		*dvp_pktmbuf_mtod(m, uint64_t *) = t;
		if (dvp_tx_burst(b.cli, 0, &m, 1) != 1) {
			dvp_pktmbuf_free(m);
			return -1;
		}
	}
	return 0;
}

static int consumer(void)
{
	struct dvp_rx_wait_event ev[1];
	struct dvp_mbuf *pkts[32];
	unsigned int i = 0;
	uint16_t n, k;
	uint64_t now, d;
	int r;

	while (i < b.samples) {
		n = dvp_rx_burst(b.srv, 0, pkts, 32);
		if (n == 0) {
			/* 1 s: a lost wake-up shows as a huge sample, never as a hang. */
			r = dvp_rx_wait(b.set, ev, 1, 1000);
			if (r < 0)
				return r;
			continue;
		}
		now = dvp_rdtsc();
		for (k = 0; k < n; k++) {
			d = now - *dvp_pktmbuf_mtod(pkts[k], uint64_t *);
			b.lat[i] = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
			dvp_pktmbuf_free(pkts[k]);
			atomic_store_explicit(&b.done, ++i, memory_order_release);
		}
	}
	return 0;
}

static int idle_loop(void *arg)
{
	struct dvp_rx_wait_event ev[1];
	struct dvp_mbuf *pkts[32];
	uint16_t n;

	(void)arg;
	atomic_store(&b.worker_tid, (int)syscall(SYS_gettid));
	while (!atomic_load_explicit(&b.stop, memory_order_relaxed)) {
		n = dvp_rx_burst(b.srv, 0, pkts, 32);
		dvp_pktmbuf_free_bulk(pkts, n);
		if (n == 0 && dvp_rx_wait(b.set, ev, 1, 100) < 0)
			return -1;
	}
	return 0;
}

/* @return the idle loop's CPU share in percent of one core, or < 0. */
static double idle_cpu(unsigned int seconds)
{
	int64_t r0, r1;
	int tid;

	atomic_store(&b.stop, false);
	atomic_store(&b.worker_tid, 0);
	if (dvp_eal_remote_launch(idle_loop, NULL, 1) != 0)
		return -1;
	while ((tid = atomic_load(&b.worker_tid)) == 0)
		usleep(1000);
	usleep(200000); /* settle into its idle state */
	r0 = bench_task_run_ns(tid);
	sleep(seconds);
	r1 = bench_task_run_ns(tid);
	atomic_store(&b.stop, true);
	dvp_rx_wait_kick(b.set);
	if (dvp_eal_wait_lcore(1) != 0 || r0 < 0 || r1 < 0)
		return -1;
	return 100.0 * (double)(r1 - r0) / 1e9 / seconds;
}

static bool link_up(uint16_t port)
{
	struct dvp_link l;

	return dvp_link_get_nowait(port, &l) == 0 && l.link_status == DVP_LINK_UP;
}

int main(int argc, char **argv)
{
	char sock[64], srv_args[128], cli_args[128];
	const char *eal_args[] = { argv[0],  "--no-huge", "-m",		 "64",
				   "-l",     "0-1",	  "--vdev",	 srv_args,
				   "--vdev", cli_args,	  "--log-level", "warning" };
	struct dvp_port_conf conf = { 0 };
	unsigned int idle_s = 5, i;
	uint64_t w0 = 0, w1 = 0;
	double ns, idle;
	const char *s;
	int ret = 1, prod;

	(void)argc;
	s = getenv("DVP_BENCH_SAMPLES");
	b.samples = s != NULL ? (unsigned int)strtoul(s, NULL, 0) : 20000;
	s = getenv("DVP_BENCH_IDLE_S");
	if (s != NULL)
		idle_s = (unsigned int)strtoul(s, NULL, 0);
	if (b.samples < 100)
		b.samples = 100;
	if (idle_s < 1)
		idle_s = 1;
	/* An abstract socket: nothing to remove afterwards. */
	snprintf(sock, sizeof(sock), "dvp-bench-memif-%d", (int)getpid());
	snprintf(srv_args, sizeof(srv_args), "net_memif_s,role=server,socket=%s", sock);
	snprintf(cli_args, sizeof(cli_args), "net_memif_c,role=client,socket=%s", sock);
	if (dvp_eal_init((int)DVP_DIM(eal_args), (char **)eal_args) < 0) {
		fprintf(stderr, "bench_memif_intr: EAL init failed: %s\n", dvp_strerror(dvp_errno));
		return 1;
	}
	if (dvp_lcore_count() < 2) {
		printf("bench_memif_intr: needs 2 lcores\n");
		dvp_eal_cleanup();
		return 77;
	}
	b.lat = calloc(b.samples, sizeof(*b.lat));
	b.pool = dvp_pktmbuf_pool_create("bench_memif", 4095, 0, 0, DVP_MBUF_DEFAULT_BUF_SIZE,
					 DVP_SOCKET_ANY);
	b.set = dvp_rxwait_set_create(1);
	if (b.lat == NULL || b.pool == NULL || b.set == NULL ||
	    dvp_port_get_by_name("net_memif_s", &b.srv) != 0 ||
	    dvp_port_get_by_name("net_memif_c", &b.cli) != 0)
		goto out;
	conf.intr_conf.rxq = 1;
	if (dvp_port_configure(b.srv, 1, 1, &conf) != 0 ||
	    dvp_rxq_setup(b.srv, 0, 0, DVP_SOCKET_ANY, NULL, b.pool) != 0 ||
	    dvp_txq_setup(b.srv, 0, 0, DVP_SOCKET_ANY, NULL) != 0 ||
	    dvp_port_configure(b.cli, 1, 1, NULL) != 0 ||
	    dvp_rxq_setup(b.cli, 0, 0, DVP_SOCKET_ANY, NULL, b.pool) != 0 ||
	    dvp_txq_setup(b.cli, 0, 0, DVP_SOCKET_ANY, NULL) != 0 || dvp_port_start(b.srv) != 0 ||
	    dvp_port_start(b.cli) != 0 ||
	    dvp_rx_intr_ctl(b.srv, 0, b.set, DVP_RX_INTR_CTL_ADD, NULL) != 0)
		goto out;
	for (i = 0; i < 500 && !(link_up(b.srv) && link_up(b.cli)); i++)
		usleep(10000);
	if (!link_up(b.srv) || !link_up(b.cli)) {
		fprintf(stderr, "bench_memif_intr: the two ends did not connect in 5 s\n");
		goto out;
	}

	ns = 1e9 / (double)dvp_get_tsc_hz();
	b.gap = (uint64_t)(GAP_NS / ns);
	dvp_xstats_get_by_name(b.srv, "rx_q0_intr_wakeups", &w0);
	if (dvp_eal_remote_launch(producer, NULL, 1) != 0)
		goto out;
	ret = consumer();
	prod = dvp_eal_wait_lcore(1);
	if (ret < 0 || prod < 0) {
		fprintf(stderr, "bench_memif_intr: the %s failed\n",
			ret < 0 ? "consumer" : "producer");
		ret = 1;
		goto out;
	}
	ret = 1;
	dvp_xstats_get_by_name(b.srv, "rx_q0_intr_wakeups", &w1);
	qsort(b.lat, b.samples, sizeof(b.lat[0]), bench_cmp_u32);

	idle = idle_cpu(idle_s);
	if (idle < 0) {
		fprintf(stderr, "bench_memif_intr: the idle loop failed\n");
		goto out;
	}
	printf("MEMIF intr wakeup_p50_ns=%.0f wakeup_p99_ns=%.0f wakeup_max_ns=%.0f samples=%u "
	       "slept=%" PRIu64 " idle_cpu_pct=%.3f idle_s=%u target_pct=1\n",
	       b.lat[b.samples / 2] * ns, b.lat[(size_t)b.samples * 99 / 100] * ns,
	       b.lat[b.samples - 1] * ns, b.samples, w1 - w0, idle, idle_s);
	fflush(stdout);
	ret = 0;
out:
	if (ret != 0 && dvp_errno != 0)
		fprintf(stderr, "bench_memif_intr: %s\n", dvp_strerror(dvp_errno));
	dvp_port_stop(b.cli);
	dvp_port_stop(b.srv);
	dvp_port_close(b.cli);
	dvp_port_close(b.srv);
	dvp_rxwait_set_free(b.set);
	dvp_mempool_free(b.pool);
	free(b.lat);
	dvp_eal_cleanup();
	return ret;
}
