/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * memif queues and their copy-mode bursts.
 *
 * A queue serves one ring in one role:
 *   client tx: produces on a c2s ring (fills its own buffers, moves head)
 *   server rx: consumes a c2s ring (reads [last, head), moves tail)
 *   server tx: produces on an s2c ring (fills the client's posted buffers
 *              from tail toward head, moves tail)
 *   client rx: consumes an s2c ring (reads [last, tail), reposts buffers
 *              by moving head)
 * Each side keeps its own index privately and reads only the peer's from
 * shared memory, so a peer that scribbles on the ring can stall its own
 * traffic but not steer our writes: every descriptor a peer wrote is bounds
 * checked against the mapped regions before a byte is copied, and a peer
 * index that claims more than a ring's worth is refused.
 *
 * Connection changes (control thread) against bursts (lcores): a burst
 * marks the queue busy with an atomic exchange and then reads its state;
 * the control thread changes the state, then waits for the queue not to be
 * busy. Both sides use sequentially consistent operations (a store then a
 * load each: Dekker's pattern), so either the burst saw the new state or
 * the control thread saw the burst and waited for it. Unmapping memory
 * under a running burst -- the crash DPDK's memif can have when a peer
 * leaves -- cannot happen.
 */

#ifndef MEMIF_RXTX_H
#define MEMIF_RXTX_H

#include <stdbool.h>
#include <stdint.h>

#include <dvp_intr_driver.h>
#include <dvp_mbuf.h>

#include "memif_proto.h"
#include "memif_shm.h"

enum memif_qrole {
	MEMIF_Q_CLIENT_TX,
	MEMIF_Q_SERVER_RX,
	MEMIF_Q_SERVER_TX,
	MEMIF_Q_CLIENT_RX,
};

struct memif_qstats {
	uint64_t pkts;
	uint64_t bytes;
	uint64_t bad_desc; /* rx: packets dropped for a descriptor outside memory */
	uint64_t nombuf; /* rx: mbuf allocations that failed */
	uint64_t peer_errors; /* a peer index beyond a ring's worth, a zero-room buffer */
	uint64_t no_room; /* tx: bursts that found the ring full */
	uint64_t kicks; /* tx: eventfd writes for a peer that unmasked */
};

struct memif_queue {
	/* Fast path. */
	uint32_t busy; /* 1 while a burst runs (atomic) */
	uint32_t up; /* connected: the fields below are valid (atomic) */
	struct memif_ring *ring;
	uint16_t mask;
	uint16_t ring_size;
	uint16_t last; /* our index: next slot to read (rx) or fill (tx) */
	uint16_t bsize; /* client: bytes per own buffer */
	uint8_t *bufs; /* client: the ring's first own buffer */
	const struct memif_region *regions; /* server: the client's regions */
	uint16_t nregions;
	uint16_t port_id;
	struct dvp_mempool *mp; /* rx */
	int efd; /* the ring's eventfd, -1 when down */
	struct memif_qstats st;

	/* Control. */
	enum memif_qrole role;
	uint16_t queue_id;
	bool intr; /* rx interrupt mode configured */
	/*
	 * The fd lib/intr waits on: an epoll set of its own holding the ring's
	 * eventfd while connected, so it outlives connections.
	 */
	int epfd;
	struct dvp_intr_queue iq;
};

/*
 * Bring @q up on @sr of @shm (control thread; the queue must be down).
 * Resets the ring indexes as the protocol wants at connect, masks the
 * interrupts of our rx rings (polling until armed), and publishes.
 */
void memif_queue_up(struct memif_queue *q, const struct memif_shm *shm,
		    const struct memif_shm_ring *sr);

/* Create @q's interrupt epoll fd (rx queues in interrupt mode). */
int memif_queue_intr_init(struct memif_queue *q);
void memif_queue_intr_fini(struct memif_queue *q);

/* Take @q down and wait for a running burst to leave it (control thread). */
void memif_queue_down(struct memif_queue *q);

uint16_t memif_rx_server(void *rxq, struct dvp_mbuf **pkts, uint16_t nb_pkts);
uint16_t memif_rx_client(void *rxq, struct dvp_mbuf **pkts, uint16_t nb_pkts);
uint16_t memif_tx_client(void *txq, struct dvp_mbuf **pkts, uint16_t nb_pkts);
uint16_t memif_tx_server(void *txq, struct dvp_mbuf **pkts, uint16_t nb_pkts);

/* The burst of @q's role: what a port publishes, for direct users. */
static inline uint16_t memif_rx_burst(struct memif_queue *q, struct dvp_mbuf **pkts,
				      uint16_t nb_pkts)
{
	return q->role == MEMIF_Q_CLIENT_RX ? memif_rx_client(q, pkts, nb_pkts) :
					      memif_rx_server(q, pkts, nb_pkts);
}

static inline uint16_t memif_tx_burst(struct memif_queue *q, struct dvp_mbuf **pkts,
				      uint16_t nb_pkts)
{
	return q->role == MEMIF_Q_CLIENT_TX ? memif_tx_client(q, pkts, nb_pkts) :
					      memif_tx_server(q, pkts, nb_pkts);
}

/*
 * Packets of tx queue @q the peer has not taken yet (0 when down): what a
 * sender waits on before it disconnects, so that nothing in flight is lost.
 */
static inline uint16_t memif_tx_pending(const struct memif_queue *q)
{
	const struct memif_ring *r;

	if (!__atomic_load_n(&q->up, __ATOMIC_ACQUIRE))
		return 0;
	r = q->ring;
	if (q->role == MEMIF_Q_CLIENT_TX)
		return (uint16_t)(q->last - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE));
	/* Server: the client reposts what it took, so head - tail is the ring again. */
	return (uint16_t)(q->ring_size -
			  (uint16_t)(__atomic_load_n(&r->head, __ATOMIC_ACQUIRE) - q->last));
}

/* The interrupt hooks of an rx queue (lib/intr's protocol). */
extern const struct dvp_intr_queue_ops memif_intr_ops;

#endif /* MEMIF_RXTX_H */
