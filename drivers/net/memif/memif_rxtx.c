/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* Copy-mode rx and tx bursts for the four queue roles, and rx interrupts. */

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <dvp_common.h>

#include "memif_log.h"
#include "memif_rxtx.h"

/* Largest packet we assemble from a chain: what an Ethernet frame can be. */
#define MEMIF_MAX_PKT_LEN 65535u

/* ------------------------------------------------------------------------
 * Entering and leaving a queue (see memif_rxtx.h)
 */

static __dvp_always_inline bool q_enter(struct memif_queue *q)
{
	/*
	 * Seq_cst exchange then seq_cst load: our busy mark is visible before
	 * we read up, pairing with memif_queue_down()'s store of up then load
	 * of busy. A locked exchange on x86, once per burst.
	 */
	__atomic_exchange_n(&q->busy, 1, __ATOMIC_SEQ_CST);
	if (dvp_likely(__atomic_load_n(&q->up, __ATOMIC_SEQ_CST)))
		return true;
	__atomic_store_n(&q->busy, 0, __ATOMIC_RELEASE);
	return false;
}

static __dvp_always_inline void q_leave(struct memif_queue *q)
{
	/* Release: every access of the burst to shared memory is done before. */
	__atomic_store_n(&q->busy, 0, __ATOMIC_RELEASE);
}

void memif_queue_up(struct memif_queue *q, const struct memif_shm *shm,
		    const struct memif_shm_ring *sr)
{
	struct memif_ring *r = sr->ring;
	bool rx = q->role == MEMIF_Q_SERVER_RX || q->role == MEMIF_Q_CLIENT_RX;

	q->ring = r;
	q->ring_size = (uint16_t)(1u << sr->log2_ring_size);
	q->mask = (uint16_t)(q->ring_size - 1);
	q->last = 0;
	q->bsize = shm->bsize;
	q->bufs = shm->regions[0].addr != NULL ? (uint8_t *)shm->regions[0].addr + sr->buf_base :
						 NULL;
	q->regions = shm->regions;
	q->nregions = shm->nregions;
	q->efd = sr->efd;
	/* Both sides start a connection from 0, as DPDK does at connect. */
	__atomic_store_n(&r->head, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&r->tail, 0, __ATOMIC_RELAXED);
	/* The receiver owns flags: poll until an rx queue is armed. */
	if (rx)
		__atomic_store_n(&r->flags, MEMIF_RING_FLAG_MASK_INT, __ATOMIC_RELAXED);
	if (q->intr && q->epfd >= 0 && q->efd >= 0) {
		struct epoll_event ev = { .events = EPOLLIN, .data.fd = q->efd };

		if (epoll_ctl(q->epfd, EPOLL_CTL_ADD, q->efd, &ev) < 0)
			MEMIF_LOG(WARNING, "rx queue %u: cannot watch the ring's eventfd: %s",
				  q->queue_id, strerror(errno));
	}
	/* Release: the fields above are visible to a burst that sees up. */
	__atomic_store_n(&q->up, 1, __ATOMIC_SEQ_CST);
}

void memif_queue_down(struct memif_queue *q)
{
	if (!__atomic_load_n(&q->up, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&q->up, 0, __ATOMIC_SEQ_CST);
	/* A burst is a bounded copy loop: this wait is short. */
	while (__atomic_load_n(&q->busy, __ATOMIC_SEQ_CST))
		dvp_pause();
	if (q->intr && q->epfd >= 0 && q->efd >= 0)
		(void)epoll_ctl(q->epfd, EPOLL_CTL_DEL, q->efd, NULL);
	q->ring = NULL;
	q->regions = NULL;
	q->nregions = 0;
	q->bufs = NULL;
	q->efd = -1;
}

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
		memcpy(dvp_pktmbuf_mtod_offset(t, uint8_t *, t->data_len), src, c);
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
		q->st.bad_desc++;
		*out = NULL;
		return RX_OK;
	}
	q->st.bytes += head->pkt_len;
	*out = head;
	return RX_OK;
}

