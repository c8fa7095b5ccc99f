/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * net_af_xdp queues and their fast path.
 *
 * An AF_XDP socket has four rings shared with the kernel: the fill ring
 * (buffers we give for receiving), the rx ring (frames received), the tx
 * ring (frames to send) and the completion ring (sent buffers coming back).
 * Rx queue q and tx queue q of a port are the two halves of one socket,
 * bound to netdev queue start_queue + q: the rx queue owns the fill and rx
 * rings, the tx queue the tx and completion rings, so the two may be
 * polled by different lcores without sharing anything but the socket.
 *
 * Each ring is a single-producer single-consumer array of power-of-two
 * size with a producer and a consumer index the two sides share. Our side
 * keeps cached copies (libxdp's struct xsk_ring_prod / _cons layout) and
 * reads the kernel's index only when the cached one says the ring is empty
 * (or full): an acquire load, pairing with the kernel's release store, so
 * the descriptors behind it are visible. We publish with a release store,
 * so the kernel sees the descriptors (and, for tx, the frame) first.
 *
 * Buffers (the UMEM) are either the mbuf pool's own (pool UMEM: the kernel
 * writes received frames straight into mbufs and sends from them) or an
 * area of the queue's (own UMEM: frames copied in and out). A buffer is
 * named by its offset in the UMEM; descriptors carry the offset of the
 * data in the top 16 bits (XDP_UMEM_UNALIGNED_CHUNK_FLAG), so an mbuf is
 * found from a descriptor with two instructions and data_off is the top
 * bits.
 *
 * The kernel may hand buffers back in another order than it took them
 * (a zero-copy driver recycles them), so a queue on a pool UMEM keeps a
 * bitmap of the buffers the kernel holds, one bit per granule of the UMEM
 * no larger than a buffer: stop finds every mbuf still there by walking
 * the pool, and mbufs_held is its population count.
 */

#ifndef AF_XDP_RXTX_H
#define AF_XDP_RXTX_H

#include <stdbool.h>
#include <stdint.h>

#include <xdp/xsk.h>

#include <dvp_counter.h>
#include <dvp_mbuf.h>
#include <dvp_port_driver.h>
#include <dvp_rxwait_driver.h>

/* Room the kernel leaves in front of every received frame (XDP_PACKET_HEADROOM). */
#define AF_XDP_RX_HEADROOM 256u
/* The largest UMEM chunk: frames longer than this minus the headroom are not received. */
#define AF_XDP_CHUNK_MAX 4096u
#define AF_XDP_CHUNK_MIN 2048u /* XDP_UMEM_MIN_CHUNK_SIZE */
/* Sends per kick before a burst leaves the rest for the next (the kernel sends 32 a call). */
#define AF_XDP_KICK_TRIES 8

/* An rx queue's counters (dvp_port_counters.h): one writer, the polling lcore. */
struct af_xdp_rxq_ctrs {
	uint64_t packets;
	uint64_t bytes;
	uint64_t errors; /* restart_drops */
	uint64_t nombuf; /* refills of the fill ring that found the pool empty */
	uint64_t fill_wakeups; /* recvfrom(2) for a fill ring the kernel asked us to kick */
	uint64_t busy_polls; /* recvfrom(2) driving busy polling (busy_budget) */
	uint64_t restart_drops; /* frames in the rx ring dropped by a restart */
	uint64_t fill_short; /* refills that found no room in the fill ring */
};

/* A tx queue's counters. */
struct af_xdp_txq_ctrs {
	uint64_t packets;
	uint64_t bytes;
	uint64_t errors; /* too_long + copy_drops */
	uint64_t nombuf; /* unused */
	uint64_t kicks; /* sendto(2) calls that succeeded */
	uint64_t kick_again; /* sendto(2) repeated: more was queued than the kernel sends a call */
	uint64_t kick_busy; /* sendto(2) refused for now (EBUSY, ENOBUFS, ENETDOWN): next burst */
	uint64_t kick_errors; /* sendto(2) with another error: the queue is restarted */
	uint64_t copied; /* frames copied into the UMEM (another pool's mbufs, chains) */
	uint64_t too_long; /* frames longer than a UMEM chunk, dropped (in errors) */
	uint64_t copy_drops; /* chains longer than a chunk, dropped (in errors) */
	uint64_t ring_full; /* bursts that found no room in the tx ring */
};

