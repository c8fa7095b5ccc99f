/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * net_verbs internals (not installed): a port over any libibverbs device,
 * connected to a peer net_verbs port with librdmacm. doc/verbs.md explains
 * the design; the short version:
 *
 *  - each queue has its own QP and CQ: rx queue q receives on a QP
 *    connected to the peer's tx queue q, and tx queue q sends on a QP
 *    connected to the peer's rx queue q. So a QP, its CQ and its ring are
 *    touched by one lcore only, and a broken queue is rebuilt alone;
 *  - the connections are made and remade on the EAL interrupt thread (the
 *    rdma_cm event channel, a timer for retries, and an eventfd lcores
 *    write when they hand a queue back);
 *  - a queue is owned by whoever its state says (enum vb_qstate): the
 *    interrupt thread while it is DOWN (it creates the QP and posts the
 *    receives), the polling lcore while it is LIVE or BROKEN (it polls,
 *    posts, and tears a BROKEN queue down, then hands it back as DOWN).
 *    A tx queue nobody sends on is torn down by the interrupt thread
 *    instead, guarded by the queue's in_burst flag;
 *  - while the port is stopped the control thread owns everything.
 */

#ifndef VERBS_PRIVATE_H
#define VERBS_PRIVATE_H

#include <net/if.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <dvp_counter.h>
#include <dvp_errno.h>
#include <dvp_intr_driver.h>
#include <dvp_log.h>
#include <dvp_mbuf.h>
#include <dvp_port_driver.h>

#include "verbs_proto.h"

extern int vb_logtype;

#define VB_LOG(level, fmt, ...) DVP_LOG_LINE(level, vb_logtype, "NET_VERBS: ", fmt, ##__VA_ARGS__)

#define VB_DRIVER_NAME "net_verbs"

#define VB_MAX_QUEUES 16 /* per direction */
#define VB_DESC_MIN 16
#define VB_DESC_MAX 8192
#define VB_DESC_DEFAULT 512
#define VB_RX_POLL 32 /* completions read per ibv_poll_cq on rx */
#define VB_RX_IDLE_REFILL 8u /* receives an empty rx burst posts at most */
#define VB_TX_BURST 32 /* sends posted per ibv_post_send */
#define VB_TX_POLL 16 /* completions read per ibv_poll_cq on tx */
#define VB_MAX_SGE 4 /* segments of a frame on tx */
#define VB_TX_SIGNAL_DEFAULT 32
#define VB_TX_INLINE_DEFAULT 64
#define VB_MIN_RNR_TIMER 12 /* 0.64 ms before a sender retries after an RNR NAK */
#define VB_ACK_TIMEOUT_DEFAULT 14 /* 67 ms, as perftest; rdma_cm gives 19 (2.1 s) on RoCE */
/*
 * RC transport retries. Not 7: rxe (drivers/infiniband/sw/rxe, rxe_comp.c)
 * takes retry_cnt 7 as "retry forever", as the spec does only for
 * rnr_retry, so a send whose ack never comes would never complete with
 * RETRY_EXC_ERR and the queue would never be rebuilt.
 */
#define VB_RETRY_CNT 6
#define VB_RNR_RETRY 7 /* infinite: a receiver out of buffers slows the sender */
#define VB_TX_TIMEOUT_DEFAULT 1000 /* ms: the tx watchdog (tx_timeout=) */
#define VB_WR_DRAIN UINT64_MAX /* wr_id of the teardown's drain marker (never a ring index) */
#define VB_DRAIN_MS 100 /* how long a teardown waits for its drain marker */
#define VB_MRC_SIZE 8 /* a queue's own lkey cache */
#define VB_UD_GRH 40 /* a UD receive starts with the GRH */
#define VB_CM_TIMEOUT_MS 2000 /* address and route resolution */
#define VB_RETRY_MIN_MS 100 /* reconnect back-off: doubles up to the max */
#define VB_RETRY_MAX_MS 2000
#define VB_LINK_WAIT_MS 9000 /* dvp_link_get() waits this long for a link coming up */

/* ------------------------------------------------------------------------
 * Devargs
 */

enum vb_role {
	VB_ROLE_LISTEN,
	VB_ROLE_CONNECT,
};

