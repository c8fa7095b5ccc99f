/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * Lock-free FIFO rings of pointers or of fixed-size elements, as DPDK's
 * rte_ring.
 *
 * A ring is single- or multi-producer and single- or multi-consumer, chosen
 * at creation (DVP_RING_F_SP_ENQ, DVP_RING_F_SC_DEQ; multi is the default)
 * and overridable per call (the _mp_/_sp_ and _mc_/_sc_ variants). Calls
 * with the single-thread variant must not run concurrently with any other
 * call on the same side of the ring.
 *
 * Bulk calls move all n objects or none; burst calls move as many as they
 * can. Both return the number moved and, when the last argument is not
 * NULL, the free room (enqueue) or the entries left (dequeue) after the
 * call. A request for 0 objects moves nothing and returns 0.
 *
 * Pointer rings have 8-byte entries; the _elem calls work on rings created
 * with dvp_ring_create_elem() and take the entry size, which must be the
 * ring's (a multiple of 4; pass it as a constant so the copy specialises).
 *
 * The fast path (everything static inline here) takes no lock, makes no
 * system call and never logs. How producers wait for a preempted peer is in
 * dvp_ring_core.h.
 */

#ifndef DVP_RING_H
#define DVP_RING_H

#include <errno.h>
#include <stdio.h>
#include <sys/types.h>

#include <dvp_ring_core.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------
 * Control path
 */

/**
 * Bytes needed for a ring of @p count entries of @p esize bytes.
 * @return the size, or -EINVAL (with a log line) when @p esize is not a
 *   non-zero multiple of 4 or @p count is 0 or above DVP_RING_SZ_MASK.
 *   @p count is rounded up to a power of two, as with DVP_RING_F_EXACT_SZ.
 */
ssize_t dvp_ring_get_memsize_elem(unsigned int count, unsigned int esize);

/** Same for a pointer ring. */
ssize_t dvp_ring_get_memsize(unsigned int count);

/**
 * Build a ring in memory the caller owns (at least dvp_ring_get_memsize_elem()
 * bytes, aligned to 2 cache lines). Such a ring has no memzone: it cannot be
 * found by name nor freed with dvp_ring_free().
 * @return 0, or -EINVAL after a log line (bad count, esize, flags or name).
 */
int dvp_ring_init_elem(struct dvp_ring *r, const char *name, unsigned int count, unsigned int esize,
		       unsigned int flags);
int dvp_ring_init(struct dvp_ring *r, const char *name, unsigned int count, unsigned int flags);

/**
 * Create a named ring of @p count entries of @p esize bytes in a memzone on
 * NUMA node @p socket_id (DVP_SOCKET_ANY for any).
 *
 * @param count  a power of two (the ring then holds count - 1 entries), or
 *   any value up to 2^31 - 1 with DVP_RING_F_EXACT_SZ (the ring then holds
 *   exactly count entries)
 * @param flags  DVP_RING_F_SP_ENQ, DVP_RING_F_SC_DEQ, DVP_RING_F_EXACT_SZ
 * @return the ring, or NULL with dvp_errno set after a log line: EINVAL (bad
 *   name, count, esize or flags), EEXIST (a ring of that name exists),
 *   ENOMEM (no room on the node), E_DVP_NO_INIT (EAL not initialised).
 */
struct dvp_ring *dvp_ring_create_elem(const char *name, unsigned int count, unsigned int esize,
				      int socket_id, unsigned int flags);

/** Create a ring of pointers (8-byte entries). */
struct dvp_ring *dvp_ring_create(const char *name, unsigned int count, int socket_id,
				 unsigned int flags);

/**
 * Free a ring made by dvp_ring_create*() (NULL is fine). The caller makes
 * sure no thread uses it any more; entries still in it are dropped.
 */
void dvp_ring_free(struct dvp_ring *r);

/** @return the ring named @p name, or NULL with dvp_errno = ENOENT. */
struct dvp_ring *dvp_ring_lookup(const char *name);

/**
 * Empty the ring and set its counters back to 0. Not thread-safe: no other
 * thread may use the ring meanwhile.
 */
void dvp_ring_reset(struct dvp_ring *r);

/** Print the ring's geometry and counters to @p f. */
void dvp_ring_dump(FILE *f, const struct dvp_ring *r);

