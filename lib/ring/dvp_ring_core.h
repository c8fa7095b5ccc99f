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
 * multiple producers), copy the objects in, then publish them by moving
 * prod.tail past them with a release store. Dequeue is the mirror image on
 * cons.head / cons.tail. Among multi-thread calls, head and tail are apart
 * only while a copy is under way.
 *
 * A single-thread call has no one to reserve against: its position is the
 * tail, and it stores only the tail (the producer's head word when its
 * limit is refreshed, the consumer's head when it crosses a multiple of the
 * ring size). One store less per call is worth having: the core commits
 * stores to distinct cache lines at one a cycle, and that is what bounds an
 * enqueue plus a dequeue of one object (doc/perf.md, ring). The heads so
 * left behind stay less than a ring size behind the tails, which is how a
 * multi-thread call after them tells a stale head from a live one
 * (__dvp_ring_position()).
 *
 * Producers keep, in the same 64-bit word as their head, the limit the
 * head may reach: cons.tail + capacity as last read. Room computed from it
 * is a lower bound of the truth, so a producer reads the consumers' cache
 * line only when the limit says there is not enough room: a producer
 * streaming to a consumer on another core no longer misses on the
 * consumer's line at every call. Because the limit changes together with
 * the head (in the same CAS, or the single producer's store when it
 * refreshes the limit), no producer position ever passes it, and room
 * computed from it never wraps. Consumers
 * keep no such copy: a consumer that keeps up finds the ring nearly empty
 * and must read prod.tail anyway, and the copy would cost every dequeue on
 * one core a few instructions.
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

/** The producers' side of the ring. */
struct dvp_ring_prod_headtail {
	/**
	 * High 32 bits: the head, next slot to reserve. Low 32 bits: the limit,
	 * cons.tail + capacity as a producer last read it; the head never
	 * passes it. (Head on top: adding n << 32 moves the head and wraps it
	 * modulo 2^32 without touching the limit.)
	 */
	_Atomic uint64_t head;
	uint32_t single; /**< single producer by default */
	/** Slots up to here are published. Not beside head: see struct dvp_ring. */
	_Atomic uint32_t tail __dvp_aligned(2 * DVP_CACHE_LINE_SIZE);
};

/** The consumers' side of the ring. */
struct dvp_ring_cons_headtail {
	_Atomic uint32_t head; /**< next slot to reserve */
	uint32_t single; /**< single consumer by default */
	/**
	 * prod.tail as a single consumer last read it, kept while entries it
	 * promises are left: the consumer reads prod.tail again only when they
	 * run short. Not beside the tail, which the producer reads: the line
	 * of a head a single consumer seldom writes.
	 */
	_Atomic uint32_t avail;
	/** Slots up to here are released. Not beside head: see struct dvp_ring. */
	_Atomic uint32_t tail __dvp_aligned(2 * DVP_CACHE_LINE_SIZE);
};

static __dvp_always_inline uint32_t __dvp_ring_word_head(uint64_t w)
{
	return (uint32_t)(w >> 32);
}

static __dvp_always_inline uint32_t __dvp_ring_word_limit(uint64_t w)
{
	return (uint32_t)w;
}

static __dvp_always_inline uint64_t __dvp_ring_word(uint32_t head, uint32_t limit)
{
	return (uint64_t)head << 32 | limit;
}

/**
 * A ring. The first cache line is read-only after creation. Each of the
 * four counter groups (prod.head, prod.tail, cons.head, cons.tail) sits in
 * its own pair of cache lines (the pair keeps the adjacent-line prefetcher
 * from pulling a neighbour's line along), so no two of them share a line:
 * - a producer and a consumer on two cores do not share a line, and a
 *   consumer polling prod.tail (a producer reading cons.tail) does not pull
 *   in the line of the head the other side is about to CAS;
 * - on one core, the tail-wait load that follows each CAS on the head does
 *   not hit the line the locked cmpxchg has just written. With head and
 *   tail in one line (as rte_ring has them) that load paid about one load
 *   latency more per CAS on the development VM's Xeon: an MP enqueue plus
 *   an MC dequeue of one object took 37-38 cycles against 29 with the
 *   tails apart, and how much of the penalty showed up changed with the
 *   order the compiler gave the instructions in between (doc/perf.md,
 *   ring).
 * The slots follow the structure, cache-aligned.
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

	struct dvp_ring_prod_headtail prod __dvp_aligned(2 * DVP_CACHE_LINE_SIZE);
	struct dvp_ring_cons_headtail cons __dvp_aligned(2 * DVP_CACHE_LINE_SIZE);
} __dvp_aligned(2 * DVP_CACHE_LINE_SIZE);

/* ------------------------------------------------------------------------
 * Internal helpers of the fast path (names start with __dvp_ring_).
 */

