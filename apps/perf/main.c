/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * dvp-perf: latency (ping-pong) and throughput over a port, with its rx
 * queue polled, asleep on interrupts, or driven by the adaptive governor.
 * Two instances face each other over the port's link: a server that
 * echoes (latency) or counts (throughput), and a client that measures.
 *
 *   dvp-perf [EAL options] -- --role server|client [options]
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
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <dvp_cycles.h>
#include <dvp_eal.h>
#include <dvp_errno.h>
#include <dvp_intr.h>
#include <dvp_lcore.h>
#include <dvp_mbuf.h>
#include <dvp_port.h>

#include "perf.h"

#define PERF_MAGIC 0x44505246u /* "DPRF" */
#define PERF_ETHERTYPE 0x88b5 /* IEEE local experimental */
#define PERF_BURST_MAX 64
#define EXIT_USAGE 2

enum frame_type {
	FT_DATA = 1,
	FT_DONE = 2, /* client -> server: the run is over */
	FT_DONE_ACK = 3, /* server -> client: what it saw */
	FT_BYE = 4, /* client -> server: leaving (a datagram link has no disconnect) */
};

/* Behind a 14-byte Ethernet header. */
struct perf_hdr {
	uint32_t magic;
	uint8_t type;
	uint8_t pad[3];
	uint64_t seq;
	uint64_t value; /* DONE_ACK: frames received; DATA: a pattern check */
	uint64_t errors; /* DONE_ACK: frames out of sequence */
} __attribute__((packed));

#define FRAME_MIN (14 + sizeof(struct perf_hdr))

enum rx_mode { MODE_POLL, MODE_INTR, MODE_ADAPTIVE };
static const char *const mode_names[] = { "poll", "intr", "adaptive" };

static struct {
	bool server;
	bool bw;
	uint16_t port;
	uint32_t size;
	uint64_t iters;
	uint64_t warmup;
	enum rx_mode mode;
	uint16_t burst;
	uint16_t rxd, txd;
	const char *csv;
	const char *plot;
	double idle_s;
	unsigned int link_timeout_s;
	unsigned int timeout_s;
} opt = {
	.size = 64,
	.iters = 10000,
	.warmup = 100,
	.burst = 32,
	.link_timeout_s = 30,
	.timeout_s = 5,
};

static struct {
	struct dvp_mempool *mp;
	struct dvp_intr_set *set;
	struct dvp_intr_governor *gov;
	uint64_t hz;
	struct dvp_ether_addr mac;
	struct hist hist;
} g;

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
	if (g.set != NULL)
		dvp_rx_wait_kick(g.set); /* async-signal safe: one write(2) */
}

static uint64_t now_ns(void)
{
	uint64_t c = dvp_rdtsc();

	return (uint64_t)((double)c * 1e9 / (double)g.hz);
}

static __attribute__((noreturn)) void usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "dvp-perf: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'dvp-perf -- --help'.\n");
	exit(EXIT_USAGE);
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: dvp-perf [EAL options] -- --role server|client [options]\n"
		"\n"
		"Latency (ping-pong) or throughput between two dvp-perf instances over a port:\n"
		"the server echoes (lat) or counts (bw) what the client sends; the client reports.\n"
		"\n"
		"  --role server|client   which end this is (required)\n"
		"  --test lat|bw          ping-pong latency (half the round trip, as perftest's\n"
		"                         ib_send_lat) or throughput (default lat)\n"
		"  --port ID              the port to use (default 0)\n"
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
		"BW ... mb_s= (MB = 2^20 bytes, as perftest) mpps=; IDLE ... cpu_pct=.\n"
		"Exit status: 0, 1 on a failure (lost frames, silent peer), 2 on bad arguments.\n",
		FRAME_MIN, PERF_BURST_MAX);
}

static uint64_t parse_num(const char *name, const char *s, uint64_t min, uint64_t max)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (s[0] == '\0' || s[0] == '-' || *end != '\0' || errno != 0 || v < min || v > max) {
		fprintf(stderr, "dvp-perf: %s '%s': expected a whole number from %llu to %llu\n",
			name, s, (unsigned long long)min, (unsigned long long)max);
		fprintf(stderr, "Try 'dvp-perf -- --help'.\n");
		exit(EXIT_USAGE);
	}
	return v;
}

