/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * Asking for cache lines before a burst writes them.
 *
 * A burst that writes into memory another core used last (a memif peer's
 * buffers) misses on each store: the line must be fetched for ownership
 * first, stores retire in order, and one store waiting at the head of the
 * store buffer holds back every store behind it. Asking for the burst's
 * lines up front lets the misses overlap. Loads need this less: the CPU
 * already runs ahead to the next packet's independent loads.
 *
 * A prefetch never faults, so an address from a peer need not be checked
 * before it is prefetched, only before it is used.
 */

#ifndef DVP_PREFETCH_H
#define DVP_PREFETCH_H

#ifdef __cplusplus
extern "C" {
#endif

/** Bring the line at @p p into every cache level, owned, to be written. */
static inline void dvp_prefetch0_write(const void *p)
{
	__builtin_prefetch(p, 1, 3);
}

#ifdef __cplusplus
}
#endif

#endif /* DVP_PREFETCH_H */
