/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * net_verbs queues: their structures and states, set up and torn down in
 * verbs_queue.c, polled in verbs_rxtx.c.
 *
 * A queue is owned by whoever its state says (enum verbs_qstate): the
 * interrupt thread while it is DOWN (it creates the QP and posts the
 * receives), the polling lcore while it is LIVE or BROKEN (it polls,
 * posts, and tears a BROKEN queue down, then hands it back as DOWN). A tx
 * queue nobody sends on is torn down by the interrupt thread instead,
 * guarded by the queue's in_burst flag. While the port is stopped the
 * control thread owns everything.
 */

#ifndef VERBS_QUEUE_H
#define VERBS_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <dvp_rxwait_driver.h>
#include <dvp_mbuf.h>
#include <dvp_port_driver.h>

#include "verbs_dev.h"
#include "verbs_proto.h"

#define VERBS_RX_POLL 32 /* completions read per ibv_poll_cq on rx */
#define VERBS_RX_IDLE_REFILL 8u /* receives an empty rx burst posts at most */
#define VERBS_TX_BURST 32 /* sends posted per ibv_post_send */
#define VERBS_TX_POLL 16 /* completions read per ibv_poll_cq on tx */
#define VERBS_MAX_SGE 4 /* segments of a frame on tx */
#define VERBS_MIN_RNR_TIMER 12 /* 0.64 ms before a sender retries after an RNR NAK */
#define VERBS_WR_DRAIN UINT64_MAX /* wr_id of the teardown's drain marker (never a ring index) */
#define VERBS_DRAIN_MS 100 /* how long a teardown waits for its drain marker */
#define VERBS_UD_GRH 40 /* a UD receive starts with the GRH */

/*
 * Who owns a queue (see the top of this file). Transitions:
 *   DOWN -> LIVE      interrupt thread, the connection established (release)
 *   LIVE -> BROKEN    anyone who finds it broken (CAS)
 *   BROKEN -> TEARING whoever tears it down (CAS: one does)
 *   TEARING -> DOWN   that one, when done (release)
 *   DOWN -> RENEW     interrupt thread, an rx CQ overran while no QP used it:
 *                     the CQ is the lcore's (its events are acked there)
 *   RENEW -> DOWN     the lcore, with a new CQ (release)
 */
enum verbs_qstate {
	VERBS_Q_DOWN = 0,
	VERBS_Q_LIVE,
	VERBS_Q_BROKEN,
	VERBS_Q_TEARING,
	VERBS_Q_RENEW,
};

struct verbs_port;

/* What cq_context and qp_context point at: async events find their queue. */
struct verbs_qctx {
	struct verbs_port *vp;
	uint16_t queue_id;
	bool tx;
};

/* Counters with one writer (the owner of the queue) and readers anywhere. */
struct verbs_qstats {
	uint64_t packets;
	uint64_t bytes;
	uint64_t errors;
	uint64_t nombuf; /* rx: allocations that failed */
	uint64_t dropped_on_reset; /* mbufs freed when the queue was torn down */
	uint64_t too_long; /* tx: longer than the receiving end takes */
	uint64_t bad_segs; /* tx: more segments than SGEs */
	uint64_t no_mr; /* tx: memory that could not be registered */
	uint64_t mr_misses; /* tx: lkey cache misses */
	uint64_t restarts; /* teardowns after an error */
	uint64_t timeouts; /* tx: rebuilds by the watchdog */
	uint64_t kicks; /* rx: wake-ups written by the driver */
	uint64_t wc_err[VERBS_WC_STATUS_N];
};

#define VERBS_QSTATS_N (sizeof(struct verbs_qstats) / sizeof(uint64_t))