struct vb_cfg {
	char dev[64]; /* dev=: the verbs device */
	enum vb_role role;
	struct sockaddr_storage addr; /* listen= or connect= */
	char addr_str[80]; /* as given, for logs */
	enum vb_mode mode;
	bool solicited; /* arm rx CQs for solicited completions only */
	bool reconnect;
	uint32_t tx_signal; /* a completion every N sends */
	uint32_t tx_inline; /* bytes sent inline (0: never) */
	uint32_t rx_cq_size; /* 0: the ring's size; smaller only to test overruns */
	uint8_t ack_timeout; /* RC: 4.096 us << N before a retransmission */
	uint32_t tx_timeout; /* ms without a send completing before a rebuild; 0: never */
	bool mac_set;
	struct dvp_ether_addr mac;
	/* Tests only: DVP_VERBS_TEST_HOLD_ACCEPT_MS (vb_cm_test_hold_accept()). */
	uint32_t test_hold_accept_ms;
};

extern const struct dvp_devargs_key vb_devargs_keys[];

/*
 * Fill @cfg from @da for device @name. @return 0, or -EINVAL after one log
 * line naming the key, the value and what would be valid.
 */
int vb_cfg_parse(const char *name, const struct dvp_devargs *da, struct vb_cfg *cfg);

/*
 * Parse "a.b.c.d:port" or "[v6addr]:port" (@key names the devarg in the
 * error). @return 0 or -EINVAL after a log line.
 */
int vb_addr_parse(const char *name, const char *key, const char *s, struct sockaddr_storage *ss);

/* Print @sa as "a.b.c.d:port" / "[v6]:port" into @buf. */
const char *vb_addr_str(const struct sockaddr *sa, char *buf, size_t len);

/* ------------------------------------------------------------------------
 * Work completion statuses: one xstat each, per direction
 */

/* Statuses with a counter: every enum ibv_wc_status but SUCCESS, plus "other". */
#define VB_WC_STATUS_N 24

/* The counter index of @status (VB_WC_STATUS_N - 1 for one this build does not know). */
unsigned int vb_wc_status_index(enum ibv_wc_status status);

/* The xstat name part of counter @idx: "loc_len_err", ..., "other". */
const char *vb_wc_status_name(unsigned int idx);

/* ------------------------------------------------------------------------
 * The device: one per verbs context, shared by the ports on it
 */

struct vb_mr {
	uintptr_t start;
	uintptr_t end;
	struct ibv_mr *mr;
};

struct vb_dev {
	struct vb_dev *next; /* vb_devs, under vb_devs_lock */
	unsigned int refs;
	char name[64];
	struct ibv_context *ctx; /* librdmacm's: its cm_ids use this context */
	struct ibv_pd *pd;
	struct ibv_device_attr attr;
	struct dvp_intr_async *async; /* ctx->async_fd on the interrupt thread */

	/* Memory registered with pd: one region per mempool chunk. */
	pthread_mutex_t mr_lock;
	struct vb_mr *mrs;
	unsigned int nb_mrs;
	unsigned int mrs_cap;
};

/* Find or open the device named @name. @return it (a reference taken) or NULL, dvp_errno set. */
struct vb_dev *vb_dev_get(const char *name, const char *port_name);
void vb_dev_put(struct vb_dev *dev);

/* Check what registering memory needs (RLIMIT_MEMLOCK) at probe. @return 0 or -EPERM. */
int vb_memlock_check(const char *port_name);

/*
 * Register every memory chunk of @mp with the device's PD (once: chunks
 * registered already are skipped). @return 0 or a negative errno after a
 * log line (which says what to change when the memlock limit is the cause).
 */
int vb_mr_register_mempool(struct vb_dev *dev, struct dvp_mempool *mp, const char *port_name);

/* The lkey covering [@addr, @addr + @len), or UINT32_MAX. Takes mr_lock. */
uint32_t vb_mr_lookup(struct vb_dev *dev, uintptr_t addr, size_t len, uintptr_t *start,
		      uintptr_t *end);

/* A queue's own lkey cache, in front of vb_mr_lookup (no lock). */
struct vb_mrc {
	uintptr_t start[VB_MRC_SIZE];
	uintptr_t end[VB_MRC_SIZE];
	uint32_t lkey[VB_MRC_SIZE];
	uint32_t n;
	uint32_t next; /* slot replaced next */
};

/* Miss path: the device's table (registering @m's pool if needed), then the cache. */
uint32_t vb_mrc_miss(struct vb_mrc *c, struct vb_dev *dev, struct dvp_mbuf *m, uintptr_t addr,
		     uint32_t len, const char *port_name);

static __dvp_always_inline uint32_t vb_mrc_lkey(struct vb_mrc *c, uintptr_t addr, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < c->n; i++)
		if (addr >= c->start[i] && addr + len <= c->end[i])
			return c->lkey[i];
	return UINT32_MAX;
}

