/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * memif_peer: our side of the interop tests against dpdk-testpmd. It drives
 * drivers/net/memif directly (interface, queues, bursts) on the EAL and its
 * interrupt thread; once lib/port is implemented it becomes a port user.
 *
 *   memif_peer [EAL args] -- MODE [options]
 *   MODE: rx       receive --count packets
 *         tx       send --count packets (numbered)
 *         seq      send --count numbered packets and receive each back
 *                  (testpmd io-forwarding), in order, none missing
 *         reject   expect the handshake to fail with --expect REASON
 *   options: --role client|server --socket NAME --abstract yes|no --id N
 *            --secret S --bsize B --rsize LOG2 --connects N (connections to
 *            see before finishing) --timeout SECONDS (a bound for a hung
 *            peer only: results are counts, never times)
 *
 * It prints "RESULT ..." lines with counts, and exits 0 when the counts are
 * what the mode demands and every mbuf is back in the pool.
 */

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dvp_eal.h>
/*
 * GCC 12 at -O3 sees dvp_pktmbuf_alloc()'s object as maybe unset when the
 * get fails (it returns before using it): a false positive of the header.
 */
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <dvp_mbuf.h>
#include <dvp_ring.h>

#include "memif_socket.h"
#include "test_pool.h"

#define BURST 32
#define SEQ_MAGIC 0x6d656d69u /* "memi" */
#define PKT_LEN 64

static volatile int link_up;
static volatile int link_changes;

