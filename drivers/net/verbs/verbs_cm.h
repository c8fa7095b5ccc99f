/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * net_verbs connections: one rdma_cm connection per queue and direction,
 * made and remade on the EAL interrupt thread (verbs_cm_setup.c: the
 * channel, the listener, start and stop; verbs_cm.c: a connection's life,
 * the events, the retry timer, the hand-back of queues, with the connect=
 * side's steps in verbs_cm_connect.c and the listen= side's in
 * verbs_cm_accept.c, which share verbs_conn.h).
 */

#ifndef VERBS_CM_H
#define VERBS_CM_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "verbs_proto.h"

/*
 * RC transport retries. Not 7: rxe (drivers/infiniband/sw/rxe, rxe_comp.c)
 * takes retry_cnt 7 as "retry forever", as the spec does only for
 * rnr_retry, so a send whose ack never comes would never complete with
 * RETRY_EXC_ERR and the queue would never be rebuilt.
 */
#define VERBS_RETRY_CNT 6
#define VERBS_RNR_RETRY 7 /* infinite: a receiver out of buffers slows the sender */
#define VERBS_CM_TIMEOUT_MS 2000 /* address and route resolution */
#define VERBS_RETRY_MIN_MS 100 /* reconnect back-off: doubles up to the max */
#define VERBS_RETRY_MAX_MS 2000

struct verbs_port;

enum verbs_cstate {
	VERBS_CS_IDLE = 0, /* nothing under way */
	VERBS_CS_ADDR, /* connector: resolving the address */
	VERBS_CS_ROUTE, /* connector: resolving the route */
	VERBS_CS_CONNECTING, /* connector: request sent */
	VERBS_CS_ACCEPTING, /* listener: accepted, waiting for ESTABLISHED */
	VERBS_CS_UP, /* the queue is LIVE */
	VERBS_CS_CLOSING, /* the queue is being torn down */
	VERBS_CS_BACKOFF, /* connector: retrying at retry_at */
};

struct verbs_conn {
	struct verbs_port *vp;
	bool tx; /* our tx queue's connection (else our rx queue's) */
	uint16_t q;
	enum verbs_cstate st;
	struct rdma_cm_id *id;
	struct rdma_cm_id *pending; /* listener: a request waiting for the queue */
	struct verbs_hello pending_hello;
	struct ibv_ah_attr pending_ah; /* UD: the path back, if the request carried one */
	uint64_t retry_at; /* monotonic ns */
	uint32_t backoff_ms;
	uint32_t attempts;
	bool warned; /* a failure was logged at WARNING; later ones at DEBUG */
};

/* verbs_cm_setup.c */
int verbs_cm_init(struct verbs_port *vp);
void verbs_cm_fini(struct verbs_port *vp);
int verbs_cm_start(struct verbs_port *vp);
/* A new random session id for the connect= side's requests (vp->lock held). */
void verbs_cm_session_new(struct verbs_port *vp);
void verbs_cm_stop(struct verbs_port *vp);

/* verbs_cm.c */
/* A queue broke (cause) while started: close its connection (vp->lock held). */
void verbs_cm_queue_broken_locked(struct verbs_port *vp, bool tx, uint16_t q);
/* Shared with verbs_cm_setup.c (vp->lock held where it says _locked). */
void verbs_cm_destroy_id(struct rdma_cm_id **idp);
void verbs_cm_retire_id(struct verbs_port *vp, struct rdma_cm_id **idp);
void verbs_cm_reject_id(struct verbs_port *vp, struct rdma_cm_id *id,
			enum verbs_reject_reason reason);
void verbs_cm_progress_locked(struct verbs_port *vp);
/* Arm the retry timer for @at_ns (CLOCK_MONOTONIC), UINT64_MAX to disarm. */
void verbs_cm_timer_arm(struct verbs_port *vp, uint64_t at_ns);
/* The EAL interrupt thread's callbacks: cm events, the retry timer, lcores' wake-ups. */
void verbs_cm_event_cb(int fd, void *arg);
void verbs_cm_timer_cb(int fd, void *arg);
void verbs_cm_wake_cb(int fd, void *arg);

#endif /* VERBS_CM_H */
