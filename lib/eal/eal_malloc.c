/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The heap: one per NUMA node over segments the memory layer maps on that
 * node. Elements are cache-line multiples laid out back to back in each
 * segment (prev/next in address order, for coalescing) with the free ones
 * also on a free list; first fit. A 16-byte tag just before each pointer
 * handed out leads back to its element, so any alignment costs no more
 * than the gap it needs (a gap big enough becomes a free element).
 *
 * This is the control path (rings, pools, queues are allocated once), so
 * a mutex per node is enough; the datapath allocates from mempools.
 */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dvp_eal_host.h"
#include "dvp_lcore.h"
#include "dvp_malloc.h"
#include "eal_private.h"

struct heap;

struct heap_elem {
	struct heap_elem *prev; /* neighbours in the segment, by address */
	struct heap_elem *next;
	struct heap_elem *free_prev;
	struct heap_elem *free_next;
	struct heap *heap;
	size_t size_busy; /* bytes up to the next element; bit 0: busy */
};

struct heap_tag {
	struct heap_elem *elem;
	uint64_t magic;
};

#define ELEM_HDR ((size_t)DVP_CACHE_LINE_SIZE)
#define ELEM_MIN (2 * ELEM_HDR) /* smallest element worth splitting off */
#define TAG_BUSY 0x6476704d616c6c6fULL /* "dvpMallo" */
#define TAG_FREED 0x6476704672656564ULL /* "dvpFreed" */
#define HEAP_GROW_MIN ((size_t)16 << 20)

_Static_assert(sizeof(struct heap_elem) + sizeof(struct heap_tag) <= ELEM_HDR,
	       "element header and tag must fit in a cache line");

struct heap_seg {
	struct heap_seg *next;
	struct eal_memseg *ms;
};

struct heap {
	pthread_mutex_t lock;
	int socket;
	struct heap_seg *segs;
	struct heap_elem *free_head;
	size_t total;
	size_t alloc_count;
	uint64_t limit; /* bytes; 0: none */
};

static struct heap heaps[DVP_MAX_NUMA_NODES];
static bool heap_up;

static size_t elem_size(const struct heap_elem *e)
{
	return e->size_busy & ~(size_t)1;
}

static bool elem_busy(const struct heap_elem *e)
{
	return e->size_busy & 1;
}

static void free_list_add(struct heap *h, struct heap_elem *e)
{
	e->free_prev = NULL;
	e->free_next = h->free_head;
	if (h->free_head != NULL)
		h->free_head->free_prev = e;
	h->free_head = e;
}

static void free_list_del(struct heap *h, struct heap_elem *e)
{
	if (e->free_prev != NULL)
		e->free_prev->free_next = e->free_next;
	else
		h->free_head = e->free_next;
	if (e->free_next != NULL)
		e->free_next->free_prev = e->free_prev;
	e->free_prev = e->free_next = NULL;
}

/* Cut @p e at @p off bytes: the tail becomes a new free element. */
static struct heap_elem *elem_split(struct heap *h, struct heap_elem *e, size_t off)
{
	struct heap_elem *n = (struct heap_elem *)(void *)((char *)e + off);

	n->heap = h;
	n->size_busy = elem_size(e) - off;
	n->prev = e;
	n->next = e->next;
	if (e->next != NULL)
		e->next->prev = n;
	e->next = n;
	e->size_busy = off | (e->size_busy & 1);
	free_list_add(h, n);
	return n;
}

/* Merge @p b (free, right after @p a) into @p a. */
static void elem_merge(struct heap *h, struct heap_elem *a, struct heap_elem *b)
{
	free_list_del(h, b);
	a->size_busy += elem_size(b);
	a->next = b->next;
	if (b->next != NULL)
		b->next->prev = a;
}

