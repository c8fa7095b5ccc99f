/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * lib/rxwait's rx-queue protocol against a mock driver: what init refuses,
 * and the queue-ops table of dvp_rxwait_driver.h implemented over an
 * eventfd that models a CQ (an arm makes the next completion raise one
 * event, and nothing more until the next arm). Every hook call goes into a trace, so each test states the
 * order lib/rxwait must keep: the arm comes before the final poll, one event
 * per arm, acks go in batches and are flushed before the CQ goes, a kick
 * forgets an arm. The same rules run through real drivers in test_rxwait.c
 * (net_ring) and test_mlx5_intr.c (mlx5 on the sim); here nothing but
 * lib/rxwait decides the order.
 */

#include "dvp_test.h"

#include <errno.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <dvp_errno.h>
#include <dvp_rxwait_driver.h>

/* What the mock's hooks were called with, in order. */
enum mock_call { MOCK_ARM = 'A', MOCK_CONSUME = 'C', MOCK_ACK = 'K', MOCK_POLL = 'P' };

struct mock_q {
	int fd; /* the event fd: one count per event raised */
	bool hw_armed; /* the device raises an event at its next completion */
	unsigned int work; /* completions not taken by a burst yet */
	unsigned int events_unacked; /* events read and not acked */
	unsigned int acked;
	bool cq_destroyed;
	int arm_ret; /* what the arm hook returns (a negative errno: failure) */
	unsigned int complete_on_arm; /* completions landing right after an arm */
	unsigned int complete_after_poll; /* ... right after a poll that found nothing */
	char trace[256];
	size_t ntrace;
	struct dvp_rxwait_queue iq;
};

static void trace(struct mock_q *q, enum mock_call c)
{
	if (q->ntrace + 1 < sizeof(q->trace))
		q->trace[q->ntrace++] = (char)c;
	q->trace[q->ntrace] = '\0';
}

static void trace_clear(struct mock_q *q)
{
	q->ntrace = 0;
	q->trace[0] = '\0';
}

/* The device completes @p n receives: one event if armed, then disarmed. */
static void mock_complete(struct mock_q *q, unsigned int n)
{
	q->work += n;
	if (q->hw_armed) {
		q->hw_armed = false;
		assert_int_equal(eventfd_write(q->fd, 1), 0);
	}
}

static int mock_arm(void *ctx, bool solicited)
{
	struct mock_q *q = ctx;

	(void)solicited;
	assert_false(q->cq_destroyed);
	trace(q, MOCK_ARM);
	if (q->arm_ret < 0)
		return q->arm_ret;
	q->hw_armed = true;
	if (q->complete_on_arm > 0)
		mock_complete(q, q->complete_on_arm);
	return 0;
}

static int mock_consume(void *ctx)
{
	struct mock_q *q = ctx;
	eventfd_t v;

	trace(q, MOCK_CONSUME);
	if (eventfd_read(q->fd, &v) != 0)
		return errno == EAGAIN ? 0 : -errno;
	q->events_unacked += (unsigned int)v;
	return (int)v;
}

static void mock_ack(void *ctx, unsigned int n)
{
	struct mock_q *q = ctx;

	assert_false(q->cq_destroyed);
	trace(q, MOCK_ACK);
	assert_true(n <= q->events_unacked);
	q->events_unacked -= n;
	q->acked += n;
}

static bool mock_has_work(void *ctx)
{
	struct mock_q *q = ctx;

	bool work = q->work > 0;

	trace(q, MOCK_POLL);
	if (!work && q->complete_after_poll > 0) {
		mock_complete(q, q->complete_after_poll);
		q->complete_after_poll = 0;
	}
	return work;
}

static const struct dvp_rxwait_queue_ops mock_ops = {
	.arm = mock_arm,
	.consume = mock_consume,
	.ack = mock_ack,
	.has_work = mock_has_work,
	.flags = DVP_RXWAIT_QUEUE_F_ONESHOT,
};

