/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * af_xdp_peer: the kernel's side of the net_af_xdp tests. It sends
 * numbered frames from a netdev of one network namespace and receives them
 * on a netdev of another (or the same), each through the kernel's own
 * stack, and checks every one: none missing, none twice, none out of order
 * within its flow, none changed.
 *
 *   af_xdp_peer --tx NS:IF --rx NS:IF --count N [options]
 *     --tx NS:IF       send on netdev IF of namespace NS (ip netns's name;
 *                      "-" for this process's)
 *     --rx NS:IF       receive there; --rx none: send only
 *     --count N        frames to send
 *     --rate PPS       at most this many a second (default 20000)
 *     --on MS --off MS send in bursts: MS on, then MS off (default: always on)
 *     --size LEN       frame length without FCS, 60 to 1500 (default 64)
 *     --udp SRC,DST    send UDP/IPv4 datagrams from SRC (ports 20000 +
 *                      flow) to DST port 9 through the kernel's IP stack
 *                      (its routes and neighbours, set by the caller): the
 *                      transmit queue then follows the flow's hash, which
 *                      spreads flows over a multi-queue veth's queues.
 *                      Default: raw Ethernet frames (AF_PACKET), type 0x88b5
 *     --flows N        flows (UDP source ports), 1 to 1024 (default 1)
 *     --dst-mac MAC    raw frames' destination (default 02:00:00:00:00:02)
 *     --settle MS      once everything is sent, how long nothing new may
 *                      arrive before the count is final (default 1000)
 *     --timeout S      a bound for a hung run only (default 60)
 *   af_xdp_peer --check-xdp
 *                      exit 0 when this kernel has AF_XDP sockets, 1 if not
 *
 * It prints one line:
 *   af_xdp_peer: sent S received R missing M duplicates D reordered O
 *   corrupt C foreign F rx_socket_drops X tx_errors E
 * and exits 0 when R == S and D, O, C and X are 0 (with --rx none: when
 * every frame was sent), 1 otherwise, 2 for bad arguments. Results are
 * counts; the times only pace the sender and bound a hung run.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PROG "af_xdp_peer"
#define ETH_TYPE 0x88b5
#define MAGIC "dvpxdpt1"
#define MAX_FLOWS 1024
#define MAX_LEN 1500
#define UDP_HDRS (14 + 20 + 8)

struct hdr {
	char magic[8];
	uint32_t run;
	uint32_t seq;
	uint16_t flow;
	uint16_t len; /* the frame's length */
} __attribute__((packed));

static struct {
	char tx_ns[64], tx_if[IF_NAMESIZE], rx_ns[64], rx_if[IF_NAMESIZE];
	bool rx_none;
	uint32_t count, rate, on_ms, off_ms, size, flows, settle_ms, timeout_s;
	bool udp;
	struct in_addr src, dst;
	uint8_t dst_mac[6], src_mac[6];
	uint32_t run;
	int tx_fd[MAX_FLOWS];
	int rx_fd;
	int tx_ifindex;
	/* Written by the sender, read by the receiver. */
	uint32_t sent; /* atomic */
	uint32_t tx_errors;
	bool tx_done; /* atomic */
} g = {
	.count = 0,
	.rate = 20000,
	.size = 64,
	.flows = 1,
	.settle_ms = 1000,
	.timeout_s = 60,
	.dst_mac = { 0x02, 0, 0, 0, 0, 0x02 },
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ull),
			       .tv_nsec = (long)(ns % 1000000000ull) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static uint8_t pattern(uint32_t seq, uint32_t k)
{
	return (uint8_t)(seq * 7u + k * 13u + (seq >> 8));
}

/* Enter namespace @ns ("-": stay) for the sockets made next. @return 0 or -1. */
static int enter_ns(const char *ns)
{
	char path[128];
	int fd, ret;

	if (strcmp(ns, "-") == 0)
		return 0;
	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, PROG ": namespace %s: %s\n", ns, strerror(errno));
		return -1;
	}
	ret = setns(fd, CLONE_NEWNET);
	if (ret != 0)
		fprintf(stderr, PROG ": cannot enter namespace %s: %s\n", ns, strerror(errno));
	close(fd);
	return ret;
}

