/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * drivers/common/ib's async events with a fake device feeding each ibv
 * event type to two real ports (net_ring's, whose own handlers are not
 * involved): the ibv-to-dvp cause table, link events and queue errors
 * handed to the driver's handlers with their cause, removal reported to
 * lib/port once per port however often DEVICE_FATAL comes, informational
 * events ignored, events the driver cannot place counted; every event
 * acked, and acked before it is handled. Then the same through the EAL
 * interrupt thread, and a handler that destroys its source.
 */

#include "test_port_helpers.h"

#include <pthread.h>
#include <semaphore.h>
#include <sys/eventfd.h>

#include <dvp_interrupts.h>
#include <dvp_port_driver.h>
#include <ib_async.h>

#define MAX_EV 32

struct fake_dev {
	pthread_mutex_t lock; /* the test's thread pushes, the interrupt thread gets */
	int fd;
	struct ib_async_event evs[MAX_EV];
	unsigned int n, next;
	unsigned int acked;
	int get_error; /* returned once the queue is empty, instead of -EAGAIN */
};

/* What a handler was told. */
struct call {
	bool link; /* else a queue error */
	uint16_t port_id;
	uint16_t queue_id;
	bool tx;
	enum dvp_port_event_cause cause;
};

struct handler_rec {
	struct call c[MAX_EV];
	unsigned int n;
	bool acked_before[MAX_EV];
	bool on_intr_thread;
	struct fake_dev *dev;
	struct ib_async **destroy_on_link_down;
	sem_t done;
};

static uint16_t pa, pb; /* net_ring0, net_ring1 */

static int fake_get(void *ctx, struct ib_async_event *ev)
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

static void fake_ack(void *ctx, struct ib_async_event *ev)
{
	struct fake_dev *d = ctx;

	(void)ev;
	pthread_mutex_lock(&d->lock);
	d->acked++;
	pthread_mutex_unlock(&d->lock);
}

static struct handler_rec *rec_now;

static void record(struct call c)
{
	struct handler_rec *r = rec_now;

	if (r->n < MAX_EV) {
		/* The ack of the event behind this call came first. */
		pthread_mutex_lock(&r->dev->lock);
		r->acked_before[r->n] = r->dev->acked == r->dev->next;
		pthread_mutex_unlock(&r->dev->lock);
		r->c[r->n++] = c;
	}
	r->on_intr_thread = dvp_thread_is_intr();
	if (c.link && c.cause == DVP_PORT_CAUSE_LINK_DOWN && r->destroy_on_link_down != NULL) {
		ib_async_destroy(*r->destroy_on_link_down);
		*r->destroy_on_link_down = NULL;
	}
	sem_post(&r->done);
}

static void fake_link(void *ctx, struct dvp_port *port, enum dvp_port_event_cause cause)
{
	(void)ctx;
	record((struct call){ .link = true, .port_id = port->port_id, .cause = cause });
}

static void fake_queue_error(void *ctx, struct dvp_port *port, uint16_t q, bool tx,
			     enum dvp_port_event_cause cause)
{
	(void)ctx;
	record((struct call){ .port_id = port->port_id, .queue_id = q, .tx = tx, .cause = cause });
}

static const struct ib_async_ops fake_ops = {
	.get = fake_get,
	.ack = fake_ack,
	.link = fake_link,
	.queue_error = fake_queue_error,
};

