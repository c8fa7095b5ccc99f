/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * memif_peer: our side of the interop tests against dpdk-testpmd, a plain
 * port application: its memif port comes from --vdev and is used through
 * lib/port (dvp_rx_burst / dvp_tx_burst), as any application would.
 *
 *   memif_peer [EAL args] --vdev net_memif0,... -- MODE [options]
 *   MODE: rx       receive --count packets
 *         tx       send --count packets (numbered)
 *         seq      send --count numbered packets and receive each back
 *                  (testpmd io-forwarding), in order, none missing
 *         reject   expect the handshake to be refused
 *   options: --port NAME (default net_memif0) --count N
 *            --connects N   connections to see; rx/tx count from the last
 *            --hold         tx: once the peer took everything, stay
 *                           connected until the peer leaves (it reads its
 *                           counters first)
 *            --intr         rx, seq: sleep in interrupt mode when idle
 *            --timeout S    a bound for a hung peer only: results are
 *                           counts, never times
 *
 * It prints "RESULT ..." lines with counts, and exits 0 when the counts are
 * what the mode demands and every mbuf is back in the pool.
 */

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dvp_eal.h>
#include <dvp_rxwait.h>
#include <dvp_mbuf.h>
#include <dvp_net_memif.h>
#include <dvp_port.h>

#define BURST 32
#define POOL_SIZE 8191
#define SEQ_MAGIC 0x6d656d69u /* "memi" */
#define SEQ_WINDOW 512 /* at most this many in flight: half a default ring */
#define PKT_LEN 64

enum mode { M_RX, M_TX, M_SEQ, M_REJECT };

struct peer {
	enum mode mode;
	uint16_t port;
	struct dvp_mempool *mp;
	struct dvp_rxwait_set *set;
	unsigned long count;
	unsigned long connects_wanted;
	bool hold;
	bool intr;
	double timeout;
	double t0;
	/* Counts, in all and since the last connection began. */
	uint64_t sent, received, sent_mark, recv_mark;
	uint64_t out_of_order, foreign, seen_connects;
	uint32_t next_rx;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static bool timed_out(const struct peer *pr)
{
	return now_s() - pr->t0 >= pr->timeout;
}

static uint64_t xstat(uint16_t port, const char *name)
{
	uint64_t v = 0;

	(void)dvp_xstats_get_by_name(port, name, &v);
	return v;
}

static bool link_up(uint16_t port)
{
	struct dvp_link l;

	return dvp_link_get_nowait(port, &l) == 0 && l.link_status == DVP_LINK_UP;
}

/* An Ethernet/IPv4/UDP frame carrying SEQ_MAGIC and a sequence number. */
static struct dvp_mbuf *make_pkt(struct dvp_mempool *mp, uint32_t seq)
{
	static const uint8_t hdr[42] = {
		0x02, 0,    0,	  0,	0, 0x02, 0x02, 0, 0,  0,  0, 0x01, 0x08, 0x00, /* eth */
		0x45, 0,    0,	  50,	0, 0,	 0,    0, 64, 17, 0, 0,	   10,	 0,
		0,    1,    10,	  0,	0, 2, /* ip */
		0x04, 0xd2, 0x16, 0x2e, 0, 30,	 0,    0, /* udp */
	};
	struct dvp_mbuf *m = dvp_pktmbuf_alloc(mp);
	uint32_t magic = SEQ_MAGIC;
	uint8_t *p;

