/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * What the port, interrupt, net_ring and memif tests share: a pool,
 * bringing a port (or a memif pair) up, sending and receiving frames,
 * reading one xstat.
 */

#ifndef TEST_PORT_HELPERS_H
#define TEST_PORT_HELPERS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "dvp_test_eal.h"

#include <dvp_bus.h>
#include <dvp_mbuf.h>
#include <dvp_net_ring.h>
#include <dvp_port.h>

#define TP_POOL_SIZE 4095

static struct dvp_mempool *tp_pool;

static inline void tp_pool_create(void)
{
	tp_pool = dvp_pktmbuf_pool_create("tp_pool", TP_POOL_SIZE, 0, 0, DVP_MBUF_DEFAULT_BUF_SIZE,
					  DVP_SOCKET_ANY);
	assert_non_null(tp_pool);
}

/* Group teardown: close every port, check every mbuf came back, stop the EAL. */
static inline int tp_teardown(void **state)
{
	uint16_t p;

	(void)state;
	DVP_PORT_FOREACH(p)
		dvp_port_close(p);
	if (dvp_pktmbuf_pool_in_use(tp_pool) != 0)
		return -1;
	dvp_mempool_free(tp_pool);
	return dvp_eal_cleanup();
}

/* Every mbuf back: the pool's in-use count is 0. */
static inline void tp_assert_pool_full(void)
{
	assert_int_equal(dvp_pktmbuf_pool_in_use(tp_pool), 0);
}

static inline uint16_t tp_port(const char *name)
{
	uint16_t id = UINT16_MAX;

	assert_int_equal(dvp_port_get_by_name(name, &id), 0);
	return id;
}

/*
 * A group setup for the memif tests: the EAL (--no-huge, lcores 0-1) with
 * net_memif_s0, a server, and net_memif_c0, its client, on a socket named
 * dvp-test-memif-@p tag-<pid> (written to @p sock), each with its @p
 * extra devargs (",key=value..."); the pool; the two port ids.
 */
static inline int tp_memif_pair_init(char *sock, size_t len, const char *tag, const char *srv_extra,
				     const char *cli_extra, uint16_t *srv, uint16_t *cli)
{
	char s[160], c[160];

	snprintf(sock, len, "dvp-test-memif-%s-%d", tag, (int)getpid());
	snprintf(s, sizeof(s), "net_memif_s0,role=server,socket=%s%s", sock, srv_extra);
	snprintf(c, sizeof(c), "net_memif_c0,role=client,socket=%s%s", sock, cli_extra);
	if (dvp_test_eal_init("--no-huge", "-m", "64", "-l", "0-1", "--vdev", s, "--vdev", c) < 0)
		return -1;
	tp_pool_create();
	*srv = tp_port("net_memif_s0");
	*cli = tp_port("net_memif_c0");
	return 0;
}

/*
 * Group setup of lib/port's tests on net_ring: an EAL on lcores 0-1, the
 * pool, and three ports: @p lo (net_ring0, 4 queues) looped back, @p c1
 * and @p c2 (net_ring1, net_ring2, 2 queues) cabled to each other.
 */
static inline int tp_ring_trio_init(uint16_t *lo, uint16_t *c1, uint16_t *c2)
{
	if (dvp_test_eal_init("--no-huge", "-m", "32", "-l", "0-1", "--vdev", "net_ring0,queues=4",
			      "--vdev", "net_ring1,queues=2", "--vdev",
			      "net_ring2,queues=2,peer=net_ring1") < 0)
		return -1;
	tp_pool_create();
	*lo = tp_port("net_ring0");
	*c1 = tp_port("net_ring1");
	*c2 = tp_port("net_ring2");
	return 0;
}

/* Per-test setup: every port stopped, whatever the test before left. */
static inline int tp_stop_all(void **state)
{
	uint16_t p;

	(void)state;
	DVP_PORT_FOREACH(p)
		dvp_port_stop(p);
	return 0;
}

/* Configure @p port with @p nq queues each way and @p conf (NULL: defaults), set them up. */
static inline void tp_port_setup(uint16_t port, uint16_t nq, const struct dvp_port_conf *conf)
{
	uint16_t q;

	if (dvp_port_is_started(port) == 1)
		assert_int_equal(dvp_port_stop(port), 0);
	assert_int_equal(dvp_port_configure(port, nq, nq, conf), 0);
	for (q = 0; q < nq; q++) {
		assert_int_equal(dvp_rxq_setup(port, q, 0, DVP_SOCKET_ANY, NULL, tp_pool), 0);
		assert_int_equal(dvp_txq_setup(port, q, 0, DVP_SOCKET_ANY, NULL), 0);
	}
}

static inline void tp_port_up(uint16_t port, uint16_t nq, const struct dvp_port_conf *conf)
{
	tp_port_setup(port, nq, conf);
	assert_int_equal(dvp_port_start(port), 0);
}

/* A port with rx interrupts and the given ack batch (0: default). */
static inline void tp_port_up_intr(uint16_t port, uint16_t nq, uint32_t ack_batch)
{
	struct dvp_port_conf conf = { 0 };

	conf.intr_conf.rxq = 1;
	conf.intr_conf.rxq_ack_batch = ack_batch;
	tp_port_up(port, nq, &conf);
}

/* One 60-byte frame whose first byte is @p tag. */
static inline struct dvp_mbuf *tp_frame(uint8_t tag)
{
	struct dvp_mbuf *m = dvp_pktmbuf_alloc(tp_pool);
	uint8_t *p;
	int i;

	assert_non_null(m);
	assert_non_null(dvp_pktmbuf_append(m, 60));
	p = dvp_pktmbuf_mtod(m, uint8_t *);
	for (i = 1; i < 60; i++)
		p[i] = (uint8_t)i;
	p[0] = tag;
	return m;
}

