/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * net_af_xdp bursts and rx interrupts.
 *
 * The system calls AF_XDP needs stay off the fast path except where the
 * kernel asks for them: sendto(2) when the tx ring has need_wakeup set
 * (always, in copy mode: the kernel sends from inside the call), recvfrom(2)
 * when the fill ring has it set (a zero-copy driver that ran out of
 * buffers), and recvfrom(2) on an empty poll when busy polling was asked
 * for (busy_budget). Errors leave through cold functions.
 */

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include <dvp_common.h>
#include <dvp_errno.h>

#include "af_xdp_log.h"
#include "af_xdp_rxtx.h"

/* Mbufs allocated or freed at a time by the refill and the completion. */
#define AF_XDP_BATCH 64

static __dvp_always_inline uint64_t desc_off(uint64_t addr)
{
	return addr & XSK_UNALIGNED_BUF_ADDR_MASK;
}

static __dvp_always_inline uint16_t desc_data(uint64_t addr)
{
	return (uint16_t)(addr >> XSK_UNALIGNED_BUF_OFFSET_SHIFT);
}

/* ------------------------------------------------------------------------
 * Kicks: the system calls the kernel asks for
 */

/*
 * The first unexpected error of a kick since the last that worked: the
 * lcore restarts the queue at its next burst (and reports it then, as a
 * fault it found itself).
 */
static __dvp_cold void rx_kick_failed(struct af_xdp_rxq *rxq)
{
	if (rxq->kick_failed)
		return;
	rxq->kick_failed = true;
	(void)dvp_queue_fault_set(&rxq->fault, DVP_PORT_CAUSE_DRIVER);
}

static __dvp_cold void tx_kick_failed(struct af_xdp_txq *txq)
{
	dvp_counter_add(&txq->st.kick_errors, 1);
	if (txq->kick_failed)
		return;
	txq->kick_failed = true;
	(void)dvp_queue_fault_set(&txq->fault, DVP_PORT_CAUSE_DRIVER);
}

/*
 * recvfrom(2) on the socket: wakes a driver that stopped for want of fill
 * buffers, or drives busy polling. EAGAIN and ENOBUFS are normal answers.
 */
static __attribute__((noinline)) void rx_kick(struct af_xdp_rxq *rxq, uint64_t *ctr)
{
	if (recvfrom(rxq->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL) >= 0 || errno == EAGAIN ||
	    errno == EBUSY || errno == ENOBUFS || errno == EINTR || errno == ENETDOWN) {
		dvp_counter_add(ctr, 1);
		rxq->kick_failed = false;
		return;
	}
	rx_kick_failed(rxq);
}

/*
 * sendto(2): the kernel sends what the tx ring holds (up to 32 frames a
 * call in copy mode, EAGAIN when more is left). EBUSY, ENOBUFS and
 * ENETDOWN leave the rest for the next burst.
 */
static __attribute__((noinline)) void tx_kick(struct af_xdp_txq *txq)
{
	unsigned int t;

	for (t = 0; t < AF_XDP_KICK_TRIES; t++) {
		if (sendto(txq->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) >= 0) {
			dvp_counter_add(&txq->st.kicks, 1);
			txq->kick_failed = false;
			return;
		}
		switch (errno) {
		case EAGAIN:
			dvp_counter_add(&txq->st.kick_again, 1);
			continue;
		case EINTR:
			continue;
		case EBUSY:
		case ENOBUFS:
		case ENETDOWN:
			dvp_counter_add(&txq->st.kick_busy, 1);
			return;
		default:
			tx_kick_failed(txq);
			return;
		}
	}
}

/* ------------------------------------------------------------------------
 * Rx
 */