/* The same source without the one-shot flag: its event is read on waking. */
static const struct dvp_rxwait_queue_ops mock_ops_level = {
	.arm = mock_arm,
	.consume = mock_consume,
	.ack = mock_ack,
	.has_work = mock_has_work,
};

static void mock_open(struct mock_q *q, const struct dvp_rxwait_queue_ops *ops, uint32_t ack_batch)
{
	struct dvp_rxwait_queue_conf conf = { .ack_batch = ack_batch, .port_id = 1, .queue_id = 2 };

	memset(q, 0, sizeof(*q));
	q->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	assert_true(q->fd >= 0);
	conf.fd = q->fd;
	assert_int_equal(dvp_rxwait_queue_init(&q->iq, ops, q, &conf), 0);
}

/* What a driver's queue release does: fini, then the CQ goes. */
static void mock_close(struct mock_q *q)
{
	dvp_rxwait_queue_fini(&q->iq);
	assert_int_equal(q->events_unacked, 0);
	q->cq_destroyed = true;
	close(q->fd);
}

static struct dvp_rxwait_queue_stats mock_stats(struct mock_q *q)
{
	struct dvp_rxwait_queue_stats st;

	dvp_rxwait_queue_stats_get(&q->iq, &st);
	return st;
}

static struct dvp_rxwait_set *set_of(struct mock_q *q)
{
	struct dvp_rxwait_set *set = dvp_rxwait_set_create(4);

	assert_non_null(set);
	assert_int_equal(dvp_rxwait_set_add(set, &q->iq, q), 0);
	return set;
}

/* ------------------------------------------------------------------------ */

/*
 * One wait with a 10 s timeout on a fresh queue: @p before completions land
 * before the arm, @p on_arm right after it. Without the poll that follows
 * the arm, neither is found: the first raises no event at all.
 */
static void wait_once(unsigned int before, unsigned int on_arm, int expect)
{
	struct dvp_rx_wait_event ev;
	struct dvp_rxwait_set *set;
	struct mock_q q;

	mock_open(&q, &mock_ops, 0);
	set = set_of(&q);
	mock_complete(&q, before);
	q.complete_on_arm = on_arm;
	assert_int_equal(dvp_rx_wait(set, &ev, 1, expect ? 10000 : 0), expect);
	assert_string_equal(q.trace, "AP");
	assert_int_equal(mock_stats(&q).sleeps, 0);
	if (expect) {
		assert_ptr_equal(ev.data, &q);
		assert_int_equal(ev.port_id, 1);
		assert_int_equal(ev.queue_id, 2);
	}
	assert_int_equal(dvp_rxwait_set_free(set), 0);
	mock_close(&q);
}

/* A wait arms, then polls once more before it sleeps. */
static void test_arm_before_final_poll(void **state)
{
	(void)state;
	wait_once(0, 0, 0);
	wait_once(1, 0, 1);
	wait_once(0, 1, 1);
}

/* A queue is armed once per event read, however often it is asked. */
static void test_one_event_per_arm(void **state)
{
	struct dvp_rxwait_queue_stats st;
	struct mock_q q;

	(void)state;
	mock_open(&q, &mock_ops, 0);
	assert_int_equal(dvp_rxwait_queue_arm(&q.iq), 0);
	assert_int_equal(dvp_rxwait_queue_arm(&q.iq), 0);
	assert_int_equal(dvp_rxwait_queue_arm(&q.iq), 0);
	assert_string_equal(q.trace, "A");

	/* Reading nothing keeps the arm; reading its event ends it. */
	assert_int_equal(dvp_rxwait_queue_consume(&q.iq), 0);
	assert_int_equal(dvp_rxwait_queue_arm(&q.iq), 0);
	assert_string_equal(q.trace, "AC");
	mock_complete(&q, 3);
	mock_complete(&q, 1); /* disarmed: no second event */
	assert_int_equal(dvp_rxwait_queue_consume(&q.iq), 1);
	assert_int_equal(dvp_rxwait_queue_arm(&q.iq), 0);
	assert_string_equal(q.trace, "ACCA");

	st = mock_stats(&q);
	assert_int_equal(st.arms, 2);
	assert_int_equal(st.events, 1);
	mock_close(&q);
}