struct verbs_rxq {
	/* Fast path (the polling lcore). */
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint32_t state; /* enum verbs_qstate, atomic */
	uint32_t head; /* ring: [head, tail) posted, in order */
	uint32_t tail;
	uint32_t mask; /* ring size - 1 */
	uint32_t nb_desc; /* receives to keep posted */
	uint32_t idle_refill; /* receives an empty burst replaces at most */
	uint16_t port_id;
	uint16_t wc_pos; /* completions polled by has_work, not yet returned */
	uint16_t wc_n;
	uint16_t grh; /* UD: VERBS_UD_GRH, posted in front of the data */
	uint32_t buf_len; /* bytes a receive takes (after the headroom) */
	struct dvp_mempool *mp;
	struct dvp_mbuf **ring;
	struct ibv_recv_wr *wrs; /* [nb_desc], chained for one post */
	struct ibv_sge *sges;
	struct verbs_mrc mrc;
	struct verbs_qstats st;
	struct ibv_wc wc[VERBS_RX_POLL];

	/* Control. */
	struct verbs_qctx ctx;
	struct verbs_port *vp;
	uint16_t queue_id;
	struct ibv_comp_channel *ch; /* NULL without rx interrupts */
	uint32_t unacked; /* CQ events read and not acked yet */
	uint32_t cq_size;
	uint32_t cq_dead; /* atomic: CQ_ERR seen; recreate the CQ */
	/*
	 * Why it broke (dvp_port_fault.h): set with the break, taken by the
	 * teardown; none for a disconnect, which is no queue error.
	 */
	struct dvp_queue_fault fault;
	int wc_status; /* the first error completion's status since the last teardown */
	uint32_t vendor_err;
	bool intr_on;
	struct dvp_rxwait_queue intr;
	struct verbs_qstats base; /* snapshot at the last stats reset */
} __dvp_cache_aligned;

struct verbs_txq {
	/* Fast path. */
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	uint32_t state; /* enum verbs_qstate, atomic */
	uint32_t in_burst; /* atomic: the lcore is inside a burst (see verbs_txq_enter()) */
	uint32_t head; /* ring: [head, tail) posted and not known complete */
	uint32_t tail;
	uint32_t mask;
	uint32_t nb_desc;
	uint32_t signal; /* a completion every this many sends */
	uint32_t unsignaled; /* sends since the last signaled one */
	uint32_t max_len; /* the receiving end's largest frame */
	uint32_t max_inline;
	uint32_t max_sge;
	bool solicited; /* the receiving end sleeps for solicited completions only */
	bool ud;
	struct ibv_ah *ah; /* UD */
	uint32_t remote_qpn;
	uint32_t remote_qkey;
	struct dvp_mbuf **ring; /* NULL where the frame went inline */
	struct verbs_mrc mrc;
	struct verbs_qstats st;
	struct ibv_send_wr wrs[VERBS_TX_BURST];
	struct ibv_sge sges[VERBS_TX_BURST * VERBS_MAX_SGE];
	struct ibv_wc wc[VERBS_TX_POLL];
	uint64_t wd_cycles; /* the watchdog's limit in TSC ticks; 0: off */
	uint64_t wd_since; /* TSC when a reap first found no progress; 0: none */

	/* Control. */
	struct verbs_qctx ctx;
	struct verbs_port *vp;
	uint16_t queue_id;
	uint32_t cq_size;
	uint32_t cq_dead;
	bool timed_out; /* the watchdog broke it (published by the break's CAS) */
	struct dvp_queue_fault fault;
	int wc_status;
	uint32_t vendor_err;
	struct verbs_qstats base;
} __dvp_cache_aligned;

/* verbs_queue.c */
int verbs_rxq_setup(struct dvp_port *port, uint16_t q, uint16_t nb_desc, int socket_id,
		    const struct dvp_rxq_conf *conf, struct dvp_mempool *mp);
void verbs_rxq_release(struct dvp_port *port, uint16_t q);
int verbs_txq_setup(struct dvp_port *port, uint16_t q, uint16_t nb_desc, int socket_id,
		    const struct dvp_txq_conf *conf);
void verbs_txq_release(struct dvp_port *port, uint16_t q);
/* Create the queue's QP and bring it to INIT (receives posted for rx). DOWN queues only. */
int verbs_rxq_qp_create(struct verbs_rxq *rxq, struct rdma_cm_id *id);
int verbs_txq_qp_create(struct verbs_txq *txq, struct rdma_cm_id *id);
/* Move a QP to RTR then RTS with rdma_cm's attributes (RC) or the UD ones. */
int verbs_qp_ready(struct verbs_port *vp, struct ibv_qp *qp, struct rdma_cm_id *id);
/*
 * Tear down a queue the caller owns (TEARING, or any state while stopped).
 * @after_break: it broke while in use: count a restart and report the
 * cause as a QUEUE_ERROR event (if it has one).
 */