static void parse_args(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "role", required_argument, NULL, 'r' },
		{ "test", required_argument, NULL, 't' },
		{ "port", required_argument, NULL, 'p' },
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
	char *end;
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", lopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			if (strcmp(optarg, "server") != 0 && strcmp(optarg, "client") != 0)
				usage_error("--role '%s': expected server or client", optarg);
			opt.server = strcmp(optarg, "server") == 0;
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
			for (i = 0; i < 3 && strcmp(optarg, mode_names[i]) != 0; i++)
				;
			if (i == 3)
				usage_error("--rx-mode '%s': expected poll, intr or adaptive", optarg);
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
			opt.idle_s = strtod(optarg, &end);
			if (*end != '\0' || opt.idle_s < 0 || opt.idle_s > 3600)
				usage_error("--idle '%s': expected seconds from 0 to 3600", optarg);
			break;
		case 'L':
			opt.link_timeout_s = (unsigned int)parse_num("--link-timeout", optarg, 1, 3600);
			break;
		case 'o':
			opt.timeout_s = (unsigned int)parse_num("--timeout", optarg, 1, 3600);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case ':':
			usage_error("%s needs a value", argv[optind - 1]);
		default:
			usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (!role)
		usage_error("%s", "no --role given: one instance is --role server, the other --role client");
	if (opt.server && (opt.csv || opt.plot || opt.idle_s > 0))
		usage_error("%s", "--csv, --plot and --idle are for the client");
}

/* ------------------------------------------------------------------------
 * The port
 */

static int port_setup(void)
{
	struct dvp_port_conf conf = { 0 };
	struct dvp_port_info info;
	struct dvp_link link;
	char name[64], lstr[64];
	uint64_t deadline;
	int ret;

	if (!dvp_port_is_valid(opt.port)) {
		fprintf(stderr, "dvp-perf: port %u does not exist (%u ports; give one with --vdev, e.g. net_verbs0,dev=rxe0,listen=IP:PORT)\n",
			opt.port, dvp_port_count());
		return -ENODEV;
	}
	ret = dvp_port_info_get(opt.port, &info);
	if (ret < 0)
		return ret;
	dvp_port_get_name(opt.port, name, sizeof(name));
	if (info.max_rx_pktlen != 0 && opt.size > info.max_rx_pktlen) {
		fprintf(stderr, "dvp-perf: --size %u: port %u (%s, %s) carries frames up to %u bytes\n",
			opt.size, opt.port, name, info.driver_name, info.max_rx_pktlen);
		return -EINVAL;
	}
	g.mp = dvp_pktmbuf_pool_create("perf", 4095, 256, 0,
				       (uint16_t)DVP_MAX(DVP_MBUF_DEFAULT_BUF_SIZE,
							 opt.size + DVP_PKTMBUF_HEADROOM),
				       info.numa_node);
	if (g.mp == NULL)
		return -dvp_errno;
	conf.intr_conf.lsc = (info.intr_capa & DVP_PORT_INTR_LSC) != 0;
	conf.intr_conf.rxq = opt.mode != MODE_POLL;
	if (opt.mode != MODE_POLL && !(info.intr_capa & DVP_PORT_INTR_RXQ)) {
		fprintf(stderr, "dvp-perf: --rx-mode %s: %s (%s) has no rx interrupts; use --rx-mode poll\n",
			mode_names[opt.mode], name, info.driver_name);
		return -ENOTSUP;
	}
	ret = dvp_port_configure(opt.port, 1, 1, &conf);
	if (ret == 0)
		ret = dvp_rxq_setup(opt.port, 0, opt.rxd, DVP_SOCKET_ANY, NULL, g.mp);
	if (ret == 0)
		ret = dvp_txq_setup(opt.port, 0, opt.txd, DVP_SOCKET_ANY, NULL);
	if (ret < 0)
		return ret;
	if (opt.mode != MODE_POLL) {
		g.set = dvp_intr_set_create(1);
		if (g.set == NULL)
			return -dvp_errno;
		ret = dvp_rx_intr_ctl(opt.port, 0, g.set, DVP_RX_INTR_CTL_ADD, NULL);
		if (ret < 0)
			return ret;
		if (opt.mode == MODE_ADAPTIVE) {
			g.gov = dvp_intr_governor_create(g.set, NULL);
			if (g.gov == NULL)
				return -dvp_errno;
		}
	}
	dvp_macaddr_get(opt.port, &g.mac);
	ret = dvp_port_start(opt.port);
	if (ret < 0)
		return ret;
	deadline = now_ns() + (uint64_t)opt.link_timeout_s * 1000000000u;
	do {
		ret = dvp_link_get(opt.port, &link);
		if (ret < 0)
			return ret;
	} while (!link.link_status && !stop_requested && now_ns() < deadline);
	if (!link.link_status) {
		fprintf(stderr, "dvp-perf: port %u (%s): no link within %u s (is the peer running?)\n",
			opt.port, name, opt.link_timeout_s);
		return -ETIMEDOUT;
	}
	dvp_link_to_str(lstr, sizeof(lstr), &link);
	if (opt.server)
		printf("PERF-CONFIG role=server port=%u name=%s driver=%s rx_mode=%s link=\"%s\"\n",
		       opt.port, name, info.driver_name, mode_names[opt.mode], lstr);
	else
		printf("PERF-CONFIG role=client test=%s port=%u name=%s driver=%s size=%u iters=%" PRIu64
		       " rx_mode=%s link=\"%s\"\n",
		       opt.bw ? "bw" : "lat", opt.port, name, info.driver_name, opt.size,
		       opt.iters, mode_names[opt.mode], lstr);
	fflush(stdout);
	return 0;
}