static __dvp_always_inline void *__dvp_ring_slots(const struct dvp_ring *r)
{
	return (void *)(uintptr_t)(r + 1);
}

/*
 * Where a multi-thread call reserves from: the head it loaded, unless
 * single-thread calls moved the tail past it (they keep their position in
 * the tail alone). While multi-thread calls run, head - tail is in
 * [0, capacity]; a head left behind is less than a ring size behind the
 * tail, which puts head - tail (modulo 2^32) above 2^31, so above any
 * capacity.
 */
static __dvp_always_inline uint32_t __dvp_ring_position(uint32_t head, uint32_t tail,
							uint32_t capacity)
{
	if (dvp_unlikely(head - tail > capacity)) {
		/*
		 * The empty asm keeps this a branch (the compiler would make it
		 * a conditional move): predicted not taken, it keeps the tail
		 * load off the dependency chain that leads to the CAS.
		 */
		__asm__("" : "+r"(tail));
		return tail;
	}
	return head;
}

/*
 * Reserve up to @n slots for a single producer. Its position is prod.tail:
 * nothing else can move it while it runs. The head word is written only
 * when the limit is refreshed (at least once per capacity entries), so an
 * enqueue stores one counter, not two. That matters because the core
 * commits stores to distinct cache lines one per cycle, and an enqueue plus
 * a dequeue of one object is bound by exactly that (doc/perf.md, ring).
 */
static __dvp_always_inline unsigned int
__dvp_ring_sp_move_head(struct dvp_ring *r, unsigned int n, enum dvp_ring_queue_behavior behavior,
			uint32_t *old_head, uint32_t *new_head)
{
	uint32_t pos, limit, room;

	/*
	 * Relaxed, both: the last writer of either word is this thread, or a
	 * thread that handed the producer side over to us through something
	 * that synchronises (single-thread calls never overlap other
	 * producers). The limit never lies beyond a tail a producer has
	 * published, so room is in [0, capacity].
	 */
	pos = atomic_load_explicit(&r->prod.tail, memory_order_relaxed);
	*old_head = pos;
	room = __dvp_ring_word_limit(atomic_load_explicit(&r->prod.head, memory_order_relaxed)) -
	       pos;
	if (dvp_unlikely(n > room)) {
		/*
		 * Acquire: pairs with the consumers' release store of cons.tail,
		 * so their reads of the slots we are about to overwrite are done.
		 */
		limit = atomic_load_explicit(&r->cons.tail, memory_order_acquire) + r->capacity;
		room = limit - pos;
		if (dvp_unlikely(n > room)) {
			n = behavior == DVP_RING_QUEUE_FIXED ? 0 : room;
			/* Nothing written: a producer facing a full ring keeps
			 * its lines clean for the consumers polling them. */
			if (n == 0)
				return 0;
		}
		/*
		 * Relaxed: read only by producers, after a handover that
		 * synchronises (above). The head is brought level with the
		 * tail, so it never falls more than a capacity behind.
		 */
		atomic_store_explicit(&r->prod.head, __dvp_ring_word(pos + n, limit),
				      memory_order_relaxed);
	}
	*new_head = pos + n;
	return n;
}

/*
 * Reserve up to @n slots for producers. Returns how many were reserved (0
 * or n for FIXED) and the range [*old_head, *new_head).
 */
