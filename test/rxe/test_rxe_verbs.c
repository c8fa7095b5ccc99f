/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * net_verbs on a real verbs device (Soft-RoCE in the VM): two processes,
 * each an EAL with one net_verbs port, exchange sequence-numbered frames
 * both ways; this process listens, a peer it starts (this same program
 * with --peer) connects. One case per run:
 *
 *   --case poll       COUNT frames each way, both polling: none lost, none bad
 *   --case intr       the same, both sleeping on rx interrupts when idle
 *   --case solicited  the same, armed for solicited completions only
 *   --case flap       the link flapped (ip link set DEV down; up) during the
 *                     exchange: both see it go down and up, traffic resumes
 *   --case overrun    a receive CQ smaller than the ring and a consumer that
 *                     stalls: CQ_ERR, the queue is rebuilt (with a CQ that
 *                     holds the ring), traffic resumes
 *   --case kill       the peer is SIGKILLed: link down, every mbuf back in the
 *                     pool; a new peer connects: link up, traffic resumes
 *
 * Every case ends with both ports stopped and every mbuf back in its pool.
 * Outside the VM (DVP_RXE_VM unset) it exits 77. --count N (or
 * DVP_RXE_VERBS_COUNT) sets the frames of the exchange cases.
 */

#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <infiniband/verbs.h>

#include <dvp_port.h>

#include "verbs_ep.h"

extern char **environ;

#define EXIT_SKIP 77
#define IDLE_MS 20000
/*
 * Frames an interrupt-mode exchange starts with one at a time, the peer
 * holding each back this long: the listener sleeps for every one of them
 * (see ep.lockstep). Its rx sleeps time out after 1 ms, so a frame 2 ms
 * away is caught by the next sleep.
 */
#define LOCKSTEP_FRAMES 200
#define LOCKSTEP_DELAY_US 2000

static struct {
	const char *name; /* the case */
	bool peer; /* this process is the peer */
	int tcp_port;
	uint64_t count;
	bool intr;
	const char *extra; /* devargs for the peer */
	char self[4096];
} cfg = {
	.count = 1000000,
};

/* ------------------------------------------------------------------------
 * The peer: connects, exchanges, checks, exits 0 or 1
 */

static int peer_main(void)
{
	cpu_set_t all;
	struct ep e;
	int ret, status = 0, i, ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);

	/* Spawned by a process the EAL pinned to its lcore's CPU: free again. */
	CPU_ZERO(&all);
	for (i = 0; i < ncpu && i < CPU_SETSIZE; i++)
		CPU_SET(i, &all);
	sched_setaffinity(0, sizeof(all), &all);
	ret = ep_open(&e, "peer", false, cfg.tcp_port, cfg.extra, 1, cfg.intr, 0);
	if (ret == 0)
		ret = ep_wait_link(&e, true, IDLE_MS);
	e.lockstep = cfg.intr ? LOCKSTEP_FRAMES : 0;
	e.lockstep_delay_us = LOCKSTEP_DELAY_US;
	if (ret == 0)
		ret = ep_exchange(&e, cfg.count, IDLE_MS);
	ep_print(&e, "peer");
	if (ret < 0) {
		fprintf(stderr, "# peer: exchange failed: %s\n", strerror(-ret));
		status = 1;
	}
	if (e.rx_bad != 0) {
		fprintf(stderr, "# peer: %" PRIu64 " bad frames\n", e.rx_bad);
		status = 1;
	}
	if (strcmp(cfg.name, "poll") == 0 || strcmp(cfg.name, "intr") == 0 ||
	    strcmp(cfg.name, "solicited") == 0) {
		e.clean_end = ret == 0;
		if (e.rx_gaps != 0 || e.rx_ok != cfg.count) {
			fprintf(stderr,
				"# peer: %" PRIu64 " of %" PRIu64 " frames received, %" PRIu64
				" lost\n",
				e.rx_ok, cfg.count, e.rx_gaps);
			status = 1;
		}
	}
	if (e.mp != NULL && ep_close(&e) < 0)
		status = 1;
	return status;
}

/* ------------------------------------------------------------------------
 * The parent side
 */

