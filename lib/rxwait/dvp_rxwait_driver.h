/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * For drivers: the completion-event protocol, written once (lib/rxwait).
 *
 * A driver that offers rx interrupts embeds a struct dvp_rxwait_queue in each
 * rx queue and supplies four hooks; lib/rxwait applies the libibverbs rules
 * (ibv_req_notify_cq(3), ibv_get_cq_event(3), ibv_ack_cq_events(3)):
 *
 *  - arm before the final poll that decides to sleep, and poll once more;
 *  - one event per arm (one-shot): lib/rxwait re-arms only after it has read
 *    the event of the previous arm;
 *  - the event fd is non-blocking, read until EAGAIN, and an event with no
 *    completion behind it is normal (counted as spurious);
 *  - every event read is acked, in batches (the ack takes a mutex in
 *    libibverbs), and dvp_rxwait_queue_fini() flushes them: call it before
 *    destroying the CQ, whose destruction waits for every ack.
 *
 * Each rx queue needs its own event fd (one completion channel per CQ for
 * verbs and mlx5, one eventfd per ring for memif and net_ring), because the
 * epoll data of a wait set names the queue. A queue may have more fds that
 * wake it (extra_fds), and lib/rxwait adds one of its own, the kick eventfd of dvp_rxwait_queue_kick(): the wait
 * set watches each directly, so a wake-up crosses one epoll level, and
 * dvp_rx_intr_fd() gets one epoll fd holding them all.
 *
 * The one rule for drivers on top of the libibverbs ones: any transition
 * that can give a queue work no armed event will report -- the link comes
 * up, the queue goes live, its ring or CQ is replaced, the queue is rebuilt
 * -- calls dvp_rxwait_queue_kick(), so that a lcore asleep on the queue wakes
 * and arms what is there now.
 *
 * Hook threads: arm, consume and has_work run on the lcore that polls the
 * queue (they may touch what the rx burst touches); ack runs there too, and
 * from dvp_rxwait_queue_fini() on the control thread once the queue is no
 * longer polled.
 *
 * A device's async events (link, queue errors, removal) are not lib/rxwait's:
 * the driver reports them to lib/port (dvp_port_driver.h); RDMA drivers
 * read them with drivers/common/ib.
 */

#ifndef DVP_RXWAIT_DRIVER_H
#define DVP_RXWAIT_DRIVER_H

#include <stdbool.h>
#include <stdint.h>

#include <dvp_common.h>
#include <dvp_rxwait.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------
 * Rx queue completion events
 */

/** What a driver supplies per rx queue; @c ctx is the driver's queue. */
struct dvp_rxwait_queue_ops {
	/**
	 * Request one event for the next completion (ibv_req_notify_cq, the
	 * mlx5 arm doorbell with the driver's own sn and ci, or unmasking a
	 * memif ring). With @p solicited, only for a solicited completion.
	 * @return 0 or a negative errno (logged by the driver).
	 */
	int (*arm)(void *ctx, bool solicited);
	/**
	 * Read every pending event from the fd without blocking, until EAGAIN
	 * (ibv_get_cq_event on a non-blocking channel; read(2) of an eventfd).
	 * A driver that counts arms (mlx5's arm_sn) advances them here.
	 * @return the number of events read (0: none), or a negative errno.
	 */
	int (*consume)(void *ctx);
	/**
	 * Acknowledge @p n events read by consume (ibv_ack_cq_events(cq, n)).
	 * NULL when the event source needs no acks (an eventfd).
	 */
	void (*ack)(void *ctx, unsigned int n);
	/**
	 * Whether an rx burst would return something now, without taking it:
	 * the CQE at the consumer index is owned by software, the ring is not
	 * empty. A driver that cannot peek (plain verbs) polls into a stash
	 * its rx burst returns first.
	 */
	bool (*has_work)(void *ctx);
	/** DVP_RXWAIT_QUEUE_F_*: what the driver can do. */
	uint32_t flags;
};