/* Give the fill ring fresh mbufs for what was received (the debt). */
static __dvp_always_inline void rx_pool_refill(struct af_xdp_rxq *rxq)
{
	struct dvp_mbuf *bufs[AF_XDP_BATCH];

	while (rxq->fill_debt != 0) {
		uint32_t n = DVP_MIN(rxq->fill_debt, (uint32_t)AF_XDP_BATCH);
		uint32_t idx, i;

		/*
		 * The fill ring has room for twice the nb_desc buffers the
		 * queue gives the kernel, so it is short only while the
		 * kernel has not published its consumer index for that long.
		 */
		n = DVP_MIN(n, af_xdp_prod_free(&rxq->fill, n));
		if (dvp_unlikely(n == 0)) {
			dvp_counter_add(&rxq->st.fill_short, 1);
			break;
		}
		if (dvp_unlikely(dvp_pktmbuf_alloc_bulk(rxq->mp, bufs, n) != 0)) {
			dvp_counter_add(&rxq->st.nombuf, 1);
			break;
		}
		idx = rxq->fill.cached_prod;
		for (i = 0; i < n; i++) {
			uint64_t off = (uint64_t)((uint8_t *)bufs[i]->buf_addr - rxq->base);

			*xsk_ring_prod__fill_addr(&rxq->fill, idx + i) = off;
			af_xdp_held_set(rxq->held, rxq->held_shift, off);
		}
		af_xdp_prod_submit(&rxq->fill, n);
		rxq->fill_debt -= n;
	}
	if (dvp_unlikely(af_xdp_needs_wakeup(&rxq->fill)))
		rx_kick(rxq, &rxq->st.fill_wakeups);
}

/* Nothing received: with busy polling, let the kernel poll the device for us. */
static __dvp_always_inline void rx_empty(struct af_xdp_rxq *rxq)
{
	if (rxq->busy_poll)
		rx_kick(rxq, &rxq->st.busy_polls);
}

static __dvp_cold uint16_t rx_fault(struct af_xdp_rxq *rxq, enum dvp_port_event_cause cause)
{
	af_xdp_rxq_restart(rxq, cause);
	return 0;
}

uint16_t af_xdp_rx_pool(void *q, struct dvp_mbuf **pkts, uint16_t nb)
{
	struct af_xdp_rxq *rxq = q;
	enum dvp_port_event_cause cause = dvp_queue_fault_take(&rxq->fault);
	uint64_t bytes = 0;
	uint32_t n, i, idx;

	if (dvp_unlikely(cause != DVP_PORT_CAUSE_NONE))
		return rx_fault(rxq, cause);
	n = af_xdp_cons_avail(&rxq->rx, nb);
	if (n == 0) {
		if (dvp_unlikely(rxq->fill_debt != 0))
			rx_pool_refill(rxq);
		rx_empty(rxq);
		return 0;
	}
	idx = rxq->rx.cached_cons;
	for (i = 0; i < n; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&rxq->rx, idx + i);
		uint64_t off = desc_off(d->addr);
		/* The buffer is an mbuf's: its header is mbuf_hdr bytes before. */
		struct dvp_mbuf *m = (struct dvp_mbuf *)(void *)(rxq->base + off - rxq->mbuf_hdr);

		af_xdp_held_clear(rxq->held, rxq->held_shift, off);
		/* The rest was reset when the mbuf was allocated for the fill ring. */
		m->data_off = desc_data(d->addr);
		m->data_len = (uint16_t)d->len;
		m->pkt_len = d->len;
		m->port = rxq->port_id;
		bytes += d->len;
		pkts[i] = m;
	}
	af_xdp_cons_release(&rxq->rx, n);
	rxq->fill_debt += n;
	rx_pool_refill(rxq);
	dvp_counter_add(&rxq->st.packets, n);
	dvp_counter_add(&rxq->st.bytes, bytes);
	return (uint16_t)n;
}

