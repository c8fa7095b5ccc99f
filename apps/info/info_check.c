/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * dvp-info --check: the first contact with an adapter (doc/apps.md; the
 * README's ConnectX section). Each port sends to the next (0 to 1, 1 to
 * 0 on a two-port adapter cabled back to back) or, alone, to itself (its
 * own MAC: a loopback plug, or the adapter's own loopback), and for each
 * of the paths the port runs it says what it sent, received and counted,
 * and pass or fail:
 *
 *  - rx and tx: frames of 60 to 1514 bytes (UDP/IPv4, sequence-numbered,
 *    with a pattern), every one received in order and intact, the
 *    device's checksum verdicts, and the ports' own counters agreeing; the
 *    burst each port runs is named (dvp_pmd_mlx5_paths() on an mlx5 port);
 *    with --rx-buf, receive buffers shorter than a frame and rx scatter:
 *    the longer frames arrive as chains of mbufs;
 *  - the interrupt path: the rx queue armed, one frame sent, its event on
 *    the queue's fd, read and acked, the frame received;
 *  - the async path: the receiving port's link taken down and up (on the
 *    simulated HCA by its API; on an adapter with --flap, its netdev by
 *    ioctl: only on a port that may go down), LINK_STATUS_CHANGE down
 *    then up with their causes, and no queue error or removal at any time.
 *
 * Which rx and tx bursts a port runs is the device's and the PMD's
 * devargs' choice (rx_vec_en, rxq_cqe_comp_en, mprq_en, txq_mpw_en, ...):
 * usertools/dvp-hwcheck runs this once per set of them.
 */

#include <errno.h>
#include <inttypes.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <dvp_common.h>
#include <dvp_errno.h>
#include <dvp_json.h>
#include <dvp_mbuf.h>
#include <dvp_pmd_mlx5.h>
#include <dvp_port.h>
#include <dvp_sim_mlx5.h>

#include "info.h"

#define CHECK_DESC 1024
#define CHECK_POOL 8192
#define CHECK_BURST 32
#define CHECK_IDLE_NS 2000000000ull /* no progress this long: what is missing is lost */
#define CHECK_MAGIC 0x44565043u /* "DVPC" */

enum { CHK_RX, CHK_TX, CHK_INTR, CHK_ASYNC, CHK_N };
static const char *const chk_names[CHK_N] = { "rx", "tx", "interrupt", "async" };

struct chk {
	char path[80];
	uint64_t sent, received, counted, errors;
	char note[200];
	int verdict; /* 1 pass, 0 fail, -1 not run */
};

struct pair {
	uint16_t tx, rx;
	struct chk c[CHK_N];
};

/* Events seen per port (the EAL interrupt thread writes, the check reads). */
static struct {
	pthread_mutex_t lock;
	unsigned int down[DVP_MAX_PORTS], up[DVP_MAX_PORTS];
	unsigned int qerr[DVP_MAX_PORTS], removal[DVP_MAX_PORTS];
	char last[DVP_MAX_PORTS][96];
} evs = { .lock = PTHREAD_MUTEX_INITIALIZER };

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void on_event(uint16_t port, enum dvp_port_event e, const struct dvp_port_event_info *in,
		     void *arg)
{
	(void)arg;
	if (port >= DVP_MAX_PORTS)
		return;
	pthread_mutex_lock(&evs.lock);
	if (e == DVP_PORT_EVENT_LINK_STATUS_CHANGE && in->link.link_status)
		evs.up[port]++;
	else if (e == DVP_PORT_EVENT_LINK_STATUS_CHANGE)
		evs.down[port]++;
	else if (e == DVP_PORT_EVENT_QUEUE_ERROR)
		evs.qerr[port]++;
	else if (e == DVP_PORT_EVENT_REMOVAL)
		evs.removal[port]++;
	snprintf(evs.last[port], sizeof(evs.last[port]), "%s (%s)", dvp_port_event_name(e),
		 dvp_port_event_cause_name(in->cause) != NULL ?
			 dvp_port_event_cause_name(in->cause) :
			 "no cause");
	pthread_mutex_unlock(&evs.lock);
}

