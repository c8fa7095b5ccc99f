/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * drivers/net/ring: devargs (each bad one named), cabling (frames both
 * ways, queue mapping between ports of different widths, a closed peer),
 * ports made from an application's rings (crossed pairs, one reader per
 * ring, an application producer waking an armed consumer), and the
 * driver's API refusing what it should.
 */

#include "test_port_helpers.h"

#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

static uint16_t c1, c2;

static int setup(void **state)
{
	(void)state;
	if (dvp_test_eal_init("--no-huge", "-m", "32", "-l", "0-1", "--vdev", "net_ring1,queues=2",
			      "--vdev", "net_ring2,queues=2,peer=net_ring1") < 0)
		return -1;
	tp_pool_create();
	c1 = tp_port("net_ring1");
	c2 = tp_port("net_ring2");
	return 0;
}

static void test_devargs(void **state)
{
	struct dvp_log_capture cap;

	(void)state;
	dvp_log_capture_begin(&cap);
	assert_true(dvp_vdev_create("net_ring5,queues=0") < 0);
	assert_true(dvp_vdev_create("net_ring5,queues=17") < 0);
	assert_true(dvp_vdev_create("net_ring5,size=1000") < 0);
	assert_true(dvp_vdev_create("net_ring5,size=1") < 0);
	assert_true(dvp_vdev_create("net_ring5,sise=1024") < 0);
	/* A peer that is not there or is taken is a bad devargs value: EINVAL. */
	assert_int_equal(dvp_vdev_create("net_ring5,peer=net_ring7"), -EINVAL);
	assert_int_equal(dvp_vdev_create("net_ring5,peer=net_ring1"), -EINVAL);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "queues");
	assert_contains(cap.buf, "size=1000 is not a power of two");
	assert_contains(cap.buf, "'sise'");
	assert_contains(cap.buf, "peer=net_ring7: no such net_ring vdev port");
	assert_contains(cap.buf, "peer=net_ring1: that port is cabled to another already");
	dvp_log_capture_free(&cap);
	/* Nothing was left behind by the failures. */
	assert_int_equal(dvp_port_count(), 2);
	tp_assert_pool_full();
}

/* Frames cross the cable both ways, marked with the receiving port. */
static void test_cable_both_ways(void **state)
{
	struct dvp_mbuf *pkts[8];
	uint16_t n, i;

	(void)state;
	tp_port_up(c1, 2, NULL);
	tp_port_up(c2, 2, NULL);
	tp_send(c1, 1, 4);
	tp_send(c2, 0, 3);
	assert_int_equal(dvp_rx_burst(c1, 1, pkts, 8), 0);
	n = dvp_rx_burst(c2, 1, pkts, 8);
	assert_int_equal(n, 4);
	for (i = 0; i < n; i++) {
		assert_int_equal(pkts[i]->port, c2);
		assert_int_equal(pkts[i]->pkt_len, 60);
		/* tp_send tags frames n-1 .. 0, in order. */
		assert_int_equal(*dvp_pktmbuf_mtod(pkts[i], uint8_t *), 3 - i);
	}
	dvp_pktmbuf_free_bulk(pkts, n);
	assert_int_equal(tp_recv_all(c1, 0), 3);
	assert_int_equal(dvp_port_stop(c1), 0);
	assert_int_equal(dvp_port_stop(c2), 0);
	tp_assert_pool_full();
}

/* A 4-queue port cabled to a 2-queue one: tx queue q reaches rx queue q mod 2. */
static void test_queue_mapping(void **state)
{
	uint16_t a, b, q;

	(void)state;
	assert_int_equal(dvp_vdev_create("net_ring5,queues=4,size=64"), 0);
	assert_int_equal(dvp_vdev_create("net_ring6,queues=2,size=64,peer=net_ring5"), 0);
	a = tp_port("net_ring5");
	b = tp_port("net_ring6");
	tp_port_up(a, 4, NULL);
	tp_port_up(b, 2, NULL);
	for (q = 0; q < 4; q++)
		tp_send(a, q, q + 1u);
	assert_int_equal(tp_recv_all(b, 0), 1 + 3);
	assert_int_equal(tp_recv_all(b, 1), 2 + 4);
	/* A ring of 64 holds 63: the rest is refused, and the caller keeps it. */
	tp_send(b, 1, 63);
	{
		struct dvp_mbuf *m = tp_frame(0);

		assert_int_equal(dvp_tx_burst(b, 1, &m, 1), 0);
		dvp_pktmbuf_free(m);
	}
	assert_int_equal(tp_xstat(b, "tx_errors"), 1);
	assert_int_equal(dvp_port_mbufs_held(a), 63);

	/* Closing one end: the other's link goes down and what it sends is dropped. */
	assert_int_equal(dvp_port_close(a), 0);
	tp_assert_pool_full();
	tp_send(b, 0, 5);
	assert_int_equal(tp_xstat(b, "tx_q0_peer_stopped_drops"), 5);
	tp_assert_pool_full();
	{
		struct dvp_link link;

		assert_int_equal(dvp_link_get(b, &link), 0);
		assert_int_equal(link.link_status, DVP_LINK_DOWN);
	}
	assert_int_equal(dvp_port_close(b), 0);
	assert_int_equal(dvp_dev_remove("net_ring5"), 0);
	assert_int_equal(dvp_dev_remove("net_ring6"), 0);
}

