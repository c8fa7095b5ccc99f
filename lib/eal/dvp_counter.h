/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Single-writer counters: a uint64_t that one thread alone adds to (the
 * lcore polling a queue, the thread holding a lock) and any thread reads.
 *
 * The writer reads the counter plainly (only its own stores can race with
 * that read, and they cannot: they are its own) and stores the sum relaxed,
 * no read-modify-write: with one writer no increment can be lost, and a
 * locked add would cost a fast path dozens of cycles for nothing. The plain
 * read leaves the compiler free to schedule it with the burst's other loads.
 *
 * Readers load relaxed. Relaxed is the weakest order that is correct here:
 * a reader wants a value the writer did store (no torn or invented value,
 * which the atomic access gives), not an order with other memory, and
 * nothing is published through a counter. On x86-64 and arm64 both sides
 * compile to plain loads and stores.
 *
 * A reset must not write the counter (that would be a second writer): keep
 * a baseline beside it instead (see dvp_port_counters.h).
 */

#ifndef DVP_COUNTER_H
#define DVP_COUNTER_H

#include <stdint.h>

#include <dvp_common.h>

/** Add @p n to @p c. Only the counter's one writer may call it. */
static __dvp_always_inline void dvp_counter_add(uint64_t *c, uint64_t n)
{
	__atomic_store_n(c, *c + n, __ATOMIC_RELAXED);
}

/** The value of @p c as its writer last stored it. Any thread. */
static __dvp_always_inline uint64_t dvp_counter_read(const uint64_t *c)
{
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}

#endif /* DVP_COUNTER_H */