/*
 * A one-shot queue returned by a wait keeps its event in the fd: the next
 * arm reads it first, then arms. A level source's event is read on waking.
 * The completion lands right after the final poll, so the wait sleeps and
 * the event wakes it.
 */
static void wake_by_completion(const struct dvp_rxwait_queue_ops *ops, const char *wait_trace,
			       const char *rearm_trace)
{
	struct dvp_rx_wait_event ev;
	struct dvp_rxwait_set *set;
	struct mock_q q;

	mock_open(&q, ops, 0);
	set = set_of(&q);
	q.complete_after_poll = 1;
	assert_int_equal(dvp_rx_wait(set, &ev, 1, -1), 1);
	assert_ptr_equal(ev.data, &q);
	assert_string_equal(q.trace, wait_trace);
	assert_int_equal(mock_stats(&q).wakeups, 1);

	/* The burst takes the work; the next wait arms again. */
	q.work = 0;
	trace_clear(&q);
	assert_int_equal(dvp_rx_wait(set, &ev, 1, 0), 0);
	assert_string_equal(q.trace, rearm_trace);
	assert_int_equal(mock_stats(&q).events, 1);
	assert_int_equal(mock_stats(&q).arms, 2);

	assert_int_equal(dvp_rxwait_set_free(set), 0);
	mock_close(&q);
}

static void test_wake_oneshot_event_read_at_next_arm(void **state)
{
	(void)state;
	/* Arm, poll (empty), sleep, woken: poll without reading. */
	wake_by_completion(&mock_ops, "APP", "CAP");
}

static void test_wake_level_event_read_on_waking(void **state)
{
	(void)state;
	wake_by_completion(&mock_ops_level, "APCP", "AP");
}

/*
 * An event with no work behind it is spurious: read at once, even on a
 * one-shot queue (nothing will take it at a next arm that comes after a
 * burst), then armed again; the wait sleeps on.
 */
static void spurious_event(const struct dvp_rxwait_queue_ops *ops, const char *woken_trace)
{
	struct dvp_rx_wait_event ev;
	struct dvp_rxwait_set *set;
	struct mock_q q;

	mock_open(&q, ops, 0);
	set = set_of(&q);
	assert_int_equal(dvp_rxwait_queue_arm(&q.iq), 0);
	assert_int_equal(eventfd_write(q.fd, 1), 0); /* an event, no completion */
	trace_clear(&q);
	assert_int_equal(dvp_rx_wait(set, &ev, 1, 1), 0);
	/* The final poll, then woken: the poll and the read in the source's
	 * order; then, unless the 1 ms was up, the arm and the final poll. */
	assert_int_equal(strncmp(q.trace, woken_trace, strlen(woken_trace)), 0);
	assert_int_equal(mock_stats(&q).spurious, 1);
	assert_int_equal(mock_stats(&q).wakeups, 0);
	assert_int_equal(mock_stats(&q).events, 1);
	assert_int_equal(dvp_rxwait_set_free(set), 0);
	mock_close(&q);
}

static void test_spurious_event(void **state)
{
	(void)state;
	spurious_event(&mock_ops, "PPC"); /* one-shot: the poll decides the read */
	spurious_event(&mock_ops_level, "PCP");
}

/* Acks go to the driver in batches; fini flushes the rest before the CQ goes. */
static void test_acks_batched_and_flushed(void **state)
{
	struct dvp_rxwait_queue_stats st;
	struct mock_q q;
	int i;

	(void)state;
	mock_open(&q, &mock_ops, 4);
	for (i = 0; i < 10; i++) {
		assert_int_equal(dvp_rxwait_queue_arm(&q.iq), 0);
		mock_complete(&q, 1);
		assert_int_equal(dvp_rxwait_queue_consume(&q.iq), 1);
	}
	assert_int_equal(q.acked, 8);
	assert_int_equal(q.events_unacked, 2);
	st = mock_stats(&q);
	assert_int_equal(st.events, 10);
	assert_int_equal(st.acks, 8);
	assert_int_equal(st.ack_calls, 2);

	/* One more event in the fd, never read: fini reads it and acks all three. */
	assert_int_equal(dvp_rxwait_queue_arm(&q.iq), 0);
	mock_complete(&q, 1);
	trace_clear(&q);
	assert_int_equal(dvp_rxwait_queue_fini(&q.iq), 3);
	assert_string_equal(q.trace, "CK");
	assert_int_equal(q.acked, 11);
	mock_close(&q); /* asserts nothing is left unacked when the CQ goes */
}