static unsigned int ev_get(const unsigned int *a, uint16_t port)
{
	unsigned int v;

	pthread_mutex_lock(&evs.lock);
	v = a[port];
	pthread_mutex_unlock(&evs.lock);
	return v;
}

static void put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v);
}

static uint16_t csum(const uint8_t *p, size_t n, uint32_t sum)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Frame @p seq (@p len bytes): UDP/IPv4 to @p dst, checksums filled, "DVPC", seq, a pattern. */
static void frame_build(uint8_t *f, uint32_t len, const struct dvp_ether_addr *dst,
			const struct dvp_ether_addr *src, uint32_t seq)
{
	uint8_t *ip = f + 14, *udp = f + 34, *pl = f + 42;
	uint32_t sum;

	memcpy(f, dst->addr_bytes, 6);
	memcpy(f + 6, src->addr_bytes, 6);
	put16(f + 12, 0x0800);
	memset(ip, 0, 20);
	ip[0] = 0x45;
	put16(ip + 2, len - 14);
	put16(ip + 4, seq & 0xffff);
	put16(ip + 6, 0x4000);
	ip[8] = 64;
	ip[9] = 17;
	put32(ip + 12, 0xc6120001); /* 198.18.0.1 */
	put32(ip + 16, 0xc6130001); /* 198.19.0.1 */
	put16(ip + 10, csum(ip, 20, 0));
	put16(udp, 0xc0de);
	put16(udp + 2, 9); /* discard */
	put16(udp + 4, len - 34);
	put16(udp + 6, 0);
	put32(pl, CHECK_MAGIC);
	put32(pl + 4, seq);
	for (uint32_t i = 8; i < len - 42; i++)
		pl[i] = (uint8_t)(seq + i);
	sum = 0xc612 + 0x0001 + 0xc613 + 0x0001 + 17 + (len - 34);
	sum = csum(udp, len - 34, sum);
	put16(udp + 6, sum != 0 ? sum : 0xffff); /* 0 would say "no checksum" */
}

static uint32_t frame_len(uint32_t seq, uint32_t max)
{
	static const uint32_t lens[] = { 60, 1514, 64, 128, 512, 61, 1000, 256 };

	return DVP_MIN(lens[seq % DVP_DIM(lens)], max);
}

static int port_start(uint16_t p, struct dvp_mempool *rx_mp, bool scatter)
{
	struct dvp_port_info in;
	struct dvp_port_conf conf;
	int ret;

	ret = dvp_port_info_get(p, &in);
	if (ret != 0)
		return ret;
	memset(&conf, 0, sizeof(conf));
	conf.rxmode.offloads = in.rx_offload_capa & DVP_RX_OFFLOAD_CHECKSUM;
	/* Not offered: the queue's setup refuses buffers shorter than a frame, and says so. */
	if (scatter)
		conf.rxmode.offloads |= in.rx_offload_capa & DVP_RX_OFFLOAD_SCATTER;
	conf.intr_conf.rxq = (in.intr_capa & DVP_PORT_INTR_RXQ) != 0;
	conf.intr_conf.lsc = (in.intr_capa & DVP_PORT_INTR_LSC) != 0;
	conf.intr_conf.rmv = (in.intr_capa & DVP_PORT_INTR_RMV) != 0;
	ret = dvp_port_configure(p, 1, 1, &conf);
	if (ret == 0)
		ret = dvp_rxq_setup(p, 0, CHECK_DESC, DVP_SOCKET_ANY, NULL, rx_mp);
	if (ret == 0)
		ret = dvp_txq_setup(p, 0, CHECK_DESC, DVP_SOCKET_ANY, NULL);
	if (ret == 0)
		ret = dvp_port_start(p);
	for (int e = DVP_PORT_EVENT_LINK_STATUS_CHANGE; ret == 0 && e <= DVP_PORT_EVENT_QUEUE_ERROR;
	     e++)
		dvp_port_event_register(p, (enum dvp_port_event)e, on_event, NULL);
	return ret;
}

static bool link_wait(uint16_t p, bool up, uint64_t ns)
{
	struct dvp_link l;

	for (uint64_t end = now_ns() + ns;; usleep(10000)) {
		if (dvp_link_get(p, &l) == 0 && !!l.link_status == up)
			return true;
		if (now_ns() > end)
			return false;
	}
}