static int open_sockets(void)
{
	int home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	struct ifreq ifr = { 0 };
	int big = 16 << 20;
	uint32_t f;

	if (home < 0)
		return -1;
	if (!g.rx_none) {
		if (enter_ns(g.rx_ns) != 0)
			return -1;
		g.rx_fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
		sll.sll_ifindex = (int)if_nametoindex(g.rx_if);
		if (g.rx_fd < 0 || sll.sll_ifindex == 0 ||
		    bind(g.rx_fd, (struct sockaddr *)&sll, sizeof(sll)) != 0) {
			fprintf(stderr, PROG ": receive on %s:%s: %s\n", g.rx_ns, g.rx_if,
				strerror(errno));
			return -1;
		}
		/* Room for everything in flight: a drop here is ours, not the port's. */
		if (setsockopt(g.rx_fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)) != 0)
			setsockopt(g.rx_fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	}
	if (enter_ns(g.tx_ns) != 0)
		return -1;
	g.tx_ifindex = (int)if_nametoindex(g.tx_if);
	if (g.tx_ifindex == 0) {
		fprintf(stderr, PROG ": send on %s:%s: %s\n", g.tx_ns, g.tx_if, strerror(errno));
		return -1;
	}
	for (f = 0; f < (g.udp ? g.flows : 1); f++) {
		struct sockaddr_in sin = { .sin_family = AF_INET,
					   .sin_port = htons((uint16_t)(20000 + f)),
					   .sin_addr = g.src };

		g.tx_fd[f] = g.udp ? socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0) :
				     socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
		if (g.tx_fd[f] < 0 ||
		    (g.udp && bind(g.tx_fd[f], (struct sockaddr *)&sin, sizeof(sin)) != 0)) {
			fprintf(stderr, PROG ": send socket: %s\n", strerror(errno));
			return -1;
		}
	}
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", g.tx_if);
	if (ioctl(g.tx_fd[0], SIOCGIFHWADDR, &ifr) == 0)
		memcpy(g.src_mac, ifr.ifr_hwaddr.sa_data, 6);
	if (setns(home, CLONE_NEWNET) != 0)
		return -1;
	close(home);
	return 0;
}

static void *sender(void *arg)
{
	uint8_t frame[MAX_LEN];
	uint64_t t0 = now_ns(), period = (uint64_t)(g.on_ms + g.off_ms) * 1000000ull;
	uint64_t on_ns = (uint64_t)g.on_ms * 1000000ull, paced = t0;
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
				   .sll_ifindex = g.tx_ifindex,
				   .sll_halen = 6 };
	struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons(9), .sin_addr = g.dst };
	uint32_t seq, hoff = g.udp ? UDP_HDRS : 14;

	(void)arg;
	memcpy(sll.sll_addr, g.dst_mac, 6);
	for (seq = 0; seq < g.count; seq++) {
		struct hdr h = { .run = g.run, .seq = seq };
		uint32_t k, flow = seq % g.flows;
		ssize_t r;

		if (seq % 32 == 0) {
			uint64_t now;

			/* Pace by the rate, and wait out an off window. */
			paced += 32ull * 1000000000ull / g.rate;
			now = now_ns();
			if (paced > now)
				sleep_until(paced);
			if (period != 0 && (now_ns() - t0) % period >= on_ns) {
				uint64_t el = now_ns() - t0;

				sleep_until(t0 + (el / period + 1) * period);
				paced = now_ns();
			}
		}
		memcpy(h.magic, MAGIC, 8);
		h.flow = (uint16_t)flow;
		h.len = (uint16_t)g.size;
		memcpy(frame, g.dst_mac, 6);
		memcpy(frame + 6, g.src_mac, 6);
		frame[12] = ETH_TYPE >> 8;
		frame[13] = ETH_TYPE & 0xff;
		memcpy(frame + hoff, &h, sizeof(h));
		for (k = hoff + (uint32_t)sizeof(h); k < g.size; k++)
			frame[k] = pattern(seq, k);
		if (g.udp)
			r = sendto(g.tx_fd[flow], frame + UDP_HDRS, g.size - UDP_HDRS, 0,
				   (struct sockaddr *)&dst, sizeof(dst));
		else
			r = sendto(g.tx_fd[0], frame, g.size, 0, (struct sockaddr *)&sll,
				   sizeof(sll));
		if (r < 0) {
			/* A full queue: try again shortly; the netdev gone: stop. */
			if (errno == ENOBUFS || errno == EAGAIN) {
				usleep(200);
				seq--;
				continue;
			}
			g.tx_errors++;
			if (errno == ENXIO || errno == ENODEV || errno == ENETDOWN)
				break;
			continue;
		}
		__atomic_store_n(&g.sent, seq + 1, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&g.tx_done, true, __ATOMIC_RELEASE);
	return NULL;
}

