/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Copy-mode rx and tx bursts for the four queue roles, and rx interrupts.
 * The zero-copy client's bursts are in memif_zc.c, the queues' life
 * (set-up, up, down) in memif_queue.c.
 */

#include <errno.h>
#include <string.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <dvp_common.h>
#include <dvp_fd.h>
#include <dvp_memcpy.h>
#include <dvp_prefetch.h>

#include "memif_log.h"
#include "memif_rxtx.h"

/* ------------------------------------------------------------------------
 * Rx
 */

enum { RX_OK, RX_INCOMPLETE, RX_NOMBUF };

/* Append @len bytes at @src to the packet @head, whose last segment is *@tail. */
static __dvp_always_inline int rx_copy(struct memif_queue *q, struct dvp_mbuf *head,
				       struct dvp_mbuf **tail, const uint8_t *src, uint32_t len)
{
	struct dvp_mbuf *t = *tail;

	while (len != 0) {
		uint32_t room = (uint32_t)t->buf_len - t->data_off - t->data_len;
		uint32_t c;

		if (room == 0) {
			struct dvp_mbuf *m = dvp_pktmbuf_alloc(q->mp);

			if (dvp_unlikely(m == NULL))
				return RX_NOMBUF;
			m->port = q->port_id;
			t->next = m;
			head->nb_segs++;
			t = m;
			*tail = t;
			continue;
		}
		c = DVP_MIN(room, len);
		dvp_memcpy(dvp_pktmbuf_mtod_offset(t, uint8_t *, t->data_len), src, c);
		t->data_len = (uint16_t)(t->data_len + c);
		head->pkt_len += c;
		src += c;
		len -= c;
	}
	return RX_OK;
}

/*
 * Take the packet whose chain starts at slot @cur (@avail slots published).
 * Each descriptor is read once into locals and checked before use: a peer
 * rewriting it meanwhile changes nothing we rely on.
 */
static __dvp_always_inline int rx_one(struct memif_queue *q, uint16_t cur, uint16_t avail,
				      bool client, struct dvp_mbuf **out, uint16_t *used)
{
	const struct memif_ring *r = q->ring;
	struct dvp_mbuf *head, *tail;
	bool bad = false;
	uint16_t k = 0;
	int ret;

	head = dvp_pktmbuf_alloc(q->mp);
	if (dvp_unlikely(head == NULL))
		return RX_NOMBUF;
	head->port = q->port_id;
	tail = head;
	for (;;) {
		const struct memif_desc *d;
		uint16_t flags, region, slot;
		uint32_t len, off;
		const uint8_t *src;

		if (dvp_unlikely(k == avail)) {
			/* The chain goes on past what is published: wait for it. */
			dvp_pktmbuf_free(head);
			return RX_INCOMPLETE;
		}
		slot = (uint16_t)((cur + k) & q->mask);
		d = &r->desc[slot];
		flags = __atomic_load_n(&d->flags, __ATOMIC_RELAXED);
		len = __atomic_load_n(&d->length, __ATOMIC_RELAXED);
		k++;
		if (client) {
			/* Our own buffer: the server chooses only the length. */
			bad |= len > q->bsize;
			src = q->bufs + (size_t)slot * q->bsize;
		} else {
			region = __atomic_load_n(&d->region, __ATOMIC_RELAXED);
			off = __atomic_load_n(&d->offset, __ATOMIC_RELAXED);
			bad |= region >= q->nregions ||
			       (uint64_t)off + len > q->regions[region].size;
			src = bad ? NULL : (const uint8_t *)q->regions[region].addr + off;
		}
		bad |= head->pkt_len + (uint64_t)len > MEMIF_MAX_PKT_LEN;
		if (!bad) {
			ret = rx_copy(q, head, &tail, src, len);
			if (dvp_unlikely(ret != RX_OK)) {
				dvp_pktmbuf_free(head);
				return ret;
			}
		}
		if (!(flags & MEMIF_DESC_FLAG_NEXT))
			break;
	}
	*used = k;
	if (dvp_unlikely(bad)) {
		dvp_pktmbuf_free(head);
		dvp_counter_add(&q->st.bad_desc, 1);
		dvp_counter_add(&q->st.errors, 1);
		*out = NULL;
		return RX_OK;
	}
	*out = head;
	return RX_OK;
}

