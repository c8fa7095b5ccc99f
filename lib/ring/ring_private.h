/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* lib/ring internals: not installed. */

#ifndef RING_PRIVATE_H
#define RING_PRIVATE_H

#include <dvp_log.h>
#include <dvp_ring.h>

extern int dvp_logtype_ring;

#define RING_LOG(level, fmt, ...) \
	DVP_LOG_LINE(level, dvp_logtype_ring, "RING: ", fmt, ##__VA_ARGS__)

/*
 * Test hook: start an empty ring's four counters at @start, so tests can
 * drive them across the 2^32 wrap. Not thread-safe (as dvp_ring_reset()).
 */
void dvp_ring_test_set_counters(struct dvp_ring *r, uint32_t start);

#endif /* RING_PRIVATE_H */