	if (m == NULL)
		return NULL;
	p = (uint8_t *)dvp_pktmbuf_append(m, PKT_LEN);
	if (p == NULL) {
		dvp_pktmbuf_free(m);
		return NULL;
	}
	memset(p, 0, PKT_LEN);
	memcpy(p, hdr, sizeof(hdr));
	memcpy(p + 42, &magic, 4);
	memcpy(p + 46, &seq, 4);
	return m;
}

static int pkt_seq(const struct dvp_mbuf *m, uint32_t *seq)
{
	const uint8_t *p = dvp_pktmbuf_mtod(m, const uint8_t *);
	uint32_t magic;

	if (m->data_len < 50)
		return -1;
	memcpy(&magic, p + 42, 4);
	memcpy(seq, p + 46, 4);
	return magic == SEQ_MAGIC ? 0 : -1;
}

/* Send up to @want numbered packets; the port keeps what it accepts. */
static void send_some(struct peer *pr, uint16_t want)
{
	struct dvp_mbuf *pkts[BURST];
	uint16_t i, n;

	for (i = 0; i < want; i++) {
		pkts[i] = make_pkt(pr->mp, (uint32_t)pr->sent + i);
		if (pkts[i] == NULL)
			break;
	}
	n = dvp_tx_burst(pr->port, 0, pkts, i);
	pr->sent += n;
	dvp_pktmbuf_free_bulk(pkts + n, (unsigned int)(i - n));
}

static uint16_t recv_some(struct peer *pr)
{
	struct dvp_mbuf *pkts[BURST];
	uint16_t i, n;

	n = dvp_rx_burst(pr->port, 0, pkts, BURST);
	for (i = 0; i < n && pr->mode == M_SEQ; i++) {
		uint32_t seq;

		if (pkt_seq(pkts[i], &seq) < 0) {
			pr->foreign++;
			continue;
		}
		if (seq != pr->next_rx)
			pr->out_of_order++;
		pr->next_rx = seq + 1;
		pr->received++;
	}
	if (pr->mode != M_SEQ)
		pr->received += n;
	dvp_pktmbuf_free_bulk(pkts, n);
	return n;
}

/* Nothing came: sleep until the queue has work (interrupt mode), or not at all. */
static void idle(struct peer *pr)
{
	struct dvp_rx_wait_event ev[1];

	if (pr->intr)
		(void)dvp_rx_wait(pr->set, ev, 1, 100);
}

static bool enough(const struct peer *pr)
{
	if (pr->seen_connects < pr->connects_wanted)
		return false;
	switch (pr->mode) {
	case M_RX:
		return pr->received - pr->recv_mark >= pr->count;
	case M_TX:
		return pr->sent - pr->sent_mark >= pr->count;
	default:
		return pr->received >= pr->count;
	}
}

static void run(struct peer *pr)
{
	while (!timed_out(pr) && !enough(pr)) {
		uint64_t c = xstat(pr->port, "connects");
		uint16_t n;

		if (c != pr->seen_connects) {
			/* Counts of a mode that waits for reconnects start at the last one. */
			pr->seen_connects = c;
			pr->sent_mark = pr->sent;
			pr->recv_mark = pr->received;
		}
		if (!link_up(pr->port)) {
			usleep(100);
			continue;
		}
		switch (pr->mode) {
		case M_RX:
			if (recv_some(pr) == 0)
				idle(pr);
			break;
		case M_TX:
			send_some(pr, (uint16_t)DVP_MIN((uint64_t)BURST,
							pr->count - (pr->sent - pr->sent_mark)));
			break;
		case M_SEQ:
			if (pr->sent < pr->count && pr->sent - pr->received < SEQ_WINDOW)
				send_some(pr,
					  (uint16_t)DVP_MIN((uint64_t)BURST, pr->count - pr->sent));
			n = recv_some(pr);
			if (n == 0 && pr->sent == pr->count)
				idle(pr);
			break;
		default:
			break;
		}
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: memif_peer [EAL args] --vdev net_memif0,... -- rx|tx|seq|reject "
			"[--port NAME] [--count N] [--connects N] [--hold] [--intr] "
			"[--timeout S]\n");
}

static int parse(int argc, char **argv, struct peer *pr, const char **port_name)
{
	static const struct option opts[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "count", required_argument, NULL, 'c' },
		{ "connects", required_argument, NULL, 'n' },
		{ "timeout", required_argument, NULL, 't' },
		{ "hold", no_argument, NULL, 'H' },
		{ "intr", no_argument, NULL, 'I' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const modes[] = { "rx", "tx", "seq", "reject" };
	unsigned int i;
	int c;

	/* dvp_eal_init() leaves argv[0] the program name and "--" consumed or not. */
	if (argc >= 2 && strcmp(argv[1], "--") == 0) {
		argv[1] = argv[0];
		argc--;
		argv++;
	}
	if (argc < 2) {
		usage();
		return -1;
	}
	for (i = 0; i < DVP_DIM(modes); i++)
		if (strcmp(argv[1], modes[i]) == 0)
			break;
	if (i == DVP_DIM(modes)) {
		fprintf(stderr, "memif_peer: unknown mode '%s' (rx, tx, seq or reject)\n", argv[1]);
		return -1;
	}
	pr->mode = (enum mode)i;
	argc--;
	argv++;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			*port_name = optarg;
			break;
		case 'c':
			pr->count = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			pr->connects_wanted = strtoul(optarg, NULL, 0);
			break;
		case 't':
			pr->timeout = strtod(optarg, NULL);
			break;
		case 'H':
			pr->hold = true;
			break;
		case 'I':
			pr->intr = true;
			break;
		default:
			usage();
			return -1;
		}
	}
	return 0;
}