/* The frame of @p m, a chain or not, in @p flat (@p cap bytes): its length, 0 if longer. */
static uint32_t rx_flatten(const struct dvp_mbuf *m, uint8_t *flat, uint32_t cap)
{
	uint32_t n = 0;

	for (const struct dvp_mbuf *s = m; s != NULL; s = s->next) {
		if (n + s->data_len > cap)
			return 0;
		memcpy(flat + n, dvp_pktmbuf_mtod(s, const uint8_t *), s->data_len);
		n += s->data_len;
	}
	return n == m->pkt_len ? n : 0;
}

/* One received frame: ours, in order and intact? Counts it. */
static void rx_take(struct dvp_mbuf *m, uint32_t *next, uint64_t *ok, uint64_t *bad,
		    uint64_t *foreign, uint64_t *csum_good, uint64_t *chained, uint32_t max)
{
	uint8_t d[1600], want[1600];
	struct dvp_ether_addr dst, src;
	uint32_t seq, len = rx_flatten(m, d, sizeof(d));

	if (len < 60 || d[12] != 0x08 || d[13] != 0x00 || d[23] != 17 ||
	    (uint32_t)(d[42] << 24 | d[43] << 16 | d[44] << 8 | d[45]) != CHECK_MAGIC) {
		(*foreign)++; /* not a check frame: the network's own (multicast...) */
		dvp_pktmbuf_free(m);
		return;
	}
	seq = (uint32_t)(d[46] << 24 | d[47] << 16 | d[48] << 8 | d[49]);
	memcpy(dst.addr_bytes, d, 6);
	memcpy(src.addr_bytes, d + 6, 6);
	frame_build(want, frame_len(seq, max), &dst, &src, seq);
	*chained += m->nb_segs > 1;
	if (seq != *next || len != frame_len(seq, max) || memcmp(d, want, len) != 0) {
		(*bad)++;
	} else {
		(*ok)++;
		*csum_good +=
			(m->ol_flags & DVP_MBUF_F_RX_IP_CKSUM_MASK) ==
				DVP_MBUF_F_RX_IP_CKSUM_GOOD &&
			(m->ol_flags & DVP_MBUF_F_RX_L4_CKSUM_MASK) == DVP_MBUF_F_RX_L4_CKSUM_GOOD;
	}
	*next = seq + 1;
	dvp_pktmbuf_free(m);
}

static void path_names(struct pair *pr)
{
	struct dvp_pmd_mlx5_paths a, b;
	bool mlx5_tx = dvp_pmd_mlx5_paths(pr->tx, &a) == 0;
	bool mlx5_rx = dvp_pmd_mlx5_paths(pr->rx, &b) == 0;

	snprintf(pr->c[CHK_TX].path, sizeof(pr->c[CHK_TX].path), "%s",
		 mlx5_tx ? a.tx : "(not an mlx5 port)");
	snprintf(pr->c[CHK_RX].path, sizeof(pr->c[CHK_RX].path), "%s",
		 mlx5_rx ? b.rx : "(not an mlx5 port)");
	snprintf(pr->c[CHK_INTR].path, sizeof(pr->c[CHK_INTR].path), "arm, event, ack");
	snprintf(pr->c[CHK_ASYNC].path, sizeof(pr->c[CHK_ASYNC].path),
		 "link down and up, no queue error");
}

