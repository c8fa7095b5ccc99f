/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* Ring geometry: sizes, building a ring in given memory, reset and dump. */

#include <inttypes.h>
#include <string.h>

#include <dvp_errno.h>
#include <dvp_lcore.h>

#include "ring_private.h"

DVP_LOG_REGISTER(dvp_logtype_ring, "ring", NOTICE);

_Static_assert(offsetof(struct dvp_ring, prod) % (2 * DVP_CACHE_LINE_SIZE) == 0,
	       "producer counters start a line pair");
_Static_assert(offsetof(struct dvp_ring, cons) % (2 * DVP_CACHE_LINE_SIZE) == 0,
	       "consumer counters start a line pair");
_Static_assert(offsetof(struct dvp_ring, prod.tail) - offsetof(struct dvp_ring, prod.head) >=
		       2 * DVP_CACHE_LINE_SIZE,
	       "producer tail in another line pair than the head");
_Static_assert(offsetof(struct dvp_ring, cons.tail) - offsetof(struct dvp_ring, cons.head) >=
		       2 * DVP_CACHE_LINE_SIZE,
	       "consumer tail in another line pair than the head");

/* The slot count for @count entries, or 0 (after a log line) if invalid. */
static __dvp_cold uint32_t ring_bad_count(unsigned int count, unsigned int flags)
{
	if (flags & DVP_RING_F_EXACT_SZ)
		RING_LOG(ERR, "count %u is invalid: with DVP_RING_F_EXACT_SZ it must be in [1, %u]",
			 count, DVP_RING_SZ_MASK >> 1);
	else
		RING_LOG(
			ERR,
			"count %u is invalid: it must be a power of two in [2, 2^30] (or use DVP_RING_F_EXACT_SZ for any count)",
			count);
	return 0;
}

static uint32_t ring_slots(unsigned int count, unsigned int flags)
{
	if (flags & DVP_RING_F_EXACT_SZ) {
		/* One spare slot so that full and empty differ, as DPDK does. */
		if (count == 0 || count > (DVP_RING_SZ_MASK >> 1))
			return ring_bad_count(count, flags);
		return dvp_align32pow2(count + 1);
	}
	if (!dvp_is_power_of_2(count) || count < 2 || count > (DVP_RING_SZ_MASK >> 1) + 1)
		return ring_bad_count(count, flags);
	return count;
}

static int ring_check_esize(unsigned int esize)
{
	if (esize == 0 || esize % 4 != 0 || esize > 65536) {
		RING_LOG(ERR,
			 "element size %u is invalid: it must be a multiple of 4 in [4, 65536]",
			 esize);
		return dvp_err(EINVAL);
	}
	return 0;
}

static ssize_t ring_memsize(uint32_t slots, unsigned int esize)
{
	return (ssize_t)(sizeof(struct dvp_ring) +
			 DVP_CACHE_LINE_ROUNDUP((size_t)slots * (size_t)esize));
}

ssize_t dvp_ring_get_memsize_elem(unsigned int count, unsigned int esize)
{
	uint32_t slots;

	if (ring_check_esize(esize) < 0)
		return -EINVAL;
	slots = ring_slots(count, DVP_RING_F_EXACT_SZ);
	if (slots == 0)
		return dvp_err(EINVAL);
	return ring_memsize(slots, esize);
}

ssize_t dvp_ring_get_memsize(unsigned int count)
{
	return dvp_ring_get_memsize_elem(count, sizeof(void *));
}