/*
 * Fresh mbufs for a burst's packets, taken from the pool at once: one
 * mempool get per burst instead of one per packet. What the burst leaves
 * goes back at its end.
 */
#define MEMIF_RX_STASH 32

struct rx_stash {
	uint16_t next;
	uint16_t count;
	struct dvp_mbuf *m[MEMIF_RX_STASH];
};

static __dvp_always_inline void rx_stash_fill(struct memif_queue *q, struct rx_stash *st,
					      uint16_t want)
{
	want = DVP_MIN(want, (uint16_t)MEMIF_RX_STASH);
	st->next = 0;
	/* All or none: with the pool nearly dry, each packet asks for itself. */
	st->count = dvp_pktmbuf_alloc_bulk(q->mp, st->m, want) == 0 ? want : 0;
}

static __dvp_always_inline struct dvp_mbuf *rx_stash_take(struct memif_queue *q,
							  struct rx_stash *st)
{
	if (dvp_likely(st->next < st->count))
		return st->m[st->next++];
	return dvp_pktmbuf_alloc(q->mp);
}

static __dvp_always_inline void rx_stash_return(struct rx_stash *st)
{
	if (dvp_unlikely(st->next < st->count))
		dvp_pktmbuf_free_bulk(&st->m[st->next], (unsigned int)(st->count - st->next));
}

/*
 * The common case of rx_one(): the packet at slot @cur is one descriptor,
 * inside the peer's memory, that fits in one mbuf. @return the packet, or
 * NULL for rx_one() to take the slot (after reading it again), so that the
 * chains, the bad descriptors and a pool run dry are counted in one place.
 */
static __dvp_always_inline struct dvp_mbuf *rx_one_seg(struct memif_queue *q, uint16_t cur,
						       bool client, struct rx_stash *st)
{
	const struct memif_desc *d = &q->ring->desc[cur & q->mask];
	uint16_t flags = __atomic_load_n(&d->flags, __ATOMIC_RELAXED);
	uint32_t len = __atomic_load_n(&d->length, __ATOMIC_RELAXED);
	struct dvp_mbuf *m, *tail;
	const uint8_t *src;

	if (dvp_unlikely((flags & MEMIF_DESC_FLAG_NEXT) || len > MEMIF_MAX_PKT_LEN))
		return NULL;
	if (client) {
		if (dvp_unlikely(len > q->bsize))
			return NULL;
		src = q->bufs + (size_t)(cur & q->mask) * q->bsize;
	} else {
		uint16_t region = __atomic_load_n(&d->region, __ATOMIC_RELAXED);
		uint32_t off = __atomic_load_n(&d->offset, __ATOMIC_RELAXED);

		if (dvp_unlikely(region >= q->nregions ||
				 (uint64_t)off + len > q->regions[region].size))
			return NULL;
		src = (const uint8_t *)q->regions[region].addr + off;
	}
	m = rx_stash_take(q, st);
	if (dvp_unlikely(m == NULL))
		return NULL;
	m->port = q->port_id;
	if (dvp_likely(len <= (uint32_t)m->buf_len - m->data_off)) {
		dvp_memcpy(dvp_pktmbuf_mtod(m, uint8_t *), src, len);
		m->data_len = (uint16_t)len;
		m->pkt_len = len;
		return m;
	}
	/* One buffer larger than a segment (a jumbo frame): a chain of mbufs. */
	tail = m;
	if (dvp_unlikely(rx_copy(q, m, &tail, src, len) != RX_OK)) {
		dvp_pktmbuf_free(m);
		return NULL;
	}
	return m;
}