/* @p n frames tx -> rx: the rx and tx checks. */
static void check_datapath(struct pair *pr, struct dvp_mempool *mp, uint64_t n)
{
	struct dvp_ether_addr src, dst;
	struct dvp_port_stats s0, r0, s1, r1;
	struct dvp_mbuf *pkts[CHECK_BURST];
	uint64_t sent = 0, ok = 0, bad = 0, foreign = 0, good_csum = 0, chained = 0;
	uint64_t last = now_ns();
	struct dvp_port_info in;
	uint32_t next = 0, max;

	dvp_macaddr_get(pr->tx, &src);
	dvp_macaddr_get(pr->rx, &dst);
	dvp_port_info_get(pr->rx, &in);
	max = DVP_MIN(1514u, in.max_rx_pktlen - 4u);
	dvp_stats_get(pr->tx, &s0);
	dvp_stats_get(pr->rx, &r0);
	while (ok + bad < n && now_ns() - last < CHECK_IDLE_NS) {
		uint16_t k = (uint16_t)DVP_MIN((uint64_t)CHECK_BURST, n - sent), m, got;

		if (k > 0 && dvp_pktmbuf_alloc_bulk(mp, pkts, k) == 0) {
			for (uint16_t i = 0; i < k; i++) {
				uint32_t len = frame_len((uint32_t)(sent + i), max);

				frame_build((uint8_t *)dvp_pktmbuf_append(pkts[i], (uint16_t)len),
					    len, &dst, &src, (uint32_t)(sent + i));
			}
			m = dvp_tx_burst(pr->tx, 0, pkts, k);
			dvp_pktmbuf_free_bulk(pkts + m, (unsigned int)(k - m));
			sent += m;
			if (m > 0)
				last = now_ns();
		} else {
			dvp_tx_burst(pr->tx, 0, NULL, 0); /* completions */
		}
		got = dvp_rx_burst(pr->rx, 0, pkts, CHECK_BURST);
		for (uint16_t i = 0; i < got; i++)
			rx_take(pkts[i], &next, &ok, &bad, &foreign, &good_csum, &chained, max);
		if (got > 0)
			last = now_ns();
	}
	dvp_tx_burst(pr->tx, 0, NULL, 0);
	dvp_stats_get(pr->tx, &s1);
	dvp_stats_get(pr->rx, &r1);
	pr->c[CHK_TX].sent = sent;
	pr->c[CHK_TX].received = ok;
	pr->c[CHK_TX].counted = s1.opackets - s0.opackets;
	pr->c[CHK_TX].errors = s1.oerrors - s0.oerrors;
	pr->c[CHK_TX].verdict =
		sent == n && pr->c[CHK_TX].counted == n && pr->c[CHK_TX].errors == 0;
	pr->c[CHK_RX].sent = sent;
	pr->c[CHK_RX].received = ok;
	pr->c[CHK_RX].counted = r1.ipackets - r0.ipackets;
	pr->c[CHK_RX].errors = (r1.ierrors - r0.ierrors) + (r1.imissed - r0.imissed) + bad;
	pr->c[CHK_RX].verdict = ok == n && bad == 0 && r1.ierrors == r0.ierrors &&
				pr->c[CHK_RX].counted == ok + foreign;
	snprintf(pr->c[CHK_RX].note, sizeof(pr->c[CHK_RX].note),
		 "%" PRIu64 " out of order or damaged, %" PRIu64 " not ours, %" PRIu64
		 " missed; checksums verified by the device: %" PRIu64 " of %" PRIu64 "; %" PRIu64
		 " in chains of mbufs",
		 bad, foreign, r1.imissed - r0.imissed, good_csum, ok, chained);
	if (!pr->c[CHK_TX].verdict)
		snprintf(pr->c[CHK_TX].note, sizeof(pr->c[CHK_TX].note),
			 "%" PRIu64 " of %" PRIu64 " taken by tx_burst", sent, n);
}

