/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* lib/rxwait internals: not installed. */

#ifndef RXWAIT_PRIVATE_H
#define RXWAIT_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include <dvp_counter.h>
#include <dvp_cycles.h>
#include <dvp_errno.h>
#include <dvp_rxwait_driver.h>
#include <dvp_log.h>

extern int dvp_logtype_rxwait;

#define RXWAIT_LOG(level, fmt, ...) \
	DVP_LOG_LINE(level, dvp_logtype_rxwait, "RXWAIT: ", fmt, ##__VA_ARGS__)

/* dvp_clock_monotonic_ns() as a dvp_rxwait_clock_fn: sets' and governors' default clock. */
uint64_t rxwait_clock_monotonic_ns(void *arg);

/* dvp_rx_wait() that also says whether it slept in epoll_wait(). */
int rxwait_rx_wait(struct dvp_rxwait_set *set, struct dvp_rx_wait_event *ready,
		   unsigned int max_ready, int timeout_ms, bool *slept);

/* The set's clock. */
uint64_t rxwait_set_now(const struct dvp_rxwait_set *set);

/* Set @p set's clock if it has none of its own (the governor's). */
void rxwait_set_clock_default(struct dvp_rxwait_set *set, dvp_rxwait_clock_fn clock, void *arg);

unsigned int rxwait_set_max_queues(const struct dvp_rxwait_set *set);

#endif /* RXWAIT_PRIVATE_H */