static __dvp_always_inline uint16_t rx_burst(struct memif_queue *q, struct dvp_mbuf **pkts,
					     uint16_t nb_pkts, bool client)
{
	struct memif_ring *r;
	uint16_t cur, peer, avail, used, n = 0;
	struct rx_stash stash;
	uint64_t bytes = 0;
	struct dvp_mbuf *m;
	int ret;

	if (!q_enter(q))
		return 0;
	r = q->ring;
	cur = q->last;
	/*
	 * Acquire pairs with the producer's release store of its index: the
	 * descriptors and buffers it wrote before are visible. The producer
	 * is the client on c2s rings (head), the server on s2c rings (tail).
	 */
	peer = client ? __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) :
			__atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	avail = (uint16_t)(peer - cur);
	if (dvp_unlikely(avail > q->ring_size)) {
		memif_peer_violation(q, client ? MEMIF_VIOL_TAIL : MEMIF_VIOL_HEAD, peer, cur);
		goto out;
	}
	if (avail == 0)
		goto out;
	rx_stash_fill(q, &stash, DVP_MIN(nb_pkts, avail));
	while (n < nb_pkts && avail != 0) {
		m = rx_one_seg(q, cur, client, &stash);
		if (dvp_likely(m != NULL)) {
			cur++;
			avail--;
			bytes += m->pkt_len;
			pkts[n++] = m;
			continue;
		}
		ret = rx_one(q, cur, avail, client, &m, &used);
		if (dvp_unlikely(ret != RX_OK)) {
			if (ret == RX_NOMBUF)
				dvp_counter_add(&q->st.nombuf, 1);
			break;
		}
		cur = (uint16_t)(cur + used);
		avail = (uint16_t)(avail - used);
		if (dvp_likely(m != NULL)) {
			bytes += m->pkt_len;
			pkts[n++] = m;
		}
	}
	rx_stash_return(&stash);
	if (n != 0) {
		dvp_counter_add(&q->st.packets, n);
		dvp_counter_add(&q->st.bytes, bytes);
	}
	if (client) {
		uint16_t s, target = (uint16_t)(cur + q->ring_size);

		if (cur == q->last)
			goto out;
		q->last = cur;
		/*
		 * Repost every consumed buffer, each descriptor rewritten whole
		 * (the server may have changed any field). Our posted index is
		 * kept privately: what the server writes into head is ignored.
		 */
		for (s = q->posted; s != target; s++) {
			struct memif_desc *d = &r->desc[s & q->mask];

			d->flags = 0;
			d->region = 0;
			d->length = q->bsize;
			d->offset = q->bufs_off + (uint32_t)(s & q->mask) * q->bsize;
		}
		q->posted = target;
		/* Release: the descriptors, and our reads of the old buffers, come first. */
		__atomic_store_n(&r->head, target, __ATOMIC_RELEASE);
	} else if (cur != q->last) {
		q->last = cur;
		/* Release: our reads of the buffers are done before the client reuses them. */
		__atomic_store_n(&r->tail, cur, __ATOMIC_RELEASE);
	}
out:
	q_leave(q);
	return n;
}

uint16_t memif_rx_server(void *rxq, struct dvp_mbuf **pkts, uint16_t nb_pkts)
{
	return rx_burst(rxq, pkts, nb_pkts, false);
}

uint16_t memif_rx_client(void *rxq, struct dvp_mbuf **pkts, uint16_t nb_pkts)
{
	return rx_burst(rxq, pkts, nb_pkts, true);
}

/* ------------------------------------------------------------------------
 * Tx
 */

/*
 * Our buffers at the next @n slots, for writing: the server read them
 * last, on its core (dvp_prefetch.h). A packet of more than one buffer
 * goes past the prefetched ones, and misses as before.
 */
static __dvp_always_inline void tx_client_prefetch(const struct memif_queue *q, uint16_t slot,
						   uint16_t n)
{
	uint16_t k;

	for (k = 0; k < n; k++)
		dvp_prefetch0_write(q->bufs + (size_t)((uint16_t)(slot + k) & q->mask) * q->bsize);
}