/* ------------------------------------------------------------------------
 * Fast path: elements of any size
 */

/** Enqueue all of @p n elements or none, multi-producer safe. */
static __dvp_always_inline unsigned int
dvp_ring_mp_enqueue_bulk_elem(struct dvp_ring *r, const void *obj_table, unsigned int esize,
			      unsigned int n, unsigned int *free_space)
{
	return __dvp_ring_do_enqueue_elem(r, obj_table, esize, n, DVP_RING_QUEUE_FIXED, false,
					  free_space);
}

/** Enqueue all of @p n elements or none; the caller is the only producer. */
static __dvp_always_inline unsigned int
dvp_ring_sp_enqueue_bulk_elem(struct dvp_ring *r, const void *obj_table, unsigned int esize,
			      unsigned int n, unsigned int *free_space)
{
	return __dvp_ring_do_enqueue_elem(r, obj_table, esize, n, DVP_RING_QUEUE_FIXED, true,
					  free_space);
}

/** Enqueue all of @p n elements or none, as the ring was created (SP or MP). */
static __dvp_always_inline unsigned int
dvp_ring_enqueue_bulk_elem(struct dvp_ring *r, const void *obj_table, unsigned int esize,
			   unsigned int n, unsigned int *free_space)
{
	return __dvp_ring_do_enqueue_elem(r, obj_table, esize, n, DVP_RING_QUEUE_FIXED,
					  r->prod.single, free_space);
}

/** Enqueue as many of @p n elements as fit, multi-producer safe. */
static __dvp_always_inline unsigned int
dvp_ring_mp_enqueue_burst_elem(struct dvp_ring *r, const void *obj_table, unsigned int esize,
			       unsigned int n, unsigned int *free_space)
{
	return __dvp_ring_do_enqueue_elem(r, obj_table, esize, n, DVP_RING_QUEUE_VARIABLE, false,
					  free_space);
}

static __dvp_always_inline unsigned int
dvp_ring_sp_enqueue_burst_elem(struct dvp_ring *r, const void *obj_table, unsigned int esize,
			       unsigned int n, unsigned int *free_space)
{
	return __dvp_ring_do_enqueue_elem(r, obj_table, esize, n, DVP_RING_QUEUE_VARIABLE, true,
					  free_space);
}

static __dvp_always_inline unsigned int
dvp_ring_enqueue_burst_elem(struct dvp_ring *r, const void *obj_table, unsigned int esize,
			    unsigned int n, unsigned int *free_space)
{
	return __dvp_ring_do_enqueue_elem(r, obj_table, esize, n, DVP_RING_QUEUE_VARIABLE,
					  r->prod.single, free_space);
}

/** Dequeue all of @p n elements or none, multi-consumer safe. */
static __dvp_always_inline unsigned int
dvp_ring_mc_dequeue_bulk_elem(struct dvp_ring *r, void *obj_table, unsigned int esize,
			      unsigned int n, unsigned int *available)
{
	return __dvp_ring_do_dequeue_elem(r, obj_table, esize, n, DVP_RING_QUEUE_FIXED, false,
					  available);
}

static __dvp_always_inline unsigned int
dvp_ring_sc_dequeue_bulk_elem(struct dvp_ring *r, void *obj_table, unsigned int esize,
			      unsigned int n, unsigned int *available)
{
	return __dvp_ring_do_dequeue_elem(r, obj_table, esize, n, DVP_RING_QUEUE_FIXED, true,
					  available);
}

static __dvp_always_inline unsigned int
dvp_ring_dequeue_bulk_elem(struct dvp_ring *r, void *obj_table, unsigned int esize, unsigned int n,
			   unsigned int *available)
{
	return __dvp_ring_do_dequeue_elem(r, obj_table, esize, n, DVP_RING_QUEUE_FIXED,
					  r->cons.single, available);
}

/** Dequeue as many of @p n elements as there are, multi-consumer safe. */
static __dvp_always_inline unsigned int
dvp_ring_mc_dequeue_burst_elem(struct dvp_ring *r, void *obj_table, unsigned int esize,
			       unsigned int n, unsigned int *available)
{
	return __dvp_ring_do_dequeue_elem(r, obj_table, esize, n, DVP_RING_QUEUE_VARIABLE, false,
					  available);
}

