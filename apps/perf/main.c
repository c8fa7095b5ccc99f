/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * dvp-perf: latency (ping-pong) and throughput over a port, with its rx
 * queue polled, asleep on interrupts, or driven by the adaptive governor.
 * Two ends face each other over a link: a server that echoes (latency) or
 * counts (throughput), and a client that measures. They are two instances
 * (--role server, --role client: over net_verbs, memif, ...) or two ports
 * of one process cabled to each other (--role pair: net_ring peer=, the
 * sim's cable=loop), the server then on a worker lcore.
 *
 *   dvp-perf [EAL options] -- --role server|client|pair [options]
 *
 * doc/perf.md shows runs over net_verbs on Soft-RoCE next to perftest.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dvp_cycles.h>
#include <dvp_eal.h>
#include <dvp_errno.h>
#include <dvp_lcore.h>
#include <dvp_mbuf.h>
#include <dvp_parse.h>
#include <dvp_port.h>

#include "app_args.h"
#include "app_eal.h"
#include "perf.h"

#define EXIT_USAGE 2

const char *const perf_mode_names[3] = { "poll", "intr", "adaptive" };

struct perf_opt opt = {
	.peer_port = 1,
	.size = 64,
	.iters = 10000,
	.warmup = 100,
	.burst = 32,
	.link_timeout_s = 30,
	.timeout_s = 5,
};

atomic_int perf_stop;
uint64_t perf_hz;
bool perf_usage_error;

static struct perf_end client = { .pool_name = "perf" };
static struct perf_end server = { .server = true, .pool_name = "perf_srv" };

static void on_signal(int sig)
{
	(void)sig;
	atomic_store_explicit(&perf_stop, 1, memory_order_relaxed);
	end_kick(&client);
	end_kick(&server);
}
/* Called once the EAL is up: it goes down first (its runtime directory with it). */
static __attribute__((noreturn)) void usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "dvp-perf: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'dvp-perf -- --help'.\n");
	dvp_eal_cleanup();
	exit(EXIT_USAGE);
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: dvp-perf [EAL options] -- --role server|client|pair [options]\n"
		"\n"
		"Latency (ping-pong) or throughput between two ends of a link: the server echoes\n"
		"(lat) or counts (bw) what the client sends; the client reports.\n"
		"\n"
		"  --role server|client   which end this instance is (two instances, one each)\n"
		"  --role pair            both ends in this process: the client on --port, the\n"
		"                         server on --peer-port, on a worker lcore (give two\n"
		"                         lcores: -l 0-1, or --lcores 0@0,1@0 on one CPU); the\n"
		"                         two ports must be cabled to each other (net_ring0 and\n"
		"                         net_ring1,peer=net_ring0; sim_mlx5,ports=2,cable=loop)\n"
		"  --test lat|bw          ping-pong latency (half the round trip, as perftest's\n"
		"                         ib_send_lat) or throughput (default lat)\n"
		"  --port ID              the port to use (default 0)\n"
		"  --peer-port ID         the server's port with --role pair (default 1)\n"
		"  --size BYTES           frame size, %zu to 9000 (default 64); give the server the\n"
		"                         same size, its receive buffers are sized from it\n"
		"  --iters N              measured round trips or frames (default 10000)\n"
		"  --warmup N             round trips before measuring (lat, default 100)\n"
		"  --rx-mode poll|intr|adaptive\n"
		"                         poll the rx queue, sleep on its interrupt when it is empty,\n"
		"                         or let the adaptive governor choose (default poll)\n"
		"  --burst N              frames per tx burst (bw, 1 to %d, default 32)\n"
		"  --rxd N, --txd N       queue descriptors (default: the driver's)\n"
		"  --csv FILE             write the latency histogram (client, lat)\n"
		"  --plot FILE.png        draw the latency distribution with gnuplot (client, lat)\n"
		"  --idle SECONDS         after the run, keep the rx loop going that long with no\n"
		"                         traffic and report the CPU it used (client)\n"
		"  --link-timeout S       wait this long for the link (default 30)\n"
		"  --timeout S            give up when the peer is silent this long (default 5)\n"
		"  -h, --help             this text\n"
		"\n"
		"Output (client): LAT ... p50_us= p90_us= p99_us= p999_us= max_us=, or\n"
		"BW ... mb_s= (MB = 2^20 bytes, as perftest) mpps=; INTR ... sleeps= wakeups=\n"
		"spurious= arms= (intr, adaptive); IDLE ... cpu_pct= and, in intr and adaptive,\n"
		"the idle phase's sleeps=. The server: PERF-SERVER test= received= errors=, then\n"
		"INTR-SERVER as INTR.\n"
		"Exit status: 0, 1 on a failure (lost frames, silent peer), 2 on bad arguments.\n",
		FRAME_MIN, PERF_BURST_MAX);
}

