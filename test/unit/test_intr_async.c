/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * lib/intr's async-event mapping with a fake driver feeding each ibv event
 * type: link events, queue errors, removal once per port however often
 * DEVICE_FATAL comes, informational events ignored, events the driver
 * cannot place counted; every event acked, and acked before its action.
 * Then the same through the EAL interrupt thread, and a sink that destroys
 * its source.
 */

#include "dvp_test_eal.h"

#include <pthread.h>
#include <semaphore.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <dvp_interrupts.h>
#include <dvp_intr_driver.h>

#define MAX_EV 32

struct fake_dev {
	pthread_mutex_t lock; /* the test's thread pushes, the interrupt thread gets */
	int fd;
	struct dvp_intr_async_event evs[MAX_EV];
	unsigned int n, next;
	unsigned int acked;
	int get_error; /* returned once the queue is empty, instead of -EAGAIN */
};

struct sink_rec {
	struct dvp_intr_async_action a[MAX_EV];
	unsigned int n;
	bool acked_before[MAX_EV];
	bool on_intr_thread;
	struct fake_dev *dev;
	struct dvp_intr_async **destroy_on_removal;
	sem_t done;
};

static int fake_get(void *ctx, struct dvp_intr_async_event *ev)
{
	struct fake_dev *d = ctx;
	eventfd_t v;
	int ret = 0;

	pthread_mutex_lock(&d->lock);
	if (d->next == d->n) {
		(void)eventfd_read(d->fd, &v);
		ret = d->get_error ? d->get_error : -EAGAIN;
	} else {
		*ev = d->evs[d->next++];
	}
	pthread_mutex_unlock(&d->lock);
	return ret;
}

static void fake_ack(void *ctx, struct dvp_intr_async_event *ev)
{
	struct fake_dev *d = ctx;

	(void)ev;
	pthread_mutex_lock(&d->lock);
	d->acked++;
	pthread_mutex_unlock(&d->lock);
}

static const struct dvp_intr_async_ops fake_ops = { fake_get, fake_ack };

static void record(void *arg, const struct dvp_intr_async_action *a)
{
	struct sink_rec *r = arg;

	if (r->n < MAX_EV) {
		/* The ack of the event behind this action came first. */
		pthread_mutex_lock(&r->dev->lock);
		r->acked_before[r->n] = r->dev->acked == r->dev->next;
		pthread_mutex_unlock(&r->dev->lock);
		r->a[r->n++] = *a;
	}
	r->on_intr_thread = dvp_thread_is_intr();
	if (a->kind == DVP_INTR_ASYNC_REMOVAL && r->destroy_on_removal != NULL) {
		dvp_intr_async_destroy(*r->destroy_on_removal);
		*r->destroy_on_removal = NULL;
	}
	sem_post(&r->done);
}

static void push(struct fake_dev *d, enum ibv_event_type t, uint16_t port, int queue, bool tx)
{
	struct dvp_intr_async_event *ev;

	pthread_mutex_lock(&d->lock);
	ev = &d->evs[d->n++];
	memset(ev, 0, sizeof(*ev));
	ev->ibv.event_type = t;
	ev->port_id = port;
	if (queue >= 0) {
		ev->queue_known = true;
		ev->queue_id = (uint16_t)queue;
		ev->tx = tx;
	}
	pthread_mutex_unlock(&d->lock);
	assert_int_equal(eventfd_write(d->fd, 1), 0);
}

static void fake_init(struct fake_dev *d, struct sink_rec *r)
{
	memset(d, 0, sizeof(*d));
	memset(r, 0, sizeof(*r));
	pthread_mutex_init(&d->lock, NULL);
	d->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	assert_true(d->fd >= 0);
	r->dev = d;
	sem_init(&r->done, 0, 0);
}