static __dvp_always_inline unsigned int
dvp_ring_sc_dequeue_burst_elem(struct dvp_ring *r, void *obj_table, unsigned int esize,
			       unsigned int n, unsigned int *available)
{
	return __dvp_ring_do_dequeue_elem(r, obj_table, esize, n, DVP_RING_QUEUE_VARIABLE, true,
					  available);
}

static __dvp_always_inline unsigned int
dvp_ring_dequeue_burst_elem(struct dvp_ring *r, void *obj_table, unsigned int esize, unsigned int n,
			    unsigned int *available)
{
	return __dvp_ring_do_dequeue_elem(r, obj_table, esize, n, DVP_RING_QUEUE_VARIABLE,
					  r->cons.single, available);
}

/** One element: @return 0, or -ENOBUFS when the ring is full. */
static __dvp_always_inline int dvp_ring_enqueue_elem(struct dvp_ring *r, const void *obj,
						     unsigned int esize)
{
	return dvp_ring_enqueue_bulk_elem(r, obj, esize, 1, NULL) ? 0 : -ENOBUFS;
}

/** One element: @return 0, or -ENOENT when the ring is empty. */
static __dvp_always_inline int dvp_ring_dequeue_elem(struct dvp_ring *r, void *obj,
						     unsigned int esize)
{
	return dvp_ring_dequeue_bulk_elem(r, obj, esize, 1, NULL) ? 0 : -ENOENT;
}

/* ------------------------------------------------------------------------
 * Fast path: pointers
 */

static __dvp_always_inline unsigned int dvp_ring_mp_enqueue_bulk(struct dvp_ring *r,
								 void *const *obj_table,
								 unsigned int n,
								 unsigned int *free_space)
{
	return dvp_ring_mp_enqueue_bulk_elem(r, obj_table, sizeof(void *), n, free_space);
}

static __dvp_always_inline unsigned int dvp_ring_sp_enqueue_bulk(struct dvp_ring *r,
								 void *const *obj_table,
								 unsigned int n,
								 unsigned int *free_space)
{
	return dvp_ring_sp_enqueue_bulk_elem(r, obj_table, sizeof(void *), n, free_space);
}

static __dvp_always_inline unsigned int dvp_ring_enqueue_bulk(struct dvp_ring *r,
							      void *const *obj_table,
							      unsigned int n,
							      unsigned int *free_space)
{
	return dvp_ring_enqueue_bulk_elem(r, obj_table, sizeof(void *), n, free_space);
}

static __dvp_always_inline unsigned int dvp_ring_mp_enqueue_burst(struct dvp_ring *r,
								  void *const *obj_table,
								  unsigned int n,
								  unsigned int *free_space)
{
	return dvp_ring_mp_enqueue_burst_elem(r, obj_table, sizeof(void *), n, free_space);
}

static __dvp_always_inline unsigned int dvp_ring_sp_enqueue_burst(struct dvp_ring *r,
								  void *const *obj_table,
								  unsigned int n,
								  unsigned int *free_space)
{
	return dvp_ring_sp_enqueue_burst_elem(r, obj_table, sizeof(void *), n, free_space);
}

static __dvp_always_inline unsigned int dvp_ring_enqueue_burst(struct dvp_ring *r,
							       void *const *obj_table,
							       unsigned int n,
							       unsigned int *free_space)
{
	return dvp_ring_enqueue_burst_elem(r, obj_table, sizeof(void *), n, free_space);
}

static __dvp_always_inline unsigned int dvp_ring_mc_dequeue_bulk(struct dvp_ring *r,
								 void **obj_table, unsigned int n,
								 unsigned int *available)
{
	return dvp_ring_mc_dequeue_bulk_elem(r, obj_table, sizeof(void *), n, available);
}

static __dvp_always_inline unsigned int dvp_ring_sc_dequeue_bulk(struct dvp_ring *r,
								 void **obj_table, unsigned int n,
								 unsigned int *available)
{
	return dvp_ring_sc_dequeue_bulk_elem(r, obj_table, sizeof(void *), n, available);
}

static __dvp_always_inline unsigned int
dvp_ring_dequeue_bulk(struct dvp_ring *r, void **obj_table, unsigned int n, unsigned int *available)
{
	return dvp_ring_dequeue_bulk_elem(r, obj_table, sizeof(void *), n, available);
}