static void *heap_alloc_locked(struct heap *h, size_t size, size_t align)
{
	struct heap_elem *e;
	uintptr_t base, data, end, need_end;

	for (e = h->free_head; e != NULL; e = e->free_next) {
		base = (uintptr_t)e;
		end = base + elem_size(e);
		data = DVP_ALIGN_CEIL(base + ELEM_HDR, align);
		/* Compared as room left, never as data + size: that sum can wrap. */
		if (data >= end || size > end - data)
			continue;
		need_end = DVP_ALIGN_CEIL(data + size, ELEM_HDR);
		if (need_end > end)
			continue;
		if (data - ELEM_HDR - base >= ELEM_MIN) {
			/* A large alignment gap is left as a free element of its own. */
			e = elem_split(h, e, data - ELEM_HDR - base);
			base = (uintptr_t)e;
		}
		if (end - need_end >= ELEM_MIN)
			elem_split(h, e, need_end - base);
		free_list_del(h, e);
		e->size_busy |= 1;
		((struct heap_tag *)data)[-1] = (struct heap_tag){ .elem = e, .magic = TAG_BUSY };
		h->alloc_count++;
		return (void *)data;
	}
	return NULL;
}

static void heap_add_seg_locked(struct heap *h, struct heap_seg *hs)
{
	struct heap_elem *e = hs->ms->addr;

	hs->next = h->segs;
	h->segs = hs;
	h->total += hs->ms->len;
	e->heap = h;
	e->prev = e->next = NULL;
	e->size_busy = hs->ms->len;
	free_list_add(h, e);
}

/* Map a new segment for at least @p size bytes at @p align; false with @p why. */
static bool heap_grow_locked(struct heap *h, size_t size, size_t align, char *why, size_t wlen)
{
	size_t page = eal_memory_page_size();
	size_t need = DVP_ALIGN_CEIL(size + align + 2 * ELEM_HDR, page);
	size_t want = DVP_MAX(need, DVP_ALIGN_CEIL(HEAP_GROW_MIN, page));
	struct heap_seg *hs;

	if (need < size) {
		snprintf(why, wlen, "the size is too large");
		return false;
	}
	if (h->limit != 0) {
		if (h->total + need > h->limit) {
			snprintf(why, wlen,
				 "--socket-limit allows %llu MB on this node and %zu MB are mapped",
				 (unsigned long long)(h->limit >> 20), h->total >> 20);
			return false;
		}
		want = DVP_MIN(want, h->limit - h->total);
	}
	hs = calloc(1, sizeof(*hs));
	if (hs == NULL) {
		snprintf(why, wlen, "out of process memory");
		return false;
	}
	hs->ms = eal_memseg_map(h->socket, want, why, wlen);
	if (hs->ms == NULL && want > need)
		hs->ms = eal_memseg_map(h->socket, need, why, wlen);
	if (hs->ms == NULL) {
		free(hs);
		return false;
	}
	heap_add_seg_locked(h, hs);
	return true;
}

static void heap_stats_locked(const struct heap *h, struct dvp_malloc_socket_stats *st)
{
	const struct heap_elem *e;
	size_t sz;

	memset(st, 0, sizeof(*st));
	st->heap_totalsz_bytes = h->total;
	st->alloc_count = h->alloc_count;
	st->hugepage_sz = eal_memory_page_size();
	for (e = h->free_head; e != NULL; e = e->free_next) {
		sz = elem_size(e) - ELEM_HDR;
		st->heap_freesz_bytes += sz;
		st->greatest_free_size = DVP_MAX(st->greatest_free_size, sz);
	}
}

/* Allocate on exactly @p socket, growing its heap if needed; silent on failure. */
static void *alloc_on(int socket, size_t size, size_t align, char *why, size_t wlen)
{
	struct heap *h = &heaps[socket];
	void *p;

	pthread_mutex_lock(&h->lock);
	p = heap_alloc_locked(h, size, align);
	if (p == NULL && heap_grow_locked(h, size, align, why, wlen))
		p = heap_alloc_locked(h, size, align);
	pthread_mutex_unlock(&h->lock);
	return p;
}

static __dvp_cold void log_no_room(const char *type, size_t size, int socket, const char *why)
{
	struct dvp_malloc_socket_stats st;

	pthread_mutex_lock(&heaps[socket].lock);
	heap_stats_locked(&heaps[socket], &st);
	pthread_mutex_unlock(&heaps[socket].lock);
	EAL_LOG(ERR,
		"cannot allocate %zu bytes%s%s%s on node %d: the heap holds %zu KB there, %zu KB free (largest block %zu KB), and cannot grow: %s",
		size, type ? " ('" : "", type ? type : "", type ? "')" : "", socket,
		st.heap_totalsz_bytes >> 10, st.heap_freesz_bytes >> 10,
		st.greatest_free_size >> 10, why);
}

