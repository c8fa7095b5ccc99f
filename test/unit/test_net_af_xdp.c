/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * net_af_xdp without a kernel: the bursts against rings in plain memory,
 * with this test playing the kernel's side (take fill entries, write
 * frames and rx descriptors, take tx descriptors, complete them), so every
 * rule of the fast path is checked without root: where a frame lands and
 * what the mbuf says, every buffer the kernel holds marked and given back,
 * the copies (another pool's mbuf, a chain, an own UMEM), the drops, a
 * failed kick turning into a queue fault and its restart. Then probe's
 * refusals, each named in one line. The veth tests (suite af_xdp) run the
 * same code against the real kernel.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "dvp_test_eal.h"

#include <dvp_bus.h>
#include <dvp_mbuf.h>
#include <dvp_port.h>
#include <dvp_port_driver.h>

#include "af_xdp_rxtx.h"

#define RING 64
#define PAGE 4096u

/* One ring as the kernel shares it: two indexes, flags, the entries. */
struct fake_ring {
	uint32_t prod, cons, flags;
	union {
		uint64_t addr[RING];
		struct xdp_desc desc[RING];
	};
};

static struct fake_ring k_fill, k_rx, k_tx, k_comp;
static struct dvp_mempool *pool, *pool2;
static uint8_t *base;
static uint32_t hdr;
static struct dvp_port *port;

static void prod_init(struct xsk_ring_prod *r, struct fake_ring *k)
{
	memset(k, 0, sizeof(*k));
	*r = (struct xsk_ring_prod){ .cached_cons = RING,
				     .mask = RING - 1,
				     .size = RING,
				     .producer = &k->prod,
				     .consumer = &k->cons,
				     .ring = k->addr,
				     .flags = &k->flags };
}

static void cons_init(struct xsk_ring_cons *r, struct fake_ring *k)
{
	memset(k, 0, sizeof(*k));
	*r = (struct xsk_ring_cons){ .mask = RING - 1,
				     .size = RING,
				     .producer = &k->prod,
				     .consumer = &k->cons,
				     .ring = k->addr,
				     .flags = &k->flags };
}

/* The kernel takes a fill entry, writes a frame of @len behind 256 bytes and posts it. */
static uint64_t k_receive(uint32_t len, uint8_t fill_byte)
{
	uint64_t off;

	assert_true(k_fill.prod != k_fill.cons);
	off = k_fill.addr[k_fill.cons++ % RING];
	memset(base + off + AF_XDP_RX_HEADROOM, fill_byte, len);
	k_rx.desc[k_rx.prod % RING] = (struct xdp_desc){
		.addr = off | ((uint64_t)AF_XDP_RX_HEADROOM << XSK_UNALIGNED_BUF_OFFSET_SHIFT),
		.len = len,
	};
	k_rx.prod++;
	return off;
}

/* The kernel sends every descriptor of the tx ring and completes it. */
static unsigned int k_send_all(struct xdp_desc *seen, unsigned int max)
{
	unsigned int n = 0;

	while (k_tx.cons != k_tx.prod) {
		struct xdp_desc d = k_tx.desc[k_tx.cons++ % RING];

		if (n < max)
			seen[n] = d;
		n++;
		k_comp.addr[k_comp.prod++ % RING] = d.addr;
	}
	return n;
}

static void rxq_pool_init(struct af_xdp_rxq *rxq)
{
	memset(rxq, 0, sizeof(*rxq));
	prod_init(&rxq->fill, &k_fill);
	cons_init(&rxq->rx, &k_rx);
	rxq->base = base;
	rxq->mp = pool;
	rxq->mbuf_hdr = hdr;
	rxq->held_shift = 11; /* 2048 <= the 2176-byte buffers */
	rxq->held_words = 1024;
	rxq->held = calloc(rxq->held_words, sizeof(uint64_t));
	rxq->nb_desc = RING / 2;
	rxq->port_id = 7;
	rxq->port = port;
	rxq->fd = -1;
}

static void txq_pool_init(struct af_xdp_txq *txq)
{
	memset(txq, 0, sizeof(*txq));
	prod_init(&txq->tx, &k_tx);
	cons_init(&txq->comp, &k_comp);
	txq->base = base;
	txq->mp = pool;
	txq->mbuf_hdr = hdr;
	txq->chunk = 2176;
	txq->held_shift = 11;
	txq->held_words = 1024;
	txq->held = calloc(txq->held_words, sizeof(uint64_t));
	txq->nb_desc = RING;
	txq->port = port;
	txq->fd = -1;
}

static struct dvp_mbuf *frame(struct dvp_mempool *mp, uint16_t len, uint8_t byte)
{
	struct dvp_mbuf *m = dvp_pktmbuf_alloc(mp);

	assert_non_null(m);
	memset(dvp_pktmbuf_append(m, len), byte, len);
	return m;
}

static void mem_cb(struct dvp_mempool *mp, void *opaque, const struct dvp_mempool_memhdr *mh,
		   unsigned int idx)
{
	(void)mp;
	(void)idx;
	*(uintptr_t *)opaque = (uintptr_t)mh->addr;
}

static int setup(void **state)
{
	struct dvp_mbuf *m;
	uintptr_t lo = 0;
	uint16_t pid;

	(void)state;
	if (dvp_test_eal_init("--no-huge", "-l", "0", "--log-level", "notice", "--vdev",
			      "net_ring0") < 0)
		return -1;
	pool = dvp_pktmbuf_pool_create("afx_pool", 511, 0, 0, DVP_MBUF_DEFAULT_BUF_SIZE, 0);
	pool2 = dvp_pktmbuf_pool_create("afx_pool2", 63, 0, 0, DVP_MBUF_DEFAULT_BUF_SIZE, 0);
	if (pool == NULL || pool2 == NULL || dvp_mempool_mem_iter(pool, mem_cb, &lo) != 1)
		return -1;
	base = (uint8_t *)(lo & ~(uintptr_t)(PAGE - 1));
	m = dvp_pktmbuf_alloc(pool);
	hdr = (uint32_t)((uintptr_t)m->buf_addr - (uintptr_t)m);
	dvp_pktmbuf_free(m);
	if (dvp_port_get_by_name("net_ring0", &pid) != 0)
		return -1;
	port = dvp_port_get(pid);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	dvp_eal_cleanup();
	return 0;
}

/* ------------------------------------------------------------------------
 * Pool UMEM
 */

static void test_rx_pool(void **state)
{
	struct af_xdp_rxq rxq;
	struct dvp_mbuf *pkts[32];
	uint16_t n, i;

	(void)state;
	rxq_pool_init(&rxq);
	assert_int_equal(af_xdp_rxq_fill_first(&rxq), 0);
	assert_int_equal(k_fill.prod, rxq.nb_desc);
	assert_int_equal(af_xdp_held_count(rxq.held, rxq.held_words), rxq.nb_desc);
	assert_int_equal(dvp_pktmbuf_pool_in_use(pool), rxq.nb_desc);

	/* Nothing received: nothing returned, nothing posted. */
	assert_int_equal(af_xdp_rx_pool(&rxq, pkts, 32), 0);
	for (i = 0; i < 10; i++)
		k_receive(60 + i, (uint8_t)(0xa0 + i));
	n = af_xdp_rx_pool(&rxq, pkts, 32);
	assert_int_equal(n, 10);
	for (i = 0; i < n; i++) {
		/* The kernel wrote into the mbuf itself, behind its 256 bytes. */
		assert_int_equal(pkts[i]->data_off, AF_XDP_RX_HEADROOM);
		assert_int_equal(pkts[i]->data_len, 60 + i);
		assert_int_equal(pkts[i]->pkt_len, 60 + i);
		assert_int_equal(pkts[i]->port, 7);
		assert_int_equal(pkts[i]->nb_segs, 1);
		assert_ptr_equal(pkts[i]->pool, pool);
		assert_int_equal(dvp_pktmbuf_mtod(pkts[i], uint8_t *)[59], 0xa0 + i);
	}
	/* The consumer index moved, and the fill ring got ten fresh buffers. */
	assert_int_equal(k_rx.cons, 10);
	assert_int_equal(k_fill.prod, rxq.nb_desc + 10);
	assert_int_equal(af_xdp_held_count(rxq.held, rxq.held_words), rxq.nb_desc);
	assert_int_equal(rxq.st.packets, 10);
	assert_int_equal(rxq.st.bytes, 10 * 60 + 45);
	dvp_pktmbuf_free_bulk(pkts, n);

	/* Stop: what the kernel held (fill ring and one frame in the rx ring) comes back. */
	k_receive(64, 1);
	af_xdp_rxq_reclaim(&rxq);
	assert_int_equal(af_xdp_held_count(rxq.held, rxq.held_words), 0);
	assert_int_equal(dvp_pktmbuf_pool_in_use(pool), 0);
	free(rxq.held);
}

/* The pool runs dry: the refill owes what it could not post and pays it later. */
static void test_rx_pool_refill_debt(void **state)
{
	struct af_xdp_rxq rxq;
	struct dvp_mbuf *pkts[32], *hog[512];
	unsigned int nhog = 0;
	uint16_t n;

	(void)state;
	rxq_pool_init(&rxq);
	assert_int_equal(af_xdp_rxq_fill_first(&rxq), 0);
	while ((hog[nhog] = dvp_pktmbuf_alloc(pool)) != NULL)
		nhog++;
	k_receive(60, 2);
	k_receive(60, 3);
	n = af_xdp_rx_pool(&rxq, pkts, 32);
	assert_int_equal(n, 2);
	assert_int_equal(rxq.fill_debt, 2);
	assert_int_equal(rxq.st.nombuf, 1);
	dvp_pktmbuf_free_bulk(pkts, n);
	dvp_pktmbuf_free_bulk(hog, nhog);
	/* An empty poll pays the debt. */
	assert_int_equal(af_xdp_rx_pool(&rxq, pkts, 32), 0);
	assert_int_equal(rxq.fill_debt, 0);
	assert_int_equal(af_xdp_held_count(rxq.held, rxq.held_words), rxq.nb_desc);
	af_xdp_rxq_reclaim(&rxq);
	assert_int_equal(dvp_pktmbuf_pool_in_use(pool), 0);
	free(rxq.held);
}

static void test_tx_pool(void **state)
{
	struct af_xdp_txq txq;
	struct dvp_mbuf *pkts[8];
	struct xdp_desc seen[8];
	unsigned int i;

	(void)state;
	txq_pool_init(&txq);
	for (i = 0; i < 5; i++)
		pkts[i] = frame(pool, (uint16_t)(100 + i), (uint8_t)i);
	assert_int_equal(af_xdp_tx_pool(&txq, pkts, 5), 5);
	assert_int_equal(k_tx.prod, 5);
	assert_int_equal(af_xdp_held_count(txq.held, txq.held_words), 5);
	assert_int_equal(k_send_all(seen, 8), 5);
	for (i = 0; i < 5; i++) {
		uint64_t off = seen[i].addr & XSK_UNALIGNED_BUF_ADDR_MASK;

		/* The mbuf's own buffer, its data offset in the top bits. */
		assert_ptr_equal(base + off, pkts[i]->buf_addr);
		assert_int_equal(seen[i].addr >> XSK_UNALIGNED_BUF_OFFSET_SHIFT,
				 DVP_PKTMBUF_HEADROOM);
		assert_int_equal(seen[i].len, 100 + i);
	}
	/* Held until completed; the next burst frees them. */
	assert_int_equal(dvp_pktmbuf_pool_in_use(pool), 5);
	assert_int_equal(af_xdp_tx_pool(&txq, pkts, 0), 0);
	assert_int_equal(dvp_pktmbuf_pool_in_use(pool), 0);
	assert_int_equal(af_xdp_held_count(txq.held, txq.held_words), 0);
	assert_int_equal(txq.st.packets, 5);
	assert_int_equal(txq.st.kicks, 0); /* the ring did not ask */
	free(txq.held);
}

static void test_tx_pool_copies_and_drops(void **state)
{
	struct af_xdp_txq txq;
	struct dvp_mbuf *pkts[4], *tail;
	struct xdp_desc seen[4];
	uint8_t *d;

	(void)state;
	txq_pool_init(&txq);
	/* Another pool's mbuf and a chain: copied into a fresh mbuf of the UMEM's pool. */
	pkts[0] = frame(pool2, 80, 0x11);
	pkts[1] = frame(pool, 40, 0x22);
	tail = frame(pool2, 30, 0x33);
	assert_int_equal(dvp_pktmbuf_chain(pkts[1], tail), 0);
	assert_int_equal(af_xdp_tx_pool(&txq, pkts, 2), 2);
	assert_int_equal(txq.st.copied, 2);
	assert_int_equal(dvp_pktmbuf_pool_in_use(pool2), 0);
	assert_int_equal(k_send_all(seen, 4), 2);
	assert_int_equal(seen[0].len, 80);
	assert_int_equal(seen[1].len, 70);
	d = base + (seen[1].addr & XSK_UNALIGNED_BUF_ADDR_MASK) +
	    (seen[1].addr >> XSK_UNALIGNED_BUF_OFFSET_SHIFT);
	assert_int_equal(d[39], 0x22);
	assert_int_equal(d[40], 0x33);

	/* Longer than a chunk: taken, freed, counted as an error. */
	txq.chunk = 100;
	pkts[0] = frame(pool, 200, 0x44);
	assert_int_equal(af_xdp_tx_pool(&txq, pkts, 1), 1);
	assert_int_equal(txq.st.too_long, 1);
	assert_int_equal(txq.st.errors, 1);
	assert_int_equal(af_xdp_tx_pool(&txq, pkts, 0), 0);
	assert_int_equal(dvp_pktmbuf_pool_in_use(pool), 0);
	free(txq.held);
}

static void test_tx_pool_ring_full(void **state)
{
	struct af_xdp_txq txq;
	struct dvp_mbuf *pkts[RING + 6];
	unsigned int i;

	(void)state;
	txq_pool_init(&txq);
	for (i = 0; i < RING + 6; i++)
		pkts[i] = frame(pool, 60, 0);
	/* The ring takes what it has room for; the rest is the caller's. */
	assert_int_equal(af_xdp_tx_pool(&txq, pkts, RING + 6), RING);
	assert_int_equal(txq.st.ring_full, 1);
	assert_int_equal(txq.room_wanted, 1);
	k_send_all(NULL, 0);
	assert_int_equal(af_xdp_tx_pool(&txq, pkts + RING, 6), 6);
	k_send_all(NULL, 0);
	assert_int_equal(af_xdp_tx_pool(&txq, pkts, 0), 0);
	assert_int_equal(dvp_pktmbuf_pool_in_use(pool), 0);

	/* Stop with frames in flight: the bitmap finds each. */
	for (i = 0; i < 3; i++)
		pkts[i] = frame(pool, 60, 0);
	assert_int_equal(af_xdp_tx_pool(&txq, pkts, 3), 3);
	af_xdp_txq_reclaim(&txq);
	assert_int_equal(dvp_pktmbuf_pool_in_use(pool), 0);
	free(txq.held);
}

/* A kick the kernel refuses (here: no socket) becomes a fault the next burst mends. */
static void test_tx_kick_fault(void **state)
{
	struct dvp_log_capture cap;
	struct af_xdp_txq txq;
	struct dvp_mbuf *pkts[1];

	(void)state;
	txq_pool_init(&txq);
	k_tx.flags = XDP_RING_NEED_WAKEUP;
	pkts[0] = frame(pool, 60, 0);
	assert_int_equal(af_xdp_tx_pool(&txq, pkts, 1), 1);
	assert_int_equal(txq.st.kick_errors, 1);
	assert_true(dvp_queue_fault_pending(&txq.fault));
	/* Set once until a kick works: a second failure adds no fault. */
	assert_int_equal(dvp_queue_fault_take(&txq.fault), DVP_PORT_CAUSE_DRIVER);
	assert_int_equal(af_xdp_tx_pool(&txq, pkts, 0), 0);
	assert_int_equal(txq.st.kick_errors, 2);
	assert_false(dvp_queue_fault_pending(&txq.fault));
	txq.kick_failed = false;
	assert_int_equal(af_xdp_tx_pool(&txq, pkts, 0), 0);
	assert_true(dvp_queue_fault_pending(&txq.fault));
	/* The next burst restarts the queue and reports what it found itself. */
	dvp_log_capture_begin(&cap);
	assert_int_equal(af_xdp_tx_pool(&txq, pkts, 0), 0);
	assert_contains(dvp_log_capture_end(&cap), "a kick failed");
	dvp_log_capture_free(&cap);
	k_send_all(NULL, 0);
	af_xdp_txq_reclaim(&txq);
	assert_int_equal(dvp_pktmbuf_pool_in_use(pool), 0);
	free(txq.held);
}

/* ------------------------------------------------------------------------
 * Own UMEM: frames copied in and out
 */

static void test_own_umem(void **state)
{
	const uint32_t frame_size = 2048;
	uint8_t *area = aligned_alloc(PAGE, (size_t)2 * RING * frame_size);
	uint8_t *saved_base = base;
	struct af_xdp_rxq rxq;
	struct af_xdp_txq txq;
	struct dvp_mbuf *pkts[4];
	struct xdp_desc seen[4];
	uint32_t i;

	(void)state;
	assert_non_null(area);
	base = area;
	memset(&rxq, 0, sizeof(rxq));
	prod_init(&rxq.fill, &k_fill);
	cons_init(&rxq.rx, &k_rx);
	rxq.base = area;
	rxq.mp = pool;
	rxq.mbuf_hdr = frame_size; /* own UMEM: the frame size */
	rxq.nb_desc = RING / 2;
	rxq.fd = -1;
	assert_int_equal(af_xdp_rxq_fill_first(&rxq), 0);
	assert_int_equal(k_fill.addr[3], 3 * frame_size);
	k_receive(61, 0x55);
	assert_int_equal(af_xdp_rx_own(&rxq, pkts, 4), 1);
	/* Copied into an mbuf of the pool at the usual headroom; the frame went back. */
	assert_int_equal(pkts[0]->data_off, DVP_PKTMBUF_HEADROOM);
	assert_int_equal(pkts[0]->pkt_len, 61);
	assert_int_equal(dvp_pktmbuf_mtod(pkts[0], uint8_t *)[60], 0x55);
	assert_int_equal(k_fill.prod, rxq.nb_desc + 1);
	assert_int_equal(k_fill.addr[rxq.nb_desc % RING], 0);
	dvp_pktmbuf_free(pkts[0]);

	memset(&txq, 0, sizeof(txq));
	prod_init(&txq.tx, &k_tx);
	cons_init(&txq.comp, &k_comp);
	txq.base = area;
	txq.chunk = frame_size;
	txq.nb_desc = RING;
	txq.fd = -1;
	txq.frames = calloc(RING, sizeof(uint64_t));
	for (i = 0; i < 2; i++)
		txq.frames[txq.nb_frames++] = (uint64_t)(RING / 2 + i) * frame_size;
	for (i = 0; i < 3; i++)
		pkts[i] = frame(pool, 90, (uint8_t)(0x60 + i));
	/* Two frames free: two sent (copied, their mbufs freed), one left to the caller. */
	assert_int_equal(af_xdp_tx_own(&txq, pkts, 3), 2);
	assert_int_equal(dvp_pktmbuf_pool_in_use(pool), 1);
	assert_int_equal(k_send_all(seen, 4), 2);
	assert_int_equal(area[seen[1].addr + 89], 0x61);
	/* The completions give the frames back. */
	assert_int_equal(af_xdp_tx_own(&txq, pkts + 2, 1), 1);
	assert_int_equal(txq.nb_frames, 1);
	assert_int_equal(dvp_pktmbuf_pool_in_use(pool), 0);
	free(txq.frames);
	free(area);
	base = saved_base;
}

/* ------------------------------------------------------------------------
 * Probe refusals, each named in one line
 */

static void expect_refused(const char *devargs, int err, const char *says)
{
	struct dvp_log_capture cap;
	int ret;

	dvp_log_capture_begin(&cap);
	ret = dvp_dev_attach(devargs);
	assert_contains(dvp_log_capture_end(&cap), says);
	dvp_log_capture_free(&cap);
	assert_int_equal(ret, -err);
}

static void test_probe_refusals(void **state)
{
	(void)state;
	expect_refused("net_af_xdp0", EINVAL, "no iface=<netdev> given");
	expect_refused("net_af_xdp1,iface=dvpnosuch0", ENODEV,
		       "iface=dvpnosuch0: no such netdev in this network namespace");
	expect_refused("net_af_xdp2,iface=lo", ENOTSUP, "netdev lo: not an Ethernet device");
	expect_refused("net_af_xdp3,iface=lo,xdp_mode=fast", EINVAL, "xdp_mode");
	expect_refused("net_af_xdp4,iface=lo,umem=mine", EINVAL, "umem");
	expect_refused("net_af_xdp5,iface=lo,queue_count=0", EINVAL, "queue_count");
	expect_refused("net_af_xdp6,iface=lo,xdp_prog=/nonexistent/prog.o", EINVAL,
		       "xdp_prog=/nonexistent/prog.o: not a readable file");
	expect_refused("net_af_xdp7,iface=lo,burst=9", EINVAL, "burst");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rx_pool),
		cmocka_unit_test(test_rx_pool_refill_debt),
		cmocka_unit_test(test_tx_pool),
		cmocka_unit_test(test_tx_pool_copies_and_drops),
		cmocka_unit_test(test_tx_pool_ring_full),
		cmocka_unit_test(test_tx_kick_fault),
		cmocka_unit_test(test_own_umem),
		cmocka_unit_test(test_probe_refusals),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
