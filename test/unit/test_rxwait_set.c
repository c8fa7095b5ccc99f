/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * lib/rxwait's wait set over queues made by hand (no port, no EAL): a
 * queue woken by two fds is watched through both and returned once; a
 * timed wait's
 * deadline is on the set's clock; a kick from another thread wakes a
 * waiter asleep on a queue whose arm was lost. The queue protocol alone is
 * test_rxwait_queue.c's, the rules through net_ring test_rxwait.c's.
 */

#include "dvp_test.h"

#include <errno.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <dvp_rxwait_driver.h>

static int fake_arm(void *ctx, bool solicited)
{
	(void)ctx;
	(void)solicited;
	return 0;
}

static bool fake_has_work(void *ctx)
{
	(void)ctx;
	return false;
}

/* A non-blocking eventfd: a queue's event source. */
static int new_eventfd(void)
{
	int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);

	assert_true(fd >= 0);
	return fd;
}

/* Queue @iq (@ops on @ctx, events on @fd) initialised and alone in a new set. */
static struct dvp_rxwait_set *set_of_one(struct dvp_rxwait_queue *iq,
					 const struct dvp_rxwait_queue_ops *ops, void *ctx,
					 struct dvp_rxwait_queue_conf *conf, int fd)
{
	struct dvp_rxwait_set *set;

	conf->fd = fd;
	assert_int_equal(dvp_rxwait_queue_init(iq, ops, ctx, conf), 0);
	set = dvp_rxwait_set_create(1);
	assert_non_null(set);
	assert_int_equal(dvp_rxwait_set_add(set, iq, ctx), 0);
	return set;
}

/* A queue woken by two fds (net_verbs: its channel and its kick eventfd). */
struct two_fd_queue {
	int fd[2];
	int consumes;
	int work;
};

static int two_fd_consume(void *ctx)
{
	struct two_fd_queue *q = ctx;
	eventfd_t v;
	int i, n = 0;

	q->consumes++;
	for (i = 0; i < 2; i++)
		if (eventfd_read(q->fd[i], &v) == 0)
			n++;
	q->work += n;
	return n;
}

static bool two_fd_has_work(void *ctx)
{
	return ((struct two_fd_queue *)ctx)->work > 0;
}

/*
 * The wait set watches every fd of a queue directly and returns the queue
 * once however many of its fds fired; dvp_rx_intr_fd()'s single fd (an
 * epoll fd over both) is readable when either is; fini takes both out.
 */