/* ------------------------------------------------------------------------
 * Queues
 */

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
enum vb_qstate {
	VQ_DOWN = 0,
	VQ_LIVE,
	VQ_BROKEN,
	VQ_TEARING,
	VQ_RENEW,
};

/* No error behind a break (a disconnect): nothing to report as QUEUE_ERROR. */
#define VB_CAUSE_NONE (-2)
/* An error the driver found itself (an error completion). */
#define VB_CAUSE_DRIVER (-1)

struct vb_port;

/* What cq_context and qp_context point at: async events find their queue. */
struct vb_qctx {
	struct vb_port *vp;
	uint16_t queue_id;
	bool tx;
};

/* Counters with one writer (the owner of the queue) and readers anywhere. */
struct vb_qstats {
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
	uint64_t wc_err[VB_WC_STATUS_N];
};

#define VB_QSTATS_N (sizeof(struct vb_qstats) / sizeof(uint64_t))

struct vb_rxq {
	/* Fast path (the polling lcore). */
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	uint32_t state; /* enum vb_qstate, atomic */
	uint32_t head; /* ring: [head, tail) posted, in order */
	uint32_t tail;
	uint32_t mask; /* ring size - 1 */
	uint32_t nb_desc; /* receives to keep posted */
	uint32_t idle_refill; /* receives an empty burst replaces at most */
	uint16_t port_id;
	uint16_t wc_pos; /* completions polled by has_work, not yet returned */
	uint16_t wc_n;
	uint16_t grh; /* UD: VB_UD_GRH, posted in front of the data */
	uint32_t buf_len; /* bytes a receive takes (after the headroom) */
	struct dvp_mempool *mp;
	struct dvp_mbuf **ring;
	struct ibv_recv_wr *wrs; /* [nb_desc], chained for one post */
	struct ibv_sge *sges;
	struct vb_mrc mrc;
	struct vb_qstats st;
	struct ibv_wc wc[VB_RX_POLL];

	/* Control. */
	struct vb_qctx ctx;
	struct vb_port *vp;
	uint16_t queue_id;
	struct ibv_comp_channel *ch; /* NULL without rx interrupts */
	uint32_t unacked; /* CQ events read and not acked yet */
	uint32_t cq_size;
	uint32_t cq_dead; /* atomic: CQ_ERR seen; recreate the CQ */
	int cause; /* atomic: why it broke (VB_CAUSE_* or an ibv_event_type) */
	int wc_status; /* the first error completion's status since the last teardown */
	uint32_t vendor_err;
	bool intr_on;
	struct dvp_intr_queue intr;
	struct vb_qstats base; /* snapshot at the last stats reset */
} __dvp_cache_aligned;

struct vb_txq {
	/* Fast path. */
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	uint32_t state; /* enum vb_qstate, atomic */
	uint32_t in_burst; /* atomic: the lcore is inside a burst (see vb_txq_enter()) */
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
	struct vb_mrc mrc;
	struct vb_qstats st;
	struct ibv_send_wr wrs[VB_TX_BURST];
	struct ibv_sge sges[VB_TX_BURST * VB_MAX_SGE];
	struct ibv_wc wc[VB_TX_POLL];
	uint64_t wd_cycles; /* the watchdog's limit in TSC ticks; 0: off */
	uint64_t wd_since; /* TSC when a reap first found no progress; 0: none */

	/* Control. */
	struct vb_qctx ctx;
	struct vb_port *vp;
	uint16_t queue_id;
	uint32_t cq_size;
	uint32_t cq_dead;
	bool timed_out; /* the watchdog broke it (published by the break's CAS) */
	int cause;
	int wc_status;
	uint32_t vendor_err;
	struct vb_qstats base;
} __dvp_cache_aligned;

/* ------------------------------------------------------------------------
 * Connections (interrupt thread and control thread, under vp->lock)
 */

enum vb_cstate {
	CS_IDLE = 0, /* nothing under way */
	CS_ADDR, /* connector: resolving the address */
	CS_ROUTE, /* connector: resolving the route */
	CS_CONNECTING, /* connector: request sent */
	CS_ACCEPTING, /* listener: accepted, waiting for ESTABLISHED */
	CS_UP, /* the queue is LIVE */
	CS_CLOSING, /* the queue is being torn down */
	CS_BACKOFF, /* connector: retrying at retry_at */
};