static __dvp_always_inline unsigned int
__dvp_ring_move_prod_head(struct dvp_ring *r, bool single, unsigned int n,
			  enum dvp_ring_queue_behavior behavior, uint32_t *old_head,
			  uint32_t *new_head)
{
	const unsigned int max = n;
	uint32_t limit, room;
	uint64_t w, nw;

	if (single)
		return __dvp_ring_sp_move_head(r, n, behavior, old_head, new_head);

	/*
	 * Acquire: pairs with the release CAS of the producer that set this
	 * word. Its limit came from an acquire load of cons.tail, so this
	 * chain makes the consumers' slot reads up to there happen before our
	 * slot writes. It also orders our loads of prod.tail and cons.tail
	 * below after this one: by read-read coherence they return tails no
	 * older than the ones behind the word, so neither the position nor
	 * the room wraps.
	 */
	w = atomic_load_explicit(&r->prod.head, memory_order_acquire);
	do {
		n = max;
		/*
		 * Relaxed: only compared with the head; a CAS that succeeds
		 * proves the head unchanged since w was read, so no producer
		 * has published past it unless single-thread calls did.
		 */
		*old_head = __dvp_ring_position(
			__dvp_ring_word_head(w),
			atomic_load_explicit(&r->prod.tail, memory_order_relaxed), r->capacity);
		/* Modulo 2^32: in [0, capacity], the limit came with the head. */
		room = __dvp_ring_word_limit(w) - *old_head;
		if (dvp_likely(n <= room)) {
			/* Enough by the limit: the consumers' line is not touched. */
			limit = __dvp_ring_word_limit(w);
		} else {
			/* Acquire: as in __dvp_ring_sp_move_head(). */
			limit = atomic_load_explicit(&r->cons.tail, memory_order_acquire) +
				r->capacity;
			room = limit - *old_head;
			if (dvp_unlikely(n > room)) {
				n = behavior == DVP_RING_QUEUE_FIXED ? 0 : room;
				if (n == 0)
					return 0;
			}
		}
		*new_head = *old_head + n;
		nw = __dvp_ring_word(*new_head, limit);
		/*
		 * Release on success: passes our acquire of cons.tail on to the
		 * next producer (see the first load). Acquire on failure: w is
		 * reloaded and must be ordered before the retry's loads, as
		 * above.
		 */
	} while (dvp_unlikely(!atomic_compare_exchange_weak_explicit(
		&r->prod.head, &w, nw, memory_order_release, memory_order_acquire)));
	return n;
}

/*
 * Reserve up to @n entries for a single consumer, its position cons.tail.
 * It reads prod.tail only when the entries its last reading promised run
 * short: with the ring well filled, the producer's stores to prod.tail then
 * find the line still theirs, not shared with a consumer polling it (the
 * counterpart of the producer's limit). The reading is kept only when it
 * promises more than this call takes, so a consumer that empties the ring
 * each time stores nothing more.
 */
static __dvp_always_inline unsigned int
__dvp_ring_sc_move_head(struct dvp_ring *r, unsigned int n, enum dvp_ring_queue_behavior behavior,
			uint32_t *old_head, uint32_t *new_head)
{
	uint32_t pos, avail, entries;

	/* Relaxed, all three: as in __dvp_ring_sp_move_head(). */
	pos = atomic_load_explicit(&r->cons.tail, memory_order_relaxed);
	*old_head = pos;
	entries = atomic_load_explicit(&r->cons.avail, memory_order_relaxed) - pos;
	/*
	 * Above the capacity: a reading older than the position (multi-thread
	 * calls moved it on), so it promises nothing.
	 */
	if (dvp_unlikely(n > entries || entries > r->capacity)) {
		/*
		 * Acquire: pairs with the producers' release store of prod.tail,
		 * so the objects they copied into the slots are visible.
		 */
		avail = atomic_load_explicit(&r->prod.tail, memory_order_acquire);
		entries = avail - pos;
		if (dvp_unlikely(n > entries)) {
			n = behavior == DVP_RING_QUEUE_FIXED ? 0 : entries;
			if (n == 0)
				return 0;
		}
		if (avail != pos + n)
			atomic_store_explicit(&r->cons.avail, avail, memory_order_relaxed);
	}
	*new_head = pos + n;
	/*
	 * Relaxed: read only by consumers, after a handover. Stored only when
	 * it crosses a multiple of the ring size, which keeps it less than a
	 * ring size behind for __dvp_ring_position().
	 */
	if (dvp_unlikely((pos ^ *new_head) > r->mask))
		atomic_store_explicit(&r->cons.head, *new_head, memory_order_relaxed);
	return n;
}

/*
 * Reserve up to @n entries for consumers, as __dvp_ring_move_prod_head.
 */