static void test_extra_fds(void **state)
{
	const struct dvp_rxwait_queue_ops ops = { fake_arm, two_fd_consume, NULL, two_fd_has_work,
						  0 };
	struct dvp_rxwait_queue_conf conf = { .port_id = 7, .queue_id = 4, .nb_extra_fds = 1 };
	struct two_fd_queue q = { .fd = { -1, -1 } };
	struct dvp_rx_wait_event ready[4];
	struct dvp_log_capture cap;
	struct epoll_event ev;
	struct dvp_rxwait_set *set;
	struct dvp_rxwait_queue iq;
	int blocking;

	(void)state;
	q.fd[0] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	q.fd[1] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	blocking = eventfd(0, EFD_CLOEXEC);
	assert_true(q.fd[0] >= 0 && q.fd[1] >= 0 && blocking >= 0);
	conf.fd = q.fd[0];

	dvp_log_capture_begin(&cap);
	conf.extra_fds[0] = blocking;
	assert_int_equal(dvp_rxwait_queue_init(&iq, &ops, &q, &conf), -EINVAL);
	conf.extra_fds[0] = q.fd[1];
	conf.nb_extra_fds = DVP_RXWAIT_QUEUE_EXTRA_FDS_MAX + 1;
	assert_int_equal(dvp_rxwait_queue_init(&iq, &ops, &q, &conf), -EINVAL);
	conf.nb_extra_fds = 1;
	conf.extra_fds[0] = q.fd[0];
	assert_int_equal(dvp_rxwait_queue_init(&iq, &ops, &q, &conf), -EEXIST);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "port 7 rx queue 4: extra event fd");
	assert_contains(cap.buf, "is blocking");
	assert_contains(cap.buf, "extra event fds; at most 2 are allowed");
	assert_contains(cap.buf, "an extra fd repeats one of the queue's");
	dvp_log_capture_free(&cap);

	conf.extra_fds[0] = q.fd[1];
	assert_int_equal(dvp_rxwait_queue_init(&iq, &ops, &q, &conf), 0);
	assert_true(iq.fd != q.fd[0] && iq.fd != q.fd[1]);
	set = dvp_rxwait_set_create(1);
	assert_non_null(set);
	assert_int_equal(dvp_rxwait_set_add(set, &iq, &q), 0);

	/* Each fd alone wakes the waiter, and the application's fd. */
	assert_int_equal(epoll_wait(iq.fd, &ev, 1, 0), 0);
	assert_int_equal(eventfd_write(q.fd[1], 1), 0);
	assert_int_equal(epoll_wait(iq.fd, &ev, 1, 0), 1);
	assert_int_equal(dvp_rx_wait(set, ready, 4, 5000), 1);
	assert_ptr_equal(ready[0].data, &q);
	assert_int_equal(ready[0].queue_id, 4);
	assert_int_equal(q.consumes, 1);
	q.work = 0;
	assert_int_equal(eventfd_write(q.fd[0], 1), 0);
	assert_int_equal(dvp_rx_wait(set, ready, 4, 5000), 1);
	assert_int_equal(q.consumes, 2);
	q.work = 0;

	/* Both fired: the queue is read once and returned once. */
	assert_int_equal(eventfd_write(q.fd[0], 1), 0);
	assert_int_equal(eventfd_write(q.fd[1], 1), 0);
	assert_int_equal(dvp_rx_wait(set, ready, 4, 5000), 1);
	assert_int_equal(q.consumes, 3);
	assert_int_equal(q.work, 2);
	q.work = 0;

	/* Out of the set, neither fd wakes it; the 4 events read are acked. */
	assert_int_equal(dvp_rxwait_queue_fini(&iq), 4);
	assert_int_equal(dvp_rxwait_set_count(set), 0);
	assert_int_equal(eventfd_write(q.fd[0], 1), 0);
	assert_int_equal(eventfd_write(q.fd[1], 1), 0);
	assert_int_equal(dvp_rx_wait(set, ready, 4, 20), 0);
	assert_int_equal(dvp_rxwait_set_free(set), 0);
	close(blocking);
	close(q.fd[0]);
	close(q.fd[1]);
}

/* A clock that jumps 10 s at every reading. */
static uint64_t jumping_clock(void *arg)
{
	uint64_t *t = arg;

	*t += 10000000000u;
	return *t;
}

/*
 * A timed wait's deadline is on the set's clock, not CLOCK_MONOTONIC: after
 * a spurious event, the set's clock says the time is up, so the wait
 * returns instead of sleeping out the rest of the 5 s.
 */