uint16_t af_xdp_rx_own(void *q, struct dvp_mbuf **pkts, uint16_t nb)
{
	struct af_xdp_rxq *rxq = q;
	enum dvp_port_event_cause cause = dvp_queue_fault_take(&rxq->fault);
	uint32_t n, i, idx, fidx;
	uint64_t bytes = 0;

	if (dvp_unlikely(cause != DVP_PORT_CAUSE_NONE))
		return rx_fault(rxq, cause);
	n = af_xdp_cons_avail(&rxq->rx, nb);
	if (n == 0) {
		rx_empty(rxq);
		return 0;
	}
	/* Frames stay in the rx ring until mbufs can take them. */
	if (dvp_unlikely(dvp_pktmbuf_alloc_bulk(rxq->mp, pkts, n) != 0)) {
		dvp_counter_add(&rxq->st.nombuf, 1);
		return 0;
	}
	/* A frame goes back to the fill ring as it leaves the rx ring: room is there. */
	(void)af_xdp_prod_free(&rxq->fill, n);
	idx = rxq->rx.cached_cons;
	fidx = rxq->fill.cached_prod;
	for (i = 0; i < n; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&rxq->rx, idx + i);
		uint64_t off = desc_off(d->addr);
		struct dvp_mbuf *m = pkts[i];

		memcpy(dvp_pktmbuf_mtod(m, void *), rxq->base + off + desc_data(d->addr), d->len);
		m->data_len = (uint16_t)d->len;
		m->pkt_len = d->len;
		m->port = rxq->port_id;
		bytes += d->len;
		*xsk_ring_prod__fill_addr(&rxq->fill, fidx + i) = off;
	}
	af_xdp_cons_release(&rxq->rx, n);
	af_xdp_prod_submit(&rxq->fill, n);
	if (dvp_unlikely(af_xdp_needs_wakeup(&rxq->fill)))
		rx_kick(rxq, &rxq->st.fill_wakeups);
	dvp_counter_add(&rxq->st.packets, n);
	dvp_counter_add(&rxq->st.bytes, bytes);
	return (uint16_t)n;
}

int af_xdp_rxq_fill_first(struct af_xdp_rxq *rxq)
{
	uint32_t idx, i;

	if (rxq->held != NULL) {
		rxq->fill_debt = rxq->nb_desc;
		rx_pool_refill(rxq);
		if (rxq->fill_debt != 0) {
			AF_XDP_LOG(ERR,
				   "port %u rx queue %u: the pool has fewer than %u free mbufs for "
				   "the fill ring (%u missing); give it more",
				   rxq->port_id, rxq->queue_id, rxq->nb_desc, rxq->fill_debt);
			return dvp_err(ENOMEM);
		}
		return 0;
	}
	/* Own UMEM: frames 0 to nb_desc - 1 are the rx frames. */
	if (af_xdp_prod_free(&rxq->fill, rxq->nb_desc) < rxq->nb_desc)
		return dvp_err(EIO);
	idx = rxq->fill.cached_prod;
	for (i = 0; i < rxq->nb_desc; i++)
		*xsk_ring_prod__fill_addr(&rxq->fill, idx + i) =
			(uint64_t)i * (uint64_t)(rxq->mbuf_hdr);
	af_xdp_prod_submit(&rxq->fill, rxq->nb_desc);
	return 0;
}

/* ------------------------------------------------------------------------
 * Tx
 */

/* Free what the kernel has sent (pool UMEM). */
static __dvp_always_inline void tx_pool_complete(struct af_xdp_txq *txq)
{
	struct dvp_mbuf *done[AF_XDP_BATCH];
	uint32_t n, i, idx;

	while ((n = af_xdp_cons_avail(&txq->comp, AF_XDP_BATCH)) != 0) {
		idx = txq->comp.cached_cons;
		for (i = 0; i < n; i++) {
			uint64_t off = desc_off(*xsk_ring_cons__comp_addr(&txq->comp, idx + i));

			af_xdp_held_clear(txq->held, txq->held_shift, off);
			done[i] = (struct dvp_mbuf *)(void *)(txq->base + off - txq->mbuf_hdr);
		}
		af_xdp_cons_release(&txq->comp, n);
		dvp_pktmbuf_free_bulk(done, n);
		if (n < AF_XDP_BATCH)
			break;
	}
}

enum { TX_COPY_DROPPED = 1, TX_COPY_NOMBUF = 2 };

/*
 * An mbuf the UMEM does not cover (another pool's), a chain, or a frame
 * longer than a chunk: copy it into a fresh mbuf of the UMEM's pool. On
 * success *@m is the copy and the original is freed; a frame longer than a
 * chunk is freed and counted.
 */
