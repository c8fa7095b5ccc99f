/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Interrupt mode: wake-up latency and idle CPU.
 *
 * Wake-up latency is the time from the producer's write (read from the TSC
 * just before it) to the consumer's return from rx burst with the frame
 * (read from the TSC just after), one frame at a time: the producer, on
 * lcore 1, waits for the consumer, on the main lcore, to take the previous
 * frame, then for a gap, then sends. Cases:
 *
 *   epoll_raw     an eventfd written, epoll_wait(2) + read(2): the kernel's floor
 *   epoll_dpdk    the same through DPDK's rte_epoll_wait(), the wait primitive
 *                 of DPDK's rx interrupts (rte_eth_dev_rx_intr_ctl_q, l3fwd-power)
 *   interrupt     net_ring frame, consumer in dvp_rx_wait() then dvp_rx_burst();
 *                 the gap (30 us) lets it fall asleep before every frame
 *   adaptive      the governor (N = 32, M = 32, 2 us pauses) with gaps drawn
 *                 uniformly from 0 to 200 us, so frames find it polling,
 *                 pausing or asleep
 *   poll          a busy rx loop, for scale
 *
 * The machine is shared and noisy, so the cases take turns: TRIALS rounds
 * (5) of every case, each round a fifth of the samples, and the figures are
 * over all of a case's samples: noise spreads over the cases alike. Each
 * round's percentiles are kept too: a VS-DPDK line whose rounds disagree
 * (a side's, or the rounds' ratios, spread beyond BENCH_SPREAD_MAX: the
 * interquartile range over the median) says too-noisy instead of a ratio,
 * as the ring benches do.
 *
 * Idle CPU: a worker lcore runs the interrupt-mode loop (dvp_rx_wait() with
 * a 100 ms timeout, as an application checking a stop flag) and then the
 * adaptive loop (default governor) for 5 s each with no traffic. Its CPU
 * time comes from /proc/self/task/<tid>/schedstat (run time in ns; the
 * utime + stime of .../stat count 10 ms ticks, too coarse for 1% of 5 s,
 * and are printed too), the process's from every task of /proc/self/task.
 *
 * Output:
 *   WAKEUP <case> samples=<n> p50_ns=<> p99_ns=<> max_ns=<> [...]
 *          syscalls_consumer=<per sample> syscalls_producer=<per sample>
 *   VS-DPDK wakeup_interrupt_<p50|p99> dvp=<ns> dpdk=<ns> ratio=<dvp/dpdk>|too-noisy
 *           spread_dvp=<%> spread_dpdk=<%> spread_ratio=<%>
 *           dvp_syscalls=<per wake-up> dpdk_syscalls=<per wake-up>
 *   IDLE-CPU <loop> lcore_pct=<> lcore_ticks=<> process_pct=<> seconds=5 target_pct=1
 *
 * The system calls are counted exactly, per thread (bench_syscalls_open()),
 * over each case's samples: on both sides, consumer and producer together,
 * per wake-up. dvpmd's consumer reads a one-shot queue's eventfd at the
 * next arm, after the frame is taken: counted, though off the timed path.
 *
 * DVP_BENCH_SAMPLES=N changes the sample count (100000 by default),
 * DVP_BENCH_IDLE_S=S the idle measurement (5 s).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
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

#if DVP_HAS_DPDK
#include <rte_epoll.h>
#endif

enum mode { M_EPOLL_RAW, M_EPOLL_DPDK, M_INTERRUPT, M_ADAPTIVE, M_POLL, M_COUNT };

#define TRIALS 5

static const char *const mode_names[] = { "epoll_raw", "epoll_dpdk", "interrupt", "adaptive",
					  "poll" };