const char *eal_heap_request_check(size_t size, unsigned int align, int *err)
{
	/*
	 * No heap can hold half the address space; refusing it here keeps
	 * every size computation after it (alignment, headers, page
	 * rounding) far from wrapping.
	 */
	*err = ENOMEM;
	if (size > DVP_MALLOC_SIZE_MAX)
		return "larger than any heap can hold (at most SIZE_MAX / 2 bytes)";
	*err = EINVAL;
	if (align != 0 && !dvp_is_power_of_2(align))
		return "the alignment is not a power of two";
	return NULL;
}

static __dvp_cold void *alloc_error(int err, const char *type, size_t size, const char *why)
{
	EAL_LOG(ERR, "cannot allocate %zu bytes%s%s%s: %s", size, type ? " ('" : "",
		type ? type : "", type ? "')" : "", why);
	dvp_errno = err;
	return NULL;
}

void *dvp_malloc_socket(const char *type, size_t size, unsigned int align, int socket_id)
{
	unsigned int n, nodes = eal_numa_nodes();
	int first, s, err;
	char why[256] = "";
	const char *bad;
	void *p;

	if (!heap_up)
		return alloc_error(E_DVP_NO_INIT, type, size,
				   "the EAL is not initialised (call dvp_eal_init first)");
	if (size == 0)
		return alloc_error(EINVAL, type, size, "the size is 0");
	bad = eal_heap_request_check(size, align, &err);
	if (bad != NULL)
		return alloc_error(err, type, size, bad);
	align = DVP_MAX(align, (unsigned int)DVP_CACHE_LINE_SIZE);
	if (socket_id != DVP_SOCKET_ANY && !eal_socket_valid(socket_id)) {
		snprintf(why, sizeof(why),
			 "node %d does not exist; nodes are 0-%u, or DVP_SOCKET_ANY for any",
			 socket_id, nodes - 1);
		return alloc_error(EINVAL, type, size, why);
	}
	if (socket_id != DVP_SOCKET_ANY) {
		p = alloc_on(socket_id, size, align, why, sizeof(why));
		if (p == NULL) {
			log_no_room(type, size, socket_id, why);
			dvp_errno = ENOMEM;
		}
		return p;
	}
	/* Any node: the caller's first, then the others in order. */
	first = dvp_socket_id();
	if (!eal_socket_valid(first))
		first = 0;
	for (n = 0; n <= nodes; n++) {
		s = n == 0 ? first : (int)n - 1;
		if ((n != 0 && s == first) || !eal_socket_valid(s))
			continue;
		p = alloc_on(s, size, align, why, sizeof(why));
		if (p != NULL)
			return p;
	}
	log_no_room(type, size, first, why);
	dvp_errno = ENOMEM;
	return NULL;
}

void *dvp_zmalloc_socket(const char *type, size_t size, unsigned int align, int socket_id)
{
	void *p = dvp_malloc_socket(type, size, align, socket_id);

	if (p != NULL)
		memset(p, 0, size);
	return p;
}

void *dvp_calloc_socket(const char *type, size_t num, size_t size, unsigned int align,
			int socket_id)
{
	if (size != 0 && num > SIZE_MAX / size)
		return alloc_error(EINVAL, type, SIZE_MAX, "num * size overflows");
	return dvp_zmalloc_socket(type, num * size, align, socket_id);
}

void *dvp_malloc(const char *type, size_t size, unsigned int align)
{
	return dvp_malloc_socket(type, size, align, DVP_SOCKET_ANY);
}

void *dvp_zmalloc(const char *type, size_t size, unsigned int align)
{
	return dvp_zmalloc_socket(type, size, align, DVP_SOCKET_ANY);
}

void *dvp_calloc(const char *type, size_t num, size_t size, unsigned int align)
{
	return dvp_calloc_socket(type, num, size, align, DVP_SOCKET_ANY);
}

/* The heap whose segments hold @p ptr, returned locked; NULL if none does. */
static struct heap *heap_of_locked(const void *ptr)
{
	const struct heap_seg *hs;
	unsigned int i;
	uintptr_t p = (uintptr_t)ptr, a;

