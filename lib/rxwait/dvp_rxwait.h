/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * Interrupt mode for rx queues: wait sets, dvp_rx_wait(), and the adaptive
 * poll <-> interrupt governor.
 *
 * An application puts the rx queues one lcore polls into a wait set (with
 * dvp_rx_intr_ctl() of dvp_port.h) and, when they run dry, calls
 * dvp_rx_wait(): it arms every queue, polls each once more (an event that
 * arrived between the last empty poll and the arm would otherwise be
 * missed), sleeps in epoll only if every queue is still empty, then reads
 * the events (acking them in batches) and returns the queues that have
 * work. A spurious event (one with nothing behind it) is counted and slept
 * through. The governor automates the choice between polling, a short
 * pause and sleeping. The rules are in doc/interrupt-mode.md.
 *
 * Threads: a set belongs to one lcore, the one that calls dvp_rx_wait() and
 * the governor on it. dvp_rx_wait_kick() may be called from any thread; so
 * may removing a queue (a port stop does it): it kicks a sleeping waiter and
 * waits for it to leave dvp_rx_wait() first.
 */

#ifndef DVP_RXWAIT_H
#define DVP_RXWAIT_H

#include <stdbool.h>
#include <stdint.h>

#include <dvp_common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Events acked per call to the driver's ack hook unless configured otherwise. */
#define DVP_RXWAIT_ACK_BATCH_DEFAULT 64
/** Most queues a wait set may hold. */
#define DVP_RXWAIT_SET_MAX_QUEUES 1024

struct dvp_rxwait_set;
struct dvp_rxwait_queue; /* dvp_rxwait_driver.h: one rx queue's interrupt state */
struct dvp_rxwait_governor;

/**
 * Interrupt-mode counters of one rx queue (exported by lib/port as xstats
 * rx_q<N>_intr_<field>).
 */
struct dvp_rxwait_queue_stats {
	uint64_t polls; /**< rx polls the governor saw */
	uint64_t empty_polls; /**< of which returned nothing */
	uint64_t arms; /**< arm requests sent to the driver */
	uint64_t events; /**< completion events read from the fd */
	uint64_t acks; /**< events acked to the driver */
	uint64_t ack_calls; /**< calls to the driver's ack hook (batches) */
	uint64_t sleeps; /**< times a waiter slept with this queue armed */
	uint64_t wakeups; /**< times it was returned ready after an event */
	uint64_t spurious; /**< events with no work behind them */
	uint64_t asleep_ns; /**< time spent asleep in those sleeps */
};

struct dvp_json;

/**
 * Write @p iq's interrupt state as members of the JSON object open in
 * @p w: "mode" ("interrupt", or "poll" for a queue without interrupt
 * state, alone), and the counters since set-up or the last reset: sleeps,
 * wakeups, spurious, events, arms, polls, empty_polls, asleep_ns, and
 * asleep_pct (the share of that time asleep). What telemetry's /dvp/intr
 * gives per queue.
 */
void dvp_rxwait_queue_json(const struct dvp_rxwait_queue *iq, struct dvp_json *w);

/** Clock in nanoseconds (monotonic); a test passes a fake one. */
typedef uint64_t (*dvp_rxwait_clock_fn)(void *arg);

/* ------------------------------------------------------------------------
 * Wait sets
 */

/**
 * Create a wait set for up to @p max_queues rx queues (an epoll instance
 * plus the kick eventfd).
 * @return the set, or NULL with dvp_errno set after a log line: EINVAL
 *   (@p max_queues 0 or above DVP_RXWAIT_SET_MAX_QUEUES), ENOMEM, or the
 *   errno of epoll_create1/eventfd.
 */
struct dvp_rxwait_set *dvp_rxwait_set_create(unsigned int max_queues);

/**
 * Remove every queue from @p set (each keeps its events and pending acks)
 * and free it (NULL is fine). No thread may be waiting on it.
 * @return 0, or after a log line -EBUSY when a thread is inside
 *   dvp_rx_wait() on it, -EINVAL when @p set is not a live set (freed
 *   already: a second free is detected and frees nothing).
 */
int dvp_rxwait_set_free(struct dvp_rxwait_set *set);

/** Queues in @p set. */
unsigned int dvp_rxwait_set_count(const struct dvp_rxwait_set *set);

/**
 * Replace the clock dvp_rx_wait() measures sleeps and times its timeouts
 * with (NULL: CLOCK_MONOTONIC). Set it before use: a TSC clock spares a
 * system call per reading where clock_gettime() has no vDSO (a VM with an
 * HPET clocksource); a test passes a fake one (a fake clock that stands
 * still makes each sleep last the whole timeout).
 */
void dvp_rxwait_set_clock(struct dvp_rxwait_set *set, dvp_rxwait_clock_fn clock, void *arg);

/** A queue found ready by dvp_rx_wait(). */
struct dvp_rx_wait_event {
	uint16_t port_id;
	uint16_t queue_id;
	void *data; /**< what was given when the queue was added */
};