static pid_t spawn_peer(const char *extra, uint64_t count)
{
	char port[16], cnt[32];
	char *argv[16];
	pid_t pid;
	int n = 0;

	snprintf(port, sizeof(port), "%d", cfg.tcp_port);
	snprintf(cnt, sizeof(cnt), "%" PRIu64, count);
	argv[n++] = cfg.self;
	argv[n++] = "--peer";
	argv[n++] = "--case";
	argv[n++] = (char *)cfg.name;
	argv[n++] = "--tcp-port";
	argv[n++] = port;
	argv[n++] = "--count";
	argv[n++] = cnt;
	if (cfg.intr)
		argv[n++] = "--intr";
	if (extra != NULL) {
		argv[n++] = "--extra";
		argv[n++] = (char *)extra;
	}
	argv[n] = NULL;
	if (posix_spawn(&pid, cfg.self, NULL, NULL, argv, environ) != 0)
		return -1;
	return pid;
}

static int wait_peer(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void run_shell(const char *script)
{
	char *argv[] = { "sh", "-c", (char *)script, NULL };
	pid_t pid;

	assert_int_equal(posix_spawnp(&pid, "sh", NULL, NULL, argv, environ), 0);
}

static void check_clean_stats(struct ep *e)
{
	struct dvp_port_stats st;

	assert_int_equal(dvp_stats_get(e->port, &st), 0);
	fprintf(stderr,
		"# stats: ipackets %" PRIu64 " opackets %" PRIu64 " ierrors %" PRIu64
		" oerrors %" PRIu64 " rx_nombuf %" PRIu64 "\n",
		st.ipackets, st.opackets, st.ierrors, st.oerrors, st.rx_nombuf);
	assert_int_equal(st.ierrors, 0);
	assert_int_equal(st.oerrors, 0);
	assert_int_equal(ep_xstat(e, "rx_queue_restarts"), 0);
	assert_int_equal(ep_xstat(e, "tx_queue_restarts"), 0);
}

/* poll, intr, solicited: COUNT frames each way, none lost. */
static void test_exchange(void **state)
{
	const char *extra = strcmp(cfg.name, "solicited") == 0 ? "solicited=1" : NULL;
	uint64_t t0, ms, wake;
	struct ep e;
	pid_t peer;

	(void)state;
	cfg.intr = strcmp(cfg.name, "poll") != 0;
	assert_int_equal(ep_open(&e, "listener", true, cfg.tcp_port, extra, 0, cfg.intr, 0), 0);
	peer = spawn_peer(extra, cfg.count);
	assert_true(peer > 0);
	assert_int_equal(ep_wait_link(&e, true, IDLE_MS), 0);
	/* The bulk part may leave the listener idle a handful of times or never. */
	e.lockstep = cfg.intr ? LOCKSTEP_FRAMES : 0;
	t0 = ep_now_ms();
	assert_int_equal(ep_exchange(&e, cfg.count, IDLE_MS), 0);
	ms = ep_now_ms() - t0;
	ep_print(&e, "listener");
	fprintf(stderr, "# %" PRIu64 " frames each way in %.1f s: %.0f frames/s each way\n",
		cfg.count, ms / 1e3, cfg.count * 1e3 / (double)(ms ? ms : 1));
	assert_int_equal(e.rx_ok, cfg.count);
	assert_int_equal(e.rx_gaps, 0);
	assert_int_equal(e.rx_bad, 0);
	check_clean_stats(&e);
	if (cfg.intr) {
		wake = ep_xstat(&e, "rx_q0_intr_wakeups");
		fprintf(stderr,
			"# interrupts: sleeps %" PRIu64 " wakeups %" PRIu64 " events %" PRIu64
			" spurious %" PRIu64 "\n",
			ep_xstat(&e, "rx_q0_intr_sleeps"), wake, ep_xstat(&e, "rx_q0_intr_events"),
			ep_xstat(&e, "rx_q0_intr_spurious"));
		/*
		 * The interrupt path was really used: the lock-step frames
		 * alone wake the listener about LOCKSTEP_FRAMES times (a frame
		 * landing between two sleeps is polled instead).
		 */
		assert_true(wake >= LOCKSTEP_FRAMES / 4 && wake != UINT64_MAX);
	}
	assert_int_equal(wait_peer(peer), 0);
	e.clean_end = true;
	assert_int_equal(ep_close(&e), 0);
}

/* The link flapped under traffic: down and up seen, traffic resumes, nothing bad. */
static void test_flap(void **state)
{
	const char *netdev = getenv("DVP_RXE_NETDEV");
	char script[256];
	struct ep e;
	pid_t peer;

	(void)state;
	assert_non_null(netdev);
	assert_int_equal(ep_open(&e, "listener", true, cfg.tcp_port, NULL, 0, false, 0), 0);
	peer = spawn_peer(NULL, cfg.count);
	assert_true(peer > 0);
	assert_int_equal(ep_wait_link(&e, true, IDLE_MS), 0);
	snprintf(script, sizeof(script),
		 "sleep 0.3; ip link set %s down; sleep 1; ip link set %s up", netdev, netdev);
	run_shell(script);
	assert_int_equal(ep_exchange(&e, cfg.count, IDLE_MS), 0);
	ep_print(&e, "listener");
	fprintf(stderr,
		"# xstats: rx_queue_restarts %" PRIu64 " tx_queue_restarts %" PRIu64
		" async_link_events %" PRIu64 "\n",
		ep_xstat(&e, "rx_queue_restarts"), ep_xstat(&e, "tx_queue_restarts"),
		ep_xstat(&e, "async_link_events"));
	assert_true(e.link_downs >= 1);
	assert_true(e.link_ups >= 2);
	assert_int_equal(e.link_up, 1);
	assert_int_equal(e.rx_bad, 0);
	assert_int_equal(wait_peer(peer), 0);
	assert_int_equal(ep_close(&e), 0);
}

/* A CQ smaller than the ring and a stalled consumer: CQ_ERR, rebuilt, traffic resumes. */
static void test_overrun(void **state)
{
	struct ep e;
	uint64_t t;
	pid_t peer;

	(void)state;
	/* 128 completions fit: a consumer that polls keeps up, one that stalls does not. */
	assert_int_equal(
		ep_open(&e, "listener", true, cfg.tcp_port, "rx_cq_size=128", 0, false, 512), 0);
	peer = spawn_peer(NULL, cfg.count);
	assert_true(peer > 0);
	assert_int_equal(ep_wait_link(&e, true, IDLE_MS), 0);
	/* Some traffic, then the consumer stalls while the peer keeps sending. */
	for (t = ep_now_ms() + 300; ep_now_ms() < t;)
		ep_pump(&e, 1);
	e.tx_limit = e.tx_seq; /* and sends nothing either */
	fprintf(stderr, "# listener: stalling 2 s after %" PRIu64 " frames\n", e.rx_ok);
	sleep(2);
	/* The CQ overran meanwhile: CQ_ERR was read on the interrupt thread. */
	fprintf(stderr, "# listener: resuming; async_queue_errors %" PRIu64 ", link %s\n",
		ep_xstat(&e, "async_queue_errors"), e.link_up ? "up" : "down");
	assert_true(ep_xstat(&e, "async_queue_errors") >= 1);
	assert_int_equal(ep_exchange(&e, cfg.count, IDLE_MS), 0);
	ep_print(&e, "listener");
	fprintf(stderr, "# xstats: rx_queue_restarts %" PRIu64 " rx_dropped_on_reset %" PRIu64 "\n",
		ep_xstat(&e, "rx_queue_restarts"), ep_xstat(&e, "rx_dropped_on_reset"));
	assert_true(e.cq_err_events >= 1);
	assert_true(ep_xstat(&e, "rx_queue_restarts") >= 1);
	assert_true(e.link_downs >= 1);
	assert_int_equal(e.link_up, 1);
	assert_int_equal(e.rx_bad, 0);
	assert_int_equal(wait_peer(peer), 0);
	assert_int_equal(ep_close(&e), 0);
}

/* The peer SIGKILLed: link down, mbufs back; a new peer: link up, traffic again. */
static void test_kill(void **state)
{
	struct ep e;
	uint64_t end;
	pid_t peer;
	int st;

	(void)state;
	assert_int_equal(ep_open(&e, "listener", true, cfg.tcp_port, NULL, 0, false, 0), 0);
	peer = spawn_peer(NULL, UINT64_MAX / 2);
	assert_true(peer > 0);
	assert_int_equal(ep_wait_link(&e, true, IDLE_MS), 0);
	e.tx_limit = UINT64_MAX / 2;
	for (end = ep_now_ms() + IDLE_MS; e.rx_ok < 5000 && ep_now_ms() < end;)
		ep_pump(&e, 1);
	assert_true(e.rx_ok >= 5000);
	fprintf(stderr, "# killing the peer after %" PRIu64 " frames\n", e.rx_ok);
	assert_int_equal(kill(peer, SIGKILL), 0);
	assert_int_equal(waitpid(peer, &st, 0), peer);
	assert_true(WIFSIGNALED(st));
	e.tx_limit = e.tx_seq;
	assert_int_equal(ep_wait_link(&e, false, IDLE_MS), 0);
	/* Both queues are torn down (rx by this lcore, tx by the interrupt thread). */
	for (end = ep_now_ms() + 5000; dvp_port_mbufs_held(e.port) != 0 && ep_now_ms() < end;)
		ep_pump(&e, 1);
	fprintf(stderr,
		"# link down; the port holds %d mbufs, the pool has %u in use (%u built and waiting to be sent)\n",
		dvp_port_mbufs_held(e.port), dvp_mempool_in_use_count(e.mp), e.npending);
	assert_int_equal(dvp_port_mbufs_held(e.port), 0);
	assert_int_equal(dvp_mempool_in_use_count(e.mp), e.npending);
	/* A new peer process: it connects again. */
	peer = spawn_peer(NULL, cfg.count);
	assert_true(peer > 0);
	/* Its frames carry a new run id: the listener follows its sequence from the first. */
	assert_int_equal(ep_wait_link(&e, true, IDLE_MS), 0);
	assert_int_equal(ep_exchange(&e, cfg.count, IDLE_MS), 0);
	ep_print(&e, "listener");
	assert_true(e.link_downs >= 1);
	assert_true(e.link_ups >= 2);
	assert_int_equal(e.rx_runs, 2);
	assert_int_equal(e.rx_bad, 0);
	assert_int_equal(wait_peer(peer), 0);
	assert_int_equal(ep_close(&e), 0);
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "case", required_argument, NULL, 'c' },
		{ "peer", no_argument, NULL, 'p' },
		{ "tcp-port", required_argument, NULL, 't' },
		{ "count", required_argument, NULL, 'n' },
		{ "intr", no_argument, NULL, 'i' },
		{ "extra", required_argument, NULL, 'x' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct {
		const char *name;
		CMUnitTestFunction fn;
		int port;
	} cases[] = {
		{ "poll", test_exchange, 18701 },      { "intr", test_exchange, 18702 },
		{ "solicited", test_exchange, 18703 }, { "flap", test_flap, 18704 },
		{ "overrun", test_overrun, 18705 },    { "kill", test_kill, 18706 },
	};
	const char *env = getenv("DVP_RXE_VERBS_COUNT");
	ssize_t len;
	unsigned int i;
	int c;

	if (env != NULL)
		cfg.count = strtoull(env, NULL, 10);
	while ((c = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			cfg.name = optarg;
			break;
		case 'p':
			cfg.peer = true;
			break;
		case 't':
			cfg.tcp_port = atoi(optarg);
			break;
		case 'n':
			cfg.count = strtoull(optarg, NULL, 10);
			break;
		case 'i':
			cfg.intr = true;
			break;
		case 'x':
			cfg.extra = optarg;
			break;
		default:
			fprintf(stderr,
				"usage: %s --case poll|intr|solicited|flap|overrun|kill [--count N]\n",
				argv[0]);
			return 2;
		}
	}
	for (i = 0; i < DVP_DIM(cases) && cfg.name != NULL; i++)
		if (strcmp(cases[i].name, cfg.name) == 0)
			break;
	if (cfg.name == NULL || i == DVP_DIM(cases) || cfg.count == 0) {
		fprintf(stderr,
			"%s: --case poll|intr|solicited|flap|overrun|kill is required (and --count above 0)\n",
			argv[0]);
		return 2;
	}
	if (getenv("DVP_RXE_VM") == NULL) {
		printf("SKIP: not in the Soft-RoCE VM: run it with usertools/dvp-rxe-vm %s --case %s\n",
		       argv[0], cfg.name);
		return EXIT_SKIP;
	}
	if (cfg.peer)
		return peer_main();
	len = readlink("/proc/self/exe", cfg.self, sizeof(cfg.self) - 1);
	if (len <= 0)
		return 1;
	cfg.self[len] = '\0';
	cfg.tcp_port = cases[i].port;
	{
		const struct CMUnitTest tests[] = {
			{ .name = cfg.name, .test_func = cases[i].fn },
		};
		char group[64];

		snprintf(group, sizeof(group), "net_verbs %s", cfg.name);
		return cmocka_run_group_tests_name(group, tests, NULL, NULL);
	}
}