	for (i = 0; i < DVP_MAX_NUMA_NODES; i++) {
		pthread_mutex_lock(&heaps[i].lock);
		for (hs = heaps[i].segs; hs != NULL; hs = hs->next) {
			a = (uintptr_t)hs->ms->addr;
			if (p >= a + ELEM_HDR && p < a + hs->ms->len)
				return &heaps[i];
		}
		pthread_mutex_unlock(&heaps[i].lock);
	}
	return NULL;
}

void dvp_free(void *ptr)
{
	struct heap_tag *tag;
	struct heap_elem *e;
	struct heap *h;

	if (ptr == NULL)
		return;
	if (!heap_up || (h = heap_of_locked(ptr)) == NULL) {
		EAL_LOG(ERR, "dvp_free(%p): not memory from the EAL heap", ptr);
		return;
	}
	tag = (struct heap_tag *)ptr - 1;
	if (((uintptr_t)ptr & (DVP_CACHE_LINE_SIZE - 1)) != 0 || tag->magic != TAG_BUSY ||
	    tag->elem->heap != h || !elem_busy(tag->elem)) {
		pthread_mutex_unlock(&h->lock);
		EAL_LOG(ERR, "dvp_free(%p): %s", ptr,
			tag->magic == TAG_FREED ? "freed twice" :
						  "not a pointer a dvp_*alloc* call returned");
		return;
	}
	e = tag->elem;
	tag->magic = TAG_FREED;
	e->size_busy &= ~(size_t)1;
	h->alloc_count--;
	free_list_add(h, e);
	if (e->next != NULL && !elem_busy(e->next))
		elem_merge(h, e, e->next);
	if (e->prev != NULL && !elem_busy(e->prev))
		elem_merge(h, e->prev, e);
	pthread_mutex_unlock(&h->lock);
}

int dvp_malloc_socket_of(const void *ptr)
{
	struct heap *h;
	int s;

	if (!heap_up || ptr == NULL || (h = heap_of_locked(ptr)) == NULL)
		return -1;
	s = h->socket;
	pthread_mutex_unlock(&h->lock);
	return s;
}

int dvp_malloc_get_socket_stats(int socket_id, struct dvp_malloc_socket_stats *stats)
{
	if (!heap_up)
		return dvp_err(E_DVP_NO_INIT);
	if (stats == NULL || !eal_socket_valid(socket_id))
		return dvp_err(EINVAL);
	pthread_mutex_lock(&heaps[socket_id].lock);
	heap_stats_locked(&heaps[socket_id], stats);
	pthread_mutex_unlock(&heaps[socket_id].lock);
	return 0;
}

int dvp_memseg_walk(int (*fn)(const struct dvp_memseg_info *ms, void *arg), void *arg)
{
	const struct heap_seg *hs;
	struct dvp_memseg_info info;
	unsigned int i;
	int ret = 0;

	if (!heap_up)
		return dvp_err(E_DVP_NO_INIT);
	if (fn == NULL) {
		EAL_LOG(ERR, "dvp_memseg_walk: the callback is NULL");
		return dvp_err(EINVAL);
	}
	for (i = 0; i < DVP_MAX_NUMA_NODES && ret == 0; i++) {
		pthread_mutex_lock(&heaps[i].lock);
		for (hs = heaps[i].segs; hs != NULL && ret == 0; hs = hs->next) {
			info = (struct dvp_memseg_info){
				.addr = hs->ms->addr,
				.len = hs->ms->len,
				.page_sz = hs->ms->page_sz,
				.socket_id = hs->ms->socket,
				.fd = hs->ms->fd,
				.offset = 0,
			};
			ret = fn(&info, arg);
		}
		pthread_mutex_unlock(&heaps[i].lock);
	}
	return ret;
}

static int page_size_of(const struct dvp_memseg_info *ms, void *arg)
{
	struct {
		uintptr_t addr;
		size_t page_sz;
	} *q = arg;

	if (q->addr - (uintptr_t)ms->addr >= ms->len)
		return 0;
	q->page_sz = ms->page_sz;
	return 1;
}

