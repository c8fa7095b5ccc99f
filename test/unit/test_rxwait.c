/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * lib/rxwait's completion-event rules, each against net_ring (whose eventfd
 * is written by the producer only when the consumer armed): one event per
 * arm; an event that lands between the arm and the final poll is not
 * slept through; spurious events are counted and harmless; acks are
 * counted and batched, and flushed when a queue is released even with
 * events pending; kick wakes a waiter; a queue kicked by its driver wakes
 * its waiter and is armed again; a queue leaves a set while its
 * waiter sleeps; 64 queues in one set; a queue woken by two fds is watched
 * directly and returned once; a timeout runs on the set's clock; a
 * one-shot source's event is read at the next arm; and every wrong use is
 * an error.
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

/* ------------------------------------------------------------------------ */

static int fake_arm(void *ctx, bool solicited)
{
	(void)ctx;
	(void)solicited;
	return 0;
}

static int fake_consume(void *ctx)
{
	(void)ctx;
	return 0;
}

static bool fake_has_work(void *ctx)
{
	(void)ctx;
	return false;
}

static void test_queue_init_checks(void **state)
{
	const struct dvp_rxwait_queue_ops ops = { fake_arm, fake_consume, NULL, fake_has_work, 0 };
	const struct dvp_rxwait_queue_ops no_work = { fake_arm, fake_consume, NULL, NULL, 0 };
	struct dvp_rxwait_queue_conf conf = { .port_id = 7, .queue_id = 3 };
	struct dvp_log_capture cap;
	struct dvp_rxwait_queue iq;
	int blocking, nb;

	(void)state;
	blocking = eventfd(0, EFD_CLOEXEC);
	nb = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	assert_true(blocking >= 0 && nb >= 0);

	dvp_log_capture_begin(&cap);
	conf.fd = blocking;
	assert_int_equal(dvp_rxwait_queue_init(&iq, &ops, NULL, &conf), -EINVAL);
	conf.fd = -1;
	assert_int_equal(dvp_rxwait_queue_init(&iq, &ops, NULL, &conf), -EINVAL);
	conf.fd = nb;
	assert_int_equal(dvp_rxwait_queue_init(&iq, &no_work, NULL, &conf), -EINVAL);
	conf.solicited = true;
	assert_int_equal(dvp_rxwait_queue_init(&iq, &ops, NULL, &conf), -ENOTSUP);
	assert_int_equal(dvp_errno, ENOTSUP);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "port 7 rx queue 3: event fd");
	assert_contains(cap.buf, "is blocking");
	assert_contains(cap.buf, "is not an open file descriptor");
	assert_contains(cap.buf, "no has_work hook");
	assert_contains(cap.buf, "solicited");
	dvp_log_capture_free(&cap);

	conf.solicited = false;
	assert_int_equal(dvp_rxwait_queue_init(&iq, &ops, NULL, &conf), 0);
	assert_true(dvp_rxwait_queue_active(&iq));
	assert_int_equal(dvp_rxwait_queue_fini(&iq), 0);
	assert_false(dvp_rxwait_queue_active(&iq));
	/* Twice is fine, so is a zeroed one. */
	assert_int_equal(dvp_rxwait_queue_fini(&iq), 0);
	memset(&iq, 0, sizeof(iq));
	assert_int_equal(dvp_rxwait_queue_fini(&iq), 0);
	close(blocking);
	close(nb);
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

/* A CQ-like source: one event per arm, and a trace of the hooks' order. */
struct oneshot_queue {
	int fd;
	bool armed;
	int work;
	int hide; /* polls that see no work: the completion comes while asleep */
	char trace[32];
};

static void oneshot_trace(struct oneshot_queue *q, char c)
{
	size_t n = strlen(q->trace);

	if (n + 1 < sizeof(q->trace))
		q->trace[n] = c;
}

static int oneshot_arm(void *ctx, bool solicited)
{
	struct oneshot_queue *q = ctx;

	(void)solicited;
	q->armed = true;
	oneshot_trace(q, 'a');
	return 0;
}

static int oneshot_consume(void *ctx)
{
	struct oneshot_queue *q = ctx;
	eventfd_t v;

	oneshot_trace(q, 'c');
	return eventfd_read(q->fd, &v) == 0 ? (int)v : 0;
}

static bool oneshot_has_work(void *ctx)
{
	struct oneshot_queue *q = ctx;

	oneshot_trace(q, 'w');
	if (q->hide > 0) {
		q->hide--;
		return false;
	}
	return q->work > 0;
}

static bool fd_readable(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) == 1;
}

/* A completion on an armed queue: the source disarms and signals once. */
static void oneshot_complete(struct oneshot_queue *q)
{
	q->work++;
	if (q->armed) {
		q->armed = false;
		assert_int_equal(eventfd_write(q->fd, 1), 0);
	}
}

/*
 * DVP_RXWAIT_QUEUE_F_ONESHOT: a wait woken with work behind the event
 * returns before reading it (no "c": the event is still in the fd); the next
 * arm reads it first ("c" before "a"), so it is counted and acked all the
 * same. An event with nothing behind it is read at once and is spurious.
 */