static void test_kind_table(void **state)
{
	int t;

	(void)state;
	for (t = IBV_EVENT_CQ_ERR; t <= IBV_EVENT_WQ_FATAL; t++) {
		enum dvp_intr_async_kind want = DVP_INTR_ASYNC_NONE;

		switch (t) {
		case IBV_EVENT_PORT_ACTIVE:
		case IBV_EVENT_PORT_ERR:
			want = DVP_INTR_ASYNC_LINK;
			break;
		case IBV_EVENT_CQ_ERR:
		case IBV_EVENT_QP_FATAL:
		case IBV_EVENT_QP_REQ_ERR:
		case IBV_EVENT_QP_ACCESS_ERR:
		case IBV_EVENT_WQ_FATAL:
			want = DVP_INTR_ASYNC_QUEUE_ERROR;
			break;
		case IBV_EVENT_DEVICE_FATAL:
			want = DVP_INTR_ASYNC_REMOVAL;
			break;
		default:
			break;
		}
		if (dvp_intr_async_kind_of((enum ibv_event_type)t) != want)
			fail_msg("%s maps to %d, expected %d", ibv_event_type_str(t),
				 dvp_intr_async_kind_of((enum ibv_event_type)t), want);
	}
}

/* Each type fed by a fake driver, processed directly (as the interrupt thread would). */
static void test_mapping(void **state)
{
	struct dvp_intr_async_stats st;
	struct dvp_intr_async *src;
	struct fake_dev d;
	struct sink_rec r;
	unsigned int i, removals5 = 0, removals6 = 0;

	(void)state;
	fake_init(&d, &r);
	src = dvp_intr_async_create("fake", d.fd, &fake_ops, &d, record, &r);
	assert_non_null(src);
	assert_int_equal(dvp_intr_async_add_port(src, 5), 0);
	assert_int_equal(dvp_intr_async_add_port(src, 6), 0);
	assert_int_equal(dvp_intr_async_add_port(src, 6), -EEXIST);
	assert_int_equal(dvp_intr_async_add_port(src, DVP_MAX_PORTS), -EINVAL);

	push(&d, IBV_EVENT_PORT_ACTIVE, 5, -1, false);
	push(&d, IBV_EVENT_PORT_ERR, 6, -1, false);
	push(&d, IBV_EVENT_CQ_ERR, 5, 2, false);
	push(&d, IBV_EVENT_QP_FATAL, 5, 1, true);
	push(&d, IBV_EVENT_QP_REQ_ERR, 6, 0, true);
	push(&d, IBV_EVENT_QP_ACCESS_ERR, 6, 3, false);
	push(&d, IBV_EVENT_WQ_FATAL, 5, 4, false);
	push(&d, IBV_EVENT_COMM_EST, 5, -1, false);
	push(&d, IBV_EVENT_LID_CHANGE, 5, -1, false);
	push(&d, IBV_EVENT_CQ_ERR, 5, -1, false); /* the driver could not place it */
	push(&d, IBV_EVENT_PORT_ACTIVE, 9, -1, false); /* not one of the source's ports */
	push(&d, IBV_EVENT_DEVICE_FATAL, DVP_INTR_PORT_ALL, -1, false);
	push(&d, IBV_EVENT_DEVICE_FATAL, DVP_INTR_PORT_ALL, -1, false);
	push(&d, IBV_EVENT_DEVICE_FATAL, 5, -1, false);

	assert_int_equal(dvp_intr_async_process(src), 14);
	assert_int_equal(d.acked, 14);
	assert_int_equal(dvp_intr_async_process(src), 0);

	assert_int_equal(r.n, 9);
	assert_int_equal(r.a[0].kind, DVP_INTR_ASYNC_LINK);
	assert_int_equal(r.a[0].port_id, 5);
	assert_int_equal(r.a[0].cause, IBV_EVENT_PORT_ACTIVE);
	assert_int_equal(r.a[1].kind, DVP_INTR_ASYNC_LINK);
	assert_int_equal(r.a[1].port_id, 6);
	assert_int_equal(r.a[2].kind, DVP_INTR_ASYNC_QUEUE_ERROR);
	assert_int_equal(r.a[2].queue_id, 2);
	assert_false(r.a[2].tx);
	assert_int_equal(r.a[2].cause, IBV_EVENT_CQ_ERR);
	assert_int_equal(r.a[3].queue_id, 1);
	assert_true(r.a[3].tx);
	assert_int_equal(r.a[3].cause, IBV_EVENT_QP_FATAL);
	assert_int_equal(r.a[4].port_id, 6);
	assert_int_equal(r.a[4].cause, IBV_EVENT_QP_REQ_ERR);
	assert_int_equal(r.a[5].cause, IBV_EVENT_QP_ACCESS_ERR);
	assert_int_equal(r.a[6].cause, IBV_EVENT_WQ_FATAL);
	for (i = 0; i < r.n; i++) {
		assert_true(r.acked_before[i]);
		if (r.a[i].kind == DVP_INTR_ASYNC_REMOVAL) {
			assert_int_equal(r.a[i].cause, IBV_EVENT_DEVICE_FATAL);
			removals5 += r.a[i].port_id == 5;
			removals6 += r.a[i].port_id == 6;
		}
	}
	/* DEVICE_FATAL three times (twice device-wide): one removal per port. */
	assert_int_equal(removals5, 1);
	assert_int_equal(removals6, 1);

	dvp_intr_async_stats_get(src, &st);
	assert_int_equal(st.events, 14);
	assert_int_equal(st.acked, 14);
	assert_int_equal(st.link, 2);
	assert_int_equal(st.queue_error, 5);
	assert_int_equal(st.removal, 2);
	assert_int_equal(st.removal_repeated, 3);
	assert_int_equal(st.ignored, 2);
	assert_int_equal(st.unresolved, 2);

	/* A port removed from the source hears nothing more. */
	assert_int_equal(dvp_intr_async_del_port(src, 6), 0);
	assert_int_equal(dvp_intr_async_del_port(src, 6), -ENOENT);
	push(&d, IBV_EVENT_PORT_ERR, 6, -1, false);
	assert_int_equal(dvp_intr_async_process(src), 1);
	assert_int_equal(r.n, 9);
	dvp_intr_async_destroy(src);
	close(d.fd);
	sem_destroy(&r.done);
}