/* The kernel's counters of a socket (XDP_STATISTICS), as struct xdp_statistics. */
struct af_xdp_xdp_ctrs {
	uint64_t rx_dropped; /* no buffer in the fill ring, or a frame longer than a chunk */
	uint64_t rx_invalid_descs; /* fill ring entries the kernel refused */
	uint64_t tx_invalid_descs; /* tx descriptors the kernel refused */
	uint64_t rx_ring_full; /* frames dropped for a full rx ring */
	uint64_t rx_fill_ring_empty_descs; /* times the kernel found the fill ring empty */
	uint64_t tx_ring_empty_descs; /* times a kick found the tx ring empty */
};

struct af_xdp_txq;
struct af_xdp_sock;

struct af_xdp_rxq {
	/* Fast path: the polling lcore's; the rings are valid while fd >= 0 (started). */
	struct xsk_ring_cons rx;
	struct xsk_ring_prod fill;
	uint8_t *base; /* the UMEM's address 0 */
	struct dvp_mempool *mp;
	uint64_t *held; /* pool UMEM: buffers the kernel holds, one bit a granule */
	uint32_t mbuf_hdr; /* pool UMEM: buf_addr - mbuf */
	uint32_t fill_debt; /* buffers received and not replaced in the fill ring yet */
	uint8_t held_shift; /* log2 of the bitmap's granule */
	bool busy_poll;
	uint16_t port_id;
	int fd; /* the socket, -1 when stopped */
	struct dvp_queue_fault fault; /* lib/port's: taken at each burst */
	struct af_xdp_txq *pair; /* the tx queue of the same socket, or NULL */
	struct af_xdp_rxq_ctrs st;
	struct af_xdp_rxq_ctrs st_base;

	/* Control path. */
	struct dvp_port *port;
	uint16_t queue_id;
	uint32_t nb_desc;
	int socket_id;
	uint32_t held_words; /* of held */
	bool kick_failed; /* a fill kick failed: the fault is set once until one works */
	struct af_xdp_sock *sock; /* af_xdp_xsk.c's: the socket and its UMEM */
	/*
	 * Rx interrupts: the fd lib/rxwait waits on is an epoll set of the
	 * queue's own, made at setup, holding the socket's fd from start to
	 * stop (a new socket each start; each start kicks iq). ep_events is
	 * what it waits for: EPOLLIN, and EPOLLOUT while the pair wants room.
	 */
	bool intr;
	int epfd;
	uint32_t ep_events;
	struct dvp_rxwait_queue iq;
	/* The kernel's counters of the sockets before this one, and their baseline. */
	struct af_xdp_xdp_ctrs xdp_carry;
	struct af_xdp_xdp_ctrs xdp_base;
};

struct af_xdp_txq {
	/* Fast path: the lcore sending on it. */
	struct xsk_ring_prod tx;
	struct xsk_ring_cons comp;
	uint8_t *base;
	struct dvp_mempool *mp; /* pool UMEM: the pool it covers; copies come from it */
	uint64_t *held; /* pool UMEM: buffers sent and not completed */
	uint32_t mbuf_hdr;
	uint32_t chunk; /* longest frame a descriptor may carry */
	uint8_t held_shift;
	uint16_t port_id;
	int fd;
	/* Own UMEM: free tx frames (their UMEM addresses), a stack. */
	uint64_t *frames;
	uint32_t nb_frames;
	/*
	 * Set (relaxed) when a burst found no room; the paired rx queue's
	 * interrupt hooks then wait for the socket to be writable too.
	 */
	uint32_t room_wanted;
	struct dvp_queue_fault fault;
	struct af_xdp_txq_ctrs st;
	struct af_xdp_txq_ctrs st_base;

	/* Control path. */
	struct dvp_port *port;
	uint16_t queue_id;
	uint32_t nb_desc;
	int socket_id;
	uint32_t held_words; /* of held */
	bool kick_failed; /* a kick failed: the fault is set once until one works */
};

/* ------------------------------------------------------------------------
 * Rings
 */

/* Entries of consumer ring @r ready for us, up to @nb. */
static __dvp_always_inline uint32_t af_xdp_cons_avail(struct xsk_ring_cons *r, uint32_t nb)
{
	uint32_t n = r->cached_prod - r->cached_cons;

	if (n == 0) {
		/*
		 * Acquire pairs with the kernel's release of the producer
		 * index: the descriptors (and the frames behind rx ones) it
		 * wrote before are visible.
		 */
		r->cached_prod = __atomic_load_n(r->producer, __ATOMIC_ACQUIRE);
		n = r->cached_prod - r->cached_cons;
	}
	return n < nb ? n : nb;
}