static uint64_t parse_num(const char *name, const char *s, uint64_t min, uint64_t max)
{
	uint64_t v;

	if (dvp_parse_u64(s, min, max, &v) < 0) {
		fprintf(stderr, "dvp-perf: %s '%s': expected a whole number from %llu to %llu\n",
			name, s, (unsigned long long)min, (unsigned long long)max);
		fprintf(stderr, "Try 'dvp-perf -- --help'.\n");
		dvp_eal_cleanup();
		exit(EXIT_USAGE);
	}
	return v;
}

static void parse_args(int argc, char **argv)
{
	char why[256];
	static const struct option lopts[] = {
		{ "role", required_argument, NULL, 'r' },
		{ "test", required_argument, NULL, 't' },
		{ "port", required_argument, NULL, 'p' },
		{ "peer-port", required_argument, NULL, 'e' },
		{ "size", required_argument, NULL, 's' },
		{ "iters", required_argument, NULL, 'n' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "rx-mode", required_argument, NULL, 'm' },
		{ "burst", required_argument, NULL, 'b' },
		{ "rxd", required_argument, NULL, 'R' },
		{ "txd", required_argument, NULL, 'T' },
		{ "csv", required_argument, NULL, 'c' },
		{ "plot", required_argument, NULL, 'P' },
		{ "idle", required_argument, NULL, 'i' },
		{ "link-timeout", required_argument, NULL, 'L' },
		{ "timeout", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool role = false;
	unsigned int i;
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", lopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (strcmp(optarg, "server") == 0)
				opt.role = ROLE_SERVER;
			else if (strcmp(optarg, "client") == 0)
				opt.role = ROLE_CLIENT;
			else if (strcmp(optarg, "pair") == 0)
				opt.role = ROLE_PAIR;
			else
				usage_error("--role '%s': expected server, client or pair", optarg);
			role = true;
			break;
		case 't':
			if (strcmp(optarg, "lat") != 0 && strcmp(optarg, "bw") != 0)
				usage_error("--test '%s': expected lat or bw", optarg);
			opt.bw = strcmp(optarg, "bw") == 0;
			break;
		case 'p':
			opt.port = (uint16_t)parse_num("--port", optarg, 0, UINT16_MAX - 1);
			break;
		case 'e':
			opt.peer_port =
				(uint16_t)parse_num("--peer-port", optarg, 0, UINT16_MAX - 1);
			break;
		case 's':
			opt.size = (uint32_t)parse_num("--size", optarg, FRAME_MIN, 9000);
			break;
		case 'n':
			opt.iters = parse_num("--iters", optarg, 1, 1000000000ull);
			break;
		case 'w':
			opt.warmup = parse_num("--warmup", optarg, 0, 1000000000ull);
			break;
		case 'm':
			for (i = 0; i < 3 && strcmp(optarg, perf_mode_names[i]) != 0; i++)
				;
			if (i == 3)
				usage_error("--rx-mode '%s': expected poll, intr or adaptive",
					    optarg);
			opt.mode = (enum rx_mode)i;
			break;
		case 'b':
			opt.burst = (uint16_t)parse_num("--burst", optarg, 1, PERF_BURST_MAX);
			break;
		case 'R':
			opt.rxd = (uint16_t)parse_num("--rxd", optarg, 1, UINT16_MAX);
			break;
		case 'T':
			opt.txd = (uint16_t)parse_num("--txd", optarg, 1, UINT16_MAX);
			break;
		case 'c':
			opt.csv = optarg;
			break;
		case 'P':
			opt.plot = optarg;
			break;
		case 'i':
			if (dvp_parse_double(optarg, 0, 3600, &opt.idle_s) < 0)
				usage_error("--idle '%s': expected seconds from 0 to 3600", optarg);
			break;
		case 'L':
			opt.link_timeout_s =
				(unsigned int)parse_num("--link-timeout", optarg, 1, 3600);
			break;
		case 'o':
			opt.timeout_s = (unsigned int)parse_num("--timeout", optarg, 1, 3600);
			break;
		case 'h':
			usage(stdout);
			dvp_eal_cleanup();
			exit(0);
		default:
			usage_error("%s", app_option_why(argv, c, lopts, why, sizeof(why)));
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (!role)
		usage_error(
			"%s",
			"no --role given: one instance is --role server, the other --role client (or one --role pair over two cabled ports)");
	if (opt.role == ROLE_SERVER && (opt.csv || opt.plot || opt.idle_s > 0))
		usage_error("%s", "--csv, --plot and --idle are for the client");
	if (opt.role == ROLE_PAIR && opt.peer_port == opt.port)
		usage_error("%s",
			    "--role pair needs two ports: --port and --peer-port are the same");
}

/* ------------------------------------------------------------------------
 * --role pair: the server on a worker lcore
 */

static int server_main(void *arg)
{
	struct perf_end *e = arg;

	e->status = run_server(e);
	return 0;
}

/* Set both ports up and launch the server. @return its worker lcore, or a negative errno. */
static int pair_start(void)
{
	unsigned int worker = dvp_get_next_lcore(-1u, true, false);
	int ret;

	if (worker >= DVP_MAX_LCORE) {
		fprintf(stderr,
			"dvp-perf: --role pair runs the server on a worker lcore: give two lcores (-l 0-1, or --lcores 0@0,1@0 on one CPU)\n");
		perf_usage_error = true;
		return -EINVAL;
	}
	if (!dvp_port_is_valid(server.port)) {
		fprintf(stderr,
			"dvp-perf: --peer-port %u does not exist (%u ports); --role pair needs two ports cabled to each other (--vdev net_ring0 --vdev net_ring1,peer=net_ring0)\n",
			server.port, dvp_port_count());
		perf_usage_error = true;
		return -ENODEV;
	}
	ret = end_setup(&server);
	if (ret == 0)
		ret = end_setup(&client);
	if (ret == 0)
		ret = perf_ticker_start(&client, &server);
	if (ret == 0)
		ret = end_wait_link(&server);
	if (ret == 0)
		ret = end_wait_link(&client);
	if (ret == 0)
		ret = dvp_eal_remote_launch(server_main, &server, worker);
	return ret < 0 ? ret : (int)worker;
}

/* ------------------------------------------------------------------------
 * main
 */

static int write_outputs(void)
{
	char title[128];
	int ret;

	if (opt.csv != NULL) {
		ret = hist_write_csv(&client.hist, opt.csv, perf_mode_names[opt.mode]);
		if (ret < 0) {
			fprintf(stderr, "dvp-perf: --csv %s: %s\n", opt.csv, strerror(-ret));
			return ret;
		}
	}
	if (opt.plot == NULL)
		return 0;
	snprintf(title, sizeof(title), "dvp-perf latency, %u bytes, rx-mode %s", opt.size,
		 perf_mode_names[opt.mode]);
	ret = hist_plot(&client.hist, opt.plot, title);
	if (ret == -ENOENT)
		fprintf(stderr,
			"dvp-perf: --plot: gnuplot is not installed (apt-get install gnuplot-nox); --csv writes the data instead\n");
	else if (ret < 0)
		fprintf(stderr, "dvp-perf: --plot %s: gnuplot failed: %s\n", opt.plot,
			strerror(-ret));
	return ret;
}

/* The client's goodbye: the server stops lingering (a datagram link has no disconnect). */
static void say_bye(void)
{
	struct dvp_mbuf *bye;

	if (!dvp_port_is_valid(client.port) || dvp_port_is_started(client.port) != 1)
		return;
	bye = frame_new(&client, FT_BYE, 0, 0, 0);
	if (bye != NULL && dvp_tx_burst(client.port, 0, &bye, 1) == 0)
		dvp_pktmbuf_free(bye);
}

int main(int argc, char **argv)
{
	int ret, worker = -1, status = 0;
	struct perf_end *self;

	ret = app_eal_init("dvp-perf", argc, argv, &status);
	if (ret < 0)
		return status;
	parse_args(argc - ret, argv + ret);
	perf_hz = dvp_get_tsc_hz();
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	setvbuf(stdout, NULL, _IOLBF, 0);

	self = opt.role == ROLE_SERVER ? &server : &client;
	self->port = opt.port;
	server.port = opt.role == ROLE_PAIR ? opt.peer_port : opt.port;
	if (opt.role == ROLE_PAIR) {
		ret = worker = pair_start();
	} else {
		ret = end_setup(self);
		if (ret == 0)
			ret = perf_ticker_start(self, NULL);
		if (ret == 0)
			ret = end_wait_link(self);
	}
	if (ret >= 0) {
		if (opt.role == ROLE_SERVER)
			ret = run_server(self);
		else
			ret = opt.bw ? run_bw(self) : run_lat(self);
		check_tx_errors(self);
		if (ret == 0 && opt.role != ROLE_SERVER)
			print_intr_stats(self, "INTR");
		if (ret == 0 && opt.idle_s > 0)
			run_idle(self);
	}
	if (ret < 0 && perf_usage_error) {
		fprintf(stderr, "Try 'dvp-perf -- --help'.\n");
		status = EXIT_USAGE;
	} else if (ret < 0) {
		fprintf(stderr, "dvp-perf: %s\n", dvp_strerror(-ret));
		status = 1;
	}
	if (status == 0 && !opt.bw && opt.role != ROLE_SERVER && write_outputs() < 0)
		status = 1;
	if (opt.role != ROLE_SERVER)
		say_bye();
	if (worker >= 0) {
		/* A client that failed leaves its server waiting: end it too. */
		if (status != 0)
			atomic_store_explicit(&perf_stop, 1, memory_order_relaxed);
		dvp_eal_wait_lcore((unsigned int)worker);
		if (server.status < 0) {
			fprintf(stderr, "dvp-perf: server: %s\n", dvp_strerror(-server.status));
			status = 1;
		}
	}
	perf_ticker_stop();
	if (end_teardown(self) < 0)
		status = 1;
	if (opt.role == ROLE_PAIR && end_teardown(&server) < 0)
		status = 1;
	dvp_eal_cleanup();
	return status;
}
