/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * dvp-events: watch every port and print each event as it happens, with a
 * timestamp, as ibv_asyncwatch does for a verbs device: link up and down
 * with the speed, queue errors with the reason and the async event behind
 * them, removal. Runs until Ctrl-C (SIGINT) or
 * SIGTERM, --count N events or --timeout S seconds.
 *
 *   dvp-events [EAL options] -- [--count N] [--timeout S] [--rx] [--json]
 *
 * Each port is configured with one rx and one tx queue and started, since
 * links come up with a started port and queue errors need queues. With
 * --rx the rx queues are also emptied (in interrupt mode: the main thread
 * sleeps on them), so traffic flows and faults on the receive path show.
 *
 * Events arrive on the EAL interrupt thread; the callback writes the line
 * there (callbacks run one at a time) and counts it. Signals are blocked
 * in every thread and taken by the main thread with sigtimedwait().
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include <dvp_cycles.h>
#include <dvp_eal.h>
#include <dvp_json.h>
#include <dvp_mbuf.h>
#include <dvp_parse.h>
#include <dvp_port.h>

#include "app_args.h"
#include "app_eal.h"

#define PRG "dvp-events"
#define WAIT_MS 100

static struct {
	uint64_t count; /* stop after this many events (0: never) */
	double timeout; /* seconds, 0: none */
	bool json;
	bool rx;
	bool no_start;
} opt;

static struct {
	uint64_t events; /* printed (atomic: interrupt thread writes, main reads) */
	double start;
	struct dvp_mempool *pool;
	struct dvp_rxwait_set *set;
	bool started[DVP_MAX_PORTS];
	bool watching;
} W;

static double mono_s(void)
{
	return (double)dvp_clock_monotonic_ns() / 1e9;
}

/* The wall-clock time as ISO 8601 with microseconds, local time. */
static void timestamp(char *buf, size_t len)
{
	struct timeval tv;
	struct tm tm;
	size_t n;

	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%06ld", (long)tv.tv_usec);
}

static void print_event(uint16_t port_id, enum dvp_port_event event,
			const struct dvp_port_event_info *info)
{
	char ts[48], name[64] = "?", link[64], what[160] = "";
	const char *cause = dvp_port_event_cause_name(info->cause);
	double t = mono_s() - W.start;

	/* Both clocks together: the thread may be preempted further down. */
	timestamp(ts, sizeof(ts));
	dvp_port_get_name(port_id, name, sizeof(name));
	switch (event) {
	case DVP_PORT_EVENT_LINK_STATUS_CHANGE:
		dvp_link_to_str(link, sizeof(link), &info->link);
		snprintf(what, sizeof(what), "%s", link);
		break;
	case DVP_PORT_EVENT_QUEUE_ERROR:
		snprintf(what, sizeof(what), "%s queue %u: %s", info->queue.tx ? "tx" : "rx",
			 info->queue.queue_id, info->queue.reason);
		break;
	case DVP_PORT_EVENT_REMOVAL:
		snprintf(what, sizeof(what), "the device was removed");
		break;
	default:
		break;
	}
	if (!opt.json) {
		printf("%s port %u (%s) %s: %s%s%s%s\n", ts, port_id, name,
		       dvp_port_event_name(event), what, cause ? " [" : "", cause ? cause : "",
		       cause ? "]" : "");
	} else {
		struct dvp_json w;

		dvp_json_init_file(&w, stdout);
		dvp_json_obj_open(&w, NULL);
		dvp_json_str(&w, "time", ts);
		dvp_json_fixed(&w, "t", t, 6);
		dvp_json_u64(&w, "port", port_id);
		dvp_json_str(&w, "name", name);
		dvp_json_str(&w, "event", dvp_port_event_name(event));
		if (event == DVP_PORT_EVENT_LINK_STATUS_CHANGE) {
			dvp_json_obj_open(&w, "link");
			dvp_json_bool(&w, "up", info->link.link_status);
			dvp_json_i64(&w, "speed_mbps",
				     info->link.link_speed == DVP_LINK_SPEED_UNKNOWN ?
					     -1 :
					     (int64_t)info->link.link_speed);
			dvp_json_str(&w, "duplex", info->link.link_duplex ? "full" : "half");
			dvp_json_obj_close(&w);
		}
		if (event == DVP_PORT_EVENT_QUEUE_ERROR) {
			dvp_json_u64(&w, "queue", info->queue.queue_id);
			dvp_json_bool(&w, "tx", info->queue.tx);
			dvp_json_str(&w, "reason", info->queue.reason);
		}
		dvp_json_str(&w, "cause", cause);
		dvp_json_obj_close(&w);
		putchar('\n');
	}
	fflush(stdout);
}