static __dvp_always_inline unsigned int
__dvp_ring_move_cons_head(struct dvp_ring *r, bool single, unsigned int n,
			  enum dvp_ring_queue_behavior behavior, uint32_t *old_head,
			  uint32_t *new_head)
{
	const unsigned int max = n;
	uint32_t head, entries;
	bool ok;

	if (single)
		return __dvp_ring_sc_move_head(r, n, behavior, old_head, new_head);
	/*
	 * Acquire: pairs with the release CAS of the consumer that set this
	 * head, which read prod.tail before; so our loads of cons.tail and
	 * prod.tail below are not older than its (read-read coherence), and
	 * neither the position nor the entries wrap.
	 */
	head = atomic_load_explicit(&r->cons.head, memory_order_acquire);
	do {
		n = max;
		/* Relaxed: as the producers' load of prod.tail. */
		*old_head = __dvp_ring_position(
			head, atomic_load_explicit(&r->cons.tail, memory_order_relaxed),
			r->capacity);
		/*
		 * Acquire: pairs with the producers' release store of prod.tail,
		 * so the objects they copied into the slots are visible.
		 */
		entries = atomic_load_explicit(&r->prod.tail, memory_order_acquire) - *old_head;
		if (dvp_unlikely(n > entries)) {
			n = behavior == DVP_RING_QUEUE_FIXED ? 0 : entries;
			if (n == 0)
				return 0;
		}
		*new_head = *old_head + n;
		/* Release/acquire: as the producers' CAS. */
		ok = atomic_compare_exchange_weak_explicit(&r->cons.head, &head, *new_head,
							   memory_order_release,
							   memory_order_acquire);
	} while (dvp_unlikely(!ok));
	return n;
}

/*
 * Publish [old_val, new_val): wait until the peers that reserved before us
 * have published theirs, then move the tail.
 */
static __dvp_always_inline void __dvp_ring_update_tail(_Atomic uint32_t *tail, uint32_t old_val,
						       uint32_t new_val, bool single)
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
		while (dvp_unlikely(atomic_load_explicit(tail, memory_order_acquire) != old_val))
			dvp_pause();
	}
	/*
	 * Release: our slot writes (producer) or reads (consumer) are complete
	 * before the other side sees the new tail and reads (or overwrites)
	 * those slots.
	 */
	atomic_store_explicit(tail, new_val, memory_order_release);
}

/*
 * Copy @n entries of @w 32-bit words each between the slot array and the
 * caller's table, starting at slot @idx and wrapping once. A count known at
 * compile time (a constant bulk size) becomes memcpy, which the compiler
 * turns into a few vector moves; otherwise a plain loop, which beats a
 * library call at burst sizes.
 */
#define __DVP_RING_COPY(dst, src, cnt)                                        \
	do {                                                                  \
		if (__builtin_constant_p(cnt)) {                              \
			memcpy((dst), (src), (size_t)(cnt) * sizeof(*(dst))); \
		} else {                                                      \
			uint32_t i_;                                          \
			for (i_ = 0; i_ < (cnt); i_++)                        \
				(dst)[i_] = (src)[i_];                        \
		}                                                             \
	} while (0)

static __dvp_always_inline void __dvp_ring_copy_in_64(uint64_t *__restrict ring, uint32_t mask,
						      uint32_t idx, const uint64_t *__restrict obj,
						      uint32_t n)
{
	const uint32_t size = mask + 1;

	/*
	 * No wrap when idx + n - 1 has no bit above the mask (it is below
	 * 2 x size). Written so, the test folds away for n == 1, since idx is
	 * head & mask.
	 */
	if (dvp_likely(((idx + (n - 1)) & ~mask) == 0)) {
		__DVP_RING_COPY(ring + idx, obj, n);
	} else {
		uint32_t first = size - idx;

		__DVP_RING_COPY(ring + idx, obj, first);
		__DVP_RING_COPY(ring, obj + first, n - first);
	}
}

static __dvp_always_inline void __dvp_ring_copy_out_64(const uint64_t *__restrict ring,
						       uint32_t mask, uint32_t idx,
						       uint64_t *__restrict obj, uint32_t n)
{
	const uint32_t size = mask + 1;

	if (dvp_likely(((idx + (n - 1)) & ~mask) == 0)) {
		__DVP_RING_COPY(obj, ring + idx, n);
	} else {
		uint32_t first = size - idx;

		__DVP_RING_COPY(obj, ring + idx, first);
		__DVP_RING_COPY(obj + first, ring, n - first);
	}
}

/* Entries of any size (a multiple of 4): copied as 32-bit words. */
static __dvp_always_inline void __dvp_ring_copy_in_32(uint32_t *__restrict ring, uint32_t size,
						      uint32_t idx, const uint32_t *__restrict obj,
						      uint32_t n)
{
	if (dvp_likely(idx + n <= size)) {
		__DVP_RING_COPY(ring + idx, obj, n);
	} else {
		uint32_t first = size - idx;

		__DVP_RING_COPY(ring + idx, obj, first);
		__DVP_RING_COPY(ring, obj + first, n - first);
	}
}