/* A read error is reported, not looped on. */
static void test_get_error(void **state)
{
	struct dvp_intr_async *src;
	struct dvp_log_capture cap;
	struct fake_dev d;
	struct sink_rec r;

	(void)state;
	fake_init(&d, &r);
	d.get_error = -EIO;
	src = dvp_intr_async_create("broken", d.fd, &fake_ops, &d, record, &r);
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_intr_async_process(src), -EIO);
	assert_null(dvp_intr_async_create("x", d.fd, NULL, &d, record, &r));
	assert_null(dvp_intr_async_create("x", d.fd, &fake_ops, &d, NULL, &r));
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "broken: reading an async event failed");
	assert_contains(cap.buf, "x: no get hook");
	assert_contains(cap.buf, "x: no sink");
	dvp_log_capture_free(&cap);
	dvp_intr_async_destroy(src);
	close(d.fd);
	sem_destroy(&r.done);
}

/* On the EAL interrupt thread; a sink may destroy its own source. */
static void test_on_intr_thread(void **state)
{
	struct dvp_intr_async *src;
	struct fake_dev d;
	struct sink_rec r;

	(void)state;
	assert_true(dvp_test_eal_init("--no-huge", "-m", "8") > 0);
	fake_init(&d, &r);
	src = dvp_intr_async_create("fake", d.fd, &fake_ops, &d, record, &r);
	/* Set before the interrupt thread can look at it (an eventfd orders nothing for TSan). */
	r.destroy_on_removal = &src;
	assert_int_equal(dvp_intr_async_add_port(src, 0), 0);
	assert_int_equal(dvp_intr_async_start(src), 0);
	assert_int_equal(dvp_intr_async_start(src), 0);
	push(&d, IBV_EVENT_PORT_ERR, 0, -1, false);
	assert_int_equal(sem_wait(&r.done), 0);
	assert_true(r.on_intr_thread);
	assert_int_equal(r.a[0].kind, DVP_INTR_ASYNC_LINK);

	push(&d, IBV_EVENT_DEVICE_FATAL, DVP_INTR_PORT_ALL, -1, false);
	push(&d, IBV_EVENT_PORT_ACTIVE, 0, -1, false); /* never read: the source is gone */
	assert_int_equal(sem_wait(&r.done), 0);
	/* The interrupt thread finishes with the source; then nothing more comes. */
	usleep(50000);
	assert_null(src);
	assert_int_equal(r.n, 2);
	assert_int_equal(r.a[1].kind, DVP_INTR_ASYNC_REMOVAL);
	assert_int_equal(dvp_eal_cleanup(), 0);
	close(d.fd);
	sem_destroy(&r.done);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kind_table),
		cmocka_unit_test(test_mapping),
		cmocka_unit_test(test_get_error),
		cmocka_unit_test(test_on_intr_thread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
