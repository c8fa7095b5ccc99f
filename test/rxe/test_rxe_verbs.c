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
 *   --case first-frame  the listener's first frame lands between its accept
 *                     and ESTABLISHED (the driver's test hook holds it there)
 *                     while its lcore sleeps: going live wakes the lcore
 *   --case teardown   the peer stops its port with 64-byte (inline) sends in
 *                     flight: every frame that did not arrive is counted lost
 *   --case listen-taken  listen=0.0.0.0 on a port another rdma_cm listener
 *                     holds: the error says the port is taken
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
#include <rdma/rdma_cma.h>

#include <dvp_log.h>
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
/*
 * first-frame: one sleep of the listener, asleep before the peer
 * connects; a frame found after it timed out waited through it unwoken.
 * Below IDLE_MS, after which the peer gives up.
 */
#define FIRST_FRAME_WAIT_MS 10000
/* teardown: frames short enough to go inline (tx_inline is 64 by default). */
#define TEARDOWN_FRAME_LEN 64
/* teardown: the peer's ring is full once its bursts take nothing for this long. */
#define TEARDOWN_STALL_MS 500
/* The peer writes its counters to this fd (--report). */
#define REPORT_FD 3

static struct {
	const char *name; /* the case */
	bool peer; /* this process is the peer */
	int tcp_port;
	uint64_t count;
	bool intr;
	const char *extra; /* devargs for the peer */
	bool report; /* the peer writes its counters to REPORT_FD */
	char self[4096];
} cfg = {
	.count = 1000000,
};

/* ------------------------------------------------------------------------
 * The peer: connects, exchanges, checks, exits 0 or 1
 */

static bool is_case(const char *name)
{
	return strcmp(cfg.name, name) == 0;
}

/*
 * teardown: send 64-byte frames until the ring is full (the listener does
 * not poll, so its receives run out and our sends wait on RNR retries),
 * then stop the port with them in flight and report what the port counted.
 */
static int peer_teardown(struct ep *e)
{
	struct dvp_port_stats st;
	uint64_t last = ep_now_ms();
	int status = 0;

	e->frame_len = TEARDOWN_FRAME_LEN;
	e->tx_start = e->tx_seq;
	e->tx_limit = cfg.count;
	while (e->tx_seq < e->tx_limit && ep_now_ms() - last < TEARDOWN_STALL_MS)
		if (ep_pump(e, 0) > 0)
			last = ep_now_ms();
	if (dvp_port_stop(e->port) < 0 || dvp_stats_get(e->port, &st) < 0)
		status = 1;
	fprintf(stderr,
		"# peer: stopped after %" PRIu64 " frames: opackets %" PRIu64 " oerrors %" PRIu64
		" tx_dropped_on_reset %" PRIu64 " tx_wc_wr_flush_err %" PRIu64 "\n",
		e->tx_seq, st.opackets, st.oerrors, ep_xstat(e, "tx_dropped_on_reset"),
		ep_xstat(e, "tx_wc_wr_flush_err"));
	if (cfg.report)
		dprintf(REPORT_FD, "%" PRIu64 " %" PRIu64 " %" PRIu64 "\n", st.opackets, st.oerrors,
			ep_xstat(e, "tx_dropped_on_reset"));
	return status;
}

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
	/* first-frame: send as soon as our tx queue is up, not when the link is. */
	if (ret == 0 && !is_case("first-frame"))
		ret = ep_wait_link(&e, true, IDLE_MS);
	if (ret == 0 && is_case("teardown")) {
		status = peer_teardown(&e);
		if (ep_close(&e) < 0)
			status = 1;
		return status;
	}
	e.lockstep = cfg.intr || is_case("first-frame") ? LOCKSTEP_FRAMES : 0;
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
	if (is_case("poll") || is_case("intr") || is_case("solicited") || is_case("first-frame")) {
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

/* Start the peer; with @report_fd >= 0 it writes its counters there (as its REPORT_FD). */
static pid_t spawn_peer_report(const char *extra, uint64_t count, int report_fd)
{
	posix_spawn_file_actions_t fa;
	char port[16], cnt[32];
	char *argv[16];
	pid_t pid;
	int n = 0, ret;

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
	if (report_fd >= 0)
		argv[n++] = "--report";
	argv[n] = NULL;
	if (posix_spawn_file_actions_init(&fa) != 0)
		return -1;
	if (report_fd >= 0)
		posix_spawn_file_actions_adddup2(&fa, report_fd, REPORT_FD);
	ret = posix_spawn(&pid, cfg.self, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	return ret != 0 ? -1 : pid;
}

static pid_t spawn_peer(const char *extra, uint64_t count)
{
	return spawn_peer_report(extra, count, -1);
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
	/*
	 * The VM is emulated (TCG): a loaded host stalls it for seconds, and
	 * a stall longer than the watchdog's 1 s rebuilds a healthy queue.
	 * These cases count frames; the flap, kill and overrun cases test
	 * the watchdog.
	 */
	const char *extra = strcmp(cfg.name, "solicited") == 0 ? "solicited=1,tx_timeout=30000" :
								 "tx_timeout=30000";
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
	assert_true(e.link_up_at_fin);
	assert_int_equal(e.rx_bad, 0);
	assert_int_equal(wait_peer(peer), 0);
	assert_int_equal(ep_close(&e), 0);
}

/* Echo @log to stderr ("# log: ...") and @return how many of its lines contain @what. */
static unsigned int count_lines(FILE *log, const char *what)
{
	char line[1024];
	unsigned int n = 0;

	rewind(log);
	while (fgets(line, sizeof(line), log) != NULL) {
		fprintf(stderr, "# log: %s", line);
		n += strstr(line, what) != NULL;
	}
	fclose(log);
	return n;
}

/* A CQ smaller than the ring and a stalled consumer: CQ_ERR, rebuilt, traffic resumes. */
static void test_overrun(void **state)
{
	struct ep e;
	uint64_t t;
	pid_t peer;

	(void)state;
	FILE *log = tmpfile();
	unsigned int cq_lines;

	assert_non_null(log);
	/* 128 completions fit: a consumer that polls keeps up, one that stalls does not. */
	assert_int_equal(
		ep_open(&e, "listener", true, cfg.tcp_port, "rx_cq_size=128", 0, false, 512), 0);
	/* The driver's lines from here on, INFO ones too, to count those about the overrun. */
	assert_int_equal(dvp_log_set_level_pattern("pmd.net.verbs", DVP_LOG_INFO), 1);
	dvp_log_open_stream(log);
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
	/*
	 * The overrun reached the port as CQ_ERR (counted above), and the queue
	 * was rebuilt: the QUEUE_ERROR event names CQ_ERR when the interrupt
	 * thread breaks the queue first, or the driver's own cause when the
	 * lcore finds the CQ in error first (a loaded machine, where the
	 * consumer lags before the stall, does that).
	 */
	fprintf(stderr, "# queue errors %u (CQ_ERR as the cause: %u)\n", e.queue_errors,
		e.cq_err_events);
	assert_true(e.queue_errors >= 1);
	assert_true(ep_xstat(&e, "rx_queue_restarts") >= 1);
	assert_true(e.link_downs >= 1);
	assert_true(e.link_up_at_fin);
	assert_int_equal(e.rx_bad, 0);
	/*
	 * An overrun CQ raises CQ_ERR for each completion it cannot take: one
	 * stall is one overrun, worth one line (two if a late CQ_ERR of the old
	 * CQ races with its replacement), however many events came.
	 */
	dvp_log_open_stream(NULL);
	cq_lines = count_lines(log, dvp_port_event_cause_name(DVP_PORT_CAUSE_CQ_ERROR));
	fprintf(stderr, "# %u log lines name %s; async_queue_errors %" PRIu64 "\n", cq_lines,
		dvp_port_event_cause_name(DVP_PORT_CAUSE_CQ_ERROR),
		ep_xstat(&e, "async_queue_errors"));
	assert_true(cq_lines <= 2);
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

/*
 * The first frame lands while the listener's rx queue is accepted but not
 * live, its lcore asleep: the wake-up it causes finds nothing to do, so
 * the queue going live must wake the lcore again. The driver's test hook
 * holds the interrupt thread between accept and ESTABLISHED until the
 * lcore has read that event.
 */
static void test_first_frame(void **state)
{
	struct dvp_rx_wait_event ev;
	struct ep e;
	pid_t peer;
	int ret, n;

	(void)state;
	/* Read at probe, by this process's port only. */
	assert_int_equal(setenv("DVP_VERBS_TEST_HOLD_ACCEPT_MS", "60000", 1), 0);
	assert_int_equal(ep_open(&e, "listener", true, cfg.tcp_port, NULL, 0, true, 0), 0);
	assert_int_equal(unsetenv("DVP_VERBS_TEST_HOLD_ACCEPT_MS"), 0);
	peer = spawn_peer(NULL, cfg.count);
	assert_true(peer > 0);
	do {
		ret = dvp_rx_wait(e.set, &ev, 1, FIRST_FRAME_WAIT_MS);
		assert_true(ret >= 0);
		n = ep_rx_only(&e);
		if (ret == 0 && n > 0)
			fail_msg(
				"a frame waited through a whole %d ms sleep: nothing woke the lcore when the queue went live (spurious %" PRIu64
				", kicks %" PRIu64 ")",
				FIRST_FRAME_WAIT_MS, ep_xstat(&e, "rx_q0_intr_spurious"),
				ep_xstat(&e, "rx_kicks"));
		/* A queue torn down (the peer gave up) drops what it held: never wait for more. */
		if (n == 0 && (e.link_downs > 0 || ep_xstat(&e, "rx_dropped_on_reset") != 0))
			fail_msg("the connection ended before the first frame was taken");
	} while (n == 0);
	fprintf(stderr,
		"# first frame: woken; spurious %" PRIu64
		" (the frame before the queue was live), kicks %" PRIu64 "\n",
		ep_xstat(&e, "rx_q0_intr_spurious"), ep_xstat(&e, "rx_kicks"));
	/* The hold did its part: the frame came before the queue was live. */
	assert_true(ep_xstat(&e, "rx_q0_intr_spurious") >= 1);
	e.lockstep = LOCKSTEP_FRAMES;
	assert_int_equal(ep_exchange(&e, cfg.count, IDLE_MS), 0);
	ep_print(&e, "listener");
	assert_int_equal(e.rx_ok, cfg.count);
	assert_int_equal(e.rx_gaps, 0);
	assert_int_equal(e.rx_bad, 0);
	assert_int_equal(wait_peer(peer), 0);
	e.clean_end = true;
	assert_int_equal(ep_close(&e), 0);
}

/*
 * The peer stops its port with 64-byte (inline) sends in flight: sent =
 * received + what the two ends count as lost. We do not poll meanwhile,
 * so its sends wait on RNR retries when our receives run out, and its
 * stop flushes them (no watchdog: tx_timeout=0).
 */
static void test_teardown(void **state)
{
	uint64_t sent = 0, oerrors = 0, tx_lost = 0, rx_lost, end;
	struct ep e;
	FILE *rep;
	pid_t peer;
	int fds[2];

	(void)state;
	assert_int_equal(ep_open(&e, "listener", true, cfg.tcp_port, NULL, 0, false, 0), 0);
	e.frame_len = TEARDOWN_FRAME_LEN;
	assert_int_equal(pipe(fds), 0);
	peer = spawn_peer_report("tx_timeout=0", cfg.count, fds[1]);
	close(fds[1]);
	assert_true(peer > 0);
	assert_int_equal(ep_wait_link(&e, true, IDLE_MS), 0);
	rep = fdopen(fds[0], "r");
	assert_non_null(rep);
	assert_int_equal(fscanf(rep, "%" SCNu64 " %" SCNu64 " %" SCNu64, &sent, &oerrors, &tx_lost),
			 3);
	fclose(rep);
	/* Its stop disconnected us: what arrived is taken, the rest dropped at our teardown. */
	assert_int_equal(ep_wait_link(&e, false, IDLE_MS), 0);
	for (end = ep_now_ms() + 5000; dvp_port_mbufs_held(e.port) != 0 && ep_now_ms() < end;)
		ep_pump(&e, 1);
	assert_int_equal(dvp_port_mbufs_held(e.port), 0);
	rx_lost = ep_xstat(&e, "rx_dropped_on_reset");
	ep_print(&e, "listener");
	fprintf(stderr,
		"# sent %" PRIu64 ", received %" PRIu64 ", lost: peer tx_dropped_on_reset %" PRIu64
		" (oerrors %" PRIu64 "), our rx_dropped_on_reset %" PRIu64 "\n",
		sent, e.rx_ok, tx_lost, oerrors, rx_lost);
	assert_int_equal(e.rx_bad, 0);
	assert_int_equal(e.rx_gaps, 0);
	assert_true(e.rx_ok <= sent);
	/* The stop caught sends in flight: the case tested. */
	assert_true(e.rx_ok < sent);
	assert_true(oerrors >= tx_lost);
	/*
	 * Nothing lost unseen. (A send delivered whose ack the flush beat is
	 * counted as received and as lost: the sum may exceed what was sent.)
	 */
	if (e.rx_ok + rx_lost + tx_lost < sent)
		fail_msg("%" PRIu64 " frames lost with no counter showing them",
			 sent - e.rx_ok - rx_lost - tx_lost);
	assert_int_equal(wait_peer(peer), 0);
	assert_int_equal(ep_close(&e), 0);
}

/*
 * listen=0.0.0.0 on a port another rdma_cm listener holds: rdma_cm says
 * EADDRNOTAVAIL, which means the port is taken here, not a missing
 * address.
 */
static void test_listen_taken(void **state)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(cfg.tcp_port) };
	struct rdma_event_channel *ch = rdma_create_event_channel();
	struct rdma_cm_id *id = NULL;
	char want[64];
	FILE *log = tmpfile();
	struct ep e;

	(void)state;
	assert_non_null(ch);
	assert_non_null(log);
	assert_int_equal(rdma_create_id(ch, &id, NULL, RDMA_PS_TCP), 0);
	assert_int_equal(rdma_bind_addr(id, (struct sockaddr *)&sin), 0);
	assert_int_equal(rdma_listen(id, 1), 0);
	dvp_log_open_stream(log);
	assert_int_equal(setenv("DVP_RXE_IP", "0.0.0.0", 1), 0);
	assert_true(ep_open(&e, "listener", true, cfg.tcp_port, NULL, 0, false, 0) < 0);
	dvp_log_open_stream(NULL);
	snprintf(want, sizeof(want), "port %d is taken", cfg.tcp_port);
	assert_int_equal(count_lines(log, want), 1);
	rdma_destroy_id(id);
	rdma_destroy_event_channel(ch);
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
		{ "report", no_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct {
		const char *name;
		CMUnitTestFunction fn;
		int port;
	} cases[] = {
		{ "poll", test_exchange, 18701 },
		{ "intr", test_exchange, 18702 },
		{ "solicited", test_exchange, 18703 },
		{ "flap", test_flap, 18704 },
		{ "overrun", test_overrun, 18705 },
		{ "kill", test_kill, 18706 },
		{ "first-frame", test_first_frame, 18707 },
		{ "teardown", test_teardown, 18708 },
		{ "listen-taken", test_listen_taken, 18709 },
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
		case 'r':
			cfg.report = true;
			break;
		default:
			fprintf(stderr,
				"usage: %s --case poll|intr|solicited|flap|overrun|kill|first-frame|teardown|listen-taken [--count N]\n",
				argv[0]);
			return 2;
		}
	}
	for (i = 0; i < DVP_DIM(cases) && cfg.name != NULL; i++)
		if (strcmp(cases[i].name, cfg.name) == 0)
			break;
	if (cfg.name == NULL || i == DVP_DIM(cases) || cfg.count == 0) {
		fprintf(stderr,
			"%s: --case poll|intr|solicited|flap|overrun|kill|first-frame|teardown|listen-taken is required (and --count above 0)\n",
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