static struct {
	enum mode mode;
	unsigned int samples;
	uint64_t gap_min, gap_max; /* cycles */
	atomic_uint done; /* samples the consumer has taken */
	atomic_uint sent;
	atomic_uint_fast64_t t0; /* the eventfd cases' send time */
	atomic_bool stop;
	atomic_int worker_tid;
	int efd;
	uint16_t port;
	struct dvp_mempool *pool;
	struct dvp_rxwait_set *set;
	uint32_t *lat; /* this round's slice of the case's samples */
	int64_t producer_syscalls; /* this round's, or -1; read after the join */
} b;

/* What a case gathers over its rounds. */
struct case_acc {
	uint32_t *lat;
	unsigned int n;
	uint64_t slept; /* interrupt: wake-ups after a sleep */
	int64_t sys_consumer, sys_producer; /* system calls over n samples, -1 if not counted */
	struct dvp_rxwait_governor_stats gs; /* adaptive */
};

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void spin_until(uint64_t tsc)
{
	while (dvp_rdtsc() < tsc)
		dvp_pause();
}

static int producer(void *arg)
{
	uint64_t rnd = 0x9e3779b97f4a7c15ull, gap, t0;
	struct dvp_mbuf *m;
	unsigned int i;
	char why[160];
	int sfd = bench_syscalls_open(why, sizeof(why));
	int64_t s0 = bench_syscalls_read(sfd);

	(void)arg;
	b.producer_syscalls = -1;
	for (i = 0; i < b.samples; i++) {
		while (atomic_load_explicit(&b.done, memory_order_acquire) != i)
			dvp_pause();
		gap = b.gap_min;
		if (b.gap_max > b.gap_min)
			gap += xorshift(&rnd) % (b.gap_max - b.gap_min);
		spin_until(dvp_rdtsc() + gap);
		if (b.mode == M_EPOLL_RAW || b.mode == M_EPOLL_DPDK) {
			t0 = dvp_rdtsc();
			atomic_store_explicit(&b.t0, t0, memory_order_relaxed);
			if (eventfd_write(b.efd, 1) != 0)
				return -1;
		} else {
			m = dvp_pktmbuf_alloc(b.pool);
			if (m == NULL || dvp_pktmbuf_append(m, 64) == NULL)
				return -1;
			t0 = dvp_rdtsc();
			*dvp_pktmbuf_mtod(m, uint64_t *) = t0;
			if (dvp_tx_burst(b.port, 0, &m, 1) != 1)
				return -1;
		}
		atomic_store_explicit(&b.sent, i + 1, memory_order_release);
	}
	/* The read that returns s1 counts itself. */
	if (s0 >= 0)
		b.producer_syscalls = bench_syscalls_read(sfd) - s0 - 1;
	if (sfd >= 0)
		close(sfd);
	return 0;
}

/* The consumer took sample @i, sent at @t0. */
static void took(unsigned int i, uint64_t t0)
{
	uint64_t d = dvp_rdtsc() - t0;

	b.lat[i] = d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
	atomic_store_explicit(&b.done, i + 1, memory_order_release);
}

static int consume_epoll(int epfd)
{
	struct epoll_event ev;
	eventfd_t v;
	unsigned int i;

	for (i = 0; i < b.samples; i++) {
		if (epoll_wait(epfd, &ev, 1, -1) != 1 || eventfd_read(b.efd, &v) != 0)
			return -1;
		took(i, atomic_load_explicit(&b.t0, memory_order_relaxed));
	}
	return 0;
}

#if DVP_HAS_DPDK
static int consume_dpdk(int epfd)
{
	struct rte_epoll_event ev;
	eventfd_t v;
	unsigned int i;

	for (i = 0; i < b.samples; i++) {
		if (rte_epoll_wait(epfd, &ev, 1, -1) != 1 || eventfd_read(b.efd, &v) != 0)
			return -1;
		took(i, atomic_load_explicit(&b.t0, memory_order_relaxed));
	}
	return 0;
}
#endif