/* Arm the rx queue, send one frame, see its event, read and ack it, take the frame. */
static void check_intr(struct pair *pr, struct dvp_mempool *mp)
{
	struct chk *c = &pr->c[CHK_INTR];
	struct dvp_ether_addr src, dst;
	struct dvp_mbuf *m, *pkts[CHECK_BURST];
	uint64_t arms0 = 0, ev0 = 0, arms1 = 0, ev1 = 0, acks = 0;
	struct pollfd pfd = { .events = POLLIN };
	int ret, read_n = 0, ready = 0;
	uint16_t got = 0;

	dvp_xstats_get_by_name(pr->rx, "rx_q0_intr_arms", &arms0);
	dvp_xstats_get_by_name(pr->rx, "rx_q0_intr_events", &ev0);
	ret = dvp_rx_intr_enable(pr->rx, 0);
	if (ret != 0) {
		snprintf(c->note, sizeof(c->note), "rx interrupts not offered: %s", strerror(-ret));
		c->verdict = ret == -ENOTSUP ? -1 : 0;
		return;
	}
	/* Poll once more after arming: nothing may be waiting. */
	while ((got = dvp_rx_burst(pr->rx, 0, pkts, CHECK_BURST)) > 0)
		dvp_pktmbuf_free_bulk(pkts, got);
	dvp_macaddr_get(pr->tx, &src);
	dvp_macaddr_get(pr->rx, &dst);
	m = dvp_pktmbuf_alloc(mp);
	if (m != NULL) {
		frame_build((uint8_t *)dvp_pktmbuf_append(m, 100), 100, &dst, &src, 0);
		c->sent = dvp_tx_burst(pr->tx, 0, &m, 1);
		if (c->sent == 0)
			dvp_pktmbuf_free(m);
	}
	pfd.fd = dvp_rx_intr_fd(pr->rx, 0);
	for (int i = 0; pfd.fd >= 0 && i < 200 && ready <= 0; i++) {
		dvp_tx_burst(pr->tx, 0, NULL, 0);
		ready = poll(&pfd, 1, 10);
	}
	read_n = dvp_rx_intr_disable(pr->rx, 0);
	for (int i = 0; i < 200 && c->received == 0; i++, usleep(5000)) {
		got = dvp_rx_burst(pr->rx, 0, pkts, CHECK_BURST);
		c->received += got;
		dvp_pktmbuf_free_bulk(pkts, got);
	}
	dvp_xstats_get_by_name(pr->rx, "rx_q0_intr_arms", &arms1);
	dvp_xstats_get_by_name(pr->rx, "rx_q0_intr_events", &ev1);
	dvp_xstats_get_by_name(pr->rx, "rx_q0_intr_acks", &acks);
	c->counted = ev1 - ev0;
	c->verdict =
		ready > 0 && read_n >= 1 && arms1 > arms0 && c->counted >= 1 && c->received >= 1;
	snprintf(c->note, sizeof(c->note),
		 "armed %" PRIu64 ", fd %s, %d event(s) read and acked (%" PRIu64
		 " acks so far, batched)",
		 arms1 - arms0, ready > 0 ? "readable" : "never readable", read_n, acks);
}

/* Take the netdev @p ifname down (@p up false) or up, as `ip link set` would. */
static int netdev_set(const char *ifname, bool up)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret = 0;

	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) != 0) {
		ret = -errno;
	} else {
		ifr.ifr_flags = (short)(up ? ifr.ifr_flags | IFF_UP : ifr.ifr_flags & ~IFF_UP);
		if (ioctl(fd, SIOCSIFFLAGS, &ifr) != 0)
			ret = -errno;
	}
	close(fd);
	return ret;
}

/* The link of the receiving port down and up: its events, and no error ever. */
static void check_async(struct pair *pr, bool flap)
{
	struct chk *c = &pr->c[CHK_ASYNC];
	struct dvp_pmd_mlx5_paths pa;
	struct sim_mlx5_dev *sim;
	unsigned int sp, d0 = ev_get(evs.down, pr->rx), u0 = ev_get(evs.up, pr->rx);
	bool on_sim = sim_mlx5_port_of(pr->rx, &sim, &sp) == 0, ifname;
	int ret = 0;

	ifname = dvp_pmd_mlx5_paths(pr->rx, &pa) == 0 && pa.ifname[0] != '\0';
	if (on_sim) {
		ret = sim_mlx5_link_set(sim, sp, false);
		if (ret == 0 && !link_wait(pr->rx, false, 2000000000ull))
			ret = -ETIMEDOUT;
		if (ret == 0)
			ret = sim_mlx5_link_set(sim, sp, true);
	} else if (flap && ifname) {
		ret = netdev_set(pa.ifname, false);
		if (ret == 0 && !link_wait(pr->rx, false, 5000000000ull))
			ret = -ETIMEDOUT;
		if (ret == 0)
			ret = netdev_set(pa.ifname, true);
	} else {
		c->verdict = -1;
		snprintf(c->note, sizeof(c->note),
			 "no link change provoked (--flap takes %s down and up)%s; %u queue "
			 "error(s), %u removal(s) seen",
			 ifname ? pa.ifname : "the port's netdev",
			 ifname ? "" : ": no netdev known", ev_get(evs.qerr, pr->rx),
			 ev_get(evs.removal, pr->rx));
		if (ev_get(evs.qerr, pr->rx) + ev_get(evs.removal, pr->rx) != 0)
			c->verdict = 0;
		return;
	}
	if (ret == 0 && !link_wait(pr->rx, true, 10000000000ull))
		ret = -ETIMEDOUT;
	/* The events come on the EAL interrupt thread: give them a moment. */
	for (int i = 0; i < 200 && (ev_get(evs.up, pr->rx) == u0); i++)
		usleep(10000);
	c->sent = 2;
	c->received = (ev_get(evs.down, pr->rx) - d0) + (ev_get(evs.up, pr->rx) - u0);
	c->errors = ev_get(evs.qerr, pr->rx) + ev_get(evs.removal, pr->rx);
	c->counted = c->received;
	c->verdict = ret == 0 && ev_get(evs.down, pr->rx) > d0 && ev_get(evs.up, pr->rx) > u0 &&
		     c->errors == 0;
	pthread_mutex_lock(&evs.lock);
	snprintf(c->note, sizeof(c->note), "%s%s; last: %s", on_sim ? "the sim's link" : pa.ifname,
		 ret == 0 ? " down and up" : " flap failed", evs.last[pr->rx]);
	pthread_mutex_unlock(&evs.lock);
	if (ret != 0)
		snprintf(c->note + strlen(c->note), sizeof(c->note) - strlen(c->note), " (%s)",
			 strerror(-ret));
}

