/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * One host of test/rxe/two_hosts.sh: a net_verbs port on this guest's rxe0,
 * listening or connecting to the other guest across the virtual wire, both
 * ends sending sequence-numbered frames (verbs_ep.h) at a steady pace and
 * checking every frame they receive, until the test says stop. What the
 * test does to the hosts meanwhile (the wire cut and joined, this guest's
 * link taken down, the other guest killed and booted again) shows in the
 * status this program writes every 200 ms into the shared directory:
 *
 *   DIR/NAME.status  one JSON object: the link and its events, frames sent,
 *                    received in sequence, lost (gaps), bad, the peer runs
 *                    seen, and the driver's loss counters
 *
 * and it obeys two files there:
 *
 *   DIR/NAME.linkdown  (holding a number of seconds) take eth0 down for
 *                      that long, then up again: one side's link only
 *   DIR/stop           stop: print the final status, stop the port, check
 *                      that every mbuf is back in the pool
 *
 * Exit 0 when no frame was bad and the pool drained; 77 outside the VM.
 *
 *   test_rxe_two_hosts --role listen|connect --sync DIR --name NAME
 *                      [--peer IP] [--tcp-port N] [--rate FRAMES_PER_MS]
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dvp_port.h>

#include "verbs_ep.h"

#define EXIT_SKIP 77
#define STATUS_MS 200
/*
 * The tx watchdog at 10 s, not 1: two emulated guests on a busy host stall
 * for seconds, and a partition is found sooner anyway, by the sends'
 * exhausted retries (about 0.5 s at ack_timeout 14).
 */
#define EP_DEVARGS "tx_timeout=10000"

static struct {
	bool listen;
	const char *dir, *name, *peer;
	int tcp_port;
	unsigned int rate; /* frames a millisecond */
} cfg = { .tcp_port = 18720, .rate = 4 };

static bool exists(const char *file)
{
	char path[512];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", cfg.dir, file);
	return stat(path, &st) == 0;
}

static void write_status(FILE *to, const struct ep *e, uint64_t now)
{
	fprintf(to,
		"{\"name\":\"%s\",\"pid\":%d,\"time_ms\":%" PRIu64
		",\"link_up\":%u,\"link_ups\":%u,\"link_downs\":%u,\"queue_errors\":%u"
		",\"sent\":%" PRIu64 ",\"rx_ok\":%" PRIu64 ",\"rx_gaps\":%" PRIu64
		",\"rx_bad\":%" PRIu64 ",\"rx_runs\":%" PRIu64 ",\"tx_dropped_on_reset\":%" PRIu64
		",\"rx_dropped_on_reset\":%" PRIu64 "}\n",
		cfg.name, (int)getpid(), now, __atomic_load_n(&e->link_up, __ATOMIC_RELAXED),
		__atomic_load_n(&e->link_ups, __ATOMIC_RELAXED),
		__atomic_load_n(&e->link_downs, __ATOMIC_RELAXED),
		__atomic_load_n(&e->queue_errors, __ATOMIC_RELAXED), e->tx_seq, e->rx_ok,
		e->rx_gaps, e->rx_bad, e->rx_runs, ep_xstat(e, "tx_dropped_on_reset"),
		ep_xstat(e, "rx_dropped_on_reset"));
}

/* The status file, replaced whole: the test never reads half of one. */
static void publish(const struct ep *e, uint64_t now)
{
	char tmp[512], path[512];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s/.%s.status.tmp", cfg.dir, cfg.name);
	snprintf(path, sizeof(path), "%s/%s.status", cfg.dir, cfg.name);
	f = fopen(tmp, "w");
	if (f == NULL)
		return;
	write_status(f, e, now);
	if (fclose(f) == 0)
		rename(tmp, path);
}

/* NAME.linkdown: @return the seconds it asks for (and remove it), or 0. */
static unsigned int take_linkdown(void)
{
	char path[512];
	unsigned int secs = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s.linkdown", cfg.dir, cfg.name);
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	if (fscanf(f, "%u", &secs) != 1 || secs == 0)
		secs = 5;
	fclose(f);
	unlink(path);
	return secs;
}