/* On the EAL interrupt thread, one callback at a time. */
static void event_cb(uint16_t port_id, enum dvp_port_event event,
		     const struct dvp_port_event_info *info, void *arg)
{
	(void)arg;
	if (!__atomic_load_n(&W.watching, __ATOMIC_ACQUIRE))
		return;
	if (opt.count != 0 && __atomic_load_n(&W.events, __ATOMIC_RELAXED) >= opt.count)
		return;
	print_event(port_id, event, info);
	/* Release: the main thread, seeing the count, sees the line written. */
	__atomic_fetch_add(&W.events, 1, __ATOMIC_RELEASE);
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: " PRG " [EAL options] [-- options]\n"
		   "\n"
		   "Watch every port and print each event as it happens, with the local time:\n"
		   "  LINK_STATUS_CHANGE  the link went up (with its speed) or down\n"
		   "  QUEUE_ERROR         a queue broke and was restarted: the reason, and the\n"
		   "                      device event behind it in brackets (CQ_ERROR, ...)\n"
		   "  REMOVAL             the device is gone (device fatal error, unplug)\n"
		   "Each port gets one rx and one tx queue and is started, so that its link\n"
		   "comes up and its queues can report errors. Runs until SIGINT (Ctrl-C) or\n"
		   "SIGTERM, or as the options below say.\n"
		   "\n"
		   "Options:\n"
		   "  --count=N      Stop after N events.\n"
		   "  --timeout=S    Stop after S seconds (decimals are fine); with --count,\n"
		   "                 exit with status 1 if fewer than N events came.\n"
		   "  --rx           Empty the rx queues (sleeping on their interrupts), so that\n"
		   "                 traffic flows and receive faults show.\n"
		   "  --no-start     Configure the ports but do not start them.\n"
		   "  --json         One JSON object per event on stdout; notices go to stderr.\n"
		   "  -h, --help     Print this help.\n"
		   "\n"
		   "Examples:\n"
		   "  " PRG " -a mlx5_0                              a ConnectX adapter\n"
		   "  " PRG " --no-huge --vdev sim_mlx5,flap=[at:200ms,down:100ms] -- --count 2\n"
		   "                                   the simulated HCA's link flaps once\n"
		   "\n"
		   "EAL options: " PRG " -h. Exit status: 0; 1 on a failure or a --timeout\n"
		   "before --count events; 2 for bad arguments. See doc/apps.md.\n");
}

static int bad_arg(const char *o, const char *v, const char *expected)
{
	fprintf(stderr, PRG ": --%s '%s': %s\nTry '" PRG " -- --help' for more information.\n", o,
		v, expected);
	return -EINVAL;
}

/* @return 0, 1 for --help, -EINVAL after the error line. */
static int parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "count", required_argument, NULL, 'c' },
		{ "timeout", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "rx", no_argument, NULL, 'r' },
		{ "no-start", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int o;

	opterr = 0;
	optind = 1;
	while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (o) {
		case 'c':
			if (dvp_parse_u64(optarg, 1, UINT64_MAX, &opt.count) < 0)
				return bad_arg("count", optarg,
					       "expected a number of events from 1");
			break;
		case 't':
			if (dvp_parse_double(optarg, 0, 31536000, &opt.timeout) < 0 ||
			    opt.timeout <= 0)
				return bad_arg("timeout", optarg,
					       "expected seconds above 0, e.g. 10 or 0.5");
			break;
		case 'j':
			opt.json = true;
			break;
		case 'r':
			opt.rx = true;
			break;
		case 'n':
			opt.no_start = true;
			break;
		case 'h':
			usage(stdout);
			return 1;
		default:
			return app_option_refused(PRG, argv, o, opts,
						  "--count, --timeout, --rx, --no-start, --json, "
						  "--help");
		}
	}
	if (optind < argc) {
		fprintf(stderr, PRG ": unexpected argument '%s'\n", argv[optind]);
		goto hint;
	}
	if (opt.rx && opt.no_start) {
		fprintf(stderr, PRG ": --rx empties started queues: not with --no-start\n");
		goto hint;
	}
	return 0;