/* Stop and close the port; every mbuf must be back. @return 0 or -EIO. */
static int port_teardown(void)
{
	unsigned int in_use;
	int ret = 0;

	if (dvp_port_is_valid(opt.port)) {
		if (dvp_port_stop(opt.port) < 0)
			ret = -EIO;
		dvp_port_close(opt.port);
	}
	dvp_intr_governor_free(g.gov);
	dvp_intr_set_free(g.set);
	g.gov = NULL;
	g.set = NULL;
	if (g.mp != NULL) {
		in_use = dvp_mempool_in_use_count(g.mp);
		if (in_use != 0) {
			fprintf(stderr, "dvp-perf: %u mbufs did not come back to the pool\n", in_use);
			ret = -EIO;
		}
		dvp_mempool_free(g.mp);
	}
	return ret;
}

/* ------------------------------------------------------------------------
 * Frames
 */

static struct perf_hdr *frame_hdr(struct dvp_mbuf *m)
{
	return dvp_pktmbuf_mtod_offset(m, struct perf_hdr *, 14);
}

static struct dvp_mbuf *frame_new(uint8_t type, uint64_t seq, uint64_t value, uint64_t errors)
{
	struct dvp_mbuf *m = dvp_pktmbuf_alloc(g.mp);
	uint8_t *p;
	struct perf_hdr *h;
	uint16_t et = (uint16_t)(PERF_ETHERTYPE >> 8 | (PERF_ETHERTYPE & 0xff) << 8);

	if (m == NULL)
		return NULL;
	p = (uint8_t *)dvp_pktmbuf_append(m, (uint16_t)(type == FT_DATA ? opt.size : FRAME_MIN));
	if (p == NULL) {
		dvp_pktmbuf_free(m);
		return NULL;
	}
	memset(p, 0xff, 6);
	memcpy(p + 6, g.mac.addr_bytes, 6);
	memcpy(p + 12, &et, 2);
	h = (struct perf_hdr *)(p + 14);
	h->magic = PERF_MAGIC;
	h->type = type;
	h->seq = seq;
	h->value = value;
	h->errors = errors;
	return m;
}

/* A frame of ours, or NULL (freed) when it is not. */
static const struct perf_hdr *frame_check(struct dvp_mbuf *m)
{
	if (m->data_len < FRAME_MIN || frame_hdr(m)->magic != PERF_MAGIC)
		return NULL;
	return frame_hdr(m);
}

/* Send one frame, retrying while the queue is full. @return 0 or -ETIMEDOUT. */
static int send_one(struct dvp_mbuf *m)
{
	uint64_t deadline = 0;

	while (dvp_tx_burst(opt.port, 0, &m, 1) == 0) {
		if (deadline == 0)
			deadline = now_ns() + (uint64_t)opt.timeout_s * 1000000000u;
		if (now_ns() > deadline || stop_requested) {
			dvp_pktmbuf_free(m);
			return -ETIMEDOUT;
		}
	}
	return 0;
}

/*
 * Receive at least one frame, waiting as --rx-mode says, until @deadline.
 * @return frames received, 0 at the deadline, or a negative errno.
 */
