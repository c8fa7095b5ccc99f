/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Zero-copy client (zero-copy=yes): region 0 holds the rings only, and
 * every segment of EAL memory is a region of its own (1..n, the EAL's fds,
 * see dvp_memseg_walk()), so that descriptors point straight into mbufs.
 *
 * A shadow array per queue says which mbuf is behind each slot:
 *   rx (s2c): every posted slot holds an empty mbuf whose data room the
 *     server fills; a burst hands those mbufs up (chains on NEXT) and posts
 *     fresh ones in their place.
 *   tx (c2s): each segment of a frame is a descriptor on its own data; the
 *     frame's last slot holds the frame, freed once the server's tail has
 *     passed it.
 * When the queue goes down (disconnect, stop) every mbuf of the shadow goes
 * back to its pool.
 *
 * Memory orders are those of the copy path (memif_rxtx.c): the consumer's
 * acquire load of the producer's index, the producer's release store of its
 * own after the descriptors (and, on rx, after our last read of the old
 * buffers' lengths).
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <dvp_common.h>
#include <dvp_errno.h>
#include <dvp_malloc.h>

#include "memif_log.h"
#include "memif_rxtx.h"
#include "memif_zc.h"

/* Mbufs taken from the pool at once when posting rx buffers. */
#define ZC_REFILL_CHUNK 32
/* Frames freed at once when the server has released tx slots. */
#define ZC_FREE_CHUNK 32

/* ------------------------------------------------------------------------
 * Regions: the rings, then EAL memory
 */

struct zc_walk {
	struct memif_shm *shm;
	char *why;
};

static int zc_add_segment(const struct dvp_memseg_info *ms, void *arg)
{
	struct zc_walk *w = arg;
	struct memif_region *reg;

	if (ms->fd < 0 || ms->offset != 0) {
		snprintf(w->why, MEMIF_WHY_SZ,
			 "EAL memory at %p has no file to share: zero-copy needs one", ms->addr);
		return -ENOTSUP;
	}
	if (w->shm->nregions >= MEMIF_MAX_REGIONS) {
		snprintf(w->why, MEMIF_WHY_SZ,
			 "EAL memory has more than %u segments: too many regions for zero-copy",
			 MEMIF_MAX_REGIONS - 1);
		return -E2BIG;
	}
	reg = &w->shm->regions[w->shm->nregions++];
	reg->addr = ms->addr;
	reg->size = ms->len;
	reg->fd = ms->fd;
	reg->borrowed = true;
	return 0;
}

/* Every EAL memory segment becomes a region after region 0 (its fd borrowed from the EAL). */
static int zc_add_regions(struct memif_shm *shm, char *why)
{
	struct zc_walk w = { .shm = shm, .why = why };

	return dvp_memseg_walk(zc_add_segment, &w);
}

int memif_zc_shm_create(struct memif_shm *shm, struct memif_conn_desc *c, char *why)
{
	uint64_t ring_bytes = memif_ring_bytes(c->log2_ring_size);
	struct memif_layout l = {
		.ring_bytes = ring_bytes,
		.size = ((uint64_t)c->nb_c2s + c->nb_s2c) * ring_bytes,
	};

	memif_shm_reset(shm);
	return memif_shm_create(shm, c, &l, zc_add_regions, why);
}

/* ------------------------------------------------------------------------
 * Queues
 */

int memif_zc_queue_init(struct memif_queue *q, unsigned int max_ring_size, int socket_id)
{
	q->shadow = dvp_zmalloc_socket("memif zero-copy slots",
				       sizeof(q->shadow[0]) * max_ring_size, 0, socket_id);
	if (q->shadow == NULL)
		return -dvp_errno;
	q->shadow_size = max_ring_size;
	q->zc = true;
	return 0;
}

void memif_zc_queue_fini(struct memif_queue *q)
{
	dvp_free(q->shadow);
	q->shadow = NULL;
	q->shadow_size = 0;
	q->zc = false;
}

/* Where @len bytes at @p lie in our exported regions (1..n). */
static __dvp_always_inline bool zc_translate(const struct memif_queue *q, const void *p,
					     uint32_t len, uint16_t *region, uint32_t *off)
{
	uint16_t i;

	for (i = 1; i < q->nregions; i++) {
		/* Unsigned: an address below the region wraps to a huge offset. */
		uintptr_t d = (uintptr_t)p - (uintptr_t)q->regions[i].addr;

		if (d < q->regions[i].size && q->regions[i].size - d >= len && d <= UINT32_MAX) {
			*region = i;
			*off = (uint32_t)d;
			return true;
		}
	}
	return false;
}

static __dvp_always_inline void held_add(struct memif_queue *q, int32_t v)
{
	/* Written by whoever owns the queue (the burst, or the control thread while down). */
	__atomic_store_n(&q->held, __atomic_load_n(&q->held, __ATOMIC_RELAXED) + (uint32_t)v,
			 __ATOMIC_RELAXED);
}

/*
 * Post fresh mbufs on every slot the server may fill: [posted, last + size).
 * A pool that runs dry is counted and leaves the slots for the next call.
 * @return slots posted.
 */
static __dvp_always_inline uint16_t zc_rx_refill(struct memif_queue *q)
{
	struct memif_ring *r = q->ring;
	uint16_t need = (uint16_t)(q->last + q->ring_size - q->posted), done = 0;
	struct dvp_mbuf *m[ZC_REFILL_CHUNK];
	int ret;

	while (need != 0) {
		unsigned int i, n = DVP_MIN(need, (uint16_t)ZC_REFILL_CHUNK);

		/* All or nothing: a pool nearly dry still gives what it has, in halves. */
		while ((ret = dvp_pktmbuf_alloc_bulk(q->mp, m, n)) < 0 && n > 1)
			n /= 2;
		if (dvp_unlikely(ret < 0)) {
			dvp_counter_add(&q->st.nombuf, 1);
			break;
		}
		for (i = 0; i < n; i++) {
			uint16_t slot = (uint16_t)(q->posted & q->mask), region;
			struct memif_desc *d = &r->desc[slot];
			uint32_t room = (uint32_t)m[i]->buf_len - m[i]->data_off, off;

			if (dvp_unlikely(!zc_translate(q, dvp_pktmbuf_mtod(m[i], void *), room,
						       &region, &off))) {
				/* A pool outside the memory shared at connect. */
				dvp_counter_add(&q->st.unexported, n - i);
				dvp_pktmbuf_free_bulk(&m[i], n - i);
				need = 0;
				break;
			}
			d->flags = 0;
			d->region = region;
			d->offset = off;
			d->length = room;
			q->shadow[slot] = m[i];
			q->posted++;
			done++;
			need--;
		}
	}
	if (done != 0) {
		held_add(q, done);
		/* Release: the descriptors are written before the server sees head. */
		__atomic_store_n(&r->head, q->posted, __ATOMIC_RELEASE);
	}
	return done;
}

uint16_t memif_rx_client_zc(void *rxq, struct dvp_mbuf **pkts, uint16_t nb_pkts)
{
	struct memif_queue *q = rxq;
	const struct memif_ring *r;
	uint16_t cur, avail, n = 0, taken = 0;
	uint64_t bytes = 0;

	if (!q_enter(q))
		return 0;
	r = q->ring;
	cur = q->last;
	/*
	 * Acquire pairs with the server's release store of tail: what it wrote
	 * into our mbufs and the descriptors' lengths are visible.
	 */
	avail = (uint16_t)(__atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) - cur);
	if (dvp_unlikely(avail > (uint16_t)(q->posted - cur))) {
		/* The server claims slots we never posted. */
		memif_peer_violation(q, MEMIF_VIOL_TAIL, (uint16_t)(cur + avail), cur);
		goto out;
	}
	while (n < nb_pkts && avail != 0) {
		struct dvp_mbuf *head = NULL, *tail = NULL;
		uint16_t k = 0, i;
		bool bad = false;

		/* First pass: the chain's length, all of it published? */
		do {
			if (k == avail)
				goto done; /* the rest of the chain is still to come */
			k++;
		} while (
			__atomic_load_n(&r->desc[(cur + k - 1) & q->mask].flags, __ATOMIC_RELAXED) &
			MEMIF_DESC_FLAG_NEXT);
		/* Second pass: link the mbufs; a length is read once and checked. */
		for (i = 0; i < k; i++) {
			uint16_t slot = (uint16_t)((cur + i) & q->mask);
			struct dvp_mbuf *m = q->shadow[slot];
			uint32_t len = __atomic_load_n(&r->desc[slot].length, __ATOMIC_RELAXED);

			q->shadow[slot] = NULL;
			if (dvp_unlikely(len > (uint32_t)m->buf_len - m->data_off)) {
				bad = true;
				len = 0;
			}
			m->data_len = (uint16_t)len;
			if (head == NULL) {
				head = m;
			} else {
				tail->next = m;
				head->nb_segs++;
			}
			head->pkt_len += len;
			tail = m;
		}
		cur = (uint16_t)(cur + k);
		avail = (uint16_t)(avail - k);
		taken = (uint16_t)(taken + k);
		if (dvp_unlikely(bad || head->pkt_len > MEMIF_MAX_PKT_LEN)) {
			dvp_counter_add(&q->st.bad_desc, 1);
			dvp_counter_add(&q->st.errors, 1);
			dvp_pktmbuf_free(head);
			continue;
		}
		head->port = q->port_id;
		bytes += head->pkt_len;
		pkts[n++] = head;
	}
done:
	if (taken != 0) {
		held_add(q, -(int32_t)taken);
		q->last = cur;
	}
	if (n != 0) {
		dvp_counter_add(&q->st.packets, n);
		dvp_counter_add(&q->st.bytes, bytes);
	}
	/* Every burst: slots a dry pool left empty are retried too. */
	if (q->posted != (uint16_t)(q->last + q->ring_size))
		zc_rx_refill(q);
out:
	q_leave(q);
	return n;
}