size_t dvp_mem_page_size(const void *addr)
{
	struct {
		uintptr_t addr;
		size_t page_sz;
	} q = { (uintptr_t)addr, 0 };

	if (heap_up)
		(void)dvp_memseg_walk(page_size_of, &q);
	if (q.page_sz == 0 && eal_cfg.host != NULL)
		q.page_sz = eal_cfg.host->mem_page_size(eal_cfg.host->arg, addr);
	return q.page_sz;
}

void eal_heap_start_amounts(const struct eal_cfg *cfg, uint64_t *mb)
{
	unsigned int i, nodes = eal_numa_nodes(), used = 0;
	bool has_lcore[DVP_MAX_NUMA_NODES] = { false };
	int s;

	memset(mb, 0, sizeof(*mb) * DVP_MAX_NUMA_NODES);
	if (cfg->socket_mem_given) {
		memcpy(mb, cfg->socket_mem_mb, sizeof(*mb) * DVP_MAX_NUMA_NODES);
		return;
	}
	for (i = 0; i < DVP_MAX_LCORE; i++) {
		if (!cfg->lcore_enabled[i])
			continue;
		s = eal_cfg_lcore_socket(cfg, i);
		if (!has_lcore[s])
			used++;
		has_lcore[s] = true;
	}
	for (i = 0; i < nodes; i++) {
		if (!has_lcore[i])
			continue;
		if (cfg->mem_mb)
			mb[i] = (cfg->mem_mb + used - 1) / used;
		else if (cfg->no_huge)
			mb[i] = EAL_NO_HUGE_DEFAULT_MB;
	}
}

int eal_heap_init(const struct eal_cfg *cfg)
{
	uint64_t mb[DVP_MAX_NUMA_NODES];
	struct heap_seg *hs;
	char why[256];
	unsigned int i;

	eal_heap_start_amounts(cfg, mb);
	for (i = 0; i < DVP_MAX_NUMA_NODES; i++) {
		memset(&heaps[i], 0, sizeof(heaps[i]));
		pthread_mutex_init(&heaps[i].lock, NULL);
		heaps[i].socket = (int)i;
		if (cfg->socket_limit_given)
			heaps[i].limit = cfg->socket_limit_mb[i] << 20;
	}
	heap_up = true;
	for (i = 0; i < DVP_MAX_NUMA_NODES; i++) {
		if (mb[i] == 0)
			continue;
		if (heaps[i].limit != 0 && (mb[i] << 20) > heaps[i].limit) {
			EAL_LOG(ERR,
				"--socket-limit: node %u: %llu MB asked at start is above its limit of %llu MB; give a limit of at least %llu, or less memory at start (-m, --socket-mem)",
				i, (unsigned long long)mb[i],
				(unsigned long long)(heaps[i].limit >> 20),
				(unsigned long long)mb[i]);
			eal_heap_cleanup();
			/* Two options that contradict each other: the command line's fault. */
			return dvp_err(E_DVP_BAD_ARG);
		}
		hs = calloc(1, sizeof(*hs));
		if (hs != NULL)
			hs->ms = eal_memseg_map((int)i, (size_t)mb[i] << 20, why, sizeof(why));
		else
			snprintf(why, sizeof(why), "out of process memory");
		if (hs == NULL || hs->ms == NULL) {
			EAL_LOG(ERR, "cannot map %llu MB on node %u: %s", (unsigned long long)mb[i],
				i, why);
			free(hs);
			eal_heap_cleanup();
			return dvp_err(ENOMEM);
		}
		heap_add_seg_locked(&heaps[i], hs);
	}
	return 0;
}

void eal_heap_cleanup(void)
{
	struct heap_seg *hs, *next;
	unsigned int i;

	if (!heap_up)
		return;
	heap_up = false;
	for (i = 0; i < DVP_MAX_NUMA_NODES; i++) {
		if (heaps[i].alloc_count != 0)
			EAL_LOG(DEBUG, "node %u: %zu allocations still live at cleanup", i,
				heaps[i].alloc_count);
		for (hs = heaps[i].segs; hs != NULL; hs = next) {
			next = hs->next;
			eal_memseg_unmap(hs->ms);
			free(hs);
		}
		pthread_mutex_destroy(&heaps[i].lock);
		memset(&heaps[i], 0, sizeof(heaps[i]));
	}
}