static int recv_some(struct dvp_mbuf **pkts, uint16_t max, uint64_t deadline)
{
	struct dvp_rx_wait_event ev;
	int n, ret;

	for (;;) {
		if (opt.mode == MODE_ADAPTIVE)
			n = dvp_rx_burst_adaptive(g.gov, opt.port, 0, pkts, max);
		else
			n = dvp_rx_burst(opt.port, 0, pkts, max);
		if (n > 0)
			return n;
		if (stop_requested)
			return -EINTR;
		if (now_ns() > deadline)
			return 0;
		if (opt.mode == MODE_INTR) {
			ret = dvp_rx_wait(g.set, &ev, 1, 100);
			if (ret < 0)
				return ret;
		} else if (opt.mode == MODE_ADAPTIVE) {
			ret = dvp_intr_governor_idle(g.gov);
			if (ret < 0)
				return ret;
		}
	}
}

static uint64_t deadline_in(unsigned int s)
{
	return now_ns() + (uint64_t)s * 1000000000u;
}

/* ------------------------------------------------------------------------
 * Server
 */

static int run_server(void)
{
	struct dvp_mbuf *pkts[PERF_BURST_MAX], *ack;
	uint64_t received = 0, expected = 0, errors = 0, linger_ms = 0, end;
	bool done = false;
	int n = 0, i;

	/* The client may start late: the server waits as long as it waits for the link. */
	while (!done) {
		n = recv_some(pkts, PERF_BURST_MAX, deadline_in(opt.link_timeout_s + opt.timeout_s));
		if (n < 0)
			return n == -EINTR ? 0 : n;
		if (n == 0) {
			fprintf(stderr, "dvp-perf: server: nothing from the client for %u s\n",
				opt.link_timeout_s + opt.timeout_s);
			return -ETIMEDOUT;
		}
		for (i = 0; i < n; i++) {
			const struct perf_hdr *h = frame_check(pkts[i]);

			if (h == NULL || h->type == FT_DONE_ACK) {
				errors++;
				dvp_pktmbuf_free(pkts[i]);
				continue;
			}
			if (h->type == FT_DONE) {
				linger_ms = h->value;
				dvp_pktmbuf_free(pkts[i]);
				ack = frame_new(FT_DONE_ACK, 0, received, errors);
				if (ack == NULL || send_one(ack) < 0)
					return -EIO;
				done = true;
				continue;
			}
			received++;
			if (opt.bw) {
				/* The client's sequence restarts after warm-up frames: follow it. */
				if (h->seq != expected)
					errors++;
				expected = h->seq + 1;
				dvp_pktmbuf_free(pkts[i]);
			} else if (send_one(pkts[i]) < 0) {
				return -ETIMEDOUT;
			}
		}
	}
	printf("PERF-SERVER test=%s received=%" PRIu64 " errors=%" PRIu64 "\n",
	       opt.bw ? "bw" : "lat", received, errors);
	/*
	 * Stay connected until the client says bye or its link goes (it may
	 * measure its idle CPU now, and a peer that vanished would have it
	 * reconnecting).
	 */
	end = now_ns() + (linger_ms + opt.timeout_s * 1000ull) * 1000000u;
	for (done = false; !done && !stop_requested && now_ns() < end;) {
		struct dvp_link link;

		n = recv_some(pkts, PERF_BURST_MAX, deadline_in(1));
		for (i = 0; i < n; i++) {
			const struct perf_hdr *h = frame_check(pkts[i]);

			done = done || (h != NULL && h->type == FT_BYE);
			dvp_pktmbuf_free(pkts[i]);
		}
		if (n < 0 || dvp_link_get_nowait(opt.port, &link) < 0 || !link.link_status)
			break;
	}
	return errors ? -EPROTO : 0;
}

/* ------------------------------------------------------------------------
 * Client
 */

/* DONE, then the server's DONE_ACK. @return 0 with its counts, or a negative errno. */
static int finish(uint64_t *received, uint64_t *errors)
{
	/* The server lingers as long as this client's idle phase lasts. */
	struct dvp_mbuf *pkts[PERF_BURST_MAX], *m = frame_new(FT_DONE, 0,
							       (uint64_t)(opt.idle_s * 1000), 0);
	uint64_t deadline = deadline_in(opt.timeout_s);
	int n, i, ret = -ETIMEDOUT;

	if (m == NULL || send_one(m) < 0)
		return -EIO;
	while (ret == -ETIMEDOUT && (n = recv_some(pkts, PERF_BURST_MAX, deadline)) > 0) {
		for (i = 0; i < n; i++) {
			const struct perf_hdr *h = frame_check(pkts[i]);

			if (h != NULL && h->type == FT_DONE_ACK) {
				*received = h->value;
				*errors = h->errors;
				ret = 0;
			}
			dvp_pktmbuf_free(pkts[i]);
		}
	}
	return ret;
}