static __dvp_cold int tx_pool_copy(struct af_xdp_txq *txq, struct dvp_mbuf **m)
{
	struct dvp_mbuf *src = *m, *dst, *seg;
	uint32_t off = 0;

	if (src->pkt_len > txq->chunk) {
		dvp_pktmbuf_free(src);
		dvp_counter_add(&txq->st.too_long, 1);
		dvp_counter_add(&txq->st.errors, 1);
		return TX_COPY_DROPPED;
	}
	dst = dvp_pktmbuf_alloc(txq->mp);
	if (dst == NULL)
		return TX_COPY_NOMBUF;
	/* The copy starts at the buffer so the longest frame a chunk takes fits. */
	dst->data_off = 0;
	if (src->pkt_len > dst->buf_len || src->pkt_len > txq->chunk) {
		dvp_pktmbuf_free(dst);
		dvp_pktmbuf_free(src);
		dvp_counter_add(&txq->st.copy_drops, 1);
		dvp_counter_add(&txq->st.errors, 1);
		return TX_COPY_DROPPED;
	}
	for (seg = src; seg != NULL; seg = seg->next) {
		memcpy(dvp_pktmbuf_mtod_offset(dst, uint8_t *, off), dvp_pktmbuf_mtod(seg, void *),
		       seg->data_len);
		off += seg->data_len;
	}
	dst->data_len = (uint16_t)off;
	dst->pkt_len = off;
	dvp_pktmbuf_free(src);
	dvp_counter_add(&txq->st.copied, 1);
	*m = dst;
	return 0;
}

static __dvp_cold void tx_fault(struct af_xdp_txq *txq, enum dvp_port_event_cause cause)
{
	af_xdp_txq_restart(txq, cause);
}

/* The burst ends: publish @sent, count, and kick the kernel if it asks. */
static __dvp_always_inline void tx_finish(struct af_xdp_txq *txq, uint32_t sent, uint64_t bytes,
					  bool short_of_room)
{
	if (sent != 0) {
		af_xdp_prod_submit(&txq->tx, sent);
		dvp_counter_add(&txq->st.packets, sent);
		dvp_counter_add(&txq->st.bytes, bytes);
	}
	if (dvp_unlikely(short_of_room)) {
		dvp_counter_add(&txq->st.ring_full, 1);
		/* Relaxed: a hint for the paired rx queue's sleep, which reads the rings again. */
		__atomic_store_n(&txq->room_wanted, 1, __ATOMIC_RELAXED);
	}
	if (af_xdp_needs_wakeup(&txq->tx))
		tx_kick(txq);
}

uint16_t af_xdp_tx_pool(void *q, struct dvp_mbuf **pkts, uint16_t nb)
{
	struct af_xdp_txq *txq = q;
	enum dvp_port_event_cause cause = dvp_queue_fault_take(&txq->fault);
	uint32_t room, idx, sent = 0, i;
	uint64_t bytes = 0;

	if (dvp_unlikely(cause != DVP_PORT_CAUSE_NONE))
		tx_fault(txq, cause);
	tx_pool_complete(txq);
	room = af_xdp_prod_free(&txq->tx, nb);
	idx = txq->tx.cached_prod;
	for (i = 0; i < nb && sent < room; i++) {
		struct dvp_mbuf *m = pkts[i];
		struct xdp_desc *d;
		uint64_t off;

		if (dvp_unlikely(m->pool != txq->mp || m->nb_segs != 1 ||
				 m->data_len > txq->chunk)) {
			int ret = tx_pool_copy(txq, &m);

			if (ret == TX_COPY_DROPPED)
				continue;
			if (ret == TX_COPY_NOMBUF)
				break;
		}
		off = (uint64_t)((uint8_t *)m->buf_addr - txq->base);
		d = xsk_ring_prod__tx_desc(&txq->tx, idx + sent);
		d->addr = off | ((uint64_t)m->data_off << XSK_UNALIGNED_BUF_OFFSET_SHIFT);
		d->len = m->data_len;
		d->options = 0;
		af_xdp_held_set(txq->held, txq->held_shift, off);
		bytes += m->data_len;
		sent++;
	}
	tx_finish(txq, sent, bytes, i < nb);
	return (uint16_t)i;
}