static void push(struct fake_dev *d, enum ibv_event_type t, uint16_t port, int queue, bool tx)
{
	struct ib_async_event *ev;

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

static void fake_init(struct fake_dev *d, struct handler_rec *r)
{
	memset(d, 0, sizeof(*d));
	memset(r, 0, sizeof(*r));
	pthread_mutex_init(&d->lock, NULL);
	d->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	assert_true(d->fd >= 0);
	r->dev = d;
	sem_init(&r->done, 0, 0);
	rec_now = r;
}

static int setup(void **state)
{
	(void)state;
	if (dvp_test_eal_init("--no-huge", "-m", "32", "-l", "0-1", "--vdev", "net_ring0,queues=4",
			      "--vdev", "net_ring1,queues=4") < 0)
		return -1;
	tp_pool_create();
	pa = tp_port("net_ring0");
	pb = tp_port("net_ring1");
	tp_port_setup(pa, 4, NULL);
	tp_port_setup(pb, 4, NULL);
	return 0;
}

static void test_cause_table(void **state)
{
	static const struct {
		enum ibv_event_type t;
		enum ib_async_kind kind;
		enum dvp_port_event_cause cause;
	} table[] = {
		{ IBV_EVENT_PORT_ACTIVE, IB_ASYNC_LINK, DVP_PORT_CAUSE_LINK_UP },
		{ IBV_EVENT_PORT_ERR, IB_ASYNC_LINK, DVP_PORT_CAUSE_LINK_DOWN },
		{ IBV_EVENT_CQ_ERR, IB_ASYNC_QUEUE_ERROR, DVP_PORT_CAUSE_CQ_ERROR },
		{ IBV_EVENT_QP_FATAL, IB_ASYNC_QUEUE_ERROR, DVP_PORT_CAUSE_QP_FATAL },
		{ IBV_EVENT_QP_REQ_ERR, IB_ASYNC_QUEUE_ERROR, DVP_PORT_CAUSE_QP_REQ_ERROR },
		{ IBV_EVENT_QP_ACCESS_ERR, IB_ASYNC_QUEUE_ERROR, DVP_PORT_CAUSE_QP_ACCESS_ERROR },
		{ IBV_EVENT_WQ_FATAL, IB_ASYNC_QUEUE_ERROR, DVP_PORT_CAUSE_WQ_FATAL },
		{ IBV_EVENT_DEVICE_FATAL, IB_ASYNC_REMOVAL, DVP_PORT_CAUSE_DEVICE_FATAL },
	};
	unsigned int i, mapped = 0;
	int t;

	(void)state;
	for (i = 0; i < DVP_DIM(table); i++) {
		assert_int_equal(ib_async_kind_of(table[i].t), table[i].kind);
		assert_int_equal(ib_async_cause_of(table[i].t), table[i].cause);
		assert_non_null(dvp_port_event_cause_name(table[i].cause));
	}
	/* Every other type is informational for an Ethernet port. */
	for (t = IBV_EVENT_CQ_ERR; t <= IBV_EVENT_WQ_FATAL; t++)
		mapped += ib_async_kind_of((enum ibv_event_type)t) != IB_ASYNC_NONE;
	assert_int_equal(mapped, DVP_DIM(table));
	assert_null(dvp_port_event_cause_name(DVP_PORT_CAUSE_NONE));
	assert_string_equal(dvp_port_event_cause_name(DVP_PORT_CAUSE_CQ_ERROR), "CQ_ERROR");
}

/* What a get hook places an event by: its queue's context, or its port. */
static void test_element(void **state)
{
	int cq_owner, qp_owner, wq_owner;
	struct ibv_cq cq = { .cq_context = &cq_owner };
	struct ibv_qp qp = { .qp_context = &qp_owner };
	struct ibv_wq wq = { .wq_context = &wq_owner };
	struct ibv_async_event e = { .event_type = IBV_EVENT_CQ_ERR };
	unsigned int pn = 99;

	(void)state;
	e.element.cq = &cq;
	assert_ptr_equal(ib_async_element(&e, &pn), &cq_owner);
	assert_int_equal(pn, 0);
	e.event_type = IBV_EVENT_QP_FATAL;
	e.element.qp = &qp;
	assert_ptr_equal(ib_async_element(&e, &pn), &qp_owner);
	e.event_type = IBV_EVENT_WQ_FATAL;
	e.element.wq = &wq;
	assert_ptr_equal(ib_async_element(&e, &pn), &wq_owner);
	e.event_type = IBV_EVENT_PORT_ERR;
	e.element.port_num = 2;
	assert_null(ib_async_element(&e, &pn));
	assert_int_equal(pn, 2);
	e.event_type = IBV_EVENT_DEVICE_FATAL;
	assert_null(ib_async_element(&e, &pn));
	assert_int_equal(pn, 0);
}

/* Each type fed by a fake driver, processed directly (as the interrupt thread would). */
static void test_mapping(void **state)
{
	struct ib_async_stats st;
	struct ib_async *src;
	struct fake_dev d;
	struct handler_rec r;
	unsigned int i;

	(void)state;
	fake_init(&d, &r);
	src = ib_async_create("fake", d.fd, &fake_ops, &d);
	assert_non_null(src);
	assert_int_equal(ib_async_add_port(src, pa), 0);
	assert_int_equal(ib_async_add_port(src, pb), 0);
	assert_int_equal(ib_async_add_port(src, pb), -EEXIST);
	assert_int_equal(ib_async_add_port(src, DVP_MAX_PORTS), -EINVAL);

	push(&d, IBV_EVENT_PORT_ACTIVE, pa, -1, false);
	push(&d, IBV_EVENT_PORT_ERR, pb, -1, false);
	push(&d, IBV_EVENT_CQ_ERR, pa, 2, false);
	push(&d, IBV_EVENT_QP_FATAL, pa, 1, true);
	push(&d, IBV_EVENT_QP_REQ_ERR, pb, 0, true);
	push(&d, IBV_EVENT_QP_ACCESS_ERR, pb, 3, false);
	push(&d, IBV_EVENT_WQ_FATAL, pa, 3, false);
	push(&d, IBV_EVENT_COMM_EST, pa, -1, false);
	push(&d, IBV_EVENT_LID_CHANGE, pa, -1, false);
	push(&d, IBV_EVENT_CQ_ERR, pa, -1, false); /* the driver could not place it */
	push(&d, IBV_EVENT_PORT_ACTIVE, 9, -1, false); /* not one of the source's ports */
	push(&d, IBV_EVENT_DEVICE_FATAL, IB_ASYNC_PORT_ALL, -1, false);
	push(&d, IBV_EVENT_DEVICE_FATAL, IB_ASYNC_PORT_ALL, -1, false);
	push(&d, IBV_EVENT_DEVICE_FATAL, pa, -1, false);

	assert_int_equal(ib_async_process(src), 14);
	assert_int_equal(d.acked, 14);
	assert_int_equal(ib_async_process(src), 0);

	/* Two link calls and five queue errors; removals went to lib/port. */
	assert_int_equal(r.n, 7);
	assert_true(r.c[0].link);
	assert_int_equal(r.c[0].port_id, pa);
	assert_int_equal(r.c[0].cause, DVP_PORT_CAUSE_LINK_UP);
	assert_true(r.c[1].link);
	assert_int_equal(r.c[1].port_id, pb);
	assert_int_equal(r.c[1].cause, DVP_PORT_CAUSE_LINK_DOWN);
	assert_false(r.c[2].link);
	assert_int_equal(r.c[2].queue_id, 2);
	assert_false(r.c[2].tx);
	assert_int_equal(r.c[2].cause, DVP_PORT_CAUSE_CQ_ERROR);
	assert_int_equal(r.c[3].queue_id, 1);
	assert_true(r.c[3].tx);
	assert_int_equal(r.c[3].cause, DVP_PORT_CAUSE_QP_FATAL);
	assert_int_equal(r.c[4].port_id, pb);
	assert_int_equal(r.c[4].cause, DVP_PORT_CAUSE_QP_REQ_ERROR);
	assert_int_equal(r.c[5].cause, DVP_PORT_CAUSE_QP_ACCESS_ERROR);
	assert_int_equal(r.c[6].cause, DVP_PORT_CAUSE_WQ_FATAL);
	for (i = 0; i < r.n; i++)
		assert_true(r.acked_before[i]);
	/* DEVICE_FATAL three times (twice device-wide): each port removed, once. */
	assert_true(dvp_port_get(pa)->removed);
	assert_true(dvp_port_get(pb)->removed);

	ib_async_stats_get(src, &st);
	assert_int_equal(st.events, 14);
	assert_int_equal(st.acked, 14);
	assert_int_equal(st.link, 2);
	assert_int_equal(st.queue_error, 5);
	assert_int_equal(st.removal, 2);
	assert_int_equal(st.removal_repeated, 3);
	assert_int_equal(st.ignored, 2);
	assert_int_equal(st.unresolved, 2);

	/* A port removed from the source hears nothing more. */
	assert_int_equal(ib_async_del_port(src, pb), 0);
	assert_int_equal(ib_async_del_port(src, pb), -ENOENT);
	push(&d, IBV_EVENT_PORT_ERR, pb, -1, false);
	assert_int_equal(ib_async_process(src), 1);
	assert_int_equal(r.n, 7);
	ib_async_destroy(src);
	close(d.fd);
	sem_destroy(&r.done);
	/* The ports come back for the next test. */
	assert_int_equal(dvp_port_reset(pa), 0);
	assert_int_equal(dvp_port_reset(pb), 0);
}

/* A read error is reported, not looped on. */
static void test_get_error(void **state)
{
	struct ib_async *src;
	struct dvp_log_capture cap;
	struct fake_dev d;
	struct handler_rec r;

	(void)state;
	fake_init(&d, &r);
	d.get_error = -EIO;
	src = ib_async_create("broken", d.fd, &fake_ops, &d);
	dvp_log_capture_begin(&cap);
	assert_int_equal(ib_async_process(src), -EIO);
	assert_null(ib_async_create("x", d.fd, NULL, &d));
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "broken: reading an async event failed");
	assert_contains(cap.buf, "x: no get hook");
	dvp_log_capture_free(&cap);
	ib_async_destroy(src);
	close(d.fd);
	sem_destroy(&r.done);
}