struct verdict {
	uint32_t received, dups, reordered, corrupt, foreign;
	uint32_t last[MAX_FLOWS];
	uint8_t *seen;
};

static void check_frame(struct verdict *v, const uint8_t *p, size_t n)
{
	uint32_t hoff, k;
	struct hdr h;

	if (n >= 14 && p[12] == (ETH_TYPE >> 8) && p[13] == (ETH_TYPE & 0xff))
		hoff = 14;
	else if (n >= UDP_HDRS && p[12] == 0x08 && p[13] == 0x00 && p[14] == 0x45 && p[23] == 17)
		hoff = UDP_HDRS;
	else {
		v->foreign++;
		return;
	}
	if (n < hoff + sizeof(h)) {
		v->foreign++;
		return;
	}
	memcpy(&h, p + hoff, sizeof(h));
	if (memcmp(h.magic, MAGIC, 8) != 0 || h.run != g.run) {
		v->foreign++;
		return;
	}
	if (h.seq >= g.count || h.flow >= g.flows || h.len != n) {
		v->corrupt++;
		return;
	}
	for (k = hoff + (uint32_t)sizeof(h); k < n; k++)
		if (p[k] != pattern(h.seq, k)) {
			v->corrupt++;
			return;
		}
	if (v->seen[h.seq]) {
		v->dups++;
		return;
	}
	v->seen[h.seq] = 1;
	v->received++;
	/* Sequence numbers of a flow rise: seq = flow + k * flows. */
	if (v->last[h.flow] != 0 && h.seq + 1 < v->last[h.flow])
		v->reordered++;
	if (h.seq + 1 > v->last[h.flow])
		v->last[h.flow] = h.seq + 1;
}