/* Take one frame off rx queue 0 if there is one: @return 1 if taken. */
static int take_frame(unsigned int *i, uint16_t n, struct dvp_mbuf **pkts)
{
	uint16_t k;

	for (k = 0; k < n; k++) {
		took((*i)++, *dvp_pktmbuf_mtod(pkts[k], uint64_t *));
		dvp_pktmbuf_free(pkts[k]);
	}
	return n > 0;
}

static int consume_port(struct dvp_rxwait_governor *gov)
{
	struct dvp_rx_wait_event ready[1];
	struct dvp_mbuf *pkts[32];
	unsigned int i = 0;
	uint16_t n;
	int r;

	while (i < b.samples) {
		switch (b.mode) {
		case M_INTERRUPT:
			n = dvp_rx_burst(b.port, 0, pkts, 32);
			if (!take_frame(&i, n, pkts)) {
				r = dvp_rx_wait(b.set, ready, 1, -1);
				if (r < 0)
					return r;
			}
			break;
		case M_ADAPTIVE:
			n = dvp_rx_burst_adaptive(gov, b.port, 0, pkts, 32);
			take_frame(&i, n, pkts);
			r = dvp_rxwait_governor_idle(gov);
			if (r < 0)
				return r;
			break;
		default:
			n = dvp_rx_burst(b.port, 0, pkts, 32);
			take_frame(&i, n, pkts);
			break;
		}
	}
	return 0;
}

struct figures {
	double p50, p99, max; /* ns */
};

/* One round of @p mode: b.samples frames into @p acc. */
static int run(enum mode mode, uint64_t gap_min_ns, uint64_t gap_max_ns, struct case_acc *acc)
{
	double ns_per_cycle = 1e9 / (double)dvp_get_tsc_hz();
	struct dvp_rxwait_governor_conf gconf;
	struct dvp_rxwait_governor *gov = NULL;
	struct dvp_rxwait_governor_stats gs;
#if DVP_HAS_DPDK
	/* Registered by address: it must live until the round ends. */
	struct rte_epoll_event rev = { .epdata.event = EPOLLIN };
#endif
	uint64_t w0 = 0, w1 = 0;
	int64_t s0, s1 = -1;
	int epfd = -1, ret = 0, prod, sfd;
	char why[160];

	b.mode = mode;
	b.gap_min = (uint64_t)((double)gap_min_ns / ns_per_cycle);
	b.gap_max = (uint64_t)((double)gap_max_ns / ns_per_cycle);
	b.lat = acc->lat + acc->n;
	atomic_store(&b.done, 0);
	atomic_store(&b.sent, 0);
	if (mode == M_EPOLL_RAW || mode == M_EPOLL_DPDK) {
		struct epoll_event ev = { .events = EPOLLIN };

		epfd = epoll_create1(EPOLL_CLOEXEC);
		if (epfd < 0)
			return -1;
#if DVP_HAS_DPDK
		if (mode == M_EPOLL_DPDK) {
			if (rte_epoll_ctl(epfd, EPOLL_CTL_ADD, b.efd, &rev) != 0)
				return -1;
		} else
#endif
			if (epoll_ctl(epfd, EPOLL_CTL_ADD, b.efd, &ev) != 0)
			return -1;
	}
	if (mode == M_ADAPTIVE) {
		dvp_rxwait_governor_conf_default(&gconf);
		gconf.pause_after = 32;
		gconf.sleep_after = 32;
		gconf.pause_ns = 2000;
		gov = dvp_rxwait_governor_create(b.set, &gconf);
		if (gov == NULL)
			return -1;
	}
	dvp_xstats_get_by_name(b.port, "rx_q0_intr_wakeups", &w0);
	sfd = bench_syscalls_open(why, sizeof(why));
	if (sfd < 0 && acc->n == 0 && mode == M_EPOLL_RAW)
		printf("bench_intr: system calls not counted: %s\n", why);
	s0 = bench_syscalls_read(sfd);
	if (dvp_eal_remote_launch(producer, NULL, 1) != 0)
		return -1;
	if (mode == M_EPOLL_RAW)
		ret = consume_epoll(epfd);
#if DVP_HAS_DPDK
	else if (mode == M_EPOLL_DPDK)
		ret = consume_dpdk(epfd);
#endif
	else
		ret = consume_port(gov);
	/* The read that returns s1 counts itself. */
	if (s0 >= 0)
		s1 = bench_syscalls_read(sfd) - 1;
	if (sfd >= 0)
		close(sfd);
	prod = dvp_eal_wait_lcore(1);
	if (epfd >= 0)
		close(epfd);
	if (ret < 0 || prod < 0) {
		fprintf(stderr, "bench_intr: %s: %s failed\n", mode_names[mode],
			ret < 0 ? "the consumer" : "the producer");
		dvp_rxwait_governor_free(gov);
		return -1;
	}
	dvp_xstats_get_by_name(b.port, "rx_q0_intr_wakeups", &w1);
	if (mode == M_INTERRUPT)
		acc->slept += w1 - w0;
	if (gov != NULL) {
		dvp_rxwait_governor_stats_get(gov, &gs);
		acc->gs.wakeups += gs.wakeups;
		acc->gs.sleeps_avoided += gs.sleeps_avoided;
		acc->gs.pauses += gs.pauses;
		dvp_rxwait_governor_free(gov);
	}
	if (acc->n == 0)
		acc->sys_consumer = acc->sys_producer = 0;
	if (s0 < 0 || s1 < 0 || acc->sys_consumer < 0)
		acc->sys_consumer = -1;
	else
		acc->sys_consumer += s1 - s0;
	if (b.producer_syscalls < 0 || acc->sys_producer < 0)
		acc->sys_producer = -1;
	else
		acc->sys_producer += b.producer_syscalls;
	acc->n += b.samples;
	return 0;
}