/* Take back the frames the kernel has sent (own UMEM). */
static __dvp_always_inline void tx_own_complete(struct af_xdp_txq *txq)
{
	uint32_t n = af_xdp_cons_avail(&txq->comp, txq->nb_desc), idx, i;

	if (n == 0)
		return;
	idx = txq->comp.cached_cons;
	for (i = 0; i < n; i++)
		txq->frames[txq->nb_frames++] =
			desc_off(*xsk_ring_cons__comp_addr(&txq->comp, idx + i));
	af_xdp_cons_release(&txq->comp, n);
}

uint16_t af_xdp_tx_own(void *q, struct dvp_mbuf **pkts, uint16_t nb)
{
	struct af_xdp_txq *txq = q;
	enum dvp_port_event_cause cause = dvp_queue_fault_take(&txq->fault);
	uint32_t room, idx, sent = 0, i;
	uint64_t bytes = 0;

	if (dvp_unlikely(cause != DVP_PORT_CAUSE_NONE))
		tx_fault(txq, cause);
	tx_own_complete(txq);
	room = DVP_MIN(af_xdp_prod_free(&txq->tx, nb), txq->nb_frames);
	idx = txq->tx.cached_prod;
	for (i = 0; i < nb && sent < room; i++) {
		struct dvp_mbuf *m = pkts[i], *seg;
		struct xdp_desc *d;
		uint64_t frame;
		uint32_t off = 0;

		if (dvp_unlikely(m->pkt_len > txq->chunk)) {
			dvp_counter_add(&txq->st.too_long, 1);
			dvp_counter_add(&txq->st.errors, 1);
			continue;
		}
		frame = txq->frames[--txq->nb_frames];
		for (seg = m; seg != NULL; seg = seg->next) {
			memcpy(txq->base + frame + off, dvp_pktmbuf_mtod(seg, void *),
			       seg->data_len);
			off += seg->data_len;
		}
		d = xsk_ring_prod__tx_desc(&txq->tx, idx + sent);
		d->addr = frame;
		d->len = m->pkt_len;
		d->options = 0;
		bytes += m->pkt_len;
		sent++;
	}
	/* Copied (or too long): every mbuf taken is done with. */
	dvp_pktmbuf_free_bulk(pkts, i);
	tx_finish(txq, sent, bytes, i < nb);
	return (uint16_t)i;
}

/* ------------------------------------------------------------------------
 * Stop and restart (control path, or the lcore's cold path)
 */

unsigned int af_xdp_held_count(const uint64_t *map, uint32_t words)
{
	unsigned int n = 0;
	uint32_t i;

	for (i = 0; map != NULL && i < words; i++)
		n += (unsigned int)__builtin_popcountll(map[i]);
	return n;
}

struct reclaim_arg {
	uint64_t *map;
	uint8_t shift;
	const uint8_t *base;
	uint64_t len;
	unsigned int freed;
};

static void reclaim_obj(struct dvp_mempool *mp, void *opaque, void *obj, unsigned int idx)
{
	struct reclaim_arg *a = opaque;
	struct dvp_mbuf *m = obj;
	uint64_t off;

	(void)mp;
	(void)idx;
	if ((const uint8_t *)m->buf_addr < a->base)
		return;
	off = (uint64_t)((const uint8_t *)m->buf_addr - a->base);
	if (off >= a->len || !af_xdp_held_test(a->map, a->shift, off))
		return;
	af_xdp_held_clear(a->map, a->shift, off);
	dvp_pktmbuf_free(m);
	a->freed++;
}

/* Free every mbuf of @mp whose buffer @map marks as the kernel's. */
static unsigned int reclaim(struct dvp_mempool *mp, uint64_t *map, uint32_t words, uint8_t shift,
			    const uint8_t *base)
{
	struct reclaim_arg a = {
		.map = map,
		.shift = shift,
		.base = base,
		.len = ((uint64_t)words * 64) << shift,
	};

	if (map == NULL || af_xdp_held_count(map, words) == 0)
		return 0;
	dvp_mempool_obj_iter(mp, reclaim_obj, &a);
	return a.freed;
}