static int run_lat(void)
{
	struct dvp_mbuf *pkts[PERF_BURST_MAX], *m;
	uint64_t i, total = opt.warmup + opt.iters, t0, t1, rcv = 0, err = 0;
	bool got;
	int n, k, ret;

	hist_init(&g.hist);
	for (i = 0; i < total && !stop_requested; i++) {
		m = frame_new(FT_DATA, i, 0, 0);
		if (m == NULL)
			return -ENOBUFS;
		t0 = now_ns();
		if (send_one(m) < 0)
			return -ETIMEDOUT;
		for (got = false; !got;) {
			n = recv_some(pkts, PERF_BURST_MAX, t0 + (uint64_t)opt.timeout_s * 1000000000u);
			if (n <= 0) {
				if (n == 0)
					fprintf(stderr, "dvp-perf: no echo of frame %" PRIu64 " within %u s: the peer or the link is gone\n",
						i, opt.timeout_s);
				return n == 0 ? -ETIMEDOUT : n;
			}
			t1 = now_ns();
			for (k = 0; k < n; k++) {
				const struct perf_hdr *h = frame_check(pkts[k]);

				if (h != NULL && h->type == FT_DATA && h->seq == i)
					got = true;
				dvp_pktmbuf_free(pkts[k]);
			}
		}
		/* One way: half the round trip, as perftest's ib_send_lat reports. */
		if (i >= opt.warmup)
			hist_add(&g.hist, (t1 - t0) / 2);
	}
	if (stop_requested)
		return -EINTR;
	ret = finish(&rcv, &err);
	if (ret < 0)
		return ret;
	printf("LAT size=%u rx_mode=%s iters=%" PRIu64 " min_us=%.2f p50_us=%.2f p90_us=%.2f p99_us=%.2f p999_us=%.2f max_us=%.2f avg_us=%.2f\n",
	       opt.size, mode_names[opt.mode], g.hist.count, g.hist.min / 1e3,
	       hist_quantile(&g.hist, 0.5) / 1e3, hist_quantile(&g.hist, 0.9) / 1e3,
	       hist_quantile(&g.hist, 0.99) / 1e3, hist_quantile(&g.hist, 0.999) / 1e3,
	       g.hist.max / 1e3, (double)g.hist.sum / (double)g.hist.count / 1e3);
	return 0;
}

static int run_bw(void)
{
	struct dvp_mbuf *burst[PERF_BURST_MAX];
	uint64_t seq = 0, t0, t1, rcv = 0, err = 0, deadline = 0;
	uint16_t n, k, sent;
	double secs;
	int ret;

	t0 = now_ns();
	while (seq < opt.iters && !stop_requested) {
		n = (uint16_t)DVP_MIN((uint64_t)opt.burst, opt.iters - seq);
		for (k = 0; k < n; k++) {
			burst[k] = frame_new(FT_DATA, seq + k, 0, 0);
			if (burst[k] == NULL) {
				dvp_pktmbuf_free_bulk(burst, k);
				return -ENOBUFS;
			}
		}
		sent = dvp_tx_burst(opt.port, 0, burst, n);
		if (sent < n)
			dvp_pktmbuf_free_bulk(burst + sent, n - sent);
		if (sent == 0) {
			/* The queue is full: completions come from the peer's acks. */
			if (deadline == 0)
				deadline = deadline_in(opt.timeout_s);
			else if (now_ns() > deadline)
				return -ETIMEDOUT;
			continue;
		}
		deadline = 0;
		seq += sent;
	}
	if (stop_requested)
		return -EINTR;
	ret = finish(&rcv, &err);
	t1 = now_ns();
	if (ret < 0) {
		fprintf(stderr, "dvp-perf: the server did not answer the end of the run\n");
		return ret;
	}
	secs = (double)(t1 - t0) / 1e9;
	printf("BW size=%u rx_mode=%s frames=%" PRIu64 " received=%" PRIu64 " mb_s=%.2f mpps=%.4f seconds=%.3f\n",
	       opt.size, mode_names[opt.mode], opt.iters, rcv,
	       (double)opt.iters * opt.size / secs / (1 << 20), (double)opt.iters / secs / 1e6,
	       secs);
	if (rcv != opt.iters || err != 0) {
		fprintf(stderr, "dvp-perf: the server received %" PRIu64 " of %" PRIu64 " frames, %" PRIu64 " out of sequence\n",
			rcv, opt.iters, err);
		return -EPROTO;
	}
	return 0;
}