struct vb_conn {
	struct vb_port *vp;
	bool tx; /* our tx queue's connection (else our rx queue's) */
	uint16_t q;
	enum vb_cstate st;
	struct rdma_cm_id *id;
	struct rdma_cm_id *pending; /* listener: a request waiting for the queue */
	struct vb_hello pending_hello;
	struct ibv_ah_attr pending_ah; /* UD: the path back, if the request carried one */
	uint64_t retry_at; /* monotonic ns */
	uint32_t backoff_ms;
	uint32_t attempts;
	bool warned; /* a failure was logged at WARNING; later ones at DEBUG */
};

/* Port-wide counters (atomics). */
struct vb_pstats {
	uint64_t cm_established;
	uint64_t cm_disconnects;
	uint64_t cm_rejects_sent;
	uint64_t cm_rejects_received;
	uint64_t cm_errors;
	uint64_t async_queue_errors;
	uint64_t async_link_events;
};

struct vb_port {
	struct dvp_port *port;
	struct vb_dev *dev;
	struct vb_cfg cfg;
	char name[DVP_DEV_NAME_MAX_LEN];

	pthread_mutex_t lock; /* the connections and started, against the interrupt thread */
	struct rdma_event_channel *cm_ch;
	struct rdma_cm_id *listen_id;
	int timer_fd;
	int wake_fd;
	bool started;
	bool connected_once; /* for reconnect=0 */
	bool events_on; /* the three fds are watched by the interrupt thread */
	/*
	 * The device port is ACTIVE and its netdev running (atomic). CM
	 * messages sent otherwise are lost, and rxe (kernel 6.1) stops
	 * delivering any later one: connections and disconnections wait.
	 */
	bool cm_usable;
	/* cm_ids to destroy once CM messages can go (their DREQ or REJ). */
	struct rdma_cm_id *zombies[4 * VB_MAX_QUEUES];
	unsigned int nzombies;
	uint8_t ib_port; /* the device port the address is on */
	uint32_t path_mtu; /* bytes (UD frames must fit) */
	char netdev[IF_NAMESIZE];
	uint64_t session;
	uint64_t peer_session;
	struct vb_conn rx_conn[VB_MAX_QUEUES];
	struct vb_conn tx_conn[VB_MAX_QUEUES];
	struct vb_pstats ps;
	struct vb_pstats ps_base; /* snapshot at the last xstats reset */
};

/* ------------------------------------------------------------------------
 * Functions between the files
 */

/* verbs_queue.c */
int vb_rxq_setup(struct dvp_port *port, uint16_t q, uint16_t nb_desc, int socket_id,
		 const struct dvp_rxq_conf *conf, struct dvp_mempool *mp);
void vb_rxq_release(struct dvp_port *port, uint16_t q);
int vb_txq_setup(struct dvp_port *port, uint16_t q, uint16_t nb_desc, int socket_id,
		 const struct dvp_txq_conf *conf);
void vb_txq_release(struct dvp_port *port, uint16_t q);
/* Create the queue's QP and bring it to INIT (receives posted for rx). DOWN queues only. */
int vb_rxq_qp_create(struct vb_rxq *rxq, struct rdma_cm_id *id);
int vb_txq_qp_create(struct vb_txq *txq, struct rdma_cm_id *id);
/* Move a QP to RTR then RTS with rdma_cm's attributes (RC) or the UD ones. */
int vb_qp_ready(struct vb_port *vp, struct ibv_qp *qp, struct rdma_cm_id *id);
/*
 * Tear down a queue the caller owns (TEARING, or any state while stopped).
 * @after_break: it broke while in use: count a restart and report the
 * cause as a QUEUE_ERROR event (if it has one).
 */
void vb_rxq_teardown(struct vb_rxq *rxq, bool after_break);
void vb_txq_teardown(struct vb_txq *txq, bool after_break);
/* Mark a LIVE queue BROKEN with @cause. @return true if this call broke it. */
bool vb_rxq_break(struct vb_rxq *rxq, int cause);
bool vb_txq_break(struct vb_txq *txq, int cause);
/* The interrupt thread's attempt at a BROKEN tx queue no lcore is sending on. */
bool vb_txq_try_teardown(struct vb_txq *txq);

/*
 * The tx watchdog, after a reap while at least one signaled send was in
 * flight: @progress says whether the reap freed anything. *@since holds
 * the TSC of the first reap that found none (0: none since the last
 * progress). @return true once sends have gone @limit ticks without any
 * completing, the oldest having waited at least that long: a transport
 * that will not finish them (rxe after a link flap), to be rebuilt.
 */
