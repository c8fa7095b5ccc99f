/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * lib/port's events against net_ring (port_event.c, and the faults
 * port_fault.c reports through them): link status changes raised once per
 * change, on the interrupt thread, naming their cause; NEW/DESTROY with
 * callbacks that unregister themselves or are unregistered while running;
 * queue errors raised and the queue restarted by the polling lcore; a
 * fault waking an lcore asleep on the queue; removal reported once.
 */

#include "test_port_helpers.h"

#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include <dvp_interrupts.h>
#include <dvp_port_driver.h>

static uint16_t lo, c1, c2; /* net_ring0 looped back; net_ring1 <-> net_ring2 */

static int setup(void **state)
{
	(void)state;
	return tp_ring_trio_init(&lo, &c1, &c2);
}

/* Wait up to 2 s for @p sem (events come from the interrupt thread). */
static int sem_wait2(sem_t *sem)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 2;
	return sem_timedwait(sem, &ts);
}

#define MAX_SEEN 16

struct ev_log {
	sem_t sem;
	atomic_int n;
	struct dvp_port_event_info seen[MAX_SEEN];
	atomic_bool on_intr;
	atomic_int sleep_ms;
	atomic_bool unregister_self;
	atomic_bool running;
	atomic_int unregister_ret;
	int consumed; /* events the test has looked at */
};

static void ev_log_init(struct ev_log *l)
{
	memset(l, 0, sizeof(*l));
	sem_init(&l->sem, 0, 0);
}

static void on_event(uint16_t port_id, enum dvp_port_event event,
		     const struct dvp_port_event_info *info, void *arg)
{
	struct ev_log *l = arg;
	int n = atomic_load(&l->n), ms;

	atomic_store(&l->running, true);
	if (n < MAX_SEEN)
		l->seen[n] = *info;
	(void)port_id;
	(void)event;
	atomic_store(&l->on_intr, dvp_thread_is_intr());
	ms = atomic_load(&l->sleep_ms);
	if (ms)
		usleep((useconds_t)ms * 1000);
	if (atomic_load(&l->unregister_self))
		atomic_store(&l->unregister_ret,
			     dvp_port_event_unregister(DVP_PORT_ID_ALL, event, on_event, arg));
	atomic_store(&l->n, n + 1);
	atomic_store(&l->running, false);
	sem_post(&l->sem);
}

/* Wait for the next event, which must be @p event on @p port. */
static const struct dvp_port_event_info *expect(struct ev_log *l, enum dvp_port_event event,
						uint16_t port)
{
	const struct dvp_port_event_info *e;

	if (sem_wait2(&l->sem) != 0)
		fail_msg("no %s event for port %u within 2 s", dvp_port_event_name(event), port);
	/* The callback may have run again since: take the events in order. */
	assert_true(l->consumed < MAX_SEEN);
	e = &l->seen[l->consumed++];
	assert_int_equal(e->event, event);
	assert_int_equal(e->port_id, port);
	assert_true(atomic_load(&l->on_intr));
	return e;
}

/* The next two events, for @p a and @p b in either order, with link @p status. */
static void expect_both(struct ev_log *l, enum dvp_port_event event, uint16_t a, uint16_t b,
			int status)
{
	const struct dvp_port_event_info *e;
	unsigned int seen = 0;
	int i;

	for (i = 0; i < 2; i++) {
		if (sem_wait2(&l->sem) != 0)
			fail_msg("no %s event within 2 s", dvp_port_event_name(event));
		assert_true(l->consumed < MAX_SEEN);
		e = &l->seen[l->consumed++];
		assert_int_equal(e->event, event);
		assert_int_equal(e->link.link_status, status);
		/* Reported while lib/port handled the async event: it names it. */
		assert_int_equal(e->cause, status == DVP_LINK_UP ? DVP_PORT_CAUSE_LINK_UP :
								   DVP_PORT_CAUSE_LINK_DOWN);
		seen |= e->port_id == a ? 1u : e->port_id == b ? 2u : 4u;
	}
	assert_int_equal(seen, 3);
}

static void expect_none(struct ev_log *l)
{
	usleep(50000);
	assert_int_equal(sem_trywait(&l->sem), -1);
}