void verbs_rxq_teardown(struct verbs_rxq *rxq, bool after_break);
void verbs_txq_teardown(struct verbs_txq *txq, bool after_break);
/*
 * Mark a LIVE queue BROKEN with @cause (DVP_PORT_CAUSE_NONE: a disconnect,
 * no queue error). @return true if this call broke it.
 */
bool verbs_rxq_break(struct verbs_rxq *rxq, enum dvp_port_event_cause cause);
bool verbs_txq_break(struct verbs_txq *txq, enum dvp_port_event_cause cause);
/* The interrupt thread's attempt at a BROKEN tx queue no lcore is sending on. */
bool verbs_txq_try_teardown(struct verbs_txq *txq);

/*
 * The tx watchdog, after a reap while at least one signaled send was in
 * flight: @progress says whether the reap freed anything. *@since holds
 * the TSC of the first reap that found none (0: none since the last
 * progress). @return true once sends have gone @limit ticks without any
 * completing, the oldest having waited at least that long: a transport
 * that will not finish them (rxe after a link flap), to be rebuilt.
 */
static inline bool verbs_tx_watchdog_expired(uint64_t *since, bool progress, uint64_t now,
					     uint64_t limit)
{
	if (progress) {
		*since = 0;
		return false;
	}
	if (*since == 0) {
		*since = now | 1; /* 0 means "none" */
		return false;
	}
	return now - *since > limit;
}
/* Recreate a CQ that overran (the queue is not polled). */
int verbs_rxq_cq_renew(struct verbs_rxq *rxq);
int verbs_txq_cq_renew(struct verbs_txq *txq);
/*
 * Wake a lcore asleep on @rxq (dvp_rxwait_queue_kick; nothing without rx
 * interrupts): at every transition that can give it work no armed CQ
 * event reports -- it went live, broke, was handed over for a new CQ, got
 * one. Any thread, while the queue is set up.
 */
void verbs_rxq_kick(struct verbs_rxq *rxq);
unsigned int verbs_rxq_held(const struct verbs_rxq *rxq);
unsigned int verbs_txq_held(const struct verbs_txq *txq);

/* verbs_rxtx.c */
uint16_t verbs_rx_burst(void *q, struct dvp_mbuf **pkts, uint16_t nb);
uint16_t verbs_tx_burst(void *q, struct dvp_mbuf **pkts, uint16_t nb);
/*
 * Retire the tx ring's sends up to (and including) index @last, freeing
 * their mbufs. @return how many sends: those that went inline (their slot
 * empty since the post) count too, so a caller counting losses misses none.
 */
unsigned int verbs_txq_free_upto(struct verbs_txq *txq, uint32_t last);
extern const struct dvp_rxwait_queue_ops verbs_intr_ops;
/* Post up to @max receives (at most nb_desc in all) while the pool has mbufs. @return how many. */
unsigned int verbs_rxq_refill(struct verbs_rxq *rxq, uint32_t max);

/*
 * A ring index or slot the lcore writes while the control thread may read
 * it (xstats, dvp_port_mbufs_held()): the writer stores it relaxed and
 * readers on other threads load it relaxed; relaxed is enough, they want
 * a recent count, not an order with other memory. The lcore reads its own
 * plainly: nothing else writes them while it runs (teardown writes them
 * only when no burst can).
 */
static inline void verbs_idx_set(uint32_t *idx, uint32_t v)
{
	__atomic_store_n(idx, v, __ATOMIC_RELAXED);
}

static inline uint32_t verbs_idx_get(const uint32_t *idx)
{
	return __atomic_load_n(idx, __ATOMIC_RELAXED);
}

static inline void verbs_slot_set(struct dvp_mbuf **slot, struct dvp_mbuf *m)
{
	__atomic_store_n(slot, m, __ATOMIC_RELAXED);
}

#endif /* VERBS_QUEUE_H */