hint:
	fprintf(stderr, "Try '" PRG " -- --help' for more information.\n");
	return -EINVAL;
}

/* One rx and one tx queue per port, link and removal events where the driver has them. */
static int ports_setup(FILE *note)
{
	unsigned int n = 4096;
	uint16_t p;
	int ret;

	DVP_PORT_FOREACH(p) {
		struct dvp_port_info in;

		if (dvp_port_info_get(p, &in) == 0)
			n += (unsigned int)(in.default_rxq_size ? in.default_rxq_size : 1024) +
			     (in.default_txq_size ? in.default_txq_size : 1024);
	}
	W.pool = dvp_pktmbuf_pool_create("events_pool", n, 0, 0, DVP_MBUF_DEFAULT_BUF_SIZE,
					 DVP_SOCKET_ANY);
	if (W.pool == NULL) {
		fprintf(stderr, PRG ": cannot create a pool of %u mbufs: %s\n", n,
			dvp_strerror(dvp_errno));
		return -dvp_errno;
	}
	if (opt.rx) {
		W.set = dvp_rxwait_set_create(DVP_MAX_PORTS);
		if (W.set == NULL)
			return -dvp_errno;
	}
	DVP_PORT_FOREACH(p) {
		struct dvp_port_conf conf;
		struct dvp_port_info in;
		char name[64] = "";

		dvp_port_get_name(p, name, sizeof(name));
		if (dvp_port_info_get(p, &in) != 0)
			return -EINVAL;
		memset(&conf, 0, sizeof(conf));
		conf.intr_conf.lsc = !!(in.intr_capa & DVP_PORT_INTR_LSC);
		conf.intr_conf.rmv = !!(in.intr_capa & DVP_PORT_INTR_RMV);
		conf.intr_conf.rxq = opt.rx && (in.intr_capa & DVP_PORT_INTR_RXQ);
		if (!conf.intr_conf.lsc)
			fprintf(note, PRG ": port %u (%s): its driver reports no link changes\n", p,
				name);
		if (opt.rx && !conf.intr_conf.rxq)
			fprintf(note,
				PRG ": port %u (%s): no rx interrupts: --rx leaves it alone\n", p,
				name);
		ret = dvp_port_configure(p, 1, 1, &conf);
		if (ret == 0)
			ret = dvp_rxq_setup(p, 0, 0, DVP_SOCKET_ANY, NULL, W.pool);
		if (ret == 0)
			ret = dvp_txq_setup(p, 0, 0, DVP_SOCKET_ANY, NULL);
		if (ret == 0 && !opt.no_start) {
			ret = dvp_port_start(p);
			W.started[p] = ret == 0;
		}
		if (ret == 0 && conf.intr_conf.rxq)
			ret = dvp_rx_intr_ctl(p, 0, W.set, DVP_RX_INTR_CTL_ADD, NULL);
		if (ret != 0) {
			fprintf(stderr, PRG ": port %u (%s): cannot set it up: %s\n", p, name,
				dvp_strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* @return 0, or the number of mbufs missing from the pool. */
static unsigned int ports_teardown(void)
{
	unsigned int missing = 0;
	uint16_t p;

	DVP_PORT_FOREACH(p) {
		if (W.set != NULL)
			dvp_rx_intr_ctl(p, 0, W.set, DVP_RX_INTR_CTL_DEL, NULL);
		if (W.started[p])
			dvp_port_stop(p);
		W.started[p] = false;
	}
	if (W.pool != NULL) {
		missing = dvp_pktmbuf_pool_in_use(W.pool);
		if (missing != 0)
			fprintf(stderr, PRG ": %u mbufs are missing from the pool\n", missing);
	}
	DVP_PORT_FOREACH(p)
		dvp_port_close(p);
	dvp_rxwait_set_free(W.set);
	if (W.pool != NULL)
		dvp_mempool_free(W.pool);
	return missing;
}

/* --rx: sleep on the rx queues for up to WAIT_MS, free what came. */
static int rx_wait(void)
{
	struct dvp_rx_wait_event ev[16];
	struct dvp_mbuf *pkts[64];
	int n, i;

	n = dvp_rx_wait(W.set, ev, 16, WAIT_MS);
	for (i = 0; i < n; i++) {
		uint16_t got;

		while ((got = dvp_rx_burst(ev[i].port_id, ev[i].queue_id, pkts, 64)) != 0)
			dvp_pktmbuf_free_bulk(pkts, got);
	}
	return n < 0 ? n : 0;
}

/* Wait for the end. @return 0, or 1 when --timeout came before --count events. */
static int watch(const sigset_t *sigs, FILE *note)
{
	const struct timespec zero = { 0, 0 }, slice = { 0, WAIT_MS * 1000000L };
	int sig;

	for (;;) {
		if (opt.count != 0 && __atomic_load_n(&W.events, __ATOMIC_ACQUIRE) >= opt.count)
			return 0;
		if (opt.timeout > 0 && mono_s() - W.start >= opt.timeout) {
			if (opt.count == 0)
				return 0;
			fprintf(note,
				PRG ": --timeout %g: %" PRIu64 " of %" PRIu64 " events came\n",
				opt.timeout, __atomic_load_n(&W.events, __ATOMIC_ACQUIRE),
				opt.count);
			return 1;
		}
		if (W.set != NULL && dvp_rxwait_set_count(W.set) != 0) {
			if (rx_wait() < 0)
				return 1;
			sig = sigtimedwait(sigs, NULL, &zero);
		} else {
			sig = sigtimedwait(sigs, NULL, &slice);
		}
		if (sig > 0) {
			fprintf(note, PRG ": %s: stopping\n", sig == SIGINT ? "SIGINT" : "SIGTERM");
			return 0;
		}
	}
}

int main(int argc, char **argv)
{
	/*
	 * Not NEW: the ports probed at init are announced on the interrupt
	 * thread, after we register; we watch every port anyway.
	 */
	static const enum dvp_port_event evs[] = {
		DVP_PORT_EVENT_LINK_STATUS_CHANGE,
		DVP_PORT_EVENT_QUEUE_ERROR,
		DVP_PORT_EVENT_REMOVAL,
	};
	unsigned int i;
	sigset_t sigs;
	FILE *note;
	int n, ret, status = 0;
	uint16_t p;

	app_block_stop_signals(&sigs);
	n = app_eal_init(PRG, argc, argv, &status);
	if (n < 0)
		return status;
	ret = parse_args(argc - n, argv + n);
	if (ret != 0) {
		dvp_eal_cleanup();
		return ret > 0 ? 0 : 2;
	}
	note = opt.json ? stderr : stdout;
	if (dvp_port_count() == 0) {
		/* Nothing was asked for: a usage error, as a missing argument is. */
		fprintf(stderr, PRG ": no port to watch: give a device (-a mlx5_0, --vdev ...)\n"
				    "Try '" PRG " -- --help' for more information.\n");
		dvp_eal_cleanup();
		return 2;
	}
	W.start = mono_s();
	for (i = 0; i < DVP_DIM(evs); i++)
		dvp_port_event_register(DVP_PORT_ID_ALL, evs[i], event_cb, NULL);
	/*
	 * Release, paired with event_cb's acquire: from here on events are
	 * printed, the links coming up at start included.
	 */
	__atomic_store_n(&W.watching, true, __ATOMIC_RELEASE);
	ret = ports_setup(note);
	if (ret != 0) {
		status = 1;
		goto out;
	}
	DVP_PORT_FOREACH(p) {
		struct dvp_link link;
		char name[64] = "", ls[64] = "link unknown";

		dvp_port_get_name(p, name, sizeof(name));
		if (dvp_link_get_nowait(p, &link) == 0)
			dvp_link_to_str(ls, sizeof(ls), &link);
		fprintf(note, PRG ": watching port %u (%s): %s\n", p, name, ls);
	}
	fflush(note);
	status = watch(&sigs, note);
out:
	/* No lines for what the teardown itself causes (links down, ports closed). */
	__atomic_store_n(&W.watching, false, __ATOMIC_RELEASE);
	for (i = 0; i < DVP_DIM(evs); i++)
		dvp_port_event_unregister(DVP_PORT_ID_ALL, evs[i], event_cb, NULL);
	if (ports_teardown() != 0)
		status = 1;
	if (dvp_eal_cleanup() != 0 && status == 0)
		status = 1;
	return status;
}