/* dvp_rxwait_queue_ack_flush() acks what is pending, in one call. */
static void test_ack_flush(void **state)
{
	struct mock_q q;

	(void)state;
	mock_open(&q, &mock_ops, 64);
	assert_int_equal(dvp_rxwait_queue_arm(&q.iq), 0);
	mock_complete(&q, 1);
	assert_int_equal(dvp_rxwait_queue_consume(&q.iq), 1);
	assert_int_equal(q.acked, 0);
	assert_int_equal(dvp_rxwait_queue_ack_flush(&q.iq), 1);
	assert_int_equal(dvp_rxwait_queue_ack_flush(&q.iq), 0);
	assert_int_equal(q.acked, 1);
	mock_close(&q);
}

/* A kick forgets the arm lib/rxwait remembers: the next arm reaches the driver. */
static void test_kick_forgets_arm(void **state)
{
	struct mock_q q;

	(void)state;
	mock_open(&q, &mock_ops, 0);
	assert_int_equal(dvp_rxwait_queue_arm(&q.iq), 0);
	assert_int_equal(dvp_rxwait_queue_kick(&q.iq), 0);
	assert_int_equal(dvp_rxwait_queue_arm(&q.iq), 0);
	assert_string_equal(q.trace, "ACA");
	assert_int_equal(mock_stats(&q).arms, 2);
	assert_int_equal(mock_stats(&q).events, 0); /* a kick is no event */
	mock_close(&q);
}

/* A failing hook ends the wait with its error and a log line naming it. */
static void test_arm_failure(void **state)
{
	struct dvp_log_capture cap;
	struct dvp_rx_wait_event ev;
	struct dvp_rxwait_set *set;
	struct mock_q q;

	(void)state;
	mock_open(&q, &mock_ops, 0);
	set = set_of(&q);
	q.arm_ret = -EIO;
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_rx_wait(set, &ev, 1, -1), -EIO);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "port 1 rx queue 2: the driver's arm failed");
	dvp_log_capture_free(&cap);
	assert_int_equal(mock_stats(&q).arms, 0);
	q.arm_ret = 0;
	assert_int_equal(dvp_rxwait_set_free(set), 0);
	mock_close(&q);
}

/* The governor: polls, pauses, then arms through the ops and sleeps. */
static uint64_t fake_now;

static uint64_t fake_clock(void *arg)
{
	(void)arg;
	return fake_now;
}

static void fake_pause(void *arg, uint64_t ns)
{
	(void)arg;
	fake_now += ns;
}