static void test_link_and_lsc(void **state)
{
	struct dvp_port_conf conf = { 0 };
	const struct dvp_port_event_info *e;
	struct dvp_link link;
	static struct ev_log l;
	char buf[64];

	(void)state;
	ev_log_init(&l);
	conf.intr_conf.lsc = 1;
	tp_port_setup(c1, 1, &conf);
	tp_port_setup(c2, 1, &conf);
	assert_int_equal(dvp_port_event_register(DVP_PORT_ID_ALL, DVP_PORT_EVENT_LINK_STATUS_CHANGE,
						 on_event, &l),
			 0);
	assert_int_equal(dvp_port_event_register(DVP_PORT_ID_ALL, DVP_PORT_EVENT_LINK_STATUS_CHANGE,
						 on_event, &l),
			 -EEXIST);
	assert_int_equal(dvp_link_get_nowait(c1, &link), 0);
	assert_int_equal(link.link_status, DVP_LINK_DOWN);

	/* One end up: still down (the peer is not running). */
	assert_int_equal(dvp_port_start(c1), 0);
	assert_int_equal(dvp_link_get(c1, &link), 0);
	assert_int_equal(link.link_status, DVP_LINK_DOWN);
	expect_none(&l);
	/* Both: both ends up (the one that started reports first). */
	assert_int_equal(dvp_port_start(c2), 0);
	e = expect(&l, DVP_PORT_EVENT_LINK_STATUS_CHANGE, c2);
	assert_int_equal(e->link.link_status, DVP_LINK_UP);
	assert_int_equal(e->cause,
			 DVP_PORT_CAUSE_NONE); /* found by the driver, not an async event */
	e = expect(&l, DVP_PORT_EVENT_LINK_STATUS_CHANGE, c1);
	assert_int_equal(e->link.link_status, DVP_LINK_UP);
	assert_int_equal(dvp_link_get(c2, &link), 0);
	assert_int_equal(link.link_status, DVP_LINK_UP);
	assert_int_equal(link.link_speed, DVP_LINK_SPEED_10G);
	assert_int_equal(link.link_duplex, DVP_LINK_FULL_DUPLEX);
	dvp_link_to_str(buf, sizeof(buf), &link);
	assert_string_equal(buf, "Link up at 10000 Mbps FDX Fixed");

	/* The cable pulled: PORT_ERR on each end's async path, both go down. */
	assert_int_equal(dvp_xstats_reset(c1), 0);
	assert_int_equal(dvp_net_ring_set_link(c1, false), 0);
	expect_both(&l, DVP_PORT_EVENT_LINK_STATUS_CHANGE, c1, c2, DVP_LINK_DOWN);
	assert_int_equal(dvp_net_ring_set_link(c1, true), 0);
	expect_both(&l, DVP_PORT_EVENT_LINK_STATUS_CHANGE, c1, c2, DVP_LINK_UP);
	assert_int_equal(tp_xstat(c1, "async_events_acked"), 2);

	/* A port stopped: both see it. */
	assert_int_equal(dvp_port_stop(c2), 0);
	expect(&l, DVP_PORT_EVENT_LINK_STATUS_CHANGE, c2);
	expect(&l, DVP_PORT_EVENT_LINK_STATUS_CHANGE, c1);
	dvp_link_to_str(buf, sizeof(buf), &l.seen[l.consumed - 1].link);
	assert_string_equal(buf, "Link down");

	/* Without intr_conf.lsc no event, though the state changes. */
	assert_int_equal(dvp_port_stop(c1), 0);
	tp_port_setup(c1, 1, NULL);
	tp_port_setup(c2, 1, NULL);
	assert_int_equal(dvp_port_start(c1), 0);
	assert_int_equal(dvp_port_start(c2), 0);
	expect_none(&l);
	assert_int_equal(dvp_link_get_nowait(c1, &link), 0);
	assert_int_equal(link.link_status, DVP_LINK_UP);
	assert_int_equal(dvp_port_event_unregister(DVP_PORT_ID_ALL,
						   DVP_PORT_EVENT_LINK_STATUS_CHANGE, on_event, &l),
			 0);
	assert_int_equal(dvp_port_event_unregister(DVP_PORT_ID_ALL,
						   DVP_PORT_EVENT_LINK_STATUS_CHANGE, on_event, &l),
			 -ENOENT);
	sem_destroy(&l.sem);
}