uint16_t memif_tx_client(void *txq, struct dvp_mbuf **pkts, uint16_t nb_pkts)
{
	struct memif_queue *q = txq;
	struct memif_ring *r;
	uint16_t slot, used, n_free, n = 0;
	uint64_t bytes = 0;

	if (!q_enter(q))
		return 0;
	r = q->ring;
	slot = q->last;
	/* Acquire pairs with the server's release of tail: it is done with those buffers. */
	used = (uint16_t)(slot - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE));
	if (dvp_unlikely(used > q->ring_size)) {
		memif_peer_violation(q, MEMIF_VIOL_TAIL, (uint16_t)(slot - used), slot);
		goto out;
	}
	n_free = (uint16_t)(q->ring_size - used);
	tx_client_prefetch(q, slot, DVP_MIN(nb_pkts, n_free));
	while (n < nb_pkts) {
		struct dvp_mbuf *m = pkts[n], *seg;
		uint32_t need = m->pkt_len == 0 ? 1 : (m->pkt_len + q->bsize - 1) / q->bsize;
		uint32_t room = 0, dlen = 0;
		struct memif_desc *d = NULL;
		uint8_t *dst = NULL;

		if (need > n_free) {
			dvp_counter_add(&q->st.no_room, 1);
			break;
		}
		for (seg = m; seg != NULL; seg = seg->next) {
			const uint8_t *src = dvp_pktmbuf_mtod(seg, const uint8_t *);
			uint32_t len = seg->data_len;

			while (len != 0 || d == NULL) {
				uint32_t c;

				if (room == 0) {
					uint16_t s = (uint16_t)(slot & q->mask);

					if (d != NULL) {
						d->length = dlen;
						d->flags = MEMIF_DESC_FLAG_NEXT;
						slot++;
						s = (uint16_t)(slot & q->mask);
					}
					d = &r->desc[s];
					d->region = 0;
					d->offset = q->bufs_off + (uint32_t)s * q->bsize;
					dst = q->bufs + (size_t)s * q->bsize;
					room = q->bsize;
					dlen = 0;
				}
				c = DVP_MIN(room, len);
				dvp_memcpy(dst + dlen, src, c);
				dlen += c;
				room -= c;
				src += c;
				len -= c;
				if (len == 0)
					break;
			}
		}
		d->length = dlen;
		d->flags = 0;
		slot++;
		n_free = (uint16_t)(n_free - need);
		bytes += m->pkt_len;
		n++;
	}
	if (n != 0) {
		memif_tx_publish(q, &r->head, slot, n, bytes);
		dvp_pktmbuf_free_bulk(pkts, n);
	}
out:
	q_leave(q);
	return n;
}

/*
 * The client's memory as a server's tx burst sees it, read into locals
 * once: the copies write through byte pointers, which the compiler must
 * assume could alias the queue's fields.
 */
struct tx_view {
	struct memif_desc *desc;
	const struct memif_region *regions;
	uint16_t nregions;
	uint16_t mask;
};

/* Room of the client's posted buffer at @slot, or -1 for one outside its memory. */
static __dvp_always_inline int64_t tx_room(const struct tx_view *v, uint16_t slot, uint8_t **dst)
{
	const struct memif_desc *d = &v->desc[slot & v->mask];
	uint16_t region = __atomic_load_n(&d->region, __ATOMIC_RELAXED);
	uint32_t off = __atomic_load_n(&d->offset, __ATOMIC_RELAXED);
	uint32_t room = __atomic_load_n(&d->length, __ATOMIC_RELAXED);

	if (dvp_unlikely(region >= v->nregions || room == 0 ||
			 (uint64_t)off + room > v->regions[region].size))
		return -1;
	*dst = (uint8_t *)v->regions[region].addr + off;
	return room;
}

/*
 * The client's posted buffers at the next @n slots, for writing: the client
 * read them last, on its core (dvp_prefetch.h). Unchecked but for the
 * region index: a prefetch does not fault, and tx_room() checks each
 * buffer before the copy.
 */