/* On the EAL interrupt thread; a handler may destroy its own source. */
static void test_on_intr_thread(void **state)
{
	struct ib_async *src;
	struct fake_dev d;
	struct handler_rec r;

	(void)state;
	fake_init(&d, &r);
	src = ib_async_create("fake", d.fd, &fake_ops, &d);
	assert_int_equal(ib_async_add_port(src, pa), 0);
	assert_int_equal(ib_async_start(src), 0);
	assert_int_equal(ib_async_start(src), 0);
	push(&d, IBV_EVENT_PORT_ACTIVE, pa, -1, false);
	assert_int_equal(sem_wait(&r.done), 0);
	assert_true(r.on_intr_thread);
	assert_true(r.c[0].link);

	/* Set before the interrupt thread reads the next event (the eventfd write orders it). */
	__atomic_store_n(&r.destroy_on_link_down, &src, __ATOMIC_RELEASE);
	push(&d, IBV_EVENT_PORT_ERR, IB_ASYNC_PORT_ALL, -1, false);
	push(&d, IBV_EVENT_PORT_ACTIVE, pa, -1, false); /* never read: the source is gone */
	assert_int_equal(sem_wait(&r.done), 0);
	/* The interrupt thread finishes with the source; then nothing more comes. */
	usleep(50000);
	assert_null(__atomic_load_n(&src, __ATOMIC_ACQUIRE));
	assert_int_equal(r.n, 2);
	assert_int_equal(r.c[1].cause, DVP_PORT_CAUSE_LINK_DOWN);
	close(d.fd);
	sem_destroy(&r.done);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cause_table),    cmocka_unit_test(test_element),
		cmocka_unit_test(test_mapping),	       cmocka_unit_test(test_get_error),
		cmocka_unit_test(test_on_intr_thread),
	};

	return cmocka_run_group_tests(tests, setup, tp_teardown);
}