static void test_new_destroy_and_unregister(void **state)
{
	struct dvp_log_capture cap;
	static struct ev_log l, d;
	uint16_t p9;

	(void)state;
	ev_log_init(&l);
	ev_log_init(&d);
	assert_int_equal(dvp_port_event_register(DVP_PORT_ID_ALL, DVP_PORT_EVENT_NEW, on_event, &l),
			 0);
	assert_int_equal(
		dvp_port_event_register(DVP_PORT_ID_ALL, DVP_PORT_EVENT_DESTROY, on_event, &d), 0);
	/* The NEW callback unregisters itself: it runs once for two new ports. */
	atomic_store(&l.unregister_self, true);
	assert_int_equal(dvp_vdev_create("net_ring9"), 0);
	p9 = tp_port("net_ring9");
	expect(&l, DVP_PORT_EVENT_NEW, p9);
	assert_int_equal(atomic_load(&l.unregister_ret), 0);
	assert_int_equal(dvp_vdev_create("net_ring8"), 0);
	expect_none(&l);

	assert_int_equal(dvp_port_close(p9), 0);
	expect(&d, DVP_PORT_EVENT_DESTROY, p9);

	/* Unregistered from another thread while it runs: returns once it has finished. */
	atomic_store(&d.sleep_ms, 200);
	assert_int_equal(dvp_port_close(tp_port("net_ring8")), 0);
	while (!atomic_load(&d.running))
		usleep(1000);
	assert_int_equal(dvp_port_event_unregister(DVP_PORT_ID_ALL, DVP_PORT_EVENT_DESTROY,
						   on_event, (void *)-1),
			 0);
	assert_false(atomic_load(&d.running));
	assert_int_equal(atomic_load(&d.n), 2);

	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_port_event_register(lo, DVP_PORT_EVENT_MAX, on_event, &l), -EINVAL);
	assert_int_equal(dvp_port_event_register(lo, DVP_PORT_EVENT_NEW, NULL, &l), -EINVAL);
	assert_int_equal(
		dvp_port_event_register(DVP_MAX_PORTS - 1, DVP_PORT_EVENT_NEW, on_event, &l),
		-EINVAL);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "event register: unknown event");
	assert_contains(cap.buf, "event register: no callback");
	dvp_log_capture_free(&cap);
	assert_string_equal(dvp_port_event_name(DVP_PORT_EVENT_QUEUE_ERROR), "QUEUE_ERROR");
	assert_int_equal(dvp_dev_remove("net_ring9"), 0);
	assert_int_equal(dvp_dev_remove("net_ring8"), 0);
	sem_destroy(&l.sem);
	sem_destroy(&d.sem);
}

/*
 * An async queue error (lib/port's queue-fault primitive): QUEUE_ERROR is
 * raised when it comes, and the polling lcore restarts the queue at its
 * next burst, counting what the restart dropped.
 */
static void test_queue_error(void **state)
{
	const struct dvp_port_event_info *e;
	struct dvp_port_stats st;
	static struct ev_log l;
	struct dvp_mbuf *m;

	(void)state;
	ev_log_init(&l);
	assert_int_equal(dvp_port_event_register(lo, DVP_PORT_EVENT_QUEUE_ERROR, on_event, &l), 0);
	tp_port_up(lo, 2, NULL);
	assert_int_equal(dvp_xstats_reset(lo), 0);
	tp_send(lo, 0, 7);
	assert_int_equal(dvp_net_ring_inject_async(lo, DVP_PORT_CAUSE_QP_FATAL, 0, false), 0);
	/* Reported on arrival: the lcore may be asleep and never burst. */
	e = expect(&l, DVP_PORT_EVENT_QUEUE_ERROR, lo);
	assert_int_equal(e->queue.queue_id, 0);
	assert_false(e->queue.tx);
	assert_int_equal(e->cause, DVP_PORT_CAUSE_QP_FATAL);
	assert_string_equal(e->queue.reason, "rx queue broken: rebuilt at its next burst");
	/*
	 * A second fault before the restart is absorbed by the first: no
	 * event. The device reads its events in order, so the next event
	 * reported is the one of tx queue 1 behind it.
	 */
	assert_int_equal(dvp_net_ring_inject_async(lo, DVP_PORT_CAUSE_CQ_ERROR, 0, false), 0);
	assert_int_equal(dvp_net_ring_inject_async(lo, DVP_PORT_CAUSE_QP_FATAL, 1, true), 0);
	e = expect(&l, DVP_PORT_EVENT_QUEUE_ERROR, lo);
	assert_true(e->queue.tx);
	assert_int_equal(e->queue.queue_id, 1);
	assert_int_equal(tp_xstat(lo, "queue_restarts"), 0);
	/* The bursts restart the queues: the 7 frames on the rx ring are dropped and counted. */
	assert_int_equal(dvp_rx_burst(lo, 0, &m, 1), 0);
	assert_int_equal(dvp_tx_burst(lo, 1, NULL, 0), 0);
	expect_none(&l);
	assert_int_equal(tp_xstat(lo, "queue_restarts"), 2);
	assert_int_equal(dvp_stats_get(lo, &st), 0);
	assert_int_equal(st.ierrors, 7);
	assert_int_equal(st.q_errors[0], 7);
	tp_assert_pool_full();
	tp_send(lo, 0, 1);
	assert_int_equal(tp_recv_all(lo, 0), 1);

	/* A tx queue of a stopped port: restarted at once, on the interrupt thread. */
	assert_int_equal(dvp_port_stop(lo), 0);
	assert_int_equal(dvp_net_ring_inject_async(lo, DVP_PORT_CAUSE_CQ_ERROR, 1, true), 0);
	e = expect(&l, DVP_PORT_EVENT_QUEUE_ERROR, lo);
	assert_int_equal(e->queue.queue_id, 1);
	assert_true(e->queue.tx);
	assert_int_equal(e->cause, DVP_PORT_CAUSE_CQ_ERROR);
	/* A queue that is not set up: ignored, no event. */
	assert_int_equal(dvp_net_ring_inject_async(lo, DVP_PORT_CAUSE_WQ_FATAL, 3, false), 0);
	expect_none(&l);
	assert_int_equal(tp_xstat(lo, "dbg_queue_errors"), 3);
	assert_int_equal(tp_xstat(lo, "queue_restarts"), 3);
	assert_non_null(strstr(e->queue.reason, "rebuilt while stopped"));
	assert_int_equal(dvp_port_event_unregister(lo, DVP_PORT_EVENT_QUEUE_ERROR, on_event, &l),
			 0);
	sem_destroy(&l.sem);
}