void af_xdp_rxq_reclaim(struct af_xdp_rxq *rxq)
{
	reclaim(rxq->mp, rxq->held, rxq->held_words, rxq->held_shift, rxq->base);
	rxq->fill_debt = 0;
}

void af_xdp_txq_reclaim(struct af_xdp_txq *txq)
{
	reclaim(txq->mp, txq->held, txq->held_words, txq->held_shift, txq->base);
}

void af_xdp_rxq_restart(struct af_xdp_rxq *rxq, enum dvp_port_event_cause cause)
{
	uint32_t n = 0, idx, i;

	if (rxq->fd >= 0) {
		/* What waits in the rx ring is dropped, its buffers given back. */
		n = af_xdp_cons_avail(&rxq->rx, rxq->nb_desc);
		idx = rxq->rx.cached_cons;
		for (i = 0; i < n; i++) {
			uint64_t off = desc_off(xsk_ring_cons__rx_desc(&rxq->rx, idx + i)->addr);

			if (rxq->held != NULL) {
				af_xdp_held_clear(rxq->held, rxq->held_shift, off);
				dvp_pktmbuf_free((struct dvp_mbuf *)(void *)(rxq->base + off -
									     rxq->mbuf_hdr));
				rxq->fill_debt++;
			} else if (af_xdp_prod_free(&rxq->fill, 1) != 0) {
				*xsk_ring_prod__fill_addr(&rxq->fill, rxq->fill.cached_prod) = off;
				af_xdp_prod_submit(&rxq->fill, 1);
			}
		}
		af_xdp_cons_release(&rxq->rx, n);
		if (rxq->held != NULL)
			rx_pool_refill(rxq);
		/* A kick that fails again sets no new fault: one report until one works. */
		rx_kick(rxq, &rxq->st.fill_wakeups);
		dvp_counter_add(&rxq->st.restart_drops, n);
		dvp_counter_add(&rxq->st.errors, n);
	}
	/* A fault raised elsewhere was reported when it was raised (dvp_port_fault.h). */
	if (cause == DVP_PORT_CAUSE_DRIVER)
		dvp_port_queue_error_report(rxq->port, rxq->queue_id, false, cause,
					    "a kick failed: %u frames of its rx ring dropped, "
					    "the kernel kicked again",
					    n);
	else
		AF_XDP_LOG(NOTICE, "%s: rx queue %u restarted, %u frames of its rx ring dropped",
			   rxq->port->name, rxq->queue_id, n);
}

void af_xdp_txq_restart(struct af_xdp_txq *txq, enum dvp_port_event_cause cause)
{
	if (txq->fd >= 0) {
		if (txq->held != NULL)
			tx_pool_complete(txq);
		else
			tx_own_complete(txq);
		/* A kick that fails again sets no new fault: one report until one works. */
		tx_kick(txq);
	}
	if (cause == DVP_PORT_CAUSE_DRIVER)
		dvp_port_queue_error_report(txq->port, txq->queue_id, true, cause,
					    "a kick failed: completions taken, the kernel kicked "
					    "again");
	else
		AF_XDP_LOG(NOTICE, "%s: tx queue %u restarted: completions taken, kernel kicked",
			   txq->port->name, txq->queue_id);
}

/* ------------------------------------------------------------------------
 * Rx interrupts: the socket's fd in the queue's epoll set
 */

/* Wait for @events on the socket (EPOLLIN, with EPOLLOUT while the pair wants room). */
static void intr_wait_for(struct af_xdp_rxq *rxq, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.fd = rxq->fd };

	if (events == rxq->ep_events)
		return;
	if (epoll_ctl(rxq->epfd, EPOLL_CTL_MOD, rxq->fd, &ev) == 0)
		rxq->ep_events = events;
}

/* Whether the pair's tx ring has free slots now (its shared indexes: any thread). */
static bool pair_has_room(const struct af_xdp_txq *txq)
{
	/* Acquire on the consumer, as af_xdp_prod_free(). */
	uint32_t cons = __atomic_load_n(txq->tx.consumer, __ATOMIC_ACQUIRE);
	uint32_t prod = __atomic_load_n(txq->tx.producer, __ATOMIC_RELAXED);

	return prod - cons < txq->tx.size;
}