static __dvp_always_inline void tx_server_prefetch(const struct tx_view *v, uint16_t slot,
						   uint16_t n)
{
	uint16_t k;

	for (k = 0; k < n; k++) {
		const struct memif_desc *d = &v->desc[(uint16_t)(slot + k) & v->mask];
		uint16_t region = __atomic_load_n(&d->region, __ATOMIC_RELAXED);

		/* As an integer: an offset past the region is no pointer to form. */
		if (dvp_likely(region < v->nregions))
			dvp_prefetch0_write(
				(const void *)((uintptr_t)v->regions[region].addr +
					       __atomic_load_n(&d->offset, __ATOMIC_RELAXED)));
	}
}

uint16_t memif_tx_server(void *txq, struct dvp_mbuf **pkts, uint16_t nb_pkts)
{
	struct memif_queue *q = txq;
	struct memif_ring *r;
	uint16_t slot, n_free, n = 0;
	uint64_t bytes = 0;
	struct tx_view v;

	if (!q_enter(q))
		return 0;
	r = q->ring;
	v = (struct tx_view){ r->desc, q->regions, q->nregions, q->mask };
	slot = q->last;
	/* Acquire pairs with the client's release of head: its posted descriptors are visible. */
	n_free = (uint16_t)(__atomic_load_n(&r->head, __ATOMIC_ACQUIRE) - slot);
	if (dvp_unlikely(n_free > q->ring_size)) {
		memif_peer_violation(q, MEMIF_VIOL_HEAD, (uint16_t)(slot + n_free), slot);
		goto out;
	}
	tx_server_prefetch(&v, slot, DVP_MIN(nb_pkts, n_free));
	/* No test of n_free here: a burst that finds no posted buffer for a packet is counted. */
	while (n < nb_pkts) {
		struct dvp_mbuf *m = pkts[n], *seg;
		uint16_t k = 0;
		uint64_t have = 0;
		int64_t room = 0;
		uint8_t *dst = NULL;
		uint32_t dlen = 0;

		/* One segment into the one posted buffer it fits: one pass. */
		if (dvp_likely(m->next == NULL && n_free != 0)) {
			room = tx_room(&v, slot, &dst);
			if (dvp_likely(room >= (int64_t)m->data_len)) {
				struct memif_desc *d = &v.desc[slot & v.mask];

				dvp_memcpy(dst, dvp_pktmbuf_mtod(m, const uint8_t *), m->data_len);
				d->length = m->data_len;
				d->flags = 0;
				slot++;
				n_free--;
				bytes += m->data_len;
				n++;
				continue;
			}
		}
		/* First pass: enough posted buffers for the whole packet? */
		do {
			if (k == n_free)
				goto no_room;
			room = tx_room(&v, (uint16_t)(slot + k), &dst);
			if (room < 0) {
				memif_peer_violation(q, MEMIF_VIOL_DESC, (uint16_t)(slot + k),
						     slot);
				goto done;
			}
			have += (uint64_t)room;
			k++;
		} while (have < m->pkt_len);

		/* Second pass: copy, each room read and checked again. */
		k = 0;
		room = tx_room(&v, slot, &dst);
		for (seg = m; seg != NULL; seg = seg->next) {
			const uint8_t *src = dvp_pktmbuf_mtod(seg, const uint8_t *);
			uint32_t len = seg->data_len;

			while (len != 0) {
				uint32_t c;

				if (room <= (int64_t)dlen) {
					struct memif_desc *d = &v.desc[(slot + k) & v.mask];

					d->length = dlen;
					d->flags = MEMIF_DESC_FLAG_NEXT;
					k++;
					if (k == n_free)
						goto no_room; /* the client shrank a buffer meanwhile */
					room = tx_room(&v, (uint16_t)(slot + k), &dst);
					if (room < 0) {
						memif_peer_violation(q, MEMIF_VIOL_DESC,
								     (uint16_t)(slot + k), slot);
						goto done;
					}
					dlen = 0;
				}
				c = (uint32_t)DVP_MIN((uint64_t)(room - dlen), (uint64_t)len);
				dvp_memcpy(dst + dlen, src, c);
				dlen += c;
				src += c;
				len -= c;
			}
		}
		v.desc[(slot + k) & v.mask].length = dlen;
		v.desc[(slot + k) & v.mask].flags = 0;
		k++;
		slot = (uint16_t)(slot + k);
		n_free = (uint16_t)(n_free - k);
		bytes += m->pkt_len;
		n++;
	}
	goto done;
no_room:
	dvp_counter_add(&q->st.no_room, 1);
done:
	if (n != 0) {
		q->filled = (uint16_t)DVP_MIN((uint32_t)q->ring_size,
					      (uint32_t)q->filled + (uint16_t)(slot - q->last));
		memif_tx_publish(q, &r->tail, slot, n, bytes);
		dvp_pktmbuf_free_bulk(pkts, n);
	}
out:
	q_leave(q);
	return n;
}