static struct dvp_ring *user_ring(const char *name, unsigned int count, unsigned int esize)
{
	ssize_t sz = dvp_ring_get_memsize_elem(count, esize);
	void *mem = NULL;

	assert_true(sz > 0);
	assert_int_equal(posix_memalign(&mem, 2 * DVP_CACHE_LINE_SIZE, (size_t)sz), 0);
	assert_int_equal(dvp_ring_init_elem(mem, name, count, esize, 0), 0);
	return mem;
}

/* Two ports made from the same two rings, crossed: back to back, interrupts included. */
static void test_user_rings_crossed(void **state)
{
	struct dvp_ring *r1 = user_ring("u1", 256, 8), *r2 = user_ring("u2", 256, 8);
	struct dvp_ring *wide = user_ring("u3", 64, 16);
	struct dvp_rxwait_set *set = dvp_rxwait_set_create(1);
	struct dvp_rx_wait_event ready[1];
	struct dvp_log_capture cap;
	int a, b;

	(void)state;
	a = dvp_net_ring_create("ua", &r1, 1, &r2, 1, DVP_SOCKET_ANY);
	b = dvp_net_ring_create("ub", &r2, 1, &r1, 1, DVP_SOCKET_ANY);
	assert_true(a >= 0 && b >= 0);
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_net_ring_create("uc", &r1, 1, NULL, 0, DVP_SOCKET_ANY), -EBUSY);
	assert_int_equal(dvp_net_ring_create("uc", &wide, 1, NULL, 0, DVP_SOCKET_ANY), -EINVAL);
	assert_int_equal(dvp_net_ring_create("ua", &r2, 0, &r2, 1, DVP_SOCKET_ANY), -EEXIST);
	assert_int_equal(dvp_net_ring_create("uc", NULL, 0, NULL, 0, DVP_SOCKET_ANY), -EINVAL);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "rx ring u1 is read by port ua already");
	assert_contains(cap.buf, "rx ring 0 is not a ring of pointers");
	assert_contains(cap.buf, "a port named ua exists already");
	dvp_log_capture_free(&cap);

	tp_port_up_intr((uint16_t)a, 1, 0);
	tp_port_up((uint16_t)b, 1, NULL);
	assert_int_equal(dvp_rx_intr_ctl((uint16_t)a, 0, set, DVP_RX_INTR_CTL_ADD, NULL), 0);
	assert_int_equal(dvp_rx_wait(set, ready, 1, 0), 0); /* armed, empty */
	tp_send((uint16_t)b, 0, 2); /* b writes r1, which a reads: wakes a */
	assert_int_equal(tp_xstat((uint16_t)a, "rx_intr_events_written"), 1);
	assert_int_equal(dvp_rx_wait(set, ready, 1, 1000), 1);
	assert_int_equal(tp_recv_all((uint16_t)a, 0), 2);
	tp_send((uint16_t)a, 0, 3);
	assert_int_equal(tp_recv_all((uint16_t)b, 0), 3);
	assert_int_equal(dvp_rxwait_set_free(set), 0);

	assert_int_equal(dvp_port_close((uint16_t)a), 0);
	assert_int_equal(dvp_port_close((uint16_t)b), 0);
	tp_assert_pool_full();
	free(r1);
	free(r2);
	free(wide);
}