/* Give @n consumed entries of @r back to the kernel. */
static __dvp_always_inline void af_xdp_cons_release(struct xsk_ring_cons *r, uint32_t n)
{
	r->cached_cons += n;
	/* Release: our reads of the entries are done before the kernel reuses the slots. */
	__atomic_store_n(r->consumer, r->cached_cons, __ATOMIC_RELEASE);
}

/* Free slots of producer ring @r (at least @nb when it has them). */
static __dvp_always_inline uint32_t af_xdp_prod_free(struct xsk_ring_prod *r, uint32_t nb)
{
	/* cached_cons is the consumer index plus the ring size (libxdp's convention). */
	uint32_t n = r->cached_cons - r->cached_prod;

	if (n < nb) {
		/* Acquire: the kernel has read the slots it released before we rewrite them. */
		r->cached_cons = __atomic_load_n(r->consumer, __ATOMIC_ACQUIRE) + r->size;
		n = r->cached_cons - r->cached_prod;
	}
	return n;
}

/* Publish @n entries written at cached_prod onward. */
static __dvp_always_inline void af_xdp_prod_submit(struct xsk_ring_prod *r, uint32_t n)
{
	r->cached_prod += n;
	/* Release: the entries (and tx frames) are written before the kernel sees the index. */
	__atomic_store_n(r->producer, r->cached_prod, __ATOMIC_RELEASE);
}

/*
 * Whether the kernel asked to be woken for @r (need_wakeup). Relaxed: the
 * flag is a hint the kernel writes plainly; a burst that misses it being
 * set sees it at its next burst, and the interrupt arm (af_xdp_intr_arm)
 * fences before it reads the flag, so a queue never sleeps on a missed one.
 */
static __dvp_always_inline bool af_xdp_needs_wakeup(const struct xsk_ring_prod *r)
{
	return (__atomic_load_n(r->flags, __ATOMIC_RELAXED) & XDP_RING_NEED_WAKEUP) != 0;
}

/* Mark or clear the buffer at UMEM offset @off in @map. */
static __dvp_always_inline void af_xdp_held_set(uint64_t *map, uint8_t shift, uint64_t off)
{
	uint64_t i = off >> shift;

	map[i >> 6] |= 1ull << (i & 63);
}

static __dvp_always_inline void af_xdp_held_clear(uint64_t *map, uint8_t shift, uint64_t off)
{
	uint64_t i = off >> shift;

	map[i >> 6] &= ~(1ull << (i & 63));
}

static __dvp_always_inline bool af_xdp_held_test(const uint64_t *map, uint8_t shift, uint64_t off)
{
	uint64_t i = off >> shift;

	return (map[i >> 6] >> (i & 63)) & 1;
}

/* ------------------------------------------------------------------------
 * Bursts (af_xdp_rxtx.c): pool UMEM and own UMEM
 */

uint16_t af_xdp_rx_pool(void *q, struct dvp_mbuf **pkts, uint16_t nb);
uint16_t af_xdp_rx_own(void *q, struct dvp_mbuf **pkts, uint16_t nb);
uint16_t af_xdp_tx_pool(void *q, struct dvp_mbuf **pkts, uint16_t nb);
uint16_t af_xdp_tx_own(void *q, struct dvp_mbuf **pkts, uint16_t nb);

/*
 * The control path's part (af_xdp_xsk.c calls them at start and stop):
 * give the fill ring its first buffers; take back every buffer the kernel
 * holds once the socket is closed. And a queue's restart after a fault
 * (dvp_port_fault.h), on the lcore that polls it.
 */
int af_xdp_rxq_fill_first(struct af_xdp_rxq *rxq);
void af_xdp_rxq_reclaim(struct af_xdp_rxq *rxq);
void af_xdp_txq_reclaim(struct af_xdp_txq *txq);
void af_xdp_rxq_restart(struct af_xdp_rxq *rxq, enum dvp_port_event_cause cause);
void af_xdp_txq_restart(struct af_xdp_txq *txq, enum dvp_port_event_cause cause);

/* Buffers the kernel holds for @map (@words 64-bit words). */
unsigned int af_xdp_held_count(const uint64_t *map, uint32_t words);

/* The rx interrupt hooks (lib/rxwait's protocol) of an rx queue. */
extern const struct dvp_rxwait_queue_ops af_xdp_intr_ops;

#endif /* AF_XDP_RXTX_H */