static inline bool vb_tx_watchdog_expired(uint64_t *since, bool progress, uint64_t now,
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
int vb_rxq_cq_renew(struct vb_rxq *rxq);
int vb_txq_cq_renew(struct vb_txq *txq);
/*
 * Wake a lcore asleep on @rxq (dvp_intr_queue_kick; nothing without rx
 * interrupts): at every transition that can give it work no armed CQ
 * event reports -- it went live, broke, was handed over for a new CQ, got
 * one. Any thread, while the queue is set up.
 */
void vb_rxq_kick(struct vb_rxq *rxq);
unsigned int vb_rxq_held(const struct vb_rxq *rxq);
unsigned int vb_txq_held(const struct vb_txq *txq);

/* verbs_rxtx.c */
uint16_t vb_rx_burst(void *q, struct dvp_mbuf **pkts, uint16_t nb);
uint16_t vb_tx_burst(void *q, struct dvp_mbuf **pkts, uint16_t nb);
/*
 * Retire the tx ring's sends up to (and including) index @last, freeing
 * their mbufs. @return how many sends: those that went inline (their slot
 * empty since the post) count too, so a caller counting losses misses none.
 */
unsigned int vb_txq_free_upto(struct vb_txq *txq, uint32_t last);
extern const struct dvp_intr_queue_ops vb_intr_ops;
/* Post up to @max receives (at most nb_desc in all) while the pool has mbufs. @return how many. */
unsigned int vb_rxq_refill(struct vb_rxq *rxq, uint32_t max);

/* verbs_cm_setup.c */
int vb_cm_init(struct vb_port *vp);
void vb_cm_fini(struct vb_port *vp);
int vb_cm_start(struct vb_port *vp);
void vb_cm_stop(struct vb_port *vp);

/*
 * Tests only: hold the interrupt thread after @rxq's accept until its
 * lcore read a completion event (DVP_VERBS_TEST_HOLD_ACCEPT_MS).
 */
void vb_cm_test_hold_accept(struct vb_port *vp, struct vb_rxq *rxq);

/* verbs_cm.c */
/* A queue broke (cause) while started: close its connection (vp->lock held). */
void vb_cm_queue_broken_locked(struct vb_port *vp, bool tx, uint16_t q);
/* Shared with verbs_cm_setup.c (vp->lock held where it says _locked). */
void vb_cm_destroy_id(struct rdma_cm_id **idp);
void vb_cm_retire_id(struct vb_port *vp, struct rdma_cm_id **idp);
void vb_cm_reject_id(struct vb_port *vp, struct rdma_cm_id *id, enum vb_reject_reason reason);
void vb_cm_progress_locked(struct vb_port *vp);
/* Arm the retry timer for @at_ns (CLOCK_MONOTONIC), UINT64_MAX to disarm. */
void vb_cm_timer_arm(struct vb_port *vp, uint64_t at_ns);
/* The EAL interrupt thread's callbacks: cm events, the retry timer, lcores' wake-ups. */
void vb_cm_event_cb(int fd, void *arg);
void vb_cm_timer_cb(int fd, void *arg);
void vb_cm_wake_cb(int fd, void *arg);

/* verbs_ethdev.c */
void vb_link_update(struct vb_port *vp);
/* Whether @ifname is up with carrier ("" for none: true). */
bool vb_netdev_running(const char *ifname);
extern const struct dvp_port_ops vb_ops;

/* verbs_dev.c: the async-event hooks. */
extern const struct dvp_intr_async_ops vb_async_ops;

/*
 * A ring index or slot the lcore writes while the control thread may read
 * it (xstats, dvp_port_mbufs_held()): the writer stores it relaxed and
 * readers on other threads load it relaxed; relaxed is enough, they want
 * a recent count, not an order with other memory. The lcore reads its own
 * plainly: nothing else writes them while it runs (teardown writes them
 * only when no burst can).
 */
static inline void vb_idx_set(uint32_t *idx, uint32_t v)
{
	__atomic_store_n(idx, v, __ATOMIC_RELAXED);
}

static inline uint32_t vb_idx_get(const uint32_t *idx)
{
	return __atomic_load_n(idx, __ATOMIC_RELAXED);
}

static inline void vb_slot_set(struct dvp_mbuf **slot, struct dvp_mbuf *m)
{
	__atomic_store_n(slot, m, __ATOMIC_RELAXED);
}

/* Monotonic nanoseconds (control path). */
uint64_t vb_now_ns(void);

#endif /* VERBS_PRIVATE_H */