static void test_timeout_on_set_clock(void **state)
{
	const struct dvp_rxwait_queue_ops ops = { fake_arm, two_fd_consume, NULL, fake_has_work,
						  0 };
	struct dvp_rxwait_queue_conf conf = { .port_id = 7, .queue_id = 5 };
	struct two_fd_queue q = { .fd = { -1, -1 } };
	struct dvp_rxwait_queue_stats st;
	struct dvp_rx_wait_event ready[1];
	struct dvp_rxwait_queue iq;
	struct dvp_rxwait_set *set;
	struct timespec a, b;
	uint64_t t = 0;
	double s;

	(void)state;
	q.fd[0] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	q.fd[1] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	assert_true(q.fd[0] >= 0 && q.fd[1] >= 0);
	conf.fd = q.fd[0];
	assert_int_equal(dvp_rxwait_queue_init(&iq, &ops, &q, &conf), 0);
	set = dvp_rxwait_set_create(1);
	assert_non_null(set);
	dvp_rxwait_set_clock(set, jumping_clock, &t);
	assert_int_equal(dvp_rxwait_set_add(set, &iq, NULL), 0);

	assert_int_equal(eventfd_write(q.fd[0], 1), 0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	assert_int_equal(dvp_rx_wait(set, ready, 1, 5000), 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	assert_true(s < 2.5);
	dvp_rxwait_queue_stats_get(&iq, &st);
	assert_int_equal(st.spurious, 1);
	assert_int_equal(st.sleeps, 1);
	assert_true(t >= 20000000000u);

	dvp_rxwait_queue_fini(&iq);
	assert_int_equal(dvp_rxwait_set_free(set), 0);
	close(q.fd[0]);
	close(q.fd[1]);
}

/* A source whose arm is lost when its ring is replaced (memif at reconnect). */
struct ring_queue {
	int fd; /* never written: the old ring's events are gone */
	int arms;
	int work; /* atomic: set by the thread that replaces the ring */
};

static int ring_arm(void *ctx, bool solicited)
{
	(void)solicited;
	((struct ring_queue *)ctx)->arms++;
	return 0;
}

static int ring_consume(void *ctx)
{
	(void)ctx;
	return 0;
}

static bool ring_has_work(void *ctx)
{
	return __atomic_load_n(&((struct ring_queue *)ctx)->work, __ATOMIC_RELAXED) > 0;
}

struct kicker {
	struct ring_queue *q;
	struct dvp_rxwait_queue *iq;
};

static void *kick_thread(void *arg)
{
	struct kicker *k = arg;

	usleep(30000); /* the waiter sleeps on the armed queue by now, or soon */
	__atomic_store_n(&k->q->work, 1, __ATOMIC_RELAXED);
	assert_int_equal(dvp_rxwait_queue_kick(k->iq), 0);
	return NULL;
}

/*
 * dvp_rxwait_queue_kick(): a queue armed and asleep gets work that no event
 * reports (its ring was replaced); the kick from another thread wakes the
 * waiter, which polls and returns the queue. A kick with nothing behind it
 * makes the next arm call the driver's hook again although lib/rxwait
 * thought the queue armed, is neither an event nor spurious, and makes the
 * application's fd readable too.
 */
static void test_queue_kick(void **state)
{
	const struct dvp_rxwait_queue_ops ops = { ring_arm, ring_consume, NULL, ring_has_work, 0 };
	struct dvp_rxwait_queue_conf conf = { .port_id = 7, .queue_id = 5 };
	struct ring_queue q = { .fd = -1 };
	struct dvp_rx_wait_event ready[1];
	struct dvp_rxwait_queue_stats st;
	struct dvp_log_capture cap;
	struct dvp_rxwait_queue iq;
	struct dvp_rxwait_set *set;
	struct kicker k = { .q = &q, .iq = &iq };
	struct epoll_event ev;
	pthread_t t;

	(void)state;
	q.fd = new_eventfd();
	set = set_of_one(&iq, &ops, &q, &conf, q.fd);

	/* Armed once; the wait that follows does not arm again. */
	assert_int_equal(dvp_rx_wait(set, ready, 1, 0), 0);
	assert_int_equal(q.arms, 1);
	assert_int_equal(pthread_create(&t, NULL, kick_thread, &k), 0);
	assert_int_equal(dvp_rx_wait(set, ready, 1, 10000), 1);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_ptr_equal(ready[0].data, &q);
	assert_int_equal(ready[0].queue_id, 5);
	q.work = 0;

	/* The kick was taken: the next arm is the driver's again. */
	assert_int_equal(dvp_rxwait_queue_arm(&iq), 0);
	assert_int_equal(q.arms, 2);
	assert_int_equal(dvp_rxwait_queue_arm(&iq), 0);
	assert_int_equal(q.arms, 2);

	/* A kick with nothing behind it: re-armed, slept on, not spurious. */
	assert_int_equal(dvp_rxwait_queue_kick(&iq), 0);
	assert_int_equal(epoll_wait(iq.fd, &ev, 1, 0), 1);
	assert_int_equal(dvp_rx_wait(set, ready, 1, 20), 0);
	assert_int_equal(q.arms, 3);
	assert_int_equal(epoll_wait(iq.fd, &ev, 1, 0), 0);
	dvp_rxwait_queue_stats_get(&iq, &st);
	assert_int_equal(st.events, 0);
	assert_int_equal(st.spurious, 0);

	assert_int_equal(dvp_rxwait_queue_fini(&iq), 0);
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_rxwait_queue_kick(&iq), -EINVAL);
	assert_int_equal(dvp_rxwait_queue_kick(NULL), -EINVAL);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "queue kick: the queue has no interrupt state");
	dvp_log_capture_free(&cap);
	assert_int_equal(dvp_rxwait_set_free(set), 0);
	close(q.fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_extra_fds),
		cmocka_unit_test(test_timeout_on_set_clock),
		cmocka_unit_test(test_queue_kick),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
