/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The adaptive governor with a fake clock, against a net_ring queue: N
 * empty rounds of polling, M paused, then arm and sleep; a timeout keeps
 * it at the sleeping threshold; traffic sends it back to pure polling; a
 * frame found after arming avoids the sleep; a producer's frame wakes it;
 * a queue without interrupts caps it at pausing. Counters (per queue and
 * the governor's) are exact because the clock is.
 */

#include "test_port_helpers.h"

#include <pthread.h>
#include <unistd.h>

#include <dvp_rxwait_driver.h>

static uint16_t p0;

static int setup(void **state)
{
	(void)state;
	if (dvp_test_eal_init("--no-huge", "-m", "32", "-l", "0-1", "--vdev",
			      "net_ring0,queues=2") < 0)
		return -1;
	tp_pool_create();
	p0 = tp_port("net_ring0");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	dvp_port_close(p0);
	if (dvp_pktmbuf_pool_in_use(tp_pool) != 0)
		return -1;
	dvp_mempool_free(tp_pool);
	return dvp_eal_cleanup();
}

/* The fake clock: 1000 ns per reading; a pause adds its length. */
struct fake_clock {
	uint64_t now;
	unsigned int pauses;
	uint64_t paused_ns;
};

static uint64_t fake_now(void *arg)
{
	struct fake_clock *c = arg;

	c->now += 1000;
	return c->now;
}

static void fake_pause(void *arg, uint64_t ns)
{
	struct fake_clock *c = arg;

	c->pauses++;
	c->paused_ns += ns;
	c->now += ns;
}

struct gov_fixture {
	struct fake_clock clock;
	struct dvp_rxwait_set *set;
	struct dvp_rxwait_governor *gov;
	struct dvp_rxwait_governor_stats st;
};

static void fixture_init(struct gov_fixture *f, int timeout_ms)
{
	struct dvp_rxwait_governor_conf conf;

	memset(f, 0, sizeof(*f));
	dvp_rxwait_governor_conf_default(&conf);
	conf.pause_after = 3;
	conf.sleep_after = 2;
	conf.pause_ns = 500;
	conf.sleep_timeout_ms = timeout_ms;
	conf.clock = fake_now;
	conf.pause = fake_pause;
	conf.clock_arg = &f->clock;
	tp_port_up_intr(p0, 2, 0);
	f->set = dvp_rxwait_set_create(1);
	assert_non_null(f->set);
	assert_int_equal(dvp_rx_intr_ctl(p0, 0, f->set, DVP_RX_INTR_CTL_ADD, NULL), 0);
	f->gov = dvp_rxwait_governor_create(f->set, &conf);
	assert_non_null(f->gov);
}

static void fixture_fini(struct gov_fixture *f)
{
	dvp_rxwait_governor_free(f->gov);
	assert_int_equal(dvp_rxwait_set_free(f->set), 0);
	assert_int_equal(dvp_port_stop(p0), 0);
	tp_assert_pool_full();
}

/* One round: poll rx queue 0 through the governor, then let it decide. */
static int round_q0(struct gov_fixture *f)
{
	struct dvp_mbuf *pkts[32];
	uint16_t n = dvp_rx_burst_adaptive(f->gov, p0, 0, pkts, 32);

	dvp_pktmbuf_free_bulk(pkts, n);
	return dvp_rxwait_governor_idle(f->gov);
}

static void stats(struct gov_fixture *f)
{
	dvp_rxwait_governor_stats_get(f->gov, &f->st);
}

static void test_transitions(void **state)
{
	struct gov_fixture f;
	int i;

	(void)state;
	fixture_init(&f, 10);
	/* N = 3 empty rounds: pure polling. */
	for (i = 0; i < 3; i++)
		assert_int_equal(round_q0(&f), DVP_GOV_POLL);
	assert_int_equal(f.clock.pauses, 0);
	/* M = 2 more: paused, pause_ns each. */
	for (i = 0; i < 2; i++)
		assert_int_equal(round_q0(&f), DVP_GOV_PAUSE);
	assert_int_equal(f.clock.pauses, 2);
	assert_int_equal(f.clock.paused_ns, 1000);
	/* Then arm and sleep: nothing comes, it times out (10 ms). */
	assert_int_equal(round_q0(&f), DVP_GOV_SLEEP);
	stats(&f);
	assert_int_equal(f.st.sleeps, 1);
	assert_int_equal(f.st.timeouts, 1);
	assert_int_equal(f.st.wakeups, 0);
	/* The queue slept once; the set read the fake clock twice around epoll_wait. */
	assert_int_equal(tp_qintr(p0, 0, "sleeps"), 1);
	assert_int_equal(tp_qintr(p0, 0, "asleep_ns"), 1000);
	/* The governor's readings bracket the set's: 3 ticks. */
	assert_int_equal(f.st.asleep_ns, 3000);
	/* Still quiet: the next empty round sleeps again at once. */
	assert_int_equal(round_q0(&f), DVP_GOV_SLEEP);
	stats(&f);
	assert_int_equal(f.st.sleeps, 2);
	assert_int_equal(f.clock.pauses, 2);

	/* Traffic: back to pure polling, and the count starts over. */
	tp_send(p0, 0, 1);
	assert_int_equal(round_q0(&f), DVP_GOV_POLL);
	for (i = 0; i < 3; i++)
		assert_int_equal(round_q0(&f), DVP_GOV_POLL);
	assert_int_equal(round_q0(&f), DVP_GOV_PAUSE);
	assert_int_equal(f.clock.pauses, 3);

	stats(&f);
	assert_int_equal(f.st.rounds, 12);
	assert_int_equal(f.st.empty_rounds, 11);
	assert_int_equal(f.st.pauses, 3);
	assert_int_equal(tp_qintr(p0, 0, "polls"), 12);
	assert_int_equal(tp_qintr(p0, 0, "empty_polls"), 11);
	fixture_fini(&f);
}

/* A frame that arrives while arming: found by the final poll, no sleep. */
static void test_sleep_avoided(void **state)
{
	struct gov_fixture f;
	int i;

	(void)state;
	fixture_init(&f, 10000);
	for (i = 0; i < 5; i++)
		assert_int_not_equal(round_q0(&f), DVP_GOV_SLEEP);
	tp_send(p0, 0, 1);
	/* Empty round (the frame came after the poll), at the threshold: arm, find it. */
	assert_int_equal(dvp_rxwait_governor_idle(f.gov), DVP_GOV_SLEEP);
	stats(&f);
	assert_int_equal(f.st.sleeps, 1);
	assert_int_equal(f.st.sleeps_avoided, 1);
	assert_int_equal(tp_qintr(p0, 0, "sleeps"), 0);
	/* Found work: polling again. */
	assert_int_equal(round_q0(&f), DVP_GOV_POLL);
	assert_int_equal(round_q0(&f), DVP_GOV_POLL);
	fixture_fini(&f);
}

struct sender {
	unsigned int delay_ms;
	int ret;
};

static void *send_later(void *arg)
{
	struct sender *s = arg;
	struct dvp_mbuf *m;

	usleep(s->delay_ms * 1000);
	m = dvp_pktmbuf_alloc(tp_pool);
	s->ret = m != NULL && dvp_pktmbuf_append(m, 60) != NULL && dvp_tx_burst(p0, 0, &m, 1) == 1;
	return NULL;
}

/* Asleep, woken by a producer on another thread. */
static void test_woken_by_traffic(void **state)
{
	struct sender s = { .delay_ms = 30 };
	struct gov_fixture f;
	pthread_t t;
	int i;

	(void)state;
	fixture_init(&f, -1);
	for (i = 0; i < 5; i++)
		round_q0(&f);
	assert_int_equal(pthread_create(&t, NULL, send_later, &s), 0);
	assert_int_equal(round_q0(&f), DVP_GOV_SLEEP);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_true(s.ret);
	stats(&f);
	assert_int_equal(f.st.wakeups, 1);
	assert_int_equal(tp_qintr(p0, 0, "wakeups"), 1);
	assert_int_equal(round_q0(&f), DVP_GOV_POLL); /* takes the frame */
	assert_int_equal(tp_qintr(p0, 0, "empty_polls"), 6);
	fixture_fini(&f);
}

/* A queue polled without interrupt state: nothing could wake it, so no sleep. */
static void test_unarmable_queue_caps_at_pause(void **state)
{
	struct gov_fixture f;
	int i, r;

	(void)state;
	fixture_init(&f, 10);
	for (i = 0; i < 20; i++) {
		dvp_rxwait_governor_account(f.gov, NULL, 0);
		r = round_q0(&f);
		assert_true(r == DVP_GOV_POLL || r == DVP_GOV_PAUSE);
	}
	stats(&f);
	assert_int_equal(f.st.sleeps, 0);
	assert_int_equal(f.st.pauses, 17);
	fixture_fini(&f);
}

static void test_create_errors(void **state)
{
	struct dvp_rxwait_governor_conf conf;
	struct dvp_rxwait_governor_stats st;
	struct dvp_log_capture cap;
	struct dvp_rxwait_set *set = dvp_rxwait_set_create(1);

	(void)state;
	dvp_rxwait_governor_conf_default(&conf);
	assert_int_equal(conf.pause_after, 256);
	assert_int_equal(conf.sleep_after, 1024);
	conf.sleep_timeout_ms = -5;
	dvp_log_capture_begin(&cap);
	assert_null(dvp_rxwait_governor_create(NULL, NULL));
	assert_int_equal(dvp_errno, EINVAL);
	assert_null(dvp_rxwait_governor_create(set, &conf));
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "governor create: no wait set");
	assert_contains(cap.buf, "sleep_timeout_ms -5: use -1 (no limit) or a number of ms >= 0");
	dvp_log_capture_free(&cap);
	dvp_rxwait_governor_free(dvp_rxwait_governor_create(set, NULL));
	assert_int_equal(dvp_rxwait_set_free(set), 0);

	/* NULL where the create failed: an error or nothing, never a crash. */
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_rxwait_governor_idle(NULL), -EINVAL);
	assert_int_equal(dvp_errno, EINVAL);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "governor idle: no governor");
	dvp_log_capture_free(&cap);
	memset(&st, 0xff, sizeof(st));
	dvp_rxwait_governor_stats_get(NULL, &st);
	assert_int_equal(st.rounds, 0);
	assert_int_equal(st.asleep_ns, 0);
	dvp_rxwait_governor_stats_get(NULL, NULL);
	dvp_rxwait_governor_conf_default(NULL);
	dvp_rxwait_governor_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_transitions),
		cmocka_unit_test(test_sleep_avoided),
		cmocka_unit_test(test_woken_by_traffic),
		cmocka_unit_test(test_unarmable_queue_caps_at_pause),
		cmocka_unit_test(test_create_errors),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
