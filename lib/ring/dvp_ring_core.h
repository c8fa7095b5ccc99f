/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * The ring's layout and its lock-free fast path (included by dvp_ring.h;
 * do not include it alone).
 *
 * A ring is an array of 2^k slots and two pairs of 32-bit counters that only
 * ever grow (modulo 2^32): the producers' head and tail, and the consumers'
 * head and tail. A slot index is counter & mask. Entries in the ring are
 * prod.tail - cons.head; free room is capacity - (prod.head - cons.tail).
 *
 * Enqueue in three steps: reserve slots by moving prod.head (a CAS among
 * multiple producers, a plain store for a single one), copy the objects in,
 * then publish them by moving prod.tail past them with a release store.
 * Dequeue is the mirror image on cons.head / cons.tail. Head and tail are
 * apart only while a copy is under way.
 *
 * Waiting for a preempted peer: with several producers, each must publish
 * its slots in the order they were reserved, so a producer that reserved
 * after a peer spins (with dvp_pause()) until the peer has moved prod.tail
 * up to its own reservation. If the peer's thread is preempted between its
 * reservation and its publication, the waiter spins for as long as the peer
 * is off its CPU (a scheduler time slice at worst under SCHED_OTHER); it
 * never takes a lock or sleeps. Two threads of real-time priority sharing
 * one CPU can therefore livelock on an MP or MC ring: give such threads
 * single-producer/consumer rings. Consumers behave the same way.
 */

#ifndef DVP_RING_CORE_H
#define DVP_RING_CORE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <dvp_common.h>
#include <dvp_memzone.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Longest ring name, terminating NUL included (the memzone adds "RG_"). */
#define DVP_RING_NAMESIZE (DVP_MEMZONE_NAMESIZE - 3)
/** Prefix of the memzone that holds a named ring. */
#define DVP_RING_MZ_PREFIX "RG_"

/** Creation flags. Multi-producer and multi-consumer are the default. */
#define DVP_RING_F_SP_ENQ 0x0001u /**< enqueue is single-producer by default */
#define DVP_RING_F_SC_DEQ 0x0002u /**< dequeue is single-consumer by default */
/**
 * The ring holds exactly @c count entries (its slot array is the next power
 * of two above). Without it, @c count must be a power of two and the ring
 * holds count - 1 entries, as DPDK's rings do.
 */
#define DVP_RING_F_EXACT_SZ 0x0004u

/** Largest slot array: counters are 32-bit, so distances must stay below 2^31. */
#define DVP_RING_SZ_MASK 0x7fffffffu

/** What a request for more than the ring can give does. */
enum dvp_ring_queue_behavior {
	DVP_RING_QUEUE_FIXED = 0, /**< bulk: all of n, or nothing */
	DVP_RING_QUEUE_VARIABLE, /**< burst: as many as possible */
};

/** One side of the ring: producers or consumers. */
struct dvp_ring_headtail {
	_Atomic uint32_t head; /**< next slot to reserve */
	_Atomic uint32_t tail; /**< slots up to here are published */
	uint32_t single; /**< single producer (or consumer) by default */
};

/**
 * A ring. The first cache line is read-only after creation. Each side's
 * counters sit in their own pair of cache lines, so a producer and a
 * consumer on two cores do not share a line (the pair keeps the adjacent-
 * line prefetcher from pulling the other side's line along). The slots
 * follow the structure, cache-aligned.
 *
 * The fields are visible for the inline fast path; they are not API.
 */
struct dvp_ring {
	uint32_t size; /**< slots: a power of two */
	uint32_t mask; /**< size - 1 */
	uint32_t capacity; /**< usable entries: size - 1, or count with EXACT_SZ */
	uint32_t esize; /**< bytes per entry, a multiple of 4 */
	unsigned int flags; /**< DVP_RING_F_* given at creation */
	int socket_id;
	const struct dvp_memzone *memzone; /**< NULL for a ring built in caller memory */
	char name[DVP_RING_NAMESIZE];

	struct dvp_ring_headtail prod __dvp_aligned(2 * DVP_CACHE_LINE_SIZE);
	struct dvp_ring_headtail cons __dvp_aligned(2 * DVP_CACHE_LINE_SIZE);
} __dvp_aligned(2 * DVP_CACHE_LINE_SIZE);

/* ------------------------------------------------------------------------
 * Internal helpers of the fast path (names start with __dvp_ring_).
 */

static __dvp_always_inline void *__dvp_ring_slots(const struct dvp_ring *r)
{
	return (void *)(uintptr_t)(r + 1);
}

/*
 * Reserve up to @n slots for producers. Returns how many were reserved
 * (0 or n for FIXED), the reserved range [*old_head, *new_head) and the free
 * room seen before the reservation.
 */
