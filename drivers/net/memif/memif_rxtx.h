/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * memif queues and their copy-mode bursts (the zero-copy client's are in
 * memif_zc.c).
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
 * marks the queue busy and then reads its state; the control thread
 * changes the state, then waits for the queue not to be busy. Each side
 * stores then loads (Dekker's pattern), so either the burst saw the new
 * state or the control thread saw the burst and waited for it. Unmapping
 * memory under a running burst -- the crash DPDK's memif can have when a
 * peer leaves -- cannot happen.
 *
 * Dekker needs a store-load fence on both sides, and on the burst's side
 * that fence (a locked instruction on x86) would be paid on every burst.
 * It is made asymmetric instead: the burst orders its store and load for
 * the compiler only (memif_fence_light), and the control thread, which
 * changes state once per connection, runs membarrier(2)
 * (memif_fence_heavy): the kernel makes every running thread of the
 * process execute a full fence, which stands in for the one the burst
 * skipped. Where membarrier's private expedited command is not available
 * the burst falls back to a sequentially consistent exchange.
 */

#ifndef MEMIF_RXTX_H
#define MEMIF_RXTX_H

#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>

#include <dvp_counter.h>
#include <dvp_rxwait_driver.h>
#include <dvp_mbuf.h>

#include "memif_proto.h"
#include "memif_shm.h"

/* Largest packet we assemble from a chain. */
#define MEMIF_MAX_PKT_LEN 65535u

enum memif_qrole {
	MEMIF_Q_CLIENT_TX,
	MEMIF_Q_SERVER_RX,
	MEMIF_Q_SERVER_TX,
	MEMIF_Q_CLIENT_RX,
};

/* A queue's counters (dvp_port_counters.h): one writer, the lcore. */
struct memif_qstats {
	uint64_t packets;
	uint64_t bytes;
	uint64_t
		errors; /* rx: bad_desc + peer_errors; tx: peer_errors + unexported + lost_on_ring */
	uint64_t nombuf; /* rx: mbuf allocations that failed */
	uint64_t bad_desc; /* rx: packets dropped for a descriptor outside memory */
	uint64_t peer_errors; /* a peer index beyond a ring's worth, a zero-room buffer */
	uint64_t no_room; /* tx: bursts that found the ring full */
	uint64_t kicks; /* tx: eventfd writes for a peer that unmasked */
	uint64_t unexported; /* zero-copy: tx frames dropped, rx mbufs not posted, for
				memory outside what was shared at connect */
	uint64_t lost_on_ring; /* client tx: frames sent that the server had not taken
				  when the connection went down (also in errors) */
};

/* How a peer broke the ring protocol (memif_peer_violation). */
enum memif_violation {
	MEMIF_VIOL_HEAD, /* its head is more than a ring away from our index */
	MEMIF_VIOL_TAIL, /* its tail is more than a ring away, or on slots we never gave it */
	MEMIF_VIOL_DESC, /* a posted buffer outside its memory, or of length 0 */
};

struct memif_queue {
	/* Fast path. */
	uint32_t busy; /* 1 while a burst runs (atomic) */
	uint32_t up; /* connected: the fields below are valid (atomic) */
	struct memif_ring *ring;
	uint16_t mask;
	uint16_t ring_size;
	uint16_t last; /* our index: next slot to read (rx) or fill (tx) */
	uint16_t posted; /* client rx: the head we published (buffers posted) */
	uint16_t filled; /* server tx: slots written this connection, up to the ring size */
	uint16_t bsize; /* client: bytes per own buffer */
	uint8_t *bufs; /* client: the ring's first own buffer */
	uint32_t bufs_off; /* client: its offset in region 0 */
	const struct memif_region *regions; /* server: the client's regions */
	uint16_t nregions;
	uint16_t port_id;
	struct dvp_mempool *mp; /* rx */
	int efd; /* the ring's eventfd, -1 when down */
	/* Zero-copy client (memif_zc.c). */
	bool zc;
	uint16_t done; /* zc tx: the first slot whose frame is not freed yet */
	uint32_t held; /* zc: mbufs the shadow holds (atomic: mbufs_held reads it) */
	uint32_t shadow_size; /* slots of shadow: the largest ring asked for */
	struct dvp_mbuf **shadow; /* zc: the mbuf behind each slot, or NULL */
	struct memif_qstats st;
	struct memif_qstats base; /* stats reset: the values at the reset */
	/*
	 * The first ring-protocol violation of this connection, for the
	 * control thread: the burst fills the fields, then stores violated
	 * (release) and writes ctl_fd once; memif_queue_up() clears it.
	 */
	uint32_t violated;
	enum memif_violation viol_kind;
	uint16_t viol_peer; /* the peer's index, or the slot of the bad descriptor */
	uint16_t viol_ours;
	int ctl_fd; /* the interface's eventfd, watched on the EAL interrupt thread */

	/* Control. */
	enum memif_qrole role;
	uint16_t queue_id;
	bool intr; /* rx interrupt mode configured */
	/*
	 * The event fd lib/rxwait waits on: an epoll set of the queue's own
	 * holding the ring's eventfd while connected (a new one each
	 * connection, made by the client). Each new ring kicks iq
	 * (dvp_rxwait_queue_kick), so a waiter arms it.
	 */
	int epfd;
	struct dvp_rxwait_queue iq;
};

/* Set once, before the first queue exists: membarrier(2) stands in for the bursts' fence. */
extern bool memif_fence_asymmetric;

/*
 * The burst's half of the asymmetric fence (see above): a compiler barrier
 * only, so that the compiler keeps our store of busy before our load of
 * up; the CPU's store-load fence comes from memif_fence_heavy().
 */
static __dvp_always_inline void memif_fence_light(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/*
 * Entering and leaving a queue (see above). Our busy mark is visible before
 * we read up, pairing with memif_queue_down()'s store of up, heavy fence,
 * load of busy. The seq_cst load of up also pairs with memif_queue_up()'s
 * seq_cst store, so a burst that sees the queue up sees its fields.
 */
static __dvp_always_inline bool q_enter(struct memif_queue *q)
{
	if (dvp_likely(__atomic_load_n(&memif_fence_asymmetric, __ATOMIC_RELAXED))) {
		__atomic_store_n(&q->busy, 1, __ATOMIC_RELAXED);
		memif_fence_light();
	} else {
		/* Without membarrier: a locked exchange, a full fence of its own. */
		__atomic_exchange_n(&q->busy, 1, __ATOMIC_SEQ_CST);
	}
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

/* After a tx burst published: wake the receiver if it unmasked its ring. */
static __dvp_always_inline void memif_tx_kick(struct memif_queue *q)
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
		dvp_counter_add(&q->st.kicks, 1);
}

/*
 * End of a tx burst that filled descriptors up to @slot: move our index
 * @idx there (the ring's head for a client, its tail for a server), count
 * @n frames of @bytes and wake the receiver.
 */
static __dvp_always_inline void memif_tx_publish(struct memif_queue *q, uint16_t *idx,
						 uint16_t slot, uint16_t n, uint64_t bytes)
{
	q->last = slot;
	/* Release: descriptors and buffers are written before the peer sees the index. */
	__atomic_store_n(idx, slot, __ATOMIC_RELEASE);
	dvp_counter_add(&q->st.packets, n);
	dvp_counter_add(&q->st.bytes, bytes);
	memif_tx_kick(q);
}

/*
 * The peer broke the ring protocol on @q (@kind; @peer its index or the
 * slot of the bad descriptor, @ours our index): the first of a connection
 * is counted in peer_errors, once (later bursts see the same broken index
 * until the disconnect), and handed to the control thread, which
 * logs one line and disconnects with the reason. Out of line: the one
 * system call (an eventfd write) is made once per connection.
 */
void memif_peer_violation(struct memif_queue *q, enum memif_violation kind, uint16_t peer,
			  uint16_t ours);

/* memif_queue.c: the queue's life on the control thread. */

/* Write the reason for @q's violation into @buf (control thread, violated set). */
void memif_violation_reason(const struct memif_queue *q, char *buf, size_t len);

/* A queue of @role, down, without interrupts. */
void memif_queue_init(struct memif_queue *q, enum memif_qrole role, uint16_t queue_id,
		      uint16_t port_id);

/*
 * Bring @q up on @sr of @shm (control thread; the queue must be down).
 * Resets the ring indexes as the protocol wants at connect, masks the
 * interrupts of our rx rings (polling until armed), posts every buffer of
 * a client rx ring, and publishes; an rx queue in interrupt mode is kicked
 * (dvp_rxwait_queue_kick) so that a waiter asleep on it arms the new ring.
 */
void memif_queue_up(struct memif_queue *q, const struct memif_shm *shm,
		    const struct memif_shm_ring *sr);

/*
 * Make @q an interrupt-mode rx queue: its epoll fd (non-blocking, what
 * lib/rxwait waits on). @return 0 or -errno after a log line.
 */
int memif_queue_intr_init(struct memif_queue *q);
void memif_queue_intr_fini(struct memif_queue *q);

/* Take @q down and wait for a running burst to leave it (control thread). */
void memif_queue_down(struct memif_queue *q);

uint16_t memif_rx_server(void *rxq, struct dvp_mbuf **pkts, uint16_t nb_pkts);
uint16_t memif_rx_client(void *rxq, struct dvp_mbuf **pkts, uint16_t nb_pkts);
uint16_t memif_tx_client(void *txq, struct dvp_mbuf **pkts, uint16_t nb_pkts);
uint16_t memif_tx_server(void *txq, struct dvp_mbuf **pkts, uint16_t nb_pkts);

/*
 * Slots of tx queue @q the peer has not taken yet (0 when down): what a
 * sender waits on before it disconnects, so that nothing in flight is lost.
 * On a server it is read from the buffers the client posted back, so it is
 * exact with a client that reposts every buffer it reads (DPDK's and ours
 * in copy mode); DPDK's zero-copy client leaves up to 31 unposted.
 */
static inline uint16_t memif_tx_pending(struct memif_queue *q)
{
	const struct memif_ring *r;
	uint16_t n;

	/* As a burst: the ring stays mapped while we look. */
	__atomic_exchange_n(&q->busy, 1, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&q->up, __ATOMIC_SEQ_CST)) {
		__atomic_store_n(&q->busy, 0, __ATOMIC_RELEASE);
		return 0;
	}
	r = q->ring;
	if (q->role == MEMIF_Q_CLIENT_TX)
		n = (uint16_t)(q->last - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE));
	else /* Server: the client reposts what it took, so head - tail is the ring again. */
		n = DVP_MIN(q->filled,
			    (uint16_t)(q->ring_size -
				       (uint16_t)(__atomic_load_n(&r->head, __ATOMIC_ACQUIRE) -
						  q->last)));
	__atomic_store_n(&q->busy, 0, __ATOMIC_RELEASE);
	return n > q->ring_size ? 0 : n;
}

/* The interrupt hooks of an rx queue (lib/rxwait's protocol). */
extern const struct dvp_rxwait_queue_ops memif_intr_ops;

#endif /* MEMIF_RXTX_H */