static void test_oneshot_event_read_at_next_arm(void **state)
{
	const struct dvp_rxwait_queue_ops ops = { oneshot_arm, oneshot_consume, NULL,
						  oneshot_has_work, DVP_RXWAIT_QUEUE_F_ONESHOT };
	struct dvp_rxwait_queue_conf conf = { .port_id = 3, .queue_id = 1, .ack_batch = 1 };
	struct oneshot_queue q = { .fd = -1 };
	struct dvp_rxwait_queue_stats st;
	struct dvp_rx_wait_event ready[2];
	struct dvp_rxwait_set *set;
	struct dvp_rxwait_queue iq;

	(void)state;
	q.fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	assert_true(q.fd >= 0);
	conf.fd = q.fd;
	assert_int_equal(dvp_rxwait_queue_init(&iq, &ops, &q, &conf), 0);
	set = dvp_rxwait_set_create(1);
	assert_non_null(set);
	assert_int_equal(dvp_rxwait_set_add(set, &iq, &q), 0);

	/* Armed, polled, and nothing: the wait times out. */
	assert_int_equal(dvp_rx_wait(set, ready, 2, 0), 0);
	assert_string_equal(q.trace, "aw");
	oneshot_complete(&q);
	q.hide = 1;
	memset(q.trace, 0, sizeof(q.trace));
	assert_int_equal(dvp_rx_wait(set, ready, 2, 5000), 1);
	assert_int_equal(ready[0].queue_id, 1);
	assert_string_equal(q.trace, "ww"); /* the final poll, the poll on waking */
	assert_true(fd_readable(q.fd)); /* the event is still in the fd */
	dvp_rxwait_queue_stats_get(&iq, &st);
	assert_int_equal(st.wakeups, 1);
	assert_int_equal(st.events, 0);

	/* The lcore took the work; the next wait reads the event, then arms. */
	q.work = 0;
	memset(q.trace, 0, sizeof(q.trace));
	assert_int_equal(dvp_rx_wait(set, ready, 2, 0), 0);
	assert_string_equal(q.trace, "caw");
	assert_false(fd_readable(q.fd));
	dvp_rxwait_queue_stats_get(&iq, &st);
	assert_int_equal(st.events, 1);
	assert_int_equal(st.acks, 1);
	assert_int_equal(st.arms, 2);

	/* An event whose work is gone: read at once, spurious, armed again. */
	oneshot_complete(&q);
	q.work = 0;
	memset(q.trace, 0, sizeof(q.trace));
	assert_int_equal(dvp_rx_wait(set, ready, 2, 20), 0);
	/* The final poll, the poll on waking, the read (then the arm, unless
	 * the 20 ms were up). */
	assert_int_equal(strncmp(q.trace, "wwc", 3), 0);
	dvp_rxwait_queue_stats_get(&iq, &st);
	assert_int_equal(st.spurious, 1);
	assert_int_equal(st.events, 2);

	/* Left unread at release: fini reads and acks it. */
	assert_int_equal(dvp_rx_wait(set, ready, 2, 0), 0);
	oneshot_complete(&q);
	q.hide = 1;
	assert_int_equal(dvp_rx_wait(set, ready, 2, 5000), 1);
	assert_int_equal(dvp_rxwait_queue_fini(&iq), 1);
	dvp_rxwait_queue_stats_get(&iq, &st);
	assert_int_equal(st.events, 3);
	assert_int_equal(st.acks, 3);
	assert_int_equal(dvp_rxwait_set_free(set), 0);
	close(q.fd);
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
	const struct dvp_rxwait_queue_ops ops = { ring_arm, fake_consume, NULL, ring_has_work, 0 };
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
	q.fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	assert_true(q.fd >= 0);
	conf.fd = q.fd;
	assert_int_equal(dvp_rxwait_queue_init(&iq, &ops, &q, &conf), 0);
	set = dvp_rxwait_set_create(1);
	assert_non_null(set);
	assert_int_equal(dvp_rxwait_set_add(set, &iq, &q), 0);

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
		cmocka_unit_test(test_queue_init_checks),
		cmocka_unit_test(test_extra_fds),
		cmocka_unit_test(test_timeout_on_set_clock),
		cmocka_unit_test(test_oneshot_event_read_at_next_arm),
		cmocka_unit_test_setup(test_arm_one_shot, stop_p0),
		cmocka_unit_test_setup(test_event_between_arm_and_final_poll, stop_p0),
		cmocka_unit_test_setup(test_spurious_event, stop_p0),
		cmocka_unit_test_setup(test_wakeup_from_producer, stop_p0),
		cmocka_unit_test_setup(test_acks_batched, stop_p0),
		cmocka_unit_test_setup(test_release_with_pending_events, stop_p0),
		cmocka_unit_test_setup(test_kick, stop_p0),
		cmocka_unit_test(test_queue_kick),
		cmocka_unit_test_setup(test_remove_while_waiting, stop_p0),
		cmocka_unit_test(test_64_queues),
		cmocka_unit_test_setup(test_wrong_use, stop_p0),
	};

	return cmocka_run_group_tests(tests, setup, tp_teardown);
}