struct fault_sleeper {
	struct dvp_rxwait_set *set;
	int ready;
	uint16_t queue_id;
};

static void *fault_sleeper_run(void *arg)
{
	struct fault_sleeper *s = arg;
	struct dvp_rx_wait_event ev[2];

	/* Long enough that only the fault's kick can end it within the test. */
	s->ready = dvp_rx_wait(s->set, ev, 2, 20000);
	if (s->ready > 0)
		s->queue_id = ev[0].queue_id;
	return NULL;
}

/* A fault raised while the lcore sleeps on the queue wakes it, and its burst rebuilds the queue. */
static void test_queue_fault_wakes_sleeper(void **state)
{
	struct fault_sleeper s = { .ready = -1 };
	struct dvp_mbuf *m;
	pthread_t th;

	(void)state;
	tp_port_up_intr(lo, 2, 0);
	assert_int_equal(dvp_xstats_reset(lo), 0);
	s.set = dvp_rxwait_set_create(4);
	assert_non_null(s.set);
	assert_int_equal(dvp_rx_intr_ctl(lo, 1, s.set, DVP_RX_INTR_CTL_ADD, NULL), 0);
	assert_int_equal(pthread_create(&th, NULL, fault_sleeper_run, &s), 0);
	usleep(20000); /* most likely asleep by now; if not, it finds the fault when it arms */
	assert_int_equal(dvp_net_ring_inject_async(lo, DVP_PORT_CAUSE_WQ_FATAL, 1, false), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(s.ready, 1);
	assert_int_equal(s.queue_id, 1);
	assert_int_equal(dvp_rx_burst(lo, 1, &m, 1), 0);
	assert_int_equal(tp_xstat(lo, "queue_restarts"), 1);
	assert_int_equal(dvp_rx_intr_ctl(lo, 1, s.set, DVP_RX_INTR_CTL_DEL, NULL), 0);
	assert_int_equal(dvp_rxwait_set_free(s.set), 0);
}

/* The primitive itself: first cause wins, take clears; raise refuses what it cannot serve. */
static void test_queue_fault_primitive(void **state)
{
	static struct dvp_port port = { .port_id = 9, .started = true };
	struct dvp_queue_fault f = { 0 };
	int dummy_queue;

	(void)state;
	assert_false(dvp_queue_fault_pending(&f));
	assert_int_equal(dvp_queue_fault_take(&f), DVP_PORT_CAUSE_NONE);
	assert_true(dvp_queue_fault_set(&f, DVP_PORT_CAUSE_CQ_ERROR));
	assert_false(dvp_queue_fault_set(&f, DVP_PORT_CAUSE_QP_FATAL));
	assert_true(dvp_queue_fault_pending(&f));
	assert_int_equal(dvp_queue_fault_take(&f), DVP_PORT_CAUSE_CQ_ERROR);
	assert_int_equal(dvp_queue_fault_take(&f), DVP_PORT_CAUSE_NONE);
	assert_string_equal(dvp_port_event_cause_name(DVP_PORT_CAUSE_DRIVER), "DRIVER");

	port.driver_name = "test";
	port.rxqs[0] = &dummy_queue;
	assert_int_equal(dvp_port_queue_fault_raise(&port, 0, false, DVP_PORT_CAUSE_CQ_ERROR),
			 -ENOTSUP);
	assert_int_equal(dvp_port_queue_fault_raise(&port, 1, false, DVP_PORT_CAUSE_CQ_ERROR),
			 -EINVAL);
	assert_int_equal(dvp_port_queue_fault_raise(&port, DVP_MAX_QUEUES_PER_PORT, false,
						    DVP_PORT_CAUSE_CQ_ERROR),
			 -EINVAL);
	dvp_port_queue_fault_attach(&port, 0, false, &f);
	assert_ptr_equal(port.rxq_fault[0], &f);
	assert_int_equal(dvp_port_queue_fault_raise(&port, 0, false, DVP_PORT_CAUSE_NONE), -EINVAL);
	assert_int_equal(dvp_port_queue_fault_raise(&port, 0, false, DVP_PORT_CAUSE_MAX), -EINVAL);
	assert_false(dvp_queue_fault_pending(&f));
}

/* DEVICE_FATAL twice: one removal; bursts stop; reset brings the port back. */
static void test_removal_once(void **state)
{
	struct dvp_port_conf conf = { 0 };
	struct dvp_log_capture cap;
	static struct ev_log l;
	struct dvp_mbuf *m;

	(void)state;
	ev_log_init(&l);
	conf.intr_conf.rmv = 1;
	tp_port_up(lo, 1, &conf);
	assert_int_equal(dvp_xstats_reset(lo), 0);
	tp_send(lo, 0, 3);
	assert_int_equal(dvp_port_event_register(lo, DVP_PORT_EVENT_REMOVAL, on_event, &l), 0);
	assert_int_equal(dvp_net_ring_inject_async(lo, DVP_PORT_CAUSE_DEVICE_FATAL, 0, false), 0);
	assert_int_equal(dvp_net_ring_inject_async(lo, DVP_PORT_CAUSE_DEVICE_FATAL, 0, false), 0);
	assert_int_equal(expect(&l, DVP_PORT_EVENT_REMOVAL, lo)->cause,
			 DVP_PORT_CAUSE_DEVICE_FATAL);
	expect_none(&l);
	assert_int_equal(dvp_rx_burst(lo, 0, &m, 1), 0);
	assert_int_equal(tp_xstat(lo, "dbg_rx_burst_refused"), 1);
	assert_int_equal(tp_xstat(lo, "async_events_acked"), 2);
	assert_int_equal(dvp_port_stop(lo), 0);
	tp_assert_pool_full();
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_port_start(lo), -EIO);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "the device was removed; close or reset the port");
	dvp_log_capture_free(&cap);

	assert_int_equal(dvp_port_reset(lo), 0);
	assert_int_equal(dvp_port_start(lo), -EINVAL); /* must be configured again */
	tp_port_up(lo, 1, &conf);
	tp_send(lo, 0, 1);
	assert_int_equal(tp_recv_all(lo, 0), 1);
	/* A new removal after the reset is reported again. */
	assert_int_equal(dvp_net_ring_inject_async(lo, DVP_PORT_CAUSE_DEVICE_FATAL, 0, false), 0);
	expect(&l, DVP_PORT_EVENT_REMOVAL, lo);
	assert_int_equal(dvp_port_event_unregister(lo, DVP_PORT_EVENT_REMOVAL, on_event, &l), 0);
	assert_int_equal(dvp_port_reset(lo), 0);
	sem_destroy(&l.sem);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_link_and_lsc, tp_stop_all),
		cmocka_unit_test(test_new_destroy_and_unregister),
		cmocka_unit_test_setup(test_queue_error, tp_stop_all),
		cmocka_unit_test_setup(test_queue_fault_wakes_sleeper, tp_stop_all),
		cmocka_unit_test(test_queue_fault_primitive),
		cmocka_unit_test_setup(test_removal_once, tp_stop_all),
	};

	return cmocka_run_group_tests(tests, setup, tp_teardown);
}