/*
 * An AF_XDP socket signals readable for as long as its rx ring holds
 * frames (level-triggered): nothing to arm in the kernel. What arming
 * does is make sure the kernel can deliver: the fill ring topped up and,
 * if the driver asked for it, kicked; frames still in the pair's tx ring
 * pushed out (a copy-mode socket sends only when kicked); and, if the pair
 * ran out of room, the wait extended to the socket becoming writable.
 */
static int af_xdp_intr_arm(void *ctx, bool solicited)
{
	struct af_xdp_rxq *rxq = ctx;
	struct af_xdp_txq *txq = rxq->pair;
	uint32_t events = EPOLLIN;

	(void)solicited;
	if (rxq->fd < 0)
		return 0; /* stopped: start kicks the queue */
	if (rxq->held != NULL && rxq->fill_debt != 0)
		rx_pool_refill(rxq);
	/*
	 * Seq_cst fence: our fill ring producer store is visible before we
	 * read need_wakeup, so either we see the flag a driver set on finding
	 * the ring empty, or it sees our buffers. A wait woken later re-polls.
	 */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (af_xdp_needs_wakeup(&rxq->fill))
		rx_kick(rxq, &rxq->st.fill_wakeups);
	if (txq != NULL) {
		/*
		 * The kick's sendto(2) takes the socket's own lock in the
		 * kernel, so it may race the tx lcore's; its counters are the
		 * tx lcore's and are not touched here.
		 */
		if (__atomic_load_n(txq->tx.producer, __ATOMIC_RELAXED) !=
			    __atomic_load_n(txq->tx.consumer, __ATOMIC_RELAXED) &&
		    af_xdp_needs_wakeup(&txq->tx))
			(void)sendto(rxq->fd, NULL, 0, MSG_DONTWAIT, NULL, 0);
		if (__atomic_load_n(&txq->room_wanted, __ATOMIC_RELAXED))
			events |= EPOLLOUT;
	}
	intr_wait_for(rxq, events);
	return 0;
}

/*
 * One event per wake-up with something behind it. Nothing is read from
 * the socket, which stops signalling once the burst has emptied its rx
 * ring (the epoll sets are level-triggered and poll it again), so the rx
 * ring itself says whether there was an event: no system call. Only a wait
 * for room asks the epoll set, to go back to waiting for frames alone.
 */
static int af_xdp_intr_consume(void *ctx)
{
	struct af_xdp_rxq *rxq = ctx;
	struct epoll_event ev;

	if (rxq->fd < 0)
		return 0;
	if (rxq->ep_events & EPOLLOUT) {
		if (epoll_wait(rxq->epfd, &ev, 1, 0) != 1)
			return 0;
		if (ev.events & EPOLLOUT) {
			__atomic_store_n(&rxq->pair->room_wanted, 0, __ATOMIC_RELAXED);
			intr_wait_for(rxq, EPOLLIN);
		}
		return 1;
	}
	return af_xdp_cons_avail(&rxq->rx, 1) != 0;
}

static bool af_xdp_intr_has_work(void *ctx)
{
	struct af_xdp_rxq *rxq = ctx;
	struct af_xdp_txq *txq = rxq->pair;

	/* A fault to restart is work: the lcore must poll to take it. */
	if (dvp_queue_fault_pending(&rxq->fault))
		return true;
	if (rxq->fd < 0)
		return false;
	if (af_xdp_cons_avail(&rxq->rx, 1) != 0)
		return true;
	return txq != NULL && __atomic_load_n(&txq->room_wanted, __ATOMIC_RELAXED) &&
	       pair_has_room(txq);
}

/* No ack (nothing is read from the socket), no solicited events. */
const struct dvp_rxwait_queue_ops af_xdp_intr_ops = {
	.arm = af_xdp_intr_arm,
	.consume = af_xdp_intr_consume,
	.has_work = af_xdp_intr_has_work,
};