/** The driver can arm for solicited completions only. */
#define DVP_RXWAIT_QUEUE_F_SOLICITED (1u << 0)
/**
 * The event source disarms itself when it fires: a CQ raises one event per
 * ibv_req_notify_cq() or arm doorbell and nothing more until the next arm.
 * So a wait that wakes on such a queue with work behind the event leaves
 * the event in the fd and returns at once; the read (and its EAGAIN) is
 * made just before the queue is armed again, after the lcore has answered
 * what woke it. Without this flag the event is read on waking, because the
 * source keeps signalling until consume masks it (a memif ring).
 */
#define DVP_RXWAIT_QUEUE_F_ONESHOT (1u << 1)

/** Most fds besides the event fd that may wake one queue. */
#define DVP_RXWAIT_QUEUE_EXTRA_FDS_MAX 2

struct dvp_rxwait_queue_conf {
	int fd; /**< the event fd: non-blocking (O_NONBLOCK is checked) */
	/**
	 * More fds that wake this queue (a driver's own wake-up eventfd),
	 * non-blocking too; the consume hook reads them. A wait set watches
	 * each beside @c fd, not through a nested epoll fd.
	 */
	int extra_fds[DVP_RXWAIT_QUEUE_EXTRA_FDS_MAX];
	unsigned int nb_extra_fds; /**< entries of extra_fds used (0: none) */
	uint32_t ack_batch; /**< events per ack call; 0: DVP_RXWAIT_ACK_BATCH_DEFAULT */
	bool solicited; /**< arm for solicited completions only */
	uint16_t port_id; /**< labels for logs and dvp_rx_wait() results */
	uint16_t queue_id;
};

/**
 * One rx queue's interrupt state, embedded in the driver's queue. Fields
 * are lib/rxwait's; drivers use the functions below.
 */
struct dvp_rxwait_queue {
	const struct dvp_rxwait_queue_ops *ops;
	void *ctx;
	/**
	 * The one fd an application waits on (dvp_rx_intr_fd()): the event
	 * fd, or with extra fds an epoll fd of lib/rxwait's holding them all.
	 */
	int fd;
	int fds[2 + DVP_RXWAIT_QUEUE_EXTRA_FDS_MAX]; /**< what a wait set watches */
	uint8_t nb_fds;
	bool own_fd; /**< fd is lib/rxwait's epoll fd: fini closes it */
	int kick_fd; /**< lib/rxwait's eventfd written by dvp_rxwait_queue_kick() */
	uint64_t kicks_sent; /**< kicks asked (any thread: atomic) */
	uint64_t kicks_taken; /**< kicks read from kick_fd (the polling lcore) */
	uint64_t wake_gen; /**< the set's epoll_wait() that last read it */
	uint32_t ack_batch;
	uint32_t pending_acks; /**< events read and not acked yet */
	bool solicited;
	bool armed; /**< armed and its event not read yet */
	bool unread; /**< woke a wait; its event is read before the next arm */
	bool initialized;
	uint16_t port_id;
	uint16_t queue_id;
	struct dvp_rxwait_set *set; /**< the set holding it, or NULL */
	void *set_data;
	unsigned int set_slot;
	/** Written by the polling lcore only, read by anyone: relaxed atomics. */
	struct dvp_rxwait_queue_stats stats;
	/** Snapshot taken by the last reset (control thread). */
	struct dvp_rxwait_queue_stats base;
	/** Monotonic time of init or of the last reset: what asleep_ns is a share of. */
	uint64_t since_ns;
};

/**
 * Set up @p iq for the queue @p ctx with @p ops (which must outlive it).
 * It creates the queue's kick eventfd and an epoll fd over every fd of the
 * queue for dvp_rx_intr_fd(); dvp_rxwait_queue_fini() closes both.
 * @return 0, or after a log line -EINVAL (a hook missing, an fd negative
 *   or blocking, too many extra fds), -ENOTSUP (solicited asked of a
 *   driver without DVP_RXWAIT_QUEUE_F_SOLICITED), or the errno of
 *   eventfd/epoll_create1/epoll_ctl.
 */
int dvp_rxwait_queue_init(struct dvp_rxwait_queue *iq, const struct dvp_rxwait_queue_ops *ops,
			  void *ctx, const struct dvp_rxwait_queue_conf *conf);

