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
 *  - a queue is owned by whoever its state says (enum verbs_qstate): the
 *    interrupt thread while it is DOWN (it creates the QP and posts the
 *    receives), the polling lcore while it is LIVE or BROKEN (it polls,
 *    posts, and tears a BROKEN queue down, then hands it back as DOWN).
 *    A tx queue nobody sends on is torn down by the interrupt thread
 *    instead, guarded by the queue's in_burst flag;
 *  - while the port is stopped the control thread owns everything.
 *
 * The parts have their own headers, which this one gathers with the port
 * itself: verbs_args.h (devargs), verbs_dev.h (the device, memory
 * registration), verbs_queue.h (queues, their states, the bursts),
 * verbs_cm.h (connections), verbs_proto.h (the handshake's wire format).
 */

#ifndef VERBS_PRIVATE_H
#define VERBS_PRIVATE_H

#include <net/if.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <rdma/rdma_cma.h>

#include <dvp_bus_ib.h>
#include <dvp_counter.h>
#include <dvp_cycles.h>
#include <dvp_errno.h>
#include <dvp_log.h>
#include <dvp_port_driver.h>

#include "verbs_args.h"
#include "verbs_cm.h"
#include "verbs_dev.h"
#include "verbs_proto.h"
#include "verbs_queue.h"

extern int verbs_logtype;

#define VERBS_LOG(level, fmt, ...) \
	DVP_LOG_LINE(level, verbs_logtype, "NET_VERBS: ", fmt, ##__VA_ARGS__)

#define VERBS_DRIVER_NAME "net_verbs"

#define VERBS_DESC_MIN 16
#define VERBS_DESC_MAX 8192
#define VERBS_DESC_DEFAULT 512
#define VERBS_LINK_WAIT_MS 9000 /* dvp_link_get() waits this long for a link coming up */

/* ------------------------------------------------------------------------
 * The port
 */

/* Port-wide counters (atomics). */
struct verbs_pstats {
	uint64_t cm_established;
	uint64_t cm_disconnects;
	uint64_t cm_rejects_sent;
	uint64_t cm_rejects_received;
	uint64_t cm_errors;
	uint64_t async_queue_errors;
	uint64_t async_link_events;
	uint64_t cm_sessions_renewed;
};

struct verbs_port {
	struct dvp_port *port;
	struct verbs_dev *dev;
	struct verbs_cfg cfg;
	char name[DVP_DEV_NAME_MAX_LEN];

	/*
	 * Against the interrupt thread: the connections, started, and the
	 * link from reading it to setting it (verbs_link_report()).
	 */
	pthread_mutex_t lock;
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
	struct rdma_cm_id *zombies[4 * VERBS_MAX_QUEUES];
	unsigned int nzombies;
	uint8_t ib_port; /* the device port the address is on */
	uint32_t path_mtu; /* bytes (UD frames must fit) */
	char netdev[IF_NAMESIZE];
	uint64_t session;
	uint64_t peer_session;
	struct verbs_conn rx_conn[VERBS_MAX_QUEUES];
	struct verbs_conn tx_conn[VERBS_MAX_QUEUES];
	struct verbs_pstats ps;
	struct verbs_pstats ps_base; /* snapshot at the last xstats reset */
};

/* verbs_ethdev.c */
/* Read the link and report it, naming @p cause (what the device said). */
void verbs_link_report(struct verbs_port *vp, enum dvp_port_event_cause cause);

static inline void verbs_link_update(struct verbs_port *vp)
{
	verbs_link_report(vp, DVP_PORT_CAUSE_NONE);
}

/* An async event broke queue @p q (verbs_ethdev.c): close its connection. */
void verbs_queue_error(struct dvp_port *port, uint16_t q, bool tx, enum dvp_port_event_cause cause);
/* Whether @ifname is up with carrier ("" for none: true). */
bool verbs_netdev_running(const char *ifname);
extern const struct dvp_port_ops verbs_port_ops;

#endif /* VERBS_PRIVATE_H */