static __dvp_always_inline uint16_t rx_burst(struct memif_queue *q, struct dvp_mbuf **pkts,
					     uint16_t nb_pkts, bool client)
{
	struct memif_ring *r;
	uint16_t cur, peer, avail, used, n = 0;
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
		q->st.peer_errors++;
		goto out;
	}
	while (n < nb_pkts && avail != 0) {
		ret = rx_one(q, cur, avail, client, &m, &used);
		if (dvp_unlikely(ret != RX_OK)) {
			if (ret == RX_NOMBUF)
				q->st.nombuf++;
			break;
		}
		cur = (uint16_t)(cur + used);
		avail = (uint16_t)(avail - used);
		if (dvp_likely(m != NULL))
			pkts[n++] = m;
	}
	q->st.pkts += n;
	if (client) {
		uint16_t s, target = (uint16_t)(cur + q->ring_size);
		uint16_t posted = __atomic_load_n(&r->head, __ATOMIC_RELAXED);

		q->last = cur;
		/*
		 * Repost every consumed buffer. head is ours; it is read back
		 * from the ring only to learn where the last burst stopped, and
		 * checked: a server that moved it gets the ring reposted whole.
		 */
		if ((uint16_t)(target - posted) > q->ring_size)
			posted = cur;
		for (s = posted; s != target; s++) {
			struct memif_desc *d = &r->desc[s & q->mask];

			d->flags = 0;
			d->region = 0;
			d->length = q->bsize;
			d->offset = (uint32_t)(q->bufs - (uint8_t *)q->regions[0].addr) +
				    (uint32_t)(s & q->mask) * q->bsize;
		}
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

static __dvp_always_inline void tx_kick(struct memif_queue *q)
{
	uint64_t one = 1;

	/*
	 * Seq_cst fence: our index store is visible before we read the
	 * receiver's flags, pairing with its unmask, fence, index check
	 * (memif_intr_arm). Without it both could miss each other and the
	 * receiver sleep on a non-empty ring.
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&q->ring->flags, __ATOMIC_RELAXED) & MEMIF_RING_FLAG_MASK_INT)
		return;
	/* The peer asked for an interrupt: the one syscall the protocol needs. */
	if (write(q->efd, &one, sizeof(one)) == sizeof(one))
		q->st.kicks++;
}

uint16_t memif_tx_client(void *txq, struct dvp_mbuf **pkts, uint16_t nb_pkts)
{
	struct memif_queue *q = txq;
	struct memif_ring *r;
	uint16_t slot, used, n_free, n = 0;
	uint32_t bufs_off;

	if (!q_enter(q))
		return 0;
	r = q->ring;
	slot = q->last;
	/* Acquire pairs with the server's release of tail: it is done with those buffers. */
	used = (uint16_t)(slot - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE));
	if (dvp_unlikely(used > q->ring_size)) {
		q->st.peer_errors++;
		goto out;
	}
	n_free = (uint16_t)(q->ring_size - used);
	bufs_off = (uint32_t)(q->bufs - (uint8_t *)q->regions[0].addr);
	while (n < nb_pkts) {
		struct dvp_mbuf *m = pkts[n], *seg;
		uint32_t need = m->pkt_len == 0 ? 1 : (m->pkt_len + q->bsize - 1) / q->bsize;
		uint32_t room = 0, dlen = 0;
		struct memif_desc *d = NULL;
		uint8_t *dst = NULL;

		if (need > n_free) {
			q->st.no_room++;
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
					d->offset = bufs_off + (uint32_t)s * q->bsize;
					dst = q->bufs + (size_t)s * q->bsize;
					room = q->bsize;
					dlen = 0;
				}
				c = DVP_MIN(room, len);
				memcpy(dst + dlen, src, c);
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
		q->st.bytes += m->pkt_len;
		n++;
	}
	if (n != 0) {
		q->last = slot;
		/* Release: descriptors and buffers are written before the server sees head. */
		__atomic_store_n(&r->head, slot, __ATOMIC_RELEASE);
		q->st.pkts += n;
		tx_kick(q);
		dvp_pktmbuf_free_bulk(pkts, n);
	}
out:
	q_leave(q);
	return n;
}

/* Room of the client's posted buffer at @slot, or -1 for one outside its memory. */
static __dvp_always_inline int64_t tx_room(const struct memif_queue *q, uint16_t slot,
					   uint8_t **dst)
{
	const struct memif_desc *d = &q->ring->desc[slot & q->mask];
	uint16_t region = __atomic_load_n(&d->region, __ATOMIC_RELAXED);
	uint32_t off = __atomic_load_n(&d->offset, __ATOMIC_RELAXED);
	uint32_t room = __atomic_load_n(&d->length, __ATOMIC_RELAXED);

	if (dvp_unlikely(region >= q->nregions || room == 0 ||
			 (uint64_t)off + room > q->regions[region].size))
		return -1;
	*dst = (uint8_t *)q->regions[region].addr + off;
	return room;
}