/**
 * Before the driver destroys the queue's CQ (or closes its fds): take the
 * queue out of its wait set (kicking a waiter and waiting for it to leave),
 * read the events still pending, ack every event read, and close the epoll
 * fd init made for extra fds. Never blocks on the fd. Safe on a zeroed or
 * already finished @p iq.
 * @return the number of events acked by this call.
 */
unsigned int dvp_rxwait_queue_fini(struct dvp_rxwait_queue *iq);

/** Whether dvp_rxwait_queue_init() succeeded and fini has not run. */
static inline bool dvp_rxwait_queue_active(const struct dvp_rxwait_queue *iq)
{
	return iq != NULL && iq->initialized;
}

/**
 * Arm @p iq unless it is armed already (one-shot: its previous event has
 * not been read). An event left unread by a wake-up (DVP_RXWAIT_QUEUE_F_ONESHOT)
 * is read first. @return 0 or the consume or arm hook's negative errno.
 */
int dvp_rxwait_queue_arm(struct dvp_rxwait_queue *iq);

/**
 * Say that @p iq may have work now that no armed event will report: the
 * link came up, the queue went live, its ring or CQ was replaced, it was
 * rebuilt. A lcore asleep on the queue (in dvp_rx_wait(), or in its own
 * epoll on dvp_rx_intr_fd()) wakes, and the queue's next arm calls the
 * driver's arm hook even if lib/rxwait thought it armed: an arm made on what
 * was there before the transition is forgotten. The wait that wakes polls
 * the queue and returns it if it has work, else arms it again and sleeps
 * on; a kick is not counted as an event, nor as spurious.
 *
 * Any thread (the driver's control thread, the EAL interrupt thread), and
 * async-signal safe (an atomic add and one write(2)); the queue must stay
 * set up during the call. Cheap enough for every transition: a kick
 * nobody needed costs the sleeping lcore one wake-up.
 * @return 0, or -EINVAL when @p iq is not set up.
 */
int dvp_rxwait_queue_kick(struct dvp_rxwait_queue *iq);

/**
 * Read @p iq's pending events (non-blocking), count them and ack in
 * batches; take any kick (dvp_rxwait_queue_kick()), which leaves the queue
 * unarmed. @return the number of events read (kicks not included), or the
 * hook's negative errno.
 */
int dvp_rxwait_queue_consume(struct dvp_rxwait_queue *iq);

/** Ack every event read and not acked yet. @return how many. */
unsigned int dvp_rxwait_queue_ack_flush(struct dvp_rxwait_queue *iq);

/** Change the ack batch (0: default). Takes effect at the next event. */
void dvp_rxwait_queue_set_ack_batch(struct dvp_rxwait_queue *iq, uint32_t ack_batch);

/** Counters since the last reset (any thread). */
void dvp_rxwait_queue_stats_get(const struct dvp_rxwait_queue *iq,
				struct dvp_rxwait_queue_stats *stats);
/** Reset the counters seen by dvp_rxwait_queue_stats_get() (control thread). */
void dvp_rxwait_queue_stats_reset(struct dvp_rxwait_queue *iq);

/** Names of the fields of struct dvp_rxwait_queue_stats, in order ("polls", ...). */
extern const char *const dvp_rxwait_queue_stats_names[];
#define DVP_RXWAIT_QUEUE_STATS_N (sizeof(struct dvp_rxwait_queue_stats) / sizeof(uint64_t))

/**
 * Add @p iq to @p set with @p data returned by dvp_rx_wait() (what
 * dvp_rx_intr_ctl() of lib/port does).
 * @return 0, or -EINVAL (not initialised), -EEXIST (in a set already),
 *   -ENOSPC (set full), -EBUSY (another thread waits on the set), or the
 *   errno of epoll_ctl, after a log line.
 */
int dvp_rxwait_set_add(struct dvp_rxwait_set *set, struct dvp_rxwait_queue *iq, void *data);

/**
 * Remove @p iq from its set. From a thread other than the waiter's it kicks
 * the waiter and waits for it to leave dvp_rx_wait().
 * @return 0, or -ENOENT when it is in no set (or in another than @p set).
 */
int dvp_rxwait_set_del(struct dvp_rxwait_set *set, struct dvp_rxwait_queue *iq);

#ifdef __cplusplus
}
#endif

#endif /* DVP_RXWAIT_DRIVER_H */