static int receiver(struct verdict *v, uint64_t deadline)
{
	uint8_t buf[2048];
	uint64_t quiet_since = now_ns();

	for (;;) {
		struct sockaddr_ll from;
		socklen_t fl = sizeof(from);
		struct timeval tv = { .tv_sec = 0, .tv_usec = 100000 };
		bool done = __atomic_load_n(&g.tx_done, __ATOMIC_ACQUIRE);
		uint32_t sent = __atomic_load_n(&g.sent, __ATOMIC_ACQUIRE);
		ssize_t n;

		if (done && v->received >= sent)
			return 0;
		if (done && now_ns() - quiet_since > (uint64_t)g.settle_ms * 1000000ull)
			return 0;
		if (now_ns() > deadline)
			return -1;
		setsockopt(g.rx_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		n = recvfrom(g.rx_fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
		if (n < 0)
			continue;
		/* Our own frames leaving (the same netdev both ways) are not received ones. */
		if (from.sll_pkttype == PACKET_OUTGOING)
			continue;
		check_frame(v, buf, (size_t)n);
		quiet_since = now_ns();
	}
}

static int parse_nsif(const char *s, char *ns, size_t nl, char *ifn)
{
	const char *c = strchr(s, ':');

	if (c == NULL || c == s || strlen(c + 1) == 0 || strlen(c + 1) >= IF_NAMESIZE ||
	    (size_t)(c - s) >= nl)
		return -1;
	snprintf(ns, nl, "%.*s", (int)(c - s), s);
	snprintf(ifn, IF_NAMESIZE, "%s", c + 1);
	return 0;
}

static int check_xdp(void)
{
	int fd = socket(AF_XDP, SOCK_RAW | SOCK_CLOEXEC, 0);

	if (fd < 0 && errno == EAFNOSUPPORT)
		return 1;
	if (fd >= 0)
		close(fd);
	return 0;
}

static int usage(const char *why)
{
	fprintf(stderr, PROG ": %s (see the header of af_xdp_peer.c)\n", why);
	return 2;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "tx", required_argument, NULL, 't' },
		{ "rx", required_argument, NULL, 'r' },
		{ "count", required_argument, NULL, 'n' },
		{ "rate", required_argument, NULL, 'R' },
		{ "on", required_argument, NULL, 'o' },
		{ "off", required_argument, NULL, 'f' },
		{ "size", required_argument, NULL, 's' },
		{ "udp", required_argument, NULL, 'u' },
		{ "flows", required_argument, NULL, 'F' },
		{ "dst-mac", required_argument, NULL, 'm' },
		{ "settle", required_argument, NULL, 'S' },
		{ "timeout", required_argument, NULL, 'T' },
		{ "check-xdp", no_argument, NULL, 'X' },
		{ NULL, 0, NULL, 0 },
	};
	struct verdict v = { 0 };
	struct tpacket_stats ps = { 0 };
	socklen_t psl = sizeof(ps);
	pthread_t tx;
	uint32_t missing;
	bool have_tx = false;
	int c, ret = 0;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		char *comma;

		switch (c) {
		case 't':
			if (parse_nsif(optarg, g.tx_ns, sizeof(g.tx_ns), g.tx_if) != 0)
				return usage("--tx takes NS:IF");
			have_tx = true;
			break;
		case 'r':
			if (strcmp(optarg, "none") == 0)
				g.rx_none = true;
			else if (parse_nsif(optarg, g.rx_ns, sizeof(g.rx_ns), g.rx_if) != 0)
				return usage("--rx takes NS:IF or none");
			break;
		case 'n':
			g.count = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'R':
			g.rate = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'o':
			g.on_ms = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'f':
			g.off_ms = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 's':
			g.size = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'u':
			comma = strchr(optarg, ',');
			if (comma == NULL)
				return usage("--udp takes SRC,DST");
			*comma = '\0';
			if (inet_pton(AF_INET, optarg, &g.src) != 1 ||
			    inet_pton(AF_INET, comma + 1, &g.dst) != 1)
				return usage("--udp takes two IPv4 addresses");
			g.udp = true;
			break;
		case 'F':
			g.flows = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'm':
			if (sscanf(optarg, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &g.dst_mac[0],
				   &g.dst_mac[1], &g.dst_mac[2], &g.dst_mac[3], &g.dst_mac[4],
				   &g.dst_mac[5]) != 6)
				return usage("--dst-mac takes xx:xx:xx:xx:xx:xx");
			break;
		case 'S':
			g.settle_ms = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'T':
			g.timeout_s = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'X':
			return check_xdp();
		default:
			return usage("unknown option");
		}
	}
	if (!have_tx || (!g.rx_none && g.rx_if[0] == '\0'))
		return usage("--tx and --rx are needed");
	if (g.count == 0 || g.count > (1u << 26) || g.rate == 0 || g.flows == 0 ||
	    g.flows > MAX_FLOWS || g.size < 60 || g.size > MAX_LEN ||
	    (g.udp && g.size < UDP_HDRS + sizeof(struct hdr)) || (g.on_ms == 0) != (g.off_ms == 0))
		return usage("a count of 1 to 2^26, a rate, 1 to 1024 flows, a size of 60 to 1500 "
			     "(and --on with --off) are needed");
	if (getrandom(&g.run, sizeof(g.run), 0) != sizeof(g.run))
		g.run = (uint32_t)now_ns();
	v.seen = calloc(g.count, 1);
	if (v.seen == NULL || open_sockets() != 0)
		return 1;
	if (pthread_create(&tx, NULL, sender, NULL) != 0)
		return 1;
	if (!g.rx_none)
		ret = receiver(&v, now_ns() + (uint64_t)g.timeout_s * 1000000000ull);
	pthread_join(tx, NULL);
	if (!g.rx_none)
		getsockopt(g.rx_fd, SOL_PACKET, PACKET_STATISTICS, &ps, &psl);
	missing = g.rx_none ? 0 : g.sent - (v.received < g.sent ? v.received : g.sent);
	printf(PROG ": sent %u received %u missing %u duplicates %u reordered %u corrupt %u "
		    "foreign %u rx_socket_drops %u tx_errors %u%s\n",
	       g.sent, v.received, missing, v.dups, v.reordered, v.corrupt, v.foreign, ps.tp_drops,
	       g.tx_errors, ret < 0 ? " (timed out)" : "");
	free(v.seen);
	if (g.rx_none)
		return g.sent == g.count ? 0 : 1;
	return missing == 0 && v.dups == 0 && v.reordered == 0 && v.corrupt == 0 &&
			       ps.tp_drops == 0 && g.sent == g.count ?
		       0 :
		       1;
}