static __dvp_always_inline void __dvp_ring_copy_out_32(const uint32_t *__restrict ring,
						       uint32_t size, uint32_t idx,
						       uint32_t *__restrict obj, uint32_t n)
{
	if (dvp_likely(idx + n <= size)) {
		__DVP_RING_COPY(obj, ring + idx, n);
	} else {
		uint32_t first = size - idx;

		__DVP_RING_COPY(obj, ring + idx, first);
		__DVP_RING_COPY(obj + first, ring, n - first);
	}
}

static __dvp_always_inline void __dvp_ring_enqueue_elems(struct dvp_ring *r, uint32_t head,
							 const void *obj, unsigned int esize,
							 uint32_t n)
{
	const uint32_t mask = r->mask;
	uint32_t idx = head & mask;

	if (esize == 8) {
		__dvp_ring_copy_in_64((uint64_t *)__dvp_ring_slots(r), mask, idx,
				      (const uint64_t *)obj, n);
	} else {
		uint32_t w = esize / 4;

		__dvp_ring_copy_in_32((uint32_t *)__dvp_ring_slots(r), (mask + 1) * w, idx * w,
				      (const uint32_t *)obj, n * w);
	}
}

static __dvp_always_inline void __dvp_ring_dequeue_elems(struct dvp_ring *r, uint32_t head,
							 void *obj, unsigned int esize, uint32_t n)
{
	const uint32_t mask = r->mask;
	uint32_t idx = head & mask;

	if (esize == 8) {
		__dvp_ring_copy_out_64((const uint64_t *)__dvp_ring_slots(r), mask, idx,
				       (uint64_t *)obj, n);
	} else {
		uint32_t w = esize / 4;

		__dvp_ring_copy_out_32((const uint32_t *)__dvp_ring_slots(r), (mask + 1) * w,
				       idx * w, (uint32_t *)obj, n * w);
	}
}

/*
 * What the free_space and available outputs report: the room (entries)
 * left after our reservation, from a fresh read of the other side's tail
 * (a producer's limit can be older), clamped because other threads may have
 * moved on since. Relaxed: a snapshot for the caller, no data depends on it.
 * Callers passing NULL do not pay for the load.
 */
static __dvp_always_inline unsigned int __dvp_ring_room_after(const struct dvp_ring *r,
							      uint32_t prod_next)
{
	uint32_t room =
		r->capacity + atomic_load_explicit(&r->cons.tail, memory_order_relaxed) - prod_next;

	return room > r->capacity ? r->capacity : room;
}

static __dvp_always_inline unsigned int __dvp_ring_entries_after(const struct dvp_ring *r,
								 uint32_t cons_next)
{
	uint32_t entries = atomic_load_explicit(&r->prod.tail, memory_order_relaxed) - cons_next;

	return entries > r->capacity ? r->capacity : entries;
}

static __dvp_always_inline unsigned int
__dvp_ring_do_enqueue_elem(struct dvp_ring *r, const void *obj_table, unsigned int esize,
			   unsigned int n, enum dvp_ring_queue_behavior behavior, bool single,
			   unsigned int *free_space)
{
	uint32_t head, next = 0;
	const unsigned int want = n;

	n = __dvp_ring_move_prod_head(r, single, n, behavior, &head, &next);
	if (dvp_likely(n != 0)) {
		/* A bulk moves exactly what was asked: keep a constant count constant. */
		__dvp_ring_enqueue_elems(r, head, obj_table, esize,
					 behavior == DVP_RING_QUEUE_FIXED ? want : n);
		__dvp_ring_update_tail(&r->prod.tail, head, next, single);
	} else {
		next = head;
	}
	if (free_space != NULL)
		*free_space = __dvp_ring_room_after(r, next);
	return n;
}

static __dvp_always_inline unsigned int
__dvp_ring_do_dequeue_elem(struct dvp_ring *r, void *obj_table, unsigned int esize, unsigned int n,
			   enum dvp_ring_queue_behavior behavior, bool single,
			   unsigned int *available)
{
	uint32_t head, next = 0;
	const unsigned int want = n;

	n = __dvp_ring_move_cons_head(r, single, n, behavior, &head, &next);
	if (dvp_likely(n != 0)) {
		__dvp_ring_dequeue_elems(r, head, obj_table, esize,
					 behavior == DVP_RING_QUEUE_FIXED ? want : n);
		__dvp_ring_update_tail(&r->cons.tail, head, next, single);
	} else {
		next = head;
	}
	if (available != NULL)
		*available = __dvp_ring_entries_after(r, next);
	return n;
}

#ifdef __cplusplus
}
#endif

#endif /* DVP_RING_CORE_H */