/* System calls per sample of a case, both threads, or -1 if not counted. */
static double syscalls_per_sample(const struct case_acc *acc)
{
	if (acc->n == 0 || acc->sys_consumer < 0 || acc->sys_producer < 0)
		return -1;
	return (double)(acc->sys_consumer + acc->sys_producer) / acc->n;
}

/* Percentile @pct of each round's samples of @acc (@per_round each), in cycles. */
static int round_percentiles(const struct case_acc *acc, unsigned int per_round, unsigned int pct,
			     double *out)
{
	uint32_t *tmp = malloc(per_round * sizeof(*tmp));
	unsigned int t;

	if (tmp == NULL)
		return -1;
	for (t = 0; t < TRIALS; t++) {
		memcpy(tmp, acc->lat + (size_t)t * per_round, per_round * sizeof(*tmp));
		qsort(tmp, per_round, sizeof(*tmp), bench_cmp_u32);
		out[t] = tmp[(size_t)per_round * pct / 100];
	}
	free(tmp);
	return 0;
}

/*
 * One VS-DPDK line: the percentile over all samples of each side, and
 * whether the rounds agree. The rounds ran back to back, so each round's
 * ratio saw one host; a side whose rounds, or ratios that, spread beyond
 * BENCH_SPREAD_MAX say too-noisy instead of a ratio.
 */
static void vs_dpdk(const char *name, double dvp_ns, double dpdk_ns, double *dvp_r, double *dpdk_r,
		    const char *sys)
{
	double r[TRIALS], mr, so, sd, sr;
	unsigned int t;

	for (t = 0; t < TRIALS; t++)
		r[t] = dvp_r[t] / dpdk_r[t];
	so = bench_spread(dvp_r, TRIALS, bench_median(dvp_r, TRIALS));
	sd = bench_spread(dpdk_r, TRIALS, bench_median(dpdk_r, TRIALS));
	mr = bench_median(r, TRIALS);
	sr = bench_spread(r, TRIALS, mr);
	printf("VS-DPDK %s dvp=%.0f dpdk=%.0f ", name, dvp_ns, dpdk_ns);
	if (so > BENCH_SPREAD_MAX || sd > BENCH_SPREAD_MAX || sr > BENCH_SPREAD_MAX)
		printf("too-noisy");
	else
		printf("ratio=%.2f", dvp_ns / dpdk_ns);
	printf(" spread_dvp=%.0f%% spread_dpdk=%.0f%% spread_ratio=%.0f%%%s\n", 100 * so, 100 * sd,
	       100 * sr, sys);
}

