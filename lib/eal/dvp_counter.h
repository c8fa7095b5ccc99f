/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Single-writer counters: a uint64_t that one thread alone adds to (the
 * lcore polling a queue, the thread holding a lock) and any thread reads,
 * and the one reset rule every library and driver follows.
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
 * The reset rule. A reset must not write the counter (that would be a
 * second writer, and the writer's next store would undo it or lose an
 * increment): it records the current values as the baseline, and every
 * read subtracts it. So a reset is safe while the writer runs, from any
 * thread (dvp_counters_reset(), dvp_counters_read()).
 *
 * The baseline is stored with release and loaded with acquire before the
 * counter: a reader that sees a baseline then sees a counter at least as
 * large (the writer's stores are ordered before the reset's load of the
 * counter, which precedes its release store), so a read taken across a
 * reset is never negative: it shows counts since that reset or since the
 * one before. That is the weakest order that gives it.
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

/** @p out[i] = @p ctr[i] - @p base[i] for i < @p n, by the reset rule. Any thread. */
static inline void dvp_counters_read(const uint64_t *ctr, const uint64_t *base, uint64_t *out,
				     unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		/* Baseline first (acquire): the counter read after it is at least as large. */
		uint64_t b = __atomic_load_n(&base[i], __ATOMIC_ACQUIRE);

		out[i] = dvp_counter_read(&ctr[i]) - b;
	}
}

/** Record @p ctr[0..n) as the baseline @p base. Any thread; never writes @p ctr. */
static inline void dvp_counters_reset(const uint64_t *ctr, uint64_t *base, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		__atomic_store_n(&base[i], dvp_counter_read(&ctr[i]), __ATOMIC_RELEASE);
}

#endif /* DVP_COUNTER_H */