int dvp_ring_init_elem(struct dvp_ring *r, const char *name, unsigned int count, unsigned int esize,
		       unsigned int flags)
{
	const unsigned int known = DVP_RING_F_SP_ENQ | DVP_RING_F_SC_DEQ | DVP_RING_F_EXACT_SZ;
	uint32_t slots;

	if (r == NULL || name == NULL) {
		RING_LOG(ERR, "ring init: %s is NULL", r == NULL ? "the ring" : "the name");
		return dvp_err(EINVAL);
	}
	if (name[0] == '\0' || strlen(name) >= DVP_RING_NAMESIZE) {
		RING_LOG(ERR, "ring name '%s' is invalid: it must have 1 to %d characters", name,
			 DVP_RING_NAMESIZE - 1);
		return dvp_err(EINVAL);
	}
	if (flags & ~known) {
		RING_LOG(
			ERR,
			"ring %s: unknown flags 0x%x (valid: DVP_RING_F_SP_ENQ 0x%x, DVP_RING_F_SC_DEQ 0x%x, DVP_RING_F_EXACT_SZ 0x%x)",
			name, flags & ~known, DVP_RING_F_SP_ENQ, DVP_RING_F_SC_DEQ,
			DVP_RING_F_EXACT_SZ);
		return dvp_err(EINVAL);
	}
	if (ring_check_esize(esize) < 0)
		return -EINVAL;
	slots = ring_slots(count, flags);
	if (slots == 0)
		return dvp_err(EINVAL);
	if ((uintptr_t)r % (2 * DVP_CACHE_LINE_SIZE) != 0) {
		RING_LOG(ERR, "ring %s: memory at %p is not aligned to %d bytes", name, (void *)r,
			 2 * DVP_CACHE_LINE_SIZE);
		return dvp_err(EINVAL);
	}

	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->flags = flags;
	r->size = slots;
	r->mask = slots - 1;
	r->capacity = (flags & DVP_RING_F_EXACT_SZ) ? count : slots - 1;
	r->esize = esize;
	r->socket_id = DVP_SOCKET_ANY;
	r->memzone = NULL;
	r->prod.single = !!(flags & DVP_RING_F_SP_ENQ);
	r->cons.single = !!(flags & DVP_RING_F_SC_DEQ);
	dvp_ring_test_set_counters(r, 0);
	return 0;
}

int dvp_ring_init(struct dvp_ring *r, const char *name, unsigned int count, unsigned int flags)
{
	return dvp_ring_init_elem(r, name, count, sizeof(void *), flags);
}

void dvp_ring_test_set_counters(struct dvp_ring *r, uint32_t start)
{
	/* Relaxed: callers guarantee no concurrent use; whatever publishes the
	 * ring to other threads afterwards orders these stores. */
	atomic_store_explicit(&r->prod.head, __dvp_ring_word(start, start + r->capacity),
			      memory_order_relaxed);
	atomic_store_explicit(&r->prod.tail, start, memory_order_relaxed);
	atomic_store_explicit(&r->cons.head, start, memory_order_relaxed);
	atomic_store_explicit(&r->cons.avail, start, memory_order_relaxed);
	atomic_store_explicit(&r->cons.tail, start, memory_order_relaxed);
}

void dvp_ring_reset(struct dvp_ring *r)
{
	if (r != NULL)
		dvp_ring_test_set_counters(r, 0);
}

void dvp_ring_dump(FILE *f, const struct dvp_ring *r)
{
	uint32_t prod_tail, cons_tail;

	f = dvp_dump_stream(f, "ring", r);
	if (f == NULL)
		return;
	fprintf(f, "ring <%s>@%p\n", r->name, (const void *)r);
	fprintf(f, "  flags=0x%x socket=%d esize=%u\n", r->flags, r->socket_id, r->esize);
	fprintf(f, "  size=%u capacity=%u\n", r->size, r->capacity);
	/* The heads as the next call of either kind sees them (single-thread
	 * calls leave them behind the tails). */
	prod_tail = atomic_load_explicit(&r->prod.tail, memory_order_relaxed);
	cons_tail = atomic_load_explicit(&r->cons.tail, memory_order_relaxed);
	fprintf(f, "  prod: %s head=%" PRIu32 " tail=%" PRIu32 "\n",
		r->prod.single ? "single" : "multi",
		__dvp_ring_position(__dvp_ring_word_head(atomic_load_explicit(
					    &r->prod.head, memory_order_relaxed)),
				    prod_tail, r->capacity),
		prod_tail);
	fprintf(f, "  cons: %s head=%" PRIu32 " tail=%" PRIu32 "\n",
		r->cons.single ? "single" : "multi",
		__dvp_ring_position(atomic_load_explicit(&r->cons.head, memory_order_relaxed),
				    cons_tail, r->capacity),
		cons_tail);
	fprintf(f, "  used=%u avail=%u\n", dvp_ring_count(r), dvp_ring_free_count(r));
}
