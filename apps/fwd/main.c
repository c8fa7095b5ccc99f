/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * dvp-fwd: the main job. Brings up the EAL and the ports (the simulated HCA
 * when no device is given and no adapter is found), runs the forwarding
 * loops on worker lcores, prints stats from the main lcore, and stops
 * cleanly on --duration, SIGINT or SIGTERM: traffic drained, every lcore
 * out of its loop, ports stopped, the pool checked to be full.
 *
 *   dvp-fwd [EAL options] -- [options]        dvp-fwd -- --help
 *
 * Signals: SIGINT and SIGTERM are blocked in every thread (the EAL's
 * threads inherit the mask from main) and taken by the main lcore with
 * sigtimedwait() between stats lines, so no handler runs anywhere; after
 * the first one the main lcore unblocks them, so a second Ctrl-C ends the
 * process at once.
 */

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dvp_cycles.h>
#include <dvp_eal.h>

#include "app_args.h"
#include "app_eal.h"
#include "fwd.h"

static struct fwd_run run;

static double now_s(void)
{
	return (double)dvp_clock_monotonic_ns() / 1e9;
}

/* Whether the EAL arguments name devices (-a, --allow, --vdev), before "--". */
static bool device_args_given(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		const char *a = argv[i];

		if (strncmp(a, "-a", 2) == 0 || strncmp(a, "--allow", 7) == 0 ||
		    strncmp(a, "--vdev", 6) == 0)
			return true;
	}
	return false;
}

static bool want_color(void)
{
	const char *term = getenv("TERM");

	return isatty(STDOUT_FILENO) && getenv("NO_COLOR") == NULL && term != NULL &&
	       strcmp(term, "dumb") != 0;
}

/*
 * After the sources stop, wait until no counter moves for 50 ms and every
 * frame the source sent is at the sink or counted lost (at most 2 s), so
 * that every packet in flight reaches the sink before the lcores stop: a
 * device that fell silent for a while under load may still hold frames
 * in a receive queue. @return whether traffic did stop.
 */
static bool drain(void)
{
	uint64_t last = fwd_stats_moved(&run), cur;
	const struct timespec tick = { 0, 10 * 1000 * 1000 };
	unsigned int still = 0, i;

	for (i = 0; i < 200 && still < 5; i++) {
		nanosleep(&tick, NULL);
		cur = fwd_stats_moved(&run);
		still = cur == last && fwd_stats_in_flight(&run) == 0 ? still + 1 : 0;
		last = cur;
	}
	return still >= 5;
}

/*
 * Run until --duration passes, a signal arrives or an lcore fails, printing
 * a stats line per port every period. @return the signal, or 0.
 */
static int wait_for_end(const sigset_t *sigs, double start)
{
	const struct fwd_config *cfg = &run.cfg;
	double next = cfg->stats_period > 0 ? start + cfg->stats_period : 0;
	double end = cfg->duration > 0 ? start + cfg->duration : 0;

	for (;;) {
		double t = now_s(), until = t + 0.2; /* wake up to notice a failed lcore */
		struct timespec ts;
		int sig;

		if (next != 0 && next < until)
			until = next;
		if (end != 0 && end < until)
			until = end;
		if (until > t) {
			ts.tv_sec = (time_t)(until - t);
			ts.tv_nsec = (long)((until - t - (double)ts.tv_sec) * 1e9);
			sig = sigtimedwait(sigs, NULL, &ts);
			if (sig > 0)
				return sig;
		}
		if (fwd_stopping())
			return 0;
		t = now_s();
		if (next != 0 && t >= next) {
			fwd_stats_period(&run, t - start);
			next += cfg->stats_period;
			if (next <= t)
				next = t + cfg->stats_period;
		}
		if (end != 0 && t >= end)
			return 0;
	}
}

static int setup(bool devices_given)
{
	int ret;

	if (run.cfg.sim_args != NULL && devices_given) {
		fprintf(stderr,
			FWD_PROG ": --sim '%s': --sim adds to the default simulated HCA, which "
				 "is not used when devices are given (-a, --vdev)\n",
			run.cfg.sim_args);
		run.usage_error = true;
		return -EINVAL;
	}
	ret = fwd_check_lcores(&run);
	if (ret != 0)
		return ret;
	if (!devices_given && dvp_port_count() == 0) {
		if (!fwd_sim_available()) {
			fprintf(stderr, FWD_PROG
				": no device given and no RDMA adapter found, and this "
				"build has no mlx5 driver to run the simulated HCA; give a "
				"device, e.g. --vdev net_ring0 --vdev net_ring1 -- "
				"--tx-first\n");
			return -ENODEV;
		}
		ret = fwd_sim_create_default(&run);
		if (ret != 0)
			return ret;
	}
	ret = fwd_ports_init(&run);
	if (ret != 0)
		return ret;
	ret = fwd_streams_init(&run);
	if (ret != 0)
		return ret;
	fwd_sim_attach(&run);
	return 0;
}