static void test_governor_arms_through_ops(void **state)
{
	struct dvp_rxwait_governor_conf conf;
	struct dvp_rxwait_governor_stats gs;
	struct dvp_rxwait_governor *gov;
	struct dvp_rxwait_set *set;
	struct mock_q q;
	int i;

	(void)state;
	mock_open(&q, &mock_ops, 0);
	set = set_of(&q);
	dvp_rxwait_governor_conf_default(&conf);
	conf.pause_after = 2;
	conf.sleep_after = 3;
	conf.sleep_timeout_ms = 0;
	conf.clock = fake_clock;
	conf.pause = fake_pause;
	gov = dvp_rxwait_governor_create(set, &conf);
	assert_non_null(gov);

	for (i = 0; i < 2; i++) {
		dvp_rxwait_governor_account(gov, &q.iq, 0);
		assert_int_equal(dvp_rxwait_governor_idle(gov), DVP_GOV_POLL);
	}
	for (i = 0; i < 3; i++) {
		dvp_rxwait_governor_account(gov, &q.iq, 0);
		assert_int_equal(dvp_rxwait_governor_idle(gov), DVP_GOV_PAUSE);
	}
	assert_string_equal(q.trace, ""); /* no hook while polling or pausing */
	dvp_rxwait_governor_account(gov, &q.iq, 0);
	assert_int_equal(dvp_rxwait_governor_idle(gov), DVP_GOV_SLEEP);
	assert_string_equal(q.trace, "AP");

	/* Work found after arming: the sleep is avoided, back to polling. */
	mock_complete(&q, 1);
	dvp_rxwait_governor_account(gov, &q.iq, 0);
	assert_int_equal(dvp_rxwait_governor_idle(gov), DVP_GOV_SLEEP);
	dvp_rxwait_governor_account(gov, &q.iq, 1);
	assert_int_equal(dvp_rxwait_governor_idle(gov), DVP_GOV_POLL);
	dvp_rxwait_governor_stats_get(gov, &gs);
	assert_int_equal(gs.sleeps, 2);
	assert_int_equal(gs.sleeps_avoided, 1);
	assert_int_equal(gs.pauses, 3);
	assert_int_equal(mock_stats(&q).polls, 8);
	assert_int_equal(mock_stats(&q).empty_polls, 7);

	dvp_rxwait_governor_free(gov);
	assert_int_equal(dvp_rxwait_set_free(set), 0);
	mock_close(&q);
}

/* Init refuses what a wait could not work with, naming the queue; fini is idempotent. */
static void test_queue_init_checks(void **state)
{
	const struct dvp_rxwait_queue_ops ops = mock_ops_level;
	struct dvp_rxwait_queue_ops no_work = mock_ops_level;
	struct dvp_rxwait_queue_conf conf = { .port_id = 7, .queue_id = 3 };
	struct dvp_log_capture cap;
	struct dvp_rxwait_queue iq;
	struct mock_q q = { 0 };
	int blocking, nb;

	(void)state;
	no_work.has_work = NULL;
	blocking = eventfd(0, EFD_CLOEXEC);
	nb = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	assert_true(blocking >= 0 && nb >= 0);
	q.fd = nb; /* the mock reads it at fini */

	dvp_log_capture_begin(&cap);
	conf.fd = blocking;
	assert_int_equal(dvp_rxwait_queue_init(&iq, &ops, &q, &conf), -EINVAL);
	conf.fd = -1;
	assert_int_equal(dvp_rxwait_queue_init(&iq, &ops, &q, &conf), -EINVAL);
	conf.fd = nb;
	assert_int_equal(dvp_rxwait_queue_init(&iq, &no_work, &q, &conf), -EINVAL);
	conf.solicited = true;
	assert_int_equal(dvp_rxwait_queue_init(&iq, &ops, &q, &conf), -ENOTSUP);
	assert_int_equal(dvp_errno, ENOTSUP);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "port 7 rx queue 3: event fd");
	assert_contains(cap.buf, "is blocking");
	assert_contains(cap.buf, "is not an open file descriptor");
	assert_contains(cap.buf, "no has_work hook");
	assert_contains(cap.buf, "solicited");
	dvp_log_capture_free(&cap);

	conf.solicited = false;
	assert_int_equal(dvp_rxwait_queue_init(&iq, &ops, &q, &conf), 0);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_queue_init_checks),
		cmocka_unit_test(test_arm_before_final_poll),
		cmocka_unit_test(test_one_event_per_arm),
		cmocka_unit_test(test_wake_oneshot_event_read_at_next_arm),
		cmocka_unit_test(test_wake_level_event_read_on_waking),
		cmocka_unit_test(test_spurious_event),
		cmocka_unit_test(test_acks_batched_and_flushed),
		cmocka_unit_test(test_ack_flush),
		cmocka_unit_test(test_kick_forgets_arm),
		cmocka_unit_test(test_arm_failure),
		cmocka_unit_test(test_governor_arms_through_ops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
