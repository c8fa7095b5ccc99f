/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The ib layer mlx5 and net_verbs share: a device's async events
 * (ibv_get_async_event(3)) read on the EAL interrupt thread, acked, put in
 * dvpmd's words (enum dvp_port_event_cause) and handed to the driver's
 * handler for each port they concern, which reports to lib/port:
 *
 *   driver (this layer, the driver's handler) -> lib/port -> application
 *
 * The driver's get hook reads one event and names the port and queue it
 * concerns; this layer maps its type (link, queue error, removal --
 * reported once per port), acks it, then calls the handler under
 * dvp_port_ctrl_lock(). Not installed: for drivers.
 */

#ifndef IB_ASYNC_H
#define IB_ASYNC_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include <dvp_common.h>
#include <dvp_port_driver.h>

/** A port_id meaning every port of the device. */
#define IB_ASYNC_PORT_ALL UINT16_MAX

/** One async event, as the driver's get hook fills it. */
struct ib_async_event {
	/** As ibv_get_async_event() returned it; given back to the ack hook. */
	struct ibv_async_event ibv;
	/** The port it concerns, or IB_ASYNC_PORT_ALL (device fatal). */
	uint16_t port_id;
	/** For a CQ, QP or WQ event: the queue behind it. */
	uint16_t queue_id;
	bool tx; /**< that queue is a tx queue */
	bool queue_known; /**< queue_id and tx are set */
};

struct ib_async_ops {
	/**
	 * Read one event without blocking (ibv_get_async_event on the
	 * non-blocking async fd) and resolve its element to a port and queue.
	 * @return 0, -EAGAIN when there is none, or another negative errno.
	 */
	int (*get)(void *ctx, struct ib_async_event *ev);
	/** Ack @p ev (ibv_ack_async_event(&ev->ibv)); NULL if not needed. */
	void (*ack)(void *ctx, struct ib_async_event *ev);
	/**
	 * The link of @p port changed: read it and report it with
	 * dvp_port_link_set(port, &link, @p cause). NULL: nothing to read.
	 */
	void (*link)(void *ctx, struct dvp_port *port, enum dvp_port_event_cause cause);
	/**
	 * Queue @p q of @p port (set up) is broken: restart it -- now if the
	 * port is stopped, else by marking it for the lcore that polls it --
	 * and report it. NULL: lib/port's queue-fault primitive does all of
	 * that (dvp_port_queue_fault_raise()); a driver whose queues follow
	 * another life (a connection to re-establish) sets its own.
	 */
	void (*queue_error)(void *ctx, struct dvp_port *port, uint16_t q, bool tx,
			    enum dvp_port_event_cause cause);
};

/** What an async event means for a port. */
enum ib_async_kind {
	IB_ASYNC_NONE = 0, /**< informational: logged and acked */
	IB_ASYNC_LINK, /**< PORT_ACTIVE, PORT_ERR: re-read the link state */
	/** CQ_ERR, QP_FATAL, QP_REQ_ERR, QP_ACCESS_ERR, WQ_FATAL: restart the queue */
	IB_ASYNC_QUEUE_ERROR,
	IB_ASYNC_REMOVAL, /**< DEVICE_FATAL: the device is gone */
};

/** The kind of @p type (the fixed table of doc/interrupt-mode.md). */
__dvp_export enum ib_async_kind ib_async_kind_of(enum ibv_event_type type);

/** @p type in dvpmd's words; DVP_PORT_CAUSE_NONE for an informational one. */
__dvp_export enum dvp_port_event_cause ib_async_cause_of(enum ibv_event_type type);

/**
 * What a get hook resolves the element of @p e by: the context its CQ, QP
 * or WQ carries (cq_context, qp_context, wq_context), or NULL; for a port
 * event *@p port_num gets its port (1-based), else 0.
 */
__dvp_export void *ib_async_element(const struct ibv_async_event *e, unsigned int *port_num);

struct ib_async;

/**
 * Create an async-event source over @p fd (non-blocking) read and handled
 * with @p ops and @p ctx. Not yet watched: see ib_async_start().
 * @return it, or NULL with dvp_errno set after a log line.
 */
__dvp_export struct ib_async *ib_async_create(const char *name, int fd,
					      const struct ib_async_ops *ops, void *ctx);

/**
 * Declare @p port_id as one of the source's ports (a device-wide event
 * concerns each). @return 0, -EEXIST, -ENOSPC (DVP_MAX_PORTS), -EINVAL.
 */
__dvp_export int ib_async_add_port(struct ib_async *src, uint16_t port_id);
__dvp_export int ib_async_del_port(struct ib_async *src, uint16_t port_id);

/** Watch the fd on the EAL interrupt thread: from then on events are processed there. */
__dvp_export int ib_async_start(struct ib_async *src);

/**
 * Read every pending event (until EAGAIN); for each, ack it (after the get
 * hook has resolved its element: a CQ or QP being destroyed waits for the
 * ack, so it never waits on a handler), map it and handle it for each port
 * concerned. Removal is reported once per port however often DEVICE_FATAL
 * arrives. What the EAL interrupt thread runs; callable directly (tests).
 * @return the number of events read, or a negative errno from the get hook.
 */
__dvp_export int ib_async_process(struct ib_async *src);

/**
 * Stop watching (safe from inside a handler) and free @p src (NULL is
 * fine). Events not read stay in the fd: the driver acks nothing more.
 */
__dvp_export void ib_async_destroy(struct ib_async *src);

struct ib_async_stats {
	uint64_t events; /**< read */
	uint64_t acked;
	uint64_t link; /**< events handled, by kind */
	uint64_t queue_error;
	uint64_t removal;
	uint64_t removal_repeated; /**< DEVICE_FATAL for a port already reported */
	uint64_t ignored; /**< informational events */
	uint64_t unresolved; /**< queue events the driver could not place, ports not there */
};

__dvp_export void ib_async_stats_get(const struct ib_async *src, struct ib_async_stats *stats);

#endif /* IB_ASYNC_H */