static __dvp_always_inline unsigned int
__dvp_ring_move_prod_head(struct dvp_ring *r, bool single, unsigned int n,
			  enum dvp_ring_queue_behavior behavior, uint32_t *old_head,
			  uint32_t *new_head, uint32_t *free_entries)
{
	const uint32_t capacity = r->capacity;
	const unsigned int max = n;
	uint32_t cons_tail;
	bool ok;

	/*
	 * Acquire: pairs with the release CAS of the producer that set this
	 * head. That producer read cons.tail before moving the head, so after
	 * this load our own read of cons.tail is at least as recent as its
	 * (read-read coherence). With a relaxed load, an older cons.tail could
	 * pair with a newer head and "free" would wrap to a huge number.
	 */
	*old_head = atomic_load_explicit(&r->prod.head, memory_order_acquire);
	do {
		n = max;
		/*
		 * Acquire: pairs with the consumers' release store of cons.tail,
		 * so their reads of the slots we are about to overwrite are done
		 * before our writes.
		 */
		cons_tail = atomic_load_explicit(&r->cons.tail, memory_order_acquire);
		/* Modulo 2^32: always in [0, capacity] given the ordering above. */
		*free_entries = capacity + cons_tail - *old_head;
		if (dvp_unlikely(n > *free_entries))
			n = behavior == DVP_RING_QUEUE_FIXED ? 0 : *free_entries;
		if (dvp_unlikely(n == 0))
			return 0;
		*new_head = *old_head + n;
		if (single) {
			/*
			 * Relaxed: no other producer reads it concurrently; a later
			 * caller on another thread synchronises by other means.
			 */
			atomic_store_explicit(&r->prod.head, *new_head, memory_order_relaxed);
			ok = true;
		} else {
			/*
			 * Release on success: publishes the cons.tail we based the
			 * reservation on to the next producer (see the acquire load
			 * above). Acquire on failure: *old_head is reloaded and must
			 * be ordered before the cons.tail load of the retry, for the
			 * same reason as the first load.
			 */
			ok = atomic_compare_exchange_weak_explicit(&r->prod.head, old_head,
								   *new_head, memory_order_release,
								   memory_order_acquire);
		}
	} while (dvp_unlikely(!ok));
	return n;
}

/* Mirror image of __dvp_ring_move_prod_head for consumers. */
static __dvp_always_inline unsigned int
__dvp_ring_move_cons_head(struct dvp_ring *r, bool single, unsigned int n,
			  enum dvp_ring_queue_behavior behavior, uint32_t *old_head,
			  uint32_t *new_head, uint32_t *entries)
{
	const unsigned int max = n;
	uint32_t prod_tail;
	bool ok;

	/* Acquire: as for prod.head, so prod.tail is not older than the one the
	 * consumer that set this head saw (entries would wrap otherwise). */
	*old_head = atomic_load_explicit(&r->cons.head, memory_order_acquire);
	do {
		n = max;
		/*
		 * Acquire: pairs with the producers' release store of prod.tail,
		 * so the objects they copied into the slots are visible to us.
		 */
		prod_tail = atomic_load_explicit(&r->prod.tail, memory_order_acquire);
		*entries = prod_tail - *old_head;
		if (dvp_unlikely(n > *entries))
			n = behavior == DVP_RING_QUEUE_FIXED ? 0 : *entries;
		if (dvp_unlikely(n == 0))
			return 0;
		*new_head = *old_head + n;
		if (single) {
			/* Relaxed: private to the single consumer. */
			atomic_store_explicit(&r->cons.head, *new_head, memory_order_relaxed);
			ok = true;
		} else {
			/* Release/acquire: as for the producers' CAS. */
			ok = atomic_compare_exchange_weak_explicit(&r->cons.head, old_head,
								   *new_head, memory_order_release,
								   memory_order_acquire);
		}
	} while (dvp_unlikely(!ok));
	return n;
}

/*
 * Publish [old_val, new_val): wait until the peers that reserved before us
 * have published theirs, then move the tail.
 */
static __dvp_always_inline void __dvp_ring_update_tail(struct dvp_ring_headtail *ht,
						       uint32_t old_val, uint32_t new_val,
						       bool single)
{
	if (!single) {
		/*
		 * Acquire: the peer's release store of the tail we wait for
		 * carries its slot copies (or slot reads); our release store
		 * below then passes them on to the other side, which
		 * synchronises with our store only. A relaxed load would break
		 * that chain: a plain store does not extend a release sequence.
		 * The wait is as long as the peer is between its reservation and
		 * its publication, preempted or not (see the file comment).
		 */
		while (dvp_unlikely(atomic_load_explicit(&ht->tail, memory_order_acquire) !=
				    old_val))
			dvp_pause();
	}
	/*
	 * Release: our slot writes (producer) or reads (consumer) are complete
	 * before the other side sees the new tail and reads (or overwrites)
	 * those slots.
	 */
	atomic_store_explicit(&ht->tail, new_val, memory_order_release);
}

/* Copy n 64-bit entries into the slots from index idx, wrapping once. */
static __dvp_always_inline void __dvp_ring_copy_in_64(uint64_t *__restrict ring, uint32_t size,
						      uint32_t idx, const uint64_t *__restrict obj,
						      uint32_t n)
{
	uint32_t i;

	if (dvp_likely(idx + n <= size)) {
		for (i = 0; i < (n & ~3u); i += 4) {
			ring[idx + i] = obj[i];
			ring[idx + i + 1] = obj[i + 1];
			ring[idx + i + 2] = obj[i + 2];
			ring[idx + i + 3] = obj[i + 3];
		}
		for (; i < n; i++)
			ring[idx + i] = obj[i];
	} else {
		for (i = 0; idx < size; i++, idx++)
			ring[idx] = obj[i];
		for (idx = 0; i < n; i++, idx++)
			ring[idx] = obj[i];
	}
}

