/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * One end of a plain-verbs RC connection for the Soft-RoCE smoke test: no
 * dvpmd code, only libibverbs and librdmacm, so that the device and the
 * event protocol are proven before a driver is blamed.
 *
 * An endpoint owns a buffer of RC_RECV_SLOTS receive slots and one send
 * slot (a 2 MiB hugepage for the end that sleeps, as the PMD's pools are),
 * its MR, a send CQ and a receive CQ; the receive CQ of an interrupt-mode
 * end has a non-blocking completion channel, waited on with epoll and
 * drained until EAGAIN, its events acked in batches. Every SEND carries a
 * struct msg_hdr and a pattern derived from its sequence number, checked
 * byte by byte on arrival.
 *
 * The helpers run on the test's thread and on an echo thread, so they do
 * not use cmocka's asserts: they return -1 with the reason in e->err.
 */

#ifndef RC_EP_H
#define RC_EP_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define RC_SLOT_SIZE 4096u
#define RC_RECV_SLOTS 16u
#define RC_BUF_SIZE (2u << 20) /* one 2 MiB hugepage */
#define RC_ACK_BATCH 16u /* ibv_ack_cq_events takes a mutex: ack in batches */
#define RC_WAIT_MS 5000

/* The message every SEND carries: checked on arrival, word by word. */
struct msg_hdr {
	uint32_t seq;
	uint32_t len;
};

struct rc_ep {
	const char *name;
	struct rdma_event_channel *cm_ch;
	struct rdma_cm_id *id; /* the connected id */
	struct ibv_pd *pd;
	struct ibv_comp_channel *comp_ch; /* interrupt mode: the receive CQ sleeps on it */
	struct ibv_cq *send_cq;
	struct ibv_cq *recv_cq;
	struct ibv_mr *mr;
	uint8_t *buf; /* RC_RECV_SLOTS receive slots, then one send slot */
	bool huge;
	int epfd;
	char err[256]; /* why the last helper failed */
	/* interrupt-mode counters */
	unsigned int unacked;
	unsigned long arms, wakeups, events, caught_after_arm, empty_wakeups;
};

double rc_now_ms(void);
int rc_set_nonblock(int fd);
/* Wait up to RC_WAIT_MS for the next CM event on @ch and check its type. */
int rc_cm_expect(struct rdma_event_channel *ch, enum rdma_cm_event_type type,
		 struct rdma_cm_id **id);

/* Record why a helper failed in e->err; returns -1. */
__attribute__((format(printf, 2, 3))) int rc_ep_fail(struct rc_ep *e, const char *fmt, ...);
/* Whether the message at @p is @seq of @len bytes, byte by byte. */
int rc_check(struct rc_ep *e, const uint8_t *p, uint32_t seq, uint32_t len);

/* Resources for one connected id, every receive posted; @interrupt: the
 * receive CQ gets a completion channel and the buffer is a hugepage. */
int rc_ep_setup(struct rc_ep *e, struct rdma_cm_id *id, bool interrupt);
/* In reverse order of rc_ep_setup, acks flushed first; every step checked. */
int rc_ep_destroy(struct rc_ep *e);

int rc_ep_post_recv(struct rc_ep *e, uint32_t slot);
/* SEND @seq of @len bytes from the send slot (IBV_SEND_SOLICITED if asked). */
int rc_ep_send(struct rc_ep *e, uint32_t seq, uint32_t len, bool solicited);
/* The send slot is reused: its completion is reaped before the next send. */
int rc_ep_reap_send(struct rc_ep *e, uint32_t seq);
/* Receive and check @seq, polling or sleeping, and post the slot again. */
int rc_ep_recv(struct rc_ep *e, bool interrupt, uint32_t seq, uint32_t len);

/* Poll @cq for one completion, up to RC_WAIT_MS. */
int rc_wait_poll(struct ibv_cq *cq, struct ibv_wc *wc);
/* One receive completion, sleeping when there is none (see rc_ep.c). */
int rc_ep_wait_interrupt(struct rc_ep *e, struct ibv_wc *wc, bool solicited_only);
/* Read the channel until EAGAIN, counting events for a batched ack. */
int rc_ep_drain_channel(struct rc_ep *e);
/* Drain, then ack every event not yet acked. */
int rc_ep_flush_acks(struct rc_ep *e);

#endif /* RC_EP_H */