static void on_link(void *arg, bool up)
{
	(void)arg;
	__atomic_store_n(&link_up, up, __ATOMIC_RELEASE);
	__atomic_add_fetch(&link_changes, 1, __ATOMIC_RELAXED);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
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
	uint8_t *p;
	uint32_t magic = SEQ_MAGIC;

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

static void usage(void)
{
	fprintf(stderr, "usage: memif_peer [EAL args] -- rx|tx|seq|reject [--role client|server] "
			"[--socket NAME] [--abstract yes|no] [--id N] [--secret S] [--bsize B] "
			"[--rsize LOG2] [--count N] [--connects N] [--expect REASON] "
			"[--timeout S]\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "role", required_argument, NULL, 'r' },
		{ "socket", required_argument, NULL, 's' },
		{ "abstract", required_argument, NULL, 'a' },
		{ "id", required_argument, NULL, 'i' },
		{ "secret", required_argument, NULL, 'S' },
		{ "bsize", required_argument, NULL, 'b' },
		{ "rsize", required_argument, NULL, 'z' },
		{ "count", required_argument, NULL, 'c' },
		{ "connects", required_argument, NULL, 'n' },
		{ "expect", required_argument, NULL, 'e' },
		{ "timeout", required_argument, NULL, 't' },
		{ "hold", no_argument, NULL, 'H' },
		{ NULL, 0, NULL, 0 },
	};
	struct memif_if_params p = {
		.role = MEMIF_ROLE_CLIENT,
		.id = 0,
		.abstract = true,
		.bsize = 2048,
		.log2_ring_size = 10,
		.nb_rxq = 1,
		.nb_txq = 1,
	};
	unsigned long count = 10000, connects_wanted = 1;
	const char *mode, *expect = NULL;
	bool hold = false;
	double timeout = 60, t0;
	struct memif_queue *rxq, *txq;
	struct dvp_mbuf *pkts[BURST];
	struct memif_if_stats ist;
	struct test_pool tp;
	struct memif_if *ifc;
	uint64_t sent = 0, received = 0, foreign = 0, out_of_order = 0;
	uint32_t next_rx = 0;
	uint64_t seen_connects = 0, sent_mark = 0;
	char reason[MEMIF_DISC_STRING_SZ];
	int ret, c, ok;

	snprintf(p.socket, sizeof(p.socket), "/run/memif.sock");
	snprintf(p.if_name, sizeof(p.if_name), "net_memif0");
	snprintf(p.app_name, sizeof(p.app_name), "dvpmd memif_peer");
	ret = dvp_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "memif_peer: EAL init failed: %s\n", dvp_strerror(dvp_errno));
		return 1;
	}
	argc -= ret;
	argv += ret;
	/* What follows "--": the EAL leaves either the mode or "--" in argv[0]. */
	if (argc >= 1 && argv[0][0] != '-' && strcmp(argv[0], "rx") != 0 &&
	    strcmp(argv[0], "tx") != 0 && strcmp(argv[0], "seq") != 0 &&
	    strcmp(argv[0], "reject") != 0) {
		argc--;
		argv++;
	} else if (argc >= 1 && strcmp(argv[0], "--") == 0) {
		argc--;
		argv++;
	}
	if (argc < 1) {
		usage();
		return 2;
	}
	mode = argv[0]; /* getopt starts at argv[1] */
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			p.role = strcmp(optarg, "server") == 0 ? MEMIF_ROLE_SERVER :
								 MEMIF_ROLE_CLIENT;
			break;
		case 's':
			snprintf(p.socket, sizeof(p.socket), "%s", optarg);
			break;
		case 'a':
			p.abstract = strcmp(optarg, "no") != 0;
			break;
		case 'i':
			p.id = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'S':
			snprintf(p.secret, sizeof(p.secret), "%s", optarg);
			break;
		case 'b':
			p.bsize = (uint16_t)strtoul(optarg, NULL, 0);
			break;
		case 'z':
			p.log2_ring_size = (uint8_t)strtoul(optarg, NULL, 0);
			break;
		case 'c':
			count = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			connects_wanted = strtoul(optarg, NULL, 0);
			break;
		case 'e':
			expect = optarg;
			break;
		case 't':
			timeout = strtod(optarg, NULL);
			break;
		case 'H':
			hold = true;
			break;
		default:
			usage();
			return 2;
		}
	}

	if (test_pool_create(&tp, 8192, DVP_MBUF_DEFAULT_BUF_SIZE) < 0) {
		fprintf(stderr, "memif_peer: no memory for the mbuf pool\n");
		return 1;
	}
	ifc = memif_if_create(&p, on_link, NULL);
	if (ifc == NULL) {
		fprintf(stderr, "memif_peer: interface: %s\n", dvp_strerror(dvp_errno));
		return 1;
	}
	rxq = memif_if_rxq(ifc, 0);
	txq = memif_if_txq(ifc, 0);
	rxq->mp = tp.mp;
	memif_if_start(ifc);
	printf("READY %s %s\n", mode, p.role == MEMIF_ROLE_CLIENT ? "client" : "server");
	fflush(stdout);

	t0 = now_s();
	ok = 0;
	if (strcmp(mode, "reject") == 0) {
		while (now_s() - t0 < timeout) {
			memif_if_stats_get(ifc, &ist);
			if (ist.rejects > 0 || ist.connects > 0)
				break;
			usleep(1000);
		}
		memif_if_last_reason(ifc, reason, sizeof(reason));
		memif_if_stats_get(ifc, &ist);
		printf("RESULT reject connects=%llu rejects=%llu reason=\"%s\"\n",
		       (unsigned long long)ist.connects, (unsigned long long)ist.rejects, reason);
		ok = ist.connects == 0 && ist.rejects > 0 &&
		     (expect == NULL || strstr(reason, expect) != NULL);
		goto done;
	}

	while (now_s() - t0 < timeout) {
		bool up = __atomic_load_n(&link_up, __ATOMIC_ACQUIRE);
		uint16_t n, i;

		memif_if_stats_get(ifc, &ist);
		if (ist.connects != seen_connects) {
			/* Counts of a mode that waits for reconnects start at the last one. */
			seen_connects = ist.connects;
			sent_mark = sent;
		}
		if (!up) {
			usleep(100);
			continue;
		}
		if (strcmp(mode, "rx") == 0) {
			n = memif_rx_burst(rxq, pkts, BURST);
			received += n;
			dvp_pktmbuf_free_bulk(pkts, n);
			if (received >= count && ist.connects >= connects_wanted)
				break;
			continue;
		}
		/* tx and seq: keep at most one ring's worth in flight for seq. */
		if (sent - sent_mark < count || ist.connects < connects_wanted) {
			uint16_t want = BURST;

			if (strcmp(mode, "seq") == 0 && sent - received > 512)
				want = 0;
			for (i = 0; i < want; i++) {
				pkts[i] = make_pkt(tp.mp, (uint32_t)sent + i);
				if (pkts[i] == NULL)
					break;
			}
			n = memif_tx_burst(txq, pkts, i);
			sent += n;
			dvp_pktmbuf_free_bulk(pkts + n, (unsigned int)(i - n));
		}
		if (strcmp(mode, "seq") == 0) {
			n = memif_rx_burst(rxq, pkts, BURST);
			for (i = 0; i < n; i++) {
				uint32_t seq;

				if (pkt_seq(pkts[i], &seq) < 0) {
					foreign++;
				} else {
					if (seq != next_rx)
						out_of_order++;
					next_rx = seq + 1;
					received++;
				}
			}
			dvp_pktmbuf_free_bulk(pkts, n);
			if (received >= count)
				break;
		} else if (sent - sent_mark >= count && ist.connects >= connects_wanted) {
			break;
		}
	}
	/* Let the peer take what is in flight before we disconnect. */
	while (now_s() - t0 < timeout && memif_tx_pending(txq) != 0)
		usleep(1000);
	if (hold) {
		/* Stay connected until the peer leaves: it reads its counters first. */
		printf("DONE sending, holding\n");
		fflush(stdout);
		while (now_s() - t0 < timeout && __atomic_load_n(&link_up, __ATOMIC_ACQUIRE))
			usleep(1000);
	}
	memif_if_stats_get(ifc, &ist);
	printf("RESULT %s sent=%llu received=%llu out_of_order=%llu foreign=%llu connects=%llu "
	       "disconnects=%llu\n",
	       mode, (unsigned long long)sent, (unsigned long long)received,
	       (unsigned long long)out_of_order, (unsigned long long)foreign,
	       (unsigned long long)ist.connects, (unsigned long long)ist.disconnects);
	if (strcmp(mode, "rx") == 0)
		ok = received >= count;
	else if (strcmp(mode, "tx") == 0)
		ok = sent - sent_mark >= count;
	else
		ok = received == count && out_of_order == 0 && foreign == 0;
	ok = ok && ist.connects >= connects_wanted;

done:
	memif_if_destroy(ifc);
	printf("RESULT pool in_use=%u of %u\n", test_pool_in_use(&tp), tp.n);
	if (test_pool_in_use(&tp) != 0)
		ok = 0;
	test_pool_free(&tp);
	dvp_eal_cleanup();
	printf("RESULT %s\n", ok ? "PASS" : "FAIL");
	return ok ? 0 : 1;
}