static __dvp_always_inline void __dvp_ring_copy_out_64(const uint64_t *__restrict ring,
						       uint32_t size, uint32_t idx,
						       uint64_t *__restrict obj, uint32_t n)
{
	uint32_t i;

	if (dvp_likely(idx + n <= size)) {
		for (i = 0; i < (n & ~3u); i += 4) {
			obj[i] = ring[idx + i];
			obj[i + 1] = ring[idx + i + 1];
			obj[i + 2] = ring[idx + i + 2];
			obj[i + 3] = ring[idx + i + 3];
		}
		for (; i < n; i++)
			obj[i] = ring[idx + i];
	} else {
		for (i = 0; idx < size; i++, idx++)
			obj[i] = ring[idx];
		for (idx = 0; i < n; i++, idx++)
			obj[i] = ring[idx];
	}
}

/* Entries of any size (a multiple of 4): copied as 32-bit words. */
static __dvp_always_inline void __dvp_ring_copy_in_32(uint32_t *__restrict ring, uint32_t size,
						      uint32_t idx, const uint32_t *__restrict obj,
						      uint32_t n)
{
	uint32_t i;

	if (dvp_likely(idx + n <= size)) {
		memcpy(&ring[idx], obj, (size_t)n * 4);
	} else {
		i = size - idx;
		memcpy(&ring[idx], obj, (size_t)i * 4);
		memcpy(ring, obj + i, (size_t)(n - i) * 4);
	}
}

static __dvp_always_inline void __dvp_ring_copy_out_32(const uint32_t *__restrict ring,
						       uint32_t size, uint32_t idx,
						       uint32_t *__restrict obj, uint32_t n)
{
	uint32_t i;

	if (dvp_likely(idx + n <= size)) {
		memcpy(obj, &ring[idx], (size_t)n * 4);
	} else {
		i = size - idx;
		memcpy(obj, &ring[idx], (size_t)i * 4);
		memcpy(obj + i, ring, (size_t)(n - i) * 4);
	}
}

static __dvp_always_inline void __dvp_ring_enqueue_elems(struct dvp_ring *r, uint32_t head,
							 const void *obj, unsigned int esize,
							 uint32_t n)
{
	uint32_t idx = head & r->mask;

	if (esize == 8) {
		__dvp_ring_copy_in_64((uint64_t *)__dvp_ring_slots(r), r->size, idx,
				      (const uint64_t *)obj, n);
	} else {
		uint32_t w = esize / 4;

		__dvp_ring_copy_in_32((uint32_t *)__dvp_ring_slots(r), r->size * w, idx * w,
				      (const uint32_t *)obj, n * w);
	}
}

static __dvp_always_inline void __dvp_ring_dequeue_elems(struct dvp_ring *r, uint32_t head,
							 void *obj, unsigned int esize, uint32_t n)
{
	uint32_t idx = head & r->mask;

	if (esize == 8) {
		__dvp_ring_copy_out_64((const uint64_t *)__dvp_ring_slots(r), r->size, idx,
				       (uint64_t *)obj, n);
	} else {
		uint32_t w = esize / 4;

		__dvp_ring_copy_out_32((const uint32_t *)__dvp_ring_slots(r), r->size * w, idx * w,
				       (uint32_t *)obj, n * w);
	}
}

static __dvp_always_inline unsigned int
__dvp_ring_do_enqueue_elem(struct dvp_ring *r, const void *obj_table, unsigned int esize,
			   unsigned int n, enum dvp_ring_queue_behavior behavior, bool single,
			   unsigned int *free_space)
{
	uint32_t head, next, free_entries;

	n = __dvp_ring_move_prod_head(r, single, n, behavior, &head, &next, &free_entries);
	if (dvp_likely(n != 0)) {
		__dvp_ring_enqueue_elems(r, head, obj_table, esize, n);
		__dvp_ring_update_tail(&r->prod, head, next, single);
	}
	if (free_space != NULL)
		*free_space = free_entries - n;
	return n;
}

static __dvp_always_inline unsigned int
__dvp_ring_do_dequeue_elem(struct dvp_ring *r, void *obj_table, unsigned int esize, unsigned int n,
			   enum dvp_ring_queue_behavior behavior, bool single,
			   unsigned int *available)
{
	uint32_t head, next, entries;

	n = __dvp_ring_move_cons_head(r, single, n, behavior, &head, &next, &entries);
	if (dvp_likely(n != 0)) {
		__dvp_ring_dequeue_elems(r, head, obj_table, esize, n);
		__dvp_ring_update_tail(&r->cons, head, next, single);
	}
	if (available != NULL)
		*available = entries - n;
	return n;
}

#ifdef __cplusplus
}
#endif

#endif /* DVP_RING_CORE_H */