/* Percentiles over every sample of a case, printed. */
static void report(enum mode mode, struct case_acc *acc, struct figures *f)
{
	double ns_per_cycle = 1e9 / (double)dvp_get_tsc_hz();
	char extra[128] = "", sys[96] = " syscalls=not-counted";

	qsort(acc->lat, acc->n, sizeof(acc->lat[0]), bench_cmp_u32);
	f->p50 = acc->lat[acc->n / 2] * ns_per_cycle;
	f->p99 = acc->lat[(size_t)acc->n * 99 / 100] * ns_per_cycle;
	f->max = acc->lat[acc->n - 1] * ns_per_cycle;
	if (mode == M_INTERRUPT)
		snprintf(extra, sizeof(extra), " slept=%" PRIu64, acc->slept);
	if (mode == M_ADAPTIVE)
		snprintf(extra, sizeof(extra),
			 " woken_from_sleep=%" PRIu64 " found_while_arming=%" PRIu64
			 " pauses=%" PRIu64,
			 acc->gs.wakeups, acc->gs.sleeps_avoided, acc->gs.pauses);
	if (acc->sys_consumer >= 0 && acc->sys_producer >= 0)
		snprintf(sys, sizeof(sys), " syscalls_consumer=%.2f syscalls_producer=%.2f",
			 (double)acc->sys_consumer / acc->n, (double)acc->sys_producer / acc->n);
	printf("WAKEUP %s samples=%u p50_ns=%.0f p99_ns=%.0f max_ns=%.0f%s%s\n", mode_names[mode],
	       acc->n, f->p50, f->p99, f->max, extra, sys);
	fflush(stdout);
}

/* ------------------------------------------------------------------------
 * Idle CPU
 */