/* ------------------------------------------------------------------------
 * Rx interrupts: unmask the ring when armed, sleep on its eventfd
 */

int memif_queue_intr_init(struct memif_queue *q)
{
	int err;

	q->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (q->epfd < 0)
		goto fail;
	/* lib/rxwait refuses a blocking fd: its reads must never hang the lcore. */
	if (dvp_fd_set_nonblock(q->epfd) < 0)
		goto fail;
	q->intr = true;
	return 0;
fail:
	err = errno;
	MEMIF_LOG(ERR, "rx queue %u: interrupt fds: %s", q->queue_id, strerror(err));
	memif_queue_intr_fini(q);
	return -err;
}

void memif_queue_intr_fini(struct memif_queue *q)
{
	if (q->epfd >= 0)
		close(q->epfd);
	q->epfd = -1;
	q->intr = false;
}

static int memif_intr_arm(void *ctx, bool solicited)
{
	struct memif_queue *q = ctx;

	(void)solicited;
	if (!q_enter(q))
		return 0; /* down: memif_queue_up() kicks the queue when a ring comes */
	__atomic_store_n(&q->ring->flags, 0, __ATOMIC_RELAXED);
	/*
	 * Seq_cst fence: the unmask is visible before lib/rxwait's final poll
	 * reads the producer's index (has_work); pairs with the producer's
	 * fence between its index store and its flags load (tx_kick()). With
	 * both fences, either our poll sees the packet or the producer sees
	 * the unmask and writes the eventfd. DPDK's memif producer has no
	 * fence there: its load of flags may pass its store of the index, so
	 * a DPDK peer can miss this unmask and leave us asleep until its next
	 * burst (or the waiter's timeout) -- see doc/memif.md.
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	q_leave(q);
	return 0;
}

/* Read one eventfd's count (non-blocking): it takes the whole count at once. */
static uint64_t efd_take(int fd)
{
	uint64_t v;

	return read(fd, &v, sizeof(v)) == (ssize_t)sizeof(v) ? v : 0;
}

static int memif_intr_consume(void *ctx)
{
	struct memif_queue *q = ctx;
	uint64_t n = 0;

	if (q_enter(q)) {
		/* Back to polling: the producer stops paying a syscall per burst. */
		__atomic_store_n(&q->ring->flags, MEMIF_RING_FLAG_MASK_INT, __ATOMIC_RELAXED);
		/* Under q_enter: the ring's eventfd stays open while we read it. */
		n += efd_take(q->efd);
		q_leave(q);
	}
	return n > INT32_MAX ? INT32_MAX : (int)n;
}

static bool memif_intr_has_work(void *ctx)
{
	struct memif_queue *q = ctx;
	uint16_t peer;
	bool work;

	if (!q_enter(q))
		return false;
	/* Acquire: as in the rx burst. */
	peer = q->role == MEMIF_Q_CLIENT_RX ? __atomic_load_n(&q->ring->tail, __ATOMIC_ACQUIRE) :
					      __atomic_load_n(&q->ring->head, __ATOMIC_ACQUIRE);
	work = peer != q->last;
	q_leave(q);
	return work;
}

/*
 * No ack: an eventfd needs none. No flags: no solicited events, and the
 * peer signals until consume masks the ring.
 */
const struct dvp_rxwait_queue_ops memif_intr_ops = {
	.arm = memif_intr_arm,
	.consume = memif_intr_consume,
	.has_work = memif_intr_has_work,
};
