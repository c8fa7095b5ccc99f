/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The mlx5 PMD against every fault sim_mlx5 injects: a bad lkey on receive
 * and on send (error CQEs: the queue recovered, QUEUE_ERROR raised), a CQ
 * overrun by API and by devargs (IBV_EVENT_CQ_ERR: QUEUE_ERROR at once,
 * even to an application that no longer polls, which is woken if it sleeps
 * on the queue, the queue rebuilt by its lcore's next burst), a link flap
 * (LINK_STATUS_CHANGE down and up), a device fatal error (REMOVAL, once,
 * for two DEVICE_FATAL events) and wire drops (the loss in the sink
 * matching the device's count). Traffic resumes after each recoverable
 * fault, and every mbuf is back in its pool at close. A stop with frames
 * in flight counts every one: sent, or in the loss counters (held sends,
 * frames received and not taken), and no frame sent is counted lost.
 */

#include "mlx5_fixture.h"

#include <time.h>

#include <dvp_port_driver.h>

#include "mlx5_rx.h"
#include "mlx5_tx.h"

struct events {
	uint32_t n[DVP_PORT_EVENT_MAX];
	struct dvp_port_event_info last[DVP_PORT_EVENT_MAX];
	pthread_mutex_t lock;
};

static struct events evs = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void event_cb(uint16_t port_id, enum dvp_port_event event,
		     const struct dvp_port_event_info *info, void *arg)
{
	(void)port_id;
	(void)arg;
	pthread_mutex_lock(&evs.lock);
	evs.n[event]++;
	evs.last[event] = *info;
	pthread_mutex_unlock(&evs.lock);
}

static uint32_t event_count(enum dvp_port_event e, struct dvp_port_event_info *info)
{
	uint32_t n;

	pthread_mutex_lock(&evs.lock);
	n = evs.n[e];
	if (info != NULL)
		*info = evs.last[e];
	pthread_mutex_unlock(&evs.lock);
	return n;
}

static void events_reset(void)
{
	pthread_mutex_lock(&evs.lock);
	memset(evs.n, 0, sizeof(evs.n));
	pthread_mutex_unlock(&evs.lock);
}

static void events_register(uint16_t port)
{
	events_reset();
	for (int e = DVP_PORT_EVENT_LINK_STATUS_CHANGE; e <= DVP_PORT_EVENT_QUEUE_ERROR; e++)
		assert_int_equal(
			dvp_port_event_register(port, (enum dvp_port_event)e, event_cb, NULL), 0);
}

static void events_unregister(uint16_t port)
{
	for (int e = DVP_PORT_EVENT_LINK_STATUS_CHANGE; e <= DVP_PORT_EVENT_QUEUE_ERROR; e++)
		dvp_port_event_unregister(port, (enum dvp_port_event)e, event_cb, NULL);
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { 0, (long)ms * 1000000L };

	nanosleep(&ts, NULL);
}

/* Step, receive on port 0 and send what came on port 0's tx queue, @p rounds times. */
static uint64_t pump(struct mf *f, int rounds, bool echo)
{
	struct dvp_mbuf *pkts[32];
	uint64_t got = 0;

	for (int i = 0; i < rounds; i++) {
		uint16_t n;

		sim_mlx5_step(f->sim);
		n = dvp_rx_burst(f->port[0], 0, pkts, 32);
		got += n;
		if (n == 0)
			continue;
		if (echo)
			mf_tx_all(f, f->port[0], 0, pkts, n);
		else
			dvp_pktmbuf_free_bulk(pkts, n);
	}
	return got;
}

/* One rx burst on port 0, without stepping the device; frees what came. */
static void pump_rx_only(struct mf *f)
{
	struct dvp_mbuf *pkts[32];
	uint16_t n = dvp_rx_burst(f->port[0], 0, pkts, 32);

	dvp_pktmbuf_free_bulk(pkts, n);
}

/* Wait (up to 2 s) for @p n events of kind @p e, pumping traffic meanwhile. */
static void wait_event(struct mf *f, enum dvp_port_event e, uint32_t n, bool echo)
{
	for (int i = 0; i < 400 && event_count(e, NULL) < n; i++) {
		pump(f, 4, echo);
		sleep_ms(5);
	}
	assert_int_equal(event_count(e, NULL), n);
}

static uint64_t xstat(uint16_t port, const char *name)
{
	uint64_t v = UINT64_MAX;

	assert_int_equal(dvp_xstats_get_by_name(port, name, &v), 0);
	return v;
}

static struct dvp_port_conf fault_conf(void)
{
	struct dvp_port_conf conf;

	memset(&conf, 0, sizeof(conf));
	conf.intr_conf.lsc = 1;
	conf.intr_conf.rmv = 1;
	return conf;
}

/* One stepped port cabled to its source and sink, started with @p nb_desc, its events registered. */
static void fault_open(struct mf *f, uint16_t nb_desc)
{
	struct dvp_port_conf conf = fault_conf();

	mf_open(f, "ports=1,mode=step,cable=traffic,gen=off", 1024);
	mf_port_start(f, 0, 1, 1, &conf, nb_desc);
	events_register(f->port[0]);
}

static void test_bad_lkey_rx(void **state)
{
	static const uint16_t sizes[] = { 60 };
	struct sim_mlx5_dev_stats ds;
	struct dvp_port_event_info info;
	struct sim_mlx5_source_stats src = { 0 };
	struct sim_mlx5_port_stats ps;
	struct dvp_port_stats st;
	struct mlx5_rxq *rxq;
	uint64_t got;
	struct mf f;

	(void)state;
	fault_open(&f, 256);
	rxq = dvp_port_get(f.port[0])->rxqs[0];
	mf_source(&f, 0, 3000, 4, sizes, 1);
	got = pump(&f, 10, false);
	assert_int_equal(sim_mlx5_fault_bad_lkey(f.sim, rxq->wq->wq_num, 1), 0);
	for (int i = 0; i < 5000 && !src.done; i++) {
		got += pump(&f, 1, false);
		assert_int_equal(sim_mlx5_source_stats(f.sim, 0, &src), 0);
	}
	got += pump(&f, 10, false);
	/* The event thread delivers it: wait (no traffic moves meanwhile). */
	for (int i = 0; i < 400 && event_count(DVP_PORT_EVENT_QUEUE_ERROR, NULL) < 1; i++)
		sleep_ms(5);
	assert_int_equal(event_count(DVP_PORT_EVENT_QUEUE_ERROR, &info), 1);
	assert_false(info.queue.tx);
	assert_int_equal(info.queue.queue_id, 0);
	assert_int_equal(info.cause, DVP_PORT_CAUSE_DRIVER);
	assert_non_null(strstr(info.queue.reason, "local protection"));
	/*
	 * One frame met the bad WQE; those arriving while the WQ was in error
	 * were dropped by the device, as hardware drops them; the others came in.
	 */
	assert_int_equal(sim_mlx5_port_stats(f.sim, 0, &ps), 0);
	assert_int_equal(src.sent, 3000);
	assert_int_equal(got + 1 + ps.rx_dropped, 3000);
	assert_true(got > 2000);
	assert_int_equal(dvp_stats_get(f.port[0], &st), 0);
	assert_int_equal(st.ierrors, 1);
	/*
	 * The device flushed the WQEs posted behind the bad one: none is a
	 * frame, none an error of its own; one reset mended the queue.
	 */
	assert_int_equal(sim_mlx5_dev_stats(f.sim, &ds), 0);
	assert_true(ds.flush_cqes > 100);
	assert_int_equal(ds.cq_overruns, 0);
	assert_int_equal(xstat(f.port[0], "rx_q0_cqe_errors"), 1);
	assert_int_equal(xstat(f.port[0], "rx_q0_restarts"), 1);
	assert_int_equal(xstat(f.port[0], "rx_q0_dropped_on_reset"), 0);
	events_unregister(f.port[0]);
	mf_close(&f);
}

static void test_bad_lkey_tx(void **state)
{
	static const uint16_t sizes[] = { 100 };
	struct dvp_port_event_info info;
	struct sim_mlx5_sink_stats snk;
	struct dvp_port_stats st;
	struct mlx5_txq *txq;
	struct mf f;

	(void)state;
	fault_open(&f, 256);
	txq = dvp_port_get(f.port[0])->txqs[0];
	mf_source(&f, 0, 2000, 4, sizes, 1);
	pump(&f, 10, true);
	assert_int_equal(sim_mlx5_fault_bad_lkey(f.sim, txq->sqn, 1), 0);
	wait_event(&f, DVP_PORT_EVENT_QUEUE_ERROR, 1, true);
	pump(&f, 2000, true);
	dvp_tx_burst(f.port[0], 0, NULL, 0);
	sim_mlx5_step_idle(f.sim, 100);
	assert_int_equal(event_count(DVP_PORT_EVENT_QUEUE_ERROR, &info), 1);
	assert_true(info.queue.tx);
	assert_int_equal(info.cause, DVP_PORT_CAUSE_DRIVER);
	assert_int_equal(dvp_stats_get(f.port[0], &st), 0);
	assert_true(st.oerrors >= 1);
	/* The echo goes on after the recovery: all but the dropped ones reach the sink. */
	assert_int_equal(sim_mlx5_sink_stats(f.sim, 0, &snk), 0);
	assert_int_equal(snk.received + st.oerrors, 2000);
	assert_int_equal(snk.corrupt, 0);
	events_unregister(f.port[0]);
	mf_close(&f);
}

/*
 * A send error with 600 WQEs behind it, none of them sent yet (the device
 * is stepped only after they are all posted): the device flushes every one.
 * WQEs that ask for no completion say "only the first error", so only the
 * failing WQE and those that asked for a completion (one per
 * tx_free_thresh packets) write a CQE, and the CQ, sized for the latter,
 * holds them: the queue is mended by its reset (one QUEUE_ERROR, cause
 * DRIVER), not rebuilt after a CQ overrun, and every packet is counted.
 * The frames alternate their checksum flags, so each takes a WQE of its
 * own on the eMPW path too.
 */
static void test_tx_error_flushes(void **state)
{
	enum { N = 600 };
	struct dvp_port_conf conf = fault_conf();
	struct dvp_port_event_info info;
	struct sim_mlx5_sink_stats snk;
	struct sim_mlx5_dev_stats ds;
	struct dvp_mbuf *pkts[N];
	struct dvp_port_stats st;
	struct mlx5_txq *txq;
	uint16_t sent = 0;
	uint32_t asked;
	struct mf f;

	(void)state;
	conf.txmode.offloads = DVP_TX_OFFLOAD_IPV4_CKSUM;
	mf_open(&f, "ports=1,mode=step,cable=traffic,gen=off", 2048);
	mf_port_start(&f, 0, 1, 1, &conf, 1024);
	events_register(f.port[0]);
	txq = dvp_port_get(f.port[0])->txqs[0];
	for (unsigned int i = 0; i < N; i++) {
		pkts[i] = mf_frame(&f, 100, 0, i, 2048);
		pkts[i]->tx.l2_len = 14;
		pkts[i]->tx.l3_len = 20;
		if (i & 1)
			pkts[i]->ol_flags |= DVP_MBUF_F_TX_IPV4 | DVP_MBUF_F_TX_IP_CKSUM;
	}
	assert_int_equal(sim_mlx5_fault_bad_lkey(f.sim, txq->sqn, 1), 0);
	asked = txq->comp_pi;
	/* Bursts of 32: each asks for a completion on its last WQE. */
	for (int tries = 0; sent < N && tries < 100; tries++)
		sent += dvp_tx_burst(f.port[0], 0, pkts + sent, (uint16_t)DVP_MIN(32, N - sent));
	assert_int_equal(sent, N);
	asked = txq->comp_pi - asked;
	assert_true(asked >= N / 32 - 1);
	assert_true(txq->wqe_ci - txq->wqe_tail >= N);
	sim_mlx5_step_idle(f.sim, 100);
	assert_int_equal(sim_mlx5_dev_stats(f.sim, &ds), 0);
	assert_int_equal(ds.cq_overruns, 0);
	/* A flush CQE for each WQE that asked for a completion, none for the others. */
	assert_int_equal(ds.flush_cqes, asked);
	/* The error CQE mends the queue at the next burst. */
	dvp_tx_burst(f.port[0], 0, NULL, 0);
	for (int i = 0; i < 400 && event_count(DVP_PORT_EVENT_QUEUE_ERROR, NULL) < 1; i++)
		sleep_ms(5);
	assert_int_equal(event_count(DVP_PORT_EVENT_QUEUE_ERROR, &info), 1);
	assert_true(info.queue.tx);
	assert_int_equal(info.cause, DVP_PORT_CAUSE_DRIVER);
	assert_int_equal(xstat(f.port[0], "tx_q0_cqe_errors"), 1);
	assert_int_equal(xstat(f.port[0], "tx_q0_restarts"), 1);
	assert_int_equal(dvp_stats_get(f.port[0], &st), 0);
	assert_int_equal(st.oerrors, N);
	assert_int_equal(txq->elts_head, txq->elts_tail); /* every packet back in the pool */
	/* Traffic goes on. */
	for (unsigned int i = 0; i < 64; i++)
		pkts[i] = mf_frame(&f, 100, 0, N + i, 2048);
	mf_tx_all(&f, f.port[0], 0, pkts, 64);
	sim_mlx5_step_idle(f.sim, 100);
	dvp_tx_burst(f.port[0], 0, NULL, 0);
	assert_int_equal(sim_mlx5_sink_stats(f.sim, 0, &snk), 0);
	assert_int_equal(snk.received, 64);
	assert_int_equal(sim_mlx5_dev_stats(f.sim, &ds), 0);
	assert_int_equal(ds.cq_overruns, 0);
	assert_int_equal(event_count(DVP_PORT_EVENT_QUEUE_ERROR, NULL), 1);
	events_unregister(f.port[0]);
	mf_close(&f);
}

static void test_cq_overrun(void **state)
{
	static const uint16_t sizes[] = { 60 };
	struct dvp_port_event_info info;
	struct sim_mlx5_dev_stats ds;
	struct mlx5_rxq *rxq;
	uint32_t old_cqn;
	uint64_t got;
	struct mf f;

	(void)state;
	fault_open(&f, 128);
	rxq = dvp_port_get(f.port[0])->rxqs[0];
	old_cqn = rxq->dv_cq.cqn;
	assert_int_equal(sim_mlx5_fault_cq_stall(f.sim, old_cqn, true), 0);
	mf_source(&f, 0, 0, 4, sizes, 1);
	/* The device stops reading the consumer index: the CQ (256) fills and overruns. */
	wait_event(&f, DVP_PORT_EVENT_QUEUE_ERROR, 1, false);
	assert_int_equal(sim_mlx5_dev_stats(f.sim, &ds), 0);
	assert_int_equal(ds.cq_overruns, 1);
	assert_int_equal(event_count(DVP_PORT_EVENT_QUEUE_ERROR, &info), 1);
	assert_false(info.queue.tx);
	assert_int_equal(info.cause, DVP_PORT_CAUSE_CQ_ERROR);
	/* Rebuilt by the next burst: a new CQ, and traffic flows again. */
	got = pump(&f, 200, false);
	assert_int_not_equal(rxq->dv_cq.cqn, old_cqn);
	assert_true(got > 1000);
	assert_int_equal(sim_mlx5_source_stop(f.sim, 0), 0);
	events_unregister(f.port[0]);
	mf_close(&f);
}

/*
 * The same fault from the device's arguments (cq_stall=1: the first CQ
 * created, the rx queue's), with the application no longer polling once
 * the CQ broke, as one asleep on rx interrupts (which a broken CQ never
 * raises): QUEUE_ERROR reaches it all the same, and the next burst
 * rebuilds the queue.
 */
static void test_cq_overrun_devargs(void **state)
{
	static const uint16_t sizes[] = { 60 };
	struct dvp_port_conf conf = fault_conf();
	struct dvp_port_event_info info;
	struct sim_mlx5_dev_stats ds;
	struct mlx5_rxq *rxq;
	struct mf f;

	(void)state;
	mf_open(&f, "ports=1,mode=step,cable=traffic,gen=off,cq_stall=1", 1024);
	mf_port_start(&f, 0, 1, 1, &conf, 128);
	events_register(f.port[0]);
	rxq = dvp_port_get(f.port[0])->rxqs[0];
	assert_int_equal(rxq->dv_cq.cqn, 1);
	mf_source(&f, 0, 0, 4, sizes, 1);
	/*
	 * The device alone until the CQ breaks: a burst after that step could
	 * find the event already handled and rebuild the queue before the
	 * checks below (it did under TSan, whose slower bursts let the
	 * interrupt thread win).
	 */
	ds.cq_overruns = 0;
	for (int i = 0; i < 1000; i++) {
		sim_mlx5_step(f.sim);
		assert_int_equal(sim_mlx5_dev_stats(f.sim, &ds), 0);
		if (ds.cq_overruns != 0)
			break;
		pump_rx_only(&f);
	}
	assert_int_equal(ds.cq_overruns, 1);
	/* No burst from here until the event came. */
	for (int i = 0; i < 400 && event_count(DVP_PORT_EVENT_QUEUE_ERROR, NULL) < 1; i++)
		sleep_ms(5);
	assert_int_equal(event_count(DVP_PORT_EVENT_QUEUE_ERROR, &info), 1);
	assert_false(info.queue.tx);
	assert_int_equal(info.cause, DVP_PORT_CAUSE_CQ_ERROR);
	assert_int_equal(rxq->dv_cq.cqn, 1);
	/* The next burst rebuilds it, with no second event. */
	assert_true(pump(&f, 200, false) > 1000);
	assert_int_not_equal(rxq->dv_cq.cqn, 1);
	sleep_ms(20);
	assert_int_equal(event_count(DVP_PORT_EVENT_QUEUE_ERROR, NULL), 1);
	assert_int_equal(sim_mlx5_source_stop(f.sim, 0), 0);
	events_unregister(f.port[0]);
	mf_close(&f);
}

struct overrun_sleeper {
	struct dvp_rxwait_set *set;
	int ready;
	bool done; /* atomic */
};

static void *overrun_sleeper_run(void *arg)
{
	struct overrun_sleeper *s = arg;
	struct dvp_rx_wait_event ev;

	/* Long enough that only the fault's kick ends it within the test. */
	s->ready = dvp_rx_wait(s->set, &ev, 1, 20000);
	__atomic_store_n(&s->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * A CQ overrun while the application sleeps on the queue's interrupts,
 * armed for solicited completions only, so that the frames filling the CQ
 * wake nobody: a broken CQ raises no event again, and only the kick of
 * lib/port's queue-fault primitive can wake the lcore, whose burst then
 * rebuilds the queue.
 */
static void test_cq_overrun_wakes_sleeper(void **state)
{
	static const uint16_t sizes[] = { 60 };
	struct dvp_port_conf conf = fault_conf();
	struct overrun_sleeper s = { .ready = -1 };
	struct dvp_rxwait_queue_stats qs = { 0 };
	struct sim_mlx5_dev_stats ds;
	struct mlx5_rxq *rxq;
	uint32_t old_cqn, first, taken = 0;
	pthread_t th;
	struct mf f;

	(void)state;
	conf.intr_conf.rxq = 1;
	conf.intr_conf.rxq_solicited = 1;
	mf_open(&f, "ports=1,mode=step,cable=traffic,gen=off", 1024);
	mf_port_start(&f, 0, 1, 1, &conf, 128);
	events_register(f.port[0]);
	rxq = dvp_port_get(f.port[0])->rxqs[0];
	old_cqn = rxq->dv_cq.cqn;
	assert_int_equal(sim_mlx5_fault_cq_stall(f.sim, old_cqn, true), 0);
	/*
	 * The device no longer reads the consumer index: frames taken (and
	 * so replaced) until the CQ has room for fewer than the WQEs posted,
	 * so that the device alone overruns it with the next frames.
	 */
	first = rxq->cqe_cnt - rxq->wqe_n / 2;
	mf_source(&f, 0, first, 4, sizes, 1);
	for (int i = 0; i < 100000 && taken < first; i++) {
		struct dvp_mbuf *pkts[16];
		uint16_t n;

		sim_mlx5_step(f.sim);
		n = dvp_rx_burst(f.port[0], 0, pkts, 16);
		dvp_pktmbuf_free_bulk(pkts, n);
		taken += n;
	}
	assert_int_equal(taken, first);
	assert_int_equal(sim_mlx5_dev_stats(f.sim, &ds), 0);
	assert_int_equal(ds.cq_overruns, 0);
	s.set = dvp_rxwait_set_create(1);
	assert_non_null(s.set);
	assert_int_equal(dvp_rx_intr_ctl(f.port[0], 0, s.set, DVP_RX_INTR_CTL_ADD, NULL), 0);
	assert_int_equal(pthread_create(&th, NULL, overrun_sleeper_run, &s), 0);
	/* Armed, then (most likely) asleep: a frame before that only ends the wait early. */
	for (int i = 0; i < 2000 && qs.arms == 0; i++) {
		sleep_ms(1);
		dvp_rxwait_queue_stats_get(dvp_port_get(f.port[0])->rxq_intr[0], &qs);
	}
	sleep_ms(20);
	mf_source(&f, 0, 0, 4, sizes, 1);
	/* The device alone (nobody bursts) until the waiter wakes. */
	for (int i = 0; i < 4000 && !__atomic_load_n(&s.done, __ATOMIC_ACQUIRE); i++) {
		sim_mlx5_step(f.sim);
		if (i % 16 == 15)
			sleep_ms(1);
	}
	assert_int_equal(sim_mlx5_dev_stats(f.sim, &ds), 0);
	assert_int_equal(ds.cq_overruns, 1);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(s.ready, 1);
	for (int i = 0; i < 400 && event_count(DVP_PORT_EVENT_QUEUE_ERROR, NULL) < 1; i++)
		sleep_ms(5);
	assert_int_equal(event_count(DVP_PORT_EVENT_QUEUE_ERROR, NULL), 1);
	/* Its burst rebuilds the queue, and traffic flows again. */
	assert_true(pump(&f, 200, false) > 1000);
	assert_int_not_equal(rxq->dv_cq.cqn, old_cqn);
	assert_int_equal(sim_mlx5_source_stop(f.sim, 0), 0);
	assert_int_equal(dvp_rx_intr_ctl(f.port[0], 0, s.set, DVP_RX_INTR_CTL_DEL, NULL), 0);
	assert_int_equal(dvp_rxwait_set_free(s.set), 0);
	events_unregister(f.port[0]);
	mf_close(&f);
}

/*
 * The frames whose CQEs filled the CQ before it overran and were never
 * taken: the restart drops them with the CQ, and counts them (ierrors).
 * Every CQE written is a frame taken or counted.
 */
static void test_cq_overrun_untaken(void **state)
{
	static const uint16_t sizes[] = { 60 };
	struct sim_mlx5_dev_stats ds = { 0 };
	struct dvp_mbuf *pkts[16];
	struct dvp_port_stats st;
	struct mlx5_rxq *rxq;
	uint32_t cqe_cnt, got = 0;
	uint16_t n;
	struct mf f;

	(void)state;
	fault_open(&f, 128);
	rxq = dvp_port_get(f.port[0])->rxqs[0];
	cqe_cnt = rxq->cqe_cnt;
	assert_int_equal(sim_mlx5_fault_cq_stall(f.sim, rxq->dv_cq.cqn, true), 0);
	mf_source(&f, 0, 0, 4, sizes, 1);
	/*
	 * The device takes the consumer index for 0: it writes cqe_cnt CQEs,
	 * then overruns. Small bursts take some of them (their WQEs posted
	 * again, so the device can go on), a ring's worth behind the device;
	 * no burst after the step that overran, so the restart (next burst)
	 * finds the CQEs not taken.
	 */
	for (int i = 0; i < 1000; i++) {
		sim_mlx5_step(f.sim);
		assert_int_equal(sim_mlx5_dev_stats(f.sim, &ds), 0);
		if (ds.cq_overruns != 0)
			break;
		n = dvp_rx_burst(f.port[0], 0, pkts, 16);
		dvp_pktmbuf_free_bulk(pkts, n);
		got += n;
	}
	assert_int_equal(ds.cq_overruns, 1);
	assert_int_equal(sim_mlx5_source_stop(f.sim, 0), 0);
	for (int i = 0; i < 400 && event_count(DVP_PORT_EVENT_QUEUE_ERROR, NULL) < 1; i++)
		sleep_ms(5);
	assert_int_equal(event_count(DVP_PORT_EVENT_QUEUE_ERROR, NULL), 1);
	/* The next burst rebuilds the queue: the CQEs written go with the old CQ. */
	pump_rx_only(&f);
	assert_int_equal(dvp_stats_get(f.port[0], &st), 0);
	assert_int_equal(st.ipackets, got);
	assert_true(st.ierrors > 0);
	assert_int_equal(st.ipackets + st.ierrors, cqe_cnt);
	assert_int_equal(xstat(f.port[0], "rx_q0_dropped_on_reset"), st.ierrors);
	events_unregister(f.port[0]);
	mf_close(&f);
}

static void test_link_flap(void **state)
{
	static const uint16_t sizes[] = { 60 };
	struct dvp_port_conf conf = fault_conf();
	struct dvp_port_event_info info;
	struct dvp_link link;
	uint64_t got;
	struct mf f;

	(void)state;
	mf_open(&f, "ports=1,mode=step,clock=virtual,cable=traffic,gen=off", 1024);
	events_register(f.port[0]);
	/* Starting finds the link up: an event of its own, counted out. */
	mf_port_start(&f, 0, 1, 1, &conf, 256);
	wait_event(&f, DVP_PORT_EVENT_LINK_STATUS_CHANGE, 1, false);
	events_reset();
	mf_source(&f, 0, 0, 4, sizes, 1);
	assert_int_equal(sim_mlx5_fault_link_flap(f.sim, 0, 1000000, 5000000), 0);
	assert_int_equal(sim_mlx5_clock_advance(f.sim, 2000000), 0);
	wait_event(&f, DVP_PORT_EVENT_LINK_STATUS_CHANGE, 1, false);
	assert_int_equal(event_count(DVP_PORT_EVENT_LINK_STATUS_CHANGE, &info), 1);
	assert_int_equal(info.link.link_status, DVP_LINK_DOWN);
	assert_int_equal(dvp_link_get_nowait(f.port[0], &link), 0);
	assert_int_equal(link.link_status, DVP_LINK_DOWN);
	pump(&f, 10, false);
	assert_int_equal(pump(&f, 10, false), 0); /* nothing crosses a down link */
	assert_int_equal(sim_mlx5_clock_advance(f.sim, 5000000), 0);
	wait_event(&f, DVP_PORT_EVENT_LINK_STATUS_CHANGE, 2, false);
	assert_int_equal(event_count(DVP_PORT_EVENT_LINK_STATUS_CHANGE, &info), 2);
	assert_int_equal(info.link.link_status, DVP_LINK_UP);
	got = pump(&f, 50, false);
	assert_true(got > 0);
	assert_int_equal(sim_mlx5_source_stop(f.sim, 0), 0);
	events_unregister(f.port[0]);
	mf_close(&f);
}

static void test_device_fatal(void **state)
{
	static const uint16_t sizes[] = { 60 };
	struct dvp_mbuf *pkts[8];
	struct sim_mlx5_dev_stats ds;
	struct mf f;

	(void)state;
	fault_open(&f, 256);
	mf_source(&f, 0, 0, 4, sizes, 1);
	assert_true(pump(&f, 10, true) > 0);
	assert_int_equal(sim_mlx5_fault_fatal(f.sim), 0);
	/* Nothing completes any more: receive only (sends would fill the ring for good). */
	wait_event(&f, DVP_PORT_EVENT_REMOVAL, 1, false);
	/* Two DEVICE_FATAL events, one removal. */
	sleep_ms(50);
	assert_int_equal(sim_mlx5_dev_stats(f.sim, &ds), 0);
	assert_int_equal(event_count(DVP_PORT_EVENT_REMOVAL, NULL), 1);
	assert_int_equal(dvp_rx_burst(f.port[0], 0, pkts, 8), 0);
	events_unregister(f.port[0]);
	/* Stop and close: the device refuses every modify now; the mbufs come back anyway. */
	mf_close(&f);
}

static void test_wire_drops(void **state)
{
	static const uint16_t sizes[] = { 60, 400 };
	struct sim_mlx5_sink_stats snk;
	struct sim_mlx5_port_stats ps;
	struct dvp_port_stats st;
	struct mf f;

	(void)state;
	mf_open(&f, "ports=1,mode=step,cable=traffic,gen=off", 2048);
	mf_port_start(&f, 0, 1, 1, NULL, 512);
	assert_int_equal(sim_mlx5_fault_drop(f.sim, 0, 20000), 0); /* 2% */
	mf_source(&f, 0, 20000, 8, sizes, 2);
	for (int i = 0; i < 20000; i++) {
		struct sim_mlx5_source_stats src;

		pump(&f, 1, true);
		assert_int_equal(sim_mlx5_source_stats(f.sim, 0, &src), 0);
		if (src.done && pump(&f, 1, true) == 0)
			break;
	}
	dvp_tx_burst(f.port[0], 0, NULL, 0);
	sim_mlx5_step_idle(f.sim, 100);
	assert_int_equal(sim_mlx5_port_stats(f.sim, 0, &ps), 0);
	assert_int_equal(sim_mlx5_sink_stats(f.sim, 0, &snk), 0);
	assert_int_equal(dvp_stats_get(f.port[0], &st), 0);
	assert_true(ps.rx_wire_drops > 200);
	/* The PMD received and sent everything the wire let through. */
	assert_int_equal(st.ipackets, 20000 - ps.rx_wire_drops);
	assert_int_equal(st.opackets, st.ipackets);
	assert_int_equal(snk.received, st.ipackets);
	assert_int_equal(snk.lost, ps.rx_wire_drops);
	assert_int_equal(snk.corrupt, 0);
	mf_close(&f);
}

/*
 * The link partner pauses the port (tx_hold): frames sit unsent in the SQ
 * at the stop. The stop's NOP never completes behind them; after its wait
 * every one counts in oerrors and tx_q0_dropped_on_reset: sent (opackets)
 * = on the wire + oerrors.
 */
static void test_stop_held_sends(void **state)
{
	struct dvp_mbuf *pkts[100];
	struct sim_mlx5_port_stats ps;
	struct sim_mlx5_sink_stats snk;
	struct dvp_port_stats st;
	struct mf f;

	(void)state;
	mf_open(&f, "ports=1,cable=traffic,gen=off", 1024);
	mf_port_start(&f, 0, 1, 1, NULL, 256);
	assert_int_equal(sim_mlx5_fault_tx_hold(f.sim, 0, true), 0);
	for (unsigned int i = 0; i < DVP_DIM(pkts); i++)
		pkts[i] = mf_frame(&f, 100, 0, i, 2048);
	assert_int_equal(dvp_tx_burst(f.port[0], 0, pkts, DVP_DIM(pkts)), DVP_DIM(pkts));
	assert_int_equal(dvp_port_stop(f.port[0]), 0);
	assert_int_equal(dvp_port_mbufs_held(f.port[0]), 0);
	assert_int_equal(sim_mlx5_port_stats(f.sim, 0, &ps), 0);
	assert_int_equal(sim_mlx5_sink_stats(f.sim, 0, &snk), 0);
	assert_int_equal(dvp_stats_get(f.port[0], &st), 0);
	assert_int_equal(ps.tx_frames, 0);
	assert_int_equal(snk.received, 0);
	assert_int_equal(st.opackets, DVP_DIM(pkts));
	assert_int_equal(st.oerrors, DVP_DIM(pkts));
	assert_int_equal(xstat(f.port[0], "tx_q0_dropped_on_reset"), DVP_DIM(pkts));
	assert_int_equal(sim_mlx5_fault_tx_hold(f.sim, 0, false), 0);
	mf_close(&f);
}

/*
 * Frames the device sent after the last completion it was asked for: the
 * stop's NOP completes behind them, so none counts as lost.
 */
static void test_stop_sent_uncompleted(void **state)
{
	struct sim_mlx5_sink_stats snk = { 0 };
	struct sim_mlx5_port_stats ps;
	struct dvp_port_stats st;
	struct mf f;

	(void)state;
	mf_open(&f, "ports=1,cable=traffic,gen=off", 1024);
	mf_port_start(&f, 0, 1, 1, NULL, 256);
	/* One per burst: a completion for the 32nd only (tx_free_thresh 32). */
	for (unsigned int i = 0; i < 40; i++) {
		struct dvp_mbuf *m = mf_frame(&f, 100, 0, i, 2048);

		assert_int_equal(dvp_tx_burst(f.port[0], 0, &m, 1), 1);
	}
	/* The device thread sends them: wait for the sink (no bound on the time but 20 s). */
	for (int i = 0; i < 4000 && snk.received < 40; i++) {
		sleep_ms(5);
		assert_int_equal(sim_mlx5_sink_stats(f.sim, 0, &snk), 0);
	}
	assert_int_equal(snk.received, 40);
	assert_int_equal(sim_mlx5_port_stats(f.sim, 0, &ps), 0);
	assert_int_equal(ps.tx_completions, 1);
	assert_int_equal(dvp_port_stop(f.port[0]), 0);
	assert_int_equal(dvp_stats_get(f.port[0], &st), 0);
	assert_int_equal(st.opackets, 40);
	assert_int_equal(st.oerrors, 0);
	assert_int_equal(xstat(f.port[0], "tx_q0_dropped_on_reset"), 0);
	mf_close(&f);
}

/*
 * Frames received (their CQEs written) and not taken by rx_burst when the
 * port stops: counted in ierrors and rx_q0_dropped_on_reset, so the
 * source's count = ipackets + ierrors + imissed.
 */
static void test_stop_received_untaken(void **state)
{
	static const uint16_t sizes[] = { 60 };
	struct sim_mlx5_source_stats src;
	struct dvp_port_stats st;
	struct mf f;

	(void)state;
	mf_open(&f, "ports=1,mode=step,cable=traffic,gen=off", 1024);
	mf_port_start(&f, 0, 1, 1, NULL, 256);
	mf_source(&f, 0, 50, 1, sizes, 1);
	sim_mlx5_step_idle(f.sim, 1000);
	assert_int_equal(sim_mlx5_source_stats(f.sim, 0, &src), 0);
	assert_int_equal(src.sent, 50);
	assert_int_equal(dvp_port_stop(f.port[0]), 0);
	assert_int_equal(dvp_stats_get(f.port[0], &st), 0);
	assert_int_equal(st.ipackets, 0);
	assert_int_equal(st.imissed, 0);
	assert_int_equal(st.ierrors, 50);
	assert_int_equal(xstat(f.port[0], "rx_q0_dropped_on_reset"), 50);
	mf_close(&f);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_lkey_rx),
		cmocka_unit_test(test_bad_lkey_tx),
		cmocka_unit_test(test_tx_error_flushes),
		cmocka_unit_test(test_cq_overrun),
		cmocka_unit_test(test_cq_overrun_devargs),
		cmocka_unit_test(test_link_flap),
		cmocka_unit_test(test_device_fatal),
		cmocka_unit_test(test_wire_drops),
		cmocka_unit_test(test_stop_held_sends),
		cmocka_unit_test(test_stop_sent_uncompleted),
		cmocka_unit_test(test_stop_received_untaken),
		cmocka_unit_test(test_cq_overrun_untaken),
		cmocka_unit_test(test_cq_overrun_wakes_sleeper),
	};

	mf_args(argc, argv);
	return cmocka_run_group_tests(tests, mf_eal_init, mf_eal_cleanup);
}
