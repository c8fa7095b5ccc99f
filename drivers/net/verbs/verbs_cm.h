/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * net_verbs connections: one rdma_cm connection per queue and direction,
 * made and remade on the EAL interrupt thread (verbs_cm_setup.c: the
 * channel, the listener, start and stop; verbs_cm.c: the events, the retry
 * timer, the hand-back of queues).
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
#define VB_RETRY_CNT 6
#define VB_RNR_RETRY 7 /* infinite: a receiver out of buffers slows the sender */
#define VB_CM_TIMEOUT_MS 2000 /* address and route resolution */
#define VB_RETRY_MIN_MS 100 /* reconnect back-off: doubles up to the max */
#define VB_RETRY_MAX_MS 2000

struct vb_port;

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

/* verbs_cm_setup.c */
int vb_cm_init(struct vb_port *vp);
void vb_cm_fini(struct vb_port *vp);
int vb_cm_start(struct vb_port *vp);
void vb_cm_stop(struct vb_port *vp);

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

#endif /* VERBS_CM_H */