static __dvp_always_inline unsigned int dvp_ring_mc_dequeue_burst(struct dvp_ring *r,
								  void **obj_table, unsigned int n,
								  unsigned int *available)
{
	return dvp_ring_mc_dequeue_burst_elem(r, obj_table, sizeof(void *), n, available);
}

static __dvp_always_inline unsigned int dvp_ring_sc_dequeue_burst(struct dvp_ring *r,
								  void **obj_table, unsigned int n,
								  unsigned int *available)
{
	return dvp_ring_sc_dequeue_burst_elem(r, obj_table, sizeof(void *), n, available);
}

static __dvp_always_inline unsigned int dvp_ring_dequeue_burst(struct dvp_ring *r, void **obj_table,
							       unsigned int n,
							       unsigned int *available)
{
	return dvp_ring_dequeue_burst_elem(r, obj_table, sizeof(void *), n, available);
}

/** One pointer: @return 0, or -ENOBUFS when the ring is full. */
static __dvp_always_inline int dvp_ring_enqueue(struct dvp_ring *r, void *obj)
{
	return dvp_ring_enqueue_elem(r, &obj, sizeof(void *));
}

static __dvp_always_inline int dvp_ring_mp_enqueue(struct dvp_ring *r, void *obj)
{
	return dvp_ring_mp_enqueue_bulk(r, &obj, 1, NULL) ? 0 : -ENOBUFS;
}

static __dvp_always_inline int dvp_ring_sp_enqueue(struct dvp_ring *r, void *obj)
{
	return dvp_ring_sp_enqueue_bulk(r, &obj, 1, NULL) ? 0 : -ENOBUFS;
}

/** One pointer: @return 0, or -ENOENT when the ring is empty. */
static __dvp_always_inline int dvp_ring_dequeue(struct dvp_ring *r, void **obj_p)
{
	return dvp_ring_dequeue_elem(r, obj_p, sizeof(void *));
}

static __dvp_always_inline int dvp_ring_mc_dequeue(struct dvp_ring *r, void **obj_p)
{
	return dvp_ring_mc_dequeue_bulk(r, obj_p, 1, NULL) ? 0 : -ENOENT;
}

static __dvp_always_inline int dvp_ring_sc_dequeue(struct dvp_ring *r, void **obj_p)
{
	return dvp_ring_sc_dequeue_bulk(r, obj_p, 1, NULL) ? 0 : -ENOENT;
}

/* ------------------------------------------------------------------------
 * Counts. With other threads at work these are snapshots: exact only when
 * the ring is quiet.
 */

/** Entries in the ring. */
static inline unsigned int dvp_ring_count(const struct dvp_ring *r)
{
	/*
	 * cons.tail first, with acquire so that the prod.tail load cannot be
	 * satisfied earlier: consumers never pass producers, so the difference
	 * is never negative. It can exceed the capacity when both sides moved
	 * between the loads, hence the clamp.
	 */
	uint32_t cons_tail = atomic_load_explicit(&r->cons.tail, memory_order_acquire);
	uint32_t prod_tail = atomic_load_explicit(&r->prod.tail, memory_order_relaxed);
	uint32_t count = prod_tail - cons_tail;

	return count > r->capacity ? r->capacity : count;
}

/** Free room in the ring. */
static inline unsigned int dvp_ring_free_count(const struct dvp_ring *r)
{
	return r->capacity - dvp_ring_count(r);
}

static inline bool dvp_ring_full(const struct dvp_ring *r)
{
	return dvp_ring_free_count(r) == 0;
}

static inline bool dvp_ring_empty(const struct dvp_ring *r)
{
	return dvp_ring_count(r) == 0;
}

/** Slots in the ring's array (a power of two). */
static inline unsigned int dvp_ring_get_size(const struct dvp_ring *r)
{
	return r->size;
}

/** Entries the ring can hold. */
static inline unsigned int dvp_ring_get_capacity(const struct dvp_ring *r)
{
	return r->capacity;
}

/** Bytes per entry. */
static inline unsigned int dvp_ring_get_esize(const struct dvp_ring *r)
{
	return r->esize;
}

static inline const char *dvp_ring_get_name(const struct dvp_ring *r)
{
	return r->name;
}

#ifdef __cplusplus
}
#endif

#endif /* DVP_RING_H */