static double cpu_seconds(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* The rx loop with nothing arriving: what it costs to wait in this mode. */
static void run_idle(void)
{
	struct dvp_mbuf *pkts[PERF_BURST_MAX];
	uint64_t t0 = now_ns(), end = t0 + (uint64_t)(opt.idle_s * 1e9);
	double c0 = cpu_seconds(), wall;
	int n;

	while (!stop_requested && now_ns() < end) {
		n = recv_some(pkts, PERF_BURST_MAX, end);
		if (n > 0)
			dvp_pktmbuf_free_bulk(pkts, (unsigned int)n);
		else if (n < 0)
			break;
	}
	wall = (double)(now_ns() - t0) / 1e9;
	printf("IDLE rx_mode=%s seconds=%.2f cpu_pct=%.2f\n", mode_names[opt.mode], wall,
	       100.0 * (cpu_seconds() - c0) / wall);
}

/* Frames the port refused to send (too long for the peer, ...) explain a silent peer. */
static void check_tx_errors(void)
{
	struct dvp_port_stats st;

	if (dvp_stats_get(opt.port, &st) == 0 && st.oerrors > 0)
		fprintf(stderr, "dvp-perf: port %u counted %" PRIu64 " tx errors (dvp-info or xstats say which); is --size within what the peer takes (give the server the same --size)?\n",
			opt.port, st.oerrors);
}

static void print_intr_stats(void)
{
	static const char *const names[] = { "sleeps", "wakeups", "spurious", "arms" };
	char name[64];
	uint64_t v;
	unsigned int i;

	if (opt.mode == MODE_POLL)
		return;
	printf("INTR rx_mode=%s", mode_names[opt.mode]);
	for (i = 0; i < DVP_DIM(names); i++) {
		snprintf(name, sizeof(name), "rx_q0_intr_%s", names[i]);
		if (dvp_xstats_get_by_name(opt.port, name, &v) == 0)
			printf(" %s=%" PRIu64, names[i], v);
	}
	printf("\n");
}

int main(int argc, char **argv)
{
	int ret, status = 0;

	ret = dvp_eal_init(argc, argv);
	if (ret < 0) {
		if (dvp_eal_init_status() == DVP_EAL_INIT_HELP_SHOWN)
			return 0;
		fprintf(stderr, "dvp-perf: EAL init failed: %s\n", dvp_strerror(dvp_errno));
		return 1;
	}
	parse_args(argc - ret, argv + ret);
	g.hz = dvp_get_tsc_hz();
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	setvbuf(stdout, NULL, _IOLBF, 0);

	ret = port_setup();
	if (ret == 0) {
		if (opt.server)
			ret = run_server();
		else
			ret = opt.bw ? run_bw() : run_lat();
		check_tx_errors();
		if (ret == 0 && !opt.server)
			print_intr_stats();
		if (ret == 0 && opt.idle_s > 0)
			run_idle();
	}
	if (ret < 0) {
		fprintf(stderr, "dvp-perf: %s\n", dvp_strerror(-ret));
		status = 1;
	}
	if (ret == 0 && !opt.bw && !opt.server && opt.csv != NULL) {
		ret = hist_write_csv(&g.hist, opt.csv, mode_names[opt.mode]);
		if (ret < 0) {
			fprintf(stderr, "dvp-perf: --csv %s: %s\n", opt.csv, strerror(-ret));
			status = 1;
		}
	}
	if (status == 0 && !opt.bw && !opt.server && opt.plot != NULL) {
		char title[128];

		snprintf(title, sizeof(title), "dvp-perf latency, %u bytes, rx-mode %s", opt.size,
			 mode_names[opt.mode]);
		ret = hist_plot(&g.hist, opt.plot, title);
		if (ret == -ENOENT) {
			fprintf(stderr, "dvp-perf: --plot: gnuplot is not installed (apt-get install gnuplot-nox); --csv writes the data instead\n");
			status = 1;
		} else if (ret < 0) {
			fprintf(stderr, "dvp-perf: --plot %s: gnuplot failed: %s\n", opt.plot,
				strerror(-ret));
			status = 1;
		}
	}
	if (!opt.server && dvp_port_is_valid(opt.port) && dvp_port_is_started(opt.port) == 1) {
		struct dvp_mbuf *bye = frame_new(FT_BYE, 0, 0, 0);

		if (bye != NULL && dvp_tx_burst(opt.port, 0, &bye, 1) == 0)
			dvp_pktmbuf_free(bye);
	}
	if (port_teardown() < 0)
		status = 1;
	dvp_eal_cleanup();
	return status;
}