uint16_t memif_tx_server(void *txq, struct dvp_mbuf **pkts, uint16_t nb_pkts)
{
	struct memif_queue *q = txq;
	struct memif_ring *r;
	uint16_t slot, n_free, n = 0;

	if (!q_enter(q))
		return 0;
	r = q->ring;
	slot = q->last;
	/* Acquire pairs with the client's release of head: its posted descriptors are visible. */
	n_free = (uint16_t)(__atomic_load_n(&r->head, __ATOMIC_ACQUIRE) - slot);
	if (dvp_unlikely(n_free > q->ring_size)) {
		q->st.peer_errors++;
		goto out;
	}
	while (n < nb_pkts && n_free != 0) {
		struct dvp_mbuf *m = pkts[n], *seg;
		uint16_t k = 0;
		uint64_t have = 0;
		int64_t room = 0;
		uint8_t *dst = NULL;
		uint32_t dlen = 0;

		/* First pass: enough posted buffers for the whole packet? */
		do {
			if (k == n_free)
				goto no_room;
			room = tx_room(q, (uint16_t)(slot + k), &dst);
			if (room < 0) {
				q->st.peer_errors++;
				goto done;
			}
			have += (uint64_t)room;
			k++;
		} while (have < m->pkt_len);

		/* Second pass: copy, each room read and checked again. */
		k = 0;
		room = tx_room(q, slot, &dst);
		for (seg = m; seg != NULL; seg = seg->next) {
			const uint8_t *src = dvp_pktmbuf_mtod(seg, const uint8_t *);
			uint32_t len = seg->data_len;

			while (len != 0) {
				uint32_t c;

				if (room <= (int64_t)dlen) {
					struct memif_desc *d = &r->desc[(slot + k) & q->mask];

					d->length = dlen;
					d->flags = MEMIF_DESC_FLAG_NEXT;
					k++;
					if (k == n_free)
						goto no_room; /* the client shrank a buffer meanwhile */
					room = tx_room(q, (uint16_t)(slot + k), &dst);
					if (room < 0) {
						q->st.peer_errors++;
						goto done;
					}
					dlen = 0;
				}
				c = (uint32_t)DVP_MIN((uint64_t)(room - dlen), (uint64_t)len);
				memcpy(dst + dlen, src, c);
				dlen += c;
				src += c;
				len -= c;
			}
		}
		r->desc[(slot + k) & q->mask].length = dlen;
		r->desc[(slot + k) & q->mask].flags = 0;
		k++;
		slot = (uint16_t)(slot + k);
		n_free = (uint16_t)(n_free - k);
		q->st.bytes += m->pkt_len;
		n++;
	}
	goto done;
no_room:
	q->st.no_room++;
done:
	if (n != 0) {
		q->last = slot;
		/* Release: buffers and descriptors are written before the client sees tail. */
		__atomic_store_n(&r->tail, slot, __ATOMIC_RELEASE);
		q->st.pkts += n;
		tx_kick(q);
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
	q->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (q->epfd < 0) {
		int err = errno;

		MEMIF_LOG(ERR, "rx queue %u: epoll_create1: %s", q->queue_id, strerror(err));
		return -err;
	}
	q->intr = true;
	return 0;
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
		return 0; /* not connected: the link-up event wakes the waiter */
	__atomic_store_n(&q->ring->flags, 0, __ATOMIC_RELAXED);
	/*
	 * Seq_cst fence: the unmask is visible before lib/intr's final poll
	 * reads the producer's index; pairs with the producer's fence in
	 * tx_kick(). A producer without that fence (DPDK's memif writes the
	 * index and reads flags with no fence between) can still miss this
	 * unmask in a window of a few instructions; the next packet it sends
	 * after that wakes us.
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	q_leave(q);
	return 0;
}

static int memif_intr_consume(void *ctx)
{
	struct memif_queue *q = ctx;
	struct epoll_event evs[2];
	uint64_t v;
	int n = 0, i, ne;

	if (q_enter(q)) {
		/* Back to polling: the producer stops paying a syscall per burst. */
		__atomic_store_n(&q->ring->flags, MEMIF_RING_FLAG_MASK_INT, __ATOMIC_RELAXED);
		q_leave(q);
	}
	ne = epoll_wait(q->epfd, evs, 2, 0);
	for (i = 0; i < ne; i++)
		while (read(evs[i].data.fd, &v, sizeof(v)) == sizeof(v))
			n++;
	return n;
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

const struct dvp_intr_queue_ops memif_intr_ops = {
	.arm = memif_intr_arm,
	.consume = memif_intr_consume,
	.ack = NULL,
	.has_work = memif_intr_has_work,
	.flags = 0,
};