static int link_set(bool up)
{
	const char *netdev = getenv("DVP_RXE_NETDEV");
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "ip link set %s %s", netdev ? netdev : "eth0",
		 up ? "up" : "down");
	fprintf(stderr, "# %s: %s\n", cfg.name, cmd);
	return system(cmd) == 0 ? 0 : -1;
}

static int run(void)
{
	uint64_t now, next_status = 0, next_tick, link_back = 0;
	unsigned int secs;
	struct ep e;
	int ret, status = 0;

	if (!cfg.listen && setenv("DVP_RXE_IP", cfg.peer, 1) != 0)
		return 1;
	ret = ep_open(&e, cfg.name, cfg.listen, cfg.tcp_port, EP_DEVARGS, 0, true, 0);
	if (ret < 0)
		return 1;
	next_tick = ep_now_ms();
	while (!exists("stop")) {
		now = ep_now_ms();
		/* A steady pace, whatever the link does: what is not sent waits. */
		if (now >= next_tick) {
			if (e.tx_limit < e.tx_seq + cfg.rate)
				e.tx_limit = e.tx_seq + cfg.rate;
			next_tick = now + 1;
		}
		ret = ep_pump(&e, 1);
		if (ret < 0) {
			fprintf(stderr, "# %s: pump: %s\n", cfg.name, strerror(-ret));
			status = 1;
			break;
		}
		if (now < next_status)
			continue;
		next_status = now + STATUS_MS;
		publish(&e, now);
		if (link_back != 0 && now >= link_back) {
			link_back = 0;
			if (link_set(true) < 0)
				status = 1;
		}
		secs = take_linkdown();
		if (secs != 0 && link_back == 0) {
			if (link_set(false) < 0)
				status = 1;
			link_back = now + secs * 1000ull;
		}
	}
	if (link_back != 0 && link_set(true) < 0)
		status = 1;
	now = ep_now_ms();
	publish(&e, now);
	write_status(stdout, &e, now);
	fflush(stdout);
	ep_print(&e, cfg.name);
	if (e.rx_bad != 0) {
		fprintf(stderr, "# %s: %" PRIu64 " bad frames\n", cfg.name, e.rx_bad);
		status = 1;
	}
	if (ep_close(&e) < 0)
		status = 1;
	return status;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "role", required_argument, NULL, 'r' },
		{ "sync", required_argument, NULL, 's' },
		{ "name", required_argument, NULL, 'n' },
		{ "peer", required_argument, NULL, 'p' },
		{ "tcp-port", required_argument, NULL, 't' },
		{ "rate", required_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 },
	};
	const char *role = NULL;
	int c;

	while ((c = getopt_long(argc, argv, "", lopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			role = optarg;
			break;
		case 's':
			cfg.dir = optarg;
			break;
		case 'n':
			cfg.name = optarg;
			break;
		case 'p':
			cfg.peer = optarg;
			break;
		case 't':
			cfg.tcp_port = atoi(optarg);
			break;
		case 'R':
			cfg.rate = (unsigned int)strtoul(optarg, NULL, 10);
			break;
		default:
			goto usage;
		}
	}
	if (role == NULL || (strcmp(role, "listen") != 0 && strcmp(role, "connect") != 0) ||
	    cfg.dir == NULL || cfg.name == NULL || cfg.rate == 0 || cfg.tcp_port <= 0 ||
	    cfg.tcp_port > 65535)
		goto usage;
	cfg.listen = strcmp(role, "listen") == 0;
	if (!cfg.listen && cfg.peer == NULL) {
		fprintf(stderr, "%s: --role connect needs --peer IP (the listening guest)\n",
			argv[0]);
		return 2;
	}
	if (getenv("DVP_RXE_VM") == NULL) {
		printf("SKIP: not in a Soft-RoCE VM: test/rxe/two_hosts.sh runs it in two\n");
		return EXIT_SKIP;
	}
	return run();
usage:
	fprintf(stderr,
		"usage: %s --role listen|connect --sync DIR --name NAME [--peer IP] [--tcp-port 1..65535] [--rate FRAMES_PER_MS]\n",
		argv[0]);
	return 2;
}