/* Free the frames of the slots the server released: [done, tail). */
static __dvp_always_inline void zc_tx_release(struct memif_queue *q, uint16_t tail)
{
	struct dvp_mbuf *f[ZC_FREE_CHUNK];
	unsigned int nf = 0;
	int32_t segs = 0;

	for (; q->done != tail; q->done++) {
		struct dvp_mbuf **s = &q->shadow[q->done & q->mask];

		if (*s == NULL)
			continue; /* not a frame's last slot */
		segs += (*s)->nb_segs;
		f[nf++] = *s;
		*s = NULL;
		if (nf == ZC_FREE_CHUNK) {
			dvp_pktmbuf_free_bulk(f, nf);
			nf = 0;
		}
	}
	if (nf != 0)
		dvp_pktmbuf_free_bulk(f, nf);
	if (segs != 0)
		held_add(q, -segs);
}

static __dvp_cold void zc_tx_drop(struct memif_queue *q, struct dvp_mbuf *m)
{
	dvp_counter_add(&q->st.unexported, 1);
	dvp_counter_add(&q->st.errors, 1);
	dvp_pktmbuf_free(m);
}

uint16_t memif_tx_client_zc(void *txq, struct dvp_mbuf **pkts, uint16_t nb_pkts)
{
	struct memif_queue *q = txq;
	struct memif_ring *r;
	uint16_t slot, tail, n_free, n = 0, sent = 0;
	uint64_t bytes = 0;
	int32_t segs = 0;

	if (!q_enter(q))
		return 0;
	r = q->ring;
	/* Acquire pairs with the server's release of tail: it is done with those buffers. */
	tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
	if (dvp_unlikely((uint16_t)(tail - q->done) > (uint16_t)(q->last - q->done))) {
		/* A tail outside what we published and did not free yet. */
		memif_peer_violation(q, MEMIF_VIOL_TAIL, tail, q->last);
		goto out;
	}
	zc_tx_release(q, tail);
	slot = q->last;
	n_free = (uint16_t)(q->ring_size - (uint16_t)(slot - tail));
	while (n < nb_pkts) {
		struct dvp_mbuf *m = pkts[n], *seg;
		uint16_t k = 0;

		if (m->nb_segs > n_free) {
			dvp_counter_add(&q->st.no_room, 1);
			break;
		}
		/*
		 * Descriptors past head are not the server's to read: a frame
		 * that cannot go leaves nothing behind.
		 */
		for (seg = m; seg != NULL; seg = seg->next) {
			struct memif_desc *d;
			uint16_t region;
			uint32_t off;

			if (dvp_unlikely(k == n_free))
				break; /* a chain longer than its nb_segs says */
			if (dvp_unlikely(!zc_translate(q, dvp_pktmbuf_mtod(seg, void *),
						       seg->data_len, &region, &off)))
				break;
			d = &r->desc[(slot + k) & q->mask];
			d->region = region;
			d->offset = off;
			d->length = seg->data_len;
			d->flags = seg->next != NULL ? MEMIF_DESC_FLAG_NEXT : 0;
			k++;
		}
		if (dvp_unlikely(seg != NULL)) {
			if (k == n_free) {
				dvp_counter_add(&q->st.no_room, 1);
				break;
			}
			/* Memory the server cannot see: dropped and counted. */
			zc_tx_drop(q, m);
			n++;
			continue;
		}
		q->shadow[(slot + k - 1) & q->mask] = m;
		slot = (uint16_t)(slot + k);
		n_free = (uint16_t)(n_free - k);
		segs += m->nb_segs; /* what zc_tx_release() takes off again */
		bytes += m->pkt_len;
		sent++;
		n++;
	}
	if (sent != 0) {
		held_add(q, segs);
		memif_tx_publish(q, &r->head, slot, sent, bytes);
	}
out:
	q_leave(q);
	return n;
}

void memif_zc_queue_up(struct memif_queue *q)
{
	q->done = 0;
	if (q->role != MEMIF_Q_CLIENT_RX)
		return;
	/* Post a whole ring at connect, as copy mode does, so that a forwarding server finds room. */
	if (zc_rx_refill(q) == 0)
		MEMIF_LOG(WARNING,
			  "rx queue %u: no buffer posted at connect (pool %s: empty, or its memory "
			  "was not shared because it was created after the connection)",
			  q->queue_id, q->mp->name);
}

void memif_zc_queue_down(struct memif_queue *q)
{
	uint32_t i;

	/* Down and no burst running: the shadow is ours; every mbuf goes home. */
	for (i = 0; i < q->shadow_size; i++) {
		if (q->shadow[i] != NULL) {
			dvp_pktmbuf_free(q->shadow[i]);
			q->shadow[i] = NULL;
		}
	}
	__atomic_store_n(&q->held, 0, __ATOMIC_RELAXED);
}
