/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * net_af_xdp rx in interrupt mode: wake-up latency and the idle CPU of a
 * sleeping port, which DPDK's net_af_xdp cannot offer (no rx interrupts).
 *
 *   bench_af_xdp_intr PEER_NS PEER_IF [EAL args]
 *
 * Run inside the namespace of the port's netdev (bench_af_xdp.sh makes
 * both): the port is --vdev net_af_xdp0,... on one end of a veth pair, and
 * frames come from the other end, PEER_IF in namespace PEER_NS, through a
 * raw socket of the kernel's, so each takes the kernel's whole path (veth,
 * XDP program, socket) into the port.
 *
 * Wake-up latency: the producer (lcore 1) waits until the consumer took
 * the previous frame, then DVP_BENCH_GAP_US (100) so that the consumer
 * finds its queue empty, arms and sleeps in dvp_rx_wait(); it reads the
 * TSC, writes it into a 64-byte frame and sends it. The latency runs to
 * the consumer's TSC read after the rx burst that returned the frame: the
 * kernel's path, the socket's wake-up, the scheduler. The same with the
 * consumer polling (mode=poll) shows what of it is the sleep.
 *
 * Idle CPU: lcore 1 runs the interrupt-mode loop on the silent port for
 * DVP_BENCH_IDLE_S seconds (5): an rx burst, and when it is empty
 * dvp_rx_wait() with a 100 ms timeout. Its CPU time is the task's run time
 * (/proc/self/task/<tid>/schedstat).
 *
 * Output:
 *   PERF af_xdp_wakeup mode=intr|poll p50_ns=<> p99_ns=<> max_ns=<> samples=<> slept=<>
 *   PERF af_xdp_idle_cpu lcore_pct=<> seconds=<> target_pct=1
 * slept: wake-ups after a sleep (the port's rx_q0_intr_wakeups), so that a
 * figure measured while polling cannot pass for one. DVP_BENCH_SAMPLES (5000).
 */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <dvp_cycles.h>
#include <dvp_eal.h>
#include <dvp_errno.h>
#include <dvp_lcore.h>
#include <dvp_mbuf.h>
#include <dvp_port.h>
#include <dvp_rxwait.h>

#include "bench_common.h"

#define PROG "bench_af_xdp_intr"
#define ETH_TYPE 0x88b5

static struct {
	unsigned int samples;
	uint64_t gap; /* cycles */
	atomic_uint done; /* frames the consumer has taken */
	atomic_bool stop;
	atomic_int worker_tid;
	bool poll;
	uint16_t port;
	int tx_fd;
	struct sockaddr_ll to;
	struct dvp_mempool *pool;
	struct dvp_rxwait_set *set;
	uint32_t *lat; /* cycles */
} b;

/* A raw socket on @ifn in namespace @ns, made from this thread, which then comes back. */
static int peer_socket(const char *ns, const char *ifn)
{
	char path[128];
	int home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC), nsfd, fd = -1;

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	nsfd = open(path, O_RDONLY | O_CLOEXEC);
	if (home < 0 || nsfd < 0 || setns(nsfd, CLONE_NEWNET) != 0) {
		fprintf(stderr, PROG ": namespace %s: %s\n", ns, strerror(errno));
		return -1;
	}
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	b.to = (struct sockaddr_ll){ .sll_family = AF_PACKET,
				     .sll_ifindex = (int)if_nametoindex(ifn),
				     .sll_halen = 6 };
	if (fd < 0 || b.to.sll_ifindex == 0)
		fprintf(stderr, PROG ": %s:%s: %s\n", ns, ifn, strerror(errno));
	if (setns(home, CLONE_NEWNET) != 0)
		return -1;
	close(home);
	close(nsfd);
	return b.to.sll_ifindex != 0 ? fd : -1;
}

static int producer(void *arg)
{
	uint8_t f[64] = { 2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, ETH_TYPE >> 8, ETH_TYPE & 0xff };
	unsigned int i;
	uint64_t t;

	(void)arg;
	for (i = 0; i < b.samples; i++) {
		while (atomic_load_explicit(&b.done, memory_order_acquire) != i)
			dvp_pause();
		t = dvp_rdtsc() + b.gap;
		while (dvp_rdtsc() < t)
			dvp_pause();
		t = dvp_rdtsc();
		memcpy(f + 14, &t, sizeof(t));
		if (sendto(b.tx_fd, f, sizeof(f), 0, (struct sockaddr *)&b.to, sizeof(b.to)) !=
		    (ssize_t)sizeof(f))
			return -1;
	}
	return 0;
}