/* The application produces into a port's rx ring and consumes its tx ring. */
static void test_application_producer(void **state)
{
	struct dvp_ring *in = user_ring("in", 64, 8), *out = user_ring("out", 64, 8);
	struct dvp_rxwait_set *set = dvp_rxwait_set_create(1);
	struct dvp_rx_wait_event ready[1];
	struct dvp_mbuf *m;
	void *obj;
	int p;

	(void)state;
	p = dvp_net_ring_create("app", &in, 1, &out, 1, DVP_SOCKET_ANY);
	assert_true(p >= 0);
	tp_port_up_intr((uint16_t)p, 1, 0);
	assert_int_equal(dvp_rx_intr_ctl((uint16_t)p, 0, set, DVP_RX_INTR_CTL_ADD, NULL), 0);
	assert_int_equal(dvp_rx_wait(set, ready, 1, 0), 0); /* arms */

	/* Without the notify, no event: the ring is outside the driver. */
	m = tp_frame(9);
	assert_int_equal(dvp_ring_enqueue(in, m), 0);
	assert_int_equal(tp_xstat((uint16_t)p, "rx_intr_events_written"), 0);
	assert_int_equal(dvp_net_ring_rx_notify((uint16_t)p, 0), 0);
	assert_int_equal(tp_xstat((uint16_t)p, "rx_intr_events_written"), 1);
	assert_int_equal(dvp_net_ring_rx_notify((uint16_t)p, 0), 0); /* not armed now: nothing */
	assert_int_equal(tp_xstat((uint16_t)p, "rx_intr_events_written"), 1);
	/* The port's own counters reset by the baseline rule, as its queues'. */
	assert_int_equal(dvp_xstats_reset((uint16_t)p), 0);
	assert_int_equal(tp_xstat((uint16_t)p, "rx_intr_events_written"), 0);
	assert_int_equal(dvp_rx_wait(set, ready, 1, 1000), 1);
	assert_int_equal(tp_recv_all((uint16_t)p, 0), 1);

	/* What the port sends, the application reads from its ring (open: no consumer port). */
	tp_send((uint16_t)p, 0, 2);
	assert_int_equal(dvp_ring_count(out), 2);
	while (dvp_ring_dequeue(out, &obj) == 0)
		dvp_pktmbuf_free(obj);

	/* Stop takes back what waits in the port's rx ring, even an application's. */
	assert_int_equal(dvp_ring_enqueue(in, tp_frame(1)), 0);
	assert_int_equal(dvp_port_stop((uint16_t)p), 0);
	assert_int_equal(dvp_ring_count(in), 0);
	tp_assert_pool_full();
	assert_int_equal(dvp_rxwait_set_free(set), 0);
	assert_int_equal(dvp_port_close((uint16_t)p), 0);
	free(in);
	free(out);
}

static void test_api_errors(void **state)
{
	struct dvp_ring *r = user_ring("uapi", 64, 8);
	struct dvp_log_capture cap;

	(void)state;
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_net_ring_rx_notify(DVP_MAX_PORTS - 1, 0), -EINVAL);
	assert_int_equal(dvp_net_ring_rx_notify(c1, 2), -EINVAL);
	assert_int_equal(dvp_net_ring_set_arm_hook(c1, 5, NULL, NULL), -EINVAL);
	assert_int_equal(dvp_net_ring_inject_async(c1, (enum dvp_port_event_cause)99, 0, false),
			 -EINVAL);
	assert_int_equal(dvp_net_ring_set_link(UINT16_MAX, true), -EINVAL);
	/* A queue event names a queue the port has. */
	assert_int_equal(dvp_net_ring_inject_async(c1, DVP_PORT_CAUSE_CQ_ERROR, 65535, false),
			 -EINVAL);
	assert_int_equal(dvp_net_ring_inject_async(c1, DVP_PORT_CAUSE_QP_FATAL, 2, true), -EINVAL);
	/* A NUMA node this machine has, or DVP_SOCKET_ANY. */
	assert_int_equal(dvp_net_ring_create("unode", NULL, 0, &r, 1, 9999), -EINVAL);
	assert_int_equal(dvp_net_ring_create("unode", NULL, 0, &r, 1, -2), -EINVAL);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "port 0 has 2 rx rings; no queue 65535");
	assert_contains(cap.buf, "port 0 has 2 tx rings; no queue 2");
	assert_contains(cap.buf, "create unode: NUMA node 9999 does not exist");
	assert_contains(cap.buf, "is not a net_ring port");
	assert_contains(cap.buf, "port 0 has 2 rx rings; no queue 2");
	assert_contains(cap.buf, "no queue 5");
	assert_contains(cap.buf, "99 is not an enum dvp_port_event_cause");
	dvp_log_capture_free(&cap);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_devargs),
		cmocka_unit_test(test_cable_both_ways),
		cmocka_unit_test(test_queue_mapping),
		cmocka_unit_test(test_user_rings_crossed),
		cmocka_unit_test(test_application_producer),
		cmocka_unit_test(test_api_errors),
	};

	return cmocka_run_group_tests(tests, setup, tp_teardown);
}