static int launch(void)
{
	unsigned int i;
	int ret;

	for (i = 0; i < run.nb_lcores; i++) {
		ret = dvp_eal_remote_launch(fwd_lcore_main, &run.lcores[i], run.lcores[i].lcore_id);
		if (ret != 0) {
			fprintf(stderr, FWD_PROG ": cannot launch lcore %u: %s\n",
				run.lcores[i].lcore_id, dvp_strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* Stop the lcores: the flag, a kick for those asleep, then wait. @return lcores that failed. */
static unsigned int stop_lcores(void)
{
	unsigned int i, failed = 0;

	/* Relaxed: see fwd_stopping(). */
	__atomic_store_n(&fwd_stop_flag, true, __ATOMIC_RELAXED);
	for (i = 0; i < run.nb_lcores; i++)
		if (run.lcores[i].set != NULL)
			dvp_rx_wait_kick(run.lcores[i].set);
	for (i = 0; i < run.nb_lcores; i++) {
		int ret = dvp_eal_wait_lcore(run.lcores[i].lcore_id);

		if (ret < 0) {
			fprintf(stderr, FWD_PROG ": lcore %u stopped on an error: %s\n",
				run.lcores[i].lcore_id, dvp_strerror(-ret));
			failed++;
		}
	}
	return failed;
}

int main(int argc, char **argv)
{
	struct fwd_result res = { .drained = true };
	bool devices = device_args_given(argc, argv);
	double start, end;
	sigset_t sigs;
	int n, ret, status, sig = 0;

	app_block_stop_signals(&sigs);

	n = app_eal_init(FWD_PROG, argc, argv, &status);
	if (n < 0)
		return status;
	argc -= n;
	argv += n;
	ret = fwd_parse_args(argc, argv, &run.cfg);
	if (ret != 0) {
		dvp_eal_cleanup();
		return ret > 0 ? FWD_EXIT_OK : FWD_EXIT_USAGE;
	}
	/* Lines, not blocks, so that ours and the log's (stderr) keep their order. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	run.out = stdout;
	run.note = run.cfg.json ? stderr : stdout;
	run.color = !run.cfg.json && want_color();

	ret = setup(devices);
	if (ret != 0) {
		status = run.usage_error ? FWD_EXIT_USAGE : FWD_EXIT_FAIL;
		if (run.usage_error)
			fprintf(stderr, "Try '" FWD_PROG " -- --help' for more information.\n");
		goto out;
	}
	ret = fwd_ports_start(&run);
	if (ret == 0 && run.cfg.tx_first)
		ret = fwd_tx_first(&run);
	if (ret != 0) {
		status = FWD_EXIT_FAIL;
		goto out;
	}
	fwd_print_config(&run);
	/* Release: see port_event_cb(). */
	__atomic_store_n(&run.running, true, __ATOMIC_RELEASE);
	fwd_links_catch_up(&run);
	fwd_stats_init(&run);
	fwd_sim_start(&run);
	start = now_s();
	ret = launch();
	if (ret == 0)
		sig = wait_for_end(&sigs, start);
	if (sig != 0) {
		fprintf(run.note, FWD_PROG ": %s: stopping (again to quit at once)\n",
			sig == SIGINT ? "SIGINT" : "SIGTERM");
		/* A second signal now ends the process: the default action. */
		pthread_sigmask(SIG_UNBLOCK, &sigs, NULL);
	}
	if (ret == 0 && fwd_sim_in_use(&run) && fwd_mode_receives(run.cfg.mode)) {
		fwd_sim_stop_sources(&run);
		res.drained = drain();
	}
	end = now_s();
	res.errors += stop_lcores();
	fwd_events_off(&run);
	res.errors += (unsigned int)fwd_ports_stop(&run);
	/*
	 * After the stop: what a driver drops and counts while stopping (sends
	 * flushed from its queues) belongs in the verdict.
	 */
	fwd_stats_final(&run);
	res.pool_in_use = dvp_pktmbuf_pool_in_use(run.pool);
	if (res.pool_in_use != 0)
		fprintf(stderr,
			FWD_PROG ": %u mbufs are missing from the pool after the ports stopped\n",
			res.pool_in_use);
	status = ret != 0 ? FWD_EXIT_FAIL : fwd_summary(&run, end - start, &res);
out:
	fwd_teardown(&run);
	if (dvp_eal_cleanup() != 0 && status == FWD_EXIT_OK)
		status = FWD_EXIT_FAIL;
	return status;
}