static void print_pair(const struct pair *pr)
{
	struct dvp_pmd_mlx5_paths pa;
	char tx[64] = "", rx[64] = "";

	dvp_port_get_name(pr->tx, tx, sizeof(tx));
	dvp_port_get_name(pr->rx, rx, sizeof(rx));
	printf("%s -> %s", tx, rx);
	if (dvp_pmd_mlx5_paths(pr->rx, &pa) == 0)
		printf(": PCI id 0x%04x, inline %s (%u bytes)%s%s", pa.part_id, pa.inline_mode,
		       pa.inline_bytes, pa.devx ? ", DevX" : ", by PCI id (no DevX)",
		       pa.ifname[0] ? ", netdev " : "");
	if (dvp_pmd_mlx5_paths(pr->rx, &pa) == 0 && pa.ifname[0])
		printf("%s", pa.ifname);
	printf("\n");
	for (int i = 0; i < CHK_N; i++) {
		const struct chk *c = &pr->c[i];

		printf("  %-9s %-34s sent %" PRIu64 " received %" PRIu64 " counted %" PRIu64
		       " errors %" PRIu64 "  %s\n",
		       chk_names[i], c->path, c->sent, c->received, c->counted, c->errors,
		       c->verdict > 0 ? "PASS" :
		       c->verdict < 0 ? "NOT RUN" :
					"FAIL");
		if (c->note[0])
			printf("            %s\n", c->note);
	}
}

static void json_pair(struct dvp_json *w, const struct pair *pr)
{
	struct dvp_pmd_mlx5_paths pa;
	char name[64] = "";

	dvp_json_obj_open(w, NULL);
	dvp_port_get_name(pr->tx, name, sizeof(name));
	dvp_json_str(w, "tx_port", name);
	dvp_port_get_name(pr->rx, name, sizeof(name));
	dvp_json_str(w, "rx_port", name);
	if (dvp_pmd_mlx5_paths(pr->rx, &pa) == 0) {
		dvp_json_u64(w, "part_id", pa.part_id);
		dvp_json_str(w, "inline_mode", pa.inline_mode);
		dvp_json_u64(w, "inline_bytes", pa.inline_bytes);
		dvp_json_bool(w, "devx", pa.devx);
		dvp_json_str(w, "netdev", pa.ifname);
	}
	dvp_json_arr_open(w, "checks");
	for (int i = 0; i < CHK_N; i++) {
		const struct chk *c = &pr->c[i];

		dvp_json_obj_open(w, NULL);
		dvp_json_str(w, "check", chk_names[i]);
		dvp_json_str(w, "path", c->path);
		dvp_json_u64(w, "sent", c->sent);
		dvp_json_u64(w, "received", c->received);
		dvp_json_u64(w, "counted", c->counted);
		dvp_json_u64(w, "errors", c->errors);
		dvp_json_str(w, "result",
			     c->verdict > 0 ? "pass" :
			     c->verdict < 0 ? "not run" :
					      "fail");
		dvp_json_str(w, "note", c->note);
		dvp_json_obj_close(w);
	}
	dvp_json_arr_close(w);
	dvp_json_obj_close(w);
}