/* Send @p n frames on tx queue @p q of @p port, all accepted. */
static inline void tp_send(uint16_t port, uint16_t q, unsigned int n)
{
	struct dvp_mbuf *m;

	while (n-- > 0) {
		m = tp_frame((uint8_t)n);
		assert_int_equal(dvp_tx_burst(port, q, &m, 1), 1);
	}
}

/* Receive and free everything waiting on rx queue @p q. @return how many. */
static inline unsigned int tp_recv_all(uint16_t port, uint16_t q)
{
	struct dvp_mbuf *pkts[32];
	unsigned int total = 0;
	uint16_t n;

	while ((n = dvp_rx_burst(port, q, pkts, 32)) > 0) {
		dvp_pktmbuf_free_bulk(pkts, n);
		total += n;
	}
	return total;
}

/* One xstat by name (printf-style). */
static inline uint64_t tp_xstat(uint16_t port, const char *fmt, ...) __dvp_format_printf(2, 3);
static inline uint64_t tp_xstat(uint16_t port, const char *fmt, ...)
{
	char name[DVP_XSTATS_NAMESIZE];
	uint64_t v = UINT64_MAX;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof(name), fmt, ap);
	va_end(ap);
	if (dvp_xstats_get_by_name(port, name, &v) != 0)
		fail_msg("port %u has no xstat %s", port, name);
	return v;
}

/* An rx queue's interrupt counter: tp_qintr(port, q, "sleeps"). */
/* A frame of @len bytes from @mp whose byte i is (seed + i), in segments of at most @seg bytes. */
static inline struct dvp_mbuf *tp_pattern_frame(struct dvp_mempool *mp, uint32_t len, uint8_t seed,
						uint16_t seg)
{
	struct dvp_mbuf *head = NULL, *last = NULL;
	uint32_t off = 0;

	while (off < len || head == NULL) {
		struct dvp_mbuf *m = dvp_pktmbuf_alloc(mp);
		uint16_t n = (uint16_t)DVP_MIN((uint32_t)seg, len - off);
		uint8_t *p;
		uint16_t i;

		assert_non_null(m);
		p = (uint8_t *)dvp_pktmbuf_append(m, n);
		assert_non_null(p);
		for (i = 0; i < n; i++)
			p[i] = (uint8_t)(seed + off + i);
		off += n;
		if (head == NULL) {
			head = m;
		} else {
			last->next = m;
			head->nb_segs++;
			head->pkt_len += n;
		}
		last = m;
	}
	return head;
}

/* @m is such a frame: @len bytes, byte i is (seed + i), nb_segs counts its segments. */
static inline void tp_check_pattern(const struct dvp_mbuf *m, uint32_t len, uint8_t seed)
{
	uint32_t off = 0;
	uint16_t segs = 0, nb_segs = m->nb_segs;

	assert_int_equal(m->pkt_len, len);
	for (; m != NULL; m = m->next, segs++) {
		const uint8_t *p = dvp_pktmbuf_mtod(m, const uint8_t *);
		uint16_t i;

		for (i = 0; i < m->data_len; i++, off++)
			if (p[i] != (uint8_t)(seed + off))
				fail_msg("byte %u is 0x%02x, expected 0x%02x", off, p[i],
					 (uint8_t)(seed + off));
	}
	assert_int_equal(off, len);
	assert_int_equal(segs, nb_segs);
}

/* Receive exactly @n packets on (@port, @q), bounded; frees them. */
static inline void tp_recv_n(uint16_t port, uint16_t q, unsigned int n)
{
	unsigned int got = 0;
	int spins;

	for (spins = 0; got < n && spins < 100000; spins++) {
		unsigned int k = tp_recv_all(port, q);

		got += k;
		if (k == 0)
			usleep(10);
	}
	assert_int_equal(got, n);
	assert_int_equal(tp_recv_all(port, q), 0);
}

/* Bounded wait (10 s) for a condition another thread brings about. */
#define TP_WAIT_FOR(cond)                                                 \
	do {                                                              \
		int w_;                                                   \
		for (w_ = 0; w_ < 10000 && !(cond); w_++)                 \
			usleep(1000);                                     \
		if (!(cond))                                              \
			fail_msg("still not true after 10 s: %s", #cond); \
	} while (0)

/* Whether @port's link is up now (no wait). */
static inline bool tp_link_is_up(uint16_t port)
{
	struct dvp_link l;

	return dvp_link_get_nowait(port, &l) == 0 && l.link_status == DVP_LINK_UP;
}

/*
 * Start memif server @s, then client @c (a client refused by a stopped
 * server only retries later), and wait for both links.
 */
static inline void tp_memif_pair_up(uint16_t s, uint16_t c, uint16_t nq_s, uint16_t nq_c,
				    const struct dvp_port_conf *conf)
{
	tp_port_up(s, nq_s, conf);
	tp_port_up(c, nq_c, conf);
	TP_WAIT_FOR(tp_link_is_up(s) && tp_link_is_up(c));
}

/* Stop the pair, client first; every mbuf back. */
static inline void tp_memif_pair_down(uint16_t s, uint16_t c)
{
	assert_int_equal(dvp_port_stop(c), 0);
	assert_int_equal(dvp_port_stop(s), 0);
	tp_assert_pool_full();
}

#define tp_qintr(port, q, field) tp_xstat(port, "rx_q%u_intr_%s", (unsigned int)(q), field)

#endif /* TEST_PORT_HELPERS_H */