/* utime + stime of a /proc .../stat file, in clock ticks. */
static long cpu_ticks(const char *path)
{
	char buf[1024], *p;
	unsigned long ut, st;
	FILE *f = fopen(path, "r");
	size_t n;

	if (f == NULL)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* Fields after the command name, which may hold spaces: from the last ')'. */
	p = strrchr(buf, ')');
	if (p == NULL ||
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return -1;
	return (long)(ut + st);
}

static int idle_loop(void *arg)
{
	struct dvp_rxwait_governor *gov = arg;
	struct dvp_rx_wait_event ready[1];
	struct dvp_mbuf *pkts[32];
	uint16_t n;

	atomic_store(&b.worker_tid, (int)syscall(SYS_gettid));
	while (!atomic_load_explicit(&b.stop, memory_order_relaxed)) {
		if (gov != NULL) {
			n = dvp_rx_burst_adaptive(gov, b.port, 0, pkts, 32);
			dvp_pktmbuf_free_bulk(pkts, n);
			if (dvp_rxwait_governor_idle(gov) < 0)
				return -1;
		} else {
			n = dvp_rx_burst(b.port, 0, pkts, 32);
			dvp_pktmbuf_free_bulk(pkts, n);
			if (n == 0 && dvp_rx_wait(b.set, ready, 1, 100) < 0)
				return -1;
		}
	}
	return 0;
}

static int idle_cpu(const char *name, struct dvp_rxwait_governor *gov, unsigned int seconds)
{
	int64_t r0, r1, p0, p1;
	long t0, t1;
	char path[64];
	int tid;

	atomic_store(&b.stop, false);
	atomic_store(&b.worker_tid, 0);
	if (dvp_eal_remote_launch(idle_loop, gov, 1) != 0)
		return -1;
	while ((tid = atomic_load(&b.worker_tid)) == 0)
		usleep(1000);
	usleep(200000); /* settle into its idle state */
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	t0 = cpu_ticks(path);
	r0 = bench_task_run_ns(tid);
	p0 = bench_process_run_ns();
	sleep(seconds);
	t1 = cpu_ticks(path);
	r1 = bench_task_run_ns(tid);
	p1 = bench_process_run_ns();
	atomic_store(&b.stop, true);
	dvp_rx_wait_kick(b.set);
	if (dvp_eal_wait_lcore(1) != 0 || t0 < 0 || t1 < 0 || r0 < 0 || r1 < 0) {
		fprintf(stderr, "bench_intr: idle %s failed\n", name);
		return -1;
	}
	printf("IDLE-CPU %s lcore_pct=%.3f lcore_ticks=%ld process_pct=%.3f seconds=%u target_pct=1\n",
	       name, 100.0 * (double)(r1 - r0) / 1e9 / seconds, t1 - t0,
	       100.0 * (double)(p1 - p0) / 1e9 / seconds, seconds);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	const char *eal_args[] = { argv[0], "--no-huge", "-m",	      "64",	     "-l",
				   "0-1",   "--vdev",	 "net_ring0", "--log-level", "warning" };
	struct dvp_port_conf conf = { 0 };
	struct figures f[M_COUNT] = { 0 };
	struct case_acc acc[M_COUNT] = { 0 };
	double rounds[2][2][TRIALS]; /* [p50, p99][dvp, dpdk][round], cycles */
	unsigned int idle_s = 5, total, m, t;
	const char *s;
	int ret = 1;
	bool have_dpdk = false;

	(void)argc;
	s = getenv("DVP_BENCH_SAMPLES");
	total = s != NULL ? (unsigned int)strtoul(s, NULL, 0) : 100000;
	s = getenv("DVP_BENCH_IDLE_S");
	if (s != NULL)
		idle_s = (unsigned int)strtoul(s, NULL, 0);
	if (total < 100 * TRIALS)
		total = 100 * TRIALS;
	total -= total % TRIALS;
	if (dvp_eal_init((int)DVP_DIM(eal_args), (char **)eal_args) < 0) {
		fprintf(stderr, "bench_intr: EAL init failed: %s\n", dvp_strerror(dvp_errno));
		return 1;
	}
	if (dvp_lcore_count() < 2) {
		printf("bench_intr: needs 2 lcores\n");
		dvp_eal_cleanup();
		return 77;
	}
	b.efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	b.pool = dvp_pktmbuf_pool_create("bench_intr", 1023, 0, 0, DVP_MBUF_DEFAULT_BUF_SIZE,
					 DVP_SOCKET_ANY);
	b.set = dvp_rxwait_set_create(1);
	if (b.efd < 0 || b.pool == NULL || b.set == NULL ||
	    dvp_port_get_by_name("net_ring0", &b.port) != 0)
		goto out;
	conf.intr_conf.rxq = 1;
	if (dvp_port_configure(b.port, 1, 1, &conf) != 0 ||
	    dvp_rxq_setup(b.port, 0, 0, DVP_SOCKET_ANY, NULL, b.pool) != 0 ||
	    dvp_txq_setup(b.port, 0, 0, DVP_SOCKET_ANY, NULL) != 0 || dvp_port_start(b.port) != 0 ||
	    dvp_rx_intr_ctl(b.port, 0, b.set, DVP_RX_INTR_CTL_ADD, NULL) != 0)
		goto out;

	printf("bench_intr: %u samples per case in %d rounds, TSC %" PRIu64 " Hz, %s\n", total,
	       TRIALS, dvp_get_tsc_hz(), dvp_version());
	for (m = 0; m < M_COUNT; m++) {
		acc[m].lat = calloc(total, sizeof(uint32_t));
		if (acc[m].lat == NULL)
			goto out;
	}
	b.samples = total / TRIALS;
	for (t = 0; t < TRIALS; t++) {
		if (run(M_EPOLL_RAW, 30000, 30000, &acc[M_EPOLL_RAW]) < 0)
			goto out;
#if DVP_HAS_DPDK
		have_dpdk = true;
		if (run(M_EPOLL_DPDK, 30000, 30000, &acc[M_EPOLL_DPDK]) < 0)
			goto out;
#endif
		if (run(M_INTERRUPT, 30000, 30000, &acc[M_INTERRUPT]) < 0 ||
		    run(M_ADAPTIVE, 0, 200000, &acc[M_ADAPTIVE]) < 0 ||
		    run(M_POLL, 0, 20000, &acc[M_POLL]) < 0)
			goto out;
	}
	/* Each round's percentiles first: report() sorts a case's samples whole. */
	if (have_dpdk && (round_percentiles(&acc[M_INTERRUPT], b.samples, 50, rounds[0][0]) < 0 ||
			  round_percentiles(&acc[M_EPOLL_DPDK], b.samples, 50, rounds[0][1]) < 0 ||
			  round_percentiles(&acc[M_INTERRUPT], b.samples, 99, rounds[1][0]) < 0 ||
			  round_percentiles(&acc[M_EPOLL_DPDK], b.samples, 99, rounds[1][1]) < 0))
		goto out;
	for (m = 0; m < M_COUNT; m++)
		if (acc[m].n > 0)
			report((enum mode)m, &acc[m], &f[m]);
	if (have_dpdk) {
		double sd = syscalls_per_sample(&acc[M_INTERRUPT]);
		double sp = syscalls_per_sample(&acc[M_EPOLL_DPDK]);
		char sys[64] = " syscalls=not-counted";

		if (sd >= 0 && sp >= 0)
			snprintf(sys, sizeof(sys), " dvp_syscalls=%.2f dpdk_syscalls=%.2f", sd, sp);
		vs_dpdk("wakeup_interrupt_p50", f[M_INTERRUPT].p50, f[M_EPOLL_DPDK].p50,
			rounds[0][0], rounds[0][1], sys);
		vs_dpdk("wakeup_interrupt_p99", f[M_INTERRUPT].p99, f[M_EPOLL_DPDK].p99,
			rounds[1][0], rounds[1][1], sys);
	} else {
		printf("VS-DPDK wakeup_interrupt: DPDK not built in; against the raw epoll floor: p50 ratio=%.2f\n",
		       f[M_INTERRUPT].p50 / f[M_EPOLL_RAW].p50);
	}
	printf("RATIO interrupt_vs_epoll_raw_p50=%.2f adaptive_vs_poll_p50=%.2f interrupt_vs_poll_p50=%.2f\n",
	       f[M_INTERRUPT].p50 / f[M_EPOLL_RAW].p50, f[M_ADAPTIVE].p50 / f[M_POLL].p50,
	       f[M_INTERRUPT].p50 / f[M_POLL].p50);
	fflush(stdout);

	if (idle_cpu("interrupt", NULL, idle_s) < 0)
		goto out;
	{
		struct dvp_rxwait_governor *gov = dvp_rxwait_governor_create(b.set, NULL);

		if (gov == NULL || idle_cpu("adaptive", gov, idle_s) < 0) {
			dvp_rxwait_governor_free(gov);
			goto out;
		}
		dvp_rxwait_governor_free(gov);
	}
	ret = 0;
out:
	if (ret != 0)
		fprintf(stderr, "bench_intr: setup or run failed: %s\n", dvp_strerror(dvp_errno));
	dvp_port_close(b.port);
	dvp_rxwait_set_free(b.set);
	dvp_mempool_free(b.pool);
	if (b.efd >= 0)
		close(b.efd);
	for (m = 0; m < M_COUNT; m++)
		free(acc[m].lat);
	dvp_eal_cleanup();
	return ret;
}