int info_check(uint64_t frames, bool flap, bool json, uint32_t rx_buf)
{
	struct pair pairs[DVP_MAX_PORTS];
	uint16_t ports[DVP_MAX_PORTS], p;
	unsigned int np = 0, npairs = 0;
	struct dvp_mempool *mp, *rx_mp = NULL;
	bool all = true, started;
	struct dvp_json w;

	DVP_PORT_FOREACH(p)
		ports[np++] = p;
	if (np == 0) {
		fprintf(stderr, "dvp-info: --check: no port to check (give -a mlx5_0, or --vdev "
				"sim_mlx5,ports=2,cable=loop)\n");
		return 1;
	}
	mp = dvp_pktmbuf_pool_create("dvp_check", CHECK_POOL, 256, 0, DVP_MBUF_DEFAULT_BUF_SIZE,
				     DVP_SOCKET_ANY);
	if (mp == NULL) {
		fprintf(stderr, "dvp-info: --check: no mbuf pool: %s\n", dvp_strerror(dvp_errno));
		return 1;
	}
	if (rx_buf != 0) {
		rx_mp = dvp_pktmbuf_pool_create("dvp_check_rx", CHECK_POOL, 256, 0,
						(uint16_t)(rx_buf + DVP_PKTMBUF_HEADROOM),
						DVP_SOCKET_ANY);
		if (rx_mp == NULL) {
			fprintf(stderr, "dvp-info: --check: no pool of %u-byte buffers: %s\n",
				rx_buf, dvp_strerror(dvp_errno));
			dvp_mempool_free(mp);
			return 1;
		}
	}
	for (unsigned int i = 0; i < np; i++) {
		int ret = port_start(ports[i], rx_mp != NULL ? rx_mp : mp, rx_mp != NULL);

		if (ret != 0) {
			fprintf(stderr, "dvp-info: --check: port %u does not start: %s\n", ports[i],
				dvp_strerror(-ret));
			all = false;
		}
	}
	started = all;
	/* Ports in pairs, 0 -> 1 and 1 -> 0; an odd one out to itself: every pair runs. */
	for (unsigned int i = 0; started && i < np; i++) {
		struct pair *pr = &pairs[npairs++];
		unsigned int peer = (i % 2 == 0) ? (i + 1 < np ? i + 1 : i) : i - 1;

		memset(pr, 0, sizeof(*pr));
		pr->tx = ports[i];
		pr->rx = ports[peer];
		path_names(pr);
		if (!link_wait(pr->tx, true, 5000000000ull) ||
		    !link_wait(pr->rx, true, 5000000000ull)) {
			snprintf(pr->c[CHK_RX].note, sizeof(pr->c[CHK_RX].note),
				 "the link is down: is the port cabled (to the next port, or to "
				 "itself)?");
		}
		check_datapath(pr, mp, frames);
		check_intr(pr, mp);
		check_async(pr, flap);
		for (int k = 0; k < CHK_N; k++)
			all = all && pr->c[k].verdict != 0;
	}
	if (json) {
		dvp_json_init_file(&w, stdout);
		dvp_json_obj_open(&w, NULL);
		dvp_json_arr_open(&w, "pairs");
		for (unsigned int i = 0; i < npairs; i++)
			json_pair(&w, &pairs[i]);
		dvp_json_arr_close(&w);
		dvp_json_bool(&w, "pass", all);
		dvp_json_obj_close(&w);
		printf("\n");
	} else {
		for (unsigned int i = 0; i < npairs; i++)
			print_pair(&pairs[i]);
		printf("%s\n", all ? "PASS" : "FAIL");
	}
	DVP_PORT_FOREACH(p)
		dvp_port_close(p);
	dvp_mempool_free(rx_mp);
	dvp_mempool_free(mp);
	return all ? 0 : 1;
}
