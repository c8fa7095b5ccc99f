/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* lib/intr internals: not installed. */

#ifndef INTR_PRIVATE_H
#define INTR_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>

#include <dvp_counter.h>
#include <dvp_errno.h>
#include <dvp_intr_driver.h>
#include <dvp_log.h>

extern int dvp_logtype_intr;

#define INTR_LOG(level, fmt, ...) \
	DVP_LOG_LINE(level, dvp_logtype_intr, "INTR: ", fmt, ##__VA_ARGS__)

/* CLOCK_MONOTONIC in ns (vDSO: no system call). */
uint64_t intr_clock_monotonic_ns(void *arg);

/* dvp_rx_wait() that also says whether it slept in epoll_wait(). */
int intr_rx_wait(struct dvp_intr_set *set, struct dvp_rx_wait_event *ready, unsigned int max_ready,
		 int timeout_ms, bool *slept);

/* The set's clock. */
uint64_t intr_set_now(const struct dvp_intr_set *set);

/* Set @p set's clock if it has none of its own (the governor's). */
void intr_set_clock_default(struct dvp_intr_set *set, dvp_intr_clock_fn clock, void *arg);

unsigned int intr_set_max_queues(const struct dvp_intr_set *set);

#endif /* INTR_PRIVATE_H */