/**
 * Wait until at least one queue of @p set has work, @p timeout_ms passes
 * (-1: no limit, 0: do not sleep) or dvp_rx_wait_kick() is called.
 *
 * Arms every queue not armed yet, polls each once more, and returns the
 * ready ones at once if any; else sleeps in epoll_wait(), reads the events
 * of each queue that fired (non-blocking, until EAGAIN; acks batched), and
 * returns those with work. A queue whose source disarms itself when it
 * fires (a CQ: net_verbs, net_mlx5) is returned before its event is read;
 * the read is made when it is armed again, by the next wait or
 * dvp_rx_intr_enable(), off the path from the completion to the reply.
 * An event with no work behind it is counted as spurious, its queue
 * re-armed, and the wait goes on for what is left of @p timeout_ms.
 *
 * @param ready  filled with up to @p max_ready queues
 * @return the number of ready queues (0 on timeout or kick), or a negative
 *   errno after a log line: -EINVAL (bad arguments), -EBUSY (another
 *   thread is waiting on @p set), or the error of a driver hook or of
 *   epoll_wait() (EINTR is retried).
 */
int dvp_rx_wait(struct dvp_rxwait_set *set, struct dvp_rx_wait_event *ready, unsigned int max_ready,
		int timeout_ms);

/**
 * Wake the thread sleeping in dvp_rx_wait() on @p set, or make its next
 * call return at once (0): a kick is never lost. Any thread, async-signal
 * safe (one write(2) to an eventfd).
 * @return 0, or -EINVAL for a NULL set.
 */
int dvp_rx_wait_kick(struct dvp_rxwait_set *set);

/* ------------------------------------------------------------------------
 * The adaptive governor (one per lcore, over that lcore's wait set)
 *
 *     for (;;) {
 *             for each (port, queue) of this lcore
 *                     n = dvp_rx_burst_adaptive(gov, port, queue, pkts, 32);
 *             dvp_rxwait_governor_idle(gov);
 *     }
 *
 * A round (the polls between two calls of dvp_rxwait_governor_idle()) that
 * received something resets the governor to polling. After
 * @c pause_after empty rounds each further empty round pauses for
 * @c pause_ns; after @c sleep_after more it arms the queues and sleeps in
 * dvp_rx_wait(). A wake-up with work goes back to pure polling; a timeout
 * or kick leaves it at the sleeping threshold, so the next empty round
 * sleeps again.
 */

struct dvp_rxwait_governor_conf {
	uint32_t pause_after; /**< N: empty rounds of pure polling (default 256) */
	uint32_t sleep_after; /**< M: further empty rounds, each paused (default 1024) */
	uint32_t pause_ns; /**< length of one pause (default 1000) */
	int sleep_timeout_ms; /**< longest single sleep, -1: no limit (default 100) */
	/** Clock for the counters (NULL: monotonic); also given to the set. */
	dvp_rxwait_clock_fn clock;
	/** How to pause (NULL: spin with dvp_pause() on the clock). */
	void (*pause)(void *arg, uint64_t ns);
	void *clock_arg; /**< passed to clock and pause */
};

/** Fill @p conf with the defaults above (NULL: nothing). */
void dvp_rxwait_governor_conf_default(struct dvp_rxwait_governor_conf *conf);

/**
 * Create a governor over @p set (which it does not own) with @p conf (NULL:
 * defaults). @return it, or NULL with dvp_errno set after a log line.
 */
struct dvp_rxwait_governor *dvp_rxwait_governor_create(struct dvp_rxwait_set *set,
						       const struct dvp_rxwait_governor_conf *conf);

void dvp_rxwait_governor_free(struct dvp_rxwait_governor *gov);

/**
 * Account one rx poll of @p nb_rx packets (@p iq: the queue's interrupt
 * state, or NULL for a queue not in interrupt mode). Cheap: no syscall,
 * lock or allocation. dvp_rx_burst_adaptive() calls it. Fast path, with
 * DPDK's convention for burst functions: @p gov is not checked (NULL
 * crashes), as the rx burst does not check its port.
 */
void dvp_rxwait_governor_account(struct dvp_rxwait_governor *gov, struct dvp_rxwait_queue *iq,
				 uint16_t nb_rx);

/** What dvp_rxwait_governor_idle() did. */
enum dvp_rxwait_governor_action {
	DVP_GOV_POLL = 0, /**< nothing: keep polling */
	DVP_GOV_PAUSE, /**< paused for pause_ns */
	DVP_GOV_SLEEP, /**< armed the queues and slept (or found work while arming) */
};

/**
 * End a round of polls: decide and do what the counts call for.
 * @return an enum dvp_rxwait_governor_action, or the negative errno of
 *   dvp_rx_wait(), or -EINVAL (with a log line) for a NULL @p gov.
 */
int dvp_rxwait_governor_idle(struct dvp_rxwait_governor *gov);

struct dvp_rxwait_governor_stats {
	uint64_t rounds; /**< calls of dvp_rxwait_governor_idle() */
	uint64_t empty_rounds; /**< of which received nothing */
	uint64_t pauses;
	uint64_t sleeps; /**< calls of dvp_rx_wait() */
	uint64_t sleeps_avoided; /**< of which found work after arming, without sleeping */
	uint64_t wakeups; /**< of which returned ready queues after sleeping */
	uint64_t timeouts; /**< of which returned nothing (timeout or kick) */
	uint64_t asleep_ns; /**< time inside dvp_rx_wait() */
};

/** Counters of @p gov (any thread: relaxed snapshots); all 0 for a NULL @p gov. */
void dvp_rxwait_governor_stats_get(const struct dvp_rxwait_governor *gov,
				   struct dvp_rxwait_governor_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* DVP_RXWAIT_H */
