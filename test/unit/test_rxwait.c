/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * lib/rxwait's completion-event rules, each against net_ring (whose eventfd
 * is written by the producer only when the consumer armed): one event per
 * arm; an event that lands between the arm and the final poll is not
 * slept through; spurious events are counted and harmless; acks are
 * counted and batched, and flushed when a queue is released even with
 * events pending; kick wakes a waiter; a queue leaves a set while its
 * waiter sleeps; 64 queues in one set; and every wrong use is an error.
 * The set over hand-made queues (two fds, its clock, a driver's kick) is
 * test_rxwait_set.c's.
 */

#include "test_port_helpers.h"

#include <poll.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <dvp_rxwait_driver.h>
#include <dvp_port_driver.h>

static uint16_t p0; /* net_ring0: loopback, 16 queues */
static uint16_t p64[4]; /* net_ring1..4: 16 queues each */

static int setup(void **state)
{
	(void)state;
	if (dvp_test_eal_init("--no-huge", "-m", "64", "-l", "0-1", "--vdev", "net_ring0,queues=16",
			      "--vdev", "net_ring1,queues=16", "--vdev", "net_ring2,queues=16",
			      "--vdev", "net_ring3,queues=16", "--vdev", "net_ring4,queues=16") < 0)
		return -1;
	tp_pool_create();
	p0 = tp_port("net_ring0");
	p64[0] = tp_port("net_ring1");
	p64[1] = tp_port("net_ring2");
	p64[2] = tp_port("net_ring3");
	p64[3] = tp_port("net_ring4");
	return 0;
}

/* Each test starts from a stopped port 0. */
static int stop_p0(void **state)
{
	(void)state;
	dvp_port_stop(p0);
	return 0;
}

/* One event per arm; no event without an arm; a second arm before the event is a no-op. */
static void test_arm_one_shot(void **state)
{
	(void)state;
	tp_port_up_intr(p0, 1, 0);
	assert_int_equal(dvp_rx_intr_enable(p0, 0), 0);
	assert_int_equal(dvp_rx_intr_enable(p0, 0), 0);
	assert_int_equal(tp_qintr(p0, 0, "arms"), 1);

	tp_send(p0, 0, 3); /* three bursts, one event */
	assert_int_equal(tp_xstat(p0, "rx_intr_events_written"), 1);
	assert_int_equal(dvp_rx_intr_disable(p0, 0), 1);
	assert_int_equal(dvp_rx_intr_disable(p0, 0), 0);
	assert_int_equal(tp_recv_all(p0, 0), 3);

	tp_send(p0, 0, 1); /* not armed: no event */
	assert_int_equal(tp_xstat(p0, "rx_intr_events_written"), 1);
	assert_int_equal(dvp_rx_intr_enable(p0, 0), 0);
	assert_int_equal(tp_qintr(p0, 0, "arms"), 2);
	tp_send(p0, 0, 1);
	assert_int_equal(tp_xstat(p0, "rx_intr_events_written"), 2);
	assert_int_equal(dvp_rx_intr_disable(p0, 0), 1);
	assert_int_equal(tp_recv_all(p0, 0), 2);
	assert_int_equal(tp_qintr(p0, 0, "events"), 2);
	assert_int_equal(dvp_port_stop(p0), 0);
	tp_assert_pool_full();
}

static void send_on_p0_q0(void *arg)
{
	(void)arg;
	tp_send(p0, 0, 1);
}

/* A frame lands after the arm and before the final poll: found, not slept through. */
static void test_event_between_arm_and_final_poll(void **state)
{
	struct dvp_rxwait_set *set = dvp_rxwait_set_create(4);
	struct dvp_rx_wait_event ready[4];
	int tag;

	(void)state;
	assert_non_null(set);
	tp_port_up_intr(p0, 1, 0);
	assert_int_equal(dvp_rx_intr_ctl(p0, 0, set, DVP_RX_INTR_CTL_ADD, &tag), 0);
	assert_int_equal(dvp_net_ring_set_arm_hook(p0, 0, send_on_p0_q0, NULL), 0);

	/* A long timeout: if the final poll missed the frame, this would sleep 10 s. */
	assert_int_equal(dvp_rx_wait(set, ready, 4, 10000), 1);
	assert_int_equal(ready[0].port_id, p0);
	assert_int_equal(ready[0].queue_id, 0);
	assert_ptr_equal(ready[0].data, &tag);
	assert_int_equal(tp_qintr(p0, 0, "sleeps"), 0);
	assert_int_equal(dvp_net_ring_set_arm_hook(p0, 0, NULL, NULL), 0);
	assert_int_equal(tp_recv_all(p0, 0), 1);

	/*
	 * The producer saw the arm and wrote its event: the next wait reads
	 * it, finds nothing behind it (spurious), arms again and times out.
	 */
	assert_int_equal(dvp_rx_wait(set, ready, 4, 30), 0);
	assert_int_equal(tp_qintr(p0, 0, "events"), 1);
	assert_int_equal(tp_qintr(p0, 0, "spurious"), 1);
	assert_int_equal(tp_qintr(p0, 0, "arms"), 2);
	assert_int_equal(tp_qintr(p0, 0, "wakeups"), 0);
	assert_int_equal(dvp_rxwait_set_free(set), 0);
	assert_int_equal(dvp_port_stop(p0), 0);
	tp_assert_pool_full();
}

/* An event with nothing behind it: counted, slept through, nothing returned. */
static void test_spurious_event(void **state)
{
	struct dvp_rxwait_set *set = dvp_rxwait_set_create(1);
	struct dvp_rx_wait_event ready[1];
	int fd;

	(void)state;
	tp_port_up_intr(p0, 1, 0);
	assert_int_equal(dvp_rx_intr_ctl(p0, 0, set, DVP_RX_INTR_CTL_ADD, NULL), 0);
	/* The ring's eventfd, under the fd the application gets (lib/rxwait's epoll fd). */
	fd = dvp_port_get(p0)->rxq_intr[0]->fds[0];
	assert_true(dvp_rx_intr_fd(p0, 0) >= 0 && dvp_rx_intr_fd(p0, 0) != fd);
	assert_int_equal(eventfd_write(fd, 1), 0);
	assert_int_equal(dvp_rx_wait(set, ready, 1, 50), 0);
	assert_int_equal(tp_qintr(p0, 0, "spurious"), 1);
	assert_true(tp_qintr(p0, 0, "sleeps") >= 2); /* woken by it, then slept again */

	/* Still fully working after it. */
	assert_int_equal(eventfd_write(fd, 1), 0);
	tp_send(p0, 0, 1);
	assert_int_equal(dvp_rx_wait(set, ready, 1, 1000), 1);
	assert_int_equal(tp_recv_all(p0, 0), 1);
	assert_int_equal(dvp_rxwait_set_free(set), 0);
	assert_int_equal(dvp_port_stop(p0), 0);
}

struct sender {
	uint16_t port;
	uint16_t queue;
	unsigned int delay_ms;
};

static void *send_later(void *arg)
{
	struct sender *s = arg;
	struct dvp_mbuf *m;

	usleep(s->delay_ms * 1000);
	m = dvp_pktmbuf_alloc(tp_pool);
	if (m == NULL || dvp_pktmbuf_append(m, 60) == NULL ||
	    dvp_tx_burst(s->port, s->queue, &m, 1) != 1)
		return (void *)1;
	return NULL;
}

/* A producer on another thread wakes the sleeping consumer. */
static void test_wakeup_from_producer(void **state)
{
	struct dvp_rxwait_set *set = dvp_rxwait_set_create(2);
	struct sender s = { .port = p0, .queue = 1, .delay_ms = 30 };
	struct dvp_rx_wait_event ready[2];
	pthread_t t;
	void *ret;

	(void)state;
	tp_port_up_intr(p0, 2, 0);
	assert_int_equal(dvp_rx_intr_ctl_all(p0, set, DVP_RX_INTR_CTL_ADD), 0);
	assert_int_equal(dvp_rxwait_set_count(set), 2);
	assert_int_equal(pthread_create(&t, NULL, send_later, &s), 0);
	assert_int_equal(dvp_rx_wait(set, ready, 2, -1), 1);
	assert_int_equal(pthread_join(t, &ret), 0);
	assert_null(ret);
	assert_int_equal(ready[0].queue_id, 1);
	assert_int_equal(tp_qintr(p0, 1, "wakeups"), 1);
	assert_int_equal(tp_qintr(p0, 1, "sleeps"), 1);
	assert_int_equal(tp_qintr(p0, 0, "sleeps"), 1);
	assert_true(tp_qintr(p0, 1, "asleep_ns") > 1000000);
	assert_int_equal(tp_qintr(p0, 1, "spurious"), 0);
	assert_int_equal(tp_recv_all(p0, 1), 1);
	assert_int_equal(dvp_rxwait_set_free(set), 0);
	assert_int_equal(dvp_port_stop(p0), 0);
	tp_assert_pool_full();
}

/* Acks are counted and go to the driver in batches of ack_batch. */
static void test_acks_batched(void **state)
{
	int i;

	(void)state;
	tp_port_up_intr(p0, 1, 4);
	for (i = 0; i < 10; i++) {
		assert_int_equal(dvp_rx_intr_enable(p0, 0), 0);
		tp_send(p0, 0, 1);
		assert_int_equal(dvp_rx_intr_disable(p0, 0), 1);
		assert_int_equal(tp_recv_all(p0, 0), 1);
	}
	assert_int_equal(tp_qintr(p0, 0, "events"), 10);
	assert_int_equal(tp_qintr(p0, 0, "acks"), 8);
	assert_int_equal(tp_qintr(p0, 0, "ack_calls"), 2);

	/* Releasing the queue (as before destroying a CQ) acks the last two. */
	assert_int_equal(dvp_port_stop(p0), 0);
	tp_port_setup(p0, 1, NULL);
	assert_int_equal(tp_xstat(p0, "rx_intr_unacked_at_release"), 0);
	tp_assert_pool_full();
}

struct waiter {
	struct dvp_rxwait_set *set;
	int timeout_ms;
	int ret;
};

static void *wait_thread(void *arg)
{
	struct waiter *w = arg;
	struct dvp_rx_wait_event ready[4];

	w->ret = dvp_rx_wait(w->set, ready, 4, w->timeout_ms);
	return NULL;
}

/*
 * A queue released with events read and not acked, another event still in
 * its fd, and a waiter asleep on it in another thread: the release takes
 * it out of the set (waking the waiter), acks everything, and returns.
 */
static void test_release_with_pending_events(void **state)
{
	struct dvp_rxwait_set *set = dvp_rxwait_set_create(1);
	struct waiter w = { .set = set, .timeout_ms = -1, .ret = -1 };
	struct dvp_log_capture cap;
	pthread_t t;

	(void)state;
	tp_port_up_intr(p0, 1, 0);
	assert_int_equal(dvp_rx_intr_enable(p0, 0), 0);
	tp_send(p0, 0, 1);
	assert_int_equal(dvp_rx_intr_disable(p0, 0), 1); /* read, ack pending (batch 64) */
	assert_int_equal(tp_recv_all(p0, 0), 1);
	assert_int_equal(dvp_rx_intr_ctl(p0, 0, set, DVP_RX_INTR_CTL_ADD, NULL), 0);
	assert_int_equal(pthread_create(&t, NULL, wait_thread, &w), 0);
	usleep(20000);
	/* An event with nothing behind it while it sleeps; then release everything. */
	assert_int_equal(eventfd_write(dvp_port_get(p0)->rxq_intr[0]->fds[0], 1), 0);

	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_port_stop(p0), 0);
	tp_port_setup(p0, 1, NULL); /* releases the queue */
	dvp_log_capture_end(&cap);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_true(w.ret >= 0);
	assert_null(strstr(cap.buf, "unacked"));
	dvp_log_capture_free(&cap);
	assert_int_equal(tp_xstat(p0, "rx_intr_unacked_at_release"), 0);
	assert_int_equal(dvp_rxwait_set_count(set), 0);
	assert_int_equal(dvp_rxwait_set_free(set), 0);
	tp_assert_pool_full();
}

