/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * net_ring internals (not installed).
 *
 * An inbox is one dvp ring with what its consumer needs to sleep: an
 * eventfd the producers write when (and only when) the consumer armed it,
 * and the gate that keeps frames out while the consumer port is stopped.
 * Ports hold references on inboxes: their rx queues read their own, their
 * tx queues write their peer's (or, looped back, their own).
 */

#ifndef NET_RING_PRIVATE_H
#define NET_RING_PRIVATE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <dvp_counter.h>
#include <dvp_errno.h>
#include <dvp_rxwait_driver.h>
#include <dvp_log.h>
#include <dvp_mbuf.h>
#include <dvp_port_counters.h>
#include <dvp_port_driver.h>
#include <dvp_ring.h>

#include "dvp_net_ring.h"

extern int ring_logtype;

#define RING_LOG(level, fmt, ...) \
	DVP_LOG_LINE(level, ring_logtype, "NET_RING: ", fmt, ##__VA_ARGS__)

#define RING_DRIVER_NAME "net_ring"

struct ring_port;

struct ring_inbox {
	/*
	 * ring and efd are read by the consumer at every rx burst and by the
	 * producers at every tx burst, and written only at creation. They
	 * share their line with fields that change only on the control path
	 * (a reset, a port's start or stop), so both cores keep it; the
	 * handshake the producers write at every burst is on a line of its own
	 * below.
	 */
	struct dvp_ring *ring;
	int efd; /* non-blocking eventfd: the consumer's wake-up */
	uint64_t events_base; /* events_written's baseline (dvp_port_counters.h), set by a reset */

	/* Control path, under ring_lock. */
	struct ring_port *consumer; /* the port whose rx queue reads it, or NULL */
	bool own_ring; /* created by the driver: freed with the inbox */
	unsigned int refs;
	struct ring_inbox *next; /* the driver's list, to find an inbox by ring */
	void (*arm_hook)(void *arg); /* tests: runs right after arming */
	void *arm_hook_arg;

	/*
	 * The consumer armed and has not been woken yet. Set by the consumer,
	 * taken (exchanged to 0) by the one producer that writes the event.
	 */
	uint32_t armed __dvp_cache_aligned;
	/* Frames are accepted: the consumer port is started (or the consumer is the application). */
	uint32_t open;
	/* Producers between their check of open and the end of their enqueue. */
	uint32_t producers;
	uint64_t events_written; /* atomic */
};

/* A queue's counters (dvp_port_counters.h): one writer, the lcore. */
struct ring_qstats {
	uint64_t packets;
	uint64_t bytes;
	uint64_t errors;
	uint64_t nombuf; /* never: the mbufs come from the peer */
	uint64_t peer_stopped_drops; /* tx: sent to a stopped or closed peer (in errors) */
};

struct ring_rxq {
	struct ring_inbox *in;
	uint16_t port_id;
	uint16_t queue_id;
	struct dvp_queue_fault fault; /* the polling lcore restarts the queue */
	struct ring_port *np;
	struct ring_qstats st;
	struct ring_qstats base; /* reset snapshot */
	/* Events read and acked: acked must catch up before release, as a CQ's destroy needs. */
	uint64_t events_got;
	uint64_t events_acked;
	struct dvp_rxwait_queue intr;
} __dvp_cache_aligned;

struct ring_txq {
	struct ring_inbox *out; /* bound at start */
	uint16_t queue_id;
	struct dvp_queue_fault fault;
	struct ring_port *np;
	struct ring_qstats st;
	struct ring_qstats base;
} __dvp_cache_aligned;

/* One emulated device event waiting to be read: what the device says, in dvpmd's words. */
struct ring_async_ev {
	enum dvp_port_event_cause cause;
	uint16_t queue_id;
	bool tx;
};

#define RING_ASYNC_DEPTH 64

/* A port's own counters, beside its queues' (the xstats of ring_stats.c). */
struct ring_pstats {
	uint64_t queue_restarts;
	uint64_t async_acked; /* async events read */
	uint64_t unacked_at_release; /* rx interrupt events a released queue left unacked */
};

struct ring_port {
	struct dvp_port *port;
	unsigned int nb_rx_rings;
	unsigned int nb_tx_rings;
	struct ring_inbox *rx[DVP_NET_RING_MAX_QUEUES];
	struct ring_inbox *tx[DVP_NET_RING_MAX_QUEUES];
	struct ring_port *peer; /* cabled vdev peer; self when looped back; NULL for API rings */
	uint32_t carrier; /* atomic: the cable is plugged */
	uint32_t running; /* atomic: between start and stop (what the peer's link sees) */
	struct ring_port *next; /* the driver's list */

	/* The emulated device's event queue, read on the EAL interrupt thread. */
	pthread_mutex_t async_lock;
	int async_fd;
	struct ring_async_ev async_q[RING_ASYNC_DEPTH];
	unsigned int async_head, async_len;
	bool async_watched; /* its fd is on the EAL interrupt thread */

	/* Counters of several writers (atomic adds), with their baseline. */
	struct ring_pstats ps, ps_base;
};

extern pthread_mutex_t ring_lock;
extern const struct dvp_port_ops ring_port_ops;

/* ring_rxtx.c */
uint16_t ring_rx_burst(void *q, struct dvp_mbuf **pkts, uint16_t nb);
uint16_t ring_tx_burst(void *q, struct dvp_mbuf **pkts, uint16_t nb);
void ring_inbox_notify(struct ring_inbox *in);
unsigned int ring_inbox_drain(struct ring_inbox *in);
void ring_inbox_close(struct ring_inbox *in);
extern const struct dvp_rxwait_queue_ops ring_intr_ops;
void ring_rxq_restart(struct ring_rxq *rxq);
void ring_txq_restart(struct ring_txq *txq);
int ring_queue_restart(struct dvp_port *port, uint16_t q, bool tx, enum dvp_port_event_cause cause);

/* ring_ethdev.c */
extern struct ring_port *ring_ports; /* the driver's ports (under ring_lock) */
struct ring_port *ring_port_of(uint16_t port_id);
/* Take a closing port off the driver's list (under ring_lock). */
void ring_port_unlink_locked(struct ring_port *np);
/* Publish the port's link (under ring_lock, which keeps np->peer alive). */
void ring_link_update_locked(struct ring_port *np, enum dvp_port_event_cause cause);

/* ring_stats.c */
int ring_stats_get(struct dvp_port *port, struct dvp_port_stats *stats);
int ring_stats_reset(struct dvp_port *port);
int ring_xstats(struct dvp_port *port, struct dvp_xstats_out *o);
int ring_xstats_reset(struct dvp_port *port);

/* ring_inbox.c (under ring_lock) */
/* A ring of the driver's own, in EAL memory on @socket_id. */
struct dvp_ring *ring_inbox_ring_new(const char *name, unsigned int size, int socket_id);
/* A new inbox around @ring (@own: the driver's ring, freed with it). */
struct ring_inbox *ring_inbox_new_locked(struct dvp_ring *ring, bool own);
/* The inbox of an application's @ring, made at its first use. */
struct ring_inbox *ring_inbox_of_ring_locked(struct dvp_ring *ring);
void ring_inbox_get(struct ring_inbox *in);
/* Drop a reference on an inbox; the last one frees it (and drains an own ring). */
void ring_inbox_put_locked(struct ring_inbox *in);

/* ring_async.c */
int ring_async_init(struct ring_port *np);
void ring_async_fini(struct ring_port *np);
int ring_async_push(struct ring_port *np, const struct ring_async_ev *ev);

#endif /* NET_RING_PRIVATE_H */
