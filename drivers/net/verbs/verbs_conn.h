/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * What the files that make connections share (not installed, not for the
 * rest of the driver): verbs_cm.c (a connection's life, cm events,
 * progress), verbs_cm_connect.c (the connect= side's steps) and
 * verbs_cm_accept.c (the listen= side's). All of it runs on the EAL
 * interrupt thread with vp->lock held.
 */

#ifndef VERBS_CONN_H
#define VERBS_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "verbs_private.h"

/* One cm event, copied so that it can be acked before it is acted on. */
struct verbs_cm_event {
	enum rdma_cm_event_type type;
	int status;
	struct rdma_cm_id *id;
	struct rdma_cm_id *listen_id;
	uint8_t pdata[256];
	uint8_t pdata_len;
	struct ibv_ah_attr ah_attr; /* UD */
	uint32_t qpn;
	uint32_t qkey;
};

/* The queue a connection feeds (rx) or sends from (tx); NULL for the other direction. */
static inline struct verbs_rxq *verbs_conn_rxq(const struct verbs_conn *c)
{
	return c->tx ? NULL : c->vp->port->rxqs[c->q];
}

static inline struct verbs_txq *verbs_conn_txq(const struct verbs_conn *c)
{
	return c->tx ? c->vp->port->txqs[c->q] : NULL;
}

/* verbs_cm.c: a connection's life */

/* "<port> <rx|tx> queue <q>" into @buf, for log lines. @return buf. */
const char *verbs_conn_name(const struct verbs_conn *c, char *buf, size_t len);
/* Give back what a connection attempt built on its (DOWN) queue. */
void verbs_conn_discard(struct verbs_conn *c);
/* A connection attempt failed: clean up, and for the connector, retry later. */
void verbs_conn_fail(struct verbs_conn *c);
/* Say why once at WARNING, and at DEBUG while it keeps failing the same way. */
__dvp_cold void verbs_conn_warn(struct verbs_conn *c, const char *fmt, const char *detail,
				const char *detail2);
/* The connection is up: its queue goes LIVE. */
void verbs_conn_up(struct verbs_conn *c);
/* An UP connection ends (peer gone, or its queue broke): close it, the queue's owner tears down. */
void verbs_conn_close(struct verbs_conn *c, enum dvp_port_event_cause cause);
/* RC: the ack timeout the QP gets from rdma_init_qp_attr(RTS). */
void verbs_conn_set_ack_timeout(struct verbs_port *vp, struct rdma_cm_id *id);
/* The handshake's fields every message of this port carries. */
void verbs_conn_hello_fill(struct verbs_port *vp, struct verbs_hello *h, uint8_t kind);
/* What our rx queue tells its sender. */
void verbs_conn_hello_rx_side(struct verbs_conn *c, struct verbs_hello *h);
/* What our tx queue learns from its receiver. */
void verbs_conn_tx_params(struct verbs_conn *c, const struct verbs_hello *h);

/* verbs_cm_connect.c: the connect= side, one step per cm event */
void verbs_conn_connect(struct verbs_conn *c);
void verbs_conn_on_addr(struct verbs_conn *c);
void verbs_conn_on_route(struct verbs_conn *c);
void verbs_conn_on_accepted(struct verbs_conn *c, const struct verbs_cm_event *e);
void verbs_conn_on_rejected(struct verbs_conn *c, const struct verbs_cm_event *e);

/* verbs_cm_accept.c: the listen= side */
/* A connection request: checked, then kept on its connection until progress accepts it. */
void verbs_cm_on_request(struct verbs_port *vp, const struct verbs_cm_event *e);
/* Accept the request waiting on @c (its queue is DOWN, the port can carry CM messages). */
void verbs_conn_accept(struct verbs_conn *c);

#endif /* VERBS_CONN_H */