static int port_up(struct peer *pr)
{
	struct dvp_port_conf conf = { 0 };
	int ret;

	conf.intr_conf.rxq = pr->intr;
	ret = dvp_port_configure(pr->port, 1, 1, &conf);
	if (ret == 0)
		ret = dvp_rxq_setup(pr->port, 0, 0, DVP_SOCKET_ANY, NULL, pr->mp);
	if (ret == 0)
		ret = dvp_txq_setup(pr->port, 0, 0, DVP_SOCKET_ANY, NULL);
	if (ret == 0 && pr->intr) {
		pr->set = dvp_rxwait_set_create(1);
		ret = pr->set == NULL ?
			      -dvp_errno :
			      dvp_rx_intr_ctl(pr->port, 0, pr->set, DVP_RX_INTR_CTL_ADD, NULL);
	}
	if (ret == 0)
		ret = dvp_port_start(pr->port);
	return ret;
}

int main(int argc, char **argv)
{
	struct peer pr = { .count = 10000, .connects_wanted = 1, .timeout = 60 };
	const char *port_name = "net_memif0";
	unsigned int in_use;
	int ret, ok = 0, pending;

	ret = dvp_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "memif_peer: EAL init failed: %s\n", dvp_strerror(dvp_errno));
		return 1;
	}
	argc -= ret;
	argv += ret;
	if (parse(argc, argv, &pr, &port_name) < 0)
		return 2;
	if (dvp_port_get_by_name(port_name, &pr.port) < 0) {
		fprintf(stderr, "memif_peer: no port %s: give it with --vdev %s,...\n", port_name,
			port_name);
		return 2;
	}
	pr.mp = dvp_pktmbuf_pool_create("memif_peer", POOL_SIZE, 256, 0, DVP_MBUF_DEFAULT_BUF_SIZE,
					DVP_SOCKET_ANY);
	if (pr.mp == NULL) {
		fprintf(stderr, "memif_peer: mbuf pool: %s\n", dvp_strerror(dvp_errno));
		return 1;
	}
	if (port_up(&pr) < 0) {
		fprintf(stderr, "memif_peer: port %s: %s\n", port_name, dvp_strerror(dvp_errno));
		return 1;
	}
	printf("READY %s\n", argv[1]);
	fflush(stdout);
	pr.t0 = now_s();

	if (pr.mode == M_REJECT) {
		while (!timed_out(&pr) && xstat(pr.port, "handshakes_refused") == 0 &&
		       xstat(pr.port, "connects") == 0)
			usleep(1000);
		printf("RESULT reject connects=%llu refused=%llu\n",
		       (unsigned long long)xstat(pr.port, "connects"),
		       (unsigned long long)xstat(pr.port, "handshakes_refused"));
		ok = xstat(pr.port, "connects") == 0 && xstat(pr.port, "handshakes_refused") > 0;
		goto done;
	}

	run(&pr);
	/* Let the peer take what is in flight before we disconnect. */
	while (pr.mode == M_TX && !timed_out(&pr) &&
	       (pending = dvp_net_memif_tx_pending(pr.port, 0)) > 0)
		usleep(1000);
	if (pr.hold) {
		printf("DONE sending, holding\n");
		fflush(stdout);
		while (!timed_out(&pr) && link_up(pr.port))
			usleep(1000);
	}
	printf("RESULT %s sent=%llu received=%llu sent_last=%llu received_last=%llu "
	       "out_of_order=%llu foreign=%llu connects=%llu disconnects=%llu\n",
	       argv[1], (unsigned long long)pr.sent, (unsigned long long)pr.received,
	       (unsigned long long)(pr.sent - pr.sent_mark),
	       (unsigned long long)(pr.received - pr.recv_mark),
	       (unsigned long long)pr.out_of_order, (unsigned long long)pr.foreign,
	       (unsigned long long)xstat(pr.port, "connects"),
	       (unsigned long long)xstat(pr.port, "disconnects"));
	if (pr.intr)
		printf("RESULT intr sleeps=%llu wakeups=%llu spurious=%llu\n",
		       (unsigned long long)xstat(pr.port, "rx_q0_intr_sleeps"),
		       (unsigned long long)xstat(pr.port, "rx_q0_intr_wakeups"),
		       (unsigned long long)xstat(pr.port, "rx_q0_intr_spurious"));
	ok = enough(&pr);
	if (pr.mode == M_SEQ)
		ok = ok && pr.received == pr.count && pr.out_of_order == 0 && pr.foreign == 0;

done:
	dvp_port_stop(pr.port);
	dvp_port_close(pr.port);
	if (pr.set != NULL)
		dvp_rxwait_set_free(pr.set);
	in_use = dvp_pktmbuf_pool_in_use(pr.mp);
	printf("RESULT pool in_use=%u of %u\n", in_use, POOL_SIZE);
	if (in_use != 0)
		ok = 0;
	dvp_mempool_free(pr.mp);
	dvp_eal_cleanup();
	printf("RESULT %s\n", ok ? "PASS" : "FAIL");
	return ok ? 0 : 1;
}