static int consumer(void)
{
	struct dvp_rx_wait_event ev[1];
	struct dvp_mbuf *pkts[32];
	unsigned int i = 0;
	uint64_t now, d, t;
	uint16_t n, k;
	int r;

	while (i < b.samples) {
		n = dvp_rx_burst(b.port, 0, pkts, 32);
		if (n == 0) {
			if (b.poll)
				continue;
			/* 1 s: a lost wake-up shows as a huge sample, never as a hang. */
			r = dvp_rx_wait(b.set, ev, 1, 1000);
			if (r < 0)
				return r;
			continue;
		}
		now = dvp_rdtsc();
		for (k = 0; k < n; k++) {
			/* Only the producer's frames (the kernel may send its own). */
			if (pkts[k]->pkt_len == 64 &&
			    dvp_pktmbuf_mtod(pkts[k], uint8_t *)[12] == (ETH_TYPE >> 8)) {
				memcpy(&t, dvp_pktmbuf_mtod_offset(pkts[k], void *, 14), sizeof(t));
				d = now - t;
				b.lat[i] = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
				atomic_store_explicit(&b.done, ++i, memory_order_release);
			}
			dvp_pktmbuf_free(pkts[k]);
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
		n = dvp_rx_burst(b.port, 0, pkts, 32);
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

/* One round of samples, the consumer sleeping (or polling, with @poll). */
static int measure(bool poll)
{
	uint64_t w0 = 0, w1 = 0;
	double ns = 1e9 / (double)dvp_get_tsc_hz();
	int ret, prod;

	b.poll = poll;
	atomic_store(&b.done, 0);
	dvp_xstats_get_by_name(b.port, "rx_q0_intr_wakeups", &w0);
	if (dvp_eal_remote_launch(producer, NULL, 1) != 0)
		return -1;
	ret = consumer();
	prod = dvp_eal_wait_lcore(1);
	if (ret < 0 || prod < 0) {
		fprintf(stderr, PROG ": the %s failed\n", ret < 0 ? "consumer" : "producer");
		return -1;
	}
	dvp_xstats_get_by_name(b.port, "rx_q0_intr_wakeups", &w1);
	qsort(b.lat, b.samples, sizeof(b.lat[0]), bench_cmp_u32);
	printf("PERF af_xdp_wakeup mode=%s p50_ns=%.0f p99_ns=%.0f max_ns=%.0f samples=%u "
	       "slept=%" PRIu64 "\n",
	       poll ? "poll" : "intr", b.lat[b.samples / 2] * ns,
	       b.lat[(size_t)b.samples * 99 / 100] * ns, b.lat[b.samples - 1] * ns, b.samples,
	       w1 - w0);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	struct dvp_port_conf conf = { 0 };
	unsigned int idle_s = 5, i;
	struct dvp_link l;
	double idle;
	const char *s;
	int ret = 1, n;

	if (argc < 3) {
		fprintf(stderr, "usage: " PROG " PEER_NS PEER_IF [EAL args]\n");
		return 2;
	}
	b.tx_fd = peer_socket(argv[1], argv[2]);
	if (b.tx_fd < 0)
		return 1;
	s = getenv("DVP_BENCH_SAMPLES");
	b.samples = s != NULL ? (unsigned int)strtoul(s, NULL, 0) : 5000;
	s = getenv("DVP_BENCH_IDLE_S");
	if (s != NULL)
		idle_s = (unsigned int)strtoul(s, NULL, 0);
	b.samples = b.samples < 100 ? 100 : b.samples;
	idle_s = idle_s < 1 ? 1 : idle_s;
	argv[2] = argv[0];
	n = dvp_eal_init(argc - 2, argv + 2);
	if (n < 0) {
		fprintf(stderr, PROG ": EAL init failed: %s\n", dvp_strerror(dvp_errno));
		return 1;
	}
	if (dvp_lcore_count() < 2) {
		printf(PROG ": needs 2 lcores\n");
		dvp_eal_cleanup();
		return 77;
	}
	s = getenv("DVP_BENCH_GAP_US");
	b.gap = (uint64_t)((s != NULL ? strtod(s, NULL) : 100.0) * 1e-6 * (double)dvp_get_tsc_hz());
	b.lat = calloc(b.samples, sizeof(*b.lat));
	b.pool = dvp_pktmbuf_pool_create("bench_af_xdp", 8191, 0, 0, DVP_MBUF_DEFAULT_BUF_SIZE,
					 DVP_SOCKET_ANY);
	b.set = dvp_rxwait_set_create(1);
	if (b.lat == NULL || b.pool == NULL || b.set == NULL ||
	    dvp_port_get_by_name("net_af_xdp0", &b.port) != 0)
		goto out;
	conf.intr_conf.rxq = 1;
	if (dvp_port_configure(b.port, 1, 1, &conf) != 0 ||
	    dvp_rxq_setup(b.port, 0, 0, DVP_SOCKET_ANY, NULL, b.pool) != 0 ||
	    dvp_txq_setup(b.port, 0, 0, DVP_SOCKET_ANY, NULL) != 0 || dvp_port_start(b.port) != 0 ||
	    dvp_rx_intr_ctl(b.port, 0, b.set, DVP_RX_INTR_CTL_ADD, NULL) != 0)
		goto out;
	for (i = 0; i < 500; i++) {
		if (dvp_link_get_nowait(b.port, &l) == 0 && l.link_status == DVP_LINK_UP)
			break;
		usleep(10000);
	}
	if (measure(false) != 0 || measure(true) != 0)
		goto out;
	idle = idle_cpu(idle_s);
	if (idle < 0) {
		fprintf(stderr, PROG ": the idle loop failed\n");
		goto out;
	}
	printf("PERF af_xdp_idle_cpu lcore_pct=%.3f seconds=%u target_pct=1\n", idle, idle_s);
	fflush(stdout);
	ret = 0;
out:
	if (ret != 0 && dvp_errno != 0)
		fprintf(stderr, PROG ": %s\n", dvp_strerror(dvp_errno));
	dvp_port_stop(b.port);
	dvp_port_close(b.port);
	dvp_rxwait_set_free(b.set);
	dvp_mempool_free(b.pool);
	free(b.lat);
	close(b.tx_fd);
	dvp_eal_cleanup();
	return ret;
}