/* Kick wakes a waiter asleep in epoll; a kick before the wait is not lost. */
static void test_kick(void **state)
{
	struct dvp_rxwait_set *set = dvp_rxwait_set_create(1);
	struct waiter w = { .set = set, .timeout_ms = -1, .ret = -1 };
	struct dvp_rx_wait_event ready[1];
	pthread_t t;

	(void)state;
	tp_port_up_intr(p0, 1, 0);
	assert_int_equal(dvp_rx_intr_ctl(p0, 0, set, DVP_RX_INTR_CTL_ADD, NULL), 0);
	assert_int_equal(pthread_create(&t, NULL, wait_thread, &w), 0);
	usleep(30000);
	assert_int_equal(dvp_rx_wait_kick(set), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(w.ret, 0);
	assert_true(tp_qintr(p0, 0, "sleeps") >= 1);

	/* Kicked before it sleeps: a wait with no time limit returns at once. */
	assert_int_equal(dvp_rx_wait_kick(set), 0);
	assert_int_equal(dvp_rx_wait(set, ready, 1, -1), 0);
	assert_int_equal(dvp_rx_wait_kick(NULL), -EINVAL);
	assert_int_equal(dvp_rxwait_set_free(set), 0);
	assert_int_equal(dvp_port_stop(p0), 0);
}

/* A waiter asleep while another thread removes its queue: removed, waiter back. */
static void test_remove_while_waiting(void **state)
{
	struct dvp_rxwait_set *set = dvp_rxwait_set_create(2);
	struct waiter w = { .set = set, .timeout_ms = -1, .ret = -1 };
	pthread_t t;

	(void)state;
	tp_port_up_intr(p0, 2, 0);
	assert_int_equal(dvp_rx_intr_ctl_all(p0, set, DVP_RX_INTR_CTL_ADD), 0);
	assert_int_equal(pthread_create(&t, NULL, wait_thread, &w), 0);
	usleep(20000);
	assert_int_equal(dvp_rx_intr_ctl(p0, 1, set, DVP_RX_INTR_CTL_DEL, NULL), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(w.ret, 0);
	assert_int_equal(dvp_rxwait_set_count(set), 1);
	assert_int_equal(dvp_rx_intr_ctl(p0, 1, set, DVP_RX_INTR_CTL_DEL, NULL), -ENOENT);
	assert_int_equal(dvp_rxwait_set_free(set), 0);
	assert_int_equal(dvp_port_stop(p0), 0);
}

/* 64 queues over four ports in one set: the one with work is found, then all of them. */
static void test_64_queues(void **state)
{
	struct dvp_rxwait_set *set = dvp_rxwait_set_create(64);
	struct dvp_rx_wait_event ready[64];
	static int tags[4][16];
	unsigned int i, p, q, seen[4] = { 0 };

	(void)state;
	for (p = 0; p < 4; p++) {
		tp_port_up_intr(p64[p], 16, 0);
		for (q = 0; q < 16; q++)
			assert_int_equal(dvp_rx_intr_ctl(p64[p], (uint16_t)q, set,
							 DVP_RX_INTR_CTL_ADD, &tags[p][q]),
					 0);
	}
	assert_int_equal(dvp_rxwait_set_count(set), 64);

	tp_send(p64[2], 7, 1);
	assert_int_equal(dvp_rx_wait(set, ready, 64, 1000), 1);
	assert_int_equal(ready[0].port_id, p64[2]);
	assert_int_equal(ready[0].queue_id, 7);
	assert_ptr_equal(ready[0].data, &tags[2][7]);
	assert_int_equal(tp_recv_all(p64[2], 7), 1);

	for (p = 0; p < 4; p++)
		for (q = 0; q < 16; q++)
			tp_send(p64[p], (uint16_t)q, 1);
	assert_int_equal(dvp_rx_wait(set, ready, 64, 1000), 64);
	for (i = 0; i < 64; i++) {
		for (p = 0; p < 4 && ready[i].port_id != p64[p]; p++)
			;
		assert_true(p < 4);
		assert_ptr_equal(ready[i].data, &tags[p][ready[i].queue_id]);
		seen[p] |= 1u << ready[i].queue_id;
	}
	for (p = 0; p < 4; p++)
		assert_int_equal(seen[p], 0xffff);
	/* Less room than ready queues: as many as fit. */
	assert_int_equal(dvp_rx_wait(set, ready, 8, 0), 8);
	for (p = 0; p < 4; p++)
		for (q = 0; q < 16; q++)
			assert_int_equal(tp_recv_all(p64[p], (uint16_t)q), 1);
	assert_int_equal(dvp_rxwait_set_free(set), 0);
	for (p = 0; p < 4; p++)
		assert_int_equal(dvp_port_stop(p64[p]), 0);
	tp_assert_pool_full();
}

/* Every wrong use is an error with a line that says what was wrong. */
static void test_wrong_use(void **state)
{
	struct dvp_rxwait_set *set1, *set;
	struct waiter w;
	struct dvp_rx_wait_event ready[1];
	struct dvp_log_capture cap;
	char msg[96];
	pthread_t t;

	(void)state;
	dvp_log_capture_begin(&cap);
	assert_null(dvp_rxwait_set_create(0));
	assert_int_equal(dvp_errno, EINVAL);
	assert_null(dvp_rxwait_set_create(DVP_RXWAIT_SET_MAX_QUEUES + 1));
	set1 = dvp_rxwait_set_create(1);
	set = dvp_rxwait_set_create(2);
	assert_int_equal(dvp_rx_wait(NULL, ready, 1, 0), -EINVAL);
	assert_int_equal(dvp_rx_wait(set, NULL, 1, 0), -EINVAL);
	assert_int_equal(dvp_rx_wait(set, ready, 0, 0), -EINVAL);

	/* Interrupts not configured. */
	tp_port_up(p0, 2, NULL);
	assert_int_equal(dvp_rx_intr_enable(p0, 0), -ENOTSUP);
	assert_int_equal(dvp_rx_intr_ctl(p0, 0, set, DVP_RX_INTR_CTL_ADD, NULL), -ENOTSUP);

	tp_port_up_intr(p0, 2, 0);
	assert_int_equal(dvp_rx_intr_enable(p0, 2), -EINVAL);
	assert_int_equal(dvp_rx_intr_enable(DVP_MAX_PORTS - 1, 0), -EINVAL);
	assert_int_equal(dvp_rx_intr_fd(p0, 5), -EINVAL);
	assert_int_equal(dvp_rx_intr_ctl(p0, 0, NULL, DVP_RX_INTR_CTL_ADD, NULL), -EINVAL);
	assert_int_equal(dvp_rx_intr_ctl(p0, 0, set, (enum dvp_rx_intr_op)9, NULL), -EINVAL);
	assert_int_equal(dvp_rx_intr_ctl(p0, 0, set, DVP_RX_INTR_CTL_DEL, NULL), -ENOENT);
	assert_int_equal(dvp_rx_intr_ctl(p0, 0, set, DVP_RX_INTR_CTL_ADD, NULL), 0);
	assert_int_equal(dvp_rx_intr_ctl(p0, 0, set, DVP_RX_INTR_CTL_ADD, NULL), -EEXIST);
	assert_int_equal(dvp_rx_intr_ctl(p0, 0, set1, DVP_RX_INTR_CTL_ADD, NULL), -EEXIST);
	assert_int_equal(dvp_rx_intr_ctl(p0, 1, set1, DVP_RX_INTR_CTL_ADD, NULL), 0);
	assert_int_equal(dvp_rx_intr_ctl(p0, 1, set1, DVP_RX_INTR_CTL_DEL, NULL), 0);
	assert_int_equal(dvp_rx_intr_ctl(p0, 0, set1, DVP_RX_INTR_CTL_DEL, NULL), -ENOENT);

	/* A set belongs to one waiter; it cannot be freed under it. */
	w = (struct waiter){ .set = set, .timeout_ms = -1, .ret = 1 };
	assert_int_equal(pthread_create(&t, NULL, wait_thread, &w), 0);
	usleep(20000);
	assert_int_equal(dvp_rx_wait(set, ready, 1, 0), -EBUSY);
	assert_int_equal(dvp_rxwait_set_free(set), -EBUSY);
	dvp_rx_wait_kick(set);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(w.ret, 0);

	/* Stopped: arming is refused; reading what is pending is not. */
	assert_int_equal(dvp_port_stop(p0), 0);
	assert_int_equal(dvp_rx_intr_enable(p0, 0), -EIO);
	assert_int_equal(dvp_rx_intr_disable(p0, 0), 0);
	dvp_log_capture_end(&cap);

	assert_contains(cap.buf, "max_queues 0 is out of range [1, 1024]");
	assert_contains(cap.buf,
			"rx interrupts are off; configure the port with intr_conf.rxq = 1");
	assert_contains(cap.buf, "rx queue 2 does not exist; the port has 2");
	snprintf(msg, sizeof(msg), "port %d does not exist", DVP_MAX_PORTS - 1);
	assert_contains(cap.buf, msg);
	assert_contains(cap.buf, "in a wait set already");
	assert_contains(cap.buf, "another thread is waiting on this set");
	assert_contains(cap.buf, "a thread is waiting on it");
	assert_contains(cap.buf, "valid: DVP_RX_INTR_CTL_ADD (1), DVP_RX_INTR_CTL_DEL (2)");
	snprintf(msg, sizeof(msg), "port %u is stopped", p0);
	assert_contains(cap.buf, msg);
	dvp_log_capture_free(&cap);
	assert_int_equal(dvp_rxwait_set_free(set), 0);
	assert_int_equal(dvp_rxwait_set_free(set1), 0);
	assert_int_equal(dvp_rxwait_set_free(NULL), 0);

	/* A second free is found out and frees nothing. */
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_rxwait_set_free(set1), -EINVAL);
	assert_int_equal(dvp_errno, EINVAL);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "is not a live wait set (freed already?)");
	dvp_log_capture_free(&cap);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_arm_one_shot, stop_p0),
		cmocka_unit_test_setup(test_event_between_arm_and_final_poll, stop_p0),
		cmocka_unit_test_setup(test_spurious_event, stop_p0),
		cmocka_unit_test_setup(test_wakeup_from_producer, stop_p0),
		cmocka_unit_test_setup(test_acks_batched, stop_p0),
		cmocka_unit_test_setup(test_release_with_pending_events, stop_p0),
		cmocka_unit_test_setup(test_kick, stop_p0),
		cmocka_unit_test_setup(test_remove_while_waiting, stop_p0),
		cmocka_unit_test(test_64_queues),
		cmocka_unit_test_setup(test_wrong_use, stop_p0),
	};

	return cmocka_run_group_tests(tests, setup, tp_teardown);
}
