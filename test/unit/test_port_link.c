/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * lib/port's link state (port_link.c), on ports of a driver made here whose
 * "device" is a link the test sets: dvp_port_link_report() records the
 * reading and the cause the reading gives, raises LINK_STATUS_CHANGE once
 * per change, records nothing when the reading fails; dvp_link_get() goes
 * through the driver's link_update; and two threads reporting while the
 * device's link keeps changing never leave an older reading recorded after
 * a newer one (the port's link lock), which a watcher reading the port
 * without a lock checks.
 */

#include "test_port_helpers.h"
#include "test_port_mock.h"

#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <time.h>

#include <dvp_port_driver.h>

/* The driver made here: its device's link, and a reading that can fail. */
struct mock {
	_Atomic uint32_t speed; /* the device's link: up at this speed, down at 0 */
	atomic_int fail; /* a reading returns this when non-zero */
	atomic_uint reads;
	bool slow; /* a reading yields the CPU between reading and returning */
};

static uint16_t mp_lsc; /* configured with intr_conf.lsc */
static struct dvp_port *mp_raw; /* never configured: no events, for the race */

static struct mock *mock_of(struct dvp_port *port)
{
	return port->priv;
}

static int mock_read(struct dvp_port *port, struct dvp_link *link, enum dvp_port_event_cause *cause,
		     void *arg)
{
	struct mock *m = mock_of(port);
	uint32_t speed = atomic_load(&m->speed);
	int fail = atomic_load(&m->fail);

	(void)arg;
	atomic_fetch_add(&m->reads, 1);
	if (fail != 0)
		return fail;
	/*
	 * Widen the window between reading the device and recording it, by
	 * a different length each time, so that readings overtake each other.
	 */
	if (m->slow) {
		static _Thread_local unsigned int k;

		for (unsigned int i = k++ % 4; i > 0; i--)
			sched_yield();
	}
	link->link_status = speed != 0 ? DVP_LINK_UP : DVP_LINK_DOWN;
	link->link_speed = speed;
	link->link_duplex = DVP_LINK_FULL_DUPLEX;
	/* The reading knows which way it went; the caller only that it changed. */
	if (*cause == DVP_PORT_CAUSE_NONE)
		*cause = speed != 0 ? DVP_PORT_CAUSE_LINK_UP : DVP_PORT_CAUSE_LINK_DOWN;
	return 0;
}

static int mock_link_update(struct dvp_port *port, bool wait)
{
	int ret = dvp_port_link_report(port, mock_read, NULL, DVP_PORT_CAUSE_NONE);

	(void)wait;
	return ret < 0 ? ret : 0;
}

static int mock_info(struct dvp_port *port, struct dvp_port_info *info)
{
	(void)port;
	info->max_rx_queues = 1;
	info->max_tx_queues = 1;
	info->rx_desc_lim = (struct dvp_desc_lim){ 1024, 1, 1 };
	info->tx_desc_lim = (struct dvp_desc_lim){ 1024, 1, 1 };
	info->intr_capa = DVP_PORT_INTR_LSC;
	return 0;
}

static int mock_configure(struct dvp_port *port)
{
	(void)port;
	return 0;
}

static const struct dvp_port_ops mock_ops = {
	.info_get = mock_info,
	.configure = mock_configure,
	.link_update = mock_link_update,
	TP_MOCK_INERT_OPS,
};

/* ------------------------------------------------------------------------
 * Events
 */

struct ev_log {
	sem_t sem;
	atomic_int n;
	struct dvp_port_event_info last;
};

static struct ev_log evs;

static void on_lsc(uint16_t port_id, enum dvp_port_event event,
		   const struct dvp_port_event_info *info, void *arg)
{
	struct ev_log *l = arg;

	(void)port_id;
	(void)event;
	l->last = *info;
	atomic_fetch_add(&l->n, 1);
	sem_post(&l->sem);
}

/* The next LSC event (from the interrupt thread, within 2 s). */
static const struct dvp_port_event_info *expect_lsc(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 2;
	if (sem_timedwait(&evs.sem, &ts) != 0)
		fail_msg("no LINK_STATUS_CHANGE event within 2 s");
	return &evs.last;
}

/* No LSC event within 100 ms. */
static void expect_no_lsc(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 100 * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	if (sem_timedwait(&evs.sem, &ts) == 0)
		fail_msg("an unexpected LINK_STATUS_CHANGE event (%s)",
			 evs.last.link.link_status ? "up" : "down");
}

static int setup(void **state)
{
	struct dvp_port_conf conf = { 0 };
	struct dvp_port *port;

	(void)state;
	if (dvp_test_eal_init("--no-huge", "-m", "32", "-l", "0-1") < 0)
		return -1;
	tp_pool_create();
	port = dvp_port_allocate("link_mock0", "link_mock", &mock_ops, NULL, sizeof(struct mock));
	if (port == NULL || dvp_port_probing_finish(port) < 0)
		return -1;
	mp_lsc = port->port_id;
	conf.intr_conf.lsc = 1;
	if (dvp_port_configure(mp_lsc, 1, 1, &conf) < 0)
		return -1;
	mp_raw = dvp_port_allocate("link_mock1", "link_mock", &mock_ops, NULL, sizeof(struct mock));
	if (mp_raw == NULL || dvp_port_probing_finish(mp_raw) < 0)
		return -1;
	sem_init(&evs.sem, 0, 0);
	return dvp_port_event_register(mp_lsc, DVP_PORT_EVENT_LINK_STATUS_CHANGE, on_lsc, &evs);
}

static int teardown(void **state)
{
	dvp_port_event_unregister(mp_lsc, DVP_PORT_EVENT_LINK_STATUS_CHANGE, on_lsc, &evs);
	sem_destroy(&evs.sem);
	return tp_teardown(state);
}

/* ------------------------------------------------------------------------ */

static void test_report_records_the_reading(void **state)
{
	struct dvp_port *port = dvp_port_get(mp_lsc);
	struct mock *m = mock_of(port);
	const struct dvp_port_event_info *e;
	struct dvp_link link;

	(void)state;
	atomic_store(&m->speed, DVP_LINK_SPEED_25G);
	assert_int_equal(dvp_port_link_report(port, mock_read, NULL, DVP_PORT_CAUSE_NONE), 1);
	assert_int_equal(dvp_link_get_nowait(mp_lsc, &link), 0);
	assert_int_equal(link.link_status, DVP_LINK_UP);
	assert_int_equal(link.link_speed, DVP_LINK_SPEED_25G);
	e = expect_lsc();
	assert_int_equal(e->port_id, mp_lsc);
	assert_int_equal(e->link.link_speed, DVP_LINK_SPEED_25G);
	/* The reading named the cause. */
	assert_int_equal(e->cause, DVP_PORT_CAUSE_LINK_UP);

	/* The same reading again: no change, no event. */
	assert_int_equal(dvp_port_link_report(port, mock_read, NULL, DVP_PORT_CAUSE_NONE), 0);
	expect_no_lsc();

	/* A cause the caller knew (the device's event) is what the event carries. */
	atomic_store(&m->speed, 0);
	assert_int_equal(dvp_port_link_report(port, mock_read, NULL, DVP_PORT_CAUSE_DEVICE_FATAL),
			 1);
	e = expect_lsc();
	assert_int_equal(e->link.link_status, DVP_LINK_DOWN);
	assert_int_equal(e->cause, DVP_PORT_CAUSE_DEVICE_FATAL);
}

static void test_failed_reading_records_nothing(void **state)
{
	struct dvp_port *port = dvp_port_get(mp_lsc);
	struct mock *m = mock_of(port);
	struct dvp_link before, after;

	(void)state;
	assert_int_equal(dvp_link_get_nowait(mp_lsc, &before), 0);
	atomic_store(&m->speed, DVP_LINK_SPEED_100G);
	atomic_store(&m->fail, -EIO);
	assert_int_equal(dvp_port_link_report(port, mock_read, NULL, DVP_PORT_CAUSE_NONE), -EIO);
	assert_int_equal(dvp_link_get_nowait(mp_lsc, &after), 0);
	assert_memory_equal(&before, &after, sizeof(before));
	expect_no_lsc();
	/* Through dvp_link_get(): the driver's failure, with a line. */
	assert_int_equal(dvp_link_get(mp_lsc, &after), -EIO);
	atomic_store(&m->fail, 0);
}

static void test_link_get_reads_the_device(void **state)
{
	struct mock *m = mock_of(dvp_port_get(mp_lsc));
	struct dvp_link link;
	unsigned int reads = atomic_load(&m->reads);

	(void)state;
	atomic_store(&m->speed, DVP_LINK_SPEED_100G);
	assert_int_equal(dvp_link_get(mp_lsc, &link), 0);
	assert_int_equal(atomic_load(&m->reads), reads + 1);
	assert_int_equal(link.link_status, DVP_LINK_UP);
	assert_int_equal(link.link_speed, DVP_LINK_SPEED_100G);
	expect_lsc();
	/* dvp_link_get_nowait() does not read it. */
	atomic_store(&m->speed, DVP_LINK_SPEED_10G);
	assert_int_equal(dvp_link_get_nowait(mp_lsc, &link), 0);
	assert_int_equal(link.link_speed, DVP_LINK_SPEED_100G);
	assert_int_equal(atomic_load(&m->reads), reads + 1);
}

/* ------------------------------------------------------------------------
 * Two reporters while the device's link keeps changing
 */

#define RACE_CHANGES 3000u

static atomic_bool race_changes_done;
static atomic_int race_reporters_left;

/* The device's link speed only grows: 1, 2, ... RACE_CHANGES Mbps. */
static void *race_changer(void *arg)
{
	struct mock *m = arg;

	for (uint32_t s = 1; s <= RACE_CHANGES; s++) {
		atomic_store(&m->speed, s);
		sched_yield();
	}
	atomic_store(&race_changes_done, true);
	return NULL;
}

/* Report until the changes end, then once more (that reading is the last state). */
static void *race_reporter(void *arg)
{
	bool last;

	do {
		last = atomic_load(&race_changes_done);
		dvp_port_link_report(arg, mock_read, NULL, DVP_PORT_CAUSE_NONE);
	} while (!last);
	atomic_fetch_sub(&race_reporters_left, 1);
	return NULL;
}

static void test_reports_never_go_back(void **state)
{
	struct mock *m = mock_of(mp_raw);
	pthread_t changer, reporters[2];
	pthread_attr_t attr;
	cpu_set_t cpus;
	struct dvp_link link;
	uint32_t seen = 0, went_back = 0;
	uint64_t polls = 0;

	(void)state;
	m->slow = true;
	atomic_store(&m->speed, 0);
	atomic_store(&race_changes_done, false);
	atomic_store(&race_reporters_left, 2);
	/* On every CPU (this thread is pinned to lcore 0's): they race for real. */
	assert_int_equal(pthread_attr_init(&attr), 0);
	CPU_ZERO(&cpus);
	for (int c = 0; c < CPU_SETSIZE && c < sysconf(_SC_NPROCESSORS_ONLN); c++)
		CPU_SET(c, &cpus);
	assert_int_equal(pthread_attr_setaffinity_np(&attr, sizeof(cpus), &cpus), 0);
	assert_int_equal(pthread_create(&reporters[0], &attr, race_reporter, mp_raw), 0);
	assert_int_equal(pthread_create(&reporters[1], &attr, race_reporter, mp_raw), 0);
	assert_int_equal(pthread_create(&changer, &attr, race_changer, m), 0);
	pthread_attr_destroy(&attr);
	/* The recorded speed, read without a lock, must only grow. */
	while (atomic_load(&race_reporters_left) > 0) {
		assert_int_equal(dvp_link_get_nowait(mp_raw->port_id, &link), 0);
		if (link.link_speed < seen && went_back == 0)
			went_back = seen;
		else if (link.link_speed > seen)
			seen = link.link_speed;
		if (++polls % 64 == 0)
			sched_yield();
	}
	pthread_join(changer, NULL);
	pthread_join(reporters[0], NULL);
	pthread_join(reporters[1], NULL);
	m->slow = false;
	if (went_back != 0)
		fail_msg("an older reading was recorded after one of %u Mbps", went_back);
	assert_int_equal(dvp_link_get_nowait(mp_raw->port_id, &link), 0);
	assert_int_equal(link.link_speed, RACE_CHANGES);
	print_message("%u changes, %u readings, %" PRIu64 " polls of the recorded link\n",
		      RACE_CHANGES, atomic_load(&m->reads), polls);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_report_records_the_reading),
		cmocka_unit_test(test_failed_reading_records_nothing),
		cmocka_unit_test(test_link_get_reads_the_device),
		cmocka_unit_test(test_reports_never_go_back),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
