/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The adaptive governor: poll while there is traffic, pause when it has
 * been quiet for a while, arm and sleep when it stays quiet (the shape of
 * DPDK's l3fwd-power empty-poll counting and its pmd_mgmt pause mode).
 *
 * It counts rounds, not time: a round is the polls between two calls of
 * dvp_rxwait_governor_idle(), and only a whole round with nothing received
 * is empty. A round that polled a queue without interrupt state never
 * sleeps (nothing would wake it for that queue): it pauses at most.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dvp_cycles.h>

#include "rxwait_private.h"

struct dvp_rxwait_governor {
	struct dvp_rxwait_set *set;
	struct dvp_rxwait_governor_conf conf;
	/* The lcore's own state. */
	uint64_t round_rx;
	uint64_t empty_rounds; /* saturates one past pause_after + sleep_after */
	bool round_unarmable;
	unsigned int max_ready;
	struct dvp_rxwait_governor_stats stats; /* one writer: relaxed */
	struct dvp_rx_wait_event ready[];
};

void dvp_rxwait_governor_conf_default(struct dvp_rxwait_governor_conf *conf)
{
	if (conf == NULL)
		return;
	memset(conf, 0, sizeof(*conf));
	conf->pause_after = 256;
	conf->sleep_after = 1024;
	conf->pause_ns = 1000;
	conf->sleep_timeout_ms = 100;
}

struct dvp_rxwait_governor *dvp_rxwait_governor_create(struct dvp_rxwait_set *set,
						       const struct dvp_rxwait_governor_conf *conf)
{
	struct dvp_rxwait_governor *gov;
	unsigned int max;

	if (set == NULL) {
		RXWAIT_LOG(ERR, "governor create: no wait set");
		dvp_errno = EINVAL;
		return NULL;
	}
	if (conf != NULL && conf->sleep_timeout_ms < -1) {
		RXWAIT_LOG(
			ERR,
			"governor create: sleep_timeout_ms %d: use -1 (no limit) or a number of ms >= 0",
			conf->sleep_timeout_ms);
		dvp_errno = EINVAL;
		return NULL;
	}
	max = rxwait_set_max_queues(set);
	gov = calloc(1, sizeof(*gov) + max * sizeof(gov->ready[0]));
	if (gov == NULL) {
		RXWAIT_LOG(ERR, "governor create: out of memory");
		dvp_errno = ENOMEM;
		return NULL;
	}
	if (conf != NULL)
		gov->conf = *conf;
	else
		dvp_rxwait_governor_conf_default(&gov->conf);
	if (gov->conf.clock == NULL) {
		gov->conf.clock = rxwait_clock_monotonic_ns;
		gov->conf.clock_arg = NULL;
	} else {
		rxwait_set_clock_default(set, gov->conf.clock, gov->conf.clock_arg);
	}
	gov->set = set;
	gov->max_ready = max;
	return gov;
}

void dvp_rxwait_governor_free(struct dvp_rxwait_governor *gov)
{
	free(gov);
}

void dvp_rxwait_governor_account(struct dvp_rxwait_governor *gov, struct dvp_rxwait_queue *iq,
				 uint16_t nb_rx)
{
	gov->round_rx += nb_rx;
	if (iq == NULL || !iq->initialized) {
		gov->round_unarmable = true;
		return;
	}
	dvp_counter_add(&iq->stats.polls, 1);
	if (nb_rx == 0)
		dvp_counter_add(&iq->stats.empty_polls, 1);
}

static void governor_pause(struct dvp_rxwait_governor *gov)
{
	uint64_t end;

	if (gov->conf.pause != NULL) {
		gov->conf.pause(gov->conf.clock_arg, gov->conf.pause_ns);
		return;
	}
	/* A spin, not a sleep: the kernel's shortest sleep is far longer. */
	end = gov->conf.clock(gov->conf.clock_arg) + gov->conf.pause_ns;
	while (gov->conf.clock(gov->conf.clock_arg) < end)
		dvp_pause();
}

static __dvp_cold int governor_idle_null(void)
{
	RXWAIT_LOG(ERR, "governor idle: no governor (dvp_rxwait_governor_create() failed?)");
	return dvp_err(EINVAL);
}

int dvp_rxwait_governor_idle(struct dvp_rxwait_governor *gov)
{
	struct dvp_rxwait_governor_stats *st;
	uint64_t sleep_at, t0, t1;
	bool unarmable, slept;
	int r;

	/* Once per round, not per packet: a predicted branch, and a clear error. */
	if (dvp_unlikely(gov == NULL))
		return governor_idle_null();
	st = &gov->stats;
	sleep_at = (uint64_t)gov->conf.pause_after + gov->conf.sleep_after;
	unarmable = gov->round_unarmable;

	dvp_counter_add(&st->rounds, 1);
	gov->round_unarmable = false;
	if (gov->round_rx > 0) {
		gov->round_rx = 0;
		gov->empty_rounds = 0;
		return DVP_GOV_POLL;
	}
	dvp_counter_add(&st->empty_rounds, 1);
	if (gov->empty_rounds <= sleep_at)
		gov->empty_rounds++;
	if (gov->empty_rounds <= gov->conf.pause_after)
		return DVP_GOV_POLL;
	if (gov->empty_rounds <= sleep_at || unarmable) {
		governor_pause(gov);
		dvp_counter_add(&st->pauses, 1);
		return DVP_GOV_PAUSE;
	}

	t0 = gov->conf.clock(gov->conf.clock_arg);
	r = rxwait_rx_wait(gov->set, gov->ready, gov->max_ready, gov->conf.sleep_timeout_ms,
			   &slept);
	t1 = gov->conf.clock(gov->conf.clock_arg);
	dvp_counter_add(&st->sleeps, 1);
	dvp_counter_add(&st->asleep_ns, t1 - t0);
	if (r < 0)
		return r;
	if (r > 0) {
		dvp_counter_add(slept ? &st->wakeups : &st->sleeps_avoided, 1);
		gov->empty_rounds = 0;
	} else {
		/* Timeout or kick: stay at the threshold, the next empty round sleeps. */
		dvp_counter_add(&st->timeouts, 1);
	}
	return DVP_GOV_SLEEP;
}

void dvp_rxwait_governor_stats_get(const struct dvp_rxwait_governor *gov,
				   struct dvp_rxwait_governor_stats *stats)
{
	const uint64_t *in;
	uint64_t *out = (uint64_t *)stats;
	size_t i;

	if (stats == NULL)
		return;
	if (gov == NULL) {
		memset(stats, 0, sizeof(*stats));
		return;
	}
	in = (const uint64_t *)&gov->stats;
	for (i = 0; i < sizeof(*stats) / sizeof(uint64_t); i++)
		out[i] = dvp_counter_read(&in[i]);
}
